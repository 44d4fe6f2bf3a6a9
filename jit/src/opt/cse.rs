//! Common leaves: within a block, a second `Input`, `Uniform` or `FConst` with the same
//! immediates as an earlier one (whose result variable is written nowhere else) reuses the
//! earlier result. Inputs, uniforms and constants cannot change during an invocation, so this
//! is exact; it shrinks the IR the frontend emits per use and saves loads.

use rustc_hash::FxHashMap;

use crate::ir::{Function, Op, Var};

/// Rewrites uses of duplicate leaves; the duplicates become dead (run [`super::dce`] after).
/// Returns how many uses were rewritten.
pub fn cse_leaves(func: &mut Function) -> usize {
    let mut writes = vec![0u32; func.vars.len()];
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let Some(d) = inst.dst {
            writes[d.0 as usize] += 1;
        }
    }
    let mut rewritten = 0;
    // Replacement per variable (leaf results are written once, so one table serves all blocks).
    let mut replace: Vec<Option<Var>> = vec![None; func.vars.len()];
    let mut first: FxHashMap<(Op, [u32; 2]), Var> = FxHashMap::default();
    for block in &mut func.blocks {
        first.clear();
        for inst in &mut block.insts {
            let n = inst.op.args().len();
            for a in &mut inst.args[..n] {
                if let Some(r) = replace[a.0 as usize] {
                    *a = r;
                    rewritten += 1;
                }
            }
            let leaf = matches!(inst.op, Op::Input | Op::Uniform | Op::FConst);
            if let (true, Some(d)) = (leaf, inst.dst) {
                if writes[d.0 as usize] != 1 {
                    continue;
                }
                match first.get(&(inst.op, inst.imm)) {
                    Some(&earlier) => replace[d.0 as usize] = Some(earlier),
                    None => {
                        first.insert((inst.op, inst.imm), d);
                    }
                }
            }
        }
        // Terminators read masks only, and leaves are never masks: nothing to rewrite there.
    }
    rewritten
}
