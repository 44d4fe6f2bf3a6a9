//! The unique vertices of an index list: each vertex index once, in order of first use, and
//! per index the number of its unique vertex — found in one branch-free pass over the list
//! with a table stamped per draw (so it is never cleared), before any shader runs.

use super::types::Indices;

/// Largest index table kept (entries); lists with larger indices are deduplicated by sorting.
const TABLE_LIMIT: usize = 1 << 20;

/// Scratch for deduplication, reused from draw to draw.
#[derive(Clone, Debug, Default)]
pub(super) struct Dedup {
    /// Per vertex index: the draw stamp (high 32 bits) and its unique number (low 32 bits).
    table: Vec<u64>,
    stamp: u32,
    sorted: Vec<(u32, u32)>,
}

impl Dedup {
    /// Fills `ids` with the unique vertex indices in order of first use and `remap` with the
    /// unique number of each index. Returns the largest vertex index (0 for no index).
    pub(super) fn run(
        &mut self,
        indices: Indices,
        ids: &mut Vec<u32>,
        remap: &mut Vec<u32>,
    ) -> u32 {
        ids.clear();
        remap.clear();
        let n = indices.len();
        if let Indices::Range { first, count } = indices {
            ids.extend((0..count).map(|k| first.wrapping_add(k)));
            remap.extend(0..count);
            return first.wrapping_add(count.saturating_sub(1));
        }
        let max = match indices {
            Indices::U8(i) => i.iter().copied().max().map_or(0, u32::from),
            Indices::U16(i) => i.iter().copied().max().map_or(0, u32::from),
            Indices::U32(i) => i.iter().copied().max().unwrap_or(0),
            Indices::Range { .. } => 0,
        };
        if max as usize >= TABLE_LIMIT && max as usize >= 4 * n {
            self.by_sorting(indices, ids, remap);
            return max;
        }
        if self.table.len() <= max as usize {
            self.table.resize(max as usize + 1, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.table.fill(0);
            self.stamp = 1;
        }
        ids.resize(n, 0);
        remap.resize(n, 0);
        let count = match indices {
            Indices::U8(i) => self.pass(i.iter().map(|&x| u32::from(x)), ids, remap),
            Indices::U16(i) => self.pass(i.iter().map(|&x| u32::from(x)), ids, remap),
            Indices::U32(i) => self.pass(i.iter().copied(), ids, remap),
            Indices::Range { .. } => 0,
        };
        ids.truncate(count);
        max
    }

    /// The branch-free pass: a fresh index takes the next unique number (and is written to
    /// `ids` at that number); a seen one gets its number back from the table.
    fn pass(
        &mut self,
        indices: impl Iterator<Item = u32>,
        ids: &mut [u32],
        remap: &mut [u32],
    ) -> usize {
        let stamp = u64::from(self.stamp) << 32;
        let mut next = 0u32;
        for (i, remapped) in indices.zip(remap.iter_mut()) {
            let entry = &mut self.table[i as usize];
            let fresh = *entry & !0xFFFF_FFFF != stamp;
            let number = if fresh { next } else { *entry as u32 };
            *entry = stamp | u64::from(number);
            ids[next as usize] = i;
            next += u32::from(fresh);
            *remapped = number;
        }
        next as usize
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
