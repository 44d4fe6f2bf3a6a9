//! What a kernel's batch loop moves, decided once per compile for both backends.
//!
//! - Inputs: `Input` reads in a block on no CFG cycle (it runs at most once per batch) load
//!   the vertices' registers where they stand (`opt::group_inputs` makes the reads of one
//!   register adjacent, so one transpose serves them); reads in blocks on cycles go through the
//!   context's staging lanes, filled once at the start of each batch ([`Plan::staged`]).
//! - Outputs: `Output` stores write the current output bank. A block that ends the invocation
//!   stores the vertex outputs itself: its trailing stores (`opt::sink_outputs` moves them
//!   there) go straight from their variables, the other components come from the bank (or are
//!   0.0 where nothing writes them). An AoS output register that is a whole copy of an input
//!   register is copied vertex by vertex ([`passthrough`]); one whose four components are the
//!   same for the whole run is interleaved once per run and stored as a row ([`Plan::rows`]).
//!   Only components some exit reads from the bank, and that some path to it leaves unwritten
//!   ([`surely_written`]), are zeroed at the start of a batch — unless
//!   the batch can stop elsewhere (budget exhausted, a geometry shader, lanes retired by the
//!   lane-position model or a per-lane budget): then the stub that stores every output register from
//!   the bank (or the retired lanes' outputs) is kept ([`Plan::stub`]) and every output
//!   component is zeroed; geometry shaders and functions that retire lanes store only there.
//! - Draw kernels ([`DrawLayout`]): the same loads and stores with other addresses. The batch's
//!   vertices are W indices (u32) of a unique-vertex list, or W consecutive vertices
//!   ([`DrawOrder`]); input register r of a vertex is `components[r]` floats at
//!   `draw_base[r] + id * draw_stride[r]` (`abi::Io`; stepped: `draw_base[r] + k * stride`
//!   for vertex k of the run: [`DrawLayout::shared_stride`]), loaded row by
//!   row into the same transposes as AoS records and completed with (0, 0, 0, 1); the output
//!   vertex is the rasterizer's 24 semantic slots, each an output component or a constant,
//!   colour as `min(|c|, 1)`, stored by the reverse transposes, group of four slots by group;
//!   a group of four constants is not stored at all — the caller fills it once per output
//!   buffer and the kernel leaves it alone.
//!   An output register that is a whole copy of an input register, and whose every slot lies
//!   in a group taking its row in place (other slots constants), is copied lane by lane from
//!   the attribute array with the constants blended in (x86-64). Draw kernels take no
//!   invariant rows, and are not built for geometry shaders ([`DrawLayout::check`]). A
//!   function that retires lanes stores its output vertices from the retired lanes' outputs
//!   in the stub, as its AoS kernel stores records, and writes the batch's status word (the
//!   lanes whose budget ran out) there.

use rustc_hash::FxHashMap as HashMap;

use crate::ir::{Function, Inst, Op, Terminator, Var};

/// Semantic slots of a draw kernel's output vertex.
pub const DRAW_SLOTS: usize = 24;
/// The first of the four colour slots (stored as `min(|c|, 1)`).
pub const DRAW_COLOR: usize = 8;

/// Where a semantic slot of a draw kernel's output vertex comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawSlot {
    /// Component `comp` of output register `reg`.
    Output { reg: u8, comp: u8 },
    /// 0.0 (an output register never written, an attribute slot past the enabled ones).
    Zero,
    /// 1.0 (a slot nothing maps).
    One,
}

/// The largest byte stride of an input register in a [`DrawOrder::Stepped`] kernel (the lanes'
/// offsets are address displacements; callers also pad short draws at this stride).
pub const MAX_STEPPED_STRIDE: u32 = 4096;

/// How a draw kernel finds the vertices of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawOrder {
    /// Through W vertex indices (u32) per batch: vertex `id`'s attribute of input register r
    /// is at `draw_base[r] + id * draw_stride[r]` (addresses and strides per run).
    Indexed,
    /// Through W vertex indices per batch as [`DrawOrder::Indexed`], with each input
    /// register's byte stride fixed per compile (at most [`MAX_STEPPED_STRIDE`]; 0 for a value
    /// shared by every vertex): a lane's attribute offset is one multiply by a constant, in
    /// 32 bits ([`DrawLayout::offsets_fit`]). A run's strides must be these.
    IndexedStrides([u32; 16]),
    /// Consecutive vertices, with no index list: vertex k of the run reads input register r
    /// at `draw_base[r] + k * strides[r]` (the kernel may keep a vertex count or advance the
    /// pointers in the context as it goes: see [`DrawLayout::shared_stride`]). The byte strides (at most
    /// [`MAX_STEPPED_STRIDE`]; 0 for a value shared by every vertex) are fixed per compile.
    Stepped([u32; 16]),
}

/// The vertex layout of a draw kernel (see the module docs): fixed per compile, while the
/// attribute addresses (and, for indexed kernels, strides) are per run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DrawLayout {
    /// Per input register: the floats of one vertex's attribute (1..=4; the components past
    /// them read 0, 0, 0, 1), or 0 where the function reads nothing.
    pub components: [u8; 16],
    /// The output vertex, slot by slot. Constant slots may be left unwritten — a group of four
    /// slots (`4 g .. 4 g + 4`) that are all constants always is, and so are the constant slots
    /// of a group copied from an attribute array: the output buffer must already hold them.
    pub slots: [DrawSlot; DRAW_SLOTS],
    /// Indexed or stepping through consecutive vertices.
    pub order: DrawOrder,
}

impl DrawLayout {
    /// Why a function whose input components are `ins` cannot run with this layout, if it
    /// cannot: an input register it reads without 1..=4 components, a geometry shader.
    pub fn check(&self, ins: &[u8; 16], geometry: bool) -> Option<&'static str> {
        if geometry {
            return Some("a draw kernel for a geometry shader");
        }
        let missing = (0..16).any(|r| ins[r] != 0 && !(1..=4).contains(&self.components[r]));
        if missing {
            return Some("a draw kernel without the layout of every input register read");
        }
        let too_wide = |strides: [u32; 16]| strides.iter().any(|&s| s > MAX_STEPPED_STRIDE);
        match self.order {
            DrawOrder::Indexed => None,
            DrawOrder::IndexedStrides(strides) => too_wide(strides)
                .then_some("an indexed draw kernel with a stride above MAX_STEPPED_STRIDE"),
            DrawOrder::Stepped(strides) => too_wide(strides)
                .then_some("a stepped draw kernel with a stride above MAX_STEPPED_STRIDE"),
        }
    }

    /// True unless this is a [`DrawOrder::IndexedStrides`] kernel and the attribute offset of
    /// vertex `largest` (`largest` × a loaded register's stride) is 2^32 or more: the kernel
    /// multiplies in 32 bits, exact for every vertex up to `largest` when this holds.
    pub fn offsets_fit(&self, largest: u32) -> bool {
        let DrawOrder::IndexedStrides(strides) = self.order else {
            return true;
        };
        let reach = |(&c, &s): (&u8, &u32)| c == 0 || u64::from(largest) * u64::from(s) < 1 << 32;
        self.components.iter().zip(&strides).all(reach)
    }

    /// A stepped kernel's shared stride: the nonzero byte stride most of the registers it
    /// loads have (the lowest of a tie), `None` for an indexed kernel or one whose loaded
    /// registers all have stride 0. A backend may count the batch's first vertex in it with
    /// one register (one add per batch) and address those registers' attributes from their
    /// fixed bases, advancing only the pointers of the registers of another stride.
    pub fn shared_stride(&self) -> Option<u32> {
        let DrawOrder::Stepped(strides) = self.order else {
            return None;
        };
        // The nonzero strides of the loaded registers, then the most frequent of them.
        let mut moving = [0u32; 16];
        let mut n = 0;
        for (&c, &s) in self.components.iter().zip(&strides) {
            if c != 0 && s != 0 {
                moving[n] = s;
                n += 1;
            }
        }
        let moving = &moving[..n];
        let count = |s: u32| moving.iter().filter(|&&t| t == s).count();
        moving
            .iter()
            .copied()
            .max_by_key(|&s| (count(s), std::cmp::Reverse(s)))
    }
}

/// The I/O decisions of one kernel.
pub(crate) struct Plan {
    /// Per block: its `Input` reads load from the vertices directly (it is on no CFG cycle).
    pub direct_inputs: Vec<bool>,
    /// Input components loaded into staging at the start of each batch (bit c of register r).
    pub staged: [u8; 16],
    /// Blocks ending in `Exit` store the vertex outputs themselves.
    pub direct_exits: bool,
    /// The store stub (outputs from the bank) is reachable.
    pub stub: bool,
    /// Output components zeroed in the bank at the start of each batch.
    pub cleared: [u8; 16],
    /// Output components some `Output` writes.
    pub written: [u8; 16],
    /// Output registers the kernel stores (bit r).
    pub outs: u16,
    /// AoS: per variable, true if it is an input component whose only use is an exit's copy of
    /// its whole input register to an output register (see [`passthrough`]): it takes no
    /// location and is never loaded; the exit copies the vertices' 16-byte registers.
    pub elided: Vec<bool>,
    /// Per exit block: the (output register, input register) pairs it copies whole.
    pub copies: HashMap<u32, Vec<(u32, u32)>>,
    /// Per (exit block, output register): a spill slot holding the register's four components
    /// interleaved as one vertex's row (x, y, z, w), computed once per run, when the exit's
    /// four components are all batch-invariant.
    pub rows: HashMap<(u32, u32), u32>,
}

impl Plan {
    /// The plan for `func`, which stores output registers `outs`; `copyable`: the output
    /// registers the backend may copy whole from input registers ([`passthrough`], x86-64 AoS
    /// and draw kernels only).
    pub fn new(func: &Function, outs: u16, geometry: bool, copyable: u16) -> Plan {
        let cyclic = crate::opt::on_cycles(func);
        let mut staged = [0u8; 16];
        let mut written = [0u8; 16];
        let mut budget = false;
        for (b, block) in func.blocks.iter().enumerate() {
            for inst in &block.insts {
                let (r, c) = ((inst.imm[0] & 15) as usize, inst.imm[1] & 3);
                if inst.op == Op::Input && cyclic[b] {
                    staged[r] |= 1 << c;
                } else if inst.op == Op::Output {
                    written[r] |= 1 << c;
                } else if inst.op == Op::Budget {
                    budget = true;
                }
            }
        }
        // A function that retires lanes (the lane-position model) keeps its outputs in the bank
        // until the lanes retire: its exits go through the stub, like a geometry shader's.
        let retires = func.retires_lanes();
        let stub = geometry || budget || retires;
        let direct_exits = !geometry && !retires;
        let mut cleared = [0u8; 16];
        for r in (0..16).filter(|r| outs >> r & 1 != 0) {
            cleared[r] = if stub { 0b1111 } else { 0 };
        }
        if direct_exits && !stub {
            // Components an exit reads from the bank: written somewhere, not by its tail, and
            // not on every path to the exit (there the bank holds this batch's value already).
            let sure = surely_written(func);
            for (b, block) in func.blocks.iter().enumerate() {
                if block.term == Terminator::Exit {
                    let tail = trailing_outputs(&block.insts);
                    let mut from_tail = [0u8; 16];
                    for inst in tail {
                        from_tail[(inst.imm[0] & 15) as usize] |= 1 << (inst.imm[1] & 3);
                    }
                    for r in 0..16 {
                        cleared[r] |= written[r] & !from_tail[r] & !sure[b][r];
                    }
                }
            }
        }
        let mut elided = vec![false; func.vars.len()];
        let mut copies: HashMap<u32, Vec<(u32, u32)>> = HashMap::default();
        if direct_exits && copyable != 0 {
            let vars = VarUse::new(func, &cyclic);
            for (b, block) in func.blocks.iter().enumerate() {
                if block.term == Terminator::Exit {
                    let tail = trailing_outputs(&block.insts);
                    let found = passthrough(&vars, tail);
                    for (o, v, comps) in found.into_iter().filter(|c| copyable >> c.0 & 1 != 0) {
                        for c in comps {
                            elided[c.0 as usize] = true;
                        }
                        copies.entry(b as u32).or_default().push((o, v));
                    }
                }
            }
        }
        Plan {
            direct_inputs: cyclic.iter().map(|c| !c).collect(),
            staged,
            direct_exits,
            stub,
            cleared,
            written,
            outs,
            elided,
            copies,
            rows: HashMap::default(),
        }
    }

    /// Picks the exits' invariant output rows (see [`Plan::rows`]): `invariant` tells which
    /// variables are computed once per run (rematerialized or hoisted); slots from `first` on,
    /// below `limit`.
    pub fn place_rows(
        &mut self,
        func: &Function,
        invariant: &dyn Fn(Var) -> bool,
        first: u32,
        limit: u32,
    ) {
        let mut next = first;
        for (b, block) in func.blocks.iter().enumerate() {
            if !self.direct_exits || block.term != Terminator::Exit {
                continue;
            }
            let tail = trailing_outputs(&block.insts);
            for r in 0..16u32 {
                let comps: Vec<Var> = (0..4u32)
                    .filter_map(|c| {
                        tail.iter()
                            .rev()
                            .find(|i| i.imm[0] & 15 == r && i.imm[1] & 3 == c)
                            .map(|i| i.args[0])
                    })
                    .collect();
                if comps.len() == 4 && comps.iter().all(|&v| invariant(v)) && next < limit {
                    self.rows.insert((b as u32, r), next);
                    next += 1;
                }
            }
        }
    }
}

/// Per block: the output components (bit c of register r) some `Output` writes on every path
/// from the entry to the block's end — a forward "must" data-flow problem (the intersection
/// over predecessors), solved by iterating to the greatest fixed point. An `Output` writes
/// every lane of the bank (a per-lane write is a `Select` into the value it stores), so a
/// component in the set holds the current batch's value at the block's end in every lane;
/// blocks no path reaches keep the full set (they never run).
pub(crate) fn surely_written(func: &Function) -> Vec<[u8; 16]> {
    let n = func.blocks.len();
    let mut gen = vec![[0u8; 16]; n];
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, block) in func.blocks.iter().enumerate() {
        for inst in block.insts.iter().filter(|i| i.op == Op::Output) {
            gen[b][(inst.imm[0] & 15) as usize] |= 1 << (inst.imm[1] & 3);
        }
        for s in block.term.successors() {
            preds[s.0 as usize].push(b);
        }
    }
    let order = crate::regalloc::reverse_post_order(func);
    let mut out = vec![[0b1111u8; 16]; n];
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            let b = b.0 as usize;
            let mut state = if b == 0 { [0u8; 16] } else { [0b1111u8; 16] };
            for &p in &preds[b] {
                for r in 0..16 {
                    state[r] &= out[p][r];
                }
            }
            for r in 0..16 {
                state[r] |= gen[b][r];
            }
            if state != out[b] {
                out[b] = state;
                changed = true;
            }
        }
    }
    out
}

/// How each variable is defined and used, for [`passthrough`].
pub(crate) struct VarUse {
    /// Definitions, reads.
    defs: Vec<u32>,
    uses: Vec<u32>,
    /// (input register, component) of a variable an `Input` in a block on no cycle defines.
    input_of: Vec<Option<(u32, u32)>>,
}

impl VarUse {
    pub fn new(func: &Function, cyclic: &[bool]) -> VarUse {
        let n = func.vars.len();
        let mut u = VarUse {
            defs: vec![0; n],
            uses: vec![0; n],
            input_of: vec![None; n],
        };
        for (b, block) in func.blocks.iter().enumerate() {
            for inst in &block.insts {
                for a in inst.uses() {
                    u.uses[a.0 as usize] += 1;
                }
                if let Some(d) = inst.dst {
                    u.defs[d.0 as usize] += 1;
                    if inst.op == Op::Input && !cyclic[b] {
                        u.input_of[d.0 as usize] = Some((inst.imm[0] & 15, inst.imm[1] & 3));
                    }
                }
            }
            if let Some(m) = block.term.uses() {
                u.uses[m.0 as usize] += 1;
            }
        }
        u
    }
}

/// The output registers of an exit's trailing stores `tail` that are whole copies of an input
/// register — component c of output register o is an input variable of component c of input
/// register v, for all four c, each variable defined once (by its `Input`, in a block on no
/// cycle) and read only there — with the input register and those four variables.
pub(crate) fn passthrough(vars: &VarUse, tail: &[Inst]) -> Vec<(u32, u32, [Var; 4])> {
    // The stores of each component in one walk over the tail: its stored variable, and how
    // many stores write it (only a component stored once qualifies).
    let mut stores = [[(Var(0), 0u8); 4]; 16];
    for store in tail {
        let slot = &mut stores[(store.imm[0] & 15) as usize][(store.imm[1] & 3) as usize];
        *slot = (store.args[0], slot.1.saturating_add(1));
    }
    let mut found = Vec::new();
    for (o, comps_stored) in (0u32..).zip(&stores) {
        let mut comps = [Var(0); 4];
        let mut from: Option<u32> = None;
        let whole = (0..4u32).all(|c| {
            let (v, count) = comps_stored[c as usize];
            if count != 1 {
                return false;
            }
            let i = v.0 as usize;
            comps[c as usize] = v;
            match vars.input_of[i] {
                Some((reg, comp)) if comp == c && from.is_none_or(|f| f == reg) => {
                    from = Some(reg);
                    vars.defs[i] == 1 && vars.uses[i] == 1
                }
                _ => false,
            }
        });
        if let (true, Some(v)) = (whole, from) {
            found.push((o, v, comps));
        }
    }
    found
}

/// The `Output` stores that end a block.
pub(crate) fn trailing_outputs(insts: &[Inst]) -> &[Inst] {
    let n = insts
        .iter()
        .rev()
        .take_while(|i| i.op == Op::Output)
        .count();
    &insts[insts.len() - n..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Builder, Op, Terminator};

    /// b0 branches on a bool to b1 (writes o0.x, o0.y) or b2 (writes o0.x, then loops back to
    /// itself once through a LOOP edge); both end in b3, which writes o1.x last and exits.
    fn diamond() -> Function {
        let mut b = Builder::new();
        let (left, right, exit) = (b.block(), b.block(), b.block());
        b.use_loop_slots(1);
        b.terminate(Terminator::BranchBool {
            id: 0,
            then: left,
            other: right,
        });
        b.switch_to(left);
        let x = b.fconst(1.0);
        b.effect(Op::Output, &[x], [0, 0]);
        b.effect(Op::Output, &[x], [0, 1]);
        b.terminate(Terminator::Jump(exit));
        b.switch_to(right);
        let y = b.fconst(2.0);
        b.effect(Op::Output, &[y], [0, 0]);
        b.terminate(Terminator::LoopNext {
            slot: 0,
            repeat: right,
            exit,
        });
        b.switch_to(exit);
        let z = b.fconst(3.0);
        b.effect(Op::Output, &[z], [1, 0]);
        b.terminate(Terminator::Exit);
        b.finish()
    }

    #[test]
    fn surely_written_intersects_paths() {
        let f = diamond();
        let sure = surely_written(&f);
        assert_eq!(sure[0], [0; 16]);
        assert_eq!(sure[1][0], 0b0011);
        assert_eq!(sure[2][0], 0b0001);
        // At the exit: o0.x on both paths, o0.y on one only; o1.x by the exit itself.
        assert_eq!((sure[3][0], sure[3][1], sure[3][2]), (0b0001, 0b0001, 0));
    }

    #[test]
    fn only_components_some_path_leaves_unwritten_are_zeroed() {
        let f = diamond();
        let plan = Plan::new(&f, 0b11, false, 0);
        assert!(plan.direct_exits && !plan.stub);
        // o0.x is written on every path, o1.x by the exit's tail: only o0.y reads a zero.
        assert_eq!(plan.cleared[0], 0b0010);
        assert_eq!(plan.cleared[1], 0);
        assert_eq!(plan.written[0], 0b0011);
    }
}
