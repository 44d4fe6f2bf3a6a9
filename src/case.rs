//! PCAS/PCOU case files, a neutral format for reproducing runs (fuzz failures are saved as
//! PCAS; `picajit run` and `jit-bench` read it; any other PICA200 implementation can be driven
//! by the same files): a [`Case`] is a program, its uniforms and N input vertices; a
//! [`CaseOutput`] is the output registers and end status of each vertex. Both are
//! little-endian, version 1, and must be exactly as long as their header says.
//!
//! PCAS: the magic `PCAS`; u32 version (1); u32 `code_len` (1..=4096 program words); u32
//! `desc_len` (0..=128 descriptor words); u32 `entry` (< 4096); u32 `num_vertices`; u32 bool
//! uniforms (bit i = b*i*, bits 16..31 zero); 16 bytes of int uniforms (i0..i3, x y z w each);
//! then the program words (loaded at address 0), the descriptors (loaded at index 0), the
//! float uniforms c0..c95 as 96 × 4 f32 (x y z w), and the inputs as `num_vertices` × 16 × 4
//! f32, vertex by vertex (v0..v15 of vertex 0, then vertex 1, …). A case runs as a vertex
//! shader under the rules of [`crate::interp`]: code past `code_len` and descriptors past
//! `desc_len` are 0, every vertex starts from the fixed start state, the default step budget.
//!
//! PCOU: the magic `PCOU`; u32 version (1); u32 `num_vertices`; o0..o15 of each vertex when it
//! ended as `num_vertices` × 16 × 4 f32 (registers never written are 0.0); then a u32 status
//! per vertex (0 ended, 1 step budget exhausted).
//!
//! Parsing checks every header field before computing the expected file size (in u64, so no
//! overflow) and allocates only after the size matched, so a hostile header cannot make it
//! allocate or panic. Floats are copied as bits: NaN payloads survive a round trip.

use thiserror::Error;

use crate::program::{Program, ProgramError, Regs16, Uniforms, VertexStatus, FLOAT_UNIFORMS};

/// Largest `code_len` of a PCAS file (words of code memory).
pub const MAX_CODE_LEN: u32 = 4096;
/// Largest `desc_len` of a PCAS file (entries of descriptor memory).
pub const MAX_DESC_LEN: u32 = 128;
/// The only version of both formats.
pub const VERSION: u32 = 1;

const PCAS_HEADER: usize = 44;
const PCOU_HEADER: usize = 12;
/// Bytes of one vertex's 16 vec4 registers.
const REGS16_BYTES: u64 = 16 * 4 * 4;

/// One reproducible run: a program, its uniforms and the input vertices (PCAS).
///
/// PCAS has no shader-kind field: a case runs as a vertex shader.
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
    /// Input registers v0..v15 of each vertex.
    pub inputs: Vec<Regs16>,
}

/// The result of running a [`Case`]: per vertex, o0..o15 after it ended and how it ended (PCOU).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CaseOutput {
    /// Output registers o0..o15 of each vertex (registers never written are 0.0).
    pub outputs: Vec<Regs16>,
    /// How each vertex's invocation ended; as long as `outputs`.
    pub status: Vec<VertexStatus>,
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

    /// The version at offset 4 is not 1.
    #[error("{format}: version {found} at offset 0x4 is not supported (expected 1)")]
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

    /// The file is not exactly as long as its header says.
    #[error("{format}: file is {actual} bytes, but its header (num_vertices {num_vertices} at offset {num_vertices_offset:#x}) requires exactly {expected}")]
    WrongSize {
        format: &'static str,
        num_vertices: u32,
        num_vertices_offset: usize,
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
}

/// Little-endian reads at offsets already known to be in range.
fn word(bytes: &[u8], offset: usize) -> u32 {
    let mut le = [0u8; 4];
    if let Some(src) = bytes.get(offset..offset.saturating_add(4)) {
        le.copy_from_slice(src);
    }
    u32::from_le_bytes(le)
}

/// A header word, or the truncation error naming it.
fn header_word(
    bytes: &[u8],
    format: &'static str,
    field: &'static str,
    offset: usize,
) -> Result<u32, CaseError> {
    if bytes.len() < offset + 4 {
        return Err(CaseError::Truncated {
            format,
            field,
            offset,
            len: bytes.len(),
        });
    }
    Ok(word(bytes, offset))
}

/// Checks magic and version.
fn check_start(bytes: &[u8], format: &'static str) -> Result<(), CaseError> {
    if bytes.len() < 4 {
        return Err(CaseError::Truncated {
            format,
            field: "magic",
            offset: 0,
            len: bytes.len(),
        });
    }
    let magic = bytes.get(..4).unwrap_or_default();
    if magic != format.as_bytes() {
        return Err(CaseError::BadMagic {
            format,
            found: magic.escape_ascii().to_string(),
        });
    }
    let version = header_word(bytes, format, "version", 4)?;
    if version != VERSION {
        return Err(CaseError::BadVersion {
            format,
            found: version,
        });
    }
    Ok(())
}

/// Reads `count` consecutive words starting at `offset` (the range is known to be inside).
fn words(bytes: &[u8], offset: usize, count: usize) -> Vec<u32> {
    (0..count).map(|k| word(bytes, offset + 4 * k)).collect()
}

/// Reads one vertex's 16 vec4 registers at `offset`.
fn regs16(bytes: &[u8], offset: usize) -> Regs16 {
    let mut regs = [[0.0f32; 4]; 16];
    for (r, reg) in regs.iter_mut().enumerate() {
        for (c, component) in reg.iter_mut().enumerate() {
            *component = f32::from_bits(word(bytes, offset + 16 * r + 4 * c));
        }
    }
    regs
}

fn push_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn push_regs16(out: &mut Vec<u8>, regs: &Regs16) {
    for component in regs.iter().flatten() {
        push_u32(out, component.to_bits());
    }
}

/// Saturating usize → u32 for lengths written to a header.
fn len_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Case {
    /// A case running `program` (as a vertex shader) on `inputs`: code and descriptors are cut
    /// after their last non-zero word (code keeps at least one word), which loads the same
    /// memories.
    pub fn from_program(program: &Program, uniforms: &Uniforms, inputs: &[Regs16]) -> Case {
        let used = |words: &[u32]| words.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1);
        Case {
            code: program.code[..used(&program.code[..]).max(1)].to_vec(),
            descs: program.descs[..used(&program.descs)].to_vec(),
            entry: u32::from(program.entry),
            uniforms: uniforms.clone(),
            inputs: inputs.to_vec(),
        }
    }

    /// Parses a PCAS file. Every header field is range-checked and the file must end exactly
    /// after the last input vertex.
    pub fn parse(bytes: &[u8]) -> Result<Case, CaseError> {
        const F: &str = "PCAS";
        check_start(bytes, F)?;
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

        let code_len = code_len as usize; // ≤ 4096
        let desc_len = desc_len as usize; // ≤ 128
        let floats_at = PCAS_HEADER + 4 * (code_len + desc_len);
        let inputs_at = floats_at + FLOAT_UNIFORMS * 16;
        let expected = inputs_at as u64 + u64::from(num_vertices) * REGS16_BYTES;
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
            code: words(bytes, PCAS_HEADER, code_len),
            descs: words(bytes, PCAS_HEADER + 4 * code_len, desc_len),
            entry,
            uniforms,
            inputs,
        })
    }

    /// Writes the PCAS file. Lengths are taken from the vectors; a case whose fields are outside
    /// the ranges [`Case::parse`] accepts is written as it is (and would be rejected on reading).
    pub fn to_bytes(&self) -> Vec<u8> {
        let size = PCAS_HEADER
            + 4 * (self.code.len() + self.descs.len())
            + FLOAT_UNIFORMS * 16
            + 256 * self.inputs.len();
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(b"PCAS");
        push_u32(&mut out, VERSION);
        push_u32(&mut out, len_u32(self.code.len()));
        push_u32(&mut out, len_u32(self.descs.len()));
        push_u32(&mut out, self.entry);
        push_u32(&mut out, len_u32(self.inputs.len()));
        push_u32(&mut out, u32::from(self.uniforms.b));
        for int in &self.uniforms.i {
            out.extend_from_slice(int);
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

    /// The program this case runs (a vertex shader).
    pub fn program(&self) -> Result<Program, ProgramError> {
        Program::from_words(&self.code, &self.descs, self.entry)
    }
}

impl CaseOutput {
    /// Parses a PCOU file: the size must match `num_vertices` exactly and every status must be
    /// a known code.
    pub fn parse(bytes: &[u8]) -> Result<CaseOutput, CaseError> {
        const F: &str = "PCOU";
        check_start(bytes, F)?;
        let num_vertices = header_word(bytes, F, "num_vertices", 8)?;
        let expected = PCOU_HEADER as u64 + u64::from(num_vertices) * (REGS16_BYTES + 4);
        if bytes.len() as u64 != expected {
            return Err(CaseError::WrongSize {
                format: F,
                num_vertices,
                num_vertices_offset: 8,
                expected,
                actual: bytes.len(),
            });
        }
        // The size matched, so num_vertices ≤ bytes.len() / 260.
        let n = num_vertices as usize;
        let status_at = PCOU_HEADER + 256 * n;
        let status = (0..n)
            .map(|v| {
                let offset = status_at + 4 * v;
                match word(bytes, offset) {
                    0 => Ok(VertexStatus::Ended),
                    1 => Ok(VertexStatus::BudgetExhausted),
                    value => Err(CaseError::UnknownStatus {
                        vertex: v,
                        offset,
                        value,
                    }),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let outputs = (0..n)
            .map(|v| regs16(bytes, PCOU_HEADER + 256 * v))
            .collect();
        Ok(CaseOutput { outputs, status })
    }

    /// Writes the PCOU file. `num_vertices` is `outputs.len()`; the status list should be as
    /// long (extra entries are not written, missing ones are written as `Ended`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.outputs.len();
        let mut out = Vec::with_capacity(PCOU_HEADER + 260 * n);
        out.extend_from_slice(b"PCOU");
        push_u32(&mut out, VERSION);
        push_u32(&mut out, len_u32(n));
        for vertex in &self.outputs {
            push_regs16(&mut out, vertex);
        }
        for v in 0..n {
            let status = self.status.get(v).copied().unwrap_or_default();
            push_u32(&mut out, status as u32);
        }
        out
    }
}

#[cfg(test)]
mod tests;
