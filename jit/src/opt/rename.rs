//! Splitting variables into their values: a PICA register component is one IR variable
//! written many times, and the register allocator gives a variable one location for the hull
//! of all its live ranges, so a register written at the start and again at the end of a shader
//! holds a register (or a spill slot) across everything in between. [`split_defs`] gives each
//! definition whose value cannot leave its block — the block writes the variable again later,
//! or the variable is dead at the block's end — a fresh variable, and renames the reads of that
//! value. What is left under the old name is only the value that flows into other blocks.
//!
//! Fresh variables have one definition each, which the analyses that look for single
//! definitions (common subexpressions, rematerialization, batch invariance) then see.
//!
//! [`renumber`] gives the variables that cross block boundaries the lowest numbers: liveness
//! sets are bit sets sized by the highest variable they hold, so a late-numbered variable that
//! a later pass (common-subexpression elimination) makes cross a block would otherwise make
//! every set of a large function wide.

use crate::ir::{Function, Var};

use super::liveness;

/// Renames block-local values of variables written more than once (see the module docs).
/// Returns how many definitions got a fresh variable.
pub fn split_defs(func: &mut Function) -> usize {
    let n = func.vars.len();
    let mut defs = vec![0u32; n];
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let Some(d) = inst.dst {
            defs[d.0 as usize] += 1;
        }
    }
    // Every variable has one value (straight code whose builder forwarded its register
    // writes): nothing to rename.
    if defs.iter().all(|&d| d <= 1) {
        return 0;
    }
    // A function whose blocks all end without a successor (one block that exits) has nothing
    // live out of any block: its liveness need not be computed.
    let crossing = func.blocks.iter().any(|b| !b.term.successors().is_empty());
    let live = crossing.then(|| liveness(func));
    // Per variable, stamped by block: index of its last definition in the block, and its
    // current fresh name.
    // (`last_def` only matters where a value can escape: not without liveness.)
    let mut last_def: Vec<(u32, usize)> = match live {
        Some(_) => vec![(u32::MAX, 0); n],
        None => Vec::new(),
    };
    let mut current: Vec<(u32, Var)> = vec![(u32::MAX, Var(0)); n];
    let mut renamed = 0;
    let mut vars = std::mem::take(&mut func.vars);
    for (b, block) in func.blocks.iter_mut().enumerate() {
        let stamp = b as u32;
        if live.is_some() {
            for (i, inst) in block.insts.iter().enumerate() {
                if let Some(d) = inst.dst {
                    last_def[d.0 as usize] = (stamp, i);
                }
            }
        }
        let name = |current: &[(u32, Var)], v: Var| match current.get(v.0 as usize) {
            Some(&(s, fresh)) if s == stamp => fresh,
            _ => v,
        };
        for (i, inst) in block.insts.iter_mut().enumerate() {
            let k = inst.op.args().len();
            for a in &mut inst.args[..k] {
                *a = name(&current, *a);
            }
            let Some(d) = inst.dst else { continue };
            let x = d.0 as usize;
            if x >= n {
                continue;
            }
            let escapes = live.as_ref().is_some_and(|l| {
                last_def[x] == (stamp, i) && l.is_live_out(crate::ir::BlockId(b as u32), d)
            });
            if escapes || defs[x] == 1 {
                // The variable's value leaves the block, or it has only this one value.
                current[x] = (u32::MAX, Var(0));
            } else {
                let fresh = Var(vars.len() as u32);
                vars.push(vars[x]);
                inst.dst = Some(fresh);
                current[x] = (stamp, fresh);
                renamed += 1;
            }
        }
        block.term = block.term.map_use(|m| name(&current, m));
    }
    func.vars = vars;
    renamed
}

/// Renumbers the variables: those read in some block before it writes them (the only ones that
/// can be live across a block boundary) first, each group in its old order. Returns how many
/// variables changed number.
pub fn renumber(func: &mut Function) -> usize {
    let n = func.vars.len();
    let mut crossing = vec![false; n];
    let mut local: Vec<u32> = vec![u32::MAX; n];
    for (b, block) in func.blocks.iter().enumerate() {
        let stamp = b as u32;
        for inst in &block.insts {
            for a in inst.uses() {
                if local[a.0 as usize] != stamp {
                    crossing[a.0 as usize] = true;
                }
            }
            if let Some(d) = inst.dst {
                local[d.0 as usize] = stamp;
            }
        }
        if let Some(m) = block.term.uses() {
            if local[m.0 as usize] != stamp {
                crossing[m.0 as usize] = true;
            }
        }
    }
    let order: Vec<usize> = (0..n)
        .filter(|&i| crossing[i])
        .chain((0..n).filter(|&i| !crossing[i]))
        .collect();
    let mut new_of = vec![0u32; n];
    for (new, &old) in order.iter().enumerate() {
        new_of[old] = new as u32;
    }
    let moved = order
        .iter()
        .enumerate()
        .filter(|(new, &old)| *new != old)
        .count();
    if moved == 0 {
        return 0;
    }
    func.rename_vars(|v| Var(new_of[v.0 as usize]));
    func.vars = order.iter().map(|&old| func.vars[old]).collect();
    moved
}
