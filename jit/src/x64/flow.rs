//! Terminators and the batch-scalar control state: LOOP slots, aL, the step budget.

use super::asm;
use super::asm::Mem;
use super::{Emitter, S0, S1, S2};
use crate::abi;
use crate::ir::{BlockId, Terminator, Var};

impl Emitter<'_> {
    /// Ends block `b`; `next` is the block emitted after it (a jump there is omitted).
    pub(super) fn terminator(&mut self, b: BlockId, next: Option<BlockId>) {
        let term = self.func_term(b);
        match term {
            Terminator::Jump(t) => self.jump_unless_next(t, next),
            Terminator::BranchBool { id, then, other } => {
                let l = self.label(then);
                asm::scalar::jump_if_bit(&mut self.ops, abi::BOOLS, id, l);
                self.jump_unless_next(other, next);
            }
            Terminator::BranchUniform { mask, then, other } => {
                let m = self.src(mask, S0);
                asm::lane0_to_eax(&mut self.ops, self.tier, m);
                let l = self.label(then);
                asm::scalar::jump_if_eax(&mut self.ops, l);
                self.jump_unless_next(other, next);
            }
            Terminator::BranchAny { mask, then, other } => {
                let m = self.src(mask, S0);
                let l = self.label(then);
                asm::jump_if_any(&mut self.ops, self.tier, m, l);
                self.jump_unless_next(other, next);
            }
            Terminator::LoopNext { slot, repeat, exit } => {
                let (r, e) = (self.label(repeat), self.label(exit));
                asm::scalar::loop_next(&mut self.ops, abi::loop_down(u32::from(slot)), r, e);
            }
            Terminator::Exit => {
                let l = self.batch_end;
                asm::scalar::jump(&mut self.ops, l);
            }
        }
    }

    fn func_term(&self, b: BlockId) -> Terminator {
        self.func.blocks[b.0 as usize].term
    }

    fn jump_unless_next(&mut self, target: BlockId, next: Option<BlockId>) {
        if next != Some(target) {
            let l = self.label(target);
            asm::scalar::jump(&mut self.ops, l);
        }
    }

    pub(super) fn loop_push(&mut self, slot: u32, int_id: u32) {
        let ints = abi::INTS + (int_id & 3) as i32 * 4;
        let ops = &mut self.ops;
        asm::scalar::load_eax(ops, abi::AL);
        asm::scalar::store_eax(ops, abi::loop_saved_al(slot));
        asm::scalar::load_byte_eax(ops, ints);
        asm::scalar::store_eax(ops, abi::loop_down(slot));
        asm::scalar::load_byte_eax(ops, ints + 2);
        asm::scalar::store_eax(ops, abi::loop_inc(slot));
        asm::scalar::load_byte_eax(ops, ints + 1);
        asm::scalar::store_eax(ops, abi::AL);
    }

    pub(super) fn al_inc(&mut self, slot: u32) {
        asm::scalar::load_eax(&mut self.ops, abi::loop_inc(slot));
        asm::scalar::add_eax_to(&mut self.ops, abi::AL);
    }

    pub(super) fn al_restore(&mut self, slot: u32) {
        asm::scalar::load_eax(&mut self.ops, abi::loop_saved_al(slot));
        asm::scalar::store_eax(&mut self.ops, abi::AL);
    }

    /// Spends a unit of budget; none left: status 1 in every lane (`Op::Budget`).
    pub(super) fn budget(&mut self) {
        let l = self.exhausted;
        asm::scalar::budget(&mut self.ops, abi::BUDGET, l);
    }

    /// EMIT's slot copy (`Op::EmitSlot`): for the lanes of `mask`, the current bank → emitter
    /// slot `slot`, skipped when no lane is set. Only the output registers the function writes
    /// are copied (the others stay 0.0 in every slot, and the host reads only these from
    /// triangle records).
    pub(super) fn emit_slot(&mut self, mask: Var, slot: u32) {
        let t = self.tier;
        let m = self.src(mask, S0);
        let skip = self.ops.new_dynamic_label();
        asm::movmsk_eax(&mut self.ops, t, m);
        asm::scalar::jump_if_eax_zero(&mut self.ops, skip);
        let base = abi::EMIT_SLOTS + (slot & 3) as i32 * abi::SLOT_BYTES;
        for r in (0..16).filter(|r| self.outputs >> r & 1 != 0) {
            for c in 0..4 {
                let disp = (r * 4 + c) * 64;
                asm::load_bank(&mut self.ops, t, S1, disp);
                asm::load(&mut self.ops, t, S2, Mem::Ctx(base + disp));
                asm::select(&mut self.ops, t, S2, m, S1, S2);
                asm::store(&mut self.ops, t, base + disp, S2);
            }
        }
        asm::scalar::bind(&mut self.ops, skip);
    }

    /// EMIT's triangle (`Op::EmitTri`): if some lane of `lanes` is set, slots 0–2 → the next
    /// triangle record with its two mask words (`lanes`, `winding`), or status 2 when the
    /// batch's buffer is full.
    pub(super) fn emit_tri(&mut self, lanes: Var, winding: Var) {
        let t = self.tier;
        let m = self.src(lanes, S0);
        let skip = self.ops.new_dynamic_label();
        asm::movmsk_eax(&mut self.ops, t, m);
        asm::scalar::jump_if_eax_zero(&mut self.ops, skip);
        let overflow = self.overflow;
        asm::scalar::triangle_address(&mut self.ops, overflow);
        for s in 0..3 {
            for r in (0..16).filter(|r| self.outputs >> r & 1 != 0) {
                let at = s * abi::SLOT_BYTES + r * 4 * 64;
                asm::copy_ctx_to_rdx(&mut self.ops, t, S1, abi::EMIT_SLOTS + at, at, 4);
            }
        }
        let m = self.src(lanes, S0);
        asm::movmsk_eax(&mut self.ops, t, m);
        asm::scalar::triangle_mask(&mut self.ops, abi::IO_MASKS, 0);
        let w = self.src(winding, S0);
        asm::movmsk_eax(&mut self.ops, t, w);
        asm::scalar::triangle_mask(&mut self.ops, abi::IO_MASKS, 1);
        asm::scalar::count_triangle(&mut self.ops, abi::EMIT_COUNT);
        asm::scalar::bind(&mut self.ops, skip);
    }
}
