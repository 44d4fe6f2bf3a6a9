//! The emulator's AVX-512 forms on a host without AVX-512. Where an EVEX instruction has an
//! AVX2 counterpart, the counterpart runs on the CPU (twice, once per 256-bit half) and the EVEX
//! form — at 512 bits, with merge and zero masking, with a `{1to16}` broadcast operand — runs
//! in the emulator; per lane the result must be the CPU's where the opmask bit is set and the
//! old value or zero where it is not. The EVEX-only instructions (two-table permutes, opmask
//! logic, blends by mask, ternary logic, lane-mask conversions, 128-bit lane moves) are checked
//! against their definitions. Special floats (NaN payloads, ±0, ±inf, denormals) throughout.

use picajit_codegen::abi::{scratch_offset, Context};
use picajit_codegen::code::ExecCode;
use picajit_codegen::emu::{Machine, Region};
use picajit_codegen::x64::asm::{self, Mem as AMem, Ops, Tier, VOp};
use picajit_codegen::x64::evex::{encode, encode_k, splice, Inst, KOp, Mem, Op, Rm, Vl};
use picajit_codegen::x64::{Compiled, IoMode};

/// Scratch slots of the context used as data: A, B (sources), D (the destination's old value),
/// K (opmask word), OUT.
const A: i32 = scratch_offset(0);
const B: i32 = scratch_offset(1);
const D: i32 = scratch_offset(2);
const K: i32 = scratch_offset(3);
const OUT: i32 = scratch_offset(4);

const CODE: u64 = 0x10_0000;
const DATA: u64 = 0x4000_0000;
const STACK: u64 = 0x7000_0000;

struct Data {
    a: [u32; 16],
    b: [u32; 16],
    d: [u32; 16],
    k: u16,
}

fn special(rng: &mut fastrand::Rng) -> u32 {
    match rng.u8(0..12) {
        0 => 0x7FC0_0000 | rng.u32(0..0x40_0000),
        1 => 0xFF80_0001 + rng.u32(0..0x3F_FFFF),
        2 => 0,
        3 => 0x8000_0000,
        4 => 0x7F80_0000,
        5 => 0xFF80_0000,
        6 => rng.u32(1..0x80_0000),
        7 => rng.u32(0..16) << 23 | 0x3F80_0000,
        _ => rng.u32(..),
    }
}

impl Data {
    fn new(seed: u64) -> Data {
        let mut rng = fastrand::Rng::with_seed(seed);
        Data {
            a: std::array::from_fn(|_| special(&mut rng)),
            b: std::array::from_fn(|_| special(&mut rng)),
            d: std::array::from_fn(|_| special(&mut rng)),
            k: rng.u16(..),
        }
    }

    fn image(&self) -> Vec<u8> {
        let mut img = vec![0u8; (OUT + 64) as usize];
        let put = |img: &mut [u8], at: i32, w: &[u32]| {
            for (i, x) in w.iter().enumerate() {
                img[at as usize + 4 * i..at as usize + 4 * i + 4].copy_from_slice(&x.to_le_bytes());
            }
        };
        put(&mut img, A, &self.a);
        put(&mut img, B, &self.b);
        put(&mut img, D, &self.d);
        put(&mut img, K, &[u32::from(self.k)]);
        img
    }
}

fn words(img: &[u8], at: i32) -> [u32; 16] {
    std::array::from_fn(|i| {
        let o = at as usize + 4 * i;
        u32::from_le_bytes([img[o], img[o + 1], img[o + 2], img[o + 3]])
    })
}

/// Runs `code` in the emulator with `rdi` at the image; returns the image.
fn emulate(code: Vec<u8>, image: Vec<u8>) -> Vec<u8> {
    let mut m = Machine::new(vec![
        Region {
            base: CODE,
            bytes: code,
            writable: false,
        },
        Region {
            base: DATA,
            bytes: image,
            writable: true,
        },
        Region {
            base: STACK,
            bytes: vec![0; 8],
            writable: true,
        },
    ]);
    m.call(CODE, DATA, STACK).expect("emulates");
    m.regions()[1].bytes.clone()
}

/// Runs AVX2 `code` on the CPU with `rdi` at a context whose scratch slots hold the data.
fn native(code: Vec<u8>, data: &Data) -> [u32; 16] {
    let compiled = Compiled {
        code_len: code.len(),
        code,
        tier: Tier::Avx2,
        spill_slots: 0,
        io: IoMode::Aos,
    };
    let exec = ExecCode::new(&compiled).expect("host has AVX2");
    let mut ctx = Context::default();
    ctx.scratch[0].0 = data.a.map(f32::from_bits);
    ctx.scratch[1].0 = data.b.map(f32::from_bits);
    ctx.scratch[2].0 = data.d.map(f32::from_bits);
    // No batches: the code runs once, reads and writes only the scratch slots, and returns.
    exec.run_aos(&mut ctx, &[], &mut [], &mut [], None)
        .expect("native run");
    ctx.scratch[4].0.map(f32::to_bits)
}

fn zmm_mem(disp: i32) -> Rm {
    Rm::Mem(Mem::base(7, disp))
}

fn ev(ops: &mut Ops, i: Inst) {
    splice(ops, &encode(&i).expect("encodes"));
}

/// `OUT = D; OUT{k}{z} = A op B` (B broadcast from its first element if `bcst`).
fn evex_program(op: Op, imm: u8, zeroing: bool, bcst: bool) -> Vec<u8> {
    let mut ops = Ops::new(0);
    ev(
        &mut ops,
        Inst::rvm(Op::MovupsLoad, Vl::V512, 17, 0, zmm_mem(A)),
    );
    ev(
        &mut ops,
        Inst::rvm(Op::MovupsLoad, Vl::V512, 30, 0, zmm_mem(D)),
    );
    splice(
        &mut ops,
        &encode_k(KOp::KMovWLoad, 5, 0, Rm::Mem(Mem::base(7, K))).expect("k"),
    );
    let info = op.info();
    let two = matches!(
        info.shape,
        picajit_codegen::x64::evex::Shape::Rvm | picajit_codegen::x64::evex::Shape::Rvmi
    );
    let rm = if bcst { zmm_mem(B) } else { Rm::Reg(25) };
    if !bcst {
        ev(
            &mut ops,
            Inst::rvm(Op::MovupsLoad, Vl::V512, 25, 0, zmm_mem(B)),
        );
    }
    let i = Inst {
        mask: 5,
        zeroing,
        bcst,
        imm,
        ..Inst::rvm(
            op,
            Vl::V512,
            30,
            if two { 17 } else { 0 },
            if two { rm } else { Rm::Reg(17) },
        )
    };
    ev(&mut ops, i);
    ev(
        &mut ops,
        Inst::rvm(Op::MovupsStore, Vl::V512, 30, 0, zmm_mem(OUT)),
    );
    dynasmrt::dynasm!(ops ; .arch x64 ; ret);
    ops.finalize().expect("assembles")
}

/// The AVX2 counterpart, per 256-bit half: `OUT = emit(A, B)`.
fn avx2_program(emit: &dyn Fn(&mut Ops)) -> Vec<u8> {
    let mut ops = Ops::new(0);
    for half in 0..2 {
        asm::load(&mut ops, Tier::Avx2, 1, AMem::Ctx(A + 32 * half));
        asm::load(&mut ops, Tier::Avx2, 2, AMem::Ctx(B + 32 * half));
        emit(&mut ops);
        asm::store(&mut ops, Tier::Avx2, OUT + 32 * half, 3);
    }
    asm::leave(&mut ops, Tier::Avx2);
    ops.finalize().expect("assembles")
}

fn host_ok() -> bool {
    if Tier::Avx2.host_supports() {
        true
    } else {
        eprintln!("SKIPPED: the CPU reference needs AVX2");
        false
    }
}

#[test]
fn evex_arithmetic_matches_the_cpu_under_masks_and_broadcasts() {
    if !host_ok() {
        return;
    }
    type Emit = Box<dyn Fn(&mut Ops)>;
    let binary =
        |op: VOp| -> Emit { Box::new(move |o: &mut Ops| asm::vop(o, Tier::Avx2, op, 3, 1, 2)) };
    let cases: Vec<(Op, u8, Emit)> = vec![
        (Op::AddPs, 0, binary(VOp::AddPs)),
        (Op::SubPs, 0, binary(VOp::SubPs)),
        (Op::MulPs, 0, binary(VOp::MulPs)),
        (Op::DivPs, 0, binary(VOp::DivPs)),
        (Op::MinPs, 0, binary(VOp::MinPs)),
        (Op::MaxPs, 0, binary(VOp::MaxPs)),
        (Op::AndPs, 0, binary(VOp::AndPs)),
        (Op::AndnPs, 0, binary(VOp::AndnPs)),
        (Op::OrPs, 0, binary(VOp::OrPs)),
        (Op::XorPs, 0, binary(VOp::XorPs)),
        (Op::UnpcklPs, 0, binary(VOp::UnpckLps)),
        (Op::UnpckhPs, 0, binary(VOp::UnpckHps)),
        (Op::UnpcklPd, 0, binary(VOp::UnpckLpd)),
        (Op::UnpckhPd, 0, binary(VOp::UnpckHpd)),
        (Op::PAddD, 0, binary(VOp::PAddD)),
        (Op::AddPd, 0, binary(VOp::AddPd)),
        (Op::MulPd, 0, binary(VOp::MulPd)),
        (Op::SubPd, 0, binary(VOp::SubPd)),
        (Op::DivPd, 0, binary(VOp::DivPd)),
        (
            Op::SqrtPs,
            0,
            Box::new(|o: &mut Ops| asm::sqrt_ps(o, Tier::Avx2, 3, 1)),
        ),
        (
            Op::CvttPs2Dq,
            0,
            Box::new(|o: &mut Ops| asm::cvtt_ps2dq(o, Tier::Avx2, 3, 1)),
        ),
        (
            Op::RndScalePs,
            9,
            Box::new(|o: &mut Ops| asm::round_ps(o, Tier::Avx2, 3, 1, 9)),
        ),
        (
            Op::RndScalePs,
            8,
            Box::new(|o: &mut Ops| asm::round_ps(o, Tier::Avx2, 3, 1, 8)),
        ),
        (
            Op::RndScalePs,
            10,
            Box::new(|o: &mut Ops| asm::round_ps(o, Tier::Avx2, 3, 1, 10)),
        ),
        (
            Op::RndScalePs,
            11,
            Box::new(|o: &mut Ops| asm::round_ps(o, Tier::Avx2, 3, 1, 11)),
        ),
        (
            Op::RndScalePd,
            8,
            Box::new(|o: &mut Ops| asm::round_pd(o, Tier::Avx2, 3, 1, 8)),
        ),
    ];
    let mut checked = 0;
    for (op, imm, emit) in &cases {
        let unary = !matches!(op.info().shape, picajit_codegen::x64::evex::Shape::Rvm);
        for seed in 0..24u64 {
            let mut data = Data::new(seed * 131 + *op as u64);
            let bcst = !unary && op.info().bcst && seed % 3 == 2;
            let elem64 = op.info().w;
            if bcst {
                // The CPU reference sees the broadcast operand spelled out.
                if elem64 {
                    let (lo, hi) = (data.b[0], data.b[1]);
                    data.b = std::array::from_fn(|i| if i % 2 == 0 { lo } else { hi });
                } else {
                    data.b = [data.b[0]; 16];
                }
            }
            let zeroing = seed % 2 == 1;
            let cpu = native(avx2_program(emit.as_ref()), &data);
            let img = emulate(evex_program(*op, *imm, zeroing, bcst), data.image());
            let got = words(&img, OUT);
            // An opmask bit selects one element: a word, or a pair of words for doubles.
            let want: Vec<u32> = (0..16)
                .map(|i| {
                    let e = if elem64 { i / 2 } else { i };
                    if data.k >> e & 1 != 0 {
                        cpu[i]
                    } else if zeroing {
                        0
                    } else {
                        data.d[i]
                    }
                })
                .collect();
            assert_eq!(
                got.to_vec(),
                want,
                "{op:?} imm {imm} seed {seed} zeroing {zeroing} bcst {bcst} k {:#06x}",
                data.k
            );
            checked += 1;
        }
    }
    eprintln!(
        "EVEX arithmetic vs CPU: {} forms, {checked} runs, 0 differences",
        cases.len()
    );
}

#[test]
fn evex_compares_into_opmasks_match_the_cpu() {
    if !host_ok() {
        return;
    }
    let preds = [
        (0u8, VOp::CmpEqPs),
        (1, VOp::CmpLtPs),
        (2, VOp::CmpLePs),
        (3, VOp::CmpUnordPs),
        (4, VOp::CmpNeqPs),
        (7, VOp::CmpOrdPs),
    ];
    for (pred, vop) in preds {
        for seed in 0..32u64 {
            let mut data = Data::new(seed + 1000 * u64::from(pred));
            if seed % 4 == 0 {
                data.b = data.a;
            }
            let cpu = native(
                avx2_program(&|o: &mut Ops| asm::vop(o, Tier::Avx2, vop, 3, 1, 2)),
                &data,
            );
            let mut ops = Ops::new(0);
            ev(
                &mut ops,
                Inst::rvm(Op::MovupsLoad, Vl::V512, 20, 0, zmm_mem(A)),
            );
            splice(
                &mut ops,
                &encode_k(KOp::KMovWLoad, 6, 0, Rm::Mem(Mem::base(7, K))).expect("k"),
            );
            ev(
                &mut ops,
                Inst {
                    mask: 6,
                    imm: pred,
                    ..Inst::rvm(Op::CmpPs, Vl::V512, 2, 20, zmm_mem(B))
                },
            );
            splice(
                &mut ops,
                &encode_k(KOp::KMovWStore, 2, 0, Rm::Mem(Mem::base(7, OUT))).expect("k"),
            );
            dynasmrt::dynasm!(ops ; .arch x64 ; ret);
            let img = emulate(ops.finalize().expect("assembles"), data.image());
            let got = words(&img, OUT)[0] & 0xFFFF;
            let want =
                (0..16).fold(0u32, |acc, i| acc | u32::from(cpu[i] != 0) << i) & u32::from(data.k);
            assert_eq!(got, want, "vcmpps pred {pred} seed {seed}");
        }
    }
}

/// Emulates `body` with zmm1 = A, zmm2 = B, zmm3 = D, k1 = K loaded, and zmm3 stored to OUT
/// afterwards.
fn run_body(data: &Data, body: &dyn Fn(&mut Ops)) -> [u32; 16] {
    let mut ops = Ops::new(0);
    ev(
        &mut ops,
        Inst::rvm(Op::MovupsLoad, Vl::V512, 1, 0, zmm_mem(A)),
    );
    ev(
        &mut ops,
        Inst::rvm(Op::MovupsLoad, Vl::V512, 2, 0, zmm_mem(B)),
    );
    ev(
        &mut ops,
        Inst::rvm(Op::MovupsLoad, Vl::V512, 3, 0, zmm_mem(D)),
    );
    splice(
        &mut ops,
        &encode_k(KOp::KMovWLoad, 1, 0, Rm::Mem(Mem::base(7, K))).expect("k"),
    );
    body(&mut ops);
    ev(
        &mut ops,
        Inst::rvm(Op::MovupsStore, Vl::V512, 3, 0, zmm_mem(OUT)),
    );
    dynasmrt::dynasm!(ops ; .arch x64 ; ret);
    words(
        &emulate(ops.finalize().expect("assembles"), data.image()),
        OUT,
    )
}

#[test]
fn evex_only_instructions_follow_their_definitions() {
    for seed in 0..16u64 {
        let mut data = Data::new(seed + 77);
        let (a, b, d, k) = (data.a, data.b, data.d, data.k);
        // vpermt2ps zmm3, zmm1 (indices), zmm2: table (zmm3, zmm2).
        let idx: [u32; 16] = std::array::from_fn(|i| (a[i] ^ (i as u32 * 7)) & 0xFF);
        data.a = idx;
        let got = run_body(&data, &|o| {
            ev(o, Inst::rvm(Op::PermT2Ps, Vl::V512, 3, 1, Rm::Reg(2)))
        });
        let want: [u32; 16] = std::array::from_fn(|i| {
            let j = (idx[i] & 31) as usize;
            if j < 16 {
                d[j]
            } else {
                b[j - 16]
            }
        });
        assert_eq!(got, want, "vpermt2ps seed {seed}");
        // vpermi2ps zmm3 (indices), zmm1, zmm2: table (zmm1, zmm2).
        data.d = std::array::from_fn(|i| (d[i] >> 3) & 0xFF);
        let got = run_body(&data, &|o| {
            ev(o, Inst::rvm(Op::PermI2Ps, Vl::V512, 3, 1, Rm::Reg(2)))
        });
        let want: [u32; 16] = std::array::from_fn(|i| {
            let j = (data.d[i] & 31) as usize;
            if j < 16 {
                idx[j]
            } else {
                b[j - 16]
            }
        });
        assert_eq!(got, want, "vpermi2ps seed {seed}");
        data.d = d;
        data.a = a;
        // vpermps zmm3, zmm1 (indices), zmm2.
        let got = run_body(&data, &|o| {
            ev(o, Inst::rvm(Op::PermPs, Vl::V512, 3, 1, Rm::Reg(2)))
        });
        let want: [u32; 16] = std::array::from_fn(|i| b[(a[i] & 15) as usize]);
        assert_eq!(got, want, "vpermps seed {seed}");
        // vblendmps zmm3{k1}, zmm1, zmm2: k ? B : A.
        let got = run_body(&data, &|o| {
            ev(
                o,
                Inst {
                    mask: 1,
                    ..Inst::rvm(Op::BlendMps, Vl::V512, 3, 1, Rm::Reg(2))
                },
            )
        });
        let want: [u32; 16] = std::array::from_fn(|i| if k >> i & 1 != 0 { b[i] } else { a[i] });
        assert_eq!(got, want, "vblendmps seed {seed}");
        // vpternlogd 0xCA: D ? A : B bitwise.
        let got = run_body(&data, &|o| {
            ev(
                o,
                Inst {
                    imm: 0xCA,
                    ..Inst::rvm(Op::PTernLogD, Vl::V512, 3, 1, Rm::Reg(2))
                },
            )
        });
        let want: [u32; 16] = std::array::from_fn(|i| (d[i] & a[i]) | (!d[i] & b[i]));
        assert_eq!(got, want, "vpternlogd seed {seed}");
        // vpmovd2m k2, zmm1; korw k3, k2, k1; knotw k4, k3; vpmovm2d zmm3, k4.
        let got = run_body(&data, &|o| {
            ev(o, Inst::rvm(Op::PMovD2M, Vl::V512, 2, 0, Rm::Reg(1)));
            splice(o, &encode_k(KOp::KOrW, 3, 2, Rm::Reg(1)).expect("k"));
            splice(o, &encode_k(KOp::KNotW, 4, 0, Rm::Reg(3)).expect("k"));
            ev(o, Inst::rvm(Op::PMovM2D, Vl::V512, 3, 0, Rm::Reg(4)));
        });
        let signs = (0..16).fold(0u16, |acc, i| acc | ((a[i] >> 31) as u16) << i);
        let bits = !(signs | k);
        let want: [u32; 16] =
            std::array::from_fn(|i| if bits >> i & 1 != 0 { u32::MAX } else { 0 });
        assert_eq!(got, want, "mask ops seed {seed}");
        // vpmovm2q zmm3, k1: each opmask bit as a 64-bit lane.
        let got = run_body(&data, &|o| {
            ev(o, Inst::rvm(Op::PMovM2Q, Vl::V512, 3, 0, Rm::Reg(1)))
        });
        let want: [u32; 16] =
            std::array::from_fn(|i| if k >> (i / 2) & 1 != 0 { u32::MAX } else { 0 });
        assert_eq!(got, want, "vpmovm2q seed {seed}");
        // vpsrlq zmm3, zmm1, 52 (the destination is EVEX.vvvv).
        let got = run_body(&data, &|o| {
            ev(
                o,
                Inst {
                    imm: 52,
                    ..Inst::rvm(Op::PSrlQ, Vl::V512, 0, 3, Rm::Reg(1))
                },
            )
        });
        let want: [u32; 16] = std::array::from_fn(|i| {
            let q = u64::from(a[i & !1]) | u64::from(a[i | 1]) << 32;
            let r = q >> 52;
            if i % 2 == 0 {
                r as u32
            } else {
                (r >> 32) as u32
            }
        });
        assert_eq!(got, want, "vpsrlq seed {seed}");
        // vpcmpd k2{k1}, zmm1, zmm2, LT; vpmovm2d zmm3, k2.
        let got = run_body(&data, &|o| {
            ev(
                o,
                Inst {
                    mask: 1,
                    imm: 1,
                    ..Inst::rvm(Op::PCmpD, Vl::V512, 2, 1, Rm::Reg(2))
                },
            );
            ev(o, Inst::rvm(Op::PMovM2D, Vl::V512, 3, 0, Rm::Reg(2)));
        });
        let want: [u32; 16] = std::array::from_fn(|i| {
            if k >> i & 1 != 0 && (a[i] as i32) < (b[i] as i32) {
                u32::MAX
            } else {
                0
            }
        });
        assert_eq!(got, want, "vpcmpd seed {seed}");
        // vshuff32x4 zmm3, zmm1, zmm2, 0b01_11_10_00: lanes A0, A2, B3, B1.
        let got = run_body(&data, &|o| {
            ev(
                o,
                Inst {
                    imm: 0b01_11_10_00,
                    ..Inst::rvm(Op::ShufF32x4, Vl::V512, 3, 1, Rm::Reg(2))
                },
            )
        });
        let lane = |v: &[u32; 16], l: usize, i: usize| v[4 * l + i];
        let want: [u32; 16] = std::array::from_fn(|i| match i / 4 {
            0 => lane(&a, 0, i % 4),
            1 => lane(&a, 2, i % 4),
            2 => lane(&b, 3, i % 4),
            _ => lane(&b, 1, i % 4),
        });
        assert_eq!(got, want, "vshuff32x4 seed {seed}");
        // vextractf32x4 xmm4, zmm2, 3; vinsertf32x4 zmm3{k1}{z}, zmm1, xmm4, 1.
        let got = run_body(&data, &|o| {
            ev(
                o,
                Inst {
                    imm: 3,
                    ..Inst::rvm(Op::ExtractF32x4, Vl::V512, 2, 0, Rm::Reg(4))
                },
            );
            ev(
                o,
                Inst {
                    imm: 1,
                    mask: 1,
                    zeroing: true,
                    ..Inst::rvm(Op::InsertF32x4, Vl::V512, 3, 1, Rm::Reg(4))
                },
            );
        });
        let want: [u32; 16] = std::array::from_fn(|i| {
            let v = if i / 4 == 1 { b[12 + i % 4] } else { a[i] };
            if k >> i & 1 != 0 {
                v
            } else {
                0
            }
        });
        assert_eq!(got, want, "vextractf32x4/vinsertf32x4 seed {seed}");
        // vbroadcastf32x4 zmm3{k1}, [B]: merge masking.
        let got = run_body(&data, &|o| {
            ev(
                o,
                Inst {
                    mask: 1,
                    ..Inst::rvm(Op::BroadcastF32x4, Vl::V512, 3, 0, zmm_mem(B))
                },
            )
        });
        let want: [u32; 16] =
            std::array::from_fn(|i| if k >> i & 1 != 0 { b[i % 4] } else { d[i] });
        assert_eq!(got, want, "vbroadcastf32x4 seed {seed}");
        // ymm form: VL=256 zeroes the upper half of the zmm register.
        let got = run_body(&data, &|o| {
            ev(o, Inst::rvm(Op::AddPs, Vl::V256, 3, 1, Rm::Reg(1)))
        });
        assert_eq!(&got[8..], &[0; 8], "256-bit EVEX write clears bits 511:256");
    }
}
