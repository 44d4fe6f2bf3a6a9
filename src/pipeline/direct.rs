//! The vertex stage through a draw kernel: the unique-vertex list is the kernel's input, its
//! batch loop loads each attribute from its array into lanes and stores output vertices in
//! semantic order (`picajit_codegen::x64::DrawLayout`), with no input or output records in
//! between. Used when the draw needs no raw records and the shader has a draw kernel for the
//! draw's layout; otherwise the record path ([`super::vertex`]) runs.

use picajit_codegen::code::DrawInput;
use picajit_codegen::x64::{DrawLayout, DrawSlot};

use super::dense::Referenced;
use super::semantic::Slot;
use super::types::{DrawError, OutputVertex};
use super::vertex::Feed;
use crate::engine::Shader;
use crate::pica::{Unit, SEMANTIC_SLOTS};
use crate::program::{Uniforms, Vec4};

/// The draw kernel's layout: per register the shader reads, its array's component count (a
/// fixed value or an unloaded register is read as a 4-component array of stride 0); the
/// output map's slots (whose constants are 0.0 and 1.0).
pub(super) fn layout(
    feeds: &[Feed; 16],
    read: &[u8; 16],
    table: &[Slot; SEMANTIC_SLOTS],
) -> DrawLayout {
    DrawLayout {
        components: std::array::from_fn(|r| match feeds[r] {
            _ if read[r] == 0 => 0,
            Feed::Array { components, .. } => components as u8,
            Feed::Zero | Feed::Fixed(_) => 4,
        }),
        slots: table.map(|s| match s {
            Slot::Reg(reg, comp) => DrawSlot::Output { reg, comp },
            Slot::Const(x) if x.to_bits() == 0 => DrawSlot::Zero,
            Slot::Const(_) => DrawSlot::One,
        }),
    }
}

/// Runs the vertex shader for the unique vertices `ids` through its draw kernel into
/// `vertices` (resized to `ids.len()`), or returns `None` if it has none for this draw (then
/// `ids` is as it was and `vertices` is to be filled by the record path). `words` is scratch;
/// only vertices `referenced` names count in a budget error.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    vs: &Shader,
    uniforms: &Uniforms,
    feeds: &[Feed; 16],
    table: &[Slot; SEMANTIC_SLOTS],
    ids: &mut Vec<u32>,
    vertices: &mut Vec<OutputVertex>,
    words: &mut Vec<u32>,
    referenced: &mut Referenced,
) -> Option<Result<(), DrawError>> {
    let n = ids.len();
    let last = *ids.last()?;
    let read = vs.input_components();
    let layout = layout(feeds, &read, table);
    let fixed: [Vec4; 16] = std::array::from_fn(|r| match feeds[r] {
        Feed::Fixed(v) => v,
        Feed::Zero | Feed::Array { .. } => [0.0; 4],
    });
    let inputs: [Option<DrawInput<'_>>; 16] = std::array::from_fn(|r| {
        (read[r] != 0).then(|| match feeds[r] {
            Feed::Array {
                data,
                offset,
                stride,
                ..
            } => DrawInput {
                data: data.get(offset..).unwrap_or(&[]),
                stride,
            },
            Feed::Zero | Feed::Fixed(_) => DrawInput {
                data: &fixed[r],
                stride: 0,
            },
        })
    });
    // Whole batches: the tail repeats the last vertex (its outputs are dropped below).
    let w = vs.lanes();
    let padded = n.div_ceil(w) * w;
    ids.resize(padded, last);
    vertices.resize(
        padded,
        OutputVertex {
            slots: [0.0; SEMANTIC_SLOTS],
        },
    );
    let ran = vs.run_draw(
        uniforms,
        &layout,
        ids,
        &inputs,
        OutputVertex::as_slots(vertices),
        words,
    );
    ids.truncate(n);
    vertices.truncate(n);
    ran?;
    let mut exhausted: Option<(u32, usize)> = None;
    for (b, &word) in words.iter().enumerate().filter(|(_, &word)| word != 0) {
        for lane in (0..w).filter(|&l| word >> l & 1 != 0 && b * w + l < n) {
            if !referenced.has(b * w + lane) {
                continue;
            }
            exhausted = Some(match exhausted {
                None => (ids[b * w + lane], 1),
                Some((v, count)) => (v, count + 1),
            });
        }
    }
    Some(match exhausted {
        None => Ok(()),
        Some((vertex, count)) => Err(DrawError::BudgetExhausted {
            unit: Unit::Vertex,
            vertex,
            count,
            budget: vs.budget(),
        }),
    })
}
