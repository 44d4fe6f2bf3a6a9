//! The one AGAL opcode table. Each row names an opcode, its mnemonic, its 32-bit opcode value,
//! the shape of its operands, the lowest AGAL version that has it, the program kind that may use
//! it, whether Adobe's AGALMiniAssembler (the 2015 copy with `tld`) knows it and how it gates it,
//! whether its result has a `w` lane, which result lanes its sources feed, its part in
//! conditional blocks and what a conditional block allows of it.
//!
//! From this table the macro generates [`Opcode`], the value→opcode map and every per-opcode
//! property; the token codec, the validator, the assembler, the disassembler, the interpreter
//! and the fuzz generators all read it. Values 0x22–0x25 and everything above 0x2E are not
//! opcodes (the 2011 pre-release flow-control set that used some of them never shipped).

/// Which operands an opcode takes, in token order (destination, source 1, source 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `op D, S1`.
    DestSrc,
    /// `op D, S1, S2`.
    DestSrcSrc,
    /// `op D, S1, SAMPLER`: source 2 is a sampler field.
    DestSrcSampler,
    /// `op S1, S2` with the destination field zero (`ife`, `ine`, `ifg`, `ifl`).
    SrcSrc,
    /// `op S1` with the destination field zero (`kil`).
    Src,
    /// No operands; every field zero (`els`, `eif`).
    None,
}

impl Shape {
    /// The operands as written in assembly, in order (AGALMiniAssembler's operand count).
    pub const fn text_operands(self) -> usize {
        match self {
            Shape::DestSrc | Shape::SrcSrc => 2,
            Shape::DestSrcSrc | Shape::DestSrcSampler => 3,
            Shape::Src => 1,
            Shape::None => 0,
        }
    }

    /// True when the token has a destination operand.
    pub const fn has_dest(self) -> bool {
        matches!(
            self,
            Shape::DestSrc | Shape::DestSrcSrc | Shape::DestSrcSampler
        )
    }

    /// True when the token has source 1.
    pub const fn has_src1(self) -> bool {
        !matches!(self, Shape::None)
    }

    /// True when source 2 is a register source.
    pub const fn has_src2(self) -> bool {
        matches!(self, Shape::DestSrcSrc | Shape::SrcSrc)
    }

    /// True when source 2 is a sampler field.
    pub const fn has_sampler(self) -> bool {
        matches!(self, Shape::DestSrcSampler)
    }
}

/// Which program kind may use an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Vertex and fragment programs.
    Both,
    /// Vertex programs only (`tld`).
    Vertex,
    /// Fragment programs only (`kil`, `tex`, `ddx`, `ddy`, `ted`).
    Fragment,
}

/// How Adobe's AGALMiniAssembler treats an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AsmGate {
    /// Assembled under any version.
    Any,
    /// Refused under version < 2 ("opcode requires version 2"): its `OP_VERSION2` flag.
    Version2,
    /// Not in its table (`ted` is commented out there): no text form.
    Absent,
}

/// Whether the result has a `w` lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lanes {
    /// Four lanes.
    Xyzw,
    /// Three lanes: the destination must not write `w` (Flash error #3628).
    Xyz,
}

/// The result lanes each source operand feeds, before its swizzle: what the validator checks
/// for reads of unwritten temporaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reads {
    /// The lanes of the destination's write mask (component-wise opcodes).
    Dest,
    /// `x` only (the conditions and `kil`).
    X,
    /// `x`, `y`, `z` (`dp3`, `nrm`, `crs`, `m33`).
    Xyz,
    /// All four (`dp4`, `m34`, `m44`).
    Xyzw,
    /// The texture coordinates of the sampler's dimension: `xy` for 2D, `xyz` for cube.
    Coords,
    /// The coordinates and the explicit level of detail in `w` (`tld`).
    CoordsLod,
    /// No source (`els`, `eif`).
    Nothing,
}

/// The comparison of a conditional opcode, between the `x` lanes of source 1 and source 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    /// `ife`: equal.
    Eq,
    /// `ine`: not equal.
    Ne,
    /// `ifg`: source 1 greater.
    Gt,
    /// `ifl`: source 1 less.
    Lt,
}

/// An opcode's part in conditional blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flow {
    /// Not a block opcode.
    Straight,
    /// Opens a block taken where the comparison holds.
    If(Cond),
    /// Switches the innermost block to its other lanes.
    Else,
    /// Closes the innermost block.
    EndIf,
}

/// What a conditional block allows of an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InBlock {
    /// Anywhere.
    Free,
    /// Refused inside a block (`ddx`, `ddy`: Flash error #3742).
    Refused,
    /// Inside a block only with a varying as its coordinate (`tex`: #3741).
    VaryingCoords,
}

macro_rules! opcode_table {
    ($( $variant:ident $mnemonic:literal $value:literal $shape:ident
        $version:literal $stage:ident $gate:ident $lanes:ident $reads:ident
        $flow:ident $(($cond:ident))? $block:ident $matrix:expr ; )*) => {
        /// An AGAL opcode.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode { $($variant),* }

        impl Opcode {
            /// Every opcode, in table order (ascending value).
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant),*];

            /// The assembler mnemonic (lower case, three letters).
            pub const fn mnemonic(self) -> &'static str {
                match self { $(Opcode::$variant => $mnemonic),* }
            }

            /// The value of the token's opcode field.
            pub const fn value(self) -> u32 {
                match self { $(Opcode::$variant => $value),* }
            }

            /// The operands.
            pub const fn shape(self) -> Shape {
                match self { $(Opcode::$variant => Shape::$shape),* }
            }

            /// The lowest AGAL version that has the opcode.
            pub const fn min_version(self) -> u32 {
                match self { $(Opcode::$variant => $version),* }
            }

            /// The program kinds that may use it.
            pub const fn stage(self) -> Stage {
                match self { $(Opcode::$variant => Stage::$stage),* }
            }

            /// How AGALMiniAssembler treats it.
            pub const fn asm_gate(self) -> AsmGate {
                match self { $(Opcode::$variant => AsmGate::$gate),* }
            }

            /// Whether the result has a `w` lane.
            pub const fn lanes(self) -> Lanes {
                match self { $(Opcode::$variant => Lanes::$lanes),* }
            }

            /// The result lanes each source feeds.
            pub const fn reads(self) -> Reads {
                match self { $(Opcode::$variant => Reads::$reads),* }
            }

            /// Its part in conditional blocks.
            pub const fn flow(self) -> Flow {
                match self { $(Opcode::$variant => Flow::$flow $((Cond::$cond))?),* }
            }

            /// What a conditional block allows of it.
            pub const fn in_block(self) -> InBlock {
                match self { $(Opcode::$variant => InBlock::$block),* }
            }

            /// For `m33`/`m34`/`m44`: the rows of the matrix operand (3, 3, 4) and the dot
            /// width of each row (3, 4, 4); `None` for the other opcodes.
            pub const fn matrix(self) -> Option<(u16, usize)> {
                match self { $(Opcode::$variant => $matrix),* }
            }
        }

        /// Opcode of each value 0..=0x2E (`None` for the holes).
        const OPCODE_OF_VALUE: [Option<Opcode>; 0x2F] = {
            let mut map = [None; 0x2F];
            $(
                assert!(map[$value].is_none(), "opcode value listed twice");
                map[$value] = Some(Opcode::$variant);
            )*
            map
        };
    };
}

opcode_table! {
//  variant mnem   value shape           ver stage    asm      lanes reads     flow     in block      matrix
    Mov     "mov"  0x00  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Add     "add"  0x01  DestSrcSrc      1   Both     Any      Xyzw Dest      Straight Free          None;
    Sub     "sub"  0x02  DestSrcSrc      1   Both     Any      Xyzw Dest      Straight Free          None;
    Mul     "mul"  0x03  DestSrcSrc      1   Both     Any      Xyzw Dest      Straight Free          None;
    Div     "div"  0x04  DestSrcSrc      1   Both     Any      Xyzw Dest      Straight Free          None;
    Rcp     "rcp"  0x05  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Min     "min"  0x06  DestSrcSrc      1   Both     Any      Xyzw Dest      Straight Free          None;
    Max     "max"  0x07  DestSrcSrc      1   Both     Any      Xyzw Dest      Straight Free          None;
    Frc     "frc"  0x08  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Sqt     "sqt"  0x09  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Rsq     "rsq"  0x0A  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Pow     "pow"  0x0B  DestSrcSrc      1   Both     Any      Xyzw Dest      Straight Free          None;
    Log     "log"  0x0C  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Exp     "exp"  0x0D  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Nrm     "nrm"  0x0E  DestSrc         1   Both     Any      Xyz Xyz       Straight Free          None;
    Sin     "sin"  0x0F  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Cos     "cos"  0x10  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Crs     "crs"  0x11  DestSrcSrc      1   Both     Any      Xyz Xyz       Straight Free          None;
    Dp3     "dp3"  0x12  DestSrcSrc      1   Both     Any      Xyzw Xyz       Straight Free          None;
    Dp4     "dp4"  0x13  DestSrcSrc      1   Both     Any      Xyzw Xyzw      Straight Free          None;
    Abs     "abs"  0x14  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Neg     "neg"  0x15  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Sat     "sat"  0x16  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    M33     "m33"  0x17  DestSrcSrc      1   Both     Any      Xyz Xyz       Straight Free          Some((3, 3));
    M44     "m44"  0x18  DestSrcSrc      1   Both     Any      Xyzw Xyzw      Straight Free          Some((4, 4));
    M34     "m34"  0x19  DestSrcSrc      1   Both     Any      Xyz Xyzw      Straight Free          Some((3, 4));
    Ddx     "ddx"  0x1A  DestSrc         2   Fragment Version2 Xyzw Dest      Straight Refused       None;
    Ddy     "ddy"  0x1B  DestSrc         2   Fragment Version2 Xyzw Dest      Straight Refused       None;
    Ife     "ife"  0x1C  SrcSrc          2   Both     Version2 Xyzw X         If(Eq)   Free          None;
    Ine     "ine"  0x1D  SrcSrc          2   Both     Version2 Xyzw X         If(Ne)   Free          None;
    Ifg     "ifg"  0x1E  SrcSrc          2   Both     Version2 Xyzw X         If(Gt)   Free          None;
    Ifl     "ifl"  0x1F  SrcSrc          2   Both     Version2 Xyzw X         If(Lt)   Free          None;
    Els     "els"  0x20  None            2   Both     Version2 Xyzw Nothing   Else     Free          None;
    Eif     "eif"  0x21  None            2   Both     Version2 Xyzw Nothing   EndIf    Free          None;
    Ted     "ted"  0x26  DestSrcSampler  2   Fragment Absent   Xyzw Coords    Straight Free          None;
    Kil     "kil"  0x27  Src             1   Fragment Any      Xyzw X         Straight Free          None;
    Tex     "tex"  0x28  DestSrcSampler  1   Fragment Any      Xyzw Coords    Straight VaryingCoords None;
    Sge     "sge"  0x29  DestSrcSrc      1   Both     Any      Xyzw Dest      Straight Free          None;
    Slt     "slt"  0x2A  DestSrcSrc      1   Both     Any      Xyzw Dest      Straight Free          None;
    Sgn     "sgn"  0x2B  DestSrc         1   Both     Any      Xyzw Dest      Straight Free          None;
    Seq     "seq"  0x2C  DestSrcSrc      1   Both     Any      Xyzw Dest      Straight Free          None;
    Sne     "sne"  0x2D  DestSrcSrc      1   Both     Any      Xyzw Dest      Straight Free          None;
    Tld     "tld"  0x2E  DestSrcSampler  4   Vertex   Any      Xyzw CoordsLod Straight Free          None;
}

impl Opcode {
    /// The opcode of a token's opcode field, or `None` for a value that is not an opcode.
    pub const fn from_value(value: u32) -> Option<Opcode> {
        if value < OPCODE_OF_VALUE.len() as u32 {
            OPCODE_OF_VALUE[value as usize]
        } else {
            None
        }
    }

    /// The opcode of a mnemonic as AGALMiniAssembler knows it (exact, lower case); `ted` has
    /// none.
    pub fn from_mnemonic(text: &str) -> Option<Opcode> {
        Opcode::ALL
            .iter()
            .copied()
            .find(|op| op.mnemonic() == text && op.asm_gate() != AsmGate::Absent)
    }
}
