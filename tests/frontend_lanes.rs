//! The lane-position model (`frontend::lanes`): per-vertex control flow that neither
//! if-conversion nor a masked region covers — lanes that END while others go on, IF/ELSE arms
//! holding loops and calls, END inside a called procedure, unstructured backward jumps, a0 and
//! aL that differ per lane, the stack-overflow quirks, per-lane budgets. Every program runs on
//! the interpreter, the IR evaluator and every native backend (AArch64 under qemu), bit for bit
//! and status for status, with inputs whose lanes take different paths.

mod frontend_support;

use frontend_support::*;
use picajit::asm::{assemble, Source};
use picajit::frontend::{self, Lowered};
use picajit::program::{Program, Uniforms};

/// The program of a vertex-shader source and uniforms with its constants applied (c_n =
/// (n, n + 0.25, −n, 1/(n + 1)) elsewhere; i0 = 4 passes from 0 step 1, i1 = 3 from 2 step 3).
fn source(text: &str) -> (Program, Uniforms) {
    let (shbin, _) = assemble(&[Source::new("lanes.v.pica", text)]).expect("assembles");
    let program = shbin.program(0).expect("program");
    let mut u = uniforms([[3, 0, 1, 0], [2, 2, 3, 0], [0; 4], [0; 4]], 0);
    shbin.dvles[0].apply_constants(&mut u);
    (program, u)
}

/// Lowers (in the lane-position model, with at least `splits` per-vertex conditions splitting
/// lanes) and compares every engine on ramp inputs, random inputs and uniforms, and small
/// budgets.
fn lanes(text: &str, splits: usize) -> Lowered {
    let (p, u) = source(text);
    let l = frontend::lower(&p).expect("lowers");
    assert!(
        l.stats.lanes && l.stats.lane_splits >= splits,
        "{:?}\n{}",
        l.stats,
        l.func
    );
    compare(&l, &p, &u, &ramp_inputs(19), 4096).unwrap();
    for seed in 0..6 {
        let mut rng = fastrand::Rng::with_seed(seed);
        compare(&l, &p, &u, &random_inputs(&mut rng, 13), 4096).unwrap();
        compare(&l, &p, &random_uniforms(&mut rng), &ramp_inputs(11), 4096).unwrap();
    }
    for budget in [0, 1, 2, 3, 5, 9] {
        compare(&l, &p, &u, &ramp_inputs(19), budget).unwrap();
    }
    l
}

/// The common pattern of the issue: lanes that END inside IFC/ELSE while the others go on.
#[test]
fn end_inside_if_else() {
    lanes(
        "
        .constf k(0.5, 1.0, 0.0, 2.0)
        .in pos v0
        .out opos position
        .out oclr color
        .proc main
            mov opos, pos
            cmp k.x, gt, gt, pos.x
            ifc cmp.x
                mov oclr, k.yzyy
                end
            .else
                mul r1, k.w, pos
            .end
            mul r2.xyz, r1, pos
            mov r2.w, k.y
            add oclr, k.x, r2
            end
        .end
        ",
        1,
    );
}

/// A per-vertex IF/ELSE whose arms are short arithmetic (if-converted) before one that ENDs in
/// an arm: the first round of branch conversion converts the first and finds nothing else to
/// convert or mask, so the function is built in the lane-position model with the conversion.
#[test]
fn if_converted_then_end_inside_if_else() {
    let l = lanes(
        "
        .constf k(0.5, 1.0, 0.0, 2.0)
        .in pos v0
        .out opos position
        .out oclr color
        .proc main
            mov opos, pos
            cmp k.x, lt, lt, pos.y
            ifc cmp.x
                mul r3, k.w, pos
            .else
                add r3, k.x, pos
            .end
            cmp k.x, gt, gt, pos.x
            ifc cmp.x
                mov oclr, r3
                end
            .else
                mul r1, r3, pos
            .end
            mul r2.xyz, r1, pos
            mov r2.w, k.y
            add oclr, k.x, r2
            end
        .end
        ",
        1,
    );
    assert_eq!(l.stats.if_converted, 1, "{:?}", l.stats);
}

/// IF/ELSE whose arms hold a loop and a call, a per-vertex END in the loop.
#[test]
fn if_else_with_a_loop_and_a_call() {
    let l = lanes(
        "
        .constf k(0.5, 1.0, 0.0, 2.0)
        .consti four(3, 0, 1, 0)
        .in pos v0
        .out opos position
        .out oclr color
        .proc main
            mov r0, k.z
            cmp k.x, gt, le, pos.x
            ifc cmp.x
                for four
                    add r0, k.y, r0
                    cmp r0.x, gt, gt, pos.y
                    breakc cmp.x
                .end
            .else
                call side
            .end
            mov opos, r0
            cmp k.z, gt, gt, pos.z
            ifc cmp.x
                mov oclr, k.yzzy
                end
            .end
            mul oclr, r0, pos
            end
        .end
        .proc side
            mad r0, pos, k.w, pos.yxzw
            max r0, r0, pos.yxzw
        .end
        ",
        2,
    );
    assert!(
        l.stats.if_converted + l.stats.lane_splits >= 3,
        "{:?}",
        l.stats
    );
}

/// END inside a procedure called under a per-vertex condition.
#[test]
fn end_in_a_conditional_call() {
    lanes(
        "
        .constf k(0.5, 1.0, 0.0, 2.0)
        .in pos v0
        .out opos position
        .proc main
            cmp k.x, lt, lt, pos.y
            callc cmp.x, quit
            mul opos, k.w, pos
            end
        .end
        .proc quit
            mov opos, k.yyzz
            end
        .end
        ",
        1,
    );
}

/// An unstructured backward JMPC per vertex (each lane loops its own number of times and
/// spends its own budget), and a forward JMPC into the middle of it.
#[test]
fn unstructured_backward_jumps() {
    lanes(
        "
        .constf k(0.5, 1.0, 0.0, 0.25)
        .in pos v0
        .out opos position
        .out oclr color
        .proc main
            mov r0, k.z
            cmp k.z, lt, lt, pos.x
            jmpc cmp.y, inside
        top:
            add r0, k.w, r0
        inside:
            add r1, k.x, r0
            cmp r0.x, lt, lt, pos.y
            ifc cmp.y
                mov oclr, r1
                end
            .end
            jmpc cmp.x, top
            mov opos, r0
            mov oclr, r1
            end
        .end
        ",
        2,
    );
}

/// a0 written under a per-vertex condition, then relative reads: a0 per lane.
#[test]
fn a0_written_under_a_per_vertex_branch() {
    lanes(
        "
        .constf k(0.5, 1.0, 3.0, 2.0)
        .in pos v0
        .out opos position
        .proc main
            mova a0.x, k.w
            cmp k.x, gt, gt, pos.x
            ifc cmp.x
                mova a0.x, k.z
                for i1
                    add r0, c10[aL], r0
                .end
            .else
                add r0, k.y, pos
                end
            .end
            add opos, c4[a0.x], r0
            end
        .end
        ",
        1,
    );
}

/// aL read after a loop that lanes leave at different iterations (aL differs per lane), in a
/// nested loop.
#[test]
fn al_per_lane_after_a_per_vertex_break() {
    lanes(
        "
        .constf k(0.5, 1.0, 0.0, 2.0)
        .in pos v0
        .out opos position
        .out oclr color
        .proc main
            for i0
                add r0, k.y, r0
                cmp r0.x, gt, gt, pos.x
                breakc cmp.x
            .end
            add r1, c20[aL], r0
            for i1
                for i0
                    add r2, c30[aL], r2
                    cmp r2.y, gt, gt, pos.y
                    breakc cmp.x
                .end
                add r2, c40[aL], r2
            .end
            mov opos, r1
            mov oclr, r2
            cmp k.z, gt, gt, pos.z
            ifc cmp.x
                end
            .end
            add oclr, c50[aL], r2
            end
        .end
        ",
        2,
    );
}

/// Nine nested per-vertex IFCs overflow the IF stack (the oldest entry is lost), with lanes
/// leaving at different depths.
#[test]
fn nested_ifcs_overflow_the_if_stack() {
    let mut text = String::from(
        "
        .constf k(0.5, 1.0, 0.0, 0.125)
        .in pos v0
        .out opos position
        .proc main
            mov r0, pos
        ",
    );
    for _ in 0..9 {
        text += "
            add r0, -k.w, r0
            cmp k.z, lt, gt, r0.x
            ifc cmp.x
                add r1, k.y, r1
        ";
    }
    for n in 0..9 {
        text += &format!(
            "
            .end
            cmp c{n}.y, lt, lt, r1.x
            ifc cmp.y
                end
            .end
            "
        );
    }
    text += "
            mov opos, r1
            end
        .end
        ";
    lanes(&text, 9);
}

/// Lanes whose loops run different numbers of times exhaust their budgets at different
/// steps: with small budgets, some lanes end and some do not (statuses per lane).
#[test]
fn per_lane_budgets() {
    let l = lanes(
        "
        .constf k(0.5, 1.0, 0.0, 0.25)
        .in pos v0
        .out opos position
        .proc main
        top:
            add r0, k.w, r0
            cmp r0.x, lt, le, pos.x
            ifc !cmp.y
                mov opos, -r0
                end
            .end
            jmpc cmp.x, top
            mov opos, r0
            end
        .end
        ",
        1,
    );
    let (p, u) = source(
        "
        .constf k(0.5, 1.0, 0.0, 0.25)
        .in pos v0
        .out opos position
        .proc main
        top:
            add r0, k.w, r0
            cmp r0.x, lt, le, pos.x
            ifc !cmp.y
                mov opos, -r0
                end
            .end
            jmpc cmp.x, top
            mov opos, r0
            end
        .end
        ",
    );
    // The ramp's lanes need 0, 1, 2, … back edges: a budget of 3 stops some of them only.
    let inputs = ramp_inputs(16);
    let got = frontend::eval::run(&l.func, &u, &inputs, 3);
    let exhausted = got
        .iter()
        .filter(|(_, s)| *s == picajit::program::VertexStatus::BudgetExhausted)
        .count();
    assert!(exhausted > 0 && exhausted < inputs.len(), "{exhausted}");
    compare(&l, &p, &u, &inputs, 3).unwrap();
}

/// The `branches` example (jit-bench's divergent shader): culled vertices END, the others take
/// a loop with a BREAKC or a call, and some END after the IF/ELSE; inputs drawn as jit-bench
/// draws them, so every batch's lanes part at random.
#[test]
fn the_branches_example() {
    let text = include_str!("../examples/shaders/branches.v.pica");
    lanes(text, 2);
    let (p, u) = source(text);
    let l = frontend::lower(&p).expect("lowers");
    let mut rng = fastrand::Rng::with_seed(12);
    let inputs: Vec<_> = (0..61)
        .map(|_| {
            let mut r = [[0.0f32; 4]; 16];
            r[0] = [rng.f32(), rng.f32(), rng.f32(), 1.0];
            r[1] = [rng.f32(), rng.f32() * 0.6, rng.f32() * 2.0 - 0.5, rng.f32()];
            r
        })
        .collect();
    compare(&l, &p, &u, &inputs, 4096).unwrap();
}

/// Generated branchy programs with more states than the lane model searches in several
/// rounds: their last build's conditions are confirmed and their relative uniform reads
/// checked on demand (a backward search per question, not a whole solve), and some
/// conditions and relative reads turn out uniform among the running lanes.
#[test]
fn large_generated_branchy_programs() {
    use picajit::synthetic::{program, Shape};
    for seed in [1, 2] {
        let p = program(Shape::Branchy, 500, seed).expect("generated");
        let l = frontend::lower(&p).expect("lowers");
        assert!(l.stats.lanes && l.stats.lane_uniform > 0, "{:?}", l.stats);
        let mut rng = fastrand::Rng::with_seed(seed);
        let u = random_uniforms(&mut rng);
        compare(&l, &p, &u, &ramp_inputs(19), 4096).unwrap();
        compare(&l, &p, &u, &random_inputs(&mut rng, 13), 4096).unwrap();
    }
}
