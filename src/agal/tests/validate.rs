//! The validator: every rejection with its Flash error number and token, the messages Flash
//! printed in Ruffle's `stage3d_agal_upload_errors` test, and real-content patterns that must
//! pass.

use crate::agal::asm::{assemble, Options as AsmOptions};
use crate::agal::header::ShaderKind;
use crate::agal::validate::{validate, validate_pair, Options};
use crate::agal::{Program, ValidationError};

/// Assembles `text` (kind and version from its directives, limits ignored so out-of-range
/// numbers can be written) and validates the bytes.
fn run(text: &str) -> Result<Program, ValidationError> {
    let o = AsmOptions {
        ignore_limits: true,
        ..AsmOptions::default()
    };
    let a = assemble("t.agal", text, &o).unwrap_or_else(|e| {
        panic!(
            "{text}: {}",
            e.iter()
                .map(|d| d.headline())
                .collect::<Vec<_>>()
                .join("; ")
        )
    });
    validate(&a.bytes, &Options::default())
}

/// Expects error `number` at `token` (1-based; `None` for whole-program errors).
#[track_caller]
fn rejects(text: &str, number: u32, token: Option<usize>) -> ValidationError {
    let e = run(text).expect_err(text);
    assert_eq!((e.number(), e.token), (number, token), "{text}\n{e}");
    e
}

#[track_caller]
fn accepts(text: &str) -> Program {
    run(text).unwrap_or_else(|e| panic!("{text}\n{e}"))
}

const V1: &str = ".vertex\n.version 1\n";
const V2: &str = ".vertex\n.version 2\n";
const F1: &str = ".fragment\n.version 1\n";
const F2: &str = ".fragment\n.version 2\n";

fn v1(body: &str) -> String {
    format!("{V1}{body}")
}
fn v2(body: &str) -> String {
    format!("{V2}{body}")
}
fn f1(body: &str) -> String {
    format!("{F1}{body}")
}
fn f2(body: &str) -> String {
    format!("{F2}{body}")
}

/// A raw token line: opcode, destination, source 1, source 2.
fn raw(op: u32, dest: u32, src1: u64, src2: u64) -> String {
    format!("!{op:#x} {dest:#x} {src1:#x} {src2:#x}\n")
}

/// Direct source field.
fn src(reg: u64, ty: u64) -> u64 {
    reg | 0xE4 << 24 | ty << 32
}

#[test]
fn header_checks_in_flash_order() {
    let e = validate(&[], &Options::default()).unwrap_err();
    assert_eq!((e.number(), e.kind), (3615, None));
    assert_eq!(
        e.to_string(),
        "Error #3615: AGAL validation failed: Program size below minimum length for  program."
    );
    let frag = Options {
        kind: Some(ShaderKind::Fragment),
        max_version: 4,
    };
    // Ruffle's test: two bytes, and a bad magic, are "not little endian".
    assert_eq!(validate(&[0xA0, 0x01], &frag).unwrap_err().number(), 3612);
    let mut bad_magic = vec![0xFF];
    bad_magic.extend_from_slice(&[0; 30]);
    let e = validate(&bad_magic, &frag).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Error #3612: Programs must be in little endian format."
    );
    // A header alone is below the minimum length, before its version or kind is looked at.
    let e = validate(&[0xA0, 99, 0, 0, 0, 0xA1, 1], &frag).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Error #3615: AGAL validation failed: Program size below minimum length for fragment program."
    );
    assert_eq!(
        validate(&[0xA0, 1, 0, 0, 0, 0xA1, 2], &frag)
            .unwrap_err()
            .number(),
        3615
    );
    let token = raw(0, 0x030F_0000, src(0, 1), 0);
    rejects(
        &format!(".fragment\n.header 0xa0 5 0xa1 1\n{token}"),
        3617,
        None,
    );
    rejects(
        &format!(".fragment\n.header 0xa0 0 0xa1 1\n{token}"),
        3617,
        None,
    );
    rejects(
        &format!(".fragment\n.header 0xa0 1 0xa2 1\n{token}"),
        3618,
        None,
    );
    rejects(
        &format!(".fragment\n.header 0xa0 1 0xa1 2\n{token}"),
        3619,
        None,
    );
    // A fragment program uploaded as a vertex program.
    let a = assemble("t", &f1("mov oc, fc0"), &AsmOptions::default()).unwrap();
    let as_vertex = Options {
        kind: Some(ShaderKind::Vertex),
        max_version: 4,
    };
    assert_eq!(validate(&a.bytes, &as_vertex).unwrap_err().number(), 3619);
    // The profile's maximum version.
    let v2 = assemble("t", &f2("mov oc, fc0"), &AsmOptions::default()).unwrap();
    let baseline = Options {
        kind: None,
        max_version: 1,
    };
    assert_eq!(validate(&v2.bytes, &baseline).unwrap_err().number(), 3725);
    // Bytes after the last whole token are ignored.
    let mut tail = a.bytes.clone();
    tail.extend_from_slice(&[1, 2, 3]);
    assert_eq!(
        validate(&tail, &Options::default())
            .unwrap()
            .instructions
            .len(),
        1
    );
}

#[test]
fn token_limits() {
    rejects(
        &f1(&format!("{}mov oc, ft0", "mov ft0, fc0\n".repeat(200))),
        3629,
        None,
    );
    accepts(&f1(&format!("{}mov oc, ft0", "mov ft0, fc0\n".repeat(199))));
    accepts(&f2(&format!(
        "{}mov oc, ft0",
        "mov ft0, fc0\n".repeat(1023)
    )));
}

#[test]
fn opcode_checks() {
    let e = rejects(&f1(&raw(0xFF, 0, 0, 0)), 3620, Some(1));
    assert_eq!(
        e.to_string(),
        "Error #3620: AGAL validation failed: Invalid opcode, value out of range: 255 at token 1 of fragment program."
    );
    rejects(
        &f1(&format!("mov ft0, fc0\n{}", raw(0x23, 0, 0, 0))),
        3621,
        Some(2),
    );
    rejects(
        &f2(&raw(0x26, 0x020F_0000, src(0, 4), 5 << 32)),
        3621,
        Some(1),
    );
    rejects(
        ".fragment\n.header 0xa0 1 0xa1 0\nkil fc0.x\n",
        3622,
        Some(1),
    );
    rejects(
        ".vertex\n.header 0xa0 4 0xa1 1\n.version 4\ntld vt0, va0, vs0 <2d>\n",
        3803,
        Some(1),
    );
    rejects(
        ".fragment\n.version 2\n.header 0xa0 1 0xa1 1\nddx ft0, v0\n",
        3726,
        Some(1),
    );
    rejects(&v2("tld vt0, va0, vs0 <2d>\nmov op, vt0"), 3805, Some(1));
    // sgn is accepted (it is in every AGALMiniAssembler).
    accepts(&v1("sgn vt0, va0\nmov op, vt0"));
}

#[test]
fn unused_fields() {
    rejects(
        &f1(&raw(0x27, 0x0201_0000, src(0, 1) & !(0xFF << 24), 0)),
        3627,
        Some(1),
    );
    rejects(&f1(&raw(0x00, 0x030F_0000, src(0, 1), 1)), 3636, Some(1));
    rejects(
        &f2(&format!(
            "ife v0.x, fc1.x\nmov ft0, fc0\n{}eif\nmov oc, ft0",
            raw(0x20, 0, 1, 0)
        )),
        3636,
        Some(3),
    );
}

#[test]
fn destination_checks() {
    rejects(
        &f1(&raw(0, 0x030F_0000 | 1 << 20, src(0, 1), 0)),
        3654,
        Some(1),
    );
    rejects(&f1(&raw(0, 0x090F_0000, src(0, 1), 0)), 3655, Some(1));
    rejects(&f1(&raw(0, 0x0300_0000, src(0, 1), 0)), 3653, Some(1));
    // Ruffle's test, with the messages real Flash printed.
    let e = rejects(&f1("mov fc0, fc0"), 3652, Some(1));
    assert_eq!(
        e.to_string(),
        "Error #3652: AGAL validation failed: Constant registers can not be written to for destination operand at token 1 of fragment program."
    );
    rejects(&v1("mov va0, vc0"), 3651, Some(1));
    rejects(&f1("mov fs0, fc0"), 3649, Some(1));
    let e = rejects(&f1("mov od, fc0"), 3749, Some(1));
    assert!(e
        .to_string()
        .contains("Depth output register index out of bounds for destination operand"));
    rejects(&f2("mov v0, fc0"), 3650, Some(1));
    rejects(&v1(&raw(0, 0x070F_0000, src(0, 1), 0)), 3786, Some(1));
    rejects(&v2(&raw(0, 0x0601_0000, src(0, 1), 0)), 3750, Some(1));
    rejects(&f2("mov od.xy, fc0"), 3756, Some(1));
    accepts(&f2("mov od.x, fc0\nmov oc, fc0"));
    rejects(&v1("mov vt8, vc0"), 3661, Some(1));
    rejects(&f1("mov oc1, fc0\nmov oc, fc0"), 3660, Some(1));
    rejects(&v1("mov v8, vc0\nmov op, vc0"), 3657, Some(1));
    rejects(&f1("mov oc.xyz, fc0"), 3701, Some(1));
    rejects(&f1("mov oc, fc0\nmov oc, fc1"), 3744, Some(2));
}

#[test]
fn source_checks() {
    rejects(
        &f1(&raw(0, 0x030F_0000, src(0, 1) | 1 << 36, 0)),
        3654,
        Some(1),
    );
    rejects(&f1(&raw(0, 0x030F_0000, src(0, 9), 0)), 3655, Some(1));
    let e = rejects(&f1("mov ft0, oc\nmov oc, fc0"), 3646, Some(1));
    assert_eq!(
        e.to_string(),
        "Error #3646: AGAL validation failed: Can not read from output register for source operand 1 at token 1 of fragment program."
    );
    let e = rejects(&f1("mov ft0, fs0\nmov oc, fc0"), 3638, Some(1));
    assert!(e
        .to_string()
        .contains("only allowed as second operand in texture instructions for source operand 1"));
    rejects(&v1("mov vt0, vs0\nmov op, vt0"), 3637, Some(1));
    rejects(&f1("mov ft0, od\nmov oc, fc0"), 3749, Some(1));
    rejects(&v1("mov vt0, v0\nmov op, vt0"), 3644, Some(1));
    rejects(&f1(&raw(0, 0x030F_0000, src(0, 0), 0)), 3645, Some(1));
    rejects(&f1(&raw(0, 0x030F_0000, src(0, 7), 0)), 3788, Some(1));
    rejects(&v2("mov op, iid"), 3789, Some(1));
    accepts(".vertex\n.version 3\nmul op, va0, iid.x");
    rejects(
        &v1(&raw(0, 0x030F_0000, src(0, 1) | 1 << 16, 0)),
        3643,
        Some(1),
    );
    rejects(
        &v1(&raw(0, 0x030F_0000, src(0, 1) | 2 << 40, 0)),
        3643,
        Some(1),
    );
    // Ranges, including every row of a matrix operand.
    rejects(&v1("mov op, vc128"), 3659, Some(1));
    rejects(&v1("m44 op, va0, vc125"), 3659, Some(1));
    accepts(&v1("m44 op, va0, vc124"));
    rejects(&v1("mov op, va8"), 3658, Some(1));
    rejects(&f1("mov oc, v8"), 3657, Some(1));
    rejects(&f1("mov oc, fc28"), 3659, Some(1));
    accepts(&f2("mov oc, fc63"));
}

#[test]
fn temporaries_are_written_before_read() {
    rejects(&f1("mov oc, ft0"), 3647, Some(1));
    rejects(&f1("mov ft0.x, fc0\nmov oc, ft0"), 3648, Some(2));
    // Only the components the instruction uses count.
    accepts(&f1(
        "mov ft0.x, fc0\nmov ft1.y, ft0.x\nmov ft1.xzw, fc0\nmov oc, ft1",
    ));
    rejects(
        &f1("mov ft0.x, fc0\nmov ft1.y, ft0\nmov ft1.xzw, fc0\nmov oc, ft1"),
        3648,
        Some(2),
    );
    accepts(&f1("mov ft0.xy, fc0\nmov ft1, ft0.xyyy\nmov oc, ft1"));
    rejects(
        &f1("mov ft0.xy, fc0\ndp3 ft1, ft0, fc0\nmov oc, ft1"),
        3648,
        Some(2),
    );
    accepts(&f1("mov ft0.xyz, fc0\ndp3 ft1, ft0, fc0\nmov oc, ft1"));
    rejects(
        &f1("mov ft0.xyz, fc0\ndp4 ft1, ft0, fc0\nmov oc, ft1"),
        3648,
        Some(2),
    );
    // Matrix rows over temporaries are checked row by row.
    rejects(
        &v1("mov vt0, vc0\nm33 vt1.xyz, va0, vt0\nmov op, vc0"),
        3647,
        Some(2),
    );
    // Sources are read before the destination is written.
    rejects(&f1("add ft0, ft0, fc0\nmov oc, ft0"), 3647, Some(1));
    accepts(&f1("mov ft0, fc0\nadd ft0, ft0, fc0\nmov oc, ft0"));
    // The index register of an indirect read is read too.
    rejects(&v1("mov op, vc[vt0.x+1]"), 3647, Some(1));
}

#[test]
fn indirect_addressing() {
    let ind = |ty: u64, index_type: u64| src(0, ty) | index_type << 40 | 1 << 63;
    let e = rejects(&f1(&raw(0, 0x030F_0000, ind(2, 1), 0)), 3639, Some(1));
    assert!(e
        .to_string()
        .contains("Indirect addressing only allowed in vertex programs for source operand 1"));
    let e = rejects(&v1(&raw(0, 0x030F_0000, ind(2, 0), 0)), 3640, Some(1));
    assert!(e
        .to_string()
        .contains("only allowed into constant registers"));
    accepts(&v1(&raw(0, 0x030F_0000, ind(1, 0), 0)));
    rejects(&v1("mov op, vc[v0.x]"), 3642, Some(1));
    rejects(&v1("add op, vc[va0.x], vc[va1.x]"), 3626, Some(1));
    rejects(&v1("add op, vc[va0.x], vc0"), 3625, Some(1));
    rejects(&f1("add oc, fc0, fc1"), 3625, Some(1));
    // nd2d: m44 with an indirect matrix; Genome2D: a computed temporary as the index.
    accepts(&v1("m44 op, va0, vc[va2.x]"));
    accepts(&v1("mov vt1, va1\nmov vt1, vc[vt1.x]\nmov op, vt1"));
}

#[test]
fn sampler_checks() {
    let tex = |flags: &str| f1(&format!("tex ft0, v0, fs0 <{flags}>\nmov oc, ft0"));
    accepts(&tex("2d,linear,mipnone,repeat"));
    accepts(&tex("cube,clamp,linear,mipnone"));
    rejects(&tex("cube,repeat"), 3662, Some(1));
    rejects(&tex("3d"), 3664, Some(1));
    // Fields the assembler cannot write.
    let t = |hi: u64| {
        f1(&format!(
            "{}mov oc, ft0",
            raw(0x28, 0x020F_0000, src(0, 4), 5 << 32 | hi << 32)
        ))
    };
    rejects(&t(6 << 28), 3665, Some(1));
    rejects(&t(3 << 24), 3666, Some(1));
    rejects(&t(4 << 20), 3667, Some(1));
    rejects(&t(8 << 16), 3668, Some(1));
    rejects(&t(4 << 8), 3654, Some(1));
    rejects(
        &f1(&format!(
            "{}mov oc, ft0",
            raw(0x28, 0x020F_0000, src(0, 4), 1 << 32)
        )),
        3693,
        Some(1),
    );
    rejects(&f1("tex ft0, v0, fs8 <2d>\nmov oc, ft0"), 3656, Some(1));
    accepts(&f2("tex ft0, v0, fs15 <2d>\nmov oc, ft0"));
    // Ruffle's test: one sampler with two sets of flags, reported at the second use.
    let e = rejects(
        &f1("tex ft0, v0, fs0 <2d,repeat,linear,mipnone>\ntex ft1, v0, fs0 <2d,repeat,linear,mipnearest>\nadd oc, ft0, ft1"),
        3696,
        Some(2),
    );
    assert_eq!(
        e.to_string(),
        "Error #3696: AGAL validation failed: Second use of sampler register needs to specify the exact same properties. At token 2 of fragment program."
    );
    accepts(&f1(
        "tex ft0, v0, fs0 <2d,linear>\ntex ft1, v1, fs0 <2d,linear>\nadd oc, ft0, ft1",
    ));
    // Vertex texture fetch (AGAL 4).
    let v4 = |body: &str| format!(".vertex\n.version 4\n{body}\nmov op, vt0");
    accepts(&v4("tld vt0, va0, vs3 <2d,linear>"));
    rejects(&v4("tld vt0, va0, vs0 <2d,anisotropic4x>"), 3804, Some(1));
}

#[test]
fn opcode_rules() {
    rejects(&f1("nrm ft0, fc0\nmov oc, ft0"), 3628, Some(1));
    rejects(
        &f1("mov ft0, fc0\ncrs ft1.xyzw, ft0, fc0\nmov oc, ft1"),
        3628,
        Some(2),
    );
    rejects(&v1("m33 vt0, va0, vc0\nmov op, vt0"), 3628, Some(1));
    accepts(&v1("m34 vt0.xyz, va0, vc0\nmov vt0.w, va0\nmov op, vt0"));
    rejects(&v1("m44 op, va0, vc0.x"), 3689, Some(1));
    rejects(&f1("mov ft0, fc0\nkil ft0.xy\nmov oc, ft0"), 3703, Some(2));
    accepts(&f1("mov ft0, fc0\nkil ft0.w\nmov oc, ft0"));
    rejects(
        &f2("ife v0.xy, fc1.x\nmov ft0, fc0\neif\nmov oc, fc0"),
        3703,
        Some(1),
    );
    rejects(
        &f2("ife v0.x, fc1\nmov ft0, fc0\neif\nmov oc, fc0"),
        3703,
        Some(1),
    );
    // Two constants are refused before the swizzles are looked at.
    rejects(
        &f2("ife fc0.x, fc1.x\nmov ft0, fc0\neif\nmov oc, fc0"),
        3625,
        Some(1),
    );
    rejects(
        &f2("mov ft0, fc0\nife ft0.x, ft0.x\nmov ft0, fc0\neif\nmov oc, ft0"),
        3758,
        Some(2),
    );
}

#[test]
fn conditional_blocks() {
    let blk = |body: &str| f2(&format!("mov ft0, fc0\n{body}\nmov oc, ft0"));
    accepts(&blk(
        "ife ft0.x, fc1.x\nmov ft0, fc2\nels\nmov ft0, fc3\neif",
    ));
    rejects(&blk("eif"), 3623, Some(2));
    rejects(&blk("els"), 3623, Some(2));
    rejects(
        &f2("mov oc, fc0\nife v0.x, fc1.x\nmov ft0, fc2"),
        3739,
        None,
    );
    rejects(
        &blk("ife ft0.x, fc1.x\nels\nmov ft0, fc3\neif"),
        3748,
        Some(3),
    );
    rejects(
        &blk("ife ft0.x, fc1.x\nmov ft0, fc2\neif\nife ft0.x, fc1.x\neif"),
        3748,
        Some(6),
    );
    rejects(
        &blk("ife ft0.x, fc1.x\nmov ft0, fc2\nels\nmov ft0, fc2\nels\nmov ft0, fc2\neif"),
        3752,
        Some(6),
    );
    let nest = |n: usize| {
        let mut b = String::new();
        for _ in 0..n {
            b.push_str("ifg ft0.x, fc1.x\n");
        }
        b.push_str("mov ft0, fc2\n");
        for _ in 0..n {
            b.push_str("eif\n");
        }
        blk(&b)
    };
    accepts(&nest(4));
    rejects(&nest(5), 3624, Some(6));
    rejects(&blk("ife ft0.x, fc1.x\nmov oc, fc2\neif"), 3751, Some(3));
    rejects(&blk("ife ft0.x, fc1.x\nddx ft0, v0\neif"), 3742, Some(3));
    rejects(
        &blk("ife ft0.x, fc1.x\ntex ft0, ft0, fs0 <2d>\neif"),
        3741,
        Some(3),
    );
    // Starling's multi-texture style: tex with an interpolated coordinate inside a block.
    accepts(&blk("ifl v2.x, fc0.x\ntex ft0, v0, fs0 <2d,linear>\neif"));
}

#[test]
fn outputs_and_linkage() {
    rejects(&v1("mov op.xy, va0"), 3635, None);
    rejects(&v1("mov vt0, va0"), 3635, None);
    accepts(&v1("mov op.xy, va0\nmov op.zw, va1"));
    rejects(&v1("mov op, va0\nmov v0.xyz, va1"), 3633, None);
    // A full write followed by partial ones (Starling's distance-field shader).
    accepts(&v1("mov op, va0\nmov v0, va1\nmov v0.w, va0"));
    rejects(&f1("mov ft0, fc0"), 3634, None);
    rejects(&f2("mov oc, fc0\nmov oc2, fc0"), 3775, None);
    accepts(&f2("mov oc, fc0\nmov oc1, fc0\nmov oc2, fc0"));
    let asm = |t: &str| assemble("t", t, &AsmOptions::default()).unwrap().bytes;
    let vertex = asm(&v1("mov op, va0\nmov v0, va1"));
    let reads_v1 = asm(&f1("mov oc, v1"));
    let e = validate_pair(&vertex, &reads_v1, 4).unwrap_err();
    assert_eq!(e.number(), 3632);
    assert!(e
        .to_string()
        .contains("Varying 1 is read in the fragment shader"));
    validate_pair(&vertex, &asm(&f1("mov oc, v0")), 4).unwrap();
    let e = validate_pair(&vertex, &asm(&f2("mov oc, v0")), 4).unwrap_err();
    assert_eq!(e.number(), 3757);
}

#[test]
fn interface_is_recorded() {
    let p = accepts(&f1(
        "tex ft0, v0, fs3 <2d,linear>\ntex ft1, v2, fs1 <cube,linear>\nkil ft0.x\nadd oc, ft0, ft1",
    ));
    assert_eq!(p.interface.varyings_read, 0b101);
    assert!(p.interface.kills);
    let units: Vec<u16> = p.interface.samplers.iter().map(|s| s.unit).collect();
    assert_eq!(units, [1, 3]);
    assert_eq!(p.interface.colors_written, 1);
    let v = accepts(&v1("m44 op, va0, vc0\nmov v0, va3\nmov v2, vc[va1.x]"));
    assert_eq!(v.interface.attributes_read, 0b1011);
    assert_eq!(v.interface.varyings_written[2].0, 0xF);
}
