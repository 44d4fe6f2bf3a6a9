//! The IR variables that stand for PICA registers: one per component of r0–r15, a0.x, a0.y, cc.x,
//! cc.y. Where the function is one straight block, a write to a register component does not copy
//! the value into the component's variable: the component is pointed at the value
//! (`Regs::forward`), and later reads take it from there; so are tracked outputs and (in a
//! geometry shader) the emitter's banks and state. Inputs and uniforms are not variables:
//! they are read (`Input`, `Uniform*`) at each use. Outputs are stored (`Output`) at each write; an
//! output component that an if-converted arm writes also has a variable holding its current value,
//! because a predicated write needs the old value for the lanes that do not take the arm. In a
//! geometry shader every output component it writes is tracked, and also has a variable for its
//! other bank ([`Emitter`]).

use picajit_codegen::ir::{Builder, Op, Ty, Var};

use super::cons::Values;
use super::emitter::Emitter;
use super::live::Liveness;

/// The register variables of one function.
#[derive(Clone, Debug)]
pub(super) struct Regs {
    /// r0..r15, components x..w (F32): the variable holding each component's value now (see
    /// `forward`).
    pub r: [[Var; 4]; 16],
    /// a0.x, a0.y (I32), as `r`.
    pub a0: [Var; 2],
    /// cc.x, cc.y (Mask), as `r`.
    pub cc: [Var; 2],
    /// Writes to r, a0, cc and tracked outputs not under a lane predicate replace the
    /// component's entry by the written variable instead of copying the value into the
    /// component's own variable (which the entry names until the first write): only where the
    /// function is one block built in program order, so that no other block needs the values
    /// in the registers' variables.
    pub forward: bool,
    /// Tracked output components (F32), see the module docs; forwarded as `r` is.
    pub o: [[Option<Var>; 4]; 16],
    /// aL as a per-lane variable (I32) in the lane-position model; `None`: batch-scalar.
    pub al: Option<Var>,
    /// A geometry shader's per-lane emitter state and second output bank.
    pub emitter: Option<Emitter>,
}

impl Regs {
    /// Declares the variables; `tracked[o]` has bit `c` set for output components that need a
    /// variable.
    pub fn new(b: &mut Builder, tracked: &[u8; 16]) -> Regs {
        Regs {
            r: std::array::from_fn(|_| std::array::from_fn(|_| b.var(Ty::F32))),
            a0: [b.var(Ty::I32), b.var(Ty::I32)],
            cc: [b.var(Ty::Mask), b.var(Ty::Mask)],
            o: std::array::from_fn(|n| {
                std::array::from_fn(|c| (tracked[n] >> c & 1 != 0).then(|| b.var(Ty::F32)))
            }),
            al: None,
            emitter: None,
            forward: false,
        }
    }

    /// Emits the start state (the interpreter's, [`crate::interp`]): r = 0.0, a0 = 0,
    /// cc = false, and the tracked outputs 0.0 (the host zeroes outputs).
    ///
    /// With `plain` (no write of the function is under a lane predicate), only the r
    /// components `live` names at the entry ([`Liveness::entry`]) are set: every other one is
    /// written before any read on every path, and where no write is predicated the IR reads a
    /// register component only where the program does. (A predicated write reads the old
    /// value for the lanes it leaves alone, so there every component is set.) r0.x is always
    /// set: its 0.0 is the function's first instruction, which the zeros made later (dot
    /// product seeds, constants) merge into, so the code around them is the same as with
    /// every component set. Dead-code elimination removes the initializations no path reads.
    ///
    /// Where the builder hash-conses (`values`, with `forward`), the components point at one
    /// constant of each type instead.
    pub fn init(&mut self, b: &mut Builder, values: &mut Values, live: &Liveness, plain: bool) {
        let entry = if plain { live.entry | 1 } else { u64::MAX };
        let zero = [0.0f32.to_bits(), 0];
        for (bit, v) in self.r.iter_mut().flatten().enumerate() {
            if entry >> bit & 1 != 0 {
                *v = values.leaf_to(b, Op::FConst, *v, zero);
            }
        }
        for v in self.o.iter_mut().flatten().flatten() {
            *v = values.leaf_to(b, Op::FConst, *v, zero);
        }
        for v in &mut self.a0 {
            *v = values.leaf_to(b, Op::IConst, *v, [0, 0]);
        }
        for v in &mut self.cc {
            *v = values.leaf_to(b, Op::MaskConst, *v, [0, 0]);
        }
    }
}
