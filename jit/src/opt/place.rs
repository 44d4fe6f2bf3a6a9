//! Where input and output instructions sit within their blocks, arranged for the backends' I/O:
//!
//! - [`group_inputs`]: the `Input` reads of one input register in a block are moved up to the
//!   first of them, so a backend loads the register once (an AoS kernel: one transpose of W
//!   vertex rows straight into the component registers) instead of once per component.
//! - [`sink_outputs`]: in a block that ends the invocation, `Output` stores move to the end of
//!   the block (sorted by register and component) and stores that a later store of the block
//!   overwrites are dropped, so a backend can write the vertex outputs straight from the
//!   registers that hold them instead of storing and reloading the output staging lanes.
//!
//! Both are moves of effect-free reads and of stores nothing reads before the block ends; a
//! move that would cross an instruction touching its variable is not made. [`on_cycles`] tells
//! the backends which blocks may run more than once per batch.

use crate::ir::{Function, Inst, Op, Terminator, Ty, Var};

/// Runs [`group_inputs`], [`sink_outputs`] and [`reread_copies`].
pub fn place_io(func: &mut Function) {
    group_inputs(func);
    sink_outputs(func);
    reread_copies(func);
}

/// In every block ending in `Exit`: an output register whose four trailing stores (see
/// [`sink_outputs`]) store components 0–3 of one input register — variables each defined
/// once, by that `Input` — and one of whose variables is also read elsewhere gets four fresh
/// `Input` reads just before the trailing stores, which store those instead. The input
/// never changes during an invocation, so the values are the same; the original variables'
/// lives then end at their last other read, and the backends can copy the whole register
/// (AoS: 16 bytes per vertex) instead of keeping four values to the end. Returns how many
/// registers were rewritten.
pub fn reread_copies(func: &mut Function) -> usize {
    let n = func.vars.len();
    let mut defs = vec![0u32; n];
    let mut uses = vec![0u32; n];
    let mut input_of: Vec<Option<(u32, u32)>> = vec![None; n];
    for block in &func.blocks {
        for inst in &block.insts {
            for u in inst.uses() {
                uses[u.0 as usize] += 1;
            }
            if let Some(d) = inst.dst {
                defs[d.0 as usize] += 1;
                if inst.op == Op::Input {
                    input_of[d.0 as usize] = Some((inst.imm[0] & 15, inst.imm[1] & 3));
                }
            }
        }
        if let Some(m) = block.term.uses() {
            uses[m.0 as usize] += 1;
        }
    }
    let mut rewritten = 0;
    let mut vars = std::mem::take(&mut func.vars);
    for block in &mut func.blocks {
        if block.term != Terminator::Exit {
            continue;
        }
        let len = block.insts.len();
        let start = len
            - block
                .insts
                .iter()
                .rev()
                .take_while(|i| i.op == Op::Output)
                .count();
        // Per output register, in one pass over the stores: the first four of them (in block
        // order) and how many there are.
        let mut by_reg = [([0usize; 4], 0usize); 16];
        for i in start..len {
            let (at, count) = &mut by_reg[(block.insts[i].imm[0] & 15) as usize];
            if let Some(slot) = at.get_mut(*count) {
                *slot = i;
            }
            *count += 1;
        }
        let mut fresh: Vec<Inst> = Vec::new();
        for (stores, count) in by_reg {
            if count != 4 {
                continue;
            }
            let mut from = None;
            let mut shared = false;
            let whole = stores.iter().all(|&i| {
                let (v, c) = (block.insts[i].args[0], block.insts[i].imm[1] & 3);
                let k = v.0 as usize;
                shared |= uses[k] > 1;
                match input_of[k] {
                    Some((r, comp)) if comp == c && defs[k] == 1 => {
                        from.get_or_insert(r);
                        from == Some(r)
                    }
                    Some(_) | None => false,
                }
            });
            let (true, true, Some(r)) = (whole, shared, from) else {
                continue;
            };
            for &i in &stores {
                let c = block.insts[i].imm[1] & 3;
                let v = Var(vars.len() as u32);
                vars.push(Ty::F32);
                fresh.push(Inst {
                    op: Op::Input,
                    dst: Some(v),
                    args: [Var(0); 3],
                    imm: [r, c],
                });
                block.insts[i].args[0] = v;
            }
            rewritten += 1;
        }
        block.insts.splice(start..start, fresh);
    }
    func.vars = vars;
    rewritten
}

/// Moves every `Input` read of a block up to the first read of the same input register in that
/// block, unless its variable is read or written in between. Returns how many moved.
///
/// A block is first scanned for reads that could join an earlier one (a register read before,
/// not just before); only a block with such a read is walked for the touches of variables, and
/// only from the earliest first read those reads join. The moves are made in place, from the
/// block's end: every instruction moves toward the end or stays, so nothing is overwritten
/// before it is read.
pub fn group_inputs(func: &mut Function) -> usize {
    // Function-wide position + 1 of the last read or write of each variable seen by a walk (0:
    // none); positions of earlier blocks are below the current block's first, so this is
    // never reset. Allocated by the first block that needs it.
    let mut touched: Vec<u32> = Vec::new();
    // Reads that may join (block positions), those that do, and their instructions.
    let mut maybe: Vec<u32> = Vec::with_capacity(64);
    let mut joins: Vec<u32> = Vec::with_capacity(64);
    let mut joined: Vec<Inst> = Vec::with_capacity(64);
    let mut base = 0u32;
    let mut moved = 0;
    for block in &mut func.blocks {
        let n = block.insts.len();
        // Per register: the block position of its first read ([`NO_READ`]: none yet).
        let mut first = [NO_READ; 16];
        maybe.clear();
        for (i, inst) in block.insts.iter().enumerate() {
            if inst.op == Op::Input {
                let f = &mut first[(inst.imm[0] & 15) as usize];
                if *f == NO_READ {
                    *f = i as u32;
                } else if *f as usize + 1 < i && inst.dst.is_some() {
                    maybe.push(i as u32);
                }
            }
        }
        if maybe.is_empty() {
            base += n as u32;
            continue;
        }
        if touched.is_empty() {
            touched = vec![0; func.vars.len()];
        }
        let reg = |inst: &Inst| (inst.imm[0] & 15) as usize;
        // Touches before the earliest joined first read cannot stop a join.
        let from = maybe
            .iter()
            .map(|&i| first[reg(&block.insts[i as usize])])
            .min()
            .unwrap_or(0) as usize;
        let last = maybe.last().copied().unwrap_or(0) as usize;
        let mut next = maybe.iter().copied().peekable();
        joins.clear();
        for (k, inst) in block.insts[from..=last].iter().enumerate() {
            let i = from + k;
            if next.peek() == Some(&(i as u32)) {
                next.next();
                let f = first[reg(inst)];
                let free = inst
                    .dst
                    .and_then(|d| touched.get(d.0 as usize))
                    .is_some_and(|&t| t <= base + f);
                if free {
                    joins.push(i as u32);
                }
            }
            let at = base + i as u32 + 1;
            for v in inst.uses().iter().chain(inst.dst.as_ref()) {
                if let Some(t) = touched.get_mut(v.0 as usize) {
                    *t = at;
                }
            }
        }
        base += n as u32;
        if joins.is_empty() {
            continue;
        }
        moved += joins.len();
        joined.clear();
        joined.extend(joins.iter().map(|&i| block.insts[i as usize]));
        // From the last join back: `w` is where the next instruction goes (exclusive), `j`
        // the joins not passed yet. What follows the last join, and what precedes the first
        // read the joins go to, stays where it is.
        let insts = &mut block.insts;
        let end = joins.last().map_or(0, |&i| i as usize);
        let mut w = end + 1;
        let mut j = joins.len();
        for i in (0..=end).rev() {
            if j == 0 && w == i + 1 {
                break;
            }
            if j > 0 && joins[j - 1] as usize == i {
                j -= 1;
                continue;
            }
            let inst = insts[i];
            if inst.op == Op::Input && first[reg(&inst)] as usize == i {
                for later in joined.iter().rev().filter(|l| reg(l) == reg(&inst)) {
                    w -= 1;
                    insts[w] = *later;
                }
            }
            w -= 1;
            insts[w] = inst;
        }
    }
    moved
}

/// [`group_inputs`]'s mark of a register not read yet in the block.
const NO_READ: u32 = u32::MAX;

/// In every block ending in `Exit`: an `Output` store followed in the block by another store
/// to the same component is dropped; the others move to the end of the block, sorted by
/// (register, component), unless their variable is written after them or an instruction that
/// can observe the outputs (`Emit`, `Budget`, `Retire`) follows them. Returns how many stores were
/// dropped or moved.
pub fn sink_outputs(func: &mut Function) -> usize {
    let mut written_after: Vec<u32> = vec![u32::MAX; func.vars.len()];
    let mut changed = 0;
    for (b, block) in func.blocks.iter_mut().enumerate() {
        if block.term != Terminator::Exit {
            continue;
        }
        let b = b as u32;
        let n = block.insts.len();
        // Backwards: which stores are dead, which can move.
        let mut fate = vec![Fate::Stay; n];
        let mut later_store = [0u8; 16];
        for (i, inst) in block.insts.iter().enumerate().rev() {
            if matches!(
                inst.op,
                Op::EmitSlot | Op::EmitTri | Op::Budget | Op::Retire
            ) {
                break;
            }
            if inst.op == Op::Output {
                let (r, c) = ((inst.imm[0] & 15) as usize, inst.imm[1] & 3);
                if later_store[r] >> c & 1 != 0 {
                    fate[i] = Fate::Drop;
                } else if written_after[inst.args[0].0 as usize] != b {
                    fate[i] = Fate::Sink;
                }
                later_store[r] |= 1 << c;
            }
            if let Some(d) = inst.dst {
                written_after[d.0 as usize] = b;
            }
        }
        // Already in place: the trailing stores, if sorted and none is dropped.
        let tail = block
            .insts
            .iter()
            .rev()
            .take_while(|i| i.op == Op::Output)
            .count();
        let moving = fate.iter().filter(|f| **f != Fate::Stay).count();
        let in_place = moving == tail
            && fate[n - tail..].iter().all(|f| *f == Fate::Sink)
            && block.insts[n - tail..]
                .windows(2)
                .all(|w| key(&w[0]) < key(&w[1]));
        if moving == 0 || in_place {
            continue;
        }
        let mut sunk: Vec<Inst> = Vec::with_capacity(moving);
        let mut kept: Vec<Inst> = Vec::with_capacity(n);
        for (inst, f) in block.insts.iter().zip(&fate) {
            match f {
                Fate::Stay => kept.push(*inst),
                Fate::Sink => sunk.push(*inst),
                Fate::Drop => {}
            }
        }
        changed += moving;
        sunk.sort_by_key(key);
        kept.extend(sunk);
        block.insts = kept;
    }
    changed
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Stay,
    Sink,
    Drop,
}

fn key(inst: &Inst) -> (u32, u32) {
    (inst.imm[0] & 15, inst.imm[1] & 3)
}

/// Per block: true if it lies on a cycle of the CFG (so it may run more than once per batch).
/// Blocks unreachable from the entry count as on no cycle unless they form one themselves.
pub fn on_cycles(func: &Function) -> Vec<bool> {
    let n = func.blocks.len();
    if let [only] = &func.blocks[..] {
        // Straight code: the one block is on a cycle only through an edge to itself.
        return vec![only.term.successors().iter().any(|s| s.0 == 0)];
    }
    // Tarjan's strongly connected components, iteratively.
    let succs: Vec<Vec<usize>> = func
        .blocks
        .iter()
        .map(|b| {
            b.term
                .successors()
                .iter()
                .map(|s| s.0 as usize)
                .filter(|&s| s < n)
                .collect()
        })
        .collect();
    let mut index = vec![u32::MAX; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut cyclic = vec![false; n];
    let mut next = 0u32;
    for root in 0..n {
        if index[root] != u32::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if let Some(&w) = succs[v].get(*k) {
                *k += 1;
                if w == v {
                    cyclic[v] = true;
                }
                if index[w] == u32::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let start = stack.iter().rposition(|&w| w == v).unwrap_or(0);
                let members = stack.split_off(start);
                for &w in &members {
                    on_stack[w] = false;
                    if members.len() > 1 {
                        cyclic[w] = true;
                    }
                }
            }
        }
    }
    cyclic
}
