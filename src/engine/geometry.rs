//! Geometry-shader runs: batches with emitter slots and triangle records, and the flat,
//! reusable [`GeometryOutput`].

use super::kernels::Exec;
use super::shader::{status_of, with_context, Shader, DIVERGED, OVERFLOW};
use picajit_codegen::abi::Context;
use picajit_codegen::abi::{Lanes, Triangle};
use picajit_codegen::code::EmitBuffer;

use crate::interp::{Invocation, Primitive, RunError};
use crate::program::{Regs16, Uniforms, VertexStatus};

/// Triangles a native geometry batch may emit before it is rerun on the interpreter.
pub(super) const TRIANGLES_PER_BATCH: usize = 32;

/// The results of a geometry run in flat buffers ([`Shader::run_geometry_into`]), reusable
/// from run to run without reallocating.
#[derive(Clone, Debug, Default)]
pub struct GeometryOutput {
    /// Per invocation: o0..o15 when it ended (all 16 registers, 0.0 where never written).
    pub outputs: Vec<Regs16>,
    /// Per invocation: how it ended.
    pub status: Vec<VertexStatus>,
    /// Every emitted triangle, invocation after invocation, each in emission order.
    pub primitives: Vec<Primitive>,
    /// `first[i]..first[i + 1]`: the triangles of invocation i (one more entry than
    /// invocations after a run).
    pub first: Vec<usize>,
    /// The native kernels' triangle records (kept for the next run).
    pub(super) records: Vec<Triangle>,
}

impl GeometryOutput {
    /// Number of invocations.
    pub fn len(&self) -> usize {
        self.outputs.len()
    }

    /// True if it holds no invocation.
    pub fn is_empty(&self) -> bool {
        self.outputs.is_empty()
    }

    /// The triangles invocation `i` emitted.
    pub fn primitives_of(&self, i: usize) -> &[Primitive] {
        &self.primitives[self.first[i]..self.first[i + 1]]
    }

    pub(super) fn clear(&mut self) {
        self.outputs.clear();
        self.status.clear();
        self.primitives.clear();
        self.first.clear();
        self.first.push(0);
    }

    pub(super) fn push(&mut self, inv: Invocation, primitives: bool) {
        self.outputs.push(inv.outputs);
        self.status.push(inv.status);
        if primitives {
            self.primitives.extend(inv.primitives);
        }
        self.first.push(self.primitives.len());
    }
}

impl Shader {
    /// Runs every input as one invocation and returns, per vertex, its outputs (all 16
    /// registers, 0.0 where never written), status and the triangles it emitted — the API for
    /// geometry shaders (a vertex shader emits nothing). [`Shader::run_geometry_into`] gives
    /// the same in flat buffers a caller can reuse.
    pub fn run_geometry(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
    ) -> (Vec<Invocation>, Result<(), RunError>) {
        let mut out = GeometryOutput::default();
        let r = self.run_geometry_into(uniforms, inputs, &mut out);
        let result = (0..out.len())
            .map(|i| Invocation {
                outputs: out.outputs[i],
                status: out.status[i],
                primitives: out.primitives_of(i).to_vec(),
            })
            .collect();
        (result, r)
    }

    /// [`Shader::run_geometry`] into flat buffers: `out` is cleared (keeping its capacity)
    /// and holds, per invocation, its outputs, status and the range of its triangles in
    /// `out.primitives`. Native geometry kernels run one batch at a time; a batch that emits
    /// more triangles than the kernel's buffer holds is rerun on the interpreter, a batch whose
    /// lanes disagree vertex by vertex.
    pub fn run_geometry_into(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
        out: &mut GeometryOutput,
    ) -> Result<(), RunError> {
        self.geometry(uniforms, inputs, out, true)
    }

    /// [`Shader::run_geometry_into`], keeping the triangles only if `primitives` (else every
    /// invocation has none).
    pub(super) fn geometry(
        &self,
        uniforms: &Uniforms,
        inputs: &[Regs16],
        out: &mut GeometryOutput,
        primitives: bool,
    ) -> Result<(), RunError> {
        out.clear();
        match &self.exec {
            Exec::Interp => {
                for input in inputs {
                    out.push(self.interp().run_vertex(uniforms, input), primitives);
                }
            }
            Exec::Native(native) => with_context(|ctx| {
                let kernels = native.kernels(uniforms);
                self.load_uniforms(ctx, uniforms, &native.rows);
                let w = native.target.lanes();
                let written: Vec<usize> = (0..16).filter(|r| self.outputs >> r & 1 != 0).collect();
                let mut records = std::mem::take(&mut out.records);
                records.resize(TRIANGLES_PER_BATCH, [[[Lanes::default(); 4]; 16]; 3]);
                let mut windings = [0u8; TRIANGLES_PER_BATCH];
                let mut tin = vec![[[0.0; 4]; 16]; w];
                let mut tout = vec![[[0.0; 4]; 16]; w];
                // One batch of `tin`; unless it overflowed or diverged, its first `keep` lanes
                // go to `out`. In a batch of one vertex broadcast to every lane (`broadcast`)
                // the lanes cannot disagree: status 3 there is a budget exhausted by a function
                // with masked regions (`Op::Budget`). Returns the status byte.
                let mut batch_run = |ctx: &mut Context,
                                     tin: &[Regs16],
                                     keep: usize,
                                     broadcast: bool,
                                     out: &mut GeometryOutput|
                 -> u32 {
                    tout.fill([[0.0; 4]; 16]);
                    let mut b = [0u32];
                    let emit = EmitBuffer {
                        triangles: &mut records,
                        windings: &mut windings,
                    };
                    if kernels
                        .aos
                        .run_aos(ctx, tin, &mut tout, &mut b, Some(emit))
                        .is_err()
                    {
                        // Only an emulator job can fail: the batch goes to the interpreter.
                        return OVERFLOW;
                    }
                    if b[0] & OVERFLOW != 0 || (b[0] & DIVERGED != 0 && !broadcast) {
                        return b[0];
                    }
                    // Alone, a "diverged" batch (budget spent under masks) is an exhaustion.
                    let word = if b[0] & DIVERGED != 0 { u32::MAX } else { b[0] };
                    let count = if primitives {
                        (ctx.scalars.emit_count as usize).min(TRIANGLES_PER_BATCH)
                    } else {
                        0
                    };
                    // Per lane, its triangles: only the registers the kernel writes (it copies
                    // no others into triangle records; they are 0.0 in every emitted vertex).
                    for (l, regs) in tout.iter().enumerate().take(keep) {
                        out.outputs.push(*regs);
                        out.status.push(status_of(word, l));
                        for (tri, &winding) in records[..count].iter().zip(&windings) {
                            let mut vertices = [[[0.0; 4]; 16]; 3];
                            for (vertex, slot) in vertices.iter_mut().zip(tri) {
                                for &r in &written {
                                    vertex[r] = std::array::from_fn(|c| slot[r][c].0[l]);
                                }
                            }
                            out.primitives.push(Primitive {
                                vertices,
                                winding: winding != 0,
                            });
                        }
                        out.first.push(out.primitives.len());
                    }
                    b[0]
                };
                for batch in inputs.chunks(w) {
                    tin[..batch.len()].copy_from_slice(batch);
                    tin[batch.len()..].fill([[0.0; 4]; 16]);
                    let word = batch_run(ctx, &tin, batch.len(), false, out);
                    if word & OVERFLOW != 0 {
                        {
                            // More triangles than the buffer holds: exact, on the interpreter.
                            for input in batch {
                                out.push(self.interp().run_vertex(uniforms, input), primitives);
                            }
                        }
                    } else if word & DIVERGED != 0 {
                        // Lanes disagreed: each vertex alone, broadcast to every lane.
                        for input in batch {
                            if batch_run(ctx, &vec![*input; w], 1, true, out) & OVERFLOW != 0 {
                                out.push(self.interp().run_vertex(uniforms, input), primitives);
                            }
                        }
                    }
                }
                out.records = records;
            }),
        }
        self.result(&out.status)
    }
}
