//! The IR's text form (`picajit dump --ir`).

use std::fmt;

use super::{CmpKind, Function, Inst, Op, Terminator};

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(d) = self.dst {
            write!(f, "v{} = ", d.0)?;
        }
        write!(f, "{}", self.op.name())?;
        if self.op == Op::Cmp {
            write!(f, ".{:?}", CmpKind::from_imm(self.imm[0]))?;
        }
        let mut sep = " ";
        for a in self.uses() {
            write!(f, "{sep}v{}", a.0)?;
            sep = ", ";
        }
        // The op table says which immediates mean something; FConst and Cmp print theirs above.
        if self.op == Op::FConst {
            write!(
                f,
                " {:?} ({:#010x})",
                f32::from_bits(self.imm[0]),
                self.imm[0]
            )
        } else if self.op == Op::Cmp || self.op.imm_meaning().is_empty() {
            Ok(())
        } else {
            write!(
                f,
                " [{}: {}, {}]",
                self.op.imm_meaning(),
                self.imm[0],
                self.imm[1]
            )
        }
    }
}

impl fmt::Display for Terminator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Terminator::Jump(b) => write!(f, "jump b{}", b.0),
            Terminator::BranchBool { id, then, other } => {
                write!(f, "branch b[{id}] ? b{} : b{}", then.0, other.0)
            }
            Terminator::BranchUniform { mask, then, other } => {
                write!(f, "branch.uniform v{} ? b{} : b{}", mask.0, then.0, other.0)
            }
            Terminator::BranchAny { mask, then, other } => {
                write!(f, "branch.any v{} ? b{} : b{}", mask.0, then.0, other.0)
            }
            Terminator::LoopNext { slot, repeat, exit } => {
                write!(f, "loop.next slot {slot} ? b{} : b{}", repeat.0, exit.0)
            }
            Terminator::Exit => write!(f, "exit"),
        }
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, b) in self.blocks.iter().enumerate() {
            writeln!(f, "b{n}:")?;
            for i in &b.insts {
                writeln!(f, "    {i}")?;
            }
            writeln!(f, "    {}", b.term)?;
        }
        Ok(())
    }
}
