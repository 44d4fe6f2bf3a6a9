//! Which lanes of a batch one attribute row of a draw kernel holds, and at which tier it is
//! moved: the transposing loads put lanes k, k + 4, k + 8… in the 128-bit segments of a
//! full-width register; AVX-512 copies of whole input registers to output vertices move two
//! neighbouring lanes at a time in a ymm register instead (see [`RowLanes::copies`]).

use super::asm::Tier;

/// Lanes `first`, `first + step`, … in the 128-bit segments 0, 1, … of a register moved at
/// `tier` (its segment count says how many).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RowLanes {
    pub tier: Tier,
    first: usize,
    step: usize,
}

impl RowLanes {
    /// Row `k` (0–3) of a transpose at `tier`: lanes k, k + 4, k + 8, k + 12.
    pub fn rows(tier: Tier, k: usize) -> RowLanes {
        RowLanes {
            tier,
            first: k,
            step: 4,
        }
    }

    /// The rows a kernel at `tier` copies an input register to its vertices by, one lane per
    /// 128-bit segment, every lane of the batch once. AVX-512 takes lanes 2j and 2j + 1 in a
    /// ymm register (VEX): on Zen 4 that is faster than zmm rows built and split by 128-bit
    /// inserts and extracts (the MVP draw's colour 0.2 ns per vertex less), the other tiers
    /// their transpose rows.
    pub fn copies(tier: Tier) -> impl Iterator<Item = RowLanes> {
        // (tier moved at, rows, first lane of row k = k * spacing, lane step)
        let (tier, rows, spacing, step) = match tier {
            Tier::Avx512 => (Tier::Avx2, 8, 2, 1),
            Tier::Avx2 | Tier::Sse41 => (tier, 4, 1, 4),
        };
        (0..rows).map(move |k| RowLanes {
            tier,
            first: k * spacing,
            step,
        })
    }

    /// The lane in segment `s`.
    pub fn lane(self, s: usize) -> usize {
        self.first + s * self.step
    }
}
