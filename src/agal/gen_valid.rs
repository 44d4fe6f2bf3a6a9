//! Seeded random AGAL programs that the validator accepts, by construction: every opcode of
//! the table the program's kind and version allow (a caller's filter narrows them), sources
//! that only read what was written (per component, through their swizzles), indirect constant
//! reads with any index register, matrices over constants, temporaries and attributes,
//! conditional blocks nested up to the limit with masked writes, `kil`, `tex` and `tld` on up
//! to four units (2D and cube, every filter, mipmap and wrap mode, LOD biases), and the required
//! output writes (`op` in full, varyings in full; `oc`…`ocN` once each, `od.x`). For the
//! differential tests and the fuzzer; [`program`] asserts nothing — the callers validate.

use super::header::{Header, ShaderKind};
use super::opcode::{Flow, InBlock, Lanes, Opcode, Shape, Stage};
use super::reg::{RegType, Swizzle, WriteMask};
use super::token::{Dest, RawToken, SamplerField, Source};
use super::validate::MAX_NESTING;

/// One open conditional block: whether its current branch has an instruction, whether `els`
/// was seen.
struct Block {
    filled: bool,
    has_else: bool,
}

struct Gen<'a> {
    rng: &'a mut fastrand::Rng,
    kind: ShaderKind,
    version: u32,
    /// Components written per temporary.
    temps: Vec<u8>,
    /// Components of `op` written (vertex) / colour outputs written (fragment, bit per oc).
    op: u8,
    colors: u8,
    depth: bool,
    /// Varyings written in full (vertex).
    varyings: u16,
    blocks: Vec<Block>,
    tokens: Vec<RawToken>,
    /// The flags of each sampler unit used so far (#3696: a unit keeps its flags).
    samplers: Vec<(u16, SamplerField)>,
}

fn code(file: RegType) -> u8 {
    file.code()
}

/// A swizzle whose letters are all in `mask` (not empty).
fn swizzle_within(rng: &mut fastrand::Rng, mask: u8) -> Swizzle {
    let comps: Vec<u8> = (0..4).filter(|c| mask >> c & 1 != 0).collect();
    let pick = |rng: &mut fastrand::Rng| comps[rng.usize(..comps.len())];
    if rng.u8(..4) == 0 {
        // Identity where possible (the common case in real programs).
        if mask == 0xF {
            return Swizzle::IDENTITY;
        }
    }
    if rng.u8(..3) == 0 {
        let c = pick(rng);
        return Swizzle(c * 0x55);
    }
    Swizzle((0..4).fold(0u8, |s, k| s | pick(rng) << (2 * k)))
}

impl Gen<'_> {
    fn count(&self, file: RegType) -> u16 {
        file.count(self.kind, self.version) as u16
    }

    fn vertex(&self) -> bool {
        self.kind == ShaderKind::Vertex
    }

    /// A direct or indirect source readable here: `no_const` forbids constants (the other
    /// source is one), `no_indirect` indirect reads, `replicate` asks for `xxxx`-style
    /// swizzles. A temporary's swizzle names only its written components, so whatever lanes
    /// the opcode reads are defined.
    fn source(&mut self, no_const: bool, no_indirect: bool, replicate: bool) -> Source {
        loop {
            let written: Vec<u16> = (0..self.temps.len() as u16)
                .filter(|&t| self.temps[usize::from(t)] != 0)
                .collect();
            let (file, index, avail) = match self.rng.u8(..10) {
                0..=3 if !written.is_empty() => {
                    let t = written[self.rng.usize(..written.len())];
                    (RegType::Temporary, t, self.temps[usize::from(t)])
                }
                4..=5 if !no_const => {
                    if self.vertex() && !no_indirect && self.rng.u8(..3) == 0 {
                        return self.indirect(replicate);
                    }
                    let n = self.count(RegType::Constant);
                    (RegType::Constant, self.small_index(n), 0xF)
                }
                6..=8 => {
                    let file = if self.vertex() {
                        RegType::Attribute
                    } else {
                        RegType::Varying
                    };
                    let n = self.count(file);
                    (file, self.rng.u16(..n.min(4)), 0xF)
                }
                9 if self.vertex() && self.count(RegType::InstanceId) > 0 => {
                    (RegType::InstanceId, 0, 0xF)
                }
                _ => continue,
            };
            let swizzle = if replicate {
                let comps: Vec<u8> = (0..4).filter(|c| avail >> c & 1 != 0).collect();
                Swizzle(comps[self.rng.usize(..comps.len())] * 0x55)
            } else {
                swizzle_within(self.rng, avail)
            };
            return Source::direct(code(file), index, swizzle);
        }
    }

    /// A register number, mostly small (so matrices and indirect reads meet written data).
    fn small_index(&mut self, n: u16) -> u16 {
        if self.rng.bool() {
            self.rng.u16(..n.min(12))
        } else {
            self.rng.u16(..n)
        }
    }

    /// `vc[r.c + offset]` with an attribute, constant or written temporary as the index.
    fn indirect(&mut self, replicate: bool) -> Source {
        let written: Vec<(u16, u8)> = (0..self.temps.len() as u16)
            .filter(|&t| self.temps[usize::from(t)] != 0)
            .map(|t| (t, self.temps[usize::from(t)]))
            .collect();
        let (file, reg, comp) = match self.rng.u8(..3) {
            0 if !written.is_empty() => {
                let (t, m) = written[self.rng.usize(..written.len())];
                let comps: Vec<u8> = (0..4).filter(|c| m >> c & 1 != 0).collect();
                (RegType::Temporary, t, comps[self.rng.usize(..comps.len())])
            }
            1 => (
                RegType::Constant,
                self.small_index(self.count(RegType::Constant)),
                self.rng.u8(..4),
            ),
            _ => (RegType::Attribute, self.rng.u16(..4), self.rng.u8(..4)),
        };
        let swizzle = if replicate {
            Swizzle(self.rng.u8(..4) * 0x55)
        } else {
            Swizzle(self.rng.u8(..))
        };
        Source {
            reg,
            offset: if self.rng.bool() {
                self.rng.u8(..16)
            } else {
                self.rng.u8(..)
            },
            swizzle,
            reg_type: code(RegType::Constant),
            index_type: code(file),
            index_comp: comp,
            indirect: true,
            reserved: 0,
        }
    }

    /// The matrix operand of `m33`/`m34`/`m44`: `rows` registers from a start, unswizzled.
    fn matrix(&mut self, rows: u16, width: usize, no_const: bool) -> Source {
        let need: u8 = if width == 3 { 0b0111 } else { 0b1111 };
        for _ in 0..8 {
            match self.rng.u8(..4) {
                0 => {
                    // Temporaries whose rows are written.
                    let n = self.temps.len() as u16;
                    let starts: Vec<u16> = (0..n.saturating_sub(rows - 1))
                        .filter(|&s| {
                            (s..s + rows).all(|r| self.temps[usize::from(r)] & need == need)
                        })
                        .collect();
                    if !starts.is_empty() {
                        let s = starts[self.rng.usize(..starts.len())];
                        return Source::direct(code(RegType::Temporary), s, Swizzle::IDENTITY);
                    }
                }
                1 if self.vertex() => {
                    let n = self.count(RegType::Attribute);
                    let s = self.rng.u16(..n - rows + 1);
                    return Source::direct(code(RegType::Attribute), s, Swizzle::IDENTITY);
                }
                2 if self.vertex() && !no_const => {
                    let mut s = self.indirect(false);
                    s.swizzle = Swizzle::IDENTITY;
                    return s;
                }
                _ if !no_const => {
                    let n = self.count(RegType::Constant);
                    let s = self.small_index(n - rows + 1);
                    return Source::direct(code(RegType::Constant), s, Swizzle::IDENTITY);
                }
                _ => {}
            }
        }
        // Fall back on inputs (vertex attributes / fragment varyings).
        let file = if self.vertex() {
            RegType::Attribute
        } else {
            RegType::Varying
        };
        Source::direct(code(file), 0, Swizzle::IDENTITY)
    }

    fn is_constant(s: &Source) -> bool {
        s.indirect || s.reg_type == code(RegType::Constant)
    }

    fn push(&mut self, op: Opcode, dest: Option<Dest>, s1: Option<Source>, s2: Option<Source>) {
        self.tokens.push(RawToken {
            opcode: op.value(),
            dest: dest.map_or(0, |d| d.encode()),
            src1: s1.map_or(0, |s| s.encode()),
            src2: s2.map_or(0, |s| s.encode()),
        });
        if let Some(b) = self.blocks.last_mut() {
            b.filled = true;
        }
    }

    /// A temporary destination (or, outside blocks, sometimes an output).
    fn dest(&mut self, op: Opcode) -> Dest {
        let xyz = op.lanes() == Lanes::Xyz;
        let mut mask = match self.rng.u8(..3) {
            0 => 0xF,
            _ => self.rng.u8(1..16),
        };
        if xyz {
            mask &= 0b0111;
            if mask == 0 {
                mask = 0b0111;
            }
        }
        if self.blocks.is_empty() && self.vertex() && self.rng.u8(..8) == 0 {
            if !xyz && self.rng.bool() {
                // A varying, in full.
                let v = self.rng.u16(..self.count(RegType::Varying).min(4));
                self.varyings |= 1 << v;
                return Dest {
                    reg: v,
                    mask: WriteMask::XYZW,
                    reg_type: code(RegType::Varying),
                    reserved: 0,
                };
            }
            self.op |= mask;
            return Dest {
                reg: 0,
                mask: WriteMask(mask),
                reg_type: code(RegType::Output),
                reserved: 0,
            };
        }
        let n = self.temps.len() as u16;
        let t = self.rng.u16(..n.min(8));
        self.temps[usize::from(t)] |= mask;
        Dest {
            reg: t,
            mask: WriteMask(mask),
            reg_type: code(RegType::Temporary),
            reserved: 0,
        }
    }

    fn step(&mut self, ops: &[Opcode]) {
        let op = ops[self.rng.usize(..ops.len())];
        if op.in_block() == InBlock::Refused && !self.blocks.is_empty() {
            return; // #3742
        }
        match op.shape() {
            Shape::None => match op.flow() {
                Flow::Else => {
                    if let Some(b) = self.blocks.last_mut() {
                        if b.filled && !b.has_else {
                            b.has_else = true;
                            b.filled = false;
                            self.tokens.push(RawToken {
                                opcode: op.value(),
                                ..RawToken::default()
                            });
                        }
                    }
                }
                Flow::EndIf => {
                    if self.blocks.last().is_some_and(|b| b.filled) {
                        self.blocks.pop();
                        self.push(op, None, None, None);
                    }
                }
                // The table gives every other opcode operands: never drawn with this shape.
                Flow::Straight | Flow::If(_) => {}
            },
            Shape::SrcSrc => {
                if self.blocks.len() >= MAX_NESTING {
                    return;
                }
                let a = self.source(false, false, true);
                let b = loop {
                    let b = self.source(Self::is_constant(&a), a.indirect, true);
                    if b != a {
                        break b;
                    }
                };
                self.push(op, None, Some(a), Some(b));
                self.blocks.push(Block {
                    filled: false,
                    has_else: false,
                });
            }
            Shape::Src => {
                let a = self.source(false, false, true);
                self.push(op, None, Some(a), None);
            }
            Shape::DestSrc | Shape::DestSrcSrc => {
                // Sources first (they read the state before the write).
                let s1 = self.source(false, false, false);
                let s2 = if op.shape() == Shape::DestSrcSrc {
                    Some(match op.matrix() {
                        Some((rows, width)) => {
                            let mut m = self.matrix(rows, width, Self::is_constant(&s1));
                            if m.indirect && s1.indirect {
                                m = self.matrix(rows, width, true);
                            }
                            m
                        }
                        None => {
                            let mut s = self.source(Self::is_constant(&s1), s1.indirect, false);
                            while s.indirect && s1.indirect {
                                s = self.source(Self::is_constant(&s1), true, false);
                            }
                            s
                        }
                    })
                } else {
                    None
                };
                let d = self.dest(op);
                self.push(op, Some(d), Some(s1), s2);
            }
            Shape::DestSrcSampler => {
                if op == Opcode::Ted {
                    return;
                }
                // Inside a conditional a `tex` coordinate must be a varying (#3741).
                let s1 = if self.blocks.is_empty() || op.in_block() != InBlock::VaryingCoords {
                    self.source(false, true, false)
                } else {
                    let v = self.rng.u16(..self.count(RegType::Varying).min(4));
                    Source::direct(code(RegType::Varying), v, Swizzle(self.rng.u8(..)))
                };
                let unit = self.rng.u16(..4);
                let field = match self.samplers.iter().find(|(u, _)| *u == unit) {
                    Some(&(_, f)) => f,
                    None => {
                        let f = self.sampler(unit);
                        self.samplers.push((unit, f));
                        f
                    }
                };
                let d = self.dest(op);
                self.tokens.push(RawToken {
                    opcode: op.value(),
                    dest: d.encode(),
                    src1: s1.encode(),
                    src2: field.encode(),
                });
                if let Some(b) = self.blocks.last_mut() {
                    b.filled = true;
                }
            }
        }
    }

    /// Flags for a new sampler unit: 2D or cube (clamped), any filter (not anisotropic in a
    /// vertex program: #3804), mipmapping, wrapping and LOD bias, mostly no special flags.
    fn sampler(&mut self, unit: u16) -> SamplerField {
        let cube = self.rng.u8(..4) == 0;
        SamplerField {
            reg: unit,
            bias: if self.rng.bool() { 0 } else { self.rng.i8(..) },
            reg_type: code(RegType::Sampler),
            format: if self.rng.u8(..8) == 0 {
                self.rng.u8(..4)
            } else {
                0
            },
            dim: u8::from(cube),
            special: if self.rng.u8(..6) == 0 {
                self.rng.u8(..8)
            } else {
                0
            },
            wrap: if cube { 0 } else { self.rng.u8(..4) },
            mip: self.rng.u8(..3),
            filter: if self.vertex() {
                self.rng.u8(..2)
            } else {
                self.rng.u8(..6)
            },
            reserved: 0,
        }
    }

    /// Closes open blocks and writes what the validator requires.
    fn finish(&mut self) {
        while let Some(b) = self.blocks.last() {
            if !b.filled {
                let s = self.source(false, false, false);
                let d = Dest {
                    reg: 0,
                    mask: WriteMask(0b0001),
                    reg_type: code(RegType::Temporary),
                    reserved: 0,
                };
                self.temps[0] |= 1;
                self.push(Opcode::Mov, Some(d), Some(s), None);
            }
            self.blocks.pop();
            self.push(Opcode::Eif, None, None, None);
        }
        match self.kind {
            ShaderKind::Vertex => {
                if self.op != 0xF {
                    let s = self.source(false, false, false);
                    let d = Dest {
                        reg: 0,
                        mask: WriteMask(!self.op & 0xF),
                        reg_type: code(RegType::Output),
                        reserved: 0,
                    };
                    self.push(Opcode::Mov, Some(d), Some(s), None);
                }
            }
            ShaderKind::Fragment => {
                let n = self.count(RegType::Output);
                let colors = self.rng.u16(1..=n);
                for c in 0..colors {
                    let s = self.source(false, false, false);
                    let d = Dest {
                        reg: c,
                        mask: WriteMask::XYZW,
                        reg_type: code(RegType::Output),
                        reserved: 0,
                    };
                    self.colors |= 1 << c;
                    self.push(Opcode::Mov, Some(d), Some(s), None);
                }
                if self.count(RegType::DepthOutput) > 0 && self.rng.u8(..4) == 0 {
                    let s = self.source(false, false, false);
                    let d = Dest {
                        reg: 0,
                        mask: WriteMask(1),
                        reg_type: code(RegType::DepthOutput),
                        reserved: 0,
                    };
                    self.depth = true;
                    self.push(Opcode::Mov, Some(d), Some(s), None);
                }
            }
        }
    }
}

/// The opcodes a program of `kind` and `version` may use (`ted` never: the validator refuses it; the
/// caller's filter sees every candidate).
pub fn opcodes(kind: ShaderKind, version: u32, allow: &dyn Fn(Opcode) -> bool) -> Vec<Opcode> {
    Opcode::ALL
        .iter()
        .copied()
        .filter(|&op| {
            let stage = match (op.stage(), kind) {
                (Stage::Both, _)
                | (Stage::Vertex, ShaderKind::Vertex)
                | (Stage::Fragment, ShaderKind::Fragment) => true,
                (Stage::Vertex, ShaderKind::Fragment) | (Stage::Fragment, ShaderKind::Vertex) => {
                    false
                }
            };
            stage && op.min_version() <= version && op != Opcode::Ted && allow(op)
        })
        .collect()
}

/// A random valid program of `kind` and `version` with about `len` instructions drawn from
/// [`opcodes`]`(kind, version, allow)`.
pub fn program(
    rng: &mut fastrand::Rng,
    kind: ShaderKind,
    version: u32,
    len: usize,
    allow: &dyn Fn(Opcode) -> bool,
) -> Vec<u8> {
    let ops = opcodes(kind, version, allow);
    let temps = RegType::Temporary.count(kind, version) as usize;
    let mut g = Gen {
        rng,
        kind,
        version,
        temps: vec![0; temps],
        op: 0,
        colors: 0,
        depth: false,
        varyings: 0,
        blocks: Vec::new(),
        tokens: Vec::new(),
        samplers: Vec::new(),
    };
    if !ops.is_empty() {
        for _ in 0..len {
            g.step(&ops);
        }
    }
    g.finish();
    let mut out = Header::new(kind, version).to_bytes().to_vec();
    for t in &g.tokens {
        out.extend_from_slice(&t.to_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agal::validate::{validate, Options};

    #[test]
    fn every_generated_program_validates() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut tokens = 0;
        for n in 0..20_000u32 {
            let kind = if n % 2 == 0 {
                ShaderKind::Vertex
            } else {
                ShaderKind::Fragment
            };
            let version = 1 + (n / 2) % 4;
            let len = rng.usize(..40);
            let bytes = program(&mut rng, kind, version, len, &|_| true);
            match validate(&bytes, &Options::default()) {
                Ok(p) => tokens += p.instructions.len(),
                Err(e) => panic!(
                    "program {n} ({kind:?} v{version}): {e}\n{}",
                    crate::agal::disasm::disassemble(&bytes)
                ),
            }
        }
        assert!(tokens > 20_000 * 15, "{tokens}");
    }
}
