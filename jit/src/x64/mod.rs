//! The x86-64 backend: IR → machine code for one tier (SSE4.1 with W = 4, AVX2 with W = 8,
//! AVX-512 with W = 16). One emitter serves every tier; the tiers differ only in [`asm`]'s
//! instruction forms (AVX-512's are EVEX chunks, `zmm`).
//!
//! Code is assembled with dynasm into a position-independent byte vector (constant pool at the
//! end, reached rip-relative), which [`crate::code`] maps executable. The generated function is
//! `extern "sysv64" fn(ctx: *mut abi::Context)`: `rdi` holds the context for its whole life;
//! `rax`, `rcx`, `rdx` are scratch; no stack is used.
//!
//! Vector registers: 0–10 are allocatable (and zmm16–31 on the AVX-512 tier), 11–14 are the
//! emitters' scratch (`S0`–`S3`), 15 belongs to [`asm`]; AVX-512's sequences use opmask k1 as
//! a temporary. A spilled source is loaded into `S0`/`S1`/`S2` (first, second, third
//! operand); a spilled result is computed in `S0` and stored. Multi-instruction sequences read
//! all their sources before they write their destination, so any aliasing is safe.
//!
//! Variables whose only definition is a constant or a broadcast uniform row take no register
//! ([`Loc::Remat`]): their definition emits nothing and each use reads the constant-pool row or
//! the context's uniform row — as the memory operand of the instruction where the form allows
//! (see `Opnd`), spilled sources likewise.
//!
//! Files by op family: `arith` (lane arithmetic, compares, masks, PICA multiply, conversions),
//! `special` (RCP, RSQ, EX2, LG2), `transcend` (AGAL's sin, cos, pow), `memory` (inputs,
//! outputs, uniforms and relative addressing), `flow` (terminators, loops, the step budget),
//! `lanes` (per-lane integer state and lane retirement of the lane-position model).

pub mod asm;

mod arith;
mod columns;
#[cfg(feature = "dump")]
mod dump;
pub mod evex;
mod flow;
mod io;
mod lanes;
mod memory;
mod row_lanes;
pub(crate) mod special;
pub mod transcend;
mod vex;
mod zmm;

use std::borrow::Cow;

use rustc_hash::FxHashMap as HashMap;

use dynasmrt::{DynamicLabel, DynasmApi};
use thiserror::Error;

use crate::abi;
use crate::facts::Leaf;
use crate::ir::{BlockId, Function, Inst, Op, Terminator, Var, Verified};
use crate::regalloc::{self, Allocation, Loc};
use crate::timings::Clock;

pub use asm::Tier;
use asm::{Mem, Ops};
#[cfg(feature = "dump")]
pub use dump::{disassemble, instruction_count};
pub use io::{DrawLayout, DrawOrder, DrawSlot, IoMode, DRAW_COLOR, DRAW_SLOTS, MAX_STEPPED_STRIDE};

/// Allocatable vector registers (SSE4.1 and AVX2).
pub const ALLOCATABLE: [u8; 11] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
/// Allocatable vector registers of the AVX-512 tier: those of the other tiers and zmm16–31
/// (the scratch registers and the layer's temporary stay 11–15 on every tier).
pub const ALLOCATABLE_AVX512: [u8; 27] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
    31,
];
/// Vector registers of the largest register file (arrays indexed by register).
pub(crate) const VREGS: usize = 32;

impl Tier {
    /// The registers the allocator may hand out on this tier.
    pub const fn allocatable(self) -> &'static [u8] {
        match self {
            Tier::Sse41 | Tier::Avx2 => &ALLOCATABLE,
            Tier::Avx512 => &ALLOCATABLE_AVX512,
        }
    }
}
const S0: u8 = 11;
const S1: u8 = 12;
const S2: u8 = 13;
const S3: u8 = 14;

/// Compilation failures (the engine falls back to the interpreter on any of them).
/// Why a function could not be compiled.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CompileError {
    /// Register allocation failed.
    #[error("register allocation: {0}")]
    Alloc(#[from] regalloc::AllocError),
    /// The assembler refused an instruction.
    #[error("assembler: {0}")]
    Asm(String),
    /// A variable is read before any write.
    #[error("the IR reads variable v{0} before any write")]
    Uninitialized(u32),
    /// An operation this backend does not compile.
    #[error("this backend does not compile {0} yet")]
    Unsupported(&'static str),
}

/// Machine code for one function, one tier and one I/O mode: `extern "sysv64" fn(*mut
/// Context)` that runs `ctx.io.batches` batches.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// Position-independent code; entry at offset 0.
    pub code: Vec<u8>,
    /// Tier it was compiled for.
    pub tier: Tier,
    /// Bytes of code before the constant pool.
    pub code_len: usize,
    /// Spill slots used.
    pub spill_slots: u32,
    /// I/O mode of the batch loop.
    pub io: IoMode,
}

impl Tier {
    /// The best tier this host supports (`None` when it lacks SSE4.1): AVX-512 where the CPU
    /// has F, VL, DQ and BW, else AVX2, else SSE4.1.
    pub fn host_best() -> Option<Tier> {
        if Tier::Avx512.host_supports() {
            Some(Tier::Avx512)
        } else if Tier::Avx2.host_supports() {
            Some(Tier::Avx2)
        } else if Tier::Sse41.host_supports() {
            Some(Tier::Sse41)
        } else {
            None
        }
    }

    /// True if code of this tier can run on this host.
    pub fn host_supports(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Tier::Sse41 => std::arch::is_x86_feature_detected!("sse4.1"),
                Tier::Avx2 => {
                    std::arch::is_x86_feature_detected!("avx2")
                        && std::arch::is_x86_feature_detected!("sse4.1")
                }
                // The kernels also use AVX2/SSE4.1 forms (VEX) between the EVEX ones.
                Tier::Avx512 => {
                    std::arch::is_x86_feature_detected!("avx512f")
                        && std::arch::is_x86_feature_detected!("avx512vl")
                        && std::arch::is_x86_feature_detected!("avx512dq")
                        && std::arch::is_x86_feature_detected!("avx512bw")
                        && std::arch::is_x86_feature_detected!("avx2")
                        && std::arch::is_x86_feature_detected!("sse4.1")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self;
            false
        }
    }
}

pub(crate) struct Emitter<'a> {
    pub(crate) ops: Ops,
    pub(crate) tier: Tier,
    func: &'a Function,
    alloc: &'a Allocation,
    labels: Vec<DynamicLabel>,
    /// Constant-pool rows (the first `tier.lanes()` words used, the rest zero) and their labels.
    consts: HashMap<[u32; abi::MAX_LANES], DynamicLabel>,
    /// The labels of the rows in `consts` that repeat one word, by that word: most constant
    /// reads find theirs here without building and hashing a whole row.
    broadcasts: HashMap<u32, DynamicLabel>,
    pub(crate) exhausted: DynamicLabel,
    pub(crate) batch_end: DynamicLabel,
    pub(crate) overflow: DynamicLabel,
    /// The (offset variable, base) whose per-lane uniform rows sit in scratch (see
    /// `memory.rs`); forgotten at block starts and when the variable is written.
    pub(crate) row_cache: Option<(Var, u32)>,
    /// Output registers the function writes (bit r): the only ones EMIT copies.
    pub(crate) outputs: u16,
    /// Per variable: the definition a [`Loc::Remat`] variable is re-read from.
    remat: &'a [Option<Leaf>],
}

/// A source operand: a register, or memory an instruction can read directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opnd {
    Reg(u8),
    Mem(Mem),
}

/// The input components (per register, bit c = component c) and output registers (bit r) of a
/// function: what the I/O stubs move.
pub fn io_sets(func: &Function) -> ([u8; 16], u16) {
    let mut ins = [0u8; 16];
    let mut outs = 0u16;
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        let (r, c) = ((inst.imm[0] & 15) as usize, inst.imm[1] & 3);
        if inst.op == Op::Input {
            ins[r] |= 1 << c;
        } else if inst.op == Op::Output {
            outs |= 1 << r;
        }
    }
    (ins, outs)
}

/// Why a kernel in I/O mode `io` cannot be built for a function of input components `ins`, if
/// it cannot: only draw kernels have conditions ([`DrawLayout::check`](io::DrawLayout::check)).
pub(crate) fn draw_check(io: IoMode, ins: &[u8; 16], geometry: bool) -> Option<&'static str> {
    match io {
        IoMode::Draw(layout) => layout.check(ins, geometry),
        IoMode::Aos | IoMode::Soa => None,
    }
}

/// Compiles a verified function for `tier` into a kernel that loops over the batches of a
/// run in I/O mode `io`.
pub fn compile(func: &Verified, tier: Tier, io: IoMode) -> Result<Compiled, CompileError> {
    compile_timed(func, tier, io, &mut Clock::off())
}

/// The order [`compile`] emits `func`'s instructions in for `tier`, if it is not the IR's: its
/// one block ordered for latency ([`crate::opt::schedule`]).
pub fn emitted_order(func: &Verified, tier: Tier) -> Option<Vec<Inst>> {
    crate::kernel::reordered(func, &schedule(func, tier))
}

/// The function [`compile`] emits for `tier` (re-read constants and uniforms take no register).
fn schedule(func: &Verified, tier: Tier) -> Cow<'_, Function> {
    crate::kernel::scheduled(func, tier.allocatable().len(), true)
}

/// [`compile`], lapping `clock` at its phase boundaries (backend prepare, liveness, regalloc,
/// emit, assemble).
pub fn compile_timed(
    func: &Verified,
    tier: Tier,
    io: IoMode,
    clock: &mut Clock<'_>,
) -> Result<Compiled, CompileError> {
    let facts = func.facts();
    let (verified, scheduled) = (func, schedule(func, tier));
    let func: &Function = &scheduled;
    let (ins, outs) = io_sets(func);
    let geometry = func
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| matches!(i.op, Op::EmitSlot | Op::EmitTri));
    if let Some(why) = draw_check(io, &ins, geometry) {
        return Err(CompileError::Unsupported(why));
    }
    let mut plan = crate::io_plan::Plan::new(func, outs, geometry, io.copyable());
    let (remat, hoisted) = (&facts.leaves[..], &facts.hoisted[..]);
    let alloc = crate::kernel::allocate(
        verified,
        func,
        tier.allocatable(),
        remat,
        hoisted,
        &plan.elided,
        clock,
    )?;
    if io == IoMode::Aos {
        let invariant = |v: Var| remat[v.0 as usize].is_some() || hoisted[v.0 as usize];
        plan.place_rows(func, &invariant, alloc.spill_slots, abi::SPILL_SLOTS as u32);
    }
    // The code buffer reserved up front from the instruction count, so emission does not grow
    // it by copying: AVX2 code of generated programs takes about 19 bytes per IR instruction
    // straight, 25–27 branchy (selects, spills), so 32 (SSE4.1's copies and AVX-512's longer
    // encodings may still grow it).
    let insts = func.blocks.iter().map(|b| b.insts.len()).sum::<usize>();
    let labels = func.blocks.len() + 8;
    let mut ops = Ops::new_with_capacity(0, 32 * insts + 4096, 0, 0, labels, 0, 2 * labels);
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
        tier,
        func,
        alloc: &alloc,
        labels,
        consts: HashMap::default(),
        broadcasts: HashMap::default(),
        exhausted,
        batch_end,
        overflow,
        row_cache: None,
        outputs: outs,
        remat,
    };
    // Batch loop head: registers (a stepped draw kernel's kept attribute bases first),
    // per-batch state, staged inputs in, outputs cleared.
    e.keep_bases(io);
    asm::scalar::io_setup(
        &mut e.ops,
        abi::IO_INPUT,
        abi::IO_OUTPUT,
        abi::IO_STATUS,
        abi::IO_BATCHES,
        done,
    );
    let (step, rsi_from_zero) = io::batch_step(io, tier);
    if rsi_from_zero {
        asm::scalar::zero_rsi(&mut e.ops);
    }
    // Values the same for the whole run, once.
    let order = alloc.order.clone();
    let is_hoisted = |inst: &crate::ir::Inst| inst.dst.is_some_and(|d| hoisted[d.0 as usize]);
    for &b in &order {
        for inst in func.blocks[b.0 as usize]
            .insts
            .iter()
            .filter(|i| is_hoisted(i))
        {
            e.inst(inst);
        }
    }
    e.invariant_rows(func, &plan);
    asm::scalar::set_bank(&mut e.ops, abi::OUTPUT_BANK0);
    asm::scalar::bind(&mut e.ops, top);
    let state = crate::kernel::BatchState::of(func);
    // A draw's caller zeroes the status words ([`crate::code::ExecCode::run_draw`]): its
    // kernel writes only the non-zero ones, and none at all without a step budget or lane
    // retirement.
    let draw = matches!(io, IoMode::Draw(_));
    let silent = draw && !state.budget && !state.status;
    if state.budget {
        asm::scalar::reset_budget(&mut e.ops, abi::IO_BUDGET, abi::BUDGET);
    }
    if state.al {
        asm::scalar::reset_al(&mut e.ops, abi::AL);
    }
    if state.status {
        asm::scalar::reset_status(&mut e.ops, abi::STATUS);
    }
    e.clear_outputs(&plan.cleared, geometry);
    e.load_inputs(io, &plan.staged);
    // The program.
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
                e.input_run(io, &body[k..k + n], &plan.elided);
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
            e.exit_store(io, b.0, tail, &plan);
            if !draw {
                asm::scalar::batch_status(&mut e.ops, 0);
            }
            if i + 1 < order.len() {
                asm::scalar::jump(&mut e.ops, advance);
            }
        } else {
            e.terminator(b, order.get(i + 1).copied());
        }
    }
    // Batch loop tail: next batch.
    asm::scalar::bind(&mut e.ops, advance);
    e.advance_arrays(io);
    let out_step = match io {
        IoMode::Aos => tier.lanes() as i32 * abi::AOS_VERTEX_BYTES,
        IoMode::Soa => 0,
        IoMode::Draw(_) => tier.lanes() as i32 * abi::DRAW_VERTEX_BYTES,
    };
    asm::scalar::next_batch(&mut e.ops, step, out_step, silent, top);
    asm::scalar::bind(&mut e.ops, done);
    e.restore_bases(io);
    asm::leave(&mut e.ops, tier);
    if plan.stub || !plan.direct_exits {
        // The invocation ended (where exits do not store themselves): the status word (the
        // lanes a function that retires lanes retired exhausted), outputs out from the bank (or
        // the retired lanes' outputs).
        asm::scalar::bind(&mut e.ops, batch_end);
        if state.status {
            asm::scalar::batch_status_from(&mut e.ops, abi::STATUS);
        } else if !draw {
            asm::scalar::batch_status(&mut e.ops, 0);
        }
        asm::scalar::bind(&mut e.ops, store);
        e.store_outputs(io, outs, func.retires_lanes());
        asm::scalar::jump(&mut e.ops, advance);
        // Budget exhausted: every lane's bit, outputs as they are.
        asm::scalar::bind(&mut e.ops, exhausted);
        asm::scalar::batch_status(&mut e.ops, abi::all_exhausted(tier.lanes()) as i32);
        asm::scalar::jump(&mut e.ops, store);
        // Triangle buffer full (the host reruns the batch on the interpreter).
        asm::scalar::bind(&mut e.ops, overflow);
        asm::scalar::batch_status(&mut e.ops, abi::STATUS_OVERFLOW as i32);
        asm::scalar::jump(&mut e.ops, store);
    }
    let code_len = e.ops.offset().0;
    clock.lap("emit");
    e.const_pool();
    let mut code = e
        .ops
        .finalize()
        .map_err(|err| CompileError::Asm(err.to_string()))?;
    code.shrink_to_fit();
    clock.lap("assemble");
    Ok(Compiled {
        code,
        tier,
        code_len,
        spill_slots: alloc.spill_slots + plan.rows.len() as u32,
        io,
    })
}

impl Emitter<'_> {
    fn loc(&self, v: Var) -> Loc {
        self.alloc.locs[v.0 as usize]
    }

    /// The register holding source `v`, loading a value kept in memory into `scratch`.
    pub(crate) fn src(&mut self, v: Var, scratch: u8) -> u8 {
        match self.operand(v, scratch) {
            Opnd::Reg(r) => r,
            Opnd::Mem(m) => {
                asm::load(&mut self.ops, self.tier, scratch, m);
                scratch
            }
        }
    }

    /// Source `v` as an operand: its register, or the memory it is kept in (a spill slot, a
    /// constant-pool row, a uniform row). A variable read but never written (the frontend
    /// initializes what it reads, so this only happens for dead code) is zeroed in `scratch`:
    /// any value will do.
    #[inline]
    pub(crate) fn operand(&mut self, v: Var, scratch: u8) -> Opnd {
        match self.loc(v) {
            Loc::Reg(r) => Opnd::Reg(r),
            Loc::Spill(s) => Opnd::Mem(Mem::Ctx(abi::spill_offset(s))),
            Loc::Remat | Loc::Unused => self.remat_operand(v, scratch),
        }
    }

    /// [`Emitter::operand`] of a variable that has no register or spill slot.
    #[inline(never)]
    fn remat_operand(&mut self, v: Var, scratch: u8) -> Opnd {
        match self.remat.get(v.0 as usize).copied().flatten() {
            Some(leaf) if self.loc(v) == Loc::Remat => Opnd::Mem(self.remat_mem(leaf)),
            Some(_) | None => {
                asm::zero(&mut self.ops, self.tier, scratch);
                Opnd::Reg(scratch)
            }
        }
    }

    /// Where a rematerialized variable reads its value.
    fn remat_mem(&mut self, leaf: Leaf) -> Mem {
        match leaf {
            Leaf::Uniform { row, comp } => Mem::Uniform { index: row, comp },
            Leaf::Const(bits) => Mem::Const(self.const_row(&[bits])),
        }
    }

    /// The register a result for `v` is computed into.
    pub(crate) fn dst(&self, v: Var) -> u8 {
        match self.loc(v) {
            Loc::Reg(r) => r,
            Loc::Spill(_) | Loc::Remat | Loc::Unused => S0,
        }
    }

    /// `d = a op b` for a result variable `d`, reading a memory operand directly where the
    /// form allows (the second source; the first too if `op` is commutative).
    pub(crate) fn binary(&mut self, op: asm::VOp, d: Var, a: Var, b: Var) {
        let x = self.operand(a, S0);
        let y = self.operand(b, S1);
        let r = self.dst(d);
        self.vop_opnd(op, r, x, y);
        self.finish(d, r);
    }

    /// `r = x op y` on operands; a memory first source that cannot swap is loaded into `S0`
    /// (SSE4.1: straight into `r`, the destructive form's destination, unless `y` is in `r`;
    /// then the result is made in `S0` and copied, one copy where loading into `S0` took two).
    #[inline]
    pub(crate) fn vop_opnd(&mut self, op: asm::VOp, r: u8, x: Opnd, y: Opnd) {
        let t = self.tier;
        match (x, y) {
            (Opnd::Reg(x), Opnd::Reg(y)) => asm::vop(&mut self.ops, t, op, r, x, y),
            (Opnd::Reg(x), Opnd::Mem(m)) => asm::vop_m(&mut self.ops, t, op, r, x, m),
            (Opnd::Mem(m), Opnd::Reg(y)) if op.commutative() => {
                asm::vop_m(&mut self.ops, t, op, r, y, m)
            }
            (Opnd::Mem(m), y) => self.vop_mem_first(op, r, m, y),
        }
    }

    /// [`Emitter::vop_opnd`] with a memory first source that stays first.
    #[inline(never)]
    fn vop_mem_first(&mut self, op: asm::VOp, r: u8, m: Mem, y: Opnd) {
        let t = self.tier;
        if t == asm::Tier::Sse41 {
            let into = if y == Opnd::Reg(r) { S0 } else { r };
            asm::load(&mut self.ops, t, into, m);
            self.vop_opnd(op, into, Opnd::Reg(into), y);
            if into != r {
                asm::mov(&mut self.ops, t, r, into);
            }
        } else {
            asm::load(&mut self.ops, t, S0, m);
            self.vop_opnd(op, r, Opnd::Reg(S0), y);
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
        asm::store(&mut self.ops, self.tier, abi::spill_offset(slot), reg);
    }

    /// The label of a constant row: `words` repeated to fill one vector register.
    pub(crate) fn const_row(&mut self, words: &[u32]) -> DynamicLabel {
        if let [word] = *words {
            if let Some(&l) = self.broadcasts.get(&word) {
                return l;
            }
            let l = self.row_label(words);
            self.broadcasts.insert(word, l);
            return l;
        }
        self.row_label(words)
    }

    /// [`Emitter::const_row`] through the table of whole rows.
    fn row_label(&mut self, words: &[u32]) -> DynamicLabel {
        let per_row = self.tier.lanes();
        let mut row = [0u32; abi::MAX_LANES];
        for (slot, &w) in row[..per_row].iter_mut().zip(words.iter().cycle()) {
            *slot = w;
        }
        if let Some(&l) = self.consts.get(&row) {
            return l;
        }
        let l = self.ops.new_dynamic_label();
        self.consts.insert(row, l);
        l
    }

    /// Loads an f32 broadcast constant.
    pub(crate) fn load_f32(&mut self, d: u8, value: f32) {
        let l = self.const_row(&[value.to_bits()]);
        asm::load(&mut self.ops, self.tier, d, Mem::Const(l));
    }

    /// Loads a 32-bit pattern broadcast constant.
    pub(crate) fn load_u32(&mut self, d: u8, bits: u32) {
        let l = self.const_row(&[bits]);
        asm::load(&mut self.ops, self.tier, d, Mem::Const(l));
    }

    /// Loads a 64-bit pattern broadcast constant.
    pub(crate) fn load_u64(&mut self, d: u8, bits: u64) {
        let l = self.const_row(&[bits as u32, (bits >> 32) as u32]);
        asm::load(&mut self.ops, self.tier, d, Mem::Const(l));
    }

    fn const_pool(&mut self) {
        asm::scalar::align(&mut self.ops, self.tier.bytes().max(32));
        let per_row = self.tier.lanes();
        let mut rows: Vec<([u32; abi::MAX_LANES], DynamicLabel)> = self.consts.drain().collect();
        rows.sort_unstable_by_key(|&(row, _)| row);
        for (row, label) in rows {
            asm::scalar::bind(&mut self.ops, label);
            asm::scalar::words(&mut self.ops, &row[..per_row]);
        }
    }

    pub(crate) fn label(&self, b: BlockId) -> DynamicLabel {
        self.labels[b.0 as usize]
    }

    fn inst(&mut self, inst: &crate::ir::Inst) {
        let a = inst.args;
        let d = inst.dst.unwrap_or(Var(0));
        if inst.dst.is_some() && self.loc(d) == Loc::Remat {
            // Read where it is used.
            return;
        }
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
            Op::Mov | Op::MaskMov | Op::IMov => self.copy(d, a[0]),
            Op::Neg => self.neg(d, a[0]),
            Op::Abs => self.abs(d, a[0]),
            Op::Add => self.binary(asm::VOp::AddPs, d, a[0], a[1]),
            Op::Mul => self.binary(asm::VOp::MulPs, d, a[0], a[1]),
            Op::Max => self.binary(asm::VOp::MaxPs, d, a[0], a[1]),
            Op::Min => self.binary(asm::VOp::MinPs, d, a[0], a[1]),
            Op::MaskAnd => self.binary(asm::VOp::AndPs, d, a[0], a[1]),
            Op::MaskOr => self.binary(asm::VOp::OrPs, d, a[0], a[1]),
            Op::PMul => self.pmul(d, a[0], a[1]),
            Op::Div => self.binary(asm::VOp::DivPs, d, a[0], a[1]),
            Op::Sqrt => self.sqrt(d, a[0]),
            Op::Floor => self.floor(d, a[0]),
            Op::QuadDiff => self.quad_diff(d, a[0], inst.imm[0] == 0),
            Op::Cmp => self.cmp(d, crate::ir::CmpKind::from_imm(inst.imm[0]), a[0], a[1]),
            Op::Select => self.select(d, a[0], a[1], a[2]),
            Op::MaskNot => self.mask_not(d, a[0]),
            Op::FtoiSat => self.ftoi_sat(d, a[0]),
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
            Op::IAdd => self.binary(asm::VOp::PAddD, d, a[0], a[1]),
            Op::IEq => self.binary(asm::VOp::PCmpEqD, d, a[0], a[1]),
            // a < b = b > a.
            Op::ILt => self.binary(asm::VOp::PCmpGtD, d, a[1], a[0]),
            Op::LaneMin => self.lane_min(d, a[0]),
            Op::ISelect => self.select(d, a[0], a[1], a[2]),
            // a & !b = andn(b, a).
            Op::MaskAndNot => self.binary(asm::VOp::AndnPs, d, a[1], a[0]),
            Op::IntUniform => self.int_uniform(d, inst.imm[0], inst.imm[1]),
            Op::BoolMask => self.bool_mask(d, inst.imm[0]),
            Op::BudgetLanes => self.budget_lanes(d),
            Op::UniformLead => self.uniform_lead(d, a[0], a[1], inst.imm[0], inst.imm[1]),
            Op::Retire => self.retire(a[0], inst.imm[0]),
        }
    }
}
