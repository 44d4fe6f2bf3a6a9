//! RCP, RSQ and the project's EX2/LG2, step for step as `picajit::float` states them: the f32
//! lanes are widened to f64 in two halves (FCVTL for lanes 0–1, FCVTL2 for lanes 2–3),
//! computed with separately rounded f64 operations (FMUL then FADD, never FMLA) and narrowed
//! once (FCVTN, FCVTN2). The f64 constants are the x86-64 backend's (`x64::special`);
//! `tests/native_float.rs` in the `picajit` crate checks both backends bit for bit against
//! `picajit::float` over the special values and a sweep of the f32 space.

use super::asm::{self, UOp, VOp};
use super::{Emitter, S0, S1, S2, S3, S4, S5, S6};
use crate::ir::Var;
use crate::x64::special::{
    EX2_CLAMP_HI, EX2_CLAMP_LO, EX2_COEFFS, EX2_SCALE_MAGIC, LG2_COEFFS, LG2_EXP_BIAS,
    LG2_EXP_MAGIC_BITS, LG2_MANT_MASK, LG2_ONE_BITS, LG2_SQRT2,
};

const F64_ONE: u64 = 0x3FF0_0000_0000_0000;
const F64_HALF: u64 = 0x3FE0_0000_0000_0000;

impl Emitter<'_> {
    /// `1.0 / a`, one IEEE division (never FRECPE).
    pub(super) fn rcp(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        self.load_f32(S1, 1.0);
        let r = self.dst(d);
        asm::vop(&mut self.ops, VOp::FDiv, r, S1, x);
        self.finish(d, r);
    }

    /// `1 / sqrt(a)` with two roundings (never FRSQRTE).
    pub(super) fn rsq(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        asm::uop(&mut self.ops, UOp::FSqrt, S1, x);
        self.load_f32(S2, 1.0);
        let r = self.dst(d);
        asm::vop(&mut self.ops, VOp::FDiv, r, S2, S1);
        self.finish(d, r);
    }

    /// EX2, both halves interleaved so each Horner coefficient is loaded once.
    pub(super) fn ex2(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        // 1. t = LO > x ? LO : x; t = t > HI ? HI : t (a NaN x compares false and stays).
        self.load_f32(S1, EX2_CLAMP_LO);
        asm::vop(&mut self.ops, VOp::FCmGt, S2, S1, x);
        asm::select(&mut self.ops, S1, S2, S1, x);
        self.load_f32(S2, EX2_CLAMP_HI);
        asm::vop(&mut self.ops, VOp::FCmGt, S3, S1, S2);
        asm::select(&mut self.ops, S1, S3, S2, S1);
        asm::uop(&mut self.ops, UOp::FCvtl, S2, S1); // 2. X (lanes 0–1)
        asm::uop(&mut self.ops, UOp::FCvtl2, S3, S1); //    X (lanes 2–3)
        asm::uop(&mut self.ops, UOp::FRintND, S4, S2); // 3. N
        asm::uop(&mut self.ops, UOp::FRintND, S5, S3);
        asm::vop(&mut self.ops, VOp::FSubD, S2, S2, S4); // 4. R = X - N
        asm::vop(&mut self.ops, VOp::FSubD, S3, S3, S5);
        self.load_u64(S1, EX2_SCALE_MAGIC); // 6. S = bits(N + magic) << 52
        asm::vop(&mut self.ops, VOp::FAddD, S4, S4, S1);
        asm::vop(&mut self.ops, VOp::FAddD, S5, S5, S1);
        asm::shl_d(&mut self.ops, S4, S4, 52);
        asm::shl_d(&mut self.ops, S5, S5, 52);
        self.load_u64(S6, EX2_COEFFS[0]); // 5. Horner, multiply then add
        asm::mov(&mut self.ops, S0, S6);
        for &c in &EX2_COEFFS[1..] {
            asm::vop(&mut self.ops, VOp::FMulD, S6, S6, S2);
            asm::vop(&mut self.ops, VOp::FMulD, S0, S0, S3);
            self.load_u64(S1, c);
            asm::vop(&mut self.ops, VOp::FAddD, S6, S6, S1);
            asm::vop(&mut self.ops, VOp::FAddD, S0, S0, S1);
        }
        asm::vop(&mut self.ops, VOp::FMulD, S6, S6, S4); // 7. Y = P * S
        asm::vop(&mut self.ops, VOp::FMulD, S0, S0, S5);
        let r = self.dst(d);
        let out = if r == S0 { S1 } else { r };
        asm::uop(&mut self.ops, UOp::FCvtn, out, S6); // 8. round to f32
        asm::uop(&mut self.ops, UOp::FCvtn2, out, S0);
        self.finish(d, out);
    }

    pub(super) fn lg2(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        for h in 0..2 {
            // 1.–2. X, B
            let widen = if h == 0 { UOp::FCvtl } else { UOp::FCvtl2 };
            asm::uop(&mut self.ops, widen, S1, x);
            self.lg2_f64_steps();
            // 11. round to f32
            let narrow = if h == 0 { UOp::FCvtn } else { UOp::FCvtn2 };
            asm::uop(&mut self.ops, narrow, S6, S5);
        }
        // 12. Specials, on the f32 input: NaN where !(x >= 0), -inf where x == 0, +inf where
        // x == +inf.
        asm::uop(&mut self.ops, UOp::FCmGeZero, S1, x);
        self.load_u32(S2, f32::NAN.to_bits());
        asm::select(&mut self.ops, S6, S1, S6, S2);
        asm::uop(&mut self.ops, UOp::FCmEqZero, S1, x);
        self.load_f32(S2, f32::NEG_INFINITY);
        asm::select(&mut self.ops, S6, S1, S2, S6);
        self.load_f32(S2, f32::INFINITY);
        asm::vop(&mut self.ops, VOp::FCmEq, S1, x, S2);
        asm::select(&mut self.ops, S6, S1, S2, S6);
        let r = self.dst(d);
        asm::mov(&mut self.ops, r, S6);
        self.finish(d, r);
    }

    /// LG2 steps 3–10 on the f64 lanes of `S1` (steps 1–2 done): the unrounded `Y` left in
    /// `S5`. Uses `S1`–`S5`.
    pub(super) fn lg2_f64_steps(&mut self) {
        // 3. E = from_bits(MAGIC | B >> 52) - BIAS
        asm::ushr_d(&mut self.ops, S2, S1, 52);
        self.load_u64(S3, LG2_EXP_MAGIC_BITS);
        asm::vop(&mut self.ops, VOp::Orr, S2, S2, S3);
        self.load_u64(S3, LG2_EXP_BIAS);
        asm::vop(&mut self.ops, VOp::FSubD, S2, S2, S3);
        // 4. M = from_bits(B & MANT | ONE)
        self.load_u64(S3, LG2_MANT_MASK);
        asm::vop(&mut self.ops, VOp::And, S1, S1, S3);
        self.load_u64(S3, LG2_ONE_BITS);
        asm::vop(&mut self.ops, VOp::Orr, S1, S1, S3);
        // 5. H = M > √2; M = H ? M * 0.5 : M; E = H ? E + 1 : E
        self.load_u64(S3, LG2_SQRT2);
        asm::vop(&mut self.ops, VOp::FCmGtD, S4, S1, S3);
        self.load_u64(S3, F64_HALF);
        asm::vop(&mut self.ops, VOp::FMulD, S3, S1, S3);
        asm::select(&mut self.ops, S1, S4, S3, S1);
        self.load_u64(S3, F64_ONE);
        asm::vop(&mut self.ops, VOp::FAddD, S5, S2, S3);
        asm::select(&mut self.ops, S2, S4, S5, S2);
        // 6. S = (M - 1) / (M + 1)
        asm::vop(&mut self.ops, VOp::FSubD, S4, S1, S3);
        asm::vop(&mut self.ops, VOp::FAddD, S1, S1, S3);
        asm::vop(&mut self.ops, VOp::FDivD, S4, S4, S1);
        // 7. Z = S * S
        asm::vop(&mut self.ops, VOp::FMulD, S1, S4, S4);
        // 8. Horner in Z
        self.load_u64(S5, LG2_COEFFS[0]);
        for &c in &LG2_COEFFS[1..] {
            asm::vop(&mut self.ops, VOp::FMulD, S5, S5, S1);
            self.load_u64(S3, c);
            asm::vop(&mut self.ops, VOp::FAddD, S5, S5, S3);
        }
        // 9. L = S * Q; 10. Y = E + L
        asm::vop(&mut self.ops, VOp::FMulD, S5, S4, S5);
        asm::vop(&mut self.ops, VOp::FAddD, S5, S2, S5);
    }
}
