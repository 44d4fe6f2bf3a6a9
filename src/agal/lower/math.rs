//! The arithmetic opcodes in IR, one arm per opcode, each the IR form of its rule in
//! [`crate::agal::interp::math`]:
//!
//! - plain IEEE `fadd`/`fmul`/`fdiv` (never PICA's `pmul`); `sub` is `a + (−b)` (IEEE defines
//!   subtraction so); `rcp` is `1 / x` (`rcp`), `min`/`max` the IR's `a < b ? a : b` forms;
//! - `sqt` = `sqrt(|x|)`, `rsq` = `rsq(|x|)` (`1 / sqrt`, two roundings), `log` = `lg2(|x|)`,
//!   `exp` = `ex2` — the IR's EX2/LG2 are the project's algorithms, as `interp::math` uses;
//!   `sin`, `cos`, `pow` are the IR's ops of the same names (`interp::math`'s f64 algorithms);
//! - `frc` = `x + (−floor(x))`, `abs`/`neg` sign-bit operations, `sat` = `min(max(x, 0), 1)`,
//!   `sgn` and the set-if compares as compare-and-select of 1.0/0.0;
//! - `dp3`/`dp4` and matrix rows: `((+0 + a0·b0) + a1·b1) + …`;
//! - `nrm`: `d = dot3(v, v)`, `f = d == 0 ? f32::MAX : rsq(d)`, `v_i · f`;
//! - `crs`: `a.y·b.z − a.z·b.y`, … (two products and a subtraction each);
//! - `ddx`/`ddy`: the IR's quad difference (right − left, bottom − top) per component.

use picajit_codegen::ir::{CmpKind, Op, Var};

use super::{Lowering, Unsupported};
use crate::agal::opcode::Opcode;
use crate::agal::program::{Instruction, Src};

type Comps = [Option<Var>; 4];

impl Lowering {
    /// The values of the components of `i`'s result that `mask` writes (bit c = component c).
    pub(super) fn arith(&mut self, i: &Instruction, mask: u8) -> Result<Comps, Unsupported> {
        let missing = || Unsupported::Internal(format!("`{}` lacks an operand", i.op.mnemonic()));
        let s1 = i.src1.ok_or_else(missing)?;
        let s2 = i.src2;
        let s2 = || s2.ok_or_else(missing);
        let wanted = |c: usize| mask >> c & 1 != 0;
        let mut out: Comps = [None; 4];
        match i.op {
            Opcode::Mov => self.each(&mut out, mask, |l, c| l.read(&s1, c)),
            Opcode::Add => self.binary(&mut out, mask, Op::Add, &s1, &s2()?),
            Opcode::Mul => self.binary(&mut out, mask, Op::Mul, &s1, &s2()?),
            Opcode::Div => self.binary(&mut out, mask, Op::Div, &s1, &s2()?),
            Opcode::Min => self.binary(&mut out, mask, Op::Min, &s1, &s2()?),
            Opcode::Max => self.binary(&mut out, mask, Op::Max, &s1, &s2()?),
            Opcode::Sub => {
                let s2 = s2()?;
                self.each(&mut out, mask, |l, c| {
                    let (a, b) = (l.read(&s1, c), l.read(&s2, c));
                    let nb = l.b.unary(Op::Neg, b);
                    l.b.binary(Op::Add, a, nb)
                });
            }
            Opcode::Rcp => self.unary(&mut out, mask, &[Op::Rcp], &s1),
            Opcode::Sqt => self.unary(&mut out, mask, &[Op::Abs, Op::Sqrt], &s1),
            Opcode::Rsq => self.unary(&mut out, mask, &[Op::Abs, Op::Rsq], &s1),
            Opcode::Log => self.unary(&mut out, mask, &[Op::Abs, Op::Lg2], &s1),
            Opcode::Exp => self.unary(&mut out, mask, &[Op::Ex2], &s1),
            Opcode::Sin => self.unary(&mut out, mask, &[Op::Sin], &s1),
            Opcode::Cos => self.unary(&mut out, mask, &[Op::Cos], &s1),
            Opcode::Pow => self.binary(&mut out, mask, Op::Pow, &s1, &s2()?),
            Opcode::Abs => self.unary(&mut out, mask, &[Op::Abs], &s1),
            Opcode::Neg => self.unary(&mut out, mask, &[Op::Neg], &s1),
            Opcode::Frc => self.each(&mut out, mask, |l, c| {
                let x = l.read(&s1, c);
                let f = l.b.unary(Op::Floor, x);
                let nf = l.b.unary(Op::Neg, f);
                l.b.binary(Op::Add, x, nf)
            }),
            Opcode::Sat => self.each(&mut out, mask, |l, c| {
                let x = l.read(&s1, c);
                let zero = l.zero();
                let one = l.b.fconst(1.0);
                let m = l.b.binary(Op::Max, x, zero);
                l.b.binary(Op::Min, m, one)
            }),
            Opcode::Sgn => self.each(&mut out, mask, |l, c| {
                let x = l.read(&s1, c);
                let zero = l.zero();
                let (one, minus) = (l.b.fconst(1.0), l.b.fconst(-1.0));
                let gt = l.b.cmp(CmpKind::Gt, x, zero);
                let lt = l.b.cmp(CmpKind::Lt, x, zero);
                let low = l.b.select(lt, minus, zero);
                l.b.select(gt, one, low)
            }),
            Opcode::Sge => self.set_if(&mut out, mask, CmpKind::Ge, &s1, &s2()?),
            Opcode::Slt => self.set_if(&mut out, mask, CmpKind::Lt, &s1, &s2()?),
            Opcode::Seq => self.set_if(&mut out, mask, CmpKind::Eq, &s1, &s2()?),
            Opcode::Sne => self.set_if(&mut out, mask, CmpKind::Ne, &s1, &s2()?),
            Opcode::Dp3 | Opcode::Dp4 => {
                let n = if i.op == Opcode::Dp3 { 3 } else { 4 };
                let s2 = s2()?;
                let a: Vec<Var> = (0..n).map(|c| self.read(&s1, c)).collect();
                let b: Vec<Var> = (0..n).map(|c| self.read(&s2, c)).collect();
                let d = self.dot(&a, &b);
                for (c, o) in out.iter_mut().enumerate() {
                    if wanted(c) {
                        *o = Some(d);
                    }
                }
            }
            Opcode::M33 | Opcode::M34 | Opcode::M44 => {
                let (rows, width) = i.op.matrix().ok_or_else(missing)?;
                let s2 = s2()?;
                let a: Vec<Var> = (0..width).map(|c| self.read(&s1, c)).collect();
                for row in 0..rows {
                    let c = usize::from(row);
                    if !wanted(c) {
                        continue;
                    }
                    let r: Vec<Var> = (0..width).map(|k| self.fetch(&s2, row, k)).collect();
                    out[c] = Some(self.dot(&a, &r));
                }
            }
            Opcode::Nrm => {
                let v: Vec<Var> = (0..3).map(|c| self.read(&s1, c)).collect();
                let d = self.dot(&v, &v);
                let zero = self.zero();
                let is_zero = self.b.cmp(CmpKind::Eq, d, zero);
                let max = self.b.fconst(f32::MAX);
                let r = self.b.unary(Op::Rsq, d);
                let f = self.b.select(is_zero, max, r);
                for c in 0..3 {
                    if wanted(c) {
                        out[c] = Some(self.b.binary(Op::Mul, v[c], f));
                    }
                }
            }
            Opcode::Crs => {
                let s2 = s2()?;
                let a: Vec<Var> = (0..3).map(|c| self.read(&s1, c)).collect();
                let b: Vec<Var> = (0..3).map(|c| self.read(&s2, c)).collect();
                // Component c: a[j]·b[k] − a[k]·b[j] with (j, k) = (y, z), (z, x), (x, y).
                for (c, (j, k)) in [(1, 2), (2, 0), (0, 1)].into_iter().enumerate() {
                    if wanted(c) {
                        let p = self.b.binary(Op::Mul, a[j], b[k]);
                        let q = self.b.binary(Op::Mul, a[k], b[j]);
                        let nq = self.b.unary(Op::Neg, q);
                        out[c] = Some(self.b.binary(Op::Add, p, nq));
                    }
                }
            }
            Opcode::Ddx | Opcode::Ddy => {
                let axis = u32::from(i.op == Opcode::Ddy);
                self.each(&mut out, mask, |l, c| {
                    let x = l.read(&s1, c);
                    l.b.inst(Op::QuadDiff, &[x], [axis, 0])
                });
            }
            Opcode::Tex
            | Opcode::Tld
            | Opcode::Ted
            | Opcode::Kil
            | Opcode::Ife
            | Opcode::Ine
            | Opcode::Ifg
            | Opcode::Ifl
            | Opcode::Els
            | Opcode::Eif => return Err(Unsupported::Opcode(i.op)),
        }
        Ok(out)
    }

    /// `f(c)` for every component `c` in `mask`.
    fn each(&mut self, out: &mut Comps, mask: u8, mut f: impl FnMut(&mut Lowering, usize) -> Var) {
        for (c, o) in out.iter_mut().enumerate() {
            if mask >> c & 1 != 0 {
                *o = Some(f(self, c));
            }
        }
    }

    fn binary(&mut self, out: &mut Comps, mask: u8, op: Op, s1: &Src, s2: &Src) {
        self.each(out, mask, |l, c| {
            let (a, b) = (l.read(s1, c), l.read(s2, c));
            l.b.binary(op, a, b)
        });
    }

    /// The chain of unary `ops` (first applied first) on each component.
    fn unary(&mut self, out: &mut Comps, mask: u8, ops: &[Op], s1: &Src) {
        self.each(out, mask, |l, c| {
            let mut x = l.read(s1, c);
            for &op in ops {
                x = l.b.unary(op, x);
            }
            x
        });
    }

    fn set_if(&mut self, out: &mut Comps, mask: u8, kind: CmpKind, s1: &Src, s2: &Src) {
        self.each(out, mask, |l, c| {
            let (a, b) = (l.read(s1, c), l.read(s2, c));
            let m = l.b.cmp(kind, a, b);
            let one = l.b.fconst(1.0);
            let zero = l.zero();
            l.b.select(m, one, zero)
        });
    }

    /// `((+0 + a0·b0) + a1·b1) + …` over the shorter of the two.
    fn dot(&mut self, a: &[Var], b: &[Var]) -> Var {
        let mut sum = self.zero();
        for (&x, &y) in a.iter().zip(b) {
            let p = self.b.binary(Op::Mul, x, y);
            sum = self.b.binary(Op::Add, sum, p);
        }
        sum
    }
}
