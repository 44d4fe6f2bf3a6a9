//! The fixed point of the uniformity analysis, found by propagating new facts instead of
//! re-running whole blocks until nothing changes.
//!
//! The facts are of two kinds: an instruction's result may vary, and a variable live on entry
//! to a block may vary there. Both only ever turn on. Within a block a fact goes along def-use
//! links, each at most once: an entry fact to the instructions reading that value before it is
//! written again, a result to the later instructions reading it. Between blocks facts go a row
//! of bits at a time (`Rows`): a block's exit set (the entry facts it does not overwrite and
//! the last writes that may vary) is or-ed into the entry set of each successor, cut to the
//! variables live there, and a successor whose set grew runs again for its new facts only. A
//! block's set grows at most once per live variable, so the cost is the links plus, per
//! growth, a row of words — whatever the shape of the loops. (Iterating whole blocks needs a
//! sweep over a loop for every step of a dependence chain that goes round it, each sweep
//! carrying every variable of the function: seconds on the masked-region functions of hostile
//! programs, whose sets hold ~1,700 variables in ~16,000 blocks while a block has ~10 live.
//! One fact at a time across blocks too costs a few tens of nanoseconds for each of the
//! blocks × live variables, most of a branchy program's compile.) Liveness is solved the same
//! way, a row at a time.
//!
//! A variable that is dead on entry to a block cannot affect anything the analysis is asked
//! (what an instruction reads, what the block's terminator or a later read of the block
//! sees), and a live fact only ever depends on live facts: live-in(b) holds live-out(b) minus
//! what b writes, and what b reads first. So the sets found are exactly the least fixed point
//! of the block-by-block equations intersected with the live variables (`tests` holds that
//! iteration as the reference and compares them).
//!
//! The solution keeps its links and working sets: results declared varying afterwards
//! (`Entries::seed`) are carried on from where the solve stopped, at the cost of the new facts
//! only (branch conversion uses that to bound the next round's analysis without building it).

use picajit_codegen::ir::{Function, Var};
#[cfg(test)]
use picajit_codegen::opt::VarSet;

use super::{rule, Rule};
use crate::frontend::rows::Rows;
use crate::frontend::worklist::Worklist;

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
    /// Per instruction: the later instructions of its block reading its result, as a chain
    /// through `links` (the first link, `u32::MAX` for none).
    users: Vec<u32>,
    /// Per link: (reading instruction, next link of the chain).
    links: Vec<(u32, u32)>,
    /// Per instruction: `x` of its result if it is the block's last write of an exposed
    /// variable, else `u32::MAX`.
    exit_x: Vec<u32>,
    /// Per block: (x, instruction) of the reads of exposed variables before any write of them
    /// in the block, in order.
    entry_reads: Lists<(u32, u32)>,
    /// Per block: the exposed variables it writes (a bit per variable: the test is on the
    /// path of every live and varying fact).
    written: Rows,
    /// Per block: the exposed variables its terminator reads without the block writing them.
    term_reads: Lists<u32>,
    /// Per block: its predecessors.
    preds: Lists<u32>,
    /// Exposed variables.
    xs: usize,
}

impl Links {
    /// The links of `func` and its exposed-variable numbering (per variable: its `x`, or
    /// `u32::MAX` for a variable no block reads before writing it), in one walk.
    fn new(func: &Function, exec: Option<Var>) -> (Links, Vec<u32>) {
        let n = func.blocks.len();
        let mut first = Vec::with_capacity(n + 1);
        let mut total = 0u32;
        for block in &func.blocks {
            first.push(total);
            total += block.insts.len() as u32;
        }
        first.push(total);
        // Variables are numbered as some block is found reading them before writing them:
        // blocks in order, instructions in order, the terminator last.
        let mut exposed = vec![u32::MAX; func.vars.len()];
        let mut xs = 0u32;
        let mut expose = |exposed: &mut [u32], v: Var| {
            let x = &mut exposed[v.0 as usize];
            if *x == u32::MAX {
                *x = xs;
                xs += 1;
            }
            *x
        };
        // Per variable: (block, instruction) of its latest write seen.
        let mut last_def = vec![(u32::MAX, 0u32); func.vars.len()];
        let mut users = vec![u32::MAX; total as usize];
        let mut links = Vec::with_capacity(total as usize);
        // Grouped by block as they are found: a start per block, not a sort.
        let mut entry_reads = Vec::with_capacity(total as usize);
        let mut entry_start = Vec::with_capacity(n + 1);
        let mut term_reads = Vec::new();
        let mut term_start = Vec::with_capacity(n + 1);
        // The last writes of each block, (instruction, variable): numbered once every
        // variable's number is known.
        let mut last_writes = Vec::with_capacity(total as usize);
        // Per variable: 1 + the block whose last write of it is recorded.
        let mut recorded = vec![0u32; func.vars.len()];
        let mut preds = Vec::with_capacity(2 * n);
        let mut rules = Vec::with_capacity(total as usize);
        for (b, block) in func.blocks.iter().enumerate() {
            let bu = b as u32;
            entry_start.push(entry_reads.len() as u32);
            term_start.push(term_reads.len() as u32);
            let base = first[b];
            for (i, inst) in block.insts.iter().enumerate() {
                let gi = base + i as u32;
                for &a in inst.uses() {
                    let (db, di) = last_def[a.0 as usize];
                    if db == bu {
                        links.push((gi, users[di as usize]));
                        users[di as usize] = links.len() as u32 - 1;
                    } else {
                        let x = expose(&mut exposed, a);
                        entry_reads.push((x, gi));
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
                // Each variable's last write once.
                if std::mem::replace(&mut recorded[d.0 as usize], bu + 1) != bu + 1 {
                    last_writes.push((bu, gi, d.0));
                }
            }
            if let Some(m) = block.term.uses() {
                if last_def[m.0 as usize].0 != bu {
                    term_reads.push(expose(&mut exposed, m));
                }
            }
            for s in block.term.successors() {
                preds.push((s.0, bu));
            }
        }
        entry_start.push(entry_reads.len() as u32);
        term_start.push(term_reads.len() as u32);
        let xs = xs as usize;
        let mut exit_x = vec![u32::MAX; total as usize];
        let mut written = Rows::new(n, xs);
        for &(b, gi, v) in &last_writes {
            let x = exposed[v as usize];
            if x != u32::MAX {
                exit_x[gi as usize] = x;
                written.insert(b as usize, x);
            }
        }
        let links = Links {
            users,
            links,
            entry_reads: Lists {
                start: entry_start,
                items: entry_reads,
            },
            written,
            term_reads: Lists {
                start: term_start,
                items: term_reads,
            },
            preds: Lists::new(n, &preds),
            first,
            rules,
            exit_x,
            xs,
        };
        (links, exposed)
    }

    /// Per block, the exposed variables live on entry: read there before any write, or live
    /// at the entry of a successor and not written. Solved a block at a time on whole rows of
    /// bits (`live_in(b) = first_reads(b) ∪ (∪ live_in(succ) − written(b))`, a block going
    /// back on the list when a successor's row grows), not a variable at a time: every block
    /// has most registers live, so the facts are many and the rows short.
    fn live_in(&self, func: &Function) -> Rows {
        let n = func.blocks.len();
        let mut live = Rows::new(n, self.xs);
        for b in 0..n {
            let read = self.entry_reads.get(b).iter().map(|&(x, _)| x);
            for x in read.chain(self.term_reads.get(b).iter().copied()) {
                live.insert(b, x);
            }
        }
        // Last block first: the frontend creates blocks mostly in program order, so most
        // successors are done before their predecessors.
        let mut work: Vec<u32> = (0..n as u32).collect();
        let mut listed = vec![true; n];
        let mut out = vec![0u64; live.width()];
        while let Some(b) = work.pop() {
            let b = b as usize;
            listed[b] = false;
            out.fill(0);
            for s in func.blocks[b].term.successors() {
                for (o, &w) in out.iter_mut().zip(live.row(s.0 as usize)) {
                    *o |= w;
                }
            }
            let written = self.written.row(b);
            let mut grew = false;
            for ((l, &o), &k) in live.row_mut(b).iter_mut().zip(&out).zip(written) {
                let new = *l | (o & !k);
                grew |= new != *l;
                *l = new;
            }
            if grew {
                for &p in self.preds.get(b) {
                    if !std::mem::replace(&mut listed[p as usize], true) {
                        work.push(p);
                    }
                }
            }
        }
        live
    }
}

/// The state of the propagation within blocks.
struct Pass {
    /// Per instruction (global number): its result may vary.
    result: Vec<bool>,
    /// Per block: the entry facts already run through it.
    handled: Rows,
    /// Per block: the exposed variables whose last write in it may vary.
    exit_writes: Rows,
    /// Results that just turned on, whose readers are still to visit.
    stack: Vec<u32>,
}

impl Pass {
    /// Runs block `b` of `links`: on its `first` run, the results that vary whatever their
    /// operands; then the entry facts of `varies` not run through it before. Each turns on the
    /// results reading it, and those the later results reading them, in the block.
    fn run(&mut self, links: &Links, b: usize, first: bool, varies: &Rows) {
        if first {
            for inst in links.first[b]..links.first[b + 1] {
                if links.rules[inst as usize] == Rule::Varies {
                    self.turn_on(links, b, inst);
                }
            }
        }
        let mut fresh = false;
        for (h, &v) in self.handled.row_mut(b).iter_mut().zip(varies.row(b)) {
            fresh |= v & !*h != 0;
        }
        if fresh {
            for &(x, inst) in links.entry_reads.get(b) {
                if varies.contains(b, x) && !self.handled.contains(b, x) {
                    self.reader(links, b, inst);
                }
            }
            self.handled.row_mut(b).copy_from_slice(varies.row(b));
        }
    }

    /// Instruction `inst` of block `b` reads a value that may vary.
    fn reader(&mut self, links: &Links, b: usize, inst: u32) {
        if links.rules[inst as usize] == Rule::AnyArg && !self.result[inst as usize] {
            self.turn_on(links, b, inst);
        }
    }

    /// The result of `inst` of block `b` may vary: so may its readers' in the block, and the
    /// block's exit value of its variable if it is the last write.
    fn turn_on(&mut self, links: &Links, b: usize, inst: u32) {
        self.result[inst as usize] = true;
        self.stack.push(inst);
        while let Some(i) = self.stack.pop() {
            let x = links.exit_x[i as usize];
            if x != u32::MAX {
                self.exit_writes.insert(b, x);
            }
            let mut k = links.users[i as usize];
            while let Some(&(r, next)) = links.links.get(k as usize) {
                if links.rules[r as usize] == Rule::AnyArg && !self.result[r as usize] {
                    self.result[r as usize] = true;
                    self.stack.push(r);
                }
                k = next;
            }
        }
    }
}

/// The solution: per block reachable from block 0, the variables live on entry that may vary
/// there; kept with what found it, so that more facts can be added ([`Entries::seed`]) and
/// settled ([`Entries::settle`]) without solving again.
pub(super) struct Entries {
    links: Links,
    live: Rows,
    reached: Vec<bool>,
    /// Per block: its set grows with its predecessors' (not a fixed block).
    takes: Vec<bool>,
    varies: Rows,
    pass: Pass,
    /// Blocks to run, lowest first; per block, whether it is still to run a first time.
    work: Worklist,
    first: Vec<bool>,
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

    /// True if the result of instruction `i` of reachable block `b` may vary.
    pub(super) fn result(&self, b: usize, i: usize) -> bool {
        self.pass.result[self.links.first[b] as usize + i]
    }

    /// The result of instruction `i` of block `b` may vary, whatever its operands (nothing
    /// for an unreachable block). [`Entries::settle`] carries it on.
    pub(super) fn seed(&mut self, b: usize, i: usize) {
        if !self.reached[b] {
            return;
        }
        let inst = self.links.first[b] + i as u32;
        if self.pass.result[inst as usize] {
            return;
        }
        self.pass.turn_on(&self.links, b, inst);
        self.work.push(b);
    }

    /// Runs the listed blocks until nothing changes. Each reachable block is run
    /// (`Pass::run`) once at first and again whenever its entry set has grown (or a result
    /// of it was seeded): the new entry facts turn on the results reading them (and, along
    /// def-use links, the later results of the block), and the block's exit set goes to the
    /// entry sets of its successors a row of bits at a time. Lowest block first: the frontend
    /// creates blocks mostly in program order, so a block usually runs once its predecessors
    /// are done.
    pub(super) fn settle(&mut self, func: &Function) {
        let Entries {
            links,
            live,
            takes,
            varies,
            pass,
            work,
            first,
            ..
        } = self;
        let mut out = vec![0u64; varies.width()];
        while let Some(b) = work.pop() {
            pass.run(links, b, std::mem::take(&mut first[b]), varies);
            // The exit set: what entered and is not written, and the writes that may vary.
            let through = varies.row(b).iter().zip(links.written.row(b));
            for ((o, (&v, &w)), &e) in out.iter_mut().zip(through).zip(pass.exit_writes.row(b)) {
                *o = (v & !w) | e;
            }
            for s in func.blocks[b].term.successors() {
                let s = s.0 as usize;
                if !takes[s] {
                    continue;
                }
                let mut grew = false;
                for ((v, &o), &l) in varies.row_mut(s).iter_mut().zip(&out).zip(live.row(s)) {
                    let new = *v | (o & l);
                    grew |= new != *v;
                    *v = new;
                }
                if grew {
                    work.push(s);
                }
            }
        }
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

/// The analysis in which `exec` never varies, and where a reachable block of `fixed`
/// (`fixed.0[b]`) starts with the variables that `fixed.1` marks (per variable) and never
/// takes its predecessors' (block 0 always starts with the empty set); with the
/// exposed-variable numbering its sets use (per variable: its number or `u32::MAX`, see
/// `exposed_vars`).
pub(super) fn solve(
    func: &Function,
    exec: Option<Var>,
    fixed: Option<(&[bool], &[bool])>,
) -> (Entries, Vec<u32>) {
    let n = func.blocks.len();
    let (links, exposed) = Links::new(func, exec);
    let live = links.live_in(func);
    // The set a fixed block starts with, as a row of exposed numbers.
    let mut fixed_row = vec![0u64; links.xs.div_ceil(64)];
    if let Some((_, marked)) = fixed {
        for (v, &x) in exposed.iter().enumerate() {
            if x != u32::MAX && marked[v] {
                fixed_row[x as usize / 64] |= 1 << (x % 64);
            }
        }
    }
    let fixed_at = |b: usize| {
        fixed
            .filter(|(blocks, _)| blocks.get(b).copied().unwrap_or(false))
            .map(|_| &fixed_row)
    };
    // Blocks reachable from block 0, each with its starting set; `takes`: its set grows
    // with its predecessors'.
    let mut varies = Rows::new(n, links.xs);
    let mut reached = vec![false; n];
    let mut takes = vec![false; n];
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
                        for ((v, &l), &m) in varies.row_mut(s).iter_mut().zip(live.row(s)).zip(f) {
                            *v = l & m;
                        }
                    }
                    None => takes[s] = true,
                }
                stack.push(s);
            }
        }
    }
    let pass = Pass {
        result: vec![false; links.rules.len()],
        handled: Rows::new(n, links.xs),
        exit_writes: Rows::new(n, links.xs),
        stack: Vec::new(),
    };
    let mut entries = Entries {
        links,
        live,
        takes,
        varies,
        pass,
        work: {
            let mut work = Worklist::new(n);
            for b in (0..n).filter(|&b| reached[b]) {
                work.push(b);
            }
            work
        },
        first: reached.clone(),
        reached,
    };
    entries.settle(func);
    (entries, exposed)
}
