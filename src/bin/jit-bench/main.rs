//! `jit-bench`: how fast picajit runs shaders on this machine, per backend, against the
//! reference interpreter. With no arguments it runs the built-in shader set (the example
//! shaders of `examples/shaders/`, embedded and assembled at start-up) on every backend this
//! host has. See the README's "Benchmarks" section for the method.

mod agal;
mod aligned;
mod chart;
mod count;
mod draw;
mod load;
mod machine;
mod measure;
mod phases;
mod report;
// Also compiled into the criterion benches, which use parts the command does not.
#[allow(dead_code)]
mod workload;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use picajit::engine::{Backend, Engine};

use crate::measure::{Io, Settings};

#[derive(Parser)]
#[command(
    name = "jit-bench",
    version,
    about = "Measure picajit's backends against the reference interpreter"
)]
struct Args {
    /// Shaders: SHBIN files (every DVLE), PCAS cases (with their uniforms and inputs), picasso
    /// sources (.pica) or .shlist lists. None: the built-in set (examples/shaders). AGAL
    /// sources (.agal), bytecode and AGCS cases are measured on the AGAL interpreter and the
    /// selected backends, in a table of their own.
    files: Vec<PathBuf>,
    /// Backends to measure, comma-separated or repeated (default: every one this host has).
    /// The interpreter is always measured too: it is the reference of the speedups.
    #[arg(long, value_enum, value_delimiter = ',')]
    backend: Vec<BackendArg>,
    /// Vertices (geometry shaders: invocations) per batch [default: 4096, --quick 2048].
    #[arg(long)]
    vertices: Option<usize>,
    /// Also measure `run_par` in rayon pools of 1…T threads.
    #[arg(long)]
    threads: Option<usize>,
    /// Vertex layout, comma-separated or repeated: aos (`Shader::run`), soa (`run_soa`).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "aos")]
    io: Vec<Io>,
    /// Write every figure and the machine description as JSON ("-": stdout; the table then
    /// goes to stderr). With `--draw`: the draw rows, every column of both draw tables.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Draw the speedups as an SVG chart.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Fewer and shorter samples: a first look in a few seconds.
    #[arg(long)]
    quick: bool,
    /// Measure the built-in AGAL examples (examples/agal) on the AGAL interpreter and every
    /// selected backend instead of the PICA shaders (AGAL files named as FILES are measured
    /// the same way).
    #[arg(long)]
    agal: bool,
    /// Timed samples per configuration [default: 15, --quick 7].
    #[arg(long)]
    repetitions: Option<usize>,
    /// Measure emulator draws instead (`picajit::pipeline`: register writes in, output
    /// vertices in semantic order out) against a bare AoS `run` of the same unique vertices:
    /// MVP, lighting, branches (lanes that retire) and the SHBIN files given (default: a
    /// corpus shader from the ../shared/corpus/shbin beside the source checkout, when it is
    /// there).
    #[arg(long)]
    draw: bool,
    /// With `--draw`: no timing; make this operation once per draw shader and backend (not
    /// the interpreter) inside the function `counted`, for an instruction counter
    /// (`valgrind --tool=callgrind --collect-atstart=no --toggle-collect='jit_bench::count::counted'`).
    #[arg(long, value_enum, requires = "draw")]
    count: Option<count::Op>,
    /// With `--draw`: only the draw shaders whose name contains this (mvp, lighting,
    /// branches, the corpus file's name).
    #[arg(long, requires = "draw")]
    shader: Option<String>,
}

impl Args {
    /// `--json -`: stdout carries the JSON only, and the tables go to stderr.
    fn json_to_stdout(&self) -> bool {
        self.json.as_deref().is_some_and(|p| p.as_os_str() == "-")
    }

    /// Where the tables go: stdout, or stderr when the JSON takes stdout.
    fn table_out(&self) -> Box<dyn Write> {
        if self.json_to_stdout() {
            Box::new(std::io::stderr())
        } else {
            Box::new(std::io::stdout())
        }
    }

    /// Writes `report` as pretty JSON to the `--json` file or stdout; nothing without `--json`.
    fn write_json(&self, report: &impl serde::Serialize) -> Result<(), String> {
        let Some(path) = &self.json else {
            return Ok(());
        };
        let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        if self.json_to_stdout() {
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "{text}").map_err(|e| format!("stdout: {e}"))
        } else {
            std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
        }
    }
}

/// Backend names on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BackendArg {
    /// The reference interpreter.
    Interp,
    /// x86-64 JIT, SSE4.1 tier (4 vertices per batch).
    #[value(name = "x64-sse41")]
    X64Sse41,
    /// x86-64 JIT, AVX2 tier (8 vertices per batch).
    #[value(name = "x64-avx2")]
    X64Avx2,
    /// x86-64 JIT, AVX-512 tier (16 vertices per batch; on a CPU without it only in a test
    /// build, emulated: measures the emulator).
    #[value(name = "x64-avx512")]
    X64Avx512,
    /// AArch64 NEON (under qemu-user on other hosts: measures the emulator).
    Aarch64,
    /// The best JIT this host has.
    Auto,
    /// Every backend this host runs natively.
    All,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("jit-bench: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The backends to measure: the interpreter first, then the requested ones in host order.
fn backends(requested: &[BackendArg]) -> Result<Vec<Backend>, String> {
    let available = Backend::runnable();
    let mut wanted = vec![Backend::Interp];
    if requested.is_empty() || requested.contains(&BackendArg::All) {
        // Emulated backends (AArch64 under qemu-user) measure the emulator, not the code:
        // only on request.
        wanted.extend(available.iter().copied().filter(|b| b.is_native_here()));
    }
    for r in requested {
        let b = match r {
            BackendArg::Interp | BackendArg::All => continue,
            BackendArg::X64Sse41 => Backend::X64Sse41,
            BackendArg::X64Avx2 => Backend::X64Avx2,
            BackendArg::X64Avx512 => Backend::X64Avx512,
            BackendArg::Aarch64 => Backend::Aarch64,
            BackendArg::Auto => Engine::new(Backend::Auto)
                .map_err(|e| e.to_string())?
                .backend(),
        };
        if !available.contains(&b) {
            return Err(format!(
                "backend {} is not available on this host",
                b.name()
            ));
        }
        wanted.push(b);
    }
    let mut out = Vec::new();
    for b in available {
        if wanted.contains(&b) && !out.contains(&b) {
            out.push(b);
        }
    }
    Ok(out)
}

fn run(args: &Args) -> Result<(), String> {
    let (agal_files, pica_files): (Vec<&std::path::Path>, Vec<&std::path::Path>) = args
        .files
        .iter()
        .map(PathBuf::as_path)
        .partition(|f| agal::is_agal(f));
    if !agal_files.is_empty() || args.agal {
        let mut sources: Vec<agal::Source<'_>> = Vec::new();
        if args.agal {
            sources.extend(
                agal::BUILTINS
                    .iter()
                    .map(|&(name, text)| agal::Source::Builtin(name, text)),
            );
        }
        sources.extend(agal_files.iter().map(|f| agal::Source::File(f)));
        let rows = agal::measure(
            &sources,
            &backends(&args.backend)?,
            args.vertices
                .unwrap_or(if args.quick { 2048 } else { 4096 })
                .max(1),
            if args.quick { 40 } else { 250 },
            if args.quick { 8 } else { 25 },
            args.repetitions
                .unwrap_or(if args.quick { 7 } else { 15 })
                .max(1),
        )?;
        let text = agal::table(&rows);
        if args.json_to_stdout() {
            eprintln!("{text}");
        } else {
            println!("{text}");
        }
        if pica_files.is_empty() {
            return Ok(());
        }
    }
    let backends = backends(&args.backend)?;
    if args.draw {
        return run_draws(args, &backends);
    }
    let workloads = if pica_files.is_empty() {
        workload::builtins().map_err(|e| format!("built-in shaders: {e}"))?
    } else {
        let mut all = Vec::new();
        for f in &pica_files {
            all.extend(load::load(f)?);
        }
        all
    };
    let mut ios = args.io.clone();
    ios.sort_by_key(|&io| io as u8);
    ios.dedup();
    let vertices = args
        .vertices
        .unwrap_or(if args.quick { 2048 } else { 4096 })
        .max(1);
    let settings = Settings {
        vertices,
        par_vertices: vertices.max(16 * 1024),
        repetitions: args
            .repetitions
            .unwrap_or(if args.quick { 7 } else { 15 })
            .max(1),
        warmup_ms: if args.quick { 40 } else { 250 },
        sample_ms: if args.quick { 8 } else { 25 },
        compile_repetitions: if args.quick { 5 } else { 20 },
        threads: args.threads.filter(|&t| t > 0),
        io: ios,
        quick: args.quick,
        instruction_count: measure::INSTRUCTION_COUNT_METHOD,
        native_count: measure::NATIVE_COUNT_METHOD,
    };
    let machine = machine::Machine::detect();

    let mut out = args.table_out();
    let io_err = |e: std::io::Error| format!("writing the table: {e}");
    let names: Vec<&str> = workloads.iter().map(|w| w.name.as_str()).collect();
    let shaders = if args.files.is_empty() {
        format!(
            "built-in set, assembled from examples/shaders/ at start-up: {}",
            names.join(", ")
        )
    } else {
        names.join(", ")
    };
    let backend_names: Vec<&str> = backends.iter().map(|b| b.name()).collect();
    writeln!(out, "shaders: {shaders}").map_err(io_err)?;
    writeln!(out, "backends: {}", backend_names.join(", ")).map_err(io_err)?;
    write!(out, "{}", report::preamble(&machine, &settings)).map_err(io_err)?;
    out.flush().map_err(io_err)?;

    let per_shader = measure::ticks(&settings, backends.len());
    let progress = ProgressBar::new(per_shader * workloads.len() as u64);
    progress.set_style(
        ProgressStyle::with_template("{spinner} {elapsed:>4} [{bar:40}] {pos}/{len} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    let mut rows = Vec::new();
    for w in &workloads {
        rows.extend(measure::measure(w, &backends, &settings, &progress));
    }
    progress.finish_and_clear();

    let notes = report::notes(&rows);
    writeln!(out).map_err(io_err)?;
    write!(out, "{}", report::table(&rows)).map_err(io_err)?;
    if let Some(t) = report::scaling_table(&rows) {
        writeln!(
            out,
            "\nthread scaling (run_par, {} vertices): ns/vertex (gain over 1 thread)",
            settings.par_vertices
        )
        .map_err(io_err)?;
        write!(out, "{t}").map_err(io_err)?;
    }
    writeln!(out, "\n{}", report::LEGEND).map_err(io_err)?;
    if let Some(t) = phases::table(&rows) {
        writeln!(out).map_err(io_err)?;
        write!(out, "{t}").map_err(io_err)?;
        writeln!(out, "{}", phases::LEGEND).map_err(io_err)?;
    }
    for n in &notes {
        writeln!(out, "note: {n}").map_err(io_err)?;
    }

    args.write_json(&report::Report {
        machine: &machine,
        settings: &settings,
        results: &rows,
        notes,
    })?;
    if let Some(path) = &args.svg {
        chart::draw(path, &rows, &machine)?;
    }
    Ok(())
}

/// `--draw`: the draw table.
fn run_draws(args: &Args, backends: &[Backend]) -> Result<(), String> {
    const CORPUS: &str = "../shared/corpus/shbin/lovebrew__lovepotion__main_v_pica.shbin";
    // The corpus beside the checkout this binary was built from, wherever it is run from.
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS);
    let default_corpus = args.files.is_empty().then_some(corpus.as_path());
    if let Some(path) = default_corpus.filter(|p| !p.is_file()) {
        eprintln!(
            "jit-bench: note: no corpus shader at {} — its rows are left out (pass a SHBIN \
             file to measure one)",
            path.display()
        );
    }
    let mut workloads = draw::workloads(default_corpus)?;
    for f in &args.files {
        workloads.extend(draw::file_workload(f)?);
    }
    if let Some(name) = &args.shader {
        workloads.retain(|w| w.name.contains(name.as_str()));
    }
    if let Some(op) = args.count {
        // One line per operation made, once it is done: what the counter counted.
        let mut out = args.table_out();
        let name = op.to_possible_value().map(|v| v.get_name().to_string());
        for w in &workloads {
            for &b in backends.iter().filter(|&&b| b != Backend::Interp) {
                count::count(w, b, op);
                writeln!(
                    out,
                    "counted: {} {} {}",
                    name.as_deref().unwrap_or("?"),
                    w.name,
                    b.name()
                )
                .map_err(|e| format!("writing the table: {e}"))?;
            }
        }
        return Ok(());
    }
    let samples = args
        .repetitions
        .unwrap_or(if args.quick { 7 } else { 15 })
        .max(1);
    let sample_ms = if args.quick { 8.0 } else { 25.0 };
    let machine = machine::Machine::detect();
    let mut out = args.table_out();
    let io_err = |e: std::io::Error| format!("writing the table: {e}");
    writeln!(
        out,
        "draws: {} u16 indices over {} vertices (50% reuse, shuffled), each attribute in its \
         own float array (stride {} floats, 4 components)",
        draw::INDICES,
        draw::VERTICES,
        draw::STRIDE
    )
    .map_err(io_err)?;
    writeln!(
        out,
        "machine: {} ({} logical CPUs, load {:.2}); {samples} samples of ≥ {sample_ms} ms each, draw and run alternating, medians, thread CPU time",
        machine.cpu_model,
        machine.logical_cpus,
        machine.load_average.map_or(0.0, |l| l[0])
    )
    .map_err(io_err)?;
    out.flush().map_err(io_err)?;
    let mut rows = Vec::new();
    for w in &workloads {
        for &b in backends {
            rows.push(draw::measure(w, b, samples, sample_ms));
        }
    }
    writeln!(out, "\n{}", draw::table(&rows)).map_err(io_err)?;
    writeln!(out, "small draws:\n{}", draw::small_table(&rows)).map_err(io_err)?;
    writeln!(out, "{}", draw::LEGEND).map_err(io_err)?;
    args.write_json(&draw::DrawReport {
        machine: &machine,
        indices: draw::INDICES,
        vertices: draw::VERTICES,
        stride: draw::STRIDE,
        samples,
        sample_ms,
        results: &rows,
    })?;
    Ok(())
}
