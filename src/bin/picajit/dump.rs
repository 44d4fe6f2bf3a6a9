//! `picajit dump`: how a program compiles on a backend — the execution path (native or the
//! interpreter fallback, with the reason), what the frontend made of each branch on a
//! condition that may differ between vertices, the IR (`--ir`), the native code (`--asm`) and
//! the time of each compile phase (`--timings`); with `--draw`, the draw kernels of an
//! emulator draw instead (module `dump_draw`).
//! AGAL files (sources, bytecode, AGCS cases) are dumped by `agal::dump_agal`: path, segments,
//! texture samples, IR and code.
//! The program is a file, or a synthetic one (`--generate straight:500`, see
//! `picajit::synthetic`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use picajit::engine::{Engine, MachineCode, Timings};
use picajit::synthetic::{self, Shape};

use crate::{inputs, load_program, Backend, CliResult, Loaded};

#[derive(Args)]
pub struct DumpArgs {
    /// A SHBIN or PCAS file, or an AGAL source, bytecode or AGCS case (or none, with
    /// --generate).
    #[arg(required_unless_present = "generate", conflicts_with = "generate")]
    file: Option<PathBuf>,
    /// A synthetic program instead of a file: SHAPE:SIZE[:SEED], SHAPE straight or branchy,
    /// SIZE in code words (24..=4096; above 512 a geometry shader), SEED 1 by default.
    #[arg(long, value_name = "SHAPE:SIZE[:SEED]")]
    generate: Option<String>,
    /// With --generate: print the generated picasso source (only that: `> file.pica`).
    #[arg(long, requires = "generate")]
    source: bool,
    /// SHBIN only: which DVLE.
    #[arg(long, default_value_t = 0)]
    dvle: usize,
    /// Print the IR.
    #[arg(long)]
    ir: bool,
    /// Print the native code.
    #[arg(long)]
    asm: bool,
    /// Print the time of each compile phase: the median of --repeat cold compiles (after one
    /// untimed warm-up), wall clock.
    #[arg(long)]
    timings: bool,
    /// SHBIN only: print the draw kernels an emulator draw runs (`picajit::pipeline`, the
    /// DVLE's output map) instead of the AoS kernel: indexed, and stepped through consecutive
    /// vertices; attribute k in v_k, each 4 floats in an array of its own (with --asm: the
    /// code).
    #[arg(long, conflicts_with_all = ["generate", "timings", "ir"])]
    draw: bool,
    /// With --draw: the attribute arrays' stride in floats (the stepped kernel bakes it in).
    #[arg(long, default_value_t = 4, requires = "draw",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    draw_stride: u32,
    /// With --draw: the draw kernels' width — auto (what a draw runs: an AVX-512 engine on a
    /// CPU that splits 512-bit operations in two draws with AVX2 kernels), full (the backend's
    /// own width), avx2 (AVX2 kernels for AVX-512; other backends at their own width).
    #[arg(long, value_enum, default_value = "auto", requires = "draw")]
    draw_width: crate::dump_draw::Width,
    /// Cold compiles --timings takes the median of.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    repeat: u32,
    /// Backend to compile for.
    #[arg(long, value_enum, default_value = "auto")]
    backend: Backend,
    /// Show the kernel a run with these uniforms uses (PICA multiplies by finite, non-zero
    /// uniform components become plain multiplies): SHBIN — the random uniforms of `picajit
    /// run --seed N` with the DVLE's constants; a PCAS case always uses its own uniforms.
    #[arg(long)]
    seed: Option<u64>,
}

/// `SHAPE:SIZE[:SEED]` → the synthetic program's source.
fn generated(spec: &str) -> Result<String, String> {
    let parts: Vec<&str> = spec.split(':').collect();
    let bad = || format!("--generate {spec:?}: expected SHAPE:SIZE[:SEED], e.g. branchy:500");
    let (shape, size, seed) = match parts[..] {
        [shape, size] => (shape, size, "1"),
        [shape, size, seed] => (shape, size, seed),
        _ => return Err(bad()),
    };
    let shape = Shape::parse(shape)
        .ok_or_else(|| format!("--generate {spec:?}: shape is straight or branchy"))?;
    let size: usize = size.parse().map_err(|_| bad())?;
    let seed: u64 = seed.parse().map_err(|_| bad())?;
    synthetic::source(shape, size, seed).map_err(|e| format!("--generate {spec:?}: {e}"))
}

pub fn dump(args: &DumpArgs) -> CliResult {
    let (program, loaded) = match (&args.generate, &args.file) {
        (Some(spec), _) => {
            let text = generated(spec)?;
            if args.source {
                out!("{text}");
                return Ok(ExitCode::SUCCESS);
            }
            let (shbin, _) = picajit::asm::assemble(&[picajit::asm::Source::new(spec, text)])
                .map_err(|d| format!("--generate {spec:?}: {}", d[0]))?;
            (shbin.program(0).map_err(|e| e.to_string())?, None)
        }
        (None, Some(file)) => {
            if crate::agal::is_agal(file, &crate::read_file(file)?) {
                if args.timings {
                    return Err("--timings: PICA programs only".into());
                }
                return crate::agal::dump_agal(file, args.backend, args.ir, args.asm);
            }
            let (program, loaded) = load_program(file, args.dvle)?;
            (program, Some(loaded))
        }
        (None, None) => return Err("dump needs a file or --generate".into()),
    };
    let uniforms = match &loaded {
        Some(Loaded::Case(case)) => Some(case.uniforms.clone()),
        Some(Loaded::Shbin(shbin)) => args.seed.map(|seed| {
            let mut rng = fastrand::Rng::with_seed(seed);
            let mut u = inputs::random_uniforms(&mut rng);
            if let Some(dvle) = shbin.dvles.get(args.dvle) {
                dvle.apply_constants(&mut u);
            }
            u
        }),
        None => None,
    };
    let engine = Engine::new(args.backend.engine()).map_err(|e| e.to_string())?;
    if args.draw {
        let Some(Loaded::Shbin(shbin)) = &loaded else {
            return Err("--draw: SHBIN files only (the output map comes from the DVLE)".into());
        };
        outln!("backend: {}", engine.backend().name());
        let stride = args.draw_stride as usize;
        return crate::dump_draw::draw_kernels(
            engine.with_draw_width(args.draw_width.into()),
            shbin,
            args.dvle,
            uniforms.as_ref(),
            stride,
            args.asm,
        );
    }
    let shader = engine.compile(&program);
    outln!("backend: {}", engine.backend().name());
    outln!("path: {}", shader.path());
    if let Ok(lowered) = picajit::frontend::lower(&program) {
        let st = lowered.stats;
        let model = if st.lanes {
            format!(
                "; lane-position model: {} lane splits, {} uniform among running lanes",
                st.lane_splits, st.lane_uniform
            )
        } else {
            String::new()
        };
        outln!(
            "frontend: {} control states; per-vertex branches: {} if-converted, {} masked \
             forks{model}",
            st.states,
            st.if_converted,
            st.masked_forks,
        );
        for (pc, m) in &lowered.branches {
            outln!("  branch at {pc:#05x}: {}", m.describe());
        }
    }
    if let Some(ir) = shader.ir() {
        outln!(
            "IR: {} blocks, {} instructions",
            ir.blocks.len(),
            ir.inst_count()
        );
        if args.ir {
            out!("{ir}");
        }
    } else if args.ir {
        outln!("(no IR: the shader runs on the interpreter)");
    }
    let variant = uniforms.as_ref().and_then(|u| shader.machine_code_for(u));
    if variant.is_some() {
        outln!("kernel: the variant for the run's uniforms");
    }
    if let Some(code) = variant.as_ref().or(shader.machine_code()) {
        outln!("native: {}", native_summary(code));
        if args.asm {
            out!("{}", code.disassemble());
        }
    } else if args.asm {
        outln!("(no native code: the shader runs on the interpreter)");
    }
    if args.timings {
        timings(&engine, &program, args.repeat as usize);
    }
    Ok(ExitCode::SUCCESS)
}

/// The phase table: per phase, the minimum and the median over `repeat` timed cold compiles
/// (wall clock: on a loaded machine the minimum is the better estimate of the work, the median
/// of the totals includes the time slices other processes took).
fn timings(engine: &Engine, program: &picajit::Program, repeat: usize) {
    engine.compile_timed(program, &mut Timings::new());
    let runs: Vec<Timings> = (0..repeat)
        .map(|_| {
            let mut t = Timings::new();
            engine.compile_timed(program, &mut t);
            t
        })
        .collect();
    let words = program.reachable_words().len();
    let stats = |mut v: Vec<Duration>| {
        v.sort_unstable();
        (v[0], v[v.len() / 2])
    };
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let phases: Vec<(&str, Duration, Duration)> = runs[0]
        .phases()
        .iter()
        .map(|&(phase, _)| {
            let (min, med) = stats(runs.iter().map(|t| t.get(phase)).collect());
            (phase, min, med)
        })
        .collect();
    let (total_min, total_med) = stats(runs.iter().map(Timings::total).collect());
    let sum_med: Duration = phases.iter().map(|p| p.2).sum();
    outln!(
        "compile timings ({repeat} cold compiles, wall clock): total min {:.1} µs, median {:.1} µs; \
         sum of phase medians {:.1} µs = {:.3} µs per reachable word ({words})",
        us(total_min),
        us(total_med),
        us(sum_med),
        us(sum_med) / words.max(1) as f64
    );
    outln!(
        "{:<20} {:>10} {:>10} {:>7}",
        "phase",
        "min µs",
        "median µs",
        "share"
    );
    for (phase, min, med) in phases {
        outln!(
            "{phase:<20} {:>10.1} {:>10.1} {:>6.1}%",
            us(min),
            us(med),
            100.0 * med.as_secs_f64() / sum_med.as_secs_f64().max(1e-12)
        );
    }
}

/// One line on a kernel's machine code: its size, instructions, spill slots and lanes (what
/// `dump` prints for a shader, an AGAL program and each draw kernel).
pub fn native_summary(code: &MachineCode) -> String {
    format!(
        "{} bytes of code, {} instructions, {} spill slots, {} lanes",
        code.code_len(),
        code.instruction_count(),
        code.spill_slots(),
        code.lanes()
    )
}
