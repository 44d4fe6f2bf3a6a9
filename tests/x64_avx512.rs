//! The first AVX-512 kernel (`picajit_codegen::x64::avx512`: W = 16, SoA, straight-line
//! arithmetic), run in the emulator (this host has no AVX-512), against the AVX2 SoA kernel of
//! the same function run on the CPU — itself held to the interpreter by every program test — bit
//! for bit (NaN equals NaN), outputs and status words, on the example shaders, the corpus and generated
//! straight-line programs. Functions the prototype refuses are counted, not compared.

use std::path::PathBuf;

use picajit::asm::{self, Source};
use picajit::engine::{Backend, Engine};
use picajit::fuzz::{self, Config};
use picajit::program::{Program, Regs16, Uniforms};
use picajit::shbin::Shbin;
use picajit_codegen::abi::Context;
use picajit_codegen::code::ExecCode;
use picajit_codegen::emu::kernel::EmuKernel;
use picajit_codegen::ir::Function;
use picajit_codegen::x64::{self, avx512, CompileError, IoMode, Tier};

fn context(uniforms: &Uniforms) -> Context {
    let mut ctx = Context::default();
    ctx.uniforms[..96].copy_from_slice(&uniforms.f);
    for c in 0..96 {
        for comp in 0..4 {
            ctx.uniform_rows[c * 4 + comp].0 = [uniforms.f[c][comp]; 16];
        }
    }
    ctx.scalars.bools = u32::from(uniforms.b);
    ctx.scalars.ints = uniforms.i;
    ctx.io.budget = 4096;
    ctx
}

/// Compares the W = 16 kernel with the CPU's AVX2 kernel on 64 vertices; the number of EVEX
/// instructions of the kernel, None if the prototype refuses the function.
fn agree(name: &str, func: &Function, uniforms: &Uniforms, inputs: &[Regs16]) -> Option<usize> {
    let k16 = match avx512::compile_soa16(func) {
        Ok(k) => k,
        Err(CompileError::Unsupported(_)) => return None,
        Err(e) => panic!("{name}: {e}"),
    };
    let n = 64;
    let mut planar = vec![0f32; 64 * n];
    for (v, regs) in inputs.iter().cycle().take(n).enumerate() {
        for (k, x) in regs.iter().flatten().enumerate() {
            planar[k * n + v] = *x;
        }
    }
    let avx2 = x64::compile(func, Tier::Avx2, IoMode::Soa).expect("AVX2 kernel");
    let native = ExecCode::new(&avx2).expect("host has AVX2");
    let (mut ctx_n, mut ctx_e) = (context(uniforms), context(uniforms));
    let (mut out_n, mut out_e) = (vec![7f32; 64 * n], vec![7f32; 64 * n]);
    let (mut st_n, mut st_e) = (vec![9u32; n / 8], vec![9u32; n / 16]);
    native
        .run_soa(&mut ctx_n, &planar, &mut out_n, n, &mut st_n)
        .expect("native run");
    let mut emu = EmuKernel::with_code(k16.code.clone(), avx512::LANES, IoMode::Soa);
    emu.run_soa(&mut ctx_e, &planar, &mut out_e, n, &mut st_e)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    // The project's rule between engines: exact bits, any NaN equal to any NaN (the two kernels
    // order commutative operands differently, which picks a different NaN payload).
    for (i, (a, b)) in out_n.iter().zip(&out_e).enumerate() {
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "{name}: plane {} vertex {}: AVX2 {:#010x}, AVX-512 {:#010x}",
            i / n,
            i % n,
            a.to_bits(),
            b.to_bits()
        );
    }
    assert!(st_n.iter().all(|&s| s == 0), "{name}: AVX2 status {st_n:?}");
    assert!(
        st_e.iter().all(|&s| s == 0),
        "{name}: AVX-512 status {st_e:?}"
    );
    Some(k16.evex_instructions)
}

fn lowered(program: &Program) -> Option<Function> {
    let engine = Engine::new(Backend::X64Sse41).ok()?;
    engine.compile(program).ir().cloned()
}

fn files(dir: PathBuf, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

#[test]
fn w16_kernels_match_the_cpu_avx2_kernels() {
    if !Tier::Avx2.host_supports() {
        eprintln!("SKIPPED: the CPU reference needs AVX2");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut programs: Vec<(String, Program)> = Vec::new();
    for path in files(root.join("examples/shaders"), "pica") {
        let src = Source {
            name: path.display().to_string(),
            text: std::fs::read_to_string(&path).unwrap(),
        };
        let (shbin, _) = asm::assemble(&[src]).unwrap_or_else(|d| panic!("{path:?}: {d:?}"));
        for k in 0..shbin.dvles.len() {
            programs.push((
                format!("{} DVLE {k}", path.display()),
                shbin.program(k).unwrap(),
            ));
        }
    }
    for path in files(root.join("../shared/corpus/shbin"), "shbin") {
        let shbin = Shbin::parse(&std::fs::read(&path).unwrap()).unwrap();
        for k in 0..shbin.dvles.len() {
            programs.push((
                format!("{} DVLE {k}", path.display()),
                shbin.program(k).unwrap(),
            ));
        }
    }
    let (mut files_run, mut fuzz_run, mut refused, mut evex) = (Vec::new(), 0, 0, 0);
    for (i, (name, program)) in programs.iter().enumerate() {
        let Some(func) = lowered(program) else {
            continue;
        };
        let mut rng = fastrand::Rng::with_seed(i as u64 + 5);
        let uniforms = fuzz::values::uniforms(&mut rng);
        let inputs = fuzz::values::inputs(&mut rng, 64);
        match agree(name, &func, &uniforms, &inputs) {
            Some(n) => {
                files_run.push(name.rsplit('/').next().unwrap_or(name).to_string());
                evex += n;
            }
            None => refused += 1,
        }
    }
    let config = Config::with_ops("add,mul,dp3,dp4,dph,min,max,mov,flr").expect("ops");
    for seed in 1..=300u64 {
        let case = fuzz::generate(seed, &config);
        let c = &case.case;
        let program = Program::from_words(&c.code, &c.descs, c.entry).expect("generated program");
        let Some(func) = lowered(&program) else {
            continue;
        };
        match agree(&format!("fuzz seed {seed}"), &func, &c.uniforms, &c.inputs) {
            Some(_) => fuzz_run += 1,
            None => refused += 1,
        }
    }
    eprintln!(
        "AVX-512 W=16 (emulated) vs AVX2 (CPU): {} files {files_run:?} ({evex} EVEX instructions), {fuzz_run} generated programs, 0 differences; {refused} functions refused",
        files_run.len()
    );
    assert!(
        !files_run.is_empty(),
        "no example or corpus shader compiled at W = 16"
    );
    assert!(
        fuzz_run >= 10,
        "only {fuzz_run} generated programs compiled at W = 16"
    );
}

/// Until the tier's kernels land, `x64::compile` refuses `Tier::Avx512` with a typed error in
/// every I/O mode (the engine then falls back to the interpreter), never a panic.
#[test]
fn the_engine_tier_is_refused_with_a_typed_error() {
    assert_eq!(Tier::Avx512.lanes(), 16);
    assert_eq!(Tier::Avx512.bytes(), 64);
    let program = asm::assemble(&[Source {
        name: "t.pica".into(),
        text: ".out o0 position\n.proc main\n    mov o0, v0\n    end\n.end\n".into(),
    }])
    .map(|(s, _)| s.program(0).unwrap())
    .unwrap_or_else(|d| panic!("{d:?}"));
    let func = lowered(&program).expect("lowered");
    for io in [IoMode::Aos, IoMode::Soa] {
        match x64::compile(&func, Tier::Avx512, io) {
            Err(CompileError::Unsupported(why)) => assert!(why.contains("avx512"), "{why}"),
            other => panic!("{io:?}: {other:?}"),
        }
    }
}
