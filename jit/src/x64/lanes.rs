//! The per-lane state of the lane-position model (`frontend::lanes`): integer lanes from the
//! int and bool uniforms and the budget, uniform reads at the offset of a lane the mask picks,
//! and lane retirement (outputs kept, statuses accumulated in the batch status word).

use super::asm::{self, Mem};
use super::{Emitter, S0, S1, S2};
use crate::abi;
use crate::ir::Var;

/// Scratch lanes holding an offset vector for [`Emitter::uniform_lead`].
const LEAD_LANES: u32 = 4;

impl Emitter<'_> {
    /// Byte `field` of int uniform `id`, zero-extended, in every lane.
    pub(super) fn int_uniform(&mut self, d: Var, id: u32, field: u32) {
        asm::scalar::load_byte_eax(&mut self.ops, abi::INTS + ((id & 3) * 4 + field % 3) as i32);
        let r = self.dst(d);
        asm::broadcast_eax(&mut self.ops, self.tier, r);
        self.finish(d, r);
    }

    /// The signed minimum over the lanes of `a`, in every lane.
    pub(super) fn lane_min(&mut self, d: Var, a: Var) {
        let s = self.src(a, S0);
        let r = self.dst(d);
        asm::lane_min(&mut self.ops, self.tier, r, s);
        self.finish(d, r);
    }

    /// Bool uniform `id` as a mask in every lane.
    pub(super) fn bool_mask(&mut self, d: Var, id: u32) {
        asm::scalar::bit_mask_eax(&mut self.ops, abi::BOOLS, id as u8);
        let r = self.dst(d);
        asm::broadcast_eax(&mut self.ops, self.tier, r);
        self.finish(d, r);
    }

    /// The batch's starting budget in every lane.
    pub(super) fn budget_lanes(&mut self, d: Var) {
        asm::scalar::load_eax(&mut self.ops, abi::IO_BUDGET);
        let r = self.dst(d);
        asm::broadcast_eax(&mut self.ops, self.tier, r);
        self.finish(d, r);
    }

    /// The uniform component at `base` + the offset of the first lane of `mask` (lane 0 if
    /// none), broadcast: the lane index from the mask's sign bits, the lane's offset from the
    /// vector (in scratch, or its spill slot), then the scalar offset rule.
    pub(super) fn uniform_lead(&mut self, d: Var, off: Var, mask: Var, base: u32, comp: u32) {
        let t = self.tier;
        let m = self.src(mask, S0);
        asm::movmsk_eax(&mut self.ops, t, m);
        asm::scalar::lowest_bit_ecx(&mut self.ops);
        let lanes = match self.alloc.locs[off.0 as usize] {
            crate::regalloc::Loc::Spill(slot) => abi::spill_offset(slot),
            crate::regalloc::Loc::Reg(_)
            | crate::regalloc::Loc::Remat
            | crate::regalloc::Loc::Unused => {
                let o = self.src(off, S1);
                asm::store(&mut self.ops, t, abi::scratch_offset(LEAD_LANES), o);
                abi::scratch_offset(LEAD_LANES)
            }
        };
        asm::scalar::load_lane_eax(&mut self.ops, lanes);
        asm::scalar::uniform_row_offset(&mut self.ops, (base & 0x7F) as i32);
        let r = self.dst(d);
        asm::broadcast(
            &mut self.ops,
            t,
            r,
            Mem::CtxRax(abi::UNIFORMS + (comp & 3) as i32 * 4),
        );
        self.finish(d, r);
    }

    /// The lanes of `mask` end: the current bank's output registers the function writes are
    /// blended into the retired outputs where the mask is set; with `status` 1 their bits go
    /// into the batch status word.
    pub(super) fn retire(&mut self, mask: Var, status: u32) {
        let t = self.tier;
        let m = self.src(mask, S0);
        let outputs = self.outputs;
        for r in (0..16).filter(|r| outputs >> r & 1 != 0) {
            for c in 0..4 {
                let disp = (r * 4 + c) * 64;
                asm::load_bank(&mut self.ops, t, S1, disp);
                asm::load(&mut self.ops, t, S2, Mem::Ctx(abi::RETIRED + disp));
                asm::select(&mut self.ops, t, S2, m, S1, S2);
                asm::store(&mut self.ops, t, abi::RETIRED + disp, S2);
            }
        }
        if status == 1 {
            asm::movmsk_eax(&mut self.ops, t, m);
            asm::scalar::or_eax_to(&mut self.ops, abi::STATUS);
        }
    }
}
