//! Arithmetic semantics (`picajit::float`, `picajit::interp`; Azahar's shader test tables,
//! re-expressed with the project's choices): every ALU opcode, with its special values, on every
//! engine.

mod common;

use common::*;
use picajit::isa::CmpOp;
use picajit::program::{Regs16, Uniforms, Vec4};

const INF: f32 = f32::INFINITY;
const NAN: f32 = f32::NAN;

/// The smallest positive subnormal, 2^-149.
fn sub(n: u32) -> f32 {
    f32::from_bits(n)
}

/// Runs the program built by `build` (then `end`) once per case with v0 = splat(a),
/// v1 = splat(b) and checks every lane of o0 against `r`.
fn elementwise(listing: &str, build: impl Fn(&mut Builder), cases: &[(f32, f32, f32)]) {
    let mut b = Builder::new();
    build(&mut b);
    b.end();
    let inputs: Vec<Regs16> = cases
        .iter()
        .map(|&(x, y, _)| vecs(&[splat(x), splat(y)]))
        .collect();
    let outs = run_ok(&b.program(), &Uniforms::default(), &inputs);
    for (&(x, y, want), out) in cases.iter().zip(&outs) {
        check_bits(
            &out[0],
            &splat(want),
            &format!("{listing} with {x:?}, {y:?}"),
        );
    }
}

/// Runs the program built by `build` (then `end`) once per case with v0, v1 (and v2) given
/// as vectors, checking o0 against the expected vector.
fn vector_cases(listing: &str, build: impl Fn(&mut Builder), cases: &[(&[Vec4], Vec4)]) {
    let mut b = Builder::new();
    build(&mut b);
    b.end();
    let inputs: Vec<Regs16> = cases.iter().map(|(ins, _)| vecs(ins)).collect();
    let outs = run_ok(&b.program(), &Uniforms::default(), &inputs);
    for ((ins, want), out) in cases.iter().zip(&outs) {
        check_bits(&out[0], want, &format!("{listing} with {ins:?}"));
    }
}

#[test]
fn add() {
    // [0] add o0, v0, v1
    // [1] end
    elementwise(
        "add o0, v0, v1",
        |b| {
            b.add(o(0), v(0), v(1));
        },
        &[
            (1.0, -1.0, 0.0),
            (0.0, -0.0, 0.0), // IEEE: +0 + -0 = +0 (round to nearest)
            (-0.0, 0.0, 0.0),
            (-0.0, -0.0, -0.0),
            (INF, -INF, NAN),
            (INF, 1.0, INF),
            (INF, -1.0, INF),
            (-INF, -INF, -INF),
            (NAN, 1.0, NAN),
            (1.0, NAN, NAN),
            (16_777_216.0, 1.0, 16_777_216.0), // tie to even, binary32 (not f64) arithmetic
            (16_777_216.0, 3.0, 16_777_220.0),
            (f32::MAX, f32::MAX, INF),
            // denormals kept: no FTZ/DAZ
            (sub(1), sub(1), sub(2)),
            (f32::MIN_POSITIVE, -sub(1), sub(0x007F_FFFF)),
        ],
    );
}

/// PICA multiply cases: (a, b, a * b).
fn mul_cases() -> [(f32, f32, f32); 17] {
    [
        (1.0, -1.0, -1.0),
        (-1.0, 1.0, -1.0),
        (INF, 0.0, 0.0), // 0 * inf = +0 (pmul)
        (0.0, INF, 0.0),
        (-INF, 0.0, 0.0), // +0 whatever the signs
        (INF, -0.0, 0.0),
        (-0.0, -INF, 0.0),
        (NAN, 0.0, NAN), // a NaN operand stays NaN
        (0.0, NAN, NAN),
        (NAN, INF, NAN),
        (INF, INF, INF),
        (INF, -INF, -INF),
        (-0.0, 5.0, -0.0),     // ordinary products keep their sign
        (sub(3), 0.5, sub(2)), // subnormal result, ties to even
        (1e-30, 1e-30, 0.0),
        (-1e-30, 1e-30, -0.0),
        (f32::MAX, 2.0, INF),
    ]
}

#[test]
fn mul() {
    // [0] mul o0, v0, v1
    // [1] end
    elementwise(
        "mul o0, v0, v1",
        |b| {
            b.mul(o(0), v(0), v(1));
        },
        &mul_cases(),
    );
}

#[test]
fn mul_by_a_uniform_and_into_a_source() {
    // The uniform operand read from memory as the first source (AVX-512 swaps it to the
    // second, a `{1to16}` scalar), and a product written over the register of one of its
    // sources (r0 = r0 * v1: the compares must read r0 before the product replaces it).
    // [0] mul o0, c4, v1
    // [1] mov r0, v0
    // [2] mul r0, r0, v1
    // [3] mov o1, r0
    // [4] end
    let mut b = Builder::new();
    b.mul(o(0), c(4), v(1))
        .mov(r(0), v(0))
        .mul(r(0), r(0), v(1))
        .mov(o(1), r(0))
        .end();
    let cases = mul_cases();
    let inputs: Vec<Regs16> = cases
        .iter()
        .map(|&(x, y, _)| vecs(&[splat(x), splat(y)]))
        .collect();
    for &(x, _, _) in &cases {
        let mut u = Uniforms::default();
        u.f[4] = splat(x);
        let outs = run_ok(&b.program(), &u, &inputs);
        for (&(v0, v1, want), out) in cases.iter().zip(&outs) {
            check_bits(
                &out[1],
                &splat(want),
                &format!("mul r0, r0 = {v0:?}, v1 = {v1:?}"),
            );
            // 0 * inf = +0, a NaN operand stays NaN, else the IEEE product.
            let product = if x.is_nan() || v1.is_nan() {
                f32::NAN
            } else if (x == 0.0 && v1.is_infinite()) || (x.is_infinite() && v1 == 0.0) {
                0.0
            } else {
                x * v1
            };
            check_bits(
                &out[0],
                &splat(product),
                &format!("mul o0, c4 = {x:?}, v1 = {v1:?}"),
            );
        }
    }
}

/// `mad o0, v0, v1, v2` hand-encoded (format 5): opcode 0x38 in [31:26] (0b111 in [31:29],
/// DST o0 = 0 in [28:24]), IDX 0, SRC1 v0 = 0 in [21:17], SRC2 v1 = 1 << 10 = 0x400,
/// SRC3 v2 = 2 << 5 = 0x40, DESC 0 -> 0xE000_0440. Descriptor 0 = identity, full mask.
#[test]
fn mad() {
    let one_p = 1.0 + 2f32.powi(-12);
    let cases: &[(f32, f32, f32, f32)] = &[
        (0.0, 0.0, 0.0, 0.0),
        (1.0, 1.0, 1.0, 2.0),
        (2.0, 3.0, 4.0, 10.0),
        (INF, 0.0, 0.0, 0.0),    // inf*0 = +0, + 0
        (INF, 0.0, -0.0, 0.0),   // +0 + -0 = +0
        (-1.0, 0.0, -0.0, -0.0), // -0 + -0 = -0
        (-INF, 0.0, 5.0, 5.0),
        (NAN, 0.0, 0.0, NAN),
        (0.0, NAN, 0.0, NAN),
        (1.0, 1.0, NAN, NAN),
        (INF, 1.0, -INF, NAN),
        // Two roundings, never fused: (1+2^-12)^2 = 1 + 2^-11 + 2^-24 rounds (tie, even) to
        // 1 + 2^-11, so the sum is exactly 0; a fused multiply-add would give 2^-24.
        (one_p, one_p, -(1.0 + 2f32.powi(-11)), 0.0),
    ];
    let mut b = Builder::new();
    b.set_desc(0, IDENTITY_DESC);
    b.word(0xE000_0440); // [0] mad o0, v0, v1, v2
    b.end(); // [1] end
    let inputs: Vec<Regs16> = cases
        .iter()
        .map(|&(x, y, z, _)| vecs(&[splat(x), splat(y), splat(z)]))
        .collect();
    let outs = run_ok(&b.program(), &Uniforms::default(), &inputs);
    for (&(x, y, z, want), out) in cases.iter().zip(&outs) {
        check_bits(&out[0], &splat(want), &format!("mad {x:?} * {y:?} + {z:?}"));
    }
}

/// MAD's DST field overlaps opcode bits [28:26]: `mad r5, v0, c3, v2` is opcode 0x3D:
/// 0xE000_0000 | r5 = 0x15 << 24 | SRC2 c3 = 0x23 << 10 = 0x8C00 | SRC3 v2 = 0x40 = 0xF500_8C40.
/// Descriptor 1 sets all three negate bits (4, 13, 22): `mad o0, -v0, -c3, -v2` = 0xE000_8C41.
#[test]
fn mad_into_temp_with_uniform_and_negations() {
    let mut b = Builder::new();
    b.set_desc(0, IDENTITY_DESC);
    b.set_desc(1, IDENTITY_DESC | 1 << 4 | 1 << 13 | 1 << 22);
    b.word(0xF500_8C40); // [0] mad r5, v0, c3, v2
    b.mov(o(1), r(5)); // [1] mov o1, r5          (desc 0)
    b.word(0xE000_8C41); // [2] mad o0, -v0, -c3, -v2 (desc 1)
    b.end(); // [3] end
    let mut u = Uniforms::default();
    u.f[3] = [5.0, 6.0, 7.0, 8.0];
    let out = run_one(
        &b.program(),
        &u,
        vecs(&[[2.0, 3.0, 4.0, 5.0], [0.0; 4], [3.0, 2.0, 1.0, 0.5]]),
    );
    assert_bits(&out[1], &[13.0, 20.0, 29.0, 40.5]); // v0*c3 + v2
    assert_bits(&out[0], &[7.0, 16.0, 27.0, 39.5]); // (-v0)(-c3) - v2
}

/// `madi o0, v0, v1, c3` hand-encoded (format 5i): opcode 0x30 -> 0xC000_0000, SRC1 v0 = 0,
/// SRC2 v1 = 1 << 12 = 0x1000 (5 bits at [16:12]), SRC3 c3 = 0x23 << 5 = 0x460 (7 bits at
/// [11:5]), DESC 0 -> 0xC000_1460.
#[test]
fn madi() {
    let mut b = Builder::new();
    b.set_desc(0, IDENTITY_DESC);
    b.word(0xC000_1460); // [0] madi o0, v0, v1, c3
    b.end(); // [1] end
    let cases: &[(f32, f32, f32, f32)] = &[
        (2.0, 3.0, 4.0, 10.0),
        (INF, 0.0, 1.0, 1.0),
        (0.0, -INF, -0.0, 0.0),
        (NAN, 0.0, 0.0, NAN),
        (1.0, 1.0, NAN, NAN),
    ];
    for &(x, y, z, want) in cases {
        let mut u = Uniforms::default();
        u.f[3] = splat(z);
        let out = run_one(&b.program(), &u, vecs(&[splat(x), splat(y)]));
        check_bits(
            &out[0],
            &splat(want),
            &format!("madi {x:?} * {y:?} + c3 = {z:?}"),
        );
    }
}

#[test]
fn dp3() {
    // [0] dp3 o0, v0, v1
    // [1] end
    vector_cases(
        "dp3 o0, v0, v1",
        |b| {
            b.dp3(o(0), v(0), v(1));
        },
        &[
            (&[splat(INF), splat(0.0)], splat(0.0)),
            (&[splat(NAN), splat(0.0)], splat(NAN)),
            (&[splat(1.0), splat(1.0)], splat(3.0)),
            // products all -0: the +0 seed makes the sum +0, never -0
            (&[splat(-1.0), splat(0.0)], splat(0.0)),
            (&[splat(-0.0), splat(1.0)], splat(0.0)),
            // strictly left to right: ((0 + 2^24) + 1) + 1 = 2^24
            (
                &[[16_777_216.0, 1.0, 1.0, 100.0], splat(1.0)],
                splat(16_777_216.0),
            ),
            (
                &[[1.0, 1.0, 16_777_216.0, 7.0], splat(1.0)],
                splat(16_777_218.0),
            ),
            // w is ignored, even NaN
            (&[[1.0, 2.0, 3.0, NAN], [4.0, 5.0, 6.0, NAN]], splat(32.0)),
            (&[[1.0, 2.0, 3.0, 4.0], [-0.5, 0.25, INF, 1.0]], splat(INF)),
        ],
    );
}

#[test]
fn dp4() {
    // [0] dp4 o0, v0, v1
    // [1] end
    vector_cases(
        "dp4 o0, v0, v1",
        |b| {
            b.dp4(o(0), v(0), v(1));
        },
        &[
            (&[splat(INF), splat(0.0)], splat(0.0)),
            (&[splat(NAN), splat(0.0)], splat(NAN)),
            (&[splat(1.0), splat(1.0)], splat(4.0)),
            (&[splat(-1.0), splat(0.0)], splat(0.0)),
            (&[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], splat(70.0)),
            (&[[1.0, 2.0, 3.0, NAN], [4.0, 5.0, 6.0, 1.0]], splat(NAN)),
            // (((0 + 2^24) + 1) + 1) + 1 = 2^24; ((1 + 1) + 1) + 2^24 = 2^24 + 4 (tie, even)
            (
                &[[16_777_216.0, 1.0, 1.0, 1.0], splat(1.0)],
                splat(16_777_216.0),
            ),
            (
                &[[1.0, 1.0, 1.0, 16_777_216.0], splat(1.0)],
                splat(16_777_220.0),
            ),
            (&[[INF, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, -INF]], splat(NAN)),
        ],
    );
}

#[test]
fn dph() {
    // [0] dph o0, v0, v1
    // [1] end
    vector_cases(
        "dph o0, v0, v1",
        |b| {
            b.dph(o(0), v(0), v(1));
        },
        &[
            (&[splat(INF), splat(0.0)], splat(0.0)),
            (&[splat(NAN), splat(0.0)], splat(NAN)),
            (&[splat(1.0), splat(1.0)], splat(4.0)),
            (&[splat(0.0), splat(1.0)], splat(1.0)),
            // a.w is replaced by 1.0, so even NaN there does not matter; b.w does
            (&[[1.0, 2.0, 3.0, NAN], [1.0, 1.0, 1.0, 10.0]], splat(16.0)),
            (&[[1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0, NAN]], splat(NAN)),
            // 4th product pmul(1, -0) = -0; all -0 products sum to +0 from the seed
            (
                &[[-0.0, -0.0, -0.0, 5.0], [1.0, 1.0, 1.0, -0.0]],
                splat(0.0),
            ),
        ],
    );
    // The 1.0 replaces a.w after negation: (-1)+(-2)+(-3) + 1.0*10 = 4.
    // [0] dph o0, -v0, v1
    // [1] end
    vector_cases(
        "dph o0, -v0, v1",
        |b| {
            b.dph(o(0), -v(0), v(1));
        },
        &[(&[[1.0, 2.0, 3.0, 7.0], [1.0, 1.0, 1.0, 10.0]], splat(4.0))],
    );
    // ... and after swizzle: v0.wzyx = (4, 3, 2, [1 -> 1.0]) . (1, 1, 1, 10) = 19.
    // [0] dph o0, v0.wzyx, v1
    // [1] end
    vector_cases(
        "dph o0, v0.wzyx, v1",
        |b| {
            b.dph(o(0), v(0).swz("wzyx"), v(1));
        },
        &[(&[[1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0, 10.0]], splat(19.0))],
    );
}

#[test]
fn dphi_with_uniform_in_src2() {
    // [0] dphi o0, v0, c5        ; format 1i: c5 in the wide src2 slot
    // [1] dphi o1, -v0, c5
    // [2] end
    let mut b = Builder::new();
    b.dphi(o(0), v(0), c(5)).dphi(o(1), -v(0), c(5)).end();
    let mut u = Uniforms::default();
    u.f[5] = [1.0, 2.0, 3.0, 4.0];
    let out = run_one(&b.program(), &u, vecs(&[[1.0, 1.0, 1.0, NAN]]));
    assert_bits(&out[0], &splat(10.0)); // 1 + 2 + 3 + 1.0*4
    assert_bits(&out[1], &splat(-2.0)); // -1 - 2 - 3 + 1.0*4
    let out = run_one(&b.program(), &u, vecs(&[[INF, 0.0, 0.0, 0.0]]));
    // pmul(inf, 1) = inf
    assert_bits(&out[0], &splat(INF));
    u.f[5] = [0.0, 1.0, 1.0, 1.0];
    let out = run_one(&b.program(), &u, vecs(&[[INF, 0.0, 0.0, 0.0]]));
    assert_bits(&out[0], &splat(1.0)); // pmul(inf, 0) = +0, then 0 + 0 + 1.0*1
}

#[test]
fn dst_and_dsti() {
    // [0] dst o0, v0, v1
    // [1] dsti o1, v0, c2         ; format 1i: c2 in the wide src2 slot
    // [2] end
    let mut b = Builder::new();
    b.dst(o(0), v(0), v(1)).dsti(o(1), v(0), c(2)).end();
    let cases: &[(Vec4, Vec4, Vec4)] = &[
        // (1, a.y*b.y, a.z, b.w); a.x, a.w, b.x, b.z unused
        (
            [2.0, 3.0, 5.0, 7.0],
            [11.0, 13.0, 17.0, 19.0],
            [1.0, 39.0, 5.0, 19.0],
        ),
        (
            [NAN, INF, -0.0, NAN],
            [NAN, 0.0, NAN, -INF],
            [1.0, 0.0, -0.0, -INF],
        ),
        (
            [0.0, NAN, 1.0, 0.0],
            [0.0, 2.0, 0.0, NAN],
            [1.0, NAN, 1.0, NAN],
        ),
    ];
    for (a, bb, want) in cases {
        let mut u = Uniforms::default();
        u.f[2] = *bb;
        let out = run_one(&b.program(), &u, vecs(&[*a, *bb]));
        check_bits(&out[0], want, &format!("dst {a:?} {bb:?}"));
        check_bits(&out[1], want, &format!("dsti {a:?} {bb:?}"));
    }
}

/// PICA max cases: (a, b, max(a, b)).
fn max_cases() -> [(f32, f32, f32); 12] {
    [
        (1.0, 0.0, 1.0),
        (0.0, 1.0, 1.0),
        (0.0, INF, INF),
        (0.0, -INF, 0.0), // project choice (hardware reportedly gives -inf)
        (-INF, INF, INF),
        (0.0, NAN, NAN), // NaN in either position -> b
        (NAN, 0.0, 0.0),
        (NAN, -INF, -INF),
        (NAN, NAN, NAN),
        (0.0, -0.0, -0.0), // equal -> b
        (-0.0, 0.0, 0.0),
        (-3.0, -2.0, -2.0),
    ]
}

#[test]
fn max() {
    // [0] max o0, v0, v1
    // [1] end
    elementwise(
        "max o0, v0, v1",
        |b| {
            b.max(o(0), v(0), v(1));
        },
        &max_cases(),
    );
}

#[test]
fn max_and_rcp_with_a_constant_first_source_and_their_result_over_a_source() {
    // A non-commuting operation whose first source is in memory (a uniform, rcp's 1.0): SSE4.1
    // loads it straight into the result register, or into scratch then copies when the second
    // source is in that register (r0 = max(c4, r0), r1 = rcp(r1)).
    // [0] max o0, c4, v1
    // [1] mov r0, v1
    // [2] max r0, c4, r0
    // [3] mov o1, r0
    // [4] mov r1, v1
    // [5] rcp r1, r1
    // [6] mov o2, r1
    // [7] rcp o3, v1
    // [8] end
    let mut b = Builder::new();
    b.max(o(0), c(4), v(1))
        .mov(r(0), v(1))
        .max(r(0), c(4), r(0))
        .mov(o(1), r(0))
        .mov(r(1), v(1))
        .rcp(r(1), r(1))
        .mov(o(2), r(1))
        .rcp(o(3), v(1))
        .end();
    for (x, y, want) in max_cases() {
        let mut u = Uniforms::default();
        u.f[4] = splat(x);
        let out = run_one(&b.program(), &u, vecs(&[[0.0; 4], splat(y)]));
        check_bits(
            &out[0],
            &splat(want),
            &format!("max o0, c4 = {x:?}, v1 = {y:?}"),
        );
        check_bits(
            &out[1],
            &splat(want),
            &format!("max r0, c4 = {x:?}, r0 = {y:?}"),
        );
        // IEEE division, correctly rounded: 1 / -0 = -inf, 1 / NaN = NaN.
        let recip = splat(1.0 / y);
        check_bits(&out[2], &recip, &format!("rcp r1, r1 = {y:?}"));
        check_bits(&out[3], &recip, &format!("rcp o3, v1 = {y:?}"));
    }
}

#[test]
fn min() {
    // [0] min o0, v0, v1
    // [1] end
    elementwise(
        "min o0, v0, v1",
        |b| {
            b.min(o(0), v(0), v(1));
        },
        &[
            (1.0, 0.0, 0.0),
            (0.0, 1.0, 0.0),
            (0.0, INF, 0.0),
            (0.0, -INF, -INF),
            (-INF, INF, -INF),
            (0.0, NAN, NAN),
            (NAN, 0.0, 0.0),
            (NAN, INF, INF),
            (NAN, NAN, NAN),
            (0.0, -0.0, -0.0),
            (-0.0, 0.0, 0.0),
            (-3.0, -2.0, -3.0),
        ],
    );
}

#[test]
fn sge_slt() {
    // Azahar's shader-test pairs, plus signed zeros; SGE then SLT expectation.
    let cases: &[(f32, f32, f32, f32)] = &[
        (INF, 0.0, 1.0, 0.0),
        (0.0, INF, 0.0, 1.0),
        (NAN, 0.0, 0.0, 0.0),
        (0.0, NAN, 0.0, 0.0),
        (INF, INF, 1.0, 0.0),
        (INF, -INF, 1.0, 0.0),
        (-INF, INF, 0.0, 1.0),
        (1.0, -1.0, 1.0, 0.0),
        (-1.0, 1.0, 0.0, 1.0),
        (-0.0, 0.0, 1.0, 0.0),
        (0.0, -0.0, 1.0, 0.0),
        (NAN, NAN, 0.0, 0.0),
    ];
    let sge: Vec<_> = cases.iter().map(|&(a, b, s, _)| (a, b, s)).collect();
    let slt: Vec<_> = cases.iter().map(|&(a, b, _, l)| (a, b, l)).collect();
    // [0] sge o0, v0, v1 ; [1] end
    elementwise(
        "sge o0, v0, v1",
        |b| {
            b.sge(o(0), v(0), v(1));
        },
        &sge,
    );
    // [0] slt o0, v0, v1 ; [1] end
    elementwise(
        "slt o0, v0, v1",
        |b| {
            b.slt(o(0), v(0), v(1));
        },
        &slt,
    );
    // Format 1i with the uniform in src2 (operand order unchanged: a = v0, b = c7).
    // [0] sgei o0, v0, c7
    // [1] slti o1, v0, c7
    // [2] end
    let mut b = Builder::new();
    b.sgei(o(0), v(0), c(7)).slti(o(1), v(0), c(7)).end();
    for &(x, y, s, l) in cases {
        let mut u = Uniforms::default();
        u.f[7] = splat(y);
        let out = run_one(&b.program(), &u, vecs(&[splat(x)]));
        check_bits(&out[0], &splat(s), &format!("sgei {x:?}, {y:?}"));
        check_bits(&out[1], &splat(l), &format!("slti {x:?}, {y:?}"));
    }
}

#[test]
fn flr() {
    // [0] flr o0, v0
    // [1] end
    elementwise(
        "flr o0, v0",
        |b| {
            b.flr(o(0), v(0));
        },
        &[
            (0.5, 0.0, 0.0),
            (-0.5, 0.0, -1.0),
            (1.5, 0.0, 1.0),
            (-1.5, 0.0, -2.0),
            (NAN, 0.0, NAN),
            (INF, 0.0, INF),
            (-INF, 0.0, -INF),
            (-0.0, 0.0, -0.0),
            (0.0, 0.0, 0.0),
            (-3.0, 0.0, -3.0),
            (8_388_607.5, 0.0, 8_388_607.0),
            (-8_388_607.5, 0.0, -8_388_608.0),
            (1e30, 0.0, 1e30),
            (sub(1), 0.0, 0.0),
            (-sub(1), 0.0, -1.0),
        ],
    );
}

/// RCP and RSQ read only component x of the swizzled source and write it to every lane.
#[test]
fn rcp() {
    let cases: &[(f32, f32)] = &[
        (0.0, INF),
        (-0.0, -INF), // IEEE division; hardware reportedly gives +inf
        (INF, 0.0),
        (-INF, -0.0),
        (NAN, NAN),
        (16.0, 0.0625),
        (8.0, 0.125),
        (4.0, 0.25),
        (2.0, 0.5),
        (1.0, 1.0),
        (0.5, 2.0),
        (0.25, 4.0),
        (0.125, 8.0),
        (0.0625, 16.0),
        (3.0, f32::from_bits(0x3EAA_AAAB)), // correctly rounded 1/3
        (-4.0, -0.25),
        (f32::MAX, f32::from_bits(0x0020_0000)), // subnormal result kept
    ];
    // [0] rcp o0, v0
    // [1] end
    let mut b = Builder::new();
    b.rcp(o(0), v(0)).end();
    for &(x, want) in cases {
        let out = run_one(
            &b.program(),
            &Uniforms::default(),
            vecs(&[[x, 3.0, NAN, 7.0]]),
        );
        check_bits(&out[0], &splat(want), &format!("rcp {x:?}"));
    }
    // [0] rcp o0, v0.wzyx   ; x of the swizzled source is v0.w
    // [1] end
    let mut b = Builder::new();
    b.rcp(o(0), v(0).swz("wzyx")).end();
    let out = run_one(
        &b.program(),
        &Uniforms::default(),
        vecs(&[[2.0, 3.0, 5.0, 4.0]]),
    );
    assert_bits(&out[0], &splat(0.25));
}

#[test]
fn rsq() {
    let cases: &[(f32, f32)] = &[
        (-2.0, NAN),
        (INF, 0.0),
        (-INF, NAN),
        (NAN, NAN),
        (0.0, INF),
        (-0.0, -INF), // 1 / sqrt(-0) = 1 / -0; hardware reportedly gives +inf
        (16.0, 0.25),
        (4.0, 0.5),
        (1.0, 1.0),
        (0.25, 2.0),
        (0.0625, 4.0),
        (2.0, f32::from_bits(0x3F35_04F3)),
        // Two roundings: sqrt(1.0625) rounded, then 1/x rounded gives 0x3F785B43; the
        // correctly rounded 1/sqrt(1.0625) would be 0x3F785B42.
        (1.0625, f32::from_bits(0x3F78_5B43)),
        (1.125, f32::from_bits(0x3F71_5BF0)),
    ];
    // [0] rsq o0, v0
    // [1] end
    let mut b = Builder::new();
    b.rsq(o(0), v(0)).end();
    for &(x, want) in cases {
        let out = run_one(
            &b.program(),
            &Uniforms::default(),
            vecs(&[[x, 4.0, NAN, -1.0]]),
        );
        check_bits(&out[0], &splat(want), &format!("rsq {x:?}"));
    }
}

/// EX2 and LG2: special values exactly, ordinary values within the spec's 1 ulp of the exact
/// value (the reference is f64 `exp2`/`log2` of the f32 input, rounded to f32).
#[test]
fn ex2() {
    // [0] ex2 o0, v0
    // [1] end
    let mut b = Builder::new();
    b.ex2(o(0), v(0)).end();
    let p = b.program();
    let run = |x: f32| run_one(&p, &Uniforms::default(), vecs(&[[x, 5.0, NAN, -1.0]]))[0];
    // exact specials
    assert_bits(&run(NAN), &splat(NAN));
    assert_bits(&run(-INF), &splat(0.0));
    assert_bits(&run(INF), &splat(INF));
    assert_bits(&run(800.0), &splat(INF));
    assert_bits(&run(128.0), &splat(INF)); // 2^128 overflows
                                           // 2^-800 is far below the smallest subnormal: +0 or, within 1 ulp, 2^-149
    for lane in run(-800.0) {
        assert!(lane.to_bits() <= 1, "ex2(-800) = {lane:?}");
    }
    for x in [
        0.0f32, -0.0, 2.0, 6.0, -1.0, 0.5, -0.25, 2.3, 10.0, 79.726_27, -126.0, -140.5, 127.9,
    ] {
        let want = f64::from(x).exp2() as f32;
        let out = run(x);
        for lane in out {
            assert_ulps(lane, want, 1);
        }
        assert_bits(&out, &splat(out[0])); // all lanes the same
    }
}

#[test]
fn lg2() {
    // [0] lg2 o0, v0
    // [1] end
    let mut b = Builder::new();
    b.lg2(o(0), v(0)).end();
    let p = b.program();
    let run = |x: f32| run_one(&p, &Uniforms::default(), vecs(&[[x, 5.0, NAN, -1.0]]))[0];
    assert_bits(&run(NAN), &splat(NAN));
    assert_bits(&run(-1.0), &splat(NAN));
    assert_bits(&run(-INF), &splat(NAN));
    assert_bits(&run(-sub(1)), &splat(NAN));
    assert_bits(&run(0.0), &splat(-INF));
    assert_bits(&run(-0.0), &splat(-INF));
    assert_bits(&run(INF), &splat(INF));
    for x in [
        1.0f32,
        4.0,
        64.0,
        0.5,
        3.0,
        1e24,
        0.1,
        1.000_000_1,
        0.999_999_94,
        sub(1),
        sub(12345),
        f32::MAX,
    ] {
        let want = f64::from(x).log2() as f32;
        let out = run(x);
        for lane in out {
            assert_ulps(lane, want, 1);
        }
        assert_bits(&out, &splat(out[0]));
    }
}

/// LITP: (pos(a.x), clamp(a.y), 0, pos(a.w)); cc = (a.x >= 0, a.w >= 0), read back with IFC
/// and JMPC.
#[test]
fn litp() {
    // [0] litp o0, v0
    // [1] ifc cc.x, dest 3, num 0 ; [2] sge o15.x, r15, r15
    // [3] jmpc !cc.y, dest 5      ; [4] sge o15.y, r15, r15
    // [5] end
    let mut b = Builder::new();
    b.litp(o(0), v(0));
    read_cc(&mut b);
    const CLAMP: f32 = 32767.0 / 256.0; // 127.99609375
    assert_eq!(CLAMP.to_bits(), 0x42FF_FE00);
    let cases: &[(Vec4, Vec4, (bool, bool))] = &[
        ([2.0, 3.0, 7.0, 5.0], [2.0, 3.0, 0.0, 5.0], (true, true)),
        (
            [-1.0, 200.0, 7.0, -2.0],
            [0.0, CLAMP, 0.0, 0.0],
            (false, false),
        ),
        ([NAN, NAN, 1.0, NAN], [0.0, NAN, 0.0, 0.0], (false, false)),
        (
            [-0.0, -200.0, 1.0, 0.0],
            [0.0, -CLAMP, 0.0, 0.0],
            (true, true),
        ),
        ([INF, INF, NAN, -INF], [INF, CLAMP, 0.0, 0.0], (true, false)),
        (
            [-INF, -INF, 1.0, 3.0],
            [0.0, -CLAMP, 0.0, 3.0],
            (false, true),
        ),
        ([0.5, CLAMP, 1.0, 0.0], [0.5, CLAMP, 0.0, 0.0], (true, true)),
        (
            [1.0, 127.999, 1.0, 1.0],
            [1.0, CLAMP, 0.0, 1.0],
            (true, true),
        ),
        (
            [1.0, -127.99, 1.0, 1.0],
            [1.0, -127.99, 0.0, 1.0],
            (true, true),
        ),
    ];
    let inputs: Vec<Regs16> = cases.iter().map(|(a, _, _)| vecs(&[*a])).collect();
    let outs = run_ok(&b.program(), &Uniforms::default(), &inputs);
    for ((a, want, cc), out) in cases.iter().zip(&outs) {
        check_bits(&out[0], want, &format!("litp {a:?}"));
        assert_eq!(cc_of(out), *cc, "cc after litp {a:?}");
    }
}

/// CMP: every operator on x and y, over ordinary, equal, signed-zero and NaN pairs. Ops 6
/// and 7 are always true (observable: cc starts false).
#[test]
fn cmp_all_ops() {
    // Expected per pair, operators in encoding order: == != < <= > >= 6 7
    let table: &[(f32, f32, [bool; 8])] = &[
        (
            1.0,
            2.0,
            [false, true, true, true, false, false, true, true],
        ),
        (
            2.0,
            1.0,
            [false, true, false, false, true, true, true, true],
        ),
        (
            2.0,
            2.0,
            [true, false, false, true, false, true, true, true],
        ),
        (
            0.0,
            -0.0,
            [true, false, false, true, false, true, true, true],
        ),
        (
            -INF,
            INF,
            [false, true, true, true, false, false, true, true],
        ),
        (
            NAN,
            1.0,
            [false, true, false, false, false, false, true, true],
        ),
        (
            1.0,
            NAN,
            [false, true, false, false, false, false, true, true],
        ),
        (
            NAN,
            NAN,
            [false, true, false, false, false, false, true, true],
        ),
    ];
    for x in 0..8 {
        // y runs through the operators in another order so every pair of (x op, y op) differs
        let y = (x + 3) % 8;
        let (opx, opy) = (CmpOp::ALL[x], CmpOp::ALL[y]);
        // [0] cmp v0, opx, opy, v1
        // [1..5] read_cc: o15.xy = cc
        let mut b = Builder::new();
        b.cmp(v(0), opx, opy, v(1));
        read_cc(&mut b);
        // x compares v0.x with v1.x; y compares v0.y with v1.y. Put pair n in x and pair
        // (n + 1) in y so the lanes are independent.
        let n = table.len();
        let inputs: Vec<Regs16> = (0..n)
            .map(|i| {
                let (ax, bx, _) = table[i];
                let (ay, by, _) = table[(i + 1) % n];
                vecs(&[[ax, ay, NAN, NAN], [bx, by, NAN, NAN]])
            })
            .collect();
        let outs = run_ok(&b.program(), &Uniforms::default(), &inputs);
        for (i, out) in outs.iter().enumerate() {
            let want = (table[i].2[x], table[(i + 1) % n].2[y]);
            assert_eq!(cc_of(out), want, "cmp {opx:?}/{opy:?} on pair {i}");
        }
    }
}

/// CMP ignores the write mask (descriptor with mask 0 still sets cc) and writes no register.
#[test]
fn cmp_ignores_mask_and_writes_nothing() {
    // [0] cmp v0, ==, ==, v0      ; descriptor mask 0 (entry 0)
    // [1..5] read_cc
    let mut b = Builder::new();
    b.set_desc(0, IDENTITY_DESC & !0xF);
    b.word(0xB800_0000); // cmp v0, eq, eq, v0: 0x2E << 26, all fields 0, desc 0
    read_cc(&mut b);
    let out = run_one(
        &b.program(),
        &Uniforms::default(),
        vecs(&[[1.0, 2.0, 3.0, 4.0]]),
    );
    assert_eq!(cc_of(&out), (true, true));
    assert_bits(&out[0], &[0.0; 4]);
}
