//! The vertex stage through a draw kernel: the unique-vertex list is the kernel's input (or,
//! for a range of consecutive vertices, a stepped kernel walks the arrays with no list), its
//! batch loop loads each attribute from its array into lanes and stores output vertices in
//! semantic order (`picajit_codegen::x64::DrawLayout`), with no input or output records in
//! between. Used when the draw needs no raw records and the shader has a draw kernel for the
//! draw's layout; otherwise the record path ([`super::vertex`]) runs.

use picajit_codegen::code::DrawInput;
use picajit_codegen::x64::{DrawLayout, DrawOrder, DrawSlot, MAX_STEPPED_STRIDE};

use super::constants::Constants;
use super::dense::Referenced;
use super::layouts::Layout;
use super::semantic::Slot;
use super::types::{DrawError, OutputVertex};
use super::vertex::Feed;
use crate::engine::{DrawMemo, DrawSite, DrawVertices, Shader};
use crate::pica::{Unit, SEMANTIC_SLOTS};
use crate::program::{Uniforms, Vec4};

/// Buffers of the draw-kernel path, reused from draw to draw.
#[derive(Debug, Default)]
pub(super) struct Buffers {
    /// Batch status words of the whole batches.
    words: Vec<u32>,
    /// The status word of a range's last, partial batch.
    tail: Vec<u32>,
}

/// What both draw-kernel paths read: the vertex shader, its uniforms, the attribute feeds and
/// the draw's [`Layout`].
#[derive(Clone, Copy)]
pub(super) struct Stage<'a> {
    pub(super) vs: &'a Shader,
    pub(super) uniforms: &'a Uniforms,
    pub(super) feeds: &'a [Feed<'a>; 16],
    pub(super) layout: &'a Layout,
}

/// The byte strides of `feeds` (the registers the shader reads, `read`) for the stepped and
/// the indexed kernel of fixed strides: 0 for a fixed value or an unloaded register; `None` if
/// a stride is above [`MAX_STEPPED_STRIDE`] (such draws take the indexed kernel of strides
/// per run).
pub(super) fn strides(feeds: &[Feed; 16], read: &[u8; 16]) -> Option<[u32; 16]> {
    let mut strides = [0u32; 16];
    for (r, stride) in strides.iter_mut().enumerate() {
        if let (true, Feed::Array { stride: s, .. }) = (read[r] != 0, feeds[r]) {
            *stride = u32::try_from(s.checked_mul(4)?)
                .ok()
                .filter(|&b| b <= MAX_STEPPED_STRIDE)?;
        }
    }
    Some(strides)
}

/// The draw kernel's layout: per register the shader reads, its array's component count (a
/// fixed value or an unloaded register is read as a 4-component array of stride 0); the
/// output map's slots (whose constants are 0.0 and 1.0); how it finds vertices (`order`).
pub(super) fn layout(
    feeds: &[Feed; 16],
    read: &[u8; 16],
    table: &[Slot; SEMANTIC_SLOTS],
    order: DrawOrder,
) -> DrawLayout {
    DrawLayout {
        order,
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

/// Runs the vertex shader for the unique vertices `ids` through its draw kernel for `layout`
/// (the draw's [`Layout`]) into `vertices` (resized to `ids.len()`; `constants` says what
/// their constant slots hold), or
/// returns `None` if it has none for this draw (then `ids` is as it was and `vertices` is to
/// be filled by the record path). `words` is scratch; `memo` is the indexed layout's
/// ([`DrawMemo`]); only vertices `referenced` names count in a budget error.
pub(super) fn run(
    stage: Stage<'_>,
    ids: &mut Vec<u32>,
    (vertices, constants): (&mut Vec<OutputVertex>, &mut Constants),
    buffers: &mut Buffers,
    memo: &mut DrawMemo,
    referenced: &mut Referenced,
) -> Option<Result<(), DrawError>> {
    let (vs, uniforms, feeds, layout) = (stage.vs, stage.uniforms, stage.feeds, stage.layout);
    let n = ids.len();
    let last = *ids.last()?;
    let read = vs.input_components();
    let fixed = fixed_values(feeds);
    let inputs = inputs_from(feeds, &read, &fixed, 0);
    let words = &mut buffers.words;
    // Whole batches: the tail repeats the last vertex (its outputs are dropped below).
    let w = vs.draw_lanes();
    let padded = n.div_ceil(w) * w;
    ids.resize(padded, last);
    constants.resize(vertices, padded, &layout.constants);
    let site = DrawSite {
        layout: &layout.indexed,
        memo,
    };
    let ran = vs.run_draw(
        uniforms,
        site,
        DrawVertices::Ids(ids),
        &inputs,
        OutputVertex::as_slots(vertices),
        words,
    );
    ids.truncate(n);
    constants.truncate(vertices, n);
    ran?;
    if none_exhausted(words) {
        return Some(Ok(()));
    }
    let exhausted = words
        .iter()
        .enumerate()
        .filter(|&(_, &word)| word != 0)
        .flat_map(|(b, &word)| {
            (0..w)
                .filter(move |&l| word >> l & 1 != 0)
                .map(move |l| b * w + l)
        })
        .filter(|&u| u < n && referenced.has(u))
        .map(|u| ids[u]);
    Some(budget_result(vs, exhausted))
}

/// The fixed value of each register fed one (0.0 elsewhere): the arrays of stride 0 that
/// fixed and unloaded registers are read from.
fn fixed_values(feeds: &[Feed; 16]) -> [Vec4; 16] {
    std::array::from_fn(|r| match feeds[r] {
        Feed::Fixed(v) => v,
        Feed::Zero | Feed::Array { .. } => [0.0; 4],
    })
}

/// The kernel's input arrays for the registers the shader reads (`read`), each array from
/// vertex `from` on; fixed values and unloaded registers from `fixed` at stride 0.
fn inputs_from<'a>(
    feeds: &[Feed<'a>; 16],
    read: &[u8; 16],
    fixed: &'a [Vec4; 16],
    from: usize,
) -> [Option<DrawInput<'a>>; 16] {
    std::array::from_fn(|r| {
        (read[r] != 0).then(|| match feeds[r] {
            Feed::Array {
                data,
                offset,
                stride,
                ..
            } => DrawInput {
                data: from
                    .checked_mul(stride)
                    .and_then(|s| s.checked_add(offset))
                    .and_then(|at| data.get(at..))
                    .unwrap_or(&[]),
                stride,
            },
            Feed::Zero | Feed::Fixed(_) => DrawInput {
                data: &fixed[r],
                stride: 0,
            },
        })
    })
}

/// Runs the vertex shader for the `count` consecutive vertices from `first` through its
/// stepped draw kernel for `layout` (`memo`: the stepped layout's [`DrawMemo`]) into
/// `vertices` (resized to `count`, their constant slots as `constants` says): the whole
/// batches in one run,
/// then a partial last batch as the last W vertices (recomputing some: a shader has no side
/// effects). `None` if the range is shorter than a batch (the indexed kernel pads such a
/// draw with no copies) or the shader has no stepped kernel for this draw (a stride above
/// [`MAX_STEPPED_STRIDE`], or see [`run`]); then `vertices` is to be filled by another path.
/// `feeds` were checked for vertex `first + count - 1`; only vertices `referenced` names count
/// in a budget error.
pub(super) fn run_range(
    stage: Stage<'_>,
    first: u32,
    count: usize,
    (vertices, constants): (&mut Vec<OutputVertex>, &mut Constants),
    buffers: &mut Buffers,
    memo: &mut DrawMemo,
    referenced: &mut Referenced,
) -> Option<Result<(), DrawError>> {
    let (vs, uniforms, feeds, layout) = (stage.vs, stage.uniforms, stage.feeds, stage.layout);
    let w = vs.draw_lanes();
    if count < w {
        return None;
    }
    let stepped = layout.stepped.as_ref()?;
    let read = vs.input_components();
    let fixed = fixed_values(feeds);
    let first = first as usize;
    let full = count / w * w;
    constants.resize(vertices, count, &layout.constants);
    let Buffers { words, tail } = buffers;
    words.clear();
    if full > 0 {
        let inputs = inputs_from(feeds, &read, &fixed, first);
        let out = OutputVertex::as_slots(&mut vertices[..full]);
        let site = DrawSite {
            layout: stepped,
            memo: &mut *memo,
        };
        vs.run_draw(
            uniforms,
            site,
            DrawVertices::Range(full),
            &inputs,
            out,
            words,
        )?;
    }
    // The last batch: vertices `from..from + w`, of which those from `full` on are new.
    let from = count - w;
    if full < count {
        let out = OutputVertex::as_slots(&mut vertices[from..from + w]);
        let inputs = inputs_from(feeds, &read, &fixed, first + from);
        let site = DrawSite {
            layout: stepped,
            memo,
        };
        vs.run_draw(uniforms, site, DrawVertices::Range(w), &inputs, out, tail)?;
    } else {
        tail.clear();
    }
    if none_exhausted(words) && none_exhausted(tail) {
        return Some(Ok(()));
    }
    let batches = words.iter().enumerate().map(|(b, &word)| (b * w, word));
    let last = tail.first().map(|&word| (from, word));
    let exhausted = batches
        .chain(last)
        .filter(|&(_, word)| word != 0)
        .flat_map(|(start, word)| {
            (0..w)
                .filter(move |&l| word >> l & 1 != 0)
                .map(move |l| (start, start + l))
        })
        // The last batch's vertices below `full` were counted with their whole batch.
        .filter(|&(start, u)| !(start == from && full < count && u < full) && referenced.has(u))
        .map(|(_, u)| (first + u) as u32);
    Some(budget_result(vs, exhausted))
}

/// True if no lane of any batch exhausted its step budget (every status word is 0): one OR
/// over the words, which the compiler vectorizes, where a search for the first non-zero word
/// tests and branches word by word.
fn none_exhausted(words: &[u32]) -> bool {
    words.iter().fold(0, |any, &word| any | word) == 0
}

/// `Ok`, or the budget error naming the first of `exhausted` (the referenced vertices whose
/// lane ran out of steps, in order) and how many there are.
fn budget_result(vs: &Shader, mut exhausted: impl Iterator<Item = u32>) -> Result<(), DrawError> {
    match exhausted.next() {
        None => Ok(()),
        Some(vertex) => Err(DrawError::BudgetExhausted {
            unit: Unit::Vertex,
            vertex,
            count: 1 + exhausted.count(),
            budget: vs.budget(),
        }),
    }
}
