//! What every backend does before it emits a kernel — check that nothing is read before it is
//! written, allocate registers — and the labels every kernel's batch loop has. The IR itself is
//! verified once, where it is made ([`crate::ir::Verified`]).

use dynasmrt::{DynamicLabel, VecAssembler};

use crate::abi;
use crate::ir::{Function, Inst, Op};
use crate::opt;
use crate::regalloc::{self, Allocation, Class};
use crate::timings::Clock;
use crate::x64::CompileError;

/// Allocates the variables of the verified function `func` to `allocatable` registers and the
/// context's spill slots. Variables with an entry in `remat` (see [`remat_defs`]) take no
/// register; those `hoisted` (see [`hoisted`]) get a spill slot of their own; those `elided`
/// (the backend never reads nor writes them) get no location. Laps `clock` after the backend's
/// preparation (everything before this call), liveness and allocation.
pub(crate) fn allocate(
    func: &Function,
    allocatable: &[u8],
    remat: &[Option<Leaf>],
    hoisted: &[bool],
    elided: &[bool],
    clock: &mut Clock<'_>,
) -> Result<Allocation, CompileError> {
    clock.lap("backend prepare");
    let live = opt::liveness(func);
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

/// At most this many values are computed once per run (each takes a spill slot for the run).
pub(crate) const MAX_HOISTED: usize = 128;

/// Per variable: true if its definition is computed once per run, before the batch loop,
/// into a spill slot of its own — a batch-invariant value ([`opt::batch_invariant`]) computed
/// by an operation (not a constant or uniform read: those cost one load wherever they are)
/// whose operands are each hoisted or a value of `leaves` ([`remat_defs`]: the prologue reads
/// those where they are kept), the first [`MAX_HOISTED`] of them in reverse post-order. The
/// kernel's prologue emits those definitions in that order (each one's operands are defined
/// before it) and the batch loop skips them.
pub(crate) fn hoisted(func: &Function, leaves: &[Option<Leaf>]) -> Vec<bool> {
    let invariant = opt::batch_invariant(func);
    let mut hoisted = vec![false; func.vars.len()];
    let mut n = 0;
    for b in regalloc::reverse_post_order(func) {
        for inst in &func.blocks[b.0 as usize].insts {
            if n == MAX_HOISTED {
                return hoisted;
            }
            let Some(d) = inst.dst else { continue };
            let i = d.0 as usize;
            // The cheap tests first: most definitions are not batch-invariant.
            if !invariant[i] || leaves[i].is_some() {
                continue;
            }
            let leaf = matches!(
                inst.op,
                Op::FConst | Op::Uniform | Op::IConst | Op::MaskConst
            );
            let ready = inst
                .uses()
                .iter()
                .all(|u| hoisted[u.0 as usize] || leaves[u.0 as usize].is_some());
            if !leaf && ready {
                hoisted[i] = true;
                n += 1;
            }
        }
    }
    hoisted
}

/// A value fixed for the whole run that a variable can be re-read from at each use (see
/// [`remat_defs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leaf {
    /// A constant, as its 32-bit pattern (c96..c127 read as 1.0 are constants too).
    Const(u32),
    /// Component `comp` of uniform `row` (0..96), read from its broadcast row in the context.
    Uniform { row: u32, comp: u32 },
}

impl Leaf {
    /// The leaf an instruction defines, if it reads a value fixed for the whole run: a float
    /// constant, or a uniform component read without an offset.
    fn of(inst: &Inst) -> Option<Leaf> {
        let row = inst.imm[0] & 0x7F;
        if inst.op == Op::FConst {
            Some(Leaf::Const(inst.imm[0]))
        } else if inst.op != Op::Uniform {
            None
        } else if row < 96 {
            Some(Leaf::Uniform {
                row,
                comp: inst.imm[1] & 3,
            })
        } else {
            Some(Leaf::Const(1.0f32.to_bits()))
        }
    }
}

/// Per variable: the value it holds, if its only definition reads a value fixed for the whole
/// run — a constant, or a uniform component read without an offset (c0..c95 from its
/// broadcast row, c96..c127 are 1.0). Such a variable can be re-read at each use instead of
/// holding a register ([`crate::regalloc::Loc::Remat`]).
/// A copy (`Mov`) of such a variable, itself defined once, is re-read from the same place.
pub(crate) fn remat_defs(func: &Function) -> Vec<Option<Leaf>> {
    let mut defs: Vec<Option<Leaf>> = vec![None; func.vars.len()];
    let mut count = vec![0u32; func.vars.len()];
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let Some(d) = inst.dst {
            count[d.0 as usize] += 1;
        }
    }
    // In reverse post-order a copy's source is defined before the copy.
    for b in regalloc::reverse_post_order(func) {
        for inst in &func.blocks[b.0 as usize].insts {
            let Some(d) = inst.dst else { continue };
            let i = d.0 as usize;
            if count[i] != 1 {
                continue;
            }
            defs[i] = if inst.op == Op::Mov {
                defs[inst.args[0].0 as usize]
            } else {
                Leaf::of(inst)
            };
        }
    }
    defs
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
