//! Masked regions: per-vertex branches that send some lanes ahead to a *join* state while the
//! others run on through code with control flow of its own — a BREAKC out of a loop, a JMPC
//! or IFC forward over a loop or a call, an early END — without splitting the batch.
//!
//! A region is a set of abstract states `R` and a join `J` (a state or the end of the
//! invocation) such that every edge leaving `R` goes to `J`. A *fork* is a per-vertex cc
//! branch, in `R` or just before it, one of whose arms goes straight to `J` (effects only, no
//! budget). The region has a lane mask `m`: the lanes still inside. Entering `R` from outside
//! sets `m` to every lane (no lane can be waiting at `J` then: `R` only exits to `J`, where
//! all lanes meet again); a fork clears the lanes that leave, then branches with
//! `BranchAny`: lanes left → stay in `R`, none → take the leaving arm with its effects to `J`.
//! Every state of `R` runs its arithmetic under `m` (writes keep the old value in other
//! lanes, as if-converted arms do), so the lanes that left early reach `J` with the registers
//! they had when they left. Control inside `R` is batch-scalar as everywhere: it is the control
//! of the lanes still inside.
//!
//! What stays exact and how:
//! - **aL** is batch-scalar, so at `J` the lanes that left early may disagree with it. A
//!   region is made only if every way into `J` ends by restoring aL from the same loop slot
//!   (a nested loop's exit), or no state reachable from `J` reads aL or restores it.
//! - **a0** writes (MOVA) cannot be masked (the IR has no integer select): no MOVA that writes
//!   in `R`. A geometry shader's EMIT and SETEMIT act for the lanes of the mask
//!   (`super::emitter`).
//! - **Budget.** Every lane counts its own budget: a step spends in the lanes running it; a
//!   lane with none left is retired with status "exhausted" (its outputs kept) and leaves
//!   every mask while the others go on, exactly as the interpreter counts. So that a region
//!   emptied that way cannot go round a cycle with no lane in it, a program gets regions only
//!   if every such cycle is bounded by a LOOP count ([`Regions::empty_runs_end`]); else it is
//!   built in the lane-position model.
//! - Regions nest: a region inside another (its fork and states in the outer one, its join a
//!   state of it) starts with the outer mask instead of every lane. Otherwise regions do not
//!   overlap; a per-vertex branch that fits no region runs in the lane-position model.

use crate::isa::{AddrIdx, Instruction, OpDesc};

use super::graph::{Cond, Effect, Flow, Graph, Target};
use super::ifconv::Conversion;

/// How aL is the same for every lane at the join.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlJoin {
    /// The join is the end, or nothing reachable from it reads aL.
    Dead,
    /// Every way into the join restores aL from this loop slot.
    Restored(u8),
}

/// A masked region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Its states, ascending.
    pub states: Vec<usize>,
    /// Where its lanes meet again.
    pub join: Target,
    /// Forks: the branching state and whether its `then` arm is the one leaving.
    pub forks: Vec<(usize, bool)>,
    pub al: AlJoin,
    /// The region this one lies in (its states and join are states of that region).
    pub parent: Option<usize>,
}

/// The regions of a function and the region of each state.
#[derive(Clone, Debug, Default)]
pub struct Regions {
    pub list: Vec<Region>,
    /// Per state: the region it belongs to.
    pub of: Vec<Option<usize>>,
    /// Per state: the region it forks and whether its `then` arm leaves.
    forks_at: Vec<Option<(usize, bool)>>,
    /// States visited so far looking for regions (bounded by [`MAX_WORK`]).
    work: usize,
    /// Forks made so far: the regions change only when this grows.
    made: u32,
    /// Per state: the value of `made` when [`Regions::add_fork`] last failed on it
    /// (`u32::MAX`: never). A try that failed fails again while no fork is made (see
    /// [`Regions::could_fork`]).
    failed: Vec<u32>,
    /// The state graph's edges for the searches ([`Walk`]), made at the first search.
    walk: Walk,
}

/// Most states visited looking for regions in one function: beyond it, per-vertex branches
/// that need a new region run in the lane-position model (only programs with thousands of
/// control states and hundreds of per-vertex branches get there).
pub const MAX_WORK: usize = 200_000;

impl Regions {
    pub fn new(states: usize) -> Regions {
        Regions {
            list: Vec::new(),
            of: vec![None; states],
            forks_at: vec![None; states],
            work: 0,
            made: 0,
            failed: vec![u32::MAX; states],
            walk: Walk::default(),
        }
    }

    /// The region of state `s` and whether `s` forks it with its `then` arm leaving.
    pub fn fork_of(&self, s: usize) -> Option<(usize, bool)> {
        self.forks_at.get(s).copied().flatten()
    }

    /// Number of forks.
    pub fn forks(&self) -> usize {
        self.list.iter().map(|r| r.forks.len()).sum()
    }

    /// Tries to make the per-vertex branch of state `s` a fork (of a new region, or of the
    /// region it is in); true if it did.
    pub fn add_fork(
        &mut self,
        graph: &Graph,
        descs: &[u32],
        conversions: &rustc_hash::FxHashMap<usize, Conversion>,
        s: usize,
    ) -> bool {
        let made = self.try_fork(graph, descs, conversions, s);
        match (made, self.failed.get_mut(s)) {
            (true, _) => self.made += 1,
            (false, Some(at)) => *at = self.made,
            (false, None) => {}
        }
        made
    }

    /// [`Regions::add_fork`] without the bookkeeping of what failed.
    fn try_fork(
        &mut self,
        graph: &Graph,
        descs: &[u32],
        conversions: &rustc_hash::FxHashMap<usize, Conversion>,
        s: usize,
    ) -> bool {
        let Flow::If {
            cond: Cond::Cc(_),
            then,
            other,
        } = &graph.nodes[s].flow
        else {
            return false;
        };
        for (leave_is_then, leave, stay) in [(true, then, other), (false, other, then)] {
            let Some((effects, join)) = straight(leave) else {
                continue;
            };
            let outer = self.of[s];
            if let Some(r) = outer {
                // A further fork of the region it is in.
                let region = &self.list[r];
                if region.join == join && al_agrees(region.al, &effects) {
                    self.list[r].forks.push((s, leave_is_then));
                    self.forks_at[s] = Some((r, leave_is_then));
                    return true;
                }
                // Else a region nested in it: its join must be a state of that region.
                let Target::State(j) = join else { continue };
                if self.of[j] != outer {
                    continue;
                }
            }
            if self.work > MAX_WORK {
                return false;
            }
            let Some(states) = self.walk.closure(graph, stay, join, &mut self.work) else {
                continue;
            };
            // Regions already made inside the new one (whole, with their joins) become its
            // children: `top(x)` is the region directly in `outer` that state x lies in.
            let top = |x: usize| {
                let mut k = self.of[x]?;
                while self.list[k].parent != outer {
                    k = self.list[k].parent?;
                }
                Some(k)
            };
            let inside = |k: usize| {
                let region = &self.list[k];
                region
                    .states
                    .iter()
                    .all(|x| states.binary_search(x).is_ok())
                    && matches!(region.join, Target::State(j) if states.binary_search(&j).is_ok())
            };
            let runs_masked = |x: &usize| {
                (self.of[*x] == outer || top(*x).is_some_and(inside))
                    && maskable(&graph.nodes[*x].instr, descs)
                    && conversions.get(x).map_or(true, |c| {
                        c.then
                            .iter()
                            .chain(&c.other)
                            .all(|a| states.binary_search(a).is_ok())
                    })
            };
            if !states.iter().all(runs_masked) {
                continue;
            }
            let Some(al) = al_at_join(graph, &states, &effects, join, &mut self.work) else {
                continue;
            };
            let r = self.list.len();
            let children: Vec<usize> = states
                .iter()
                .filter(|&&x| self.of[x] != outer)
                .filter_map(|&x| top(x))
                .collect();
            for &x in &states {
                if self.of[x] == outer {
                    self.of[x] = Some(r);
                }
            }
            for k in children {
                self.list[k].parent = Some(r);
            }
            self.forks_at[s] = Some((r, leave_is_then));
            self.list.push(Region {
                states,
                join,
                forks: vec![(s, leave_is_then)],
                al,
                parent: outer,
            });
            return true;
        }
        false
    }

    /// The states of `states` that [`Regions::add_fork`] would make a fork now (each tried on
    /// its own, with the work spent so far: a try that fails changes nothing but the work
    /// count).
    ///
    /// A state whose last try failed after the last fork made is not tried again: what a try
    /// looks at is the state graph (fixed), the regions (unchanged since), the conversions
    /// (only ever added to, and each one added only makes a region's states less likely to
    /// all run masked) and the work spent (only ever more).
    pub fn could_fork(
        &self,
        graph: &Graph,
        descs: &[u32],
        conversions: &rustc_hash::FxHashMap<usize, Conversion>,
        states: impl IntoIterator<Item = usize>,
    ) -> Vec<usize> {
        let fresh = states
            .into_iter()
            .filter(|&s| self.failed.get(s) != Some(&self.made));
        self.could_fork_each(graph, descs, conversions, fresh)
    }

    /// [`Regions::could_fork`], trying every state of `states`.
    fn could_fork_each(
        &self,
        graph: &Graph,
        descs: &[u32],
        conversions: &rustc_hash::FxHashMap<usize, Conversion>,
        states: impl IntoIterator<Item = usize>,
    ) -> Vec<usize> {
        let mut trial = self.clone();
        let mut could = Vec::new();
        for s in states {
            if trial.try_fork(graph, descs, conversions, s) {
                could.push(s);
                trial = self.clone();
            }
            trial.work = self.work;
        }
        could
    }

    /// True if a batch runs out of every region in a bounded number of steps once no lane is
    /// left inside (in a vertex shader, lanes whose budget runs out leave every mask): over
    /// the states of the regions, where a fork only takes its leaving arm (with an empty mask
    /// no lane stays), every cycle repeats a LOOP that nothing on the cycle loads again (its
    /// count bounds the cycle), cycles within those cycles likewise. Otherwise a region could
    /// go on with no lane in it and no budget spent, while other lanes wait at its join.
    pub fn empty_runs_end(&self, graph: &Graph) -> bool {
        let inside = |x: usize| self.of[x].is_some();
        // Edges between states of regions: (from, to, slot repeated, slots loaded on the way).
        let mut edges: Vec<(usize, usize, Option<u8>, u8)> = Vec::new();
        for s in (0..graph.nodes.len()).filter(|&s| inside(s)) {
            let flow = &graph.nodes[s].flow;
            let leave = match (self.fork_of(s), flow) {
                (Some((_, true)), Flow::If { then, .. }) => Some(then.as_ref()),
                (Some((_, false)), Flow::If { other, .. }) => Some(other.as_ref()),
                (None, Flow::If { .. } | Flow::Do(..) | Flow::Goto(_) | Flow::LoopNext { .. })
                | (Some(_), Flow::Do(..) | Flow::Goto(_) | Flow::LoopNext { .. }) => None,
            };
            let mut out = Vec::new();
            loop_edges(leave.unwrap_or(flow), None, 0, &mut out);
            for (t, repeat, pushes) in out {
                if let Target::State(x) = t {
                    if inside(x) {
                        edges.push((s, x, repeat, pushes));
                    }
                }
            }
        }
        loop {
            let comp = components(graph.nodes.len(), &edges);
            // Per component with a cycle: the slots its edges load.
            let mut loads: rustc_hash::FxHashMap<usize, u8> = Default::default();
            for &(f, t, _, pushes) in &edges {
                if comp[f] == comp[t] {
                    *loads.entry(comp[f]).or_default() |= pushes;
                }
            }
            if loads.is_empty() {
                return true;
            }
            // Each cycle's repeats of loops it never reloads bound it: drop them and look at
            // the cycles left.
            let before = edges.len();
            edges.retain(|&(f, t, repeat, _)| match (repeat, loads.get(&comp[f])) {
                (Some(slot), Some(&l)) if comp[f] == comp[t] => l >> slot & 1 != 0,
                _ => true,
            });
            if edges.len() == before {
                return false;
            }
        }
    }
}

/// Strongly connected components of a graph with `n` nodes (Kosaraju, iterative): each
/// node's component number.
fn components(n: usize, edges: &[(usize, usize, Option<u8>, u8)]) -> Vec<usize> {
    let mut succ = vec![Vec::new(); n];
    let mut pred = vec![Vec::new(); n];
    for &(f, t, _, _) in edges {
        succ[f].push(t);
        pred[t].push(f);
    }
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for start in 0..n {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let mut stack = vec![(start, 0usize)];
        while let Some((x, i)) = stack.last_mut() {
            match succ[*x].get(*i).copied() {
                Some(y) => {
                    *i += 1;
                    if !seen[y] {
                        seen[y] = true;
                        stack.push((y, 0));
                    }
                }
                None => {
                    order.push(*x);
                    stack.pop();
                }
            }
        }
    }
    let mut comp = vec![usize::MAX; n];
    for &root in order.iter().rev() {
        if comp[root] != usize::MAX {
            continue;
        }
        comp[root] = root;
        let mut stack = vec![root];
        while let Some(x) = stack.pop() {
            for &y in &pred[x] {
                if comp[y] == usize::MAX {
                    comp[y] = root;
                    stack.push(y);
                }
            }
        }
    }
    comp
}

/// The effects and target of a flow that is effects then a goto, without budget or loop entry.
fn straight(flow: &Flow) -> Option<(Vec<Effect>, Target)> {
    let mut effects = Vec::new();
    let mut f = flow;
    loop {
        match f {
            Flow::Do(e @ (Effect::AlInc { .. } | Effect::AlRestore(_)), rest) => {
                effects.push(*e);
                f = rest;
            }
            Flow::Goto(t) => return Some((effects, *t)),
            Flow::Do(Effect::Budget | Effect::LoopPush { .. }, _)
            | Flow::If { .. }
            | Flow::LoopNext { .. } => return None,
        }
    }
}

/// The targets of a decision tree, each with the slot of the LOOP it repeats (if it is on the
/// repeat arm of a loop's closing test) and the slots its `LoopPush`es load on the way (bits).
fn loop_edges(
    flow: &Flow,
    repeat: Option<u8>,
    pushes: u8,
    out: &mut Vec<(Target, Option<u8>, u8)>,
) {
    match flow {
        Flow::Do(e, rest) => {
            let pushes = match e {
                Effect::LoopPush { slot, .. } => pushes | 1 << (slot & 7),
                Effect::AlInc { .. } | Effect::AlRestore(_) | Effect::Budget => pushes,
            };
            loop_edges(rest, repeat, pushes, out);
        }
        Flow::Goto(t) => out.push((*t, repeat, pushes)),
        Flow::If { then, other, .. } => {
            loop_edges(then, repeat, pushes, out);
            loop_edges(other, repeat, pushes, out);
        }
        Flow::LoopNext {
            slot,
            repeat: again,
            exit,
        } => {
            loop_edges(again, Some(*slot), pushes, out);
            loop_edges(exit, repeat, pushes, out);
        }
    }
}

/// The state graph's edges as flat lists, for the searches of [`Regions::add_fork`]: per
/// state its targets in the order [`Flow::each_target`] gives them (an edge to the end of the
/// invocation as `u32::MAX`), and marks of the states a search has seen.
#[derive(Clone, Debug, Default)]
struct Walk {
    /// The targets of state `x` are `targets[start[x]..start[x + 1]]`; empty until the first
    /// search.
    start: Vec<u32>,
    targets: Vec<u32>,
    /// Per state: the number of the last search that saw it.
    seen: Vec<u32>,
    /// The number of the current search.
    search: u32,
}

/// An edge to the end of the invocation in [`Walk::targets`].
const TO_EXIT: u32 = u32::MAX;

/// A target as [`Walk::targets`] lists it.
fn flat(t: Target) -> u32 {
    match t {
        Target::State(x) => x as u32,
        Target::Exit => TO_EXIT,
    }
}

impl Walk {
    /// [`closure`], over the flat edges (made the first time): the same states visited in the
    /// same order, so the same work counted.
    fn closure(
        &mut self,
        graph: &Graph,
        stay: &Flow,
        join: Target,
        work: &mut usize,
    ) -> Option<Vec<usize>> {
        let n = graph.nodes.len();
        if self.start.len() != n + 1 {
            self.start.clear();
            self.targets.clear();
            self.start.push(0);
            for node in &graph.nodes {
                node.flow.each_target(&mut |t| {
                    self.targets.push(flat(t));
                    true
                });
                self.start.push(self.targets.len() as u32);
            }
            self.seen = vec![0; n];
            self.search = 0;
        }
        self.search += 1;
        let Walk {
            start,
            targets,
            seen,
            search,
        } = self;
        let search = *search;
        let join = flat(join);
        let mut stack = Vec::new();
        let mut states = Vec::new();
        // False for an edge out of the region (to the end, when that is not the join).
        let mut push = |t: u32, stack: &mut Vec<u32>| -> bool {
            if t == join {
                return true;
            }
            let Some(mark) = seen.get_mut(t as usize) else {
                return false;
            };
            if *mark != search {
                *mark = search;
                stack.push(t);
                states.push(t as usize);
            }
            true
        };
        let mut first = true;
        stay.each_target(&mut |t| {
            first = push(flat(t), &mut stack);
            first
        });
        if !first {
            return None;
        }
        while let Some(x) = stack.pop() {
            *work += 1;
            let x = x as usize;
            for &t in &targets[start[x] as usize..start[x + 1] as usize] {
                if !push(t, &mut stack) {
                    return None;
                }
            }
        }
        states.sort_unstable();
        (!states.is_empty()).then_some(states)
    }
}

/// The states reachable from `stay` without passing `join` (ascending), if every way out of
/// them goes to `join` and there is at least one. (The reference for [`Walk::closure`].)
#[cfg(test)]
fn closure(graph: &Graph, stay: &Flow, join: Target, work: &mut usize) -> Option<Vec<usize>> {
    let mut seen = vec![false; graph.nodes.len()];
    let mut stack = Vec::new();
    let mut push = |t: Target, stack: &mut Vec<usize>| -> bool {
        match t {
            _ if t == join => true,
            Target::Exit => false,
            Target::State(x) => {
                if !seen[x] {
                    seen[x] = true;
                    stack.push(x);
                }
                true
            }
        }
    };
    if !stay.each_target(&mut |t| push(t, &mut stack)) {
        return None;
    }
    while let Some(x) = stack.pop() {
        *work += 1;
        if !graph.nodes[x]
            .flow
            .each_target(&mut |t| push(t, &mut stack))
        {
            return None;
        }
    }
    let states: Vec<usize> = (0..seen.len()).filter(|&x| seen[x]).collect();
    (!states.is_empty()).then_some(states)
}

/// True if the instruction can run under a lane mask: anything but a MOVA that writes a0.
/// (Flow instructions are the region's batch-scalar control; every other instruction's writes
/// are blended by the mask, and a geometry shader's EMIT and SETEMIT act for its lanes,
/// `super::emitter`.)
fn maskable(instr: &Instruction, descs: &[u32]) -> bool {
    if let Instruction::Mova(f) = instr {
        let d = OpDesc(descs[f.desc as usize & 0x7F]);
        return !d.writes(0) && !d.writes(1);
    }
    true
}

/// The aL effect a path ends with, as far as agreement goes: the slot it last restores from,
/// or `None` if its last aL effect is not a restore (or it has none).
fn last_restore(effects: &[Effect]) -> Option<u8> {
    effects.iter().rev().find_map(|e| match *e {
        Effect::AlRestore(slot) => Some(Some(slot)),
        Effect::AlInc { .. } | Effect::LoopPush { .. } => Some(None),
        Effect::Budget => None,
    })?
}

fn al_agrees(al: AlJoin, effects: &[Effect]) -> bool {
    match al {
        AlJoin::Dead => true,
        AlJoin::Restored(slot) => last_restore(effects) == Some(slot),
    }
}

/// How aL agrees at the join of a region with these states and first leaving arm, if it does.
fn al_at_join(
    graph: &Graph,
    states: &[usize],
    leaving: &[Effect],
    join: Target,
    work: &mut usize,
) -> Option<AlJoin> {
    let Target::State(j) = join else {
        return Some(AlJoin::Dead);
    };
    let slot = last_restore(leaving);
    if slot.is_some()
        && states
            .iter()
            .all(|&x| restores_into(&graph.nodes[x].flow, None, join, slot))
    {
        return slot.map(AlJoin::Restored);
    }
    al_dead_from(graph, j, work).then_some(AlJoin::Dead)
}

/// True if every path of the tree that goes to `join` ends with aL restored from `slot`
/// (`last`: the restore so far on the path, as [`last_restore`] reads it).
fn restores_into(flow: &Flow, last: Option<u8>, join: Target, slot: Option<u8>) -> bool {
    match flow {
        Flow::Do(e, rest) => {
            let last = match *e {
                Effect::AlRestore(s) => Some(s),
                Effect::AlInc { .. } | Effect::LoopPush { .. } => None,
                Effect::Budget => last,
            };
            restores_into(rest, last, join, slot)
        }
        Flow::Goto(t) => *t != join || last == slot,
        Flow::If { then, other, .. } => {
            restores_into(then, last, join, slot) && restores_into(other, last, join, slot)
        }
        Flow::LoopNext { repeat, exit, .. } => {
            restores_into(repeat, last, join, slot) && restores_into(exit, last, join, slot)
        }
    }
}

/// True if the tree restores aL from a loop slot on some path.
fn restores_al(flow: &Flow) -> bool {
    match flow {
        Flow::Do(Effect::AlRestore(_), _) => true,
        Flow::Do(Effect::AlInc { .. } | Effect::LoopPush { .. } | Effect::Budget, rest) => {
            restores_al(rest)
        }
        Flow::Goto(_) => false,
        Flow::If { then, other, .. } => restores_al(then) || restores_al(other),
        Flow::LoopNext { repeat, exit, .. } => restores_al(repeat) || restores_al(exit),
    }
}

/// True if no state reachable from `j` (itself included) reads aL through relative
/// addressing or restores aL from a loop slot.
fn al_dead_from(graph: &Graph, j: usize, work: &mut usize) -> bool {
    let mut seen = vec![false; graph.nodes.len()];
    let mut stack = vec![j];
    seen[j] = true;
    while let Some(x) = stack.pop() {
        *work += 1;
        let node = &graph.nodes[x];
        if node.instr.alu().is_some_and(|ops| ops.idx == AddrIdx::AL) || restores_al(&node.flow) {
            return false;
        }
        node.flow.each_target(&mut |t| {
            if let Target::State(y) = t {
                if !seen[y] {
                    seen[y] = true;
                    stack.push(y);
                }
            }
            true
        });
    }
    true
}

#[cfg(test)]
mod tests {
    use rustc_hash::FxHashMap;

    use super::{closure, straight, Regions, Walk};
    use crate::frontend::graph::{self, Cond, Flow};
    use crate::synthetic::{program, Shape};

    /// The explored graphs of generated branchy programs, vertex and geometry.
    fn graphs() -> Vec<(crate::program::Program, graph::Graph)> {
        [(50, 1), (200, 2), (500, 3), (700, 4), (1000, 5), (2000, 6)]
            .into_iter()
            .map(|(size, seed)| {
                let p = program(Shape::Branchy, size, seed).expect("generated");
                let g = graph::explore(&p, graph::MAX_STATES).expect("explored");
                (p, g)
            })
            .collect()
    }

    /// The search over flat edges finds the states the search over the decision trees finds,
    /// counting the same work, for both arms of every cc branch of generated programs (each
    /// arm that goes straight to a join: the searches `add_fork` makes), with one `Walk`
    /// reused for all of them.
    #[test]
    fn flat_closure_matches_the_tree_search() {
        let (mut found, mut failed) = (0, 0);
        for (_, g) in graphs() {
            let mut walk = Walk::default();
            for node in &g.nodes {
                let Flow::If {
                    cond: Cond::Cc(_),
                    then,
                    other,
                } = &node.flow
                else {
                    continue;
                };
                for (leave, stay) in [(then, other), (other, then)] {
                    let Some((_, join)) = straight(leave) else {
                        continue;
                    };
                    let (mut w1, mut w2) = (7, 7);
                    let tree = closure(&g, stay, join, &mut w1);
                    let flat = walk.closure(&g, stay, join, &mut w2);
                    assert_eq!(flat, tree);
                    assert_eq!(w2, w1);
                    match tree {
                        Some(_) => found += 1,
                        None => failed += 1,
                    }
                }
            }
        }
        assert!(found > 10 && failed > 10, "{found} found, {failed} failed");
    }

    /// Leaving out the states whose last try failed since the last fork made, `could_fork`
    /// answers what trying every state answers, after every step of a round that tries each
    /// cc branch of a generated program in turn (some become forks, most do not).
    #[test]
    fn could_fork_skips_only_what_fails() {
        let mut made = 0;
        let mut asked = 0;
        for (p, g) in graphs() {
            let none = FxHashMap::default();
            let mut regions = Regions::new(g.nodes.len());
            let branches: Vec<usize> = (0..g.nodes.len())
                .filter(|&s| {
                    matches!(
                        g.nodes[s].flow,
                        Flow::If {
                            cond: Cond::Cc(_),
                            ..
                        }
                    )
                })
                .collect();
            for &s in &branches {
                made += usize::from(regions.add_fork(&g, &p.descs, &none, s));
                let all = regions.could_fork_each(&g, &p.descs, &none, branches.clone());
                let skipping = regions.could_fork(&g, &p.descs, &none, branches.clone());
                assert_eq!(skipping, all, "state {s}");
                asked += 1;
            }
        }
        assert!(made > 0 && asked > 50, "{made} forks made, {asked} asked");
    }
}
