//! Compiled kernels: machine code for dumps, executable code per I/O layout, and the
//! uniform-specialized variants a native shader compiles on first use.

use super::backend::Target;
use std::sync::{Arc, Mutex, OnceLock};

use picajit_codegen::aarch64;
use picajit_codegen::abi::Context;
use picajit_codegen::code::{EmitBuffer, ExecCode};
use picajit_codegen::ir::Function;
use picajit_codegen::opt;
use picajit_codegen::timings::Clock;
use picajit_codegen::x64::{self, IoMode};

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
    /// Compiles `func` for `target` and makes it executable, lapping `clock` at the backend's
    /// phase boundaries and after `map`.
    pub(super) fn compile(
        func: &Function,
        target: Target,
        io: IoMode,
        clock: &mut Clock<'_>,
    ) -> Result<(Code, MachineCode), String> {
        match target {
            Target::X64(tier) => {
                let c = x64::compile_timed(func, tier, io, clock)
                    .map_err(|e| format!("backend: {e}"))?;
                let code = ExecCode::new(&c).map_err(|e| format!("executable memory: {e}"))?;
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

    /// `ExecCode::run_aos`; an error only from the qemu job server.
    pub(super) fn run_aos(
        &self,
        ctx: &mut Context,
        input: &[Regs16],
        output: &mut [Regs16],
        status: &mut [u8],
        emit: Option<EmitBuffer<'_>>,
    ) -> Result<usize, String> {
        match self {
            Code::X64(c) => Ok(c.run_aos(ctx, input, output, status, emit)),
            Code::Aarch64(k) => k
                .run_aos(ctx, input, output, status, emit)
                .map_err(|e| e.to_string()),
        }
    }

    pub(super) fn run_soa(
        &self,
        ctx: &mut Context,
        input: &[f32],
        output: &mut [f32],
        len: usize,
        status: &mut [u8],
    ) -> Result<usize, String> {
        match self {
            Code::X64(c) => Ok(c.run_soa(ctx, input, output, len, status)),
            Code::Aarch64(k) => k
                .run_soa(ctx, input, output, len, status)
                .map_err(|e| e.to_string()),
        }
    }
}

/// The kernels of one (possibly specialized) function.
#[derive(Debug)]
pub(super) struct Kernels {
    pub(super) func: Function,
    pub(super) aos: Code,
    /// The SoA kernel, compiled on first use.
    pub(super) soa: OnceLock<Result<Code, String>>,
}

impl Kernels {
    pub(super) fn new(func: Function, target: Target) -> Result<(Kernels, MachineCode), String> {
        Kernels::new_timed(func, target, &mut Clock::off())
    }

    /// [`Kernels::new`], lapping `clock` (see [`Code::compile`]).
    pub(super) fn new_timed(
        func: Function,
        target: Target,
        clock: &mut Clock<'_>,
    ) -> Result<(Kernels, MachineCode), String> {
        let (aos, compiled) = Code::compile(&func, target, IoMode::Aos, clock)?;
        Ok((
            Kernels {
                func,
                aos,
                soa: OnceLock::new(),
            },
            compiled,
        ))
    }

    pub(super) fn soa(&self, target: Target) -> Result<&Code, &str> {
        self.soa
            .get_or_init(|| {
                Code::compile(&self.func, target, IoMode::Soa, &mut Clock::off()).map(|(c, _)| c)
            })
            .as_ref()
            .map_err(String::as_str)
    }
}

/// Specialized kernels kept per shader; beyond this the generic kernel serves.
pub(super) const MAX_VARIANTS: usize = 8;

/// A natively compiled shader.
#[derive(Debug)]
pub(super) struct Native {
    /// Exact for any uniform values.
    pub(super) generic: Arc<Kernels>,
    /// Kernels whose PICA multiplies by some uniform components are plain multiplies, keyed by
    /// which of `pmul_uniforms` are finite and non-zero.
    pub(super) variants: Mutex<Vec<(Vec<bool>, Arc<Kernels>)>>,
    pub(super) pmul_uniforms: Vec<(u32, u32)>,
    pub(super) target: Target,
    /// The function emits (a geometry shader): runs go through [`Shader::run_geometry`].
    pub(super) geometry: bool,
    /// Uniform components read through broadcast rows.
    pub(super) rows: Vec<(usize, usize)>,
}

impl Native {
    /// The kernels for a run with these uniforms: a variant whose PICA multiplies by the
    /// finite, non-zero uniform components are plain multiplies, compiled on first use.
    pub(super) fn kernels(&self, uniforms: &Uniforms) -> Arc<Kernels> {
        let safe = |c: u32, comp: u32| {
            uniforms
                .f
                .get(c as usize)
                .is_some_and(|v| v[comp as usize & 3].is_finite() && v[comp as usize & 3] != 0.0)
        };
        let key: Vec<bool> = self
            .pmul_uniforms
            .iter()
            .map(|&(c, comp)| safe(c, comp))
            .collect();
        if !key.contains(&true) {
            return Arc::clone(&self.generic);
        }
        let mut list = self.variants.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, k)) = list.iter().find(|(k, _)| *k == key) {
            return Arc::clone(k);
        }
        if list.len() >= MAX_VARIANTS {
            return Arc::clone(&self.generic);
        }
        let (func, _) = opt::specialize_pmul(&self.generic.func, &safe);
        match Kernels::new(func, self.target) {
            Ok((k, _)) => {
                let k = Arc::new(k);
                list.push((key, Arc::clone(&k)));
                k
            }
            Err(_) => Arc::clone(&self.generic),
        }
    }
}

#[derive(Debug)]
pub(super) enum Exec {
    Native(Native),
    Interp,
}
