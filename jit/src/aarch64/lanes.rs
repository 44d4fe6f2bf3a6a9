//! The per-lane state of the lane-position model (`frontend::lanes`): integer lanes from the
//! int and bool uniforms and the budget, uniform reads at the offset of a lane the mask picks,
//! and lane retirement (outputs kept, statuses accumulated in the batch status word).

use super::asm::{self, VOp};
use super::{Emitter, S0, S1, S2};
use crate::abi;
use crate::ir::Var;
use crate::regalloc::Loc;

/// Scratch lanes holding an offset vector for [`Emitter::uniform_lead`].
const LEAD_LANES: u32 = 4;

impl Emitter<'_> {
    /// Byte `field` of int uniform `id`, zero-extended, in every lane.
    pub(super) fn int_uniform(&mut self, d: Var, id: u32, field: u32) {
        let a = self.ctx(abi::INTS + ((id & 3) * 4 + field % 3) as i32, 1);
        asm::scalar::load_byte(&mut self.ops, 9, a);
        let r = self.dst(d);
        asm::dup_w(&mut self.ops, r, 9);
        self.finish(d, r);
    }

    /// The signed minimum over the lanes of `a`, in every lane.
    pub(super) fn lane_min(&mut self, d: Var, a: Var) {
        let s = self.src(a, S0);
        let r = self.dst(d);
        asm::lane_min(&mut self.ops, r, s);
        self.finish(d, r);
    }

    /// Bool uniform `id` as a mask in every lane.
    pub(super) fn bool_mask(&mut self, d: Var, id: u32) {
        let a = self.ctx(abi::BOOLS, 4);
        asm::scalar::load_w(&mut self.ops, 9, a);
        asm::scalar::ubfx(&mut self.ops, 9, 9, id & 31, 1);
        asm::scalar::neg_w(&mut self.ops, 9);
        let r = self.dst(d);
        asm::dup_w(&mut self.ops, r, 9);
        self.finish(d, r);
    }

    /// The batch's starting budget in every lane.
    pub(super) fn budget_lanes(&mut self, d: Var) {
        let a = self.ctx(abi::IO_BUDGET, 4);
        asm::scalar::load_w(&mut self.ops, 9, a);
        let r = self.dst(d);
        asm::dup_w(&mut self.ops, r, 9);
        self.finish(d, r);
    }

    /// `w9` = the lanes of mask `m` as bits (lane l → bit l).
    pub(super) fn lane_bits(&mut self, m: u8) {
        let l = self.const_row([1, 2, 4, 8]);
        asm::load_const(&mut self.ops, S2, l);
        asm::vop(&mut self.ops, VOp::And, S2, m, S2);
        asm::add_lanes_w(&mut self.ops, 9, S2);
    }

    /// The uniform component at `base` + the offset of the first lane of `mask` (lane 0 if
    /// none), broadcast: the lane index from the mask, the lane's offset from the vector (in
    /// scratch, or its spill slot), then the scalar offset rule and an LD1R.
    pub(super) fn uniform_lead(&mut self, d: Var, off: Var, mask: Var, base: u32, comp: u32) {
        let m = self.src(mask, S0);
        self.lane_bits(m);
        asm::scalar::lowest_lane(&mut self.ops, 9);
        let lanes = match self.loc(off) {
            Loc::Spill(slot) => abi::spill_offset(slot),
            // (`Remat` is never allocated here.)
            Loc::Reg(_) | Loc::Remat | Loc::Unused => {
                let o = self.src(off, S1);
                let a = self.ctx(abi::scratch_offset(LEAD_LANES), 16);
                asm::store_q(&mut self.ops, o, a);
                abi::scratch_offset(LEAD_LANES)
            }
        };
        asm::scalar::ctx_pointer(&mut self.ops, 10, lanes as u32);
        asm::scalar::load_w_indexed(&mut self.ops, 9, 10, 9);
        asm::scalar::offset_rule(&mut self.ops, 9, 10);
        asm::scalar::add_w_imm(&mut self.ops, 9, 9, base & 0x7F);
        asm::scalar::and_7f(&mut self.ops, 9);
        self.uniform_base(comp);
        asm::scalar::add_row_index(&mut self.ops, 10, 11, 9);
        let r = self.dst(d);
        asm::load_broadcast(&mut self.ops, r, 10);
        self.finish(d, r);
    }

    /// The lanes of `mask` end: the current bank's output registers the function writes are
    /// blended into the retired outputs where the mask is set; with `status` 1 their bits go
    /// into the batch status word.
    pub(super) fn retire(&mut self, mask: Var, status: u32) {
        let m = self.src(mask, S0);
        let outputs = self.outputs;
        for r in (0..16u32).filter(|r| outputs >> r & 1 != 0) {
            for c in 0..4 {
                let disp = (r * 4 + c) * 64;
                asm::load_q_at(&mut self.ops, S1, 7, disp);
                let a = self.ctx(abi::RETIRED + disp as i32, 16);
                asm::load_q(&mut self.ops, S2, a);
                asm::select(&mut self.ops, S2, m, S1, S2);
                let a = self.ctx(abi::RETIRED + disp as i32, 16);
                asm::store_q(&mut self.ops, S2, a);
            }
        }
        if status == 1 {
            self.lane_bits(m);
            let a = self.ctx(abi::STATUS, 4);
            asm::scalar::load_w(&mut self.ops, 10, a);
            asm::scalar::orr_w(&mut self.ops, 10, 10, 9);
            let a = self.ctx(abi::STATUS, 4);
            asm::scalar::store_w(&mut self.ops, 10, a);
        }
    }
}
