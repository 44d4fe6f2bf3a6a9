//! The PICA200 instruction set: the one opcode table ([`opcode`]), the bit layout of every
//! instruction format ([`format`](mod@format)), registers ([`reg`]), operand descriptors ([`desc`]) and the
//! typed [`Instruction`] with total decode and encode.
//!
//! Bits are sliced here and nowhere else: every other module works on the typed forms.
//! `encode(decode(w)) == w` for every word whose unused bits are zero; decode never fails (an
//! undefined opcode decodes to [`Instruction::Undefined`] holding the whole word).

pub mod desc;
pub mod format;
pub mod opcode;
pub mod reg;

mod instr;

pub use desc::{OpDesc, SrcMod};
pub use format::{
    AddrIdx, CmpOp, CondOp, Fmt0, Fmt1, Fmt1c, Fmt1i, Fmt1u, Fmt2, Fmt3b, Fmt3i, Fmt4, Fmt5, Fmt5i,
    Format, RawWord,
};
pub use instr::{AluOperands, Control, Kind, Math};
pub use opcode::{Instruction, Opcode};
pub use reg::{Dst, DstKind, Src, SrcKind};

#[cfg(test)]
mod tests;
