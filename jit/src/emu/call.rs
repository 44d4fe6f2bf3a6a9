//! One call of [`crate::code::ExecCode`] in the emulator, for code of a tier the host lacks.
//!
//! The memory the call may touch becomes regions **at their real addresses**: the code (its
//! constant pool included), the context (the image the AArch64 runner sends: uniforms,
//! scalars, constants, broadcast rows, `io` pointers as they are), a stack word, and each
//! [`Span`] the `run_*` method holds borrowed for the call. The kernel therefore runs with the
//! very pointers `ctx.io` holds — AoS, SoA, draw and geometry runs alike, nothing translated —
//! and any access outside them is an [`EmuError`]. Afterwards the writable spans and the
//! context's scalar state are copied back. No unsafe: the regions are copies.
//!
//! [`EmulatedCode::trace`] tells tests what the calls executed: how many instructions, and
//! which instruction forms (the emulator's coverage).

use std::mem::offset_of;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use iced_x86::{Code, Instruction};
use rustc_hash::FxHashMap as HashMap;

use super::{EmuError, Machine, Region};
use crate::abi::{Context, Lanes, Scalars, Triangle, LOOP_SLOTS};
use crate::code::Span;

/// Instructions emulated through [`EmulatedCode::call`] by this process.
static EMULATED: AtomicU64 = AtomicU64::new(0);

/// Instructions [`crate::code::ExecCode`] has run in the emulator in this process so far
/// (for measuring the emulator's cost in tests).
pub fn emulated_instructions() -> u64 {
    EMULATED.load(Ordering::Relaxed)
}

/// What the emulated calls of one piece of code have executed so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Instructions executed, over all calls.
    pub steps: u64,
    /// The distinct instruction forms (iced-x86 `Code`s: mnemonic and operand form) executed,
    /// sorted. Calls that overlapped on several threads may leave some out: each call starts
    /// from the decoded instructions the last finished call left.
    pub codes: Vec<Code>,
}

/// Code held for the emulator, with the instructions decoded by earlier calls (the code stays
/// at one address for its life, so they stay valid).
#[derive(Debug)]
pub(crate) struct EmulatedCode {
    code: Vec<u8>,
    decoded: Mutex<Option<HashMap<u64, Instruction>>>,
    steps: AtomicU64,
}

impl EmulatedCode {
    pub(crate) fn new(code: Vec<u8>) -> EmulatedCode {
        EmulatedCode {
            code,
            decoded: Mutex::new(None),
            steps: AtomicU64::new(0),
        }
    }

    /// What the calls so far executed.
    pub(crate) fn trace(&self) -> Trace {
        let decoded = self.decoded.lock().unwrap_or_else(|p| p.into_inner());
        let mut codes: Vec<Code> = decoded
            .iter()
            .flat_map(|cache| cache.values().map(Instruction::code))
            .collect();
        codes.sort_unstable();
        codes.dedup();
        Trace {
            steps: self.steps.load(Ordering::Relaxed),
            codes,
        }
    }

    /// Runs the code on `ctx` over `spans` (see the module docs).
    pub(crate) fn call(&self, ctx: &mut Context, mut spans: Vec<Span<'_>>) -> Result<(), EmuError> {
        let ctx_at = std::ptr::from_mut(ctx) as u64;
        let mut image = vec![0u8; std::mem::size_of::<Context>()];
        crate::aarch64::runner::context_image(ctx, &ctx.io, &mut image);
        let stack = 0u64;
        let stack_at = std::ptr::from_ref(&stack) as u64;
        let mut regions = vec![
            Region {
                base: self.code.as_ptr() as u64,
                bytes: self.code.clone(),
                writable: false,
            },
            Region {
                base: ctx_at,
                bytes: image,
                writable: true,
            },
            Region {
                base: stack_at,
                bytes: vec![0; 8],
                writable: true,
            },
        ];
        // Span k is region k + 3; empty spans get an empty region (no access fits in it).
        regions.extend(spans.iter().map(region_of_span));
        let mut m = Machine::new(regions);
        // Another thread running the same code meanwhile decodes afresh.
        let cache = self
            .decoded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(cache) = cache {
            m.decoded = cache;
        }
        let result = m.call(self.code.as_ptr() as u64, ctx_at, stack_at);
        EMULATED.fetch_add(m.steps, Ordering::Relaxed);
        self.steps.fetch_add(m.steps, Ordering::Relaxed);
        *self.decoded.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(std::mem::take(&mut m.decoded));
        result?;
        let regions = m.regions();
        scalars_from(&regions[1].bytes, &mut ctx.scalars);
        for (span, region) in spans.iter_mut().zip(&regions[3..]) {
            copy_back(span, &region.bytes);
        }
        Ok(())
    }
}

fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The scalar state in a context image (as the last batch left it) into `s`.
fn scalars_from(image: &[u8], s: &mut Scalars) {
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

fn words<'a>(bytes: &'a [u8], n: usize) -> impl Iterator<Item = u32> + 'a {
    bytes
        .chunks_exact(n)
        .map(|c| c.iter().rev().fold(0u32, |w, &b| (w << 8) | u32::from(b)))
}

fn region_of_span(span: &Span<'_>) -> Region {
    let (base, bytes, writable): (u64, Vec<u8>, bool) = match span {
        Span::Floats(xs) => (xs.as_ptr() as u64, float_bytes(xs.iter()), false),
        Span::Words(ws) => (ws.as_ptr() as u64, word_bytes(ws.iter()), false),
        Span::FloatsMut(xs) => (xs.as_ptr() as u64, float_bytes(xs.iter()), true),
        Span::WordsMut(ws) => (ws.as_ptr() as u64, word_bytes(ws.iter()), true),
        Span::HalvesMut(hs) => (
            hs.as_ptr() as u64,
            hs.iter().flat_map(|h| h.to_le_bytes()).collect(),
            true,
        ),
        Span::TrianglesMut(ts) => (
            ts.as_ptr() as u64,
            float_bytes(ts.iter().flat_map(triangle_floats)),
            true,
        ),
    };
    Region {
        base,
        bytes,
        writable,
    }
}

fn triangle_floats(t: &Triangle) -> impl Iterator<Item = &f32> {
    t.iter()
        .flatten()
        .flatten()
        .flat_map(|l: &Lanes| l.0.iter())
}

fn float_bytes<'a>(xs: impl Iterator<Item = &'a f32>) -> Vec<u8> {
    xs.flat_map(|x| x.to_bits().to_le_bytes()).collect()
}

fn word_bytes<'a>(ws: impl Iterator<Item = &'a u32>) -> Vec<u8> {
    ws.flat_map(|w| w.to_le_bytes()).collect()
}

/// The region's bytes (as the code left them) back into a writable span.
fn copy_back(span: &mut Span<'_>, bytes: &[u8]) {
    match span {
        Span::Floats(_) | Span::Words(_) => {}
        Span::FloatsMut(xs) => {
            for (x, w) in xs.iter_mut().zip(words(bytes, 4)) {
                *x = f32::from_bits(w);
            }
        }
        Span::WordsMut(ws) => {
            for (x, w) in ws.iter_mut().zip(words(bytes, 4)) {
                *x = w;
            }
        }
        Span::HalvesMut(hs) => {
            for (h, w) in hs.iter_mut().zip(words(bytes, 2)) {
                *h = w as u16;
            }
        }
        Span::TrianglesMut(ts) => {
            let floats = ts
                .iter_mut()
                .flat_map(|t| t.iter_mut().flatten().flatten())
                .flat_map(|l| l.0.iter_mut());
            for (x, w) in floats.zip(words(bytes, 4)) {
                *x = f32::from_bits(w);
            }
        }
    }
}
