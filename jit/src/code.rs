//! Executable memory and the one call boundary into generated code.
//!
//! [`ExecCode`] copies finished machine code into a fresh anonymous mapping and flips it to
//! read+execute (never writable and executable at once). [`ExecCode::run`] is the only place
//! generated code is entered; it is safe to call because the code was produced by this crate's
//! backend for a tier the host supports (checked at construction), and it touches nothing but
//! the context it is handed (and its own read-only constant pool).

use std::io;

use crate::abi::Context;
use crate::x64::{Compiled, Tier};

/// Machine code mapped executable, ready to run batches.
#[derive(Debug)]
pub struct ExecCode {
    map: memmap2::Mmap,
    tier: Tier,
}

/// Why code could not be made executable.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("this host cannot run {0:?} code")]
    Unsupported(Tier),
    #[error("mapping executable memory: {0}")]
    Map(#[from] io::Error),
}

impl ExecCode {
    /// Maps `compiled` executable. Fails if the host lacks the tier's instruction set.
    pub fn new(compiled: &Compiled) -> Result<ExecCode, ExecError> {
        if !compiled.tier.host_supports() {
            return Err(ExecError::Unsupported(compiled.tier));
        }
        let mut map = memmap2::MmapMut::map_anon(compiled.code.len().max(1))?;
        map[..compiled.code.len()].copy_from_slice(&compiled.code);
        let map = map.make_exec()?;
        Ok(ExecCode {
            map,
            tier: compiled.tier,
        })
    }

    /// The tier the code was compiled for.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// Runs the code on one batch.
    pub fn run(&self, ctx: &mut Context) {
        #[cfg(target_arch = "x86_64")]
        {
            type Entry = unsafe extern "sysv64" fn(*mut Context);
            // SAFETY: `map` holds complete, position-independent machine code produced by
            // `x64::compile` for `self.tier`, whose instruction set the host supports (checked
            // in `new`); its entry point is offset 0 and it follows the sysv64 convention with
            // one pointer argument. The mapping is read+execute and lives as long as `self`.
            // The code reads and writes only `*ctx` (at offsets inside `Context`, an exclusive
            // borrow for the duration of the call) and its own constant pool, uses no stack,
            // and returns after a bounded number of backward jumps (the step budget).
            unsafe {
                let entry: Entry = std::mem::transmute::<*const u8, Entry>(self.map.as_ptr());
                entry(ctx as *mut Context);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = ctx;
            unreachable!("ExecCode::new refuses x86-64 code on other hosts");
        }
    }
}
