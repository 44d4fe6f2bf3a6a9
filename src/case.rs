//! PCAS/PCOU case files, a neutral format for reproducing runs (fuzz failures are saved as
//! PCAS; `picajit run` and `jit-bench` read it; any other PICA200 implementation can be driven
//! by the same files): a [`Case`] is a program, its uniforms and N input vertices, run as a
//! vertex or a geometry shader; a [`CaseOutput`] is the output registers and end status of
//! each invocation, and for a geometry case the triangles each one emitted. Everything is
//! little-endian, and a file must be exactly as long as its header says.
//!
//! Version 1 is the shared format (`spec/case-files.md`) and covers vertex shaders; version 2
//! extends it for geometry shaders (this module is where version 2 is specified). Vertex cases
//! and their outputs are still written as version 1, geometry cases as version 2; both
//! versions are read.
//!
//! # PCAS version 1
//!
//! | offset | type | field |
//! |---|---|---|
//! | 0 | `[u8; 4]` | magic `PCAS` |
//! | 4 | u32 | version = 1 |
//! | 8 | u32 | `code_len`: program words (1..=4096) |
//! | 12 | u32 | `desc_len`: operand-descriptor words (0..=128) |
//! | 16 | u32 | `entry`, in words (< 4096) |
//! | 20 | u32 | `num_vertices` |
//! | 24 | u32 | bool uniforms: bit i = b*i* (bits 16..31 zero) |
//! | 28 | `[u8; 16]` | int uniforms i0..i3, x y z w each |
//! | 44 | `[u32; code_len]` | program words, loaded at address 0 |
//! | … | `[u32; desc_len]` | descriptors, loaded at index 0 |
//! | … | `[f32; 96 × 4]` | float uniforms c0..c95 (x y z w) |
//! | … | `[f32; num_vertices × 16 × 4]` | inputs, vertex by vertex (v0..v15 of vertex 0, …) |
//!
//! A case runs as a vertex shader under the rules of [`crate::interp`]: code past `code_len`
//! and descriptors past `desc_len` are 0, every vertex starts from the fixed start state, the
//! default step budget (`picajit fuzz` carries another in the file name).
//!
//! # PCAS version 2
//!
//! Version 1 with version = 2 and one more header word: u32 `shader_kind` at offset 44
//! (0 = vertex shader, 1 = geometry shader); the program words and everything after them
//! follow at offset 48, in the layout of version 1. A geometry case runs each input vertex as
//! one geometry-shader invocation from the fixed start state (as [`Shader::run_geometry`]
//! does: EMIT and SETEMIT build triangles, nothing else differs). The geometry modes of a draw
//! (point, variable, fixed) only decide which inputs an invocation gets and the uniforms set
//! for it, so a case records those already resolved: nothing more is needed. `kind` 0 in a
//! version 2 file is read (another writer may always write version 2) and written back as
//! version 1.
//!
//! # PCOU version 1 (vertex case)
//!
//! | offset | type | field |
//! |---|---|---|
//! | 0 | `[u8; 4]` | magic `PCOU` |
//! | 4 | u32 | version = 1 |
//! | 8 | u32 | `num_vertices` |
//! | 12 | `[f32; num_vertices × 16 × 4]` | o0..o15 of each vertex when it ended (0.0 where never written) |
//! | … | `[u32; num_vertices]` | status: 0 ended, 1 step budget exhausted |
//!
//! # PCOU version 2 (geometry case)
//!
//! Version 1 with version = 2 (`num_vertices` counts invocations), followed by:
//!
//! | type | field |
//! |---|---|
//! | `[u32; num_vertices]` | triangles emitted by each invocation |
//! | triangle records | every invocation's triangles, invocation after invocation, each in emission order |
//!
//! A triangle record is 772 bytes: u32 winding (0 normal, 1 inverted: SETEMIT's winding flag),
//! then its three vertices (emitter slots 0, 1, 2) as 3 × 16 × 4 f32, o0..o15 each.
//!
//! # Reading
//!
//! Parsing checks every header field before computing the expected file size (in u64, so no
//! overflow) and allocates only after the size matched (in PCOU version 2: after the triangle
//! counts summed to the file's size), so a hostile header cannot make it allocate or panic.
//! Every error names the field and its offset ([`CaseError`]). Floats are copied as bits: NaN
//! payloads survive a round trip.
//!
//! [`Shader::run_geometry`]: crate::engine::Shader::run_geometry

mod bytes;
mod output;

use thiserror::Error;

use crate::program::{Program, ProgramError, Regs16, ShaderKind, Uniforms, FLOAT_UNIFORMS};
use bytes::{check_start, header_word, len_u32, push_regs16, push_u32, regs16, word, words};
pub use output::CaseOutput;

/// Largest `code_len` of a PCAS file (words of code memory).
pub const MAX_CODE_LEN: u32 = 4096;
/// Largest `desc_len` of a PCAS file (entries of descriptor memory).
pub const MAX_DESC_LEN: u32 = 128;
/// The version of both formats for vertex cases (the shared format, `spec/case-files.md`).
pub const VERSION: u32 = 1;
/// The version of both formats for geometry cases: version 1 plus the shader kind (PCAS) and
/// the triangles (PCOU).
pub const VERSION_GEOMETRY: u32 = 2;

/// PCAS header bytes in version 1; version 2 has one more word (`shader_kind`).
const PCAS_HEADER: usize = 44;

/// One reproducible run: a program, its uniforms and the input vertices (PCAS), run as a
/// vertex or a geometry shader.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Program words, loaded at address 0 (1..=4096 of them in a valid file).
    pub code: Vec<u32>,
    /// Operand descriptors, loaded at index 0 (at most 128 in a valid file).
    pub descs: Vec<u32>,
    /// Entry point, in words (< 4096 in a valid file).
    pub entry: u32,
    /// Float, int and bool uniforms.
    pub uniforms: Uniforms,
    /// Input registers v0..v15 of each vertex (of each invocation, for a geometry shader).
    pub inputs: Vec<Regs16>,
    /// Vertex shader (written as PCAS version 1) or geometry shader (version 2).
    pub kind: ShaderKind,
}

/// Why bytes are not a valid PCAS or PCOU file. Each variant names the field and its offset.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CaseError {
    /// The file ends before a header field.
    #[error(
        "{format}: file is {len} bytes, too short for the {field} field at offset {offset:#x}"
    )]
    Truncated {
        format: &'static str,
        field: &'static str,
        offset: usize,
        len: usize,
    },

    /// The magic at offset 0 is wrong.
    #[error("{format}: bad magic {found:?} at offset 0x0, expected {format:?}")]
    BadMagic { format: &'static str, found: String },

    /// The version at offset 4 is neither 1 nor 2.
    #[error("{format}: version {found} at offset 0x4 is not supported (expected 1, or 2 for a geometry case)")]
    BadVersion { format: &'static str, found: u32 },

    /// `code_len` is 0 or above 4096.
    #[error("PCAS: code_len {0} at offset 0x8 is out of range (1..=4096)")]
    CodeLen(u32),

    /// `desc_len` is above 128.
    #[error("PCAS: desc_len {0} at offset 0xc is out of range (0..=128)")]
    DescLen(u32),

    /// `entry` is outside code memory.
    #[error("PCAS: entry {0} at offset 0x10 is outside code memory (0..4096)")]
    Entry(u32),

    /// The bool-uniform word has bits above b15 set.
    #[error("PCAS: bool uniforms {0:#010x} at offset 0x18 have bits above b15 set")]
    BoolUpperBits(u32),

    /// A version 2 case's `shader_kind` is neither 0 nor 1.
    #[error("PCAS: shader_kind {0} at offset 0x2c is not 0 (vertex) or 1 (geometry)")]
    ShaderKind(u32),

    /// The file is not exactly as long as its header says.
    #[error("{format}: file is {actual} bytes, but its header (num_vertices {num_vertices} at offset {num_vertices_offset:#x}) requires exactly {expected}")]
    WrongSize {
        format: &'static str,
        num_vertices: u32,
        num_vertices_offset: usize,
        expected: u64,
        actual: usize,
    },

    /// A version 2 PCOU file ends before its triangle counts.
    #[error("{format}: file is {actual} bytes, but its header (num_vertices {num_vertices} at offset 0x8) needs at least {needed} up to the end of the triangle counts")]
    TooShort {
        format: &'static str,
        num_vertices: u32,
        needed: u64,
        actual: usize,
    },

    /// A version 2 PCOU file is not exactly as long as its triangle counts say.
    #[error("PCOU: file is {actual} bytes, but its triangle counts (at offset {counts_offset:#x}, {triangles} triangles in all) require exactly {expected}")]
    TriangleSize {
        triangles: u64,
        counts_offset: usize,
        expected: u64,
        actual: usize,
    },

    /// A PCOU status word is neither 0 nor 1.
    #[error("PCOU: status of vertex {vertex} at offset {offset:#x} is {value}, expected 0 (ended) or 1 (step budget exhausted)")]
    UnknownStatus {
        vertex: usize,
        offset: usize,
        value: u32,
    },

    /// A PCOU triangle's winding word is neither 0 nor 1.
    #[error("PCOU: winding of triangle {triangle} of invocation {invocation} at offset {offset:#x} is {value}, expected 0 (normal) or 1 (inverted)")]
    UnknownWinding {
        invocation: usize,
        triangle: usize,
        offset: usize,
        value: u32,
    },
}

impl Case {
    /// A case running `program` (as the kind of shader it is) on `inputs`: code and
    /// descriptors are cut after their last non-zero word (code keeps at least one word),
    /// which loads the same memories.
    pub fn from_program(program: &Program, uniforms: &Uniforms, inputs: &[Regs16]) -> Case {
        let used = |words: &[u32]| words.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1);
        Case {
            code: program.code[..used(&program.code[..]).max(1)].to_vec(),
            descs: program.descs[..used(&program.descs)].to_vec(),
            entry: u32::from(program.entry),
            uniforms: uniforms.clone(),
            inputs: inputs.to_vec(),
            kind: program.kind,
        }
    }

    /// Parses a PCAS file of version 1 or 2. Every header field is range-checked and the file
    /// must end exactly after the last input vertex.
    pub fn parse(bytes: &[u8]) -> Result<Case, CaseError> {
        const F: &str = "PCAS";
        let version = check_start(bytes, F, &[VERSION, VERSION_GEOMETRY])?;
        let code_len = header_word(bytes, F, "code_len", 8)?;
        if code_len == 0 || code_len > MAX_CODE_LEN {
            return Err(CaseError::CodeLen(code_len));
        }
        let desc_len = header_word(bytes, F, "desc_len", 12)?;
        if desc_len > MAX_DESC_LEN {
            return Err(CaseError::DescLen(desc_len));
        }
        let entry = header_word(bytes, F, "entry", 16)?;
        if entry >= MAX_CODE_LEN {
            return Err(CaseError::Entry(entry));
        }
        let num_vertices = header_word(bytes, F, "num_vertices", 20)?;
        let bools = header_word(bytes, F, "bool uniforms", 24)?;
        let Ok(b) = u16::try_from(bools) else {
            return Err(CaseError::BoolUpperBits(bools));
        };
        if bytes.len() < PCAS_HEADER {
            return Err(CaseError::Truncated {
                format: F,
                field: "int uniforms",
                offset: 28,
                len: bytes.len(),
            });
        }
        let (kind, code_at) = if version == VERSION {
            (ShaderKind::Vertex, PCAS_HEADER)
        } else {
            let kind = match header_word(bytes, F, "shader_kind", PCAS_HEADER)? {
                0 => ShaderKind::Vertex,
                1 => ShaderKind::Geometry,
                other => return Err(CaseError::ShaderKind(other)),
            };
            (kind, PCAS_HEADER + 4)
        };

        let code_len = code_len as usize; // ≤ 4096
        let desc_len = desc_len as usize; // ≤ 128
        let floats_at = code_at + 4 * (code_len + desc_len);
        let inputs_at = floats_at + FLOAT_UNIFORMS * 16;
        let expected = inputs_at as u64 + u64::from(num_vertices) * bytes::REGS16_BYTES;
        if bytes.len() as u64 != expected {
            return Err(CaseError::WrongSize {
                format: F,
                num_vertices,
                num_vertices_offset: 20,
                expected,
                actual: bytes.len(),
            });
        }

        let mut uniforms = Uniforms {
            b,
            ..Uniforms::default()
        };
        for (k, int) in uniforms.i.iter_mut().enumerate() {
            *int = word(bytes, 28 + 4 * k).to_le_bytes();
        }
        for (k, float) in uniforms.f.iter_mut().enumerate() {
            for (c, component) in float.iter_mut().enumerate() {
                *component = f32::from_bits(word(bytes, floats_at + 16 * k + 4 * c));
            }
        }
        // The size matched, so num_vertices ≤ bytes.len() / 256.
        let inputs = (0..num_vertices as usize)
            .map(|v| regs16(bytes, inputs_at + 256 * v))
            .collect();
        Ok(Case {
            code: words(bytes, code_at, code_len),
            descs: words(bytes, code_at + 4 * code_len, desc_len),
            entry,
            uniforms,
            inputs,
            kind,
        })
    }

    /// The version [`Case::to_bytes`] writes: 1 for a vertex case, 2 for a geometry case.
    pub fn version(&self) -> u32 {
        match self.kind {
            ShaderKind::Vertex => VERSION,
            ShaderKind::Geometry => VERSION_GEOMETRY,
        }
    }

    /// Writes the PCAS file ([`Case::version`]). Lengths are taken from the vectors; a case
    /// whose fields are outside the ranges [`Case::parse`] accepts is written as it is (and
    /// would be rejected on reading).
    pub fn to_bytes(&self) -> Vec<u8> {
        let version = self.version();
        let header = match self.kind {
            ShaderKind::Vertex => PCAS_HEADER,
            ShaderKind::Geometry => PCAS_HEADER + 4,
        };
        let size = header
            + 4 * (self.code.len() + self.descs.len())
            + FLOAT_UNIFORMS * 16
            + 256 * self.inputs.len();
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(b"PCAS");
        push_u32(&mut out, version);
        push_u32(&mut out, len_u32(self.code.len()));
        push_u32(&mut out, len_u32(self.descs.len()));
        push_u32(&mut out, self.entry);
        push_u32(&mut out, len_u32(self.inputs.len()));
        push_u32(&mut out, u32::from(self.uniforms.b));
        for int in &self.uniforms.i {
            out.extend_from_slice(int);
        }
        match self.kind {
            ShaderKind::Vertex => {}
            ShaderKind::Geometry => push_u32(&mut out, 1),
        }
        for &w in self.code.iter().chain(&self.descs) {
            push_u32(&mut out, w);
        }
        for component in self.uniforms.f.iter().flatten() {
            push_u32(&mut out, component.to_bits());
        }
        for vertex in &self.inputs {
            push_regs16(&mut out, vertex);
        }
        out
    }

    /// The program this case runs, as the kind of shader the case says.
    pub fn program(&self) -> Result<Program, ProgramError> {
        Program::from_words(&self.code, &self.descs, self.entry).map(|p| p.with_kind(self.kind))
    }
}

#[cfg(test)]
mod tests;
