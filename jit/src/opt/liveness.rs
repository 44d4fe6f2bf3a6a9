//! Liveness of (non-SSA) variables over the CFG: the classic backward data-flow problem
//! `live_in(b) = use(b) ∪ (live_out(b) − def(b))`, `live_out(b) = ∪ live_in(successors)`,
//! where `use(b)` holds the variables `b` reads before writing them (its terminator's operand
//! counts as a read at the end of the block) and `def(b)` those it writes.

use crate::ir::{BlockId, Function, Var};

use super::VarSet;

/// Live variables at the entry and exit of every block, indexed by block number. The sets
/// hold the variables that can cross a block boundary (read in some block before being
/// written there) under dense numbers of their own; the methods speak in variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Liveness {
    /// Dense sets live on entry to each block.
    live_in: Vec<VarSet>,
    /// Dense sets live on exit from each block (the terminator's operand included when it
    /// crosses blocks).
    live_out: Vec<VarSet>,
    /// Per variable: its dense number, `u32::MAX` if it never crosses a block boundary.
    dense: Vec<u32>,
    /// Per dense number: the variable.
    sparse: Vec<Var>,
}

impl Liveness {
    fn dense_of(&self, v: Var) -> Option<Var> {
        self.dense
            .get(v.0 as usize)
            .filter(|&&d| d != u32::MAX)
            .map(|&d| Var(d))
    }
    /// True if `v` is live on entry to block `b`.
    pub fn is_live_in(&self, b: BlockId, v: Var) -> bool {
        self.dense_of(v)
            .is_some_and(|d| self.live_in[b.0 as usize].contains(d))
    }
    /// True if `v` is live on exit from block `b`.
    pub fn is_live_out(&self, b: BlockId, v: Var) -> bool {
        self.dense_of(v)
            .is_some_and(|d| self.live_out[b.0 as usize].contains(d))
    }
    /// The variables live on entry to block `b`.
    pub fn live_in(&self, b: BlockId) -> impl Iterator<Item = Var> + '_ {
        self.live_in[b.0 as usize]
            .iter()
            .map(|d| self.sparse[d.0 as usize])
    }
    /// The variables live on exit from block `b`.
    pub fn live_out(&self, b: BlockId) -> impl Iterator<Item = Var> + '_ {
        self.live_out[b.0 as usize]
            .iter()
            .map(|d| self.sparse[d.0 as usize])
    }
    /// True if nothing is live on entry to block `b`.
    pub fn nothing_live_in(&self, b: BlockId) -> bool {
        self.live_in[b.0 as usize].is_empty()
    }

    /// The variables live just after each instruction of block `b` (index i: after
    /// instruction i), computed backwards from the block's live-out set. The last entry includes
    /// the terminator's operand.
    pub fn live_after(&self, func: &Function, b: BlockId) -> Vec<VarSet> {
        let block = &func.blocks[b.0 as usize];
        let mut live: VarSet = self.live_out(b).collect();
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
/// at a block boundary; block-local temporaries never enter the sets. The data-flow runs on
/// those variables renumbered densely (so its sets stay as small as their count, whatever the
/// variables' numbers) with a worklist in post-order (a block's successors first), revisiting
/// a block's predecessors only when its live-in set changed.
pub fn liveness(func: &Function) -> Liveness {
    let n = func.blocks.len();
    let mut uses = Vec::with_capacity(n);
    let mut local = Marks::new(func.vars.len());
    // Dense number of each upward-exposed variable (u32::MAX: none), and back.
    let mut dense = vec![u32::MAX; func.vars.len()];
    let mut sparse: Vec<Var> = Vec::new();
    let mut number = |v: Var, dense: &mut Vec<u32>| -> Var {
        let d = &mut dense[v.0 as usize];
        if *d == u32::MAX {
            *d = sparse.len() as u32;
            sparse.push(v);
        }
        Var(*d)
    };
    for block in &func.blocks {
        local.clear();
        let mut u = VarSet::default();
        for inst in &block.insts {
            for &a in inst.uses() {
                if !local.is_marked(a) {
                    u.insert(number(a, &mut dense));
                }
            }
            if let Some(x) = inst.dst {
                local.mark(x);
            }
        }
        if let Some(m) = block.term.uses() {
            if !local.is_marked(m) {
                u.insert(number(m, &mut dense));
            }
        }
        uses.push(u);
    }
    let crossing = sparse.len();
    // One block that ends the invocation (straight code): nothing is live out of it and what
    // is live into it is what it reads before writing, with no definitions to collect and no
    // data flow to solve.
    if let ([block], [reads]) = (&func.blocks[..], &uses[..]) {
        if block.term.successors().is_empty() {
            let mut entry = VarSet::new(crossing);
            entry.union_with(reads);
            return Liveness {
                live_in: vec![entry],
                live_out: vec![VarSet::new(crossing)],
                dense,
                sparse,
            };
        }
    }
    // Every set sized for all the crossing variables up front, and the visits' working sets
    // reused: the solution allocates nothing per visit.
    let defs: Vec<VarSet> = func
        .blocks
        .iter()
        .map(|block| {
            let mut set = VarSet::new(crossing);
            for d in block.insts.iter().filter_map(|i| i.dst) {
                if let Some(&x) = dense.get(d.0 as usize).filter(|&&x| x != u32::MAX) {
                    set.insert(Var(x));
                }
            }
            set
        })
        .collect();
    let order = BackwardOrder::new(func);
    let mut live_in = vec![VarSet::new(crossing); n];
    let mut live_out = vec![VarSet::new(crossing); n];
    let (mut out, mut inn) = (VarSet::new(crossing), VarSet::new(crossing));
    let mut work = Worklist::full(n);
    while let Some(b) = work.pop(&order) {
        out.clear();
        for s in &order.succs[b] {
            if let Some(li) = live_in.get(s.0 as usize) {
                out.union_with(li);
            }
        }
        inn.copy_from(&out);
        inn.subtract(&defs[b]);
        inn.union_with(&uses[b]);
        if inn != live_in[b] {
            // The old set becomes the next visit's working set.
            std::mem::swap(&mut live_in[b], &mut inn);
            work.push_preds(&order, b);
        }
        live_out[b].copy_from(&out);
    }
    Liveness {
        live_in,
        live_out,
        dense,
        sparse,
    }
}

/// The blocks of a function for a backward data-flow problem: successors, predecessors (one
/// array for all blocks) and a post-order rank (successors before predecessors, so a solution
/// settles in few visits; blocks unreachable from the entry last, by number).
pub(super) struct BackwardOrder {
    pub(super) succs: Vec<crate::ir::Successors>,
    /// The predecessors of block b (once per edge): `preds[pred_start[b]..pred_start[b + 1]]`.
    preds: Vec<u32>,
    pred_start: Vec<u32>,
    rank: Vec<u32>,
    by_rank: Vec<u32>,
}

impl BackwardOrder {
    pub(super) fn new(func: &Function) -> BackwardOrder {
        let n = func.blocks.len();
        let succs: Vec<crate::ir::Successors> =
            func.blocks.iter().map(|b| b.term.successors()).collect();
        let mut pred_start = vec![0u32; n + 1];
        for s in succs.iter().flatten() {
            if let Some(c) = pred_start
                .get_mut(s.0 as usize + 1)
                .filter(|_| (s.0 as usize) < n)
            {
                *c += 1;
            }
        }
        for b in 0..n {
            pred_start[b + 1] += pred_start[b];
        }
        let mut fill = pred_start.clone();
        let mut preds = vec![0u32; pred_start[n] as usize];
        for (b, ss) in succs.iter().enumerate() {
            for s in ss {
                if let Some(f) = fill.get_mut(s.0 as usize).filter(|_| (s.0 as usize) < n) {
                    preds[*f as usize] = b as u32;
                    *f += 1;
                }
            }
        }
        let mut rank = vec![u32::MAX; n];
        let rpo = crate::regalloc::reverse_post_order(func);
        for (i, b) in rpo.iter().rev().enumerate() {
            rank[b.0 as usize] = i as u32;
        }
        let mut next = rpo.len() as u32;
        let mut by_rank = vec![0u32; n];
        for (b, r) in rank.iter_mut().enumerate() {
            if *r == u32::MAX {
                *r = next;
                next += 1;
            }
            by_rank[*r as usize] = b as u32;
        }
        BackwardOrder {
            succs,
            preds,
            pred_start,
            rank,
            by_rank,
        }
    }

    /// The predecessors of block `b`.
    fn preds(&self, b: usize) -> &[u32] {
        &self.preds[self.pred_start[b] as usize..self.pred_start[b + 1] as usize]
    }
}

/// The blocks still to visit, lowest post-order rank first, each at most once at a time.
pub(super) struct Worklist {
    heap: std::collections::BinaryHeap<std::cmp::Reverse<u32>>,
    queued: Vec<bool>,
}

impl Worklist {
    /// Every block of `n`.
    pub(super) fn full(n: usize) -> Worklist {
        Worklist {
            heap: (0..n as u32).map(std::cmp::Reverse).collect(),
            queued: vec![true; n],
        }
    }

    /// The next block to visit.
    pub(super) fn pop(&mut self, order: &BackwardOrder) -> Option<usize> {
        let std::cmp::Reverse(r) = self.heap.pop()?;
        self.queued[r as usize] = false;
        Some(order.by_rank[r as usize] as usize)
    }

    /// Queues the predecessors of block `b` (those not queued already).
    pub(super) fn push_preds(&mut self, order: &BackwardOrder, b: usize) {
        for &p in order.preds(b) {
            let r = order.rank[p as usize];
            if !std::mem::replace(&mut self.queued[r as usize], true) {
                self.heap.push(std::cmp::Reverse(r));
            }
        }
    }
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
