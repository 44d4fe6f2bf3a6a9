//! Execution speed: `execute/<backend>/<shader>/<io>` for every backend this host has and the
//! example shaders, single thread, 4096 vertices per iteration (AoS `run` and planar
//! `run_soa`), plus `execute_par/<backend>/lighting/<T>t` with 1 and 2 threads. Throughput is
//! reported per vertex (per invocation for the geometry shader). Criterion times by the wall
//! clock: on a shared machine prefer `jit-bench`, which times by thread CPU time and takes
//! the backends' samples round-robin.

mod shaders;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use picajit::engine::{Backend, Engine, SoaBuffer};
use picajit::program::VertexStatus;

const VERTICES: usize = 4096;

fn execute(c: &mut Criterion) {
    for shader in shaders::examples() {
        let inputs = shader.inputs(VERTICES);
        let soa_in = SoaBuffer::from_aos(&inputs);
        let mut group = c.benchmark_group("execute");
        group.throughput(Throughput::Elements(VERTICES as u64));
        // AArch64 under qemu-user measures the emulator, not the code: native backends only.
        for backend in Backend::available()
            .into_iter()
            .filter(|b| b.is_native_here())
        {
            let engine = Engine::new(backend)
                .expect("available")
                .with_background_compile(false);
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
    let n = VERTICES * 4;
    let shader = shaders::example("lighting");
    let inputs = shader.inputs(n);
    let mut group = c.benchmark_group("execute_par");
    group.throughput(Throughput::Elements(n as u64));
    for backend in Backend::available()
        .into_iter()
        .filter(|b| b.is_native_here())
    {
        let engine = Engine::new(backend)
            .expect("available")
            .with_background_compile(false);
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
    if Backend::Aarch64.is_native_here() || !Backend::runnable().contains(&Backend::Aarch64) {
        return;
    }
    let mut group = c.benchmark_group("aarch64_qemu_job");
    let engine = Engine::new(Backend::Aarch64).expect("available");
    for shader in [shaders::example("mvp"), shaders::example("lighting")] {
        let compiled = engine.compile(&shader.program);
        for n in [4, 4096] {
            let inputs = shader.inputs(n);
            let mut out = vec![[[0.0; 4]; 16]; n];
            let mut status = vec![VertexStatus::Ended; n];
            group.bench_function(BenchmarkId::new(shader.name.clone(), n), |b| {
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

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    targets = execute, execute_par, qemu_job
}
criterion_main!(benches);
