//! Running AArch64 kernels: in-process on an AArch64 host (executable mapping, cache
//! maintenance, an `isb` on the calling thread before every entry), through a qemu-user
//! [`Runner`] per thread elsewhere. Both mirror [`crate::code::ExecCode`]'s `run_aos`,
//! `run_soa` and `run_draw`; the qemu path can fail (the process died), so they return a
//! `Result`.

#[cfg(not(target_arch = "aarch64"))]
use std::cell::RefCell;

#[cfg(not(target_arch = "aarch64"))]
use super::runner::Runner;
use super::runner::{self, RunnerError};
#[cfg(target_arch = "aarch64")]
use super::LANES;
use super::{Compiled, IoMode};
use crate::abi::Context;
use crate::code::{
    draw_arrays, stepped_arrays, DrawInput, DrawVertices, EmitBuffer, SemanticVertex, Vertex,
};
use crate::io_plan::DrawOrder;

/// Why a kernel did not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The qemu-user runner failed.
    #[error("{0}")]
    Runner(#[from] RunnerError),
    /// Executable memory could not be mapped.
    #[error("mapping executable memory: {0}")]
    Map(#[from] std::io::Error),
    /// The kernel was compiled for the other I/O layout.
    #[error("run_{0} needs a kernel of that I/O mode")]
    WrongMode(&'static str),
}

#[cfg(not(target_arch = "aarch64"))]
thread_local! {
    /// One qemu job server per thread, started on first use, dropped after a failure.
    static RUNNER: RefCell<Option<Runner>> = const { RefCell::new(None) };
}

#[cfg(not(target_arch = "aarch64"))]
fn with_runner<R>(f: impl FnOnce(&mut Runner) -> Result<R, RunnerError>) -> Result<R, RunnerError> {
    RUNNER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(Runner::spawn().inspect_err(|_| runner::count_failure())?);
        }
        let runner = slot.as_mut().ok_or(RunnerError::NoQemu)?;
        let result = f(runner);
        if result.is_err() {
            runner::count_failure();
            *slot = None;
        }
        result
    })
}

/// An AArch64 kernel ready to run.
#[derive(Debug)]
pub struct Kernel {
    code: Vec<u8>,
    io: IoMode,
    #[cfg(target_arch = "aarch64")]
    map: memmap2::Mmap,
}

impl Kernel {
    /// True if kernels can run on this host (natively, or through qemu-user).
    pub fn host_supports() -> bool {
        cfg!(target_arch = "aarch64") || runner::available()
    }

    /// Prepares `compiled` for running on this host.
    pub fn new(compiled: &Compiled) -> Result<Kernel, RunError> {
        #[cfg(target_arch = "aarch64")]
        {
            let mut map = memmap2::MmapMut::map_anon(compiled.code.len().max(1))?;
            map[..compiled.code.len()].copy_from_slice(&compiled.code);
            let map = map.make_exec()?;
            dynasmrt::cache_control::synchronize_icache(&map[..]);
            Ok(Kernel {
                code: compiled.code.clone(),
                io: compiled.io,
                map,
            })
        }
        #[cfg(not(target_arch = "aarch64"))]
        {
            if !runner::available() {
                return Err(RunError::Runner(RunnerError::NoQemu));
            }
            Ok(Kernel {
                code: compiled.code.clone(),
                io: compiled.io,
            })
        }
    }

    /// The machine code.
    pub fn code(&self) -> &[u8] {
        &self.code
    }

    /// Runs whole batches of [`LANES`](super::LANES) AoS vertices (see `ExecCode::run_aos`, including the
    /// emit buffer of geometry shaders: triangles, their mask bytes and `ctx.scalars.emit_count` come
    /// back as the last batch left them); returns the number of batches run.
    pub fn run_aos(
        &self,
        ctx: &mut Context,
        input: &[Vertex],
        output: &mut [Vertex],
        status: &mut [u32],
        emit: Option<EmitBuffer<'_>>,
    ) -> Result<usize, RunError> {
        if self.io != IoMode::Aos {
            return Err(RunError::WrongMode("aos"));
        }
        #[cfg(target_arch = "aarch64")]
        {
            let batches = (input.len().min(output.len()) / LANES).min(status.len());
            ctx.io.input = input.as_ptr() as usize;
            ctx.io.output = output.as_mut_ptr() as usize;
            ctx.io.status = status.as_mut_ptr() as usize;
            ctx.io.batches = batches as u64;
            crate::code::set_emit(ctx, emit);
            self.enter(ctx);
            Ok(batches)
        }
        #[cfg(not(target_arch = "aarch64"))]
        {
            Ok(with_runner(|r| {
                r.run_aos(&self.code, ctx, input, output, status, emit)
            })?)
        }
    }

    /// Runs planar SoA buffers of `len` vertices (see `ExecCode::run_soa`).
    pub fn run_soa(
        &self,
        ctx: &mut Context,
        input: &[f32],
        output: &mut [f32],
        len: usize,
        status: &mut [u32],
    ) -> Result<usize, RunError> {
        if self.io != IoMode::Soa {
            return Err(RunError::WrongMode("soa"));
        }
        #[cfg(target_arch = "aarch64")]
        {
            assert!(
                input.len() >= 64 * len && output.len() >= 64 * len,
                "planar buffers too short"
            );
            let batches = (len / LANES).min(status.len());
            let out_base = output.as_mut_ptr() as usize;
            for k in 0..64 {
                ctx.io.planes_in[k] = input[k * len..].as_ptr() as usize;
                ctx.io.planes_out[k] = out_base + k * len * 4;
            }
            ctx.io.status = status.as_mut_ptr() as usize;
            ctx.io.batches = batches as u64;
            crate::code::set_emit(ctx, None);
            self.enter(ctx);
            Ok(batches)
        }
        #[cfg(not(target_arch = "aarch64"))]
        {
            Ok(with_runner(|r| {
                r.run_soa(&self.code, ctx, input, output, len, status)
            })?)
        }
    }

    /// Runs a draw kernel over the whole batches of `vertices` (see `ExecCode::run_draw`,
    /// including its panics on a wrong order and missing or short arrays).
    pub fn run_draw(
        &self,
        ctx: &mut Context,
        vertices: DrawVertices<'_>,
        inputs: &[Option<DrawInput<'_>>; 16],
        output: &mut [SemanticVertex],
        status: &mut [u32],
    ) -> Result<usize, RunError> {
        let IoMode::Draw(layout) = self.io else {
            return Err(RunError::WrongMode("draw"));
        };
        let batches = (vertices.len().min(output.len()) / super::LANES).min(status.len());
        let vertices = vertices.first(batches * super::LANES);
        let arrays = match vertices {
            DrawVertices::Ids(ids) => {
                assert!(
                    matches!(
                        layout.order,
                        DrawOrder::Indexed | DrawOrder::IndexedStrides(_)
                    ),
                    "run_draw: ids need an indexed kernel"
                );
                draw_arrays(&layout, ids, inputs)
            }
            DrawVertices::Range(count) => stepped_arrays(&layout, count, inputs),
        };
        #[cfg(target_arch = "aarch64")]
        {
            for (r, array) in arrays.iter().enumerate() {
                let (base, stride) =
                    array.map_or((0, 0), |a| (a.data.as_ptr() as usize, a.stride * 4));
                ctx.io.draw_base[r] = base;
                ctx.io.draw_stride[r] = stride;
            }
            ctx.io.input = match vertices {
                DrawVertices::Ids(ids) => ids.as_ptr() as usize,
                DrawVertices::Range(_) => 0,
            };
            ctx.io.output = output.as_mut_ptr() as usize;
            ctx.io.status = status.as_mut_ptr() as usize;
            ctx.io.batches = batches as u64;
            crate::code::set_emit(ctx, None);
            self.enter(ctx);
            Ok(batches)
        }
        #[cfg(not(target_arch = "aarch64"))]
        {
            Ok(with_runner(|r| {
                r.run_draw(&self.code, ctx, vertices, &arrays, output, status)
            })?)
        }
    }

    #[cfg(target_arch = "aarch64")]
    fn enter(&self, ctx: &mut Context) {
        type Entry = unsafe extern "C" fn(*mut Context);
        // This thread may not have executed an instruction-synchronization barrier since the
        // code was written (on another thread): one `isb` before every entry.
        dynasmrt::cache_control::prepare_for_execution(&self.map[..]);
        // SAFETY: `map` holds complete, position-independent code produced by
        // `aarch64::compile` (A64 with NEON, which every AArch64 Linux host has), made visible
        // to instruction fetch in `new` (data-cache clean and instruction-cache invalidate) and
        // on this thread by the `isb` above. Its entry point is offset 0 and it follows AAPCS64
        // with one pointer argument: it saves and restores d8–d15 and FPCR, uses only
        // caller-saved general registers and 80 bytes of stack. The mapping is read+execute and
        // lives as long as `self`. The code reads and writes `*ctx` (exclusively borrowed) at
        // offsets inside `Context`, its own constant pool, and the vertex buffers `ctx.io`
        // describes, which `run_aos`/`run_soa`/`run_draw` set from slices borrowed for the call
        // with `batches` computed so every access stays inside them (a draw kernel reads, per
        // register its layout loads, the floats at `base + id × stride` for the indices of
        // `ids`, which `draw_arrays` checked lie inside the register's array). It returns after at most
        // `batches` batches, each bounded by the step budget.
        unsafe {
            let entry: Entry = std::mem::transmute::<*const u8, Entry>(self.map.as_ptr());
            entry(ctx as *mut Context);
        }
    }
}
