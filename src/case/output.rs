//! PCOU, the outputs of a case ([`CaseOutput`]): version 1 for a vertex case, version 2 (the
//! same plus each invocation's triangles) for a geometry case. The byte layout is in the
//! [`crate::case`] module docs.

use super::bytes::{
    check_start, header_word, len_u32, push_regs16, push_u32, regs16, word, REGS16_BYTES,
};
use super::{CaseError, VERSION, VERSION_GEOMETRY};
use crate::interp::Primitive;
use crate::program::{Regs16, VertexStatus};

const HEADER: usize = 12;
/// Bytes of one triangle record: the winding word and three vertices of 16 registers.
pub(super) const TRIANGLE_BYTES: u64 = 4 + 3 * REGS16_BYTES;

/// The result of running a [`Case`](super::Case): per invocation, o0..o15 after it ended and
/// how it ended; for a geometry case also the triangles it emitted (PCOU).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CaseOutput {
    /// Output registers o0..o15 of each invocation (registers never written are 0.0).
    pub outputs: Vec<Regs16>,
    /// How each invocation ended; as long as `outputs`.
    pub status: Vec<VertexStatus>,
    /// A geometry case's triangles: per invocation, those it emitted, in emission order (PCOU
    /// version 2). `None` for a vertex case (version 1).
    pub triangles: Option<Vec<Vec<Primitive>>>,
}

impl CaseOutput {
    /// Parses a PCOU file of version 1 or 2: the size must match the header (and, in version
    /// 2, the triangle counts) exactly, and every status and winding must be a known code.
    pub fn parse(bytes: &[u8]) -> Result<CaseOutput, CaseError> {
        const F: &str = "PCOU";
        let version = check_start(bytes, F, &[VERSION, VERSION_GEOMETRY])?;
        let num_vertices = header_word(bytes, F, "num_vertices", 8)?;
        let n64 = u64::from(num_vertices);
        let fixed = HEADER as u64 + n64 * (REGS16_BYTES + 4);
        let (counts, triangles_at) = if version == VERSION {
            if bytes.len() as u64 != fixed {
                return Err(CaseError::WrongSize {
                    format: F,
                    num_vertices,
                    num_vertices_offset: 8,
                    expected: fixed,
                    actual: bytes.len(),
                });
            }
            (None, 0)
        } else {
            let with_counts = fixed + n64 * 4;
            if (bytes.len() as u64) < with_counts {
                return Err(CaseError::TooShort {
                    format: F,
                    num_vertices,
                    needed: with_counts,
                    actual: bytes.len(),
                });
            }
            // Now num_vertices ≤ bytes.len() / 264: the offsets below fit.
            let counts_at = fixed as usize;
            let counts: Vec<u32> = (0..num_vertices as usize)
                .map(|v| word(bytes, counts_at + 4 * v))
                .collect();
            let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
            let expected = with_counts + total * TRIANGLE_BYTES;
            if bytes.len() as u64 != expected {
                return Err(CaseError::TriangleSize {
                    triangles: total,
                    counts_offset: counts_at,
                    expected,
                    actual: bytes.len(),
                });
            }
            (Some(counts), with_counts as usize)
        };
        let n = num_vertices as usize;
        let status_at = HEADER + 256 * n;
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
        let outputs = (0..n).map(|v| regs16(bytes, HEADER + 256 * v)).collect();
        let triangles = match counts {
            None => None,
            Some(counts) => Some(read_triangles(bytes, &counts, triangles_at)?),
        };
        Ok(CaseOutput {
            outputs,
            status,
            triangles,
        })
    }

    /// Writes the PCOU file: version 2 if it holds triangles (a geometry case), else version 1.
    /// `num_vertices` is `outputs.len()`; the status and triangle lists should be as long
    /// (extra entries are not written, missing ones are written as `Ended` and no triangles).
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.outputs.len();
        let mut out = Vec::with_capacity(HEADER + 264 * n);
        out.extend_from_slice(b"PCOU");
        let version = match self.triangles {
            Some(_) => VERSION_GEOMETRY,
            None => VERSION,
        };
        push_u32(&mut out, version);
        push_u32(&mut out, len_u32(n));
        for vertex in &self.outputs {
            push_regs16(&mut out, vertex);
        }
        for v in 0..n {
            let status = self.status.get(v).copied().unwrap_or_default();
            push_u32(&mut out, status as u32);
        }
        if let Some(triangles) = &self.triangles {
            let of = |v: usize| triangles.get(v).map_or(&[][..], |t| &t[..]);
            for v in 0..n {
                push_u32(&mut out, len_u32(of(v).len()));
            }
            for triangle in (0..n).flat_map(of) {
                push_u32(&mut out, u32::from(triangle.winding));
                for vertex in &triangle.vertices {
                    push_regs16(&mut out, vertex);
                }
            }
        }
        out
    }
}

/// The triangles of each invocation (`counts[v]` of them), starting at `at`; the size was
/// checked, so every record is inside `bytes`.
fn read_triangles(
    bytes: &[u8],
    counts: &[u32],
    mut at: usize,
) -> Result<Vec<Vec<Primitive>>, CaseError> {
    let mut all = Vec::with_capacity(counts.len());
    for (invocation, &count) in counts.iter().enumerate() {
        let mut mine = Vec::with_capacity(count as usize);
        for triangle in 0..count as usize {
            let winding = match word(bytes, at) {
                0 => false,
                1 => true,
                value => {
                    return Err(CaseError::UnknownWinding {
                        invocation,
                        triangle,
                        offset: at,
                        value,
                    })
                }
            };
            let vertices = std::array::from_fn(|k| regs16(bytes, at + 4 + 256 * k));
            mine.push(Primitive { vertices, winding });
            at += TRIANGLE_BYTES as usize;
        }
        all.push(mine);
    }
    Ok(all)
}
