//! Tests of the PCAS/PCOU readers and writers.
use super::*;

/// A case with every float as its bits: code, descs, entry, float uniforms, int uniforms, bool
/// uniforms, inputs.
type CaseBits = (
    Vec<u32>,
    Vec<u32>,
    u32,
    Vec<u32>,
    [[u8; 4]; 4],
    u16,
    Vec<u32>,
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
    )
}

fn output_bits(out: &CaseOutput) -> (Vec<u32>, Vec<VertexStatus>) {
    (
        out.outputs
            .iter()
            .flatten()
            .flatten()
            .map(|x| x.to_bits())
            .collect(),
        out.status.clone(),
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
        with(4, 2),
        CaseError::BadVersion {
            format: "PCAS",
            found: 2
        }
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
    let bytes = sample_case().to_bytes();
    for n in 0..bytes.len() {
        assert!(Case::parse(&bytes[..n]).is_err(), "prefix {n}");
    }
    let bytes = sample_output().to_bytes();
    for n in 0..bytes.len() {
        assert!(CaseOutput::parse(&bytes[..n]).is_err(), "prefix {n}");
    }
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
    let valid_case = sample_case().to_bytes();
    let valid_out = sample_output().to_bytes();
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
                let mut b = if rng.bool() {
                    valid_case.clone()
                } else {
                    valid_out.clone()
                };
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
            assert_eq!(case.to_bytes(), bytes);
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
