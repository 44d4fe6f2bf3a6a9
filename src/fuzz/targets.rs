//! The bodies of the byte-level fuzz targets (`fuzz/fuzz_targets/`, run by `make fuzz-parsers`),
//! kept here so the regression test (`tests/regress.rs`) replays what they found through the
//! same checks. Each takes any bytes and panics only when an invariant of the module under
//! test is broken:
//!
//! - [`shbin`]: the SHBIN reader never panics; a file it accepts is written back byte for
//!   byte; every DVLE's program loads or fails with an error; the disassembly of a small file
//!   re-assembles to the same code and descriptor words.
//! - [`asm`]: the assembler never panics (several files when the input holds NUL bytes); its
//!   output parses and writes back byte for byte, and its disassembly re-assembles to the same
//!   code and descriptors.
//! - [`pcas`]: the PCAS and PCOU readers never panic, and what they accept writes back byte
//!   for byte (a version 2 vertex case as the same case in version 1), and a PCAS case loads.
//! - [`compile_run`]: a case made from the bytes ([`super::case_from_bytes`]) agrees on every
//!   backend this host has.
//! - [`agal_read`]: the AGAL reader, validator and AGCS/AGOU readers never panic; any bytes
//!   split and join back exactly; the disassembly of any bytes assembles back to them; a
//!   program the validator accepts runs on the interpreter on zero inputs, and an accepted case
//!   is written back byte for byte.
//! - [`agal_asm`]: the AGAL assembler never panics on any text, as vertex or fragment program
//!   and with or without limits; its output's disassembly assembles back to the same bytes.

use crate::agal;
use crate::asm::{self, Source};
use crate::case::{Case, CaseOutput};
use crate::engine::Backend;
use crate::program::ShaderKind;
use crate::shbin::Shbin;

/// Largest code blob whose disassembly round trip is checked (it assembles up to four texts).
const DISASM_WORDS: usize = 512;

/// Disassembles `shbin` and checks that the text re-assembles to the same code and
/// descriptor words.
fn disassembly_round_trip(shbin: &Shbin) {
    if shbin.dvles.is_empty() || shbin.dvlp.code.len() > DISASM_WORDS {
        return;
    }
    let text = asm::disassemble(shbin);
    let back = match asm::assemble(&[Source::new("disassembly", text.as_str())]) {
        Ok((back, _)) => back,
        Err(d) => {
            let msgs: Vec<String> = d.iter().map(|d| d.headline()).collect();
            panic!(
                "the disassembly does not assemble: {}\n{text}",
                msgs.join("; ")
            )
        }
    };
    assert_eq!(back.dvlp.code, shbin.dvlp.code, "code differs:\n{text}");
    let words = |s: &Shbin| s.dvlp.descs.iter().map(|d| d.word).collect::<Vec<u32>>();
    assert_eq!(words(&back), words(shbin), "descriptors differ:\n{text}");
}

/// SHBIN reader target.
pub fn shbin(data: &[u8]) {
    let Ok(shbin) = Shbin::parse(data) else {
        return;
    };
    assert!(
        shbin.to_bytes() == data,
        "an accepted SHBIN is not written back byte for byte"
    );
    for dvle in 0..shbin.dvles.len() {
        let _ = shbin.program(dvle);
    }
    disassembly_round_trip(&shbin);
}

/// Assembler target: the input as text, split into files at NUL bytes.
pub fn asm(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let sources: Vec<Source> = text
        .split('\0')
        .enumerate()
        .map(|(k, t)| Source::new(format!("f{k}.v.pica"), t))
        .collect();
    let Ok((shbin, _)) = asm::assemble(&sources) else {
        return;
    };
    let bytes = shbin.to_bytes();
    let parsed = Shbin::parse(&bytes).unwrap_or_else(|e| panic!("own output does not parse: {e}"));
    assert!(
        parsed.to_bytes() == bytes,
        "own output is not written back byte for byte"
    );
    disassembly_round_trip(&shbin);
}

/// PCAS/PCOU reader target.
pub fn pcas(data: &[u8]) {
    if let Ok(case) = Case::parse(data) {
        let written = case.to_bytes();
        if data.get(4..8) == Some(&[2, 0, 0, 0]) && case.kind == ShaderKind::Vertex {
            // Version 2 of a vertex case is written back as version 1: the same case.
            let again = Case::parse(&written)
                .unwrap_or_else(|e| panic!("a rewritten version 2 PCAS does not parse: {e}"));
            assert!(
                again.to_bytes() == written && written.get(44..) == data.get(48..),
                "a version 2 vertex PCAS is not written back as the same version 1 case"
            );
        } else {
            assert!(written == data, "an accepted PCAS is not written back");
        }
        if let Err(e) = case.program() {
            panic!("an accepted PCAS does not load: {e}");
        }
    }
    if let Ok(out) = CaseOutput::parse(data) {
        assert!(
            out.to_bytes() == data,
            "an accepted PCOU is not written back"
        );
    }
}

/// Compile-and-run target: every backend of this host against the interpreter.
pub fn compile_run(data: &[u8]) {
    let case = super::case_from_bytes(data);
    if let Err(f) = super::check(&case, &Backend::runnable()) {
        panic!("{}", super::report::report(&case, &f));
    }
}

/// The disassembly of `bytes` assembles back to them.
fn agal_round_trip(bytes: &[u8]) {
    let text = agal::disasm::disassemble(bytes);
    match agal::asm::assemble("disassembly", &text, &agal::asm::Options::default()) {
        Ok(a) => assert!(
            a.bytes == bytes,
            "the disassembly assembles to other bytes:\n{text}"
        ),
        Err(d) => {
            let msgs: Vec<String> = d.iter().map(|d| d.headline()).collect();
            panic!(
                "the disassembly does not assemble: {}\n{text}",
                msgs.join("; ")
            )
        }
    }
}

/// AGAL reader target: bytecode, validator, interpreter and AGCS/AGOU.
pub fn agal_read(data: &[u8]) {
    let code = agal::Bytecode::split(data);
    assert!(code.to_bytes() == data, "split/join is not exact");
    if data.len() <= 24 * 512 {
        agal_round_trip(data);
    }
    if let Ok(p) = agal::validate(data, &agal::validate::Options::default()) {
        let textures = agal::interp::NoTextures;
        match p.kind {
            agal::ShaderKind::Vertex => {
                let r = agal::interp::run_vertices(&p, &[], &textures, &[Default::default()]);
                assert!(p.interface.samplers.is_empty() == r.is_ok(), "{r:?}");
            }
            agal::ShaderKind::Fragment => {
                let r = agal::interp::run_quads(&p, &[], &textures, &[Default::default()]);
                assert!(p.interface.samplers.is_empty() == r.is_ok(), "{r:?}");
            }
        }
    }
    if let Ok(case) = agal::case::AgalCase::parse(data) {
        assert!(
            case.to_bytes() == data,
            "an accepted AGCS is not written back"
        );
        let _ = case.run();
    }
    if let Ok(out) = agal::case::Outputs::parse(data) {
        assert!(
            out.to_bytes() == data,
            "an accepted AGOU is not written back"
        );
    }
}

/// AGAL assembler target: the input as text, assembled every way.
pub fn agal_asm(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for kind in [agal::ShaderKind::Vertex, agal::ShaderKind::Fragment] {
        for ignore_limits in [false, true] {
            let options = agal::asm::Options {
                kind: Some(kind),
                version: None,
                ignore_limits,
            };
            if let Ok(a) = agal::asm::assemble("fuzz.agal", &text, &options) {
                agal_round_trip(&a.bytes);
            }
        }
    }
}

/// The target of a name (`shbin`, `asm`, `pcas`, `compile_run`, `agal_read`, `agal_asm`).
pub fn by_name(name: &str) -> Option<fn(&[u8])> {
    match name {
        "shbin" => Some(shbin),
        "asm" => Some(asm),
        "pcas" => Some(pcas),
        "compile_run" => Some(compile_run),
        "agal_read" => Some(agal_read),
        "agal_asm" => Some(agal_asm),
        _ => None,
    }
}
