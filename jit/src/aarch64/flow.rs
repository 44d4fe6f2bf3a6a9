//! Terminators and the batch-scalar control state: LOOP slots, aL, the step budget. Scalars
//! stay in the context (as on x86-64); `w9`/`w10` are the scratch registers.

use super::asm;
use super::{Emitter, S0};
use crate::abi;
use crate::ir::{BlockId, Terminator};

impl Emitter<'_> {
    /// Ends block `b`; `next` is the block emitted after it (a jump there is omitted).
    pub(super) fn terminator(&mut self, b: BlockId, next: Option<BlockId>) {
        let term = self.func.blocks[b.0 as usize].term;
        match term {
            Terminator::Jump(t) => self.jump_unless_next(t, next),
            // Refused by `compile` before any code is emitted.
            Terminator::BranchAgree { .. } => {}
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
            Terminator::LoopNext { slot, repeat, exit } => {
                let (r, e) = (self.label(repeat), self.label(exit));
                let a = self.ctx(abi::loop_down(u32::from(slot)), 4);
                asm::scalar::load_w(&mut self.ops, 9, a);
                asm::scalar::jump_if_zero(&mut self.ops, 9, e);
                asm::scalar::sub_w_imm(&mut self.ops, 9, 9, 1);
                asm::scalar::store_w(&mut self.ops, 9, a);
                asm::scalar::jump(&mut self.ops, r);
            }
            // The batch tail follows the last block.
            Terminator::Exit if next.is_none() => {}
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

    /// Per batch: budget = the run's budget, aL = 0.
    pub(super) fn batch_reset(&mut self) {
        let init = self.ctx(abi::IO_BUDGET, 4);
        asm::scalar::load_w(&mut self.ops, 9, init);
        let budget = self.ctx(abi::BUDGET, 4);
        asm::scalar::store_w(&mut self.ops, 9, budget);
        let al = self.ctx(abi::AL, 4);
        asm::scalar::store_zero_w(&mut self.ops, al);
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

    /// If the budget is 0, stop with "exhausted"; else decrement it.
    pub(super) fn budget(&mut self) {
        let a = self.ctx(abi::BUDGET, 4);
        asm::scalar::load_w(&mut self.ops, 9, a);
        let l = self.exhausted;
        asm::scalar::jump_if_zero(&mut self.ops, 9, l);
        asm::scalar::sub_w_imm(&mut self.ops, 9, 9, 1);
        asm::scalar::store_w(&mut self.ops, 9, a);
    }
}
