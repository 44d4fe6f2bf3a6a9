//! Vertex records at a cache-line boundary ([`Records`]): the bare run's input and output
//! records, so that where the allocator puts them (16-byte aligned, any of the four offsets
//! in a 64-byte line) does not decide what a run costs from one process to the next.

use picajit::program::Regs16;

/// One 256-byte record aligned to a 64-byte cache line (no padding: plain data like
/// [`Regs16`], so a slice of them is a slice of records).
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(64))]
struct Line(Regs16);

/// Vertex records whose first byte starts a 64-byte cache line (records are 256 bytes:
/// every record does).
pub struct Records(Vec<Line>);

impl Records {
    /// A copy of `records` starting a cache line.
    pub fn new(records: &[Regs16]) -> Records {
        Records(records.iter().map(|&r| Line(r)).collect())
    }

    /// `n` records of zeros, starting a cache line.
    pub fn zeros(n: usize) -> Records {
        Records(vec![bytemuck::Zeroable::zeroed(); n])
    }
}

impl std::ops::Deref for Records {
    type Target = [Regs16];
    fn deref(&self) -> &[Regs16] {
        bytemuck::cast_slice(&self.0)
    }
}

impl std::ops::DerefMut for Records {
    fn deref_mut(&mut self) -> &mut [Regs16] {
        bytemuck::cast_slice_mut(&mut self.0)
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
