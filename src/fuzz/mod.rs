//! Differential fuzzing: random programs from the opcode table ([`gen`]), vertex shaders and
//! geometry shaders ([`generate_geometry`]), run on the reference interpreter and every backend
//! and compared bit for bit — outputs, statuses and a geometry shader's triangles
//! ([`check()`]) —, failing cases reduced ([`minimize()`]) and described ([`report`]).
//! `picajit fuzz` drives it; the regression corpus (`tests/regress/`) and the `fuzz/` targets
//! reuse it.
//!
//! [`agal`] does the same for AGAL programs (`picajit fuzz --agal`).
//!
//! A case is a PCAS [`Case`](crate::case::Case) plus the step budget it runs with (PCAS has no
//! budget field; saved cases carry it in their file name, see [`budget_from_name`]).

pub mod agal;
pub mod check;
pub mod gen;
pub mod minimize;
pub mod report;
pub mod targets;
pub mod values;

pub use check::{check, Failure, FailureKind, Passed};
pub use gen::{generate, generate_geometry, Config, FuzzCase, Shape};
pub use minimize::minimize;

use crate::case::Case;
use crate::program::Regs16;

/// The file name a saved case gets: `<stem>-b<budget>.pcas`.
pub fn file_name(stem: &str, budget: u32) -> String {
    format!("{stem}-b{budget}.pcas")
}

/// The budget a saved case's file name carries (`…-b<budget>.pcas`), if any.
pub fn budget_from_name(name: &str) -> Option<u32> {
    let stem = name.strip_suffix(".pcas")?;
    let (_, digits) = stem.rsplit_once("-b")?;
    digits.parse().ok()
}

/// A case made from arbitrary bytes, for byte-level fuzzers: the first bytes pick the sizes,
/// entry, budget and int/bool uniforms, whether an END follows the code and whether it runs as
/// a geometry shader (one input in four: the two bits 0x30 of the first byte), then come code
/// words, descriptors, float uniforms and input components (missing bytes read as zero). Every
/// input gives a loadable case.
pub fn case_from_bytes(bytes: &[u8]) -> FuzzCase {
    let mut at = 0usize;
    let mut byte = || {
        let b = bytes.get(at).copied().unwrap_or(0);
        at += 1;
        b
    };
    let shape = byte();
    let code_len = usize::from(byte() % 64) + 1;
    let desc_len = usize::from(byte() % 33);
    let entry = u32::from(byte()) % code_len as u32;
    let vertices = usize::from(byte() % 12) + 1;
    let budget = u32::from(byte()) * 8;
    let mut uniforms = crate::Uniforms {
        b: u16::from(byte()) | u16::from(byte()) << 8,
        ..crate::Uniforms::default()
    };
    for i in uniforms.i.iter_mut() {
        // Small counts keep runs short; the other fields are free.
        *i = [byte() % 8, byte(), byte() % 8, byte()];
    }
    let mut word = || u32::from_le_bytes([byte(), byte(), byte(), byte()]);
    let mut code: Vec<u32> = (0..code_len).map(|_| word()).collect();
    if shape & 7 != 1 {
        // Usually an END after the code, so most runs do not walk zeroed memory to slot 4095
        // (which makes lowering, and so each run of the target, slow).
        code.push(u32::from(crate::isa::Opcode::End.values()[0]) << 26);
    }
    let descs: Vec<u32> = (0..desc_len).map(|_| word()).collect();
    // Float uniforms and inputs: the remaining words, repeated if the input is short.
    let rest: Vec<u32> = (0..(96 * 4 + vertices * 64)).map(|_| word()).collect();
    for (k, c) in uniforms.f.iter_mut().flatten().enumerate() {
        *c = f32::from_bits(rest[k]);
    }
    let inputs: Vec<Regs16> = (0..vertices)
        .map(|v| {
            std::array::from_fn(|r| {
                std::array::from_fn(|c| f32::from_bits(rest[96 * 4 + v * 64 + r * 4 + c]))
            })
        })
        .collect();
    FuzzCase {
        case: Case {
            code,
            descs,
            entry,
            uniforms,
            inputs,
            kind: if shape & 0x30 == 0x30 {
                crate::program::ShaderKind::Geometry
            } else {
                crate::program::ShaderKind::Vertex
            },
        },
        budget,
        shape: Shape::Hostile,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_in_file_names() {
        assert_eq!(budget_from_name(&file_name("seed-12", 37)), Some(37));
        assert_eq!(budget_from_name("if-conversion-b2048.pcas"), Some(2048));
        assert_eq!(budget_from_name("plain.pcas"), None);
        assert_eq!(budget_from_name("x-bad.pcas"), None);
    }

    #[test]
    fn any_bytes_make_a_loadable_case() {
        let mut rng = fastrand::Rng::with_seed(3);
        for len in [0usize, 1, 7, 100, 3000] {
            let bytes: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
            let c = case_from_bytes(&bytes);
            assert!(c.case.program().is_ok());
            assert!(!c.case.inputs.is_empty());
            assert!(Case::parse(&c.case.to_bytes()).is_ok());
        }
    }
}
