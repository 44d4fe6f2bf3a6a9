//! Index lists that cover their vertex range densely — a mesh's index buffer over its vertex
//! buffer — drawn as that range: the vertex shader runs on every vertex from the smallest
//! index to the largest, in index order, and each index becomes `i − min`. One scan finds the
//! range and one pass writes the numbers; there is no deduplication table, and the attribute
//! arrays are read in order instead of in the list's shuffled order.
//!
//! A list is dense when its range has at most as many vertices as the list has indices, so a
//! draw never runs more invocations than it has indices. Vertices of the range no index
//! refers to are computed too: shaders have no side effects, and their outputs are simply not
//! referenced — except that a vertex no index refers to never makes a draw fail
//! ([`Referenced`]). Sparser lists are deduplicated in order of first use (module `unique`).

use super::types::Indices;

/// If `indices` is a dense list (module docs), fills `ids` with its range (`min..=max`) and
/// `remap` with `i − min` per index (both overwritten) and returns the largest index; `None`
/// (buffers untouched) for sparser lists, empty lists and ranges.
pub(super) fn span(indices: Indices, ids: &mut Vec<u32>, remap: &mut Vec<u32>) -> Option<u32> {
    match indices {
        Indices::U8(list) => span_of(list, ids, remap),
        Indices::U16(list) => span_of(list, ids, remap),
        Indices::U32(list) => span_of(list, ids, remap),
        Indices::Range { .. } => None,
    }
}

#[inline(always)]
fn span_of<T: Copy + Ord + Into<u32>>(
    list: &[T],
    ids: &mut Vec<u32>,
    remap: &mut Vec<u32>,
) -> Option<u32> {
    let &first = list.first()?;
    // Two independent folds: each vectorizes.
    let lo: u32 = list.iter().copied().fold(first, T::min).into();
    let hi: u32 = list.iter().copied().fold(first, T::max).into();
    if (hi - lo) as usize >= list.len() {
        return None;
    }
    ids.clear();
    ids.extend(lo..=hi);
    remap.clear();
    remap.extend(list.iter().map(|&i| i.into() - lo));
    Some(hi)
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

    #[test]
    fn dense_lists_take_their_range_and_sparse_ones_do_not() {
        let (mut ids, mut remap) = (vec![9; 7], vec![9; 2]);
        // One index: a range of one vertex.
        assert_eq!(span(Indices::U16(&[40]), &mut ids, &mut remap), Some(40));
        assert_eq!((&ids[..], &remap[..]), (&[40][..], &[0][..]));
        // Range exactly as long as the list (the threshold), minimum not 0.
        let list: Vec<u32> = vec![13, 10, 12, 11];
        assert_eq!(span(Indices::U32(&list), &mut ids, &mut remap), Some(13));
        assert_eq!(ids, vec![10, 11, 12, 13]);
        assert_eq!(remap, vec![3, 0, 2, 1]);
        // One vertex more than indices: sparse, buffers untouched.
        let sparse: Vec<u8> = vec![10, 14, 12, 11];
        assert_eq!(span(Indices::U8(&sparse), &mut ids, &mut remap), None);
        assert_eq!(ids, vec![10, 11, 12, 13]);
        // Unreferenced vertices inside the range (11 is never named).
        let holes: Vec<u8> = vec![255, 253, 255, 252, 253];
        assert_eq!(span(Indices::U8(&holes), &mut ids, &mut remap), Some(255));
        assert_eq!(ids, vec![252, 253, 254, 255]);
        assert_eq!(remap, vec![3, 1, 3, 0, 1]);
        assert_eq!(span(Indices::U16(&[]), &mut ids, &mut remap), None);
        let range = Indices::Range { first: 0, count: 9 };
        assert_eq!(span(range, &mut ids, &mut remap), None);
        // Extremes of u32.
        let wide = vec![u32::MAX, u32::MAX - 1];
        assert_eq!(
            span(Indices::U32(&wide), &mut ids, &mut remap),
            Some(u32::MAX)
        );
        assert_eq!(ids, vec![u32::MAX - 1, u32::MAX]);
        assert_eq!(remap, vec![1, 0]);
        let far = vec![0, u32::MAX];
        assert_eq!(span(Indices::U32(&far), &mut ids, &mut remap), None);
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
