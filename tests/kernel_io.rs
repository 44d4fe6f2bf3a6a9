//! The native kernels' vertex I/O and per-run work (`jit/src/x64/io.rs`, `opt::place_io`,
//! `opt::batch_invariant`), checked on every engine: inputs loaded straight into registers
//! (also when a register's reads are far apart, and staged inside loops), outputs stored from
//! registers at the exit (whole-register copies of inputs, rows of run-invariant values,
//! partial writes, stores in other blocks, stores overwritten later), and values computed once
//! per run. Batches of 19 vertices: two or four whole batches and a padded tail.

mod common;

use common::*;
use picajit::float;
use picajit::program::{Regs16, Uniforms};

const N: usize = 19;

/// Vertex k: v_r = (k + r, -k, 0.5 k, 2^-k r) for r = 0..4 (k = 0 gives zeros of both signs).
fn inputs() -> Vec<Regs16> {
    (0..N)
        .map(|k| {
            let k = k as f32;
            let mut regs = [[0.0; 4]; 16];
            for (r, reg) in regs.iter_mut().enumerate().take(4) {
                let r = r as f32;
                *reg = [k + r, -k, 0.5 * k, (-k).exp2() * r];
            }
            regs
        })
        .collect()
}

fn uniforms() -> Uniforms {
    let mut u = Uniforms::default();
    for (i, c) in u.f.iter_mut().enumerate() {
        let i = i as f32;
        *c = [i + 1.0, 0.25 * i, -2.0, 0.0];
    }
    u
}

#[test]
fn copies_invariant_rows_and_computed_outputs() {
    // [0] mov o1, v1               ; a whole input register, copied
    // [1] mov o2, c5               ; four run-invariant components: one row per run
    // [2] mul o0, c3, v0           ; computed
    // [3] mov o3.xz, v2            ; partial: o3.yw stay 0.0
    // [4] end
    let mut b = Builder::new();
    b.mov(o(1), v(1))
        .mov(o(2), c(5))
        .mul(o(0), c(3), v(0))
        .mov(o(3).mask("xz"), v(2))
        .end();
    let ins = inputs();
    let u = uniforms();
    let out = run_ok(&b.program(), &u, &ins);
    for (k, (got, inp)) in out.iter().zip(&ins).enumerate() {
        assert_bits(&got[1], &inp[1]);
        assert_bits(&got[2], &u.f[5]);
        let want: Vec<f32> = (0..4).map(|c| float::pmul(u.f[3][c], inp[0][c])).collect();
        assert_bits(&got[0], &want);
        assert_bits(&got[3], &[inp[2][0], 0.0, inp[2][2], 0.0]);
        assert!(got[4..].iter().flatten().all(|&x| x == 0.0), "vertex {k}");
    }
}

#[test]
fn values_of_uniforms_alone_are_computed_once_per_run() {
    // [0] ex2 r0, c2.y             ; 2^(0.5)
    // [1] rsq r1, c4.x             ; 1/sqrt(5)
    // [2] mul r2, c3, r0.x         ; uniform × invariant
    // [3] mul r3, v0, r2           ; per vertex
    // [4] add o0, r3, r1.x
    // [5] mov o1, r2               ; invariant only: a row
    // [6] end
    let mut b = Builder::new();
    b.ex2(r(0), c(2).swz("yyyy"))
        .rsq(r(1), c(4).swz("xxxx"))
        .mul(r(2), c(3), r(0).swz("xxxx"))
        .mul(r(3), v(0), r(2))
        .add(o(0), r(3), r(1).swz("xxxx"))
        .mov(o(1), r(2))
        .end();
    let ins = inputs();
    let u = uniforms();
    let out = run_ok(&b.program(), &u, &ins);
    let e = float::ex2(u.f[2][1]);
    let q = float::rsq(u.f[4][0]);
    let r2: Vec<f32> = (0..4).map(|c| float::pmul(u.f[3][c], e)).collect();
    for (got, inp) in out.iter().zip(&ins) {
        let want: Vec<f32> = (0..4).map(|c| float::pmul(inp[0][c], r2[c]) + q).collect();
        assert_bits(&got[0], &want);
        assert_bits(&got[1], &r2);
    }
}

#[test]
fn reads_of_one_register_far_apart_and_outputs_stored_twice() {
    // [0] mov o0, v0               ; overwritten component by component below
    // [1] add r0.x, c1.x, v1.x
    // [2] mul r0.y, c1.y, v2.y
    // [3] add r0.z, v1.z, v2.z     ; v1 read again, after v2
    // [4] mov r0.w, v1.w
    // [5] mov o0.xy, r0
    // [6] mov o1, r0
    // [7] end
    let mut b = Builder::new();
    b.mov(o(0), v(0))
        .add(r(0).mask("x"), c(1), v(1))
        .mul(r(0).mask("y"), c(1), v(2))
        .add(r(0).mask("z"), v(1), v(2))
        .mov(r(0).mask("w"), v(1))
        .mov(o(0).mask("xy"), r(0))
        .mov(o(1), r(0))
        .end();
    let ins = inputs();
    let u = uniforms();
    let out = run_ok(&b.program(), &u, &ins);
    for (got, inp) in out.iter().zip(&ins) {
        let r0 = [
            u.f[1][0] + inp[1][0],
            float::pmul(u.f[1][1], inp[2][1]),
            inp[1][2] + inp[2][2],
            inp[1][3],
        ];
        assert_bits(&got[0], &[r0[0], r0[1], inp[0][2], inp[0][3]]);
        assert_bits(&got[1], &r0);
    }
}

#[test]
fn outputs_written_in_branches_and_inputs_read_in_a_loop() {
    // [0] ifu b1, dest 3, num 1    ; then [1, 3), else [3, 4)
    // [1]   mov o0.xy, v0
    // [2]   mov o2.w, v3
    // [3] mov o0.zw, v1            ; (the else block)
    // [4] loop i0, [5, 5]          ; 1 + i0.x iterations
    // [5]   add r1, r1, v2
    // [6] mov o1, r1
    // [7] end
    let mut b = Builder::new();
    b.ifu(1, 3, 1)
        .mov(o(0).mask("xy"), v(0))
        .mov(o(2).mask("w"), v(3))
        .mov(o(0).mask("zw"), v(1))
        .loop_(0, 5)
        .add(r(1), r(1), v(2))
        .mov(o(1), r(1))
        .end();
    let ins = inputs();
    for b1 in [false, true] {
        let mut u = uniforms();
        u.b = u16::from(b1) << 1;
        u.i[0] = [2, 0, 1, 0];
        let out = run_ok(&b.program(), &u, &ins);
        for (got, inp) in out.iter().zip(&ins) {
            let o0 = if b1 {
                [inp[0][0], inp[0][1], 0.0, 0.0]
            } else {
                [0.0, 0.0, inp[1][2], inp[1][3]]
            };
            assert_bits(&got[0], &o0);
            let sum: Vec<f32> = (0..4)
                .map(|c| (0..3).fold(0.0f32, |s, _| s + inp[2][c]))
                .collect();
            assert_bits(&got[1], &sum);
            let o2 = if b1 { inp[3][3] } else { 0.0 };
            assert_bits(&got[2], &[0.0, 0.0, 0.0, o2]);
        }
    }
}

/// `((+0.0 + a0·b0) + a1·b1) + …` as the spec states it.
fn spec_dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .fold(0.0f32, |sum, (&x, &y)| sum + float::pmul(x, y))
}

#[test]
fn dot_products_keep_the_sign_rules_of_their_zero_seed() {
    // The backends compute a dot product with the +0.0 seed moved onto the last term (computed
    // once per run when that term is invariant): every pattern of signed zeros, ones, infinities
    // and NaN terms must give the spec's left-to-right sum.
    // [0] mov r0.xyz, v0
    // [1] mov r0.w, c2.w           ; invariant fourth term below
    // [2] dp4 o0, v0, v1
    // [3] dp3 o1, v0, v1
    // [4] dph o2, v0, v1
    // [5] dp4 o3, c1, r0
    // [6] end
    let mut b = Builder::new();
    b.mov(r(0).mask("xyz"), v(0))
        .mov(r(0).mask("w"), c(2).swz("wwww"))
        .dp4(o(0), v(0), v(1))
        .dp3(o(1), v(0), v(1))
        .dph(o(2), v(0), v(1))
        .dp4(o(3), c(1), r(0))
        .end();
    let values = [0.0, -0.0, 1.0, f32::INFINITY, f32::NAN];
    let ins: Vec<Regs16> = (0..values.len().pow(4))
        .map(|k| {
            let mut regs = [[0.0; 4]; 16];
            for (c, x) in regs[0].iter_mut().enumerate() {
                *x = values[k / values.len().pow(c as u32) % values.len()];
            }
            regs[1] = [1.0, -1.0, 1.0, values[k % values.len()]];
            regs
        })
        .collect();
    for (w1, w2) in [(-0.0, 1.0), (-1.0, 0.0), (f32::INFINITY, 0.0)] {
        let mut u = uniforms();
        u.f[1] = [1.0, -1.0, 1.0, w1];
        u.f[2] = [0.0, 0.0, 0.0, w2];
        let out = run_ok(&b.program(), &u, &ins);
        for (got, inp) in out.iter().zip(&ins) {
            let (a, b1) = (inp[0], inp[1]);
            assert_bits(&got[0], &[spec_dot(&a, &b1); 4]);
            assert_bits(&got[1], &[spec_dot(&a[..3], &b1[..3]); 4]);
            let h = [a[0], a[1], a[2], 1.0];
            assert_bits(&got[2], &[spec_dot(&h, &b1); 4]);
            let r0 = [a[0], a[1], a[2], w2];
            assert_bits(&got[3], &[spec_dot(&u.f[1], &r0); 4]);
        }
    }
}

#[test]
fn adjacent_copies_and_rows_are_stored_in_pairs() {
    // Output registers straight from memory, in every pairing of neighbours:
    // o0 = c5 (row) and o1 = v3 (copy): a row then a copy;
    // o2 = v1, o3 = v2: copies of adjacent input registers;
    // o4 = v15, o5 = c6: no pair (v15's neighbour would be read past the vertex);
    // o6 = c1 * v7 (computed); o7 = v0, o8 = c7: a copy then a row; o9 = c8, o10 = c9: two
    // rows; o11 = v4, o12 = v6: copies of registers that are not adjacent.
    let mut b = Builder::new();
    b.mov(o(0), c(5))
        .mov(o(1), v(3))
        .mov(o(2), v(1))
        .mov(o(3), v(2))
        .mov(o(4), v(15))
        .mov(o(5), c(6))
        .mul(o(6), c(1), v(7))
        .mov(o(7), v(0))
        .mov(o(8), c(7))
        .mov(o(9), c(8))
        .mov(o(10), c(9))
        .mov(o(11), v(4))
        .mov(o(12), v(6))
        .end();
    let ins: Vec<Regs16> = inputs()
        .iter()
        .enumerate()
        .map(|(k, regs)| {
            let mut regs = *regs;
            for (r, reg) in regs.iter_mut().enumerate().skip(4) {
                *reg = [k as f32, r as f32, -(r as f32), 0.25 * k as f32];
            }
            regs
        })
        .collect();
    let u = uniforms();
    let out = run_ok(&b.program(), &u, &ins);
    for (got, inp) in out.iter().zip(&ins) {
        let copies = [(1, 3), (2, 1), (3, 2), (4, 15), (7, 0), (11, 4), (12, 6)];
        for (o, v) in copies {
            assert_bits(&got[o], &inp[v]);
        }
        for (o, c) in [(0, 5), (5, 6), (8, 7), (9, 8), (10, 9)] {
            assert_bits(&got[o], &u.f[c]);
        }
        let want: Vec<f32> = (0..4).map(|c| float::pmul(u.f[1][c], inp[7][c])).collect();
        assert_bits(&got[6], &want);
        assert!(got[13..].iter().flatten().all(|&x| x == 0.0));
    }
}

#[test]
fn adjacent_computed_outputs_are_stored_in_pairs() {
    // Neighbouring output registers computed by the program (AVX2 stores each vertex's pair
    // with one 32-byte store), with every kind of source: distinct values (o0, o1), values
    // read by both registers of a pair (o2, o3 = r0 and its reverse), partial writes (o4.zw
    // never written: 0.0) and a uniform (o5.w), one value in four components and again in a
    // later pair (o6 = r0.xxxx); 8 output registers, 32 components: more than the registers,
    // so some come from spill slots.
    let mut b = Builder::new();
    b.add(o(0), c(1), v(0))
        .mul(o(1), c(2), v(1))
        .add(r(0), v(0), v(1))
        .mov(o(2), r(0))
        .mov(o(3), r(0).swz("wzyx"))
        .add(o(4).mask("xy"), c(3), v(2))
        .add(o(5).mask("xyz"), v(3), v(3))
        .mov(o(5).mask("w"), c(4).swz("xxxx"))
        .mov(o(6), r(0).swz("xxxx"))
        .add(o(7), v(1), v(2))
        .end();
    let ins = inputs();
    let u = uniforms();
    let out = run_ok(&b.program(), &u, &ins);
    for (got, inp) in out.iter().zip(&ins) {
        let add = |a: &[f32; 4], b: &[f32; 4]| -> [f32; 4] { std::array::from_fn(|c| a[c] + b[c]) };
        let r0 = add(&inp[0], &inp[1]);
        assert_bits(&got[0], &add(&inp[0], &u.f[1]));
        let mul: Vec<f32> = (0..4).map(|c| float::pmul(u.f[2][c], inp[1][c])).collect();
        assert_bits(&got[1], &mul);
        assert_bits(&got[2], &r0);
        assert_bits(&got[3], &[r0[3], r0[2], r0[1], r0[0]]);
        let o4 = add(&inp[2], &u.f[3]);
        assert_bits(&got[4], &[o4[0], o4[1], 0.0, 0.0]);
        let o5 = add(&inp[3], &inp[3]);
        assert_bits(&got[5], &[o5[0], o5[1], o5[2], u.f[4][0]]);
        assert_bits(&got[6], &[r0[0]; 4]);
        assert_bits(&got[7], &add(&inp[1], &inp[2]));
        assert!(got[8..].iter().flatten().all(|&x| x == 0.0));
    }
}
