//! The engine API: pick a backend, compile programs (cached), run batches of vertices.
//!
//! ```text
//! Engine::new(Backend::Auto) ─ compile(&Program) ─▶ Arc<Shader> ─ run / run_soa / run_par
//!        │ cache: (reachable code, descriptors, entry, kind, backend) → Arc<Shader>
//! ```
//!
//! A shader runs natively when the frontend can lower it and the backend can compile it;
//! otherwise (programs beyond the frontend's bounds) it runs on the reference interpreter —
//! never a different answer, only a slower path. [`Shader::path`] says which, and why.
//!
//! Rooms: `backend` (which engine, targets, paths), `kernels` (compiled code and its
//! uniform-specialized variants), `shader` (a compiled shader and its AoS runs), `soa`
//! (planar buffers and SoA runs), `geometry` (geometry-shader runs and their flat results).

mod backend;
mod geometry;
mod kernels;
mod shader;
mod soa;

#[cfg(test)]
mod timed_tests;

pub use backend::{Backend, EngineError, ExecPath, Target};
pub use geometry::GeometryOutput;
pub use kernels::MachineCode;
/// The compile-time breakdown [`Engine::compile_timed`] fills.
pub use picajit_codegen::timings::Timings;
pub use shader::Shader;
pub use soa::SoaBuffer;

use std::sync::{Arc, Mutex};

use picajit_codegen::timings::Clock;
use picajit_codegen::x64::Tier;
use rustc_hash::FxHashMap;

use crate::interp::DEFAULT_BUDGET;
use crate::isa::{Fmt2, Fmt3b, Fmt3i, Format, Instruction, Opcode};
use crate::program::{Program, ShaderKind, CODE_WORDS, DESC_WORDS};

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

    /// A cold compile of `program`, timed: what [`Engine::compile`] does on a cache miss, with
    /// the duration of each phase added to `timings` — `reachability` (the reachable code words,
    /// which the cache key holds), the frontend's (`explore`, `ir build`, `uniformity`, `branch
    /// conversion`, the passes `simplify_cfg`, `cse`, `dce`, `simplify_cfg 2`, `verify`, `budget
    /// check`), `prepare`, the backend's (`backend verify`, `liveness`, `regalloc`, `emit`,
    /// `assemble`), `map` (executable memory) and `shader`. Phases a program does not reach
    /// (an interpreter engine, a fallback) are absent. The cache is neither consulted nor
    /// filled, so every call compiles; plain [`Engine::compile`] reads no clock at all.
    pub fn compile_timed(&self, program: &Program, timings: &mut Timings) -> Arc<Shader> {
        let mut clock = Clock::on(timings);
        let words = reachable_words(program);
        clock.lap("reachability");
        let shader = Shader::build_timed(program, &words, self.backend, self.budget, &mut clock);
        let shader = Arc::new(shader);
        clock.lap("shader");
        shader
    }

    /// Number of cached shaders.
    pub fn cached(&self) -> usize {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// How many code words are reachable from the entry of `program` (following every branch, call
/// body and scope end): the words the cache key holds.
pub fn reachable_len(program: &Program) -> usize {
    reachable_words(program).len()
}

/// The code words reachable from the entry (following every branch, call body and
/// fall-through), with their addresses: what the cache key hashes instead of all 4096 words.
pub(crate) fn reachable_words(program: &Program) -> Vec<(u16, u32)> {
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
