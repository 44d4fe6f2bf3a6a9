//! Geometry shaders (`picajit::interp`): SETEMIT's fields, EMIT copying the
//! output registers into emitter slots, triangles with their winding flag, the two output
//! banks, and EMIT/SETEMIT doing nothing in a vertex shader.

mod common;

use common::*;
use picajit::interp::Primitive;
use picajit::program::{Regs16, Uniforms, Vec4};

const A: Vec4 = [1.0, 2.0, 3.0, 4.0];
const B: Vec4 = [5.0, 6.0, 7.0, 8.0];
const C: Vec4 = [9.0, 10.0, 11.0, 12.0];
const D: Vec4 = [13.0, 14.0, 15.0, 16.0];
const Z: Vec4 = [0.0; 4];

/// Output registers with o0 = `r0`, o1 = `r1`, the rest 0.
fn outs(r0: Vec4, r1: Vec4) -> Regs16 {
    let mut regs = [Z; 16];
    regs[0] = r0;
    regs[1] = r1;
    regs
}

fn inputs() -> Regs16 {
    vecs(&[A, B, C, D])
}

#[track_caller]
fn assert_triangles(actual: &[Primitive], expected: &[([Regs16; 3], bool)]) {
    assert_eq!(actual.len(), expected.len(), "number of triangles");
    for (n, (p, (verts, winding))) in actual.iter().zip(expected).enumerate() {
        assert_eq!(p.winding, *winding, "winding of triangle {n}");
        for (k, (got, want)) in p.vertices.iter().zip(verts).enumerate() {
            for (reg, (g, w)) in got.iter().zip(want).enumerate() {
                check_bits(g, w, &format!("triangle {n}, vertex {k}, o{reg}"));
            }
        }
    }
}

/// Two triangles of a strip; the second EMIT replaces slot 0 only.
#[test]
fn emit_fills_slots_and_emits_triangles() {
    // [0]  mov o0, v0
    // [1]  setemit 0
    // [2]  emit                     ; slot 0 = A, then bank 1
    // [3]  mov o0, v1
    // [4]  setemit 1
    // [5]  emit                     ; slot 1 = B, then bank 0
    // [6]  mov o0, v2
    // [7]  setemit 2, prim, inv
    // [8]  emit                     ; slot 2 = C: triangle (A, B, C), winding; then bank 1
    // [9]  mov o0, v3
    // [10] setemit 0, prim
    // [11] emit                     ; slot 0 = D: triangle (D, B, C); then bank 0
    // [12] end
    let mut b = Builder::new();
    b.geometry();
    b.mov(o(0), v(0)).setemit(0, false, false).emit();
    b.mov(o(0), v(1)).setemit(1, false, false).emit();
    b.mov(o(0), v(2)).setemit(2, true, true).emit();
    b.mov(o(0), v(3)).setemit(0, true, false).emit();
    b.end();
    let inv = &run_all(&b.program(), &Uniforms::default(), &[inputs()])[0];
    assert_triangles(
        &inv.primitives,
        &[
            ([outs(A, Z), outs(B, Z), outs(C, Z)], true),
            ([outs(D, Z), outs(B, Z), outs(C, Z)], false),
        ],
    );
    // after an even number of EMITs the current bank is bank 0, last written at [6]
    assert_bits(&inv.outputs[0], &C);
}

/// Writes go to the current bank and EMIT switches banks, so a component not rewritten since
/// the previous EMIT holds the value from two EMITs ago.
#[test]
fn output_banks() {
    // [0]  mov o0, v0
    // [1]  mov o1, v1               ; bank 0: (A, B)
    // [2]  setemit 0
    // [3]  emit                     ; slot 0 = (A, B); bank 1
    // [4]  mov o0, v2               ; bank 1: (C, 0)
    // [5]  setemit 1
    // [6]  emit                     ; slot 1 = (C, 0); bank 0
    // [7]  mov o0, v3               ; bank 0: (D, B) — o1 from two EMITs ago
    // [8]  setemit 2, prim
    // [9]  emit                     ; slot 2 = (D, B): triangle; bank 1
    // [10] setemit 0, prim
    // [11] emit                     ; slot 0 = bank 1 = (C, 0): triangle; bank 0
    // [12] end
    let mut b = Builder::new();
    b.geometry();
    b.mov(o(0), v(0))
        .mov(o(1), v(1))
        .setemit(0, false, false)
        .emit();
    b.mov(o(0), v(2)).setemit(1, false, false).emit();
    b.mov(o(0), v(3)).setemit(2, true, false).emit();
    b.setemit(0, true, false).emit();
    b.end();
    let inv = &run_all(&b.program(), &Uniforms::default(), &[inputs()])[0];
    assert_triangles(
        &inv.primitives,
        &[
            ([outs(A, B), outs(C, Z), outs(D, B)], false),
            ([outs(C, Z), outs(C, Z), outs(D, B)], false),
        ],
    );
    assert_bits(&inv.outputs[0], &D);
    assert_bits(&inv.outputs[1], &B);

    // After an odd number of EMITs the outputs are bank 1's.
    // [0] mov o0, v0 ; [1] emit ; [2] mov o1, v1 ; [3] end
    let mut b = Builder::new();
    b.geometry();
    b.mov(o(0), v(0)).emit().mov(o(1), v(1)).end();
    let inv = &run_all(&b.program(), &Uniforms::default(), &[inputs()])[0];
    assert_bits(&inv.outputs[0], &Z);
    assert_bits(&inv.outputs[1], &B);
}

/// Every SETEMIT field combination: vertex id 0–3 (3 fills a slot no triangle uses), the
/// primitive flag and the winding flag.
#[test]
fn setemit_fields() {
    for vertex in 0..4u8 {
        for primitive in [false, true] {
            for winding in [false, true] {
                // [0]  mov o0, v0 ; [1] setemit 0 ; [2] emit     ; slot 0 = A, bank 1
                // [3]  mov o0, v1 ; [4] setemit 1 ; [5] emit     ; slot 1 = B, bank 0
                // [6]  mov o0, v2 ; [7] setemit 2 ; [8] emit     ; slot 2 = C, bank 1
                // [9]  mov o0, v3
                // [10] setemit <vertex>[, prim][, inv]
                // [11] emit                                      ; slot <vertex> = D, bank 0
                // [12] setemit 3, prim
                // [13] emit                  ; reveals slots 0-2: triangle, no winding
                // [14] end
                let mut b = Builder::new();
                b.geometry();
                b.mov(o(0), v(0)).setemit(0, false, false).emit();
                b.mov(o(0), v(1)).setemit(1, false, false).emit();
                b.mov(o(0), v(2)).setemit(2, false, false).emit();
                b.mov(o(0), v(3)).setemit(vertex, primitive, winding).emit();
                b.setemit(3, true, false).emit();
                b.end();
                let inv = &run_all(&b.program(), &Uniforms::default(), &[inputs()])[0];
                let mut slots = [outs(A, Z), outs(B, Z), outs(C, Z)];
                if vertex < 3 {
                    slots[vertex as usize] = outs(D, Z);
                }
                let mut expected = Vec::new();
                if primitive {
                    expected.push((slots, winding));
                }
                expected.push((slots, false));
                assert_triangles(&inv.primitives, &expected);
            }
        }
    }
}

/// EMIT copies all sixteen output registers.
#[test]
fn emit_copies_every_output_register() {
    // [k]  mov o<k>, v<k>           k = 0..15
    // [16] setemit 2, prim
    // [17] emit
    // [18] end
    let mut b = Builder::new();
    b.geometry();
    for k in 0..16 {
        b.mov(o(k), v(k));
    }
    b.setemit(2, true, false).emit().end();
    let mut input = [Z; 16];
    for (k, reg) in input.iter_mut().enumerate() {
        *reg = [k as f32, -(k as f32), 0.5, 100.0 + k as f32];
    }
    let inv = &run_all(&b.program(), &Uniforms::default(), &[input])[0];
    assert_triangles(&inv.primitives, &[([[Z; 16], [Z; 16], input], false)]);
    // bank 1 was never written
    for reg in &inv.outputs {
        assert_bits(reg, &Z);
    }
}

/// Each invocation starts with empty emitter slots, bank 0 and no triangles: a batch of
/// vertices does not leak emitter state from one to the next.
#[test]
fn emitter_state_is_per_invocation() {
    // [0] mov o0, v0
    // [1] setemit 2, prim
    // [2] emit
    // [3] mov o0, v1                ; bank 1
    // [4] setemit 0
    // [5] emit                      ; slot 0 of this invocation only
    // [6] end
    let mut b = Builder::new();
    b.geometry();
    b.mov(o(0), v(0)).setemit(2, true, false).emit();
    b.mov(o(0), v(1)).setemit(0, false, false).emit();
    b.end();
    let batch = [vecs(&[A, B]), vecs(&[C, D]), vecs(&[B, A])];
    let invs = run_all(&b.program(), &Uniforms::default(), &batch);
    for (inv, input) in invs.iter().zip(&batch) {
        assert_triangles(
            &inv.primitives,
            &[([outs(Z, Z), outs(Z, Z), outs(input[0], Z)], false)],
        );
        assert_bits(&inv.outputs[0], &input[0]);
    }
}

/// In a vertex shader EMIT and SETEMIT do nothing: no triangles, and no bank switch.
#[test]
fn emit_and_setemit_do_nothing_in_a_vertex_shader() {
    // [0] mov o0, v0
    // [1] setemit 2, prim, inv
    // [2] emit
    // [3] mov o1, v1
    // [4] end
    let mut b = Builder::new();
    b.mov(o(0), v(0))
        .setemit(2, true, true)
        .emit()
        .mov(o(1), v(1))
        .end();
    let inv = &run_all(&b.program(), &Uniforms::default(), &[inputs()])[0];
    assert!(inv.primitives.is_empty());
    assert_bits(&inv.outputs[0], &A);
    assert_bits(&inv.outputs[1], &B);

    // The same program as a geometry shader: one triangle and bank 1's outputs.
    let mut g = b.clone();
    g.geometry();
    let inv = &run_all(&g.program(), &Uniforms::default(), &[inputs()])[0];
    assert_triangles(
        &inv.primitives,
        &[([outs(Z, Z), outs(Z, Z), outs(A, Z)], true)],
    );
    assert_bits(&inv.outputs[0], &Z);
    assert_bits(&inv.outputs[1], &B);
}
