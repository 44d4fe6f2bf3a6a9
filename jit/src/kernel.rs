//! What every backend does before it emits a kernel — verify the IR, check that nothing is read
//! before it is written, allocate registers — and the labels every kernel's batch loop has.

use dynasmrt::{DynamicLabel, VecAssembler};

use crate::abi;
use crate::ir::Function;
use crate::opt;
use crate::regalloc::{self, Allocation};
use crate::timings::Clock;
use crate::x64::CompileError;

/// Verifies `func` and allocates its variables to `allocatable` registers and the context's
/// spill slots. Laps `clock` after verification, liveness and allocation.
pub(crate) fn allocate(
    func: &Function,
    allocatable: &[u8],
    clock: &mut Clock<'_>,
) -> Result<Allocation, CompileError> {
    func.verify()?;
    clock.lap("backend verify");
    let live = opt::liveness(func);
    if let Some(v) = live.live_in(crate::ir::BlockId(0)).next() {
        return Err(CompileError::Uninitialized(v.0));
    }
    clock.lap("liveness");
    let alloc = regalloc::allocate(func, &live, allocatable, abi::SPILL_SLOTS)?;
    clock.lap("regalloc");
    Ok(alloc)
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
    /// Lanes disagreed: status 3.
    pub diverged: DynamicLabel,
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
            diverged: l(),
        }
    }
}
