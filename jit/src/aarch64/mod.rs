//! The AArch64 backend: IR → A64 machine code with NEON, W = 4 (one 128-bit register per PICA
//! register component).
//!
//! Code is assembled with dynasm (`.arch aarch64`) into a position-independent byte vector on
//! any host, constant pool at the end (PC-relative literal loads). The generated function is
//! `extern "C" fn(ctx: *mut abi::Context)` (AAPCS64): `x0` holds the context; register use is
//! listed in [`asm`]. On an AArch64 host [`Kernel`] maps it executable and calls it in-process;
//! elsewhere it runs under qemu-user through [`runner::Runner`].
//!
//! Vector registers: `v0`–`v23` are allocatable, `v24`–`v30` are the emitters' scratch
//! (`S0`–`S6`), `v31` belongs to [`asm`]. A spilled source is loaded into `S0`/`S1`/`S2`
//! (first, second, third operand); a spilled result is computed in `S0` and stored.
//! Multi-instruction sequences read all their sources before they write their destination, so
//! any aliasing is safe.
//!
//! What differs from x86 and needed care (see also the op files):
//! - FMAX/FMIN return NaN for a NaN operand and order ±0; PICA MIN/MAX are `a > b ? a : b`
//!   and `a < b ? a : b`, so they are a compare and a bitwise select (never FMAX/FMIN).
//! - The PICA multiply compares FMUL with FMULX (which gives ±2 for 0 × inf) instead of x86's
//!   ordered/unordered masks.
//! - FPCR is set to 0 for the call (no flush-to-zero, round to nearest even) and restored.
//!   Default-NaN mode is off, but no result depends on NaN payloads: every NaN the IR can
//!   produce only has to be a NaN.
//! - FCVTZS already is MOVA's saturating, NaN → 0 conversion.

pub mod asm;
pub mod elf;
pub mod runner;

mod arith;
#[cfg(feature = "dump")]
pub mod dump;
mod exec;
mod flow;
mod io;
mod lanes;
mod memory;
mod special;
mod transcend;
mod words;

use std::borrow::Cow;

use rustc_hash::FxHashMap as HashMap;

use dynasmrt::{DynamicLabel, DynasmApi};

use crate::abi;
use crate::facts::Leaf;
use crate::io_plan::DrawOrder;
use crate::ir::{BlockId, Function, Inst, Op, Terminator, Var, Verified};
use crate::regalloc::{Allocation, Loc};
use crate::timings::Clock;
pub use crate::x64::{io_sets, CompileError, IoMode};

use asm::Ops;
#[cfg(feature = "dump")]
pub use dump::{disassemble, instruction_count};
pub use exec::{Kernel, RunError};

/// Vertices per batch.
pub const LANES: usize = 4;

/// Allocatable vector registers.
pub const ALLOCATABLE: [u8; 24] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
];
const S0: u8 = 24;
const S1: u8 = 25;
const S2: u8 = 26;
const S3: u8 = 27;
const S4: u8 = 28;
const S5: u8 = 29;
const S6: u8 = 30;

/// A64 machine code for one function and one I/O mode: `extern "C" fn(*mut Context)` that
/// runs `ctx.io.batches` batches of [`LANES`] vertices.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// Position-independent code; entry at offset 0.
    pub code: Vec<u8>,
    /// Bytes of code before the constant pool.
    pub code_len: usize,
    /// Spill slots used.
    pub spill_slots: u32,
    /// I/O mode of the batch loop.
    pub io: IoMode,
}

pub(crate) struct Emitter<'a> {
    pub(crate) ops: Ops,
    func: &'a Function,
    alloc: &'a Allocation,
    labels: Vec<DynamicLabel>,
    consts: HashMap<[u32; 4], DynamicLabel>,
    pub(crate) exhausted: DynamicLabel,
    pub(crate) batch_end: DynamicLabel,
    /// Triangle buffer full: status 2.
    pub(crate) overflow: DynamicLabel,
    /// Output registers the function writes (bit r): the only ones EMIT copies.
    pub(crate) outputs: u16,
    /// The (offset variable, base) whose per-lane uniform rows sit in scratch (see
    /// `memory.rs`); forgotten at block starts and when the variable is written.
    pub(crate) row_cache: Option<(Var, u32)>,
    /// While the prologue computes the run's invariant values: per variable, the constant or
    /// uniform read that defines it, re-read into the scratch register by [`Emitter::src`]
    /// (its own register is not loaded yet).
    prologue_leaves: Option<&'a [Option<Leaf>]>,
}

/// Compiles a verified function into a kernel that loops over the batches of a run in I/O mode
/// `io`. Never panics on any verified IR: too many spills and code too large for the branch
/// ranges are errors (the engine then falls back to the interpreter).
pub fn compile(func: &Verified, io: IoMode) -> Result<Compiled, CompileError> {
    compile_timed(func, io, &mut Clock::off())
}

/// The order [`compile`] emits `func`'s instructions in, if it is not the IR's: its one block
/// ordered for latency ([`crate::opt::schedule`]).
pub fn emitted_order(func: &Verified) -> Option<Vec<Inst>> {
    crate::kernel::reordered(func, &schedule(func))
}

/// The function [`compile`] emits (constants and uniforms take registers: NEON arithmetic
/// reads no memory operand).
fn schedule(func: &Verified) -> Cow<'_, Function> {
    crate::kernel::scheduled(func, ALLOCATABLE.len(), false)
}

/// [`compile`], lapping `clock` at its phase boundaries (backend prepare, liveness, regalloc,
/// emit, assemble).
pub fn compile_timed(
    func: &Verified,
    io: IoMode,
    clock: &mut Clock<'_>,
) -> Result<Compiled, CompileError> {
    let facts = func.facts();
    let (verified, scheduled) = (func, schedule(func));
    let func: &Function = &scheduled;
    let (ins, outs) = io_sets(func);
    let geometry = func
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| matches!(i.op, Op::EmitSlot | Op::EmitTri));
    if let Some(why) = crate::x64::draw_check(io, &ins, geometry) {
        return Err(CompileError::Unsupported(why));
    }
    let plan = crate::io_plan::Plan::new(func, outs, geometry, 0);
    // No variable is rematerialized here (NEON arithmetic takes no memory operands); values
    // computed from uniforms alone are computed once per run.
    let (leaves, hoisted) = (&facts.leaves[..], &facts.hoisted[..]);
    let alloc = crate::kernel::allocate(verified, func, &ALLOCATABLE, &[], hoisted, &[], clock)?;
    let mut ops = Ops::new(0);
    let crate::kernel::Labels {
        blocks: labels,
        exhausted,
        batch_end,
        top,
        store,
        done,
        overflow,
    } = crate::kernel::Labels::new(&mut ops, func);
    let advance = ops.new_dynamic_label();
    let mut e = Emitter {
        ops,
        func,
        alloc: &alloc,
        labels,
        consts: HashMap::default(),
        exhausted,
        batch_end,
        overflow,
        outputs: outs,
        row_cache: None,
        prologue_leaves: None,
    };
    asm::scalar::enter(&mut e.ops);
    let a_in = asm::ctx_addr(&mut e.ops, abi::IO_INPUT, 8);
    let a_out = asm::ctx_addr(&mut e.ops, abi::IO_OUTPUT, 8);
    let a_status = asm::ctx_addr(&mut e.ops, abi::IO_STATUS, 8);
    let a_batches = asm::ctx_addr(&mut e.ops, abi::IO_BATCHES, 8);
    asm::scalar::io_setup(&mut e.ops, a_in, a_out, a_status, a_batches, done);
    match io {
        IoMode::Soa => asm::scalar::zero_x2(&mut e.ops),
        IoMode::Draw(layout) => {
            asm::scalar::draw_vertex_stride(&mut e.ops);
            // Stepped kernels count the batch's first vertex in x2, from 0.
            if let DrawOrder::Stepped(_) = layout.order {
                asm::scalar::zero_x2(&mut e.ops);
            }
        }
        IoMode::Aos => {}
    }
    // Values the same for the whole run, once.
    let order = alloc.order.clone();
    let is_hoisted = |inst: &crate::ir::Inst| inst.dst.is_some_and(|d| hoisted[d.0 as usize]);
    e.prologue_leaves = Some(leaves);
    for &b in &order {
        for inst in func.blocks[b.0 as usize]
            .insts
            .iter()
            .filter(|i| is_hoisted(i))
        {
            e.inst(inst);
        }
    }
    e.prologue_leaves = None;
    asm::scalar::ctx_pointer(&mut e.ops, 7, abi::OUTPUT_BANK0 as u32);
    asm::scalar::bind(&mut e.ops, top);
    let state = crate::kernel::BatchState::of(func);
    e.batch_reset(&state);
    e.clear_outputs(&plan.cleared, geometry);
    e.load_inputs(io, &plan.staged);
    for (i, &b) in order.iter().enumerate() {
        let label = e.labels[b.0 as usize];
        asm::scalar::bind(&mut e.ops, label);
        e.row_cache = None;
        let block = &func.blocks[b.0 as usize];
        let direct_exit = plan.direct_exits && block.term == Terminator::Exit;
        let tail = if direct_exit {
            crate::io_plan::trailing_outputs(&block.insts)
        } else {
            &[]
        };
        let body = &block.insts[..block.insts.len() - tail.len()];
        let mut k = 0;
        while k < body.len() {
            let inst = &body[k];
            let n = if inst.op == Op::Input && plan.direct_inputs[b.0 as usize] {
                let reg = inst.imm[0] & 15;
                let n = body[k..]
                    .iter()
                    .take_while(|x| x.op == Op::Input && x.imm[0] & 15 == reg)
                    .count();
                e.input_run(io, &body[k..k + n]);
                n
            } else {
                if !is_hoisted(inst) {
                    e.inst(inst);
                }
                1
            };
            for inst in &body[k..k + n] {
                if inst.dst.is_some() && inst.dst == e.row_cache.map(|(v, _)| v) {
                    e.row_cache = None;
                }
            }
            k += n;
        }
        if direct_exit {
            e.exit_store(io, tail, &plan);
            asm::scalar::batch_status(&mut e.ops, 0);
            if i + 1 < order.len() {
                asm::scalar::jump(&mut e.ops, advance);
            }
        } else {
            e.terminator(b, order.get(i + 1).copied());
        }
    }
    asm::scalar::bind(&mut e.ops, advance);
    let (step, out_step) = match io {
        IoMode::Aos => {
            let s = LANES as u32 * abi::AOS_VERTEX_BYTES as u32;
            (s, s)
        }
        IoMode::Soa => (LANES as u32 * 4, 0),
        // Indexed: W indices; stepped: W vertices (x2 counts them).
        IoMode::Draw(layout) => (
            match layout.order {
                DrawOrder::Indexed | DrawOrder::IndexedStrides(_) => LANES as u32 * 4,
                DrawOrder::Stepped(_) => LANES as u32,
            },
            LANES as u32 * abi::DRAW_VERTEX_BYTES as u32,
        ),
    };
    asm::scalar::next_batch(&mut e.ops, step, out_step, top);
    asm::scalar::bind(&mut e.ops, done);
    asm::scalar::leave(&mut e.ops);
    if plan.stub || !plan.direct_exits {
        // The invocation ended (where exits do not store themselves): the status word (the
        // lanes a function that retires lanes retired exhausted), outputs out from the bank (or
        // the retired lanes' outputs).
        asm::scalar::bind(&mut e.ops, batch_end);
        if state.status {
            let status = e.ctx(abi::STATUS, 4);
            asm::scalar::batch_status_from(&mut e.ops, status);
        } else {
            asm::scalar::batch_status(&mut e.ops, 0);
        }
        asm::scalar::bind(&mut e.ops, store);
        e.store_outputs(io, outs, func.retires_lanes());
        asm::scalar::jump(&mut e.ops, advance);
        asm::scalar::bind(&mut e.ops, exhausted);
        asm::scalar::batch_status(&mut e.ops, abi::all_exhausted(LANES));
        asm::scalar::jump(&mut e.ops, store);
        // Triangle buffer full (the host reruns the batch on the interpreter).
        asm::scalar::bind(&mut e.ops, overflow);
        asm::scalar::batch_status(&mut e.ops, abi::STATUS_OVERFLOW);
        asm::scalar::jump(&mut e.ops, store);
    }
    let code_len = e.ops.offset().0;
    clock.lap("emit");
    e.const_pool();
    let code = e
        .ops
        .finalize()
        .map_err(|err| CompileError::Asm(err.to_string()))?;
    clock.lap("assemble");
    Ok(Compiled {
        code,
        code_len,
        spill_slots: alloc.spill_slots,
        io,
    })
}

impl Emitter<'_> {
    fn loc(&self, v: Var) -> Loc {
        self.alloc.locs[v.0 as usize]
    }

    /// A checked context address for an access of `size` bytes.
    pub(crate) fn ctx(&mut self, offset: i32, size: u32) -> asm::CtxAddr {
        asm::ctx_addr(&mut self.ops, offset, size)
    }

    /// The register holding source `v`, loading a spilled value into `scratch`.
    pub(crate) fn src(&mut self, v: Var, scratch: u8) -> u8 {
        let leaf = self
            .prologue_leaves
            .and_then(|l| l.get(v.0 as usize).copied().flatten());
        if let Some(leaf) = leaf {
            match leaf {
                Leaf::Const(bits) => self.load_f32(scratch, f32::from_bits(bits)),
                Leaf::Uniform { row, comp } => {
                    let at = abi::uniform_row_offset(row, comp);
                    let a = self.ctx(at, 16);
                    asm::load_q(&mut self.ops, scratch, a);
                }
            }
            return scratch;
        }
        match self.loc(v) {
            Loc::Reg(r) => r,
            Loc::Spill(s) => {
                let a = self.ctx(abi::spill_offset(s), 16);
                asm::load_q(&mut self.ops, scratch, a);
                scratch
            }
            // A variable read but never written (only in dead code): any value will do. (`Remat`
            // is never allocated here: `compile` asks for none.)
            Loc::Remat | Loc::Unused => {
                asm::zero(&mut self.ops, scratch);
                scratch
            }
        }
    }

    /// The register a result for `v` is computed into.
    pub(crate) fn dst(&self, v: Var) -> u8 {
        match self.loc(v) {
            Loc::Reg(r) => r,
            Loc::Spill(_) | Loc::Remat | Loc::Unused => S0,
        }
    }

    /// Stores a result computed in `reg` if `v` lives in memory.
    #[inline]
    pub(crate) fn finish(&mut self, v: Var, reg: u8) {
        if let Loc::Spill(s) = self.loc(v) {
            self.spill(s, reg);
        }
    }

    /// Stores `reg` to spill slot `slot`.
    #[inline(never)]
    fn spill(&mut self, slot: u32, reg: u8) {
        let a = self.ctx(abi::spill_offset(slot), 16);
        asm::store_q(&mut self.ops, reg, a);
    }

    /// The label of a 16-byte constant row.
    fn const_row(&mut self, row: [u32; 4]) -> DynamicLabel {
        if let Some(&l) = self.consts.get(&row) {
            return l;
        }
        let l = self.ops.new_dynamic_label();
        self.consts.insert(row, l);
        l
    }

    /// Loads an f32 broadcast constant (immediate forms when they fit, else the pool).
    pub(crate) fn load_f32(&mut self, d: u8, value: f32) {
        if value.to_bits() == 0 {
            asm::zero(&mut self.ops, d);
        } else if !asm::fmov_imm(&mut self.ops, d, value) {
            self.load_u32(d, value.to_bits());
        }
    }

    /// Loads a 32-bit pattern broadcast constant.
    pub(crate) fn load_u32(&mut self, d: u8, bits: u32) {
        match bits {
            0 => asm::zero(&mut self.ops, d),
            u32::MAX => asm::ones(&mut self.ops, d),
            _ => {
                let l = self.const_row([bits; 4]);
                asm::load_const(&mut self.ops, d, l);
            }
        }
    }

    /// Loads a 64-bit pattern broadcast constant.
    pub(crate) fn load_u64(&mut self, d: u8, bits: u64) {
        let (lo, hi) = (bits as u32, (bits >> 32) as u32);
        let l = self.const_row([lo, hi, lo, hi]);
        asm::load_const(&mut self.ops, d, l);
    }

    fn const_pool(&mut self) {
        asm::scalar::align(&mut self.ops, 16);
        let mut rows: Vec<([u32; 4], DynamicLabel)> = self.consts.drain().collect();
        rows.sort_by_key(|(row, _)| *row);
        for (row, label) in rows {
            asm::scalar::bind(&mut self.ops, label);
            asm::scalar::words(&mut self.ops, &row);
        }
    }

    pub(crate) fn label(&self, b: BlockId) -> DynamicLabel {
        self.labels[b.0 as usize]
    }

    fn inst(&mut self, inst: &crate::ir::Inst) {
        use asm::VOp;
        let a = inst.args;
        let d = inst.dst.unwrap_or(Var(0));
        match inst.op {
            Op::FConst => self.fconst(d, f32::from_bits(inst.imm[0])),
            Op::IConst => self.iconst(d, inst.imm[0]),
            Op::MaskConst => self.mask_const(d, inst.imm[0] != 0),
            Op::Uniform => self.uniform(d, inst.imm[0], inst.imm[1]),
            Op::UniformAl => self.uniform_al(d, inst.imm[0], inst.imm[1]),
            Op::UniformIdx => self.uniform_idx(d, a[0], inst.imm[0], inst.imm[1]),
            Op::Const => self.constant(d, inst.imm[0], inst.imm[1]),
            Op::ConstIdx => self.const_idx(d, a[0], inst.imm[0], inst.imm[1]),
            Op::Input => self.input(d, inst.imm[0], inst.imm[1]),
            Op::Output => self.output(a[0], inst.imm[0], inst.imm[1]),
            Op::Mov | Op::MaskMov | Op::IMov => self.unary(asm::UOp::Mov, d, a[0]),
            Op::Neg => self.unary(asm::UOp::FNeg, d, a[0]),
            Op::Abs => self.abs(d, a[0]),
            Op::Add => self.binary(VOp::FAdd, d, a[0], a[1]),
            Op::Mul => self.binary(VOp::FMul, d, a[0], a[1]),
            Op::Max => self.max(d, a[0], a[1]),
            Op::Min => self.min(d, a[0], a[1]),
            Op::MaskAnd => self.binary(VOp::And, d, a[0], a[1]),
            Op::MaskOr => self.binary(VOp::Orr, d, a[0], a[1]),
            Op::PMul => self.pmul(d, a[0], a[1]),
            Op::Div => self.binary(VOp::FDiv, d, a[0], a[1]),
            Op::Sqrt => self.unary(asm::UOp::FSqrt, d, a[0]),
            Op::Floor => self.unary(asm::UOp::FRintM, d, a[0]),
            Op::QuadDiff => self.quad_diff(d, a[0], inst.imm[0] == 0),
            Op::Cmp => self.cmp(d, crate::ir::CmpKind::from_imm(inst.imm[0]), a[0], a[1]),
            Op::Select => self.select(d, a[0], a[1], a[2]),
            Op::MaskNot => self.unary(asm::UOp::Not, d, a[0]),
            Op::FtoiSat => self.unary(asm::UOp::FCvtzs, d, a[0]),
            Op::Rcp => self.rcp(d, a[0]),
            Op::Rsq => self.rsq(d, a[0]),
            Op::Ex2 => self.ex2(d, a[0]),
            Op::Lg2 => self.lg2(d, a[0]),
            Op::Sin => self.sin_cos(d, a[0], false),
            Op::Cos => self.sin_cos(d, a[0], true),
            Op::Pow => self.pow(d, a[0], a[1]),
            Op::LoopPush => self.loop_push(inst.imm[0], inst.imm[1]),
            Op::AlInc => self.al_inc(inst.imm[0]),
            Op::AlRestore => self.al_restore(inst.imm[0]),
            Op::Budget => self.budget(),
            Op::EmitSlot => self.emit_slot(a[0], inst.imm[0]),
            Op::EmitTri => self.emit_tri(a[0], a[1]),
            Op::IAdd => self.binary(VOp::AddS, d, a[0], a[1]),
            Op::IEq => self.binary(VOp::CmEqS, d, a[0], a[1]),
            Op::ILt => self.binary(VOp::CmGtS, d, a[1], a[0]),
            Op::LaneMin => self.lane_min(d, a[0]),
            Op::ISelect => self.select(d, a[0], a[1], a[2]),
            Op::MaskAndNot => self.binary(VOp::Bic, d, a[0], a[1]),
            Op::IntUniform => self.int_uniform(d, inst.imm[0], inst.imm[1]),
            Op::BoolMask => self.bool_mask(d, inst.imm[0]),
            Op::BudgetLanes => self.budget_lanes(d),
            Op::UniformLead => self.uniform_lead(d, a[0], a[1], inst.imm[0], inst.imm[1]),
            Op::Retire => self.retire(a[0], inst.imm[0]),
        }
    }
}
