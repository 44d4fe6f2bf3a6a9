//! ALU bodies carried from one lane-position build to the next.
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

use picajit_codegen::ir::{BlockId, Function, Var};

use super::build::Ctx;

/// Where the ALU code of one state went in a build: the first `len` instructions of its head
/// `block`, with the variables `vars` (a range) made by the lowering; `masked` if it ran
/// under `exec`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Body {
    block: BlockId,
    len: u32,
    vars: (u32, u32),
    masked: bool,
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
            let (start, end) = body.vars;
            let own = |v: Var| v.0 < fixed || (start..end).contains(&v.0);
            let insts = &func.blocks[body.block.0 as usize].insts[..body.len as usize];
            if !insts
                .iter()
                .all(|i| i.dst.map_or(true, own) && i.uses().iter().all(|&a| own(a)))
            {
                *slot = None;
            }
        }
        Bodies { func, rec }
    }
}

impl Ctx<'_> {
    /// The ALU code of state `n` at the start of its (empty) head block, under `mask`: copied
    /// from `prev` when that build lowered the same code (same register variables, same
    /// masking), else lowered. `record` learns where it went. `plain`: the state is not
    /// if-converted (an if-converted state lowers its arms into the same block after its
    /// body, and they reuse its reads, so neither is recorded nor copied). Only arithmetic
    /// is carried over.
    pub(super) fn alu_body(
        &mut self,
        n: usize,
        mask: Option<Var>,
        plain: bool,
        prev: Option<&Bodies>,
        record: &mut Recording,
    ) {
        let block = self.b.current();
        let fresh_block = self.b.current_is_empty();
        let copy = prev
            .filter(|p| {
                plain
                    && fresh_block
                    && p.rec.fixed == record.fixed
                    && p.rec.tracked == record.tracked
            })
            .and_then(|p| p.rec.of[n].map(|body| (p, body)))
            .filter(|(_, body)| body.masked == mask.is_some());
        let start = self.b.vars_len() as u32;
        // Only arithmetic is recorded: EMIT and SETEMIT also change the emitter's state.
        let alu = match copy {
            Some((p, body)) => {
                let (first, end) = body.vars;
                for v in first..end {
                    self.b.var(p.func.vars[v as usize]);
                }
                let fixed = p.rec.fixed;
                let map = |v: Var| {
                    if v.0 < fixed {
                        v
                    } else {
                        Var(v.0 - first + start)
                    }
                };
                let insts = &p.func.blocks[body.block.0 as usize].insts[..body.len as usize];
                self.b.extend(insts.iter().map(|inst| {
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
            len: self.b.current_len() as u32,
            vars: (start, self.b.vars_len() as u32),
            masked: mask.is_some(),
        });
    }
}

#[cfg(test)]
mod tests {
    use rustc_hash::{FxHashMap, FxHashSet};

    use super::Bodies;
    use crate::frontend::{frontier, graph, lanes, live};
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
            let first = lanes::build(&p, &g, &l, &none, &plan, None);
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
                let copy = lanes::build(&p, &g, &l, &none, &plan, Some(&prev));
                let fresh = lanes::build(&p, &g, &l, &none, &plan, None);
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
}
