//! Straight-line programs whose temporary registers the frontend forwards (a write points the
//! register at the value instead of copying it): swizzled and negated moves, swaps, copies of
//! copies, registers read before any write, outputs written twice, broadcast results, MOVA
//! with relative reads, CMP and DST. Every engine must agree bit for bit, and the agreed
//! outputs are checked against values worked out by hand.

mod common;

use common::*;
use picajit::isa::CmpOp;
use picajit::program::{Uniforms, Vec4};

/// Uniforms with c[i] = (i, i + 0.5, -i, 2).
fn indexed_uniforms() -> Uniforms {
    let mut u = Uniforms::default();
    for (i, cv) in u.f.iter_mut().enumerate() {
        let x = i as f32;
        *cv = [x, x + 0.5, -x, 2.0];
    }
    u
}

#[test]
fn moves_swaps_and_copies_of_copies() {
    let mut b = Builder::new();
    // 0: mov r0, v0               r0 = 1 2 3 4
    b.mov(r(0), v(0));
    // 1: mov r0.xy, r0.yx         a swap within one register: r0 = 2 1 3 4
    b.mov(r(0).mask("xy"), r(0).swz("yx"));
    // 2: mov r1, -r0.wzyx         r1 = -4 -3 -1 -2
    b.mov(r(1), -r(0).swz("wzyx"));
    // 3: mov r2, r1               a copy of a copy
    b.mov(r(2), r(1));
    // 4: mov r1.x, v1.w           r1 = 8 -3 -1 -2; r2 keeps -4
    b.mov(r(1).mask("x"), v(1).swz("w"));
    // 5: add r3, r2, r5           r5 is never written: +0.0, so r3 = r2
    b.add(r(3), r(2), r(5));
    // 6: dp4 r4, r0, v1           2·5 + 1·6 + 3·7 + 4·8 = 69 in every component
    b.dp4(r(4), r(0), v(1));
    // 7: mov o0, r0
    b.mov(o(0), r(0));
    // 8: mov o1, r1
    b.mov(o(1), r(1));
    // 9: mov o2, r3
    b.mov(o(2), r(3));
    // 10: mov o3, r4
    b.mov(o(3), r(4));
    // 11: mov o3.y, r0.x          o3 written twice: 69 2 69 69
    b.mov(o(3).mask("y"), r(0).swz("x"));
    // 12: mad r6, r4, r4.x, -r4   69·69 − 69 = 4692
    b.mad(r(6), r(4), r(4).swz("x"), -r(4));
    // 13: mov o4, r6
    b.mov(o(4), r(6));
    // 14: mul r7.xz, r6.x, v0.y   9384 in x and z; y and w never written
    b.mul(r(7).mask("xz"), r(6).swz("x"), v(0).swz("y"));
    // 15: mov o5, r7
    b.mov(o(5), r(7));
    // 16: mov r0, r0.wwww         a register overwritten from itself: r0 = 4 4 4 4
    b.mov(r(0), r(0).swz("w"));
    // 17: add o6, r0, -r2         4 − (−4, −3, −1, −2) = 8 7 5 6
    b.add(o(6), r(0), -r(2));
    b.end();
    let input = vecs(&[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]);
    let out = run_one(&b.program(), &Uniforms::default(), input);
    assert_bits(&out[0], &[2.0, 1.0, 3.0, 4.0]);
    assert_bits(&out[1], &[8.0, -3.0, -1.0, -2.0]);
    assert_bits(&out[2], &[-4.0, -3.0, -1.0, -2.0]);
    assert_bits(&out[3], &[69.0, 2.0, 69.0, 69.0]);
    assert_bits(&out[4], &[4692.0; 4]);
    assert_bits(&out[5], &[9384.0, 0.0, 9384.0, 0.0]);
    assert_bits(&out[6], &[8.0, 7.0, 5.0, 6.0]);
}

#[test]
fn address_registers_cmp_and_dst() {
    let mut b = Builder::new();
    // 0: mova a0.xy, v2           a0 = (2, −1) from (2.6, −1.2)
    b.mova("xy", v(2));
    // 1: mov r0, c10[a0.x]        c12 = 12 12.5 −12 2
    b.mov(r(0), c(10).rel(A0X));
    // 2: mov r1, c10[a0.y]        c9 = 9 9.5 −9 2
    b.mov(r(1), c(10).rel(A0Y));
    // 3: cmp r0, >=, <, r1        cc = (true, false)
    b.cmp(r(0), CmpOp::Ge, CmpOp::Lt, r(1));
    // 4: dst r2, r0, r1           1, 12.5·9.5, −12, 2
    b.dst(r(2), r(0), r(1));
    // 5: mova a0.x, r2.z          a0.x = −12
    b.mova("x", r(2).swz("z"));
    // 6: mov o0, c20[a0.x]        c8 = 8 8.5 −8 2
    b.mov(o(0), c(20).rel(A0X));
    // 7: mov o1, r2
    b.mov(o(1), r(2));
    // 8: mov o2, r0.yxwz
    b.mov(o(2), r(0).swz("yxwz"));
    b.end();
    let input = vecs(&[[0.0; 4], [0.0; 4], [2.6, -1.2, 0.0, 0.0]]);
    let out = run_one(&b.program(), &indexed_uniforms(), input);
    assert_bits(&out[0], &[8.0, 8.5, -8.0, 2.0]);
    assert_bits(&out[1], &[1.0, 12.5 * 9.5, -12.0, 2.0]);
    assert_bits(&out[2], &[12.5, 12.0, 2.0, -12.0]);
}

/// Reads of every swizzle of a forwarded register, through a forwarded move (negated for a
/// quarter of them) or directly, summed into r2; in three programs, as one program's 128
/// operand descriptors cannot hold all 256 swizzles.
#[test]
fn every_swizzle_of_a_forwarded_register() {
    let letters = ['x', 'y', 'z', 'w'];
    let base: Vec4 = [1.0, 20.0, 300.0, 4000.0];
    for part in 0..3 {
        let mut b = Builder::new();
        b.mov(r(0), v(0));
        let mut expected: Vec4 = [0.0; 4];
        let mut last = [0.0; 4];
        for n in (0..256usize).filter(|n| n % 3 == part) {
            let pick = [n >> 6 & 3, n >> 4 & 3, n >> 2 & 3, n & 3];
            let s: String = pick.iter().map(|&k| letters[k]).collect();
            let sign = if n % 4 == 3 { -1.0 } else { 1.0 };
            if n % 2 == 0 {
                // add r2, r2, r0.s
                b.add(r(2), r(2), r(0).swz(&s));
            } else {
                // mov r1, ±r0.s; add r2, r2, r1
                let src = if sign < 0.0 {
                    -r(0).swz(&s)
                } else {
                    r(0).swz(&s)
                };
                b.mov(r(1), src);
                b.add(r(2), r(2), r(1));
                last = pick.map(|k| sign * base[k]);
            }
            for (e, &k) in expected.iter_mut().zip(&pick) {
                *e += sign * base[k];
            }
        }
        // mov o0, r2; mov o1, r1.wzyx
        b.mov(o(0), r(2));
        b.mov(o(1), r(1).swz("wzyx"));
        b.end();
        let out = run_one(&b.program(), &Uniforms::default(), vecs(&[base]));
        assert_bits(&out[0], &expected);
        last.reverse();
        assert_bits(&out[1], &last);
    }
}
