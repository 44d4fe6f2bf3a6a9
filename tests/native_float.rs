//! The float rules of `picajit::float` on every native backend this host can run (each x86-64
//! tier; AArch64 in-process or under qemu-user), bit for bit (NaN equals NaN): EX2 and LG2
//! (whose f64 step sequence and constants each backend restates), RCP, RSQ, FLR, the PICA
//! multiply, MIN and MAX, over the special values and a sweep of the whole f32 space (every
//! 32768th bit pattern, shifted so each sample has different low mantissa bits).

use picajit::float;
use picajit_codegen::aarch64::{self, Kernel};
use picajit_codegen::abi::Context;
use picajit_codegen::code::{ExecCode, Vertex};
use picajit_codegen::ir::{Builder, Function, Op, Terminator, Verified};
use picajit_codegen::x64::{self, IoMode, Tier};

const SPECIAL: [u32; 22] = [
    0x0000_0000,
    0x8000_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFC0_1234,
    0x7F80_0001,
    0x0000_0001,
    0x807F_FFFF,
    0x0080_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x3F00_0000,
    0x7F7F_FFFF,
    0x4300_0000,
    0xC316_FFFF,
    0xC317_0000,
    0x4301_0000,
    0x3F3504F3,
    0x3FB504F3,
    0x4F00_0000,
    0xCF00_0001,
];

fn inputs() -> Vec<f32> {
    let mut xs: Vec<f32> = SPECIAL.iter().map(|&b| f32::from_bits(b)).collect();
    let mut k = 0u32;
    for i in 0..(1u64 << 17) {
        k = k.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        xs.push(f32::from_bits((i as u32) << 15 | (k >> 17)));
    }
    // Integers and halves around the EX2 clamp and the rounding of N.
    for n in -160..140 {
        xs.push(n as f32);
        xs.push(n as f32 + 0.5);
        xs.push(f32::from_bits((n as f32).to_bits() + 1));
    }
    xs
}

fn function(op: Op) -> Function {
    let mut b = Builder::new();
    let x = b.inst(Op::Input, &[], [0, 0]);
    let r = if op.args().len() == 2 {
        let y = b.inst(Op::Input, &[], [1, 0]);
        b.binary(op, x, y)
    } else {
        b.unary(op, x)
    };
    b.effect(Op::Output, &[r], [0, 0]);
    b.terminate(Terminator::Exit);
    b.finish()
}

/// Second operands: the inputs in another order.
fn partner(xs: &[f32]) -> Vec<f32> {
    xs.iter()
        .enumerate()
        .map(|(i, _)| xs[(i * 7919 + 13) % xs.len()])
        .collect()
}

type Runner = Box<dyn Fn(&Function, &[f32], &[f32]) -> Vec<f32>>;

fn backends() -> Vec<(&'static str, Runner)> {
    let mut all: Vec<(&'static str, Runner)> = Vec::new();
    for tier in [Tier::Sse41, Tier::Avx2] {
        if tier.host_supports() {
            all.push((
                if tier == Tier::Sse41 {
                    "x64-sse41"
                } else {
                    "x64-avx2"
                },
                Box::new(move |f, x, y| {
                    let f = Verified::new(f.clone()).unwrap();
                    let code =
                        ExecCode::new(&x64::compile(&f, tier, IoMode::Aos).unwrap()).unwrap();
                    run(tier.lanes(), x, y, |ctx, i, o, s| {
                        code.run_aos(ctx, i, o, s, None).expect("native run");
                    })
                }),
            ));
        }
    }
    if Kernel::host_supports() {
        all.push((
            "aarch64",
            Box::new(|f, x, y| {
                let f = Verified::new(f.clone()).unwrap();
                let code = Kernel::new(&aarch64::compile(&f, IoMode::Aos).unwrap()).unwrap();
                run(aarch64::LANES, x, y, |ctx, i, o, s| {
                    code.run_aos(ctx, i, o, s, None).expect("runs");
                })
            }),
        ));
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: the AArch64 backend cannot run (install qemu-user-static: make setup)"
        );
        eprintln!("SKIPPED: AArch64 (no qemu-aarch64-static; `make setup` installs it)");
    }
    all
}

fn run(
    w: usize,
    x: &[f32],
    y: &[f32],
    go: impl Fn(&mut Context, &[Vertex], &mut [Vertex], &mut [u32]),
) -> Vec<f32> {
    let n = x.len().div_ceil(w) * w;
    let mut input = vec![[[0.0f32; 4]; 16]; n];
    for (i, v) in input.iter_mut().enumerate() {
        v[0][0] = x.get(i).copied().unwrap_or(0.0);
        v[1][0] = y.get(i).copied().unwrap_or(0.0);
    }
    let mut output = vec![[[0.0f32; 4]; 16]; n];
    let mut status = vec![9u32; n / w];
    let mut ctx = Box::<Context>::default();
    ctx.io.budget = 10;
    go(&mut ctx, &input, &mut output, &mut status);
    assert!(status.iter().all(|&s| s == 0));
    output.iter().take(x.len()).map(|v| v[0][0]).collect()
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn check(op: Op, reference: impl Fn(f32, f32) -> f32) {
    let xs = inputs();
    let ys = partner(&xs);
    let f = function(op);
    for (name, backend) in backends() {
        let got = backend(&f, &xs, &ys);
        for (i, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
            let want = reference(x, y);
            assert!(
                same(got[i], want),
                "{name} {}({x:e} = {:#010x}, {y:e}): {:#010x}, want {:#010x}",
                op.name(),
                x.to_bits(),
                got[i].to_bits(),
                want.to_bits()
            );
        }
    }
}

#[test]
fn ex2_is_bit_exact() {
    check(Op::Ex2, |x, _| float::ex2(x));
}

#[test]
fn lg2_is_bit_exact() {
    check(Op::Lg2, |x, _| float::lg2(x));
}

#[test]
fn rcp_rsq_flr_are_bit_exact() {
    check(Op::Rcp, |x, _| float::rcp(x));
    check(Op::Rsq, |x, _| float::rsq(x));
    check(Op::Floor, |x, _| float::flr(x));
}

#[test]
fn pmul_min_max_are_bit_exact() {
    check(Op::PMul, float::pmul);
    check(Op::Max, float::max);
    check(Op::Min, float::min);
    check(Op::Add, |x, y| x + y);
}

#[test]
fn agal_transcendental_constants_are_the_interpreters() {
    use picajit::agal::interp::math;
    use picajit_codegen::x64::transcend as t;
    assert_eq!(t::TWO_OVER_PI, math::TWO_OVER_PI.to_bits());
    assert_eq!(
        t::PIO2,
        [math::PIO2_1, math::PIO2_2, math::PIO2_3].map(f64::to_bits)
    );
    assert_eq!(t::R_BOUND, math::SINCOS_R_BOUND.to_bits());
    assert_eq!(t::ROUND_MAGIC, math::ROUND_MAGIC.to_bits());
    let rev = |c: &[f64]| c.iter().rev().map(|x| x.to_bits()).collect::<Vec<u64>>();
    assert_eq!(t::SIN_COEFFS.to_vec(), rev(&math::SIN_C));
    assert_eq!(t::COS_COEFFS.to_vec(), rev(&math::COS_C));
}

/// Moderate arguments (where sin, cos and pow are accurate and their results not saturated),
/// on top of the sweep of the whole f32 space.
fn moderate(xs: &mut Vec<f32>, range: f32) {
    let mut k = 7u32;
    for _ in 0..40_000 {
        k = k.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        xs.push((f64::from(k >> 8) / f64::from(1u32 << 24) * 2.0 - 1.0) as f32 * range);
    }
    // Multiples of π/4 and their neighbours (quadrant boundaries).
    for n in -64..64 {
        let q = n as f32 * std::f32::consts::FRAC_PI_4;
        xs.extend([
            q,
            f32::from_bits(q.to_bits() + 1),
            f32::from_bits(q.to_bits().wrapping_sub(1)),
        ]);
    }
}

fn check_agal(op: Op, range: f32, reference: impl Fn(f32, f32) -> f32) {
    let mut xs = inputs();
    moderate(&mut xs, range);
    let mut ys = partner(&xs);
    // pow: second operands of ordinary size for most lanes.
    for (i, y) in ys.iter_mut().enumerate() {
        if i % 3 != 0 {
            *y = ((i % 97) as f32 - 48.0) / 6.0;
        }
    }
    let f = function(op);
    for (name, backend) in backends() {
        let got = backend(&f, &xs, &ys);
        for (i, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
            let want = reference(x, y);
            assert!(
                same(got[i], want),
                "{name} {}({x:e} = {:#010x}, {y:e}): {:#010x}, want {:#010x}",
                op.name(),
                x.to_bits(),
                got[i].to_bits(),
                want.to_bits()
            );
        }
    }
}

#[test]
fn agal_sin_cos_pow_are_bit_exact() {
    use picajit::agal::interp::math;
    check_agal(Op::Sin, 2000.0, |x, _| math::sin(x));
    check_agal(Op::Cos, 2000.0, |x, _| math::cos(x));
    check_agal(Op::Pow, 20.0, math::pow);
}
