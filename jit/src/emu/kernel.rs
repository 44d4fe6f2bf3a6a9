//! Compiled x86-64 kernels run in the emulator the way [`crate::code::ExecCode`] runs them on
//! the CPU: the context's inputs (the same image the AArch64 qemu runner sends) and the run's
//! buffers are laid out in one data region, the code (with its constant pool) in a read-only
//! region, and the kernel is called with `rdi` at the context. Outputs, status words and the
//! scalar state the batches leave come back; nothing else of the image is read.

use std::mem::offset_of;

use super::{EmuError, Machine, Region};
use crate::abi::{Context, Scalars, Triangle, LOOP_SLOTS};
use crate::code::{EmitBuffer, Vertex};
use crate::x64::{Compiled, IoMode};

/// Guest address of the code region.
pub const CODE_BASE: u64 = 0x10_0000;
/// Guest address of the data region (the context first).
pub const DATA_BASE: u64 = 0x4000_0000;
/// Guest address of the stack word `call` keeps its return address in.
pub const STACK_BASE: u64 = 0x7000_0000;

/// Why a kernel did not run in the emulator.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error("emulating the kernel: {0}")]
    Emu(#[from] EmuError),
    /// The kernel was compiled for another I/O layout.
    #[error("run_{0} needs a kernel of that I/O mode")]
    WrongMode(&'static str),
}

fn round_up(n: usize) -> usize {
    n.div_ceil(64) * 64
}

fn f32_bytes(xs: impl Iterator<Item = f32>, out: &mut [u8]) {
    for (chunk, x) in out.chunks_exact_mut(4).zip(xs) {
        chunk.copy_from_slice(&x.to_bits().to_le_bytes());
    }
}

fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The scalar state in the image (as the last batch left it) into `s`.
pub(crate) fn scalars_from(image: &[u8], s: &mut Scalars) {
    let base = offset_of!(Context, scalars);
    let w = |off: usize| word(image, base + off);
    s.bools = w(offset_of!(Scalars, bools));
    for (n, i) in s.ints.iter_mut().enumerate() {
        *i = w(offset_of!(Scalars, ints) + 4 * n).to_le_bytes();
    }
    s.al = w(offset_of!(Scalars, al)) as i32;
    s.budget = w(offset_of!(Scalars, budget));
    s.status = w(offset_of!(Scalars, status));
    for k in 0..LOOP_SLOTS {
        s.loop_down[k] = w(offset_of!(Scalars, loop_down) + 4 * k);
        s.loop_inc[k] = w(offset_of!(Scalars, loop_inc) + 4 * k) as i32;
        s.loop_saved_al[k] = w(offset_of!(Scalars, loop_saved_al) + 4 * k) as i32;
    }
    s.emit_count = w(offset_of!(Scalars, emit_count));
}

/// A compiled x86-64 kernel ready to run in the emulator.
#[derive(Debug)]
pub struct EmuKernel {
    code: Vec<u8>,
    lanes: usize,
    io: IoMode,
    /// Instructions executed by the last run.
    pub steps: u64,
    /// The distinct instruction forms the last run executed.
    pub codes: Vec<iced_x86::Code>,
}

impl EmuKernel {
    /// Prepares `compiled` (of any tier: the emulator needs no host support).
    pub fn new(compiled: &Compiled) -> EmuKernel {
        EmuKernel {
            code: compiled.code.clone(),
            lanes: compiled.tier.lanes(),
            io: compiled.io,
            steps: 0,
            codes: Vec::new(),
        }
    }

    /// Prepares raw kernel `code` of `lanes` lanes and I/O mode `io` (a kernel of a tier
    /// [`Compiled`] cannot name yet, such as [`crate::x64::avx512`]'s).
    pub fn with_code(code: Vec<u8>, lanes: usize, io: IoMode) -> EmuKernel {
        EmuKernel {
            code,
            lanes,
            io,
            steps: 0,
            codes: Vec::new(),
        }
    }

    fn run_image(&mut self, image: Vec<u8>) -> Result<Vec<u8>, EmuError> {
        let mut m = Machine::new(vec![
            Region {
                base: CODE_BASE,
                bytes: self.code.clone(),
                writable: false,
            },
            Region {
                base: DATA_BASE,
                bytes: image,
                writable: true,
            },
            Region {
                base: STACK_BASE,
                bytes: vec![0; 8],
                writable: true,
            },
        ]);
        m.call(CODE_BASE, DATA_BASE, STACK_BASE)?;
        self.steps = m.steps;
        self.codes = m.executed_codes();
        Ok(std::mem::take(&mut m.regions_mut()[1].bytes))
    }

    /// [`crate::code::ExecCode::run_aos`]: whole batches of `input`, outputs and one status
    /// word per batch, a geometry kernel's triangles and their masks into `emit`;
    /// `ctx.scalars` as the last batch left them.
    pub fn run_aos(
        &mut self,
        ctx: &mut Context,
        input: &[Vertex],
        output: &mut [Vertex],
        status: &mut [u32],
        mut emit: Option<EmitBuffer<'_>>,
    ) -> Result<usize, KernelError> {
        if self.io != IoMode::Aos {
            return Err(KernelError::WrongMode("aos"));
        }
        let batches = (input.len().min(output.len()) / self.lanes).min(status.len());
        let verts = batches * self.lanes;
        let vbytes = verts * std::mem::size_of::<Vertex>();
        let in_at = round_up(std::mem::size_of::<Context>());
        let out_at = in_at + vbytes;
        let status_at = out_at + vbytes;
        let capacity = emit
            .as_ref()
            .map_or(0, |e| e.triangles.len().min(e.masks.len()));
        let tri_at = round_up(status_at + 4 * batches);
        let masks_at = tri_at + capacity * std::mem::size_of::<Triangle>();
        let mut image = vec![0u8; masks_at + 4 * capacity];
        let mut io = ctx.io;
        io.input = DATA_BASE as usize + in_at;
        io.output = DATA_BASE as usize + out_at;
        io.status = DATA_BASE as usize + status_at;
        io.batches = batches as u64;
        io.triangles = DATA_BASE as usize + tri_at;
        io.masks = DATA_BASE as usize + masks_at;
        io.triangle_capacity = capacity as u64;
        crate::aarch64::runner::context_image(ctx, &io, &mut image);
        let flat = |vs: &[Vertex]| vs.iter().flatten().flatten().copied().collect::<Vec<f32>>();
        f32_bytes(flat(&input[..verts]).into_iter(), &mut image[in_at..out_at]);
        f32_bytes(
            flat(&output[..verts]).into_iter(),
            &mut image[out_at..status_at],
        );
        if let Some(e) = &emit {
            let lanes = e.triangles[..capacity].iter().flatten().flatten().flatten();
            f32_bytes(lanes.flat_map(|l| l.0), &mut image[tri_at..masks_at]);
            for (k, m) in e.masks[..capacity].iter().flatten().enumerate() {
                image[masks_at + 2 * k..masks_at + 2 * k + 2].copy_from_slice(&m.to_le_bytes());
            }
        }
        let image = self.run_image(image)?;
        if let Some(e) = &mut emit {
            let mut at = tri_at;
            for l in e.triangles[..capacity]
                .iter_mut()
                .flatten()
                .flatten()
                .flatten()
            {
                for x in l.0.iter_mut() {
                    *x = f32::from_bits(word(&image, at));
                    at += 4;
                }
            }
            for (k, m) in e.masks[..capacity].iter_mut().flatten().enumerate() {
                let o = masks_at + 2 * k;
                *m = u16::from_le_bytes([image[o], image[o + 1]]);
            }
        }
        let mut at = out_at;
        for x in output[..verts].iter_mut().flatten().flatten() {
            *x = f32::from_bits(word(&image, at));
            at += 4;
        }
        for (b, s) in status[..batches].iter_mut().enumerate() {
            *s = word(&image, status_at + 4 * b);
        }
        scalars_from(&image, &mut ctx.scalars);
        Ok(batches)
    }

    /// [`crate::code::ExecCode::run_soa`]: planar buffers of `len` vertices.
    pub fn run_soa(
        &mut self,
        ctx: &mut Context,
        input: &[f32],
        output: &mut [f32],
        len: usize,
        status: &mut [u32],
    ) -> Result<usize, KernelError> {
        if self.io != IoMode::Soa {
            return Err(KernelError::WrongMode("soa"));
        }
        assert!(
            input.len() >= 64 * len && output.len() >= 64 * len,
            "planar buffers too short"
        );
        let batches = (len / self.lanes).min(status.len());
        let plane = len * 4;
        let in_at = round_up(std::mem::size_of::<Context>());
        let out_at = in_at + 64 * plane;
        let status_at = out_at + 64 * plane;
        let mut image = vec![0u8; status_at + 4 * batches];
        let mut io = ctx.io;
        for k in 0..64 {
            io.planes_in[k] = DATA_BASE as usize + in_at + k * plane;
            io.planes_out[k] = DATA_BASE as usize + out_at + k * plane;
        }
        io.status = DATA_BASE as usize + status_at;
        io.batches = batches as u64;
        io.triangles = 0;
        io.masks = 0;
        io.triangle_capacity = 0;
        crate::aarch64::runner::context_image(ctx, &io, &mut image);
        f32_bytes(input[..64 * len].iter().copied(), &mut image[in_at..out_at]);
        f32_bytes(
            output[..64 * len].iter().copied(),
            &mut image[out_at..status_at],
        );
        let image = self.run_image(image)?;
        for (k, x) in output[..64 * len].iter_mut().enumerate() {
            *x = f32::from_bits(word(&image, out_at + 4 * k));
        }
        for (b, s) in status[..batches].iter_mut().enumerate() {
            *s = word(&image, status_at + 4 * b);
        }
        scalars_from(&image, &mut ctx.scalars);
        Ok(batches)
    }
}
