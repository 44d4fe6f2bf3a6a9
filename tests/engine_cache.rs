//! The engine's shader cache and compile scheduling: `Engine::stats`, the LRU bound over
//! machine-code bytes (eviction while another thread still runs the evicted shader),
//! background compiling of SoA and uniform-specialized kernels (runs never wait, results
//! never change), `Shader::prepare`, `Shader::inputs_read`.

mod common;

use std::sync::Arc;

use picajit::asm::{assemble, Source};
use picajit::engine::{Backend, Engine, SoaBuffer};
use picajit::interp::Interpreter;
use picajit::program::{Program, Regs16, Uniforms, VertexStatus};

fn program(text: &str) -> Program {
    let (shbin, _) = assemble(&[Source::new("t.v.pica", text)]).unwrap();
    shbin.program(0).unwrap()
}

/// A family of distinct programs (k < 95): o0 = v0 * c0 + c(k + 1).
fn numbered(k: u32) -> Program {
    program(&format!(
        ".out o position\n.proc main\n    mul r0, c0, v0\n    add o, c{}, r0\n    end\n.end\n",
        k + 1
    ))
}

fn inputs(n: usize) -> Vec<Regs16> {
    (0..n)
        .map(|v| {
            let mut r = [[0.0; 4]; 16];
            r[0] = [v as f32, 0.5, -1.0, 2.0];
            r[1] = [1.0, 2.0, 3.0, v as f32];
            r
        })
        .collect()
}

fn uniforms() -> Uniforms {
    let mut u = Uniforms::default();
    u.f[0] = [2.0, -3.0, 0.0, f32::INFINITY];
    u.f[1] = [0.5, 0.25, 4.0, 1.0];
    u
}

fn same(a: &[Regs16], b: &[Regs16]) -> bool {
    a.iter()
        .flatten()
        .flatten()
        .zip(b.iter().flatten().flatten())
        .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

fn interp(p: &Program, u: &Uniforms, inputs: &[Regs16]) -> Vec<Regs16> {
    let i = Interpreter::new(p);
    inputs.iter().map(|v| i.run_vertex(u, v).outputs).collect()
}

fn backends() -> Vec<Backend> {
    let all = Backend::runnable();
    if !all.contains(&Backend::Aarch64) {
        common::aarch64_missing();
    }
    all
}

#[test]
fn stats_count_hits_misses_and_compiles() {
    for backend in backends() {
        let engine = Engine::new(backend).unwrap().with_background_compile(false);
        let a = engine.compile(&numbered(1));
        let _ = engine.compile(&numbered(2));
        let again = engine.compile(&numbered(1));
        assert!(Arc::ptr_eq(&a, &again));
        let s = engine.stats();
        assert_eq!(
            (s.hits, s.misses, s.evictions, s.shaders),
            (1, 2, 0, 2),
            "{backend:?}"
        );
        if backend == Backend::Interp {
            assert_eq!((s.compiles, s.bytes), (0, 0));
            continue;
        }
        // One generic kernel each; the bytes are theirs.
        assert_eq!(s.compiles, 2, "{backend:?}");
        assert_eq!(
            s.bytes,
            a.code_bytes() + engine.compile(&numbered(2)).code_bytes()
        );
        assert!(a.code_bytes() > 0);
        // A SoA run compiles the SoA kernel, a run with a finite non-zero c0 a variant.
        let n = 16;
        let mut out = SoaBuffer::new(n);
        let mut status = vec![VertexStatus::Ended; n];
        let mut u = Uniforms::default();
        a.run_soa(&u, &SoaBuffer::from_aos(&inputs(n)), &mut out, &mut status)
            .unwrap();
        assert_eq!(engine.stats().compiles, 3, "{backend:?}");
        u.f[0] = [2.0; 4];
        let mut aos = vec![[[0.0; 4]; 16]; n];
        a.run(&u, &inputs(n), &mut aos, &mut status).unwrap();
        assert_eq!(engine.stats().compiles, 4, "{backend:?}");
        assert!(engine.stats().bytes > s.bytes);
    }
}

/// The backend the cache-bound tests use (the second available one: the first JIT tier) and
/// the machine-code bytes of one `numbered` shader on it; `None` if that backend holds no
/// machine code (an interpreter-only host).
fn bound_backend() -> Option<(Backend, usize)> {
    let backend = Backend::available()[Backend::available().len().min(2) - 1];
    let one = Engine::new(backend)
        .unwrap()
        .compile(&numbered(0))
        .code_bytes();
    (one != 0).then_some((backend, one))
}

#[test]
fn the_cache_stays_within_its_bound_least_recently_used_first() {
    let Some((backend, one)) = bound_backend() else {
        return; // the interpreter holds no machine code: nothing to bound
    };
    // Room for three shaders of this size.
    let engine = Engine::new(backend)
        .unwrap()
        .with_cache_bytes(3 * one + one / 2)
        .with_background_compile(false);
    let shaders: Vec<_> = (0..3).map(|k| engine.compile(&numbered(k))).collect();
    assert_eq!(engine.stats().shaders, 3);
    // Use 0 again: 1 is now the least recently used and goes first.
    engine.compile(&numbered(0));
    engine.compile(&numbered(3));
    let s = engine.stats();
    assert_eq!((s.shaders, s.evictions), (3, 1));
    assert!(s.bytes <= s.capacity, "{s:?}");
    let before = engine.stats().misses;
    engine.compile(&numbered(0));
    engine.compile(&numbered(2));
    assert_eq!(engine.stats().misses, before, "0 and 2 stayed");
    engine.compile(&numbered(1));
    assert_eq!(engine.stats().misses, before + 1, "1 was evicted");
    drop(shaders);
    // A bound smaller than one shader still compiles (the newest always stays).
    let tiny = Engine::new(backend).unwrap().with_cache_bytes(1);
    for k in 0..4 {
        tiny.compile(&numbered(k));
    }
    let s = tiny.stats();
    assert_eq!((s.shaders, s.evictions, s.misses), (1, 3, 4));
}

#[test]
fn kernels_a_cached_shader_compiles_later_count_at_the_next_insert() {
    let Some((backend, one)) = bound_backend() else {
        return; // the interpreter holds no machine code: nothing to bound
    };
    // Room for two shaders with only their generic kernels.
    let engine = Engine::new(backend)
        .unwrap()
        .with_cache_bytes(2 * one + one / 2)
        .with_background_compile(false);
    let a = engine.compile(&numbered(0));
    let mut u = uniforms();
    u.f[0] = [2.0; 4];
    // The SoA kernels and the variant for these uniforms: `a` now holds more than `one`
    // twice over, though the cache measured it at `one` when it was added.
    a.prepare(&u);
    assert!(a.code_bytes() > 2 * one, "{} vs {one}", a.code_bytes());
    engine.compile(&numbered(1));
    let s = engine.stats();
    assert_eq!((s.shaders, s.evictions), (1, 1), "{s:?}");
    assert!(s.bytes <= s.capacity, "{s:?}");
    // `a` was the one to go: compiling it again is a miss.
    let misses = s.misses;
    engine.compile(&numbered(0));
    assert_eq!(engine.stats().misses, misses + 1);
}

#[test]
fn an_evicted_shader_keeps_running_on_another_thread() {
    for backend in backends() {
        let engine = Arc::new(Engine::new(backend).unwrap().with_cache_bytes(1));
        let p = numbered(90);
        let shader = engine.compile(&p);
        let u = uniforms();
        let inp = inputs(64);
        let want = interp(&p, &u, &inp);
        std::thread::scope(|scope| {
            let runner = scope.spawn(|| {
                let mut out = vec![[[0.0; 4]; 16]; inp.len()];
                let mut status = vec![VertexStatus::Ended; inp.len()];
                for _ in 0..40 {
                    shader.run(&u, &inp, &mut out, &mut status).unwrap();
                    assert!(same(&out[..], &want[..]), "{backend:?}");
                }
            });
            // Meanwhile every compile evicts the previous shader, ours first.
            for k in 0..20 {
                engine.compile(&numbered(k));
            }
            runner.join().unwrap();
        });
        // The bound is over machine code: interpreter shaders hold none and stay.
        let evictions = engine.stats().evictions;
        if backend == Backend::Interp {
            assert_eq!(evictions, 0);
        } else {
            assert!(evictions >= 20, "{backend:?}: {evictions}");
        }
        // Still exact after everything else was evicted.
        let mut out = vec![[[0.0; 4]; 16]; inp.len()];
        let mut status = vec![VertexStatus::Ended; inp.len()];
        shader.run(&u, &inp, &mut out, &mut status).unwrap();
        assert!(same(&out, &want));
    }
}

#[test]
fn background_compiles_never_change_results_and_prepare_compiles_everything() {
    let p = program(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/shaders/lighting.v.pica"
        ))
        .unwrap(),
    );
    let mut u = uniforms();
    for c in 2..8 {
        u.f[c] = [0.5 + c as f32, -0.25, 0.75, 1.0];
    }
    let inp = inputs(37);
    let want = interp(&p, &u, &inp);
    for backend in backends() {
        let engine = Engine::new(backend).unwrap();
        let shader = engine.compile(&p);
        // Runs right after the compile: the generic kernel, at once; the same answers.
        for _ in 0..3 {
            let mut out = vec![[[0.0; 4]; 16]; inp.len()];
            let mut status = vec![VertexStatus::Ended; inp.len()];
            shader.run(&u, &inp, &mut out, &mut status).unwrap();
            assert!(same(&out, &want), "{backend:?} run");
            let mut soa = SoaBuffer::new(inp.len());
            shader
                .run_soa(&u, &SoaBuffer::from_aos(&inp), &mut soa, &mut status)
                .unwrap();
            assert!(same(&soa.to_aos(), &want), "{backend:?} run_soa");
        }
        shader.prepare(&u);
        if backend != Backend::Interp {
            // Generic AoS and SoA, the variant's AoS and SoA: four kernels, whoever compiled
            // them (background jobs may still be finishing the ones prepare did not need).
            assert!(
                engine.stats().compiles >= 4,
                "{backend:?}: {:?}",
                engine.stats()
            );
        }
        let mut soa = SoaBuffer::new(inp.len());
        let mut status = vec![VertexStatus::Ended; inp.len()];
        shader
            .run_soa(&u, &SoaBuffer::from_aos(&inp), &mut soa, &mut status)
            .unwrap();
        assert!(same(&soa.to_aos(), &want), "{backend:?} prepared");
    }
}

#[test]
fn negated_uniform_factors_specialize_exactly() {
    // Multiplies by -c0 (a source negation) and by r0 = -c1 (a copy of a negated uniform):
    // the uniform-specialized kernel makes those by finite non-zero components plain
    // multiplies; every engine gives the interpreter's values, 0·inf = +0 included.
    let p = program(
        ".out o0 position\n.out o1 color\n.proc main\n    mul o0, -c0, v0\n    \
         mov r0, -c1\n    mul o1, r0, v0\n    end\n.end\n",
    );
    let mut u = Uniforms::default();
    u.f[0] = [2.0, -0.0, f32::INFINITY, f32::NAN];
    u.f[1] = [-3.0, 0.0, -f32::INFINITY, 1e-40];
    let specials = [
        f32::INFINITY,
        -f32::INFINITY,
        0.0,
        -0.0,
        f32::NAN,
        1.5,
        1e-40,
        -7.0,
    ];
    let mut inp: Vec<Regs16> = (0..16)
        .map(|k| {
            let mut r = [[0.0; 4]; 16];
            r[0] = std::array::from_fn(|c| specials[(k + c * 3) % specials.len()]);
            r
        })
        .collect();
    inp[0][0] = [f32::INFINITY, f32::INFINITY, -0.0, 1e-40];
    let want = interp(&p, &u, &inp);
    assert_eq!(want[0][0][0], f32::NEG_INFINITY); // -2 · inf
    assert_eq!(want[0][0][1].to_bits(), 0); // +0 · inf = +0
    assert_eq!(want[0][1][0], f32::INFINITY); // 3 · inf
    assert_eq!(want[0][1][1].to_bits(), 0); // -0 · inf = +0
    for backend in backends() {
        let engine = Engine::new(backend).unwrap();
        let shader = engine.compile(&p);
        shader.prepare(&u);
        if backend != Backend::Interp {
            // The generic kernels and the variant's.
            assert!(
                engine.stats().compiles >= 2,
                "{backend:?}: {:?}",
                engine.stats()
            );
        }
        let mut out = vec![[[0.0; 4]; 16]; inp.len()];
        let mut status = vec![VertexStatus::Ended; inp.len()];
        shader.run(&u, &inp, &mut out, &mut status).unwrap();
        assert!(same(&out, &want), "{backend:?} run");
        let mut soa = SoaBuffer::new(inp.len());
        shader
            .run_soa(&u, &SoaBuffer::from_aos(&inp), &mut soa, &mut status)
            .unwrap();
        assert!(same(&soa.to_aos(), &want), "{backend:?} run_soa");
    }
}

#[test]
fn inputs_read_names_the_registers_a_run_loads() {
    let lighting = program(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/shaders/lighting.v.pica"
        ))
        .unwrap(),
    );
    // v5 is read into r0, which nothing uses; v3 feeds the output.
    let dead =
        program(".out o position\n.proc main\n    mov r0, v5\n    mov o, v3\n    end\n.end\n");
    for backend in backends() {
        let engine = Engine::new(backend).unwrap();
        let s = engine.compile(&lighting);
        assert_eq!(s.inputs_read(), 0b111, "{backend:?}");
        // The normal's xyz (the interpreter counts whole registers).
        let normal = if backend == Backend::Interp {
            0xF
        } else {
            0b0111
        };
        assert_eq!(s.input_components()[1], normal, "{backend:?}");
        let d = engine.compile(&dead);
        let want = if backend == Backend::Interp {
            0b10_1000
        } else {
            0b1000
        };
        assert_eq!(d.inputs_read(), want, "{backend:?}");
        assert!(d.reaches(0) && d.reaches(2) && !d.reaches(3));
    }
}
