//! Tests of the PCAS/PCOU readers and writers.
use super::*;
use crate::interp::Primitive;
use crate::program::VertexStatus;

/// A case with every float as its bits: code, descs, entry, float uniforms, int uniforms, bool
/// uniforms, inputs, kind.
type CaseBits = (
    Vec<u32>,
    Vec<u32>,
    u32,
    Vec<u32>,
    [[u8; 4]; 4],
    u16,
    Vec<u32>,
    ShaderKind,
);

/// Every float of a case as bits, so NaNs compare by payload.
fn bits(case: &Case) -> CaseBits {
    let f = case
        .uniforms
        .f
        .iter()
        .flatten()
        .map(|x| x.to_bits())
        .collect();
    let inputs = case
        .inputs
        .iter()
        .flatten()
        .flatten()
        .map(|x| x.to_bits())
        .collect();
    (
        case.code.clone(),
        case.descs.clone(),
        case.entry,
        f,
        case.uniforms.i,
        case.uniforms.b,
        inputs,
        case.kind,
    )
}

/// Outputs, statuses and triangles (winding, then every component as bits).
type OutputBits = (
    Vec<u32>,
    Vec<VertexStatus>,
    Option<Vec<Vec<(bool, Vec<u32>)>>>,
);

fn output_bits(out: &CaseOutput) -> OutputBits {
    let triangles = out.triangles.as_ref().map(|all| {
        all.iter()
            .map(|mine| {
                mine.iter()
                    .map(|t| {
                        let bits = t.vertices.iter().flatten().flatten();
                        (t.winding, bits.map(|x| x.to_bits()).collect())
                    })
                    .collect()
            })
            .collect()
    });
    (
        out.outputs
            .iter()
            .flatten()
            .flatten()
            .map(|x| x.to_bits())
            .collect(),
        out.status.clone(),
        triangles,
    )
}

/// Special values, NaN payloads first.
const SPECIALS: [u32; 10] = [
    0x7fc0_1234, // quiet NaN with payload
    0xffa0_0001, // signalling NaN, negative
    0x7f80_0001, // smallest-payload NaN
    0x8000_0000, // -0.0
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x0000_0001, // smallest subnormal
    0x807f_ffff, // largest negative subnormal
    0x3f80_0000, // 1.0
    0xc2f6_e979, // -123.456
];

fn sample_case() -> Case {
    let mut uniforms = Uniforms {
        b: 0x8001,
        i: [[3, 0, 1, 0], [255, 254, 253, 252], [0; 4], [1, 2, 3, 4]],
        ..Uniforms::default()
    };
    for (k, reg) in uniforms.f.iter_mut().enumerate() {
        for (c, x) in reg.iter_mut().enumerate() {
            *x = f32::from_bits(SPECIALS[(k * 4 + c) % SPECIALS.len()] ^ (k as u32) << 8);
        }
    }
    let inputs = (0..3u32)
        .map(|v| {
            let mut regs = [[0.0f32; 4]; 16];
            for (r, reg) in regs.iter_mut().enumerate() {
                for (c, x) in reg.iter_mut().enumerate() {
                    let k = v as usize * 64 + r * 4 + c;
                    *x = f32::from_bits(SPECIALS[k % SPECIALS.len()].wrapping_add(v));
                }
            }
            regs
        })
        .collect();
    Case {
        code: vec![0x4e00_0000, 0x0801_2345, 0xdead_beef, 0x8800_0000],
        descs: vec![0x36f, 0x0000_0001, 0xffff_ffff],
        entry: 1,
        uniforms,
        inputs,
        kind: ShaderKind::Vertex,
    }
}

/// [`sample_case`] as a geometry shader (PCAS version 2).
fn sample_geometry_case() -> Case {
    Case {
        kind: ShaderKind::Geometry,
        ..sample_case()
    }
}

fn sample_output() -> CaseOutput {
    let outputs = (0..4u32)
        .map(|v| {
            let mut regs = [[0.0f32; 4]; 16];
            for (r, reg) in regs.iter_mut().enumerate() {
                for (c, x) in reg.iter_mut().enumerate() {
                    *x = f32::from_bits(SPECIALS[(r * 4 + c + v as usize) % SPECIALS.len()]);
                }
            }
            regs
        })
        .collect();
    CaseOutput {
        outputs,
        status: vec![
            VertexStatus::Ended,
            VertexStatus::BudgetExhausted,
            VertexStatus::Ended,
            VertexStatus::BudgetExhausted,
        ],
        triangles: None,
    }
}

/// [`sample_output`] of a geometry case (PCOU version 2): invocation 0 emitted two triangles,
/// 1 none, 2 one, 3 none.
fn sample_geometry_output() -> CaseOutput {
    let triangle = |seed: usize, winding: bool| Primitive {
        vertices: std::array::from_fn(|k| {
            std::array::from_fn(|r| {
                std::array::from_fn(|c| {
                    f32::from_bits(SPECIALS[(seed + k * 64 + r * 4 + c) % SPECIALS.len()])
                })
            })
        }),
        winding,
    };
    CaseOutput {
        triangles: Some(vec![
            vec![triangle(0, false), triangle(3, true)],
            vec![],
            vec![triangle(7, true)],
            vec![],
        ]),
        ..sample_output()
    }
}

fn le32(bytes: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap())
}

fn put_u32(bytes: &mut [u8], offset: usize, value: u32) {
    bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn pcas_layout_and_round_trip() {
    let case = sample_case();
    let bytes = case.to_bytes();
    // 44 header + 4 code + 3 descs + 96*4 floats + 3 vertices * 64 floats.
    assert_eq!(bytes.len(), 44 + 4 * 4 + 4 * 3 + 96 * 16 + 3 * 256);
    assert_eq!(&bytes[..4], b"PCAS");
    assert_eq!(
        [1, 4, 3, 1, 3, 0x8001].map(|v: u32| v),
        [4, 8, 12, 16, 20, 24].map(|o| le32(&bytes, o))
    );
    assert_eq!(
        bytes[28..44],
        [3, 0, 1, 0, 255, 254, 253, 252, 0, 0, 0, 0, 1, 2, 3, 4]
    );
    assert_eq!(le32(&bytes, 44), 0x4e00_0000);
    assert_eq!(le32(&bytes, 44 + 16), 0x36f);
    let floats = 44 + 16 + 12;
    assert_eq!(le32(&bytes, floats), 0x7fc0_1234);
    assert_eq!(le32(&bytes, floats + 4), 0xffa0_0001);
    let inputs = floats + 96 * 16;
    assert_eq!(le32(&bytes, inputs), 0x7fc0_1234);
    // Vertex 1, v0.x: k = 64 → SPECIALS[4] + 1.
    assert_eq!(le32(&bytes, inputs + 256), 0x7f80_0001);

    let parsed = Case::parse(&bytes).unwrap();
    assert_eq!(bits(&parsed), bits(&case));
    assert!(parsed.uniforms.f[0][0].is_nan());
    assert_eq!(parsed.uniforms.f[0][0].to_bits(), 0x7fc0_1234);
    assert_eq!(parsed.to_bytes(), bytes);
}

#[test]
fn pcas_limits_accepted() {
    let mut case = sample_case();
    case.code = (0..4096).collect();
    case.descs = (0..128).collect();
    case.entry = 4095;
    case.inputs.clear();
    case.uniforms.b = 0xffff;
    let bytes = case.to_bytes();
    let parsed = Case::parse(&bytes).unwrap();
    assert_eq!(bits(&parsed), bits(&case));
    let program = parsed.program().unwrap();
    assert_eq!(program.entry, 4095);
    assert_eq!(program.code[4095], 4095);
    assert_eq!(program.descs[127], 127);

    case.descs.clear();
    case.code = vec![0x8800_0000];
    case.entry = 0;
    let parsed = Case::parse(&case.to_bytes()).unwrap();
    assert_eq!(bits(&parsed), bits(&case));
    let program = parsed.program().unwrap();
    assert_eq!(program.code[0], 0x8800_0000);
    assert_eq!(program.code[1], 0);
    assert_eq!(program.descs, [0; 128]);
}

#[test]
fn case_from_program_trims_to_the_loaded_words() {
    let program = Program::from_words(&[1, 0, 2, 0, 0], &[7, 0, 0], 2).unwrap();
    let case = sample_case();
    let made = Case::from_program(&program, &case.uniforms, &case.inputs);
    assert_eq!(made.code, vec![1, 0, 2]);
    assert_eq!(made.descs, vec![7]);
    assert_eq!(made.entry, 2);
    assert_eq!(made.program().unwrap(), program);
    let empty = Program::from_words(&[], &[], 0).unwrap();
    let made = Case::from_program(&empty, &Uniforms::default(), &[]);
    assert_eq!(made.code, vec![0]);
    assert!(Case::parse(&made.to_bytes()).is_ok());
}

#[test]
fn pcas_program_errors() {
    let mut case = sample_case();
    case.code = vec![0; 4097];
    assert_eq!(case.program().unwrap_err(), ProgramError::TooMuchCode(4097));
    let mut case = sample_case();
    case.descs = vec![0; 129];
    assert_eq!(
        case.program().unwrap_err(),
        ProgramError::TooManyDescriptors(129)
    );
    let mut case = sample_case();
    case.entry = 4096;
    assert_eq!(
        case.program().unwrap_err(),
        ProgramError::EntryOutOfRange(4096)
    );
}

#[test]
fn pcas_each_error() {
    let bytes = sample_case().to_bytes();
    let with = |offset: usize, value: u32| {
        let mut b = bytes.clone();
        put_u32(&mut b, offset, value);
        Case::parse(&b).unwrap_err()
    };
    let mut bad_magic = bytes.clone();
    bad_magic[0] = b'X';
    assert_eq!(
        Case::parse(&bad_magic).unwrap_err(),
        CaseError::BadMagic {
            format: "PCAS",
            found: "XCAS".into()
        }
    );
    assert_eq!(
        CaseOutput::parse(&bytes).unwrap_err(),
        CaseError::BadMagic {
            format: "PCOU",
            found: "PCAS".into()
        }
    );
    assert_eq!(
        with(4, 3),
        CaseError::BadVersion {
            format: "PCAS",
            found: 3
        }
    );
    assert_eq!(
        with(4, 3).to_string(),
        "PCAS: version 3 at offset 0x4 is not supported (expected 1, or 2 for a geometry case)"
    );
    assert_eq!(with(8, 0), CaseError::CodeLen(0));
    assert_eq!(with(8, 4097), CaseError::CodeLen(4097));
    assert_eq!(with(8, u32::MAX), CaseError::CodeLen(u32::MAX));
    assert_eq!(with(12, 129), CaseError::DescLen(129));
    assert_eq!(with(16, 4096), CaseError::Entry(4096));
    assert_eq!(with(24, 0x1_0000), CaseError::BoolUpperBits(0x1_0000));
    assert_eq!(
        with(20, 4),
        CaseError::WrongSize {
            format: "PCAS",
            num_vertices: 4,
            num_vertices_offset: 20,
            expected: bytes.len() as u64 + 256,
            actual: bytes.len()
        }
    );
    // A huge vertex count is a size error, computed without overflow and without allocating.
    assert_eq!(
        with(20, u32::MAX),
        CaseError::WrongSize {
            format: "PCAS",
            num_vertices: u32::MAX,
            num_vertices_offset: 20,
            expected: (bytes.len() - 3 * 256) as u64 + u64::from(u32::MAX) * 256,
            actual: bytes.len()
        }
    );
    // Valid lengths that disagree with the size.
    assert!(matches!(with(8, 5), CaseError::WrongSize { .. }));
    assert!(matches!(with(12, 0), CaseError::WrongSize { .. }));
    let mut long = bytes.clone();
    long.push(0);
    assert!(
        matches!(Case::parse(&long), Err(CaseError::WrongSize { expected, actual, .. }) if actual as u64 == expected + 1)
    );

    // Messages name the field and its offset.
    assert_eq!(
        with(8, 0).to_string(),
        "PCAS: code_len 0 at offset 0x8 is out of range (1..=4096)"
    );
    assert_eq!(
        with(12, 129).to_string(),
        "PCAS: desc_len 129 at offset 0xc is out of range (0..=128)"
    );
    assert_eq!(
        with(16, 4096).to_string(),
        "PCAS: entry 4096 at offset 0x10 is outside code memory (0..4096)"
    );
    assert_eq!(
        with(24, 0x8_0000).to_string(),
        "PCAS: bool uniforms 0x00080000 at offset 0x18 have bits above b15 set"
    );
    assert_eq!(
        Case::parse(&long).unwrap_err().to_string(),
        format!(
            "PCAS: file is {} bytes, but its header (num_vertices 3 at offset 0x14) requires exactly {}",
            long.len(),
            bytes.len()
        )
    );
    assert_eq!(
        Case::parse(&bytes[..10]).unwrap_err(),
        CaseError::Truncated {
            format: "PCAS",
            field: "code_len",
            offset: 8,
            len: 10
        }
    );
    assert_eq!(
        Case::parse(&bytes[..30]).unwrap_err().to_string(),
        "PCAS: file is 30 bytes, too short for the int uniforms field at offset 0x1c"
    );
}

#[test]
fn pcas_every_truncation_errors() {
    for bytes in [sample_case().to_bytes(), sample_geometry_case().to_bytes()] {
        for n in 0..bytes.len() {
            assert!(Case::parse(&bytes[..n]).is_err(), "prefix {n}");
        }
    }
    for bytes in [
        sample_output().to_bytes(),
        sample_geometry_output().to_bytes(),
    ] {
        for n in 0..bytes.len() {
            assert!(CaseOutput::parse(&bytes[..n]).is_err(), "prefix {n}");
        }
    }
}

#[test]
fn pcas_v2_layout_and_round_trip() {
    let case = sample_geometry_case();
    let v1 = sample_case().to_bytes();
    let bytes = case.to_bytes();
    assert_eq!(case.version(), 2);
    // Version 1 with version 2, the shader kind at 44 and everything after it 4 bytes later.
    assert_eq!(bytes.len(), v1.len() + 4);
    assert_eq!(le32(&bytes, 4), 2);
    assert_eq!(bytes[8..44], v1[8..44]);
    assert_eq!(le32(&bytes, 44), 1);
    assert_eq!(bytes[48..], v1[44..]);
    assert_eq!(le32(&bytes, 48), 0x4e00_0000);

    let parsed = Case::parse(&bytes).unwrap();
    assert_eq!(bits(&parsed), bits(&case));
    assert_eq!(parsed.to_bytes(), bytes);
    assert_eq!(parsed.program().unwrap().kind, ShaderKind::Geometry);
    // A geometry program's case is a geometry case.
    let program = parsed.program().unwrap();
    let made = Case::from_program(&program, &case.uniforms, &case.inputs);
    assert_eq!(made.kind, ShaderKind::Geometry);
    assert_eq!(made.program().unwrap(), program);

    // Vertex cases are still written as version 1; a version 2 file of kind 0 is a vertex
    // case, written back as version 1.
    assert_eq!(sample_case().version(), 1);
    let mut vertex_v2 = bytes.clone();
    put_u32(&mut vertex_v2, 44, 0);
    let parsed = Case::parse(&vertex_v2).unwrap();
    assert_eq!(parsed.kind, ShaderKind::Vertex);
    assert_eq!(bits(&parsed), bits(&sample_case()));
    assert_eq!(parsed.to_bytes(), v1);
}

#[test]
fn pcas_v2_each_error() {
    let bytes = sample_geometry_case().to_bytes();
    let with = |offset: usize, value: u32| {
        let mut b = bytes.clone();
        put_u32(&mut b, offset, value);
        Case::parse(&b).unwrap_err()
    };
    assert_eq!(with(44, 2), CaseError::ShaderKind(2));
    assert_eq!(
        with(44, u32::MAX).to_string(),
        "PCAS: shader_kind 4294967295 at offset 0x2c is not 0 (vertex) or 1 (geometry)"
    );
    assert_eq!(
        Case::parse(&bytes[..46]).unwrap_err(),
        CaseError::Truncated {
            format: "PCAS",
            field: "shader_kind",
            offset: 44,
            len: 46
        }
    );
    assert_eq!(
        Case::parse(&bytes[..46]).unwrap_err().to_string(),
        "PCAS: file is 46 bytes, too short for the shader_kind field at offset 0x2c"
    );
    // The header fields of version 1 are checked as before.
    assert_eq!(with(8, 0), CaseError::CodeLen(0));
    assert_eq!(with(24, 0x2_0000), CaseError::BoolUpperBits(0x2_0000));
    assert_eq!(
        with(20, 2),
        CaseError::WrongSize {
            format: "PCAS",
            num_vertices: 2,
            num_vertices_offset: 20,
            expected: bytes.len() as u64 - 256,
            actual: bytes.len()
        }
    );
    // A version 1 file relabelled version 2 is 4 bytes short (or has a bad kind).
    let mut relabelled = sample_case().to_bytes();
    put_u32(&mut relabelled, 4, 2);
    assert!(matches!(
        Case::parse(&relabelled),
        Err(CaseError::ShaderKind(_) | CaseError::WrongSize { .. })
    ));
    // And a version 2 file relabelled version 1 is 4 bytes long.
    let mut relabelled = bytes.clone();
    put_u32(&mut relabelled, 4, 1);
    assert!(matches!(
        Case::parse(&relabelled),
        Err(CaseError::WrongSize { expected, actual, .. }) if actual as u64 == expected + 4
    ));
}

#[test]
fn pcou_v2_layout_and_round_trip() {
    let out = sample_geometry_output();
    let bytes = out.to_bytes();
    let v1 = sample_output().to_bytes();
    // Version 1's outputs and statuses, 4 triangle counts, 3 triangles of 4 + 3 × 256 bytes.
    assert_eq!(bytes.len(), v1.len() + 4 * 4 + 3 * 772);
    assert_eq!((le32(&bytes, 4), le32(&bytes, 8)), (2, 4));
    assert_eq!(bytes[8..v1.len()], v1[8..]);
    let counts = v1.len();
    assert_eq!(
        [0, 1, 2, 3].map(|v| le32(&bytes, counts + 4 * v)),
        [2, 0, 1, 0]
    );
    let first = counts + 16;
    assert_eq!(le32(&bytes, first), 0);
    assert_eq!(le32(&bytes, first + 4), SPECIALS[0]);
    // Triangle 0, vertex 1 (emitter slot 1), o0.x: seed 0 + 64.
    assert_eq!(le32(&bytes, first + 4 + 256), SPECIALS[64 % SPECIALS.len()]);
    assert_eq!(le32(&bytes, first + 772), 1);
    assert_eq!(le32(&bytes, first + 772 + 4), SPECIALS[3]);
    assert_eq!(le32(&bytes, first + 2 * 772), 1);
    assert_eq!(le32(&bytes, first + 2 * 772 + 4), SPECIALS[7]);

    let parsed = CaseOutput::parse(&bytes).unwrap();
    assert_eq!(output_bits(&parsed), output_bits(&out));
    assert_eq!(parsed.to_bytes(), bytes);
    let triangles = parsed.triangles.as_ref().unwrap();
    assert!(triangles[0][0].vertices[0][0][0].is_nan());
    assert_eq!(triangles[0][0].vertices[0][0][0].to_bits(), SPECIALS[0]);

    // No triangles at all is still a geometry output (version 2), not a vertex one.
    let none = CaseOutput {
        triangles: Some(vec![vec![]; 4]),
        ..sample_output()
    };
    let bytes = none.to_bytes();
    assert_eq!(bytes.len(), v1.len() + 16);
    assert_eq!(
        output_bits(&CaseOutput::parse(&bytes).unwrap()),
        output_bits(&none)
    );
    let empty = CaseOutput {
        triangles: Some(Vec::new()),
        ..CaseOutput::default()
    };
    assert_eq!(empty.to_bytes(), b"PCOU\x02\0\0\0\0\0\0\0");
    assert_eq!(CaseOutput::parse(&empty.to_bytes()).unwrap(), empty);
}

#[test]
fn pcou_v2_each_error() {
    let bytes = sample_geometry_output().to_bytes();
    let counts = sample_output().to_bytes().len();
    let first = counts + 16;
    let with = |offset: usize, value: u32| {
        let mut b = bytes.clone();
        put_u32(&mut b, offset, value);
        CaseOutput::parse(&b).unwrap_err()
    };
    // One more triangle counted than the file holds.
    assert_eq!(
        with(counts + 4, 1),
        CaseError::TriangleSize {
            triangles: 4,
            counts_offset: counts,
            expected: bytes.len() as u64 + 772,
            actual: bytes.len()
        }
    );
    assert_eq!(
        with(counts + 4, 1).to_string(),
        format!(
            "PCOU: file is {} bytes, but its triangle counts (at offset {counts:#x}, 4 triangles in all) require exactly {}",
            bytes.len(),
            bytes.len() + 772
        )
    );
    // Huge counts: a size error, summed without overflow and without allocating.
    let huge = with(counts, u32::MAX);
    assert!(
        matches!(huge, CaseError::TriangleSize { triangles, .. } if triangles == u64::from(u32::MAX) + 1),
        "{huge:?}"
    );
    assert_eq!(
        with(first + 772, 2),
        CaseError::UnknownWinding {
            invocation: 0,
            triangle: 1,
            offset: first + 772,
            value: 2
        }
    );
    assert_eq!(
        with(first + 2 * 772, 7).to_string(),
        format!(
            "PCOU: winding of triangle 0 of invocation 2 at offset {:#x} is 7, expected 0 (normal) or 1 (inverted)",
            first + 2 * 772
        )
    );
    // Statuses are checked as in version 1.
    assert!(matches!(
        with(counts - 4, 5),
        CaseError::UnknownStatus {
            vertex: 3,
            value: 5,
            ..
        }
    ));
    // Too short for the counts a header of this many invocations needs.
    assert_eq!(
        with(8, 100),
        CaseError::TooShort {
            format: "PCOU",
            num_vertices: 100,
            needed: 12 + 100 * 264,
            actual: bytes.len()
        }
    );
    assert_eq!(
        CaseOutput::parse(&bytes[..counts + 3]).unwrap_err().to_string(),
        format!(
            "PCOU: file is {} bytes, but its header (num_vertices 4 at offset 0x8) needs at least {} up to the end of the triangle counts",
            counts + 3,
            counts + 16
        )
    );
    assert!(matches!(
        with(8, u32::MAX),
        CaseError::TooShort {
            num_vertices: u32::MAX,
            ..
        }
    ));
    // A version 1 output relabelled version 2 lacks its counts.
    let mut relabelled = sample_output().to_bytes();
    put_u32(&mut relabelled, 4, 2);
    assert!(matches!(
        CaseOutput::parse(&relabelled),
        Err(CaseError::TooShort { .. })
    ));
}

#[test]
fn pcou_layout_and_round_trip() {
    let out = sample_output();
    let bytes = out.to_bytes();
    assert_eq!(bytes.len(), 12 + 4 * 256 + 4 * 4);
    assert_eq!(&bytes[..4], b"PCOU");
    assert_eq!((le32(&bytes, 4), le32(&bytes, 8)), (1, 4));
    assert_eq!(le32(&bytes, 12), 0x7fc0_1234);
    assert_eq!(le32(&bytes, 12 + 256), 0xffa0_0001);
    let status = 12 + 4 * 256;
    assert_eq!(
        [0, 1, 2, 3].map(|v| le32(&bytes, status + 4 * v)),
        [0, 1, 0, 1]
    );
    let parsed = CaseOutput::parse(&bytes).unwrap();
    assert_eq!(output_bits(&parsed), output_bits(&out));
    assert_eq!(parsed.to_bytes(), bytes);

    let empty = CaseOutput::default();
    assert_eq!(empty.to_bytes(), b"PCOU\x01\0\0\0\0\0\0\0");
    assert_eq!(CaseOutput::parse(&empty.to_bytes()).unwrap(), empty);
}

#[test]
fn pcou_each_error() {
    let bytes = sample_output().to_bytes();
    let status = 12 + 4 * 256;
    let mut bad = bytes.clone();
    put_u32(&mut bad, status + 8, 2);
    let err = CaseOutput::parse(&bad).unwrap_err();
    assert_eq!(
        err,
        CaseError::UnknownStatus {
            vertex: 2,
            offset: status + 8,
            value: 2
        }
    );
    assert_eq!(
        err.to_string(),
        format!("PCOU: status of vertex 2 at offset {:#x} is 2, expected 0 (ended) or 1 (step budget exhausted)", status + 8)
    );
    let mut bad = bytes.clone();
    put_u32(&mut bad, 4, 0);
    assert_eq!(
        CaseOutput::parse(&bad).unwrap_err(),
        CaseError::BadVersion {
            format: "PCOU",
            found: 0
        }
    );
    let mut bad = bytes.clone();
    bad[3] = b'S';
    assert_eq!(
        CaseOutput::parse(&bad).unwrap_err(),
        CaseError::BadMagic {
            format: "PCOU",
            found: "PCOS".into()
        }
    );
    let mut bad = bytes.clone();
    put_u32(&mut bad, 8, u32::MAX);
    assert_eq!(
        CaseOutput::parse(&bad).unwrap_err(),
        CaseError::WrongSize {
            format: "PCOU",
            num_vertices: u32::MAX,
            num_vertices_offset: 8,
            expected: 12 + u64::from(u32::MAX) * 260,
            actual: bytes.len()
        }
    );
    assert_eq!(
        CaseOutput::parse(b"PCOU\x01\0\0\0\0\0").unwrap_err(),
        CaseError::Truncated {
            format: "PCOU",
            field: "num_vertices",
            offset: 8,
            len: 10
        }
    );
    assert_eq!(
        CaseOutput::parse(b"PC").unwrap_err(),
        CaseError::Truncated {
            format: "PCOU",
            field: "magic",
            offset: 0,
            len: 2
        }
    );
}

#[test]
fn pcou_status_list_shorter_than_outputs() {
    let mut out = sample_output();
    out.status.truncate(1);
    let parsed = CaseOutput::parse(&out.to_bytes()).unwrap();
    assert_eq!(
        parsed.status,
        vec![
            VertexStatus::Ended,
            VertexStatus::Ended,
            VertexStatus::Ended,
            VertexStatus::Ended
        ]
    );
}

/// Random bytes, random headers and mutated valid files: parsing never panics, and whatever is
/// accepted is written back unchanged.
#[test]
fn random_bytes_never_panic() {
    let mut rng = fastrand::Rng::with_seed(0xca5e_f11e);
    let valid = [
        sample_case().to_bytes(),
        sample_output().to_bytes(),
        sample_geometry_case().to_bytes(),
        sample_geometry_output().to_bytes(),
    ];
    let (mut accepted, mut cases) = (0, 0);
    for round in 0..30_000 {
        let bytes: Vec<u8> = match round % 3 {
            0 => (0..rng.usize(..700)).map(|_| rng.u8(..)).collect(),
            1 => {
                // Plausible header, random rest.
                let magic: &[u8] = if rng.bool() { b"PCAS" } else { b"PCOU" };
                let mut b = magic.to_vec();
                for _ in 0..rng.usize(1..8) {
                    b.extend_from_slice(&rng.u32(..6).to_le_bytes());
                }
                let len = rng.usize(..2500);
                b.extend((0..len).map(|_| rng.u8(..)));
                b
            }
            _ => {
                let mut b = valid[rng.usize(..valid.len())].clone();
                for _ in 0..rng.usize(1..4) {
                    let at = rng.usize(..b.len().min(64));
                    b[at] = if rng.bool() {
                        rng.u8(..)
                    } else {
                        b[at] ^ 1 << rng.u8(..8)
                    };
                }
                if rng.u8(..4) == 0 {
                    b.truncate(rng.usize(..b.len()));
                }
                b
            }
        };
        cases += 1;
        if let Ok(case) = Case::parse(&bytes) {
            accepted += 1;
            // Written back byte for byte, but for a version 2 vertex case (written as 1).
            let written = case.to_bytes();
            if le32(&bytes, 4) == 2 && case.kind == ShaderKind::Vertex {
                assert_eq!(written[44..], bytes[48..]);
                assert_eq!(bits(&Case::parse(&written).unwrap()), bits(&case));
            } else {
                assert_eq!(written, bytes);
            }
            let _ = case.program();
        }
        if let Ok(out) = CaseOutput::parse(&bytes) {
            accepted += 1;
            assert_eq!(out.to_bytes(), bytes);
        }
    }
    assert_eq!(cases, 30_000);
    assert!(accepted > 1_000, "only {accepted} inputs accepted");
}
