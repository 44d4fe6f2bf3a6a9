//! AGAL programs compiled through the shared IR, on every engine: the AGAL interpreter is the
//! reference; each runnable backend (interpreter engine, x86-64 tiers, AArch64 under qemu)
//! runs the same program through [`Engine::compile_agal`] — AoS, SoA and `run_par` — and the
//! IR evaluator runs the lowered function; all must agree bit for bit (a NaN equals any NaN).
//! Programs: the examples of `examples/agal/` and seeded random valid programs
//! (`agal::gen_valid`) over every opcode the frontend lowers, with special float inputs.

use std::path::Path;

use picajit::agal::asm::{assemble, Options};
use picajit::agal::interp::{self, CpuTextures, Fragment, Level, Texture, Textures, Vertex};
use picajit::agal::validate::{validate, Options as VOptions};
use picajit::agal::{gen_valid, lower, Opcode, Program, ShaderKind};
use picajit::codegen::abi::{Context, CONST_ENTRIES, MAX_LANES};
use picajit::engine::{AgalShader, Backend, Engine, ExecPath, SoaBuffer};
use picajit::program::Regs16;

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[track_caller]
fn assert_regs(what: &str, got: &[[f32; 4]], want: &[[f32; 4]]) {
    for (r, (g, w)) in got.iter().zip(want).enumerate() {
        for c in 0..4 {
            assert!(
                same(g[c], w[c]),
                "{what}: register {r}.{c}: {} ({:#x}) vs {} ({:#x})",
                g[c],
                g[c].to_bits(),
                w[c],
                w[c].to_bits()
            );
        }
    }
}

/// A value from a pool that hits the edge cases: small integers (indices), ordinary values,
/// zeros, infinities, NaN, subnormals, huge and tiny numbers.
fn value(rng: &mut fastrand::Rng) -> f32 {
    match rng.u8(..24) {
        0 => 0.0,
        1 => -0.0,
        2 => f32::INFINITY,
        3 => f32::NEG_INFINITY,
        4 => f32::NAN,
        5 => f32::from_bits(rng.u32(1..0x0080_0000)) * if rng.bool() { 1.0 } else { -1.0 },
        6 => f32::MAX,
        7 => 1e30 * (rng.f32() - 0.5),
        8 => 1e-30 * (rng.f32() - 0.5),
        9..=12 => rng.i32(-4..260) as f32 + if rng.bool() { 0.0 } else { rng.f32() },
        13 => f32::from_bits(rng.u32(..)),
        _ => (rng.f32() - 0.5) * 8.0,
    }
}

fn vec4(rng: &mut fastrand::Rng) -> [f32; 4] {
    std::array::from_fn(|_| value(rng))
}

/// Runs `program` on every engine and the IR evaluator against the interpreter. Vertex
/// programs get `n` vertices of one instance; fragment programs `n / 4` quads.
fn check_program(
    program: &Program,
    constants: &[[f32; 4]],
    textures: &(dyn Textures + Sync),
    inputs: &[Regs16],
    instance_id: u32,
    name: &str,
) -> Vec<Regs16> {
    let n = inputs.len();
    // The reference, in the engine's register map.
    let want: Vec<Regs16> = match program.kind {
        ShaderKind::Vertex => {
            let vs: Vec<Vertex> = inputs
                .iter()
                .map(|a| Vertex {
                    attributes: *a,
                    instance_id,
                })
                .collect();
            interp::run_vertices(program, constants, textures, &vs)
                .unwrap()
                .iter()
                .map(|o| {
                    let mut r = [[0.0; 4]; 16];
                    r[0] = o.position;
                    r[1..11].copy_from_slice(&o.varyings);
                    r
                })
                .collect()
        }
        ShaderKind::Fragment => {
            let quads: Vec<[Fragment; 4]> = inputs
                .chunks_exact(4)
                .map(|q| {
                    std::array::from_fn(|l| Fragment {
                        varyings: std::array::from_fn(|i| q[l][i]),
                    })
                })
                .collect();
            interp::run_quads(program, constants, textures, &quads)
                .unwrap()
                .iter()
                .flatten()
                .map(|f| {
                    let mut r = [[0.0; 4]; 16];
                    r[..4].copy_from_slice(&f.colors);
                    r[4][0] = f.depth;
                    r[5][0] = if f.killed { 1.0 } else { 0.0 };
                    r
                })
                .collect()
        }
    };
    let mut checked = 0;
    for backend in Backend::runnable() {
        let engine = Engine::new(backend).unwrap();
        let shader = engine.compile_agal(program);
        let lowers = lower::lower(program).is_ok();
        if backend != Backend::Interp {
            assert_eq!(
                matches!(shader.path(), ExecPath::Native(_)),
                lowers,
                "{name} on {}: {}",
                backend.name(),
                shader.path()
            );
        }
        let mask = shader.outputs_written();
        let pick = |regs: &Regs16| -> Vec<[f32; 4]> {
            (0..16)
                .map(|r| {
                    if mask >> r & 1 != 0 {
                        regs[r]
                    } else {
                        [0.0; 4]
                    }
                })
                .collect()
        };
        let mut out = vec![[[0.0; 4]; 16]; n];
        run(
            &shader,
            constants,
            instance_id,
            textures,
            inputs,
            &mut out,
            false,
        );
        let mut par = vec![[[0.0; 4]; 16]; n];
        run(
            &shader,
            constants,
            instance_id,
            textures,
            inputs,
            &mut par,
            true,
        );
        let soa_in = SoaBuffer::from_aos(inputs);
        let mut soa_out = SoaBuffer::new(n);
        shader
            .run_soa(constants, instance_id, textures, &soa_in, &mut soa_out)
            .unwrap();
        let soa = soa_out.to_aos();
        for v in 0..n {
            let what = format!("{name}: {} item {v}", backend.name());
            assert_regs(&format!("{what} (AoS)"), &pick(&out[v]), &pick(&want[v]));
            assert_regs(
                &format!("{what} (run_par)"),
                &pick(&par[v]),
                &pick(&want[v]),
            );
            assert_regs(&format!("{what} (SoA)"), &pick(&soa[v]), &pick(&want[v]));
        }
        checked += 1;
    }
    assert!(
        checked >= 2,
        "at least the interpreter engine and one backend"
    );
    if let Ok(lowered) = lower::lower(program) {
        // Segment after segment on the evaluator, sampling between them as the engine does.
        let mut got = inputs.to_vec();
        for (k, func) in lowered.segments.iter().enumerate() {
            got = eval(func, program, constants, instance_id, &got);
            if let Some(s) = lowered.samples.get(k) {
                s.apply(textures, &mut got);
            }
        }
        let last = lowered.segments.last().unwrap();
        for v in 0..n {
            // The evaluator's stores: the IR's own outputs (those the program writes).
            let what = format!("{name}: IR evaluator item {v}");
            let regs: Vec<usize> = (0..16).filter(|&r| func_stores(last, r)).collect();
            for r in regs {
                assert_regs(&what, &[got[v][r]], &[want[v][r]]);
            }
        }
    }
    want
}

fn func_stores(func: &picajit::codegen::ir::Function, reg: usize) -> bool {
    func.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| i.op == picajit::codegen::ir::Op::Output && i.imm[0] as usize == reg)
}

fn run(
    shader: &AgalShader,
    constants: &[[f32; 4]],
    instance_id: u32,
    textures: &(dyn Textures + Sync),
    inputs: &[Regs16],
    out: &mut [Regs16],
    par: bool,
) {
    if par {
        shader
            .run_par(constants, instance_id, textures, inputs, out)
            .unwrap();
        return;
    }
    match shader.program().kind {
        ShaderKind::Vertex => shader
            .run_vertices(constants, instance_id, textures, inputs, out)
            .unwrap(),
        ShaderKind::Fragment => shader
            .run_fragments(constants, textures, inputs, out)
            .unwrap(),
    }
}

/// The IR evaluator over batches of 16 lanes (whole quads).
fn eval(
    func: &picajit::codegen::ir::Function,
    program: &Program,
    constants: &[[f32; 4]],
    instance_id: u32,
    inputs: &[Regs16],
) -> Vec<Regs16> {
    let mut out = Vec::new();
    for chunk in inputs.chunks(MAX_LANES) {
        let mut ctx = Box::<Context>::default();
        let k = constants
            .len()
            .min(program.constant_count() as usize)
            .min(CONST_ENTRIES);
        ctx.constants[..k].copy_from_slice(&constants[..k]);
        ctx.uniforms[0] = [instance_id as f32; 4];
        for (l, regs) in chunk.iter().enumerate() {
            for (r, reg) in regs.iter().enumerate() {
                for (c, &x) in reg.iter().enumerate() {
                    ctx.input[r][c].0[l] = x;
                }
            }
        }
        picajit::frontend::eval::eval(func, &mut ctx, chunk.len());
        for l in 0..chunk.len() {
            out.push(std::array::from_fn(|r| {
                std::array::from_fn(|c| ctx.output[r][c].0[l])
            }));
        }
    }
    out
}

fn example(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/agal")
        .join(name);
    let text = std::fs::read_to_string(path).unwrap();
    let a = assemble(name, &text, &Options::default()).unwrap();
    validate(&a.bytes, &VOptions::default()).unwrap()
}

fn inputs(rng: &mut fastrand::Rng, n: usize) -> Vec<Regs16> {
    (0..n).map(|_| std::array::from_fn(|_| vec4(rng))).collect()
}

fn textures(rng: &mut fastrand::Rng) -> CpuTextures {
    let mut t = CpuTextures::new();
    for unit in 0..4 {
        let texels = (0..16)
            .map(|_| std::array::from_fn(|_| rng.f32()))
            .collect();
        t.bind(
            unit,
            Texture::two_d(vec![Level {
                width: 4,
                height: 4,
                texels,
            }]),
        )
        .unwrap();
    }
    t
}

#[test]
fn vertex_examples_compile_natively_and_agree() {
    let mut rng = fastrand::Rng::with_seed(16);
    for name in [
        "textured_quad.vertex.agal",
        "skinning.vertex.agal",
        "heightmap.vertex.agal",
    ] {
        let p = example(name);
        assert!(lower::lower(&p).is_ok(), "{name} lowers");
        // Skinning: joint indices in va1 that hit the matrices (multiples of 4 up to 60), and
        // a few out of the constant file.
        let constants: Vec<[f32; 4]> = (0..128).map(|_| vec4(&mut rng)).collect();
        let mut ins = inputs(&mut rng, 37);
        for (k, v) in ins.iter_mut().enumerate() {
            v[1] = std::array::from_fn(|c| ((k * 4 + c * 8) % 72) as f32);
            if k % 9 == 0 {
                v[1][0] = 130.0 + k as f32;
            }
        }
        let t = textures_for(&p, &mut rng);
        check_program(&p, &constants, &t, &ins, 0, name);
    }
}

#[test]
fn fragment_examples_agree_on_every_engine() {
    let mut rng = fastrand::Rng::with_seed(17);
    let t = textures(&mut rng);
    for name in [
        "textured_quad.fragment.agal",
        "wave_filter.fragment.agal",
        "two_textures.fragment.agal",
    ] {
        let p = example(name);
        let constants: Vec<[f32; 4]> = (0..28).map(|_| vec4(&mut rng)).collect();
        let ins: Vec<Regs16> = (0..24)
            .map(|_| std::array::from_fn(|_| std::array::from_fn(|_| rng.f32() * 2.0 - 0.5)))
            .collect();
        check_program(&p, &constants, &t, &ins, 0, name);
    }
}

/// Opcodes the frontend lowers (all the validator accepts: `ted` never is).
fn lowered(op: Opcode) -> bool {
    op != Opcode::Ted
}

/// Textures for every unit `program` samples, of the declared dimension: 4×4 (faces), with
/// their mip chain, random texels.
fn textures_for(program: &Program, rng: &mut fastrand::Rng) -> CpuTextures {
    let mut t = CpuTextures::new();
    for s in &program.interface.samplers {
        let faces = if s.state.dim == picajit::agal::sampling::Dim::Cube {
            6
        } else {
            1
        };
        let mut level = |n: u32| Level {
            width: n,
            height: n,
            texels: (0..n * n)
                .map(|_| std::array::from_fn(|_| rng.f32()))
                .collect(),
        };
        let texture = Texture {
            dim: s.state.dim,
            faces: (0..faces)
                .map(|_| vec![level(4), level(2), level(1)])
                .collect(),
        };
        t.bind(s.unit, texture).unwrap();
    }
    t
}

#[test]
fn random_programs_agree_on_every_engine() {
    let mut rng = fastrand::Rng::with_seed(1616);
    let programs = 1000;
    for n in 0..programs {
        let kind = if n % 2 == 0 {
            ShaderKind::Vertex
        } else {
            ShaderKind::Fragment
        };
        let version = 1 + (n / 2) % 4;
        let len = rng.usize(1..30);
        let bytes = gen_valid::program(&mut rng, kind, version, len, &lowered);
        let p = validate(&bytes, &VOptions::default()).unwrap();
        // Lowered, unless a sample has more live state than the intermediate layout carries
        // (then the engine says so and runs the interpreter).
        match lower::lower(&p) {
            Ok(_) | Err(lower::Unsupported::TooMuchState(_)) => {}
            Err(e) => panic!("random program {n}: {e}"),
        }
        let constants: Vec<[f32; 4]> = (0..rng.usize(..260)).map(|_| vec4(&mut rng)).collect();
        let count = 4 * rng.usize(1..6);
        let ins = inputs(&mut rng, count);
        let name = format!(
            "random program {n}\n{}",
            picajit::agal::disasm::disassemble(&bytes)
        );
        let t = textures_for(&p, &mut rng);
        let id = rng.u32(..1000);
        check_program(&p, &constants, &t, &ins, id, &name);
    }
}

#[test]
fn compile_is_cached_and_bad_runs_are_refused() {
    let engine = Engine::new(Backend::Auto).unwrap();
    let p = example("skinning.vertex.agal");
    let a = engine.compile_agal(&p);
    let b = engine.compile_agal(&p);
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    let mut out = vec![[[0.0; 4]; 16]; 3];
    let err = a
        .run_vertices(&[], 0, &interp::NoTextures, &[[[0.0; 4]; 16]; 2], &mut out)
        .unwrap_err();
    assert_eq!(err.to_string(), "2 inputs but 3 outputs");
    let err = a
        .run_fragments(&[], &interp::NoTextures, &[[[0.0; 4]; 16]; 3], &mut out)
        .unwrap_err();
    assert_eq!(err.to_string(), "a vertex program cannot run as fragment");
    let f = engine.compile_agal(&example("textured_quad.fragment.agal"));
    let err = f
        .run_fragments(&[], &interp::NoTextures, &[[[0.0; 4]; 16]; 3], &mut out)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "texture unit 0 is sampled by the program but has no texture"
    );
    let t = textures(&mut fastrand::Rng::with_seed(1));
    let err = f
        .run_fragments(&[], &t, &[[[0.0; 4]; 16]; 3], &mut out)
        .unwrap_err();
    assert_eq!(err.to_string(), "3 fragments are not whole 2x2 quads");
}

#[test]
fn nested_conditionals_mask_writes_per_vertex() {
    let text = "\
.vertex
.version 2
mov vt0, vc0            // (10, 20, 30, 40)
ifg va0.x, vc1.x        // va0.x > 0
mov vt0.x, vc2.x        //   x = 1
ifl va0.y, vc1.x        //   va0.y < 0
mov vt0.y, vc2.y        //     y = 2
els
mov vt0.z, vc2.z        //     z = 3
eif
els
mov vt0.w, vc2.w        //   w = 4
eif
mov op, vt0
";
    let a = assemble("nested.agal", text, &Options::default()).unwrap();
    let p = validate(&a.bytes, &VOptions::default()).unwrap();
    let constants = [[10.0, 20.0, 30.0, 40.0], [0.0; 4], [1.0, 2.0, 3.0, 4.0]];
    let nan = f32::NAN;
    let cases: [([f32; 2], [f32; 4]); 6] = [
        ([1.0, -1.0], [1.0, 2.0, 30.0, 40.0]),
        ([1.0, 1.0], [1.0, 20.0, 3.0, 40.0]),
        ([-1.0, -1.0], [10.0, 20.0, 30.0, 4.0]),
        ([nan, -1.0], [10.0, 20.0, 30.0, 4.0]), // NaN > 0 is false: the outer else
        ([1.0, nan], [1.0, 20.0, 3.0, 40.0]),   // NaN < 0 is false: the inner else
        ([0.0, -1.0], [10.0, 20.0, 30.0, 4.0]), // 0 > 0 is false
    ];
    let ins: Vec<Regs16> = cases
        .iter()
        .map(|(xy, _)| {
            let mut r = [[0.0; 4]; 16];
            r[0] = [xy[0], xy[1], 0.0, 0.0];
            r
        })
        .collect();
    let got = check_program(&p, &constants, &interp::NoTextures, &ins, 0, "nested");
    for ((_, want), g) in cases.iter().zip(&got) {
        assert_eq!(g[0], *want);
    }
}

#[test]
fn derivatives_within_each_quad() {
    let text = "\
.fragment
.version 2
ddx ft0, v0
ddy ft1, v0
add ft0.zw, ft0.xxxy, ft1.xxxy
mov oc, ft0
";
    let a = assemble("deriv.agal", text, &Options::default()).unwrap();
    let p = validate(&a.bytes, &VOptions::default()).unwrap();
    // Two quads: v0.x = lane value, v0.y = its square.
    let vals = [1.0f32, 3.0, 10.0, 17.0, -2.0, 0.5, 4.0, 4.0];
    let ins: Vec<Regs16> = vals
        .iter()
        .map(|&x| {
            let mut r = [[0.0; 4]; 16];
            r[0] = [x, x * x, 0.0, 0.0];
            r
        })
        .collect();
    let got = check_program(&p, &[], &interp::NoTextures, &ins, 0, "derivatives");
    // Quad 1: ddx rows (3 − 1, 17 − 10) = 2, 7; ddy columns (10 − 1, 17 − 3) = 9, 14.
    // oc = (ddx.x, ddx.y, ddx.x + ddy.x, ddx.y + ddy.y).
    for (l, g) in got.iter().enumerate().take(4) {
        let (row, col) = (l / 2, l % 2);
        let v = |r: usize, c: usize| vals[r * 2 + c];
        let ddx = v(row, 1) - v(row, 0);
        let ddx2 = v(row, 1) * v(row, 1) - v(row, 0) * v(row, 0);
        let ddy = v(1, col) - v(0, col);
        let ddy2 = v(1, col) * v(1, col) - v(0, col) * v(0, col);
        assert_eq!(g[0], [ddx, ddx2, ddx + ddy, ddx2 + ddy2], "lane {l}");
    }
    // Quad 2 by hand: ddx = 0.5 − (−2) = 2.5 (row 0), 0 (row 1); ddy = 4 − (−2) = 6 (col 0),
    // 4 − 0.5 = 3.5 (col 1).
    assert_eq!(got[4][0][0], 2.5);
    assert_eq!(got[6][0][0], 0.0);
    assert_eq!(got[4][0][2], 2.5 + 6.0);
    assert_eq!(got[5][0][2], 2.5 + 3.5);
    assert_eq!(got[7][0][2], 3.5);
}

#[test]
fn vertex_texture_fetch_compiles_and_picks_the_explicit_level() {
    // `tld` between arithmetic: the level of detail is the coordinate's `.w`, the texel goes
    // to `op` and (through a temporary carried across the sample) to `v0` and `v1`.
    let text = "\
.vertex
.version 4
mov vt0, va0
mul vt2, va1, vc0
mov v1, vt2
tld vt1, vt0, vs0 <2d,nearest,mipnearest,clamp>
add op, vt1, vt2
mov v0, vt1
";
    let a = assemble("tld.agal", text, &Options::default()).unwrap();
    let p = validate(&a.bytes, &VOptions::default()).unwrap();
    let engine = Engine::new(Backend::Auto).unwrap();
    if engine.backend() != Backend::Interp {
        let shader = engine.compile_agal(&p);
        assert!(
            matches!(shader.path(), ExecPath::Native(_)),
            "{}",
            shader.path()
        );
        assert_eq!(shader.samples().len(), 1);
        assert_eq!(shader.samples()[0].lod, lower::SampleLod::Explicit);
        assert_eq!(engine.stats().agal_fallbacks, 0);
        // A program with more state across a sample than is carried: counted, and its path
        // says why.
        let mut src = String::from(".vertex\n.version 4\n");
        for t in 0..15 {
            src += &format!("mov vt{t}, va{t}\n");
        }
        src += "tld vt15, va15, vs0 <2d,nearest>\n";
        for t in 0..15 {
            src += &format!("add vt15, vt15, vt{t}\n");
        }
        src += "add op, vt15, va15\n";
        let a = assemble("wide.agal", &src, &Options::default()).unwrap();
        let wide = engine.compile_agal(&validate(&a.bytes, &VOptions::default()).unwrap());
        assert_eq!(
            wide.path().to_string(),
            "interpreter fallback: 64 components live across a texture sample (at most 60 are carried)"
        );
        assert_eq!(engine.stats().agal_fallbacks, 1);
    }
    // Levels 4x4, 2x2, 1x1, each one colour: the texel says which level was read.
    let level = |n: u32, k: f32| Level {
        width: n,
        height: n,
        texels: vec![[k, 10.0 * k, 100.0 * k, 1.0]; (n * n) as usize],
    };
    let mut t = CpuTextures::new();
    t.bind(
        0,
        Texture::two_d(vec![level(4, 1.0), level(2, 2.0), level(1, 3.0)]),
    )
    .unwrap();
    // λ = w: level ceil(λ + 0.5) − 1, level 0 for λ ≤ 0 or NaN, the last past the end.
    let cases: [(f32, f32); 7] = [
        (0.0, 1.0),
        (1.0, 2.0),
        (2.0, 3.0),
        (7.0, 3.0),
        (-3.0, 1.0),
        (f32::NAN, 1.0),
        (0.4, 1.0),
    ];
    let ins: Vec<Regs16> = cases
        .iter()
        .enumerate()
        .map(|(k, &(w, _))| {
            let mut r = [[0.0; 4]; 16];
            r[0] = [0.1 * k as f32, 0.7, 0.0, w];
            r[1] = [k as f32, 1.0, 2.0, 3.0];
            r
        })
        .collect();
    let constants = [[2.0, 2.0, 2.0, 2.0]];
    let got = check_program(&p, &constants, &t, &ins, 0, "tld");
    for (k, ((_, l), g)) in cases.iter().zip(&got).enumerate() {
        let texel = [*l, 10.0 * l, 100.0 * l, 1.0];
        assert_eq!(g[1], texel, "v0 of vertex {k}");
        let scaled = [2.0 * k as f32, 2.0, 4.0, 6.0];
        assert_eq!(g[2], scaled, "v1 of vertex {k}");
        assert_eq!(
            g[0],
            std::array::from_fn(|c| texel[c] + scaled[c]),
            "op of {k}"
        );
    }
}

#[test]
fn vertex_buffers_are_widened_by_format_on_every_engine() {
    use picajit::agal::attributes::{AttributeStream, VertexFormat};
    // The Starling quad's vertex program: va0 position (float2 → z 0, w 1), va1 texture
    // coordinate (float2), va2 colour (bytes4), interleaved with a stride of 20 bytes.
    let p = example("textured_quad.vertex.agal");
    let corners: [([f32; 2], [f32; 2], [u8; 4]); 5] = [
        ([0.0, 0.0], [0.0, 0.0], [255, 0, 0, 255]),
        ([1.0, 0.0], [1.0, 0.0], [0, 255, 0, 128]),
        ([1.0, 1.0], [1.0, 1.0], [0, 0, 255, 0]),
        ([0.0, 1.0], [0.0, 1.0], [51, 102, 153, 204]),
        ([-3.5, 7.25], [0.5, 0.25], [1, 2, 3, 4]),
    ];
    let mut data = Vec::new();
    for (pos, uv, rgba) in &corners {
        for x in pos.iter().chain(uv) {
            data.extend(x.to_le_bytes());
        }
        data.extend(rgba);
    }
    let stream = |register, format, offset| AttributeStream {
        register,
        format,
        data: &data,
        offset,
        stride: 20,
    };
    let streams = [
        stream(0, VertexFormat::Float2, 0),
        stream(1, VertexFormat::Float2, 8),
        stream(2, VertexFormat::Bytes4, 16),
    ];
    // vc0..3: a scale-and-translate matrix; vc4: the alpha.
    let constants = [
        [2.0, 0.0, 0.0, 1.0],
        [0.0, 3.0, 0.0, -1.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
        [0.5; 4],
    ];
    // The interpreter on the attributes widened by hand.
    let vertices: Vec<Vertex> = corners
        .iter()
        .map(|(pos, uv, rgba)| {
            let mut v = Vertex::default();
            v.attributes[0] = [pos[0], pos[1], 0.0, 1.0];
            v.attributes[1] = [uv[0], uv[1], 0.0, 1.0];
            v.attributes[2] = rgba.map(|b| f32::from(b) / 255.0);
            v
        })
        .collect();
    let want = interp::run_vertices(&p, &constants, &interp::NoTextures, &vertices).unwrap();
    assert_eq!(want[1].position, [3.0, -1.0, 0.0, 1.0]);
    assert_eq!(want[1].varyings[1], [0.0, 0.5, 0.0, 128.0 / 255.0 * 0.5]);
    let mut engines = 0;
    for backend in Backend::runnable() {
        let engine = Engine::new(backend).unwrap();
        let shader = engine.compile_agal(&p);
        // From vertex 1: four vertices.
        let mut out = vec![[[0.0; 4]; 16]; 4];
        shader
            .run_vertex_buffers(&constants, 0, &interp::NoTextures, &streams, 1, &mut out)
            .unwrap();
        for (k, o) in out.iter().enumerate() {
            let w = &want[k + 1];
            let what = format!("{} vertex {}", backend.name(), k + 1);
            assert_regs(&what, &o[..3], &[w.position, w.varyings[0], w.varyings[1]]);
        }
        // Five vertices from vertex 1 read past the buffer.
        let mut five = vec![[[0.0; 4]; 16]; 5];
        let err = shader
            .run_vertex_buffers(&constants, 0, &interp::NoTextures, &streams, 1, &mut five)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "va0 of vertex 5: bytes 100..108 are past the buffer's 100"
        );
        engines += 1;
    }
    assert!(engines >= 2);
}

/// A sampler that counts its calls.
struct Counting {
    inner: CpuTextures,
    calls: std::sync::atomic::AtomicUsize,
}

impl Textures for Counting {
    fn bound(&self, unit: u16) -> Option<picajit::agal::sampling::Dim> {
        self.inner.bound(unit)
    }

    fn sample(
        &self,
        unit: u16,
        state: &picajit::agal::sampling::SamplerState,
        coords: &[[f32; 4]; 4],
        lod: interp::Lod,
    ) -> [[f32; 4]; 4] {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.sample(unit, state, coords, lod)
    }
}

#[test]
fn quads_with_no_executing_lane_are_not_sampled() {
    // The if/else texture selector: each quad takes one side only (v1.x alike in a quad), so
    // each `tex` samples only the quads on its side, on every engine as on the interpreter.
    let p = example("two_textures.fragment.agal");
    let mut rng = fastrand::Rng::with_seed(23);
    let counting = Counting {
        inner: textures(&mut rng),
        calls: std::sync::atomic::AtomicUsize::new(0),
    };
    let constants = [[0.5, 0.0, 0.0, 0.0]];
    // Six quads: sides 0, 1, 1, 0, 1, 1 (v1.x below or above fc0.x = 0.5).
    let sides = [0.0, 1.0, 1.0, 0.0, 1.0, 1.0];
    let ins: Vec<Regs16> = (0..24)
        .map(|k| {
            let mut r = [[0.0; 4]; 16];
            r[0] = [rng.f32(), rng.f32(), 0.0, 0.0];
            r[1] = [sides[k / 4], 0.0, 0.0, 0.0];
            r[2] = [1.0, 0.5, 0.25, 1.0];
            r
        })
        .collect();
    let calls = || counting.calls.swap(0, std::sync::atomic::Ordering::Relaxed);
    let quads: Vec<[Fragment; 4]> = ins
        .chunks_exact(4)
        .map(|q| {
            std::array::from_fn(|l| Fragment {
                varyings: std::array::from_fn(|i| q[l][i]),
            })
        })
        .collect();
    interp::run_quads(&p, &constants, &counting, &quads).unwrap();
    assert_eq!(calls(), 6, "the interpreter: one sample per quad");
    check_program(&p, &constants, &counting, &ins, 0, "two textures");
    calls();
    for backend in Backend::runnable() {
        let shader = Engine::new(backend).unwrap().compile_agal(&p);
        let mut out = vec![[[0.0; 4]; 16]; ins.len()];
        shader
            .run_fragments(&constants, &counting, &ins, &mut out)
            .unwrap();
        assert_eq!(calls(), 6, "{}: one sample per quad", backend.name());
    }
}
