//! The engine's shader cache: compiled shaders by what they run (reachable code, descriptors,
//! entry, kind, backend, budget), bounded by the machine-code bytes they hold and evicted
//! least recently used first, and the counters behind [`EngineStats`].
//!
//! Eviction only drops the cache's reference: a shader another thread (or a pipeline) still
//! holds through its `Arc` keeps running, and its executable memory is unmapped when the last
//! reference goes. The bound is enforced whenever a shader is added; kernels a cached shader
//! compiles later (its SoA kernel, uniform-specialized variants, possibly in the background)
//! count from then on. Shaders that run on the interpreter hold no machine code and are not
//! bounded (a backend without a JIT, or programs past the frontend's limits).

use std::sync::atomic::{AtomicU64, Ordering};
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

/// Counters shared by an engine and the shaders it compiled (background compiles count too).
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) hits: AtomicU64,
    pub(super) misses: AtomicU64,
    pub(super) compiles: AtomicU64,
    pub(super) evictions: AtomicU64,
    pub(super) agal_fallbacks: AtomicU64,
    pub(super) agal_run_fallbacks: AtomicU64,
}

impl Counters {
    pub(super) fn count(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
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

/// Shaders by key, with the tick of their last use.
#[derive(Debug)]
pub(super) struct Cache {
    map: FxHashMap<CacheKey, (Arc<Shader>, u64)>,
    tick: u64,
    pub(super) capacity: usize,
}

impl Cache {
    pub(super) fn new(capacity: usize) -> Cache {
        Cache {
            map: FxHashMap::default(),
            tick: 0,
            capacity,
        }
    }

    /// The shader for `key`, marked as just used.
    pub(super) fn get(&mut self, key: &CacheKey) -> Option<Arc<Shader>> {
        self.tick += 1;
        let tick = self.tick;
        self.map.get_mut(key).map(|(shader, used)| {
            *used = tick;
            Arc::clone(shader)
        })
    }

    /// Adds `shader` under `key` (or returns the one another thread added first), then drops
    /// least recently used shaders, never this one, until the cache is within its bound.
    /// Returns the cached shader and how many were evicted.
    pub(super) fn insert(&mut self, key: CacheKey, shader: Arc<Shader>) -> (Arc<Shader>, u64) {
        self.tick += 1;
        let tick = self.tick;
        let kept = Arc::clone(&self.map.entry(key.clone()).or_insert((shader, tick)).0);
        let mut evicted = 0;
        while self.map.len() > 1 && self.bytes() > self.capacity {
            let oldest = self
                .map
                .iter()
                .filter(|(k, _)| **k != key)
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => {
                    self.map.remove(&k);
                    evicted += 1;
                }
                None => break,
            }
        }
        (kept, evicted)
    }

    /// Machine-code bytes of the cached shaders.
    pub(super) fn bytes(&self) -> usize {
        self.map.values().map(|(s, _)| s.code_bytes()).sum()
    }

    pub(super) fn len(&self) -> usize {
        self.map.len()
    }
}
