//! `picajit-codegen`: the block IR, host-neutral passes, the per-component register allocator
//! and the native backends of picajit. It knows nothing of PICA200 encodings: the `picajit`
//! crate's frontend lowers decoded PICA programs into this crate's [`ir`].
//!
//! - [`ir`]: the IR (one op table), builder, printer, verifier.
//! - [`opt`]: dead-code elimination and liveness.
//! - [`regalloc`]: linear-scan allocation of lane-vector variables to SIMD registers or spill
//!   slots in the batch context.
//! - [`abi`]: the batch context the generated code reads and writes.
//! - [`x64`]: the x86-64 backend (SSE4.1, W = 4; AVX2, W = 8).
//! - [`aarch64`]: the AArch64 backend (NEON, W = 4).
//! - `kernel`: what both backends do before emitting (verification, allocation, labels, the
//!   values computed once per run); `io_plan`: what a kernel's batch loop moves.
//! - [`arena`]: the long-lived executable memory kernels are placed in.
//! - [`code`]: the one call boundary into generated code.
//! - `emu` (feature `emu`, for tests): an x86-64 emulator that runs the x64 kernels bit-exactly
//!   on any host.
//! - [`timings`]: the compile-time breakdown (a [`timings::Clock`] lapped at phase boundaries).

pub mod aarch64;
pub mod abi;
pub mod arena;
pub mod code;
#[cfg(feature = "emu")]
pub mod emu;
mod facts;
mod io_plan;
pub mod ir;
mod kernel;
pub mod opt;
pub mod regalloc;
pub mod timings;
pub mod x64;
