//! A set of small numbers per row (per block, per state), as rows of bits in one array: the
//! dense sets of the frontend's analyses (uniformity's live and varying variables, the lane
//! schedule's frontiers), where one heap set per row would cost an allocation and a pointer
//! chase on every test.

/// `rows` sets of numbers below `universe`, all empty at first. The array is allocated zeroed,
/// so the pages of rows never written cost nothing.
pub(super) struct Rows {
    /// Words per row.
    width: usize,
    words: Vec<u64>,
}

impl Rows {
    pub(super) fn new(rows: usize, universe: usize) -> Rows {
        let width = universe.div_ceil(64);
        Rows {
            width,
            words: vec![0; rows * width],
        }
    }

    /// Words per row.
    pub(super) fn width(&self) -> usize {
        self.width
    }

    /// Row `r` as words of bits (bit `x % 64` of word `x / 64` for member `x`).
    pub(super) fn row(&self, r: usize) -> &[u64] {
        &self.words[r * self.width..(r + 1) * self.width]
    }

    /// Row `r` as words of bits, to change.
    pub(super) fn row_mut(&mut self, r: usize) -> &mut [u64] {
        &mut self.words[r * self.width..(r + 1) * self.width]
    }

    /// True if `x` is in row `r`.
    pub(super) fn contains(&self, r: usize, x: u32) -> bool {
        self.words[r * self.width + x as usize / 64] >> (x % 64) & 1 != 0
    }

    /// Adds `x` to row `r`; true if it was not there.
    pub(super) fn insert(&mut self, r: usize, x: u32) -> bool {
        let w = &mut self.words[r * self.width + x as usize / 64];
        let bit = 1u64 << (x % 64);
        let fresh = *w & bit == 0;
        *w |= bit;
        fresh
    }

    /// The members of row `r`, ascending.
    #[cfg(test)]
    pub(super) fn iter(&self, r: usize) -> impl Iterator<Item = u32> + '_ {
        self.row(r).iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let bit = w.trailing_zeros();
                    w &= w - 1;
                    i as u32 * 64 + bit
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Rows;

    #[test]
    fn rows_hold_their_own_members() {
        let mut rows = Rows::new(3, 130);
        assert!(rows.insert(1, 0));
        assert!(rows.insert(1, 129));
        assert!(rows.insert(1, 64));
        assert!(!rows.insert(1, 64));
        assert!(rows.insert(2, 63));
        assert_eq!(rows.iter(0).count(), 0);
        assert_eq!(rows.iter(1).collect::<Vec<_>>(), [0, 64, 129]);
        assert_eq!(rows.iter(2).collect::<Vec<_>>(), [63]);
        assert!(rows.contains(1, 129) && !rows.contains(0, 129) && !rows.contains(2, 64));
    }

    #[test]
    fn rows_as_words_are_their_members() {
        let mut rows = Rows::new(2, 130);
        assert_eq!(rows.width(), 3);
        rows.insert(1, 65);
        assert_eq!(rows.row(1), [0, 2, 0]);
        assert_eq!(rows.row(0), [0, 0, 0]);
        rows.row_mut(0)[2] = 1 << 1;
        assert_eq!(rows.iter(0).collect::<Vec<_>>(), [129]);
        assert!(rows.contains(0, 129) && !rows.contains(1, 129));
    }
}
