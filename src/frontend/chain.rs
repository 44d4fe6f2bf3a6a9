//! Straight chains built as one block: where a state's only way in is a jump from the block
//! built just before it, the builder goes on appending to that block instead of starting the
//! state's head block and ending the other with a jump. A straight-line program then leaves
//! the builder as one block, and CFG simplification has nothing left to merge.
//!
//! The result is the function CFG simplification would have made of the unchained one — except
//! that a state may take an input or uniform read of an earlier state of its block from that
//! read (`alu`), which in the unchained function is a read of its own until CSE merges it, so
//! the two agree once the passes have run. Simplification merges a block ending in a jump into
//! a target with no other predecessor, after forwarding edges through empty blocks that only
//! jump. So a jump is chained only when simplification would merge it in place:
//! - the target state has exactly one edge into it: in the state graph (the entry counts as
//!   one), or from an if-converted branch to its join (counted on top of the graph's edges of
//!   that branch, which may then be dead: too many edges only chain less);
//! - the target is the next state to be built, so instructions and variables come in the same
//!   order as before;
//! - the jumping block is the entry, a head block or not empty: an empty arm block would have
//!   been skipped by forwarding, leaving the target's code at the place of its head block.
//!   (The block a state's code starts in is the entry, a head or a block that already held
//!   code when the state chained into it, so it qualifies; any other block the state's
//!   decision tree jumps from is one of its arms.)
//!
//! A state whose only way in is the entry (state 0) or the straight end of the state before it
//! (its effects, then a jump to it, outside any condition) surely chains ([`Chain::sure`]):
//! the builder makes no head block for it.

use rustc_hash::FxHashMap as HashMap;

use picajit_codegen::ir::{BlockId, Builder};

use super::graph::{Flow, Graph, Target};
use super::ifconv::Conversion;

/// Where chaining is allowed, and the block the next state continues.
pub(super) struct Chain {
    /// Per state: edges into it in the state graph (the entry counts as one), saturating.
    preds: Vec<u8>,
    /// Per state: whether it surely chains ([`Chain::sure`]).
    sure: Vec<bool>,
    /// The block the code of the state being built started in: the entry, a head block, or
    /// one that held code when the state chained into it.
    origin: BlockId,
    /// The state whose code goes on in an earlier block, and that block.
    carry: Option<(usize, BlockId)>,
}

impl Chain {
    /// Chaining over `graph` with the branches of `conversions` if-converted, from the
    /// `entry` block.
    #[inline]
    pub fn new(graph: &Graph, conversions: &HashMap<usize, Conversion>, entry: BlockId) -> Chain {
        let mut preds = vec![0u8; graph.nodes.len()];
        let mut count = |t: Target| {
            if let Target::State(s) = t {
                preds[s] = preds[s].saturating_add(1);
            }
            true
        };
        count(graph.entry);
        for node in &graph.nodes {
            node.flow.each_target(&mut count);
        }
        for conv in conversions.values() {
            count(Target::State(conv.join));
        }
        // Per state: the target its flow reaches outside any condition, after its effects
        // (what the state before the next one reaches first: the entry).
        let mut sure = vec![false; graph.nodes.len()];
        let mut reached = Some(graph.entry);
        for (s, node) in graph.nodes.iter().enumerate() {
            sure[s] = preds[s] == 1 && reached == Some(Target::State(s));
            let mut flow = &node.flow;
            reached = loop {
                match flow {
                    Flow::Do(_, rest) => flow = rest,
                    Flow::Goto(t) => break Some(*t),
                    Flow::If { .. } | Flow::LoopNext { .. } => break None,
                }
            };
        }
        Chain {
            preds,
            sure,
            origin: entry,
            carry: None,
        }
    }

    /// Whether state `s` surely goes on in the block before it: its one way in is the entry
    /// (state 0), or the straight end of state `s − 1` (which the builder lowers just before
    /// it, and whose decision tree then jumps to it from the block the state started in, or
    /// from a non-empty block after a budget spend). [`Chain::join`] then always chains it.
    pub fn sure(&self, s: usize) -> bool {
        self.sure[s]
    }

    /// Whether state `s` has exactly one edge into it (the entry counts as one).
    pub fn one_way_in(&self, s: usize) -> bool {
        self.preds[s] == 1
    }

    /// Whether every state surely goes on in the block before it: the whole function is
    /// built as one block, state after state.
    pub fn all_sure(&self) -> bool {
        self.sure.iter().all(|&s| s)
    }

    /// Whether a jump from the current block of `b` to state `to`, where state `next` is the
    /// one built next, goes on in that block instead; if so, records it.
    pub fn join(&mut self, b: &Builder, to: Target, next: usize) -> bool {
        let Target::State(s) = to else {
            return false;
        };
        let here = b.current();
        let chained =
            s == next && self.preds[s] == 1 && (here == self.origin || !b.current_is_empty());
        if chained {
            self.carry = Some((s, here));
        }
        chained
    }

    /// The block state `s` starts in, if it goes on in an earlier one.
    pub fn start(&mut self, s: usize) -> Option<BlockId> {
        match self.carry.take() {
            Some((c, block)) if c == s => Some(block),
            Some(_) | None => None,
        }
    }

    /// Records that the state built next starts in `block` (its head, or the block
    /// [`Chain::start`] gave).
    pub fn begin(&mut self, block: BlockId) {
        self.origin = block;
    }
}

#[cfg(test)]
mod tests {
    use picajit_codegen::ir::{Function, Terminator};
    use picajit_codegen::opt;

    use super::super::build::{build_with, Layout};
    use super::super::eval;
    use super::super::graph::{self, Cond, Flow, Graph};
    use super::super::ifconv;
    use super::super::masked::Regions;
    use super::HashMap;
    use crate::program::Program;
    use crate::synthetic::{self, Shape};

    /// `f` after CFG simplification and the passes that merge and remove repeated reads (a
    /// chained build reuses an input or uniform read of an earlier state in its block, which
    /// in an unchained build is a read of its own until the blocks are merged and CSE runs).
    fn simplified(mut f: Function) -> Function {
        f.verify().unwrap();
        opt::simplify_cfg(&mut f);
        opt::split_defs(&mut f);
        opt::cse(&mut f);
        opt::dce_renumber(&mut f);
        opt::simplify_cfg(&mut f);
        f
    }

    fn jumps(f: &Function) -> usize {
        f.blocks
            .iter()
            .filter(|b| matches!(b.term, Terminator::Jump(_)))
            .count()
    }

    /// Every block layout's build of `program` ([`Layout`]).
    fn builds(
        program: &Program,
        graph: &Graph,
        conversions: &HashMap<usize, ifconv::Conversion>,
        regions: &Regions,
    ) -> [Function; 4] {
        let live = super::super::live::analyze(program, graph);
        [(false, false), (true, false), (false, true), (true, true)].map(|(chained, sparse)| {
            let layout = Layout {
                chained,
                sparse,
                forward: false,
                cons: false,
            };
            build_with(program, graph, &live, conversions, regions, layout).func
        })
    }

    /// Chained and unchained builds of `program` are the same function once CFG
    /// simplification and the passes have run ([`simplified`]), and builds with sparse head
    /// blocks are the same as those with every head made up front once CFG simplification
    /// alone has run; returns the jumps the chained build saved.
    fn same_after_simplify(
        program: &Program,
        graph: &Graph,
        conversions: &HashMap<usize, ifconv::Conversion>,
        regions: &Regions,
    ) -> usize {
        let [plain, chained, sparse_plain, sparse_chained] =
            builds(program, graph, conversions, regions);
        assert_eq!(chained.blocks.len(), plain.blocks.len());
        assert!(sparse_chained.blocks.len() <= sparse_plain.blocks.len());
        assert!(sparse_plain.blocks.len() <= plain.blocks.len());
        let saved = jumps(&plain) - jumps(&chained);
        let cfg = |mut f: Function| {
            f.verify().unwrap();
            opt::simplify_cfg(&mut f);
            f
        };
        assert_eq!(cfg(sparse_plain.clone()), cfg(plain.clone()));
        assert_eq!(cfg(sparse_chained.clone()), cfg(chained.clone()));
        let reference = simplified(plain);
        assert_eq!(simplified(chained), reference);
        assert_eq!(simplified(sparse_plain), reference);
        assert_eq!(simplified(sparse_chained), reference);
        saved
    }

    /// The states ending in a branch on cc.
    fn cc_branches(graph: &Graph) -> impl Iterator<Item = usize> + '_ {
        graph.nodes.iter().enumerate().filter_map(|(s, node)| {
            matches!(
                node.flow,
                Flow::If {
                    cond: Cond::Cc(_),
                    ..
                }
            )
            .then_some(s)
        })
    }

    #[test]
    fn straight_code_is_built_as_one_block() {
        for (size, seed) in [(24, 1), (50, 2), (500, 3)] {
            let p = synthetic::program(Shape::Straight, size, seed).unwrap();
            let g = graph::explore(&p, graph::MAX_STATES).unwrap();
            let (none, regions) = (HashMap::default(), Regions::new(g.nodes.len()));
            let [plain, chained, _, f] = builds(&p, &g, &none, &regions);
            f.verify().unwrap();
            // Block 0 holds every instruction and ends the invocation: no head block and no
            // exit block is made.
            assert_eq!(f.blocks.len(), 1);
            assert_eq!(f.blocks[0].term, Terminator::Exit);
            assert!(f.blocks[0].insts.len() > size);
            // Made up front, the heads are left empty and unreachable, and block 0 jumps to
            // the exit block.
            let Terminator::Jump(exit) = chained.blocks[0].term else {
                panic!("block 0 ends in {:?}", chained.blocks[0].term);
            };
            assert_eq!(chained.blocks[exit.0 as usize].term, Terminator::Exit);
            let rest: usize = chained.blocks[1..].iter().map(|b| b.insts.len()).sum();
            assert_eq!(rest, 0);
            assert_eq!(chained.blocks[0].insts, f.blocks[0].insts);
            assert_eq!(plain.blocks.len(), chained.blocks.len());
            assert_eq!(simplified(f), simplified(plain));
        }
    }

    #[test]
    fn chaining_is_what_cfg_simplification_would_merge() {
        let mut saved = 0;
        for (shape, size) in [
            (Shape::Branchy, 50),
            (Shape::Branchy, 200),
            (Shape::Branchy, 500),
            (Shape::Straight, 200),
        ] {
            for seed in 1..=6 {
                let p = synthetic::program(shape, size, seed).unwrap();
                let g = graph::explore(&p, graph::MAX_STATES).unwrap();
                let n = g.nodes.len();
                let none = HashMap::default();
                // As built first: every branch on cc a branch of the batch.
                saved += same_after_simplify(&p, &g, &none, &Regions::new(n));
                // Every branch that can be if-converted, with the rest as they are.
                let conversions: HashMap<usize, ifconv::Conversion> = cc_branches(&g)
                    .filter_map(|s| ifconv::convert(&g, &p.descs, s).map(|c| (s, c)))
                    .collect();
                saved += same_after_simplify(&p, &g, &conversions, &Regions::new(n));
                // Every branch that can fork a masked region, none if-converted.
                let mut regions = Regions::new(n);
                for s in cc_branches(&g).collect::<Vec<_>>() {
                    regions.add_fork(&g, &p.descs, &none, s);
                }
                saved += same_after_simplify(&p, &g, &none, &regions);
            }
        }
        assert!(saved > 100, "{saved} jumps saved");
    }

    /// On the generated straight programs (every size the benches use, five seeds each),
    /// forwarding register writes ([`Layout::forward`]) leaves no more instructions after the
    /// passes than copying them, and the function computes the same outputs (and, for the
    /// geometry shaders above 512 words, the same triangles) on random inputs and uniforms.
    #[test]
    fn forwarded_registers_build_no_more_than_copies() {
        let (mut copies, mut forwarded) = (0, 0);
        for size in std::iter::once(synthetic::MIN_SIZE).chain(synthetic::SIZES) {
            for seed in 1..=5 {
                let p = synthetic::program(Shape::Straight, size, seed).unwrap();
                let g = graph::explore(&p, graph::MAX_STATES).unwrap();
                let live = super::super::live::analyze(&p, &g);
                let (none, regions) = (HashMap::default(), Regions::new(g.nodes.len()));
                let [c, f] = [false, true].map(|forward| {
                    let layout = Layout {
                        chained: true,
                        sparse: true,
                        forward,
                        cons: false,
                    };
                    simplified(build_with(&p, &g, &live, &none, &regions, layout).func)
                });
                assert!(
                    f.inst_count() <= c.inst_count(),
                    "straight:{size}:{seed}: {} instructions forwarded, {} copied",
                    f.inst_count(),
                    c.inst_count()
                );
                copies += c.inst_count();
                forwarded += f.inst_count();
                let geometry = p.kind == crate::program::ShaderKind::Geometry;
                let outcome = |func: &Function| eval::outcome(func, geometry, seed);
                assert_eq!(
                    outcome(&c),
                    outcome(&f),
                    "straight:{size}:{seed}: forwarded and copied builds differ"
                );
            }
        }
        assert!(
            forwarded < copies,
            "{forwarded} instructions forwarded, {copies} copied"
        );
    }
}
