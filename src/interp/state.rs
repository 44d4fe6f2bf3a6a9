//! The state of one invocation: registers, output banks, the three bounded circular control
//! stacks, the emitter and the remaining budget; and the run loop that steps it.

use crate::isa::{AddrIdx, OpDesc, Src, SrcKind};
use crate::program::{Regs16, ShaderKind, Uniforms, Vec4, VertexStatus, FLOAT_UNIFORMS};

use super::{Interpreter, Invocation, LAST_SLOT};

/// A triangle emitted by a geometry shader: emitter slots 0, 1, 2 and the winding flag.
#[derive(Clone, Debug, PartialEq)]
pub struct Primitive {
    pub vertices: [Regs16; 3],
    pub winding: bool,
}

/// A bounded stack that, when full, drops its oldest entry to make room.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ring<T: Copy + Default, const N: usize> {
    items: [T; N],
    len: usize,
}

impl<T: Copy + Default, const N: usize> Ring<T, N> {
    fn new() -> Self {
        Ring {
            items: [T::default(); N],
            len: 0,
        }
    }
    pub(super) fn push(&mut self, item: T) {
        if self.len == N {
            self.items.copy_within(1.., 0);
            self.items[N - 1] = item;
        } else {
            self.items[self.len] = item;
            self.len += 1;
        }
    }
    pub(super) fn top(&self) -> Option<&T> {
        self.len.checked_sub(1).map(|i| &self.items[i])
    }
    pub(super) fn top_mut(&mut self) -> Option<&mut T> {
        self.len.checked_sub(1).map(|i| &mut self.items[i])
    }
    pub(super) fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }
    pub(super) fn len(&self) -> usize {
        self.len
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct IfEntry {
    pub(super) else_addr: u32,
    pub(super) end_addr: u32,
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CallEntry {
    pub(super) end_addr: u32,
    pub(super) return_addr: u32,
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LoopEntry {
    pub(super) entry_addr: u32,
    pub(super) end_addr: u32,
    pub(super) down: u8,
    pub(super) inc: u8,
    /// aL of the enclosing code, restored when a nested loop ends (the spec's one fix).
    pub(super) saved_al: i32,
}

/// One running invocation.
pub(super) struct Machine<'a> {
    pub(super) prog: &'a Interpreter,
    pub(super) uniforms: &'a Uniforms,
    pub(super) v: &'a Regs16,
    pub(super) r: Regs16,
    pub(super) o: [Regs16; 2],
    pub(super) bank: usize,
    pub(super) a0: [i32; 2],
    pub(super) al: i32,
    pub(super) cc: [bool; 2],
    pub(super) pc: u32,
    pub(super) if_stack: Ring<IfEntry, 8>,
    pub(super) call_stack: Ring<CallEntry, 4>,
    pub(super) loop_stack: Ring<LoopEntry, 4>,
    pub(super) budget: u32,
    pub(super) emit_slots: [Regs16; 4],
    pub(super) emit_vertex: u8,
    pub(super) emit_primitive: bool,
    pub(super) emit_winding: bool,
    pub(super) primitives: Vec<Primitive>,
}

const ONES: Vec4 = [1.0; 4];

impl<'a> Machine<'a> {
    pub(super) fn new(prog: &'a Interpreter, uniforms: &'a Uniforms, v: &'a Regs16) -> Self {
        Machine {
            prog,
            uniforms,
            v,
            r: [[0.0; 4]; 16],
            o: [[[0.0; 4]; 16]; 2],
            bank: 0,
            a0: [0, 0],
            al: 0,
            cc: [false, false],
            pc: prog.entry,
            if_stack: Ring::new(),
            call_stack: Ring::new(),
            loop_stack: Ring::new(),
            budget: prog.budget,
            emit_slots: [[[0.0; 4]; 16]; 4],
            emit_vertex: 0,
            emit_primitive: false,
            emit_winding: false,
            primitives: Vec::new(),
        }
    }

    pub(super) fn is_geometry(&self) -> bool {
        self.prog.kind == ShaderKind::Geometry
    }

    /// Steps until END, the last slot, or the budget.
    pub(super) fn run(&mut self) -> VertexStatus {
        loop {
            if self.pc >= LAST_SLOT {
                return VertexStatus::Ended;
            }
            if let Some(status) = self.step() {
                return status;
            }
        }
    }

    /// [`Machine::run`], also counting the steps taken (a separate loop, so the plain run
    /// pays nothing for the count).
    pub(super) fn run_counted(&mut self) -> (VertexStatus, u64) {
        let mut steps = 0;
        loop {
            if self.pc >= LAST_SLOT {
                return (VertexStatus::Ended, steps);
            }
            steps += 1;
            if let Some(status) = self.step() {
                return (status, steps);
            }
        }
    }

    pub(super) fn finish(self, status: VertexStatus) -> Invocation {
        Invocation {
            outputs: self.o[self.bank],
            status,
            primitives: self.primitives,
        }
    }

    /// Spends one unit of budget on a backward transfer; false if none was left.
    pub(super) fn take_budget(&mut self) -> bool {
        match self.budget.checked_sub(1) {
            Some(rest) => {
                self.budget = rest;
                true
            }
            None => false,
        }
    }

    /// Reads a source register; `idx` applies only to float uniforms.
    pub(super) fn read(&self, src: Src, idx: AddrIdx) -> Vec4 {
        match src.kind() {
            SrcKind::Input(n) => self.v[n as usize],
            SrcKind::Temp(n) => self.r[n as usize],
            SrcKind::Uniform(n) => {
                let offset = match idx {
                    AddrIdx::None => 0,
                    AddrIdx::A0x => self.a0[0],
                    AddrIdx::A0y => self.a0[1],
                    AddrIdx::AL => self.al,
                };
                let offset = if (-128..=127).contains(&offset) {
                    offset
                } else {
                    0
                };
                let index = (i32::from(n) + offset) & 0x7F;
                if index as usize >= FLOAT_UNIFORMS {
                    ONES
                } else {
                    self.uniforms.f[index as usize]
                }
            }
        }
    }

    /// The operand descriptor at `index` (7-bit indices reach all 128 entries).
    pub(super) fn desc(&self, index: u8) -> OpDesc {
        self.prog.descs[index as usize & 0x7F]
    }
}
