//! The benchmark shaders, built from the ISA types (each listing is in its doc comment) with
//! fixed uniforms and seeded inputs. Shared by `execute.rs` and `compile.rs` (each uses a
//! part, hence the `dead_code` allowance).

#![allow(dead_code)]

use picajit::isa::{AddrIdx, Dst, Fmt0, Fmt1, Fmt1u, Instruction, OpDesc, Src, SrcMod};
use picajit::program::{Program, Regs16, Uniforms};

/// A benchmark shader: name, program, uniforms, PICA instructions executed per vertex.
pub struct BenchShader {
    pub name: &'static str,
    pub program: Program,
    pub uniforms: Uniforms,
    /// PICA instructions executed per vertex (for ns-per-instruction figures).
    pub instructions: usize,
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

/// MVP transform:
/// ```text
/// dp4 o0.x, c0, v0 / dp4 o0.y, c1, v0 / dp4 o0.z, c2, v0 / dp4 o0.w, c3, v0
/// mov o1, v1 / end
/// ```
pub fn mvp() -> BenchShader {
    let mut a = Asm {
        code: vec![],
        descs: vec![],
    };
    for (i, m) in ["x", "y", "z", "w"].iter().enumerate() {
        a.op2(
            Instruction::Dp4,
            Dst::output(0),
            Src::uniform(i as u8),
            Src::input(0),
            m,
            ["xyzw", "xyzw"],
        );
    }
    a.op1(
        Instruction::Mov,
        Dst::output(1),
        Src::input(1),
        "xyzw",
        "xyzw",
    );
    BenchShader {
        name: "mvp",
        program: a.end(),
        uniforms: uniforms(),
        instructions: 6,
    }
}

/// Transform and per-vertex lighting, 17 instructions:
/// ```text
///  0 dp4 o0.x, c0, v0        ; clip position
///  1 dp4 o0.y, c1, v0
///  2 dp4 o0.z, c2, v0
///  3 dp4 o0.w, c3, v0
///  4 dp3 r0.x, c4, v1        ; normal to eye space
///  5 dp3 r0.y, c5, v1
///  6 dp3 r0.z, c6, v1
///  7 dp3 r0.w, r0, r0        ; |n|²
///  8 rsq r0.w, r0.w
///  9 mul r0.xyz, r0, r0.w    ; normalize
/// 10 dp3 r1.x, c7, r0        ; n·l
/// 11 max r1.x, c10.x, r1.x   ; clamp at 0
/// 12 mul r2, c8, r1.x        ; diffuse
/// 13 add r2, c9, r2          ; + ambient
/// 14 min o1, c11, r2         ; saturate
/// 15 mov o2, v2              ; texture coordinate
/// 16 end
/// ```
pub fn lighting() -> BenchShader {
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
    for (i, m) in ["x", "y", "z"].iter().enumerate() {
        a.op2(
            Instruction::Dp3,
            Dst::temp(0),
            Src::uniform(4 + i as u8),
            Src::input(1),
            m,
            full,
        );
    }
    a.op2(
        Instruction::Dp3,
        Dst::temp(0),
        Src::temp(0),
        Src::temp(0),
        "w",
        full,
    );
    a.op1(Instruction::Rsq, Dst::temp(0), Src::temp(0), "w", "w");
    a.op2(
        Instruction::Mul,
        Dst::temp(0),
        Src::temp(0),
        Src::temp(0),
        "xyz",
        ["xyzw", "w"],
    );
    a.op2(
        Instruction::Dp3,
        Dst::temp(1),
        Src::uniform(7),
        Src::temp(0),
        "x",
        full,
    );
    a.op2(
        Instruction::Max,
        Dst::temp(1),
        Src::uniform(10),
        Src::temp(1),
        "x",
        ["x", "x"],
    );
    a.op2(
        Instruction::Mul,
        Dst::temp(2),
        Src::uniform(8),
        Src::temp(1),
        "xyzw",
        ["xyzw", "x"],
    );
    a.op2(
        Instruction::Add,
        Dst::temp(2),
        Src::uniform(9),
        Src::temp(2),
        "xyzw",
        full,
    );
    a.op2(
        Instruction::Min,
        Dst::output(1),
        Src::uniform(11),
        Src::temp(2),
        "xyzw",
        full,
    );
    a.op1(
        Instruction::Mov,
        Dst::output(2),
        Src::input(2),
        "xyzw",
        "xyzw",
    );
    BenchShader {
        name: "lighting",
        program: a.end(),
        uniforms: uniforms(),
        instructions: 17,
    }
}

/// A 100-instruction shader for compile-time figures: the lighting shader's transform, then
/// a chain of lighting-style arithmetic over r0..r7 with uniforms c12..c40, ending in outputs.
pub fn long() -> BenchShader {
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
    BenchShader {
        name: "long100",
        program: a.end(),
        uniforms: uniforms(),
        instructions: 100,
    }
}

/// Seeded inputs: positions with w = 1, unit-ish normals, texture coordinates.
pub fn inputs(n: usize) -> Vec<Regs16> {
    let mut rng = fastrand::Rng::with_seed(7);
    (0..n)
        .map(|_| {
            let mut r = [[0.0f32; 4]; 16];
            r[0] = [
                rng.f32() * 2.0 - 1.0,
                rng.f32() * 2.0 - 1.0,
                rng.f32() * 2.0 - 1.0,
                1.0,
            ];
            r[1] = [rng.f32() - 0.5, rng.f32() - 0.5, rng.f32() + 0.1, 0.0];
            r[2] = [rng.f32(), rng.f32(), 0.0, 1.0];
            r
        })
        .collect()
}
