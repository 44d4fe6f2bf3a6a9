//! Dead-code elimination: a pure instruction (one with a result, [`crate::ir::Inst::is_pure`])
//! whose result is not live after it is removed. Removal can kill the operands' last uses, so
//! liveness is recomputed until nothing changes. Effects (`output`, loop and aL operations,
//! `budget`) always stay.

use crate::ir::Function;

use super::liveness;

/// Removes dead pure instructions from `func`; returns how many were removed.
pub fn dce(func: &mut Function) -> usize {
    let mut removed = 0;
    loop {
        let live = liveness(func);
        let mut round = 0;
        for (b, block) in func.blocks.iter_mut().enumerate() {
            let mut set = live.live_out[b].clone();
            if let Some(m) = block.term.uses() {
                set.insert(m);
            }
            let mut keep = vec![true; block.insts.len()];
            for (i, inst) in block.insts.iter().enumerate().rev() {
                if let Some(d) = inst.dst {
                    if inst.is_pure() && !set.contains(d) {
                        keep[i] = false;
                        round += 1;
                        continue;
                    }
                    set.remove(d);
                }
                for &u in inst.uses() {
                    set.insert(u);
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
