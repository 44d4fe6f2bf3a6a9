//! libFuzzer target: `picajit::fuzz::targets::agal_asm` (see its docs for the invariants).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| picajit::fuzz::targets::agal_asm(data));
