//! Operands (`picajit::interp`, `picajit::isa`): encodings, write masks, swizzles,
//! negation, descriptor memory, MOVA, uniform reads and relative addressing through a0.x, a0.y
//! and aL, and which slot of each format is the wide (relative-addressable) one.

mod common;

use common::*;
use picajit::interp::Interpreter;
use picajit::isa::CmpOp;
use picajit::program::{Regs16, Uniforms, Vec4};

const NAN: f32 = f32::NAN;
const ONES: Vec4 = [1.0; 4];

/// Uniforms with c[i] = (i, i + 0.5, -i, 2): every entry distinct and none equal to the
/// (1, 1, 1, 1) read past c95.
fn indexed_uniforms() -> Uniforms {
    let mut u = Uniforms::default();
    for (i, cv) in u.f.iter_mut().enumerate() {
        let x = i as f32;
        *cv = [x, x + 0.5, -x, 2.0];
    }
    u
}

fn cval(i: usize) -> Vec4 {
    let x = i as f32;
    [x, x + 0.5, -x, 2.0]
}

/// The builder's words equal encodings derived by hand from the format bit tables.
#[test]
fn builder_encodings_match_hand_derived_words() {
    let mut b = Builder::new();
    // add o0, v0, v1 (desc 0 = identity): opcode 0, SRC2 v1 = 1 << 7.
    b.add(o(0), v(0), v(1));
    // mov r3.xy, -c5[a0.y].wzyx (desc 1): 0x13 << 26 | r3 = 0x13 << 21 | IDX 2 << 19 |
    // c5 = 0x25 << 12 | 1.
    b.mov(r(3).mask("xy"), -c(5).swz("wzyx").rel(A0Y));
    // sgei o1, v2, c7: 0x1A << 26 | 1 << 21 | v2 = 2 << 14 | c7 = 0x27 << 7 | desc 0.
    b.sgei(o(1), v(2), c(7));
    // cmp v0, >=, <, v1: 0x2E << 26 | CMPX 5 << 24 | CMPY 2 << 21 | v1 << 7 | desc 0.
    b.cmp(v(0), CmpOp::Ge, CmpOp::Lt, v(1));
    // ifc cc.x, dest 3, num 2: 0x28 << 26 | REFX 1 << 25 | CONDOP 2 << 22 | 3 << 10 | 2.
    b.ifc(cond_x(true), 3, 2);
    // loop i2, dest 7: 0x29 << 26 | 2 << 22 | 7 << 10.
    b.loop_(2, 7);
    // jmpu b5, dest 9, num 1: 0x2D << 26 | 5 << 22 | 9 << 10 | 1.
    b.jmpu(5, 9, 1);
    // setemit 2, prim, inv: 0x2B << 26 | 2 << 24 | 1 << 23 | 1 << 22.
    b.setemit(2, true, true);
    // nop, end, break, emit
    b.nop().end().brk().emit();
    // mad o2, v0, c40[a0.x], v3 (desc 0): 0x38 << 26 | o2 << 24 | IDX 1 << 22 |
    // c40 = 0x48 << 10 | v3 = 3 << 5.
    b.mad(o(2), v(0), c(40).rel(A0X), v(3));
    // madi o3, v0, v3, c40[a0.x]: 0x30 << 26 | 3 << 24 | 1 << 22 | v3 = 3 << 12 |
    // c40 = 0x48 << 5.
    b.madi(o(3), v(0), v(3), c(40).rel(A0X));
    assert_eq!(
        b.code(),
        &[
            0x0000_0080,
            0x4E72_5001,
            0x6820_9380,
            0xBD40_0080,
            0xA280_0C02,
            0xA480_1C00,
            0xB540_2401,
            0xAEC0_0000,
            0x8400_0000,
            0x8800_0000,
            0x8000_0000,
            0xA800_0000,
            0xE241_2060,
            0xC340_3900,
        ]
    );
    // identity: mask 0xF, selector bytes 0x1B at bits 5, 14, 23. Descriptor 1: mask xy = 0xC,
    // negate src1 (bit 4), src1 selectors wzyx = 0b11_10_01_00 = 0xE4 at bit 5.
    assert_eq!(IDENTITY_DESC, 0xF | 0x1B << 5 | 0x1B << 14 | 0x1B << 23);
    assert_eq!(
        b.descs(),
        &[
            IDENTITY_DESC,
            0xC | 1 << 4 | 0xE4 << 5 | 0x1B << 14 | 0x1B << 23
        ]
    );
}

/// `mov o0.<mask>, v0` after `mov o0, v1`: masked-off components keep their old value.
/// All 16 masks (mask 0 writes nothing).
#[test]
fn destination_masks() {
    let masks: &[(&str, Vec4)] = &[
        ("", [5.0, 6.0, 7.0, 8.0]),
        ("w", [5.0, 6.0, 7.0, 4.0]),
        ("z", [5.0, 6.0, 3.0, 8.0]),
        ("zw", [5.0, 6.0, 3.0, 4.0]),
        ("y", [5.0, 2.0, 7.0, 8.0]),
        ("yw", [5.0, 2.0, 7.0, 4.0]),
        ("yz", [5.0, 2.0, 3.0, 8.0]),
        ("yzw", [5.0, 2.0, 3.0, 4.0]),
        ("x", [1.0, 6.0, 7.0, 8.0]),
        ("xw", [1.0, 6.0, 7.0, 4.0]),
        ("xz", [1.0, 6.0, 3.0, 8.0]),
        ("xzw", [1.0, 6.0, 3.0, 4.0]),
        ("xy", [1.0, 2.0, 7.0, 8.0]),
        ("xyw", [1.0, 2.0, 7.0, 4.0]),
        ("xyz", [1.0, 2.0, 3.0, 8.0]),
        ("xyzw", [1.0, 2.0, 3.0, 4.0]),
    ];
    for (mask, want) in masks {
        // [0] mov o0, v1
        // [1] mov r0, v1
        // [2] mov o0.<mask>, v0
        // [3] add r0.<mask>, v0, v2     ; same through a temp and another opcode
        // [4] mov o1, r0
        // [5] end
        let mut b = Builder::new();
        b.mov(o(0), v(1))
            .mov(r(0), v(1))
            .mov(o(0).mask(mask), v(0))
            .add(r(0).mask(mask), v(0), v(2))
            .mov(o(1), r(0))
            .end();
        let out = run_one(
            &b.program(),
            &Uniforms::default(),
            vecs(&[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]),
        );
        check_bits(&out[0], want, &format!("mov o0.{mask}"));
        check_bits(&out[1], want, &format!("add r0.{mask}"));
    }
}

/// Azahar's shader-test swizzle list on each source slot: src1 (`mov`), src2 (`add o0, v2, v0.s`
/// with v2 = 0) and src3 (`mad o0, v2, v2, v0.s`). Short swizzles repeat their last letter.
#[test]
fn source_swizzles_on_every_slot() {
    let list: &[(&str, Vec4)] = &[
        ("x", [1.0, 1.0, 1.0, 1.0]),
        ("y", [2.0, 2.0, 2.0, 2.0]),
        ("z", [3.0, 3.0, 3.0, 3.0]),
        ("w", [4.0, 4.0, 4.0, 4.0]),
        ("xy", [1.0, 2.0, 2.0, 2.0]),
        ("xz", [1.0, 3.0, 3.0, 3.0]),
        ("xw", [1.0, 4.0, 4.0, 4.0]),
        ("yz", [2.0, 3.0, 3.0, 3.0]),
        ("yw", [2.0, 4.0, 4.0, 4.0]),
        ("zw", [3.0, 4.0, 4.0, 4.0]),
        ("yy", [2.0, 2.0, 2.0, 2.0]),
        ("wx", [4.0, 1.0, 1.0, 1.0]),
        ("xyz", [1.0, 2.0, 3.0, 3.0]),
        ("xyw", [1.0, 2.0, 4.0, 4.0]),
        ("xzw", [1.0, 3.0, 4.0, 4.0]),
        ("yzw", [2.0, 3.0, 4.0, 4.0]),
        ("yyy", [2.0, 2.0, 2.0, 2.0]),
        ("yxw", [2.0, 1.0, 4.0, 4.0]),
        ("xyzw", [1.0, 2.0, 3.0, 4.0]),
        ("wzxy", [4.0, 3.0, 1.0, 2.0]),
        ("yyyy", [2.0, 2.0, 2.0, 2.0]),
    ];
    let input = vecs(&[[1.0, 2.0, 3.0, 4.0]]);
    for (swz, want) in list {
        // [0] mov o0, v0.<swz>
        // [1] add o1, v2, v0.<swz>
        // [2] mad o2, v2, v2, v0.<swz>
        // [3] end
        let mut b = Builder::new();
        b.mov(o(0), v(0).swz(swz))
            .add(o(1), v(2), v(0).swz(swz))
            .mad(o(2), v(2), v(2), v(0).swz(swz))
            .end();
        let out = run_one(&b.program(), &Uniforms::default(), input);
        check_bits(&out[0], want, &format!("src1 .{swz}"));
        check_bits(&out[1], want, &format!("src2 .{swz}"));
        check_bits(&out[2], want, &format!("src3 .{swz}"));
    }
}

/// All 256 selector bytes on src1, from raw descriptors: component i reads
/// v0[(byte >> (6 - 2i)) & 3].
#[test]
fn every_src1_selector_byte() {
    let v0: Vec4 = [10.0, 20.0, 30.0, 40.0];
    for chunk in 0..16u32 {
        // [k] mov o<k>, v0 with descriptor k = mask xyzw | selector byte (16*chunk + k) << 5,
        //     k = 0..15
        // [16] end
        let mut b = Builder::new();
        for k in 0..16u32 {
            let byte = chunk * 16 + k;
            b.set_desc(k as u8, 0xF | byte << 5);
            b.word(0x4C00_0000 | k << 21 | k); // mov o<k>, v0 (desc k)
        }
        b.end();
        let out = run_one(&b.program(), &Uniforms::default(), vecs(&[v0]));
        for k in 0..16u32 {
            let byte = chunk * 16 + k;
            let want: Vec4 = std::array::from_fn(|i| v0[(byte >> (6 - 2 * i) & 3) as usize]);
            check_bits(
                &out[k as usize],
                &want,
                &format!("selector byte {byte:#04x}"),
            );
        }
    }
}

/// Negation flips the sign bit after the swizzle, also of zeros; on each source slot.
/// v3 = (-0, -0, -0, -0) is the additive identity that keeps a -0 (-0 + x = x).
#[test]
fn negation() {
    // [0] mov o0, -v0
    // [1] add o1, -v0, -v1          ; -v1 = -0: -(+0) + -(+0) = -0
    // [2] add o2, v3, -v0.wzyx      ; src2 negated after the swizzle
    // [3] mad o3, v3, v1, -v0       ; src3 negated: pmul(-0, +0) = -0, + (-v0)
    // [4] mad o4, -v2, v2, v1       ; src1 negated: -(v2*v2) + 0
    // [5] end
    let mut b = Builder::new();
    b.mov(o(0), -v(0))
        .add(o(1), -v(0), -v(1))
        .add(o(2), v(3), -v(0).swz("wzyx"))
        .mad(o(3), v(3), v(1), -v(0))
        .mad(o(4), -v(2), v(2), v(1))
        .end();
    let out = run_one(
        &b.program(),
        &Uniforms::default(),
        vecs(&[
            [1.0, -0.0, 0.0, -2.0],
            [0.0; 4],
            [3.0, -3.0, 0.5, 0.0],
            [-0.0; 4],
        ]),
    );
    assert_bits(&out[0], &[-1.0, 0.0, -0.0, 2.0]);
    assert_bits(&out[1], &[-1.0, 0.0, -0.0, 2.0]);
    assert_bits(&out[2], &[2.0, -0.0, 0.0, -1.0]);
    assert_bits(&out[3], &[-1.0, 0.0, -0.0, 2.0]);
    // (-v2) * v2 + 0 = (-9, -9, -0.25, -0 + +0 = +0)
    assert_bits(&out[4], &[-9.0, -9.0, -0.25, 0.0]);
}

/// Negation flips the sign of NaN too. The NaN rule lets engines return any NaN, so this
/// is held against the interpreter only, bit for bit.
#[test]
fn negation_flips_nan_sign_in_the_interpreter() {
    // [0] mov o0, -v0
    // [1] mov o1, v0
    // [2] end
    let mut b = Builder::new();
    b.mov(o(0), -v(0)).mov(o(1), v(0)).end();
    let nans = [0x7FC0_0001, 0xFFC0_0002, 0x7F80_0003, 0xFF80_0004u32].map(f32::from_bits);
    let input = vecs(&[nans]);
    // every engine: NaN stays NaN
    let out = run_one(&b.program(), &Uniforms::default(), input);
    assert!(out[0].iter().all(|x| x.is_nan()));
    let inv = Interpreter::new(&b.program()).run_vertex(&Uniforms::default(), &input);
    assert_eq!(
        inv.outputs[0].map(f32::to_bits),
        [0xFFC0_0001, 0x7FC0_0002, 0xFF80_0003, 0x7F80_0004]
    );
    assert_eq!(inv.outputs[1].map(f32::to_bits), nans.map(f32::to_bits));
}

/// Descriptor memory: 7-bit indices reach entry 127; unloaded entries are 0 (mask 0, the
/// instruction writes nothing); MAD's 5-bit DESC reaches entry 31.
#[test]
fn descriptor_memory() {
    let mut b = Builder::new();
    b.set_desc(0, IDENTITY_DESC);
    b.set_desc(31, IDENTITY_DESC & !0x3); // mask xy
    b.set_desc(127, IDENTITY_DESC);
    b.word(0x4C00_007F); // [0] mov o0, v0          (desc 127)
    b.word(0x4C20_0064); // [1] mov o1, v0          (desc 100: never loaded -> writes nothing)
    b.word(0xE200_041F); // [2] mad o2, v0, v1, v0  (desc 31: mask xy)
    b.word(0x4C60_0F80); // [3] mov o3, v0          (desc 0; unused bits [11:7] all set)
    b.end(); // [4] end
    let out = run_one(
        &b.program(),
        &Uniforms::default(),
        vecs(&[[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]]),
    );
    assert_bits(&out[0], &[1.0, 2.0, 3.0, 4.0]);
    assert_bits(&out[1], &[0.0; 4]);
    assert_bits(&out[2], &[3.0, 6.0, 0.0, 0.0]);
    assert_bits(&out[3], &[1.0, 2.0, 3.0, 4.0]);
}

/// Azahar's shader test "Uniform Read": `mova a0.x, v0.x; mov o0, c0[a0.x]` with
/// v0.x = i + (i mod 17)/17 reads c[i] (MOVA truncates).
#[test]
fn uniform_read() {
    // [0] mova a0.x, v0
    // [1] mov o0, c0[a0.x]
    // [2] end
    let mut b = Builder::new();
    b.mova("x", v(0)).mov(o(0), c(0).rel(A0X)).end();
    let inputs: Vec<Regs16> = (0..96)
        .map(|i| scalars(&[i as f32 + (i % 17) as f32 / 17.0]))
        .collect();
    let outs = run_ok(&b.program(), &indexed_uniforms(), &inputs);
    for (i, out) in outs.iter().enumerate() {
        check_bits(
            &out[0],
            &cval(i),
            &format!("c0[a0.x] with a0.x from {:?}", inputs[i][0][0]),
        );
    }
}

/// MOVA: truncation toward zero, NaN -> 0, out-of-range values saturate (and then the offset
/// is out of ±128 and ignored). Observed through `c40[a0.x]`.
#[test]
fn mova_truncation() {
    // [0] mova a0.x, v0
    // [1] mov o0, c40[a0.x]
    // [2] end
    let mut b = Builder::new();
    b.mova("x", v(0)).mov(o(0), c(40).rel(A0X)).end();
    let cases: &[(f32, Option<usize>)] = &[
        (1.99, Some(41)),
        (-0.5, Some(40)),   // trunc -> 0 (floor would give -1 -> c39)
        (-1.5, Some(39)),   // trunc -> -1
        (-39.9, Some(1)),   // -39
        (-127.5, Some(41)), // -127 (floor -128 would give c40)
        (-0.0, Some(40)),
        (127.9, Some(39)), // 127: (40 + 127) & 0x7F = 39
        (128.5, Some(40)), // 128 is out of range: ignored
        (55.5, Some(95)),
        (56.0, None), // 96 -> (1, 1, 1, 1)
        (NAN, Some(40)),
        (f32::INFINITY, Some(40)),
        (f32::NEG_INFINITY, Some(40)),
        (1e10, Some(40)),
        (-1e10, Some(40)),
        (2_147_483_520.0, Some(40)),
    ];
    let inputs: Vec<Regs16> = cases.iter().map(|&(x, _)| scalars(&[x])).collect();
    let outs = run_ok(&b.program(), &indexed_uniforms(), &inputs);
    for (&(x, want), out) in cases.iter().zip(&outs) {
        let want = want.map_or(ONES, cval);
        check_bits(&out[0], &want, &format!("mova of {x:?}"));
    }
}

/// MOVA writes a0.x for mask x and a0.y for mask y, from the swizzled source; z and w are
/// ignored, and no vector register is written (its DST field names o0).
#[test]
fn mova_masks() {
    // [0] mova a0.xyzw, v0.yxzw     ; a0 = (7, 5); DST field is o0
    // [1] mova a0.zw, v1            ; nothing
    // [2] mov o1, c40[a0.x]         ; c47
    // [3] mov o2, c40[a0.y]         ; c45
    // [4] mova a0.y, v1             ; a0 = (7, 9)
    // [5] mov o3, c40[a0.x]         ; c47
    // [6] mov o4, c40[a0.y]         ; c49
    // [7] end
    let mut b = Builder::new();
    b.mova("xyzw", v(0).swz("yxzw"))
        .mova("zw", v(1))
        .mov(o(1), c(40).rel(A0X))
        .mov(o(2), c(40).rel(A0Y))
        .mova("y", v(1))
        .mov(o(3), c(40).rel(A0X))
        .mov(o(4), c(40).rel(A0Y))
        .end();
    let out = run_one(
        &b.program(),
        &indexed_uniforms(),
        vecs(&[[5.0, 7.0, 11.0, 13.0], [9.0, 9.0, 9.0, 9.0]]),
    );
    assert_bits(&out[0], &[0.0; 4]);
    assert_bits(&out[1], &cval(47));
    assert_bits(&out[2], &cval(45));
    assert_bits(&out[3], &cval(47));
    assert_bits(&out[4], &cval(49));
}

/// Azahar's shader test "Address Register Offset" (base c40), through a0.x and a0.y, plus edges.
/// `None` = (1, 1, 1, 1).
const OFFSET_CASES: &[(i32, Option<usize>)] = &[
    (88, Some(0)),
    (60, None),
    (74, None),
    (87, None),
    (128, Some(40)),
    (-40, Some(0)),
    (-42, None),
    (-70, None),
    (-73, Some(95)),
    (-127, Some(41)),
    (-129, Some(40)),
    (0, Some(40)),
    (55, Some(95)),
    (56, None),
    (127, Some(39)),
    (-128, Some(40)), // in range: (40 - 128) & 0x7F = 40
    (-41, None),      // 127
    (1000, Some(40)),
    (-1000, Some(40)),
];

#[test]
fn address_register_offset_a0x() {
    // [0] mova a0.x, v0
    // [1] mov o0, c40[a0.x]
    // [2] end
    let mut b = Builder::new();
    b.mova("x", v(0)).mov(o(0), c(40).rel(A0X)).end();
    let inputs: Vec<Regs16> = OFFSET_CASES
        .iter()
        .map(|&(off, _)| scalars(&[off as f32]))
        .collect();
    let outs = run_ok(&b.program(), &indexed_uniforms(), &inputs);
    for (&(off, want), out) in OFFSET_CASES.iter().zip(&outs) {
        check_bits(&out[0], &want.map_or(ONES, cval), &format!("a0.x = {off}"));
    }
}

#[test]
fn address_register_offset_a0y() {
    // [0] mova a0.x, v1             ; a0.x = 3, must not be used
    // [1] mova a0.y, v0.xxxx        ; a0.y takes component y of the swizzled source
    // [2] mov o0, c40[a0.y]
    // [3] mov o1, c40[a0.x]         ; c43
    // [4] end
    let mut b = Builder::new();
    b.mova("x", v(1))
        .mova("y", v(0).swz("x"))
        .mov(o(0), c(40).rel(A0Y))
        .mov(o(1), c(40).rel(A0X))
        .end();
    let inputs: Vec<Regs16> = OFFSET_CASES
        .iter()
        .map(|&(off, _)| scalars(&[off as f32, 3.0]))
        .collect();
    let outs = run_ok(&b.program(), &indexed_uniforms(), &inputs);
    for (&(off, want), out) in OFFSET_CASES.iter().zip(&outs) {
        check_bits(&out[0], &want.map_or(ONES, cval), &format!("a0.y = {off}"));
        assert_bits(&out[1], &cval(43));
    }
}

/// Relative addressing through aL: a one-pass LOOP with start y sets aL = y (0..255).
#[test]
fn address_register_offset_al() {
    // [0] mova a0.x, v0             ; a0.x = 5, must not be used
    // [1] loop i1, dest 2           ; i1 = (0, y, 0): one pass, aL = y
    // [2]   mov o0, c40[aL]
    // [3] end
    let mut b = Builder::new();
    b.mova("x", v(0)).loop_(1, 2).mov(o(0), c(40).rel(AL)).end();
    let cases: &[(u8, Option<usize>)] = &[
        (0, Some(40)),
        (88, Some(0)),
        (60, None),
        (74, None),
        (87, None),
        (55, Some(95)),
        (56, None),
        (127, Some(39)),
        (128, Some(40)), // aL >= 128 is out of range too
        (200, Some(40)),
        (255, Some(40)),
    ];
    for &(y, want) in cases {
        let mut u = indexed_uniforms();
        u.i[1] = [0, y, 0, 0];
        let out = run_one(&b.program(), &u, scalars(&[5.0]));
        check_bits(&out[0], &want.map_or(ONES, cval), &format!("aL = {y}"));
    }
}

/// A relative index on an input or temporary operand is ignored.
#[test]
fn relative_index_on_input_or_temp_is_ignored() {
    // [0] mova a0.xy, v1            ; a0 = (3, 2)
    // [1] mov r0, v2
    // [2] mov o0, v0[a0.x]          ; v0, not v3
    // [3] mov o1, r0[a0.y]          ; r0, not r2
    // [4] loop i0, dest 5           ; i0 = (0, 2, 0): aL = 2
    // [5]   mov o2, v0[aL]          ; v0, not v2
    // [6] add o3, v0[a0.x], v1      ; src1 is the wide slot; still v0
    // [7] end
    let mut b = Builder::new();
    b.mova("xy", v(1))
        .mov(r(0), v(2))
        .mov(o(0), v(0).rel(A0X))
        .mov(o(1), r(0).rel(A0Y))
        .loop_(0, 5)
        .mov(o(2), v(0).rel(AL))
        .add(o(3), v(0).rel(A0X), v(1))
        .end();
    let mut u = indexed_uniforms();
    u.i[0] = [0, 2, 0, 0];
    let out = run_one(
        &b.program(),
        &u,
        vecs(&[
            [1.0, 2.0, 3.0, 4.0],
            [3.0, 2.0, 0.0, 0.0],
            [5.0, 6.0, 7.0, 8.0],
            [9.0, 9.0, 9.0, 9.0],
        ]),
    );
    assert_bits(&out[0], &[1.0, 2.0, 3.0, 4.0]);
    assert_bits(&out[1], &[5.0, 6.0, 7.0, 8.0]);
    assert_bits(&out[2], &[1.0, 2.0, 3.0, 4.0]);
    assert_bits(&out[3], &[4.0, 4.0, 3.0, 4.0]);
}

/// The wide slot of each format takes the relative index: format 1 src1, 1u src1, 1i src2,
/// 1c src1, MAD src2, MADI src3. a0.x = 2 so c40[a0.x] = c42 = (42, 42.5, -42, 2); a
/// format that ignored the index would read c40 = (40, 40.5, -40, 2).
#[test]
fn wide_slot_of_each_format() {
    // [0] mova a0.x, v1                   ; a0.x = 2
    // [1] add o0, c40[a0.x], v0           ; c42 + v0
    // [2] dphi o1, v0, c40[a0.x]          ; (v0.xyz, 1) . c42
    // [3] mad o2, v0, c40[a0.x], v3       ; hand-encoded 0xE241_2060 (desc 0)
    // [4] madi o3, v0, v3, c40[a0.x]      ; hand-encoded 0xC340_3900 (desc 0)
    // [5] mov o4, c40[a0.x]
    // [6] cmp c40[a0.x], ==, ==, v2       ; v2 = c42 -> cc = (1, 1)
    // [7..11] read_cc
    let mut b = Builder::new();
    b.set_desc(0, IDENTITY_DESC);
    b.mova("x", v(1))
        .add(o(0), c(40).rel(A0X), v(0))
        .dphi(o(1), v(0), c(40).rel(A0X))
        .word(0xE241_2060)
        .word(0xC340_3900)
        .mov(o(4), c(40).rel(A0X))
        .cmp(c(40).rel(A0X), CmpOp::Eq, CmpOp::Eq, v(2));
    read_cc(&mut b);
    let out = run_one(
        &b.program(),
        &indexed_uniforms(),
        vecs(&[
            [1.0, 1.0, 1.0, 0.0],
            [2.0, 0.0, 0.0, 0.0],
            cval(42),
            [0.5, 0.5, 0.5, 0.5],
        ]),
    );
    assert_bits(&out[0], &[43.0, 43.5, -41.0, 2.0]);
    assert_bits(&out[1], &splat(42.0 + 42.5 - 42.0 + 2.0));
    assert_bits(&out[2], &[42.5, 43.0, -41.5, 0.5]);
    assert_bits(&out[3], &[42.5, 43.0, -41.5, 2.0]);
    assert_bits(&out[4], &cval(42));
    assert_eq!(cc_of(&out), (true, true));
}

/// Each instruction reads whole registers by number: all 16 inputs, temporaries and outputs,
/// and the first and last uniforms, are distinct.
#[test]
fn every_register_number() {
    // [0..16)  mov r<n>, v<n>
    // [16..32) add o<n>, r<n>, v<15-n>
    // [32] mov r0, c0 ; [33] mov r1, c95 ; [34] add o0, r0, r1
    // [35] end
    let mut b = Builder::new();
    for n in 0..16 {
        b.mov(r(n), v(n));
    }
    for n in 0..16 {
        b.add(o(n), r(n), v(15 - n));
    }
    b.mov(r(0), c(0))
        .mov(r(1), c(95))
        .add(o(0), r(0), r(1))
        .end();
    let mut inputs = [[0.0; 4]; 16];
    for (n, reg) in inputs.iter_mut().enumerate() {
        *reg = [n as f32, 100.0 * n as f32, 0.5, -1.0];
    }
    let out = run_one(&b.program(), &indexed_uniforms(), inputs);
    for (n, reg) in out.iter().enumerate().skip(1) {
        let (nf, m) = (n as f32, (15 - n) as f32);
        assert_bits(reg, &[nf + m, 100.0 * (nf + m), 1.0, -2.0]);
    }
    assert_bits(&out[0], &[95.0, 96.0, -95.0, 4.0]);
}
