//! Lane arithmetic, compares, masks, selects, the PICA multiply and the float→int conversion.

use super::asm::{self, Mem, VOp};
use super::{zmm, Emitter, Opnd, S0, S1, S2, S3};
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
            asm::ones(&mut self.ops, self.tier, r);
        } else {
            asm::zero(&mut self.ops, self.tier, r);
        }
        self.finish(d, r);
    }

    pub(super) fn copy(&mut self, d: Var, a: Var) {
        let r = self.dst(d);
        match self.operand(a, S0) {
            Opnd::Reg(s) => asm::mov(&mut self.ops, self.tier, r, s),
            Opnd::Mem(m) => asm::load(&mut self.ops, self.tier, r, m),
        }
        self.finish(d, r);
    }

    /// Sign flip: xor with the sign bit (a constant-pool operand).
    pub(super) fn neg(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        let sign = Mem::Const(self.const_row(&[0x8000_0000]));
        let r = self.dst(d);
        asm::vop_m(&mut self.ops, self.tier, VOp::XorPs, r, x, sign);
        self.finish(d, r);
    }

    /// Sign clear: and with `0x7FFF_FFFF`.
    pub(super) fn abs(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        self.load_u32(S2, 0x7FFF_FFFF);
        let r = self.dst(d);
        asm::vop(&mut self.ops, self.tier, VOp::AndPs, r, x, S2);
        self.finish(d, r);
    }

    pub(super) fn mask_not(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        asm::ones(&mut self.ops, self.tier, S2);
        let r = self.dst(d);
        asm::vop(&mut self.ops, self.tier, VOp::XorPs, r, x, S2);
        self.finish(d, r);
    }

    /// PICA multiply: `p = a * b`; lanes where `p` is NaN but neither input is become +0.0.
    /// keep = unordered(a, b) | ordered(p, p); result = keep & p.
    /// AVX-512 keeps the masks in opmasks: [`zmm::pmul`], four instructions. SSE4.1 with a
    /// source in the result register makes the product there: 7 instructions, not 8.
    pub(super) fn pmul(&mut self, d: Var, a: Var, b: Var) {
        let mut x = self.operand(a, S0);
        let y = self.operand(b, S1);
        if let (Opnd::Mem(m), Opnd::Mem(_)) = (x, y) {
            // Both in memory: load the first once for both uses.
            asm::load(&mut self.ops, self.tier, S0, m);
            x = Opnd::Reg(S0);
        }
        if self.tier == asm::Tier::Avx512 {
            // The product and both compares are commutative (as `vop_opnd` takes them): a
            // memory first source swaps with the register second one.
            let (x, y) = match (x, y) {
                (Opnd::Reg(x), y) => (x, y),
                (Opnd::Mem(m), Opnd::Reg(y)) => (y, Opnd::Mem(m)),
                (Opnd::Mem(m), Opnd::Mem(n)) => {
                    asm::load(&mut self.ops, self.tier, S0, m);
                    (S0, Opnd::Mem(n))
                }
            };
            let r = self.dst(d);
            zmm::pmul(&mut self.ops, r, x, y);
            self.finish(d, r);
            return;
        }
        let t = self.tier;
        let r = self.dst(d);
        // SSE4.1 with a source in the result register (the second swapped to the first: the
        // product and the compare commute): unordered(a, b) first, then the product in place,
        // the mask in S2. Otherwise the product in S2 and the mask in r. Either way r = S2 & r.
        let (x, y) = match t == asm::Tier::Sse41 && y == Opnd::Reg(r) {
            true => (y, x),
            false => (x, y),
        };
        let in_place = t == asm::Tier::Sse41 && x == Opnd::Reg(r);
        let (prod, mask) = if in_place { (r, S2) } else { (S2, r) };
        if in_place {
            self.vop_opnd(VOp::CmpUnordPs, S3, x, y);
            self.vop_opnd(VOp::MulPs, prod, x, y);
        } else {
            self.vop_opnd(VOp::MulPs, prod, x, y);
            self.vop_opnd(VOp::CmpUnordPs, S3, x, y);
        }
        asm::vop(&mut self.ops, t, VOp::CmpOrdPs, mask, prod, prod);
        asm::vop(&mut self.ops, t, VOp::OrPs, mask, mask, S3);
        asm::vop(&mut self.ops, t, VOp::AndPs, r, r, S2);
        self.finish(d, r);
    }

    /// IEEE square root (`sqrtps`, correctly rounded).
    pub(super) fn sqrt(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        let r = self.dst(d);
        asm::sqrt_ps(&mut self.ops, self.tier, r, x);
        self.finish(d, r);
    }

    /// Quad derivative: the lane's right (bottom) neighbour's value minus its left (top)
    /// one's, both picked by in-lane permutes.
    pub(super) fn quad_diff(&mut self, d: Var, a: Var, x_axis: bool) {
        let x = self.src(a, S0);
        let (to, from) = if x_axis { (0xF5, 0xA0) } else { (0xEE, 0x44) };
        asm::permute(&mut self.ops, self.tier, S1, x, to);
        asm::permute(&mut self.ops, self.tier, S2, x, from);
        let r = self.dst(d);
        asm::vop(&mut self.ops, self.tier, VOp::SubPs, r, S1, S2);
        self.finish(d, r);
    }

    pub(super) fn floor(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        let r = self.dst(d);
        // Rounding control 1 (toward −inf) with the precision exception suppressed (bit 3).
        asm::round_ps(&mut self.ops, self.tier, r, x, 9);
        self.finish(d, r);
    }

    /// Compares with IEEE predicates: EQ and LT/LE are ordered (false on NaN), NEQ is unordered
    /// (true on NaN); GT/GE swap the operands of LT/LE.
    pub(super) fn cmp(&mut self, d: Var, kind: CmpKind, a: Var, b: Var) {
        let t = self.tier;
        if kind == CmpKind::True {
            let r = self.dst(d);
            asm::ones(&mut self.ops, t, r);
            self.finish(d, r);
            return;
        }
        let x = self.operand(a, S0);
        let y = self.operand(b, S1);
        let r = self.dst(d);
        let (op, p, q) = match kind {
            CmpKind::Eq => (VOp::CmpEqPs, x, y),
            CmpKind::Ne => (VOp::CmpNeqPs, x, y),
            CmpKind::Lt => (VOp::CmpLtPs, x, y),
            CmpKind::Le => (VOp::CmpLePs, x, y),
            CmpKind::Gt => (VOp::CmpLtPs, y, x),
            CmpKind::Ge => (VOp::CmpLePs, y, x),
            CmpKind::True => (VOp::CmpEqPs, x, x), // handled above
        };
        self.vop_opnd(op, r, p, q);
        self.finish(d, r);
    }

    pub(super) fn select(&mut self, d: Var, m: Var, a: Var, b: Var) {
        let mm = self.src(m, S0);
        let x = self.src(a, S1);
        let y = self.src(b, S2);
        let r = self.dst(d);
        asm::select(&mut self.ops, self.tier, r, mm, x, y);
        self.finish(d, r);
    }

    /// MOVA's conversion: truncate, saturate (CVTTPS2DQ gives 0x80000000 for NaN and out of
    /// range; lanes ≥ 2^31 are flipped to 0x7FFFFFFF) and NaN → 0.
    pub(super) fn ftoi_sat(&mut self, d: Var, a: Var) {
        let x = self.src(a, S0);
        let t = self.tier;
        asm::cvtt_ps2dq(&mut self.ops, t, S2, x);
        self.load_f32(S3, 2_147_483_648.0);
        asm::vop(&mut self.ops, t, VOp::CmpLePs, S3, S3, x);
        asm::vop(&mut self.ops, t, VOp::XorPs, S2, S2, S3);
        asm::vop(&mut self.ops, t, VOp::CmpOrdPs, S3, x, x);
        let r = self.dst(d);
        asm::vop(&mut self.ops, t, VOp::AndPs, r, S2, S3);
        self.finish(d, r);
    }
}
