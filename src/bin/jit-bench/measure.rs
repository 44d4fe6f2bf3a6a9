//! The measurements: compile times, per-vertex execution times, thread scaling.
//!
//! Method, per shader: every backend compiles it (cold: a fresh engine each time; hit: a cache
//! lookup), then each (backend, I/O layout) "runner" is warmed up and calibrated so that one
//! sample runs the whole batch long enough to dwarf the clock, and the samples of all runners
//! are taken **round-robin** (sample i of every runner, then sample i + 1, …). A change in
//! machine load during the run then hits every runner alike, and speedups are the median of
//! the per-round ratios against the interpreter: figures from one run, side by side.

use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::ValueEnum;
use cpu_time::{ProcessTime, ThreadTime};
use indicatif::ProgressBar;
use picajit::engine::{Backend, Engine, ExecPath, GeometryOutput, Shader, SoaBuffer};
use picajit::interp::Interpreter;
use picajit::program::{Regs16, VertexStatus};
use serde::Serialize;

use crate::phases::{self, PhaseTime};
use crate::workload::Workload;

/// How vertices reach the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Io {
    /// Per-vertex records (`Shader::run`, `run_par`): the kernel transposes.
    Aos,
    /// Planar buffers (`Shader::run_soa`): no transposes.
    Soa,
}

impl Io {
    pub fn name(self) -> &'static str {
        match self {
            Io::Aos => "aos",
            Io::Soa => "soa",
        }
    }
}

/// How much to measure.
#[derive(Clone, Debug, Serialize)]
pub struct Settings {
    /// Vertices (invocations) per batch.
    pub vertices: usize,
    /// Vertices per batch of the thread-scaling runs.
    pub par_vertices: usize,
    /// Timed samples per runner.
    pub repetitions: usize,
    /// Warm-up per runner before calibration, in ms.
    pub warmup_ms: u64,
    /// Minimum length of one sample, in ms.
    pub sample_ms: u64,
    /// Cold compiles timed per shader and backend.
    pub compile_repetitions: usize,
    /// Thread counts 1..=threads for the scaling runs (none: no scaling runs).
    pub threads: Option<usize>,
    pub io: Vec<Io>,
    pub quick: bool,
    /// How `pica_instructions_per_vertex` is counted.
    pub instruction_count: &'static str,
    /// How `native_instructions_*` is counted.
    pub native_count: &'static str,
}

pub const INSTRUCTION_COUNT_METHOD: &str =
    "instrumented interpreter run over the benchmark batch: mean PICA instructions executed per vertex (END included)";
pub const NATIVE_COUNT_METHOD: &str =
    "static: instructions in the AoS kernel the timed runs use (the uniform-specialized variant for the benchmark's uniforms, else the generic kernel; batch loop, I/O and the once-per-run prologue included), per batch and divided by the lanes";

/// One measured configuration: every figure of a table row and of the JSON.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub shader: String,
    /// "vertex" or "geometry" (geometry: figures are per invocation, i.e. per primitive).
    pub kind: &'static str,
    pub backend: &'static str,
    pub io: &'static str,
    /// The engine call: "run", "run_soa" or "run_par".
    pub api: &'static str,
    pub threads: usize,
    pub vertices: usize,
    /// "native", "interpreter" or "fallback".
    pub path: &'static str,
    /// The execution path as the engine states it (with the fallback's reason).
    pub path_detail: String,
    /// Vertices per native batch (1 on the interpreter path).
    pub lanes: usize,
    pub pica_instructions_per_vertex: f64,
    /// The clock of the samples: "thread-cpu" (single-thread runs: the measuring thread's CPU
    /// time, blind to time slices other processes take) or "wall" (`run_par` runs).
    pub clock: &'static str,
    /// Median over the samples.
    pub ns_per_vertex: f64,
    pub ns_per_vertex_min: f64,
    pub ns_per_vertex_max: f64,
    /// Median of the wall-clock samples (equal to `ns_per_vertex` on an idle machine).
    pub wall_ns_per_vertex: f64,
    /// Median absolute deviation of the samples, in ns.
    pub ns_per_vertex_mad: f64,
    /// The MAD as a percentage of the median.
    pub spread_pct: f64,
    pub vertices_per_s: f64,
    pub ns_per_instruction: f64,
    /// Median over rounds of (reference time / this time).
    pub speedup: f64,
    /// The interpreter configuration of the speedup: its AoS `run` (or `run_par` with as many
    /// threads), or its SoA path when AoS was not measured.
    pub speedup_reference: String,
    /// Thread-scaling rows: median over rounds of (time at 1 thread / time here).
    pub scaling: Option<f64>,
    /// Thread-scaling rows: median of process CPU time / wall time, the cores the run got
    /// (below `threads` when other processes hold the CPUs).
    pub cores_used: Option<f64>,
    /// Cold compile (fresh engine: decode, lower, allocate, emit, map), median, µs of thread
    /// CPU time (as are the two below).
    pub compile_us: f64,
    /// Cache hit (`Engine::compile` of a compiled program), median of 10 blocks of 100, µs.
    pub compile_hit_us: f64,
    /// The cold compile phase by phase (`Engine::compile_timed`, wall clock inside the compile),
    /// min and median over `compile_repetitions` timed compiles.
    pub compile_phases: Vec<PhaseTime>,
    /// Code words reachable from the entry (what the compile works on).
    pub reachable_words: usize,
    /// First run of one batch after compiling (on the generic kernel: the uniform-specialized
    /// variant and the SoA kernel compile in the background meanwhile), µs.
    pub first_run_us: f64,
    pub native_instructions_per_batch: Option<usize>,
    pub native_instructions_per_vertex: Option<f64>,
    pub samples: usize,
    pub iterations_per_sample: usize,
    /// Vertices whose invocation ran out of step budget in a batch (0 normally).
    pub budget_exhausted: usize,
    /// Raw samples, ns per vertex, in round order.
    pub sample_ns: Vec<f64>,
}

/// Compile figures of one backend.
struct Compiled {
    backend: Backend,
    shader: Arc<Shader>,
    cold_us: f64,
    hit_us: f64,
    first_run_us: [f64; 2],
    phases: Vec<PhaseTime>,
}

/// A configuration being timed.
struct Runner<'a> {
    backend: usize,
    io: Io,
    threads: usize,
    /// A `run_par` runner (thread scaling).
    par: bool,
    vertices: usize,
    run: Box<dyn FnMut() -> usize + 'a>,
    iterations: usize,
    /// ns per vertex by the runner's clock ([`Runner::sample`]).
    samples: Vec<f64>,
    /// ns per vertex by the wall clock.
    wall_samples: Vec<f64>,
    /// Whether `samples` are thread CPU time.
    cpu_clock: bool,
    /// Process CPU time / wall time per sample: the cores the run actually got.
    cores: Vec<f64>,
    budget_exhausted: usize,
}

impl Runner<'_> {
    /// Runs the batch for `warmup`, then sets how many runs make a sample of `sample`
    /// (measured by the clock the samples use).
    fn warm_up(&mut self, warmup: Duration, sample: Duration) {
        let cpu = ThreadTime::try_now().ok().filter(|_| !self.par);
        let start = Instant::now();
        let mut runs = 0u32;
        self.budget_exhausted = (self.run)();
        runs += 1;
        while start.elapsed() < warmup {
            (self.run)();
            runs += 1;
        }
        let spent = cpu
            .and_then(|c| c.try_elapsed().ok())
            .unwrap_or_else(|| start.elapsed());
        let per_run = spent.as_secs_f64().max(1e-9) / f64::from(runs);
        self.iterations = ((sample.as_secs_f64() / per_run).ceil() as usize).max(1);
    }

    /// One sample: the whole batch `iterations` times. Single-thread runners are timed by the
    /// thread's CPU time, so time slices other processes take on a shared machine are not
    /// counted; `run_par` runners by the wall clock (their work is on other threads).
    fn sample(&mut self) {
        let cpu = ThreadTime::try_now().ok();
        let process = ProcessTime::try_now().ok();
        let start = Instant::now();
        for _ in 0..self.iterations {
            std::hint::black_box((self.run)());
        }
        let wall = start.elapsed().as_nanos() as f64;
        if let Some(p) = process.and_then(|p| p.try_elapsed().ok()) {
            self.cores.push(p.as_nanos() as f64 / wall);
        }
        let per_vertex = (self.iterations * self.vertices) as f64;
        let cpu = cpu.and_then(|c| c.try_elapsed().ok());
        let main = match cpu {
            Some(c) if !self.par => c.as_nanos() as f64,
            _ => wall,
        };
        self.samples.push(main / per_vertex);
        self.wall_samples.push(wall / per_vertex);
        self.cpu_clock = cpu.is_some() && !self.par;
    }
}

/// Ticks of the progress bar one shader takes.
pub fn ticks(settings: &Settings, backends: usize) -> u64 {
    let runners = backends * settings.io.len() + backends * settings.threads.unwrap_or(0);
    (backends + runners * (1 + settings.repetitions)) as u64
}

/// Measures `workload` on `backends` (the interpreter must be among them: it is the
/// reference of the speedups).
pub fn measure(
    workload: &Workload,
    backends: &[Backend],
    settings: &Settings,
    progress: &ProgressBar,
) -> Vec<Row> {
    progress.set_message(workload.name.clone());
    let inputs = workload.inputs(settings.vertices);
    let instructions = count_instructions(workload, &inputs);
    let compiled: Vec<Compiled> = backends
        .iter()
        .map(|&b| {
            let c = compile_figures(workload, b, settings);
            progress.inc(1);
            c
        })
        .collect();

    let soa_in = SoaBuffer::from_aos(&inputs);
    let par_inputs = workload.inputs(settings.par_vertices);
    let pools: Vec<rayon::ThreadPool> = (1..=settings.threads.unwrap_or(0))
        .map(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .expect("a thread pool")
        })
        .collect();
    let uniforms = &workload.uniforms;

    let mut runners: Vec<Runner> = Vec::new();
    for (b, c) in compiled.iter().enumerate() {
        for &io in &settings.io {
            let shader = Arc::clone(&c.shader);
            let n = settings.vertices;
            let mut status = vec![VertexStatus::Ended; n];
            let run: Box<dyn FnMut() -> usize> = match io {
                // Geometry shaders: outputs and every emitted triangle, in reused buffers.
                Io::Aos if workload.is_geometry() => {
                    let mut out = GeometryOutput::default();
                    let inputs = &inputs;
                    Box::new(move || {
                        let r = shader.run_geometry_into(uniforms, inputs, &mut out);
                        exhausted(r.is_err(), &out.status)
                    })
                }
                Io::Aos => {
                    let mut out: Vec<Regs16> = vec![[[0.0; 4]; 16]; n];
                    let inputs = &inputs;
                    Box::new(move || {
                        let r = shader.run(uniforms, inputs, &mut out, &mut status);
                        exhausted(r.is_err(), &status)
                    })
                }
                Io::Soa => {
                    let mut out = SoaBuffer::new(n);
                    let soa_in = &soa_in;
                    Box::new(move || {
                        let r = shader.run_soa(uniforms, soa_in, &mut out, &mut status);
                        exhausted(r.is_err(), &status)
                    })
                }
            };
            runners.push(Runner {
                backend: b,
                io,
                threads: 1,
                par: false,
                vertices: n,
                run,
                iterations: 1,
                samples: Vec::new(),
                wall_samples: Vec::new(),
                cpu_clock: false,
                cores: Vec::new(),
                budget_exhausted: 0,
            });
        }
        for (t, pool) in pools.iter().enumerate() {
            let shader = Arc::clone(&c.shader);
            let n = settings.par_vertices;
            let mut out: Vec<Regs16> = vec![[[0.0; 4]; 16]; n];
            let mut status = vec![VertexStatus::Ended; n];
            let inputs = &par_inputs;
            runners.push(Runner {
                backend: b,
                io: Io::Aos,
                threads: t + 1,
                par: true,
                vertices: n,
                run: Box::new(move || {
                    let r =
                        pool.install(|| shader.run_par(uniforms, inputs, &mut out, &mut status));
                    exhausted(r.is_err(), &status)
                }),
                iterations: 1,
                samples: Vec::new(),
                wall_samples: Vec::new(),
                cpu_clock: false,
                cores: Vec::new(),
                budget_exhausted: 0,
            });
        }
    }

    let warmup = Duration::from_millis(settings.warmup_ms);
    let sample = Duration::from_millis(settings.sample_ms);
    for r in &mut runners {
        r.warm_up(warmup, sample);
        progress.inc(1);
    }
    for _ in 0..settings.repetitions {
        for r in &mut runners {
            r.sample();
            progress.inc(1);
        }
    }

    let rows: Vec<Row> = runners
        .iter()
        .map(|r| {
            let c = &compiled[r.backend];
            row(workload, c, r, instructions)
        })
        .collect();
    with_ratios(rows, &runners, backends)
}

fn exhausted(failed: bool, status: &[VertexStatus]) -> usize {
    if failed {
        status
            .iter()
            .filter(|s| **s == VertexStatus::BudgetExhausted)
            .count()
    } else {
        0
    }
}

/// Mean PICA instructions executed per vertex of `inputs`, by the instrumented interpreter.
fn count_instructions(workload: &Workload, inputs: &[Regs16]) -> f64 {
    let interp = Interpreter::new(&workload.program);
    let total: u64 = inputs
        .iter()
        .map(|v| interp.run_vertex_counted(&workload.uniforms, v).1)
        .sum();
    total as f64 / inputs.len().max(1) as f64
}

fn compile_figures(workload: &Workload, backend: Backend, settings: &Settings) -> Compiled {
    let engine = || Engine::new(backend).expect("an available backend");
    let mut cold: Vec<f64> = (0..settings.compile_repetitions.max(1))
        .map(|_| {
            let e = engine();
            timed(|| e.compile(&workload.program)).1
        })
        .collect();
    let e = engine();
    let shader = e.compile(&workload.program);
    // The steady state: every kernel these uniforms use, compiled before timing.
    shader.prepare(&workload.uniforms);
    // Ten blocks of lookups, the median block: one preempted block does not move it.
    let mut blocks: Vec<f64> = (0..10)
        .map(|_| {
            let lookups = 100;
            let ((), us) = timed(|| {
                for _ in 0..lookups {
                    std::hint::black_box(e.compile(&workload.program));
                }
            });
            us / f64::from(lookups)
        })
        .collect();
    let hit_us = median(&mut blocks);
    let first_run_us = [Io::Aos, Io::Soa].map(|io| first_run(workload, backend, io));
    Compiled {
        backend,
        shader,
        cold_us: median(&mut cold),
        hit_us,
        first_run_us,
        phases: phases::measure(workload, backend, settings.compile_repetitions),
    }
}

/// Time of the first run of one batch right after a cold compile.
fn first_run(workload: &Workload, backend: Backend, io: Io) -> f64 {
    let e = Engine::new(backend).expect("an available backend");
    let shader = e.compile(&workload.program);
    let n = shader.lanes();
    let inputs = workload.inputs(n);
    let mut status = vec![VertexStatus::Ended; n];
    match io {
        Io::Aos => {
            let mut out = vec![[[0.0; 4]; 16]; n];
            timed(|| shader.run(&workload.uniforms, &inputs, &mut out, &mut status)).1
        }
        Io::Soa => {
            let soa = SoaBuffer::from_aos(&inputs);
            let mut out = SoaBuffer::new(n);
            timed(|| shader.run_soa(&workload.uniforms, &soa, &mut out, &mut status)).1
        }
    }
}

/// Runs `f` once: its result and the µs it took by this thread's CPU time (the wall clock
/// where that clock is missing).
fn timed<R>(f: impl FnOnce() -> R) -> (R, f64) {
    match ThreadTime::try_now() {
        Ok(start) => {
            let r = f();
            let us = start.try_elapsed().unwrap_or_default().as_secs_f64() * 1e6;
            (r, us)
        }
        Err(_) => {
            let start = Instant::now();
            let r = f();
            (r, start.elapsed().as_secs_f64() * 1e6)
        }
    }
}

fn row(workload: &Workload, c: &Compiled, r: &Runner, instructions: f64) -> Row {
    let mut sorted = r.samples.clone();
    let med = median(&mut sorted);
    let mut dev: Vec<f64> = r.samples.iter().map(|s| (s - med).abs()).collect();
    let mad = median(&mut dev);
    let (path, path_detail) = match c.shader.path() {
        ExecPath::Native(_) => ("native", c.shader.path().to_string()),
        ExecPath::Interpreter => ("interpreter", "interpreter".to_string()),
        ExecPath::Fallback(_) => ("fallback", c.shader.path().to_string()),
    };
    // The kernel the timed runs use: the variant for the workload's uniforms (compiled by
    // `prepare` before timing), else the generic one.
    let native = c
        .shader
        .machine_code_for(&workload.uniforms)
        .map(|m| m.instruction_count());
    let lanes = c.shader.lanes();
    Row {
        shader: workload.name.clone(),
        kind: if workload.is_geometry() {
            "geometry"
        } else {
            "vertex"
        },
        backend: c.backend.name(),
        io: r.io.name(),
        api: match (r.par, r.io) {
            (true, _) => "run_par",
            (false, Io::Aos) if workload.is_geometry() => "run_geometry_into",
            (false, Io::Aos) => "run",
            (false, Io::Soa) => "run_soa",
        },
        threads: r.threads,
        vertices: r.vertices,
        path,
        path_detail,
        lanes,
        pica_instructions_per_vertex: instructions,
        clock: if r.cpu_clock { "thread-cpu" } else { "wall" },
        ns_per_vertex: med,
        wall_ns_per_vertex: median(&mut r.wall_samples.clone()),
        ns_per_vertex_min: sorted.first().copied().unwrap_or(f64::NAN),
        ns_per_vertex_max: sorted.last().copied().unwrap_or(f64::NAN),
        ns_per_vertex_mad: mad,
        spread_pct: 100.0 * mad / med,
        vertices_per_s: 1e9 / med,
        ns_per_instruction: med / instructions.max(1.0),
        speedup: f64::NAN,
        speedup_reference: String::new(),
        scaling: None,
        cores_used: (r.par && !r.cores.is_empty()).then(|| median(&mut r.cores.clone())),
        compile_us: c.cold_us,
        compile_hit_us: c.hit_us,
        compile_phases: c.phases.clone(),
        reachable_words: workload.program.reachable_words().len(),
        first_run_us: c.first_run_us[match r.io {
            Io::Aos => 0,
            Io::Soa => 1,
        }],
        native_instructions_per_batch: native,
        native_instructions_per_vertex: native.map(|n| n as f64 / lanes as f64),
        samples: r.samples.len(),
        iterations_per_sample: r.iterations,
        budget_exhausted: r.budget_exhausted,
        sample_ns: r.samples.clone(),
    }
}

/// Fills in speedups (against the interpreter's AoS runner with the same threads and API) and
/// thread scaling (against the same backend's 1-thread `run_par` runner), as medians of
/// per-round ratios.
fn with_ratios(mut rows: Vec<Row>, runners: &[Runner], backends: &[Backend]) -> Vec<Row> {
    let interp = backends.iter().position(|&b| b == Backend::Interp);
    let find = |backend: usize, io: Io, threads: usize, par: bool| {
        runners.iter().position(|r| {
            r.backend == backend && r.io == io && r.threads == threads && r.par == par
        })
    };
    for (i, r) in runners.iter().enumerate() {
        // The interpreter's own AoS path is the reference even for SoA rows: its SoA adapter
        // gathers every register per vertex and is slower than its AoS path.
        let base = interp.and_then(|b| {
            find(b, Io::Aos, r.threads, r.par).or_else(|| find(b, r.io, r.threads, r.par))
        });
        if let Some(base) = base {
            rows[i].speedup = median_ratio(&runners[base].samples, &r.samples);
            let b = &runners[base];
            rows[i].speedup_reference = format!(
                "interp/{}/{}",
                b.io.name(),
                if b.par { "run_par" } else { "run" }
            );
        }
        if r.par {
            if let Some(one) = find(r.backend, r.io, 1, true) {
                rows[i].scaling = Some(median_ratio(&runners[one].samples, &r.samples));
            }
        }
    }
    rows
}

/// Median over rounds of `base[i] / x[i]`.
fn median_ratio(base: &[f64], x: &[f64]) -> f64 {
    let mut ratios: Vec<f64> = base.iter().zip(x).map(|(b, x)| b / x).collect();
    median(&mut ratios)
}

/// Median (NaN for no values).
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::{median, median_ratio};

    #[test]
    fn medians() {
        assert!(median(&mut []).is_nan());
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median_ratio(&[10.0, 20.0, 30.0], &[1.0, 4.0, 2.0]), 10.0);
    }
}
