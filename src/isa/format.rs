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
    /// All four selectors in encoding order.
    pub const ALL: [AddrIdx; 4] = [AddrIdx::None, AddrIdx::A0x, AddrIdx::A0y, AddrIdx::AL];
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
    /// All four combinations in encoding order.
    pub const ALL: [CondOp; 4] = [CondOp::Or, CondOp::And, CondOp::X, CondOp::Y];
}

/// A value kept in one bit field of an instruction word. `from_field` receives the field
/// already masked to its width; `to_field` may return more bits than the field holds (the
/// encoder truncates).
trait Field: Copy {
    fn from_field(bits: u32) -> Self;
    fn to_field(self) -> u32;
}

impl Field for u8 {
    fn from_field(bits: u32) -> u8 {
        bits as u8
    }
    fn to_field(self) -> u32 {
        u32::from(self)
    }
}

impl Field for u16 {
    fn from_field(bits: u32) -> u16 {
        bits as u16
    }
    fn to_field(self) -> u32 {
        u32::from(self)
    }
}

impl Field for bool {
    fn from_field(bits: u32) -> bool {
        bits != 0
    }
    fn to_field(self) -> u32 {
        u32::from(self)
    }
}

impl Field for Dst {
    fn from_field(bits: u32) -> Dst {
        Dst(bits as u8)
    }
    fn to_field(self) -> u32 {
        u32::from(self.0)
    }
}

impl Field for Src {
    fn from_field(bits: u32) -> Src {
        Src(bits as u8)
    }
    fn to_field(self) -> u32 {
        u32::from(self.0)
    }
}

/// Enums kept by their encoding order: decoded as `ALL[bits]`, encoded as the discriminant.
macro_rules! enum_fields {
    ($($ty:ident),*) => {$(
        impl Field for $ty {
            fn from_field(bits: u32) -> $ty {
                $ty::ALL[bits as usize % $ty::ALL.len()]
            }
            fn to_field(self) -> u32 {
                self as u32
            }
        }
    )*};
}
enum_fields!(AddrIdx, CmpOp, CondOp);

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

/// Declares each operand format once: its fields and their bit ranges `[hi:lo]`. The struct,
/// the bits it reads (`USED`), its decoder and its encoder all come from that one list.
macro_rules! formats {
    ($(
        $(#[$doc:meta])*
        $ty:ident ($($derive:ident),*) {
            $($(#[$fdoc:meta])* $name:ident: $fty:ty = [$hi:literal : $lo:literal]),+ $(,)?
        }
    )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash $(, $derive)*)]
        pub struct $ty {
            $($(#[$fdoc])* pub $name: $fty),+
        }

        impl $ty {
            /// Decodes any word (each field masked to its width).
            pub fn decode(w: u32) -> $ty {
                $ty { $($name: Field::from_field(field(w, $hi, $lo))),+ }
            }
            /// The operand bits of the word (the opcode table ORs the opcode in).
            pub fn encode(&self) -> u32 {
                0 $(| place(self.$name.to_field(), $hi, $lo))+
            }
        }

        impl Layout for $ty {
            const FORMAT: Format = Format::$ty;
            const USED: u32 = OPCODE_BITS $(| span($hi, $lo))+;
            fn decode_word(w: u32) -> $ty {
                $ty::decode(w)
            }
            fn encode_fields(&self) -> u32 {
                self.encode()
            }
        }
    )*};
}

/// Format 0: no operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fmt0;

impl Layout for Fmt0 {
    const FORMAT: Format = Format::Fmt0;
    const USED: u32 = OPCODE_BITS;
    fn decode_word(_word: u32) -> Fmt0 {
        Fmt0
    }
    fn encode_fields(&self) -> u32 {
        0
    }
}

formats! {
    /// Format 1: `op dst, src1 (wide), src2 (narrow)`.
    Fmt1 (Default) {
        dst: Dst = [25:21],
        idx: AddrIdx = [20:19],
        src1: Src = [18:12],
        src2: Src = [11:7],
        desc: u8 = [6:0],
    }

    /// Format 1u: `op dst, src1 (wide)`.
    Fmt1u (Default) {
        dst: Dst = [25:21],
        idx: AddrIdx = [20:19],
        src1: Src = [18:12],
        desc: u8 = [6:0],
    }

    /// Format 1i: `op dst, src1 (narrow), src2 (wide)`.
    Fmt1i (Default) {
        dst: Dst = [25:21],
        idx: AddrIdx = [20:19],
        src1: Src = [18:14],
        src2: Src = [13:7],
        desc: u8 = [6:0],
    }

    /// Format 1c: `cmp src1 (wide), cmpx, cmpy, src2 (narrow)`. CMPX overlaps opcode bit 26.
    Fmt1c () {
        cmpx: CmpOp = [26:24],
        cmpy: CmpOp = [23:21],
        idx: AddrIdx = [20:19],
        src1: Src = [18:12],
        src2: Src = [11:7],
        desc: u8 = [6:0],
    }

    /// Format 2: a control transfer conditioned on cc.
    Fmt2 () {
        refx: bool = [25:25],
        refy: bool = [24:24],
        condop: CondOp = [23:22],
        /// Target word address (12 bits).
        dest: u16 = [21:10],
        /// Instruction count (8 bits).
        num: u8 = [7:0],
    }

    /// Format 3 with a bool uniform id (CALLU, IFU, JMPU).
    Fmt3b (Default) {
        /// Bool uniform b0..b15.
        id: u8 = [25:22],
        dest: u16 = [21:10],
        num: u8 = [7:0],
    }

    /// Format 3 with an int uniform id (LOOP).
    Fmt3i (Default) {
        /// Int uniform i0..i3.
        id: u8 = [23:22],
        dest: u16 = [21:10],
        num: u8 = [7:0],
    }

    /// Format 4: SETEMIT.
    Fmt4 (Default) {
        /// Emitter slot 0..3.
        vertex: u8 = [25:24],
        primitive: bool = [23:23],
        winding: bool = [22:22],
    }

    /// Format 5: `mad dst, src1 (narrow), src2 (wide), src3 (narrow)`. DST overlaps opcode bits.
    Fmt5 (Default) {
        dst: Dst = [28:24],
        idx: AddrIdx = [23:22],
        src1: Src = [21:17],
        src2: Src = [16:10],
        src3: Src = [9:5],
        /// Descriptor index, 5 bits (entries 0..31).
        desc: u8 = [4:0],
    }

    /// Format 5i: `madi dst, src1 (narrow), src2 (narrow), src3 (wide)`.
    Fmt5i (Default) {
        dst: Dst = [28:24],
        idx: AddrIdx = [23:22],
        src1: Src = [21:17],
        src2: Src = [16:12],
        src3: Src = [11:5],
        /// Descriptor index, 5 bits (entries 0..31).
        desc: u8 = [4:0],
    }
}

/// An undefined opcode: the whole word, kept for lossless round trips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RawWord(pub u32);

impl RawWord {
    /// The 6-bit opcode value the word carries.
    pub const fn opcode_value(&self) -> u8 {
        (self.0 >> 26) as u8
    }
}

impl Layout for RawWord {
    const FORMAT: Format = Format::Raw;
    const USED: u32 = u32::MAX;
    fn decode_word(word: u32) -> RawWord {
        RawWord(word)
    }
    /// The whole word minus the opcode bits (the table ORs its own value back in).
    fn encode_fields(&self) -> u32 {
        self.0 & !OPCODE_BITS
    }
    fn own_opcode(&self) -> Option<u8> {
        Some(self.opcode_value())
    }
}
