//! Every instruction template of the x86-64 backend (`x64::asm`), assembled by dynasm and
//! decoded by iced-x86, must be exactly the instruction intended. dynasm-rs 5.1 mis-encodes
//! some VEX forms (sources swapped, wrong vector length); this test is the guard — zero
//! mismatches allowed. Registers 9–15 are used on purpose to exercise the REX/VEX extension bits.

use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter};
use picajit_codegen::x64::asm::{self, Mem, Ops, Tier, VOp};

/// Emits with `f`, decodes, and returns the instructions as text (before any constant pool).
fn decode(f: impl FnOnce(&mut Ops)) -> Vec<String> {
    decode_with(f, true)
}

/// As [`decode`]; `rip_relative` false shows rip-relative operands as absolute addresses.
fn decode_with(f: impl FnOnce(&mut Ops), rip_relative: bool) -> Vec<String> {
    let mut ops = Ops::new(0);
    f(&mut ops);
    let code = ops.finalize().expect("assembles");
    let mut decoder = Decoder::with_ip(64, &code, 0, DecoderOptions::NONE);
    let mut fmt = IntelFormatter::new();
    fmt.options_mut().set_space_after_operand_separator(true);
    fmt.options_mut().set_rip_relative_addresses(rip_relative);
    let mut out = Vec::new();
    for ins in &mut decoder {
        let mut s = String::new();
        fmt.format(&ins, &mut s);
        out.push(s);
    }
    out
}

#[track_caller]
fn check(expected: &[&str], f: impl FnOnce(&mut Ops)) {
    let got = decode(f);
    assert_eq!(got, expected, "template decodes differently");
}

const VOPS: [(VOp, &str, &str); 29] = [
    (VOp::AddPs, "addps", "vaddps"),
    (VOp::SubPs, "subps", "vsubps"),
    (VOp::MulPs, "mulps", "vmulps"),
    (VOp::DivPs, "divps", "vdivps"),
    (VOp::MaxPs, "maxps", "vmaxps"),
    (VOp::MinPs, "minps", "vminps"),
    (VOp::AndPs, "andps", "vandps"),
    (VOp::AndnPs, "andnps", "vandnps"),
    (VOp::OrPs, "orps", "vorps"),
    (VOp::XorPs, "xorps", "vxorps"),
    (VOp::CmpEqPs, "cmpeqps", "vcmpeqps"),
    (VOp::CmpLtPs, "cmpltps", "vcmpltps"),
    (VOp::CmpLePs, "cmpleps", "vcmpleps"),
    (VOp::CmpNeqPs, "cmpneqps", "vcmpneqps"),
    (VOp::CmpUnordPs, "cmpunordps", "vcmpunordps"),
    (VOp::CmpOrdPs, "cmpordps", "vcmpordps"),
    (VOp::AddPd, "addpd", "vaddpd"),
    (VOp::SubPd, "subpd", "vsubpd"),
    (VOp::MulPd, "mulpd", "vmulpd"),
    (VOp::DivPd, "divpd", "vdivpd"),
    (VOp::CmpLtPd, "cmpltpd", "vcmpltpd"),
    (VOp::PAddD, "paddd", "vpaddd"),
    (VOp::PCmpEqD, "pcmpeqd", "vpcmpeqd"),
    (VOp::PCmpGtD, "pcmpgtd", "vpcmpgtd"),
    (VOp::PAddQ, "paddq", "vpaddq"),
    (VOp::UnpckLps, "unpcklps", "vunpcklps"),
    (VOp::UnpckHps, "unpckhps", "vunpckhps"),
    (VOp::UnpckLpd, "unpcklpd", "vunpcklpd"),
    (VOp::UnpckHpd, "unpckhpd", "vunpckhpd"),
];

#[test]
fn three_operand_avx2_forms_keep_source_order() {
    for (op, _, avx) in VOPS {
        for (d, a, b) in [(1, 2, 3), (9, 14, 3), (2, 10, 12), (13, 0, 15)] {
            let want = format!("{avx} ymm{d}, ymm{a}, ymm{b}");
            check(&[&want], |o| asm::vop(o, Tier::Avx2, op, d, a, b));
        }
    }
}

#[test]
fn two_operand_sse_forms_with_every_aliasing() {
    for (op, sse, _) in VOPS {
        // d == a: one instruction.
        check(&[&format!("{sse} xmm3, xmm10")], |o| {
            asm::vop(o, Tier::Sse41, op, 3, 3, 10)
        });
        // d distinct: copy a, then operate with b.
        check(&["movaps xmm4, xmm1", &format!("{sse} xmm4, xmm12")], |o| {
            asm::vop(o, Tier::Sse41, op, 4, 1, 12)
        });
        // d == b: commutative ops swap, others go through the temporary xmm15.
        if op.commutative() {
            check(&[&format!("{sse} xmm5, xmm2")], |o| {
                asm::vop(o, Tier::Sse41, op, 5, 2, 5)
            });
        } else {
            check(
                &[
                    "movaps xmm15, xmm5",
                    "movaps xmm5, xmm2",
                    &format!("{sse} xmm5, xmm15"),
                ],
                |o| asm::vop(o, Tier::Sse41, op, 5, 2, 5),
            );
        }
    }
}

#[test]
fn moves_loads_stores_and_broadcasts() {
    check(&["vmovaps ymm9, ymm2"], |o| asm::mov(o, Tier::Avx2, 9, 2));
    check(&["movaps xmm9, xmm2"], |o| asm::mov(o, Tier::Sse41, 9, 2));
    check(&[], |o| asm::mov(o, Tier::Sse41, 4, 4));
    check(&["vmovaps ymm11, [rdi+1000h]"], |o| {
        asm::load(o, Tier::Avx2, 11, Mem::Ctx(0x1000))
    });
    check(&["movaps xmm11, [rdi+1000h]"], |o| {
        asm::load(o, Tier::Sse41, 11, Mem::Ctx(0x1000))
    });
    check(&["vmovups ymm3, [rdi+rax+2000h]"], |o| {
        asm::load(o, Tier::Avx2, 3, Mem::CtxRax(0x2000))
    });
    check(&["movups xmm3, [rdi+rax+2000h]"], |o| {
        asm::load(o, Tier::Sse41, 3, Mem::CtxRax(0x2000))
    });
    check(&["vmovaps [rdi+40h], ymm14"], |o| {
        asm::store(o, Tier::Avx2, 0x40, 14)
    });
    check(&["movaps [rdi+40h], xmm14"], |o| {
        asm::store(o, Tier::Sse41, 0x40, 14)
    });
    check(
        &["vmovss xmm10, [rdi+2010h]", "vbroadcastss ymm10, xmm10"],
        |o| asm::broadcast(o, Tier::Avx2, 10, Mem::Ctx(0x2010)),
    );
    check(
        &["movss xmm10, [rdi+2010h]", "shufps xmm10, xmm10, 0"],
        |o| asm::broadcast(o, Tier::Sse41, 10, Mem::Ctx(0x2010)),
    );
    check(
        &["vmovss xmm1, [rdi+rax+2004h]", "vbroadcastss ymm1, xmm1"],
        |o| asm::broadcast(o, Tier::Avx2, 1, Mem::CtxRax(0x2004)),
    );
    check(
        &["movss xmm1, [rdi+rax+2004h]", "shufps xmm1, xmm1, 0"],
        |o| asm::broadcast(o, Tier::Sse41, 1, Mem::CtxRax(0x2004)),
    );
}

#[test]
fn constant_pool_loads_are_rip_relative() {
    for (tier, want_load, want_bcast) in [
        (
            Tier::Avx2,
            "vmovaps ymm12, [20h]",
            ["vmovss xmm12, [20h]", "vbroadcastss ymm12, xmm12"],
        ),
        (
            Tier::Sse41,
            "movaps xmm12, [20h]",
            ["movss xmm12, [20h]", "shufps xmm12, xmm12, 0"],
        ),
    ] {
        let got = decode_with(
            |o| {
                let l = o.new_dynamic_label();
                asm::load(o, tier, 12, Mem::Const(l));
                asm::broadcast(o, tier, 12, Mem::Const(l));
                asm::scalar::align(o, 32);
                asm::scalar::bind(o, l);
            },
            false,
        );
        // The pool label sits at offset 32 in both cases (code padded with int3 to 32).
        assert_eq!(got[0], want_load, "{tier:?}");
        assert_eq!(got[1..3], want_bcast, "{tier:?}");
    }
}

#[test]
fn selects() {
    check(&["vblendvps ymm1, ymm3, ymm2, ymm9"], |o| {
        asm::select(o, Tier::Avx2, 1, 9, 2, 3)
    });
    // SSE: (a & m) | (b & !m) in every aliasing case.
    check(
        &[
            "movaps xmm15, xmm9",
            "andps xmm15, xmm2",
            "movaps xmm1, xmm9",
            "andnps xmm1, xmm3",
            "orps xmm1, xmm15",
        ],
        |o| asm::select(o, Tier::Sse41, 1, 9, 2, 3),
    );
    check(
        &[
            "movaps xmm15, xmm9",
            "andps xmm15, xmm2",
            "andnps xmm9, xmm3",
            "orps xmm9, xmm15",
        ],
        |o| asm::select(o, Tier::Sse41, 9, 9, 2, 3),
    );
    check(
        &[
            "movaps xmm15, xmm9",
            "andps xmm15, xmm3",
            "xorps xmm3, xmm15",
            "movaps xmm15, xmm9",
            "andps xmm15, xmm2",
            "orps xmm3, xmm15",
        ],
        |o| asm::select(o, Tier::Sse41, 3, 9, 2, 3),
    );
    check(&["movaps xmm4, xmm2"], |o| {
        asm::select(o, Tier::Sse41, 4, 9, 2, 2)
    });
}

#[test]
fn unary_and_conversion_forms() {
    check(&["vroundps ymm2, ymm11, 9"], |o| {
        asm::round_ps(o, Tier::Avx2, 2, 11, 9)
    });
    check(&["roundps xmm2, xmm11, 9"], |o| {
        asm::round_ps(o, Tier::Sse41, 2, 11, 9)
    });
    check(&["vroundpd ymm14, ymm13, 8"], |o| {
        asm::round_pd(o, Tier::Avx2, 14, 13, 8)
    });
    check(&["roundpd xmm14, xmm13, 8"], |o| {
        asm::round_pd(o, Tier::Sse41, 14, 13, 8)
    });
    check(&["vpermilps ymm13, ymm10, 0F5h"], |o| {
        asm::permute(o, Tier::Avx2, 13, 10, 0xF5)
    });
    check(&["vpermilps ymm1, ymm14, 44h"], |o| {
        asm::permute(o, Tier::Avx2, 1, 14, 0x44)
    });
    check(&["pshufd xmm13, xmm10, 0A0h"], |o| {
        asm::permute(o, Tier::Sse41, 13, 10, 0xA0)
    });
    check(&["pshufd xmm2, xmm9, 0EEh"], |o| {
        asm::permute(o, Tier::Sse41, 2, 9, 0xEE)
    });
    check(&["vsqrtps ymm13, ymm10"], |o| {
        asm::sqrt_ps(o, Tier::Avx2, 13, 10)
    });
    check(&["sqrtps xmm13, xmm10"], |o| {
        asm::sqrt_ps(o, Tier::Sse41, 13, 10)
    });
    check(&["vcvttps2dq ymm13, ymm1"], |o| {
        asm::cvtt_ps2dq(o, Tier::Avx2, 13, 1)
    });
    check(&["cvttps2dq xmm13, xmm1"], |o| {
        asm::cvtt_ps2dq(o, Tier::Sse41, 13, 1)
    });
    check(&["vcvtps2pd ymm13, [rdi+2A40h]"], |o| {
        asm::cvt_ps2pd_mem(o, Tier::Avx2, 13, 0x2A40)
    });
    check(&["cvtps2pd xmm13, [rdi+2A48h]"], |o| {
        asm::cvt_ps2pd_mem(o, Tier::Sse41, 13, 0x2A48)
    });
    check(
        &["vcvtpd2ps xmm15, ymm11", "vmovaps [rdi+2A90h], xmm15"],
        |o| asm::cvt_pd2ps_store(o, Tier::Avx2, 11, 0x2A90),
    );
    check(
        &["cvtpd2ps xmm15, xmm11", "movlps [rdi+2A88h], xmm15"],
        |o| asm::cvt_pd2ps_store(o, Tier::Sse41, 11, 0x2A88),
    );
    check(&["vpsllq ymm14, ymm14, 34h"], |o| {
        asm::psllq(o, Tier::Avx2, 14, 52)
    });
    check(&["psllq xmm14, 34h"], |o| {
        asm::psllq(o, Tier::Sse41, 14, 52)
    });
    check(&["vpsrlq ymm14, ymm14, xmm12"], |o| {
        asm::psrlq(o, Tier::Avx2, 14, 12, 52)
    });
    check(&["psrlq xmm14, xmm12"], |o| {
        asm::psrlq(o, Tier::Sse41, 14, 12, 52)
    });
    check(&["vpslld ymm13, ymm13, 4"], |o| {
        asm::pslld(o, Tier::Avx2, 13, 4)
    });
    check(&["pslld xmm13, 4"], |o| asm::pslld(o, Tier::Sse41, 13, 4));
    check(&["vpcmpeqd ymm10, ymm10, ymm10"], |o| {
        asm::ones(o, Tier::Avx2, 10)
    });
    check(&["pcmpeqd xmm10, xmm10"], |o| asm::ones(o, Tier::Sse41, 10));
    check(&["vxorps ymm10, ymm10, ymm10"], |o| {
        asm::zero(o, Tier::Avx2, 10)
    });
    check(&["xorps xmm10, xmm10"], |o| asm::zero(o, Tier::Sse41, 10));
    check(&["vmovd eax, xmm11"], |o| {
        asm::lane0_to_eax(o, Tier::Avx2, 11)
    });
    check(&["movd eax, xmm11"], |o| {
        asm::lane0_to_eax(o, Tier::Sse41, 11)
    });
    check(&["vzeroupper", "ret"], |o| asm::leave(o, Tier::Avx2));
    check(&["ret"], |o| asm::leave(o, Tier::Sse41));
}

#[test]
fn scalar_forms() {
    use asm::scalar;
    check(&["mov eax, [rdi+2A00h]"], |o| scalar::load_eax(o, 0x2A00));
    check(&["mov [rdi+2A04h], eax"], |o| scalar::store_eax(o, 0x2A04));
    check(&["movzx eax, byte ptr [rdi+2A06h]"], |o| {
        scalar::load_byte_eax(o, 0x2A06)
    });
    check(&["add [rdi+2A08h], eax"], |o| scalar::add_eax_to(o, 0x2A08));
    check(&["mov dword ptr [rdi+2A0Ch], 1"], |o| {
        scalar::exhausted(o, 0x2A0C)
    });
    check(
        &[
            "lea ecx, [rax+80h]",
            "xor edx, edx",
            "cmp ecx, 0FFh",
            "cmova eax, edx",
            "add eax, 28h",
            "and eax, 7Fh",
            "shl eax, 4",
        ],
        |o| scalar::uniform_row_offset(o, 40),
    );
    // Branches: decode with their targets resolved.
    let got = decode(|o| {
        let l = o.new_dynamic_label();
        scalar::budget(o, 0x2A10, l);
        scalar::jump_if_bit(o, 0x2A00, 5, l);
        scalar::jump_if_eax(o, l);
        scalar::loop_next(o, 0x2A14, l, l);
        scalar::bind(o, l);
    });
    let want = [
        "cmp dword ptr [rdi+2A10h], 0",
        "je short 0000000000000000h",
        "dec dword ptr [rdi+2A10h]",
        "test dword ptr [rdi+2A00h], 20h",
    ];
    assert_eq!(got[0], want[0]);
    assert!(got[1].starts_with("je "), "{got:?}");
    assert_eq!(got[2], want[2]);
    assert_eq!(got[3], want[3]);
    assert!(got[4].starts_with("jne "), "{got:?}");
    assert_eq!(got[5], "test eax, eax");
    assert!(got[6].starts_with("jne "), "{got:?}");
    assert_eq!(got[7], "cmp dword ptr [rdi+2A14h], 0");
    assert!(got[8].starts_with("je "), "{got:?}");
    assert_eq!(got[9], "dec dword ptr [rdi+2A14h]");
    assert!(got[10].starts_with("jmp "), "{got:?}");
    assert_eq!(got.len(), 11);
}

#[test]
fn lane_row_fetch_and_transpose() {
    check(
        &["mov eax, [rdi+2A7Ch]", "movups xmm12, [rdi+rax+2000h]"],
        |o| asm::load_lane_row(o, Tier::Sse41, 12, 0x2A74, 2, 0x2000),
    );
    check(
        &["mov eax, [rdi+2A74h]", "vmovups xmm12, [rdi+rax+2000h]"],
        |o| asm::load_lane_row(o, Tier::Avx2, 12, 0x2A74, 0, 0x2000),
    );
    check(
        &[
            "mov eax, [rdi+2A88h]",
            "vinsertf128 ymm13, ymm13, [rdi+rax+2000h], 1",
        ],
        |o| asm::load_lane_row(o, Tier::Avx2, 13, 0x2A74, 5, 0x2000),
    );
    check(
        &[
            "vunpcklps ymm15, ymm11, ymm12",
            "vunpckhps ymm11, ymm11, ymm12",
            "vunpcklps ymm12, ymm13, ymm14",
            "vunpckhps ymm13, ymm13, ymm14",
            "vunpcklpd ymm14, ymm15, ymm12",
            "vmovaps [rdi+100h], ymm14",
            "vunpckhpd ymm14, ymm15, ymm12",
            "vmovaps [rdi+140h], ymm14",
            "vunpcklpd ymm14, ymm11, ymm13",
            "vmovaps [rdi+180h], ymm14",
            "vunpckhpd ymm14, ymm11, ymm13",
            "vmovaps [rdi+1C0h], ymm14",
        ],
        |o| {
            asm::transpose_rows(
                o,
                Tier::Avx2,
                [11, 12, 13, 14],
                [0x100, 0x140, 0x180, 0x1C0],
            )
        },
    );
    check(
        &[
            "movaps xmm15, xmm11",
            "unpcklps xmm15, xmm12",
            "unpckhps xmm11, xmm12",
            "movaps xmm12, xmm13",
            "unpcklps xmm12, xmm14",
            "unpckhps xmm13, xmm14",
            "movaps xmm14, xmm15",
            "unpcklpd xmm14, xmm12",
            "movaps [rdi+100h], xmm14",
            "movaps xmm14, xmm15",
            "unpckhpd xmm14, xmm12",
            "movaps [rdi+140h], xmm14",
            "movaps xmm14, xmm11",
            "unpcklpd xmm14, xmm13",
            "movaps [rdi+180h], xmm14",
            "movaps xmm14, xmm11",
            "unpckhpd xmm14, xmm13",
            "movaps [rdi+1C0h], xmm14",
        ],
        |o| {
            asm::transpose_rows(
                o,
                Tier::Sse41,
                [11, 12, 13, 14],
                [0x100, 0x140, 0x180, 0x1C0],
            )
        },
    );
}

#[test]
fn lane_mask_branches() {
    for (tier, test, reg) in [(Tier::Avx2, "vptest", "ymm"), (Tier::Sse41, "ptest", "xmm")] {
        let got = decode(|o| {
            let any = o.new_dynamic_label();
            asm::jump_if_any(o, tier, 13, any);
            asm::scalar::bind(o, any);
        });
        assert_eq!(got[0], format!("{test} {reg}13, {reg}13"), "{got:?}");
        assert!(got[1].starts_with("jne "), "{got:?}");
        assert_eq!(got.len(), 2, "{got:?}");
    }
}

#[test]
fn batch_io_forms() {
    use asm::Base;
    check(&["vmovups xmm3, [rsi+310h]"], |o| {
        asm::load_xmm(o, Tier::Avx2, 3, Base::Rsi, 0x310)
    });
    check(&["movups xmm3, [rsi+310h]"], |o| {
        asm::load_xmm(o, Tier::Sse41, 3, Base::Rsi, 0x310)
    });
    check(&["vmovups xmm9, [r8+20h]"], |o| {
        asm::load_xmm(o, Tier::Avx2, 9, Base::R8, 0x20)
    });
    check(&["movups xmm9, [rax+rsi+20h]"], |o| {
        asm::load_xmm(o, Tier::Sse41, 9, Base::RaxRsi, 0x20)
    });
    check(&["vinsertf128 ymm2, ymm2, [rsi+410h], 1"], |o| {
        asm::insert_segment(o, Tier::Avx2, 2, 1, 0x410)
    });
    check(&["vmovups [r8+110h], xmm10"], |o| {
        asm::store_xmm(o, Tier::Avx2, 10, Base::R8, 0x110)
    });
    check(&["movups [r8+110h], xmm10"], |o| {
        asm::store_xmm(o, Tier::Sse41, 10, Base::R8, 0x110)
    });
    check(&["vmovups [rsi+8], xmm1"], |o| {
        asm::store_xmm(o, Tier::Avx2, 1, Base::Rsi, 8)
    });
    check(&["vmovups [rax+rsi+8], xmm1"], |o| {
        asm::store_xmm(o, Tier::Avx2, 1, Base::RaxRsi, 8)
    });
    check(&["vextractf128 [r8+510h], ymm11, 1"], |o| {
        asm::extract_segment(o, Tier::Avx2, 11, 1, 0x510)
    });
    check(&["vmovups ymm12, [rsi+210h]"], |o| {
        asm::load_pair(o, 12, 0x210)
    });
    check(&["vmovups [r8+710h], ymm2"], |o| {
        asm::store_pair(o, 2, 0x710)
    });
    check(&["vinsertf128 ymm12, ymm11, [rsi+520h], 1"], |o| {
        asm::low_then_input(o, 12, 11, 0x520)
    });
    check(&["vperm2f128 ymm12, ymm11, [rsi+610h], 12h"], |o| {
        asm::input_then_high(o, 12, 11, 0x610)
    });
    check(&["vperm2f128 ymm1, ymm11, ymm12, 20h"], |o| {
        asm::low_halves(o, 1, 11, 12)
    });
    check(&["vmovups ymm4, [rax+rsi]"], |o| {
        asm::load_plane(o, Tier::Avx2, 4)
    });
    check(&["movups xmm4, [rax+rsi]"], |o| {
        asm::load_plane(o, Tier::Sse41, 4)
    });
    check(&["vmovups [rax+rsi], ymm12"], |o| {
        asm::store_plane(o, Tier::Avx2, 12)
    });
    check(&["movups [rax+rsi], xmm12"], |o| {
        asm::store_plane(o, Tier::Sse41, 12)
    });
}

#[test]
fn draw_attribute_forms() {
    // Each component count reads exactly its floats at base (rdx) + offset (rax); register 9
    // tests the REX/VEX extension.
    check(&["vmovss xmm9, [rdx+rax]"], |o| {
        asm::load_attribute(o, Tier::Avx2, 9, 1)
    });
    check(&["vmovsd xmm9, [rdx+rax]"], |o| {
        asm::load_attribute(o, Tier::Avx2, 9, 2)
    });
    check(
        &[
            "vmovss xmm9, [rdx+rax+8]",
            "vmovlhps xmm9, xmm9, xmm9",
            "vmovlps xmm9, xmm9, [rdx+rax]",
        ],
        |o| asm::load_attribute(o, Tier::Avx2, 9, 3),
    );
    check(&["vmovups xmm9, [rdx+rax]"], |o| {
        asm::load_attribute(o, Tier::Avx2, 9, 4)
    });
    check(&["movss xmm9, [rdx+rax]"], |o| {
        asm::load_attribute(o, Tier::Sse41, 9, 1)
    });
    check(&["movsd xmm9, [rdx+rax]"], |o| {
        asm::load_attribute(o, Tier::Sse41, 9, 2)
    });
    check(
        &[
            "movss xmm9, [rdx+rax+8]",
            "movlhps xmm9, xmm9",
            "movlps xmm9, [rdx+rax]",
        ],
        |o| asm::load_attribute(o, Tier::Sse41, 9, 3),
    );
    check(&["movups xmm9, [rdx+rax]"], |o| {
        asm::load_attribute(o, Tier::Sse41, 9, 4)
    });
    check(&["mov rcx, [rdi+10B08h]", "mov rdx, [rdi+10A08h]"], |o| {
        asm::scalar::attribute_array(o, 0x10B08, 0x10A08)
    });
    check(&["mov eax, [rsi+0Ch]", "imul rax, rcx"], |o| {
        asm::scalar::attribute_address(o, 3)
    });
}

#[test]
fn sse_column_and_half_row_forms() {
    // SSE4.1 stepped draw kernels: parts of one lane's attribute at base (rdx) plus the batch
    // offset (rsi, a register of the shared stride) or not, each reading exactly its bytes.
    let at = |counted, disp| asm::LaneAt {
        base: 2,
        counted,
        disp,
    };
    let parts = [
        (
            asm::Part::Low,
            "movsd xmm9, [rdx+rsi+18h]",
            "movsd xmm9, [rdx+18h]",
        ),
        (
            asm::Part::High,
            "movhps xmm9, [rdx+rsi+18h]",
            "movhps xmm9, [rdx+18h]",
        ),
        (
            asm::Part::First,
            "movss xmm9, [rdx+rsi+18h]",
            "movss xmm9, [rdx+18h]",
        ),
        (
            asm::Part::Element(2),
            "insertps xmm9, [rdx+rsi+18h], 20h",
            "insertps xmm9, [rdx+18h], 20h",
        ),
    ];
    for (part, counted, fixed) in parts {
        check(&[counted], |o| asm::load_part(o, 9, part, at(true, 0x18)));
        check(&[fixed], |o| asm::load_part(o, 9, part, at(false, 0x18)));
    }
    // The callee-saved registers that keep attribute bases (rbx, rbp, r12–r15): rbp and r13
    // as bases need a displacement byte, r12 a SIB byte.
    let based = |base, counted| asm::LaneAt {
        base,
        counted,
        disp: 0,
    };
    check(&["movsd xmm9, [rbp+rsi]"], |o| {
        asm::load_part(o, 9, asm::Part::Low, based(5, true))
    });
    check(&["movhps xmm9, [r13]"], |o| {
        asm::load_part(o, 9, asm::Part::High, based(13, false))
    });
    check(&["movss xmm9, [r12]"], |o| {
        asm::load_part(o, 9, asm::Part::First, based(12, false))
    });
    check(&["vmovups xmm9, [r15+rsi+30h]"], |o| {
        asm::load_attribute_counted(o, Tier::Avx2, 9, 4, 15, 0x30)
    });
    check(&["vinsertf128 ymm9, ymm9, [rbx+60h], 1"], |o| {
        asm::insert_attribute_at(o, Tier::Avx2, 9, 1, 3, 0x60)
    });
    check(&["mov [rdi+17100h], r14", "mov r14, [rdi+14FC0h]"], |o| {
        asm::scalar::keep_base(o, 14, 0x17100, 0x14FC0)
    });
    check(&["mov rbp, [rdi+17108h]"], |o| {
        asm::scalar::restore_base(o, 5, 0x17108)
    });
    check(&["add r13, 0C0h"], |o| {
        asm::scalar::advance_base(o, 13, 0xC0)
    });
    check(&["vmovsd [r8+0B8h], xmm11"], |o| {
        asm::store_floats(o, Tier::Avx2, 11, true, 0xB8)
    });
    check(&["movss [r8+0B8h], xmm11"], |o| {
        asm::store_floats(o, Tier::Sse41, 11, false, 0xB8)
    });

    check(&["shufps xmm9, xmm15, 0DDh"], |o| {
        asm::shufps(o, 9, 15, 0xDD)
    });
    check(&["movlps [r8+68h], xmm9"], |o| {
        asm::store_half(o, 9, false, 0x68)
    });
    check(&["movhps [r8+68h], xmm9"], |o| {
        asm::store_half(o, 9, true, 0x68)
    });
}

#[test]
fn lane_state_forms() {
    use asm::scalar;
    for m in [3u8, 12] {
        check(&[&format!("vmovmskps eax, ymm{m}")], |o| {
            asm::movmsk_eax(o, Tier::Avx2, m)
        });
        check(&[&format!("movmskps eax, xmm{m}")], |o| {
            asm::movmsk_eax(o, Tier::Sse41, m)
        });
        check(
            &[
                &format!("vmovd xmm{m}, eax"),
                &format!("vpbroadcastd ymm{m}, xmm{m}"),
            ],
            |o| asm::broadcast_eax(o, Tier::Avx2, m),
        );
        check(
            &[
                &format!("movd xmm{m}, eax"),
                &format!("pshufd xmm{m}, xmm{m}, 0"),
            ],
            |o| asm::broadcast_eax(o, Tier::Sse41, m),
        );
    }
    check(
        &[
            "vextracti128 xmm15, ymm3, 1",
            "vpminsd xmm15, xmm15, xmm3",
            "vpshufd xmm12, xmm15, 4Eh",
            "vpminsd xmm15, xmm15, xmm12",
            "vpshufd xmm12, xmm15, 0B1h",
            "vpminsd xmm15, xmm15, xmm12",
            "vpbroadcastd ymm12, xmm15",
        ],
        |o| asm::lane_min(o, Tier::Avx2, 12, 3),
    );
    check(
        &[
            "pshufd xmm15, xmm3, 4Eh",
            "pminsd xmm15, xmm3",
            "pshufd xmm12, xmm15, 0B1h",
            "pminsd xmm12, xmm15",
        ],
        |o| asm::lane_min(o, Tier::Sse41, 12, 3),
    );
    check(&["xor edx, edx", "bsf ecx, eax", "cmove ecx, edx"], |o| {
        scalar::lowest_bit_ecx(o)
    });
    check(&["mov eax, [rdi+rcx*4+2A00h]"], |o| {
        scalar::load_lane_eax(o, 0x2A00)
    });
    check(&["or [rdi+2A00h], eax"], |o| scalar::or_eax_to(o, 0x2A00));
    check(
        &[
            "mov eax, [rdi+2A00h]",
            "shr eax, 5",
            "and eax, 1",
            "neg eax",
        ],
        |o| scalar::bit_mask_eax(o, 0x2A00, 5),
    );
}

#[test]
fn batch_loop_scalar_forms() {
    use asm::scalar;
    check(&["xor esi, esi"], scalar::zero_rsi);
    check(&["mov rax, [rdi+10B00h]"], |o| scalar::load_rax(o, 0x10B00));
    check(&["mov dword ptr [r10], 0FFh"], |o| {
        scalar::batch_status(o, 255)
    });
    check(&["mov eax, [rdi+2A00h]", "mov [r10], eax"], |o| {
        scalar::batch_status_from(o, 0x2A00)
    });
    check(&["mov eax, [rdi+10AA0h]", "mov [rdi+2818h], eax"], |o| {
        scalar::reset_budget(o, 0x10AA0, 0x2818)
    });
    check(&["mov dword ptr [rdi+2810h], 0"], |o| {
        scalar::reset_al(o, 0x2810)
    });
    check(&["mov dword ptr [rdi+2820h], 0"], |o| {
        scalar::reset_status(o, 0x2820)
    });
    let got = decode(|o| {
        let l = o.new_dynamic_label();
        scalar::bind(o, l);
        scalar::io_setup(o, 0x100, 0x108, 0x110, 0x118, l);
        scalar::next_batch(o, 0x800, 0x800, false, l);
    });
    assert_eq!(
        got[..5],
        [
            "mov rsi, [rdi+100h]",
            "mov r8, [rdi+108h]",
            "mov r10, [rdi+110h]",
            "mov r9, [rdi+118h]",
            "test r9, r9"
        ]
    );
    assert!(got[5].starts_with("je "), "{got:?}");
    assert_eq!(
        got[6..10],
        ["add rsi, 800h", "add r8, 800h", "add r10, 4", "dec r9"]
    );
    assert!(got[10].starts_with("jne "), "{got:?}");
    assert_eq!(got.len(), 11);
}

#[test]
fn geometry_forms() {
    use asm::scalar;
    check(&["vmovaps [r11+0C0h], ymm2"], |o| {
        asm::store_bank(o, Tier::Avx2, 0xC0, 2)
    });
    check(&["movaps [r11+0C0h], xmm2"], |o| {
        asm::store_bank(o, Tier::Sse41, 0xC0, 2)
    });
    check(&["vmovaps ymm9, [r11+40h]"], |o| {
        asm::load_bank(o, Tier::Avx2, 9, 0x40)
    });
    check(&["movaps xmm9, [r11+40h]"], |o| {
        asm::load_bank(o, Tier::Sse41, 9, 0x40)
    });
    check(
        &["movaps xmm11, [rdi+3000h]", "movaps [rdx+140h], xmm11"],
        |o| asm::copy_ctx_to_rdx(o, Tier::Sse41, 11, 0x3000, 0x140, 1),
    );
    check(&["lea r11, [rdi+1000h]"], |o| scalar::set_bank(o, 0x1000));
    check(&["mov rdx, [rdi+100h]", "mov [rdx+rcx*4+2], ax"], |o| {
        scalar::triangle_mask(o, 0x100, 1)
    });
    check(&["inc dword ptr [rdi+2848h]"], |o| {
        scalar::count_triangle(o, 0x2848)
    });
    let got = decode(|o| {
        let skip = o.new_dynamic_label();
        scalar::jump_if_eax_zero(o, skip);
        scalar::bind(o, skip);
    });
    assert_eq!(got[0], "test eax, eax", "{got:?}");
    assert!(got[1].starts_with("je "), "{got:?}");
    let got = decode(|o| {
        let full = o.new_dynamic_label();
        scalar::triangle_address(o, full);
        scalar::bind(o, full);
    });
    use picajit_codegen::abi;
    let hex = |x: i32| format!("{x:X}h");
    assert_eq!(got[0], format!("mov ecx, [rdi+{}]", hex(abi::EMIT_COUNT)));
    assert_eq!(
        got[1],
        format!("cmp rcx, [rdi+{}]", hex(abi::IO_TRIANGLE_CAPACITY))
    );
    assert!(got[2].starts_with("jae "), "{got:?}");
    assert_eq!(
        got[3],
        format!("imul rdx, rcx, {}", hex(abi::TRIANGLE_BYTES))
    );
    assert_eq!(got[4], format!("add rdx, [rdi+{}]", hex(abi::IO_TRIANGLES)));
}

#[test]
fn memory_second_source_forms() {
    for (op, sse, avx) in VOPS {
        check(&[&format!("{avx} ymm9, ymm14, [rdi+1040h]")], |o| {
            asm::vop_m(o, Tier::Avx2, op, 9, 14, Mem::Ctx(0x1040))
        });
        check(&[&format!("{avx} ymm2, ymm2, [rdi+rax+2000h]")], |o| {
            asm::vop_m(o, Tier::Avx2, op, 2, 2, Mem::CtxRax(0x2000))
        });
        check(&[&format!("{sse} xmm12, [rdi+0FB80h]")], |o| {
            asm::vop_m(o, Tier::Sse41, op, 12, 12, Mem::Ctx(0xFB80))
        });
        check(
            &["movaps xmm3, xmm10", &format!("{sse} xmm3, [rdi+rax+10h]")],
            |o| asm::vop_m(o, Tier::Sse41, op, 3, 10, Mem::CtxRax(0x10)),
        );
        for (tier, want) in [
            (Tier::Avx2, vec![format!("{avx} ymm13, ymm0, [20h]")]),
            (
                Tier::Sse41,
                vec![
                    "movaps xmm13, xmm0".to_string(),
                    format!("{sse} xmm13, [20h]"),
                ],
            ),
        ] {
            let got = decode_with(
                |o| {
                    let l = o.new_dynamic_label();
                    asm::vop_m(o, tier, op, 13, 0, Mem::Const(l));
                    asm::scalar::align(o, 32);
                    asm::scalar::bind(o, l);
                },
                false,
            );
            assert_eq!(got[..want.len()], want[..], "{op:?} {tier:?}");
        }
    }
}

#[test]
fn partial_interleaves_for_the_wanted_components() {
    // Only x and y: the low interleaves; z alone: the high ones.
    let low = decode(|o| {
        let plan = asm::unpack_rows(o, Tier::Avx2, [1, 2, 3, 4], 15, 0b0010);
        assert_eq!(plan[1], (VOp::UnpckHpd, 15, 2));
    });
    assert_eq!(
        low,
        ["vunpcklps ymm15, ymm1, ymm2", "vunpcklps ymm2, ymm3, ymm4"]
    );
    let high = decode(|o| {
        let plan = asm::unpack_rows(o, Tier::Sse41, [1, 2, 3, 4], 15, 0b0100);
        assert_eq!(plan[2], (VOp::UnpckLpd, 1, 3));
    });
    assert_eq!(high, ["unpckhps xmm1, xmm2", "unpckhps xmm3, xmm4"]);
}

/// The AVX-512 arms (EVEX chunks from `x64::evex`, whose every form `evex_roundtrip.rs` checks)
/// are the sequences meant: compares through k1, selects through k1 and `vblendmps`, 128-bit
/// segments, a constant-pool operand as `[rip + disp32]` reaching its row.
#[test]
fn avx512_arms_emit_the_sequences_meant() {
    let t = Tier::Avx512;
    check(&["vaddps zmm3, zmm1, zmm9"], |o| {
        asm::vop(o, t, VOp::AddPs, 3, 1, 9)
    });
    check(&["vcmpltps k1, zmm1, zmm9", "vpmovm2d zmm3, k1"], |o| {
        asm::vop(o, t, VOp::CmpLtPs, 3, 1, 9)
    });
    check(&["vcmpltpd k1, zmm1, zmm9", "vpmovm2q zmm3, k1"], |o| {
        asm::vop(o, t, VOp::CmpLtPd, 3, 1, 9)
    });
    check(&["vpcmpgtd k1, zmm1, zmm9", "vpmovm2d zmm3, k1"], |o| {
        asm::vop(o, t, VOp::PCmpGtD, 3, 1, 9)
    });
    check(
        &["vpmovd2m k1, zmm9", "vblendmps zmm1{k1}, zmm3, zmm2"],
        |o| asm::select(o, t, 1, 9, 2, 3),
    );
    check(&["vmulps zmm13, zmm0, [rdi+rax+2000h]"], |o| {
        asm::vop_m(o, t, VOp::MulPs, 13, 0, Mem::CtxRax(0x2000))
    });
    check(&["vbroadcastss zmm10, [rdi+2010h]"], |o| {
        asm::broadcast(o, t, 10, Mem::Ctx(0x2010))
    });
    check(&["vrndscaleps zmm2, zmm11, 9"], |o| {
        asm::round_ps(o, t, 2, 11, 9)
    });
    check(&["vinsertf32x4 zmm2, zmm2, [rsi+410h], 2"], |o| {
        asm::insert_segment(o, t, 2, 2, 0x410)
    });
    check(&["vextractf32x4 [r8+510h], zmm11, 3"], |o| {
        asm::extract_segment(o, t, 11, 3, 0x510)
    });
    // A draw kernel's attribute of a higher segment, straight from its array: indexed
    // ([rdx+rax]), stepped at a kept base (rbp needs a displacement byte, r12 a SIB byte),
    // and at a base plus the batch offset.
    check(&["vinsertf32x4 zmm9, zmm9, [rdx+rax], 1"], |o| {
        asm::insert_attribute(o, t, 9, 1)
    });
    check(&["vinsertf32x4 zmm9, zmm9, [rbp], 2"], |o| {
        asm::insert_attribute_at(o, t, 9, 2, 5, 0)
    });
    check(&["vinsertf32x4 zmm9, zmm9, [r12+120h], 3"], |o| {
        asm::insert_attribute_at(o, t, 9, 3, 12, 0x120)
    });
    check(&["vinsertf32x4 zmm9, zmm9, [r13+rsi+18h], 2"], |o| {
        asm::insert_attribute_counted(o, t, 9, 2, 13, 0x18)
    });
    check(
        &[
            "vptestmd k1, zmm4, zmm4",
            "kortestw k1, k1",
            "jne 0000000000000010h",
        ],
        |o| {
            let l = o.new_dynamic_label();
            asm::jump_if_any(o, t, 4, l);
            asm::scalar::bind(o, l);
        },
    );
    check(&["vpmovd2m k1, zmm12", "kmovw eax, k1"], |o| {
        asm::movmsk_eax(o, t, 12)
    });
    // A uniform: its scalar as a `{1to16}` operand (AVX2: the broadcast row); a load of it is
    // a broadcast; a form without a 32-bit broadcast (doubles) reads the row.
    let u = Mem::Uniform { index: 3, comp: 2 };
    // iced's hex: a leading 0 before a letter digit.
    let hex = |x: i32| {
        let h = format!("{x:X}h");
        if h.starts_with(|c: char| c.is_ascii_alphabetic()) {
            format!("0{h}")
        } else {
            h
        }
    };
    let (scalar, row) = (
        hex(picajit_codegen::abi::uniform_offset(3, 2)),
        hex(picajit_codegen::abi::uniform_row_offset(3, 2)),
    );
    check(
        &[&format!("vmulps zmm13, zmm0, [rdi+{scalar}]{{1to16}}")],
        |o| asm::vop_m(o, t, VOp::MulPs, 13, 0, u),
    );
    check(&[&format!("vmulps ymm13, ymm0, [rdi+{row}]")], |o| {
        asm::vop_m(o, Tier::Avx2, VOp::MulPs, 13, 0, u)
    });
    check(&[&format!("vbroadcastss zmm4, [rdi+{scalar}]")], |o| {
        asm::load(o, t, 4, u)
    });
    check(&[&format!("vaddpd zmm4, zmm1, [rdi+{row}]")], |o| {
        asm::vop_m(o, t, VOp::AddPd, 4, 1, u)
    });
    // The pool row right after the instruction (aligned to 64): its address as the operand.
    for (op, want) in [
        (VOp::SubPs, "vsubps zmm13, zmm0, [40h]"),
        (VOp::CmpEqPs, "vcmpeqps k1, zmm0, [40h]"),
    ] {
        let got = decode_with(
            |o| {
                let l = o.new_dynamic_label();
                asm::vop_m(o, t, op, 13, 0, Mem::Const(l));
                asm::scalar::align(o, 64);
                asm::scalar::bind(o, l);
            },
            false,
        );
        assert_eq!(got[0], want, "{op:?}");
    }
}
