//! libFuzzer target: `picajit::fuzz::targets::compile_run` (see its docs for the invariants).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| picajit::fuzz::targets::compile_run(data));
