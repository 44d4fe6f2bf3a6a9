//! The constant slots of an output buffer: a semantic slot that the output map fills with a
//! constant (0.0 or 1.0: a semantic no enabled register feeds, or a register the shader never
//! writes) is the same in every vertex of a draw, and in every draw of the same (shader,
//! output map). Draw kernels may leave such slots unwritten (they never write a group of four
//! of them, nor the constant slots of a group they copy from an attribute array), and the
//! record path's output map never stores a group of four of them; the buffer fills them here
//! when it grows or when the constants change, and otherwise keeps them from draw to draw.
//! The geometry stage makes the buffer forget.

use super::semantic::{clamp_color, Slot};
use super::types::OutputVertex;
use crate::pica::{semantic, SEMANTIC_SLOTS};

/// Per semantic slot: its constant (as bits, the colour's clamped), or `None` for a computed
/// slot.
pub(super) type Slots = [Option<u32>; SEMANTIC_SLOTS];

/// What the first [`Constants::filled`] vertices of a buffer hold in their constant slots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Constants {
    slots: Slots,
    /// Vertices from the start of the buffer whose constant slots are `slots`.
    filled: usize,
}

impl Default for Constants {
    fn default() -> Self {
        Constants {
            slots: [None; SEMANTIC_SLOTS],
            filled: 0,
        }
    }
}

/// The constant slots of `table` (colour as `min(|c|, 1)`).
pub(super) fn slots_of(table: &[Slot; SEMANTIC_SLOTS]) -> Slots {
    let color = usize::from(semantic::COLOR);
    std::array::from_fn(|s| match table[s] {
        Slot::Const(x) if (color..color + 4).contains(&s) => Some(clamp_color(x).to_bits()),
        Slot::Const(x) => Some(x.to_bits()),
        Slot::Reg(..) => None,
    })
}

impl Constants {
    /// Resizes `vertices` to `len` with every constant slot of `want` (a table's
    /// [`slots_of`]) in place in all of them: only the vertices (and slots) that do not hold
    /// it already are written.
    pub(super) fn resize(&mut self, vertices: &mut Vec<OutputVertex>, len: usize, want: &Slots) {
        // The common case, a draw of as many vertices as the last one with the same table:
        // nothing to write (a compare of the tables instead of a pass over the slots).
        if vertices.len() == len && self.filled >= len && self.slots == *want {
            self.filled = len;
            return;
        }
        let want = *want;
        let kept = self.filled.min(vertices.len()).min(len);
        vertices.resize(
            len,
            OutputVertex {
                slots: [0.0; SEMANTIC_SLOTS],
            },
        );
        for (s, bits) in want.iter().enumerate() {
            let Some(bits) = *bits else { continue };
            let from = if self.slots[s] == Some(bits) { kept } else { 0 };
            let x = f32::from_bits(bits);
            for v in &mut vertices[from..] {
                v.slots[s] = x;
            }
        }
        *self = Constants {
            slots: want,
            filled: len,
        };
    }

    /// Truncates `vertices` to `len` (the vertices past it are gone).
    pub(super) fn truncate(&mut self, vertices: &mut Vec<OutputVertex>, len: usize) {
        vertices.truncate(len);
        self.filled = self.filled.min(len);
    }

    /// The buffer's vertices are about to be written by a path that does not keep this
    /// record.
    pub(super) fn forget(&mut self) {
        self.filled = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(one: bool) -> [Slot; SEMANTIC_SLOTS] {
        std::array::from_fn(|s| match s {
            0..4 => Slot::Reg(0, s as u8),
            8..12 if one => Slot::Const(1.0),
            _ => Slot::Const(0.0),
        })
    }

    #[test]
    fn constant_slots_are_filled_once_and_refilled_when_they_change() {
        let mut c = Constants::default();
        let mut v = Vec::new();
        c.resize(&mut v, 3, &slots_of(&table(true)));
        assert!(v
            .iter()
            .all(|v| v.slots[8..12] == [1.0; 4] && v.slots[0..4] == [0.0; 4]));
        // Computed slots are the kernel's: a kept constant slot is not rewritten.
        v[1].slots[0] = 7.0;
        v[2].slots[20] = 9.0;
        c.resize(&mut v, 5, &slots_of(&table(true)));
        assert_eq!((v[1].slots[0], v[2].slots[20]), (7.0, 9.0));
        assert!(v[3..].iter().all(|v| v.slots[8..12] == [1.0; 4]));
        // The same length and table again: nothing is written.
        v[4].slots[3] = 6.0;
        c.resize(&mut v, 5, &slots_of(&table(true)));
        assert_eq!(
            (v[1].slots[0], v[2].slots[20], v[4].slots[3]),
            (7.0, 9.0, 6.0)
        );
        assert!(v.iter().all(|v| v.slots[8..12] == [1.0; 4]));
        // New constants for the colour: every vertex gets them.
        c.resize(&mut v, 5, &slots_of(&table(false)));
        assert!(v.iter().all(|v| v.slots[8..12] == [0.0; 4]));
        // After a truncation, vertices that grow back are filled again.
        c.truncate(&mut v, 1);
        c.resize(&mut v, 2, &slots_of(&table(false)));
        v[0].slots[20] = 0.0;
        c.forget();
        v[1].slots[9] = 5.0;
        c.resize(&mut v, 2, &slots_of(&table(false)));
        assert_eq!(v[1].slots[9], 0.0);
    }
}
