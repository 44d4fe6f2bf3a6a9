//! Masked regions (`frontend::masked`): per-vertex branches out of loops, forward over loops and
//! calls, and the shapes that must not become regions. Every program runs on the interpreter,
//! the IR evaluator and every native backend (AArch64 under qemu), bit for bit, with inputs
//! whose lanes leave at different times.

mod frontend_support;

use frontend_support::*;
use picajit::frontend::{self, Lowered};
use picajit::isa::*;
use picajit::program::{Program, Uniforms};
use picajit_codegen::ir::Op;

/// Lowers, checks the count of masked forks (0: the function is built in the lane-position
/// model instead) and compares every engine on ramp inputs (lanes diverge), random special
/// inputs, and a small budget.
fn masked(p: &Program, u: &Uniforms, forks: usize) -> Lowered {
    let l = frontend::lower(p).expect("lowers");
    assert_eq!(
        (l.stats.masked_forks, l.stats.lanes),
        (forks, forks == 0),
        "{:?}\n{}",
        l.stats,
        l.func
    );
    // Masked regions (and the lane-position model) count the budget per lane: no budget of
    // the batch, which would stop every lane at once.
    let batch_budget = l
        .func
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| i.op == Op::Budget);
    assert!(!batch_budget, "a budget of the batch under lane masks");
    compare(&l, p, u, &ramp_inputs(19), 4096).unwrap();
    for seed in 0..6 {
        let mut rng = fastrand::Rng::with_seed(seed);
        compare(&l, p, u, &random_inputs(&mut rng, 13), 4096).unwrap();
        compare(&l, p, &random_uniforms(&mut rng), &ramp_inputs(11), 4096).unwrap();
    }
    for budget in [0, 1, 2, 3, 5] {
        compare(&l, p, u, &ramp_inputs(19), budget).unwrap();
    }
    l
}

/// c_n = (n, n + 0.25, −n, 1/(n + 1)); i0 = 8 iterations from aL = 0 step 1, i1 = 3 from 2
/// step 3.
fn u() -> Uniforms {
    uniforms([[7, 0, 1, 0], [2, 2, 3, 0], [0, 0, 0, 0], [0, 0, 0, 0]], 0)
}

/// `cmp r0 > v0` then `breakc cc.x` inside a loop: each lane leaves when its count passes its
/// input (the ramp gives every lane a different trip count).
#[test]
fn breakc_out_of_a_loop() {
    let descs = [desc(0xF), desc(0x1)];
    let code = [
        lp(0, 3),                                              // 0: 8 iterations, body 1..=3
        f1(Instruction::Add, rd(0), c(1), r(0), 0),            // 1: r0 += 1
        cmp(CmpOp::Gt, CmpOp::Gt, r(0), v(0), 0),              // 2
        f2(Instruction::Breakc, true, false, CondOp::X, 0, 0), // 3: last of the loop
        f1u(Instruction::Mov, o(0), r(0), 0),
        f1(Instruction::Mul, o(1), c(2), r(0), 1), // o1.w only
        end(),
    ];
    masked(&program(&code, &descs), &u(), 1);
    // BREAKC first in the body (the fork is also where the region is entered), and a body
    // that writes an output and cc.y under the mask.
    let code = [
        lp(0, 4),
        cmp(CmpOp::Ge, CmpOp::Lt, r(0), v(0), 0),
        f2(Instruction::Breakc, true, false, CondOp::X, 0, 0), // 2
        f1(Instruction::Add, rd(0), c(1), r(0), 0),
        f1(Instruction::Add, o(2), c(3), r(0), 0), // 4: o2 under the mask
        f1u(Instruction::Mov, o(0), r(0), 0),
        end(),
    ];
    masked(&program(&code, &descs), &u(), 1);
}

/// Two BREAKCs (on cc.x and on cc.y) in one loop fork one region; an if-converted branch
/// inside it runs under the region's mask too.
#[test]
fn two_breaks_and_an_if_converted_branch_in_a_loop() {
    let descs = [desc(0xF), desc(0x1)];
    let code = [
        lp(0, 8),
        f1(Instruction::Add, rd(0), c(1), r(0), 0), // 1
        cmp(CmpOp::Gt, CmpOp::Lt, r(0), v(0), 0),   // 2: x: r0 > v0.x, y: r0 < v0.y
        f2(Instruction::Breakc, true, false, CondOp::X, 0, 0), // 3
        f2(Instruction::Jmpc, false, false, CondOp::Y, 6, 0), // 4: skip 5 where !cc.y
        f1(Instruction::Mul, rd(1), c(2), r(0), 0), // 5
        cmp(CmpOp::Le, CmpOp::Ge, r(1), v(1), 0),   // 6
        nop(),                                      // 7
        f2(Instruction::Breakc, false, true, CondOp::And, 0, 0), // 8: last
        f1u(Instruction::Mov, o(0), r(0), 0),
        f1u(Instruction::Mov, o(1), r(1), 0),
        end(),
    ];
    let l = masked(&program(&code, &descs), &u(), 2);
    assert_eq!(l.stats.if_converted, 1);
}

/// A per-vertex BREAKC in an inner loop: the inner loop's exit restores aL from the outer
/// loop, so the outer body may read aL afterwards.
#[test]
fn breakc_out_of_a_nested_loop_restores_al() {
    let descs = [desc(0xF), desc(0x1)];
    let code = [
        lp(1, 6),                                                 // 0: outer, body 1..=6
        lp(0, 4),                                                 // 1: inner, body 2..=4
        f1(Instruction::Add, rd(0), c(1), r(0), 0),               // 2
        cmp(CmpOp::Gt, CmpOp::Gt, r(0), v(0), 0),                 // 3
        f2(Instruction::Breakc, true, false, CondOp::X, 0, 0),    // 4
        f1x(Instruction::Add, rd(1), c(0), AddrIdx::AL, r(1), 0), // 5: reads the outer aL
        f1(Instruction::Add, rd(0), c(3), r(0), 0),               // 6
        f1u(Instruction::Mov, o(0), r(0), 0),
        f1u(Instruction::Mov, o(1), r(1), 0),
        end(),
    ];
    masked(&program(&code, &descs), &u(), 1);
}

/// After an outer-level loop that lanes leave at different iterations, aL differs between
/// them: a program that then reads aL is built in the lane-position model (aL per lane).
#[test]
fn al_read_after_the_loop_is_not_masked() {
    let descs = [desc(0xF)];
    let code = [
        lp(0, 3),
        f1(Instruction::Add, rd(0), c(1), r(0), 0),
        cmp(CmpOp::Gt, CmpOp::Gt, r(0), v(0), 0),
        f2(Instruction::Breakc, true, false, CondOp::X, 0, 0), // 3
        f1x(Instruction::Add, rd(1), c(10), AddrIdx::AL, r(0), 0), // 4: aL after the loop
        f1u(Instruction::Mov, o(0), r(1), 0),
        end(),
    ];
    masked(&program(&code, &descs), &u(), 0);
}

/// A loop body writing a0 (MOVA) is no masked region: a0 per lane, in the lane-position model.
#[test]
fn mova_in_the_loop_is_not_masked() {
    let descs = [desc(0xF), desc(0xC)];
    let code = [
        lp(0, 4),
        f1(Instruction::Add, rd(0), c(1), r(0), 0),
        f1u(Instruction::Mova, o(0), r(0), 1), // a0.xy
        cmp(CmpOp::Gt, CmpOp::Gt, r(0), v(0), 0),
        f2(Instruction::Breakc, true, false, CondOp::X, 0, 0), // 4
        f1x(Instruction::Add, rd(1), c(10), AddrIdx::A0x, r(0), 0),
        f1u(Instruction::Mov, o(0), r(1), 0),
        end(),
    ];
    masked(&program(&code, &descs), &u(), 0);
}

/// A per-vertex JMPC forward over a loop and a call: the lanes that jump wait at the target.
#[test]
fn jmpc_forward_over_a_loop_and_a_call() {
    let descs = [desc(0xF), desc(0x3)];
    let code = [
        cmp(CmpOp::Gt, CmpOp::Le, c(2), v(0), 0), // 0: x: 2 > v0
        f2(Instruction::Jmpc, true, false, CondOp::X, 6, 0), // 1: → 6 where cc.x
        lp(1, 3),                                 // 2: 3 iterations
        f1x(Instruction::Add, rd(0), c(4), AddrIdx::AL, r(0), 0), // 3
        call(9, 2),                               // 4: 9..=10
        f1(Instruction::Mul, o(3), r(0), v(1), 0), // 5
        f1u(Instruction::Mov, o(0), r(0), 0),     // 6: the join
        f1(Instruction::Add, o(1), v(2), r(1), 1),
        end(),
        f1(Instruction::Add, rd(1), c(5), v(3), 0), // 9: procedure
        f1(Instruction::Max, rd(1), r(1), v(0), 0), // 10
    ];
    masked(&program(&code, &descs), &u(), 1);
    // The same jump to the end of code memory: the lanes that take it have ended.
    let mut to_end = code.to_vec();
    to_end[1] = f2(Instruction::Jmpc, true, false, CondOp::X, 4095, 0);
    masked(&program(&to_end, &descs), &u(), 1);
}

/// A JMPC backward (a loop of the program's own, spending budget at its back edge) whose
/// lanes leave by a forward JMPC at different times; with budgets from 0 up, some lanes run
/// out inside the region.
#[test]
fn unstructured_loop_with_a_per_vertex_exit() {
    let descs = [desc(0xF), desc(0x1)];
    let code = [
        f1(Instruction::Add, rd(0), c(1), r(0), 0),          // 0
        cmp(CmpOp::Gt, CmpOp::Gt, r(0), v(0), 0),            // 1
        f2(Instruction::Jmpc, true, false, CondOp::X, 5, 0), // 2: out where r0 > v0
        f1(Instruction::Add, rd(1), c(3), r(1), 0),          // 3
        f3b(Instruction::Jmpu, 0, 0, 1),                     // 4: back to 0 unless b0
        f1u(Instruction::Mov, o(0), r(0), 0),                // 5
        f1u(Instruction::Mov, o(1), r(1), 0),
        end(),
    ];
    masked(&program(&code, &descs), &u(), 1);
}

/// Nested regions: an inner loop whose lanes leave by BREAKC inside an outer loop whose lanes
/// leave by BREAKC too (the inner mask starts as the outer one at every entry), and a forward
/// JMPC over a loop with a per-vertex BREAKC.
#[test]
fn nested_regions() {
    let descs = [desc(0xF), desc(0x1)];
    let code = [
        lp(1, 7),                                              // 0: outer (3 passes), 1..=7
        f1(Instruction::Add, rd(1), c(1), r(1), 0),            // 1
        lp(0, 4),                                              // 2: inner (8 passes), 3..=4
        f1(Instruction::Add, rd(0), c(1), r(0), 0),            // 3
        cmp(CmpOp::Gt, CmpOp::Gt, r(0), v(0), 0),              // 4: last of inner... see 5
        f2(Instruction::Breakc, true, false, CondOp::X, 0, 0), // 5
        cmp(CmpOp::Lt, CmpOp::Ge, v(1), r(1), 0),              // 6: y: v1 >= r1
        f2(Instruction::Breakc, false, true, CondOp::Y, 0, 0), // 7: last of outer
        f1u(Instruction::Mov, o(0), r(0), 0),
        f1u(Instruction::Mov, o(1), r(1), 0),
        end(),
    ];
    // The inner loop's body ends at 4, so its BREAKC at 5 is in the outer body: the inner
    // loop has no per-vertex exit. Make it end at 5.
    let mut code = code.to_vec();
    code[2] = lp(0, 5);
    masked(&program(&code, &descs), &u(), 2);
    // A forward JMPC over a loop whose lanes leave by BREAKC.
    let code = [
        cmp(CmpOp::Gt, CmpOp::Le, c(2), v(1), 0), // 0: x: 2 > v1
        f2(Instruction::Jmpc, true, false, CondOp::X, 6, 0), // 1: → 6 where cc.x
        lp(0, 5),                                 // 2: 8 passes, 3..=5
        f1(Instruction::Add, rd(0), c(1), r(0), 0), // 3
        cmp(CmpOp::Gt, CmpOp::Gt, r(0), v(0), 0), // 4
        f2(Instruction::Breakc, true, false, CondOp::X, 0, 0), // 5
        f1u(Instruction::Mov, o(0), r(0), 0),     // 6: the join
        f1(Instruction::Add, o(1), v(2), r(0), 1),
        end(),
    ];
    masked(&program(&code, &descs), &u(), 2);
}

/// A forward JMPC over a loop of the program's own that never ends (JMPU back, always): the
/// lanes that enter it run out of budget, the others end. Once every lane inside has run out,
/// a region would go round the loop with no lane in it, so the program is built in the
/// lane-position model; the statuses are each lane's own.
#[test]
fn jmpc_forward_over_an_endless_loop() {
    let descs = [desc(0xF), desc(0x1)];
    let code = [
        cmp(CmpOp::Gt, CmpOp::Gt, c(2), v(0), 0), // 0: x: 2 > v0
        f2(Instruction::Jmpc, true, false, CondOp::X, 4, 0), // 1: → 4 where cc.x
        f1(Instruction::Add, rd(0), c(1), r(0), 0), // 2
        f3b(Instruction::Jmpu, 0, 2, 1),          // 3: back to 2 unless b0 (b0 is false)
        f1u(Instruction::Mov, o(0), r(0), 0),     // 4: the join
        end(),
    ];
    masked(&program(&code, &descs), &u(), 0);
}
