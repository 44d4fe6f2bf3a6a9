//! The AGAL assembler: Adobe's AGALMiniAssembler language, producing
//! the bytes the helper produces for every program it accepts — its leniencies included
//! (`line.rs`, `operand.rs`) — with diagnostics `file:line:col` as in the PICA assembler.
//!
//! The reference is the last AGALMiniAssembler Adobe published (2015, AGAL 1–3 and `iid`) as
//! copied into Starling 2 and Ruffle's `agal-helper` with `tld` and `vs0`–`vs3` added and `fs`
//! raised to 0–15. Older copies differ and are not emulated: the 2011 one assigned other values
//! to the flow-control opcodes (never shipped), read `rgba` swizzle letters and allowed 256
//! opcodes; the 2013 "extended" one had no `i`/`iid` names and a 2048-opcode limit.
//!
//! # Program settings
//! The helper takes the program kind, the version and `ignorelimits` as arguments. Here they
//! come from [`Options`] or from directives in the text (a conflict between the two is an
//! error); the version defaults to 1.
//!
//! # Extensions (lines the helper would skip with a warning)
//! | line | meaning |
//! |---|---|
//! | `.vertex` / `.fragment` | the program kind |
//! | `.version N` | the version written and used for the helper's limits and gates |
//! | `.ignorelimits` | the helper's `ignorelimits` |
//! | `.header M V T K` | write these header fields (magic byte, u32 version, tag byte, kind byte) instead of the helper's header; `.header none` writes no header |
//! | `.bytes B…` | raw bytes, here, in the output |
//! | `!OP !DEST !SRC1 !SRC2` | a raw token: four integers (the `!` of all but the first is optional), u32, u32, u64, u64 |
//!
//! Integers are decimal or `0x` hex. The disassembler uses these to write any byte string as
//! text that assembles back to it (seed `004`'s `!<integer>` convention).

mod line;
mod number;
mod operand;
mod regmap;

pub use line::{Mode, MAX_OPCODES};
pub use number::{as3_number, to_int32, to_uint32};

use crate::agal::header::{Header, ShaderKind};
use crate::agal::token::RawToken;
use crate::asm::{Diagnostic, Severity};
use line::{assemble_line, split, Carry, LineError, Outcome};

/// Settings given by the caller; `None` leaves them to the text's directives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Vertex or fragment.
    pub kind: Option<ShaderKind>,
    /// The version (default 1).
    pub version: Option<u32>,
    /// Every register number up to 1024 (also set by `.ignorelimits`).
    pub ignore_limits: bool,
}

/// An assembled program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assembled {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The settings used.
    pub mode: Mode,
    /// Warnings (skipped lines, ignored text, inherited sampler options).
    pub warnings: Vec<Diagnostic>,
}

/// One physical line: its number (1-based) and text without the line break.
struct Line<'a> {
    number: u32,
    text: &'a str,
}

/// Lines as the helper splits them: at `\n`, `\r`, `\f` and `\v` (a `\r\n` pair is one break
/// for the line count).
fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut number = 1;
    let mut start = 0;
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' | b'\r' | b'\x0C' | b'\x0B' => {
                out.push(Line {
                    number,
                    text: &text[start..i],
                });
                if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                number += 1;
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(Line {
        number,
        text: &text[start..],
    });
    out
}

/// What the directives of a text set.
#[derive(Default)]
struct Directives {
    kind: Option<(ShaderKind, u32)>,
    version: Option<(u32, u32)>,
    ignore_limits: bool,
    header: Option<Option<Header>>,
}

/// An item of the output, in order.
enum Item {
    Token(RawToken),
    Bytes(Vec<u8>),
}

/// Parses an integer (decimal or `0x` hex) that fits `max`.
fn integer(word: &str, max: u64) -> Option<u64> {
    let v = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok()?,
        None => word.parse::<u64>().ok()?,
    };
    (v <= max).then_some(v)
}

/// Assembles `text` (named `file` in diagnostics).
pub fn assemble(file: &str, text: &str, options: &Options) -> Result<Assembled, Vec<Diagnostic>> {
    let lines = lines(text);
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let at = |severity, l: &Line<'_>, start: usize, len: usize, message: String| {
        Diagnostic::at(
            severity,
            file,
            l.number,
            l.text,
            start,
            start + len.max(1),
            message,
        )
    };

    // Pass 1: directives that set the mode.
    let mut d = Directives::default();
    for l in &lines {
        let s = split(l.text);
        let Some(body) = s.code.strip_prefix('.') else {
            continue;
        };
        let words: Vec<&str> = body
            .split(line::is_space)
            .filter(|w| !w.is_empty())
            .collect();
        let bad = |msg: &str| at(Severity::Error, l, s.code_at, s.code.len(), msg.to_string());
        let mut set_kind = |k: ShaderKind, errors: &mut Vec<Diagnostic>| match d.kind {
            Some((old, line)) if old != k => errors.push(bad(&format!(
                "program kind given twice: {old} on line {line}, {k} here"
            ))),
            _ => d.kind = Some((k, l.number)),
        };
        match words.first().copied() {
            Some("vertex") if words.len() == 1 => set_kind(ShaderKind::Vertex, &mut errors),
            Some("fragment") if words.len() == 1 => set_kind(ShaderKind::Fragment, &mut errors),
            Some("version") => match words.get(1).and_then(|w| integer(w, u64::from(u32::MAX))) {
                Some(v) if words.len() == 2 => match d.version {
                    Some((old, line)) if old != v as u32 => errors.push(bad(&format!(
                        "version given twice: {old} on line {line}, {v} here"
                    ))),
                    _ => d.version = Some((v as u32, l.number)),
                },
                _ => errors.push(bad(".version takes one integer (0 to 4294967295)")),
            },
            Some("ignorelimits") if words.len() == 1 => d.ignore_limits = true,
            Some("header") => {
                if words.len() == 2 && words[1] == "none" {
                    d.header = Some(None);
                } else {
                    let maxes = [0xFF, u64::from(u32::MAX), 0xFF, 0xFF];
                    let vals: Option<Vec<u64>> = words[1..]
                        .iter()
                        .zip(maxes)
                        .map(|(w, m)| integer(w, m))
                        .collect();
                    match vals {
                        Some(v) if words.len() == 5 => {
                            d.header = Some(Some(Header {
                                magic: v[0] as u8,
                                version: v[1] as u32,
                                tag: v[2] as u8,
                                kind: v[3] as u8,
                            }))
                        }
                        _ => errors.push(bad(
                            ".header takes `none` or four integers: magic (byte), version (u32), tag (byte), kind (byte)",
                        )),
                    }
                }
            }
            Some("bytes") => {}
            _ => errors.push(bad(
                "unknown directive: .vertex, .fragment, .version N, .ignorelimits, .header … or .bytes … expected",
            )),
        }
    }

    let header_kind = d.header.flatten().and_then(|h| h.shader_kind());
    let kind = match (options.kind, d.kind) {
        (Some(a), Some((b, line))) if a != b => {
            errors.push(Diagnostic::file_level(
                Severity::Error,
                file,
                format!("the program is assembled as {a}, but line {line} says .{b}"),
            ));
            a
        }
        (Some(a), _) => a,
        (None, Some((b, _))) => b,
        (None, None) => match header_kind {
            Some(k) => k,
            None => {
                errors.push(Diagnostic::file_level(
                    Severity::Error,
                    file,
                    "program kind unknown: add a `.vertex` or `.fragment` line (or pass the kind)"
                        .to_string(),
                ));
                ShaderKind::Vertex
            }
        },
    };
    let version = match (options.version, d.version) {
        (Some(a), Some((b, line))) if a != b => {
            errors.push(Diagnostic::file_level(
                Severity::Error,
                file,
                format!(
                    "the program is assembled as version {a}, but line {line} says .version {b}"
                ),
            ));
            a
        }
        (Some(a), _) => a,
        (None, Some((b, _))) => b,
        (None, None) => d.header.flatten().map_or(1, |h| h.version),
    };
    let mode = Mode {
        kind,
        version,
        ignore_limits: options.ignore_limits || d.ignore_limits,
    };

    // Pass 2: instructions, raw tokens and bytes, in order.
    let mut items = Vec::new();
    let mut carry = Carry::default();
    for l in &lines {
        let s = split(l.text);
        if let Some(body) = s.code.strip_prefix('.') {
            if let Some(rest) = body.strip_prefix("bytes") {
                let mut bytes = Vec::new();
                for w in rest.split(line::is_space).filter(|w| !w.is_empty()) {
                    match integer(w, 0xFF) {
                        Some(b) => bytes.push(b as u8),
                        None => errors.push(at(
                            Severity::Error,
                            l,
                            s.code_at,
                            s.code.len(),
                            format!(".bytes: `{w}` is not a byte (0 to 255, decimal or 0x hex)"),
                        )),
                    }
                }
                items.push(Item::Bytes(bytes));
            }
            // Options on a directive line still count for the helper.
            if let Some((t, _)) = s.options {
                carry.opts = Some(line::option_words(t));
            }
            continue;
        }
        if s.code.starts_with('!') {
            if let Some((t, _)) = s.options {
                carry.opts = Some(line::option_words(t));
            }
            match raw_token(s.code) {
                Ok(t) => items.push(Item::Token(t)),
                Err(msg) => errors.push(at(Severity::Error, l, s.code_at, s.code.len(), msg)),
            }
            continue;
        }
        let mut notes = Vec::new();
        match assemble_line(&s, &mode, &mut carry, &mut notes) {
            Ok(Outcome::Token(t)) => items.push(Item::Token(t)),
            Ok(Outcome::Skipped(true)) => warnings.push(at(
                Severity::Warning,
                l,
                s.code_at,
                s.code.len(),
                "line skipped: it does not start with a known mnemonic (AGALMiniAssembler skips it too)"
                    .to_string(),
            )),
            Ok(Outcome::Skipped(false)) => {}
            Err(LineError { at: a, len, message }) => {
                errors.push(at(Severity::Error, l, a, len, message))
            }
        }
        for n in notes {
            warnings.push(at(Severity::Warning, l, n.at, n.len, n.message));
        }
    }
    if !errors.is_empty() {
        errors.extend(warnings);
        return Err(errors);
    }
    let mut bytes = Vec::new();
    match d.header {
        Some(Some(h)) => bytes.extend_from_slice(&h.to_bytes()),
        Some(None) => {}
        None => bytes.extend_from_slice(&Header::new(kind, version).to_bytes()),
    }
    for item in items {
        match item {
            Item::Token(t) => bytes.extend_from_slice(&t.to_bytes()),
            Item::Bytes(b) => bytes.extend_from_slice(&b),
        }
    }
    Ok(Assembled {
        bytes,
        mode,
        warnings,
    })
}

/// `!OP !DEST !SRC1 !SRC2`.
fn raw_token(code: &str) -> Result<RawToken, String> {
    let words: Vec<&str> = code
        .split(line::is_space)
        .filter(|w| !w.is_empty())
        .collect();
    let usage = "a raw token is four integers `!OPCODE !DEST !SRC1 !SRC2` (u32, u32, u64, u64)";
    if words.len() != 4 {
        return Err(format!("{usage}; found {} words", words.len()));
    }
    let maxes = [u64::from(u32::MAX), u64::from(u32::MAX), u64::MAX, u64::MAX];
    let mut v = [0u64; 4];
    for (k, w) in words.iter().enumerate() {
        let w = w.strip_prefix('!').unwrap_or(w);
        v[k] = integer(w, maxes[k]).ok_or_else(|| format!("{usage}; `{w}` does not fit"))?;
    }
    Ok(RawToken {
        opcode: v[0] as u32,
        dest: v[1] as u32,
        src1: v[2],
        src2: v[3],
    })
}
