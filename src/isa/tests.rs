//! Tests of the opcode table, formats and descriptors.

use super::*;

#[test]
fn control_opcodes_are_the_control_kinds() {
    let mut control = 0;
    for v in 0..64u32 {
        let op = Opcode::from_value(v as u8);
        let kind = Instruction::decode(v << 26).kind();
        assert_eq!(
            op.is_control(),
            matches!(kind, Kind::Control(_)),
            "{}",
            op.mnemonic()
        );
        control += usize::from(op.is_control());
    }
    // BREAK, END, BREAKC, CALL, CALLC, CALLU, IFU, IFC, LOOP, JMPC, JMPU: one value each.
    assert_eq!(control, 11);
}

#[test]
fn table_covers_every_value_once() {
    let mut count = [0usize; 64];
    for &op in Opcode::ALL {
        for &v in op.values() {
            count[v as usize] += 1;
            assert_eq!(Opcode::from_value(v), op, "value {v:#04x}");
        }
    }
    assert!(count.iter().all(|&c| c == 1), "{count:?}");
    assert_eq!(Opcode::from_value(0x2F), Opcode::Cmp);
    assert_eq!(Opcode::from_value(0x33), Opcode::Madi);
    assert_eq!(Opcode::from_value(0x3F), Opcode::Mad);
    assert_eq!(Opcode::from_value(0x21), Opcode::Nop);
    assert_eq!(Opcode::from_value(0x22), Opcode::End);
    for v in [0x10, 0x11, 0x14, 0x15, 0x16, 0x17, 0x1C, 0x1D, 0x1E, 0x1F] {
        assert_eq!(Opcode::from_value(v), Opcode::Undefined);
    }
}

#[test]
fn mnemonics_are_unique() {
    let mut names: Vec<_> = Opcode::ALL.iter().map(|o| o.mnemonic()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), Opcode::ALL.len());
}

/// `encode(decode(w)) == w` for words whose unused bits are zero: 40,000 random words for each of
/// the 64 opcode values (2.56 million words), so every alias and field is exercised.
#[test]
fn encode_decode_round_trip_every_opcode() {
    let mut rng = fastrand::Rng::with_seed(0x5EED_0001);
    let mut checked = 0u64;
    for value in 0u32..64 {
        let used = Opcode::from_value(value as u8).used_bits();
        for _ in 0..40_000 {
            let w = ((value << 26) | (rng.u32(..) & 0x03FF_FFFF)) & used;
            let instr = Instruction::decode(w);
            assert_eq!(instr.encode(), w, "{w:#010x} decoded as {instr:?}");
            assert_eq!(Instruction::unused_bits(w), 0);
            checked += 1;
        }
    }
    assert_eq!(checked, 2_560_000);
}

/// Decode is total and idempotent on arbitrary words, and only drops unused bits.
#[test]
fn decode_total_over_random_words() {
    let mut rng = fastrand::Rng::with_seed(0x5EED_0002);
    for _ in 0..1_000_000 {
        let w = rng.u32(..);
        let instr = Instruction::decode(w);
        let canonical = instr.encode();
        assert_eq!(canonical, w & !Instruction::unused_bits(w), "{w:#010x}");
        assert_eq!(Instruction::decode(canonical), instr);
    }
}

#[test]
fn hand_derived_encodings() {
    // add o0, v0, v1 (desc 0): opcode 0x00; DST 0 [25:21]; SRC1 v0 = 0x00 [18:12];
    // SRC2 v1 = 0x01 at [11:7] -> 0x80.
    let add = Instruction::Add(Fmt1 {
        dst: Dst::output(0),
        idx: AddrIdx::None,
        src1: Src::input(0),
        src2: Src::input(1),
        desc: 0,
    });
    assert_eq!(add.encode(), 0x0000_0080);

    // dp4 o0.x, c0[a0.x], v0 (desc 5): opcode 0x02 << 26 = 0x0800_0000; DST o0 = 0;
    // IDX 1 << 19 = 0x0008_0000; SRC1 c0 = 0x20 << 12 = 0x0002_0000; SRC2 v0 = 0; DESC 5.
    let dp4 = Instruction::Dp4(Fmt1 {
        dst: Dst::output(0),
        idx: AddrIdx::A0x,
        src1: Src::uniform(0),
        src2: Src::input(0),
        desc: 5,
    });
    assert_eq!(dp4.encode(), 0x080A_0005);

    // mov r3, v2 (desc 1): 0x13 << 26 = 0x4C00_0000; DST r3 = 0x13 << 21 = 0x0260_0000;
    // SRC1 v2 = 2 << 12 = 0x2000; DESC 1.
    let mov = Instruction::Mov(Fmt1u {
        dst: Dst::temp(3),
        idx: AddrIdx::None,
        src1: Src::input(2),
        desc: 1,
    });
    assert_eq!(mov.encode(), 0x4E60_2001);

    // sgei r0, v1, c4 (desc 2): 0x1A << 26 = 0x6800_0000; DST r0 = 0x10 << 21 = 0x0200_0000;
    // SRC1 (narrow, [18:14]) v1 = 1 << 14 = 0x4000; SRC2 (wide, [13:7]) c4 = 0x24 << 7 = 0x1200.
    let sgei = Instruction::Sgei(Fmt1i {
        dst: Dst::temp(0),
        idx: AddrIdx::None,
        src1: Src::input(1),
        src2: Src::uniform(4),
        desc: 2,
    });
    assert_eq!(sgei.encode(), 0x6A00_5202);

    // cmp v0, ge(5), lt(2), v1 (desc 0): [31:27] = 0b10111 -> 0xB800_0000; CMPX 5 at [26:24]
    // -> 0x0500_0000 (so the opcode field reads 0x2F); CMPY 2 at [23:21] -> 0x0040_0000;
    // SRC2 v1 -> 0x80.
    let cmp = Instruction::Cmp(Fmt1c {
        cmpx: CmpOp::Ge,
        cmpy: CmpOp::Lt,
        idx: AddrIdx::None,
        src1: Src::input(0),
        src2: Src::input(1),
        desc: 0,
    });
    assert_eq!(cmp.encode(), 0xBD40_0080);
    assert_eq!(cmp.encode() >> 26, 0x2F);

    // mad o1, v0, c10, r2 (desc 3): [31:29] = 0b111 -> 0xE000_0000; DST o1 = 1 << 24;
    // SRC1 v0 = 0; SRC2 c10 = 0x2A << 10 = 0xA800; SRC3 r2 = 0x12 << 5 = 0x240; DESC 3.
    let mad = Instruction::Mad(Fmt5 {
        dst: Dst::output(1),
        idx: AddrIdx::None,
        src1: Src::input(0),
        src2: Src::uniform(10),
        src3: Src::temp(2),
        desc: 3,
    });
    assert_eq!(mad.encode(), 0xE100_AA43);
    // DST r15 = 0x1F at [28:24] makes the opcode field read 0x3F: still MAD.
    let mad_r15 = Instruction::decode(0xFF00_0000);
    assert_eq!(mad_r15.opcode(), Opcode::Mad);

    // madi r0, v1, v2, c3 (desc 4): [31:29] = 0b110 -> 0xC000_0000; DST r0 = 0x10 << 24;
    // SRC1 v1 = 1 << 17; SRC2 v2 = 2 << 12; SRC3 c3 = 0x23 << 5 = 0x460; DESC 4.
    let madi = Instruction::Madi(Fmt5i {
        dst: Dst::temp(0),
        idx: AddrIdx::None,
        src1: Src::input(1),
        src2: Src::input(2),
        src3: Src::uniform(3),
        desc: 4,
    });
    assert_eq!(madi.encode(), 0xD002_2464);

    // ifc dest 0x010, num 3, !cc.x OR cc.y: 0x28 << 26 = 0xA000_0000; REFX 0; REFY 1 at 24;
    // CONDOP 0; DEST 0x10 << 10 = 0x4000; NUM 3.
    let ifc = Instruction::Ifc(Fmt2 {
        refx: false,
        refy: true,
        condop: CondOp::Or,
        dest: 0x10,
        num: 3,
    });
    assert_eq!(ifc.encode(), 0xA100_4003);

    // loop i2, dest 0x020: 0x29 << 26 = 0xA400_0000; ID 2 at [23:22] = 0x0080_0000;
    // DEST 0x20 << 10 = 0x8000.
    let lp = Instruction::Loop(Fmt3i {
        id: 2,
        dest: 0x20,
        num: 0,
    });
    assert_eq!(lp.encode(), 0xA480_8000);

    // jmpu !b15, dest 7: 0x2D << 26 = 0xB400_0000; ID 15 at [25:22] = 0x03C0_0000;
    // DEST 7 << 10 = 0x1C00; NUM 1 (jump if false).
    let jmpu = Instruction::Jmpu(Fmt3b {
        id: 15,
        dest: 7,
        num: 1,
    });
    assert_eq!(jmpu.encode(), 0xB7C0_1C01);

    // setemit 2, prim, inv: 0x2B << 26 = 0xAC00_0000; VTXID 2 << 24; PRIM bit 23; WINDING 22.
    let se = Instruction::Setemit(Fmt4 {
        vertex: 2,
        primitive: true,
        winding: true,
    });
    assert_eq!(se.encode(), 0xAEC0_0000);

    // end = 0x22 << 26; nop = 0x21 << 26.
    assert_eq!(Instruction::End(Fmt0).encode(), 0x8800_0000);
    assert_eq!(Instruction::Nop(Fmt0).encode(), 0x8400_0000);

    // An undefined opcode keeps every bit.
    let undef = Instruction::decode(0x4512_3456);
    assert_eq!(undef.opcode(), Opcode::Undefined);
    assert_eq!(undef.encode(), 0x4512_3456);
}

#[test]
fn unused_bits_are_reported() {
    // END with junk in [25:0].
    assert_eq!(Instruction::unused_bits(0x8800_0001), 1);
    // MOV with bits in the unused SRC2 slot [11:7].
    assert_eq!(Instruction::unused_bits(0x4C00_0F80), 0xF80);
    // LOOP with bits in [25:24] and [9:8].
    assert_eq!(Instruction::unused_bits(0xA700_0300), 0x0300_0300);
    // ADD uses every bit.
    assert_eq!(Instruction::unused_bits(0x03FF_FFFF), 0);
}

#[test]
fn registers_decode_by_range() {
    assert_eq!(Src(0x00).kind(), SrcKind::Input(0));
    assert_eq!(Src(0x0F).kind(), SrcKind::Input(15));
    assert_eq!(Src(0x10).kind(), SrcKind::Temp(0));
    assert_eq!(Src(0x1F).kind(), SrcKind::Temp(15));
    assert_eq!(Src(0x20).kind(), SrcKind::Uniform(0));
    assert_eq!(Src(0x7F).kind(), SrcKind::Uniform(95));
    assert_eq!(Dst(0x03).kind(), DstKind::Output(3));
    assert_eq!(Dst(0x13).kind(), DstKind::Temp(3));
    assert_eq!(Src::uniform(95).to_string(), "c95");
}

#[test]
fn descriptors_round_trip() {
    // Identity selectors 0x1B for all three sources, full mask: 0xF | 0x1B << 5 | 0x1B << 14
    // | 0x1B << 23.
    let identity = OpDesc::new(0xF, [SrcMod::IDENTITY; 3]);
    assert_eq!(identity.0, 0x0D86_C36F);
    assert_eq!(identity.src(1).select, [0, 1, 2, 3]);
    // Negated src2 .yyyy (0x55), mask x only.
    let d = OpDesc::new(
        0x8,
        [
            SrcMod::IDENTITY,
            SrcMod::from_parts(true, 0x55),
            SrcMod::IDENTITY,
        ],
    );
    assert!(d.writes(0) && !d.writes(1) && !d.writes(2) && !d.writes(3));
    assert_eq!(
        d.src(1),
        SrcMod {
            negate: true,
            select: [1, 1, 1, 1]
        }
    );
    assert_eq!(d.src(1).apply([1.0, 2.0, 3.0, 4.0]), [-2.0; 4]);
    let mut rng = fastrand::Rng::with_seed(0x5EED_0003);
    for _ in 0..200_000 {
        let w = rng.u32(..);
        let desc = OpDesc(w);
        assert_eq!(OpDesc::new(desc.mask(), desc.srcs()).0, w & 0x7FFF_FFFF);
        assert_eq!(desc.unused_bit(), w >> 31 == 1);
    }
}

#[test]
fn listing_is_readable() {
    let descs = [OpDesc::new(0xC, [SrcMod::IDENTITY; 3]).0];
    let dp4 = Instruction::Dp4(Fmt1 {
        dst: Dst::output(0),
        idx: AddrIdx::A0x,
        src1: Src::uniform(4),
        src2: Src::input(0),
        desc: 0,
    });
    assert_eq!(
        dp4.listing(&descs),
        "dp4     o0.xy, c4[a0.x].xyzw, v0.xyzw ; desc 0"
    );
}
