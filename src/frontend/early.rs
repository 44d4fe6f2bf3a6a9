//! Deciding before the first build that branch conversion ends in the lane-position model.
//!
//! The first round of branch conversion (`lower_timed`) builds the program in the uniform
//! model, finds its per-vertex branches on cc, if-converts or masks the ones it can, and goes
//! to the lane-position model when one is left that it cannot, and no further round could
//! convert or mask anything. That build is then thrown away. Its questions are answered here on
//! the state graph instead, so the lane-position model starts without it:
//!
//! - the per-vertex branches are the cc tests whose mask may vary ([`Vary::solve`]: the
//!   build's uniformity, component by component);
//! - the round tries them in the order of the blocks they end, which the state graph gives
//!   ([`branch_blocks`]), with the same calls (`convertible`, [`Regions::add_fork`]), so it
//!   converts the same ones and counts the same work; if it makes a masked region, the round
//!   is built as before;
//! - with some branch converted and one left, the next round's bound: the branches left whose
//!   mask may vary once the arms just converted write values that vary ([`Vary::seeded`]; the
//!   first round answers that only when it recorded where those arms' code went, after its
//!   first branch on cc, and else takes every branch left) can neither be converted nor fork
//!   (`Round::converts_nothing`).
//!
//! Under `cfg(test)` every first round checks these answers against its build, and a lowering
//! that starts this way is compared with one that builds the first round (`lower_timed`).

use rustc_hash::FxHashMap as HashMap;

use crate::isa::Fmt2;
use crate::program::Program;

use picajit_codegen::ir::BlockId;

use super::chain::Chain;
use super::graph::{Cond, Flow, Graph, Target};
use super::ifconv::Conversion;
use super::masked::Regions;
use super::uniform::states::{Transfers, Vary};

/// Where branch conversion starts.
pub(super) enum Start {
    /// With the first round: it finds no per-vertex branch (its build is the function), or
    /// its outcome is not sure without building.
    Build,
    /// In the lane-position model, with the branches the first round if-converts.
    Lanes(HashMap<usize, Conversion>),
    /// With the second round, from the branches the first round if-converts and the regions
    /// it makes.
    Second(HashMap<usize, Conversion>, Regions),
}

/// Where branch conversion of `graph` starts: the first round's outcome, when it is sure
/// without building it.
pub(super) fn first_round(program: &Program, graph: &Graph) -> Start {
    first_outcome(program, graph).unwrap_or(Start::Build)
}

fn first_outcome(program: &Program, graph: &Graph) -> Option<Start> {
    let n = graph.nodes.len();
    let tests = all_tests(graph);
    // A branch only in the last state may leave every state chaining, and the build then
    // forwards register writes (`Regs::forward`), which the bound below does not follow.
    let &(last, _) = tests.last()?;
    if last + 1 == n {
        return None;
    }
    let transfers = Transfers::new(program, graph);
    let vary = Vary::solve(graph, &transfers);
    // The per-vertex branches, in the order of their blocks.
    let blocks = branch_blocks(graph);
    let mut divergent: Vec<(u32, usize)> = (tests.iter().zip(&blocks))
        .filter(|((s, f), _)| vary.mask(*s, f))
        .map(|(&(s, _), &b)| (b, s))
        .collect();
    if divergent.is_empty() {
        return None;
    }
    divergent.sort_unstable();
    // The first round's loop (`lower_timed`).
    let descs = &program.descs;
    let mut conversions = HashMap::default();
    let mut regions = Regions::new(n);
    let (mut converted, mut stuck) = (false, false);
    for (_, s) in divergent {
        if conversions.contains_key(&s) || regions.fork_of(s).is_some() {
            continue;
        }
        if let Some(conv) = super::convertible(graph, descs, &regions, s) {
            conversions.insert(s, conv);
            converted = true;
        } else if regions.add_fork(graph, descs, &conversions, s) {
            converted = true;
        } else {
            stuck = true;
        }
    }
    if !converted {
        return Some(Start::Lanes(conversions));
    }
    let to_lanes = stuck && {
        let maybe = next_bound(graph, &transfers, &vary, &tests, &conversions, &regions);
        let next = super::Round {
            graph,
            descs,
            conversions: &conversions,
            regions: &regions,
        };
        next.converts_nothing(maybe)
    };
    Some(match to_lanes {
        true => Start::Lanes(conversions),
        false => Start::Second(conversions, regions),
    })
}

/// The block of the first round's build (`build::build`, nothing converted) that ends in each
/// branch on cc of [`all_tests`], in that order: block 0 is the entry, then the head blocks of
/// the states not sure to chain, in state order, then the exit, then two blocks per condition
/// and loop test as the states' decision trees are built, in state order and pre-order. A
/// state starts in its head block, or in the block a jump to it from the state before goes on
/// in (`Chain::join`: the state has one way in, and the jump is from the block that state
/// started in, or from an arm that holds an effect; arms hold nothing else).
fn branch_blocks(graph: &Graph) -> Vec<u32> {
    let n = graph.nodes.len();
    let chain = Chain::new(graph, &HashMap::default(), BlockId(0));
    let mut made = 1u32;
    let mut heads = vec![u32::MAX; n];
    for (s, head) in heads.iter_mut().enumerate() {
        if !chain.sure(s) {
            *head = made;
            made += 1;
        }
    }
    // The exit block.
    made += 1;
    let mut walk = Walk {
        chain: &chain,
        made,
        origin: 0,
        carry: None,
        blocks: Vec::new(),
    };
    walk.goto(graph.entry, 0, 0, false);
    for (s, node) in graph.nodes.iter().enumerate() {
        let start = match walk.carry.take() {
            Some((c, block)) if c == s => block,
            Some(_) | None => heads[s],
        };
        walk.origin = start;
        walk.flow(&node.flow, s, start, false);
    }
    walk.blocks
}

/// [`branch_blocks`]' walk of the decision trees.
struct Walk<'a> {
    chain: &'a Chain,
    /// Blocks made so far.
    made: u32,
    /// The block the state being built started in.
    origin: u32,
    /// The state that goes on in an earlier block, and that block.
    carry: Option<(usize, u32)>,
    blocks: Vec<u32>,
}

impl Walk<'_> {
    /// The tree `flow` of state `s` from `block` (`full`: it holds an effect already).
    fn flow(&mut self, flow: &Flow, s: usize, block: u32, full: bool) {
        match flow {
            Flow::Do(_, rest) => self.flow(rest, s, block, true),
            Flow::Goto(t) => self.goto(*t, s + 1, block, full),
            Flow::If { cond, then, other } => {
                if let Cond::Cc(_) = cond {
                    self.blocks.push(block);
                }
                self.arms(then, other, s);
            }
            Flow::LoopNext { repeat, exit, .. } => self.arms(repeat, exit, s),
        }
    }

    fn arms(&mut self, a: &Flow, b: &Flow, s: usize) {
        let first = self.made;
        self.made += 2;
        self.flow(a, s, first, false);
        self.flow(b, s, first + 1, false);
    }

    /// A jump from `block` to `t`, state `next` being built next.
    fn goto(&mut self, t: Target, next: usize, block: u32, full: bool) {
        if let Target::State(x) = t {
            if x == next && self.chain.one_way_in(x) && (block == self.origin || full) {
                self.carry = Some((x, block));
            }
        }
    }
}

/// The states of the branches in `tests` (state, condition) that the round after the first,
/// which if-converted `conversions` and made `regions`, may find per-vertex: those neither
/// converted nor forks whose mask may vary once the converted arms and the states of the
/// regions write values that vary, or all of them when the first round did not record where
/// those states' code went (it records the states after its first branch on cc,
/// `build::Span`).
fn next_bound(
    graph: &Graph,
    transfers: &Transfers,
    vary: &Vary,
    tests: &[(usize, Fmt2)],
    conversions: &HashMap<usize, Conversion>,
    regions: &Regions,
) -> Vec<usize> {
    let mut blended = vec![false; graph.nodes.len()];
    for c in conversions.values() {
        for &a in c.then.iter().chain(&c.other) {
            blended[a] = true;
        }
    }
    for r in &regions.list {
        for &a in &r.states {
            blended[a] = true;
        }
    }
    let first = tests.first().map_or(0, |&(s, _)| s);
    let recorded = blended.iter().enumerate().all(|(a, &b)| !b || a > first);
    let seeded = recorded.then(|| vary.seeded(transfers, &blended));
    tests
        .iter()
        .filter(|(s, f)| {
            !conversions.contains_key(s)
                && regions.fork_of(*s).is_none()
                && seeded.as_ref().map_or(true, |v| v.mask(*s, f))
        })
        .map(|&(s, _)| s)
        .collect()
}

/// Every branch on cc of `graph`, in state order: (state, condition).
fn all_tests(graph: &Graph) -> Vec<(usize, Fmt2)> {
    let mut tests = Vec::new();
    for (s, node) in graph.nodes.iter().enumerate() {
        // Most states go straight on: no call for them.
        if !matches!(node.flow, Flow::Goto(_)) {
            cc_tests(&node.flow, &mut |f| tests.push((s, *f)));
        }
    }
    tests
}

/// Checks the answers of the state graph's uniformity against the first round's build
/// `built`: the blocks of its branches on cc, the states of its per-vertex ones (`divergent`,
/// blocks), and when it converted some (`conversions`, `regions`), the states of the branches
/// the next round may find per-vertex (`next`: its own bound, `None` when it did not ask).
#[cfg(test)]
pub(super) struct Asked<'a> {
    pub built: &'a super::build::Built,
    pub divergent: &'a [picajit_codegen::ir::BlockId],
    pub conversions: &'a HashMap<usize, Conversion>,
    pub regions: &'a Regions,
    pub next: Option<Vec<usize>>,
}

#[cfg(test)]
pub(super) fn agrees(program: &Program, graph: &Graph, asked: Asked<'_>) {
    let Asked {
        built,
        divergent,
        conversions,
        regions,
        next,
    } = asked;
    let blocks: Vec<u32> = built.cc_branches.iter().map(|(b, _)| b.0).collect();
    assert_eq!(
        branch_blocks(graph),
        blocks,
        "the blocks of the branches on cc"
    );
    let state = |b| {
        built
            .cc_branches
            .iter()
            .find(|(x, _)| *x == b)
            .map(|&(_, s)| s)
    };
    let mut ir: Vec<Option<usize>> = divergent.iter().map(|&b| state(b)).collect();
    let tests = all_tests(graph);
    let transfers = Transfers::new(program, graph);
    let vary = Vary::solve(graph, &transfers);
    let mut ours: Vec<Option<usize>> = tests
        .iter()
        .filter(|(s, f)| vary.mask(*s, f))
        .map(|&(s, _)| Some(s))
        .collect();
    ir.sort_unstable();
    ours.sort_unstable();
    assert_eq!(
        ours, ir,
        "per-vertex branches on the state graph and in the build"
    );
    if let Some(mut next) = next {
        let mut bound = next_bound(graph, &transfers, &vary, &tests, conversions, regions);
        next.sort_unstable();
        bound.sort_unstable();
        assert_eq!(
            bound, next,
            "the next round's bound on the state graph and in the build"
        );
    }
}

/// Calls `f` with the condition of every branch on cc of a decision tree, in pre-order.
pub(super) fn cc_tests(flow: &Flow, f: &mut impl FnMut(&Fmt2)) {
    match flow {
        Flow::Do(_, rest) => cc_tests(rest, f),
        Flow::Goto(_) => {}
        Flow::If { cond, then, other } => {
            if let Cond::Cc(c) = cond {
                f(c);
            }
            cc_tests(then, f);
            cc_tests(other, f);
        }
        Flow::LoopNext { repeat, exit, .. } => {
            cc_tests(repeat, f);
            cc_tests(exit, f);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::program::{Program, ShaderKind};
    use crate::synthetic::{program, Shape};

    /// Lowers `p` (under `cfg(test)`, `lower` checks the state graph's answers against the
    /// first round's build, and a lowering that skips that build against one that makes it);
    /// true if it skipped the first round's build.
    fn skips(p: &Program) -> bool {
        let Ok(graph) = super::super::graph::explore(p, super::super::graph::MAX_STATES) else {
            return false;
        };
        let start = super::first_round(p, &graph);
        if let Ok(lowered) = super::super::lower(p) {
            let lanes = matches!(start, super::Start::Lanes(_));
            assert!(
                !lanes || lowered.stats.lanes,
                "went to the lanes without needing them"
            );
        }
        !matches!(start, super::Start::Build)
    }

    /// Generated branchy programs (vertex and geometry shaders) and fuzzed programs of every
    /// shape: the first round's questions get the same answers on the state graph, and the
    /// programs that skip its build lower to the same function.
    #[test]
    fn the_state_graph_answers_as_the_first_build() {
        let mut skipped = 0;
        for (size, seed) in [
            (24, 1),
            (50, 2),
            (120, 3),
            (200, 1),
            (300, 4),
            (500, 1),
            (500, 5),
        ] {
            let p = program(Shape::Branchy, size, seed).expect("generated");
            skipped += usize::from(skips(&p));
            skipped += usize::from(skips(&p.clone().with_kind(ShaderKind::Geometry)));
        }
        assert!(
            skipped >= 10,
            "{skipped} generated programs skipped the first build"
        );
        let config = crate::fuzz::gen::Config::default();
        let mut fuzzed = 0;
        for seed in 0..600 {
            for case in [
                crate::fuzz::gen::generate(seed, &config),
                crate::fuzz::gen::generate_geometry(seed, &config),
            ] {
                if let Ok(p) = case.case.program() {
                    fuzzed += usize::from(skips(&p));
                }
            }
        }
        assert!(
            fuzzed >= 200,
            "{fuzzed} fuzzed programs skipped the first build"
        );
    }
}
