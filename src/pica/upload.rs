//! Float-uniform upload words: the queue behind the FLOATUNIFORM_DATA port and the
//! two packings it reads — float24, three words per vector, and float32, four words in
//! w, z, y, x order — with their inverses for callers that build uploads.

use crate::float::{f24_to_f32, f32_to_f24};
use crate::program::Vec4;

/// How a float uniform upload is packed (FLOATUNIFORM_INDEX bit 31).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatMode {
    /// Three words per vector: the 96-bit big-endian quantity `w:z:y:x` of four float24.
    F24,
    /// Four words per vector, the binary32 bits of w, z, y, x in that order.
    F32,
}

impl FloatMode {
    /// Words per vector.
    pub fn words(self) -> usize {
        match self {
            FloatMode::F24 => 3,
            FloatMode::F32 => 4,
        }
    }
}

/// Unpacks three float24 upload words (`w[0]` written first) into raw float24 values
/// x, y, z, w: `x = W2[23:0]`, `y = W1[15:0]:W2[31:24]`, `z = W0[7:0]:W1[31:16]`,
/// `w = W0[31:8]`.
pub fn unpack_f24(w: [u32; 3]) -> [u32; 4] {
    [
        w[2] & 0xFF_FFFF,
        (w[1] & 0xFFFF) << 8 | w[2] >> 24,
        (w[0] & 0xFF) << 16 | w[1] >> 16,
        w[0] >> 8,
    ]
}

/// Packs raw float24 values x, y, z, w (low 24 bits each) into the three upload words (the
/// inverse of [`unpack_f24`]).
pub fn pack_f24(raw: [u32; 4]) -> [u32; 3] {
    let [x, y, z, w] = raw.map(|v| v & 0xFF_FFFF);
    [w << 8 | z >> 16, z << 16 | y >> 8, y << 24 | x]
}

/// Packs a vector converted to float24 the way the tools do ([`f32_to_f24`]: mantissa
/// truncated) into three upload words.
pub fn pack_vec_f24(v: Vec4) -> [u32; 3] {
    pack_f24(v.map(f32_to_f24))
}

/// The four float32-mode upload words of a vector: w, z, y, x.
pub fn pack_vec_f32(v: Vec4) -> [u32; 4] {
    [v[3], v[2], v[1], v[0]].map(f32::to_bits)
}

/// The upload queue: words written to the data port accumulate until a whole vector is there
/// in the mode in force at that write (Azahar's rule: the queue is not reset when the mode or
/// the index changes, so a vector can mix words written before and after such a change).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FloatQueue {
    words: [u32; 4],
    len: usize,
}

impl FloatQueue {
    /// Adds a word; returns the vector it completes, decoded to f32.
    pub fn push(&mut self, word: u32, mode: FloatMode) -> Option<Vec4> {
        self.words[self.len] = word;
        self.len += 1;
        if self.len < mode.words() {
            return None;
        }
        self.len = 0;
        let w = self.words;
        Some(match mode {
            FloatMode::F24 => unpack_f24([w[0], w[1], w[2]]).map(f24_to_f32),
            FloatMode::F32 => [w[3], w[2], w[1], w[0]].map(f32::from_bits),
        })
    }

    /// Words waiting for the rest of their vector.
    pub fn pending(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f24_packing_round_trips() {
        let raw = [0x3F_0000, 0xBF_0000, 0x12_3456, 0xFE_DCBA];
        assert_eq!(unpack_f24(pack_f24(raw)), raw);
        // x sits in the low 24 bits of the last word, w in the high 24 bits of the first.
        assert_eq!(pack_f24([0x11_1111, 0, 0, 0]), [0, 0, 0x11_1111]);
        assert_eq!(pack_f24([0, 0, 0, 0x22_2222]), [0x2222_2200, 0, 0]);
        assert_eq!(pack_f24([0, 0xAB_CDEF, 0, 0]), [0, 0xABCD, 0xEF00_0000]);
        assert_eq!(pack_f24([0, 0, 0xAB_CDEF, 0]), [0xAB, 0xCDEF_0000, 0]);
    }

    #[test]
    fn queue_completes_vectors_in_the_mode_in_force() {
        let mut q = FloatQueue::default();
        let words = pack_vec_f32([1.0, 2.0, 3.0, 4.0]);
        for &w in &words[..3] {
            assert_eq!(q.push(w, FloatMode::F32), None);
        }
        assert_eq!(q.push(words[3], FloatMode::F32), Some([1.0, 2.0, 3.0, 4.0]));
        assert_eq!(q.pending(), 0);
        // Two words in f32 mode, then a switch to f24: the third word completes an f24 vector.
        let f24 = pack_vec_f24([0.5, 0.25, -1.0, 3.0]);
        q.push(f24[0], FloatMode::F32);
        q.push(f24[1], FloatMode::F32);
        assert_eq!(q.push(f24[2], FloatMode::F24), Some([0.5, 0.25, -1.0, 3.0]));
    }
}
