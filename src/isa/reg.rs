//! Register operands: source register codes (7-bit: v0–v15, r0–r15, c0–c95; 5-bit slots only
//! reach v and r) and destination codes (5-bit: o0–o15, r0–r15).

use std::fmt;

/// A source register code as stored in an instruction: 0x00–0x0F v, 0x10–0x1F r, 0x20–0x7F c.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Src(pub u8);

/// What a [`Src`] code names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SrcKind {
    /// Input register v0..v15.
    Input(u8),
    /// Temporary register r0..r15.
    Temp(u8),
    /// Float uniform c0..c95.
    Uniform(u8),
}

impl Src {
    /// Input register `vN`.
    pub const fn input(n: u8) -> Src {
        Src(n & 0x0F)
    }
    /// Temporary register `rN`.
    pub const fn temp(n: u8) -> Src {
        Src(0x10 | (n & 0x0F))
    }
    /// Float uniform `cN` (N < 96).
    pub const fn uniform(n: u8) -> Src {
        Src(0x20 + n)
    }
    /// The register this code names (codes are 7 bits; higher bits are ignored).
    pub const fn kind(self) -> SrcKind {
        let code = self.0 & 0x7F;
        match code {
            0x00..=0x0F => SrcKind::Input(code),
            0x10..=0x1F => SrcKind::Temp(code - 0x10),
            _ => SrcKind::Uniform(code - 0x20),
        }
    }
    /// True if the code fits a 5-bit source slot (inputs and temporaries only).
    pub const fn fits_narrow(self) -> bool {
        self.0 < 0x20
    }
}

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            SrcKind::Input(n) => write!(f, "v{n}"),
            SrcKind::Temp(n) => write!(f, "r{n}"),
            SrcKind::Uniform(n) => write!(f, "c{n}"),
        }
    }
}

/// A destination register code: 0x00–0x0F o, 0x10–0x1F r.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Dst(pub u8);

/// What a [`Dst`] code names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DstKind {
    /// Output register o0..o15.
    Output(u8),
    /// Temporary register r0..r15.
    Temp(u8),
}

impl Dst {
    /// Output register `oN`.
    pub const fn output(n: u8) -> Dst {
        Dst(n & 0x0F)
    }
    /// Temporary register `rN`.
    pub const fn temp(n: u8) -> Dst {
        Dst(0x10 | (n & 0x0F))
    }
    /// The register this code names (codes are 5 bits; higher bits are ignored).
    pub const fn kind(self) -> DstKind {
        let code = self.0 & 0x1F;
        if code < 0x10 {
            DstKind::Output(code)
        } else {
            DstKind::Temp(code - 0x10)
        }
    }
}

impl fmt::Display for Dst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            DstKind::Output(n) => write!(f, "o{n}"),
            DstKind::Temp(n) => write!(f, "r{n}"),
        }
    }
}
