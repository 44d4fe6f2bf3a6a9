//! Latency scheduling on special values: a vertex shader whose normalization chain (`rsq` of a
//! dot product, multiplies by it, `rcp` and `rsq` after them) comes after independent transform
//! work, which every backend's scheduler moves the chain ahead of (asserted on the engine's IR
//! through `x64::emitted_order` and `aarch64::emitted_order`), run with NaN, ±inf, ±0 and
//! subnormal operands on every engine: each must match the interpreter bit for bit, and the
//! interpreter the chain worked out with `picajit::float`.

mod common;

use common::*;
use picajit::engine::{Backend, Engine};
use picajit::float;
use picajit::program::{Regs16, Uniforms, Vec4};
use picajit_codegen::ir::{Inst, Op, Verified};
use picajit_codegen::{aarch64, x64};

/// Operands, as bit patterns: ±0, ±inf, NaN, subnormals of both signs and sizes, the smallest
/// normal, ordinary values and the largest finite one.
const SPECIAL: [u32; 13] = [
    0x0000_0000,
    0x8000_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0x0000_0001,
    0x007F_FFFF,
    0x8000_0003,
    0x0080_0000,
    0x3F80_0000,
    0xC080_0000,
    0x4F00_0000,
    0x7F7F_FFFF,
];

/// Position before normalization, as a vertex shader writes them (few output components, so
/// that the original order fits in the registers of every backend, which the pass asks):
///
/// ```text
/// [0]  dp4 o1.x, c0, v2     ; transform (c0, c1: the identity's first rows)
/// [1]  dp4 o1.y, c1, v2
/// [2]  dp3 r0.x, v0, v0     ; |n|²
/// [3]  rsq r0.x, r0.x       ; 1/|n|
/// [4]  mul r1.xw, v0, r0.x  ; n/|n|
/// [5]  rcp r2.x, v1.x       ; 1/b
/// [6]  mul r3.xw, r1, r2.x
/// [7]  rsq r4.x, r3.x
/// [8]  mov o0.xw, r1
/// [9]  mul o2.xw, r3, r4.x
/// [10] rcp o3.x, r4.x
/// [11] end
/// ```
fn program() -> picajit::Program {
    let mut b = Builder::new();
    for (k, m) in ["x", "y"].into_iter().enumerate() {
        b.dp4(o(1).mask(m), c(k as u8), v(2));
    }
    b.dp3(r(0).mask("x"), v(0), v(0))
        .rsq(r(0).mask("x"), r(0).swz("x"))
        .mul(r(1).mask("xw"), v(0), r(0).swz("x"))
        .rcp(r(2).mask("x"), v(1).swz("x"))
        .mul(r(3).mask("xw"), r(1), r(2).swz("x"))
        .rsq(r(4).mask("x"), r(3).swz("x"))
        .mov(o(0).mask("xw"), r(1))
        .mul(o(2).mask("xw"), r(3), r(4).swz("x"))
        .rcp(o(3).mask("x"), r(4).swz("x"))
        .end();
    b.program()
}

/// The written components of o0..o3 for v0 = (x, 0, 0, x), v1 = splat(y), v2 = `pos`, with
/// c0 and c1 the identity's first rows: o0.xw, o1.xy, o2.xw, o3.x.
fn expected(x: f32, y: f32, pos: Vec4) -> [Vec<f32>; 4] {
    // dp3: the x product plus two products of zeros (+0 each).
    let len2 = float::pmul(x, x) + float::pmul(0.0, 0.0) + float::pmul(0.0, 0.0);
    let r1 = float::pmul(x, float::rsq(len2));
    let r3 = float::pmul(r1, float::rcp(y));
    let r4 = float::rsq(r3);
    let o2 = float::pmul(r3, r4);
    let o3 = float::rcp(r4);
    [vec![r1, r1], pos[..2].to_vec(), vec![o2, o2], vec![o3]]
}

/// The components `expected` lists of each output.
const WRITTEN: [&[usize]; 4] = [&[0, 3], &[0, 1], &[0, 3], &[0]];

/// Whether `order` starts the first `rsq` earlier than `original` does.
fn rsq_earlier(original: &[Inst], order: &[Inst]) -> bool {
    let first = |insts: &[Inst]| insts.iter().position(|i| i.op == Op::Rsq);
    matches!((first(original), first(order)), (Some(a), Some(b)) if b < a)
}

/// The IR the engine compiles `program` from (lowering never depends on the backend: the first
/// native one this host runs makes it).
fn ir(program: &picajit::Program) -> Verified {
    let native = Backend::runnable()
        .into_iter()
        .find(|&b| b != Backend::Interp);
    let engine = Engine::new(native.expect("a native backend")).expect("runnable backend");
    let shader = engine.compile(program);
    shader.ir().expect("compiled natively").clone()
}

#[test]
fn every_backend_reorders_the_chain() {
    let func = ir(&program());
    let original = &func.blocks[0].insts;
    for tier in [x64::Tier::Sse41, x64::Tier::Avx2, x64::Tier::Avx512] {
        let kept = || panic!("{tier:?} keeps the order of\n{func}");
        let order = x64::emitted_order(&func, tier).unwrap_or_else(kept);
        assert!(rsq_earlier(original, &order), "{tier:?}: {order:#?}");
    }
    let kept = || panic!("aarch64 keeps the order of\n{func}");
    let order = aarch64::emitted_order(&func).unwrap_or_else(kept);
    assert!(rsq_earlier(original, &order), "aarch64: {order:#?}");
}

#[test]
fn special_values_through_the_reordered_chain_match_the_interpreter() {
    let mut u = Uniforms::default();
    for k in 0..2 {
        u.f[k] = std::array::from_fn(|i| if i == k { 1.0 } else { 0.0 });
    }
    let mut cases = Vec::new();
    let mut inputs: Vec<Regs16> = Vec::new();
    let special = SPECIAL.map(f32::from_bits);
    for (i, &x) in special.iter().enumerate() {
        for (j, &y) in special.iter().enumerate() {
            let pos = [1.5 + i as f32, -2.0 - j as f32, 0.25, 1.0];
            inputs.push(vecs(&[[x, 0.0, 0.0, x], [y; 4], pos]));
            cases.push((x, y, pos));
        }
    }
    let outs = run_ok(&program(), &u, &inputs);
    for (&(x, y, pos), out) in cases.iter().zip(&outs) {
        let want = expected(x, y, pos);
        for (k, (w, comps)) in want.iter().zip(WRITTEN).enumerate() {
            let got: Vec<f32> = comps.iter().map(|&i| out[k][i]).collect();
            check_bits(&got, w, &format!("o{k} with x = {x:?}, y = {y:?}"));
        }
    }
}
