//! The x64-avx512 tier (`Tier::Avx512`, W = 16, EVEX) run in the emulator (this host has no
//! AVX-512) against the CPU's AVX2 kernel of the same function — itself held to the
//! interpreter by every program test — on the same vertices: the built-in example shaders, the
//! 13 corpus SHBINs, generated vertex, geometry and AGAL programs, in the AoS, SoA and draw I/O
//! modes (draw kernels through `ExecCode`, which runs the tier in the emulator on such a host).
//!
//! Compared bit for bit (any NaN equal to any NaN, the rule between engines): every output of
//! every 16-vertex group whose batches ran to the end on both tiers, and the status words. A batch's step budget counts the
//! batch's steps, so a 16-lane batch can exhaust it where both of its 8-lane halves do not (a
//! per-lane loop runs as long as its longest lane); such groups are counted, and the converse
//! (an 8-lane batch exhausted inside a 16-lane batch that was not) fails. Geometry programs
//! are compared per lane: each lane's outputs and the triangles it emitted, in order, with
//! their winding. Functions the tier refuses are counted and must be none.
//!
//! `PICAJIT_EMU_FUZZ=N` sets how many generated programs (default 150; geometry and AGAL a
//! third of that each), as for `tests/x64_emu.rs`.

mod emu_support;

use std::path::PathBuf;

use picajit::asm::{self, Source};
use picajit::engine::{Backend, Engine};
use picajit::fuzz::{self, Config};
use picajit::program::{Program, Regs16, ShaderKind, Uniforms};
use picajit::shbin::Shbin;
use picajit_codegen::abi::{
    Context, Lanes, Triangle, TriangleMasks, CONST_ENTRIES, STATUS_OVERFLOW,
};
use picajit_codegen::code::{DrawInput, DrawVertices, EmitBuffer, ExecCode};
use picajit_codegen::ir::Verified;
use picajit_codegen::x64::{self, CompileError, DrawLayout, DrawOrder, IoMode, Tier, DRAW_SLOTS};

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

#[derive(Default)]
struct Tally {
    kernels: usize,
    /// 16-vertex groups compared, and those skipped because a batch exhausted its budget.
    groups: usize,
    exhausted: usize,
    /// Of those, the groups whose 8-lane batches both ran to the end.
    only16: usize,
    steps: u64,
    triangles: u64,
    draws: usize,
    refused: Vec<String>,
    codes: std::collections::BTreeSet<String>,
}

impl Tally {
    fn record(&mut self, exec: &ExecCode) {
        emu_support::record_trace(exec, &mut self.steps, &mut self.codes);
    }
}

/// The status of a 16-lane batch as the two 8-lane batches of its vertices report it.
fn joined(lo: u32, hi: u32) -> u32 {
    (lo & 0xFF) | (hi & 0xFF) << 8 | ((lo | hi) & STATUS_OVERFLOW)
}

/// Asserts equal floats by the project's rule between engines — the same bits, any NaN equal
/// to any NaN (the tier's register allocation differs from AVX2's, so a commutative operation
/// may take its operands in the other order, which picks the other NaN's payload) — naming the
/// first that differs.
#[track_caller]
fn same_bits(what: &str, avx2: &[u32], avx512: &[u32]) {
    assert_eq!(avx2.len(), avx512.len(), "{what}: lengths");
    let nan = |x: u32| f32::from_bits(x).is_nan();
    if let Some(i) =
        (0..avx2.len()).find(|&i| avx2[i] != avx512[i] && !(nan(avx2[i]) && nan(avx512[i])))
    {
        panic!(
            "{what}: float {i} differs: AVX2 (CPU) {:#010x}, AVX-512 (emulated) {:#010x}",
            avx2[i], avx512[i]
        );
    }
}

/// The W = 16 kernel of `func` in I/O mode `io`, None (counted) if the tier refuses it.
fn compile16(name: &str, func: &Verified, io: IoMode, t: &mut Tally) -> Option<x64::Compiled> {
    match x64::compile(func, Tier::Avx512, io) {
        Ok(c) => Some(c),
        Err(CompileError::Unsupported(why)) => {
            t.refused.push(format!("{name} {io:?}: {why}"));
            None
        }
        Err(e) => panic!("{name} {io:?}: {e}"),
    }
}

/// Runs `func`'s AoS and SoA kernels at W = 16 (emulated) and W = 8 (CPU) on `inputs` cycled
/// to 32 vertices; panics on any difference.
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
    for io in [IoMode::Aos, IoMode::Soa] {
        let what = format!("{name} {io:?}");
        let Some(k16) = compile16(name, func, io, t) else {
            continue;
        };
        let k8 = x64::compile(func, Tier::Avx2, io).unwrap_or_else(|e| panic!("{what}: {e}"));
        let native = ExecCode::new(&k8).expect("host runs AVX2");
        let emu = ExecCode::emulated(&k16);
        let (mut ctx8, mut ctx16) = (context(uniforms, budget), context(uniforms, budget));
        let (mut st8, mut st16) = (vec![0u32; n / 8], vec![0u32; n / 16]);
        // Per vertex: its 64 output words.
        let (out8, out16): (Vec<u32>, Vec<u32>) = match io {
            IoMode::Aos => {
                let (mut o8, mut o16) = (vec![[[7.0f32; 4]; 16]; n], vec![[[7.0f32; 4]; 16]; n]);
                native
                    .run_aos(&mut ctx8, &input, &mut o8, &mut st8, None)
                    .expect("native run");
                emu.run_aos(&mut ctx16, &input, &mut o16, &mut st16, None)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let b = |v: &[Regs16]| v.iter().flatten().flatten().map(|x| x.to_bits()).collect();
                (b(&o8), b(&o16))
            }
            IoMode::Soa | IoMode::Draw(_) => {
                let mut planar = vec![0f32; 64 * n];
                for (v, regs) in input.iter().enumerate() {
                    for (k, x) in regs.iter().flatten().enumerate() {
                        planar[k * n + v] = *x;
                    }
                }
                let (mut o8, mut o16) = (vec![7f32; 64 * n], vec![7f32; 64 * n]);
                native
                    .run_soa(&mut ctx8, &planar, &mut o8, n, &mut st8)
                    .expect("native run");
                emu.run_soa(&mut ctx16, &planar, &mut o16, n, &mut st16)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                // Back to vertex order.
                let b = |v: &[f32]| -> Vec<u32> {
                    (0..n)
                        .flat_map(|vtx| (0..64).map(move |k| v[k * n + vtx].to_bits()))
                        .collect()
                };
                (b(&o8), b(&o16))
            }
        };
        for g in finished_groups(&what, &st8, &st16, t) {
            let words = 64 * 16 * g..64 * 16 * (g + 1);
            same_bits(
                &format!("{what}: vertices {}..{}", 16 * g, 16 * g + 16),
                &out8[words.clone()],
                &out16[words],
            );
            t.groups += 1;
        }
        t.kernels += 1;
        t.record(&emu);
    }
    agree_draw(name, func, uniforms, inputs, budget, t);
}

/// Status words of W = 8 batches joined per 16 lanes, checked against the W = 16 ones: the
/// groups (indices) whose batches all ran to the end (see the module docs).
fn finished_groups(what: &str, st8: &[u32], st16: &[u32], t: &mut Tally) -> Vec<usize> {
    let mut done = Vec::new();
    for (g, &s16) in st16.iter().enumerate() {
        let s8 = joined(st8[2 * g], st8[2 * g + 1]);
        if s8 == 0 && s16 == 0 {
            done.push(g);
        } else {
            assert!(
                s16 != 0 && s8 & !s16 == 0,
                "{what}: group {g}: AVX2 status {s8:#x}, AVX-512 status {s16:#x}"
            );
            t.exhausted += 1;
            t.only16 += usize::from(s8 == 0);
        }
    }
    done
}

/// `func`'s draw kernels (every input register with 1..=4 components from one interleaved
/// array, output slots as [`emu_support::random_draw_layout`] maps them) at W = 16, emulated through
/// `ExecCode`, and W = 8 on the CPU, on 64 shuffled indices with repeats.
fn agree_draw(
    name: &str,
    func: &Verified,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
    t: &mut Tally,
) {
    let mut rng = fastrand::Rng::with_seed(budget.into());
    let layout = emu_support::random_draw_layout(&mut rng);
    let io = IoMode::Draw(layout);
    let k8 = match x64::compile(func, Tier::Avx2, io) {
        Ok(k) => k,
        // The layout does not fit the function (a draw condition): nothing to compare.
        Err(CompileError::Unsupported(_)) => return,
        Err(e) => panic!("{name} draw: {e}"),
    };
    let Some(k16) = compile16(name, func, io, t) else {
        return;
    };
    let what = format!("{name} draw");
    let vertices = 24;
    let data: Vec<f32> = (0..vertices)
        .flat_map(|v| inputs[v % inputs.len()].into_iter().flatten())
        .collect();
    let arrays: [Option<DrawInput<'_>>; 16] = std::array::from_fn(|r| {
        Some(DrawInput {
            data: &data[r * 4..],
            stride: 64,
        })
    });
    let ids: Vec<u32> = (0..64).map(|_| rng.u32(0..vertices as u32)).collect();
    let native = ExecCode::new(&k8).expect("host runs AVX2");
    let exec = ExecCode::new(&k16).expect("the tier runs, natively or emulated");
    let (mut ctx8, mut ctx16) = (context(uniforms, budget), context(uniforms, budget));
    let (mut out8, mut out16) = (
        emu_support::output_buffer(&layout, ids.len()),
        emu_support::output_buffer(&layout, ids.len()),
    );
    let (mut st8, mut st16) = (vec![0u32; ids.len() / 8], vec![0u32; ids.len() / 16]);
    native
        .run_draw(
            &mut ctx8,
            DrawVertices::Ids(&ids),
            &arrays,
            &mut out8,
            &mut st8,
        )
        .expect("native run");
    exec.run_draw(
        &mut ctx16,
        DrawVertices::Ids(&ids),
        &arrays,
        &mut out16,
        &mut st16,
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let b =
        |v: &[[f32; DRAW_SLOTS]]| -> Vec<u32> { v.iter().flatten().map(|x| x.to_bits()).collect() };
    for g in finished_groups(&what, &st8, &st16, t) {
        let at = 16 * g..16 * g + 16;
        same_bits(
            &format!("{what}: vertices {}..{}", 16 * g, 16 * g + 16),
            &b(&out8[at.clone()]),
            &b(&out16[at]),
        );
        t.groups += 1;
    }
    t.draws += 1;

    // The stepped kernels of the same layout over 48 consecutive vertices, the registers in
    // three strides (the most common one, another, 0): both tiers against the AVX2 indexed
    // kernel reading the same arrays through the ids 0..48.
    let strides: [u32; 16] = std::array::from_fn(|r| match r % 4 {
        3 => 0,
        1 => 192,
        _ => 256,
    });
    let stepped = IoMode::Draw(DrawLayout {
        order: DrawOrder::Stepped(strides),
        ..layout
    });
    let s8 = x64::compile(func, Tier::Avx2, stepped).expect("the indexed layout compiled");
    let Some(s16) = compile16(name, func, stepped, t) else {
        return;
    };
    let what = format!("{name} stepped draw");
    let count = 48;
    let data: Vec<f32> = (0..count)
        .flat_map(|v| inputs[v * 5 % inputs.len()].into_iter().flatten())
        .collect();
    let arrays: [Option<DrawInput<'_>>; 16] = std::array::from_fn(|r| {
        Some(DrawInput {
            data: &data[r * 4..],
            stride: strides[r] as usize / 4,
        })
    });
    let ids: Vec<u32> = (0..count as u32).collect();
    let run = |code: &ExecCode, vertices: DrawVertices<'_>, w: usize| {
        let mut ctx = context(uniforms, budget);
        let mut out = emu_support::output_buffer(&layout, count);
        let mut st = vec![0u32; count / w];
        code.run_draw(&mut ctx, vertices, &arrays, &mut out, &mut st)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        (b(&out), st)
    };
    let (reference, st_ref) = run(&native, DrawVertices::Ids(&ids), 8);
    let (out8, st8) = run(
        &ExecCode::new(&s8).expect("host runs AVX2"),
        DrawVertices::Range(count),
        8,
    );
    let (out16, st16) = run(
        &ExecCode::new(&s16).expect("the tier runs, natively or emulated"),
        DrawVertices::Range(count),
        16,
    );
    assert_eq!(st8, st_ref, "{what}: AVX2 statuses");
    same_bits(&format!("{what}: AVX2"), &out8, &reference);
    let per = DRAW_SLOTS;
    for g in finished_groups(&what, &st8, &st16, t) {
        let at = 16 * g * per..16 * (g + 1) * per;
        same_bits(
            &format!("{what}: vertices {}..{}", 16 * g, 16 * g + 16),
            &out8[at.clone()],
            &out16[at],
        );
        t.groups += 1;
    }
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

fn fuzz_count() -> u64 {
    std::env::var("PICAJIT_EMU_FUZZ")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150)
}

fn report(what: &str, t: &Tally) {
    eprintln!(
        "AVX-512 W=16 (emulated) vs AVX2 (CPU), {what}: {} kernels, {} 16-vertex groups equal, {} skipped (budget exhausted; {} only at W = 16), {} triangles, {} draw kernels, {} emulated instructions of {} forms, 0 differences; {} refused {:?}",
        t.kernels,
        t.groups,
        t.exhausted,
        t.only16,
        t.triangles,
        t.draws,
        t.steps,
        t.codes.len(),
        t.refused.len(),
        t.refused
    );
}

fn skip() -> bool {
    if Tier::Avx2.host_supports() {
        return false;
    }
    eprintln!("SKIPPED: the CPU reference needs AVX2");
    true
}

#[test]
fn builtin_and_corpus_kernels_match_avx2() {
    if skip() {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut programs: Vec<(String, Program)> = Vec::new();
    let files = |dir: PathBuf, ext: &str| {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        v.sort();
        v
    };
    let shaders = files(root.join("examples/shaders"), "pica");
    let corpus = files(root.join("../shared/corpus/shbin"), "shbin");
    assert!(corpus.len() >= 13, "corpus has {} files", corpus.len());
    for path in shaders {
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
    for path in corpus {
        let shbin = Shbin::parse(&std::fs::read(&path).unwrap()).unwrap();
        for k in 0..shbin.dvles.len() {
            programs.push((
                format!("{} DVLE {k}", path.display()),
                shbin.program(k).unwrap(),
            ));
        }
    }
    let mut t = Tally::default();
    let mut native = 0;
    for (i, (name, program)) in programs.iter().enumerate() {
        let Some(func) = lowered(program) else {
            continue;
        };
        native += 1;
        let uniforms = seeded_uniforms(i as u64 + 1);
        let inputs = seeded_inputs(i as u64 + 100);
        agree(name, &func, &uniforms, &inputs, 4096, &mut t);
    }
    report(&format!("{native} built-in and corpus programs"), &t);
    assert!(native >= 13, "only {native} programs compiled natively");
    assert!(t.refused.is_empty(), "refused: {:?}", t.refused);
    assert_eq!(t.kernels, 2 * native, "every function in AoS and SoA");
}

#[test]
fn fuzz_kernels_match_avx2() {
    if skip() {
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
        let name = format!("fuzz seed {seed}");
        agree(&name, &func, &c.uniforms, &c.inputs, case.budget, &mut t);
    }
    report(&format!("{cases} generated programs ({native} native)"), &t);
    assert!(
        native * 2 > cases as usize,
        "only {native} of {cases} native"
    );
    assert!(t.refused.is_empty(), "refused: {:?}", t.refused);
    assert!(t.groups > t.exhausted, "most groups run to the end");
}

#[test]
fn agal_kernels_match_avx2() {
    if skip() {
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
    report(&format!("{cases} AGAL programs ({native} native)"), &t);
    assert!(native > 0, "no AGAL program compiled natively");
    assert!(t.refused.is_empty(), "refused: {:?}", t.refused);
}

/// What one lane of a geometry batch produced: its 64 output words, its status bit, and the
/// triangles it is set in (each vertex's 64 words, then the winding bit), in order.
#[derive(Debug, PartialEq, Eq)]
struct LaneResult {
    outputs: Vec<u32>,
    exhausted: bool,
    triangles: Vec<(Vec<u32>, bool)>,
}

/// Runs a geometry batch: the context, the outputs, the status word, the emit buffers.
type RunBatch<'a> = dyn FnMut(&mut Context, &mut [Regs16], &mut [u32], EmitBuffer<'_>) + 'a;

/// Runs one geometry batch of `lanes` vertices and splits its results by lane.
fn geometry_batch(
    what: &str,
    run: &mut RunBatch<'_>,
    ctx: &mut Context,
    lanes: usize,
) -> (u32, Vec<LaneResult>) {
    const CAPACITY: usize = 16;
    let blank: Triangle = [[[Lanes::default(); 4]; 16]; 3];
    let mut tris = vec![blank; CAPACITY];
    let mut masks: Vec<TriangleMasks> = vec![[0; 2]; CAPACITY];
    let mut out = vec![[[7.0f32; 4]; 16]; lanes];
    let mut status = [0u32];
    run(
        ctx,
        &mut out,
        &mut status,
        EmitBuffer {
            triangles: &mut tris,
            masks: &mut masks,
        },
    );
    let count = ctx.scalars.emit_count as usize;
    assert!(count <= CAPACITY, "{what}: {count} triangles");
    let per_lane = (0..lanes)
        .map(|l| LaneResult {
            outputs: out[l].iter().flatten().map(|x| x.to_bits()).collect(),
            exhausted: status[0] >> l & 1 != 0,
            triangles: (0..count)
                .filter(|&k| masks[k][0] >> l & 1 != 0)
                .map(|k| {
                    let words = tris[k]
                        .iter()
                        .flatten()
                        .flatten()
                        .map(|c| c.0[l].to_bits())
                        .collect();
                    (words, masks[k][1] >> l & 1 != 0)
                })
                .collect(),
        })
        .collect();
    (status[0], per_lane)
}

/// A geometry kernel: one 16-lane batch (emulated) against two 8-lane batches (CPU), per lane.
fn agree_geometry(
    name: &str,
    func: &Verified,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
    t: &mut Tally,
) {
    let Some(k16) = compile16(name, func, IoMode::Aos, t) else {
        return;
    };
    let k8 = x64::compile(func, Tier::Avx2, IoMode::Aos).unwrap_or_else(|e| panic!("{e}"));
    let native = ExecCode::new(&k8).expect("host runs AVX2");
    let emu = ExecCode::emulated(&k16);
    let input: Vec<Regs16> = inputs.iter().cycle().take(16).copied().collect();
    let mut ctx = context(uniforms, budget);
    let (s16, lanes16) = geometry_batch(
        name,
        &mut |ctx, out, st, emit| {
            emu.run_aos(ctx, &input, out, st, Some(emit))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        },
        &mut ctx,
        16,
    );
    let mut lanes8 = Vec::new();
    let mut s8 = 0;
    for (h, half) in input.chunks(8).enumerate() {
        let mut ctx = context(uniforms, budget);
        let (s, lanes) = geometry_batch(
            name,
            &mut |ctx, out, st, emit| {
                native
                    .run_aos(ctx, half, out, st, Some(emit))
                    .expect("native run");
            },
            &mut ctx,
            8,
        );
        s8 |= (s & 0xFF) << (8 * h) | (s & STATUS_OVERFLOW);
        lanes8.extend(lanes);
    }
    t.kernels += 1;
    t.record(&emu);
    if s8 != 0 || s16 != 0 {
        assert!(
            s16 != 0 && s8 & !s16 & 0xFFFF == 0,
            "{name}: AVX2 status {s8:#x}, AVX-512 status {s16:#x}"
        );
        t.exhausted += 1;
        t.only16 += usize::from(s8 == 0);
        return;
    }
    for (l, (a, b)) in lanes8.iter().zip(&lanes16).enumerate() {
        same_bits(&format!("{name}: lane {l} outputs"), &a.outputs, &b.outputs);
        assert_eq!(
            a.triangles.len(),
            b.triangles.len(),
            "{name}: lane {l} triangles"
        );
        for (k, (x, y)) in a.triangles.iter().zip(&b.triangles).enumerate() {
            same_bits(&format!("{name}: lane {l} triangle {k}"), &x.0, &y.0);
            assert_eq!(x.1, y.1, "{name}: lane {l} triangle {k} winding");
        }
        t.triangles += b.triangles.len() as u64;
    }
    t.groups += 1;
}

#[test]
fn geometry_kernels_match_avx2_per_lane() {
    if skip() {
        return;
    }
    let cases = fuzz_count().div_ceil(3);
    let config = Config::default();
    let (mut t, mut native) = (Tally::default(), 0);
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
        let name = format!("geometry seed {seed}");
        agree_geometry(&name, &func, &c.uniforms, &c.inputs, case.budget, &mut t);
    }
    report(&format!("{cases} geometry programs ({native} native)"), &t);
    assert!(
        native * 2 > cases as usize,
        "only {native} of {cases} native"
    );
    assert!(t.refused.is_empty(), "refused: {:?}", t.refused);
    assert!(t.triangles > 0, "no triangle compared");
}
