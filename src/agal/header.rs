//! The 7-byte header and the split of a byte string into header, tokens and trailing bytes.
//!
//! | offset | size | value |
//! |---|---|---|
//! | 0 | 1 | magic `0xA0` |
//! | 1 | 4 | version, u32 little-endian (1–4) |
//! | 5 | 1 | shader-type tag `0xA1` |
//! | 6 | 1 | 0 vertex, 1 fragment |
//!
//! [`Bytecode::split`] takes any bytes apart without judging them (the validator judges), and
//! [`Bytecode::to_bytes`] puts them back together byte for byte.

use std::fmt;

use super::token::{RawToken, Token, TOKEN_BYTES};

/// Bytes of the header.
pub const HEADER_BYTES: usize = 7;
/// The magic byte at offset 0.
pub const MAGIC: u8 = 0xA0;
/// The shader-type tag at offset 5.
pub const TYPE_TAG: u8 = 0xA1;

/// Vertex or fragment program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderKind {
    /// A vertex program (header byte 6 = 0).
    Vertex,
    /// A fragment program (header byte 6 = 1).
    Fragment,
}

impl ShaderKind {
    /// The header's byte 6.
    pub const fn byte(self) -> u8 {
        match self {
            ShaderKind::Vertex => 0,
            ShaderKind::Fragment => 1,
        }
    }

    /// The kind of a header byte 6 value.
    pub const fn from_byte(byte: u8) -> Option<ShaderKind> {
        match byte {
            0 => Some(ShaderKind::Vertex),
            1 => Some(ShaderKind::Fragment),
            _ => None,
        }
    }

    /// `vertex` or `fragment` (the word Flash's messages use).
    pub const fn name(self) -> &'static str {
        match self {
            ShaderKind::Vertex => "vertex",
            ShaderKind::Fragment => "fragment",
        }
    }
}

impl fmt::Display for ShaderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The header's four fields, any values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// Byte 0 (`0xA0`).
    pub magic: u8,
    /// Bytes 1–4.
    pub version: u32,
    /// Byte 5 (`0xA1`).
    pub tag: u8,
    /// Byte 6 (0 vertex, 1 fragment).
    pub kind: u8,
}

impl Header {
    /// The header AGALMiniAssembler writes.
    pub const fn new(kind: ShaderKind, version: u32) -> Header {
        Header {
            magic: MAGIC,
            version,
            tag: TYPE_TAG,
            kind: kind.byte(),
        }
    }

    /// Reads the 7 bytes.
    pub fn from_bytes(b: &[u8; HEADER_BYTES]) -> Header {
        Header {
            magic: b[0],
            version: u32::from_le_bytes([b[1], b[2], b[3], b[4]]),
            tag: b[5],
            kind: b[6],
        }
    }

    /// The 7 bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_BYTES] {
        let v = self.version.to_le_bytes();
        [self.magic, v[0], v[1], v[2], v[3], self.tag, self.kind]
    }

    /// The program kind, when byte 6 names one.
    pub const fn shader_kind(&self) -> Option<ShaderKind> {
        ShaderKind::from_byte(self.kind)
    }

    /// True for magic `0xA0`, tag `0xA1` and a kind byte of 0 or 1 (any version).
    pub const fn is_well_formed(&self) -> bool {
        self.magic == MAGIC && self.tag == TYPE_TAG && self.shader_kind().is_some()
    }
}

/// Any byte string taken apart: the header (absent when there are fewer than 7 bytes), the
/// whole tokens after it, and the bytes after the last whole token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bytecode {
    /// The header, or `None` for inputs shorter than 7 bytes (then `tail` holds them all).
    pub header: Option<Header>,
    /// Every whole token after the header.
    pub tokens: Vec<Token>,
    /// Bytes after the last whole token (fewer than 24), or the whole input when it has no
    /// header.
    pub tail: Vec<u8>,
}

impl Bytecode {
    /// Takes any bytes apart (total).
    pub fn split(bytes: &[u8]) -> Bytecode {
        let Some((head, rest)) = bytes.split_first_chunk::<HEADER_BYTES>() else {
            return Bytecode {
                header: None,
                tokens: Vec::new(),
                tail: bytes.to_vec(),
            };
        };
        let mut chunks = rest.chunks_exact(TOKEN_BYTES);
        let tokens = chunks
            .by_ref()
            .map(|c| {
                let c: &[u8; TOKEN_BYTES] = c.try_into().expect("chunks_exact gives whole tokens");
                Token::decode(RawToken::from_bytes(c))
            })
            .collect();
        Bytecode {
            header: Some(Header::from_bytes(head)),
            tokens,
            tail: chunks.remainder().to_vec(),
        }
    }

    /// The bytes; `Bytecode::split(b).to_bytes() == b` for every `b`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(HEADER_BYTES + self.tokens.len() * TOKEN_BYTES + self.tail.len());
        if let Some(h) = &self.header {
            out.extend_from_slice(&h.to_bytes());
        }
        for t in &self.tokens {
            out.extend_from_slice(&t.encode().to_bytes());
        }
        out.extend_from_slice(&self.tail);
        out
    }
}
