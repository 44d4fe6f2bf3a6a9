//! Hand-assembled VEX encodings of the AVX2 tier's hottest forms (ymm): the lane operations
//! ([`VOp`]) with a register or memory second source, and the full-width copy, load and store.
//!
//! dynasm assembles a template with run-time registers byte by byte, each byte a checked push;
//! these forms are assembled in a register and appended in one write. The bytes are exactly
//! dynasm's for the same templates (the three-byte VEX prefix for register forms, the two-byte
//! one for memory forms, whose base and index are rdi and rax; a 32-bit displacement): this
//! module's tests compare both over every register, operation and addressing form.
//! Constant-pool operands are `[rip + disp32]` patched by a dynasm relocation, as dynasm's own
//! `[=>label]` operands are.

use dynasmrt::relocations::{Relocation, RelocationKind, RelocationSize};
use dynasmrt::x64::X64Relocation;
use dynasmrt::{DynamicLabel, DynasmLabelApi};

use super::asm::{Mem, Ops, VOp};
use crate::abi;

/// The `pp` field (implied legacy prefix) of a form: none or 0x66.
const NP: u8 = 0;
const P66: u8 = 1;

/// An operation's `pp`, opcode (map 0F) and immediate (the compare predicates).
const fn form(op: VOp) -> (u8, u8, Option<u8>) {
    match op {
        VOp::AddPs => (NP, 0x58, None),
        VOp::SubPs => (NP, 0x5C, None),
        VOp::MulPs => (NP, 0x59, None),
        VOp::DivPs => (NP, 0x5E, None),
        VOp::MaxPs => (NP, 0x5F, None),
        VOp::MinPs => (NP, 0x5D, None),
        VOp::AndPs => (NP, 0x54, None),
        VOp::AndnPs => (NP, 0x55, None),
        VOp::OrPs => (NP, 0x56, None),
        VOp::XorPs => (NP, 0x57, None),
        VOp::CmpEqPs => (NP, 0xC2, Some(0)),
        VOp::CmpLtPs => (NP, 0xC2, Some(1)),
        VOp::CmpLePs => (NP, 0xC2, Some(2)),
        VOp::CmpUnordPs => (NP, 0xC2, Some(3)),
        VOp::CmpNeqPs => (NP, 0xC2, Some(4)),
        VOp::CmpOrdPs => (NP, 0xC2, Some(7)),
        VOp::AddPd => (P66, 0x58, None),
        VOp::SubPd => (P66, 0x5C, None),
        VOp::MulPd => (P66, 0x59, None),
        VOp::DivPd => (P66, 0x5E, None),
        VOp::CmpLtPd => (P66, 0xC2, Some(1)),
        VOp::PAddD => (P66, 0xFE, None),
        VOp::PCmpGtD => (P66, 0x66, None),
        VOp::PCmpEqD => (P66, 0x76, None),
        VOp::PAddQ => (P66, 0xD4, None),
        VOp::UnpckLps => (NP, 0x14, None),
        VOp::UnpckHps => (NP, 0x15, None),
        VOp::UnpckLpd => (P66, 0x14, None),
        VOp::UnpckHpd => (P66, 0x15, None),
    }
}

/// `vmovaps` / `vmovups` (load and register forms) and `vmovaps` (store form).
const MOVAPS: u8 = 0x28;
const MOVUPS: u8 = 0x10;
const MOVAPS_STORE: u8 = 0x29;

/// R̄ (VEX byte 1, bit 7) for ModRM.reg register `r`, at bit 15: set when `r` < 8.
#[inline]
fn r_bar(r: u8) -> u64 {
    u64::from(!r & 8) << 12
}

/// v̄v̄v̄v̄ for register `v` at bit `at`.
#[inline]
fn vvvv(v: u8, at: u32) -> u64 {
    u64::from(!v & 15) << at
}

/// Appends the low `N` bytes of `bytes` (`N` a constant: a few stores, no copy loop).
#[inline]
fn put<const N: usize>(ops: &mut Ops, bytes: u128) {
    ops.extend(bytes.to_le_bytes()[..N].iter());
}

/// A register-direct instruction: three-byte VEX (`C4`; R̄, X̄ = 1, B̄, map 0F; W = 0, v̄v̄v̄v̄,
/// L = 1, `pp`), opcode, ModRM (mod = 11, `reg`, `rm`), optional immediate.
#[inline]
fn rr(ops: &mut Ops, (pp, opcode, imm): (u8, u8, Option<u8>), reg: u8, v: u8, rm: u8) {
    let fixed = 0xC0_00_04_41_C4 | u64::from(pp) << 16 | u64::from(opcode) << 24;
    let bytes = fixed
        | r_bar(reg)
        | u64::from(!rm & 8) << 10
        | vvvv(v, 19)
        | u64::from(reg & 7) << 35
        | u64::from(rm & 7) << 32;
    match imm {
        Some(i) => put::<6>(ops, u128::from(bytes | u64::from(i) << 40)),
        None => put::<5>(ops, u128::from(bytes)),
    }
}

/// A memory-operand instruction (`reg`, `v`, then `mem`, optional immediate). Its base and
/// index registers are rdi and rax (neither needs VEX.X or VEX.B), so the prefix is the
/// two-byte `C5` form (R̄, v̄v̄v̄v̄, L = 1, `pp`).
#[inline]
fn rm(ops: &mut Ops, (pp, opcode, imm): (u8, u8, Option<u8>), reg: u8, v: u8, mem: Mem) {
    // ModRM: mod = 10 (disp32) and rm = rdi; rm = 100 with SIB 07 (index rax, base rdi);
    // mod = 00 and rm = 101 for rip-relative.
    let (modrm, sib, disp) = match mem {
        Mem::Ctx(o) => (0x87, false, o),
        Mem::CtxRax(o) => (0x84, true, o),
        Mem::Uniform { index, comp } => (0x87, false, abi::uniform_row_offset(index, comp)),
        Mem::Const(_) => (0x05, false, 0),
    };
    let head = 0xC5 | 0x04_00 | u64::from(pp) << 8 | u64::from(opcode) << 16 | modrm << 24;
    let head = head | r_bar(reg) | vvvv(v, 11) | u64::from(reg & 7) << 27;
    let disp = u128::from(disp as u32);
    match (sib, imm) {
        (false, None) => put::<8>(ops, u128::from(head) | disp << 32),
        (false, Some(i)) => put::<9>(ops, u128::from(head) | disp << 32 | u128::from(i) << 64),
        (true, None) => put::<9>(ops, u128::from(head | 0x07 << 32) | disp << 40),
        (true, Some(i)) => {
            let bytes = u128::from(head | 0x07 << 32) | disp << 40 | u128::from(i) << 72;
            put::<10>(ops, bytes);
        }
    }
    if let Mem::Const(l) = mem {
        relocate(ops, l, imm.is_some());
    }
}

/// The rip-relative displacement just appended (followed by an immediate byte if `imm`)
/// becomes a relocation to `label`; rip is the instruction's end.
fn relocate(ops: &mut Ops, label: DynamicLabel, imm: bool) {
    let field = 4 + u8::from(imm);
    let kind = X64Relocation::from_size(RelocationKind::Relative, RelocationSize::DWord);
    ops.dynamic_relocation(label, 0, field, 0, kind);
}

/// `d = a op b`.
#[inline]
pub fn vop(ops: &mut Ops, op: VOp, d: u8, a: u8, b: u8) {
    rr(ops, form(op), d, a, b);
}

/// `d = a op [mem]`.
#[inline]
pub fn vop_m(ops: &mut Ops, op: VOp, d: u8, a: u8, mem: Mem) {
    rm(ops, form(op), d, a, mem);
}

/// `vmovaps d, s`.
#[inline]
pub fn mov(ops: &mut Ops, d: u8, s: u8) {
    rr(ops, (NP, MOVAPS, None), d, 0, s);
}

/// Full-width load: `vmovaps` (`vmovups` for `[rdi + rax + disp]`, a per-lane row).
#[inline]
pub fn load(ops: &mut Ops, d: u8, mem: Mem) {
    let opcode = match mem {
        Mem::CtxRax(_) => MOVUPS,
        Mem::Ctx(_) | Mem::Uniform { .. } | Mem::Const(_) => MOVAPS,
    };
    rm(ops, (NP, opcode, None), d, 0, mem);
}

/// `vmovaps [rdi + disp], s`.
#[inline]
pub fn store(ops: &mut Ops, disp: i32, s: u8) {
    rm(ops, (NP, MOVAPS_STORE, None), s, 0, Mem::Ctx(disp));
}

#[cfg(test)]
mod tests {
    // dynasm expands register arguments to `.into()` calls, which clippy flags on `u8`s.
    #![allow(clippy::useless_conversion)]

    use super::*;
    use dynasmrt::{dynasm, DynasmApi};

    /// `$t!(mnemonic)` for operation `$op`: dynasm's template per [`VOp`].
    macro_rules! by_op {
        ($op:expr, $t:ident) => {
            match $op {
                VOp::AddPs => $t!(vaddps),
                VOp::SubPs => $t!(vsubps),
                VOp::MulPs => $t!(vmulps),
                VOp::DivPs => $t!(vdivps),
                VOp::MaxPs => $t!(vmaxps),
                VOp::MinPs => $t!(vminps),
                VOp::AndPs => $t!(vandps),
                VOp::AndnPs => $t!(vandnps),
                VOp::OrPs => $t!(vorps),
                VOp::XorPs => $t!(vxorps),
                VOp::CmpEqPs => $t!(vcmpeqps),
                VOp::CmpLtPs => $t!(vcmpltps),
                VOp::CmpLePs => $t!(vcmpleps),
                VOp::CmpNeqPs => $t!(vcmpneqps),
                VOp::CmpUnordPs => $t!(vcmpunordps),
                VOp::CmpOrdPs => $t!(vcmpordps),
                VOp::AddPd => $t!(vaddpd),
                VOp::SubPd => $t!(vsubpd),
                VOp::MulPd => $t!(vmulpd),
                VOp::DivPd => $t!(vdivpd),
                VOp::CmpLtPd => $t!(vcmpltpd),
                VOp::PAddD => $t!(vpaddd),
                VOp::PCmpGtD => $t!(vpcmpgtd),
                VOp::PCmpEqD => $t!(vpcmpeqd),
                VOp::PAddQ => $t!(vpaddq),
                VOp::UnpckLps => $t!(vunpcklps),
                VOp::UnpckHps => $t!(vunpckhps),
                VOp::UnpckLpd => $t!(vunpcklpd),
                VOp::UnpckHpd => $t!(vunpckhpd),
            }
        };
    }

    /// dynasm's bytes for `d = a op b` (the templates `asm` used before this module).
    fn dynasm_rr(ops: &mut Ops, op: VOp, d: u8, a: u8, b: u8) {
        macro_rules! t {
            ($mn:ident) => {
                dynasm!(ops ; .arch x64 ; $mn Ry(d), Ry(a), Ry(b))
            };
        }
        by_op!(op, t)
    }

    /// dynasm's bytes for `d = a op [mem]`.
    fn dynasm_rm(ops: &mut Ops, op: VOp, d: u8, a: u8, mem: Mem) {
        macro_rules! t {
            ($mn:ident) => {
                match mem {
                    Mem::Ctx(o) => dynasm!(ops ; .arch x64 ; $mn Ry(d), Ry(a), [rdi + o]),
                    Mem::CtxRax(o) => dynasm!(ops ; .arch x64 ; $mn Ry(d), Ry(a), [rdi + rax + o]),
                    Mem::Const(l) => dynasm!(ops ; .arch x64 ; $mn Ry(d), Ry(a), [=>l]),
                    Mem::Uniform { index, comp } => {
                        let o = abi::uniform_row_offset(index, comp);
                        dynasm!(ops ; .arch x64 ; $mn Ry(d), Ry(a), [rdi + o])
                    }
                }
            };
        }
        by_op!(op, t)
    }

    const VOPS: [VOp; 29] = [
        VOp::AddPs,
        VOp::SubPs,
        VOp::MulPs,
        VOp::DivPs,
        VOp::MaxPs,
        VOp::MinPs,
        VOp::AndPs,
        VOp::AndnPs,
        VOp::OrPs,
        VOp::XorPs,
        VOp::CmpEqPs,
        VOp::CmpLtPs,
        VOp::CmpLePs,
        VOp::CmpNeqPs,
        VOp::CmpUnordPs,
        VOp::CmpOrdPs,
        VOp::AddPd,
        VOp::SubPd,
        VOp::MulPd,
        VOp::DivPd,
        VOp::CmpLtPd,
        VOp::PAddD,
        VOp::PCmpGtD,
        VOp::PCmpEqD,
        VOp::PAddQ,
        VOp::UnpckLps,
        VOp::UnpckHps,
        VOp::UnpckLpd,
        VOp::UnpckHpd,
    ];

    /// The finished bytes of `f`'s code, with one constant-pool label bound after it.
    fn bytes(f: impl FnOnce(&mut Ops, DynamicLabel)) -> Vec<u8> {
        let mut ops = Ops::new(0);
        let l = ops.new_dynamic_label();
        f(&mut ops, l);
        dynasm!(ops ; .arch x64 ; =>l ; .u32 0);
        ops.finalize().expect("assembles")
    }

    /// Memory operands of every addressing form, displacements of every width and sign.
    fn mems(l: DynamicLabel) -> [Mem; 9] {
        [
            Mem::Ctx(0),
            Mem::Ctx(0x40),
            Mem::Ctx(-0x80),
            Mem::Ctx(0x1234),
            Mem::CtxRax(0),
            Mem::CtxRax(0x2000),
            Mem::CtxRax(-4),
            Mem::Uniform { index: 95, comp: 3 },
            Mem::Const(l),
        ]
    }

    #[test]
    fn register_forms_match_dynasm_for_every_register() {
        for op in VOPS {
            for d in 0..16 {
                for a in 0..16 {
                    for b in 0..16 {
                        let ours = bytes(|o, _| vop(o, op, d, a, b));
                        let theirs = bytes(|o, _| dynasm_rr(o, op, d, a, b));
                        assert_eq!(ours, theirs, "{op:?} ymm{d}, ymm{a}, ymm{b}");
                    }
                }
            }
        }
    }

    #[test]
    fn memory_forms_match_dynasm_for_every_register_and_address() {
        for op in VOPS {
            for d in 0..16 {
                for a in 0..16 {
                    for k in 0..9 {
                        let ours = bytes(|o, l| vop_m(o, op, d, a, mems(l)[k]));
                        let theirs = bytes(|o, l| dynasm_rm(o, op, d, a, mems(l)[k]));
                        assert_eq!(ours, theirs, "{op:?} ymm{d}, ymm{a}, {:?}", mems(l0())[k]);
                    }
                }
            }
        }
    }

    /// A label for messages.
    fn l0() -> DynamicLabel {
        Ops::new(0).new_dynamic_label()
    }

    #[test]
    fn moves_loads_and_stores_match_dynasm() {
        for d in 0..16 {
            for s in 0..16 {
                let ours = bytes(|o, _| mov(o, d, s));
                let theirs = bytes(|o, _| dynasm!(o ; .arch x64 ; vmovaps Ry(d), Ry(s)));
                assert_eq!(ours, theirs, "vmovaps ymm{d}, ymm{s}");
            }
            for k in 0..9 {
                let ours = bytes(|o, l| load(o, d, mems(l)[k]));
                let theirs = bytes(|o, l| match mems(l)[k] {
                    Mem::Ctx(x) => dynasm!(o ; .arch x64 ; vmovaps Ry(d), [rdi + x]),
                    Mem::CtxRax(x) => dynasm!(o ; .arch x64 ; vmovups Ry(d), [rdi + rax + x]),
                    Mem::Const(l) => dynasm!(o ; .arch x64 ; vmovaps Ry(d), [=>l]),
                    Mem::Uniform { index, comp } => {
                        let x = abi::uniform_row_offset(index, comp);
                        dynasm!(o ; .arch x64 ; vmovaps Ry(d), [rdi + x])
                    }
                });
                assert_eq!(ours, theirs, "load ymm{d}, {:?}", mems(l0())[k]);
            }
            for disp in [0, 0x40, -0x80, 0x1234] {
                let ours = bytes(|o, _| store(o, disp, d));
                let theirs = bytes(|o, _| dynasm!(o ; .arch x64 ; vmovaps [rdi + disp], Ry(d)));
                assert_eq!(ours, theirs, "vmovaps [rdi + {disp}], ymm{d}");
            }
        }
    }
}
