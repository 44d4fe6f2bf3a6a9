//! The C API of picajit: an emulator's vertex pipeline behind opaque handles (see
//! `include/picajit.h`, generated from this file by cbindgen).
//!
//! Every function returns a [`PicajitStatus`]; on an error a message is kept for the calling
//! thread ([`picajit_last_error`]). No panic crosses the boundary: each entry point runs
//! under `catch_unwind` and turns one into [`PicajitStatus::Panic`]. Null pointers and
//! buffers too short are errors, never crashes.
//!
//! Threads: a `PicajitPipeline` is used by one thread at a time (it may move between
//! threads); different pipelines run on different threads at once. `picajit_shbin_commands`
//! and `picajit_last_error` may be called from any thread.

#![allow(clippy::missing_safety_doc)]

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use picajit::engine::Backend;
use picajit::pipeline::{Attribute, DrawError, DrawOutput, Indices, Pipeline};
use picajit::shbin::Shbin;

/// What a call did.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PicajitStatus {
    /// Success.
    Ok = 0,
    /// A required pointer argument was null.
    NullArgument = 1,
    /// An output buffer was too short; the count argument says how many entries are needed.
    BufferTooSmall = 2,
    /// An argument was out of its range (an enum value, a component count, a range).
    InvalidArgument = 3,
    /// The requested backend cannot run on this host.
    UnsupportedBackend = 4,
    /// A draw before any code was uploaded to a shader unit it needs.
    NoProgram = 5,
    /// An input attribute is missing or reads outside its array.
    AttributeError = 6,
    /// The geometry stage's registers describe no drawable configuration.
    GeometryConfig = 7,
    /// Some invocation ran out of its step budget (every output is still written).
    BudgetExhausted = 8,
    /// The bytes are not a valid SHBIN file (or the DVLE does not exist).
    ShbinError = 9,
    /// picajit panicked (a bug): the message says where. The handle should be freed.
    Panic = 10,
}

/// Which engine runs shaders (passed as a `uint32_t`: an out-of-range value is
/// `PICAJIT_STATUS_INVALID_ARGUMENT`, never undefined behaviour).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PicajitBackend {
    /// The best JIT for this host (the interpreter if there is none).
    Auto = 0,
    /// The reference interpreter.
    Interpreter = 1,
    /// x86-64 SSE4.1.
    X64Sse41 = 2,
    /// x86-64 AVX2.
    X64Avx2 = 3,
    /// AArch64 NEON (through qemu-user on other hosts: for testing).
    Aarch64 = 4,
    /// x86-64 AVX-512 (F, VL, DQ, BW; 16 vertices per batch). On a CPU without it
    /// `PICAJIT_STATUS_UNSUPPORTED_BACKEND`, except in picajit's own test builds, which emulate it.
    X64Avx512 = 5,
}

/// The opaque pipeline: registers, both shader units, compiled shaders and draw results.
pub struct PicajitPipeline {
    pipeline: Pipeline,
    output: DrawOutput,
}

/// How a draw's vertices are given (the `index_type` of a [`PicajitDraw`], a `uint32_t`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PicajitIndexType {
    /// `indices` points to `count` bytes.
    U8 = 0,
    /// `indices` points to `count` 16-bit indices.
    U16 = 1,
    /// `indices` points to `count` 32-bit indices.
    U32 = 2,
    /// No index list: vertices `first` … `first + count - 1`.
    Range = 3,
}

/// A draw call.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PicajitDraw {
    /// A `PicajitIndexType`.
    pub index_type: u32,
    /// The index list (ignored for `PICAJIT_INDEX_TYPE_RANGE`).
    pub indices: *const core::ffi::c_void,
    /// Number of indices (or of vertices of a range).
    pub count: usize,
    /// First vertex of a range.
    pub first: u32,
}

/// Where one input attribute comes from: an array of floats (`data` not null: vertex `i`
/// reads `components` floats at `data[offset + i * stride]`, and `len` is the number of
/// floats `data` holds), or, with `data` null, the fixed value `fixed`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PicajitAttribute {
    pub data: *const f32,
    pub len: usize,
    pub offset: usize,
    pub stride: usize,
    pub components: u8,
    pub fixed: [f32; 4],
}

/// One output vertex: 24 semantic slots by semantic id (position 0–3, normal quaternion 4–7,
/// colour 8–11, texcoord0 12–13, texcoord1 14–15, texcoord0.w 16, view 18–20,
/// texcoord2 22–23).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PicajitOutputVertex {
    pub slots: [f32; 24],
}

/// What a draw produced.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct PicajitDrawInfo {
    /// Output vertices: one per vertex from the smallest to the largest index when that range
    /// has at most as many vertices as the draw has indices (vertices no index names
    /// included), else one per unique vertex in order of first use; with a geometry shader, 3
    /// per triangle. The index list refers to them.
    pub vertices: usize,
    /// Entries of the index list.
    pub indices: usize,
    /// Triangles emitted by a geometry shader (0 without one).
    pub triangles: usize,
}

/// The last draw's results where they are, without a copy (`picajit_results`): valid until
/// the next `picajit_draw`, `picajit_keep_raw` or `picajit_pipeline_free` on the pipeline.
/// A pointer is null when its count is 0.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PicajitResults {
    /// The output vertices (as `picajit_copy_vertices` copies them).
    pub vertices: *const PicajitOutputVertex,
    pub vertex_count: usize,
    /// The index list (as `picajit_copy_indices` copies it).
    pub indices: *const u32,
    pub index_count: usize,
    /// The raw records, 64 floats each (after `picajit_keep_raw(pipeline, 1)`).
    pub raw: *const f32,
    pub raw_count: usize,
}

// `PicajitResults::vertices` points into picajit's own vertices: the two types must agree.
const _: () = assert!(
    std::mem::size_of::<PicajitOutputVertex>()
        == std::mem::size_of::<picajit::pipeline::OutputVertex>()
        && std::mem::align_of::<PicajitOutputVertex>()
            == std::mem::align_of::<picajit::pipeline::OutputVertex>()
);

/// One register write of a command list.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct PicajitRegWrite {
    pub reg: u16,
    pub mask: u8,
    pub value: u32,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(message: &str) {
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Runs `f`, turning errors into their status (with the message kept) and panics into
/// [`PicajitStatus::Panic`].
fn guard(f: impl FnOnce() -> Result<(), (PicajitStatus, String)>) -> PicajitStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => PicajitStatus::Ok,
        Ok(Err((status, message))) => {
            set_error(&message);
            status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_error(&format!("picajit panicked: {what}"));
            PicajitStatus::Panic
        }
    }
}

fn null(what: &str) -> (PicajitStatus, String) {
    (PicajitStatus::NullArgument, format!("{what} is null"))
}

fn draw_status(e: &DrawError) -> PicajitStatus {
    match e {
        DrawError::NoProgram { .. } => PicajitStatus::NoProgram,
        DrawError::MissingAttribute { .. }
        | DrawError::BadComponents { .. }
        | DrawError::AttributeOutOfBounds { .. } => PicajitStatus::AttributeError,
        DrawError::RangeOverflow { .. } => PicajitStatus::InvalidArgument,
        DrawError::GeometryMode(_)
        | DrawError::VariableNeedsIndices
        | DrawError::PointInputs { .. }
        | DrawError::FixedStride { .. } => PicajitStatus::GeometryConfig,
        DrawError::BudgetExhausted { .. } => PicajitStatus::BudgetExhausted,
    }
}

/// The message of the calling thread's last error (empty if none): valid until this thread's
/// next failing call. Never null.
#[no_mangle]
pub extern "C" fn picajit_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The backend a `PicajitBackend` value names.
fn backend_of(value: u32) -> Result<Backend, (PicajitStatus, String)> {
    const ALL: [PicajitBackend; 6] = [
        PicajitBackend::Auto,
        PicajitBackend::Interpreter,
        PicajitBackend::X64Sse41,
        PicajitBackend::X64Avx2,
        PicajitBackend::Aarch64,
        PicajitBackend::X64Avx512,
    ];
    let named = ALL.into_iter().find(|b| *b as u32 == value).ok_or((
        PicajitStatus::InvalidArgument,
        format!("backend {value} is not a PicajitBackend"),
    ))?;
    Ok(match named {
        PicajitBackend::Auto => Backend::Auto,
        PicajitBackend::Interpreter => Backend::Interp,
        PicajitBackend::X64Sse41 => Backend::X64Sse41,
        PicajitBackend::X64Avx2 => Backend::X64Avx2,
        PicajitBackend::Aarch64 => Backend::Aarch64,
        PicajitBackend::X64Avx512 => Backend::X64Avx512,
    })
}

/// The index type a `PicajitIndexType` value names.
fn index_type_of(value: u32) -> Result<PicajitIndexType, (PicajitStatus, String)> {
    [
        PicajitIndexType::U8,
        PicajitIndexType::U16,
        PicajitIndexType::U32,
        PicajitIndexType::Range,
    ]
    .into_iter()
    .find(|t| *t as u32 == value)
    .ok_or((
        PicajitStatus::InvalidArgument,
        format!("index type {value} is not a PicajitIndexType"),
    ))
}

/// Creates a pipeline with an engine of its own for `backend` (a `PicajitBackend`); `*out`
/// receives the handle (free it with `picajit_pipeline_free`).
#[no_mangle]
pub unsafe extern "C" fn picajit_pipeline_new(
    backend: u32,
    out: *mut *mut PicajitPipeline,
) -> PicajitStatus {
    guard(|| {
        if out.is_null() {
            return Err(null("out"));
        }
        let backend = backend_of(backend)?;
        let pipeline = Pipeline::with_backend(backend)
            .map_err(|e| (PicajitStatus::UnsupportedBackend, e.to_string()))?;
        let handle = Box::new(PicajitPipeline {
            pipeline,
            output: DrawOutput::new(),
        });
        // SAFETY: `out` is non-null and points to writable storage for one pointer (the
        // caller's contract, stated in the header).
        unsafe { *out = Box::into_raw(handle) };
        Ok(())
    })
}

/// Frees a pipeline (null is accepted and ignored).
#[no_mangle]
pub unsafe extern "C" fn picajit_pipeline_free(pipeline: *mut PicajitPipeline) {
    if pipeline.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: a non-null handle came from `picajit_pipeline_new` and is freed once (the
        // caller's contract).
        drop(unsafe { Box::from_raw(pipeline) });
    }));
}

/// Borrows the pipeline behind a handle.
///
/// SAFETY (callers): `p` is null or a live handle from `picajit_pipeline_new` that no other
/// thread uses during the call.
unsafe fn pipeline_mut<'a>(
    p: *mut PicajitPipeline,
) -> Result<&'a mut PicajitPipeline, (PicajitStatus, String)> {
    // SAFETY: see the function's contract.
    unsafe { p.as_mut() }.ok_or_else(|| null("pipeline"))
}

/// Forwards one GPU register write (`mask`: byte enables, bit n = byte n; 0xF = whole word).
#[no_mangle]
pub unsafe extern "C" fn picajit_write(
    pipeline: *mut PicajitPipeline,
    reg: u16,
    value: u32,
    mask: u8,
) -> PicajitStatus {
    guard(|| {
        // SAFETY: the handle contract of the header.
        let p = unsafe { pipeline_mut(pipeline) }?;
        p.pipeline.write(reg, value, mask);
        Ok(())
    })
}

/// Forwards `count` register writes.
#[no_mangle]
pub unsafe extern "C" fn picajit_write_many(
    pipeline: *mut PicajitPipeline,
    writes: *const PicajitRegWrite,
    count: usize,
) -> PicajitStatus {
    guard(|| {
        // SAFETY: the handle contract of the header.
        let p = unsafe { pipeline_mut(pipeline) }?;
        if count == 0 {
            return Ok(());
        }
        if writes.is_null() {
            return Err(null("writes"));
        }
        // SAFETY: `writes` is non-null and points to `count` entries (the header's contract).
        let writes = unsafe { std::slice::from_raw_parts(writes, count) };
        for w in writes {
            p.pipeline.write(w.reg, w.value, w.mask);
        }
        Ok(())
    })
}

/// Compiles the shaders the next draw runs, and every kernel their current uniforms can use,
/// on this thread (so that draw neither compiles nor waits). Optional.
#[no_mangle]
pub unsafe extern "C" fn picajit_prepare(pipeline: *mut PicajitPipeline) -> PicajitStatus {
    guard(|| {
        // SAFETY: the handle contract of the header.
        let p = unsafe { pipeline_mut(pipeline) }?;
        p.pipeline
            .prepare()
            .map_err(|e| (draw_status(&e), e.to_string()))
    })
}

/// The attributes of a draw as the pipeline takes them (at most 16: the vertex unit loads no
/// more), converted on the stack; how many there are.
///
/// # Safety
/// `attributes` is null only with `count` 0, else points to `count` readable entries whose
/// arrays hold `len` floats each and outlive the returned attributes.
unsafe fn attributes_of<'a>(
    attributes: *const PicajitAttribute,
    count: usize,
) -> Result<([Attribute<'a>; 16], usize), (PicajitStatus, String)> {
    let raw: &[PicajitAttribute] = if count == 0 {
        &[]
    } else if attributes.is_null() {
        return Err(null("attributes"));
    } else {
        // SAFETY: non-null, `count` entries (the caller's contract).
        unsafe { std::slice::from_raw_parts(attributes, count) }
    };
    let mut converted = [Attribute::Fixed([0.0; 4]); 16];
    let used = raw.len().min(converted.len());
    for (slot, a) in converted.iter_mut().zip(raw) {
        *slot = if a.data.is_null() {
            Attribute::Fixed(a.fixed)
        } else {
            Attribute::Array {
                // SAFETY: `data` is non-null and holds `len` floats (the caller's contract).
                data: unsafe { std::slice::from_raw_parts(a.data, a.len) },
                offset: a.offset,
                stride: a.stride,
                components: a.components,
            }
        };
    }
    Ok((converted, used))
}

/// `picajit_prepare`, and the vertex shader's draw kernels for draws with these attributes
/// (their kinds, component counts and strides, the permutation and the output map fix them;
/// the arrays' contents and lengths do not matter, `data` may point to no float with `len` 0),
/// compiled on this thread: the first draw with them neither compiles nor takes the slower
/// path.
/// Optional.
#[no_mangle]
pub unsafe extern "C" fn picajit_prepare_draw(
    pipeline: *mut PicajitPipeline,
    attributes: *const PicajitAttribute,
    attribute_count: usize,
) -> PicajitStatus {
    guard(|| {
        // SAFETY: the handle contract of the header.
        let p = unsafe { pipeline_mut(pipeline) }?;
        // SAFETY: the header's contract for `attributes` and `attribute_count`.
        let (converted, used) = unsafe { attributes_of(attributes, attribute_count) }?;
        p.pipeline
            .prepare_draw(&converted[..used])
            .map_err(|e| (draw_status(&e), e.to_string()))
    })
}

/// Keeps (non-zero) or drops (zero) the raw o0–o15 records of the next draws.
#[no_mangle]
pub unsafe extern "C" fn picajit_keep_raw(
    pipeline: *mut PicajitPipeline,
    keep: u8,
) -> PicajitStatus {
    guard(|| {
        // SAFETY: the handle contract of the header.
        let p = unsafe { pipeline_mut(pipeline) }?;
        p.output.keep_raw = keep != 0;
        Ok(())
    })
}

/// Runs a draw with `attribute_count` input attributes; `info` (may be null) receives the
/// sizes of the results, which stay in the pipeline until its next draw (copy them out with
/// `picajit_copy_vertices`, `picajit_copy_indices`, …). On `PICAJIT_STATUS_BUDGET_EXHAUSTED`
/// the results are complete too.
#[no_mangle]
pub unsafe extern "C" fn picajit_draw(
    pipeline: *mut PicajitPipeline,
    draw: *const PicajitDraw,
    attributes: *const PicajitAttribute,
    attribute_count: usize,
    info: *mut PicajitDrawInfo,
) -> PicajitStatus {
    guard(|| {
        // SAFETY: the handle contract of the header.
        let p = unsafe { pipeline_mut(pipeline) }?;
        // SAFETY: `draw` is null or points to a readable PicajitDraw.
        let draw = unsafe { draw.as_ref() }.ok_or_else(|| null("draw"))?;
        let indices = match index_type_of(draw.index_type)? {
            PicajitIndexType::Range => {
                let count = u32::try_from(draw.count).map_err(|_| {
                    (
                        PicajitStatus::InvalidArgument,
                        format!("range of {} vertices", draw.count),
                    )
                })?;
                Indices::Range {
                    first: draw.first,
                    count,
                }
            }
            _ if draw.count == 0 => Indices::U32(&[]),
            _ if draw.indices.is_null() => return Err(null("draw.indices")),
            // SAFETY (three arms): `indices` is non-null and points to `count` indices of the
            // declared type, readable for the call (the header's contract).
            PicajitIndexType::U8 => Indices::U8(unsafe {
                std::slice::from_raw_parts(draw.indices.cast::<u8>(), draw.count)
            }),
            PicajitIndexType::U16 => Indices::U16(unsafe {
                std::slice::from_raw_parts(draw.indices.cast::<u16>(), draw.count)
            }),
            PicajitIndexType::U32 => Indices::U32(unsafe {
                std::slice::from_raw_parts(draw.indices.cast::<u32>(), draw.count)
            }),
        };
        // SAFETY: the header's contract for `attributes` and `attribute_count`.
        let (converted, used) = unsafe { attributes_of(attributes, attribute_count) }?;
        let result = p.pipeline.draw(indices, &converted[..used], &mut p.output);
        // SAFETY: `info` is null or points to a writable PicajitDrawInfo.
        if let Some(info) = unsafe { info.as_mut() } {
            *info = PicajitDrawInfo {
                vertices: p.output.vertices().len(),
                indices: p.output.indices().len(),
                triangles: p.output.windings().len(),
            };
        }
        result.map_err(|e| (draw_status(&e), e.to_string()))
    })
}

/// Copies `src` into the caller's `capacity`-entry buffer `dst`; `*written` (if not null)
/// receives the number of entries (also when the buffer is too short: a null buffer of
/// capacity 0 asks for the size).
fn copy_out<T: Copy, U>(
    src: &[T],
    dst: *mut U,
    capacity: usize,
    written: *mut usize,
    convert: impl Fn(&T) -> U,
) -> Result<(), (PicajitStatus, String)> {
    // SAFETY: `written` is null or points to a writable size_t.
    if let Some(w) = unsafe { written.as_mut() } {
        *w = src.len();
    }
    if src.is_empty() {
        return Ok(());
    }
    if capacity < src.len() {
        // Also the way to ask for the size: a null buffer of capacity 0.
        return Err((
            PicajitStatus::BufferTooSmall,
            format!("buffer of {capacity} entries; {} needed", src.len()),
        ));
    }
    if dst.is_null() {
        return Err(null("buffer"));
    }
    // SAFETY: `dst` is non-null and holds `capacity` ≥ `src.len()` writable entries (the
    // header's contract).
    let dst = unsafe { std::slice::from_raw_parts_mut(dst, src.len()) };
    for (d, s) in dst.iter_mut().zip(src) {
        *d = convert(s);
    }
    Ok(())
}

/// Copies the last draw's output vertices.
#[no_mangle]
pub unsafe extern "C" fn picajit_copy_vertices(
    pipeline: *mut PicajitPipeline,
    out: *mut PicajitOutputVertex,
    capacity: usize,
    written: *mut usize,
) -> PicajitStatus {
    guard(|| {
        // SAFETY: the handle contract of the header.
        let p = unsafe { pipeline_mut(pipeline) }?;
        copy_out(p.output.vertices(), out, capacity, written, |v| {
            PicajitOutputVertex { slots: v.slots }
        })
    })
}

/// Points `*out` at the last draw's results (no copy; see `PicajitResults` for how long the
/// pointers stay valid). The fastest way to read a draw: the emulator's primitive assembly
/// reads the vertices where the draw wrote them, in the pipeline's own buffer, whose slots the
/// output map fills with constants are written when the buffer grows or those constants
/// change, not by every draw (callers must not write into it).
#[no_mangle]
pub unsafe extern "C" fn picajit_results(
    pipeline: *mut PicajitPipeline,
    out: *mut PicajitResults,
) -> PicajitStatus {
    guard(|| {
        // SAFETY: the handle contract of the header.
        let p = unsafe { pipeline_mut(pipeline) }?;
        // SAFETY: `out` is null or points to a writable PicajitResults.
        let out = unsafe { out.as_mut() }.ok_or_else(|| null("out"))?;
        fn view<T, U>(v: &[T]) -> *const U {
            if v.is_empty() {
                std::ptr::null()
            } else {
                v.as_ptr().cast()
            }
        }
        let o = &p.output;
        // The casts: OutputVertex and PicajitOutputVertex are both `repr(C)` structs of 24
        // f32 (checked above); a raw record is `[[f32; 4]; 16]`, 64 f32 without padding.
        *out = PicajitResults {
            vertices: view(o.vertices()),
            vertex_count: o.vertices().len(),
            indices: view(o.indices()),
            index_count: o.indices().len(),
            raw: view(o.raw()),
            raw_count: o.raw().len(),
        };
        Ok(())
    })
}

/// Copies the last draw's index list (per index of the draw, its output vertex; with a
/// geometry shader 0, 1, 2, …).
#[no_mangle]
pub unsafe extern "C" fn picajit_copy_indices(
    pipeline: *mut PicajitPipeline,
    out: *mut u32,
    capacity: usize,
    written: *mut usize,
) -> PicajitStatus {
    guard(|| {
        // SAFETY: the handle contract of the header.
        let p = unsafe { pipeline_mut(pipeline) }?;
        copy_out(p.output.indices(), out, capacity, written, |&i| i)
    })
}

/// Copies the last draw's per-triangle winding flags (geometry shaders; 1 = set).
#[no_mangle]
pub unsafe extern "C" fn picajit_copy_windings(
    pipeline: *mut PicajitPipeline,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> PicajitStatus {
    guard(|| {
        // SAFETY: the handle contract of the header.
        let p = unsafe { pipeline_mut(pipeline) }?;
        copy_out(p.output.windings(), out, capacity, written, |&w| {
            u8::from(w)
        })
    })
}

/// Copies the last draw's raw records (64 floats per output vertex: o0.x, o0.y, … o15.w;
/// only after `picajit_keep_raw(pipeline, 1)`). `capacity` and `*written` count records.
#[no_mangle]
pub unsafe extern "C" fn picajit_copy_raw(
    pipeline: *mut PicajitPipeline,
    out: *mut f32,
    capacity: usize,
    written: *mut usize,
) -> PicajitStatus {
    guard(|| {
        // SAFETY: the handle contract of the header.
        let p = unsafe { pipeline_mut(pipeline) }?;
        copy_out(
            p.output.raw(),
            out.cast::<[[f32; 4]; 16]>(),
            capacity,
            written,
            |&r| r,
        )
    })
}

/// The register writes that load DVLE `dvle` of the SHBIN file `bytes` (`len` bytes) into its
/// shader unit, as a 3DS program's command list makes them (code, descriptors, constants,
/// entry point, output mask and map). `*count` receives the number of writes; with
/// `capacity` too small nothing is written and `PICAJIT_STATUS_BUFFER_TOO_SMALL` returned.
#[no_mangle]
pub unsafe extern "C" fn picajit_shbin_commands(
    bytes: *const u8,
    len: usize,
    dvle: u32,
    out: *mut PicajitRegWrite,
    capacity: usize,
    count: *mut usize,
) -> PicajitStatus {
    guard(|| {
        if bytes.is_null() {
            return Err(null("bytes"));
        }
        // SAFETY: non-null, `len` readable bytes (the header's contract).
        let bytes = unsafe { std::slice::from_raw_parts(bytes, len) };
        let shbin = Shbin::parse(bytes).map_err(|e| (PicajitStatus::ShbinError, e.to_string()))?;
        let writes = picajit::pica::program_commands(&shbin, dvle as usize)
            .map_err(|e| (PicajitStatus::ShbinError, e.to_string()))?;
        copy_out(&writes, out, capacity, count, |w| PicajitRegWrite {
            reg: w.reg,
            mask: w.mask,
            value: w.value,
        })
    })
}
