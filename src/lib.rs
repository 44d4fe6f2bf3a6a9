//! # picajit
//!
//! A recompiler for Nintendo 3DS PICA200 vertex and geometry shader bytecode, with a reference
//! interpreter that is the executable form of the project's semantics (`spec/semantics.md`).
//!
//! ```text
//!  .pica text ──asm──▶ SHBIN bytes ──shbin──▶ Program { code[4096], descs[128], entry, tables }
//!                                                  │
//!                 ┌────────────────────────────────┴───────────────────────┐
//!                 ▼                                                        ▼
//!     interp: executable spec                        frontend ─▶ picajit-codegen IR ─▶ x64 / aarch64
//!     (decoded instructions, no IR)                                         │
//!                 ▼                                                        ▼
//!            same outputs, bit for bit  ◀──────── differential tests ── compiled shader
//! ```
//!
//! Modules:
//! - [`isa`]: the one PICA200 opcode table, typed decode/encode of every format, operand
//!   descriptors.
//! - [`float`]: the one statement of PICA float rules (`pmul`, MIN/MAX, RCP/RSQ, EX2/LG2, float24).
//! - [`shbin`]: DVLB/DVLP/DVLE read and write.
//! - [`interp`]: the reference interpreter and its batch API.
//! - [`case`]: PCAS/PCOU case files.
//! - [`synthetic`]: seeded straight-line and branchy programs of any size (compile benches).
//! - [`frontend`]: decoded program → codegen IR (control-flow recovery, ALU lowering), and the
//!   IR evaluator.
//! - [`pica`]: the shader units as GPU registers (register writes with byte masks, uploads,
//!   attribute permutation, output map, geometry-stage configuration).

pub mod asm;
pub mod case;
pub mod engine;
pub mod float;
pub mod frontend;
#[cfg(feature = "fuzz")]
#[doc(hidden)]
pub mod fuzz;
pub mod interp;
pub mod isa;
pub mod pica;
pub mod program;
pub mod shbin;
pub mod synthetic;

pub use program::{Program, Uniforms};
pub use shbin::Shbin;
