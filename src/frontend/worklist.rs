//! A worklist of small numbers taken lowest first, as a row of bits: the block and state
//! worklists of the frontend's forward analyses (uniformity, the lane schedule's frontiers),
//! which visit in creation or priority order so that most items run after their predecessors.
//! A bit per item and a cursor replace a binary heap: listing and taking cost a few
//! instructions, and an item already listed is not listed twice.

/// Numbers below a bound waiting to be taken, lowest first.
pub(super) struct Worklist {
    bits: Vec<u64>,
    /// No word below this one holds a bit.
    low: usize,
}

impl Worklist {
    /// An empty list of numbers below `n`.
    pub(super) fn new(n: usize) -> Worklist {
        Worklist {
            bits: vec![0; n.div_ceil(64)],
            low: 0,
        }
    }

    /// Lists `x` (nothing if it is listed already).
    pub(super) fn push(&mut self, x: usize) {
        self.bits[x / 64] |= 1 << (x % 64);
        self.low = self.low.min(x / 64);
    }

    /// The lowest number listed, taken off the list.
    pub(super) fn pop(&mut self) -> Option<usize> {
        while let Some(w) = self.bits.get_mut(self.low) {
            if *w != 0 {
                let bit = w.trailing_zeros() as usize;
                *w &= *w - 1;
                return Some(self.low * 64 + bit);
            }
            self.low += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::Worklist;

    #[test]
    fn takes_the_lowest_first_and_each_once() {
        let mut work = Worklist::new(200);
        for x in [130, 5, 64, 5, 199, 0, 130] {
            work.push(x);
        }
        assert_eq!(work.pop(), Some(0));
        assert_eq!(work.pop(), Some(5));
        // Listed below the cursor: still taken first.
        work.push(3);
        assert_eq!(work.pop(), Some(3));
        assert_eq!(work.pop(), Some(64));
        assert_eq!(work.pop(), Some(130));
        assert_eq!(work.pop(), Some(199));
        assert_eq!(work.pop(), None);
        work.push(63);
        assert_eq!(work.pop(), Some(63));
        assert_eq!(work.pop(), None);
    }

    #[test]
    fn agrees_with_a_sorted_set() {
        // Pushes and pops interleaved by a fixed pattern, against a BTreeSet.
        let mut work = Worklist::new(300);
        let mut reference = std::collections::BTreeSet::new();
        let mut x = 17usize;
        for step in 0..2000 {
            x = (x * 73 + 41) % 300;
            if step % 3 == 2 {
                let want = reference.pop_first();
                assert_eq!(work.pop(), want);
            } else {
                work.push(x);
                reference.insert(x);
            }
        }
        while let Some(want) = reference.pop_first() {
            assert_eq!(work.pop(), Some(want));
        }
        assert_eq!(work.pop(), None);
    }
}
