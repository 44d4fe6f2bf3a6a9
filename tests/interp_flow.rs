//! Flow control and the step budget (`picajit::interp`): IF/CALL/LOOP/BREAK/JMP, every
//! condition, the bounded circular stacks and their corner cases, the step budget, running off
//! the end of code memory, the entry point and undefined opcodes.

mod common;

use common::*;
use picajit::interp::{Interpreter, RunError};
use picajit::isa::{CmpOp, CondOp};
use picajit::program::{Regs16, Uniforms, VertexStatus};

/// c[i] = (i, 0, 0, 0): `c0[aL]` reads aL back as a number (for 0 <= aL < 96).
fn counting_uniforms() -> Uniforms {
    let mut u = Uniforms::default();
    for (i, cv) in u.f.iter_mut().enumerate() {
        *cv = [i as f32, 0.0, 0.0, 0.0];
    }
    u
}

const ZERO: [f32; 4] = [0.0; 4];

#[test]
fn ifu_then_and_else() {
    // [0] ifu b3, dest 3, num 2     ; then-block [1, 3), else-block [3, 5)
    // [1]   mov o0, v0
    // [2]   mov o2, v2
    // [3]   mov o0, v1              ; else
    // [4]   mov o3, v3
    // [5] mov o1, v1
    // [6] end
    let mut b = Builder::new();
    b.ifu(3, 3, 2)
        .mov(o(0), v(0))
        .mov(o(2), v(2))
        .mov(o(0), v(1))
        .mov(o(3), v(3))
        .mov(o(1), v(1))
        .end();
    let input = scalars(&[10.0, 11.0, 12.0, 13.0]);
    // b3 set (others clear): then-block, the else-block is skipped
    let out = run_one(&b.program(), &bools(1 << 3), input);
    assert_bits(&out[0], &[10.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &[11.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[2], &[12.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[3], &ZERO);
    // b3 clear (all others set): else-block only
    let out = run_one(&b.program(), &bools(!(1 << 3)), input);
    assert_bits(&out[0], &[11.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &[11.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[2], &ZERO);
    assert_bits(&out[3], &[13.0, 0.0, 0.0, 0.0]);
}

#[test]
fn ifc_then_and_else() {
    // [0] cmp v0, >, >, v4          ; cc.x = v0.x > 0
    // [1] ifc cc.x, dest 4, num 2   ; then [2, 4), else [4, 6)
    // [2]   mov o0, v1
    // [3]   mov o2, v2
    // [4]   mov o0, v2              ; else
    // [5]   mov o3, v3
    // [6] mov o1, v1
    // [7] end
    let mut b = Builder::new();
    b.cmp(v(0), CmpOp::Gt, CmpOp::Gt, v(4))
        .ifc(cond_x(true), 4, 2)
        .mov(o(0), v(1))
        .mov(o(2), v(2))
        .mov(o(0), v(2))
        .mov(o(3), v(3))
        .mov(o(1), v(1))
        .end();
    let outs = run_ok(
        &b.program(),
        &Uniforms::default(),
        &[
            scalars(&[1.0, 11.0, 12.0, 13.0]),
            scalars(&[-1.0, 11.0, 12.0, 13.0]),
        ],
    );
    assert_bits(&outs[0][0], &[11.0, 0.0, 0.0, 0.0]);
    assert_bits(&outs[0][2], &[12.0, 0.0, 0.0, 0.0]);
    assert_bits(&outs[0][3], &ZERO);
    assert_bits(&outs[1][0], &[12.0, 0.0, 0.0, 0.0]);
    assert_bits(&outs[1][2], &ZERO);
    assert_bits(&outs[1][3], &[13.0, 0.0, 0.0, 0.0]);
    for out in &outs {
        assert_bits(&out[1], &[11.0, 0.0, 0.0, 0.0]);
    }
}

/// The condition as the interpreter's module docs state it.
fn condition(cc: (bool, bool), cond: Cond) -> bool {
    let ok_x = cc.0 == cond.refx;
    let ok_y = cc.1 == cond.refy;
    match cond.op {
        CondOp::Or => ok_x || ok_y,
        CondOp::And => ok_x && ok_y,
        CondOp::X => ok_x,
        CondOp::Y => ok_y,
    }
}

/// `cmp v0, X, Y, v0` with v0 = 0 sets cc to any pair: op 6 is always true, != of equal
/// values false.
fn set_cc(b: &mut Builder, cc: (bool, bool)) {
    let op = |t: bool| if t { CmpOp::True6 } else { CmpOp::Ne };
    b.cmp(v(0), op(cc.0), op(cc.1), v(0));
}

/// Every cc value × REFX × REFY × CONDOP, on each conditional instruction: IFC, JMPC, CALLC
/// and BREAKC.
#[test]
fn conditions_all_combinations() {
    // Spot checks of the oracle against the spec's words, so it cannot drift.
    assert!(condition((true, false), cond_or(true, true)));
    assert!(!condition((true, false), cond_and(true, true)));
    assert!(condition((true, false), cond_and(true, false)));
    assert!(!condition((false, false), cond_x(true)));
    assert!(condition((false, true), cond_y(true)));
    assert!(!condition((false, false), cond_or(true, true)));

    let input = scalars(&[0.0, 1.0]);
    let mut checked = 0;
    for cc in [(false, false), (false, true), (true, false), (true, true)] {
        for refx in [false, true] {
            for refy in [false, true] {
                for op in [CondOp::Or, CondOp::And, CondOp::X, CondOp::Y] {
                    let cond = Cond { refx, refy, op };
                    let want = condition(cc, cond);
                    let what = format!("cc {cc:?}, {cond:?}");

                    // [0] cmp (sets cc)
                    // [1] ifc cond, dest 3, num 1   ; then [2], else [3]
                    // [2]   mov o0, v1
                    // [3]   mov o1, v1
                    // [4] end
                    let mut b = Builder::new();
                    set_cc(&mut b, cc);
                    b.ifc(cond, 3, 1).mov(o(0), v(1)).mov(o(1), v(1)).end();
                    let out = run_one(&b.program(), &Uniforms::default(), input);
                    assert_eq!(out[0][0] == 1.0, want, "ifc then-block, {what}");
                    assert_eq!(out[1][0] == 1.0, !want, "ifc else-block, {what}");

                    // [0] cmp
                    // [1] jmpc cond, dest 3
                    // [2] mov o1, v1                ; skipped when the jump is taken
                    // [3] mov o0, v1
                    // [4] end
                    let mut b = Builder::new();
                    set_cc(&mut b, cc);
                    b.jmpc(cond, 3).mov(o(1), v(1)).mov(o(0), v(1)).end();
                    let out = run_one(&b.program(), &Uniforms::default(), input);
                    assert_eq!(out[0][0], 1.0);
                    assert_eq!(out[1][0] == 0.0, want, "jmpc, {what}");

                    // [0] cmp
                    // [1] callc cond, dest 4, num 1
                    // [2] mov o1, v1
                    // [3] end
                    // [4] mov o0, v1                ; body
                    let mut b = Builder::new();
                    set_cc(&mut b, cc);
                    b.callc(cond, 4, 1).mov(o(1), v(1)).end().mov(o(0), v(1));
                    let out = run_one(&b.program(), &Uniforms::default(), input);
                    assert_eq!(out[1][0], 1.0);
                    assert_eq!(out[0][0] == 1.0, want, "callc, {what}");

                    // [0] cmp
                    // [1] loop i0, dest 3           ; i0 = (1, 0, 0): two passes
                    // [2]   breakc cond
                    // [3]   add r0, r0, v1          ; passes not broken
                    // [4] mov o0, r0
                    // [5] end
                    let mut b = Builder::new();
                    set_cc(&mut b, cc);
                    b.loop_(0, 3)
                        .breakc(cond)
                        .add(r(0), r(0), v(1))
                        .mov(o(0), r(0))
                        .end();
                    let mut u = Uniforms::default();
                    u.i[0] = [1, 0, 0, 0];
                    let out = run_one(&b.program(), &u, input);
                    let passes = if want { 0.0 } else { 2.0 };
                    assert_eq!(out[0][0], passes, "breakc, {what}");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 64);
}

#[test]
fn callu_and_call() {
    // [0] callu b1, dest 4, num 2   ; body [4, 6)
    // [1] mov o1, v1
    // [2] end
    // [3] mov o3, v3                ; never
    // [4] mov r0, v0                ; body
    // [5] add o0, r0, v0
    // [6] mov o2, v2                ; after the body: never (the return is at 6)
    let mut b = Builder::new();
    b.callu(1, 4, 2)
        .mov(o(1), v(1))
        .end()
        .mov(o(3), v(3))
        .mov(r(0), v(0))
        .add(o(0), r(0), v(0))
        .mov(o(2), v(2));
    let input = scalars(&[5.0, 11.0, 12.0, 13.0]);
    let out = run_one(&b.program(), &bools(1 << 1), input);
    assert_bits(&out[0], &[10.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &[11.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[2], &ZERO);
    assert_bits(&out[3], &ZERO);
    let out = run_one(&b.program(), &bools(!(1 << 1)), input);
    assert_bits(&out[0], &ZERO);
    assert_bits(&out[1], &[11.0, 0.0, 0.0, 0.0]);

    // CALL ignores its condition fields: cc = (0, 0) and the fields say "cc.x == 1 && cc.y == 1".
    // [0] call (refx 1, refy 1, AND), dest 3, num 1
    // [1] mov o1, v1
    // [2] end
    // [3] mov o0, v0
    let mut b = Builder::new();
    b.call_with_cond(cond_and(true, true), 3, 1)
        .mov(o(1), v(1))
        .end()
        .mov(o(0), v(0));
    let out = run_one(&b.program(), &Uniforms::default(), input);
    assert_bits(&out[0], &[5.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &[11.0, 0.0, 0.0, 0.0]);
}

/// Azahar's shader test "CALL": a double return popping two scopes in one step.
#[test]
fn call_double_return() {
    // [0] call dest 2, num 1
    // [1] end
    // [2] call dest 4, num 1
    // [3] end
    // [4] ex2 o0, v0
    // [5] end
    let mut b = Builder::new();
    b.call(2, 1).end().call(4, 1).end().ex2(o(0), v(0)).end();
    let out = run_one(&b.program(), &Uniforms::default(), scalars(&[0.0]));
    assert_ulps(out[0][0], 1.0, 1);

    // A variant where the two returns are observable: after [5] both scopes close in one
    // step, so [4] is never run and execution resumes at [1].
    // [0] call dest 3, num 1        ; {end 4, ret 1}
    // [1] mov o1, v1
    // [2] end
    // [3] call dest 5, num 1        ; {end 6, ret 4}
    // [4] mov o2, v2                ; skipped
    // [5] mov o0, v0
    // [6] end
    let mut b = Builder::new();
    b.call(3, 1)
        .mov(o(1), v(1))
        .end()
        .call(5, 1)
        .mov(o(2), v(2))
        .mov(o(0), v(0))
        .end();
    let out = run_one(
        &b.program(),
        &Uniforms::default(),
        scalars(&[1.0, 2.0, 3.0]),
    );
    assert_bits(&out[0], &[1.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &[2.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[2], &ZERO);
}

/// LOOP: `aL = i.y`, `i.x + 1` passes, `aL += i.z` after each pass (also the last).
#[test]
fn loop_passes_and_al() {
    // [0] loop i2, dest 2           ; body [1, 2]
    // [1]   add r0, r0, v0          ; passes
    // [2]   add r1, c0[aL], r1      ; sum of aL over the passes
    // [3] mov o0, r0
    // [4] mov o1, r1
    // [5] mov o2, c0[aL]            ; final aL
    // [6] end
    let mut b = Builder::new();
    b.loop_(2, 2)
        .add(r(0), r(0), v(0))
        .add(r(1), c(0).rel(AL), r(1))
        .mov(o(0), r(0))
        .mov(o(1), r(1))
        .mov(o(2), c(0).rel(AL))
        .end();
    for (x, y, z) in [
        (0u8, 0u8, 0u8),
        (0, 7, 3),
        (1, 0, 1),
        (5, 7, 3),
        (5, 0, 0),
        (255, 1, 0),
    ] {
        let mut u = counting_uniforms();
        u.i[2] = [x, y, z, 0];
        let out = run_one(&b.program(), &u, scalars(&[1.0]));
        let passes = u32::from(x) + 1;
        let sum: u32 = (0..passes).map(|k| u32::from(y) + k * u32::from(z)).sum();
        let final_al = u32::from(y) + passes * u32::from(z);
        let what = format!("i2 = ({x}, {y}, {z})");
        assert_eq!(out[0][0], passes as f32, "passes, {what}");
        assert_eq!(out[1][0], sum as f32, "sum of aL, {what}");
        assert_eq!(out[2][0], final_al as f32, "final aL, {what}");
    }
}

/// Azahar's shader test "Nested Loop": o0.x = (x0+1)(x1+1)+1 and final aL = y0 + (x0+1)·z0;
/// the inner loop's aL runs from its own start, and when it ends the outer loop's aL is restored.
#[test]
fn nested_loops() {
    // [0] mov r0, v0
    // [1] loop i0, dest 5           ; outer body [2, 5]
    // [2]   loop i1, dest 4         ; inner body [3, 4]
    // [3]     add r0, r0, v0
    // [4]     add r3, c0[aL], r3    ; inner aL
    // [5]   add r2, c0[aL], r2      ; outer aL, restored after the inner loop
    // [6] mov o1, c0[aL]            ; final aL
    // [7] mov o0, r0
    // [8] mov o2, r2
    // [9] mov o3, r3
    // [10] end
    let mut b = Builder::new();
    b.mov(r(0), v(0))
        .loop_(0, 5)
        .loop_(1, 4)
        .add(r(0), r(0), v(0))
        .add(r(3), c(0).rel(AL), r(3))
        .add(r(2), c(0).rel(AL), r(2))
        .mov(o(1), c(0).rel(AL))
        .mov(o(0), r(0))
        .mov(o(2), r(2))
        .mov(o(3), r(3))
        .end();
    let mut cases = 0;
    for x0 in [4u8, 9] {
        for z0 in [1u8, 2] {
            for x1 in [4u8, 7] {
                for y0 in [0u8, 3] {
                    let y1 = 10u8;
                    let mut u = counting_uniforms();
                    u.i[0] = [x0, y0, z0, 0];
                    u.i[1] = [x1, y1, 1, 0];
                    let out = run_one(&b.program(), &u, scalars(&[1.0]));
                    let (x0, y0, z0, x1, y1) = (
                        u32::from(x0),
                        u32::from(y0),
                        u32::from(z0),
                        u32::from(x1),
                        u32::from(y1),
                    );
                    let what = format!("i0 = ({x0}, {y0}, {z0}), i1 = ({x1}, {y1}, 1)");
                    assert_eq!(out[0][0], ((x0 + 1) * (x1 + 1) + 1) as f32, "{what}");
                    assert_eq!(out[1][0], (y0 + (x0 + 1) * z0) as f32, "final aL, {what}");
                    let outer: u32 = (0..=x0).map(|k| y0 + k * z0).sum();
                    assert_eq!(out[2][0], outer as f32, "outer aL, {what}");
                    let inner: u32 = (0..=x1).map(|j| y1 + j).sum();
                    assert_eq!(out[3][0], ((x0 + 1) * inner) as f32, "inner aL, {what}");
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 16);
}

/// The restored aL is the enclosing loop's full value, not a byte of it: outer aL 260 comes
/// back as 260 (out of the ±128 range, so `c0[aL]` reads c0), not as 260 & 0xFF = 4.
#[test]
fn nested_loop_restores_full_al() {
    // [0] loop i0, dest 3           ; i0 = (1, 250, 10): outer aL 250, 260
    // [1]   loop i1, dest 2         ; i1 = (0, 0, 0)
    // [2]     nop
    // [3]   add r0, c0[aL], r0      ; c[i] = (i, ..): adds 0 while aL is out of range
    // [4] mov o0, r0
    // [5] end
    let mut b = Builder::new();
    b.loop_(0, 3)
        .loop_(1, 2)
        .nop()
        .add(r(0), c(0).rel(AL), r(0))
        .mov(o(0), r(0))
        .end();
    let mut u = counting_uniforms();
    u.i[0] = [1, 250, 10, 0];
    u.i[1] = [0, 0, 0, 0];
    let out = run_one(&b.program(), &u, scalars(&[]));
    assert_eq!(out[0][0], 0.0);
}

/// BREAKC leaves the loop after `aL += inc`.
#[test]
fn breakc_adds_increment() {
    // [0] loop i0, dest 4           ; i0 = (9, 5, 3): aL = 5, 8, 11, ...
    // [1]   add r0, r0, v0          ; passes started
    // [2]   cmp r0, >=, >=, v1      ; cc.x = r0.x >= 3
    // [3]   breakc cc.x
    // [4]   add r1, r1, v0          ; passes completed
    // [5] mov o0, r0
    // [6] mov o1, r1
    // [7] mov o2, c0[aL]
    // [8] end
    let mut b = Builder::new();
    b.loop_(0, 4)
        .add(r(0), r(0), v(0))
        .cmp(r(0), CmpOp::Ge, CmpOp::Ge, v(1))
        .breakc(cond_x(true))
        .add(r(1), r(1), v(0))
        .mov(o(0), r(0))
        .mov(o(1), r(1))
        .mov(o(2), c(0).rel(AL))
        .end();
    let mut u = counting_uniforms();
    u.i[0] = [9, 5, 3, 0];
    let out = run_one(&b.program(), &u, scalars(&[1.0, 3.0]));
    assert_eq!(out[0][0], 3.0);
    assert_eq!(out[1][0], 2.0);
    assert_eq!(out[2][0], 14.0); // 5 + 3 + 3, then + 3 on the break
}

/// BREAK inside an IF inside a LOOP: the loop ends (aL += inc) and the IF entry is dropped.
#[test]
fn break_inside_if() {
    // [0] loop i0, dest 5           ; i0 = (9, 5, 3)
    // [1]   add r0, r0, v0
    // [2]   cmp r0, >=, >=, v1
    // [3]   ifc cc.x, dest 5, num 0 ; then [4]
    // [4]     break
    // [5]   add r1, r1, v0
    // [6] mov o0, r0
    // [7] mov o1, r1
    // [8] mov o2, c0[aL]
    // [9] end
    let mut b = Builder::new();
    b.loop_(0, 5)
        .add(r(0), r(0), v(0))
        .cmp(r(0), CmpOp::Ge, CmpOp::Ge, v(1))
        .ifc(cond_x(true), 5, 0)
        .brk()
        .add(r(1), r(1), v(0))
        .mov(o(0), r(0))
        .mov(o(1), r(1))
        .mov(o(2), c(0).rel(AL))
        .end();
    let mut u = counting_uniforms();
    u.i[0] = [9, 5, 3, 0];
    let out = run_one(&b.program(), &u, scalars(&[1.0, 3.0]));
    assert_eq!(out[0][0], 3.0);
    assert_eq!(out[1][0], 2.0);
    assert_eq!(out[2][0], 14.0);
}

/// BREAK out of a nested loop restores the enclosing loop's aL.
#[test]
fn break_from_inner_loop_restores_outer_al() {
    // [0] loop i0, dest 3           ; i0 = (1, 20, 1): outer aL 20, 21
    // [1]   loop i1, dest 2         ; i1 = (5, 50, 1)
    // [2]     break
    // [3]   add r0, c0[aL], r0
    // [4] mov o0, r0
    // [5] mov o1, c0[aL]
    // [6] end
    let mut b = Builder::new();
    b.loop_(0, 3)
        .loop_(1, 2)
        .brk()
        .add(r(0), c(0).rel(AL), r(0))
        .mov(o(0), r(0))
        .mov(o(1), c(0).rel(AL))
        .end();
    let mut u = counting_uniforms();
    u.i[0] = [1, 20, 1, 0];
    u.i[1] = [5, 50, 1, 0];
    let out = run_one(&b.program(), &u, scalars(&[1.0]));
    assert_eq!(out[0][0], 41.0);
    assert_eq!(out[1][0], 22.0);
}

/// BREAK and BREAKC with an empty loop stack do nothing.
#[test]
fn break_without_loop_does_nothing() {
    // [0] cmp v0, 6, 6, v0          ; cc = (1, 1)
    // [1] breakc cc.x
    // [2] break
    // [3] mov o0, v1
    // [4] end
    let mut b = Builder::new();
    b.cmp(v(0), CmpOp::True6, CmpOp::True7, v(0))
        .breakc(cond_x(true))
        .brk()
        .mov(o(0), v(1))
        .end();
    let out = run_one(&b.program(), &Uniforms::default(), scalars(&[0.0, 4.0]));
    assert_bits(&out[0], &[4.0, 0.0, 0.0, 0.0]);
}

/// JMPU jumps iff b[id] == !(NUM & 1): only NUM bit 0 inverts. JMPC ignores NUM.
#[test]
fn jmpu_num_bit0_inverts_and_jmpc_ignores_num() {
    for value in [false, true] {
        for num in [0u8, 1, 2, 3, 0xFE, 0xFF] {
            // [0] jmpu b2, dest 3, num <num>
            // [1] mov o1, v1
            // [2] end
            // [3] mov o0, v0
            // [4] end
            let mut b = Builder::new();
            b.jmpu(2, 3, num)
                .mov(o(1), v(1))
                .end()
                .mov(o(0), v(0))
                .end();
            let u = bools(if value { 1 << 2 } else { !(1 << 2) });
            let out = run_one(&b.program(), &u, scalars(&[1.0, 2.0]));
            let jumped = value == (num % 2 == 0);
            let what = format!("b2 = {value}, num = {num}");
            assert_eq!(out[0][0] == 1.0, jumped, "{what}");
            assert_eq!(out[1][0] == 2.0, !jumped, "{what}");
        }
    }
    // jmpc !cc.x, dest 3 with NUM 0 and NUM 1: 0xB080_0C00 | num
    // (0x2C << 26, CONDOP 2 << 22, DEST 3 << 10); cc.x is false, so both jump.
    for num in [0u32, 1] {
        let mut b = Builder::new();
        b.word(0xB080_0C00 | num) // [0] jmpc !cc.x, dest 3 (num 0 / 1)
            .mov(o(1), v(1)) // [1] mov o1, v1
            .end() // [2] end
            .mov(o(0), v(0)) // [3] mov o0, v0
            .end(); // [4] end
        let out = run_one(&b.program(), &Uniforms::default(), scalars(&[1.0, 2.0]));
        assert_bits(&out[0], &[1.0, 0.0, 0.0, 0.0]);
        assert_bits(&out[1], &ZERO);
    }
}

/// A jump by the last instruction of an IF then-block, a LOOP body or a CALL body is
/// overridden by the scope close.
#[test]
fn jump_as_last_instruction_of_a_scope_is_not_taken() {
    let input = scalars(&[1.0, 2.0, 3.0, 4.0]);
    // [0] ifu b0, dest 3, num 1     ; then [1, 3), else [3], end 4
    // [1]   mov o0, v0
    // [2]   jmpu b0, dest 6         ; last of the then-block: the IF close wins -> 4
    // [3]   mov o1, v1              ; else: skipped
    // [4] mov o2, v2
    // [5] end
    // [6] mov o3, v3
    // [7] end
    let mut b = Builder::new();
    b.ifu(0, 3, 1)
        .mov(o(0), v(0))
        .jmpu(0, 6, 0)
        .mov(o(1), v(1))
        .mov(o(2), v(2))
        .end()
        .mov(o(3), v(3))
        .end();
    let out = run_one(&b.program(), &bools(1), input);
    assert_bits(&out[0], &[1.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &ZERO);
    assert_bits(&out[2], &[3.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[3], &ZERO);

    // [0] loop i0, dest 2           ; i0 = (2, 0, 0): three passes
    // [1]   add r0, r0, v0
    // [2]   jmpu b0, dest 5         ; the loop close wins (also on the last pass)
    // [3] mov o0, r0
    // [4] end
    // [5] mov o1, v1
    // [6] end
    let mut b = Builder::new();
    b.loop_(0, 2)
        .add(r(0), r(0), v(0))
        .jmpu(0, 5, 0)
        .mov(o(0), r(0))
        .end()
        .mov(o(1), v(1))
        .end();
    let mut u = bools(1);
    u.i[0] = [2, 0, 0, 0];
    let out = run_one(&b.program(), &u, input);
    assert_bits(&out[0], &[3.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &ZERO);

    // [0] call dest 3, num 2        ; body [3, 5)
    // [1] mov o0, r0
    // [2] end
    // [3] add r0, v0, v0
    // [4] jmpu b0, dest 6           ; the return wins -> 1
    // [5] end
    // [6] mov o1, v1
    // [7] end
    let mut b = Builder::new();
    b.call(3, 2)
        .mov(o(0), r(0))
        .end()
        .add(r(0), v(0), v(0))
        .jmpu(0, 6, 0)
        .end()
        .mov(o(1), v(1))
        .end();
    let out = run_one(&b.program(), &bools(1), input);
    assert_bits(&out[0], &[2.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &ZERO);
}

/// Leaving an IF by a jump leaves its entry on the stack; it fires when execution later
/// passes the end of the then-block.
#[test]
fn stale_if_entry_fires_later() {
    // [0] ifu b0, dest 3, num 2     ; push {else 3, end 5}
    // [1] jmpu b0, dest 6           ; leave the then-block
    // [2] mov o1, v1                ; reached from [7]; the stale entry then jumps to 5
    // [3] mov o2, v2                ; skipped
    // [4] mov o3, v3                ; skipped
    // [5] end
    // [6] mov o0, v0
    // [7] jmpu b0, dest 2
    let mut b = Builder::new();
    b.ifu(0, 3, 2)
        .jmpu(0, 6, 0)
        .mov(o(1), v(1))
        .mov(o(2), v(2))
        .mov(o(3), v(3))
        .end()
        .mov(o(0), v(0))
        .jmpu(0, 2, 0);
    let out = run_one(&b.program(), &bools(1), scalars(&[1.0, 2.0, 3.0, 4.0]));
    assert_bits(&out[0], &[1.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &[2.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[2], &ZERO);
    assert_bits(&out[3], &ZERO);
}

/// Leaving a LOOP by a jump leaves its entry; every later pass over its last instruction
/// repeats the loop until its count runs out.
#[test]
fn stale_loop_entry_fires_later() {
    // [0] loop i0, dest 3           ; i0 = (5, 0, 0): {entry 1, end 4, down 5}
    // [1]   add r0, r0, v0
    // [2]   jmpu b0, dest 7         ; leave the body
    // [3]   nop                     ; reached from [8]: the stale entry repeats the loop
    // [4] mov o0, r0
    // [5] mov o1, r1
    // [6] end
    // [7] add r1, r1, v0
    // [8] jmpu b0, dest 3
    let mut b = Builder::new();
    b.loop_(0, 3)
        .add(r(0), r(0), v(0))
        .jmpu(0, 7, 0)
        .nop()
        .mov(o(0), r(0))
        .mov(o(1), r(1))
        .end()
        .add(r(1), r(1), v(0))
        .jmpu(0, 3, 0);
    let mut u = bools(1);
    u.i[0] = [5, 0, 0, 0];
    let out = run_one(&b.program(), &u, scalars(&[1.0]));
    assert_eq!(out[0][0], 6.0);
    assert_eq!(out[1][0], 6.0);
}

/// `n` nested IFs (all true). Each then-block ends with a marker `add r0, r0, v0`, and each
/// IF has a one-instruction else-block `add r1, r1, v0` that a working IF skips.
///
/// ```text
/// [k]  ifu b0, dest E_k, num 1    k = 0..n-1, E_k = n+1 + 2(n-1-k)
/// [n]  add r0, r0, v0             innermost marker
/// then alternating: [E_k] add r1, r1, v0 (else of IF k), [E_k + 1] add r0, r0, v0
/// [3n+1] mov o0, r0 ; [3n+2] mov o1, r1 ; [3n+3] end
/// ```
fn nested_ifs(n: u16) -> Builder {
    let mut b = Builder::new();
    for k in 0..n {
        b.ifu(0, n + 1 + 2 * (n - 1 - k), 1);
    }
    b.add(r(0), r(0), v(0));
    for _ in 0..n {
        b.add(r(1), r(1), v(0)).add(r(0), r(0), v(0));
    }
    b.at(3 * n + 1).mov(o(0), r(0)).mov(o(1), r(1)).end();
    b
}

/// The IF stack holds 8: a 9th push drops the oldest entry, so the outermost IF's else-block
/// runs after its then-block (and with 10, the two outermost).
#[test]
fn if_stack_overflow_drops_oldest() {
    for (n, elses) in [(1u16, 0.0), (8, 0.0), (9, 1.0), (10, 2.0)] {
        let b = nested_ifs(n);
        let out = run_one(&b.program(), &bools(1), scalars(&[1.0]));
        assert_eq!(out[0][0], f32::from(n + 1), "markers with {n} nested IFs");
        assert_eq!(out[1][0], elses, "else-blocks run with {n} nested IFs");
    }
}

/// `n` nested CALLs. Body k (k = 1..n) is at 10k: `call 10(k+1), 2` (or `nop` for the last)
/// then the marker `add r0, r0, v0`; it returns to 10(k-1)+1.
///
/// ```text
/// [0] call dest 10, num 2
/// [1] add r1, r1, v0     ; back in main
/// [2] mov o0, r0
/// [3] mov o1, r1
/// [4] end
/// [10k] call dest 10(k+1), num 2 | nop
/// [10k+1] add r0, r0, v0
/// [12] mov o0, r0         ; only reached by falling out of body 1
/// [13] mov o2, v2
/// [14] end
/// ```
fn nested_calls(n: u16) -> Builder {
    let mut b = Builder::new();
    b.call(10, 2)
        .add(r(1), r(1), v(0))
        .mov(o(0), r(0))
        .mov(o(1), r(1))
        .end();
    for k in 1..=n {
        b.pad_to(10 * k);
        if k < n {
            b.call(10 * (k + 1), 2);
        } else {
            b.nop();
        }
        b.add(r(0), r(0), v(0));
        if k == 1 {
            b.mov(o(0), r(0)).mov(o(2), v(2)).end();
        }
    }
    b
}

/// The CALL stack holds 4: a 5th nested CALL drops the oldest return, so body 1 does not
/// return to main but falls through.
#[test]
fn call_stack_overflow_drops_oldest() {
    let input = scalars(&[1.0, 0.0, 7.0]);
    let out = run_one(&nested_calls(4).program(), &Uniforms::default(), input);
    assert_bits(&out[0], &[4.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &[1.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[2], &ZERO);
    let out = run_one(&nested_calls(5).program(), &Uniforms::default(), input);
    assert_bits(&out[0], &[5.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &ZERO);
    assert_bits(&out[2], &[7.0, 0.0, 0.0, 0.0]);
}

/// Four CALL scopes closing in one step: the 4th pop leaves the pc where the 3rd put it.
#[test]
fn four_pop_call_quirk() {
    let input = scalars(&[1.0, 2.0, 3.0]);
    // [0]  call dest 10, num 1      ; {end 11, ret 1}
    // [1]  mov o1, v1               ; would run if the 4th pop returned
    // [2]  end
    // [10] call dest 20, num 1      ; {end 21, ret 11}
    // [11] mov o2, v2               ; the 4th pop leaves the pc here
    // [12] end
    // [20] call dest 30, num 1      ; {end 31, ret 21}
    // [30] call dest 40, num 1      ; {end 41, ret 31}
    // [40] mov o0, v0               ; next 41: four scopes close
    let mut b = Builder::new();
    b.call(10, 1).mov(o(1), v(1)).end();
    b.pad_to(10).call(20, 1).mov(o(2), v(2)).end();
    b.pad_to(20).call(30, 1);
    b.pad_to(30).call(40, 1);
    b.pad_to(40).mov(o(0), v(0));
    let out = run_one(&b.program(), &Uniforms::default(), input);
    assert_bits(&out[0], &[1.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &ZERO);
    assert_bits(&out[2], &[3.0, 0.0, 0.0, 0.0]);

    // Three scopes closing in one step return all the way.
    // [0]  call dest 10, num 1 ; [1] mov o1, v1 ; [2] end
    // [10] call dest 20, num 1 ; [11] mov o2, v2 ; [12] end
    // [20] call dest 30, num 1
    // [30] mov o0, v0
    let mut b = Builder::new();
    b.call(10, 1).mov(o(1), v(1)).end();
    b.pad_to(10).call(20, 1).mov(o(2), v(2)).end();
    b.pad_to(20).call(30, 1);
    b.pad_to(30).mov(o(0), v(0));
    let out = run_one(&b.program(), &Uniforms::default(), input);
    assert_bits(&out[0], &[1.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &[2.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[2], &ZERO);
}

#[test]
fn end_inside_call() {
    // [0] call dest 3, num 2
    // [1] mov o1, v1
    // [2] end
    // [3] mov o0, v0
    // [4] end                       ; ends the invocation inside the body
    let mut b = Builder::new();
    b.call(3, 2).mov(o(1), v(1)).end().mov(o(0), v(0)).end();
    let out = run_one(&b.program(), &Uniforms::default(), scalars(&[1.0, 2.0]));
    assert_bits(&out[0], &[1.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &ZERO);
}

/// A backward JMPU to itself runs until the budget is gone; so does a CALL that calls itself.
#[test]
fn runaway_programs_exhaust_the_budget() {
    // [0] jmpu b0, dest 0
    let mut b = Builder::new();
    b.jmpu(0, 0, 0);
    let agreed = run_all_budget(&b.program(), &bools(1), &[scalars(&[1.0])], 1000);
    assert_eq!(agreed.invocations[0].status, VertexStatus::BudgetExhausted);
    assert_eq!(
        agreed.batch,
        Err(RunError::BudgetExhausted {
            vertex: 0,
            count: 1,
            budget: 1000
        })
    );

    // [0] call dest 1, num 2
    // [1] call dest 1, num 2        ; calls itself (body [1, 3) never reaches its end)
    // [2] nop
    let mut b = Builder::new();
    b.call(1, 2).call(1, 2).nop();
    let agreed = run_all_budget(&b.program(), &Uniforms::default(), &[scalars(&[])], 1000);
    assert_eq!(agreed.invocations[0].status, VertexStatus::BudgetExhausted);
}

/// In a batch, the error names the first vertex that ran out and counts them; the other
/// vertices end normally with their outputs written.
#[test]
fn batch_budget_error_names_the_vertex() {
    // [0] cmp v0, >, >, v1          ; cc.x = v0.x > 0
    // [1] jmpc cc.x, dest 1         ; spins while cc.x
    // [2] mov o0, v0
    // [3] end
    let mut b = Builder::new();
    b.cmp(v(0), CmpOp::Gt, CmpOp::Gt, v(1))
        .jmpc(cond_x(true), 1)
        .mov(o(0), v(0))
        .end();
    let xs = [0.0, -1.0, 0.0, 1.0, -5.0, 2.0, -3.0];
    let inputs: Vec<Regs16> = xs.iter().map(|&x| scalars(&[x])).collect();
    let agreed = run_all_budget(&b.program(), &Uniforms::default(), &inputs, 1000);
    assert_eq!(
        agreed.batch,
        Err(RunError::BudgetExhausted {
            vertex: 3,
            count: 2,
            budget: 1000
        })
    );
    for (inv, &x) in agreed.invocations.iter().zip(&xs) {
        if x > 0.0 {
            assert_eq!(inv.status, VertexStatus::BudgetExhausted);
        } else {
            assert_eq!(inv.status, VertexStatus::Ended);
            assert_bits(&inv.outputs[0], &[x, 0.0, 0.0, 0.0]);
        }
    }
}

/// Runs `program` with budgets `need` and `need - 1`: the first must end, the second run out.
fn needs_exactly(b: &Builder, u: &Uniforms, input: Regs16, need: u32) -> Regs16 {
    let p = b.program();
    let ok = run_all_budget(&p, u, &[input], need);
    assert_eq!(
        ok.invocations[0].status,
        VertexStatus::Ended,
        "budget {need}"
    );
    assert_eq!(ok.batch, Ok(()));
    if need > 0 {
        let short = run_all_budget(&p, u, &[input], need - 1);
        assert_eq!(
            short.invocations[0].status,
            VertexStatus::BudgetExhausted,
            "budget {}",
            need - 1
        );
    }
    ok.invocations[0].outputs
}

/// The budget counts exactly the backward transfers (target <= the causing instruction's
/// address): loop repeats, backward jumps, calls and returns, backward IF jumps.
#[test]
fn exact_budget_accounting() {
    // Forward-only code needs no budget at all.
    // [0] mov o0, v0 ; [1] end
    let mut b = Builder::new();
    b.mov(o(0), v(0)).end();
    needs_exactly(&b, &Uniforms::default(), scalars(&[1.0]), 0);

    // LOOP with 10 passes: 9 repeats.
    // [0] loop i0, dest 1 ; [1] add r0, r0, v0 ; [2] mov o0, r0 ; [3] end
    let mut b = Builder::new();
    b.loop_(0, 1).add(r(0), r(0), v(0)).mov(o(0), r(0)).end();
    let mut u = Uniforms::default();
    u.i[0] = [9, 0, 0, 0];
    let out = needs_exactly(&b, &u, scalars(&[1.0]), 9);
    assert_eq!(out[0][0], 10.0);

    // Backward JMPC while r0 < 50: 49 jumps.
    // [0] add r0, r0, v0 ; [1] cmp r0, <, <, v1 ; [2] jmpc cc.x, dest 0
    // [3] mov o0, r0 ; [4] end
    let mut b = Builder::new();
    b.add(r(0), r(0), v(0))
        .cmp(r(0), CmpOp::Lt, CmpOp::Lt, v(1))
        .jmpc(cond_x(true), 0)
        .mov(o(0), r(0))
        .end();
    let out = needs_exactly(&b, &Uniforms::default(), scalars(&[1.0, 50.0]), 49);
    assert_eq!(out[0][0], 50.0);

    // Forward CALL, backward return: 1.
    // [0] call dest 2, num 1 ; [1] end ; [2] mov o0, v0
    let mut b = Builder::new();
    b.call(2, 1).end().mov(o(0), v(0));
    let out = needs_exactly(&b, &Uniforms::default(), scalars(&[1.0]), 1);
    assert_eq!(out[0][0], 1.0);

    // Backward CALL, forward return: 1.
    // [0] jmpu b0, dest 2, num 1    ; b0 false: jumps (forward)
    // [1] mov o0, v0                ; body
    // [2] call dest 1, num 1        ; backward
    // [3] end
    let mut b = Builder::new();
    b.jmpu(0, 2, 1).mov(o(0), v(0)).call(1, 1).end();
    let out = needs_exactly(&b, &Uniforms::default(), scalars(&[1.0]), 1);
    assert_eq!(out[0][0], 1.0);

    // A false IF whose else-block lies behind it: a backward jump.
    // [0] jmpu b0, dest 3, num 1    ; forward
    // [1] mov o0, v0                ; else-block [1, 2)
    // [2] end
    // [3] ifu b0, dest 1, num 1     ; b0 false -> pc = 1 (backward)
    let mut b = Builder::new();
    b.jmpu(0, 3, 1).mov(o(0), v(0)).end().ifu(0, 1, 1);
    let out = needs_exactly(&b, &Uniforms::default(), scalars(&[1.0]), 1);
    assert_eq!(out[0][0], 1.0);

    // Two CALL scopes closing in one step (returns to 4, then to 1): one step, one unit.
    // [0] call dest 3, num 1 ; [1] mov o1, v1 ; [2] end
    // [3] call dest 5, num 1 ; [4] mov o2, v2 ; [5] mov o0, v0 ; [6] end
    let mut b = Builder::new();
    b.call(3, 1)
        .mov(o(1), v(1))
        .end()
        .call(5, 1)
        .mov(o(2), v(2))
        .mov(o(0), v(0))
        .end();
    let out = needs_exactly(&b, &Uniforms::default(), scalars(&[1.0, 2.0]), 1);
    assert_eq!(out[1][0], 2.0);

    // A jump to itself that is not taken costs nothing.
    // [0] jmpu b0, dest 0           ; b0 false: not taken
    // [1] mov o0, v0 ; [2] end
    let mut b = Builder::new();
    b.jmpu(0, 0, 0).mov(o(0), v(0)).end();
    needs_exactly(&b, &Uniforms::default(), scalars(&[1.0]), 0);
}

/// The interpreter stops a run-out invocation with its registers as the last instruction left
/// them (interpreter-defined; the budget rule only requires engines to agree on whether it ran
/// out).
#[test]
fn interpreter_state_at_budget_exhaustion() {
    // [0] add r0, r0, v0
    // [1] mov o0, r0
    // [2] jmpu b0, dest 0
    let mut b = Builder::new();
    b.add(r(0), r(0), v(0)).mov(o(0), r(0)).jmpu(0, 0, 0);
    let inv = Interpreter::new(&b.program())
        .with_budget(1000)
        .run_vertex(&bools(1), &scalars(&[1.0]));
    assert_eq!(inv.status, VertexStatus::BudgetExhausted);
    // 1000 jumps back succeed, so [0] and [1] run 1001 times.
    assert_eq!(inv.outputs[0][0], 1001.0);
}

/// The default budget is 1,048,576 backward transfers.
#[test]
fn default_budget() {
    // [0] add r0, r0, v0 ; [1] cmp r0, <, <, v1 ; [2] jmpc cc.x, dest 0
    // [3] mov o0, r0 ; [4] end
    let mut b = Builder::new();
    b.add(r(0), r(0), v(0))
        .cmp(r(0), CmpOp::Lt, CmpOp::Lt, v(1))
        .jmpc(cond_x(true), 0)
        .mov(o(0), r(0))
        .end();
    let interp = Interpreter::new(&b.program());
    assert_eq!(interp.budget(), 1_048_576);
    assert_eq!(DEFAULT_BUDGET, 1_048_576);
    // r0 counts to N with N - 1 backward jumps.
    let n = 1_048_577.0;
    let inv = interp.run_vertex(&Uniforms::default(), &scalars(&[1.0, n]));
    assert_eq!(inv.status, VertexStatus::Ended);
    assert_eq!(inv.outputs[0][0], n);
    let inv = interp.run_vertex(&Uniforms::default(), &scalars(&[1.0, n + 1.0]));
    assert_eq!(inv.status, VertexStatus::BudgetExhausted);
}

/// A program without END runs the zero words (`add o0, v0, v0` with descriptor 0) up to slot
/// 4094; slot 4095 always ends, whatever it holds.
#[test]
fn running_off_the_end() {
    // descriptor 0 = full mask, identity
    // [0..4094) 0x0000_0000         ; add o0, v0, v0
    // [4094] mov o1, v1
    // [4095] mov o2, v2             ; not executed: slot 4095 is END
    let mut b = Builder::new();
    b.set_desc(0, IDENTITY_DESC);
    b.fill_to(4094, 0).mov(o(1), v(1)).mov(o(2), v(2));
    assert_eq!(b.here(), 4096);
    let input = vecs(&[[1.5, -2.0, 0.0, 3.0], splat(7.0), splat(9.0)]);
    let out = needs_exactly(&b, &Uniforms::default(), input, 0);
    assert_bits(&out[0], &[3.0, -4.0, 0.0, 6.0]);
    assert_bits(&out[1], &splat(7.0));
    assert_bits(&out[2], &ZERO);

    // Only one word loaded: memory beyond it is zero.
    // [0] mov o1, v1 ; [1..4095) zero words
    let mut b = Builder::new();
    b.set_desc(0, IDENTITY_DESC);
    b.mov(o(1), v(1));
    let out = needs_exactly(&b, &Uniforms::default(), input, 0);
    assert_bits(&out[0], &[3.0, -4.0, 0.0, 6.0]);
    assert_bits(&out[1], &splat(7.0));

    // Jumping to slot 4095 ends there too.
    // [0] jmpu b0, dest 4095, num 1 ; b0 false: jumps
    // [1] end
    // [4095] mov o2, v2
    let mut b = Builder::new();
    b.jmpu(0, 4095, 1).end().pad_to(4095).mov(o(2), v(2));
    let out = run_one(&b.program(), &Uniforms::default(), input);
    assert_bits(&out[2], &ZERO);
}

/// An IF whose end address (DEST + NUM) lies past code memory: closing its then-block sends
/// the pc past slot 4095, which ends the invocation like slot 4095 (interpreter-defined: the
/// spec only says slot 4095 behaves as END); the pc does not wrap around.
#[test]
fn scope_end_past_code_memory_ends() {
    // [0]    jmpu b1, dest 300, num 1     ; b1 false: jumps
    // [249]  mov o2, v2                   ; 4345 & 0xFFF: reached only if the pc wrapped
    // [250]  end
    // [300]  ifu b0, dest 4090, num 255   ; then [301, 4090), else [4090, 4345)
    // [301..4090) nop
    // [4090] mov o1, v1                   ; else-block: skipped
    // [4091] end
    let mut b = Builder::new();
    b.jmpu(1, 300, 1).pad_to(249).mov(o(2), v(2)).end();
    b.pad_to(300).ifu(0, 4090, 255);
    b.pad_to(4090).mov(o(1), v(1)).end();
    let out = needs_exactly(&b, &bools(1), scalars(&[1.0, 2.0, 3.0]), 0);
    assert_bits(&out[1], &ZERO);
    assert_bits(&out[2], &ZERO);
}

#[test]
fn entry_point() {
    // [0] mov o0, v0
    // [1] end
    // [2] mov o1, v1                ; entry
    // [3] end
    let mut b = Builder::new();
    b.mov(o(0), v(0)).end().mov(o(1), v(1)).end().entry(2);
    let out = run_one(&b.program(), &Uniforms::default(), scalars(&[1.0, 2.0]));
    assert_bits(&out[0], &ZERO);
    assert_bits(&out[1], &[2.0, 0.0, 0.0, 0.0]);

    // Entry 4095: ends at once.
    let mut b = Builder::new();
    b.mov(o(0), v(0)).end().entry(4095);
    let out = run_one(&b.program(), &Uniforms::default(), scalars(&[1.0]));
    assert_bits(&out[0], &ZERO);
}

/// Undefined opcodes (0x10, 0x11, 0x14–0x17, 0x1C–0x1F) execute as NOP, even with every
/// operand bit set.
#[test]
fn undefined_opcodes_are_nops() {
    // [0] mov r0, v0
    // [1..=10] <undefined value> << 26 | 0x03FF_FFFF
    // [11] add r0, r0, v0
    // [12] mov o0, r0
    // [13] end
    let mut b = Builder::new();
    b.mov(r(0), v(0));
    for value in [
        0x10u32, 0x11, 0x14, 0x15, 0x16, 0x17, 0x1C, 0x1D, 0x1E, 0x1F,
    ] {
        b.word(value << 26 | 0x03FF_FFFF);
    }
    b.add(r(0), r(0), v(0)).mov(o(0), r(0)).end();
    let u = Uniforms {
        f: [[5.0; 4]; 96],
        ..Uniforms::default()
    };
    let out = run_one(&b.program(), &u, vecs(&[[1.0, 2.0, 3.0, 4.0]]));
    assert_bits(&out[0], &[2.0, 4.0, 6.0, 8.0]);
    for reg in &out[1..] {
        assert_bits(reg, &ZERO);
    }
}
