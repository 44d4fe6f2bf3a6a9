//! Register operands: `[-]name[[offset|index[+offset]]][.swizzle]`, where `name` is a register
//! (`v0`..`v15`, `o0`..`o15`, `r0`..`r15`, `c0`..`c95`, `i0`..`i3`, `b0`..`b15`; picasso also
//! reads `i4`..`i7`) or an alias. Aliases carry a register, a negation and a swizzle; a use-site
//! swizzle selects from the alias's swizzle and a use-site `-` toggles its negation. Offsets
//! are added after alias resolution. Where picasso reads such text as something other than
//! what it says (an offset that runs into the next register file, text after `]`, an empty
//! swizzle, an index register on an alias of a register that is not a float uniform, …) the
//! operand is picasso's reading, after `Scope::picasso_reads`.

use super::number;
use super::text::Piece;
use crate::isa::AddrIdx;

/// A register file as the assembly language names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RegClass {
    Input,
    Output,
    Temp,
    Float,
    Int,
    Bool,
}

impl RegClass {
    /// The register prefix letter.
    pub fn letter(self) -> char {
        match self {
            RegClass::Input => 'v',
            RegClass::Output => 'o',
            RegClass::Temp => 'r',
            RegClass::Float => 'c',
            RegClass::Int => 'i',
            RegClass::Bool => 'b',
        }
    }

    fn from_letter(c: char) -> Option<RegClass> {
        Some(match c.to_ascii_lowercase() {
            'v' => RegClass::Input,
            'o' => RegClass::Output,
            'r' => RegClass::Temp,
            'c' => RegClass::Float,
            'i' => RegClass::Int,
            'b' => RegClass::Bool,
            _ => return None,
        })
    }

    /// How many registers the file has.
    pub fn count(self) -> u32 {
        match self {
            RegClass::Input | RegClass::Output | RegClass::Temp | RegClass::Bool => 16,
            RegClass::Float => 96,
            RegClass::Int => 4,
        }
    }

    /// How many register codes picasso accepts for the file: [`RegClass::count`], except that
    /// picasso reads `i4`…`i7` too (codes 0x84…0x87, below the bool file at 0x88), which only a
    /// loop instruction can use (see `flow`).
    pub fn codes(self) -> u32 {
        match self {
            RegClass::Int => 8,
            RegClass::Input
            | RegClass::Output
            | RegClass::Temp
            | RegClass::Float
            | RegClass::Bool => self.count(),
        }
    }

    /// picasso's internal code of register 0: operand slots hold v 0x00, r 0x10, c 0x20; the
    /// int and bool files follow at 0x80 and 0x88; outputs share the codes of inputs.
    pub fn code_base(self) -> u32 {
        match self {
            RegClass::Input | RegClass::Output => 0x00,
            RegClass::Temp => 0x10,
            RegClass::Float => 0x20,
            RegClass::Int => 0x80,
            RegClass::Bool => 0x88,
        }
    }

    fn range_message(self) -> &'static str {
        match self {
            RegClass::Input => "invalid input register",
            RegClass::Output => "invalid output register",
            RegClass::Temp => "invalid temporary register",
            RegClass::Float => "invalid floating-point vector uniform register",
            RegClass::Int => "invalid integer vector uniform register",
            RegClass::Bool => "invalid boolean uniform register",
        }
    }
}

/// One register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Reg {
    pub class: RegClass,
    pub index: u32,
}

impl Reg {
    /// picasso's internal code (also the operand slot value for v, r and c).
    pub fn code(self) -> u32 {
        self.class.code_base() + self.index
    }
}

impl std::fmt::Display for Reg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.class.letter(), self.index)
    }
}

/// What an alias stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Alias {
    pub reg: Reg,
    pub negate: bool,
    pub select: [u8; 4],
}

impl Alias {
    /// An alias of a whole register, unswizzled.
    pub fn plain(reg: Reg) -> Alias {
        Alias {
            reg,
            negate: false,
            select: IDENTITY,
        }
    }
}

/// The identity swizzle.
pub(crate) const IDENTITY: [u8; 4] = [0, 1, 2, 3];

/// A parsed operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Operand {
    pub reg: Reg,
    pub negate: bool,
    pub select: [u8; 4],
    pub idx: AddrIdx,
}

impl Operand {
    /// Write mask of a destination: bit 3 = x … bit 0 = w.
    pub fn write_mask(&self) -> u8 {
        self.select.iter().fold(0, |m, &s| m | (8 >> s))
    }

    /// True when the letters are not in x, y, z, w order (meaningless for a mask).
    pub fn unordered(&self) -> bool {
        self.select.windows(2).any(|w| w[1] < w[0])
    }
}

/// A parse failure: bytes `at..end` of the line and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fail {
    pub at: usize,
    pub end: usize,
    pub msg: String,
}

impl Fail {
    pub fn new(piece: Piece<'_>, msg: impl Into<String>) -> Fail {
        Fail {
            at: piece.at,
            end: piece.end(),
            msg: msg.into(),
        }
    }
}

/// What operand parsing needs from the assembler: alias lookup and the number of output
/// registers (16, or 7 in geometry shaders; asking creates the file's DVLE, as in picasso).
pub(crate) trait Scope {
    fn alias(&self, name: &str) -> Option<Alias>;
    fn output_limit(&mut self) -> u32;
    /// Text picasso reads as something other than what it says: a warning, then picasso's
    /// reading (`Ok`), or the message as an error under `--strict` (`Err`).
    fn picasso_reads(&mut self, fail: Fail) -> Result<(), Fail>;
}

/// Index-register names (case-insensitive), old picasso names included.
pub(crate) fn index_register(s: &str) -> Option<AddrIdx> {
    let lower = s.to_ascii_lowercase();
    match lower.as_str() {
        "a0" | "a0.x" => Some(AddrIdx::A0x),
        "a1" | "a0.y" => Some(AddrIdx::A0y),
        "a2" | "lcnt" | "al" => Some(AddrIdx::AL),
        _ => None,
    }
}

/// A swizzle: 1 to 4 letters of `xyzw`, `rgba` or `stpq` (any case); the last letter repeats.
pub(crate) fn swizzle(s: &str) -> Option<[u8; 4]> {
    if s.is_empty() || s.len() > 4 {
        return None;
    }
    let mut out = [0u8; 4];
    let mut last = 0;
    for (i, c) in s.chars().enumerate() {
        last = match c.to_ascii_lowercase() {
            'x' | 'r' | 's' => 0,
            'y' | 'g' | 't' => 1,
            'z' | 'b' | 'p' => 2,
            'w' | 'a' | 'q' => 3,
            _ => return None,
        };
        out[i] = last;
    }
    for slot in out.iter_mut().skip(s.chars().count()) {
        *slot = last;
    }
    Some(out)
}

/// Parses one operand (already trimmed).
pub(crate) fn parse(p: Piece<'_>, scope: &mut dyn Scope) -> Result<Operand, Fail> {
    let (negate, body) = match p.s.strip_prefix('-') {
        Some(_) => (true, p.from(1).trim()),
        None => (false, p),
    };
    let (name, bracket, sw) = match body.s.find('[') {
        Some(open) => {
            let Some(close) = body.s[open..].find(']').map(|c| c + open) else {
                return Err(Fail::new(
                    body,
                    format!("missing closing bracket: {}", body.s),
                ));
            };
            let after = body.from(close + 1).trim();
            // picasso looks for the swizzle's `.` anywhere after `]` and skips what is before it.
            let (ignored, sw) = after.split_once('.');
            let ignored = ignored.trim();
            let name = body.to(open).trim();
            let inner = body.slice(open + 1, close).trim();
            if !ignored.is_empty() {
                let clean = match sw {
                    Some(sw) => format!("{}[{}].{}", name.s, inner.s, sw.s),
                    None => format!("{}[{}]", name.s, inner.s),
                };
                scope.picasso_reads(Fail::new(
                    ignored,
                    format!(
                        "unexpected text after ']': picasso ignores `{}` and reads `{clean}`; \
                         write `{clean}`",
                        ignored.s
                    ),
                ))?;
            }
            (name, Some(inner), sw)
        }
        None => match body.split_once('.') {
            (name, Some(sw)) => (name.trim(), None, Some(sw)),
            (name, None) => (name.trim(), None, None),
        },
    };
    let (idx, offset) = match bracket {
        Some(inner) => bracket_part(inner, scope)?,
        None => (AddrIdx::None, 0),
    };
    let use_select = match sw {
        Some(sw) if sw.is_empty() => {
            let whole = p.to(sw.at - p.at);
            scope.picasso_reads(Fail::new(
                whole,
                format!(
                    "empty swizzle: picasso reads `{}` as `{}x` (one component, repeated); write \
                     `{}x`, or leave the `.` out for all four components",
                    whole.s, whole.s, whole.s
                ),
            ))?;
            [0; 4]
        }
        Some(sw) => swizzle(sw.s)
            .ok_or_else(|| Fail::new(sw, format!("invalid swizzling mask: {}", sw.s)))?,
        None => IDENTITY,
    };
    let alias = scope.alias(name.s);
    let (base, negate, select) = match alias {
        Some(alias) => (
            alias.reg,
            negate ^ alias.negate,
            use_select.map(|s| alias.select[s as usize]),
        ),
        None => (register(name, scope)?, negate, use_select),
    };
    let index = base.index + offset;
    if idx != AddrIdx::None && base.class != RegClass::Float {
        if alias.is_none() {
            return Err(Fail::new(
                p,
                "index register not allowed with this kind of register",
            ));
        }
        // picasso checks the register kind of names, not of aliases: the index bits are set.
        let reached = Reg {
            class: base.class,
            index,
        };
        scope.picasso_reads(Fail::new(
            p,
            format!(
                "index register not allowed with this kind of register: `{}` is {reached}, and \
                 only float uniforms (c0..c95) are addressed relatively; picasso sets the index \
                 bits anyway and the hardware reads {reached} without an offset; write the \
                 operand without the index register",
                name.s
            ),
        ))?;
    }
    let reg = if index < base.class.codes() {
        Reg {
            class: base.class,
            index,
        }
    } else {
        let out_of_range = format!(
            "register offset out of range: {} (past {}{})",
            p.s,
            base.class.letter(),
            base.class.count() - 1
        );
        // picasso adds the offset to the register code: it runs into the next file.
        let code = base.code() + offset;
        let Some(reg) = reg_of_code(u64::from(code)) else {
            return Err(Fail::new(p, out_of_range));
        };
        scope.picasso_reads(Fail::new(
            p,
            format!(
                "{out_of_range}: picasso adds the offset to the register code and writes \
                 {reg}; write `{reg}`"
            ),
        ))?;
        reg
    };
    Ok(Operand {
        reg,
        negate,
        select,
        idx,
    })
}

fn bracket_part(inner: Piece<'_>, scope: &mut dyn Scope) -> Result<(AddrIdx, u32), Fail> {
    if let Some(idx) = index_register(inner.s) {
        return Ok((idx, 0));
    }
    match inner.split_once('+') {
        (left, Some(right)) => {
            let (left, right) = (left.trim(), right.trim());
            let idx = index_register(left.s)
                .ok_or_else(|| Fail::new(left, format!("invalid index register: {}", left.s)))?;
            Ok((idx, offset(right, scope)?))
        }
        (whole, None) => Ok((AddrIdx::None, offset(whole, scope)?)),
    }
}

/// A register offset: picasso reads it with `atoi`, so text that is not a plain decimal
/// number (`foo`, `0x10`, nothing) is whatever number it starts with, usually 0.
fn offset(p: Piece<'_>, scope: &mut dyn Scope) -> Result<u32, Fail> {
    let invalid = || Fail::new(p, format!("invalid register offset: {}", p.s));
    match number::decimal(p.s) {
        Some(v) if (0..=255).contains(&v) => Ok(v as u32),
        Some(_) => Err(invalid()),
        None => {
            let read = number::atoi(p.s);
            if !(0..=255).contains(&read) {
                return Err(invalid());
            }
            let shown = if p.s.is_empty() {
                "an empty offset"
            } else {
                p.s
            };
            scope.picasso_reads(Fail::new(
                p,
                format!(
                    "picasso reads the register offset `{shown}` as {read} (C `atoi`); \
                     write the offset as a decimal number{}",
                    if read == 0 {
                        ", or leave the brackets out"
                    } else {
                        ""
                    }
                ),
            ))?;
            Ok(read as u32)
        }
    }
}

/// A register name such as `r3` (not an alias).
pub(crate) fn register(name: Piece<'_>, scope: &mut dyn Scope) -> Result<Reg, Fail> {
    let mut chars = name.s.chars();
    let letter = chars.next();
    let class = letter.and_then(RegClass::from_letter);
    let digits = chars.as_str();
    let Some(class) = class.filter(|_| digits.starts_with(|c: char| c.is_ascii_digit())) else {
        return Err(Fail::new(name, format!("invalid register: {}", name.s)));
    };
    let index = match number::unambiguous_count(digits) {
        Ok(n) => n,
        Err(Some(picasso)) => {
            let l = class.letter();
            let msg = match number::c_base0_split(digits) {
                Some((_, len)) if len < digits.len() => format!(
                    "picasso writes `{}` as {l}{picasso}, ignoring `{}` after the register \
                     number; write `{l}{picasso}`",
                    name.s,
                    &digits[len..]
                ),
                Some(_) | None => format!(
                    "ambiguous register number: picasso reads `{}` as octal, {l}{picasso}; \
                     write `{l}{picasso}` (or the number without leading zeros if decimal was \
                     meant)",
                    name.s
                ),
            };
            scope.picasso_reads(Fail::new(name, msg))?;
            picasso
        }
        Err(None) => return Err(Fail::new(name, format!("invalid register: {}", name.s))),
    };
    if letter.is_some_and(|c| c.is_ascii_uppercase()) {
        return uppercase(name, class, index, scope);
    }
    let limit = match class {
        RegClass::Output => scope.output_limit(),
        RegClass::Input | RegClass::Temp | RegClass::Float | RegClass::Int | RegClass::Bool => {
            class.codes()
        }
    };
    if index >= u64::from(limit) {
        return Err(Fail::new(
            name,
            format!("{}: {}", class.range_message(), name.s),
        ));
    }
    Ok(Reg {
        class,
        index: index as u32,
    })
}

/// The register of picasso's internal code `n` (codes below 0x10 as input registers; an
/// output register has the same code as the input register of its number).
fn reg_of_code(n: u64) -> Option<Reg> {
    [
        RegClass::Bool,
        RegClass::Int,
        RegClass::Float,
        RegClass::Temp,
        RegClass::Input,
    ]
    .into_iter()
    .find(|c| n >= u64::from(c.code_base()) && n < u64::from(c.code_base() + c.codes()))
    .map(|c| Reg {
        class: c,
        index: n as u32 - c.code_base(),
    })
}

/// picasso reads the register letter case-sensitively: an uppercase letter adds no file base,
/// so the number is the register *code* (`R1` is code 1: v1 as a source, o1 as a
/// destination; `R20` is code 0x14, r4).
fn uppercase(name: Piece<'_>, class: RegClass, n: u64, scope: &mut dyn Scope) -> Result<Reg, Fail> {
    let reg = reg_of_code(n).ok_or_else(|| {
        Fail::new(
            name,
            format!(
                "invalid register: {} (picasso reads an uppercase register letter as a raw \
                 register code, and {n} is none)",
                name.s
            ),
        )
    })?;
    let meant = format!("{}{n}", class.letter());
    let wrote = match reg.class {
        RegClass::Input => format!("{reg} (o{} as a destination)", reg.index),
        _ => reg.to_string(),
    };
    if reg.to_string() != meant {
        scope.picasso_reads(Fail::new(
            name,
            format!(
                "picasso reads an uppercase register letter as a raw register code: `{}` is \
                 {wrote}, not {meant}; write `{reg}` for picasso's meaning or `{meant}` for the \
                 other",
                name.s
            ),
        ))?;
    }
    Ok(reg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct TestScope(HashMap<String, Alias>, u32);
    impl Scope for TestScope {
        fn alias(&self, name: &str) -> Option<Alias> {
            self.0.get(name).copied()
        }
        fn output_limit(&mut self) -> u32 {
            self.1
        }
        fn picasso_reads(&mut self, fail: Fail) -> Result<(), Fail> {
            Err(fail)
        }
    }

    fn p(s: &str) -> Result<Operand, String> {
        let mut scope = TestScope(HashMap::new(), 16);
        scope.0.insert(
            "foo".into(),
            Alias {
                reg: Reg {
                    class: RegClass::Float,
                    index: 0,
                },
                negate: false,
                select: [3, 1, 0, 2], // c0.wyxz
            },
        );
        scope.0.insert(
            "neg".into(),
            Alias {
                reg: Reg {
                    class: RegClass::Temp,
                    index: 4,
                },
                negate: true,
                select: IDENTITY,
            },
        );
        parse(Piece::new(s, 0), &mut scope).map_err(|f| f.msg)
    }

    #[test]
    fn registers_swizzles_offsets() {
        let o = p("-c8[4].xy").unwrap();
        assert_eq!(
            o.reg,
            Reg {
                class: RegClass::Float,
                index: 12
            }
        );
        assert!(o.negate);
        assert_eq!(o.select, [0, 1, 1, 1]);
        let o = p("c2[a0.x + 3].w").unwrap();
        assert_eq!((o.reg.index, o.idx, o.select), (5, AddrIdx::A0x, [3; 4]));
        assert_eq!(p("c0[aL]").unwrap().idx, AddrIdx::AL);
        assert_eq!(p("c0[LCNT]").unwrap().idx, AddrIdx::AL);
        assert_eq!(p("r3.rgba").unwrap().select, IDENTITY);
        assert_eq!(p("r3.stpq").unwrap().select, IDENTITY);
        // Uppercase register letters are raw codes to picasso: `V1` is v1 anyway.
        assert_eq!(
            p("V1").unwrap().reg,
            Reg {
                class: RegClass::Input,
                index: 1
            }
        );
        // …but `R1` is code 1, v1: refused here (the test scope is strict).
        assert!(p("R1")
            .unwrap_err()
            .contains("`R1` is v1 (o1 as a destination), not r1"));
        assert_eq!(p("v15").unwrap().reg.index, 15);
    }

    #[test]
    fn aliases_compose() {
        // c0.wyxz used as .xxww = c0.wwzz (picasso's Manual example).
        assert_eq!(p("foo.xxww").unwrap().select, [3, 3, 2, 2]);
        // A use-site minus toggles the alias's negation; twice cancels.
        assert!(p("neg").unwrap().negate);
        assert!(!p("-neg").unwrap().negate);
        assert_eq!(p("foo[3]").unwrap().reg.index, 3);
    }

    #[test]
    fn refusals() {
        assert_eq!(p("q5").unwrap_err(), "invalid register: q5");
        assert_eq!(p("r1.xyzwx").unwrap_err(), "invalid swizzling mask: xyzwx");
        assert!(p("r1.")
            .unwrap_err()
            .starts_with("empty swizzle: picasso reads `r1.` as `r1.x`"));
        // i4..i7 are registers to picasso (a loop takes them, with a warning).
        assert_eq!(
            p("i5").unwrap().reg,
            Reg {
                class: RegClass::Int,
                index: 5
            }
        );
        assert_eq!(p("c1[-2]").unwrap_err(), "invalid register offset: -2");
        assert_eq!(p("c1[2+a0.x]").unwrap_err(), "invalid index register: 2");
        assert!(p("c1[0x10]")
            .unwrap_err()
            .starts_with("picasso reads the register offset `0x10` as 0"));
        assert_eq!(p("c1[2").unwrap_err(), "missing closing bracket: c1[2");
        assert_eq!(
            p("r1[a0.x]").unwrap_err(),
            "index register not allowed with this kind of register"
        );
        assert!(p("c010")
            .unwrap_err()
            .starts_with("ambiguous register number: picasso reads `c010` as octal, c8"));
        // Hex is unambiguous: c0x10 is c16, as for picasso.
        assert_eq!(p("c0x10").unwrap().reg.index, 16);
        assert!(p("c0x1g").unwrap_err().contains("as c1, ignoring `g`"));
        assert!(p("r2d2").unwrap_err().contains("as r2, ignoring `d2`"));
        assert_eq!(p("rx").unwrap_err(), "invalid register: rx");
        assert_eq!(p("r16").unwrap_err(), "invalid temporary register: r16");
        assert_eq!(
            p("i8").unwrap_err(),
            "invalid integer vector uniform register: i8"
        );
        // Text between `]` and the swizzle is skipped by picasso.
        assert!(p("c1[2]q.x")
            .unwrap_err()
            .starts_with("unexpected text after ']': picasso ignores `q` and reads `c1[2].x`"));
        // An index register on an alias of a temporary: picasso sets the bits.
        assert!(p("neg[a0.x]")
            .unwrap_err()
            .starts_with("index register not allowed with this kind of register: `neg` is r4"));
        assert!(p("r15[1]")
            .unwrap_err()
            .starts_with("register offset out of range: r15[1] (past r15): picasso adds the offset to the register code and writes c0"));
        assert_eq!(p("").unwrap_err(), "invalid register: ");
    }
}
