//! Executable memory and the one call boundary into generated code.
//!
//! [`ExecCode`] places finished machine code in a [`CodeArena`] (pages written while read+write,
//! then flipped to read+execute: never writable and executable at once). [`ExecCode::run_aos`],
//! [`ExecCode::run_soa`] and [`ExecCode::run_draw`] enter generated code through one private
//! call boundary; they are safe
//! to call because the code was produced by this crate's backend for a tier the host supports
//! (checked at construction), and it touches nothing but the context it is handed (and its
//! own read-only constant pool).
//!
//! With the `emu` feature (test builds), code of a tier the host lacks — AVX-512 on most
//! machines — is not refused: the same call boundary runs it in the x86-64 emulator
//! (module `emu`), handing it the memory the call may touch (the context, the code, and the
//! slices the `run_*` method holds borrowed) at their real addresses. [`Tier::runnable`]
//! says whether a tier runs here at all, natively or emulated.

use std::io;

use crate::abi::{Context, Triangle, TriangleMasks};
use crate::arena::{CodeArena, Placed};
use crate::x64::{Compiled, DrawLayout, DrawOrder, IoMode, Tier};

impl Tier {
    /// True if code of this tier runs on this host: natively ([`Tier::host_supports`]), or,
    /// with the `emu` feature on an x86-64 host, in the emulator (exact, but thousands of
    /// times slower: for tests).
    pub fn runnable(self) -> bool {
        self.host_supports() || Tier::emulates(self)
    }

    /// True if [`ExecCode`] runs code of this tier in the emulator here (the `emu` feature is
    /// on, the host is x86-64 and lacks the tier).
    pub fn emulated(self) -> bool {
        Tier::emulates(self) && !self.host_supports()
    }

    const fn emulates(self) -> bool {
        let _ = self;
        cfg!(all(feature = "emu", target_arch = "x86_64"))
    }
}

/// A slice one call may read or write besides the context and the code: what the emulator
/// needs to run the call with the pointers `ctx.io` holds (native code reads the memory
/// directly and ignores these: without the `emu` feature nothing reads them).
#[derive(Debug)]
#[cfg_attr(not(feature = "emu"), allow(dead_code))]
pub(crate) enum Span<'a> {
    /// Floats the code reads (AoS/SoA inputs, a draw's attribute arrays).
    Floats(&'a [f32]),
    /// Words the code reads (a draw's vertex indices).
    Words(&'a [u32]),
    /// Floats the code writes (outputs).
    FloatsMut(&'a mut [f32]),
    /// Words the code writes (status words).
    WordsMut(&'a mut [u32]),
    /// Triangle mask words the code writes.
    HalvesMut(&'a mut [u16]),
    /// Triangle records the code writes.
    TrianglesMut(&'a mut [Triangle]),
}

/// One AoS vertex: 16 registers of (x, y, z, w).
pub type Vertex = [[f32; 4]; 16];

/// Floats of one output vertex of a draw kernel (its semantic slots).
pub type SemanticVertex = [f32; crate::x64::DRAW_SLOTS];

/// Where a draw kernel reads one input register: vertex `id`'s attribute is the layout's
/// component count of floats at `data[id * stride..]`.
#[derive(Clone, Copy, Debug)]
pub struct DrawInput<'a> {
    pub data: &'a [f32],
    /// Floats from one vertex's attribute to the next (0: the same value for every vertex).
    pub stride: usize,
}

/// The vertices a draw kernel runs on.
#[derive(Clone, Copy, Debug)]
pub enum DrawVertices<'a> {
    /// Vertex indices, for an indexed layout ([`DrawOrder::Indexed`],
    /// [`DrawOrder::IndexedStrides`]): output vertex `j` is
    /// vertex `ids[j]`, whose attribute of register r is at `inputs[r].data[id * stride..]`.
    Ids(&'a [u32]),
    /// This many consecutive vertices, for a stepped layout ([`DrawOrder::Stepped`]): output
    /// vertex `j` is the one at `inputs[r].data[j * stride..]`.
    Range(usize),
}

impl<'a> DrawVertices<'a> {
    /// How many vertices.
    pub fn len(&self) -> usize {
        match *self {
            DrawVertices::Ids(ids) => ids.len(),
            DrawVertices::Range(count) => count,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first `n` of them (`n` at most [`len`](Self::len)).
    pub fn first(self, n: usize) -> Self {
        match self {
            DrawVertices::Ids(ids) => DrawVertices::Ids(&ids[..n]),
            DrawVertices::Range(_) => DrawVertices::Range(n),
        }
    }
}

/// The arrays a draw kernel of `layout` reads for the vertex indices `ids`, per input
/// register (`None` where it reads none, or `ids` is empty), each cut to the floats the
/// largest index reaches: a kernel touches nothing past them.
///
/// Panics if a register the layout loads has no array or one too short for the largest
/// index (callers check first, with their own typed errors).
pub(crate) fn draw_arrays<'a>(
    layout: &DrawLayout,
    ids: &[u32],
    inputs: &[Option<DrawInput<'a>>; 16],
) -> [Option<DrawInput<'a>>; 16] {
    check_fixed_strides(layout, inputs);
    let largest = ids.iter().copied().max();
    assert!(
        layout.offsets_fit(largest.unwrap_or(0)),
        "draw: an attribute offset of 2^32 bytes or more in an indexed kernel of fixed strides"
    );
    let largest = largest.map(|i| i as usize);
    std::array::from_fn(|r| {
        let n = usize::from(layout.components[r]);
        let largest = largest.filter(|_| n > 0)?;
        Some(cut_to_vertex(r, inputs[r], largest, n))
    })
}

/// Panics if `layout` is an indexed kernel of fixed strides and a register it loads has an
/// array of another stride.
fn check_fixed_strides(layout: &DrawLayout, inputs: &[Option<DrawInput<'_>>; 16]) {
    let DrawOrder::IndexedStrides(strides) = layout.order else {
        return;
    };
    for (r, input) in inputs.iter().enumerate() {
        if let (1.., Some(a)) = (layout.components[r], input) {
            assert_eq!(
                a.stride.checked_mul(4),
                Some(strides[r] as usize),
                "draw input v{r}: stride differs from the kernel's"
            );
        }
    }
}

/// Input register `r`'s array cut to the `n` floats of vertex `last` (its last float).
///
/// Panics if there is no array or vertex `last` is past it.
fn cut_to_vertex<'a>(
    r: usize,
    input: Option<DrawInput<'a>>,
    last: usize,
    n: usize,
) -> DrawInput<'a> {
    let Some(a) = input else {
        panic!("draw input v{r}: no array")
    };
    let end = last.checked_mul(a.stride).and_then(|s| s.checked_add(n));
    match end {
        Some(end) if end <= a.data.len() => DrawInput {
            data: &a.data[..end],
            stride: a.stride,
        },
        Some(_) | None => panic!(
            "draw input v{r}: vertex {last} is past its array of {}",
            a.data.len()
        ),
    }
}

/// [`draw_arrays`] for a kernel run in this process, which needs every id inside every array
/// but not the arrays cut tightly: each array the layout loads is cut to the last whole
/// vertex the shortest of them holds, and the ids are checked against that vertex — one
/// unsigned compare per id, which vectorizes at the x86-64 baseline where the largest id
/// (an unsigned maximum) does not. Panics as [`draw_arrays`] does.
pub(crate) fn draw_arrays_within<'a>(
    layout: &DrawLayout,
    ids: &[u32],
    inputs: &[Option<DrawInput<'a>>; 16],
) -> [Option<DrawInput<'a>>; 16] {
    if ids.is_empty() {
        return [None; 16];
    }
    check_fixed_strides(layout, inputs);
    // The last vertex every loaded array holds (`None`: some array holds none).
    let mut last = Some(u32::MAX);
    for (r, input) in inputs.iter().enumerate() {
        let n = usize::from(layout.components[r]);
        if n == 0 {
            continue;
        }
        let holds = match input {
            Some(a) if a.data.len() < n => None,
            Some(a) if a.stride == 0 => Some(u32::MAX),
            Some(a) => Some(((a.data.len() - n) / a.stride).min(u32::MAX as usize) as u32),
            None => None,
        };
        last = last.zip(holds).map(|(x, y)| x.min(y));
    }
    let inside = last.is_some_and(|last| !ids.iter().fold(false, |a, &i| a | (i > last)));
    let Some(last) = last.filter(|&last| inside && layout.offsets_fit(last)) else {
        // Some id is outside an array, or the arrays reach 4 GiB: the exact checks.
        return draw_arrays(layout, ids, inputs);
    };
    std::array::from_fn(|r| {
        let n = usize::from(layout.components[r]);
        let a = inputs[r].filter(|_| n > 0)?;
        // In bounds: `last` ≤ (len − n) / stride for every loaded array.
        let end = last as usize * a.stride + n;
        Some(DrawInput {
            data: &a.data[..end],
            stride: a.stride,
        })
    })
}

/// The arrays a stepped draw kernel of `layout` reads for `count` consecutive vertices from
/// the start of each array, per input register (`None` where it reads none, or `count` is
/// 0), each cut to the floats the last vertex reaches.
///
/// Panics if `layout` is not stepped, or a register the layout loads has no array, one whose
/// stride differs from the layout's, or one too short for `count` vertices (callers check
/// first, with their own typed errors).
pub(crate) fn stepped_arrays<'a>(
    layout: &DrawLayout,
    count: usize,
    inputs: &[Option<DrawInput<'a>>; 16],
) -> [Option<DrawInput<'a>>; 16] {
    let DrawOrder::Stepped(strides) = layout.order else {
        panic!("a range of vertices needs a stepped draw kernel")
    };
    // A plain loop over the registers: `array::from_fn` with a fallible closure costs a few
    // dozen instructions per register, and this runs on every draw.
    let mut arrays = [None; 16];
    let Some(last) = count.checked_sub(1) else {
        return arrays;
    };
    for (r, array) in arrays.iter_mut().enumerate() {
        let n = usize::from(layout.components[r]);
        if n == 0 {
            continue;
        }
        let a = cut_to_vertex(r, inputs[r], last, n);
        assert_eq!(
            a.stride.checked_mul(4),
            Some(strides[r] as usize),
            "draw input v{r}: stride differs from the kernel's"
        );
        *array = Some(a);
    }
    arrays
}

/// Where a geometry kernel puts the triangles of a batch: `triangles.len().min(masks.len())`
/// fit; a batch that emits more ends with `abi::STATUS_OVERFLOW`. Recorded triangles are
/// counted in `ctx.scalars.emit_count` (per batch: run geometry kernels one batch at a time);
/// record `k` belongs to the lanes `masks[k]` names ([`TriangleMasks`]).
pub struct EmitBuffer<'a> {
    pub triangles: &'a mut [Triangle],
    pub masks: &'a mut [TriangleMasks],
}

/// Points `ctx.io` at the emit buffer (or at none: capacity 0).
pub(crate) fn set_emit(ctx: &mut Context, emit: Option<EmitBuffer<'_>>) {
    match emit {
        Some(e) => {
            ctx.io.triangle_capacity = e.triangles.len().min(e.masks.len()) as u64;
            ctx.io.triangles = e.triangles.as_mut_ptr() as usize;
            ctx.io.masks = e.masks.as_mut_ptr() as usize;
        }
        None => {
            ctx.io.triangle_capacity = 0;
            ctx.io.triangles = 0;
            ctx.io.masks = 0;
        }
    }
}

/// Machine code ready to run batches: mapped executable, or (feature `emu`, a tier the host
/// lacks) held for the emulator.
#[derive(Debug)]
pub struct ExecCode {
    code: Backing,
    tier: Tier,
    io: IoMode,
}

/// Where the code runs.
#[derive(Debug)]
enum Backing {
    /// Read+execute pages of an arena, called directly.
    Native(Placed),
    /// Run in the x86-64 emulator.
    #[cfg(feature = "emu")]
    Emulated(crate::emu::call::EmulatedCode),
}

/// Why code could not be made executable, or a call did not complete.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The host lacks the instructions of the tier (and cannot emulate them).
    #[error("this host cannot run {0:?} code")]
    Unsupported(Tier),
    /// Executable memory could not be mapped.
    #[error("mapping executable memory: {0}")]
    Map(#[from] io::Error),
    /// The emulator stopped before the code returned (only with the `emu` feature, for a
    /// tier the host lacks: an instruction it does not implement, or an access outside the
    /// call's memory — a backend or emulator bug, never a host fault).
    #[error("emulating {tier:?} code: {message}")]
    Emulation { tier: Tier, message: String },
}

impl ExecCode {
    /// Makes `compiled` runnable: placed executable in the process's shared arena
    /// ([`CodeArena::shared`]) when the host has the tier's instruction set, otherwise
    /// (feature `emu` on x86-64, [`Tier::emulated`]) held for the emulator. Fails if the tier
    /// is not [`Tier::runnable`].
    pub fn new(compiled: &Compiled) -> Result<ExecCode, ExecError> {
        ExecCode::new_in(compiled, CodeArena::shared())
    }

    /// [`ExecCode::new`], placing native code in `arena`; its pages go back to the arena when
    /// the `ExecCode` drops.
    pub fn new_in(compiled: &Compiled, arena: &CodeArena) -> Result<ExecCode, ExecError> {
        if compiled.tier.emulated() {
            #[cfg(feature = "emu")]
            return Ok(ExecCode::emulated(compiled));
        }
        if !compiled.tier.host_supports() {
            return Err(ExecError::Unsupported(compiled.tier));
        }
        Ok(ExecCode {
            code: Backing::Native(arena.place(&compiled.code)?),
            tier: compiled.tier,
            io: compiled.io,
        })
    }

    /// `compiled` held for the emulator whatever the host supports (tests compare it with the
    /// native run of the same code).
    #[cfg(feature = "emu")]
    pub fn emulated(compiled: &Compiled) -> ExecCode {
        ExecCode {
            code: Backing::Emulated(crate::emu::call::EmulatedCode::new(compiled.code.clone())),
            tier: compiled.tier,
            io: compiled.io,
        }
    }

    /// For code run in the emulator: the instructions its calls have executed so far and their
    /// distinct forms (None for native code).
    #[cfg(feature = "emu")]
    pub fn emulation_trace(&self) -> Option<crate::emu::call::Trace> {
        match &self.code {
            Backing::Native(_) => None,
            Backing::Emulated(code) => Some(code.trace()),
        }
    }

    /// True if calls run in the emulator.
    pub fn is_emulated(&self) -> bool {
        match self.code {
            Backing::Native(_) => false,
            #[cfg(feature = "emu")]
            Backing::Emulated(_) => true,
        }
    }

    /// The tier the code was compiled for.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// Runs the AoS kernel over the whole batches of `input` (W vertices each; a shorter tail is
    /// the caller's to pad), writing `output` and one status word per batch (`abi::Io`: bit l
    /// set if lane l exhausted its budget). Returns the number of batches run. Only the output registers the program
    /// writes are stored (all four components of each). An error only from the emulator.
    pub fn run_aos(
        &self,
        ctx: &mut Context,
        input: &[Vertex],
        output: &mut [Vertex],
        status: &mut [u32],
        emit: Option<EmitBuffer<'_>>,
    ) -> Result<usize, ExecError> {
        assert_eq!(self.io, IoMode::Aos, "run_aos needs an AoS kernel");
        let batches = (input.len().min(output.len()) / self.tier.lanes()).min(status.len());
        let n = batches * self.tier.lanes();
        let (input, output) = (&input[..n], &mut output[..n]);
        let mut emit = emit.map(|e| {
            let capacity = e.triangles.len().min(e.masks.len());
            (&mut e.triangles[..capacity], &mut e.masks[..capacity])
        });
        set_emit(
            ctx,
            emit.as_mut()
                .map(|(triangles, masks)| EmitBuffer { triangles, masks }),
        );
        let status = &mut status[..batches];
        self.run_batches(
            ctx,
            input.as_ptr() as usize,
            output.as_mut_ptr() as usize,
            status,
            || {
                let mut spans = vec![
                    Span::Floats(input.as_flattened().as_flattened()),
                    Span::FloatsMut(output.as_flattened_mut().as_flattened_mut()),
                ];
                if let Some((triangles, masks)) = emit {
                    spans.push(Span::TrianglesMut(triangles));
                    spans.push(Span::HalvesMut(masks.as_flattened_mut()));
                }
                spans
            },
        )
    }

    /// Points `ctx.io` at a run's vertex input and output (`run_aos` and `run_draw` checked
    /// that `status.len()` whole batches fit them) and the status words, and runs the
    /// batches; `spans` lists the slices behind `input`, `output` and the emit buffer (for the
    /// emulator).
    fn run_batches<'s>(
        &self,
        ctx: &mut Context,
        input: usize,
        output: usize,
        status: &'s mut [u32],
        spans: impl FnOnce() -> Vec<Span<'s>>,
    ) -> Result<usize, ExecError> {
        let batches = status.len();
        ctx.io.input = input;
        ctx.io.output = output;
        ctx.io.status = status.as_mut_ptr() as usize;
        ctx.io.batches = batches as u64;
        self.enter(ctx, || {
            let mut spans = spans();
            spans.push(Span::WordsMut(status));
            spans
        })?;
        Ok(batches)
    }

    /// Runs the SoA kernel over the whole batches of `len` vertices in planar buffers:
    /// component `c` of register `r` of vertex `v` is at `[(r * 4 + c) * len + v]` of `input`
    /// and `output` (both `64 * len` long). Status bytes and return value as for
    /// [`ExecCode::run_aos`].
    pub fn run_soa(
        &self,
        ctx: &mut Context,
        input: &[f32],
        output: &mut [f32],
        len: usize,
        status: &mut [u32],
    ) -> Result<usize, ExecError> {
        assert_eq!(self.io, IoMode::Soa, "run_soa needs an SoA kernel");
        assert!(
            input.len() >= 64 * len && output.len() >= 64 * len,
            "planar buffers too short"
        );
        let batches = (len / self.tier.lanes()).min(status.len());
        let out_base = output.as_mut_ptr() as usize;
        for k in 0..64 {
            ctx.io.planes_in[k] = input[k * len..].as_ptr() as usize;
            ctx.io.planes_out[k] = out_base + k * len * 4;
        }
        ctx.io.status = status.as_mut_ptr() as usize;
        ctx.io.batches = batches as u64;
        set_emit(ctx, None);
        self.enter(ctx, || {
            vec![
                Span::Floats(&input[..64 * len]),
                Span::FloatsMut(&mut output[..64 * len]),
                Span::WordsMut(&mut status[..batches]),
            ]
        })?;
        Ok(batches)
    }

    /// Runs the draw kernel over the whole batches (W vertices each; a shorter tail is the
    /// caller's to pad, e.g. with a repeated index) of `vertices`: output vertex `j` of
    /// `output` as [`DrawVertices`] says, input register r from `inputs[r]` for every register
    /// the kernel's [`DrawLayout`] loads. Groups of four constant slots are left as `output`
    /// holds them (the caller fills them). Status words and return value as for
    /// [`ExecCode::run_aos`].
    ///
    /// Panics if the code is not a draw kernel, if `vertices` does not fit its order (ids for
    /// an indexed kernel, a range for a stepped one), or if a register the layout loads has no
    /// array, one of another stride than a stepped kernel's, or one too short for the vertices
    /// of the whole batches (callers check first: the kernel reads only what this validates).
    pub fn run_draw(
        &self,
        ctx: &mut Context,
        vertices: DrawVertices<'_>,
        inputs: &[Option<DrawInput<'_>>; 16],
        output: &mut [SemanticVertex],
        status: &mut [u32],
    ) -> Result<usize, ExecError> {
        let IoMode::Draw(layout) = self.io else {
            panic!("run_draw needs a draw kernel");
        };
        let w = self.tier.lanes();
        let batches = (vertices.len().min(output.len()) / w).min(status.len());
        let output = &mut output[..batches * w];
        let (ids, arrays): (&[u32], _) = match vertices.first(batches * w) {
            DrawVertices::Ids(ids) => {
                assert!(
                    matches!(
                        layout.order,
                        DrawOrder::Indexed | DrawOrder::IndexedStrides(_)
                    ),
                    "run_draw: ids need an indexed kernel"
                );
                (ids, draw_arrays_within(&layout, ids, inputs))
            }
            DrawVertices::Range(count) => (&[], stepped_arrays(&layout, count, inputs)),
        };
        for (r, array) in arrays.iter().enumerate() {
            let (base, stride) = array.map_or((0, 0), |a| (a.data.as_ptr() as usize, a.stride * 4));
            ctx.io.draw_base[r] = base;
            ctx.io.draw_stride[r] = stride;
        }
        set_emit(ctx, None);
        let input = if ids.is_empty() {
            0
        } else {
            ids.as_ptr() as usize
        };
        // The kernel writes only the status words that are not 0 (`x64::compile`).
        let status = &mut status[..batches];
        status.fill(0);
        self.run_batches(ctx, input, output.as_mut_ptr() as usize, status, || {
            let mut spans: Vec<Span<'_>> = (!ids.is_empty())
                .then_some(Span::Words(ids))
                .into_iter()
                .collect();
            spans.push(Span::FloatsMut(output.as_flattened_mut()));
            spans.extend(arrays.iter().flatten().map(|a| Span::Floats(a.data)));
            spans
        })
    }

    /// Runs the code on `ctx` (whose `io` the caller pointed at the run's memory): natively,
    /// or in the emulator over the context, the code and `spans` (built only then).
    fn enter<'s>(
        &self,
        ctx: &mut Context,
        spans: impl FnOnce() -> Vec<Span<'s>>,
    ) -> Result<(), ExecError> {
        match &self.code {
            Backing::Native(map) => {
                let _ = spans;
                Self::enter_native(map, ctx);
                Ok(())
            }
            #[cfg(feature = "emu")]
            Backing::Emulated(code) => code.call(ctx, spans()).map_err(|e| ExecError::Emulation {
                tier: self.tier,
                message: e.to_string(),
            }),
        }
    }

    fn enter_native(map: &Placed, ctx: &mut Context) {
        #[cfg(target_arch = "x86_64")]
        {
            type Entry = unsafe extern "sysv64" fn(*mut Context);
            // SAFETY: `map` holds complete, position-independent machine code produced by
            // `x64::compile` for the code's tier, whose instruction set the host supports
            // (checked in `new`: otherwise the code is `Backing::Emulated`); its entry point is offset 0 and it follows the sysv64 convention with
            // one pointer argument, using only caller-saved registers and no stack. Its pages
            // are read+execute (never written again) while the `Placed` lives, and it lives as
            // long as the `ExecCode` borrowed for the call. The code reads and writes `*ctx`
            // (exclusively borrowed for the call) at offsets inside `Context`, its own constant
            // pool, and the vertex buffers `ctx.io` describes: `run_aos`/`run_soa`/`run_draw` set
            // those from slices they hold borrowed for the call, with `batches` computed so that
            // every access (batches × W vertices, W × 4 bytes per plane) stays inside them; a
            // draw kernel reads vertex indices from `ids` and, per register its layout loads,
            // that many floats at `base + id * stride`, which `run_draw` checked lie inside the
            // register's array for the largest index (a stepped draw kernel reads, per
            // register, vertex k at `base + k * stride` for the vertices of `batches` whole
            // batches, which `run_draw` checked lie inside the register's array, the
            // stride checked equal to the one compiled in); the status
            // pointer covers `batches` words; triangles are written only below
            // `io.triangle_capacity`, which `set_emit` derives from the slices it was given (0
            // with no buffer). It returns after at most `batches` batches, each bounded by the
            // step budget.
            unsafe {
                let entry: Entry = std::mem::transmute::<*const u8, Entry>(map.as_ptr());
                entry(ctx as *mut Context);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (map, ctx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::x64::DrawSlot;

    fn layout(components: [u8; 16]) -> DrawLayout {
        DrawLayout {
            components,
            slots: [DrawSlot::Zero; crate::x64::DRAW_SLOTS],
            order: DrawOrder::Indexed,
        }
    }

    /// Whether `f` panics (the panic message silenced).
    fn panics(f: impl FnOnce() + std::panic::UnwindSafe) -> bool {
        std::panic::catch_unwind(f).is_err()
    }

    #[test]
    fn in_process_arrays_admit_exactly_the_ids_the_exact_check_admits() {
        let data: Vec<f32> = (0..40).map(|k| k as f32).collect();
        let mut components = [0u8; 16];
        components[0] = 4;
        components[3] = 2;
        components[5] = 3;
        let layout = layout(components);
        // v0: vertices 0..=8 (4 floats every 4, from 4); v3: stride 0; v5: vertices 0..=7
        // (3 floats every 5, from 1: the last ends at float 39).
        let mut inputs = [None; 16];
        inputs[0] = Some(DrawInput {
            data: &data[4..],
            stride: 4,
        });
        inputs[3] = Some(DrawInput {
            data: &data[..2],
            stride: 0,
        });
        inputs[5] = Some(DrawInput {
            data: &data[1..],
            stride: 5,
        });
        for ids in [
            vec![0u32, 7, 3],
            vec![7],
            vec![8],
            vec![2, 8, 1],
            vec![u32::MAX],
            vec![],
        ] {
            let exact = panics(|| {
                draw_arrays(&layout, &ids, &inputs);
            });
            let within = panics(|| {
                draw_arrays_within(&layout, &ids, &inputs);
            });
            assert_eq!(exact, within, "{ids:?}");
            assert_eq!(exact, ids.iter().any(|&i| i > 7), "{ids:?}");
            if exact {
                continue;
            }
            // Every float an id reaches is inside the cut arrays.
            let cut = draw_arrays_within(&layout, &ids, &inputs);
            let tight = draw_arrays(&layout, &ids, &inputs);
            for r in 0..16 {
                match (cut[r], tight[r]) {
                    (Some(c), Some(t)) => {
                        assert!(c.data.len() >= t.data.len(), "v{r} {ids:?}");
                        assert_eq!(c.data.as_ptr(), t.data.as_ptr());
                        assert_eq!(c.stride, t.stride);
                    }
                    (None, None) => {}
                    (c, t) => panic!("v{r} {ids:?}: {c:?} against {t:?}"),
                }
            }
        }
        // An array shorter than one vertex admits no id; a missing one panics.
        inputs[3] = Some(DrawInput {
            data: &data[..1],
            stride: 0,
        });
        assert!(panics(|| {
            draw_arrays_within(&layout, &[0], &inputs);
        }));
        assert!(!panics(|| {
            draw_arrays_within(&layout, &[], &inputs);
        }));
        inputs[3] = None;
        assert!(panics(|| {
            draw_arrays_within(&layout, &[0], &inputs);
        }));
    }

    #[test]
    fn an_indexed_kernel_of_fixed_strides_takes_only_arrays_of_its_strides_and_32_bit_offsets() {
        let data = vec![0.5f32; 64];
        let mut components = [0u8; 16];
        components[1] = 4;
        components[2] = 2;
        let mut strides = [0u32; 16];
        // v1: 6 floats (24 bytes); v2: stride 0; v9 is not loaded (its stride is not checked).
        strides[1] = 24;
        strides[9] = 4;
        let layout = DrawLayout {
            order: DrawOrder::IndexedStrides(strides),
            ..layout(components)
        };
        let mut inputs = [None; 16];
        inputs[1] = Some(DrawInput {
            data: &data,
            stride: 6,
        });
        inputs[2] = Some(DrawInput {
            data: &data[..2],
            stride: 0,
        });
        for ids in [vec![0u32, 9, 3], vec![9], vec![]] {
            let tight = draw_arrays(&layout, &ids, &inputs);
            let cut = draw_arrays_within(&layout, &ids, &inputs);
            assert_eq!(
                tight[1].map(|a| a.stride),
                cut[1].map(|a| a.stride),
                "{ids:?}"
            );
        }
        assert!(panics(|| {
            draw_arrays(&layout, &[11], &inputs);
        }));
        // Another stride than the kernel's, for a loaded register.
        inputs[1] = Some(DrawInput {
            data: &data,
            stride: 5,
        });
        for ids in [vec![0u32], vec![1, 2]] {
            assert!(panics(|| {
                draw_arrays(&layout, &ids, &inputs);
            }));
            assert!(panics(|| {
                draw_arrays_within(&layout, &ids, &inputs);
            }));
        }
        // The 32-bit offsets: vertex (2^32 − 1) / 24 is the last whose offset fits.
        let last = u32::MAX / 24;
        assert!(layout.offsets_fit(last) && !layout.offsets_fit(last + 1));
        assert!(layout.offsets_fit(0) && layout.offsets_fit(1));
        // Unloaded registers and other orders never limit them.
        assert!(DrawLayout {
            components: [0; 16],
            ..layout
        }
        .offsets_fit(u32::MAX));
        assert!(self::layout(components).offsets_fit(u32::MAX));
        let stepped = DrawLayout {
            order: DrawOrder::Stepped(strides),
            ..layout
        };
        assert!(stepped.offsets_fit(u32::MAX));
    }
}
