//! `picajit fuzz`: random programs from the library's generator (`picajit::fuzz`) run on the
//! reference interpreter and every selected backend and compared bit for bit. Cases run in
//! worker processes (`worker.rs`), so a crash in generated code or a hang is a failure of its
//! case, not of the fuzzer. A failing case is minimized (same failure class on the same
//! backend), saved as `<out-dir>/<name>-b<budget>.pcas` (with the unreduced original beside
//! it), and reported: the disassembly, the differing registers lane by lane, the IR and the
//! native code, and the commands that replay it.
//!
//! `--geometry` generates geometry shaders instead (`picajit::fuzz::generate_geometry`): each
//! case also compares every invocation's triangles, and is saved as a PCAS version 2 case.
//!
//! `--replay FILE…` checks saved cases instead of generating new ones (vertex or geometry, as
//! the file says).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use picajit::case::Case;
use picajit::engine::Backend as EngineBackend;
use picajit::fuzz::{self, Config, FuzzCase, Shape};

use crate::worker::{hex, unhex, Reply, Worker};
use crate::{Backend, CliResult};

#[derive(Args)]
pub struct FuzzArgs {
    /// Stop starting new cases after this many seconds (default 10 when --cases is not given).
    #[arg(long, conflicts_with = "cases")]
    seconds: Option<u64>,
    /// Stop after this many cases.
    #[arg(long)]
    cases: Option<u64>,
    /// Seed of the first case; case n uses seed + n.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Backends compared with the interpreter (comma-separated; default: every x86-64 tier this
    /// host can run — natively, or in a test build through the x86-64 emulator — and the
    /// interpreter).
    #[arg(long, value_enum, value_delimiter = ',')]
    backend: Vec<Backend>,
    /// Leave out the backends this host only emulates (x86-64 tiers the CPU lacks, which a
    /// test build runs in the x86-64 emulator, thousands of times slower than native code):
    /// `make test` runs its long vertex slice without them and a shorter one with them.
    #[arg(long)]
    no_emulated: bool,
    /// Restrict the arithmetic drawn to these opcodes (comma-separated mnemonics).
    #[arg(long)]
    ops: Option<String>,
    /// Worker processes (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Where failing cases are written.
    #[arg(long, default_value = "fuzz-failures")]
    out_dir: PathBuf,
    /// Seconds a case may run before it counts as a hang.
    #[arg(long, default_value_t = 20)]
    timeout: u64,
    /// Most candidates tried when minimizing one failure (0: do not minimize).
    #[arg(long, default_value_t = 3000)]
    minimize_tries: usize,
    /// Most seconds spent minimizing one failure.
    #[arg(long, default_value_t = 120)]
    minimize_seconds: u64,
    /// Stop after this many failures.
    #[arg(long, default_value_t = 10)]
    max_failures: u64,
    /// Check these saved cases instead of generating (budget from the `-b<N>` file-name
    /// suffix, else --budget).
    #[arg(long, num_args = 1.., conflicts_with_all = ["cases", "seconds"])]
    replay: Vec<PathBuf>,
    /// Budget for --replay files whose name carries none.
    #[arg(long, default_value_t = picajit::interp::DEFAULT_BUDGET)]
    budget: u32,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// List the N slowest passing cases (seed and check time: compiles and runs on every
    /// backend) and save each as `<out-dir>/slow-seed-<seed>-b<budget>.pcas`, for `picajit dump
    /// --timings` and profilers.
    #[arg(long, value_name = "N", default_value_t = 0)]
    keep_slowest: usize,
    /// Write the cases these seeds generate (with --ops and --geometry as given) as
    /// `<out-dir>/seed-<seed>-b<budget>.pcas` (`geometry-seed-…` with --geometry) and exit,
    /// without checking them.
    #[arg(long, value_name = "SEED", num_args = 1.., value_delimiter = ',',
          conflicts_with_all = ["cases", "seconds", "replay", "agal", "keep_slowest"])]
    save: Vec<u64>,
    /// Fuzz AGAL programs instead (valid by construction, and random bytecode) against the
    /// AGAL interpreter; `--cases`, `--seconds`, `--seed`, `--backend`, `--jobs`, `--out-dir`
    /// and `--max-failures` apply.
    #[arg(long, conflicts_with_all = ["replay", "ops"])]
    agal: bool,
    /// Fuzz geometry shaders: the generator's programs with EMIT and SETEMIT among their
    /// arithmetic, run as geometry shaders; each invocation's triangles are compared too.
    #[arg(long, conflicts_with_all = ["replay", "agal"])]
    geometry: bool,
}

impl FuzzArgs {
    /// The case of a seed, vertex or geometry as `--geometry` says.
    fn generate(&self, seed: u64, config: &Config) -> FuzzCase {
        if self.geometry {
            fuzz::generate_geometry(seed, config)
        } else {
            fuzz::generate(seed, config)
        }
    }

    /// What file names of this run's cases start with: `""` or `"geometry-"`.
    fn prefix(&self) -> &'static str {
        if self.geometry {
            "geometry-"
        } else {
            ""
        }
    }
}

/// How a case failed, as seen from the parent.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    /// `ok <native> <mechanisms> [<triangles>]` (the triangles of a geometry case).
    Pass(String, u8, Option<u64>),
    /// `fail <class> <backend>`: the class and backend, and the summary.
    Fail {
        class: String,
        backend: String,
        summary: String,
    },
    Crash(String),
    Hang,
}

impl Verdict {
    /// What must stay the same while minimizing.
    fn signature(&self) -> Option<(String, String)> {
        match self {
            Verdict::Pass(..) => None,
            Verdict::Fail { class, backend, .. } => Some((class.clone(), backend.clone())),
            Verdict::Crash(_) => Some(("crash".into(), String::new())),
            Verdict::Hang => Some(("hang".into(), String::new())),
        }
    }

    fn summary(&self) -> String {
        match self {
            Verdict::Pass(..) => "passed".into(),
            Verdict::Fail { summary, .. } => summary.clone(),
            Verdict::Crash(how) => format!("crash: {how}"),
            Verdict::Hang => "hang: no answer within the timeout".into(),
        }
    }

    /// The backend to name in the replay command.
    fn backend(&self, selected: &[Backend]) -> String {
        match self {
            Verdict::Fail { backend, .. } => backend.clone(),
            Verdict::Pass(..) | Verdict::Crash(_) | Verdict::Hang => selected
                .iter()
                .rev()
                .map(|b| b.engine().name().to_string())
                .next()
                .unwrap_or_else(|| "interp".into()),
        }
    }
}

fn request_line(verb: &str, case: &FuzzCase) -> String {
    format!("{verb} {} {}", case.budget, hex(&case.case.to_bytes()))
}

fn run_case(worker: &mut Worker, case: &FuzzCase, timeout: Duration) -> Result<Verdict, String> {
    Ok(
        match worker.request(&request_line("check", case), timeout)? {
            // An answer that is not one (a worker dying mid-line) counts as a crash.
            Reply::Line(line) => parse_answer(&line).unwrap_or_else(Verdict::Crash),
            Reply::Crashed(how) => Verdict::Crash(how),
            Reply::Hung => Verdict::Hang,
        },
    )
}

fn parse_answer(line: &str) -> Result<Verdict, String> {
    if let Some(rest) = line.strip_prefix("ok ") {
        let bad = || format!("fuzz: worker answered {line:?}");
        let mut fields = rest.split(' ');
        let bits = fields.next().unwrap_or("");
        let mechanisms = fields.next().unwrap_or("").parse().map_err(|_| bad())?;
        let triangles = match fields.next() {
            Some(t) => Some(t.parse().map_err(|_| bad())?),
            None => None,
        };
        if fields.next().is_some() {
            return Err(bad());
        }
        return Ok(Verdict::Pass(bits.to_string(), mechanisms, triangles));
    }
    if let Some(rest) = line.strip_prefix("fail ") {
        let (head, summary) = rest.split_once('\t').unwrap_or((rest, ""));
        let (class, backend) = head.split_once(' ').unwrap_or((head, ""));
        return Ok(Verdict::Fail {
            class: class.into(),
            backend: backend.into(),
            summary: summary.into(),
        });
    }
    Err(format!("fuzz: worker answered {line:?}"))
}

/// Progress events from the job threads.
enum Event {
    Passed {
        native: String,
        shape: Shape,
        seed: u64,
        secs: f64,
        /// [`mechanisms`] of the program.
        mechanisms: u8,
        /// A geometry case's triangles (with its own uniforms, on the interpreter).
        triangles: Option<u64>,
    },
    Failed {
        report: String,
    },
    Error(String),
}

#[derive(Default)]
struct Totals {
    cases: u64,
    failures: u64,
    native: Vec<u64>,
    shapes: [u64; 3],
    /// Programs per [`MECHANISMS`] entry.
    mechanisms: [u64; MECHANISMS.len()],
    /// The slowest passing cases, slowest first: (seconds, seed).
    slowest: Vec<(f64, u64)>,
    /// Geometry cases: how many emitted at least one triangle, and the triangles in all.
    emitting: u64,
    triangles: u64,
}

impl Totals {
    /// Records a passing case's time, keeping the `keep` slowest (at least one).
    fn time(&mut self, secs: f64, seed: u64, keep: usize) {
        let at = self.slowest.partition_point(|&(s, _)| s >= secs);
        if at < keep.max(1) {
            self.slowest.insert(at, (secs, seed));
            self.slowest.truncate(keep.max(1));
        }
    }
}

fn selected_backends(args: &[Backend]) -> Result<Vec<Backend>, String> {
    let available = EngineBackend::runnable();
    let all = [
        Backend::Interp,
        Backend::X64Sse41,
        Backend::X64Avx2,
        Backend::X64Avx512,
    ];
    let mut chosen: Vec<Backend> = if args.is_empty() {
        all.iter()
            .copied()
            .filter(|b| available.contains(&b.engine()))
            .collect()
    } else {
        let mut v = Vec::new();
        for &b in args {
            let b = match b {
                Backend::Auto => {
                    let engine = picajit::engine::Engine::new(EngineBackend::Auto)
                        .map_err(|e| e.to_string())?;
                    match engine.backend() {
                        EngineBackend::X64Avx2 => Backend::X64Avx2,
                        EngineBackend::X64Avx512 => Backend::X64Avx512,
                        EngineBackend::X64Sse41 => Backend::X64Sse41,
                        EngineBackend::Aarch64 => Backend::Aarch64,
                        EngineBackend::Interp | EngineBackend::Auto => Backend::Interp,
                    }
                }
                b => b,
            };
            if !available.contains(&b.engine()) {
                return Err(format!(
                    "fuzz: backend {} is not available on this host",
                    b.engine().name()
                ));
            }
            if !v.contains(&b) {
                v.push(b);
            }
        }
        v
    };
    chosen.sort_by_key(|b| all.iter().position(|a| a == b));
    Ok(chosen)
}

pub fn fuzz(args: &FuzzArgs) -> CliResult {
    let mut backends = selected_backends(&args.backend)?;
    if args.no_emulated {
        let emulated = EngineBackend::emulated();
        let (left_out, kept): (Vec<Backend>, Vec<Backend>) = backends
            .iter()
            .copied()
            .partition(|b| emulated.contains(&b.engine()));
        if kept.is_empty() {
            let names: Vec<&str> = left_out.iter().map(|b| b.engine().name()).collect();
            return Err(format!(
                "fuzz: --no-emulated leaves no backend to run: {} runs only emulated on this \
                 host (drop --no-emulated to fuzz it)",
                names.join(", ")
            ));
        }
        backends = kept;
    }
    let config = match &args.ops {
        Some(list) => Config::with_ops(list)?,
        None => Config::default(),
    };
    if !args.replay.is_empty() {
        return replay(args, &backends);
    }
    if !args.save.is_empty() {
        for &seed in &args.save {
            let case = args.generate(seed, &config);
            let path = save_case(args, &format!("{}seed-{seed}", args.prefix()), &case)?;
            println!("seed {seed}: saved {}", path.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    if args.agal {
        return crate::fuzz_agal::fuzz_agal(
            &backends,
            args.seed,
            args.cases,
            args.seconds,
            jobs,
            &args.out_dir,
            args.max_failures,
        );
    }
    let limit = match (args.seconds, args.cases) {
        (None, None) => Some(Duration::from_secs(10)),
        (s, _) => s.map(Duration::from_secs),
    };
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    // Failures found so far, counted by the workers themselves: a worker that finds the last
    // allowed failure stops before taking another case (the receiving loop may only see the
    // event later), so a single job never reports more failures than --max-failures.
    let failed = AtomicU64::new(0);
    let (tx, rx) = mpsc::channel::<Event>();
    let bar = progress_bar(args);
    let mut totals = Totals {
        native: vec![0; backends.len()],
        ..Totals::default()
    };
    let mut errors = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, stop, failed, backends, config) =
                (&next, &stop, &failed, &backends, &config);
            scope.spawn(move || {
                let mut worker = match Worker::spawn(backends) {
                    Ok(w) => w,
                    Err(e) => {
                        let _ = tx.send(Event::Error(e));
                        return;
                    }
                };
                loop {
                    if stop.load(Ordering::Relaxed) || limit.is_some_and(|l| start.elapsed() >= l) {
                        break;
                    }
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if args.cases.is_some_and(|c| n >= c) {
                        break;
                    }
                    let seed = args.seed.wrapping_add(n);
                    let case = args.generate(seed, config);
                    let t = Instant::now();
                    let event = match run_case(&mut worker, &case, timeout(args)) {
                        Ok(Verdict::Pass(native, mechanisms, triangles)) => Event::Passed {
                            native,
                            shape: case.shape,
                            seed,
                            secs: t.elapsed().as_secs_f64(),
                            mechanisms,
                            triangles,
                        },
                        Ok(verdict) => {
                            if failed.fetch_add(1, Ordering::Relaxed) + 1 >= args.max_failures {
                                stop.store(true, Ordering::Relaxed);
                            }
                            match handle_failure(args, backends, &mut worker, &case, &verdict, seed)
                            {
                                Ok(report) => Event::Failed { report },
                                Err(e) => Event::Error(e),
                            }
                        }
                        Err(e) => Event::Error(e),
                    };
                    if tx.send(event).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for event in rx {
            match event {
                Event::Passed {
                    native,
                    shape,
                    seed,
                    secs,
                    mechanisms,
                    triangles,
                } => {
                    totals.cases += 1;
                    if let Some(t) = triangles {
                        totals.emitting += u64::from(t > 0);
                        totals.triangles += t;
                    }
                    for (k, n) in totals.mechanisms.iter_mut().enumerate() {
                        *n += u64::from(mechanisms >> k & 1);
                    }
                    totals.time(secs, seed, args.keep_slowest);
                    totals.shapes[Shape::ALL.iter().position(|s| *s == shape).unwrap_or(0)] += 1;
                    for (k, c) in native.chars().enumerate() {
                        if c == '1' {
                            if let Some(t) = totals.native.get_mut(k) {
                                *t += 1;
                            }
                        }
                    }
                    bar.inc(1);
                }
                Event::Failed { report } => {
                    totals.cases += 1;
                    totals.failures += 1;
                    bar.inc(1);
                    bar.suspend(|| eprintln!("{report}"));
                    if totals.failures >= args.max_failures {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                Event::Error(e) => {
                    stop.store(true, Ordering::Relaxed);
                    errors.push(e);
                }
            }
        }
    });
    bar.finish_and_clear();
    if let Some(e) = errors.first() {
        return Err(e.clone());
    }
    let secs = start.elapsed().as_secs_f64();
    let per_engine: Vec<String> = backends
        .iter()
        .zip(&totals.native)
        .map(|(b, &native)| match b {
            Backend::Interp => format!("{} {}", b.engine().name(), totals.cases),
            _ => format!("{} {} (native {native})", b.engine().name(), totals.cases),
        })
        .collect();
    let shapes: Vec<String> = Shape::ALL
        .iter()
        .zip(totals.shapes)
        .map(|(s, n)| format!("{n} {}", s.name()))
        .collect();
    let mechanisms: Vec<String> = MECHANISMS
        .iter()
        .zip(totals.mechanisms)
        .map(|(m, n)| format!("{n} {m}"))
        .collect();
    let kind = if args.geometry { "geometry " } else { "" };
    println!(
        "fuzz: {kind}programs by what became of their per-vertex branches: {}",
        mechanisms.join(", ")
    );
    if args.geometry {
        println!(
            "fuzz: {} of {} geometry programs emitted triangles ({} triangles in all, on the interpreter with each case's uniforms)",
            totals.emitting,
            totals.cases - totals.failures,
            totals.triangles
        );
    }
    if args.keep_slowest > 0 {
        println!("fuzz: the {} slowest passing cases:", totals.slowest.len());
        for &(secs, seed) in &totals.slowest {
            let path = save_case(
                args,
                &format!("slow-{}seed-{seed}", args.prefix()),
                &args.generate(seed, &config),
            )?;
            println!("  seed {seed}: {secs:.2} s, saved {}", path.display());
        }
    }
    let slowest = totals.slowest.first().copied().unwrap_or((0.0, args.seed));
    println!(
        "fuzz: {} {kind}cases in {secs:.1} s ({:.0} cases/s, seeds {}..{}, {}; slowest: seed {}, {:.2} s) against the interpreter: {}; {} failures",
        totals.cases,
        totals.cases as f64 / secs.max(1e-9),
        args.seed,
        args.seed.wrapping_add(next.load(Ordering::Relaxed).min(totals.cases)),
        shapes.join(", "),
        slowest.1,
        slowest.0,
        per_engine.join(", "),
        totals.failures
    );
    Ok(if totals.failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// What the frontend can make of a program's branches on per-vertex conditions, as counted in
/// the summary (a program counts once under each it uses; the worker answers the bits,
/// [`crate::worker::mechanisms`]).
const MECHANISMS: [&str; 5] = [
    "without any",
    "if-converted",
    "masked regions",
    "lane-position model",
    "interpreter fallback (state cap)",
];

fn timeout(args: &FuzzArgs) -> Duration {
    Duration::from_secs(args.timeout.max(1))
}

fn progress_bar(args: &FuzzArgs) -> ProgressBar {
    if args.quiet {
        return ProgressBar::hidden();
    }
    let rate = |state: &ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = write!(w, "{:.0} cases/s", state.per_sec());
    };
    let bar = match args.cases {
        Some(n) => ProgressBar::new(n).with_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} cases ({rate}, eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key("rate", rate),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {pos} cases ({rate})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner())
                .with_key("rate", rate),
        ),
    };
    bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

/// The backend a crash or hang needs: the first whose worker alone fails the same way.
fn culprit(
    backends: &[Backend],
    case: &FuzzCase,
    verdict: &Verdict,
    timeout: Duration,
) -> Result<Option<Backend>, String> {
    for &b in backends {
        let mut worker = Worker::spawn(&[b])?;
        if run_case(&mut worker, case, timeout)?.signature() == verdict.signature() {
            return Ok(Some(b));
        }
    }
    Ok(None)
}

/// Minimizes, saves and describes a failure; returns the report text.
fn handle_failure(
    args: &FuzzArgs,
    backends: &[Backend],
    worker: &mut Worker,
    case: &FuzzCase,
    verdict: &Verdict,
    seed: u64,
) -> Result<String, String> {
    let started = Instant::now();
    let signature = verdict.signature();
    // The one backend that fails: minimizing on it alone is faster, and names the culprit of a
    // crash or hang.
    let failing = match verdict {
        Verdict::Fail { backend, .. } => backends
            .iter()
            .copied()
            .find(|b| b.engine().name() == backend),
        Verdict::Crash(_) | Verdict::Hang => culprit(backends, case, verdict, timeout(args))?,
        Verdict::Pass(..) => None,
    };
    let backend = failing.map_or_else(
        || verdict.backend(backends),
        |b| b.engine().name().to_string(),
    );
    let class = signature
        .as_ref()
        .map_or("fail", |s| s.0.as_str())
        .to_string();
    let stem = format!("{}seed-{seed}-{class}-{backend}", args.prefix());
    std::fs::create_dir_all(&args.out_dir)
        .map_err(|e| format!("{}: {e}", args.out_dir.display()))?;
    let original = args
        .out_dir
        .join(fuzz::file_name(&format!("{stem}-original"), case.budget));
    write(&original, &case.case.to_bytes())?;
    let mut own;
    let worker = match failing {
        Some(b) => {
            own = Worker::spawn(&[b])?;
            &mut own
        }
        None => worker,
    };
    // Hangs are not minimized: every candidate would cost the whole timeout.
    let (minimized, note) = if *verdict == Verdict::Hang || args.minimize_tries == 0 {
        (case.clone(), "not minimized".to_string())
    } else {
        let mut error = None;
        let mut tries = 0;
        let deadline = started + Duration::from_secs(args.minimize_seconds);
        let mut fails = |c: &FuzzCase| {
            if Instant::now() >= deadline || error.is_some() {
                return false;
            }
            tries += 1;
            match run_case(worker, c, timeout(args)) {
                Ok(v) => v.signature() == signature,
                Err(e) => {
                    error = Some(e);
                    false
                }
            }
        };
        let m = fuzz::minimize(case, args.minimize_tries, &mut fails);
        if let Some(e) = error {
            return Err(e);
        }
        let live = |c: &FuzzCase| {
            c.case
                .code
                .iter()
                .filter(|&&w| w >> 26 != u32::from(picajit::isa::Opcode::Nop.values()[0]))
                .count()
        };
        let note = format!(
            "minimized from {} to {} live words and {} to {} vertices: {tries} tries, {} kept, {:.1} s",
            live(case),
            live(&m.case),
            case.case.inputs.len(),
            m.case.case.inputs.len(),
            m.accepted,
            started.elapsed().as_secs_f64()
        );
        (m.case, note)
    };
    let path = args.out_dir.join(fuzz::file_name(&stem, minimized.budget));
    write(&path, &minimized.case.to_bytes())?;
    // The final verdict and report of the reduced case, from a worker (it may crash again).
    let final_verdict = run_case(worker, &minimized, timeout(args))?;
    let details = match &final_verdict {
        Verdict::Fail { .. } => {
            match worker.request(&request_line("report", &minimized), timeout(args))? {
                Reply::Line(line) => line
                    .strip_prefix("report ")
                    .and_then(unhex)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_else(|| format!("(worker answered {line:?})\n")),
                Reply::Crashed(how) => format!("(the worker crashed writing the report: {how})\n"),
                Reply::Hung => "(the worker hung writing the report)\n".to_string(),
            }
        }
        Verdict::Crash(_) | Verdict::Hang | Verdict::Pass(..) => {
            let outcome = match (&final_verdict, failing) {
                (Verdict::Pass(..), _) | (_, None) => format!(
                    "{} now: the failure did not reproduce on any single backend (a busy \
                     machine can make a slow case look like a hang)",
                    final_verdict.summary()
                ),
                (_, Some(_)) => format!("{} on {backend}", final_verdict.summary()),
            };
            format!(
                "failure: {outcome}\n\n--- program ---\n{}",
                disassembly_or_note(&minimized.case)
            )
        }
    };
    Ok(format!(
        "==== fuzz failure, seed {seed} ({} flow{}): {}\n({note})\n{details}\nsaved {} (unreduced: {})\nreplay: picajit run {} --backend {backend} --budget {}\n        picajit fuzz --replay {} --backend {backend}\n",
        case.shape.name(),
        if args.geometry { ", geometry shader" } else { "" },
        verdict.summary(),
        path.display(),
        original.display(),
        path.display(),
        minimized.budget,
        path.display(),
    ))
}

/// The disassembly, computed here (the parent) with panics caught.
fn disassembly_or_note(case: &Case) -> String {
    std::panic::catch_unwind(|| fuzz::report::disassembly(case))
        .unwrap_or_else(|_| "(the disassembler panicked)\n".to_string())
}

/// Writes `case` as `<out-dir>/<stem>-b<budget>.pcas`; returns the path.
fn save_case(args: &FuzzArgs, stem: &str, case: &FuzzCase) -> Result<PathBuf, String> {
    std::fs::create_dir_all(&args.out_dir)
        .map_err(|e| format!("{}: {e}", args.out_dir.display()))?;
    let path = args.out_dir.join(fuzz::file_name(stem, case.budget));
    write(&path, &case.case.to_bytes())?;
    Ok(path)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// `--replay`: each saved case checked in a worker; failures reported.
fn replay(args: &FuzzArgs, backends: &[Backend]) -> CliResult {
    let mut worker = Worker::spawn(backends)?;
    let mut failures = 0;
    for path in &args.replay {
        let bytes = crate::read_file(path)?;
        let case = Case::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let case = FuzzCase {
            case,
            budget: fuzz::budget_from_name(&name).unwrap_or(args.budget),
            shape: Shape::Hostile,
        };
        let verdict = run_case(&mut worker, &case, timeout(args))?;
        match &verdict {
            Verdict::Pass(_, _, triangles) => println!(
                "{}: agrees on every backend (budget {}{})",
                path.display(),
                case.budget,
                match triangles {
                    Some(t) => format!("; a geometry case: {t} triangles"),
                    None => String::new(),
                }
            ),
            Verdict::Fail { .. } => {
                failures += 1;
                let report = match worker.request(&request_line("report", &case), timeout(args))? {
                    Reply::Line(line) => line
                        .strip_prefix("report ")
                        .and_then(unhex)
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .unwrap_or_default(),
                    Reply::Crashed(how) => format!("(worker crashed: {how})"),
                    Reply::Hung => "(worker hung)".to_string(),
                };
                println!("{}: {}\n{report}", path.display(), verdict.summary());
            }
            Verdict::Crash(_) | Verdict::Hang => {
                failures += 1;
                println!("{}: {}", path.display(), verdict.summary());
            }
        }
    }
    println!(
        "fuzz --replay: {} cases on {}: {failures} failures",
        args.replay.len(),
        backends
            .iter()
            .map(|b| b.engine().name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
