//! Register allocation: every variable gets one location for its whole live range — a SIMD
//! register or a spill slot in the batch context — by linear scan over the blocks in reverse
//! post-order.
//!
//! Vocabulary:
//! - *position*: instruction `k` of the linear order reads its operands at `2k` and writes its
//!   result at `2k + 1`, so an operand whose range ends at `2k` may share a register with the
//!   result;
//! - *range*: the hull of the positions where a variable is live (from liveness over the CFG:
//!   a variable live into or out of a block covers the whole block);
//! - *location*: [`Loc::Reg`] (a register number of the backend's allocatable set) or
//!   [`Loc::Spill`] (a slot of `abi::Context::spill`); a variable never read nor written has
//!   [`Loc::Unused`];
//! - *class*: what the backend asks for a variable ([`Class`]): a register if one is free (else
//!   a spill slot), [`Loc::Remat`] (its only definition reads a value fixed for the whole run —
//!   a broadcast uniform row, a constant — and each use re-reads that value), or a spill slot of
//!   its own for the whole function (a value the backend computes once per run).
//!
//! Because a variable never moves, no copies are needed at block boundaries; the price is that a
//! long-lived variable keeps its register even across stretches where it is dead (the hull).

use thiserror::Error;

use crate::ir::{BlockId, Function, Var};
use crate::opt::Liveness;

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Loc {
    Reg(u8),
    Spill(u32),
    /// Re-read at each use from where its only definition reads it (see the module docs).
    Remat,
    Unused,
}

/// The allocation of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    /// Location per variable.
    pub locs: Vec<Loc>,
    /// Blocks in emission order (reachable blocks only, entry first).
    pub order: Vec<BlockId>,
    /// Spill slots used.
    pub spill_slots: u32,
}

/// What a backend asks for a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A register, or a spill slot when none is free.
    Register,
    /// [`Loc::Remat`].
    Remat,
    /// A spill slot no other variable shares.
    Memory,
    /// No location: the backend neither reads nor writes it ([`Loc::Unused`]).
    Elided,
}

/// Allocation failures.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum AllocError {
    #[error("the function needs more than {0} spill slots")]
    TooManySpills(usize),
}

/// Reverse post-order of the blocks reachable from block 0.
pub fn reverse_post_order(func: &Function) -> Vec<BlockId> {
    let n = func.blocks.len();
    if n == 1 {
        // Straight code: the order is the entry block alone (several passes ask per compile).
        return vec![BlockId(0)];
    }
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    // Iterative DFS: (block, next successor index); at most every block at once.
    let mut stack = Vec::with_capacity(n);
    stack.push((0usize, 0usize));
    seen[0] = true;
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        let succs = func.blocks[b].term.successors();
        if let Some(s) = succs.get(*i) {
            *i += 1;
            let s = s.0 as usize;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(BlockId(b as u32));
            stack.pop();
        }
    }
    post.reverse();
    post
}

#[derive(Clone, Copy)]
struct Range {
    var: Var,
    start: u32,
    end: u32,
    /// Accesses per position of the range (fixed point, 32 fraction bits): the lower, the
    /// cheaper it is to keep the variable in memory.
    density: u64,
}

impl Range {
    /// What decides which range to spill: the least dense; of equals, the one that ends last.
    fn spill_key(&self) -> (u64, std::cmp::Reverse<u32>) {
        (self.density, std::cmp::Reverse(self.end))
    }
}

/// `ranges` (in increasing variable order, every start below `positions`) sorted by start,
/// ranges of equal start in variable order: counted per start, then placed in order.
fn by_start(ranges: &[Range], positions: u32) -> Vec<Range> {
    let mut at = vec![0u32; positions as usize + 1];
    for r in ranges {
        at[r.start as usize + 1] += 1;
    }
    for p in 1..at.len() {
        at[p] += at[p - 1];
    }
    let mut sorted = vec![
        Range {
            var: Var(0),
            start: 0,
            end: 0,
            density: 0,
        };
        ranges.len()
    ];
    for r in ranges {
        let slot = &mut at[r.start as usize];
        sorted[*slot as usize] = *r;
        *slot += 1;
    }
    sorted
}

/// Where a variable is touched along the linear order: its first and last positions (`first`
/// `u32::MAX`: never) and how many reads and writes it has (what spilling it costs).
#[derive(Clone, Copy)]
struct Span {
    first: u32,
    last: u32,
    uses: u32,
}

/// Allocates `func`'s variables to the registers `regs` (in preference order) and at most
/// `max_spill` spill slots, each variable as its [`Class`] asks.
pub fn allocate(
    func: &Function,
    live: &Liveness,
    regs: &[u8],
    max_spill: usize,
    class: &(impl Fn(Var) -> Class + ?Sized),
) -> Result<Allocation, AllocError> {
    let order = reverse_post_order(func);
    let nvars = func.vars.len();
    let untouched = Span {
        first: u32::MAX,
        last: 0,
        uses: 0,
    };
    let mut spans = vec![untouched; nvars];
    // Positions only grow along the walk: a variable's first touch is its start, its latest
    // touch its end. A variable live into a block is read in it or live out of it, so a later
    // touch sets its end.
    let enter = |spans: &mut Vec<Span>, v: Var, p: u32| {
        let s = &mut spans[v.0 as usize];
        if s.first == u32::MAX {
            s.first = p;
        }
    };
    let access = |spans: &mut Vec<Span>, v: Var, p: u32| {
        let s = &mut spans[v.0 as usize];
        if s.first == u32::MAX {
            s.first = p;
        }
        s.last = p;
        s.uses += 1;
    };
    let mut pos = 0u32;
    for &b in &order {
        let block = &func.blocks[b.0 as usize];
        let start = pos;
        for v in live.live_in(b) {
            enter(&mut spans, v, start);
        }
        for inst in &block.insts {
            for &u in inst.uses() {
                access(&mut spans, u, pos);
            }
            if let Some(d) = inst.dst {
                access(&mut spans, d, pos + 1);
            }
            pos += 2;
        }
        if let Some(u) = block.term.uses() {
            access(&mut spans, u, pos);
        }
        for v in live.live_out(b) {
            // Touched in the block or live into it: only its end moves.
            spans[v.0 as usize].last = pos + 1;
        }
        pos += 2;
    }
    let mut locs = vec![Loc::Unused; nvars];
    let mut spill_slots = 0u32;
    let mut ranges: Vec<Range> = Vec::with_capacity(nvars);
    for (i, s) in spans
        .iter()
        .enumerate()
        .filter(|(_, s)| s.first != u32::MAX)
    {
        match class(Var(i as u32)) {
            Class::Register => ranges.push(Range {
                var: Var(i as u32),
                start: s.first,
                end: s.last,
                density: (u64::from(s.uses) << 32) / (u64::from(s.last - s.first) + 1),
            }),
            Class::Remat => locs[i] = Loc::Remat,
            Class::Elided => locs[i] = Loc::Unused,
            Class::Memory => {
                if spill_slots as usize >= max_spill {
                    return Err(AllocError::TooManySpills(max_spill));
                }
                locs[i] = Loc::Spill(spill_slots);
                spill_slots += 1;
            }
        }
    }
    let ranges = by_start(&ranges, pos);

    let mut free: Vec<u8> = regs.iter().rev().copied().collect();
    let mut active: Vec<(Range, u8)> = Vec::with_capacity(regs.len());
    let mut free_slots: Vec<(u32, u32)> = Vec::with_capacity(16); // (slot, free from position)
    let mut spill = |locs: &mut Vec<Loc>,
                     r: &Range,
                     free_slots: &mut Vec<(u32, u32)>|
     -> Result<(), AllocError> {
        let slot = match free_slots.iter().position(|&(_, from)| from < r.start) {
            Some(i) => free_slots.swap_remove(i).0,
            None => {
                if spill_slots as usize >= max_spill {
                    return Err(AllocError::TooManySpills(max_spill));
                }
                spill_slots += 1;
                spill_slots - 1
            }
        };
        locs[r.var.0 as usize] = Loc::Spill(slot);
        free_slots.push((slot, r.end));
        Ok(())
    };
    // The earliest end among the active ranges (`u32::MAX`: none active): while a range
    // starts at or before it, nothing expires.
    let mut min_end = u32::MAX;
    for r in ranges {
        // Expire ranges that ended before this one starts.
        if r.start > min_end {
            min_end = u32::MAX;
            active.retain(|&(a, reg)| {
                let live = a.end >= r.start;
                if live {
                    min_end = min_end.min(a.end);
                } else {
                    free.push(reg);
                }
                live
            });
        }
        if let Some(reg) = free.pop() {
            locs[r.var.0 as usize] = Loc::Reg(reg);
            active.push((r, reg));
            min_end = min_end.min(r.end);
            continue;
        }
        // No register: spill whichever of the active ranges and this one is used least
        // densely (accesses per position of its range; of equals, the one that ends last).
        let victim = active
            .iter()
            .enumerate()
            .min_by_key(|(_, (a, _))| a.spill_key())
            .map(|(i, &v)| (i, v));
        match victim {
            Some((i, (v, reg))) if v.spill_key() < r.spill_key() => {
                spill(&mut locs, &v, &mut free_slots)?;
                active.swap_remove(i);
                locs[r.var.0 as usize] = Loc::Reg(reg);
                active.push((r, reg));
                // The victim's end may have been the earliest: a bound below the true one
                // only makes the next range run the expiry.
                min_end = min_end.min(r.end);
            }
            _ => spill(&mut locs, &r, &mut free_slots)?,
        }
    }
    Ok(Allocation {
        locs,
        order,
        spill_slots,
    })
}
