//! CFG clean-up and checks: predecessor counts, branch folding, jump threading, removal of
//! unreachable blocks, merging of straight-line chains, and the termination check
//! [`budget_bounds_cycles`].

use crate::ir::{Block, BlockId, Function, Op, Terminator};

/// The predecessors of every block (a block appears once per edge, so a two-way branch to
/// the same block counts twice).
pub fn predecessors(func: &Function) -> Vec<Vec<BlockId>> {
    let mut preds = vec![Vec::new(); func.blocks.len()];
    for (b, block) in func.blocks.iter().enumerate() {
        for s in block.term.successors() {
            if let Some(p) = preds.get_mut(s.0 as usize) {
                p.push(BlockId(b as u32));
            }
        }
    }
    preds
}

/// Simplifies the CFG without changing what the function computes:
/// 1. a branch whose two targets are the same block becomes a jump (its condition is a pure
///    read, so nothing is lost);
/// 2. edges to an empty block that only jumps on are redirected to its final target;
/// 3. blocks unreachable from block 0 are removed;
/// 4. a block ending in a jump to a block that has no other predecessor (and is not the entry)
///    absorbs it.
///
/// Surviving blocks keep their relative order, and block 0 stays the entry.
pub fn simplify_cfg(func: &mut Function) {
    if func.blocks.is_empty() {
        return;
    }
    if let [only] = &mut func.blocks[..] {
        // One block (straight code as the frontend builds it): threading, reachability and
        // merging have nothing to change; only a branch to it twice becomes a jump.
        only.term = fold(only.term);
        return;
    }
    for block in &mut func.blocks {
        block.term = fold(block.term);
    }
    thread_jumps(func);
    remove_unreachable(func);
    merge_chains(func);
    remove_unreachable(func);
}

fn fold(term: Terminator) -> Terminator {
    match term {
        Terminator::BranchBool { then, other, .. }
        | Terminator::BranchUniform { then, other, .. }
        | Terminator::BranchAny { then, other, .. }
            if then == other =>
        {
            Terminator::Jump(then)
        }
        Terminator::BranchBool { .. }
        | Terminator::BranchUniform { .. }
        | Terminator::BranchAny { .. }
        | Terminator::LoopNext { .. }
        | Terminator::Jump(_)
        | Terminator::Exit => term,
    }
}

fn thread_jumps(func: &mut Function) {
    let n = func.blocks.len();
    let forward: Vec<Option<BlockId>> = func
        .blocks
        .iter()
        .map(|b| match b.term {
            Terminator::Jump(t) if b.insts.is_empty() => Some(t),
            Terminator::Jump(_)
            | Terminator::BranchBool { .. }
            | Terminator::BranchUniform { .. }
            | Terminator::BranchAny { .. }
            | Terminator::LoopNext { .. }
            | Terminator::Exit => None,
        })
        .collect();
    // The final target of every block, each chain walked once (a long chain of empty blocks,
    // as code running through zeroed memory gives, would otherwise cost quadratic time). A
    // chain that ends in a cycle of empty blocks resolves to the first block of the cycle.
    let mut done: Vec<Option<BlockId>> = vec![None; n];
    let mut on_path = vec![false; n];
    let mut path = Vec::new();
    for start in 0..n {
        let mut t = BlockId(start as u32);
        let target = loop {
            let i = t.0 as usize;
            if i >= n {
                break t;
            }
            if let Some(d) = done[i] {
                break d;
            }
            if on_path[i] {
                break t;
            }
            match forward[i] {
                Some(next) => {
                    on_path[i] = true;
                    path.push(i);
                    t = next;
                }
                None => break t,
            }
        };
        for i in path.drain(..) {
            on_path[i] = false;
            done[i] = Some(target);
        }
    }
    let resolve = |t: BlockId| done.get(t.0 as usize).copied().flatten().unwrap_or(t);
    for block in &mut func.blocks {
        block.term = block.term.map_targets(resolve);
        block.term = fold(block.term);
    }
}

fn reachable(func: &Function) -> Vec<bool> {
    let mut seen = vec![false; func.blocks.len()];
    let mut stack = vec![0usize];
    seen[0] = true;
    while let Some(b) = stack.pop() {
        for s in func.blocks[b].term.successors() {
            let s = s.0 as usize;
            if s < seen.len() && !seen[s] {
                seen[s] = true;
                stack.push(s);
            }
        }
    }
    seen
}

fn remove_unreachable(func: &mut Function) {
    let keep = reachable(func);
    let mut renumber = vec![BlockId(0); func.blocks.len()];
    let mut next = 0u32;
    for (b, &k) in keep.iter().enumerate() {
        if k {
            renumber[b] = BlockId(next);
            next += 1;
        }
    }
    // In place: the kept blocks move down, in order, and the vector keeps its room.
    if next as usize != keep.len() {
        let mut b = 0;
        func.blocks.retain(|_| {
            b += 1;
            keep[b - 1]
        });
    }
    let r = |t: BlockId| renumber[t.0 as usize];
    for block in &mut func.blocks {
        block.term = block.term.map_targets(r);
    }
}

fn merge_chains(func: &mut Function) {
    let n = func.blocks.len();
    // Edges into each block (a two-way branch to one block counts twice).
    let mut preds = vec![0u32; n];
    for block in &func.blocks {
        for s in block.term.successors() {
            if let Some(p) = preds.get_mut(s.0 as usize) {
                *p += 1;
            }
        }
    }
    let mut absorbed = vec![false; n];
    // The block `a` absorbs next, if any.
    let next =
        |a: usize, t: usize, absorbed: &[bool]| t != a && t != 0 && !absorbed[t] && preds[t] == 1;
    for a in 0..n {
        if absorbed[a] {
            continue;
        }
        // Room for the whole chain first (one allocation, not one per absorbed block).
        let mut extra = 0;
        let mut at = a;
        while let Terminator::Jump(t) = func.blocks[at].term {
            let t = t.0 as usize;
            if !next(a, t, &absorbed) {
                break;
            }
            extra += func.blocks[t].insts.len();
            at = t;
        }
        if extra == 0 && at == a {
            continue;
        }
        func.blocks[a].insts.reserve(extra);
        while let Terminator::Jump(t) = func.blocks[a].term {
            let b = t.0 as usize;
            if !next(a, b, &absorbed) {
                break;
            }
            let taken = std::mem::replace(
                &mut func.blocks[b],
                Block {
                    insts: Vec::new(),
                    term: Terminator::Exit,
                },
            );
            absorbed[b] = true;
            func.blocks[a].insts.extend(taken.insts);
            func.blocks[a].term = taken.term;
        }
    }
}

/// True if every cycle of the CFG passes through a block containing a `budget` operation, so
/// that any execution ends after at most (budget + 1) × (number of blocks) block visits.
pub fn budget_bounds_cycles(func: &Function) -> bool {
    let n = func.blocks.len();
    let spends: Vec<bool> = func
        .blocks
        .iter()
        .map(|b| b.insts.iter().any(|i| i.op == Op::Budget))
        .collect();
    // The graph without the spending blocks must be acyclic (iterative three-colour DFS).
    let mut colour = vec![0u8; n];
    for start in 0..n {
        if spends[start] || colour[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        colour[start] = 1;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let succs = func.blocks[b].term.successors();
            if let Some(s) = succs.get(*next) {
                *next += 1;
                let s = s.0 as usize;
                if s >= n || spends[s] {
                    continue;
                }
                match colour[s] {
                    0 => {
                        colour[s] = 1;
                        stack.push((s, 0));
                    }
                    1 => return false,
                    _ => {}
                }
            } else {
                colour[b] = 2;
                stack.pop();
            }
        }
    }
    true
}
