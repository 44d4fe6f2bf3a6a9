//! The disassembler: a SHBIN as text in the assembly language that assembles back to the same
//! code words, the same operand-descriptor table and the same DVLE entry ranges — for any
//! input with at least one DVLE (picasso's linking model has no text for a file without one),
//! including undefined opcodes and stray unused bits (written as raw `!0x…` words).
//!
//! The text is tried in decreasing order of readability and the first that reassembles exactly
//! is returned:
//! 1. *structured*: one file per DVLE (declarations from its tables, names for its uniforms,
//!    inputs and outputs), procedures from the entry points and call targets, IF/FOR blocks,
//!    labels at jump targets; the descriptor table is rebuilt by the assembler from the
//!    instructions as picasso builds it (this works for everything picasso wrote);
//! 2. the same without IF/FOR blocks (explicit targets and counts instead);
//! 3. *flat*: the code in one procedure of a `.nodvle` file, the descriptor table pinned with
//!    `.opdesc` and `@N` where an instruction's entry is not the first that fits;
//! 4. *raw*: as 3, every word raw.
//!
//! DVLE tables are reproduced as far as picasso's directives can express them; anything else
//! is listed in a `; note:` comment.

mod code;
mod decls;
mod layout;
mod value;

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use self::code::{Ctx, Role};
use self::decls::{Decls, Shared};
use self::layout::CodePlan;
use super::opdesc::DescTable;
use super::syntax::{syntax, Flow, Syntax};
use super::{assemble, Source};
use crate::isa::{Instruction, Opcode};
use crate::shbin::Shbin;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Structured { blocks: bool },
    Flat,
    Raw,
}

/// Text for the whole SHBIN.
pub fn disassemble(shbin: &Shbin) -> String {
    disassemble_checked(shbin).0
}

/// The text, and what it assembles to when that reproduces `shbin` (`None` only if no layout
/// does — e.g. a SHBIN without DVLEs, which no text can describe).
pub(crate) fn disassemble_checked(shbin: &Shbin) -> (String, Option<Shbin>) {
    let mut last = String::new();
    let mut rebuilds = None;
    for mode in [
        Mode::Structured { blocks: true },
        Mode::Structured { blocks: false },
        Mode::Flat,
        Mode::Raw,
    ] {
        let Some(text) = write(shbin, mode, &mut rebuilds) else {
            continue;
        };
        if let Some(back) = reproduces(shbin, &text) {
            return (text, Some(back));
        }
        last = text;
    }
    (last, None)
}

/// Text for one DVLE: all the code, that DVLE's tables only.
pub fn disassemble_dvle(shbin: &Shbin, dvle: usize) -> String {
    let mut one = shbin.clone();
    one.dvles = shbin.dvles.get(dvle).cloned().into_iter().collect();
    one.layout = None;
    disassemble(&one)
}

/// What `text` assembles to, if that has the code, descriptors and entry ranges of `shbin`.
fn reproduces(shbin: &Shbin, text: &str) -> Option<Shbin> {
    let Ok((got, _)) = assemble(&[Source::new("disassembly", text)]) else {
        return None;
    };
    let same = got.dvlp.code == shbin.dvlp.code
        && got.dvlp.descs.len() == shbin.dvlp.descs.len()
        && got
            .dvlp
            .descs
            .iter()
            .zip(&shbin.dvlp.descs)
            .all(|(a, b)| a.word == b.word)
        && got.dvles.len() == shbin.dvles.len()
        && got
            .dvles
            .iter()
            .zip(&shbin.dvles)
            .all(|(a, b)| (a.entry_start, a.entry_end) == (b.entry_start, b.entry_end));
    same.then_some(got)
}

fn empty_ctx<'a>(
    descs: &'a [u32],
    labels: &'a HashMap<u32, String>,
    procs: &'a HashMap<(u32, u32), String>,
) -> Ctx<'a> {
    Ctx {
        descs,
        names: None,
        labels,
        procs,
        geo: false,
    }
}

/// Whether the assembler, fed the instructions in order, builds exactly this descriptor table
/// and gives every instruction the entry it has. `geo` tells, per code word, whether its file
/// is a geometry shader (words a file cannot write are left raw and ask for nothing).
fn descriptors_rebuild(shbin: &Shbin, geo: &[bool]) -> bool {
    let descs: Vec<u32> = shbin.dvlp.descs.iter().map(|d| d.word).collect();
    let (labels, procs) = (HashMap::new(), HashMap::new());
    let mut table = DescTable::default();
    // Per word: the entry the assembler gives it (non-MAD entries follow later swaps).
    let mut given: Vec<Option<(usize, bool)>> = vec![None; shbin.dvlp.code.len()];
    for (pos, &word) in shbin.dvlp.code.iter().enumerate() {
        let ctx = Ctx {
            geo: geo.get(pos).copied().unwrap_or(false),
            ..empty_ctx(&descs, &labels, &procs)
        };
        let Some(want) = code::render(word, &ctx, Role::Explicit).and_then(|r| r.desc) else {
            continue;
        };
        let index = if want.mad {
            let Ok((i, swap)) = table.get_mad(want.want, want.care, None) else {
                return false;
            };
            if let Some((a, b)) = swap {
                for (slot, _) in given.iter_mut().flatten().filter(|(_, mad)| !mad) {
                    if *slot == a {
                        *slot = b;
                    } else if *slot == b {
                        *slot = a;
                    }
                }
            }
            i
        } else {
            let Ok(i) = table.get(want.want, want.care, None) else {
                return false;
            };
            i
        };
        given[pos] = Some((index, want.mad));
    }
    let held = shbin
        .dvlp
        .code
        .iter()
        .map(|&w| Instruction::decode(w).alu().map(|a| usize::from(a.desc)));
    table.words == descs
        && given
            .iter()
            .zip(held)
            .all(|(g, h)| g.map_or(true, |(i, _)| h == Some(i)))
}

/// One file of the text.
struct Unit<'a> {
    header: Vec<String>,
    decls: Option<Decls>,
    entry: Option<String>,
    plan: CodePlan,
    ctx_names: bool,
    /// Addresses that get labels in this file.
    labels: HashMap<u32, String>,
    shbin: &'a Shbin,
}

fn label_name(addr: u32) -> String {
    format!("L_{addr:03x}")
}

/// The addresses the code of `plan` refers to (jumps, explicit targets).
fn targets(shbin: &Shbin, plan: &CodePlan, procs: &HashMap<(u32, u32), String>) -> HashSet<u32> {
    let openers: HashSet<u32> = plan.blocks.iter().map(|b| b.at).collect();
    let mut out = HashSet::new();
    for a in plan.range.clone() {
        let word = shbin.dvlp.code[a as usize];
        if Instruction::unused_bits(word) != 0 {
            continue;
        }
        let instr = Instruction::decode(word);
        let (dest, num) = if let Instruction::Breakc(f)
        | Instruction::Call(f)
        | Instruction::Callc(f)
        | Instruction::Ifc(f)
        | Instruction::Jmpc(f) = instr
        {
            (u32::from(f.dest), u32::from(f.num))
        } else if let Instruction::Callu(f) | Instruction::Ifu(f) | Instruction::Jmpu(f) = instr {
            (u32::from(f.dest), u32::from(f.num))
        } else if let Instruction::Loop(f) = instr {
            (u32::from(f.dest), u32::from(f.num))
        } else {
            continue;
        };
        let needed = match syntax(instr.opcode()) {
            Syntax::Flow(Flow::JmpC | Flow::JmpU) => true,
            Syntax::Flow(Flow::Call | Flow::CallC | Flow::CallU) => {
                !procs.contains_key(&(dest, num))
            }
            Syntax::Flow(Flow::IfU | Flow::IfC | Flow::Loop) => !openers.contains(&a),
            Syntax::Flow(Flow::BreakC) => dest != 0 || num != 0,
            Syntax::NoOperands
            | Syntax::Alu(_)
            | Syntax::InvertedOf(_)
            | Syntax::SetEmit
            | Syntax::RawOnly => false,
        };

        if needed {
            out.insert(dest);
        }
    }
    out
}

/// The text in one layout; `None` when the structured layout cannot work (`rebuilds` caches
/// whether the descriptor table can be rebuilt from the instructions).
fn write(shbin: &Shbin, mode: Mode, rebuilds: &mut Option<bool>) -> Option<String> {
    let len = shbin.dvlp.code.len() as u32;
    let descs: Vec<u32> = shbin.dvlp.descs.iter().map(|d| d.word).collect();
    let mut out = String::with_capacity(256 + 80 * (len as usize + descs.len()));
    let _ = writeln!(
        out,
        "; picajit disasm: {} DVLE(s), {} code words, {} operand descriptors",
        shbin.dvles.len(),
        len,
        descs.len()
    );
    let mut units: Vec<Unit<'_>> = Vec::new();
    let procs: HashMap<(u32, u32), String>;
    match mode {
        Mode::Structured { blocks } => {
            let (plans, entry_names, by_range) = layout::structured(shbin, blocks);
            let mut limits = vec![false; len as usize];
            for plan in &plans {
                let geo = plan
                    .dvle
                    .and_then(|k| shbin.dvles.get(k))
                    .is_some_and(|d| d.kind == crate::program::ShaderKind::Geometry);
                for a in plan.range.clone() {
                    limits[a as usize] = geo;
                }
            }
            if !*rebuilds.get_or_insert_with(|| descriptors_rebuild(shbin, &limits)) {
                return None;
            }
            procs = by_range;
            let mut shared = Shared::default();
            for (i, plan) in plans.into_iter().enumerate() {
                let file = if i > 0 {
                    vec![format!(
                        ".file {}",
                        plan.dvle.map_or(format!("code{i}"), |k| format!("dvle{k}"))
                    )]
                } else {
                    Vec::new()
                };
                let Some(k) = plan.dvle.filter(|&k| k < shbin.dvles.len()) else {
                    let mut u = code_unit(shbin, plan, &procs);
                    u.header = file;
                    u.header.push(".nodvle".to_string());
                    units.push(u);
                    continue;
                };
                let dvle = &shbin.dvles[k];
                let decls = decls::declarations(dvle, k, &mut shared);
                let mut labels: HashMap<u32, String> = targets(shbin, &plan, &procs)
                    .into_iter()
                    .filter(|a| plan.range.start <= *a && *a <= plan.range.end)
                    .map(|a| (a, label_name(a)))
                    .collect();
                let entry = match &entry_names[k] {
                    Some(name) => format!(".entry {name}"),
                    None => {
                        let [a, b] = [dvle.entry_start, dvle.entry_end].map(|a| {
                            if plan.range.start <= a && a <= plan.range.end {
                                labels.entry(a).or_insert_with(|| label_name(a)).clone()
                            } else {
                                format!("{a:#x}")
                            }
                        });
                        format!(".entry {a} {b}")
                    }
                };
                units.push(Unit {
                    header: file,
                    decls: Some(decls),
                    entry: Some(entry),
                    plan,
                    ctx_names: true,
                    labels,
                    shbin,
                });
            }
        }
        Mode::Flat | Mode::Raw => {
            let _ = writeln!(
                out,
                "; the operand-descriptor table is pinned: the instructions alone would not rebuild it"
            );
            for chunk in descs.chunks(6) {
                let words: Vec<String> = chunk.iter().map(|w| format!("{w:#010x}")).collect();
                let _ = writeln!(out, ".opdesc {}", words.join(", "));
            }
            let plan = layout::flat(len);
            procs = if len > 0 {
                HashMap::from([((0, len), "code".to_string())])
            } else {
                HashMap::new()
            };
            let mut u = code_unit(shbin, plan, &procs);
            u.header.push(".nodvle".to_string());
            if len as usize > crate::asm::state::VERTEX_CODE_LIMIT {
                u.header
                    .push(".gsh ; (no vertex-shader size limit for this file)".to_string());
            }
            units.push(u);
            let mut shared = Shared::default();
            for (k, dvle) in shbin.dvles.iter().enumerate() {
                let decls = decls::declarations(dvle, k + 1, &mut shared);
                let entry = if (dvle.entry_start, dvle.entry_end) == (0, len) && len > 0 {
                    ".entry code".to_string()
                } else {
                    format!(".entry {:#x} {:#x}", dvle.entry_start, dvle.entry_end)
                };
                units.push(Unit {
                    header: vec![format!(".file dvle{k}")],
                    decls: Some(decls),
                    entry: Some(entry),
                    plan: CodePlan::default(),
                    ctx_names: false,
                    labels: HashMap::new(),
                    shbin,
                });
            }
        }
    }
    let raw_only = mode == Mode::Raw;
    let pinned = matches!(mode, Mode::Flat | Mode::Raw);
    for unit in &units {
        write_unit(&mut out, unit, &descs, &procs, raw_only, pinned);
    }
    Some(out)
}

fn code_unit<'a>(
    shbin: &'a Shbin,
    plan: CodePlan,
    procs: &HashMap<(u32, u32), String>,
) -> Unit<'a> {
    let labels = targets(shbin, &plan, procs)
        .into_iter()
        .filter(|a| plan.range.start <= *a && *a <= plan.range.end)
        .map(|a| (a, label_name(a)))
        .collect();
    Unit {
        header: Vec::new(),
        decls: None,
        entry: None,
        plan,
        ctx_names: false,
        labels,
        shbin,
    }
}

fn write_unit(
    out: &mut String,
    unit: &Unit<'_>,
    descs: &[u32],
    procs: &HashMap<(u32, u32), String>,
    raw_only: bool,
    pinned: bool,
) {
    out.push('\n');
    for h in &unit.header {
        let _ = writeln!(out, "{h}");
    }
    let mut geo = false;
    if let Some(d) = &unit.decls {
        for n in &d.notes {
            // Names in notes come from the file: a line break in one would end the comment.
            let n: String = n
                .chars()
                .flat_map(|c| {
                    let escaped = c.is_control().then(|| c.escape_default());
                    let plain = (!c.is_control()).then_some(c);
                    escaped.into_iter().flatten().chain(plain)
                })
                .collect();
            let _ = writeln!(out, "; note: {n}");
        }
        for l in &d.lines {
            let _ = writeln!(out, "{l}");
        }
        geo = d.output_limit == 7;
    }
    if let Some(e) = &unit.entry {
        let _ = writeln!(out, "{e}");
    }
    if unit.header.iter().any(|h| h.starts_with(".gsh")) {
        geo = true;
    }
    let plan = &unit.plan;
    if plan.range.is_empty() && plan.procs.is_empty() {
        return;
    }
    out.push('\n');
    let ctx = Ctx {
        descs,
        names: if unit.ctx_names {
            unit.decls.as_ref().map(|d| &d.names)
        } else {
            None
        },
        labels: &unit.labels,
        procs,
        geo,
    };
    let code = &unit.shbin.dvlp.code;
    let openers: HashSet<u32> = plan.blocks.iter().map(|b| b.at).collect();
    // Addresses where a block or procedure closes (or an ELSE starts), and whether a loop
    // closes there: the word before must not be one picasso pads after.
    let mut closing: HashMap<u32, bool> = HashMap::new();
    for p in &plan.procs {
        closing.entry(p.range.end).or_insert(false);
    }
    for b in &plan.blocks {
        let is_loop =
            b.else_at.is_none() && matches!(layout::opcode(code[b.at as usize]), Opcode::Loop);
        *closing.entry(b.end).or_insert(false) |= is_loop;
        if let Some(e) = b.else_at {
            closing.entry(e).or_insert(false);
        }
    }
    let mut table = DescTable::default();
    if pinned {
        for &w in descs {
            let _ = table.pin(w);
        }
    }
    let mut depth = 0usize;
    let indent = |d: usize| "    ".repeat(d);
    for a in plan.range.start..=plan.range.end {
        // Closings, innermost first: blocks then procedures ending here, latest start first.
        let mut ends: Vec<(u32, u8)> = plan
            .blocks
            .iter()
            .filter(|b| b.end == a && b.at < a)
            .map(|b| (b.at, 0))
            .chain(
                plan.procs
                    .iter()
                    .filter(|p| p.range.end == a && p.range.start < a)
                    .map(|p| (p.range.start, 1)),
            )
            .collect();
        ends.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        for _ in &ends {
            depth = depth.saturating_sub(1);
            let _ = writeln!(out, "{}.end", indent(depth));
        }
        if plan.blocks.iter().any(|b| b.else_at == Some(a)) {
            let _ = writeln!(out, "{}.else", indent(depth.saturating_sub(1)));
        }
        let mut opens: Vec<_> = plan.procs.iter().filter(|p| p.range.start == a).collect();
        opens.sort_by_key(|p| std::cmp::Reverse(p.range.end));
        for p in opens {
            let _ = writeln!(out, "{}.proc {}", indent(depth), p.name);
            if p.range.is_empty() {
                let _ = writeln!(out, "{}.end", indent(depth));
            } else {
                depth += 1;
            }
        }
        if let Some(l) = unit.labels.get(&a) {
            let _ = writeln!(out, "{l}:");
        }
        if a == plan.range.end {
            break;
        }
        let word = code[a as usize];
        let opener = openers.contains(&a);
        let role = if opener { Role::Opener } else { Role::Explicit };
        let pads = closing.get(&(a + 1)).is_some_and(|&is_loop| {
            let op = layout::opcode(word);
            layout::ends_badly(word) || (is_loop && matches!(op, Opcode::Break | Opcode::Breakc))
        });
        let rendered = if raw_only || pads {
            None
        } else {
            code::render(word, &ctx, role)
        };
        let line = match rendered {
            Some(r) => {
                let mut text = r.text;
                if let (Some(u), true) = (r.desc, pinned) {
                    let first = if u.mad {
                        table.get_mad(u.want, u.care, None).map(|(i, _)| i)
                    } else {
                        table.get(u.want, u.care, None)
                    };
                    if first != Ok(u.index) {
                        let _ = write!(text, " @{}", u.index);
                    }
                }
                text
            }
            None => format!(
                "!{word:#010x}    ; {}",
                Instruction::decode(word).listing(descs)
            ),
        };
        let _ = writeln!(out, "{}{line}", indent(depth));
        if opener {
            depth += 1;
        }
    }
}
