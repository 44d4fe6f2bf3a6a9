//! Seeded random AGAL bytecode for round-trip tests and fuzzing: programs drawn from the opcode
//! table and the register files, mostly well-formed, with a share of odd headers, stray bits,
//! unknown opcodes and trailing bytes so every path of the codec and the disassembler is
//! exercised.

use super::header::{Header, ShaderKind};
use super::opcode::Opcode;
use super::reg::RegType;
use super::token::{Dest, RawToken, SamplerField, Source, TOKEN_BYTES};

/// A random register number for `file`, mostly in range.
fn reg_number(rng: &mut fastrand::Rng, file: RegType, kind: ShaderKind, version: u32) -> u16 {
    let n = file.count(kind, version).max(1);
    match rng.u8(..20) {
        0 => rng.u16(..),
        1 => rng.u16(..1100),
        _ => rng.u16(..n as u16),
    }
}

fn reg_type(rng: &mut fastrand::Rng) -> u8 {
    if rng.u8(..30) == 0 {
        rng.u8(..16)
    } else {
        rng.u8(..8)
    }
}

/// A random source field.
pub fn source(rng: &mut fastrand::Rng, kind: ShaderKind, version: u32) -> Source {
    let ty = reg_type(rng);
    let file = RegType::from_code(ty).unwrap_or(RegType::Constant);
    let indirect = rng.u8(..8) == 0;
    let mut s = Source {
        reg: reg_number(rng, file, kind, version),
        offset: 0,
        swizzle: super::reg::Swizzle(rng.u8(..)),
        reg_type: if indirect && rng.bool() { 1 } else { ty },
        index_type: 0,
        index_comp: 0,
        indirect,
        reserved: 0,
    };
    if indirect {
        s.index_type = rng.u8(..3);
        s.index_comp = rng.u8(..4);
        s.offset = rng.u8(..);
    }
    if rng.u8(..40) == 0 {
        s.offset = rng.u8(..);
    }
    if rng.u8(..60) == 0 {
        s.reserved = rng.u64(..);
    }
    s
}

/// A random destination field.
pub fn dest(rng: &mut fastrand::Rng, kind: ShaderKind, version: u32) -> Dest {
    let ty = reg_type(rng);
    let file = RegType::from_code(ty).unwrap_or(RegType::Temporary);
    Dest {
        reg: reg_number(rng, file, kind, version),
        mask: super::reg::WriteMask(if rng.u8(..20) == 0 { 0 } else { rng.u8(1..16) }),
        reg_type: ty,
        reserved: if rng.u8(..60) == 0 { rng.u32(..) } else { 0 },
    }
}

/// A random sampler field.
pub fn sampler(rng: &mut fastrand::Rng, kind: ShaderKind, version: u32) -> SamplerField {
    let odd = rng.u8(..25) == 0;
    let pick = |rng: &mut fastrand::Rng, n: u8| if odd { rng.u8(..16) } else { rng.u8(..n) };
    SamplerField {
        reg: reg_number(rng, RegType::Sampler, kind, version),
        bias: if rng.u8(..4) == 0 { rng.i8(..) } else { 0 },
        reg_type: if rng.u8(..30) == 0 { rng.u8(..16) } else { 5 },
        format: pick(rng, 4),
        dim: pick(rng, 3),
        special: pick(rng, 8),
        wrap: pick(rng, 4),
        mip: pick(rng, 3),
        filter: pick(rng, 6),
        reserved: if rng.u8(..60) == 0 { rng.u64(..) } else { 0 },
    }
}

/// A random token for a program of `kind` and `version`: four in five are clean (register
/// types the kind has a name for, numbers in range, no stray bits), the rest anything.
pub fn token(rng: &mut fastrand::Rng, kind: ShaderKind, version: u32) -> RawToken {
    if rng.u8(..5) != 0 {
        return clean_token(rng, kind, version);
    }
    let op = if rng.u8(..30) == 0 {
        None
    } else {
        Some(Opcode::ALL[rng.usize(..Opcode::ALL.len())])
    };
    let Some(op) = op else {
        return RawToken {
            opcode: if rng.bool() {
                rng.u32(..0x40)
            } else {
                rng.u32(..)
            },
            dest: rng.u32(..),
            src1: rng.u64(..),
            src2: rng.u64(..),
        };
    };
    let shape = op.shape();
    let stray = rng.u8(..25) == 0;
    let mut t = RawToken {
        opcode: op.value(),
        ..RawToken::default()
    };
    if shape.has_dest() || stray {
        t.dest = dest(rng, kind, version).encode();
    }
    if shape.has_src1() || stray {
        t.src1 = source(rng, kind, version).encode();
    }
    if shape.has_sampler() {
        t.src2 = sampler(rng, kind, version).encode();
    } else if shape.has_src2() || stray {
        t.src2 = source(rng, kind, version).encode();
    }
    t
}

/// A random program: usually a well-formed header and 0–`max_tokens` tokens, sometimes an
/// odd header, a short file or trailing bytes.
pub fn program(rng: &mut fastrand::Rng, max_tokens: usize) -> Vec<u8> {
    if rng.u8(..50) == 0 {
        let n = rng.usize(..7);
        return (0..n).map(|_| rng.u8(..)).collect();
    }
    let kind = if rng.bool() {
        ShaderKind::Vertex
    } else {
        ShaderKind::Fragment
    };
    let version = match rng.u8(..40) {
        0 => rng.u32(..),
        1 => 0,
        _ => rng.u32(1..5),
    };
    let mut header = Header::new(kind, version);
    if rng.u8(..30) == 0 {
        match rng.u8(..3) {
            0 => header.magic = rng.u8(..),
            1 => header.tag = rng.u8(..),
            _ => header.kind = rng.u8(..),
        }
    }
    let mut out = header.to_bytes().to_vec();
    for _ in 0..rng.usize(..=max_tokens) {
        out.extend_from_slice(&token(rng, kind, version).to_bytes());
    }
    if rng.u8(..20) == 0 {
        for _ in 0..rng.usize(1..TOKEN_BYTES) {
            out.push(rng.u8(..));
        }
    }
    out
}

/// A register type the kind has a name for, and a number in range (at least 0).
fn clean_reg(rng: &mut fastrand::Rng, kind: ShaderKind, version: u32) -> (u8, u16) {
    loop {
        let file = RegType::ALL[rng.usize(..8)];
        if file.name(kind).is_some() {
            let n = file.count(kind, version).max(1) as u16;
            return (file.code(), rng.u16(..n));
        }
    }
}

/// A token whose every field is in the assembler's vocabulary for `kind`.
fn clean_token(rng: &mut fastrand::Rng, kind: ShaderKind, version: u32) -> RawToken {
    let op = Opcode::ALL[rng.usize(..Opcode::ALL.len())];
    let shape = op.shape();
    let src = |rng: &mut fastrand::Rng| {
        if kind == ShaderKind::Vertex && rng.u8(..6) == 0 {
            Source {
                reg: rng.u16(..8),
                offset: rng.u8(..),
                swizzle: super::reg::Swizzle(rng.u8(..)),
                reg_type: 1,
                index_type: rng.u8(..3),
                index_comp: rng.u8(..4),
                indirect: true,
                reserved: 0,
            }
        } else {
            let (ty, reg) = clean_reg(rng, kind, version);
            Source::direct(ty, reg, super::reg::Swizzle(rng.u8(..)))
        }
    };
    let mut t = RawToken {
        opcode: op.value(),
        ..RawToken::default()
    };
    if shape.has_dest() {
        let (ty, reg) = clean_reg(rng, kind, version);
        t.dest = Dest {
            reg,
            mask: super::reg::WriteMask(rng.u8(1..16)),
            reg_type: ty,
            reserved: 0,
        }
        .encode();
    }
    if shape.has_src1() {
        t.src1 = src(rng).encode();
    }
    if shape.has_sampler() {
        let mut f = sampler(rng, kind, version);
        f.reg_type = 5;
        f.reserved = 0;
        t.src2 = f.encode();
    } else if shape.has_src2() {
        t.src2 = src(rng).encode();
    }
    t
}
