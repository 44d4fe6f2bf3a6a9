//! Output planes → output vertices in semantic order (the rasterizer's output map, [`crate::pica`]): each of the 24 semantic
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

/// How a group of four semantic slots (position, quaternion, colour, texcoords 0 and 1,
/// texcoord0 w with view x, view y z with texcoord 2) is filled from an output record.
#[derive(Clone, Copy, Debug)]
enum Recipe {
    /// Four constants (filled by the caller).
    Const,
    /// Output register `r`, x y z w in order: one vector copy.
    Whole(usize),
    /// Anything else, slot by slot.
    Slots([Slot; 4]),
}

/// The recipes of `table`.
fn recipes(table: &[Slot; SEMANTIC_SLOTS]) -> [Recipe; 6] {
    std::array::from_fn(|g| {
        let slots: [Slot; 4] = std::array::from_fn(|k| table[g * 4 + k]);
        match slots {
            [Slot::Const(_), Slot::Const(_), Slot::Const(_), Slot::Const(_)] => Recipe::Const,
            [Slot::Reg(r, 0), Slot::Reg(r1, 1), Slot::Reg(r2, 2), Slot::Reg(r3, 3)]
                if r == r1 && r == r2 && r == r3 =>
            {
                Recipe::Whole(usize::from(r))
            }
            _ => Recipe::Slots(slots),
        }
    })
}

/// Writes `out[j]` from the output record `records[j]`: group by group over the chunk (the
/// chunk's vertices stay in L1), each group a vector copy or slot by slot; colour as
/// `min(|c|, 1)`. Groups of four constants are left as they are: the caller fills them
/// (`super::constants`), once per output buffer rather than once per draw.
pub(super) fn write_vertices(
    table: &[Slot; SEMANTIC_SLOTS],
    records: &[Regs16],
    out: &mut [OutputVertex],
) {
    let out = &mut out[..records.len()];
    for (g, recipe) in recipes(table).iter().enumerate() {
        match g {
            0 => fill::<0, false>(recipe, records, out),
            1 => fill::<1, false>(recipe, records, out),
            2 => fill::<2, true>(recipe, records, out),
            3 => fill::<3, false>(recipe, records, out),
            4 => fill::<4, false>(recipe, records, out),
            _ => fill::<5, false>(recipe, records, out),
        }
    }
}

/// Slots `4 G .. 4 G + 4` of `v`.
fn slots<const G: usize>(v: &mut OutputVertex) -> &mut [f32] {
    &mut v.slots[G * 4..G * 4 + 4]
}

/// Slots `4 G .. 4 G + 4` of every vertex of `out` by `recipe`, as `min(|c|, 1)` if `CLAMP`.
fn fill<const G: usize, const CLAMP: bool>(
    recipe: &Recipe,
    records: &[Regs16],
    out: &mut [OutputVertex],
) {
    let map = |q: [f32; 4]| if CLAMP { q.map(clamp_color) } else { q };
    match *recipe {
        // The caller's (see `write_vertices`).
        Recipe::Const => {}
        Recipe::Whole(r) => {
            for (v, rec) in out.iter_mut().zip(records) {
                slots::<G>(v).copy_from_slice(&map(rec[r & 15]));
            }
        }
        Recipe::Slots(sources) => {
            for (v, rec) in out.iter_mut().zip(records) {
                let q = sources.map(|s| match s {
                    Slot::Reg(r, c) => rec[usize::from(r & 15)][usize::from(c & 3)],
                    Slot::Const(x) => x,
                });
                slots::<G>(v).copy_from_slice(&map(q));
            }
        }
    }
}

/// Writes the raw records `out[j]` from the output records: the registers in `written`, 0.0
/// in the others.
pub(super) fn write_raw(written: u16, records: &[Regs16], out: &mut [Regs16]) {
    for (regs, rec) in out.iter_mut().zip(records) {
        for (r, (reg, &value)) in regs.iter_mut().zip(rec).enumerate() {
            *reg = if written >> r & 1 != 0 {
                value
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
