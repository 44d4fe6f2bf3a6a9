//! The AVX-512 arms of [`super::asm`] (W = 16, zmm): each layer function's [`Tier::Avx512`]
//! case is one function here, emitting EVEX chunks from [`super::evex`] spliced into the dynasm
//! stream (the general-purpose parts stay dynasm's, as do VEX forms on xmm registers, which
//! zero the register up to bit 511 exactly like their AVX2 use).
//!
//! The layer's vector-mask model is kept: a compare writes opmask [`K`] and `vpmovm2d` turns it
//! into an all-ones/zero vector; a select turns the vector mask back into [`K`] (`vpmovd2m`, the
//! sign bit per lane as `vblendvps` reads it) and blends with `vblendmps`. Constant-pool
//! operands are `[rip + disp32]` with the displacement patched by a dynasm relocation, the only
//! position-dependent field of a chunk.
//!
//! [`Tier::Avx512`]: super::asm::Tier::Avx512

// dynasm expands register arguments to `.into()` calls, which clippy flags on `u8`s.
#![allow(clippy::useless_conversion)]

use dynasmrt::relocations::{Relocation, RelocationKind, RelocationSize};
use dynasmrt::x64::X64Relocation;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};

use super::asm::{Base, Mem, Ops, VOp, ASM_TEMP};
use super::evex::{self, Inst, KOp, Op as E, Rm, Vl};
use super::Opnd;
use crate::abi;

/// The opmask the layer's sequences use as a temporary (k0 cannot be a write mask).
pub const K: u8 = 1;

pub(super) const RAX: u8 = 0;
pub(super) const RDX: u8 = 2;
pub(super) const RSI: u8 = 6;
const RDI: u8 = 7;
const R8: u8 = 8;
const R11: u8 = 11;

/// A source operand as the encoder takes it, with the constant-pool label its rip-relative
/// displacement refers to.
#[derive(Clone, Copy)]
struct Src(Rm, Option<DynamicLabel>);

impl Src {
    fn reg(r: u8) -> Src {
        Src(Rm::Reg(r), None)
    }
}

/// A uniform component's scalar, to be read as `{1to16}` (or by `vbroadcastss`).
fn uniform_scalar(index: u32, comp: u32) -> Src {
    Src(
        Rm::Mem(evex::Mem::base(RDI, abi::uniform_offset(index, comp))),
        None,
    )
}

/// `m` as a full-vector operand (a uniform as its broadcast row).
fn mem(m: Mem) -> Src {
    match m {
        Mem::Uniform { index, comp } => at(RDI, abi::uniform_row_offset(index, comp)),
        Mem::Ctx(o) => Src(Rm::Mem(evex::Mem::base(RDI, o)), None),
        Mem::CtxRax(o) => Src(
            Rm::Mem(evex::Mem {
                base: RDI,
                index: Some((RAX, 1)),
                disp: o,
            }),
            None,
        ),
        Mem::Const(l) => Src(Rm::Mem(evex::Mem::rip(0)), Some(l)),
    }
}

fn at(base: u8, disp: i32) -> Src {
    Src(Rm::Mem(evex::Mem::base(base, disp)), None)
}

/// Encodes ([`evex::plain`]) and splices `inst`; a rip-relative operand's displacement
/// becomes a relocation to `label`. The layer passes only registers 0–31, opmasks 0–7 and forms
/// of the table, so the encoder has nothing to refuse ([`evex::encode`] says what went wrong).
#[inline(always)]
fn emit(ops: &mut Ops, inst: Inst, label: Option<DynamicLabel>) {
    let Some(chunk) = evex::plain(&inst) else {
        let e = evex::encode(&inst).err();
        panic!("the AVX-512 layer built an invalid instruction: {inst:?} ({e:?})");
    };
    evex::splice(ops, &chunk);
    if let Some(l) = label {
        // The disp32 ends the chunk but for an immediate byte; rip is the chunk's end.
        let field = 4 + u8::from(inst.op.info().shape.imm());
        let kind = X64Relocation::from_size(RelocationKind::Relative, RelocationSize::DWord);
        ops.dynamic_relocation(l, 0, field, 0, kind);
    }
}

fn k(ops: &mut Ops, op: KOp, d: u8, s: u8, rm: u8) {
    let chunk = evex::encode_k(op, d, s, Rm::Reg(rm))
        .unwrap_or_else(|e| panic!("the AVX-512 layer built an invalid opmask instruction: {e}"));
    evex::splice(ops, &chunk);
}

/// `d = op(s, rm)` at 512 bits, with an immediate (inlined: `op` is a constant at most call
/// sites, and its table row folds into the encoder).
#[inline(always)]
fn z(ops: &mut Ops, op: E, d: u8, s: u8, rm: Src, imm: u8) {
    let inst = Inst {
        imm,
        ..Inst::rvm(op, Vl::V512, d, s, rm.0)
    };
    emit(ops, inst, rm.1);
}

/// As [`z`] with a memory operand `m`: a uniform is read as a `{1to16}` scalar where `op` has
/// a 32-bit broadcast form.
fn z_mem(ops: &mut Ops, op: E, d: u8, s: u8, m: Mem, imm: u8) {
    let info = op.info();
    match m {
        Mem::Uniform { index, comp } if info.bcst && !info.w => {
            let inst = Inst {
                imm,
                bcst: true,
                ..Inst::rvm(op, Vl::V512, d, s, uniform_scalar(index, comp).0)
            };
            emit(ops, inst, None);
        }
        Mem::Uniform { .. } | Mem::Ctx(_) | Mem::CtxRax(_) | Mem::Const(_) => {
            z(ops, op, d, s, mem(m), imm)
        }
    }
}

/// The PICA multiply `d = a * b` with lanes whose product is NaN but neither source is made
/// +0.0, on opmasks: [`K`] = ordered(a, b), then (under it) unordered(d, d); the lanes left
/// set are cleared by a merge-masked `vxorps`. The compare reads `a` and `b` before the
/// product is written, so `d` may be either. `b` in memory: a uniform as a `{1to16}` scalar.
pub fn pmul(ops: &mut Ops, d: u8, a: u8, b: Opnd) {
    let b = match b {
        Opnd::Reg(r) => B::Reg(r),
        Opnd::Mem(m) => B::Mem(m),
    };
    zb(ops, E::CmpPs, K, a, b, 7);
    zb(ops, E::MulPs, d, a, b, 0);
    let masked = |op: E, dst: u8, imm: u8| Inst {
        mask: K,
        imm,
        ..Inst::rvm(op, evex::Vl::V512, dst, d, Rm::Reg(d))
    };
    emit(ops, masked(E::CmpPs, K, 3), None);
    emit(ops, masked(E::XorPs, d, 0), None);
}

/// `d = k ? rm : s` per lane (`vblendmps`).
fn blend(ops: &mut Ops, d: u8, s: u8, rm: u8) {
    let inst = Inst {
        mask: K,
        ..Inst::rvm(E::BlendMps, Vl::V512, d, s, Rm::Reg(rm))
    };
    emit(ops, inst, None);
}

/// A second source: a register or memory.
#[derive(Clone, Copy)]
enum B {
    Reg(u8),
    Mem(Mem),
}

/// `d = op(a, b)` with [`z`] or [`z_mem`].
#[inline(always)]
fn zb(ops: &mut Ops, op: E, d: u8, a: u8, b: B, imm: u8) {
    match b {
        B::Reg(r) => z(ops, op, d, a, Src::reg(r), imm),
        B::Mem(m) => z_mem(ops, op, d, a, m, imm),
    }
}

/// `d = a op b` for [`super::asm::vop`] / [`super::asm::vop_m`]: compares go through [`K`].
fn vop_src(ops: &mut Ops, op: VOp, d: u8, a: u8, b: B) {
    let z = |ops: &mut Ops, op: E, d: u8, a: u8, b: B, imm: u8| zb(ops, op, d, a, b, imm);
    let cmp = |ops: &mut Ops, c: E, pred: u8, wide: bool| {
        zb(ops, c, K, a, b, pred);
        let m2v = if wide { E::PMovM2Q } else { E::PMovM2D };
        zb(ops, m2v, d, 0, B::Reg(K), 0);
    };
    match op {
        VOp::AddPs => z(ops, E::AddPs, d, a, b, 0),
        VOp::SubPs => z(ops, E::SubPs, d, a, b, 0),
        VOp::MulPs => z(ops, E::MulPs, d, a, b, 0),
        VOp::DivPs => z(ops, E::DivPs, d, a, b, 0),
        VOp::MaxPs => z(ops, E::MaxPs, d, a, b, 0),
        VOp::MinPs => z(ops, E::MinPs, d, a, b, 0),
        VOp::AndPs => z(ops, E::AndPs, d, a, b, 0),
        VOp::AndnPs => z(ops, E::AndnPs, d, a, b, 0),
        VOp::OrPs => z(ops, E::OrPs, d, a, b, 0),
        VOp::XorPs => z(ops, E::XorPs, d, a, b, 0),
        // Predicates as `cmpps`' (EQ_OQ, LT_OS, LE_OS, UNORD_Q, NEQ_UQ, ORD_Q).
        VOp::CmpEqPs => cmp(ops, E::CmpPs, 0, false),
        VOp::CmpLtPs => cmp(ops, E::CmpPs, 1, false),
        VOp::CmpLePs => cmp(ops, E::CmpPs, 2, false),
        VOp::CmpUnordPs => cmp(ops, E::CmpPs, 3, false),
        VOp::CmpNeqPs => cmp(ops, E::CmpPs, 4, false),
        VOp::CmpOrdPs => cmp(ops, E::CmpPs, 7, false),
        VOp::AddPd => z(ops, E::AddPd, d, a, b, 0),
        VOp::SubPd => z(ops, E::SubPd, d, a, b, 0),
        VOp::MulPd => z(ops, E::MulPd, d, a, b, 0),
        VOp::DivPd => z(ops, E::DivPd, d, a, b, 0),
        VOp::CmpLtPd => cmp(ops, E::CmpPd, 1, true),
        VOp::PAddD => z(ops, E::PAddD, d, a, b, 0),
        VOp::PCmpGtD => cmp(ops, E::PCmpGtD, 0, false),
        VOp::PCmpEqD => cmp(ops, E::PCmpEqD, 0, false),
        VOp::PAddQ => z(ops, E::PAddQ, d, a, b, 0),
        VOp::UnpckLps => z(ops, E::UnpcklPs, d, a, b, 0),
        VOp::UnpckHps => z(ops, E::UnpckhPs, d, a, b, 0),
        VOp::UnpckLpd => z(ops, E::UnpcklPd, d, a, b, 0),
        VOp::UnpckHpd => z(ops, E::UnpckhPd, d, a, b, 0),
    }
}

pub fn vop(ops: &mut Ops, op: VOp, d: u8, a: u8, b: u8) {
    vop_src(ops, op, d, a, B::Reg(b));
}

pub fn vop_m(ops: &mut Ops, op: VOp, d: u8, a: u8, m: Mem) {
    vop_src(ops, op, d, a, B::Mem(m));
}

pub fn mov(ops: &mut Ops, d: u8, s: u8) {
    z(ops, E::MovapsLoad, d, 0, Src::reg(s), 0);
}

/// A full-width load (unaligned forms: as fast on aligned rows); a uniform is broadcast from
/// its scalar.
pub fn load(ops: &mut Ops, d: u8, m: Mem) {
    let op = match m {
        Mem::Uniform { index, comp } => {
            return z(ops, E::BroadcastSs, d, 0, uniform_scalar(index, comp), 0);
        }
        Mem::Ctx(_) | Mem::CtxRax(_) | Mem::Const(_) => E::MovupsLoad,
    };
    z(ops, op, d, 0, mem(m), 0);
}

pub fn store(ops: &mut Ops, disp: i32, s: u8) {
    z(ops, E::MovapsStore, s, 0, at(RDI, disp), 0);
}

/// Lane `lane`'s uniform row into 128-bit segment `lane / 4` of `d` (segment 0 by a VEX load,
/// which clears the rest; `eax` holds the row's offset).
pub fn load_lane_row(ops: &mut Ops, d: u8, lane: i32, table: i32) {
    let seg = (lane / 4) as u8;
    if seg == 0 {
        dynasm!(ops ; .arch x64 ; vmovups Rx(d), OWORD [rdi + rax + table]);
    } else {
        let row = Src(
            Rm::Mem(evex::Mem {
                base: RDI,
                index: Some((RAX, 1)),
                disp: table,
            }),
            None,
        );
        z(ops, E::InsertF32x4, d, d, row, seg);
    }
}

pub fn broadcast(ops: &mut Ops, d: u8, m: Mem) {
    let src = match m {
        Mem::Uniform { index, comp } => uniform_scalar(index, comp),
        Mem::Ctx(_) | Mem::CtxRax(_) | Mem::Const(_) => mem(m),
    };
    z(ops, E::BroadcastSs, d, 0, src, 0);
}

pub fn ones(ops: &mut Ops, d: u8) {
    z(ops, E::PTernLogD, d, d, Src::reg(d), 0xFF);
}

pub fn zero(ops: &mut Ops, d: u8) {
    z(ops, E::PXorD, d, d, Src::reg(d), 0);
}

/// `d = m ? a : b` (the sign bit of each lane of `m`).
pub fn select(ops: &mut Ops, d: u8, m: u8, a: u8, b: u8) {
    z(ops, E::PMovD2M, K, 0, Src::reg(m), 0);
    blend(ops, d, b, a);
}

/// `roundps`' immediates mean the same for `vrndscaleps` (scale bits 7–4 zero).
pub fn round_ps(ops: &mut Ops, d: u8, s: u8, imm: i8) {
    z(ops, E::RndScalePs, d, 0, Src::reg(s), imm as u8 & 0x0F);
}

pub fn round_pd(ops: &mut Ops, d: u8, s: u8, imm: i8) {
    z(ops, E::RndScalePd, d, 0, Src::reg(s), imm as u8 & 0x0F);
}

pub fn sqrt_ps(ops: &mut Ops, d: u8, s: u8) {
    z(ops, E::SqrtPs, d, 0, Src::reg(s), 0);
}

pub fn cvtt_ps2dq(ops: &mut Ops, d: u8, s: u8) {
    z(ops, E::CvttPs2Dq, d, 0, Src::reg(s), 0);
}

/// Eight f32 lanes at `[rdi + disp]` widened to the eight f64 lanes of `d`.
pub fn cvt_ps2pd_mem(ops: &mut Ops, d: u8, disp: i32) {
    z(ops, E::CvtPs2Pd, d, 0, at(RDI, disp), 0);
}

/// The eight f64 lanes of `s` narrowed and stored (32 bytes) at `[rdi + disp]`.
pub fn cvt_pd2ps_store(ops: &mut Ops, s: u8, disp: i32) {
    z(ops, E::CvtPd2Ps, ASM_TEMP, 0, Src::reg(s), 0);
    dynasm!(ops ; .arch x64 ; vmovaps [rdi + disp], Ry(ASM_TEMP));
}

/// Shift forms: the destination is EVEX.vvvv, the source `rm`.
fn shift(ops: &mut Ops, op: E, d: u8, imm: u8) {
    let inst = Inst {
        imm,
        ..Inst::rvm(op, Vl::V512, 0, d, Rm::Reg(d))
    };
    emit(ops, inst, None);
}

pub fn psllq(ops: &mut Ops, d: u8, imm: i8) {
    shift(ops, E::PSllQ, d, imm as u8);
}

pub fn psrlq(ops: &mut Ops, d: u8, imm: u8) {
    shift(ops, E::PSrlQ, d, imm);
}

pub fn pslld(ops: &mut Ops, d: u8, imm: i8) {
    shift(ops, E::PSllD, d, imm as u8);
}

pub fn permute(ops: &mut Ops, d: u8, s: u8, imm: u8) {
    z(ops, E::PermilPs, d, 0, Src::reg(s), imm);
}

/// 16 bytes at `[base + disp]` into 128-bit segment `seg` (1–3) of `d`.
pub fn insert_segment(ops: &mut Ops, d: u8, base: Base, seg: u8, disp: i32) {
    z(ops, E::InsertF32x4, d, d, base_src(base, disp), seg);
}

/// 16 bytes at `[base + index + disp]` (`at` = base and index general-purpose registers)
/// into 128-bit segment `seg` (1–3) of `d`: a draw kernel's attribute of one lane.
pub fn insert_segment_at(ops: &mut Ops, d: u8, seg: u8, at: (u8, Option<u8>), disp: i32) {
    let (base, index) = at;
    let m = evex::Mem {
        base,
        index: index.map(|i| (i, 1)),
        disp,
    };
    z(ops, E::InsertF32x4, d, d, Src(Rm::Mem(m), None), seg);
}

/// The low 16 bytes of `s` into 128-bit segment `seg` (1–3) of `d`.
pub fn insert_segment_reg(ops: &mut Ops, d: u8, s: u8, seg: u8) {
    z(ops, E::InsertF32x4, d, d, Src::reg(s), seg);
}

/// 128-bit segment `seg` (1–3) of `s` stored at `[base + disp]`.
pub fn extract_segment(ops: &mut Ops, s: u8, base: Base, seg: u8, disp: i32) {
    z(ops, E::ExtractF32x4, s, 0, base_src(base, disp), seg);
}

fn base_src(base: Base, disp: i32) -> Src {
    match base {
        Base::Rsi => at(RSI, disp),
        Base::R8 => at(R8, disp),
        Base::RaxRsi => Src(
            Rm::Mem(evex::Mem {
                base: RAX,
                index: Some((RSI, 1)),
                disp,
            }),
            None,
        ),
    }
}

pub fn load_plane(ops: &mut Ops, d: u8) {
    z(ops, E::MovupsLoad, d, 0, base_src(Base::RaxRsi, 0), 0);
}

pub fn store_plane(ops: &mut Ops, s: u8) {
    z(ops, E::MovupsStore, s, 0, base_src(Base::RaxRsi, 0), 0);
}

pub fn store_bank(ops: &mut Ops, disp: i32, s: u8) {
    z(ops, E::MovupsStore, s, 0, at(R11, disp), 0);
}

pub fn load_bank(ops: &mut Ops, d: u8, disp: i32) {
    z(ops, E::MovupsLoad, d, 0, at(R11, disp), 0);
}

/// One 64-byte row from the context to the triangle record at rdx (alignment unknown).
pub fn copy_row_to_rdx(ops: &mut Ops, t: u8, from: i32, to: i32) {
    z(ops, E::MovapsLoad, t, 0, at(RDI, from), 0);
    z(ops, E::MovupsStore, t, 0, at(RDX, to), 0);
}

/// Jumps to `target` if any lane of `m` is non-zero.
pub fn jump_if_any(ops: &mut Ops, m: u8, target: DynamicLabel) {
    z(ops, E::PTestMD, K, m, Src::reg(m), 0);
    k(ops, KOp::KOrTestW, K, 0, K);
    dynasm!(ops ; .arch x64 ; jnz =>target);
}

/// `eax` = the sign bits of the 16 lanes of `m`.
pub fn movmsk_eax(ops: &mut Ops, m: u8) {
    z(ops, E::PMovD2M, K, 0, Src::reg(m), 0);
    k(ops, KOp::KMovWToGpr, RAX, 0, K);
}

/// `d` = the signed minimum of the i32 lanes of `s` in every lane (destroys [`ASM_TEMP`]):
/// 256-bit halves, then 128-bit segments, then within segments.
pub fn lane_min(ops: &mut Ops, d: u8, s: u8) {
    let t = ASM_TEMP;
    z(ops, E::ShufF32x4, t, s, Src::reg(s), 0x4E);
    z(ops, E::PMinSD, t, t, Src::reg(s), 0);
    z(ops, E::ShufF32x4, d, t, Src::reg(t), 0xB1);
    z(ops, E::PMinSD, t, t, Src::reg(d), 0);
    z(ops, E::PShufD, d, 0, Src::reg(t), 0x4E);
    z(ops, E::PMinSD, t, t, Src::reg(d), 0);
    z(ops, E::PShufD, d, 0, Src::reg(t), 0xB1);
    z(ops, E::PMinSD, d, t, Src::reg(d), 0);
}

/// `d` (any of zmm0–31) = `eax` in every lane, through [`ASM_TEMP`] (VEX `vmovd`).
pub fn broadcast_eax(ops: &mut Ops, d: u8) {
    dynasm!(ops ; .arch x64 ; vmovd Rx(ASM_TEMP), eax);
    z(ops, E::PBroadcastD, d, 0, Src::reg(ASM_TEMP), 0);
}

/// `eax` = lane 0 of `s` (any of zmm0–31; VEX `vmovd` reaches only 0–15).
pub fn lane0_to_eax(ops: &mut Ops, s: u8) {
    let s = if s < 16 {
        s
    } else {
        mov(ops, ASM_TEMP, s);
        ASM_TEMP
    };
    dynasm!(ops ; .arch x64 ; vmovd eax, Rx(s));
}

/// 16 bytes at `[base + disp]` into `d`'s low 128 bits, the rest zeroed (EVEX.128).
pub fn load_xmm(ops: &mut Ops, d: u8, base: Base, disp: i32) {
    let inst = Inst::rvm(E::MovupsLoad, Vl::V128, d, 0, base_src(base, disp).0);
    emit(ops, inst, None);
}

/// `s`'s low 128 bits to `[base + disp]`.
pub fn store_xmm(ops: &mut Ops, s: u8, base: Base, disp: i32) {
    let inst = Inst::rvm(E::MovupsStore, Vl::V128, s, 0, base_src(base, disp).0);
    emit(ops, inst, None);
}
