//! Liveness of the temporary registers over the state graph, so that the builder computes
//! only the destination components some later instruction reads.
//!
//! One bit per component of r0–r15 (bit `4·r + c`). A state's instruction reads the source
//! components its lowering reads ([`alu::reads`]) for the destination components that are live
//! after it, and overwrites those components; what is live after a state is what is live on
//! entry to any of its successors. Nothing is live at the exit: only outputs leave an
//! invocation, and they, a0 and cc are always computed. The least fixed point is taken, so a
//! value read only to compute dead values is dead too.
//!
//! Each lane follows a path of the state graph however the function is built (a plain branch,
//! an if-converted branch whose arms run under lane predicates, a masked region, the
//! lane-position model): a component overwritten before any read along every path is never
//! read in any lane, and skipping its computation leaves every lane's outputs unchanged.

use crate::isa::{AddrIdx, AluOperands, DstKind, Math, OpDesc, SrcKind};
use crate::program::Program;

use super::alu::{self, Step};
use super::graph::{Flow, Graph, Target};

/// What the builder needs to know about liveness.
#[derive(Clone, Debug, Default)]
pub(super) struct Liveness {
    /// Per state: the temporary register components live after its instruction.
    pub after: Vec<u64>,
    /// The temporary register components live where the invocation starts: those some path
    /// reads before writing them (they read the start value, 0.0).
    pub entry: u64,
    /// The inputs and uniforms read by live destination components.
    pub loads: Loads,
}

/// A set of input and (directly addressed) float uniform components.
#[derive(Clone, Debug, Default)]
pub(super) struct Loads {
    /// Bit `4·v + c`: component `c` of input `v`.
    inputs: u64,
    /// Bit `4·u + c`: component `c` of uniform `u`.
    uniforms: [u64; 6],
}

impl Loads {
    /// Whether the raw read of component `comp` of source `n` of `ops` is in the set; reads of
    /// temporaries and relatively addressed uniforms always are.
    pub fn has(&self, ops: &AluOperands, n: usize, comp: usize) -> bool {
        match load(ops, n) {
            Load::Input(v) => self.inputs >> (4 * usize::from(v) + comp) & 1 != 0,
            Load::Uniform(u) => {
                let bit = 4 * usize::from(u) + comp;
                self.uniforms[bit / 64] >> (bit % 64) & 1 != 0
            }
            Load::Other => true,
        }
    }

    /// Adds the components in `comps` (bit `c`: component `c`) of source `n` of `ops`.
    fn add(&mut self, ops: &AluOperands, n: usize, comps: u8) {
        let comps = u64::from(comps);
        match load(ops, n) {
            Load::Input(v) => self.inputs |= comps << (4 * u32::from(v)),
            Load::Uniform(u) => {
                // A uniform's four bits never straddle two words.
                let bit = 4 * usize::from(u);
                self.uniforms[bit / 64] |= comps << (bit % 64);
            }
            Load::Other => {}
        }
    }
}

/// What source `n` of `ops` reads.
enum Load {
    Input(u8),
    Uniform(u8),
    /// A temporary, or a relatively addressed uniform.
    Other,
}

fn load(ops: &AluOperands, n: usize) -> Load {
    match ops.src[n].kind() {
        SrcKind::Input(v) => Load::Input(v),
        SrcKind::Uniform(u) if n != ops.wide || ops.idx == AddrIdx::None => Load::Uniform(u),
        SrcKind::Uniform(_) | SrcKind::Temp(_) => Load::Other,
    }
}

/// One state's instruction, as liveness sees it.
#[derive(Clone, Copy)]
struct Transfer {
    /// The destination temporary's first bit (`4·r`).
    shift: u32,
    /// Enabled destination components when a temporary is written, else 0.
    mask: u8,
    /// The arithmetic (`None`: the instruction reads no register).
    alu: Option<(Math, AluOperands, OpDesc)>,
}

impl Transfer {
    fn new(program: &Program, step: Step) -> Transfer {
        let (math, ops) = match step {
            Step::Alu(math, ops) => (math, ops),
            Step::Emit | Step::SetEmit(_) | Step::Other => {
                return Transfer {
                    shift: 0,
                    mask: 0,
                    alu: None,
                }
            }
        };
        let desc = OpDesc(program.descs[ops.desc as usize & 0x7F]);
        let (shift, mask) = match (ops.dst.kind(), math.writes_dst()) {
            (DstKind::Temp(r), true) => (4 * u32::from(r), alu::written(desc, 0xF)),
            (DstKind::Temp(_) | DstKind::Output(_), false) | (DstKind::Output(_), true) => (0, 0),
        };
        Transfer {
            shift,
            mask,
            alu: Some((math, ops, desc)),
        }
    }

    /// The destination components computed when `out` are live after the instruction.
    fn computed(&self, out: u64) -> u8 {
        match self.mask {
            0 => 0xF,
            m => (out >> self.shift) as u8 & m,
        }
    }

    /// What stays live of `out` across the instruction (the components it computes are
    /// overwritten), and per source the swizzled components it reads.
    #[inline]
    fn split(&self, out: u64) -> (u64, [u8; 3]) {
        let Some((math, _, desc)) = self.alu else {
            return (out, [0; 3]);
        };
        let dst = self.computed(out);
        let kept = match self.mask {
            0 => out,
            _ => out & !(u64::from(dst) << self.shift),
        };
        (kept, alu::reads(math, desc, alu::written(desc, dst)))
    }

    /// The components live before the instruction when `out` are live after it; the inputs
    /// and uniforms it then reads are added to `loads`.
    fn apply(&self, out: u64, loads: &mut Loads) -> u64 {
        let (kept, read) = self.split(out);
        let Some((_, ops, desc)) = self.alu else {
            return kept;
        };
        let mut live = 0;
        for (k, &r) in read.iter().enumerate() {
            if r == 0 {
                continue;
            }
            // The register components behind the swizzled components read.
            let select = desc.src(k).select;
            let mut comps = 0u8;
            for (i, &c) in select.iter().enumerate() {
                comps |= (r >> i & 1) << (c & 3);
            }
            match ops.src[k].kind() {
                SrcKind::Temp(t) => live |= u64::from(comps) << (4 * u32::from(t)),
                SrcKind::Input(_) | SrcKind::Uniform(_) => loads.add(&ops, k, comps),
            }
        }
        kept | live
    }

    /// Per source and swizzled component: the bit of the temporary component it reads (0 for
    /// inputs and uniforms), for repeated [`Transfer::split`]s.
    fn temp_bits(&self) -> [[u64; 4]; 3] {
        let mut bits = [[0; 4]; 3];
        let Some((_, ops, desc)) = self.alu else {
            return bits;
        };
        for (n, row) in bits.iter_mut().enumerate() {
            if let SrcKind::Temp(t) = ops.src[n].kind() {
                let select = desc.src(n).select;
                for (bit, &c) in row.iter_mut().zip(&select) {
                    *bit = 1 << (4 * u32::from(t) + u32::from(c & 3));
                }
            }
        }
        bits
    }
}

/// The temporary components behind the swizzled source components `read` (per source).
fn gather(bits: &[[u64; 4]; 3], read: [u8; 3]) -> u64 {
    let mut live = 0;
    for (row, &r) in bits.iter().zip(&read) {
        for (i, &bit) in row.iter().enumerate() {
            if r >> i & 1 != 0 {
                live |= bit;
            }
        }
    }
    live
}

/// The liveness of `graph`'s temporaries, and the loads of its live components.
///
/// Discovery order is breadth first: going backwards, an acyclic graph settles in one round,
/// a loop in a round more per nesting level. Without an edge to a state not after its source,
/// one backward walk is the solution and collects the loads on the way (each state's `after`
/// is final once its successors' entries are); otherwise the rounds run over tables built
/// once, then the loads are collected. The walk itself finds such an edge (it reaches every
/// state's edges) and then hands over to the rounds.
pub(super) fn analyze(program: &Program, graph: &Graph) -> Liveness {
    let n = graph.nodes.len();
    let mut after = vec![0u64; n];
    let mut before = vec![0u64; n];
    let mut loads = Loads::default();
    for s in (0..n).rev() {
        let node = &graph.nodes[s];
        let mut out = 0;
        let forward = match node.flow {
            // The step of nearly every state: one plain successor.
            Flow::Goto(Target::State(x)) if x > s => {
                out = before[x];
                true
            }
            Flow::Goto(Target::Exit) => true,
            Flow::Goto(Target::State(_))
            | Flow::Do(..)
            | Flow::If { .. }
            | Flow::LoopNext { .. } => node.flow.each_target(&mut |t| match t {
                Target::State(x) if x <= s => false,
                Target::State(x) => {
                    out |= before[x];
                    true
                }
                Target::Exit => true,
            }),
        };
        if !forward {
            return cyclic(program, graph);
        }
        after[s] = out;
        before[s] = Transfer::new(program, alu::step_inline(&node.instr)).apply(out, &mut loads);
    }
    let entry = live_at(graph.entry, &before);
    Liveness {
        after,
        entry,
        loads,
    }
}

/// What is live at target `t`, given what is live before each state's instruction.
fn live_at(t: Target, before: &[u64]) -> u64 {
    match t {
        Target::State(s) => before[s],
        Target::Exit => 0,
    }
}

/// [`analyze`] of a graph with a cycle: backward rounds to the least fixed point.
fn cyclic(program: &Program, graph: &Graph) -> Liveness {
    let n = graph.nodes.len();
    let transfers: Vec<Transfer> = graph
        .nodes
        .iter()
        .map(|node| Transfer::new(program, alu::step(&node.instr)))
        .collect();
    let bits: Vec<[[u64; 4]; 3]> = transfers.iter().map(Transfer::temp_bits).collect();
    // Successors, flattened: those of state `s` are `succ[start[s]..start[s + 1]]`.
    let mut start = Vec::with_capacity(n + 1);
    let mut succ = Vec::with_capacity(n + n / 2);
    for node in &graph.nodes {
        start.push(succ.len() as u32);
        node.flow.each_target(&mut |t| {
            if let Target::State(x) = t {
                succ.push(x as u32);
            }
            true
        });
    }
    start.push(succ.len() as u32);
    let mut after = vec![0u64; n];
    let mut before = vec![0u64; n];
    loop {
        let mut changed = false;
        for s in (0..n).rev() {
            let out = succ[start[s] as usize..start[s + 1] as usize]
                .iter()
                .fold(0, |m, &x| m | before[x as usize]);
            after[s] = out;
            let (kept, read) = transfers[s].split(out);
            let live_in = kept | gather(&bits[s], read);
            changed |= live_in != before[s];
            before[s] = live_in;
        }
        if !changed {
            break;
        }
    }
    let mut loads = Loads::default();
    for (t, &out) in transfers.iter().zip(&after) {
        t.apply(out, &mut loads);
    }
    let entry = live_at(graph.entry, &before);
    Liveness {
        after,
        entry,
        loads,
    }
}
