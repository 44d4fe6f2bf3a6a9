//! Terminators and the batch-scalar control state: LOOP slots, aL, the step budget. Scalars
//! stay in the context (as on x86-64); `w9`/`w10` are the scratch registers.

use super::asm;
use super::{Emitter, S0, S1, S3};
use crate::abi;
use crate::ir::{BlockId, Terminator, Var};

impl Emitter<'_> {
    /// Ends block `b`; `next` is the block emitted after it (a jump there is omitted).
    pub(super) fn terminator(&mut self, b: BlockId, next: Option<BlockId>) {
        let term = self.func.blocks[b.0 as usize].term;
        match term {
            Terminator::Jump(t) => self.jump_unless_next(t, next),
            Terminator::BranchBool { id, then, other } => {
                let a = self.ctx(abi::BOOLS, 4);
                asm::scalar::load_w(&mut self.ops, 9, a);
                let l = self.label(then);
                asm::scalar::jump_if_bit(&mut self.ops, 9, u32::from(id), l);
                self.jump_unless_next(other, next);
            }
            Terminator::BranchUniform { mask, then, other } => {
                let m = self.src(mask, S0);
                asm::lane_to_w(&mut self.ops, 9, m, 0);
                let l = self.label(then);
                asm::scalar::jump_if_nonzero(&mut self.ops, 9, l);
                self.jump_unless_next(other, next);
            }
            Terminator::BranchAny { mask, then, other } => {
                let m = self.src(mask, S0);
                let l = self.label(then);
                asm::jump_if_any(&mut self.ops, m, l);
                self.jump_unless_next(other, next);
            }
            Terminator::LoopNext { slot, repeat, exit } => {
                let (r, e) = (self.label(repeat), self.label(exit));
                let a = self.ctx(abi::loop_down(u32::from(slot)), 4);
                asm::scalar::load_w(&mut self.ops, 9, a);
                asm::scalar::jump_if_zero(&mut self.ops, 9, e);
                asm::scalar::sub_w_imm(&mut self.ops, 9, 9, 1);
                asm::scalar::store_w(&mut self.ops, 9, a);
                asm::scalar::jump(&mut self.ops, r);
            }
            // The store stub sits after the batch loop (exits that store the outputs themselves
            // never get here).
            Terminator::Exit => {
                let l = self.batch_end;
                asm::scalar::jump(&mut self.ops, l);
            }
        }
    }

    fn jump_unless_next(&mut self, target: BlockId, next: Option<BlockId>) {
        if next != Some(target) {
            let l = self.label(target);
            asm::scalar::jump(&mut self.ops, l);
        }
    }

    /// Per batch: budget = the run's budget (if `state.budget`), aL = 0 (if `state.al`), the
    /// status word = 0 (if `state.status`).
    pub(super) fn batch_reset(&mut self, state: &crate::kernel::BatchState) {
        if state.budget {
            let init = self.ctx(abi::IO_BUDGET, 4);
            asm::scalar::load_w(&mut self.ops, 9, init);
            let budget = self.ctx(abi::BUDGET, 4);
            asm::scalar::store_w(&mut self.ops, 9, budget);
        }
        if state.al {
            let al = self.ctx(abi::AL, 4);
            asm::scalar::store_zero_w(&mut self.ops, al);
        }
        if state.status {
            let status = self.ctx(abi::STATUS, 4);
            asm::scalar::store_zero_w(&mut self.ops, status);
        }
    }

    /// Saves aL in the slot, loads count/step of int uniform `int_id` into it, aL = start.
    /// The int uniform is one 32-bit word of (count, start, step, unused) bytes.
    pub(super) fn loop_push(&mut self, slot: u32, int_id: u32) {
        let al = self.ctx(abi::AL, 4);
        asm::scalar::load_w(&mut self.ops, 9, al);
        let saved = self.ctx(abi::loop_saved_al(slot), 4);
        asm::scalar::store_w(&mut self.ops, 9, saved);
        let ints = self.ctx(abi::INTS + (int_id & 3) as i32 * 4, 4);
        asm::scalar::load_w(&mut self.ops, 10, ints);
        asm::scalar::ubfx(&mut self.ops, 9, 10, 0, 8);
        let down = self.ctx(abi::loop_down(slot), 4);
        asm::scalar::store_w(&mut self.ops, 9, down);
        asm::scalar::ubfx(&mut self.ops, 9, 10, 16, 8);
        let inc = self.ctx(abi::loop_inc(slot), 4);
        asm::scalar::store_w(&mut self.ops, 9, inc);
        asm::scalar::ubfx(&mut self.ops, 9, 10, 8, 8);
        let al = self.ctx(abi::AL, 4);
        asm::scalar::store_w(&mut self.ops, 9, al);
    }

    pub(super) fn al_inc(&mut self, slot: u32) {
        let inc = self.ctx(abi::loop_inc(slot), 4);
        asm::scalar::load_w(&mut self.ops, 9, inc);
        let al = self.ctx(abi::AL, 4);
        asm::scalar::load_w(&mut self.ops, 10, al);
        asm::scalar::add_w(&mut self.ops, 10, 10, 9);
        asm::scalar::store_w(&mut self.ops, 10, al);
    }

    pub(super) fn al_restore(&mut self, slot: u32) {
        let saved = self.ctx(abi::loop_saved_al(slot), 4);
        asm::scalar::load_w(&mut self.ops, 9, saved);
        let al = self.ctx(abi::AL, 4);
        asm::scalar::store_w(&mut self.ops, 9, al);
    }

    /// If the budget is 0, stop with "exhausted" in every lane; else decrement it.
    pub(super) fn budget(&mut self) {
        let a = self.ctx(abi::BUDGET, 4);
        asm::scalar::load_w(&mut self.ops, 9, a);
        let l = self.exhausted;
        asm::scalar::jump_if_zero(&mut self.ops, 9, l);
        asm::scalar::sub_w_imm(&mut self.ops, 9, 9, 1);
        asm::scalar::store_w(&mut self.ops, 9, a);
    }

    /// EMIT's slot copy (`Op::EmitSlot`): for the lanes of `mask`, the current bank (`x7`) →
    /// emitter slot `slot`, skipped when no lane is set. Only the output registers the function
    /// writes are copied.
    pub(super) fn emit_slot(&mut self, mask: Var, slot: u32) {
        let m = self.src(mask, S0);
        // w9 = the mask's lanes (through S2).
        self.lane_bits(m);
        let skip = self.ops.new_dynamic_label();
        asm::scalar::jump_if_zero(&mut self.ops, 9, skip);
        let base = abi::EMIT_SLOTS as u32 + (slot & 3) * abi::SLOT_BYTES as u32;
        asm::scalar::ctx_pointer(&mut self.ops, 10, base);
        for r in (0..16u32).filter(|r| self.outputs >> r & 1 != 0) {
            for c in 0..4 {
                let disp = (r * 4 + c) * 64;
                asm::load_q_at(&mut self.ops, S1, 7, disp);
                asm::load_q_at(&mut self.ops, S3, 10, disp);
                asm::select(&mut self.ops, S3, m, S1, S3);
                asm::store_q_at(&mut self.ops, S3, 10, disp);
            }
        }
        asm::scalar::bind(&mut self.ops, skip);
    }

    /// EMIT's triangle (`Op::EmitTri`): if some lane of `lanes` is set, slots 0–2 → the next
    /// triangle record and its two mask words (`lanes`, `winding`), or status 2 when the
    /// batch's buffer is full.
    pub(super) fn emit_tri(&mut self, lanes: Var, winding: Var) {
        let m = self.src(lanes, S0);
        self.lane_bits(m);
        let skip = self.ops.new_dynamic_label();
        asm::scalar::jump_if_zero(&mut self.ops, 9, skip);
        // w10 = count; x12 = its record.
        let a = self.ctx(abi::EMIT_COUNT, 4);
        asm::scalar::load_w(&mut self.ops, 10, a);
        let a = self.ctx(abi::IO_TRIANGLE_CAPACITY, 8);
        asm::scalar::load_x(&mut self.ops, 11, a);
        let overflow = self.overflow;
        asm::scalar::jump_if_x_hs(&mut self.ops, 10, 11, overflow);
        let a = self.ctx(abi::IO_TRIANGLES, 8);
        asm::scalar::load_x(&mut self.ops, 12, a);
        debug_assert_eq!(abi::TRIANGLE_BYTES, 3 << 12);
        asm::scalar::add_x_shifted(&mut self.ops, 13, 10, 10, 1);
        asm::scalar::add_x_shifted(&mut self.ops, 12, 12, 13, 12);
        asm::scalar::ctx_pointer(&mut self.ops, 14, abi::EMIT_SLOTS as u32);
        for s in 0..3 {
            for r in (0..16u32).filter(|r| self.outputs >> r & 1 != 0) {
                let at = s * abi::SLOT_BYTES as u32 + r * 4 * 64;
                asm::copy_rows(&mut self.ops, S1, 14, at, 12, at, 4);
            }
        }
        // x11 = the record's two mask words: the lanes (still in w9), the winding lanes.
        let a = self.ctx(abi::IO_MASKS, 8);
        asm::scalar::load_x(&mut self.ops, 11, a);
        asm::scalar::add_x_shifted(&mut self.ops, 11, 11, 10, 2);
        asm::scalar::store_half_at(&mut self.ops, 9, 11, 0);
        let w = self.src(winding, S0);
        self.lane_bits(w);
        asm::scalar::store_half_at(&mut self.ops, 9, 11, 2);
        asm::scalar::add_w_imm(&mut self.ops, 10, 10, 1);
        let a = self.ctx(abi::EMIT_COUNT, 4);
        asm::scalar::store_w(&mut self.ops, 10, a);
        asm::scalar::bind(&mut self.ops, skip);
    }
}
