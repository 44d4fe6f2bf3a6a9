//! `picajit fuzz --agal`: AGAL cases from the library (`picajit::fuzz::agal`) — valid programs
//! by construction and random bytecode — run on the AGAL interpreter and through the engine on
//! every selected backend (with `interp` among them, the lowered IR also on the IR
//! evaluator), compared bit for bit, in threads of this process (AGAL programs
//! have no control flow that could hang, and the cases are small). A failing case is saved as
//! `<out-dir>/agal-<seed>.agcs` with the command that replays it.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use picajit::agal::disasm::disassemble;
use picajit::engine::Engine;
use picajit::fuzz::agal::{agal_case, check_agal};

use crate::{Backend, CliResult};

/// Counts over a run.
#[derive(Default)]
struct Totals {
    cases: u64,
    valid: u64,
    vertex: u64,
    native: u64,
    evaluated: u64,
    invalid: u64,
    failures: Vec<(u64, String, String)>,
}

/// Runs AGAL cases `seed, seed + 1, …` until `cases` or `seconds` are used up.
pub fn fuzz_agal(
    backends: &[Backend],
    seed: u64,
    cases: Option<u64>,
    seconds: Option<u64>,
    jobs: usize,
    out_dir: &std::path::Path,
    max_failures: u64,
) -> CliResult {
    let engines: Vec<picajit::engine::Backend> = backends
        .iter()
        .map(|b| {
            Engine::new(b.engine())
                .map(|e| e.backend())
                .map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    let names: Vec<&str> = engines.iter().map(|b| b.name()).collect();
    let limit = match (seconds, cases) {
        (None, None) => Some(Duration::from_secs(10)),
        (s, _) => s.map(Duration::from_secs),
    };
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let totals = Mutex::new(Totals::default());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                if stop.load(Ordering::Relaxed) || limit.is_some_and(|l| start.elapsed() >= l) {
                    break;
                }
                let n = next.fetch_add(1, Ordering::Relaxed);
                if cases.is_some_and(|c| n >= c) {
                    break;
                }
                let case_seed = seed.wrapping_add(n);
                let case = agal_case(case_seed);
                let result = check_agal(&case, &engines);
                let mut t = totals.lock().unwrap_or_else(|p| p.into_inner());
                t.cases += 1;
                match result {
                    Ok(p) => {
                        t.valid += u64::from(p.valid);
                        t.vertex += u64::from(p.valid && p.vertex);
                        t.native += u64::from(p.native);
                        t.evaluated += u64::from(p.evaluated);
                        t.invalid += u64::from(!p.valid);
                    }
                    Err(f) => {
                        let path = out_dir.join(format!("agal-{case_seed}.agcs"));
                        let saved = std::fs::create_dir_all(out_dir)
                            .and_then(|_| std::fs::write(&path, case.to_bytes()));
                        let where_ = match saved {
                            Ok(()) => path.display().to_string(),
                            Err(e) => format!("(not saved: {e})"),
                        };
                        t.failures.push((
                            case_seed,
                            f.backend.name().to_string(),
                            format!(
                                "{}\n  case: {where_}\n  replay: picajit run {where_} --backend {}\n{}",
                                f.summary,
                                f.backend.name(),
                                disassemble(&case.program)
                            ),
                        ));
                        if t.failures.len() as u64 >= max_failures {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
    });
    let t = totals.into_inner().unwrap_or_else(|p| p.into_inner());
    let secs = start.elapsed().as_secs_f64();
    for (seed, backend, text) in &t.failures {
        eprintln!("FAIL seed {seed} on {backend}: {text}");
    }
    println!(
        "agal fuzz: {} cases in {:.1} s ({:.0} cases/s) on {}: {} valid programs ({} vertex, {} fragment), {} compiled natively, {} also on the IR evaluator, {} invalid rejected alike; {} failures",
        t.cases,
        secs,
        t.cases as f64 / secs.max(1e-9),
        names.join(", "),
        t.valid,
        t.vertex,
        t.valid - t.vertex,
        t.native,
        t.evaluated,
        t.invalid,
        t.failures.len()
    );
    Ok(if t.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
