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
    live_in: Rows,
    /// Dense sets live on exit from each block: the union of the successors' live-in sets. The
    /// terminator's operand is read inside its block, so it is here only if a successor reads
    /// it too ([`Liveness::live_after`] adds it to the block's last entry).
    live_out: Rows,
    /// Per variable: its dense number, `u32::MAX` if it never crosses a block boundary.
    dense: Vec<u32>,
    /// Per dense number: the variable.
    sparse: Vec<Var>,
}

impl Liveness {
    fn dense_of(&self, v: Var) -> Option<u32> {
        self.dense
            .get(v.0 as usize)
            .copied()
            .filter(|&d| d != u32::MAX)
    }
    /// True if `v` is live on entry to block `b`.
    pub fn is_live_in(&self, b: BlockId, v: Var) -> bool {
        self.dense_of(v)
            .is_some_and(|d| self.live_in.contains(b.0 as usize, d))
    }
    /// True if `v` is live on exit from block `b`.
    pub fn is_live_out(&self, b: BlockId, v: Var) -> bool {
        self.dense_of(v)
            .is_some_and(|d| self.live_out.contains(b.0 as usize, d))
    }
    /// The variables live on entry to block `b`.
    pub fn live_in(&self, b: BlockId) -> impl Iterator<Item = Var> + '_ {
        self.live_in
            .iter(b.0 as usize)
            .map(|d| self.sparse[d as usize])
    }
    /// The variables live on exit from block `b`.
    pub fn live_out(&self, b: BlockId) -> impl Iterator<Item = Var> + '_ {
        self.live_out
            .iter(b.0 as usize)
            .map(|d| self.sparse[d as usize])
    }
    /// True if nothing is live on entry to block `b`.
    pub fn nothing_live_in(&self, b: BlockId) -> bool {
        self.live_in.row(b.0 as usize).iter().all(|&w| w == 0)
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

/// One bit set per block over the dense numbers, all of one width, in one allocation (a
/// function's sets are made and dropped together).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rows {
    words: Vec<u64>,
    /// Words per set.
    width: usize,
}

impl Rows {
    /// `n` empty sets able to hold `0..bits`.
    fn new(n: usize, bits: usize) -> Rows {
        let width = bits.div_ceil(64);
        Rows {
            words: vec![0; n * width],
            width,
        }
    }

    fn row(&self, b: usize) -> &[u64] {
        &self.words[b * self.width..(b + 1) * self.width]
    }

    fn row_mut(&mut self, b: usize) -> &mut [u64] {
        &mut self.words[b * self.width..(b + 1) * self.width]
    }

    fn contains(&self, b: usize, d: u32) -> bool {
        let d = d as usize;
        self.row(b)
            .get(d / 64)
            .is_some_and(|w| w >> (d % 64) & 1 != 0)
    }

    /// The members of set `b`, increasing.
    fn iter(&self, b: usize) -> impl Iterator<Item = u32> + '_ {
        self.row(b).iter().enumerate().flat_map(|(n, &w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                let bit = (rest != 0).then(|| rest.trailing_zeros())?;
                rest &= rest - 1;
                Some((n * 64) as u32 + bit)
            })
        })
    }
}

/// Adds dense number `d` to the set `row` (one row of [`Rows`]).
fn set(row: &mut [u64], d: u32) {
    let d = d as usize;
    row[d / 64] |= 1 << (d % 64);
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
    let mut local = Marks::new(func.vars.len());
    // Dense number of each upward-exposed variable (u32::MAX: none), and back.
    let mut dense = vec![u32::MAX; func.vars.len()];
    let mut sparse: Vec<Var> = Vec::new();
    let mut number = |v: Var, dense: &mut Vec<u32>| -> u32 {
        let d = &mut dense[v.0 as usize];
        if *d == u32::MAX {
            *d = sparse.len() as u32;
            sparse.push(v);
        }
        *d
    };
    // The upward-exposed reads of block b (dense numbers, maybe repeated):
    // `reads[read_start[b]..read_start[b + 1]]`, one list for all blocks (the width of the
    // sets is known only once every block is numbered).
    let mut reads: Vec<u32> = Vec::new();
    let mut read_start = Vec::with_capacity(n + 1);
    for block in &func.blocks {
        read_start.push(reads.len());
        local.clear();
        for inst in &block.insts {
            for &a in inst.uses() {
                if !local.is_marked(a) {
                    reads.push(number(a, &mut dense));
                }
            }
            if let Some(x) = inst.dst {
                local.mark(x);
            }
        }
        if let Some(m) = block.term.uses() {
            if !local.is_marked(m) {
                reads.push(number(m, &mut dense));
            }
        }
    }
    read_start.push(reads.len());
    let crossing = sparse.len();
    let mut uses = Rows::new(n, crossing);
    for b in 0..n {
        let row = uses.row_mut(b);
        for &d in &reads[read_start[b]..read_start[b + 1]] {
            set(row, d);
        }
    }
    // One block that ends the invocation (straight code): nothing is live out of it and what
    // is live into it is what it reads before writing, with no definitions to collect and no
    // data flow to solve.
    if let [block] = &func.blocks[..] {
        if block.term.successors().is_empty() {
            return Liveness {
                live_in: uses,
                live_out: Rows::new(1, crossing),
                dense,
                sparse,
            };
        }
    }
    let mut defs = Rows::new(n, crossing);
    for (b, block) in func.blocks.iter().enumerate() {
        let row = defs.row_mut(b);
        for d in block.insts.iter().filter_map(|i| i.dst) {
            if let Some(&x) = dense.get(d.0 as usize).filter(|&&x| x != u32::MAX) {
                set(row, x);
            }
        }
    }
    // The visits' working sets are reused: the solution allocates nothing per visit.
    let order = BackwardOrder::new(func);
    let mut live_in = Rows::new(n, crossing);
    let mut live_out = Rows::new(n, crossing);
    let width = live_in.width;
    let (mut out, mut inn) = (vec![0u64; width], vec![0u64; width]);
    let mut work = Worklist::full(n);
    while let Some(b) = work.pop(&order) {
        out.fill(0);
        for s in &order.succs[b] {
            if (s.0 as usize) < n {
                for (o, &x) in out.iter_mut().zip(live_in.row(s.0 as usize)) {
                    *o |= x;
                }
            }
        }
        for (((i, &o), &d), &u) in inn.iter_mut().zip(&out).zip(defs.row(b)).zip(uses.row(b)) {
            *i = (o & !d) | u;
        }
        if inn[..] != *live_in.row(b) {
            live_in.row_mut(b).copy_from_slice(&inn);
            work.push_preds(&order, b);
        }
        live_out.row_mut(b).copy_from_slice(&out);
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

/// The blocks still to visit, lowest post-order rank first, each at most once at a time: one
/// bit per rank.
pub(super) struct Worklist {
    words: Vec<u64>,
    /// No rank below `64 * low` is queued.
    low: usize,
}

impl Worklist {
    /// Every block of `n`.
    pub(super) fn full(n: usize) -> Worklist {
        let mut words = vec![u64::MAX; n.div_ceil(64)];
        if let Some(last) = words.last_mut().filter(|_| !n.is_multiple_of(64)) {
            *last = (1 << (n % 64)) - 1;
        }
        Worklist { words, low: 0 }
    }

    /// The next block to visit.
    pub(super) fn pop(&mut self, order: &BackwardOrder) -> Option<usize> {
        let (i, w) = self
            .words
            .iter_mut()
            .enumerate()
            .skip(self.low)
            .find(|(_, w)| **w != 0)?;
        let bit = w.trailing_zeros() as usize;
        *w &= *w - 1;
        self.low = i;
        Some(order.by_rank[i * 64 + bit] as usize)
    }

    /// Queues the predecessors of block `b` (those not queued already).
    pub(super) fn push_preds(&mut self, order: &BackwardOrder, b: usize) {
        for &p in order.preds(b) {
            let r = order.rank[p as usize] as usize;
            self.words[r / 64] |= 1 << (r % 64);
            self.low = self.low.min(r / 64);
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

#[cfg(test)]
mod tests {
    use super::liveness;
    use crate::ir::{BlockId, Function, Var};
    use crate::opt::VarSet;

    /// Live-in and live-out sets over all variables by the textbook equations, every block
    /// again until nothing changes: the reference for [`liveness`].
    fn by_rounds(func: &Function) -> (Vec<VarSet>, Vec<VarSet>) {
        let n = func.blocks.len();
        let (mut uses, mut defs) = (vec![VarSet::default(); n], vec![VarSet::default(); n]);
        for (b, block) in func.blocks.iter().enumerate() {
            for inst in &block.insts {
                for &u in inst.uses() {
                    if !defs[b].contains(u) {
                        uses[b].insert(u);
                    }
                }
                if let Some(d) = inst.dst {
                    defs[b].insert(d);
                }
            }
            if let Some(m) = block.term.uses().filter(|&m| !defs[b].contains(m)) {
                uses[b].insert(m);
            }
        }
        let (mut live_in, mut live_out) = (vec![VarSet::default(); n], vec![VarSet::default(); n]);
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..n).rev() {
                let mut out = VarSet::default();
                for s in func.blocks[b].term.successors() {
                    out.union_with(&live_in[s.0 as usize]);
                }
                let mut inn = out.clone();
                inn.subtract(&defs[b]);
                inn.union_with(&uses[b]);
                changed |= inn != live_in[b] || out != live_out[b];
                (live_in[b], live_out[b]) = (inn, out);
            }
        }
        (live_in, live_out)
    }

    /// The worklist hands out every block once, lowest post-order rank first, across word
    /// boundaries (up to 130 blocks); queued predecessors come back in rank order, each once.
    #[test]
    fn worklist_pops_by_rank_each_once() {
        use super::{BackwardOrder, Worklist};
        for blocks in [1, 2, 63, 64, 65, 130] {
            let f = super::super::dce::tests::random_function(blocks as u64, blocks, true);
            let n = f.blocks.len();
            let order = BackwardOrder::new(&f);
            let mut work = Worklist::full(n);
            let popped: Vec<usize> = std::iter::from_fn(|| work.pop(&order)).collect();
            let by_rank: Vec<usize> = order.by_rank.iter().map(|&b| b as usize).collect();
            assert_eq!(popped, by_rank, "{blocks} blocks");
            for b in [0, n / 2, n - 1] {
                work.push_preds(&order, b);
                work.push_preds(&order, b);
                let mut want: Vec<u32> = order
                    .preds(b)
                    .iter()
                    .map(|&p| order.rank[p as usize])
                    .collect();
                want.sort_unstable();
                want.dedup();
                let got: Vec<u32> = std::iter::from_fn(|| work.pop(&order))
                    .map(|b| order.rank[b])
                    .collect();
                assert_eq!(got, want, "{blocks} blocks, predecessors of {b}");
            }
        }
    }

    /// On random functions with and without cycles, every variable is live into and out of
    /// every block exactly when the reference says.
    #[test]
    fn liveness_matches_the_equations() {
        let mut live = 0;
        for seed in 0..300 {
            let f = super::super::dce::tests::random_function(
                seed,
                1 + seed as usize % 9,
                seed % 3 != 0,
            );
            let got = liveness(&f);
            let (live_in, live_out) = by_rounds(&f);
            for b in 0..f.blocks.len() {
                let id = BlockId(b as u32);
                for v in (0..f.vars.len() as u32).map(Var) {
                    assert_eq!(got.is_live_in(id, v), live_in[b].contains(v), "seed {seed}");
                    assert_eq!(
                        got.is_live_out(id, v),
                        live_out[b].contains(v),
                        "seed {seed}"
                    );
                }
                let sorted = |vars: &mut dyn Iterator<Item = Var>| {
                    let mut v: Vec<Var> = vars.collect();
                    v.sort_unstable_by_key(|v| v.0);
                    v
                };
                let (ins, outs): (Vec<Var>, Vec<Var>) =
                    (live_in[b].iter().collect(), live_out[b].iter().collect());
                assert_eq!(sorted(&mut got.live_in(id)), ins, "seed {seed}");
                assert_eq!(sorted(&mut got.live_out(id)), outs, "seed {seed}");
                assert_eq!(got.nothing_live_in(id), live_in[b].is_empty());
                live += live_in[b].len();
            }
        }
        assert!(live > 500, "{live} live-in entries");
    }
}
