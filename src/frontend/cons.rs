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
//!
//! The reads of inputs and directly addressed uniforms (`Input` and `Uniform` with a register
//! and a component) are not hashed: a table with an entry per register component holds them
//! ([`Values::read`]), which the ALU lowering also looks at before it makes a read at all.

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

/// A table's slots, keys and reads (see [`Values`]).
type Arrays = (Vec<u32>, Vec<(Key, Var)>, Vec<Var>);

/// The first entry of [`Values::read`] for uniforms (those before are the 16 inputs').
const READ_UNIFORMS: usize = 4 * 16;

/// Entries of [`Values::read`]: 16 inputs and 96 uniforms, 4 components each.
const READS: usize = READ_UNIFORMS + 4 * 96;

/// An entry of [`Values::read`] with no read yet.
const NO_READ: Var = Var(u32::MAX);

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
            let keys = std::mem::take(&mut self.keys);
            KEPT.set(Some((slots, keys, std::mem::take(&mut self.reads))));
        }
    }
}

/// The pure instructions emitted so far and the variables holding their values: the keys in
/// insertion order, and an index over them by linear probing in a power-of-two array of
/// positions + 1 (0: empty), at most half full; input and uniform reads by register component
/// instead.
#[derive(Debug)]
pub(super) struct Values {
    /// Whether the builder hash-conses (the function is one block of single writes).
    pub on: bool,
    slots: Vec<u32>,
    keys: Vec<(Key, Var)>,
    /// Per input component (`4·v + c`), then per uniform component (`64 + 4·u + c`): the
    /// variable of its read ([`NO_READ`]: none yet). Empty when off.
    reads: Vec<Var>,
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
            reads: Vec::new(),
            shift: 64,
        }
    }

    /// A table that is on, with room for `room` instructions before it grows (in the memory
    /// the thread's previous table left, [`KEPT`]).
    pub(super) fn with_room(room: usize) -> Values {
        let len = (2 * room).max(16).next_power_of_two();
        let (mut slots, mut keys, mut reads) = KEPT.take().unwrap_or_default();
        slots.clear();
        slots.resize(len, 0);
        keys.clear();
        keys.reserve(room);
        reads.clear();
        reads.resize(READS, NO_READ);
        Values {
            on: true,
            slots,
            keys,
            reads,
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

    /// The variable holding `key`'s value, or `None` after recording `next` as holding it
    /// (reads go by [`Values::find_or_record`]).
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

    /// The entry of [`Values::read`] that `op` with immediates `imm` stands for, if it is an
    /// `Input` (registers 0–15) or `Uniform` (0–95) read of a component.
    #[inline(always)]
    pub(super) fn read_entry(op: Op, imm: [u32; 2]) -> Option<usize> {
        let at = 4 * imm[0] as usize + imm[1] as usize;
        if op == Op::Input {
            (imm[0] < 16 && imm[1] < 4).then_some(at)
        } else if op == Op::Uniform {
            (imm[0] < 96 && imm[1] < 4).then_some(READ_UNIFORMS + at)
        } else {
            None
        }
    }

    /// The variable of the function's read of entry `k` (component `c` of input `v` at
    /// `4·v + c`, of uniform `u` at `64 + 4·u + c`: [`Values::read_entry`]), if it made one
    /// (never when off).
    #[inline(always)]
    pub(super) fn read(&self, k: usize) -> Option<Var> {
        self.reads.get(k).copied().filter(|&r| r != NO_READ)
    }

    /// The variable holding the value of `op` of `args` and `imm`, or `None` after recording
    /// `next` as holding it: reads by their entry ([`Values::read_entry`]; `Input` and
    /// `Uniform` take no operands), every other instruction by its key.
    #[inline(always)]
    pub(super) fn find_or_record(
        &mut self,
        op: Op,
        args: [Var; 3],
        imm: [u32; 2],
        next: Var,
    ) -> Option<Var> {
        if let Some(k) = Values::read_entry(op, imm) {
            let read = &mut self.reads[k];
            if *read != NO_READ {
                return Some(*read);
            }
            *read = next;
            return None;
        }
        self.get_or_insert(Key::new(op, args, imm), next)
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
            if let Some(v) = self.find_or_record(op, a, imm, next) {
                return v;
            }
        }
        b.inst(op, args, imm)
    }

    /// `op` of no operands and `imm` into `dst` (written nowhere else), or (on) the variable of
    /// the same instruction emitted before, emitting nothing.
    pub(super) fn leaf_to(&mut self, b: &mut Builder, op: Op, dst: Var, imm: [u32; 2]) -> Var {
        if self.on {
            if let Some(v) = self.find_or_record(op, [Var(0); 3], imm, dst) {
                return v;
            }
        }
        b.inst_to(op, dst, &[], imm);
        dst
    }
}

#[cfg(test)]
mod tests;
