//! Local common-subexpression elimination: within a block, a pure instruction that repeats an
//! earlier one — the same operation, immediates and operands, no operand written in between —
//! reuses the earlier result, when both results are variables written nowhere else (the
//! frontend's temporaries). Inputs, uniforms and constants cannot change during an
//! invocation; `UniformAl` reads aL, which loop effects change, and is left alone. This shrinks
//! the IR the frontend emits per use (leaves) and per component (`mul r0.xyz, c.y, r1.x`
//! computes one product three times).

use rustc_hash::FxHashMap;

use crate::ir::{Function, Op, Var};

/// An instruction's value: operation, immediates, operands with the number of writes each had
/// seen in the block when it was read.
type Key = (Op, [u32; 2], [(Var, u32); 3]);

/// Rewrites uses of repeated results; the repeats become dead (run [`super::dce`] after).
/// Returns how many uses were rewritten.
pub fn cse(func: &mut Function) -> usize {
    let mut writes = vec![0u32; func.vars.len()];
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let Some(d) = inst.dst {
            writes[d.0 as usize] += 1;
        }
    }
    let mut rewritten = 0;
    // Replacement per variable (both sides are written once, so one table serves all blocks).
    let mut replace: Vec<Option<Var>> = vec![None; func.vars.len()];
    let mut first: FxHashMap<Key, Var> = FxHashMap::default();
    // The keys the current block added: removed one by one after it (clearing the table
    // would cost its whole capacity per block, quadratic over many small blocks).
    let mut added: Vec<Key> = Vec::new();
    // Writes of each variable so far in the current block (stamped by block).
    let mut version = vec![(u32::MAX, 0u32); func.vars.len()];
    for (b, block) in func.blocks.iter_mut().enumerate() {
        let b = b as u32;
        for key in added.drain(..) {
            first.remove(&key);
        }
        for inst in &mut block.insts {
            let n = inst.op.args().len();
            for a in &mut inst.args[..n] {
                if let Some(r) = replace[a.0 as usize] {
                    *a = r;
                    rewritten += 1;
                }
            }
            let Some(d) = inst.dst else { continue };
            if inst.is_pure() && inst.op != Op::UniformAl && writes[d.0 as usize] == 1 {
                let mut args = [(Var(0), 0); 3];
                for (k, &a) in inst.args[..n].iter().enumerate() {
                    let (stamp, count) = version[a.0 as usize];
                    args[k] = (a, if stamp == b { count } else { 0 });
                }
                match first.get(&(inst.op, inst.imm, args)) {
                    Some(&earlier) => replace[d.0 as usize] = Some(earlier),
                    None => {
                        first.insert((inst.op, inst.imm, args), d);
                        added.push((inst.op, inst.imm, args));
                    }
                }
            }
            let v = &mut version[d.0 as usize];
            *v = if v.0 == b { (b, v.1 + 1) } else { (b, 1) };
        }
        if let Some(m) = block.term.uses() {
            if let Some(r) = replace[m.0 as usize] {
                block.term = retarget_mask(block.term, r);
                rewritten += 1;
            }
        }
    }
    rewritten
}

/// The terminator reading mask `m` instead of its own.
fn retarget_mask(term: crate::ir::Terminator, m: Var) -> crate::ir::Terminator {
    use crate::ir::Terminator;
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
