//! Assembler and disassembler tests: hand-derived encodings per directive and operand rule
//! (`encodings`), every diagnostic picasso gives and the ones picajit adds (`diagnostics`),
//! picasso 2.7.1's bytes for the spellings it reads differently (`picasso_compat`), round trips
//! through the disassembler (`roundtrip`), and parser robustness on random input (`fuzz`).

mod diagnostics;
mod encodings;
mod fuzz;
mod picasso_compat;
mod roundtrip;

use super::{assemble, assemble_with, Diagnostic, Options, Source};
use crate::shbin::Shbin;

/// Assembles one source named `t.pica`, panicking with the diagnostics on failure.
pub(super) fn asm(text: &str) -> Shbin {
    match assemble(&[Source::new("t.pica", text)]) {
        Ok((shbin, _)) => shbin,
        Err(d) => panic!("assembly failed:\n{}", render(&d)),
    }
}

/// Assembles several sources.
pub(super) fn asm_files(files: &[(&str, &str)]) -> Shbin {
    let sources: Vec<Source> = files.iter().map(|(n, t)| Source::new(*n, *t)).collect();
    match assemble(&sources) {
        Ok((shbin, _)) => shbin,
        Err(d) => panic!("assembly failed:\n{}", render(&d)),
    }
}

/// The diagnostics of a source that must fail under `--strict` (which also refuses what
/// picasso reads differently from the text; `picasso_compat` checks the default for those).
pub(super) fn errors(text: &str) -> Vec<Diagnostic> {
    let strict = Options {
        strict: true,
        ..Options::default()
    };
    match assemble_with(&[Source::new("t.pica", text)], &strict).map(|a| a.shbin) {
        Ok(_) => panic!("assembly unexpectedly succeeded:\n{text}"),
        Err(d) => d.into_iter().filter(Diagnostic::is_error).collect(),
    }
}

/// The warnings of a source that must succeed (with padding NOPs on or off).
pub(super) fn warnings(text: &str, auto_nop: bool) -> Vec<Diagnostic> {
    match assemble_with(
        &[Source::new("t.pica", text)],
        &Options {
            auto_nop,
            ..Options::default()
        },
    ) {
        Ok(a) => a.warnings,
        Err(d) => panic!("assembly failed:\n{}", render(&d)),
    }
}

pub(super) fn render(d: &[Diagnostic]) -> String {
    d.iter().map(|d| format!("{d}\n")).collect()
}

/// Code words of an assembled source.
pub(super) fn words(text: &str) -> Vec<u32> {
    asm(text).dvlp.code
}

/// Descriptor words of an assembled source.
pub(super) fn descs(s: &Shbin) -> Vec<u32> {
    s.dvlp.descs.iter().map(|d| d.word).collect()
}
