//! Dead-code elimination: a pure instruction (one with a result, [`crate::ir::Inst::is_pure`])
//! whose result is not live after it is removed. Removal can kill the operands' last uses, so
//! liveness is recomputed until nothing changes. Effects (`output`, loop and aL operations,
//! `budget`) always stay.
//!
//! Liveness keeps a variable that only feeds itself around a loop (`v = f(v)`, an accumulator
//! nothing reads): a first pass marks the *useful* variables — read by an effect or a
//! terminator, or by an instruction writing a useful variable — and removes every pure
//! instruction writing another one.

use crate::ir::{Function, Var};

use super::liveness;
use super::liveness::Marks;

/// Removes dead pure instructions from `func`; returns how many were removed.
pub fn dce(func: &mut Function) -> usize {
    let mut removed = useless(func);
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

/// Removes the pure instructions whose variable nothing useful reads (see the module docs);
/// returns how many.
fn useless(func: &mut Function) -> usize {
    let n = func.vars.len();
    // Per variable, the operands of every instruction writing it.
    let mut feeds: Vec<Vec<Var>> = vec![Vec::new(); n];
    let mut useful = vec![false; n];
    let mut work = Vec::new();
    let mark = |v: Var, useful: &mut Vec<bool>, work: &mut Vec<Var>| {
        if let Some(u) = useful.get_mut(v.0 as usize) {
            if !*u {
                *u = true;
                work.push(v);
            }
        }
    };
    for block in &func.blocks {
        for inst in &block.insts {
            match inst.dst {
                Some(d) if inst.is_pure() => {
                    if let Some(f) = feeds.get_mut(d.0 as usize) {
                        f.extend_from_slice(inst.uses());
                    }
                }
                _ => {
                    for &u in inst.uses() {
                        mark(u, &mut useful, &mut work);
                    }
                }
            }
        }
        if let Some(m) = block.term.uses() {
            mark(m, &mut useful, &mut work);
        }
    }
    while let Some(v) = work.pop() {
        for u in std::mem::take(&mut feeds[v.0 as usize]) {
            mark(u, &mut useful, &mut work);
        }
    }
    let mut removed = 0;
    for block in &mut func.blocks {
        let before = block.insts.len();
        block
            .insts
            .retain(|i| !(i.is_pure() && i.dst.is_some_and(|d| !useful[d.0 as usize])));
        removed += before - block.insts.len();
    }
    removed
}
