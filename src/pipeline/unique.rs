//! The unique vertices of an index list: each vertex index once, in order of first use, and
//! per index the number of its unique vertex — found in one branch-free pass over the list
//! with a direct-mapped table stamped per draw (so it is never cleared, and no index is
//! hashed), before any shader runs.
//!
//! u8 and u16 lists use tables of 256 and 65,536 entries allocated once; u32 lists use a
//! table as large as their largest index (up to [`TABLE_LIMIT`] entries), or sort.
//!
//! Emulators draw the same mesh with the same index list frame after frame: the last list is
//! kept (a copy, compared element by element — never its address, which the caller may have
//! refilled), and a list equal to it for the second time in a row keeps its result, so its
//! later draws copy the unique vertices and numbers instead of deduplicating again (a compare
//! and two copies cost a fraction of the table pass). A different list costs one copy of it.

use super::types::Indices;

/// Largest u32 index table kept (entries); lists with larger indices are deduplicated by
/// sorting.
const TABLE_LIMIT: usize = 1 << 20;

/// A direct-mapped table from vertex index to unique number: entry = the draw's base + the
/// number, where base = the stamp shifted past every number the list can have. Stamps only
/// grow, so an entry below the current base is from an earlier draw (unseen): a new draw only
/// raises the stamp, and one compare tells a fresh index.
#[derive(Clone, Debug, Default)]
struct Table<E> {
    entries: Vec<E>,
    stamp: u64,
}

/// A table entry: u32 for u8 and u16 lists (numbers below 2^8 and 2^16), u64 for u32 lists.
trait Entry: Copy + Ord + Default {
    /// The largest stamp (the stamp shifted must fit the entry).
    const MAX_STAMP: u64;
    fn base(stamp: u64) -> Self;
    /// `base + number`.
    fn tag(self, number: u32) -> Self;
    /// The number of an entry tagged with `base`.
    fn number(self, base: Self) -> u32;
}

/// u32 entries whose numbers take the low `BITS` bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Narrow<const BITS: u32>(u32);

impl<const BITS: u32> Entry for Narrow<BITS> {
    const MAX_STAMP: u64 = (1 << (32 - BITS)) - 1;
    fn base(stamp: u64) -> Self {
        Narrow((stamp as u32) << BITS)
    }
    fn tag(self, number: u32) -> Self {
        Narrow(self.0 + number)
    }
    fn number(self, base: Self) -> u32 {
        self.0.wrapping_sub(base.0)
    }
}

impl Entry for u64 {
    const MAX_STAMP: u64 = u32::MAX as u64;
    fn base(stamp: u64) -> Self {
        stamp << 32
    }
    fn tag(self, number: u32) -> Self {
        self + u64::from(number)
    }
    fn number(self, base: Self) -> u32 {
        self.wrapping_sub(base) as u32
    }
}

impl<E: Entry> Table<E> {
    /// Starts a draw over indices below `size`: the table grows to `size` entries and gets a
    /// fresh stamp (cleared only when the stamps run out: once in 2^16 draws of u16 lists).
    /// Returns the draw's base.
    fn begin(&mut self, size: usize) -> E {
        if self.entries.len() < size {
            // A fresh zeroed table (all unseen under any stamp but 0): large ones come from
            // the allocator as untouched zero pages, so a first draw pays only for the
            // entries it uses, not for clearing up to 512 KiB.
            self.entries = vec![E::default(); size.next_power_of_two()];
        }
        self.stamp += 1;
        if self.stamp > E::MAX_STAMP {
            self.entries.fill(E::default());
            self.stamp = 1;
        }
        E::base(self.stamp)
    }
}

/// Scratch for deduplication, reused from draw to draw.
#[derive(Clone, Debug, Default)]
pub(super) struct Dedup {
    /// Tables for u8 and u16 lists (their size never changes).
    small: Table<Narrow<8>>,
    short: Table<Narrow<16>>,
    /// The table for u32 lists.
    wide: Table<u64>,
    /// The unique indices as the table pass writes them: one slot per index of the longest
    /// list so far (never shortened, so a draw writes into it without filling it first).
    firsts: Vec<u32>,
    sorted: Vec<(u32, u32)>,
    last: Last,
}

/// The last index list deduplicated, and its result once the same list came again.
#[derive(Clone, Debug, Default)]
struct Last {
    list: LastList,
    /// The unique vertices and numbers of `list`, if kept.
    result: Option<(Vec<u32>, Vec<u32>)>,
}

/// A copy of an index list of any width (none before the first indexed draw).
#[derive(Clone, Debug, Default)]
enum LastList {
    #[default]
    None,
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl LastList {
    /// True if `indices` is this list (same width, same elements).
    fn is(&self, indices: Indices) -> bool {
        match (self, indices) {
            (LastList::U8(a), Indices::U8(b)) => a[..] == *b,
            (LastList::U16(a), Indices::U16(b)) => a[..] == *b,
            (LastList::U32(a), Indices::U32(b)) => a[..] == *b,
            (LastList::None | LastList::U8(_) | LastList::U16(_) | LastList::U32(_), _) => false,
        }
    }

    /// Becomes a copy of `indices` (reusing its buffer when the width is the same).
    fn set(&mut self, indices: Indices) {
        fn copy<T: Copy>(to: &mut Vec<T>, from: &[T]) {
            to.clear();
            to.extend_from_slice(from);
        }
        match (&mut *self, indices) {
            (LastList::U8(a), Indices::U8(b)) => copy(a, b),
            (LastList::U16(a), Indices::U16(b)) => copy(a, b),
            (LastList::U32(a), Indices::U32(b)) => copy(a, b),
            (_, Indices::U8(b)) => *self = LastList::U8(b.to_vec()),
            (_, Indices::U16(b)) => *self = LastList::U16(b.to_vec()),
            (_, Indices::U32(b)) => *self = LastList::U32(b.to_vec()),
            (_, Indices::Range { .. }) => *self = LastList::None,
        }
    }
}

impl Dedup {
    /// Fills `ids` with the unique vertex indices in order of first use and `remap` with the
    /// unique number of each index (both overwritten: their old contents are not cleared
    /// first, so buffers reused from the last draw are not zero-filled again). `max` is the
    /// largest index of the list (0 for no index: `dense::bounds`). A list equal to the last
    /// one is answered from the kept result (module docs).
    pub(super) fn run(
        &mut self,
        indices: Indices,
        max: u32,
        ids: &mut Vec<u32>,
        remap: &mut Vec<u32>,
    ) {
        if matches!(indices, Indices::Range { .. }) {
            return self.fresh(indices, max, ids, remap);
        }
        if !self.last.list.is(indices) {
            self.last.list.set(indices);
            self.last.result = None;
            return self.fresh(indices, max, ids, remap);
        }
        if let Some((kept_ids, kept_remap)) = &self.last.result {
            ids.clear();
            ids.extend_from_slice(kept_ids);
            remap.clear();
            remap.extend_from_slice(kept_remap);
            return;
        }
        self.fresh(indices, max, ids, remap);
        self.last.result = Some((ids.clone(), remap.clone()));
    }

    /// [`Dedup::run`] without the kept result.
    fn fresh(&mut self, indices: Indices, max: u32, ids: &mut Vec<u32>, remap: &mut Vec<u32>) {
        if self.firsts.len() < indices.len() {
            self.firsts.resize(indices.len(), 0);
        }
        let unique = match indices {
            Indices::Range { first, count } => {
                ids.clear();
                remap.clear();
                ids.extend((0..count).map(|k| first.wrapping_add(k)));
                remap.extend(0..count);
                return;
            }
            Indices::U8(list) => pass(&mut self.small, 1 << 8, list, &mut self.firsts, remap),
            Indices::U16(list) => pass(&mut self.short, 1 << 16, list, &mut self.firsts, remap),
            Indices::U32(list) => {
                if max as usize >= TABLE_LIMIT && max as usize >= 4 * list.len() {
                    return self.by_sorting(indices, ids, remap);
                }
                let size = max as usize + 1;
                pass(&mut self.wide, size, list, &mut self.firsts, remap)
            }
        };
        ids.clear();
        ids.extend_from_slice(&self.firsts[..unique]);
    }

    /// Deduplication for lists whose indices are too spread for a table.
    fn by_sorting(&mut self, indices: Indices, ids: &mut Vec<u32>, remap: &mut Vec<u32>) {
        let n = indices.len();
        ids.clear();
        self.sorted.clear();
        self.sorted
            .extend((0..n).map(|p| (indices.get(p), p as u32)));
        self.sorted.sort_unstable();
        // The first position of each index, then numbers in order of first use.
        let mut firsts: Vec<(u32, u32)> = Vec::new();
        for (k, &(i, p)) in self.sorted.iter().enumerate() {
            if k == 0 || self.sorted[k - 1].0 != i {
                firsts.push((p, i));
            }
        }
        firsts.sort_unstable();
        let mut number_of: Vec<(u32, u32)> = firsts
            .iter()
            .enumerate()
            .map(|(u, &(_, i))| (i, u as u32))
            .collect();
        number_of.sort_unstable();
        ids.extend(firsts.iter().map(|&(_, i)| i));
        remap.resize(n, 0);
        let mut u = 0;
        for &(i, p) in &self.sorted {
            while number_of[u].0 != i {
                u += 1;
            }
            remap[p as usize] = number_of[u].1;
        }
    }
}

/// The branch-free pass over `list` (every index below `size`) with `table` (begun anew): a
/// fresh index takes the next unique number (and is written to `firsts` at that number); a
/// seen one gets its number back from the table. `firsts` (at least as long as `list`) starts
/// with the unique indices and `remap` ends with one number per index. Returns the number of
/// unique indices.
///
/// Four indices a step: their unique indices go to a window of four slots of `firsts` (one
/// bounds check a step: a step's indices take fewer than four numbers before the last one),
/// and the loop's own count and test are paid once per four.
#[inline(always)]
fn pass<T: Copy + Into<u32>, E: Entry>(
    table: &mut Table<E>,
    size: usize,
    list: &[T],
    firsts: &mut [u32],
    remap: &mut Vec<u32>,
) -> usize {
    let base = table.begin(size);
    // A table of a constant size lets u8 and u16 lookups go unchecked.
    let table = &mut table.entries[..size];
    // `remap` keeps what it holds (every element up to the list's length is written below).
    remap.resize(list.len(), 0);
    let mut next = 0usize;
    let steps = remap.chunks_exact_mut(STEP).zip(list.chunks_exact(STEP));
    for (numbers, indices) in steps {
        // `next` is at most the position of the step's first index, so the window is in
        // `firsts`; each slot is written whether its index is fresh or not (then
        // overwritten or left past the end).
        let window = &mut firsts[next..next + STEP];
        let mut taken = 0usize;
        for (number, &i) in numbers.iter_mut().zip(indices) {
            let (fresh, n) = visit(table, base, next + taken, i.into());
            window[taken] = i.into();
            taken += usize::from(fresh);
            *number = n;
        }
        next += taken;
    }
    let done = list.len() / STEP * STEP;
    for (number, &i) in remap[done..].iter_mut().zip(&list[done..]) {
        let (fresh, n) = visit(table, base, next, i.into());
        firsts[next] = i.into();
        next += usize::from(fresh);
        *number = n;
    }
    next
}

/// Indices per step of [`pass`].
const STEP: usize = 4;

/// Looks index `i` up: fresh (then it takes number `next`) or seen; returns whether it was
/// fresh and its number.
#[inline(always)]
fn visit<E: Entry>(table: &mut [E], base: E, next: usize, i: u32) -> (bool, u32) {
    let entry = &mut table[i as usize];
    let fresh = *entry < base;
    let tagged = if fresh { base.tag(next as u32) } else { *entry };
    *entry = tagged;
    (fresh, tagged.number(base))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unique indices in order of first use and each index's number, the obvious way.
    fn reference(indices: Indices) -> (Vec<u32>, Vec<u32>) {
        let (mut ids, mut remap) = (Vec::new(), Vec::new());
        for p in 0..indices.len() {
            let i = indices.get(p);
            let n = ids.iter().position(|&x| x == i).unwrap_or_else(|| {
                ids.push(i);
                ids.len() - 1
            });
            remap.push(n as u32);
        }
        (ids, remap)
    }

    #[test]
    fn every_draw_equals_first_use_numbering_across_stamp_wraps_and_reused_buffers() {
        let mut rng = fastrand::Rng::with_seed(5);
        let mut dedup = Dedup::default();
        // Stamps two draws before they run out: the third draw of each width clears its table.
        dedup.small.stamp = Narrow::<8>::MAX_STAMP - 2;
        dedup.short.stamp = Narrow::<16>::MAX_STAMP - 2;
        dedup.wide.stamp = u64::MAX_STAMP - 2;
        // Buffers keep what the last draw left: longer and shorter lists alternate.
        let (mut ids, mut remap) = (vec![7; 900], vec![9; 3]);
        for draw in 0..12 {
            let len = [500, 3, 0, 257, 1000, 64][draw % 6];
            let u8s: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
            let u16s: Vec<u16> = (0..len).map(|_| rng.u16(..700)).collect();
            let u32s: Vec<u32> = (0..len).map(|_| rng.u32(5..900)).collect();
            // Indices too spread for a table: deduplicated by sorting.
            let far: Vec<u32> = (0..len).map(|_| rng.u32(..40) << 26).collect();
            for indices in [
                Indices::U8(&u8s),
                Indices::U16(&u16s),
                Indices::U32(&u32s),
                Indices::U32(&far),
            ] {
                let max = (0..len).map(|p| indices.get(p)).max().unwrap_or(0);
                dedup.run(indices, max, &mut ids, &mut remap);
                let (want_ids, want_remap) = reference(indices);
                assert_eq!(ids, want_ids, "draw {draw}, {len} indices");
                assert_eq!(remap, want_remap, "draw {draw}, {len} indices");
            }
        }
        assert!(dedup.small.stamp < 20 && dedup.short.stamp < 20 && dedup.wide.stamp < 20);
    }

    #[test]
    fn a_list_drawn_again_gets_the_same_answer_whatever_the_caller_did_to_the_buffers() {
        let mut rng = fastrand::Rng::with_seed(9);
        let mut dedup = Dedup::default();
        let (mut ids, mut remap) = (Vec::new(), Vec::new());
        let a: Vec<u16> = (0..600).map(|_| rng.u16(..300)).collect();
        // The same list with its last index changed, and with two indices swapped.
        let mut b = a.clone();
        *b.last_mut().unwrap() ^= 1;
        let mut c = a.clone();
        c.swap(0, 599);
        // The same values at another width, and as bytes.
        let a32: Vec<u32> = a.iter().map(|&i| u32::from(i)).collect();
        let small: Vec<u8> = a.iter().map(|&i| i as u8).collect();
        let lists = [
            Indices::U16(&a),
            Indices::U16(&a),
            Indices::U16(&a),
            Indices::U16(&a),
            Indices::U16(&b),
            Indices::U16(&b),
            Indices::U16(&b),
            Indices::U16(&a),
            Indices::U16(&c),
            Indices::U16(&c),
            Indices::U16(&c),
            Indices::U32(&a32),
            Indices::U32(&a32),
            Indices::U32(&a32),
            Indices::U8(&small),
            Indices::U8(&small),
            Indices::U8(&small),
            Indices::Range { first: 5, count: 9 },
            Indices::U8(&small),
            Indices::U16(&a[..0]),
            Indices::U16(&a[..0]),
            Indices::U16(&a[..0]),
            Indices::U16(&a),
            Indices::U16(&a),
        ];
        for (draw, &indices) in lists.iter().enumerate() {
            let max = (0..indices.len())
                .map(|p| indices.get(p))
                .max()
                .unwrap_or(0);
            dedup.run(indices, max, &mut ids, &mut remap);
            let (want_ids, want_remap) = reference(indices);
            assert_eq!(ids, want_ids, "draw {draw}");
            assert_eq!(remap, want_remap, "draw {draw}");
            // The caller scribbles over its buffers between draws.
            ids.iter_mut().for_each(|x| *x = 77);
            remap.truncate(remap.len() / 2);
            remap.push(12345);
        }
        // From its second draw in a row on, a list's result is kept.
        assert!(dedup.last.result.is_some());
    }
}
