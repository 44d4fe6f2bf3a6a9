//! `picajit dump`: how a program compiles on a backend — the execution path (native or the
//! interpreter fallback, with the reason), what the frontend made of per-vertex branches, the
//! IR (`--ir`) and the native code (`--asm`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use picajit::engine::Engine;

use crate::{load_program, Backend, CliResult};

#[derive(Args)]
pub struct DumpArgs {
    /// A SHBIN or PCAS file.
    file: PathBuf,
    /// SHBIN only: which DVLE.
    #[arg(long, default_value_t = 0)]
    dvle: usize,
    /// Print the IR.
    #[arg(long)]
    ir: bool,
    /// Print the native code.
    #[arg(long)]
    asm: bool,
    /// Backend to compile for.
    #[arg(long, value_enum, default_value = "auto")]
    backend: Backend,
}

pub fn dump(args: &DumpArgs) -> CliResult {
    let (program, _) = load_program(&args.file, args.dvle)?;
    let engine = Engine::new(args.backend.engine()).map_err(|e| e.to_string())?;
    let shader = engine.compile(&program);
    outln!("backend: {}", engine.backend().name());
    outln!("path: {}", shader.path());
    if let Ok(lowered) = picajit::frontend::lower(&program) {
        let st = lowered.stats;
        outln!(
            "frontend: {} control states; per-vertex branches: {} if-converted, {} masked \
             forks, {} taken only when all lanes agree",
            st.states,
            st.if_converted,
            st.masked_forks,
            st.agree_branches
        );
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
    if let Some(code) = shader.machine_code() {
        outln!(
            "native: {} bytes of code, {} instructions, {} spill slots, {} lanes",
            code.code_len(),
            code.instruction_count(),
            code.spill_slots(),
            code.lanes()
        );
        if args.asm {
            out!("{}", code.disassemble());
        }
    } else if args.asm {
        outln!("(no native code: the shader runs on the interpreter)");
    }
    Ok(ExitCode::SUCCESS)
}
