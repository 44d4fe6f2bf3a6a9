//! Dead-code elimination: a pure instruction (one with a result, [`crate::ir::Inst::is_pure`])
//! whose result is not live after it is removed. Removal can kill the operands' last uses, so
//! liveness is recomputed until nothing changes. Effects (`output`, loop and aL operations,
//! `budget`) always stay.

use crate::ir::Function;

use super::liveness;
use super::liveness::Marks;

/// Removes dead pure instructions from `func`; returns how many were removed.
pub fn dce(func: &mut Function) -> usize {
    let mut removed = 0;
    loop {
        let live = liveness(func);
        let mut round = 0;
        // Live variables during the backward walk: the block's live-out set (block-crossing
        // variables) plus a stamp per block-local variable read later in the block.
        let mut later = Marks::new(func.vars.len());
        for (b, block) in func.blocks.iter_mut().enumerate() {
            later.clear();
            let mut set = live.live_out[b].clone();
            if let Some(m) = block.term.uses() {
                later.mark(m);
            }
            let mut keep = vec![true; block.insts.len()];
            for (i, inst) in block.insts.iter().enumerate().rev() {
                if let Some(d) = inst.dst {
                    let needed = set.contains(d) || later.is_marked(d);
                    if inst.is_pure() && !needed {
                        keep[i] = false;
                        round += 1;
                        continue;
                    }
                    set.remove(d);
                    later.unmark(d);
                }
                for &u in inst.uses() {
                    later.mark(u);
                }
            }
            let mut k = keep.iter();
            block.insts.retain(|_| *k.next().unwrap_or(&true));
        }
        if round == 0 {
            return removed;
        }
        removed += round;
    }
}
