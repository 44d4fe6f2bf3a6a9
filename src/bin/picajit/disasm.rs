//! `picajit disasm`: a SHBIN file as assembly text that re-assembles to the same code words and
//! operand descriptors (the whole file, or one DVLE with its tables). A PCAS case's program is
//! shown as a SHBIN with one vertex DVLE at the case's entry.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use picajit::asm::{disassemble, disassemble_dvle};
use picajit::shbin::Shbin;

use crate::{read_file, CliResult};

#[derive(Args)]
pub struct DisasmArgs {
    /// The SHBIN file (or a PCAS case).
    file: PathBuf,
    /// Only this DVLE's tables (the code is always all of it).
    #[arg(long)]
    dvle: Option<usize>,
    /// Write the text here instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn disasm(args: &DisasmArgs) -> CliResult {
    let bytes = read_file(&args.file)?;
    let shbin = if bytes.starts_with(b"PCAS") {
        let case = picajit::case::Case::parse(&bytes)
            .map_err(|e| format!("{}: {e}", args.file.display()))?;
        picajit::fuzz::report::shbin_of(&case)
    } else {
        Shbin::parse(&bytes).map_err(|e| format!("{}: {e}", args.file.display()))?
    };
    let text = match args.dvle {
        Some(n) if n >= shbin.dvles.len() => {
            return Err(format!(
                "{}: no DVLE {n} (the file has {})",
                args.file.display(),
                shbin.dvles.len()
            ))
        }
        Some(n) => disassemble_dvle(&shbin, n),
        None => disassemble(&shbin),
    };
    match &args.output {
        Some(path) => std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?,
        None => {
            // A closed pipe (`picajit disasm f | head`) is not an error.
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                Err(e) => return Err(format!("standard output: {e}")),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
