//! Unit tests of the IR evaluator on hand-built functions: the op semantics the native backends
//! are held to, including ops the frontend does not emit (plain `Mul`).

use picajit_codegen::abi::Context;
use picajit_codegen::ir::{Builder, CmpKind, Function, Op, Terminator, Ty};

use super::eval::eval;

fn run(f: &Function, ctx: &mut Context, lanes: usize) {
    f.verify().unwrap();
    eval(f, ctx, lanes);
}

#[test]
fn arithmetic_per_lane() {
    let mut b = Builder::new();
    let x = b.inst(Op::Input, &[], [0, 0]);
    let y = b.inst(Op::Input, &[], [0, 1]);
    let ops = [Op::Mul, Op::PMul, Op::Add, Op::Max, Op::Min];
    for (n, op) in ops.into_iter().enumerate() {
        let r = b.binary(op, x, y);
        b.effect(Op::Output, &[r], [n as u32, 0]);
    }
    let m = b.cmp(CmpKind::Lt, x, y);
    let s = b.select(m, x, y);
    b.effect(Op::Output, &[s], [5, 0]);
    let neg = b.unary(Op::Neg, x);
    b.effect(Op::Output, &[neg], [6, 0]);
    let i = b.unary(Op::FtoiSat, x);
    let u = b.inst(Op::UniformIdx, &[i], [100, 2]);
    b.effect(Op::Output, &[u], [7, 0]);
    let f = b.finish();
    let mut ctx = Context::default();
    let xs = [0.0, f32::INFINITY, -0.0, 3.0, f32::NAN, 300.0, -29.5];
    let ys = [f32::INFINITY, 0.0, 5.0, -2.0, 1.0, 1.0, 1.0];
    ctx.input[0][0].0[..xs.len()].copy_from_slice(&xs);
    ctx.input[0][1].0[..ys.len()].copy_from_slice(&ys);
    for (n, u) in ctx.uniforms.iter_mut().enumerate().take(96) {
        u[2] = n as f32;
    }
    ctx.output[0][0].0[15] = 42.0;
    run(&f, &mut ctx, xs.len());
    let out = |r: usize, l: usize| ctx.output[r][0].0[l];
    assert!(out(0, 0).is_nan(), "plain 0 × inf is NaN");
    assert_eq!(out(1, 0).to_bits(), 0, "pmul 0 × inf is +0");
    assert_eq!(out(1, 1).to_bits(), 0);
    assert_eq!(out(2, 3), 1.0);
    assert_eq!(out(3, 4), 1.0, "max(NaN, 1) = 1");
    assert_eq!(out(4, 3), -2.0);
    assert_eq!(out(5, 3), -2.0);
    assert_eq!(out(6, 2).to_bits(), 0, "-(-0) = +0");
    // c[100 + trunc(x)]: 0 → 100 (ones), 300 → offset out of range → 100, -29 → 71.
    assert_eq!(out(7, 0), 1.0);
    assert_eq!(out(7, 5), 1.0);
    assert_eq!(out(7, 6), 71.0);
    assert_eq!(out(0, 15), 42.0, "lanes past the batch are left alone");
}

/// LOOP i0 (count 2: three passes) nested in LOOP i1 (count 1), aL into outputs; then the
/// budget runs out in the middle of a block: what was stored before stays.
#[test]
fn loops_al_and_budget() {
    let mut b = Builder::new();
    b.use_loop_slots(2);
    let outer = b.block();
    let inner = b.block();
    let after_inner = b.block();
    let done = b.block();
    let spin = b.block();
    b.effect(Op::LoopPush, &[], [0, 1]);
    b.terminate(Terminator::Jump(outer));
    b.switch_to(outer);
    b.effect(Op::LoopPush, &[], [1, 0]);
    b.terminate(Terminator::Jump(inner));
    b.switch_to(inner);
    let v = b.inst(Op::UniformAl, &[], [0, 0]);
    let acc = b.var(Ty::F32);
    b.inst_to(Op::Add, acc, &[acc, v], [0, 0]);
    b.effect(Op::AlInc, &[], [1, 0]);
    b.effect(Op::Budget, &[], [0, 0]);
    b.terminate(Terminator::LoopNext {
        slot: 1,
        repeat: inner,
        exit: after_inner,
    });
    b.switch_to(after_inner);
    b.effect(Op::AlRestore, &[], [1, 0]);
    b.effect(Op::AlInc, &[], [0, 0]);
    b.effect(Op::Budget, &[], [0, 0]);
    b.terminate(Terminator::LoopNext {
        slot: 0,
        repeat: outer,
        exit: done,
    });
    b.switch_to(done);
    b.effect(Op::Output, &[acc], [0, 0]);
    b.terminate(Terminator::BranchBool {
        id: 31,
        then: spin,
        other: spin,
    });
    b.switch_to(spin);
    b.effect(Op::Output, &[acc], [1, 0]);
    b.effect(Op::Budget, &[], [0, 0]);
    b.effect(Op::Output, &[acc], [2, 0]);
    b.terminate(Terminator::Jump(spin));
    let f = b.finish();
    let mut ctx = Context::default();
    for (n, u) in ctx.uniforms.iter_mut().enumerate().take(96) {
        u[0] = n as f32;
    }
    // i0 = (count 2, start 10, step 5); i1 = (count 1, start 1, step 3).
    ctx.scalars.ints = [[2, 10, 5, 0], [1, 1, 3, 0], [0; 4], [0; 4]];
    ctx.scalars.budget = 100;
    run(&f, &mut ctx, 1);
    // Outer passes: aL = 1, then 4. Inner from aL = 10: 10 + 15 + 20 = 45 per outer pass.
    assert_eq!(ctx.output[0][0].0[0], 90.0);
    // 6 inner + 2 outer budget units, then the spin loop spends the remaining 92 and stops.
    assert_eq!(ctx.scalars.status, 1);
    assert_eq!(ctx.scalars.budget, 0);
    assert_eq!(ctx.output[1][0].0[0], 90.0);
    assert_eq!(ctx.output[2][0].0[0], 90.0);
    assert_eq!(ctx.scalars.al, 7, "outer aL 1 + 2 × 3");
}
