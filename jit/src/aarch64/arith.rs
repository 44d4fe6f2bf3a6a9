//! Lane arithmetic, compares, masks, selects, MIN/MAX and the PICA multiply.

use super::asm::{self, UOp, VOp};
use super::{Emitter, S0, S1, S2, S3};
use crate::ir::{CmpKind, Var};

impl Emitter<'_> {
    pub(super) fn fconst(&mut self, d: Var, value: f32) {
        let r = self.dst(d);
        self.load_f32(r, value);
        self.finish(d, r);
    }

    pub(super) fn iconst(&mut self, d: Var, value: u32) {
        let r = self.dst(d);
        self.load_u32(r, value);
        self.finish(d, r);
    }

    pub(super) fn mask_const(&mut self, d: Var, value: bool) {
        let r = self.dst(d);
        if value {
            asm::ones(&mut self.ops, r);
        } else {
            asm::zero(&mut self.ops, r);
        }
        self.finish(d, r);
    }

    pub(super) fn unary(&mut self, op: UOp, d: Var, a: Var) {
        let x = self.src(a, S0);
        let r = self.dst(d);
        if op == UOp::Mov {
            asm::mov(&mut self.ops, r, x);
        } else {
            asm::uop(&mut self.ops, op, r, x);
        }
        self.finish(d, r);
    }

    pub(super) fn binary(&mut self, op: VOp, d: Var, a: Var, b: Var) {
        let x = self.src(a, S0);
        let y = self.src(b, S1);
        let r = self.dst(d);
        asm::vop(&mut self.ops, op, r, x, y);
        self.finish(d, r);
    }

    /// Sign clear: BIC with the sign bit (FABS would do, but this keeps to audited templates).
    pub(super) fn abs(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        self.load_u32(S2, 0x8000_0000);
        let r = self.dst(d);
        asm::vop(&mut self.ops, VOp::Bic, r, x, S2);
        self.finish(d, r);
    }

    /// Quad derivative (one quad per register): `trn2 − trn1` of the value with itself, on
    /// 32-bit lanes for `ddx` (`[a1, a1, a3, a3] − [a0, a0, a2, a2]`), on 64-bit lanes for
    /// `ddy` (`[a2, a3, a2, a3] − [a0, a1, a0, a1]`).
    pub(super) fn quad_diff(&mut self, d: Var, a: Var, x_axis: bool) {
        let x = self.src(a, S0);
        let (hi, lo) = if x_axis {
            (VOp::Trn2S, VOp::Trn1S)
        } else {
            (VOp::Trn2D, VOp::Trn1D)
        };
        asm::vop(&mut self.ops, hi, S1, x, x);
        asm::vop(&mut self.ops, lo, S2, x, x);
        let r = self.dst(d);
        asm::vop(&mut self.ops, VOp::FSub, r, S1, S2);
        self.finish(d, r);
    }

    /// MAX is `a > b ? a : b` (NaN or equal operands give `b`): FCMGT and a select. NEON's
    /// FMAX would return NaN for a NaN `a` and order +0 above −0.
    pub(super) fn max(&mut self, d: Var, a: Var, b: Var) {
        let x = self.src(a, S0);
        let y = self.src(b, S1);
        asm::vop(&mut self.ops, VOp::FCmGt, S2, x, y);
        let r = self.dst(d);
        asm::select(&mut self.ops, r, S2, x, y);
        self.finish(d, r);
    }

    /// MIN is `a < b ? a : b`, i.e. `b > a ? a : b`.
    pub(super) fn min(&mut self, d: Var, a: Var, b: Var) {
        let x = self.src(a, S0);
        let y = self.src(b, S1);
        asm::vop(&mut self.ops, VOp::FCmGt, S2, y, x);
        let r = self.dst(d);
        asm::select(&mut self.ops, r, S2, x, y);
        self.finish(d, r);
    }

    /// PICA multiply: `p = a * b`, but +0.0 where `p` is NaN and neither input is.
    ///
    /// FMULX equals FMUL except that `0 × ±inf` gives ±2.0 instead of NaN. So with
    /// `q = fmulx(a, b)`: where `p == q` the product is ordinary and `p` is the answer; where
    /// they differ, `p` is NaN and either an input is NaN (then `q` is NaN too) or it was
    /// `0 × inf` (then `q = ±2`). `q - q` is NaN in the first case and +0.0 in the second —
    /// exactly the answer for those lanes. Five instructions, no constants.
    pub(super) fn pmul(&mut self, d: Var, a: Var, b: Var) {
        let x = self.src(a, S0);
        let y = self.src(b, S1);
        asm::vop(&mut self.ops, VOp::FMul, S2, x, y);
        asm::vop(&mut self.ops, VOp::FMulx, S3, x, y);
        let r = self.dst(d);
        asm::vop(&mut self.ops, VOp::FCmEq, r, S2, S3);
        asm::vop(&mut self.ops, VOp::FSub, S3, S3, S3);
        asm::vop(&mut self.ops, VOp::Bsl, r, S2, S3);
        self.finish(d, r);
    }

    /// Compares: FCMEQ/FCMGT/FCMGE are false on NaN (EQ, LT, LE, GT, GE are ordered); NE is
    /// the complement of EQ (true on NaN); LT/LE swap the operands of GT/GE.
    pub(super) fn cmp(&mut self, d: Var, kind: CmpKind, a: Var, b: Var) {
        if kind == CmpKind::True {
            let r = self.dst(d);
            asm::ones(&mut self.ops, r);
            self.finish(d, r);
            return;
        }
        let x = self.src(a, S0);
        let y = self.src(b, S1);
        let r = self.dst(d);
        match kind {
            CmpKind::Eq => asm::vop(&mut self.ops, VOp::FCmEq, r, x, y),
            CmpKind::Ne => {
                asm::vop(&mut self.ops, VOp::FCmEq, r, x, y);
                asm::uop(&mut self.ops, UOp::Not, r, r);
            }
            CmpKind::Lt => asm::vop(&mut self.ops, VOp::FCmGt, r, y, x),
            CmpKind::Le => asm::vop(&mut self.ops, VOp::FCmGe, r, y, x),
            CmpKind::Gt => asm::vop(&mut self.ops, VOp::FCmGt, r, x, y),
            CmpKind::Ge => asm::vop(&mut self.ops, VOp::FCmGe, r, x, y),
            CmpKind::True => asm::ones(&mut self.ops, r), // handled above
        }
        self.finish(d, r);
    }

    pub(super) fn select(&mut self, d: Var, m: Var, a: Var, b: Var) {
        let mm = self.src(m, S0);
        let x = self.src(a, S1);
        let y = self.src(b, S2);
        let r = self.dst(d);
        asm::select(&mut self.ops, r, mm, x, y);
        self.finish(d, r);
    }
}
