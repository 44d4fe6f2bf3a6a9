//! What every backend does before it emits a kernel — order a straight block for latency, check
//! that nothing is read before it is written, allocate registers — and the labels every kernel's
//! batch loop has. The IR itself is verified once, where it is made ([`crate::ir::Verified`]),
//! and so are the facts and the schedule its kernels share.

use std::borrow::Cow;
use std::sync::OnceLock;

use dynasmrt::{DynamicLabel, VecAssembler};

use crate::abi;
#[cfg(doc)]
use crate::facts::Facts;
use crate::facts::Leaf;
use crate::ir::{Block, Function, Inst, Op, Verified};
use crate::opt;
use crate::regalloc::{self, Allocation, Class};
use crate::timings::Clock;
use crate::x64::CompileError;

/// Allocates the variables of `func`, the function a kernel of `verified` emits (what
/// [`scheduled`] returned for it), to `allocatable` registers and the context's spill slots.
/// Variables with an entry in `remat` (see [`Facts::leaves`]) take no register; those `hoisted`
/// (see [`Facts::hoisted`]) get a spill slot of their own; those `elided` (the backend never
/// reads nor writes them) get no location. Laps `clock` after the backend's preparation
/// (everything before this call), liveness and allocation.
pub(crate) fn allocate(
    verified: &Verified,
    func: &Function,
    allocatable: &[u8],
    remat: &[Option<Leaf>],
    hoisted: &[bool],
    elided: &[bool],
    clock: &mut Clock<'_>,
) -> Result<Allocation, CompileError> {
    clock.lap("backend prepare");
    let live = liveness(verified, func);
    if let Some(v) = live.live_in(crate::ir::BlockId(0)).next() {
        return Err(CompileError::Uninitialized(v.0));
    }
    clock.lap("liveness");
    let alloc = regalloc::allocate(func, &live, allocatable, abi::SPILL_SLOTS, &|v| {
        let i = v.0 as usize;
        if elided.get(i).copied().unwrap_or(false) {
            Class::Elided
        } else if remat.get(i).is_some_and(Option::is_some) {
            Class::Remat
        } else if hoisted.get(i).copied().unwrap_or(false) {
            Class::Memory
        } else {
            Class::Register
        }
    })?;
    clock.lap("regalloc");
    Ok(alloc)
}

/// The liveness of `func`, a function a kernel of `verified` emits: kept with `verified` when
/// `func` is its IR ([`Verified::liveness`]) or its kept schedule's function, so that every
/// kernel emitting that function (AoS, SoA, draw) shares it; found anew for any other function.
fn liveness<'a>(verified: &'a Verified, func: &Function) -> Cow<'a, opt::Liveness> {
    if std::ptr::eq(func, &**verified) {
        return Cow::Borrowed(verified.liveness());
    }
    match verified.kept_schedule() {
        Some(Schedule {
            func: Some(kept),
            live,
            ..
        }) if std::ptr::eq(func, kept) => Cow::Borrowed(live.get_or_init(|| opt::liveness(kept))),
        Some(_) | None => Cow::Owned(opt::liveness(func)),
    }
}

/// The order a backend emits a function in, for one register count and rematerialization
/// rule: what several kernels of one function share ([`Verified::schedule`]).
pub(crate) struct Schedule {
    regs: usize,
    remat: bool,
    /// The function with its one block in scheduled order; `None` keeps the order.
    func: Option<Function>,
    /// The liveness of `func`, once a kernel asked for it.
    live: OnceLock<opt::Liveness>,
}

impl Schedule {
    /// The schedule of `func` within `regs` registers ([`opt::schedule`]). Variables the
    /// backend computes once per run ([`Facts::hoisted`]) take no register, nor, where it
    /// re-reads them (`remat`), those with a leaf ([`Facts::leaves`]).
    fn of(func: &Verified, regs: usize, remat: bool) -> Schedule {
        let facts = func.facts();
        let free = |v: crate::ir::Var| {
            let i = v.0 as usize;
            (remat && facts.leaves.get(i).is_some_and(Option::is_some))
                || facts.hoisted.get(i) == Some(&true)
        };
        // Only a one-block function is reordered: the new function is that block's new order.
        let func = opt::schedule(func, &free, regs).map(|insts| Function {
            blocks: vec![Block {
                insts,
                term: func.blocks[0].term,
            }],
            vars: func.vars.clone(),
            loop_slots: func.loop_slots,
        });
        Schedule {
            regs,
            remat,
            func,
            live: OnceLock::new(),
        }
    }
}

/// The function a backend emits for `func`: its one block ordered for latency within `regs`
/// registers ([`Schedule::of`]), or `func` as it is. The first schedule asked for is kept with
/// `func` for its other kernels (each backend asks with the same arguments every time).
pub(crate) fn scheduled(func: &Verified, regs: usize, remat: bool) -> Cow<'_, Function> {
    let kept = func.schedule(|| Schedule::of(func, regs, remat));
    if (kept.regs, kept.remat) == (regs, remat) {
        return kept
            .func
            .as_ref()
            .map_or(Cow::Borrowed(&**func), Cow::Borrowed);
    }
    let other = Schedule::of(func, regs, remat);
    other.func.map_or(Cow::Borrowed(&**func), Cow::Owned)
}

/// The instructions of `func` in the order a kernel emits them, `scheduled` (what [`scheduled`]
/// returned for it), where that is not the IR's order.
pub(crate) fn reordered(func: &Function, scheduled: &Function) -> Option<Vec<Inst>> {
    (scheduled.blocks != func.blocks).then(|| scheduled.blocks[0].insts.clone())
}

/// The per-batch state a kernel resets at the start of each batch: the step budget if the
/// function spends any, aL if it reads or changes it, the status word if it retires lanes (the
/// only writer of the word in the context).
pub(crate) struct BatchState {
    pub budget: bool,
    pub al: bool,
    pub status: bool,
}

impl BatchState {
    pub fn of(func: &Function) -> BatchState {
        let mut st = BatchState {
            budget: false,
            al: false,
            status: false,
        };
        for inst in func.blocks.iter().flat_map(|b| &b.insts) {
            st.budget |= inst.op == Op::Budget;
            st.status |= inst.op == Op::Retire;
            st.al |= matches!(
                inst.op,
                Op::UniformAl | Op::AlInc | Op::AlRestore | Op::LoopPush
            );
        }
        st
    }
}

/// The labels of a kernel: one per IR block and the batch loop's own.
pub(crate) struct Labels {
    pub blocks: Vec<DynamicLabel>,
    /// Budget exhausted: status 1.
    pub exhausted: DynamicLabel,
    /// The invocation ended: status 0.
    pub batch_end: DynamicLabel,
    /// The head of the batch loop.
    pub top: DynamicLabel,
    /// Outputs out, next batch.
    pub store: DynamicLabel,
    /// Every batch run.
    pub done: DynamicLabel,
    /// Triangle buffer full: status 2.
    pub overflow: DynamicLabel,
}

impl Labels {
    pub fn new<R: dynasmrt::relocations::Relocation>(
        ops: &mut VecAssembler<R>,
        func: &Function,
    ) -> Labels {
        let mut l = || ops.new_dynamic_label();
        Labels {
            blocks: func.blocks.iter().map(|_| l()).collect(),
            exhausted: l(),
            batch_end: l(),
            top: l(),
            store: l(),
            done: l(),
            overflow: l(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::{liveness, scheduled};
    use crate::ir::{Builder, Function, Op, Terminator, Ty, Verified};
    use crate::opt;

    /// A diamond on bool uniform b0: the entry reads an input, each arm writes a variable the
    /// join block reads (live across every block boundary).
    fn diamond() -> Function {
        let mut b = Builder::new();
        let x = b.inst(Op::Input, &[], [0, 0]);
        let y = b.var(Ty::F32);
        let (then, other, join) = (b.block(), b.block(), b.block());
        b.terminate(Terminator::BranchBool { id: 0, then, other });
        b.switch_to(then);
        b.inst_to(Op::Add, y, &[x, x], [0, 0]);
        b.terminate(Terminator::Jump(join));
        b.switch_to(other);
        b.inst_to(Op::Mul, y, &[x, x], [0, 0]);
        b.terminate(Terminator::Jump(join));
        b.switch_to(join);
        b.effect(Op::Output, &[y], [0, 0]);
        b.terminate(Terminator::Exit);
        b.finish()
    }

    /// One block: a chain of multiplies, then an independent `rsq` the scheduler starts first.
    fn chains() -> Function {
        let mut b = Builder::new();
        let y = b.inst(Op::Input, &[], [1, 0]);
        let mut x = b.inst(Op::Input, &[], [0, 0]);
        for _ in 0..6 {
            x = b.binary(Op::Mul, x, x);
        }
        let r = b.unary(Op::Rsq, y);
        b.effect(Op::Output, &[x], [0, 0]);
        b.effect(Op::Output, &[r], [1, 0]);
        b.terminate(Terminator::Exit);
        b.finish()
    }

    /// Every kernel emitting a function's IR or its kept schedule gets the one liveness kept
    /// with it, equal to the liveness found anew; any other function gets its own.
    #[test]
    fn kernels_of_one_function_share_its_liveness() {
        for func in [diamond(), chains()] {
            let v = Verified::new(func.clone()).expect("verifies");
            let fresh = |f: &Function| opt::liveness(f);
            for (regs, remat) in [(16, true), (16, true), (32, false)] {
                let emitted = scheduled(&v, regs, remat);
                let (first, again) = (liveness(&v, &emitted), liveness(&v, &emitted));
                assert_eq!(*first, fresh(&emitted));
                match (first, again) {
                    (Cow::Borrowed(a), Cow::Borrowed(b)) => assert!(std::ptr::eq(a, b)),
                    (a, b) => {
                        // Only an order other than the kept one is found anew, every time.
                        assert!(matches!((&a, &b), (Cow::Owned(_), Cow::Owned(_))));
                        assert!(matches!(emitted, Cow::Owned(_)));
                    }
                }
            }
            let copy = func.clone();
            let other = liveness(&v, &copy);
            assert!(matches!(other, Cow::Owned(_)));
            assert_eq!(*other, fresh(&copy));
        }
    }
}
