//! A fixed-capacity bit set of variables.

use crate::ir::Var;

/// A set of [`Var`]s as a bit set that grows on demand (so a set of low-numbered variables
/// stays small whatever the function's variable count). Equality ignores capacity.
#[derive(Clone, Debug, Default)]
pub struct VarSet {
    words: Vec<u64>,
}

impl PartialEq for VarSet {
    fn eq(&self, other: &VarSet) -> bool {
        let n = self.words.len().max(other.words.len());
        (0..n).all(|i| self.words.get(i).unwrap_or(&0) == other.words.get(i).unwrap_or(&0))
    }
}

impl Eq for VarSet {}

impl std::hash::Hash for VarSet {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let used = self
            .words
            .iter()
            .rposition(|&w| w != 0)
            .map_or(0, |i| i + 1);
        self.words[..used].hash(state);
    }
}

impl VarSet {
    /// An empty set able to hold variables `0..capacity`.
    pub fn new(capacity: usize) -> VarSet {
        VarSet {
            words: vec![0; capacity.div_ceil(64)],
        }
    }

    /// Empties the set, keeping its capacity.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Makes the set equal to `other`, in the memory it already has where that is enough.
    pub fn copy_from(&mut self, other: &VarSet) {
        self.words.clear();
        self.words.extend_from_slice(&other.words);
    }

    /// True if `v` is in the set (a variable beyond the capacity never is).
    pub fn contains(&self, v: Var) -> bool {
        let i = v.0 as usize;
        self.words
            .get(i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 != 0)
    }

    /// Adds `v` (growing the set if needed); true if it was not there.
    pub fn insert(&mut self, v: Var) -> bool {
        let i = v.0 as usize;
        if i / 64 >= self.words.len() {
            self.words.resize(i / 64 + 1, 0);
        }
        let bit = 1u64 << (i % 64);
        let fresh = self.words[i / 64] & bit == 0;
        self.words[i / 64] |= bit;
        fresh
    }

    /// Removes `v`.
    pub fn remove(&mut self, v: Var) {
        let i = v.0 as usize;
        if let Some(w) = self.words.get_mut(i / 64) {
            *w &= !(1u64 << (i % 64));
        }
    }

    /// Removes every member of `other`.
    pub fn subtract(&mut self, other: &VarSet) {
        for (w, o) in self.words.iter_mut().zip(&other.words) {
            *w &= !o;
        }
    }

    /// Adds every member of `other`; true if the set grew.
    pub fn union_with(&mut self, other: &VarSet) -> bool {
        if other.words.len() > self.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        let mut changed = false;
        for (w, o) in self.words.iter_mut().zip(&other.words) {
            let new = *w | o;
            changed |= new != *w;
            *w = new;
        }
        changed
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// True if the set has no member.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The members in increasing order (a step per member, not per bit).
    pub fn iter(&self) -> impl Iterator<Item = Var> + '_ {
        self.words.iter().enumerate().flat_map(|(n, &w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                let b = (rest != 0).then(|| rest.trailing_zeros())?;
                rest &= rest - 1;
                Some(Var((n * 64) as u32 + b))
            })
        })
    }
}

impl FromIterator<Var> for VarSet {
    fn from_iter<I: IntoIterator<Item = Var>>(iter: I) -> VarSet {
        let mut s = VarSet::default();
        for v in iter {
            s.insert(v);
        }
        s
    }
}
