//! The engine's shader cache: compiled shaders by what they run (reachable code, descriptors,
//! entry, kind, backend, budget), bounded by the machine-code bytes they hold and evicted
//! least recently used first, and the counters behind [`EngineStats`].
//!
//! Eviction only drops the cache's reference: a shader another thread (or a pipeline) still
//! holds through its `Arc` keeps running, and its executable memory is unmapped when the last
//! reference goes. The bound is enforced whenever a shader is added; kernels a cached shader
//! compiles later (its SoA kernel, uniform-specialized variants, draw kernels, possibly in
//! the background) count from then on. The cache keeps a running total of its bytes (never
//! below the truth), so an insert measures every shader only when that total passes the
//! bound. Shaders that run on the interpreter hold no machine code and are not
//! bounded (a backend without a JIT, or programs past the frontend's limits).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::backend::Backend;
use super::shader::Shader;
use crate::program::{ShaderKind, DESC_WORDS};

/// Default bound of the shader cache: 32 MiB of machine code.
pub const DEFAULT_CACHE_BYTES: usize = 32 << 20;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct CacheKey {
    pub(super) words: Vec<(u16, u32)>,
    pub(super) descs: [u32; DESC_WORDS],
    pub(super) entry: u16,
    pub(super) kind: ShaderKind,
    pub(super) backend: Backend,
    pub(super) budget: u32,
}

/// Counters shared by an engine and the shaders it compiled (background compiles count too),
/// and the code arena their kernels live in.
#[derive(Debug, Default)]
pub(super) struct Counters {
    /// The engine's long-lived executable memory: every x86-64 kernel of its shaders is placed
    /// here, and its pages return when the kernel's last handle drops.
    pub(super) arena: picajit_codegen::arena::CodeArena,
    pub(super) hits: AtomicU64,
    pub(super) misses: AtomicU64,
    pub(super) compiles: AtomicU64,
    pub(super) evictions: AtomicU64,
    pub(super) agal_fallbacks: AtomicU64,
    pub(super) agal_run_fallbacks: AtomicU64,
    /// Machine-code bytes of kernels shaders compiled after they were built (SoA, draw,
    /// uniform-specialized variants), cached or not, not yet added to the cache's total.
    grown: AtomicUsize,
}

impl Counters {
    pub(super) fn count(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Records that a shader's machine-code bytes grew by `bytes` (call once they are
    /// visible through [`Shader::code_bytes`]).
    pub(super) fn grew(&self, bytes: usize) {
        if bytes > 0 {
            self.grown.fetch_add(bytes, Ordering::AcqRel);
        }
    }
}

/// What an engine's cache did so far ([`super::Engine::stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineStats {
    /// `compile` calls answered from the cache.
    pub hits: u64,
    /// `compile` calls that built a shader.
    pub misses: u64,
    /// Machine-code kernels compiled: each shader's generic kernel, SoA kernels and
    /// uniform-specialized variants (also those compiled in the background).
    pub compiles: u64,
    /// Shaders dropped from the cache to keep it within its bound.
    pub evictions: u64,
    /// Machine-code bytes held by the cached shaders now.
    pub bytes: usize,
    /// Shaders in the cache now.
    pub shaders: usize,
    /// The bound on `bytes` (checked whenever a shader is added).
    pub capacity: usize,
    /// AGAL programs [`super::Engine::compile_agal`] built for a JIT backend that run on the
    /// interpreter instead (the reason is in [`super::AgalShader::path`]).
    pub agal_fallbacks: u64,
    /// Runs of natively compiled AGAL programs whose native execution failed (only the
    /// qemu-user job server can fail) and that the interpreter ran instead.
    pub agal_run_fallbacks: u64,
}

impl Counters {
    pub(super) fn snapshot(&self) -> EngineStats {
        EngineStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            compiles: self.compiles.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            agal_fallbacks: self.agal_fallbacks.load(Ordering::Relaxed),
            agal_run_fallbacks: self.agal_run_fallbacks.load(Ordering::Relaxed),
            ..EngineStats::default()
        }
    }
}

/// Shaders by key, with the tick of their last use and their bytes as last measured.
#[derive(Debug)]
pub(super) struct Cache {
    map: FxHashMap<CacheKey, Entry>,
    tick: u64,
    pub(super) capacity: usize,
    /// At least the cached shaders' bytes: the sum of the entries' `bytes` plus every growth
    /// reported since they were measured (also of shaders no longer cached, so it may be
    /// more). Exact after [`Cache::recount`].
    total: usize,
}

#[derive(Debug)]
struct Entry {
    shader: Arc<Shader>,
    used: u64,
    /// [`Shader::code_bytes`] when last measured (the shader may have compiled kernels since).
    bytes: usize,
}

impl Cache {
    pub(super) fn new(capacity: usize) -> Cache {
        Cache {
            map: FxHashMap::default(),
            tick: 0,
            capacity,
            total: 0,
        }
    }

    /// The shader for `key`, marked as just used.
    pub(super) fn get(&mut self, key: &CacheKey) -> Option<Arc<Shader>> {
        self.tick += 1;
        let tick = self.tick;
        self.map.get_mut(key).map(|e| {
            e.used = tick;
            Arc::clone(&e.shader)
        })
    }

    /// Adds `shader` under `key` (or returns the one another thread added first), then drops
    /// least recently used shaders, never this one, until the cache is within its bound.
    /// Returns the cached shader and how many were evicted.
    ///
    /// The bound is checked against a running total: the bytes of each shader when it was
    /// added or last measured, plus the kernels shaders compiled since (`counters`), which is
    /// never less than what the cache holds. Only when that total passes the bound are the
    /// shaders measured again (exactly, before anything is evicted), so adding a shader to a
    /// cache within its bound costs O(1).
    pub(super) fn insert(
        &mut self,
        key: CacheKey,
        shader: Arc<Shader>,
        counters: &Counters,
    ) -> (Arc<Shader>, u64) {
        self.tick += 1;
        let tick = self.tick;
        let kept = match self.map.entry(key.clone()) {
            std::collections::hash_map::Entry::Occupied(e) => Arc::clone(&e.get().shader),
            std::collections::hash_map::Entry::Vacant(v) => {
                let bytes = shader.code_bytes();
                self.total += bytes;
                let e = v.insert(Entry {
                    shader,
                    used: tick,
                    bytes,
                });
                Arc::clone(&e.shader)
            }
        };
        self.total += counters.grown.swap(0, Ordering::AcqRel);
        if self.total > self.capacity {
            self.recount(counters);
        }
        let mut evicted = 0;
        while self.map.len() > 1 && self.total > self.capacity {
            let oldest = self
                .map
                .iter()
                .filter(|(k, _)| **k != key)
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone());
            let Some(gone) = oldest.and_then(|k| self.map.remove(&k)) else {
                break;
            };
            self.total -= gone.bytes;
            evicted += 1;
        }
        (kept, evicted)
    }

    /// Measures every shader again (growth reported meanwhile is added again at the next
    /// insert: the total errs only upwards).
    fn recount(&mut self, counters: &Counters) {
        counters.grown.swap(0, Ordering::AcqRel);
        self.total = 0;
        for e in self.map.values_mut() {
            e.bytes = e.shader.code_bytes();
            self.total += e.bytes;
        }
    }

    /// Machine-code bytes of the cached shaders now (every shader measured).
    pub(super) fn bytes(&self) -> usize {
        self.map.values().map(|e| e.shader.code_bytes()).sum()
    }

    pub(super) fn len(&self) -> usize {
        self.map.len()
    }
}
