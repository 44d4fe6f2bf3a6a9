//! AGALMiniAssembler's register names (its `REGMAP`): each name's canonical name, type code,
//! the program kinds that may use it and the highest number it accepts for a version.

/// One register name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegName {
    /// The canonical name (`vo` for `op`): the helper slices operands after it.
    pub canonical: &'static str,
    /// The register-type code written.
    pub code: u8,
    /// Allowed in vertex programs.
    pub vertex: bool,
    /// Allowed in fragment programs.
    pub fragment: bool,
}

impl RegName {
    /// The highest register number accepted (`range` in the helper). Note `fd` under version
    /// 1: the helper writes `-1` into an unsigned field, so every number passes.
    pub fn max_index(&self, version: u32, ignore_limits: bool) -> u32 {
        if ignore_limits {
            return 1024;
        }
        // Highest number under version 1, version 2, and any other version.
        let (v1, v2, other) = match self.canonical {
            "va" => (7, 7, 15),
            "vc" => (127, 249, 249),
            "vt" | "ft" => (7, 25, 25),
            "vi" => (7, 9, 9),
            "fc" => (27, 63, 199),
            "fs" => (15, 15, 15),
            "fo" => (0, 3, 3),
            "fd" => (u32::MAX, 0, 0),
            "vs" => (3, 3, 3),
            // vo, iid
            _ => (0, 0, 0),
        };
        match version {
            1 => v1,
            2 => v2,
            _ => other,
        }
    }
}

const fn reg(canonical: &'static str, code: u8, vertex: bool, fragment: bool) -> RegName {
    RegName {
        canonical,
        code,
        vertex,
        fragment,
    }
}

/// Every name the helper knows, aliases included.
pub const NAMES: [(&str, RegName); 18] = [
    ("va", reg("va", 0, true, false)),
    ("vc", reg("vc", 1, true, false)),
    ("vt", reg("vt", 2, true, false)),
    ("vo", reg("vo", 3, true, false)),
    ("vi", reg("vi", 4, true, true)),
    ("fc", reg("fc", 1, false, true)),
    ("ft", reg("ft", 2, false, true)),
    ("fs", reg("fs", 5, false, true)),
    ("fo", reg("fo", 3, false, true)),
    ("fd", reg("fd", 6, false, true)),
    ("iid", reg("iid", 7, true, false)),
    ("vs", reg("vs", 5, true, false)),
    ("op", reg("vo", 3, true, false)),
    ("i", reg("vi", 4, true, true)),
    ("v", reg("vi", 4, true, true)),
    ("oc", reg("fo", 3, false, true)),
    ("od", reg("fd", 6, false, true)),
    ("fi", reg("vi", 4, true, true)),
];

/// The register of a name (exact, case-sensitive).
pub fn lookup(name: &str) -> Option<RegName> {
    NAMES.iter().find(|(n, _)| *n == name).map(|&(_, r)| r)
}
