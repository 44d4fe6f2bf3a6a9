//! Linking: at the end of each file its labels are patched in (and open blocks reported); after
//! the last file, procedure calls are patched with each procedure's start and length, every
//! DVLE gets its entry range, and the [`Shbin`] is built (DVLEs in file order, uniform tables
//! sorted by register, `$` written as `.` in names).

use super::flow::{patch_call, patch_dest};
use super::state::{Asm, ConstValue, Entry, RelocKind, TargetRef};
use super::{Assembly, Diagnostic, Severity};
use crate::program::ShaderKind;
use crate::shbin::{
    Constant, Dvle, Dvlp, GsMode, OpDescEntry, Output, OutputSemantic, Shbin, UniformEntry,
};

impl Asm {
    /// End of a file: unclosed blocks, label relocations, label targets of `.entry`.
    pub(crate) fn end_file(&mut self) {
        if let Some(block) = self.stack.last() {
            let site = block.site().clone();
            self.error_at(&site, "unclosed block(s)".to_string());
            self.stack.clear();
        }
        for reloc in std::mem::take(&mut self.file.label_relocs) {
            match self.file.labels.get(&reloc.name) {
                Some(&addr) => self.code[reloc.pos] = patch_dest(self.code[reloc.pos], addr),
                None if reloc.kind == RelocKind::Target => {
                    self.proc_relocs.push(super::state::Reloc {
                        kind: RelocKind::TargetProc,
                        ..reloc
                    })
                }
                None => {
                    let msg = format!("label '{}' is undefined", reloc.name);
                    self.error_at(&reloc.site, msg);
                }
            }
        }
        if let Some(d) = self.file.dvle {
            if let Entry::Range(a, b) = &mut self.dvles[d].entry {
                for t in [a, b] {
                    if let TargetRef::Name(name, _) = t {
                        if let Some(&addr) = self.file.labels.get(name.as_str()) {
                            *t = TargetRef::Addr(addr);
                        }
                    }
                }
            }
        }
    }

    /// After the last file: procedures, entries, the SHBIN and the header.
    pub(crate) fn finish(mut self, last_file: &str) -> Result<Assembly, Vec<Diagnostic>> {
        if !self.has_errors() {
            self.link(last_file);
        }
        if self.has_errors() {
            return Err(self.diags);
        }
        let shbin = self.build();
        let header = super::header::header(&self);
        Ok(Assembly {
            shbin,
            header,
            warnings: self.diags,
        })
    }

    fn link(&mut self, last_file: &str) {
        for reloc in std::mem::take(&mut self.proc_relocs) {
            match self.procs.get(&reloc.name) {
                Some(&(start, len)) => {
                    let w = self.code[reloc.pos];
                    self.code[reloc.pos] = match reloc.kind {
                        RelocKind::Proc => patch_call(w, start, len),
                        RelocKind::Label | RelocKind::Target | RelocKind::TargetProc => {
                            patch_dest(w, start)
                        }
                    };
                }
                None => {
                    let msg = match reloc.kind {
                        RelocKind::Proc => format!("procedure '{}' is undefined", reloc.name),
                        RelocKind::Label | RelocKind::Target | RelocKind::TargetProc => {
                            format!("label or procedure '{}' is undefined", reloc.name)
                        }
                    };
                    self.error_at(&reloc.site, msg);
                }
            }
        }
        if self.dvles.iter().all(|d| d.nodvle) {
            self.diags.push(Diagnostic::file_level(
                Severity::Error,
                last_file,
                "no DVLEs can be generated from the given input file(s)".to_string(),
            ));
            return;
        }
        let mut ranges = Vec::with_capacity(self.dvles.len());
        for d in 0..self.dvles.len() {
            let dvle = &self.dvles[d];
            let range = match &dvle.entry {
                Entry::Proc(name, site) => match self.procs.get(name) {
                    Some(&(start, len)) => Some((start, start.wrapping_add(len))),
                    None if dvle.nodvle => None,
                    None => {
                        let msg = format!("entrypoint '{name}' is undefined");
                        match site.clone() {
                            Some(site) => self.error_at(&site, msg),
                            None => {
                                let file = dvle.file.to_string();
                                self.diags.push(Diagnostic::file_level(
                                    Severity::Error,
                                    &file,
                                    msg,
                                ));
                            }
                        }
                        None
                    }
                },
                Entry::Range(a, b) => {
                    let (a, b) = (a.clone(), b.clone());
                    match (self.resolve(&a), self.resolve(&b)) {
                        (Some(a), Some(b)) => Some((a, b)),
                        _ => None,
                    }
                }
            };
            ranges.push(range);
        }
        self.entries = ranges;
    }

    fn resolve(&mut self, t: &TargetRef) -> Option<u32> {
        match t {
            TargetRef::Addr(a) => Some(*a),
            TargetRef::Name(name, site) => match self.procs.get(name) {
                Some(&(start, _)) => Some(start),
                None => {
                    let site = site.clone();
                    self.error_at(&site, format!("label or procedure '{name}' is undefined"));
                    None
                }
            },
        }
    }

    fn build(&self) -> Shbin {
        let dvlp = Dvlp {
            version: 0,
            code: self.code.clone(),
            descs: self
                .descs
                .words
                .iter()
                .map(|&word| OpDescEntry { word, extra: 0 })
                .collect(),
            reserved: [0; 3],
        };
        let mut dvles = Vec::new();
        for (d, range) in self.dvles.iter().zip(&self.entries) {
            if d.nodvle {
                continue;
            }
            let (entry_start, entry_end) = range.unwrap_or((0, 0));
            let mut uniforms: Vec<_> = d.uniforms.iter().collect();
            uniforms.sort_by_key(|u| u.code);
            dvles.push(Dvle {
                version: Dvle::VERSION_PICASSO,
                kind: if d.geo {
                    ShaderKind::Geometry
                } else {
                    ShaderKind::Vertex
                },
                merge_outmaps: d.merge,
                entry_start,
                entry_end,
                input_mask: d.input_mask,
                output_mask: d.output_mask,
                gs_mode: GsMode::from_code(d.gs_mode),
                gs_fixed_start: d.gs_fixed_start,
                gs_variable_num: d.gs_variable_num,
                gs_fixed_num: d.gs_fixed_num,
                constants: d
                    .constants
                    .iter()
                    .map(|c| match c.value {
                        ConstValue::Float([x, y, z, w]) => Constant::Float {
                            reg: (c.code - 0x20) as u16,
                            x,
                            y,
                            z,
                            w,
                        },
                        ConstValue::Int(value) => Constant::Int {
                            reg: (c.code - 0x80) as u16,
                            value,
                        },
                        ConstValue::Bool(value) => Constant::Bool {
                            reg: (c.code - 0x88) as u16,
                            value,
                        },
                    })
                    .collect(),
                labels: Vec::new(),
                outputs: d
                    .outputs
                    .iter()
                    .map(|&(semantic, reg, mask)| Output {
                        semantic: OutputSemantic::from_code(semantic),
                        reg,
                        mask: u32::from(mask),
                    })
                    .collect(),
                uniforms: uniforms
                    .iter()
                    .map(|u| {
                        let first = if u.code >= 0x20 {
                            u.code - 0x10
                        } else {
                            u.code
                        };
                        UniformEntry {
                            name: u.name.replace('$', "."),
                            first: first as u16,
                            last: (first + u.size - 1) as u16,
                        }
                    })
                    .collect(),
            });
        }
        Shbin {
            dvlp,
            dvles,
            layout: None,
        }
    }
}
