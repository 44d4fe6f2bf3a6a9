//! Run-time specialization of the PICA multiply: `pmul(u, x)` equals the plain IEEE product
//! `u * x` whenever `u` is finite and non-zero (the product can then only be NaN if `x` is NaN,
//! and the PICA rule keeps that NaN). A uniform's value is fixed for a whole run, so a kernel
//! compiled for "these uniform components are finite and non-zero" is exact for every run whose
//! uniforms satisfy it — a measured optimization, never a semantic switch.

use crate::ir::{Function, Inst, Op, Var, Verified};

/// The batch-uniform components (`Uniform` ops of c0..c95: (index, component)) that feed a
/// `PMul`, in a fixed order: the bits of a specialization key.
pub fn pmul_uniform_operands(func: &Verified) -> Vec<(u32, u32)> {
    let defs = &func.facts().uniforms;
    let mut set = ComponentSet::default();
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if inst.op == Op::PMul {
            for v in [inst.args[0], inst.args[1]] {
                if let Some(&Some((index, comp))) = defs.get(v.0 as usize) {
                    set.insert(index, comp);
                }
            }
        }
    }
    set.iter().collect()
}

/// A set of the batch-uniform components c0..c95 (bit `index * 4 + comp`): its members come
/// out sorted and once each, with no sort.
#[derive(Default)]
pub struct ComponentSet([u64; 96 * 4 / 64]);

impl ComponentSet {
    /// Adds component `comp` (below 4) of uniform `index` (below 96; others are ignored).
    pub fn insert(&mut self, index: u32, comp: u32) {
        let bit = (index * 4 + (comp & 3)) as usize;
        if let Some(word) = self.0.get_mut(bit / 64) {
            *word |= 1 << (bit % 64);
        }
    }

    /// The members as (index, component), in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = w as u32 * 64 + rest.trailing_zeros();
                    rest &= rest - 1;
                    (bit / 4, bit % 4)
                })
            })
        })
    }
}

/// A copy of `func` where every `PMul` with an operand that is a uniform component for which
/// `finite_nonzero` holds becomes a plain `Mul`. Returns the copy and how many were rewritten.
pub fn specialize_pmul(
    func: &Verified,
    finite_nonzero: &dyn Fn(u32, u32) -> bool,
) -> (Verified, usize) {
    let defs = &func.facts().uniforms;
    let safe = |v: Var| defs[v.0 as usize].is_some_and(|(c, comp)| finite_nonzero(c, comp));
    func.map_pmul(&|inst| safe(inst.args[0]) || safe(inst.args[1]))
}

/// Every `PMul` of a value by itself becomes a plain `Mul`: `x * x` is NaN only if `x` is (0 and
/// ±inf square to 0 and +inf), so the PICA rule never applies. Returns how many were rewritten.
pub fn square_pmul(func: &mut Function) -> usize {
    let mut rewritten = 0;
    for inst in func.blocks.iter_mut().flat_map(|b| &mut b.insts) {
        if inst.op == Op::PMul && inst.args[0] == inst.args[1] {
            inst.op = Op::Mul;
            rewritten += 1;
        }
    }
    rewritten
}

/// What the single definition `inst` makes of its variable, given what is known of the
/// variables defined before it (`defs`, indexed by variable): `Some((index, component))` if it
/// is a `Uniform` op of c0..c95, or a `Mov`, `Neg` or `Abs` of such a variable (a source
/// negation or `-c` hoisted out of the loop): the variable is finite and non-zero exactly when
/// that uniform component is.
pub(crate) fn uniform_def(inst: &Inst, defs: &[Option<(u32, u32)>]) -> Option<(u32, u32)> {
    match inst.op {
        Op::Uniform if (inst.imm[0] & 0x7F) < 96 => Some((inst.imm[0] & 0x7F, inst.imm[1] & 3)),
        Op::Mov | Op::Neg | Op::Abs => defs[inst.args[0].0 as usize],
        // Every other operation (and a uniform index out of range) gives a value that
        // is not a uniform component: listed, so a new operation is decided here.
        Op::Uniform
        | Op::FConst
        | Op::UniformAl
        | Op::UniformIdx
        | Op::Const
        | Op::ConstIdx
        | Op::Input
        | Op::Output
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
        | Op::QuadDiff
        | Op::Cmp
        | Op::Select
        | Op::MaskConst
        | Op::MaskAnd
        | Op::MaskOr
        | Op::MaskNot
        | Op::MaskMov
        | Op::FtoiSat
        | Op::IMov
        | Op::IConst
        | Op::IAdd
        | Op::IEq
        | Op::ISelect
        | Op::ILt
        | Op::LaneMin
        | Op::MaskAndNot
        | Op::IntUniform
        | Op::BoolMask
        | Op::BudgetLanes
        | Op::UniformLead
        | Op::Retire
        | Op::LoopPush
        | Op::AlInc
        | Op::AlRestore
        | Op::Budget
        | Op::EmitSlot
        | Op::EmitTri => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Builder, Op, Terminator};

    #[test]
    fn squares_are_plain_multiplies() {
        let mut b = Builder::new();
        let x = b.inst(Op::Input, &[], [0, 0]);
        let y = b.inst(Op::Input, &[], [0, 1]);
        let p = b.binary(Op::PMul, x, x);
        let q = b.binary(Op::PMul, x, y);
        let s = b.binary(Op::Add, p, q);
        b.effect(Op::Output, &[s], [0, 0]);
        b.terminate(Terminator::Exit);
        let mut f = b.finish();
        assert_eq!(square_pmul(&mut f), 1);
        let ops: Vec<Op> = f.blocks[0].insts.iter().map(|i| i.op).collect();
        assert_eq!(ops[2], Op::Mul);
        assert_eq!(ops[3], Op::PMul);
    }

    #[test]
    fn only_pmuls_fed_by_safe_uniforms_become_plain() {
        let mut b = Builder::new();
        let x = b.inst(Op::Input, &[], [0, 0]);
        let u0 = b.inst(Op::Uniform, &[], [3, 1]);
        let u1 = b.inst(Op::Uniform, &[], [4, 2]);
        let p0 = b.binary(Op::PMul, u0, x);
        let p1 = b.binary(Op::PMul, x, u1);
        let p2 = b.binary(Op::PMul, x, x);
        let s = b.binary(Op::Add, p0, p1);
        let s = b.binary(Op::Add, s, p2);
        b.effect(Op::Output, &[s], [0, 0]);
        b.terminate(Terminator::Exit);
        let f = Verified::new(b.finish()).unwrap();
        assert_eq!(pmul_uniform_operands(&f), vec![(3, 1), (4, 2)]);
        let (g, n) = specialize_pmul(&f, &|c, _| c == 3);
        assert_eq!(n, 1);
        let ops: Vec<Op> = g.blocks[0].insts.iter().map(|i| i.op).collect();
        assert_eq!(ops[3], Op::Mul);
        assert_eq!(ops[4], Op::PMul);
        assert_eq!(ops[5], Op::PMul);
        g.verify().unwrap();
    }

    #[test]
    fn negated_and_copied_uniforms_are_safe_as_the_uniform_is() {
        let mut b = Builder::new();
        let x = b.inst(Op::Input, &[], [0, 0]);
        let u = b.inst(Op::Uniform, &[], [5, 2]);
        let n = b.unary(Op::Neg, u);
        let m = b.unary(Op::Mov, n);
        let a = b.unary(Op::Abs, u);
        let w = b.inst(Op::Uniform, &[], [6, 0]);
        let nw = b.unary(Op::Neg, w);
        let p0 = b.binary(Op::PMul, n, x);
        let p1 = b.binary(Op::PMul, x, m);
        let p2 = b.binary(Op::PMul, a, x);
        let p3 = b.binary(Op::PMul, x, nw);
        let s = b.binary(Op::Add, p0, p1);
        let s = b.binary(Op::Add, s, p2);
        let s = b.binary(Op::Add, s, p3);
        b.effect(Op::Output, &[s], [0, 0]);
        b.terminate(Terminator::Exit);
        let f = Verified::new(b.finish()).unwrap();
        assert_eq!(pmul_uniform_operands(&f), vec![(5, 2), (6, 0)]);
        let (g, rewritten) = specialize_pmul(&f, &|c, comp| (c, comp) == (5, 2));
        assert_eq!(rewritten, 3);
        let ops: Vec<Op> = g.blocks[0].insts.iter().map(|i| i.op).collect();
        assert_eq!(&ops[7..11], &[Op::Mul, Op::Mul, Op::Mul, Op::PMul]);
        g.verify().unwrap();
    }
}
