//! Planar structure-of-arrays buffers and SoA runs (no transposes).

use super::kernels::Exec;
use super::shader::{check_lengths, single, status_of, with_context, Shader, DIVERGED};
use crate::interp::RunError;
use crate::program::{Regs16, Uniforms, VertexStatus};

/// Planar structure-of-arrays vertex data: component `c` of register `r` of vertex `v` is
/// `data[(r * 4 + c) * len + v]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SoaBuffer {
    pub len: usize,
    pub data: Vec<f32>,
}

impl SoaBuffer {
    /// Zeroed storage for `len` vertices of 16 registers.
    pub fn new(len: usize) -> SoaBuffer {
        SoaBuffer {
            len,
            data: vec![0.0; 64 * len],
        }
    }
    /// From per-vertex registers.
    pub fn from_aos(aos: &[Regs16]) -> SoaBuffer {
        let mut s = SoaBuffer::new(aos.len());
        for (v, regs) in aos.iter().enumerate() {
            for (r, reg) in regs.iter().enumerate() {
                for (c, &x) in reg.iter().enumerate() {
                    s.data[(r * 4 + c) * s.len + v] = x;
                }
            }
        }
        s
    }
    /// Back to per-vertex registers.
    pub fn to_aos(&self) -> Vec<Regs16> {
        (0..self.len)
            .map(|v| {
                std::array::from_fn(|r| {
                    std::array::from_fn(|c| self.data[(r * 4 + c) * self.len + v])
                })
            })
            .collect()
    }
    pub(super) fn get(&self, r: usize, c: usize, v: usize) -> f32 {
        self.data[(r * 4 + c) * self.len + v]
    }
    pub(super) fn set(&mut self, r: usize, c: usize, v: usize, x: f32) {
        self.data[(r * 4 + c) * self.len + v] = x;
    }
}

impl Shader {
    /// Runs planar SoA buffers (see [`SoaBuffer`]): no transposes. Stores the same registers
    /// as [`Shader::run`].
    pub fn run_soa(
        &self,
        uniforms: &Uniforms,
        inputs: &SoaBuffer,
        outputs: &mut SoaBuffer,
        status: &mut [VertexStatus],
    ) -> Result<(), RunError> {
        check_lengths(inputs.len, outputs.len, status.len())?;
        if inputs.data.len() != 64 * inputs.len || outputs.data.len() != 64 * outputs.len {
            return Err(RunError::LengthMismatch {
                inputs: inputs.data.len() / 64,
                outputs: outputs.data.len() / 64,
                status: status.len(),
            });
        }
        let n = inputs.len;
        if let Exec::Native(native) = &self.exec {
            if native.geometry {
                let aos = inputs.to_aos();
                let mut out = outputs.to_aos();
                let result = self.run(uniforms, &aos, &mut out, status);
                *outputs = SoaBuffer::from_aos(&out);
                return result;
            }
        }
        match &self.exec {
            Exec::Interp => {
                for (v, st) in status.iter_mut().enumerate() {
                    let regs: Regs16 =
                        std::array::from_fn(|r| std::array::from_fn(|c| inputs.get(r, c, v)));
                    let inv = self.interp().run_vertex(uniforms, &regs);
                    for r in (0..16).filter(|r| self.outputs >> r & 1 != 0) {
                        for c in 0..4 {
                            outputs.set(r, c, v, inv.outputs[r][c]);
                        }
                    }
                    *st = inv.status;
                }
            }
            Exec::Native(native) => {
                let kernels = native.kernels(uniforms);
                let Ok(code) = kernels.soa(native.target) else {
                    // The AoS kernel compiled, so this cannot happen; stay exact regardless.
                    let aos = inputs.to_aos();
                    let mut out = outputs.to_aos();
                    let result = self.run(uniforms, &aos, &mut out, status);
                    *outputs = SoaBuffer::from_aos(&out);
                    return result;
                };
                let ran = with_context(|ctx| {
                    self.prepare(ctx, uniforms, &native.rows);
                    let w = native.target.lanes();
                    let mut bytes = vec![0u8; n / w];
                    let full =
                        code.run_soa(ctx, &inputs.data, &mut outputs.data, n, &mut bytes)? * w;
                    let mut diverged: Vec<usize> = Vec::new();
                    for (batch, &b) in bytes.iter().enumerate() {
                        let range = batch * w..batch * w + w;
                        if b == DIVERGED {
                            diverged.extend(range);
                        } else {
                            status[range].fill(status_of(b));
                        }
                    }
                    if full < n {
                        let rest = n - full;
                        let mut tin = vec![0.0; 64 * w];
                        let mut tout = vec![0.0; 64 * w];
                        for k in 0..64 {
                            tin[k * w..k * w + rest]
                                .copy_from_slice(&inputs.data[k * n + full..k * n + n]);
                            tout[k * w..k * w + rest]
                                .copy_from_slice(&outputs.data[k * n + full..k * n + n]);
                        }
                        let mut b = [0u8];
                        code.run_soa(ctx, &tin, &mut tout, w, &mut b)?;
                        if b[0] == DIVERGED {
                            diverged.extend(full..n);
                        } else {
                            for k in 0..64 {
                                outputs.data[k * n + full..k * n + n]
                                    .copy_from_slice(&tout[k * w..k * w + rest]);
                            }
                            status[full..].fill(status_of(b[0]));
                        }
                    }
                    // Batches whose lanes disagreed: one vertex at a time through the AoS kernel.
                    for v in diverged {
                        let input: Regs16 =
                            std::array::from_fn(|r| std::array::from_fn(|c| inputs.get(r, c, v)));
                        let before: Regs16 =
                            std::array::from_fn(|r| std::array::from_fn(|c| outputs.get(r, c, v)));
                        let (out, st) = single(ctx, &kernels.aos, w, &input, &before)?;
                        for r in (0..16).filter(|r| self.outputs >> r & 1 != 0) {
                            for (c, &x) in out[r].iter().enumerate() {
                                outputs.set(r, c, v, x);
                            }
                        }
                        status[v] = st;
                    }
                    Ok::<(), String>(())
                });
                if ran.is_err() {
                    // Only the qemu job server can fail; the interpreter gives the same answer.
                    self.run_soa_interp(uniforms, inputs, outputs, status);
                }
            }
        }
        self.result(status)
    }

    pub(super) fn run_soa_interp(
        &self,
        uniforms: &Uniforms,
        inputs: &SoaBuffer,
        outputs: &mut SoaBuffer,
        status: &mut [VertexStatus],
    ) {
        for (v, st) in status.iter_mut().enumerate() {
            let regs: Regs16 =
                std::array::from_fn(|r| std::array::from_fn(|c| inputs.get(r, c, v)));
            let inv = self.interp().run_vertex(uniforms, &regs);
            for r in (0..16).filter(|r| self.outputs >> r & 1 != 0) {
                for c in 0..4 {
                    outputs.set(r, c, v, inv.outputs[r][c]);
                }
            }
            *st = inv.status;
        }
    }
}
