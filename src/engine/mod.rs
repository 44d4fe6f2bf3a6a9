//! The engine API: pick a backend, compile programs (cached), run batches of vertices.
//!
//! ```text
//! Engine::new(Backend::Auto) ─ compile(&Program) ─▶ Arc<Shader> ─ run / run_soa / run_par
//!        │ cache: (reachable code, descriptors, entry, kind, backend) → Arc<Shader>,
//!        │        LRU-bounded by machine-code bytes; stats()
//! ```
//!
//! `compile` builds the generic kernel (exact for any uniforms). Other kernels — the SoA
//! kernel, variants specialized to the uniforms of a run — are compiled when a run first
//! needs them: by default on the rayon pool while that run and the next ones use the generic
//! kernel (no run waits for a compile; [`Shader::prepare`] compiles them up front), or, with
//! [`Engine::with_background_compile`]`(false)`, by the running thread before it runs.
//!
//! A shader runs natively when the frontend can lower it and the backend can compile it;
//! otherwise (programs beyond the frontend's bounds) it runs on the reference interpreter —
//! never a different answer, only a slower path. [`Shader::path`] says which, and why.
//!
//! AGAL programs compile through [`Engine::compile_agal`] into an [`AgalShader`] (`agal`).
//!
//! Rooms: `backend` (which engine, targets, paths), `cache` (the bounded shader cache and
//! its counters), `kernels` (compiled code, its uniform-specialized variants and background
//! compiles), `shader` (a compiled shader and its AoS runs), `soa` (planar buffers and SoA
//! runs), `geometry` (geometry-shader runs and their flat results), `draw` (draws through
//! draw kernels), `draw_width` (the target draw kernels are compiled for).

mod agal;
mod backend;
mod cache;
mod draw;
mod draw_width;
pub(crate) use draw::{DrawMemo, DrawSite, DrawVertices};
mod geometry;
mod kernels;
mod lowered;
mod shader;
mod soa;

#[cfg(test)]
mod timed_tests;

pub use agal::{AgalRunError, AgalShader};
pub use backend::{Backend, EngineError, ExecPath, Target};
pub use cache::{EngineStats, DEFAULT_CACHE_BYTES};
pub use draw_width::DrawWidth;
pub use geometry::GeometryOutput;
pub use kernels::MachineCode;
/// The compile-time breakdown [`Engine::compile_timed`] fills.
pub use picajit_codegen::timings::Timings;
pub use shader::Shader;
pub use soa::SoaBuffer;

use std::sync::{Arc, Mutex};

use picajit_codegen::timings::Clock;

use cache::{Cache, CacheKey, Counters};
use kernels::AosCompile;

use crate::interp::DEFAULT_BUDGET;
use crate::program::Program;

/// Compiles and caches shaders for one backend. `Send + Sync`: threads may compile and run
/// through one engine at once.
#[derive(Debug)]
pub struct Engine {
    backend: Backend,
    budget: u32,
    background: bool,
    draw_width: DrawWidth,
    cache: Mutex<Cache>,
    counters: Arc<Counters>,
    /// Compiled AGAL programs ([`Engine::compile_agal`]).
    agal_cache: Mutex<rustc_hash::FxHashMap<agal::AgalKey, Arc<AgalShader>>>,
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
            if !t.runs_here() {
                return Err(EngineError::Unsupported(backend.name()));
            }
        }
        Ok(Engine {
            backend,
            budget: DEFAULT_BUDGET,
            background: true,
            draw_width: DrawWidth::Auto,
            cache: Mutex::new(Cache::new(DEFAULT_CACHE_BYTES)),
            counters: Arc::default(),
            agal_cache: Mutex::new(rustc_hash::FxHashMap::default()),
        })
    }

    /// The same engine with another bound on its cache's machine-code bytes (default
    /// [`DEFAULT_CACHE_BYTES`]). The most recently added shader always stays, so one
    /// shader larger than the bound still compiles.
    pub fn with_cache_bytes(self, bytes: usize) -> Engine {
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .capacity = bytes;
        self
    }

    /// The same engine with background compiling on (the default: kernels a run needs but
    /// does not have are compiled on the rayon pool while the generic kernel serves) or off
    /// (the running thread compiles them before it runs — deterministic, for tests and
    /// benchmarks that must exercise every kernel).
    pub fn with_background_compile(mut self, on: bool) -> Engine {
        self.background = on;
        self
    }

    /// The same engine with another width for its draw kernels (default [`DrawWidth::Auto`]:
    /// an AVX-512 engine on a CPU that splits 512-bit operations in two draws with AVX2
    /// kernels; its runs stay at 16 lanes). Shaders compiled before keep the width they
    /// have: set it before compiling.
    pub fn with_draw_width(mut self, width: DrawWidth) -> Engine {
        self.draw_width = width;
        self
    }

    /// What the cache did so far and what it holds.
    pub fn stats(&self) -> EngineStats {
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        EngineStats {
            bytes: cache.bytes(),
            shaders: cache.len(),
            capacity: cache.capacity,
            ..self.counters.snapshot()
        }
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

    /// Compiles `program`, or returns the cached shader for the same reachable code. Its
    /// generic kernel is compiled (so [`Shader::path`] says how it runs, for good).
    pub fn compile(&self, program: &Program) -> Arc<Shader> {
        let shader = self.lookup(program, AosCompile::Now);
        // A shader a draw added compiles its AoS kernel on first use: that is now.
        shader.compile_aos();
        shader
    }

    /// [`Engine::compile`] for a draw: a shader built here compiles its generic AoS kernel on
    /// first use, so that a first draw compiles only the draw kernel it runs (and
    /// [`Shader::path`] may still turn into an interpreter fallback if that AoS kernel later
    /// fails to compile).
    pub(crate) fn compile_for_draw(&self, program: &Program) -> Arc<Shader> {
        self.lookup(program, AosCompile::OnFirstUse)
    }

    /// The cached shader for `program`, or one built now with its AoS kernel compiled `aos`.
    fn lookup(&self, program: &Program, aos: AosCompile) -> Arc<Shader> {
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
            Counters::count(&self.counters.hits);
            return s;
        }
        Counters::count(&self.counters.misses);
        let shader = Arc::new(Shader::build(program, &key.words, self, aos));
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let (shader, evicted) = cache.insert(key, shader, &self.counters);
        self.counters
            .evictions
            .fetch_add(evicted, std::sync::atomic::Ordering::Relaxed);
        shader
    }

    /// A cold compile of `program`, timed: what [`Engine::compile`] does on a cache miss, with
    /// the duration of each phase added to `timings` — `reachability` (the reachable code words,
    /// which the cache key holds), the frontend's (`explore`, `ir build`, `uniformity`, `branch
    /// conversion`, the passes `simplify_cfg`, `cse`, `dce`, `simplify_cfg 2`, `verify`, `budget
    /// check`), `prepare`, the backend's (`backend prepare`, `liveness`, `regalloc`, `emit`,
    /// `assemble`), `map` (executable memory) and `shader`. Phases a program does not reach
    /// (an interpreter engine, a fallback) are absent. The cache is neither consulted nor
    /// filled, so every call compiles; plain [`Engine::compile`] reads no clock at all.
    pub fn compile_timed(&self, program: &Program, timings: &mut Timings) -> Arc<Shader> {
        let mut clock = Clock::on(timings);
        let words = program.reachable_words();
        clock.lap("reachability");
        let shader = Shader::build_timed(program, &words, self, AosCompile::Now, &mut clock);
        let shader = Arc::new(shader);
        clock.lap("shader");
        shader
    }

    /// Number of cached shaders.
    pub fn cached(&self) -> usize {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}
