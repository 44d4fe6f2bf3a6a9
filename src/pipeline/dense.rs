//! Index lists that cover their vertex range densely — a mesh's index buffer over its vertex
//! buffer — drawn as that range: the vertex shader runs on every vertex from the smallest
//! index to the largest, in index order, and each index becomes `i − min`. The list's range
//! is found first (a pass that writes nothing, so a sparse list costs no more), then a dense
//! list's indices are written as `i − min` (two loops that vectorize, for u16 lists at AVX2
//! width on hosts that have it); there is no deduplication table, and the attribute arrays
//! are read in order instead of in the list's shuffled order.
//!
//! A list is dense when its range has at most as many vertices as the list has indices, so a
//! draw never runs more invocations than it has indices. Vertices of the range no index
//! refers to are computed too: shaders have no side effects, and their outputs are simply not
//! referenced — except that a vertex no index refers to never makes a draw fail
//! ([`Referenced`]). Sparser lists are deduplicated in order of first use (module `unique`).

use super::types::Indices;

/// The smallest and the largest index of `indices` (`None` for an empty list): one pass
/// that vectorizes (for u16 lists at AVX2 width on hosts that have it) and writes nothing,
/// so a sparse list is not widened before [`span`] refuses it.
pub(super) fn bounds(indices: Indices) -> Option<(u32, u32)> {
    if indices.is_empty() {
        return None;
    }
    Some(match indices {
        Indices::U8(list) => {
            let (lo, hi) = fold_bounds(list, u8::MAX);
            (lo.into(), hi.into())
        }
        Indices::U16(list) => {
            let (lo, hi) = bounds_u16(list);
            (lo.into(), hi.into())
        }
        Indices::U32(list) => fold_bounds(list, u32::MAX),
        Indices::Range { first, count } => (first, first.wrapping_add(count - 1)),
    })
}

/// If `indices` (whose [`bounds`] are `lo..=hi`) is a dense list (module docs), fills `ids`
/// with its range and `remap` with `i − lo` per index (both overwritten) and returns true;
/// false for sparser lists (then `ids` and `remap` are untouched).
pub(super) fn span(
    indices: Indices,
    (lo, hi): (u32, u32),
    ids: &mut Numbers,
    remap: &mut Vec<u32>,
) -> bool {
    if (hi - lo) as usize >= indices.len() {
        return false;
    }
    ids.sequence(lo, (hi - lo) as usize + 1);
    remap.resize(indices.len(), 0);
    match indices {
        Indices::U8(list) => offsets(list, remap, lo),
        Indices::U16(list) => offsets_u16(list, remap, lo),
        Indices::U32(list) => offsets(list, remap, lo),
        Indices::Range { first, .. } => {
            for (k, n) in remap.iter_mut().enumerate() {
                *n = first.wrapping_add(k as u32).wrapping_sub(lo);
            }
        }
    }
    true
}

/// The bounds of a u8 or u32 list, from `(top, 0)`: unsigned minima and maxima, which the
/// x86-64 baseline has for bytes (and emulates for u32 lists, the rarest width).
#[inline(always)]
fn fold_bounds<T: Copy + Ord + Default>(list: &[T], top: T) -> (T, T) {
    list.iter()
        .fold((top, T::default()), |(lo, hi), &i| (lo.min(i), hi.max(i)))
}

/// The smallest and the largest index of a u16 list. On x86-64 hosts with AVX2 the loop runs
/// in a copy compiled for it: twice as wide, and with unsigned 16-bit minima and maxima.
fn bounds_u16(list: &[u16]) -> (u16, u16) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the one feature `bounds_u16_avx2` is compiled for.
        return unsafe { bounds_u16_avx2(list) };
    }
    bounds_u16_baseline(list)
}

/// [`bounds_u16`] at the x86-64 baseline (SSE2).
fn bounds_u16_baseline(list: &[u16]) -> (u16, u16) {
    // Signed 16-bit minima and maxima of the indices biased by 2^15: the x86-64 baseline has
    // those as single instructions, not the unsigned ones.
    let (lo, hi) = list.iter().fold((i16::MAX, i16::MIN), |(lo, hi), &i| {
        let biased = (i ^ 0x8000) as i16;
        (lo.min(biased), hi.max(biased))
    });
    ((lo as u16) ^ 0x8000, (hi as u16) ^ 0x8000)
}

/// [`bounds_u16`] compiled for AVX2 (callers check that the CPU has it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn bounds_u16_avx2(list: &[u16]) -> (u16, u16) {
    // Plain comparisons: closures and `Ord::min` are not inlined into a function compiled for
    // other features than theirs, and the loop would not vectorize.
    let (mut lo, mut hi) = (u16::MAX, 0);
    for &i in list {
        lo = if i < lo { i } else { lo };
        hi = if i > hi { i } else { hi };
    }
    (lo, hi)
}

/// [`offsets`] of a u16 list, at AVX2 width on x86-64 hosts that have it.
fn offsets_u16(list: &[u16], remap: &mut [u32], lo: u32) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the one feature `offsets_u16_avx2` is compiled for.
        return unsafe { offsets_u16_avx2(list, remap, lo) };
    }
    offsets(list, remap, lo);
}

/// [`offsets`] compiled for AVX2 (callers check that the CPU has it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn offsets_u16_avx2(list: &[u16], remap: &mut [u32], lo: u32) {
    offsets(list, remap, lo);
}

/// `remap[k] = list[k] − lo` as u32 (every index is at least `lo`; a plain widening copy
/// when `lo` is 0, the common case), inlined into each caller so that it vectorizes for the
/// caller's target features.
#[inline(always)]
fn offsets<T: Copy + Into<u32>>(list: &[T], remap: &mut [u32], lo: u32) {
    let pairs = remap.iter_mut().zip(list);
    if lo == 0 {
        pairs.for_each(|(n, &i)| *n = i.into());
    } else {
        pairs.for_each(|(n, &i)| *n = i.into().wrapping_sub(lo));
    }
}

/// Numbers a draw writes (vertex ids, index numbers) that remember when they are the
/// sequence `first, first + 1, …`: a draw writing the same sequence again writes nothing.
#[derive(Clone, Debug, Default)]
pub(super) struct Numbers {
    list: Vec<u32>,
    /// `Some(first)` while `list` is `first, first + 1, …` (every other write clears it).
    sequence: Option<u32>,
}

impl Numbers {
    /// The numbers.
    pub(super) fn list(&self) -> &[u32] {
        &self.list
    }

    /// The numbers, to be written in any way.
    pub(super) fn list_mut(&mut self) -> &mut Vec<u32> {
        self.sequence = None;
        &mut self.list
    }

    /// Makes the numbers `first, first + 1, …` (`count` of them; `first + count − 1` must not
    /// overflow), unless they are already.
    pub(super) fn sequence(&mut self, first: u32, count: usize) {
        if self.sequence != Some(first) || self.list.len() != count {
            sequence(&mut self.list, first, count);
            self.sequence = Some(first);
        }
    }
}

/// Fills `v` with `first, first + 1, …` (`count` numbers; `first + count − 1` must not
/// overflow): in place, in a loop the compiler vectorizes.
fn sequence(v: &mut Vec<u32>, first: u32, count: usize) {
    v.resize(count, 0);
    for (k, x) in v.iter_mut().enumerate() {
        *x = first + k as u32;
    }
}

/// Which computed vertices (positions in the draw's vertex list) an index refers to: every
/// one for a list deduplicated in order of first use, only those in the index list for a
/// dense one. Asked only when an invocation exhausted its step budget (the marks are built
/// on the first question), so a vertex no index refers to never fails a draw.
#[derive(Debug)]
pub(super) struct Referenced<'a> {
    /// The index list's numbers, when some computed vertices may be unreferenced.
    numbers: Option<&'a [u32]>,
    marks: Vec<bool>,
}

impl<'a> Referenced<'a> {
    /// Every computed vertex is referenced.
    pub(super) fn all() -> Referenced<'static> {
        Referenced {
            numbers: None,
            marks: Vec::new(),
        }
    }

    /// The vertices `numbers` (an index's number per index) name.
    pub(super) fn by(numbers: &'a [u32]) -> Referenced<'a> {
        Referenced {
            numbers: Some(numbers),
            marks: Vec::new(),
        }
    }

    /// True if an index refers to computed vertex `u`.
    pub(super) fn has(&mut self, u: usize) -> bool {
        let Some(numbers) = self.numbers else {
            return true;
        };
        if self.marks.is_empty() {
            let len = numbers.iter().map(|&n| n as usize + 1).max().unwrap_or(0);
            self.marks.resize(len.max(1), false);
            for &n in numbers {
                self.marks[n as usize] = true;
            }
        }
        self.marks.get(u).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`bounds`] then [`span`]: the largest index of a dense list.
    fn span_of(indices: Indices, ids: &mut Numbers, remap: &mut Vec<u32>) -> Option<u32> {
        let bounds = bounds(indices)?;
        span(indices, bounds, ids, remap).then_some(bounds.1)
    }

    #[test]
    fn dense_lists_take_their_range_and_sparse_ones_do_not() {
        let (mut ids, mut remap) = (Numbers::default(), vec![9; 2]);
        // One index: a range of one vertex.
        assert_eq!(span_of(Indices::U16(&[40]), &mut ids, &mut remap), Some(40));
        assert_eq!((ids.list(), &remap[..]), (&[40][..], &[0][..]));
        // Range exactly as long as the list (the threshold), minimum not 0.
        let list: Vec<u32> = vec![13, 10, 12, 11];
        assert_eq!(span_of(Indices::U32(&list), &mut ids, &mut remap), Some(13));
        assert_eq!(ids.list(), [10, 11, 12, 13]);
        assert_eq!(remap, vec![3, 0, 2, 1]);
        // One vertex more than indices: sparse, buffers untouched.
        let sparse: Vec<u8> = vec![10, 14, 12, 11];
        assert_eq!(span_of(Indices::U8(&sparse), &mut ids, &mut remap), None);
        assert_eq!(ids.list(), [10, 11, 12, 13]);
        assert_eq!(remap, vec![3, 0, 2, 1]);
        // Unreferenced vertices inside the range (11 is never named).
        let holes: Vec<u8> = vec![255, 253, 255, 252, 253];
        assert_eq!(
            span_of(Indices::U8(&holes), &mut ids, &mut remap),
            Some(255)
        );
        assert_eq!(ids.list(), [252, 253, 254, 255]);
        assert_eq!(remap, vec![3, 1, 3, 0, 1]);
        assert_eq!(span_of(Indices::U16(&[]), &mut ids, &mut remap), None);
        // A range is its own span.
        let range = Indices::Range { first: 7, count: 3 };
        assert_eq!(bounds(range), Some((7, 9)));
        assert_eq!(span_of(range, &mut ids, &mut remap), Some(9));
        assert_eq!((ids.list(), &remap[..]), (&[7, 8, 9][..], &[0, 1, 2][..]));
        assert_eq!(bounds(Indices::Range { first: 7, count: 0 }), None);
        // Extremes of u32.
        let wide = vec![u32::MAX, u32::MAX - 1];
        assert_eq!(
            span_of(Indices::U32(&wide), &mut ids, &mut remap),
            Some(u32::MAX)
        );
        assert_eq!(ids.list(), [u32::MAX - 1, u32::MAX]);
        assert_eq!(remap, vec![1, 0]);
        let far = vec![0, u32::MAX];
        assert_eq!(span_of(Indices::U32(&far), &mut ids, &mut remap), None);
        // u16 extremes through the biased bounds.
        let top: Vec<u16> = vec![u16::MAX, 0x8000, 0x7FFF, 0xFFFE];
        assert_eq!(span_of(Indices::U16(&top), &mut ids, &mut remap), None);
        let top: Vec<u16> = vec![u16::MAX, u16::MAX - 1, u16::MAX];
        assert_eq!(
            span_of(Indices::U16(&top), &mut ids, &mut remap),
            Some(u32::from(u16::MAX))
        );
        assert_eq!(
            (ids.list(), &remap[..]),
            (&[0xFFFE, 0xFFFF][..], &[1, 0, 1][..])
        );
        let low: Vec<u16> = vec![2, 0, 1];
        assert_eq!(span_of(Indices::U16(&low), &mut ids, &mut remap), Some(2));
        assert_eq!((ids.list(), &remap[..]), (&[0, 1, 2][..], &[2, 0, 1][..]));
        let mid: Vec<u16> = vec![0x8001, 0x7FFF, 0x8000];
        assert_eq!(
            span_of(Indices::U16(&mid), &mut ids, &mut remap),
            Some(0x8001)
        );
        assert_eq!(ids.list(), [0x7FFF, 0x8000, 0x8001]);
        assert_eq!(remap, vec![2, 0, 1]);
    }

    #[test]
    fn u16_lists_bound_and_offset_alike_on_every_path() {
        // The dispatched path (AVX2 on hosts that have it) and the baseline agree, on lists
        // of every length around the vector widths and with the extremes anywhere.
        /// How a random list is shaped before the comparison.
        #[derive(Clone, Copy, Debug)]
        enum Shape {
            Random,
            /// Every index within 32 of 0x8000, where signed and unsigned order differ.
            AroundSignBit,
            WithMax,
            WithZero,
        }
        let mut rng = fastrand::Rng::with_seed(11);
        for len in (1..70).chain([255, 256, 257, 4096]) {
            for round in [
                Shape::Random,
                Shape::AroundSignBit,
                Shape::WithMax,
                Shape::WithZero,
            ] {
                let mut list: Vec<u16> = (0..len).map(|_| rng.u16(..)).collect();
                match round {
                    Shape::Random => {}
                    Shape::AroundSignBit => list.iter_mut().for_each(|i| *i = 0x7FF0 + *i % 32),
                    Shape::WithMax => list[rng.usize(..len)] = u16::MAX,
                    Shape::WithZero => list[rng.usize(..len)] = 0,
                }
                let min = *list.iter().min().unwrap();
                let max = *list.iter().max().unwrap();
                let got = (bounds_u16(&list), bounds_u16_baseline(&list));
                assert_eq!(got, ((min, max), (min, max)), "{len} {round:?}");
                let (mut a, mut b) = (vec![7; len], vec![9; len]);
                offsets_u16(&list, &mut a, min.into());
                offsets(&list, &mut b, min.into());
                let want: Vec<u32> = list.iter().map(|&i| u32::from(i - min)).collect();
                assert_eq!((&a, &b), (&want, &want), "{len} {round:?}");
            }
        }
    }

    #[test]
    fn a_sequence_is_written_once_and_any_other_write_forgets_it() {
        let mut n = Numbers::default();
        n.sequence(3, 4);
        assert_eq!(n.list(), [3, 4, 5, 6]);
        n.sequence(3, 2);
        assert_eq!(n.list(), [3, 4]);
        n.list_mut()[1] = 9;
        n.sequence(3, 2);
        assert_eq!(n.list(), [3, 4]);
        n.sequence(0, 3);
        assert_eq!(n.list(), [0, 1, 2]);
    }

    #[test]
    fn only_named_vertices_are_referenced() {
        let numbers = [3, 1, 3];
        let mut r = Referenced::by(&numbers);
        assert_eq!(
            (0..6).map(|u| r.has(u)).collect::<Vec<_>>(),
            [false, true, false, true, false, false]
        );
        let mut all = Referenced::all();
        assert!(all.has(0) && all.has(1000));
    }
}
