//! The thin layer between the AArch64 emitters and dynasm: every A64 instruction form the
//! backend uses. Emitters never write `dynasm!` themselves, so the audit test
//! (`tests/aarch64_audit.rs`) can decode every template here and compare it with the intended
//! instruction.
//!
//! dynasm panics at emission when a runtime immediate does not fit its field (a load offset
//! that is not a multiple of the access size or too large, an `add` immediate above 4095, a
//! logical immediate that is no bitmask pattern, …). Every template that takes an immediate
//! either takes a value this file has checked ([`CtxAddr`] for context offsets, built only by
//! [`ctx_addr`]) or a small constant named in its documentation; [`ctx_addr`] falls back to
//! materializing the address in [`ADDR`] with `movz`/`movk` when no base register reaches.
//!
//! Register conventions of the generated function (AAPCS64, one pointer argument):
//! - `x0`: the batch context; `x1`: the context plus [`HI_BASE`] (reaches the far end of it);
//! - `x2`: the current input vertex (AoS), batch byte offset (SoA) or the batch's vertex
//!   indices (draw); `x3`: the current output vertex (AoS, draw); `x4`: the status word of the
//!   batch; `x5`: batches left; `x6`: 256 (the AoS vertex stride) or 96 (a draw kernel's output
//!   vertex), a post-index register; `x10`, `x11`: a draw attribute's stride and array while
//!   its rows load;
//! - `x7`: the current output bank (the context's outputs, or a geometry shader's second
//!   bank after an odd number of EMITs);
//! - `x9`–`x15`: scalar scratch; `x16` ([`ADDR`]): this layer's address temporary;
//! - vector registers `v0`–`v31`: see `super` (allocatable, emitters' scratch, and `v31`, this
//!   layer's own temporary [`VTMP`]); `d8`–`d15` are saved by the prologue.

// dynasm expands register arguments to `.into()` calls, which clippy flags on `u8`s.
#![allow(clippy::useless_conversion)]

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};

use crate::abi;

/// Assembler type used by the backend.
pub type Ops = VecAssembler<Aarch64Relocation>;

/// The vector temporary owned by this layer (for selects whose destination aliases a source).
pub const VTMP: u8 = 31;
/// The general-purpose temporary owned by this layer (materialized addresses).
pub const ADDR: u8 = 16;
/// `x1 = x0 + HI_BASE`: a second base register for the far end of the context (broadcast
/// uniform rows, I/O pointers). A multiple of 4096 so one `add … LSL 12` sets it.
pub const HI_BASE: u32 = (abi::IO_INPUT as u32) & !0xFFF;

/// A checked context address: `[X(base), #offset]` with `offset` a multiple of the access size
/// and below 4096 × size (the scaled unsigned-offset form).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtxAddr {
    base: u8,
    offset: u32,
}

impl CtxAddr {
    /// The base register.
    pub fn base(self) -> u8 {
        self.base
    }
    /// The byte offset from the base.
    pub fn offset(self) -> u32 {
        self.offset
    }
}

/// True if `offset` fits the scaled unsigned-offset form for accesses of `size` bytes (a power
/// of two).
pub const fn fits_scaled(offset: u32, size: u32) -> bool {
    size.is_power_of_two() && offset & (size - 1) == 0 && offset / size < 4096
}

/// The address of context byte `offset` for an access of `size` bytes (1, 4, 8 or 16): from
/// `x0`, from `x1`, or materialized into [`ADDR`] (clobbering it).
pub fn ctx_addr(ops: &mut Ops, offset: i32, size: u32) -> CtxAddr {
    let off = offset as u32;
    if offset >= 0 && fits_scaled(off, size) {
        return CtxAddr {
            base: 0,
            offset: off,
        };
    }
    if offset >= HI_BASE as i32 && fits_scaled(off - HI_BASE, size) {
        return CtxAddr {
            base: 1,
            offset: off - HI_BASE,
        };
    }
    mov_imm64(ops, ADDR, i64::from(offset) as u64);
    dynasm!(ops ; .arch aarch64 ; add X(ADDR), x0, X(ADDR));
    CtxAddr {
        base: ADDR,
        offset: 0,
    }
}

/// `X(d) = value`, by `movz` and up to three `movk` (any 64-bit value).
pub fn mov_imm64(ops: &mut Ops, d: u8, value: u64) {
    let chunk = |k: u32| ((value >> (16 * k)) & 0xFFFF) as u32;
    dynasm!(ops ; .arch aarch64 ; movz X(d), #chunk(0));
    for k in 1..4u32 {
        let c = chunk(k);
        if c != 0 {
            match k {
                1 => dynasm!(ops ; .arch aarch64 ; movk X(d), #c, lsl #16),
                2 => dynasm!(ops ; .arch aarch64 ; movk X(d), #c, lsl #32),
                _ => dynasm!(ops ; .arch aarch64 ; movk X(d), #c, lsl #48),
            }
        }
    }
}

/// `W(d) = value`, by `movz` and `movk`.
pub fn mov_imm32(ops: &mut Ops, d: u8, value: u32) {
    let (lo, hi) = (value & 0xFFFF, value >> 16);
    dynasm!(ops ; .arch aarch64 ; movz W(d), #lo);
    if hi != 0 {
        dynasm!(ops ; .arch aarch64 ; movk W(d), #hi, lsl #16);
    }
}

/// Lane-wise operations on two vector registers (`d = a op b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VOp {
    /// f32 lanes.
    FAdd,
    FSub,
    FMul,
    /// `fmulx`: as `fmul`, but `0 × ±inf` gives ±2.0.
    FMulx,
    FDiv,
    FCmEq,
    FCmGt,
    FCmGe,
    /// f64 lanes.
    FAddD,
    FSubD,
    FMulD,
    FDivD,
    FCmGtD,
    /// i32 lanes.
    AddS,
    /// Signed `a > b`.
    CmGtS,
    /// `a == b`.
    CmEqS,
    /// Bitwise.
    And,
    Orr,
    /// `a | !b`.
    Orn,
    /// `a & !b`.
    Bic,
    Eor,
    /// Bitwise select: `d = (d & a) | (!d & b)` (d is the mask and is read).
    Bsl,
    /// Insert if true: `d = (a & b) | (d & !b)` (b is the mask; d is read).
    Bit,
    /// Insert if false: `d = (a & !b) | (d & b)` (b is the mask; d is read).
    Bif,
    /// Transposes: `trn1`/`trn2` on 32-bit lanes (`[a0, b0, a2, b2]`, `[a1, b1, a3, b3]`) and
    /// on 64-bit lanes (`[A0, B0]`, `[A1, B1]`).
    Trn1S,
    Trn2S,
    Trn1D,
    Trn2D,
}

/// `d = a op b`.
#[inline]
pub fn vop(ops: &mut Ops, op: VOp, d: u8, a: u8, b: u8) {
    super::words::vop(ops, op, d, a, b);
}

/// Lane-wise operations on one vector register (`d = op a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UOp {
    /// Register copy.
    Mov,
    /// Sign-bit flip of f32 lanes (NaNs included, no NaN processing).
    FNeg,
    /// f32 round toward −inf.
    FRintM,
    /// f64 round to nearest, ties to even.
    FRintND,
    FSqrt,
    /// f32 → i32, toward zero, saturating, NaN → 0.
    FCvtzs,
    /// Bitwise not.
    Not,
    /// f32 lanes 0–1 → f64 lanes 0–1 (exact).
    FCvtl,
    /// f32 lanes 2–3 → f64 lanes 0–1 (exact).
    FCvtl2,
    /// f64 lanes → f32 lanes 0–1 (rounded), lanes 2–3 zeroed.
    FCvtn,
    /// f64 lanes → f32 lanes 2–3 (rounded), lanes 0–1 kept.
    FCvtn2,
    /// f32 `a >= 0.0` mask.
    FCmGeZero,
    /// f32 `a == 0.0` mask.
    FCmEqZero,
}

/// `d = op a`.
pub fn uop(ops: &mut Ops, op: UOp, d: u8, a: u8) {
    match op {
        UOp::Mov => dynasm!(ops ; .arch aarch64 ; mov V(d).B16, V(a).B16),
        UOp::FNeg => dynasm!(ops ; .arch aarch64 ; fneg V(d).S4, V(a).S4),
        UOp::FRintM => dynasm!(ops ; .arch aarch64 ; frintm V(d).S4, V(a).S4),
        UOp::FRintND => dynasm!(ops ; .arch aarch64 ; frintn V(d).D2, V(a).D2),
        UOp::FSqrt => dynasm!(ops ; .arch aarch64 ; fsqrt V(d).S4, V(a).S4),
        UOp::FCvtzs => dynasm!(ops ; .arch aarch64 ; fcvtzs V(d).S4, V(a).S4),
        UOp::Not => dynasm!(ops ; .arch aarch64 ; mvn V(d).B16, V(a).B16),
        UOp::FCvtl => dynasm!(ops ; .arch aarch64 ; fcvtl V(d).D2, V(a).S2),
        UOp::FCvtl2 => dynasm!(ops ; .arch aarch64 ; fcvtl2 V(d).D2, V(a).S4),
        UOp::FCvtn => dynasm!(ops ; .arch aarch64 ; fcvtn V(d).S2, V(a).D2),
        UOp::FCvtn2 => dynasm!(ops ; .arch aarch64 ; fcvtn2 V(d).S4, V(a).D2),
        UOp::FCmGeZero => dynasm!(ops ; .arch aarch64 ; fcmge V(d).S4, V(a).S4, #0.0),
        UOp::FCmEqZero => dynasm!(ops ; .arch aarch64 ; fcmeq V(d).S4, V(a).S4, #0.0),
    }
}

/// `d = a` unless they are the same register.
#[inline]
pub fn mov(ops: &mut Ops, d: u8, a: u8) {
    if d != a {
        super::words::mov(ops, d, a);
    }
}

/// `d = m ? a : b` per lane (`m` all-ones or zero per lane); any of the registers may alias.
pub fn select(ops: &mut Ops, d: u8, m: u8, a: u8, b: u8) {
    if a == b {
        mov(ops, d, a);
    } else if d == a {
        vop(ops, VOp::Bif, d, b, m);
    } else if d == b {
        vop(ops, VOp::Bit, d, a, m);
    } else if d == m {
        vop(ops, VOp::Bsl, d, a, b);
    } else {
        mov(ops, d, m);
        vop(ops, VOp::Bsl, d, a, b);
    }
}

/// Shifts on 64-bit lanes by an immediate.
pub fn shl_d(ops: &mut Ops, d: u8, a: u8, amount: u32) {
    let amount = amount & 63;
    dynasm!(ops ; .arch aarch64 ; shl V(d).D2, V(a).D2, #amount);
}

/// 64-bit logical right shift by an immediate in 1..=64 (out-of-range amounts are clamped).
pub fn ushr_d(ops: &mut Ops, d: u8, a: u8, amount: u32) {
    let amount = amount.clamp(1, 64);
    dynasm!(ops ; .arch aarch64 ; ushr V(d).D2, V(a).D2, #amount);
}

/// 32-bit left shift by an immediate (taken modulo 32).
pub fn shl_s(ops: &mut Ops, d: u8, a: u8, amount: u32) {
    let amount = amount & 31;
    dynasm!(ops ; .arch aarch64 ; shl V(d).S4, V(a).S4, #amount);
}

/// All lanes all-ones.
pub fn ones(ops: &mut Ops, d: u8) {
    dynasm!(ops ; .arch aarch64 ; movi V(d).D2, #0xFFFF_FFFF_FFFF_FFFF);
}

/// All lanes zero.
pub fn zero(ops: &mut Ops, d: u8) {
    dynasm!(ops ; .arch aarch64 ; movi V(d).D2, #0);
}

/// Every f32 lane = `value` if it is an 8-bit floating-point immediate (`±(1 + m/16)·2^e`,
/// `e ∈ [-3, 4]`); returns false (emitting nothing) otherwise.
pub fn fmov_imm(ops: &mut Ops, d: u8, value: f32) -> bool {
    if dynasmrt::aarch64::encode_floating_point_immediate(value).is_none() {
        return false;
    }
    dynasm!(ops ; .arch aarch64 ; fmov V(d).S4, #value);
    true
}

/// 16-byte load of a constant-pool row (PC-relative literal, ±1 MiB; an out-of-range label
/// is an error of `finalize`, not a panic).
pub fn load_const(ops: &mut Ops, d: u8, label: DynamicLabel) {
    dynasm!(ops ; .arch aarch64 ; ldr Q(d), =>label);
}

/// 16-byte load from the context.
#[inline]
pub fn load_q(ops: &mut Ops, d: u8, a: CtxAddr) {
    super::words::load_q(ops, d, a);
}

/// 16-byte store to the context.
#[inline]
pub fn store_q(ops: &mut Ops, s: u8, a: CtxAddr) {
    super::words::store_q(ops, s, a);
}

/// `d` = the f32 at `[X(addr)]` in every lane.
pub fn load_broadcast(ops: &mut Ops, d: u8, addr: u8) {
    dynasm!(ops ; .arch aarch64 ; ld1r {V(d).S4 * 1}, [X(addr)]);
}

/// Lane `lane` (0–3) of `d` = the f32 at `[X(addr)]`; the other lanes are kept.
pub fn load_lane(ops: &mut Ops, d: u8, lane: u32, addr: u8) {
    let lane = lane & 3;
    dynasm!(ops ; .arch aarch64 ; ld1 {V(d).S * 1}[lane], [X(addr)]);
}

/// `W(w)` = lane `lane` (0–3) of `s` (as a 32-bit integer).
pub fn lane_to_w(ops: &mut Ops, w: u8, s: u8, lane: u32) {
    let lane = lane & 3;
    dynasm!(ops ; .arch aarch64 ; umov W(w), V(s).S[lane]);
}

/// 16-byte load from `[X(base), #offset]` (`offset` is taken as a multiple of 16 below 65536:
/// the scaled unsigned-offset form).
pub fn load_q_at(ops: &mut Ops, d: u8, base: u8, offset: u32) {
    let o = offset & 0xFFF0;
    dynasm!(ops ; .arch aarch64 ; ldr Q(d), [X(base), #o]);
}

/// 16-byte store to `[X(base), #offset]` (`offset` as for [`load_q_at`]).
pub fn store_q_at(ops: &mut Ops, s: u8, base: u8, offset: u32) {
    let o = offset & 0xFFF0;
    dynasm!(ops ; .arch aarch64 ; str Q(s), [X(base), #o]);
}

/// Copies `rows` 16-byte lane rows 64 bytes apart from `[X(src) + src_off]` to
/// `[X(dst) + dst_off]` through vector register `t` (offsets as for [`load_q_at`]).
pub fn copy_rows(ops: &mut Ops, t: u8, src: u8, src_off: u32, dst: u8, dst_off: u32, rows: u32) {
    for k in 0..rows {
        load_q_at(ops, t, src, src_off + k * 64);
        store_q_at(ops, t, dst, dst_off + k * 64);
    }
}

/// Jumps to `target` if any lane of mask `m` is true.
pub fn jump_if_any(ops: &mut Ops, m: u8, target: DynamicLabel) {
    dynasm!(ops ; .arch aarch64
        ; umaxv S(VTMP), V(m).S4
        ; umov w9, V(VTMP).S[0]
        ; cbnz w9, =>target);
}

/// Every lane of `d` = `W(w)`.
pub fn dup_w(ops: &mut Ops, d: u8, w: u8) {
    dynasm!(ops ; .arch aarch64 ; dup V(d).S4, W(w));
}

/// `d` = the signed minimum of the i32 lanes of `s` in every lane (through [`VTMP`]).
pub fn lane_min(ops: &mut Ops, d: u8, s: u8) {
    dynasm!(ops ; .arch aarch64
        ; sminv S(VTMP), V(s).S4
        ; dup V(d).S4, V(VTMP).S[0]);
}

/// `W(w)` = the sum of the i32 lanes of `s` (through [`VTMP`]).
pub fn add_lanes_w(ops: &mut Ops, w: u8, s: u8) {
    dynasm!(ops ; .arch aarch64
        ; addv S(VTMP), V(s).S4
        ; umov W(w), V(VTMP).S[0]);
}

/// AoS transpose on load: lane `lane` of `v0`–`v3` = the four f32 at `[x9]`, then x9 += x6.
pub fn ld4_lane(ops: &mut Ops, lane: u32) {
    let lane = lane & 3;
    dynasm!(ops ; .arch aarch64 ; ld4 {v0.s, v1.s, v2.s, v3.s}[lane], [x9], x6);
}

/// Transposing row load: lane `lane` of `v27`–`v30` (the emitter's S3–S6) = the four f32
/// at `[X(addr)]`.
pub fn ld4_row_lane(ops: &mut Ops, lane: u32, addr: u8) {
    let lane = lane & 3;
    dynasm!(ops ; .arch aarch64 ; ld4 {v27.s, v28.s, v29.s, v30.s}[lane], [X(addr)]);
}

/// AoS transpose on store: the four f32 at `[x9]` = lane `lane` of `v0`–`v3`, then x9 += x6.
pub fn st4_lane(ops: &mut Ops, lane: u32) {
    let lane = lane & 3;
    dynasm!(ops ; .arch aarch64 ; st4 {v0.s, v1.s, v2.s, v3.s}[lane], [x9], x6);
}

/// As [`ld4_lane`], into `v24`–`v27` (the emitter's S0–S3: a load while variables live).
pub fn ld4_lane_scratch(ops: &mut Ops, lane: u32) {
    let lane = lane & 3;
    dynasm!(ops ; .arch aarch64 ; ld4 {v24.s, v25.s, v26.s, v27.s}[lane], [x9], x6);
}

/// As [`st4_lane`], from `v24`–`v27` (the emitter's S0–S3).
pub fn st4_lane_scratch(ops: &mut Ops, lane: u32) {
    let lane = lane & 3;
    dynasm!(ops ; .arch aarch64 ; st4 {v24.s, v25.s, v26.s, v27.s}[lane], [x9], x6);
}

/// Draw kernels' attribute load: lane `lane` of `v24`–`v(23 + n)` (the emitter's S0…) = the
/// `n` (1–4) f32 at `[x9]`; the other lanes and registers are kept.
pub fn ld_lanes_scratch(ops: &mut Ops, n: u8, lane: u32) {
    let lane = lane & 3;
    match n {
        0 | 1 => dynasm!(ops ; .arch aarch64 ; ld1 {v24.s}[lane], [x9]),
        2 => dynasm!(ops ; .arch aarch64 ; ld2 {v24.s, v25.s}[lane], [x9]),
        3 => dynasm!(ops ; .arch aarch64 ; ld3 {v24.s, v25.s, v26.s}[lane], [x9]),
        _ => dynasm!(ops ; .arch aarch64 ; ld4 {v24.s, v25.s, v26.s, v27.s}[lane], [x9]),
    }
}

/// Scalar (general-purpose register) helpers.
pub mod scalar {
    use super::*;

    /// `W(w) = [a]` (32-bit).
    pub fn load_w(ops: &mut Ops, w: u8, a: CtxAddr) {
        let (b, o) = (a.base, a.offset);
        dynasm!(ops ; .arch aarch64 ; ldr W(w), [X(b), #o]);
    }
    /// `[a] = W(w)` (32-bit).
    pub fn store_w(ops: &mut Ops, w: u8, a: CtxAddr) {
        let (b, o) = (a.base, a.offset);
        dynasm!(ops ; .arch aarch64 ; str W(w), [X(b), #o]);
    }
    /// `[a] = 0` (32-bit).
    pub fn store_zero_w(ops: &mut Ops, a: CtxAddr) {
        let (b, o) = (a.base, a.offset);
        dynasm!(ops ; .arch aarch64 ; str wzr, [X(b), #o]);
    }
    /// `W(w) = [a]` (one byte, zero-extended).
    pub fn load_byte(ops: &mut Ops, w: u8, a: CtxAddr) {
        let (b, o) = (a.base, a.offset);
        dynasm!(ops ; .arch aarch64 ; ldrb W(w), [X(b), #o]);
    }
    /// `W(w) = -W(w)`.
    pub fn neg_w(ops: &mut Ops, w: u8) {
        dynasm!(ops ; .arch aarch64 ; neg W(w), W(w));
    }
    /// `W(w)` = the index of the lowest set bit of `W(w)` among bits 0–3, 0 if none.
    pub fn lowest_lane(ops: &mut Ops, w: u8) {
        dynasm!(ops ; .arch aarch64
            ; rbit W(w), W(w)
            ; clz W(w), W(w)
            ; and WSP(w), W(w), #3);
    }
    /// `W(w) = [X(base) + W(index) * 4]`.
    pub fn load_w_indexed(ops: &mut Ops, w: u8, base: u8, index: u8) {
        dynasm!(ops ; .arch aarch64 ; ldr W(w), [X(base), W(index), uxtw #2]);
    }
    /// `W(d) = W(a) | W(b)`.
    pub fn orr_w(ops: &mut Ops, d: u8, a: u8, b: u8) {
        dynasm!(ops ; .arch aarch64 ; orr W(d), W(a), W(b));
    }
    /// `X(x) = [a]` (64-bit).
    pub fn load_x(ops: &mut Ops, x: u8, a: CtxAddr) {
        let (b, o) = (a.base, a.offset);
        dynasm!(ops ; .arch aarch64 ; ldr X(x), [X(b), #o]);
    }
    /// `W(d) = bits lsb .. lsb + width of W(s)` (unsigned bit-field extract; lsb < 32,
    /// width 1..=32 - lsb).
    pub fn ubfx(ops: &mut Ops, d: u8, s: u8, lsb: u32, width: u32) {
        let lsb = lsb & 31;
        let width = width.clamp(1, 32 - lsb);
        dynasm!(ops ; .arch aarch64 ; ubfx W(d), W(s), #lsb, #width);
    }
    /// `W(d) = W(s) + imm` (imm < 4096).
    pub fn add_w_imm(ops: &mut Ops, d: u8, s: u8, imm: u32) {
        let imm = imm & 0xFFF;
        dynasm!(ops ; .arch aarch64 ; add WSP(d), WSP(s), #imm);
    }
    /// `W(d) = W(s) - imm` (imm < 4096).
    pub fn sub_w_imm(ops: &mut Ops, d: u8, s: u8, imm: u32) {
        let imm = imm & 0xFFF;
        dynasm!(ops ; .arch aarch64 ; sub WSP(d), WSP(s), #imm);
    }
    /// `W(d) = W(a) + W(b)`.
    pub fn add_w(ops: &mut Ops, d: u8, a: u8, b: u8) {
        dynasm!(ops ; .arch aarch64 ; add W(d), W(a), W(b));
    }
    /// `X(d) = X(a) + (W(b) zero-extended << 4)`: a uniform row from its index.
    pub fn add_row_index(ops: &mut Ops, d: u8, a: u8, b: u8) {
        dynasm!(ops ; .arch aarch64 ; add XSP(d), XSP(a), W(b), uxtw #4);
    }
    /// `X(d) = X(s) + imm` (imm < 4096).
    pub fn add_x_imm(ops: &mut Ops, d: u8, s: u8, imm: u32) {
        let imm = imm & 0xFFF;
        dynasm!(ops ; .arch aarch64 ; add XSP(d), XSP(s), #imm);
    }
    /// `X(d) = X(a) + X(b)`.
    pub fn add_x(ops: &mut Ops, d: u8, a: u8, b: u8) {
        dynasm!(ops ; .arch aarch64 ; add X(d), X(a), X(b));
    }
    /// `X(d) = x0 + offset` (the address of a context byte): one `add` below 4096, two below
    /// 2^24, else `movz`/`movk` and an `add`.
    pub fn ctx_pointer(ops: &mut Ops, d: u8, offset: u32) {
        if offset < 0x1000 {
            dynasm!(ops ; .arch aarch64 ; add XSP(d), x0, #offset);
        } else if offset < 0x100_0000 {
            let (hi, lo) = (offset >> 12, offset & 0xFFF);
            dynasm!(ops ; .arch aarch64 ; add XSP(d), x0, #hi, lsl #12);
            if lo != 0 {
                dynasm!(ops ; .arch aarch64 ; add XSP(d), XSP(d), #lo);
            }
        } else {
            mov_imm64(ops, d, u64::from(offset));
            dynasm!(ops ; .arch aarch64 ; add X(d), x0, X(d));
        }
    }
    /// `W(w) = 0x7F & W(w)`.
    pub fn and_7f(ops: &mut Ops, w: u8) {
        dynasm!(ops ; .arch aarch64 ; and WSP(w), W(w), #0x7F);
    }
    /// The PICA relative-offset rule on `W(w)`: `w = (-128 <= w <= 127) ? w : 0`
    /// (clobbers `W(t)`).
    pub fn offset_rule(ops: &mut Ops, w: u8, t: u8) {
        dynasm!(ops ; .arch aarch64
            ; add WSP(t), WSP(w), #128
            ; cmp WSP(t), #255
            ; csel W(w), W(w), wzr, ls);
    }
    /// Jump to `target` if bit `bit` (0–31) of `W(w)` is set.
    pub fn jump_if_bit(ops: &mut Ops, w: u8, bit: u32, target: DynamicLabel) {
        let mask = 1u32 << (bit & 31);
        dynasm!(ops ; .arch aarch64 ; tst W(w), #mask ; b.ne =>target);
    }
    /// Jump to `target` if `W(w) != 0`.
    pub fn jump_if_nonzero(ops: &mut Ops, w: u8, target: DynamicLabel) {
        dynasm!(ops ; .arch aarch64 ; cbnz W(w), =>target);
    }
    /// Jump to `target` if `W(w) == 0`.
    pub fn jump_if_zero(ops: &mut Ops, w: u8, target: DynamicLabel) {
        dynasm!(ops ; .arch aarch64 ; cbz W(w), =>target);
    }
    /// Unconditional jump.
    pub fn jump(ops: &mut Ops, target: DynamicLabel) {
        dynasm!(ops ; .arch aarch64 ; b =>target);
    }
    /// Binds a label here.
    pub fn bind(ops: &mut Ops, label: DynamicLabel) {
        dynasm!(ops ; .arch aarch64 ; =>label);
    }
    /// Aligns the stream to `n` bytes with zero padding (only used before data).
    pub fn align(ops: &mut Ops, n: usize) {
        ops.align(n, 0);
    }
    /// Emits raw 32-bit words (constant pool data).
    pub fn words(ops: &mut Ops, words: &[u32]) {
        for &w in words {
            ops.push_u32(w);
        }
    }

    /// Prologue: saves `d8`–`d15` and FPCR on the stack, sets FPCR to 0 (round to nearest
    /// even, no flush-to-zero, no default NaN, no alternate handling), and sets `x1`.
    pub fn enter(ops: &mut Ops) {
        let hi = HI_BASE >> 12;
        dynasm!(ops ; .arch aarch64
            ; stp d8, d9, [sp, #-80]!
            ; stp d10, d11, [sp, #16]
            ; stp d12, d13, [sp, #32]
            ; stp d14, d15, [sp, #48]
            ; mrs x9, #0x5A20 // FPCR
            ; str x9, [sp, #64]
            ; movz x9, #0
            ; msr #0x5A20, x9
            ; add x1, x0, #hi, lsl #12);
    }
    /// Epilogue: restores FPCR and `d8`–`d15`, returns.
    pub fn leave(ops: &mut Ops) {
        dynasm!(ops ; .arch aarch64
            ; ldr x9, [sp, #64]
            ; msr #0x5A20, x9
            ; ldp d14, d15, [sp, #48]
            ; ldp d12, d13, [sp, #32]
            ; ldp d10, d11, [sp, #16]
            ; ldp d8, d9, [sp], #80
            ; ret);
    }
    /// The batch loop's registers: x2 = input, x3 = output, x4 = status words, x5 = batches,
    /// x6 = 256; jumps to `done` when there is no batch.
    pub fn io_setup(
        ops: &mut Ops,
        input: CtxAddr,
        output: CtxAddr,
        status: CtxAddr,
        batches: CtxAddr,
        done: DynamicLabel,
    ) {
        load_x(ops, 2, input);
        load_x(ops, 3, output);
        load_x(ops, 4, status);
        load_x(ops, 5, batches);
        dynasm!(ops ; .arch aarch64
            ; movz x6, #256
            ; cbz x5, =>done);
    }
    /// Draw kernels: x6 = 96, the bytes of one output vertex (the post-index of the
    /// semantic stores).
    pub fn draw_vertex_stride(ops: &mut Ops) {
        dynasm!(ops ; .arch aarch64 ; movz x6, #96);
    }
    /// Draw kernels: `x9 = x11 + id × x10` for the batch's vertex index `lane` (a u32 at
    /// `[x2 + 4 lane]`; x10 = the attribute's byte stride, x11 = its array).
    pub fn attribute_address(ops: &mut Ops, lane: u32) {
        let offset = (lane & 3) * 4;
        dynasm!(ops ; .arch aarch64
            ; ldr w9, [x2, #offset]
            ; madd x9, x9, x10, x11);
    }
    /// Stepped draw kernels: `x9` = lane `lane`'s attribute — the batch's pointer in x11 for
    /// lane 0, else the previous lane's plus the byte stride in x10.
    pub fn stepped_address(ops: &mut Ops, lane: u32) {
        if lane == 0 {
            dynasm!(ops ; .arch aarch64 ; mov x9, x11);
        } else {
            dynasm!(ops ; .arch aarch64 ; add x9, x9, x10);
        }
    }
    /// Stepped draw kernels: `x11 += x2 × x10`, the array's base (x11) moved to the batch's
    /// first vertex (x2 counts the run's vertices; x10 = the byte stride).
    pub fn batch_vertex(ops: &mut Ops) {
        dynasm!(ops ; .arch aarch64 ; madd x11, x2, x10, x11);
    }
    /// SoA: x2 is a byte offset, starting at 0; stepped draw kernels: a vertex count, from 0.
    pub fn zero_x2(ops: &mut Ops) {
        dynasm!(ops ; .arch aarch64 ; movz x2, #0);
    }
    /// Writes the batch status word (`abi::Io`).
    pub fn batch_status(ops: &mut Ops, status: u32) {
        if status == 0 {
            dynasm!(ops ; .arch aarch64 ; str wzr, [x4]);
        } else {
            mov_imm32(ops, 9, status);
            dynasm!(ops ; .arch aarch64 ; str w9, [x4]);
        }
    }
    /// Writes the batch status word from `[a]` (the lanes' accumulated statuses).
    pub fn batch_status_from(ops: &mut Ops, a: CtxAddr) {
        load_w(ops, 9, a);
        dynasm!(ops ; .arch aarch64 ; str w9, [x4]);
    }
    /// `X(d) = X(a) + (X(b) << shift)` (shift < 64).
    pub fn add_x_shifted(ops: &mut Ops, d: u8, a: u8, b: u8, shift: u32) {
        let shift = shift & 63;
        dynasm!(ops ; .arch aarch64 ; add X(d), X(a), X(b), lsl #shift);
    }
    /// Jump to `target` if `X(a) >= X(b)` (unsigned).
    pub fn jump_if_x_hs(ops: &mut Ops, a: u8, b: u8, target: DynamicLabel) {
        dynasm!(ops ; .arch aarch64 ; cmp X(a), X(b) ; b.hs =>target);
    }
    /// `[X(base) + offset] = W(w)` (16 bits; offset even, < 8192).
    pub fn store_half_at(ops: &mut Ops, w: u8, base: u8, offset: u32) {
        let offset = offset & 0x1FFE;
        dynasm!(ops ; .arch aarch64 ; strh W(w), [X(base), #offset]);
    }
    /// Advances to the next batch (x2 by `step`, x3 by `out_step`, both < 4096) and loops
    /// to `top` while batches remain.
    pub fn next_batch(ops: &mut Ops, step: u32, out_step: u32, top: DynamicLabel) {
        let (step, out_step) = (step & 0xFFF, out_step & 0xFFF);
        dynasm!(ops ; .arch aarch64
            ; add x2, x2, #step
            ; add x3, x3, #out_step
            ; add x4, x4, #4
            ; subs x5, x5, #1
            ; b.ne =>top);
    }
    /// `x9 = X(base) + imm` (imm < 4096): the address of an AoS register of the first vertex.
    pub fn x9_from(ops: &mut Ops, base: u8, imm: u32) {
        add_x_imm(ops, 9, base, imm);
    }
    /// SoA plane access: `x9 = [a]` (a plane pointer) plus the batch offset x2.
    pub fn plane_address(ops: &mut Ops, a: CtxAddr) {
        load_x(ops, 9, a);
        dynasm!(ops ; .arch aarch64 ; add x9, x9, x2);
    }
    /// `Q(d) = [x9]`.
    pub fn load_q_x9(ops: &mut Ops, d: u8) {
        dynasm!(ops ; .arch aarch64 ; ldr Q(d), [x9]);
    }
    /// `[x9] = Q(s)`.
    pub fn store_q_x9(ops: &mut Ops, s: u8) {
        dynasm!(ops ; .arch aarch64 ; str Q(s), [x9]);
    }
}
