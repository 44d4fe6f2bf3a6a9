//! The batch API: `run` and `run_par` agree with one-vertex-at-a-time `run_vertex` on batches
//! of every size (every test here goes through [`run_all`], which checks that), each vertex
//! starts from the deterministic start state (`picajit::interp`), and errors name the right
//! vertex.

mod common;

use common::*;
use picajit::interp::{Interpreter, RunError};
use picajit::isa::CmpOp;
use picajit::program::{Regs16, Uniforms, VertexStatus};

/// c[i] = (i, -i, 2i, 1).
fn uniforms() -> Uniforms {
    let mut u = Uniforms::default();
    for (i, cv) in u.f.iter_mut().enumerate() {
        let x = i as f32;
        *cv = [x, -x, 2.0 * x, 1.0];
    }
    u
}

/// Vertex n's inputs: v0 = (n, 2n, -n, 0.5), v1 = (1, n, 3, 0.25), v2 = (500, ..),
/// v3.x = n mod 96.
fn vertex_inputs(n: usize) -> Regs16 {
    let x = n as f32;
    vecs(&[
        [x, 2.0 * x, -x, 0.5],
        [1.0, x, 3.0, 0.25],
        [500.0, 0.0, 0.0, 0.0],
        [(n % 96) as f32, 0.0, 0.0, 0.0],
    ])
}

/// A program whose arithmetic, control flow and uniform reads all depend on the vertex.
///
/// ```text
/// [0] add o0, v0, v1
/// [1] mul o1, v0, v1
/// [2] cmp v0, <, <, v2          ; cc.x = n < 500
/// [3] ifc cc.x, dest 5, num 1   ; then [4], else [5]
/// [4]   mov o2, v0
/// [5]   mov o2, v1
/// [6] mova a0.x, v3
/// [7] mov o3, c0[a0.x]
/// [8] end
/// ```
fn program() -> Builder {
    let mut b = Builder::new();
    b.add(o(0), v(0), v(1))
        .mul(o(1), v(0), v(1))
        .cmp(v(0), CmpOp::Lt, CmpOp::Lt, v(2))
        .ifc(cond_x(true), 5, 1)
        .mov(o(2), v(0))
        .mov(o(2), v(1))
        .mova("x", v(3))
        .mov(o(3), c(0).rel(A0X))
        .end();
    b
}

#[test]
fn batches_of_every_size() {
    let p = program().program();
    for len in [0usize, 1, 7, 1000] {
        let inputs: Vec<Regs16> = (0..len).map(vertex_inputs).collect();
        let outs = run_ok(&p, &uniforms(), &inputs);
        assert_eq!(outs.len(), len);
        for (n, out) in outs.iter().enumerate() {
            let x = n as f32;
            let what = format!("vertex {n} of {len}");
            check_bits(&out[0], &[x + 1.0, 3.0 * x, 3.0 - x, 0.75], &what);
            check_bits(&out[1], &[x, 2.0 * x * x, -3.0 * x, 0.125], &what);
            let o2 = if n < 500 {
                [x, 2.0 * x, -x, 0.5]
            } else {
                [1.0, x, 3.0, 0.25]
            };
            check_bits(&out[2], &o2, &what);
            let i = (n % 96) as f32;
            check_bits(&out[3], &[i, -i, 2.0 * i, 1.0], &what);
            for reg in &out[4..] {
                check_bits(reg, &[0.0; 4], &what);
            }
        }
    }
}

/// Every vertex starts from r = 0, o = 0, a0 = 0, aL = 0, cc = false, whatever the vertex
/// before it left behind.
#[test]
fn every_vertex_starts_from_the_same_state() {
    // [0]  add r0, r0, v0           ; r0 starts at 0
    // [1]  mov o0, r0
    // [2]  ifc cc.x, dest 4, num 0  ; cc starts false: [3] skipped
    // [3]    mov o1, v0
    // [4]  mov o2, c10[a0.x]        ; a0.x starts at 0
    // [5]  mov o3, c10[aL]          ; aL starts at 0
    // [6]  mova a0.x, v1            ; leave a0.x = 5
    // [7]  loop i0, dest 8          ; i0 = (0, 7, 1): leave aL = 8
    // [8]    nop
    // [9]  cmp v2, >, >, v3         ; leave cc.x = v2.x > 0
    // [10] ifc cc.x, dest 12, num 0
    // [11]   mov o4, v0             ; only on vertices with v2.x > 0
    // [12] end
    let mut b = Builder::new();
    b.add(r(0), r(0), v(0))
        .mov(o(0), r(0))
        .ifc(cond_x(true), 4, 0)
        .mov(o(1), v(0))
        .mov(o(2), c(10).rel(A0X))
        .mov(o(3), c(10).rel(AL))
        .mova("x", v(1))
        .loop_(0, 8)
        .nop()
        .cmp(v(2), CmpOp::Gt, CmpOp::Gt, v(3))
        .ifc(cond_x(true), 12, 0)
        .mov(o(4), v(0))
        .end();
    let mut u = uniforms();
    u.i[0] = [0, 7, 1, 0];
    let inputs: Vec<Regs16> = (0..8)
        .map(|n| {
            let x = n as f32 + 1.0;
            let flag = if n % 2 == 0 { 1.0 } else { 0.0 };
            vecs(&[splat(x), splat(5.0), splat(flag), splat(0.0)])
        })
        .collect();
    let outs = run_ok(&b.program(), &u, &inputs);
    for (n, out) in outs.iter().enumerate() {
        let x = n as f32 + 1.0;
        let what = format!("vertex {n}");
        check_bits(&out[0], &splat(x), &what);
        check_bits(&out[1], &[0.0; 4], &what);
        check_bits(&out[2], &[10.0, -10.0, 20.0, 1.0], &what);
        check_bits(&out[3], &[10.0, -10.0, 20.0, 1.0], &what);
        let o4 = if n % 2 == 0 { splat(x) } else { [0.0; 4] };
        check_bits(&out[4], &o4, &what);
    }
}

/// Batch slices of different lengths are refused by both batch entry points.
#[test]
fn length_mismatch() {
    let interp = Interpreter::new(&program().program());
    let u = uniforms();
    let inputs: Vec<Regs16> = (0..3).map(vertex_inputs).collect();
    for (outs, stats) in [(2usize, 3usize), (3, 4), (0, 0), (4, 2)] {
        let mut outputs = vec![[[0.0; 4]; 16]; outs];
        let mut status = vec![VertexStatus::Ended; stats];
        let want = Err(RunError::LengthMismatch {
            inputs: 3,
            outputs: outs,
            status: stats,
        });
        assert_eq!(interp.run(&u, &inputs, &mut outputs, &mut status), want);
        assert_eq!(interp.run_par(&u, &inputs, &mut outputs, &mut status), want);
    }
}

/// In a large (parallel) batch, the budget error names the lowest vertex that ran out and
/// counts all of them; every other vertex is complete.
#[test]
fn budget_error_in_a_large_batch() {
    // [0] cmp v0, >, >, v1          ; cc.x = v0.x > 0
    // [1] jmpc cc.x, dest 1         ; spins while cc.x
    // [2] mov o0, v0
    // [3] end
    let mut b = Builder::new();
    b.cmp(v(0), CmpOp::Gt, CmpOp::Gt, v(1))
        .jmpc(cond_x(true), 1)
        .mov(o(0), v(0))
        .end();
    let spinning = [500usize, 900, 901];
    let inputs: Vec<Regs16> = (0..1000)
        .map(|n| {
            let x = if spinning.contains(&n) {
                1.0
            } else {
                -(n as f32)
            };
            scalars(&[x])
        })
        .collect();
    let agreed = run_all_budget(&b.program(), &Uniforms::default(), &inputs, 100);
    assert_eq!(
        agreed.batch,
        Err(RunError::BudgetExhausted {
            vertex: 500,
            count: 3,
            budget: 100
        })
    );
    for (n, inv) in agreed.invocations.iter().enumerate() {
        if spinning.contains(&n) {
            assert_eq!(inv.status, VertexStatus::BudgetExhausted, "vertex {n}");
        } else {
            assert_eq!(inv.status, VertexStatus::Ended, "vertex {n}");
            assert_bits(&inv.outputs[0], &[-(n as f32), 0.0, 0.0, 0.0]);
        }
    }
}

/// The output contract of batch runs, on every engine: registers in the program's write set
/// are stored in full, 0.0 where a vertex did not write them (here o4, written only by vertices
/// whose v0.x is below 500, and o5.yzw, never written although o5.x is); registers outside it
/// keep what the buffer held (`run_all` fills buffers with a marker and checks it survives in
/// o6..o15, then reports those registers as 0.0).
///
/// ```text
/// [0] mov o0, v0
/// [1] cmp v0, <, <, v2          ; cc.x = v0.x < 500
/// [2] ifc cc.x, dest 4, num 0   ; then [3]
/// [3]   mov o4, v1
/// [4] mov o5.x, v1
/// [5] end
/// ```
#[test]
fn output_contract_stores_exactly_the_write_set() {
    let mut b = Builder::new();
    b.mov(o(0), v(0))
        .cmp(v(0), CmpOp::Lt, CmpOp::Lt, v(2))
        .ifc(cond_x(true), 4, 0)
        .mov(o(4), v(1))
        .mov(o(5).mask("x"), v(1))
        .end();
    let program = b.program();
    assert_eq!(program.outputs_written(), 0b11_0001);
    let inputs: Vec<Regs16> = [10.0f32, 900.0, 20.0, 700.0, 30.0]
        .iter()
        .map(|&x| {
            vecs(&[
                [x, 0.0, 0.0, 0.0],
                [1.0, 2.0, 3.0, 4.0],
                [500.0, 0.0, 0.0, 0.0],
            ])
        })
        .collect();
    let runs = run_all(&program, &Uniforms::default(), &inputs);
    for (n, inv) in runs.iter().enumerate() {
        let x = inputs[n][0][0];
        assert_bits(&inv.outputs[0], &[x, 0.0, 0.0, 0.0]);
        let o4 = if x < 500.0 {
            [1.0, 2.0, 3.0, 4.0]
        } else {
            [0.0; 4]
        };
        assert_bits(&inv.outputs[4], &o4);
        assert_bits(&inv.outputs[5], &[1.0, 0.0, 0.0, 0.0]);
        for r in [1, 2, 3, 6, 15] {
            assert_bits(&inv.outputs[r], &[0.0; 4]);
        }
    }
}
