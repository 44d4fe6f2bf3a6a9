//! The failure report: the program as assembly (the assembler's disassembler; a geometry
//! case's as a `.gsh` unit), the differences lane by lane (a geometry shader's triangles
//! too), the IR and the native code of the failing backend.

use std::fmt::Write;

use crate::case::Case;
use crate::engine::{Backend, Engine};
use crate::program::ShaderKind;
use crate::shbin::{Dvle, Dvlp, OpDescEntry, Shbin};

use super::check::{describe, Diff, Failure, FailureKind};
use super::FuzzCase;

/// A SHBIN holding the case's program: one DVLE of the case's kind whose entry is the case's.
pub fn shbin_of(case: &Case) -> Shbin {
    let mut dvle = Dvle::new(case.kind);
    dvle.entry_start = case.entry;
    dvle.entry_end = case.code.len() as u32;
    Shbin {
        dvlp: Dvlp {
            version: 0,
            code: case.code.clone(),
            descs: case
                .descs
                .iter()
                .map(|&word| OpDescEntry { word, extra: 0 })
                .collect(),
            reserved: [0; 3],
        },
        dvles: vec![dvle],
        layout: None,
    }
}

/// The program as assembly text that re-assembles to the same words.
pub fn disassembly(case: &Case) -> String {
    crate::asm::disassemble(&shbin_of(case))
}

/// The differences of a failure, one line each, with the SIMD lane of the vertex.
pub fn differences(failure: &Failure, lanes: usize) -> String {
    let mut out = String::new();
    match &failure.kind {
        FailureKind::Panic(msg) => {
            let _ = writeln!(out, "panic: {msg}");
        }
        FailureKind::Mismatch(diffs) => {
            for d in diffs {
                let lane = d.vertex % lanes.max(1);
                let _ = writeln!(out, "  lane {lane:>2}  {}", describe(d));
            }
            let statuses = diffs
                .iter()
                .filter(|d| matches!(d.what, Diff::Status { .. }))
                .count();
            let _ = writeln!(
                out,
                "  ({} differences shown, {statuses} of them statuses)",
                diffs.len()
            );
        }
    }
    out
}

/// The IR and native code of `case` on `backend`, as far as it compiles natively.
pub fn compiled(case: &FuzzCase, backend: Backend) -> String {
    let mut out = String::new();
    let Ok(program) = case.case.program() else {
        return "the case does not load\n".to_string();
    };
    let engine = match Engine::new(backend) {
        Ok(e) => e.with_budget(case.budget).with_background_compile(false),
        Err(e) => return format!("{e}\n"),
    };
    let shader = engine.compile(&program);
    let _ = writeln!(out, "path on {}: {}", backend.name(), shader.path());
    if let Some(ir) = shader.ir() {
        let _ = writeln!(out, "\n--- IR ---\n{ir}");
    }
    if let Some(code) = shader.machine_code() {
        let _ = writeln!(
            out,
            "--- native code (AoS kernel, {} bytes) ---\n{}",
            code.code_len(),
            code.disassemble()
        );
    }
    out
}

/// The whole report.
pub fn report(case: &FuzzCase, failure: &Failure) -> String {
    let lanes = match failure.backend {
        Backend::X64Sse41 | Backend::Aarch64 => 4,
        Backend::X64Avx2 => 8,
        Backend::X64Avx512 => 16,
        Backend::Interp | Backend::Auto => 1,
    };
    let mut out = String::new();
    let _ = writeln!(out, "failure: {}", failure.summary());
    let _ = writeln!(
        out,
        "case: {} shader, {} words, {} descriptors, entry {:#05x}, {} vertices, budget {}",
        match case.case.kind {
            ShaderKind::Vertex => "vertex",
            ShaderKind::Geometry => "geometry",
        },
        case.case.code.len(),
        case.case.descs.len(),
        case.case.entry,
        case.case.inputs.len(),
        case.budget,
    );
    let _ = writeln!(
        out,
        "\n--- differences (interp vs {}) ---",
        failure.backend.name()
    );
    out.push_str(&differences(failure, lanes));
    let _ = writeln!(out, "\n--- program ---\n{}", disassembly(&case.case));
    out.push_str(&compiled(case, failure.backend));
    out
}
