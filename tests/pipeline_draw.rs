//! Draws through `picajit::pipeline` on every engine: a draw equals the interpreter run per
//! output vertex followed by the output map; dense index lists drawn as their vertex range,
//! sparse ones in order of first use; index lists of every width and ranges; strided,
//! short and fixed attributes; raw records; the geometry stage in point, variable-primitive
//! and fixed-primitive mode with b15; compile on change only; errors.

mod common;

use std::path::Path;
use std::sync::Arc;

use picajit::asm::{assemble, Source};
use picajit::engine::{Backend, DrawWidth, Engine};
use picajit::interp::Interpreter;
use picajit::pica::{program_commands, FloatMode, GsConfig, GsMode, SemanticSource, Unit};
use picajit::pipeline::{Attribute, DrawError, DrawOutput, Indices, OutputVertex, Pipeline};
use picajit::program::{Regs16, Uniforms, Vec4};
use picajit::shbin::Shbin;

fn shbin_of(files: &[(&str, &str)]) -> Shbin {
    let sources: Vec<Source> = files
        .iter()
        .map(|(name, text)| Source::new(name.to_string(), text.to_string()))
        .collect();
    match assemble(&sources) {
        Ok((shbin, _)) => shbin,
        Err(d) => panic!("{d:?}"),
    }
}

fn example(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/shaders")
            .join(name),
    )
    .unwrap()
}

/// An engine of [`pipelines`]: its backend and the width of its draw kernels.
#[derive(Clone, Copy)]
struct Drawing {
    backend: Backend,
    width: DrawWidth,
}

impl std::fmt::Debug for Drawing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} ({:?} draws)", self.backend, self.width)
    }
}

impl PartialEq<Backend> for Drawing {
    fn eq(&self, backend: &Backend) -> bool {
        self.backend == *backend
    }
}

/// Every engine this host runs (AArch64 under qemu too), each as a pipeline of its own; the
/// AVX-512 engine twice, drawing with its own 16-lane kernels and with AVX2 ones
/// ([`DrawWidth`]). Kernels compile on first use on the drawing thread, so the
/// uniform-specialized kernels run in every draw.
fn pipelines() -> Vec<(Drawing, Pipeline)> {
    pipelines_of(|engine| engine)
}

/// [`pipelines`], each engine first passed through `setup` (a step budget, say).
fn pipelines_of(setup: impl Fn(Engine) -> Engine) -> Vec<(Drawing, Pipeline)> {
    let available = Backend::runnable();
    if !available.contains(&Backend::Aarch64) {
        common::aarch64_missing();
    }
    available
        .into_iter()
        .flat_map(|backend| {
            let widths = match backend {
                Backend::X64Avx512 => &[DrawWidth::Full, DrawWidth::Avx2][..],
                Backend::Interp
                | Backend::X64Sse41
                | Backend::X64Avx2
                | Backend::Aarch64
                | Backend::Auto => &[DrawWidth::Auto][..],
            };
            let setup = &setup;
            widths.iter().map(move |&width| {
                let engine = Engine::new(backend)
                    .unwrap()
                    .with_background_compile(false)
                    .with_draw_width(width);
                let engine = setup(engine);
                (Drawing { backend, width }, Pipeline::new(Arc::new(engine)))
            })
        })
        .collect()
}

fn load(p: &mut Pipeline, shbin: &Shbin, dvle: usize) {
    for w in program_commands(shbin, dvle).unwrap() {
        p.write(w.reg, w.value, w.mask);
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter()
        .map(|x| if x.is_nan() { 0x7FC0_0000 } else { x.to_bits() })
        .collect()
}

/// Asserts that `out` holds as many output vertices as `want`, each equal slot for slot by
/// bits (NaN equals NaN).
fn assert_same_vertices(out: &DrawOutput, want: &DrawOutput, what: &str) {
    assert_eq!(out.vertices().len(), want.vertices().len(), "{what}");
    for (u, (g, w)) in out.vertices().iter().zip(want.vertices()).enumerate() {
        assert_eq!(bits(&g.slots), bits(&w.slots), "{what}: vertex {u}");
    }
}

/// The lighting example with three attributes: position (4 floats at offset 1 of an
/// interleaved array of stride 7), normal (3 floats, packed), colour (fixed).
struct Scene {
    interleaved: Vec<f32>,
    normals: Vec<f32>,
    color: Vec4,
    mvp: [Vec4; 4],
}

fn scene(vertices: usize) -> Scene {
    let mut rng = fastrand::Rng::with_seed(5);
    let mut f = || rng.f32() * 4.0 - 2.0;
    Scene {
        interleaved: (0..vertices * 7 + 1).map(|_| f()).collect(),
        normals: (0..vertices * 3).map(|_| f()).collect(),
        color: [0.25, -1.5, 0.75, f32::NAN],
        mvp: [
            [0.5, 0.0, 0.1, 1.0],
            [0.0, 0.7, 0.0, -1.0],
            [0.2, 0.0, 1.1, 0.0],
            [0.0, 0.0, 0.3, 1.0],
        ],
    }
}

impl Scene {
    fn attributes(&self) -> [Attribute<'_>; 3] {
        [
            Attribute::Array {
                data: &self.interleaved,
                offset: 1,
                stride: 7,
                components: 4,
            },
            Attribute::Array {
                data: &self.normals,
                offset: 0,
                stride: 3,
                components: 3,
            },
            Attribute::Fixed(self.color),
        ]
    }
    /// The input registers vertex `id` loads (v0 position, v1 normal with w = 1, v2 colour).
    fn inputs(&self, id: u32) -> Regs16 {
        let i = id as usize;
        let mut regs = [[0.0; 4]; 16];
        regs[0].copy_from_slice(&self.interleaved[1 + 7 * i..5 + 7 * i]);
        regs[1] = [
            self.normals[3 * i],
            self.normals[3 * i + 1],
            self.normals[3 * i + 2],
            1.0,
        ];
        regs[2] = self.color;
        regs
    }
}

fn lighting_setup(p: &mut Pipeline, s: &Scene) -> Shbin {
    let shbin = shbin_of(&[("lighting.v.pica", &example("lighting.v.pica"))]);
    load(p, &shbin, 0);
    let regs = p.regs_mut();
    regs.set_input_attributes(Unit::Vertex, 3, false);
    regs.set_permutation(Unit::Vertex, std::array::from_fn(|k| k as u8));
    regs.upload_floats(Unit::Vertex, 0, FloatMode::F32, &s.mvp);
    regs.upload_floats(
        Unit::Vertex,
        4,
        FloatMode::F32,
        &[
            [0.0, 0.6, 0.8, 0.0],
            [1.0, 0.9, 0.8, 1.0],
            [0.1, 0.1, 0.2, 1.0],
        ],
    );
    shbin
}

/// The output vertex of one interpreter run of the lighting shader: o0 → position, o1 →
/// colour as `min(|c|, 1)` (NaN → 1.0), every other slot 1.0.
fn lighting_vertex(program: &Interpreter, uniforms: &Uniforms, inputs: &Regs16) -> OutputVertex {
    let o = program.run_vertex(uniforms, inputs).outputs;
    let mut slots = [1.0f32; 24];
    slots[..4].copy_from_slice(&o[0]);
    for c in 0..4 {
        let a = o[1][c].abs();
        slots[8 + c] = if a < 1.0 { a } else { 1.0 };
    }
    OutputVertex { slots }
}

/// The output numbering `out` must have for `indices`: each index refers to an output
/// vertex loaded from it, no vertex is computed twice, and the vertices are those of the
/// list's range in order when the range has at most as many vertices as the list has indices
/// (dense), else the indices in order of first use (sparse).
fn check_numbering(indices: Indices, out: &DrawOutput, what: &str) {
    assert_eq!(out.indices().len(), indices.len(), "{what}");
    assert_eq!(out.vertices().len(), out.vertex_ids().len(), "{what}");
    for (k, &u) in out.indices().iter().enumerate() {
        assert_eq!(
            out.vertex_ids()[u as usize],
            indices.get(k),
            "{what}: index {k}"
        );
    }
    let all: Vec<u32> = (0..indices.len()).map(|k| indices.get(k)).collect();
    let dense = all
        .iter()
        .min()
        .zip(all.iter().max())
        .filter(|&(&lo, &hi)| ((hi - lo) as usize) < all.len());
    let want: Vec<u32> = if let Some((&lo, &hi)) = dense {
        (lo..=hi).collect()
    } else {
        let mut seen = Vec::new();
        for &i in &all {
            if !seen.contains(&i) {
                seen.push(i);
            }
        }
        seen
    };
    assert_eq!(out.vertex_ids(), want, "{what}");
}

#[test]
fn draws_equal_the_interpreter_per_output_vertex_then_the_output_map() {
    let s = scene(300);
    let u16s: Vec<u16> = (0..3000u32).map(|k| ((k * 7919) % 300) as u16).collect();
    let u8s: Vec<u8> = (0..600u32).map(|k| ((k * 31) % 256) as u8).collect();
    let u32s: Vec<u32> = (0..2050u32).map(|k| (k * 13) % 299 + 1).collect();
    // Sparse lists: more vertices in their range than indices.
    let sparse16: Vec<u16> = (0..90u16).map(|k| 3 * ((k * 17) % 60) + 5).collect();
    let sparse32: Vec<u32> = vec![299, 7, 150, 7, 299, 8];
    let draws = [
        Indices::U16(&u16s),
        Indices::U8(&u8s),
        Indices::U32(&u32s),
        Indices::U16(&sparse16),
        Indices::U32(&sparse32),
        Indices::Range {
            first: 17,
            count: 283,
        },
        Indices::Range { first: 0, count: 5 },
        Indices::U16(&[]),
    ];
    for (backend, mut p) in pipelines() {
        let shbin = lighting_setup(&mut p, &s);
        let mut uniforms = p.regs().uniforms(Unit::Vertex).clone();
        shbin.dvles[0].apply_constants(&mut uniforms);
        assert_eq!(&uniforms, p.regs().uniforms(Unit::Vertex));
        let interp = Interpreter::new(&shbin.program(0).unwrap());
        let mut out = DrawOutput::with_raw();
        for indices in draws {
            p.draw(indices, &s.attributes(), &mut out).unwrap();
            check_numbering(indices, &out, &format!("{backend:?}"));
            for (u, &id) in out.vertex_ids().iter().enumerate() {
                let want = lighting_vertex(&interp, &uniforms, &s.inputs(id));
                assert_eq!(
                    bits(&out.vertices()[u].slots),
                    bits(&want.slots),
                    "{backend:?} vertex {id}"
                );
                let raw = interp.run_vertex(&uniforms, &s.inputs(id)).outputs;
                for (r, got) in out.raw()[u].iter().enumerate() {
                    let want = if r < 2 { raw[r] } else { [0.0; 4] };
                    assert_eq!(bits(got), bits(&want), "{backend:?} vertex {id} o{r}");
                }
            }
        }
        // The last draw had no index.
        assert!(out.vertices().is_empty());
    }
}

const MIXED_VS: &str = "
.fvec k
.out opos position
.out ocol color
.out otc texcoord0
.proc main
    mov opos, v0
    mul ocol, k, v1
    mov r0, v3
    add otc, v2, r0
    end
.end
";

#[test]
fn output_maps_that_split_registers_and_short_attributes_follow_the_hardware_rules() {
    // Attribute slots: o0 → position; o1.xyz → colour rgb (alpha unmapped: 1.0); o2 → texcoord0
    // v, u, texcoord0 w, view y; o3 (enabled, never written: 0.0) → texcoord1; a fifth slot past
    // the enabled registers (0.0) → texcoord2. Attributes of 4, 2 and 1 components and a fixed
    // one; u32 lists whose largest index shrinks between draws (stale table entries).
    let mut rng = fastrand::Rng::with_seed(11);
    let mut f = |n: usize| -> Vec<f32> { (0..n).map(|_| rng.f32() * 6.0 - 3.0).collect() };
    let (positions, pairs, singles) = (f(4 * 200), f(5 * 200), f(200));
    let fixed: Vec4 = [0.5, -0.25, 2.0, f32::NAN];
    let attributes = [
        Attribute::packed(&positions, 4),
        Attribute::Array {
            data: &pairs,
            offset: 2,
            stride: 5,
            components: 2,
        },
        Attribute::packed(&singles, 1),
        Attribute::Fixed(fixed),
    ];
    let inputs = |id: u32| -> Regs16 {
        let i = id as usize;
        let mut regs = [[0.0; 4]; 16];
        regs[0].copy_from_slice(&positions[4 * i..4 * i + 4]);
        regs[1] = [pairs[2 + 5 * i], pairs[3 + 5 * i], 0.0, 1.0];
        regs[2] = [singles[i], 0.0, 0.0, 1.0];
        regs[3] = fixed;
        regs
    };
    let shbin = shbin_of(&[("mixed.v.pica", MIXED_VS)]);
    let interp = Interpreter::new(&shbin.program(0).unwrap());
    let lists: [Vec<u32>; 3] = [
        (0..700u32).map(|k| (k * 37) % 200).collect(),
        (0..90u32).map(|k| (k * 11) % 50).collect(),
        (0..300u32).map(|k| 199 - (k * 7) % 120).collect(),
    ];
    for (backend, mut p) in pipelines() {
        load(&mut p, &shbin, 0);
        let regs = p.regs_mut();
        regs.set_input_attributes(Unit::Vertex, 4, false);
        regs.set_permutation(Unit::Vertex, std::array::from_fn(|k| k as u8));
        regs.upload_floats(Unit::Vertex, 0, FloatMode::F32, &[[2.0, -0.5, 1.5, -4.0]]);
        regs.set_output_mask(Unit::Vertex, 0b1111);
        regs.set_output_map(&[
            [0, 1, 2, 3],
            [8, 9, 10, 31],
            [13, 12, 16, 19],
            [14, 15, 31, 31],
            [22, 23, 31, 31],
        ]);
        let sources = p.regs().output_map().sources(0b1111);
        let uniforms = p.regs().uniforms(Unit::Vertex).clone();
        let mut out = DrawOutput::with_raw();
        for list in &lists {
            p.draw(Indices::U32(list), &attributes, &mut out).unwrap();
            assert_eq!(out.indices().len(), list.len());
            for (k, &u) in out.indices().iter().enumerate() {
                assert_eq!(out.vertex_ids()[u as usize], list[k], "{backend:?}");
            }
            for (u, &id) in out.vertex_ids().iter().enumerate() {
                let o = interp.run_vertex(&uniforms, &inputs(id)).outputs;
                let want: Vec<f32> = sources
                    .iter()
                    .enumerate()
                    .map(|(slot, source)| {
                        let x = match *source {
                            SemanticSource::Output { reg, comp } => {
                                o[usize::from(reg)][usize::from(comp)]
                            }
                            SemanticSource::Zero => 0.0,
                            SemanticSource::One => 1.0,
                        };
                        match (8..12).contains(&slot) {
                            true if x.abs() < 1.0 => x.abs(),
                            true => 1.0,
                            false => x,
                        }
                    })
                    .collect();
                assert_eq!(
                    bits(&out.vertices()[u].slots),
                    bits(&want),
                    "{backend:?} vertex {id}"
                );
                // Written registers raw; o3 and the rest 0.0.
                for (r, (got, o)) in out.raw()[u].iter().zip(o).enumerate() {
                    let want = if r < 3 { o } else { [0.0; 4] };
                    assert_eq!(bits(got), bits(&want), "{backend:?} o{r}");
                }
            }
            // The map really split registers: texcoord0 is (o2.y, o2.x), alpha 1.0, texcoord1
            // and texcoord2 0.0.
            let (v, id) = (&out.vertices()[0], out.vertex_ids()[0]);
            let o = interp.run_vertex(&uniforms, &inputs(id)).outputs;
            assert_eq!(bits(&v.texcoord0()), bits(&[o[2][1], o[2][0]]));
            assert_eq!(v.color()[3], 1.0);
            assert_eq!(v.texcoord1(), [0.0, 0.0]);
            assert_eq!(v.texcoord2(), [0.0, 0.0]);
        }
    }
}

/// What the geometry stage must produce, computed with the interpreter: per GS invocation
/// (inputs, uniforms), its triangles mapped o0 → position, o1 → colour, other slots 1.0.
fn gs_expected(gs: &Interpreter, runs: &[(Regs16, Uniforms)]) -> (Vec<OutputVertex>, Vec<bool>) {
    let mut vertices = Vec::new();
    let mut windings = Vec::new();
    for (inputs, uniforms) in runs {
        for tri in gs.run_vertex(uniforms, inputs).primitives {
            for v in &tri.vertices {
                let mut slots = [1.0f32; 24];
                slots[..4].copy_from_slice(&v[0]);
                for c in 0..4 {
                    let a = v[1][c].abs();
                    slots[8 + c] = if a < 1.0 { a } else { 1.0 };
                }
                vertices.push(OutputVertex { slots });
            }
            windings.push(tri.winding);
        }
    }
    (vertices, windings)
}

/// The lighting shader's o0 and o1 for vertex `id` (the geometry stage's attribute buffer).
fn vs_attributes(vs: &Interpreter, uniforms: &Uniforms, s: &Scene, id: u32) -> [Vec4; 2] {
    let o = vs.run_vertex(uniforms, &s.inputs(id)).outputs;
    [o[0], o[1]]
}

fn check_geometry(out: &DrawOutput, want: &(Vec<OutputVertex>, Vec<bool>), what: &str) {
    assert_eq!(out.windings(), want.1, "{what}: windings");
    assert_eq!(out.vertices().len(), want.0.len(), "{what}: vertices");
    for (k, (got, want)) in out.vertices().iter().zip(&want.0).enumerate() {
        assert_eq!(bits(&got.slots), bits(&want.slots), "{what}: vertex {k}");
    }
    assert_eq!(
        out.indices(),
        (0..out.vertices().len() as u32).collect::<Vec<_>>(),
        "{what}"
    );
}

const B15_GS: &str = "
.gsh point c20
.constf k(0.0, 1.0, 0.0, 0.0)
.out outpos position
.out outclr color
.proc main
    mov r0, k.xxxx
    ifu b15
        mov r0, k.yyyy
    .end
    setemit 0
    mov outpos, v0
    mov outclr, r0
    emit
    setemit 1
    mov outpos, v2
    mov outclr, v3
    emit
    setemit 2, prim inv
    mov outpos, v4
    mov outclr, r0
    emit
    end
.end
";

#[test]
fn geometry_point_mode_subdivides_and_sets_b15_after_every_invocation() {
    let s = scene(40);
    let list: Vec<u16> = (0..36u32).map(|k| ((k * 7) % 40) as u16).collect();
    for gs_text in [example("subdivide.g.pica"), B15_GS.to_string()] {
        for (backend, mut p) in pipelines() {
            let vs_shbin = lighting_setup(&mut p, &s);
            let gs_shbin = shbin_of(&[("gs.g.pica", &gs_text)]);
            load(&mut p, &gs_shbin, 0);
            let regs = p.regs_mut();
            regs.set_geometry_stage(Some(GsConfig {
                mode: GsMode::Point,
                fixed_vertices_minus_1: 0,
                stride_minus_1: 1,
                start_index: 0,
            }));
            regs.set_vs_output_total(2);
            regs.set_input_attributes(Unit::Geometry, 6, false);
            regs.set_permutation(Unit::Geometry, std::array::from_fn(|k| k as u8));
            regs.set_bool_uniforms(Unit::Geometry, 0);
            let vs_uniforms = p.regs().uniforms(Unit::Vertex).clone();
            let mut gs_uniforms = p.regs().uniforms(Unit::Geometry).clone();
            let vs = Interpreter::new(&vs_shbin.program(0).unwrap());
            let gs = Interpreter::new(&gs_shbin.program(0).unwrap());
            let mut runs = Vec::new();
            for tri in list.chunks(3) {
                let mut inputs = [[0.0; 4]; 16];
                for (v, &id) in tri.iter().enumerate() {
                    let [pos, clr] = vs_attributes(&vs, &vs_uniforms, &s, u32::from(id));
                    inputs[2 * v] = pos;
                    inputs[2 * v + 1] = clr;
                }
                runs.push((inputs, gs_uniforms.clone()));
                gs_uniforms.b |= 0x8000;
            }
            let want = gs_expected(&gs, &runs);
            let mut out = DrawOutput::new();
            p.draw(Indices::U16(&list), &s.attributes(), &mut out)
                .unwrap();
            check_geometry(&out, &want, &format!("{backend:?}"));
            assert_eq!(
                out.windings().len(),
                if gs_text == B15_GS { 12 } else { 48 }
            );
            assert_eq!(p.regs().uniforms(Unit::Geometry).b & 0x8000, 0x8000);
            if gs_text == B15_GS {
                // Invocation 0 saw b15 clear, the others set.
                assert_eq!(out.vertices()[0].color()[0], 0.0);
                assert_eq!(out.vertices()[3].color()[0], 1.0);
            }
        }
    }
}

const VARIABLE_GS: &str = "
.gsh variable c20 1
.out outpos position
.out outclr color
.proc main
    setemit 0
    mov outpos, c1
    mov outclr, c2
    emit
    setemit 1
    mov outpos, c3
    mov outclr, c0
    emit
    setemit 2, prim inv
    mov outpos, c4
    mov outclr, c2
    emit
    end
.end
";

#[test]
fn geometry_variable_primitive_mode_reads_counts_from_the_index_list() {
    let s = scene(20);
    // Primitives of 3, 4 and 3 vertices, then an incomplete one (dropped).
    let stream: Vec<u16> = vec![3, 5, 6, 7, 4, 1, 2, 3, 4, 3, 9, 5, 6, 4, 1];
    for (backend, mut p) in pipelines() {
        let vs_shbin = lighting_setup(&mut p, &s);
        let gs_shbin = shbin_of(&[("gs.g.pica", VARIABLE_GS)]);
        load(&mut p, &gs_shbin, 0);
        let regs = p.regs_mut();
        regs.set_geometry_stage(Some(GsConfig {
            mode: GsMode::VariablePrimitive,
            fixed_vertices_minus_1: 0,
            stride_minus_1: 1,
            start_index: 0,
        }));
        regs.set_vs_output_total(2);
        regs.set_input_attributes(Unit::Geometry, 1, true);
        regs.set_variable_main_vertices(1);
        let vs_uniforms = p.regs().uniforms(Unit::Vertex).clone();
        let base = p.regs().uniforms(Unit::Geometry).clone();
        let vs = Interpreter::new(&vs_shbin.program(0).unwrap());
        let gs = Interpreter::new(&gs_shbin.program(0).unwrap());
        let mut runs = Vec::new();
        let mut u = base.clone();
        for prim in [&stream[1..4], &stream[5..9], &stream[10..13]] {
            let n = prim.len() as f32;
            u.f[0] = [n; 4];
            let mut c = 1;
            for (k, &id) in prim.iter().enumerate() {
                let attrs = vs_attributes(&vs, &vs_uniforms, &s, u32::from(id));
                let take = if k == 0 { 2 } else { 1 };
                for a in &attrs[..take] {
                    u.f[c] = *a;
                    c += 1;
                }
            }
            runs.push(([[0.0; 4]; 16], u.clone()));
            u.b |= 0x8000;
        }
        let want = gs_expected(&gs, &runs);
        let mut out = DrawOutput::new();
        p.draw(Indices::U16(&stream), &s.attributes(), &mut out)
            .unwrap();
        check_geometry(&out, &want, &format!("{backend:?}"));
        assert_eq!(out.windings(), vec![true; 3]);
        // The vertex data stays in the geometry unit's uniforms (c0 = the last count).
        assert_eq!(p.regs().uniforms(Unit::Geometry).f[0], [3.0; 4]);
        let err = p.draw(
            Indices::Range { first: 0, count: 3 },
            &s.attributes(),
            &mut out,
        );
        assert_eq!(err, Err(DrawError::VariableNeedsIndices));
    }
}

const FIXED_GS: &str = "
.gsh fixed c20 c10 3
.out outpos position
.out outclr color
.proc main
    setemit 0
    mov outpos, c10
    mov outclr, c11
    emit
    setemit 1
    mov outpos, c12
    mov outclr, c13
    emit
    setemit 2, prim
    mov outpos, c14
    mov outclr, c15
    emit
    end
.end
";

#[test]
fn geometry_fixed_primitive_mode_writes_vertices_from_the_start_index() {
    let s = scene(30);
    let range = Indices::Range {
        first: 4,
        count: 10,
    }; // three primitives, one vertex left over
    for (backend, mut p) in pipelines() {
        let vs_shbin = lighting_setup(&mut p, &s);
        let gs_shbin = shbin_of(&[("gs.g.pica", FIXED_GS)]);
        load(&mut p, &gs_shbin, 0);
        let regs = p.regs_mut();
        regs.set_geometry_stage(Some(GsConfig {
            mode: GsMode::FixedPrimitive,
            fixed_vertices_minus_1: 2,
            stride_minus_1: 1,
            start_index: 10,
        }));
        regs.set_vs_output_total(2);
        regs.set_input_attributes(Unit::Geometry, 1, true);
        let vs_uniforms = p.regs().uniforms(Unit::Vertex).clone();
        let mut u = p.regs().uniforms(Unit::Geometry).clone();
        let vs = Interpreter::new(&vs_shbin.program(0).unwrap());
        let gs = Interpreter::new(&gs_shbin.program(0).unwrap());
        let mut runs = Vec::new();
        for prim in 0..3u32 {
            for v in 0..3u32 {
                let attrs = vs_attributes(&vs, &vs_uniforms, &s, 4 + prim * 3 + v);
                u.f[10 + 2 * v as usize] = attrs[0];
                u.f[11 + 2 * v as usize] = attrs[1];
            }
            runs.push(([[0.0; 4]; 16], u.clone()));
            u.b |= 0x8000;
        }
        let want = gs_expected(&gs, &runs);
        let mut out = DrawOutput::new();
        p.draw(range, &s.attributes(), &mut out).unwrap();
        check_geometry(&out, &want, &format!("{backend:?}"));
        assert_eq!(out.windings(), vec![false; 3]);
    }
}

#[test]
fn uniform_only_changes_never_compile_and_reachable_code_changes_do() {
    let s = scene(16);
    let engine = Arc::new(Engine::new(Backend::Auto).unwrap());
    let mut p = Pipeline::new(Arc::clone(&engine));
    lighting_setup(&mut p, &s);
    let mut out = DrawOutput::new();
    let list: Vec<u8> = (0..16).collect();
    p.draw(Indices::U8(&list), &s.attributes(), &mut out)
        .unwrap();
    let first = engine.stats();
    assert_eq!((first.misses, first.hits), (1, 0));
    // New uniforms, bools, and code past the shader's end: no engine lookup at all.
    p.regs_mut()
        .upload_floats(Unit::Vertex, 0, FloatMode::F24, &[[2.0; 4]; 4]);
    p.regs_mut().set_bool_uniforms(Unit::Vertex, 0x00F0);
    p.regs_mut().upload_code(Unit::Vertex, 400, &[0x1234_5678]);
    p.draw(Indices::U8(&list), &s.attributes(), &mut out)
        .unwrap();
    let second = engine.stats();
    assert_eq!((second.misses, second.hits), (1, 0));
    // A word the shader reaches: a new shader.
    let word = p.regs().unit(Unit::Vertex).code()[3];
    p.regs_mut().upload_code(Unit::Vertex, 3, &[word ^ 1 << 12]);
    p.draw(Indices::U8(&list), &s.attributes(), &mut out)
        .unwrap();
    assert_eq!(engine.stats().misses, 2);
    // Back to the old word: the cache has it.
    p.regs_mut().upload_code(Unit::Vertex, 3, &[word]);
    p.draw(Indices::U8(&list), &s.attributes(), &mut out)
        .unwrap();
    let last = engine.stats();
    assert_eq!((last.misses, last.hits), (2, 1));
    // A new entry point: a lookup (a miss: different code from there).
    p.regs_mut().set_entry(Unit::Vertex, 1);
    p.draw(Indices::U8(&list), &s.attributes(), &mut out)
        .unwrap();
    assert_eq!(engine.stats().misses, 3);
}

#[test]
fn draws_after_uniform_changes_that_pick_other_kernels_equal_the_interpreter() {
    // Uniform uploads between draws that change which multiplies by uniforms may be plain
    // (a matrix with zeros, infinities, NaN, or all zero: no specialized kernels), back and
    // forth, so that each kept layout's draw kernel changes from draw to draw: a range of 37
    // vertices (stepped kernel: whole batches, then a partial last one) and a sparse list
    // (indexed kernel), three times per upload, on every engine with background compiling
    // off and on; every draw equals the interpreter's.
    let shbin = shbin_of(&[("mvp.v.pica", &example("mvp.v.pica"))]);
    let mut rng = fastrand::Rng::with_seed(61);
    // Zeros and infinities among the inputs: a PICA multiply of one by an infinite or zero
    // uniform (0.0) differs from an IEEE one (NaN), so a kernel specialized for other
    // uniforms would show.
    let data: Vec<f32> = (0..4 * 64_usize)
        .map(|k| match k % 9 {
            0 => 0.0,
            4 => f32::INFINITY,
            7 => -0.0,
            1..=3 | 5 | 6 | 8.. => rng.f32() * 4.0 - 2.0,
        })
        .collect();
    let attributes = [
        Attribute::packed(&data, 4),
        Attribute::Array {
            data: &data,
            offset: 1,
            stride: 4,
            components: 4,
        },
    ];
    let plain: Vec<Vec4> = (0..4)
        .map(|r| std::array::from_fn(|c| 0.5 + (r * 4 + c) as f32 * 0.25))
        .collect();
    let mut zeros = plain.clone();
    zeros[1][2] = 0.0;
    zeros[3][0] = -0.0;
    let mut special = plain.clone();
    special[0][1] = f32::INFINITY;
    special[2][3] = f32::NAN;
    let nothing = vec![[0.0; 4]; 4];
    let sets = [&plain, &zeros, &plain, &special, &nothing, &zeros, &plain];
    let sparse: Vec<u16> = (0..21u16).map(|k| (k * 7) % 60).collect();
    let draws = [
        Indices::Range {
            first: 2,
            count: 37,
        },
        Indices::U16(&sparse),
    ];
    let setup = |p: &mut Pipeline, rows: &[Vec4]| {
        let regs = p.regs_mut();
        regs.set_input_attributes(Unit::Vertex, 2, false);
        regs.set_permutation(Unit::Vertex, std::array::from_fn(|k| k as u8));
        regs.upload_floats(Unit::Vertex, 0, FloatMode::F32, rows);
    };
    for background in [false, true] {
        for backend in Backend::runnable() {
            let engine = Engine::new(backend).unwrap();
            let mut p = Pipeline::new(Arc::new(engine.with_background_compile(background)));
            load(&mut p, &shbin, 0);
            let mut out = DrawOutput::new();
            for (k, rows) in sets.iter().enumerate() {
                let mut reference = Pipeline::with_backend(Backend::Interp).unwrap();
                load(&mut reference, &shbin, 0);
                setup(&mut reference, rows);
                setup(&mut p, rows);
                for round in 0..3 {
                    for indices in draws {
                        let mut want = DrawOutput::new();
                        reference.draw(indices, &attributes, &mut want).unwrap();
                        p.draw(indices, &attributes, &mut out).unwrap();
                        let what = format!(
                            "{backend:?} background {background}, uniforms {k}, round {round}, \
                             {} indices",
                            indices.len()
                        );
                        assert_eq!(out.indices(), want.indices(), "{what}");
                        assert_same_vertices(&out, &want, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn the_first_draw_of_a_new_shader_runs_at_once_and_matches() {
    // Background compiling (the default): the first draws run the generic AoS kernel while
    // the specialized kernels compile; every draw gives the same vertices.
    let s = scene(64);
    let list: Vec<u16> = (0..200u32).map(|k| ((k * 5) % 64) as u16).collect();
    let mut reference: Option<Vec<Vec<u32>>> = None;
    for backend in Backend::runnable() {
        let engine = Arc::new(Engine::new(backend).unwrap());
        let mut p = Pipeline::new(Arc::clone(&engine));
        lighting_setup(&mut p, &s);
        for round in 0..3 {
            let mut out = DrawOutput::new();
            p.draw(Indices::U16(&list), &s.attributes(), &mut out)
                .unwrap();
            let got: Vec<Vec<u32>> = out.vertices().iter().map(|v| bits(&v.slots)).collect();
            match &reference {
                None => reference = Some(got),
                Some(r) => assert_eq!(&got, r, "{backend:?} round {round}"),
            }
            if round == 1 {
                p.prepare().unwrap();
            }
        }
    }
}

#[test]
fn prepare_draw_compiles_the_draw_kernel_so_the_first_draw_compiles_nothing() {
    // Engines that compile on the drawing thread: without `prepare_draw` the first draw of a
    // native engine compiles its draw kernel (one compile); after `prepare_draw` with the same
    // attributes (their kinds, counts and strides: contents do not matter) it compiles
    // nothing, for a dense list (the stepped kernel) and a sparse one (the indexed kernel).
    // Either way the draw equals the interpreter's.
    let s = scene(64);
    let dense: Vec<u16> = (0..200u32).map(|k| ((k * 7) % 64) as u16).collect();
    let sparse: Vec<u16> = vec![0, 63, 5, 63, 9];
    let mut reference = Pipeline::with_backend(Backend::Interp).unwrap();
    lighting_setup(&mut reference, &s);
    let wants: Vec<DrawOutput> = [&dense, &sparse]
        .map(|list| {
            let mut want = DrawOutput::new();
            reference
                .draw(Indices::U16(list), &s.attributes(), &mut want)
                .unwrap();
            want
        })
        .into();
    for (backend, mut p) in pipelines() {
        let native = backend != Backend::Interp;
        for prepared in [false, true] {
            lighting_setup(&mut p, &s);
            // A new program for each round (an unused descriptor changed): nothing is cached.
            p.regs_mut()
                .upload_descs(Unit::Vertex, 127, &[u32::from(prepared)]);
            if prepared {
                let empty: [f32; 0] = [];
                let kinds: Vec<Attribute> = s
                    .attributes()
                    .iter()
                    .map(|a| match *a {
                        Attribute::Array {
                            components, stride, ..
                        } => Attribute::Array {
                            data: &empty,
                            offset: 0,
                            stride,
                            components,
                        },
                        fixed @ Attribute::Fixed(_) => fixed,
                    })
                    .collect();
                p.prepare_draw(&kinds).unwrap();
            } else {
                p.prepare().unwrap();
            }
            for (list, want) in [&dense, &sparse].into_iter().zip(&wants) {
                let before = p.engine().stats().compiles;
                let mut out = DrawOutput::new();
                p.draw(Indices::U16(list), &s.attributes(), &mut out)
                    .unwrap();
                let compiled = p.engine().stats().compiles - before;
                let what = format!("{backend:?} prepared {prepared} {} indices", list.len());
                assert_eq!(compiled, u64::from(native && !prepared), "{what}");
                assert_eq!(out.indices(), want.indices(), "{what}");
                assert_same_vertices(&out, want, &what);
            }
        }
    }
}

const LOOPING_VS: &str = "
.out outpos position
.proc main
    mov outpos, v0
l:
    jmpu b0, l
    end
.end
";

#[test]
fn errors_name_what_is_wrong() {
    let s = scene(8);
    let mut out = DrawOutput::new();
    let mut p = Pipeline::with_backend(Backend::Auto).unwrap();
    assert_eq!(
        p.draw(
            Indices::Range { first: 0, count: 3 },
            &s.attributes(),
            &mut out
        ),
        Err(DrawError::NoProgram { unit: Unit::Vertex })
    );
    lighting_setup(&mut p, &s);
    let attrs = s.attributes();
    assert_eq!(
        p.draw(Indices::Range { first: 0, count: 3 }, &attrs[..2], &mut out),
        Err(DrawError::MissingAttribute {
            attribute: 2,
            expected: 3,
            given: 2
        })
    );
    // Vertex 8 reads past the 57 floats of the interleaved array.
    let err = p.draw(Indices::U8(&[0, 8]), &attrs, &mut out).unwrap_err();
    assert!(
        matches!(
            err,
            DrawError::AttributeOutOfBounds {
                attribute: 0,
                vertex: 8,
                ..
            }
        ),
        "{err}"
    );
    assert!(out.vertices().is_empty());
    let bad = [
        attrs[0],
        Attribute::Array {
            data: &s.normals,
            offset: 0,
            stride: 3,
            components: 5,
        },
        attrs[2],
    ];
    assert_eq!(
        p.draw(Indices::U8(&[0]), &bad, &mut out),
        Err(DrawError::BadComponents {
            attribute: 1,
            components: 5
        })
    );
    assert_eq!(
        p.draw(
            Indices::Range {
                first: u32::MAX,
                count: 2
            },
            &attrs,
            &mut out
        ),
        Err(DrawError::RangeOverflow {
            first: u32::MAX,
            count: 2
        })
    );
    p.regs_mut().set_geometry_stage(Some(GsConfig {
        mode: GsMode::Invalid(7),
        fixed_vertices_minus_1: 0,
        stride_minus_1: 0,
        start_index: 0,
    }));
    // (The vertex upload was mirrored into the geometry unit: it has code.)
    assert_eq!(
        p.draw(Indices::U8(&[0]), &attrs, &mut out),
        Err(DrawError::GeometryMode(7))
    );

    // A vertex that loops forever: every output written, the error names it — on every
    // engine (native ones through the draw kernel's store stub).
    for backend in Backend::runnable() {
        let engine = Engine::new(backend).unwrap().with_budget(100);
        let mut p = Pipeline::new(Arc::new(engine.with_background_compile(false)));
        load(&mut p, &shbin_of(&[("loop.v.pica", LOOPING_VS)]), 0);
        p.regs_mut().set_input_attributes(Unit::Vertex, 1, false);
        p.regs_mut().set_bool_uniforms(Unit::Vertex, 1);
        let mut out = DrawOutput::new();
        // A sparse list (vertices in order of first use) and a dense one (in vertex order):
        // the error names the first exhausted vertex in output order.
        let err = p
            .draw(Indices::U8(&[2, 0]), &attrs[..1], &mut out)
            .unwrap_err();
        assert!(
            matches!(
                err,
                DrawError::BudgetExhausted {
                    unit: Unit::Vertex,
                    vertex: 2,
                    count: 2,
                    budget: 100
                }
            ),
            "{backend:?}: {err}"
        );
        assert_eq!(out.vertex_ids(), [2, 0], "{backend:?}");
        assert_eq!(out.vertices()[1].position(), s.inputs(0)[0], "{backend:?}");
        let err = p
            .draw(Indices::U8(&[2, 1]), &attrs[..1], &mut out)
            .unwrap_err();
        assert!(
            matches!(
                err,
                DrawError::BudgetExhausted {
                    unit: Unit::Vertex,
                    vertex: 1,
                    count: 2,
                    budget: 100
                }
            ),
            "{backend:?}: {err}"
        );
        assert_eq!(out.vertex_ids(), [1, 2], "{backend:?}");
        assert_eq!(out.indices(), [1, 0], "{backend:?}");
        assert_eq!(out.vertices()[0].position(), s.inputs(1)[0], "{backend:?}");
    }
}

/// Loops forever where v0.x is negative, else passes v0 to the position.
const LOOPING_IF_NEGATIVE_VS: &str = "
.constf k(0.0, 0.0, 0.0, 0.0)
.out outpos position
.proc main
    mov outpos, v0
    cmp k.x, gt, gt, v0.x
l:
    jmpc cmp.x, l
    end
.end
";

#[test]
fn dense_lists_draw_their_range_and_sparse_lists_their_unique_vertices() {
    // 300 vertices: the normal array (3 floats per vertex, packed) ends exactly at vertex 299.
    let s = scene(300);
    let attrs = s.attributes();
    let u8s: [u8; 4] = [13, 10, 12, 11];
    let u8_sparse: [u8; 4] = [10, 14, 12, 11];
    let u16s: [u16; 4] = [213, 210, 212, 210];
    let u16_sparse: [u16; 3] = [213, 210, 210];
    let u32s: Vec<u32> = vec![299, 297, 299, 296, 298];
    let u32_sparse: Vec<u32> = vec![299, 0, 299];
    let lists = [
        // Range as long as the list (the threshold), smallest index not 0.
        Indices::U8(&u8s),
        // One vertex more than indices: sparse.
        Indices::U8(&u8_sparse),
        // A vertex of the range no index names (211).
        Indices::U16(&u16s),
        Indices::U16(&u16_sparse),
        // The largest index at the end of the arrays.
        Indices::U32(&u32s),
        Indices::U32(&u32_sparse),
        // One index.
        Indices::U16(&[299]),
        Indices::U8(&[0]),
    ];
    for (backend, mut p) in pipelines() {
        let shbin = lighting_setup(&mut p, &s);
        let uniforms = p.regs().uniforms(Unit::Vertex).clone();
        let interp = Interpreter::new(&shbin.program(0).unwrap());
        for keep_raw in [false, true] {
            let mut out = DrawOutput::new();
            out.keep_raw = keep_raw;
            for indices in lists {
                p.draw(indices, &attrs, &mut out).unwrap();
                let what = format!("{backend:?} raw {keep_raw} {} indices", indices.len());
                check_numbering(indices, &out, &what);
                for (u, &id) in out.vertex_ids().iter().enumerate() {
                    let want = lighting_vertex(&interp, &uniforms, &s.inputs(id));
                    assert_eq!(
                        bits(&out.vertices()[u].slots),
                        bits(&want.slots),
                        "{what}: vertex {id}"
                    );
                }
            }
            // Dense lists were drawn as ranges: 211 was computed though no index names it.
            p.draw(Indices::U16(&u16s), &attrs, &mut out).unwrap();
            assert_eq!(out.vertex_ids(), [210, 211, 212, 213]);
            assert_eq!(out.indices(), [3, 0, 2, 0]);
            // An index past the arrays, dense or sparse: an error, and no output.
            for list in [&[298u16, 300, 299][..], &[0, 300, 0][..]] {
                let err = p.draw(Indices::U16(list), &attrs, &mut out).unwrap_err();
                assert!(
                    matches!(
                        err,
                        DrawError::AttributeOutOfBounds {
                            attribute: 0,
                            vertex: 300,
                            ..
                        }
                    ),
                    "{backend:?}: {err}"
                );
                assert!(out.vertices().is_empty() && out.indices().is_empty());
            }
        }
    }

    // A vertex of a dense list's range that no index names never fails the draw, even if its
    // invocation never ends; one the list names does.
    let xs: Vec<f32> = [1.0, -1.0, 2.0, 3.0]
        .iter()
        .flat_map(|&x| [x, 0.0, 0.0, 1.0])
        .collect();
    let attribute = [Attribute::packed(&xs, 4)];
    for backend in Backend::runnable() {
        let engine = Engine::new(backend).unwrap().with_budget(100);
        let mut p = Pipeline::new(Arc::new(engine.with_background_compile(false)));
        load(
            &mut p,
            &shbin_of(&[("loop.v.pica", LOOPING_IF_NEGATIVE_VS)]),
            0,
        );
        p.regs_mut().set_input_attributes(Unit::Vertex, 1, false);
        for keep_raw in [false, true] {
            let mut out = DrawOutput::new();
            out.keep_raw = keep_raw;
            let what = format!("{backend:?} raw {keep_raw}");
            p.draw(Indices::U8(&[0, 2, 3, 2, 0]), &attribute, &mut out)
                .unwrap();
            assert_eq!(out.vertex_ids(), [0, 1, 2, 3], "{what}");
            assert_eq!(out.indices(), [0, 2, 3, 2, 0], "{what}");
            for u in [0, 2, 3] {
                assert_eq!(out.vertices()[u].position()[0], xs[4 * u], "{what}");
            }
            let err = p
                .draw(Indices::U8(&[0, 2, 1, 3]), &attribute, &mut out)
                .unwrap_err();
            assert_eq!(
                err,
                DrawError::BudgetExhausted {
                    unit: Unit::Vertex,
                    vertex: 1,
                    count: 1,
                    budget: 100
                },
                "{what}"
            );
        }
    }
}

#[test]
fn ranges_and_dense_lists_step_through_their_vertices_at_every_batch_edge() {
    // Consecutive vertices take the stepped draw kernel: whole batches, then the last W
    // vertices again for a partial batch; a range shorter than a batch takes the indexed one.
    // Counts around every lane width (1, W − 1, W, W + 1 for W = 4, 8, 16), first ≠ 0, the
    // last vertex at the arrays' end (the normal array ends exactly at vertex 299), strides
    // of 28 and 12 bytes, a fixed colour; as ranges and as the same vertices in a dense list.
    let s = scene(300);
    let attrs = s.attributes();
    let mut cases: Vec<(u32, u32)> = vec![(0, 300), (1, 299), (299, 1), (250, 50), (283, 17)];
    for count in [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33] {
        cases.push((0, count));
        cases.push((5, count));
        cases.push((300 - count, count));
    }
    for (backend, mut p) in pipelines() {
        let shbin = lighting_setup(&mut p, &s);
        let uniforms = p.regs().uniforms(Unit::Vertex).clone();
        let interp = Interpreter::new(&shbin.program(0).unwrap());
        let mut out = DrawOutput::new();
        for &(first, count) in &cases {
            // The list names every vertex of the range, last one first.
            let list: Vec<u32> = (0..count)
                .map(|k| first + (k + count - 1) % count)
                .collect();
            for indices in [Indices::Range { first, count }, Indices::U32(&list)] {
                p.draw(indices, &attrs, &mut out).unwrap();
                let what = format!("{backend:?} {indices:?}");
                check_numbering(indices, &out, &what);
                let ids: Vec<u32> = (first..first + count).collect();
                assert_eq!(out.vertex_ids(), ids, "{what}");
                for (u, &id) in out.vertex_ids().iter().enumerate() {
                    let want = lighting_vertex(&interp, &uniforms, &s.inputs(id));
                    assert_eq!(
                        bits(&out.vertices()[u].slots),
                        bits(&want.slots),
                        "{what}: vertex {id}"
                    );
                }
            }
        }
        // One vertex past the arrays: an error naming it, and no output.
        let err = p
            .draw(
                Indices::Range {
                    first: 290,
                    count: 11,
                },
                &attrs,
                &mut out,
            )
            .unwrap_err();
        assert!(
            matches!(
                err,
                DrawError::AttributeOutOfBounds {
                    attribute: 0,
                    vertex: 300,
                    ..
                }
            ),
            "{backend:?}: {err}"
        );
        assert!(out.vertices().is_empty() && out.vertex_ids().is_empty());

        // A stride too wide for a stepped kernel (4,400 bytes) takes the indexed one.
        let wide: Vec<f32> = (0..40 * 1100)
            .map(|k| (k % 97) as f32 * 0.03 - 1.0)
            .collect();
        let wide_attrs = [
            Attribute::Array {
                data: &wide,
                offset: 3,
                stride: 1100,
                components: 4,
            },
            attrs[1],
            attrs[2],
        ];
        for (first, count) in [(0, 39), (3, 9), (38, 1)] {
            p.draw(Indices::Range { first, count }, &wide_attrs, &mut out)
                .unwrap();
            for (u, &id) in out.vertex_ids().iter().enumerate() {
                let mut inputs = s.inputs(id);
                let at = 3 + 1100 * id as usize;
                inputs[0].copy_from_slice(&wide[at..at + 4]);
                let want = lighting_vertex(&interp, &uniforms, &inputs);
                assert_eq!(
                    bits(&out.vertices()[u].slots),
                    bits(&want.slots),
                    "{backend:?} wide: vertex {id}"
                );
            }
        }
    }

    // Budget errors count each vertex once, also where the last partial batch recomputes
    // vertices of the batch before it, and only in the range.
    let xs: Vec<f32> = (0..40)
        .flat_map(|k| {
            let x = if [2, 5, 9, 17, 18, 33].contains(&k) {
                -1.0
            } else {
                k as f32
            };
            [x, 0.0, 0.0, 1.0]
        })
        .collect();
    let attribute = [Attribute::packed(&xs, 4)];
    for backend in Backend::runnable() {
        let engine = Engine::new(backend).unwrap().with_budget(100);
        let mut p = Pipeline::new(Arc::new(engine.with_background_compile(false)));
        load(
            &mut p,
            &shbin_of(&[("loop.v.pica", LOOPING_IF_NEGATIVE_VS)]),
            0,
        );
        p.regs_mut().set_input_attributes(Unit::Vertex, 1, false);
        let mut out = DrawOutput::new();
        for (first, count, vertex, exhausted) in [
            (0, 40, 2, 6),
            (3, 17, 5, 4),
            (6, 13, 9, 3),
            (10, 3, 0, 0),
            (17, 2, 17, 2),
            (16, 1, 0, 0),
            (19, 14, 0, 0),
            (19, 15, 33, 1),
        ] {
            let what = format!("{backend:?} {first} + {count}");
            let result = p.draw(Indices::Range { first, count }, &attribute, &mut out);
            match exhausted {
                0 => result.unwrap(),
                n => assert_eq!(
                    result.unwrap_err(),
                    DrawError::BudgetExhausted {
                        unit: Unit::Vertex,
                        vertex,
                        count: n,
                        budget: 100
                    },
                    "{what}"
                ),
            }
            // Every output is written; vertices that ended pass their x through.
            assert_eq!(out.vertices().len(), count as usize, "{what}");
            for (u, v) in out.vertices().iter().enumerate() {
                let x = xs[4 * (first as usize + u)];
                if x >= 0.0 {
                    assert_eq!(v.position()[0], x, "{what}: vertex {u}");
                }
            }
        }
    }
}

/// The corpus SHBINs (a CI checkout has `../shared/corpus` beside it).
fn corpus_shbins() -> Vec<(String, Shbin)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/shbin");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "shbin"));
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let shbin = Shbin::parse(&std::fs::read(&p).ok()?).ok()?;
            Some((p.file_name()?.to_string_lossy().into_owned(), shbin))
        })
        .collect()
}

#[test]
fn draw_kernels_equal_the_interpreter_with_every_layout() {
    // Draws without raw records go through draw kernels on every native engine (x86-64 at both
    // tiers, AArch64):
    // attributes of 1 to 4 components at offsets and strides, fixed ones, registers no
    // attribute loads, a permutation that is not the identity; index lists of every width
    // and ranges whose vertex counts are no multiple of a batch; output maps that split
    // registers; colour from NaN, negative and large values. Each must equal the draw on the
    // interpreter engine (the interpreter run per unique vertex, then the output map) bit for
    // bit, and the record path of the same engine.
    let mut rng = fastrand::Rng::with_seed(23);
    let mut f = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|k| match k % 41 {
                0 => f32::NAN,
                1 => -0.0,
                2 => 1e30,
                3.. => rng.f32() * 6.0 - 3.0,
            })
            .collect()
    };
    let (a4, a3, a2, a1) = (f(7 * 300 + 1), f(3 * 300), f(5 * 300 + 2), f(2 * 300 + 1));
    let kinds = [
        Attribute::Array {
            data: &a4,
            offset: 1,
            stride: 7,
            components: 4,
        },
        Attribute::packed(&a3, 3),
        Attribute::Array {
            data: &a2,
            offset: 2,
            stride: 5,
            components: 2,
        },
        Attribute::Array {
            data: &a1,
            offset: 1,
            stride: 2,
            components: 1,
        },
        Attribute::Fixed([0.5, -7.0, f32::NAN, -0.25]),
    ];
    // Attribute k from kind k % 5 into register (11 - k) % 12 (v12-v15 load nothing).
    let attributes: Vec<Attribute> = (0..12).map(|k| kinds[k % 5]).collect();
    let permutation: [u8; 16] = std::array::from_fn(|k| ((23 - k) % 12) as u8);
    let u16s: Vec<u16> = (0..1001u32).map(|k| ((k * 7919) % 300) as u16).collect();
    let u8s: Vec<u8> = (0..77u32).map(|k| ((k * 31) % 256) as u8).collect();
    let u32s: Vec<u32> = (0..333u32).map(|k| (k * 13) % 299 + 1).collect();
    let draws = [
        Indices::U16(&u16s),
        Indices::U8(&u8s),
        Indices::U32(&u32s),
        Indices::Range {
            first: 5,
            count: 13,
        },
        Indices::U16(&[299]),
    ];
    let uniforms: Vec<Vec4> = (0..96)
        .map(|k| std::array::from_fn(|c| ((k * 4 + c) as f32 * 0.37).sin() * 1.5))
        .collect();
    let mut shaders = vec![
        (
            "lighting".to_string(),
            shbin_of(&[("lighting.v.pica", &example("lighting.v.pica"))]),
        ),
        ("mixed".to_string(), shbin_of(&[("mixed.v.pica", MIXED_VS)])),
        (
            "mixed-odd".to_string(),
            shbin_of(&[("mixed.v.pica", MIXED_VS)]),
        ),
    ];
    shaders.extend(corpus_shbins());
    assert!(shaders.len() > 2, "the corpus is missing");
    let setup = |p: &mut Pipeline, shbin: &Shbin, name: &str| {
        load(p, shbin, 0);
        let regs = p.regs_mut();
        regs.set_input_attributes(Unit::Vertex, 12, false);
        regs.set_permutation(Unit::Vertex, permutation);
        regs.upload_floats(Unit::Vertex, 0, FloatMode::F32, &uniforms);
        if name == "mixed" {
            regs.set_output_mask(Unit::Vertex, 0b1111);
            regs.set_output_map(&[
                [0, 1, 2, 3],
                [8, 9, 10, 31],
                [13, 12, 16, 19],
                [14, 15, 31, 31],
                [22, 23, 31, 31],
            ]);
        }
        if name == "mixed-odd" {
            // Every output in the second group of a 32-byte pair whose first group is
            // constant (position, colour and texcoord0 w… view x all 1.0).
            regs.set_output_mask(Unit::Vertex, 0b111);
            regs.set_output_map(&[[4, 5, 6, 7], [12, 13, 14, 15], [20, 21, 22, 23]]);
        }
    };
    let mut reference = Pipeline::with_backend(Backend::Interp).unwrap();
    for (backend, mut p) in pipelines() {
        for (name, shbin) in &shaders {
            setup(&mut reference, shbin, name);
            setup(&mut p, shbin, name);
            for indices in draws {
                let mut want = DrawOutput::new();
                reference.draw(indices, &attributes, &mut want).unwrap();
                let mut got = DrawOutput::new();
                p.draw(indices, &attributes, &mut got).unwrap();
                let mut records = DrawOutput::with_raw();
                p.draw(indices, &attributes, &mut records).unwrap();
                let what = format!("{backend:?} {name} {} indices", indices.len());
                assert_eq!(got.indices(), want.indices(), "{what}");
                assert_eq!(got.vertex_ids(), want.vertex_ids(), "{what}");
                assert_eq!(got.vertices().len(), want.vertex_ids().len(), "{what}");
                for (u, (g, w)) in got.vertices().iter().zip(want.vertices()).enumerate() {
                    let id = want.vertex_ids()[u];
                    assert_eq!(bits(&g.slots), bits(&w.slots), "{what}: vertex {id}");
                }
                assert_eq!(records.vertices().len(), got.vertices().len(), "{what}");
                for (g, r) in got.vertices().iter().zip(records.vertices()) {
                    assert_eq!(bits(&g.slots), bits(&r.slots), "{what}: record path");
                }
            }
            // The draws above took the draw kernel on the native engines: another layout of an
            // attribute the shader reads (its 4-component array repacked with 3 components, or
            // a narrower array widened to that 4-component one) compiles one more kernel there,
            // and none on the interpreter.
            // (`Engine::compile` compiles the generic AoS kernel the draws did not need: it
            // is asked before counting.)
            let read = p
                .engine()
                .compile(&p.regs().program(Unit::Vertex))
                .input_components();
            // Register r holds attribute 11 - r; kind 4 is the fixed attribute.
            let k = (0..12)
                .filter(|&r| read[r] != 0)
                .map(|r| 11 - r)
                .find(|k| k % 5 != 4)
                .unwrap_or_else(|| panic!("{name} reads no array attribute"));
            let before = p.engine().stats().compiles;
            let mut other = attributes.clone();
            other[k] = match k % 5 {
                0 => Attribute::packed(&a3, 3),
                1.. => kinds[0],
            };
            let mut out = DrawOutput::new();
            p.draw(Indices::U8(&u8s), &other, &mut out).unwrap();
            let want = u64::from(backend != Backend::Interp);
            assert_eq!(
                p.engine().stats().compiles - before,
                want,
                "{backend:?} {name}: attribute {k}"
            );
        }
    }
}

#[test]
fn one_output_buffer_reused_across_shaders_maps_and_sizes_never_shows_stale_slots() {
    // Draw kernels leave the groups of four constant slots to the output buffer, which fills
    // them when it grows or its constants change. One buffer per engine takes draws of
    // shaders and output maps whose constant groups differ (a group computed by one is 1.0
    // or 0.0 in the next), of counts around every batch width (1, W − 1, W, W + 1) that grow
    // and shrink the buffer, ranges ending at the arrays' last vertex, dense and sparse lists,
    // and record-path draws in between; each must equal a fresh draw on the interpreter.
    let mut rng = fastrand::Rng::with_seed(41);
    let mut f = |n: usize| -> Vec<f32> { (0..n).map(|_| rng.f32() * 6.0 - 3.0).collect() };
    let (a4, a3) = (f(7 * 300 + 1), f(3 * 300));
    let attributes = [
        Attribute::Array {
            data: &a4,
            offset: 1,
            stride: 7,
            components: 4,
        },
        Attribute::packed(&a3, 3),
        Attribute::Fixed([0.5, -7.0, 2.0, -0.25]),
    ];
    let uniforms: Vec<Vec4> = (0..96)
        .map(|k| std::array::from_fn(|c| ((k * 4 + c) as f32 * 0.29).cos() * 1.5))
        .collect();
    let mut shaders = vec![
        (
            "lighting",
            shbin_of(&[("lighting.v.pica", &example("lighting.v.pica"))]),
        ),
        ("mvp", shbin_of(&[("mvp.v.pica", &example("mvp.v.pica"))])),
        ("mixed", shbin_of(&[("mixed.v.pica", MIXED_VS)])),
        ("mixed-odd", shbin_of(&[("mixed.v.pica", MIXED_VS)])),
    ];
    let corpus = corpus_shbins();
    assert!(!corpus.is_empty(), "the corpus is missing");
    shaders.extend(corpus.into_iter().take(2).map(|(_, s)| ("corpus", s)));
    let setup = |p: &mut Pipeline, shbin: &Shbin, name: &str| {
        load(p, shbin, 0);
        let regs = p.regs_mut();
        regs.set_input_attributes(Unit::Vertex, 3, false);
        regs.set_permutation(Unit::Vertex, std::array::from_fn(|k| k as u8));
        regs.upload_floats(Unit::Vertex, 0, FloatMode::F32, &uniforms);
        match name {
            "mixed" => {
                regs.set_output_mask(Unit::Vertex, 0b1111);
                regs.set_output_map(&[
                    [0, 1, 2, 3],
                    [8, 9, 10, 31],
                    [13, 12, 16, 19],
                    [14, 15, 31, 31],
                    [22, 23, 31, 31],
                ]);
            }
            "mixed-odd" => {
                regs.set_output_mask(Unit::Vertex, 0b111);
                regs.set_output_map(&[[4, 5, 6, 7], [12, 13, 14, 15], [20, 21, 22, 23]]);
            }
            _ => {}
        }
    };
    let dense: Vec<u16> = (0..40u16).map(|k| 260 + (k * 7) % 40).collect();
    let sparse: Vec<u32> = (0..30u32).map(|k| (k * 37) % 300).collect();
    let mut draws: Vec<Indices> = [1u32, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 300]
        .iter()
        .map(|&count| Indices::Range {
            first: 300 - count,
            count,
        })
        .collect();
    draws.insert(3, Indices::U16(&dense));
    draws.insert(7, Indices::U32(&sparse));
    draws.insert(9, Indices::U16(&[299, 298]));
    let mut reference = Pipeline::with_backend(Backend::Interp).unwrap();
    for (backend, mut p) in pipelines() {
        let mut out = DrawOutput::new();
        for round in 0..2 {
            for (s, (name, shbin)) in shaders.iter().enumerate() {
                setup(&mut reference, shbin, name);
                setup(&mut p, shbin, name);
                // Each shader gets the draws in another order: sizes grow and shrink.
                let n = draws.len();
                for k in 0..n {
                    let indices = draws[(k * (s + 1) + round) % n];
                    // Every fifth draw through the record path (raw records asked for).
                    out.keep_raw = (k + s) % 5 == 4;
                    let mut want = DrawOutput::new();
                    reference.draw(indices, &attributes, &mut want).unwrap();
                    p.draw(indices, &attributes, &mut out).unwrap();
                    let what = format!(
                        "{backend:?} {name} round {round}, {} indices, raw {}",
                        indices.len(),
                        out.keep_raw
                    );
                    assert_eq!(out.indices(), want.indices(), "{what}");
                    assert_eq!(out.vertex_ids(), want.vertex_ids(), "{what}");
                    assert_same_vertices(&out, &want, &what);
                }
            }
        }
    }
}

#[test]
fn copied_registers_in_groups_with_constant_slots_equal_the_interpreter() {
    // Output registers that copy input registers whole, mapped into groups whose other slots
    // are constants (colour r, g with b, a unmapped: clamped, then the 1.0s; texcoord 0 with
    // texcoord 1 unmapped; a component out of its place, which is not a row copy), with
    // NaN, negative and large inputs, strides of 5 and 3 floats, ranges and lists around
    // every batch width, one output buffer throughout.
    const COPY_VS: &str = "
.out outpos position
.out outclr color
.out outtc texcoord0

.proc main
    mov outpos, v0
    mov outclr, v1
    mov outtc, v2
    end
.end
";
    let shbin = shbin_of(&[("copy.v.pica", COPY_VS)]);
    let mut rng = fastrand::Rng::with_seed(43);
    let mut f = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|k| match k % 13 {
                0 => f32::NAN,
                1 => -0.0,
                2 => -1e30,
                3.. => rng.f32() * 4.0 - 2.0,
            })
            .collect()
    };
    let (a5, a3) = (f(5 * 100), f(3 * 100));
    let attributes = [
        Attribute::Array {
            data: &a5,
            offset: 0,
            stride: 5,
            components: 4,
        },
        Attribute::Array {
            data: &a5,
            offset: 1,
            stride: 5,
            components: 4,
        },
        Attribute::packed(&a3, 3),
    ];
    let maps: [&[[u8; 4]]; 4] = [
        &[[0, 1, 2, 3], [8, 9, 31, 31], [12, 13, 31, 31]],
        &[[0, 1, 2, 3], [31, 9, 10, 31], [31, 13, 31, 31]],
        &[[0, 1, 2, 3], [8, 9, 10, 11], [13, 12, 31, 31]],
        &[[4, 5, 6, 7], [8, 31, 31, 11], [20, 21, 22, 23]],
    ];
    let list: Vec<u16> = (0..60u16).map(|k| 40 + (k * 11) % 60).collect();
    let sparse: Vec<u8> = (0..20u8).map(|k| (k * 5) % 100).collect();
    let mut draws: Vec<Indices> = [1u32, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100]
        .iter()
        .map(|&count| Indices::Range {
            first: 100 - count,
            count,
        })
        .collect();
    draws.push(Indices::U16(&list));
    draws.push(Indices::U8(&sparse));
    let setup = |p: &mut Pipeline, map: &[[u8; 4]]| {
        load(p, &shbin, 0);
        let regs = p.regs_mut();
        regs.set_input_attributes(Unit::Vertex, 3, false);
        regs.set_permutation(Unit::Vertex, std::array::from_fn(|k| k as u8));
        regs.set_output_mask(Unit::Vertex, 0b111);
        regs.set_output_map(map);
    };
    let mut reference = Pipeline::with_backend(Backend::Interp).unwrap();
    for (backend, mut p) in pipelines() {
        let mut out = DrawOutput::new();
        for (m, map) in maps.iter().enumerate() {
            setup(&mut reference, map);
            setup(&mut p, map);
            for indices in &draws {
                let mut want = DrawOutput::new();
                reference.draw(*indices, &attributes, &mut want).unwrap();
                p.draw(*indices, &attributes, &mut out).unwrap();
                let what = format!("{backend:?} map {m}, {} indices", indices.len());
                assert_eq!(out.indices(), want.indices(), "{what}");
                assert_same_vertices(&out, &want, &what);
            }
        }
    }
}

#[test]
fn draws_after_each_change_of_shader_attributes_permutation_or_output_map_equal_the_interpreter() {
    // A pipeline keeps each draw's slot table and kernel layouts for later draws with the
    // same attribute shape (array or fixed value, component count, stride, registers read),
    // shader outputs written, output map and mask. One pipeline per engine draws a range
    // (stepped kernel) and a sparse list (indexed kernel) after each change of one of those,
    // of the shader (one that writes fewer outputs than the next) and of the permutation, and
    // returns to earlier states, more of them than the pipeline keeps; every draw must equal
    // a fresh draw on an interpreter pipeline that has drawn nothing before.
    let mut rng = fastrand::Rng::with_seed(53);
    let data: Vec<f32> = (0..9 * 64 + 8).map(|_| rng.f32() * 6.0 - 3.0).collect();
    let uniforms: Vec<Vec4> = (0..96)
        .map(|k| std::array::from_fn(|c| ((k * 4 + c) as f32 * 0.37).sin() * 1.5))
        .collect();
    // Reads what MIXED_VS reads, leaves o2 (texcoord 0) unwritten: 0.0.
    const UNWRITTEN_VS: &str = "
.fvec k
.out opos position
.out ocol color
.out otc texcoord0
.proc main
    mov r0, v3
    add r0, v2, r0
    mul ocol, k, v1
    add opos, v0, r0
    end
.end
";
    let shaders = [
        shbin_of(&[("mixed.v.pica", MIXED_VS)]),
        shbin_of(&[("mvp.v.pica", &example("mvp.v.pica"))]),
        shbin_of(&[("unwritten.v.pica", UNWRITTEN_VS)]),
    ];
    /// Shader, component counts, strides, the attribute given as a fixed value (4: none),
    /// the permutation reversed, the output map (0: the program's own).
    type State = (usize, [u8; 4], [usize; 4], usize, bool, usize);
    let states: [State; 12] = [
        (2, [4, 4, 4, 4], [4, 4, 4, 4], 4, false, 1),
        (0, [4, 4, 4, 4], [4, 4, 4, 4], 4, false, 1),
        (0, [4, 4, 4, 4], [4, 4, 4, 4], 4, false, 0),
        (0, [4, 3, 4, 4], [4, 4, 4, 4], 4, false, 0),
        (0, [4, 3, 4, 4], [9, 4, 5, 4], 4, false, 0),
        (0, [4, 3, 4, 4], [9, 4, 5, 4], 1, false, 0),
        (0, [4, 3, 4, 4], [9, 4, 5, 4], 1, true, 0),
        (0, [4, 3, 4, 4], [9, 4, 5, 4], 1, true, 1),
        (0, [4, 3, 4, 4], [9, 4, 5, 4], 1, true, 2),
        (0, [4, 3, 4, 4], [9, 4, 5, 4], 1, true, 3),
        (1, [4, 3, 4, 4], [9, 4, 5, 4], 1, true, 3),
        (1, [2, 1, 4, 4], [3, 1, 7, 4], 4, false, 0),
    ];
    let setup = |p: &mut Pipeline, &(shader, _, _, _, reversed, map): &State| {
        load(p, &shaders[shader], 0);
        let regs = p.regs_mut();
        regs.set_input_attributes(Unit::Vertex, 4, false);
        regs.set_permutation(
            Unit::Vertex,
            std::array::from_fn(|k| {
                if reversed && k < 4 {
                    3 - k as u8
                } else {
                    k as u8
                }
            }),
        );
        regs.upload_floats(Unit::Vertex, 0, FloatMode::F32, &uniforms);
        let two_maps: [&[[u8; 4]]; 2] = [
            &[[0, 1, 2, 3], [8, 9, 10, 11], [12, 13, 31, 31]],
            &[[0, 1, 2, 3], [12, 13, 14, 15], [8, 9, 10, 16]],
        ];
        match map {
            1 => {
                regs.set_output_mask(Unit::Vertex, 0b111);
                regs.set_output_map(two_maps[0]);
            }
            2 => {
                regs.set_output_mask(Unit::Vertex, 0b111);
                regs.set_output_map(two_maps[1]);
            }
            3 => {
                regs.set_output_mask(Unit::Vertex, 0b1011);
                regs.set_output_map(two_maps[1]);
            }
            // The default output map.
            0 | 4.. => {}
        }
    };
    let attributes_of = |&(_, components, strides, fixed, _, _): &State| -> Vec<Attribute<'_>> {
        (0..4)
            .map(|a| match a == fixed {
                true => Attribute::Fixed([0.25, -3.0, 7.5, -0.5]),
                false => Attribute::Array {
                    data: &data,
                    offset: a,
                    stride: strides[a],
                    components: components[a],
                },
            })
            .collect()
    };
    let sparse: Vec<u16> = (0..20u16).map(|k| (k * 13) % 64).collect();
    let draws = [
        Indices::Range {
            first: 3,
            count: 37,
        },
        Indices::U16(&sparse),
    ];
    for (backend, mut p) in pipelines() {
        let mut out = DrawOutput::new();
        for k in 0..2 * states.len() {
            let s = if k < states.len() {
                k
            } else {
                (k * 3) % states.len()
            };
            let state = &states[s];
            // A fresh reference pipeline: nothing kept from earlier draws.
            let mut reference = Pipeline::with_backend(Backend::Interp).unwrap();
            setup(&mut reference, state);
            setup(&mut p, state);
            let attributes = attributes_of(state);
            for indices in draws {
                let mut want = DrawOutput::new();
                reference.draw(indices, &attributes, &mut want).unwrap();
                p.draw(indices, &attributes, &mut out).unwrap();
                let what = format!("{backend:?} state {s}, {} indices", indices.len());
                assert_eq!(out.vertex_ids(), want.vertex_ids(), "{what}");
                assert_same_vertices(&out, &want, &what);
            }
        }
    }
}

/// The lighting scene's output vertices for `ids` by the interpreter, as bits.
fn lighting_wants(p: &Pipeline, s: &Scene, ids: &[u32]) -> Vec<Vec<u32>> {
    let program = Interpreter::new(&p.regs().program(Unit::Vertex));
    let uniforms = p.regs().uniforms(Unit::Vertex);
    ids.iter()
        .map(|&id| bits(&lighting_vertex(&program, uniforms, &s.inputs(id)).slots))
        .collect()
}

/// Checks `out` against the interpreter's vertices for `ids` (its vertex ids too).
fn check_lighting(out: &DrawOutput, p: &Pipeline, s: &Scene, ids: &[u32], what: &str) {
    assert_eq!(out.vertex_ids(), ids, "{what}");
    let got: Vec<Vec<u32>> = out.vertices().iter().map(|v| bits(&v.slots)).collect();
    assert_eq!(got, lighting_wants(p, s, ids), "{what}");
}

/// Checks a bare run of the current vertex shader on the scene's vertices `ids` against the
/// interpreter (o0 and o1, the registers the lighting shader writes).
fn check_lighting_run(engine: &Engine, p: &Pipeline, s: &Scene, ids: &[u32], what: &str) {
    let program = p.regs().program(Unit::Vertex);
    let uniforms = p.regs().uniforms(Unit::Vertex);
    let interp = Interpreter::new(&program);
    let inputs: Vec<Regs16> = ids.iter().map(|&id| s.inputs(id)).collect();
    let mut outputs = vec![[[0.0; 4]; 16]; inputs.len()];
    let mut status = vec![picajit::program::VertexStatus::Ended; inputs.len()];
    let shader = engine.compile(&program);
    shader
        .run(uniforms, &inputs, &mut outputs, &mut status)
        .unwrap();
    for (k, (got, input)) in outputs.iter().zip(&inputs).enumerate() {
        let want = interp.run_vertex(uniforms, input).outputs;
        assert_eq!(bits(&got[0]), bits(&want[0]), "{what}: vertex {k} o0");
        assert_eq!(bits(&got[1]), bits(&want[1]), "{what}: vertex {k} o1");
    }
}

/// The SIMD width of `backend`'s draw kernels (from a throwaway engine).
fn lanes_of(backend: Backend, p: &Pipeline) -> usize {
    Engine::new(backend)
        .unwrap()
        .compile(&p.regs().program(Unit::Vertex))
        .draw_lanes()
}

#[test]
fn an_engines_draw_width_picks_its_draw_kernels_lanes_and_every_width_matches() {
    // `Engine::with_draw_width`: the AVX-512 engine draws with 16-lane kernels (Full) or
    // 8-lane AVX2 ones (Avx2), its runs at 16 lanes either way; other engines never change
    // width; Auto is one of the two. The kernels the pipeline builds have the lanes
    // `Shader::draw_lanes` says, and draws of one batch and a lane more (stepped and indexed,
    // first ≠ 0) and of a sparse list equal the interpreter.
    let s = scene(40);
    for backend in Backend::runnable() {
        for width in [DrawWidth::Auto, DrawWidth::Full, DrawWidth::Avx2] {
            let engine = Engine::new(backend)
                .unwrap()
                .with_background_compile(false)
                .with_draw_width(width);
            let mut p = Pipeline::new(Arc::new(engine));
            lighting_setup(&mut p, &s);
            let shader = p.engine().compile(&p.regs().program(Unit::Vertex));
            let (runs, draws) = (shader.lanes(), shader.draw_lanes());
            let what = format!("{backend:?} {width:?}");
            let want = match (backend, width) {
                (Backend::X64Avx512, DrawWidth::Avx2) => vec![8],
                (Backend::X64Avx512, DrawWidth::Auto) => vec![8, 16],
                (_, DrawWidth::Auto | DrawWidth::Full | DrawWidth::Avx2) => vec![runs],
            };
            assert!(want.contains(&draws), "{what}: {draws} draw lanes");
            for (name, code) in p.draw_machine_code(&s.attributes()).unwrap() {
                let lanes = code.unwrap().lanes();
                assert_eq!(lanes, draws, "{what}: {name} kernel");
            }
            let sparse: Vec<u16> = (0..draws as u16 + 1).map(|k| (k * 7 + 3) % 40).collect();
            let sparse_ids: Vec<u32> = sparse.iter().map(|&k| u32::from(k)).collect();
            for count in [draws, draws + 1] {
                let ids: Vec<u32> = (40 - count as u32..40).collect();
                let range = Indices::Range {
                    first: ids[0],
                    count: count as u32,
                };
                // A dense list (drawn as its range), backwards.
                let list: Vec<u16> = ids.iter().rev().map(|&k| k as u16).collect();
                for (indices, ids) in [
                    (range, &ids),
                    (Indices::U16(&list), &ids),
                    (Indices::U16(&sparse), &sparse_ids),
                ] {
                    let mut out = DrawOutput::new();
                    p.draw(indices, &s.attributes(), &mut out).unwrap();
                    let what = format!("{what}: {} indices", indices.len());
                    check_lighting(&out, &p, &s, ids, &what);
                }
            }
        }
    }
}

#[test]
fn looping_ranges_name_every_vertex_at_every_draw_width() {
    // Each batch's status word maps to its vertices at the draw kernels' width: ranges of
    // W + 1, 2 W + 3 and 3 W − 1 vertices (stepped: whole batches, then the last W again) of
    // a shader that never ends name every vertex, each with its output written.
    for backend in Backend::runnable() {
        for width in [DrawWidth::Auto, DrawWidth::Full, DrawWidth::Avx2] {
            let engine = Engine::new(backend)
                .unwrap()
                .with_budget(100)
                .with_background_compile(false)
                .with_draw_width(width);
            let mut p = Pipeline::new(Arc::new(engine));
            load(&mut p, &shbin_of(&[("loop.v.pica", LOOPING_VS)]), 0);
            p.regs_mut().set_input_attributes(Unit::Vertex, 1, false);
            p.regs_mut().set_bool_uniforms(Unit::Vertex, 1);
            let w = p
                .engine()
                .compile(&p.regs().program(Unit::Vertex))
                .draw_lanes() as u32;
            for count in [w + 1, 2 * w + 3, 3 * w - 1] {
                let xs: Vec<f32> = (0..=count)
                    .flat_map(|k| [k as f32, 0.5, 0.0, 1.0])
                    .collect();
                let mut out = DrawOutput::new();
                let range = Indices::Range { first: 1, count };
                let err = p.draw(range, &[Attribute::packed(&xs, 4)], &mut out);
                let want = DrawError::BudgetExhausted {
                    unit: Unit::Vertex,
                    vertex: 1,
                    count: count as usize,
                    budget: 100,
                };
                let what = format!("{backend:?} {width:?} {count} vertices");
                assert_eq!(err, Err(want), "{what}");
                for (u, v) in out.vertices().iter().enumerate() {
                    assert_eq!(v.position(), [u as f32 + 1.0, 0.5, 0.0, 1.0], "{what}");
                }
            }
        }
    }
}

#[test]
fn a_shader_first_used_by_a_draw_compiles_its_draw_kernel_alone_and_runs_still_work() {
    // A new shader whose first use is a draw compiles the draw kernel it runs and nothing
    // else (engines compiling on the drawing thread: one compile); its AoS kernel is compiled
    // when a run, `Engine::compile` or a record-path draw needs it. With background
    // compiling too, every draw and run equals the interpreter. Ranges of 1, W − 1, W and
    // W + 1 vertices ending at the arrays' last vertex (first ≠ 0).
    const VERTICES: u32 = 40;
    let s = scene(VERTICES as usize);
    for backend in Backend::runnable() {
        // Every native engine compiles draw kernels (AVX-512 too, also when emulated).
        let draw_kernels = backend != Backend::Interp;
        for background in [false, true] {
            let mut probe = Pipeline::with_backend(Backend::Interp).unwrap();
            lighting_setup(&mut probe, &s);
            let w = lanes_of(backend, &probe);
            let mut counts = vec![1, w.saturating_sub(1).max(1), w, w + 1];
            counts.dedup();
            for count in counts {
                let engine = Arc::new(
                    Engine::new(backend)
                        .unwrap()
                        .with_background_compile(background),
                );
                let mut p = Pipeline::new(Arc::clone(&engine));
                lighting_setup(&mut p, &s);
                let first = VERTICES - count as u32;
                let ids: Vec<u32> = (first..VERTICES).collect();
                let what = format!("{backend:?} background {background} {count} vertices");
                let mut out = DrawOutput::new();
                p.draw(
                    Indices::Range {
                        first,
                        count: count as u32,
                    },
                    &s.attributes(),
                    &mut out,
                )
                .unwrap();
                check_lighting(&out, &p, &s, &ids, &what);
                let drawn = engine.stats().compiles;
                if !background {
                    assert_eq!(drawn, u64::from(draw_kernels), "{what}: first draw");
                }
                // A dense list over the same vertices, backwards: the same kernels serve.
                let list: Vec<u16> = ids.iter().rev().map(|&i| i as u16).collect();
                let mut dense = DrawOutput::new();
                p.draw(Indices::U16(&list), &s.attributes(), &mut dense)
                    .unwrap();
                check_lighting(&dense, &p, &s, &ids, &format!("{what} dense"));
                // `Engine::compile` finds the shader and compiles its AoS kernel; runs work.
                let before = engine.stats();
                check_lighting_run(&engine, &p, &s, &ids, &what);
                let after = engine.stats();
                assert_eq!((after.hits, after.misses), (before.hits + 1, 1), "{what}");
                if !background && draw_kernels {
                    assert!(after.compiles > before.compiles, "{what}: the AoS kernel");
                }
                let shader = engine.compile(&p.regs().program(Unit::Vertex));
                assert_eq!(
                    shader.machine_code().is_some(),
                    backend != Backend::Interp,
                    "{what}"
                );
                // The record path (raw records asked for) takes the AoS kernel.
                let mut raw = DrawOutput::with_raw();
                p.draw(Indices::U16(&list), &s.attributes(), &mut raw)
                    .unwrap();
                check_lighting(&raw, &p, &s, &ids, &format!("{what} raw"));
            }
        }
    }
}

#[test]
fn runs_or_prepare_before_a_new_shaders_first_draw_leave_it_one_draw_kernel_to_compile() {
    // The other orders: a run first (through `Engine::compile`, which compiles the AoS
    // kernel), or `Pipeline::prepare` first; the first draw then compiles only its draw kernel
    // (engines compiling on the drawing thread) and equals the interpreter.
    let s = scene(40);
    let ids: Vec<u32> = (3..40).collect();
    for (backend, mut p) in pipelines() {
        // Every native engine compiles draw kernels (AVX-512 too, also when emulated).
        let draw_kernels = backend != Backend::Interp;
        for (round, prepare) in [false, true].into_iter().enumerate() {
            lighting_setup(&mut p, &s);
            // A new program each round (an unused descriptor changed).
            p.regs_mut()
                .upload_descs(Unit::Vertex, 127, &[round as u32 + 1]);
            let engine = Arc::clone(p.engine());
            let what = format!("{backend:?} prepare {prepare}");
            if prepare {
                p.prepare().unwrap();
            } else {
                check_lighting_run(&engine, &p, &s, &ids, &what);
            }
            let before = engine.stats().compiles;
            let mut out = DrawOutput::new();
            p.draw(
                Indices::Range {
                    first: 3,
                    count: 37,
                },
                &s.attributes(),
                &mut out,
            )
            .unwrap();
            check_lighting(&out, &p, &s, &ids, &what);
            assert_eq!(
                engine.stats().compiles - before,
                u64::from(draw_kernels),
                "{what}"
            );
            check_lighting_run(&engine, &p, &s, &ids, &format!("{what}, run after"));
        }
    }
}

#[test]
fn threads_racing_a_new_shaders_first_draws_and_runs_all_equal_the_interpreter() {
    // Two pipelines on one engine draw a shader neither has seen while a third thread
    // compiles and runs it: whichever compiles each kernel first (the AoS kernel lazily, the
    // draw kernels, the uniform-specialized variant), every result equals the interpreter.
    let s = scene(64);
    let ids: Vec<u32> = (0..64).collect();
    let list: Vec<u16> = (0..200u32).map(|k| ((k * 7) % 64) as u16).collect();
    for backend in Backend::runnable() {
        for background in [false, true] {
            let engine = Arc::new(
                Engine::new(backend)
                    .unwrap()
                    .with_background_compile(background),
            );
            for round in 0..3u32 {
                let what = format!("{backend:?} background {background} round {round}");
                std::thread::scope(|scope| {
                    for thread in 0..2 {
                        let (engine, s, ids, list, what) = (&engine, &s, &ids, &list, &what);
                        scope.spawn(move || {
                            let mut p = Pipeline::new(Arc::clone(engine));
                            lighting_setup(&mut p, s);
                            p.regs_mut().upload_descs(Unit::Vertex, 127, &[round + 1]);
                            let mut out = DrawOutput::new();
                            // One thread draws a range, the other the index list.
                            let indices = if thread == 0 {
                                Indices::Range {
                                    first: 0,
                                    count: 64,
                                }
                            } else {
                                Indices::U16(list)
                            };
                            p.draw(indices, &s.attributes(), &mut out).unwrap();
                            check_lighting(&out, &p, s, ids, &format!("{what} thread {thread}"));
                        });
                    }
                    let (engine, s, ids, what) = (&engine, &s, &ids, &what);
                    scope.spawn(move || {
                        let mut p = Pipeline::new(Arc::clone(engine));
                        lighting_setup(&mut p, s);
                        p.regs_mut().upload_descs(Unit::Vertex, 127, &[round + 1]);
                        check_lighting_run(engine, &p, s, ids, &format!("{what} run"));
                    });
                });
            }
            assert_eq!(engine.cached(), 3, "{backend:?}");
        }
    }
}

/// A per-vertex loop that runs until the vertex's step budget is exhausted when v0.x > 0 (a
/// lane retired "exhausted" while the others end), each pass adding 1 to the position's y.
const RUNAWAY_VS: &str = "
.constf k(0.0, 1.0, 0.5, 0.25)
.in pos v0
.out opos position
.out oclr color
.proc main
    mov r0, pos
    mov oclr, k.zwyx
l:
    add r0.y, k.y, r0.y
    mov opos, r0
    cmp k.x, lt, lt, pos.x
    jmpc cmp.x, l
    mul oclr, k.z, r0
    end
.end
";

/// Draws on every engine of [`pipelines_of`] (step budget `budget`) equal the draw on the
/// interpreter engine — result, numbering and every output vertex bit for bit — and the
/// record path of the same engine, for an index list of every width, a range of no whole
/// number of batches and a dense list (both stepped); `setup` loads the shader and its state.
/// Native engines must draw through draw kernels, and the shader must retire lanes there.
fn check_retiring(budget: u32, setup: &dyn Fn(&mut Pipeline), attributes: &[Attribute], n: u32) {
    let u16s: Vec<u16> = (0..3 * n).map(|k| ((k * 7 + 5) % n) as u16).collect();
    let u8s: Vec<u8> = (0..n).rev().map(|k| k as u8).collect();
    let u32s: Vec<u32> = (0..n / 2).map(|k| (k * 11) % n).collect();
    let draws = [
        Indices::U16(&u16s),
        Indices::U8(&u8s),
        Indices::U32(&u32s),
        Indices::Range {
            first: 2,
            count: n - 3,
        },
    ];
    let engine = Engine::new(Backend::Interp).unwrap().with_budget(budget);
    let mut reference = Pipeline::new(Arc::new(engine));
    setup(&mut reference);
    for (backend, mut p) in pipelines_of(|engine| engine.with_budget(budget)) {
        setup(&mut p);
        let what = format!("{backend:?}");
        if backend != Backend::Interp {
            let shader = p.engine().compile(&p.regs().program(Unit::Vertex));
            assert!(shader.ir().unwrap().retires_lanes(), "{what}");
            let kernels = p.draw_machine_code(attributes).unwrap();
            assert_eq!(kernels.len(), 2, "{what}");
            for (name, code) in kernels {
                assert!(code.is_ok(), "{what}: {name} kernel: {code:?}");
            }
        }
        for indices in draws {
            let what = format!("{what}: {} indices", indices.len());
            let mut want = DrawOutput::new();
            let want_result = reference.draw(indices, attributes, &mut want);
            let mut got = DrawOutput::new();
            assert_eq!(p.draw(indices, attributes, &mut got), want_result, "{what}");
            assert_eq!(got.indices(), want.indices(), "{what}");
            assert_eq!(got.vertex_ids(), want.vertex_ids(), "{what}");
            assert_same_vertices(&got, &want, &what);
            let mut records = DrawOutput::with_raw();
            let result = p.draw(indices, attributes, &mut records);
            assert_eq!(result, want_result, "{what}: record path");
            assert_same_vertices(&records, &want, &format!("{what}: record path"));
        }
    }
}

#[test]
fn draws_of_shaders_whose_lanes_retire_equal_the_interpreter() {
    // Functions in the lane-position model (lanes that END while others go on, per-vertex
    // loops and calls) draw through draw kernels, indexed and stepped, on every engine: the
    // retired lanes' outputs in semantic order, and the lanes whose budget ran out in the
    // status words. Shaders: the branches example; a per-vertex runaway loop under a small
    // budget (vertices with v0.x > 0 exhaust it: a budget error naming the first of them);
    // fuzz-generated programs (the fuzzer's generator) that lower to lanes that retire.
    let n = 60u32;
    let mut rng = fastrand::Rng::with_seed(41);
    let mut vec4s =
        |lo: f32, span: f32| -> Vec<f32> { (0..4 * n).map(|_| rng.f32() * span + lo).collect() };
    let (pos, val) = (vec4s(-1.0, 2.0), vec4s(-0.5, 1.5));
    let attributes = [Attribute::packed(&pos, 4), Attribute::packed(&val, 4)];
    let example_setup = |text: &str| {
        let shbin = shbin_of(&[("lanes.v.pica", text)]);
        move |p: &mut Pipeline| {
            load(p, &shbin, 0);
            p.regs_mut().set_input_attributes(Unit::Vertex, 2, false);
            let identity = std::array::from_fn(|k| k as u8);
            p.regs_mut().set_permutation(Unit::Vertex, identity);
        }
    };
    let branches = example_setup(&example("branches.v.pica"));
    check_retiring(4096, &branches, &attributes, n);
    let runaway = example_setup(RUNAWAY_VS);
    check_retiring(37, &runaway, &attributes, n);

    // Fuzz cases: 16 input registers from the case's vertices (cycled), o0–o5 mapped to the
    // six semantic groups in order.
    let config = picajit::fuzz::Config::default();
    let mut found = 0;
    for seed in 0.. {
        let fuzz = picajit::fuzz::generate(seed, &config);
        let case = &fuzz.case;
        if case.inputs.is_empty() || case.code.len() > 4096 || case.entry > 4095 {
            continue;
        }
        let inputs: Vec<Vec<f32>> = (0..16)
            .map(|r| {
                (0..n as usize)
                    .flat_map(|k| case.inputs[k % case.inputs.len()][r])
                    .collect()
            })
            .collect();
        let attributes: Vec<Attribute> = inputs.iter().map(|a| Attribute::packed(a, 4)).collect();
        let setup = |p: &mut Pipeline| {
            let regs = p.regs_mut();
            regs.upload_code(Unit::Vertex, 0, &case.code);
            regs.upload_descs(Unit::Vertex, 0, &case.descs);
            regs.set_entry(Unit::Vertex, case.entry as u16);
            regs.upload_floats(Unit::Vertex, 0, FloatMode::F32, &case.uniforms.f);
            for (i, &value) in case.uniforms.i.iter().enumerate() {
                regs.set_int_uniform(Unit::Vertex, i as u8, value);
            }
            regs.set_bool_uniforms(Unit::Vertex, case.uniforms.b);
            regs.set_input_attributes(Unit::Vertex, 16, false);
            regs.set_permutation(Unit::Vertex, std::array::from_fn(|k| k as u8));
            regs.set_output_mask(Unit::Vertex, 0b11_1111);
            let groups: Vec<[u8; 4]> = (0..6u8)
                .map(|g| std::array::from_fn(|k| g * 4 + k as u8))
                .collect();
            regs.set_output_map(&groups);
        };
        // Only programs that lower to lanes that retire, as the vertex unit holds them.
        let mut scratch = Pipeline::with_backend(Backend::Interp).unwrap();
        setup(&mut scratch);
        let program = scratch.regs().program(Unit::Vertex);
        let lowered = picajit::frontend::lower(&program);
        if !lowered.is_ok_and(|l| l.func.retires_lanes()) {
            continue;
        }
        let budget = fuzz.budget.min(8000 / n);
        check_retiring(budget, &setup, &attributes, n);
        found += 1;
        if found == 12 {
            break;
        }
    }
}
