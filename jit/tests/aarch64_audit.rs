//! Every instruction template of the AArch64 backend (`aarch64::asm`), assembled by dynasm, must
//! be exactly the instruction intended, and the runner stub must decode.
//!
//! Expected encodings are written out by hand from the field layouts of the Arm Architecture
//! Reference Manual (A64 "Advanced SIMD three same", "two-register miscellaneous", load/store
//! unsigned offset, …) and were cross-checked with GNU objdump (binutils-aarch64-linux-gnu);
//! the objdump text of each is in the comment beside it. Lane-wise vector templates are
//! checked field by field over many register choices (`Rd` bits 0–4, `Rn` 5–9, `Rm` 16–20),
//! so a register landing in the wrong field cannot hide behind a symmetric choice. Every word is
//! also decoded by yaxpeax-arm (the `picajit dump --asm` disassembler), which must accept it.

use picajit_codegen::aarch64::asm::{self, scalar, Ops, UOp, VOp};
use picajit_codegen::aarch64::dump::decode_word;

fn emit(f: impl FnOnce(&mut Ops)) -> Vec<u32> {
    let mut ops = Ops::new(0);
    f(&mut ops);
    let code = ops.finalize().expect("assembles");
    code.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[track_caller]
fn check(expected: &[u32], f: impl FnOnce(&mut Ops)) {
    let got = emit(f);
    assert_eq!(
        got, expected,
        "template encodes differently: {:08X?} vs {:08X?}",
        got, expected
    );
}

/// Register triples covering every field bit (0, 31 and mixed patterns).
const REGS: [(u8, u8, u8); 6] = [
    (0, 0, 0),
    (1, 2, 4),
    (31, 16, 8),
    (8, 31, 16),
    (16, 8, 31),
    (21, 10, 5),
];

/// (op, encoding with all register fields 0, mnemonic).
const VOPS: [(VOp, u32, &str); 28] = [
    (VOp::FAdd, 0x4E20_D400, "fadd"),    // fadd v0.4s, v0.4s, v0.4s
    (VOp::FSub, 0x4EA0_D400, "fsub"),    // fsub v0.4s, …
    (VOp::FMul, 0x6E20_DC00, "fmul"),    // fmul v0.4s, …
    (VOp::FMulx, 0x4E20_DC00, "fmulx"),  // fmulx v0.4s, …
    (VOp::FDiv, 0x6E20_FC00, "fdiv"),    // fdiv v0.4s, …
    (VOp::FCmEq, 0x4E20_E400, "fcmeq"),  // fcmeq v0.4s, …
    (VOp::FCmGt, 0x6EA0_E400, "fcmgt"),  // fcmgt v0.4s, …
    (VOp::FCmGe, 0x6E20_E400, "fcmge"),  // fcmge v0.4s, …
    (VOp::FAddD, 0x4E60_D400, "fadd"),   // fadd v0.2d, …
    (VOp::FSubD, 0x4EE0_D400, "fsub"),   // fsub v0.2d, …
    (VOp::FMulD, 0x6E60_DC00, "fmul"),   // fmul v0.2d, …
    (VOp::FDivD, 0x6E60_FC00, "fdiv"),   // fdiv v0.2d, …
    (VOp::FCmGtD, 0x6EE0_E400, "fcmgt"), // fcmgt v0.2d, …
    (VOp::AddS, 0x4EA0_8400, "add"),     // add v0.4s, …
    (VOp::CmGtS, 0x4EA0_3400, "cmgt"),   // cmgt v0.4s, …
    (VOp::CmEqS, 0x6EA0_8C00, "cmeq"),   // cmeq v0.4s, …
    (VOp::And, 0x4E20_1C00, "and"),      // and v0.16b, …
    (VOp::Orr, 0x4EA0_1C00, "orr"),      // orr v0.16b, … (objdump: mov when n = m)
    (VOp::Orn, 0x4EE0_1C00, "orn"),      // orn v0.16b, …
    (VOp::Bic, 0x4E60_1C00, "bic"),      // bic v0.16b, …
    (VOp::Eor, 0x6E20_1C00, "eor"),      // eor v0.16b, …
    (VOp::Bsl, 0x6E60_1C00, "bsl"),      // bsl v0.16b, …
    (VOp::Bit, 0x6EA0_1C00, "bit"),      // bit v0.16b, …
    (VOp::Bif, 0x6EE0_1C00, "bif"),      // bif v0.16b, …
    (VOp::Trn1S, 0x4E80_2800, "trn1"),   // trn1 v0.4s, …
    (VOp::Trn2S, 0x4E80_6800, "trn2"),   // trn2 v0.4s, …
    (VOp::Trn1D, 0x4EC0_2800, "trn1"),   // trn1 v0.2d, …
    (VOp::Trn2D, 0x4EC0_6800, "trn2"),   // trn2 v0.2d, …
];

/// (op, encoding with all register fields 0, mnemonic).
const UOPS: [(UOp, u32, &str); 13] = [
    (UOp::Mov, 0x4EA0_1C00, "mov"), // mov v0.16b, v0.16b (orr with n = m)
    (UOp::FNeg, 0x6EA0_F800, "fneg"), // fneg v0.4s, v0.4s
    (UOp::FRintM, 0x4E21_9800, "frintm"), // frintm v0.4s, v0.4s
    (UOp::FRintND, 0x4E61_8800, "frintn"), // frintn v0.2d, v0.2d
    (UOp::FSqrt, 0x6EA1_F800, "fsqrt"), // fsqrt v0.4s, v0.4s
    (UOp::FCvtzs, 0x4EA1_B800, "fcvtzs"), // fcvtzs v0.4s, v0.4s
    (UOp::Not, 0x6E20_5800, "mvn"), // mvn v0.16b, v0.16b (alias of not)
    (UOp::FCvtl, 0x0E61_7800, "fcvtl"), // fcvtl v0.2d, v0.2s
    (UOp::FCvtl2, 0x4E61_7800, "fcvtl2"), // fcvtl2 v0.2d, v0.4s
    (UOp::FCvtn, 0x0E61_6800, "fcvtn"), // fcvtn v0.2s, v0.2d
    (UOp::FCvtn2, 0x4E61_6800, "fcvtn2"), // fcvtn2 v0.4s, v0.2d
    (UOp::FCmGeZero, 0x6EA0_C800, "fcmge"), // fcmge v0.4s, v0.4s, #0.0
    (UOp::FCmEqZero, 0x4EA0_D800, "fcmeq"), // fcmeq v0.4s, v0.4s, #0.0
];

fn mnemonic(word: u32) -> String {
    decode_word(word)
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string()
}

#[test]
fn three_register_vector_templates_put_each_register_in_its_field() {
    for (op, base, name) in VOPS {
        for (d, a, b) in REGS {
            let want = base | u32::from(b) << 16 | u32::from(a) << 5 | u32::from(d);
            check(&[want], |o| asm::vop(o, op, d, a, b));
            if a != b {
                assert_eq!(mnemonic(want), name, "{op:?}: {}", decode_word(want));
            }
        }
    }
}

#[test]
fn two_register_vector_templates_put_each_register_in_its_field() {
    for (op, base, name) in UOPS {
        for (d, a, _) in REGS {
            // MOV is ORR with the source in both Rn and Rm.
            let m = if op == UOp::Mov {
                u32::from(a) << 16
            } else {
                0
            };
            let want = base | m | u32::from(a) << 5 | u32::from(d);
            check(&[want], |o| asm::uop(o, op, d, a));
            assert_eq!(mnemonic(want), name, "{op:?}: {}", decode_word(want));
        }
    }
    // mov d, d emits nothing.
    check(&[], |o| asm::mov(o, 7, 7));
}

#[test]
fn selects_for_every_aliasing() {
    check(&[0x6EFE_1E23], |o| asm::select(o, 3, 30, 3, 17)); // bif v3.16b, v17.16b, v30.16b
    check(&[0x6EBE_1C71], |o| asm::select(o, 17, 30, 3, 17)); // bit v17.16b, v3.16b, v30.16b
    check(&[0x6E71_1C7E], |o| asm::select(o, 30, 30, 3, 17)); // bsl v30.16b, v3.16b, v17.16b
    check(&[0x4EBE_1FC9, 0x6E71_1C69], |o| {
        asm::select(o, 9, 30, 3, 17)
    }); // mov v9, v30; bsl v9.16b, v3.16b, v17.16b
    check(&[0x4EB1_1E29], |o| asm::select(o, 9, 30, 17, 17)); // mov v9.16b, v17.16b
}

#[test]
fn shifts_constants_and_immediates() {
    check(&[0x4F74_57BC], |o| asm::shl_d(o, 28, 29, 52)); // shl v28.2d, v29.2d, #52
    check(&[0x6F4C_073A], |o| asm::ushr_d(o, 26, 25, 52)); // ushr v26.2d, v25.2d, #52
    check(&[0x4F24_573A], |o| asm::shl_s(o, 26, 25, 4)); // shl v26.4s, v25.4s, #4
    check(&[0x6F07_E7F5], |o| asm::ones(o, 21)); // movi v21.2d, #0xffffffffffffffff
    check(&[0x6F00_E415], |o| asm::zero(o, 21)); // movi v21.2d, #0x0
    check(&[0x4F03_F616], |o| assert!(asm::fmov_imm(o, 22, 1.0))); // fmov v22.4s, #1.0
    check(&[0x4F06_F407], |o| assert!(asm::fmov_imm(o, 7, -0.125))); // fmov v7.4s, #-0.125
                                                                     // Values outside the 8-bit float immediate emit nothing (the caller uses the pool).
    for v in [0.1f32, 0.0, -0.0, 1e10, f32::NAN, f32::INFINITY, -151.0] {
        check(&[], |o| assert!(!asm::fmov_imm(o, 7, v)));
    }
    // ldr q25, <+8> with the row 8 bytes on.
    check(&[0x9C00_0059, 0, 1, 2, 3, 4], |o| {
        let l = o.new_dynamic_label();
        asm::load_const(o, 25, l);
        scalar::words(o, &[0]);
        scalar::bind(o, l);
        scalar::words(o, &[1, 2, 3, 4]);
    });
    check(&[0xD293_5790, 0xF2AA_CF10, 0xF2E2_4690], |o| {
        asm::mov_imm64(o, 16, 0x1234_0000_5678_9ABC) // movz x16, #0x9abc; movk …, lsl #16; movk …, lsl #48
    });
    check(&[0x5297_DDEC, 0x72BB_D5AC], |o| {
        asm::mov_imm32(o, 12, 0xDEAD_BEEF)
    }); // movz w12, #0xbeef; movk w12, #0xdead, lsl #16
}

#[test]
fn context_addresses_are_checked_before_emission() {
    // ldr q5, [x0, #4144]
    check(&[0x3DC4_0C05], |o| {
        let a = asm::ctx_addr(o, 4096 + 48, 16);
        asm::load_q(o, 5, a)
    });
    // str q31, [x0, #65520]: the largest scaled offset.
    check(&[0x3DBF_FC1F], |o| {
        let a = asm::ctx_addr(o, 65520, 16);
        asm::store_q(o, 31, a)
    });
    // ldr q5, [x1, #32] with x1 = x0 + HI_BASE (a multiple of 4096 past the 16-byte reach of
    // x0, so the far end of the context is reached from x1).
    assert_eq!(asm::HI_BASE % 4096, 0);
    const { assert!(asm::HI_BASE >= 65536) };
    check(&[0x3DC0_0825], |o| {
        let a = asm::ctx_addr(o, asm::HI_BASE as i32 + 32, 16);
        asm::load_q(o, 5, a)
    });
    // Out of reach: movz x16, #0x3450; movk x16, #0x12, lsl #16; add x16, x0, x16; ldr q5, [x16]
    check(&[0xD286_8A10, 0xF2A0_0250, 0x8B10_0010, 0x3DC0_0205], |o| {
        let a = asm::ctx_addr(o, 0x12_3450, 16);
        asm::load_q(o, 5, a)
    });
    // Misaligned: movz x16, #8; add x16, x0, x16; ldr q5, [x16]
    check(&[0xD280_0110, 0x8B10_0010, 0x3DC0_0205], |o| {
        let a = asm::ctx_addr(o, 8, 16);
        asm::load_q(o, 5, a)
    });
    // Negative offsets are materialized too (never reached by the backend, never a panic).
    let words = emit(|o| {
        let a = asm::ctx_addr(o, -16, 16);
        asm::load_q(o, 5, a)
    });
    assert_eq!(words.last(), Some(&0x3DC0_0205));
    // Every offset and size: no panic, and the result is in range.
    for size in [1u32, 4, 8, 16] {
        for off in (0..200_000).step_by(4) {
            let mut ops = Ops::new(0);
            let a = asm::ctx_addr(&mut ops, off, size);
            assert!(asm::fits_scaled(a.offset(), size), "{off} {size}");
        }
    }
}

#[test]
fn lane_loads_and_transposes() {
    check(&[0x4D40_C957], |o| asm::load_broadcast(o, 23, 10)); // ld1r {v23.4s}, [x10]
    check(&[0x4D40_9157], |o| asm::load_lane(o, 23, 3, 10)); // ld1 {v23.s}[3], [x10]
    check(&[0x0D40_8142], |o| asm::load_lane(o, 2, 0, 10)); // ld1 {v2.s}[0], [x10]
    check(&[0x0E14_3F49], |o| asm::lane_to_w(o, 9, 26, 2)); // mov w9, v26.s[2] (umov)
                                                            // ld4 {v0.s-v3.s}[k], [x9], x6
    for (k, w) in [0x0DE6_A120, 0x0DE6_B120, 0x4DE6_A120, 0x4DE6_B120]
        .into_iter()
        .enumerate()
    {
        check(&[w], |o| asm::ld4_lane(o, k as u32));
    }
    // st4 {v0.s-v3.s}[k], [x9], x6
    for (k, w) in [0x0DA6_A120, 0x0DA6_B120, 0x4DA6_A120, 0x4DA6_B120]
        .into_iter()
        .enumerate()
    {
        check(&[w], |o| asm::st4_lane(o, k as u32));
    }
    // The same with v24-v27 (Rt = 24 in bits 0-4).
    for (k, w) in [0x0DE6_A138, 0x0DE6_B138, 0x4DE6_A138, 0x4DE6_B138]
        .into_iter()
        .enumerate()
    {
        check(&[w], |o| asm::ld4_lane_scratch(o, k as u32));
    }
    for (k, w) in [0x0DA6_A138, 0x0DA6_B138, 0x4DA6_A138, 0x4DA6_B138]
        .into_iter()
        .enumerate()
    {
        check(&[w], |o| asm::st4_lane_scratch(o, k as u32));
    }
    // Draw kernels' attribute loads: ld1 {v24.s}[k], [x9]; ld2 {v24.s, v25.s}[k], [x9];
    // ld3 {v24.s-v26.s}[k], [x9]; ld4 {v24.s-v27.s}[k], [x9] (no post-index: bit 23 and Rm
    // clear; R, bit 21, set for ld2/ld4; opcode bits 15-13 100 for ld1/ld2, 101 for ld3/ld4;
    // lane k in Q:S, bits 30 and 12).
    let forms: [(u8, u32); 4] = [
        (1, 0x0D40_8138),
        (2, 0x0D60_8138),
        (3, 0x0D40_A138),
        (4, 0x0D60_A138),
    ];
    for (n, base) in forms {
        for k in 0..4u32 {
            let w = base | (k >> 1) << 30 | (k & 1) << 12;
            check(&[w], |o| asm::ld_lanes_scratch(o, n, k));
        }
    }
}

#[test]
fn scalar_templates() {
    let ctx = |o: &mut Ops, off: i32, size: u32| asm::ctx_addr(o, off, size);
    check(&[0xD280_0C06], scalar::draw_vertex_stride); // movz x6, #96
    for k in 0..4u32 {
        // ldr w9, [x2, #4k]; madd x9, x9, x10, x11
        check(&[0xB940_0049 | k << 10, 0x9B0A_2D29], |o| {
            scalar::attribute_address(o, k)
        });
    }
    check(&[0xB968_1409], |o| {
        let a = ctx(o, 10260, 4);
        scalar::load_w(o, 9, a) // ldr w9, [x0, #10260]
    });
    check(&[0xB928_140A], |o| {
        let a = ctx(o, 10260, 4);
        scalar::store_w(o, 10, a) // str w10, [x0, #10260]
    });
    check(&[0xB93F_FC1F], |o| {
        let a = ctx(o, 16380, 4);
        scalar::store_zero_w(o, a) // str wzr, [x0, #16380]
    });
    check(&[0xF940_0402], |o| {
        let a = ctx(o, 8, 8);
        scalar::load_x(o, 2, a) // ldr x2, [x0, #8]
    });
    check(&[0x5310_5D49], |o| scalar::ubfx(o, 9, 10, 16, 8)); // ubfx w9, w10, #16, #8
    check(&[0x1101_FD29], |o| scalar::add_w_imm(o, 9, 9, 127)); // add w9, w9, #0x7f
    check(&[0x5100_0529], |o| scalar::sub_w_imm(o, 9, 9, 1)); // sub w9, w9, #0x1
    check(&[0x0B09_014A], |o| scalar::add_w(o, 10, 10, 9)); // add w10, w10, w9
    check(&[0x8B29_516A], |o| scalar::add_row_index(o, 10, 11, 9)); // add x10, x11, w9, uxtw #4
    check(&[0x9103_C049], |o| scalar::add_x_imm(o, 9, 2, 240)); // add x9, x2, #0xf0
    check(&[0x8B02_0129], |o| scalar::add_x(o, 9, 9, 2)); // add x9, x9, x2
    check(&[0x913F_F00B], |o| scalar::ctx_pointer(o, 11, 4092)); // add x11, x0, #0xffc
                                                                 // add x11, x0, #0x2, lsl #12; add x11, x11, #0xc
    check(&[0x9140_080B, 0x9100_316B], |o| {
        scalar::ctx_pointer(o, 11, 8192 + 12)
    });
    // movz x11, #4; movk x11, #0x100, lsl #16; add x11, x0, x11
    check(&[0xD280_008B, 0xF2A0_200B, 0x8B0B_000B], |o| {
        scalar::ctx_pointer(o, 11, 0x100_0004)
    });
    check(&[0x1200_1929], |o| scalar::and_7f(o, 9)); // and w9, w9, #0x7f
                                                     // add w10, w9, #0x80; cmp w10, #0xff; csel w9, w9, wzr, ls
    check(&[0x1102_012A, 0x7103_FD5F, 0x1A9F_9129], |o| {
        scalar::offset_rule(o, 9, 10)
    });
    // tst w9, #0x8000; b.ne <+4>
    check(&[0x7211_013F, 0x5400_0021], |o| {
        let l = o.new_dynamic_label();
        scalar::jump_if_bit(o, 9, 15, l);
        scalar::bind(o, l);
    });
    // cbnz w9, <+0>
    check(&[0x3500_0009], |o| {
        let l = o.new_dynamic_label();
        scalar::bind(o, l);
        scalar::jump_if_nonzero(o, 9, l);
    });
    // cbz w9, <+4>
    check(&[0x3400_0029], |o| {
        let l = o.new_dynamic_label();
        scalar::jump_if_zero(o, 9, l);
        scalar::bind(o, l);
    });
    // b <+4>
    check(&[0x1400_0001], |o| {
        let l = o.new_dynamic_label();
        scalar::jump(o, l);
        scalar::bind(o, l);
    });
}

#[test]
fn batch_loop_templates() {
    check(
        &[
            0x6DBB_27E8,                              // stp d8, d9, [sp, #-80]!
            0x6D01_2FEA,                              // stp d10, d11, [sp, #16]
            0x6D02_37EC,                              // stp d12, d13, [sp, #32]
            0x6D03_3FEE,                              // stp d14, d15, [sp, #48]
            0xD53B_4409,                              // mrs x9, fpcr
            0xF900_23E9,                              // str x9, [sp, #64]
            0xD280_0009,                              // mov x9, #0x0
            0xD51B_4409,                              // msr fpcr, x9
            0x9140_0001 | (asm::HI_BASE >> 12) << 10, // add x1, x0, #HI_BASE >> 12, lsl #12
        ],
        scalar::enter,
    );
    check(
        &[
            0xF940_23E9, // ldr x9, [sp, #64]
            0xD51B_4409, // msr fpcr, x9
            0x6D43_3FEE, // ldp d14, d15, [sp, #48]
            0x6D42_37EC, // ldp d12, d13, [sp, #32]
            0x6D41_2FEA, // ldp d10, d11, [sp, #16]
            0x6CC5_27E8, // ldp d8, d9, [sp], #80
            0xD65F_03C0, // ret
        ],
        scalar::leave,
    );
    check(
        &[
            0xF946_C422, // ldr x2, [x1, #3464]
            0xF946_C423, // ldr x3, [x1, #3464]
            0xF946_C424, // ldr x4, [x1, #3464]
            0xF946_C425, // ldr x5, [x1, #3464]
            0xD280_2006, // mov x6, #0x100
            0xB400_0025, // cbz x5, <+4>
        ],
        |o| {
            let l = o.new_dynamic_label();
            let a = asm::ctx_addr(o, asm::HI_BASE as i32 + 3464, 8);
            scalar::io_setup(o, a, a, a, a, l);
            scalar::bind(o, l);
        },
    );
    check(&[0xD280_0002], scalar::zero_x2); // mov x2, #0x0
    check(&[0xB900_009F], |o| scalar::batch_status(o, 0)); // str wzr, [x4]
    check(&[0x5280_0029, 0xB900_0089], |o| scalar::batch_status(o, 1)); // mov w9, #1; str w9, [x4]
                                                                        // mov w9, #0xFF; movk w9, #1, lsl #16; str w9, [x4]
    check(&[0x5280_1FE9, 0x72A0_0029, 0xB900_0089], |o| {
        scalar::batch_status(o, 0x1_00FF)
    });
    // ldr w9, [x0, #2048]; str w9, [x4]
    check(&[0xB948_0009, 0xB900_0089], |o| {
        let a = asm::ctx_addr(o, 2048, 4);
        scalar::batch_status_from(o, a)
    });
    check(
        &[
            0x9110_0042, // add x2, x2, #0x400
            0x9100_0063, // add x3, x3, #0x0
            0x9100_1084, // add x4, x4, #0x4
            0xF100_04A5, // subs x5, x5, #0x1
            0x54FF_FF81, // b.ne <-16>
        ],
        |o| {
            let l = o.new_dynamic_label();
            scalar::bind(o, l);
            scalar::next_batch(o, 1024, 0, l);
        },
    );
    // ldr x9, [x1, #3464]; add x9, x9, x2
    check(&[0xF946_C429, 0x8B02_0129], |o| {
        let a = asm::ctx_addr(o, asm::HI_BASE as i32 + 3464, 8);
        scalar::plane_address(o, a)
    });
    check(&[0x3DC0_0123], |o| scalar::load_q_x9(o, 3)); // ldr q3, [x9]
    check(&[0x3D80_0123], |o| scalar::store_q_x9(o, 3)); // str q3, [x9]
}

#[test]
fn lane_state_templates() {
    check(&[0x4E04_0D25], |o| asm::dup_w(o, 5, 9)); // dup v5.4s, w9
    check(&[0x4E04_0E1F], |o| asm::dup_w(o, 31, 16)); // dup v31.4s, w16
                                                      // sminv s31, v5.4s; dup v3.4s, v31.s[0]
    check(&[0x4EB1_A8BF, 0x4E04_07E3], |o| asm::lane_min(o, 3, 5));
    // addv s31, v5.4s; umov w9, v31.s[0]
    check(&[0x4EB1_B8BF, 0x0E04_3FE9], |o| asm::add_lanes_w(o, 9, 5));
    check(&[0x3941_9009], |o| {
        let a = asm::ctx_addr(o, 100, 1);
        scalar::load_byte(o, 9, a) // ldrb w9, [x0, #100]
    });
    check(&[0x4B09_03E9], |o| scalar::neg_w(o, 9)); // neg w9, w9
                                                    // rbit w9, w9; clz w9, w9; and w9, w9, #3
    check(&[0x5AC0_0129, 0x5AC0_1129, 0x1200_0529], |o| {
        scalar::lowest_lane(o, 9)
    });
    check(&[0xB869_5949], |o| scalar::load_w_indexed(o, 9, 10, 9)); // ldr w9, [x10, w9, uxtw #2]
    check(&[0x2A09_014A], |o| scalar::orr_w(o, 10, 10, 9)); // orr w10, w10, w9
}

#[test]
fn geometry_and_agreement_templates() {
    check(&[0x3DC3_F0E5], |o| asm::load_q_at(o, 5, 7, 4032)); // ldr q5, [x7, #4032]
    check(&[0x3D8B_F19F], |o| asm::store_q_at(o, 31, 12, 12224)); // str q31, [x12, #12224]
    check(
        &[
            0x3DC0_00F8, // ldr q24, [x7]
            0x3D80_1158, // str q24, [x10, #64]
            0x3DC0_10F8, // ldr q24, [x7, #64]
            0x3D80_2158, // str q24, [x10, #128]
        ],
        |o| asm::copy_rows(o, 24, 7, 0, 10, 64, 2),
    );
    check(
        &[
            0x6EB0_A8BF, // umaxv s31, v5.4s
            0x0E04_3FE9, // mov w9, v31.s[0] (umov)
            0x3500_0029, // cbnz w9, <+4>
        ],
        |o| {
            let l = o.new_dynamic_label();
            asm::jump_if_any(o, 5, l);
            scalar::bind(o, l);
        },
    );
    check(&[0x0D60_A15B], |o| asm::ld4_row_lane(o, 0, 10)); // ld4 {v27.s-v30.s}[0], [x10]
    check(&[0x4D60_B15B], |o| asm::ld4_row_lane(o, 3, 10)); // ld4 {v27.s-v30.s}[3], [x10]
    check(&[0x8B09_314A], |o| scalar::add_x_shifted(o, 10, 10, 9, 12)); // add x10, x10, x9, lsl #12
    check(&[0x8B0A_054D], |o| scalar::add_x_shifted(o, 13, 10, 10, 1)); // add x13, x10, x10, lsl #1
                                                                        // cmp x10, x11; b.hs <+4>
    check(&[0xEB0B_015F, 0x5400_0022], |o| {
        let l = o.new_dynamic_label();
        scalar::jump_if_x_hs(o, 10, 11, l);
        scalar::bind(o, l);
    });
    check(&[0x7900_0569], |o| scalar::store_half_at(o, 9, 11, 2)); // strh w9, [x11, #2]
    for w in [
        0x4EB1_B8BF,
        0x3100_113F,
        0x8B09_314A,
        0xEB0B_015F,
        0x7900_0569,
    ] {
        assert!(!decode_word(w).starts_with(".word"), "{w:08X}");
    }
    assert_eq!(mnemonic(0x4EB1_B8BF), "addv");
    assert_eq!(mnemonic(0x7900_0569), "strh");
}

#[test]
fn every_emitted_word_of_the_runner_stub_decodes() {
    let stub = picajit_codegen::aarch64::elf::stub();
    assert_eq!(stub.len() % 4, 0);
    for w in stub.chunks(4) {
        let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        assert!(
            !decode_word(word).starts_with(".word"),
            "{word:08X} does not decode"
        );
    }
}
