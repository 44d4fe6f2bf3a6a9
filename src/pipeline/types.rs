//! What a draw takes and gives: the index list or vertex range, where each input attribute
//! comes from, the output vertices in semantic order, and the errors.

use thiserror::Error;

use super::constants::Constants;
use super::dense::Numbers;
use crate::pica::{semantic, Unit, SEMANTIC_SLOTS};
use crate::program::{Regs16, Vec4};

/// The vertices of a draw, in the order primitives use them.
#[derive(Clone, Copy, Debug)]
pub enum Indices<'a> {
    /// An index list of bytes.
    U8(&'a [u8]),
    /// An index list of 16-bit indices.
    U16(&'a [u16]),
    /// An index list of 32-bit indices.
    U32(&'a [u32]),
    /// Vertices `first`, `first + 1`, … `first + count − 1` (a non-indexed draw).
    Range { first: u32, count: u32 },
}

impl Indices<'_> {
    /// Number of indices.
    pub fn len(&self) -> usize {
        match *self {
            Indices::U8(i) => i.len(),
            Indices::U16(i) => i.len(),
            Indices::U32(i) => i.len(),
            Indices::Range { count, .. } => count as usize,
        }
    }

    /// True if the draw has no index.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index `n`.
    pub fn get(&self, n: usize) -> u32 {
        match *self {
            Indices::U8(i) => u32::from(i[n]),
            Indices::U16(i) => u32::from(i[n]),
            Indices::U32(i) => i[n],
            Indices::Range { first, .. } => first.wrapping_add(n as u32),
        }
    }
}

/// Where one input attribute of the vertex unit comes from (attribute k is loaded into the
/// input register the unit's permutation names).
#[derive(Clone, Copy, Debug)]
pub enum Attribute<'a> {
    /// Per vertex, floats already converted by the emulator: vertex `i` reads
    /// `data[offset + i * stride ..]`, `components` (1–4) of them; the components it does not
    /// have are (x, y, z) = 0.0, w = 1.0, as the vertex loader fills them.
    Array {
        data: &'a [f32],
        offset: usize,
        stride: usize,
        components: u8,
    },
    /// The same value for every vertex (a fixed or default attribute).
    Fixed(Vec4),
}

impl<'a> Attribute<'a> {
    /// Tightly packed vectors of `components` floats from the start of `data`.
    pub fn packed(data: &'a [f32], components: u8) -> Attribute<'a> {
        Attribute::Array {
            data,
            offset: 0,
            stride: usize::from(components),
            components,
        }
    }
}

/// One output vertex: the rasterizer's 24 semantic slots, by semantic id.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct OutputVertex {
    pub slots: [f32; SEMANTIC_SLOTS],
}

// A draw kernel writes output vertices as arrays of its semantic slots.
const _: () = assert!(SEMANTIC_SLOTS == picajit_codegen::x64::DRAW_SLOTS);

impl OutputVertex {
    /// The vertices as arrays of their slots (what a draw kernel writes): the same memory
    /// (`OutputVertex` is plain data of one `[f32; SEMANTIC_SLOTS]`).
    pub(super) fn as_slots(vertices: &mut [OutputVertex]) -> &mut [[f32; SEMANTIC_SLOTS]] {
        bytemuck::cast_slice_mut(vertices)
    }

    fn group<const N: usize>(&self, first: u8) -> [f32; N] {
        std::array::from_fn(|k| self.slots[usize::from(first) + k])
    }
    /// Position x, y, z, w (ids 0–3).
    pub fn position(&self) -> [f32; 4] {
        self.group(semantic::POSITION)
    }
    /// Normal quaternion x, y, z, w (ids 4–7).
    pub fn quaternion(&self) -> [f32; 4] {
        self.group(semantic::NORMAL_QUAT)
    }
    /// Colour r, g, b, a (ids 8–11), already `min(|c|, 1)`.
    pub fn color(&self) -> [f32; 4] {
        self.group(semantic::COLOR)
    }
    /// Texture coordinate 0 u, v (ids 12–13).
    pub fn texcoord0(&self) -> [f32; 2] {
        self.group(semantic::TEXCOORD0)
    }
    /// Texture coordinate 1 u, v (ids 14–15).
    pub fn texcoord1(&self) -> [f32; 2] {
        self.group(semantic::TEXCOORD1)
    }
    /// Texture coordinate 0 w (id 16).
    pub fn texcoord0_w(&self) -> f32 {
        self.slots[usize::from(semantic::TEXCOORD0_W)]
    }
    /// View vector x, y, z (ids 18–20).
    pub fn view(&self) -> [f32; 3] {
        self.group(semantic::VIEW)
    }
    /// Texture coordinate 2 u, v (ids 22–23).
    pub fn texcoord2(&self) -> [f32; 2] {
        self.group(semantic::TEXCOORD2)
    }
}

/// A draw's results, in buffers reused from draw to draw. Keep one and reuse it: the
/// buffers are the pipeline's to write (callers read them through [`DrawOutput::vertices`]
/// and the other accessors), so what a draw would write exactly as the last one did — the
/// slots the output map fills with constants, the vertex ids and numbers of a range — is
/// not written again.
#[derive(Clone, Debug, Default)]
pub struct DrawOutput {
    /// See [`DrawOutput::vertices`].
    pub(super) vertices: Vec<OutputVertex>,
    /// What `vertices` hold in their constant slots.
    pub(super) constants: Constants,
    /// See [`DrawOutput::indices`].
    pub(super) indices: Numbers,
    /// See [`DrawOutput::windings`].
    pub(super) windings: Vec<bool>,
    /// See [`DrawOutput::vertex_ids`].
    pub(super) vertex_ids: Numbers,
    /// See [`DrawOutput::raw`].
    pub(super) raw: Vec<Regs16>,
    /// Fill [`DrawOutput::raw`].
    pub keep_raw: bool,
}

impl DrawOutput {
    /// Empty buffers; semantic output vertices only.
    pub fn new() -> DrawOutput {
        DrawOutput::default()
    }

    /// Empty buffers; the raw o0–o15 records too.
    pub fn with_raw() -> DrawOutput {
        DrawOutput {
            keep_raw: true,
            ..DrawOutput::default()
        }
    }

    /// Without a geometry shader: for a range, and for a *dense* index list (its smallest to
    /// largest index span at most as many vertices as the list has indices), one per vertex of
    /// that span, in vertex order — vertices no index names included; for a sparser list, one
    /// per unique vertex, in order of first use. [`DrawOutput::vertex_ids`] names them.
    /// With a geometry shader: three per emitted triangle.
    pub fn vertices(&self) -> &[OutputVertex] {
        &self.vertices
    }

    /// Without a geometry shader: per index of the draw, the output vertex it refers to (for
    /// a dense list, the index minus the smallest one).
    /// With one: 0, 1, 2, … (the vertices form a triangle list).
    pub fn indices(&self) -> &[u32] {
        self.indices.list()
    }

    /// With a geometry shader: per triangle, its winding flag (SETEMIT's; Azahar's primitive
    /// assembler then submits the first two vertices swapped). Empty otherwise.
    pub fn windings(&self) -> &[bool] {
        &self.windings
    }

    /// Without a geometry shader: per output vertex, the vertex index it was loaded from.
    pub fn vertex_ids(&self) -> &[u32] {
        self.vertex_ids.list()
    }

    /// When [`DrawOutput::keep_raw`] is on, per output vertex its o0–o15 (0.0 in registers
    /// the shader does not write): for emulators that map outputs themselves.
    pub fn raw(&self) -> &[Regs16] {
        &self.raw
    }

    pub(super) fn clear(&mut self) {
        self.constants.forget();
        self.vertices.clear();
        self.indices.list_mut().clear();
        self.windings.clear();
        self.vertex_ids.list_mut().clear();
        self.raw.clear();
    }
}

/// Why a draw did not run, or which vertex did not finish. Every error but
/// [`DrawError::BudgetExhausted`] is found before any shader runs and leaves the output empty.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DrawError {
    #[error("no {unit:?} shader: no code word has been uploaded to that unit")]
    NoProgram { unit: Unit },
    #[error(
        "input attribute {attribute} is missing: the vertex unit loads {expected} \
         (INPUTBUFFER_CONFIG) and {given} were given"
    )]
    MissingAttribute {
        attribute: usize,
        expected: usize,
        given: usize,
    },
    #[error("input attribute {attribute}: {components} components (an array has 1 to 4)")]
    BadComponents { attribute: usize, components: u8 },
    #[error(
        "input attribute {attribute}: vertex {vertex} reads floats {start}..{end} of an array \
         of {len}"
    )]
    AttributeOutOfBounds {
        attribute: usize,
        vertex: u32,
        start: usize,
        end: usize,
        len: usize,
    },
    #[error("vertex range {first} + {count} passes 2^32")]
    RangeOverflow { first: u32, count: u32 },
    #[error("geometry stage: mode {0} is not point (0), variable (1) or fixed (2) primitive")]
    GeometryMode(u8),
    #[error("geometry stage: variable-primitive mode reads vertex counts from an index list, and this draw has none")]
    VariableNeedsIndices,
    #[error(
        "geometry stage, point mode: {gs_inputs} geometry-shader inputs are not a multiple of \
         the {vs_outputs} vertex-shader outputs per vertex"
    )]
    PointInputs { gs_inputs: usize, vs_outputs: usize },
    #[error(
        "geometry stage, fixed-primitive mode: stride {stride} differs from the {vs_outputs} \
         vertex-shader outputs per vertex"
    )]
    FixedStride { stride: usize, vs_outputs: usize },
    #[error(
        "{unit:?} shader: invocation for vertex index {vertex} exhausted its step budget of \
         {budget} ({count} invocations did; every output is written)"
    )]
    BudgetExhausted {
        unit: Unit,
        vertex: u32,
        count: usize,
        budget: u32,
    },
}
