//! `sin`, `cos` and `pow` as AGAL states them, step for step as the x86-64 backend's
//! `transcend` (whose module docs give the steps and whose constants these are): each half of
//! the f32 lanes widened to f64 (FCVTL/FCVTL2), separately rounded f64 operations (FMUL then
//! FADD, never FMLA), narrowed once (FCVTN/FCVTN2). The input is kept in the context's scratch
//! lanes between the halves, and so is the first half's result.

use super::asm::{self, UOp, VOp};
use super::{Emitter, S0, S1, S2, S3, S4, S5, S6};
use crate::abi;
use crate::ir::Var;
use crate::x64::special::{EX2_CLAMP_HI, EX2_CLAMP_LO, EX2_COEFFS, EX2_SCALE_MAGIC};
use crate::x64::transcend::{COS_COEFFS, PIO2, ROUND_MAGIC, R_BOUND, SIN_COEFFS, TWO_OVER_PI};

const F64_ONE: u64 = 0x3FF0_0000_0000_0000;
const F64_HALF: u64 = 0x3FE0_0000_0000_0000;
const F64_SIGN: u64 = 0x8000_0000_0000_0000;
const TWO_52: u64 = 0x4330_0000_0000_0000;

/// Scratch lanes: the f32 input, the first half's result, pow's second operand.
const X_LANES: u32 = 2;
const Y_LANES: u32 = 3;
const POW_Y_LANES: u32 = 7;

impl Emitter<'_> {
    /// `S0` = the scratch lanes `n`.
    fn load_scratch(&mut self, reg: u8, n: u32) {
        let a = self.ctx(abi::scratch_offset(n), 16);
        asm::load_q(&mut self.ops, reg, a);
    }

    fn store_scratch(&mut self, reg: u8, n: u32) {
        let a = self.ctx(abi::scratch_offset(n), 16);
        asm::store_q(&mut self.ops, reg, a);
    }

    /// `S1` = half `h` of the scratch lanes `n`, widened to f64 (clobbers `S0`).
    fn widen_scratch(&mut self, n: u32, h: u32) {
        self.load_scratch(S0, n);
        let widen = if h == 0 { UOp::FCvtl } else { UOp::FCvtl2 };
        asm::uop(&mut self.ops, widen, S1, S0);
    }

    /// Narrows half `h` (f64 lanes of `v`) into the result: half 0 to scratch, half 1 into
    /// the destination with half 0.
    fn narrow_half(&mut self, d: Var, v: u8, h: u32) {
        if h == 0 {
            asm::uop(&mut self.ops, UOp::FCvtn, S0, v);
            self.store_scratch(S0, Y_LANES);
        } else {
            let r = self.dst(d);
            self.load_scratch(r, Y_LANES);
            asm::uop(&mut self.ops, UOp::FCvtn2, r, v);
            self.finish(d, r);
        }
    }

    /// `sin` (`cos` when `cos`) of every lane.
    pub(super) fn sin_cos(&mut self, d: Var, a: Var, cos: bool) {
        let x = self.src(a, S0);
        self.store_scratch(x, X_LANES);
        for h in 0..2 {
            self.widen_scratch(X_LANES, h); // X in S1
            self.load_u64(S2, TWO_OVER_PI);
            asm::vop(&mut self.ops, VOp::FMulD, S2, S1, S2);
            asm::uop(&mut self.ops, UOp::FRintND, S2, S2); // k
            for &p in &PIO2 {
                self.load_u64(S3, p);
                asm::vop(&mut self.ops, VOp::FMulD, S3, S2, S3);
                asm::vop(&mut self.ops, VOp::FSubD, S1, S1, S3); // R
            }
            // R = −B > R ? −B : R; R = R > B ? B : R (a NaN R stays).
            self.load_u64(S3, R_BOUND | F64_SIGN);
            asm::vop(&mut self.ops, VOp::FCmGtD, S4, S3, S1);
            asm::select(&mut self.ops, S1, S4, S3, S1);
            self.load_u64(S3, R_BOUND);
            asm::vop(&mut self.ops, VOp::FCmGtD, S4, S1, S3);
            asm::select(&mut self.ops, S1, S4, S3, S1);
            self.load_u64(S3, ROUND_MAGIC);
            asm::vop(&mut self.ops, VOp::FAddD, S2, S2, S3); // t
            asm::vop(&mut self.ops, VOp::FMulD, S3, S1, S1); // Z
                                                             // sin R = R + R·(Z·P(Z)).
            self.load_u64(S4, SIN_COEFFS[0]);
            for &c in &SIN_COEFFS[1..] {
                asm::vop(&mut self.ops, VOp::FMulD, S4, S4, S3);
                self.load_u64(S6, c);
                asm::vop(&mut self.ops, VOp::FAddD, S4, S4, S6);
            }
            asm::vop(&mut self.ops, VOp::FMulD, S4, S3, S4);
            asm::vop(&mut self.ops, VOp::FMulD, S4, S1, S4);
            asm::vop(&mut self.ops, VOp::FAddD, S4, S1, S4);
            // cos R = 1 + Z·P(Z).
            self.load_u64(S5, COS_COEFFS[0]);
            for &c in &COS_COEFFS[1..] {
                asm::vop(&mut self.ops, VOp::FMulD, S5, S5, S3);
                self.load_u64(S6, c);
                asm::vop(&mut self.ops, VOp::FAddD, S5, S5, S6);
            }
            asm::vop(&mut self.ops, VOp::FMulD, S5, S3, S5);
            self.load_u64(S6, F64_ONE);
            asm::vop(&mut self.ops, VOp::FAddD, S5, S6, S5);
            // Odd quadrant: f64(2^52 | (t & 1)) − 2^52 > 0.5.
            self.load_u64(S6, 1);
            asm::vop(&mut self.ops, VOp::And, S6, S2, S6);
            self.load_u64(S3, TWO_52);
            asm::vop(&mut self.ops, VOp::Orr, S6, S6, S3);
            asm::vop(&mut self.ops, VOp::FSubD, S6, S6, S3);
            self.load_u64(S3, F64_HALF);
            asm::vop(&mut self.ops, VOp::FCmGtD, S6, S6, S3);
            if cos {
                asm::select(&mut self.ops, S4, S6, S4, S5);
            } else {
                asm::select(&mut self.ops, S4, S6, S5, S4);
            }
            // Sign: bit 1 of the quadrant (cos: bit 1 XOR bit 0) moved to bit 63.
            asm::shl_d(&mut self.ops, S3, S2, 62);
            if cos {
                asm::shl_d(&mut self.ops, S6, S2, 63);
                asm::vop(&mut self.ops, VOp::Eor, S3, S3, S6);
            }
            self.load_u64(S6, F64_SIGN);
            asm::vop(&mut self.ops, VOp::And, S3, S3, S6);
            asm::vop(&mut self.ops, VOp::Eor, S4, S4, S3);
            self.narrow_half(d, S4, h);
        }
    }

    /// `pow(a, b)`: `ex2_f64(f64(b) · L(|a|))`.
    pub(super) fn pow(&mut self, d: Var, a: Var, b: Var) {
        let x = self.src(a, S0);
        self.load_u32(S1, 0x8000_0000);
        asm::vop(&mut self.ops, VOp::Bic, S1, x, S1);
        self.store_scratch(S1, X_LANES);
        let y = self.src(b, S0);
        self.store_scratch(y, POW_Y_LANES);
        for h in 0..2 {
            self.widen_scratch(X_LANES, h);
            self.lg2_f64_steps(); // L in S5
            self.widen_scratch(X_LANES, h); // X = |a| in S1
                                            // L = X > 0 ? L : −inf; L = inf > X ? L : X (inf and NaN pass through).
            asm::zero(&mut self.ops, S2);
            asm::vop(&mut self.ops, VOp::FCmGtD, S3, S1, S2);
            self.load_u64(S4, f64::NEG_INFINITY.to_bits());
            asm::select(&mut self.ops, S5, S3, S5, S4);
            self.load_u64(S4, f64::INFINITY.to_bits());
            asm::vop(&mut self.ops, VOp::FCmGtD, S3, S4, S1);
            asm::select(&mut self.ops, S5, S3, S5, S1);
            // Y = f64(b) · L.
            self.widen_scratch(POW_Y_LANES, h);
            asm::vop(&mut self.ops, VOp::FMulD, S5, S1, S5);
            // Clamp in f64: LO > Y ? LO : Y; Y > HI ? HI : Y.
            self.load_u64(S2, f64::from(EX2_CLAMP_LO).to_bits());
            asm::vop(&mut self.ops, VOp::FCmGtD, S3, S2, S5);
            asm::select(&mut self.ops, S5, S3, S2, S5);
            self.load_u64(S2, f64::from(EX2_CLAMP_HI).to_bits());
            asm::vop(&mut self.ops, VOp::FCmGtD, S3, S5, S2);
            asm::select(&mut self.ops, S5, S3, S2, S5);
            // EX2 steps 3–8.
            asm::uop(&mut self.ops, UOp::FRintND, S2, S5); // N
            asm::vop(&mut self.ops, VOp::FSubD, S5, S5, S2); // R
            self.load_u64(S3, EX2_SCALE_MAGIC);
            asm::vop(&mut self.ops, VOp::FAddD, S2, S2, S3);
            asm::shl_d(&mut self.ops, S2, S2, 52); // S
            self.load_u64(S4, EX2_COEFFS[0]);
            for &c in &EX2_COEFFS[1..] {
                asm::vop(&mut self.ops, VOp::FMulD, S4, S4, S5);
                self.load_u64(S3, c);
                asm::vop(&mut self.ops, VOp::FAddD, S4, S4, S3);
            }
            asm::vop(&mut self.ops, VOp::FMulD, S4, S4, S2);
            self.narrow_half(d, S4, h);
        }
    }
}
