//! The vertex stage of a draw: the attributes the shader reads are gathered into input
//! records (only the registers it reads, each a 16-byte copy when the array has four
//! components), the AoS kernel runs chunk by chunk — its batch loop transposes records to
//! lanes and back in SIMD registers — and each chunk's output records go to the caller
//! (semantic vertices, raw records, or the geometry stage's attribute buffers) while they are
//! still in cache.
//!
//! Records rather than planes: gathering a vertex's attribute into a record is one vector
//! copy where a plane needs one scalar store per component, and the kernel's transposes cost
//! less than the Rust loops that would replace them.

use super::dense::Referenced;
use super::types::{Attribute, DrawError};
use crate::engine::Shader;
use crate::pica::Unit;
use crate::program::{Regs16, Uniforms, Vec4, VertexStatus};

/// Vertices per chunk: a multiple of every batch width, small enough that a chunk's input
/// and output records (256 bytes each) stay in L2.
pub(super) const CHUNK: usize = 256;

/// Where one input register's values come from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Feed<'a> {
    /// No attribute is loaded into it: 0.0 (every invocation starts from zeroed registers).
    Zero,
    Fixed(Vec4),
    Array {
        data: &'a [f32],
        offset: usize,
        stride: usize,
        components: usize,
    },
}

/// The feed of each input register the shader reads: the last attribute the permutation
/// loads into it (attributes are loaded in order, so a later one overwrites an earlier one).
/// Checks the attributes and, given `max_id`, that every vertex up to it is inside its array.
pub(super) fn feeds<'a>(
    attributes: &[Attribute<'a>],
    count: usize,
    permutation: [u8; 16],
    read: [u8; 16],
    max_id: Option<u32>,
) -> Result<[Feed<'a>; 16], DrawError> {
    let mut feeds = [Feed::Zero; 16];
    for (k, &target) in permutation.iter().enumerate().take(count) {
        let attribute = attributes.get(k).ok_or(DrawError::MissingAttribute {
            attribute: k,
            expected: count,
            given: attributes.len(),
        })?;
        let feed = match *attribute {
            Attribute::Fixed(v) => Feed::Fixed(v),
            Attribute::Array {
                data,
                offset,
                stride,
                components,
            } => {
                if !(1..=4).contains(&components) {
                    return Err(DrawError::BadComponents {
                        attribute: k,
                        components,
                    });
                }
                let components = usize::from(components);
                if let Some(max_id) = max_id {
                    let start = stride
                        .checked_mul(max_id as usize)
                        .and_then(|s| s.checked_add(offset));
                    let end = start.and_then(|s| s.checked_add(components));
                    match (start, end) {
                        (Some(_), Some(end)) if end <= data.len() => {}
                        _ => {
                            return Err(DrawError::AttributeOutOfBounds {
                                attribute: k,
                                vertex: max_id,
                                start: start.unwrap_or(usize::MAX),
                                end: end.unwrap_or(usize::MAX),
                                len: data.len(),
                            })
                        }
                    }
                }
                Feed::Array {
                    data,
                    offset,
                    stride,
                    components,
                }
            }
        };
        let reg = usize::from(target & 15);
        if read[reg] != 0 {
            feeds[reg] = feed;
        }
    }
    Ok(feeds)
}

/// The components a vertex loader fills when an array has fewer: (0, 0, 0, 1).
const DEFAULT: Vec4 = [0.0, 0.0, 0.0, 1.0];

/// Writes the input registers the shader reads (`read`, bit r) of the records `records[j]`
/// for vertices `ids[j]`.
fn gather(feeds: &[Feed; 16], read: u16, ids: &[u32], records: &mut [Regs16]) {
    let records = &mut records[..ids.len()];
    for (r, feed) in feeds.iter().enumerate() {
        if read >> r & 1 == 0 {
            continue;
        }
        match *feed {
            Feed::Zero => records.iter_mut().for_each(|rec| rec[r] = [0.0; 4]),
            Feed::Fixed(value) => records.iter_mut().for_each(|rec| rec[r] = value),
            Feed::Array {
                data,
                offset,
                stride,
                components,
            } => {
                let data = &data[offset.min(data.len())..];
                match components {
                    1 => gather_array::<1>(data, stride, ids, records, r),
                    2 => gather_array::<2>(data, stride, ids, records, r),
                    3 => gather_array::<3>(data, stride, ids, records, r),
                    _ => gather_array::<4>(data, stride, ids, records, r),
                }
            }
        }
    }
}

/// Register `r` of each record from the `C` floats at `data[id * stride..]` (in bounds:
/// [`feeds`] checked the largest id), the rest from [`DEFAULT`]. The offsets are clamped to
/// the last whole attribute of `data`, which leaves them as they are (they are in bounds) and
/// lets the compiler drop the per-vertex bounds and overflow checks.
#[inline(never)]
fn gather_array<const C: usize>(
    data: &[f32],
    stride: usize,
    ids: &[u32],
    records: &mut [Regs16],
    r: usize,
) {
    let Some(last) = data.len().checked_sub(C) else {
        return;
    };
    for (rec, &id) in records.iter_mut().zip(ids) {
        let at = (id as usize).wrapping_mul(stride).min(last);
        let mut value = DEFAULT;
        value[..C].copy_from_slice(&data[at..at + C]);
        rec[r] = value;
    }
}

/// Buffers of the vertex stage, reused from draw to draw: the input and output records of
/// one chunk, and their statuses.
#[derive(Debug, Default)]
pub(super) struct VertexBuffers {
    input: Vec<Regs16>,
    output: Vec<Regs16>,
    status: Vec<VertexStatus>,
}

/// Runs `shader` on vertices `ids` chunk by chunk: `sink(first, records)` receives each
/// chunk's output records (vertex `first + j` is `records[j]`; the registers
/// [`Shader::outputs_written`] names are defined). Every chunk runs; the error names the
/// first vertex `referenced` names that exhausted its step budget.
pub(super) fn run(
    shader: &Shader,
    uniforms: &Uniforms,
    feeds: &[Feed; 16],
    ids: &[u32],
    buffers: &mut VertexBuffers,
    referenced: &mut Referenced,
    mut sink: impl FnMut(usize, &[Regs16]),
) -> Result<(), DrawError> {
    let read = shader.inputs_read();
    let mut first_exhausted: Option<(u32, usize)> = None;
    let lanes = ids.len().min(CHUNK);
    if buffers.input.len() < lanes {
        buffers.input.resize(lanes, [[0.0; 4]; 16]);
        buffers.output.resize(lanes, [[0.0; 4]; 16]);
        buffers.status.resize(lanes, VertexStatus::Ended);
    }
    shader.with_aos_runner(uniforms, |runner| {
        for (k, chunk) in ids.chunks(CHUNK).enumerate() {
            let n = chunk.len();
            let (input, output) = (&mut buffers.input[..n], &mut buffers.output[..n]);
            let status = &mut buffers.status[..n];
            gather(feeds, read, chunk, input);
            if runner.run(input, output, status).is_err() {
                for (j, s) in status.iter().enumerate() {
                    if *s == VertexStatus::BudgetExhausted && referenced.has(k * CHUNK + j) {
                        first_exhausted = Some(match first_exhausted {
                            None => (chunk[j], 1),
                            Some((v, count)) => (v, count + 1),
                        });
                    }
                }
            }
            sink(k * CHUNK, output);
        }
    });
    match first_exhausted {
        None => Ok(()),
        Some((vertex, count)) => Err(DrawError::BudgetExhausted {
            unit: Unit::Vertex,
            vertex,
            count,
            budget: shader.budget(),
        }),
    }
}
