//! Dead-code elimination: a pure instruction (one with a result, [`crate::ir::Inst::is_pure`])
//! whose result is not live after it is removed — live in the strong sense, where a removed
//! instruction's operands do not count as used. Effects (`output`, loop and aL operations,
//! `budget`) always stay.
//!
//! The data flow starts from empty sets and only grows them (the least solution), so a value
//! that only feeds itself around a loop (`v = f(v)`, an accumulator nothing else reads) never
//! becomes live: every instruction kept is read, along some path, by an effect, a terminator
//! or another kept instruction, and by induction on the order the facts were found, by an
//! effect or a terminator in the end. So strong liveness alone removes everything a search
//! for the variables effects and terminators depend on would remove, cycles or not.

use crate::ir::{Function, Var};

use super::liveness::{BackwardOrder, Marks, Worklist};
use super::VarSet;

/// Removes dead pure instructions from `func`; returns how many were removed.
///
/// Liveness here is *strong*: an instruction's operands are live before it only if it is kept
/// (an effect, or a pure instruction whose result is live after it), so a whole chain of dead
/// computations across blocks goes in one data-flow solution instead of one layer per round.
pub fn dce(func: &mut Function) -> usize {
    prune(func).0
}

/// [`dce`], then [`super::renumber`]'s numbering with the variables the remaining instructions
/// no longer name left out: the block-crossing variables of the function as it was *before*
/// the removal first, then the others, each group in its old order, numbered densely from 0.
/// Every table a later pass or a backend sizes by the variable count is then sized by the
/// variables still used. The order of the variables that stay is the one [`super::renumber`]
/// followed by [`dce`] gives, so nothing that breaks ties by variable number decides
/// differently. Returns how many instructions were removed.
pub fn dce_renumber(func: &mut Function) -> usize {
    if let Some(removed) = single_block(func) {
        return removed;
    }
    let (crossing, keep) = solve(func);
    drop_and_compact(func, &keep, &crossing)
}

/// Per variable in [`single_block`]: read by a kept instruction after the point of the walk
/// before any write (strong liveness).
const LIVE: u8 = 1;
/// Read by some instruction (kept or not) or the terminator after the point of the walk
/// before any write: at the block's start, a variable the block reads before writing it.
const EXPOSED: u8 = 2;
/// Named by a kept instruction or the terminator.
const NAMED: u8 = 4;

/// [`dce_renumber`] of a function that is one block with no successor (straight-line code),
/// where the data flow is a single backward walk: that walk decides what stays and which
/// variables the block reads before writing (the crossing group) and which stay named; one
/// forward pass then drops and renumbers. `None`, with `func` unchanged, for any other
/// function or an operand that is not a variable of it.
fn single_block(func: &mut Function) -> Option<usize> {
    let [block] = func.blocks.as_slice() else {
        return None;
    };
    if !block.term.successors().is_empty() {
        return None;
    }
    let n = func.vars.len();
    let mut state = vec![0u8; n];
    let mut keep = vec![true; block.insts.len()];
    if let Some(m) = block.term.uses() {
        *state.get_mut(m.0 as usize)? |= LIVE | EXPOSED | NAMED;
    }
    let mut removed = 0;
    for (i, inst) in block.insts.iter().enumerate().rev() {
        let mut mark = LIVE | EXPOSED | NAMED;
        if let Some(d) = inst.dst {
            let s = state.get_mut(d.0 as usize)?;
            if inst.is_pure() && *s & LIVE == 0 {
                keep[i] = false;
                removed += 1;
                *s &= !EXPOSED;
                mark = EXPOSED;
            } else {
                *s = (*s & !(LIVE | EXPOSED)) | NAMED;
            }
        }
        for &u in inst.uses() {
            *state.get_mut(u.0 as usize)? |= mark;
        }
    }
    // The named variables numbered densely: those the block reads before writing first, then
    // the others, each group in its old order (as `compact` numbers them).
    let (mut named, mut exposed) = (0u32, 0u32);
    for &s in &state {
        let kept = u32::from(s & NAMED != 0);
        named += kept;
        exposed += kept & u32::from(s & EXPOSED != 0);
    }
    let mut vars = vec![crate::ir::Ty::F32; named as usize];
    let mut new_of = vec![u32::MAX; n];
    let mut next = [exposed, 0];
    for ((&s, x), &ty) in state.iter().zip(&mut new_of).zip(&func.vars) {
        if s & NAMED != 0 {
            let group = usize::from(s & EXPOSED != 0);
            vars[next[group] as usize] = ty;
            *x = next[group];
            next[group] += 1;
        }
    }
    let block = &mut func.blocks[0];
    let mut kept = keep.iter();
    block.insts.retain_mut(|inst| {
        if !kept.next().copied().unwrap_or(true) {
            return false;
        }
        let k = inst.op.args().len();
        for a in &mut inst.args[..k] {
            *a = Var(new_of[a.0 as usize]);
        }
        inst.dst = inst.dst.map(|d| Var(new_of[d.0 as usize]));
        true
    });
    block.term = block.term.map_use(|m| Var(new_of[m.0 as usize]));
    func.vars = vars;
    Some(removed)
}

/// Renumbers the variables the instructions and terminators of `func` name: those with a
/// number in `crossing` (not `u32::MAX`) first, then the others, each group in its old order;
/// the unnamed ones are dropped. A variable out of range leaves the function as it is.
#[cfg(test)]
fn compact(func: &mut Function, crossing: &[u32]) {
    let mut names = Names::new(func.vars.len());
    for block in &func.blocks {
        for inst in &block.insts {
            names.inst(inst);
        }
        names.term(block);
    }
    names.renumber(func, crossing);
}

/// [`compact`] of `func` after dropping the instructions whose `keep` flag (blocks one after
/// another) is false, with the dropping and the search for named variables in one pass.
/// Returns how many instructions were dropped.
fn drop_and_compact(func: &mut Function, keep: &[bool], crossing: &[u32]) -> usize {
    let mut names = Names::new(func.vars.len());
    let gone = drop_unkept(func, keep, Some(&mut names));
    names.renumber(func, crossing);
    gone
}

/// The variables the instructions and terminators of a function name, found one instruction
/// at a time; then numbered as [`compact`] says.
struct Names {
    /// Per variable: 0 once named, `u32::MAX` before.
    new_of: Vec<u32>,
    /// False once some operand was out of range: the function then stays as it is.
    valid: bool,
}

impl Names {
    fn new(n: usize) -> Names {
        Names {
            new_of: vec![u32::MAX; n],
            valid: true,
        }
    }

    fn name(&mut self, v: Var) {
        match self.new_of.get_mut(v.0 as usize) {
            Some(x) => *x = 0,
            None => self.valid = false,
        }
    }

    fn inst(&mut self, inst: &crate::ir::Inst) {
        for &u in inst.uses() {
            self.name(u);
        }
        if let Some(d) = inst.dst {
            self.name(d);
        }
    }

    fn term(&mut self, block: &crate::ir::Block) {
        if let Some(m) = block.term.uses() {
            self.name(m);
        }
    }

    /// Numbers the named variables (see [`compact`]) and renames them in `func`.
    fn renumber(self, func: &mut Function, crossing: &[u32]) {
        let Names { mut new_of, valid } = self;
        let n = func.vars.len();
        // Both groups numbered in one pass with no branch on the variables' (unpredictable)
        // fates: the next number of each group (the crossing group's size counted first); a
        // dropped variable's type goes to a spare last slot.
        if !valid || crossing.len() != n {
            return;
        }
        let (mut named, mut crossing_named) = (0u32, 0u32);
        for (&x, &c) in new_of.iter().zip(crossing) {
            let kept = u32::from(x != u32::MAX);
            named += kept;
            crossing_named += kept & u32::from(c != u32::MAX);
        }
        let mut vars = vec![crate::ir::Ty::F32; named as usize + 1];
        let mut next = [crossing_named, 0];
        for ((x, &c), &ty) in new_of.iter_mut().zip(crossing).zip(&func.vars) {
            let group = usize::from(c != u32::MAX);
            let number = next[group];
            let kept = *x != u32::MAX;
            vars[if kept { number } else { named } as usize] = ty;
            *x = if kept { number } else { u32::MAX };
            next[group] = number + u32::from(kept);
        }
        vars.truncate(named as usize);
        func.rename_vars(|v| Var(new_of[v.0 as usize]));
        func.vars = vars;
    }
}

/// [`dce`]; also returns, per variable, a dense number if some block of the function as it is
/// on entry reads it before writing it (`u32::MAX` if none does).
///
/// Those are the only variables whose liveness can cross blocks, so the data flow tracks only
/// them in its sets (under their dense numbers). Counting the reads of instructions that go
/// as well only adds variables no remaining block reads before writing them: they never enter
/// a set at a block's start, so the solution is the same.
fn prune(func: &mut Function) -> (usize, Vec<u32>) {
    let (dense, keep) = solve(func);
    (drop_unkept(func, &keep, None), dense)
}

/// The data flow of [`prune`] without its last step: returns the dense numbers of the
/// block-crossing variables and per instruction (blocks one after another) whether strong
/// liveness keeps it.
fn solve(func: &Function) -> (Vec<u32>, Vec<bool>) {
    let dense = crossing(func);
    let n = func.blocks.len();
    let order = BackwardOrder::new(func);
    let mut walk = Walk {
        dense: &dense,
        later: Marks::new(func.vars.len()),
    };
    // Per instruction, blocks one after another (block b's from `at[b]`): whether it stays, as
    // the latest visit of its block decided. A block is visited again whenever the live-in set
    // of one of its successors changes, so its latest visit saw the final sets: its decisions
    // are those of the solution.
    let mut at = Vec::with_capacity(n + 1);
    at.push(0);
    for block in &func.blocks {
        at.push(at[at.len() - 1] + block.insts.len());
    }
    let mut keep = vec![true; at[n]];
    let mut live_in = vec![VarSet::default(); n];
    // The visits' working set, reused (a replaced live-in set becomes the next one).
    let mut set = VarSet::default();
    let mut work = Worklist::full(n);
    while let Some(b) = work.pop(&order) {
        set.clear();
        for s in &order.succs[b] {
            set.union_with(&live_in[s.0 as usize]);
        }
        let kept = &mut keep[at[b]..at[b + 1]];
        walk.block(&func.blocks[b], &mut set, |i, k| kept[i] = k);
        if set != live_in[b] {
            std::mem::swap(&mut live_in[b], &mut set);
            work.push_preds(&order, b);
        }
    }
    (dense, keep)
}

/// Drops the instructions of `func` whose `keep` flag (blocks one after another) is false,
/// telling `names` (if any) what the remaining instructions and terminators name; returns how
/// many were dropped.
fn drop_unkept(func: &mut Function, keep: &[bool], mut names: Option<&mut Names>) -> usize {
    let mut flags = keep.iter();
    let mut gone = 0;
    for block in &mut func.blocks {
        let before = block.insts.len();
        block.insts.retain(|inst| {
            let kept = flags.next().copied().unwrap_or(true);
            if let Some(names) = names.as_deref_mut().filter(|_| kept) {
                names.inst(inst);
            }
            kept
        });
        gone += before - block.insts.len();
        if let Some(names) = names.as_deref_mut() {
            names.term(block);
        }
    }
    gone
}

/// The backward walk of strong liveness through one block.
struct Walk<'a> {
    /// Dense number of each block-crossing variable (`u32::MAX`: block-local).
    dense: &'a [u32],
    /// Block-local variables read later in the block.
    later: Marks,
}

impl Walk<'_> {
    /// Turns `set` from the live block-crossing variables at the end of `block` into those at
    /// its start, telling `keep` for each instruction (by index) whether it stays.
    fn block(
        &mut self,
        block: &crate::ir::Block,
        set: &mut VarSet,
        mut keep: impl FnMut(usize, bool),
    ) {
        self.later.clear();
        let dense = self.dense;
        let live = |v: Var, set: &VarSet, later: &Marks| match dense[v.0 as usize] {
            u32::MAX => later.is_marked(v),
            d => set.contains(Var(d)),
        };
        let read = |v: Var, set: &mut VarSet, later: &mut Marks| match dense[v.0 as usize] {
            u32::MAX => later.mark(v),
            d => {
                set.insert(Var(d));
            }
        };
        if let Some(m) = block.term.uses() {
            read(m, set, &mut self.later);
        }
        for (i, inst) in block.insts.iter().enumerate().rev() {
            if let Some(d) = inst.dst {
                if inst.is_pure() && !live(d, set, &self.later) {
                    keep(i, false);
                    continue;
                }
                match dense[d.0 as usize] {
                    u32::MAX => self.later.unmark(d),
                    x => set.remove(Var(x)),
                }
            }
            keep(i, true);
            for &u in inst.uses() {
                read(u, set, &mut self.later);
            }
        }
    }
}

/// Per variable, a dense number if some block reads it before writing it (`u32::MAX`: none),
/// numbered in the order of those first reads.
struct Crossing {
    /// Per variable: the last block (+ 1) that wrote it, while the blocks are walked in order.
    written_in: Vec<u32>,
    dense: Vec<u32>,
    count: u32,
}

impl Crossing {
    fn new(n: usize) -> Crossing {
        Crossing {
            written_in: vec![0u32; n],
            dense: vec![u32::MAX; n],
            count: 0,
        }
    }

    /// Counts the reads of block `b` (the next in order).
    fn block(&mut self, b: usize, block: &crate::ir::Block) {
        let stamp = b as u32 + 1;
        let Crossing {
            written_in,
            dense,
            count,
        } = self;
        let mut read = |v: Var, written_in: &[u32]| {
            let i = v.0 as usize;
            if written_in.get(i).is_some_and(|&w| w != stamp) && dense[i] == u32::MAX {
                dense[i] = *count;
                *count += 1;
            }
        };
        for inst in &block.insts {
            for &u in inst.uses() {
                read(u, written_in);
            }
            if let Some(w) = inst.dst.and_then(|d| written_in.get_mut(d.0 as usize)) {
                *w = stamp;
            }
        }
        if let Some(m) = block.term.uses() {
            read(m, written_in);
        }
    }
}

/// The block-crossing variables of `func` (see [`Crossing`]).
fn crossing(func: &Function) -> Vec<u32> {
    let mut crossing = Crossing::new(func.vars.len());
    for (b, block) in func.blocks.iter().enumerate() {
        crossing.block(b, block);
    }
    crossing.dense
}

#[cfg(test)]
pub(super) mod tests {
    use super::{compact, drop_and_compact, prune, single_block, solve};
    use crate::ir::{Builder, Function, Op, Terminator, Ty, Var};

    /// A function of `blocks` blocks whose edges all go forward, each block a few random
    /// additions, constants, input reads and output writes over a small pool of variables (so
    /// variables are written many times, read before written, and read only by dead code).
    fn random_acyclic(seed: u64, blocks: usize) -> Function {
        random_function(seed, blocks, false)
    }

    /// [`random_acyclic`], with some branches going back to an earlier block (or the same one)
    /// if `loops`: accumulators that only feed themselves around a cycle appear.
    pub(in crate::opt) fn random_function(seed: u64, blocks: usize, loops: bool) -> Function {
        let mut next = super::super::tests::xorshift(seed);
        let mut b = Builder::new();
        let pool: Vec<Var> = (0..6).map(|_| b.var(Ty::F32)).collect();
        let ids: Vec<_> = (1..blocks).map(|_| b.block()).collect();
        for k in 0..blocks {
            if k > 0 {
                b.switch_to(ids[k - 1]);
            }
            for _ in 0..1 + next(6) {
                let d = pool[next(pool.len())];
                match next(5) {
                    0 => b.inst_to(Op::FConst, d, &[], [next(4) as u32, 0]),
                    1 => b.inst_to(Op::Input, d, &[], [next(4) as u32, 0]),
                    2 => b.effect(Op::Output, &[pool[next(pool.len())]], [next(4) as u32, 0]),
                    _ => {
                        let (x, y) = (pool[next(pool.len())], pool[next(pool.len())]);
                        b.inst_to(Op::Add, d, &[x, y], [0, 0]);
                    }
                }
            }
            let later = blocks - k - 1;
            let term = match later {
                0 => Terminator::Exit,
                _ if loops && k > 0 && next(3) == 0 => Terminator::BranchBool {
                    id: 0,
                    then: ids[next(k)],
                    other: ids[k + next(later)],
                },
                _ if next(3) == 0 => Terminator::BranchBool {
                    id: 0,
                    then: ids[k + next(later)],
                    other: ids[k + next(later)],
                },
                _ => Terminator::Jump(ids[k + next(later)]),
            };
            b.terminate(term);
        }
        b.finish()
    }

    /// The single-block path gives what the general one gives: the same instructions kept,
    /// the same numbering, the same count.
    #[test]
    fn single_block_matches_the_general_path() {
        let mut removed = 0;
        for seed in 0..400 {
            let f = random_acyclic(seed, 1);
            let mut general = f.clone();
            let (count, crossing) = prune(&mut general);
            compact(&mut general, &crossing);
            let mut single = f;
            assert_eq!(single_block(&mut single), Some(count), "seed {seed}");
            assert_eq!(single, general, "seed {seed}");
            removed += count;
        }
        assert!(
            removed > 100,
            "the functions have dead code to remove: {removed}"
        );
    }

    /// The variables a useful-variable pass must keep, by repeating a round over every
    /// instruction until nothing changes.
    fn useful_by_rounds(func: &Function) -> Vec<bool> {
        let mut useful = vec![false; func.vars.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for block in &func.blocks {
                let mut reads: Vec<Var> = block.term.uses().into_iter().collect();
                for inst in &block.insts {
                    if !inst.is_pure() || inst.dst.is_none_or(|d| useful[d.0 as usize]) {
                        reads.extend_from_slice(inst.uses());
                    }
                }
                for v in reads {
                    changed |= !std::mem::replace(&mut useful[v.0 as usize], true);
                }
            }
        }
        useful
    }

    /// True if some block of `func` jumps to itself or to a block before it.
    fn has_back_edge(func: &Function) -> bool {
        func.blocks
            .iter()
            .enumerate()
            .any(|(b, block)| block.term.successors().iter().any(|s| s.0 as usize <= b))
    }

    /// Strong liveness removes the pure instructions writing a variable no effect or
    /// terminator depends on (the reference: [`useful_by_rounds`]) without a pass of its own
    /// for them, on functions with and without cycles: removing those first and then the dead
    /// code gives the same function and count.
    #[test]
    fn strong_liveness_removes_useless_code() {
        let (mut useless, mut cyclic, mut removed) = (0, 0, 0);
        for seed in 0..600 {
            let loops = seed % 3 != 0;
            let f = random_function(seed, 1 + (seed as usize % 9), loops);
            cyclic += usize::from(has_back_edge(&f));
            let useful = useful_by_rounds(&f);
            let mut expected = f.clone();
            let mut gone = 0;
            for block in &mut expected.blocks {
                let before = block.insts.len();
                block
                    .insts
                    .retain(|i| !(i.is_pure() && i.dst.is_some_and(|d| !useful[d.0 as usize])));
                gone += before - block.insts.len();
            }
            let (dead, _) = prune(&mut expected);
            let mut got = f;
            let (count, _) = prune(&mut got);
            assert_eq!(got, expected, "seed {seed}");
            assert_eq!(count, gone + dead, "seed {seed}");
            useless += gone;
            removed += count;
        }
        assert!(cyclic > 200, "functions with cycles: {cyclic}");
        assert!(useless > 100, "the functions have useless code: {useless}");
        assert!(removed > 1000, "the functions have dead code: {removed}");
    }

    /// Dropping and renumbering in one pass gives what [`prune`] then [`compact`] give,
    /// on multi-block functions with and without cycles.
    #[test]
    fn fused_drop_matches_prune_then_compact() {
        let mut removed = 0;
        for seed in 0..400 {
            let loops = seed % 2 == 0;
            let f = random_function(seed, 1 + (seed as usize % 9), loops);
            let mut general = f.clone();
            let (count, crossing) = prune(&mut general);
            compact(&mut general, &crossing);
            let mut fused = f;
            let (crossing, keep) = solve(&fused);
            assert_eq!(drop_and_compact(&mut fused, &keep, &crossing), count);
            assert_eq!(fused, general, "seed {seed}");
            removed += count;
        }
        assert!(removed > 400, "the functions have dead code: {removed}");
    }
}
