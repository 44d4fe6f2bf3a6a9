//! What every kernel of one function needs to know about its variables, found once per
//! function and kept with it ([`crate::ir::Verified::facts`]) instead of once per kernel (the
//! AoS kernel, its SoA and draw kernels, a uniform-specialized copy, each backend): per
//! variable written exactly once, the run-fixed value it can be re-read from ([`Leaf`]), the
//! uniform component it stands for, whether it is batch-invariant, and which values a kernel
//! computes once per run ([`Facts::hoisted`]).
//!
//! Variables are not SSA, so only a variable with exactly one definition gets a fact: that
//! definition precedes every read on every path (the backends reject functions that can read a
//! variable before writing it), so it also comes before every read in reverse post-order. One
//! walk counts the definitions, one walk in reverse post-order settles every fact of each
//! definition from those of its operands.

use crate::ir::{Function, Inst, Op};
use crate::opt::{invariant_def, uniform_def};
use crate::regalloc::reverse_post_order;

/// At most this many values are computed once per run (each takes a spill slot for the run).
pub(crate) const MAX_HOISTED: usize = 128;

/// A value fixed for the whole run that a variable can be re-read from at each use (see
/// [`Facts::leaves`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leaf {
    /// A constant, as its 32-bit pattern (c96..c127 read as 1.0 are constants too).
    Const(u32),
    /// Component `comp` of uniform `row` (0..96), read from its broadcast row in the context.
    Uniform { row: u32, comp: u32 },
}

impl Leaf {
    /// The leaf an instruction defines, if it reads a value fixed for the whole run: a float
    /// constant, or a uniform component read without an offset.
    fn of(inst: &Inst) -> Option<Leaf> {
        let row = inst.imm[0] & 0x7F;
        if inst.op == Op::FConst {
            Some(Leaf::Const(inst.imm[0]))
        } else if inst.op != Op::Uniform {
            None
        } else if row < 96 {
            Some(Leaf::Uniform {
                row,
                comp: inst.imm[1] & 3,
            })
        } else {
            Some(Leaf::Const(1.0f32.to_bits()))
        }
    }
}

/// The per-variable facts of one function (indexed by variable number).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Facts {
    /// The value a variable holds, if its only definition reads a value fixed for the whole
    /// run — a constant, or a uniform component read without an offset (c0..c95 from its
    /// broadcast row, c96..c127 are 1.0) — or is a `Mov` of such a variable. Such a variable
    /// can be re-read at each use instead of holding a register
    /// ([`crate::regalloc::Loc::Remat`]).
    pub(crate) leaves: Vec<Option<Leaf>>,
    /// `Some((index, component))` where the variable is finite and non-zero exactly when
    /// uniform component c`index`.`component` is ([`uniform_def`]).
    pub(crate) uniforms: Vec<Option<(u32, u32)>>,
    /// Whether the variable is batch-invariant ([`crate::opt::batch_invariant`]).
    pub(crate) invariant: Vec<bool>,
    /// Whether its definition is computed once per run, before the batch loop, into a spill
    /// slot of its own: a batch-invariant value computed by an operation (not a constant or
    /// uniform read: those cost one load wherever they are) whose operands are each hoisted or
    /// a leaf (the prologue reads those where they are kept), the first [`MAX_HOISTED`] of them
    /// in reverse post-order. A kernel's prologue emits those definitions in that order (each
    /// one's operands are defined before it) and the batch loop skips them.
    pub(crate) hoisted: Vec<bool>,
}

impl Facts {
    /// The facts of `func`.
    pub(crate) fn of(func: &Function) -> Facts {
        let n = func.vars.len();
        let mut count = vec![0u32; n];
        for inst in func.blocks.iter().flat_map(|b| &b.insts) {
            if let Some(d) = inst.dst {
                count[d.0 as usize] += 1;
            }
        }
        let mut facts = Facts {
            leaves: vec![None; n],
            uniforms: vec![None; n],
            invariant: vec![false; n],
            hoisted: vec![false; n],
        };
        let mut hoisted = 0;
        for b in reverse_post_order(func) {
            for inst in &func.blocks[b.0 as usize].insts {
                let Some(d) = inst.dst else { continue };
                let i = d.0 as usize;
                if count[i] != 1 {
                    continue;
                }
                let leaf = if inst.op == Op::Mov {
                    facts.leaves[inst.args[0].0 as usize]
                } else {
                    Leaf::of(inst)
                };
                facts.leaves[i] = leaf;
                facts.uniforms[i] = uniform_def(inst, &facts.uniforms);
                let invariant = invariant_def(inst, &facts.invariant);
                facts.invariant[i] = invariant;
                // Hoisting: the cheap tests first (most definitions are not batch-invariant).
                if !invariant || leaf.is_some() || hoisted == MAX_HOISTED {
                    continue;
                }
                let read = matches!(
                    inst.op,
                    Op::FConst | Op::Uniform | Op::IConst | Op::MaskConst
                );
                let ready = inst
                    .uses()
                    .iter()
                    .all(|u| facts.hoisted[u.0 as usize] || facts.leaves[u.0 as usize].is_some());
                if !read && ready {
                    facts.hoisted[i] = true;
                    hoisted += 1;
                }
            }
        }
        facts
    }
}
