//! The x86-64 emulator (`picajit_codegen::emu`, the engine the AVX-512 tier's kernels run on
//! where the host lacks AVX-512) held to the real CPU: the SSE4.1 and AVX2 kernels (AoS and SoA)
//! of the built-in example shaders, the corpus SHBINs and generated fuzz programs run natively
//! and emulated, and must agree bit for bit — outputs (NaN payloads included), status words and
//! the scalar state (step budget, aL, loop slots) the batches leave.
//!
//! Geometry shaders' triangles and their lane masks are compared too, and the kernels of
//! generated AGAL programs (whose sin/cos/pow sequences PICA programs never use) likewise.
//!
//! The emulated runs go through `ExecCode::emulated` — the engine's own path for a tier the
//! host lacks, which hands the emulator the call's real memory at its real addresses; draw
//! kernels (indices with repeats, attributes from one interleaved array) are compared that way
//! too.
//!
//! `PICAJIT_EMU_FUZZ=N` sets how many fuzz programs (default 150; geometry and AGAL a third
//! of that each).

mod emu_support;

use std::path::PathBuf;

use picajit::asm::{self, Source};
use picajit::engine::{Backend, Engine};
use picajit::fuzz::{self, Config};
use picajit::program::{Program, Regs16, ShaderKind, Uniforms};
use picajit::shbin::Shbin;
use picajit_codegen::abi::{Context, Lanes, Triangle, TriangleMasks, CONST_ENTRIES};
use picajit_codegen::code::{DrawInput, DrawVertices, EmitBuffer, ExecCode};
use picajit_codegen::ir::Verified;
use picajit_codegen::x64::{self, DrawLayout, DrawOrder, IoMode, Tier, DRAW_SLOTS};

fn tiers() -> Vec<Tier> {
    [Tier::Sse41, Tier::Avx2]
        .into_iter()
        .filter(|t| t.host_supports())
        .collect()
}

fn context(uniforms: &Uniforms, budget: u32) -> Context {
    let mut ctx = Context::default();
    ctx.uniforms[..96].copy_from_slice(&uniforms.f);
    for c in 0..96 {
        for comp in 0..4 {
            ctx.uniform_rows[c * 4 + comp].0 = [uniforms.f[c][comp]; 16];
        }
    }
    ctx.scalars.bools = u32::from(uniforms.b);
    ctx.scalars.ints = uniforms.i;
    ctx.io.budget = budget;
    // The constant table of AGAL programs (PICA programs never read it).
    let mut rng = fastrand::Rng::with_seed(budget.into());
    for c in ctx.constants[..CONST_ENTRIES].iter_mut() {
        *c = fuzz::values::special_vec4(&mut rng);
    }
    ctx
}

fn bits(v: &[Regs16]) -> Vec<u32> {
    v.iter().flatten().flatten().map(|x| x.to_bits()).collect()
}

/// Asserts equal bit patterns, naming the first float that differs.
#[track_caller]
fn same_bits(what: &str, native: &[u32], emulated: &[u32]) {
    assert_eq!(native.len(), emulated.len(), "{what}: lengths");
    if let Some(i) = (0..native.len()).find(|&i| native[i] != emulated[i]) {
        panic!(
            "{what}: float {i} (vertex/plane word) differs: CPU {:#010x}, emulator {:#010x}",
            native[i], emulated[i]
        );
    }
}

#[derive(Default)]
struct Tally {
    kernels: usize,
    /// Draw kernels compared (CPU against `ExecCode`'s emulated path).
    draws: usize,
    batches: usize,
    steps: u64,
    /// Triangle records geometry batches made.
    triangles: u64,
    /// Distinct instruction forms executed (iced-x86 codes).
    codes: std::collections::BTreeSet<String>,
}

impl Tally {
    fn record(&mut self, exec: &ExecCode) {
        emu_support::record_trace(exec, &mut self.steps, &mut self.codes);
    }
}

/// Runs `func`'s AoS and SoA kernels of every host tier natively and emulated on `inputs`
/// (cycled to 32 vertices); panics on any difference.
fn agree(
    name: &str,
    func: &Verified,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
    t: &mut Tally,
) {
    let n = 32;
    let input: Vec<Regs16> = inputs.iter().cycle().take(n).copied().collect();
    for tier in tiers() {
        for io in [IoMode::Aos, IoMode::Soa] {
            let compiled = match x64::compile(func, tier, io) {
                Ok(c) => c,
                Err(e) => panic!("{name} {tier:?} {io:?}: {e}"),
            };
            let native = ExecCode::new(&compiled).expect("host runs the tier");
            // The engine's own emulated path: the call's real memory at its real addresses.
            let exec = ExecCode::emulated(&compiled);
            let (mut ctx_n, mut ctx_x) = (context(uniforms, budget), context(uniforms, budget));
            let w = tier.lanes();
            let (mut st_n, mut st_x) = (vec![0u32; n / w], vec![0u32; n / w]);
            let what = format!("{name} {tier:?} {io:?}");
            match io {
                IoMode::Aos => {
                    let (mut out_n, mut out_x) =
                        (vec![[[7.0f32; 4]; 16]; n], vec![[[7.0f32; 4]; 16]; n]);
                    native
                        .run_aos(&mut ctx_n, &input, &mut out_n, &mut st_n, None)
                        .expect("native run");
                    exec.run_aos(&mut ctx_x, &input, &mut out_x, &mut st_x, None)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    same_bits(&format!("{what}: outputs"), &bits(&out_n), &bits(&out_x));
                }
                IoMode::Soa | IoMode::Draw(_) => {
                    let mut planar = vec![0f32; 64 * n];
                    for (v, regs) in input.iter().enumerate() {
                        for (k, x) in regs.iter().flatten().enumerate() {
                            planar[k * n + v] = *x;
                        }
                    }
                    let (mut out_n, mut out_x) = (vec![7f32; 64 * n], vec![7f32; 64 * n]);
                    native
                        .run_soa(&mut ctx_n, &planar, &mut out_n, n, &mut st_n)
                        .expect("native run");
                    exec.run_soa(&mut ctx_x, &planar, &mut out_x, n, &mut st_x)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    let b = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    same_bits(&format!("{what}: outputs"), &b(&out_n), &b(&out_x));
                }
            }
            assert_eq!(st_n, st_x, "{what}: status words");
            assert_eq!(ctx_n.scalars, ctx_x.scalars, "{what}: scalar state");
            t.kernels += 1;
            t.batches += n / w;
            t.record(&exec);
        }
        agree_draw(name, func, uniforms, inputs, budget, tier, t);
    }
}

/// `func`'s draw kernel on `tier` (every input register with 1..=4 components from one
/// interleaved array, so the emulator's read-only regions overlap; output slots mapped
/// round-robin, or in groups that copied registers' rows can fill: see
/// [`emu_support::random_draw_layout`]), natively and through [`ExecCode::emulated`], on
/// shuffled indices with repeats: output vertices, status words and scalar state must agree.
fn agree_draw(
    name: &str,
    func: &Verified,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
    tier: Tier,
    t: &mut Tally,
) {
    let mut rng = fastrand::Rng::with_seed(budget.into());
    let layout = emu_support::random_draw_layout(&mut rng);
    let Ok(compiled) = x64::compile(func, tier, IoMode::Draw(layout)) else {
        return;
    };
    let what = format!("{name} {tier:?} draw");
    let vertices = 24;
    // Vertex v's register r at [v * 64 + r * 4..]: every register's array is the whole buffer
    // from its offset on.
    let data: Vec<f32> = (0..vertices)
        .flat_map(|v| inputs[v % inputs.len()].into_iter().flatten())
        .collect();
    let arrays: [Option<DrawInput<'_>>; 16] = std::array::from_fn(|r| {
        Some(DrawInput {
            data: &data[r * 4..],
            stride: 64,
        })
    });
    let w = tier.lanes();
    let ids: Vec<u32> = (0..4 * w).map(|_| rng.u32(0..vertices as u32)).collect();
    let native = ExecCode::new(&compiled).expect("host runs the tier");
    let exec = ExecCode::emulated(&compiled);
    let (mut ctx_n, mut ctx_x) = (context(uniforms, budget), context(uniforms, budget));
    let (mut out_n, mut out_x) = (
        emu_support::output_buffer(&layout, ids.len()),
        emu_support::output_buffer(&layout, ids.len()),
    );
    let (mut st_n, mut st_x) = (vec![0u32; 4], vec![0u32; 4]);
    native
        .run_draw(
            &mut ctx_n,
            DrawVertices::Ids(&ids),
            &arrays,
            &mut out_n,
            &mut st_n,
        )
        .expect("native run");
    exec.run_draw(
        &mut ctx_x,
        DrawVertices::Ids(&ids),
        &arrays,
        &mut out_x,
        &mut st_x,
    )
    .unwrap_or_else(|e| panic!("{what} ExecCode: {e}"));
    let b = |v: &[[f32; DRAW_SLOTS]]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
    same_bits(&format!("{what}: outputs"), &b(&out_n), &b(&out_x));
    assert_eq!(st_n, st_x, "{what}: status words");
    assert_eq!(ctx_n.scalars, ctx_x.scalars, "{what}: scalar state");
    t.draws += 1;

    // The stepped kernel of the same layout over the vertices in order (256-byte strides):
    // the same outputs as the indexed kernel on the ids 0, 1, 2, …
    let stepped = DrawLayout {
        order: DrawOrder::Stepped([256; 16]),
        ..layout
    };
    let Ok(compiled) = x64::compile(func, tier, IoMode::Draw(stepped)) else {
        return;
    };
    let count = vertices / w * w;
    let in_order: Vec<u32> = (0..count as u32).collect();
    let native = ExecCode::new(&compiled).expect("host runs the tier");
    let exec = ExecCode::emulated(&compiled);
    let indexed = ExecCode::new(&x64::compile(func, tier, IoMode::Draw(layout)).expect("compiled"))
        .expect("host runs the tier");
    let mut outs = [(); 3].map(|_| emu_support::output_buffer(&layout, count));
    let mut sts = [(); 3].map(|_| vec![0u32; count / w]);
    let mut ctxs = [(); 3].map(|_| context(uniforms, budget));
    let [out_n, out_x, out_i] = &mut outs;
    let [st_n, st_x, st_i] = &mut sts;
    let [ctx_n, ctx_x, ctx_i] = &mut ctxs;
    native
        .run_draw(ctx_n, DrawVertices::Range(count), &arrays, out_n, st_n)
        .expect("native run");
    exec.run_draw(ctx_x, DrawVertices::Range(count), &arrays, out_x, st_x)
        .unwrap_or_else(|e| panic!("{what} stepped ExecCode: {e}"));
    indexed
        .run_draw(ctx_i, DrawVertices::Ids(&in_order), &arrays, out_i, st_i)
        .expect("native run");
    same_bits(&format!("{what} stepped: outputs"), &b(out_n), &b(out_x));
    same_bits(
        &format!("{what} stepped/indexed: outputs"),
        &b(out_n),
        &b(out_i),
    );
    assert_eq!(st_n, st_x, "{what} stepped: status words");
    assert_eq!(st_n, st_i, "{what} stepped/indexed: status words");
    assert_eq!(ctx_n.scalars, ctx_x.scalars, "{what} stepped: scalar state");
    t.draws += 1;
}

/// The function a native engine compiles for `program` (None: it runs on the interpreter).
fn lowered(program: &Program) -> Option<Verified> {
    let engine = Engine::new(Backend::X64Sse41).ok()?;
    engine.compile(program).ir().cloned()
}

fn seeded_uniforms(seed: u64) -> Uniforms {
    let mut rng = fastrand::Rng::with_seed(seed);
    fuzz::values::uniforms(&mut rng)
}

fn seeded_inputs(seed: u64) -> Vec<Regs16> {
    let mut rng = fastrand::Rng::with_seed(seed);
    fuzz::values::inputs(&mut rng, 32)
}

#[test]
fn builtin_and_corpus_kernels_run_the_same_emulated() {
    if tiers().is_empty() {
        eprintln!("SKIPPED: this host has no SSE4.1");
        return;
    }
    let mut programs: Vec<(String, Program)> = Vec::new();
    let shaders = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/shaders");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&shaders)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pica"))
        .collect();
    files.sort();
    for path in files {
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
    let builtins = programs.len();
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/shbin");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "shbin"))
        .collect();
    files.sort();
    assert!(files.len() >= 13, "corpus has {} files", files.len());
    for path in files {
        let shbin = Shbin::parse(&std::fs::read(&path).unwrap()).unwrap();
        for k in 0..shbin.dvles.len() {
            programs.push((
                format!("{} DVLE {k}", path.display()),
                shbin.program(k).unwrap(),
            ));
        }
    }
    let mut t = Tally::default();
    let mut compiled = 0;
    for (i, (name, program)) in programs.iter().enumerate() {
        let Some(func) = lowered(program) else {
            continue;
        };
        compiled += 1;
        let uniforms = seeded_uniforms(i as u64 + 1);
        agree(
            name,
            &func,
            &uniforms,
            &seeded_inputs(i as u64 + 100),
            4096,
            &mut t,
        );
    }
    eprintln!(
        "emulator vs CPU: {builtins} built-in and {} corpus programs ({compiled} native), {} kernels (each also through ExecCode's emulated path), {} draw kernels, {} batches, {} emulated instructions of {} forms, 0 differences",
        programs.len() - builtins,
        t.kernels,
        t.draws,
        t.batches,
        t.steps,
        t.codes.len()
    );
    assert!(
        compiled >= 13 + builtins - 1,
        "only {compiled} programs compiled natively"
    );
}

#[test]
fn fuzz_kernels_run_the_same_emulated() {
    if tiers().is_empty() {
        eprintln!("SKIPPED: this host has no SSE4.1");
        return;
    }
    let cases = fuzz_count();
    let config = Config::default();
    let mut t = Tally::default();
    let mut native = 0;
    for seed in 1..=cases {
        let case = fuzz::generate(seed, &config);
        if case.case.kind == ShaderKind::Geometry {
            continue;
        }
        let c = &case.case;
        let program = Program::from_words(&c.code, &c.descs, c.entry).expect("generated program");
        let Some(func) = lowered(&program) else {
            continue;
        };
        native += 1;
        agree(
            &format!("fuzz seed {seed}"),
            &func,
            &c.uniforms,
            &c.inputs,
            case.budget,
            &mut t,
        );
    }
    eprintln!(
        "emulator vs CPU: {cases} fuzz programs ({native} native), {} kernels (each also through ExecCode's emulated path), {} draw kernels, {} batches, {} emulated instructions of {} forms, 0 differences",
        t.kernels,
        t.draws,
        t.batches,
        t.steps,
        t.codes.len()
    );
    if std::env::var_os("PICAJIT_EMU_FORMS").is_some() {
        eprintln!("forms: {:?}", t.codes);
    }
    assert!(
        native * 2 > cases as usize,
        "only {native} of {cases} fuzz programs compiled natively"
    );
}

fn fuzz_count() -> u64 {
    std::env::var("PICAJIT_EMU_FUZZ")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150)
}

/// A geometry kernel, one batch at a time (as the engine runs them), natively and emulated:
/// outputs, status, scalar state (the batch's triangle count), triangles and masks.
fn agree_geometry(
    name: &str,
    func: &Verified,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
    t: &mut Tally,
) {
    const CAPACITY: usize = 16;
    for tier in tiers() {
        let w = tier.lanes();
        let compiled = x64::compile(func, tier, IoMode::Aos)
            .unwrap_or_else(|e| panic!("{name} {tier:?}: {e}"));
        let native = ExecCode::new(&compiled).expect("host runs the tier");
        let exec = ExecCode::emulated(&compiled);
        let input: Vec<Regs16> = inputs.iter().cycle().take(2 * w).copied().collect();
        for (b, batch) in input.chunks(w).enumerate() {
            let what = format!("{name} {tier:?} batch {b}");
            let blank: Triangle = [[[Lanes::default(); 4]; 16]; 3];
            let (mut tri_n, mut tri_x) = (vec![blank; CAPACITY], vec![blank; CAPACITY]);
            let (mut mask_n, mut mask_x): (Vec<TriangleMasks>, Vec<TriangleMasks>) =
                (vec![[0; 2]; CAPACITY], vec![[0; 2]; CAPACITY]);
            let (mut ctx_n, mut ctx_x) = (context(uniforms, budget), context(uniforms, budget));
            let (mut out_n, mut out_x) = (vec![[[7.0f32; 4]; 16]; w], vec![[[7.0f32; 4]; 16]; w]);
            let (mut st_n, mut st_x) = ([0u32], [0u32]);
            let emit_n = EmitBuffer {
                triangles: &mut tri_n,
                masks: &mut mask_n,
            };
            native
                .run_aos(&mut ctx_n, batch, &mut out_n, &mut st_n, Some(emit_n))
                .expect("native run");
            let emit_x = EmitBuffer {
                triangles: &mut tri_x,
                masks: &mut mask_x,
            };
            exec.run_aos(&mut ctx_x, batch, &mut out_x, &mut st_x, Some(emit_x))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            same_bits(&format!("{what}: outputs"), &bits(&out_n), &bits(&out_x));
            assert_eq!(st_n, st_x, "{what}: status word");
            assert_eq!(ctx_n.scalars, ctx_x.scalars, "{what}: scalar state");
            let tri_bits = |v: &[Triangle]| -> Vec<u32> {
                v.iter()
                    .flatten()
                    .flatten()
                    .flatten()
                    .flat_map(|l| l.0.map(f32::to_bits))
                    .collect()
            };
            same_bits(
                &format!("{what}: triangles"),
                &tri_bits(&tri_n),
                &tri_bits(&tri_x),
            );
            assert_eq!(mask_n, mask_x, "{what}: triangle masks");
            t.triangles += u64::from(ctx_n.scalars.emit_count);
            t.kernels += 1;
            t.batches += 1;
        }
        t.record(&exec);
    }
}

#[test]
fn geometry_fuzz_kernels_run_the_same_emulated() {
    if tiers().is_empty() {
        eprintln!("SKIPPED: this host has no SSE4.1");
        return;
    }
    let cases = fuzz_count().div_ceil(3);
    let config = Config::default();
    let (mut t, mut native, mut triangles) = (Tally::default(), 0, 0);
    for seed in 1..=cases {
        let case = fuzz::generate_geometry(seed, &config);
        let c = &case.case;
        let mut program =
            Program::from_words(&c.code, &c.descs, c.entry).expect("generated program");
        program.kind = c.kind;
        let Some(func) = lowered(&program) else {
            continue;
        };
        native += 1;
        triangles += usize::from(
            func.blocks
                .iter()
                .flat_map(|b| &b.insts)
                .any(|i| i.op == picajit_codegen::ir::Op::EmitTri),
        );
        agree_geometry(
            &format!("geometry seed {seed}"),
            &func,
            &c.uniforms,
            &c.inputs,
            case.budget,
            &mut t,
        );
    }
    eprintln!(
        "emulator vs CPU: {cases} geometry programs ({native} native, {triangles} with triangles), {} batches, {} triangle records, {} emulated instructions of {} forms, 0 differences",
        t.batches,
        t.triangles,
        t.steps,
        t.codes.len()
    );
    assert!(
        native * 2 > cases as usize,
        "only {native} of {cases} geometry programs compiled natively"
    );
}

#[test]
fn agal_kernels_run_the_same_emulated() {
    if tiers().is_empty() {
        eprintln!("SKIPPED: this host has no SSE4.1");
        return;
    }
    let cases = fuzz_count().div_ceil(3);
    let engine = Engine::new(Backend::X64Sse41).expect("engine");
    let (mut t, mut native) = (Tally::default(), 0);
    for seed in 1..=cases {
        let case = fuzz::agal::agal_case(seed);
        let Ok((program, _)) = case.prepare() else {
            continue;
        };
        let shader = engine.compile_agal(&program);
        let Some(funcs) = shader.ir() else { continue };
        native += 1;
        for (k, func) in funcs.iter().enumerate() {
            agree(
                &format!("AGAL seed {seed} function {k}"),
                func,
                &seeded_uniforms(seed),
                &seeded_inputs(seed + 7),
                4096,
                &mut t,
            );
        }
    }
    eprintln!(
        "emulator vs CPU: {cases} AGAL programs ({native} native), {} kernels (each also through ExecCode's emulated path), {} draw kernels, {} batches, {} emulated instructions of {} forms, 0 differences",
        t.kernels,
        t.draws,
        t.batches,
        t.steps,
        t.codes.len()
    );
    assert!(native > 0, "no AGAL program compiled natively");
}
