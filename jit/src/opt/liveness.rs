//! Liveness of (non-SSA) variables over the CFG: the classic backward data-flow problem
//! `live_in(b) = use(b) ∪ (live_out(b) − def(b))`, `live_out(b) = ∪ live_in(successors)`,
//! where `use(b)` holds the variables `b` reads before writing them (its terminator's operand
//! counts as a read at the end of the block) and `def(b)` those it writes.

use crate::ir::{BlockId, Function, Var};

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
///
/// Only variables read in some block before being written there (upward-exposed) can be live
/// at a block boundary; block-local temporaries never enter the sets, which keeps them as
/// small as the set of such variables.
pub fn liveness(func: &Function) -> Liveness {
    let n = func.blocks.len();
    let mut uses = Vec::with_capacity(n);
    let mut local = Marks::new(func.vars.len());
    for block in &func.blocks {
        local.clear();
        let mut u = VarSet::default();
        for inst in &block.insts {
            for &a in inst.uses() {
                if !local.is_marked(a) {
                    u.insert(a);
                }
            }
            if let Some(x) = inst.dst {
                local.mark(x);
            }
        }
        if let Some(m) = block.term.uses() {
            if !local.is_marked(m) {
                u.insert(m);
            }
        }
        uses.push(u);
    }
    let mut exposed = VarSet::default();
    for u in &uses {
        exposed.union_with(u);
    }
    let defs: Vec<VarSet> = func
        .blocks
        .iter()
        .map(|block| {
            block
                .insts
                .iter()
                .filter_map(|i| i.dst)
                .filter(|&d| exposed.contains(d))
                .collect()
        })
        .collect();
    let succs: Vec<Vec<BlockId>> = func.blocks.iter().map(|b| b.term.successors()).collect();
    let mut live_in = vec![VarSet::default(); n];
    let mut live_out = vec![VarSet::default(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut out = VarSet::default();
            for s in &succs[b] {
                if let Some(li) = live_in.get(s.0 as usize) {
                    out.union_with(li);
                }
            }
            let mut inn = out.clone();
            inn.subtract(&defs[b]);
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

/// A set of variables that is emptied in O(1): a stamp per variable, valid when it equals the
/// current generation.
pub(super) struct Marks {
    stamp: Vec<u32>,
    current: u32,
}

impl Marks {
    pub(super) fn new(vars: usize) -> Marks {
        Marks {
            stamp: vec![0; vars],
            current: 1,
        }
    }
    /// Empties the set.
    pub(super) fn clear(&mut self) {
        self.current += 1;
    }
    pub(super) fn mark(&mut self, v: Var) {
        if let Some(s) = self.stamp.get_mut(v.0 as usize) {
            *s = self.current;
        }
    }
    pub(super) fn unmark(&mut self, v: Var) {
        if let Some(s) = self.stamp.get_mut(v.0 as usize) {
            *s = 0;
        }
    }
    pub(super) fn is_marked(&self, v: Var) -> bool {
        self.stamp.get(v.0 as usize) == Some(&self.current)
    }
}
