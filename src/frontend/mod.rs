//! The frontend: a decoded PICA200 program → a [`picajit_codegen::ir::Function`] that computes
//! exactly what the reference interpreter computes (outputs and status, bit for bit) for every
//! vertex of a batch.
//!
//! ```text
//!  Program ──graph──▶ abstract control states ──build──▶ IR (+ ALU lowering per state)
//!                   ▲                                      │ uniform: every cc branch uniform?
//!                   └── if-convert a divergent branch ─────┤ (else BranchAgree)
//!                                                          ▼
//!                                      simplify_cfg · dce · simplify_cfg ──▶ Lowered
//! ```
//!
//! - [`graph`]: control-flow recovery by exhaustive abstract execution of the interpreter's
//!   control state (pc and the three bounded stacks, loop dynamic values in *slots*).
//! - `build`: one head block per state (its ALU code, then its decision tree of conditions,
//!   aL/loop effects and budget spends), block 0 initializing r/a0/cc.
//! - `alu`: per-component ALU lowering (swizzle, negation and mask folded into variable
//!   selection, `PMul` for every PICA multiply).
//! - `uniform`: uniformity analysis; a branch on cc is only compiled as a branch when the mask
//!   it tests is provably the same in every lane.
//! - [`ifconv`]: a per-vertex branch whose two arms are short straight-line arithmetic meeting
//!   again is if-converted (both arms run under lane predicates); any other per-vertex branch
//!   makes the program unsupported.
//! - [`eval`]: the IR evaluator.
//!
//! # The boundary
//!
//! The IR's control state (aL, loop counters, budget) is batch-scalar, so it can only express
//! programs in which all lanes take the same path. [`lower`] if-converts the per-vertex
//! branches it can; any other branch on a cc value that may differ between vertices becomes a
//! `BranchAgree`, taken when every lane agrees (a batch whose lanes disagree stops with status
//! 3 and the host reruns its vertices one at a time, each broadcast to all lanes). What stays
//! [`Unsupported`]: control flow with more than
//! [`graph::MAX_STATES`] abstract states. The engine runs those on the interpreter, exactly.
//! Everything else — vertex and geometry shaders with uniform control flow, including
//! unstructured jumps, stack overflow and the CALL quirks — lowers. Geometry shaders' EMIT and
//! SETEMIT become [`Op::Emit`](picajit_codegen::ir::Op::Emit)/[`Op::SetEmit`](picajit_codegen::ir::Op::SetEmit) (the emitter state is batch-uniform along a
//! uniform path, so every lane emits together).
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
mod build;
pub mod eval;
pub mod graph;
pub mod ifconv;
pub mod masked;
mod regs;
mod uniform;

#[cfg(test)]
mod eval_tests;

use rustc_hash::FxHashMap as HashMap;

use picajit_codegen::ir::{Function, Terminator, VerifyError};
use picajit_codegen::opt;
use picajit_codegen::timings::Clock;
use thiserror::Error;

use crate::program::Program;

/// A lowered program and what it took.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The IR; it passes [`Function::verify`] and every CFG cycle spends budget.
    pub func: Function,
    pub stats: Stats,
}

/// Sizes along the way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Stats {
    /// Abstract control states explored (each became a head block).
    pub states: usize,
    /// Blocks of the final function.
    pub blocks: usize,
    /// Per-vertex branches taken only when all lanes agree (`BranchAgree`).
    pub agree_branches: usize,
    /// Instructions before dead-code elimination.
    pub insts_before_dce: usize,
    /// Instructions of the final function.
    pub insts_after_dce: usize,
    /// Per-vertex branches if-converted.
    pub if_converted: usize,
    /// Per-vertex branches that fork a masked region ([`masked`]).
    pub masked_forks: usize,
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

/// Lowers `program` with the default state cap ([`graph::MAX_STATES`]).
pub fn lower(program: &Program) -> Result<Lowered, Unsupported> {
    lower_with_cap(program, graph::MAX_STATES)
}

/// Lowers `program`, exploring at most `max_states` abstract control states.
pub fn lower_with_cap(program: &Program, max_states: usize) -> Result<Lowered, Unsupported> {
    lower_timed(program, max_states, &mut Clock::off())
}

/// [`lower_with_cap`], lapping `clock` at its phase boundaries: `explore`, then per build round
/// `ir build`, `uniformity` and `branch conversion`, then each pass (`simplify_cfg`, `cse`,
/// `dce`, `simplify_cfg 2`) and the checks (`verify`, `budget check`).
pub fn lower_timed(
    program: &Program,
    max_states: usize,
    clock: &mut Clock<'_>,
) -> Result<Lowered, Unsupported> {
    let graph = graph::explore(program, max_states)?;
    clock.lap("explore");
    let geometry = program.kind == crate::program::ShaderKind::Geometry;
    // Build; while some cc branch is per-vertex, if-convert it or make it a masked fork (or
    // give up on it) and rebuild. Each round converts at least one more state, so this ends.
    let mut conversions = HashMap::default();
    let mut regions = masked::Regions::new(graph.nodes.len());
    let mut agree_branches = 0;
    let mut func = loop {
        let built = build::build(program, &graph, &conversions, &regions);
        clock.lap("ir build");
        let divergent = uniform::divergent_branches(&built.func);
        clock.lap("uniformity");
        let mut converted = false;
        let mut checked = Vec::new();
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
            // Inside a region, an if-converted branch must stay inside it.
            let conv = ifconv::convert(&graph, &program.descs, state).filter(|c| {
                regions.of[state].map_or(true, |r| {
                    let states = &regions.list[r].states;
                    c.then
                        .iter()
                        .chain(&c.other)
                        .all(|x| states.binary_search(x).is_ok())
                })
            });
            if let Some(conv) = conv {
                conversions.insert(state, conv);
                converted = true;
            } else if regions.add_fork(&graph, &program.descs, geometry, &conversions, state) {
                converted = true;
            } else {
                checked.push(block);
            }
        }
        clock.lap("branch conversion");
        if !converted {
            // What could not be converted branches only when every lane agrees; a batch whose
            // lanes disagree is rerun by the host one vertex at a time.
            let mut func = built.func;
            for block in checked {
                let term = &mut func.blocks[block.0 as usize].term;
                if let Terminator::BranchUniform { mask, then, other } = *term {
                    *term = Terminator::BranchAgree { mask, then, other };
                    agree_branches += 1;
                }
            }
            break func;
        }
    };
    opt::simplify_cfg(&mut func);
    clock.lap("simplify_cfg");
    let insts_before_dce = func.inst_count();
    opt::cse(&mut func);
    clock.lap("cse");
    opt::dce(&mut func);
    clock.lap("dce");
    opt::simplify_cfg(&mut func);
    clock.lap("simplify_cfg 2");
    func.verify()?;
    clock.lap("verify");
    let bounded = opt::budget_bounds_cycles(&func);
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
            agree_branches,
        },
        func,
    })
}
