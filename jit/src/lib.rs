//! `picajit-codegen`: the block IR, host-neutral passes, the per-component register allocator and
//! the native backends (x86-64 and AArch64) of picajit.
//!
//! This crate knows nothing of PICA200 encodings: the `picajit` crate's frontend lowers decoded
//! PICA programs into this crate's IR. The IR, allocator and backends arrive with the x86-64 JIT
//! issue; until then this crate only fixes the workspace layout described in `design.md`.

/// Lane widths the backends are planned to support, for documentation and tests of the layout.
pub const PLANNED_LANE_WIDTHS: [usize; 3] = [4, 8, 16];
