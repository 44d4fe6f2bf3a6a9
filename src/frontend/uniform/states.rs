//! Uniformity over the state graph, before any IR is built: which register components (r0–r15,
//! a0, cc) may differ between the lanes of the batch after each state's instruction, when all
//! lanes follow the same path (the uniform model's first build, nothing if-converted or
//! masked).
//!
//! It answers what the IR analysis ([`super::divergent_branches`]) answers of that build's cc
//! branches, component by component instead of variable by variable: an instruction's
//! destination component may vary exactly when one of the source components its lowering
//! (`alu::lower`) reads for it may (an input always may, a uniform only through a0 when
//! relative to it, never relative to aL: aL is batch-scalar there), a constant result (DST's x,
//! LITP's z, a CMP that is always true) never does; a merge joins. The builder computes only
//! the components some path reads ([`super::super::live`]), which only drops writes no read
//! sees, so the components read (cc, a0 and every live one) agree with the IR's variables.
//! Under `cfg(test)` the first build of every program with a branch on cc checks this
//! (`lower_timed`), and a test compares it on generated and fuzzed programs.
//!
//! [`Vary::seeded`] also gives the bound branch conversion asks of its next round
//! (`Round::converts_nothing`): the states whose writes the next round blends by per-vertex
//! masks write components that vary whatever their sources.

use crate::isa::{AddrIdx, AluOperands, CmpOp, CondOp, DstKind, Fmt2, Math, OpDesc, SrcKind};
use crate::program::Program;

use super::super::alu::{self, Step};
use super::super::graph::{Graph, Target};
use super::super::worklist::Worklist;

/// Bit of a0.x (a0.y the next one); r`n`.`c` is bit `4·n + c`.
const A0: u32 = 64;
/// Bit of cc.x (cc.y the next one).
const CC: u32 = 66;
/// A bit set before every state: what an input read depends on (inputs always vary).
const INPUT: u128 = 1 << 68;

/// `1 << b` for each bit of the sets above (shifting a `u128` by a variable amount branches).
const BIT: [u128; 69] = {
    let mut bits = [0; 69];
    let mut b = 0;
    while b < 69 {
        bits[b] = 1 << b;
        b += 1;
    }
    bits
};

/// One component an instruction writes (its bit): it may vary after the instruction when one
/// of the bits `deps` is set before it.
#[derive(Clone, Copy)]
struct Write {
    bit: u128,
    deps: u128,
}

/// The writes of every state's instruction, those of state `s` being
/// `writes[start[s]..start[s + 1]]` (all of them in `written[s]`), and its successors,
/// `succ[from[s]..from[s + 1]]`.
pub(in crate::frontend) struct Transfers {
    writes: Vec<Write>,
    start: Vec<u32>,
    written: Vec<u128>,
    succ: Vec<u32>,
    from: Vec<u32>,
}

impl Transfers {
    /// The writes of `graph`'s states, from their instructions (`alu::lower`'s reads).
    pub(in crate::frontend) fn new(program: &Program, graph: &Graph) -> Transfers {
        let n = graph.nodes.len();
        let mut t = Transfers {
            writes: Vec::with_capacity(4 * n),
            start: Vec::with_capacity(n + 1),
            written: Vec::with_capacity(n),
            succ: Vec::with_capacity(2 * n),
            from: Vec::with_capacity(n + 1),
        };
        for node in &graph.nodes {
            let at = t.writes.len();
            t.start.push(at as u32);
            t.from.push(t.succ.len() as u32);
            if let Step::Alu(math, ops) = alu::step(&node.instr) {
                writes(program, math, &ops, &mut t.writes);
            }
            t.written
                .push(t.writes[at..].iter().fold(0, |m, w| m | w.bit));
            node.flow.each_target(&mut |x| {
                if let Target::State(x) = x {
                    t.succ.push(x as u32);
                }
                true
            });
        }
        t.start.push(t.writes.len() as u32);
        t.from.push(t.succ.len() as u32);
        t
    }

    /// What may vary after state `s` when `before` may before it; with `seed`, everything it
    /// writes.
    #[inline]
    fn apply(&self, s: usize, before: u128, seed: bool) -> u128 {
        if seed {
            return before | self.written[s];
        }
        let mut after = before;
        for w in &self.writes[self.start[s] as usize..self.start[s + 1] as usize] {
            if before & w.deps != 0 {
                after |= w.bit;
            } else {
                after &= !w.bit;
            }
        }
        after
    }
}

/// Per state: the components (bits as above) that may vary before and after its instruction.
pub(in crate::frontend) struct Vary {
    before: Vec<u128>,
    after: Vec<u128>,
}

impl Vary {
    /// The components of `graph`'s states that may vary.
    pub(in crate::frontend) fn solve(graph: &Graph, transfers: &Transfers) -> Vary {
        let n = graph.nodes.len();
        let mut vary = Vary {
            before: vec![0; n],
            after: vec![0; n],
        };
        let mut work = Worklist::new(n);
        if let Target::State(e) = graph.entry {
            vary.before[e] = INPUT;
            work.push(e);
        }
        vary.run(transfers, &[], work);
        vary
    }

    /// [`Vary::solve`] where every component the states of `seeds` (a flag per state) write
    /// may vary whatever their sources: from this solution, which it only adds to.
    pub(in crate::frontend) fn seeded(&self, transfers: &Transfers, seeds: &[bool]) -> Vary {
        let mut vary = Vary {
            before: self.before.clone(),
            after: self.after.clone(),
        };
        let mut work = Worklist::new(seeds.len());
        for (s, _) in seeds.iter().enumerate().filter(|&(_, &b)| b) {
            // A state not reached stays so.
            if vary.before[s] != 0 {
                work.push(s);
            }
        }
        vary.run(transfers, seeds, work);
        vary
    }

    /// Runs the states of `work` (lowest first: discovery order, so most edges go forward)
    /// and whatever they change, to the least solution above the current one. A state is
    /// reached when its entry set is not empty (it holds [`INPUT`]).
    fn run(&mut self, transfers: &Transfers, seeds: &[bool], mut work: Worklist) {
        while let Some(s) = work.pop() {
            let out = transfers.apply(s, self.before[s], seeds.get(s) == Some(&true));
            self.after[s] = out;
            let succ = transfers.from[s] as usize..transfers.from[s + 1] as usize;
            for &x in &transfers.succ[succ] {
                let x = x as usize;
                let joined = self.before[x] | out;
                if joined != self.before[x] {
                    self.before[x] = joined;
                    work.push(x);
                }
            }
        }
    }

    /// Whether the mask a branch of state `s` on `f` tests may vary.
    pub(in crate::frontend) fn mask(&self, s: usize, f: &Fmt2) -> bool {
        let cc = |i: u32| self.after[s] >> (CC + i) & 1 != 0;
        match f.condop {
            CondOp::X => cc(0),
            CondOp::Y => cc(1),
            CondOp::Or | CondOp::And => cc(0) || cc(1),
        }
    }
}

/// Appends the components an ALU instruction writes, each with what it depends on.
fn writes(program: &Program, math: Math, ops: &AluOperands, out: &mut Vec<Write>) {
    let desc = OpDesc(program.descs[ops.desc as usize & 0x7F]);
    // Per source: the first bit of the register it reads (its component selected on top), or
    // what it depends on whatever the component.
    let mut base = [(0usize, 0u128); 3];
    for (n, b) in base.iter_mut().enumerate() {
        let idx = if n == ops.wide {
            ops.idx
        } else {
            AddrIdx::None
        };
        *b = match ops.src[n].kind() {
            SrcKind::Input(_) => (usize::MAX, INPUT),
            SrcKind::Temp(r) => (4 * usize::from(r), 0),
            SrcKind::Uniform(_) => match idx {
                AddrIdx::None | AddrIdx::AL => (usize::MAX, 0),
                AddrIdx::A0x => (usize::MAX, BIT[A0 as usize]),
                AddrIdx::A0y => (usize::MAX, BIT[A0 as usize + 1]),
            },
        };
    }
    let select = [0, 1, 2].map(|n| desc.src(n).select);
    // Destination lane `i` of source `n` (after its swizzle).
    let src = |n: usize, i: usize| match base[n] {
        (usize::MAX, deps) => deps,
        (at, _) => BIT[at + usize::from(select[n][i] & 3)],
    };
    let lanes = |n: usize, k: usize| (0..k).fold(0, |d, i| d | src(n, i));
    let mut push = |bit: u32, deps: u128| {
        out.push(Write {
            bit: BIT[bit as usize],
            deps,
        })
    };
    let results = match math {
        Math::Add | Math::Mul | Math::Max | Math::Min | Math::Sge | Math::Slt => {
            [0, 1, 2, 3].map(|i| src(0, i) | src(1, i))
        }
        Math::Flr | Math::Mov => [0, 1, 2, 3].map(|i| src(0, i)),
        Math::Mad => [0, 1, 2, 3].map(|i| src(0, i) | src(1, i) | src(2, i)),
        Math::Dp3 => [lanes(0, 3) | lanes(1, 3); 4],
        Math::Dp4 => [lanes(0, 4) | lanes(1, 4); 4],
        Math::Dph => [lanes(0, 3) | lanes(1, 4); 4],
        Math::Ex2 | Math::Lg2 | Math::Rcp | Math::Rsq => [src(0, 0); 4],
        // x is the constant 1.0.
        Math::Dst => [0, src(0, 1) | src(1, 1), src(0, 2), src(1, 3)],
        Math::Litp => {
            push(CC, src(0, 0));
            push(CC + 1, src(0, 3));
            // z is the constant 0.0.
            [src(0, 0), src(0, 1), 0, src(0, 3)]
        }
        Math::Mova => {
            for i in (0..2).filter(|&i| desc.writes(i)) {
                push(A0 + i as u32, src(0, i));
            }
            return;
        }
        Math::Cmp(x, y) => {
            for (i, op) in [x, y].into_iter().enumerate() {
                let deps = match op {
                    CmpOp::True6 | CmpOp::True7 => 0,
                    CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge => {
                        src(0, i) | src(1, i)
                    }
                };
                push(CC + i as u32, deps);
            }
            return;
        }
    };
    if let (DstKind::Temp(r), true) = (ops.dst.kind(), math.writes_dst()) {
        for (i, &deps) in results.iter().enumerate() {
            if desc.writes(i) {
                push(4 * u32::from(r) + i as u32, deps);
            }
        }
    }
}
