//! Running AArch64 kernels on another host: a persistent qemu-user process
//! (`qemu-aarch64-static`, or `qemu-aarch64`) executing the runner ELF of [`super::elf`].
//!
//! A [`Runner`] owns one qemu process. Each job sends the kernel (only if the runner's code
//! region does not hold it yet), the parts of the memory image that differ from what the runner already
//! holds (a shadow copy is kept on this side), and reads back the output buffers and status
//! bytes. The image is the batch context — its *input* fields only: uniforms, bools, ints,
//! broadcast uniform rows and the I/O block with its pointers rebased into the runner; the
//! areas the kernel writes before it reads (staging lanes, scratch, spill slots, per-batch
//! scalars) are left as they are — followed by the vertex buffers (a draw job's: the vertex
//! indices, each attribute array up to the last float the indices reach, the output vertices).
//!
//! The qemu binary is `$PICAJIT_QEMU_AARCH64` if set, else the first of `qemu-aarch64-static`
//! and `qemu-aarch64` on `PATH`.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::mem::offset_of;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::elf::{CODE_MAX, DATA, DATA_MAX};
use super::LANES;
use crate::abi::{self, Context, Io, Scalars, Triangle, MAX_LANES, UNIFORM_ENTRIES, UNIFORM_ROWS};
use crate::code::{DrawInput, DrawVertices, EmitBuffer, SemanticVertex, Vertex};

/// Why a job could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// No qemu-user binary was found.
    #[error("no qemu-aarch64-static or qemu-aarch64 found (set PICAJIT_QEMU_AARCH64 or install qemu-user-static)")]
    NoQemu,
    /// Talking to the runner process failed.
    #[error("runner I/O: {0}")]
    Io(#[from] std::io::Error),
    /// The kernel does not fit the runner's code region (its size).
    #[error("kernel of {0} bytes is larger than the runner's code region")]
    CodeTooLarge(usize),
    /// The job's memory image does not fit the runner's data region (its size).
    #[error("job image of {0} bytes is larger than the runner's data region")]
    ImageTooLarge(usize),
}

/// The qemu binary used to run AArch64 code, if there is one.
pub fn qemu() -> Option<&'static Path> {
    static QEMU: OnceLock<Option<PathBuf>> = OnceLock::new();
    QEMU.get_or_init(|| {
        if let Some(p) = std::env::var_os("PICAJIT_QEMU_AARCH64").filter(|p| !p.is_empty()) {
            return Some(PathBuf::from(p)).filter(|p| p.is_file());
        }
        let path = std::env::var_os("PATH")?;
        ["qemu-aarch64-static", "qemu-aarch64"]
            .iter()
            .find_map(|name| {
                std::env::split_paths(&path)
                    .map(|dir| dir.join(name))
                    .find(|p| p.is_file())
            })
    })
    .as_deref()
}

/// True if AArch64 kernels can be run here through qemu.
pub fn available() -> bool {
    qemu().is_some()
}

static FAILURES: AtomicUsize = AtomicUsize::new(0);

/// Jobs that failed in this process (the qemu process died or could not start). The engine
/// then runs the interpreter instead, so tests check this stays 0.
pub fn failures() -> usize {
    FAILURES.load(Ordering::Relaxed)
}

/// Counts a failed job (only the qemu path on other hosts runs jobs through a runner).
#[cfg(not(target_arch = "aarch64"))]
pub(crate) fn count_failure() {
    FAILURES.fetch_add(1, Ordering::Relaxed);
}

/// The runner ELF on disk (written once per content, shared by processes).
fn runner_path() -> Result<&'static Path, RunnerError> {
    static PATH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PATH.get_or_init(|| {
        let elf = super::elf::runner_elf();
        let hash = elf.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        let path = std::env::temp_dir().join(format!("picajit-a64-runner-{hash:016x}.elf"));
        if std::fs::read(&path).ok().as_deref() != Some(&elf[..]) || make_executable(&path).is_err()
        {
            // qemu refuses to load a file without execute permission.
            let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
            std::fs::write(&tmp, &elf)
                .and_then(|()| make_executable(&tmp))
                .and_then(|()| std::fs::rename(&tmp, &path))
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(path)
    })
    .as_ref()
    .map(PathBuf::as_path)
    .map_err(|e| RunnerError::Io(std::io::Error::other(e.clone())))
}

#[cfg(unix)]
fn make_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> std::io::Result<()> {
    Ok(())
}

/// One qemu process running the job server.
#[derive(Debug)]
pub struct Runner {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// Kernels in the runner's code region: their bytes and offsets.
    kernels: HashMap<Vec<u8>, u32>,
    /// Next free byte of the code region.
    code_top: u32,
    /// What the runner's data region holds, as far as it matters (see the module docs).
    shadow: Vec<u8>,
}

impl Drop for Runner {
    fn drop(&mut self) {
        // Closing stdin ends the server; reap it.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Size of the context in the image (its byte layout is the same on every 64-bit host).
const CTX_BYTES: usize = std::mem::size_of::<Context>();

/// Vertex batches per job at most (an AoS batch is 2 × 4 × 256 bytes of buffers).
const MAX_BATCHES_PER_JOB: usize = 8192;

fn put(buf: &mut [u8], at: usize, bytes: &[u8]) {
    buf[at..at + bytes.len()].copy_from_slice(bytes);
}

/// The context's input fields, at their offsets; `io` pointers as given.
pub(crate) fn context_image(ctx: &Context, io: &Io, image: &mut [u8]) {
    let uniforms = offset_of!(Context, uniforms);
    for (n, u) in ctx.uniforms.iter().enumerate().take(UNIFORM_ENTRIES) {
        for (c, x) in u.iter().enumerate() {
            put(image, uniforms + (n * 4 + c) * 4, &x.to_le_bytes());
        }
    }
    let scalars = offset_of!(Context, scalars);
    put(
        image,
        scalars + offset_of!(Scalars, bools),
        &ctx.scalars.bools.to_le_bytes(),
    );
    for (n, i) in ctx.scalars.ints.iter().enumerate() {
        put(image, scalars + offset_of!(Scalars, ints) + n * 4, i);
    }
    let consts = offset_of!(Context, constants);
    for (n, u) in ctx.constants.iter().enumerate() {
        for (c, x) in u.iter().enumerate() {
            put(image, consts + (n * 4 + c) * 4, &x.to_le_bytes());
        }
    }
    let rows = offset_of!(Context, uniform_rows);
    for (n, row) in ctx.uniform_rows.iter().enumerate().take(UNIFORM_ROWS) {
        for (l, x) in row.0.iter().enumerate().take(MAX_LANES) {
            put(image, rows + (n * MAX_LANES + l) * 4, &x.to_le_bytes());
        }
    }
    let base = offset_of!(Context, io);
    let word = |v: usize| (v as u64).to_le_bytes();
    put(image, base + offset_of!(Io, input), &word(io.input));
    put(image, base + offset_of!(Io, output), &word(io.output));
    put(image, base + offset_of!(Io, status), &word(io.status));
    put(
        image,
        base + offset_of!(Io, batches),
        &io.batches.to_le_bytes(),
    );
    put(
        image,
        base + offset_of!(Io, budget),
        &io.budget.to_le_bytes(),
    );
    put(image, base + offset_of!(Io, triangles), &word(io.triangles));
    put(image, base + offset_of!(Io, masks), &word(io.masks));
    put(
        image,
        base + offset_of!(Io, triangle_capacity),
        &io.triangle_capacity.to_le_bytes(),
    );
    for r in 0..16 {
        put(
            image,
            base + offset_of!(Io, draw_base) + r * 8,
            &word(io.draw_base[r]),
        );
        put(
            image,
            base + offset_of!(Io, draw_stride) + r * 8,
            &word(io.draw_stride[r]),
        );
    }
    for k in 0..64 {
        put(
            image,
            base + offset_of!(Io, planes_in) + k * 8,
            &word(io.planes_in[k]),
        );
        put(
            image,
            base + offset_of!(Io, planes_out) + k * 8,
            &word(io.planes_out[k]),
        );
    }
}

fn round_up(n: usize) -> usize {
    n.div_ceil(64) * 64
}

fn f32_bytes(xs: impl Iterator<Item = f32>, out: &mut [u8]) {
    for (chunk, x) in out.chunks_exact_mut(4).zip(xs) {
        chunk.copy_from_slice(&x.to_le_bytes());
    }
}

fn bytes_f32(bytes: &[u8]) -> impl Iterator<Item = f32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

impl Runner {
    /// Starts a qemu process running the job server.
    pub fn spawn() -> Result<Runner, RunnerError> {
        let qemu = qemu().ok_or(RunnerError::NoQemu)?;
        let elf = runner_path()?;
        let mut child = Command::new(qemu)
            .arg(elf)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdin = child.stdin.take().ok_or(RunnerError::NoQemu)?;
        let stdout = child.stdout.take().ok_or(RunnerError::NoQemu)?;
        Ok(Runner {
            child,
            stdin,
            stdout,
            kernels: HashMap::new(),
            code_top: 0,
            shadow: Vec::new(),
        })
    }

    /// One job: `image` is the whole memory image; the runner returns
    /// `image[out_start..image.len()]` and `image[extra]` (a range before `out_start`) as the
    /// kernel left them (written into `image`).
    pub fn job(
        &mut self,
        code: &[u8],
        image: &mut [u8],
        out_start: usize,
        extra: std::ops::Range<usize>,
    ) -> Result<(), RunnerError> {
        assert!(extra.start <= extra.end && extra.end <= out_start);
        if code.len() as u64 > CODE_MAX {
            return Err(RunnerError::CodeTooLarge(code.len()));
        }
        if image.len() as u64 > DATA_MAX {
            return Err(RunnerError::ImageTooLarge(image.len()));
        }
        // The kernel's place in the code region; a full region starts over.
        let padded = round_up(code.len().max(4)) - code.len();
        let (code_off, send_code) = match self.kernels.get(code) {
            Some(&off) => (off, false),
            None => {
                let size = (code.len() + padded) as u32;
                if u64::from(self.code_top) + u64::from(size) > CODE_MAX {
                    self.kernels.clear();
                    self.code_top = 0;
                }
                (self.code_top, true)
            }
        };
        let mut msg = Vec::with_capacity(64 + if send_code { code.len() } else { 0 });
        // Segments: 64-byte chunks that differ from the shadow, merged when close.
        if self.shadow.len() < image.len() {
            self.shadow.resize(image.len(), 0);
        }
        let mut segs: Vec<(usize, usize)> = Vec::new();
        for (k, (new, old)) in image.chunks(64).zip(self.shadow.chunks(64)).enumerate() {
            if new != &old[..new.len()] {
                let start = k * 64;
                let end = start + new.len();
                match segs.last_mut() {
                    Some(last) if start - last.1 <= 256 => last.1 = end,
                    _ => segs.push((start, end)),
                }
            }
        }
        let code_len = if send_code { code.len() + padded } else { 0 };
        let header = [
            code_len,
            code_off as usize,
            segs.len(),
            out_start,
            image.len() - out_start,
            extra.start,
            extra.len(),
            0,
        ];
        for v in header {
            msg.extend_from_slice(&(v as u32).to_le_bytes());
        }
        if send_code {
            msg.extend_from_slice(code);
            msg.resize(msg.len() + padded, 0);
        }
        for &(start, end) in &segs {
            msg.extend_from_slice(&(start as u32).to_le_bytes());
            msg.extend_from_slice(&((end - start) as u32).to_le_bytes());
            msg.extend_from_slice(&image[start..end]);
            self.shadow[start..end].copy_from_slice(&image[start..end]);
        }
        self.stdin.write_all(&msg)?;
        self.stdin.flush()?;
        self.stdout.read_exact(&mut image[out_start..])?;
        self.shadow[out_start..image.len()].copy_from_slice(&image[out_start..]);
        self.stdout.read_exact(&mut image[extra.clone()])?;
        self.shadow[extra.clone()].copy_from_slice(&image[extra]);
        if send_code {
            self.kernels.insert(code.to_vec(), code_off);
            self.code_top = code_off + code_len as u32;
        }
        Ok(())
    }

    /// Runs an AoS kernel like [`crate::code::ExecCode::run_aos`]: whole batches of
    /// [`LANES`] vertices, one status word per batch; returns the number of batches run. The
    /// context is read, not written back, except for `scalars.emit_count` when there is an
    /// emit buffer (whose triangles and mask bytes come back whole).
    pub fn run_aos(
        &mut self,
        code: &[u8],
        ctx: &mut Context,
        input: &[Vertex],
        output: &mut [Vertex],
        status: &mut [u32],
        mut emit: Option<EmitBuffer<'_>>,
    ) -> Result<usize, RunnerError> {
        let batches = (input.len().min(output.len()) / LANES).min(status.len());
        let capacity = emit
            .as_ref()
            .map_or(0, |e| e.triangles.len().min(e.masks.len()));
        let tri_bytes = std::mem::size_of::<Triangle>();
        let mut done = 0;
        while done < batches {
            let n = (batches - done).min(MAX_BATCHES_PER_JOB);
            let verts = n * LANES;
            let first = done * LANES;
            let vbytes = verts * std::mem::size_of::<Vertex>();
            let in_at = round_up(CTX_BYTES);
            let out_at = in_at + vbytes;
            let status_at = out_at + vbytes;
            let tri_at = round_up(status_at + 4 * n);
            let win_at = tri_at + capacity * tri_bytes;
            let mut image = vec![0u8; win_at + 4 * capacity];
            let mut io = ctx.io;
            io.input = (DATA as usize) + in_at;
            io.output = (DATA as usize) + out_at;
            io.status = (DATA as usize) + status_at;
            io.batches = n as u64;
            io.triangles = (DATA as usize) + tri_at;
            io.masks = (DATA as usize) + win_at;
            io.triangle_capacity = capacity as u64;
            context_image(ctx, &io, &mut image);
            if let Some(e) = &emit {
                let flat = e.triangles[..capacity]
                    .iter()
                    .flatten()
                    .flatten()
                    .flatten()
                    .flat_map(|l| l.0);
                f32_bytes(flat, &mut image[tri_at..win_at]);
                let words = e.masks[..capacity].as_flattened();
                for (b, w) in image[win_at..].chunks_exact_mut(2).zip(words) {
                    b.copy_from_slice(&w.to_le_bytes());
                }
            }
            let flat_in = input[first..first + verts]
                .iter()
                .flatten()
                .flatten()
                .copied();
            f32_bytes(flat_in, &mut image[in_at..out_at]);
            let flat_out = output[first..first + verts]
                .iter()
                .flatten()
                .flatten()
                .copied();
            f32_bytes(flat_out, &mut image[out_at..status_at]);
            let count = abi::EMIT_COUNT as usize;
            let extra = if emit.is_some() {
                count..count + 4
            } else {
                0..0
            };
            self.job(code, &mut image, out_at, extra)?;
            if let Some(e) = &mut emit {
                let mut vals = bytes_f32(&image[tri_at..win_at]);
                for l in e.triangles[..capacity]
                    .iter_mut()
                    .flatten()
                    .flatten()
                    .flatten()
                {
                    for x in l.0.iter_mut() {
                        *x = vals.next().unwrap_or(0.0);
                    }
                }
                let words = e.masks[..capacity].as_flattened_mut();
                for (w, b) in words.iter_mut().zip(image[win_at..].chunks_exact(2)) {
                    *w = u16::from_le_bytes([b[0], b[1]]);
                }
                let c = &image[count..count + 4];
                ctx.scalars.emit_count = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
            let mut vals = bytes_f32(&image[out_at..status_at]);
            for v in &mut output[first..first + verts] {
                for reg in v.iter_mut() {
                    for x in reg.iter_mut() {
                        *x = vals.next().unwrap_or(0.0);
                    }
                }
            }
            words_into(
                &image[status_at..status_at + 4 * n],
                &mut status[done..done + n],
            );
            done += n;
        }
        Ok(batches)
    }

    /// Runs an SoA kernel like [`crate::code::ExecCode::run_soa`] (planar buffers of `len`
    /// vertices, plane `k` at `[k * len..]`).
    pub fn run_soa(
        &mut self,
        code: &[u8],
        ctx: &Context,
        input: &[f32],
        output: &mut [f32],
        len: usize,
        status: &mut [u32],
    ) -> Result<usize, RunnerError> {
        assert!(
            input.len() >= 64 * len && output.len() >= 64 * len,
            "planar buffers too short"
        );
        let batches = (len / LANES).min(status.len());
        let mut done = 0;
        while done < batches {
            let n = (batches - done).min(MAX_BATCHES_PER_JOB);
            let verts = n * LANES;
            let first = done * LANES;
            let plane = verts * 4;
            let in_at = round_up(CTX_BYTES);
            let out_at = in_at + 64 * plane;
            let status_at = out_at + 64 * plane;
            let mut image = vec![0u8; status_at + 4 * n];
            let mut io = ctx.io;
            for k in 0..64 {
                io.planes_in[k] = DATA as usize + in_at + k * plane;
                io.planes_out[k] = DATA as usize + out_at + k * plane;
            }
            io.status = DATA as usize + status_at;
            io.batches = n as u64;
            io.triangles = 0;
            io.masks = 0;
            io.triangle_capacity = 0;
            context_image(ctx, &io, &mut image);
            for k in 0..64 {
                let src = &input[k * len + first..k * len + first + verts];
                f32_bytes(
                    src.iter().copied(),
                    &mut image[in_at + k * plane..in_at + (k + 1) * plane],
                );
                let dst = &output[k * len + first..k * len + first + verts];
                f32_bytes(
                    dst.iter().copied(),
                    &mut image[out_at + k * plane..out_at + (k + 1) * plane],
                );
            }
            self.job(code, &mut image, out_at, 0..0)?;
            for k in 0..64 {
                let vals = bytes_f32(&image[out_at + k * plane..out_at + (k + 1) * plane]);
                for (x, v) in output[k * len + first..k * len + first + verts]
                    .iter_mut()
                    .zip(vals)
                {
                    *x = v;
                }
            }
            words_into(&image[status_at..], &mut status[done..done + n]);
            done += n;
        }
        Ok(batches)
    }
}

impl Runner {
    /// Runs a draw kernel like [`crate::code::ExecCode::run_draw`] over the whole batches of `vertices`, reading each input register
    /// from `arrays` (as `code::draw_arrays` or `code::stepped_arrays` cut them: nothing past
    /// the last float the vertices reach).
    pub fn run_draw(
        &mut self,
        code: &[u8],
        ctx: &Context,
        vertices: DrawVertices<'_>,
        arrays: &[Option<DrawInput<'_>>; 16],
        output: &mut [SemanticVertex],
        status: &mut [u32],
    ) -> Result<usize, RunnerError> {
        let batches = (vertices.len().min(output.len()) / LANES).min(status.len());
        let vertex_bytes = std::mem::size_of::<SemanticVertex>();
        // The arrays, once, after the context.
        let mut at = round_up(CTX_BYTES);
        let mut io = ctx.io;
        let mut placed = [(0usize, 0usize); 16];
        for (r, array) in arrays.iter().enumerate() {
            if let Some(a) = array {
                placed[r] = (at, a.data.len());
                io.draw_base[r] = DATA as usize + at;
                io.draw_stride[r] = a.stride * 4;
                at = round_up(at + 4 * a.data.len());
            } else {
                io.draw_base[r] = 0;
                io.draw_stride[r] = 0;
            }
        }
        let ids_at = at;
        let mut done = 0;
        while done < batches {
            let n = (batches - done).min(MAX_BATCHES_PER_JOB);
            let (verts, first) = (n * LANES, done * LANES);
            let out_at = round_up(ids_at + 4 * verts);
            let status_at = out_at + verts * vertex_bytes;
            let mut image = vec![0u8; status_at + 4 * n];
            io.input = DATA as usize + ids_at;
            if let DrawVertices::Range(_) = vertices {
                // Each job starts its arrays at its first vertex.
                for (r, array) in arrays.iter().enumerate() {
                    if let Some(a) = array {
                        io.draw_base[r] = DATA as usize + placed[r].0 + 4 * first * a.stride;
                    }
                }
            }
            io.output = DATA as usize + out_at;
            io.status = DATA as usize + status_at;
            io.batches = n as u64;
            io.triangles = 0;
            io.masks = 0;
            io.triangle_capacity = 0;
            context_image(ctx, &io, &mut image);
            for (array, &(start, len)) in arrays.iter().zip(&placed) {
                if let Some(a) = array {
                    f32_bytes(a.data.iter().copied(), &mut image[start..start + 4 * len]);
                }
            }
            if let DrawVertices::Ids(ids) = vertices {
                for (b, id) in image[ids_at..out_at]
                    .chunks_exact_mut(4)
                    .zip(&ids[first..first + verts])
                {
                    b.copy_from_slice(&id.to_le_bytes());
                }
            }
            // The output vertices as they are: the kernel leaves groups of constant slots alone.
            f32_bytes(
                output[first..first + verts].iter().flatten().copied(),
                &mut image[out_at..status_at],
            );
            // The context's array pointers come back too (the kernel only reads them: the
            // copy keeps the shadow of what the runner holds true whatever a kernel does).
            let bases = match vertices {
                DrawVertices::Ids(_) => 0..0,
                DrawVertices::Range(_) => {
                    let at = abi::draw_base(0) as usize;
                    at..at + 16 * 8
                }
            };
            self.job(code, &mut image, out_at, bases)?;
            let mut vals = bytes_f32(&image[out_at..status_at]);
            for x in output[first..first + verts].iter_mut().flatten() {
                *x = vals.next().unwrap_or(0.0);
            }
            words_into(&image[status_at..], &mut status[done..done + n]);
            done += n;
        }
        Ok(batches)
    }
}

/// Little-endian u32 words of `bytes` into `out`.
fn words_into(bytes: &[u8], out: &mut [u32]) {
    for (w, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
}
