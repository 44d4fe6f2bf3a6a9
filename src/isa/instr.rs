//! Views of decoded instructions shared by the interpreter, the frontend and the plain listing:
//! the normalized operands of every ALU format ([`AluOperands`]) and a one-line text form.

use std::fmt;

use super::desc::OpDesc;
use super::format::{
    AddrIdx, CmpOp, Fmt1, Fmt1c, Fmt1i, Fmt1u, Fmt2, Fmt3b, Fmt3i, Fmt4, Fmt5, Fmt5i, Format,
    RawWord,
};
use super::opcode::Instruction;
use super::opcode::Opcode;
use super::reg::{Dst, Src};

/// The operands of any ALU format, normalized: sources in math order (src1, src2, src3), which
/// of them is the wide (uniform-capable, relative-addressable) slot, and the descriptor index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AluOperands {
    /// Destination (meaningless for CMP and MOVA, which write no vector register).
    pub dst: Dst,
    /// Address register applied to the wide source.
    pub idx: AddrIdx,
    /// Sources in math order; unused ones are `Src(0)`.
    pub src: [Src; 3],
    /// Number of sources the format has (1, 2 or 3).
    pub num_src: usize,
    /// Index into `src` of the wide slot, the only one relative addressing applies to.
    pub wide: usize,
    /// Operand-descriptor index.
    pub desc: u8,
}

impl Fmt1 {
    pub const fn alu(&self) -> AluOperands {
        AluOperands {
            dst: self.dst,
            idx: self.idx,
            src: [self.src1, self.src2, Src(0)],
            num_src: 2,
            wide: 0,
            desc: self.desc,
        }
    }
}

impl Fmt1u {
    pub const fn alu(&self) -> AluOperands {
        AluOperands {
            dst: self.dst,
            idx: self.idx,
            src: [self.src1, Src(0), Src(0)],
            num_src: 1,
            wide: 0,
            desc: self.desc,
        }
    }
}

impl Fmt1i {
    pub const fn alu(&self) -> AluOperands {
        AluOperands {
            dst: self.dst,
            idx: self.idx,
            src: [self.src1, self.src2, Src(0)],
            num_src: 2,
            wide: 1,
            desc: self.desc,
        }
    }
}

impl Fmt1c {
    pub const fn alu(&self) -> AluOperands {
        AluOperands {
            dst: Dst(0),
            idx: self.idx,
            src: [self.src1, self.src2, Src(0)],
            num_src: 2,
            wide: 0,
            desc: self.desc,
        }
    }
}

impl Fmt5 {
    pub const fn alu(&self) -> AluOperands {
        AluOperands {
            dst: self.dst,
            idx: self.idx,
            src: [self.src1, self.src2, self.src3],
            num_src: 3,
            wide: 1,
            desc: self.desc,
        }
    }
}

impl Fmt5i {
    pub const fn alu(&self) -> AluOperands {
        AluOperands {
            dst: self.dst,
            idx: self.idx,
            src: [self.src1, self.src2, self.src3],
            num_src: 3,
            wide: 2,
            desc: self.desc,
        }
    }
}

/// The math of an ALU instruction. The inverted forms (DPHI, DSTI, SGEI, SLTI, MADI) do what
/// DPH, DST, SGE, SLT and MAD do, only with the wide source in another slot
/// ([`AluOperands::wide`]), so they share those variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Math {
    Add,
    Dp3,
    Dp4,
    Dph,
    Dst,
    Ex2,
    Lg2,
    Litp,
    Mul,
    Sge,
    Slt,
    Flr,
    Max,
    Min,
    Rcp,
    Rsq,
    /// Writes a0.x/a0.y, not a vector register.
    Mova,
    Mov,
    /// Writes cc.x/cc.y (the two comparisons), not a vector register.
    Cmp(CmpOp, CmpOp),
    Mad,
}

impl Math {
    /// Whether the instruction writes its destination vector register (MOVA and CMP write
    /// only a0 or cc).
    pub const fn writes_dst(self) -> bool {
        match self {
            Math::Mova | Math::Cmp(..) => false,
            Math::Add
            | Math::Dp3
            | Math::Dp4
            | Math::Dph
            | Math::Dst
            | Math::Ex2
            | Math::Lg2
            | Math::Litp
            | Math::Mul
            | Math::Sge
            | Math::Slt
            | Math::Flr
            | Math::Max
            | Math::Min
            | Math::Rcp
            | Math::Rsq
            | Math::Mov
            | Math::Mad => true,
        }
    }
}

/// An instruction split the way its consumers first ask about it: arithmetic, with its math
/// and normalized operands; control flow; or one of the rest. The interpreter, the frontend,
/// the listings and the disassembler match on this, so the ALU opcodes are listed once
/// ([`Instruction::kind`]) rather than in every consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Alu(Math, AluOperands),
    Control(Control),
    Nop,
    Emit,
    Setemit(Fmt4),
    Undefined(RawWord),
}

/// The control-flow instructions, with their operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Control {
    End,
    Break,
    Breakc(Fmt2),
    Call(Fmt2),
    Callc(Fmt2),
    Ifc(Fmt2),
    Jmpc(Fmt2),
    Callu(Fmt3b),
    Ifu(Fmt3b),
    Jmpu(Fmt3b),
    Loop(Fmt3i),
}

impl Opcode {
    /// Whether this opcode's instructions are [`Kind::Control`] (flow instructions and END):
    /// the formats with a target or condition (2, 3b, 3i), and BREAK and END of format 0.
    pub const fn is_control(self) -> bool {
        matches!(self.format(), Format::Fmt2 | Format::Fmt3b | Format::Fmt3i)
            || matches!(self, Opcode::Break | Opcode::End)
    }
}

impl Instruction {
    /// The instruction as a [`Kind`] (the one exhaustive map from opcodes to ALU math).
    /// Inlined, so that a caller that asks only for the kind of instruction builds no operands.
    #[inline(always)]
    pub const fn kind(&self) -> Kind {
        match *self {
            Instruction::Add(f) => Kind::Alu(Math::Add, f.alu()),
            Instruction::Dp3(f) => Kind::Alu(Math::Dp3, f.alu()),
            Instruction::Dp4(f) => Kind::Alu(Math::Dp4, f.alu()),
            Instruction::Dph(f) => Kind::Alu(Math::Dph, f.alu()),
            Instruction::Dst(f) => Kind::Alu(Math::Dst, f.alu()),
            Instruction::Ex2(f) => Kind::Alu(Math::Ex2, f.alu()),
            Instruction::Lg2(f) => Kind::Alu(Math::Lg2, f.alu()),
            Instruction::Litp(f) => Kind::Alu(Math::Litp, f.alu()),
            Instruction::Mul(f) => Kind::Alu(Math::Mul, f.alu()),
            Instruction::Sge(f) => Kind::Alu(Math::Sge, f.alu()),
            Instruction::Slt(f) => Kind::Alu(Math::Slt, f.alu()),
            Instruction::Flr(f) => Kind::Alu(Math::Flr, f.alu()),
            Instruction::Max(f) => Kind::Alu(Math::Max, f.alu()),
            Instruction::Min(f) => Kind::Alu(Math::Min, f.alu()),
            Instruction::Rcp(f) => Kind::Alu(Math::Rcp, f.alu()),
            Instruction::Rsq(f) => Kind::Alu(Math::Rsq, f.alu()),
            Instruction::Mova(f) => Kind::Alu(Math::Mova, f.alu()),
            Instruction::Mov(f) => Kind::Alu(Math::Mov, f.alu()),
            Instruction::Dphi(f) => Kind::Alu(Math::Dph, f.alu()),
            Instruction::Dsti(f) => Kind::Alu(Math::Dst, f.alu()),
            Instruction::Sgei(f) => Kind::Alu(Math::Sge, f.alu()),
            Instruction::Slti(f) => Kind::Alu(Math::Slt, f.alu()),
            Instruction::Cmp(f) => Kind::Alu(Math::Cmp(f.cmpx, f.cmpy), f.alu()),
            Instruction::Madi(f) => Kind::Alu(Math::Mad, f.alu()),
            Instruction::Mad(f) => Kind::Alu(Math::Mad, f.alu()),
            Instruction::Break(_) => Kind::Control(Control::Break),
            Instruction::Nop(_) => Kind::Nop,
            Instruction::End(_) => Kind::Control(Control::End),
            Instruction::Emit(_) => Kind::Emit,
            Instruction::Breakc(f) => Kind::Control(Control::Breakc(f)),
            Instruction::Call(f) => Kind::Control(Control::Call(f)),
            Instruction::Callc(f) => Kind::Control(Control::Callc(f)),
            Instruction::Ifc(f) => Kind::Control(Control::Ifc(f)),
            Instruction::Jmpc(f) => Kind::Control(Control::Jmpc(f)),
            Instruction::Callu(f) => Kind::Control(Control::Callu(f)),
            Instruction::Ifu(f) => Kind::Control(Control::Ifu(f)),
            Instruction::Jmpu(f) => Kind::Control(Control::Jmpu(f)),
            Instruction::Loop(f) => Kind::Control(Control::Loop(f)),
            Instruction::Setemit(f) => Kind::Setemit(f),
            Instruction::Undefined(w) => Kind::Undefined(w),
        }
    }

    /// The normalized ALU operands, for the instructions that have them.
    pub const fn alu(&self) -> Option<AluOperands> {
        if let Kind::Alu(_, ops) = self.kind() {
            Some(ops)
        } else {
            None
        }
    }

    /// Bits of `word` that its opcode's format does not read (0 for a canonical word).
    pub fn unused_bits(word: u32) -> u32 {
        word & !Opcode::from_value((word >> 26) as u8).used_bits()
    }

    /// A plain one-line listing, with the descriptor's mask and swizzles resolved from `descs`
    /// (the full assembler syntax comes with the disassembler).
    pub fn listing(&self, descs: &[u32]) -> String {
        Listing { instr: self, descs }.to_string()
    }
}

struct Listing<'a> {
    instr: &'a Instruction,
    descs: &'a [u32],
}

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

fn mask_text(desc: OpDesc) -> String {
    (0..4)
        .filter(|&i| desc.writes(i))
        .map(|i| COMPONENTS[i])
        .collect()
}

impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = self.instr.opcode();
        let (math, alu) = match self.instr.kind() {
            Kind::Alu(math, alu) => (math, alu),
            Kind::Control(Control::Break | Control::End) | Kind::Nop | Kind::Emit => {
                return write!(f, "{}", op.mnemonic());
            }
            Kind::Control(
                Control::Breakc(c)
                | Control::Call(c)
                | Control::Callc(c)
                | Control::Ifc(c)
                | Control::Jmpc(c),
            ) => {
                return write!(
                    f,
                    "{:<7} dest {:#05x}, num {}, {}cc.x {:?} {}cc.y",
                    op.mnemonic(),
                    c.dest,
                    c.num,
                    if c.refx { "" } else { "!" },
                    c.condop,
                    if c.refy { "" } else { "!" }
                );
            }
            Kind::Control(Control::Callu(u) | Control::Ifu(u) | Control::Jmpu(u)) => {
                return write!(
                    f,
                    "{:<7} b{}, dest {:#05x}, num {}",
                    op.mnemonic(),
                    u.id,
                    u.dest,
                    u.num
                );
            }
            Kind::Control(Control::Loop(l)) => {
                return write!(f, "{:<7} i{}, dest {:#05x}", op.mnemonic(), l.id, l.dest);
            }
            Kind::Setemit(s) => {
                return write!(
                    f,
                    "setemit {}{}{}",
                    s.vertex,
                    if s.primitive { ", prim" } else { "" },
                    if s.winding { ", inv" } else { "" }
                );
            }
            Kind::Undefined(raw) => {
                return write!(
                    f,
                    "undefined opcode {:#04x} (word {:#010x})",
                    raw.opcode_value(),
                    raw.0
                );
            }
        };
        let desc = OpDesc(self.descs.get(alu.desc as usize).copied().unwrap_or(0));
        write!(f, "{:<7}", op.mnemonic())?;
        let writes_dst = math.writes_dst();
        let mut first = true;
        if writes_dst {
            write!(f, " {}.{}", alu.dst, mask_text(desc))?;
            first = false;
        } else if math == Math::Mova {
            write!(f, " a0.{}", mask_text(OpDesc(desc.0 & 0xC)))?;
            first = false;
        }
        for n in 0..alu.num_src {
            let m = desc.src(n);
            let sep = if first { " " } else { ", " };
            first = false;
            let sw: String = m
                .select
                .iter()
                .map(|&s| COMPONENTS[s as usize & 3])
                .collect();
            write!(f, "{sep}{}{}", if m.negate { "-" } else { "" }, alu.src[n])?;
            if n == alu.wide && alu.idx != AddrIdx::None {
                let reg = match alu.idx {
                    AddrIdx::A0x => "a0.x",
                    AddrIdx::A0y => "a0.y",
                    AddrIdx::AL | AddrIdx::None => "aL",
                };
                write!(f, "[{reg}]")?;
            }
            write!(f, ".{sw}")?;
        }
        if let Math::Cmp(x, y) = math {
            write!(f, " ; cmpx {x:?}, cmpy {y:?}")?;
        }
        write!(f, " ; desc {}", alu.desc)
    }
}
