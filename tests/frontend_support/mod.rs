//! Shared by the frontend tests: an instruction builder, special floats, and the differential
//! check interpreter vs (lower → eval).

#![allow(dead_code)]

use picajit::engine::{Backend, Engine, SoaBuffer};
use picajit::frontend::{self, eval, Lowered};
use picajit::interp::{Interpreter, Invocation};
use picajit::isa::*;
use picajit::program::{Program, Regs16, ShaderKind, Uniforms, VertexStatus};

/// Descriptor with a write mask and identity swizzles.
pub fn desc(mask: u8) -> u32 {
    OpDesc::new(mask, [SrcMod::IDENTITY; 3]).0
}

/// Descriptor from a mask and three (negate, selector-string) pairs like `"xyzw"`.
pub fn desc_sw(mask: u8, srcs: [(bool, &str); 3]) -> u32 {
    let m = srcs.map(|(neg, sw)| {
        let sel: Vec<u8> = sw
            .chars()
            .map(|c| match c {
                'x' => 0,
                'y' => 1,
                'z' => 2,
                _ => 3,
            })
            .collect();
        SrcMod {
            negate: neg,
            select: [sel[0], sel[1], sel[2], sel[3]],
        }
    });
    OpDesc::new(mask, m).0
}

pub fn v(n: u8) -> Src {
    Src::input(n)
}
pub fn r(n: u8) -> Src {
    Src::temp(n)
}
pub fn c(n: u8) -> Src {
    Src::uniform(n)
}
pub fn o(n: u8) -> Dst {
    Dst::output(n)
}
pub fn rd(n: u8) -> Dst {
    Dst::temp(n)
}

/// Format-1 instruction (`op dst, src1 (wide), src2`).
pub fn f1(op: fn(Fmt1) -> Instruction, dst: Dst, s1: Src, s2: Src, d: u8) -> u32 {
    assert!(s2.fits_narrow(), "src2 of format 1 is narrow");
    op(Fmt1 {
        dst,
        idx: AddrIdx::None,
        src1: s1,
        src2: s2,
        desc: d,
    })
    .encode()
}

/// Format-1 with relative addressing of src1.
pub fn f1x(op: fn(Fmt1) -> Instruction, dst: Dst, s1: Src, idx: AddrIdx, s2: Src, d: u8) -> u32 {
    assert!(s2.fits_narrow(), "src2 of format 1 is narrow");
    op(Fmt1 {
        dst,
        idx,
        src1: s1,
        src2: s2,
        desc: d,
    })
    .encode()
}

/// Format-1u instruction.
pub fn f1u(op: fn(Fmt1u) -> Instruction, dst: Dst, s1: Src, d: u8) -> u32 {
    op(Fmt1u {
        dst,
        idx: AddrIdx::None,
        src1: s1,
        desc: d,
    })
    .encode()
}

/// Format-1u with relative addressing.
pub fn f1ux(op: fn(Fmt1u) -> Instruction, dst: Dst, s1: Src, idx: AddrIdx, d: u8) -> u32 {
    op(Fmt1u {
        dst,
        idx,
        src1: s1,
        desc: d,
    })
    .encode()
}

/// Format-1i instruction (src2 wide).
pub fn f1i(op: fn(Fmt1i) -> Instruction, dst: Dst, s1: Src, s2: Src, d: u8) -> u32 {
    assert!(s1.fits_narrow(), "src1 of format 1i is narrow");
    op(Fmt1i {
        dst,
        idx: AddrIdx::None,
        src1: s1,
        src2: s2,
        desc: d,
    })
    .encode()
}

pub fn cmp(x: CmpOp, y: CmpOp, s1: Src, s2: Src, d: u8) -> u32 {
    assert!(s2.fits_narrow(), "src2 of CMP is narrow");
    Instruction::Cmp(Fmt1c {
        cmpx: x,
        cmpy: y,
        idx: AddrIdx::None,
        src1: s1,
        src2: s2,
        desc: d,
    })
    .encode()
}

pub fn mad(dst: Dst, s1: Src, s2: Src, s3: Src, d: u8) -> u32 {
    assert!(
        s1.fits_narrow() && s3.fits_narrow(),
        "src1/src3 of MAD are narrow"
    );
    Instruction::Mad(Fmt5 {
        dst,
        idx: AddrIdx::None,
        src1: s1,
        src2: s2,
        src3: s3,
        desc: d,
    })
    .encode()
}

pub fn madi(dst: Dst, s1: Src, s2: Src, s3: Src, d: u8) -> u32 {
    assert!(
        s1.fits_narrow() && s2.fits_narrow(),
        "src1/src2 of MADI are narrow"
    );
    Instruction::Madi(Fmt5i {
        dst,
        idx: AddrIdx::None,
        src1: s1,
        src2: s2,
        src3: s3,
        desc: d,
    })
    .encode()
}

pub fn end() -> u32 {
    Instruction::End(Fmt0).encode()
}
pub fn nop() -> u32 {
    Instruction::Nop(Fmt0).encode()
}
pub fn brk() -> u32 {
    Instruction::Break(Fmt0).encode()
}

/// A format-3 bool instruction (IFU, CALLU, JMPU).
pub fn f3b(op: fn(Fmt3b) -> Instruction, id: u8, dest: u16, num: u8) -> u32 {
    op(Fmt3b { id, dest, num }).encode()
}

/// A format-2 instruction (IFC, CALLC, JMPC, BREAKC, CALL).
pub fn f2(
    op: fn(Fmt2) -> Instruction,
    refx: bool,
    refy: bool,
    condop: CondOp,
    dest: u16,
    num: u8,
) -> u32 {
    op(Fmt2 {
        refx,
        refy,
        condop,
        dest,
        num,
    })
    .encode()
}

pub fn call(dest: u16, num: u8) -> u32 {
    f2(Instruction::Call, false, false, CondOp::Or, dest, num)
}

pub fn lp(id: u8, dest: u16) -> u32 {
    Instruction::Loop(Fmt3i { id, dest, num: 0 }).encode()
}

/// Float values that exercise every rule: zeros, infinities, NaN payloads, subnormals, …
pub const SPECIAL: [u32; 20] = [
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x7FC0_0000, // qNaN
    0xFFC0_1234, // -qNaN payload
    0x7F80_0001, // sNaN
    0x0000_0001, // smallest subnormal
    0x807F_FFFF, // -largest subnormal
    0x0080_0000, // smallest normal
    0x3F80_0000, // 1
    0xBF80_0000, // -1
    0x3F00_0000, // 0.5
    0x7F7F_FFFF, // max
    0x4300_0000, // 128
    0xC2FF_FFFF, // ≈ -127.99999
    0x42FF_FF80, // 127.99609375 (LITP bound)
    0x3FC0_0000, // 1.5
    0xC0A0_0000, // -5
    0x4F00_0000, // 2^31
];

/// A float drawn to hit special values half of the time.
pub fn special_float(rng: &mut fastrand::Rng) -> f32 {
    match rng.u8(0..4) {
        0 | 1 => f32::from_bits(SPECIAL[rng.usize(..SPECIAL.len())]),
        2 => (rng.f32() - 0.5) * 8.0,
        _ => f32::from_bits(rng.u32(..)),
    }
}

/// Random uniforms: floats as above, small loop counts, any bools.
pub fn random_uniforms(rng: &mut fastrand::Rng) -> Uniforms {
    let mut u = Uniforms::default();
    for c in u.f.iter_mut() {
        *c = std::array::from_fn(|_| special_float(rng));
    }
    for i in u.i.iter_mut() {
        *i = [rng.u8(0..5), rng.u8(..), rng.u8(..), rng.u8(..)];
    }
    u.b = rng.u16(..);
    u
}

pub fn random_inputs(rng: &mut fastrand::Rng, n: usize) -> Vec<Regs16> {
    (0..n)
        .map(|_| std::array::from_fn(|_| std::array::from_fn(|_| special_float(rng))))
        .collect()
}

/// Inputs of `n` vertices with v0..v3 = small distinct values and the rest special.
pub fn ramp_inputs(n: usize) -> Vec<Regs16> {
    (0..n)
        .map(|k| {
            std::array::from_fn(|reg| {
                std::array::from_fn(|comp| {
                    if reg < 4 {
                        k as f32 * 0.5 - 1.0 + comp as f32 * 0.25 + reg as f32
                    } else {
                        f32::from_bits(SPECIAL[(k + reg * 4 + comp) % SPECIAL.len()])
                    }
                })
            })
        })
        .collect()
}

pub fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// The first (register, component) where two output sets differ (NaN equals NaN).
pub fn first_difference(a: &Regs16, b: &Regs16) -> Option<(usize, usize)> {
    (0..64)
        .map(|k| (k / 4, k % 4))
        .find(|&(r, c)| !same(a[r][c], b[r][c]))
}

/// Interpreter vs (lower → eval) on every vertex; the lowered function on success.
pub fn check(
    program: &Program,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
) -> Result<Lowered, String> {
    let lowered = frontend::lower(program).map_err(|e| format!("not lowered: {e}"))?;
    compare(&lowered, program, uniforms, inputs, budget)?;
    Ok(lowered)
}

/// Compares an already lowered program with the interpreter (the IR evaluator and every
/// native backend).
pub fn compare(
    lowered: &Lowered,
    program: &Program,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
) -> Result<(), String> {
    compare_with(lowered, program, uniforms, inputs, budget, true)
}

/// [`compare`], with the slow engines (AArch64 under qemu, the x86-64 tiers this CPU only
/// emulates) only if `slow`.
pub fn compare_with(
    lowered: &Lowered,
    program: &Program,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
    slow: bool,
) -> Result<(), String> {
    let interp = Interpreter::new(program).with_budget(budget);
    if program.kind == ShaderKind::Geometry {
        // Outputs, status and triangles of every invocation.
        let got = eval::run_geometry(&lowered.func, uniforms, inputs, budget);
        for (n, (input, got)) in inputs.iter().zip(&got).enumerate() {
            let want = interp.run_vertex(uniforms, input);
            if let Some(why) = invocation_difference(&want, got) {
                return Err(format!("vertex {n} (ir): {why}\n{}", lowered.func));
            }
        }
        return compare_native_on(program, uniforms, inputs, budget, slow);
    }
    let got = eval::run(&lowered.func, uniforms, inputs, budget);
    for (n, (input, (outs, status))) in inputs.iter().zip(&got).enumerate() {
        let want = interp.run_vertex(uniforms, input);
        if want.status != *status {
            return Err(format!(
                "vertex {n}: status {:?} (interp) vs {status:?} (ir)\n{}",
                want.status, lowered.func
            ));
        }
        if let Some((reg, comp)) = first_difference(&want.outputs, outs) {
            let (a, b) = (want.outputs[reg][comp], outs[reg][comp]);
            return Err(format!(
                "vertex {n}: o{reg}.{} = {a:?} ({:#010x}) (interp) vs {b:?} ({:#010x}) (ir)\n{}",
                ["x", "y", "z", "w"][comp],
                a.to_bits(),
                b.to_bits(),
                lowered.func
            ));
        }
    }
    compare_native_on(program, uniforms, inputs, budget, slow)
}

/// Every native backend this host can run — the x86-64 tiers it has and AArch64 (natively or
/// through qemu-user) — through the engine API (AoS, and SoA on AVX2 and AArch64), against the
/// interpreter: statuses and outputs bit for bit, the emulated x86-64 tiers included.
pub fn compare_native(
    program: &Program,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
) -> Result<(), String> {
    compare_native_on(program, uniforms, inputs, budget, true)
}

/// [`compare_native`], with the slow engines only if `slow`: AArch64 on a host that runs it
/// under qemu, and the x86-64 tiers this CPU lacks, which the test build's emulator runs
/// thousands of times slower (the random suites run them on a fixed subset of their programs).
pub fn compare_native_on(
    program: &Program,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
    slow: bool,
) -> Result<(), String> {
    let available = Backend::runnable();
    let emulated = Backend::emulated();
    if slow && !available.contains(&Backend::Aarch64) {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: the AArch64 backend cannot run (install qemu-user-static: make setup)"
        );
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            eprintln!("SKIPPED: AArch64 in compare_native (no qemu-aarch64-static; `make setup`)")
        });
    }
    let interp = Interpreter::new(program).with_budget(budget);
    let want: Vec<_> = inputs
        .iter()
        .map(|i| interp.run_vertex(uniforms, i))
        .collect();
    for backend in available {
        let is_slow = emulated.contains(&backend)
            || (backend == Backend::Aarch64 && !cfg!(target_arch = "aarch64"));
        if backend == Backend::Interp || (is_slow && !slow) {
            continue;
        }
        let engine = Engine::new(backend)
            .expect("available")
            .with_budget(budget)
            .with_background_compile(false);
        let shader = engine.compile(program);
        let n = inputs.len();
        let mut runs = Vec::new();
        let mut outs = vec![[[0.0f32; 4]; 16]; n];
        let mut status = vec![VertexStatus::Ended; n];
        let _ = shader.run(uniforms, inputs, &mut outs, &mut status);
        runs.push(("aos", outs, status.clone()));
        if matches!(
            backend,
            Backend::X64Avx2 | Backend::X64Avx512 | Backend::Aarch64
        ) {
            let mut soa = SoaBuffer::new(n);
            let _ = shader.run_soa(
                uniforms,
                &SoaBuffer::from_aos(inputs),
                &mut soa,
                &mut status,
            );
            runs.push(("soa", soa.to_aos(), status.clone()));
        }
        if program.kind == ShaderKind::Geometry {
            let (got, _) = shader.run_geometry(uniforms, inputs);
            for (v, (w, g)) in want.iter().zip(&got).enumerate() {
                if let Some(why) = invocation_difference(w, g) {
                    return Err(format!(
                        "{} run_geometry ({}): vertex {v}: {why}",
                        backend.name(),
                        shader.path()
                    ));
                }
            }
        }
        if backend == Backend::Aarch64 && picajit_codegen::aarch64::runner::failures() != 0 {
            return Err(
                "the qemu job server failed (the engine fell back to the interpreter)".into(),
            );
        }
        for (io, outs, status) in runs {
            for (v, w) in want.iter().enumerate() {
                if w.status != status[v] {
                    return Err(format!(
                        "{} {io} ({}): vertex {v}: status {:?} (interp) vs {:?}",
                        backend.name(),
                        shader.path(),
                        w.status,
                        status[v]
                    ));
                }
                if let Some((reg, comp)) = first_difference(&w.outputs, &outs[v]) {
                    return Err(format!(
                        "{} {io} ({}): vertex {v}: o{reg}.{comp} = {:#010x} (interp) vs {:#010x}",
                        backend.name(),
                        shader.path(),
                        w.outputs[reg][comp].to_bits(),
                        outs[v][reg][comp].to_bits()
                    ));
                }
            }
        }
    }
    Ok(())
}

/// How invocation `got` differs from the interpreter's `want` (status, outputs, triangles in
/// order with their windings, bit for bit), if it does.
pub fn invocation_difference(want: &Invocation, got: &Invocation) -> Option<String> {
    if want.status != got.status {
        return Some(format!(
            "status {:?} (interp) vs {:?}",
            want.status, got.status
        ));
    }
    if let Some((reg, comp)) = first_difference(&want.outputs, &got.outputs) {
        return Some(format!(
            "o{reg}.{comp} = {:#010x} (interp) vs {:#010x}",
            want.outputs[reg][comp].to_bits(),
            got.outputs[reg][comp].to_bits()
        ));
    }
    if want.primitives.len() != got.primitives.len() {
        return Some(format!(
            "{} triangles (interp) vs {}",
            want.primitives.len(),
            got.primitives.len()
        ));
    }
    for (t, (p, q)) in want.primitives.iter().zip(&got.primitives).enumerate() {
        if p.winding != q.winding {
            return Some(format!(
                "triangle {t}: winding {} (interp) vs {}",
                p.winding, q.winding
            ));
        }
        for (k, (a, b)) in p.vertices.iter().zip(&q.vertices).enumerate() {
            if let Some((reg, comp)) = first_difference(a, b) {
                return Some(format!(
                    "triangle {t} vertex {k}: o{reg}.{comp} = {:#010x} (interp) vs {:#010x}",
                    a[reg][comp].to_bits(),
                    b[reg][comp].to_bits()
                ));
            }
        }
    }
    None
}

/// Checks with ramp inputs, default-ish uniforms and a generous budget; panics on mismatch.
#[track_caller]
pub fn agree(program: &Program, uniforms: &Uniforms) -> Lowered {
    let inputs = ramp_inputs(19);
    match check(program, uniforms, &inputs, 4096) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    }
}

pub fn program(code: &[u32], descs: &[u32]) -> Program {
    Program::from_words(code, descs, 0).unwrap()
}

/// Uniforms with c_n = (n, n + 0.25, -n, 1 / (n + 1)), the given ints and bools.
pub fn uniforms(ints: [[u8; 4]; 4], bools: u16) -> Uniforms {
    let mut u = Uniforms::default();
    for (n, c) in u.f.iter_mut().enumerate() {
        let x = n as f32;
        *c = [x, x + 0.25, -x, 1.0 / (x + 1.0)];
    }
    u.i = ints;
    u.b = bools;
    u
}

pub fn status_of(lowered: &Lowered, u: &Uniforms, budget: u32) -> VertexStatus {
    eval::run(&lowered.func, u, &ramp_inputs(1), budget)[0].1
}
