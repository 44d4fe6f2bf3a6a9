//! The engine API: pick a backend, compile programs (cached), run batches of vertices.
//!
//! ```text
//! Engine::new(Backend::Auto) ─ compile(&Program) ─▶ Arc<Shader> ─ run / run_soa / run_par
//!        │ cache: (reachable code, descriptors, entry, kind, backend) → Arc<Shader>
//! ```
//!
//! A shader runs natively when the frontend can lower it and the backend can compile it;
//! otherwise (geometry shaders, per-vertex control flow the native model cannot express yet)
//! it runs on the reference interpreter — never a different answer, only a slower path.
//! [`Shader::path`] says which, and why.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use picajit_codegen::abi::Context;
use picajit_codegen::code::ExecCode;
use picajit_codegen::ir::{Function, Op};
use picajit_codegen::x64::{self, Tier};
use rayon::prelude::*;
use thiserror::Error;

use crate::frontend;
use crate::interp::{Interpreter, RunError, DEFAULT_BUDGET};
use crate::isa::{Fmt2, Fmt3b, Fmt3i, Format, Instruction, Opcode};
use crate::program::{Program, Regs16, ShaderKind, Uniforms, VertexStatus, CODE_WORDS};

/// Which engine runs shaders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The reference interpreter.
    Interp,
    /// x86-64 with SSE4.1, 4 vertices per batch.
    X64Sse41,
    /// x86-64 with AVX2, 8 vertices per batch.
    X64Avx2,
    /// The best JIT this host has (`PICAJIT_X64_TIER=sse41|avx2` forces a tier); the
    /// interpreter on hosts without one.
    Auto,
}

impl Backend {
    /// Every concrete backend this host can run, interpreter first.
    pub fn available() -> Vec<Backend> {
        let mut all = vec![Backend::Interp];
        if Tier::Sse41.host_supports() {
            all.push(Backend::X64Sse41);
        }
        if Tier::Avx2.host_supports() {
            all.push(Backend::X64Avx2);
        }
        all
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Interp => "interp",
            Backend::X64Sse41 => "x64-sse41",
            Backend::X64Avx2 => "x64-avx2",
            Backend::Auto => "auto",
        }
    }

    fn tier(self) -> Option<Tier> {
        match self {
            Backend::X64Sse41 => Some(Tier::Sse41),
            Backend::X64Avx2 => Some(Tier::Avx2),
            Backend::Interp | Backend::Auto => None,
        }
    }
}

/// Engine construction errors.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EngineError {
    #[error("backend {0} needs instructions this CPU does not have")]
    Unsupported(&'static str),
    #[error("PICAJIT_X64_TIER={0:?} is not one of sse41, avx2")]
    BadTierOverride(String),
}

/// How a compiled shader executes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecPath {
    /// Native code of a tier.
    Native(Tier),
    /// The interpreter, because the engine is the interpreter.
    Interpreter,
    /// The interpreter, because the program cannot run natively (the reason).
    Fallback(String),
}

impl std::fmt::Display for ExecPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecPath::Native(t) => write!(f, "native {t:?} (structured, uniform control flow)"),
            ExecPath::Interpreter => write!(f, "interpreter"),
            ExecPath::Fallback(why) => write!(f, "interpreter fallback: {why}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct CacheKey {
    words: Vec<(u16, u32)>,
    descs: Vec<u32>,
    entry: u16,
    kind: ShaderKind,
    backend: Backend,
    budget: u32,
}

/// Compiles and caches shaders for one backend.
#[derive(Debug)]
pub struct Engine {
    backend: Backend,
    budget: u32,
    cache: Mutex<HashMap<CacheKey, Arc<Shader>>>,
}

impl Engine {
    /// An engine for `backend` (`Auto` is resolved here).
    pub fn new(backend: Backend) -> Result<Engine, EngineError> {
        let backend = match backend {
            Backend::Auto => match std::env::var("PICAJIT_X64_TIER") {
                Ok(t) if t == "sse41" => Backend::X64Sse41,
                Ok(t) if t == "avx2" => Backend::X64Avx2,
                Ok(t) if !t.is_empty() => return Err(EngineError::BadTierOverride(t)),
                _ => match Tier::host_best() {
                    Some(Tier::Avx2) => Backend::X64Avx2,
                    Some(Tier::Sse41) => Backend::X64Sse41,
                    None => Backend::Interp,
                },
            },
            b => b,
        };
        if let Some(t) = backend.tier() {
            if !t.host_supports() {
                return Err(EngineError::Unsupported(backend.name()));
            }
        }
        Ok(Engine {
            backend,
            budget: DEFAULT_BUDGET,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The same engine with another step budget for the shaders it compiles.
    pub fn with_budget(mut self, budget: u32) -> Engine {
        self.budget = budget;
        self
    }

    /// The concrete backend.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Compiles `program`, or returns the cached shader for the same reachable code.
    pub fn compile(&self, program: &Program) -> Arc<Shader> {
        let key = CacheKey {
            words: reachable_words(program),
            descs: program.descs.to_vec(),
            entry: program.entry,
            kind: program.kind,
            backend: self.backend,
            budget: self.budget,
        };
        if let Some(s) = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Arc::clone(s);
        }
        let shader = Arc::new(Shader::build(program, self.backend, self.budget));
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(cache.entry(key).or_insert(shader))
    }

    /// Number of cached shaders.
    pub fn cached(&self) -> usize {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// The code words reachable from the entry (following every branch, call body and
/// fall-through), with their addresses: what the cache key hashes instead of all 4096 words.
fn reachable_words(program: &Program) -> Vec<(u16, u32)> {
    let mut seen = vec![false; CODE_WORDS];
    let mut todo = vec![usize::from(program.entry)];
    let mut words = Vec::new();
    let push = |todo: &mut Vec<usize>, a: usize| {
        if a < CODE_WORDS {
            todo.push(a);
        }
    };
    while let Some(pc) = todo.pop() {
        if seen[pc] {
            continue;
        }
        seen[pc] = true;
        let word = program.code[pc];
        words.push((pc as u16, word));
        let instr = Instruction::decode(word);
        if pc == CODE_WORDS - 1 || instr.opcode() == Opcode::End {
            continue;
        }
        push(&mut todo, pc + 1);
        let (dest, num) = match instr.opcode().format() {
            Format::Fmt2 => {
                let f = Fmt2::decode(word);
                (f.dest, f.num)
            }
            Format::Fmt3b => {
                let f = Fmt3b::decode(word);
                (f.dest, f.num)
            }
            Format::Fmt3i => (Fmt3i::decode(word).dest, 0),
            Format::Fmt0
            | Format::Fmt1
            | Format::Fmt1u
            | Format::Fmt1i
            | Format::Fmt1c
            | Format::Fmt4
            | Format::Fmt5
            | Format::Fmt5i
            | Format::Raw => continue,
        };
        // Targets and scope ends: DEST, DEST + NUM (else/return paths), DEST + 1 (loop end).
        for a in [
            usize::from(dest),
            usize::from(dest) + usize::from(num),
            usize::from(dest) + 1,
        ] {
            push(&mut todo, a);
        }
    }
    words.sort_unstable();
    words
}

/// A (register, component) pair.
type RegComp = (usize, usize);

#[derive(Debug)]
enum Exec {
    Native {
        code: ExecCode,
        inputs: Vec<(usize, usize)>,
        outputs: Vec<(usize, usize)>,
    },
    Interp,
}

/// A compiled shader: `Send + Sync`, shared through `Arc`.
#[derive(Debug)]
pub struct Shader {
    exec: Exec,
    interp: Interpreter,
    path: ExecPath,
    ir: Option<Function>,
    machine_code: Option<x64::Compiled>,
    budget: u32,
}

/// Planar structure-of-arrays vertex data: component `c` of register `r` of vertex `v` is
/// `data[(r * 4 + c) * len + v]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SoaBuffer {
    pub len: usize,
    pub data: Vec<f32>,
}

impl SoaBuffer {
    /// Zeroed storage for `len` vertices of 16 registers.
    pub fn new(len: usize) -> SoaBuffer {
        SoaBuffer {
            len,
            data: vec![0.0; 64 * len],
        }
    }
    /// From per-vertex registers.
    pub fn from_aos(aos: &[Regs16]) -> SoaBuffer {
        let mut s = SoaBuffer::new(aos.len());
        for (v, regs) in aos.iter().enumerate() {
            for (r, reg) in regs.iter().enumerate() {
                for (c, &x) in reg.iter().enumerate() {
                    s.data[(r * 4 + c) * s.len + v] = x;
                }
            }
        }
        s
    }
    /// Back to per-vertex registers.
    pub fn to_aos(&self) -> Vec<Regs16> {
        (0..self.len)
            .map(|v| {
                std::array::from_fn(|r| {
                    std::array::from_fn(|c| self.data[(r * 4 + c) * self.len + v])
                })
            })
            .collect()
    }
    fn plane(&self, r: usize, c: usize) -> &[f32] {
        &self.data[(r * 4 + c) * self.len..][..self.len]
    }
}

impl Shader {
    fn build(program: &Program, backend: Backend, budget: u32) -> Shader {
        let interp = Interpreter::new(program).with_budget(budget);
        let interp_only = |path| Shader {
            exec: Exec::Interp,
            interp: interp.clone(),
            path,
            ir: None,
            machine_code: None,
            budget,
        };
        let Some(tier) = backend.tier() else {
            return interp_only(ExecPath::Interpreter);
        };
        let lowered = match frontend::lower(program) {
            Ok(l) => l,
            Err(why) => return interp_only(ExecPath::Fallback(why.to_string())),
        };
        let func = lowered.func;
        let compiled = match x64::compile(&func, tier) {
            Ok(c) => c,
            Err(why) => return interp_only(ExecPath::Fallback(format!("backend: {why}"))),
        };
        let code = match ExecCode::new(&compiled) {
            Ok(c) => c,
            Err(why) => {
                return interp_only(ExecPath::Fallback(format!("executable memory: {why}")))
            }
        };
        let (inputs, outputs) = io_components(&func);
        Shader {
            exec: Exec::Native {
                code,
                inputs,
                outputs,
            },
            interp,
            path: ExecPath::Native(tier),
            ir: Some(func),
            machine_code: Some(compiled),
            budget,
        }
    }

    /// How this shader executes.
    pub fn path(&self) -> &ExecPath {
        &self.path
    }

    /// The IR it was compiled from (native shaders only).
    pub fn ir(&self) -> Option<&Function> {
        self.ir.as_ref()
    }

    /// The machine code (native shaders only).
    pub fn machine_code(&self) -> Option<&x64::Compiled> {
        self.machine_code.as_ref()
    }

    /// Vertices per native batch (1 for the interpreter).
    pub fn lanes(&self) -> usize {
        match (&self.exec, &self.path) {
            (Exec::Native { code, .. }, _) => code.tier().lanes(),
            (Exec::Interp, _) => 1,
        }
    }

    /// Runs vertex `n` of `inputs` into `outputs[n]` and `status[n]` (AoS, any length).
    /// Every output and status is written; a vertex that exhausted its budget is reported as
    /// the error, naming the first such vertex.
    pub fn run(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
        outputs: &mut [Regs16],
        status: &mut [VertexStatus],
    ) -> Result<(), RunError> {
        check_lengths(inputs.len(), outputs.len(), status.len())?;
        match &self.exec {
            Exec::Interp => self.interp.run(uniforms, inputs, outputs, status),
            Exec::Native {
                code,
                inputs: ins,
                outputs: outs,
            } => {
                let mut ctx = self.context(uniforms);
                let w = code.tier().lanes();
                for ((inp, out), st) in inputs
                    .chunks(w)
                    .zip(outputs.chunks_mut(w))
                    .zip(status.chunks_mut(w))
                {
                    for &(r, c) in ins {
                        let lanes = &mut ctx.input[r][c].0;
                        for (lane, v) in lanes.iter_mut().zip(inp) {
                            *lane = v[r][c];
                        }
                    }
                    self.run_batch(code, &mut ctx, outs);
                    for o in out.iter_mut() {
                        *o = [[0.0; 4]; 16];
                    }
                    for &(r, c) in outs {
                        for (o, &x) in out.iter_mut().zip(&ctx.output[r][c].0) {
                            o[r][c] = x;
                        }
                    }
                    st.fill(batch_status(&ctx));
                }
                self.result(status)
            }
        }
    }

    /// Runs planar SoA buffers (see [`SoaBuffer`]): no transposes.
    pub fn run_soa(
        &self,
        uniforms: &Uniforms,
        inputs: &SoaBuffer,
        outputs: &mut SoaBuffer,
        status: &mut [VertexStatus],
    ) -> Result<(), RunError> {
        check_lengths(inputs.len, outputs.len, status.len())?;
        match &self.exec {
            Exec::Interp => {
                let aos = inputs.to_aos();
                let mut out = vec![[[0.0; 4]; 16]; aos.len()];
                let result = self.interp.run(uniforms, &aos, &mut out, status);
                *outputs = SoaBuffer::from_aos(&out);
                result
            }
            Exec::Native {
                code,
                inputs: ins,
                outputs: outs,
            } => {
                let mut ctx = self.context(uniforms);
                let w = code.tier().lanes();
                let n = inputs.len;
                outputs.data.fill(0.0);
                for start in (0..n).step_by(w) {
                    let count = w.min(n - start);
                    for &(r, c) in ins {
                        ctx.input[r][c].0[..count]
                            .copy_from_slice(&inputs.plane(r, c)[start..start + count]);
                    }
                    self.run_batch(code, &mut ctx, outs);
                    for &(r, c) in outs {
                        let base = (r * 4 + c) * n + start;
                        outputs.data[base..base + count]
                            .copy_from_slice(&ctx.output[r][c].0[..count]);
                    }
                    status[start..start + count].fill(batch_status(&ctx));
                }
                self.result(status)
            }
        }
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
        let chunk = (self.lanes() * 64).max(256);
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

    fn context(&self, uniforms: &Uniforms) -> Box<Context> {
        let mut ctx = Box::<Context>::default();
        ctx.uniforms[..96].copy_from_slice(&uniforms.f);
        ctx.scalars.bools = u32::from(uniforms.b);
        ctx.scalars.ints = uniforms.i;
        ctx
    }

    fn run_batch(&self, code: &ExecCode, ctx: &mut Context, outs: &[RegComp]) {
        for &(r, c) in outs {
            ctx.output[r][c].0 = [0.0; 16];
        }
        ctx.scalars.budget = self.budget;
        ctx.scalars.status = 0;
        ctx.scalars.al = 0;
        code.run(ctx);
    }

    fn result(&self, status: &[VertexStatus]) -> Result<(), RunError> {
        let mut bad = status
            .iter()
            .enumerate()
            .filter(|(_, s)| **s == VertexStatus::BudgetExhausted);
        match bad.next() {
            None => Ok(()),
            Some((vertex, _)) => Err(RunError::BudgetExhausted {
                vertex,
                count: 1 + bad.count(),
                budget: self.budget,
            }),
        }
    }
}

fn batch_status(ctx: &Context) -> VertexStatus {
    if ctx.scalars.status == 0 {
        VertexStatus::Ended
    } else {
        VertexStatus::BudgetExhausted
    }
}

fn check_lengths(inputs: usize, outputs: usize, status: usize) -> Result<(), RunError> {
    if inputs != outputs || inputs != status {
        return Err(RunError::LengthMismatch {
            inputs,
            outputs,
            status,
        });
    }
    Ok(())
}

/// The input components a function reads and the output components it writes.
fn io_components(func: &Function) -> (Vec<RegComp>, Vec<RegComp>) {
    let mut ins = Vec::new();
    let mut outs = Vec::new();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        let rc = ((inst.imm[0] & 15) as usize, (inst.imm[1] & 3) as usize);
        if inst.op == Op::Input {
            ins.push(rc);
        } else if inst.op == Op::Output {
            outs.push(rc);
        }
    }
    ins.sort_unstable();
    ins.dedup();
    outs.sort_unstable();
    outs.dedup();
    (ins, outs)
}
