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

use std::cell::RefCell;
use std::sync::{Arc, Mutex, OnceLock};

use picajit_codegen::aarch64;
use picajit_codegen::abi::Context;
use picajit_codegen::abi::{self, Lanes, Triangle};
use picajit_codegen::code::{EmitBuffer, ExecCode};
use picajit_codegen::ir::{Function, Inst, Op, Var};
use picajit_codegen::opt;
use picajit_codegen::x64::{self, IoMode, Tier};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use thiserror::Error;

use crate::frontend;
use crate::interp::{Interpreter, Invocation, Primitive, RunError, DEFAULT_BUDGET};
use crate::isa::{DstKind, Fmt2, Fmt3b, Fmt3i, Format, Instruction, Opcode};
use crate::program::{Program, Regs16, ShaderKind, Uniforms, VertexStatus, CODE_WORDS, DESC_WORDS};

/// Which engine runs shaders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The reference interpreter.
    Interp,
    /// x86-64 with SSE4.1, 4 vertices per batch.
    X64Sse41,
    /// x86-64 with AVX2, 8 vertices per batch.
    X64Avx2,
    /// AArch64 with NEON, 4 vertices per batch: in-process on an AArch64 host, through a
    /// qemu-user job server elsewhere (exact, but slow: for testing).
    Aarch64,
    /// The best JIT this host has (`PICAJIT_X64_TIER=sse41|avx2` forces a tier; AArch64 on
    /// an AArch64 host); the interpreter on hosts without one. Never AArch64 through qemu.
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
        if aarch64::Kernel::host_supports() {
            all.push(Backend::Aarch64);
        }
        all
    }

    /// True if the backend runs natively on this host (not through an emulator).
    pub fn is_native_here(self) -> bool {
        match self {
            Backend::Aarch64 => cfg!(target_arch = "aarch64"),
            Backend::Interp | Backend::X64Sse41 | Backend::X64Avx2 | Backend::Auto => true,
        }
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Interp => "interp",
            Backend::X64Sse41 => "x64-sse41",
            Backend::X64Avx2 => "x64-avx2",
            Backend::Aarch64 => "aarch64",
            Backend::Auto => "auto",
        }
    }

    fn target(self) -> Option<Target> {
        match self {
            Backend::X64Sse41 => Some(Target::X64(Tier::Sse41)),
            Backend::X64Avx2 => Some(Target::X64(Tier::Avx2)),
            Backend::Aarch64 => Some(Target::Aarch64),
            Backend::Interp | Backend::Auto => None,
        }
    }
}

/// The instruction set native code is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// x86-64 at a tier.
    X64(Tier),
    /// AArch64 with NEON.
    Aarch64,
}

impl Target {
    /// Vertices per batch.
    pub fn lanes(self) -> usize {
        match self {
            Target::X64(t) => t.lanes(),
            Target::Aarch64 => aarch64::LANES,
        }
    }

    fn host_supports(self) -> bool {
        match self {
            Target::X64(t) => t.host_supports(),
            Target::Aarch64 => aarch64::Kernel::host_supports(),
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::X64(t) => write!(f, "{t:?}"),
            Target::Aarch64 if cfg!(target_arch = "aarch64") => write!(f, "AArch64 NEON"),
            Target::Aarch64 => write!(f, "AArch64 NEON under qemu-user"),
        }
    }
}

/// Engine construction errors.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EngineError {
    #[error("backend {0} needs instructions this CPU does not have (aarch64 on another host: qemu-aarch64-static)")]
    Unsupported(&'static str),
    #[error("PICAJIT_X64_TIER={0:?} is not one of sse41, avx2")]
    BadTierOverride(String),
}

/// How a compiled shader executes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecPath {
    /// Native code for a target.
    Native(Target),
    /// The interpreter, because the engine is the interpreter.
    Interpreter,
    /// The interpreter, because the program cannot run natively (the reason).
    Fallback(String),
}

impl std::fmt::Display for ExecPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecPath::Native(t) => write!(f, "native {t}"),
            ExecPath::Interpreter => write!(f, "interpreter"),
            ExecPath::Fallback(why) => write!(f, "interpreter fallback: {why}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct CacheKey {
    words: Vec<(u16, u32)>,
    descs: [u32; DESC_WORDS],
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
    cache: Mutex<FxHashMap<CacheKey, Arc<Shader>>>,
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
                    None if cfg!(target_arch = "aarch64") => Backend::Aarch64,
                    None => Backend::Interp,
                },
            },
            b => b,
        };
        if let Some(t) = backend.target() {
            if !t.host_supports() {
                return Err(EngineError::Unsupported(backend.name()));
            }
        }
        Ok(Engine {
            backend,
            budget: DEFAULT_BUDGET,
            cache: Mutex::new(FxHashMap::default()),
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
        let words = reachable_words(program);
        let key = CacheKey {
            descs: program.descs,
            entry: program.entry,
            kind: program.kind,
            backend: self.backend,
            budget: self.budget,
            words,
        };
        if let Some(s) = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Arc::clone(s);
        }
        let shader = Arc::new(Shader::build(
            program,
            &key.words,
            self.backend,
            self.budget,
        ));
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
    let mut seen = [0u64; CODE_WORDS / 64];
    let mut todo = Vec::with_capacity(16);
    todo.push(usize::from(program.entry));
    let mut words = Vec::with_capacity(64);
    let push = |todo: &mut Vec<usize>, a: usize| {
        if a < CODE_WORDS {
            todo.push(a);
        }
    };
    while let Some(pc) = todo.pop() {
        if seen[pc / 64] >> (pc % 64) & 1 != 0 {
            continue;
        }
        seen[pc / 64] |= 1 << (pc % 64);
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

/// Machine code of a kernel, for dumps.
#[derive(Clone, Debug)]
pub enum MachineCode {
    X64(x64::Compiled),
    Aarch64(aarch64::Compiled),
}

impl MachineCode {
    /// Bytes of code before the constant pool.
    pub fn code_len(&self) -> usize {
        match self {
            MachineCode::X64(c) => c.code_len,
            MachineCode::Aarch64(c) => c.code_len,
        }
    }
    /// Instructions before the constant pool (the static size of the kernel).
    pub fn instruction_count(&self) -> usize {
        match self {
            MachineCode::X64(c) => x64::instruction_count(c),
            MachineCode::Aarch64(c) => aarch64::instruction_count(c),
        }
    }
    /// Spill slots the kernel uses.
    pub fn spill_slots(&self) -> u32 {
        match self {
            MachineCode::X64(c) => c.spill_slots,
            MachineCode::Aarch64(c) => c.spill_slots,
        }
    }
    /// Vertices per batch.
    pub fn lanes(&self) -> usize {
        match self {
            MachineCode::X64(c) => c.tier.lanes(),
            MachineCode::Aarch64(_) => aarch64::LANES,
        }
    }
    /// The code as text, one instruction per line, then the constant pool.
    pub fn disassemble(&self) -> String {
        match self {
            MachineCode::X64(c) => x64::disassemble(c),
            MachineCode::Aarch64(c) => aarch64::disassemble(c),
        }
    }
}

/// A kernel ready to run.
#[derive(Debug)]
enum Code {
    X64(ExecCode),
    Aarch64(aarch64::Kernel),
}

impl Code {
    fn compile(func: &Function, target: Target, io: IoMode) -> Result<(Code, MachineCode), String> {
        match target {
            Target::X64(tier) => {
                let c = x64::compile(func, tier, io).map_err(|e| format!("backend: {e}"))?;
                let code = ExecCode::new(&c).map_err(|e| format!("executable memory: {e}"))?;
                Ok((Code::X64(code), MachineCode::X64(c)))
            }
            Target::Aarch64 => {
                let c = aarch64::compile(func, io).map_err(|e| format!("backend: {e}"))?;
                let code = aarch64::Kernel::new(&c).map_err(|e| format!("aarch64: {e}"))?;
                Ok((Code::Aarch64(code), MachineCode::Aarch64(c)))
            }
        }
    }

    /// `ExecCode::run_aos`; an error only from the qemu job server.
    fn run_aos(
        &self,
        ctx: &mut Context,
        input: &[Regs16],
        output: &mut [Regs16],
        status: &mut [u8],
        emit: Option<EmitBuffer<'_>>,
    ) -> Result<usize, String> {
        match self {
            Code::X64(c) => Ok(c.run_aos(ctx, input, output, status, emit)),
            Code::Aarch64(k) => k
                .run_aos(ctx, input, output, status, emit)
                .map_err(|e| e.to_string()),
        }
    }

    fn run_soa(
        &self,
        ctx: &mut Context,
        input: &[f32],
        output: &mut [f32],
        len: usize,
        status: &mut [u8],
    ) -> Result<usize, String> {
        match self {
            Code::X64(c) => Ok(c.run_soa(ctx, input, output, len, status)),
            Code::Aarch64(k) => k
                .run_soa(ctx, input, output, len, status)
                .map_err(|e| e.to_string()),
        }
    }
}

/// The kernels of one (possibly specialized) function.
#[derive(Debug)]
struct Kernels {
    func: Function,
    aos: Code,
    /// The SoA kernel, compiled on first use.
    soa: OnceLock<Result<Code, String>>,
}

impl Kernels {
    fn new(func: Function, target: Target) -> Result<(Kernels, MachineCode), String> {
        let (aos, compiled) = Code::compile(&func, target, IoMode::Aos)?;
        Ok((
            Kernels {
                func,
                aos,
                soa: OnceLock::new(),
            },
            compiled,
        ))
    }

    fn soa(&self, target: Target) -> Result<&Code, &str> {
        self.soa
            .get_or_init(|| Code::compile(&self.func, target, IoMode::Soa).map(|(c, _)| c))
            .as_ref()
            .map_err(String::as_str)
    }
}

/// Triangles a native geometry batch may emit before it is rerun on the interpreter.
const TRIANGLES_PER_BATCH: usize = 32;

/// The results of a geometry run in flat buffers ([`Shader::run_geometry_into`]), reusable
/// from run to run without reallocating.
#[derive(Clone, Debug, Default)]
pub struct GeometryOutput {
    /// Per invocation: o0..o15 when it ended (all 16 registers, 0.0 where never written).
    pub outputs: Vec<Regs16>,
    /// Per invocation: how it ended.
    pub status: Vec<VertexStatus>,
    /// Every emitted triangle, invocation after invocation, each in emission order.
    pub primitives: Vec<Primitive>,
    /// `first[i]..first[i + 1]`: the triangles of invocation i (one more entry than
    /// invocations after a run).
    pub first: Vec<usize>,
    /// The native kernels' triangle records (kept for the next run).
    records: Vec<Triangle>,
}

impl GeometryOutput {
    /// Number of invocations.
    pub fn len(&self) -> usize {
        self.outputs.len()
    }

    /// True if it holds no invocation.
    pub fn is_empty(&self) -> bool {
        self.outputs.is_empty()
    }

    /// The triangles invocation `i` emitted.
    pub fn primitives_of(&self, i: usize) -> &[Primitive] {
        &self.primitives[self.first[i]..self.first[i + 1]]
    }

    fn clear(&mut self) {
        self.outputs.clear();
        self.status.clear();
        self.primitives.clear();
        self.first.clear();
        self.first.push(0);
    }

    fn push(&mut self, inv: Invocation, primitives: bool) {
        self.outputs.push(inv.outputs);
        self.status.push(inv.status);
        if primitives {
            self.primitives.extend(inv.primitives);
        }
        self.first.push(self.primitives.len());
    }
}

/// Specialized kernels kept per shader; beyond this the generic kernel serves.
const MAX_VARIANTS: usize = 8;

/// A natively compiled shader.
#[derive(Debug)]
struct Native {
    /// Exact for any uniform values.
    generic: Arc<Kernels>,
    /// Kernels whose PICA multiplies by some uniform components are plain multiplies, keyed by
    /// which of `pmul_uniforms` are finite and non-zero.
    variants: Mutex<Vec<(Vec<bool>, Arc<Kernels>)>>,
    pmul_uniforms: Vec<(u32, u32)>,
    target: Target,
    /// The function emits (a geometry shader): runs go through [`Shader::run_geometry`].
    geometry: bool,
    /// Uniform components read through broadcast rows.
    rows: Vec<(usize, usize)>,
}

impl Native {
    /// The kernels for a run with these uniforms: a variant whose PICA multiplies by the
    /// finite, non-zero uniform components are plain multiplies, compiled on first use.
    fn kernels(&self, uniforms: &Uniforms) -> Arc<Kernels> {
        let safe = |c: u32, comp: u32| {
            uniforms
                .f
                .get(c as usize)
                .is_some_and(|v| v[comp as usize & 3].is_finite() && v[comp as usize & 3] != 0.0)
        };
        let key: Vec<bool> = self
            .pmul_uniforms
            .iter()
            .map(|&(c, comp)| safe(c, comp))
            .collect();
        if !key.contains(&true) {
            return Arc::clone(&self.generic);
        }
        let mut list = self.variants.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, k)) = list.iter().find(|(k, _)| *k == key) {
            return Arc::clone(k);
        }
        if list.len() >= MAX_VARIANTS {
            return Arc::clone(&self.generic);
        }
        let (func, _) = opt::specialize_pmul(&self.generic.func, &safe);
        match Kernels::new(func, self.target) {
            Ok((k, _)) => {
                let k = Arc::new(k);
                list.push((key, Arc::clone(&k)));
                k
            }
            Err(_) => Arc::clone(&self.generic),
        }
    }
}

#[derive(Debug)]
enum Exec {
    Native(Native),
    Interp,
}

/// A compiled shader: `Send + Sync`, shared through `Arc`.
#[derive(Debug)]
pub struct Shader {
    exec: Exec,
    /// The reference interpreter, built when first needed (fallback paths only).
    interp: OnceLock<Interpreter>,
    program: Program,
    path: ExecPath,
    machine_code: Option<MachineCode>,
    budget: u32,
    /// Output registers the program can write (bit r = o_r).
    outputs: u16,
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
    fn get(&self, r: usize, c: usize, v: usize) -> f32 {
        self.data[(r * 4 + c) * self.len + v]
    }
    fn set(&mut self, r: usize, c: usize, v: usize, x: f32) {
        self.data[(r * 4 + c) * self.len + v] = x;
    }
}

thread_local! {
    /// One batch context per thread, reused across runs (it is ~80 KB).
    static CONTEXT: RefCell<Option<Box<Context>>> = const { RefCell::new(None) };
}

fn with_context<R>(f: impl FnOnce(&mut Context) -> R) -> R {
    let mut ctx = CONTEXT.with(|c| c.borrow_mut().take()).unwrap_or_default();
    let result = f(&mut ctx);
    CONTEXT.with(|c| *c.borrow_mut() = Some(ctx));
    result
}

impl Shader {
    fn build(program: &Program, reachable: &[(u16, u32)], backend: Backend, budget: u32) -> Shader {
        let static_outputs = written_outputs(reachable);
        let interp_only = |path| Shader {
            exec: Exec::Interp,
            interp: OnceLock::new(),
            program: program.clone(),
            path,
            machine_code: None,
            budget,
            outputs: static_outputs,
        };
        let Some(target) = backend.target() else {
            return interp_only(ExecPath::Interpreter);
        };
        let mut func = match frontend::lower(program) {
            Ok(l) => l.func,
            Err(why) => return interp_only(ExecPath::Fallback(why.to_string())),
        };
        // Every register the program can write is stored, so the interpreter and native code
        // agree on which output registers a run defines.
        let (_, ir_outputs) = x64::io_sets(&func);
        let outputs = static_outputs | ir_outputs;
        mark_outputs(&mut func, outputs & !ir_outputs);
        let rows = uniform_rows(&func);
        let pmul_uniforms = opt::pmul_uniform_operands(&func);
        let geometry = func
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .any(|i| i.op == Op::Emit);
        let (generic, compiled) = match Kernels::new(func, target) {
            Ok(k) => k,
            Err(why) => return interp_only(ExecPath::Fallback(why)),
        };
        Shader {
            exec: Exec::Native(Native {
                generic: Arc::new(generic),
                variants: Mutex::new(Vec::new()),
                pmul_uniforms,
                target,
                rows,
                geometry,
            }),
            interp: OnceLock::new(),
            program: program.clone(),
            path: ExecPath::Native(target),
            machine_code: Some(compiled),
            budget,
            outputs,
        }
    }

    fn interp(&self) -> &Interpreter {
        self.interp
            .get_or_init(|| Interpreter::new(&self.program).with_budget(self.budget))
    }

    /// How this shader executes.
    pub fn path(&self) -> &ExecPath {
        &self.path
    }

    /// The IR it was compiled from (native shaders only; the generic kernel's).
    pub fn ir(&self) -> Option<&Function> {
        match &self.exec {
            Exec::Native(n) => Some(&n.generic.func),
            Exec::Interp => None,
        }
    }

    /// The machine code of the AoS kernel (native shaders only).
    pub fn machine_code(&self) -> Option<&MachineCode> {
        self.machine_code.as_ref()
    }

    /// Vertices per native batch (1 for the interpreter).
    pub fn lanes(&self) -> usize {
        match &self.exec {
            Exec::Native(n) => n.target.lanes(),
            Exec::Interp => 1,
        }
    }

    /// The output registers a run stores (bit r = o_r): every register the program can
    /// write. A run leaves the other registers of the output buffers untouched.
    pub fn outputs_written(&self) -> u16 {
        self.outputs
    }

    /// Runs vertex `n` of `inputs` into `outputs[n]` and `status[n]` (AoS, any length). Only
    /// the input registers the program reads are loaded and only the output registers it can
    /// write ([`Shader::outputs_written`], all four components, 0.0 where not written) are
    /// stored. Every status is written; the error names the first vertex that exhausted its
    /// step budget.
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
                    let aos = &kernels.aos;
                    self.prepare(ctx, uniforms, &native.rows);
                    let w = native.target.lanes();
                    let full = inputs.len() / w * w;
                    let mut bytes = vec![0u8; full / w];
                    aos.run_aos(ctx, &inputs[..full], &mut outputs[..full], &mut bytes, None)?;
                    for (batch, &b) in bytes.iter().enumerate() {
                        let range = batch * w..batch * w + w;
                        if b == DIVERGED {
                            for v in range {
                                (outputs[v], status[v]) =
                                    single(ctx, aos, w, &inputs[v], &outputs[v])?;
                            }
                        } else {
                            status[range].fill(status_of(b));
                        }
                    }
                    if full < inputs.len() {
                        // The tail: padded to a whole batch in a scratch buffer.
                        let rest = inputs.len() - full;
                        let mut tin = vec![[[0.0; 4]; 16]; w];
                        tin[..rest].copy_from_slice(&inputs[full..]);
                        let mut tout = vec![[[0.0; 4]; 16]; w];
                        tout[..rest].copy_from_slice(&outputs[full..]);
                        let mut b = [0u8];
                        aos.run_aos(ctx, &tin, &mut tout, &mut b, None)?;
                        if b[0] == DIVERGED {
                            for v in full..inputs.len() {
                                (outputs[v], status[v]) =
                                    single(ctx, aos, w, &inputs[v], &outputs[v])?;
                            }
                        } else {
                            outputs[full..].copy_from_slice(&tout[..rest]);
                            status[full..].fill(status_of(b[0]));
                        }
                    }
                    Ok::<(), String>(())
                });
                if ran.is_err() {
                    // Only the qemu job server can fail; the interpreter gives the same answer.
                    self.run_interp(uniforms, inputs, outputs, status);
                }
            }
        }
        self.result(status)
    }

    /// Runs every input as one invocation and returns, per vertex, its outputs (all 16
    /// registers, 0.0 where never written), status and the triangles it emitted — the API for
    /// geometry shaders (a vertex shader emits nothing). [`Shader::run_geometry_into`] gives
    /// the same in flat buffers a caller can reuse.
    pub fn run_geometry(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
    ) -> (Vec<Invocation>, Result<(), RunError>) {
        let mut out = GeometryOutput::default();
        let r = self.run_geometry_into(uniforms, inputs, &mut out);
        let result = (0..out.len())
            .map(|i| Invocation {
                outputs: out.outputs[i],
                status: out.status[i],
                primitives: out.primitives_of(i).to_vec(),
            })
            .collect();
        (result, r)
    }

    /// [`Shader::run_geometry`] into flat buffers: `out` is cleared (keeping its capacity)
    /// and holds, per invocation, its outputs, status and the range of its triangles in
    /// `out.primitives`. Native geometry kernels run one batch at a time; a batch that emits
    /// more triangles than the kernel's buffer holds is rerun on the interpreter, a batch whose
    /// lanes disagree vertex by vertex.
    pub fn run_geometry_into(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
        out: &mut GeometryOutput,
    ) -> Result<(), RunError> {
        self.geometry(uniforms, inputs, out, true)
    }

    /// [`Shader::run_geometry_into`], keeping the triangles only if `primitives` (else every
    /// invocation has none).
    fn geometry(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
        out: &mut GeometryOutput,
        primitives: bool,
    ) -> Result<(), RunError> {
        out.clear();
        match &self.exec {
            Exec::Interp => {
                for input in inputs {
                    out.push(self.interp().run_vertex(uniforms, input), primitives);
                }
            }
            Exec::Native(native) => with_context(|ctx| {
                let kernels = native.kernels(uniforms);
                self.prepare(ctx, uniforms, &native.rows);
                let w = native.target.lanes();
                let written: Vec<usize> = (0..16).filter(|r| self.outputs >> r & 1 != 0).collect();
                let mut records = std::mem::take(&mut out.records);
                records.resize(TRIANGLES_PER_BATCH, [[[Lanes::default(); 4]; 16]; 3]);
                let mut windings = [0u8; TRIANGLES_PER_BATCH];
                let mut tin = vec![[[0.0; 4]; 16]; w];
                let mut tout = vec![[[0.0; 4]; 16]; w];
                // One batch of `tin`; unless it overflowed or diverged, its first `keep` lanes
                // go to `out`. In a batch of one vertex broadcast to every lane (`broadcast`)
                // the lanes cannot disagree: status 3 there is a budget exhausted by a function
                // with masked regions (`Op::Budget`). Returns the status byte.
                let mut batch_run = |ctx: &mut Context,
                                     tin: &[Regs16],
                                     keep: usize,
                                     broadcast: bool,
                                     out: &mut GeometryOutput|
                 -> u8 {
                    tout.fill([[0.0; 4]; 16]);
                    let mut b = [0u8];
                    let emit = EmitBuffer {
                        triangles: &mut records,
                        windings: &mut windings,
                    };
                    if kernels
                        .aos
                        .run_aos(ctx, tin, &mut tout, &mut b, Some(emit))
                        .is_err()
                    {
                        // Only an emulator job can fail: the batch goes to the interpreter.
                        return OVERFLOW;
                    }
                    if b[0] == OVERFLOW || (b[0] == DIVERGED && !broadcast) {
                        return b[0];
                    }
                    let count = if primitives {
                        (ctx.scalars.emit_count as usize).min(TRIANGLES_PER_BATCH)
                    } else {
                        0
                    };
                    // Per lane, its triangles: only the registers the kernel writes (it copies
                    // no others into triangle records; they are 0.0 in every emitted vertex).
                    for (l, regs) in tout.iter().enumerate().take(keep) {
                        out.outputs.push(*regs);
                        out.status.push(status_of(b[0]));
                        for (tri, &winding) in records[..count].iter().zip(&windings) {
                            let mut vertices = [[[0.0; 4]; 16]; 3];
                            for (vertex, slot) in vertices.iter_mut().zip(tri) {
                                for &r in &written {
                                    vertex[r] = std::array::from_fn(|c| slot[r][c].0[l]);
                                }
                            }
                            out.primitives.push(Primitive {
                                vertices,
                                winding: winding != 0,
                            });
                        }
                        out.first.push(out.primitives.len());
                    }
                    b[0]
                };
                for batch in inputs.chunks(w) {
                    tin[..batch.len()].copy_from_slice(batch);
                    tin[batch.len()..].fill([[0.0; 4]; 16]);
                    match batch_run(ctx, &tin, batch.len(), false, out) {
                        OVERFLOW => {
                            // More triangles than the buffer holds: exact, on the interpreter.
                            for input in batch {
                                out.push(self.interp().run_vertex(uniforms, input), primitives);
                            }
                        }
                        DIVERGED => {
                            // Lanes disagreed: each vertex alone, broadcast to every lane.
                            for input in batch {
                                if batch_run(ctx, &vec![*input; w], 1, true, out) == OVERFLOW {
                                    out.push(self.interp().run_vertex(uniforms, input), primitives);
                                }
                            }
                        }
                        _ => {}
                    }
                }
                out.records = records;
            }),
        }
        self.result(&out.status)
    }

    /// Runs planar SoA buffers (see [`SoaBuffer`]): no transposes. Stores the same registers
    /// as [`Shader::run`].
    pub fn run_soa(
        &self,
        uniforms: &Uniforms,
        inputs: &SoaBuffer,
        outputs: &mut SoaBuffer,
        status: &mut [VertexStatus],
    ) -> Result<(), RunError> {
        check_lengths(inputs.len, outputs.len, status.len())?;
        if inputs.data.len() != 64 * inputs.len || outputs.data.len() != 64 * outputs.len {
            return Err(RunError::LengthMismatch {
                inputs: inputs.data.len() / 64,
                outputs: outputs.data.len() / 64,
                status: status.len(),
            });
        }
        let n = inputs.len;
        if let Exec::Native(native) = &self.exec {
            if native.geometry {
                let aos = inputs.to_aos();
                let mut out = outputs.to_aos();
                let result = self.run(uniforms, &aos, &mut out, status);
                *outputs = SoaBuffer::from_aos(&out);
                return result;
            }
        }
        match &self.exec {
            Exec::Interp => {
                for (v, st) in status.iter_mut().enumerate() {
                    let regs: Regs16 =
                        std::array::from_fn(|r| std::array::from_fn(|c| inputs.get(r, c, v)));
                    let inv = self.interp().run_vertex(uniforms, &regs);
                    for r in (0..16).filter(|r| self.outputs >> r & 1 != 0) {
                        for c in 0..4 {
                            outputs.set(r, c, v, inv.outputs[r][c]);
                        }
                    }
                    *st = inv.status;
                }
            }
            Exec::Native(native) => {
                let kernels = native.kernels(uniforms);
                let Ok(code) = kernels.soa(native.target) else {
                    // The AoS kernel compiled, so this cannot happen; stay exact regardless.
                    let aos = inputs.to_aos();
                    let mut out = outputs.to_aos();
                    let result = self.run(uniforms, &aos, &mut out, status);
                    *outputs = SoaBuffer::from_aos(&out);
                    return result;
                };
                let ran = with_context(|ctx| {
                    self.prepare(ctx, uniforms, &native.rows);
                    let w = native.target.lanes();
                    let mut bytes = vec![0u8; n / w];
                    let full =
                        code.run_soa(ctx, &inputs.data, &mut outputs.data, n, &mut bytes)? * w;
                    let mut diverged: Vec<usize> = Vec::new();
                    for (batch, &b) in bytes.iter().enumerate() {
                        let range = batch * w..batch * w + w;
                        if b == DIVERGED {
                            diverged.extend(range);
                        } else {
                            status[range].fill(status_of(b));
                        }
                    }
                    if full < n {
                        let rest = n - full;
                        let mut tin = vec![0.0; 64 * w];
                        let mut tout = vec![0.0; 64 * w];
                        for k in 0..64 {
                            tin[k * w..k * w + rest]
                                .copy_from_slice(&inputs.data[k * n + full..k * n + n]);
                            tout[k * w..k * w + rest]
                                .copy_from_slice(&outputs.data[k * n + full..k * n + n]);
                        }
                        let mut b = [0u8];
                        code.run_soa(ctx, &tin, &mut tout, w, &mut b)?;
                        if b[0] == DIVERGED {
                            diverged.extend(full..n);
                        } else {
                            for k in 0..64 {
                                outputs.data[k * n + full..k * n + n]
                                    .copy_from_slice(&tout[k * w..k * w + rest]);
                            }
                            status[full..].fill(status_of(b[0]));
                        }
                    }
                    // Batches whose lanes disagreed: one vertex at a time through the AoS kernel.
                    for v in diverged {
                        let input: Regs16 =
                            std::array::from_fn(|r| std::array::from_fn(|c| inputs.get(r, c, v)));
                        let before: Regs16 =
                            std::array::from_fn(|r| std::array::from_fn(|c| outputs.get(r, c, v)));
                        let (out, st) = single(ctx, &kernels.aos, w, &input, &before)?;
                        for r in (0..16).filter(|r| self.outputs >> r & 1 != 0) {
                            for (c, &x) in out[r].iter().enumerate() {
                                outputs.set(r, c, v, x);
                            }
                        }
                        status[v] = st;
                    }
                    Ok::<(), String>(())
                });
                if ran.is_err() {
                    // Only the qemu job server can fail; the interpreter gives the same answer.
                    self.run_soa_interp(uniforms, inputs, outputs, status);
                }
            }
        }
        self.result(status)
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

    fn run_interp(
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

    fn run_soa_interp(
        &self,
        uniforms: &Uniforms,
        inputs: &SoaBuffer,
        outputs: &mut SoaBuffer,
        status: &mut [VertexStatus],
    ) {
        for (v, st) in status.iter_mut().enumerate() {
            let regs: Regs16 =
                std::array::from_fn(|r| std::array::from_fn(|c| inputs.get(r, c, v)));
            let inv = self.interp().run_vertex(uniforms, &regs);
            for r in (0..16).filter(|r| self.outputs >> r & 1 != 0) {
                for c in 0..4 {
                    outputs.set(r, c, v, inv.outputs[r][c]);
                }
            }
            *st = inv.status;
        }
    }

    fn copy_written(&self, from: &Regs16, to: &mut Regs16) {
        for r in (0..16).filter(|r| self.outputs >> r & 1 != 0) {
            to[r] = from[r];
        }
    }

    /// Uniform tables, bools, ints and the budget for a run.
    fn prepare(&self, ctx: &mut Context, uniforms: &Uniforms, rows: &[(usize, usize)]) {
        ctx.uniforms[..96].copy_from_slice(&uniforms.f);
        for &(c, comp) in rows {
            ctx.uniform_rows[c * 4 + comp].0 = [uniforms.f[c][comp]; 16];
        }
        ctx.scalars.bools = u32::from(uniforms.b);
        ctx.scalars.ints = uniforms.i;
        ctx.io.budget = self.budget;
    }

    fn result(&self, status: &[VertexStatus]) -> Result<(), RunError> {
        RunError::from_statuses(status, self.budget)
    }
}

/// Batch status byte of a geometry batch that emitted more triangles than its buffer holds.
const OVERFLOW: u8 = 2;
/// Batch status byte of a batch whose lanes disagreed at a `BranchAgree`.
const DIVERGED: u8 = 3;

/// Runs one vertex alone: broadcast to every lane of a batch (so the lanes always agree at a
/// per-vertex branch), returning lane 0's outputs (`before` for the registers the kernel does
/// not store) and status.
fn single(
    ctx: &mut Context,
    aos: &Code,
    w: usize,
    input: &Regs16,
    before: &Regs16,
) -> Result<(Regs16, VertexStatus), String> {
    let tin = [*input; abi::MAX_LANES];
    let mut tout = [*before; abi::MAX_LANES];
    let mut b = [0u8];
    aos.run_aos(ctx, &tin[..w], &mut tout[..w], &mut b, None)?;
    Ok((tout[0], status_of(b[0])))
}

fn status_of(byte: u8) -> VertexStatus {
    if byte == 0 {
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

/// Output registers written by any reachable instruction (a superset of what runs write).
fn written_outputs(reachable: &[(u16, u32)]) -> u16 {
    let mut regs = 0u16;
    for &(_, word) in reachable {
        let instr = Instruction::decode(word);
        let writes_vector = !matches!(instr.opcode(), Opcode::Cmp | Opcode::Mova);
        if let (Some(alu), true) = (instr.alu(), writes_vector) {
            if let DstKind::Output(n) = alu.dst.kind() {
                regs |= 1 << n;
            }
        }
    }
    regs
}

/// Makes the IR store registers `regs` too (as zeros unless written), so native runs define the
/// same output registers as the interpreter path.
fn mark_outputs(func: &mut Function, regs: u16) {
    if regs == 0 {
        return;
    }
    let zero = func.vars.len() as u32;
    func.vars.push(picajit_codegen::ir::Ty::F32);
    let entry = &mut func.blocks[0].insts;
    let mut extra = vec![Inst {
        op: Op::FConst,
        dst: Some(Var(zero)),
        args: [Var(0); 3],
        imm: [0, 0],
    }];
    for r in (0..16u32).filter(|r| regs >> r & 1 != 0) {
        for c in 0..4 {
            extra.push(Inst {
                op: Op::Output,
                dst: None,
                args: [Var(zero); 3],
                imm: [r, c],
            });
        }
    }
    entry.splice(0..0, extra);
}

/// Uniform components read without an offset: the broadcast rows a run fills.
fn uniform_rows(func: &Function) -> Vec<(usize, usize)> {
    let mut rows: Vec<(usize, usize)> = func
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.op == Op::Uniform && (i.imm[0] & 0x7F) < 96)
        .map(|i| ((i.imm[0] & 0x7F) as usize, (i.imm[1] & 3) as usize))
        .collect();
    rows.sort_unstable();
    rows.dedup();
    rows
}
