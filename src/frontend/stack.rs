//! [`Bounded`]: the fixed-capacity, drop-oldest stack the abstract control states of
//! [`super::graph`] keep for the interpreter's IF, CALL and LOOP stacks. It lives inline (no
//! allocation), so copying a state's stacks for each successor of a step is a plain copy.

use std::hash::{Hash, Hasher};

/// At most `N` entries, oldest first, stored inline. Slots at and past the length always hold
/// `T::default()`, so the derived equality compares exactly the entries; the hash reads only
/// the entries (equal stacks have equal entries, hence equal hashes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounded<T, const N: usize> {
    items: [T; N],
    len: u8,
}

impl<T: Copy + Default, const N: usize> Default for Bounded<T, N> {
    fn default() -> Self {
        Bounded {
            items: [T::default(); N],
            len: 0,
        }
    }
}

impl<T: Hash, const N: usize> Hash for Bounded<T, N> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.items[..usize::from(self.len)].hash(state);
    }
}

impl<T: Copy + Default, const N: usize> Bounded<T, N> {
    /// The number of entries.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// True if there is no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The newest entry.
    pub fn last(&self) -> Option<&T> {
        self.as_slice().last()
    }

    /// The entries, oldest first.
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len()]
    }

    /// Removes the newest entry, if any.
    pub fn pop(&mut self) {
        if let Some(n) = self.len().checked_sub(1) {
            self.items[n] = T::default();
            self.len -= 1;
        }
    }

    /// Removes the oldest entry if the stack is full.
    pub fn drop_oldest_if_full(&mut self) {
        if self.len() == N {
            self.items.copy_within(1.., 0);
            self.items[N - 1] = T::default();
            self.len -= 1;
        }
    }

    /// Pushes `item`, first dropping the oldest entry if the stack is full (as the
    /// interpreter's bounded stacks do).
    pub fn push(&mut self, item: T) {
        self.drop_oldest_if_full();
        self.items[self.len()] = item;
        self.len += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::Bounded;

    #[test]
    fn a_full_stack_drops_its_oldest_entry_and_pops_restore_equality() {
        let mut s = Bounded::<u32, 3>::default();
        for v in 1..=4 {
            s.push(v);
        }
        assert_eq!(s.as_slice(), [2, 3, 4]);
        assert_eq!(s.last(), Some(&4));
        s.pop();
        s.pop();
        let mut t = Bounded::<u32, 3>::default();
        t.push(2);
        assert_eq!(s, t, "a popped slot holds the default again");
        s.pop();
        s.pop();
        assert!(s.is_empty());
        assert_eq!(s, Bounded::default());
    }
}
