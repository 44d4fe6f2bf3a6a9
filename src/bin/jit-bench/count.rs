//! `jit-bench --draw --count OP`: one operation of the draw workload per shader and backend,
//! made inside [`counted`] after the same set-up and warm-up as the timed draw rows, so that
//! an instruction counter can measure that operation alone:
//!
//! ```text
//! valgrind --tool=callgrind --collect-atstart=no \
//!     --toggle-collect='jit_bench::count::counted' \
//!     jit-bench --draw --count first --backend x64-sse41 --shader lighting
//! ```
//!
//! The toggle names the function exactly: a pattern such as `*counted*` also matches the
//! x86-64 emitter's `load_attribute_counted` and `insert_attribute_counted`, so every draw
//! kernel compiled anywhere in the process (the set-up's included, on any thread) would switch
//! collection on or off for the length of those calls.
//!
//! Only the calling thread's instructions are inside `counted`: kernels compiled on the rayon
//! pool are not, as thread CPU time leaves them out of the timed rows. While the operation is
//! counted every rayon worker is held ([`HeldPool`]), so no background compile can finish
//! and be picked up half-way (under valgrind, whose threads take turns, one would sometimes
//! run to its end at the spawn): a new shader's first draw and first run both take its
//! generic kernels, every time.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock, RwLockWriteGuard};

use clap::ValueEnum;
use picajit::engine::{Backend, Engine};
use picajit::pica::Unit;
use picajit::pipeline::{DrawOutput, Indices};

use crate::draw::{data, start, DrawWorkload, Start, RANGE, UNUSED_DESC};

/// The operation `--count` makes once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Op {
    /// One draw of the dense 4,096-index list, its kernels compiled.
    Draw,
    /// The same vertices drawn as a range.
    Range,
    /// One draw of a sparse list (the dense list's indices × 3), right after the other
    /// sparse list: a fresh deduplication and the indexed kernel.
    Sparse,
    /// A bare AoS `Shader::run` of the draw's unique vertices (its kernels compiled).
    Run,
    /// The first draw of a new shader (an unused descriptor changed) in a pipeline that has
    /// drawn before: its compile included.
    First,
    /// A cold `Engine::compile` of that new shader.
    Compile,
    /// A cold `Engine::compile` and one `Shader::run` of the draw's unique vertices: the
    /// bound of the first draw.
    CompileRun,
}

/// Closed (written) while the rayon workers are held.
static GATE: RwLock<()> = RwLock::new(());

/// Every worker of the rayon pool, each held in a job of its own until this is dropped.
struct HeldPool {
    _closed: RwLockWriteGuard<'static, ()>,
}

impl HeldPool {
    fn hold() -> HeldPool {
        let closed = GATE.write().unwrap_or_else(|p| p.into_inner());
        let started = Arc::new(AtomicUsize::new(0));
        let workers = rayon::current_num_threads();
        for _ in 0..workers {
            let started = Arc::clone(&started);
            rayon::spawn(move || {
                started.fetch_add(1, Ordering::AcqRel);
                drop(GATE.read());
            });
        }
        while started.load(Ordering::Acquire) < workers {
            std::thread::yield_now();
        }
        HeldPool { _closed: closed }
    }
}

/// Runs `f` once; the function an instruction counter toggles on (never inlined).
#[inline(never)]
fn counted<R>(f: impl FnOnce() -> R) -> R {
    std::hint::black_box(f())
}

/// Sets up `w` on `backend` as [`crate::draw::measure`] does and makes `op` once inside
/// [`counted`].
pub fn count(w: &DrawWorkload, backend: Backend, op: Op) {
    let d = data(w.attributes);
    let attributes = d.attributes();
    let mut s: Start = start(w, backend, &d);
    let range = RANGE;
    let mut ranged = DrawOutput::new();
    let mut sparse = DrawOutput::new();
    // Warm-up: every kernel compiled (background compiles given time to finish), every
    // buffer grown.
    for _ in 0..2 {
        let _ = s.p.draw(Indices::U16(&d.indices), &attributes, &mut s.out);
        let _ = s.p.draw(range, &attributes, &mut ranged);
        for list in d.sparse.iter().rev() {
            let _ = s.p.draw(Indices::U16(list), &attributes, &mut sparse);
        }
        let _ = s
            .shader
            .run(&s.uniforms, &s.records, &mut s.run_out, &mut s.status);
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // A new program (an unused descriptor changed) for the first draw and the cold compiles.
    if matches!(op, Op::First | Op::Compile | Op::CompileRun) {
        s.p.regs_mut()
            .upload_descs(Unit::Vertex, UNUSED_DESC, &[0x1000]);
    }
    let program = s.p.regs().program(Unit::Vertex);
    let cold = Engine::new(backend).expect("an available backend");
    let held = HeldPool::hold();
    match op {
        Op::Draw | Op::First => {
            let _ = counted(|| s.p.draw(Indices::U16(&d.indices), &attributes, &mut s.out));
        }
        Op::Range => {
            let _ = counted(|| s.p.draw(range, &attributes, &mut ranged));
        }
        Op::Sparse => {
            let _ =
                s.p.draw(Indices::U16(&d.sparse[1]), &attributes, &mut sparse);
            let _ = counted(|| {
                s.p.draw(Indices::U16(&d.sparse[0]), &attributes, &mut sparse)
            });
        }
        Op::Run => {
            let _ = counted(|| {
                s.shader
                    .run(&s.uniforms, &s.records, &mut s.run_out, &mut s.status)
            });
        }
        Op::Compile => {
            counted(|| cold.compile(&program));
        }
        Op::CompileRun => {
            let _ = counted(|| {
                let shader = cold.compile(&program);
                shader.run(&s.uniforms, &s.records, &mut s.run_out, &mut s.status)
            });
        }
    }
    drop(held);
}
