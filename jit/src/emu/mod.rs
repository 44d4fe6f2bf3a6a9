//! A test-only x86-64 emulator (feature `emu`) that executes the backend's generated kernels —
//! the exact bytes — on a host whatever its instruction set: decoded by iced-x86, interpreted
//! for the subset the x64 backends emit (general-purpose moves, arithmetic, `lea`, compares,
//! conditional moves and branches; SSE4.1; AVX/AVX2; the AVX-512 F/VL/DQ/BW forms of
//! [`crate::x64::evex`] and the opmask instructions), bit-exact with the hardware (`fp`).
//!
//! Memory is confined to the [`Region`]s the caller hands over (code, a context image, a stack
//! word for the return address): any other access is an [`EmuError`], never undefined
//! behaviour. An instruction outside the subset is an error naming it, never a guess.
//!
//! `call` is [`crate::code::ExecCode`]'s path for code of a tier the host lacks (the call's
//! real memory as regions at their real addresses); [`crate::code::ExecCode::emulated`] takes
//! it for any tier, so tests hold the emulator to the CPU through the engine's own calls.

pub mod call;
mod fp;
mod gpr;
mod vector;

use iced_x86::{Decoder, DecoderOptions, Instruction, OpKind, Register};
use rustc_hash::FxHashMap as HashMap;

/// A block of guest memory at guest address `base`.
#[derive(Clone, Debug)]
pub struct Region {
    pub base: u64,
    pub bytes: Vec<u8>,
    pub writable: bool,
}

/// Why emulation stopped before the code returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmuError {
    /// The bytes at `at` are no valid instruction, or `at` is outside every code region.
    #[error("no valid instruction at {at:#x}")]
    Decode { at: u64 },
    /// An instruction the emulator does not implement.
    #[error("unsupported instruction at {at:#x}: {what}")]
    Unsupported { at: u64, what: String },
    /// A memory access outside the regions (or a write to a read-only one).
    #[error("instruction at {at:#x}: {len}-byte {} at {addr:#x} outside the regions", if *.write { "write" } else { "read" })]
    Memory {
        at: u64,
        addr: u64,
        len: usize,
        write: bool,
    },
    /// More instructions than the limit ran (a hang, for a kernel).
    #[error("step limit of {0} instructions reached")]
    Steps(u64),
}

/// Where `call` returns to: a guest address no region covers.
const RETURN_SENTINEL: u64 = 0xDEAD_0000_0000;

/// Arithmetic flags the backends read (parity and adjust are never read: an instruction that
/// would need them is unsupported).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Flags {
    pub cf: bool,
    pub zf: bool,
    pub sf: bool,
    pub of: bool,
}

/// The machine: registers, flags, memory, decoded-instruction cache.
#[derive(Debug)]
pub struct Machine {
    pub(crate) gpr: [u64; 16],
    pub(crate) vec: [[u8; 64]; 32],
    pub(crate) k: [u64; 8],
    pub(crate) flags: Flags,
    pub(crate) rip: u64,
    regions: Vec<Region>,
    pub(crate) decoded: HashMap<u64, Instruction>,
    /// Instructions executed so far.
    pub steps: u64,
    /// The most instructions one [`Machine::call`] may execute.
    pub step_limit: u64,
}

impl Machine {
    /// A machine over `regions`, registers zero. A writable region must overlap no other;
    /// read-only regions may overlap when they hold the same bytes there (copies of one
    /// array: an access is served by the first region that holds all of it).
    pub fn new(regions: Vec<Region>) -> Machine {
        Machine {
            gpr: [0; 16],
            vec: [[0; 64]; 32],
            k: [0; 8],
            flags: Flags::default(),
            rip: 0,
            regions,
            decoded: HashMap::default(),
            steps: 0,
            step_limit: 2_000_000_000,
        }
    }

    /// The regions, as the code left them.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// Calls the sysv64 function at `entry` with `rdi = arg`, the stack pointer at `stack` (a
    /// writable region word the return address is stored in), until it returns.
    pub fn call(&mut self, entry: u64, arg: u64, stack: u64) -> Result<(), EmuError> {
        self.gpr[7] = arg;
        self.gpr[4] = stack;
        self.write(entry, stack, &RETURN_SENTINEL.to_le_bytes())?;
        self.rip = entry;
        let start = self.steps;
        while self.rip != RETURN_SENTINEL {
            if self.steps - start >= self.step_limit {
                return Err(EmuError::Steps(self.step_limit));
            }
            let ins = self.fetch()?;
            self.rip = ins.next_ip();
            self.steps += 1;
            self.exec(&ins)?;
        }
        Ok(())
    }

    fn fetch(&mut self) -> Result<Instruction, EmuError> {
        if let Some(ins) = self.decoded.get(&self.rip) {
            return Ok(*ins);
        }
        let at = self.rip;
        let region = self
            .regions
            .iter()
            .find(|r| at >= r.base && at - r.base < r.bytes.len() as u64)
            .ok_or(EmuError::Decode { at })?;
        let off = (at - region.base) as usize;
        let end = (off + 15).min(region.bytes.len());
        let mut dec = Decoder::with_ip(64, &region.bytes[off..end], at, DecoderOptions::NONE);
        let ins = dec.decode();
        if ins.is_invalid() {
            return Err(EmuError::Decode { at });
        }
        self.decoded.insert(at, ins);
        Ok(ins)
    }

    fn region_of(&self, addr: u64, len: usize) -> Option<usize> {
        self.regions.iter().position(|r| {
            addr >= r.base
                && (addr - r.base)
                    .checked_add(len as u64)
                    .is_some_and(|end| end <= r.bytes.len() as u64)
        })
    }

    /// Reads `buf.len()` bytes at `addr` (`at`: the instruction, for the error).
    pub(crate) fn read(&self, at: u64, addr: u64, buf: &mut [u8]) -> Result<(), EmuError> {
        let err = EmuError::Memory {
            at,
            addr,
            len: buf.len(),
            write: false,
        };
        let i = self.region_of(addr, buf.len()).ok_or(err)?;
        let r = &self.regions[i];
        let off = (addr - r.base) as usize;
        buf.copy_from_slice(&r.bytes[off..off + buf.len()]);
        Ok(())
    }

    /// Writes `bytes` at `addr`.
    pub(crate) fn write(&mut self, at: u64, addr: u64, bytes: &[u8]) -> Result<(), EmuError> {
        let err = EmuError::Memory {
            at,
            addr,
            len: bytes.len(),
            write: true,
        };
        let i = self.region_of(addr, bytes.len()).ok_or(err.clone())?;
        let r = &mut self.regions[i];
        if !r.writable {
            return Err(err);
        }
        let off = (addr - r.base) as usize;
        r.bytes[off..off + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// The effective address of the instruction's memory operand.
    pub(crate) fn address(&self, ins: &Instruction) -> u64 {
        if ins.is_ip_rel_memory_operand() {
            return ins.ip_rel_memory_address();
        }
        let mut a = ins.memory_displacement64();
        if ins.memory_base() != Register::None {
            a = a.wrapping_add(self.gpr[ins.memory_base().number()]);
        }
        if ins.memory_index() != Register::None {
            let i = self.gpr[ins.memory_index().number()];
            a = a.wrapping_add(i.wrapping_mul(u64::from(ins.memory_index_scale())));
        }
        a
    }

    pub(crate) fn unsupported(&self, ins: &Instruction) -> EmuError {
        EmuError::Unsupported {
            at: ins.ip(),
            what: format!("{:?}", ins.code()),
        }
    }

    fn exec(&mut self, ins: &Instruction) -> Result<(), EmuError> {
        let vector = (0..ins.op_count()).any(|i| {
            ins.op_kind(i) == OpKind::Register && {
                let r = ins.op_register(i);
                r.is_vector_register() || r.is_k()
            }
        }) || ins.mnemonic() == iced_x86::Mnemonic::Vzeroupper;
        if vector {
            self.exec_vector(ins)
        } else {
            self.exec_gpr(ins)
        }
    }
}
