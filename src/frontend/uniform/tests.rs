//! The reference for `propagate`: the uniformity equations solved by iterating blocks in
//! reverse post-order until nothing changes (what the analysis did before; slow when
//! dependence chains go round loops), its sets cut to the live variables by
//! [`picajit_codegen::opt::liveness`], and a check of both on generated programs.

use picajit_codegen::ir::{BlockId, Function, Var};
use picajit_codegen::opt::{liveness, VarSet};
use picajit_codegen::regalloc;
use std::collections::BTreeSet;

use super::Local;
use crate::fuzz::{generate, Config};
use crate::program::Program;

/// The entry sets `propagate::solve` must find: those of plain iteration, without the
/// variables dead on entry.
pub(super) fn iterate(
    func: &Function,
    exposed: &[u32],
    exec: Option<Var>,
    fixed: Option<(&[bool], &VarSet)>,
) -> Vec<Option<VarSet>> {
    let n = func.blocks.len();
    let fixed: Vec<Option<VarSet>> = (0..n)
        .map(|b| {
            fixed
                .filter(|(blocks, _)| blocks.get(b).copied().unwrap_or(false))
                .map(|(_, set)| set.clone())
        })
        .collect();
    let mut local = Local::new(func.vars.len());
    let mut at_entry: Vec<Option<VarSet>> = vec![None; n];
    at_entry[0] = Some(VarSet::default());
    let order = regalloc::reverse_post_order(func);
    let mut position = vec![usize::MAX; n];
    for (i, b) in order.iter().enumerate() {
        position[b.0 as usize] = i;
    }
    let mut work = BTreeSet::from([0usize]);
    while let Some(p) = work.pop_first() {
        let b = order[p].0 as usize;
        let entry = at_entry[b].clone().unwrap_or_default();
        let insts = &func.blocks[b].insts;
        let has = |x: u32| entry.contains(Var(x));
        local.run(insts, &has, exposed, exec, |_, _| {});
        // The exit set: the entry set with each variable the block writes as it leaves it.
        let mut exit = entry.clone();
        for d in insts.iter().filter_map(|i| i.dst) {
            if let Some(&x) = exposed.get(d.0 as usize).filter(|&&x| x != u32::MAX) {
                if local.get(d, &has, exposed) {
                    exit.insert(Var(x));
                } else {
                    exit.remove(Var(x));
                }
            }
        }
        for s in func.blocks[b].term.successors() {
            let s = s.0 as usize;
            let changed = match (&mut at_entry[s], &fixed[s]) {
                (slot @ None, Some(f)) => {
                    *slot = Some(f.clone());
                    true
                }
                (Some(_), Some(_)) => false,
                (Some(old), None) => old.union_with(&exit),
                (slot @ None, None) => {
                    *slot = Some(exit.clone());
                    true
                }
            };
            if changed {
                work.insert(position[s]);
            }
        }
    }
    let live = liveness(func);
    let mut var_of = vec![Var(0); func.vars.len()];
    for (v, &x) in exposed.iter().enumerate() {
        if x != u32::MAX {
            var_of[x as usize] = Var(v as u32);
        }
    }
    for (b, set) in at_entry.iter_mut().enumerate() {
        if let Some(set) = set {
            let dead: Vec<Var> = set
                .iter()
                .filter(|x| !live.is_live_in(BlockId(b as u32), var_of[x.0 as usize]))
                .collect();
            for x in dead {
                set.remove(x);
            }
        }
    }
    at_entry
}

/// Lowering generated programs of every shape runs the analysis on uniform, if-converted,
/// masked and lane-position functions; under `cfg(test)` each solve asserts that propagation
/// and iteration agree. Also checks that the programs took each path, so the comparison
/// covers them all.
#[test]
fn propagation_equals_iteration_on_generated_programs() {
    let config = Config::default();
    let (mut converted, mut masked, mut lanes) = (0, 0, 0);
    for seed in 1..=240 {
        let case = generate(seed, &config).case;
        let Ok(program) = Program::from_words(&case.code, &case.descs, case.entry) else {
            continue;
        };
        let Ok(lowered) = crate::frontend::lower(&program) else {
            continue;
        };
        converted += usize::from(lowered.stats.if_converted > 0);
        masked += usize::from(lowered.stats.masked_forks > 0);
        lanes += usize::from(lowered.stats.lanes);
    }
    assert!(
        converted > 0 && masked > 0 && lanes > 0,
        "if-converted {converted}, masked {masked}, lane model {lanes}"
    );
}
