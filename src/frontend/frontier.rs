//! The schedule of the lane-position model (`frontend::lanes`): a priority order on the abstract
//! states and, per state, the *frontier* — the states where other lanes may be waiting while
//! the batch runs it.
//!
//! Each lane of a batch sits at an abstract state; the batch always runs the state of highest
//! priority (lowest number) that some lane sits at, for the lanes that sit there. The order is
//! a reverse post-order of the scheduled graph (every state's successors after its step; an
//! if-converted state goes straight to its join), so a state comes after all its forward
//! predecessors and lanes that parted meet again where their paths join. The depth-first search
//! visits successors with the higher pc first, so of two arms the one with the lower pc (a
//! short IF arm that ends, the body of a loop before its exit) runs first.
//!
//! Frontiers are computed by a forward data-flow over this order. When the batch runs state
//! `s` while lanes may wait at the states `F(s)`, the lanes of `s` go to some of its targets
//! `T` (a per-vertex branch may send them to any subset of its targets; a uniform one to one
//! target; lanes that end or exhaust their budget go nowhere), so the states occupied next are
//! some subset of `F(s) ∪ T`, and the next state `n` is the lowest of them: `F(n)` includes
//! every state of `F(s) ∪ T` after `n`. A state with an empty frontier is *converged*: every
//! lane still running is there. States that appear in some frontier are *merge* states: lanes
//! that arrived at different times meet there.
//!
//! The targets of the steps and the priority order do not depend on which conditions are
//! uniform: a [`Schedule`] holds them, and each round of the lane-position model's uniformity
//! search plans from the same one.

use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;

use super::graph::{Cond, Effect, Flow, Graph, Target};
use super::ifconv::Conversion;
use super::worklist::Worklist;

/// Most frontier entries the analysis may add up in one function (a bound on compile time for
/// hostile control flow; beyond it the plan is [`Plan::coarse`]).
pub const MAX_FRONTIER_WORK: usize = 1_000_000;

/// A node of a state's decision tree: (state, pre-order index of the node).
pub type NodeId = (usize, usize);

/// The schedule of a function.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Scheduled states by priority (the entry first).
    pub order: Vec<usize>,
    /// Per state: its priority, `u32::MAX` if it is not scheduled (reached only through an
    /// if-converted branch).
    pub prio: Vec<u32>,
    /// The states where other lanes may wait while state `s` runs, by priority:
    /// `frontiers[frontier_start[s]..frontier_start[s + 1]]` (one list for all states; see
    /// [`Plan::frontier`]).
    frontiers: Vec<usize>,
    frontier_start: Vec<u32>,
    /// Per state: it is in some frontier.
    pub merge: Vec<bool>,
    /// Per-vertex conditions (cc branches and loop tests) known to be the same in every lane
    /// that runs them: compiled as branches of the batch.
    pub uniform: HashSet<NodeId>,
    /// The frontiers were too costly to compute: lanes may wait anywhere (every state runs
    /// masked, is a merge state, and goes on through the shared dispatch); `frontier` is empty.
    pub coarse: bool,
}

impl Plan {
    /// True if every running lane is at `s` when it runs.
    pub fn converged(&self, s: usize) -> bool {
        !self.coarse && self.frontier(s).is_empty()
    }

    /// The states where other lanes may wait while state `s` runs, by priority (none in a
    /// coarse plan).
    pub fn frontier(&self, s: usize) -> &[usize] {
        let (Some(&from), Some(&to)) = (self.frontier_start.get(s), self.frontier_start.get(s + 1))
        else {
            return &[];
        };
        &self.frontiers[from as usize..to as usize]
    }
}

/// Number of nodes of a decision tree (for pre-order node numbering).
pub fn size(flow: &Flow) -> usize {
    match flow {
        Flow::Do(_, rest) => 1 + size(rest),
        Flow::If { then, other, .. } => 1 + size(then) + size(other),
        Flow::LoopNext { repeat, exit, .. } => 1 + size(repeat) + size(exit),
        Flow::Goto(_) => 1,
    }
}

/// What a step does, as far as the schedule goes.
#[derive(Default)]
struct Step {
    /// Target states.
    targets: Vec<usize>,
    /// The per-vertex conditions (cc tests and loop tests) of the step, by node number: if
    /// one is not uniform, the lanes may go to any subset of the targets.
    conds: Vec<u32>,
}

fn step_of(flow: &Flow, id: usize, out: &mut Step) {
    match flow {
        Flow::Do(_, rest) => step_of(rest, id + 1, out),
        Flow::Goto(Target::State(t)) => out.targets.push(*t),
        Flow::Goto(Target::Exit) => {}
        Flow::If { cond, then, other } => {
            if let Cond::Cc(_) = cond {
                out.conds.push(id as u32);
            }
            step_of(then, id + 1, out);
            step_of(other, id + 1 + size(then), out);
        }
        Flow::LoopNext { repeat, exit, .. } => {
            out.conds.push(id as u32);
            step_of(repeat, id + 1, out);
            step_of(exit, id + 1 + size(repeat), out);
        }
    }
}

/// True if a path of the tree ends the invocation or spends budget (lanes may retire).
pub fn may_retire(flow: &Flow) -> bool {
    match flow {
        Flow::Do(Effect::Budget, _) | Flow::Goto(Target::Exit) => true,
        Flow::Do(_, rest) => may_retire(rest),
        Flow::Goto(Target::State(_)) => false,
        Flow::If { then, other, .. } => may_retire(then) || may_retire(other),
        Flow::LoopNext { repeat, exit, .. } => may_retire(repeat) || may_retire(exit),
    }
}

/// The scheduled successors of state `s` into `step` (cleared first), with the if-converted
/// branches going to their joins; targets sorted, without repeats.
fn successors(graph: &Graph, conversions: &HashMap<usize, Conversion>, s: usize, step: &mut Step) {
    step.targets.clear();
    step.conds.clear();
    match conversions.get(&s) {
        Some(c) => step.targets.push(c.join),
        None => step_of(&graph.nodes[s].flow, 0, step),
    }
    step.targets.sort_unstable();
    step.targets.dedup();
}

/// The steps of every state as far as the schedule goes, in flat lists: the targets of state
/// `s` are `targets[start[s]..start[s + 1]]`, its per-vertex conditions
/// `conds[cond_start[s]..cond_start[s + 1]]`.
struct Steps {
    start: Vec<u32>,
    targets: Vec<u32>,
    cond_start: Vec<u32>,
    conds: Vec<u32>,
}

impl Steps {
    fn new(graph: &Graph, conversions: &HashMap<usize, Conversion>) -> Steps {
        let n = graph.nodes.len();
        let mut steps = Steps {
            start: Vec::with_capacity(n + 1),
            targets: Vec::with_capacity(2 * n),
            cond_start: Vec::with_capacity(n + 1),
            conds: Vec::new(),
        };
        let mut step = Step::default();
        for s in 0..n {
            steps.start.push(steps.targets.len() as u32);
            steps.cond_start.push(steps.conds.len() as u32);
            successors(graph, conversions, s, &mut step);
            steps.targets.extend(step.targets.iter().map(|&t| t as u32));
            steps.conds.extend_from_slice(&step.conds);
        }
        steps.start.push(steps.targets.len() as u32);
        steps.cond_start.push(steps.conds.len() as u32);
        steps
    }

    fn of(&self, s: usize) -> std::ops::Range<usize> {
        self.start[s] as usize..self.start[s + 1] as usize
    }

    /// True if some per-vertex condition of the step of `s` is not in `uniform`: the lanes
    /// may go to any subset of its targets.
    fn split(&self, s: usize, uniform: &HashSet<NodeId>) -> bool {
        let conds = &self.conds[self.cond_start[s] as usize..self.cond_start[s + 1] as usize];
        conds.iter().any(|&id| !uniform.contains(&(s, id as usize)))
    }
}

/// The scheduled states in priority order: a reverse post-order from the entry, successors
/// with the higher pc (then the higher state number) visited first.
fn priority_order(graph: &Graph, steps: &Steps) -> Vec<usize> {
    let n = graph.nodes.len();
    let mut order = Vec::with_capacity(n);
    let Target::State(entry) = graph.entry else {
        return order;
    };
    // Each state's targets in the order the search visits them.
    let pc = |s: u32| graph.nodes[s as usize].pc;
    let mut visit = steps.targets.clone();
    for s in 0..n {
        visit[steps.of(s)]
            .sort_unstable_by_key(|&x| (std::cmp::Reverse(pc(x)), std::cmp::Reverse(x)));
    }
    let mut seen = vec![false; n];
    // (state, index of the next target of `visit` to look at)
    let mut stack = vec![(entry, steps.start[entry] as usize)];
    seen[entry] = true;
    while let Some((s, i)) = stack.last_mut() {
        if *i < steps.start[*s + 1] as usize {
            let t = visit[*i] as usize;
            *i += 1;
            if !seen[t] {
                seen[t] = true;
                stack.push((t, steps.start[t] as usize));
            }
        } else {
            order.push(*s);
            stack.pop();
        }
    }
    order.reverse();
    order
}

/// Most members a frontier is searched through one by one before it gets a row of bits.
const SHORT: usize = 16;

/// Sets of priorities below `n`, one per state: the members in the order they came, and for
/// a set grown beyond [`SHORT`] members a row of `n` bits to test membership (most frontiers
/// stay short, and `n` rows of `n` bits would be most of the work on a large graph).
struct Frontiers {
    members: Vec<Vec<u32>>,
    /// Per state: its row in `bits`, or `u32::MAX`.
    row: Vec<u32>,
    bits: Vec<u64>,
    width: usize,
}

impl Frontiers {
    fn new(n: usize) -> Frontiers {
        Frontiers {
            members: vec![Vec::new(); n],
            row: vec![u32::MAX; n],
            bits: Vec::new(),
            width: n.div_ceil(64),
        }
    }

    /// Adds `x` to the set of state `s`; true if it was not there.
    fn insert(&mut self, s: usize, x: u32) -> bool {
        let (word, bit) = (x as usize / 64, 1u64 << (x % 64));
        match self.row[s] {
            u32::MAX => {
                let members = &mut self.members[s];
                if members.contains(&x) {
                    return false;
                }
                members.push(x);
                if members.len() > SHORT {
                    let at = self.bits.len();
                    self.row[s] = (at / self.width.max(1)) as u32;
                    self.bits.resize(at + self.width, 0);
                    for &m in members.iter() {
                        self.bits[at + m as usize / 64] |= 1 << (m % 64);
                    }
                }
                true
            }
            r => {
                let w = &mut self.bits[r as usize * self.width + word];
                if *w & bit != 0 {
                    return false;
                }
                *w |= bit;
                self.members[s].push(x);
                true
            }
        }
    }
}

/// The schedule of `graph` with the branches of `conversions` if-converted and the conditions
/// `uniform` compiled as branches of the batch.
pub fn plan(
    graph: &Graph,
    conversions: &HashMap<usize, Conversion>,
    uniform: HashSet<NodeId>,
) -> Plan {
    Schedule::new(graph, conversions).plan(uniform)
}

/// What the schedule of a graph with some branches if-converted owes only to its edges, not
/// to which conditions are uniform: the steps' targets and conditions and the priority order
/// (a search over the targets). Made once, it plans every round of a uniformity search.
pub struct Schedule {
    steps: Steps,
    order: Vec<usize>,
    prio: Vec<u32>,
}

impl Schedule {
    /// The steps and priorities of `graph` with the branches of `conversions` if-converted.
    pub fn new(graph: &Graph, conversions: &HashMap<usize, Conversion>) -> Schedule {
        let steps = Steps::new(graph, conversions);
        let order = priority_order(graph, &steps);
        let mut prio = vec![u32::MAX; graph.nodes.len()];
        for (p, &s) in order.iter().enumerate() {
            prio[s] = p as u32;
        }
        Schedule { steps, order, prio }
    }

    /// The schedule with the conditions `uniform` compiled as branches of the batch.
    pub fn plan(&self, uniform: HashSet<NodeId>) -> Plan {
        let Schedule { steps, order, prio } = self;
        let n = prio.len();
        let (order, prio) = (order.clone(), prio.clone());
        // Frontiers as sets of priorities, per state, their members in the order they came.
        let mut front = Frontiers::new(n);
        let mut done = vec![false; n];
        // The states to visit, lowest priority first, each listed once.
        let mut work = Worklist::new(order.len());
        let mut budget = MAX_FRONTIER_WORK;
        if !order.is_empty() {
            work.push(0);
        }
        // Lists reused from state to state.
        let mut waiting = Vec::new();
        let mut targets = Vec::new();
        let mut o = Vec::new();
        while let Some(p) = work.pop() {
            let s = order[p];
            done[s] = true;
            waiting.clear();
            waiting.extend_from_slice(&front.members[s]);
            targets.clear();
            targets.extend(steps.targets[steps.of(s)].iter().map(|&t| prio[t as usize]));
            let split = steps.split(s, &uniform);
            // The sets of states occupied after this step, each with the waiting states: all the
            // targets when the step may split the lanes, else each target alone, or none (lanes
            // that end or run out of budget go nowhere).
            let sets = if split { 1 } else { targets.len() + 1 };
            for set in 0..sets {
                o.clear();
                o.extend_from_slice(&waiting);
                if split {
                    o.extend_from_slice(&targets);
                } else if let Some(&t) = targets.get(set) {
                    o.push(t);
                }
                o.sort_unstable();
                o.dedup();
                for (i, &next) in o.iter().enumerate() {
                    let ns = order[next as usize];
                    let mut changed = !done[ns];
                    for &x in &o[i + 1..] {
                        changed |= front.insert(ns, x);
                    }
                    match budget.checked_sub(o.len() - i) {
                        Some(left) => budget = left,
                        None => {
                            return Plan {
                                order,
                                prio,
                                frontiers: Vec::new(),
                                frontier_start: Vec::new(),
                                merge: vec![true; n],
                                uniform,
                                coarse: true,
                            }
                        }
                    }
                    if changed {
                        work.push(next as usize);
                    }
                }
            }
        }
        let mut merge = vec![false; n];
        let total = front.members.iter().map(Vec::len).sum();
        let mut frontiers = Vec::with_capacity(total);
        let mut frontier_start = Vec::with_capacity(n + 1);
        for f in &mut front.members {
            frontier_start.push(frontiers.len() as u32);
            f.sort_unstable();
            frontiers.extend(f.iter().map(|&p| {
                let x = order[p as usize];
                merge[x] = true;
                x
            }));
        }
        frontier_start.push(frontiers.len() as u32);
        Plan {
            order,
            prio,
            frontiers,
            frontier_start,
            merge,
            uniform,
            coarse: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use rustc_hash::{FxHashMap, FxHashSet};

    use super::{size, NodeId, Plan, Schedule};
    use crate::frontend::graph::{self, Cond, Flow};
    use crate::synthetic::{program, Shape};

    /// True if some cc test or loop test of the tree (node numbers from `id`) is not in
    /// `uniform`, by walking it: the reference for `Steps::split`.
    fn split_by_tree(flow: &Flow, s: usize, id: usize, uniform: &FxHashSet<NodeId>) -> bool {
        match flow {
            Flow::Do(_, rest) => split_by_tree(rest, s, id + 1, uniform),
            Flow::Goto(_) => false,
            Flow::If { cond, then, other } => {
                (matches!(cond, Cond::Cc(_)) && !uniform.contains(&(s, id)))
                    || split_by_tree(then, s, id + 1, uniform)
                    || split_by_tree(other, s, id + 1 + size(then), uniform)
            }
            Flow::LoopNext { repeat, exit, .. } => {
                !uniform.contains(&(s, id))
                    || split_by_tree(repeat, s, id + 1, uniform)
                    || split_by_tree(exit, s, id + 1 + size(repeat), uniform)
            }
        }
    }

    fn same(a: &Plan, b: &Plan) -> bool {
        let frontiers = |p: &Plan| (0..p.prio.len()).map(|s| p.frontier(s).to_vec()).collect();
        let (fa, fb): (Vec<Vec<usize>>, Vec<Vec<usize>>) = (frontiers(a), frontiers(b));
        (&a.order, &a.prio, &fa, &a.merge, a.coarse) == (&b.order, &b.prio, &fb, &b.merge, b.coarse)
    }

    /// On generated branchy programs, one schedule planned for several choices of uniform
    /// conditions (none, every other one, all) gives each time the plan a schedule made for
    /// that choice alone gives, and its steps split the lanes exactly where walking the
    /// decision trees says.
    #[test]
    fn one_schedule_plans_every_round() {
        let mut splits = 0;
        for (size, seed) in [(50, 1), (200, 2), (500, 3), (1000, 4)] {
            let p = program(Shape::Branchy, size, seed).expect("generated");
            let g = graph::explore(&p, graph::MAX_STATES).expect("explored");
            let none = FxHashMap::default();
            let schedule = Schedule::new(&g, &none);
            let conds: Vec<NodeId> = (0..g.nodes.len())
                .flat_map(|s| {
                    let steps = &schedule.steps;
                    let ids = steps.cond_start[s] as usize..steps.cond_start[s + 1] as usize;
                    steps.conds[ids].iter().map(move |&id| (s, id as usize))
                })
                .collect();
            for pick in 0..3 {
                let uniform: FxHashSet<NodeId> = conds
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| pick == 2 || (pick == 1 && i % 2 == 0))
                    .map(|(_, &c)| c)
                    .collect();
                for (s, node) in g.nodes.iter().enumerate() {
                    let split = split_by_tree(&node.flow, s, 0, &uniform);
                    assert_eq!(schedule.steps.split(s, &uniform), split);
                    splits += usize::from(split);
                }
                let reused = schedule.plan(uniform.clone());
                let fresh = Schedule::new(&g, &none).plan(uniform);
                assert!(
                    same(&reused, &fresh),
                    "branchy:{size}:{seed}, choice {pick}"
                );
            }
        }
        assert!(splits > 100, "{splits} splitting steps");
    }
}
