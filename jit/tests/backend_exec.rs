//! Hand-built IR functions compiled by every backend this host can run — the x86-64 tiers it
//! has, and AArch64 (in-process on an AArch64 host, under qemu-user elsewhere; without qemu
//! these tests fail when `CI` is set and skip AArch64 loudly otherwise) — run on a batch
//! through the AoS and the SoA kernel, with the expected lane values written out. Whole PICA
//! programs are compared against the interpreter in the `picajit` crate's tests; these pin the
//! backends' own pieces.

use picajit_codegen::aarch64::{self, Kernel};
use picajit_codegen::abi::Context;
use picajit_codegen::code::{ExecCode, Vertex};
use picajit_codegen::ir::{Builder, CmpKind, Function, Op, Terminator, Ty, Verified};
use picajit_codegen::x64::{self, IoMode, Tier};

#[derive(Clone, Copy, Debug)]
enum Backend {
    X64(Tier),
    Aarch64,
}

impl Backend {
    fn all() -> Vec<Backend> {
        let mut all: Vec<Backend> = [Tier::Sse41, Tier::Avx2]
            .into_iter()
            .filter(|t| t.host_supports())
            .map(Backend::X64)
            .collect();
        if Kernel::host_supports() {
            all.push(Backend::Aarch64);
        } else {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI: qemu-aarch64-static is missing (make setup installs qemu-user-static)"
            );
            eprintln!("SKIPPED: no qemu-aarch64(-static): AArch64 execution tests did not run");
        }
        all
    }

    fn lanes(self) -> usize {
        match self {
            Backend::X64(tier) => tier.lanes(),
            Backend::Aarch64 => aarch64::LANES,
        }
    }

    /// Compiles `func`'s AoS kernel and runs it; returns the batches run.
    fn run_aos(
        self,
        func: &Function,
        ctx: &mut Context,
        input: &[Vertex],
        output: &mut [Vertex],
        status: &mut [u32],
    ) -> usize {
        match self {
            Backend::X64(tier) => {
                let code = ExecCode::new(
                    &x64::compile(&verified(func), tier, IoMode::Aos).expect("compiles"),
                )
                .expect("maps");
                code.run_aos(ctx, input, output, status, None)
                    .expect("runs")
            }
            Backend::Aarch64 => {
                let code =
                    Kernel::new(&aarch64::compile(&verified(func), IoMode::Aos).expect("compiles"))
                        .expect("runs here");
                code.run_aos(ctx, input, output, status, None)
                    .expect("runs")
            }
        }
    }

    /// Compiles `func`'s SoA kernel and runs it on `len` vertices of planes.
    fn run_soa(
        self,
        func: &Function,
        ctx: &mut Context,
        input: &[f32],
        output: &mut [f32],
        len: usize,
        status: &mut [u32],
    ) {
        match self {
            Backend::X64(tier) => {
                let code = ExecCode::new(
                    &x64::compile(&verified(func), tier, IoMode::Soa).expect("compiles"),
                )
                .expect("maps");
                code.run_soa(ctx, input, output, len, status).expect("runs");
            }
            Backend::Aarch64 => {
                let code =
                    Kernel::new(&aarch64::compile(&verified(func), IoMode::Soa).expect("compiles"))
                        .expect("runs here");
                code.run_soa(ctx, input, output, len, status).expect("runs");
            }
        }
    }
}

/// Runs `func` on every backend (AoS kernel) with input v0.x lanes = `x`, v1.x lanes = `y`,
/// returning o0.x per backend; `setup` prepares the context (uniform tables, ints, budget).
/// The SoA kernel must give the same lanes.
/// `func`, verified (what the backends compile).
fn verified(func: &Function) -> Verified {
    Verified::new(func.clone()).expect("verifies")
}

fn run(func: &Function, x: &[f32], y: &[f32], setup: impl Fn(&mut Context)) -> Vec<Vec<u32>> {
    let mut results = Vec::new();
    for backend in Backend::all() {
        let w = backend.lanes();
        let n = x.len().div_ceil(w) * w;
        let mut input = vec![[[0.0f32; 4]; 16]; n];
        for (i, v) in input.iter_mut().enumerate() {
            v[0][0] = x.get(i).copied().unwrap_or(0.0);
            v[1][0] = y.get(i).copied().unwrap_or(0.0);
        }
        let mut output: Vec<Vertex> = vec![[[f32::NAN; 4]; 16]; n];
        let mut status = vec![9u32; n / w];
        let mut ctx = Box::<Context>::default();
        ctx.io.budget = 1000;
        setup(&mut ctx);
        let batches = backend.run_aos(func, &mut ctx, &input, &mut output, &mut status);
        assert_eq!(batches, n / w, "{backend:?}");
        assert!(
            status.iter().all(|&s| s == 0),
            "{backend:?}: status {status:?}"
        );
        let mut out: Vec<u32> = output.iter().map(|v| v[0][0].to_bits()).collect();
        out.truncate(x.len());
        let mut planes_in = vec![0.0f32; 64 * n];
        for (i, v) in input.iter().enumerate() {
            planes_in[i] = v[0][0];
            planes_in[4 * n + i] = v[1][0];
        }
        let mut planes_out = vec![f32::NAN; 64 * n];
        let mut status = vec![9u32; n / w];
        backend.run_soa(func, &mut ctx, &planes_in, &mut planes_out, n, &mut status);
        let soa: Vec<u32> = planes_out[..x.len()].iter().map(|f| f.to_bits()).collect();
        assert_eq!(soa, out, "{backend:?}: SoA and AoS kernels agree");
        results.push(out);
    }
    results
}

fn binary_fn(op: Op) -> Function {
    let mut b = Builder::new();
    let x = b.inst(Op::Input, &[], [0, 0]);
    let y = b.inst(Op::Input, &[], [1, 0]);
    let r = b.binary(op, x, y);
    b.effect(Op::Output, &[r], [0, 0]);
    b.terminate(Terminator::Exit);
    b.finish()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

const INF: f32 = f32::INFINITY;

#[test]
fn pmul_sanitizes_zero_times_infinity_only() {
    let x = [0.0, INF, -0.0, f32::NAN, 2.0, -INF, 3.0, 1e30, 0.5];
    let y = [INF, 0.0, -INF, 0.0, -4.0, -0.0, f32::NAN, 1e30, -0.0];
    let want = [0.0, 0.0, 0.0, f32::NAN, -8.0, 0.0, f32::NAN, INF, -0.0];
    for got in run(&binary_fn(Op::PMul), &x, &y, |_| {}) {
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            if w.is_nan() {
                assert!(f32::from_bits(g).is_nan(), "lane {i}");
            } else {
                assert_eq!(g, w.to_bits(), "lane {i}");
            }
        }
    }
}

#[test]
fn max_min_follow_the_pica_operand_order() {
    let x = [1.0, 0.0, 0.0, f32::NAN, 0.0, -0.0, 0.0];
    let y = [0.0, 1.0, f32::NAN, 0.0, -0.0, 0.0, -INF];
    let max = [1.0, 1.0, f32::NAN, 0.0, -0.0, 0.0, 0.0];
    let min = [0.0, 0.0, f32::NAN, 0.0, -0.0, 0.0, -INF];
    for got in run(&binary_fn(Op::Max), &x, &y, |_| {}) {
        assert_eq!(got[..2], bits(&max)[..2]);
        assert!(f32::from_bits(got[2]).is_nan());
        assert_eq!(got[3..], bits(&max)[3..]);
    }
    for got in run(&binary_fn(Op::Min), &x, &y, |_| {}) {
        assert_eq!(got[..2], bits(&min)[..2]);
        assert!(f32::from_bits(got[2]).is_nan());
        assert_eq!(got[3..], bits(&min)[3..]);
    }
}

#[test]
fn compares_and_selects() {
    for (kind, want) in [
        (CmpKind::Eq, [0.0, 1.0, 0.0, 0.0]),
        (CmpKind::Ne, [1.0, 0.0, 1.0, 1.0]),
        (CmpKind::Lt, [1.0, 0.0, 0.0, 0.0]),
        (CmpKind::Le, [1.0, 1.0, 0.0, 0.0]),
        (CmpKind::Gt, [0.0, 0.0, 0.0, 1.0]),
        (CmpKind::Ge, [0.0, 1.0, 0.0, 1.0]),
        (CmpKind::True, [1.0, 1.0, 1.0, 1.0]),
    ] {
        let mut b = Builder::new();
        let x = b.inst(Op::Input, &[], [0, 0]);
        let y = b.inst(Op::Input, &[], [1, 0]);
        let m = b.cmp(kind, x, y);
        let one = b.fconst(1.0);
        let zero = b.fconst(0.0);
        let r = b.select(m, one, zero);
        b.effect(Op::Output, &[r], [0, 0]);
        let f = b.finish();
        for got in run(
            &f,
            &[1.0, 2.0, f32::NAN, 5.0],
            &[2.0, 2.0, 1.0, -1.0],
            |_| {},
        ) {
            assert_eq!(got, bits(&want), "{kind:?}");
        }
    }
}

#[test]
fn floor_rcp_rsq_and_conversion() {
    let unary = |op: Op| {
        let mut b = Builder::new();
        let x = b.inst(Op::Input, &[], [0, 0]);
        let r = b.unary(op, x);
        b.effect(Op::Output, &[r], [0, 0]);
        b.finish()
    };
    let x = [0.5, -0.5, 1.5, -1.5, -0.0, INF, 16.0, -2.0];
    for got in run(&unary(Op::Floor), &x, &[], |_| {}) {
        assert_eq!(got, bits(&[0.0, -1.0, 1.0, -2.0, -0.0, INF, 16.0, -2.0]));
    }
    for got in run(&unary(Op::Rcp), &x, &[], |_| {}) {
        assert_eq!(
            got,
            bits(&[2.0, -2.0, 1.0 / 1.5, -1.0 / 1.5, -INF, 0.0, 0.0625, -0.5])
        );
    }
    for got in run(
        &unary(Op::Rsq),
        &[4.0, 16.0, -0.0, INF, 0.0, 2.0],
        &[],
        |_| {},
    ) {
        assert_eq!(got, bits(&[0.5, 0.25, -INF, 0.0, INF, 1.0 / 2f32.sqrt()]));
    }
    // ftoi.sat is observed through the per-lane uniform index it feeds (uniform c_n.x = n).
    let mut b = Builder::new();
    let x = b.inst(Op::Input, &[], [0, 0]);
    let i = b.unary(Op::FtoiSat, x);
    let u = b.inst(Op::UniformIdx, &[i], [0, 0]);
    b.effect(Op::Output, &[u], [0, 0]);
    b.terminate(Terminator::Exit);
    let f = b.finish();
    let setup = |ctx: &mut Context| {
        for (n, u) in ctx.uniforms.iter_mut().enumerate().take(96) {
            u[0] = n as f32;
        }
    };
    // trunc: 2.9 → 2; -1.5 → -1 → index 127 (ones); NaN → 0; 1e10 saturates → offset ignored → 0;
    // 95.99 → 95; -0.5 → 0; 127.5 → 127 → ones; -128.2 → -128 → index 0.
    let x = [2.9, -1.5, f32::NAN, 1e10, 95.99, -0.5, 127.5, -128.2];
    for got in run(&f, &x, &[], setup) {
        assert_eq!(got, bits(&[2.0, 1.0, 0.0, 0.0, 95.0, 0.0, 1.0, 0.0]));
    }
}

#[test]
fn loops_al_and_budget() {
    // loop.push slot 0 from i1 (count 3, start 5, step 2); body: acc += uniform.al c0.x;
    // al.inc; loop.next. Budget on the back edge. Output acc.
    let mut b = Builder::new();
    b.use_loop_slots(1);
    let acc = b.var(Ty::F32);
    b.inst_to(Op::FConst, acc, &[], [0f32.to_bits(), 0]);
    b.effect(Op::LoopPush, &[], [0, 1]);
    let body = b.block();
    let back = b.block();
    let exit = b.block();
    b.terminate(Terminator::Jump(body));
    b.switch_to(body);
    let u = b.inst(Op::UniformAl, &[], [0, 0]);
    b.inst_to(Op::Add, acc, &[acc, u], [0, 0]);
    b.effect(Op::AlInc, &[], [0, 0]);
    b.terminate(Terminator::LoopNext {
        slot: 0,
        repeat: back,
        exit,
    });
    b.switch_to(back);
    b.effect(Op::Budget, &[], [0, 0]);
    b.terminate(Terminator::Jump(body));
    b.switch_to(exit);
    b.effect(Op::Output, &[acc], [0, 0]);
    b.terminate(Terminator::Exit);
    let f = b.finish();
    let setup = |budget: u32| {
        move |ctx: &mut Context| {
            for (n, u) in ctx.uniforms.iter_mut().enumerate().take(96) {
                u[0] = n as f32;
            }
            ctx.scalars.ints[1] = [3, 5, 2, 0];
            ctx.io.budget = budget;
        }
    };
    // aL = 5, 7, 9, 11 (4 passes): 5 + 7 + 9 + 11 = 32.
    for got in run(&f, &[0.0; 3], &[], setup(100)) {
        assert_eq!(got, bits(&[32.0; 3]));
    }
    // Three back edges are needed: a budget of 2 stops before the output is written.
    for backend in Backend::all() {
        let w = backend.lanes();
        let all = picajit_codegen::abi::all_exhausted(w);
        for (budget, want) in [(3, 0u32), (2, all)] {
            let mut ctx = Box::<Context>::default();
            setup(budget)(&mut ctx);
            let input = vec![[[0.0f32; 4]; 16]; 2 * w];
            let mut output = vec![[[f32::NAN; 4]; 16]; 2 * w];
            let mut status = [9u32; 2];
            backend.run_aos(&f, &mut ctx, &input, &mut output, &mut status);
            // Each batch starts with the full budget again.
            assert_eq!(status, [want; 2], "{backend:?} budget {budget}");
            // A batch that ran out stopped before writing o0: its staging stayed cleared.
            let expected = if want == 0 { 32.0 } else { 0.0 };
            assert!(
                output.iter().all(|v| v[0][0] == expected),
                "{backend:?} budget {budget}"
            );
        }
    }
}

#[test]
fn many_live_values_spill_and_come_back() {
    // 40 values live at once (more than the 11 registers): o0.x = sum of v0.x * k for k = 1..40.
    let mut b = Builder::new();
    let x = b.inst(Op::Input, &[], [0, 0]);
    let vals: Vec<_> = (1..=40)
        .map(|k| {
            let c = b.fconst(k as f32);
            b.binary(Op::Mul, x, c)
        })
        .collect();
    let mut acc = b.fconst(0.0);
    for v in vals {
        acc = b.binary(Op::Add, acc, v);
    }
    b.effect(Op::Output, &[acc], [0, 0]);
    let f = b.finish();
    for got in run(&f, &[1.0, 2.0, -1.0, 0.5], &[], |_| {}) {
        assert_eq!(got, bits(&[820.0, 1640.0, -820.0, 410.0]));
    }
}

#[test]
fn div_and_sqrt_are_ieee() {
    let x = [1.0, -3.0, 0.0, -0.0, INF, 7.0, f32::MIN_POSITIVE, 2.0];
    let y = [3.0, 0.0, 0.0, 5.0, INF, -0.0, 4.0, 3.0];
    for got in run(&binary_fn(Op::Div), &x, &y, |_| {}) {
        let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a / b).collect();
        // Written out: 1/3 rounded, -3/0 = -inf, 0/0 = NaN, -0/5 = -0, inf/inf = NaN,
        // 7/-0 = -inf, a subnormal quotient kept, 2/3 rounded.
        assert_eq!(want[1], -INF);
        assert!(want[2].is_nan() && want[4].is_nan());
        assert_eq!(want[3].to_bits(), 0x8000_0000);
        assert_eq!(want[6].to_bits(), 0x0020_0000);
        for (g, w) in got.iter().zip(&want) {
            assert!(
                *g == w.to_bits() || (f32::from_bits(*g).is_nan() && w.is_nan()),
                "{g:#x} vs {w}"
            );
        }
    }
    let mut b = Builder::new();
    let v = b.inst(Op::Input, &[], [0, 0]);
    let r = b.unary(Op::Sqrt, v);
    b.effect(Op::Output, &[r], [0, 0]);
    let f = b.finish();
    let x = [4.0, 2.0, -0.0, INF, -1.0, 1e-40, 0.0, 9.0];
    for got in run(&f, &x, &[], |_| {}) {
        assert_eq!(got[..4], bits(&[2.0, 2f32.sqrt(), -0.0, INF]));
        assert!(f32::from_bits(got[4]).is_nan());
        assert_eq!(got[5..], bits(&[1e-40f32.sqrt(), 0.0, 3.0]));
    }
}

#[test]
fn constant_table_direct_and_per_lane_with_range_check() {
    // const c200.z broadcast, plus const.idx at trunc(x) + 3: entries n have .y = n + 0.5.
    let setup = |ctx: &mut Context| {
        for (n, c) in ctx.constants.iter_mut().enumerate().take(256) {
            *c = [0.0, n as f32 + 0.5, 0.0, 0.0];
        }
        ctx.constants[200][2] = 42.0;
    };
    let mut b = Builder::new();
    let x = b.inst(Op::Input, &[], [0, 0]);
    let i = b.unary(Op::FtoiSat, x);
    let g = b.inst(Op::ConstIdx, &[i], [3, 1]);
    let c = b.inst(Op::Const, &[], [200, 2]);
    let s = b.binary(Op::Add, g, c);
    b.effect(Op::Output, &[s], [0, 0]);
    let f = b.finish();
    // Indices: 0+3, 252+3, 253+3 (out: 0), -3+3, -4+3 (out), NaN→0 → 3, 1e10 saturates → out,
    // 100.7 → 103.
    let x = [0.0, 252.0, 253.0, -3.9, -4.0, f32::NAN, 1e10, 100.7];
    for got in run(&f, &x, &[], setup) {
        assert_eq!(
            got,
            bits(&[45.5, 297.5, 42.0, 42.5, 42.0, 45.5, 42.0, 145.5])
        );
    }
}
