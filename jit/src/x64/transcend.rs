//! `sin`, `cos` and `pow` as AGAL states them (`picajit::agal::interp::math`), step for step:
//! the f32 lanes are widened to f64 in two halves (as EX2/LG2 in `special`), computed with
//! separately rounded f64 operations in the stated order (no FMA) and rounded back once.
//!
//! sin/cos: `k = round_even(X · 2/π)`, `R = ((X − k·P1) − k·P2) − k·P3` clamped to ±0.8,
//! `t = bits(k + 1.5·2^52)` (quadrant in its low bits), both Taylor polynomials of `R`, the
//! one the quadrant's parity picks, its sign flipped by the quadrant's second bit (for `cos`,
//! the quadrant plus one: parity inverted, second bit XOR the first).
//!
//! pow: `L` = LG2's unrounded f64 `Y` of `|x|`, with `−inf` for 0 and `X` itself for +inf and
//! NaN; `Y = f64(y) · L`; then EX2's steps from a clamp done in f64.
//!
//! The f64 constants below are the bit patterns of `picajit::agal::interp::math`'s; the
//! `picajit` crate's tests check that they match.

use super::asm::{self, Mem, VOp};
use super::special::{EX2_CLAMP_HI, EX2_CLAMP_LO, X_LANES, Y_LANES};
use super::{Emitter, S0, S1, S2, S3};
use crate::abi;
use crate::ir::Var;

/// 2/π.
pub const TWO_OVER_PI: u64 = 0x3FE4_5F30_6DC9_C883;
/// π/2 in three parts.
pub const PIO2: [u64; 3] = [
    0x3FF9_21FB_5440_0000,
    0x3DD0_B461_1A60_0000,
    0x3BA3_198A_2E00_0000,
];
/// Bound of the reduced argument (0.8).
pub const R_BOUND: u64 = 0x3FE9_9999_9999_999A;
/// 1.5 · 2^52.
pub const ROUND_MAGIC: u64 = 0x4338_0000_0000_0000;
/// sin Taylor coefficients, highest first (C7 … C1 of `SIN_C`).
pub const SIN_COEFFS: [u64; 7] = [
    0xBD6A_E7F3_E733_B81F,
    0x3DE6_1246_13A8_6D09,
    0xBE5A_E645_67F5_44E4,
    0x3EC7_1DE3_A556_C734,
    0xBF2A_01A0_1A01_A01A,
    0x3F81_1111_1111_1111,
    0xBFC5_5555_5555_5555,
];
/// cos Taylor coefficients, highest first (C8 … C1 of `COS_C`).
pub const COS_COEFFS: [u64; 8] = [
    0x3D2A_E7F3_E733_B81F,
    0xBDA9_3974_A8C0_7C9D,
    0x3E21_EED8_EFF8_D898,
    0xBE92_7E4F_B778_9F5C,
    0x3EFA_01A0_1A01_A01A,
    0xBF56_C16C_16C1_6C17,
    0x3FA5_5555_5555_5555,
    0xBFE0_0000_0000_0000,
];

const F64_ONE: u64 = 0x3FF0_0000_0000_0000;
const F64_HALF: u64 = 0x3FE0_0000_0000_0000;
const F64_SIGN: u64 = 0x8000_0000_0000_0000;
/// 2^52, and its bits (an integer below 2^52 OR-ed in reads back as 2^52 + n).
const TWO_52: u64 = 0x4330_0000_0000_0000;

/// Scratch lanes: the quadrant bits `t` of a half, the sine of a half, pow's `y`.
const T_LANES: u32 = 5;
const SIN_LANES: u32 = 6;
const POW_Y_LANES: u32 = 7;

impl Emitter<'_> {
    /// `sin` (`cos` when `cos`) of every lane.
    pub(super) fn sin_cos(&mut self, d: Var, a: Var, cos: bool) {
        let t = self.tier;
        let x = self.src(a, S0);
        asm::store(&mut self.ops, t, abi::scratch_offset(X_LANES), x);
        for h in 0..2 {
            let src = self.half(X_LANES, h);
            asm::cvt_ps2pd_mem(&mut self.ops, t, S2, src); // X
            self.load_u64(S3, TWO_OVER_PI);
            asm::vop(&mut self.ops, t, VOp::MulPd, S3, S2, S3);
            asm::round_pd(&mut self.ops, t, S3, S3, 8); // k
            for &p in &PIO2 {
                self.load_u64(S1, p);
                asm::vop(&mut self.ops, t, VOp::MulPd, S1, S3, S1);
                asm::vop(&mut self.ops, t, VOp::SubPd, S2, S2, S1); // R
            }
            // R = R < −B ? −B : R; R = B < R ? B : R (a NaN R stays).
            self.load_u64(S1, R_BOUND | F64_SIGN);
            asm::vop(&mut self.ops, t, VOp::CmpLtPd, S0, S2, S1);
            asm::select(&mut self.ops, t, S2, S0, S1, S2);
            self.load_u64(S1, R_BOUND);
            asm::vop(&mut self.ops, t, VOp::CmpLtPd, S0, S1, S2);
            asm::select(&mut self.ops, t, S2, S0, S1, S2);
            self.load_u64(S1, ROUND_MAGIC);
            asm::vop(&mut self.ops, t, VOp::AddPd, S3, S3, S1);
            asm::store(&mut self.ops, t, abi::scratch_offset(T_LANES), S3); // t
            asm::vop(&mut self.ops, t, VOp::MulPd, S3, S2, S2); // Z
                                                                // sin R = R + R·(Z·P(Z)).
            self.load_u64(S0, SIN_COEFFS[0]);
            for &c in &SIN_COEFFS[1..] {
                asm::vop(&mut self.ops, t, VOp::MulPd, S0, S0, S3);
                self.load_u64(S1, c);
                asm::vop(&mut self.ops, t, VOp::AddPd, S0, S0, S1);
            }
            asm::vop(&mut self.ops, t, VOp::MulPd, S0, S3, S0);
            asm::vop(&mut self.ops, t, VOp::MulPd, S0, S2, S0);
            asm::vop(&mut self.ops, t, VOp::AddPd, S0, S2, S0);
            asm::store(&mut self.ops, t, abi::scratch_offset(SIN_LANES), S0);
            // cos R = 1 + Z·P(Z).
            self.load_u64(S0, COS_COEFFS[0]);
            for &c in &COS_COEFFS[1..] {
                asm::vop(&mut self.ops, t, VOp::MulPd, S0, S0, S3);
                self.load_u64(S1, c);
                asm::vop(&mut self.ops, t, VOp::AddPd, S0, S0, S1);
            }
            asm::vop(&mut self.ops, t, VOp::MulPd, S0, S3, S0);
            self.load_u64(S1, F64_ONE);
            asm::vop(&mut self.ops, t, VOp::AddPd, S0, S1, S0);
            // Odd quadrant: f64(2^52 | (t & 1)) − 2^52 > 0.5.
            let tq = Mem::Ctx(abi::scratch_offset(T_LANES));
            asm::load(&mut self.ops, t, S1, tq);
            self.load_u64(S2, 1);
            asm::vop(&mut self.ops, t, VOp::AndPs, S1, S1, S2);
            self.load_u64(S2, TWO_52);
            asm::vop(&mut self.ops, t, VOp::OrPs, S1, S1, S2);
            asm::vop(&mut self.ops, t, VOp::SubPd, S1, S1, S2);
            self.load_u64(S2, F64_HALF);
            asm::vop(&mut self.ops, t, VOp::CmpLtPd, S1, S2, S1);
            asm::load(
                &mut self.ops,
                t,
                S2,
                Mem::Ctx(abi::scratch_offset(SIN_LANES)),
            );
            if cos {
                asm::select(&mut self.ops, t, S2, S1, S2, S0);
            } else {
                asm::select(&mut self.ops, t, S2, S1, S0, S2);
            }
            // Sign: bit 1 of the quadrant (cos: bit 1 XOR bit 0) moved to bit 63.
            asm::load(&mut self.ops, t, S0, tq);
            asm::psllq(&mut self.ops, t, S0, 62);
            if cos {
                asm::load(&mut self.ops, t, S1, tq);
                asm::psllq(&mut self.ops, t, S1, 63);
                asm::vop(&mut self.ops, t, VOp::XorPs, S0, S0, S1);
            }
            self.load_u64(S1, F64_SIGN);
            asm::vop(&mut self.ops, t, VOp::AndPs, S0, S0, S1);
            asm::vop(&mut self.ops, t, VOp::XorPs, S2, S2, S0);
            let dst = self.half(Y_LANES, h);
            asm::cvt_pd2ps_store(&mut self.ops, t, S2, dst);
        }
        let r = self.dst(d);
        asm::load(&mut self.ops, t, r, Mem::Ctx(abi::scratch_offset(Y_LANES)));
        self.finish(d, r);
    }

    /// `pow(a, b)`: `ex2_f64(f64(b) · L(|a|))`.
    pub(super) fn pow(&mut self, d: Var, a: Var, b: Var) {
        let t = self.tier;
        let x = self.src(a, S0);
        self.load_u32(S1, 0x7FFF_FFFF);
        asm::vop(&mut self.ops, t, VOp::AndPs, S1, x, S1);
        asm::store(&mut self.ops, t, abi::scratch_offset(X_LANES), S1);
        let y = self.src(b, S0);
        asm::store(&mut self.ops, t, abi::scratch_offset(POW_Y_LANES), y);
        for h in 0..2 {
            let src = self.half(X_LANES, h);
            self.lg2_f64_steps(src); // L in S3
            asm::cvt_ps2pd_mem(&mut self.ops, t, S2, src); // X = |a|
                                                           // L = 0 < X ? L : −inf; L = X < inf ? L : X (inf and NaN pass through).
            asm::zero(&mut self.ops, t, S1);
            asm::vop(&mut self.ops, t, VOp::CmpLtPd, S1, S1, S2);
            self.load_u64(S0, f64::NEG_INFINITY.to_bits());
            asm::select(&mut self.ops, t, S3, S1, S3, S0);
            self.load_u64(S1, f64::INFINITY.to_bits());
            asm::vop(&mut self.ops, t, VOp::CmpLtPd, S1, S2, S1);
            asm::select(&mut self.ops, t, S3, S1, S3, S2);
            // Y = f64(b) · L.
            let ysrc = self.half(POW_Y_LANES, h);
            asm::cvt_ps2pd_mem(&mut self.ops, t, S2, ysrc);
            asm::vop(&mut self.ops, t, VOp::MulPd, S2, S2, S3);
            // Clamp in f64: Y < LO ? LO : Y; HI < Y ? HI : Y.
            self.load_u64(S1, f64::from(EX2_CLAMP_LO).to_bits());
            asm::vop(&mut self.ops, t, VOp::CmpLtPd, S0, S2, S1);
            asm::select(&mut self.ops, t, S2, S0, S1, S2);
            self.load_u64(S1, f64::from(EX2_CLAMP_HI).to_bits());
            asm::vop(&mut self.ops, t, VOp::CmpLtPd, S0, S1, S2);
            asm::select(&mut self.ops, t, S2, S0, S1, S2);
            let dst = self.half(Y_LANES, h);
            self.ex2_f64_steps(dst);
        }
        let r = self.dst(d);
        asm::load(&mut self.ops, t, r, Mem::Ctx(abi::scratch_offset(Y_LANES)));
        self.finish(d, r);
    }
}
