//! How the code is cut into files, procedures and blocks for the text.
//!
//! In the structured layout each DVLE becomes one file (its declarations, then the code from
//! its entry point up to the next DVLE's), procedures come from the DVLE entry ranges and the
//! call targets, code no procedure covers goes into numbered procedures, and IF/FOR words whose
//! targets nest properly become blocks. Everything is kept only if it nests (a procedure or
//! block that overlaps another is written with explicit targets instead).

use std::collections::HashMap;
use std::ops::Range;

use crate::isa::{DstKind, Instruction, Opcode};
use crate::shbin::Shbin;

/// A procedure: `.proc name` over `range`.
#[derive(Clone, Debug)]
pub(crate) struct ProcSpan {
    pub name: String,
    pub range: Range<u32>,
}

/// An IF or FOR block opened by the word at `at`.
#[derive(Clone, Debug)]
pub(crate) struct BlockSpan {
    pub at: u32,
    pub else_at: Option<u32>,
    pub end: u32,
}

/// The code of one file.
#[derive(Clone, Debug, Default)]
pub(crate) struct CodePlan {
    pub range: Range<u32>,
    pub procs: Vec<ProcSpan>,
    pub blocks: Vec<BlockSpan>,
    /// The DVLE whose file this is (`None`: a `.nodvle` file).
    pub dvle: Option<usize>,
}

/// Any span of the laminar family: `[start, end)` with an optional split point.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    end: u32,
    split: Option<u32>,
}

impl Span {
    /// Whether `self` and `other` can both be written: disjoint, or one inside the other (and
    /// then on one side of its split).
    fn compatible(&self, other: &Span) -> bool {
        let disjoint = self.end <= other.start || other.end <= self.start;
        if disjoint {
            return true;
        }
        let inside = |a: &Span, b: &Span| {
            b.start <= a.start
                && a.end <= b.end
                && (a.start, a.end) != (b.start, b.end)
                && b.split.map_or(true, |s| a.end <= s || a.start >= s)
        };
        inside(self, other) || inside(other, self)
    }
}

/// The (start, length) a call word names, when its unused bits are clear.
pub(crate) fn call_target(word: u32) -> Option<(u32, u32)> {
    if Instruction::unused_bits(word) != 0 {
        return None;
    }
    let instr = Instruction::decode(word);
    if let Instruction::Call(f) | Instruction::Callc(f) = instr {
        Some((u32::from(f.dest), u32::from(f.num)))
    } else if let Instruction::Callu(f) = instr {
        Some((u32::from(f.dest), u32::from(f.num)))
    } else {
        None
    }
}

/// The block an IF/FOR word would open: (else point, end).
fn block_of(at: u32, word: u32) -> Option<(Option<u32>, u32)> {
    if Instruction::unused_bits(word) != 0 {
        return None;
    }
    let instr = Instruction::decode(word);
    let (dest, num, is_loop) = if let Instruction::Ifu(f) = instr {
        (u32::from(f.dest), u32::from(f.num), false)
    } else if let Instruction::Ifc(f) = instr {
        (u32::from(f.dest), u32::from(f.num), false)
    } else if let Instruction::Loop(f) = instr {
        (u32::from(f.dest), u32::from(f.num), true)
    } else {
        return None;
    };
    if is_loop {
        (num == 0 && dest > at).then_some((None, dest + 1))
    } else if dest <= at {
        None
    } else if num == 0 {
        Some((None, dest))
    } else {
        Some((Some(dest), dest + num))
    }
}

/// Whether any word in `range` writes an output register a geometry shader cannot name.
fn writes_high_outputs(code: &[u32], range: Range<u32>) -> bool {
    code[range.start as usize..range.end as usize]
        .iter()
        .any(|&w| {
            let instr = Instruction::decode(w);
            instr.alu().is_some_and(|alu| {
                instr.opcode() != Opcode::Cmp
                    && instr.opcode() != Opcode::Mova
                    && matches!(alu.dst.kind(), DstKind::Output(7..))
            })
        })
}

/// Files, DVLE entry procedure names, procedures by (start, length).
pub(crate) type Structured = (
    Vec<CodePlan>,
    Vec<Option<String>>,
    HashMap<(u32, u32), String>,
);

/// The structured layout: the files in order (each with its DVLE, or none for a code-only
/// `.nodvle` file), the names of the DVLE entry procedures (or `None` when an entry range is
/// written explicitly), and every procedure by (start, length).
pub(crate) fn structured(shbin: &Shbin, with_blocks: bool) -> Structured {
    let code = &shbin.dvlp.code;
    let len = code.len() as u32;
    let n = shbin.dvles.len().max(1);

    // Files: DVLE k from its entry start to the next one's, if the starts are in order.
    let mut bounds: Vec<u32> = vec![0];
    let starts: Vec<u32> = shbin.dvles.iter().skip(1).map(|d| d.entry_start).collect();
    let ordered = starts.windows(2).all(|w| w[0] <= w[1]) && starts.iter().all(|&s| s <= len);
    if ordered {
        bounds.extend(starts);
    } else {
        bounds.extend(std::iter::repeat(len).take(n - 1));
    }
    bounds.push(len);
    let dvle_unit_of =
        |r: &Range<u32>| (0..n).find(|&u| bounds[u] <= r.start && r.end <= bounds[u + 1]);

    let mut accepted: Vec<Span> = Vec::new();
    let mut procs: Vec<ProcSpan> = Vec::new();
    let mut by_range: HashMap<(u32, u32), String> = HashMap::new();
    let mut entry_names = vec![None; shbin.dvles.len()];
    let mut try_proc =
        |range: Range<u32>, name: String, accepted: &mut Vec<Span>| -> Option<String> {
            if range.end > len
                || range.start > range.end
                || (range.start == range.end && range.start != 0)
            {
                return None;
            }
            if let Some(existing) = by_range.get(&(range.start, range.end - range.start)) {
                return Some(existing.clone());
            }
            dvle_unit_of(&range)?;
            let span = Span {
                start: range.start,
                end: range.end,
                split: None,
            };
            if range.start != range.end {
                if !accepted.iter().all(|s| s.compatible(&span)) {
                    return None;
                }
                accepted.push(span);
            }
            by_range.insert((range.start, range.end - range.start), name.clone());
            procs.push(ProcSpan {
                name: name.clone(),
                range,
            });
            Some(name)
        };
    for (k, d) in shbin.dvles.iter().enumerate() {
        if d.entry_start <= d.entry_end {
            let name = if k == 0 {
                "main".to_string()
            } else {
                format!("main_{k}")
            };
            entry_names[k] = try_proc(d.entry_start..d.entry_end, name, &mut accepted);
        }
    }
    let mut calls: Vec<(u32, u32)> = code.iter().filter_map(|&w| call_target(w)).collect();
    calls.sort_unstable();
    calls.dedup();
    for (start, num) in calls {
        if num > 0 {
            try_proc(
                start..start + num,
                format!("proc_{start:03x}"),
                &mut accepted,
            );
        }
    }

    // Files as (range, DVLE). Code before or after a geometry shader's entry procedure that
    // writes o7..o15 cannot be written in that file: it gets a `.nodvle` file of its own.
    let mut files: Vec<(Range<u32>, Option<usize>)> = Vec::new();
    for u in 0..n {
        let range = bounds[u]..bounds[u + 1];
        let dvle = shbin.dvles.get(u);
        let geo = dvle.is_some_and(|d| d.kind == crate::program::ShaderKind::Geometry);
        let crosses = |at: u32| accepted.iter().any(|s| s.start < at && at < s.end);
        match dvle {
            Some(d)
                if geo
                    && range.start <= d.entry_start
                    && d.entry_start <= d.entry_end
                    && d.entry_end <= range.end =>
            {
                let (s, e) = (d.entry_start, d.entry_end);
                let split_head =
                    s > range.start && !crosses(s) && writes_high_outputs(code, range.start..s);
                let split_tail =
                    e < range.end && !crosses(e) && writes_high_outputs(code, e..range.end);
                let mut mid = range.clone();
                if split_head {
                    files.push((range.start..s, None));
                    mid.start = s;
                }
                if split_tail {
                    mid.end = e;
                }
                files.push((mid, Some(u)));
                if split_tail {
                    files.push((e..range.end, None));
                }
            }
            Some(_) => files.push((range, Some(u))),
            None => files.push((range, None)),
        }
    }
    let file_of = |r: &Range<u32>| {
        files
            .iter()
            .position(|(f, _)| f.start <= r.start && r.end <= f.end)
    };

    // Code no procedure covers, per file.
    for (range, _) in &files {
        let mut a = range.start;
        while a < range.end {
            if let Some(end) = procs
                .iter()
                .filter(|p| p.range.contains(&a))
                .map(|p| p.range.end)
                .max()
            {
                a = end;
                continue;
            }
            let start = a;
            while a < range.end && !procs.iter().any(|p| p.range.contains(&a)) {
                a += 1;
            }
            let mut name = format!("proc_{start:03x}");
            if by_range.values().any(|v| *v == name) {
                name = format!("code_{start:03x}");
            }
            accepted.push(Span {
                start,
                end: a,
                split: None,
            });
            procs.push(ProcSpan {
                name,
                range: start..a,
            });
        }
    }
    // Blocks.
    let mut blocks: Vec<BlockSpan> = Vec::new();
    if with_blocks {
        for (at, &word) in code.iter().enumerate() {
            let at = at as u32;
            let Some((else_at, end)) = block_of(at, word) else {
                continue;
            };
            if end > len || file_of(&(at..end)).is_none() {
                continue;
            }
            let span = Span {
                start: at,
                end,
                split: else_at,
            };
            if accepted.iter().all(|s| s.compatible(&span)) {
                accepted.push(span);
                blocks.push(BlockSpan { at, else_at, end });
            }
        }
    }
    let mut plans: Vec<CodePlan> = files
        .iter()
        .map(|(range, dvle)| CodePlan {
            range: range.clone(),
            procs: Vec::new(),
            blocks: Vec::new(),
            dvle: *dvle,
        })
        .collect();
    for p in procs {
        let f = if p.range.is_empty() {
            files.iter().position(|(r, _)| r.start == p.range.start)
        } else {
            file_of(&p.range)
        };
        if let Some(f) = f {
            plans[f].procs.push(p);
        }
    }
    for b in blocks {
        if let Some(f) = file_of(&(b.at..b.end)) {
            plans[f].blocks.push(b);
        }
    }
    (plans, entry_names, by_range)
}

/// Whether a block may not end right after this word (picasso would add a padding NOP).
pub(crate) fn ends_badly(word: u32) -> bool {
    crate::asm::syntax::needs_padding_after(Instruction::decode(word).opcode(), false)
}

/// The flat layout: one procedure over all the code.
pub(crate) fn flat(len: u32) -> CodePlan {
    CodePlan {
        range: 0..len,
        procs: if len > 0 {
            vec![ProcSpan {
                name: "code".to_string(),
                range: 0..len,
            }]
        } else {
            Vec::new()
        },
        blocks: Vec::new(),
        dvle: None,
    }
}

/// The opcode of a word (for comments).
pub(crate) fn opcode(word: u32) -> Opcode {
    Instruction::decode(word).opcode()
}
