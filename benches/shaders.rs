//! The benchmark shaders: the example shaders of `examples/shaders/`, assembled, with the
//! uniforms and inputs `jit-bench` uses (its workload module is compiled in here), and a
//! hand-built 100-instruction program for compile-time figures. Shared by `execute.rs` and
//! `compile.rs` (each uses a part, hence the `dead_code` allowance).

#![allow(dead_code)]

use picajit::isa::{AddrIdx, Dst, Fmt0, Fmt1, Fmt1u, Instruction, OpDesc, Src, SrcMod};
use picajit::program::{Program, Uniforms};

#[path = "../src/bin/jit-bench/workload.rs"]
mod workload;

pub use workload::Workload;

/// The example shaders (mvp, lighting, skinning, steps, branches, subdivide), assembled.
pub fn examples() -> Vec<Workload> {
    workload::builtins().expect("the example shaders assemble")
}

/// One example shader by name.
pub fn example(name: &str) -> Workload {
    workload::builtin(name)
}

fn desc(mask: &str, srcs: [&str; 2]) -> u32 {
    let sel = |s: &str| -> SrcMod {
        let (negate, s) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        let idx = |c: char| "xyzw".find(c).unwrap_or(0) as u8;
        let cs: Vec<u8> = s.chars().map(idx).collect();
        let at = |i: usize| cs.get(i).copied().unwrap_or(*cs.last().unwrap_or(&0));
        SrcMod {
            negate,
            select: [at(0), at(1), at(2), at(3)],
        }
    };
    let m = mask
        .chars()
        .fold(0u8, |m, c| m | 8 >> "xyzw".find(c).unwrap_or(0));
    OpDesc::new(m, [sel(srcs[0]), sel(srcs[1]), SrcMod::IDENTITY]).0
}

struct Asm {
    code: Vec<u32>,
    descs: Vec<u32>,
}

impl Asm {
    fn d(&mut self, mask: &str, srcs: [&str; 2]) -> u8 {
        let w = desc(mask, srcs);
        match self.descs.iter().position(|&x| x == w) {
            Some(i) => i as u8,
            None => {
                self.descs.push(w);
                self.descs.len() as u8 - 1
            }
        }
    }
    fn op2(
        &mut self,
        make: fn(Fmt1) -> Instruction,
        dst: Dst,
        a: Src,
        b: Src,
        mask: &str,
        sw: [&str; 2],
    ) {
        let desc = self.d(mask, sw);
        self.code.push(
            make(Fmt1 {
                dst,
                idx: AddrIdx::None,
                src1: a,
                src2: b,
                desc,
            })
            .encode(),
        );
    }
    fn op1(&mut self, make: fn(Fmt1u) -> Instruction, dst: Dst, a: Src, mask: &str, sw: &str) {
        let desc = self.d(mask, [sw, "xyzw"]);
        self.code.push(
            make(Fmt1u {
                dst,
                idx: AddrIdx::None,
                src1: a,
                desc,
            })
            .encode(),
        );
    }
    fn end(mut self) -> Program {
        self.code.push(Instruction::End(Fmt0).encode());
        Program::from_words(&self.code, &self.descs, 0).expect("fits")
    }
}

fn uniforms() -> Uniforms {
    let mut u = Uniforms::default();
    for (n, c) in u.f.iter_mut().enumerate() {
        *c = [0.5 + n as f32 * 0.01, -0.25, 0.125 * n as f32, 1.0];
    }
    u.f[10] = [0.0; 4];
    u.f[11] = [1.0; 4];
    u
}

/// A 100-instruction shader for compile-time figures: the lighting shader's transform, then
/// a chain of lighting-style arithmetic over r0..r7 with uniforms c12..c40, ending in outputs.
pub fn long() -> Workload {
    let mut a = Asm {
        code: vec![],
        descs: vec![],
    };
    let full = ["xyzw", "xyzw"];
    for (i, m) in ["x", "y", "z", "w"].iter().enumerate() {
        a.op2(
            Instruction::Dp4,
            Dst::output(0),
            Src::uniform(i as u8),
            Src::input(0),
            m,
            full,
        );
    }
    a.op1(
        Instruction::Mov,
        Dst::temp(0),
        Src::input(1),
        "xyzw",
        "xyzw",
    );
    let mut n = 0u8;
    while a.code.len() < 96 {
        let (r, s) = (n % 8, (n + 3) % 8);
        let c = 12 + n % 29;
        match n % 6 {
            0 => a.op2(
                Instruction::Dp3,
                Dst::temp(s),
                Src::uniform(c),
                Src::temp(r),
                "x",
                full,
            ),
            1 => a.op2(
                Instruction::Mul,
                Dst::temp(s),
                Src::uniform(c),
                Src::temp(r),
                "xyzw",
                ["xyzw", "x"],
            ),
            2 => a.op2(
                Instruction::Add,
                Dst::temp(s),
                Src::uniform(c),
                Src::temp(r),
                "xyzw",
                full,
            ),
            3 => a.op2(
                Instruction::Max,
                Dst::temp(s),
                Src::uniform(10),
                Src::temp(r),
                "xyz",
                full,
            ),
            4 => a.op1(Instruction::Rsq, Dst::temp(s), Src::temp(r), "w", "x"),
            _ => a.op2(
                Instruction::Dp4,
                Dst::temp(s),
                Src::temp(r),
                Src::input(2),
                "y",
                full,
            ),
        }
        n += 1;
    }
    for o in 1..4 {
        a.op1(
            Instruction::Mov,
            Dst::output(o),
            Src::temp(o),
            "xyzw",
            "xyzw",
        );
    }
    let mut rng = fastrand::Rng::with_seed(workload::SEED);
    let pattern = (0..64).map(|_| workload::random_vertex(&mut rng)).collect();
    Workload::new("long100".into(), a.end(), uniforms(), pattern)
}
