//! Tests of the SHBIN reader and writer: corpus round trips, concrete parsed values, canonical
//! writing from scratch, malformed inputs and a seeded mutation run.
use super::*;

/// The real SHBIN files of `shared/corpus/shbin`, sorted by name.
pub(crate) fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/shbin");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "corpus directory {} is missing ({e}): the checkout needs shared/ beside it",
            dir.display()
        )
    });
    let mut files: Vec<(String, Vec<u8>)> = entries
        .map(|e| e.expect("corpus directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "shbin"))
        .map(|p| {
            let name = p
                .file_name()
                .expect("file name")
                .to_string_lossy()
                .into_owned();
            let bytes =
                std::fs::read(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
            (name, bytes)
        })
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        13,
        "expected the 13 corpus files in {}",
        dir.display()
    );
    files
}

#[test]
fn corpus_round_trip_is_byte_identical() {
    for (name, bytes) in corpus() {
        let shbin = Shbin::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(shbin.to_bytes() == bytes, "{name}: read → write differs");
    }
}

fn corpus_file(name_part: &str) -> Vec<u8> {
    corpus()
        .into_iter()
        .find(|(name, _)| name.contains(name_part))
        .unwrap_or_else(|| panic!("no corpus file matching {name_part}"))
        .1
}

fn parse_ok(bytes: &[u8]) -> Shbin {
    Shbin::parse(bytes).unwrap_or_else(|e| panic!("parse failed: {e}"))
}

fn put_u32(bytes: &mut [u8], offset: usize, value: u32) {
    bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn corpus_layouts_all_canonical_except_simple_tri() {
    for (name, bytes) in corpus() {
        let shbin = parse_ok(&bytes);
        let old_layout = name.starts_with("aroulin__simple_tri");
        assert_eq!(
            shbin.layout.is_some(),
            old_layout,
            "{name}: layout recorded?"
        );
        assert_eq!(shbin.is_canonical(), !old_layout, "{name}");
        if !old_layout {
            // Canonical files need nothing recorded: the content alone writes them back.
            let rebuilt = Shbin {
                layout: None,
                ..shbin.clone()
            };
            assert!(rebuilt.to_bytes() == bytes, "{name}");
        }
    }
}

#[test]
fn corpus_versions_and_masks() {
    for (name, bytes) in corpus() {
        let shbin = parse_ok(&bytes);
        assert_eq!(shbin.dvles.len(), 1, "{name}");
        let dvle = &shbin.dvles[0];
        // Written by pre-2.5 picasso (version 0, output mask 0): simple_tri and all three
        // DDews/Snakes files, not only oldvshader.
        let old = name.starts_with("aroulin__simple_tri") || name.starts_with("DDews__Snakes__");
        assert_eq!(dvle.version, if old { 0 } else { 0x1002 }, "{name}");
        if old {
            assert_eq!(
                dvle.output_mask, 0,
                "{name}: old picasso writes output mask 0"
            );
        } else {
            let mut mask = 0u16;
            for output in &dvle.outputs {
                mask |= 1 << output.reg;
            }
            assert_eq!(
                dvle.output_mask, mask,
                "{name}: output mask = registers of the output table"
            );
        }
        assert_eq!(dvle.kind, ShaderKind::Vertex, "{name}");
        assert_eq!(shbin.dvlp.version, 0, "{name}");
        assert!(shbin.dvlp.descs.iter().all(|d| d.extra == 0), "{name}");
        assert!(dvle.entry_start < dvle.entry_end, "{name}");
        assert!(dvle.entry_end as usize <= shbin.dvlp.code.len(), "{name}");
        // Every uniform entry names one typed register range.
        for uniform in &dvle.uniforms {
            assert!(uniform.registers().is_some(), "{name}: {uniform:?}");
        }
        let program = shbin.program(0).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(program.entry as u32, dvle.entry_start);
        assert_eq!(&program.code[..shbin.dvlp.code.len()], &shbin.dvlp.code[..]);
    }
}

/// `lovebrew__lovepotion__main_v_pica.shbin` (356 bytes), from its hexdump:
///
/// ```text
/// 0x000 "DVLB" 01000000 a0000000          1 DVLE, at 0xa0
/// 0x00c "DVLP" 0 28000000 0d000000        code at DVLP+0x28 = 0x34, 13 words
///       5c000000 07000000 94000000        descs at DVLP+0x5c = 0x68, 7 entries; slot 0x94
/// 0x034 00000000 ... first word 0x4e000000, second 0x4e07f001, word 12 (0x64) 0x88000000
/// 0x068 6e030000 00000000                 desc 0 = 0x36e, extra 0
/// 0x0a0 "DVLE" 0210 00 00                 version 0x1002, vertex, no merge
///       00000000 0d000000                 entry 0..13
///       0700 0700 00 00 00 00             input mask 0b111, output mask 0b111
///       40000000 01000000                 1 constant at DVLE+0x40 = 0xe0
///       54000000 00000000                 labels (none)
///       54000000 03000000                 3 outputs at 0xf4
///       6c000000 05000000                 5 uniforms at 0x10c
///       94000000 2e000000                 symbols at 0x134, 46 bytes
/// 0x0e0 0200 5f00 00003f00 0 0 0          float c95 = (0x3f0000 = 1.0, 0, 0, 0)
/// 0x0f4 0000 0000 0f000000                position o0 xyzw
///       0200 0100 0f000000                color o1 xyzw
///       0300 0200 0f000000                texcoord0 o2 xyzw
/// 0x10c 00000000 0000 0000                "inPosition" v0
///       0b000000 0100 0100                "inColor" v1
///       13000000 0200 0200                "inTexCoord" v2
///       1e000000 1000 1300                "projMtx" 0x10..0x13 = c0..c3
///       26000000 1400 1700                "mdlvMtx" 0x14..0x17 = c4..c7
/// 0x134 "inPosition\0inColor\0inTexCoord\0projMtx\0mdlvMtx\0" (46 bytes), 2 bytes padding
/// ```
#[test]
fn lovepotion_values() {
    let shbin = parse_ok(&corpus_file("lovebrew__lovepotion"));
    assert_eq!(shbin.dvles.len(), 1);
    assert_eq!(shbin.dvlp.code.len(), 13);
    assert_eq!(shbin.dvlp.code[0], 0x4e00_0000);
    assert_eq!(shbin.dvlp.code[1], 0x4e07_f001);
    assert_eq!(shbin.dvlp.code[12], 0x8800_0000);
    assert_eq!(shbin.dvlp.descs.len(), 7);
    assert_eq!(
        shbin.dvlp.descs[0],
        OpDescEntry {
            word: 0x36e,
            extra: 0
        }
    );

    let dvle = &shbin.dvles[0];
    assert_eq!((dvle.entry_start, dvle.entry_end), (0, 13));
    assert_eq!((dvle.input_mask, dvle.output_mask), (0b111, 0b111));
    assert_eq!(dvle.gs_mode, GsMode::Point);
    assert!(!dvle.merge_outmaps);
    assert_eq!(
        dvle.constants,
        vec![Constant::Float {
            reg: 95,
            x: 0x3f_0000,
            y: 0,
            z: 0,
            w: 0
        }]
    );
    assert!(dvle.labels.is_empty());
    let outputs: Vec<_> = dvle
        .outputs
        .iter()
        .map(|o| (o.semantic.name(), o.reg, o.mask))
        .collect();
    assert_eq!(
        outputs,
        vec![
            (Some("position"), 0, 0xf),
            (Some("color"), 1, 0xf),
            (Some("texcoord0"), 2, 0xf)
        ]
    );
    let uniforms: Vec<_> = dvle
        .uniforms
        .iter()
        .map(|u| (u.name.as_str(), u.registers().unwrap().to_string()))
        .collect();
    assert_eq!(
        uniforms,
        vec![
            ("inPosition", "v0".to_string()),
            ("inColor", "v1".to_string()),
            ("inTexCoord", "v2".to_string()),
            ("projMtx", "c0..c3".to_string()),
            ("mdlvMtx", "c4..c7".to_string()),
        ]
    );
    let proj = dvle.uniform_by_name("projMtx").unwrap();
    assert_eq!((proj.first, proj.last), (0x10, 0x13));
    assert_eq!(
        proj.registers(),
        Some(RegisterRange {
            file: RegisterFile::Float,
            first: 0,
            last: 3
        })
    );
    assert_eq!(proj.registers().unwrap().count(), 4);
    assert!(dvle.uniform_by_name("mdlvmtx").is_none());
    assert_eq!(
        dvle.canonical_symbol_table(),
        b"inPosition\0inColor\0inTexCoord\0projMtx\0mdlvMtx\0".to_vec()
    );

    let mut uniforms = Uniforms::default();
    dvle.apply_constants(&mut uniforms);
    assert_eq!(uniforms.f[95], [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(uniforms.f[94], [0.0; 4]);

    let program = shbin.program(0).unwrap();
    assert_eq!(program.entry, 0);
    assert_eq!(program.kind, ShaderKind::Vertex);
    assert_eq!(program.code[12], 0x8800_0000);
    assert_eq!(program.code[13], 0);
    assert_eq!(program.descs[0], 0x36e);
    assert_eq!(program.descs[7], 0);
}

/// `XanderMK__spookys-3d-mansion__vshader.shbin` (456 bytes), from its hexdump:
///
/// ```text
/// 0x000 "DVLB" 1 DVLE at 0x11c
/// 0x00c "DVLP" code at DVLP+0x28, 0x22 = 34 words; descs at DVLP+0xb0, 12 entries
/// 0x11c "DVLE" 0x1002 vertex; entry 0..0x22; input mask 0, output mask 0x1f
///       1 constant at +0x40, 5 outputs at +0x54, 3 uniforms at +0x7c,
///       symbols at +0x94, 0x16 = 22 bytes
/// 0x15c 0200 5f00 00000000 00003f00 0000bf00 00003e00   c95 = (0, 1.0, -1.0, 0.5)
/// 0x170 0000 0000 0f  position o0  | 0300 0100 0f  texcoord0 o1 | 0200 0200 0f  color o2
///       0800 0300 0f  view o3      | 0100 0400 0f  normalquat o4
/// 0x198 0 0x10..0x13 "projection" | 0xb 0x14..0x17 "model" | 0x11 0x18..0x1b "view"
/// 0x1b0 "projection\0model\0view\0", 2 bytes padding
/// ```
#[test]
fn spookys_mansion_values() {
    let shbin = parse_ok(&corpus_file("XanderMK__spookys"));
    assert_eq!(shbin.dvles.len(), 1);
    assert_eq!(shbin.dvlp.code.len(), 34);
    assert_eq!(shbin.dvlp.descs.len(), 12);
    let dvle = &shbin.dvles[0];
    assert_eq!((dvle.entry_start, dvle.entry_end), (0, 34));
    assert_eq!((dvle.input_mask, dvle.output_mask), (0, 0x1f));
    let outputs: Vec<_> = dvle
        .outputs
        .iter()
        .map(|o| (o.semantic, o.reg, o.mask))
        .collect();
    assert_eq!(
        outputs,
        vec![
            (OutputSemantic::Position, 0, 0xf),
            (OutputSemantic::TexCoord0, 1, 0xf),
            (OutputSemantic::Color, 2, 0xf),
            (OutputSemantic::View, 3, 0xf),
            (OutputSemantic::NormalQuat, 4, 0xf),
        ]
    );
    let names: Vec<_> = dvle.uniforms.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["projection", "model", "view"]);
    let view = dvle.uniform_by_name("view").unwrap();
    assert_eq!(
        view.registers(),
        Some(RegisterRange {
            file: RegisterFile::Float,
            first: 8,
            last: 11
        })
    );
    let mut uniforms = Uniforms::default();
    dvle.apply_constants(&mut uniforms);
    assert_eq!(uniforms.f[95], [0.0, 1.0, -1.0, 0.5]);
    assert_eq!(dvle.constants[0].float_value(), Some([0.0, 1.0, -1.0, 0.5]));
}

/// `aroulin__simple_tri__vshader.shbin` (279 bytes), written by pre-2.5 picasso. Its hexdump
/// shows a different placement: all headers first, then all data, and no final padding.
///
/// ```text
/// 0x000 "DVLB" 1 DVLE at 0x34 (right after the DVLP header, not after the DVLP data)
/// 0x00c "DVLP" code at DVLP+0x68 = 0x74, 11 words; descs at DVLP+0x94 = 0xa0, 8; slot 0xd4
/// 0x034 "DVLE" version 0, vertex, entry 0..11, masks 0/0
///       1 constant at DVLE+0xac = 0xe0; labels/outputs at +0xc0 = 0xf4, 2 outputs;
///       1 uniform at +0xd0 = 0x104; symbols at +0xd8 = 0x10c, 11 bytes → file ends at 0x117
/// 0x0e0 0200 0400 00000000 00003f00 0000c000 0090c500   c4 = (0, 1.0, -2.0, 0xc59000 = -100)
/// 0x0f4 0000 0000 0f  position o0 | 0200 0100 0f  color o1
/// 0x104 0 0x10..0x13 "projection"
/// ```
#[test]
fn simple_tri_old_layout_values() {
    let bytes = corpus_file("aroulin__simple_tri");
    assert_eq!(bytes.len(), 279);
    let shbin = parse_ok(&bytes);
    let layout = shbin.layout.as_ref().expect("old layout is recorded");
    assert_eq!(layout.dvle_offsets, vec![0x34]);
    assert_eq!(
        (layout.code_offset, layout.desc_offset, layout.symbol_slot),
        (0x68, 0x94, 0xd4)
    );
    assert_eq!(layout.file_len, 279);
    assert!(layout.filler.is_empty());
    let dvle = &shbin.dvles[0];
    assert_eq!(dvle.version, 0);
    assert_eq!((dvle.entry_start, dvle.entry_end), (0, 11));
    assert_eq!(shbin.dvlp.code.len(), 11);
    assert_eq!(shbin.dvlp.descs.len(), 8);
    assert_eq!(
        dvle.constants,
        vec![Constant::Float {
            reg: 4,
            x: 0,
            y: 0x3f_0000,
            z: 0xc0_0000,
            w: 0xc5_9000
        }]
    );
    assert_eq!(
        dvle.constants[0].float_value(),
        Some([0.0, 1.0, -2.0, -100.0])
    );
    let outputs: Vec<_> = dvle.outputs.iter().map(|o| (o.semantic, o.reg)).collect();
    assert_eq!(
        outputs,
        vec![(OutputSemantic::Position, 0), (OutputSemantic::Color, 1)]
    );
    assert_eq!(
        dvle.uniforms,
        vec![UniformEntry {
            name: "projection".into(),
            first: 0x10,
            last: 0x13
        }]
    );

    // The same content written canonically is a different, 280-byte file that reads back to
    // the same content.
    let canonical = Shbin {
        layout: None,
        ..shbin.clone()
    };
    let rewritten = canonical.to_bytes();
    assert_eq!(rewritten.len(), 280);
    assert_eq!(parse_ok(&rewritten), canonical);
}

/// `DDews__Snakes__oldvshader.shbin`: old picasso (version 0, output mask 0) but canonical
/// placement; its uniform table has a bool: `0b000000 7800 7800` = "test" b0.
#[test]
fn oldvshader_bool_uniform() {
    let shbin = parse_ok(&corpus_file("DDews__Snakes__oldvshader"));
    assert!(shbin.layout.is_none());
    let test = shbin.dvles[0].uniform_by_name("test").unwrap();
    assert_eq!((test.first, test.last), (0x78, 0x78));
    assert_eq!(
        test.registers(),
        Some(RegisterRange {
            file: RegisterFile::Bool,
            first: 0,
            last: 0
        })
    );
    assert_eq!(test.registers().unwrap().to_string(), "b0");
}

#[test]
fn register_file_split_boundaries() {
    use RegisterFile::*;
    let cases = [
        (0x00, Some((Input, 0))),
        (0x0f, Some((Input, 15))),
        (0x10, Some((Float, 0))),
        (0x6f, Some((Float, 95))),
        (0x70, Some((Int, 0))),
        (0x73, Some((Int, 3))),
        (0x74, None),
        (0x77, None),
        (0x78, Some((Bool, 0))),
        (0x87, Some((Bool, 15))),
        (0x88, None),
        (0xffff, None),
    ];
    for (unified, expected) in cases {
        assert_eq!(RegisterFile::split(unified), expected, "{unified:#x}");
    }
    let entry = |first, last| UniformEntry {
        name: "u".into(),
        first,
        last,
    };
    assert_eq!(entry(0x0f, 0x10).registers(), None, "spans two files");
    assert_eq!(entry(0x13, 0x10).registers(), None, "reversed");
    assert_eq!(
        entry(0x70, 0x73).registers(),
        Some(RegisterRange {
            file: Int,
            first: 0,
            last: 3
        })
    );
}

#[test]
fn semantic_and_mode_codes_round_trip() {
    for code in 0..=u16::MAX {
        assert_eq!(OutputSemantic::from_code(code).code(), code);
    }
    for code in 0..=u8::MAX {
        assert_eq!(GsMode::from_code(code).code(), code);
    }
    let names: Vec<_> = (0..11)
        .map(|c| OutputSemantic::from_code(c).name())
        .collect();
    assert_eq!(
        names,
        [
            Some("position"),
            Some("normalquat"),
            Some("color"),
            Some("texcoord0"),
            Some("texcoord0w"),
            Some("texcoord1"),
            Some("texcoord2"),
            None,
            Some("view"),
            Some("dummy"),
            None
        ]
    );
    assert_eq!(OutputSemantic::from_code(7), OutputSemantic::Unknown(7));
    assert_eq!(GsMode::from_code(3), GsMode::Unknown(3));
}

#[test]
fn constant_raw_forms() {
    // Exact shapes become typed variants; anything else stays raw and round-trips.
    let cases = [
        ((2, 95, [0x3f_0000, 1, 2, 0xff00_0000]), true),
        ((1, 3, [0x0403_0201, 0, 0, 0]), true),
        ((0, 15, [1, 0, 0, 0]), true),
        ((0, 15, [0, 0, 0, 0]), true),
        ((0, 15, [2, 0, 0, 0]), false),
        ((0, 15, [1, 0, 0, 1]), false),
        ((1, 0, [5, 6, 0, 0]), false),
        ((3, 0, [1, 2, 3, 4]), false),
        ((0xffff, 0xffff, [u32::MAX; 4]), false),
    ];
    for ((type_code, reg, data), typed) in cases {
        let constant = Constant::from_raw(type_code, reg, data);
        assert_eq!(
            !matches!(constant, Constant::Raw { .. }),
            typed,
            "{constant:?}"
        );
        assert_eq!(constant.to_raw(), (type_code, reg, data));
    }
    assert_eq!(
        Constant::from_raw(1, 3, [0x0403_0201, 0, 0, 0]),
        Constant::Int {
            reg: 3,
            value: [1, 2, 3, 4]
        }
    );
}

#[test]
fn apply_constants_all_kinds() {
    let mut dvle = Dvle::new(ShaderKind::Vertex);
    dvle.constants = vec![
        Constant::Float {
            reg: 0,
            x: 0x3f_0000,
            y: 0x3e_0000,
            z: 0xc0_0000,
            w: 0x80_0000,
        },
        Constant::Float {
            reg: 96,
            x: 0x3f_0000,
            y: 0,
            z: 0,
            w: 0,
        }, // outside c0..c95: skipped
        Constant::Int {
            reg: 2,
            value: [10, 20, 30, 40],
        },
        Constant::Int {
            reg: 4,
            value: [1, 1, 1, 1],
        }, // skipped
        Constant::Bool {
            reg: 3,
            value: true,
        },
        Constant::Bool {
            reg: 5,
            value: false,
        },
        Constant::Bool {
            reg: 16,
            value: true,
        }, // skipped
        Constant::Raw {
            type_code: 0,
            reg: 7,
            data: [2, 0, 0, 0],
        }, // skipped
    ];
    let mut uniforms = Uniforms {
        b: 1 << 5,
        ..Uniforms::default()
    };
    dvle.apply_constants(&mut uniforms);
    assert_eq!(
        uniforms.f[0].map(f32::to_bits),
        [1.0f32, 0.5, -2.0, -0.0].map(f32::to_bits)
    );
    assert_eq!(uniforms.i, [[0; 4], [0; 4], [10, 20, 30, 40], [0; 4]]);
    assert_eq!(uniforms.b, 1 << 3);
}

#[test]
fn f24_conversion() {
    let cases: [(u32, f32); 9] = [
        (0x3f_0000, 1.0),
        (0x3e_0000, 0.5),
        (0xc0_0000, -2.0),
        (0x80_0000, -0.0),
        (0x00_0000, 0.0),
        (
            0x3b_9999,
            f32::from_bits((0x3b + 127 - 63) << 23 | 0x9999 << 7),
        ), // 0.1 truncated
        (0x7f_0000, f32::INFINITY),
        (0xff_0000, f32::NEG_INFINITY),
        (0x00_0001, 2f32.powi(-78)),
    ];
    for (raw, expected) in cases {
        assert_eq!(
            crate::float::f24_to_f32(raw).to_bits(),
            expected.to_bits(),
            "{raw:#x}"
        );
    }
    // Largest denormal, NaN payload, ignored high byte.
    assert_eq!(
        crate::float::f24_to_f32(0x00_ffff),
        65535.0 * 2f32.powi(-78)
    );
    assert_eq!(
        crate::float::f24_to_f32(0x7f_1234).to_bits(),
        0x7f80_0000 | 0x1234 << 7
    );
    assert_eq!(
        crate::float::f24_to_f32(0xff_0001).to_bits(),
        0xff80_0000 | 1 << 7
    );
    assert_eq!(crate::float::f24_to_f32(0xab3f_0000), 1.0);
    // Every normal value converts exactly: back to 24 bits by truncation.
    for raw in (0..0x100_0000u32).step_by(251) {
        let exp = raw >> 16 & 0x7f;
        if exp == 0 || exp == 127 {
            continue;
        }
        let bits = crate::float::f24_to_f32(raw).to_bits();
        let back = (bits >> 31) << 23 | ((bits >> 23 & 0xff) - 64) << 16 | (bits >> 7 & 0xffff);
        assert_eq!(back, raw);
        assert_eq!(bits & 0x7f, 0);
    }
}

/// A two-DVLE file built from scratch, using every table kind.
fn scratch() -> Shbin {
    let mut vertex = Dvle::new(ShaderKind::Vertex);
    vertex.entry_start = 0;
    vertex.entry_end = 3;
    vertex.input_mask = 0b11;
    vertex.output_mask = 0b11;
    vertex.constants = vec![
        Constant::Float {
            reg: 95,
            x: 0x3f_0000,
            y: 0,
            z: 0x3e_0000,
            w: 0xc0_0000,
        },
        Constant::Int {
            reg: 3,
            value: [4, 0, 1, 0],
        },
        Constant::Bool {
            reg: 2,
            value: true,
        },
    ];
    vertex.outputs = vec![
        Output {
            semantic: OutputSemantic::Position,
            reg: 0,
            mask: 0xf,
        },
        Output {
            semantic: OutputSemantic::TexCoord0,
            reg: 1,
            mask: 0x3,
        },
        Output {
            semantic: OutputSemantic::TexCoord0W,
            reg: 1,
            mask: 0x4,
        },
    ];
    vertex.uniforms = vec![
        UniformEntry {
            name: "inpos".into(),
            first: 0x00,
            last: 0x00,
        },
        UniformEntry {
            name: "mvp".into(),
            first: 0x10,
            last: 0x13,
        },
        UniformEntry {
            name: "flag".into(),
            first: 0x78,
            last: 0x78,
        },
    ];
    let mut geometry = Dvle::new(ShaderKind::Geometry);
    geometry.entry_start = 3;
    geometry.entry_end = 5;
    geometry.merge_outmaps = true;
    geometry.gs_mode = GsMode::Fixed;
    geometry.gs_fixed_start = 4;
    geometry.gs_fixed_num = 3;
    geometry.gs_variable_num = 0;
    geometry.outputs = vec![Output {
        semantic: OutputSemantic::Dummy,
        reg: 2,
        mask: 0xf,
    }];
    geometry.labels = vec![Label {
        id: 1,
        unknown_1: [0; 3],
        location: 4,
        unknown_8: 0,
        name: "loop".into(),
    }];
    geometry.uniforms = vec![UniformEntry {
        name: "c".into(),
        first: 0x14,
        last: 0x14,
    }];
    Shbin {
        dvlp: Dvlp {
            version: 0,
            code: vec![
                0x4e00_0000,
                0x2200_0001,
                0x8800_0000,
                0x4e00_0000,
                0x8800_0000,
            ],
            descs: vec![
                OpDescEntry {
                    word: 0x36f,
                    extra: 0,
                },
                OpDescEntry {
                    word: 0x1,
                    extra: 0,
                },
            ],
            reserved: [0; 3],
        },
        dvles: vec![vertex, geometry],
        layout: None,
    }
}

fn le32(bytes: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap())
}

#[test]
fn from_scratch_is_written_canonically_and_reads_back() {
    let shbin = scratch();
    let bytes = shbin.to_bytes();
    // DVLB: 8 + 2 * 4 = 0x10 bytes; DVLP at 0x10: header 0x28, 5 code words, 2 descriptors.
    assert_eq!(&bytes[0..4], b"DVLB");
    assert_eq!(le32(&bytes, 4), 2);
    let dvlp = 0x10;
    assert_eq!(&bytes[dvlp..dvlp + 4], b"DVLP");
    assert_eq!(le32(&bytes, dvlp + 0x08), 0x28);
    assert_eq!(le32(&bytes, dvlp + 0x0c), 5);
    assert_eq!(le32(&bytes, dvlp + 0x10), 0x28 + 4 * 5);
    assert_eq!(le32(&bytes, dvlp + 0x14), 2);
    let dvlp_size = 0x28 + 4 * 5 + 8 * 2;
    assert_eq!(le32(&bytes, dvlp + 0x18), dvlp_size as u32);
    assert_eq!(le32(&bytes, dvlp + 0x28), 0x4e00_0000);
    // DVLE #0 right after the DVLP.
    let dvle0 = dvlp + dvlp_size;
    assert_eq!(le32(&bytes, 8) as usize, dvle0);
    assert_eq!(&bytes[dvle0..dvle0 + 4], b"DVLE");
    assert_eq!(bytes[dvle0 + 4..dvle0 + 8], [0x02, 0x10, 0, 0]);
    // constants at 0x40 (3), labels = outputs at 0x40 + 60 (0 / 3), uniforms (3), symbols.
    let table = |k: usize| {
        (
            le32(&bytes, dvle0 + 0x18 + 8 * k),
            le32(&bytes, dvle0 + 0x1c + 8 * k),
        )
    };
    assert_eq!(table(0), (0x40, 3));
    assert_eq!(table(1), (0x40 + 60, 0));
    assert_eq!(table(2), (0x40 + 60, 3));
    assert_eq!(table(3), (0x40 + 60 + 24, 3));
    // Symbol table "inpos\0mvp\0flag\0": its size (15) does not count the padding byte.
    assert_eq!(table(4), (0x40 + 60 + 24 + 24, 15));
    let symbols = dvle0 + 0x40 + 60 + 24 + 24;
    assert_eq!(&bytes[symbols..symbols + 16], b"inpos\0mvp\0flag\0\0");
    // Bool constant entry: type 0, b2, word 1, 12 zero bytes.
    let bool_entry = dvle0 + 0x40 + 40;
    assert_eq!(
        bytes[bool_entry..bool_entry + 20],
        [0, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    // DVLE #1 on the next 4-byte boundary.
    let dvle0_size = 0x40 + 60 + 24 + 24 + 16; // 187 bytes, padded to 188
    let dvle1 = dvle0 + dvle0_size;
    assert_eq!(le32(&bytes, 12) as usize, dvle1);
    assert_eq!(
        bytes[dvle1 + 4..dvle1 + 0x18],
        [0x02, 0x10, 1, 1, 3, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 2, 4, 0, 3]
    );
    assert_eq!(bytes.len() % 4, 0);

    let parsed = parse_ok(&bytes);
    assert_eq!(parsed, shbin);
    assert!(parsed.is_canonical());
    assert_eq!(parsed.to_bytes(), bytes);
}

#[test]
fn edited_old_layout_falls_back_to_canonical() {
    let shbin = parse_ok(&corpus_file("aroulin__simple_tri"));
    // Same counts, same names: the recorded layout still applies.
    let mut same_shape = shbin.clone();
    same_shape.dvles[0].entry_end = 10;
    same_shape.dvlp.code[0] = 0x1234_5678;
    assert!(!same_shape.is_canonical());
    let bytes = same_shape.to_bytes();
    assert_eq!(bytes.len(), 279);
    assert_eq!(parse_ok(&bytes), same_shape);

    // A renamed uniform no longer matches the recorded symbol table.
    let mut renamed = shbin.clone();
    renamed.dvles[0].uniforms[0].name = "proj".into();
    assert!(renamed.is_canonical());
    let reread = parse_ok(&renamed.to_bytes());
    assert_eq!(
        reread,
        Shbin {
            layout: None,
            ..renamed.clone()
        }
    );

    // An extra output changes a count.
    let mut grown = shbin;
    grown.dvles[0].outputs.push(Output {
        semantic: OutputSemantic::TexCoord0,
        reg: 2,
        mask: 3,
    });
    assert!(grown.is_canonical());
    let reread = parse_ok(&grown.to_bytes());
    assert_eq!(
        reread,
        Shbin {
            layout: None,
            ..grown
        }
    );
}

#[test]
fn every_truncation_errors_until_only_padding_is_missing() {
    for (name, bytes) in corpus() {
        // The last table ends where the shortest accepted prefix ends; what follows is the
        // zero padding picasso adds (absent in simple_tri).
        let data_end = (0..=bytes.len())
            .find(|&n| Shbin::parse(&bytes[..n]).is_ok())
            .unwrap();
        assert!(bytes.len() - data_end < 4, "{name}");
        assert!(bytes[data_end..].iter().all(|&b| b == 0), "{name}");
        for n in 0..data_end {
            assert!(
                Shbin::parse(&bytes[..n]).is_err(),
                "{name}: prefix of {n} bytes parsed"
            );
        }
        for n in data_end..=bytes.len() {
            let shbin = parse_ok(&bytes[..n]);
            assert_eq!(shbin.to_bytes(), &bytes[..n], "{name}: prefix of {n} bytes");
        }
    }
    // CatsLover: symbols at 0x9c + 0x7c = 0x118, 0x15 bytes → 0x12d; the file is 0x130.
    let bytes = corpus_file("CatsLover2006");
    assert!(Shbin::parse(&bytes[..0x12c]).is_err());
    assert!(Shbin::parse(&bytes[..0x12d]).is_ok());
    assert!(matches!(
        Shbin::parse(&bytes[..0x12c]),
        Err(ShbinError::OutOfRange { ref what, field: 0xd4, start: 0x118, end: 0x12d, len: 0x12c }) if what == "DVLE #0 symbol table"
    ));
}

#[test]
fn short_headers_are_truncation_errors() {
    assert!(matches!(
        Shbin::parse(b""),
        Err(ShbinError::Truncated {
            offset: 0,
            size: 8,
            len: 0,
            ..
        })
    ));
    assert!(matches!(
        Shbin::parse(b"DVLB\x01"),
        Err(ShbinError::Truncated { .. })
    ));
    assert!(matches!(
        Shbin::parse(b"DVLX\x01\0\0\0"),
        Err(ShbinError::BadMagic { offset: 0, .. })
    ));
    assert!(matches!(
        Shbin::parse(b"DVLX"),
        Err(ShbinError::BadMagic { offset: 0, .. })
    ));
    // N = 0xffffffff: the offset table cannot fit.
    let err = Shbin::parse(b"DVLB\xff\xff\xff\xff\0\0\0\0").unwrap_err();
    assert_eq!(
        err,
        ShbinError::Truncated {
            what: "DVLE offset table".into(),
            offset: 8,
            size: 0x3_ffff_fffc,
            len: 12
        }
    );
    // No DVLE, and a DVLP header cut short.
    let mut bytes = b"DVLB\0\0\0\0DVLP".to_vec();
    bytes.resize(8 + 0x27, 0);
    assert!(matches!(
        Shbin::parse(&bytes),
        Err(ShbinError::Truncated {
            offset: 8,
            size: 0x28,
            ..
        })
    ));
}

#[test]
fn zero_dvle_file_round_trips() {
    let shbin = Shbin {
        dvlp: Dvlp {
            code: vec![0x8800_0000],
            ..Dvlp::default()
        },
        ..Shbin::default()
    };
    let bytes = shbin.to_bytes();
    assert_eq!(bytes.len(), 8 + 0x28 + 4);
    assert_eq!(parse_ok(&bytes), shbin);
    assert!(matches!(
        shbin.program(0),
        Err(ShbinError::NoSuchDvle { index: 0, count: 0 })
    ));
}

#[test]
fn corrupted_magics_name_the_part_and_offset() {
    let bytes = scratch().to_bytes();
    let dvle1 = le32(&bytes, 12) as usize;
    let cases = [
        (0, "DVLB header", "DVLB"),
        (0x10, "DVLP", "DVLP"),
        (le32(&bytes, 8) as usize, "DVLE #0", "DVLE"),
        (dvle1, "DVLE #1", "DVLE"),
    ];
    for (offset, what, expected) in cases {
        let mut bad = bytes.clone();
        bad[offset + 3] ^= 0x20;
        let err = Shbin::parse(&bad).unwrap_err();
        match &err {
            ShbinError::BadMagic {
                what: w,
                offset: o,
                expected: e,
                ..
            } => {
                assert_eq!((w.as_str(), *o, *e), (what, offset, expected));
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    let mut bad = bytes.clone();
    bad[dvle1 + 3] = b'x';
    assert_eq!(
        Shbin::parse(&bad).unwrap_err().to_string(),
        format!("DVLE #1 at offset {dvle1:#x}: bad magic \"DVLx\", expected \"DVLE\"")
    );
}

#[test]
fn offsets_and_counts_out_of_the_file() {
    let bytes = scratch().to_bytes();
    let len = bytes.len();
    let dvlp = 0x10;
    let dvle0 = le32(&bytes, 8) as usize;

    // DVLE offset past the end.
    let mut bad = bytes.clone();
    put_u32(&mut bad, 12, len as u32 - 0x3f);
    assert!(matches!(
        Shbin::parse(&bad),
        Err(ShbinError::OutOfRange { ref what, field: 12, .. }) if what == "DVLE #1 header"
    ));
    put_u32(&mut bad, 12, u32::MAX);
    assert!(matches!(
        Shbin::parse(&bad),
        Err(ShbinError::OutOfRange { field: 12, .. })
    ));

    // Code and descriptor counts and offsets.
    for field in [0x08, 0x0c, 0x10, 0x14] {
        let mut bad = bytes.clone();
        put_u32(&mut bad, dvlp + field, u32::MAX);
        let err = Shbin::parse(&bad).unwrap_err();
        let expected_field = dvlp + (field & !4);
        assert!(
            matches!(err, ShbinError::OutOfRange { field, end, .. } if field == expected_field && end > len as u64),
            "{field:#x}: {err}"
        );
    }

    // Every DVLE table offset and count.
    let names = ["constant", "label", "output", "uniform", "symbol"];
    for (k, name) in names.into_iter().enumerate() {
        for delta in [0, 4] {
            let mut bad = bytes.clone();
            put_u32(&mut bad, dvle0 + 0x18 + 8 * k + delta, 0x1000_0000);
            let err = Shbin::parse(&bad).unwrap_err();
            assert_eq!(
                err,
                ShbinError::OutOfRange {
                    what: format!("DVLE #0 {name} table"),
                    field: dvle0 + 0x18 + 8 * k,
                    start: match delta {
                        0 => dvle0 as u64 + 0x1000_0000,
                        _ => dvle0 as u64 + u64::from(le32(&bytes, dvle0 + 0x18 + 8 * k)),
                    },
                    end: err_end(&err),
                    len,
                },
                "{name} {delta}"
            );
        }
    }
}

fn err_end(err: &ShbinError) -> u64 {
    match err {
        ShbinError::OutOfRange { end, .. } => *end,
        other => panic!("{other:?}"),
    }
}

#[test]
fn overlapping_tables_are_rejected() {
    let bytes = scratch().to_bytes();
    let dvle0 = le32(&bytes, 8) as usize;

    // Outputs moved onto the constants.
    let mut bad = bytes.clone();
    put_u32(&mut bad, dvle0 + 0x28, 0x40);
    let err = Shbin::parse(&bad).unwrap_err();
    assert!(
        matches!(&err, ShbinError::Overlap { first, second, .. }
            if [first.as_str(), second.as_str()] == ["DVLE #0 output table", "DVLE #0 constant table"]),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "overlapping tables: DVLE #0 output table ({:#x}..{:#x}) overlaps \
             DVLE #0 constant table ({:#x}..{:#x})",
            dvle0 + 0x40,
            dvle0 + 0x40 + 24,
            dvle0 + 0x40,
            dvle0 + 0x40 + 60
        )
    );

    // Both DVLEs at the same offset.
    let mut bad = bytes.clone();
    put_u32(&mut bad, 12, dvle0 as u32);
    assert!(matches!(
        Shbin::parse(&bad),
        Err(ShbinError::Overlap { ref first, ref second, .. }) if first.starts_with("DVLE #") && second.starts_with("DVLE #")
    ));

    // Code blob over the DVLP header.
    let mut bad = bytes.clone();
    put_u32(&mut bad, 0x10 + 0x08, 0x20);
    assert!(matches!(
        Shbin::parse(&bad),
        Err(ShbinError::Overlap { ref first, ref second, .. }) if first == "DVLP header" && second == "DVLP code blob"
    ));

    // Symbol table over the DVLE header.
    let mut bad = bytes.clone();
    put_u32(&mut bad, dvle0 + 0x38, 0x3c);
    assert!(matches!(
        Shbin::parse(&bad),
        Err(ShbinError::Overlap { .. })
    ));

    // Empty tables may sit anywhere in the file (picasso puts the empty label table on the
    // outputs), and non-zero bytes outside every table are kept.
    let mut odd = bytes.clone();
    put_u32(&mut odd, dvle0 + 0x20, 0); // label table (count 0) at the DVLE start
    let end = odd.len();
    odd[end - 1] = 0xaa; // the padding byte of DVLE #1
    let shbin = parse_ok(&odd);
    assert!(shbin.layout.is_some());
    assert_eq!(shbin.to_bytes(), odd);
}

#[test]
fn bad_symbols_are_rejected() {
    let bytes = scratch().to_bytes();
    let dvle0 = le32(&bytes, 8) as usize;
    let uniforms = dvle0 + le32(&bytes, dvle0 + 0x30) as usize;
    let symbols = dvle0 + le32(&bytes, dvle0 + 0x38) as usize;
    let size = le32(&bytes, dvle0 + 0x3c);

    let mut bad = bytes.clone();
    put_u32(&mut bad, uniforms + 8, size);
    assert_eq!(
        Shbin::parse(&bad).unwrap_err(),
        ShbinError::SymbolOutOfRange {
            dvle: 0,
            entry: "uniform #1".into(),
            field: uniforms + 8,
            name_offset: size,
            size
        }
    );

    // Last name loses its NUL (the table shrinks by one byte).
    let mut bad = bytes.clone();
    put_u32(&mut bad, dvle0 + 0x3c, size - 1);
    assert_eq!(
        Shbin::parse(&bad).unwrap_err(),
        ShbinError::SymbolUnterminated {
            dvle: 0,
            entry: "uniform #2".into(),
            field: uniforms + 16,
            name_offset: 10,
            offset: symbols + 10
        }
    );

    let mut bad = bytes.clone();
    bad[symbols + 1] = 0xff;
    assert!(matches!(
        Shbin::parse(&bad),
        Err(ShbinError::SymbolNotUtf8 {
            dvle: 0,
            name_offset: 0,
            ..
        })
    ));

    // A label name out of range.
    let dvle1 = le32(&bytes, 12) as usize;
    let labels = dvle1 + le32(&bytes, dvle1 + 0x20) as usize;
    let mut bad = bytes.clone();
    put_u32(&mut bad, labels + 12, 0x100);
    assert!(matches!(
        Shbin::parse(&bad),
        Err(ShbinError::SymbolOutOfRange { dvle: 1, ref entry, .. }) if entry == "label #0"
    ));

    // Names may share bytes (an offset into the middle of another name): kept exactly.
    let mut shared = bytes.clone();
    put_u32(&mut shared, uniforms + 8, 2); // "pos"
    let shbin = parse_ok(&shared);
    assert_eq!(shbin.dvles[0].uniforms[1].name, "pos");
    assert!(shbin.layout.is_some());
    assert_eq!(shbin.to_bytes(), shared);
}

#[test]
fn bad_header_bytes_are_rejected() {
    let bytes = scratch().to_bytes();
    let dvle1 = le32(&bytes, 12) as usize;
    let mut bad = bytes.clone();
    bad[dvle1 + 6] = 2;
    assert_eq!(
        Shbin::parse(&bad).unwrap_err(),
        ShbinError::ShaderType {
            dvle: 1,
            offset: dvle1 + 6,
            value: 2
        }
    );
    let mut bad = bytes.clone();
    bad[dvle1 + 7] = 0x80;
    assert_eq!(
        Shbin::parse(&bad).unwrap_err(),
        ShbinError::MergeFlag {
            dvle: 1,
            offset: dvle1 + 7,
            value: 0x80
        }
    );
    // Unknown geometry mode and output semantic are kept.
    let mut odd = bytes.clone();
    odd[dvle1 + 0x14] = 7;
    let shbin = parse_ok(&odd);
    assert_eq!(shbin.dvles[1].gs_mode, GsMode::Unknown(7));
    assert_eq!(shbin.to_bytes(), odd);
}

#[test]
fn program_errors() {
    let shbin = scratch();
    let program = shbin.program(1).unwrap();
    assert_eq!(program.entry, 3);
    assert_eq!(program.kind, ShaderKind::Geometry);
    assert_eq!(&program.descs[..3], &[0x36f, 0x1, 0]);
    assert_eq!(
        shbin.program(2).unwrap_err(),
        ShbinError::NoSuchDvle { index: 2, count: 2 }
    );

    let mut many = shbin.clone();
    many.dvlp.descs = vec![OpDescEntry::default(); 129];
    let err = many.program(0).unwrap_err();
    assert_eq!(
        err,
        ShbinError::Program {
            dvle: 0,
            source: crate::program::ProgramError::TooManyDescriptors(129)
        }
    );
    assert!(err.to_string().contains("129 operand descriptors"), "{err}");

    let mut long = shbin.clone();
    long.dvlp.code = vec![0; 4097];
    assert!(matches!(
        long.program(1),
        Err(ShbinError::Program {
            dvle: 1,
            source: crate::program::ProgramError::TooMuchCode(4097)
        })
    ));

    let mut far = shbin;
    far.dvles[0].entry_start = 4096;
    assert!(matches!(
        far.program(0),
        Err(ShbinError::Program {
            dvle: 0,
            source: crate::program::ProgramError::EntryOutOfRange(4096)
        })
    ));
}

/// Flips, sets and splices random bytes of corpus files (and of the from-scratch file), mostly
/// in the headers where offsets and counts live. Parsing must never panic; whenever it succeeds
/// the writer must give back exactly the mutated bytes, and those must read back the same.
#[test]
fn random_mutations_never_panic_and_round_trip() {
    let mut inputs: Vec<Vec<u8>> = corpus().into_iter().map(|(_, bytes)| bytes).collect();
    inputs.push(scratch().to_bytes());
    let mut rng = fastrand::Rng::with_seed(0x5eed_5b1e);
    let (mut accepted, mut rejected) = (0usize, 0usize);
    for _ in 0..40_000 {
        let mut bytes = inputs[rng.usize(..inputs.len())].clone();
        for _ in 0..rng.usize(1..=4) {
            match rng.u8(..6) {
                0 => {
                    let at = rng.usize(..bytes.len());
                    bytes[at] ^= 1 << rng.u8(..8);
                }
                1 => {
                    let at = rng.usize(..bytes.len());
                    bytes[at] = rng.u8(..);
                }
                2 => {
                    // A small value into a header word (offsets and counts).
                    let at = rng.usize(..bytes.len().min(0x140)) & !3;
                    let value = rng.u32(..0x200);
                    if let Some(word) = bytes.get_mut(at..at + 4) {
                        word.copy_from_slice(&value.to_le_bytes());
                    }
                }
                3 => {
                    let at = rng.usize(..bytes.len());
                    bytes.truncate(at.max(1));
                }
                4 => {
                    let extra = rng.usize(1..9);
                    bytes.extend((0..extra).map(|_| rng.u8(..)));
                }
                _ => {
                    let at = rng.usize(..bytes.len());
                    bytes[at] = 0;
                }
            }
        }
        match Shbin::parse(&bytes) {
            Ok(shbin) => {
                accepted += 1;
                let written = shbin.to_bytes();
                assert!(
                    written == bytes,
                    "accepted input not reproduced: {bytes:02x?}"
                );
                assert_eq!(Shbin::parse(&written).as_ref(), Ok(&shbin));
                for k in 0..shbin.dvles.len() {
                    let _ = shbin.program(k);
                    let mut uniforms = Uniforms::default();
                    shbin.dvles[k].apply_constants(&mut uniforms);
                    for uniform in &shbin.dvles[k].uniforms {
                        let _ = uniform.registers();
                    }
                }
                // The same content written canonically reads back to the same content.
                let canonical = Shbin {
                    layout: None,
                    ..shbin
                };
                let reread = Shbin::parse(&canonical.to_bytes()).expect("canonical rewrite parses");
                assert_eq!(reread, canonical);
            }
            Err(err) => {
                rejected += 1;
                assert!(!err.to_string().is_empty());
            }
        }
    }
    assert!(
        accepted > 4_000 && rejected > 4_000,
        "accepted {accepted}, rejected {rejected}"
    );
    println!("mutations: accepted {accepted}, rejected {rejected}");
}

#[test]
fn typed_uniform_lookup_counts_from_register_zero() {
    let src = ".fvec pad[3], mvp[4]\n.ivec loops\n.bool flag\n.in pos v2\n.out o position\n\
               .proc main\n dp4 o.x, mvp[0], pos\n end\n.end\n";
    let (shbin, _) = crate::asm::assemble(&[crate::asm::Source::new("t.v.pica", src)]).unwrap();
    let dvle = shbin.dvle(0).unwrap();
    // The raw entry counts c0 as 0x10; the typed lookups count from register 0.
    assert_eq!(dvle.uniform_by_name("mvp").unwrap().first, 0x13);
    assert_eq!(dvle.float_uniform("mvp"), Some(3..7));
    assert_eq!(dvle.float_uniform("pad"), Some(0..3));
    assert_eq!(dvle.int_uniform("loops"), Some(0..1));
    assert_eq!(dvle.bool_uniform("flag"), Some(0..1));
    assert_eq!(
        dvle.uniform("pos").map(|r| (r.file, r.indices())),
        Some((RegisterFile::Input, 2..3))
    );
    // Wrong kind or unknown name: None, never another file's registers.
    assert_eq!(dvle.float_uniform("loops"), None);
    assert_eq!(dvle.int_uniform("mvp"), None);
    assert_eq!(dvle.float_uniform("nope"), None);
    assert!(matches!(
        shbin.dvle(1),
        Err(ShbinError::NoSuchDvle { index: 1, count: 1 })
    ));
    let mut u = crate::Uniforms::default();
    u.set_bool(dvle.bool_uniform("flag").unwrap().start, true);
    assert!(u.bool(0));
    u.set_bool(0, false);
    u.set_bool(16, true);
    assert_eq!(u.b, 0);
}
