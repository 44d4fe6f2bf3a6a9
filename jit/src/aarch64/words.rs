//! Hand-assembled A64 words of the backend's hottest forms: the three-register vector
//! operations ([`VOp`]), the register copy, and the 16-byte context load and store.
//!
//! dynasm assembles a template with run-time registers through range checks and byte pushes;
//! an A64 instruction is one 32-bit word, so these forms are the operation's fixed bits with the
//! register fields or'ed in, appended in one write. The words are exactly dynasm's for the same
//! templates: this module's tests compare both over registers that set every bit of each
//! register field, every operation and the offsets of the scaled 12-bit field.

use super::asm::{CtxAddr, Ops, VOp};

/// An operation's word with every register field zero (`Vd`, `Vn`, `Vm` = v0).
const fn base(op: VOp) -> u32 {
    match op {
        VOp::FAdd => 0x4E20_D400,
        VOp::FSub => 0x4EA0_D400,
        VOp::FMul => 0x6E20_DC00,
        VOp::FMulx => 0x4E20_DC00,
        VOp::FDiv => 0x6E20_FC00,
        VOp::FCmEq => 0x4E20_E400,
        VOp::FCmGt => 0x6EA0_E400,
        VOp::FCmGe => 0x6E20_E400,
        VOp::FAddD => 0x4E60_D400,
        VOp::FSubD => 0x4EE0_D400,
        VOp::FMulD => 0x6E60_DC00,
        VOp::FDivD => 0x6E60_FC00,
        VOp::FCmGtD => 0x6EE0_E400,
        VOp::AddS => 0x4EA0_8400,
        VOp::CmGtS => 0x4EA0_3400,
        VOp::CmEqS => 0x6EA0_8C00,
        VOp::And => 0x4E20_1C00,
        VOp::Orr => 0x4EA0_1C00,
        VOp::Orn => 0x4EE0_1C00,
        VOp::Bic => 0x4E60_1C00,
        VOp::Eor => 0x6E20_1C00,
        VOp::Bsl => 0x6E60_1C00,
        VOp::Bit => 0x6EA0_1C00,
        VOp::Bif => 0x6EE0_1C00,
        VOp::Trn1S => 0x4E80_2800,
        VOp::Trn2S => 0x4E80_6800,
        VOp::Trn1D => 0x4EC0_2800,
        VOp::Trn2D => 0x4EC0_6800,
    }
}

/// `LDR Qt, [Xn, #imm12 × 16]` and `STR Qt, [Xn, #imm12 × 16]` with every field zero.
const LDR_Q: u32 = 0x3DC0_0000;
const STR_Q: u32 = 0x3D80_0000;

/// Appends one instruction word.
#[inline]
fn put(ops: &mut Ops, word: u32) {
    ops.extend(word.to_le_bytes().iter());
}

/// The register fields `Rd` (bits 0–4), `Rn` (5–9) and `Rm` (16–20).
#[inline]
fn regs(d: u8, n: u8, m: u8) -> u32 {
    u32::from(d & 31) | u32::from(n & 31) << 5 | u32::from(m & 31) << 16
}

/// `d = a op b`.
#[inline]
pub fn vop(ops: &mut Ops, op: VOp, d: u8, a: u8, b: u8) {
    put(ops, base(op) | regs(d, a, b));
}

/// `mov Vd.16B, Va.16B` (`orr Vd.16B, Va.16B, Va.16B`).
#[inline]
pub fn mov(ops: &mut Ops, d: u8, a: u8) {
    put(ops, base(VOp::Orr) | regs(d, a, a));
}

/// `ldr Qd, [Xbase, #offset]`.
#[inline]
pub fn load_q(ops: &mut Ops, d: u8, a: CtxAddr) {
    put(ops, LDR_Q | offset(a) | regs(d, a.base(), 0));
}

/// `str Qs, [Xbase, #offset]`.
#[inline]
pub fn store_q(ops: &mut Ops, s: u8, a: CtxAddr) {
    put(ops, STR_Q | offset(a) | regs(s, a.base(), 0));
}

/// The scaled 12-bit offset field of a checked context address (a multiple of 16 below 65536).
#[inline]
fn offset(a: CtxAddr) -> u32 {
    ((a.offset() / 16) & 0xFFF) << 10
}

#[cfg(test)]
mod tests {
    // dynasm expands register arguments to `.into()` calls, which clippy flags on `u8`s.
    #![allow(clippy::useless_conversion)]

    use super::super::asm::ctx_addr;
    use super::*;
    use dynasmrt::{dynasm, DynasmApi};

    /// Registers that between them set and clear every bit of a 5-bit register field.
    const REGS: [u8; 8] = [0, 1, 2, 4, 8, 16, 30, 31];

    const VOPS: [VOp; 28] = [
        VOp::FAdd,
        VOp::FSub,
        VOp::FMul,
        VOp::FMulx,
        VOp::FDiv,
        VOp::FCmEq,
        VOp::FCmGt,
        VOp::FCmGe,
        VOp::FAddD,
        VOp::FSubD,
        VOp::FMulD,
        VOp::FDivD,
        VOp::FCmGtD,
        VOp::AddS,
        VOp::CmGtS,
        VOp::CmEqS,
        VOp::And,
        VOp::Orr,
        VOp::Orn,
        VOp::Bic,
        VOp::Eor,
        VOp::Bsl,
        VOp::Bit,
        VOp::Bif,
        VOp::Trn1S,
        VOp::Trn2S,
        VOp::Trn1D,
        VOp::Trn2D,
    ];

    /// dynasm's bytes for `d = a op b` (the templates `asm` used before this module).
    fn dynasm_vop(ops: &mut Ops, op: VOp, d: u8, a: u8, b: u8) {
        match op {
            VOp::FAdd => dynasm!(ops ; .arch aarch64 ; fadd V(d).S4, V(a).S4, V(b).S4),
            VOp::FSub => dynasm!(ops ; .arch aarch64 ; fsub V(d).S4, V(a).S4, V(b).S4),
            VOp::FMul => dynasm!(ops ; .arch aarch64 ; fmul V(d).S4, V(a).S4, V(b).S4),
            VOp::FMulx => dynasm!(ops ; .arch aarch64 ; fmulx V(d).S4, V(a).S4, V(b).S4),
            VOp::FDiv => dynasm!(ops ; .arch aarch64 ; fdiv V(d).S4, V(a).S4, V(b).S4),
            VOp::FCmEq => dynasm!(ops ; .arch aarch64 ; fcmeq V(d).S4, V(a).S4, V(b).S4),
            VOp::FCmGt => dynasm!(ops ; .arch aarch64 ; fcmgt V(d).S4, V(a).S4, V(b).S4),
            VOp::FCmGe => dynasm!(ops ; .arch aarch64 ; fcmge V(d).S4, V(a).S4, V(b).S4),
            VOp::FAddD => dynasm!(ops ; .arch aarch64 ; fadd V(d).D2, V(a).D2, V(b).D2),
            VOp::FSubD => dynasm!(ops ; .arch aarch64 ; fsub V(d).D2, V(a).D2, V(b).D2),
            VOp::FMulD => dynasm!(ops ; .arch aarch64 ; fmul V(d).D2, V(a).D2, V(b).D2),
            VOp::FDivD => dynasm!(ops ; .arch aarch64 ; fdiv V(d).D2, V(a).D2, V(b).D2),
            VOp::FCmGtD => dynasm!(ops ; .arch aarch64 ; fcmgt V(d).D2, V(a).D2, V(b).D2),
            VOp::AddS => dynasm!(ops ; .arch aarch64 ; add V(d).S4, V(a).S4, V(b).S4),
            VOp::CmGtS => dynasm!(ops ; .arch aarch64 ; cmgt V(d).S4, V(a).S4, V(b).S4),
            VOp::CmEqS => dynasm!(ops ; .arch aarch64 ; cmeq V(d).S4, V(a).S4, V(b).S4),
            VOp::And => dynasm!(ops ; .arch aarch64 ; and V(d).B16, V(a).B16, V(b).B16),
            VOp::Orr => dynasm!(ops ; .arch aarch64 ; orr V(d).B16, V(a).B16, V(b).B16),
            VOp::Orn => dynasm!(ops ; .arch aarch64 ; orn V(d).B16, V(a).B16, V(b).B16),
            VOp::Bic => dynasm!(ops ; .arch aarch64 ; bic V(d).B16, V(a).B16, V(b).B16),
            VOp::Eor => dynasm!(ops ; .arch aarch64 ; eor V(d).B16, V(a).B16, V(b).B16),
            VOp::Bsl => dynasm!(ops ; .arch aarch64 ; bsl V(d).B16, V(a).B16, V(b).B16),
            VOp::Bit => dynasm!(ops ; .arch aarch64 ; bit V(d).B16, V(a).B16, V(b).B16),
            VOp::Bif => dynasm!(ops ; .arch aarch64 ; bif V(d).B16, V(a).B16, V(b).B16),
            VOp::Trn1S => dynasm!(ops ; .arch aarch64 ; trn1 V(d).S4, V(a).S4, V(b).S4),
            VOp::Trn2S => dynasm!(ops ; .arch aarch64 ; trn2 V(d).S4, V(a).S4, V(b).S4),
            VOp::Trn1D => dynasm!(ops ; .arch aarch64 ; trn1 V(d).D2, V(a).D2, V(b).D2),
            VOp::Trn2D => dynasm!(ops ; .arch aarch64 ; trn2 V(d).D2, V(a).D2, V(b).D2),
        }
    }

    fn bytes(f: impl FnOnce(&mut Ops)) -> Vec<u8> {
        let mut ops = Ops::new(0);
        f(&mut ops);
        ops.finalize().expect("assembles")
    }

    #[test]
    fn vector_operations_match_dynasm() {
        for op in VOPS {
            for d in REGS {
                for a in REGS {
                    for b in REGS {
                        let ours = bytes(|o| vop(o, op, d, a, b));
                        let theirs = bytes(|o| dynasm_vop(o, op, d, a, b));
                        assert_eq!(ours, theirs, "{op:?} v{d}, v{a}, v{b}");
                    }
                }
            }
        }
    }

    #[test]
    fn copies_loads_and_stores_match_dynasm() {
        for d in 0..32 {
            for a in REGS {
                let ours = bytes(|o| mov(o, d, a));
                let theirs = bytes(|o| dynasm!(o ; .arch aarch64 ; mov V(d).B16, V(a).B16));
                assert_eq!(ours, theirs, "mov v{d}, v{a}");
            }
            // Offsets from x0, from x1 (past HI_BASE) and materialized in x16.
            for offset in [0, 16, 0x10, 0x7FF0, 0xFFF0, 0x1_0000, 0x2_0000 + 0x30, -16] {
                let mut ops = Ops::new(0);
                let a = ctx_addr(&mut ops, offset, 16);
                let (b, o) = (a.base(), a.offset());
                let ours = bytes(|x| load_q(x, d, a));
                let theirs = bytes(|x| dynasm!(x ; .arch aarch64 ; ldr Q(d), [X(b), #o]));
                assert_eq!(ours, theirs, "ldr q{d}, [x{b}, #{o}]");
                let ours = bytes(|x| store_q(x, d, a));
                let theirs = bytes(|x| dynasm!(x ; .arch aarch64 ; str Q(d), [X(b), #o]));
                assert_eq!(ours, theirs, "str q{d}, [x{b}, #{o}]");
            }
        }
    }
}
