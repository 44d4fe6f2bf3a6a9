//! AGAL, the Stage3D shader bytecode of Flash Player 11+ and AIR, with
//! the foundation the PICA side has: one opcode table, a token codec, Flash's upload validator,
//! an AGALMiniAssembler-compatible assembler, a round-tripping disassembler, the reference
//! interpreter and case files.
//!
//! ```text
//!  .agal text ──asm──▶ AGAL bytes ──split──▶ Bytecode { header, tokens, tail }
//!      ▲ disasm ◀──────────┘   │
//!                              └──validate──▶ Program ──interp──▶ vertices / fragment quads
//! ```
//!
//! - [`opcode`]: the one opcode table (value, operands, version, stage, assembler gate).
//! - [`reg`]: register types, their names and counts per version; masks and swizzles.
//! - [`token`], [`header`]: the bit layouts — sliced there and nowhere else; decoding is total
//!   and exact (`Bytecode::split(b).to_bytes() == b` for every byte string).
//! - [`sampling`]: the typed sampler flags.
//! - [`validate`](mod@validate): Flash Player's upload rules and error numbers → [`Program`] ([`program`]).
//! - [`asm`], [`disasm`]: the text form.
//! - [`interp`]: the executable statement of AGAL semantics, with the CPU texture sampler.
//! - [`lower`]: the frontend to `picajit-codegen`'s block IR (what the engine compiles).
//! - [`attributes`]: vertex buffer formats (`float1`…`float4`, `bytes4`) widened to the vec4
//!   attribute registers.
//! - [`case`]: AGCS/AGOU case files.
//! - `gen`: seeded random bytecode for tests and fuzzing; `gen_valid`: seeded random programs
//!   the validator accepts.
//!
//! Choices where AGAL sources disagree or are silent are listed where they are made: the
//! validator's in [`validate`](mod@validate), the assembler's in [`asm`], the semantics in [`interp`] and
//! [`interp::math`].

pub mod asm;
pub mod attributes;
pub mod case;
pub mod disasm;
#[cfg(any(test, feature = "fuzz", feature = "bench"))]
pub mod gen;
#[cfg(any(test, feature = "fuzz", feature = "bench"))]
pub mod gen_valid;
pub mod header;
pub mod interp;
pub mod lower;
pub mod opcode;
pub mod program;
pub mod reg;
pub mod sampling;
pub mod token;
pub mod validate;

pub use header::{Bytecode, Header, ShaderKind};
pub use opcode::{AsmGate, Cond, Flow, InBlock, Lanes, Opcode, Reads, Shape, Stage};
pub use program::{Addr, Dst, Instruction, Program, Reg, Sampling, Src};
pub use reg::{RegType, Swizzle, WriteMask};
pub use token::{Dest, OpField, RawToken, SamplerField, Source, Src2, Token};
pub use validate::{validate, validate_pair, ValidationError};

#[cfg(test)]
mod tests;
