//! The vertex stage of a draw: the attributes the shader reads are gathered straight into SoA
//! planes (only the registers and components it reads), the SoA kernel runs chunk by chunk,
//! and each chunk's output planes go to the caller (semantic vertices, raw records, or the
//! geometry stage's attribute buffers) while they are still in cache.

use super::types::{Attribute, DrawError};
use crate::engine::{Shader, SoaPlan};
use crate::pica::Unit;
use crate::program::{Uniforms, Vec4, VertexStatus};

/// Vertices per chunk: a multiple of every batch width, small enough that a chunk's planes and
/// output vertices stay in L2.
pub(super) const CHUNK: usize = 1024;

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
/// Checks the attributes and that every vertex up to `max_id` is inside its array.
pub(super) fn feeds<'a>(
    attributes: &[Attribute<'a>],
    count: usize,
    permutation: [u8; 16],
    read: [u8; 16],
    max_id: u32,
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

/// Writes the input planes (`n = ids.len()` lanes each) of the registers the shader reads for
/// vertices `ids`.
fn gather(feeds: &[Feed; 16], read: &[u8; 16], ids: &[u32], planes: &mut [f32]) {
    let n = ids.len();
    for (r, feed) in feeds.iter().enumerate() {
        let mask = read[r];
        if mask == 0 {
            continue;
        }
        let plane = |_: &mut [f32], c: usize| -> std::ops::Range<usize> {
            (r * 4 + c) * n..(r * 4 + c + 1) * n
        };
        match *feed {
            Feed::Zero | Feed::Fixed(_) => {
                let value = match *feed {
                    Feed::Fixed(v) => v,
                    Feed::Zero | Feed::Array { .. } => [0.0; 4],
                };
                for c in (0..4).filter(|c| mask >> c & 1 != 0) {
                    let range = plane(planes, c);
                    planes[range].fill(value[c]);
                }
            }
            Feed::Array {
                data,
                offset,
                stride,
                components,
            } => {
                // Components the array lacks: the loader's defaults.
                for c in (components..4).filter(|c| mask >> c & 1 != 0) {
                    let range = plane(planes, c);
                    planes[range].fill(DEFAULT[c]);
                }
                let loaded = mask & ((1u8 << components) - 1);
                if loaded == 0xF {
                    // The common case: one pass, four planes, one bounds check per vertex.
                    let (x, rest) = planes[r * 4 * n..(r * 4 + 4) * n].split_at_mut(n);
                    let (y, rest) = rest.split_at_mut(n);
                    let (z, w) = rest.split_at_mut(n);
                    for (j, &id) in ids.iter().enumerate() {
                        let at = offset + id as usize * stride;
                        let v = &data[at..at + 4];
                        (x[j], y[j], z[j], w[j]) = (v[0], v[1], v[2], v[3]);
                    }
                    continue;
                }
                for c in (0..components).filter(|c| loaded >> c & 1 != 0) {
                    let range = plane(planes, c);
                    let dst = &mut planes[range];
                    for (d, &id) in dst.iter_mut().zip(ids) {
                        *d = data[offset + id as usize * stride + c];
                    }
                }
            }
        }
    }
}

/// Buffers of the vertex stage, reused from draw to draw: input and output planes of one
/// chunk (64 planes of up to [`CHUNK`] lanes; a chunk of `n` vertices uses the first `64 n`
/// floats, plane k at `k n`).
#[derive(Debug, Default)]
pub(super) struct VertexBuffers {
    input: Vec<f32>,
    output: Vec<f32>,
    status: Vec<VertexStatus>,
}

/// Runs `shader` on vertices `ids` chunk by chunk: `sink(first, planes, n)` receives each
/// chunk's output planes (`n` lanes per plane; vertex `first + j` is lane `j`). Every chunk
/// runs; the error names the first vertex that exhausted its step budget.
pub(super) fn run(
    shader: &Shader,
    uniforms: &Uniforms,
    feeds: &[Feed; 16],
    ids: &[u32],
    buffers: &mut VertexBuffers,
    mut sink: impl FnMut(usize, &[f32], usize),
) -> Result<(), DrawError> {
    let read = shader.input_components();
    let plan = SoaPlan::new(shader, uniforms);
    let mut first_exhausted: Option<(u32, usize)> = None;
    let lanes = ids.len().min(CHUNK);
    for buf in [&mut buffers.input, &mut buffers.output] {
        if buf.len() < 64 * lanes {
            buf.resize(64 * lanes, 0.0);
        }
    }
    for (k, chunk) in ids.chunks(CHUNK).enumerate() {
        let n = chunk.len();
        buffers.status.resize(n, VertexStatus::Ended);
        gather(feeds, &read, chunk, &mut buffers.input[..64 * n]);
        // Budget errors are read from the statuses below.
        let _ = plan.run(
            shader,
            uniforms,
            &buffers.input,
            &mut buffers.output,
            n,
            &mut buffers.status,
        );
        for (j, s) in buffers.status.iter().enumerate() {
            if *s == VertexStatus::BudgetExhausted {
                first_exhausted = Some(match first_exhausted {
                    None => (chunk[j], 1),
                    Some((v, count)) => (v, count + 1),
                });
            }
        }
        sink(k * CHUNK, &buffers.output[..64 * n], n);
    }
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
