//! `picajit run`: a PCAS case (writing PCOU with `-o`), or a DVLE of a SHBIN file on seeded
//! random uniforms and inputs, with values set by `--uniform`/`--input`/`--values` on top;
//! prints the inputs used and a table of the outputs (the DVLE's declared ones), and the
//! triangles a geometry shader emits (a geometry case's PCOU, version 2, holds them too);
//! `--save-case` writes the run as a PCAS case (version 2 for a geometry shader). On any
//! backend.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use picajit::case::{Case, CaseOutput};
use picajit::engine::{Engine, GeometryOutput, Shader};
use picajit::program::{Regs16, ShaderKind, Uniforms, VertexStatus};
use picajit::shbin::{Dvle, RegisterFile};

use crate::{inputs, load_program, read_file, values, Backend, CliResult, Loaded};

#[derive(Args)]
pub struct RunArgs {
    /// A PCAS case file or a SHBIN file (told apart by their magic); AGAL cases (AGCS), sources
    /// (.agal) and bytecode run as `picajit agal run` does, on the chosen backend.
    file: PathBuf,
    /// Where to write the PCOU outputs of a case (default: print a table).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Engine to run on.
    #[arg(long, value_enum, default_value = "auto")]
    backend: Backend,
    /// SHBIN only: which DVLE to run.
    #[arg(long, default_value_t = 0)]
    dvle: usize,
    /// SHBIN only: how many random vertices.
    #[arg(long, default_value_t = 4)]
    vertices: usize,
    /// SHBIN only: seed of the random uniforms and inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Step budget (backward transfers per vertex); default: the `-b<N>` suffix of a case
    /// file's name (as `picajit fuzz` saves them), else 1048576.
    #[arg(long)]
    budget: Option<u32>,
    /// Set a uniform: `c4=1,0,0,0`, `i0=4,0,1`, `b3=true`, or a name the DVLE declares
    /// (`mvp=…` with 4 numbers per register, one row per register; `mvp[2]=…`). Repeatable.
    #[arg(long = "uniform", value_name = "NAME=VALUES")]
    uniforms: Vec<String>,
    /// Set an input register of every vertex: `v0=1,2,3,1` or a `.in` name. Repeatable.
    #[arg(long = "input", value_name = "NAME=VALUES")]
    inputs: Vec<String>,
    /// A file of settings, applied before `--uniform` and `--input`: one `name = values` per
    /// line (`#` comments), or a JSON object (`{"mvp": [[1,0,0,0], …], "b3": true}`).
    #[arg(long, value_name = "FILE")]
    values: Option<PathBuf>,
    /// Write the program, uniforms and inputs of this run as a PCAS case file (AGAL programs:
    /// an AGCS case).
    #[arg(long, value_name = "FILE.pcas")]
    save_case: Option<PathBuf>,
}

pub fn run(args: &RunArgs) -> CliResult {
    // AGAL cases, sources and bytecode run as `picajit agal run` does.
    let head = read_file(&args.file)?;
    if crate::agal::is_agal(&args.file, &head) {
        return crate::agal::run_cmd(&crate::agal::RunArgs {
            input: args.file.clone(),
            output: args.output.clone(),
            count: args.vertices,
            seed: args.seed,
            save_case: args.save_case.clone(),
            settings: crate::agal::SourceSettings::default(),
            backend: args.backend,
        });
    }
    let name = args.file.display();
    let (program, loaded) = load_program(&args.file, args.dvle)?;
    let from_name = match &loaded {
        Loaded::Case(_) => args
            .file
            .file_name()
            .and_then(|n| picajit::fuzz::budget_from_name(&n.to_string_lossy())),
        Loaded::Shbin(_) => None,
    };
    let budget = args
        .budget
        .or(from_name)
        .unwrap_or(picajit::interp::DEFAULT_BUDGET);
    let engine = Engine::new(args.backend.engine())
        .map_err(|e| e.to_string())?
        .with_budget(budget);
    let shader = engine.compile(&program);
    let (mut uniforms, mut vertex_inputs, regs) = match &loaded {
        Loaded::Case(case) => (case.uniforms.clone(), case.inputs.clone(), None),
        Loaded::Shbin(shbin) => {
            let dvle = &shbin.dvles[args.dvle];
            let mut rng = fastrand::Rng::with_seed(args.seed);
            let mut uniforms = inputs::random_uniforms(&mut rng);
            dvle.apply_constants(&mut uniforms);
            let mut regs: Vec<usize> = dvle
                .outputs
                .iter()
                .map(|o| usize::from(o.reg) & 15)
                .collect();
            regs.sort_unstable();
            regs.dedup();
            outln!(
                "{name}: DVLE {} (entry {:#05x}), {}, seed {}, backend {} ({})",
                args.dvle,
                dvle.entry_start,
                crate::count(args.vertices, "vertex", "vertices"),
                args.seed,
                engine.backend().name(),
                shader.path()
            );
            (
                uniforms,
                inputs::random_inputs(&mut rng, args.vertices),
                Some(regs),
            )
        }
    };
    let dvle = match &loaded {
        Loaded::Shbin(shbin) => shbin.dvles.get(args.dvle),
        Loaded::Case(_) => None,
    };
    let mut settings = match &args.values {
        Some(path) => values::from_file(path)?,
        None => Vec::new(),
    };
    for (list, flag) in [(&args.uniforms, "--uniform"), (&args.inputs, "--input")] {
        settings.extend(list.iter().map(|text| values::Setting {
            text: text.clone(),
            origin: flag.to_string(),
        }));
    }
    for setting in &settings {
        values::apply(setting, dvle, &mut uniforms, &mut vertex_inputs)?;
    }
    if let Some(path) = &args.save_case {
        let case = Case::from_program(&program, &uniforms, &vertex_inputs);
        std::fs::write(path, case.to_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("case written to {}", path.display());
    }
    if args.output.is_none() {
        print_inputs(&vertex_inputs, dvle);
    }
    if program.kind == ShaderKind::Geometry && args.output.is_none() {
        return run_geometry(
            &shader,
            &uniforms,
            &vertex_inputs,
            &engine,
            &name.to_string(),
        );
    }
    let n = vertex_inputs.len();
    // A budget error is reported through the statuses, which are written in any case.
    let (out, result) = if program.kind == ShaderKind::Geometry {
        // `-o`: PCOU version 2, with each invocation's triangles.
        let mut geo = GeometryOutput::default();
        let result = shader.run_geometry_into(&uniforms, &vertex_inputs, &mut geo);
        let triangles = (0..geo.len())
            .map(|i| geo.primitives_of(i).to_vec())
            .collect();
        let out = CaseOutput {
            outputs: std::mem::take(&mut geo.outputs),
            status: std::mem::take(&mut geo.status),
            triangles: Some(triangles),
        };
        (out, result)
    } else {
        let mut out = CaseOutput {
            outputs: vec![[[0.0; 4]; 16]; n],
            status: vec![VertexStatus::Ended; n],
            triangles: None,
        };
        let result = shader.run(&uniforms, &vertex_inputs, &mut out.outputs, &mut out.status);
        (out, result)
    };
    match (&args.output, &loaded) {
        (Some(path), _) => {
            std::fs::write(path, out.to_bytes()).map_err(|e| format!("{}: {e}", path.display()))?
        }
        (None, _) => {
            let regs = regs
                .filter(|r| !r.is_empty())
                .unwrap_or_else(|| all_written(&out.outputs));
            print_table(&out.outputs, &out.status, &regs);
        }
    }
    if let Err(err) = result {
        eprintln!("picajit: {name}: {err}");
    }
    eprintln!(
        "{} run on {} ({}), step budget {budget}{}",
        crate::count(n, "vertex", "vertices"),
        engine.backend().name(),
        shader.path(),
        if args.budget.is_none() && from_name.is_some() {
            " (from the file name)"
        } else {
            ""
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// The input registers of the run: those the DVLE declares (`.in`), else the non-zero ones.
fn print_inputs(inputs: &[Regs16], dvle: Option<&Dvle>) {
    let mut regs: Vec<(usize, String)> = dvle
        .map(|d| {
            d.uniforms
                .iter()
                .filter_map(|u| {
                    let r = u.registers()?;
                    (r.file == RegisterFile::Input)
                        .then(|| r.indices().map(move |i| (i, format!("v{i} {}", u.name))))
                })
                .flatten()
                .collect()
        })
        .unwrap_or_default();
    if regs.is_empty() {
        regs = all_written(inputs)
            .into_iter()
            .map(|r| (r, format!("v{r}")))
            .collect();
    }
    regs.sort();
    regs.dedup_by_key(|r| r.0);
    if regs.is_empty() {
        outln!("inputs: all zero");
        return;
    }
    outln!("inputs:");
    out!("{:>6}", "vertex");
    for (_, label) in &regs {
        out!(" | {label:^47}");
    }
    outln!();
    for (n, vertex) in inputs.iter().enumerate() {
        out!("{n:>6}");
        for &(r, _) in &regs {
            out!(" |");
            for x in vertex[r] {
                out!(" {x:>11.5}");
            }
        }
        outln!();
    }
    outln!("outputs:");
}

/// A geometry shader: each invocation's status and the triangles it emitted (the output
/// registers of each triangle vertex that any of them wrote).
fn run_geometry(
    shader: &Shader,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    engine: &Engine,
    name: &str,
) -> CliResult {
    let mut geo = GeometryOutput::default();
    let result = shader.run_geometry_into(uniforms, inputs, &mut geo);
    let mut total = 0;
    for i in 0..geo.len() {
        let prims = geo.primitives_of(i);
        total += prims.len();
        let st = match geo.status[i] {
            VertexStatus::Ended => "ended",
            VertexStatus::BudgetExhausted => "budget exhausted",
        };
        outln!(
            "invocation {i}: {st}, {}",
            crate::count(prims.len(), "triangle", "triangles")
        );
        for (t, prim) in prims.iter().enumerate() {
            let regs = all_written(&prim.vertices);
            outln!(
                "  triangle {t} ({} winding)",
                if prim.winding { "inverted" } else { "normal" }
            );
            for vertex in &prim.vertices {
                out!("   ");
                for &r in &regs {
                    out!(" o{r} (");
                    for (k, x) in vertex[r].iter().enumerate() {
                        out!("{}{x}", if k == 0 { "" } else { ", " });
                    }
                    out!(")");
                }
                outln!();
            }
        }
    }
    if let Err(err) = result {
        eprintln!("picajit: {name}: {err}");
    }
    eprintln!(
        "{} run on {} ({}): {} emitted",
        crate::count(geo.len(), "geometry invocation", "geometry invocations"),
        engine.backend().name(),
        shader.path(),
        crate::count(total, "triangle", "triangles")
    );
    Ok(ExitCode::SUCCESS)
}

/// Output registers that are non-zero in any vertex.
fn all_written(outputs: &[Regs16]) -> Vec<usize> {
    (0..16)
        .filter(|&r| {
            outputs
                .iter()
                .any(|o| o[r].iter().any(|x| x.to_bits() != 0))
        })
        .collect()
}

fn print_table(outputs: &[Regs16], status: &[VertexStatus], regs: &[usize]) {
    out!("{:>6} {:>7}", "vertex", "status");
    for r in regs {
        out!(" | {:^47}", format!("o{r}"));
    }
    outln!();
    for (n, (out, st)) in outputs.iter().zip(status).enumerate() {
        let st = match st {
            VertexStatus::Ended => "ended",
            VertexStatus::BudgetExhausted => "budget",
        };
        out!("{n:>6} {st:>7}");
        for &r in regs {
            out!(" |");
            for x in out[r] {
                out!(" {x:>11.5}");
            }
        }
        outln!();
    }
}
