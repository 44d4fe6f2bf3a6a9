//! Exhaustive check of the EX2/LG2 algorithm (`picajit::float`): every one of the 2^32
//! f32 inputs, against an f64 reference, on all cores. Requirement: at most 1 ulp from the
//! exact value and exact special values, for both functions.
//!
//! Not part of plain `cargo test` (`test = false`); run with
//! `cargo test --release --test float_exhaustive`. Exits non-zero on any violation.

use std::process::ExitCode;
use std::time::Instant;

use picajit::float::check::{check_ex2_lg2, CheckReport};

/// The input space is checked in this many consecutive slices, with a progress line after each.
const SLICES: u64 = 16;

fn main() -> ExitCode {
    let total: u64 = 1 << 32;
    let slice = total / SLICES;
    println!(
        "float_exhaustive: EX2 and LG2 on all {total} f32 inputs, {} threads",
        rayon::current_num_threads()
    );
    let start = Instant::now();
    let mut report = CheckReport::EMPTY;
    for i in 0..SLICES {
        let part = check_ex2_lg2(i * slice..(i + 1) * slice);
        report = report.merge(part);
        println!(
            "  inputs {:#010x}..={:#010x} done ({:>5.1} s): EX2 max {:.6} ulp, LG2 max {:.6} ulp",
            i * slice,
            (i + 1) * slice - 1,
            start.elapsed().as_secs_f64(),
            part.ex2.max_ulp,
            part.lg2.max_ulp
        );
    }
    let secs = start.elapsed().as_secs_f64();
    println!("{report}");
    println!("wall time {secs:.1} s");
    let complete = report.checked == total;
    if !complete {
        println!("error: checked {} inputs, expected {total}", report.checked);
    }
    if report.passed() && complete {
        println!("1 passed, 0 failed");
        ExitCode::SUCCESS
    } else {
        println!("0 passed, 1 failed");
        ExitCode::FAILURE
    }
}
