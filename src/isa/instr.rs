//! Views of decoded instructions shared by the interpreter, the frontend and the plain listing:
//! the normalized operands of every ALU format ([`AluOperands`]) and a one-line text form.

use std::fmt;

use super::desc::OpDesc;
use super::format::{AddrIdx, Fmt1, Fmt1c, Fmt1i, Fmt1u, Fmt5, Fmt5i};
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

impl Instruction {
    /// The normalized ALU operands, for the instructions that have them.
    pub const fn alu(&self) -> Option<AluOperands> {
        match self {
            Instruction::Add(f)
            | Instruction::Dp3(f)
            | Instruction::Dp4(f)
            | Instruction::Dph(f)
            | Instruction::Dst(f)
            | Instruction::Mul(f)
            | Instruction::Sge(f)
            | Instruction::Slt(f)
            | Instruction::Max(f)
            | Instruction::Min(f) => Some(f.alu()),
            Instruction::Ex2(f)
            | Instruction::Lg2(f)
            | Instruction::Litp(f)
            | Instruction::Flr(f)
            | Instruction::Rcp(f)
            | Instruction::Rsq(f)
            | Instruction::Mova(f)
            | Instruction::Mov(f) => Some(f.alu()),
            Instruction::Dphi(f)
            | Instruction::Dsti(f)
            | Instruction::Sgei(f)
            | Instruction::Slti(f) => Some(f.alu()),
            Instruction::Cmp(f) => Some(f.alu()),
            Instruction::Madi(f) => Some(f.alu()),
            Instruction::Mad(f) => Some(f.alu()),
            Instruction::Break(_)
            | Instruction::Nop(_)
            | Instruction::End(_)
            | Instruction::Emit(_)
            | Instruction::Breakc(_)
            | Instruction::Call(_)
            | Instruction::Callc(_)
            | Instruction::Ifc(_)
            | Instruction::Jmpc(_)
            | Instruction::Callu(_)
            | Instruction::Ifu(_)
            | Instruction::Jmpu(_)
            | Instruction::Loop(_)
            | Instruction::Setemit(_)
            | Instruction::Undefined(_) => None,
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
        if let Some(alu) = self.instr.alu() {
            let desc = OpDesc(self.descs.get(alu.desc as usize).copied().unwrap_or(0));
            write!(f, "{:<7}", op.mnemonic())?;
            let writes_dst = !matches!(op, Opcode::Cmp | Opcode::Mova);
            let mut first = true;
            if writes_dst {
                write!(f, " {}.{}", alu.dst, mask_text(desc))?;
                first = false;
            } else if op == Opcode::Mova {
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
            if let Instruction::Cmp(c) = self.instr {
                write!(f, " ; cmpx {:?}, cmpy {:?}", c.cmpx, c.cmpy)?;
            }
            return write!(f, " ; desc {}", alu.desc);
        }
        match self.instr {
            Instruction::Break(_)
            | Instruction::Nop(_)
            | Instruction::End(_)
            | Instruction::Emit(_) => {
                write!(f, "{}", op.mnemonic())
            }
            Instruction::Breakc(c)
            | Instruction::Call(c)
            | Instruction::Callc(c)
            | Instruction::Ifc(c)
            | Instruction::Jmpc(c) => write!(
                f,
                "{:<7} dest {:#05x}, num {}, {}cc.x {:?} {}cc.y",
                op.mnemonic(),
                c.dest,
                c.num,
                if c.refx { "" } else { "!" },
                c.condop,
                if c.refy { "" } else { "!" }
            ),
            Instruction::Callu(u) | Instruction::Ifu(u) | Instruction::Jmpu(u) => {
                write!(
                    f,
                    "{:<7} b{}, dest {:#05x}, num {}",
                    op.mnemonic(),
                    u.id,
                    u.dest,
                    u.num
                )
            }
            Instruction::Loop(l) => {
                write!(f, "{:<7} i{}, dest {:#05x}", op.mnemonic(), l.id, l.dest)
            }
            Instruction::Setemit(s) => write!(
                f,
                "setemit {}{}{}",
                s.vertex,
                if s.primitive { ", prim" } else { "" },
                if s.winding { ", inv" } else { "" }
            ),
            Instruction::Undefined(raw) => {
                write!(
                    f,
                    "undefined opcode {:#04x} (word {:#010x})",
                    raw.opcode_value(),
                    raw.0
                )
            }
            Instruction::Add(_)
            | Instruction::Dp3(_)
            | Instruction::Dp4(_)
            | Instruction::Dph(_)
            | Instruction::Dst(_)
            | Instruction::Ex2(_)
            | Instruction::Lg2(_)
            | Instruction::Litp(_)
            | Instruction::Mul(_)
            | Instruction::Sge(_)
            | Instruction::Slt(_)
            | Instruction::Flr(_)
            | Instruction::Max(_)
            | Instruction::Min(_)
            | Instruction::Rcp(_)
            | Instruction::Rsq(_)
            | Instruction::Mova(_)
            | Instruction::Mov(_)
            | Instruction::Dphi(_)
            | Instruction::Dsti(_)
            | Instruction::Sgei(_)
            | Instruction::Slti(_)
            | Instruction::Cmp(_)
            | Instruction::Madi(_)
            | Instruction::Mad(_) => Ok(()), // handled above through `alu()`
        }
    }
}
