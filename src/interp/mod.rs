//! The reference interpreter: the executable statement of the shader semantics every engine
//! reproduces bit for bit (a NaN result may differ in sign and payload, as long as it is NaN on
//! both sides). It runs decoded instructions (never the codegen IR, so a lowering bug cannot
//! hide on both sides), one invocation at a time. The rules, as this module implements them:
//!
//! # Machine model and start state
//!
//! Code memory holds 4096 words and descriptor memory 128 entries; what a program does not load
//! is 0. An invocation has inputs v0–v15, temporaries r0–r15, outputs o0–o15, the address
//! registers a0.x, a0.y and aL (32-bit integers) and the condition flags cc.x, cc.y; uniforms
//! are c0–c95, i0–i3 (x = count, y = start, z = step) and b0–b15. **Every invocation starts
//! from the same state**: r and o all 0.0, a0 = (0, 0), aL = 0, cc = (false, false), empty
//! control stacks, pc at the entry point. (Azahar carries these over from the previous vertex;
//! no program can rely on that, since hardware spreads vertices over several units, and a
//! fixed start state is what lets vertices run in batches.) An invocation ends at END, at slot
//! 4095, or when its step budget runs out.
//!
//! # Operands and arithmetic
//!
//! A source is read, swizzled by its descriptor, then negated (the sign bit flips, also of
//! zero and NaN). Relative addressing (a0.x, a0.y or aL) offsets only the one wide operand of
//! a format, and only when it is a float uniform: an offset outside −128..127 counts as 0, the
//! index wraps at 128, and indices 96–127 read (1.0, 1.0, 1.0, 1.0). A destination component
//! is written when its mask bit is set. Arithmetic is IEEE binary32, round to nearest even,
//! subnormals kept, no fused multiply-add; the rules beyond single IEEE operations (the PICA
//! multiply, MIN/MAX, RCP/RSQ, FLR, EX2/LG2, LITP, MOVA, float24) are in [`crate::float`].
//! Dot products add left to right from +0.0; CMP operators 6 and 7 are always true.
//!
//! # Flow control
//!
//! A condition tests `cc.x == REFX` and `cc.y == REFY`, combined by OR, AND, or one of them
//! alone; JMPU jumps when `b[id]` differs from bit 0 of NUM. Three bounded stacks (IF 8, CALL 4,
//! LOOP 4) drop their oldest entry when pushed full. After every instruction the scopes whose
//! end is the next pc close, CALL first (up to four returns, with the quirk of the fourth),
//! then IF, then LOOP — so a jump taken by the last instruction of a scope gives way to the
//! scope's close. LOOP sets aL to i.y and runs its body i.x + 1 times, adding i.z to aL after
//! each pass and on BREAK/BREAKC; a nested loop gives the enclosing loop its aL back when it
//! ends (Azahar's interpreter does not). BREAK and BREAKC outside a loop do nothing.
//!
//! # Step budget
//!
//! A program can loop forever; without a backward transfer at most 4096 instructions run. So
//! every invocation has a budget of backward transfers ([`DEFAULT_BUDGET`], configurable):
//! after each instruction (including its scope closing) the pc it hands on is compared with
//! its own address, and if it is not greater the step took one unit. With no unit left the
//! invocation stops, status [`VertexStatus::BudgetExhausted`], its registers as the
//! instruction left them. Every engine counts the same transfers.
//!
//! # Geometry shaders
//!
//! SETEMIT stores the vertex id 0–3 and the primitive and winding flags; EMIT copies the
//! outputs to that emitter slot and, with the primitive flag, emits the triangle of slots 0, 1,
//! 2 (ordered by the winding flag). EMIT with id 3 fills a fourth slot that no triangle uses.
//! The outputs are two banks of o0–o15: instructions write the current bank, and EMIT switches
//! to the other one after copying, so a component not written since the last EMIT holds its
//! value from the one before (a quirk verified on hardware). In a vertex shader EMIT and
//! SETEMIT do nothing (no bank switch either).
//!
//! # Choices made here for every engine
//!
//! - **pc past the end.** Slot 4095 behaves as END, and so does any pc ≥ 4095 (an IF's end
//!   address `DEST + NUM` can exceed code memory; the run then stops there, as at END).
//! - **Undefined opcodes** execute as NOP.

mod alu;
mod flow;
mod state;

use rayon::prelude::*;
use thiserror::Error;

use crate::isa::{Instruction, OpDesc};
use crate::program::{Program, Regs16, ShaderKind, Uniforms, VertexStatus, CODE_WORDS, DESC_WORDS};

pub use state::Primitive;

/// Default budget of backward transfers per invocation (see the module docs, “Step budget”).
pub const DEFAULT_BUDGET: u32 = 1 << 20;

/// The last code slot, which always behaves as END.
pub const LAST_SLOT: u32 = CODE_WORDS as u32 - 1;

/// A program decoded once, ready to run any number of invocations.
#[derive(Clone, Debug)]
pub struct Interpreter {
    code: Box<[Instruction]>,
    descs: [OpDesc; DESC_WORDS],
    entry: u32,
    kind: ShaderKind,
    budget: u32,
    /// The output registers batch runs store ([`Program::outputs_written`]).
    outputs: u16,
}

/// The result of one invocation.
#[derive(Clone, Debug, PartialEq)]
pub struct Invocation {
    /// o0..o15 when the invocation ended (for a geometry shader: the current bank).
    pub outputs: Regs16,
    /// How it ended.
    pub status: VertexStatus,
    /// Triangles emitted (geometry shaders only), in order.
    pub primitives: Vec<Primitive>,
}

/// Errors of a batch run. Outputs and statuses of every vertex are written even when a vertex
/// exhausted its budget, so a caller can inspect all of them.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The input, output and status slices of a batch differ in length.
    #[error(
        "batch slices differ in length: {inputs} inputs, {outputs} outputs, {status} statuses"
    )]
    LengthMismatch {
        inputs: usize,
        outputs: usize,
        status: usize,
    },
    /// At least one vertex ran out of its step budget: the first such vertex, how many did,
    /// and the budget. Every output and status was still written.
    #[error(
        "vertex {vertex} exhausted its step budget of {budget} backward transfers \
         ({count} vertices in the batch did)"
    )]
    BudgetExhausted {
        vertex: usize,
        count: usize,
        budget: u32,
    },
}

impl Interpreter {
    /// Decodes `program` (slot 4095 is replaced by END).
    pub fn new(program: &Program) -> Interpreter {
        let mut code: Box<[Instruction]> = program
            .code
            .iter()
            .map(|&w| Instruction::decode(w))
            .collect();
        code[LAST_SLOT as usize] = Instruction::End(crate::isa::Fmt0);
        Interpreter {
            code,
            descs: program.descs.map(OpDesc),
            entry: u32::from(program.entry),
            kind: program.kind,
            budget: DEFAULT_BUDGET,
            outputs: program.outputs_written(),
        }
    }

    /// The same interpreter with another step budget.
    pub fn with_budget(mut self, budget: u32) -> Interpreter {
        self.budget = budget;
        self
    }

    /// The step budget in force.
    pub fn budget(&self) -> u32 {
        self.budget
    }

    /// Runs one invocation from the start state with the given inputs.
    pub fn run_vertex(&self, uniforms: &Uniforms, inputs: &Regs16) -> Invocation {
        let mut machine = state::Machine::new(self, uniforms, inputs);
        let status = machine.run();
        machine.finish(status)
    }

    /// [`Interpreter::run_vertex`] that also counts the instructions it executed (each step,
    /// END included): the per-vertex instruction count of benchmark reports.
    pub fn run_vertex_counted(&self, uniforms: &Uniforms, inputs: &Regs16) -> (Invocation, u64) {
        let mut machine = state::Machine::new(self, uniforms, inputs);
        let (status, steps) = machine.run_counted();
        (machine.finish(status), steps)
    }

    /// Runs a batch: vertex `n` reads `inputs[n]` and writes `outputs[n]` and `status[n]`.
    ///
    /// **The output contract of every batch run** (this one, `run_par`, and the engine's
    /// `Shader::run`, `run_par` and `run_soa` on every backend): of each vertex's 16 output
    /// registers, exactly those in [`Program::outputs_written`] are stored — all four
    /// components, 0.0 where this vertex did not write them — and the others keep what the
    /// buffer held. Buffers that start zeroed therefore hold 0.0 in every register the program
    /// never writes, as PCOU case files record it; a buffer reused across programs keeps the
    /// previous run's values there. (`run_vertex` returns all 16, 0.0 where not written.)
    pub fn run(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
        outputs: &mut [Regs16],
        status: &mut [VertexStatus],
    ) -> Result<(), RunError> {
        check_lengths(inputs, outputs, status)?;
        for ((input, out), st) in inputs.iter().zip(outputs.iter_mut()).zip(status.iter_mut()) {
            let inv = self.run_vertex(uniforms, input);
            self.store(&inv.outputs, out);
            *st = inv.status;
        }
        self.batch_result(status)
    }

    /// [`Interpreter::run`] split across the rayon thread pool.
    pub fn run_par(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
        outputs: &mut [Regs16],
        status: &mut [VertexStatus],
    ) -> Result<(), RunError> {
        check_lengths(inputs, outputs, status)?;
        inputs
            .par_iter()
            .zip(outputs.par_iter_mut())
            .zip(status.par_iter_mut())
            .with_min_len(64)
            .for_each(|((input, out), st)| {
                let inv = self.run_vertex(uniforms, input);
                self.store(&inv.outputs, out);
                *st = inv.status;
            });
        self.batch_result(status)
    }

    /// The output registers batch runs store (bit r = o_r; see [`Interpreter::run`]).
    pub fn outputs_written(&self) -> u16 {
        self.outputs
    }

    /// Copies the registers a batch run stores.
    fn store(&self, from: &Regs16, to: &mut Regs16) {
        for (r, (src, dst)) in from.iter().zip(to.iter_mut()).enumerate() {
            if self.outputs >> r & 1 != 0 {
                *dst = *src;
            }
        }
    }

    fn batch_result(&self, status: &[VertexStatus]) -> Result<(), RunError> {
        RunError::from_statuses(status, self.budget)
    }
}

impl RunError {
    /// The result of a batch from its statuses: `BudgetExhausted` naming the first vertex
    /// that ran out of budget (and how many did), or `Ok`.
    pub fn from_statuses(status: &[VertexStatus], budget: u32) -> Result<(), RunError> {
        let mut exhausted = status
            .iter()
            .enumerate()
            .filter(|(_, s)| **s == VertexStatus::BudgetExhausted);
        match exhausted.next() {
            None => Ok(()),
            Some((vertex, _)) => Err(RunError::BudgetExhausted {
                vertex,
                count: 1 + exhausted.count(),
                budget,
            }),
        }
    }
}

fn check_lengths(
    inputs: &[Regs16],
    outputs: &[Regs16],
    status: &[VertexStatus],
) -> Result<(), RunError> {
    if inputs.len() != outputs.len() || inputs.len() != status.len() {
        return Err(RunError::LengthMismatch {
            inputs: inputs.len(),
            outputs: outputs.len(),
            status: status.len(),
        });
    }
    Ok(())
}
