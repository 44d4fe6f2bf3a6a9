//! A compiled shader: how it was built, what it stores, and its AoS and parallel runs.

use rayon::prelude::*;

use super::backend::ExecPath;
use super::geometry::GeometryOutput;
use super::kernels::{AosCompile, Code, Exec, Kernels, MachineCode, Native};
use std::cell::RefCell;
use std::sync::{Arc, Mutex, OnceLock};

use picajit_codegen::abi::Context;
use picajit_codegen::abi::{self};
use picajit_codegen::ir::{Function, Op, Verified};
use picajit_codegen::opt;
use picajit_codegen::timings::Clock;
use picajit_codegen::x64::{self};

use crate::frontend;
use crate::interp::{Interpreter, RunError};
use crate::isa::{Instruction, SrcKind};
use crate::program::{Program, Regs16, ShaderKind, Uniforms, VertexStatus, CODE_WORDS, DESC_WORDS};

/// A compiled shader: `Send + Sync`, shared through `Arc`.
#[derive(Debug)]
pub struct Shader {
    pub(super) exec: Exec,
    /// The reference interpreter, built when first needed (fallback paths only).
    pub(super) interp: OnceLock<Interpreter>,
    /// What the interpreter runs: the reachable code words, descriptors, entry and kind (the
    /// rest of code memory is never executed, so it is not kept).
    pub(super) source: Source,
    pub(super) path: ExecPath,
    pub(super) budget: u32,
    /// Output registers the program can write (bit r = o_r).
    pub(super) outputs: u16,
    /// Input components a run loads, per register (bit c = component c).
    pub(super) inputs: [u8; 16],
    /// Code addresses reachable from the entry (bit a of word a / 64).
    pub(super) reachable: Box<[u64; CODE_WORDS / 64]>,
    /// What the frontend made of the program, if it lowered it.
    pub(super) frontend: Option<frontend::Stats>,
}

/// The part of a program a shader can run: its reachable code words (with their addresses),
/// descriptors, entry and kind. A shader keeps this instead of a copy of all code memory (16
/// KiB per compile); the interpreter gets the program back from it on first use.
#[derive(Clone, Debug)]
pub(super) struct Source {
    words: Box<[(u16, u32)]>,
    descs: [u32; DESC_WORDS],
    entry: u16,
    kind: ShaderKind,
}

impl Source {
    /// The program: the reachable words at their addresses, every other word 0. It runs as
    /// the original does, which differs only in words no run reaches.
    fn program(&self) -> Program {
        Program::from_reachable(&self.words, &self.descs, self.entry, self.kind)
    }
}

thread_local! {
    /// One batch context per thread, reused across runs (it is ~80 KB).
    static CONTEXT: RefCell<Option<Box<Context>>> = const { RefCell::new(None) };
}

pub(super) fn with_context<R>(f: impl FnOnce(&mut Context) -> R) -> R {
    let mut ctx = CONTEXT
        .with(|c| c.borrow_mut().take())
        .unwrap_or_else(new_context);
    let result = f(&mut ctx);
    CONTEXT.with(|c| *c.borrow_mut() = Some(ctx));
    result
}

/// A thread's first context, out of line: built in place here, it would give every run's
/// frame the context's 80 KB (probed page by page on each call).
#[cold]
#[inline(never)]
fn new_context() -> Box<Context> {
    Box::default()
}

/// Scratch of AoS runs, one per thread, reused from run to run: the batch status words and
/// the padded last batch.
#[derive(Debug, Default)]
pub(crate) struct RunScratch {
    words: Vec<u32>,
    tail_in: Vec<Regs16>,
    tail_out: Vec<Regs16>,
}

thread_local! {
    static RUN_SCRATCH: RefCell<RunScratch> = RefCell::new(RunScratch::default());
}

/// Runs `f` with this thread's [`RunScratch`] (a fresh one if it is in use).
fn with_run_scratch<R>(f: impl FnOnce(&mut RunScratch) -> R) -> R {
    let mut scratch = RUN_SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let result = f(&mut scratch);
    RUN_SCRATCH.with(|s| *s.borrow_mut() = scratch);
    result
}

impl Shader {
    /// Builds the shader of `program` (its reachable words `reachable`) with `engine`'s
    /// backend, budget, background compiling and counters; its generic AoS kernel compiled
    /// `aos`.
    pub(super) fn build(
        program: &Program,
        reachable: &[(u16, u32)],
        engine: &super::Engine,
        aos: AosCompile,
    ) -> Shader {
        Shader::build_timed(program, reachable, engine, aos, &mut Clock::off())
    }

    /// [`Shader::build`], lapping `clock` at the frontend's and backend's phase boundaries and
    /// after `prepare` (outputs, uniform rows, PICA multiply operands), `map` (executable
    /// memory) and `shader` (the shader itself).
    pub(super) fn build_timed(
        program: &Program,
        reachable: &[(u16, u32)],
        engine: &super::Engine,
        aos: AosCompile,
        clock: &mut Clock<'_>,
    ) -> Shader {
        let (backend, budget, background) = (engine.backend, engine.budget, engine.background);
        let counters = &engine.counters;
        let static_outputs = crate::program::outputs_written_by(reachable);
        let source = Source {
            words: reachable.into(),
            descs: program.descs,
            entry: program.entry,
            kind: program.kind,
        };
        let mut reach = Box::new([0u64; CODE_WORDS / 64]);
        for &(a, _) in reachable {
            reach[usize::from(a) / 64] |= 1 << (a % 64);
        }
        let interp_only = |path, frontend| Shader {
            exec: Exec::Interp,
            interp: OnceLock::new(),
            source: source.clone(),
            path,
            budget,
            outputs: static_outputs,
            // Only an interpreter-only shader names its inputs from the code.
            inputs: read_inputs(reachable),
            reachable: reach.clone(),
            frontend,
        };
        let Some(target) = backend.target() else {
            return interp_only(ExecPath::Interpreter, None);
        };
        // A timed compile is cold; any other shares the lowering with other engines.
        let lowered = if clock.is_on() {
            frontend::lower_timed(program, frontend::graph::MAX_STATES, clock)
        } else {
            super::lowered::lower(program, reachable)
        };
        let (mut func, stats) = match lowered {
            Ok(l) => (l.func, l.stats),
            Err(why) => return interp_only(ExecPath::Fallback(why.to_string()), None),
        };
        // Every register the program can write is stored, so the interpreter and native code
        // agree on which output registers a run defines.
        let (ir_inputs, ir_outputs) = x64::io_sets(&func);
        let outputs = static_outputs | ir_outputs;
        func.mark_outputs(outputs & !ir_outputs);
        let rows = uniform_rows(&func);
        let pmul_uniforms = opt::pmul_uniform_operands(&func).into();
        let geometry = func
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .any(|i| i.op == Op::EmitTri);
        clock.lap("prepare");
        let generic = match aos {
            // A geometry shader has no draw kernel: every use needs its AoS kernel.
            AosCompile::OnFirstUse if !geometry => Kernels::lazy(func, target),
            AosCompile::OnFirstUse | AosCompile::Now => {
                match Kernels::new_timed(func, target, counters, clock) {
                    Ok((k, _)) => k,
                    Err(why) => return interp_only(ExecPath::Fallback(why), Some(stats)),
                }
            }
        };
        let shader = Shader {
            exec: Exec::Native(Native {
                generic: Arc::new(generic),
                variants: Mutex::new(Vec::new()),
                pmul_uniforms,
                target,
                draw_target: engine.draw_width.target(target),
                rows,
                geometry,
                background,
                counters: Arc::clone(counters),
            }),
            interp: OnceLock::new(),
            source,
            path: ExecPath::Native(target),
            budget,
            outputs,
            inputs: ir_inputs,
            reachable: reach,
            frontend: Some(stats),
        };
        clock.lap("shader");
        shader
    }

    pub(super) fn interp(&self) -> &Interpreter {
        self.interp
            .get_or_init(|| Interpreter::new(&self.source.program()).with_budget(self.budget))
    }

    /// The step budget of each invocation.
    pub fn budget(&self) -> u32 {
        self.budget
    }

    /// How this shader executes.
    pub fn path(&self) -> &ExecPath {
        match &self.exec {
            // A generic AoS kernel compiled on first use that failed (the runs are the
            // interpreter's since).
            Exec::Native(n) => match n.generic.aos_failure() {
                Some(fallback) => fallback,
                None => &self.path,
            },
            Exec::Interp => &self.path,
        }
    }

    /// Compiles the generic AoS kernel now if it is not yet (a shader whose first use was a
    /// draw compiles it on first use).
    pub(super) fn compile_aos(&self) {
        if let Exec::Native(n) = &self.exec {
            let _ = n.generic.aos(&n.counters);
        }
    }

    /// What the frontend made of the program (its [`frontend::Stats`]): `None` on the
    /// interpreter backend and when the frontend did not lower it (the shader then runs on
    /// the interpreter).
    pub fn frontend_stats(&self) -> Option<frontend::Stats> {
        self.frontend
    }

    /// The IR it was compiled from (native shaders only; the generic kernel's).
    pub fn ir(&self) -> Option<&Verified> {
        match &self.exec {
            Exec::Native(n) => Some(&n.generic.func),
            Exec::Interp => None,
        }
    }

    /// The machine code of the AoS kernel (native shaders only): the generic kernel, exact
    /// for any uniforms.
    pub fn machine_code(&self) -> Option<&MachineCode> {
        match &self.exec {
            Exec::Native(n) => n.generic.aos(&n.counters).ok().map(|a| &*a.machine),
            Exec::Interp => None,
        }
    }

    /// The machine code of the AoS kernel a run with `uniforms` uses: the variant whose PICA
    /// multiplies by the finite, non-zero uniform components are plain multiplies (compiled
    /// now if it is not yet), or the generic kernel.
    pub fn machine_code_for(&self, uniforms: &Uniforms) -> Option<MachineCode> {
        match &self.exec {
            Exec::Native(n) => {
                let kernels = n.kernels_for(uniforms, true);
                let aos = kernels.aos(&n.counters).ok()?;
                Some(MachineCode::clone(&aos.machine))
            }
            Exec::Interp => None,
        }
    }

    /// Vertices per native batch (1 for the interpreter).
    pub fn lanes(&self) -> usize {
        match &self.exec {
            Exec::Native(n) => n.target.lanes(),
            Exec::Interp => 1,
        }
    }

    /// Vertices per batch of the draw kernels ([`super::DrawWidth`]; 1 for the interpreter).
    pub fn draw_lanes(&self) -> usize {
        match &self.exec {
            Exec::Native(n) => n.draw_target.lanes(),
            Exec::Interp => 1,
        }
    }

    /// The output registers a run stores (bit r = o_r): every register the program can
    /// write ([`Program::outputs_written`](crate::program::Program::outputs_written)). A run
    /// leaves the other registers of the output buffers untouched.
    pub fn outputs_written(&self) -> u16 {
        self.outputs
    }

    /// The input registers a run reads (bit r = v_r): those whose values can change some
    /// output or status. For native code, the registers the compiled kernel loads (reads whose
    /// results the compiler proved dead are not counted); on the interpreter, every input
    /// register a reachable instruction names. A SHBIN's input mask cannot stand in for this:
    /// most real files leave it 0.
    pub fn inputs_read(&self) -> u16 {
        (0..16).fold(0, |m, r| if self.inputs[r] != 0 { m | 1 << r } else { m })
    }

    /// Per input register, the components a run reads (bit c = component c; see
    /// [`Shader::inputs_read`]).
    pub fn input_components(&self) -> [u8; 16] {
        self.inputs
    }

    /// True if code address `addr` is reachable from the entry point: a change to any other
    /// word cannot change what this shader runs.
    pub fn reaches(&self, addr: u16) -> bool {
        usize::from(addr) < CODE_WORDS
            && self.reachable[usize::from(addr) / 64] >> (addr % 64) & 1 != 0
    }

    /// Compiles, on the calling thread, every kernel a run with these uniforms can use (the
    /// uniform-specialized variant and the SoA kernels), so that no run compiles anything and
    /// no run waits for a background compile. Runs never need it: without it they start at
    /// once on the generic kernel.
    pub fn prepare(&self, uniforms: &Uniforms) {
        if let Exec::Native(native) = &self.exec {
            native.prepare(uniforms);
        }
    }

    /// [`Shader::prepare`] for AoS runs only (what draws use): the uniform-specialized
    /// variant, not the SoA kernels.
    pub(crate) fn prepare_aos(&self, uniforms: &Uniforms) {
        if let Exec::Native(native) = &self.exec {
            native.prepare_aos(uniforms);
        }
    }

    /// Machine-code bytes of the kernels compiled for this shader so far (0 on the
    /// interpreter).
    pub fn code_bytes(&self) -> usize {
        match &self.exec {
            Exec::Native(native) => native.bytes(),
            Exec::Interp => 0,
        }
    }

    /// Runs vertex `n` of `inputs` into `outputs[n]` and `status[n]` (AoS, any length). Only
    /// the input registers the program reads are loaded. Outputs follow the contract of every
    /// batch run ([`Interpreter::run`]): exactly the registers of [`Shader::outputs_written`]
    /// are stored, all four components, 0.0 where a vertex did not write them; the others keep
    /// what the buffer held (start from zeroed buffers to see 0.0 there). Every status is
    /// written; the error names the first vertex that exhausted its step budget.
    pub fn run(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
        outputs: &mut [Regs16],
        status: &mut [VertexStatus],
    ) -> Result<(), RunError> {
        check_lengths(inputs.len(), outputs.len(), status.len())?;
        match &self.exec {
            Exec::Interp => {
                for ((inp, out), st) in inputs.iter().zip(outputs.iter_mut()).zip(status.iter_mut())
                {
                    let inv = self.interp().run_vertex(uniforms, inp);
                    self.copy_written(&inv.outputs, out);
                    *st = inv.status;
                }
            }
            Exec::Native(native) if native.geometry => {
                let mut geo = GeometryOutput::default();
                // The status of every vertex is stored either way; the error is recomputed.
                let _ = self.geometry(uniforms, inputs, &mut geo, false);
                for (from, out) in geo.outputs.iter().zip(outputs.iter_mut()) {
                    self.copy_written(from, out);
                }
                status.copy_from_slice(&geo.status);
            }
            Exec::Native(native) => {
                let ran = with_context(|ctx| {
                    let kernels = native.kernels(uniforms);
                    let aos = kernels.aos(&native.counters).map_err(|e| e.to_string())?;
                    self.load_uniforms(ctx, uniforms, &native.rows);
                    let w = native.target.lanes();
                    with_run_scratch(|scratch| {
                        run_aos_batches(ctx, &aos.code, w, inputs, outputs, status, scratch)
                    })
                });
                match ran {
                    // Every batch ended: no status to search for an exhausted budget.
                    Ok(true) => return Ok(()),
                    Ok(false) => {}
                    // Only the qemu job server or an AoS kernel compiled on first use can
                    // fail; the interpreter gives the same answer.
                    Err(_) => self.run_interp(uniforms, inputs, outputs, status),
                }
            }
        }
        self.result(status)
    }

    /// Runs `f` with an [`AosRunner`] for these uniforms: the kernels are chosen and the
    /// uniforms loaded once, for any number of [`AosRunner::run`]s (a draw's chunks).
    pub(crate) fn with_aos_runner<R>(
        &self,
        uniforms: &Uniforms,
        f: impl FnOnce(&mut AosRunner<'_>) -> R,
    ) -> R {
        if let Exec::Native(native) = &self.exec {
            let kernels = native.kernels(uniforms);
            if !native.geometry && kernels.aos(&native.counters).is_ok() {
                return with_context(|ctx| {
                    self.load_uniforms(ctx, uniforms, &native.rows);
                    f(&mut AosRunner {
                        shader: self,
                        uniforms,
                        native: Some((ctx, kernels, native.target.lanes())),
                        scratch: RunScratch::default(),
                    })
                });
            }
        }
        // Geometry shaders, the interpreter and a failed AoS compile: each run through
        // [`Shader::run`].
        f(&mut AosRunner {
            shader: self,
            uniforms,
            native: None,
            scratch: RunScratch::default(),
        })
    }

    /// [`Shader::run`] split across the rayon pool in chunks of whole batches.
    pub fn run_par(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
        outputs: &mut [Regs16],
        status: &mut [VertexStatus],
    ) -> Result<(), RunError> {
        check_lengths(inputs.len(), outputs.len(), status.len())?;
        let chunk = (self.lanes() * 128).max(256);
        inputs
            .par_chunks(chunk)
            .zip(outputs.par_chunks_mut(chunk))
            .zip(status.par_chunks_mut(chunk))
            .for_each(|((i, o), s)| {
                // Budget errors are collected from the statuses below.
                let _ = self.run(uniforms, i, o, s);
            });
        self.result(status)
    }

    pub(super) fn run_interp(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
        outputs: &mut [Regs16],
        status: &mut [VertexStatus],
    ) {
        for ((inp, out), st) in inputs.iter().zip(outputs.iter_mut()).zip(status.iter_mut()) {
            let inv = self.interp().run_vertex(uniforms, inp);
            self.copy_written(&inv.outputs, out);
            *st = inv.status;
        }
    }

    pub(super) fn copy_written(&self, from: &Regs16, to: &mut Regs16) {
        for r in (0..16).filter(|r| self.outputs >> r & 1 != 0) {
            to[r] = from[r];
        }
    }

    /// Uniform tables, bools, ints and the budget for a run.
    pub(super) fn load_uniforms(
        &self,
        ctx: &mut Context,
        uniforms: &Uniforms,
        rows: &[(usize, usize)],
    ) {
        ctx.uniforms[..96].copy_from_slice(&uniforms.f);
        for &(c, comp) in rows {
            ctx.uniform_rows[c * 4 + comp].0 = [uniforms.f[c][comp]; 16];
        }
        ctx.scalars.bools = u32::from(uniforms.b);
        ctx.scalars.ints = uniforms.i;
        ctx.io.budget = self.budget;
    }

    pub(super) fn result(&self, status: &[VertexStatus]) -> Result<(), RunError> {
        RunError::from_statuses(status, self.budget)
    }
}

/// Status word bit of a geometry batch that emitted more triangles than its buffer holds.
pub(super) const OVERFLOW: u32 = abi::STATUS_OVERFLOW;

/// The status of lane `lane` of a batch from its status word.
pub(super) fn status_of(word: u32, lane: usize) -> VertexStatus {
    if word >> lane & 1 == 0 {
        VertexStatus::Ended
    } else {
        VertexStatus::BudgetExhausted
    }
}

/// The statuses of a batch's lanes (as many as `status` holds) from its status word.
pub(super) fn lane_statuses(word: u32, status: &mut [VertexStatus]) {
    for (lane, st) in status.iter_mut().enumerate() {
        *st = status_of(word, lane);
    }
}

pub(super) fn check_lengths(inputs: usize, outputs: usize, status: usize) -> Result<(), RunError> {
    if inputs != outputs || inputs != status {
        return Err(RunError::LengthMismatch {
            inputs,
            outputs,
            status,
        });
    }
    Ok(())
}

/// Runs of one shader with one set of uniforms, sharing the kernel choice, the loaded
/// uniforms and the scratch of every run ([`Shader::with_aos_runner`]).
pub(crate) struct AosRunner<'a> {
    shader: &'a Shader,
    uniforms: &'a Uniforms,
    /// The batch context (uniforms loaded), the kernels (their AoS kernel compiled) and the
    /// batch width; `None` for shaders that run through [`Shader::run`] each time.
    native: Option<(&'a mut Context, Arc<Kernels>, usize)>,
    scratch: RunScratch,
}

impl AosRunner<'_> {
    /// [`Shader::run`] of `inputs` (the lengths must agree); statuses are written, and the
    /// error names the first vertex that exhausted its budget.
    pub(crate) fn run(
        &mut self,
        inputs: &[Regs16],
        outputs: &mut [Regs16],
        status: &mut [VertexStatus],
    ) -> Result<(), RunError> {
        let Some((ctx, aos, w)) = self
            .native
            .as_mut()
            .and_then(|(ctx, kernels, w)| Some((ctx, kernels.aos_compiled()?, w)))
        else {
            return self.shader.run(self.uniforms, inputs, outputs, status);
        };
        check_lengths(inputs.len(), outputs.len(), status.len())?;
        match run_aos_batches(
            ctx,
            &aos.code,
            *w,
            inputs,
            outputs,
            status,
            &mut self.scratch,
        ) {
            // Every batch ended: no status to look through.
            Ok(true) => return Ok(()),
            Ok(false) => {}
            // Only the qemu job server can fail; the interpreter gives the same answer.
            Err(_) => self
                .shader
                .run_interp(self.uniforms, inputs, outputs, status),
        }
        self.shader.result(status)
    }
}

/// The AoS kernel `aos` (batches of `w`) over `inputs`, uniforms already in `ctx`: whole
/// batches in place, the tail padded in scratch with copies of the last vertex (a vertex
/// shader's batch never needs a rerun: its lanes keep their own control state and budget).
/// True if every batch ended (no status to look through); an error only from the qemu job
/// server.
fn run_aos_batches(
    ctx: &mut Context,
    aos: &Code,
    w: usize,
    inputs: &[Regs16],
    outputs: &mut [Regs16],
    status: &mut [VertexStatus],
    scratch: &mut RunScratch,
) -> Result<bool, String> {
    let full = inputs.len() / w * w;
    let words = &mut scratch.words;
    words.clear();
    words.resize(full / w, 0);
    if full > 0 {
        aos.run_aos(ctx, &inputs[..full], &mut outputs[..full], words, None)?;
    }
    let all_ended = words.iter().all(|&b| b == 0);
    if all_ended {
        status[..full].fill(VertexStatus::Ended);
    } else {
        for (batch, &word) in words.iter().enumerate() {
            lane_statuses(word, &mut status[batch * w..batch * w + w]);
        }
    }
    if let Some(&last) = inputs[full..].last() {
        // The tail: a whole batch in scratch, its padding lanes copies of the last vertex
        // (their outputs are dropped).
        let rest = inputs.len() - full;
        let (tin, tout) = (&mut scratch.tail_in, &mut scratch.tail_out);
        tin.clear();
        tin.extend_from_slice(&inputs[full..]);
        tin.resize(w, last);
        tout.clear();
        tout.extend_from_slice(&outputs[full..]);
        tout.resize(w, [[0.0; 4]; 16]);
        let mut b = [0u32];
        aos.run_aos(ctx, tin, tout, &mut b, None)?;
        outputs[full..].copy_from_slice(&tout[..rest]);
        lane_statuses(b[0], &mut status[full..]);
        return Ok(all_ended && b[0] == 0);
    }
    Ok(all_ended)
}

/// Input components named by any reachable instruction (all four of each register named).
pub(super) fn read_inputs(reachable: &[(u16, u32)]) -> [u8; 16] {
    let mut comps = [0u8; 16];
    for &(_, word) in reachable {
        if let Some(alu) = Instruction::decode(word).alu() {
            for src in &alu.src[..alu.num_src] {
                if let SrcKind::Input(n) = src.kind() {
                    comps[usize::from(n & 15)] = 0xF;
                }
            }
        }
    }
    comps
}

/// Uniform components read without an offset: the broadcast rows a run fills.
pub(super) fn uniform_rows(func: &Function) -> Vec<(usize, usize)> {
    let mut rows = opt::ComponentSet::default();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if inst.op == Op::Uniform && (inst.imm[0] & 0x7F) < 96 {
            rows.insert(inst.imm[0] & 0x7F, inst.imm[1] & 3);
        }
    }
    rows.iter()
        .map(|(index, comp)| (index as usize, comp as usize))
        .collect()
}
