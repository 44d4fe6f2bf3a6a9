//! The IR verifier: operand counts and types against the op table, result types, variable and
//! block references in range, loop slots within the declared count.

use thiserror::Error;

use super::{Function, Terminator, Ty};

/// What is wrong with a function, and where.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum VerifyError {
    #[error("b{block} #{index}: {message}")]
    Inst {
        block: usize,
        index: usize,
        message: String,
    },
    #[error("b{block} terminator: {message}")]
    Term { block: usize, message: String },
}

impl Function {
    /// Checks the function's internal consistency.
    pub fn verify(&self) -> Result<(), VerifyError> {
        let nblocks = self.blocks.len();
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
