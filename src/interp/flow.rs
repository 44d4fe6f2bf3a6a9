//! One interpreter step: dispatch on the decoded instruction (exhaustive over every opcode),
//! flow control with the bounded circular stacks, then scope closing against `old_pc + 1` in the
//! order CALL (up to four pops, the fourth leaving the pc alone), IF, LOOP — exactly as
//! the module docs of [`crate::interp`] state, with the nested-loop aL fix — and the
//! backward-transfer budget.

use crate::isa::{CondOp, Control, Fmt2, Fmt3b, Kind};
use crate::program::VertexStatus;

use super::state::{CallEntry, IfEntry, LoopEntry, Machine, Primitive};

impl Machine<'_> {
    fn condition(&self, f: &Fmt2) -> bool {
        let ok_x = self.cc[0] == f.refx;
        let ok_y = self.cc[1] == f.refy;
        match f.condop {
            CondOp::Or => ok_x || ok_y,
            CondOp::And => ok_x && ok_y,
            CondOp::X => ok_x,
            CondOp::Y => ok_y,
        }
    }

    fn bool_uniform(&self, f: &Fmt3b) -> bool {
        self.uniforms.bool(f.id)
    }

    fn push_call(&mut self, dest: u16, num: u8, next: &mut u32) {
        self.call_stack.push(CallEntry {
            end_addr: u32::from(dest) + u32::from(num),
            return_addr: self.pc + 1,
        });
        *next = u32::from(dest);
    }

    fn do_if(&mut self, cond: bool, dest: u16, num: u8, next: &mut u32) {
        if cond {
            self.if_stack.push(IfEntry {
                else_addr: u32::from(dest),
                end_addr: u32::from(dest) + u32::from(num),
            });
        } else {
            *next = u32::from(dest);
        }
    }

    /// Executes the instruction at `pc`; returns a status when the invocation stops.
    pub(super) fn step(&mut self) -> Option<VertexStatus> {
        let old_pc = self.pc;
        let instr = self.prog.code[old_pc as usize];
        let mut next = old_pc + 1;
        let mut is_break = false;
        match instr.kind() {
            Kind::Alu(math, ops) => self.alu(math, &ops),
            Kind::Nop | Kind::Undefined(_) => {}
            Kind::Control(Control::End) => return Some(VertexStatus::Ended),
            Kind::Control(Control::Break) => is_break = true,
            Kind::Control(Control::Breakc(f)) => is_break = self.condition(&f),
            Kind::Control(Control::Jmpc(f)) => {
                if self.condition(&f) {
                    next = u32::from(f.dest);
                }
            }
            Kind::Control(Control::Jmpu(f)) => {
                if self.bool_uniform(&f) == (f.num & 1 == 0) {
                    next = u32::from(f.dest);
                }
            }
            Kind::Control(Control::Call(f)) => self.push_call(f.dest, f.num, &mut next),
            Kind::Control(Control::Callc(f)) => {
                if self.condition(&f) {
                    self.push_call(f.dest, f.num, &mut next);
                }
            }
            Kind::Control(Control::Callu(f)) => {
                if self.bool_uniform(&f) {
                    self.push_call(f.dest, f.num, &mut next);
                }
            }
            Kind::Control(Control::Ifu(f)) => {
                let cond = self.bool_uniform(&f);
                self.do_if(cond, f.dest, f.num, &mut next);
            }
            Kind::Control(Control::Ifc(f)) => {
                let cond = self.condition(&f);
                self.do_if(cond, f.dest, f.num, &mut next);
            }
            Kind::Control(Control::Loop(f)) => {
                let [count, start, step, _] = self.uniforms.i[f.id as usize & 3];
                self.loop_stack.push(LoopEntry {
                    entry_addr: old_pc + 1,
                    end_addr: u32::from(f.dest) + 1,
                    down: count,
                    inc: step,
                    saved_al: self.al,
                });
                self.al = i32::from(start);
            }
            Kind::Emit => {
                if self.is_geometry() {
                    let slot = self.emit_vertex as usize & 3;
                    self.emit_slots[slot] = self.o[self.bank];
                    if self.emit_primitive {
                        self.primitives.push(Primitive {
                            vertices: [self.emit_slots[0], self.emit_slots[1], self.emit_slots[2]],
                            winding: self.emit_winding,
                        });
                    }
                    self.bank ^= 1;
                }
            }
            Kind::Setemit(f) => {
                if self.is_geometry() {
                    self.emit_vertex = f.vertex;
                    self.emit_primitive = f.primitive;
                    self.emit_winding = f.winding;
                }
            }
        }
        self.close_scopes(old_pc, is_break, &mut next);
        if next <= old_pc && !self.take_budget() {
            return Some(VertexStatus::BudgetExhausted);
        }
        self.pc = next;
        None
    }

    /// Scope closing after the instruction at `old_pc`. Later stacks overwrite
    /// the pc chosen by earlier ones, so a jump by a scope's last instruction is not taken.
    fn close_scopes(&mut self, old_pc: u32, is_break: bool, next: &mut u32) {
        let after = old_pc + 1;
        let mut check = after;
        for pops in 0..4 {
            match self.call_stack.top() {
                Some(top) if top.end_addr == check => {
                    // Popping four CALL scopes in one step leaves the pc of the third.
                    if pops < 3 {
                        *next = top.return_addr;
                        check = top.return_addr;
                    }
                    self.call_stack.pop();
                }
                _ => break,
            }
        }
        if let Some(top) = self.if_stack.top() {
            if top.else_addr == after {
                *next = top.end_addr;
                self.if_stack.pop();
            }
        }
        let nested = self.loop_stack.len() > 1;
        if let Some(top) = self.loop_stack.top_mut() {
            if top.end_addr == after || is_break {
                self.al = self.al.wrapping_add(i32::from(top.inc));
                if !is_break && top.down != 0 {
                    top.down -= 1;
                    *next = top.entry_addr;
                } else {
                    *next = top.end_addr;
                    if nested {
                        self.al = top.saved_al;
                    }
                    self.loop_stack.pop();
                }
            }
        }
    }
}
