//! `Engine::compile_timed`: the same shader as `compile`, every phase reported once per compile,
//! the cache left alone.

use super::{Backend, Engine, MachineCode, Timings};
use crate::synthetic::{self, Shape};

fn code(m: Option<&MachineCode>) -> Option<Vec<u8>> {
    m.map(|m| match m {
        MachineCode::X64(c) => c.code.clone(),
        MachineCode::Aarch64(c) => c.code.clone(),
    })
}

#[test]
fn a_timed_compile_is_the_same_compile_with_its_phases() {
    let program = synthetic::program(Shape::Branchy, 200, 5).expect("generates");
    for backend in Backend::runnable() {
        let engine = Engine::new(backend).expect("available");
        let plain = engine.compile(&program);
        let mut t = Timings::new();
        let timed = engine.compile_timed(&program, &mut t);
        assert_eq!(engine.cached(), 1, "{}", backend.name());
        assert_eq!(plain.path(), timed.path());
        assert_eq!(code(plain.machine_code()), code(timed.machine_code()));
        let names: Vec<&str> = t.phases().iter().map(|&(p, _)| p).collect();
        let expected: &[&str] = match backend {
            Backend::Interp => &["reachability", "shader"],
            _ => &[
                "reachability",
                "explore",
                "ir build",
                "uniformity",
                "branch conversion",
                "simplify_cfg",
                "split_defs",
                "cse",
                "dce",
                "simplify_cfg 2",
                "place_io",
                "verify",
                "budget check",
                "prepare",
                "backend prepare",
                "liveness",
                "regalloc",
                "emit",
                "assemble",
                "map",
                "shader",
            ],
        };
        if plain.machine_code().is_some() {
            assert_eq!(names, expected, "{}", backend.name());
        } else {
            // A program the backend refuses (the AVX-512 tier while its kernels are being
            // built) stops where the refusal came, then becomes an interpreter shader.
            let (last, done) = names.split_last().expect("phases");
            assert_eq!(*last, "shader", "{}", backend.name());
            assert!(expected.starts_with(done), "{}: {names:?}", backend.name());
        }
        assert_eq!(
            t.total(),
            t.phases().iter().map(|&(_, d)| d).sum(),
            "{}",
            backend.name()
        );
    }
}
