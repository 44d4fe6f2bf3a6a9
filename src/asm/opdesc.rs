//! The operand-descriptor table, built the way picasso builds it: each instruction asks for a
//! descriptor value together with the bits it depends on ([`care_bits`](super::syntax::care_bits));
//! the first entry that agrees on every bit both depend on is shared (and takes over the new
//! instruction's bits), otherwise a new entry is appended (at most 128). MAD/MADI can only
//! address entries 0–31: when their entry lands higher it is swapped with the lowest entry no
//! MAD uses, and the instructions already emitted are renumbered.
//!
//! Extension: `.opdesc` pins the table. A pinned table is used as given — nothing is added or
//! merged — and each instruction takes the entry named with `@N` or the first entry that agrees
//! with it on the bits it depends on.

/// The most entries picasso's table holds.
pub(crate) const LIMIT: usize = 128;

/// Why no descriptor could be given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DescError {
    /// The table already holds [`LIMIT`] entries.
    Full,
    /// Entries 0–31 are all taken by MAD instructions.
    MadFull,
    /// A pinned table has no entry that fits.
    NoMatch,
    /// `@N` names an entry that does not fit (or does not exist).
    Mismatch { index: usize, entry: Option<u32> },
    /// `@N` was given without a pinned table.
    NotPinned,
}

/// The table being built.
#[derive(Clone, Debug, Default)]
pub(crate) struct DescTable {
    pub words: Vec<u32>,
    cares: Vec<u32>,
    mad_used: u32,
    pinned: bool,
}

/// A renumbering the caller must apply to emitted instructions: entries `a` and `b` swapped.
pub(crate) type Swap = (usize, usize);

impl DescTable {
    /// Appends a pinned entry. Fails if entries were already allocated automatically.
    pub fn pin(&mut self, word: u32) -> Result<(), ()> {
        if !self.pinned && !self.words.is_empty() {
            return Err(());
        }
        self.pinned = true;
        self.words.push(word);
        self.cares.push(u32::MAX);
        Ok(())
    }

    /// The entry for a non-MAD instruction wanting `want` on the bits in `care`.
    pub fn get(
        &mut self,
        want: u32,
        care: u32,
        explicit: Option<usize>,
    ) -> Result<usize, DescError> {
        if self.pinned {
            return self.pinned_lookup(want, care, explicit, self.words.len());
        }
        if explicit.is_some() {
            return Err(DescError::NotPinned);
        }
        self.find_or_add(want, care)
    }

    /// The entry for a MAD/MADI instruction, below 32, and the swap to apply to the instructions
    /// already emitted (if one was needed).
    pub fn get_mad(
        &mut self,
        want: u32,
        care: u32,
        explicit: Option<usize>,
    ) -> Result<(usize, Option<Swap>), DescError> {
        if self.pinned {
            return self
                .pinned_lookup(want, care, explicit, 32)
                .map(|i| (i, None));
        }
        if explicit.is_some() {
            return Err(DescError::NotPinned);
        }
        let mut index = self.find_or_add(want, care)?;
        let mut swap = None;
        if index >= 32 {
            let free = (0..32)
                .find(|&i| self.mad_used & (1 << i) == 0)
                .ok_or(DescError::MadFull)?;
            self.words.swap(free, index);
            self.cares.swap(free, index);
            swap = Some((free, index));
            index = free;
        }
        self.mad_used |= 1 << index;
        Ok((index, swap))
    }

    fn find_or_add(&mut self, want: u32, care: u32) -> Result<usize, DescError> {
        for i in 0..self.words.len() {
            let both = care & self.cares[i];
            if want & both == self.words[i] & both {
                self.words[i] = (self.words[i] & !care) | (want & care);
                self.cares[i] |= care;
                return Ok(i);
            }
        }
        if self.words.len() == LIMIT {
            return Err(DescError::Full);
        }
        self.words.push(want);
        self.cares.push(care);
        Ok(self.words.len() - 1)
    }

    fn pinned_lookup(
        &self,
        want: u32,
        care: u32,
        explicit: Option<usize>,
        limit: usize,
    ) -> Result<usize, DescError> {
        let fits =
            |i: usize| i < limit && self.words.get(i).is_some_and(|&w| w & care == want & care);
        match explicit {
            Some(i) if fits(i) => Ok(i),
            Some(i) => Err(DescError::Mismatch {
                index: i,
                entry: self.words.get(i).copied(),
            }),
            None => (0..self.words.len())
                .find(|&i| fits(i))
                .ok_or(DescError::NoMatch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_on_common_bits_and_merges() {
        let mut t = DescTable::default();
        assert_eq!(t.get(0x10, 0xF0, None), Ok(0));
        // Agrees on 0xF0, adds bit 0x1 it also cares about.
        assert_eq!(t.get(0x11, 0xFF, None), Ok(0));
        assert_eq!(t.words, vec![0x11]);
        // Disagrees on bit 0x1 (cared by entry 0 now): new entry.
        assert_eq!(t.get(0x10, 0x0F, None), Ok(1));
        // Cares about nothing: first entry.
        assert_eq!(t.get(0xAB, 0, None), Ok(0));
        assert_eq!(t.words, vec![0x11, 0x10]);
    }

    #[test]
    fn mad_swaps_into_the_low_32() {
        let mut t = DescTable::default();
        for i in 0..40u32 {
            assert_eq!(t.get(i, u32::MAX, None), Ok(i as usize));
        }
        assert_eq!(t.get_mad(7, u32::MAX, None), Ok((7, None)));
        // A new value lands at 40, is swapped with entry 0 (the lowest not used by a MAD).
        assert_eq!(t.get_mad(1000, u32::MAX, None), Ok((0, Some((0, 40)))));
        assert_eq!((t.words[0], t.words[40]), (1000, 0));
        assert_eq!(t.get(1000, u32::MAX, None), Ok(0));
    }

    #[test]
    fn pinned_tables_are_used_as_given() {
        let mut t = DescTable::default();
        t.pin(0x5).unwrap();
        t.pin(0x6).unwrap();
        assert_eq!(t.get(0x6, 0xF, None), Ok(1));
        assert_eq!(t.get(0x4, 0x4, None), Ok(0));
        assert_eq!(t.get(0x4, 0x4, Some(1)), Ok(1));
        assert_eq!(t.get(0x8, 0xF, None), Err(DescError::NoMatch));
        assert_eq!(
            t.get(0x1, 0x1, Some(1)),
            Err(DescError::Mismatch {
                index: 1,
                entry: Some(6)
            })
        );
        assert_eq!(t.words, vec![5, 6]);
        let mut auto = DescTable::default();
        auto.get(1, 1, None).unwrap();
        assert_eq!(auto.pin(3), Err(()));
        assert_eq!(auto.get(1, 1, Some(0)), Err(DescError::NotPinned));
    }
}
