//! What EVEX encoding costs on the compile path: the same 48-instruction stream (24 masked
//! `vmulps zmm{k}, zmm, [rdi + disp]{1to16}` and 24 `vaddps zmm, zmm, zmm` over zmm0–31)
//! encoded by `x64::evex` and by iced-x86's `Encoder`, with dynasm's AVX2 VEX encoding of the
//! equivalent ymm stream as the reference. Divide by 48 for ns per instruction.

// dynasm expands register arguments to `.into()` calls, which clippy flags on `u8`s.
#![allow(clippy::useless_conversion)]

use criterion::{criterion_group, criterion_main, Criterion};
use dynasmrt::{dynasm, DynasmApi};
use iced_x86::{Code, Encoder, Instruction, MemoryOperand, Register};
use picajit_codegen::x64::asm::Ops;
use picajit_codegen::x64::evex::{encode, splice, Inst, Mem, Op, Rm, Vl};
use std::hint::black_box;

const N: u8 = 24;

fn zmm(n: u8) -> Register {
    Register::values()
        .nth(Register::ZMM0 as usize + n as usize)
        .expect("zmm")
}

fn ours<E: Extend<u8>>(ops: &mut E) {
    for i in 0..N {
        let mul = Inst {
            mask: 1 + i % 7,
            bcst: true,
            ..Inst::rvm(
                Op::MulPs,
                Vl::V512,
                i,
                (i + 7) % 32,
                Rm::Mem(Mem::base(7, 0x4000 + 4 * i32::from(i))),
            )
        };
        splice(ops, &encode(&mul).expect("encodes"));
        let add = Inst::rvm(Op::AddPs, Vl::V512, i + 8, i, Rm::Reg((i + 16) % 32));
        splice(ops, &encode(&add).expect("encodes"));
    }
}

fn iced(enc: &mut Encoder, zmms: &[Register; 32]) {
    for i in 0..N {
        let mem = MemoryOperand::with_base_displ_bcst_seg(
            Register::RDI,
            0x4000 + 4 * i64::from(i),
            true,
            Register::None,
        );
        let mut mul = Instruction::with3(
            Code::EVEX_Vmulps_zmm_k1z_zmm_zmmm512b32_er,
            zmms[i as usize],
            zmms[((i + 7) % 32) as usize],
            mem,
        )
        .expect("builds");
        mul.set_op_mask(
            Register::values()
                .nth(Register::K0 as usize + 1 + (i % 7) as usize)
                .expect("k"),
        );
        enc.encode(&mul, 0).expect("encodes");
        let add = Instruction::with3(
            Code::EVEX_Vaddps_zmm_k1z_zmm_zmmm512b32_er,
            zmms[(i + 8) as usize],
            zmms[i as usize],
            zmms[((i + 16) % 32) as usize],
        )
        .expect("builds");
        enc.encode(&add, 0).expect("encodes");
    }
}

fn dynasm_vex(ops: &mut Ops) {
    for i in 0..N {
        let (d, s, t) = (i % 16, (i + 7) % 16, (i + 3) % 16);
        let disp = 0x4000 + 32 * i32::from(i);
        dynasm!(ops ; .arch x64
            ; vmulps Ry(d), Ry(s), [rdi + disp]
            ; vaddps Ry(t), Ry(d), Ry(s)
        );
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("encode 48 instructions");
    g.bench_function("own EVEX encoder", |b| {
        b.iter(|| {
            let mut ops = Ops::new(0);
            ours(&mut ops);
            black_box(ops.finalize().expect("assembles"))
        })
    });
    g.bench_function("own EVEX encoder, bytes only", |b| {
        b.iter(|| {
            let mut v: Vec<u8> = Vec::with_capacity(512);
            ours(&mut v);
            black_box(v)
        })
    });
    let zmms: [Register; 32] = std::array::from_fn(|n| zmm(n as u8));
    g.bench_function("iced Encoder", |b| {
        b.iter(|| {
            let mut enc = Encoder::new(64);
            iced(&mut enc, &zmms);
            let mut ops = Ops::new(0);
            ops.extend(enc.take_buffer());
            black_box(ops.finalize().expect("assembles"))
        })
    });
    g.bench_function("dynasm AVX2 (VEX ymm)", |b| {
        b.iter(|| {
            let mut ops = Ops::new(0);
            dynasm_vex(&mut ops);
            black_box(ops.finalize().expect("assembles"))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
