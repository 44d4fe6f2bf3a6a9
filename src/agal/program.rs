//! A validated AGAL program: the form the interpreter (and, later, the frontend) runs. Only
//! [`super::validate`](mod@super::validate) builds one, so every register number is in range, every operand's type
//! is allowed where it stands and every conditional block is closed; consumers match on
//! [`Opcode`] exhaustively and never meet an unknown value.

use super::header::ShaderKind;
use super::opcode::Opcode;
use super::reg::{RegType, Swizzle, WriteMask};
use super::sampling::SamplerState;

/// A register: type and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    /// The register file.
    pub file: RegType,
    /// The number in it.
    pub index: u16,
}

/// How a source names its register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Addr {
    /// A register.
    Direct(Reg),
    /// `vc[index.comp + offset]`: the constant numbered by component `comp` of register
    /// `index`, converted to an integer, plus `offset` (vertex programs only).
    Indirect {
        /// The index register (attribute, constant or temporary).
        index: Reg,
        /// The component of the index register (0..4 = x..w).
        comp: u8,
        /// Added to the index (0–255).
        offset: u8,
    },
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Src {
    /// The register.
    pub addr: Addr,
    /// Swizzle.
    pub swizzle: Swizzle,
}

/// A destination operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dst {
    /// The register (temporary, output, varying or depth output).
    pub reg: Reg,
    /// Write mask (never zero).
    pub mask: WriteMask,
}

/// The sampler operand of `tex`/`tld`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sampling {
    /// Texture unit (the sampler register number).
    pub unit: u16,
    /// The token's flags.
    pub state: SamplerState,
}

/// One instruction. Which operands are present follows [`Opcode::shape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    /// The opcode.
    pub op: Opcode,
    /// Destination, for shapes that have one.
    pub dest: Option<Dst>,
    /// Source 1, for shapes that have one.
    pub src1: Option<Src>,
    /// Source 2, for shapes with two register sources.
    pub src2: Option<Src>,
    /// The sampler, for `tex` and `tld`.
    pub sampler: Option<Sampling>,
}

/// What a program reads and writes, for linkage and for whoever feeds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    /// Bit i: varying i is read (fragment programs).
    pub varyings_read: u16,
    /// Per varying: the components written (vertex programs).
    pub varyings_written: [WriteMask; 16],
    /// Bit i: attribute i is read (direct or as an index).
    pub attributes_read: u16,
    /// Bit i: color output i (`oc`i) is written (fragment programs).
    pub colors_written: u8,
    /// The depth output is written.
    pub depth_written: bool,
    /// `kil` appears.
    pub kills: bool,
    /// `iid` is read.
    pub reads_instance_id: bool,
    /// Each texture unit sampled, with the flags of its (first) use, in unit order.
    pub samplers: Vec<Sampling>,
}

/// A validated program.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Vertex or fragment.
    pub kind: ShaderKind,
    /// The AGAL version of the header (1–4).
    pub version: u32,
    /// The instructions, one per token.
    pub instructions: Vec<Instruction>,
    /// Registers read and written.
    pub interface: Interface,
}

impl Program {
    /// Number of constant registers the program's kind and version give it (indirect reads
    /// beyond them read zero).
    pub fn constant_count(&self) -> u32 {
        RegType::Constant.count(self.kind, self.version)
    }
}
