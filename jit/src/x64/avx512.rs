//! The first AVX-512 kernel: W = 16 lanes, SoA I/O, straight-line lane arithmetic only — the
//! groundwork the `x64-avx512` tier grows from. Every instruction is an EVEX or opmask chunk
//! from [`super::evex`] spliced between dynasm's general-purpose batch loop
//! ([`super::asm::scalar`]); 28 zmm registers are allocatable (zmm28–31 are scratch), spills go
//! to the context's 64-byte slots, and the constants a kernel needs are written once into
//! spill slots past the allocator's and read as `{1to16}` broadcast operands (chunks carry no
//! rip-relative operand). It runs where the CPU has AVX-512 F/VL/DQ, and anywhere through the
//! test emulator (`crate::emu`, feature `emu`).
//!
//! A function with control flow, or with any operation beyond inputs, outputs, constants,
//! uniforms without an index, moves, sign operations, add, multiply (plain and PICA), min, max,
//! divide, square root and floor, is refused ([`CompileError::Unsupported`]).

use super::asm::{self, Ops, Tier};
use super::evex::{encode, encode_k, splice, Inst, KOp, Mem, Op as E, Rm, Vl};
use super::CompileError;
use crate::abi;
use crate::ir::{Function, Op, Terminator, Var};
use crate::regalloc::{Allocation, Loc};
use crate::timings::Clock;

/// Lanes per batch.
pub const LANES: usize = 16;
/// Allocatable zmm registers.
const ALLOCATABLE: [u8; 28] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
    26, 27,
];
const T0: u8 = 28;
const T1: u8 = 29;
const T2: u8 = 30;
const T3: u8 = 31;
const RAX: u8 = 0;
const RSI: u8 = 6;
const RDI: u8 = 7;
const SIGN: u32 = 0x8000_0000;
const MAGNITUDE: u32 = 0x7FFF_FFFF;

/// A W = 16 SoA kernel: `extern "sysv64" fn(*mut Context)` running `ctx.io.batches` batches of
/// planar buffers like the SSE4.1/AVX2 SoA kernels.
#[derive(Clone, Debug)]
pub struct Kernel16 {
    /// Position-independent code; entry at offset 0.
    pub code: Vec<u8>,
    /// Spill slots used (the allocator's and the constants').
    pub spill_slots: u32,
    /// EVEX and opmask instructions encoded.
    pub evex_instructions: usize,
}

struct Emitter<'a> {
    ops: Ops,
    alloc: &'a Allocation,
    consts: Vec<u32>,
    const_base: u32,
    evex: usize,
}

fn ctx(disp: i32) -> Rm {
    Rm::Mem(Mem::base(RDI, disp))
}

fn plane() -> Rm {
    Rm::Mem(Mem {
        base: RAX,
        index: Some((RSI, 1)),
        disp: 0,
    })
}

impl Emitter<'_> {
    fn ev(&mut self, i: Inst) -> Result<(), CompileError> {
        let c = encode(&i).map_err(|e| CompileError::Asm(e.to_string()))?;
        splice(&mut self.ops, &c);
        self.evex += 1;
        Ok(())
    }

    fn k(&mut self, op: KOp, d: u8, s: u8, rm: u8) -> Result<(), CompileError> {
        let c = encode_k(op, d, s, Rm::Reg(rm)).map_err(|e| CompileError::Asm(e.to_string()))?;
        splice(&mut self.ops, &c);
        self.evex += 1;
        Ok(())
    }

    fn z(&mut self, op: E, d: u8, s: u8, rm: Rm) -> Result<(), CompileError> {
        self.ev(Inst::rvm(op, Vl::V512, d, s, rm))
    }

    /// The context displacement of constant `bits` (one 32-bit word of a spill slot).
    fn constant(&mut self, bits: u32) -> i32 {
        let k = match self.consts.iter().position(|&c| c == bits) {
            Some(k) => k,
            None => {
                self.consts.push(bits);
                self.consts.len() - 1
            }
        };
        abi::spill_offset(self.const_base + (k / LANES) as u32) + 4 * (k % LANES) as i32
    }

    /// The register holding `v`, loading a spilled value into `scratch`.
    fn src(&mut self, v: Var, scratch: u8) -> Result<u8, CompileError> {
        match self.alloc.locs[v.0 as usize] {
            Loc::Reg(r) => Ok(r),
            Loc::Spill(s) => {
                self.z(E::MovapsLoad, scratch, 0, ctx(abi::spill_offset(s)))?;
                Ok(scratch)
            }
            Loc::Remat | Loc::Unused => {
                self.z(E::PXorD, scratch, scratch, Rm::Reg(scratch))?;
                Ok(scratch)
            }
        }
    }

    fn dst(&self, v: Var) -> u8 {
        match self.alloc.locs[v.0 as usize] {
            Loc::Reg(r) => r,
            Loc::Spill(_) | Loc::Remat | Loc::Unused => T0,
        }
    }

    fn finish(&mut self, v: Var, r: u8) -> Result<(), CompileError> {
        if let Loc::Spill(s) = self.alloc.locs[v.0 as usize] {
            self.z(E::MovapsStore, r, 0, ctx(abi::spill_offset(s)))?;
        }
        Ok(())
    }

    fn binary(&mut self, op: E, d: Var, a: Var, b: Var) -> Result<(), CompileError> {
        let x = self.src(a, T1)?;
        let y = self.src(b, T2)?;
        let r = self.dst(d);
        self.z(op, r, x, Rm::Reg(y))?;
        self.finish(d, r)
    }

    /// `d = a op {1to16}bits`.
    fn with_constant(&mut self, op: E, d: Var, a: Var, bits: u32) -> Result<(), CompileError> {
        let x = self.src(a, T1)?;
        let r = self.dst(d);
        let disp = self.constant(bits);
        self.ev(Inst {
            bcst: true,
            ..Inst::rvm(op, Vl::V512, r, x, ctx(disp))
        })?;
        self.finish(d, r)
    }

    fn unary(&mut self, op: E, imm: u8, d: Var, a: Var) -> Result<(), CompileError> {
        let x = self.src(a, T1)?;
        let r = self.dst(d);
        self.ev(Inst {
            imm,
            ..Inst::rvm(op, Vl::V512, r, 0, Rm::Reg(x))
        })?;
        self.finish(d, r)
    }

    /// PICA multiply: the product, except +0 where it is NaN but no input is (0 × inf).
    fn pmul(&mut self, d: Var, a: Var, b: Var) -> Result<(), CompileError> {
        let x = self.src(a, T1)?;
        let y = self.src(b, T2)?;
        self.z(E::MulPs, T3, x, Rm::Reg(y))?;
        // k1 = the product is ordered; k2 = an input is NaN; keep the product where either.
        self.ev(Inst {
            imm: 7,
            ..Inst::rvm(E::CmpPs, Vl::V512, 1, T3, Rm::Reg(T3))
        })?;
        self.ev(Inst {
            imm: 3,
            ..Inst::rvm(E::CmpPs, Vl::V512, 2, x, Rm::Reg(y))
        })?;
        self.k(KOp::KOrW, 1, 1, 2)?;
        let r = self.dst(d);
        self.ev(Inst {
            mask: 1,
            zeroing: true,
            ..Inst::rvm(E::MovapsLoad, Vl::V512, r, 0, Rm::Reg(T3))
        })?;
        self.finish(d, r)
    }

    fn inst(&mut self, inst: &crate::ir::Inst) -> Result<(), CompileError> {
        let a = inst.args;
        let d = inst.dst.unwrap_or(Var(0));
        match inst.op {
            Op::FConst => {
                let r = self.dst(d);
                let disp = self.constant(inst.imm[0]);
                self.z(E::BroadcastSs, r, 0, ctx(disp))?;
                self.finish(d, r)
            }
            Op::Uniform => {
                let r = self.dst(d);
                let disp = abi::uniform_offset(inst.imm[0] & 0x7F, inst.imm[1] & 3);
                self.z(E::BroadcastSs, r, 0, ctx(disp))?;
                self.finish(d, r)
            }
            Op::Input => {
                let r = self.dst(d);
                asm::scalar::load_rax(
                    &mut self.ops,
                    abi::plane_in((inst.imm[0] & 15) * 4 + (inst.imm[1] & 3)),
                );
                self.z(E::MovupsLoad, r, 0, plane())?;
                self.finish(d, r)
            }
            Op::Output => {
                let s = self.src(a[0], T1)?;
                asm::scalar::load_rax(
                    &mut self.ops,
                    abi::plane_out((inst.imm[0] & 15) * 4 + (inst.imm[1] & 3)),
                );
                self.z(E::MovupsStore, s, 0, plane())
            }
            Op::Mov => {
                let s = self.src(a[0], T1)?;
                let r = self.dst(d);
                if r != s {
                    self.z(E::MovapsLoad, r, 0, Rm::Reg(s))?;
                }
                self.finish(d, r)
            }
            Op::Neg => self.with_constant(E::XorPs, d, a[0], SIGN),
            Op::Abs => self.with_constant(E::AndPs, d, a[0], MAGNITUDE),
            Op::Add => self.binary(E::AddPs, d, a[0], a[1]),
            Op::Mul => self.binary(E::MulPs, d, a[0], a[1]),
            Op::Max => self.binary(E::MaxPs, d, a[0], a[1]),
            Op::Min => self.binary(E::MinPs, d, a[0], a[1]),
            Op::Div => self.binary(E::DivPs, d, a[0], a[1]),
            Op::PMul => self.pmul(d, a[0], a[1]),
            Op::Sqrt => self.unary(E::SqrtPs, 0, d, a[0]),
            // Round down, exceptions suppressed (as `roundps` with 9).
            Op::Floor => self.unary(E::RndScalePs, 9, d, a[0]),
            Op::IConst => Err(CompileError::Unsupported("iconst (avx512 prototype)")),
            Op::MaskConst => Err(CompileError::Unsupported("maskconst (avx512 prototype)")),
            Op::UniformAl => Err(CompileError::Unsupported("uniform.al (avx512 prototype)")),
            Op::UniformIdx => Err(CompileError::Unsupported("uniform.idx (avx512 prototype)")),
            Op::Const => Err(CompileError::Unsupported("const (avx512 prototype)")),
            Op::ConstIdx => Err(CompileError::Unsupported("const.idx (avx512 prototype)")),
            Op::MaskMov => Err(CompileError::Unsupported("maskmov (avx512 prototype)")),
            Op::IMov => Err(CompileError::Unsupported("imov (avx512 prototype)")),
            Op::MaskAnd => Err(CompileError::Unsupported("maskand (avx512 prototype)")),
            Op::MaskOr => Err(CompileError::Unsupported("maskor (avx512 prototype)")),
            Op::QuadDiff => Err(CompileError::Unsupported("quaddiff (avx512 prototype)")),
            Op::Cmp => Err(CompileError::Unsupported("cmp (avx512 prototype)")),
            Op::Select => Err(CompileError::Unsupported("select (avx512 prototype)")),
            Op::MaskNot => Err(CompileError::Unsupported("masknot (avx512 prototype)")),
            Op::FtoiSat => Err(CompileError::Unsupported("ftoi (avx512 prototype)")),
            Op::Rcp => Err(CompileError::Unsupported("rcp (avx512 prototype)")),
            Op::Rsq => Err(CompileError::Unsupported("rsq (avx512 prototype)")),
            Op::Ex2 => Err(CompileError::Unsupported("ex2 (avx512 prototype)")),
            Op::Lg2 => Err(CompileError::Unsupported("lg2 (avx512 prototype)")),
            Op::Sin => Err(CompileError::Unsupported("sin (avx512 prototype)")),
            Op::Cos => Err(CompileError::Unsupported("cos (avx512 prototype)")),
            Op::Pow => Err(CompileError::Unsupported("pow (avx512 prototype)")),
            Op::LoopPush => Err(CompileError::Unsupported("loop (avx512 prototype)")),
            Op::AlInc => Err(CompileError::Unsupported("al.inc (avx512 prototype)")),
            Op::AlRestore => Err(CompileError::Unsupported("al.restore (avx512 prototype)")),
            Op::Budget => Err(CompileError::Unsupported("budget (avx512 prototype)")),
            Op::EmitSlot => Err(CompileError::Unsupported("emit (avx512 prototype)")),
            Op::EmitTri => Err(CompileError::Unsupported("emit (avx512 prototype)")),
            Op::IAdd => Err(CompileError::Unsupported("iadd (avx512 prototype)")),
            Op::IEq => Err(CompileError::Unsupported("ieq (avx512 prototype)")),
            Op::ILt => Err(CompileError::Unsupported("ilt (avx512 prototype)")),
            Op::LaneMin => Err(CompileError::Unsupported("lanemin (avx512 prototype)")),
            Op::ISelect => Err(CompileError::Unsupported("iselect (avx512 prototype)")),
            Op::MaskAndNot => Err(CompileError::Unsupported("maskandnot (avx512 prototype)")),
            Op::IntUniform => Err(CompileError::Unsupported("int uniform (avx512 prototype)")),
            Op::BoolMask => Err(CompileError::Unsupported("boolmask (avx512 prototype)")),
            Op::BudgetLanes => Err(CompileError::Unsupported("budget lanes (avx512 prototype)")),
            Op::UniformLead => Err(CompileError::Unsupported("uniform lead (avx512 prototype)")),
            Op::Retire => Err(CompileError::Unsupported("retire (avx512 prototype)")),
        }
    }
}

/// Compiles a straight-line function into a W = 16 SoA kernel (see the module docs for what
/// is refused).
pub fn compile_soa16(func: &Function) -> Result<Kernel16, CompileError> {
    let n = func.vars.len();
    let alloc = crate::kernel::allocate(
        func,
        &ALLOCATABLE,
        &vec![None; n],
        &vec![false; n],
        &vec![false; n],
        &mut Clock::off(),
    )?;
    for (i, &b) in alloc.order.iter().enumerate() {
        let next = alloc.order.get(i + 1).copied();
        match func.blocks[b.0 as usize].term {
            Terminator::Jump(t) if Some(t) == next => {}
            Terminator::Exit if next.is_none() => {}
            Terminator::Jump(_)
            | Terminator::Exit
            | Terminator::BranchBool { .. }
            | Terminator::BranchUniform { .. }
            | Terminator::BranchAny { .. }
            | Terminator::LoopNext { .. } => {
                return Err(CompileError::Unsupported("control flow (avx512 prototype)"))
            }
        }
    }
    let (_, outs) = super::io_sets(func);
    let mut written = [0u8; 16];
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if inst.op == Op::Output {
            written[(inst.imm[0] & 15) as usize] |= 1 << (inst.imm[1] & 3);
        }
    }
    let mut e = Emitter {
        ops: Ops::new(0),
        alloc: &alloc,
        consts: Vec::new(),
        const_base: alloc.spill_slots,
        evex: 0,
    };
    let (top, done) = (e.ops.new_dynamic_label(), e.ops.new_dynamic_label());
    asm::scalar::io_setup(
        &mut e.ops,
        abi::IO_INPUT,
        abi::IO_OUTPUT,
        abi::IO_STATUS,
        abi::IO_BATCHES,
        done,
    );
    asm::scalar::zero_rsi(&mut e.ops);
    // The constants are only known after the body: emit it into its own assembler first.
    let prologue = std::mem::replace(&mut e.ops, Ops::new(0));
    // Components of written output registers that the function never writes are 0.
    e.z(E::PXorD, T0, T0, Rm::Reg(T0))?;
    for r in 0..16u32 {
        if outs >> r & 1 == 0 {
            continue;
        }
        for c in (0..4u32).filter(|c| written[r as usize] >> c & 1 == 0) {
            asm::scalar::load_rax(&mut e.ops, abi::plane_out(r * 4 + c));
            e.z(E::MovupsStore, T0, 0, plane())?;
        }
    }
    for &b in &alloc.order {
        for inst in &func.blocks[b.0 as usize].insts {
            e.inst(inst)?;
        }
    }
    let body = std::mem::replace(&mut e.ops, prologue);
    let body = body
        .finalize()
        .map_err(|err| CompileError::Asm(err.to_string()))?;
    let const_slots = e.consts.len().div_ceil(LANES) as u32;
    if (e.const_base + const_slots) as usize > abi::SPILL_SLOTS {
        return Err(CompileError::Unsupported(
            "constants beyond the spill slots",
        ));
    }
    for k in 0..e.consts.len() {
        let disp = abi::spill_offset(e.const_base + (k / LANES) as u32) + 4 * (k % LANES) as i32;
        asm::scalar::store_imm(&mut e.ops, disp, e.consts[k] as i32);
    }
    asm::scalar::bind(&mut e.ops, top);
    e.ops.extend(body.iter().copied());
    asm::scalar::batch_status(&mut e.ops, 0);
    asm::scalar::next_batch(&mut e.ops, (LANES * 4) as i32, 0, top);
    asm::scalar::bind(&mut e.ops, done);
    asm::leave(&mut e.ops, Tier::Avx2);
    let code = e
        .ops
        .finalize()
        .map_err(|err| CompileError::Asm(err.to_string()))?;
    Ok(Kernel16 {
        code,
        spill_slots: e.const_base + const_slots,
        evex_instructions: e.evex,
    })
}
