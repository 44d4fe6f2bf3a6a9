//! EVEX (AVX-512 F/VL/DQ/BW) and opmask (VEX `k`-register) encodings as position-independent
//! byte chunks, for the AVX-512 tier: dynasm-rs has no EVEX, so these instructions are encoded
//! here and spliced into the dynasm stream ([`splice`]).
//!
//! One table ([`Op`], [`KOp`]) states each instruction's opcode map, prefix, opcode byte,
//! EVEX.W, operand shape ([`Shape`]), disp8·N tuple class and whether it takes a `{1toN}`
//! broadcast; [`encode`] and [`encode_k`] assemble the bytes, and [`plain`] ([`fast`]) gives
//! `encode`'s bytes without its general path (the AVX-512 layer's encoder). Every form
//! is checked against iced-x86's decoder and encoder by `tests/evex_roundtrip.rs`, and the
//! encoder's speed against iced's by the `evex` criterion bench.
//!
//! Memory operands are `[base + index * scale + disp]` with general-purpose registers (no
//! rip-relative form: a chunk must not depend on where it lands); displacements use the
//! compressed disp8·N form whenever the displacement is a multiple of N that fits a byte.

use thiserror::Error;

pub mod fast;
pub use fast::plain;

/// Vector length: `xmm`, `ymm` or `zmm` (EVEX.L'L).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Vl {
    V128,
    V256,
    V512,
}

impl Vl {
    /// All lengths.
    pub const ALL: [Vl; 3] = [Vl::V128, Vl::V256, Vl::V512];

    /// Bytes of a full vector.
    pub const fn bytes(self) -> u32 {
        match self {
            Vl::V128 => 16,
            Vl::V256 => 32,
            Vl::V512 => 64,
        }
    }

    const fn ll(self) -> u8 {
        match self {
            Vl::V128 => 0,
            Vl::V256 => 1,
            Vl::V512 => 2,
        }
    }
}

/// The opcode map (the escape bytes after the prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Map {
    M0F,
    M0F38,
    M0F3A,
}

/// The implied legacy prefix (EVEX.pp / VEX.pp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pp {
    None,
    P66,
    PF3,
    PF2,
}

/// What an instruction's operands are, and which [`Inst`] fields they come from. `v` is a
/// vector register (0..=31), `k` an opmask register (0..=7), `rm` a vector register or memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `v dst {k}{z}, v src, rm` (`dst`, `src`, `rm`).
    Rvm,
    /// `v dst {k}{z}, v src, rm, imm8`.
    Rvmi,
    /// `v dst {k}{z}, rm`.
    Rm,
    /// `v dst {k}{z}, rm, imm8`.
    Rmi,
    /// `mem {k}, v dst`: a store of `dst` (merge masking only).
    Mr,
    /// `xmm/mem {k}{z}, v dst, imm8`: an extract of `dst`'s 128-bit lane `imm` (zeroing only
    /// into a register).
    Mri,
    /// `k dst {k}, v src, rm`: a compare into an opmask (`dst` is the opmask).
    Kvm,
    /// `k dst {k}, v src, rm, imm8`.
    Kvmi,
    /// `v src {k}{z}, rm, imm8` with the opcode extension `/n` in ModRM.reg: the immediate
    /// shifts, whose destination is EVEX.vvvv (`src`).
    Shift(u8),
    /// `k dst, v rm` (register only).
    KfromV,
    /// `v dst, k rm` (`rm` a register, the opmask number).
    VfromK,
}

impl Shape {
    /// True if the form ends with an 8-bit immediate.
    pub const fn imm(self) -> bool {
        match self {
            Shape::Rvmi | Shape::Rmi | Shape::Mri | Shape::Kvmi | Shape::Shift(_) => true,
            Shape::Rvm | Shape::Rm | Shape::Mr | Shape::Kvm | Shape::KfromV | Shape::VfromK => {
                false
            }
        }
    }
}

/// How a compressed 8-bit displacement is scaled (Intel's tuple types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tuple {
    /// Full vector; a broadcast reads one element.
    Full,
    /// Full vector, no broadcast.
    FullMem,
    /// Half a vector; a broadcast reads one element.
    Half,
    /// One element.
    Scalar,
    /// Four 32-bit elements (128 bits).
    Tuple4,
}

/// One row of the EVEX table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Info {
    pub name: &'static str,
    pub map: Map,
    pub pp: Pp,
    pub opcode: u8,
    /// EVEX.W (also the element size: 64-bit if set).
    pub w: bool,
    pub shape: Shape,
    pub tuple: Tuple,
    /// `{1toN}` allowed on a memory operand.
    pub bcst: bool,
    /// Exists only at 256 and 512 bits.
    pub wide_only: bool,
}

macro_rules! evex_ops {
    ($( $(#[$doc:meta])* $op:ident = $name:literal, $map:ident, $pp:ident, $opc:literal,
        $w:literal, $shape:expr, $tuple:ident, $bcst:literal, $wide:literal; )*) => {
        /// The EVEX instructions this encoder knows.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op { $( $(#[$doc])* $op, )* }

        impl Op {
            /// Every instruction of the table.
            pub const ALL: &'static [Op] = &[ $( Op::$op, )* ];

            /// The instruction's table row (a lookup: the encoder asks it per instruction).
            #[inline]
            pub const fn info(self) -> Info {
                const TABLE: &[Info] = &[ $( Info {
                    name: $name,
                    map: Map::$map,
                    pp: Pp::$pp,
                    opcode: $opc,
                    w: $w != 0,
                    shape: $shape,
                    tuple: Tuple::$tuple,
                    bcst: $bcst != 0,
                    wide_only: $wide != 0,
                }, )* ];
                TABLE[self as usize]
            }
        }
    };
}

use Shape as S;

evex_ops! {
    // Packed single arithmetic and logic.
    AddPs = "vaddps", M0F, None, 0x58, 0, S::Rvm, Full, 1, 0;
    SubPs = "vsubps", M0F, None, 0x5C, 0, S::Rvm, Full, 1, 0;
    MulPs = "vmulps", M0F, None, 0x59, 0, S::Rvm, Full, 1, 0;
    DivPs = "vdivps", M0F, None, 0x5E, 0, S::Rvm, Full, 1, 0;
    MinPs = "vminps", M0F, None, 0x5D, 0, S::Rvm, Full, 1, 0;
    MaxPs = "vmaxps", M0F, None, 0x5F, 0, S::Rvm, Full, 1, 0;
    SqrtPs = "vsqrtps", M0F, None, 0x51, 0, S::Rm, Full, 1, 0;
    AndPs = "vandps", M0F, None, 0x54, 0, S::Rvm, Full, 1, 0;
    AndnPs = "vandnps", M0F, None, 0x55, 0, S::Rvm, Full, 1, 0;
    OrPs = "vorps", M0F, None, 0x56, 0, S::Rvm, Full, 1, 0;
    XorPs = "vxorps", M0F, None, 0x57, 0, S::Rvm, Full, 1, 0;
    /// Compare with a predicate immediate into an opmask.
    CmpPs = "vcmpps", M0F, None, 0xC2, 0, S::Kvmi, Full, 1, 0;
    RndScalePs = "vrndscaleps", M0F3A, P66, 0x08, 0, S::Rmi, Full, 1, 0;
    CvttPs2Dq = "vcvttps2dq", M0F, PF3, 0x5B, 0, S::Rm, Full, 1, 0;
    CvtDq2Ps = "vcvtdq2ps", M0F, None, 0x5B, 0, S::Rm, Full, 1, 0;
    /// Widens the low half (`rm` is half the length of `dst`).
    CvtPs2Pd = "vcvtps2pd", M0F, None, 0x5A, 0, S::Rm, Half, 1, 0;
    /// Narrows (`dst` is half the length of `rm`).
    CvtPd2Ps = "vcvtpd2ps", M0F, P66, 0x5A, 1, S::Rm, Full, 1, 0;
    // Packed double (the exact EX2/LG2 and multiply sequences).
    AddPd = "vaddpd", M0F, P66, 0x58, 1, S::Rvm, Full, 1, 0;
    SubPd = "vsubpd", M0F, P66, 0x5C, 1, S::Rvm, Full, 1, 0;
    MulPd = "vmulpd", M0F, P66, 0x59, 1, S::Rvm, Full, 1, 0;
    DivPd = "vdivpd", M0F, P66, 0x5E, 1, S::Rvm, Full, 1, 0;
    CmpPd = "vcmppd", M0F, P66, 0xC2, 1, S::Kvmi, Full, 1, 0;
    RndScalePd = "vrndscalepd", M0F3A, P66, 0x09, 1, S::Rmi, Full, 1, 0;
    // Moves, masked moves and blends.
    MovapsLoad = "vmovaps", M0F, None, 0x28, 0, S::Rm, FullMem, 0, 0;
    MovapsStore = "vmovaps", M0F, None, 0x29, 0, S::Mr, FullMem, 0, 0;
    MovupsLoad = "vmovups", M0F, None, 0x10, 0, S::Rm, FullMem, 0, 0;
    MovupsStore = "vmovups", M0F, None, 0x11, 0, S::Mr, FullMem, 0, 0;
    Movdqu32Load = "vmovdqu32", M0F, PF3, 0x6F, 0, S::Rm, FullMem, 0, 0;
    Movdqu32Store = "vmovdqu32", M0F, PF3, 0x7F, 0, S::Mr, FullMem, 0, 0;
    /// `dst = k ? rm : src` per lane.
    BlendMps = "vblendmps", M0F38, P66, 0x65, 0, S::Rvm, Full, 1, 0;
    PBlendMd = "vpblendmd", M0F38, P66, 0x64, 0, S::Rvm, Full, 1, 0;
    /// From the low element of an xmm register or a 32-bit memory operand.
    BroadcastSs = "vbroadcastss", M0F38, P66, 0x18, 0, S::Rm, Scalar, 0, 0;
    PBroadcastD = "vpbroadcastd", M0F38, P66, 0x58, 0, S::Rm, Scalar, 0, 0;
    /// From a 128-bit memory operand.
    BroadcastF32x4 = "vbroadcastf32x4", M0F38, P66, 0x1A, 0, S::Rm, Tuple4, 0, 1;
    // Permutes, shuffles, unpacks.
    /// `dst = rm[src]` (indices in `src`).
    PermPs = "vpermps", M0F38, P66, 0x16, 0, S::Rvm, Full, 1, 1;
    /// Two-table permute overwriting the first table (`dst`); indices in `src`.
    PermT2Ps = "vpermt2ps", M0F38, P66, 0x7F, 0, S::Rvm, Full, 1, 0;
    /// Two-table permute overwriting the indices (`dst`); tables `src` and `rm`.
    PermI2Ps = "vpermi2ps", M0F38, P66, 0x77, 0, S::Rvm, Full, 1, 0;
    PermT2D = "vpermt2d", M0F38, P66, 0x7E, 0, S::Rvm, Full, 1, 0;
    PermilPs = "vpermilps", M0F3A, P66, 0x04, 0, S::Rmi, Full, 1, 0;
    ShufPs = "vshufps", M0F, None, 0xC6, 0, S::Rvmi, Full, 1, 0;
    ShufF32x4 = "vshuff32x4", M0F3A, P66, 0x23, 0, S::Rvmi, Full, 1, 1;
    UnpcklPs = "vunpcklps", M0F, None, 0x14, 0, S::Rvm, Full, 1, 0;
    UnpckhPs = "vunpckhps", M0F, None, 0x15, 0, S::Rvm, Full, 1, 0;
    UnpcklPd = "vunpcklpd", M0F, P66, 0x14, 1, S::Rvm, Full, 1, 0;
    UnpckhPd = "vunpckhpd", M0F, P66, 0x15, 1, S::Rvm, Full, 1, 0;
    /// Inserts the xmm (or 128-bit memory) `rm` at 128-bit lane `imm`.
    InsertF32x4 = "vinsertf32x4", M0F3A, P66, 0x18, 0, S::Rvmi, Tuple4, 0, 1;
    ExtractF32x4 = "vextractf32x4", M0F3A, P66, 0x19, 0, S::Mri, Tuple4, 0, 1;
    PShufD = "vpshufd", M0F, P66, 0x70, 0, S::Rmi, Full, 1, 0;
    // Integer lane state (the lane-mask model's counters, masks, conversions).
    PAddD = "vpaddd", M0F, P66, 0xFE, 0, S::Rvm, Full, 1, 0;
    PSubD = "vpsubd", M0F, P66, 0xFA, 0, S::Rvm, Full, 1, 0;
    PMinSD = "vpminsd", M0F38, P66, 0x39, 0, S::Rvm, Full, 1, 0;
    PMaxSD = "vpmaxsd", M0F38, P66, 0x3D, 0, S::Rvm, Full, 1, 0;
    PAndD = "vpandd", M0F, P66, 0xDB, 0, S::Rvm, Full, 1, 0;
    PAndnD = "vpandnd", M0F, P66, 0xDF, 0, S::Rvm, Full, 1, 0;
    POrD = "vpord", M0F, P66, 0xEB, 0, S::Rvm, Full, 1, 0;
    PXorD = "vpxord", M0F, P66, 0xEF, 0, S::Rvm, Full, 1, 0;
    PTernLogD = "vpternlogd", M0F3A, P66, 0x25, 0, S::Rvmi, Full, 1, 0;
    PAddQ = "vpaddq", M0F, P66, 0xD4, 1, S::Rvm, Full, 1, 0;
    PCmpEqD = "vpcmpeqd", M0F, P66, 0x76, 0, S::Kvm, Full, 1, 0;
    PCmpGtD = "vpcmpgtd", M0F, P66, 0x66, 0, S::Kvm, Full, 1, 0;
    /// Signed compare with a predicate immediate.
    PCmpD = "vpcmpd", M0F3A, P66, 0x1F, 0, S::Kvmi, Full, 1, 0;
    PTestMD = "vptestmd", M0F38, P66, 0x27, 0, S::Kvm, Full, 1, 0;
    PTestNmD = "vptestnmd", M0F38, PF3, 0x27, 0, S::Kvm, Full, 1, 0;
    PSllD = "vpslld", M0F, P66, 0x72, 0, S::Shift(6), Full, 1, 0;
    PSrlD = "vpsrld", M0F, P66, 0x72, 0, S::Shift(2), Full, 1, 0;
    PSraD = "vpsrad", M0F, P66, 0x72, 0, S::Shift(4), Full, 1, 0;
    PSllQ = "vpsllq", M0F, P66, 0x73, 1, S::Shift(6), Full, 1, 0;
    PSrlQ = "vpsrlq", M0F, P66, 0x73, 1, S::Shift(2), Full, 1, 0;
    /// Each lane's sign bit into an opmask (DQ).
    PMovD2M = "vpmovd2m", M0F38, PF3, 0x39, 0, S::KfromV, Full, 0, 0;
    /// Each opmask bit as an all-ones or zero lane (DQ).
    PMovM2D = "vpmovm2d", M0F38, PF3, 0x38, 0, S::VfromK, Full, 0, 0;
    /// Each opmask bit as an all-ones or zero 64-bit lane (DQ).
    PMovM2Q = "vpmovm2q", M0F38, PF3, 0x38, 1, S::VfromK, Full, 0, 0;
}

/// A general-purpose memory operand `[base + index * scale + disp]` (64-bit registers 0..=15;
/// the index is never rsp), or `[rip + disp]` (base [`RIP`], no index, always a 32-bit
/// displacement: the one position-dependent form, for a caller that patches the displacement
/// as a relocation: it is the chunk's last 4 bytes before the immediate, see [`Shape::imm`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mem {
    pub base: u8,
    /// Index register and scale (1, 2, 4 or 8).
    pub index: Option<(u8, u8)>,
    pub disp: i32,
}

/// The base of a `[rip + disp32]` operand.
pub const RIP: u8 = 16;

impl Mem {
    /// `[rip + disp]`: `disp` counts from the end of the instruction.
    pub const fn rip(disp: i32) -> Mem {
        Mem {
            base: RIP,
            index: None,
            disp,
        }
    }

    /// `[base + disp]`.
    pub const fn base(base: u8, disp: i32) -> Mem {
        Mem {
            base,
            index: None,
            disp,
        }
    }
}

/// The `rm` operand: a register (vector, opmask or general-purpose as the form says) or memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rm {
    Reg(u8),
    Mem(Mem),
}

/// One EVEX instruction. Fields a form does not use (see [`Shape`]) must be 0 / `false`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    pub op: Op,
    pub vl: Vl,
    /// ModRM.reg: the destination (or the stored/extracted register, or an opmask).
    pub dst: u8,
    /// EVEX.vvvv: the first source.
    pub src: u8,
    pub rm: Rm,
    /// Opmask register (0 = no masking).
    pub mask: u8,
    /// Zeroing masking (`{z}`) rather than merging.
    pub zeroing: bool,
    /// `{1toN}`: `rm` is one element broadcast.
    pub bcst: bool,
    pub imm: u8,
}

impl Inst {
    /// `dst = src op rm` with no masking.
    pub const fn rvm(op: Op, vl: Vl, dst: u8, src: u8, rm: Rm) -> Inst {
        Inst {
            op,
            vl,
            dst,
            src,
            rm,
            mask: 0,
            zeroing: false,
            bcst: false,
            imm: 0,
        }
    }
}

/// An encoded instruction: at most 15 bytes, position-independent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The bytes, little-endian (built in a register: byte stores followed by a wide load
    /// would stall store forwarding).
    bytes: [u8; 16],
    len: u8,
}

/// Builds a [`Chunk`] in a register.
struct Builder {
    acc: u128,
    len: u32,
}

impl Builder {
    #[inline]
    const fn new() -> Builder {
        Builder { acc: 0, len: 0 }
    }
    #[inline]
    fn push(&mut self, b: u8) {
        self.acc |= u128::from(b) << (8 * self.len);
        self.len += 1;
    }
    #[inline]
    fn push_n(&mut self, v: u64, n: u32) {
        self.acc |= u128::from(v) << (8 * self.len);
        self.len += n;
    }
    #[inline]
    fn finish(self) -> Chunk {
        Chunk {
            bytes: self.acc.to_le_bytes(),
            len: self.len as u8,
        }
    }
}

impl Chunk {
    /// The bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

/// Appends an encoded chunk to an assembler (or any byte sink): a write of a constant length
/// per possible length (EVEX instructions are 6 to 15 bytes), no per-byte loop.
#[inline(always)]
pub fn splice<E: Extend<u8>>(ops: &mut E, chunk: &Chunk) {
    fn put<E: Extend<u8>, const N: usize>(ops: &mut E, bytes: &[u8; 16]) {
        let mut head = [0u8; N];
        head.copy_from_slice(&bytes[..N]);
        ops.extend(head);
    }
    let b = &chunk.bytes;
    match chunk.len {
        6 => put::<E, 6>(ops, b),
        7 => put::<E, 7>(ops, b),
        8 => put::<E, 8>(ops, b),
        9 => put::<E, 9>(ops, b),
        10 => put::<E, 10>(ops, b),
        11 => put::<E, 11>(ops, b),
        12 => put::<E, 12>(ops, b),
        0..=5 | 13.. => ops.extend(chunk.as_bytes().iter().copied()),
    }
}

/// An instruction this encoder cannot encode: a caller bug, reported rather than mis-encoded.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
pub enum EvexError {
    #[error("{0}: register {1} out of range")]
    Register(&'static str, u8),
    #[error("{0}: opmask k{1} out of range")]
    Mask(&'static str, u8),
    #[error("{0}: this operand must be {1}")]
    Operand(&'static str, &'static str),
    #[error("{0}: zeroing-masking needs a mask and a register destination")]
    Zeroing(&'static str),
    #[error("{0}: no broadcast form")]
    Broadcast(&'static str),
    #[error("{0}: no 128-bit form")]
    Length(&'static str),
    #[error("{0}: the index register cannot be rsp, and the scale must be 1, 2, 4 or 8")]
    Index(&'static str),
}

/// The disp8·N scale of a memory operand.
#[inline(always)]
fn disp_scale(info: &Info, vl: Vl, bcst: bool) -> u32 {
    let elem = if info.w { 8 } else { 4 };
    match info.tuple {
        Tuple::Full if bcst => elem,
        Tuple::Half if bcst => elem,
        Tuple::Full | Tuple::FullMem => vl.bytes(),
        Tuple::Half => vl.bytes() / 2,
        Tuple::Scalar => elem,
        Tuple::Tuple4 => 16,
    }
}

/// The register/memory bits: ModRM.mod and .rm, SIB, displacement; and the X and B extension
/// bits (unstored: 1 = the register number has that bit).
struct RmBytes {
    modrm_mod: u8,
    modrm_rm: u8,
    sib: Option<u8>,
    disp: Disp,
    x: bool,
    b: bool,
}

#[derive(Clone, Copy)]
enum Disp {
    None,
    D8(i8),
    D32(i32),
}

#[inline(always)]
fn mem_bytes(name: &'static str, m: &Mem, n: u32) -> Result<RmBytes, EvexError> {
    if m.base == RIP {
        // ModRM mod = 00, rm = 101: rip-relative, always disp32, no SIB.
        if m.index.is_some() {
            return Err(EvexError::Index(name));
        }
        return Ok(RmBytes {
            modrm_mod: 0,
            modrm_rm: 5,
            sib: None,
            disp: Disp::D32(m.disp),
            x: false,
            b: false,
        });
    }
    if m.base > 15 {
        return Err(EvexError::Register(name, m.base));
    }
    let (index, scale) = match m.index {
        None => (None, 0),
        Some((i, s)) => {
            let ss = match s {
                1 => 0,
                2 => 1,
                4 => 2,
                8 => 3,
                0 | 3 | 5..=7 | 9.. => return Err(EvexError::Index(name)),
            };
            if i > 15 || i == 4 {
                return Err(EvexError::Index(name));
            }
            (Some(i), ss)
        }
    };
    let n = n as i32;
    // rbp and r13 as a base have no disp-less form.
    let disp = if m.disp == 0 && m.base & 7 != 5 {
        Disp::None
    } else if m.disp % n == 0 && (m.disp / n) as i8 as i32 == m.disp / n {
        Disp::D8((m.disp / n) as i8)
    } else {
        Disp::D32(m.disp)
    };
    let modrm_mod = match disp {
        Disp::None => 0,
        Disp::D8(_) => 1,
        Disp::D32(_) => 2,
    };
    let needs_sib = index.is_some() || m.base & 7 == 4;
    let (modrm_rm, sib) = if needs_sib {
        let i = index.unwrap_or(4);
        (4, Some((scale << 6) | ((i & 7) << 3) | (m.base & 7)))
    } else {
        (m.base & 7, None)
    };
    Ok(RmBytes {
        modrm_mod,
        modrm_rm,
        sib,
        disp,
        x: index.is_some_and(|i| i & 8 != 0),
        b: m.base & 8 != 0,
    })
}

#[inline]
fn reg_bytes(r: u8) -> RmBytes {
    RmBytes {
        modrm_mod: 3,
        modrm_rm: r & 7,
        sib: None,
        disp: Disp::None,
        x: r & 16 != 0,
        b: r & 8 != 0,
    }
}

#[inline]
const fn map_bits(map: Map) -> u8 {
    match map {
        Map::M0F => 1,
        Map::M0F38 => 2,
        Map::M0F3A => 3,
    }
}

#[inline]
const fn pp_bits(pp: Pp) -> u8 {
    match pp {
        Pp::None => 0,
        Pp::P66 => 1,
        Pp::PF3 => 2,
        Pp::PF2 => 3,
    }
}

/// The four prefix bytes (`62`, P0, P1, P2) of `inst` with ModRM.reg `reg`, EVEX.vvvv `v` and
/// the extension bits (X, B) of its `rm` operand.
#[inline(always)]
fn prefix(info: &Info, inst: &Inst, reg: u8, v: u8, (x, b): (bool, bool)) -> [u8; 4] {
    let p0 = (u8::from(reg & 8 == 0) << 7)
        | (u8::from(!x) << 6)
        | (u8::from(!b) << 5)
        | (u8::from(reg & 16 == 0) << 4)
        | map_bits(info.map);
    let p1 = (u8::from(info.w) << 7) | ((!v & 15) << 3) | 4 | pp_bits(info.pp);
    let p2 = (u8::from(inst.zeroing) << 7)
        | (inst.vl.ll() << 5)
        | (u8::from(inst.bcst) << 4)
        | (u8::from(v & 16 == 0) << 3)
        | inst.mask;
    [0x62, p0, p1, p2]
}

/// Encodes one EVEX instruction.
pub fn encode(inst: &Inst) -> Result<Chunk, EvexError> {
    let info = inst.op.info();
    let name = info.name;
    let vreg = |r: u8| {
        if r < 32 {
            Ok(r)
        } else {
            Err(EvexError::Register(name, r))
        }
    };
    let kreg = |k: u8| {
        if k < 8 {
            Ok(k)
        } else {
            Err(EvexError::Mask(name, k))
        }
    };
    kreg(inst.mask)?;
    if info.wide_only && inst.vl == Vl::V128 {
        return Err(EvexError::Length(name));
    }
    let is_mem = matches!(inst.rm, Rm::Mem(_));
    if inst.bcst && !(info.bcst && is_mem) {
        return Err(EvexError::Broadcast(name));
    }
    // Which operands the shape has: (reg field, vvvv, zeroing allowed, masking allowed, imm).
    let (reg, vvvv, zero_ok, mask_ok, imm) = match info.shape {
        S::Rvm => (vreg(inst.dst)?, Some(vreg(inst.src)?), true, true, false),
        S::Rvmi => (vreg(inst.dst)?, Some(vreg(inst.src)?), true, true, true),
        S::Rm => (vreg(inst.dst)?, None, true, true, false),
        S::Rmi => (vreg(inst.dst)?, None, true, true, true),
        S::Mr => {
            if !is_mem {
                return Err(EvexError::Operand(name, "memory"));
            }
            (vreg(inst.dst)?, None, false, true, false)
        }
        S::Mri => (vreg(inst.dst)?, None, !is_mem, true, true),
        S::Kvm => (kreg(inst.dst)?, Some(vreg(inst.src)?), false, true, false),
        S::Kvmi => (kreg(inst.dst)?, Some(vreg(inst.src)?), false, true, true),
        S::Shift(ext) => (ext, Some(vreg(inst.src)?), true, true, true),
        S::KfromV | S::VfromK => {
            if is_mem {
                return Err(EvexError::Operand(name, "a register"));
            }
            let dst = if info.shape == S::KfromV {
                kreg(inst.dst)?
            } else {
                vreg(inst.dst)?
            };
            (dst, None, false, false, false)
        }
    };
    if !mask_ok && inst.mask != 0 {
        return Err(EvexError::Mask(name, inst.mask));
    }
    if inst.zeroing && (!zero_ok || inst.mask == 0) {
        return Err(EvexError::Zeroing(name));
    }
    if !imm && inst.imm != 0 {
        return Err(EvexError::Operand(name, "without an immediate"));
    }
    let rmb = match inst.rm {
        Rm::Reg(r) => {
            let r = if info.shape == S::VfromK {
                kreg(r)?
            } else {
                vreg(r)?
            };
            reg_bytes(r)
        }
        Rm::Mem(m) => mem_bytes(name, &m, disp_scale(&info, inst.vl, inst.bcst))?,
    };
    let v = vvvv.unwrap_or(0);
    let [e, p0, p1, p2] = prefix(&info, inst, reg, v, (rmb.x, rmb.b));
    let mut c = Builder::new();
    c.push_n(u64::from_le_bytes([e, p0, p1, p2, info.opcode, 0, 0, 0]), 5);
    modrm_tail(&mut c, reg, &rmb);
    if imm {
        c.push(inst.imm);
    }
    Ok(c.finish())
}

#[inline(always)]
fn modrm_tail(c: &mut Builder, reg: u8, rmb: &RmBytes) {
    c.push((rmb.modrm_mod << 6) | ((reg & 7) << 3) | rmb.modrm_rm);
    if let Some(sib) = rmb.sib {
        c.push(sib);
    }
    match rmb.disp {
        Disp::None => {}
        Disp::D8(d) => c.push(d as u8),
        Disp::D32(d) => c.push_n(u64::from(d as u32), 4),
    }
}

/// Operand shapes of the opmask instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KShape {
    /// `k dst, k src, k rm` (VEX.L1).
    Kkk,
    /// `k dst, k rm`.
    Kk,
    /// `k dst, r32 rm`.
    Kr,
    /// `r32 dst, k rm`.
    Rk,
    /// `k dst, mem`.
    Km,
    /// `mem, k dst`.
    Mk,
}

/// One row of the opmask table (all VEX-encoded, map 0F, W0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KInfo {
    pub name: &'static str,
    pub pp: Pp,
    pub opcode: u8,
    pub shape: KShape,
}

macro_rules! k_ops {
    ($( $op:ident = $name:literal, $pp:ident, $opc:literal, $shape:ident; )*) => {
        /// The opmask instructions this encoder knows (`w`: 16 bits, AVX-512F; `b`: 8 bits,
        /// AVX-512DQ).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum KOp { $( $op, )* }

        impl KOp {
            /// Every instruction of the table.
            pub const ALL: &'static [KOp] = &[ $( KOp::$op, )* ];

            /// The instruction's table row.
            #[inline]
            pub const fn info(self) -> KInfo {
                match self {
                    $( KOp::$op => KInfo {
                        name: $name,
                        pp: Pp::$pp,
                        opcode: $opc,
                        shape: KShape::$shape,
                    }, )*
                }
            }
        }
    };
}

k_ops! {
    KMovW = "kmovw", None, 0x90, Kk;
    KMovWLoad = "kmovw", None, 0x90, Km;
    KMovWStore = "kmovw", None, 0x91, Mk;
    KMovWFromGpr = "kmovw", None, 0x92, Kr;
    KMovWToGpr = "kmovw", None, 0x93, Rk;
    KAndW = "kandw", None, 0x41, Kkk;
    KAndnW = "kandnw", None, 0x42, Kkk;
    KOrW = "korw", None, 0x45, Kkk;
    KXnorW = "kxnorw", None, 0x46, Kkk;
    KXorW = "kxorw", None, 0x47, Kkk;
    KNotW = "knotw", None, 0x44, Kk;
    KOrTestW = "kortestw", None, 0x98, Kk;
    KMovB = "kmovb", P66, 0x90, Kk;
    KMovBLoad = "kmovb", P66, 0x90, Km;
    KMovBStore = "kmovb", P66, 0x91, Mk;
    KMovBFromGpr = "kmovb", P66, 0x92, Kr;
    KMovBToGpr = "kmovb", P66, 0x93, Rk;
    KAndB = "kandb", P66, 0x41, Kkk;
    KAndnB = "kandnb", P66, 0x42, Kkk;
    KOrB = "korb", P66, 0x45, Kkk;
    KXnorB = "kxnorb", P66, 0x46, Kkk;
    KXorB = "kxorb", P66, 0x47, Kkk;
    KNotB = "knotb", P66, 0x44, Kk;
    KOrTestB = "kortestb", P66, 0x98, Kk;
}

/// Encodes one opmask instruction: `dst` is ModRM.reg (an opmask, or a 32-bit GPR for
/// [`KShape::Rk`], or the stored opmask for [`KShape::Mk`]), `src` VEX.vvvv ([`KShape::Kkk`]
/// only, else 0), `rm` the last operand.
pub fn encode_k(op: KOp, dst: u8, src: u8, rm: Rm) -> Result<Chunk, EvexError> {
    let info = op.info();
    let name = info.name;
    let k = |r: u8| {
        if r < 8 {
            Ok(r)
        } else {
            Err(EvexError::Mask(name, r))
        }
    };
    let gpr = |r: u8| {
        if r < 16 {
            Ok(r)
        } else {
            Err(EvexError::Register(name, r))
        }
    };
    let (reg, vvvv, l, rmb) = match (info.shape, rm) {
        (KShape::Kkk, Rm::Reg(r)) => (k(dst)?, k(src)?, 1, reg_bytes(k(r)?)),
        (KShape::Kk, Rm::Reg(r)) => (k(dst)?, 0, 0, reg_bytes(k(r)?)),
        (KShape::Kr, Rm::Reg(r)) => (k(dst)?, 0, 0, reg_bytes(gpr(r)?)),
        (KShape::Rk, Rm::Reg(r)) => (gpr(dst)?, 0, 0, reg_bytes(k(r)?)),
        (KShape::Km | KShape::Mk, Rm::Mem(m)) => (k(dst)?, 0, 0, mem_bytes(name, &m, 1)?),
        (KShape::Km | KShape::Mk, Rm::Reg(_)) => return Err(EvexError::Operand(name, "memory")),
        (KShape::Kkk | KShape::Kk | KShape::Kr | KShape::Rk, Rm::Mem(_)) => {
            return Err(EvexError::Operand(name, "a register"))
        }
    };
    if info.shape != KShape::Kkk && src != 0 {
        return Err(EvexError::Operand(name, "without a second source"));
    }
    let r = reg & 8 == 0;
    let mut c = Builder::new();
    let tail = ((!vvvv & 15) << 3) | (l << 2) | pp_bits(info.pp);
    if !rmb.x && !rmb.b {
        c.push(0xC5);
        c.push((u8::from(r) << 7) | tail);
    } else {
        let p0 = (u8::from(r) << 7) | (u8::from(!rmb.x) << 6) | (u8::from(!rmb.b) << 5) | 1;
        c.push(0xC4);
        c.push(p0);
        c.push(tail);
    }
    c.push(info.opcode);
    modrm_tail(&mut c, reg, &rmb);
    Ok(c.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_encodings() {
        // vaddps zmm25, zmm16, [rdi+80h]{1to16}: disp8·4 = 0x20.
        let i = Inst {
            bcst: true,
            ..Inst::rvm(Op::AddPs, Vl::V512, 25, 16, Rm::Mem(Mem::base(7, 0x80)))
        };
        assert_eq!(
            encode(&i).unwrap().as_bytes(),
            [0x62, 0x61, 0x7C, 0x50, 0x58, 0x4F, 0x20]
        );
        // vmovaps zmm22{k1}{z}, zmm16.
        let i = Inst {
            mask: 1,
            zeroing: true,
            ..Inst::rvm(Op::MovapsLoad, Vl::V512, 22, 0, Rm::Reg(16))
        };
        assert_eq!(
            encode(&i).unwrap().as_bytes(),
            [0x62, 0xA1, 0x7C, 0xC9, 0x28, 0xF0]
        );
        // kxnorw k2, k2, k2.
        assert_eq!(
            encode_k(KOp::KXnorW, 2, 2, Rm::Reg(2)).unwrap().as_bytes(),
            [0xC5, 0xEC, 0x46, 0xD2]
        );
    }

    #[test]
    fn refuses_what_it_cannot_encode() {
        let base = Inst::rvm(Op::AddPs, Vl::V512, 1, 2, Rm::Reg(3));
        let cases = [
            Inst { dst: 32, ..base },
            Inst { mask: 8, ..base },
            Inst {
                zeroing: true,
                ..base
            },
            Inst { bcst: true, ..base },
            Inst { imm: 1, ..base },
            Inst {
                op: Op::PermPs,
                vl: Vl::V128,
                ..base
            },
            Inst {
                op: Op::MovapsStore,
                ..base
            },
            Inst {
                rm: Rm::Mem(Mem {
                    base: 7,
                    index: Some((4, 1)),
                    disp: 0,
                }),
                ..base
            },
            Inst {
                rm: Rm::Mem(Mem {
                    base: 7,
                    index: Some((1, 3)),
                    disp: 0,
                }),
                ..base
            },
        ];
        for c in cases {
            assert!(encode(&c).is_err(), "{c:?}");
        }
        assert!(encode_k(KOp::KAndW, 8, 1, Rm::Reg(1)).is_err());
        assert!(encode_k(KOp::KNotW, 1, 1, Rm::Reg(1)).is_err());
        assert!(encode_k(KOp::KMovWLoad, 1, 0, Rm::Reg(1)).is_err());
    }
}
