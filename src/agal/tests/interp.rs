//! The interpreter, opcode by opcode, against values computed by hand (written beside each
//! check), plus the accuracy of `sin`, `cos` and `pow` over sampled inputs.

use crate::agal::asm::{assemble, Options};
use crate::agal::interp::{
    self, math, CpuTextures, Fragment, FragmentOut, Level, NoTextures, Texture, Textures, Vertex,
    VertexOut,
};
use crate::agal::sampling::Dim;
use crate::agal::validate::{validate, Options as VOptions};
use crate::agal::Program;
use crate::float::check::ulp_error;

fn program(text: &str) -> Program {
    let a = assemble("t.agal", text, &Options::default()).unwrap_or_else(|e| {
        panic!(
            "{text}: {}",
            e.iter()
                .map(|d| d.headline())
                .collect::<Vec<_>>()
                .join("; ")
        )
    });
    validate(&a.bytes, &VOptions::default()).unwrap_or_else(|e| panic!("{text}\n{e}"))
}

/// Runs a version-2 vertex program whose result is `op`, on one vertex.
fn vertex(body: &str, constants: &[[f32; 4]], attributes: &[[f32; 4]]) -> VertexOut {
    vertex_with(
        &format!(".vertex\n.version 2\n{body}"),
        constants,
        attributes,
        &NoTextures,
    )
}

fn vertex_with(
    text: &str,
    constants: &[[f32; 4]],
    attributes: &[[f32; 4]],
    t: &dyn Textures,
) -> VertexOut {
    let p = program(text);
    let mut v = Vertex::default();
    v.attributes[..attributes.len()].copy_from_slice(attributes);
    v.instance_id = 7;
    interp::run_vertices(&p, constants, t, &[v])
        .unwrap()
        .remove(0)
}

/// `op` of a one-instruction program `OP vt0, va0[, va1]` then `mov op, vt0`.
fn op1(op: &str, a: [f32; 4]) -> [f32; 4] {
    vertex(&format!("{op} vt0, va0\nmov op, vt0"), &[], &[a]).position
}

fn op2(op: &str, a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    vertex(&format!("{op} vt0, va0, va1\nmov op, vt0"), &[], &[a, b]).position
}

/// Bit-exact comparison (NaN equals NaN).
#[track_caller]
fn same(got: [f32; 4], want: [f32; 4]) {
    let eq = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    assert!(
        (0..4).all(|i| eq(got[i], want[i])),
        "got {got:?}, want {want:?}"
    );
}

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

#[test]
fn mov_swizzle_and_mask() {
    // adobe/glsl2agal#16: `mov vt0.yzw, vc0.xyzz` gives y←c.y, z←c.z, w←c.z; x keeps 9.
    let out = vertex(
        "mov vt0, vc1\nmov vt0.yzw, vc0.xyzz\nmov op, vt0",
        &[[1.0, 2.0, 3.0, 4.0], [9.0; 4]],
        &[],
    );
    same(out.position, [9.0, 2.0, 3.0, 3.0]);
    // A short swizzle repeats its last letter: `.yx` is yxxx.
    same(
        vertex("mov op, vc0.yx", &[[1.0, 2.0, 3.0, 4.0]], &[]).position,
        [2.0, 1.0, 1.0, 1.0],
    );
}

#[test]
fn arithmetic() {
    let a = [1.5, -2.0, 0.1, 1e30];
    let b = [2.25, 0.5, 0.2, 1e30];
    // 1.5 + 2.25 = 3.75; −2 + 0.5 = −1.5; 0.1f + 0.2f = 0x3E99999A (0.3 rounded up); 1e30 + 1e30.
    same(
        op2("add", a, b),
        [3.75, -1.5, f32::from_bits(0x3E99_999A), 2e30],
    );
    // 1.5 − 2.25 = −0.75; −2 − 0.5 = −2.5; 0.1f − 0.2f = −0.1f exactly; 1e30 − 1e30 = 0.
    same(op2("sub", a, b), [-0.75, -2.5, -0.1, 0.0]);
    // 1.5 × 2.25 = 3.375; −2 × 0.5 = −1; 0.1f × 0.2f = 0x3CA3D70B; 1e30² = +inf (overflow).
    same(
        op2("mul", a, b),
        [3.375, -1.0, f32::from_bits(0x3CA3_D70B), INF],
    );
    // Plain IEEE multiply: 0 × inf = NaN (no PICA sanitizing).
    same(
        op2("mul", [0.0, -0.0, 1.0, 1.0], [INF, 1.0, NAN, -0.0]),
        [NAN, -0.0, NAN, -0.0],
    );
    // 1 / 3 = 0x3EAAAAAB (a true divide); 1 / 0 = inf; −1 / 0 = −inf; 0 / 0 = NaN.
    same(
        op2("div", [1.0, 1.0, -1.0, 0.0], [3.0, 0.0, 0.0, 0.0]),
        [f32::from_bits(0x3EAA_AAAB), INF, -INF, NAN],
    );
    // rcp: 1/4; 1/+0 = inf; 1/−0 = −inf; 1/3.
    same(
        op1("rcp", [4.0, 0.0, -0.0, 3.0]),
        [0.25, INF, -INF, f32::from_bits(0x3EAA_AAAB)],
    );
}

#[test]
fn min_max() {
    // a < b ? a : b and a > b ? a : b: a NaN operand gives the second operand.
    same(
        op2("min", [1.0, NAN, 2.0, -0.0], [2.0, 1.0, NAN, 0.0]),
        [1.0, 1.0, NAN, 0.0],
    );
    same(
        op2("max", [1.0, NAN, 2.0, 0.0], [2.0, 1.0, NAN, -0.0]),
        [2.0, 1.0, NAN, -0.0],
    );
}

#[test]
fn fractions_roots_logs() {
    // frc: 2.75 → 0.75; −0.25 → 0.75; −1e-10 → 1 − 1e-10 rounds to 1.0; −0 → +0.
    same(
        op1("frc", [2.75, -0.25, -1e-10, -0.0]),
        [0.75, 0.75, 1.0, 0.0],
    );
    // sqt(|x|): 16 → 4; −16 → 4; 2 → 0x3FB504F3 (√2 rounded); −0 → +0.
    same(
        op1("sqt", [16.0, -16.0, 2.0, -0.0]),
        [4.0, 4.0, f32::from_bits(0x3FB5_04F3), 0.0],
    );
    // rsq(|x|): 4 → 0.5; 0 → inf; −4 → 0.5; inf → 0.
    same(op1("rsq", [4.0, 0.0, -4.0, INF]), [0.5, INF, 0.5, 0.0]);
    // log2|x|: 8 → 3; −8 → 3; 0 → −inf; 1 → 0.
    same(op1("log", [8.0, -8.0, 0.0, 1.0]), [3.0, 3.0, -INF, 0.0]);
    // 2^x: 3 → 8; −1 → 0.5; 200 → inf; −inf → 0.
    same(op1("exp", [3.0, -1.0, 200.0, -INF]), [8.0, 0.5, INF, 0.0]);
    // pow(|x|, y): 2^10 = 1024; |−2|³ = 8; 4^0.5 = 2; 0^0 = NaN (0 × −inf).
    same(
        op2("pow", [2.0, -2.0, 4.0, 0.0], [10.0, 3.0, 0.5, 0.0]),
        [1024.0, 8.0, 2.0, NAN],
    );
    // 0^2 = 0; 0^−1 = inf; 7^0 = 1; NaN^1 = NaN.
    same(
        op2("pow", [0.0, 0.0, 7.0, NAN], [2.0, -1.0, 0.0, 1.0]),
        [0.0, INF, 1.0, NAN],
    );
}

#[test]
fn sign_and_clamp() {
    same(op1("abs", [-1.5, 2.0, -0.0, -INF]), [1.5, 2.0, 0.0, INF]);
    same(op1("neg", [-1.5, 2.0, 0.0, NAN]), [1.5, -2.0, -0.0, NAN]);
    // sat: clamp to [0, 1]; NaN → 0; −0 → +0.
    same(op1("sat", [1.5, -2.0, NAN, -0.0]), [1.0, 0.0, 0.0, 0.0]);
    same(op1("sat", [0.25, INF, -INF, 1.0]), [0.25, 1.0, 0.0, 1.0]);
    // sgn: 1, −1, 0 (both zeros), 0 for NaN.
    same(op1("sgn", [3.0, -0.5, -0.0, NAN]), [1.0, -1.0, 0.0, 0.0]);
}

#[test]
fn comparisons() {
    let a = [1.0, 2.0, NAN, -0.0];
    let b = [2.0, 2.0, 1.0, 0.0];
    same(op2("sge", a, b), [0.0, 1.0, 0.0, 1.0]);
    same(op2("slt", a, b), [1.0, 0.0, 0.0, 0.0]);
    same(op2("seq", a, b), [0.0, 1.0, 0.0, 1.0]);
    same(op2("sne", a, b), [1.0, 0.0, 1.0, 0.0]);
}

#[test]
fn dot_cross_normalize() {
    let a = [1.0, 2.0, 3.0, 4.0];
    let b = [5.0, 6.0, 7.0, 8.0];
    // 5 + 12 + 21 = 38, replicated; + 32 = 70.
    same(op2("dp3", a, b), [38.0; 4]);
    same(op2("dp4", a, b), [70.0; 4]);
    // Sum from +0: all products −0 give +0.
    same(op2("dp4", [-0.0; 4], [1.0; 4]), [0.0; 4]);
    // (1,2,3) × (4,5,6) = (2·6 − 3·5, 3·4 − 1·6, 1·5 − 2·4) = (−3, 6, −3); w untouched (9).
    let c = [4.0, 5.0, 6.0, 7.0];
    let out = vertex(
        "mov vt0, vc0\ncrs vt0.xyz, va0, va1\nmov op, vt0",
        &[[9.0; 4]],
        &[a, c],
    )
    .position;
    same(out, [-3.0, 6.0, -3.0, 9.0]);
    // nrm(3, 4, 0): d = 25, f = 1/5 = 0x3E4CCCCD, 3f = 0x3F19999A, 4f = 0x3F4CCCCD.
    let n = vertex(
        "mov vt0, vc0\nnrm vt0.xyz, va0\nmov op, vt0",
        &[[9.0; 4]],
        &[[3.0, 4.0, 0.0, 5.0]],
    )
    .position;
    same(
        n,
        [
            f32::from_bits(0x3F19_999A),
            f32::from_bits(0x3F4C_CCCD),
            0.0,
            9.0,
        ],
    );
    // nrm of zero is zero (D3D9: f = FLT_MAX).
    let z = vertex(
        "mov vt0, vc0\nnrm vt0.xyz, va0\nmov op, vt0",
        &[[9.0; 4]],
        &[[0.0, -0.0, 0.0, 1.0]],
    )
    .position;
    same(z, [0.0, -0.0, 0.0, 9.0]);
}

#[test]
fn matrices() {
    // Rows vc0..vc3: a translation by (10, 20, 30).
    let m = [
        [1.0, 0.0, 0.0, 10.0],
        [0.0, 1.0, 0.0, 20.0],
        [0.0, 0.0, 1.0, 30.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let p = [1.0, 2.0, 3.0, 1.0];
    same(
        vertex("m44 op, va0, vc0", &m, &[p]).position,
        [11.0, 22.0, 33.0, 1.0],
    );
    // m34: 3 rows of dp4; m33: 3 rows of dp3 (translation ignored).
    same(
        vertex("mov vt0, vc3\nm34 vt0.xyz, va0, vc0\nmov op, vt0", &m, &[p]).position,
        [11.0, 22.0, 33.0, 1.0],
    );
    same(
        vertex("mov vt0, vc3\nm33 vt0.xyz, va0, vc0\nmov op, vt0", &m, &[p]).position,
        [1.0, 2.0, 3.0, 1.0],
    );
    // Rows from temporaries, and D aliasing S1: the old vt0 is read.
    let out = vertex(
        "mov vt1, vc0\nmov vt2, vc1\nmov vt3, vc2\nmov vt4, vc3\nmov vt0, va0\nm44 vt0, vt0, vt1\nmov op, vt0",
        &m,
        &[p],
    );
    same(out.position, [11.0, 22.0, 33.0, 1.0]);
    // Indirect matrix (nd2d): rows at vc[va1.x + 0] … + 3, va1.x = 4 → vc4..vc7.
    let mut c = vec![[0.0; 4]; 4];
    c.extend_from_slice(&m);
    same(
        vertex("m44 op, va0, vc[va1.x]", &c, &[p, [4.0; 4]]).position,
        [11.0, 22.0, 33.0, 1.0],
    );
}

#[test]
fn indirect_reads() {
    let c: Vec<[f32; 4]> = (0..8).map(|i| [i as f32; 4]).collect();
    let read = |x: f32| vertex("mov op, vc[va0.x+1]", &c, &[[x; 4]]).position[0];
    assert_eq!(read(2.7), 3.0, "trunc(2.7) + 1 = 3");
    assert_eq!(read(-0.5), 1.0, "trunc(−0.5) = 0");
    assert_eq!(read(-1.5), 0.0, "trunc(−1.5) + 1 = 0");
    assert_eq!(read(NAN), 1.0, "NaN → 0");
    assert_eq!(read(-3.0), 0.0, "index −2: outside, zero");
    assert_eq!(read(6.0), 7.0, "vc7");
    assert_eq!(read(7.0), 0.0, "vc8 was not given: zero");
    assert_eq!(
        read(200.0),
        0.0,
        "index 201 ≥ 250? no: within the file but not given: zero"
    );
    // The constant file of a version-1 vertex program is 128 registers: index 130 is outside
    // even when given.
    let big: Vec<[f32; 4]> = (0..250).map(|i| [i as f32; 4]).collect();
    let p1 = ".vertex\n.version 1\nmov op, vc[va0.x+5]";
    assert_eq!(
        vertex_with(p1, &big, &[[125.0; 4]], &NoTextures).position[0],
        0.0
    );
    assert_eq!(
        vertex_with(p1, &big, &[[122.0; 4]], &NoTextures).position[0],
        127.0
    );
    let p2 = ".vertex\n.version 2\nmov op, vc[va0.x+5]";
    assert_eq!(
        vertex_with(p2, &big, &[[125.0; 4]], &NoTextures).position[0],
        130.0
    );
    // Index from a temporary's component (Genome2D) and from a constant.
    let out = vertex(
        "mov vt0, va0\nmov vt1, vc[vt0.w+0]\nadd op, vt1, vc[vc1.y+2]",
        &c,
        &[[0.0, 0.0, 0.0, 5.0]],
    );
    assert_eq!(out.position[0], 5.0 + 3.0);
}

#[test]
fn varyings_and_instance_id() {
    let out = vertex_with(
        ".vertex\n.version 3\nmov op, va0\nmov v0, iid\nmov v9, va1.wzyx",
        &[],
        &[[1.0; 4], [1.0, 2.0, 3.0, 4.0]],
        &NoTextures,
    );
    same(out.varyings[0], [7.0; 4]);
    same(out.varyings[9], [4.0, 3.0, 2.0, 1.0]);
    same(out.varyings[1], [0.0; 4]);
}

#[test]
fn vertex_conditionals_branch() {
    let body = "mov vt0, vc0\nifg va0.x, vc1.x\nmov vt0, vc2\nels\nmov vt0, vc3\neif\nmov op, vt0";
    let c = [[0.0; 4], [5.0; 4], [2.0; 4], [3.0; 4]];
    // ifg is strictly greater: 5 > 5 is false → else branch.
    same(vertex(body, &c, &[[6.0; 4]]).position, [2.0; 4]);
    same(vertex(body, &c, &[[5.0; 4]]).position, [3.0; 4]);
    let ops = [
        ("ife", [2.0, 3.0]),
        ("ine", [3.0, 2.0]),
        ("ifl", [3.0, 2.0]),
    ];
    for (op, [at5, at4]) in ops {
        let b = body.replace("ifg", op);
        assert_eq!(vertex(&b, &c, &[[5.0; 4]]).position[0], at5, "{op} 5 vs 5");
        assert_eq!(vertex(&b, &c, &[[4.0; 4]]).position[0], at4, "{op} 4 vs 5");
    }
}

fn quad_program(body: &str) -> Program {
    program(&format!(".fragment\n.version 2\n{body}"))
}

/// Runs a fragment program on one quad whose `v0` in each lane is `v0[lane]`.
fn quad_with(
    p: &Program,
    constants: &[[f32; 4]],
    v0: [[f32; 4]; 4],
    t: &dyn Textures,
) -> [FragmentOut; 4] {
    let q: [Fragment; 4] = std::array::from_fn(|l| {
        let mut f = Fragment::default();
        f.varyings[0] = v0[l];
        f.varyings[1] = [l as f32; 4];
        f
    });
    interp::run_quads(p, constants, t, &[q]).unwrap().remove(0)
}

fn quad(body: &str, constants: &[[f32; 4]], v0: [[f32; 4]; 4]) -> [FragmentOut; 4] {
    quad_with(&quad_program(body), constants, v0, &NoTextures)
}

#[test]
fn derivatives_over_quads() {
    // Lanes (x0,y0)=1, (x1,y0)=3, (x0,y1)=10, (x1,y1)=16.
    let v0 = [[1.0; 4], [3.0; 4], [10.0; 4], [16.0; 4]];
    let dx = quad("ddx ft0, v0\nmov oc, ft0", &[], v0);
    // Row 0: 3 − 1 = 2; row 1: 16 − 10 = 6.
    assert_eq!(dx.map(|f| f.colors[0][0]), [2.0, 2.0, 6.0, 6.0]);
    let dy = quad("ddy ft0, v0\nmov oc, ft0", &[], v0);
    // Column 0: 10 − 1 = 9; column 1: 16 − 3 = 13.
    assert_eq!(dy.map(|f| f.colors[0][0]), [9.0, 13.0, 9.0, 13.0]);
}

#[test]
fn fragment_conditionals_mask_lanes() {
    // v0.x = 1, 2, 3, 4 against fc0.x = 2: ifg holds in lanes 2 and 3.
    let v0 = [[1.0; 4], [2.0; 4], [3.0; 4], [4.0; 4]];
    let c = [[2.0; 4], [10.0; 4], [20.0; 4], [30.0; 4]];
    let out = quad(
        "mov ft0, fc3\nifg v0.x, fc0.x\nmov ft0, fc1\nels\nmov ft0, fc2\nifl v0.x, fc0.x\nmov ft0.y, fc3\neif\neif\nmov oc, ft0",
        &c,
        v0,
    );
    // Lanes 2, 3: 10. Lanes 0, 1: 20, and lane 0 (1 < 2) also y = 30 from the nested block.
    assert_eq!(out.map(|f| f.colors[0][0]), [20.0, 20.0, 10.0, 10.0]);
    assert_eq!(out.map(|f| f.colors[0][1]), [30.0, 20.0, 10.0, 10.0]);
}

#[test]
fn kil_flags_fragments() {
    // x < 0 kills: −1 yes; 0, −0 and NaN no. Outputs are still computed.
    let out = quad(
        "kil v0.x\nmov oc, v1",
        &[],
        [[-1.0; 4], [0.0; 4], [-0.0; 4], [NAN; 4]],
    );
    assert_eq!(out.map(|f| f.killed), [true, false, false, false]);
    assert_eq!(out[0].colors[0], [0.0; 4]);
    // Inside a block only executing lanes are killed: lanes with v1.x > 1.5 (2, 3).
    let out = quad(
        "ifg v1.x, fc0.x\nkil v0.x\neif\nmov oc, v1",
        &[[1.5; 4]],
        [[-1.0; 4]; 4],
    );
    assert_eq!(out.map(|f| f.killed), [false, false, true, true]);
}

#[test]
fn multiple_outputs_and_depth() {
    let out = quad(
        "mov oc, v1\nmov oc1, fc0\nmov od.x, fc0.y",
        &[[5.0, 0.25, 0.0, 0.0]],
        [[0.0; 4]; 4],
    );
    assert_eq!(out[3].colors[0], [3.0; 4]);
    assert_eq!(out[3].colors[1], [5.0, 0.25, 0.0, 0.0]);
    assert_eq!(out[3].depth, 0.25);
}

/// A 4×4 texture whose texel (x, y) is (x, y, 10x + y, 1), and its 2×2 and 1×1 mip levels with
/// values 100 and 200 in z.
fn test_texture() -> Texture {
    let level = |n: u32, tag: f32| Level {
        width: n,
        height: n,
        texels: (0..n * n)
            .map(|i| {
                let (x, y) = ((i % n) as f32, (i / n) as f32);
                [x, y, tag + 10.0 * x + y, 1.0]
            })
            .collect(),
    };
    Texture::two_d(vec![level(4, 0.0), level(2, 100.0), level(1, 200.0)])
}

fn sample(flags: &str, coords: [[f32; 4]; 4]) -> [[f32; 4]; 4] {
    let mut t = CpuTextures::new();
    t.bind(2, test_texture()).unwrap();
    let p = quad_program(&format!("tex ft0, v0, fs2 <{flags}>\nmov oc, ft0"));
    quad_with(&p, &[], coords, &t).map(|f| f.colors[0])
}

#[test]
fn texture_filters_and_wrapping() {
    // A quad one texel apart (ρ = 1, λ = 0): level 0 whatever the mip mode.
    let at = |u: f32, v: f32| -> [[f32; 4]; 4] {
        [
            [u, v, 0.0, 0.0],
            [u + 0.25, v, 0.0, 0.0],
            [u, v + 0.25, 0.0, 0.0],
            [u + 0.25, v + 0.25, 0.0, 0.0],
        ]
    };
    // Nearest at u = 0.3: texel floor(1.2) = 1; v = 0.6 → 2.
    assert_eq!(sample("2d,nearest", at(0.3, 0.6))[0], [1.0, 2.0, 12.0, 1.0]);
    // Linear at the centre of texel (1, 2) is that texel; halfway between texels 1 and 2 in x
    // (u = 0.5) blends them: x = 1.5.
    assert_eq!(
        sample("2d,linear", at(0.375, 0.625))[0],
        [1.0, 2.0, 12.0, 1.0]
    );
    assert_eq!(
        sample("2d,linear", at(0.5, 0.625))[0],
        [1.5, 2.0, 17.0, 1.0]
    );
    // Clamp: u = −3 → texel 0; repeat: u = 1.3 → 0.3 → texel 1.
    assert_eq!(sample("2d,nearest,clamp", at(-3.0, 0.0))[0][0], 0.0);
    assert_eq!(sample("2d,nearest,repeat", at(1.3, 0.0))[0][0], 1.0);
    // Per axis: clamp u, repeat v.
    assert_eq!(
        sample("2d,nearest,clamp_u_repeat_v", at(1.3, 1.3))[0][..2],
        [3.0, 1.0]
    );
    // Linear at the left edge blends texel 0 with itself under clamp, with texel 3 under repeat
    // (x = −0.5 + 0 → texels −1 → 3 and 0, weight 0.5): 1.5.
    assert_eq!(sample("2d,linear,clamp", at(0.0, 0.125))[0][0], 0.0);
    assert_eq!(sample("2d,linear,repeat", at(0.0, 0.125))[0][0], 1.5);
}

#[test]
fn texture_mipmaps_from_derivatives() {
    // Quad 2 texels apart (du = 0.5 per pixel on a 4-wide level): ρ = 2, λ = 1.
    let q = |d: f32| {
        [
            [0.1, 0.1, 0.0, 0.0],
            [0.1 + d, 0.1, 0.0, 0.0],
            [0.1, 0.1 + d, 0.0, 0.0],
            [0.1 + d, 0.1 + d, 0.0, 0.0],
        ]
    };
    assert_eq!(sample("2d,nearest,mipnone", q(0.5))[0][2], 0.0, "level 0");
    assert_eq!(
        sample("2d,nearest,mipnearest", q(0.5))[0][2],
        100.0,
        "λ = 1: level 1"
    );
    assert_eq!(
        sample("2d,nearest,miplinear", q(0.5))[0][2],
        100.0,
        "λ = 1 exactly"
    );
    // ρ = 4: λ = 2 → level 2 (200); bias −1 (−8 eighths) brings it back to level 1.
    assert_eq!(sample("2d,nearest,mipnearest", q(1.0))[0][2], 200.0);
    assert_eq!(sample("2d,nearest,mipnearest,-1", q(1.0))[0][2], 100.0);
    // ρ = 1.5·… λ = log2(3) ≈ 1.585: mip linear blends level 1 (100 + 0) and level 2 (200) by
    // 0.585 — check it lies strictly between; mip nearest picks ceil(2.085) − 1 = 2.
    let mid = sample("2d,nearest,miplinear", q(0.75))[0][2];
    assert!(mid > 150.0 && mid < 170.0, "{mid}");
    assert_eq!(sample("2d,nearest,mipnearest", q(0.75))[0][2], 200.0);
    // Levels past the last clamp to it.
    assert_eq!(sample("2d,nearest,mipnearest", q(100.0))[0][2], 200.0);
}

#[test]
fn cube_faces() {
    let face = |tag: f32| {
        vec![Level {
            width: 1,
            height: 1,
            texels: vec![[tag; 4]],
        }]
    };
    let cube = Texture {
        dim: Dim::Cube,
        faces: (0..6).map(|f| face(f as f32)).collect(),
    };
    let mut t = CpuTextures::new();
    t.bind(0, cube).unwrap();
    let p = quad_program("tex ft0, v0, fs0 <cube,nearest,clamp>\nmov oc, ft0");
    let dirs = [
        [2.0, 1.0, 0.5, 0.0],
        [-2.0, 1.0, 0.5, 0.0],
        [0.1, 3.0, 0.5, 0.0],
        [0.1, 0.2, -0.5, 0.0],
    ];
    let out = quad_with(&p, &[], dirs, &t);
    // +X → face 0, −X → 1, +Y → 2, −Z → 5.
    assert_eq!(out.map(|f| f.colors[0][0]), [0.0, 1.0, 2.0, 5.0]);
    // A 2D program on a cube unit is refused before running.
    let p2 = quad_program("tex ft0, v0, fs0 <2d>\nmov oc, ft0");
    let q: [Fragment; 4] = Default::default();
    let e = interp::run_quads(&p2, &[], &t, std::slice::from_ref(&q)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "texture unit 0 holds a cube texture, the program samples it as 2D"
    );
    let e = interp::run_quads(&p2, &[], &NoTextures, &[q]).unwrap_err();
    assert!(e.to_string().contains("has no texture"));
}

#[test]
fn vertex_texture_fetch_uses_explicit_lod() {
    let mut t = CpuTextures::new();
    t.bind(1, test_texture()).unwrap();
    let text = ".vertex\n.version 4\ntld vt0, va0, vs1 <2d,nearest,mipnearest>\nmov op, vt0";
    // S1.w = 1 → level 1 (z = 100 + …); 2 → level 2.
    assert_eq!(
        vertex_with(text, &[], &[[0.0, 0.0, 0.0, 1.0]], &t).position[2],
        100.0
    );
    assert_eq!(
        vertex_with(text, &[], &[[0.0, 0.0, 0.0, 2.0]], &t).position[2],
        200.0
    );
    assert_eq!(
        vertex_with(text, &[], &[[0.9, 0.0, 0.0, 0.0]], &t).position[..3],
        [3.0, 0.0, 30.0]
    );
}

#[test]
fn ignoresampler_takes_the_unit_state() {
    use crate::agal::interp::UnitState;
    use crate::agal::sampling::{Filter, Mip, Wrap};
    let mut t = CpuTextures::new();
    t.bind(0, test_texture()).unwrap();
    t.set_state(
        0,
        UnitState {
            filter: Filter::Nearest,
            mip: Mip::None,
            wrap: Wrap::Repeat,
        },
    );
    let p = quad_program("tex ft0, v0, fs0 <2d,linear,clamp,ignoresampler>\nmov oc, ft0");
    let c = [[1.3, 0.0, 0.0, 0.0]; 4];
    // Runtime state: nearest + repeat → 1.3 wraps to texel 1.
    assert_eq!(quad_with(&p, &[], c, &t)[0].colors[0][0], 1.0);
}

#[test]
fn sin_cos_exact_points() {
    same(
        op1("sin", [0.0, std::f32::consts::FRAC_PI_2, -0.0, INF]),
        [0.0, 1.0, 0.0, NAN],
    );
    same(
        op1("cos", [0.0, std::f32::consts::PI, NAN, -INF]),
        [1.0, -1.0, NAN, NAN],
    );
    // sin of the f32 nearest π (0x40490FDB, above π by 8.742278e-8) is −8.742278e-8.
    let s = op1("sin", [std::f32::consts::PI; 4])[0];
    assert_eq!(s, -8.742278e-8);
    // Huge inputs stay in [−1, 1].
    for x in [1e30f32, -3.4e38, 1e10, 2.0e20] {
        let v = op1("sin", [x; 4])[0];
        assert!((-1.0..=1.0).contains(&v), "sin({x}) = {v}");
    }
}

/// Worst error over the inputs, in ulps; panics on a special-value mismatch.
fn worst(
    inputs: impl Iterator<Item = f32>,
    ours: fn(f32) -> f32,
    exact: fn(f64) -> f64,
) -> (f64, f32) {
    let mut w = (0.0, 0.0);
    for x in inputs {
        let e = ulp_error(ours(x), exact(f64::from(x)))
            .unwrap_or_else(|| panic!("special mismatch at {x:e}"));
        if e > w.0 {
            w = (e, x);
        }
    }
    w
}

/// sin and cos within 1 ulp (measured ≤ 0.5 + a little) over 400,000 sampled inputs in
/// (−2^20, 2^20), denser near 0, and around multiples of π/2 (the f64 `sin`/`cos` of the
/// standard library as reference; its error is ~2^-52 relative).
#[test]
fn sin_cos_accuracy() {
    let mut rng = fastrand::Rng::with_seed(0xA6A1_0300);
    let sample = |rng: &mut fastrand::Rng| -> f32 {
        match rng.u8(..4) {
            0 => (rng.f32() - 0.5) * 8.0,
            1 => (rng.f32() - 0.5) * 2.0e6,
            2 => {
                // Next to k·π/2.
                let k = rng.i32(-600_000..600_000) as f64;
                let x = (k * std::f64::consts::FRAC_PI_2) as f32;
                f32::from_bits(x.to_bits().wrapping_add(rng.u32(0..5)).wrapping_sub(2))
            }
            _ => f32::from_bits(rng.u32(0..0x4980_0000)) * if rng.bool() { 1.0 } else { -1.0 },
        }
    };
    let xs: Vec<f32> = (0..200_000).map(|_| sample(&mut rng)).collect();
    let (ws, xs_at) = worst(xs.iter().copied(), math::sin, f64::sin);
    let (wc, xc_at) = worst(xs.iter().copied(), math::cos, f64::cos);
    assert!(ws < 0.51, "sin: {ws} ulp at {xs_at:e}");
    assert!(wc < 0.51, "cos: {wc} ulp at {xc_at:e}");
}

/// pow within 1 ulp of |x|^y over 200,000 sampled (x, y) with finite results (f64 `powf` as
/// reference).
#[test]
fn pow_accuracy() {
    let mut rng = fastrand::Rng::with_seed(0xA6A1_0301);
    let mut worst = (0.0f64, 0.0f32, 0.0f32);
    for _ in 0..200_000 {
        let x = f32::from_bits(rng.u32(..0x7F80_0000));
        let y = (rng.f32() - 0.5) * if rng.bool() { 8.0 } else { 300.0 };
        let exact = f64::from(x).powf(f64::from(y));
        if !exact.is_finite() || exact == 0.0 {
            continue;
        }
        let e =
            ulp_error(math::pow(x, y), exact).unwrap_or_else(|| panic!("pow({x:e}, {y}) special"));
        if e > worst.0 {
            worst = (e, x, y);
        }
    }
    assert!(
        worst.0 < 0.51,
        "pow: {} ulp at ({:e}, {})",
        worst.0,
        worst.1,
        worst.2
    );
}

#[test]
fn wrong_kind_is_an_error() {
    let p = program(".fragment\n.version 1\nmov oc, fc0");
    let e = interp::run_vertices(&p, &[], &NoTextures, &[Vertex::default()]).unwrap_err();
    assert_eq!(e.to_string(), "a fragment program cannot run as vertex");
}

#[test]
fn reduction_constants_are_the_bits_of_pi_over_2() {
    assert_eq!(math::PIO2_1.to_bits(), 0x3FF9_21FB_5440_0000);
    assert_eq!(math::PIO2_2.to_bits(), 0x3DD0_B461_1A60_0000);
    assert_eq!(math::PIO2_3.to_bits(), 0x3BA3_198A_2E00_0000);
    // Their sum is π/2 to the last f64 bit.
    assert_eq!(
        math::PIO2_1 + math::PIO2_2 + math::PIO2_3,
        std::f64::consts::FRAC_PI_2
    );
}

/// The CPU sampler's one-call `tld` for four vertices is, lane for lane, the definition: each
/// vertex sampled alone (coordinate in all four lanes, explicit level of detail `.w`, lane 0).
#[test]
fn cpu_sampler_samples_four_vertices_as_four_single_ones() {
    use crate::agal::sampling::SamplerState;
    use crate::agal::token::SamplerField;
    let mut rng = fastrand::Rng::with_seed(41);
    let special = [
        0.0,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e-40,
        3e38,
        0.5,
        -1.25,
        2.0,
    ];
    let level = |rng: &mut fastrand::Rng, n: u32| Level {
        width: n,
        height: n,
        texels: (0..n * n)
            .map(|_| std::array::from_fn(|_| rng.f32()))
            .collect(),
    };
    let mut checked = 0;
    for case in 0..400 {
        let cube = case % 3 == 0;
        let field = SamplerField {
            reg: 0,
            bias: rng.i8(..),
            reg_type: 5,
            format: 0,
            dim: u8::from(cube),
            special: 0,
            wrap: if cube { 0 } else { rng.u8(..4) },
            mip: rng.u8(..3),
            filter: rng.u8(..2),
            reserved: 0,
        };
        let state = SamplerState::from_field(&field).unwrap();
        let faces = if cube { 6 } else { 1 };
        let texture = Texture {
            dim: if cube { Dim::Cube } else { Dim::TwoD },
            faces: (0..faces)
                .map(|_| (0..4).map(|l| level(&mut rng, 8 >> l)).collect())
                .collect(),
        };
        let mut t = CpuTextures::new();
        t.bind(0, texture).unwrap();
        let value = |rng: &mut fastrand::Rng| {
            if rng.bool() {
                special[rng.usize(..special.len())]
            } else {
                (rng.f32() - 0.5) * 6.0
            }
        };
        let coords: [[f32; 4]; 4] =
            std::array::from_fn(|_| std::array::from_fn(|_| value(&mut rng)));
        let got = t.sample_vertices(0, &state, &coords);
        for (k, c) in coords.iter().enumerate() {
            let want = t.sample(0, &state, &[*c; 4], interp::Lod::Explicit([c[3]; 4]))[0];
            for comp in 0..4 {
                assert!(
                    want[comp].to_bits() == got[k][comp].to_bits()
                        || (want[comp].is_nan() && got[k][comp].is_nan()),
                    "case {case} vertex {k}: {:?} vs {:?} ({state:?}, {c:?})",
                    got[k],
                    want
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 1600);
}
