//! The assembler, rule by rule: each expected encoding is derived by hand from the field
//! layouts (`token.rs`) and AGALMiniAssembler's reading of the text (`asm/line.rs`).

use crate::agal::asm::{assemble, Options};
use crate::agal::header::ShaderKind;
use crate::agal::token::{RawToken, TOKEN_BYTES};
use crate::asm::{Diagnostic, Severity};

fn opts(kind: ShaderKind, version: u32) -> Options {
    Options {
        kind: Some(kind),
        version: Some(version),
        ignore_limits: false,
    }
}

/// The tokens of a program that must assemble.
fn tokens_with(text: &str, o: &Options) -> Vec<RawToken> {
    let a = assemble("t.agal", text, o).unwrap_or_else(|e| panic!("{text:?}: {}", show(&e)));
    a.bytes[7..]
        .chunks_exact(TOKEN_BYTES)
        .map(|c| RawToken::from_bytes(c.try_into().unwrap()))
        .collect()
}

fn vtokens(text: &str) -> Vec<RawToken> {
    tokens_with(text, &opts(ShaderKind::Vertex, 1))
}

fn ftokens(text: &str) -> Vec<RawToken> {
    tokens_with(text, &opts(ShaderKind::Fragment, 1))
}

fn show(d: &[Diagnostic]) -> String {
    d.iter()
        .map(|d| d.headline())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The first error of a program that must fail.
fn error_with(text: &str, o: &Options) -> Diagnostic {
    let e = assemble("t.agal", text, o).expect_err(text);
    e.into_iter().find(Diagnostic::is_error).unwrap()
}

fn warnings(text: &str, o: &Options) -> Vec<String> {
    assemble("t.agal", text, o)
        .unwrap()
        .warnings
        .iter()
        .map(|w| w.message.clone())
        .collect()
}

/// A direct source field: register, swizzle, type.
fn src(reg: u64, swizzle: u64, ty: u64) -> u64 {
    reg | swizzle << 24 | ty << 32
}

/// A destination field: register, mask, type.
fn dst(reg: u32, mask: u32, ty: u32) -> u32 {
    reg | mask << 16 | ty << 24
}

#[test]
fn header_and_plain_move() {
    let a = assemble("t.agal", "mov op, va0", &opts(ShaderKind::Vertex, 1)).unwrap();
    // A0, version 1 LE, A1, 0; mov (0); dest op (type 3, mask F); src va0 (type 0, swizzle E4).
    let mut want = vec![0xA0, 1, 0, 0, 0, 0xA1, 0];
    want.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0x0F, 3, 0, 0, 0, 0xE4, 0, 0, 0, 0]);
    want.extend_from_slice(&[0; 8]);
    assert_eq!(a.bytes, want);
    let f = assemble("t.agal", "mov oc, v0", &opts(ShaderKind::Fragment, 3)).unwrap();
    assert_eq!(f.bytes[..7], [0xA0, 3, 0, 0, 0, 0xA1, 1]);
}

#[test]
fn operands_are_found_by_pattern_not_commas() {
    let want = vtokens("mul vt2, vc5.xy, vt0");
    assert_eq!(vtokens("mul vt2 vc5.xy, vt0"), want, "missing comma (nd2d)");
    assert_eq!(vtokens("mul vt2 vc5.xy vt0"), want);
    assert_eq!(
        vtokens("mulvt2,vc5.xy,vt0"),
        want,
        "no space after the mnemonic"
    );
    // `ft1,xy` (Genome2D's pixelate filter) reads as `ft1`, with a warning.
    let o = opts(ShaderKind::Fragment, 1);
    assert_eq!(
        tokens_with("mov ft0, ft1,xy", &o),
        tokens_with("mov ft0, ft1", &o)
    );
    assert!(warnings("mov ft0, ft1,xy", &o)
        .iter()
        .any(|w| w.contains("`xy`")));
    // `movx`: the mnemonic is the first three characters; `x` is not an operand.
    assert_eq!(ftokens("movx ft0, ft1"), ftokens("mov ft0, ft1"));
}

#[test]
fn swizzles_repeat_their_last_letter() {
    let t = vtokens("mov vt0, vc1.x\nmov vt0, vc1.xy\nmov vt0, vc1.xyz\nmov vt0, vc1.yx\nmov vt0, vc1.wzyx\nmov vt0, vc1");
    let swz: Vec<u64> = t.iter().map(|t| (t.src1 >> 24) & 0xFF).collect();
    // x=0 y=1 z=2 w=3, lane x in the low bits.
    assert_eq!(swz, [0x00, 0x54, 0xA4, 0x01, 0x1B, 0xE4]);
    assert_eq!(t[0].src1, src(1, 0x00, 1));
}

#[test]
fn write_masks_are_sets() {
    let t = ftokens("mov ft0.zx, fc0\nmov ft0.xx, fc0\nmov ft0.wzyx, fc0\nmov ft0, fc0");
    let masks: Vec<u32> = t.iter().map(|t| (t.dest >> 16) & 0xF).collect();
    assert_eq!(masks, [0b0101, 0b0001, 0b1111, 0b1111]);
}

#[test]
fn upper_case_components_are_ignored() {
    // The helper's component pattern is case-sensitive; the operand pattern is not.
    let o = opts(ShaderKind::Fragment, 1);
    assert_eq!(
        tokens_with("mov ft0.X, fc0.YY", &o),
        tokens_with("mov ft0, fc0", &o)
    );
    assert!(warnings("mov ft0.X, fc0", &o)[0].contains("upper-case"));
    // Mixed: the lower-case prefix counts (`.xY` is `.x`).
    assert_eq!(
        tokens_with("mov ft0, fc0.xY", &o),
        tokens_with("mov ft0, fc0.x", &o)
    );
}

#[test]
fn mnemonics_and_register_names_are_case_sensitive() {
    let o = opts(ShaderKind::Fragment, 1);
    let a = assemble("t.agal", "MOV oc, fc0\nmov oc, fc0", &o).unwrap();
    assert_eq!(a.bytes.len(), 7 + 24, "the upper-case line is skipped");
    assert!(a.warnings[0].message.contains("skipped"));
    assert_eq!(a.warnings[0].line, Some(1));
    let e = error_with("mov OC, fc0", &o);
    assert!(e.message.contains("unknown register name `OC`"), "{e}");
}

#[test]
fn relative_addressing() {
    let t = vtokens("mov vt0, vc[va0.x+5]\nmov vt1, vc[va1.y+6].xyz\nmov vt2, vc[vt3.w]\nmov vt2, vc[vc7.z+255]");
    // Number = the index register's, offset byte 16, type 1, index type byte 40, select and
    // bit 63 in the top 16 bits.
    assert_eq!(t[0].src1, 5 << 16 | 0xE4 << 24 | 1 << 32 | 0x8000 << 48);
    assert_eq!(t[1].src1, 1 | 6 << 16 | 0xA4 << 24 | 1 << 32 | 0x8001 << 48);
    assert_eq!(t[2].src1, 3 | 0xE4 << 24 | 1 << 32 | 2 << 40 | 0x8003 << 48);
    assert_eq!(
        t[3].src1,
        7 | 255 << 16 | 0xE4 << 24 | 1 << 32 | 1 << 40 | 0x8002 << 48
    );
    // Without an index number the helper takes the first digits inside the brackets.
    assert_eq!(vtokens("mov vt0, vc[va.x+5]")[0].src1 & 0xFFFF, 5);
    let v = opts(ShaderKind::Vertex, 1);
    assert!(error_with("mov vt0, vc[va0.x+256]", &v)
        .message
        .contains("out of bounds"));
    assert!(error_with("mov vt0, vc[va0+5]", &v)
        .message
        .contains("select"));
    assert!(error_with("mov vc[va0.x], vt0", &v)
        .message
        .contains("destination"));
    assert!(error_with("mov vt0, vc[vod0.x]", &v)
        .message
        .contains("bad index register `vod`"));
    let f = opts(ShaderKind::Fragment, 1);
    assert!(error_with("mov oc, vc[va0.x]", &f)
        .message
        .contains("vertex programs"));
    // `vc[va0.x+1234]` is no `vc[…]` match at all: `vc` and `va0.x` are two operands.
    let e = error_with("mov vt0, vc[va0.x+1234]", &v);
    assert!(e.message.contains("wrong number of operands"), "{e}");
}

#[test]
fn sampler_options() {
    let t = ftokens(
        "tex ft0, v0, fs0 <2d,linear,mipnone>\n\
         tex ft1, v0, fs1 <cube clamp linear miplinear>\n\
         tex ft2, v0, fs2 <2d,repeat,nearest,-0.5>\n\
         tex ft3, v0, fs3 <linear,nearest,wrap,centroid,single,dxt5,anisotropic8x>\n\
         tex ft4, v0, fs4 <ignoresampler,3d,clamp_u_repeat_v,mipnearest,16>",
    );
    let hi = |t: &RawToken| t.src2 >> 32;
    // Upper word: type 5 | format << 8 | dim << 12 | special << 16 | wrap << 20 | mip << 24 |
    // filter << 28.
    assert_eq!(hi(&t[0]), 5 | 1 << 28);
    assert_eq!(hi(&t[1]), 5 | 1 << 12 | 2 << 24 | 1 << 28);
    assert_eq!(hi(&t[2]), 5 | 1 << 20);
    assert_eq!((t[2].src2 >> 16) & 0xFF, 0xFC, "bias -0.5 = -4 eighths");
    assert_eq!(
        hi(&t[3]),
        5 | 2 << 8 | 3 << 16 | 1 << 20 | 4 << 28,
        "last filter word wins"
    );
    assert_eq!(hi(&t[4]), 5 | 2 << 12 | 4 << 16 | 2 << 20 | 1 << 24);
    assert_eq!(
        (t[4].src2 >> 16) & 0xFF,
        128,
        "bias 16 → 128, written as a byte"
    );
    assert_eq!(t[4].src2 & 0xFFFF, 4);
    let o = opts(ShaderKind::Fragment, 1);
    // Option words are case-sensitive: `LINEAR` is a NaN bias (0), not the filter.
    assert_eq!(
        tokens_with("tex ft0, v0, fs0 <LINEAR>", &o)[0].src2 >> 32,
        5
    );
    assert!(warnings("tex ft0, v0, fs0 <LINEAR>", &o)[0].contains("NaN"));
    assert!(error_with("tex ft0, v0, fs0 <toString>", &o)
        .message
        .contains("Object"));
}

#[test]
fn sampler_options_are_remembered_across_lines() {
    let o = opts(ShaderKind::Fragment, 1);
    let text = "mov ft0, v0 <linear,repeat>\ntex ft1, v0, fs0\n";
    let t = tokens_with(text, &o);
    assert_eq!(
        t[1].src2 >> 32,
        5 | 1 << 20 | 1 << 28,
        "options of the line before"
    );
    assert!(warnings(text, &o)
        .iter()
        .any(|w| w.contains("earlier line")));
    // Even from a line that is not an instruction.
    let t = tokens_with("not code <cube>\ntex ft1, v0, fs0", &o);
    assert_eq!(t[0].src2 >> 32, 5 | 1 << 12);
    // A later `<…>` replaces them.
    let t = tokens_with(
        "tex ft0, v0, fs0 <linear>\ntex ft1, v0, fs0 <nearest>\ntex ft1, v0, fs0",
        &o,
    );
    assert_eq!(t[2].src2 >> 32, 5);
}

#[test]
fn version_and_stage_gates() {
    let f1 = opts(ShaderKind::Fragment, 1);
    assert!(error_with("ddx ft0, v0", &f1)
        .message
        .contains("requires version 2"));
    assert!(error_with("ddx ft0, v0", &opts(ShaderKind::Vertex, 2))
        .message
        .contains("fragment programs"));
    assert!(error_with("kil ft0.x", &opts(ShaderKind::Vertex, 1))
        .message
        .contains("fragment programs"));
    assert!(error_with("tld ft0, v0, fs0 <2d>", &f1)
        .message
        .contains("vertex programs"));
    // The helper does not gate tld on version 4 (the validator does).
    assert_eq!(vtokens("tld vt0, va0, vs0 <2d>")[0].opcode, 0x2E);
    // ted is not in the helper's table: the line is skipped.
    let a = assemble(
        "t.agal",
        "ted ft0, v0, fs0 <2d>",
        &opts(ShaderKind::Fragment, 2),
    )
    .unwrap();
    assert_eq!(a.bytes.len(), 7);
    // Register names per program kind.
    assert!(error_with("mov op, fc0", &opts(ShaderKind::Vertex, 1))
        .message
        .contains("fragment programs"));
    assert!(error_with("mov oc, va0", &f1)
        .message
        .contains("vertex programs"));
}

#[test]
fn register_numbers() {
    let v1 = opts(ShaderKind::Vertex, 1);
    assert_eq!(tokens_with("mov vt0, vc127", &v1)[0].src1 & 0xFFFF, 127);
    assert!(error_with("mov vt0, vc128", &v1)
        .message
        .contains("limit of 128"));
    assert_eq!(
        tokens_with("mov vt0, vc249", &opts(ShaderKind::Vertex, 2))[0].src1 & 0xFFFF,
        249
    );
    assert!(error_with("mov vt8, vc0", &v1)
        .message
        .contains("limit of 8"));
    let lenient = Options {
        ignore_limits: true,
        ..v1
    };
    assert_eq!(
        tokens_with("mov vt0, vc1024", &lenient)[0].src1 & 0xFFFF,
        1024
    );
    assert!(error_with("mov vt0, vc1025", &lenient)
        .message
        .contains("limit of 1025"));
    // uint() of the digits: 2^32 wraps to 0.
    assert_eq!(
        tokens_with("mov vt0, vc4294967296", &v1)[0].src1 & 0xFFFF,
        0
    );
    assert_eq!(
        tokens_with("mov vt0, vc4294967303", &v1)[0].src1 & 0xFFFF,
        7
    );
    // `fd` under version 1 has the limit -1 as unsigned: anything passes, 16 bits are written.
    let f = opts(ShaderKind::Fragment, 1);
    assert_eq!(
        tokens_with("mov od99999, fc0", &f)[0].dest,
        dst(99999 & 0xFFFF, 0xF, 6)
    );
    assert!(error_with("mov od1, fc0", &opts(ShaderKind::Fragment, 2))
        .message
        .contains("limit of 1"));
    // No number means 0.
    assert_eq!(tokens_with("mov ft0, fc", &f)[0].src1, src(0, 0xE4, 1));
}

#[test]
fn aliases_and_codes() {
    let v =
        vtokens("mov op, va0\nmov vo, va1\nmov v1, vc0\nmov i2, vc0\nmov fi3, vc0\nmov vi4, vc0");
    let dests: Vec<u32> = v.iter().map(|t| t.dest).collect();
    assert_eq!(
        dests,
        [
            dst(0, 15, 3),
            dst(0, 15, 3),
            dst(1, 15, 4),
            dst(2, 15, 4),
            dst(3, 15, 4),
            dst(4, 15, 4)
        ]
    );
    let f = tokens_with(
        "mov oc1, fc0\nmov fo2, fc0\nmov od, fc0.x\nmov ft0, fs3",
        &opts(ShaderKind::Fragment, 2),
    );
    let dests: Vec<u32> = f.iter().map(|t| t.dest).collect();
    assert_eq!(
        dests,
        [dst(1, 15, 3), dst(2, 15, 3), dst(0, 15, 6), dst(0, 15, 2)]
    );
    assert_eq!(
        f[3].src1,
        src(3, 0xE4, 5),
        "a sampler as a plain source keeps type 5"
    );
    let v3 = tokens_with("mov vt0, iid", &opts(ShaderKind::Vertex, 3));
    assert_eq!(v3[0].src1, src(0, 0xE4, 7));
}

#[test]
fn opcodes_without_destination() {
    let f = tokens_with(
        "kil ft0.x\nife ft0.x, fc0.y\nels\neif",
        &opts(ShaderKind::Fragment, 2),
    );
    assert_eq!(
        f[0],
        RawToken {
            opcode: 0x27,
            dest: 0,
            src1: src(0, 0x00, 2),
            src2: 0
        }
    );
    assert_eq!(
        f[1],
        RawToken {
            opcode: 0x1C,
            dest: 0,
            src1: src(0, 0x00, 2),
            src2: src(0, 0x55, 1)
        }
    );
    assert_eq!(
        f[2],
        RawToken {
            opcode: 0x20,
            ..RawToken::default()
        }
    );
    assert_eq!(
        f[3],
        RawToken {
            opcode: 0x21,
            ..RawToken::default()
        }
    );
}

#[test]
fn operand_counts() {
    let f = opts(ShaderKind::Fragment, 2);
    assert!(error_with("mov ft0", &f)
        .message
        .contains("found 1 but expected 2"));
    assert!(error_with("add ft0, fc0", &f)
        .message
        .contains("found 2 but expected 3"));
    assert!(error_with("els ft0", &f)
        .message
        .contains("found 1 but expected 0"));
    assert!(error_with("kil", &f)
        .message
        .contains("found 0 but expected 1"));
}

#[test]
fn comments_lines_and_white_space() {
    let want = ftokens("mov ft0, fc0\nmov oc, ft0");
    assert_eq!(
        ftokens("  mov ft0, fc0 // mov ft1, fc1\r\n\r\n\tmov oc, ft0   "),
        want
    );
    assert_eq!(
        ftokens("mov ft0, fc0\x0cmov oc, ft0"),
        want,
        "form feed breaks lines too"
    );
    assert_eq!(
        ftokens("// only a comment\nmov ft0, fc0\n\nmov oc, ft0\n"),
        want
    );
}

#[test]
fn opcode_limit() {
    let text = "mov vt0, vc0\n".repeat(4097);
    let e = error_with(&text, &opts(ShaderKind::Vertex, 1));
    assert_eq!(e.line, Some(4097));
    assert!(e.message.contains("4096"));
    assert_eq!(vtokens(&"mov vt0, vc0\n".repeat(4096)).len(), 4096);
}

#[test]
fn diagnostics_name_file_line_and_column() {
    // `vq1` reads as `v` (the pattern stops at `q`; `q1` is skipped): varying 0.
    let o = opts(ShaderKind::Fragment, 1);
    assert_eq!(
        tokens_with("mov ft0, vq1", &o),
        tokens_with("mov ft0, v0", &o)
    );
    let e = error_with(
        "mov ft0, fc0\n  add ft0, fc99, fc0\n",
        &opts(ShaderKind::Fragment, 1),
    );
    assert_eq!(
        e.headline(),
        "t.agal:2:12: error: register operand 1 (fc99): index exceeds the limit of 28"
    );
    assert_eq!(e.severity, Severity::Error);
    let shown = e.to_string();
    assert!(
        shown.ends_with("add ft0, fc99, fc0\n               ^~~~"),
        "{shown}"
    );
}

#[test]
fn directives_and_raw_tokens() {
    let a = assemble(
        "t.agal",
        ".fragment\n.version 2\n!0x27 0 !0x0000000200000000 0\nmov oc, fc0\n.bytes 1 0x02\n",
        &Options::default(),
    )
    .unwrap();
    assert_eq!(a.bytes[..7], [0xA0, 2, 0, 0, 0, 0xA1, 1]);
    assert_eq!(
        RawToken::from_bytes(a.bytes[7..31].try_into().unwrap()).src1,
        2 << 32
    );
    assert_eq!(a.bytes[a.bytes.len() - 2..], [1, 2]);
    assert_eq!(a.bytes.len(), 7 + 48 + 2);
    let h = assemble(
        "t",
        ".vertex\n.header 0xff 7 0xa1 9\n.bytes 5",
        &Options::default(),
    )
    .unwrap();
    assert_eq!(h.bytes, [0xFF, 7, 0, 0, 0, 0xA1, 9, 5]);
    let n = assemble(
        "t",
        ".vertex\n.header none\n.bytes 5 6",
        &Options::default(),
    )
    .unwrap();
    assert_eq!(n.bytes, [5, 6]);
    // Errors: kind missing, conflicting settings, bad raw tokens and directives.
    assert!(error_with("mov op, va0", &Options::default())
        .message
        .contains("kind unknown"));
    let v = opts(ShaderKind::Vertex, 1);
    assert!(error_with(".fragment\nmov oc, fc0", &v)
        .message
        .contains("line 1 says .fragment"));
    assert!(error_with(".version 2\nmov op, va0", &v)
        .message
        .contains(".version 2"));
    assert!(error_with("!1 2 3", &v).message.contains("four integers"));
    assert!(error_with("!0x100000000 0 0 0", &v)
        .message
        .contains("does not fit"));
    assert!(error_with(".bytes 256", &v).message.contains("not a byte"));
    assert!(error_with(".frobnicate", &v)
        .message
        .contains("unknown directive"));
}
