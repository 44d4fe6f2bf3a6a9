//! Which head blocks are made. A state whose code surely goes on in the block built before it
//! ([`Chain::sure`]) never gets a head block; every other state's head is made up front, in
//! state order, followed by the exit block, as before chaining existed. A straight-line
//! program is then built as one block (the exit block, made last and entered by one jump, is
//! dropped), and CFG simplification has nothing to merge.
//!
//! The blocks not made would have been empty and unreachable, and CFG simplification keeps
//! the relative order of the blocks it keeps: after it, the function is the one a build
//! making every head gives.

use picajit_codegen::ir::{BlockId, Builder, Function, Terminator};

use super::super::chain::Chain;

/// A head block not made.
pub(in crate::frontend) const UNMADE: BlockId = BlockId(u32::MAX);

/// The head block of each of the `states` states, `UNMADE` for those `chain` says surely go
/// on in the block before them (`None`: every state gets one), made in state order.
pub(in crate::frontend) fn make(
    b: &mut Builder,
    states: usize,
    chain: Option<&Chain>,
) -> Vec<BlockId> {
    let mut heads = vec![UNMADE; states];
    for (s, head) in heads.iter_mut().enumerate() {
        if !chain.is_some_and(|c| c.sure(s)) {
            *head = b.block();
        }
    }
    heads
}

/// The block in `slot`, made now if it is [`UNMADE`] (only if [`Chain::sure`] was wrong: the
/// function is still right, only its blocks are in another order).
#[inline]
pub(in crate::frontend) fn made(b: &mut Builder, slot: &mut BlockId) -> BlockId {
    if *slot == UNMADE {
        debug_assert!(false, "a state sure to chain needs its head block");
        *slot = b.block();
    }
    *slot
}

/// Drops the exit block when it is the last block, empty, and entered only by a jump from a
/// block with instructions: that block ends the invocation itself (what CFG simplification's
/// chain merging would do; an empty jumping block would be jumped through instead).
pub(in crate::frontend) fn drop_lone_exit(func: &mut Function, exit: BlockId) {
    let last = func.blocks.len() - 1;
    let x = &func.blocks[last];
    if exit.0 as usize != last || !x.insts.is_empty() || x.term != Terminator::Exit {
        return;
    }
    let mut from = None;
    for (b, block) in func.blocks.iter().enumerate() {
        for t in block.term.successors() {
            if t == exit {
                if from.is_some() {
                    return;
                }
                from = Some(b);
            }
        }
    }
    let Some(from) = from else {
        return;
    };
    let block = &mut func.blocks[from];
    if block.term == Terminator::Jump(exit) && !block.insts.is_empty() {
        block.term = Terminator::Exit;
        func.blocks.pop();
    }
}
