//! One line through AGALMiniAssembler's `assemble` loop, step by step: trim, cut the comment,
//! take the sampler options, read the mnemonic, check the opcode's gates, read the operands and
//! write the token. Every leniency of the helper is kept, because its output is the reference
//! ("byte-identical for every program it accepts"):
//!
//! - white space around the line is trimmed; `//` starts a comment anywhere;
//! - sampler options are everything from the first `<` that has a `>` somewhere after it to the
//!   end of the line, split into runs of `[A-Za-z0-9_.+-]`; **they are remembered across lines**
//!   (the helper's `opts` variable is function-scoped), so a `tex` line without `<…>` uses the
//!   options of the last line that had some — even a line that was not an instruction;
//! - the mnemonic is the first three characters when they are word characters, looked up
//!   case-sensitively; anything else is skipped (a warning when the line has ≥ 3 characters);
//!   characters after the three (`movx`) start the operand text;
//! - operands are found by pattern, not by commas ([`super::operand`]), and their count must be
//!   the opcode's;
//! - a register number is `uint()` of its digits (modulo 2^32, then range-checked, then written
//!   as 16 bits); `fd`/`od` under version 1 passes any number;
//! - an unknown sampler option is read as the LOD bias with `Number()` (NaN → 0), the last one
//!   winning; option words are case-sensitive (`LINEAR` is a bias of NaN, i.e. 0).
//!
//! Errors the helper raises (its `_error`, and the exceptions some inputs throw, such as
//! `vc[va0+1]` without a component) are errors here too.

use super::number::{as3_number, to_int32, uint_of_digits};
use super::operand::{find_operands, read_operand};
use super::regmap;
use crate::agal::header::ShaderKind;
use crate::agal::opcode::{AsmGate, Opcode, Stage};
use crate::agal::sampling::{OPTIONS, SPECIAL_SHIFT};
use crate::agal::token::RawToken;

/// AGALMiniAssembler's opcode limit (`MAX_OPCODES`).
pub const MAX_OPCODES: usize = 4096;

/// Names that, as sampler options, hit a property of `Object.prototype` in the helper's
/// dictionary lookup; the coercion of that function to `Sampler` throws.
const PROTOTYPE_NAMES: [&str; 8] = [
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "setPropertyIsEnumerable",
    "toString",
    "toLocaleString",
    "valueOf",
];

/// Settings of one assembly (the helper's `assemble` arguments).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// Vertex or fragment.
    pub kind: ShaderKind,
    /// The version argument.
    pub version: u32,
    /// The `ignorelimits` argument (every register number up to 1024).
    pub ignore_limits: bool,
}

/// State the helper carries from line to line.
#[derive(Clone, Debug, Default)]
pub struct Carry {
    /// The last sampler options seen (`None`: never).
    pub opts: Option<Vec<String>>,
    /// Instructions written so far.
    pub nops: usize,
}

/// A line split the helper's way. Byte offsets are into the physical line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split<'a> {
    /// The instruction text: trimmed, comment and options cut.
    pub code: &'a str,
    /// Where `code` starts in the line.
    pub code_at: usize,
    /// The options text (from `<` to the end of the code), if any.
    pub options: Option<(&'a str, usize)>,
}

/// `\s` of the player's regular expressions (ASCII white space).
pub fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0B' | '\x0C')
}

/// Trims, cuts the comment and the options.
pub fn split(line: &str) -> Split<'_> {
    let start = line.len() - line.trim_start_matches(is_space).len();
    let trimmed = line[start..].trim_end_matches(is_space);
    let code = match trimmed.find("//") {
        Some(c) => &trimmed[..c],
        None => trimmed,
    };
    let options = code
        .find('<')
        .filter(|&lt| code[lt + 1..].contains('>'))
        .map(|lt| (&code[lt..], start + lt));
    let code = match options {
        Some((_, at)) => &code[..at - start],
        None => code,
    };
    Split {
        code,
        code_at: start,
        options,
    }
}

/// The runs of `[\w.+-]` in an options text.
pub fn option_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '+')))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// An error at byte `at` (width `len`) of the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// Byte offset in the line.
    pub at: usize,
    /// Bytes of the offending text (at least 1).
    pub len: usize,
    /// The message.
    pub message: String,
}

/// What a line is to the helper.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Skipped: no mnemonic (the `bool` says whether the helper traces a warning).
    Skipped(bool),
    /// A token.
    Token(RawToken),
}

/// Lenient readings worth a warning (the bytes are the helper's either way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Byte offset in the line.
    pub at: usize,
    /// Bytes.
    pub len: usize,
    /// What happened.
    pub message: String,
}

fn err(at: usize, len: usize, message: impl Into<String>) -> LineError {
    LineError {
        at,
        len: len.max(1),
        message: message.into(),
    }
}

/// Runs one split line through the helper. `notes` collects warnings.
pub fn assemble_line(
    s: &Split<'_>,
    mode: &Mode,
    carry: &mut Carry,
    notes: &mut Vec<Note>,
) -> Result<Outcome, LineError> {
    if let Some((text, _)) = s.options {
        carry.opts = Some(option_words(text));
    }
    let code = s.code;
    let b = code.as_bytes();
    let word = |i: usize| {
        b.get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    };
    let long = code.chars().count() >= 3;
    if !(word(0) && word(1) && word(2)) {
        return Ok(Outcome::Skipped(long));
    }
    let Some(op) = Opcode::from_mnemonic(&code[..3]) else {
        return Ok(Outcome::Skipped(long));
    };
    let at = s.code_at;
    if op.asm_gate() == AsmGate::Version2 && mode.version < 2 {
        return Err(err(
            at,
            3,
            format!("opcode {} requires version 2", op.mnemonic()),
        ));
    }
    match (op.stage(), mode.kind) {
        (Stage::Vertex, ShaderKind::Fragment) => {
            return Err(err(
                at,
                3,
                format!(
                    "opcode {} is only allowed in vertex programs",
                    op.mnemonic()
                ),
            ))
        }
        (Stage::Fragment, ShaderKind::Vertex) => {
            return Err(err(
                at,
                3,
                format!(
                    "opcode {} is only allowed in fragment programs",
                    op.mnemonic()
                ),
            ))
        }
        (Stage::Both | Stage::Vertex, ShaderKind::Vertex)
        | (Stage::Both | Stage::Fragment, ShaderKind::Fragment) => {}
    }
    carry.nops += 1;
    if carry.nops > MAX_OPCODES {
        return Err(err(
            at,
            3,
            format!("too many opcodes: the maximum is {MAX_OPCODES}"),
        ));
    }
    let rest = &code[3..];
    let rest_at = at + 3;
    let matches = find_operands(rest);
    let shape = op.shape();
    let want = shape.text_operands();
    if matches.len() != want {
        return Err(err(
            rest_at,
            rest.len(),
            format!(
                "wrong number of operands for {}: found {} but expected {want}",
                op.mnemonic(),
                matches.len()
            ),
        ));
    }
    note_ignored_text(rest, rest_at, &matches, notes);
    let mut token = RawToken {
        opcode: op.value(),
        ..RawToken::default()
    };
    let mut next_source = 0;
    for (j, m) in matches.iter().enumerate() {
        let o_at = rest_at + m.start;
        let o_len = m.end - m.start;
        let text = &rest[m.start..m.end];
        let here = |message: String| err(o_at, o_len, message);
        let operand = read_operand(rest, m, |n| regmap::lookup(n).map(|r| r.canonical));
        if operand.name.is_empty() {
            return Err(here(format!("could not parse operand {j} ({text})")));
        }
        let Some(reg) = regmap::lookup(&operand.name) else {
            return Err(here(format!(
                "unknown register name `{}` in operand {j} ({text})",
                operand.name
            )));
        };
        let relative = operand.relative.as_ref();
        match mode.kind {
            ShaderKind::Fragment if !reg.fragment => {
                return Err(here(format!("register operand {j} ({text}) is only allowed in vertex programs")))
            }
            ShaderKind::Fragment if relative.is_some() => {
                return Err(here(format!(
                    "register operand {j} ({text}): relative addressing is not allowed in fragment programs"
                )))
            }
            ShaderKind::Vertex if !reg.vertex => {
                return Err(here(format!("register operand {j} ({text}) is only allowed in fragment programs")))
            }
            ShaderKind::Vertex | ShaderKind::Fragment => {}
        }
        let index = if operand.digits.is_empty() {
            0
        } else {
            uint_of_digits(&operand.digits)
        };
        let max = reg.max_index(mode.version, mode.ignore_limits);
        if index > max {
            return Err(here(format!(
                "register operand {j} ({text}): index exceeds the limit of {}",
                u64::from(max) + 1
            )));
        }
        let is_dest = j == 0 && shape.has_dest();
        let is_sampler = j == 2 && shape.has_sampler();
        if is_dest && relative.is_some() {
            return Err(here(
                "relative addressing can not be a destination".to_string(),
            ));
        }
        if text.contains('.') && operand.letters.is_none() && !text.contains('[') {
            notes.push(Note {
                at: o_at,
                len: o_len,
                message: format!("`{text}`: upper-case components are not read (AGALMiniAssembler takes only `.xyzw` in lower case)"),
            });
        }
        let bits = mask_bits(operand.letters.as_deref(), is_dest);
        let (reltype, relsel, reloffset) = match relative {
            Some(r) => {
                let Some(index_reg) = regmap::lookup(&r.index_name) else {
                    return Err(here(format!("bad index register `{}`", r.index_name)));
                };
                let Some(sel) = r.select else {
                    return Err(here(
                        "bad index register select: `.x`, `.y`, `.z` or `.w` expected".to_string(),
                    ));
                };
                let offset = r
                    .offset
                    .as_deref()
                    .map_or(0, |d| d.parse::<u32>().unwrap_or(u32::MAX));
                if offset > 255 {
                    return Err(here(format!(
                        "index offset {offset} out of bounds [0..255]"
                    )));
                }
                (index_reg.code, component(sel), offset)
            }
            None => (0, 0, 0),
        };
        let reg16 = u64::from(index & 0xFFFF);
        if is_dest {
            token.dest = (reg16 | (u64::from(bits) << 16) | (u64::from(reg.code) << 24)) as u32;
        } else if is_sampler {
            let (bias, samplerbits) = sampler_bits(carry, notes, s, op)?;
            token.src2 = reg16 | (u64::from(bias) << 16) | (u64::from(samplerbits) << 32);
        } else {
            let field = reg16
                | (u64::from(reloffset) << 16)
                | (u64::from(bits) << 24)
                | (u64::from(reg.code) << 32)
                | (u64::from(reltype) << 40)
                | (if relative.is_some() {
                    u64::from(relsel | 0x8000) << 48
                } else {
                    0
                });
            if next_source == 0 {
                token.src1 = field;
            } else {
                token.src2 = field;
            }
            next_source += 1;
        }
    }
    Ok(Outcome::Token(token))
}

/// `x`→0, `y`→1, `z`→2, anything else (`w`)→3, as the helper computes `c - 'x'` clamped.
fn component(letter: u8) -> u32 {
    match letter {
        b'x' => 0,
        b'y' => 1,
        b'z' => 2,
        _ => 3,
    }
}

/// The mask (destination) or swizzle (source) byte of 1–4 letters; short swizzles repeat their
/// last letter. No letters: `0xF` or `0xE4`.
fn mask_bits(letters: Option<&str>, is_dest: bool) -> u32 {
    let Some(l) = letters else {
        return if is_dest { 0xF } else { 0xE4 };
    };
    let comps: Vec<u32> = l.bytes().map(component).collect();
    if is_dest {
        comps.iter().fold(0, |m, &c| m | (1 << c))
    } else {
        let last = *comps.last().unwrap_or(&0);
        (0..4).fold(0, |m, k| {
            m | (comps.get(k).copied().unwrap_or(last) << (2 * k))
        })
    }
}

/// The bias byte and upper 32 bits of a sampler from the remembered options.
fn sampler_bits(
    carry: &Carry,
    notes: &mut Vec<Note>,
    s: &Split<'_>,
    op: Opcode,
) -> Result<(u8, u32), LineError> {
    let (opt_at, opt_len) = s
        .options
        .map_or((s.code_at, s.code.len()), |(t, at)| (at, t.len()));
    if s.options.is_none() {
        if let Some(o) = &carry.opts {
            notes.push(Note {
                at: s.code_at,
                len: s.code.len(),
                message: format!(
                    "{} without <…> uses the sampler options of an earlier line: <{}>",
                    op.mnemonic(),
                    o.join(",")
                ),
            });
        }
    }
    let mut bits: u32 = 5;
    let mut bias = 0.0f64;
    for word in carry.opts.iter().flatten() {
        match OPTIONS.iter().find(|(name, _, _)| name == word) {
            Some(&(_, shift, value)) => {
                if shift != SPECIAL_SHIFT {
                    bits &= !(0xF << shift);
                }
                bits |= value << shift;
            }
            None if PROTOTYPE_NAMES.contains(&word.as_str()) => {
                return Err(err(
                    opt_at,
                    opt_len,
                    format!("sampler option `{word}` names an Object property (AGALMiniAssembler throws)"),
                ));
            }
            None => {
                bias = as3_number(word);
                if bias.is_nan() {
                    notes.push(Note {
                        at: opt_at,
                        len: opt_len,
                        message: format!(
                            "unknown sampler option `{word}` read as a LOD bias of NaN (0)"
                        ),
                    });
                }
            }
        }
    }
    Ok((to_int32(bias * 8.0) as u8, bits))
}

/// Warns about operand text the pattern skipped (other than separators).
fn note_ignored_text(
    rest: &str,
    rest_at: usize,
    matches: &[super::operand::Match],
    notes: &mut Vec<Note>,
) {
    let mut pos = 0;
    let mut gaps: Vec<(usize, usize)> = Vec::new();
    for m in matches
        .iter()
        .map(|m| (m.start, m.end))
        .chain([(rest.len(), rest.len())])
    {
        if m.0 > pos {
            gaps.push((pos, m.0));
        }
        pos = m.1;
    }
    for (a, b) in gaps {
        let gap = &rest[a..b];
        let trimmed = gap.trim_matches(|c: char| c == ',' || is_space(c));
        if !trimmed.is_empty() {
            let off = gap.find(trimmed).unwrap_or(0);
            notes.push(Note {
                at: rest_at + a + off,
                len: trimmed.len(),
                message: format!("`{trimmed}` is not an operand and is ignored"),
            });
        }
    }
}
