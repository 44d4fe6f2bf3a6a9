//! The reference for `propagate`: the uniformity equations solved by iterating blocks in
//! reverse post-order until nothing changes (what the analysis did before; slow when
//! dependence chains go round loops), its sets cut to the live variables by
//! [`picajit_codegen::opt::liveness`], and a check of both on generated programs.

use picajit_codegen::ir::{BlockId, Function, Var};
use picajit_codegen::opt::{liveness, VarSet};
use picajit_codegen::regalloc;
use std::collections::BTreeSet;

use super::demand::{Among, Demand};
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

/// The generated programs of `seeds` that load and lower, each with its seed.
fn lowered_generated(
    seeds: std::ops::RangeInclusive<u64>,
) -> impl Iterator<Item = (u64, crate::frontend::Lowered)> {
    let config = Config::default();
    seeds.filter_map(move |seed| {
        let case = generate(seed, &config).case;
        let program = Program::from_words(&case.code, &case.descs, case.entry).ok()?;
        Some((seed, crate::frontend::lower(&program).ok()?))
    })
}

/// Lowering generated programs of every shape runs the analysis on uniform, if-converted,
/// masked and lane-position functions; under `cfg(test)` each solve asserts that propagation
/// and iteration agree. Also checks that the programs took each path, so the comparison
/// covers them all.
#[test]
fn propagation_equals_iteration_on_generated_programs() {
    let (mut converted, mut masked, mut lanes) = (0, 0, 0);
    for (_, lowered) in lowered_generated(1..=240) {
        converted += usize::from(lowered.stats.if_converted > 0);
        masked += usize::from(lowered.stats.masked_forks > 0);
        lanes += usize::from(lowered.stats.lanes);
    }
    assert!(
        converted > 0 && masked > 0 && lanes > 0,
        "if-converted {converted}, masked {masked}, lane model {lanes}"
    );
}

/// Seeding results of a solved function and settling ([`super::Varying::seed`]) finds the
/// same sets as solving from scratch a function in which each of those results is blended
/// with an input (so varies whatever its operands); the branch masks at block ends agree too,
/// and so do the answers on demand ([`Among::seed`]), questions asked before the seeds
/// included.
#[test]
fn seeding_equals_solving_with_the_results_varying() {
    use picajit_codegen::ir::{Inst, Op, Terminator};
    let mut seeded_blocks = 0;
    for (seed, lowered) in lowered_generated(1..=120) {
        let func: &Function = &lowered.func;
        // Every seventh result, by position in the function.
        let mut seeds = Vec::new();
        let mut k = 0;
        for (b, block) in func.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                if inst.dst.is_some() {
                    k += 1;
                    if k % 7 == 3 {
                        seeds.push((b, i));
                    }
                }
            }
        }
        let mut varying = super::Varying::across_lanes(func);
        for &(b, i) in &seeds {
            varying.seed(b, i);
        }
        varying.settle(func);
        // The reference: `d = op(…)` becomes `d = op(…); t = input; d = d + t`.
        let mut blended = func.clone();
        for &(b, i) in seeds.iter().rev() {
            let d = func.blocks[b].insts[i].dst.expect("a result");
            let t = Var(blended.vars.len() as u32);
            blended.vars.push(blended.vars[d.0 as usize]);
            let input = Inst {
                op: Op::Input,
                dst: Some(t),
                args: [Var(0); 3],
                imm: [0, 0],
            };
            let add = Inst {
                op: Op::Add,
                dst: Some(d),
                args: [d, t, Var(0)],
                imm: [0, 0],
            };
            blended.blocks[b].insts.splice(i + 1..i + 1, [input, add]);
        }
        let reference = super::Varying::across_lanes(&blended);
        assert_eq!(
            varying.at_entry.sets(),
            reference.at_entry.sets(),
            "seed {seed}"
        );
        let masks: Vec<(usize, Var)> = func
            .blocks
            .iter()
            .enumerate()
            .filter_map(|(b, block)| match block.term {
                Terminator::BranchUniform { mask, .. } | Terminator::BranchAny { mask, .. } => {
                    Some((b, mask))
                }
                Terminator::Jump(_)
                | Terminator::BranchBool { .. }
                | Terminator::LoopNext { .. }
                | Terminator::Exit => None,
            })
            .collect();
        // On demand, asked before the seeds too (answers the seeds must overturn), with the
        // default budget and with one that runs out on the way.
        let mut on_demand: Vec<Among> = [None, Some(60)]
            .into_iter()
            .map(|steps| Among::Demand(Box::new(Demand::across_lanes(func).with_budget(steps))))
            .collect();
        for among in &mut on_demand {
            for &(b, mask) in &masks {
                among.at_end(func, b, mask);
            }
            for &(b, i) in &seeds {
                among.seed(b, i);
            }
            among.settle(func);
        }
        for &(b, mask) in &masks {
            let want = reference.at_end(&blended, b, mask);
            assert_eq!(varying.at_end(func, b, mask), want, "seed {seed}, b{b}");
            for among in &mut on_demand {
                assert_eq!(among.at_end(func, b, mask), want, "seed {seed}, b{b}");
            }
            seeded_blocks += 1;
        }
    }
    assert!(seeded_blocks > 0);
}

/// `varies_anywhere` (sweeps in order, then readers) finds what following readers alone
/// finds, on the functions of generated programs (uniform, if-converted, masked and
/// lane-position ones) and on a chain of writes against the order, which takes more sweeps
/// than it tries.
#[test]
fn varies_anywhere_sweeps_equal_following_readers() {
    use picajit_codegen::ir::{Builder, Op, Ty};
    let mut checked = 0;
    for (seed, lowered) in lowered_generated(1..=120) {
        let func: &Function = &lowered.func;
        assert_eq!(
            super::varies_anywhere(func),
            super::varies_anywhere_by_readers(func),
            "seed {seed}"
        );
        checked += 1;
    }
    assert!(checked > 0);
    // v[k] = v[k + 1] + 1 for k = 0..9, written before v[k + 1]; v[10] = input. Each sweep
    // learns one more variable, so the sweeps give up and the readers finish.
    let mut b = Builder::new();
    let vars: Vec<Var> = (0..11).map(|_| b.var(Ty::F32)).collect();
    let one = b.fconst(1.0);
    for k in 0..10 {
        b.inst_to(Op::Add, vars[k], &[vars[k + 1], one], [0, 0]);
    }
    b.inst_to(Op::Input, vars[10], &[], [0, 0]);
    let func = b.finish();
    let want = super::varies_anywhere_by_readers(&func);
    assert!(vars.iter().all(|v| want[v.0 as usize]));
    assert_eq!(super::varies_anywhere(&func), want);
}

/// Generated branchy programs with more states than the lane model searches in several
/// rounds, whose last build is only confirmed: lowering compares, in every round, the
/// answers found on demand with the whole solve's (`demand::agrees`, under `cfg(test)`),
/// with the default step budget and with budgets that run out.
#[test]
fn answers_on_demand_equal_the_whole_solve() {
    use crate::synthetic::{program, Shape};
    for (size, seed) in [(300, 1), (300, 2), (500, 1), (500, 3)] {
        let p = program(Shape::Branchy, size, seed).expect("generated");
        let lowered = crate::frontend::lower(&p).expect("lowers");
        assert!(lowered.stats.lanes, "branchy:{size}:{seed}");
    }
}
