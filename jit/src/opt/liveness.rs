//! Liveness of (non-SSA) variables over the CFG: the classic backward data-flow problem
//! `live_in(b) = use(b) ∪ (live_out(b) − def(b))`, `live_out(b) = ∪ live_in(successors)`,
//! where `use(b)` holds the variables `b` reads before writing them (its terminator's operand
//! counts as a read at the end of the block) and `def(b)` those it writes.

use crate::ir::{BlockId, Function};

use super::VarSet;

/// Live variables at the entry and exit of every block, indexed by block number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Liveness {
    /// Variables live on entry to each block.
    pub live_in: Vec<VarSet>,
    /// Variables live on exit from each block (including the terminator's operand).
    pub live_out: Vec<VarSet>,
}

impl Liveness {
    /// The variables live just after each instruction of block `b` (index i: after
    /// instruction i), computed backwards from the block's live-out set. The last entry includes
    /// the terminator's operand.
    pub fn live_after(&self, func: &Function, b: BlockId) -> Vec<VarSet> {
        let block = &func.blocks[b.0 as usize];
        let mut live = self.live_out[b.0 as usize].clone();
        if let Some(m) = block.term.uses() {
            live.insert(m);
        }
        let mut out = vec![VarSet::default(); block.insts.len()];
        for (i, inst) in block.insts.iter().enumerate().rev() {
            out[i] = live.clone();
            if let Some(d) = inst.dst {
                live.remove(d);
            }
            for &u in inst.uses() {
                live.insert(u);
            }
        }
        out
    }
}

/// Computes the live-in and live-out sets of every block of `func`.
pub fn liveness(func: &Function) -> Liveness {
    let n = func.blocks.len();
    let nvars = func.vars.len();
    let mut uses = Vec::with_capacity(n);
    let mut defs = Vec::with_capacity(n);
    for block in &func.blocks {
        let mut u = VarSet::new(nvars);
        let mut d = VarSet::new(nvars);
        for inst in &block.insts {
            for &a in inst.uses() {
                if !d.contains(a) {
                    u.insert(a);
                }
            }
            if let Some(x) = inst.dst {
                d.insert(x);
            }
        }
        if let Some(m) = block.term.uses() {
            if !d.contains(m) {
                u.insert(m);
            }
        }
        uses.push(u);
        defs.push(d);
    }
    let succs: Vec<Vec<BlockId>> = func.blocks.iter().map(|b| b.term.successors()).collect();
    let mut live_in = vec![VarSet::new(nvars); n];
    let mut live_out = vec![VarSet::new(nvars); n];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut out = VarSet::new(nvars);
            for s in &succs[b] {
                if let Some(li) = live_in.get(s.0 as usize) {
                    out.union_with(li);
                }
            }
            let mut inn = out.clone();
            for v in defs[b].iter() {
                inn.remove(v);
            }
            inn.union_with(&uses[b]);
            if inn != live_in[b] {
                live_in[b] = inn;
                changed = true;
            }
            live_out[b] = out;
        }
    }
    Liveness { live_in, live_out }
}
