//! Uniformity analysis: which variables provably hold the same value in every lane.
//!
//! A forward data-flow problem over the CFG on the set of variables that *may differ* between
//! lanes. `Input` always may; `UniformIdx` may when its offset may; constants, `Uniform` and
//! `UniformAl` never do (aL is batch-scalar), nor an always-true `Cmp`; every other operation may differ exactly when one
//! of its operands may. A write replaces the variable's status; at a merge the statuses join
//! (may differ on any incoming path → may differ). Variables read before any write are treated
//! as uniform: the frontend initializes every register in the entry block.
//!
//! The compiler asks only about a few points (branch masks, lane conditions, relative-read
//! offsets): [`demand`] answers each by a backward search from that point, and solves the
//! whole function only when the searches grow too long. The whole solve propagates each new
//! fact along def-use links (`propagate`), in time linear in the facts whatever the loops
//! (the unit tests compare it with the plain block-by-block iteration, and the searches with
//! it).
//!
//! The result is sound under the assumption that all lanes follow the same path, which holds
//! exactly when every `BranchUniform` tests a uniform mask — the property this analysis is used
//! to establish (by induction over the execution). It is conservative: a value that happens to
//! agree in all lanes at run time may still be reported as varying.

pub(super) mod demand;
mod propagate;
pub(super) mod states;
#[cfg(test)]
mod tests;

use picajit_codegen::ir::{BlockId, CmpKind, Function, Inst, Op, Terminator, Var};

#[cfg(test)]
use picajit_codegen::opt::VarSet;

/// How an instruction's result relates to its operands in this analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// May differ between lanes whatever its operands.
    Varies,
    /// Never differs between lanes (or has no result).
    Same,
    /// May differ exactly when one of its operands may.
    AnyArg,
}

/// The rule of `inst` (the one table of this analysis).
fn rule(inst: &Inst) -> Rule {
    match inst.op {
        Op::Input => Rule::Varies,
        Op::FConst
        | Op::Uniform
        | Op::UniformAl
        | Op::Const
        | Op::MaskConst
        | Op::IConst
        | Op::IntUniform
        | Op::BoolMask
        | Op::BudgetLanes
        // Broadcasts, whatever lanes they read.
        | Op::UniformLead
        | Op::LaneMin => Rule::Same,
        // CMP ops 6 and 7: true whatever the operands.
        Op::Cmp if CmpKind::from_imm(inst.imm[0]) == CmpKind::True => Rule::Same,
        Op::UniformIdx
        | Op::ConstIdx
        | Op::Div
        | Op::Sqrt
        | Op::Mov
        | Op::Neg
        | Op::Abs
        | Op::Add
        | Op::Mul
        | Op::PMul
        | Op::Max
        | Op::Min
        | Op::Floor
        | Op::Rcp
        | Op::Rsq
        | Op::Ex2
        | Op::Lg2
        | Op::Sin
        | Op::Cos
        | Op::Pow
        | Op::QuadDiff
        | Op::Cmp
        | Op::Select
        | Op::MaskAnd
        | Op::MaskOr
        | Op::MaskNot
        | Op::MaskMov
        | Op::FtoiSat
        | Op::IMov
        | Op::IAdd
        | Op::IEq
        | Op::ILt
        | Op::ISelect
        | Op::MaskAndNot => Rule::AnyArg,
        // No result.
        Op::Output
        | Op::LoopPush
        | Op::AlInc
        | Op::AlRestore
        | Op::Budget
        | Op::EmitSlot
        | Op::EmitTri
        | Op::Retire => Rule::Same,
    }
}

fn may_vary(inst: &Inst, varies: impl Fn(Var) -> bool) -> bool {
    match rule(inst) {
        Rule::Varies => true,
        Rule::Same => false,
        Rule::AnyArg => inst.uses().iter().any(|&a| varies(a)),
    }
}

/// Per-variable "may vary" flags written by the current block, stamped so that moving to the
/// next block costs nothing; variables the block has not written read the entry set.
struct Local {
    stamp: Vec<u32>,
    varies: Vec<bool>,
    current: u32,
}

impl Local {
    fn new(vars: usize) -> Local {
        Local {
            stamp: vec![0; vars],
            varies: vec![false; vars],
            current: 0,
        }
    }

    /// Runs `insts` from the entry set `entry` (a variable by its index in `exposed`,
    /// `u32::MAX` for a variable no block reads before writing it, whose status never
    /// crosses blocks). `exec`, if given, never varies. `each` sees every instruction with the
    /// state before it. Leaves the block-local state readable through [`Local::get`].
    fn run(
        &mut self,
        insts: &[Inst],
        entry: &dyn Fn(u32) -> bool,
        exposed: &[u32],
        exec: Option<Var>,
        mut each: impl FnMut(&Inst, &dyn Fn(Var) -> bool),
    ) {
        self.current += 1;
        for inst in insts {
            each(inst, &|v| self.get(v, entry, exposed));
            if let Some(d) = inst.dst {
                let varies = Some(d) != exec && may_vary(inst, |v| self.get(v, entry, exposed));
                let i = d.0 as usize;
                self.stamp[i] = self.current;
                self.varies[i] = varies;
            }
        }
    }

    /// Whether `v` may vary after the last [`Local::run`] (from the same `entry`).
    fn get(&self, v: Var, entry: &dyn Fn(u32) -> bool, exposed: &[u32]) -> bool {
        let i = v.0 as usize;
        if self.stamp.get(i) == Some(&self.current) {
            self.varies[i]
        } else {
            exposed.get(i).is_some_and(|&x| x != u32::MAX && entry(x))
        }
    }
}

/// Variables some block reads (in an instruction or its terminator) before writing them: the
/// only ones whose status crosses blocks, each numbered (per variable: its number, or
/// `u32::MAX`). The analysis numbers them in its own walk (`propagate`); this is the
/// reference the tests compare it with.
#[cfg(test)]
fn exposed_vars(func: &Function) -> Vec<u32> {
    let mut exposed = vec![u32::MAX; func.vars.len()];
    let mut next = 0u32;
    let mut expose = |v: Var| {
        let x = &mut exposed[v.0 as usize];
        if *x == u32::MAX {
            *x = next;
            next += 1;
        }
    };
    let mut written = vec![0u32; func.vars.len()];
    for (n, block) in func.blocks.iter().enumerate() {
        let stamp = n as u32 + 1;
        for inst in &block.insts {
            for &a in inst.uses() {
                if written[a.0 as usize] != stamp {
                    expose(a);
                }
            }
            if let Some(d) = inst.dst {
                written[d.0 as usize] = stamp;
            }
        }
        if let Some(m) = block.term.uses() {
            if written[m.0 as usize] != stamp {
                expose(m);
            }
        }
    }
    exposed
}

/// The result of the analysis: per block, the variables live on entry that may vary there.
pub(super) struct Varying {
    exposed: Vec<u32>,
    at_entry: propagate::Entries,
    /// The lanes the question is about (`None`: all lanes).
    exec: Option<Var>,
    local: Local,
}

impl Varying {
    /// Which variables may hold different values in different lanes of the batch.
    #[cfg(test)]
    pub(super) fn across_lanes(func: &Function) -> Varying {
        Varying::solve(func, None, None)
    }

    fn solve(func: &Function, exec: Option<Var>, merge: Option<(&[bool], &[bool])>) -> Varying {
        let (at_entry, exposed) = propagate::solve(func, exec, merge);
        #[cfg(test)]
        {
            assert_eq!(exposed, exposed_vars(func), "exposed numberings disagree");
            // The set a merge block starts with, by exposed number.
            let fixed = merge.map(|(blocks, anywhere)| {
                let mut set = VarSet::default();
                for (v, &x) in exposed.iter().enumerate() {
                    if x != u32::MAX && anywhere[v] {
                        set.insert(Var(x));
                    }
                }
                (blocks, set)
            });
            let fixed = fixed.as_ref().map(|(blocks, set)| (*blocks, set));
            assert_eq!(
                at_entry.sets(),
                tests::iterate(func, &exposed, exec, fixed),
                "propagation and block iteration disagree"
            );
        }
        let local = Local::new(func.vars.len());
        Varying {
            exposed,
            at_entry,
            exec,
            local,
        }
    }

    /// The result of instruction `i` of block `b` may vary, whatever its operands;
    /// [`Varying::settle`] carries the new facts on (the block runs of
    /// [`Varying::uniform_offsets`] do not see them, [`Varying::at_end`] does).
    pub(super) fn seed(&mut self, b: usize, i: usize) {
        self.at_entry.seed(b, i);
    }

    /// Carries the seeded facts through the function ([`Varying::seed`]).
    pub(super) fn settle(&mut self, func: &Function) {
        self.at_entry.settle(func);
    }

    /// Whether `v` may vary at the end of block `b`, seeded facts included: by its last write
    /// in the block, else as it entered. `v` must be read in the block or live at its end;
    /// `None` for an unreachable block.
    pub(super) fn at_end(&self, func: &Function, b: usize, v: Var) -> Option<bool> {
        if !self.at_entry.reached(b) {
            return None;
        }
        let last = func.blocks[b].insts.iter().rposition(|i| i.dst == Some(v));
        Some(match last {
            Some(i) => self.at_entry.result(b, i),
            None => self
                .exposed
                .get(v.0 as usize)
                .is_some_and(|&x| x != u32::MAX && self.at_entry.contains(b, x)),
        })
    }

    /// The relative uniform reads (`UniformIdx`) of block `b` whose offset cannot vary, by
    /// position in the block (none in an unreachable block).
    pub(super) fn uniform_offsets(&mut self, func: &Function, b: usize) -> Vec<usize> {
        let mut lead = Vec::new();
        let mut k = 0;
        self.run(func, b, |inst, varies| {
            if inst.op == Op::UniformIdx && !varies(inst.args[0]) {
                lead.push(k);
            }
            k += 1;
        });
        lead
    }

    /// Runs block `b` from its entry set, calling `each` with every instruction and whether a
    /// variable may vary just before it; false (without running) if it is unreachable.
    fn run(
        &mut self,
        func: &Function,
        b: usize,
        each: impl FnMut(&Inst, &dyn Fn(Var) -> bool),
    ) -> bool {
        if !self.at_entry.reached(b) {
            return false;
        }
        let entries = &self.at_entry;
        let entry = |x: u32| entries.contains(b, x);
        self.local.run(
            &func.blocks[b].insts,
            &entry,
            &self.exposed,
            self.exec,
            each,
        );
        true
    }
}

/// Sweeps over the function in order that [`varies_anywhere`] tries before following
/// readers: a value mostly comes after its operands, so the first sweep finds nearly every
/// variable that varies and the second or third finds nothing new.
const SWEEPS: usize = 4;

/// Per variable: true if some write of it may give lanes different values, whatever the path
/// (flow-insensitive: a variable every write of which is uniform, from operands every write
/// of which is uniform, never varies). The least solution, by sweeps over the instructions
/// in order while they find something new; if [`SWEEPS`] sweeps do not settle it (a chain
/// of writes running against the order), by following each new fact to the instructions
/// reading its variable ([`varies_anywhere_by_readers`]), which is linear whatever the order.
pub(super) fn varies_anywhere(func: &Function) -> Vec<bool> {
    let mut varies = vec![false; func.vars.len()];
    for _ in 0..SWEEPS {
        let mut changed = false;
        for inst in func.blocks.iter().flat_map(|b| &b.insts) {
            let Some(d) = inst.dst else { continue };
            let v = d.0 as usize;
            if !varies[v] && may_vary(inst, |a| varies[a.0 as usize]) {
                varies[v] = true;
                changed = true;
            }
        }
        if !changed {
            return varies;
        }
    }
    varies_anywhere_by_readers(func)
}

/// [`varies_anywhere`] by propagating each new fact along the list of instructions reading
/// the variable.
pub(super) fn varies_anywhere_by_readers(func: &Function) -> Vec<bool> {
    let n = func.vars.len();
    let mut varies = vec![false; n];
    // The instructions with a result, in one list; per variable, the ones of them reading it:
    // those of variable v are `readers[start[v]..start[v + 1]]` (one list for all).
    let mut defs: Vec<&Inst> = Vec::with_capacity(func.inst_count());
    let mut start = vec![0u32; n + 1];
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if inst.dst.is_some() {
            defs.push(inst);
            for &a in inst.uses() {
                start[a.0 as usize + 1] += 1;
            }
        }
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut readers = vec![0u32; start[n] as usize];
    // Only an instruction that varies whatever its operands can start: any other turns on
    // when one of its operands does, and is then visited as its reader.
    let mut work = Vec::new();
    for (i, inst) in defs.iter().enumerate() {
        for &a in inst.uses() {
            let at = &mut fill[a.0 as usize];
            readers[*at as usize] = i as u32;
            *at += 1;
        }
        if rule(inst) == Rule::Varies {
            work.push(i as u32);
        }
    }
    while let Some(i) = work.pop() {
        let inst = defs[i as usize];
        let Some(d) = inst.dst else { continue };
        let v = d.0 as usize;
        if !varies[v] && may_vary(inst, |a| varies[a.0 as usize]) {
            varies[v] = true;
            work.extend_from_slice(&readers[start[v] as usize..start[v + 1] as usize]);
        }
    }
    varies
}

/// The blocks ending in a `BranchUniform` whose mask may differ between lanes, and the
/// analysis that found them (`None` when no block ends in a `BranchUniform`), which answers
/// on demand ([`demand`]).
pub(super) fn divergent_branches(func: &Function) -> (Vec<BlockId>, Option<demand::Among>) {
    let masks = func
        .blocks
        .iter()
        .enumerate()
        .filter_map(|(b, block)| match block.term {
            Terminator::BranchUniform { mask, .. } => Some((b, mask)),
            Terminator::Jump(_)
            | Terminator::BranchBool { .. }
            | Terminator::BranchAny { .. }
            | Terminator::LoopNext { .. }
            | Terminator::Exit => None,
        });
    if masks.clone().next().is_none() {
        return (Vec::new(), None);
    }
    #[cfg(test)]
    demand::agrees(func, &|| demand::Demand::across_lanes(func), masks.clone());
    let mut varying = demand::Among::Demand(Box::new(demand::Demand::across_lanes(func)));
    let out = masks
        .filter(|&(b, mask)| varying.at_end(func, b, mask) == Some(true))
        .map(|(b, _)| BlockId(b as u32))
        .collect();
    (out, Some(varying))
}
