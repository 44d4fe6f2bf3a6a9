//! Output planes → output vertices in semantic order (survey §7): each of the 24 semantic
//! slots takes its register component, 0.0 or 1.0, colour becomes `min(|c|, 1)`; and the raw
//! o0–o15 records for emulators that map outputs themselves.

use super::types::OutputVertex;
use crate::pica::{semantic, OutputMap, SemanticSource, SEMANTIC_SLOTS};
use crate::program::Regs16;

/// Where each semantic slot of an output vertex comes from, for one unit's outputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Slot {
    /// Component `comp` of output register `reg`.
    Reg(u8, u8),
    /// A constant: 1.0 for a slot nothing maps, 0.0 for a register the shader never writes
    /// (every invocation starts with zeroed outputs) or an attribute slot past the enabled
    /// registers.
    Const(f32),
}

/// The slot table of a unit whose enabled outputs are `mask` and which writes `written`.
pub(super) fn table(map: &OutputMap, mask: u16, written: u16) -> [Slot; SEMANTIC_SLOTS] {
    map.sources(mask).map(|s| match s {
        SemanticSource::Output { reg, comp } if written >> reg & 1 != 0 => Slot::Reg(reg, comp),
        SemanticSource::Output { .. } | SemanticSource::Zero => Slot::Const(0.0),
        SemanticSource::One => Slot::Const(1.0),
    })
}

/// Colour components as the rasterizer takes them: `|c|` below 1.0, else 1.0 (NaN → 1.0).
pub(super) fn clamp_color(c: f32) -> f32 {
    let a = c.abs();
    if a < 1.0 {
        a
    } else {
        1.0
    }
}

/// Writes `out[j]` from lane `j` of the output planes (`plane(k)` = register k / 4,
/// component k % 4, `n` lanes): each vertex whole, from a template holding the constant
/// slots, then its mapped slots from the planes (one pass over the vertices, each written
/// once while it is in cache).
pub(super) fn write_vertices(
    table: &[Slot; SEMANTIC_SLOTS],
    planes: &[f32],
    n: usize,
    out: &mut [OutputVertex],
) {
    let color = usize::from(semantic::COLOR)..usize::from(semantic::COLOR) + 4;
    let mut template = OutputVertex {
        slots: [0.0; SEMANTIC_SLOTS],
    };
    let mut plain: Vec<(usize, &[f32])> = Vec::new();
    let mut colors: Vec<(usize, &[f32])> = Vec::new();
    for (s, slot) in table.iter().enumerate() {
        match *slot {
            Slot::Const(x) => {
                template.slots[s] = if color.contains(&s) {
                    clamp_color(x)
                } else {
                    x
                };
            }
            Slot::Reg(reg, comp) => {
                let k = usize::from(reg) * 4 + usize::from(comp);
                let plane = &planes[k * n..k * n + n];
                if color.contains(&s) {
                    colors.push((s, plane));
                } else {
                    plain.push((s, plane));
                }
            }
        }
    }
    for (j, v) in out.iter_mut().enumerate().take(n) {
        *v = template;
        for &(s, plane) in &plain {
            v.slots[s] = plane[j];
        }
        for &(s, plane) in &colors {
            v.slots[s] = clamp_color(plane[j]);
        }
    }
}

/// Writes the raw records `out[j]` from lane `j` of the output planes: the registers in
/// `written`, 0.0 in the others.
pub(super) fn write_raw(written: u16, planes: &[f32], n: usize, out: &mut [Regs16]) {
    for (j, regs) in out.iter_mut().enumerate() {
        for (r, reg) in regs.iter_mut().enumerate() {
            *reg = if written >> r & 1 != 0 {
                std::array::from_fn(|c| planes[(r * 4 + c) * n + j])
            } else {
                [0.0; 4]
            };
        }
    }
}

/// One output vertex from a register record (the geometry stage's emitted vertices).
pub(super) fn vertex_of(table: &[Slot; SEMANTIC_SLOTS], regs: &Regs16) -> OutputVertex {
    let color = usize::from(semantic::COLOR);
    OutputVertex {
        slots: std::array::from_fn(|s| {
            let x = match table[s] {
                Slot::Reg(r, c) => regs[usize::from(r)][usize::from(c)],
                Slot::Const(x) => x,
            };
            if (color..color + 4).contains(&s) {
                clamp_color(x)
            } else {
                x
            }
        }),
    }
}
