//! Planar structure-of-arrays buffers and SoA runs (no transposes).

use std::sync::Arc;

use super::kernels::{Exec, Kernels};
use super::shader::{check_lengths, lane_statuses, with_context, Shader};
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
}

/// The registers of vertex `v` of planes of `n` vertices, registers outside `regs` (bit r)
/// left 0.0.
fn gather(planes: &[f32], n: usize, v: usize, regs: u16) -> Regs16 {
    std::array::from_fn(|r| {
        if regs >> r & 1 != 0 {
            std::array::from_fn(|c| planes[(r * 4 + c) * n + v])
        } else {
            [0.0; 4]
        }
    })
}

/// Stores registers `regs` of `from` as vertex `v` of planes of `n` vertices.
fn scatter(planes: &mut [f32], n: usize, v: usize, regs: u16, from: &Regs16) {
    for r in (0..16).filter(|r| regs >> r & 1 != 0) {
        for (c, &x) in from[r].iter().enumerate() {
            planes[(r * 4 + c) * n + v] = x;
        }
    }
}

/// How a shader runs planar data for one set of uniforms, decided once for any number of
/// runs (a draw's chunks): the SoA kernel to use, or `None` for the interpreter or, while no
/// SoA kernel is compiled yet, the AoS kernel through transposed copies.
#[derive(Debug)]
pub(super) struct SoaPlan {
    kernels: Option<Arc<Kernels>>,
}

impl SoaPlan {
    pub(super) fn new(shader: &Shader, uniforms: &Uniforms) -> SoaPlan {
        let kernels = match &shader.exec {
            Exec::Native(native) if !native.geometry => native.soa_kernels(uniforms),
            Exec::Native(_) | Exec::Interp => None,
        };
        SoaPlan { kernels }
    }

    /// Runs `n` vertices of planar `inputs` into planar `outputs` (both at least `64 * n`
    /// long; layout as [`SoaBuffer`]); stores the registers [`Shader::outputs_written`] says.
    pub(super) fn run(
        &self,
        shader: &Shader,
        uniforms: &Uniforms,
        inputs: &[f32],
        outputs: &mut [f32],
        n: usize,
        status: &mut [VertexStatus],
    ) -> Result<(), RunError> {
        let status = &mut status[..n];
        let (inputs, outputs) = (&inputs[..64 * n], &mut outputs[..64 * n]);
        let native_code = match (&shader.exec, &self.kernels) {
            (Exec::Native(native), Some(kernels)) => kernels
                .soa(native.target, &native.counters)
                .ok()
                .map(|code| (native, code)),
            (Exec::Native(_) | Exec::Interp, _) => None,
        };
        let Some((native, code)) = native_code else {
            match &shader.exec {
                Exec::Interp => shader.run_planes_interp(uniforms, inputs, outputs, n, status),
                Exec::Native(_) => {
                    // The AoS kernel through transposed copies of the registers the run reads
                    // and writes: geometry shaders, and any shader while its SoA kernel is
                    // being compiled.
                    let read = shader.inputs_read();
                    let aos: Vec<Regs16> = (0..n).map(|v| gather(inputs, n, v, read)).collect();
                    let mut out = vec![[[0.0; 4]; 16]; n];
                    let _ = shader.run(uniforms, &aos, &mut out, status);
                    for (v, regs) in out.iter().enumerate() {
                        scatter(outputs, n, v, shader.outputs, regs);
                    }
                }
            }
            return shader.result(status);
        };
        let ran = with_context(|ctx| {
            shader.load_uniforms(ctx, uniforms, &native.rows);
            let w = native.target.lanes();
            let mut words = vec![0u32; n / w];
            let full = code.run_soa(ctx, inputs, outputs, n, &mut words)? * w;
            let mut clean = words.iter().all(|&word| word == 0);
            if clean {
                status[..full].fill(VertexStatus::Ended);
            } else {
                for (batch, &word) in words.iter().enumerate() {
                    lane_statuses(word, &mut status[batch * w..batch * w + w]);
                }
            }
            if full < n {
                let rest = n - full;
                let mut tin = vec![0.0; 64 * w];
                let mut tout = vec![0.0; 64 * w];
                for k in 0..64 {
                    tin[k * w..k * w + rest].copy_from_slice(&inputs[k * n + full..k * n + n]);
                    tout[k * w..k * w + rest].copy_from_slice(&outputs[k * n + full..k * n + n]);
                }
                let mut b = [0u32];
                code.run_soa(ctx, &tin, &mut tout, w, &mut b)?;
                clean &= b[0] == 0;
                for k in 0..64 {
                    outputs[k * n + full..k * n + n].copy_from_slice(&tout[k * w..k * w + rest]);
                }
                lane_statuses(b[0], &mut status[full..]);
            }
            Ok::<bool, String>(clean)
        });
        match ran {
            // Every batch ended: no status to search for an exhausted budget.
            Ok(true) => return Ok(()),
            Ok(false) => {}
            // Only the qemu job server can fail; the interpreter gives the same answer.
            Err(_) => shader.run_planes_interp(uniforms, inputs, outputs, n, status),
        }
        shader.result(status)
    }
}

impl Shader {
    /// Runs planar SoA buffers (see [`SoaBuffer`]): no transposes. Stores the same registers
    /// as [`Shader::run`]. While the SoA kernel is being compiled in the background the
    /// generic AoS kernel runs through transposed copies.
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
        SoaPlan::new(self, uniforms).run(
            self,
            uniforms,
            &inputs.data,
            &mut outputs.data,
            inputs.len,
            status,
        )
    }

    fn run_planes_interp(
        &self,
        uniforms: &Uniforms,
        inputs: &[f32],
        outputs: &mut [f32],
        n: usize,
        status: &mut [VertexStatus],
    ) {
        for (v, st) in status.iter_mut().enumerate() {
            let inv = self
                .interp()
                .run_vertex(uniforms, &gather(inputs, n, v, u16::MAX));
            scatter(outputs, n, v, self.outputs, &inv.outputs);
            *st = inv.status;
        }
    }
}
