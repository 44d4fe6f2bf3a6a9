//! Local common-subexpression elimination: within a block, a pure instruction that repeats an
//! earlier one — the same operation, immediates and operands, no operand written in between —
//! reuses the earlier result, when both results are variables written nowhere else (the
//! frontend's temporaries). Inputs, uniforms and constants cannot change during an
//! invocation; `UniformAl` reads aL, which loop effects change, and is left alone. This shrinks
//! the IR the frontend emits per use (leaves) and per component (`mul r0.xyz, c.y, r1.x`
//! computes one product three times).
//!
//! It is local value numbering: every operand is named by a *value number* — the variable's own
//! number until the block writes it, a fresh number after each write — so "no operand written
//! in between" is plain equality of numbers, and the instructions seen in the block sit in one
//! open-addressing [`Table`] of fixed size, emptied between blocks by moving a mark (no
//! allocation per instruction, no clearing per block). The arrays are kept per thread from one
//! call to the next (`SCRATCH`), so a compile does not fault fresh pages in for them.

use crate::ir::{Function, Op, Terminator, Var};

/// Rewrites uses of repeated results; the repeats become dead (run [`super::dce`] after).
/// Returns how many uses were rewritten.
pub fn cse(func: &mut Function) -> usize {
    let mut scratch = SCRATCH.take().unwrap_or_default();
    let rewritten = cse_with(func, &mut scratch);
    if scratch.names.capacity() + scratch.keys.capacity() <= KEEP_AT_MOST {
        SCRATCH.set(Some(scratch));
    }
    rewritten
}

thread_local! {
    /// The pass's working memory, kept from one call to the next on a thread: a compile then
    /// works in pages it touched before instead of faulting fresh ones in (on the development
    /// VM a fresh page costs about as much as the pass spends on a dozen instructions).
    static SCRATCH: std::cell::Cell<Option<Scratch>> = const { std::cell::Cell::new(None) };
}

/// Working memory holding more than this many variables and table entries together (several
/// MB: a function of well over 100,000 instructions) is freed after the call rather than kept.
const KEEP_AT_MOST: usize = 1 << 18;

/// The arrays the pass works in, their contents dead between calls.
#[derive(Default)]
struct Scratch {
    names: Vec<Name>,
    slots: Vec<(u32, u32)>,
    keys: Vec<(Key, Var, u32)>,
}

fn cse_with(func: &mut Function, scratch: &mut Scratch) -> usize {
    let nvars = func.vars.len();
    let names = &mut scratch.names;
    names.clear();
    names.resize(nvars, Name::default());
    // The most instructions with a result in one block: a bound on the table's entries.
    let mut most = 0;
    for block in &func.blocks {
        let mut results = 0;
        for d in block.insts.iter().filter_map(|i| i.dst) {
            if let Some(name) = names.get_mut(d.0 as usize) {
                name.writes += 1;
            }
            results += 1;
        }
        most = most.max(results);
    }
    let mut table = Table::new(most, &mut scratch.slots, &mut scratch.keys);
    let mut rewritten = 0;
    let mut next_value = nvars as u32;
    for (b, block) in func.blocks.iter_mut().enumerate() {
        let stamp = b as u32;
        table.empty();
        for inst in &mut block.insts {
            let n = inst.op.args().len();
            let mut values = [0u32; 3];
            for (a, value) in inst.args[..n].iter_mut().zip(&mut values) {
                let Some(name) = names.get(a.0 as usize) else {
                    *value = a.0;
                    continue;
                };
                if name.replace != NONE {
                    *a = Var(name.replace);
                    rewritten += 1;
                }
                *value = if name.stamp == stamp { name.value } else { a.0 };
            }
            let Some(d) = inst.dst else { continue };
            let Some(name) = names.get(d.0 as usize) else {
                continue;
            };
            let mut value = next_value;
            if inst.is_pure() && inst.op != Op::UniformAl && name.writes == 1 {
                let key = Key([
                    u64::from(inst.op as u32) | u64::from(inst.imm[0]) << 32,
                    u64::from(inst.imm[1]) | u64::from(values[0]) << 32,
                    u64::from(values[1]) | u64::from(values[2]) << 32,
                ]);
                if let Some((earlier, number)) = table.find_or_insert(key, d, value) {
                    names[d.0 as usize].replace = earlier.0;
                    value = number;
                }
            }
            let name = &mut names[d.0 as usize];
            name.stamp = stamp;
            name.value = value;
            next_value = next_value.wrapping_add(1);
        }
        if let Some(m) = block.term.uses() {
            if let Some(r) = names.get(m.0 as usize).filter(|n| n.replace != NONE) {
                block.term = retarget_mask(block.term, Var(r.replace));
                rewritten += 1;
            }
        }
    }
    rewritten
}

/// `Name::replace` when there is none.
const NONE: u32 = u32::MAX;

/// What the pass knows of a variable (one record, so one cache line per operand).
#[derive(Clone, Copy)]
struct Name {
    /// How many instructions of the function write it.
    writes: u32,
    /// The earlier variable whose value it repeats ([`NONE`]: none); both are written once,
    /// so the replacement holds in every block.
    replace: u32,
    /// The block that last wrote it, and the value number it then got: a repeat takes the
    /// number of the value it repeats (its reads become reads of that value).
    stamp: u32,
    value: u32,
}

impl Default for Name {
    fn default() -> Name {
        Name {
            writes: 0,
            replace: NONE,
            stamp: u32::MAX,
            value: 0,
        }
    }
}

/// An instruction's value: operation, immediates and the value numbers of its operands
/// (unused operand positions 0), packed in three words.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key([u64; 3]);

impl Key {
    /// A multiplicative hash whose top bits index the table.
    fn hash(&self) -> u64 {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        self.0
            .iter()
            .fold(0u64, |h, &w| (h.rotate_left(23) ^ w).wrapping_mul(K))
    }
}

/// The instructions seen in the current block: the keys in insertion order, and an index over
/// them by linear probing in a power-of-two array of 8-byte slots at most half full. A slot
/// holds a tag (the hash's low half, never 0) and the key's position + 1 (0: empty); a slot
/// naming a key of an earlier block is empty too, so [`Table::empty`] only moves a mark.
struct Table<'a> {
    slots: &'a mut Vec<(u32, u32)>,
    keys: &'a mut Vec<(Key, Var, u32)>,
    /// 64 − log2 of the slot count: the hash's top bits index the array.
    shift: u32,
    /// Position in `keys` of the current block's first key.
    first: usize,
}

impl<'a> Table<'a> {
    /// A table for up to `entries` entries per block, in the given (emptied) arrays.
    fn new(
        entries: usize,
        slots: &'a mut Vec<(u32, u32)>,
        keys: &'a mut Vec<(Key, Var, u32)>,
    ) -> Table<'a> {
        let len = (2 * entries).max(16).next_power_of_two();
        slots.clear();
        slots.resize(len, (0, 0));
        keys.clear();
        keys.reserve(entries);
        Table {
            slots,
            keys,
            shift: 64 - len.trailing_zeros(),
            first: 0,
        }
    }

    /// Forgets every entry.
    fn empty(&mut self) {
        self.first = self.keys.len();
    }

    /// The result recorded for `key` and its value number, or `None` after recording `var`
    /// and `value`.
    fn find_or_insert(&mut self, key: Key, var: Var, value: u32) -> Option<(Var, u32)> {
        let mask = self.slots.len() - 1;
        let hash = key.hash();
        let tag = (hash as u32).max(1);
        let mut i = (hash >> self.shift) as usize;
        loop {
            let (t, at) = self.slots[i];
            let at = at as usize;
            if at <= self.first {
                self.keys.push((key, var, value));
                self.slots[i] = (tag, self.keys.len() as u32);
                return None;
            }
            if t == tag && self.keys[at - 1].0 == key {
                let (_, var, value) = self.keys[at - 1];
                return Some((var, value));
            }
            i = (i + 1) & mask;
        }
    }
}

/// The terminator reading mask `m` instead of its own.
fn retarget_mask(term: Terminator, m: Var) -> Terminator {
    match term {
        Terminator::BranchUniform { then, other, .. } => Terminator::BranchUniform {
            mask: m,
            then,
            other,
        },
        Terminator::BranchAny { then, other, .. } => Terminator::BranchAny {
            mask: m,
            then,
            other,
        },
        Terminator::Jump(_)
        | Terminator::BranchBool { .. }
        | Terminator::LoopNext { .. }
        | Terminator::Exit => term,
    }
}
