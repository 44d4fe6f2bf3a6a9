//! Execution speed: `execute/<backend>/<shader>/<io>` for every backend this host has, single
//! thread, data in cache (4096 vertices per iteration), plus `execute_par/<backend>/<shader>`
//! with 1 and 2 threads. Throughput is reported per vertex.

mod shaders;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use picajit::engine::{Backend, Engine, SoaBuffer};
use picajit::program::VertexStatus;

const VERTICES: usize = 4096;

fn execute(c: &mut Criterion) {
    let inputs = shaders::inputs(VERTICES);
    let soa_in = SoaBuffer::from_aos(&inputs);
    for shader in [shaders::mvp(), shaders::lighting()] {
        let mut group = c.benchmark_group("execute");
        group.throughput(Throughput::Elements(VERTICES as u64));
        // AArch64 under qemu-user measures the emulator, not the code: native backends only.
        for backend in Backend::available()
            .into_iter()
            .filter(|b| b.is_native_here())
        {
            let engine = Engine::new(backend).expect("available");
            let compiled = engine.compile(&shader.program);
            let mut out = vec![[[0.0; 4]; 16]; VERTICES];
            let mut status = vec![VertexStatus::Ended; VERTICES];
            group.bench_function(
                BenchmarkId::new(backend.name(), format!("{}/aos", shader.name)),
                |b| {
                    b.iter(|| {
                        compiled
                            .run(&shader.uniforms, &inputs, &mut out, &mut status)
                            .expect("runs")
                    })
                },
            );
            let mut soa_out = SoaBuffer::new(VERTICES);
            group.bench_function(
                BenchmarkId::new(backend.name(), format!("{}/soa", shader.name)),
                |b| {
                    b.iter(|| {
                        compiled
                            .run_soa(&shader.uniforms, &soa_in, &mut soa_out, &mut status)
                            .expect("runs")
                    })
                },
            );
        }
        group.finish();
    }
}

fn execute_par(c: &mut Criterion) {
    let n = VERTICES * 16;
    let inputs = shaders::inputs(n);
    let shader = shaders::lighting();
    let mut group = c.benchmark_group("execute_par");
    group.throughput(Throughput::Elements(n as u64));
    for backend in Backend::available()
        .into_iter()
        .filter(|b| b.is_native_here())
    {
        let engine = Engine::new(backend).expect("available");
        let compiled = engine.compile(&shader.program);
        let mut out = vec![[[0.0; 4]; 16]; n];
        let mut status = vec![VertexStatus::Ended; n];
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            group.bench_function(
                BenchmarkId::new(backend.name(), format!("lighting/{threads}t")),
                |b| {
                    b.iter(|| {
                        pool.install(|| {
                            compiled
                                .run_par(&shader.uniforms, &inputs, &mut out, &mut status)
                                .expect("runs")
                        })
                    })
                },
            );
        }
    }
    group.finish();
}

/// AArch64 on a host that runs it under qemu-user: the time of one job (one `run` call) of the
/// persistent job server, kernel already in the runner — a figure for the tests' cost, not for
/// the code's speed on hardware.
fn qemu_job(c: &mut Criterion) {
    if Backend::Aarch64.is_native_here() || !Backend::available().contains(&Backend::Aarch64) {
        return;
    }
    let mut group = c.benchmark_group("aarch64_qemu_job");
    let engine = Engine::new(Backend::Aarch64).expect("available");
    for shader in [shaders::mvp(), shaders::lighting()] {
        let compiled = engine.compile(&shader.program);
        for n in [4, 4096] {
            let inputs = shaders::inputs(n);
            let mut out = vec![[[0.0; 4]; 16]; n];
            let mut status = vec![VertexStatus::Ended; n];
            group.bench_function(BenchmarkId::new(shader.name, n), |b| {
                b.iter(|| {
                    compiled
                        .run(&shader.uniforms, &inputs, &mut out, &mut status)
                        .expect("runs")
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, execute, execute_par, qemu_job);
criterion_main!(benches);
