//! The lane-position model: per-vertex control flow of any shape, run natively under lane
//! masks — no lane waits for another to agree, no batch is ever rerun.
//!
//! Each lane of the batch sits at an abstract state of the graph (the interpreter's stacks are
//! part of the state, so the quirks stay exact). The batch runs one state at a time, for the
//! lanes that sit there (the `exec` mask), picking the next state by the fixed priority order
//! of [`super::frontier`] so that lanes meet again where their paths join. Everything the
//! interpreter keeps per invocation is per lane: registers, aL, the loop counters and saved aL
//! of the loop slots, the step budget, the status.
//!
//! The IR of a state:
//! - its ALU instruction, writing under `exec` unless the state is *converged* (no lane waits
//!   elsewhere: the lanes not running are retired, and what they hold no longer matters);
//! - its step's decision tree: a condition known to be the same in every running lane (a bool
//!   uniform; a cc test or loop test [`Plan::uniform`] says is) is a branch of the batch; any
//!   other condition splits the running lanes into two paths, both emitted one after the other
//!   under their masks. Effects (loop entry, aL, loop counters, budget) apply to the lanes of
//!   their path. A lane whose budget runs out is retired with status "exhausted" (`Retire`),
//!   a lane that ends is retired with status "ended": its outputs are kept as its results;
//! - the schedule: each lane's position (`pos`, a state number) is set to its target, and the
//!   batch goes to the first state of the frontier and the targets (by priority) that has
//!   lanes: `exec = (pos == state)`, `BranchAny`. When all lanes of a path go to one state
//!   that nothing of higher priority waits for and nobody waits at, the batch just jumps
//!   there. When no lane is left anywhere, the batch ends.
//!
//! A block never runs with no lane, so every loop of the IR advances some lane, and each lane's
//! path is bounded by its own budget.

use rustc_hash::FxHashMap as HashMap;

use picajit_codegen::ir::{BlockId, Builder, Op, Terminator, Ty, Var};

use crate::program::Program;

use super::bodies::{self, Recording, Sources};
use super::build::Ctx;
use super::frontier::{self, NodeId, Plan};
use super::graph::{Cond, Effect, Flow, Graph, Target};
use super::ifconv::{self, Conversion};
use super::masked::Regions;
use super::regs::Regs;

/// The position of a retired lane: after every state's priority.
const RETIRED: u32 = i32::MAX as u32;

/// Most candidates a step's schedule tests one by one; with more, it goes through the
/// function's shared dispatch (the lowest position over the lanes, then a binary search).
const CHAIN: usize = 12;

/// The lanes a path of a step runs for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Every lane running the state (`exec`).
    Full,
    /// The lanes of a mask (a subset of `exec`).
    Lanes(Var),
}

/// The per-lane control state of a function built in the lane-position model.
pub struct Lanes<'a> {
    pub plan: &'a Plan,
    /// The lanes running the current block.
    pub exec: Var,
    /// Per lane: the priority of the state it waits at, or [`RETIRED`].
    pub pos: Var,
    /// Per lane: backward transfers left.
    pub budget: Var,
    /// Per loop slot: repeats left, and the aL saved on entry.
    pub down: Vec<Var>,
    pub saved: Vec<Var>,
    /// Where each per-vertex condition was computed: its node, block and mask (for the
    /// uniformity check).
    pub sites: Vec<(NodeId, BlockId, Var)>,
    /// The shared dispatch, once some schedule needed it (filled in at the end, when every
    /// position a lane can wait at is known).
    pub dispatch: Option<BlockId>,
    /// Per priority: some lane may wait there (its position is written somewhere).
    pub waits: Vec<bool>,
    /// Lists a schedule works in, kept from one step to the next.
    pub lists: ScheduleLists,
}

/// The lists of [`Ctx::schedule`]: per target state the mask of its lanes, the candidates
/// to go to next, and the targets no lane waits at; and the emptied lists of targets reached
/// (`Ctx::lp_flow`'s `leaves`) that a schedule handed back, for the next steps to fill.
#[derive(Default)]
pub struct ScheduleLists {
    targets: Vec<(usize, Var)>,
    candidates: Vec<usize>,
    direct: Vec<(usize, Var)>,
    spare: Vec<Vec<(Target, Path)>>,
}

/// A pending arm of a step split by a per-lane condition: its tree, node number and lanes.
type Pending<'f> = (&'f Flow, usize, Path);

/// A function built in the lane-position model.
pub(super) struct LaneBuilt {
    pub func: picajit_codegen::ir::Function,
    /// Where each per-vertex condition was computed (see [`Lanes::sites`]).
    pub sites: Vec<(NodeId, BlockId, Var)>,
    /// The head block of each state.
    pub heads: Vec<BlockId>,
    /// The `exec` mask variable.
    pub exec: Var,
    /// The states the shared dispatch reaches (none if no schedule goes through it).
    pub dispatched: Vec<usize>,
    /// Where each state's ALU code went, for the next build to copy.
    pub bodies: Recording,
}

/// Builds the IR of an explored program in the lane-position model with the schedule `plan`,
/// copying the ALU code of the states whose code a build of `from` holds unchanged.
pub(super) fn build(
    program: &Program,
    graph: &Graph,
    live: &super::live::Liveness,
    conversions: &HashMap<usize, Conversion>,
    plan: &Plan,
    from: Sources<'_>,
) -> LaneBuilt {
    // About 1.15 blocks, 5.4 variables and 6.5 instructions per state (generated branchy
    // programs): room for them up front rather than growing the lists as they fill.
    let n = graph.nodes.len();
    let mut b = Builder::with_capacity(0, 6 * n + 256);
    b.reserve_blocks(n + n / 4 + 16);
    b.use_loop_slots(graph.loop_slots);
    // Outputs written under a mask need a variable holding their current value.
    let predicated = conversions
        .values()
        .flat_map(|c| c.then.iter().chain(&c.other).copied());
    let divergent = plan.order.iter().copied().filter(|&s| !plan.converged(s));
    let geometry = program.kind == crate::program::ShaderKind::Geometry;
    let tracked = if geometry {
        ifconv::tracked_outputs(graph, &program.descs, 0..graph.nodes.len())
    } else {
        ifconv::tracked_outputs(graph, &program.descs, predicated.chain(divergent))
    };
    let mut regs = Regs::new(&mut b, &tracked);
    let al = b.var(Ty::I32);
    regs.al = Some(al);
    // No hash-consing: the function has many blocks.
    let mut off = super::cons::Values::off();
    regs.init(&mut b, &mut off, live, false);
    if geometry {
        regs.emitter = Some(super::emitter::Emitter::new(
            &mut b, &mut off, &tracked, graph,
        ));
    }
    let exec = b.var(Ty::Mask);
    let pos = b.var(Ty::I32);
    let budget = b.var(Ty::I32);
    let slots = usize::from(graph.loop_slots);
    let down: Vec<Var> = (0..slots).map(|_| b.var(Ty::I32)).collect();
    let saved: Vec<Var> = (0..slots).map(|_| b.var(Ty::I32)).collect();
    b.inst_to(Op::MaskConst, exec, &[], [1, 0]);
    b.inst_to(Op::IConst, pos, &[], [RETIRED, 0]);
    b.inst_to(Op::BudgetLanes, budget, &[], [0, 0]);
    for &v in std::iter::once(&al).chain(&down).chain(&saved) {
        b.inst_to(Op::IConst, v, &[], [0, 0]);
    }
    let mut bodies = Recording {
        of: vec![None; graph.nodes.len()],
        tracked,
        fixed: b.vars_len() as u32,
        copied: 0,
    };
    let entry = b.current();
    let heads: Vec<BlockId> = graph.nodes.iter().map(|_| b.block()).collect();
    let exit = b.block();
    let regions = Regions::new(0);
    let mut cx = Ctx {
        b,
        scratch: super::alu::Scratch::new(super::cons::Values::off()),
        regs,
        heads,
        exit,
        descs: &program.descs,
        graph,
        cc_branches: Vec::new(),
        regions: &regions,
        masks: Vec::new(),
        forking: None,
        lane_budget: None,
        lanes: Some(Lanes {
            plan,
            exec,
            pos,
            budget,
            down,
            saved,
            sites: Vec::new(),
            dispatch: None,
            waits: vec![false; plan.order.len()],
            lists: ScheduleLists::default(),
        }),
        chain: None,
        live,
    };
    // The uniform model's code is copied only where both declare the registers alike.
    let from = Sources {
        uniform: from.uniform.filter(|_| bodies::shared_first(&cx.regs)),
        ..from
    };
    cx.b.switch_to(entry);
    match graph.entry {
        Target::State(s) => cx.b.terminate(Terminator::Jump(cx.heads[s])),
        Target::Exit => {
            cx.b.effect(Op::Retire, &[exec], [0, 0]);
            cx.b.terminate(Terminator::Jump(exit));
        }
    }
    for &n in &plan.order {
        cx.b.switch_to(cx.heads[n]);
        let node = &graph.nodes[n];
        let mask = cx.mask_of(n);
        let plain = !conversions.contains_key(&n);
        cx.alu_body(n, mask, plain, from, &mut bodies);
        match (conversions.get(&n), &node.flow) {
            (
                Some(conv),
                Flow::If {
                    cond: Cond::Cc(f), ..
                },
            ) => cx.predicated(f, conv, n),
            (
                None,
                Flow::If {
                    cond: Cond::Cc(_), ..
                },
            )
            | (
                None | Some(_),
                Flow::Do(..)
                | Flow::Goto(_)
                | Flow::LoopNext { .. }
                | Flow::If {
                    cond: Cond::Bool(_),
                    ..
                },
            ) => {
                let mut pending = Vec::new();
                let leaves = cx.leaves_like(&[]);
                cx.lp_flow(n, (&node.flow, 0, Path::Full), &mut pending, leaves, false);
            }
        }
    }
    let dispatched = cx.fill_dispatch();
    cx.b.switch_to(exit);
    cx.b.terminate(Terminator::Exit);
    let lanes = cx.lanes.take().expect("lanes");
    LaneBuilt {
        func: cx.b.finish(),
        sites: lanes.sites,
        heads: cx.heads,
        exec,
        dispatched,
        bodies,
    }
}

impl<'a> Ctx<'a> {
    fn lanes(&self) -> &Lanes<'a> {
        self.lanes
            .as_ref()
            .expect("built in the lane-position model")
    }

    /// The mask of a path's lanes.
    fn path_mask(&self, p: Path) -> Var {
        match p {
            Path::Full => self.lanes().exec,
            Path::Lanes(m) => m,
        }
    }

    /// Writes integer `value` to `var` for the lanes of path `p` of state `s` (every lane when
    /// the path is every running lane of a converged state).
    fn set_int(&mut self, s: usize, p: Path, var: Var, value: Var) {
        match (p, self.lanes().plan.converged(s)) {
            (Path::Full, true) => self.b.inst_to(Op::IMov, var, &[value], [0, 0]),
            (Path::Full, false) | (Path::Lanes(_), _) => {
                let m = self.path_mask(p);
                self.b.inst_to(Op::ISelect, var, &[m, value, var], [0, 0]);
            }
        }
    }

    fn iconst(&mut self, value: u32) -> Var {
        self.b.inst(Op::IConst, &[], [value, 0])
    }

    /// Emits the decision tree `flow` (node number `id`) of state `s` for the lanes of `path`,
    /// where `(flow, id, path)` is `at`; `pending` holds the other arms of per-lane splits still
    /// to emit, `leaves` the targets reached so far on this path of the IR, `retiring` whether
    /// lanes may have retired on it.
    pub(super) fn lp_flow<'f>(
        &mut self,
        s: usize,
        at: Pending<'f>,
        pending: &mut Vec<Pending<'f>>,
        mut leaves: Vec<(Target, Path)>,
        mut retiring: bool,
    ) {
        let (flow, id, path) = at;
        match flow {
            Flow::Do(e, rest) => {
                retiring |= self.lp_effect(s, e, path);
                // A budget spent may have narrowed the path's lanes (in place).
                self.lp_flow(s, (rest, id + 1, path), pending, leaves, retiring);
            }
            Flow::Goto(t) => {
                leaves.push((*t, path));
                match pending.pop() {
                    Some(next) => self.lp_flow(s, next, pending, leaves, retiring),
                    None => self.schedule(s, leaves, retiring),
                }
            }
            Flow::If { cond, then, other } => {
                let (t_id, o_id) = (id + 1, id + 1 + frontier::size(then));
                let uniform = match cond {
                    Cond::Bool(_) => true,
                    Cond::Cc(_) => self.lanes().plan.uniform.contains(&(s, id)),
                };
                let c = match *cond {
                    Cond::Bool(_) => None,
                    Cond::Cc(f) => {
                        let c = self.cc_mask(&f);
                        let block = self.b.current();
                        self.lanes
                            .as_mut()
                            .expect("lanes")
                            .sites
                            .push(((s, id), block, c));
                        Some(c)
                    }
                };
                if uniform {
                    let (tb, ob) = (self.b.block(), self.b.block());
                    let term = match (cond, c) {
                        (Cond::Bool(b), _) => Terminator::BranchBool {
                            id: *b,
                            then: tb,
                            other: ob,
                        },
                        (Cond::Cc(_), Some(c)) => {
                            let exec = self.lanes().exec;
                            let m = self.b.binary(Op::MaskAnd, c, exec);
                            Terminator::BranchAny {
                                mask: m,
                                then: tb,
                                other: ob,
                            }
                        }
                        (Cond::Cc(_), None) => unreachable!("a cc condition has a mask"),
                    };
                    self.b.terminate(term);
                    for (blk, sub, sid) in [(tb, then, t_id), (ob, other, o_id)] {
                        self.b.switch_to(blk);
                        let mut p = pending.clone();
                        let copy = self.leaves_like(&leaves);
                        self.lp_flow(s, (sub, sid, path), &mut p, copy, retiring);
                    }
                    self.spare_leaves(leaves);
                } else {
                    let c = c.expect("a per-lane condition is on cc");
                    let base = self.path_mask(path);
                    let mt = self.b.binary(Op::MaskAnd, base, c);
                    let mo = self.b.binary(Op::MaskAndNot, base, c);
                    pending.push((other, o_id, Path::Lanes(mo)));
                    self.lp_flow(s, (then, t_id, Path::Lanes(mt)), pending, leaves, retiring);
                }
            }
            Flow::LoopNext { slot, repeat, exit } => {
                let (r_id, x_id) = (id + 1, id + 1 + frontier::size(repeat));
                let down = self.lanes().down[usize::from(*slot)];
                let zero = self.iconst(0);
                let z = self.b.binary(Op::IEq, down, zero);
                let block = self.b.current();
                self.lanes
                    .as_mut()
                    .expect("lanes")
                    .sites
                    .push(((s, id), block, z));
                let minus_one = self.iconst(u32::MAX);
                if self.lanes().plan.uniform.contains(&(s, id)) {
                    let exec = self.lanes().exec;
                    let rep = self.b.binary(Op::MaskAndNot, exec, z);
                    let (rb, xb) = (self.b.block(), self.b.block());
                    self.b.terminate(Terminator::BranchAny {
                        mask: rep,
                        then: rb,
                        other: xb,
                    });
                    self.b.switch_to(rb);
                    let less = self.b.binary(Op::IAdd, down, minus_one);
                    self.set_int(s, path, down, less);
                    let mut p = pending.clone();
                    let copy = self.leaves_like(&leaves);
                    self.lp_flow(s, (repeat, r_id, path), &mut p, copy, retiring);
                    self.b.switch_to(xb);
                    self.lp_flow(s, (exit, x_id, path), pending, leaves, retiring);
                } else {
                    let base = self.path_mask(path);
                    let mr = self.b.binary(Op::MaskAndNot, base, z);
                    let mx = self.b.binary(Op::MaskAnd, base, z);
                    let less = self.b.binary(Op::IAdd, down, minus_one);
                    self.b.inst_to(Op::ISelect, down, &[mr, less, down], [0, 0]);
                    pending.push((exit, x_id, Path::Lanes(mx)));
                    self.lp_flow(
                        s,
                        (repeat, r_id, Path::Lanes(mr)),
                        pending,
                        leaves,
                        retiring,
                    );
                }
            }
        }
    }

    /// An effect for the lanes of `path`; true if lanes may retire by it (the budget).
    fn lp_effect(&mut self, s: usize, e: &Effect, path: Path) -> bool {
        let al = self.regs.al.expect("aL is a variable");
        match *e {
            Effect::LoopPush { slot, int } => {
                let (down, saved) = {
                    let l = self.lanes();
                    (l.down[usize::from(slot)], l.saved[usize::from(slot)])
                };
                self.set_int(s, path, saved, al);
                let count = self.b.inst(Op::IntUniform, &[], [u32::from(int), 0]);
                self.set_int(s, path, down, count);
                let start = self.b.inst(Op::IntUniform, &[], [u32::from(int), 1]);
                self.set_int(s, path, al, start);
                false
            }
            Effect::AlInc { int, .. } => {
                let step = self.b.inst(Op::IntUniform, &[], [u32::from(int), 2]);
                let sum = self.b.binary(Op::IAdd, al, step);
                self.set_int(s, path, al, sum);
                false
            }
            Effect::AlRestore(slot) => {
                let saved = self.lanes().saved[usize::from(slot)];
                self.set_int(s, path, al, saved);
                false
            }
            Effect::Budget => {
                let (budget, pos, exec) = {
                    let l = self.lanes();
                    (l.budget, l.pos, l.exec)
                };
                let m = self.path_mask(path);
                let zero = self.iconst(0);
                let empty = self.b.binary(Op::IEq, budget, zero);
                let exhausted = self.b.binary(Op::MaskAnd, m, empty);
                let (rare, cont) = (self.b.block(), self.b.block());
                self.b.terminate(Terminator::BranchAny {
                    mask: exhausted,
                    then: rare,
                    other: cont,
                });
                // Lanes out of budget stop here: retired, off the path's lanes.
                self.b.switch_to(rare);
                self.b.effect(Op::Retire, &[exhausted], [1, 0]);
                let retired = self.iconst(RETIRED);
                self.b
                    .inst_to(Op::ISelect, pos, &[exhausted, retired, pos], [0, 0]);
                let narrowed = match path {
                    Path::Full => exec,
                    Path::Lanes(m) => m,
                };
                self.b
                    .inst_to(Op::MaskAndNot, narrowed, &[narrowed, exhausted], [0, 0]);
                self.b.terminate(Terminator::Jump(cont));
                self.b.switch_to(cont);
                let minus_one = self.iconst(u32::MAX);
                let less = self.b.binary(Op::IAdd, budget, minus_one);
                self.set_int(s, path, budget, less);
                true
            }
        }
    }

    /// The end of a step on one path of the IR: retire the lanes that ended, move every other
    /// lane to its target and go to the next state with lanes.
    pub(super) fn schedule(&mut self, s: usize, leaves: Vec<(Target, Path)>, retiring: bool) {
        let mut lists = std::mem::take(&mut self.lanes.as_mut().expect("lanes").lists);
        self.schedule_in(s, &leaves, retiring, &mut lists);
        self.lanes.as_mut().expect("lanes").lists = lists;
        self.spare_leaves(leaves);
    }

    /// A list of targets reached holding `leaves`, made from a spare one when there is one.
    fn leaves_like(&mut self, leaves: &[(Target, Path)]) -> Vec<(Target, Path)> {
        let spare = &mut self.lanes.as_mut().expect("lanes").lists.spare;
        let mut list = spare.pop().unwrap_or_default();
        list.extend_from_slice(leaves);
        list
    }

    /// Keeps the list `leaves`, emptied, for [`Ctx::leaves_like`].
    fn spare_leaves(&mut self, mut leaves: Vec<(Target, Path)>) {
        leaves.clear();
        self.lanes.as_mut().expect("lanes").lists.spare.push(leaves);
    }

    /// [`Ctx::schedule`] in `lists`.
    fn schedule_in(
        &mut self,
        s: usize,
        leaves: &[(Target, Path)],
        retiring: bool,
        lists: &mut ScheduleLists,
    ) {
        let (plan, pos, exec) = {
            let l = self.lanes();
            (l.plan, l.pos, l.exec)
        };
        let mut retiring = retiring;
        // Per target state: the mask of its lanes (a `Full` path is the only path).
        let targets = &mut lists.targets;
        targets.clear();
        for (t, p) in leaves {
            let m = self.path_mask(*p);
            match *t {
                Target::Exit => {
                    self.b.effect(Op::Retire, &[m], [0, 0]);
                    let retired = self.iconst(RETIRED);
                    self.b.inst_to(Op::ISelect, pos, &[m, retired, pos], [0, 0]);
                    retiring = true;
                }
                Target::State(x) => match targets.iter_mut().find(|(y, _)| *y == x) {
                    Some((_, acc)) => *acc = self.b.binary(Op::MaskOr, *acc, m),
                    None => targets.push((x, m)),
                },
            }
        }
        let frontier = plan.frontier(s);
        let prio = |x: usize| plan.prio[x];
        if plan.coarse {
            // Lanes may wait anywhere: every lane records its target, the shared dispatch
            // picks the next state.
            for &(t, m) in targets.iter() {
                self.wait_at(t, m);
            }
            let d = self.dispatch();
            self.b.terminate(Terminator::Jump(d));
            return;
        }
        // One target nothing waits at, before everything that waits: go there.
        if let [(t, m)] = targets[..] {
            let before = frontier.iter().any(|&w| prio(w) < prio(t));
            if !before && !frontier.contains(&t) {
                if m != exec {
                    self.b.inst_to(Op::MaskMov, exec, &[m], [0, 0]);
                }
                if !retiring {
                    self.b.terminate(Terminator::Jump(self.heads[t]));
                } else {
                    let next = self.b.block();
                    self.b.terminate(Terminator::BranchAny {
                        mask: exec,
                        then: self.heads[t],
                        other: next,
                    });
                    self.b.switch_to(next);
                    if frontier.len() > CHAIN {
                        let d = self.dispatch();
                        self.b.terminate(Terminator::Jump(d));
                    } else {
                        self.chain(frontier, &[], false);
                    }
                }
                return;
            }
        }
        // Candidates by priority; each lane moving records its target.
        let candidates = &mut lists.candidates;
        candidates.clear();
        candidates.extend(
            frontier
                .iter()
                .copied()
                .chain(targets.iter().map(|&(t, _)| t)),
        );
        candidates.sort_by_key(|&x| prio(x));
        candidates.dedup();
        if !retiring {
            // Some target has lanes: nothing after the last target is ever first.
            let last = targets.iter().map(|&(t, _)| prio(t)).max().unwrap_or(0);
            candidates.retain(|&x| prio(x) <= last);
        }
        let first = candidates.first().copied();
        let direct = &mut lists.direct;
        direct.clear();
        direct.extend(
            targets
                .iter()
                .copied()
                .filter(|&(t, _)| !frontier.contains(&t)),
        );
        let shared = candidates.len() > CHAIN;
        for &(t, m) in targets.iter() {
            // The first candidate's lanes run next with their mask; no position needed.
            if !shared && Some(t) == first && direct.iter().any(|&(d, _)| d == t) {
                continue;
            }
            self.wait_at(t, m);
        }
        if shared {
            let d = self.dispatch();
            self.b.terminate(Terminator::Jump(d));
        } else {
            self.chain(candidates, direct, !retiring);
        }
    }

    /// The lanes of mask `m` wait at state `t`: their position is its priority.
    fn wait_at(&mut self, t: usize, m: Var) {
        let (p, pos) = {
            let l = self.lanes.as_mut().expect("lanes");
            let p = l.plan.prio[t];
            l.waits[p as usize] = true;
            (p, l.pos)
        };
        let at = self.iconst(p);
        self.b.inst_to(Op::ISelect, pos, &[m, at, pos], [0, 0]);
    }

    /// The function's shared dispatch (an empty block until [`Ctx::fill_dispatch`]).
    fn dispatch(&mut self) -> BlockId {
        if let Some(d) = self.lanes().dispatch {
            return d;
        }
        let root = self.b.block();
        self.lanes.as_mut().expect("lanes").dispatch = Some(root);
        root
    }

    /// Fills in the shared dispatch, if some schedule goes through it: the lowest position
    /// over the lanes (every lane retired: the end), then a binary search over the positions a
    /// lane can wait at to that state's head, whose lanes are those at the position. Returns
    /// the states it reaches.
    fn fill_dispatch(&mut self) -> Vec<usize> {
        let Some(root) = self.lanes().dispatch else {
            return Vec::new();
        };
        let (plan, pos, exec) = {
            let l = self.lanes();
            (l.plan, l.pos, l.exec)
        };
        let waits: Vec<u32> = (0..plan.order.len() as u32)
            .filter(|&p| self.lanes().waits[p as usize])
            .collect();
        self.b.switch_to(root);
        let low = self.b.unary(Op::LaneMin, pos);
        let retired = self.iconst(RETIRED);
        let done = self.b.binary(Op::IEq, low, retired);
        let search = self.b.block();
        self.b.terminate(Terminator::BranchUniform {
            mask: done,
            then: self.exit,
            other: search,
        });
        if waits.is_empty() {
            // No lane ever waits: the lowest position is always "retired".
            self.b.switch_to(search);
            self.b.terminate(Terminator::Jump(self.exit));
            return Vec::new();
        }
        // Ranges [lo, hi) of `waits` to split, each with its block.
        let mut ranges = vec![(0usize, waits.len(), search)];
        while let Some((lo, hi, block)) = ranges.pop() {
            self.b.switch_to(block);
            if hi - lo == 1 {
                let at = self.iconst(waits[lo]);
                self.b.inst_to(Op::IEq, exec, &[pos, at], [0, 0]);
                let head = self.heads[plan.order[waits[lo] as usize]];
                self.b.terminate(Terminator::Jump(head));
                continue;
            }
            let mid = lo + (hi - lo) / 2;
            let at = self.iconst(waits[mid]);
            let below = self.b.binary(Op::ILt, low, at);
            let (l, r) = (self.b.block(), self.b.block());
            self.b.terminate(Terminator::BranchUniform {
                mask: below,
                then: l,
                other: r,
            });
            ranges.push((lo, mid, l));
            ranges.push((mid, hi, r));
        }
        waits.iter().map(|&p| plan.order[p as usize]).collect()
    }

    /// Goes to the first of `candidates` (by priority) with lanes, setting `exec` to them: a
    /// candidate in `direct` has exactly the lanes of its mask, any other the lanes whose
    /// position it is. With `sure`, the last candidate has lanes if no other has; else the
    /// batch ends when none has.
    fn chain(&mut self, candidates: &[usize], direct: &[(usize, Var)], sure: bool) {
        let (pos, exec) = {
            let l = self.lanes();
            (l.pos, l.exec)
        };
        for (i, &c) in candidates.iter().enumerate() {
            // `exec` itself is only still the path's lanes before the first check.
            match direct
                .iter()
                .find(|&&(t, m)| t == c && (i == 0 || m != exec))
            {
                Some(&(_, m)) => {
                    if m != exec {
                        self.b.inst_to(Op::MaskMov, exec, &[m], [0, 0]);
                    }
                }
                None => {
                    let at = self.iconst(self.lanes().plan.prio[c]);
                    self.b.inst_to(Op::IEq, exec, &[pos, at], [0, 0]);
                }
            }
            if sure && i + 1 == candidates.len() {
                self.b.terminate(Terminator::Jump(self.heads[c]));
                return;
            }
            let next = self.b.block();
            self.b.terminate(Terminator::BranchAny {
                mask: exec,
                then: self.heads[c],
                other: next,
            });
            self.b.switch_to(next);
        }
        self.b.terminate(Terminator::Jump(self.exit));
    }
}
