//! `picajit run`: a PCAS case (writing PCOU with `-o`), or a DVLE of a SHBIN file on seeded
//! random uniforms and inputs, printed as a table of the outputs the DVLE declares.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use picajit::case::{Case, CaseOutput};
use picajit::interp::Interpreter;
use picajit::program::{Regs16, VertexStatus};
use picajit::shbin::Shbin;

use crate::{inputs, read_file, Backend, CliResult};

#[derive(Args)]
pub struct RunArgs {
    /// A PCAS case file or a SHBIN file (told apart by their magic).
    file: PathBuf,
    /// Where to write the PCOU outputs of a case (default: print a table).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Engine to run on.
    #[arg(long, value_enum, default_value = "interp")]
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
    /// Step budget (backward transfers per vertex).
    #[arg(long, default_value_t = picajit::interp::DEFAULT_BUDGET)]
    budget: u32,
}

pub fn run(args: &RunArgs) -> CliResult {
    let bytes = read_file(&args.file)?;
    let name = args.file.display();
    let Backend::Interp = args.backend;
    if bytes.starts_with(b"PCAS") {
        let case = Case::parse(&bytes).map_err(|e| format!("{name}: {e}"))?;
        let program = case.program().map_err(|e| format!("{name}: {e}"))?;
        let interp = Interpreter::new(&program).with_budget(args.budget);
        let n = case.inputs.len();
        let mut out = CaseOutput {
            outputs: vec![[[0.0; 4]; 16]; n],
            status: vec![VertexStatus::Ended; n],
        };
        // A budget error is reported through the statuses, which are written in any case.
        let result = interp.run(
            &case.uniforms,
            &case.inputs,
            &mut out.outputs,
            &mut out.status,
        );
        match &args.output {
            Some(path) => std::fs::write(path, out.to_bytes())
                .map_err(|e| format!("{}: {e}", path.display()))?,
            None => print_table(&out.outputs, &out.status, &all_written(&out.outputs)),
        }
        if let Err(err) = result {
            eprintln!("picajit: {name}: {err}");
        }
        eprintln!("{n} vertices run on {:?}", args.backend);
        return Ok(ExitCode::SUCCESS);
    }
    if bytes.starts_with(b"DVLB") {
        let shbin = Shbin::parse(&bytes).map_err(|e| format!("{name}: {e}"))?;
        let dvle = shbin.dvles.get(args.dvle).ok_or_else(|| {
            format!(
                "{name}: no DVLE {} (the file has {})",
                args.dvle,
                shbin.dvles.len()
            )
        })?;
        let program = shbin
            .program(args.dvle)
            .map_err(|e| format!("{name}: {e}"))?;
        let mut rng = fastrand::Rng::with_seed(args.seed);
        let mut uniforms = inputs::random_uniforms(&mut rng);
        dvle.apply_constants(&mut uniforms);
        let vertex_inputs = inputs::random_inputs(&mut rng, args.vertices);
        let interp = Interpreter::new(&program).with_budget(args.budget);
        let mut outputs = vec![[[0.0; 4]; 16]; args.vertices];
        let mut status = vec![VertexStatus::Ended; args.vertices];
        let result = interp.run(&uniforms, &vertex_inputs, &mut outputs, &mut status);
        let mut regs: Vec<usize> = dvle
            .outputs
            .iter()
            .map(|o| usize::from(o.reg) & 15)
            .collect();
        regs.sort_unstable();
        regs.dedup();
        if regs.is_empty() {
            regs = all_written(&outputs);
        }
        println!(
            "{name}: DVLE {} (entry {:#05x}), {} vertices, seed {}, backend {:?}",
            args.dvle, dvle.entry_start, args.vertices, args.seed, args.backend
        );
        print_table(&outputs, &status, &regs);
        if let Err(err) = result {
            eprintln!("picajit: {name}: {err}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    Err(format!(
        "{name}: neither a PCAS case nor a SHBIN file (magic {:?})",
        &bytes[..bytes.len().min(4)]
    ))
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
    print!("{:>6} {:>7}", "vertex", "status");
    for r in regs {
        print!(" | {:^47}", format!("o{r}"));
    }
    println!();
    for (n, (out, st)) in outputs.iter().zip(status).enumerate() {
        let st = match st {
            VertexStatus::Ended => "ended",
            VertexStatus::BudgetExhausted => "budget",
        };
        print!("{n:>6} {st:>7}");
        for &r in regs {
            print!(" |");
            for x in out[r] {
                print!(" {x:>11.5}");
            }
        }
        println!();
    }
}
