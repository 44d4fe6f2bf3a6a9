//! Uniformity analysis: which variables provably hold the same value in every lane.
//!
//! A forward data-flow problem over the CFG on the set of variables that *may differ* between
//! lanes. `Input` always may; `UniformIdx` may when its offset may; constants, `Uniform` and
//! `UniformAl` never do (aL is batch-scalar), nor an always-true `Cmp`; every other operation may differ exactly when one
//! of its operands may. A write replaces the variable's status; at a merge the statuses join
//! (may differ on any incoming path → may differ). Variables read before any write are treated
//! as uniform: the frontend initializes every register in the entry block.
//!
//! The result is sound under the assumption that all lanes follow the same path, which holds
//! exactly when every `BranchUniform` tests a uniform mask — the property this analysis is used
//! to establish (by induction over the execution). It is conservative: a value that happens to
//! agree in all lanes at run time may still be reported as varying.

use picajit_codegen::ir::{BlockId, CmpKind, Function, Inst, Op, Terminator};
use picajit_codegen::opt::VarSet;

fn may_vary(inst: &Inst, varying: &VarSet) -> bool {
    let any_arg = || inst.uses().iter().any(|&a| varying.contains(a));
    match inst.op {
        Op::Input => true,
        Op::FConst | Op::Uniform | Op::UniformAl | Op::MaskConst | Op::IConst => false,
        // CMP ops 6 and 7: true whatever the operands.
        Op::Cmp if CmpKind::from_imm(inst.imm[0]) == CmpKind::True => false,
        Op::UniformIdx
        | Op::Mov
        | Op::Neg
        | Op::Add
        | Op::Mul
        | Op::PMul
        | Op::Max
        | Op::Min
        | Op::Floor
        | Op::Rcp
        | Op::Rsq
        | Op::Ex2
        | Op::Lg2
        | Op::Cmp
        | Op::Select
        | Op::MaskAnd
        | Op::MaskOr
        | Op::MaskNot
        | Op::MaskMov
        | Op::FtoiSat
        | Op::IMov => any_arg(),
        // No result.
        Op::Output | Op::LoopPush | Op::AlInc | Op::AlRestore | Op::Budget => false,
    }
}

fn transfer(insts: &[Inst], varying: &mut VarSet) {
    for inst in insts {
        if let Some(d) = inst.dst {
            if may_vary(inst, varying) {
                varying.insert(d);
            } else {
                varying.remove(d);
            }
        }
    }
}

/// The blocks ending in a `BranchUniform` whose mask may differ between lanes.
pub(super) fn divergent_branches(func: &Function) -> Vec<BlockId> {
    let n = func.blocks.len();
    let nvars = func.vars.len();
    let mut at_entry: Vec<Option<VarSet>> = vec![None; n];
    if n == 0 {
        return Vec::new();
    }
    at_entry[0] = Some(VarSet::new(nvars));
    let mut work = vec![0usize];
    let mut queued = vec![false; n];
    queued[0] = true;
    while let Some(b) = work.pop() {
        queued[b] = false;
        let mut set = at_entry[b].clone().unwrap_or_default();
        transfer(&func.blocks[b].insts, &mut set);
        for s in func.blocks[b].term.successors() {
            let s = s.0 as usize;
            let changed = match &mut at_entry[s] {
                Some(old) => old.union_with(&set),
                slot @ None => {
                    *slot = Some(set.clone());
                    true
                }
            };
            if changed && !queued[s] {
                queued[s] = true;
                work.push(s);
            }
        }
    }
    let mut out = Vec::new();
    for (b, block) in func.blocks.iter().enumerate() {
        if let (Terminator::BranchUniform { mask, .. }, Some(entry)) = (block.term, &at_entry[b]) {
            let mut set = entry.clone();
            transfer(&block.insts, &mut set);
            if set.contains(mask) {
                out.push(BlockId(b as u32));
            }
        }
    }
    out
}
