//! Operand descriptors ("swizzle patterns"): the destination write mask and, per source, a
//! negate bit and four component selectors.
//!
//! | bits    | field                                      |
//! |---------|--------------------------------------------|
//! | `[3:0]`   | write mask: bit 3 = x … bit 0 = w          |
//! | `[4]`     | negate src1                                |
//! | `[12:5]`  | src1 selectors: `[12:11]` x … `[6:5]` w        |
//! | `[13]`    | negate src2                                |
//! | `[21:14]` | src2 selectors                             |
//! | `[22]`    | negate src3                                |
//! | `[30:23]` | src3 selectors                             |
//! | `[31]`    | unused (kept, so descriptors round-trip)   |

/// A raw operand-descriptor word with typed accessors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct OpDesc(pub u32);

/// Negation and swizzle applied to one source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SrcMod {
    /// Flip the sign bit of every component after the swizzle.
    pub negate: bool,
    /// Component selectors for x, y, z, w: 0 = x … 3 = w.
    pub select: [u8; 4],
}

impl SrcMod {
    /// No negation, `.xyzw`.
    pub const IDENTITY: SrcMod = SrcMod {
        negate: false,
        select: [0, 1, 2, 3],
    };

    /// The 8-bit selector field: x in the top two bits.
    pub const fn selector_byte(self) -> u8 {
        (self.select[0] & 3) << 6
            | (self.select[1] & 3) << 4
            | (self.select[2] & 3) << 2
            | (self.select[3] & 3)
    }

    /// Selectors from the 8-bit field.
    pub const fn from_parts(negate: bool, byte: u8) -> SrcMod {
        SrcMod {
            negate,
            select: [byte >> 6 & 3, byte >> 4 & 3, byte >> 2 & 3, byte & 3],
        }
    }

    /// Applies selection then negation to a register value.
    pub fn apply(self, v: [f32; 4]) -> [f32; 4] {
        let mut out = self.select.map(|s| v[s as usize & 3]);
        if self.negate {
            out = out.map(|x| -x);
        }
        out
    }
}

/// Bit position of each source's negate bit; its selector byte sits just above.
const NEGATE_BIT: [u32; 3] = [4, 13, 22];
/// The write-mask value enabling all four components.
pub const FULL_MASK: u8 = 0xF;

impl OpDesc {
    /// Builds a descriptor from a write mask and three source modifiers (bit 31 = 0).
    pub fn new(mask: u8, src: [SrcMod; 3]) -> OpDesc {
        let mut word = u32::from(mask & 0xF);
        for (n, m) in src.iter().enumerate() {
            word |= u32::from(m.negate) << NEGATE_BIT[n];
            word |= u32::from(m.selector_byte()) << (NEGATE_BIT[n] + 1);
        }
        OpDesc(word)
    }

    /// Write mask, bit 3 = x … bit 0 = w.
    pub const fn mask(self) -> u8 {
        (self.0 & 0xF) as u8
    }

    /// True if destination component `i` (0 = x … 3 = w) is written.
    pub const fn writes(self, i: usize) -> bool {
        self.0 >> (3 - (i & 3)) & 1 != 0
    }

    /// Modifier of source `n` (0, 1 or 2).
    pub const fn src(self, n: usize) -> SrcMod {
        let bit = NEGATE_BIT[n];
        SrcMod::from_parts(self.0 >> bit & 1 != 0, (self.0 >> (bit + 1)) as u8)
    }

    /// All three source modifiers.
    pub const fn srcs(self) -> [SrcMod; 3] {
        [self.src(0), self.src(1), self.src(2)]
    }

    /// The unused bit 31.
    pub const fn unused_bit(self) -> bool {
        self.0 >> 31 != 0
    }
}
