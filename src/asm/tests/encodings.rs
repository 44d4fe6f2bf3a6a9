//! Expected words for each directive and operand rule, derived by hand from the format
//! layouts of the instruction formats, the operand descriptor and the SHBIN file:
//!
//! ```text
//! format 1   op<<26 | dst<<21 | idx<<19 | src1(7)<<12 | src2(5)<<7 | desc(7)
//! format 1i  op<<26 | dst<<21 | idx<<19 | src1(5)<<14 | src2(7)<<7 | desc(7)
//! format 1c  0x2E<<26 | cmpx<<24 | cmpy<<21 | idx<<19 | src1<<12 | src2<<7 | desc
//! format 5   0b111<<29 | dst<<24 | idx<<22 | src1(5)<<17 | src2(7)<<10 | src3(5)<<5 | desc(5)
//! format 5i  0b110<<29 | … | src2(5)<<12 | src3(7)<<5 | desc(5)
//! format 2   op<<26 | refx<<25 | refy<<24 | condop<<22 | dest<<10 | num
//! format 3   op<<26 | id<<22 | dest<<10 | num
//! codes      v0 0x00, r0 0x10, c0 0x20; o0 0x00 as destination
//! descriptor mask bits 0-3 (x = 8 … w = 1); src1 negate 4, selectors 5-12 (x in 11-12);
//!            src2 at 13/14-21, src3 at 22/23-30; .xyzw = 0b00_01_10_11 = 0x1B
//! ```
//! Useful constants: 0x1B<<5 = 0x360 (src1 .xyzw), 0x1B<<14 = 0x6C000 (src2 .xyzw),
//! 0x1B<<23 = 0x0D80_0000 (src3 .xyzw).

use super::{asm, asm_files, descs, warnings, words};
use crate::program::ShaderKind;
use crate::shbin::{Constant, GsMode, Output, OutputSemantic, UniformEntry};

/// Wraps instructions in `.proc main` … `.end`.
fn body(lines: &str) -> String {
    format!(".proc main\n{lines}\n.end\n")
}

#[test]
fn operandless_instructions() {
    // op<<26 only: NOP 0x21, END 0x22, EMIT 0x2A, BREAK 0x20.
    assert_eq!(
        words(&body("nop\nend\nemit\nbreak\nNOP")),
        [
            0x8400_0000,
            0x8800_0000,
            0xA800_0000,
            0x8000_0000,
            0x8400_0000
        ]
    );
}

#[test]
fn mov_swizzle_negate_and_mask() {
    let s = asm(&body("mov r0, v1\nmov o2.xz, -c5.wzyx\nmov r3.w, r4.y"));
    // mov r0, v1: 0x13<<26 = 0x4C00_0000 | r0 0x10<<21 = 0x0200_0000 | v1 1<<12 → 0x4E00_1000,
    //   descriptor 0 = mask 0xF | src1 .xyzw 0x360 = 0x36F.
    // mov o2.xz, -c5.wzyx: o2 2<<21 = 0x40_0000 | c5 0x25<<12 = 0x2_5000 | desc 1 → 0x4C42_5001,
    //   descriptor = mask x|z 0b1010 | negate 1<<4 | .wzyx 0b11_10_01_00 = 0xE4<<5 = 0x1C80 → 0x1C9A.
    // mov r3.w, r4.y: r3 0x13<<21 = 0x260_0000 | r4 0x14<<12 = 0x1_4000 | desc 2 → 0x4E61_4002,
    //   descriptor = mask w 1 | .yyyy 0x55<<5 = 0xAA0 → 0xAA1.
    assert_eq!(s.dvlp.code, [0x4E00_1000, 0x4C42_5001, 0x4E61_4002]);
    assert_eq!(descs(&s), [0x36F, 0x1C9A, 0xAA1]);
}

#[test]
fn swizzle_letter_sets_and_repeat_rule() {
    // .rgba and .stpq are .xyzw; ".xy" repeats its last letter: .xyyy = 0b00_01_01_01 = 0x15.
    let s = asm(&body("mov r0, r1.rgba\nmov r0, r1.stpq\nmov r0, r1.xy"));
    assert_eq!(descs(&s), [0x36F, 0x15 << 5 | 0xF]);
    assert_eq!(s.dvlp.code[0] & 0x7F, 0);
    assert_eq!(s.dvlp.code[1] & 0x7F, 0);
    assert_eq!(s.dvlp.code[2] & 0x7F, 1);
}

#[test]
fn two_source_slots() {
    // add r1, c2, r3: op 0 | r1 0x11<<21 = 0x220_0000 | c2 0x22<<12 = 0x2_2000 | r3 0x13<<7 = 0x980.
    // descriptor: 0xF | 0x360 | 0x6C000 = 0x6C36F.
    let s = asm(&body("add r1, c2, r3"));
    assert_eq!(s.dvlp.code, [0x0222_2980]);
    assert_eq!(descs(&s), [0x6C36F]);
}

#[test]
fn inverted_forms_are_chosen_from_the_operands() {
    let s = asm(&body(
        "dph r0, c1, r2\ndph r0, r2, c1\ndphi r0, c1, r2\nsge r0, v0, c3\nslt r0, r1, c3\ndst r0, r1, c3\nsgei r0, r1, r2",
    ));
    // dph r0, c1, r2 (normal): 0x03<<26 = 0x0C00_0000 | 0x200_0000 | c1 0x21<<12 = 0x2_1000 |
    //   r2 0x12<<7 = 0x900 → 0x0E02_1900.
    // dph r0, r2, c1 (DPHI, src1 narrow at 14, src2 wide at 7): 0x18<<26 = 0x6000_0000 |
    //   0x200_0000 | r2 0x12<<14 = 0x4_8000 | c1 0x21<<7 = 0x1080 → 0x6204_9080.
    // dphi r0, c1, r2 is written like dph: the normal form (picasso's rule).
    // sge r0, v0, c3 → SGEI 0x1A<<26 = 0x6800_0000 | 0x200_0000 | v0 0 | c3 0x23<<7 = 0x1180.
    // slt r0, r1, c3 → SLTI 0x1B<<26 = 0x6C00_0000 | 0x200_0000 | r1 0x11<<14 = 0x4_4000 | 0x1180.
    // dst r0, r1, c3 → DSTI 0x19<<26 = 0x6400_0000 | … same operands.
    // sgei r0, r1, r2: both narrow → normal SGE 0x09<<26 = 0x2400_0000 | r1 0x11<<12 | r2<<7.
    let d = |w: u32, i: u32| w | i;
    let code = &s.dvlp.code;
    assert_eq!(code[0], d(0x0E02_1900, code[0] & 0x7F));
    assert_eq!(code[1], d(0x6204_9080, code[1] & 0x7F));
    assert_eq!(code[2], code[0]);
    assert_eq!(code[3] & !0x7F, 0x6A00_1180);
    assert_eq!(code[4] & !0x7F, 0x6E04_5180);
    assert_eq!(code[5] & !0x7F, 0x6604_5180);
    assert_eq!(code[6] & !0x7F, 0x2601_1900);
}

#[test]
fn relative_addressing_goes_to_the_wide_slot() {
    let s = asm(&body(
        ".alias arr c10\nmov r0, arr[a0.x+2]\nmov r0, c4[a0.y]\nmov r0, c4[aL]\nmov r0, c4[a1]\nmov r0, c4[lcnt + 1]\ndph r0, r1, c4[a0.x]\nmad r0, r1, r2, c4[aL]\nmad r0, r1, c4[a0.x], r2",
    ));
    let c = &s.dvlp.code;
    // mov r0, arr[a0.x+2] = c12 with index 1: 0x4C00_0000 | 0x200_0000 | 1<<19 = 0x8_0000 |
    //   c12 0x2C<<12 = 0x2_C000 → 0x4E0A_C000.
    assert_eq!(c[0] & !0x7F, 0x4E0A_C000);
    // a0.y → 2<<19 = 0x10_0000; aL → 3<<19 = 0x18_0000; a1 is a0.y; lcnt is aL.
    assert_eq!(c[1] & !0x7F, 0x4E10_0000 | 0x24 << 12);
    assert_eq!(c[2] & !0x7F, 0x4E18_0000 | 0x24 << 12);
    assert_eq!(c[3], c[1]);
    assert_eq!(c[4] & !0x7F, 0x4E18_0000 | 0x25 << 12);
    // dph r0, r1, c4[a0.x]: DPHI with the index on src2: 0x6000_0000 | 0x200_0000 |
    //   0x8_0000 | r1 0x11<<14 = 0x4_4000 | c4 0x24<<7 = 0x1200.
    assert_eq!(c[5] & !0x7F, 0x620C_5200);
    // mad r0, r1, r2, c4[aL] → MADI: 0xC000_0000 | r0 0x10<<24 | aL 3<<22 = 0xC0_0000 |
    //   r1 0x11<<17 = 0x22_0000 | r2 0x12<<12 = 0x1_2000 | c4 0x24<<5 = 0x480.
    assert_eq!(c[6] & !0x1F, 0xD0E3_2480);
    // mad r0, r1, c4[a0.x], r2 → MAD: 0xE000_0000 | 0x1000_0000 | 1<<22 = 0x40_0000 |
    //   0x22_0000 | c4 0x24<<10 = 0x9000 | r2 0x12<<5 = 0x240.
    assert_eq!(c[7] & !0x1F, 0xF062_9240);
}

#[test]
fn mad_form_selection() {
    let s = asm(&body(
        "mad r0, r1, c2, r3\nmad r0, r1, r2, c3\nmadi r0, r1, r2, r3\nmad r0, v1, v1, v1",
    ));
    let c = &s.dvlp.code;
    // MAD: src2 wide at 10: c2 0x22<<10 = 0x8800, r3 0x13<<5 = 0x260.
    assert_eq!(c[0] & !0x1F, 0xF022_8A60);
    // MADI: src2 narrow at 12 (r2 0x12<<12 = 0x1_2000), src3 wide at 5 (c3 0x23<<5 = 0x460).
    assert_eq!(c[1] & !0x1F, 0xD023_2460);
    // madi with three narrow sources is a plain MAD (src2 at 10: r2 0x12<<10 = 0x4800).
    assert_eq!(c[2] & !0x1F, 0xF022_4A60);
    // The same input register three times is allowed: v1 = 1: 1<<17 | 1<<10 | 1<<5.
    assert_eq!(c[3] & !0x1F, 0xF002_0420);
    // Descriptor with src3: 0xF | 0x360 | 0x6C000 | 0x0D80_0000 = 0x0D86_C36F.
    assert_eq!(descs(&s), [0x0D86_C36F]);
}

#[test]
fn mova_and_cmp() {
    let s = asm(&body(
        "mova a0.x, c1\nmova a0.y, c1.y\nmova a0.xy, c1\nmova a01, c1\ncmp c1, eq, ge, r2\ncmp r3.x, ne, lt, v4",
    ));
    let c = &s.dvlp.code;
    // mova: 0x12<<26 = 0x4800_0000 | c1 0x21<<12 = 0x2_1000, no destination.
    assert_eq!(c[0] & !0x7F, 0x4802_1000);
    // Masks: a0.x = 8, a0.y = 4, a0.xy = 12. mova ignores selectors of components it does not
    // write and z, w always: a0.x with .xyzw cares about x only (0b00 at bits 11-12).
    let d = descs(&s);
    assert_eq!(d[(c[0] & 0x7F) as usize] & 0xF, 8);
    assert_eq!(d[(c[1] & 0x7F) as usize] & 0xF, 4);
    assert_eq!(d[(c[2] & 0x7F) as usize] & 0xF, 12);
    assert_eq!(c[3], c[2]);
    // cmp c1, eq, ge, r2: 0xB800_0000 | eq 0<<24 | ge 5<<21 = 0xA0_0000 | c1<<12 | r2 0x12<<7.
    assert_eq!(c[4] & !0x7F, 0xB8A2_1900);
    // cmp r3.x, ne, lt, v4: ne 1<<24 | lt 2<<21 = 0x40_0000 | r3 0x13<<12 | v4 4<<7 = 0x200.
    assert_eq!(c[5] & !0x7F, 0xB941_3200);
    // cmp ops ge/gt set bit 26, the low bit of the opcode field (0x2F).
    let s = asm(&body("cmp r0, gt, le, r1"));
    assert_eq!(s.dvlp.code[0] >> 26, 0x2F);
}

#[test]
fn aliases_compose_swizzles_and_negation() {
    let s = asm(&body(
        ".alias a c0.wyxz\n.alias n -r1\nmov r2, a.xxww\nmov r2, -n\nmov r2, n.y\n.alias m a.yx\nmov r2, m",
    ));
    let d = descs(&s);
    let sel = |i: usize| (d[(s.dvlp.code[i] & 0x7F) as usize] >> 4) & 0x1FF;
    // a.xxww = c0.wwzz: 0b11_11_10_10 = 0xFA; negate off.
    assert_eq!(sel(0), 0xFA << 1);
    // -n: double negation cancels → .xyzw positive.
    assert_eq!(sel(1), 0x1B << 1);
    // n.y = -r1.yyyy: 0x55, negate on.
    assert_eq!(sel(2), 0x55 << 1 | 1);
    // m = a.yx = c0.(y→y)(x→w)(w…) → selects from wyxz: y→y, x→w, then x repeats → w: .ywww.
    assert_eq!(sel(3), 0b01_11_11_11 << 1);
}

#[test]
fn uppercase_register_letters_are_register_codes() {
    // As picasso: an uppercase letter adds no file base, so R1 is code 1 (v1 as a source, o1
    // as a destination) and R20 is code 0x14 (r4); with a warning (picasso_compat).
    assert_eq!(words(&body("mov R0, R1")), words(&body("mov o0, v1")));
    assert_eq!(words(&body("mov r0, R20")), words(&body("mov r0, r4")));
    // v15 is an input register (picasso refuses it).
    assert_eq!(words(&body("mov r0, v15"))[0] & !0x7F, 0x4E00_F000);
}

#[test]
fn flow_control_words() {
    let s = asm(".proc main\n\
         call sub\n\
         callc cmp.x, sub\n\
         callu b3, sub\n\
         jmpc !cmp.y, there\n\
         jmpu !b2, there\n\
         jmpu b2, there\n\
         breakc cmp.x && cmp.y\n\
         there: end\n\
         .end\n\
         .proc sub\nnop\nnop\n.end");
    let c = &s.dvlp.code;
    // sub starts at 9 (after 8 words and the padding NOP? no: main ends with end, no NOP),
    // so main is 8 words, sub = [8, 10): dest 8<<10 = 0x2000, num 2.
    // call: 0x24<<26 = 0x9000_0000 | 0x2000 | 2.
    assert_eq!(c[0], 0x9000_2002);
    // callc cmp.x: refx 1<<25, refy 1<<24 (untested flag stays 1), condop X = 2<<22.
    assert_eq!(c[1], 0x9400_0000 | 0x0300_0000 | 0x80_0000 | 0x2002);
    // callu b3: 0x26<<26 = 0x9800_0000 | 3<<22 = 0xC0_0000.
    assert_eq!(c[2], 0x98C0_2002);
    // jmpc !cmp.y, there (= 7): refx 1, refy 0, condop Y 3<<22; dest 7<<10 = 0x1C00.
    assert_eq!(c[3], 0xB000_0000 | 0x0200_0000 | 0xC0_0000 | 0x1C00);
    // jmpu !b2: num bit 0 set; b2 2<<22 = 0x80_0000.
    assert_eq!(c[4], 0xB480_1C01);
    assert_eq!(c[5], 0xB480_1C00);
    // breakc cmp.x && cmp.y: 0x23<<26 = 0x8C00_0000 | refs 0x300_0000 | AND 1<<22.
    assert_eq!(c[6], 0x8F40_0000);
    assert_eq!(c[7], 0x8800_0000);
}

#[test]
fn conditions() {
    let w = |cond: &str| words(&body(&format!("breakc {cond}")))[0] & 0x03C0_0000;
    // (refx, refy, condop) in bits 25, 24, 23-22.
    assert_eq!(w("cmp.x"), 0b11_10 << 22);
    assert_eq!(w("cmp.y"), 0b11_11 << 22);
    assert_eq!(w("!cmp.x"), 0b01_10 << 22);
    assert_eq!(w("!!cmp.x"), 0b11_10 << 22);
    assert_eq!(w("CMP.Y"), 0b11_11 << 22);
    assert_eq!(w("cmp.x || !cmp.y"), 0b10_00 << 22);
    assert_eq!(w("cmp.x | cmp.y"), 0b11_00 << 22);
    assert_eq!(w("!cmp.y & cmp.x"), 0b10_01 << 22);
    assert_eq!(w("cmp.x && cmp.y"), 0b11_01 << 22);
}

#[test]
fn if_else_and_loops() {
    let c = words(&body(
        "ifu b1\nmov r0, r1\n.else\nmov r0, r2\nmov r0, r3\n.end\nifc cmp.x\nmov r0, r1\n.end\nfor i2\nmov r0, r1\n.end\nend",
    ));
    // 0: ifu b1 with ELSE at 2 (dest 2<<10 = 0x800), ELSE length 2: 0x9C00_0000 | 1<<22 | 0x802.
    assert_eq!(c[0], 0x9C40_0802);
    // 4: ifc cmp.x without ELSE: dest = first word after the block = 6 (0x1800).
    assert_eq!(c[4], 0xA000_0000 | 0x0380_0000 | 0x1800);
    // 6: for i2: dest = last word of the body = 7 (0x1C00): 0xA400_0000 | 2<<22 = 0x80_0000.
    assert_eq!(c[6], 0xA480_1C00);
    assert_eq!(c.len(), 9);
}

#[test]
fn padding_nops() {
    const NOP: u32 = 0x8400_0000;
    // Empty IF and loop bodies get a NOP; the block's target moves past it.
    let c = words(&body("ifu b0\n.end\nfor i0\n.end\nend"));
    assert_eq!(c, [0x9C00_0800, NOP, 0xA400_0C00, NOP, 0x8800_0000]);
    // A call as the last word of a block, a break as the last word of a loop.
    let c = words(&body(
        "ifu b0\ncall s\n.end\nfor i0\nbreak\n.end\nend\n.end\n.proc s\nnop",
    ));
    assert_eq!(c[2], NOP);
    assert_eq!(c[5], NOP);
    // Nested blocks ending together: a NOP between the two .end.
    // Inner IF: dest 3 (0xC00); the outer .end pads at 3 and ends at 4 (0x1000).
    let c = words(&body("ifu b0\nifu b1\nnop\n.end\n.end\nend"));
    assert_eq!(c, [0x9C00_1000, 0x9C40_0C00, NOP, NOP, 0x8800_0000]);
    // .else after a jump, and after an empty THEN part; an empty ELSE part gets none.
    // First IF: NOP at 2 after the jump, ELSE at 3 and empty (num 0); x = 3. Second IF: empty
    // THEN padded at 4, ELSE = [5, 6): dest 5 (0x1400), num 1.
    let c = words(&body(
        "ifu b0\njmpu b1, x\n.else\n.end\nx: ifu b0\n.else\nnop\n.end\nend",
    ));
    assert_eq!(
        c,
        [
            0x9C00_0C00,
            0xB440_0C00,
            NOP,
            0x9C00_1401,
            NOP,
            NOP,
            0x8800_0000
        ]
    );
    // A procedure ending right after a block, or with a call, or empty.
    let c = words(".proc a\nifu b0\nnop\n.end\n.end\n.proc b\ncall a\n.end\n.proc c\n.end\n.proc main\nend\n.end");
    assert_eq!(
        c,
        [0x9C00_0800, NOP, NOP, 0x9000_0003, NOP, NOP, 0x8800_0000]
    );
    // Except an empty procedure at the very start of the code blob.
    assert_eq!(words(".proc e\n.end\n.proc main\nend\n.end"), [0x8800_0000]);
    // -n: no NOPs, a warning at each spot.
    let w = warnings(&body("ifu b0\n.end\nend"), false);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].message, "a padding NOP is required here");
    assert_eq!((w[0].line, w[0].col), (Some(3), Some(1)));
}

#[test]
fn setemit_and_geometry() {
    let s = asm(&body(
        "setemit 0\nsetemit 1, prim\nsetemit 2, prim inv\nsetemit 0, invert primitive\nemit\nend",
    ));
    // 0x2B<<26 = 0xAC00_0000 | vtx<<24 | prim<<23 | inv<<22.
    assert_eq!(
        &s.dvlp.code[..4],
        [0xAC00_0000, 0xAD80_0000, 0xAEC0_0000, 0xACC0_0000]
    );
    // setemit without .gsh makes a legacy geometry shader: type 1, mode 0.
    assert_eq!(s.dvles[0].kind, ShaderKind::Geometry);
    assert_eq!(s.dvles[0].gs_mode, GsMode::Point);
}

#[test]
fn descriptor_sharing_ignores_unused_components() {
    // mov r0.x, c0.xyzw and mov r1.x, c1.xwzy care only about the x selector (same: x): one
    // entry, the first instruction's value.
    let s = asm(&body("mov r0.x, c0\nmov r1.x, c1.xwzy"));
    assert_eq!(descs(&s), [0x8 | 0x360]);
    // rcp reads only x of src1, so both rcp share entry 0 (src1 .xxxx); dp3 ignores w of both
    // sources and agrees with entry 0 on the one bit-group both read (src1 x = x): it shares it
    // too and fills in src1 .xyz and src2 .xyz; the last dp3 agrees on everything it reads.
    // Entry: 0xF | src1 .xyzx (0b00_01_10_00 = 0x18) <<5 = 0x300 | src2 .xyzx 0x18<<14 = 0x6_0000.
    let s = asm(&body(
        "rcp r0, c0.x\nrcp r0, c0.xyzw\ndp3 r0, c0.xyzx, r1.xyzx\ndp3 r0, c0, r1",
    ));
    assert_eq!(descs(&s), [0x6_030F]);
    // A later instruction that cares about bits the first left free fills them in.
    let s = asm(&body("mov r0.x, c0.xyzw\nmov r0.xy, c0.xwzw"));
    // First entry: 0x8 | .xyzw<<5; the second wants mask x|y (different mask bits) → new entry.
    assert_eq!(descs(&s).len(), 2);
    let s = asm(&body("cmp c0, eq, eq, r0\nmov r0, c0"));
    // cmp cares about no mask bits and not about z, w of src1: the mov shares its entry and
    // sets the mask: 0xF | 0x360 | src2 .xyzw 0x6C000.
    assert_eq!(descs(&s), [0x6C36F]);
}

#[test]
fn mad_descriptors_are_swapped_below_32() {
    let mut text = String::new();
    for i in 0..40 {
        // 40 distinct descriptors: mask xyzw, src1 = c{i} with a distinct negate/selector.
        let sw = ["x", "y", "z", "w", "xy", "yx", "zw", "wz", "xz", "zx"][i % 10];
        let neg = if (10..20).contains(&i) || i >= 30 {
            "-"
        } else {
            ""
        };
        let dst = if i >= 20 { "r1.xy" } else { "r0" };
        text += &format!("mov {dst}, {neg}c{i}.{sw}\n");
    }
    text += "mad r0, r1, c0.yyyy, -r2.wzyx\n";
    let s = asm(&body(&text));
    let d = descs(&s);
    assert_eq!(d.len(), 41);
    // The MAD's entry was appended at 40 and swapped with entry 0; instruction 0 now uses 40.
    let mad = s.dvlp.code[40];
    assert_eq!(mad & 0x1F, 0);
    assert_eq!(s.dvlp.code[0] & 0x7F, 40);
    // 0x0D80_0000 (src3 .wzyx) is 0xE4<<23 | negate 1<<22 …: check src2 .yyyy = 0x55<<14.
    assert_eq!(d[0] >> 14 & 0xFF, 0x55);
    assert_eq!(d[0] >> 22 & 1, 1);
}

#[test]
fn call_lengths_spill_past_eight_bits() {
    // picasso ORs the length into bits 0-9 unmasked: a 300-word procedure sets bit 8.
    let body_words = "nop\n".repeat(300);
    let c = words(&format!(
        ".proc main\ncall big\nend\n.end\n.proc big\n{body_words}.end"
    ));
    // big = [2, 302): 0x9000_0000 | 2<<10 | 300 (0x12C).
    assert_eq!(c[0], 0x9000_0800 | 300);
}

#[test]
fn uniforms_inputs_and_their_table() {
    let s = asm(&format!(
        ".fvec proj[4], light$dir\n.ivec loops\n.bool flags[2], _hidden, on\n.in pos\n.in col v5\n.in tex\n{}",
        body("mov r0, proj[3]\nmov r0, light$dir\nend")
    ));
    let d = &s.dvles[0];
    // Sorted by unified register: inputs first (v0, v1, v5), then c0..c3 → 0x10..0x13,
    // c4 → 0x14, i0 → 0x70, b0..b1 → 0x78..0x79, b3 (b2 is the private _hidden) → 0x7B.
    let table: Vec<(&str, u16, u16)> = d
        .uniforms
        .iter()
        .map(|u| (u.name.as_str(), u.first, u.last))
        .collect();
    assert_eq!(
        table,
        [
            ("pos", 0, 0),
            ("tex", 1, 1),
            ("col", 5, 5),
            ("proj", 0x10, 0x13),
            ("light.dir", 0x14, 0x14),
            ("loops", 0x70, 0x70),
            ("flags", 0x78, 0x79),
            ("on", 0x7B, 0x7B),
        ]
    );
    assert_eq!(d.input_mask, 0b10_0011);
    // proj[3] = c3 = 0x23<<12; light$dir = c4.
    assert_eq!(s.dvlp.code[0] & !0x7F, 0x4E02_3000);
    assert_eq!(s.dvlp.code[1] & !0x7F, 0x4E02_4000);
}

#[test]
fn constants() {
    let s = asm(&format!(
        ".constf one(1.0, 0.5, -2, 0.1)\n.constf two(1e-30, 1e30, -0.0, 0)\n.consti loop(16, 0, -1, 300)\n\
         .constfa arr[3]\n.constfa (1, 2, 3, 4)\n.end\n.constfa arr2[]\n.constfa (5, 5, 5, 5)\n.constfa (6, 6, 6, 6)\n.end\n\
         .setf c10(0x1.8p+1, 0x1.8p+64, 0x1p-63, !0x12345678)\n.seti i2(1, 2, 3, 4)\n.setb b7 on\n.setb b8 false\n{}",
        body("mov r0, one\nmov r0, two\nmov r0, arr[2]\nmov r0, arr2\nend")
    ));
    let d = &s.dvles[0];
    // float24 = sign | (e − 127 + 63) << 16 | top 16 mantissa bits: 1.0 → 0x3F0000,
    // 0.5 → 0x3E0000, −2 → 0xC00000, 0.1 → 0x3B9999 (truncated), 1e-30 → 0, 1e30 → 0x7F0000,
    // −0 → 0x800000; 3 = 1.5·2^1 → 0x408000; 1.5·2^64 → exponent 127, mantissa 0x8000;
    // 2^-63 → exponent field 0, mantissa 0.
    assert_eq!(
        d.constants,
        [
            Constant::Float {
                reg: 95,
                x: 0x3F_0000,
                y: 0x3E_0000,
                z: 0xC0_0000,
                w: 0x3B_9999
            },
            Constant::Float {
                reg: 94,
                x: 0,
                y: 0x7F_0000,
                z: 0x80_0000,
                w: 0
            },
            // .consti values modulo 256: -1 → 255, 300 → 44; from the top of the int file.
            Constant::Int {
                reg: 3,
                value: [16, 0, 255, 44]
            },
            // .constfa arr[3]: allocated at .end from the top: c91..c93, the missing elements zero.
            Constant::Float {
                reg: 91,
                x: 0x3F_0000,
                y: 0x40_0000,
                z: 0x40_8000,
                w: 0x41_0000
            },
            Constant::Float {
                reg: 92,
                x: 0,
                y: 0,
                z: 0,
                w: 0
            },
            Constant::Float {
                reg: 93,
                x: 0,
                y: 0,
                z: 0,
                w: 0
            },
            // 5 = 1.25·2^2 → 0x41_4000, 6 = 1.5·2^2 → 0x41_8000.
            Constant::Float {
                reg: 89,
                x: 0x41_4000,
                y: 0x41_4000,
                z: 0x41_4000,
                w: 0x41_4000
            },
            Constant::Float {
                reg: 90,
                x: 0x41_8000,
                y: 0x41_8000,
                z: 0x41_8000,
                w: 0x41_8000
            },
            Constant::Float {
                reg: 10,
                x: 0x40_8000,
                y: 0x7F_8000,
                z: 0,
                w: 0x1234_5678
            },
            Constant::Int {
                reg: 2,
                value: [1, 2, 3, 4]
            },
            Constant::Bool {
                reg: 7,
                value: true
            },
            Constant::Bool {
                reg: 8,
                value: false
            },
        ]
    );
    // The aliases: one = c95, two = c94, arr[2] = c93, arr2 = c89.
    let srcs: Vec<u32> = s.dvlp.code[..4].iter().map(|w| w >> 12 & 0x7F).collect();
    assert_eq!(srcs, [0x7F, 0x7E, 0x7D, 0x79]);
}

#[test]
fn outputs() {
    let s = asm(&format!(
        ".out p position\n.out c clr.rgb\n.out t texcoord0.xy\n.out - texcoord0w o2.z\n.out n nquat o5\n\
         .out - dummy o12.xw\n.out v view\n{}",
        body("mov p, r0\nmov t.xy, r0\nend")
    ));
    let d = &s.dvles[0];
    let out = |semantic, reg, mask| Output {
        semantic,
        reg,
        mask,
    };
    assert_eq!(
        d.outputs,
        [
            out(OutputSemantic::Position, 0, 0xF),
            // Component masks here are bit 0 = x: .rgb → 0b0111.
            out(OutputSemantic::Color, 1, 0b0111),
            out(OutputSemantic::TexCoord0, 2, 0b0011),
            out(OutputSemantic::TexCoord0W, 2, 0b0100),
            out(OutputSemantic::NormalQuat, 5, 0xF),
            out(OutputSemantic::Dummy, 12, 0b1001),
            // Automatic: the lowest register no output uses yet (o3).
            out(OutputSemantic::View, 3, 0xF),
        ]
    );
    assert_eq!(d.output_mask, 0b1_0000_0010_1111);
    // mov p, r0 writes o0; mov t.xy, r0 writes o2.
    assert_eq!(s.dvlp.code[0] >> 21 & 0x1F, 0);
    assert_eq!(s.dvlp.code[1] >> 21 & 0x1F, 2);
}

#[test]
fn geometry_modes() {
    let shader = |gsh: &str| {
        asm(&format!(
            "{gsh}\n.fvec u\n.bool f[15]\n.out - dummy o3\n{}",
            body("mov r0, u\nend")
        ))
    };
    let s = shader(".gsh point c8");
    let d = &s.dvles[0];
    assert_eq!(
        (d.kind, d.gs_mode, d.merge_outmaps),
        (ShaderKind::Geometry, GsMode::Point, true)
    );
    // The own uniform space starts at c8: u = c8 → unified 0x18; bools b0..b14 (0x78..0x86).
    assert_eq!(
        d.uniforms[0],
        UniformEntry {
            name: "u".into(),
            first: 0x18,
            last: 0x18
        }
    );
    assert_eq!(d.uniforms[1].last, 0x86);
    let s = shader(".gsh variable c16 3");
    assert_eq!(
        (s.dvles[0].gs_mode, s.dvles[0].gs_variable_num),
        (GsMode::Variable, 3)
    );
    let s = shader(".gsh subdivision c16 3");
    assert_eq!(s.dvles[0].gs_mode, GsMode::Variable);
    let s = shader(".gsh fixed c16 c4 6");
    let d = &s.dvles[0];
    assert_eq!(
        (d.gs_mode, d.gs_fixed_start, d.gs_fixed_num),
        (GsMode::Fixed, 4, 6)
    );
    assert_eq!(
        shader(".gsh particle c16 c4 6").dvles[0].gs_mode,
        GsMode::Fixed
    );
    // Legacy .gsh: geometry, shared space (u = c0), no merge flag.
    let s = shader(".gsh");
    assert_eq!(
        (s.dvles[0].kind, s.dvles[0].merge_outmaps),
        (ShaderKind::Geometry, false)
    );
    assert_eq!(s.dvles[0].uniforms[0].first, 0x10);
}

#[test]
fn files_link_procedures_and_share_uniforms() {
    let s = asm_files(&[
        ("a.v.pica", ".fvec m[4], shared\n.constf k(1,1,1,1)\n.proc main\ncall lib\nmov r0, k\nend\n.end"),
        ("lib.pica", ".nodvle\n.proc lib\nmov r1, r2\n.end"),
        ("b.v.pica", ".fvec other, shared\n.constf k(2,2,2,2)\n.entry vmain\n.proc vmain\ncall lib\nmov r0, shared\nend\n.end"),
        ("g.g.pica", ".gsh point c0\n.fvec gu\n.proc gmain\nend\n.end\n.entry gmain"),
    ]);
    // One DVLE per file without .nodvle, in order.
    assert_eq!(s.dvles.len(), 3);
    // lib sits after a's main (3 words) at 3, length 1: call = 0x9000_0000 | 3<<10 | 1.
    assert_eq!(s.dvlp.code[0], 0x9000_0C01);
    assert_eq!(s.dvlp.code[4], 0x9000_0C01);
    // Both files' first constant is c95 (local space restarts per file).
    assert!(matches!(
        s.dvles[0].constants[0],
        Constant::Float { reg: 95, .. }
    ));
    assert!(matches!(
        s.dvles[1].constants[0],
        Constant::Float { reg: 95, .. }
    ));
    // shared keeps c4 in b; other is new (c5); the geometry shader's gu starts its own space at c0.
    let b: Vec<_> = s.dvles[1]
        .uniforms
        .iter()
        .map(|u| (u.name.as_str(), u.first))
        .collect();
    assert_eq!(b, [("shared", 0x14), ("other", 0x15)]);
    assert_eq!(s.dvles[2].uniforms[0].first, 0x10);
    // mov r0, shared reads c4.
    assert_eq!(s.dvlp.code[5] >> 12 & 0x7F, 0x24);
    // Entries: a.main = [0, 3), b.vmain = [4, 7), gmain = [7, 8).
    let e: Vec<_> = s
        .dvles
        .iter()
        .map(|d| (d.entry_start, d.entry_end))
        .collect();
    assert_eq!(e, [(0, 3), (4, 7), (7, 8)]);
}

#[test]
fn header_lists_shared_uniforms() {
    let a = super::super::assemble_with(
        &[
            super::Source::new(
                "a",
                ".fvec m[4], x\n.ivec i\n.bool b, bs[3], _p\n.proc main\nend\n.end",
            ),
            super::Source::new("b", ".fvec x\n.proc main2\nend\n.end\n.entry main2"),
        ],
        &super::Options::default(),
    )
    .unwrap();
    let lines: Vec<&str> = a.header.lines().skip(1).collect();
    assert_eq!(
        lines,
        [
            "#pragma once",
            "#define VSH_FVEC_m 0x00",
            "#define VSH_ULEN_m 4",
            "#define VSH_FVEC_x 0x04",
            "#define VSH_ULEN_x 1",
            "#define VSH_IVEC_i 0x00",
            "#define VSH_ULEN_i 1",
            "#define VSH_FLAG_b BIT(0)",
            "#define VSH_ULEN_b 1",
            "#define VSH_FLAG_bs(_n) BIT(1+(_n))",
            "#define VSH_ULEN_bs 3",
        ]
    );
}

#[test]
fn lexical_rules() {
    let plain = words(&body("mov r0, r1\nadd r0, r1, r2\nend"));
    // Comments with ; and #, labels (several per line), CRLF, a trailing comma, any case.
    let text = "# a comment\n.PROC main ; comment\r\na: b:MOV r0, r1 # comment\n\tAdd r0, r1, r2,\nEnd\n.END\r\n";
    assert_eq!(words(text), plain);
    // cpp line markers change the reported file and line.
    let errors = super::errors("# 40 \"shader.v.pica\" 1\n.proc main\nbogus\n.end");
    assert_eq!(errors[0].file, "shader.v.pica");
    assert_eq!(errors[0].line, Some(41));
}

#[test]
fn raw_words_and_explicit_forms() {
    let s = asm(
        ".opdesc 0x36f, 0x8000036f\n.proc main\n!0x12345678 !0xDEADBEEF\nmov r0, r1\nmov r0, r1 @1\n\
         call 0x010, 4\nifu b0, there, 2\nfor i1, there\nthere: jmpc cmp.x, 0x20, 5\nend\n.end",
    );
    let c = &s.dvlp.code;
    // Raw words as written.
    assert_eq!(&c[..2], [0x1234_5678, 0xDEAD_BEEF]);
    // Pinned table used as given: mov r0, r1 (0x4E01_1000) takes the first entry that fits (0);
    // `@1` picks entry 1, which differs only in bit 31 (no instruction reads it).
    assert_eq!(descs(&s), [0x36F, 0x8000_036F]);
    assert_eq!(&c[2..4], [0x4E01_1000, 0x4E01_1001]);
    // call 0x010, 4: 0x9000_0000 | 0x10<<10 = 0x4000 | 4.
    assert_eq!(c[4], 0x9000_4004);
    // ifu b0, there, 2 (there = 7, 7<<10 = 0x1C00): no block is opened.
    assert_eq!(c[5], 0x9C00_1C02);
    // for i1, there: 0xA400_0000 | 1<<22 | 0x1C00.
    assert_eq!(c[6], 0xA440_1C00);
    // jmpc cmp.x, 0x20, 5: 0xB000_0000 | refs 0x300_0000 | X 0x80_0000 | 0x20<<10 | 5.
    assert_eq!(c[7], 0xB380_8005);
}

#[test]
fn explicit_entry_ranges_and_units() {
    let s = asm(
        ".proc main\nnop\nhere: nop\nend\n.end\n.entry here 3\n.file second\n.entry main\n.file third\n.entry 0x1 0x2",
    );
    let e: Vec<_> = s
        .dvles
        .iter()
        .map(|d| (d.entry_start, d.entry_end))
        .collect();
    assert_eq!(e, [(1, 3), (0, 3), (1, 2)]);
}
