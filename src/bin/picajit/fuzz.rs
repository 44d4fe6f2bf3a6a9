//! `picajit fuzz`: random programs, uniforms and inputs run on every engine this build has,
//! compared bit for bit (NaN equals NaN). Programs come from the opcode table (a random opcode
//! value with random operand bits, flow targets kept mostly inside the program), descriptors are
//! random words, floats are drawn to hit special values. Today the engines are the
//! interpreter's three paths (per vertex, batch, parallel batch); a panic is caught and counted
//! as a failure of its case, which is saved as a replayable PCAS file.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use picajit::case::Case;
use picajit::interp::Interpreter;
use picajit::isa::{Fmt2, Fmt3b, Fmt3i, Format, Opcode};
use picajit::program::{Regs16, Uniforms, VertexStatus};

use crate::CliResult;

#[derive(Args)]
pub struct FuzzArgs {
    /// Stop after this many seconds (default 10 when --cases is not given).
    #[arg(long)]
    seconds: Option<u64>,
    /// Stop after this many cases.
    #[arg(long)]
    cases: Option<u64>,
    /// Seed of the first case; case n uses seed + n.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where failing cases are written.
    #[arg(long, default_value = "fuzz-failures")]
    out_dir: PathBuf,
}

const VERTICES: usize = 9;
const BUDGET: u32 = 2048;

pub fn fuzz(args: &FuzzArgs) -> CliResult {
    let limit = match (args.seconds, args.cases) {
        (None, None) => Some(Duration::from_secs(10)),
        (s, _) => s.map(Duration::from_secs),
    };
    let start = Instant::now();
    let (mut run, mut failures) = (0u64, 0u64);
    loop {
        if args.cases.is_some_and(|c| run >= c) || limit.is_some_and(|l| start.elapsed() >= l) {
            break;
        }
        let seed = args.seed.wrapping_add(run);
        let case = generate(seed);
        let outcome = catch_unwind(AssertUnwindSafe(|| check(&case)));
        let problem = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(msg)) => Some(msg),
            Err(_) => Some("panic".to_string()),
        };
        if let Some(msg) = problem {
            failures += 1;
            let path = args.out_dir.join(format!("seed-{seed}.pcas"));
            std::fs::create_dir_all(&args.out_dir)
                .and_then(|()| std::fs::write(&path, case.to_bytes()))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            eprintln!(
                "case seed {seed}: {msg}; saved {} (replay: picajit run {} --budget {BUDGET})",
                path.display(),
                path.display()
            );
        }
        run += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "fuzz: {run} cases ({:.0} cases/s) on interp (vertex, batch, parallel): {failures} failures",
        run as f64 / secs.max(1e-9)
    );
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn check(case: &Case) -> Result<(), String> {
    let program = case.program().map_err(|e| e.to_string())?;
    let interp = Interpreter::new(&program).with_budget(BUDGET);
    let n = case.inputs.len();
    let single: Vec<_> = case
        .inputs
        .iter()
        .map(|i| interp.run_vertex(&case.uniforms, i))
        .collect();
    let mut batch = (vec![[[0.0; 4]; 16]; n], vec![VertexStatus::Ended; n]);
    let _ = interp.run(&case.uniforms, &case.inputs, &mut batch.0, &mut batch.1);
    let mut par = (vec![[[0.0; 4]; 16]; n], vec![VertexStatus::Ended; n]);
    let _ = interp.run_par(&case.uniforms, &case.inputs, &mut par.0, &mut par.1);
    for (v, inv) in single.iter().enumerate() {
        for (name, (outs, status)) in [("batch", &batch), ("parallel", &par)] {
            if status[v] != inv.status {
                return Err(format!(
                    "vertex {v}: status {:?} (vertex) vs {:?} ({name})",
                    inv.status, status[v]
                ));
            }
            if let Some(reg) = first_difference(&inv.outputs, &outs[v]) {
                return Err(format!(
                    "vertex {v}: o{reg} differs between vertex and {name} runs"
                ));
            }
        }
    }
    Ok(())
}

fn first_difference(a: &Regs16, b: &Regs16) -> Option<usize> {
    let same = |x: f32, y: f32| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
    (0..16).find(|&r| (0..4).any(|c| !same(a[r][c], b[r][c])))
}

/// A random case from `seed`.
pub fn generate(seed: u64) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    let len = rng.usize(1..64);
    let code = (0..len).map(|_| random_word(&mut rng, len)).collect();
    let descs = (0..rng.usize(1..=128)).map(|_| rng.u32(..)).collect();
    let mut uniforms = Uniforms::default();
    for c in uniforms.f.iter_mut() {
        *c = std::array::from_fn(|_| special_float(&mut rng));
    }
    for i in uniforms.i.iter_mut() {
        *i = [rng.u8(0..6), rng.u8(..), rng.u8(..), rng.u8(..)];
    }
    uniforms.b = rng.u16(..);
    let inputs: Vec<Regs16> = (0..VERTICES)
        .map(|_| std::array::from_fn(|_| std::array::from_fn(|_| special_float(&mut rng))))
        .collect();
    Case {
        code,
        descs,
        entry: rng.u32(0..len as u32),
        uniforms,
        inputs,
    }
}

/// A word of a random opcode (every table value equally likely), random operand bits, and a
/// flow target inside the program most of the time.
fn random_word(rng: &mut fastrand::Rng, len: usize) -> u32 {
    let op = Opcode::ALL[rng.usize(..Opcode::ALL.len())];
    let value = op.values()[rng.usize(..op.values().len())];
    let mut word = u32::from(value) << 26 | (rng.u32(..) & 0x03FF_FFFF);
    if rng.u8(0..8) != 0 {
        word &= op.used_bits();
    }
    let dest = if rng.u8(0..16) == 0 {
        rng.u16(..4096)
    } else {
        rng.u16(0..len as u16 + 1)
    };
    let num = rng.u8(0..8);
    let opcode_bits = word & 0xFC00_0000;
    match op.format() {
        Format::Fmt2 => {
            let f = Fmt2 {
                dest,
                num,
                ..Fmt2::decode(word)
            };
            opcode_bits | f.encode()
        }
        Format::Fmt3b => {
            opcode_bits
                | Fmt3b {
                    dest,
                    num,
                    ..Fmt3b::decode(word)
                }
                .encode()
        }
        Format::Fmt3i => {
            opcode_bits
                | Fmt3i {
                    dest,
                    ..Fmt3i::decode(word)
                }
                .encode()
        }
        Format::Fmt0
        | Format::Fmt1
        | Format::Fmt1u
        | Format::Fmt1i
        | Format::Fmt1c
        | Format::Fmt4
        | Format::Fmt5
        | Format::Fmt5i
        | Format::Raw => word,
    }
}

/// A float that is special one time in three: ±0, ±inf, NaN with payloads, subnormals, huge,
/// ±1, or values near integers.
fn special_float(rng: &mut fastrand::Rng) -> f32 {
    match rng.u8(0..24) {
        0 => 0.0,
        1 => -0.0,
        2 => f32::INFINITY,
        3 => f32::NEG_INFINITY,
        4 => f32::from_bits(0x7F80_0000 | rng.u32(1..0x0080_0000) | (rng.u32(0..2) << 31)),
        5 => f32::from_bits(rng.u32(1..0x0080_0000) | (rng.u32(0..2) << 31)),
        6 => f32::from_bits(0x7F00_0000 | rng.u32(..0x0080_0000)),
        7 => 1.0,
        8 => f32::from(rng.i16(-300..300)) + (rng.f32() - 0.5) * 1e-3,
        _ => (rng.f32() - 0.5) * 8.0,
    }
}
