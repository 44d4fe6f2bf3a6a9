//! If-conversion of short per-vertex branches.
//!
//! A branch on per-vertex cc cannot be a branch in the IR (control state is batch-scalar), but
//! a common shape needs none: both arms are short straight-line runs of arithmetic that meet
//! again at one abstract state, e.g. `jmpc cc.x, skip` over two instructions (the citro3d
//! normal-quaternion idiom) or an IFC/ELSE/ENDIF of arithmetic. All lanes then run both arms: the taken arm's writes apply where the condition
//! holds, the other arm's where it does not (`Select` for r and tracked outputs, mask blends
//! for cc), and control continues at the join state. Every lane still follows the same IR
//! path.
//!
//! An arm is a chain of *plain* states: an instruction with no control effect (arithmetic that
//! does not write a0 — the IR has no integer select — NOP, undefined, EMIT/SETEMIT — a
//! geometry shader's act for the lanes of the predicate) whose step is an unconditional move to the next state without effects (no budget,
//! no loop or aL work; an IF scope closing is fine). The pc grows along such a chain, so it
//! cannot loop. Calls are in practice never converted: a call or its return is a backward
//! transfer, and the budget it spends is batch-wide.

use crate::isa::{Instruction, Kind, Math, OpDesc};

use super::graph::{Cond, Flow, Graph, Target};

/// Longest arm converted (instructions executed by every lane on both arms).
pub const MAX_ARM: usize = 64;

/// A converted branch: the states of each arm in execution order and where they meet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    /// States run where the condition holds.
    pub then: Vec<usize>,
    /// States run where it does not.
    pub other: Vec<usize>,
    /// The state both arms continue at.
    pub join: usize,
}

/// True if the instruction can run under a lane predicate.
fn predicable(instr: &Instruction, descs: &[u32]) -> bool {
    match instr.kind() {
        Kind::Alu(Math::Mova, ops) => {
            let d = OpDesc(descs[ops.desc as usize & 0x7F]);
            !d.writes(0) && !d.writes(1)
        }
        Kind::Alu(..)
        | Kind::Nop
        | Kind::Undefined(_)
        // A geometry shader's EMIT and SETEMIT act for the lanes of the predicate.
        | Kind::Emit
        | Kind::Setemit(_) => true,
        Kind::Control(_) => false,
    }
}

/// The states an arm starting at `flow` passes through: a plain chain, then the first state
/// that is not plain (or the state after `MAX_ARM` plain ones). `None` if the arm does not
/// start with a plain move to a state.
fn walk(graph: &Graph, descs: &[u32], flow: &Flow) -> Option<Vec<usize>> {
    let Flow::Goto(Target::State(mut s)) = *flow else {
        return None;
    };
    let mut states = vec![s];
    while states.len() <= MAX_ARM {
        let node = &graph.nodes[s];
        match node.flow {
            Flow::Goto(Target::State(next)) if predicable(&node.instr, descs) => {
                s = next;
                states.push(s);
            }
            Flow::Goto(_) | Flow::Do(..) | Flow::If { .. } | Flow::LoopNext { .. } => break,
        }
    }
    Some(states)
}

/// The conversion of the branch of state `s`, if it has the convertible shape.
pub fn convert(graph: &Graph, descs: &[u32], s: usize) -> Option<Conversion> {
    let Flow::If {
        cond: Cond::Cc(_),
        then,
        other,
    } = &graph.nodes[s].flow
    else {
        return None;
    };
    let a = walk(graph, descs, then)?;
    let b = walk(graph, descs, other)?;
    // The join is the first state of one walk that the other walk reaches too; every state
    // before it in either walk is plain by construction.
    let (i, j) = a
        .iter()
        .enumerate()
        .find_map(|(i, x)| b.iter().position(|y| y == x).map(|j| (i, j)))?;
    Some(Conversion {
        then: a[..i].to_vec(),
        other: b[..j].to_vec(),
        join: a[i],
    })
}

/// Output components written by the instructions of `states` (bit c of entry o = component c
/// of o_o): the states that run under a lane predicate, whose writes need variables holding
/// the current value.
pub fn tracked_outputs(
    graph: &Graph,
    descs: &[u32],
    states: impl IntoIterator<Item = usize>,
) -> [u8; 16] {
    let mut tracked = [0u8; 16];
    for s in states {
        let instr = &graph.nodes[s].instr;
        let Some(ops) = instr.alu() else { continue };
        if matches!(instr, Instruction::Cmp(_) | Instruction::Mova(_)) {
            continue;
        }
        if let crate::isa::DstKind::Output(o) = ops.dst.kind() {
            let d = OpDesc(descs[ops.desc as usize & 0x7F]);
            for c in 0..4 {
                if d.writes(c) {
                    tracked[o as usize & 15] |= 1 << c;
                }
            }
        }
    }
    tracked
}
