//! Every form the EVEX/opmask encoder (`x64::evex`) can emit, over a spread of registers
//! (0, 1, 7, 8, 15, 16, 23, 31: each extension bit), opmasks with merging and zeroing, memory
//! operands (every base, indexes and scales, displacements that do and do not compress to
//! disp8·N, `[rip + disp32]`) and broadcasts, is decoded by iced-x86 and must be exactly the instruction meant:
//! the instruction (found in iced's tables by mnemonic, vector length and operand shape, not by
//! our opcode bytes), every operand, the opmask, zeroing, broadcast and the length. iced's own
//! encoder must also produce the same bytes. Zero mismatches allowed.

use iced_x86::{
    Code, Decoder, DecoderOptions, Encoder, EncodingKind, Instruction, MemoryOperand,
    OpCodeOperandKind as K, Register,
};
use picajit_codegen::x64::evex::{
    encode, encode_k, Inst, KOp, KShape, Mem, Op, Rm, Shape, Vl, RIP,
};

const REGS: [u8; 8] = [0, 1, 7, 8, 15, 16, 23, 31];

/// What an iced operand must be for our operand shape.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    VReg,
    VVvvv,
    VRm,
    VRmReg,
    KReg,
    KVvvv,
    KRm,
    KOrMem,
    R32Reg,
    R32Rm,
    Imm,
}

fn roles(shape: Shape) -> Vec<Role> {
    use Role::*;
    match shape {
        Shape::Rvm => vec![VReg, VVvvv, VRm],
        Shape::Rvmi => vec![VReg, VVvvv, VRm, Imm],
        Shape::Rm => vec![VReg, VRm],
        Shape::Rmi => vec![VReg, VRm, Imm],
        Shape::Mr => vec![VRm, VReg],
        Shape::Mri => vec![VRm, VReg, Imm],
        Shape::Kvm => vec![KReg, VVvvv, VRm],
        Shape::Kvmi => vec![KReg, VVvvv, VRm, Imm],
        Shape::Shift(_) => vec![VVvvv, VRm, Imm],
        Shape::KfromV => vec![KReg, VRmReg],
        Shape::VfromK => vec![VReg, KRm],
    }
}

fn k_roles(shape: KShape) -> Vec<Role> {
    use Role::*;
    match shape {
        KShape::Kkk => vec![KReg, KVvvv, KRm],
        KShape::Kk => vec![KReg, KRm],
        KShape::Kr => vec![KReg, R32Rm],
        KShape::Rk => vec![R32Reg, KRm],
        KShape::Km => vec![KReg, KOrMem],
        KShape::Mk => vec![KOrMem, KReg],
    }
}

fn fits(role: Role, kind: K) -> bool {
    use Role::*;
    match role {
        VReg => matches!(kind, K::xmm_reg | K::ymm_reg | K::zmm_reg),
        VVvvv => matches!(kind, K::xmm_vvvv | K::ymm_vvvv | K::zmm_vvvv),
        VRm => matches!(kind, K::xmm_or_mem | K::ymm_or_mem | K::zmm_or_mem | K::mem),
        VRmReg => matches!(kind, K::xmm_rm | K::ymm_rm | K::zmm_rm),
        KReg => kind == K::k_reg,
        KVvvv => kind == K::k_vvvv,
        KRm => matches!(kind, K::k_rm | K::k_or_mem),
        KOrMem => matches!(kind, K::k_or_mem | K::mem),
        R32Reg => kind == K::r32_reg,
        R32Rm => matches!(kind, K::r32_rm | K::r32_or_mem),
        Imm => kind == K::imm8,
    }
}

/// The one iced instruction with this mnemonic, encoding, vector length (EVEX only) and
/// operand shape.
fn find_code(name: &str, evex: bool, l: u32, want: &[Role]) -> Code {
    let found: Vec<Code> = Code::values()
        .filter(|c| format!("{:?}", c.mnemonic()).to_lowercase() == name)
        .filter(|c| {
            let enc = c.op_code().encoding();
            let info = c.op_code();
            if evex {
                enc == EncodingKind::EVEX && info.l() == l
            } else {
                enc == EncodingKind::VEX
            }
        })
        .filter(|c| {
            let kinds = c.op_code().op_kinds();
            kinds.len() == want.len() && kinds.iter().zip(want).all(|(&k, &r)| fits(r, k))
        })
        .collect();
    assert_eq!(found.len(), 1, "{name} l={l}: iced candidates {found:?}");
    found[0]
}

fn reg_of(kind: K, n: u8) -> Register {
    let name = format!("{kind:?}");
    let first = if name.starts_with("xmm") {
        Register::XMM0
    } else if name.starts_with("ymm") {
        Register::YMM0
    } else if name.starts_with("zmm") {
        Register::ZMM0
    } else if name.starts_with("k_") {
        Register::K0
    } else if name.starts_with("r32") {
        Register::EAX
    } else {
        panic!("no register family for {name}")
    };
    Register::values()
        .nth(first as usize + n as usize)
        .expect("register")
}

const GPR64: [Register; 16] = [
    Register::RAX,
    Register::RCX,
    Register::RDX,
    Register::RBX,
    Register::RSP,
    Register::RBP,
    Register::RSI,
    Register::RDI,
    Register::R8,
    Register::R9,
    Register::R10,
    Register::R11,
    Register::R12,
    Register::R13,
    Register::R14,
    Register::R15,
];

/// iced's form of `m` in an instruction of `len` bytes decoded at address 0 (a rip-relative
/// operand's displacement is then its absolute target, `len + disp`).
fn mem_operand(m: &Mem, bcst: bool, len: usize) -> MemoryOperand {
    if m.base == RIP {
        let target = len as i64 + i64::from(m.disp);
        return MemoryOperand::new(
            Register::RIP,
            Register::None,
            1,
            target,
            8,
            bcst,
            Register::None,
        );
    }
    let (index, scale) = match m.index {
        Some((i, s)) => (GPR64[i as usize], u32::from(s)),
        None => (Register::None, 1),
    };
    MemoryOperand::new(
        GPR64[m.base as usize],
        index,
        scale,
        i64::from(m.disp),
        if m.disp == 0 { 0 } else { 1 },
        bcst,
        Register::None,
    )
}

#[derive(Clone, Copy)]
enum Arg {
    R(Register),
    M(MemoryOperand),
    I(u32),
}

fn build(code: Code, args: &[Arg]) -> Instruction {
    use Arg::*;
    let r = match args {
        [R(a), R(b)] => Instruction::with2(code, *a, *b),
        [R(a), M(b)] => Instruction::with2(code, *a, *b),
        [M(a), R(b)] => Instruction::with2(code, *a, *b),
        [R(a), R(b), R(c)] => Instruction::with3(code, *a, *b, *c),
        [R(a), R(b), M(c)] => Instruction::with3(code, *a, *b, *c),
        [R(a), R(b), I(c)] => Instruction::with3(code, *a, *b, *c),
        [R(a), M(b), I(c)] => Instruction::with3(code, *a, *b, *c),
        [M(a), R(b), I(c)] => Instruction::with3(code, *a, *b, *c),
        [R(a), R(b), R(c), I(d)] => Instruction::with4(code, *a, *b, *c, *d),
        [R(a), R(b), M(c), I(d)] => Instruction::with4(code, *a, *b, *c, *d),
        _ => panic!("no builder for {code:?}"),
    };
    r.expect("iced builds the instruction")
}

/// Checks one encoding; returns a description of the mismatch, if any.
fn check(ours: &[u8], expected: &Instruction) -> Result<(), String> {
    let mut dec = Decoder::with_ip(64, ours, 0, DecoderOptions::NONE);
    let got = dec.decode();
    let fields = |i: &Instruction| {
        let ops: Vec<String> = (0..i.op_count())
            .map(|k| format!("{:?}/{:?}", i.op_kind(k), i.op_register(k)))
            .collect();
        format!(
            "{:?} ops={ops:?} mem=[{:?}+{:?}*{}+{:#x}] size={:?} imm={} k={:?} z={} bcst={}",
            i.code(),
            i.memory_base(),
            i.memory_index(),
            i.memory_index_scale(),
            i.memory_displacement64(),
            i.memory_size(),
            if i.op_count() > 0 && i.op_kind(i.op_count() - 1) == iced_x86::OpKind::Immediate8 {
                i.immediate8()
            } else {
                0
            },
            i.op_mask(),
            i.zeroing_masking(),
            i.is_broadcast(),
        )
    };
    let (g, e) = (fields(&got), fields(expected));
    if got.is_invalid() || got.len() != ours.len() || g != e {
        return Err(format!(
            "ours {ours:02X?} decodes as {g} (len {}), meant {e}",
            got.len()
        ));
    }
    let mut enc = Encoder::new(64);
    enc.encode(expected, 0).map_err(|err| err.to_string())?;
    let theirs = enc.take_buffer();
    if theirs != ours {
        return Err(format!(
            "ours {ours:02X?}, iced's encoder {theirs:02X?} for {e}"
        ));
    }
    Ok(())
}

fn mems() -> Vec<Mem> {
    let mut v = Vec::new();
    let disps = [
        0,
        4,
        -4,
        8,
        16,
        64,
        -64,
        0x80,
        127 * 64,
        128 * 64,
        -128 * 64,
        0x1234,
        -0x7FFF_FFFF,
    ];
    for base in 0..16u8 {
        for (k, &disp) in disps.iter().enumerate() {
            let index = match (base as usize + k) % 4 {
                0 => None,
                1 => Some(((base + 3) % 16, 8)),
                2 => Some((if base == 2 { 13 } else { 12 }, 2)),
                _ => Some((if base % 2 == 0 { 9 } else { 5 }, 4)),
            }
            .map(|(i, s)| (if i == 4 { 1 } else { i }, s));
            v.push(Mem { base, index, disp });
        }
        v.push(Mem {
            base,
            index: Some((15, 1)),
            disp: 0,
        });
    }
    // `[rip + disp32]` (the constant pool's form), whatever the displacement.
    for disp in [0, 4, 64, -64, 0x1234, -0x7FFF_FFFF] {
        v.push(Mem::rip(disp));
    }
    v
}

#[test]
fn every_evex_form_decodes_as_meant() {
    let mems = mems();
    let (mut checked, mut forms) = (0usize, 0usize);
    let mut failures = Vec::new();
    for &op in Op::ALL {
        let info = op.info();
        for vl in Vl::ALL {
            if info.wide_only && vl == Vl::V128 {
                continue;
            }
            let l = match vl {
                Vl::V128 => 0,
                Vl::V256 => 1,
                Vl::V512 => 2,
            };
            let want = roles(info.shape);
            let code = find_code(info.name, true, l, &want);
            forms += 1;
            let kinds = code.op_code().op_kinds().to_vec();
            let reg_form_ok = !matches!(info.shape, Shape::Mr) && !kinds.contains(&K::mem);
            let mem_form_ok = !matches!(info.shape, Shape::KfromV | Shape::VfromK);
            let mut cases: Vec<Inst> = Vec::new();
            let has_imm = want.contains(&Role::Imm);
            let has_src = want.contains(&Role::VVvvv);
            let k_dst = matches!(info.shape, Shape::Kvm | Shape::Kvmi | Shape::KfromV);
            let zero_ok = matches!(
                info.shape,
                Shape::Rvm | Shape::Rvmi | Shape::Rm | Shape::Rmi | Shape::Shift(_) | Shape::Mri
            );
            let mask_ok = !matches!(info.shape, Shape::KfromV | Shape::VfromK);
            for (i, &d) in REGS.iter().enumerate() {
                let dst = if k_dst { d % 8 } else { d };
                let dst = if matches!(info.shape, Shape::Shift(_)) {
                    0
                } else {
                    dst
                };
                for (j, &r) in REGS.iter().enumerate() {
                    let src = if has_src { REGS[(i + j + 3) % 8] } else { 0 };
                    let rm_reg = if info.shape == Shape::VfromK {
                        r % 8
                    } else {
                        r
                    };
                    let mask = if mask_ok { ((i + 2 * j) % 8) as u8 } else { 0 };
                    let zeroing = zero_ok && mask != 0 && j % 2 == 1;
                    let imm = if has_imm { (i * 37 + j * 11) as u8 } else { 0 };
                    let src = if matches!(info.shape, Shape::Shift(_)) {
                        d
                    } else {
                        src
                    };
                    if reg_form_ok {
                        cases.push(Inst {
                            op,
                            vl,
                            dst,
                            src,
                            rm: Rm::Reg(rm_reg),
                            mask,
                            zeroing,
                            bcst: false,
                            imm,
                        });
                    }
                }
                if mem_form_ok {
                    for (j, m) in mems.iter().enumerate() {
                        if (j + i) % 3 != 0 {
                            continue;
                        }
                        let src = if has_src { REGS[(i + j) % 8] } else { 0 };
                        let src = if matches!(info.shape, Shape::Shift(_)) {
                            d
                        } else {
                            src
                        };
                        let mask = if mask_ok { ((i + j) % 8) as u8 } else { 0 };
                        let zeroing =
                            zero_ok && info.shape != Shape::Mri && mask != 0 && j % 2 == 0;
                        for bcst in [false, true] {
                            if bcst && !info.bcst {
                                continue;
                            }
                            cases.push(Inst {
                                op,
                                vl,
                                dst,
                                src,
                                rm: Rm::Mem(*m),
                                mask,
                                zeroing,
                                bcst,
                                imm: if has_imm { (j * 7) as u8 } else { 0 },
                            });
                        }
                    }
                }
            }
            for inst in &cases {
                let bytes = encode(inst).unwrap_or_else(|e| panic!("{inst:?}: {e}"));
                let mut args = Vec::new();
                let mut reg_iter = match info.shape {
                    Shape::Rvm | Shape::Rvmi | Shape::Kvm | Shape::Kvmi => {
                        vec![inst.dst, inst.src]
                    }
                    Shape::Rm | Shape::Rmi | Shape::KfromV | Shape::VfromK => vec![inst.dst],
                    Shape::Mr | Shape::Mri => vec![inst.dst],
                    Shape::Shift(_) => vec![inst.src],
                }
                .into_iter();
                for (&kind, &role) in kinds.iter().zip(&want) {
                    let arg = match role {
                        Role::Imm => Arg::I(u32::from(inst.imm)),
                        Role::VRm | Role::VRmReg | Role::KRm => match inst.rm {
                            Rm::Reg(r) => {
                                let kind = match kind {
                                    K::xmm_or_mem => K::xmm_rm,
                                    K::ymm_or_mem => K::ymm_rm,
                                    K::zmm_or_mem => K::zmm_rm,
                                    K::k_or_mem => K::k_rm,
                                    k => k,
                                };
                                Arg::R(reg_of(kind, r))
                            }
                            Rm::Mem(m) => {
                                Arg::M(mem_operand(&m, inst.bcst, bytes.as_bytes().len()))
                            }
                        },
                        _ => Arg::R(reg_of(kind, reg_iter.next().expect("register operand"))),
                    };
                    args.push(arg);
                }
                let mut expected = build(code, &args);
                if inst.mask != 0 {
                    expected.set_op_mask(reg_of(K::k_reg, inst.mask));
                }
                expected.set_zeroing_masking(inst.zeroing);
                if let Err(e) = check(bytes.as_bytes(), &expected) {
                    failures.push(format!("{inst:?}: {e}"));
                }
                checked += 1;
            }
        }
    }
    eprintln!(
        "evex round trip: {} instructions, {forms} forms (instruction × vector length), {checked} encodings, {} mismatches",
        Op::ALL.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} mismatches, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    assert!(checked > 20_000, "only {checked} encodings checked");
}

#[test]
fn every_opmask_form_decodes_as_meant() {
    let mems = mems();
    let (mut checked, mut failures) = (0usize, Vec::new());
    for &op in KOp::ALL {
        let info = op.info();
        let want = k_roles(info.shape);
        let code = find_code(info.name, false, 0, &want);
        let kinds = code.op_code().op_kinds().to_vec();
        let mut cases: Vec<(u8, u8, Rm)> = Vec::new();
        for a in 0..16u8 {
            for b in 0..16u8 {
                let (dst, src, rm) = match info.shape {
                    KShape::Kkk => (a % 8, b % 8, Rm::Reg((a + b) % 8)),
                    KShape::Kk => (a % 8, 0, Rm::Reg(b % 8)),
                    KShape::Kr => (a % 8, 0, Rm::Reg(b)),
                    KShape::Rk => (a, 0, Rm::Reg(b % 8)),
                    KShape::Km | KShape::Mk => (
                        a % 8,
                        0,
                        Rm::Mem(mems[(a as usize * 16 + b as usize) % mems.len()]),
                    ),
                };
                cases.push((dst, src, rm));
            }
        }
        for (dst, src, rm) in cases {
            let bytes = encode_k(op, dst, src, rm).unwrap_or_else(|e| panic!("{op:?}: {e}"));
            let mut regs = [dst, src].into_iter();
            let args: Vec<Arg> = kinds
                .iter()
                .zip(&want)
                .map(|(&kind, &role)| match (role, rm) {
                    (Role::KRm | Role::R32Rm, Rm::Reg(r)) => {
                        let kind = if kind == K::k_or_mem { K::k_rm } else { kind };
                        Arg::R(reg_of(kind, r))
                    }
                    (Role::KOrMem, Rm::Mem(m)) => {
                        Arg::M(mem_operand(&m, false, bytes.as_bytes().len()))
                    }
                    _ => Arg::R(reg_of(kind, regs.next().expect("register"))),
                })
                .collect();
            let expected = build(code, &args);
            if let Err(e) = check(bytes.as_bytes(), &expected) {
                failures.push(format!("{op:?} {dst} {src} {rm:?}: {e}"));
            }
            checked += 1;
        }
    }
    eprintln!(
        "opmask round trip: {} instructions, {checked} encodings, {} mismatches",
        KOp::ALL.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} mismatches, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    assert!(checked > 5_000);
}

/// Chunks spliced into a dynasm stream land whole between dynasm's own instructions.
#[test]
fn chunks_splice_into_the_dynasm_stream() {
    use dynasmrt::dynasm;
    use picajit_codegen::x64::evex::splice;
    let mut ops = picajit_codegen::x64::asm::Ops::new(0);
    dynasm!(ops ; .arch x64 ; mov rax, rdi);
    let add = Inst {
        bcst: true,
        mask: 3,
        zeroing: true,
        ..Inst::rvm(Op::AddPs, Vl::V512, 17, 30, Rm::Mem(Mem::base(7, 0x140)))
    };
    splice(&mut ops, &encode(&add).expect("encodes"));
    splice(
        &mut ops,
        &encode_k(KOp::KOrTestW, 3, 0, Rm::Reg(3)).expect("encodes"),
    );
    dynasm!(ops ; .arch x64 ; ret);
    let code = ops.finalize().expect("assembles");
    let mut dec = Decoder::with_ip(64, &code, 0, DecoderOptions::NONE);
    let codes: Vec<Code> = (&mut dec).into_iter().map(|i| i.code()).collect();
    assert_eq!(
        codes,
        [
            Code::Mov_rm64_r64,
            Code::EVEX_Vaddps_zmm_k1z_zmm_zmmm512b32_er,
            Code::VEX_Kortestw_kr_kr,
            Code::Retnq
        ]
    );
}
