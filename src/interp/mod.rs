//! The reference interpreter: the executable form of `spec/semantics.md`. It runs decoded
//! instructions (never the codegen IR, so a lowering bug cannot hide on both sides), one
//! invocation at a time, from the deterministic start state of §1.
//!
//! Choices the spec leaves to the implementation, made here once for every engine:
//! - **pc past the end.** Slot 4095 behaves as END, and so does any pc ≥ 4095 (an IF's end
//!   address `DEST + NUM` can exceed code memory; the run then stops there, as at END).
//! - **Step budget (§6).** After each instruction (including its scope closing) the pc it hands
//!   on is compared with its own address; if it is not greater the step was a backward transfer
//!   and takes one unit of the budget. With no unit left the invocation stops instead, status
//!   [`VertexStatus::BudgetExhausted`], its registers as the instruction left them.
//! - **Emitter (§7).** SETEMIT stores the vertex id 0–3; EMIT with id 3 fills a fourth slot that
//!   no triangle uses. In a vertex shader EMIT and SETEMIT do nothing (no bank switch either).
//! - **Undefined opcodes** execute as NOP.

mod alu;
mod flow;
mod state;

use rayon::prelude::*;
use thiserror::Error;

use crate::isa::{Instruction, OpDesc};
use crate::program::{Program, Regs16, ShaderKind, Uniforms, VertexStatus, CODE_WORDS, DESC_WORDS};

pub use state::Primitive;

/// Default budget of backward transfers per invocation (`spec/semantics.md` §6).
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
