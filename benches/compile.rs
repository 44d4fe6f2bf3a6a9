//! Compile time: `compile/<shader>` (decode → lower → allocate → native code → executable
//! memory, a fresh engine each time so nothing is cached) and `compile_hit/<shader>` (the
//! cache lookup of an already compiled program).

mod shaders;

use criterion::{criterion_group, criterion_main, Criterion};
use picajit::engine::{Backend, Engine};

fn compile(c: &mut Criterion) {
    for shader in [shaders::mvp(), shaders::lighting(), shaders::long()] {
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

criterion_group!(benches, compile);
criterion_main!(benches);
