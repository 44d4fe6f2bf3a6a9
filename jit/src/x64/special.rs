//! RCP, RSQ and the project's EX2/LG2, step for step as `picajit::float` states them: f32
//! lanes are widened to f64 in two halves (AVX2: 4 lanes each, SSE4.1: 2), computed with
//! separately rounded f64 operations (no FMA) and rounded back once.
//!
//! The f64 constants below are the bit patterns of `picajit::float`'s named constants; this
//! crate cannot see that module, so `tests/float_bits.rs` in the `picajit` crate checks they
//! match.

use super::asm::{self, Mem, VOp};
use super::{Emitter, Opnd, S0, S1, S2, S3};
use crate::abi;
use crate::ir::Var;

/// EX2: clamp bounds (f32) and Taylor coefficients C10 … C0 (f64 bits).
pub const EX2_CLAMP_LO: f32 = -151.0;
pub const EX2_CLAMP_HI: f32 = 129.0;
pub const EX2_COEFFS: [u64; 11] = [
    0x3E3E_4CF5_158B_8ECA, // C10
    0x3E7B_5253_D395_E7C4, // C9
    0x3EB6_2C02_23A5_C824, // C8
    0x3EEF_FCBF_C588_B0C7, // C7
    0x3F24_3091_2F86_C787, // C6
    0x3F55_D87F_E78A_6731, // C5
    0x3F83_B2AB_6FBA_4E77, // C4
    0x3FAC_6B08_D704_A0C0, // C3
    0x3FCE_BFBD_FF82_C58F, // C2
    0x3FE6_2E42_FEFA_39EF, // C1
    0x3FF0_0000_0000_0000, // C0
];
pub const EX2_SCALE_MAGIC: u64 = 0x4338_0000_0000_03FF;

/// LG2: coefficients C13, C11, …, C1 (f64 bits) and the bit-level constants.
pub const LG2_COEFFS: [u64; 7] = [
    0x3FCC_68F5_68D3_1760, // C13
    0x3FD0_C9A8_4994_022D, // C11
    0x3FD4_84B1_3D7C_02A9, // C9
    0x3FDA_6176_2A7A_DED9, // C7
    0x3FE2_776C_50EF_9BFE, // C5
    0x3FEE_C709_DC3A_03FD, // C3
    0x4007_1547_652B_82FE, // C1
];
pub const LG2_SQRT2: u64 = 0x3FF6_A09E_667F_3BCD;
pub const LG2_MANT_MASK: u64 = 0x000F_FFFF_FFFF_FFFF;
pub const LG2_ONE_BITS: u64 = 0x3FF0_0000_0000_0000;
pub const LG2_EXP_MAGIC_BITS: u64 = 0x4330_0000_0000_0000;
pub const LG2_EXP_BIAS: u64 = 0x4330_0000_0000_03FF;

const F64_ONE: u64 = 0x3FF0_0000_0000_0000;
const F64_HALF: u64 = 0x3FE0_0000_0000_0000;

/// Scratch lanes used by the f64 sequences.
pub(super) const X_LANES: u32 = 2;
pub(super) const Y_LANES: u32 = 3;
const E_LANES: u32 = 4;

impl Emitter<'_> {
    /// `1 / a` (never RCPPS), 1.0 a constant-pool first source: on SSE4.1 loaded straight
    /// into the result register unless `a` is in it ([`Emitter::vop_opnd`]).
    pub(super) fn rcp(&mut self, d: Var, a: Var) {
        let one = Opnd::Mem(Mem::Const(self.const_row(&[1.0f32.to_bits()])));
        let x = self.operand(a, S1);
        let r = self.dst(d);
        self.vop_opnd(VOp::DivPs, r, one, x);
        self.finish(d, r);
    }

    /// `1 / sqrt(a)` with two roundings (never RSQRTPS). The square root is in scratch before
    /// the result register is written, so 1.0 is loaded straight into it (on SSE4.1 the
    /// division then needs no copy).
    pub(super) fn rsq(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        asm::sqrt_ps(&mut self.ops, self.tier, S2, x);
        let r = self.dst(d);
        self.load_f32(r, 1.0);
        asm::vop(&mut self.ops, self.tier, VOp::DivPs, r, r, S2);
        self.finish(d, r);
    }

    /// Byte offset of half `h` of the f32 lanes, and of its f32 results.
    pub(super) fn half(&self, lanes: u32, h: u32) -> i32 {
        abi::scratch_offset(lanes) + (h as usize * self.tier.lanes() / 2 * 4) as i32
    }

    pub(super) fn ex2(&mut self, d: Var, a: Var) {
        let t = self.tier;
        let x = self.src(a, S0);
        // 1. Clamp with the constant first so a NaN input passes through.
        self.load_f32(S2, EX2_CLAMP_LO);
        asm::vop(&mut self.ops, t, VOp::MaxPs, S2, S2, x);
        self.load_f32(S3, EX2_CLAMP_HI);
        asm::vop(&mut self.ops, t, VOp::MinPs, S2, S3, S2);
        asm::store(&mut self.ops, t, abi::scratch_offset(X_LANES), S2);
        for h in 0..2 {
            let src = self.half(X_LANES, h);
            asm::cvt_ps2pd_mem(&mut self.ops, t, S2, src); // 2. X
            let dst = self.half(Y_LANES, h);
            self.ex2_f64_steps(dst);
        }
        let r = self.dst(d);
        asm::load(&mut self.ops, t, r, Mem::Ctx(abi::scratch_offset(Y_LANES)));
        self.finish(d, r);
    }

    /// EX2 steps 3–8 on the clamped f64 lanes in `S2` (one half), the f32 results stored at
    /// `dst`. Uses `S0`–`S3`.
    pub(super) fn ex2_f64_steps(&mut self, dst: i32) {
        let t = self.tier;
        asm::round_pd(&mut self.ops, t, S3, S2, 8); // 3. N (nearest even)
        asm::vop(&mut self.ops, t, VOp::SubPd, S2, S2, S3); // 4. R = X - N
        self.load_u64(S1, EX2_SCALE_MAGIC); // 6. S = bits(N + magic) << 52
        asm::vop(&mut self.ops, t, VOp::AddPd, S3, S3, S1);
        asm::psllq(&mut self.ops, t, S3, 52);
        self.load_u64(S0, EX2_COEFFS[0]); // 5. Horner, mul then add
        for &c in &EX2_COEFFS[1..] {
            asm::vop(&mut self.ops, t, VOp::MulPd, S0, S0, S2);
            self.load_u64(S1, c);
            asm::vop(&mut self.ops, t, VOp::AddPd, S0, S0, S1);
        }
        asm::vop(&mut self.ops, t, VOp::MulPd, S0, S0, S3); // 7. Y = P * S
        asm::cvt_pd2ps_store(&mut self.ops, t, S0, dst); // 8. round to f32
    }

    /// LG2 steps 1–10 on the f32 half at `src`: the unrounded f64 `Y` left in `S3`. Uses
    /// `S0`–`S3` and the `E` scratch lanes.
    pub(super) fn lg2_f64_steps(&mut self, src: i32) {
        let t = self.tier;
        asm::cvt_ps2pd_mem(&mut self.ops, t, S2, src); // 1–2. X, B
                                                       // 3. E = from_bits(MAGIC | B >> 52) - BIAS
        asm::mov(&mut self.ops, t, S3, S2);
        self.load_u64(S1, 52);
        asm::psrlq(&mut self.ops, t, S3, S1, 52);
        self.load_u64(S1, LG2_EXP_MAGIC_BITS);
        asm::vop(&mut self.ops, t, VOp::OrPs, S3, S3, S1);
        self.load_u64(S1, LG2_EXP_BIAS);
        asm::vop(&mut self.ops, t, VOp::SubPd, S3, S3, S1);
        // 4. M = from_bits(B & MANT | ONE)
        self.load_u64(S1, LG2_MANT_MASK);
        asm::vop(&mut self.ops, t, VOp::AndPs, S2, S2, S1);
        self.load_u64(S1, LG2_ONE_BITS);
        asm::vop(&mut self.ops, t, VOp::OrPs, S2, S2, S1);
        // 5. H = M > √2; M = H ? M * 0.5 : M; E = H ? E + 1 : E
        self.load_u64(S0, LG2_SQRT2);
        asm::vop(&mut self.ops, t, VOp::CmpLtPd, S0, S0, S2);
        self.load_u64(S1, F64_HALF);
        asm::vop(&mut self.ops, t, VOp::MulPd, S1, S2, S1);
        asm::select(&mut self.ops, t, S2, S0, S1, S2);
        self.load_u64(S1, F64_ONE);
        asm::vop(&mut self.ops, t, VOp::AddPd, S1, S3, S1);
        asm::select(&mut self.ops, t, S3, S0, S1, S3);
        asm::store(&mut self.ops, t, abi::scratch_offset(E_LANES), S3);
        // 6. S = (M - 1) / (M + 1)
        self.load_u64(S1, F64_ONE);
        asm::vop(&mut self.ops, t, VOp::SubPd, S0, S2, S1);
        asm::vop(&mut self.ops, t, VOp::AddPd, S2, S2, S1);
        asm::vop(&mut self.ops, t, VOp::DivPd, S0, S0, S2);
        // 7. Z = S * S
        asm::vop(&mut self.ops, t, VOp::MulPd, S2, S0, S0);
        // 8. Horner in Z
        self.load_u64(S3, LG2_COEFFS[0]);
        for &c in &LG2_COEFFS[1..] {
            asm::vop(&mut self.ops, t, VOp::MulPd, S3, S3, S2);
            self.load_u64(S1, c);
            asm::vop(&mut self.ops, t, VOp::AddPd, S3, S3, S1);
        }
        // 9. L = S * Q; 10. Y = E + L
        asm::vop(&mut self.ops, t, VOp::MulPd, S3, S0, S3);
        asm::load(&mut self.ops, t, S1, Mem::Ctx(abi::scratch_offset(E_LANES)));
        asm::vop(&mut self.ops, t, VOp::AddPd, S3, S1, S3);
    }

    pub(super) fn lg2(&mut self, d: Var, a: Var) {
        let t = self.tier;
        let x = self.src(a, S0);
        asm::store(&mut self.ops, t, abi::scratch_offset(X_LANES), x);
        for h in 0..2 {
            let src = self.half(X_LANES, h);
            self.lg2_f64_steps(src);
            let dst = self.half(Y_LANES, h);
            asm::cvt_pd2ps_store(&mut self.ops, t, S3, dst); // 11. round to f32
        }
        // 12. Specials, on the f32 input.
        asm::load(&mut self.ops, t, S2, Mem::Ctx(abi::scratch_offset(Y_LANES)));
        asm::load(&mut self.ops, t, S3, Mem::Ctx(abi::scratch_offset(X_LANES)));
        asm::zero(&mut self.ops, t, S1);
        asm::vop(&mut self.ops, t, VOp::CmpLePs, S1, S1, S3); // 0 <= x
        self.load_u32(S0, f32::NAN.to_bits());
        asm::select(&mut self.ops, t, S2, S1, S2, S0);
        asm::zero(&mut self.ops, t, S1);
        asm::vop(&mut self.ops, t, VOp::CmpEqPs, S1, S1, S3); // x == 0
        self.load_f32(S0, f32::NEG_INFINITY);
        asm::select(&mut self.ops, t, S2, S1, S0, S2);
        self.load_f32(S0, f32::INFINITY);
        asm::vop(&mut self.ops, t, VOp::CmpEqPs, S1, S0, S3); // x == +inf
        asm::select(&mut self.ops, t, S2, S1, S0, S2);
        let r = self.dst(d);
        asm::mov(&mut self.ops, t, r, S2);
        self.finish(d, r);
    }
}
