//! `jit-bench --draw`: emulator draws through `picajit::pipeline` — register writes in,
//! output vertices in semantic order out — against a bare AoS `Shader::run` on the same
//! unique vertices, per backend; the same vertices drawn as a range (no index list to
//! deduplicate: what the index list costs); the draw right after a uniform-only change; the
//! first draw of a new shader against its compile time; and small draws (3 and 36 indices)
//! against small bare runs: the fixed cost of a draw and of a run.
//!
//! Each draw: 4096 u16 indices over 2048 vertices (every vertex used twice, in shuffled
//! order: 50% reuse), each input attribute in a float array of its own with a stride wider
//! than its components. Two such lists: the draw column alternates them (every draw a new
//! list), the redraw column repeats one (an emulator drawing the same mesh every frame).
//! Both are dense (they span no more vertices than they have indices), so they take the
//! stepped kernel; the sparse column alternates the same lists with every index times
//! [`SPREAD`] (each a sparse list: deduplicated in order of first use, then the indexed
//! kernel over the unique vertices).

use std::sync::Arc;

use cpu_time::ThreadTime;
use picajit::engine::{Backend, Engine, Shader};
use picajit::pica::{program_commands, FloatMode, Unit};
use picajit::pipeline::{Attribute, DrawOutput, Indices, Pipeline};
use picajit::program::{Regs16, Uniforms, VertexStatus};
use picajit::shbin::Shbin;
use serde::Serialize;

use crate::aligned::Records;

use crate::measure::median;

pub const INDICES: usize = 4096;
pub const VERTICES: usize = 2048;
/// Floats between vertices in every attribute array.
pub const STRIDE: usize = 6;
/// The sparse lists' index factor: their 2048 unique vertices span 3 × as many.
pub const SPREAD: u16 = 3;
/// An operand descriptor no workload reads: changing it makes a new program (cache key)
/// that runs exactly like the old one.
pub const UNUSED_DESC: u32 = 127;

/// Everything `--draw --json` writes.
#[derive(Serialize)]
pub struct DrawReport<'a> {
    pub machine: &'a crate::machine::Machine,
    /// u16 indices per draw.
    pub indices: usize,
    /// Vertices the indices cover (each used twice).
    pub vertices: usize,
    /// Floats between vertices in every attribute array.
    pub stride: usize,
    /// Timed samples per figure (medians reported).
    pub samples: usize,
    /// Least work per sample, ms.
    pub sample_ms: f64,
    pub results: &'a [DrawRow],
}

/// One draw workload: a SHBIN's DVLE 0 with the attributes it declares.
pub struct DrawWorkload {
    pub name: String,
    shbin: Shbin,
    pub attributes: usize,
}

/// The built-in draw set: MVP, lighting and branches (assembled from examples/shaders; the
/// last a function whose lanes retire: per-vertex END, loops and calls) and one real corpus
/// shader when `corpus` is readable.
pub fn workloads(corpus: Option<&std::path::Path>) -> Result<Vec<DrawWorkload>, String> {
    let asm = |name: &str, text: &str| -> Result<Shbin, String> {
        picajit::asm::assemble(&[picajit::asm::Source::new(
            name.to_string(),
            text.to_string(),
        )])
        .map(|(s, _)| s)
        .map_err(|d| format!("{name}: {d:?}"))
    };
    let mut all = vec![
        DrawWorkload {
            name: "mvp".into(),
            shbin: asm(
                "mvp.v.pica",
                include_str!("../../../examples/shaders/mvp.v.pica"),
            )?,
            attributes: 2,
        },
        DrawWorkload {
            name: "lighting".into(),
            shbin: asm(
                "lighting.v.pica",
                include_str!("../../../examples/shaders/lighting.v.pica"),
            )?,
            attributes: 3,
        },
        DrawWorkload {
            name: "branches".into(),
            shbin: asm(
                "branches.v.pica",
                include_str!("../../../examples/shaders/branches.v.pica"),
            )?,
            attributes: 2,
        },
    ];
    if let Some(path) = corpus {
        all.extend(file_workload(path)?);
    }
    Ok(all)
}

/// The draw workload of the SHBIN file at `path` (three attributes, named by the file's stem),
/// `None` if it cannot be read.
pub fn file_workload(path: &std::path::Path) -> Result<Option<DrawWorkload>, String> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(None);
    };
    let shbin = Shbin::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(DrawWorkload {
        name: path
            .file_stem()
            .map_or("corpus".into(), |s| s.to_string_lossy().into_owned()),
        shbin,
        attributes: 3,
    }))
}

/// The data of a draw: attribute arrays (of [`SPREAD`] × [`VERTICES`] vertices) and two
/// index lists over the same vertices, and those lists spread ([`SPREAD`]).
pub struct Data {
    arrays: Vec<Vec<f32>>,
    pub indices: Vec<u16>,
    other: Vec<u16>,
    /// The two lists with every index × [`SPREAD`].
    pub sparse: [Vec<u16>; 2],
}

/// The small draws' index lists: one triangle, and a cube of 12 triangles over 24 vertices
/// (4 per face).
fn small_lists() -> [Vec<u16>; 2] {
    let cube = (0..6u16)
        .flat_map(|f| [0, 1, 2, 0, 2, 3].map(|k| 4 * f + k))
        .collect();
    [vec![0, 1, 2], cube]
}

pub fn data(attributes: usize) -> Data {
    let mut rng = fastrand::Rng::with_seed(crate::workload::SEED);
    let arrays = (0..attributes)
        .map(|_| {
            (0..VERTICES * STRIDE)
                .map(|_| rng.f32() * 2.0 - 1.0)
                .collect::<Vec<f32>>()
        })
        .collect::<Vec<_>>();
    let mut indices: Vec<u16> = (0..INDICES).map(|k| (k % VERTICES) as u16).collect();
    rng.shuffle(&mut indices);
    let mut other = indices.clone();
    rng.shuffle(&mut other);
    // The vertices past the first VERTICES (only the sparse lists read them) from another
    // generator, so that the other columns read the same values as before.
    let mut more = fastrand::Rng::with_seed(crate::workload::SEED + 2);
    let arrays = arrays
        .into_iter()
        .map(|mut a| {
            let extra = (usize::from(SPREAD) - 1) * VERTICES * STRIDE;
            a.extend((0..extra).map(|_| more.f32() * 2.0 - 1.0));
            a
        })
        .collect();
    let spread = |list: &[u16]| list.iter().map(|&i| i * SPREAD).collect();
    let sparse = [spread(&indices), spread(&other)];
    Data {
        arrays,
        indices,
        other,
        sparse,
    }
}

impl Data {
    pub fn attributes(&self) -> Vec<Attribute<'_>> {
        self.arrays
            .iter()
            .map(|a| Attribute::Array {
                data: a,
                offset: 1,
                stride: STRIDE,
                components: 4,
            })
            .collect()
    }
    /// The unique vertices as input records (what a bare `run` takes).
    pub fn records(&self, ids: &[u32]) -> Vec<Regs16> {
        ids.iter()
            .map(|&id| {
                let mut regs = [[0.0; 4]; 16];
                for (k, a) in self.arrays.iter().enumerate() {
                    let at = 1 + id as usize * STRIDE;
                    regs[k].copy_from_slice(&a[at..at + 4]);
                }
                regs
            })
            .collect()
    }
}

/// A pipeline loaded with the workload's shader by register writes, attribute k in v_k, and
/// seeded uniforms c0–c15 in float32 mode.
pub fn loaded(engine: Arc<Engine>, w: &DrawWorkload, scale: f32) -> Pipeline {
    let mut p = Pipeline::new(engine);
    for c in program_commands(&w.shbin, 0).expect("DVLE 0") {
        p.write(c.reg, c.value, c.mask);
    }
    set_uniforms(&mut p, scale);
    let regs = p.regs_mut();
    regs.set_input_attributes(Unit::Vertex, w.attributes as u8, false);
    regs.set_permutation(Unit::Vertex, std::array::from_fn(|k| k as u8));
    p
}

fn set_uniforms(p: &mut Pipeline, scale: f32) {
    let mut rng = fastrand::Rng::with_seed(crate::workload::SEED + 1);
    let rows: Vec<[f32; 4]> = (0..16)
        .map(|_| std::array::from_fn(|_| scale * (rng.f32() * 2.0 - 1.0)))
        .collect();
    p.regs_mut()
        .upload_floats(Unit::Vertex, 0, FloatMode::F32, &rows);
}

fn cpu_us(f: impl FnOnce()) -> f64 {
    let t = ThreadTime::now();
    f();
    t.elapsed().as_secs_f64() * 1e6
}

/// One backend's figures for one workload (a row of both tables; `--json` writes them as
/// they are).
#[derive(Serialize)]
pub struct DrawRow {
    pub shader: String,
    pub backend: &'static str,
    pub ns_per_index: f64,
    /// Draws alternating two lists: every draw deduplicates a list it has not just drawn.
    pub draw_ns_per_vertex: f64,
    /// Draws of one list again and again.
    pub redraw_ns_per_vertex: f64,
    /// The same unique vertices drawn as a range (no deduplication).
    pub range_ns_per_vertex: f64,
    /// Draws alternating the two sparse lists (deduplication, the indexed kernel).
    pub sparse_ns_per_vertex: f64,
    pub run_ns_per_vertex: f64,
    /// `draw_ns_per_vertex / run_ns_per_vertex` (below 1: the draw is faster per vertex).
    pub draw_over_run: f64,
    /// `redraw_ns_per_vertex / run_ns_per_vertex`.
    pub redraw_over_run: f64,
    /// `range_ns_per_vertex / run_ns_per_vertex`.
    pub range_over_run: f64,
    /// `sparse_ns_per_vertex / run_ns_per_vertex`.
    pub sparse_over_run: f64,
    pub after_uniforms_us: f64,
    pub first_draw_us: f64,
    pub compile_us: f64,
    /// A cold compile and one generic-kernel run of the unique vertices, back to back.
    pub compile_run_us: f64,
    /// The first draw of a new shader after `Pipeline::prepare_draw`.
    pub prepared_first_us: f64,
    pub vertices: usize,
    /// Small draws: 3 indices (one triangle) and 36 (a cube over 24 vertices), µs per draw.
    pub small_draw_us: [f64; 2],
    /// Bare AoS runs of those draws' unique vertices (3 and 24), µs per run.
    pub small_run_us: [f64; 2],
}

/// The same vertices as the index lists, drawn as a range.
pub const RANGE: Indices<'static> = Indices::Range {
    first: 0,
    count: VERTICES as u32,
};

/// Where a timed draw row and a `--count` operation start: `w` loaded on `backend`, its
/// dense list drawn once, and the bare run's side (records of the draw's unique vertices, the
/// generic shader, prepared for the pipeline's uniforms).
pub struct Start {
    pub engine: Arc<Engine>,
    pub p: Pipeline,
    pub out: DrawOutput,
    pub records: Records,
    pub shader: Arc<Shader>,
    pub uniforms: Uniforms,
    /// The bare run's output records and statuses, one per record (the records, input and
    /// output, start cache lines: [`Records`]).
    pub run_out: Records,
    pub status: Vec<VertexStatus>,
}

/// Builds the [`Start`] of `w` on `backend` over the arrays of `d`.
pub fn start(w: &DrawWorkload, backend: Backend, d: &Data) -> Start {
    let engine = Arc::new(Engine::new(backend).expect("an available backend"));
    let mut p = loaded(Arc::clone(&engine), w, 1.0);
    let mut out = DrawOutput::new();
    p.prepare().expect("the shader loads");
    let _ = p.draw(Indices::U16(&d.indices), &d.attributes(), &mut out);
    let ids = out.vertex_ids().to_vec();
    // Every vertex is used: the range 0..VERTICES draws the same unique vertices.
    assert_eq!(ids.len(), VERTICES, "every vertex is drawn");
    let records = d.records(&ids);
    let shader = engine.compile(&p.regs().program(Unit::Vertex));
    let uniforms = p.regs().uniforms(Unit::Vertex).clone();
    shader.prepare(&uniforms);
    Start {
        engine,
        p,
        out,
        run_out: Records::zeros(records.len()),
        status: vec![VertexStatus::Ended; records.len()],
        records: Records::new(&records),
        shader,
        uniforms,
    }
}

/// Measures `w` on `backend`: `samples` round-robin samples of a draw and of a bare AoS
/// `run` on its unique vertices, each sample at least `sample_ms` of work.
pub fn measure(w: &DrawWorkload, backend: Backend, samples: usize, sample_ms: f64) -> DrawRow {
    let d = data(w.attributes);
    let attributes = d.attributes();
    let Start {
        engine,
        mut p,
        mut out,
        records,
        shader,
        uniforms,
        mut run_out,
        mut status,
    } = start(w, backend, &d);
    let range = RANGE;
    let mut flip = false;
    let mut draw = || {
        flip = !flip;
        let list = if flip { &d.indices } else { &d.other };
        let _ = p.draw(Indices::U16(list), &attributes, &mut out);
    };
    let mut redraw_out = DrawOutput::new();
    let mut redraw_p = loaded(Arc::clone(&engine), w, 1.0);
    redraw_p.prepare().expect("the shader loads");
    let mut redraw = || {
        let _ = redraw_p.draw(Indices::U16(&d.indices), &attributes, &mut redraw_out);
    };
    let mut ranged = DrawOutput::new();
    let mut range_p = loaded(Arc::clone(&engine), w, 1.0);
    range_p.prepare().expect("the shader loads");
    let mut draw_range = || {
        let _ = range_p.draw(range, &attributes, &mut ranged);
    };
    let mut sparse_out = DrawOutput::new();
    let mut sparse_p = loaded(Arc::clone(&engine), w, 1.0);
    sparse_p.prepare().expect("the shader loads");
    let mut sparse_flip = false;
    let mut draw_sparse = || {
        sparse_flip = !sparse_flip;
        let list = &d.sparse[usize::from(sparse_flip)];
        let _ = sparse_p.draw(Indices::U16(list), &attributes, &mut sparse_out);
    };
    let mut run = || {
        let _ = shader.run(&uniforms, &records, &mut run_out, &mut status);
    };
    // Repetitions per sample from one timed call of each.
    let reps = |us: f64| ((sample_ms * 1000.0 / us.max(0.01)).ceil() as usize).max(1);
    draw();
    redraw();
    draw_range();
    draw_sparse();
    // Background compiles (the draw kernels of both layouts) finish before timing.
    std::thread::sleep(std::time::Duration::from_millis(50));
    draw();
    redraw();
    draw_range();
    draw_sparse();
    let draw_reps = reps(cpu_us(&mut draw));
    let redraw_reps = reps(cpu_us(&mut redraw));
    let range_reps = reps(cpu_us(&mut draw_range));
    let sparse_reps = reps(cpu_us(&mut draw_sparse));
    let run_reps = reps(cpu_us(&mut run));
    let (mut draws, mut redraws, mut ranges, mut sparses, mut runs) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let per = |us: f64, reps: usize| us * 1000.0 / reps as f64;
    for _ in 0..samples {
        draws.push(per(
            cpu_us(|| (0..draw_reps).for_each(|_| draw())),
            draw_reps,
        ));
        redraws.push(per(
            cpu_us(|| (0..redraw_reps).for_each(|_| redraw())),
            redraw_reps,
        ));
        ranges.push(per(
            cpu_us(|| (0..range_reps).for_each(|_| draw_range())),
            range_reps,
        ));
        sparses.push(per(
            cpu_us(|| (0..sparse_reps).for_each(|_| draw_sparse())),
            sparse_reps,
        ));
        runs.push(per(cpu_us(|| (0..run_reps).for_each(|_| run())), run_reps));
    }
    let draw_ns = median(&mut draws);
    let redraw_ns = median(&mut redraws);
    let range_ns = median(&mut ranges);
    let sparse_ns = median(&mut sparses);
    let run_ns = median(&mut runs);
    let (small_draw_us, small_run_us) = small(&mut p, &d, &attributes, &shader, samples);

    // A uniform-only change, then one draw (no prepare): never a compile.
    let mut after = Vec::new();
    for k in 0..samples {
        set_uniforms(&mut p, if k % 2 == 0 { 0.5 } else { 1.0 });
        after.push(cpu_us(|| {
            let _ = p.draw(Indices::U16(&d.indices), &attributes, &mut out);
        }));
    }
    // The first draw of a new shader against its cold compile: the same pipeline (its
    // buffers exist, as in an emulator that has drawn before) gets a program it has not
    // seen — an unused operand descriptor changed, so the cache key is new and the shader
    // compiles — and draws once. The bound the issue sets, measured the same way: a cold
    // compile and one run of the generic kernel on the draw's unique vertices, back to back
    // (the run as cold in cache as a draw right after a compile). Each compile is of a
    // program no engine of the process has lowered (the unused descriptor changed again):
    // engines share the lowerings of large programs, and the first draw's would make the
    // compiles after it skip the frontend. And the first draw of a new shader after
    // `Pipeline::prepare_draw` (its draw kernel compiled ahead).
    let uniforms = p.regs().uniforms(Unit::Vertex).clone();
    let (mut first, mut compile, mut compile_run, mut prepared) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for k in 0..samples.min(7) as u32 {
        p.regs_mut()
            .upload_descs(Unit::Vertex, UNUSED_DESC, &[0x1000 + k]);
        let program = p.regs().program(Unit::Vertex);
        let unseen = |tag: u32| {
            let mut program = program.clone();
            program.descs[UNUSED_DESC as usize] = tag + k;
            program
        };
        first.push(cpu_us(|| {
            let _ = p.draw(Indices::U16(&d.indices), &attributes, &mut out);
        }));
        let cold = Engine::new(backend).expect("an available backend");
        let program = unseen(0x3000);
        compile.push(cpu_us(|| {
            std::hint::black_box(cold.compile(&program));
        }));
        let cold = Engine::new(backend).expect("an available backend");
        let program = unseen(0x4000);
        compile_run.push(cpu_us(|| {
            let shader = cold.compile(&program);
            let _ = shader.run(&uniforms, &records, &mut run_out, &mut status);
        }));
        p.regs_mut()
            .upload_descs(Unit::Vertex, UNUSED_DESC, &[0x2000 + k]);
        p.prepare_draw(&attributes).expect("the shader loads");
        prepared.push(cpu_us(|| {
            let _ = p.draw(Indices::U16(&d.indices), &attributes, &mut out);
        }));
    }
    DrawRow {
        shader: w.name.clone(),
        backend: backend.name(),
        ns_per_index: draw_ns / INDICES as f64,
        draw_ns_per_vertex: draw_ns / records.len() as f64,
        redraw_ns_per_vertex: redraw_ns / records.len() as f64,
        range_ns_per_vertex: range_ns / records.len() as f64,
        sparse_ns_per_vertex: sparse_ns / records.len() as f64,
        run_ns_per_vertex: run_ns / records.len() as f64,
        draw_over_run: draw_ns / run_ns,
        redraw_over_run: redraw_ns / run_ns,
        range_over_run: range_ns / run_ns,
        sparse_over_run: sparse_ns / run_ns,
        after_uniforms_us: median(&mut after),
        first_draw_us: median(&mut first),
        compile_us: median(&mut compile),
        compile_run_us: median(&mut compile_run),
        prepared_first_us: median(&mut prepared),
        vertices: records.len(),
        small_draw_us,
        small_run_us,
    }
}

/// µs per small draw (3 and 36 indices) through `p`, and per bare AoS run of their unique
/// vertices through `shader` (kernels prepared): medians of `samples` samples of 2,000 calls,
/// draws and runs alternating.
fn small(
    p: &mut Pipeline,
    d: &Data,
    attributes: &[Attribute],
    shader: &Shader,
    samples: usize,
) -> ([f64; 2], [f64; 2]) {
    const CALLS: usize = 2000;
    let uniforms = p.regs().uniforms(Unit::Vertex).clone();
    let mut out = DrawOutput::new();
    let lists = small_lists();
    let mut draw_us = [0.0; 2];
    let mut run_us = [0.0; 2];
    for (k, list) in lists.iter().enumerate() {
        let _ = p.draw(Indices::U16(list), attributes, &mut out);
        let records = d.records(out.vertex_ids());
        let mut run_out = vec![[[0.0; 4]; 16]; records.len()];
        let mut status = vec![VertexStatus::Ended; records.len()];
        let (mut draws, mut runs) = (Vec::new(), Vec::new());
        for _ in 0..samples {
            draws.push(
                cpu_us(|| {
                    for _ in 0..CALLS {
                        let _ = p.draw(Indices::U16(list), attributes, &mut out);
                    }
                }) / CALLS as f64,
            );
            runs.push(
                cpu_us(|| {
                    for _ in 0..CALLS {
                        let _ = shader.run(&uniforms, &records, &mut run_out, &mut status);
                    }
                }) / CALLS as f64,
            );
        }
        draw_us[k] = median(&mut draws);
        run_us[k] = median(&mut runs);
    }
    (draw_us, run_us)
}

/// The table of draw rows.
pub fn table(rows: &[DrawRow]) -> String {
    let mut s = String::from(
        "shader      backend    unique  ns/index  draw ns/v  redraw ns/v  range ns/v  sparse ns/v  run ns/v  draw/run  redraw/run  range/run  sparse/run  after-uniform µs  1st draw µs  compile µs  compile+run µs  prepared 1st µs\n\
         ----------  ---------  ------  --------  ---------  -----------  ----------  -----------  --------  --------  ----------  ---------  ----------  ----------------  -----------  ----------  --------------  ---------------\n",
    );
    for r in rows {
        s += &format!(
            "{:<10}  {:<9}  {:>6}  {:>8.2}  {:>9.2}  {:>11.2}  {:>10.2}  {:>11.2}  {:>8.2}  {:>7.2}×  {:>9.2}×  {:>8.2}×  {:>9.2}×  {:>16.1}  {:>11.1}  {:>10.1}  {:>14.1}  {:>15.1}\n",
            r.shader.chars().take(10).collect::<String>(),
            r.backend,
            r.vertices,
            r.ns_per_index,
            r.draw_ns_per_vertex,
            r.redraw_ns_per_vertex,
            r.range_ns_per_vertex,
            r.sparse_ns_per_vertex,
            r.run_ns_per_vertex,
            r.draw_over_run,
            r.redraw_over_run,
            r.range_over_run,
            r.sparse_over_run,
            r.after_uniforms_us,
            r.first_draw_us,
            r.compile_us,
            r.compile_run_us,
            r.prepared_first_us,
        );
    }
    s
}

/// The small-draw table: fixed costs per draw and per run.
pub fn small_table(rows: &[DrawRow]) -> String {
    let mut s = String::from(
        "shader      backend    3-index draw µs  3-vertex run µs  36-index draw µs  24-vertex run µs\n\
         ----------  ---------  ---------------  ---------------  ----------------  ----------------\n",
    );
    for r in rows {
        s += &format!(
            "{:<10}  {:<9}  {:>15.3}  {:>15.3}  {:>16.3}  {:>16.3}\n",
            r.shader.chars().take(10).collect::<String>(),
            r.backend,
            r.small_draw_us[0],
            r.small_run_us[0],
            r.small_draw_us[1],
            r.small_run_us[1],
        );
    }
    s
}

/// What the draw table's columns mean.
pub const LEGEND: &str = "\
columns: unique = vertices the draw's indices use; ns/index = one draw / its indices;
         draw ns/v, run ns/v = one draw (two lists over the same vertices alternating: each
         draw a list it did not just draw), and one bare AoS Shader::run of the same unique
         vertices (input records built beforehand, output records, both starting cache lines),
         per unique vertex; redraw ns/v = draws of one list again and again (an emulator
         redrawing a mesh every frame); range ns/v = the same vertices drawn as a range
         (Indices::Range: nothing to deduplicate; draw − range = what the index list costs);
         sparse ns/v = the two lists with every index × 3 alternating (sparse lists: each
         draw deduplicates in order of first use and runs the indexed kernel; the draw and
         redraw lists are dense and take the stepped kernel);
         draw/run, range/run, sparse/run = ratios (below 1: faster per vertex than the bare run);
         after-uniform = one draw right after a uniform-only change (no compile); 1st draw = the
         first draw of a new shader in a pipeline that has drawn before (its compile included; the
         uniform-specialized kernel compiles in the background); compile = a cold Engine::compile
         of the same program (an unused descriptor changed, so no engine of the process has
         lowered it); compile+run = such a cold compile and one run of its generic kernel on the
         draw's unique vertices, back to back (the bound on the 1st draw); prepared 1st = the
         first draw of a new shader after Pipeline::prepare_draw (its draw kernel compiled ahead).
         small draws: µs per u16 draw of 3 indices (one triangle) and of 36 (a cube: 12 triangles
         over 24 vertices) in the same pipeline, and per bare AoS run of their 3 and 24 unique
         vertices (kernels prepared): the fixed cost of a draw and of a run";
