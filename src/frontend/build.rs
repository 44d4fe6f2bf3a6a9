//! From the state graph to an IR function: block 0 initializes the registers, every abstract state
//! gets a head block (unless its code surely goes on in the block before it, `heads`) holding its
//! instruction's ALU code followed by its step's decision tree; conditions become terminators
//! (`BranchBool`, `BranchUniform` on a mask computed from cc, `LoopNext`), effects become
//! `LoopPush`/`AlInc`/`AlRestore`/`Budget` on the path they belong to, each arm of a condition in
//! its own (edge) block. A state whose only way in is the block built just before it goes on in
//! that block (`chain`); CFG simplification later merges what chains remain. A state whose
//! per-vertex branch is if-converted (`ifconv`) instead runs both arms' arithmetic under lane
//! predicates and jumps to the join state. The states of a masked region (`masked`) run their
//! arithmetic under the region's lane mask; its forks narrow the mask and leave with `BranchAny`.

use rustc_hash::FxHashMap as HashMap;

use picajit_codegen::ir::{BlockId, Builder, Function, Op, Terminator, Ty, Var};

use crate::isa::{CondOp, DstKind, Fmt2};
use crate::program::Program;

use super::alu::{self, Step};
use super::bodies::Body;
use super::chain::Chain;
use super::cons::Values;
use super::emitter::Emitter;
use super::graph::{Cond, Effect, Flow, Graph, Target};
use super::ifconv::{self, Conversion};
use super::live::Liveness;
use super::masked::Regions;
use super::regs::Regs;

mod heads;

/// The function, and for each `BranchUniform` the block holding it and the state whose
/// instruction branches.
pub(super) struct Built {
    pub func: Function,
    pub cc_branches: Vec<(BlockId, usize)>,
    /// Where the instructions of states went ([`Span`]), from the first state built after a
    /// branch on cc (or every state, when some branch is if-converted or masked).
    pub spans: Vec<Span>,
    /// Per state: its ALU code, if it was lowered unmasked into one block (for the
    /// lane-position model to copy, [`super::bodies::Uniform`]).
    pub bodies: Vec<Option<Body>>,
    /// The builder hash-consed every pure instruction ([`super::cons`]): common-subexpression
    /// elimination would find nothing.
    pub consed: bool,
}

impl Built {
    /// Its ALU code, for the lane-position model to copy.
    pub(super) fn carried(&self) -> super::bodies::Uniform<'_> {
        super::bodies::Uniform {
            func: &self.func,
            of: &self.bodies,
        }
    }
}

/// The instructions lowered for a state's instruction where the state is built on its own
/// (not as an if-converted arm inside another state).
#[derive(Clone, Copy, Debug)]
pub(super) struct Span {
    pub state: usize,
    pub block: BlockId,
    /// Instructions `start..end` of the block; `None` if the lowering went on in other blocks.
    pub range: Option<(usize, usize)>,
}

pub(super) struct Ctx<'a> {
    pub(super) b: Builder,
    /// The ALU lowering's lists, reused from one instruction to the next.
    pub(super) scratch: alu::Scratch,
    pub(super) regs: Regs,
    /// Per state: its head block ([`heads::UNMADE`] for a state whose code surely goes on in
    /// the block before it).
    pub(super) heads: Vec<BlockId>,
    pub(super) exit: BlockId,
    pub(super) descs: &'a [u32],
    pub(super) graph: &'a Graph,
    pub(super) cc_branches: Vec<(BlockId, usize)>,
    pub(super) regions: &'a Regions,
    /// The lane mask of each region.
    pub(super) masks: Vec<Var>,
    /// A region entered by a fork's staying arm: its mask is set by the fork, not reset.
    pub(super) forking: Option<usize>,
    /// A function with masked regions counts the budget per lane ([`LaneBudget`]).
    pub(super) lane_budget: Option<LaneBudget>,
    /// The lane-position model's state, when the function is built in it ([`super::lanes`]).
    pub(super) lanes: Option<super::lanes::Lanes<'a>>,
    /// Straight chains built as one block, where that is allowed ([`Chain`]).
    pub(super) chain: Option<Chain>,
    /// Which temporary register components each state's successors read, and the loads of the
    /// live components ([`super::live`]).
    pub(super) live: &'a Liveness,
}

/// The step budget of each lane, in a function with masked regions: each `Budget` of the
/// graph spends one unit in the lanes running it; a lane with none left is retired with status
/// "exhausted" and leaves every mask (`live` and the masks of the regions around it), while the
/// others go on. Lanes still live at the end are retired there (ended), so every lane's outputs
/// are its retired outputs.
#[derive(Clone, Copy)]
pub(super) struct LaneBudget {
    /// Per lane: backward transfers left.
    pub budget: Var,
    /// The lanes not retired.
    pub live: Var,
}

/// Builds the IR of an explored program, with the branches of the states in `conversions`
/// if-converted and the states of `regions` masked; straight chains go into one block
/// ([`Chain`]).
pub(super) fn build(
    program: &Program,
    graph: &Graph,
    live: &Liveness,
    conversions: &HashMap<usize, Conversion>,
    regions: &Regions,
) -> Built {
    let layout = Layout {
        chained: true,
        sparse: true,
        forward: true,
        cons: true,
    };
    build_with(program, graph, live, conversions, regions, layout)
}

/// How [`build_with`] lays out blocks; [`build`] does both. The tests compare each against
/// the build without it, after the passes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    /// Straight chains go on in one block ([`Chain`]); off: a block per state and per arm,
    /// as CFG simplification expects to find them.
    pub chained: bool,
    /// No head block for the states whose code surely goes on in the block before them
    /// ([`heads`]), and no exit block where one jump enters it last; off: every head.
    pub sparse: bool,
    /// Where every state goes on in the block before it (the function is one block, in
    /// program order) and no write is under a lane predicate, register writes make the value
    /// the register's instead of copying it ([`Regs::forward`]); off: copies.
    pub forward: bool,
    /// Where registers are forwarded, the builder hash-conses pure instructions
    /// ([`super::cons`]); off: CSE finds the repeats.
    pub cons: bool,
}

/// [`build`] with the block [`Layout`] `layout`.
pub(super) fn build_with(
    program: &Program,
    graph: &Graph,
    live: &Liveness,
    conversions: &HashMap<usize, Conversion>,
    regions: &Regions,
    layout: Layout,
) -> Built {
    // Straight code is built into the entry block: room for the register initialization and
    // a few instructions per state (an ALU instruction lowers to about four and a half).
    let room = 128 + 6 * graph.nodes.len();
    let mut b = Builder::with_capacity(room, room);
    b.use_loop_slots(graph.loop_slots);
    let predicated = conversions
        .values()
        .flat_map(|c| c.then.iter().chain(&c.other).copied());
    let masked = regions.list.iter().flat_map(|r| r.states.iter().copied());
    let geometry = program.kind == crate::program::ShaderKind::Geometry;
    let tracked = if geometry {
        ifconv::tracked_outputs(graph, &program.descs, 0..graph.nodes.len())
    } else {
        ifconv::tracked_outputs(graph, &program.descs, predicated.chain(masked))
    };
    let mut regs = Regs::new(&mut b, &tracked);
    let plain = conversions.is_empty() && regions.list.is_empty();
    let entry = b.current();
    let chain = layout
        .chained
        .then(|| Chain::new(graph, conversions, entry));
    regs.forward = layout.forward && plain && chain.as_ref().is_some_and(|c| c.all_sure());
    // One block of single writes: every pure instruction goes through the table.
    let mut scratch = alu::Scratch::new(match layout.cons && regs.forward {
        // About two pure instructions per state remain after the repeats.
        true => Values::with_room(64 + 3 * graph.nodes.len()),
        false => Values::off(),
    });
    regs.init(&mut b, &mut scratch.values, live, plain);
    if geometry {
        regs.emitter = Some(Emitter::new(&mut b, &mut scratch.values, &tracked, graph));
    }
    let masks = regions.list.iter().map(|_| b.var(Ty::Mask)).collect();
    let lane_budget = (!regions.list.is_empty()).then(|| {
        let lb = LaneBudget {
            budget: b.var(Ty::I32),
            live: b.var(Ty::Mask),
        };
        b.inst_to(Op::BudgetLanes, lb.budget, &[], [0, 0]);
        b.inst_to(Op::MaskConst, lb.live, &[], [1, 0]);
        lb
    });
    let heads = heads::make(
        &mut b,
        graph.nodes.len(),
        chain.as_ref().filter(|_| layout.sparse),
    );
    let exit = b.block();
    let mut cx = Ctx {
        b,
        scratch,
        regs,
        heads,
        exit,
        descs: &program.descs,
        graph,
        cc_branches: Vec::new(),
        regions,
        masks,
        forking: None,
        lane_budget,
        lanes: None,
        chain,
        live,
    };
    let mut spans = Vec::new();
    // Recorded only where the lane-position model can copy them; it runs only for branches
    // on cc, which straight code and uniform control flow do not have.
    let carried = super::bodies::shared_first(&cx.regs)
        && graph.nodes.iter().any(|node| node.flow.tests_cc());
    let mut bodies = vec![None; if carried { graph.nodes.len() } else { 0 }];
    // Spans are only asked for about the states of if-converted arms and masked regions.
    let mut record = !conversions.is_empty() || !regions.list.is_empty();
    cx.b.switch_to(entry);
    cx.go(None, graph.entry, 0);
    for (n, node) in graph.nodes.iter().enumerate() {
        let start = cx.chain.as_mut().and_then(|c| c.start(n));
        let start = start.unwrap_or_else(|| cx.head(n));
        if let Some(c) = cx.chain.as_mut() {
            c.begin(start);
        }
        cx.b.switch_to(start);
        let mask = cx.mask_of(n);
        record = record || !cx.cc_branches.is_empty();
        let (block, start, vars) = (cx.b.current(), cx.b.current_len(), cx.b.vars_len());
        let alu = cx.instruction(n, mask);
        let range = (cx.b.current() == block).then(|| (start, cx.b.current_len()));
        if record {
            spans.push(Span {
                state: n,
                block,
                range,
            });
        }
        if let Some(slot) = bodies.get_mut(n) {
            // Code lowered after other code in its block may have reused what that code read
            // (and then lacks instructions, even without naming that code's variables).
            let alone = start == 0 || !cx.scratch.reused();
            *slot = range
                .filter(|_| alu && alone && mask.is_none())
                .map(|(start, end)| Body {
                    block,
                    start: start as u32,
                    len: (end - start) as u32,
                    vars: (vars as u32, cx.b.vars_len() as u32),
                    masked: false,
                });
        }
        match (conversions.get(&n), regions.fork_of(n), &node.flow) {
            (
                Some(conv),
                _,
                Flow::If {
                    cond: Cond::Cc(f), ..
                },
            ) => cx.predicated(f, conv, n),
            (
                None,
                Some((r, leave_is_then)),
                Flow::If {
                    cond: Cond::Cc(f),
                    then,
                    other,
                },
            ) => {
                let (leave, stay) = if leave_is_then {
                    (then, other)
                } else {
                    (other, then)
                };
                cx.fork(n, r, f, leave_is_then, leave, stay)
            }
            (
                None,
                None,
                Flow::If {
                    cond: Cond::Cc(_), ..
                },
            )
            | (
                None | Some(_),
                None | Some(_),
                Flow::Do(..)
                | Flow::Goto(_)
                | Flow::LoopNext { .. }
                | Flow::If {
                    cond: Cond::Bool(_),
                    ..
                },
            ) => cx.flow(&node.flow, n),
        }
    }
    cx.b.switch_to(exit);
    if let Some(lb) = lane_budget {
        cx.b.effect(Op::Retire, &[lb.live], [0, 0]);
    }
    cx.b.terminate(Terminator::Exit);
    let mut func = cx.b.finish();
    if layout.sparse {
        heads::drop_lone_exit(&mut func, exit);
    }
    Built {
        func,
        cc_branches: cx.cc_branches,
        spans,
        bodies,
        consed: cx.scratch.values.on,
    }
}

impl Ctx<'_> {
    /// The head block of state `s` ([`heads::made`]).
    pub(super) fn head(&mut self, s: usize) -> BlockId {
        heads::made(&mut self.b, &mut self.heads[s])
    }

    fn target(&mut self, t: Target) -> BlockId {
        match t {
            Target::State(s) => self.head(s),
            Target::Exit => self.exit,
        }
    }

    /// The lane mask state `s` runs under, if it is in a masked region (or, in the
    /// lane-position model, if other lanes may be waiting elsewhere while it runs).
    pub(super) fn mask_of(&self, s: usize) -> Option<Var> {
        if let Some(l) = &self.lanes {
            return (!l.plan.converged(s)).then_some(l.exec);
        }
        self.regions
            .of
            .get(s)
            .copied()
            .flatten()
            .map(|r| self.masks[r])
    }

    /// The block of target `t` reached from state `from` (`None`: the entry), after
    /// [`Ctx::set_masks`].
    fn enter(&mut self, from: Option<usize>, t: Target) -> BlockId {
        self.set_masks(from, t);
        self.target(t)
    }

    /// Entering masked regions from outside them on the way from state `from` (`None`: the
    /// entry) to `t` sets their masks (in the current block, outermost first): a region's
    /// mask starts as its parent's, or every lane — unless a fork is entering it.
    fn set_masks(&mut self, from: Option<usize>, t: Target) {
        if let Target::State(x) = t {
            let chain = |mut r: Option<usize>| {
                let mut all = Vec::new();
                while let Some(k) = r {
                    all.push(k);
                    r = self.regions.list[k].parent;
                }
                all
            };
            let outside = chain(from.and_then(|f| self.regions.of[f]));
            for k in chain(self.regions.of[x]).into_iter().rev() {
                if outside.contains(&k) || self.forking == Some(k) {
                    continue;
                }
                match self.regions.list[k].parent {
                    Some(p) => {
                        let m = self.masks[p];
                        self.b.inst_to(Op::MaskMov, self.masks[k], &[m], [0, 0]);
                    }
                    None => match self.lane_budget {
                        Some(lb) => self
                            .b
                            .inst_to(Op::MaskMov, self.masks[k], &[lb.live], [0, 0]),
                        None => self.b.inst_to(Op::MaskConst, self.masks[k], &[], [1, 0]),
                    },
                }
            }
        }
    }

    /// The instruction of state `s`, under `pred` ([`alu::step`]: flow instructions and those
    /// without effect in a vertex shader emit nothing here). Only the destination components
    /// live after it ([`super::live`]) are computed. True if it is arithmetic (lowered by
    /// [`alu::lower`]).
    pub(super) fn instruction(&mut self, s: usize, pred: Option<Var>) -> bool {
        let (math, ops) = match alu::step_inline(&self.graph.nodes[s].instr) {
            Step::Alu(math, ops) => (math, ops),
            Step::Emit => {
                self.emit(s, pred);
                return false;
            }
            Step::SetEmit(f) => {
                self.set_emit(&f, pred);
                return false;
            }
            Step::Other => return false,
        };
        // Destination components no path reads before overwriting them are not computed.
        let live = match ops.dst.kind() {
            DstKind::Temp(r) => (self.live.after[s] >> (4 * u32::from(r))) as u8 & 0xF,
            DstKind::Output(_) => 0xF,
        };
        let ins = alu::Lowering {
            math,
            ops: &ops,
            live,
            pred,
        };
        alu::lower(
            &mut self.b,
            &mut self.scratch,
            &mut self.regs,
            self.descs,
            &self.live.loads,
            ins,
        );
        true
    }

    /// An if-converted branch of state `n`: the taken arm under the condition, the other arm
    /// under its complement (both within the region mask of `n`), then the join.
    pub(super) fn predicated(&mut self, f: &Fmt2, conv: &Conversion, n: usize) {
        // Both predicates before either arm: `cond` may be a cc variable an arm writes.
        let cond = self.cc_mask(f);
        let not_cond = self.b.unary(Op::MaskNot, cond);
        let (taken, not_taken) = match self.mask_of(n) {
            Some(m) => (
                self.b.binary(Op::MaskAnd, cond, m),
                self.b.binary(Op::MaskAnd, not_cond, m),
            ),
            None => (self.b.unary(Op::MaskMov, cond), not_cond),
        };
        for &s in &conv.then {
            self.instruction(s, Some(taken));
        }
        for &s in &conv.other {
            self.instruction(s, Some(not_taken));
        }
        if self.lanes.is_some() {
            let leaves = vec![(Target::State(conv.join), super::lanes::Path::Full)];
            self.schedule(n, leaves, false);
            return;
        }
        let join = self.enter(Some(n), Target::State(conv.join));
        self.b.terminate(Terminator::Jump(join));
    }

    /// A fork of region `r` at state `n`: the lanes whose condition sends them along `leave`
    /// leave the region's mask; if lanes remain they continue along `stay`, else the batch
    /// leaves (with the leaving arm's effects).
    fn fork(
        &mut self,
        n: usize,
        r: usize,
        f: &Fmt2,
        leave_is_then: bool,
        leave: &Flow,
        stay: &Flow,
    ) {
        let cond = self.cc_mask(f);
        let staying = if leave_is_then {
            self.b.unary(Op::MaskNot, cond)
        } else {
            self.b.unary(Op::MaskMov, cond)
        };
        let inside = match (self.mask_of(n), self.lane_budget) {
            (Some(m), _) => self.b.binary(Op::MaskAnd, staying, m),
            (None, Some(lb)) => self.b.binary(Op::MaskAnd, staying, lb.live),
            (None, None) => staying,
        };
        let (s, l) = (self.b.block(), self.b.block());
        self.b.terminate(Terminator::BranchAny {
            mask: inside,
            then: s,
            other: l,
        });
        self.b.switch_to(s);
        self.b
            .inst_to(Op::MaskMov, self.masks[r], &[inside], [0, 0]);
        self.forking = Some(r);
        self.flow(stay, n);
        self.forking = None;
        self.arm(l, leave, n);
    }

    /// The mask of a format-2 condition: `ok_x = (cc.x == REFX)`, `ok_y = (cc.y == REFY)`,
    /// combined by CONDOP.
    pub(super) fn cc_mask(&mut self, f: &Fmt2) -> Var {
        // Through the hash-consing table (a one-block function's last state may branch).
        let values = &mut self.scratch.values;
        let mut ok = |b: &mut Builder, i: usize, want: bool| {
            let cc = self.regs.cc[i];
            if want {
                cc
            } else {
                values.inst(b, Op::MaskNot, &[cc], [0, 0])
            }
        };
        let op = match f.condop {
            CondOp::X => return ok(&mut self.b, 0, f.refx),
            CondOp::Y => return ok(&mut self.b, 1, f.refy),
            CondOp::Or => Op::MaskOr,
            CondOp::And => Op::MaskAnd,
        };
        let x = ok(&mut self.b, 0, f.refx);
        let y = ok(&mut self.b, 1, f.refy);
        values.inst(&mut self.b, op, &[x, y], [0, 0])
    }

    fn effect(&mut self, e: &Effect, state: usize) {
        match *e {
            Effect::LoopPush { slot, int } => {
                self.b
                    .effect(Op::LoopPush, &[], [u32::from(slot), u32::from(int)])
            }
            Effect::AlInc { slot, .. } => self.b.effect(Op::AlInc, &[], [u32::from(slot), 0]),
            Effect::AlRestore(slot) => self.b.effect(Op::AlRestore, &[], [u32::from(slot), 0]),
            Effect::Budget => match self.lane_budget {
                Some(lb) => self.lane_spend(lb, state),
                None => self.b.effect(Op::Budget, &[], [1, 0]),
            },
        }
    }

    /// One unit of budget for the lanes running state `state` ([`LaneBudget`]).
    fn lane_spend(&mut self, lb: LaneBudget, state: usize) {
        // The masks holding the running lanes, innermost first (a fork's staying arm runs
        // under the mask of the region it enters).
        let mut chain = Vec::new();
        let mut r = self.forking.or_else(|| self.regions.of[state]);
        while let Some(k) = r {
            chain.push(self.masks[k]);
            r = self.regions.list[k].parent;
        }
        let running = chain.first().copied().unwrap_or(lb.live);
        let zero = self.b.inst(Op::IConst, &[], [0, 0]);
        let empty = self.b.binary(Op::IEq, lb.budget, zero);
        let exhausted = self.b.binary(Op::MaskAnd, running, empty);
        let (rare, cont) = (self.b.block(), self.b.block());
        self.b.terminate(Terminator::BranchAny {
            mask: exhausted,
            then: rare,
            other: cont,
        });
        // Lanes out of budget end here, and leave every mask.
        self.b.switch_to(rare);
        self.b.effect(Op::Retire, &[exhausted], [1, 0]);
        for m in chain.into_iter().chain([lb.live]) {
            self.b.inst_to(Op::MaskAndNot, m, &[m, exhausted], [0, 0]);
        }
        self.b.terminate(Terminator::BranchAny {
            mask: lb.live,
            then: cont,
            other: self.exit,
        });
        self.b.switch_to(cont);
        let minus_one = self.b.inst(Op::IConst, &[], [u32::MAX, 0]);
        let less = self.b.binary(Op::IAdd, lb.budget, minus_one);
        self.b
            .inst_to(Op::ISelect, lb.budget, &[running, less, lb.budget], [0, 0]);
    }

    /// Emits a decision tree from the current block; every arm gets a block of its own.
    fn flow(&mut self, flow: &Flow, state: usize) {
        match flow {
            Flow::Do(e, rest) => {
                self.effect(e, state);
                self.flow(rest, state);
            }
            Flow::Goto(t) => self.go(Some(state), *t, state + 1),
            Flow::If { cond, then, other } => {
                let term = |t: BlockId, o: BlockId, cx: &mut Self| match *cond {
                    Cond::Bool(id) => Terminator::BranchBool {
                        id,
                        then: t,
                        other: o,
                    },
                    Cond::Cc(f) => {
                        let mask = cx.cc_mask(&f);
                        cx.cc_branches.push((cx.b.current(), state));
                        Terminator::BranchUniform {
                            mask,
                            then: t,
                            other: o,
                        }
                    }
                };
                let (t, o) = (self.b.block(), self.b.block());
                let term = term(t, o, self);
                self.b.terminate(term);
                self.arm(t, then, state);
                self.arm(o, other, state);
            }
            Flow::LoopNext { slot, repeat, exit } => {
                let (r, x) = (self.b.block(), self.b.block());
                self.b.terminate(Terminator::LoopNext {
                    slot: *slot,
                    repeat: r,
                    exit: x,
                });
                self.arm(r, repeat, state);
                self.arm(x, exit, state);
            }
        }
    }

    /// Goes from state `from` (`None`: the entry) to `to`, state `next` being the one built
    /// next: in this block if it chains ([`Chain`]), else by a jump (whose target block is
    /// made only then).
    fn go(&mut self, from: Option<usize>, to: Target, next: usize) {
        self.set_masks(from, to);
        if !self.chains(to, next) {
            let block = self.target(to);
            self.b.terminate(Terminator::Jump(block));
        }
    }

    /// Whether a jump from the current block to `to` goes on in this block instead, state
    /// `next` being the one built next ([`Chain`]).
    fn chains(&mut self, to: Target, next: usize) -> bool {
        match &mut self.chain {
            Some(c) => c.join(&self.b, to, next),
            None => false,
        }
    }

    fn arm(&mut self, block: BlockId, flow: &Flow, state: usize) {
        self.b.switch_to(block);
        self.flow(flow, state);
    }
}
