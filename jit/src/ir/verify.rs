//! The IR verifier: an entry block, operand counts and types against the op table, result
//! types, variable and block references in range, loop slots within the declared count (itself
//! at most [`LOOP_SLOTS`]), and immediates that address the batch context within its arrays (so
//! a backend can turn them into displacements without checks). A function that passes is made
//! a [`super::Verified`], the only form the backends compile.

use thiserror::Error;

use super::{Function, Inst, Op, Terminator, Ty};
use crate::abi::{CONST_ENTRIES, LOOP_SLOTS, UNIFORM_ENTRIES};

/// What is wrong with an instruction's immediates, if anything.
fn imm_error(inst: &Inst) -> Option<String> {
    let [a, b] = inst.imm;
    let check = |ok: bool, what: &str| (!ok).then(|| format!("{} {what}", inst.op.name()));
    match inst.op {
        Op::Uniform | Op::UniformAl | Op::UniformIdx => check(
            (a as usize) < UNIFORM_ENTRIES && b < 4,
            "needs a uniform index below 128 and a component below 4",
        ),
        Op::Const => check(
            (a as usize) < CONST_ENTRIES && b < 4,
            "needs a constant index below 256 and a component below 4",
        ),
        Op::ConstIdx => check(
            a < 1024 && b < 4,
            "needs an offset below 1024 and a component below 4",
        ),
        Op::UniformLead => check(
            (a as usize) < UNIFORM_ENTRIES && b < 4,
            "needs a uniform index below 128 and a component below 4",
        ),
        Op::IntUniform => check(
            a < 4 && b < 3,
            "needs an int uniform below 4 and a field below 3",
        ),
        Op::BoolMask => check(a < 32, "bool beyond the 32-bit bool word"),
        Op::Retire => check(a <= 1, "status must be 0 or 1"),
        Op::Input | Op::Output => check(
            a < 16 && b < 4,
            "needs a register below 16 and a component below 4",
        ),
        Op::Cmp => check(
            (a as usize) < super::CmpKind::ALL.len(),
            "kind out of range",
        ),
        Op::MaskConst => check(a <= 1, "value must be 0 or 1"),
        Op::QuadDiff => check(a <= 1, "axis must be 0 or 1"),
        Op::LoopPush => check(b < 4, "int uniform must be below 4"),
        Op::EmitSlot => check(a < 4, "needs an emitter slot below 4"),
        Op::FConst
        | Op::Mov
        | Op::Neg
        | Op::Abs
        | Op::Add
        | Op::Mul
        | Op::PMul
        | Op::Max
        | Op::Min
        | Op::Div
        | Op::Sqrt
        | Op::Floor
        | Op::Rcp
        | Op::Rsq
        | Op::Ex2
        | Op::Lg2
        | Op::Sin
        | Op::Cos
        | Op::Pow
        | Op::Select
        | Op::MaskAnd
        | Op::MaskOr
        | Op::MaskNot
        | Op::MaskMov
        | Op::FtoiSat
        | Op::IMov
        | Op::IConst
        | Op::IAdd
        | Op::IEq
        | Op::ILt
        | Op::LaneMin
        | Op::ISelect
        | Op::MaskAndNot
        | Op::BudgetLanes
        | Op::AlInc
        | Op::AlRestore
        | Op::Budget
        | Op::EmitTri => None,
    }
}

/// What is wrong with a function, and where.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum VerifyError {
    /// An instruction is malformed (block, index in the block, what).
    #[error("b{block} #{index}: {message}")]
    Inst {
        block: usize,
        index: usize,
        message: String,
    },
    /// A block's terminator is malformed.
    #[error("b{block} terminator: {message}")]
    Term { block: usize, message: String },
    /// The function as a whole is malformed.
    #[error("function: {0}")]
    Function(String),
}

impl Function {
    /// Checks the function's internal consistency.
    pub fn verify(&self) -> Result<(), VerifyError> {
        let nblocks = self.blocks.len();
        if nblocks == 0 {
            return Err(VerifyError::Function("no entry block".to_string()));
        }
        if usize::from(self.loop_slots) > LOOP_SLOTS {
            return Err(VerifyError::Function(format!(
                "{} loop slots, the context has {LOOP_SLOTS}",
                self.loop_slots
            )));
        }
        let ty_of = |v: super::Var| self.vars.get(v.0 as usize).copied();
        for (bi, block) in self.blocks.iter().enumerate() {
            for (ii, inst) in block.insts.iter().enumerate() {
                let err = |message: String| VerifyError::Inst {
                    block: bi,
                    index: ii,
                    message,
                };
                for (n, (&arg, &want)) in inst.uses().iter().zip(inst.op.args()).enumerate() {
                    match ty_of(arg) {
                        None => {
                            return Err(err(format!("operand {n} v{} is not a variable", arg.0)))
                        }
                        Some(t) if t != want => {
                            return Err(err(format!(
                                "operand {n} v{} is {t:?}, {} wants {want:?}",
                                arg.0,
                                inst.op.name()
                            )))
                        }
                        Some(_) => {}
                    }
                }
                match (inst.op.result(), inst.dst) {
                    (None, None) => {}
                    (None, Some(_)) => {
                        return Err(err(format!("{} has no result", inst.op.name())))
                    }
                    (Some(_), None) => {
                        return Err(err(format!("{} needs a result", inst.op.name())))
                    }
                    (Some(want), Some(d)) => match ty_of(d) {
                        Some(t) if t == want => {}
                        other => {
                            return Err(err(format!(
                                "result v{} is {other:?}, wants {want:?}",
                                d.0
                            )))
                        }
                    },
                }
                if let Some(message) = imm_error(inst) {
                    return Err(err(message));
                }
                if matches!(
                    inst.op,
                    super::Op::LoopPush | super::Op::AlInc | super::Op::AlRestore
                ) && inst.imm[0] >= u32::from(self.loop_slots)
                {
                    return Err(err(format!(
                        "loop slot {} beyond {}",
                        inst.imm[0], self.loop_slots
                    )));
                }
            }
            let term_err = |message: String| VerifyError::Term { block: bi, message };
            for s in block.term.successors() {
                if s.0 as usize >= nblocks {
                    return Err(term_err(format!("target b{} does not exist", s.0)));
                }
            }
            if let Some(m) = block.term.uses() {
                if ty_of(m) != Some(Ty::Mask) {
                    return Err(term_err(format!("v{} is not a mask", m.0)));
                }
            }
            if let Terminator::BranchBool { id, .. } = block.term {
                if id >= 32 {
                    return Err(term_err(format!("bool b{id} beyond the 32-bit bool word")));
                }
            }
            if let Terminator::LoopNext { slot, .. } = block.term {
                if slot >= self.loop_slots {
                    return Err(term_err(format!(
                        "loop slot {slot} beyond {}",
                        self.loop_slots
                    )));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{BlockId, Builder, Op, Terminator};
    #[test]
    fn verify_checks_context_immediates() {
        let mut b = Builder::new();
        let x = b.inst(Op::Uniform, &[], [127, 3]);
        b.effect(Op::Output, &[x], [15, 3]);
        let good = b.finish();
        good.verify().unwrap();
        for (n, imm) in [[128, 0], [0, 4]].into_iter().enumerate() {
            let mut f = good.clone();
            f.blocks[0].insts[0].imm = imm;
            assert!(f.verify().is_err(), "uniform case {n}");
        }
        let mut f = good.clone();
        f.blocks[0].insts[1].imm = [16, 0];
        assert!(f.verify().is_err(), "output register 16");
        let mut f = good.clone();
        f.loop_slots = 5;
        assert!(f.verify().is_err(), "five loop slots");
        let mut f = good;
        f.blocks[0].term = Terminator::BranchBool {
            id: 32,
            then: BlockId(0),
            other: BlockId(0),
        };
        assert!(f.verify().is_err(), "bool 32");
        assert!(
            crate::ir::Function::default().verify().is_err(),
            "no entry block"
        );
    }
}
