//! The constant groups of an output buffer: a group of four semantic slots that the output
//! map fills with constants only (0.0 or 1.0: a semantic no enabled register feeds) is the
//! same in every vertex of a draw, and in every draw of the same (shader, output map). Draw
//! kernels and the record path's output map never store such groups; the buffer fills them
//! here when it grows or when the constants change, and otherwise keeps them from draw to
//! draw. The geometry stage makes the buffer forget.

use super::semantic::{clamp_color, Slot};
use super::types::OutputVertex;
use crate::pica::{semantic, SEMANTIC_SLOTS};

/// Groups of four slots in an output vertex.
const GROUPS: usize = SEMANTIC_SLOTS / 4;

/// Per group of four slots: its four constants (as bits, the colour's clamped), or `None`
/// if the group holds computed slots.
pub(super) type Groups = [Option<[u32; 4]>; GROUPS];

/// What the first [`Constants::filled`] vertices of a buffer hold in their constant groups.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Constants {
    groups: Groups,
    /// Vertices from the start of the buffer whose constant groups are `groups`.
    filled: usize,
}

/// The constant groups of `table` (colour as `min(|c|, 1)`).
pub(super) fn groups_of(table: &[Slot; SEMANTIC_SLOTS]) -> Groups {
    let color = usize::from(semantic::COLOR) / 4;
    std::array::from_fn(|g| {
        let mut row = [0u32; 4];
        for (k, bits) in row.iter_mut().enumerate() {
            let Slot::Const(x) = table[g * 4 + k] else {
                return None;
            };
            *bits = if g == color { clamp_color(x) } else { x }.to_bits();
        }
        Some(row)
    })
}

impl Constants {
    /// Resizes `vertices` to `len` with every constant group of `want` (a table's
    /// [`groups_of`]) in place in all of them: only the vertices (and groups) that do not hold
    /// it already are written.
    pub(super) fn resize(&mut self, vertices: &mut Vec<OutputVertex>, len: usize, want: &Groups) {
        let want = *want;
        let kept = self.filled.min(vertices.len()).min(len);
        vertices.resize(
            len,
            OutputVertex {
                slots: [0.0; SEMANTIC_SLOTS],
            },
        );
        for (g, row) in want.iter().enumerate() {
            let Some(row) = row else { continue };
            let from = if self.groups[g] == Some(*row) {
                kept
            } else {
                0
            };
            let row = row.map(f32::from_bits);
            for v in &mut vertices[from..] {
                v.slots[g * 4..g * 4 + 4].copy_from_slice(&row);
            }
        }
        *self = Constants {
            groups: want,
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
    fn constant_groups_are_filled_once_and_refilled_when_they_change() {
        let mut c = Constants::default();
        let mut v = Vec::new();
        c.resize(&mut v, 3, &groups_of(&table(true)));
        assert!(v
            .iter()
            .all(|v| v.slots[8..12] == [1.0; 4] && v.slots[0..4] == [0.0; 4]));
        // Computed slots are the kernel's: a kept constant group is not rewritten.
        v[1].slots[0] = 7.0;
        v[2].slots[20] = 9.0;
        c.resize(&mut v, 5, &groups_of(&table(true)));
        assert_eq!((v[1].slots[0], v[2].slots[20]), (7.0, 9.0));
        assert!(v[3..].iter().all(|v| v.slots[8..12] == [1.0; 4]));
        // New constants for the colour: every vertex gets them.
        c.resize(&mut v, 5, &groups_of(&table(false)));
        assert!(v.iter().all(|v| v.slots[8..12] == [0.0; 4]));
        // After a truncation, vertices that grow back are filled again.
        c.truncate(&mut v, 1);
        c.resize(&mut v, 2, &groups_of(&table(false)));
        v[0].slots[20] = 0.0;
        c.forget();
        v[1].slots[9] = 5.0;
        c.resize(&mut v, 2, &groups_of(&table(false)));
        assert_eq!(v[1].slots[9], 0.0);
    }
}
