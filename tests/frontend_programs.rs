//! Hand-written programs: interpreter vs (lower → eval), bit for bit, outputs and status.

mod frontend_support;

use frontend_support::*;
use picajit::frontend::{self, eval, Unsupported};
use picajit::interp::Interpreter;
use picajit::isa::*;
use picajit::program::{ShaderKind, VertexStatus};

/// An ALU word of `op` (any of its opcode values) with the given operands, whatever its format.
fn alu_word(value: u8, dst: Dst, s: [Src; 3], idx: AddrIdx, d: u8) -> u32 {
    let op = Opcode::from_value(value);
    let fields = match op.format() {
        Format::Fmt1 => Fmt1 {
            dst,
            idx,
            src1: s[0],
            src2: s[1],
            desc: d,
        }
        .encode(),
        Format::Fmt1u => Fmt1u {
            dst,
            idx,
            src1: s[0],
            desc: d,
        }
        .encode(),
        Format::Fmt1i => Fmt1i {
            dst,
            idx,
            src1: s[0],
            src2: s[1],
            desc: d,
        }
        .encode(),
        Format::Fmt1c => Fmt1c {
            cmpx: CmpOp::ALL[usize::from(dst.0) & 7],
            cmpy: CmpOp::ALL[usize::from(dst.0 >> 3) & 7],
            idx,
            src1: s[0],
            src2: s[1],
            desc: d,
        }
        .encode(),
        Format::Fmt5 => Fmt5 {
            dst,
            idx,
            src1: s[0],
            src2: s[1],
            src3: s[2],
            desc: d & 0x1F,
        }
        .encode(),
        Format::Fmt5i => Fmt5i {
            dst,
            idx,
            src1: s[0],
            src2: s[1],
            src3: s[2],
            desc: d & 0x1F,
        }
        .encode(),
        Format::Fmt0
        | Format::Fmt2
        | Format::Fmt3b
        | Format::Fmt3i
        | Format::Fmt4
        | Format::Raw => 0,
    };
    // For CMP and MAD/MADI the fields overlap the low opcode bits: keep the value's top bits.
    let top = match op.format() {
        Format::Fmt1c => u32::from(value & 0x3E) << 26,
        Format::Fmt5 | Format::Fmt5i => u32::from(value & 0x38) << 26,
        Format::Fmt0
        | Format::Fmt1
        | Format::Fmt1u
        | Format::Fmt1i
        | Format::Fmt2
        | Format::Fmt3b
        | Format::Fmt3i
        | Format::Fmt4
        | Format::Raw => u32::from(value) << 26,
    };
    top | fields
}

fn is_alu(op: Opcode) -> bool {
    matches!(
        op.format(),
        Format::Fmt1 | Format::Fmt1u | Format::Fmt1i | Format::Fmt1c | Format::Fmt5 | Format::Fmt5i
    )
}

/// Narrow slots only hold v and r: pick a source that fits the slot.
fn fit(op: Opcode, n: usize, s: Src) -> Src {
    let wide = match op.format() {
        Format::Fmt1 | Format::Fmt1u | Format::Fmt1c => 0,
        Format::Fmt1i | Format::Fmt5 => 1,
        // MADI's wide source is the third; the other formats have no narrow slot to fit.
        Format::Fmt5i
        | Format::Fmt0
        | Format::Fmt2
        | Format::Fmt3b
        | Format::Fmt3i
        | Format::Fmt4
        | Format::Raw => 2,
    };
    if n == wide || s.fits_narrow() {
        s
    } else {
        Src(s.0 & 0x1F)
    }
}

#[test]
fn every_alu_opcode_value() {
    let descs = [
        desc(0xF),
        desc_sw(0xF, [(true, "wzyx"), (false, "yyxz"), (true, "zwxy")]),
        desc_sw(0xA, [(false, "xxyy"), (true, "wwzz"), (false, "xyzw")]),
        desc_sw(0x5, [(true, "yzwx"), (false, "xyzw"), (true, "wxyz")]),
        desc_sw(0xC, [(false, "zzzz"), (false, "yyyy"), (false, "xxxx")]),
        desc_sw(0x3, [(false, "wxyz"), (true, "xyzw"), (false, "yyzz")]),
        0,
    ];
    let mut checked = 0;
    for value in 0u8..64 {
        let op = Opcode::from_value(value);
        if !is_alu(op) {
            continue;
        }
        for d in 0..descs.len() as u8 {
            let srcs = |a: Src, b: Src, c: Src| [fit(op, 0, a), fit(op, 1, b), fit(op, 2, c)];
            let code = [
                alu_word(value, rd(1), srcs(v(0), v(1), v(2)), AddrIdx::None, d),
                alu_word(
                    value,
                    o(1),
                    srcs(v(2), r(1), v(4)),
                    AddrIdx::None,
                    (d + 1) % 7,
                ),
                alu_word(value, rd(2), srcs(c(5), v(5), r(1)), AddrIdx::None, d),
                alu_word(value, rd(2), srcs(r(2), c(7), r(2)), AddrIdx::None, d),
                alu_word(value, rd(3), srcs(v(6), v(7), c(9)), AddrIdx::None, d),
                // The destination is also a source: every read must see the old value.
                alu_word(value, rd(1), srcs(r(1), r(1), r(1)), AddrIdx::None, 1),
                f1u(Instruction::Mov, o(2), r(1), 0),
                f1u(Instruction::Mov, o(3), r(2), 0),
                f1u(Instruction::Mov, o(4), r(3), 0),
                end(),
            ];
            let p = program(&code, &descs);
            let u = uniforms([[0; 4]; 4], 0);
            let inputs = random_inputs(&mut fastrand::Rng::with_seed(u64::from(value)), 21);
            if let Err(e) = check(&p, &u, &inputs, 64) {
                panic!("opcode {value:#04x} ({}) desc {d}: {e}", op.mnemonic());
            }
            checked += 1;
        }
    }
    assert_eq!(
        checked,
        7 * 40,
        "every ALU opcode value with every descriptor"
    );
}

#[test]
fn dot_products_and_dph_fourth_term() {
    // dp3/dp4/dph with negation on a3 (DPH ignores it: a3 is 1.0 after negation), -0 inputs.
    let descs = [
        desc(0xF),
        desc_sw(0xF, [(true, "xyzw"), (false, "xyzw"), (false, "xyzw")]),
        desc_sw(0x9, [(false, "wzyx"), (true, "xxxx"), (false, "xyzw")]),
    ];
    let code = [
        f1(Instruction::Dp3, o(0), v(0), v(1), 0),
        f1(Instruction::Dp4, o(1), v(0), v(1), 1),
        f1(Instruction::Dph, o(2), v(0), v(1), 1),
        f1i(Instruction::Dphi, o(3), v(1), c(3), 2),
        f1(Instruction::Dp4, o(4), c(1), v(4), 2),
        f1(Instruction::Dst, o(5), v(4), v(5), 1),
        f1i(Instruction::Dsti, o(6), v(6), c(0), 0),
        end(),
    ];
    let p = program(&code, &descs);
    let mut u = uniforms([[0; 4]; 4], 0);
    u.f[1] = [-0.0, -0.0, -0.0, -0.0];
    u.f[3] = [f32::INFINITY, 0.0, -0.0, f32::NAN];
    for seed in 0..20 {
        let inputs = random_inputs(&mut fastrand::Rng::with_seed(seed), 16);
        check(&p, &u, &inputs, 16).unwrap();
    }
    // dp of (-0)·(+x) terms stays +0.0 thanks to the seed.
    let mut inputs = ramp_inputs(1);
    inputs[0][0] = [-0.0; 4];
    inputs[0][1] = [1.0; 4];
    let l = check(&p, &u, &inputs, 16).unwrap();
    let out = eval::run(&l.func, &u, &inputs, 16);
    assert_eq!(out[0].0[0][0].to_bits(), 0);
}

#[test]
fn dot_products_with_a_square_term_need_no_seed() {
    // dp3 and dp4 of a temporary with itself (squared lengths) need no +0.0 seed add; a dp4
    // of two registers keeps it. The same values as the interpreter on every engine (-0, ±inf,
    // NaN and subnormal inputs included), and +0.0 where every term is zero.
    let descs = [
        desc(0xF),
        desc_sw(0xF, [(false, "xyzw"), (false, "xyzx"), (false, "xyzw")]),
    ];
    let code = [
        f1u(Instruction::Mov, rd(0), v(0), 0),
        f1u(Instruction::Mov, rd(1), v(1), 0),
        f1(Instruction::Dp3, o(0), r(0), r(0), 0),
        f1(Instruction::Dp4, o(1), r(1), r(1), 0),
        // r1.x·r0.x + r1.y·r0.y + r1.z·r0.z + r1.w·r0.x: no term is a square.
        f1(Instruction::Dp4, o(2), r(1), r(0), 1),
        end(),
    ];
    let p = program(&code, &descs);
    let u = uniforms([[0; 4]; 4], 0);
    for seed in 0..20 {
        let inputs = random_inputs(&mut fastrand::Rng::with_seed(seed), 16);
        check(&p, &u, &inputs, 16).unwrap();
    }
    let mut inputs = ramp_inputs(4);
    let special = [
        [-0.0; 4],
        [-0.0, f32::NEG_INFINITY, 0.0, f32::NAN],
        [-1e-30, -0.0, -0.0, -0.0],
        [-0.0, -0.0, -0.0, f32::from_bits(0x8000_0001)],
    ];
    for (k, v) in special.iter().enumerate() {
        inputs[k][0] = *v;
        inputs[k][1] = *v;
    }
    let l = check(&p, &u, &inputs, 16).unwrap();
    let out = eval::run(&l.func, &u, &inputs, 16);
    for k in [0, 2, 3] {
        assert_eq!(out[k].0[0][0].to_bits(), 0, "vertex {k}: dp3 +0.0");
        assert_eq!(out[k].0[1][0].to_bits(), 0, "vertex {k}: dp4 +0.0");
    }
    assert_eq!(
        out[0].0[2][0].to_bits(),
        0,
        "-0·-0 terms: the seed gives +0.0"
    );
    assert_eq!(out[1].0[0][0], f32::INFINITY);
    assert!(out[1].0[1][0].is_nan());
    // 2 + 3 adds for the squares, 3 + the seed's for the last dot product.
    let adds = l
        .func
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.op == picajit_codegen::ir::Op::Add)
        .count();
    assert_eq!(adds, 2 + 3 + 4, "{}", l.func);
}

#[test]
fn litp_mova_and_special_values() {
    let descs = [
        desc(0xF),
        desc(0xC),
        desc(0x8),
        desc(0x4),
        desc_sw(0xF, [(true, "wzyx"), (false, "xyzw"), (false, "xyzw")]),
    ];
    let code = [
        f1u(Instruction::Litp, o(0), v(0), 0),
        f1u(Instruction::Litp, o(1), v(1), 4),
        f1u(Instruction::Mova, o(0), v(2), 1),
        f1ux(Instruction::Mov, o(2), c(10), AddrIdx::A0x, 0),
        f1ux(Instruction::Mov, o(3), c(90), AddrIdx::A0y, 0),
        f1u(Instruction::Mova, o(0), v(3), 3), // a0.y only
        f1ux(Instruction::Mov, o(4), c(10), AddrIdx::A0x, 0),
        f1ux(Instruction::Mov, o(5), c(10), AddrIdx::A0y, 0),
        // MOVA reading through a0 itself.
        f1ux(Instruction::Mova, o(0), c(0), AddrIdx::A0x, 1),
        f1ux(Instruction::Mov, o(6), c(20), AddrIdx::A0x, 0),
        f1ux(Instruction::Mov, o(7), c(20), AddrIdx::A0y, 0),
        f1u(Instruction::Rcp, o(8), v(4), 0),
        f1u(Instruction::Rsq, o(9), v(5), 0),
        f1u(Instruction::Ex2, o(10), v(6), 0),
        f1u(Instruction::Lg2, o(11), v(7), 0),
        f1u(Instruction::Flr, o(12), v(8), 0),
        end(),
    ];
    let p = program(&code, &descs);
    let mut u = uniforms([[0; 4]; 4], 0);
    u.f[0] = [-3.7, 200.0, 0.0, 0.0];
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..50 {
        let mut inputs = random_inputs(&mut rng, 16);
        // Per-lane different a0 values across the whole interesting range.
        for (k, vtx) in inputs.iter_mut().enumerate() {
            vtx[2] = [k as f32 * 17.0 - 140.0, 95.5 - k as f32 * 13.0, 0.0, 0.0];
            vtx[3] = [0.0, -(k as f32) * 9.0 + 30.0, 0.0, 0.0];
        }
        check(&p, &u, &inputs, 16).unwrap();
    }
}

#[test]
fn relative_addressing_with_al_and_out_of_range_offsets() {
    // loop i0 over one MOV from c[aL]: aL = start, +step each pass.
    let descs = [desc(0xF)];
    for (start, step, count) in [
        (0u8, 1u8, 3u8),
        (90, 3, 4),
        (250, 1, 2),
        (120, 7, 5),
        (0, 255, 2),
    ] {
        let code = [
            lp(0, 2),
            f1(Instruction::Add, rd(0), c(0), r(0), 0),
            f1x(Instruction::Add, rd(1), c(5), AddrIdx::AL, r(1), 0),
            f1u(Instruction::Mov, o(0), r(0), 0),
            f1u(Instruction::Mov, o(1), r(1), 0),
            f1ux(Instruction::Mov, o(2), c(95), AddrIdx::AL, 0),
            end(),
        ];
        let p = program(&code, &descs);
        let u = uniforms([[count, start, step, 0], [0; 4], [0; 4], [0; 4]], 0);
        agree(&p, &u);
    }
    // IDX on a non-uniform wide operand and on the narrow operand is ignored.
    let code = [
        f1u(Instruction::Mova, o(0), c(1), 0),
        f1x(Instruction::Add, o(0), v(0), AddrIdx::A0x, r(1), 0),
        f1x(Instruction::Add, o(1), r(0), AddrIdx::A0y, v(1), 0),
        f1i(Instruction::Sgei, o(2), v(1), c(2), 0),
        end(),
    ];
    agree(&program(&code, &[desc(0xF)]), &uniforms([[0; 4]; 4], 0));
}

#[test]
fn ifu_else_and_nesting() {
    // 0 ifu b0, else at 3, end at 5   | 1 mov o0 c1 | 2 nop | 3 mov o0 c2 | 4 nop | 5 ifu b1 ...
    let descs = [desc(0xF)];
    let code = [
        f3b(Instruction::Ifu, 0, 3, 2),
        f1u(Instruction::Mov, o(0), c(1), 0),
        f3b(Instruction::Ifu, 1, 3, 0), // nested IF with an empty body ending at the same else
        f1u(Instruction::Mov, o(0), c(2), 0),
        f1u(Instruction::Mov, o(1), c(3), 0),
        f3b(Instruction::Ifu, 2, 7, 1),
        f1u(Instruction::Mov, o(2), c(4), 0),
        f1u(Instruction::Mov, o(3), c(5), 0),
        end(),
    ];
    let p = program(&code, &descs);
    for b in 0..8u16 {
        agree(&p, &uniforms([[0; 4]; 4], b));
    }
}

#[test]
fn nine_nested_ifus_overflow_the_if_stack() {
    // ifu b0 ×9, each with else = 20 - k, then bodies; the oldest entry is dropped.
    let descs = [desc(0xF)];
    let mut code = Vec::new();
    for k in 0..9u16 {
        code.push(f3b(Instruction::Ifu, (k % 3) as u8, 20 - k, 1));
    }
    while code.len() < 24 {
        let n = code.len() as u8;
        code.push(f1(Instruction::Add, rd(0), c(n), r(0), 0));
    }
    code.push(f1u(Instruction::Mov, o(0), r(0), 0));
    code.push(end());
    let p = program(&code, &descs);
    for b in 0..8u16 {
        agree(&p, &uniforms([[0; 4]; 4], b));
    }
}

#[test]
fn calls_callu_and_end_inside_a_call() {
    let descs = [desc(0xF)];
    let code = [
        call(10, 2),                          // 0
        f3b(Instruction::Callu, 0, 12, 1),    // 1
        f3b(Instruction::Callu, 1, 14, 3),    // 2
        f1u(Instruction::Mov, o(3), r(0), 0), // 3
        end(),                                // 4
        nop(),
        nop(),
        nop(),
        nop(),
        nop(),
        f1(Instruction::Add, rd(0), c(1), r(0), 0), // 10
        f1u(Instruction::Mov, o(0), r(0), 0),       // 11
        f1(Instruction::Add, rd(0), c(2), r(0), 0), // 12
        nop(),                                      // 13
        f1u(Instruction::Mov, o(1), c(5), 0),       // 14
        f3b(Instruction::Ifu, 2, 16, 0),            // 15: b2 → END inside the call
        end(),                                      // 16
    ];
    let p = program(&code, &descs);
    for b in 0..8u16 {
        agree(&p, &uniforms([[0; 4]; 4], b));
    }
}

#[test]
fn four_pop_call_quirk() {
    // A(10, num 1) calls B(20, num 1) calls C(30, num 1) calls D(40, num 2). D's last
    // instruction closes all four scopes at once: the fourth pop leaves the pc at A's return
    // check address 11, not at main's return address 1.
    let descs = [desc(0xF)];
    let mut code = vec![nop(); 48];
    code[0] = call(10, 1);
    code[1] = f1u(Instruction::Mov, o(1), c(1), 0);
    code[2] = end();
    code[10] = call(20, 1);
    code[11] = f1u(Instruction::Mov, o(2), c(2), 0);
    code[12] = end();
    code[20] = call(30, 1);
    code[30] = call(40, 2);
    code[40] = f1u(Instruction::Mov, o(0), c(3), 0);
    code[41] = f1u(Instruction::Mov, o(4), c(4), 0);
    let p = program(&code, &descs);
    let u = uniforms([[0; 4]; 4], 0);
    let l = agree(&p, &u);
    let out = &eval::run(&l.func, &u, &ramp_inputs(1), 100)[0].0;
    assert_eq!(out[2], u.f[2], "continued at 11");
    assert_eq!(out[1], [0.0; 4], "never returned to 1");
}

#[test]
fn five_nested_calls_overflow_the_call_stack() {
    // main calls f1 calls f2 … calls f5; the stack drops main's entry.
    let descs = [desc(0xF)];
    let mut code = vec![nop(); 64];
    code[0] = call(10, 3);
    code[1] = f1u(Instruction::Mov, o(0), c(1), 0);
    code[2] = end();
    for k in 0..5u16 {
        let at = 10 + 10 * k as usize;
        code[at] = f1(Instruction::Add, rd(0), c(k as u8 + 2), r(0), 0);
        code[at + 1] = if k < 4 {
            call(20 + 10 * k, 3)
        } else {
            f1u(Instruction::Mov, o(1), r(0), 0)
        };
        code[at + 2] = f1(Instruction::Add, rd(1), c(k as u8 + 10), r(1), 0);
        code[at + 3] = f1u(Instruction::Mov, o(2), r(1), 0);
        code[at + 4] = end();
    }
    let p = program(&code, &descs);
    agree(&p, &uniforms([[0; 4]; 4], 0));
}

#[test]
fn jump_at_the_end_of_a_scope_is_overridden() {
    let descs = [desc(0xF)];
    let code = [
        f3b(Instruction::Ifu, 0, 3, 2), // 0: if b0 { 1, 2 } else { 3, 4 }
        f1(Instruction::Add, rd(0), c(1), r(0), 0), // 1
        f3b(Instruction::Jmpu, 1, 0, 0), // 2: jump to 0 if b1 — overridden
        f1(Instruction::Add, rd(0), c(2), r(0), 0), // 3
        f3b(Instruction::Jmpu, 1, 1, 0), // 4: jump back into the IF (not its last)
        f1u(Instruction::Mov, o(0), r(0), 0), // 5
        end(),
    ];
    let p = program(&code, &descs);
    for b in 0..4u16 {
        let u = uniforms([[0; 4]; 4], b);
        let l = agree(&p, &u);
        let inputs = ramp_inputs(3);
        for budget in [0, 1, 2, 5] {
            compare(&l, &p, &u, &inputs, budget).unwrap();
        }
    }
}

#[test]
fn loops_nested_with_al_break_and_breakc() {
    let descs = [desc(0xF), desc(0x8)];
    let code = [
        lp(0, 7),                                                  // 0: outer, body 1..=7
        f1x(Instruction::Add, rd(0), c(0), AddrIdx::AL, r(0), 0),  // 1
        lp(1, 4),                                                  // 2: inner, body 3..=4
        f1x(Instruction::Add, rd(1), c(10), AddrIdx::AL, r(1), 0), // 3
        f3b(Instruction::Ifu, 0, 5, 0),                            // 4: last of inner
        f1x(Instruction::Add, rd(2), c(20), AddrIdx::AL, r(2), 0), // 5: aL restored
        cmp(CmpOp::Lt, CmpOp::Gt, c(30), r(2), 1),                 // 6: uniform cc
        f2(Instruction::Breakc, true, false, CondOp::X, 0, 0),     // 7: last of outer
        f1u(Instruction::Mov, o(0), r(0), 0),
        f1u(Instruction::Mov, o(1), r(1), 0),
        f1u(Instruction::Mov, o(2), r(2), 0),
        f3b(Instruction::Ifu, 1, 13, 0),
        brk(), // 12: BREAK with an empty loop stack does nothing
        end(),
    ];
    let p = program(&code, &descs);
    for seed in 0..40 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut u = uniforms([[0; 4]; 4], rng.u16(..));
        u.i = std::array::from_fn(|_| [rng.u8(0..6), rng.u8(..), rng.u8(0..4), 0]);
        u.f[30] = [rng.f32() * 40.0, 1.0, 0.0, 0.0];
        agree(&p, &u);
    }
}

#[test]
fn loop_stack_overflow_and_unstructured_jumps() {
    // Five nested loops (the first is dropped) and a jump out of a loop body.
    let descs = [desc(0xF)];
    let code = [
        lp(0, 11),
        lp(1, 10),
        lp(2, 9),
        lp(3, 8),
        lp(0, 7),
        f1x(Instruction::Add, rd(0), c(3), AddrIdx::AL, r(0), 0), // 5
        f3b(Instruction::Jmpu, 3, 12, 0),                         // 6: jump out if b3
        f1(Instruction::Add, rd(1), c(1), r(1), 0),               // 7
        nop(),
        nop(),
        nop(),
        nop(), // 11
        f1u(Instruction::Mov, o(0), r(0), 0),
        f1u(Instruction::Mov, o(1), r(1), 0),
        end(),
    ];
    let p = program(&code, &descs);
    for seed in 0..30 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut u = uniforms([[0; 4]; 4], rng.u16(..));
        u.i = std::array::from_fn(|_| [rng.u8(0..3), rng.u8(..), rng.u8(..), 0]);
        let l = agree(&p, &u);
        compare(&l, &p, &u, &ramp_inputs(2), 7).unwrap();
    }
}

#[test]
fn runaway_loops_exhaust_the_same_budget() {
    let descs = [desc(0xF)];
    // 0: add r0 += c1; 1: mov o0 r0; 2: jmpu b0 → 0 (backward, forever while b0); 3: end
    let code = [
        f1(Instruction::Add, rd(0), c(1), r(0), 0),
        f1u(Instruction::Mov, o(0), r(0), 0),
        f3b(Instruction::Jmpu, 0, 0, 0),
        end(),
    ];
    let p = program(&code, &descs);
    let u = uniforms([[0; 4]; 4], 1);
    let l = frontend::lower(&p).unwrap();
    for budget in [0, 1, 2, 3, 10, 1000] {
        compare(&l, &p, &u, &ramp_inputs(5), budget).unwrap();
        assert_eq!(status_of(&l, &u, budget), VertexStatus::BudgetExhausted);
    }
    assert_eq!(
        status_of(&l, &uniforms([[0; 4]; 4], 0), 0),
        VertexStatus::Ended
    );
    // A CALL whose body calls itself, and a LOOP with a count the budget cannot cover.
    let code = [
        call(5, 2),
        end(),
        nop(),
        nop(),
        nop(),
        f1(Instruction::Add, rd(0), c(1), r(0), 0),
        call(5, 2),
        f1u(Instruction::Mov, o(0), r(0), 0),
    ];
    let p = program(&code, &descs);
    let l = frontend::lower(&p).unwrap();
    for budget in [0, 1, 4, 100] {
        compare(&l, &p, &u, &ramp_inputs(3), budget).unwrap();
    }
    let code = [
        lp(0, 1),
        f1(Instruction::Add, rd(0), c(1), r(0), 0),
        f1u(Instruction::Mov, o(0), r(0), 0),
        end(),
    ];
    let p = program(&code, &descs);
    let l = frontend::lower(&p).unwrap();
    let u = uniforms([[255, 0, 1, 0], [0; 4], [0; 4], [0; 4]], 0);
    for budget in [0, 1, 100, 254, 255, 256] {
        compare(&l, &p, &u, &ramp_inputs(3), budget).unwrap();
    }
    assert_eq!(status_of(&l, &u, 254), VertexStatus::BudgetExhausted);
    assert_eq!(status_of(&l, &u, 255), VertexStatus::Ended);
}

#[test]
fn running_off_the_end_and_odd_entries() {
    // No END: the zero words (ADD o0, v0, v0 with descriptor 0) run up to slot 4095.
    let p = program(
        &[f1u(Instruction::Mov, o(1), v(1), 1)],
        &[desc(0x8), desc(0xF)],
    );
    let l = agree(&p, &uniforms([[0; 4]; 4], 0));
    assert!(l.stats.states >= 4094, "{:?}", l.stats);
    // Entry at the last slots.
    for entry in [4094u32, 4095] {
        let mut p = program(&[], &[desc(0xF)]);
        p.entry = entry as u16;
        agree(&p, &uniforms([[0; 4]; 4], 0));
    }
    // An IF whose end lies past code memory ends the invocation; a loop ending at 4094.
    let mut code = vec![nop(); 4095];
    code[0] = f3b(Instruction::Ifu, 0, 4090, 255);
    code[1] = lp(0, 4094);
    code[4089] = f1(Instruction::Add, rd(0), c(1), r(0), 0);
    code[4090] = f1u(Instruction::Mov, o(0), r(0), 0);
    code[4094] = f1u(Instruction::Mov, o(1), r(0), 0);
    let p = program(&code, &[desc(0xF)]);
    for b in 0..2 {
        agree(&p, &uniforms([[2, 0, 1, 0], [0; 4], [0; 4], [0; 4]], b));
    }
}

#[test]
fn cc_branches_uniform_or_divergent() {
    let descs = [desc(0xF)];
    // cc from uniforms: compiled, and agrees.
    let code = [
        f1u(Instruction::Mov, rd(1), c(2), 0),
        cmp(CmpOp::Lt, CmpOp::Ge, c(1), r(1), 0),
        f2(Instruction::Ifc, true, false, CondOp::And, 4, 1),
        f1u(Instruction::Mov, o(0), c(3), 0),
        f2(Instruction::Callc, false, true, CondOp::Or, 8, 1),
        f2(Instruction::Jmpc, true, true, CondOp::Y, 7, 0),
        f1u(Instruction::Mov, o(1), c(4), 0),
        end(),
        f1u(Instruction::Mov, o(2), c(5), 0),
    ];
    let p = program(&code, &descs);
    for seed in 0..20 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut u = uniforms([[0; 4]; 4], 0);
        u.f[1] = [rng.f32(), rng.f32(), 0.0, 0.0];
        u.f[2] = [rng.f32(), rng.f32(), 0.0, 0.0];
        agree(&p, &u);
    }
    // LITP of a uniform sets uniform cc too; ops 6/7 are always true.
    let code = [
        f1u(Instruction::Litp, rd(0), c(1), 0),
        f2(Instruction::Ifc, true, true, CondOp::Or, 3, 1),
        f1u(Instruction::Mov, o(0), c(3), 0),
        cmp(CmpOp::True6, CmpOp::True7, v(0), v(1), 0),
        f2(Instruction::Jmpc, true, true, CondOp::And, 6, 0),
        f1u(Instruction::Mov, o(1), c(4), 0),
        end(),
    ];
    let p = program(&code, &descs);
    agree(&p, &uniforms([[0; 4]; 4], 0));
    // cc from inputs: an IFC whose arm runs past the END the other arm reaches cannot be
    // if-converted; a CALLC of the END (both arms then end at the same END: the call stack no
    // longer matters there), a JMPC over one instruction and a BREAKC outside any loop (a
    // no-op) can.
    for (n, branch, convertible) in [
        (0, f2(Instruction::Ifc, true, false, CondOp::X, 3, 1), false),
        (
            1,
            f2(Instruction::Callc, true, false, CondOp::Or, 3, 1),
            true,
        ),
        (
            2,
            f2(Instruction::Jmpc, false, false, CondOp::Y, 3, 0),
            true,
        ),
        (
            3,
            f2(Instruction::Breakc, true, true, CondOp::And, 0, 0),
            true,
        ),
    ] {
        let code = [
            cmp(CmpOp::Lt, CmpOp::Lt, c(2), v(0), 0),
            branch,
            f1u(Instruction::Mov, o(0), c(3), 0),
            end(),
        ];
        let p = program(&code, &descs);
        if convertible {
            let l = agree(&p, &uniforms([[0; 4]; 4], 0));
            assert_eq!(l.stats.if_converted, 1, "case {n}");
        } else {
            // Not convertible: the lanes part ways in the lane-position model (the ramp
            // inputs make them disagree).
            let l = agree(&p, &uniforms([[0; 4]; 4], 0));
            assert_eq!((l.stats.lanes, l.stats.lane_splits), (true, 1), "case {n}");
        }
    }
    // A CMP of inputs that is overwritten by a uniform CMP before the branch is fine.
    let code = [
        cmp(CmpOp::Lt, CmpOp::Lt, c(2), v(0), 0),
        cmp(CmpOp::Lt, CmpOp::Lt, c(1), r(3), 0),
        f2(Instruction::Ifc, true, false, CondOp::X, 4, 1),
        f1u(Instruction::Mov, o(0), c(3), 0),
        end(),
    ];
    agree(&program(&code, &descs), &uniforms([[0; 4]; 4], 0));
    // … but not when only one path overwrites it.
    let code = [
        cmp(CmpOp::Lt, CmpOp::Lt, c(2), v(0), 0),
        f3b(Instruction::Ifu, 0, 3, 0),
        cmp(CmpOp::Lt, CmpOp::Lt, c(1), r(3), 0),
        f2(Instruction::Ifc, true, false, CondOp::X, 5, 1),
        f1u(Instruction::Mov, o(0), c(3), 0),
        end(),
    ];
    let l = agree(&program(&code, &descs), &uniforms([[0; 4]; 4], 0));
    assert_eq!((l.stats.lanes, l.stats.lane_splits), (true, 1));
}

#[test]
fn per_vertex_branches_are_if_converted() {
    let descs = [desc(0xF), desc(0xA)];
    let mut code = vec![
        cmp(CmpOp::Lt, CmpOp::Ge, c(2), v(0), 0), // 0: per-vertex cc
        f1u(Instruction::Mov, o(2), v(1), 0),     // 1: old o2 for skipped lanes
        f2(Instruction::Jmpc, true, false, CondOp::X, 7, 0), // 2: skip 3..=6
        f1(Instruction::Add, rd(1), c(1), v(2), 0), // 3
        f1u(Instruction::Mov, o(2), r(1), 0),     // 4
        cmp(CmpOp::Ge, CmpOp::Lt, c(3), v(3), 0), // 5: cc written in the arm
        f1(Instruction::Dp4, o(3), c(4), v(1), 1), // 6: partial mask
        f1u(Instruction::Mov, o(0), r(1), 0),     // 7: join
        f2(Instruction::Ifc, false, true, CondOp::Y, 10, 2), // 8: IF/ELSE on the new cc.y
        f1(Instruction::Mul, rd(2), c(5), v(4), 0), // 9: then
        f1(Instruction::Add, rd(2), c(6), v(5), 0), // 10: else
        mad(rd(3), v(6), c(7), r(2), 0),          // 11: else
        f1u(Instruction::Mov, o(1), r(2), 0),     // 12: join
        f1u(Instruction::Mov, o(4), r(3), 0),     // 13
        f2(Instruction::Jmpc, false, false, CondOp::X, 16, 0), // 14: skip 15 where !cc.x
        f1(Instruction::Mul, o(6), c(8), v(7), 0), // 15
        f1u(Instruction::Mov, o(5), r(2), 0),     // 16: join
        end(),
    ];
    let p = program(&code, &descs);
    let u = uniforms([[0; 4]; 4], 0);
    let l = agree(&p, &u);
    assert_eq!(l.stats.if_converted, 3, "{}", l.func);
    assert_eq!(l.stats.blocks, 1, "{}", l.func);
    for seed in 0..30 {
        let mut rng = fastrand::Rng::with_seed(seed);
        check(
            &p,
            &random_uniforms(&mut rng),
            &random_inputs(&mut rng, 16),
            64,
        )
        .unwrap();
    }
    // Shapes that cannot be if-converted: a0 written in an arm, an arm that ends the program,
    // a backward jump, a call (its return spends budget, which is batch-wide), an arm longer
    // than the limit. A backward jump and a call make masked regions instead
    // (`frontend::masked`); a0 written under a mask, and lanes ending while others go on to a
    // different join, run in the lane-position model.
    let mut mova = code.clone();
    mova[4] = f1u(Instruction::Mova, o(0), v(1), 0);
    let mut ends = code.clone();
    ends[4] = end();
    let mut backward = code.clone();
    backward[7] = f2(Instruction::Jmpc, true, false, CondOp::X, 3, 0);
    let mut calls = code.clone();
    calls[14] = f2(Instruction::Callc, false, false, CondOp::X, 18, 2);
    calls.extend([f1(Instruction::Mul, o(6), c(8), v(7), 0), nop()]);
    for (n, bad) in [mova, ends, backward, calls].iter().enumerate() {
        let l = agree(&program(bad, &descs), &u);
        let masked = l.stats.masked_forks;
        assert!(l.stats.if_converted >= 2, "case {n}: {:?}", l.stats);
        assert_eq!(
            (masked, l.stats.lanes),
            [(0, true), (0, true), (1, false), (1, false)][n],
            "case {n}: {:?}",
            l.stats
        );
    }
    // A MOVA that writes no a0 component is fine in an arm.
    code[4] = f1u(Instruction::Mova, o(0), v(1), 1 + 2);
    let descs2 = [desc(0xF), desc(0xA), desc(0x0), desc(0x3)];
    agree(&program(&code, &descs2), &u);
    let long: Vec<u32> = [cmp(CmpOp::Lt, CmpOp::Ge, c(2), v(0), 0)]
        .into_iter()
        .chain([f2(Instruction::Jmpc, true, false, CondOp::X, 67, 0)])
        .chain((0..65).map(|k| f1(Instruction::Add, rd(1), c(k), r(1), 0)))
        .chain([f1u(Instruction::Mov, o(0), r(1), 0), end()])
        .collect();
    let l = agree(&program(&long, &descs), &u);
    let stats = l.stats;
    assert_eq!((stats.if_converted, stats.masked_forks), (0, 1));
    let short = [&long[..66], &long[67..]].concat();
    let mut short = short;
    short[1] = f2(Instruction::Jmpc, true, false, CondOp::X, 66, 0);
    agree(&program(&short, &descs), &u);
}

/// Regression: the branch tests the cc variable itself (CONDOP X, REFX 1), which only a
/// back edge makes per-vertex — the analysis must see terminator operands across blocks.
#[test]
fn cc_made_divergent_by_a_back_edge() {
    let code = [
        f2(Instruction::Jmpc, true, false, CondOp::X, 3, 0), // 0: first visit: cc = false
        f1u(Instruction::Litp, rd(0), v(0), 0),              // 1: cc from an input
        f3b(Instruction::Jmpu, 0, 0, 1),                     // 2: back to 0 unless b0
        f1u(Instruction::Mov, o(0), r(0), 0),
        end(),
    ];
    let l = agree(&program(&code, &[desc(0xF)]), &uniforms([[0; 4]; 4], 0));
    assert_eq!(l.stats.masked_forks + l.stats.lane_splits, 1);
}

/// `setemit vertex[, prim][, inv]` (format 4).
fn f4(vertex: u8, primitive: bool, winding: bool) -> u32 {
    Instruction::Setemit(Fmt4 {
        vertex,
        primitive,
        winding,
    })
    .encode()
}

#[test]
fn geometry_and_state_cap() {
    // A geometry shader lowers, with its EMIT as IR effects (SETEMIT sets variables).
    let p = program(&[f4(1, true, true), 0x2A << 26, end()], &[]).with_kind(ShaderKind::Geometry);
    let text = frontend::lower(&p).unwrap().func.to_string();
    assert!(
        text.contains("emit.slot") && text.contains("emit.tri"),
        "{text}"
    );
    // In a vertex shader they do nothing.
    let p = program(&[f4(1, true, true), 0x2A << 26, end()], &[]);
    assert!(!frontend::lower(&p)
        .unwrap()
        .func
        .to_string()
        .contains("emit"));
    let p = program(&[nop(), nop(), end()], &[]);
    assert_eq!(
        frontend::lower_with_cap(&p, 2).unwrap_err(),
        Unsupported::TooManyStates { limit: 2 }
    );
    assert!(frontend::lower_with_cap(&p, 3).is_ok());
    // EMIT and SETEMIT in a vertex shader do nothing; undefined opcodes are NOPs.
    let code = [
        Instruction::Setemit(Fmt4 {
            vertex: 1,
            primitive: true,
            winding: false,
        })
        .encode(),
        f1u(Instruction::Mov, o(0), v(0), 0),
        Instruction::Emit(Fmt0).encode(),
        0x4512_3456, // undefined opcode 0x11
        0x7FFF_FFFF, // undefined opcode 0x1F
        f1u(Instruction::Mov, o(1), v(1), 0),
        end(),
    ];
    agree(&program(&code, &[desc(0xF)]), &uniforms([[0; 4]; 4], 0));
}

#[test]
fn stats_and_dce() {
    // r5 initialized but dead; the first write to o0 is kept (outputs are effects).
    let code = [
        f1(Instruction::Mul, rd(5), v(0), v(1), 0),
        f1(Instruction::Dp4, o(0), c(0), v(0), 0),
        f1(Instruction::Add, rd(1), r(2), v(1), 0),
        f1u(Instruction::Mov, o(1), r(1), 0),
        end(),
    ];
    let p = program(&code, &[desc(0xF)]);
    let l = agree(&p, &uniforms([[0; 4]; 4], 0));
    assert_eq!(l.stats.states, 5);
    assert_eq!(
        l.stats.blocks, 1,
        "straight-line code is one block:\n{}",
        l.func
    );
    assert!(l.stats.insts_after_dce < l.stats.insts_before_dce);
    let text = l.func.to_string();
    assert_eq!(
        text.matches("pmul").count(),
        4,
        "only the DP4 multiplies:\n{text}"
    );
    assert_eq!(text.matches("output").count(), 8);
    // r2 is read before written: its zero initialization survives, r5's does not; r2's four
    // zeros and the DP4 seed are one shared constant (common leaves), and the inputs the dead
    // MUL loaded serve the DP4 and the ADD: 1 constant, 8 inputs, 4 uniforms, 4 + 4 DP4
    // operations, 4 + 4 outputs, 4 additions.
    assert_eq!(text.matches("fconst").count(), 1, "{text}");
    assert_eq!(text.matches("input").count(), 8, "{text}");
    assert_eq!(l.func.inst_count(), 1 + 8 + 4 + 8 + 8 + 4, "{text}");
}

#[test]
fn interpreter_and_eval_agree_on_lane_counts() {
    // Batches of 1..=40 vertices (several contexts of 16 lanes).
    let code = [
        f1(Instruction::Mul, o(0), c(1), v(0), 0),
        f1u(Instruction::Ex2, o(1), v(1), 0),
        end(),
    ];
    let p = program(&code, &[desc(0xF)]);
    let u = uniforms([[0; 4]; 4], 0);
    let l = frontend::lower(&p).unwrap();
    let interp = Interpreter::new(&p);
    for n in 1..=40 {
        let inputs = random_inputs(&mut fastrand::Rng::with_seed(n as u64), n);
        let got = eval::run(&l.func, &u, &inputs, 10);
        assert_eq!(got.len(), n);
        for (k, input) in inputs.iter().enumerate() {
            let want = interp.run_vertex(&u, input);
            assert_eq!(first_difference(&want.outputs, &got[k].0), None);
        }
    }
}

#[test]
fn dead_components_are_not_built() {
    // Two programs that compute the same outputs; the first also has writes no path reads: r5
    // is overwritten before any read, r6 (in the loop) is never read, and of r7 only .x is
    // read (the MOV to o2 has mask x). Their sources are read by nothing live, so the first
    // program builds exactly the instructions of the second, where those writes are NOPs or
    // have mask x.
    let descs = [desc(0xF), desc(0x8)];
    let build = |dead: bool| {
        let mut code = vec![
            f1(Instruction::Mul, rd(5), c(7), v(9), 0), // 0: dead
            f1(Instruction::Dp4, rd(1), c(0), v(0), 0), // 1
            f1u(Instruction::Mov, rd(5), v(1), 0),      // 2: r5 overwritten
            lp(0, 7),                                   // 3: body 4..=7
            f1(Instruction::Add, rd(2), r(2), r(1), 0), // 4: r2 read across the back edge
            f1(Instruction::Mul, rd(3), c(1), r(5), 0), // 5
            f1(Instruction::Mul, rd(6), c(3), v(2), 0), // 6: never read
            f1(Instruction::Add, rd(4), c(2), r(2), 0), // 7: last of the loop
            f1(Instruction::Mul, rd(7), c(4), v(3), 0), // 8: only .x read
            f1u(Instruction::Mov, o(0), r(4), 0),
            f1u(Instruction::Mov, o(1), r(3), 0),
            f1u(Instruction::Mov, o(2), r(7), 1),
            end(),
        ];
        if !dead {
            code[0] = nop();
            code[6] = nop();
            code[8] = f1(Instruction::Mul, rd(7), c(4), v(3), 1);
        }
        program(&code, &descs)
    };
    let mut built = [0; 2];
    for (dead, n) in [true, false].into_iter().zip(&mut built) {
        let p = build(dead);
        for count in [0, 1, 5] {
            let u = uniforms([[count, 0, 1, 0], [0; 4], [0; 4], [0; 4]], 0);
            *n = agree(&p, &u).stats.insts_before_dce;
        }
    }
    assert_eq!(built[0], built[1]);
}

#[test]
fn a_negated_source_component_is_negated_once_per_instruction() {
    // The same program with the sources of ADD, MAX and MOV negated or not, each selecting x
    // and y twice (`xxyy`). ADD and MAX negate r0.x and r0.y (v1.x and v1.y) once each, for
    // both destination components that select them: 2 negations each. MOV's negations of r0
    // are ADD's: the function is one straight block, so the builder hash-conses and does not
    // emit them again. (The plain MOV builds nothing: r3 is pointed at r0's values instead of
    // copying them.)
    let build = |negate: bool| {
        let descs = [
            desc(0xF),
            desc_sw(0xF, [(negate, "xxyy"), (false, "xyzw"), (false, "xyzw")]),
        ];
        let code = [
            f1(Instruction::Mul, rd(0), c(1), v(0), 0),
            f1(Instruction::Add, rd(1), r(0), v(2), 1),
            f1(Instruction::Max, rd(2), v(1), v(3), 1),
            f1u(Instruction::Mov, rd(3), r(0), 1),
            f1u(Instruction::Mov, o(0), r(1), 0),
            f1u(Instruction::Mov, o(1), r(2), 0),
            f1u(Instruction::Mov, o(2), r(3), 0),
            end(),
        ];
        program(&code, &descs)
    };
    let u = uniforms([[0; 4]; 4], 0);
    let negated = agree(&build(true), &u);
    let plain = agree(&build(false), &u);
    assert_eq!(
        negated.stats.insts_before_dce - plain.stats.insts_before_dce,
        4,
        "negated:\n{}\nplain:\n{}",
        negated.func,
        plain.func
    );
    let text = negated.func.to_string();
    assert_eq!(text.matches("neg").count(), 4, "{text}");
}
