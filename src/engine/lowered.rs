//! Lowerings shared between engines: the last few programs the frontend lowered, by what the
//! lowering reads (reachable code words, descriptors, entry, kind — never the backend or the
//! budget, which the IR does not depend on).
//!
//! Engines of different backends compiling the same program (the fuzzer's check compiles
//! every program for SSE4.1, AVX2 and AArch64; a client may keep an engine per tier) then
//! lower it once. The frontend is deterministic, so a shared lowering is the one each engine
//! would have made: same IR, same machine code, same fallbacks. Only lowerings that cost
//! something are kept (a large function, or a program the frontend refuses after exploring
//! it); small ones are cheaper to redo than to copy. The lock is never held while lowering.

use std::collections::VecDeque;
use std::sync::Mutex;

use crate::frontend::{self, Lowered, Unsupported};
use crate::program::{Program, ShaderKind, DESC_WORDS};

/// Lowerings kept.
const KEPT: usize = 4;

/// Instructions (before dead-code elimination) from which a lowering is kept. Lowering costs
/// far more per instruction than copying the result (a few hundred host instructions per IR
/// instruction built, against one 32-byte copy), so only programs too small for the copy to
/// matter are left out.
const KEEP_INSTS: usize = 256;

#[derive(PartialEq, Eq)]
struct Key {
    words: Vec<(u16, u32)>,
    descs: [u32; DESC_WORDS],
    entry: u16,
    kind: ShaderKind,
}

static RECENT: Mutex<VecDeque<(Key, Result<Lowered, Unsupported>)>> = Mutex::new(VecDeque::new());

/// [`frontend::lower`] of `program`, whose reachable code words are `reachable`, shared with
/// the other engines of this process.
pub(super) fn lower(program: &Program, reachable: &[(u16, u32)]) -> Result<Lowered, Unsupported> {
    let key = Key {
        words: reachable.to_vec(),
        descs: program.descs,
        entry: program.entry,
        kind: program.kind,
    };
    let recent = || RECENT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, lowered)) = recent().iter().find(|(k, _)| *k == key) {
        return lowered.clone();
    }
    let lowered = frontend::lower(program);
    let keep = match &lowered {
        Ok(l) => l.stats.insts_before_dce >= KEEP_INSTS,
        Err(Unsupported::TooManyStates { .. }) => true,
        Err(Unsupported::Internal(_)) => false,
    };
    if keep {
        let mut recent = recent();
        if !recent.iter().any(|(k, _)| *k == key) {
            recent.push_front((key, lowered.clone()));
            recent.truncate(KEPT);
        }
    }
    lowered
}
