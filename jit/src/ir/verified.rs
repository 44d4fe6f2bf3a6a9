//! [`Verified`]: a function that passed [`Function::verify`], what the backends compile.
//!
//! The backends turn operands into register numbers and immediates into displacements into
//! the batch context without checking them; that is memory-safe only for a verified function.
//! Taking a [`Verified`] instead of a [`Function`] makes the check happen once, where the
//! function is made, rather than once per kernel compiled from it (the AoS kernel, its SoA and
//! draw kernels, every backend of the fuzzer's check). A `Verified` can be read as a
//! [`Function`] but changed only by the edits defined here, each of which keeps it valid.
//!
//! It also keeps what every kernel compiled from it needs to know about its variables
//! ([`Facts`]), its [`Liveness`] and the order its kernels emit it in ([`Schedule`]), each found
//! on first use and shared by all of them.

use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use super::{Function, Inst, Op, Ty, Var, VerifyError};
use crate::facts::Facts;
use crate::kernel::Schedule;
use crate::opt::{liveness, Liveness};

/// A function that passed [`Function::verify`]; read it through `Deref`.
#[derive(Clone)]
pub struct Verified {
    func: Function,
    /// The function's [`Facts`], once some kernel asked for them.
    facts: OnceLock<Arc<Facts>>,
    /// The function's [`Schedule`], once some kernel asked for one.
    schedule: OnceLock<Arc<Schedule>>,
    /// The function's [`Liveness`], once some kernel asked for it.
    liveness: OnceLock<Arc<Liveness>>,
}

impl Verified {
    /// Verifies `func`.
    pub fn new(func: Function) -> Result<Verified, VerifyError> {
        func.verify()?;
        Ok(Verified {
            func,
            facts: OnceLock::new(),
            schedule: OnceLock::new(),
            liveness: OnceLock::new(),
        })
    }

    /// The function, to change it freely (it must be verified again to be compiled).
    pub fn into_inner(self) -> Function {
        self.func
    }

    /// The per-variable facts of the function, found on the first call.
    pub(crate) fn facts(&self) -> &Facts {
        self.facts.get_or_init(|| Arc::new(Facts::of(&self.func)))
    }

    /// The schedule the first kernel asked for, made by `make` on the first call.
    pub(crate) fn schedule(&self, make: impl FnOnce() -> Schedule) -> &Schedule {
        self.schedule.get_or_init(|| Arc::new(make()))
    }

    /// The schedule kept by [`Verified::schedule`], if a kernel asked for one.
    pub(crate) fn kept_schedule(&self) -> Option<&Schedule> {
        self.schedule.get().map(|s| &**s)
    }

    /// The liveness of the function, found on the first call.
    pub(crate) fn liveness(&self) -> &Liveness {
        self.liveness.get_or_init(|| Arc::new(liveness(&self.func)))
    }

    /// Makes the entry block store `+0.0` to every component of the output registers in
    /// `regs` (bit r: register r) before anything else, so that those registers are defined
    /// on every path. Adds one variable.
    pub fn mark_outputs(&mut self, regs: u16) {
        // A new variable and definitions: the facts, schedule and liveness are found again when
        // asked.
        self.facts = OnceLock::new();
        self.schedule = OnceLock::new();
        self.liveness = OnceLock::new();
        let func = &mut self.func;
        let Some(entry) = func.blocks.first_mut() else {
            return;
        };
        if regs == 0 {
            return;
        }
        let zero = Var(func.vars.len() as u32);
        func.vars.push(Ty::F32);
        let mut extra = vec![Inst {
            op: Op::FConst,
            dst: Some(zero),
            args: [Var(0); 3],
            imm: [0, 0],
        }];
        // Register below 16, component below 4, a float operand: what `verify` asks of
        // `Output`.
        for r in (0..16u32).filter(|r| regs >> r & 1 != 0) {
            for c in 0..4 {
                extra.push(Inst {
                    op: Op::Output,
                    dst: None,
                    args: [zero; 3],
                    imm: [r, c],
                });
            }
        }
        entry.insts.splice(0..0, extra);
    }

    /// A copy where every `PMul` for which `plain` holds becomes a `Mul` (the same operand
    /// and result types, so the copy is valid too); returns it and how many were rewritten.
    pub fn map_pmul(&self, plain: &dyn Fn(&Inst) -> bool) -> (Verified, usize) {
        let mut out = self.func.clone();
        let mut rewritten = 0;
        for inst in out.blocks.iter_mut().flat_map(|b| &mut b.insts) {
            if inst.op == Op::PMul && plain(inst) {
                inst.op = Op::Mul;
                rewritten += 1;
            }
        }
        // A `Mul` is what a `PMul` is to every fact (neither a leaf nor a uniform, invariant
        // when its operands are): the facts carry over, and so does the liveness (the same
        // operands and results). Not the schedule: a `Mul` is quicker.
        let facts = self.facts.clone();
        let schedule = OnceLock::new();
        let liveness = self.liveness.clone();
        (
            Verified {
                func: out,
                facts,
                schedule,
                liveness,
            },
            rewritten,
        )
    }
}

impl Deref for Verified {
    type Target = Function;

    fn deref(&self) -> &Function {
        &self.func
    }
}

impl PartialEq for Verified {
    /// Equal functions: the facts follow from them.
    fn eq(&self, other: &Verified) -> bool {
        self.func == other.func
    }
}

impl std::fmt::Debug for Verified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Verified").field(&self.func).finish()
    }
}

impl std::fmt::Display for Verified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.func.fmt(f)
    }
}

impl TryFrom<Function> for Verified {
    type Error = VerifyError;

    fn try_from(func: Function) -> Result<Verified, VerifyError> {
        Verified::new(func)
    }
}
