//! A DVLE's tables as declarations: `.gsh`, `.in`, `.fvec`/`.ivec`/`.bool` (with private
//! `_gap…` fillers where picasso's upward allocation must skip registers), `.setf`/`.seti`/
//! `.setb` for the constant table, `.out` with explicit registers. Also the names the code may
//! use for registers. Anything a declaration cannot reproduce is reported as a note.

use std::collections::{HashMap, HashSet};

use super::value;
use crate::asm::io::SEMANTICS;
use crate::asm::operand::RegClass;
use crate::asm::text::{is_identifier, looks_like_register};
use crate::program::ShaderKind;
use crate::shbin::{Constant, Dvle, GsMode, RegisterFile};

/// A name the code can use: `name` covers `size` registers of `class` from `first`.
#[derive(Clone, Debug)]
pub(crate) struct Named {
    pub name: String,
    pub first: u32,
    pub size: u32,
}

/// Register names of one file, by register file.
#[derive(Clone, Debug, Default)]
pub(crate) struct Names {
    by_class: HashMap<RegClass, Vec<Named>>,
}

impl Names {
    fn add(&mut self, class: RegClass, name: String, first: u32, size: u32) {
        self.by_class
            .entry(class)
            .or_default()
            .push(Named { name, first, size });
    }

    /// The name covering register `index` of `class`, if any.
    pub fn lookup(&self, class: RegClass, index: u32) -> Option<&Named> {
        self.by_class
            .get(&class)?
            .iter()
            .find(|n| n.first <= index && index < n.first + n.size)
    }
}

/// Allocation state carried from file to file (the shared vertex uniform space).
#[derive(Clone, Debug, Default)]
pub(crate) struct Shared {
    /// Next free register per kind: float, int, bool (file indices, c/i/b).
    next: [u32; 3],
    /// Names declared so far: name → (kind, first, size).
    declared: HashMap<String, (usize, u32, u32)>,
}

/// One file's declarations.
#[derive(Clone, Debug, Default)]
pub(crate) struct Decls {
    pub lines: Vec<String>,
    pub names: Names,
    pub notes: Vec<String>,
    /// Output registers this file may name (7 in geometry shaders).
    pub output_limit: u32,
}

const KIND_DIRECTIVE: [&str; 3] = [".fvec", ".ivec", ".bool"];
const KIND_CLASS: [RegClass; 3] = [RegClass::Float, RegClass::Int, RegClass::Bool];
const KIND_SIZE: [u32; 3] = [96, 4, 16];

/// A symbol-table name as an identifier (`.` back to `$`), if it can be declared. Uniforms
/// whose names start with `_` are never exported, so such a table entry can only be an input.
fn identifier(name: &str, input: bool) -> Option<String> {
    let id = name.replace('.', "$");
    (!id.is_empty()
        && is_identifier(&id)
        && !looks_like_register(&id)
        && (input || !id.starts_with('_')))
    .then_some(id)
}

fn mask_suffix(mask: u32) -> String {
    if mask == 0xF {
        return String::new();
    }
    let letters: String = "xyzw"
        .chars()
        .enumerate()
        .filter(|&(i, _)| mask & (1 << i) != 0)
        .map(|(_, c)| c)
        .collect();
    format!(".{letters}")
}

/// The declarations of `dvle`, the `unit`-th file.
pub(crate) fn declarations(dvle: &Dvle, unit: usize, shared: &mut Shared) -> Decls {
    let mut d = Decls {
        output_limit: 16,
        ..Decls::default()
    };
    let mut taken: HashSet<String> = HashSet::new();
    if dvle.version != Dvle::VERSION_PICASSO {
        d.notes.push(format!(
            "DVLE version {:#06x} is written as {:#06x}",
            dvle.version,
            Dvle::VERSION_PICASSO
        ));
    }
    if !dvle.labels.is_empty() {
        d.notes.push(format!(
            "{} label-table entries are not reproduced",
            dvle.labels.len()
        ));
    }

    // Geometry shader mode.
    let mut own_space: Option<u32> = None;
    let float_firsts: Vec<u32> = dvle
        .uniforms
        .iter()
        .filter_map(|u| match RegisterFile::split(u.first) {
            Some((RegisterFile::Float, i)) => Some(u32::from(i)),
            _ => None,
        })
        .collect();
    match dvle.kind {
        ShaderKind::Geometry => {
            d.output_limit = 7;
            let has_dummy = dvle.outputs.iter().any(|o| o.semantic.code() == 9);
            let plain = dvle.gs_mode == GsMode::Point
                && dvle.gs_fixed_start == 0
                && dvle.gs_variable_num == 0
                && dvle.gs_fixed_num == 0;
            if plain && !dvle.merge_outmaps && has_dummy {
                d.lines.push(".gsh".to_string());
            } else {
                // Fixed mode needs a free float register above its vertex array (cA < cF).
                let fixed = dvle.gs_mode == GsMode::Fixed && dvle.gs_fixed_start < 95;
                let low = if fixed {
                    u32::from(dvle.gs_fixed_start) + 1
                } else {
                    0
                };
                let first = float_firsts.iter().copied().min().unwrap_or(low).max(low);
                if first > 95 {
                    d.notes
                        .push("no float register is left for the uniform pool".to_string());
                }
                let first = first.min(95);
                own_space = Some(first);
                let line = match dvle.gs_mode {
                    GsMode::Point => format!(".gsh point c{first}"),
                    GsMode::Variable => {
                        format!(".gsh variable c{first} {}", dvle.gs_variable_num)
                    }
                    GsMode::Fixed if fixed => format!(
                        ".gsh fixed c{first} c{} {}",
                        dvle.gs_fixed_start, dvle.gs_fixed_num
                    ),
                    GsMode::Fixed => {
                        d.notes.push(format!(
                            "fixed mode from c{} cannot be written; written as point",
                            dvle.gs_fixed_start
                        ));
                        format!(".gsh point c{first}")
                    }
                    GsMode::Unknown(code) => {
                        d.notes
                            .push(format!("geometry mode {code} is written as point"));
                        format!(".gsh point c{first}")
                    }
                };
                d.lines.push(line);
                if dvle.gs_mode != GsMode::Variable && dvle.gs_variable_num != 0 {
                    d.notes
                        .push("the variable-mode vertex count is not reproduced".to_string());
                }
                if dvle.gs_mode != GsMode::Fixed
                    && (dvle.gs_fixed_start != 0 || dvle.gs_fixed_num != 0)
                {
                    d.notes
                        .push("the fixed-mode fields are not reproduced".to_string());
                }
                if dvle.merge_outmaps != has_dummy {
                    d.notes
                        .push("the merge-output-maps flag is not reproduced".to_string());
                }
            }
        }
        ShaderKind::Vertex => {
            if dvle.merge_outmaps
                || dvle.gs_mode != GsMode::Point
                || dvle.gs_fixed_start != 0
                || dvle.gs_variable_num != 0
                || dvle.gs_fixed_num != 0
            {
                d.notes
                    .push("geometry-shader fields of a vertex DVLE are not reproduced".to_string());
            }
        }
    }

    // Uniforms and inputs, in register order.
    let mut entries: Vec<_> = dvle.uniforms.iter().collect();
    entries.sort_by_key(|u| u.first);
    let mut own_next = [own_space.unwrap_or(0), 0, 0];
    let mut input_mask = 0u16;
    for u in entries {
        let Some(range) = u.registers() else {
            d.notes.push(format!(
                "uniform '{}' has an invalid register range",
                u.name
            ));
            continue;
        };
        let input = range.file == RegisterFile::Input;
        let Some(name) = identifier(&u.name, input).filter(|n| !taken.contains(n)) else {
            d.notes.push(format!(
                "uniform '{}' cannot be declared under that name",
                u.name
            ));
            continue;
        };
        let first = u32::from(range.first);
        let size = range.count() as u32;
        let kind = match range.file {
            RegisterFile::Input => {
                if size != 1 {
                    d.notes
                        .push(format!("input '{}' spans several registers", u.name));
                    continue;
                }
                d.lines.push(format!(".in {name} v{first}"));
                d.names.add(RegClass::Input, name.clone(), first, 1);
                input_mask |= 1 << first;
                taken.insert(name);
                continue;
            }
            RegisterFile::Float => 0,
            RegisterFile::Int => 1,
            RegisterFile::Bool => 2,
        };
        let limit = if kind == 2 && own_space.is_some() {
            15
        } else {
            KIND_SIZE[kind]
        };
        let declared = if own_space.is_none() {
            shared.declared.get(&name).copied()
        } else {
            None
        };
        let next = if own_space.is_some() {
            &mut own_next[kind]
        } else {
            &mut shared.next[kind]
        };
        let ok = match declared {
            Some(prev) => prev == (kind, first, size),
            None if first >= *next && first + size <= limit => {
                if first > *next {
                    d.lines.push(format!(
                        "{} _gap{unit}_{}{}[{}]",
                        KIND_DIRECTIVE[kind],
                        KIND_CLASS[kind].letter(),
                        *next,
                        first - *next
                    ));
                }
                *next = first + size;
                true
            }
            None => false,
        };
        if !ok {
            d.notes.push(format!(
                "uniform '{}' ({range}) cannot be placed by picasso's allocation",
                u.name
            ));
            continue;
        }
        if own_space.is_none() {
            shared.declared.insert(name.clone(), (kind, first, size));
        }
        let suffix = if size > 1 {
            format!("[{size}]")
        } else {
            String::new()
        };
        d.lines
            .push(format!("{} {name}{suffix}", KIND_DIRECTIVE[kind]));
        d.names.add(KIND_CLASS[kind], name.clone(), first, size);
        taken.insert(name);
    }
    if input_mask != dvle.input_mask {
        d.notes.push(format!(
            "input mask {:#06x} differs from the declared inputs ({input_mask:#06x})",
            dvle.input_mask
        ));
    }

    // Constants.
    for c in &dvle.constants {
        match *c {
            Constant::Float { reg, x, y, z, w } if reg < 96 => d.lines.push(format!(
                ".setf c{reg}({}, {}, {}, {})",
                value::float24(x),
                value::float24(y),
                value::float24(z),
                value::float24(w)
            )),
            Constant::Int { reg, value } if reg < 4 => d.lines.push(format!(
                ".seti i{reg}({}, {}, {}, {})",
                value[0], value[1], value[2], value[3]
            )),
            Constant::Bool { reg, value } if reg < 16 => {
                d.lines.push(format!(".setb b{reg} {value}"));
            }
            Constant::Float { .. }
            | Constant::Int { .. }
            | Constant::Bool { .. }
            | Constant::Raw { .. } => {
                d.notes.push(format!("constant {c:?} cannot be written"));
            }
        }
    }

    // Outputs.
    let mut used: u64 = 0;
    let mut output_mask = 0u16;
    let mut out_names: HashMap<u16, String> = HashMap::new();
    for o in &dvle.outputs {
        let code = o.semantic.code();
        let Some(&(sem, _)) = SEMANTICS.iter().find(|&&(_, c)| c == code) else {
            d.notes
                .push(format!("output semantic {code} cannot be written"));
            continue;
        };
        let reg = u32::from(o.reg);
        let bits = u64::from(o.mask) << (4 * reg.min(15));
        if reg >= d.output_limit
            || o.mask == 0
            || o.mask > 0xF
            || (reg >= 7 && code != 9)
            || used & bits != 0
        {
            d.notes.push(format!(
                "output {sem} in o{} (mask {:#x}) cannot be written",
                o.reg, o.mask
            ));
            continue;
        }
        used |= bits;
        output_mask |= 1 << reg;
        let name = match out_names.get(&o.reg) {
            Some(_) => "-".to_string(),
            None => {
                let mut name = format!("out_{sem}");
                if taken.contains(&name) {
                    name = format!("out_{sem}_o{reg}");
                }
                while taken.contains(&name) {
                    name.push('_');
                }
                taken.insert(name.clone());
                out_names.insert(o.reg, name.clone());
                d.names.add(RegClass::Output, name.clone(), reg, 1);
                name
            }
        };
        d.lines
            .push(format!(".out {name} {sem} o{reg}{}", mask_suffix(o.mask)));
    }
    if output_mask != dvle.output_mask {
        d.notes.push(format!(
            "output mask {:#06x} differs from the declared outputs ({output_mask:#06x})",
            dvle.output_mask
        ));
    }
    d
}
