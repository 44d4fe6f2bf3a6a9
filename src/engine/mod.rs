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
use rustc_hash::FxHashMap;

use crate::interp::DEFAULT_BUDGET;
use crate::program::{Program, ShaderKind, DESC_WORDS};

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
    /// An engine for `backend`. `Auto` is resolved here and never fails (see
    /// [`Backend::Auto`]); a concrete backend this host cannot run is
    /// [`EngineError::Unsupported`].
    pub fn new(backend: Backend) -> Result<Engine, EngineError> {
        let backend = match backend {
            Backend::Auto => Backend::auto(),
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
        let words = program.reachable_words();
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
        let words = program.reachable_words();
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
    program.reachable_words().len()
}
