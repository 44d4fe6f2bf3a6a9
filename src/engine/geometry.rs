//! Geometry-shader runs: batches with emitter slots and triangle records, and the flat,
//! reusable [`GeometryOutput`].

use super::kernels::Exec;
use super::shader::{status_of, with_context, Shader, OVERFLOW};
use picajit_codegen::abi::{Lanes, Triangle};
use picajit_codegen::code::EmitBuffer;

use crate::interp::{Invocation, Primitive, RunError};
use crate::program::{Regs16, Uniforms, VertexStatus};

/// Triangle records a native geometry batch may make before it is rerun on the interpreter
/// (lanes that emit at different times use different records).
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
    /// `out.primitives`. Native geometry kernels run one batch at a time, every lane with its
    /// own emitter and triangles (`frontend::emitter`); a batch that records more triangles
    /// than the kernel's buffer holds is rerun on the interpreter.
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
                let mut masks = [[0u16; 2]; TRIANGLES_PER_BATCH];
                let mut tin = vec![[[0.0; 4]; 16]; w];
                let mut tout = vec![[[0.0; 4]; 16]; w];
                for batch in inputs.chunks(w) {
                    tin[..batch.len()].copy_from_slice(batch);
                    tin[batch.len()..].fill([[0.0; 4]; 16]);
                    tout.fill([[0.0; 4]; 16]);
                    let mut b = [0u32];
                    let emit = EmitBuffer {
                        triangles: &mut records,
                        masks: &mut masks,
                    };
                    // Only an emulator job can fail: the batch goes to the interpreter.
                    let failed = match kernels.aos(&native.counters) {
                        Ok(aos) => aos
                            .code
                            .run_aos(ctx, &tin, &mut tout, &mut b, Some(emit))
                            .is_err(),
                        Err(_) => true,
                    };
                    if failed || b[0] & OVERFLOW != 0 {
                        // More triangles than the buffer holds: exact, on the interpreter.
                        for input in batch {
                            out.push(self.interp().run_vertex(uniforms, input), primitives);
                        }
                        continue;
                    }
                    let count = if primitives {
                        (ctx.scalars.emit_count as usize).min(TRIANGLES_PER_BATCH)
                    } else {
                        0
                    };
                    // Per lane, its triangles: the records naming it, in order (its emission
                    // order); only the registers the kernel writes (it copies no others into
                    // triangle records; they are 0.0 in every emitted vertex).
                    for (l, regs) in tout.iter().enumerate().take(batch.len()) {
                        out.outputs.push(*regs);
                        out.status.push(status_of(b[0], l));
                        let mine = records[..count]
                            .iter()
                            .zip(&masks)
                            .filter(|(_, m)| m[0] >> l & 1 != 0);
                        for (tri, m) in mine {
                            let mut vertices = [[[0.0; 4]; 16]; 3];
                            for (vertex, slot) in vertices.iter_mut().zip(tri) {
                                for &r in &written {
                                    vertex[r] = std::array::from_fn(|c| slot[r][c].0[l]);
                                }
                            }
                            out.primitives.push(Primitive {
                                vertices,
                                winding: m[1] >> l & 1 != 0,
                            });
                        }
                        out.first.push(out.primitives.len());
                    }
                }
                out.records = records;
            }),
        }
        self.result(&out.status)
    }
}
