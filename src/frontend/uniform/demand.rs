//! Uniformity questions answered on demand: "may `v` differ between the lanes (of the batch,
//! or running the block in the lane model) just before instruction `k` of block `b`?",
//! found by searching backwards from that point instead of solving the whole function
//! forwards (`Varying`). Branch conversion asks it of each branch on cc, the lane
//! model of each condition's mask and each relative uniform read.
//!
//! The facts form a graph of "may vary" nodes: an instruction's result (varies if its rule
//! says so, or — for `AnyArg` — if one of its operands does, each taken at its last write
//! before the instruction or on entry to the block), and a variable on entry to a block
//! (varies if it is marked in a merge block's starting set, or — elsewhere — if it varies at
//! the end of a reachable predecessor). The least solution of the forward analysis is exactly
//! "some node that varies whatever its operands is reachable", so one search per question
//! answers it. Answers are kept: a search that finds nothing settles every node it saw as
//! uniform, one that finds a source settles the chain of nodes leading to it as varying.
//!
//! Results declared varying whatever their operands ([`Among::seed`]) are sources too; the
//! answers found uniform before them are then forgotten ([`Among::settle`]).
//!
//! A question about a few branch masks touches a small part of a large function; the
//! search stops after a budget of steps proportional to the function's size and the
//! caller then solves it whole (the same answers either way), so the cost never exceeds a
//! small multiple of the full solve.

use rustc_hash::FxHashMap as HashMap;

use picajit_codegen::ir::{Function, Op, Var};

use super::{rule, Rule, Varying};

/// A node of the fact graph: a result by block and global instruction number (blocks in
/// order, instructions in order), or a variable on entry to a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    Result(u32, u32),
    Entry(u32, Var),
}

/// What is known of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Known {
    Unknown,
    /// Seen by the search under way, not settled.
    Seen,
    Varies,
    Uniform,
}

/// A node's first look: settled at once, or the nodes it depends on (pushed on `kids`).
enum Look {
    Leaf(bool),
    Inner,
}

/// On-demand answers to the uniformity questions about one function: across the lanes of
/// the batch, or among the lanes running each block in the lane model (`exec` never varies,
/// a block of `merge` starts with the variables `anywhere` marks, block 0 with none).
pub(in crate::frontend) struct Demand {
    exec: Option<Var>,
    /// (merge, anywhere) in the lane model.
    start: Option<(Vec<bool>, Vec<bool>)>,
    /// The results declared varying ([`Demand::seed`]), by (block, instruction).
    seeds: Vec<(usize, usize)>,
    reached: Vec<bool>,
    /// Per block: its predecessors (by position in `pred_list`, from `pred_start[b]`).
    pred_start: Vec<u32>,
    pred_list: Vec<u32>,
    /// Per block: its first global instruction number (and the total at the end).
    first: Vec<u32>,
    /// Per block: the variables it writes, hashed to a bit each (a clear bit: no write, so no
    /// need to look through the block).
    writes: Vec<[u64; WRITE_WORDS]>,
    /// Per global instruction: what is known of its result.
    results: Vec<Known>,
    /// What is known of variables on entry to blocks (none: unknown).
    entries: HashMap<(u32, Var), Known>,
    /// Steps left before the search gives up.
    budget: usize,
    /// The search's frames: (node, first kid, kids end, next kid).
    frames: Vec<(Node, usize, usize, usize)>,
    kids: Vec<Node>,
    /// Nodes marked `Seen` by the search under way.
    seen: Vec<Node>,
}

/// Steps a search may take per instruction of the function (and per edge) before the caller
/// falls back to the whole solve.
const STEPS_PER_INST: usize = 4;

/// Words of a block's write bits.
const WRITE_WORDS: usize = 4;

impl Demand {
    /// Ready to answer questions about `func` across the lanes of the batch.
    pub(in crate::frontend) fn across_lanes(func: &Function) -> Demand {
        Demand::new(func, None, None)
    }

    /// Ready to answer questions about `func` among the lanes of `exec` (in the lane model),
    /// a block of `merge` starting with the variables `anywhere` marks.
    pub(in crate::frontend) fn among(
        func: &Function,
        exec: Var,
        merge: Vec<bool>,
        anywhere: Vec<bool>,
    ) -> Demand {
        Demand::new(func, Some(exec), Some((merge, anywhere)))
    }

    fn new(func: &Function, exec: Option<Var>, start: Option<(Vec<bool>, Vec<bool>)>) -> Demand {
        let n = func.blocks.len();
        let mut reached = vec![false; n];
        let mut count = vec![0u32; n + 1];
        let mut stack = vec![0usize];
        if n > 0 {
            reached[0] = true;
        }
        while let Some(b) = stack.pop() {
            for s in func.blocks[b].term.successors() {
                let s = s.0 as usize;
                count[s + 1] += 1;
                if !std::mem::replace(&mut reached[s], true) {
                    stack.push(s);
                }
            }
        }
        // Predecessors among the reachable blocks only: the solve never runs the others.
        for b in 0..n {
            count[b + 1] += count[b];
        }
        let mut fill = count.clone();
        let mut pred_list = vec![0u32; count[n] as usize];
        for (b, block) in func.blocks.iter().enumerate().filter(|&(b, _)| reached[b]) {
            for s in block.term.successors() {
                let at = &mut fill[s.0 as usize];
                pred_list[*at as usize] = b as u32;
                *at += 1;
            }
        }
        let mut first = Vec::with_capacity(n + 1);
        let mut writes = Vec::with_capacity(n);
        let mut total = 0u32;
        for block in &func.blocks {
            first.push(total);
            total += block.insts.len() as u32;
            let mut bits = [0u64; WRITE_WORDS];
            for d in block.insts.iter().filter_map(|inst| inst.dst) {
                let h = d.0 as usize % (64 * WRITE_WORDS);
                bits[h / 64] |= 1 << (h % 64);
            }
            writes.push(bits);
        }
        first.push(total);
        let total = total as usize;
        let edges = pred_list.len();
        Demand {
            exec,
            start,
            seeds: Vec::new(),
            reached,
            pred_start: count,
            pred_list,
            first,
            writes,
            results: vec![Known::Unknown; total],
            entries: HashMap::default(),
            budget: STEPS_PER_INST * (total + edges + n),
            frames: Vec::new(),
            kids: Vec::new(),
            seen: Vec::new(),
        }
    }

    /// The same, giving up after `steps` steps (`None`: the default budget).
    #[cfg(test)]
    pub(in crate::frontend) fn with_budget(mut self, steps: Option<usize>) -> Demand {
        if let Some(steps) = steps {
            self.budget = steps;
        }
        self
    }

    /// The same questions' answers from the whole solve (seeds included).
    fn solve(&self, func: &Function) -> Varying {
        let start = self
            .start
            .as_ref()
            .map(|(m, a)| (m.as_slice(), a.as_slice()));
        let mut varying = Varying::solve(func, self.exec, start);
        if !self.seeds.is_empty() {
            for &(b, i) in &self.seeds {
                varying.seed(b, i);
            }
            varying.settle(func);
        }
        varying
    }

    /// The result of instruction `i` of block `b` may vary, whatever its operands (nothing for
    /// an unreachable block); [`Demand::settle`] before the next question.
    fn seed(&mut self, b: usize, i: usize) {
        if self.reached[b] {
            self.seeds.push((b, i));
            self.results[self.first[b] as usize + i] = Known::Varies;
        }
    }

    /// Forgets the answers found uniform before the last seeds.
    fn settle(&mut self) {
        for k in &mut self.results {
            if *k == Known::Uniform {
                *k = Known::Unknown;
            }
        }
        self.entries.retain(|_, k| *k == Known::Varies);
    }

    /// True if block `b` is reachable from block 0.
    fn reached(&self, b: usize) -> bool {
        self.reached[b]
    }

    /// Whether `v` may vary among the running lanes just before instruction `k` of reachable
    /// block `b` (`k` = the block's length: at its end); `None` once the step budget is
    /// spent (every later question too).
    fn before(&mut self, func: &Function, b: usize, k: usize, v: Var) -> Option<bool> {
        let root = self.at(func, b, k, v)?;
        match self.known(root) {
            Known::Varies => return Some(true),
            Known::Uniform => return Some(false),
            Known::Seen | Known::Unknown => {}
        }
        let found = self.search(func, root);
        // Settle what the search learnt, forget the rest.
        let (chain, rest) = match found {
            Some(true) => (Known::Varies, Known::Unknown),
            Some(false) => (Known::Uniform, Known::Uniform),
            None => (Known::Unknown, Known::Unknown),
        };
        for i in 0..self.frames.len() {
            let node = self.frames[i].0;
            self.set(node, chain);
        }
        for i in 0..self.seen.len() {
            let node = self.seen[i];
            if self.known(node) == Known::Seen {
                self.set(node, rest);
            }
        }
        self.seen.clear();
        self.frames.clear();
        self.kids.clear();
        found
    }

    fn known(&self, node: Node) -> Known {
        match node {
            Node::Result(_, i) => self.results[i as usize],
            Node::Entry(b, v) => self.entries.get(&(b, v)).copied().unwrap_or(Known::Unknown),
        }
    }

    fn set(&mut self, node: Node, k: Known) {
        match node {
            Node::Result(_, i) => self.results[i as usize] = k,
            Node::Entry(b, v) => {
                self.entries.insert((b, v), k);
            }
        }
    }

    /// Depth-first search from `root`: true if a node that varies is reachable, `None` when
    /// the budget runs out. The frames left are the chain to the source found.
    fn search(&mut self, func: &Function, root: Node) -> Option<bool> {
        match self.visit(func, root)? {
            Look::Leaf(x) => return Some(x),
            Look::Inner => {}
        }
        while let Some(&mut (_, _, end, ref mut next)) = self.frames.last_mut() {
            if *next == end {
                let (_, start, ..) = self.frames.pop()?;
                self.kids.truncate(start);
                continue;
            }
            let kid = self.kids[*next];
            *next += 1;
            match self.known(kid) {
                Known::Varies => return Some(true),
                Known::Uniform | Known::Seen => continue,
                Known::Unknown => {}
            }
            if let Look::Leaf(true) = self.visit(func, kid)? {
                return Some(true);
            }
        }
        Some(false)
    }

    /// Looks at `node`: a leaf (settled, and a source if true) or, marked seen, a frame pushed
    /// with the nodes it depends on.
    fn visit(&mut self, func: &Function, node: Node) -> Option<Look> {
        self.budget = self.budget.checked_sub(1)?;
        let start = self.kids.len();
        let leaf = match node {
            Node::Result(b, gi) => {
                let b = b as usize;
                let inst = &func.blocks[b].insts[(gi - self.first[b]) as usize];
                if inst.dst.is_some() && inst.dst == self.exec {
                    Some(false)
                } else {
                    match rule(inst) {
                        Rule::Varies => Some(true),
                        Rule::Same => Some(false),
                        Rule::AnyArg => {
                            let i = (gi - self.first[b]) as usize;
                            for &a in inst.uses() {
                                let kid = self.at(func, b, i, a)?;
                                self.kids.push(kid);
                            }
                            None
                        }
                    }
                }
            }
            Node::Entry(b, v) => {
                let b = b as usize;
                let merged = self
                    .start
                    .as_ref()
                    .filter(|(merge, _)| merge.get(b) == Some(&true));
                if let Some((_, anywhere)) = merged {
                    Some(b != 0 && anywhere.get(v.0 as usize).copied().unwrap_or(true))
                } else {
                    let preds = self.pred_start[b] as usize..self.pred_start[b + 1] as usize;
                    for p in preds {
                        let p = self.pred_list[p] as usize;
                        let kid = self.at(func, p, func.blocks[p].insts.len(), v)?;
                        self.kids.push(kid);
                    }
                    None
                }
            }
        };
        match leaf {
            Some(x) => {
                self.set(node, if x { Known::Varies } else { Known::Uniform });
                Some(Look::Leaf(x))
            }
            None => {
                self.set(node, Known::Seen);
                self.seen.push(node);
                let end = self.kids.len();
                self.frames.push((node, start, end, start));
                Some(Look::Inner)
            }
        }
    }

    /// The node holding `v` just before instruction `k` of block `b` (`k` = its length: at
    /// its end): its last write before `k`, else its value on entry. Each instruction looked
    /// at costs a step. A block with one predecessor that does not start a merge holds on
    /// entry what that predecessor holds at its end, so the search goes on there (a step per
    /// block) instead of making a node for the entry.
    fn at(&mut self, func: &Function, b: usize, k: usize, v: Var) -> Option<Node> {
        let (mut b, mut k) = (b, k);
        loop {
            if let Some(i) = self.last_write(func, b, k, v)? {
                return Some(Node::Result(b as u32, self.first[b] + i as u32));
            }
            match self.only_pred(b) {
                Some(p) => {
                    self.budget = self.budget.checked_sub(1)?;
                    (b, k) = (p, func.blocks[p].insts.len());
                }
                None => return Some(Node::Entry(b as u32, v)),
            }
        }
    }

    /// The last write of `v` before instruction `k` of block `b`, if any (a step per
    /// instruction looked at).
    fn last_write(&mut self, func: &Function, b: usize, k: usize, v: Var) -> Option<Option<usize>> {
        let h = v.0 as usize % (64 * WRITE_WORDS);
        if self.writes[b][h / 64] >> (h % 64) & 1 == 0 {
            return Some(None);
        }
        let insts = &func.blocks[b].insts[..k];
        let last = insts.iter().rposition(|inst| inst.dst == Some(v));
        let scanned = k - last.map_or(0, |i| i + 1);
        self.budget = self.budget.checked_sub(scanned)?;
        Some(last)
    }

    /// The one reachable predecessor of block `b` when it has exactly one, other than
    /// itself, and `b` does not start a merge (whose entry is a leaf).
    fn only_pred(&self, b: usize) -> Option<usize> {
        let (from, to) = (self.pred_start[b] as usize, self.pred_start[b + 1] as usize);
        let merged = self
            .start
            .as_ref()
            .is_some_and(|(merge, _)| merge.get(b) == Some(&true));
        if to != from + 1 || merged {
            return None;
        }
        let p = self.pred_list[from] as usize;
        (p != b).then_some(p)
    }
}

/// The uniformity answers about one function: on demand while the step budget lasts,
/// then from the whole solve.
pub(in crate::frontend) enum Among {
    /// Both boxed: the two differ in size by hundreds of bytes.
    Demand(Box<Demand>),
    Solved(Box<Varying>),
}

impl Among {
    /// Whether `v` may vary at the end of block `b` (`None` for an unreachable block); `v`
    /// must be read in the block or live at its end.
    pub(in crate::frontend) fn at_end(
        &mut self,
        func: &Function,
        b: usize,
        v: Var,
    ) -> Option<bool> {
        loop {
            match self {
                Among::Solved(s) => return s.at_end(func, b, v),
                Among::Demand(d) => {
                    if !d.reached(b) {
                        return None;
                    }
                    if let Some(x) = d.before(func, b, func.blocks[b].insts.len(), v) {
                        return Some(x);
                    }
                    *self = Among::Solved(Box::new(d.solve(func)));
                }
            }
        }
    }

    /// The result of instruction `i` of block `b` may vary, whatever its operands;
    /// [`Among::settle`] before the next question.
    pub(in crate::frontend) fn seed(&mut self, b: usize, i: usize) {
        match self {
            Among::Solved(s) => s.seed(b, i),
            Among::Demand(d) => d.seed(b, i),
        }
    }

    /// Makes the seeded results count in the answers to come.
    pub(in crate::frontend) fn settle(&mut self, func: &Function) {
        match self {
            Among::Solved(s) => s.settle(func),
            Among::Demand(d) => d.settle(),
        }
    }

    /// The relative uniform reads (`UniformIdx`) of block `b` whose offset does not vary
    /// among the running lanes, by position in the block (none in an unreachable block).
    pub(in crate::frontend) fn uniform_offsets(&mut self, func: &Function, b: usize) -> Vec<usize> {
        loop {
            match self {
                Among::Solved(s) => return s.uniform_offsets(func, b),
                Among::Demand(d) => {
                    if !d.reached(b) {
                        return Vec::new();
                    }
                    let reads = func.blocks[b].insts.iter().enumerate();
                    let mut lead = Some(Vec::new());
                    for (k, inst) in reads.filter(|(_, i)| i.op == Op::UniformIdx) {
                        match d.before(func, b, k, inst.args[0]) {
                            Some(false) => lead.iter_mut().for_each(|l| l.push(k)),
                            Some(true) => {}
                            None => {
                                lead = None;
                                break;
                            }
                        }
                    }
                    if let Some(lead) = lead {
                        return lead;
                    }
                    *self = Among::Solved(Box::new(d.solve(func)));
                }
            }
        }
    }
}

/// Asserts that the answers on demand of `fresh()` about `func` equal the whole solve's: for
/// each (block, variable) of `masks` at the end of the block, and for the relative reads of
/// every block; with the default step budget and with budgets that run out early (the answers
/// then come from the whole solve, from some question on).
#[cfg(test)]
pub(in crate::frontend) fn agrees(
    func: &Function,
    fresh: &dyn Fn() -> Demand,
    masks: impl Iterator<Item = (usize, Var)> + Clone,
) {
    let mut solved = Among::Solved(Box::new(fresh().solve(func)));
    for budget in [None, Some(0), Some(7), Some(90)] {
        let mut among = Among::Demand(Box::new(fresh().with_budget(budget)));
        for (b, v) in masks.clone() {
            assert_eq!(
                among.at_end(func, b, v),
                solved.at_end(func, b, v),
                "b{b} {v:?}, budget {budget:?}"
            );
        }
        for b in 0..func.blocks.len() {
            assert_eq!(
                among.uniform_offsets(func, b),
                solved.uniform_offsets(func, b),
                "relative reads of b{b}, budget {budget:?}"
            );
        }
    }
}
