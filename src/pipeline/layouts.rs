//! What a draw derives from the state that rarely changes between draws, kept from draw to
//! draw: the semantic slot table, its constant slots and the draw kernels' layouts (indexed
//! and stepped). They depend only on the attributes' shape (per register the vertex shader
//! reads: array or fixed value, component count, stride — not the data or offsets), the
//! output registers the shader writes, and the output map and mask — not on which shader it
//! is: a draw whose key equals a kept one's reuses its entry instead of decoding the output
//! map and building the layouts again. Each entry also remembers the draw kernels its last
//! draws ran ([`Memos`]): their code, not their shader.

use picajit_codegen::x64::{DrawLayout, DrawOrder};

use super::constants::{self, Slots};
use super::direct;
use super::semantic::{self, Slot};
use super::vertex::Feed;
use crate::engine::{DrawMemo, Shader};
use crate::pica::{GpuRegs, Unit, SEMANTIC_SLOTS};

/// Entries kept (an emulator alternating a few shaders or vertex formats hits them all).
const ENTRIES: usize = 4;

/// The attributes' shape as the layouts see it (which registers the shader reads included): per input register, the component count the
/// draw kernel loads (0: not read; 4 for a fixed value or an unloaded register) and its
/// array's stride in floats (0 for a fixed value or an unloaded register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    components: [u8; 16],
    strides: [usize; 16],
}

impl Shape {
    fn of(feeds: &[Feed; 16], read: &[u8; 16]) -> Shape {
        let mut shape = Shape {
            components: [0; 16],
            strides: [0; 16],
        };
        for r in 0..16 {
            if read[r] == 0 {
                continue;
            }
            (shape.components[r], shape.strides[r]) = match feeds[r] {
                Feed::Array {
                    components, stride, ..
                } => (components as u8, stride),
                Feed::Zero | Feed::Fixed(_) => (4, 0),
            };
        }
        shape
    }
}

/// What an entry was derived from.
#[derive(Clone, Debug)]
struct Key {
    shape: Shape,
    /// The output registers the shader writes.
    written: u16,
    /// OUTMAP_TOTAL and OUTMAP_O0–O6 as written.
    output_map: [u32; 8],
    output_mask: u16,
}

impl Key {
    fn matches(&self, shape: &Shape, written: u16, map: &[u32; 8], mask: u16) -> bool {
        self.written == written
            && self.shape == *shape
            && self.output_map == *map
            && self.output_mask == mask
    }
}

/// A draw's slot table, constant slots and draw-kernel layouts.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    pub(super) table: [Slot; SEMANTIC_SLOTS],
    pub(super) constants: Slots,
    /// The indexed kernel's layout: of fixed strides when they are small enough for it.
    pub(super) indexed: DrawLayout,
    /// The stepped kernel's layout; `None` if a stride is too large for it.
    pub(super) stepped: Option<DrawLayout>,
}

/// The draw kernels the last draws with an entry's layouts ran, one per layout: a draw whose
/// uniforms pick the same kernels runs them without looking them up.
#[derive(Debug, Default)]
pub(super) struct Memos {
    pub(super) indexed: DrawMemo,
    pub(super) stepped: DrawMemo,
}

/// The kept entries, most recently added last.
#[derive(Debug, Default)]
pub(super) struct Layouts {
    entries: Vec<(Key, Layout, Memos)>,
    /// The slot the next new entry replaces once all are taken.
    next: usize,
}

impl Layouts {
    /// The layout of a vertex-only draw of `vs` with `feeds` under `regs`' output map and
    /// mask, and its memos: a kept entry if one has the same key, else built and kept.
    pub(super) fn get(
        &mut self,
        regs: &GpuRegs,
        vs: &Shader,
        feeds: &[Feed; 16],
    ) -> (&Layout, &mut Memos) {
        let read = vs.input_components();
        let shape = Shape::of(feeds, &read);
        let written = vs.outputs_written();
        let map = regs.output_map_words();
        let mask = regs.output_mask(Unit::Vertex);
        if let Some(i) = self
            .entries
            .iter()
            .position(|(key, ..)| key.matches(&shape, written, &map, mask))
        {
            let (_, layout, memos) = &mut self.entries[i];
            return (layout, memos);
        }
        let table = semantic::table(&regs.output_map(), mask, written);
        let strides = direct::strides(feeds, &read);
        let indexed = strides.map_or(DrawOrder::Indexed, DrawOrder::IndexedStrides);
        let layout = Layout {
            table,
            constants: constants::slots_of(&table),
            indexed: direct::layout(feeds, &read, &table, indexed),
            stepped: strides.map(|s| direct::layout(feeds, &read, &table, DrawOrder::Stepped(s))),
        };
        let key = Key {
            shape,
            written,
            output_map: map,
            output_mask: mask,
        };
        let entry = (key, layout, Memos::default());
        let i = if self.entries.len() < ENTRIES {
            self.entries.push(entry);
            self.entries.len() - 1
        } else {
            let i = self.next;
            self.entries[i] = entry;
            self.next = (i + 1) % ENTRIES;
            i
        };
        let (_, layout, memos) = &mut self.entries[i];
        (layout, memos)
    }
}
