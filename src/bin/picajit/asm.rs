//! `picajit asm`: picasso's command line — assemble source files (and `.shlist` lists of them)
//! into one SHBIN, optionally with the C header of uniform locations.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{ArgAction, Args};
use picajit::asm::{assemble_with, Options, Source};

use crate::CliResult;

#[derive(Args)]
#[command(disable_help_flag = true)]
pub struct AsmArgs {
    /// Source files, assembled in order (one DVLE each unless `.nodvle`); a `.shlist` file
    /// stands for the files it lists (blank-separated, relative to the list).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The SHBIN file to write.
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    /// Also write a C header of uniform locations.
    #[arg(short = 'h', long = "header")]
    header: Option<PathBuf>,
    /// Do not insert padding NOPs; warn where one is needed instead.
    #[arg(short = 'n', long = "no-nop")]
    no_nop: bool,
    /// Refuse text that picasso encodes as something other than what it says (by default it
    /// assembles to picasso's bytes with a warning). `-Werror` is an alias.
    #[arg(long)]
    strict: bool,
    /// Print help.
    #[arg(long, action = ArgAction::Help)]
    help: Option<bool>,
}

/// The source files named on the command line, with `.shlist` files expanded.
fn sources(inputs: &[PathBuf]) -> Result<Vec<Source>, String> {
    let mut out = Vec::new();
    for path in inputs {
        if path.extension().is_some_and(|e| e == "shlist") {
            let list = read_text(path)?;
            let dir = path.parent().unwrap_or(Path::new(""));
            for name in list.split_whitespace() {
                let file = dir.join(name);
                out.push(Source::new(file.display().to_string(), read_text(&file)?));
            }
        } else {
            out.push(Source::new(path.display().to_string(), read_text(path)?));
        }
    }
    Ok(out)
}

fn read_text(path: &Path) -> Result<String, String> {
    let bytes = crate::read_file(path)?;
    let what = if bytes.starts_with(b"DVLB") {
        Some("a SHBIN file (it starts with \"DVLB\"); `picajit disasm` turns it into source")
    } else if bytes.starts_with(b"PCAS") || bytes.starts_with(b"PCOU") {
        Some("a case file; `picajit disasm` shows a PCAS case's program as source")
    } else if looks_binary(&bytes) {
        Some("a binary file (it holds NUL bytes)")
    } else {
        None
    };
    if let Some(what) = what {
        return Err(format!("{}: not assembly source: {what}", path.display()));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A file with a NUL byte that text before it does not explain: control characters or bytes
/// that are not UTF-8 before the first NUL. (Text followed by NUL bytes is source: picasso
/// reads it up to the first NUL, and the assembler warns.)
fn looks_binary(bytes: &[u8]) -> bool {
    let Some(nul) = bytes.iter().position(|&b| b == 0) else {
        return false;
    };
    let before = &bytes[..nul];
    std::str::from_utf8(before).is_err()
        || before
            .iter()
            .any(|&b| (b < 0x20 && !b"\t\n\r\x0b\x0c".contains(&b)) || b == 0x7f)
}

pub fn asm(args: &AsmArgs) -> CliResult {
    let sources = sources(&args.inputs)?;
    let options = Options {
        auto_nop: !args.no_nop,
        strict: args.strict,
    };
    match assemble_with(&sources, &options) {
        Ok(assembly) => {
            for w in &assembly.warnings {
                eprintln!("{w}");
            }
            std::fs::write(&args.out, assembly.shbin.to_bytes())
                .map_err(|e| format!("{}: {e}", args.out.display()))?;
            if let Some(header) = &args.header {
                std::fs::write(header, assembly.header)
                    .map_err(|e| format!("{}: {e}", header.display()))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(diagnostics) => {
            for d in &diagnostics {
                eprintln!("{d}");
            }
            let errors = diagnostics.iter().filter(|d| d.is_error()).count();
            eprintln!("picajit asm: {errors} error(s); nothing written");
            Ok(ExitCode::FAILURE)
        }
    }
}
