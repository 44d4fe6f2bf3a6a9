//! The frontend: a decoded PICA200 program → a [`picajit_codegen::ir::Function`] that computes
//! exactly what the reference interpreter computes (outputs and status, bit for bit) for every
//! vertex of a batch.
//!
//! ```text
//!  Program ──graph──▶ abstract control states ──build──▶ IR (+ ALU lowering per state)
//!                   ▲                                      │ uniform: every cc branch uniform?
//!                   └── if-convert / mask a divergent ─────┤ (else: the lane-position model)
//!                       branch                             ▼
//!                                      simplify_cfg · dce · simplify_cfg ──▶ Lowered
//! ```
//!
//! - [`graph`]: control-flow recovery by exhaustive abstract execution of the interpreter's
//!   control state (pc and the three bounded stacks, loop dynamic values in *slots*).
//! - `live`: which temporary register components each state's successors read, so that the
//!   builder computes only the destination components that are read later.
//! - `build`: one head block per state (its ALU code, then its decision tree of conditions,
//!   aL/loop effects and budget spends), block 0 initializing r/a0/cc; a state whose only way
//!   in is the block built just before it goes on in that block (`chain`).
//! - `alu`: per-component ALU lowering (swizzle, negation and mask folded into variable
//!   selection, `PMul` for every PICA multiply).
//! - `cons`: hash-consing while building one-block functions (whose register writes are
//!   forwarded): a repeated pure instruction names the earlier result, and CSE is skipped.
//! - `uniform`: uniformity analysis; a branch on cc is only compiled as a branch when the mask
//!   it tests is provably the same in every lane.
//! - [`ifconv`]: a per-vertex branch whose two arms are short straight-line arithmetic meeting
//!   again is if-converted (both arms run under lane predicates).
//! - [`masked`]: a per-vertex branch that sends some lanes ahead to a join while the others
//!   run structured code of their own forks a masked region.
//! - `lanes` with [`frontier`]: the lane-position model, for any other per-vertex control flow;
//!   `bodies`: each of its builds copies the ALU code of the build before it where that code
//!   is unchanged (the first one, of the uniform model's build that sent the program there).
//! - [`eval`]: the IR evaluator.
//!
//! # The boundary
//!
//! [`lower`] if-converts the per-vertex branches it can and makes masked regions of the ones
//! that fit them; a shader with any other branch on a cc value that may differ between
//! vertices is built whole in the lane-position model (`lanes`): every lane has its own place
//! in the state graph, its own aL, loop counters and budget, and the batch runs each state for
//! the lanes that are there, in an order that makes lanes meet again; a lane that ends is
//! retired with its outputs and status. No batch is rerun because its lanes disagree. A
//! shader with masked regions counts the budget per lane (`build::LaneBudget`), so no batch
//! is ever rerun for its budget either. [`Lowered::branches`] says what became of each
//! branch. What stays [`Unsupported`]: control flow with more than [`graph::MAX_STATES`]
//! abstract states (or, in the lane-position model with frontiers too costly to compute, more
//! than [`MAX_LANE_STATES`]). The engine runs those on the interpreter, exactly.
//!
//! Geometry shaders take the same paths: their EMIT and SETEMIT act per lane (`emitter`:
//! SETEMIT's state and the two output banks in variables, EMIT as
//! [`Op::EmitSlot`](picajit_codegen::ir::Op::EmitSlot) and
//! [`Op::EmitTri`](picajit_codegen::ir::Op::EmitTri) under the lanes that run it, triangle
//! records that name their lanes), so an EMIT under a per-vertex condition emits only for
//! those lanes, in each lane's own order.
//!
//! # How the state graph becomes IR
//!
//! - **Slots.** Each LOOP entry of an abstract state names a loop slot of the batch context
//!   (the lowest slot free after the push); `LoopPush slot, i` on the LOOP's edge, `LoopNext
//!   slot` as the terminator of the step that closes the loop, `AlInc slot` before it and
//!   `AlRestore slot` on its exit edge when the loop was nested — the interpreter's order.
//! - **Budget.** Every path of a step whose final next pc (after scope closing) is not above
//!   the instruction's address carries a `Budget` op after the step's other effects, in an edge
//!   block of its own when the step branches. Every CFG cycle therefore spends budget.
//! - **Scope closing** (CALL with the four-pop quirk, IF, LOOP) is resolved statically from
//!   the abstract stacks: only its aL effects and the loop counter test reach the IR.

mod alu;
mod bodies;
mod build;
mod chain;
mod cons;
mod early;
mod emitter;
pub mod eval;
pub mod frontier;
pub mod graph;
pub mod ifconv;
mod lanes;
mod live;
pub mod masked;
mod regs;
mod rows;
pub mod stack;
mod uniform;
mod worklist;

#[cfg(test)]
mod eval_tests;

use rustc_hash::FxHashMap as HashMap;

use picajit_codegen::ir::{Function, Op, Terminator, Var, Verified, VerifyError};
use picajit_codegen::opt;
use picajit_codegen::timings::Clock;
use thiserror::Error;

use crate::program::Program;
use uniform::demand::{Among, Demand};

/// A lowered program and what it took.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The IR, verified; unless it is built in the lane-position model, every CFG cycle
    /// spends budget.
    pub func: Verified,
    pub stats: Stats,
    /// What became of each branch on a condition that may differ between vertices: (address,
    /// mechanism), sorted (an address reached with different stacks may be listed with more
    /// than one mechanism).
    pub branches: Vec<(u32, Mechanism)>,
}

/// Sizes along the way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Stats {
    /// Abstract control states explored (each became a head block).
    pub states: usize,
    /// Blocks of the final function.
    pub blocks: usize,
    /// Instructions before dead-code elimination.
    pub insts_before_dce: usize,
    /// Instructions of the final function.
    pub insts_after_dce: usize,
    /// Per-vertex branches if-converted.
    pub if_converted: usize,
    /// Per-vertex branches that fork a masked region ([`masked`]).
    pub masked_forks: usize,
    /// Built in the lane-position model (`lanes`).
    pub lanes: bool,
    /// Per-vertex conditions (cc tests, loop tests) that split the running lanes.
    pub lane_splits: usize,
    /// Per-vertex conditions found the same in every running lane: branches of the batch.
    pub lane_uniform: usize,
}

/// What became of a branch whose condition may differ between vertices (a cc test; in the
/// lane-position model also a loop's repeat test, whose counter is per lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mechanism {
    /// Proven the same in every lane: a branch of the batch.
    Uniform,
    /// Both arms run, under lane predicates ([`ifconv`]).
    IfConverted,
    /// Forks a masked region ([`masked`]).
    MaskedFork,
    /// Lane-position model (`lanes`): splits the running lanes, each going its own way.
    LaneSplit,
    /// Lane-position model: found the same in every lane running it, a branch of the batch.
    LaneUniform,
}

impl Mechanism {
    /// A short description for dumps.
    pub fn describe(self) -> &'static str {
        match self {
            Mechanism::Uniform => "uniform (a branch of the batch)",
            Mechanism::IfConverted => "if-converted (both arms under lane predicates)",
            Mechanism::MaskedFork => "masked region fork",
            Mechanism::LaneSplit => "lane split (lane-position model)",
            Mechanism::LaneUniform => {
                "uniform among the running lanes (lane-position model, a branch of the batch)"
            }
        }
    }
}

/// Why a program is not lowered (it then runs on the interpreter).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Unsupported {
    /// The control flow has more abstract states than the cap.
    #[error("control flow has more than {limit} abstract states")]
    TooManyStates { limit: usize },
    /// A frontend bug: the function it built failed a check.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<VerifyError> for Unsupported {
    fn from(e: VerifyError) -> Unsupported {
        Unsupported::Internal(e.to_string())
    }
}

/// Most abstract states of a program built in the lane-position model (`lanes`) whose
/// frontiers were too costly to compute ([`frontier::Plan::coarse`]: lanes may wait anywhere,
/// so every state runs under a mask and goes through the shared dispatch, a function several
/// times the size of a uniform one that compiles several times slower). Beyond this cap
/// (reached only by adversarial stack use) the program runs on the interpreter, which keeps
/// the compile time of any program close to that of [`graph::MAX_STATES`] uniform states.
pub const MAX_LANE_STATES: usize = 2048;

/// Lowers `program` with the default state cap ([`graph::MAX_STATES`]).
pub fn lower(program: &Program) -> Result<Lowered, Unsupported> {
    lower_with_cap(program, graph::MAX_STATES)
}

/// Lowers `program`, exploring at most `max_states` abstract control states.
pub fn lower_with_cap(program: &Program, max_states: usize) -> Result<Lowered, Unsupported> {
    lower_timed(program, max_states, &mut Clock::off())
}

/// [`lower_with_cap`], lapping `clock` at its phase boundaries: `explore`, then per build round
/// `ir build` (the first one also finds the live temporaries), `uniformity` and
/// `branch conversion`, then each pass (`simplify_cfg`, `cse`,
/// `dce`, `simplify_cfg 2`) and the checks (`verify`, `budget check`).
pub fn lower_timed(
    program: &Program,
    max_states: usize,
    clock: &mut Clock<'_>,
) -> Result<Lowered, Unsupported> {
    let mut skipped = false;
    let lowered = lower_from(program, max_states, clock, true, &mut skipped);
    #[cfg(test)]
    if skipped {
        // The same as when the first round is built (`early`).
        let built = lower_from(program, max_states, &mut Clock::off(), false, &mut false);
        let same = |l: &Lowered| (Function::clone(&l.func), l.stats, l.branches.clone());
        assert_eq!(
            lowered.as_ref().map(same),
            built.as_ref().map(same),
            "starting in the lane-position model changed the lowering"
        );
    }
    lowered
}

/// [`lower_timed`]; with `early`, a program whose first round of branch conversion has an
/// outcome sure without building it goes on from there ([`early`]), and `skipped` says so.
fn lower_from(
    program: &Program,
    max_states: usize,
    clock: &mut Clock<'_>,
    early: bool,
    skipped: &mut bool,
) -> Result<Lowered, Unsupported> {
    let graph = graph::explore(program, max_states)?;
    clock.lap("explore");
    // Counted in the first round's `ir build`.
    let live = live::analyze(program, &graph);
    // Build; while some cc branch is per-vertex, if-convert it or make it a masked fork (or
    // give up on it) and rebuild. Each round converts at least one more state, so this ends.
    let mut conversions = HashMap::default();
    let mut regions = masked::Regions::new(graph.nodes.len());
    let mut lane_model = None;
    // (state, mechanism) of each branch on a per-vertex-capable condition.
    let mut mechanisms: Vec<(usize, Mechanism)> = Vec::new();
    // The function is one block whose pure instructions the builder hash-consed.
    let mut consed = false;
    let start = match early {
        true => early::first_round(program, &graph),
        false => early::Start::Build,
    };
    *skipped = !matches!(start, early::Start::Build);
    match start {
        early::Start::Build => {}
        early::Start::Lanes(conv) => {
            conversions = conv;
            clock.lap("ir build");
            lane_model = Some(lower_lanes(program, &graph, &live, &conversions, None)?);
            clock.lap("branch conversion");
        }
        early::Start::Second(conv, made) => (conversions, regions) = (conv, made),
    }
    let mut func = if lane_model.is_some() {
        Function::default()
    } else {
        loop {
            let built = build::build(program, &graph, &live, &conversions, &regions);
            clock.lap("ir build");
            let (divergent, mut varying) = uniform::divergent_branches(&built.func);
            clock.lap("uniformity");
            #[cfg(test)]
            let first_round = conversions.is_empty() && regions.list.is_empty();
            #[cfg(test)]
            let divergent_blocks = divergent.clone();
            let mut converted = false;
            let mut checked = Vec::new();
            // The states if-converted in this round.
            let mut fresh = Vec::new();
            // Some per-vertex branch could be neither if-converted nor masked.
            let mut stuck = false;
            for block in divergent {
                let Some(&(_, state)) = built.cc_branches.iter().find(|(b, _)| *b == block) else {
                    return Err(Unsupported::Internal(format!(
                        "b{} branches on cc but comes from no state",
                        block.0
                    )));
                };
                if conversions.contains_key(&state) || regions.fork_of(state).is_some() {
                    checked.push(block);
                    continue;
                }
                if let Some(conv) = convertible(&graph, &program.descs, &regions, state) {
                    conversions.insert(state, conv);
                    fresh.push(state);
                    converted = true;
                } else if regions.add_fork(&graph, &program.descs, &conversions, state) {
                    converted = true;
                } else {
                    checked.push(block);
                    stuck = true;
                }
            }
            // A branch found per-vertex stays per-vertex in the next round: if-converting or
            // masking a branch only blends more values by a per-vertex mask, so no value that
            // varied varies no longer. With a stuck branch, the next round ends in the
            // lane-position model unless it converts or masks some other branch; if it cannot,
            // its build and analysis would be thrown away: go to the lane-position model now.
            let next = Round {
                graph: &graph,
                descs: &program.descs,
                conversions: &conversions,
                regions: &regions,
            };
            // With a branch converted and one stuck: the branches the next round may find
            // per-vertex.
            let maybe = (converted && stuck).then(|| next.maybe(&built, varying.as_mut(), &fresh));
            #[cfg(test)]
            if first_round {
                let asked = early::Asked {
                    built: &built,
                    divergent: &divergent_blocks,
                    conversions: &conversions,
                    regions: &regions,
                    next: maybe.clone(),
                };
                early::agrees(program, &graph, asked);
            }
            let to_lanes = if converted {
                maybe.is_some_and(|maybe| next.converts_nothing(maybe))
            } else {
                // What cannot be if-converted or masked runs in the lane-position model. So does
                // a masked region that could go on with no lane inside (a cycle without a fork):
                // lanes whose budget runs out leave the masks.
                !checked.is_empty() || (!regions.list.is_empty() && !regions.empty_runs_end(&graph))
            };
            if to_lanes {
                let carried = built.carried();
                lane_model = Some(lower_lanes(
                    program,
                    &graph,
                    &live,
                    &conversions,
                    Some(carried),
                )?);
                clock.lap("branch conversion");
                break Function::default();
            }
            clock.lap("branch conversion");
            if !converted {
                // Every branch left on cc is the same in every lane.
                mechanisms.extend(
                    built
                        .cc_branches
                        .iter()
                        .map(|&(_, state)| (state, Mechanism::Uniform)),
                );
                consed = built.consed;
                break built.func;
            }
        }
    };
    let mut lane_stats = (false, 0, 0);
    if let Some((f, nodes)) = lane_model {
        func = f;
        regions = masked::Regions::new(graph.nodes.len());
        let uniform = nodes.iter().filter(|&&(_, u)| u).count();
        lane_stats = (true, nodes.len() - uniform, uniform);
        mechanisms.clear();
        for (state, u) in nodes {
            let m = if u {
                Mechanism::LaneUniform
            } else {
                Mechanism::LaneSplit
            };
            mechanisms.push((state, m));
        }
    }
    mechanisms.extend(conversions.keys().map(|&s| (s, Mechanism::IfConverted)));
    for r in &regions.list {
        mechanisms.extend(r.forks.iter().map(|&(s, _)| (s, Mechanism::MaskedFork)));
    }
    let mut branches: Vec<(u32, Mechanism)> = mechanisms
        .into_iter()
        .map(|(s, m)| (graph.nodes[s].pc, m))
        .collect();
    branches.sort_unstable();
    branches.dedup();
    opt::simplify_cfg(&mut func);
    clock.lap("simplify_cfg");
    let insts_before_dce = func.inst_count();
    opt::split_defs(&mut func);
    clock.lap("split_defs");
    if !consed {
        opt::cse(&mut func);
    }
    opt::square_pmul(&mut func);
    clock.lap("cse");
    // Dead code out, then the variables left numbered densely (block-crossing ones first).
    opt::dce_renumber(&mut func);
    clock.lap("dce");
    opt::simplify_cfg(&mut func);
    clock.lap("simplify_cfg 2");
    opt::place_io(&mut func);
    clock.lap("place_io");
    let func = Verified::new(func)?;
    clock.lap("verify");
    // In the lane-position model every lane's path spends budget on each cycle of the state
    // graph; the IR's own cycles also run through the schedule's dispatch, which advances some
    // lane each time. A function with masked regions spends per lane
    // (`build::LaneBudget`): a cycle runs while its lanes have budget, and once none is left
    // in a region the batch leaves it ([`masked::Regions::empty_runs_end`]).
    let per_lane = !regions.list.is_empty();
    let bounded = lane_stats.0 || per_lane || opt::budget_bounds_cycles(&func);
    clock.lap("budget check");
    if !bounded {
        return Err(Unsupported::Internal(
            "a CFG cycle spends no budget".to_string(),
        ));
    }
    Ok(Lowered {
        stats: Stats {
            states: graph.nodes.len(),
            blocks: func.blocks.len(),
            insts_before_dce,
            insts_after_dce: func.inst_count(),
            if_converted: conversions.len(),
            masked_forks: regions.forks(),
            lanes: lane_stats.0,
            lane_splits: lane_stats.1,
            lane_uniform: lane_stats.2,
        },
        func,
        branches,
    })
}

/// What the next round of branch conversion starts from.
struct Round<'a> {
    graph: &'a graph::Graph,
    descs: &'a [u32],
    conversions: &'a HashMap<usize, ifconv::Conversion>,
    regions: &'a masked::Regions,
}

impl Round<'_> {
    /// The states of the branches left on cc that the next round may find per-vertex, given
    /// this round's build `built`, its uniformity analysis `varying` and the states it
    /// if-converted (`fresh`).
    fn maybe(
        &self,
        built: &build::Built,
        varying: Option<&mut Among>,
        fresh: &[usize],
    ) -> Vec<usize> {
        let open = built.cc_branches.iter().copied().filter(|&(_, s)| {
            !self.conversions.contains_key(&s) && self.regions.fork_of(s).is_none()
        });
        let seeded = varying.and_then(|v| self.seed(built, v, fresh).then_some(v));
        match seeded {
            Some(varying) => open
                .filter(|&(b, _)| {
                    let b = b.0 as usize;
                    match built.func.blocks[b].term {
                        Terminator::BranchUniform { mask, .. } => {
                            varying.at_end(&built.func, b, mask) != Some(false)
                        }
                        Terminator::Jump(_)
                        | Terminator::BranchBool { .. }
                        | Terminator::BranchAny { .. }
                        | Terminator::LoopNext { .. }
                        | Terminator::Exit => true,
                    }
                })
                .map(|(_, s)| s)
                .collect(),
            None => open.map(|(_, s)| s).collect(),
        }
    }

    /// True if the next round cannot if-convert or mask any branch: none of those it may find
    /// per-vertex (`maybe`, [`Round::maybe`]) can be converted or masked.
    fn converts_nothing(&self, maybe: Vec<usize>) -> bool {
        !maybe
            .iter()
            .any(|&s| convertible(self.graph, self.descs, self.regions, s).is_some())
            && self
                .regions
                .could_fork(self.graph, self.descs, self.conversions, maybe)
                .is_empty()
    }

    /// Makes `varying` (this round's analysis of `built`) an upper bound of the next round's:
    /// the next round blends by per-vertex masks what the arms of `fresh` and the states of
    /// the masked regions write, so those writes are seeded as varying. (The rest of the next
    /// round's function is this round's, on the same paths or fewer.) False if some of those
    /// states' instructions are not known ([`build::Span`]).
    fn seed(&self, built: &build::Built, varying: &mut Among, fresh: &[usize]) -> bool {
        let mut blended = vec![false; self.graph.nodes.len()];
        for c in fresh.iter().filter_map(|s| self.conversions.get(s)) {
            for &a in c.then.iter().chain(&c.other) {
                blended[a] = true;
            }
        }
        for r in &self.regions.list {
            for &s in &r.states {
                blended[s] = true;
            }
        }
        let spans = || built.spans.iter().filter(|span| blended[span.state]);
        let known = spans().filter(|span| span.range.is_some()).count();
        if known != blended.iter().filter(|&&b| b).count() {
            return false;
        }
        let func = &built.func;
        for span in spans() {
            let (b, (start, end)) = (span.block.0 as usize, span.range.unwrap_or((0, 0)));
            for (i, inst) in func.blocks[b].insts[start..end].iter().enumerate() {
                if inst.dst.is_some() {
                    varying.seed(b, start + i);
                }
            }
        }
        varying.settle(func);
        true
    }
}

/// The if-conversion of the per-vertex branch of state `s`, if it has one that fits: inside a
/// masked region, both arms must lie in that region.
fn convertible(
    graph: &graph::Graph,
    descs: &[u32],
    regions: &masked::Regions,
    s: usize,
) -> Option<ifconv::Conversion> {
    ifconv::convert(graph, descs, s).filter(|c| {
        regions.of[s].map_or(true, |r| {
            let states = &regions.list[r].states;
            c.then
                .iter()
                .chain(&c.other)
                .all(|x| states.binary_search(x).is_ok())
        })
    })
}

/// Rounds of the lane-position model's uniformity search before conditions are only demoted
/// (each round builds the whole function again).
const LANE_ROUNDS: usize = 6;
/// Above this many states, one round only: the conditions found uniform among the running
/// lanes of the first build, then builds that only demote (compile time stays linear).
const LANE_ROUNDS_STATES: usize = 256;

/// Builds `graph` in the lane-position model: the function, and each per-vertex condition's
/// state and whether it turned out uniform. Conditions start out per-lane; each round
/// builds the function with the current choice, finds which per-lane conditions are the same in
/// every lane running them (`uniform::demand`) and makes those branches of the batch
/// (which can only make more values uniform), until nothing changes. A condition found
/// varying after all is per-lane for good.
fn lower_lanes(
    program: &Program,
    graph: &graph::Graph,
    live: &live::Liveness,
    conversions: &HashMap<usize, ifconv::Conversion>,
    first: Option<bodies::Uniform<'_>>,
) -> Result<(Function, Vec<(usize, bool)>), Unsupported> {
    let mut chosen = rustc_hash::FxHashSet::default();
    let mut demoted = rustc_hash::FxHashSet::default();
    let mut round = 0;
    let rounds = if graph.nodes.len() > LANE_ROUNDS_STATES {
        1
    } else {
        LANE_ROUNDS
    };
    // The ALU code of the previous build (for the first, of the uniform model's build that
    // sent the program here), copied where it is the same.
    let mut prev: Option<bodies::Bodies> = None;
    // The rounds differ only in the conditions chosen: the steps and priorities are planned
    // once.
    let schedule = frontier::Schedule::new(graph, conversions);
    loop {
        let plan = schedule.plan(chosen.clone());
        if plan.coarse && graph.nodes.len() > MAX_LANE_STATES {
            // Lanes may wait anywhere in a large graph: every state runs masked and goes
            // through the shared dispatch, a function several times the size of a uniform one.
            return Err(Unsupported::TooManyStates {
                limit: MAX_LANE_STATES,
            });
        }
        let from = bodies::Sources {
            prev: prev.as_ref(),
            uniform: first.filter(|_| prev.is_none()),
        };
        let built = lanes::build(program, graph, live, conversions, &plan, from);
        #[cfg(test)]
        {
            let none = bodies::Sources::default();
            let fresh = lanes::build(program, graph, live, conversions, &plan, none);
            assert!(
                fresh.func == built.func,
                "a build with copied ALU code differs from one built from scratch"
            );
        }
        let func = built.func;
        let mut merge = vec![false; func.blocks.len()];
        for (s, &m) in plan.merge.iter().enumerate() {
            merge[built.heads[s].0 as usize] |= m;
        }
        // Lanes that arrived at different times meet at the states the dispatch reaches.
        for &s in &built.dispatched {
            merge[built.heads[s].0 as usize] = true;
        }
        let anywhere = uniform::varies_anywhere(&func);
        #[cfg(test)]
        assert_eq!(anywhere, uniform::varies_anywhere_by_readers(&func));
        #[cfg(test)]
        uniform::demand::agrees(
            &func,
            &|| Demand::among(&func, built.exec, merge.clone(), anywhere.clone()),
            built.sites.iter().map(|&(_, b, v)| (b.0 as usize, v)),
        );
        // Each site's mask is searched for on demand rather than by solving the whole
        // function; once no condition can be added, only the chosen ones are asked about
        // (each is confirmed or demoted).
        let confirm = round >= rounds;
        let mut among = Among::Demand(Box::new(Demand::among(&func, built.exec, merge, anywhere)));
        let mut verdict: HashMap<frontier::NodeId, bool> = HashMap::default();
        for &(node, block, var) in &built.sites {
            let same = verdict.entry(node).or_insert(true);
            if *same && (!confirm || chosen.contains(&node)) {
                *same = among.at_end(&func, block.0 as usize, var) != Some(true);
            }
        }
        let mut changed = false;
        for (&node, &same) in &verdict {
            if !same && chosen.remove(&node) {
                demoted.insert(node);
                changed = true;
            } else if same && round < rounds && !demoted.contains(&node) {
                changed |= chosen.insert(node);
            }
        }
        round += 1;
        // A coarse plan merges everywhere: no uniform condition to find beyond the first round.
        changed &= !plan.coarse;
        if !changed {
            let nodes = verdict
                .keys()
                .map(|&node| (node.0, chosen.contains(&node)))
                .collect();
            return Ok((lead_reads(func, &mut among, built.exec), nodes));
        }
        prev = Some(bodies::Bodies::new(func, built.bodies));
    }
}

/// Relative uniform reads whose offset is the same in every running lane read one row at the
/// offset of the first running lane (`UniformLead`) instead of one row per lane.
fn lead_reads(mut func: Function, among: &mut Among, exec: Var) -> Function {
    for b in 0..func.blocks.len() {
        // Only a block with a relative read has anything to change: the others are not run.
        if !func.blocks[b].insts.iter().any(|i| i.op == Op::UniformIdx) {
            continue;
        }
        for k in among.uniform_offsets(&func, b) {
            let inst = &mut func.blocks[b].insts[k];
            inst.op = Op::UniformLead;
            inst.args[1] = exec;
        }
    }
    func
}
