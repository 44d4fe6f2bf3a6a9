//! Token layouts: the 24-byte token ([`RawToken`]) and the typed destination ([`Dest`]), source
//! ([`Source`]) and sampler ([`SamplerField`]) fields. Bits are sliced here and nowhere else.
//! Every field decodes any bit pattern — reserved bits are kept in a `reserved` member, in
//! place — and encodes back, so `encode(decode(x)) == x` for every token; the validator, not the
//! codec, decides what is allowed.
//!
//! | field | bits |
//! |---|---|
//! | destination (32) | register 0–15, write mask 16–19, reserved 20–23, type 24–27, reserved 28–31 |
//! | source (64) | register 0–15, indirect offset 16–23, swizzle 24–31, type 32–35, reserved 36–39, index type 40–43, reserved 44–47, index component 48–49, reserved 50–62, indirect 63 |
//! | sampler (64) | register 0–15, LOD bias (i8, ÷8) 16–23, reserved 24–31, type 32–35, reserved 36–39, format 40–43, dimension 44–47, special 48–51, wrap 52–55, mipmap 56–59, filter 60–63 |

use super::opcode::Opcode;
use super::reg::{Swizzle, WriteMask};

/// Bytes of one token.
pub const TOKEN_BYTES: usize = 24;

/// A token as four little-endian fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RawToken {
    /// Bytes 0–3.
    pub opcode: u32,
    /// Bytes 4–7.
    pub dest: u32,
    /// Bytes 8–15.
    pub src1: u64,
    /// Bytes 16–23: source 2 or a sampler.
    pub src2: u64,
}

impl RawToken {
    /// The token at the start of `bytes` (at least 24 of them).
    pub fn from_bytes(bytes: &[u8; TOKEN_BYTES]) -> RawToken {
        let u32_at =
            |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
        let u64_at = |o: usize| u64::from(u32_at(o)) | (u64::from(u32_at(o + 4)) << 32);
        RawToken {
            opcode: u32_at(0),
            dest: u32_at(4),
            src1: u64_at(8),
            src2: u64_at(16),
        }
    }

    /// The 24 bytes.
    pub fn to_bytes(&self) -> [u8; TOKEN_BYTES] {
        let mut out = [0u8; TOKEN_BYTES];
        out[0..4].copy_from_slice(&self.opcode.to_le_bytes());
        out[4..8].copy_from_slice(&self.dest.to_le_bytes());
        out[8..16].copy_from_slice(&self.src1.to_le_bytes());
        out[16..24].copy_from_slice(&self.src2.to_le_bytes());
        out
    }
}

/// Bits `lo..lo+width` of `x`.
const fn bits(x: u64, lo: u32, width: u32) -> u64 {
    (x >> lo) & ((1u64 << width) - 1)
}

/// `value` (truncated to `width` bits) placed at bit `lo`.
const fn put(value: u64, lo: u32, width: u32) -> u64 {
    (value & ((1u64 << width) - 1)) << lo
}

/// The destination field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dest {
    /// Register number.
    pub reg: u16,
    /// Write mask.
    pub mask: WriteMask,
    /// Register type code (4 bits; see [`super::reg::RegType`]).
    pub reg_type: u8,
    /// Bits 20–23 and 28–31, in place.
    pub reserved: u32,
}

/// Reserved bits of the destination field.
pub const DEST_RESERVED: u32 = 0xF0F0_0000;

impl Dest {
    /// Decodes any 32 bits.
    pub const fn decode(raw: u32) -> Dest {
        let r = raw as u64;
        Dest {
            reg: bits(r, 0, 16) as u16,
            mask: WriteMask(bits(r, 16, 4) as u8),
            reg_type: bits(r, 24, 4) as u8,
            reserved: raw & DEST_RESERVED,
        }
    }

    /// Encodes; `Dest::decode(x).encode() == x` for every `x`.
    pub const fn encode(&self) -> u32 {
        (put(self.reg as u64, 0, 16)
            | put(self.mask.0 as u64, 16, 4)
            | put(self.reg_type as u64, 24, 4)) as u32
            | (self.reserved & DEST_RESERVED)
    }
}

/// A source field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    /// Register number; for an indirect source, the number of the index register.
    pub reg: u16,
    /// Indirect offset (0–255).
    pub offset: u8,
    /// Swizzle.
    pub swizzle: Swizzle,
    /// Register type code (4 bits).
    pub reg_type: u8,
    /// Index register type code (4 bits).
    pub index_type: u8,
    /// Index register component (0–3 = x–w).
    pub index_comp: u8,
    /// Bit 63: indirect (relative) addressing.
    pub indirect: bool,
    /// Bits 36–39, 44–47 and 50–62, in place.
    pub reserved: u64,
}

/// Reserved bits of a source field.
pub const SOURCE_RESERVED: u64 = 0x7FFC_F0F0_0000_0000;

impl Default for Source {
    fn default() -> Source {
        Source::decode(0)
    }
}

impl Source {
    /// Decodes any 64 bits.
    pub const fn decode(raw: u64) -> Source {
        Source {
            reg: bits(raw, 0, 16) as u16,
            offset: bits(raw, 16, 8) as u8,
            swizzle: Swizzle(bits(raw, 24, 8) as u8),
            reg_type: bits(raw, 32, 4) as u8,
            index_type: bits(raw, 40, 4) as u8,
            index_comp: bits(raw, 48, 2) as u8,
            indirect: bits(raw, 63, 1) != 0,
            reserved: raw & SOURCE_RESERVED,
        }
    }

    /// Encodes; `Source::decode(x).encode() == x` for every `x`.
    pub const fn encode(&self) -> u64 {
        put(self.reg as u64, 0, 16)
            | put(self.offset as u64, 16, 8)
            | put(self.swizzle.0 as u64, 24, 8)
            | put(self.reg_type as u64, 32, 4)
            | put(self.index_type as u64, 40, 4)
            | put(self.index_comp as u64, 48, 2)
            | put(self.indirect as u64, 63, 1)
            | (self.reserved & SOURCE_RESERVED)
    }

    /// A direct source with every other field zero.
    pub const fn direct(reg_type: u8, reg: u16, swizzle: Swizzle) -> Source {
        Source {
            reg,
            offset: 0,
            swizzle,
            reg_type,
            index_type: 0,
            index_comp: 0,
            indirect: false,
            reserved: 0,
        }
    }
}

/// A sampler field (source 2 of `tex`, `ted`, `tld`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerField {
    /// Sampler register number (`fs`N / `vs`N).
    pub reg: u16,
    /// LOD bias in eighths (the bias is `bias / 8.0`).
    pub bias: i8,
    /// Register type code (4 bits; 5 in a valid token).
    pub reg_type: u8,
    /// Texture format: 0 rgba, 1 compressed (dxt1), 2 compressed alpha (dxt5), 3 video.
    pub format: u8,
    /// Dimension: 0 2D, 1 cube, 2 "3d" (assembler only).
    pub dim: u8,
    /// Special flags: bit 0 centroid, bit 1 single, bit 2 ignoresampler.
    pub special: u8,
    /// Wrapping: 0 clamp, 1 repeat, 2 clamp u / repeat v, 3 repeat u / clamp v.
    pub wrap: u8,
    /// Mipmapping: 0 none, 1 nearest, 2 linear.
    pub mip: u8,
    /// Filter: 0 nearest, 1 linear, 2–5 anisotropic 2x/4x/8x/16x.
    pub filter: u8,
    /// Bits 24–31 and 36–39, in place.
    pub reserved: u64,
}

/// Reserved bits of a sampler field.
pub const SAMPLER_RESERVED: u64 = 0x0000_00F0_FF00_0000;

impl SamplerField {
    /// Decodes any 64 bits.
    pub const fn decode(raw: u64) -> SamplerField {
        SamplerField {
            reg: bits(raw, 0, 16) as u16,
            bias: bits(raw, 16, 8) as u8 as i8,
            reg_type: bits(raw, 32, 4) as u8,
            format: bits(raw, 40, 4) as u8,
            dim: bits(raw, 44, 4) as u8,
            special: bits(raw, 48, 4) as u8,
            wrap: bits(raw, 52, 4) as u8,
            mip: bits(raw, 56, 4) as u8,
            filter: bits(raw, 60, 4) as u8,
            reserved: raw & SAMPLER_RESERVED,
        }
    }

    /// Encodes; `SamplerField::decode(x).encode() == x` for every `x`.
    pub const fn encode(&self) -> u64 {
        put(self.reg as u64, 0, 16)
            | put(self.bias as u8 as u64, 16, 8)
            | put(self.reg_type as u64, 32, 4)
            | put(self.format as u64, 40, 4)
            | put(self.dim as u64, 44, 4)
            | put(self.special as u64, 48, 4)
            | put(self.wrap as u64, 52, 4)
            | put(self.mip as u64, 56, 4)
            | put(self.filter as u64, 60, 4)
            | (self.reserved & SAMPLER_RESERVED)
    }

    /// The flags that must agree between two uses of one sampler register (Flash error
    /// #3696): everything but the register number.
    pub const fn properties(&self) -> u64 {
        self.encode() & !0xFFFF
    }
}

/// The opcode field of a token: a known opcode or any other value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpField {
    /// One of the table's opcodes.
    Known(Opcode),
    /// A value that is not an opcode.
    Unknown(u32),
}

impl OpField {
    /// Decodes any value.
    pub const fn decode(value: u32) -> OpField {
        match Opcode::from_value(value) {
            Some(op) => OpField::Known(op),
            None => OpField::Unknown(value),
        }
    }

    /// The field's value.
    pub const fn value(self) -> u32 {
        match self {
            OpField::Known(op) => op.value(),
            OpField::Unknown(v) => v,
        }
    }
}

/// Source 2: a register source, or a sampler for the opcodes whose shape has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src2 {
    /// A register source (also for opcodes that have no source 2, and unknown opcodes).
    Source(Source),
    /// A sampler (`tex`, `ted`, `tld`).
    Sampler(SamplerField),
}

/// A decoded token: every field typed as the opcode reads it. Fields the opcode does not use
/// are decoded too (as a source, or as a destination), so nothing is lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Token {
    /// The opcode field.
    pub op: OpField,
    /// Destination (zero for opcodes without one, in a valid token).
    pub dest: Dest,
    /// Source 1.
    pub src1: Source,
    /// Source 2 or sampler.
    pub src2: Src2,
}

impl Token {
    /// Decodes any token (total).
    pub const fn decode(raw: RawToken) -> Token {
        let op = OpField::decode(raw.opcode);
        let sampler = match op {
            OpField::Known(o) => o.shape().has_sampler(),
            OpField::Unknown(_) => false,
        };
        Token {
            op,
            dest: Dest::decode(raw.dest),
            src1: Source::decode(raw.src1),
            src2: if sampler {
                Src2::Sampler(SamplerField::decode(raw.src2))
            } else {
                Src2::Source(Source::decode(raw.src2))
            },
        }
    }

    /// Encodes; `Token::decode(r).encode() == r` for every raw token.
    pub const fn encode(&self) -> RawToken {
        RawToken {
            opcode: self.op.value(),
            dest: self.dest.encode(),
            src1: self.src1.encode(),
            src2: match self.src2 {
                Src2::Source(s) => s.encode(),
                Src2::Sampler(s) => s.encode(),
            },
        }
    }

    /// The opcode, if the field holds one.
    pub const fn opcode(&self) -> Option<Opcode> {
        match self.op {
            OpField::Known(op) => Some(op),
            OpField::Unknown(_) => None,
        }
    }

    /// Source 2 as a register source (`None` when it is a sampler).
    pub const fn src2_source(&self) -> Option<Source> {
        match self.src2 {
            Src2::Source(s) => Some(s),
            Src2::Sampler(_) => None,
        }
    }

    /// Source 2 as a sampler (`None` when it is a register source).
    pub const fn sampler(&self) -> Option<SamplerField> {
        match self.src2 {
            Src2::Sampler(s) => Some(s),
            Src2::Source(_) => None,
        }
    }
}
