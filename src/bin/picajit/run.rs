//! `picajit run`: a PCAS case (writing PCOU with `-o`), or a DVLE of a SHBIN file on seeded
//! random uniforms and inputs, printed as a table of the outputs the DVLE declares; on any
//! backend.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use picajit::case::CaseOutput;
use picajit::engine::Engine;
use picajit::program::{Regs16, VertexStatus};

use crate::{inputs, load_program, Backend, CliResult, Loaded};

#[derive(Args)]
pub struct RunArgs {
    /// A PCAS case file or a SHBIN file (told apart by their magic).
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
}

pub fn run(args: &RunArgs) -> CliResult {
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
    let (uniforms, vertex_inputs, regs) = match &loaded {
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
    let n = vertex_inputs.len();
    let mut out = CaseOutput {
        outputs: vec![[[0.0; 4]; 16]; n],
        status: vec![VertexStatus::Ended; n],
    };
    // A budget error is reported through the statuses, which are written in any case.
    let result = shader.run(&uniforms, &vertex_inputs, &mut out.outputs, &mut out.status);
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
