//! How each opcode of the [`isa`](crate::isa) table is written in the assembly language: its
//! operand syntax, its normal/inverted partner, which operand-descriptor bits it reads (picasso's
//! "unused component" rules), and the builders that turn typed operands into an [`Instruction`].
//! Mnemonics come from [`Opcode::mnemonic`]; the only spellings added here are picasso's `for`
//! (the table's `loop`) listed in [`ALIASES`].

use crate::isa::{
    Fmt0, Fmt1, Fmt1c, Fmt1i, Fmt1u, Fmt2, Fmt3b, Fmt3i, Fmt4, Fmt5, Fmt5i, Instruction, OpDesc,
    Opcode, SrcMod,
};

/// Spellings accepted besides the opcode table's mnemonics: `(spelling, opcode)`. The
/// disassembler writes the first spelling listed for an opcode.
pub(crate) const ALIASES: &[(&str, Opcode)] = &[("for", Opcode::Loop)];

/// The operand syntax of an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// `nop`, `end`, `emit`, `break`.
    NoOperands,
    /// An ALU instruction written with its normal-form mnemonic.
    Alu(AluSyntax),
    /// The inverted form of another opcode: written with the normal form's mnemonic or its own,
    /// which picasso treats as a pure synonym (the form is chosen from the operands).
    InvertedOf(Opcode),
    /// A control-flow instruction with a target, a condition or a uniform.
    Flow(Flow),
    /// `setemit vtx[, flags]`.
    SetEmit,
    /// Not writable as an instruction (undefined opcode values): only as a raw word.
    RawOnly,
}

/// The operands of an ALU instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AluSyntax {
    /// `op dst, src1, src2`; `inverted` is the opcode used when src2 must take the wide slot.
    TwoSources { inverted: Option<Opcode> },
    /// `op dst, src1`.
    OneSource,
    /// `mova a0.x|a0.y|a0.xy, src1`.
    Mova,
    /// `cmp src1, opx, opy, src2`.
    Cmp,
    /// `mad dst, src1, src2, src3` (MADI when src3 must take the wide slot).
    Mad { inverted: Opcode },
}

/// The operands of a control-flow instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    /// `call proc`.
    Call,
    /// `callc cond, proc`.
    CallC,
    /// `callu bN, proc`.
    CallU,
    /// `ifu bN` (opens an IF block).
    IfU,
    /// `ifc cond` (opens an IF block).
    IfC,
    /// `for iN` (opens a loop block).
    Loop,
    /// `breakc cond`.
    BreakC,
    /// `jmpc cond, label`.
    JmpC,
    /// `jmpu [!]bN, label`.
    JmpU,
}

/// The syntax of every opcode.
pub(crate) const fn syntax(op: Opcode) -> Syntax {
    const fn two(inverted: Option<Opcode>) -> Syntax {
        Syntax::Alu(AluSyntax::TwoSources { inverted })
    }
    match op {
        Opcode::Add | Opcode::Dp3 | Opcode::Dp4 | Opcode::Mul | Opcode::Max | Opcode::Min => {
            two(None)
        }
        Opcode::Dph => two(Some(Opcode::Dphi)),
        Opcode::Dst => two(Some(Opcode::Dsti)),
        Opcode::Sge => two(Some(Opcode::Sgei)),
        Opcode::Slt => two(Some(Opcode::Slti)),
        Opcode::Dphi => Syntax::InvertedOf(Opcode::Dph),
        Opcode::Dsti => Syntax::InvertedOf(Opcode::Dst),
        Opcode::Sgei => Syntax::InvertedOf(Opcode::Sge),
        Opcode::Slti => Syntax::InvertedOf(Opcode::Slt),
        Opcode::Madi => Syntax::InvertedOf(Opcode::Mad),
        Opcode::Mad => Syntax::Alu(AluSyntax::Mad {
            inverted: Opcode::Madi,
        }),
        Opcode::Ex2
        | Opcode::Lg2
        | Opcode::Litp
        | Opcode::Flr
        | Opcode::Rcp
        | Opcode::Rsq
        | Opcode::Mov => Syntax::Alu(AluSyntax::OneSource),
        Opcode::Mova => Syntax::Alu(AluSyntax::Mova),
        Opcode::Cmp => Syntax::Alu(AluSyntax::Cmp),
        Opcode::Break | Opcode::Nop | Opcode::End | Opcode::Emit => Syntax::NoOperands,
        Opcode::Call => Syntax::Flow(Flow::Call),
        Opcode::Callc => Syntax::Flow(Flow::CallC),
        Opcode::Callu => Syntax::Flow(Flow::CallU),
        Opcode::Ifu => Syntax::Flow(Flow::IfU),
        Opcode::Ifc => Syntax::Flow(Flow::IfC),
        Opcode::Loop => Syntax::Flow(Flow::Loop),
        Opcode::Breakc => Syntax::Flow(Flow::BreakC),
        Opcode::Jmpc => Syntax::Flow(Flow::JmpC),
        Opcode::Jmpu => Syntax::Flow(Flow::JmpU),
        Opcode::Setemit => Syntax::SetEmit,
        Opcode::Undefined => Syntax::RawOnly,
    }
}

/// The normal form of an inverted opcode (DPHI → DPH, MADI → MAD); other opcodes unchanged.
pub(crate) const fn normal_form(op: Opcode) -> Opcode {
    match syntax(op) {
        Syntax::InvertedOf(normal) => normal,
        Syntax::NoOperands
        | Syntax::Alu(_)
        | Syntax::Flow(_)
        | Syntax::SetEmit
        | Syntax::RawOnly => op,
    }
}

/// The opcode a mnemonic names (case-insensitive), with inverted spellings folded to their
/// normal form. `None` for unknown words and for the table's placeholder `undefined`.
pub(crate) fn lookup(mnemonic: &str) -> Option<Opcode> {
    let found = ALIASES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(mnemonic))
        .map(|&(_, op)| op)
        .or_else(|| {
            Opcode::ALL
                .iter()
                .copied()
                .find(|op| op.mnemonic().eq_ignore_ascii_case(mnemonic))
        })?;
    match syntax(found) {
        Syntax::RawOnly => None,
        Syntax::InvertedOf(normal) => Some(normal),
        Syntax::NoOperands | Syntax::Alu(_) | Syntax::Flow(_) | Syntax::SetEmit => Some(found),
    }
}

/// The spelling the disassembler writes for an opcode (an alias where the table's mnemonic is
/// not picasso's, e.g. `for`).
pub(crate) fn spelling(op: Opcode) -> &'static str {
    ALIASES
        .iter()
        .find(|&&(_, o)| o == op)
        .map_or(op.mnemonic(), |&(name, _)| name)
}

const ALL_BITS: SrcMod = SrcMod {
    negate: true,
    select: [3, 3, 3, 3],
};
const NO_BITS: SrcMod = SrcMod {
    negate: false,
    select: [0, 0, 0, 0],
};

/// The selector bits of the components flagged in `unused` (x, y, z, w).
const fn selectors(unused: [bool; 4]) -> SrcMod {
    SrcMod {
        negate: false,
        select: [
            if unused[0] { 3 } else { 0 },
            if unused[1] { 3 } else { 0 },
            if unused[2] { 3 } else { 0 },
            if unused[3] { 3 } else { 0 },
        ],
    }
}

/// The descriptor bits an instruction of opcode `op` (normal form) with write mask `mask`
/// depends on: the mask (except for CMP), the negate bit and selectors of each source it has,
/// minus picasso's unused selectors. Descriptors are shared between instructions that agree
/// on the bits both depend on.
pub(crate) fn care_bits(op: Opcode, mask: u8) -> u32 {
    let op = normal_form(op);
    let unwritten = [mask & 8 == 0, mask & 4 == 0, mask & 2 == 0, mask & 1 == 0];
    let base = match syntax(op) {
        Syntax::Alu(alu) => match alu {
            AluSyntax::TwoSources { .. } => OpDesc::new(0xF, [ALL_BITS, ALL_BITS, NO_BITS]),
            AluSyntax::OneSource | AluSyntax::Mova => {
                OpDesc::new(0xF, [ALL_BITS, NO_BITS, NO_BITS])
            }
            AluSyntax::Cmp => OpDesc::new(0, [ALL_BITS, ALL_BITS, NO_BITS]),
            AluSyntax::Mad { .. } => OpDesc::new(0xF, [ALL_BITS; 3]),
        },
        Syntax::InvertedOf(_)
        | Syntax::NoOperands
        | Syntax::Flow(_)
        | Syntax::SetEmit
        | Syntax::RawOnly => OpDesc(0),
    };
    let unused = [NO_BITS; 3];
    let per_component = selectors(unwritten);
    let w_only = selectors([false, false, false, true]);
    let unused = match op {
        Opcode::Add
        | Opcode::Mul
        | Opcode::Sge
        | Opcode::Sgei
        | Opcode::Slt
        | Opcode::Slti
        | Opcode::Flr
        | Opcode::Max
        | Opcode::Min
        | Opcode::Mov
        | Opcode::Mad
        | Opcode::Madi => [per_component; 3],
        Opcode::Dp3 => [w_only, w_only, NO_BITS],
        Opcode::Dph | Opcode::Dphi => [w_only, NO_BITS, NO_BITS],
        Opcode::Ex2 | Opcode::Lg2 | Opcode::Rcp | Opcode::Rsq => {
            [selectors([false, true, true, true]), NO_BITS, NO_BITS]
        }
        Opcode::Mova => [
            selectors([unwritten[0], unwritten[1], true, true]),
            NO_BITS,
            NO_BITS,
        ],
        Opcode::Cmp => [selectors([false, false, true, true]), NO_BITS, NO_BITS],
        Opcode::Dp4
        | Opcode::Dst
        | Opcode::Dsti
        | Opcode::Litp
        | Opcode::Break
        | Opcode::Nop
        | Opcode::End
        | Opcode::Breakc
        | Opcode::Call
        | Opcode::Callc
        | Opcode::Callu
        | Opcode::Ifu
        | Opcode::Ifc
        | Opcode::Loop
        | Opcode::Emit
        | Opcode::Setemit
        | Opcode::Jmpc
        | Opcode::Jmpu
        | Opcode::Undefined => unused,
    };
    base.0 & !OpDesc::new(0, unused).0
}

/// Typed operands of one format, for [`build`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fields {
    F0(Fmt0),
    F1(Fmt1),
    F1u(Fmt1u),
    F1i(Fmt1i),
    F1c(Fmt1c),
    F2(Fmt2),
    F3b(Fmt3b),
    F3i(Fmt3i),
    F4(Fmt4),
    F5(Fmt5),
    F5i(Fmt5i),
}

macro_rules! pick {
    ($fields:expr, $variant:ident) => {
        match $fields {
            Fields::$variant(f) => Some(f),
            _ => None,
        }
    };
}

/// The instruction of opcode `op` with these operands, or `None` if they are of another format.
pub(crate) fn build(op: Opcode, fields: Fields) -> Option<Instruction> {
    match op {
        Opcode::Add => pick!(fields, F1).map(Instruction::Add),
        Opcode::Dp3 => pick!(fields, F1).map(Instruction::Dp3),
        Opcode::Dp4 => pick!(fields, F1).map(Instruction::Dp4),
        Opcode::Dph => pick!(fields, F1).map(Instruction::Dph),
        Opcode::Dst => pick!(fields, F1).map(Instruction::Dst),
        Opcode::Ex2 => pick!(fields, F1u).map(Instruction::Ex2),
        Opcode::Lg2 => pick!(fields, F1u).map(Instruction::Lg2),
        Opcode::Litp => pick!(fields, F1u).map(Instruction::Litp),
        Opcode::Mul => pick!(fields, F1).map(Instruction::Mul),
        Opcode::Sge => pick!(fields, F1).map(Instruction::Sge),
        Opcode::Slt => pick!(fields, F1).map(Instruction::Slt),
        Opcode::Flr => pick!(fields, F1u).map(Instruction::Flr),
        Opcode::Max => pick!(fields, F1).map(Instruction::Max),
        Opcode::Min => pick!(fields, F1).map(Instruction::Min),
        Opcode::Rcp => pick!(fields, F1u).map(Instruction::Rcp),
        Opcode::Rsq => pick!(fields, F1u).map(Instruction::Rsq),
        Opcode::Mova => pick!(fields, F1u).map(Instruction::Mova),
        Opcode::Mov => pick!(fields, F1u).map(Instruction::Mov),
        Opcode::Dphi => pick!(fields, F1i).map(Instruction::Dphi),
        Opcode::Dsti => pick!(fields, F1i).map(Instruction::Dsti),
        Opcode::Sgei => pick!(fields, F1i).map(Instruction::Sgei),
        Opcode::Slti => pick!(fields, F1i).map(Instruction::Slti),
        Opcode::Break => pick!(fields, F0).map(Instruction::Break),
        Opcode::Nop => pick!(fields, F0).map(Instruction::Nop),
        Opcode::End => pick!(fields, F0).map(Instruction::End),
        Opcode::Breakc => pick!(fields, F2).map(Instruction::Breakc),
        Opcode::Call => pick!(fields, F2).map(Instruction::Call),
        Opcode::Callc => pick!(fields, F2).map(Instruction::Callc),
        Opcode::Callu => pick!(fields, F3b).map(Instruction::Callu),
        Opcode::Ifu => pick!(fields, F3b).map(Instruction::Ifu),
        Opcode::Ifc => pick!(fields, F2).map(Instruction::Ifc),
        Opcode::Loop => pick!(fields, F3i).map(Instruction::Loop),
        Opcode::Emit => pick!(fields, F0).map(Instruction::Emit),
        Opcode::Setemit => pick!(fields, F4).map(Instruction::Setemit),
        Opcode::Jmpc => pick!(fields, F2).map(Instruction::Jmpc),
        Opcode::Jmpu => pick!(fields, F3b).map(Instruction::Jmpu),
        Opcode::Cmp => pick!(fields, F1c).map(Instruction::Cmp),
        Opcode::Madi => pick!(fields, F5i).map(Instruction::Madi),
        Opcode::Mad => pick!(fields, F5).map(Instruction::Mad),
        Opcode::Undefined => None,
    }
}

/// The same instruction with operand-descriptor index `desc` (ALU instructions only; others
/// are returned unchanged).
pub(crate) fn with_desc(instr: Instruction, desc: u8) -> Instruction {
    match instr {
        Instruction::Add(f) => Instruction::Add(Fmt1 { desc, ..f }),
        Instruction::Dp3(f) => Instruction::Dp3(Fmt1 { desc, ..f }),
        Instruction::Dp4(f) => Instruction::Dp4(Fmt1 { desc, ..f }),
        Instruction::Dph(f) => Instruction::Dph(Fmt1 { desc, ..f }),
        Instruction::Dst(f) => Instruction::Dst(Fmt1 { desc, ..f }),
        Instruction::Ex2(f) => Instruction::Ex2(Fmt1u { desc, ..f }),
        Instruction::Lg2(f) => Instruction::Lg2(Fmt1u { desc, ..f }),
        Instruction::Litp(f) => Instruction::Litp(Fmt1u { desc, ..f }),
        Instruction::Mul(f) => Instruction::Mul(Fmt1 { desc, ..f }),
        Instruction::Sge(f) => Instruction::Sge(Fmt1 { desc, ..f }),
        Instruction::Slt(f) => Instruction::Slt(Fmt1 { desc, ..f }),
        Instruction::Flr(f) => Instruction::Flr(Fmt1u { desc, ..f }),
        Instruction::Max(f) => Instruction::Max(Fmt1 { desc, ..f }),
        Instruction::Min(f) => Instruction::Min(Fmt1 { desc, ..f }),
        Instruction::Rcp(f) => Instruction::Rcp(Fmt1u { desc, ..f }),
        Instruction::Rsq(f) => Instruction::Rsq(Fmt1u { desc, ..f }),
        Instruction::Mova(f) => Instruction::Mova(Fmt1u { desc, ..f }),
        Instruction::Mov(f) => Instruction::Mov(Fmt1u { desc, ..f }),
        Instruction::Dphi(f) => Instruction::Dphi(Fmt1i { desc, ..f }),
        Instruction::Dsti(f) => Instruction::Dsti(Fmt1i { desc, ..f }),
        Instruction::Sgei(f) => Instruction::Sgei(Fmt1i { desc, ..f }),
        Instruction::Slti(f) => Instruction::Slti(Fmt1i { desc, ..f }),
        Instruction::Cmp(f) => Instruction::Cmp(Fmt1c { desc, ..f }),
        Instruction::Madi(f) => Instruction::Madi(Fmt5i { desc, ..f }),
        Instruction::Mad(f) => Instruction::Mad(Fmt5 { desc, ..f }),
        Instruction::Break(_)
        | Instruction::Nop(_)
        | Instruction::End(_)
        | Instruction::Breakc(_)
        | Instruction::Call(_)
        | Instruction::Callc(_)
        | Instruction::Callu(_)
        | Instruction::Ifu(_)
        | Instruction::Ifc(_)
        | Instruction::Loop(_)
        | Instruction::Emit(_)
        | Instruction::Setemit(_)
        | Instruction::Jmpc(_)
        | Instruction::Jmpu(_)
        | Instruction::Undefined(_) => instr,
    }
}

/// Whether a block may not end right after this instruction, so that picasso inserts a padding
/// NOP: after a jump or call always, after BREAK/BREAKC when the block is a loop.
pub(crate) const fn needs_padding_after(op: Opcode, closing_loop: bool) -> bool {
    match syntax(op) {
        Syntax::Flow(Flow::JmpC | Flow::JmpU | Flow::Call | Flow::CallC | Flow::CallU) => true,
        Syntax::Flow(Flow::BreakC) => closing_loop,
        Syntax::NoOperands => closing_loop && matches!(op, Opcode::Break),
        Syntax::Flow(Flow::IfU | Flow::IfC | Flow::Loop)
        | Syntax::Alu(_)
        | Syntax::InvertedOf(_)
        | Syntax::SetEmit
        | Syntax::RawOnly => false,
    }
}
