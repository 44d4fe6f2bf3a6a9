//! Host-neutral passes over the [`crate::ir`]:
//!
//! - [`liveness`]: per-block live-in / live-out sets of variables ([`Liveness`]), the analysis the
//!   register allocator reuses. Variables are not SSA, so a write kills: a variable is live at a
//!   point if some path from there reads it before writing it.
//! - [`cse`]: reuses the result of an earlier identical pure instruction of the same block.
//! - [`dce`]: removes pure instructions whose result is dead, to a fixed point.
//! - [`simplify_cfg`]: folds branches with equal targets, threads jumps through empty blocks,
//!   drops unreachable blocks and merges straight-line chains (block 0 stays the entry).
//! - [`specialize_pmul`]: PICA multiplies by uniform components known (for a run) to be finite
//!   and non-zero become plain multiplies.
//! - [`budget_bounds_cycles`]: checks that every cycle of the CFG spends step budget, which is
//!   what makes any execution of the function terminate.

mod cfg;
mod cse;
mod dce;
mod liveness;
mod specialize;
mod varset;

pub use cfg::{budget_bounds_cycles, predecessors, simplify_cfg};
pub use cse::cse;
pub use dce::dce;
pub use liveness::{liveness, Liveness};
pub use specialize::{pmul_uniform_operands, specialize_pmul};
pub use varset::VarSet;

#[cfg(test)]
mod tests;
