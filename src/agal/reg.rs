//! AGAL register files: the 4-bit register-type codes of the token fields, their text names
//! per program kind, and how many registers of each type a version gives a program
//! (Adobe's register table and the AGALMiniAssembler limits).

use super::header::ShaderKind;

/// A register type (the 4-bit type field of destination, source and sampler operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegType {
    /// 0: vertex attribute `va` (read, vertex programs).
    Attribute,
    /// 1: constant `vc` / `fc` (read).
    Constant,
    /// 2: temporary `vt` / `ft` (read and write).
    Temporary,
    /// 3: output `op` / `oc` (write).
    Output,
    /// 4: varying `v` (written by vertex programs, read by fragment programs).
    Varying,
    /// 5: sampler `fs` / `vs` (only as the sampler operand of `tex`/`tld`).
    Sampler,
    /// 6: depth output `od` (fragment programs, AGAL 2+, write `.x` only).
    DepthOutput,
    /// 7: instance id `iid` (vertex programs, AGAL 3+, read).
    InstanceId,
}

impl RegType {
    /// Every type, by code.
    pub const ALL: [RegType; 8] = [
        RegType::Attribute,
        RegType::Constant,
        RegType::Temporary,
        RegType::Output,
        RegType::Varying,
        RegType::Sampler,
        RegType::DepthOutput,
        RegType::InstanceId,
    ];

    /// The type of a 4-bit code, or `None` for 8–15.
    pub const fn from_code(code: u8) -> Option<RegType> {
        if (code as usize) < RegType::ALL.len() {
            Some(RegType::ALL[code as usize])
        } else {
            None
        }
    }

    /// The 4-bit code.
    pub const fn code(self) -> u8 {
        match self {
            RegType::Attribute => 0,
            RegType::Constant => 1,
            RegType::Temporary => 2,
            RegType::Output => 3,
            RegType::Varying => 4,
            RegType::Sampler => 5,
            RegType::DepthOutput => 6,
            RegType::InstanceId => 7,
        }
    }

    /// The name the disassembler prints for this type in a program of `kind`, or `None` when
    /// the type has no name there (AGALMiniAssembler refuses, e.g., `va` in fragment programs).
    /// Output registers use the aliases real sources use (`op`, `oc`, `od`, `v`).
    pub const fn name(self, kind: ShaderKind) -> Option<&'static str> {
        match (self, kind) {
            (RegType::Attribute, ShaderKind::Vertex) => Some("va"),
            (RegType::Attribute, ShaderKind::Fragment) => None,
            (RegType::Constant, ShaderKind::Vertex) => Some("vc"),
            (RegType::Constant, ShaderKind::Fragment) => Some("fc"),
            (RegType::Temporary, ShaderKind::Vertex) => Some("vt"),
            (RegType::Temporary, ShaderKind::Fragment) => Some("ft"),
            (RegType::Output, ShaderKind::Vertex) => Some("op"),
            (RegType::Output, ShaderKind::Fragment) => Some("oc"),
            (RegType::Varying, _) => Some("v"),
            (RegType::Sampler, ShaderKind::Vertex) => Some("vs"),
            (RegType::Sampler, ShaderKind::Fragment) => Some("fs"),
            (RegType::DepthOutput, ShaderKind::Vertex) => None,
            (RegType::DepthOutput, ShaderKind::Fragment) => Some("od"),
            (RegType::InstanceId, ShaderKind::Vertex) => Some("iid"),
            (RegType::InstanceId, ShaderKind::Fragment) => None,
        }
    }

    /// How many registers of this type a program of `kind` and AGAL `version` has (Adobe's
    /// register table; 0 where the type does not exist). Versions above 4 count as 4, version
    /// 0 as 1.
    ///
    /// | type | v1 V/F | v2 V/F | v3 V/F | v4 V/F |
    /// |---|---|---|---|---|
    /// | attribute | 8/0 | 8/0 | 16/0 | 16/0 |
    /// | constant | 128/28 | 250/64 | 250/200 | 250/200 |
    /// | temporary | 8/8 | 26/26 | 26/26 | 26/26 |
    /// | output | 1/1 | 1/4 | 1/4 | 1/4 |
    /// | varying | 8/8 | 10/10 | 10/10 | 10/10 |
    /// | sampler | 0/8 | 0/16 | 0/16 | 4/16 |
    /// | depth output | 0/0 | 0/1 | 0/1 | 0/1 |
    /// | instance id | 0/0 | 0/0 | 1/0 | 1/0 |
    pub const fn count(self, kind: ShaderKind, version: u32) -> u32 {
        let v = if version < 1 {
            1
        } else if version > 4 {
            4
        } else {
            version
        };
        let vertex = matches!(kind, ShaderKind::Vertex);
        match self {
            RegType::Attribute => match (vertex, v) {
                (false, _) => 0,
                (true, 1 | 2) => 8,
                (true, _) => 16,
            },
            RegType::Constant => match (vertex, v) {
                (true, 1) => 128,
                (true, _) => 250,
                (false, 1) => 28,
                (false, 2) => 64,
                (false, _) => 200,
            },
            RegType::Temporary => {
                if v == 1 {
                    8
                } else {
                    26
                }
            }
            RegType::Output => {
                if vertex || v == 1 {
                    1
                } else {
                    4
                }
            }
            RegType::Varying => {
                if v == 1 {
                    8
                } else {
                    10
                }
            }
            RegType::Sampler => match (vertex, v) {
                (true, 4) => 4,
                (true, _) => 0,
                (false, 1) => 8,
                (false, _) => 16,
            },
            RegType::DepthOutput => {
                if vertex || v == 1 {
                    0
                } else {
                    1
                }
            }
            RegType::InstanceId => {
                if vertex && v >= 3 {
                    1
                } else {
                    0
                }
            }
        }
    }
}

/// Tokens a program of AGAL `version` may have (Flash error #3629): 200, 1024, 2048 (2048 for
/// version 4 and above; version 0 counts as 1).
pub const fn max_tokens(version: u32) -> usize {
    match version {
        0 | 1 => 200,
        2 => 1024,
        _ => 2048,
    }
}

/// A write mask (bit 0 = x … bit 3 = w).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct WriteMask(pub u8);

impl WriteMask {
    /// All four components.
    pub const XYZW: WriteMask = WriteMask(0xF);

    /// True when component `i` (0..4) is written.
    pub const fn has(self, i: usize) -> bool {
        self.0 & (1 << i) != 0
    }

    /// The mask as text without the dot (`xyz`), components in order.
    pub fn letters(self) -> String {
        (0..4)
            .filter(|&i| self.has(i))
            .map(|i| COMPONENTS[i])
            .collect()
    }
}

/// A source swizzle: 2 bits per result lane, lane x in bits 0–1 (0 = x … 3 = w).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle(pub u8);

impl Swizzle {
    /// `xyzw`.
    pub const IDENTITY: Swizzle = Swizzle(0xE4);

    /// The source component read for result lane `lane` (0..4).
    pub const fn lane(self, lane: usize) -> usize {
        ((self.0 >> (2 * lane)) & 3) as usize
    }

    /// `xxxx`, `yyyy`, `zzzz` or `wwww`.
    pub const fn is_replicate(self) -> bool {
        let x = self.0 & 3;
        self.0 == x * 0x55
    }

    /// The shortest text that AGALMiniAssembler expands back to this swizzle (it repeats the
    /// last letter of a short swizzle): `xyzz` → `xyz`, `xxxx` → `x`, `xyzw` → `xyzw`.
    pub fn letters(self) -> String {
        let mut n = 4;
        while n > 1 && self.lane(n - 1) == self.lane(n - 2) {
            n -= 1;
        }
        (0..n).map(|i| COMPONENTS[self.lane(i)]).collect()
    }
}

/// Component letters by index.
pub const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];
