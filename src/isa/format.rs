//! Instruction formats: each struct owns one bit layout (as emulators and picasso decode it)
//! and nothing else — what an opcode *means* is decided by the interpreter and the frontend.
//! Every format decodes any word (fields are masked to their widths) and encodes back; `USED`
//! is the set of bits the format reads, opcode bits included, so `encode(decode(w)) == w`
//! whenever `w & !USED == 0`.
//!
//! | format | fields (bit ranges inclusive)                                                           |
//! |--------|-----------------------------------------------------------------------------------------|
//! | 1      | DST `[25:21]`, IDX `[20:19]`, SRC1 (7) `[18:12]`, SRC2 (5) `[11:7]`, DESC (7) `[6:0]`              |
//! | 1u     | DST `[25:21]`, IDX `[20:19]`, SRC1 (7) `[18:12]`, DESC (7) `[6:0]`; `[11:7]` unused                |
//! | 1i     | DST `[25:21]`, IDX `[20:19]`, SRC1 (5) `[18:14]`, SRC2 (7) `[13:7]`, DESC (7) `[6:0]`              |
//! | 1c     | CMPX `[26:24]`, CMPY `[23:21]`, IDX `[20:19]`, SRC1 (7) `[18:12]`, SRC2 (5) `[11:7]`, DESC `[6:0]`   |
//! | 0      | `[25:0]` unused                                                                            |
//! | 2      | REFX `[25]`, REFY `[24]`, CONDOP `[23:22]`, DEST `[21:10]`, NUM `[7:0]`; `[9:8]` unused              |
//! | 3 bool | ID `[25:22]`, DEST `[21:10]`, NUM `[7:0]`; `[9:8]` unused                                        |
//! | 3 int  | ID `[23:22]`, DEST `[21:10]`, NUM `[7:0]`; `[25:24]` and `[9:8]` unused                            |
//! | 4      | VTXID `[25:24]`, PRIMEMIT `[23]`, WINDING `[22]`; `[21:0]` unused                                 |
//! | 5      | DST `[28:24]`, IDX `[23:22]`, SRC1 (5) `[21:17]`, SRC2 (7) `[16:10]`, SRC3 (5) `[9:5]`, DESC (5) `[4:0]` |
//! | 5i     | DST `[28:24]`, IDX `[23:22]`, SRC1 (5) `[21:17]`, SRC2 (5) `[16:12]`, SRC3 (7) `[11:5]`, DESC (5) `[4:0]` |

use super::reg::{Dst, Src};

/// Bits `[hi:lo]` of `word`.
const fn field(word: u32, hi: u32, lo: u32) -> u32 {
    (word >> lo) & ((1u32 << (hi - lo + 1)) - 1)
}

/// `value` placed at bits `[hi:lo]` (truncated to the field's width).
const fn place(value: u32, hi: u32, lo: u32) -> u32 {
    (value & ((1u32 << (hi - lo + 1)) - 1)) << lo
}

/// Mask of bits `[hi:lo]`.
const fn span(hi: u32, lo: u32) -> u32 {
    place(u32::MAX, hi, lo)
}

/// The opcode field, used by every format.
const OPCODE_BITS: u32 = span(31, 26);

/// The instruction formats (one per bit layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Format 0: no operands.
    Fmt0,
    /// Format 1: two sources, SRC1 wide.
    Fmt1,
    /// Format 1u: one wide source.
    Fmt1u,
    /// Format 1i: two sources, SRC2 wide.
    Fmt1i,
    /// Format 1c: compare.
    Fmt1c,
    /// Format 2: condition on cc.
    Fmt2,
    /// Format 3 with a bool uniform id.
    Fmt3b,
    /// Format 3 with an int uniform id.
    Fmt3i,
    /// Format 4: SETEMIT.
    Fmt4,
    /// Format 5: MAD, SRC2 wide.
    Fmt5,
    /// Format 5i: MADI, SRC3 wide.
    Fmt5i,
    /// An undefined opcode: the whole word is kept.
    Raw,
}

/// Which address register offsets the one relative-addressable operand (the wide source of
/// the format; only float uniforms are offset, see [`crate::interp`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AddrIdx {
    #[default]
    None,
    A0x,
    A0y,
    AL,
}

impl AddrIdx {
    const fn from_bits(b: u32) -> AddrIdx {
        match b & 3 {
            0 => AddrIdx::None,
            1 => AddrIdx::A0x,
            2 => AddrIdx::A0y,
            _ => AddrIdx::AL,
        }
    }
    /// The 2-bit field value.
    pub const fn bits(self) -> u32 {
        self as u32
    }
}

/// CMP comparison operators; 6 and 7 are always true.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    True6,
    True7,
}

impl CmpOp {
    /// All eight operators in encoding order.
    pub const ALL: [CmpOp; 8] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
        CmpOp::True6,
        CmpOp::True7,
    ];
    const fn from_bits(b: u32) -> CmpOp {
        CmpOp::ALL[(b & 7) as usize]
    }
    /// The 3-bit field value.
    pub const fn bits(self) -> u32 {
        self as u32
    }
}

/// How a format-2 condition combines the two cc tests (`cc.x == REFX`, `cc.y == REFY`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CondOp {
    Or,
    And,
    X,
    Y,
}

impl CondOp {
    const fn from_bits(b: u32) -> CondOp {
        match b & 3 {
            0 => CondOp::Or,
            1 => CondOp::And,
            2 => CondOp::X,
            _ => CondOp::Y,
        }
    }
    /// The 2-bit field value.
    pub const fn bits(self) -> u32 {
        self as u32
    }
}

/// Format 0: no operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fmt0;

impl Fmt0 {
    pub const USED: u32 = OPCODE_BITS;
    pub const fn decode(_word: u32) -> Fmt0 {
        Fmt0
    }
    pub const fn encode(&self) -> u32 {
        0
    }
}

/// Format 1: `op dst, src1 (wide), src2 (narrow)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fmt1 {
    pub dst: Dst,
    pub idx: AddrIdx,
    pub src1: Src,
    pub src2: Src,
    pub desc: u8,
}

impl Fmt1 {
    pub const USED: u32 = OPCODE_BITS | span(25, 0);
    pub const fn decode(w: u32) -> Fmt1 {
        Fmt1 {
            dst: Dst(field(w, 25, 21) as u8),
            idx: AddrIdx::from_bits(field(w, 20, 19)),
            src1: Src(field(w, 18, 12) as u8),
            src2: Src(field(w, 11, 7) as u8),
            desc: field(w, 6, 0) as u8,
        }
    }
    pub const fn encode(&self) -> u32 {
        place(self.dst.0 as u32, 25, 21)
            | place(self.idx.bits(), 20, 19)
            | place(self.src1.0 as u32, 18, 12)
            | place(self.src2.0 as u32, 11, 7)
            | place(self.desc as u32, 6, 0)
    }
}

/// Format 1u: `op dst, src1 (wide)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fmt1u {
    pub dst: Dst,
    pub idx: AddrIdx,
    pub src1: Src,
    pub desc: u8,
}

impl Fmt1u {
    pub const USED: u32 = OPCODE_BITS | span(25, 12) | span(6, 0);
    pub const fn decode(w: u32) -> Fmt1u {
        Fmt1u {
            dst: Dst(field(w, 25, 21) as u8),
            idx: AddrIdx::from_bits(field(w, 20, 19)),
            src1: Src(field(w, 18, 12) as u8),
            desc: field(w, 6, 0) as u8,
        }
    }
    pub const fn encode(&self) -> u32 {
        place(self.dst.0 as u32, 25, 21)
            | place(self.idx.bits(), 20, 19)
            | place(self.src1.0 as u32, 18, 12)
            | place(self.desc as u32, 6, 0)
    }
}

/// Format 1i: `op dst, src1 (narrow), src2 (wide)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fmt1i {
    pub dst: Dst,
    pub idx: AddrIdx,
    pub src1: Src,
    pub src2: Src,
    pub desc: u8,
}

impl Fmt1i {
    pub const USED: u32 = OPCODE_BITS | span(25, 0);
    pub const fn decode(w: u32) -> Fmt1i {
        Fmt1i {
            dst: Dst(field(w, 25, 21) as u8),
            idx: AddrIdx::from_bits(field(w, 20, 19)),
            src1: Src(field(w, 18, 14) as u8),
            src2: Src(field(w, 13, 7) as u8),
            desc: field(w, 6, 0) as u8,
        }
    }
    pub const fn encode(&self) -> u32 {
        place(self.dst.0 as u32, 25, 21)
            | place(self.idx.bits(), 20, 19)
            | place(self.src1.0 as u32, 18, 14)
            | place(self.src2.0 as u32, 13, 7)
            | place(self.desc as u32, 6, 0)
    }
}

/// Format 1c: `cmp src1 (wide), cmpx, cmpy, src2 (narrow)`. CMPX overlaps opcode bit 26.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fmt1c {
    pub cmpx: CmpOp,
    pub cmpy: CmpOp,
    pub idx: AddrIdx,
    pub src1: Src,
    pub src2: Src,
    pub desc: u8,
}

impl Fmt1c {
    pub const USED: u32 = OPCODE_BITS | span(26, 0);
    pub const fn decode(w: u32) -> Fmt1c {
        Fmt1c {
            cmpx: CmpOp::from_bits(field(w, 26, 24)),
            cmpy: CmpOp::from_bits(field(w, 23, 21)),
            idx: AddrIdx::from_bits(field(w, 20, 19)),
            src1: Src(field(w, 18, 12) as u8),
            src2: Src(field(w, 11, 7) as u8),
            desc: field(w, 6, 0) as u8,
        }
    }
    pub const fn encode(&self) -> u32 {
        place(self.cmpx.bits(), 26, 24)
            | place(self.cmpy.bits(), 23, 21)
            | place(self.idx.bits(), 20, 19)
            | place(self.src1.0 as u32, 18, 12)
            | place(self.src2.0 as u32, 11, 7)
            | place(self.desc as u32, 6, 0)
    }
}

/// Format 2: a control transfer conditioned on cc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fmt2 {
    pub refx: bool,
    pub refy: bool,
    pub condop: CondOp,
    /// Target word address (12 bits).
    pub dest: u16,
    /// Instruction count (8 bits).
    pub num: u8,
}

impl Fmt2 {
    pub const USED: u32 = OPCODE_BITS | span(25, 10) | span(7, 0);
    pub const fn decode(w: u32) -> Fmt2 {
        Fmt2 {
            refx: field(w, 25, 25) != 0,
            refy: field(w, 24, 24) != 0,
            condop: CondOp::from_bits(field(w, 23, 22)),
            dest: field(w, 21, 10) as u16,
            num: field(w, 7, 0) as u8,
        }
    }
    pub const fn encode(&self) -> u32 {
        place(self.refx as u32, 25, 25)
            | place(self.refy as u32, 24, 24)
            | place(self.condop.bits(), 23, 22)
            | place(self.dest as u32, 21, 10)
            | place(self.num as u32, 7, 0)
    }
}

/// Format 3 with a bool uniform id (CALLU, IFU, JMPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fmt3b {
    /// Bool uniform b0..b15.
    pub id: u8,
    pub dest: u16,
    pub num: u8,
}

impl Fmt3b {
    pub const USED: u32 = OPCODE_BITS | span(25, 10) | span(7, 0);
    pub const fn decode(w: u32) -> Fmt3b {
        Fmt3b {
            id: field(w, 25, 22) as u8,
            dest: field(w, 21, 10) as u16,
            num: field(w, 7, 0) as u8,
        }
    }
    pub const fn encode(&self) -> u32 {
        place(self.id as u32, 25, 22)
            | place(self.dest as u32, 21, 10)
            | place(self.num as u32, 7, 0)
    }
}

/// Format 3 with an int uniform id (LOOP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fmt3i {
    /// Int uniform i0..i3.
    pub id: u8,
    pub dest: u16,
    pub num: u8,
}

impl Fmt3i {
    pub const USED: u32 = OPCODE_BITS | span(23, 10) | span(7, 0);
    pub const fn decode(w: u32) -> Fmt3i {
        Fmt3i {
            id: field(w, 23, 22) as u8,
            dest: field(w, 21, 10) as u16,
            num: field(w, 7, 0) as u8,
        }
    }
    pub const fn encode(&self) -> u32 {
        place(self.id as u32, 23, 22)
            | place(self.dest as u32, 21, 10)
            | place(self.num as u32, 7, 0)
    }
}

/// Format 4: SETEMIT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fmt4 {
    /// Emitter slot 0..3.
    pub vertex: u8,
    pub primitive: bool,
    pub winding: bool,
}

impl Fmt4 {
    pub const USED: u32 = OPCODE_BITS | span(25, 22);
    pub const fn decode(w: u32) -> Fmt4 {
        Fmt4 {
            vertex: field(w, 25, 24) as u8,
            primitive: field(w, 23, 23) != 0,
            winding: field(w, 22, 22) != 0,
        }
    }
    pub const fn encode(&self) -> u32 {
        place(self.vertex as u32, 25, 24)
            | place(self.primitive as u32, 23, 23)
            | place(self.winding as u32, 22, 22)
    }
}

/// Format 5: `mad dst, src1 (narrow), src2 (wide), src3 (narrow)`. DST overlaps opcode bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fmt5 {
    pub dst: Dst,
    pub idx: AddrIdx,
    pub src1: Src,
    pub src2: Src,
    pub src3: Src,
    /// Descriptor index, 5 bits (entries 0..31).
    pub desc: u8,
}

impl Fmt5 {
    pub const USED: u32 = u32::MAX;
    pub const fn decode(w: u32) -> Fmt5 {
        Fmt5 {
            dst: Dst(field(w, 28, 24) as u8),
            idx: AddrIdx::from_bits(field(w, 23, 22)),
            src1: Src(field(w, 21, 17) as u8),
            src2: Src(field(w, 16, 10) as u8),
            src3: Src(field(w, 9, 5) as u8),
            desc: field(w, 4, 0) as u8,
        }
    }
    pub const fn encode(&self) -> u32 {
        place(self.dst.0 as u32, 28, 24)
            | place(self.idx.bits(), 23, 22)
            | place(self.src1.0 as u32, 21, 17)
            | place(self.src2.0 as u32, 16, 10)
            | place(self.src3.0 as u32, 9, 5)
            | place(self.desc as u32, 4, 0)
    }
}

/// Format 5i: `madi dst, src1 (narrow), src2 (narrow), src3 (wide)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fmt5i {
    pub dst: Dst,
    pub idx: AddrIdx,
    pub src1: Src,
    pub src2: Src,
    pub src3: Src,
    /// Descriptor index, 5 bits (entries 0..31).
    pub desc: u8,
}

impl Fmt5i {
    pub const USED: u32 = u32::MAX;
    pub const fn decode(w: u32) -> Fmt5i {
        Fmt5i {
            dst: Dst(field(w, 28, 24) as u8),
            idx: AddrIdx::from_bits(field(w, 23, 22)),
            src1: Src(field(w, 21, 17) as u8),
            src2: Src(field(w, 16, 12) as u8),
            src3: Src(field(w, 11, 5) as u8),
            desc: field(w, 4, 0) as u8,
        }
    }
    pub const fn encode(&self) -> u32 {
        place(self.dst.0 as u32, 28, 24)
            | place(self.idx.bits(), 23, 22)
            | place(self.src1.0 as u32, 21, 17)
            | place(self.src2.0 as u32, 16, 12)
            | place(self.src3.0 as u32, 11, 5)
            | place(self.desc as u32, 4, 0)
    }
}

/// An undefined opcode: the whole word, kept for lossless round trips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RawWord(pub u32);

impl RawWord {
    pub const USED: u32 = u32::MAX;
    pub const fn decode(w: u32) -> RawWord {
        RawWord(w)
    }
    /// The whole word minus the opcode bits (the table ORs its own value back in).
    pub const fn encode(&self) -> u32 {
        self.0 & !OPCODE_BITS
    }
    /// The 6-bit opcode value the word carries.
    pub const fn opcode_value(&self) -> u8 {
        (self.0 >> 26) as u8
    }
}

/// What every format provides to the opcode table's generated decode and encode.
pub trait Layout: Sized {
    /// The format this layout implements.
    const FORMAT: Format;
    /// The bits the format reads, opcode bits included.
    const USED: u32;
    /// Decodes any word.
    fn decode_word(word: u32) -> Self;
    /// The operand bits (opcode bits excluded, except fields that overlap them).
    fn encode_fields(&self) -> u32;
    /// An opcode value carried by the operands themselves (only [`RawWord`]).
    fn own_opcode(&self) -> Option<u8> {
        None
    }
}

macro_rules! impl_layout {
    ($($ty:ident),*) => {$(
        impl Layout for $ty {
            const FORMAT: Format = Format::$ty;
            const USED: u32 = $ty::USED;
            fn decode_word(word: u32) -> Self {
                $ty::decode(word)
            }
            fn encode_fields(&self) -> u32 {
                self.encode()
            }
        }
    )*};
}
impl_layout!(Fmt0, Fmt1, Fmt1u, Fmt1i, Fmt1c, Fmt2, Fmt3b, Fmt3i, Fmt4, Fmt5, Fmt5i);

impl Layout for RawWord {
    const FORMAT: Format = Format::Raw;
    const USED: u32 = RawWord::USED;
    fn decode_word(word: u32) -> Self {
        RawWord(word)
    }
    fn encode_fields(&self) -> u32 {
        self.encode()
    }
    fn own_opcode(&self) -> Option<u8> {
        Some(self.opcode_value())
    }
}
