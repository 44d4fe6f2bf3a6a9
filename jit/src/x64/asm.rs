//! The thin layer between the emitters and dynasm: every x86 instruction form the backend uses,
//! once per tier (SSE4.1 two-operand xmm forms, AVX2 three-operand VEX ymm forms). Emitters never
//! write `dynasm!` themselves, so the audit test (`tests/x64_audit.rs`) can check every template
//! here against iced-x86's decoder.
//!
//! dynasm-rs 5.1 mis-encodes some VEX forms (three-operand forms with an immediate swap their
//! sources; some operand widths come out wrong); this file avoids them: compares use the `vcmpXXps` pseudo-ops (never `vcmpps …, imm`), broadcasts
//! load a scalar then use `vbroadcastss ymm, xmm`, and the 64-bit right shift takes its count
//! from a register (`vpsrlq ymm, ymm, xmm`), never an immediate.
//!
//! [`Tier::Avx512`]'s arms are in `x64/zmm.rs` (EVEX chunks); the VEX forms on xmm registers
//! it shares with AVX2 only ever see registers 11–15 (scratch), never the allocator's 16–31.
//!
//! Register 15 is this layer's own temporary (for SSE forms whose destination is also the second
//! source); nothing else may use it.

// dynasm expands register arguments to `.into()` calls, which clippy flags on `u8`s.
#![allow(clippy::useless_conversion)]

use dynasmrt::x64::X64Relocation;

use super::{vex, zmm};
use crate::abi;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};

/// The instruction-set tier, which fixes the lane count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    /// SSE4.1, xmm registers, W = 4.
    Sse41,
    /// AVX2, ymm registers, W = 8 (FMA is never used).
    Avx2,
    /// AVX-512 F/VL/DQ/BW, zmm registers, W = 16: EVEX chunks from [`super::evex`].
    Avx512,
}

impl Tier {
    /// Lanes per batch.
    pub const fn lanes(self) -> usize {
        match self {
            Tier::Sse41 => 4,
            Tier::Avx2 => 8,
            Tier::Avx512 => 16,
        }
    }
    /// 128-bit segments per vector register (AoS rows: lane k + 4 s in segment s).
    pub const fn segments(self) -> usize {
        self.lanes() / 4
    }
    /// Bytes per vector register.
    pub const fn bytes(self) -> usize {
        self.lanes() * 4
    }
}

/// The temporary register owned by this layer.
pub const ASM_TEMP: u8 = 15;

/// Assembler type used by the backend.
pub type Ops = VecAssembler<X64Relocation>;

/// A memory operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mem {
    /// `[rdi + disp]`: the batch context.
    Ctx(i32),
    /// `[rdi + rax + disp]`: the context indexed by rax (per-lane uniform rows).
    CtxRax(i32),
    /// `[rip + label]`: the constant pool.
    Const(DynamicLabel),
    /// A batch-uniform uniform component (`index` < 96): its broadcast row
    /// `[rdi + abi::uniform_row_offset]` on SSE4.1/AVX2; on AVX-512 the scalar at
    /// `[rdi + abi::uniform_offset]` as a `{1to16}` operand (or broadcast by a load) where the
    /// instruction has a 32-bit broadcast form, else the row.
    Uniform { index: u32, comp: u32 },
}

/// Lane-wise operations with two register sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VOp {
    AddPs,
    SubPs,
    MulPs,
    DivPs,
    MaxPs,
    MinPs,
    AndPs,
    /// `!a & b`.
    AndnPs,
    OrPs,
    XorPs,
    CmpEqPs,
    CmpLtPs,
    CmpLePs,
    CmpNeqPs,
    CmpUnordPs,
    CmpOrdPs,
    AddPd,
    SubPd,
    MulPd,
    DivPd,
    CmpLtPd,
    PAddD,
    PCmpGtD,
    PCmpEqD,
    PAddQ,
    UnpckLps,
    UnpckHps,
    UnpckLpd,
    UnpckHpd,
}

impl VOp {
    /// True if `a op b == b op a` bit for bit (so SSE may swap sources).
    pub const fn commutative(self) -> bool {
        matches!(
            self,
            VOp::AddPs
                | VOp::MulPs
                | VOp::AndPs
                | VOp::OrPs
                | VOp::XorPs
                | VOp::CmpEqPs
                | VOp::CmpNeqPs
                | VOp::CmpUnordPs
                | VOp::CmpOrdPs
                | VOp::AddPd
                | VOp::MulPd
                | VOp::PAddD
                | VOp::PCmpEqD
                | VOp::PAddQ
        )
    }
}

/// `d = a op b`.
#[inline]
pub fn vop(ops: &mut Ops, tier: Tier, op: VOp, d: u8, a: u8, b: u8) {
    match tier {
        Tier::Avx512 => zmm::vop(ops, op, d, a, b),
        Tier::Avx2 => vex::vop(ops, op, d, a, b),
        Tier::Sse41 => sse_vop(ops, op, d, a, b),
    }
}

/// [`vop`] on SSE4.1: the two-operand form, after copies for whichever source is not `d`.
#[inline(never)]
fn sse_vop(ops: &mut Ops, op: VOp, d: u8, a: u8, b: u8) {
    let tier = Tier::Sse41;
    if d == a {
        vop_sse(ops, op, d, b);
    } else if d == b && op.commutative() {
        vop_sse(ops, op, d, a);
    } else if d == b {
        mov(ops, tier, ASM_TEMP, b);
        mov(ops, tier, d, a);
        vop_sse(ops, op, d, ASM_TEMP);
    } else {
        mov(ops, tier, d, a);
        vop_sse(ops, op, d, b);
    }
}

/// `d = a op [mem]`: the second source read from memory (16-byte aligned for SSE4.1, as every
/// context row and constant-pool row is).
#[inline]
pub fn vop_m(ops: &mut Ops, tier: Tier, op: VOp, d: u8, a: u8, mem: Mem) {
    match tier {
        Tier::Avx512 => zmm::vop_m(ops, op, d, a, mem),
        Tier::Avx2 => vex::vop_m(ops, op, d, a, mem),
        Tier::Sse41 => sse_vop_m(ops, op, d, a, mem),
    }
}

/// [`vop_m`] on SSE4.1.
#[inline(never)]
fn sse_vop_m(ops: &mut Ops, op: VOp, d: u8, a: u8, mem: Mem) {
    mov(ops, Tier::Sse41, d, a);
    vop_sse_m(ops, op, d, mem);
}

/// One memory-operand template per addressing form.
macro_rules! sse_m {
    ($ops:ident, $mn:ident, $d:ident, $mem:ident) => {
        match $mem {
            Mem::Ctx(o) => dynasm!($ops ; .arch x64 ; $mn Rx($d), [rdi + o]),
            Mem::CtxRax(o) => dynasm!($ops ; .arch x64 ; $mn Rx($d), [rdi + rax + o]),
            Mem::Const(l) => dynasm!($ops ; .arch x64 ; $mn Rx($d), [=>l]),
            Mem::Uniform { index, comp } => {
                let o = abi::uniform_row_offset(index, comp);
                dynasm!($ops ; .arch x64 ; $mn Rx($d), [rdi + o])
            }
        }
    };
}

fn vop_sse_m(ops: &mut Ops, op: VOp, d: u8, mem: Mem) {
    match op {
        VOp::AddPs => sse_m!(ops, addps, d, mem),
        VOp::SubPs => sse_m!(ops, subps, d, mem),
        VOp::MulPs => sse_m!(ops, mulps, d, mem),
        VOp::DivPs => sse_m!(ops, divps, d, mem),
        VOp::MaxPs => sse_m!(ops, maxps, d, mem),
        VOp::MinPs => sse_m!(ops, minps, d, mem),
        VOp::AndPs => sse_m!(ops, andps, d, mem),
        VOp::AndnPs => sse_m!(ops, andnps, d, mem),
        VOp::OrPs => sse_m!(ops, orps, d, mem),
        VOp::XorPs => sse_m!(ops, xorps, d, mem),
        VOp::CmpEqPs => sse_m!(ops, cmpeqps, d, mem),
        VOp::CmpLtPs => sse_m!(ops, cmpltps, d, mem),
        VOp::CmpLePs => sse_m!(ops, cmpleps, d, mem),
        VOp::CmpNeqPs => sse_m!(ops, cmpneqps, d, mem),
        VOp::CmpUnordPs => sse_m!(ops, cmpunordps, d, mem),
        VOp::CmpOrdPs => sse_m!(ops, cmpordps, d, mem),
        VOp::AddPd => sse_m!(ops, addpd, d, mem),
        VOp::SubPd => sse_m!(ops, subpd, d, mem),
        VOp::MulPd => sse_m!(ops, mulpd, d, mem),
        VOp::DivPd => sse_m!(ops, divpd, d, mem),
        VOp::CmpLtPd => sse_m!(ops, cmpltpd, d, mem),
        VOp::PAddD => sse_m!(ops, paddd, d, mem),
        VOp::PCmpEqD => sse_m!(ops, pcmpeqd, d, mem),
        VOp::PCmpGtD => sse_m!(ops, pcmpgtd, d, mem),
        VOp::PAddQ => sse_m!(ops, paddq, d, mem),
        VOp::UnpckLps => sse_m!(ops, unpcklps, d, mem),
        VOp::UnpckHps => sse_m!(ops, unpckhps, d, mem),
        VOp::UnpckLpd => sse_m!(ops, unpcklpd, d, mem),
        VOp::UnpckHpd => sse_m!(ops, unpckhpd, d, mem),
    }
}

fn vop_sse(ops: &mut Ops, op: VOp, d: u8, b: u8) {
    match op {
        VOp::AddPs => dynasm!(ops ; .arch x64 ; addps Rx(d), Rx(b)),
        VOp::SubPs => dynasm!(ops ; .arch x64 ; subps Rx(d), Rx(b)),
        VOp::MulPs => dynasm!(ops ; .arch x64 ; mulps Rx(d), Rx(b)),
        VOp::DivPs => dynasm!(ops ; .arch x64 ; divps Rx(d), Rx(b)),
        VOp::MaxPs => dynasm!(ops ; .arch x64 ; maxps Rx(d), Rx(b)),
        VOp::MinPs => dynasm!(ops ; .arch x64 ; minps Rx(d), Rx(b)),
        VOp::AndPs => dynasm!(ops ; .arch x64 ; andps Rx(d), Rx(b)),
        VOp::AndnPs => dynasm!(ops ; .arch x64 ; andnps Rx(d), Rx(b)),
        VOp::OrPs => dynasm!(ops ; .arch x64 ; orps Rx(d), Rx(b)),
        VOp::XorPs => dynasm!(ops ; .arch x64 ; xorps Rx(d), Rx(b)),
        VOp::CmpEqPs => dynasm!(ops ; .arch x64 ; cmpeqps Rx(d), Rx(b)),
        VOp::CmpLtPs => dynasm!(ops ; .arch x64 ; cmpltps Rx(d), Rx(b)),
        VOp::CmpLePs => dynasm!(ops ; .arch x64 ; cmpleps Rx(d), Rx(b)),
        VOp::CmpNeqPs => dynasm!(ops ; .arch x64 ; cmpneqps Rx(d), Rx(b)),
        VOp::CmpUnordPs => dynasm!(ops ; .arch x64 ; cmpunordps Rx(d), Rx(b)),
        VOp::CmpOrdPs => dynasm!(ops ; .arch x64 ; cmpordps Rx(d), Rx(b)),
        VOp::AddPd => dynasm!(ops ; .arch x64 ; addpd Rx(d), Rx(b)),
        VOp::SubPd => dynasm!(ops ; .arch x64 ; subpd Rx(d), Rx(b)),
        VOp::MulPd => dynasm!(ops ; .arch x64 ; mulpd Rx(d), Rx(b)),
        VOp::DivPd => dynasm!(ops ; .arch x64 ; divpd Rx(d), Rx(b)),
        VOp::CmpLtPd => dynasm!(ops ; .arch x64 ; cmpltpd Rx(d), Rx(b)),
        VOp::PAddD => dynasm!(ops ; .arch x64 ; paddd Rx(d), Rx(b)),
        VOp::PCmpGtD => dynasm!(ops ; .arch x64 ; pcmpgtd Rx(d), Rx(b)),
        VOp::PCmpEqD => dynasm!(ops ; .arch x64 ; pcmpeqd Rx(d), Rx(b)),
        VOp::PAddQ => dynasm!(ops ; .arch x64 ; paddq Rx(d), Rx(b)),
        VOp::UnpckLps => dynasm!(ops ; .arch x64 ; unpcklps Rx(d), Rx(b)),
        VOp::UnpckHps => dynasm!(ops ; .arch x64 ; unpckhps Rx(d), Rx(b)),
        VOp::UnpckLpd => dynasm!(ops ; .arch x64 ; unpcklpd Rx(d), Rx(b)),
        VOp::UnpckHpd => dynasm!(ops ; .arch x64 ; unpckhpd Rx(d), Rx(b)),
    }
}

/// Register copy (nothing when `d == s`).
#[inline]
pub fn mov(ops: &mut Ops, tier: Tier, d: u8, s: u8) {
    if d == s {
        return;
    }
    match tier {
        Tier::Avx512 => zmm::mov(ops, d, s),
        Tier::Avx2 => vex::mov(ops, d, s),
        Tier::Sse41 => sse_mov(ops, d, s),
    }
}

/// `movaps d, s`.
#[inline(never)]
fn sse_mov(ops: &mut Ops, d: u8, s: u8) {
    dynasm!(ops ; .arch x64 ; movaps Rx(d), Rx(s));
}

/// Full-width aligned load.
#[inline]
pub fn load(ops: &mut Ops, tier: Tier, d: u8, m: Mem) {
    match tier {
        Tier::Avx512 => zmm::load(ops, d, m),
        Tier::Avx2 => vex::load(ops, d, m),
        Tier::Sse41 => sse_load(ops, d, m),
    }
}

/// [`load`] on SSE4.1.
#[inline(never)]
fn sse_load(ops: &mut Ops, d: u8, m: Mem) {
    match m {
        Mem::Uniform { index, comp } => {
            let o = abi::uniform_row_offset(index, comp);
            sse_load(ops, d, Mem::Ctx(o));
        }
        Mem::Ctx(o) => dynasm!(ops ; .arch x64 ; movaps Rx(d), [rdi + o]),
        Mem::CtxRax(o) => dynasm!(ops ; .arch x64 ; movups Rx(d), [rdi + rax + o]),
        Mem::Const(l) => dynasm!(ops ; .arch x64 ; movaps Rx(d), [=>l]),
    }
}

/// Full-width aligned store to the context.
#[inline]
pub fn store(ops: &mut Ops, tier: Tier, disp: i32, s: u8) {
    match tier {
        Tier::Avx512 => zmm::store(ops, disp, s),
        Tier::Avx2 => vex::store(ops, disp, s),
        Tier::Sse41 => sse_store(ops, disp, s),
    }
}

/// `movaps [rdi + disp], s`.
#[inline(never)]
fn sse_store(ops: &mut Ops, disp: i32, s: u8) {
    dynasm!(ops ; .arch x64 ; movaps [rdi + disp], Rx(s));
}

/// Loads the 16-byte uniform row of lane `lane` into 128-bit segment `lane / 4` of `d` (lanes
/// are loaded in order: segment 0 first, which clears the rest): `eax` = the row's byte offset
/// from the lane array at `[rdi + idx]`, the row at `[rdi + rax + table]`.
pub fn load_lane_row(ops: &mut Ops, tier: Tier, d: u8, idx: i32, lane: i32, table: i32) {
    dynasm!(ops ; .arch x64 ; mov eax, DWORD [rdi + idx + lane * 4]);
    match (tier, lane >= 4) {
        (Tier::Avx512, _) => zmm::load_lane_row(ops, d, lane, table),
        (Tier::Avx2, true) => {
            dynasm!(ops ; .arch x64 ; vinsertf128 Ry(d), Ry(d), OWORD [rdi + rax + table], 1)
        }
        (Tier::Avx2, false) => {
            dynasm!(ops ; .arch x64 ; vmovups Rx(d), OWORD [rdi + rax + table])
        }
        (Tier::Sse41, _) => dynasm!(ops ; .arch x64 ; movups Rx(d), OWORD [rdi + rax + table]),
    }
}

/// Transposes four registers of rows (`rows[k]` = lane k's x, y, z, w; lane k + 4 s's in
/// 128-bit segment s) into component vectors stored at `[rdi + out[c]]`, c = x, y, z, w.
/// Destroys the four registers and [`ASM_TEMP`].
pub fn transpose_rows(ops: &mut Ops, tier: Tier, rows: [u8; 4], out: [i32; 4]) {
    let plan = unpack_rows(ops, tier, rows, ASM_TEMP, 0b1111);
    for (k, (op, lo, hi)) in plan.into_iter().enumerate() {
        vop(ops, tier, op, rows[3], lo, hi);
        store(ops, tier, out[k], rows[3]);
    }
}

/// The first half of a 4×4 transpose within each 128-bit lane: `rows[k]` holds element k's
/// (x, y, z, w). Interleaves the rows in place (using `t` as a fifth register) and returns, per
/// component c, the operation and the two registers whose result is column c:
/// `vop(op, dst, lo, hi)`, where `dst` may be any register but `t`, `rows[0]`, `rows[1]` and
/// `rows[2]` (`rows[3]` is free once this returns). Only the interleaves the components in `wanted`
/// (bit c) need are emitted. On SSE4.1 every step is a copy plus a two-operand form that never
/// needs [`ASM_TEMP`], so `t` may be [`ASM_TEMP`].
pub fn unpack_rows(
    ops: &mut Ops,
    tier: Tier,
    rows: [u8; 4],
    t: u8,
    wanted: u8,
) -> [(VOp, u8, u8); 4] {
    let [a, b, c, d] = rows;
    if wanted & 0b0011 != 0 {
        vop(ops, tier, VOp::UnpckLps, t, a, b); // a.x b.x a.y b.y
    }
    if wanted & 0b1100 != 0 {
        vop(ops, tier, VOp::UnpckHps, a, a, b); // a.z b.z a.w b.w
    }
    if wanted & 0b0011 != 0 {
        vop(ops, tier, VOp::UnpckLps, b, c, d); // c.x d.x c.y d.y
    }
    if wanted & 0b1100 != 0 {
        vop(ops, tier, VOp::UnpckHps, c, c, d); // c.z d.z c.w d.w
    }
    [
        (VOp::UnpckLpd, t, b),
        (VOp::UnpckHpd, t, b),
        (VOp::UnpckLpd, a, c),
        (VOp::UnpckHpd, a, c),
    ]
}

/// Broadcast the f32 at `[rdi + disp]` (or `[rdi + rax + disp]`) to every lane.
pub fn broadcast(ops: &mut Ops, tier: Tier, d: u8, m: Mem) {
    match (tier, m) {
        (Tier::Sse41 | Tier::Avx2, Mem::Uniform { index, comp }) => {
            let o = abi::uniform_row_offset(index, comp);
            broadcast(ops, tier, d, Mem::Ctx(o));
        }
        (Tier::Avx512, m) => zmm::broadcast(ops, d, m),
        (Tier::Avx2, Mem::Ctx(o)) => {
            dynasm!(ops ; .arch x64 ; vmovss Rx(d), [rdi + o] ; vbroadcastss Ry(d), Rx(d))
        }
        (Tier::Avx2, Mem::CtxRax(o)) => {
            dynasm!(ops ; .arch x64 ; vmovss Rx(d), [rdi + rax + o] ; vbroadcastss Ry(d), Rx(d))
        }
        (Tier::Avx2, Mem::Const(l)) => {
            dynasm!(ops ; .arch x64 ; vmovss Rx(d), [=>l] ; vbroadcastss Ry(d), Rx(d))
        }
        (Tier::Sse41, Mem::Ctx(o)) => {
            dynasm!(ops ; .arch x64 ; movss Rx(d), [rdi + o] ; shufps Rx(d), Rx(d), 0)
        }
        (Tier::Sse41, Mem::CtxRax(o)) => {
            dynasm!(ops ; .arch x64 ; movss Rx(d), [rdi + rax + o] ; shufps Rx(d), Rx(d), 0)
        }
        (Tier::Sse41, Mem::Const(l)) => {
            dynasm!(ops ; .arch x64 ; movss Rx(d), [=>l] ; shufps Rx(d), Rx(d), 0)
        }
    }
}

/// All lanes all-ones.
pub fn ones(ops: &mut Ops, tier: Tier, d: u8) {
    match tier {
        Tier::Avx512 => zmm::ones(ops, d),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vpcmpeqd Ry(d), Ry(d), Ry(d)),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; pcmpeqd Rx(d), Rx(d)),
    }
}

/// All lanes zero.
pub fn zero(ops: &mut Ops, tier: Tier, d: u8) {
    match tier {
        Tier::Avx512 => zmm::zero(ops, d),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vxorps Ry(d), Ry(d), Ry(d)),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; xorps Rx(d), Rx(d)),
    }
}

/// `d = m ? a : b` per lane (`m` all-ones or zero per lane); any of the registers may alias.
pub fn select(ops: &mut Ops, tier: Tier, d: u8, m: u8, a: u8, b: u8) {
    match tier {
        Tier::Avx512 => zmm::select(ops, d, m, a, b),
        Tier::Avx2 => {
            dynasm!(ops ; .arch x64 ; vblendvps Ry(d), Ry(b), Ry(a), Ry(m))
        }
        Tier::Sse41 => {
            // (a & m) | (b & !m), with ASM_TEMP for the `a & m` half.
            if a == b {
                mov(ops, tier, d, a);
            } else if d == b {
                dynasm!(ops ; .arch x64
                    ; movaps Rx(ASM_TEMP), Rx(m) ; andps Rx(ASM_TEMP), Rx(b) ; xorps Rx(d), Rx(ASM_TEMP)
                    ; movaps Rx(ASM_TEMP), Rx(m) ; andps Rx(ASM_TEMP), Rx(a) ; orps Rx(d), Rx(ASM_TEMP));
            } else if d == m {
                dynasm!(ops ; .arch x64
                    ; movaps Rx(ASM_TEMP), Rx(m) ; andps Rx(ASM_TEMP), Rx(a)
                    ; andnps Rx(d), Rx(b) ; orps Rx(d), Rx(ASM_TEMP));
            } else {
                dynasm!(ops ; .arch x64
                    ; movaps Rx(ASM_TEMP), Rx(m) ; andps Rx(ASM_TEMP), Rx(a)
                    ; movaps Rx(d), Rx(m) ; andnps Rx(d), Rx(b) ; orps Rx(d), Rx(ASM_TEMP));
            }
        }
    }
}

/// `roundps` with an immediate rounding control (9 = floor).
pub fn round_ps(ops: &mut Ops, tier: Tier, d: u8, s: u8, imm: i8) {
    match tier {
        Tier::Avx512 => zmm::round_ps(ops, d, s, imm),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vroundps Ry(d), Ry(s), imm),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; roundps Rx(d), Rx(s), imm),
    }
}

/// `roundpd` with an immediate rounding control (8 = nearest even).
pub fn round_pd(ops: &mut Ops, tier: Tier, d: u8, s: u8, imm: i8) {
    match tier {
        Tier::Avx512 => zmm::round_pd(ops, d, s, imm),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vroundpd Ry(d), Ry(s), imm),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; roundpd Rx(d), Rx(s), imm),
    }
}

/// `d = sqrt(s)` per f32 lane.
pub fn sqrt_ps(ops: &mut Ops, tier: Tier, d: u8, s: u8) {
    match tier {
        Tier::Avx512 => zmm::sqrt_ps(ops, d, s),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vsqrtps Ry(d), Ry(s)),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; sqrtps Rx(d), Rx(s)),
    }
}

/// Truncating f32 → i32 (out of range and NaN give `0x8000_0000`).
pub fn cvtt_ps2dq(ops: &mut Ops, tier: Tier, d: u8, s: u8) {
    match tier {
        Tier::Avx512 => zmm::cvtt_ps2dq(ops, d, s),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vcvttps2dq Ry(d), Ry(s)),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; cvttps2dq Rx(d), Rx(s)),
    }
}

/// Widen half of the f32 lanes at `[rdi + disp]` to f64 (4 lanes AVX2, 2 lanes SSE).
pub fn cvt_ps2pd_mem(ops: &mut Ops, tier: Tier, d: u8, disp: i32) {
    match tier {
        Tier::Avx512 => zmm::cvt_ps2pd_mem(ops, d, disp),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vcvtps2pd Ry(d), [rdi + disp]),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; cvtps2pd Rx(d), [rdi + disp]),
    }
}

/// Narrow the f64 lanes of `s` to f32 and store them (16 bytes AVX2, 8 bytes SSE) at
/// `[rdi + disp]`.
pub fn cvt_pd2ps_store(ops: &mut Ops, tier: Tier, s: u8, disp: i32) {
    match tier {
        Tier::Avx512 => zmm::cvt_pd2ps_store(ops, s, disp),
        Tier::Avx2 => {
            dynasm!(ops ; .arch x64 ; vcvtpd2ps Rx(ASM_TEMP), Ry(s) ; vmovaps [rdi + disp], Rx(ASM_TEMP))
        }
        Tier::Sse41 => {
            dynasm!(ops ; .arch x64 ; cvtpd2ps Rx(ASM_TEMP), Rx(s) ; movlps [rdi + disp], Rx(ASM_TEMP))
        }
    }
}

/// 64-bit left shift by an immediate.
pub fn psllq(ops: &mut Ops, tier: Tier, d: u8, imm: i8) {
    match tier {
        Tier::Avx512 => zmm::psllq(ops, d, imm),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vpsllq Ry(d), Ry(d), imm),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; psllq Rx(d), imm),
    }
}

/// 64-bit logical right shift by `imm`, which the low quadword of `count` also holds (the
/// SSE/VEX forms read the register: dynasm mis-encodes their immediate form; EVEX takes `imm`).
pub fn psrlq(ops: &mut Ops, tier: Tier, d: u8, count: u8, imm: u8) {
    match tier {
        Tier::Avx512 => zmm::psrlq(ops, d, imm),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vpsrlq Ry(d), Ry(d), Rx(count)),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; psrlq Rx(d), Rx(count)),
    }
}

/// `d[i] = s[(imm >> 2i) & 3]` within each 128-bit half (`pshufd`; AVX2 `vpermilps`, whose
/// VEX form dynasm encodes correctly).
pub fn permute(ops: &mut Ops, tier: Tier, d: u8, s: u8, imm: u8) {
    let imm = imm as i8;
    match tier {
        Tier::Avx512 => zmm::permute(ops, d, s, imm as u8),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vpermilps Ry(d), Ry(s), imm),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; pshufd Rx(d), Rx(s), imm),
    }
}

/// 32-bit left shift by an immediate.
pub fn pslld(ops: &mut Ops, tier: Tier, d: u8, imm: i8) {
    match tier {
        Tier::Avx512 => zmm::pslld(ops, d, imm),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vpslld Ry(d), Ry(d), imm),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; pslld Rx(d), imm),
    }
}

/// `eax` = lane 0 of `s`.
pub fn lane0_to_eax(ops: &mut Ops, tier: Tier, s: u8) {
    match tier {
        Tier::Avx512 => zmm::lane0_to_eax(ops, s),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vmovd eax, Rx(s)),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; movd eax, Rx(s)),
    }
}

/// Clears the upper vector state before returning (AVX2 and AVX-512).
pub fn leave(ops: &mut Ops, tier: Tier) {
    match tier {
        Tier::Avx2 | Tier::Avx512 => dynasm!(ops ; .arch x64 ; vzeroupper ; ret),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; ret),
    }
}

/// The base register of an I/O access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// `rsi`: the current input vertex (AoS) or batch offset (SoA).
    Rsi,
    /// `r8`: the current output vertex (AoS).
    R8,
    /// `rax + rsi`: a plane pointer plus the batch offset (SoA).
    RaxRsi,
}

/// Loads 16 bytes (one AoS register) into the low half of `d`.
pub fn load_xmm(ops: &mut Ops, tier: Tier, d: u8, base: Base, disp: i32) {
    match (tier, base) {
        (Tier::Avx512, base) => zmm::load_xmm(ops, d, base, disp),
        (Tier::Avx2, Base::Rsi) => {
            dynasm!(ops ; .arch x64 ; vmovups Rx(d), [rsi + disp])
        }
        (Tier::Avx2, Base::R8) => {
            dynasm!(ops ; .arch x64 ; vmovups Rx(d), [r8 + disp])
        }
        (Tier::Avx2, Base::RaxRsi) => {
            dynasm!(ops ; .arch x64 ; vmovups Rx(d), [rax + rsi + disp])
        }
        (Tier::Sse41, Base::Rsi) => dynasm!(ops ; .arch x64 ; movups Rx(d), [rsi + disp]),
        (Tier::Sse41, Base::R8) => dynasm!(ops ; .arch x64 ; movups Rx(d), [r8 + disp]),
        (Tier::Sse41, Base::RaxRsi) => dynasm!(ops ; .arch x64 ; movups Rx(d), [rax + rsi + disp]),
    }
}

/// Loads the 16 bytes at `[rsi + disp]` into 128-bit segment `seg` (1 ≤ seg < `tier.segments()`)
/// of `d`, the others kept. SSE4.1 has one segment: nothing to do.
pub fn insert_segment(ops: &mut Ops, tier: Tier, d: u8, seg: u8, disp: i32) {
    match tier {
        Tier::Avx512 => zmm::insert_segment(ops, d, Base::Rsi, seg, disp),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vinsertf128 Ry(d), Ry(d), [rsi + disp], 1),
        Tier::Sse41 => {}
    }
}

/// The loads of [`load_attribute`], [`load_attribute_at`] and [`load_attribute_counted`],
/// written once for every address form (`$ops`, `$tier`, `$d`, `$n`, then the address inside the brackets).
macro_rules! attribute_load {
    ($ops:ident, $tier:ident, $d:ident, $n:ident, $($addr:tt)+) => {
        match ($tier, $n) {
            (Tier::Avx2 | Tier::Avx512, 1) => {
                dynasm!($ops ; .arch x64 ; vmovss Rx($d), DWORD [$($addr)+])
            }
            (Tier::Avx2 | Tier::Avx512, 2) => {
                dynasm!($ops ; .arch x64 ; vmovsd Rx($d), QWORD [$($addr)+])
            }
            // z 0 0 0, z 0 z 0, x y z 0.
            (Tier::Avx2 | Tier::Avx512, 3) => dynasm!($ops ; .arch x64
                ; vmovss Rx($d), DWORD [$($addr)+ + 8]
                ; vmovlhps Rx($d), Rx($d), Rx($d)
                ; vmovlps Rx($d), Rx($d), QWORD [$($addr)+]),
            (Tier::Avx2 | Tier::Avx512, _) => {
                dynasm!($ops ; .arch x64 ; vmovups Rx($d), OWORD [$($addr)+])
            }
            (Tier::Sse41, 1) => dynasm!($ops ; .arch x64 ; movss Rx($d), DWORD [$($addr)+]),
            (Tier::Sse41, 2) => dynasm!($ops ; .arch x64 ; movsd Rx($d), QWORD [$($addr)+]),
            (Tier::Sse41, 3) => dynasm!($ops ; .arch x64
                ; movss Rx($d), DWORD [$($addr)+ + 8]
                ; movlhps Rx($d), Rx($d)
                ; movlps Rx($d), QWORD [$($addr)+]),
            (Tier::Sse41, _) => dynasm!($ops ; .arch x64 ; movups Rx($d), OWORD [$($addr)+]),
        }
    };
}

/// Loads the `n` floats (1..=4) at `[rdx + rax]` into the low lanes of `d` (a draw kernel's
/// attribute row: the array's base plus the lane's offset); the other lanes of `d` are
/// zeroed. Reads exactly `4 n` bytes.
pub fn load_attribute(ops: &mut Ops, tier: Tier, d: u8, n: u8) {
    attribute_load!(ops, tier, d, n, rdx + rax)
}

/// [`load_attribute`] from `[base + disp]` (a stepped draw kernel's lane: the batch's
/// attribute pointer in general-purpose register `base`, plus the lane's fixed offset).
pub fn load_attribute_at(ops: &mut Ops, tier: Tier, d: u8, n: u8, base: u8, disp: i32) {
    attribute_load!(ops, tier, d, n, Rq(base) + disp)
}

/// [`load_attribute`] from `[base + rsi + disp]` (a stepped draw kernel's lane of a register
/// of the shared stride: its array's base in general-purpose register `base`, the batch's
/// first vertex's offset, the lane's fixed offset).
pub fn load_attribute_counted(ops: &mut Ops, tier: Tier, d: u8, n: u8, base: u8, disp: i32) {
    attribute_load!(ops, tier, d, n, Rq(base) + rsi + disp)
}

/// AVX2 and AVX-512: 128-bit segment `seg` of `d` (AVX2: 1, the high half; AVX-512: 1–3) =
/// the 16 bytes at `[base + rsi + disp]` (as [`load_attribute_counted`]), the rest kept.
pub fn insert_attribute_counted(ops: &mut Ops, tier: Tier, d: u8, seg: u8, base: u8, disp: i32) {
    match tier {
        Tier::Avx512 => zmm::insert_segment_at(ops, d, seg, (base, Some(zmm::RSI)), disp),
        Tier::Avx2 | Tier::Sse41 => {
            dynasm!(ops ; .arch x64 ; vinsertf128 Ry(d), Ry(d), [Rq(base) + rsi + disp], 1)
        }
    }
}

/// SSE4.1: the components of `d` that `mask` selects (bits 0–3: components 0–3) taken from
/// the constant row at `row`, the others kept (a draw kernel's constant slots blended into a
/// copied attribute row). Only SSE4.1 has it: dynasm encodes `vblendps` with a label operand
/// as a register form, so AVX2 and AVX-512 callers mask and OR instead.
pub fn blend_const(ops: &mut Ops, d: u8, row: DynamicLabel, mask: u8) {
    let mask = (mask & 15) as i8;
    dynasm!(ops ; .arch x64 ; blendps Rx(d), [=>row], mask);
}

/// AVX2 and AVX-512: 128-bit segment `seg` of `d` (as [`insert_attribute_counted`]) = the 16
/// bytes at `[rdx + rax]` (a draw kernel's four-component attribute of lane k + 4 `seg`).
pub fn insert_attribute(ops: &mut Ops, tier: Tier, d: u8, seg: u8) {
    match tier {
        Tier::Avx512 => zmm::insert_segment_at(ops, d, seg, (zmm::RDX, Some(zmm::RAX)), 0),
        Tier::Avx2 | Tier::Sse41 => {
            dynasm!(ops ; .arch x64 ; vinsertf128 Ry(d), Ry(d), [rdx + rax], 1)
        }
    }
}

/// AVX2 and AVX-512: 128-bit segment `seg` of `d` (as [`insert_attribute_counted`]) = the 16
/// bytes at `[base + disp]` (a stepped draw kernel's four-component attribute of lane
/// k + 4 `seg`).
pub fn insert_attribute_at(ops: &mut Ops, tier: Tier, d: u8, seg: u8, base: u8, disp: i32) {
    match tier {
        Tier::Avx512 => zmm::insert_segment_at(ops, d, seg, (base, None), disp),
        Tier::Avx2 | Tier::Sse41 => {
            dynasm!(ops ; .arch x64 ; vinsertf128 Ry(d), Ry(d), [Rq(base) + disp], 1)
        }
    }
}

/// Where an SSE4.1 stepped draw kernel reads part of one lane's attribute: `[base + rsi +
/// disp]` for a register of the shared stride (`counted`), else `[base + disp]` (`base` a
/// general-purpose register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneAt {
    pub base: u8,
    pub counted: bool,
    pub disp: i32,
}

/// What [`load_part`] reads of an attribute into an xmm register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// 8 bytes into the low half, the high half zeroed (`movsd`).
    Low,
    /// 8 bytes into the high half, the low half kept (`movhps`).
    High,
    /// 4 bytes into element 0, the others zeroed (`movss`).
    First,
    /// 4 bytes into element e (0–3), the others kept (`insertps`).
    Element(u8),
}

/// The loads of [`load_part`] for each address form (`$ops`, `$part`, `$d`, then the address
/// inside the brackets).
macro_rules! part_load {
    ($ops:ident, $part:ident, $d:ident, $($addr:tt)+) => {
        match $part {
            Part::Low => dynasm!($ops ; .arch x64 ; movsd Rx($d), QWORD [$($addr)+]),
            Part::High => dynasm!($ops ; .arch x64 ; movhps Rx($d), QWORD [$($addr)+]),
            Part::First => dynasm!($ops ; .arch x64 ; movss Rx($d), DWORD [$($addr)+]),
            Part::Element(e) => {
                let imm = ((e & 3) << 4) as i8;
                dynasm!($ops ; .arch x64 ; insertps Rx($d), DWORD [$($addr)+], imm)
            }
        }
    };
}

/// SSE4.1: loads `part` of the attribute at `at` into `d` (reads exactly the bytes `part`
/// names).
pub fn load_part(ops: &mut Ops, d: u8, part: Part, at: LaneAt) {
    let (base, disp) = (at.base, at.disp);
    if at.counted {
        part_load!(ops, part, d, Rq(base) + rsi + disp)
    } else {
        part_load!(ops, part, d, Rq(base) + disp)
    }
}

/// SSE4.1: `d` = elements `imm[1:0]`, `imm[3:2]` of `d`, then `imm[5:4]`, `imm[7:6]` of `s`.
pub fn shufps(ops: &mut Ops, d: u8, s: u8, imm: u8) {
    let imm = imm as i8;
    dynasm!(ops ; .arch x64 ; shufps Rx(d), Rx(s), imm);
}

/// Stores the low float of `s` (`pair` false) or its low two at `[r8 + disp]` (a draw
/// kernel's copied slots of a group whose other slots it leaves to the caller).
pub fn store_floats(ops: &mut Ops, tier: Tier, s: u8, pair: bool, disp: i32) {
    match (tier, pair) {
        (Tier::Avx2 | Tier::Avx512, false) => {
            dynasm!(ops ; .arch x64 ; vmovss DWORD [r8 + disp], Rx(s))
        }
        (Tier::Avx2 | Tier::Avx512, true) => {
            dynasm!(ops ; .arch x64 ; vmovsd QWORD [r8 + disp], Rx(s))
        }
        (Tier::Sse41, false) => dynasm!(ops ; .arch x64 ; movss DWORD [r8 + disp], Rx(s)),
        (Tier::Sse41, true) => dynasm!(ops ; .arch x64 ; movsd QWORD [r8 + disp], Rx(s)),
    }
}

/// SSE4.1: stores the low (`high` false) or the high 8 bytes of `s` at `[r8 + disp]`.
pub fn store_half(ops: &mut Ops, s: u8, high: bool, disp: i32) {
    if high {
        dynasm!(ops ; .arch x64 ; movhps QWORD [r8 + disp], Rx(s));
    } else {
        dynasm!(ops ; .arch x64 ; movlps QWORD [r8 + disp], Rx(s));
    }
}

/// AVX2: loads 32 bytes (two adjacent AoS registers of one vertex) from `[rsi + disp]`.
pub fn load_pair(ops: &mut Ops, d: u8, disp: i32) {
    dynasm!(ops ; .arch x64 ; vmovups Ry(d), [rsi + disp]);
}

/// AVX2: stores 32 bytes (two adjacent AoS registers of one vertex) at `[r8 + disp]`.
pub fn store_pair(ops: &mut Ops, s: u8, disp: i32) {
    dynasm!(ops ; .arch x64 ; vmovups [r8 + disp], Ry(s));
}

/// AVX2: `d` = the low half of `a`, then the 16 bytes at `[rsi + disp]`.
pub fn low_then_input(ops: &mut Ops, d: u8, a: u8, disp: i32) {
    dynasm!(ops ; .arch x64 ; vinsertf128 Ry(d), Ry(a), [rsi + disp], 1);
}

/// AVX2: `d` = the 16 bytes at `[rsi + disp]`, then the high half of `a` (reads 32 bytes).
pub fn input_then_high(ops: &mut Ops, d: u8, a: u8, disp: i32) {
    dynasm!(ops ; .arch x64 ; vperm2f128 Ry(d), Ry(a), [rsi + disp], 0x12);
}

/// AVX2: `d` = the low half of `a`, then the low half of `b`.
pub fn low_halves(ops: &mut Ops, d: u8, a: u8, b: u8) {
    dynasm!(ops ; .arch x64 ; vperm2f128 Ry(d), Ry(a), Ry(b), 0x20);
}

/// AVX2: `d` = the high half of `a`, then the high half of `b`.
pub fn high_halves(ops: &mut Ops, d: u8, a: u8, b: u8) {
    dynasm!(ops ; .arch x64 ; vperm2f128 Ry(d), Ry(a), Ry(b), 0x31);
}

/// `d`'s 128-bit segment `seg` (1 ≤ seg < `tier.segments()`) = the low 16 bytes of `s`, the
/// segments below kept (AVX2: `d`'s low half, then `s`'s; those above may be clobbered).
/// SSE4.1 has one segment: nothing to do.
pub fn join_segment(ops: &mut Ops, tier: Tier, d: u8, s: u8, seg: u8) {
    match tier {
        Tier::Avx512 => zmm::insert_segment_reg(ops, d, s, seg),
        Tier::Avx2 => low_halves(ops, d, d, s),
        Tier::Sse41 => {}
    }
}

/// Stores the low 16 bytes of `s`.
pub fn store_xmm(ops: &mut Ops, tier: Tier, s: u8, base: Base, disp: i32) {
    match (tier, base) {
        (Tier::Avx512, base) => zmm::store_xmm(ops, s, base, disp),
        (Tier::Avx2, Base::Rsi) => {
            dynasm!(ops ; .arch x64 ; vmovups [rsi + disp], Rx(s))
        }
        (Tier::Avx2, Base::R8) => {
            dynasm!(ops ; .arch x64 ; vmovups [r8 + disp], Rx(s))
        }
        (Tier::Avx2, Base::RaxRsi) => {
            dynasm!(ops ; .arch x64 ; vmovups [rax + rsi + disp], Rx(s))
        }
        (Tier::Sse41, Base::Rsi) => dynasm!(ops ; .arch x64 ; movups [rsi + disp], Rx(s)),
        (Tier::Sse41, Base::R8) => dynasm!(ops ; .arch x64 ; movups [r8 + disp], Rx(s)),
        (Tier::Sse41, Base::RaxRsi) => dynasm!(ops ; .arch x64 ; movups [rax + rsi + disp], Rx(s)),
    }
}

/// Stores 128-bit segment `seg` (1 ≤ seg < `tier.segments()`) of `s` at `[r8 + disp]`. SSE4.1
/// has one segment: nothing to do.
pub fn extract_segment(ops: &mut Ops, tier: Tier, s: u8, seg: u8, disp: i32) {
    match tier {
        Tier::Avx512 => zmm::extract_segment(ops, s, Base::R8, seg, disp),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vextractf128 [r8 + disp], Ry(s), 1),
        Tier::Sse41 => {}
    }
}

/// Full-width unaligned load from `[rax + rsi]` (a SoA plane at the batch offset).
pub fn load_plane(ops: &mut Ops, tier: Tier, d: u8) {
    match tier {
        Tier::Avx512 => zmm::load_plane(ops, d),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vmovups Ry(d), [rax + rsi]),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; movups Rx(d), [rax + rsi]),
    }
}

/// Full-width unaligned store to `[rax + rsi]`.
pub fn store_plane(ops: &mut Ops, tier: Tier, s: u8) {
    match tier {
        Tier::Avx512 => zmm::store_plane(ops, s),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vmovups [rax + rsi], Ry(s)),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; movups [rax + rsi], Rx(s)),
    }
}

/// Full-width store to the current output bank, `[r11 + disp]`.
pub fn store_bank(ops: &mut Ops, tier: Tier, disp: i32, s: u8) {
    match tier {
        Tier::Avx512 => zmm::store_bank(ops, disp, s),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vmovaps [r11 + disp], Ry(s)),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; movaps [r11 + disp], Rx(s)),
    }
}

/// Full-width load from the current output bank, `[r11 + disp]`.
pub fn load_bank(ops: &mut Ops, tier: Tier, d: u8, disp: i32) {
    match tier {
        Tier::Avx512 => zmm::load_bank(ops, d, disp),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vmovaps Ry(d), [r11 + disp]),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; movaps Rx(d), [r11 + disp]),
    }
}

/// Copies `rows` 64-byte lane rows from `[rdi + src]` to `[rdx + dst]`, through register `t`.
pub fn copy_ctx_to_rdx(ops: &mut Ops, tier: Tier, t: u8, src: i32, dst: i32, rows: i32) {
    for k in 0..rows {
        let (from, to) = (src + k * 64, dst + k * 64);
        match tier {
            Tier::Avx512 => zmm::copy_row_to_rdx(ops, t, from, to),
            Tier::Avx2 => {
                dynasm!(ops ; .arch x64 ; vmovaps Ry(t), [rdi + from] ; vmovaps [rdx + to], Ry(t))
            }
            Tier::Sse41 => {
                dynasm!(ops ; .arch x64 ; movaps Rx(t), [rdi + from] ; movaps [rdx + to], Rx(t))
            }
        }
    }
}

/// Jumps to `target` if any lane of mask `m` is true.
pub fn jump_if_any(ops: &mut Ops, tier: Tier, m: u8, target: DynamicLabel) {
    match tier {
        Tier::Avx512 => return zmm::jump_if_any(ops, m, target),
        Tier::Avx2 => dynasm!(ops ; .arch x64 ; vptest Ry(m), Ry(m)),
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; ptest Rx(m), Rx(m)),
    }
    dynasm!(ops ; .arch x64 ; jnz =>target);
}

/// `eax` = the sign bits of the lanes of `m` (bit l = lane l), `movmskps`. dynasm-rs 5.1 cannot
/// assemble `vmovmskps` at all, so the AVX2 form is encoded here: VEX.256.0F 50 /r with
/// ModRM.reg = eax (two-byte VEX for ymm0–7, three-byte with VEX.B for ymm8–15).
pub fn movmsk_eax(ops: &mut Ops, tier: Tier, m: u8) {
    match tier {
        Tier::Avx512 => zmm::movmsk_eax(ops, m),
        Tier::Avx2 => {
            let modrm = 0xC0 | (m & 7);
            if m < 8 {
                ops.extend([0xC5, 0xFC, 0x50, modrm]);
            } else {
                ops.extend([0xC4, 0xC1, 0x7C, 0x50, modrm]);
            }
        }
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; movmskps eax, Rx(m)),
    }
}

/// `d` = the signed minimum of the i32 lanes of `s` in every lane (destroys [`ASM_TEMP`]).
pub fn lane_min(ops: &mut Ops, tier: Tier, d: u8, s: u8) {
    let t = ASM_TEMP;
    // Swap the two 32-bit halves of each 64 bits (lanes 1, 0, 3, 2).
    let pairs = 0xB1u8 as i8;
    match tier {
        Tier::Avx512 => zmm::lane_min(ops, d, s),
        Tier::Avx2 => dynasm!(ops ; .arch x64
            ; vextracti128 Rx(t), Ry(s), 1
            ; vpminsd Rx(t), Rx(t), Rx(s)
            ; vpshufd Rx(d), Rx(t), 0x4E
            ; vpminsd Rx(t), Rx(t), Rx(d)
            ; vpshufd Rx(d), Rx(t), pairs
            ; vpminsd Rx(t), Rx(t), Rx(d)
            ; vpbroadcastd Ry(d), Rx(t)),
        Tier::Sse41 => dynasm!(ops ; .arch x64
            ; pshufd Rx(t), Rx(s), 0x4E
            ; pminsd Rx(t), Rx(s)
            ; pshufd Rx(d), Rx(t), pairs
            ; pminsd Rx(d), Rx(t)),
    }
}

/// Broadcasts `eax` to every lane of `d`.
pub fn broadcast_eax(ops: &mut Ops, tier: Tier, d: u8) {
    match tier {
        Tier::Avx512 => zmm::broadcast_eax(ops, d),
        Tier::Avx2 => {
            dynasm!(ops ; .arch x64 ; vmovd Rx(d), eax ; vpbroadcastd Ry(d), Rx(d))
        }
        Tier::Sse41 => dynasm!(ops ; .arch x64 ; movd Rx(d), eax ; pshufd Rx(d), Rx(d), 0),
    }
}

/// Scalar helpers (GPR code, tier independent).
pub mod scalar {
    use super::*;

    /// `eax = [rdi + disp]`.
    pub fn load_eax(ops: &mut Ops, disp: i32) {
        dynasm!(ops ; .arch x64 ; mov eax, DWORD [rdi + disp]);
    }
    /// `[rdi + disp] = eax`.
    pub fn store_eax(ops: &mut Ops, disp: i32) {
        dynasm!(ops ; .arch x64 ; mov DWORD [rdi + disp], eax);
    }
    /// `eax = zero-extended byte [rdi + disp]`.
    pub fn load_byte_eax(ops: &mut Ops, disp: i32) {
        dynasm!(ops ; .arch x64 ; movzx eax, BYTE [rdi + disp]);
    }
    /// `[rdi + disp] += eax`.
    pub fn add_eax_to(ops: &mut Ops, disp: i32) {
        dynasm!(ops ; .arch x64 ; add DWORD [rdi + disp], eax);
    }
    /// `[rdi + disp] = imm`.
    pub fn store_imm(ops: &mut Ops, disp: i32, imm: i32) {
        dynasm!(ops ; .arch x64 ; mov DWORD [rdi + disp], imm);
    }
    /// Budget: if `[rdi + disp] == 0` jump to `exhausted`, else decrement it.
    pub fn budget(ops: &mut Ops, disp: i32, exhausted: DynamicLabel) {
        dynasm!(ops ; .arch x64 ; cmp DWORD [rdi + disp], 0 ; je =>exhausted ; dec DWORD [rdi + disp]);
    }
    /// Jump to `target` if bit `bit` of `[rdi + disp]` is set.
    pub fn jump_if_bit(ops: &mut Ops, disp: i32, bit: u8, target: DynamicLabel) {
        let mask = 1i32 << (bit & 31);
        dynasm!(ops ; .arch x64 ; test DWORD [rdi + disp], mask ; jnz =>target);
    }
    /// Jump to `target` if eax != 0.
    pub fn jump_if_eax(ops: &mut Ops, target: DynamicLabel) {
        dynasm!(ops ; .arch x64 ; test eax, eax ; jnz =>target);
    }
    /// Jumps to `target` if eax is zero.
    pub fn jump_if_eax_zero(ops: &mut Ops, target: DynamicLabel) {
        dynasm!(ops ; .arch x64 ; test eax, eax ; jz =>target);
    }
    /// LOOP back edge: if `[rdi + disp]` is 0 jump to `exit`, else decrement it and jump to
    /// `repeat`.
    pub fn loop_next(ops: &mut Ops, disp: i32, repeat: DynamicLabel, exit: DynamicLabel) {
        dynasm!(ops ; .arch x64
            ; cmp DWORD [rdi + disp], 0 ; je =>exit
            ; dec DWORD [rdi + disp] ; jmp =>repeat);
    }
    /// Unconditional jump.
    pub fn jump(ops: &mut Ops, target: DynamicLabel) {
        dynasm!(ops ; .arch x64 ; jmp =>target);
    }
    /// Binds a label here.
    pub fn bind(ops: &mut Ops, label: DynamicLabel) {
        dynasm!(ops ; .arch x64 ; =>label);
    }
    /// The PICA relative-offset rule on eax: eax = (−128 ≤ eax ≤ 127 ? eax : 0); then
    /// eax = ((eax + base) & 0x7F) << 4 — the byte offset of a uniform row. Clobbers ecx, edx.
    pub fn uniform_row_offset(ops: &mut Ops, base: i32) {
        dynasm!(ops ; .arch x64
            ; lea ecx, [rax + 128]
            ; xor edx, edx
            ; cmp ecx, 255
            ; cmova eax, edx
            ; add eax, base
            ; and eax, 0x7F
            ; shl eax, 4);
    }
    /// Aligns the stream with `int3` padding.
    pub fn align(ops: &mut Ops, n: usize) {
        ops.align(n, 0xCC);
    }
    /// Emits raw 32-bit words (constant pool data).
    pub fn words(ops: &mut Ops, words: &[u32]) {
        for &w in words {
            ops.push_u32(w);
        }
    }
    /// Ends with status "budget exhausted" (1).
    pub fn exhausted(ops: &mut Ops, status: i32) {
        dynasm!(ops ; .arch x64 ; mov DWORD [rdi + status], 1);
    }
    /// The batch loop's registers: rsi = input, r8 = output, r10 = status words, r9 = batches;
    /// jumps to `done` when there is no batch.
    pub fn io_setup(
        ops: &mut Ops,
        input: i32,
        output: i32,
        status: i32,
        batches: i32,
        done: DynamicLabel,
    ) {
        dynasm!(ops ; .arch x64
            ; mov rsi, QWORD [rdi + input]
            ; mov r8, QWORD [rdi + output]
            ; mov r10, QWORD [rdi + status]
            ; mov r9, QWORD [rdi + batches]
            ; test r9, r9
            ; jz =>done);
    }
    /// r11 = the context plus `bank` (the current output bank).
    pub fn set_bank(ops: &mut Ops, bank: i32) {
        dynasm!(ops ; .arch x64 ; lea r11, [rdi + bank]);
    }
    /// rcx = the batch's triangle count; if it is not below the capacity jump to
    /// `overflow`; rdx = the address of triangle rcx in the buffer.
    pub fn triangle_address(ops: &mut Ops, overflow: DynamicLabel) {
        let (count, capacity, base, size) = (
            abi::EMIT_COUNT,
            abi::IO_TRIANGLE_CAPACITY,
            abi::IO_TRIANGLES,
            abi::TRIANGLE_BYTES,
        );
        dynasm!(ops ; .arch x64
            ; mov ecx, DWORD [rdi + count]
            ; cmp rcx, QWORD [rdi + capacity]
            ; jae =>overflow
            ; imul rdx, rcx, size
            ; add rdx, QWORD [rdi + base]);
    }
    /// Word `word` (0 or 1) of the two 16-bit mask words of triangle rcx (the array at
    /// `[rdi + masks]`) = ax.
    pub fn triangle_mask(ops: &mut Ops, masks: i32, word: i32) {
        let at = word * 2;
        dynasm!(ops ; .arch x64
            ; mov rdx, QWORD [rdi + masks]
            ; mov WORD [rdx + rcx * 4 + at], ax);
    }
    /// Counts the triangle: `[rdi + count] += 1`.
    pub fn count_triangle(ops: &mut Ops, count: i32) {
        dynasm!(ops ; .arch x64 ; inc DWORD [rdi + count]);
    }
    /// SoA and stepped draw kernels: rsi is a byte offset, starting at 0.
    pub fn zero_rsi(ops: &mut Ops) {
        dynasm!(ops ; .arch x64 ; xor esi, esi);
    }
    /// Per batch: budget = `[rdi + init]`.
    pub fn reset_budget(ops: &mut Ops, init: i32, budget: i32) {
        dynasm!(ops ; .arch x64
            ; mov eax, DWORD [rdi + init]
            ; mov DWORD [rdi + budget], eax);
    }
    /// Per batch: aL = 0.
    pub fn reset_al(ops: &mut Ops, al_disp: i32) {
        dynasm!(ops ; .arch x64 ; mov DWORD [rdi + al_disp], 0);
    }
    /// Per batch: the status word = 0.
    pub fn reset_status(ops: &mut Ops, status: i32) {
        dynasm!(ops ; .arch x64 ; mov DWORD [rdi + status], 0);
    }
    /// `rax = [rdi + disp]` (a plane pointer).
    pub fn load_rax(ops: &mut Ops, disp: i32) {
        dynasm!(ops ; .arch x64 ; mov rax, QWORD [rdi + disp]);
    }
    /// A draw kernel's attribute array: rcx = the stride at `[rdi + stride]`, rdx = the
    /// base at `[rdi + base]` (for [`attribute_address`]).
    pub fn attribute_array(ops: &mut Ops, stride: i32, base: i32) {
        dynasm!(ops ; .arch x64
            ; mov rcx, QWORD [rdi + stride]
            ; mov rdx, QWORD [rdi + base]);
    }
    /// A stepped draw kernel's attribute pointer: rdx = the batch's first vertex's attribute
    /// at `[rdi + base]` (for [`super::load_attribute_at`]).
    pub fn stepped_array(ops: &mut Ops, base: i32) {
        dynasm!(ops ; .arch x64 ; mov rdx, QWORD [rdi + base]);
    }
    /// A stepped draw kernel's batch tail: the attribute pointer at `[rdi + base]` advances by
    /// `step` bytes (W vertices).
    pub fn advance_array(ops: &mut Ops, base: i32, step: i32) {
        dynasm!(ops ; .arch x64 ; add QWORD [rdi + base], step);
    }
    /// A stepped draw kernel's entry: callee-saved register `gpr` kept at `[rdi + slot]`,
    /// then loaded with the attribute address at `[rdi + base]` for the whole call.
    pub fn keep_base(ops: &mut Ops, gpr: u8, slot: i32, base: i32) {
        dynasm!(ops ; .arch x64
            ; mov QWORD [rdi + slot], Rq(gpr)
            ; mov Rq(gpr), QWORD [rdi + base]);
    }
    /// A stepped draw kernel's exit: `gpr` gets back the value [`keep_base`] kept.
    pub fn restore_base(ops: &mut Ops, gpr: u8, slot: i32) {
        dynasm!(ops ; .arch x64 ; mov Rq(gpr), QWORD [rdi + slot]);
    }
    /// A stepped draw kernel's batch tail: the attribute pointer in `gpr` advances by `step`
    /// bytes (W vertices).
    pub fn advance_base(ops: &mut Ops, gpr: u8, step: i32) {
        dynasm!(ops ; .arch x64 ; add Rq(gpr), step);
    }
    /// `rax` = the offset of lane `lane`'s attribute from its array's base (rdx) in a draw
    /// kernel: the vertex index at `[rsi + 4 lane]` times the stride in rcx
    /// ([`attribute_array`]); [`super::load_attribute`] adds the base in its address.
    pub fn attribute_address(ops: &mut Ops, lane: i32) {
        dynasm!(ops ; .arch x64
            ; mov eax, DWORD [rsi + lane * 4]
            ; imul rax, rcx);
    }
    /// [`attribute_address`] for a stride fixed at compile time: `eax` = the vertex index at
    /// `[rsi + 4 lane]` times `stride` in one 32-bit multiply (rax's upper half cleared; the
    /// caller made sure the product is below 2^32).
    pub fn attribute_offset(ops: &mut Ops, lane: i32, stride: u32) {
        let stride = stride as i32;
        dynasm!(ops ; .arch x64 ; imul eax, DWORD [rsi + lane * 4], stride);
    }
    /// Writes the batch status word.
    pub fn batch_status(ops: &mut Ops, status: i32) {
        dynasm!(ops ; .arch x64 ; mov DWORD [r10], status);
    }
    /// Writes the batch status word from `[rdi + disp]` (the lanes' accumulated statuses).
    pub fn batch_status_from(ops: &mut Ops, disp: i32) {
        dynasm!(ops ; .arch x64 ; mov eax, DWORD [rdi + disp] ; mov DWORD [r10], eax);
    }
    /// `ecx` = the index of the lowest set bit of `eax`, 0 if none. Clobbers edx.
    pub fn lowest_bit_ecx(ops: &mut Ops) {
        dynasm!(ops ; .arch x64 ; xor edx, edx ; bsf ecx, eax ; cmovz ecx, edx);
    }
    /// `eax = [rdi + rcx * 4 + disp]` (lane rcx of a lane array).
    pub fn load_lane_eax(ops: &mut Ops, disp: i32) {
        dynasm!(ops ; .arch x64 ; mov eax, DWORD [rdi + rcx * 4 + disp]);
    }
    /// `[rdi + disp] |= eax`.
    pub fn or_eax_to(ops: &mut Ops, disp: i32) {
        dynasm!(ops ; .arch x64 ; or DWORD [rdi + disp], eax);
    }
    /// `eax` = all ones if bit `bit` of `[rdi + disp]` is set, else 0.
    pub fn bit_mask_eax(ops: &mut Ops, disp: i32, bit: u8) {
        let bit = (bit & 31) as i8;
        dynasm!(ops ; .arch x64
            ; mov eax, DWORD [rdi + disp]
            ; shr eax, bit
            ; and eax, 1
            ; neg eax);
    }
    /// Advances to the next batch (input/output by `step` bytes, AoS output by `out_step`, the
    /// status word pointer unless `silent`: a kernel that writes no status word) and loops to
    /// `top` while batches remain.
    pub fn next_batch(ops: &mut Ops, step: i32, out_step: i32, silent: bool, top: DynamicLabel) {
        dynasm!(ops ; .arch x64 ; add rsi, step ; add r8, out_step);
        if !silent {
            dynasm!(ops ; .arch x64 ; add r10, 4);
        }
        dynasm!(ops ; .arch x64 ; dec r9 ; jnz =>top);
    }
}
