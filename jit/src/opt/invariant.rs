//! Batch-invariant values: the same in every lane of every batch of a run, because they are
//! computed only from constants and from uniform components read without an offset (fixed for
//! the run). A backend computes such a value once per run, before its batch loop, instead of
//! once per batch.
//!
//! Variables are not SSA, so only a variable with exactly one definition qualifies: that
//! definition then precedes every read on every path (the backends reject functions that can
//! read a variable before writing it), so computing it early and keeping it for the run gives
//! every read the same value.

use crate::ir::{Function, Inst, Op};

/// Per variable: true if it is batch-invariant (see the module docs). Constants and uniform
/// reads count too.
pub fn batch_invariant(func: &Function) -> Vec<bool> {
    crate::facts::Facts::of(func).invariant
}

/// Whether the single definition `inst` gives a batch-invariant value, given what is known of
/// the variables defined before it (`invariant`, indexed by variable).
pub(crate) fn invariant_def(inst: &Inst, invariant: &[bool]) -> bool {
    match inst.op {
        Op::FConst | Op::IConst | Op::MaskConst => true,
        Op::Uniform => true,
        // aL changes inside loops; offsets and inputs differ per lane. (AGAL's constant
        // table is left to its kernels; a quad difference mixes lanes.)
        Op::UniformAl | Op::UniformIdx | Op::Input | Op::Const | Op::ConstIdx | Op::QuadDiff => {
            false
        }
        // The lane-position model's per-lane state is left in the batch loop.
        Op::LaneMin | Op::IntUniform | Op::BoolMask | Op::BudgetLanes | Op::UniformLead => false,
        Op::Mov
        | Op::Neg
        | Op::Add
        | Op::Mul
        | Op::PMul
        | Op::Max
        | Op::Min
        | Op::Floor
        | Op::Rcp
        | Op::Rsq
        | Op::Ex2
        | Op::Lg2
        | Op::Abs
        | Op::Div
        | Op::Sqrt
        | Op::Sin
        | Op::Cos
        | Op::Pow
        | Op::Cmp
        | Op::Select
        | Op::MaskAnd
        | Op::MaskOr
        | Op::MaskNot
        | Op::MaskMov
        | Op::FtoiSat
        | Op::IMov
        | Op::IAdd
        | Op::IEq
        | Op::ILt
        | Op::ISelect
        | Op::MaskAndNot => inst.uses().iter().all(|u| invariant[u.0 as usize]),
        Op::Output
        | Op::LoopPush
        | Op::AlInc
        | Op::AlRestore
        | Op::Budget
        | Op::EmitSlot
        | Op::EmitTri
        | Op::Retire => false,
    }
}
