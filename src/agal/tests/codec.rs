//! The opcode table, token fields and header: hand-derived encodings and exact round trips.

use crate::agal::header::{HEADER_BYTES, MAGIC, TYPE_TAG};
use crate::agal::token::{DEST_RESERVED, SAMPLER_RESERVED, SOURCE_RESERVED, TOKEN_BYTES};
use crate::agal::*;

#[test]
fn table_values_are_unique_and_ascending() {
    let values: Vec<u32> = Opcode::ALL.iter().map(|o| o.value()).collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    for &op in Opcode::ALL {
        assert_eq!(Opcode::from_value(op.value()), Some(op));
        assert_eq!(op.mnemonic().len(), 3);
    }
    for v in [0x22, 0x23, 0x24, 0x25, 0x2F, 0x30, 0xFF, u32::MAX] {
        assert_eq!(Opcode::from_value(v), None, "{v:#x}");
    }
    assert_eq!(Opcode::ALL.len(), 43);
    assert_eq!(Opcode::from_mnemonic("m44"), Some(Opcode::M44));
    assert_eq!(
        Opcode::from_mnemonic("ted"),
        None,
        "ted is not in AGALMiniAssembler"
    );
    assert_eq!(
        Opcode::from_mnemonic("MOV"),
        None,
        "mnemonics are case-sensitive"
    );
}

#[test]
fn table_properties() {
    assert_eq!(Opcode::Tex.shape(), Shape::DestSrcSampler);
    assert_eq!(Opcode::Kil.shape(), Shape::Src);
    assert_eq!(Opcode::Ife.shape().text_operands(), 2);
    assert_eq!(Opcode::Els.shape().text_operands(), 0);
    assert_eq!(Opcode::Tld.min_version(), 4);
    assert_eq!(Opcode::Tld.stage(), Stage::Vertex);
    assert_eq!(Opcode::Ddx.asm_gate(), AsmGate::Version2);
    assert_eq!(
        Opcode::Tld.asm_gate(),
        AsmGate::Any,
        "the assembler does not gate tld"
    );
    assert_eq!(Opcode::M34.matrix(), Some((3, 4)));
    assert_eq!(Opcode::Dp4.matrix(), None);
    let xyz: Vec<_> = Opcode::ALL
        .iter()
        .filter(|o| o.lanes() == Lanes::Xyz)
        .map(|o| o.mnemonic())
        .collect();
    assert_eq!(xyz, ["nrm", "crs", "m33", "m34"]);
}

/// The block columns agree with the operand shapes and name the documented opcodes.
#[test]
fn table_block_columns() {
    let with = |f: &dyn Fn(Opcode) -> bool| -> Vec<&str> {
        Opcode::ALL
            .iter()
            .filter(|&&o| f(o))
            .map(|o| o.mnemonic())
            .collect()
    };
    for &op in Opcode::ALL {
        let opens = matches!(op.flow(), Flow::If(_));
        assert_eq!(opens, op.shape() == Shape::SrcSrc, "{op:?}");
        let bare = matches!(op.flow(), Flow::Else | Flow::EndIf);
        assert_eq!(bare, op.shape() == Shape::None, "{op:?}");
        assert_eq!(bare, op.reads() == Reads::Nothing, "{op:?}");
        if op.shape() == Shape::DestSrcSampler {
            assert!(
                matches!(op.reads(), Reads::Coords | Reads::CoordsLod),
                "{op:?}"
            );
        }
    }
    let conds: Vec<_> = Opcode::ALL
        .iter()
        .filter_map(|o| match o.flow() {
            Flow::If(c) => Some((o.mnemonic(), c)),
            Flow::Straight | Flow::Else | Flow::EndIf => None,
        })
        .collect();
    assert_eq!(
        conds,
        [
            ("ife", Cond::Eq),
            ("ine", Cond::Ne),
            ("ifg", Cond::Gt),
            ("ifl", Cond::Lt)
        ]
    );
    assert_eq!(with(&|o| o.flow() == Flow::Else), ["els"]);
    assert_eq!(with(&|o| o.flow() == Flow::EndIf), ["eif"]);
    assert_eq!(with(&|o| o.in_block() == InBlock::Refused), ["ddx", "ddy"]);
    assert_eq!(with(&|o| o.in_block() == InBlock::VaryingCoords), ["tex"]);
    assert_eq!(
        with(&|o| o.reads() == Reads::Xyz),
        ["nrm", "crs", "dp3", "m33"]
    );
    assert_eq!(with(&|o| o.reads() == Reads::Xyzw), ["dp4", "m44", "m34"]);
    assert_eq!(
        with(&|o| o.reads() == Reads::X),
        ["ife", "ine", "ifg", "ifl", "kil"]
    );
    assert_eq!(with(&|o| o.reads() == Reads::CoordsLod), ["tld"]);
}

/// `mov op, va0` as AGALMiniAssembler writes it (Ruffle's `agal_compiler` test, recorded from
/// Flash): opcode 0, destination `00 00 0F 03`, source `00 00 00 E4 00 00 00 00`.
#[test]
fn hand_encoded_mov() {
    let mut bytes = [0u8; TOKEN_BYTES];
    bytes[4..8].copy_from_slice(&[0, 0, 15, 3]);
    bytes[8..16].copy_from_slice(&[0, 0, 0, 228, 0, 0, 0, 0]);
    let t = Token::decode(RawToken::from_bytes(&bytes));
    assert_eq!(t.opcode(), Some(Opcode::Mov));
    assert_eq!(t.dest.reg_type, RegType::Output.code());
    assert_eq!(t.dest.mask, WriteMask::XYZW);
    assert_eq!(t.src1, Source::direct(0, 0, Swizzle::IDENTITY));
    assert_eq!(t.encode().to_bytes(), bytes);
}

/// `vc[va2.y+5].xyzz`: the index register's number and type, the component and bit 63.
#[test]
fn hand_encoded_indirect_source() {
    let s = Source {
        reg: 2,
        offset: 5,
        swizzle: Swizzle(0xA4),
        reg_type: 1,
        index_type: 0,
        index_comp: 1,
        indirect: true,
        reserved: 0,
    };
    assert_eq!(s.encode(), 0x8001_0001_A405_0002);
    assert_eq!(Source::decode(0x8001_0001_A405_0002), s);
    assert_eq!(s.swizzle.letters(), "xyz");
}

/// `fs3 <cube,linear,miplinear,clamp,-0.5>`: bias −4 eighths, type 5, dim 1, mip 2, filter 1.
#[test]
fn hand_encoded_sampler() {
    let f = SamplerField {
        reg: 3,
        bias: -4,
        reg_type: 5,
        format: 0,
        dim: 1,
        special: 0,
        wrap: 0,
        mip: 2,
        filter: 1,
        reserved: 0,
    };
    assert_eq!(f.encode(), 0x1200_1005_00FC_0003);
    assert_eq!(SamplerField::decode(f.encode()), f);
}

#[test]
fn swizzle_and_mask_text() {
    assert_eq!(Swizzle(0x00).letters(), "x");
    assert_eq!(Swizzle(0xFF).letters(), "w");
    assert_eq!(Swizzle::IDENTITY.letters(), "xyzw");
    assert_eq!(Swizzle(0x54).letters(), "xy");
    assert_eq!(Swizzle(0x1B).letters(), "wzyx");
    assert!(Swizzle(0xAA).is_replicate());
    assert!(!Swizzle(0xA9).is_replicate());
    assert_eq!(WriteMask(0b1011).letters(), "xyw");
}

/// Every field decodes any bits and encodes them back: 200,000 random values per field, and
/// the reserved masks are exactly the bits no named member owns.
#[test]
fn fields_round_trip_random_bits() {
    let mut rng = fastrand::Rng::with_seed(0xA6A1_0001);
    for _ in 0..200_000 {
        let d = rng.u32(..);
        assert_eq!(Dest::decode(d).encode(), d, "{d:#010x}");
        let s = rng.u64(..);
        assert_eq!(Source::decode(s).encode(), s, "{s:#018x}");
        let m = rng.u64(..);
        assert_eq!(SamplerField::decode(m).encode(), m, "{m:#018x}");
    }
    assert_eq!(Dest::decode(!DEST_RESERVED).reserved, 0);
    assert_eq!(Source::decode(!SOURCE_RESERVED).reserved, 0);
    assert_eq!(SamplerField::decode(!SAMPLER_RESERVED).reserved, 0);
    assert_eq!(Dest::decode(DEST_RESERVED).encode() & !DEST_RESERVED, 0);
}

/// Whole tokens: random opcode fields biased to real opcodes (so sampler decoding is exercised),
/// random operand bits; `encode(decode(t)) == t` and the bytes survive.
#[test]
fn tokens_round_trip_random_bits() {
    let mut rng = fastrand::Rng::with_seed(0xA6A1_0002);
    for i in 0..300_000u32 {
        let opcode = if i % 4 == 0 {
            rng.u32(..)
        } else {
            rng.u32(0..0x30)
        };
        let raw = RawToken {
            opcode,
            dest: rng.u32(..),
            src1: rng.u64(..),
            src2: rng.u64(..),
        };
        let t = Token::decode(raw);
        assert_eq!(t.encode(), raw);
        assert_eq!(RawToken::from_bytes(&raw.to_bytes()), raw);
        let sampler = Opcode::from_value(opcode).is_some_and(|o| o.shape().has_sampler());
        assert_eq!(t.sampler().is_some(), sampler);
    }
}

#[test]
fn header_fields() {
    let h = Header::new(ShaderKind::Fragment, 2);
    assert_eq!(h.to_bytes(), [MAGIC, 2, 0, 0, 0, TYPE_TAG, 1]);
    assert!(h.is_well_formed());
    assert_eq!(Header::from_bytes(&h.to_bytes()), h);
    let odd = Header::from_bytes(&[0xFF, 0x78, 0x56, 0x34, 0x12, 0, 9]);
    assert_eq!(odd.version, 0x1234_5678);
    assert!(!odd.is_well_formed());
    assert_eq!(odd.shader_kind(), None);
}

/// `split` then `to_bytes` gives back any byte string: every length 0..=80 of random bytes and
/// 20,000 random lengths up to 2 KB.
#[test]
fn bytecode_split_is_exact() {
    let mut rng = fastrand::Rng::with_seed(0xA6A1_0003);
    let mut check = |len: usize| {
        let bytes: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
        let b = Bytecode::split(&bytes);
        assert_eq!(b.header.is_some(), len >= HEADER_BYTES);
        if len >= HEADER_BYTES {
            assert_eq!(b.tokens.len(), (len - HEADER_BYTES) / TOKEN_BYTES);
            assert_eq!(b.tail.len(), (len - HEADER_BYTES) % TOKEN_BYTES);
        }
        assert_eq!(b.to_bytes(), bytes);
    };
    for len in 0..=80 {
        check(len);
    }
    let mut lens = fastrand::Rng::with_seed(7);
    for _ in 0..20_000 {
        check(lens.usize(..2048));
    }
}
