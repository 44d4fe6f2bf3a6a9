//! The unique vertices of an index list: each vertex index once, in order of first use, and
//! per index the number of its unique vertex — found in one branch-free pass over the list
//! with a direct-mapped table stamped per draw (so it is never cleared, and no index is
//! hashed), before any shader runs.
//!
//! u8 and u16 lists use tables of 256 and 65,536 entries allocated once; u32 lists use a
//! table as large as their largest index (up to [`TABLE_LIMIT`] entries), or sort.

use super::types::Indices;

/// Largest u32 index table kept (entries); lists with larger indices are deduplicated by
/// sorting.
const TABLE_LIMIT: usize = 1 << 20;

/// A direct-mapped table from vertex index to unique number: entry = draw stamp (high 32
/// bits) | unique number (low 32 bits). An entry whose stamp is not the current draw's is
/// unseen, so a new draw only bumps the stamp.
#[derive(Clone, Debug, Default)]
struct Table {
    entries: Vec<u64>,
    stamp: u32,
}

impl Table {
    /// Starts a draw over indices below `size`: the table grows to `size` entries and gets a
    /// fresh stamp (cleared only when the stamp wraps, once in 2^32 draws).
    fn begin(&mut self, size: usize) -> u64 {
        if self.entries.len() < size {
            // A fresh zeroed table (all unseen under any stamp but 0): large ones come from
            // the allocator as untouched zero pages, so a first draw pays only for the
            // entries it uses, not for clearing up to 512 KiB.
            self.entries = vec![0; size.next_power_of_two()];
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.entries.fill(0);
            self.stamp = 1;
        }
        u64::from(self.stamp) << 32
    }
}

/// Scratch for deduplication, reused from draw to draw.
#[derive(Clone, Debug, Default)]
pub(super) struct Dedup {
    /// Tables for u8 and u16 lists (their size never changes).
    small: Table,
    short: Table,
    /// The table for u32 lists.
    wide: Table,
    sorted: Vec<(u32, u32)>,
}

impl Dedup {
    /// Fills `ids` with the unique vertex indices in order of first use and `remap` with the
    /// unique number of each index (both cleared first). Returns the largest vertex index
    /// (0 for no index).
    pub(super) fn run(
        &mut self,
        indices: Indices,
        ids: &mut Vec<u32>,
        remap: &mut Vec<u32>,
    ) -> u32 {
        ids.clear();
        remap.clear();
        match indices {
            Indices::Range { first, count } => {
                ids.extend((0..count).map(|k| first.wrapping_add(k)));
                remap.extend(0..count);
                first.wrapping_add(count.saturating_sub(1))
            }
            Indices::U8(list) => {
                let stamp = self.small.begin(1 << 8);
                pass(&mut self.small.entries, 1 << 8, stamp, list, ids, remap)
            }
            Indices::U16(list) => {
                let stamp = self.short.begin(1 << 16);
                pass(&mut self.short.entries, 1 << 16, stamp, list, ids, remap)
            }
            Indices::U32(list) => {
                let max = list.iter().copied().max().unwrap_or(0);
                if max as usize >= TABLE_LIMIT && max as usize >= 4 * list.len() {
                    self.by_sorting(indices, ids, remap);
                    return max;
                }
                let size = max as usize + 1;
                let stamp = self.wide.begin(size);
                pass(&mut self.wide.entries, size, stamp, list, ids, remap)
            }
        }
    }

    /// Deduplication for lists whose indices are too spread for a table.
    fn by_sorting(&mut self, indices: Indices, ids: &mut Vec<u32>, remap: &mut Vec<u32>) {
        let n = indices.len();
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

/// The branch-free pass over `list` (every index below `size` ≤ `table.len()`): a fresh
/// index takes the next unique number (and is written to `ids` at that number); a seen one
/// gets its number back from the table. Returns the largest index.
#[inline(always)]
fn pass<T: Copy + Into<u32>>(
    table: &mut [u64],
    size: usize,
    stamp: u64,
    list: &[T],
    ids: &mut Vec<u32>,
    remap: &mut Vec<u32>,
) -> u32 {
    // A table of a constant size lets u8 and u16 lookups go unchecked.
    let table = &mut table[..size];
    // `ids` is written at the next number whether the index is fresh or not (then
    // overwritten or cut off), so it needs room for every index.
    ids.resize(list.len(), 0);
    remap.resize(list.len(), 0);
    let mut next = 0usize;
    let mut max = 0u32;
    for (number_out, &i) in remap.iter_mut().zip(list) {
        let i: u32 = i.into();
        max = max.max(i);
        let entry = &mut table[i as usize];
        let fresh = *entry & !0xFFFF_FFFF != stamp;
        let number = if fresh { next as u32 } else { *entry as u32 };
        *entry = stamp | u64::from(number);
        ids[next] = i;
        next += usize::from(fresh);
        *number_out = number;
    }
    ids.truncate(next);
    max
}
