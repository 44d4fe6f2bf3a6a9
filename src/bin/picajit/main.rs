//! The `picajit` command: run case files and SHBIN programs, describe SHBIN files, and fuzz the
//! engines. Each subcommand lives in its own module; this file only parses the command line.

mod asm;
mod disasm;
mod fuzz;
mod info;
mod inputs;
mod run;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "picajit",
    version,
    about = "PICA200 shader JIT: run, inspect and fuzz shaders"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The engine that executes a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The reference interpreter (the executable spec).
    Interp,
}

#[derive(Subcommand)]
enum Command {
    /// Run a PCAS case file, or a DVLE of a SHBIN file on seeded random uniforms and inputs.
    Run(run::RunArgs),
    /// Describe a SHBIN file: DVLEs, entry points, tables and a plain listing of the code.
    Info {
        /// The SHBIN file.
        file: PathBuf,
    },
    /// Run random programs on random inputs and check every engine for crashes, hangs and
    /// disagreement (today: the interpreter's single, batch and parallel paths).
    Fuzz(fuzz::FuzzArgs),
    /// Assemble picasso-language sources into a SHBIN (picasso's command line).
    Asm(asm::AsmArgs),
    /// Disassemble a SHBIN into text that re-assembles to the same code and descriptors.
    Disasm(disasm::DisasmArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Info { file } => info::info(&file),
        Command::Fuzz(args) => fuzz::fuzz(&args),
        Command::Asm(args) => asm::asm(&args),
        Command::Disasm(args) => disasm::disasm(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("picajit: error: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Errors of the command-line tools: a message that already names the file and what is wrong.
pub type CliResult = Result<ExitCode, String>;

/// Reads a whole file, naming it in the error.
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}
