//! The geometry stage of a draw (as Azahar's `geometry_pipeline.cpp` runs it): the vertex
//! shader's attribute buffers feed geometry-shader invocations in point, variable-primitive
//! or fixed-primitive mode; b15 is set after every invocation; emitted triangles become
//! output vertices through the geometry unit's output mask and the output map.

use super::dense::{self, Referenced};
use super::semantic::{self, Slot};
use super::types::{Attribute, DrawError, DrawOutput, Indices};
use super::vertex;
use super::Scratch;
use crate::engine::{GeometryOutput, Shader};
use crate::pica::{GpuRegs, GsMode, Unit, SEMANTIC_SLOTS};
use crate::program::{Regs16, Vec4, VertexStatus};

/// Buffers of the geometry stage, reused from draw to draw.
#[derive(Debug, Default)]
pub(super) struct GeometryBuffers {
    /// Per unique vertex, its vertex-shader attribute buffer (`per_vertex` entries each).
    attributes: Vec<Vec4>,
    /// Variable mode: the vertex indices of the draw (the counts taken out).
    list: Vec<u32>,
    /// Variable mode: each primitive's vertex count.
    counts: Vec<u32>,
    inputs: Vec<Regs16>,
    results: GeometryOutput,
}

/// A draw through the geometry stage.
pub(super) fn draw(
    regs: &mut GpuRegs,
    vs: &Shader,
    gs: &Shader,
    indices: Indices,
    attributes: &[Attribute],
    scratch: &mut Scratch,
    out: &mut DrawOutput,
) -> Result<(), DrawError> {
    out.vertices.clear();
    out.raw.clear();
    let config = regs.gs_config();
    let per_vertex = regs.vs_output_total();
    let buffers = &mut scratch.geometry;
    match config.mode {
        GsMode::Invalid(b) => return Err(DrawError::GeometryMode(b)),
        GsMode::Point => {
            let gs_inputs = usize::from(regs.input_config(Unit::Geometry).max_attribute) + 1;
            if gs_inputs % per_vertex != 0 {
                return Err(DrawError::PointInputs {
                    gs_inputs,
                    vs_outputs: per_vertex,
                });
            }
        }
        GsMode::FixedPrimitive => {
            let stride = usize::from(config.stride_minus_1) + 1;
            if stride != per_vertex {
                return Err(DrawError::FixedStride {
                    stride,
                    vs_outputs: per_vertex,
                });
            }
        }
        GsMode::VariablePrimitive => {
            if let Indices::Range { .. } = indices {
                return Err(DrawError::VariableNeedsIndices);
            }
            // Each primitive: its vertex count, then that many vertex indices.
            buffers.list.clear();
            buffers.counts.clear();
            let mut p = 0;
            while p < indices.len() {
                let n = indices.get(p) as usize;
                p += 1;
                if indices.len() - p < n {
                    break; // an incomplete primitive at the end is dropped
                }
                buffers.counts.push(n as u32);
                buffers.list.extend((p..p + n).map(|q| indices.get(q)));
                p += n;
            }
        }
    }
    let list = match config.mode {
        GsMode::VariablePrimitive => Indices::U32(&buffers.list),
        GsMode::Point | GsMode::FixedPrimitive | GsMode::Invalid(_) => indices,
    };

    // The vertex stage: per unique vertex, its attribute buffer.
    let max_id = dense::bounds(list).map_or(0, |(_, max)| max);
    scratch
        .dedup
        .run(list, max_id, &mut scratch.ids, &mut scratch.remap);
    let config_vs = regs.input_config(Unit::Vertex);
    let feeds = vertex::feeds(
        attributes,
        usize::from(config_vs.max_attribute) + 1,
        regs.permutation(Unit::Vertex),
        vs.input_components(),
        Some(max_id),
    )?;
    let enabled: Vec<u8> = (0..16)
        .filter(|r| regs.output_mask(Unit::Vertex) >> r & 1 != 0)
        .collect();
    let written = vs.outputs_written();
    // Attribute a of a vertex: the a-th enabled output register (0.0 past them or where the
    // shader never writes).
    let sources: Vec<Option<usize>> = (0..per_vertex)
        .map(|a| {
            enabled
                .get(a)
                .map(|&r| usize::from(r))
                .filter(|&r| written >> r & 1 != 0)
        })
        .collect();
    buffers.attributes.clear();
    buffers
        .attributes
        .resize(scratch.ids.len() * per_vertex, [0.0; 4]);
    let attrs = &mut buffers.attributes;
    let vs_result = vertex::run(
        vs,
        regs.uniforms(Unit::Vertex),
        &feeds,
        &scratch.ids,
        &mut scratch.vertex,
        &mut Referenced::all(),
        |first, records| {
            for (j, rec) in records.iter().enumerate() {
                for (a, src) in sources.iter().enumerate() {
                    if let Some(r) = *src {
                        attrs[(first + j) * per_vertex + a] = rec[r];
                    }
                }
            }
        },
    );

    let table = semantic::table(
        &regs.output_map(),
        regs.output_mask(Unit::Geometry),
        gs.outputs_written(),
    );
    let remap = &scratch.remap;
    let attrs = &buffers.attributes;
    let vertex_attrs = |p: usize| {
        let u = remap[p] as usize;
        &attrs[u * per_vertex..(u + 1) * per_vertex]
    };
    let mut runner = Invocations {
        regs,
        gs,
        table: &table,
        inputs: &mut buffers.inputs,
        results: &mut buffers.results,
        out,
        first_exhausted: None,
        done: 0,
    };
    match config.mode {
        GsMode::Point => {
            // Vertex attribute buffers concatenated until the geometry unit's inputs are full.
            let gs_inputs = usize::from(runner.regs.input_config(Unit::Geometry).max_attribute) + 1;
            let per_invocation = gs_inputs / per_vertex;
            let permutation = runner.regs.permutation(Unit::Geometry);
            let invocations = remap.len() / per_invocation;
            runner.inputs.clear();
            for i in 0..invocations {
                let mut regs = [[0.0; 4]; 16];
                for v in 0..per_invocation {
                    for (a, &value) in vertex_attrs(i * per_invocation + v).iter().enumerate() {
                        regs[usize::from(permutation[v * per_vertex + a] & 15)] = value;
                    }
                }
                runner.inputs.push(regs);
            }
            runner.run_point();
        }
        GsMode::VariablePrimitive => {
            let main = runner.regs.variable_main_vertices();
            let mut p = 0;
            for &n in &buffers.counts {
                let count = n as f32;
                runner.regs.set_gs_float(0, [count; 4]);
                let mut c = 1;
                for k in 0..n {
                    let attrs = vertex_attrs(p + k as usize);
                    let take = if k < main { per_vertex } else { 1 };
                    for &value in &attrs[..take] {
                        runner.regs.set_gs_float(c, value);
                        c += 1;
                    }
                }
                p += n as usize;
                runner.run_one();
            }
        }
        GsMode::FixedPrimitive => {
            let vertices = usize::from(config.fixed_vertices_minus_1) + 1;
            let start = usize::from(config.start_index);
            for prim in 0..remap.len() / vertices {
                let mut c = start;
                for v in 0..vertices {
                    for &value in vertex_attrs(prim * vertices + v) {
                        runner.regs.set_gs_float(c, value);
                        c += 1;
                    }
                }
                runner.run_one();
            }
        }
        GsMode::Invalid(b) => return Err(DrawError::GeometryMode(b)),
    }
    let gs_result = match runner.first_exhausted {
        None => Ok(()),
        Some((invocation, count)) => Err(DrawError::BudgetExhausted {
            unit: Unit::Geometry,
            vertex: invocation,
            count,
            budget: gs.budget(),
        }),
    };
    vs_result.and(gs_result)
}

/// Runs geometry-shader invocations and collects their triangles.
struct Invocations<'a> {
    regs: &'a mut GpuRegs,
    gs: &'a Shader,
    table: &'a [Slot; SEMANTIC_SLOTS],
    inputs: &'a mut Vec<Regs16>,
    results: &'a mut GeometryOutput,
    out: &'a mut DrawOutput,
    /// The first invocation (in draw order) that exhausted its budget, and how many did.
    first_exhausted: Option<(u32, usize)>,
    /// Invocations run so far.
    done: usize,
}

impl Invocations<'_> {
    /// Runs `self.inputs` (point mode): the first invocation with b15 as it is, the others
    /// with b15 set (it is set after every invocation), in batches.
    fn run_point(&mut self) {
        let inputs = std::mem::take(self.inputs);
        let split = if self.regs.uniforms(Unit::Geometry).b & 0x8000 != 0 {
            0
        } else {
            inputs.len().min(1)
        };
        for part in [&inputs[..split], &inputs[split..]] {
            if !part.is_empty() {
                self.batch(part);
            }
        }
        *self.inputs = inputs;
    }

    /// One invocation with the uniforms as they are now (variable and fixed modes: inputs
    /// come through the uniforms; the input registers are 0.0).
    fn run_one(&mut self) {
        self.batch(&[[[0.0; 4]; 16]]);
    }

    fn batch(&mut self, inputs: &[Regs16]) {
        let uniforms = self.regs.uniforms(Unit::Geometry).clone();
        // Budget errors are read from the statuses below.
        let _ = self.gs.run_geometry_into(&uniforms, inputs, self.results);
        let base = self.done;
        for i in 0..self.results.len() {
            if self.results.status[i] == VertexStatus::BudgetExhausted {
                self.first_exhausted = Some(match self.first_exhausted {
                    None => ((base + i) as u32, 1),
                    Some((v, n)) => (v, n + 1),
                });
            }
            for tri in self.results.primitives_of(i) {
                let first = self.out.vertices.len() as u32;
                for v in &tri.vertices {
                    self.out.vertices.push(semantic::vertex_of(self.table, v));
                    if self.out.keep_raw {
                        self.out.raw.push(*v);
                    }
                }
                self.out
                    .indices
                    .list_mut()
                    .extend([first, first + 1, first + 2]);
                self.out.windings.push(tri.winding);
            }
            self.regs.set_gs_b15();
        }
        self.done += inputs.len();
    }
}
