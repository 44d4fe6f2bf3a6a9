//! Compiled kernels: machine code for dumps, executable code per I/O layout, and the
//! uniform-specialized variants a native shader compiles on first use — by the running thread,
//! or on the rayon pool while the generic kernels serve (background compiling). A shader
//! whose first use is a draw compiles its generic AoS kernel on first use too, so that its
//! first draw compiles one kernel (the draw kernel) rather than two.

use super::backend::{ExecPath, Target};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::cache::Counters;

use picajit_codegen::aarch64;
use picajit_codegen::abi::Context;
use picajit_codegen::arena::CodeArena;
use picajit_codegen::code::{DrawInput, DrawVertices, SemanticVertex};
use picajit_codegen::code::{EmitBuffer, ExecCode};
use picajit_codegen::ir::Verified;
use picajit_codegen::opt;
use picajit_codegen::timings::Clock;
use picajit_codegen::x64::{self, DrawLayout, IoMode};

use crate::program::{Regs16, Uniforms};

/// Machine code of a kernel, for dumps.
#[derive(Clone, Debug)]
pub enum MachineCode {
    /// x86-64 code (SSE4.1 or AVX2).
    X64(x64::Compiled),
    /// AArch64 NEON code.
    Aarch64(aarch64::Compiled),
}

impl MachineCode {
    /// Compiles `func` for `target` with the vertex I/O `io`, without making it executable
    /// (for dumps).
    pub(super) fn compile(func: &Verified, target: Target, io: IoMode) -> Result<Self, String> {
        let clock = &mut Clock::off();
        match target {
            Target::X64(tier) => x64::compile_timed(func, tier, io, clock).map(MachineCode::X64),
            Target::Aarch64 => aarch64::compile_timed(func, io, clock).map(MachineCode::Aarch64),
        }
        .map_err(|e| format!("backend: {e}"))
    }

    /// Bytes of the whole kernel (code and constant pool).
    pub fn code_bytes(&self) -> usize {
        match self {
            MachineCode::X64(c) => c.code.len(),
            MachineCode::Aarch64(c) => c.code.len(),
        }
    }
    /// Bytes of code before the constant pool.
    pub fn code_len(&self) -> usize {
        match self {
            MachineCode::X64(c) => c.code_len,
            MachineCode::Aarch64(c) => c.code_len,
        }
    }
    /// Instructions before the constant pool (the static size of the kernel).
    #[cfg(feature = "dump")]
    pub fn instruction_count(&self) -> usize {
        match self {
            MachineCode::X64(c) => x64::instruction_count(c),
            MachineCode::Aarch64(c) => aarch64::instruction_count(c),
        }
    }
    /// Spill slots the kernel uses.
    pub fn spill_slots(&self) -> u32 {
        match self {
            MachineCode::X64(c) => c.spill_slots,
            MachineCode::Aarch64(c) => c.spill_slots,
        }
    }
    /// Vertices per batch.
    pub fn lanes(&self) -> usize {
        match self {
            MachineCode::X64(c) => c.tier.lanes(),
            MachineCode::Aarch64(_) => aarch64::LANES,
        }
    }
    /// The code as text, one instruction per line, then the constant pool.
    #[cfg(feature = "dump")]
    pub fn disassemble(&self) -> String {
        match self {
            MachineCode::X64(c) => x64::disassemble(c),
            MachineCode::Aarch64(c) => aarch64::disassemble(c),
        }
    }
}

/// A kernel ready to run.
#[derive(Debug)]
pub(super) enum Code {
    X64(ExecCode),
    Aarch64(aarch64::Kernel),
}

impl Code {
    /// Compiles `func` for `target` and makes it executable (x86-64: in `arena`), lapping
    /// `clock` at the backend's phase boundaries and after `map`.
    pub(super) fn compile(
        func: &Verified,
        target: Target,
        io: IoMode,
        arena: &CodeArena,
        clock: &mut Clock<'_>,
    ) -> Result<(Code, MachineCode), String> {
        match target {
            Target::X64(tier) => {
                let c = x64::compile_timed(func, tier, io, clock)
                    .map_err(|e| format!("backend: {e}"))?;
                let code =
                    ExecCode::new_in(&c, arena).map_err(|e| format!("executable memory: {e}"))?;
                clock.lap("map");
                Ok((Code::X64(code), MachineCode::X64(c)))
            }
            Target::Aarch64 => {
                let c =
                    aarch64::compile_timed(func, io, clock).map_err(|e| format!("backend: {e}"))?;
                let code = aarch64::Kernel::new(&c).map_err(|e| format!("aarch64: {e}"))?;
                clock.lap("map");
                Ok((Code::Aarch64(code), MachineCode::Aarch64(c)))
            }
        }
    }

    /// `ExecCode::run_aos`; an error only from the qemu job server or the x86-64 emulator.
    pub(super) fn run_aos(
        &self,
        ctx: &mut Context,
        input: &[Regs16],
        output: &mut [Regs16],
        status: &mut [u32],
        emit: Option<EmitBuffer<'_>>,
    ) -> Result<usize, String> {
        match self {
            Code::X64(c) => c
                .run_aos(ctx, input, output, status, emit)
                .map_err(|e| e.to_string()),
            Code::Aarch64(k) => k
                .run_aos(ctx, input, output, status, emit)
                .map_err(|e| e.to_string()),
        }
    }

    /// `ExecCode::run_draw`; an error only from the qemu job server or the x86-64 emulator.
    pub(super) fn run_draw(
        &self,
        ctx: &mut Context,
        vertices: DrawVertices<'_>,
        inputs: &[Option<DrawInput<'_>>; 16],
        output: &mut [SemanticVertex],
        status: &mut [u32],
    ) -> Result<usize, String> {
        match self {
            Code::X64(c) => c
                .run_draw(ctx, vertices, inputs, output, status)
                .map_err(|e| e.to_string()),
            Code::Aarch64(k) => k
                .run_draw(ctx, vertices, inputs, output, status)
                .map_err(|e| e.to_string()),
        }
    }

    pub(super) fn run_soa(
        &self,
        ctx: &mut Context,
        input: &[f32],
        output: &mut [f32],
        len: usize,
        status: &mut [u32],
    ) -> Result<usize, String> {
        match self {
            Code::X64(c) => c
                .run_soa(ctx, input, output, len, status)
                .map_err(|e| e.to_string()),
            Code::Aarch64(k) => k
                .run_soa(ctx, input, output, len, status)
                .map_err(|e| e.to_string()),
        }
    }
}

/// When a shader's generic AoS kernel is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AosCompile {
    /// While the shader is built ([`super::Engine::compile`]): a backend failure makes it an
    /// interpreter fallback at once.
    Now,
    /// On first use, by a run or a prepare; a draw compiles its draw kernel instead (a
    /// pipeline's shaders). A geometry shader, which has no draw kernel, compiles it now.
    OnFirstUse,
}

/// The kernels of one (possibly specialized) function.
#[derive(Debug)]
pub(super) struct Kernels {
    pub(super) func: Verified,
    target: Target,
    /// The AoS kernel: compiled with the kernels ([`Kernels::new`]), or on first use when a
    /// draw came first ([`Kernels::lazy`]). A compile that fails is kept as the interpreter
    /// fallback it makes of the shader.
    aos: OnceLock<Result<Aos, ExecPath>>,
    /// The SoA kernel, compiled on first use (or in the background).
    soa: OnceLock<Result<Code, String>>,
    soa_bytes: AtomicUsize,
    soa_requested: AtomicBool,
    /// Draw kernels by vertex layout, each compiled on first use (`None` if it cannot be
    /// built: the draw takes the record path); at most [`MAX_DRAW_LAYOUTS`].
    draw: Mutex<Vec<(DrawLayout, Arc<DrawEntry>)>>,
    draw_bytes: AtomicUsize,
}

/// A compiled AoS kernel.
#[derive(Debug)]
pub(super) struct Aos {
    pub(super) code: Code,
    /// Its machine code, for dumps and static counts.
    pub(super) machine: Arc<MachineCode>,
}

/// One layout's draw kernel: compiled once (`None` if it cannot be built), its compile queued
/// on the rayon pool at most once.
#[derive(Debug, Default)]
struct DrawEntry {
    code: OnceLock<Option<Arc<Code>>>,
    requested: AtomicBool,
}

/// Where a layout's draw kernel stands ([`Kernels::draw_ready`]).
pub(super) enum DrawKernel {
    Ready(Arc<Code>),
    /// Compiling on the rayon pool.
    Compiling,
    /// It cannot be built, or the layouts kept are full: the record path serves.
    Unavailable,
}

/// Draw layouts (attribute component counts × output maps) kept per kernel set; a draw with
/// another layout takes the record path.
pub(super) const MAX_DRAW_LAYOUTS: usize = 8;

impl Kernels {
    pub(super) fn new(
        func: Verified,
        target: Target,
        counters: &Counters,
    ) -> Result<(Kernels, Arc<MachineCode>), String> {
        Kernels::new_timed(func, target, counters, &mut Clock::off())
    }

    /// [`Kernels::new`], lapping `clock` (see [`Code::compile`]).
    pub(super) fn new_timed(
        func: Verified,
        target: Target,
        counters: &Counters,
        clock: &mut Clock<'_>,
    ) -> Result<(Kernels, Arc<MachineCode>), String> {
        let aos = compile_aos(&func, target, counters, clock)?;
        let machine = Arc::clone(&aos.machine);
        let kernels = Kernels::lazy(func, target);
        let _ = kernels.aos.set(Ok(aos));
        Ok((kernels, machine))
    }

    /// The kernels of `func` with nothing compiled yet: the AoS kernel too is compiled on
    /// first use ([`Kernels::aos`]). For a shader whose first use is a draw, which needs only
    /// a draw kernel.
    pub(super) fn lazy(func: Verified, target: Target) -> Kernels {
        Kernels {
            func,
            target,
            aos: OnceLock::new(),
            soa: OnceLock::new(),
            soa_bytes: AtomicUsize::new(0),
            soa_requested: AtomicBool::new(false),
            draw: Mutex::new(Vec::new()),
            draw_bytes: AtomicUsize::new(0),
        }
    }

    /// The AoS kernel, compiled now by this thread if nobody has (waiting while another
    /// thread compiles it); the error is the interpreter fallback a failed compile makes of
    /// the shader.
    pub(super) fn aos(&self, counters: &Counters) -> Result<&Aos, &ExecPath> {
        self.aos
            .get_or_init(|| {
                let aos = compile_aos(&self.func, self.target, counters, &mut Clock::off())
                    .map_err(ExecPath::Fallback)?;
                counters.grew(aos.machine.code_bytes());
                Ok(aos)
            })
            .as_ref()
    }

    /// True once the AoS kernel has been compiled (or failed to).
    pub(super) fn aos_tried(&self) -> bool {
        self.aos.get().is_some()
    }

    /// The interpreter fallback a failed AoS compile made of the shader, if it failed.
    pub(super) fn aos_failure(&self) -> Option<&ExecPath> {
        self.aos.get().and_then(|r| r.as_ref().err())
    }

    /// The AoS kernel if it is compiled (nothing is compiled here).
    pub(super) fn aos_compiled(&self) -> Option<&Aos> {
        self.aos.get().and_then(|r| r.as_ref().ok())
    }

    /// The SoA kernel, compiled now by this thread if nobody has (waiting while another
    /// thread compiles it).
    pub(super) fn soa(&self, target: Target, counters: &Counters) -> Result<&Code, &str> {
        self.soa
            .get_or_init(|| {
                let compiled = Code::compile(
                    &self.func,
                    target,
                    IoMode::Soa,
                    &counters.arena,
                    &mut Clock::off(),
                );
                if let Ok((_, machine)) = &compiled {
                    self.soa_bytes
                        .store(machine.code_bytes(), Ordering::Relaxed);
                    Counters::count(&counters.compiles);
                    counters.grew(machine.code_bytes());
                }
                compiled.map(|(c, _)| c)
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// The SoA kernel if it is compiled; otherwise `None`, after starting its compilation on
    /// the rayon pool (once).
    pub(super) fn soa_ready(
        self: &Arc<Self>,
        target: Target,
        counters: &Arc<Counters>,
    ) -> Option<Result<&Code, &str>> {
        if let Some(done) = self.soa.get() {
            return Some(done.as_ref().map_err(String::as_str));
        }
        if !self.soa_requested.swap(true, Ordering::AcqRel) {
            let (kernels, counters) = (Arc::clone(self), Arc::clone(counters));
            rayon::spawn(move || {
                let _ = kernels.soa(target, &counters);
            });
        }
        None
    }

    /// The draw kernel for `layout`, compiled now by this thread if nobody has; `None` if it
    /// cannot be built (this target or function has no draw kernel) or the layouts kept are
    /// full.
    pub(super) fn draw(
        &self,
        layout: &DrawLayout,
        target: Target,
        counters: &Counters,
    ) -> Option<Arc<Code>> {
        let entry = self.draw_entry(layout)?;
        self.compile_draw(&entry, layout, target, counters)
    }

    /// The draw kernel for `layout` if it is compiled; otherwise its compile is queued on the
    /// rayon pool (once) and the answer is [`DrawKernel::Compiling`].
    pub(super) fn draw_ready(
        self: &Arc<Self>,
        layout: &DrawLayout,
        target: Target,
        counters: &Arc<Counters>,
    ) -> DrawKernel {
        let Some(entry) = self.draw_entry(layout) else {
            return DrawKernel::Unavailable;
        };
        match entry.code.get() {
            Some(Some(code)) => return DrawKernel::Ready(Arc::clone(code)),
            Some(None) => return DrawKernel::Unavailable,
            None => {}
        }
        if !entry.requested.swap(true, Ordering::AcqRel) {
            let (kernels, counters, layout) = (Arc::clone(self), Arc::clone(counters), *layout);
            rayon::spawn(move || {
                let _ = kernels.compile_draw(&entry, &layout, target, &counters);
            });
        }
        DrawKernel::Compiling
    }

    /// The entry of `layout`, added if new; `None` when the layouts kept are full.
    fn draw_entry(&self, layout: &DrawLayout) -> Option<Arc<DrawEntry>> {
        let mut list = self.draw.lock().unwrap_or_else(|p| p.into_inner());
        match list.iter().find(|(l, _)| l == layout) {
            Some((_, entry)) => Some(Arc::clone(entry)),
            None if list.len() >= MAX_DRAW_LAYOUTS => None,
            None => {
                let entry = Arc::new(DrawEntry::default());
                list.push((*layout, Arc::clone(&entry)));
                Some(entry)
            }
        }
    }

    /// Compiles `entry`'s kernel now if nobody has (waiting while another thread does).
    fn compile_draw(
        &self,
        entry: &DrawEntry,
        layout: &DrawLayout,
        target: Target,
        counters: &Counters,
    ) -> Option<Arc<Code>> {
        entry
            .code
            .get_or_init(|| {
                let io = IoMode::Draw(*layout);
                let (code, machine) =
                    Code::compile(&self.func, target, io, &counters.arena, &mut Clock::off())
                        .ok()?;
                self.draw_bytes
                    .fetch_add(machine.code_bytes(), Ordering::Relaxed);
                Counters::count(&counters.compiles);
                counters.grew(machine.code_bytes());
                Some(Arc::new(code))
            })
            .clone()
    }

    /// Machine-code bytes of the kernels compiled so far.
    pub(super) fn bytes(&self) -> usize {
        self.aos_compiled().map_or(0, |a| a.machine.code_bytes())
            + self.soa_bytes.load(Ordering::Relaxed)
            + self.draw_bytes.load(Ordering::Relaxed)
    }
}

/// Compiles `func`'s AoS kernel (counted as one compile).
fn compile_aos(
    func: &Verified,
    target: Target,
    counters: &Counters,
    clock: &mut Clock<'_>,
) -> Result<Aos, String> {
    let (code, machine) = Code::compile(func, target, IoMode::Aos, &counters.arena, clock)?;
    Counters::count(&counters.compiles);
    Ok(Aos {
        code,
        machine: Arc::new(machine),
    })
}

/// Specialized kernels kept per shader; beyond this the generic kernel serves.
pub(super) const MAX_VARIANTS: usize = 8;

/// A uniform-specialized variant: its key and its kernels once compiled (`None` if compiling
/// failed: the generic kernels serve).
type Variant = (VariantKey, Arc<OnceLock<Option<Arc<Kernels>>>>);

/// Which of a shader's PICA-multiply uniform operands are finite and non-zero in a run's
/// uniforms (bit i: operand i), in place: finding a run's variant allocates nothing. Operands
/// past the first [`VariantKey::BITS`] (a program has at most 4 × 128 uniform components)
/// count as unsafe: their multiplies stay exact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct VariantKey([u64; 8]);

impl VariantKey {
    const BITS: usize = 512;

    fn set(&mut self, i: usize) {
        if i < Self::BITS {
            self.0[i / 64] |= 1 << (i % 64);
        }
    }

    fn get(&self, i: usize) -> bool {
        i < Self::BITS && self.0[i / 64] >> (i % 64) & 1 != 0
    }

    fn any(&self) -> bool {
        self.0.iter().any(|&w| w != 0)
    }
}

/// A natively compiled shader.
#[derive(Debug)]
pub(super) struct Native {
    /// Exact for any uniform values.
    pub(super) generic: Arc<Kernels>,
    /// Kernels whose PICA multiplies by some uniform components are plain multiplies, keyed by
    /// which of `pmul_uniforms` are finite and non-zero.
    pub(super) variants: Mutex<Vec<Variant>>,
    pub(super) pmul_uniforms: Arc<[(u32, u32)]>,
    pub(super) target: Target,
    /// The target of the draw kernels ([`super::DrawWidth`]).
    pub(super) draw_target: Target,
    /// The function emits (a geometry shader): runs go through [`Shader::run_geometry`].
    pub(super) geometry: bool,
    /// Uniform components read through broadcast rows.
    pub(super) rows: Vec<(usize, usize)>,
    /// Kernels a run needs but does not have yet are compiled on the rayon pool while the
    /// generic ones serve (else by the running thread, before it runs).
    pub(super) background: bool,
    pub(super) counters: Arc<Counters>,
}

/// Compiles the variant of `generic` whose PICA multiplies by the uniform operands `key`
/// marks safe are plain multiplies (its AoS kernel now, or on first use).
fn compile_variant(
    generic: &Kernels,
    pmul_uniforms: &[(u32, u32)],
    key: VariantKey,
    target: Target,
    counters: &Counters,
    aos: AosCompile,
) -> Option<Arc<Kernels>> {
    let safe = |c: u32, comp: u32| {
        pmul_uniforms
            .iter()
            .enumerate()
            .any(|(i, &(uc, ucomp))| key.get(i) && uc == c && ucomp == comp)
    };
    let (func, _) = opt::specialize_pmul(&generic.func, &safe);
    match aos {
        AosCompile::Now => Kernels::new(func, target, counters)
            .ok()
            .map(|(k, _)| Arc::new(k)),
        AosCompile::OnFirstUse => Some(Arc::new(Kernels::lazy(func, target))),
    }
}

/// The variant in `cell`, compiled by `compile` if nobody has; the bytes of a variant this
/// call put there count as the shader's growth once the cell holds it.
fn variant_in<'a>(
    cell: &'a OnceLock<Option<Arc<Kernels>>>,
    counters: &Counters,
    compile: impl FnOnce() -> Option<Arc<Kernels>>,
) -> &'a Option<Arc<Kernels>> {
    let mut made = 0;
    let ready = cell.get_or_init(|| {
        let kernels = compile();
        made = kernels.as_ref().map_or(0, |k| k.bytes());
        kernels
    });
    counters.grew(made);
    ready
}

impl Native {
    /// Which of `pmul_uniforms` are finite and non-zero in `uniforms`.
    fn key(&self, uniforms: &Uniforms) -> VariantKey {
        let mut key = VariantKey::default();
        for (i, &(c, comp)) in self.pmul_uniforms.iter().enumerate() {
            let safe = uniforms
                .f
                .get(c as usize)
                .is_some_and(|v| v[comp as usize & 3].is_finite() && v[comp as usize & 3] != 0.0);
            if safe {
                key.set(i);
            }
        }
        key
    }

    /// The kernels for a run with these uniforms: the variant whose PICA multiplies by the
    /// finite, non-zero uniform components are plain multiplies when it is compiled; while it
    /// compiles in the background (or when `wait` is false and it is not there yet), the
    /// generic kernels. With background compiling off, or `wait`, a missing variant is
    /// compiled now.
    pub(super) fn kernels_for(&self, uniforms: &Uniforms, wait: bool) -> Arc<Kernels> {
        let key = self.key(uniforms);
        if !key.any() {
            return Arc::clone(&self.generic);
        }
        let wait = wait || !self.background;
        let cell = {
            let mut list = self.variants.lock().unwrap_or_else(|p| p.into_inner());
            match list.iter().find(|(k, _)| *k == key) {
                Some((_, cell)) => Arc::clone(cell),
                None if list.len() >= MAX_VARIANTS => return Arc::clone(&self.generic),
                None => {
                    let cell = Arc::new(OnceLock::new());
                    list.push((key, Arc::clone(&cell)));
                    if !wait {
                        let job = Arc::clone(&cell);
                        let generic = Arc::clone(&self.generic);
                        let pmul = Arc::clone(&self.pmul_uniforms);
                        let (target, counters) = (self.target, Arc::clone(&self.counters));
                        rayon::spawn(move || {
                            variant_in(&job, &counters, || {
                                let aos = AosCompile::Now;
                                compile_variant(&generic, &pmul, key, target, &counters, aos)
                            });
                        });
                    }
                    cell
                }
            }
        };
        let ready = if wait {
            // Compiling on the running thread: without background compiling each kernel
            // when first needed (a draw needs only its draw kernel); else the AoS kernel now,
            // so that no later run waits for it.
            let aos = match self.background {
                true => AosCompile::Now,
                false => AosCompile::OnFirstUse,
            };
            Some(variant_in(&cell, &self.counters, || {
                compile_variant(
                    &self.generic,
                    &self.pmul_uniforms,
                    key,
                    self.target,
                    &self.counters,
                    aos,
                )
            }))
        } else {
            cell.get()
        };
        match ready {
            Some(Some(k)) => Arc::clone(k),
            Some(None) | None => Arc::clone(&self.generic),
        }
    }

    /// The kernels for a run with these uniforms ([`Native::kernels_for`]).
    pub(super) fn kernels(&self, uniforms: &Uniforms) -> Arc<Kernels> {
        self.kernels_for(uniforms, false)
    }

    /// Kernels for these uniforms whose SoA kernel is ready: the variant's, else the generic
    /// ones'; `None` while neither is compiled (both are then being compiled in the
    /// background). With background compiling off the SoA kernel is compiled now.
    pub(super) fn soa_kernels(&self, uniforms: &Uniforms) -> Option<Arc<Kernels>> {
        let kernels = self.kernels(uniforms);
        if !self.background {
            return kernels
                .soa(self.target, &self.counters)
                .is_ok()
                .then_some(kernels);
        }
        if let Some(Ok(_)) = kernels.soa_ready(self.target, &self.counters) {
            return Some(kernels);
        }
        match self.generic.soa_ready(self.target, &self.counters) {
            Some(Ok(_)) => Some(Arc::clone(&self.generic)),
            Some(Err(_)) | None => None,
        }
    }

    /// Compiles, on this thread, every kernel a run with these uniforms can use: the
    /// variant (or the generic AoS kernel), and the SoA kernels of it and of the generic
    /// function.
    pub(super) fn prepare(&self, uniforms: &Uniforms) {
        let kernels = self.kernels_for(uniforms, true);
        let _ = kernels.aos(&self.counters);
        let _ = kernels.soa(self.target, &self.counters);
        let _ = self.generic.soa(self.target, &self.counters);
    }

    /// Compiles, on this thread, the AoS kernel a run with these uniforms uses (the
    /// variant's, or the generic one).
    pub(super) fn prepare_aos(&self, uniforms: &Uniforms) {
        let _ = self.kernels_for(uniforms, true).aos(&self.counters);
    }

    /// Machine-code bytes of every kernel compiled so far.
    pub(super) fn bytes(&self) -> usize {
        let variants = self.variants.lock().unwrap_or_else(|p| p.into_inner());
        self.generic.bytes()
            + variants
                .iter()
                .filter_map(|(_, cell)| cell.get().and_then(Option::as_ref))
                .map(|k| k.bytes())
                .sum::<usize>()
    }
}

#[derive(Debug)]
pub(super) enum Exec {
    Native(Native),
    Interp,
}
