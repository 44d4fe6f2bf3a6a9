//! The one PICA200 opcode table. Each row names an opcode, its mnemonic, its format (which fixes
//! the operand struct) and the 6-bit opcode values that decode to it — all 64 values are covered
//! exactly once (checked at compile time), including the CMP (0x2E–0x2F), MADI (0x30–0x37) and
//! MAD (0x38–0x3F) aliases whose operand fields overlap the opcode bits, and the undefined values.
//!
//! From this table the macro generates [`Opcode`], [`Instruction`] (one variant per opcode,
//! carrying its format's operands), the value→opcode map, `decode` and `encode`.

use super::format::{
    Fmt0, Fmt1, Fmt1c, Fmt1i, Fmt1u, Fmt2, Fmt3b, Fmt3i, Fmt4, Fmt5, Fmt5i, Format, Layout, RawWord,
};

macro_rules! opcode_table {
    ($( $variant:ident $mnemonic:literal $fmt:ident [$($value:literal),+] ; )*) => {
        /// A PICA200 opcode (aliases folded, undefined values folded into `Undefined`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode { $($variant),* }

        /// A decoded instruction: the opcode and its format's operands.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Instruction { $($variant($fmt)),* }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant),*];

            /// The assembler mnemonic (lowercase).
            pub const fn mnemonic(self) -> &'static str {
                match self { $(Opcode::$variant => $mnemonic),* }
            }

            /// The format of the operands.
            pub const fn format(self) -> Format {
                match self { $(Opcode::$variant => <$fmt as Layout>::FORMAT),* }
            }

            /// The opcode values that decode to this opcode; the first is the one encoded.
            pub const fn values(self) -> &'static [u8] {
                match self { $(Opcode::$variant => &[$($value),+]),* }
            }

            /// The bits an instruction of this opcode reads, opcode bits included.
            pub const fn used_bits(self) -> u32 {
                match self { $(Opcode::$variant => <$fmt as Layout>::USED),* }
            }

            /// The opcode of a 6-bit opcode value.
            pub const fn from_value(value: u8) -> Opcode {
                OPCODE_OF_VALUE[(value & 0x3F) as usize]
            }
        }

        const OPCODE_OF_VALUE: [Opcode; 64] = {
            let mut map = [Opcode::Undefined; 64];
            let mut seen = [false; 64];
            $($(
                assert!(!seen[$value], "opcode value listed twice");
                seen[$value] = true;
                map[$value] = Opcode::$variant;
            )+)*
            let mut v = 0;
            while v < 64 {
                assert!(seen[v], "opcode value missing from the table");
                v += 1;
            }
            map
        };

        impl Instruction {
            /// Decodes any word (total: never fails).
            pub fn decode(word: u32) -> Instruction {
                match Opcode::from_value((word >> 26) as u8) {
                    $(Opcode::$variant => Instruction::$variant(<$fmt as Layout>::decode_word(word))),*
                }
            }

            /// Encodes the instruction; `encode(decode(w)) == w` when `w`'s unused bits are 0.
            pub fn encode(&self) -> u32 {
                match self {
                    $(Instruction::$variant(f) => {
                        let value = f.own_opcode().unwrap_or(Opcode::$variant.values()[0]);
                        (u32::from(value) << 26) | f.encode_fields()
                    })*
                }
            }

            /// The opcode.
            pub const fn opcode(&self) -> Opcode {
                match self { $(Instruction::$variant(_) => Opcode::$variant),* }
            }
        }
    };
}

opcode_table! {
    Add     "add"     Fmt1  [0x00];
    Dp3     "dp3"     Fmt1  [0x01];
    Dp4     "dp4"     Fmt1  [0x02];
    Dph     "dph"     Fmt1  [0x03];
    Dst     "dst"     Fmt1  [0x04];
    Ex2     "ex2"     Fmt1u [0x05];
    Lg2     "lg2"     Fmt1u [0x06];
    Litp    "litp"    Fmt1u [0x07];
    Mul     "mul"     Fmt1  [0x08];
    Sge     "sge"     Fmt1  [0x09];
    Slt     "slt"     Fmt1  [0x0A];
    Flr     "flr"     Fmt1u [0x0B];
    Max     "max"     Fmt1  [0x0C];
    Min     "min"     Fmt1  [0x0D];
    Rcp     "rcp"     Fmt1u [0x0E];
    Rsq     "rsq"     Fmt1u [0x0F];
    Mova    "mova"    Fmt1u [0x12];
    Mov     "mov"     Fmt1u [0x13];
    Dphi    "dphi"    Fmt1i [0x18];
    Dsti    "dsti"    Fmt1i [0x19];
    Sgei    "sgei"    Fmt1i [0x1A];
    Slti    "slti"    Fmt1i [0x1B];
    Break   "break"   Fmt0  [0x20];
    Nop     "nop"     Fmt0  [0x21];
    End     "end"     Fmt0  [0x22];
    Breakc  "breakc"  Fmt2  [0x23];
    Call    "call"    Fmt2  [0x24];
    Callc   "callc"   Fmt2  [0x25];
    Callu   "callu"   Fmt3b [0x26];
    Ifu     "ifu"     Fmt3b [0x27];
    Ifc     "ifc"     Fmt2  [0x28];
    Loop    "loop"    Fmt3i [0x29];
    Emit    "emit"    Fmt0  [0x2A];
    Setemit "setemit" Fmt4  [0x2B];
    Jmpc    "jmpc"    Fmt2  [0x2C];
    Jmpu    "jmpu"    Fmt3b [0x2D];
    Cmp     "cmp"     Fmt1c [0x2E, 0x2F];
    Madi    "madi"    Fmt5i [0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37];
    Mad     "mad"     Fmt5  [0x38, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F];
    Undefined "undefined" RawWord [0x10, 0x11, 0x14, 0x15, 0x16, 0x17, 0x1C, 0x1D, 0x1E, 0x1F];
}
