//! ALU bodies carried from one build to the next.
//!
//! The lane-position model builds the whole function once per round of its uniformity search
//! (`lower_lanes`), and a round changes only the control around the states: which conditions
//! are branches of the batch, hence the schedule and which states run converged. A state's
//! ALU code, the first thing in its head block, depends only on its instruction, the register
//! variables (the same when the same output components are tracked), the live components and
//! whether it runs under `exec`. So a build records where each state's ALU code went
//! ([`Body`]), and the next build copies the code of every state whose inputs are unchanged
//! instead of lowering its instruction again: the same instructions, the variables the
//! lowering made renumbered to the ones the copy makes, in the same order and of the same
//! types. The function built is the one lowering would give (under `cfg(test)` each round is
//! also built from scratch and compared).
//!
//! The first lane-position build copies from the build of the uniform model that sent the
//! program there ([`Uniform`]): a state that runs converged lowers its instruction unmasked in
//! both, and both declare r, a0 and cc first, as the same variables. Only code that names no
//! other variable of that build than those and its own is copied, and none that reads a
//! uniform relative to aL (a batch-scalar read there, a per-lane one here) or stores an
//! output (whose tracking differs between the two); code that follows other code in its
//! block there is copied only if it reused none of that code's reads
//! (`alu::Scratch::reused`). What is left is lowered the same way in both.

use picajit_codegen::ir::{BlockId, Function, Op, Var};

use super::build::Ctx;
use super::regs::Regs;

/// Where the ALU code of one state went in a build: `len` instructions of `block` from
/// `start` (0 in a head block of the lane-position model), with the variables `vars` (a
/// range) made by the lowering; `masked` if it ran under a lane mask.
#[derive(Clone, Copy, Debug)]
pub(super) struct Body {
    pub block: BlockId,
    pub start: u32,
    pub len: u32,
    pub vars: (u32, u32),
    pub masked: bool,
}

/// The ALU bodies of a build of the uniform model (`build::Built::bodies`), to copy into the
/// first lane-position build.
#[derive(Clone, Copy)]
pub(super) struct Uniform<'a> {
    pub func: &'a Function,
    pub of: &'a [Option<Body>],
}

/// What a lane-position build may copy ALU code from: the build before it, or for the first
/// one the uniform model's build.
#[derive(Clone, Copy, Default)]
pub(super) struct Sources<'a> {
    pub prev: Option<&'a Bodies>,
    pub uniform: Option<Uniform<'a>>,
}

/// The variables both models declare first, as the same numbers: r0–r15 (four components
/// each), a0.x, a0.y, cc.x, cc.y (`regs::Regs::new`).
const SHARED_VARS: u32 = 16 * 4 + 2 + 2;

/// True if `regs` declares r, a0 and cc first, in that order, as [`SHARED_VARS`] says: only
/// then is ALU code copied between the two models.
pub(super) fn shared_first(regs: &Regs) -> bool {
    let shared = regs.r.iter().flatten().chain(&regs.a0).chain(&regs.cc);
    shared.clone().count() == SHARED_VARS as usize
        && shared.enumerate().all(|(i, v)| v.0 as usize == i)
}

/// What a build records of its states' bodies ([`Ctx::alu_body`]).
pub(super) struct Recording {
    /// Per state: its body, if it was recorded.
    pub of: Vec<Option<Body>>,
    /// The tracked output components the build's register variables were made for.
    pub tracked: [u8; 16],
    /// Variables made before any state's code (registers, lane state).
    pub fixed: u32,
    /// States whose code was copied from the previous build.
    pub copied: usize,
}

/// The ALU bodies of one lane-position build, to copy from.
pub(super) struct Bodies {
    /// The build they are in.
    func: Function,
    rec: Recording,
}

impl Bodies {
    /// The bodies `rec` recorded while building `func`, those that name only the variables
    /// made before any state's code and their own.
    pub(super) fn new(func: Function, mut rec: Recording) -> Bodies {
        let fixed = rec.fixed;
        for slot in &mut rec.of {
            let Some(body) = *slot else { continue };
            if !names_only(&func, body, fixed) {
                *slot = None;
            }
        }
        Bodies { func, rec }
    }
}

/// The instructions of `body` in `func`.
fn insts(func: &Function, body: Body) -> &[picajit_codegen::ir::Inst] {
    let start = body.start as usize;
    &func.blocks[body.block.0 as usize].insts[start..start + body.len as usize]
}

/// True if the code of `body` in `func` names only variables below `fixed` and its own.
fn names_only(func: &Function, body: Body, fixed: u32) -> bool {
    let (start, end) = body.vars;
    let own = |v: Var| v.0 < fixed || (start..end).contains(&v.0);
    insts(func, body)
        .iter()
        .all(|i| i.dst.map_or(true, own) && i.uses().iter().all(|&a| own(a)))
}

impl Ctx<'_> {
    /// The ALU code of state `n` at the start of its (empty) head block, under `mask`: copied
    /// from a build in `from` that lowered the same code (the previous lane-position build with
    /// the same register variables and masking, or the uniform model's build for a converged
    /// state), else lowered. `record` learns where it went. `plain`: the state is not
    /// if-converted (an if-converted state lowers its arms into the same block after its
    /// body, and they reuse its reads, so neither is recorded nor copied). Only arithmetic
    /// is carried over.
    pub(super) fn alu_body(
        &mut self,
        n: usize,
        mask: Option<Var>,
        plain: bool,
        from: Sources<'_>,
        record: &mut Recording,
    ) {
        let block = self.b.current();
        let fresh_block = self.b.current_is_empty();
        let from_prev = from
            .prev
            .filter(|p| p.rec.fixed == record.fixed && p.rec.tracked == record.tracked)
            .and_then(|p| p.rec.of[n].map(|body| (&p.func, body, p.rec.fixed)))
            .filter(|(_, body, _)| body.masked == mask.is_some());
        let from_uniform = || {
            let u = from.uniform.filter(|_| mask.is_none())?;
            let body = u.of.get(n).copied().flatten()?;
            let carried = !body.masked
                && names_only(u.func, body, SHARED_VARS)
                && insts(u.func, body)
                    .iter()
                    .all(|i| !matches!(i.op, Op::UniformAl | Op::Output));
            carried.then_some((u.func, body, SHARED_VARS))
        };
        let copy = from_prev
            .or_else(from_uniform)
            .filter(|_| plain && fresh_block);
        let start = self.b.vars_len() as u32;
        // Only arithmetic is recorded: EMIT and SETEMIT also change the emitter's state.
        let alu = match copy {
            Some((func, body, fixed)) => {
                let (first, end) = body.vars;
                for v in first..end {
                    self.b.var(func.vars[v as usize]);
                }
                let map = |v: Var| {
                    if v.0 < fixed {
                        v
                    } else {
                        Var(v.0 - first + start)
                    }
                };
                self.b.extend(insts(func, body).iter().map(|inst| {
                    let mut inst = *inst;
                    inst.dst = inst.dst.map(map);
                    let uses = inst.uses().len();
                    for a in &mut inst.args[..uses] {
                        *a = map(*a);
                    }
                    inst
                }));
                record.copied += 1;
                true
            }
            None => self.instruction(n, mask),
        };
        // Recorded only if the code stayed in the block ([`Bodies::new`] checks the
        // variables).
        record.of[n] = (alu && plain && fresh_block && self.b.current() == block).then(|| Body {
            block,
            start: 0,
            len: self.b.current_len() as u32,
            vars: (start, self.b.vars_len() as u32),
            masked: mask.is_some(),
        });
    }
}

#[cfg(test)]
mod tests {
    use rustc_hash::{FxHashMap, FxHashSet};

    use super::{Bodies, Sources};
    use crate::frontend::{build, frontier, graph, lanes, live, masked};
    use crate::synthetic::{program, Shape};

    /// On generated branchy programs, a lane-position build that copies the ALU code of the
    /// build before it (with no condition uniform) equals one built from scratch, whichever
    /// conditions it makes branches of the batch (none, every other one, all); at least two
    /// thirds of the scheduled states' code is copied (the others are flow instructions, or
    /// run masked in one build and converged in the other).
    #[test]
    fn copied_bodies_build_the_same_function() {
        let mut copied = 0;
        let mut states = 0;
        for (size, seed) in [(50, 1), (200, 2), (500, 3), (500, 4)] {
            let p = program(Shape::Branchy, size, seed).expect("generated");
            let g = graph::explore(&p, graph::MAX_STATES).expect("explored");
            let l = live::analyze(&p, &g);
            let none = FxHashMap::default();
            let plan = frontier::plan(&g, &none, FxHashSet::default());
            let first = lanes::build(&p, &g, &l, &none, &plan, Default::default());
            let nodes: Vec<frontier::NodeId> = first.sites.iter().map(|&(n, _, _)| n).collect();
            let prev = Bodies::new(first.func, first.bodies);
            for pick in 0..3 {
                let chosen: FxHashSet<frontier::NodeId> = nodes
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| pick == 2 || (pick == 1 && i % 2 == 0))
                    .map(|(_, &n)| n)
                    .collect();
                let plan = frontier::plan(&g, &none, chosen);
                let from = Sources {
                    prev: Some(&prev),
                    uniform: None,
                };
                let copy = lanes::build(&p, &g, &l, &none, &plan, from);
                let fresh = lanes::build(&p, &g, &l, &none, &plan, Default::default());
                assert!(
                    copy.func == fresh.func,
                    "branchy:{size}:{seed}, choice {pick}"
                );
                assert_eq!(fresh.bodies.copied, 0);
                copied += copy.bodies.copied;
                states += plan.order.len();
            }
        }
        assert!(
            copied * 3 >= states * 2,
            "{copied} of {states} states' code copied"
        );
    }

    /// On generated branchy programs, vertex and geometry, the first lane-position build
    /// with ALU code copied from the uniform model's build equals one built from scratch, and
    /// at least half of the scheduled states' code is copied (the others run masked, read
    /// aL-relative uniforms, store outputs, or reuse reads of code before them in their block).
    #[test]
    fn uniform_bodies_build_the_same_lane_function() {
        let mut copied = 0;
        let mut states = 0;
        for (size, seed) in [(50, 1), (200, 2), (500, 3), (700, 4), (1000, 5)] {
            let p = program(Shape::Branchy, size, seed).expect("generated");
            let g = graph::explore(&p, graph::MAX_STATES).expect("explored");
            let l = live::analyze(&p, &g);
            let none = FxHashMap::default();
            let regions = masked::Regions::new(g.nodes.len());
            let uniform = build::build(&p, &g, &l, &none, &regions);
            let plan = frontier::plan(&g, &none, FxHashSet::default());
            let from = Sources {
                prev: None,
                uniform: Some(uniform.carried()),
            };
            let copy = lanes::build(&p, &g, &l, &none, &plan, from);
            let fresh = lanes::build(&p, &g, &l, &none, &plan, Sources::default());
            assert!(copy.func == fresh.func, "branchy:{size}:{seed}");
            copied += copy.bodies.copied;
            states += plan.order.len();
        }
        assert!(
            copied * 2 >= states,
            "{copied} of {states} states' code copied"
        );
    }
}
