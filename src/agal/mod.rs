//! AGAL, the Stage3D shader bytecode of Flash Player 11+ and AIR (`reference/agal.md`): the one
//! opcode table ([`opcode`]), register files ([`reg`]), token layouts ([`token`]) and the
//! header ([`header`]).
//!
//! ```text
//!  .agal text ──asm──▶ AGAL bytes ──split──▶ Bytecode { header, tokens, tail }
//!      ▲ disasm ◀──────────┘
//! ```
//!
//! Bits are sliced in [`token`] and [`header`] only; everything else works on the typed forms.
//! Decoding is total and exact: `Bytecode::split(b).to_bytes() == b` for every byte string.

pub mod asm;
pub mod case;
pub mod disasm;
pub mod gen;
pub mod header;
pub mod interp;
pub mod opcode;
pub mod program;
pub mod reg;
pub mod sampling;
pub mod token;
pub mod validate;

pub use header::{Bytecode, Header, ShaderKind};
pub use opcode::{AsmGate, Lanes, Opcode, Shape, Stage};
pub use program::{Addr, Dst, Instruction, Program, Reg, Sampling, Src};
pub use reg::{RegType, Swizzle, WriteMask};
pub use token::{Dest, OpField, RawToken, SamplerField, Source, Src2, Token};
pub use validate::{validate, validate_pair, ValidationError};

#[cfg(test)]
mod tests;
