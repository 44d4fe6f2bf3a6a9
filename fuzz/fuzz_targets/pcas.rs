//! libFuzzer target: `picajit::fuzz::targets::pcas` (see its docs for the invariants).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| picajit::fuzz::targets::pcas(data));
