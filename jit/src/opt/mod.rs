//! Host-neutral passes over the [`crate::ir`]:
//!
//! - [`liveness`]: per-block live-in / live-out sets of variables ([`Liveness`]), the analysis the
//!   register allocator reuses. Variables are not SSA, so a write kills: a variable is live at a
//!   point if some path from there reads it before writing it.
//! - [`split_defs`]: gives every value that cannot leave its block a variable of its own;
//!   [`renumber`]: block-crossing variables first (small liveness sets).
//! - [`cse`]: reuses the result of an earlier identical pure instruction of the same block.
//! - [`dce`]: removes pure instructions whose result is dead, to a fixed point;
//!   [`dce_renumber`]: and then renumbers the variables left, densely, in [`renumber`]'s order.
//! - [`simplify_cfg`]: folds branches with equal targets, threads jumps through empty blocks,
//!   drops unreachable blocks and merges straight-line chains (block 0 stays the entry).
//! - [`batch_invariant`]: values computed only from constants and offset-free uniform reads,
//!   the same for a whole run (a backend computes them once per run).
//! - [`place_io`]: groups the input reads of a register and sinks the output stores of the
//!   blocks that end the invocation (for the backends' I/O); [`on_cycles`] finds the blocks that
//!   can run more than once per batch.
//! - [`specialize_pmul`]: PICA multiplies by uniform components known (for a run) to be finite
//!   and non-zero become plain multiplies; [`square_pmul`]: so do squares.
//! - [`schedule`]: orders the pure instructions of a one-block function for latency (long
//!   chains first, independent work in their shadow) within the backend's registers.
//! - [`budget_bounds_cycles`]: checks that every cycle of the CFG spends step budget, which is
//!   what makes any execution of the function terminate.

mod cfg;
mod cse;
mod dce;
mod invariant;
mod liveness;
mod place;
mod rename;
mod sched;
mod specialize;
mod varset;

pub use cfg::{budget_bounds_cycles, predecessors, simplify_cfg};
pub use cse::cse;
pub use dce::{dce, dce_renumber};
pub use invariant::batch_invariant;
pub(crate) use invariant::invariant_def;
pub use liveness::{liveness, Liveness};
pub use place::{group_inputs, on_cycles, place_io, reread_copies, sink_outputs};
pub use rename::{renumber, split_defs};
pub use sched::{latency, schedule};
pub(crate) use specialize::uniform_def;
pub use specialize::{pmul_uniform_operands, specialize_pmul, square_pmul, ComponentSet};
pub use varset::VarSet;

#[cfg(test)]
mod tests;
