//! The fixed point of the uniformity analysis, found by propagating each new fact along
//! def-use links instead of re-running whole blocks until nothing changes.
//!
//! The facts are of two kinds: an instruction's result may vary, and a variable live on entry
//! to a block may vary there. Both only ever turn on, each at most once, and each turning on
//! does work proportional to the links leaving it: the instructions of the same block reading
//! that value before it is written again, and — for the last write of a block, or a variable
//! the block does not write — the same variable at the entry of each successor where it is
//! live. The cost is therefore linear in the live facts and links, whatever the shape of the
//! loops. (Iterating whole blocks needs a sweep over a loop for every step of a dependence
//! chain that goes round it, each sweep carrying every variable of the function: seconds on
//! the masked-region functions of hostile programs, whose sets hold ~1,700 variables in
//! ~16,000 blocks while a block has ~10 live.)
//!
//! A variable that is dead on entry to a block cannot affect anything the analysis is asked
//! (what an instruction reads, what the block's terminator or a later read of the block
//! sees), and a live fact only ever depends on live facts: live-in(b) holds live-out(b) minus
//! what b writes, and what b reads first. So the sets found are exactly the least fixed point
//! of the block-by-block equations intersected with the live variables (`tests` holds that
//! iteration as the reference and compares them).

use picajit_codegen::ir::{Function, Var};
use picajit_codegen::opt::VarSet;

use super::{rule, Rule};
use crate::frontend::rows::Rows;

/// A list per key in one array: the items of key k are `items[start[k]..start[k + 1]]`.
struct Lists<T> {
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy + Default> Lists<T> {
    /// From (key, item) pairs, keys below `keys`; items keep their order within a key.
    fn new(keys: usize, pairs: &[(u32, T)]) -> Lists<T> {
        let mut start = vec![0u32; keys + 1];
        for &(k, _) in pairs {
            start[k as usize + 1] += 1;
        }
        for k in 0..keys {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut items = vec![T::default(); pairs.len()];
        for &(k, item) in pairs {
            let at = &mut fill[k as usize];
            items[*at as usize] = item;
            *at += 1;
        }
        Lists { start, items }
    }

    fn get(&self, k: usize) -> &[T] {
        &self.items[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

/// The links of a function, by global instruction number (blocks in order, instructions in
/// order) and exposed-variable number `x`.
struct Links {
    /// Per block: its first global instruction number (and the total at the end).
    first: Vec<u32>,
    /// Per instruction: its rule (`Same` for a write of `exec` and for no result).
    rules: Vec<Rule>,
    /// Per instruction: the later instructions of its block reading its result.
    users: Lists<u32>,
    /// Per instruction: `x` of its result if it is the block's last write of an exposed
    /// variable, else `u32::MAX`.
    exit_x: Vec<u32>,
    /// Per block: (x, instruction) of the reads of exposed variables before any write of them
    /// in the block, sorted.
    entry_reads: Lists<(u32, u32)>,
    /// Per block: the exposed variables it writes, sorted.
    writes: Lists<u32>,
    /// Per block: the exposed variables its terminator reads without the block writing them.
    term_reads: Lists<u32>,
    /// Per block: its predecessors.
    preds: Lists<u32>,
    /// Exposed variables.
    xs: usize,
}

impl Links {
    fn new(func: &Function, exposed: &[u32], exec: Option<Var>) -> Links {
        let n = func.blocks.len();
        let x_of = |v: Var| {
            exposed
                .get(v.0 as usize)
                .copied()
                .filter(|&x| x != u32::MAX)
        };
        let mut first = Vec::with_capacity(n + 1);
        let mut total = 0u32;
        for block in &func.blocks {
            first.push(total);
            total += block.insts.len() as u32;
        }
        first.push(total);
        // Per variable: (block, instruction) of its latest write seen.
        let mut last_def = vec![(u32::MAX, 0u32); func.vars.len()];
        let mut users = Vec::new();
        let mut entry_reads = Vec::new();
        let mut block_reads = Vec::new();
        let mut exit_x = vec![u32::MAX; total as usize];
        let mut writes = Vec::new();
        let mut block_writes = Vec::new();
        let mut term_reads = Vec::new();
        let mut preds = Vec::new();
        let mut rules = Vec::with_capacity(total as usize);
        for (b, block) in func.blocks.iter().enumerate() {
            let bu = b as u32;
            for (i, inst) in block.insts.iter().enumerate() {
                let gi = first[b] + i as u32;
                for &a in inst.uses() {
                    let (db, di) = last_def[a.0 as usize];
                    if db == bu {
                        users.push((di, gi));
                    } else if let Some(x) = x_of(a) {
                        block_reads.push((x, gi));
                    }
                }
                rules.push(match inst.dst {
                    Some(d) if Some(d) != exec => rule(inst),
                    Some(_) | None => Rule::Same,
                });
                if let Some(d) = inst.dst {
                    last_def[d.0 as usize] = (bu, gi);
                }
            }
            for inst in &block.insts {
                let Some(d) = inst.dst else { continue };
                let (_, gi) = last_def[d.0 as usize];
                if let Some(x) = x_of(d) {
                    if exit_x[gi as usize] == u32::MAX {
                        exit_x[gi as usize] = x;
                        block_writes.push(x);
                    }
                }
            }
            if let Some(m) = block.term.uses() {
                if last_def[m.0 as usize].0 != bu {
                    term_reads.extend(x_of(m).map(|x| (bu, x)));
                }
            }
            block_reads.sort_unstable();
            entry_reads.extend(block_reads.drain(..).map(|r| (bu, r)));
            block_writes.sort_unstable();
            writes.extend(block_writes.drain(..).map(|x| (bu, x)));
            for s in block.term.successors() {
                preds.push((s.0, bu));
            }
        }
        Links {
            users: Lists::new(total as usize, &users),
            entry_reads: Lists::new(n, &entry_reads),
            writes: Lists::new(n, &writes),
            term_reads: Lists::new(n, &term_reads),
            preds: Lists::new(n, &preds),
            first,
            rules,
            exit_x,
            xs: exposed.iter().filter(|&&x| x != u32::MAX).count(),
        }
    }

    fn writes(&self, b: usize, x: u32) -> bool {
        self.writes.get(b).binary_search(&x).is_ok()
    }

    /// The instructions of block `b` reading `x` as it was on entry.
    fn reads(&self, b: usize, x: u32) -> impl Iterator<Item = u32> + '_ {
        let reads = self.entry_reads.get(b);
        let from = reads.partition_point(|&(y, _)| y < x);
        reads[from..]
            .iter()
            .take_while(move |&&(y, _)| y == x)
            .map(|&(_, gi)| gi)
    }

    /// Per block, the exposed variables live on entry: read there before any write, or live
    /// at the entry of a successor and not written.
    fn live_in(&self, n: usize) -> Rows {
        let mut live = Rows::new(n, self.xs);
        let mut work = Vec::new();
        for b in 0..n {
            let read = self.entry_reads.get(b).iter().map(|&(x, _)| x);
            for x in read.chain(self.term_reads.get(b).iter().copied()) {
                if live.insert(b, x) {
                    work.push((b as u32, x));
                }
            }
        }
        while let Some((b, x)) = work.pop() {
            for &p in self.preds.get(b as usize) {
                if !self.writes(p as usize, x) && live.insert(p as usize, x) {
                    work.push((p, x));
                }
            }
        }
        live
    }
}

/// A fact that just turned on.
#[derive(Clone, Copy)]
enum Fact {
    /// The result of instruction `inst` (global number) of block `block` may vary.
    Result { inst: u32, block: u32 },
    /// Exposed variable `x` may vary on entry to block `block` (where it is live).
    Entry { block: u32, x: u32 },
}

/// The solution: per block reachable from block 0, the variables live on entry that may vary
/// there.
pub(super) struct Entries {
    reached: Vec<bool>,
    varies: Rows,
}

impl Entries {
    /// True if block `b` is reachable from block 0.
    pub(super) fn reached(&self, b: usize) -> bool {
        self.reached[b]
    }

    /// True if exposed variable `x` is live and may vary on entry to block `b`.
    pub(super) fn contains(&self, b: usize, x: u32) -> bool {
        self.varies.contains(b, x)
    }

    /// Per block, the set (`None`: unreachable).
    #[cfg(test)]
    pub(super) fn sets(&self) -> Vec<Option<VarSet>> {
        (0..self.reached.len())
            .map(|b| {
                self.reached[b].then(|| {
                    let mut set = VarSet::default();
                    for x in self.varies.iter(b) {
                        set.insert(Var(x));
                    }
                    set
                })
            })
            .collect()
    }
}

/// The analysis whose exposed-variable numbering is `exposed` (see `exposed_vars`), in which
/// `exec` never varies, and where a reachable block of `fixed` (`fixed.0[b]`) starts with the
/// set `fixed.1` and never takes its predecessors' (block 0 always starts with the empty set).
pub(super) fn solve(
    func: &Function,
    exposed: &[u32],
    exec: Option<Var>,
    fixed: Option<(&[bool], &VarSet)>,
) -> Entries {
    let n = func.blocks.len();
    let links = Links::new(func, exposed, exec);
    let live = links.live_in(n);
    let fixed_at = |b: usize| {
        fixed
            .filter(|(blocks, _)| blocks.get(b).copied().unwrap_or(false))
            .map(|(_, set)| set)
    };
    // Blocks reachable from block 0, each with its starting set; `takes`: its set grows
    // with its predecessors'.
    let mut varies = Rows::new(n, links.xs);
    let mut reached = vec![false; n];
    let mut takes = vec![false; n];
    let mut work = Vec::new();
    reached[0] = true;
    takes[0] = fixed_at(0).is_none();
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        for s in func.blocks[b].term.successors() {
            let s = s.0 as usize;
            if !reached[s] {
                reached[s] = true;
                match fixed_at(s) {
                    Some(f) => {
                        for x in live.iter(s).filter(|&x| f.contains(Var(x))) {
                            varies.insert(s, x);
                            work.push(Fact::Entry { block: s as u32, x });
                        }
                    }
                    None => takes[s] = true,
                }
                stack.push(s);
            }
        }
    }
    let mut result = vec![false; links.rules.len()];
    for b in (0..n).filter(|&b| reached[b]) {
        let block = b as u32;
        for inst in links.first[b]..links.first[b + 1] {
            if links.rules[inst as usize] == Rule::Varies {
                result[inst as usize] = true;
                work.push(Fact::Result { inst, block });
            }
        }
    }
    let reader_varies = |inst: u32, block: u32, result: &mut [bool], work: &mut Vec<Fact>| {
        if links.rules[inst as usize] == Rule::AnyArg && !result[inst as usize] {
            result[inst as usize] = true;
            work.push(Fact::Result { inst, block });
        }
    };
    while let Some(fact) = work.pop() {
        // The variable that may now vary at the end of `block`, if any.
        let (block, x) = match fact {
            Fact::Result { inst, block } => {
                for &r in links.users.get(inst as usize) {
                    reader_varies(r, block, &mut result, &mut work);
                }
                (block, links.exit_x[inst as usize])
            }
            Fact::Entry { block, x } => {
                for r in links.reads(block as usize, x) {
                    reader_varies(r, block, &mut result, &mut work);
                }
                let through = !links.writes(block as usize, x);
                (block, if through { x } else { u32::MAX })
            }
        };
        if x == u32::MAX {
            continue;
        }
        for s in func.blocks[block as usize].term.successors() {
            let s = s.0 as usize;
            if takes[s] && live.contains(s, x) && varies.insert(s, x) {
                work.push(Fact::Entry { block: s as u32, x });
            }
        }
    }
    Entries { reached, varies }
}
