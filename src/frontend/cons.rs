//! Hash-consing while building: where the function is one straight block whose variables are
//! each written once (`Regs::forward`), the builder keeps a table of the pure instructions it
//! emitted, keyed by operation, immediates and operands, and a repeated instruction names the
//! earlier result instead of being emitted again. That is what local common-subexpression
//! elimination ([`picajit_codegen::opt::cse`]) would find afterwards, so such a function skips
//! that pass. Off (any other function), every instruction is emitted and CSE runs as before.
//!
//! Only instructions whose operands are written once may go in: with registers and outputs
//! forwarded (`Regs::forward`), those are the ALU lowering's fresh variables and the
//! register values, the registers' and outputs' initial constants and a geometry shader's
//! constants; every write there points the register at a value, so no result is ever copied
//! into a variable written again.

use picajit_codegen::ir::{Builder, Op, Var};

/// One instruction's value: operation, immediates and operands (unused positions `Var(0)`),
/// packed in three words.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Key([u64; 3]);

impl Key {
    #[inline]
    pub(super) fn new(op: Op, args: [Var; 3], imm: [u32; 2]) -> Key {
        Key([
            u64::from(op as u32) | u64::from(imm[0]) << 32,
            u64::from(imm[1]) | u64::from(args[0].0) << 32,
            u64::from(args[1].0) | u64::from(args[2].0) << 32,
        ])
    }

    /// A multiplicative hash whose top bits index the table.
    #[inline]
    fn hash(&self) -> u64 {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let [a, b, c] = self.0;
        ((a.wrapping_mul(K) ^ b).wrapping_mul(K) ^ c).wrapping_mul(K)
    }
}

/// A table's slots and keys (see [`Values`]).
type Arrays = (Vec<u32>, Vec<(Key, Var)>);

thread_local! {
    /// The arrays of the thread's last table, kept for the next: a build then works in pages
    /// it touched before instead of faulting fresh ones in (as `opt::cse` keeps its own).
    static KEPT: std::cell::Cell<Option<Arrays>> = const { std::cell::Cell::new(None) };
}

/// Arrays holding more than this many slots and keys together (a few MB) are freed after the
/// build rather than kept.
const KEEP_AT_MOST: usize = 1 << 18;

impl Drop for Values {
    fn drop(&mut self) {
        if self.on && self.slots.capacity() + self.keys.capacity() <= KEEP_AT_MOST {
            let slots = std::mem::take(&mut self.slots);
            KEPT.set(Some((slots, std::mem::take(&mut self.keys))));
        }
    }
}

/// The pure instructions emitted so far and the variables holding their values: the keys in
/// insertion order, and an index over them by linear probing in a power-of-two array of
/// positions + 1 (0: empty), at most half full.
#[derive(Debug)]
pub(super) struct Values {
    /// Whether the builder hash-conses (the function is one block of single writes).
    pub on: bool,
    slots: Vec<u32>,
    keys: Vec<(Key, Var)>,
    /// 64 − log2 of the slot count.
    shift: u32,
}

impl Values {
    /// A table that is off (and holds no memory).
    pub(super) fn off() -> Values {
        Values {
            on: false,
            slots: Vec::new(),
            keys: Vec::new(),
            shift: 64,
        }
    }

    /// A table that is on, with room for `room` instructions before it grows (in the memory
    /// the thread's previous table left, [`KEPT`]).
    pub(super) fn with_room(room: usize) -> Values {
        let len = (2 * room).max(16).next_power_of_two();
        let (mut slots, mut keys) = KEPT.take().unwrap_or_default();
        slots.clear();
        slots.resize(len, 0);
        keys.clear();
        keys.reserve(room);
        Values {
            on: true,
            slots,
            keys,
            shift: 64 - len.trailing_zeros(),
        }
    }

    /// The slot of `key`: its entry's, or the empty one where it would go.
    #[inline]
    fn probe(&self, key: Key) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = (key.hash() >> self.shift) as usize;
        loop {
            let at = self.slots[i] as usize;
            if at == 0 || self.keys[at - 1].0 == key {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// The variable holding `key`'s value, or `None` after recording `next` as holding it.
    /// Always inlined: called out of line (as codegen chose after unrelated changes), it
    /// costs about 100 k more host instructions per straight:500 compile.
    #[inline(always)]
    pub(super) fn get_or_insert(&mut self, key: Key, next: Var) -> Option<Var> {
        let i = self.probe(key);
        match self.slots[i] as usize {
            0 => {
                self.keys.push((key, next));
                self.slots[i] = self.keys.len() as u32;
                if 2 * self.keys.len() > self.slots.len() {
                    self.grow();
                }
                None
            }
            at => Some(self.keys[at - 1].1),
        }
    }

    /// Twice the slots, the keys indexed again.
    #[cold]
    fn grow(&mut self) {
        let len = 2 * self.slots.len();
        self.slots.clear();
        self.slots.resize(len, 0);
        self.shift -= 1;
        for n in 0..self.keys.len() {
            let i = self.probe(self.keys[n].0);
            self.slots[i] = n as u32 + 1;
        }
    }

    /// `op` of `args` and `imm` into a new variable, or (on) the variable of the same
    /// instruction emitted before.
    pub(super) fn inst(&mut self, b: &mut Builder, op: Op, args: &[Var], imm: [u32; 2]) -> Var {
        if self.on {
            let mut a = [Var(0); 3];
            a[..args.len()].copy_from_slice(args);
            let next = Var(b.vars_len() as u32);
            if let Some(v) = self.get_or_insert(Key::new(op, a, imm), next) {
                return v;
            }
        }
        b.inst(op, args, imm)
    }

    /// `op` of no operands and `imm` into `dst` (written nowhere else), or (on) the variable of
    /// the same instruction emitted before, emitting nothing.
    pub(super) fn leaf_to(&mut self, b: &mut Builder, op: Op, dst: Var, imm: [u32; 2]) -> Var {
        if self.on {
            if let Some(v) = self.get_or_insert(Key::new(op, [Var(0); 3], imm), dst) {
                return v;
            }
        }
        b.inst_to(op, dst, &[], imm);
        dst
    }
}

#[cfg(test)]
mod tests;
