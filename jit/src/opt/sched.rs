//! Latency scheduling of straight code: the order in which a one-block function's pure
//! instructions are emitted, chosen so that long dependency chains (a square root feeding a
//! division feeding PICA multiplies) start early and independent work fills their latency.
//!
//! A kernel body of a few hundred instructions fills most of an out-of-order core's window, so
//! the order in the code decides how early the next batch's chain can start. The pass is list
//! scheduling over a simple machine: every instruction has a latency ([`latency`]), [`WIDTH`]
//! of them issue per modelled cycle, and of those whose operands are ready the one with the
//! longest latency-weighted path to the end of its segment goes first. A segment is a run of
//! pure instructions between two instructions with effects (outputs, loop and budget
//! control, emits), which keep their places.
//!
//! Only blocks with a long operation ([`LONG`]) are reordered: without one, the measured kernels
//! (matrix transforms, skinning through `a0`) ran as fast or faster in their original order.
//!
//! Register pressure is bounded: the pass runs only when the block's values fit in the
//! backend's registers in their original order (the allocator then spills nothing), prefers
//! instructions that keep them fitting (a load must leave [`RESERVE`] registers free), tries
//! again with a tighter limit when the greedy picks overshoot, and keeps the original order
//! when no try fits. So it changes the order of the code, never what it spills. Variables that
//! take no register (re-read constants and uniforms, values computed once per run) cost
//! nothing.
//!
//! What the backends emit stays the same apart from its order: a run of `Input` reads of one
//! register stays together (one transpose loads it), and per-lane row fetches (`uniform.idx`,
//! `const.idx`) keep their relative order, so a fetch that reused the rows of the one before
//! still does.
//!
//! Cost: each segment's graph is built once and shared by the tries; a try is linear in the
//! block plus a sorted insertion per instruction into a queue of the few dozen available; a
//! pick under pressure scans those. The result is kept with the function for its other kernels
//! ([`crate::kernel::scheduled`]).

use std::cmp::Reverse;

use crate::ir::{Function, Inst, Op, Var};

/// Instructions issued per modelled cycle.
const WIDTH: u32 = 2;

/// Registers a load (an instruction reading no value of its segment) leaves free when it
/// starts a new value: the values it feeds need room to be computed.
const RESERVE: usize = 3;

/// Schedules tried, each with a limit one register tighter, before the original order is kept.
const TRIES: usize = 3;

/// Latencies from which an operation makes a chain worth scheduling around (divisions, square
/// roots, reciprocals, exponentials and logarithms): a block without one keeps its order, which
/// the out-of-order core already overlaps well.
const LONG: u32 = 11;

/// The longest block the pass reorders: a core's window holds a few hundred instructions, so
/// a longer block's order matters locally, where the original order is already a dataflow
/// order; and it keeps the pass's cost away from large programs.
const MAX_BLOCK: usize = 512;

/// Not a position (no definition or no read).
const NONE: u32 = u32::MAX;

/// The modelled latency of an operation, in cycles, from its operands to its result: the
/// sequence the backends emit for it on a current core (a PICA multiply is a multiply, a compare
/// and two mask operations; `rsq` a square root and a division). Effects take none.
pub fn latency(op: Op) -> u32 {
    match op {
        Op::FConst | Op::Const | Op::Uniform | Op::IntUniform | Op::BoolMask => 4,
        Op::UniformAl | Op::UniformLead | Op::BudgetLanes => 5,
        Op::UniformIdx | Op::ConstIdx => 10,
        Op::Input => 8,
        Op::Mov | Op::MaskMov | Op::IMov | Op::MaskConst | Op::IConst => 1,
        Op::Neg | Op::Abs | Op::Max | Op::Min => 1,
        Op::MaskAnd | Op::MaskOr | Op::MaskNot | Op::MaskAndNot => 1,
        Op::IAdd | Op::IEq | Op::ILt => 1,
        Op::Select | Op::ISelect | Op::Cmp => 2,
        Op::Add | Op::Mul | Op::Floor => 3,
        Op::QuadDiff | Op::FtoiSat | Op::LaneMin => 4,
        Op::PMul => 6,
        Op::Div | Op::Rcp => 11,
        Op::Sqrt => 15,
        Op::Rsq => 26,
        Op::Ex2 | Op::Lg2 => 30,
        Op::Sin | Op::Cos | Op::Pow => 40,
        Op::Output
        | Op::Retire
        | Op::LoopPush
        | Op::AlInc
        | Op::AlRestore
        | Op::Budget
        | Op::EmitSlot
        | Op::EmitTri => 0,
    }
}

/// The instructions of `func`'s block in scheduled order, if `func` is one block whose order
/// changes; `None` keeps the function as it is. `free(v)` says that variable `v` takes no
/// register (the backend re-reads it or keeps it in memory); `regs` is how many registers the
/// backend allocates.
pub fn schedule(func: &Function, free: &dyn Fn(Var) -> bool, regs: usize) -> Option<Vec<Inst>> {
    let [block] = &func.blocks[..] else {
        return None;
    };
    let insts = &block.insts;
    let n = insts.len();
    if !(3..=MAX_BLOCK).contains(&n) || !insts.iter().any(|i| latency(i.op) >= LONG) {
        return None;
    }
    let uses = Uses::of(func, insts)?;
    let nvars = func.vars.len();
    let counted: Vec<bool> = (0..nvars as u32).map(|v| !free(Var(v))).collect();
    if uses.pressure(&counted, n) > regs {
        return None;
    }
    // Registers in use before each instruction in the original order (a segment starts with
    // the same ones whatever the order within the segments before it).
    let mut enter = vec![0i32; n + 2];
    for ((&d, &l), _) in uses
        .def
        .iter()
        .zip(&uses.last)
        .zip(&counted)
        .filter(|c| *c.1)
    {
        if d != NONE && l != NONE && l > d {
            enter[d as usize + 1] += 1;
            enter[l as usize + 1] -= 1;
        }
    }
    // The segments' graphs do not depend on the limit: built once for every try.
    let block = Graph::new(insts, &uses, &counted);
    let mut reads_left = vec![0u32; nvars];
    // The greedy picks can overshoot the limit: tighter limits leave them more room.
    for tighter in 0..TRIES.min(regs) {
        let order = block.order(regs - tighter, &enter, &mut reads_left);
        if order.len() != n || order.iter().enumerate().all(|(i, &k)| i == k as usize) {
            return None;
        }
        let scheduled = order.iter().map(|&k| &insts[k as usize]);
        if pressure(scheduled, &counted) <= regs {
            return Some(order.iter().map(|&k| insts[k as usize]).collect());
        }
    }
    None
}

/// Where each variable of the block is defined and last read (instruction indices).
struct Uses {
    def: Vec<u32>,
    last: Vec<u32>,
    /// The variable the terminator reads, and where an instruction last read it before.
    term: Option<(u32, u32)>,
}

impl Uses {
    /// `None` unless every variable is defined at most once, before every read: the block is
    /// then a dependence graph of its reads alone.
    fn of(func: &Function, insts: &[Inst]) -> Option<Uses> {
        let nvars = func.vars.len();
        let mut def = vec![NONE; nvars];
        let mut last = vec![NONE; nvars];
        for (i, inst) in insts.iter().enumerate() {
            for &u in inst.uses() {
                let k = u.0 as usize;
                if !matches!(def.get(k), Some(&d) if d != NONE) {
                    return None;
                }
                last[k] = i as u32;
            }
            if let Some(d) = inst.dst {
                let slot = def.get_mut(d.0 as usize)?;
                if *slot != NONE {
                    return None;
                }
                *slot = i as u32;
            }
        }
        let mut term = None;
        if let Some(u) = func.blocks[0].term.uses() {
            let slot = last.get_mut(u.0 as usize)?;
            term = Some((u.0, *slot));
            *slot = insts.len() as u32;
        }
        Some(Uses { def, last, term })
    }

    /// [`pressure`] of the block's `len` instructions in their original order, from where
    /// its variables are defined and read.
    fn pressure(&self, counted: &[bool], len: usize) -> usize {
        let ranges = (0..self.def.len() as u32).filter_map(|v| {
            let d = self.def[v as usize];
            if d == NONE || !counted[v as usize] {
                return None;
            }
            // The terminator's read is not an instruction's.
            let read = match self.term {
                Some((t, before)) if t == v => before,
                Some(_) | None => self.last[v as usize],
            };
            Some((2 * d + 1, if read == NONE { 0 } else { 2 * read }))
        });
        most_live(ranges, len)
    }
}

/// The most registers live at once when `insts` run in this order, counting the variables
/// `counted` holds for: a value is live from its definition through its last read, and a
/// result may take the register of an operand read for the last time (the allocator's rule).
fn pressure<'i>(insts: impl ExactSizeIterator<Item = &'i Inst>, counted: &[bool]) -> usize {
    let nvars = counted.len();
    let len = insts.len();
    let mut def = vec![NONE; nvars];
    let mut last = vec![0u32; nvars];
    for (i, inst) in insts.enumerate() {
        let i = i as u32;
        for &u in inst.uses() {
            last[u.0 as usize] = 2 * i;
        }
        if let Some(d) = inst.dst {
            def[d.0 as usize] = 2 * i + 1;
        }
    }
    let ranges = def.iter().zip(&last).zip(counted);
    let ranges = ranges.filter(|&((&d, _), &c)| c && d != NONE);
    most_live(ranges.map(|((&d, &l), _)| (d, l)), len)
}

/// The most registers live at once over `len` instructions, given the (definition, last
/// read) positions of the values that take one: 2i + 1 for a definition by instruction i,
/// 2i for a read by it, a value live over [definition, max(definition, last read)].
fn most_live(ranges: impl Iterator<Item = (u32, u32)>, len: usize) -> usize {
    let mut step = vec![0i32; 2 * len + 2];
    for (d, l) in ranges {
        step[d as usize] += 1;
        step[d.max(l) as usize + 1] -= 1;
    }
    let mut live = 0i32;
    let mut most = 0i32;
    for s in step {
        live += s;
        most = most.max(live);
    }
    most as usize
}

/// The dependence graphs of a block's segments, and the effects between them.
struct Graph<'a> {
    insts: &'a [Inst],
    /// Segments in block order.
    segments: Vec<Segment>,
}

impl<'a> Graph<'a> {
    /// The graphs of `insts`' segments; `counted` says which variables take a register.
    fn new(insts: &'a [Inst], uses: &Uses, counted: &[bool]) -> Self {
        let n = insts.len();
        let mut segments = Vec::new();
        let mut lo = 0;
        while lo < n {
            if !insts[lo].is_pure() {
                lo += 1;
                continue;
            }
            let hi = lo + insts[lo..].iter().take_while(|i| i.is_pure()).count();
            segments.push(Segment::new(insts, uses, counted, lo, hi));
            lo = hi;
        }
        Graph { insts, segments }
    }

    /// The block's instructions in scheduled order (indices) within `regs` registers,
    /// segment by segment; `enter` steps the registers in use before each instruction (see
    /// [`schedule`]). `reads_left` is all zeros, and is again when the order is complete.
    fn order(&self, regs: usize, enter: &[i32], reads_left: &mut [u32]) -> Vec<u32> {
        let insts = self.insts;
        let n = insts.len();
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut segments = self.segments.iter();
        let (mut lo, mut live) = (0, 0i32);
        while lo < n {
            live += enter[lo];
            if !insts[lo].is_pure() {
                order.push(lo as u32);
                lo += 1;
                continue;
            }
            let Some(segment) = segments.next() else {
                return order;
            };
            let hi = segment.hi;
            let run = Run::new(segment, regs);
            run.run(live.max(0) as usize, reads_left, &mut order);
            live += enter[lo + 1..hi].iter().sum::<i32>();
            lo = hi;
        }
        order
    }
}

/// A unit of scheduling: one instruction, or a run of `Input` reads of one register; with
/// what the pass knows of it.
#[derive(Clone, Copy)]
struct Node {
    first: u32,
    len: u32,
    /// Its modelled latency: none for a result that takes no register.
    latency: u32,
    /// Latency-weighted length of the longest path from the node to the segment's end.
    height: u32,
    /// Its predecessors: none for a load (it reads no value its segment computes).
    preds: u32,
    /// Registers its results take: all of them, and those read later.
    made: u32,
    kept: u32,
    /// How many entries of `dying` are operands.
    operands: u32,
    /// The operands that take a register and are last read in the segment, each with how
    /// many times the node reads it: it frees the register when those are its last reads.
    dying: [(u32, u32); 3],
}

impl Node {
    /// The node's operands that may be read for the last time here.
    fn dying(&self) -> &[(u32, u32)] {
        &self.dying[..self.operands as usize]
    }
}

/// Nodes waiting their turn, as keys sorted in ascending order: the next one is the last. A
/// segment has a few dozen nodes at once, so a sorted vector beats a heap, and it can be
/// scanned best first.
struct Queue {
    keys: Vec<u64>,
}

impl Queue {
    /// The key of a ready node: the longest path first, then the earliest in the original
    /// order.
    fn ready(height: u32, j: u32) -> u64 {
        u64::from(height) << 32 | u64::from(!j)
    }

    /// The node of a [`Queue::ready`] key.
    fn ready_node(key: u64) -> u32 {
        !(key as u32)
    }

    /// The key of a node waiting for its operands: the earliest cycle they are ready, then
    /// the earliest in the original order.
    fn waiting(earliest: u32, j: u32) -> u64 {
        !(u64::from(earliest) << 32 | u64::from(j))
    }

    /// The node of a [`Queue::waiting`] key, and the cycle its operands are ready.
    fn waiting_node(key: u64) -> (u32, u32) {
        (!key as u32, (!key >> 32) as u32)
    }

    fn with_capacity(n: usize) -> Queue {
        Queue {
            keys: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, key: u64) {
        let at = self.keys.partition_point(|&k| k < key);
        self.keys.insert(at, key);
    }
}

/// One segment's dependence graph: what every try at scheduling it shares.
struct Segment {
    /// Instructions `lo..hi` of the block.
    hi: usize,
    nodes: Vec<Node>,
    /// Successors of node `j`: `succ[succ_at[j]..succ_at[j + 1]]`.
    succ_at: Vec<u32>,
    succ: Vec<u32>,
}

impl Segment {
    /// The graph of instructions `lo..hi` of `insts` (all pure).
    fn new(insts: &[Inst], uses: &Uses, counted: &[bool], lo: usize, hi: usize) -> Self {
        let mut nodes: Vec<Node> = Vec::with_capacity(hi - lo);
        let mut node_of: Vec<u32> = Vec::with_capacity(hi - lo);
        // Edges from the node defining an operand to the node reading it (operands defined
        // before the segment are ready at its start), and from each per-lane row fetch to the
        // next: the backends keep the rows of the last fetch for the next one with the same
        // offset, so the fetches keep their order.
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(2 * (hi - lo));
        let mut last_fetch = None;
        for (i, inst) in insts.iter().enumerate().take(hi).skip(lo) {
            let joins = i > lo
                && inst.op == Op::Input
                && insts[i - 1].op == Op::Input
                && insts[i - 1].imm[0] & 15 == inst.imm[0] & 15;
            let counts = inst.dst.filter(|&d| counted[d.0 as usize]);
            match nodes.last_mut() {
                Some(last) if joins => last.len += 1,
                Some(_) | None => nodes.push(Node {
                    first: i as u32,
                    len: 1,
                    latency: counts.map_or(0, |_| latency(inst.op)),
                    height: 0,
                    preds: 0,
                    made: 0,
                    kept: 0,
                    operands: 0,
                    dying: [(0, 0); 3],
                }),
            }
            let j = nodes.len() as u32 - 1;
            node_of.push(j);
            let node = &mut nodes[j as usize];
            // Results that take a register, and of those the ones read later. A node of
            // several instructions is a run of inputs, which read nothing.
            if let Some(d) = counts {
                node.made += 1;
                node.kept += u32::from(uses.last[d.0 as usize] != NONE);
            }
            let args = inst.uses();
            for (k, &u) in args.iter().enumerate() {
                let d = uses.def[u.0 as usize] as usize;
                if (lo..hi).contains(&d) && node_of[d - lo] != j {
                    edges.push((node_of[d - lo], j));
                }
                let last = uses.last[u.0 as usize] as usize;
                if args[..k].contains(&u) || !counted[u.0 as usize] || last >= hi {
                    continue;
                }
                let here = args.iter().filter(|&&x| x == u).count() as u32;
                node.dying[node.operands as usize] = (u.0, here);
                node.operands += 1;
            }
            if matches!(inst.op, Op::UniformIdx | Op::ConstIdx) {
                if let Some(p) = last_fetch.filter(|&p| p != j) {
                    edges.push((p, j));
                }
                last_fetch = Some(j);
            }
        }
        let m = nodes.len();
        let mut succ_at = vec![0u32; m + 1];
        for &(p, j) in &edges {
            succ_at[p as usize + 1] += 1;
            nodes[j as usize].preds += 1;
        }
        for j in 0..m {
            succ_at[j + 1] += succ_at[j];
        }
        // Filled from each node's end backwards: `succ_at[p]` ends at its start.
        let mut succ = vec![0u32; edges.len()];
        for &(p, j) in edges.iter().rev() {
            succ_at[p as usize + 1] -= 1;
            succ[succ_at[p as usize + 1] as usize] = j;
        }
        for j in 0..m {
            succ_at[j] = succ_at[j + 1];
        }
        succ_at[m] = edges.len() as u32;
        // Successors come later in the original order: one backward walk settles heights.
        for j in (0..m).rev() {
            let below = succ[succ_at[j] as usize..succ_at[j + 1] as usize]
                .iter()
                .map(|&s| nodes[s as usize].height)
                .max()
                .unwrap_or(0);
            nodes[j].height = nodes[j].latency + below;
        }
        Segment {
            hi,
            nodes,
            succ_at,
            succ,
        }
    }
}

/// A candidate under pressure: ((registers after it, node), in the ready queue, index there).
type Least = ((usize, u32), bool, usize);

/// One try at scheduling a segment within a register limit.
struct Run<'s> {
    segment: &'s Segment,
    regs: usize,
    /// Unscheduled predecessors per node.
    preds: Vec<u32>,
    /// The earliest cycle a node's operands are ready (as far as its scheduled predecessors
    /// say).
    earliest: Vec<u32>,
}

impl<'s> Run<'s> {
    fn new(segment: &'s Segment, regs: usize) -> Self {
        Run {
            segment,
            regs,
            preds: segment.nodes.iter().map(|n| n.preds).collect(),
            earliest: vec![0; segment.nodes.len()],
        }
    }

    /// What scheduling node `j` now does to the live count `live`: the registers in use
    /// right after it (results that are never read included), and those that stay in use.
    fn effect(&self, j: u32, live: usize, reads_left: &[u32]) -> (usize, usize) {
        let node = &self.segment.nodes[j as usize];
        let dying = node
            .dying()
            .iter()
            .filter(|&&(u, here)| reads_left[u as usize] == here)
            .count();
        (
            (live + node.made as usize).saturating_sub(dying),
            (live + node.kept as usize).saturating_sub(dying),
        )
    }

    /// Whether node `j`, leaving `after` registers in use where `live` were, fits: no more
    /// than there are (a load that adds to them: no more than there are less [`RESERVE`]).
    fn fits(&self, j: u32, live: usize, after: usize) -> bool {
        let root = self.segment.nodes[j as usize].preds == 0;
        let limit = match root && after > live {
            true => self.regs.saturating_sub(RESERVE),
            false => self.regs,
        };
        after <= limit
    }

    /// The registers in use after node `j` if it fits now.
    fn fitting(&self, j: u32, live: usize, reads_left: &[u32]) -> Result<usize, usize> {
        let after = self.effect(j, live, reads_left).0;
        match self.fits(j, live, after) {
            true => Ok(after),
            false => Err(after),
        }
    }

    /// The node to schedule when the best ready one would need more registers than there
    /// are: of every node whose operands are scheduled, the best one that fits (a ready one
    /// before one still waiting for its operands), else the one that needs the fewest. It
    /// leaves its queue; `None` when both are empty.
    fn pick_under_pressure(
        &self,
        live: usize,
        reads_left: &[u32],
        ready: &mut Queue,
        waiting: &mut Queue,
    ) -> Option<u32> {
        // The ready queue best first: the first that fits is the best.
        let mut least: Option<Least> = None;
        for (at, &key) in ready.keys.iter().enumerate().rev() {
            let j = Queue::ready_node(key);
            match self.fitting(j, live, reads_left) {
                Ok(_) => {
                    ready.keys.remove(at);
                    return Some(j);
                }
                Err(after) => least = Some(Run::fewer(least, ((after, j), true, at))),
            }
        }
        // Waiting nodes are all later than now: the fitting one with the longest path.
        let mut best: Option<(u32, Reverse<u32>, usize)> = None;
        for (at, &key) in waiting.keys.iter().enumerate() {
            let (j, _) = Queue::waiting_node(key);
            let after = match self.fitting(j, live, reads_left) {
                Ok(after) => {
                    let height = self.segment.nodes[j as usize].height;
                    best = best.max(Some((height, Reverse(j), at)));
                    after
                }
                Err(after) => after,
            };
            least = Some(Run::fewer(least, ((after, j), false, at)));
        }
        if let Some((_, Reverse(j), at)) = best {
            waiting.keys.remove(at);
            return Some(j);
        }
        let (_, in_ready, at) = least?;
        let queue = match in_ready {
            true => ready,
            false => waiting,
        };
        let key = queue.keys.remove(at);
        Some(match in_ready {
            true => Queue::ready_node(key),
            false => Queue::waiting_node(key).0,
        })
    }

    /// Of `least` and `other`, the one that leaves fewer registers in use (then the earliest
    /// node): each is ((registers after, node), in the ready queue, index in its queue).
    fn fewer(least: Option<Least>, other: Least) -> Least {
        least.map_or(other, |l| l.min(other))
    }

    /// Queues node `j`, whose operands are all scheduled: one that costs nothing (it takes
    /// no register and emits no code) goes at once, others wait for their operands.
    fn release(&self, j: u32, free: &mut Vec<u32>, waiting: &mut Queue) {
        match self.segment.nodes[j as usize].latency {
            0 => free.push(j),
            1.. => waiting.push(Queue::waiting(self.earliest[j as usize], j)),
        }
    }

    /// Appends the segment's instructions to `order` in scheduled order; `live` registers are
    /// in use at its start. Every read counted into `reads_left` here is counted out again
    /// when every node is scheduled.
    fn run(mut self, mut live: usize, reads_left: &mut [u32], order: &mut Vec<u32>) {
        let segment = self.segment;
        let m = segment.nodes.len() as u32;
        for node in &segment.nodes {
            for &(u, here) in node.dying() {
                reads_left[u as usize] += here;
            }
        }
        let mut ready = Queue::with_capacity(m as usize);
        let mut waiting = Queue::with_capacity(m as usize);
        let mut free = Vec::with_capacity(m as usize);
        for j in (0..m).filter(|&j| self.preds[j as usize] == 0) {
            self.release(j, &mut free, &mut waiting);
        }
        let (mut t, mut issued) = (0u32, 0u32);
        for _ in 0..m {
            // The node, and the registers in use after it.
            let (j, stays) = match free.pop() {
                Some(j) => (j, self.effect(j, live, reads_left).1),
                None => {
                    while let Some(&key) = waiting.keys.last() {
                        let (j, at) = Queue::waiting_node(key);
                        if at > t {
                            break;
                        }
                        waiting.keys.pop();
                        ready.push(Queue::ready(segment.nodes[j as usize].height, j));
                    }
                    // Nothing ready: the machine waits for the earliest operand.
                    let top = match (ready.keys.last(), waiting.keys.last()) {
                        (Some(&key), _) => Some((Queue::ready_node(key), &mut ready)),
                        (None, Some(&key)) => Some((Queue::waiting_node(key).0, &mut waiting)),
                        (None, None) => None,
                    };
                    let Some((top, queue)) = top else {
                        return;
                    };
                    let (after, stays) = self.effect(top, live, reads_left);
                    if self.fits(top, live, after) {
                        queue.keys.pop();
                        (top, stays)
                    } else {
                        let picked =
                            self.pick_under_pressure(live, reads_left, &mut ready, &mut waiting);
                        let Some(j) = picked else {
                            return;
                        };
                        (j, self.effect(j, live, reads_left).1)
                    }
                }
            };
            let at = self.earliest[j as usize];
            let node = &segment.nodes[j as usize];
            if at > t && node.latency > 0 {
                (t, issued) = (at, 0);
            }
            live = stays;
            for &(u, here) in node.dying() {
                reads_left[u as usize] -= here;
            }
            order.extend(node.first..node.first + node.len);
            let done = t.max(at) + node.latency;
            let (a, b) = (segment.succ_at[j as usize], segment.succ_at[j as usize + 1]);
            for &s in &segment.succ[a as usize..b as usize] {
                let s = s as usize;
                self.earliest[s] = self.earliest[s].max(done);
                self.preds[s] -= 1;
                if self.preds[s] == 0 {
                    self.release(s as u32, &mut free, &mut waiting);
                }
            }
            if node.latency > 0 {
                issued += 1;
                if issued == WIDTH {
                    (t, issued) = (t + 1, 0);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Builder, Terminator};

    /// The checks every schedule must pass against the original block: a permutation that
    /// reads every value after its definition, effects at their places, each original run of
    /// `Input` reads of one register still adjacent, per-lane row fetches in their order, and
    /// no more than `regs` registers in use.
    fn check(f: &Function, free: &dyn Fn(Var) -> bool, regs: usize, new: &[Inst]) {
        let old = &f.blocks[0].insts;
        assert_eq!(new.len(), old.len());
        let mut sorted_old: Vec<String> = old.iter().map(|i| format!("{i:?}")).collect();
        let mut sorted_new: Vec<String> = new.iter().map(|i| format!("{i:?}")).collect();
        sorted_old.sort();
        sorted_new.sort();
        assert_eq!(sorted_old, sorted_new, "a permutation");
        let mut defined = vec![false; f.vars.len()];
        for inst in new {
            for u in inst.uses() {
                assert!(defined[u.0 as usize], "v{} read before its definition", u.0);
            }
            if let Some(d) = inst.dst {
                defined[d.0 as usize] = true;
            }
        }
        for (a, b) in old.iter().zip(new) {
            if !a.is_pure() || !b.is_pure() {
                assert_eq!(a, b, "effects keep their places");
            }
        }
        for w in old.windows(2) {
            if w[0].op == Op::Input && w[1].op == Op::Input && w[0].imm[0] == w[1].imm[0] {
                let at = new.iter().position(|i| *i == w[0]).unwrap();
                assert_eq!(new[at + 1], w[1], "an input run stays together");
            }
        }
        let fetches = |insts: &[Inst]| -> Vec<Inst> {
            insts
                .iter()
                .filter(|i| matches!(i.op, Op::UniformIdx | Op::ConstIdx))
                .copied()
                .collect()
        };
        assert_eq!(fetches(old), fetches(new), "row fetches keep their order");
        let counted: Vec<bool> = (0..f.vars.len() as u32).map(|v| !free(Var(v))).collect();
        assert!(pressure(new.iter(), &counted) <= regs);
    }

    /// Position work (a 3×3 matrix by an input) before a normalization (`rsq` of a dot
    /// product), as a vertex shader writes them, outputs at the end as `place_io` leaves them;
    /// with the variables that take no register (uniforms and constants, re-read).
    fn transform_then_normalize() -> (Function, Vec<Var>) {
        let mut b = Builder::new();
        let mut uniforms = Vec::new();
        let mut uniform = |b: &mut Builder, c: u32, comp: u32| {
            let v = b.inst(Op::Uniform, &[], [c, comp]);
            uniforms.push(v);
            v
        };
        let pos: Vec<Var> = (0..3).map(|c| b.inst(Op::Input, &[], [0, c])).collect();
        let mut outs = Vec::new();
        for row in 0..3 {
            let mut acc = b.fconst(0.0);
            for (c, &p) in pos.iter().enumerate() {
                let u = uniform(&mut b, row, c as u32);
                let t = b.binary(Op::PMul, u, p);
                acc = b.binary(Op::Add, acc, t);
            }
            outs.push(acc);
        }
        let nrm: Vec<Var> = (0..3).map(|c| b.inst(Op::Input, &[], [1, c])).collect();
        let mut dot = b.fconst(0.0);
        for &n in &nrm {
            let sq = b.binary(Op::Mul, n, n);
            dot = b.binary(Op::Add, dot, sq);
        }
        let r = b.unary(Op::Rsq, dot);
        for &n in &nrm {
            outs.push(b.binary(Op::PMul, n, r));
        }
        for (k, &o) in outs.iter().enumerate() {
            b.effect(Op::Output, &[o], [k as u32 / 4, k as u32 % 4]);
        }
        b.terminate(Terminator::Exit);
        let mut free: Vec<Var> = uniforms;
        let f = b.finish();
        for (i, inst) in f.blocks[0].insts.iter().enumerate() {
            if inst.op == Op::FConst {
                free.push(inst.dst.unwrap_or_else(|| panic!("instruction {i}")));
            }
        }
        (f, free)
    }

    #[test]
    fn a_long_chain_starts_before_independent_work() {
        let (f, free) = transform_then_normalize();
        f.verify().unwrap();
        let is_free = |v: Var| free.contains(&v);
        let new = schedule(&f, &is_free, 11).expect("scheduled");
        check(&f, &is_free, 11, &new);
        // Originally all nine position multiplies precede the `rsq`; now some of them fill
        // its latency (after it come those and the three by its result).
        let rsq = new.iter().position(|i| i.op == Op::Rsq).unwrap();
        let after = new[rsq..].iter().filter(|i| i.op == Op::PMul).count();
        assert!(after > 3, "the normalization starts early:\n{new:#?}");
    }

    #[test]
    fn no_registers_to_spare_keeps_the_order() {
        let (f, free) = transform_then_normalize();
        let is_free = |v: Var| free.contains(&v);
        let counted: Vec<bool> = (0..f.vars.len() as u32).map(|v| !is_free(Var(v))).collect();
        let need = pressure(f.blocks[0].insts.iter(), &counted);
        assert_eq!(schedule(&f, &is_free, need - 1), None);
        if let Some(new) = schedule(&f, &is_free, need) {
            check(&f, &is_free, need, &new);
        }
    }

    #[test]
    fn a_block_without_a_long_operation_keeps_its_order() {
        let (mut f, free) = transform_then_normalize();
        for inst in &mut f.blocks[0].insts {
            if inst.op == Op::Rsq {
                inst.op = Op::Abs;
            }
        }
        let is_free = |v: Var| free.contains(&v);
        assert_eq!(schedule(&f, &is_free, 11), None);
    }

    #[test]
    fn only_single_definitions_in_one_block() {
        let mut b = Builder::new();
        let x = b.inst(Op::Input, &[], [0, 0]);
        let y = b.unary(Op::Rsq, x);
        let z = b.binary(Op::Add, x, x);
        b.inst_to(Op::Mov, z, &[y], [0, 0]);
        b.effect(Op::Output, &[z], [0, 0]);
        b.terminate(Terminator::Exit);
        let f = b.finish();
        assert_eq!(schedule(&f, &|_| false, 11), None, "z is written twice");

        let mut b = Builder::new();
        let x = b.inst(Op::Input, &[], [0, 0]);
        let next = b.block();
        b.terminate(Terminator::Jump(next));
        b.switch_to(next);
        let y = b.unary(Op::Rsq, x);
        b.effect(Op::Output, &[y], [0, 0]);
        b.terminate(Terminator::Exit);
        assert_eq!(schedule(&b.finish(), &|_| false, 11), None, "two blocks");
    }

    /// A random straight block: input runs, loads, arithmetic with long and short latencies,
    /// per-lane row fetches and outputs among them.
    fn random_block(rng: &mut fastrand::Rng) -> Function {
        let mut b = Builder::new();
        let mut vals: Vec<Var> = Vec::new();
        let mut offsets: Vec<Var> = Vec::new();
        for _ in 0..rng.usize(4..80) {
            let pick = |rng: &mut fastrand::Rng, vals: &[Var]| vals[rng.usize(..vals.len())];
            match rng.u32(0..10) {
                0 => {
                    let reg = rng.u32(0..16);
                    for c in 0..rng.u32(1..5) {
                        vals.push(b.inst(Op::Input, &[], [reg, c]));
                    }
                }
                1 => vals.push(b.inst(Op::Uniform, &[], [rng.u32(0..96), rng.u32(0..4)])),
                2 if !vals.is_empty() => {
                    let v = pick(rng, &vals);
                    b.effect(Op::Output, &[v], [rng.u32(0..16), rng.u32(0..4)]);
                }
                3 if !vals.is_empty() => {
                    let v = pick(rng, &vals);
                    offsets.push(b.unary(Op::FtoiSat, v));
                }
                4 if !offsets.is_empty() => {
                    let o = offsets[rng.usize(..offsets.len())];
                    let op = [Op::UniformIdx, Op::ConstIdx][rng.usize(..2)];
                    vals.push(b.inst(op, &[o], [rng.u32(0..96), rng.u32(0..4)]));
                }
                5 if !vals.is_empty() => {
                    let op = [Op::Rsq, Op::Rcp, Op::Sqrt, Op::Abs][rng.usize(..4)];
                    let v = pick(rng, &vals);
                    vals.push(b.unary(op, v));
                }
                2..=9 if !vals.is_empty() => {
                    let op = [Op::Add, Op::Mul, Op::PMul, Op::Max, Op::Div][rng.usize(..5)];
                    let (x, y) = (pick(rng, &vals), pick(rng, &vals));
                    vals.push(b.binary(op, x, y));
                }
                0..=9 | 10.. => vals.push(b.fconst(rng.f32())),
            }
        }
        for (k, &v) in vals.iter().rev().take(8).enumerate() {
            b.effect(Op::Output, &[v], [k as u32 / 4, k as u32 % 4]);
        }
        b.terminate(Terminator::Exit);
        b.finish()
    }

    #[test]
    fn random_blocks_keep_every_dependence_within_the_registers() {
        let mut rng = fastrand::Rng::with_seed(17);
        let mut changed = 0;
        for seed in 0..400 {
            let f = random_block(&mut rng);
            f.verify().unwrap_or_else(|e| panic!("block {seed}: {e}"));
            let uniform = |v: Var| {
                f.blocks[0]
                    .insts
                    .iter()
                    .any(|i| i.dst == Some(v) && matches!(i.op, Op::Uniform | Op::FConst))
            };
            let insts = &f.blocks[0].insts;
            let uses = Uses::of(&f, insts).expect("single definitions");
            for regs in [4, 8, 11, 24] {
                let frees: [&dyn Fn(Var) -> bool; 2] = [&|_| false, &uniform];
                for free in frees {
                    let counted: Vec<bool> =
                        (0..f.vars.len() as u32).map(|v| !free(Var(v))).collect();
                    let known = uses.pressure(&counted, insts.len());
                    assert_eq!(known, pressure(insts.iter(), &counted), "block {seed}");
                    if let Some(new) = schedule(&f, free, regs) {
                        check(&f, free, regs, &new);
                        changed += 1;
                    }
                }
            }
        }
        assert!(changed > 400, "only {changed} schedules changed a block");
    }
}
