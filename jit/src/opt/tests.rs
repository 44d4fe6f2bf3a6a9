//! Tests of liveness, CSE, DCE, CFG simplification and the budget-cycle check.

use super::*;
use crate::ir::{BlockId, Builder, Op, Terminator, Ty, Var};

/// b0: x = 1.0; y = 2.0 (dead); jump b1
/// b1: z = x + x; output z; loop.next → b1 | b2
/// b2: exit
fn small_loop() -> (crate::ir::Function, Var, Var, Var) {
    let mut b = Builder::new();
    b.use_loop_slots(1);
    let x = b.fconst(1.0);
    let y = b.fconst(2.0);
    let body = b.block();
    let exit = b.block();
    b.terminate(Terminator::Jump(body));
    b.switch_to(body);
    let z = b.binary(Op::Add, x, x);
    b.effect(Op::Output, &[z], [0, 0]);
    b.effect(Op::Budget, &[], [0, 0]);
    b.terminate(Terminator::LoopNext {
        slot: 0,
        repeat: body,
        exit,
    });
    (b.finish(), x, y, z)
}

#[test]
fn liveness_of_a_loop() {
    let (f, x, y, z) = small_loop();
    f.verify().unwrap();
    let live = liveness(&f);
    assert!(live.is_live_out(BlockId(0), x));
    assert!(!live.is_live_out(BlockId(0), y));
    assert!(live.is_live_in(BlockId(1), x));
    assert!(
        live.is_live_out(BlockId(1), x),
        "x is read again on the back edge"
    );
    assert!(!live.is_live_in(BlockId(1), z));
    assert!(live.nothing_live_in(BlockId(2)));
    let after = live.live_after(&f, BlockId(1));
    assert!(after[0].contains(z) && after[0].contains(x));
    assert!(!after[1].contains(z));
}

#[test]
fn dce_removes_dead_values_and_keeps_effects() {
    let (mut f, _, y, _) = small_loop();
    let before = f.inst_count();
    assert_eq!(dce(&mut f), 1);
    assert_eq!(f.inst_count(), before - 1);
    assert!(f.blocks[0].insts.iter().all(|i| i.dst != Some(y)));
    assert_eq!(dce(&mut f), 0);
    f.verify().unwrap();
}

#[test]
fn dce_kills_overwritten_values_and_chains() {
    let mut b = Builder::new();
    let v = b.var(Ty::F32);
    b.inst_to(Op::FConst, v, &[], [0, 0]); // dead: overwritten before any read
    let one = b.fconst(1.0);
    let t = b.unary(Op::Neg, one);
    b.inst_to(Op::Mov, v, &[t], [0, 0]);
    let dead = b.binary(Op::Add, v, v); // dead chain start
    let _dead2 = b.unary(Op::Neg, dead);
    b.effect(Op::Output, &[v], [1, 2]);
    let mut f = b.finish();
    assert_eq!(dce(&mut f), 3);
    let ops: Vec<Op> = f.blocks[0].insts.iter().map(|i| i.op).collect();
    assert_eq!(ops, [Op::FConst, Op::Neg, Op::Mov, Op::Output]);
}

/// An accumulator only its own update reads goes, with what only it reads; a value the loop
/// also feeds to an output stays, with every definition of every variable it reads.
#[test]
fn dce_removes_self_feeding_accumulators() {
    let mut b = Builder::new();
    b.use_loop_slots(1);
    let acc = b.var(Ty::F32);
    let kept = b.var(Ty::F32);
    b.inst_to(Op::FConst, acc, &[], [0, 0]);
    let step = b.fconst(1.0);
    b.inst_to(Op::Input, kept, &[], [0, 0]);
    let scale = b.inst(Op::Uniform, &[], [1, 0]);
    let body = b.block();
    let exit = b.block();
    b.terminate(Terminator::Jump(body));
    b.switch_to(body);
    let t = b.binary(Op::Add, acc, step);
    b.inst_to(Op::Mov, acc, &[t], [0, 0]);
    let k = b.binary(Op::PMul, kept, scale);
    b.inst_to(Op::Mov, kept, &[k], [0, 0]);
    b.effect(Op::Budget, &[], [1, 0]);
    b.terminate(Terminator::LoopNext {
        slot: 0,
        repeat: body,
        exit,
    });
    b.switch_to(exit);
    b.effect(Op::Output, &[kept], [0, 0]);
    let mut f = b.finish();
    assert_eq!(dce(&mut f), 4, "acc's two writes, t and step");
    let ops: Vec<Vec<Op>> = f
        .blocks
        .iter()
        .map(|b| b.insts.iter().map(|i| i.op).collect())
        .collect();
    assert_eq!(
        ops,
        [
            vec![Op::Input, Op::Uniform],
            vec![Op::PMul, Op::Mov, Op::Budget],
            vec![Op::Output]
        ]
    );
    f.verify().unwrap();
}

#[test]
fn cse_reuses_repeats_within_a_block() {
    let mut b = Builder::new();
    let x = b.inst(Op::Input, &[], [0, 1]);
    let u1 = b.inst(Op::Uniform, &[], [3, 1]);
    let u2 = b.inst(Op::Uniform, &[], [3, 1]);
    let p1 = b.binary(Op::PMul, u1, x);
    let p2 = b.binary(Op::PMul, u2, x);
    let other = b.inst(Op::Uniform, &[], [3, 2]);
    let p3 = b.binary(Op::PMul, other, x);
    b.effect(Op::Output, &[p1], [0, 0]);
    b.effect(Op::Output, &[p2], [0, 1]);
    b.effect(Op::Output, &[p3], [0, 2]);
    let mut f = b.finish();
    // u2 in p2's operands, then p2 in its store.
    assert_eq!(cse(&mut f), 2);
    let outs: Vec<Var> = f.blocks[0]
        .insts
        .iter()
        .filter(|i| i.op == Op::Output)
        .map(|i| i.args[0])
        .collect();
    assert_eq!(outs, [p1, p1, p3]);
    assert_eq!(dce(&mut f), 2, "u2 and p2 are dead");
    f.verify().unwrap();
    assert_eq!(cse(&mut f), 0);
}

#[test]
fn cse_keeps_values_that_differ() {
    let mut b = Builder::new();
    // A variable written twice: the same operation on it before and after the second write.
    let v = b.var(Ty::F32);
    b.inst_to(Op::Input, v, &[], [1, 0]);
    let n1 = b.unary(Op::Neg, v);
    b.inst_to(Op::FConst, v, &[], [2.0f32.to_bits(), 0]);
    let n2 = b.unary(Op::Neg, v);
    // aL may change between two reads of the same relative uniform.
    let a1 = b.inst(Op::UniformAl, &[], [4, 0]);
    let a2 = b.inst(Op::UniformAl, &[], [4, 0]);
    // A result written twice is not a temporary.
    let w = b.var(Ty::F32);
    b.inst_to(Op::FConst, w, &[], [0, 0]);
    let c1 = b.inst(Op::Uniform, &[], [7, 3]);
    b.inst_to(Op::Uniform, w, &[], [7, 3]);
    // Different immediates.
    let c2 = b.inst(Op::Uniform, &[], [7, 2]);
    let next = b.block();
    b.terminate(Terminator::Jump(next));
    b.switch_to(next);
    // The same expression in another block.
    let c3 = b.inst(Op::Uniform, &[], [7, 3]);
    for (k, r) in [n1, n2, a1, a2, c1, w, c2, c3].into_iter().enumerate() {
        b.effect(Op::Output, &[r], [k as u32 / 4, k as u32 % 4]);
    }
    let mut f = b.finish();
    let before = f.clone();
    assert_eq!(cse(&mut f), 0);
    assert_eq!(f, before);
}

#[test]
fn cse_retargets_a_branch_mask() {
    let mut b = Builder::new();
    let x = b.inst(Op::Input, &[], [0, 0]);
    let y = b.inst(Op::Input, &[], [0, 1]);
    let m1 = b.cmp(crate::ir::CmpKind::Lt, x, y);
    let m2 = b.cmp(crate::ir::CmpKind::Lt, x, y);
    let m3 = b.cmp(crate::ir::CmpKind::Le, x, y);
    let t = b.block();
    let o = b.block();
    b.terminate(Terminator::BranchAny {
        mask: m2,
        then: t,
        other: o,
    });
    b.switch_to(t);
    b.effect(Op::Retire, &[m3], [0, 0]);
    let mut f = b.finish();
    assert_eq!(cse(&mut f), 1);
    assert_eq!(f.blocks[0].term.uses(), Some(m1));
    assert_eq!(f.blocks[1].insts[0].args[0], m3);
}

/// Many blocks each repeating the same values: every block's repeats go, none reaches across.
#[test]
fn cse_per_block_over_many_blocks() {
    let mut b = Builder::new();
    let mut firsts = Vec::new();
    for k in 0..300u32 {
        let u1 = b.inst(Op::Uniform, &[], [k % 96, k % 4]);
        let u2 = b.inst(Op::Uniform, &[], [k % 96, k % 4]);
        let s = b.binary(Op::Add, u1, u2);
        b.effect(Op::Output, &[s], [k % 16, 0]);
        firsts.push(u1);
        let next = b.block();
        b.terminate(Terminator::Jump(next));
        b.switch_to(next);
    }
    let mut f = b.finish();
    assert_eq!(cse(&mut f), 300);
    for (block, u1) in f.blocks.iter().zip(&firsts) {
        assert_eq!(block.insts[2].args[..2], [*u1, *u1]);
    }
}

/// The pass keeps its working memory between calls on a thread: a large function, a small one
/// and the large one again give what each gives alone.
#[test]
fn cse_results_do_not_depend_on_earlier_calls() {
    let large = || {
        let mut b = Builder::new();
        let x = b.inst(Op::Input, &[], [2, 0]);
        for k in 0..2000u32 {
            let u1 = b.inst(Op::Uniform, &[], [k % 90, k % 4]);
            let p1 = b.binary(Op::PMul, u1, x);
            let u2 = b.inst(Op::Uniform, &[], [k % 90, k % 4]);
            let p2 = b.binary(Op::PMul, u2, x);
            let s = b.binary(Op::Add, p1, p2);
            b.effect(Op::Output, &[s], [k % 16, k % 4]);
        }
        b.finish()
    };
    let small = || {
        let mut b = Builder::new();
        let v = b.var(Ty::F32);
        b.inst_to(Op::Input, v, &[], [1, 0]);
        let n1 = b.unary(Op::Neg, v);
        let n2 = b.unary(Op::Neg, v);
        b.effect(Op::Output, &[n1], [0, 0]);
        b.effect(Op::Output, &[n2], [0, 1]);
        b.finish()
    };
    let mut first = large();
    // Per repeat: u2 in p2, p2 in the sum; the 90 × 4 distinct uniforms repeat across k too.
    let rewritten = cse(&mut first);
    assert!(rewritten >= 2 * 2000, "{rewritten}");
    let mut s = small();
    assert_eq!(cse(&mut s), 1);
    assert_eq!(
        s.blocks[0].insts[4].args[0],
        s.blocks[0].insts[1].dst.unwrap()
    );
    let mut again = large();
    assert_eq!(cse(&mut again), rewritten);
    assert_eq!(again, first);
}

#[test]
fn terminator_operand_is_a_use() {
    let mut b = Builder::new();
    let m = b.inst(Op::MaskConst, &[], [1, 0]);
    let t = b.block();
    let o = b.block();
    b.terminate(Terminator::BranchUniform {
        mask: m,
        then: t,
        other: o,
    });
    let mut f = b.finish();
    assert_eq!(dce(&mut f), 0);
}

#[test]
fn simplify_merges_threads_and_drops() {
    let mut b = Builder::new();
    let e1 = b.block(); // empty, jumps on
    let body = b.block();
    let unreachable = b.block();
    let tail = b.block();
    b.terminate(Terminator::BranchBool {
        id: 3,
        then: e1,
        other: e1,
    });
    b.switch_to(e1);
    b.terminate(Terminator::Jump(body));
    b.switch_to(body);
    let x = b.fconst(3.0);
    b.terminate(Terminator::Jump(tail));
    b.switch_to(unreachable);
    b.terminate(Terminator::Jump(body));
    b.switch_to(tail);
    b.effect(Op::Output, &[x], [0, 1]);
    let mut f = b.finish();
    simplify_cfg(&mut f);
    f.verify().unwrap();
    assert_eq!(f.blocks.len(), 1, "{f}");
    assert_eq!(f.blocks[0].insts.len(), 2);
    assert_eq!(f.blocks[0].term, Terminator::Exit);
}

#[test]
fn simplify_threads_long_chains_and_keeps_empty_cycles() {
    // b0 branches to a chain of 3000 empty blocks ending in `tail`, and to an empty block
    // that enters a cycle of two empty blocks.
    let mut b = Builder::new();
    let chain: Vec<BlockId> = (0..3000).map(|_| b.block()).collect();
    let tail = b.block();
    let (c0, c1, c2) = (b.block(), b.block(), b.block());
    b.terminate(Terminator::BranchBool {
        id: 1,
        then: chain[0],
        other: c0,
    });
    for (k, &blk) in chain.iter().enumerate() {
        b.switch_to(blk);
        b.terminate(Terminator::Jump(chain.get(k + 1).copied().unwrap_or(tail)));
    }
    b.switch_to(tail);
    let x = b.fconst(1.0);
    b.effect(Op::Output, &[x], [0, 0]);
    b.switch_to(c0);
    b.terminate(Terminator::Jump(c1));
    b.switch_to(c1);
    b.terminate(Terminator::Jump(c2));
    b.switch_to(c2);
    b.terminate(Terminator::Jump(c1));
    let mut f = b.finish();
    simplify_cfg(&mut f);
    f.verify().unwrap();
    // b0, the tail, and the cycle threaded onto one block that jumps to itself.
    let Terminator::BranchBool { then, other, .. } = f.blocks[0].term else {
        panic!("{f}")
    };
    assert_eq!(f.blocks[then.0 as usize].insts.len(), 2, "{f}");
    assert_eq!(f.blocks[then.0 as usize].term, Terminator::Exit);
    assert!(f.blocks[other.0 as usize].insts.is_empty(), "{f}");
    assert_eq!(
        f.blocks[other.0 as usize].term,
        Terminator::Jump(other),
        "{f}"
    );
    assert_eq!(f.blocks.len(), 3, "{f}");
}

#[test]
fn simplify_keeps_loops() {
    let (mut f, _, _, _) = small_loop();
    simplify_cfg(&mut f);
    f.verify().unwrap();
    assert_eq!(f.blocks.len(), 3);
    assert!(budget_bounds_cycles(&f));
}

#[test]
fn budget_check_finds_unbounded_cycles() {
    let mut b = Builder::new();
    let l = b.block();
    b.terminate(Terminator::Jump(l));
    b.switch_to(l);
    b.terminate(Terminator::BranchBool {
        id: 0,
        then: l,
        other: BlockId(0),
    });
    let mut f = b.finish();
    assert!(!budget_bounds_cycles(&f));
    f.blocks[0].insts.push(crate::ir::Inst {
        op: Op::Budget,
        dst: None,
        args: [Var(0); 3],
        imm: [0, 0],
    });
    assert!(
        !budget_bounds_cycles(&f),
        "the self loop of b1 still spends nothing"
    );
    let spend = f.blocks[0].insts[0];
    f.blocks[1].insts.push(spend);
    assert!(budget_bounds_cycles(&f));
    let preds = predecessors(&f);
    assert_eq!(preds[1], [BlockId(0), BlockId(1)]);
}

/// The ops and (imm0, imm1) of a block, for comparing placements.
fn shape(f: &crate::ir::Function, b: usize) -> Vec<(Op, u32, u32)> {
    f.blocks[b]
        .insts
        .iter()
        .map(|i| (i.op, i.imm[0], i.imm[1]))
        .collect()
}

#[test]
fn inputs_of_a_register_are_grouped_at_the_first_read() {
    let mut b = Builder::new();
    let x = b.inst(Op::Input, &[], [1, 0]);
    let u = b.inst(Op::Uniform, &[], [4, 0]);
    let p = b.binary(Op::Mul, x, u);
    let w = b.inst(Op::Input, &[], [2, 3]);
    let y = b.inst(Op::Input, &[], [1, 1]);
    let q = b.binary(Op::Add, p, y);
    let q = b.binary(Op::Add, q, w);
    // A read whose variable is written in between stays where it is.
    let t = b.fconst(2.0);
    let late = b.var(Ty::F32);
    b.inst_to(Op::Mov, late, &[t], [0, 0]);
    let q = b.binary(Op::Add, q, late);
    b.inst_to(Op::Input, late, &[], [1, 2]);
    let q = b.binary(Op::Add, q, late);
    b.effect(Op::Output, &[q], [0, 0]);
    b.terminate(Terminator::Exit);
    let mut f = b.finish();
    let before = f.clone();
    assert_eq!(group_inputs(&mut f), 1);
    f.verify().unwrap();
    let s = shape(&f, 0);
    assert_eq!(s[0], (Op::Input, 1, 0));
    assert_eq!(s[1], (Op::Input, 1, 1));
    assert_eq!(s[2], (Op::Uniform, 4, 0));
    assert_eq!(s.iter().filter(|i| i.0 == Op::Input).count(), 4);
    let pos = |k: (Op, u32, u32)| s.iter().position(|&i| i == k).unwrap();
    assert!(
        pos((Op::Input, 1, 2)) > pos((Op::Mov, 0, 0)),
        "kept after the write"
    );
    assert_eq!(f.inst_count(), before.inst_count());
    assert_eq!(group_inputs(&mut f), 0, "idempotent");
}

#[test]
fn outputs_sink_to_the_end_of_exit_blocks_sorted_and_dead_ones_go() {
    let mut b = Builder::new();
    let x = b.inst(Op::Input, &[], [0, 0]);
    b.effect(Op::Output, &[x], [2, 1]);
    b.effect(Op::Output, &[x], [1, 3]); // overwritten below: dropped
    let y = b.binary(Op::Add, x, x);
    b.effect(Op::Output, &[y], [1, 3]);
    // The variable of this store is written again after it: it stays.
    let z = b.var(Ty::F32);
    b.inst_to(Op::Mov, z, &[x], [0, 0]);
    b.effect(Op::Output, &[z], [0, 0]);
    b.inst_to(Op::Mov, z, &[y], [0, 0]);
    b.effect(Op::Output, &[z], [0, 1]);
    b.terminate(Terminator::Exit);
    let mut f = b.finish();
    assert_eq!(sink_outputs(&mut f), 4);
    f.verify().unwrap();
    let s = shape(&f, 0);
    let n = s.len();
    assert_eq!(
        s[n - 3..],
        [(Op::Output, 0, 1), (Op::Output, 1, 3), (Op::Output, 2, 1)]
    );
    assert_eq!(s[n - 4], (Op::Mov, 0, 0));
    assert_eq!(s[n - 5], (Op::Output, 0, 0));
    assert_eq!(s.iter().filter(|i| i.0 == Op::Output).count(), 4);
    assert_eq!(sink_outputs(&mut f), 0, "idempotent");
}

#[test]
fn outputs_never_sink_past_budget_or_emit_nor_in_other_blocks() {
    let mut b = Builder::new();
    let x = b.inst(Op::Input, &[], [0, 0]);
    let next = b.block();
    b.effect(Op::Output, &[x], [3, 0]);
    b.effect(Op::Output, &[x], [3, 0]);
    b.terminate(Terminator::Jump(next));
    b.switch_to(next);
    b.effect(Op::Output, &[x], [1, 0]);
    b.effect(Op::Output, &[x], [1, 0]);
    b.effect(Op::Budget, &[], [1, 0]);
    let y = b.binary(Op::Add, x, x);
    b.effect(Op::Output, &[y], [0, 0]);
    b.terminate(Terminator::Exit);
    let mut f = b.finish();
    let before = f.clone();
    assert_eq!(sink_outputs(&mut f), 0);
    assert_eq!(f, before);
}

#[test]
fn blocks_on_cycles() {
    let (f, ..) = small_loop();
    assert_eq!(on_cycles(&f), vec![false, true, false]);
    let mut b = Builder::new();
    let c = b.block();
    let d = b.block();
    let e = b.block();
    b.terminate(Terminator::Jump(c));
    b.switch_to(c);
    b.terminate(Terminator::BranchBool {
        id: 0,
        then: d,
        other: e,
    });
    b.switch_to(d);
    b.effect(Op::Budget, &[], [1, 0]);
    b.terminate(Terminator::Jump(c));
    b.switch_to(e);
    b.terminate(Terminator::Exit);
    assert_eq!(on_cycles(&b.finish()), vec![false, true, true, false]);
}

#[test]
fn split_defs_renames_values_that_stay_in_their_block() {
    let mut b = Builder::new();
    let x = b.var(Ty::F32);
    let m = b.var(Ty::Mask);
    let next = b.block();
    let other = b.block();
    b.inst_to(Op::FConst, x, &[], [1.0f32.to_bits(), 0]);
    let y = b.binary(Op::Add, x, x);
    b.inst_to(Op::Mov, x, &[y], [0, 0]); // the value that flows on keeps the name
    let zero = b.fconst(0.0);
    b.inst_to(Op::MaskConst, m, &[], [1, 0]);
    // m's last value is read only by the terminator: renamed there too.
    b.inst_to(Op::Cmp, m, &[y, zero], [0, 0]);
    b.terminate(Terminator::BranchUniform {
        mask: m,
        then: next,
        other,
    });
    b.switch_to(next);
    b.effect(Op::Output, &[x], [0, 0]);
    b.terminate(Terminator::Exit);
    b.switch_to(other);
    b.effect(Op::Output, &[x], [0, 1]);
    b.terminate(Terminator::Exit);
    let mut f = b.finish();
    let vars = f.vars.len();
    assert_eq!(split_defs(&mut f), 3, "x's first value, both values of m");
    f.verify().unwrap();
    let insts = &f.blocks[0].insts;
    let first = insts[0].dst.unwrap();
    assert_ne!(first, x);
    assert_eq!(f.ty(first), Ty::F32);
    assert_eq!(insts[1].args[..2], [first, first]);
    assert_eq!(insts[2].dst, Some(x));
    let Terminator::BranchUniform { mask, .. } = f.blocks[0].term else {
        panic!("terminator kept");
    };
    assert_eq!(mask, insts[5].dst.unwrap());
    assert_ne!(mask, m);
    assert_eq!(f.ty(mask), Ty::Mask);
    assert_eq!(f.vars.len(), vars + 3);
    // Nothing is left to split.
    assert_eq!(split_defs(&mut f), 0);
}

#[test]
fn invariant_values_come_from_constants_and_uniforms_only() {
    let mut b = Builder::new();
    let u = b.inst(Op::Uniform, &[], [3, 1]);
    let c = b.fconst(2.0);
    let p = b.binary(Op::PMul, u, c);
    let r = b.unary(Op::Rsq, p);
    let i = b.inst(Op::Input, &[], [0, 0]);
    let q = b.binary(Op::Mul, r, i);
    let al = b.inst(Op::UniformAl, &[], [3, 1]);
    let twice = b.var(Ty::F32);
    b.inst_to(Op::Mov, twice, &[u], [0, 0]);
    b.inst_to(Op::Mov, twice, &[c], [0, 0]);
    let s = b.binary(Op::Add, q, al);
    let s = b.binary(Op::Add, s, twice);
    b.effect(Op::Output, &[s], [0, 0]);
    b.terminate(Terminator::Exit);
    let f = b.finish();
    let inv = batch_invariant(&f);
    for v in [u, c, p, r] {
        assert!(inv[v.0 as usize], "{v:?}");
    }
    for v in [i, q, al, twice, s] {
        assert!(!inv[v.0 as usize], "{v:?}");
    }
}

/// [`renumber`] then [`dce`], with the variables nothing names any more dropped (the others
/// keep their order): what [`dce_renumber`] must give.
fn renumber_dce_compacted(mut f: crate::ir::Function) -> crate::ir::Function {
    renumber(&mut f);
    dce(&mut f);
    let mut named = vec![false; f.vars.len()];
    for block in &f.blocks {
        for inst in &block.insts {
            for &u in inst.uses() {
                named[u.0 as usize] = true;
            }
            if let Some(d) = inst.dst {
                named[d.0 as usize] = true;
            }
        }
        if let Some(m) = block.term.uses() {
            named[m.0 as usize] = true;
        }
    }
    let mut new_of = vec![Var(u32::MAX); f.vars.len()];
    let mut vars = Vec::new();
    for (old, _) in named.iter().enumerate().filter(|(_, &n)| n) {
        new_of[old] = Var(vars.len() as u32);
        vars.push(f.vars[old]);
    }
    for block in &mut f.blocks {
        for inst in &mut block.insts {
            let k = inst.op.args().len();
            for a in &mut inst.args[..k] {
                *a = new_of[a.0 as usize];
            }
            inst.dst = inst.dst.map(|d| new_of[d.0 as usize]);
        }
        block.term = block.term.map_use(|m| new_of[m.0 as usize]);
    }
    f.vars = vars;
    f
}

/// A variable that crosses blocks only through a read that dead-code elimination removes
/// still counts as crossing (its number stays below the block-local ones, as `renumber`
/// before `dce` gave it), and the numbers left are dense.
#[test]
fn dce_renumber_is_renumber_then_dce_without_gaps() {
    let mut b = Builder::new();
    let a = b.var(Ty::F32);
    let k = b.var(Ty::F32);
    let c = b.var(Ty::F32);
    let _never_named = b.var(Ty::F32);
    b.inst_to(Op::FConst, a, &[], [1.0f32.to_bits(), 0]);
    b.inst_to(Op::Input, c, &[], [0, 0]);
    b.effect(Op::Output, &[c], [0, 0]);
    let next = b.block();
    b.terminate(Terminator::Jump(next));
    b.switch_to(next);
    let _dead = b.binary(Op::Add, c, c);
    b.inst_to(Op::Mul, k, &[a, a], [0, 0]);
    b.effect(Op::Output, &[k], [1, 0]);
    let f = b.finish();
    let want = renumber_dce_compacted(f.clone());
    let mut got = f;
    assert_eq!(dce_renumber(&mut got), 1);
    assert_eq!(got, want);
    got.verify().unwrap();
    assert_eq!(got.vars.len(), 3, "a, c and k are left");
    let second = &got.blocks[1].insts;
    assert_eq!(
        second[0].dst,
        Some(Var(2)),
        "k after both crossing variables"
    );
    assert_eq!(second[0].args[..2], [Var(0), Var(0)], "a first");
    // The loop and accumulator function of the DCE test, the same way.
    let (f, ..) = small_loop();
    let want = renumber_dce_compacted(f.clone());
    let mut got = f;
    dce_renumber(&mut got);
    assert_eq!(got, want);
}

/// A component set gives its members once each, by (index, component), and ignores uniforms
/// past c95.
#[test]
fn component_set_is_sorted_and_deduplicated() {
    let mut set = ComponentSet::default();
    for (index, comp) in [
        (95, 3),
        (0, 2),
        (17, 0),
        (0, 2),
        (63, 3),
        (64, 0),
        (96, 0),
        (0, 1),
    ] {
        set.insert(index, comp);
    }
    let got: Vec<(u32, u32)> = set.iter().collect();
    assert_eq!(got, [(0, 1), (0, 2), (17, 0), (63, 3), (64, 0), (95, 3)]);
}

/// [`group_inputs`] as first written (one walk recording every variable's last touch, then
/// the block rebuilt), the reference for the windowed, in-place one.
fn group_inputs_reference(func: &mut crate::ir::Function) -> usize {
    let mut touched: Vec<(u32, usize)> = vec![(u32::MAX, 0); func.vars.len()];
    let mut moved = 0;
    for (b, block) in func.blocks.iter_mut().enumerate() {
        let b = b as u32;
        let mut first: [Option<usize>; 16] = [None; 16];
        let mut joins = vec![false; block.insts.len()];
        for (i, inst) in block.insts.iter().enumerate() {
            if inst.op == Op::Input {
                let r = (inst.imm[0] & 15) as usize;
                let d = inst.dst.map(|d| touched[d.0 as usize]);
                match first[r] {
                    None => first[r] = Some(i),
                    Some(f) => {
                        joins[i] = f + 1 < i && d.is_some_and(|(s, at)| s != b || at < f);
                    }
                }
            }
            for v in inst.uses().iter().chain(inst.dst.as_ref()) {
                touched[v.0 as usize] = (b, i);
            }
        }
        let joined: Vec<crate::ir::Inst> = block
            .insts
            .iter()
            .zip(&joins)
            .filter_map(|(inst, &j)| j.then_some(*inst))
            .collect();
        let mut out = Vec::new();
        for (i, inst) in block.insts.iter().enumerate() {
            if joins[i] {
                continue;
            }
            out.push(*inst);
            let r = (inst.imm[0] & 15) as usize;
            if inst.op == Op::Input && first[r] == Some(i) {
                for later in joined.iter().filter(|l| l.imm[0] & 15 == r as u32) {
                    out.push(*later);
                    moved += 1;
                }
            }
        }
        block.insts = out;
    }
    moved
}

/// A small seeded generator for the random functions of the tests: each call gives a number
/// below its argument (xorshift64).
pub(super) fn xorshift(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    }
}

/// Random blocks of input reads (few registers, so reads of one register repeat), additions
/// and stores over a small pool of variables (so a read's variable is often read or written
/// between it and its register's first read), some ending in a jump to the next block.
fn random_reads(seed: u64) -> crate::ir::Function {
    let mut next = xorshift(seed);
    let mut b = Builder::new();
    let pool: Vec<Var> = (0..3 + next(8)).map(|_| b.var(Ty::F32)).collect();
    for k in 0..1 + next(3) {
        if k > 0 {
            let block = b.block();
            b.terminate(Terminator::Jump(block));
            b.switch_to(block);
        }
        for _ in 0..next(40) {
            let d = pool[next(pool.len())];
            // Half input reads, a quarter stores, a quarter additions.
            let pick = next(4);
            if pick < 2 {
                b.inst_to(Op::Input, d, &[], [next(3) as u32, next(4) as u32]);
            } else if pick == 2 {
                b.effect(Op::Output, &[d], [next(4) as u32, 0]);
            } else {
                let x = pool[next(pool.len())];
                b.inst_to(Op::Add, d, &[x, x], [0, 0]);
            }
        }
    }
    b.terminate(Terminator::Exit);
    b.finish()
}

#[test]
fn input_grouping_matches_the_reference_on_random_blocks() {
    let mut moved = 0;
    for seed in 0..2000 {
        let f = random_reads(seed);
        let (mut fast, mut reference) = (f.clone(), f);
        let count = group_inputs(&mut fast);
        assert_eq!(count, group_inputs_reference(&mut reference), "seed {seed}");
        assert_eq!(fast, reference, "seed {seed}");
        moved += count;
    }
    assert!(moved > 1000, "the blocks exercise the moves ({moved})");
}
