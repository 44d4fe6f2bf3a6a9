//! The `picajit` command: run case files and SHBIN programs, describe SHBIN files, and fuzz the
//! engines. Each subcommand lives in its own module; this file only parses the command line.

/// `println!` that ends the program quietly when stdout is closed (`picajit info … | head`).
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($t)*).is_err() {
            std::process::exit(0);
        }
    }};
}

/// `print!` that ends the program quietly when stdout is closed.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if write!(std::io::stdout(), $($t)*).is_err() {
            std::process::exit(0);
        }
    }};
}

mod agal;
mod asm;
mod disasm;
mod dump;
mod dump_draw;
mod fuzz;
mod fuzz_agal;
mod info;
mod inputs;
mod run;
mod values;
mod values_json;
mod worker;

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
    /// x86-64 JIT, SSE4.1 tier (4 vertices per batch).
    #[value(name = "x64-sse41")]
    X64Sse41,
    /// x86-64 JIT, AVX2 tier (8 vertices per batch).
    #[value(name = "x64-avx2")]
    X64Avx2,
    /// x86-64 JIT, AVX-512 tier (16 vertices per batch; F, VL, DQ and BW). On a CPU without
    /// it only a test build runs it, in the x86-64 emulator (exact but slow).
    #[value(name = "x64-avx512")]
    X64Avx512,
    /// AArch64 JIT, NEON (4 vertices per batch); on other hosts through qemu-user
    /// (qemu-aarch64-static), exact but slow.
    Aarch64,
    /// The best JIT this host has.
    Auto,
}

impl Backend {
    /// The library's backend.
    pub fn engine(self) -> picajit::engine::Backend {
        use picajit::engine::Backend as B;
        match self {
            Backend::Interp => B::Interp,
            Backend::X64Sse41 => B::X64Sse41,
            Backend::X64Avx2 => B::X64Avx2,
            Backend::X64Avx512 => B::X64Avx512,
            Backend::Aarch64 => B::Aarch64,
            Backend::Auto => B::Auto,
        }
    }
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
    /// Show how a program compiles: execution path, IR, native code.
    Dump(dump::DumpArgs),
    /// Run random programs on the interpreter and every backend and compare them bit for bit;
    /// crashes, hangs and mismatches are minimized, saved as PCAS and reported.
    Fuzz(fuzz::FuzzArgs),
    /// The worker process of `picajit fuzz` (cases over stdin, answers over stdout).
    #[command(name = "fuzz-worker", hide = true)]
    FuzzWorker(worker::WorkerArgs),
    /// Assemble picasso-language sources into a SHBIN (picasso's command line).
    Asm(asm::AsmArgs),
    /// Disassemble a SHBIN into text that re-assembles to the same code and descriptors.
    Disasm(disasm::DisasmArgs),
    /// AGAL (Adobe Stage3D) tools: asm, disasm, info, run.
    #[command(subcommand)]
    Agal(agal::AgalCommand),
}

fn main() -> ExitCode {
    // `-Werror` (the C compilers' spelling) is `asm --strict`.
    let cli = Cli::parse_from(std::env::args_os().map(|a| {
        if a == "-Werror" {
            "--strict".into()
        } else {
            a
        }
    }));
    let result = match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Info { file } => info::info(&file),
        Command::Fuzz(args) => fuzz::fuzz(&args),
        Command::FuzzWorker(args) => worker::serve(&args),
        Command::Dump(args) => dump::dump(&args),
        Command::Asm(args) => asm::asm(&args),
        Command::Disasm(args) => disasm::disasm(&args),
        Command::Agal(command) => agal::agal(&command),
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

/// What a program file holds: a PCAS case (program, uniforms, inputs) or a SHBIN.
pub enum Loaded {
    Case(Box<picajit::case::Case>),
    Shbin(picajit::shbin::Shbin),
}

/// Reads a PCAS or SHBIN file (told apart by magic).
pub fn load(path: &std::path::Path) -> Result<Loaded, String> {
    let bytes = read_file(path)?;
    let name = path.display();
    if bytes.starts_with(b"PCAS") {
        return picajit::case::Case::parse(&bytes)
            .map(|c| Loaded::Case(Box::new(c)))
            .map_err(|e| format!("{name}: {e}"));
    }
    if bytes.starts_with(b"DVLB") {
        return picajit::shbin::Shbin::parse(&bytes)
            .map(Loaded::Shbin)
            .map_err(|e| format!("{name}: {e}"));
    }
    Err(format!(
        "{name}: neither a PCAS case nor a SHBIN file (it starts with \"{}\"; a SHBIN starts \
         with \"DVLB\", a case with \"PCAS\")",
        bytes[..bytes.len().min(4)].escape_ascii()
    ))
}

/// "1 vertex", "2 vertices".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The program of a PCAS file, or of DVLE `dvle` of a SHBIN file, and the file's contents.
pub fn load_program(
    path: &std::path::Path,
    dvle: usize,
) -> Result<(picajit::Program, Loaded), String> {
    let loaded = load(path)?;
    let name = path.display();
    let program = match &loaded {
        Loaded::Case(case) => case.program().map_err(|e| format!("{name}: {e}"))?,
        Loaded::Shbin(shbin) => {
            if dvle >= shbin.dvles.len() {
                return Err(format!(
                    "{name}: no DVLE {dvle} (the file has {})",
                    shbin.dvles.len()
                ));
            }
            shbin.program(dvle).map_err(|e| format!("{name}: {e}"))?
        }
    };
    Ok((program, loaded))
}
