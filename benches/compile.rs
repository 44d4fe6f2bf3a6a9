//! Compile time: `compile/<shader>` (decode → lower → allocate → native code → executable
//! memory, a fresh engine each time so nothing is cached) and `compile_hit/<shader>` (the
//! cache lookup of an already compiled program), on the best backend of the host, for the
//! example shaders and a 100-instruction program; and `compile/<shape>/<size>` over the
//! synthetic programs of `picajit::synthetic` (straight-line and branchy, 50 to 500 words as
//! vertex shaders, 1,000 to 4,000 as geometry shaders, seed 1), whose throughput criterion
//! reports in PICA words per second.
//!
//! `backend/<shader>/{avx2,avx512}_{aos,soa}`: the backend alone (allocation and emission of an
//! already lowered function) for the AVX2 kernels (dynasm VEX) and the AVX-512 kernels (W = 16,
//! EVEX chunks from `x64::evex`), on the example shaders.
//!
//! `PICAJIT_COMPILE_SIZES=50,500` limits the synthetic sizes (`=0`: none).

mod shaders;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use picajit::engine::{Backend, Engine};
use picajit::synthetic::{self, Shape};
use picajit_codegen::x64::{self, IoMode, Tier};

fn compile(c: &mut Criterion) {
    let mut all = shaders::examples();
    all.push(shaders::long());
    for shader in &all {
        c.bench_function(&format!("compile/{}", shader.name), |b| {
            b.iter(|| {
                let engine = Engine::new(Backend::Auto).expect("engine");
                engine.compile(&shader.program)
            })
        });
        let engine = Engine::new(Backend::Auto).expect("engine");
        engine.compile(&shader.program);
        c.bench_function(&format!("compile_hit/{}", shader.name), |b| {
            b.iter(|| engine.compile(&shader.program))
        });
    }
}

/// The synthetic sizes to measure.
fn sizes() -> Vec<usize> {
    match std::env::var("PICAJIT_COMPILE_SIZES") {
        Ok(list) => list
            .split(',')
            .filter_map(|s| s.trim().parse().ok())
            .filter(|&n| n >= synthetic::MIN_SIZE)
            .collect(),
        Err(_) => synthetic::SIZES.to_vec(),
    }
}

fn compile_sizes(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile");
    for shape in [Shape::Straight, Shape::Branchy] {
        for size in sizes() {
            let program = synthetic::program(shape, size, 1).expect("a synthetic program");
            // Large programs take milliseconds: fewer samples keep the run short.
            group.sample_size(if size >= 1000 { 10 } else { 30 });
            group.throughput(Throughput::Elements(size as u64));
            group.bench_with_input(BenchmarkId::new(shape.name(), size), &program, |b, p| {
                b.iter(|| {
                    let engine = Engine::new(Backend::Auto).expect("engine");
                    engine.compile(p)
                })
            });
        }
    }
    group.finish();
}

fn backend(c: &mut Criterion) {
    let mut group = c.benchmark_group("backend");
    let engine = Engine::new(Backend::X64Sse41).expect("engine");
    for shader in shaders::examples() {
        let compiled = engine.compile(&shader.program);
        let Some(func) = compiled.ir() else { continue };
        for (tier, t) in [(Tier::Avx2, "avx2"), (Tier::Avx512, "avx512")] {
            for (io, i) in [(IoMode::Aos, "aos"), (IoMode::Soa, "soa")] {
                let id = BenchmarkId::new(&shader.name, format!("{t}_{i}"));
                group.bench_function(id, |b| {
                    b.iter(|| x64::compile(func, tier, io).expect("compiles"))
                });
            }
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    targets = compile, compile_sizes, backend
}
criterion_main!(benches);
