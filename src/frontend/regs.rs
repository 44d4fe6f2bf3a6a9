//! The IR variables that stand for PICA registers: one per component of r0–r15, a0.x, a0.y,
//! cc.x, cc.y. Inputs, uniforms and outputs are not variables: they are read (`Input`,
//! `Uniform*`) at each use and stored (`Output`) at each write.

use picajit_codegen::ir::{Builder, Op, Ty, Var};

/// The register variables of one function.
#[derive(Clone, Debug)]
pub(super) struct Regs {
    /// r0..r15, components x..w (F32).
    pub r: [[Var; 4]; 16],
    /// a0.x, a0.y (I32).
    pub a0: [Var; 2],
    /// cc.x, cc.y (Mask).
    pub cc: [Var; 2],
}

impl Regs {
    /// Declares the variables.
    pub fn new(b: &mut Builder) -> Regs {
        Regs {
            r: std::array::from_fn(|_| std::array::from_fn(|_| b.var(Ty::F32))),
            a0: [b.var(Ty::I32), b.var(Ty::I32)],
            cc: [b.var(Ty::Mask), b.var(Ty::Mask)],
        }
    }

    /// Emits the start state (`spec/semantics.md` §1): r = 0.0, a0 = 0, cc = false. Dead-code
    /// elimination removes the initializations no path reads.
    pub fn init(&self, b: &mut Builder) {
        for reg in &self.r {
            for &v in reg {
                b.inst_to(Op::FConst, v, &[], [0.0f32.to_bits(), 0]);
            }
        }
        for &v in &self.a0 {
            b.inst_to(Op::IConst, v, &[], [0, 0]);
        }
        for &v in &self.cc {
            b.inst_to(Op::MaskConst, v, &[], [0, 0]);
        }
    }
}
