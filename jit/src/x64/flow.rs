//! Terminators and the batch-scalar control state: LOOP slots, aL, the step budget.

use super::asm;
use super::{Emitter, S0};
use crate::abi;
use crate::ir::{BlockId, Terminator};

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
            Terminator::BranchAgree { mask, then, other } => {
                let m = self.src(mask, S0);
                asm::ones(&mut self.ops, self.tier, super::S1);
                let (t, o, d) = (self.label(then), self.label(other), self.diverged);
                asm::branch_agree(&mut self.ops, self.tier, m, super::S1, t, o, d);
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

    /// Spends a unit of budget; none left: status 3 (`status == 3`, see `Op::Budget`) or 1.
    pub(super) fn budget(&mut self, status: u32) {
        let l = if status == 3 {
            self.diverged
        } else {
            self.exhausted
        };
        asm::scalar::budget(&mut self.ops, abi::BUDGET, l);
    }

    pub(super) fn set_emit(&mut self, vertex: u32, flags: u32) {
        asm::scalar::store_imm(&mut self.ops, abi::EMIT_VERTEX, (vertex & 3) as i32);
        asm::scalar::store_imm(&mut self.ops, abi::EMIT_FLAGS, (flags & 3) as i32);
    }

    /// EMIT: current bank → emitter slot; with the primitive flag, slots 0–2 → the next
    /// triangle record (or status 2 when the batch's buffer is full); then switch banks. Only
    /// the output registers the function writes are copied (the others stay 0.0 in every bank
    /// and the host reads only these from triangle records).
    pub(super) fn emit(&mut self) {
        let t = self.tier;
        asm::scalar::slot_address(
            &mut self.ops,
            abi::EMIT_VERTEX,
            abi::SLOT_BYTES,
            abi::EMIT_SLOTS,
        );
        let regs: Vec<i32> = (0..16).filter(|r| self.outputs >> r & 1 != 0).collect();
        for &r in &regs {
            asm::copy_bank_to_rax(&mut self.ops, t, super::S0, r * 4, 4);
        }
        let skip = self.ops.new_dynamic_label();
        let overflow = self.overflow;
        asm::scalar::triangle_address(&mut self.ops, skip, overflow);
        for s in 0..3 {
            for &r in &regs {
                let at = s * abi::SLOT_BYTES + r * 4 * 64;
                asm::copy_ctx_to_rdx(&mut self.ops, t, super::S0, abi::EMIT_SLOTS + at, at, 4);
            }
        }
        asm::scalar::finish_triangle(
            &mut self.ops,
            abi::EMIT_FLAGS,
            abi::IO_WINDINGS,
            abi::EMIT_COUNT,
        );
        asm::scalar::bind(&mut self.ops, skip);
        asm::scalar::switch_bank(&mut self.ops, abi::OUTPUT_BANK0, abi::OUTPUT_BANK1);
    }
}
