//! Compile time: `compile/<shader>` (decode → lower → allocate → native code → executable
//! memory, a fresh engine each time so nothing is cached) and `compile_hit/<shader>` (the
//! cache lookup of an already compiled program), on the best backend of the host, for the
//! example shaders and a 100-instruction program.

mod shaders;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use picajit::engine::{Backend, Engine};

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

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    targets = compile
}
criterion_main!(benches);
