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

use picajit_codegen::ir::{BlockId, CmpKind, Function, Inst, Op, Terminator, Var};
use picajit_codegen::opt::VarSet;

fn may_vary(inst: &Inst, varies: impl Fn(Var) -> bool) -> bool {
    let any_arg = || inst.uses().iter().any(|&a| varies(a));
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
        Op::Output
        | Op::LoopPush
        | Op::AlInc
        | Op::AlRestore
        | Op::Budget
        | Op::SetEmit
        | Op::Emit => false,
    }
}

/// Per-variable "may vary" flags written by the current block, stamped so that moving to the
/// next block costs nothing; variables the block has not written read the entry set.
struct Local {
    stamp: Vec<u32>,
    varies: Vec<bool>,
    current: u32,
}

impl Local {
    fn new(vars: usize) -> Local {
        Local {
            stamp: vec![0; vars],
            varies: vec![false; vars],
            current: 0,
        }
    }

    /// Runs `insts` from the entry set `entry`; returns the exit set, restricted to the
    /// variables in `exposed` (the only ones that matter across blocks), and leaves the
    /// block-local state readable through [`Local::get`].
    fn transfer(&mut self, insts: &[Inst], entry: &VarSet, exposed: &VarSet) -> VarSet {
        self.current += 1;
        let mut exit = entry.clone();
        for inst in insts {
            if let Some(d) = inst.dst {
                let varies = may_vary(inst, |v| self.get(v, entry));
                let i = d.0 as usize;
                self.stamp[i] = self.current;
                self.varies[i] = varies;
                if exposed.contains(d) {
                    if varies {
                        exit.insert(d);
                    } else {
                        exit.remove(d);
                    }
                }
            }
        }
        exit
    }

    fn get(&self, v: Var, entry: &VarSet) -> bool {
        let i = v.0 as usize;
        if self.stamp.get(i) == Some(&self.current) {
            self.varies[i]
        } else {
            entry.contains(v)
        }
    }
}

/// Variables some block reads (in an instruction or its terminator) before writing them: the
/// only ones whose status crosses blocks.
fn exposed_vars(func: &Function) -> VarSet {
    let mut exposed = VarSet::default();
    let mut written = vec![0u32; func.vars.len()];
    for (n, block) in func.blocks.iter().enumerate() {
        let stamp = n as u32 + 1;
        for inst in &block.insts {
            for &a in inst.uses() {
                if written[a.0 as usize] != stamp {
                    exposed.insert(a);
                }
            }
            if let Some(d) = inst.dst {
                written[d.0 as usize] = stamp;
            }
        }
        if let Some(m) = block.term.uses() {
            if written[m.0 as usize] != stamp {
                exposed.insert(m);
            }
        }
    }
    exposed
}

/// The blocks ending in a `BranchUniform` whose mask may differ between lanes.
pub(super) fn divergent_branches(func: &Function) -> Vec<BlockId> {
    let n = func.blocks.len();
    if n == 0 {
        return Vec::new();
    }
    let exposed = exposed_vars(func);
    let mut local = Local::new(func.vars.len());
    let mut at_entry: Vec<Option<VarSet>> = vec![None; n];
    at_entry[0] = Some(VarSet::default());
    let mut work = vec![0usize];
    let mut queued = vec![false; n];
    queued[0] = true;
    while let Some(b) = work.pop() {
        queued[b] = false;
        let entry = at_entry[b].clone().unwrap_or_default();
        let exit = local.transfer(&func.blocks[b].insts, &entry, &exposed);
        for s in func.blocks[b].term.successors() {
            let s = s.0 as usize;
            let changed = match &mut at_entry[s] {
                Some(old) => old.union_with(&exit),
                slot @ None => {
                    *slot = Some(exit.clone());
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
            local.transfer(&block.insts, entry, &exposed);
            if local.get(mask, entry) {
                out.push(BlockId(b as u32));
            }
        }
    }
    out
}
