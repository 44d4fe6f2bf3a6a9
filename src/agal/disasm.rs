//! The disassembler: any byte string → text that the assembler ([`super::asm`]) turns back
//! into the same bytes. Each token is printed in AGALMiniAssembler syntax when that syntax can
//! express it exactly — the line is assembled on the spot and compared — and otherwise as a raw
//! token `!OP !DEST !SRC1 !SRC2` with the readable form, if any, in a comment. A header that is
//! not `A0 <version> A1 00|01` is written with `.header`, bytes after the last whole token with
//! `.bytes` (seed `004`'s round-trip conventions).
//!
//! Register names are the ones real sources use: `va vc vt op v iid vs` in vertex programs,
//! `fc ft v fs oc od` in fragment programs; swizzles are printed in their shortest form
//! (`xyzz` → `.xyz`, the helper repeats the last letter), masks only when not `.xyzw`, and
//! sampler flags in full (`<2d,linear,mipnone,clamp>`).

use std::fmt::Write as _;

use super::asm::{self, Mode, MAX_OPCODES};
use super::header::{Bytecode, ShaderKind};
use super::opcode::{AsmGate, Shape};
use super::reg::{RegType, Swizzle, WriteMask};
use super::sampling::{option_name, SPECIAL_SHIFT};
use super::token::{Dest, RawToken, SamplerField, Source, Src2, Token};

/// Disassembles any bytes.
pub fn disassemble(bytes: &[u8]) -> String {
    let code = Bytecode::split(bytes);
    let mut out = String::new();
    let (kind, version) = match code.header {
        Some(h) => {
            let kind = h.shader_kind();
            let _ = writeln!(
                out,
                "// AGAL {} program, version {}, {} token{}",
                kind.map_or("(unknown kind)", |k| k.name()),
                h.version,
                code.tokens.len(),
                if code.tokens.len() == 1 { "" } else { "s" }
            );
            if !h.is_well_formed() {
                let _ = writeln!(
                    out,
                    ".header 0x{:02x} {} 0x{:02x} 0x{:02x}",
                    h.magic, h.version, h.tag, h.kind
                );
            }
            (kind.unwrap_or(ShaderKind::Vertex), h.version)
        }
        None => {
            let _ = writeln!(
                out,
                "// {} bytes, too short for an AGAL header",
                bytes.len()
            );
            out.push_str(".header none\n");
            (ShaderKind::Vertex, 1)
        }
    };
    let _ = writeln!(out, ".{}", kind.name());
    let _ = writeln!(out, ".version {version}");
    // With `ignorelimits` every register number up to 1024 is accepted: use it when that makes
    // more tokens expressible.
    let plain = lines(&code.tokens, kind, version, false);
    let lenient = if plain.1 > 0 {
        Some(lines(&code.tokens, kind, version, true))
    } else {
        None
    };
    let body = match lenient {
        Some(l) if l.1 < plain.1 => {
            out.push_str(".ignorelimits\n");
            l.0
        }
        Some(_) | None => plain.0,
    };
    out.push_str(&body);
    if !code.tail.is_empty() {
        out.push_str(".bytes");
        for b in &code.tail {
            let _ = write!(out, " 0x{b:02x}");
        }
        out.push('\n');
    }
    out
}

/// The token lines and how many of them are raw.
fn lines(tokens: &[Token], kind: ShaderKind, version: u32, ignore_limits: bool) -> (String, usize) {
    let mode = Mode {
        kind,
        version,
        ignore_limits,
    };
    let mut out = String::new();
    let mut raw = 0;
    let mut expressed = 0;
    for t in tokens {
        let text = token_text(t, kind);
        let exact = text
            .as_deref()
            .filter(|line| expressed < MAX_OPCODES && assembles_to(line, &mode, t.encode()));
        match exact {
            Some(line) => {
                expressed += 1;
                out.push_str(line);
                out.push('\n');
            }
            None => {
                raw += 1;
                let r = t.encode();
                let _ = write!(
                    out,
                    "!0x{:08x} !0x{:08x} !0x{:016x} !0x{:016x}",
                    r.opcode, r.dest, r.src1, r.src2
                );
                match text {
                    Some(line) => {
                        let _ = writeln!(out, "  // not exactly expressible: {line}");
                    }
                    None => out.push('\n'),
                }
            }
        }
    }
    (out, raw)
}

/// True when `line` assembles, alone, to `want`.
fn assembles_to(line: &str, mode: &Mode, want: RawToken) -> bool {
    let options = asm::Options {
        kind: Some(mode.kind),
        version: Some(mode.version),
        ignore_limits: mode.ignore_limits,
    };
    match asm::assemble("", line, &options) {
        Ok(a) => a.bytes.get(7..) == Some(&want.to_bytes()[..]),
        Err(_) => false,
    }
}

/// The helper-syntax text of a token, when its opcode has a mnemonic (not checked for
/// exactness here).
pub fn token_text(t: &Token, kind: ShaderKind) -> Option<String> {
    let op = t.opcode()?;
    if op.asm_gate() == AsmGate::Absent {
        return None;
    }
    let mut parts: Vec<String> = Vec::new();
    let shape = op.shape();
    if shape.has_dest() {
        parts.push(dest_text(&t.dest, kind)?);
    }
    if shape.has_src1() {
        parts.push(source_text(&t.src1, kind)?);
    }
    let mut options = String::new();
    match (shape, t.src2) {
        (Shape::DestSrcSrc | Shape::SrcSrc, Src2::Source(s)) => parts.push(source_text(&s, kind)?),
        (Shape::DestSrcSampler, Src2::Sampler(f)) => {
            let (reg, opts) = sampler_text(&f, kind)?;
            parts.push(reg);
            options = opts;
        }
        (Shape::DestSrc | Shape::Src | Shape::None, _)
        | (Shape::DestSrcSrc | Shape::SrcSrc, Src2::Sampler(_))
        | (Shape::DestSrcSampler, Src2::Source(_)) => {}
    }
    let mut line = op.mnemonic().to_string();
    if !parts.is_empty() {
        line.push(' ');
        line.push_str(&parts.join(", "));
    }
    if !options.is_empty() {
        line.push(' ');
        line.push_str(&options);
    }
    Some(line)
}

/// `name` + number, with the output aliases printed without `0`.
fn reg_text(reg_type: u8, index: u16, kind: ShaderKind) -> Option<String> {
    let file = RegType::from_code(reg_type)?;
    let name = file.name(kind)?;
    Some(match (file, index) {
        (RegType::Output | RegType::DepthOutput, 0) => name.to_string(),
        _ => format!("{name}{index}"),
    })
}

fn dest_text(d: &Dest, kind: ShaderKind) -> Option<String> {
    let mut s = reg_text(d.reg_type, d.reg, kind)?;
    if d.mask != WriteMask::XYZW {
        s.push('.');
        s.push_str(&d.mask.letters());
    }
    Some(s)
}

fn swizzle_suffix(s: Swizzle) -> String {
    if s == Swizzle::IDENTITY {
        String::new()
    } else {
        format!(".{}", s.letters())
    }
}

fn source_text(s: &Source, kind: ShaderKind) -> Option<String> {
    if !s.indirect {
        let reg = reg_text(s.reg_type, s.reg, kind)?;
        return Some(format!("{reg}{}", swizzle_suffix(s.swizzle)));
    }
    let index = match RegType::from_code(s.index_type)? {
        RegType::Attribute => "va",
        RegType::Constant => "vc",
        RegType::Temporary => "vt",
        RegType::Output => "op",
        RegType::Varying => "v",
        RegType::Sampler => "vs",
        RegType::DepthOutput => "od",
        RegType::InstanceId => "iid",
    };
    let comp = ['x', 'y', 'z', 'w'][usize::from(s.index_comp)];
    let offset = if s.offset == 0 {
        String::new()
    } else {
        format!("+{}", s.offset)
    };
    Some(format!(
        "vc[{index}{}.{comp}{offset}]{}",
        s.reg,
        swizzle_suffix(s.swizzle)
    ))
}

/// The sampler register and its `<…>` options.
fn sampler_text(f: &SamplerField, kind: ShaderKind) -> Option<(String, String)> {
    let name = match kind {
        ShaderKind::Vertex => "vs",
        ShaderKind::Fragment => "fs",
    };
    let mut words = vec![
        option_name(12, u32::from(f.dim))?,
        option_name(28, u32::from(f.filter))?,
        option_name(24, u32::from(f.mip))?,
        option_name(20, u32::from(f.wrap))?,
    ];
    if f.format != 0 {
        words.push(option_name(8, u32::from(f.format))?);
    }
    for bit in 0..4 {
        if f.special & (1 << bit) != 0 {
            words.push(option_name(SPECIAL_SHIFT, 1 << bit)?);
        }
    }
    let mut text = words.join(",");
    if f.bias != 0 {
        let _ = write!(text, ",{}", f64::from(f.bias) / 8.0);
    }
    Some((format!("{name}{}", f.reg), format!("<{text}>")))
}
