//! Vertex records at a cache-line boundary ([`Records`]): the bare run's input and output
//! records, so that where the allocator puts them (16-byte aligned, any of the four offsets
//! in a 64-byte line) does not decide what a run costs from one process to the next.

use picajit::program::Regs16;

/// Rows (4 f32) per record.
const ROWS: usize = 16;
/// Bytes per row.
const ROW_BYTES: usize = 16;
/// Rows per 64-byte cache line.
const LINE_ROWS: usize = 64 / ROW_BYTES;

/// Vertex records whose first byte starts a 64-byte cache line (records are 256 bytes:
/// every record does).
pub struct Records {
    rows: Vec<[f32; 4]>,
    start: usize,
}

impl Records {
    /// A copy of `records` starting a cache line.
    pub fn new(records: &[Regs16]) -> Records {
        let mut rows = vec![[0.0f32; 4]; records.len() * ROWS + LINE_ROWS];
        // The rows are 16-byte aligned: one of the first four starts a line.
        let base = rows.as_ptr() as usize;
        let start = (0..LINE_ROWS)
            .find(|&k| (base + k * ROW_BYTES) % 64 == 0)
            .unwrap_or(0);
        for (r, record) in records.iter().enumerate() {
            rows[start + r * ROWS..start + (r + 1) * ROWS].copy_from_slice(record);
        }
        Records { rows, start }
    }

    /// `n` records of zeros, starting a cache line.
    pub fn zeros(n: usize) -> Records {
        Records::new(&vec![[[0.0; 4]; ROWS]; n])
    }

    fn count(&self) -> usize {
        (self.rows.len() - LINE_ROWS) / ROWS
    }
}

impl std::ops::Deref for Records {
    type Target = [Regs16];
    fn deref(&self) -> &[Regs16] {
        let end = self.start + self.count() * ROWS;
        bytemuck::cast_slice(&self.rows[self.start..end])
    }
}

impl std::ops::DerefMut for Records {
    fn deref_mut(&mut self) -> &mut [Regs16] {
        let end = self.start + self.count() * ROWS;
        bytemuck::cast_slice_mut(&mut self.rows[self.start..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_start_a_cache_line_and_keep_their_values() {
        for n in [1, 3, 2048] {
            let records: Vec<Regs16> = (0..n)
                .map(|v| {
                    std::array::from_fn(|r| std::array::from_fn(|c| (v * 64 + r * 4 + c) as f32))
                })
                .collect();
            let mut aligned = Records::new(&records);
            assert_eq!(aligned.as_ptr() as usize % 64, 0, "{n}");
            assert_eq!(&aligned[..], &records[..], "{n}");
            aligned[n - 1][15][3] = -1.0;
            assert_eq!(aligned.len(), n);
            assert_eq!(aligned[n - 1][15][3], -1.0);
            let zeros = Records::zeros(n);
            assert_eq!(zeros.as_ptr() as usize % 64, 0, "{n}");
            assert!(zeros.iter().flatten().flatten().all(|&x| x == 0.0));
        }
    }
}
