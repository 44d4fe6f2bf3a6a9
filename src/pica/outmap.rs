//! The rasterizer's output map: output registers enabled by a unit's OUTMAP_MASK
//! are compacted into attribute slots 0, 1, 2…; OUTMAP_O0–O6 give each slot's components a
//! semantic id, and an output vertex is the 24 semantic slots (position, normal quaternion,
//! colour, texture coordinates, view) in that order.

use crate::shbin::{Dvle, OutputSemantic};

/// Semantic slots of an output vertex (ids 0–23; id 17 and 21 are padding).
pub const SEMANTIC_SLOTS: usize = 24;

/// The first semantic id of each semantic (Azahar's `OutputVertex` layout).
pub mod semantic {
    /// x, y, z, w: ids 0–3.
    pub const POSITION: u8 = 0;
    /// x, y, z, w: ids 4–7.
    pub const NORMAL_QUAT: u8 = 4;
    /// r, g, b, a: ids 8–11 (clamped to `min(|c|, 1)` in output vertices).
    pub const COLOR: u8 = 8;
    /// u, v: ids 12–13.
    pub const TEXCOORD0: u8 = 12;
    /// u, v: ids 14–15.
    pub const TEXCOORD1: u8 = 14;
    /// w: id 16.
    pub const TEXCOORD0_W: u8 = 16;
    /// x, y, z: ids 18–20.
    pub const VIEW: u8 = 18;
    /// u, v: ids 22–23.
    pub const TEXCOORD2: u8 = 22;
    /// A component mapped nowhere.
    pub const UNUSED: u8 = 31;
}

/// Where one semantic slot of an output vertex comes from ([`OutputMap::sources`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SemanticSource {
    /// Component `comp` of output register `reg`.
    Output { reg: u8, comp: u8 },
    /// An attribute slot past the enabled output registers: 0.0 (hardware: undocumented;
    /// Azahar passes whatever its attribute buffer held).
    Zero,
    /// No attribute slot names this semantic: 1.0, as hardware tests showed.
    One,
}

/// OUTMAP_TOTAL and OUTMAP_O0–O6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct OutputMap {
    /// Attribute slots the rasterizer reads (0–7).
    pub count: u8,
    /// Per slot, the semantic id of components x, y, z, w (0–31).
    pub slots: [[u8; 4]; 7],
}

impl OutputMap {
    /// Where each semantic slot comes from, given the output mask of the unit that produced
    /// the vertex (its enabled output registers, compacted in ascending order, are attribute
    /// slots 0, 1, …). Slots are processed in order and components x..w, so when two
    /// components name one semantic the later wins (as in Azahar); ids 24–31 are written
    /// nowhere.
    pub fn sources(&self, output_mask: u16) -> [SemanticSource; SEMANTIC_SLOTS] {
        // The enabled registers in ascending order (slot j takes the j-th).
        let mut registers = [0u8; 16];
        let mut enabled = 0;
        for r in (0..16).filter(|r| output_mask >> r & 1 != 0) {
            registers[enabled] = r;
            enabled += 1;
        }
        let registers = &registers[..enabled];
        let mut sources = [SemanticSource::One; SEMANTIC_SLOTS];
        for (j, ids) in self.slots.iter().enumerate().take(usize::from(self.count)) {
            for (c, &id) in ids.iter().enumerate() {
                if let Some(slot) = sources.get_mut(usize::from(id)) {
                    *slot = match registers.get(j) {
                        Some(&reg) => SemanticSource::Output { reg, comp: c as u8 },
                        None => SemanticSource::Zero,
                    };
                }
            }
        }
        sources
    }

    /// The map and output mask picasso's output table implies, built the way libctru's
    /// `DVLE_GenerateOutmap` builds it: each declared register is enabled; its masked
    /// components take consecutive ids of their semantic (position 4, normal quaternion 4,
    /// colour 4, texcoord0/1/2 2, texcoord0w 1, view 3; dummy and unknown types map nothing).
    /// Unlike libctru, which indexes OUTMAP by register number, slots follow the compacted
    /// order the hardware uses, so a non-contiguous mask maps correctly.
    pub fn from_dvle(dvle: &Dvle) -> (OutputMap, u16) {
        let mut mask = 0u16;
        let mut by_reg = [[semantic::UNUSED; 4]; 16];
        for out in &dvle.outputs {
            let reg = usize::from(out.reg & 15);
            mask |= 1 << reg;
            let (base, num) = match out.semantic {
                OutputSemantic::Position => (semantic::POSITION, 4),
                OutputSemantic::NormalQuat => (semantic::NORMAL_QUAT, 4),
                OutputSemantic::Color => (semantic::COLOR, 4),
                OutputSemantic::TexCoord0 => (semantic::TEXCOORD0, 2),
                OutputSemantic::TexCoord0W => (semantic::TEXCOORD0_W, 1),
                OutputSemantic::TexCoord1 => (semantic::TEXCOORD1, 2),
                OutputSemantic::TexCoord2 => (semantic::TEXCOORD2, 2),
                OutputSemantic::View => (semantic::VIEW, 3),
                OutputSemantic::Dummy | OutputSemantic::Unknown(_) => continue,
            };
            let components = (0..4).filter(|c| out.mask >> c & 1 != 0).take(num);
            for (id, c) in (base..).zip(components) {
                by_reg[reg][c] = id;
            }
        }
        let mut map = OutputMap::default();
        for (j, reg) in (0..16).filter(|r| mask >> r & 1 != 0).enumerate() {
            if let Some(slot) = map.slots.get_mut(j) {
                *slot = by_reg[reg];
                map.count += 1;
            }
        }
        (map, mask)
    }
}
