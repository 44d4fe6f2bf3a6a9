//! ALU lowering: one PICA arithmetic instruction → IR instructions, per destination component.
//!
//! - Swizzle and negation are folded into variable selection: component `i` of source `n` is
//!   the variable of register component `select[i]`, passed through `Neg` if the negate bit is
//!   set. Each (source, component) is fetched once per instruction.
//! - Relative addressing applies only to the format's wide operand and only when it is a float
//!   uniform: IDX 1/2 → `UniformIdx` with the a0.x / a0.y variable, IDX 3 → `UniformAl` (or,
//!   where aL is a per-lane variable, `UniformIdx` with it).
//! - Every source is read before any destination is written (results go to fresh variables,
//!   then to the register); a local peephole then lets a result's defining instruction write
//!   the register directly when nothing in between reads or writes it. Where the function is
//!   one straight block (`Regs::forward`), a write instead makes the result the register's
//!   value: no copy at all, and every variable is written once.
//! - Where the function is one straight block (`Regs::forward`), every pure instruction goes
//!   through the builder's hash-consing table (`super::cons`): a repeated one names the earlier
//!   result and is not emitted, so CSE has nothing left to find. Elsewhere, an input or directly
//!   addressed uniform component (or a constant) an earlier instruction of the same block read
//!   (made) into a fresh variable is taken from that variable (`Leaves`) instead of being read
//!   again: the passes would merge the two anyway.
//! - Only enabled components that some later instruction reads are computed (`super::live`);
//!   DP3/DP4/DPH, EX2, LG2, RCP and RSQ compute their scalar once and copy it to every such
//!   component.
//! - Multiplication is always `PMul`; DP sums start from `+0.0` and add strictly left to right.
//! - Under a lane predicate (an if-converted arm, `ifconv`), every write keeps the old value in
//!   the lanes outside the predicate: `Select` for r and tracked outputs, a mask blend for cc,
//!   `ISelect` for a0.

use picajit_codegen::ir::{BlockId, Builder, CmpKind, Inst, Op, Ty, Var};

use crate::isa::{
    AddrIdx, AluOperands, CmpOp, DstKind, Fmt4, Instruction, Kind, Math, OpDesc, SrcKind, SrcMod,
};

use super::cons::Values;
use super::live::Loads;
use super::regs::Regs;

/// What an instruction does outside control flow.
#[derive(Clone, Copy, Debug)]
pub(super) enum Step {
    /// Arithmetic, lowered by [`lower`].
    Alu(Math, AluOperands),
    /// A geometry shader's EMIT.
    Emit,
    /// A geometry shader's SETEMIT.
    SetEmit(Fmt4),
    /// Nothing outside control flow (flow instructions, NOP, END, undefined opcodes).
    Other,
}

/// The step of `instr` (exhaustive over every opcode).
pub(super) fn step(instr: &Instruction) -> Step {
    step_inline(instr)
}

/// [`step`], always inlined: for the liveness walk and the builder, which take the step of
/// every state (out of line, the call and the step returned through memory cost about 20
/// host instructions a state in each).
#[inline(always)]
pub(super) fn step_inline(instr: &Instruction) -> Step {
    match instr.kind() {
        Kind::Alu(math, ops) => Step::Alu(math, ops),
        Kind::Emit => Step::Emit,
        Kind::Setemit(f) => Step::SetEmit(f),
        Kind::Nop | Kind::Undefined(_) | Kind::Control(_) => Step::Other,
    }
}

/// The destination components [`lower`] writes when those in `live` (bit `i`: component `i`)
/// are the ones read later: the descriptor's enabled components among them.
pub(super) fn written(desc: OpDesc, live: u8) -> u8 {
    // The descriptor's mask has x in bit 3: reverse it.
    let m = desc.mask();
    let enabled = (m >> 3 & 1) | (m >> 1 & 2) | (m << 1 & 4) | (m << 3 & 8);
    enabled & live
}

/// Per source (math order), the components after swizzle that [`lower`] reads when it writes
/// the destination components `dst` (bit `i`: component `i`; see [`written`]). MOVA, CMP and
/// LITP also write a0 or cc, which are always computed.
pub(super) fn reads(math: Math, desc: OpDesc, dst: u8) -> [u8; 3] {
    let any = if dst != 0 { 0xF } else { 0 };
    match math {
        Math::Add | Math::Mul | Math::Max | Math::Min | Math::Sge | Math::Slt => [dst, dst, 0],
        Math::Flr | Math::Mov => [dst, 0, 0],
        Math::Mad => [dst, dst, dst],
        Math::Dp3 => [any & 0b0111, any & 0b0111, 0],
        Math::Dp4 => [any, any, 0],
        Math::Dph => [any & 0b0111, any, 0],
        Math::Ex2 | Math::Lg2 | Math::Rcp | Math::Rsq => [any & 1, 0, 0],
        // x is the constant 1.0, y the product, z from the first source, w from the second.
        Math::Dst => [dst & 0b0110, dst & 0b1010, 0],
        // cc.x and cc.y test x and w; the results of x, y and w come from the same component.
        Math::Litp => [0b1001 | (dst & 0b1011), 0, 0],
        Math::Mova => [
            u8::from(desc.writes(0)) | u8::from(desc.writes(1)) << 1,
            0,
            0,
        ],
        Math::Cmp(..) => [0b0011, 0b0011, 0],
    }
}

fn cmp_kind(op: CmpOp) -> CmpKind {
    match op {
        CmpOp::Eq => CmpKind::Eq,
        CmpOp::Ne => CmpKind::Ne,
        CmpOp::Lt => CmpKind::Lt,
        CmpOp::Le => CmpKind::Le,
        CmpOp::Gt => CmpKind::Gt,
        CmpOp::Ge => CmpKind::Ge,
        CmpOp::True6 | CmpOp::True7 => CmpKind::True,
    }
}

/// Collects the IR of one PICA instruction before it goes into the block.
struct Emit<'a> {
    b: &'a mut Builder,
    regs: &'a mut Regs,
    ops: &'a AluOperands,
    /// Per source: negation and swizzle, decoded once.
    mods: [SrcMod; 3],
    /// The lists kept from one instruction to the next: the instructions, readers, copies and
    /// reads of this one ([`Scratch`]).
    s: &'a mut Scratch,
    /// Variables created for this instruction, numbered consecutively from the first (each is
    /// written exactly once, in `insts`): the first, and how many.
    fresh: (Var, u32),
    /// Lanes the instruction runs in (`None`: all).
    pred: Option<Var>,
    /// Per source and component: the read before swizzle, and after swizzle and negation
    /// ([`UNSET`]: not fetched yet).
    raw: [[Var; 4]; 3],
    modified: [[Var; 4]; 3],
    /// Per source and register component: its negation, made once for every destination
    /// component that selects it ([`UNSET`]: none yet). Only where the instruction may reuse
    /// values (`reuse`): a negation that reaches a register copy unchanged folds into the
    /// register write, once per copy (`fold_copies`).
    negated: [[Var; 4]; 3],
    /// The constants emitted so far (bits, variable); an instruction uses at most four.
    consts: [(u32, Var); 4],
    nconsts: usize,
    /// Lowering a component no later instruction reads: only its source reads and constants
    /// are emitted (see [`lower`]).
    dead: bool,
    /// The inputs and uniforms some live instruction reads.
    loads: &'a Loads,
    /// Whether this instruction may reuse earlier instructions' reads (`Scratch::leaves`).
    reuse: bool,
    /// How many reads this instruction made (`Scratch::new_leaves`).
    nleaves: usize,
}

/// A variable standing for the value of an instruction not emitted (never written).
const NOT_EMITTED: Var = Var(u32::MAX);

/// A cache entry of [`Emit`] not filled yet.
const UNSET: Var = Var(u32::MAX - 1);

impl Emit<'_> {
    #[inline]
    fn fresh(&mut self, ty: Ty) -> Var {
        // Only this creates variables while the instruction is lowered: they are consecutive.
        let v = self.b.var(ty);
        if self.fresh.1 == 0 {
            self.fresh.0 = v;
        }
        self.fresh.1 += 1;
        if !self.s.values.on {
            self.s.readers.push(0);
        }
        v
    }

    /// The number of `v` among the fresh variables, if it is one.
    #[inline]
    fn fresh_index(&self, v: Var) -> Option<usize> {
        let i = v.0.wrapping_sub(self.fresh.0 .0);
        (i < self.fresh.1).then_some(i as usize)
    }

    #[inline]
    fn op(&mut self, op: Op, args: &[Var], imm: [u32; 2]) -> Var {
        if self.dead && !is_leaf(op) {
            return NOT_EMITTED;
        }
        if self.s.values.on && op != Op::UniformAl {
            return self.consed(op, args, imm);
        }
        let dst = self.fresh(op.result().unwrap_or(Ty::F32));
        self.push(op, Some(dst), args, imm);
        dst
    }

    /// [`Emit::op`] where the builder hash-conses ([`Values`]): the variable of the same
    /// instruction emitted before, if any. (`UniformAl` reads aL, which loop effects change.)
    #[inline(never)]
    fn consed(&mut self, op: Op, args: &[Var], imm: [u32; 2]) -> Var {
        let next = Var(self.b.vars_len() as u32);
        let args = padded(args);
        if let Some(v) = self.s.values.find_or_record(op, args, imm, next) {
            self.s.reused |= self.fresh_index(v).is_none();
            return v;
        }
        self.emitted(op, args, imm)
    }

    /// `op` of `args` and `imm` into a new fresh variable, where the builder hash-conses.
    #[inline(always)]
    fn emitted(&mut self, op: Op, args: [Var; 3], imm: [u32; 2]) -> Var {
        // No readers counted: with forwarded registers and outputs there is no copy to fold.
        let dst = self.b.var(op.result().unwrap_or(Ty::F32));
        if self.fresh.1 == 0 {
            self.fresh.0 = dst;
        }
        self.fresh.1 += 1;
        self.s.insts.push(Inst {
            op,
            dst: Some(dst),
            args,
            imm,
        });
        dst
    }

    #[inline]
    fn op_to(&mut self, op: Op, dst: Var, args: &[Var], imm: [u32; 2]) {
        if matches!(op, Op::Mov | Op::IMov | Op::MaskMov) && self.fresh_index(dst).is_none() {
            self.s.copies.push(self.s.insts.len() as u32);
        }
        self.push(op, Some(dst), args, imm);
    }

    #[inline]
    fn effect(&mut self, op: Op, args: &[Var], imm: [u32; 2]) {
        self.push(op, None, args, imm);
    }

    /// Appends an instruction, counting it as a reader of each fresh variable it names
    /// (unless the builder hash-conses: there no copy is folded, [`Emit::fold_copies`]).
    #[inline]
    fn push(&mut self, op: Op, dst: Option<Var>, args: &[Var], imm: [u32; 2]) {
        let a = padded(args);
        let counted = if self.s.values.on { &[][..] } else { args };
        for (j, &v) in counted.iter().enumerate() {
            if let Some(f) = self.fresh_index(v) {
                if !args[..j].contains(&v) {
                    self.s.readers[f] += 1;
                }
            }
        }
        self.s.insts.push(Inst {
            op,
            dst,
            args: a,
            imm,
        });
    }

    fn fconst(&mut self, value: f32) -> Var {
        let bits = value.to_bits();
        let known = &self.consts[..self.nconsts];
        if let Some(&(_, v)) = known.iter().find(|(b, _)| *b == bits) {
            return v;
        }
        let earlier = self.s.leaves.consts[..self.s.leaves.nconsts]
            .iter()
            .find(|(b, _)| *b == bits && self.reuse);
        let v = match earlier {
            Some(&(_, v)) => {
                self.s.reused = true;
                v
            }
            None => self.op(Op::FConst, &[], [bits, 0]),
        };
        if self.nconsts < self.consts.len() {
            self.consts[self.nconsts] = (bits, v);
            self.nconsts += 1;
        }
        v
    }

    /// Component `comp` of source `n` before swizzle and negation.
    #[inline]
    fn raw(&mut self, n: usize, comp: usize) -> Var {
        let cached = self.raw[n][comp];
        if cached != UNSET {
            return cached;
        }
        let c = comp as u32;
        if self.dead && !self.loads.has(self.ops, n, comp) {
            // No live instruction reads this input or uniform: the read would only be removed.
            return NOT_EMITTED;
        }
        let leaf = match self.s.values.on {
            // Where the builder hash-conses, `op` finds earlier reads itself; the function's
            // earlier read is taken here without the call.
            true => {
                let key = self.s.leaves.key(self.ops, n, comp);
                if let Some(v) = key.and_then(|k| self.s.values.read(k)) {
                    self.s.reused |= self.fresh_index(v).is_none();
                    self.raw[n][comp] = v;
                    return v;
                }
                None
            }
            false => self.s.leaves.key(self.ops, n, comp),
        };
        if let Some(k) = leaf.filter(|_| self.reuse) {
            let earlier = self.s.leaves.vars[k];
            if earlier != UNSET {
                self.s.reused = true;
                self.raw[n][comp] = earlier;
                return earlier;
            }
        }
        let v = match self.ops.src[n].kind() {
            SrcKind::Input(r) => self.op(Op::Input, &[], [u32::from(r), c]),
            SrcKind::Temp(r) => self.regs.r[r as usize][comp],
            SrcKind::Uniform(u) => {
                let idx = if n == self.ops.wide {
                    self.ops.idx
                } else {
                    AddrIdx::None
                };
                let u = u32::from(u);
                match idx {
                    AddrIdx::None => self.op(Op::Uniform, &[], [u, c]),
                    AddrIdx::A0x => self.op(Op::UniformIdx, &[self.regs.a0[0]], [u, c]),
                    AddrIdx::A0y => self.op(Op::UniformIdx, &[self.regs.a0[1]], [u, c]),
                    AddrIdx::AL => match self.regs.al {
                        Some(al) => self.op(Op::UniformIdx, &[al], [u, c]),
                        None => self.op(Op::UniformAl, &[], [u, c]),
                    },
                }
            }
        };
        self.raw[n][comp] = v;
        if let Some(k) = leaf {
            self.s.new_leaves[self.nleaves] = (k as u16, v);
            self.nleaves += 1;
        }
        v
    }

    /// Component `i` of source `n` after swizzle and negation.
    #[inline]
    fn src(&mut self, n: usize, i: usize) -> Var {
        let cached = self.modified[n][i];
        if cached != UNSET {
            return cached;
        }
        self.fetch(n, i)
    }

    /// [`Emit::src`] the first time: the read, then the negation.
    #[inline(never)]
    fn fetch(&mut self, n: usize, i: usize) -> Var {
        let m = self.mods[n];
        let comp = m.select[i] as usize & 3;
        let raw = self.raw(n, comp);
        if raw == NOT_EMITTED {
            return raw;
        }
        let v = if !m.negate {
            raw
        } else if self.reuse && self.negated[n][comp] != UNSET {
            // The same negation as another destination component's: common-subexpression
            // elimination would merge the two, so the function after the passes is the same.
            self.negated[n][comp]
        } else {
            let v = self.op(Op::Neg, &[raw], [0, 0]);
            self.negated[n][comp] = v;
            v
        };
        self.modified[n][i] = v;
        v
    }

    /// `((+0.0 + a0·b0) + a1·b1) + …` over `n` terms (DPH's fourth `a` term is 1.0), computed
    /// as `((a0·b0 + a1·b1) + …) + (aₙ₋₁·bₙ₋₁ + +0.0)`: the same value bit for bit, because
    /// `(+0.0 + x) + y = (x + y) + +0.0` and `(x + y) + +0.0 = x + (y + +0.0)` for all x, y
    /// under round-to-nearest (both sides differ from `x + y` only in the sign of a zero, and
    /// a sum is −0.0 only when both terms are). The seed then rides on the last term, which is
    /// often computed once per run (a uniform times the constant w of a position).
    ///
    /// No seed where some term is a square `pmul(x, x)` (the same variable twice, as in the
    /// squared length of a normalize): a sum is −0.0 only when every term is, and a square never
    /// is (±0 squares to +0, NaN stays NaN, everything else is positive), so the unseeded sum
    /// is never −0.0 and equals the seeded one, which differs from it only in the sign of a zero.
    fn dot(&mut self, n: usize, homogeneous: bool) -> Var {
        let mut sum = None;
        let mut square = false;
        for i in 0..n {
            let a = if homogeneous && i == 3 {
                self.fconst(1.0)
            } else {
                self.src(0, i)
            };
            let b = self.src(1, i);
            square |= a == b;
            let mut term = self.op(Op::PMul, &[a, b], [0, 0]);
            if i == n - 1 && !square {
                let zero = self.fconst(0.0);
                term = self.op(Op::Add, &[term, zero], [0, 0]);
            }
            sum = Some(match sum {
                None => term,
                Some(s) => self.op(Op::Add, &[s, term], [0, 0]),
            });
        }
        sum.unwrap_or_else(|| self.fconst(0.0))
    }

    fn binary(&mut self, op: Op, i: usize) -> Var {
        let a = self.src(0, i);
        let b = self.src(1, i);
        self.op(op, &[a, b], [0, 0])
    }

    fn set_if(&mut self, kind: CmpKind, i: usize) -> Var {
        let a = self.src(0, i);
        let b = self.src(1, i);
        let m = self.op(Op::Cmp, &[a, b], [kind as u32, 0]);
        let one = self.fconst(1.0);
        let zero = self.fconst(0.0);
        self.op(Op::Select, &[m, one, zero], [0, 0])
    }

    /// `Max(x, +0.0)`: `x > 0 ? x : +0.0` (NaN and −0 give +0.0), `float::litp_pos`.
    fn litp_pos(&mut self, i: usize) -> Var {
        let x = self.src(0, i);
        let zero = self.fconst(0.0);
        self.op(Op::Max, &[x, zero], [0, 0])
    }

    /// `Min(B, Max(−B, x))`, `float::litp_clamp` (NaN stays NaN).
    fn litp_clamp(&mut self, i: usize) -> Var {
        let x = self.src(0, i);
        let lo = self.fconst(-crate::float::LITP_BOUND);
        let hi = self.fconst(crate::float::LITP_BOUND);
        let low = self.op(Op::Max, &[lo, x], [0, 0]);
        self.op(Op::Min, &[hi, low], [0, 0])
    }

    /// Writes `value` to destination component `i` of the instruction.
    fn write(&mut self, i: usize, value: Var) {
        match self.ops.dst.kind() {
            DstKind::Output(o) => {
                let imm = [u32::from(o), i as u32];
                match (self.regs.o[o as usize][i], self.pred) {
                    (None, _) => self.effect(Op::Output, &[value], imm),
                    (Some(_), None) if self.regs.forward => {
                        self.regs.o[o as usize][i] = Some(value);
                        self.effect(Op::Output, &[value], imm);
                    }
                    (Some(var), None) => {
                        self.op_to(Op::Mov, var, &[value], [0, 0]);
                        self.effect(Op::Output, &[var], imm);
                    }
                    (Some(var), Some(p)) => {
                        self.op_to(Op::Select, var, &[p, value, var], [0, 0]);
                        self.effect(Op::Output, &[var], imm);
                    }
                }
            }
            DstKind::Temp(r) => {
                let reg = self.regs.r[r as usize][i];
                match self.pred {
                    None if self.regs.forward => self.regs.r[r as usize][i] = value,
                    None => self.op_to(Op::Mov, reg, &[value], [0, 0]),
                    Some(p) => self.op_to(Op::Select, reg, &[p, value, reg], [0, 0]),
                }
            }
        }
    }

    /// Writes the mask `value` to cc component `i`.
    fn write_cc(&mut self, i: usize, value: Var) {
        let cc = self.regs.cc[i];
        match self.pred {
            None if self.regs.forward => self.regs.cc[i] = value,
            None => self.op_to(Op::MaskMov, cc, &[value], [0, 0]),
            Some(p) => {
                let taken = self.op(Op::MaskAnd, &[p, value], [0, 0]);
                let not_p = self.op(Op::MaskNot, &[p], [0, 0]);
                let kept = self.op(Op::MaskAnd, &[not_p, cc], [0, 0]);
                self.op_to(Op::MaskOr, cc, &[taken, kept], [0, 0]);
            }
        }
    }

    /// Lets the instruction defining a fresh, once-used value write the register directly when
    /// nothing between it and the copy reads or writes that register. One pass over the copies
    /// in order: the readers of each fresh value were counted as the instructions went in (a
    /// fold removes the value's one reader and its write, so neither changes for the others),
    /// and a folded copy loses its destination until it is dropped at the end.
    fn fold_copies(&mut self) {
        let first = self.fresh.0 .0;
        let count = self.fresh.1;
        let s = &mut *self.s;
        // Hash-consing, every write is forwarded: no copies (and no readers counted).
        debug_assert!(!s.values.on || s.copies.is_empty());
        let mut folded = false;
        for &m in &s.copies {
            let m = m as usize;
            let copy = s.insts[m];
            let (value, Some(reg)) = (copy.args[0], copy.dst) else {
                continue;
            };
            let f = value.0.wrapping_sub(first);
            if f >= count {
                continue;
            }
            let f = f as usize;
            // A fresh variable is written once, by the instruction that created it; its
            // position is found by scanning back from the copy.
            if s.readers[f] != 1 {
                continue;
            }
            let Some(k) = s.insts[..m].iter().rposition(|i| i.dst == Some(value)) else {
                continue;
            };
            let clash = s.insts[k + 1..m]
                .iter()
                .any(|inst| inst.dst == Some(reg) || inst.uses().contains(&reg));
            if clash {
                continue;
            }
            s.insts[k].dst = Some(reg);
            s.insts[m].dst = None;
            // The value now lives in the register: no longer a fresh variable to reuse.
            s.readers[f] = u32::MAX;
            folded = true;
        }
        if folded {
            // Only a folded copy is an instruction with a result type and no destination.
            s.insts
                .retain(|i| i.dst.is_some() || i.op.result().is_none());
        }
    }
}

/// Lists one instruction's lowering uses, kept from one instruction to the next so that
/// lowering allocates nothing once they have grown.
#[derive(Debug)]
pub(super) struct Scratch {
    /// The instruction's IR, before it goes into the block.
    insts: Vec<Inst>,
    /// Per fresh variable: how many instructions read it (an instruction naming it twice
    /// counts once).
    readers: Vec<u32>,
    /// Positions in `insts` of the register copies (`Mov`, `IMov`, `MaskMov` into a variable
    /// that is not fresh): what [`Emit::fold_copies`] may fold.
    copies: Vec<u32>,
    /// Earlier instructions' reads in this block.
    leaves: Leaves,
    /// The reads this instruction made (entry of [`Leaves`], variable): at most one per source
    /// and component (the first `Emit::nleaves`).
    new_leaves: [(u16, Var); 12],
    /// The last instruction lowered reused a read or constant of an earlier one ([`Leaves`]),
    /// or (hash-consing) any value of an earlier one.
    reused: bool,
    /// The pure instructions of the function so far, where the builder hash-conses them.
    pub(super) values: Values,
}

impl Scratch {
    /// True if the last instruction lowered reused a read or constant of an earlier
    /// instruction of its block: its code then depends on that code, even where it names
    /// none of its variables (a dead component's read, left out).
    pub(super) fn reused(&self) -> bool {
        self.reused
    }
}

impl Scratch {
    /// Room for the IR of any instruction but the largest (so a small shader's build does not
    /// grow the lists step by step); `values`: the hash-consing table.
    pub(super) fn new(values: Values) -> Scratch {
        Scratch {
            insts: Vec::with_capacity(32),
            readers: Vec::with_capacity(32),
            copies: Vec::with_capacity(8),
            leaves: Leaves::default(),
            new_leaves: [(0, UNSET); 12],
            reused: false,
            values,
        }
    }
}

/// The input and directly addressed uniform components read so far in the current block, and
/// the constants made in it, by fresh variables still holding them: a later instruction of the block reads them from there
/// instead of reading again. Common-subexpression elimination would merge the repeated read
/// into the same value (the first read of the block, or what that one merges into), so the
/// function after the passes is the same; it is only built smaller.
///
/// An instruction whose sources can reach a register copy unchanged (MOV, DST, LITP) does not
/// reuse: there a fresh read folds into the register write (`fold_copies`), which CSE then
/// merges, while a reused variable would leave a copy behind.
#[derive(Debug)]
struct Leaves {
    /// The block the entries belong to.
    block: Option<BlockId>,
    /// Per input component (`4·v + c`), then per uniform component (`64 + 4·u + c`): the
    /// variable holding it ([`UNSET`]: none).
    vars: Vec<Var>,
    /// The entries set, to clear them when the block changes.
    set: Vec<u16>,
    /// The constants (bits, variable) the block's instructions made, at most four (the
    /// lowering uses four different ones).
    consts: [(u32, Var); 4],
    nconsts: usize,
}

impl Default for Leaves {
    fn default() -> Leaves {
        Leaves {
            block: None,
            vars: Vec::new(),
            set: Vec::new(),
            consts: [(0, UNSET); 4],
            nconsts: 0,
        }
    }
}

impl Leaves {
    /// Entries: 16 inputs and 96 uniforms, 4 components each.
    const LEN: usize = 4 * (16 + 96);

    /// Forgets the entries unless `block` is the block they belong to.
    fn enter(&mut self, block: BlockId) {
        if self.vars.len() != Self::LEN {
            self.vars = vec![UNSET; Self::LEN];
            self.set.clear();
            self.set.reserve(64);
        }
        if self.block != Some(block) {
            for &k in &self.set {
                self.vars[usize::from(k)] = UNSET;
            }
            self.set.clear();
            self.nconsts = 0;
            self.block = Some(block);
        }
    }

    /// The entry of component `comp` of source `n`, if it is an input or a directly
    /// addressed uniform.
    #[inline]
    fn key(&self, ops: &AluOperands, n: usize, comp: usize) -> Option<usize> {
        match ops.src[n].kind() {
            SrcKind::Input(v) => Some(4 * usize::from(v) + comp),
            SrcKind::Uniform(u) if n != ops.wide || ops.idx == AddrIdx::None => {
                Some(64 + 4 * usize::from(u) + comp)
            }
            SrcKind::Uniform(_) | SrcKind::Temp(_) => None,
        }
    }

    /// Records the reads `new` of one instruction whose results are still fresh variables
    /// (`readers` is `u32::MAX` for those folded into a register write).
    fn record(
        &mut self,
        new: &[(u16, Var)],
        consts: &[(u32, Var)],
        fresh: (Var, u32),
        readers: &[u32],
    ) {
        for &(bits, v) in consts {
            let f = v.0.wrapping_sub(fresh.0 .0) as usize;
            let known = self.consts[..self.nconsts].iter().any(|&(b, _)| b == bits);
            let held = readers.get(f).is_some_and(|&r| r != u32::MAX);
            if held && !known && self.nconsts < self.consts.len() {
                self.consts[self.nconsts] = (bits, v);
                self.nconsts += 1;
            }
        }
        for &(key, v) in new {
            let f = v.0.wrapping_sub(fresh.0 .0) as usize;
            let k = usize::from(key);
            if readers.get(f).is_some_and(|&r| r != u32::MAX) && self.vars[k] == UNSET {
                self.vars[k] = v;
                self.set.push(key);
            }
        }
    }
}

/// One ALU instruction as [`lower`] takes it: what it computes, its operands, the destination
/// components read later (bit `i`: component `i`) and the lane mask it runs under, if any.
#[derive(Clone, Copy)]
pub(super) struct Lowering<'a> {
    pub(super) math: Math,
    pub(super) ops: &'a AluOperands,
    pub(super) live: u8,
    pub(super) pred: Option<Var>,
}

/// Appends the IR of one ALU instruction to the builder's current block; with `pred`, only
/// the lanes where that mask is set change. Of the destination components only those in `live`
/// (bit `i`: component `i`) are computed and written: the others are overwritten before any
/// read. A dead component still emits its constants, negations and those of its input and
/// uniform reads that some live instruction also makes (`loads`): CSE then merges the later
/// reads into these, so the values are read where they were when every enabled component was
/// computed, and the code around them stays as it was.
pub(super) fn lower(
    b: &mut Builder,
    scratch: &mut Scratch,
    regs: &mut Regs,
    descs: &[u32],
    loads: &Loads,
    ins: Lowering<'_>,
) {
    scratch.reused = false;
    let Lowering {
        math,
        ops,
        live,
        pred,
    } = ins;
    let desc = OpDesc(descs[ops.desc as usize & 0x7F]);
    let dst = written(desc, live);
    let mut enabled = [0usize; 4];
    let mut count = 0;
    for i in (0..4).filter(|&i| desc.writes(i)) {
        enabled[count] = i;
        count += 1;
    }
    let enabled = &enabled[..count];
    let writes_only_dst = !matches!(math, Math::Litp | Math::Mova | Math::Cmp(..));
    if writes_only_dst && enabled.is_empty() {
        return;
    }
    scratch.insts.clear();
    scratch.readers.clear();
    scratch.copies.clear();
    // With forwarded registers no read folds into a register write (`Leaves`).
    let reuse = regs.forward || !matches!(math, Math::Mov | Math::Dst | Math::Litp);
    let mut e = Emit {
        b,
        regs,
        ops,
        mods: desc.srcs(),
        s: scratch,
        fresh: (Var(0), 0),
        pred,
        raw: [[UNSET; 4]; 3],
        modified: [[UNSET; 4]; 3],
        negated: [[UNSET; 4]; 3],
        consts: [(0, UNSET); 4],
        nconsts: 0,
        dead: false,
        loads,
        reuse,
        nleaves: 0,
    };
    if !e.s.values.on {
        e.s.leaves.enter(e.b.current());
    }
    // Per destination component: the value it gets (live enabled components only).
    let bcast = |v: Var| -> [Option<Var>; 4] {
        let mut out = [None; 4];
        for &i in enabled {
            if dst >> i & 1 != 0 {
                out[i] = Some(v);
            }
        }
        out
    };
    let once = |e: &mut Emit, f: &dyn Fn(&mut Emit) -> Var| {
        e.dead = dst == 0;
        let v = f(e);
        e.dead = false;
        v
    };
    let results = match math {
        Math::Add => per_comp(&mut e, enabled, dst, |e, i| e.binary(Op::Add, i)),
        Math::Mul => per_comp(&mut e, enabled, dst, |e, i| e.binary(Op::PMul, i)),
        Math::Max => per_comp(&mut e, enabled, dst, |e, i| e.binary(Op::Max, i)),
        Math::Min => per_comp(&mut e, enabled, dst, |e, i| e.binary(Op::Min, i)),
        Math::Sge => per_comp(&mut e, enabled, dst, |e, i| e.set_if(CmpKind::Ge, i)),
        Math::Slt => per_comp(&mut e, enabled, dst, |e, i| e.set_if(CmpKind::Lt, i)),
        Math::Flr => per_comp(&mut e, enabled, dst, |e, i| {
            let a = e.src(0, i);
            e.op(Op::Floor, &[a], [0, 0])
        }),
        Math::Mov => per_comp(&mut e, enabled, dst, |e, i| e.src(0, i)),
        Math::Mad => per_comp(&mut e, enabled, dst, |e, i| {
            let p = e.binary(Op::PMul, i);
            let c = e.src(2, i);
            e.op(Op::Add, &[p, c], [0, 0])
        }),
        Math::Dp3 => bcast(once(&mut e, &|e| e.dot(3, false))),
        Math::Dp4 => bcast(once(&mut e, &|e| e.dot(4, false))),
        Math::Dph => bcast(once(&mut e, &|e| e.dot(4, true))),
        Math::Ex2 => bcast(once(&mut e, &|e| unary0(e, Op::Ex2))),
        Math::Lg2 => bcast(once(&mut e, &|e| unary0(e, Op::Lg2))),
        Math::Rcp => bcast(once(&mut e, &|e| unary0(e, Op::Rcp))),
        Math::Rsq => bcast(once(&mut e, &|e| unary0(e, Op::Rsq))),
        Math::Dst => per_comp(&mut e, enabled, dst, |e, i| match i {
            0 => e.fconst(1.0),
            1 => e.binary(Op::PMul, 1),
            2 => e.src(0, 2),
            _ => e.src(1, 3),
        }),
        Math::Litp => {
            // cc is no ALU source: writing it before the results are computed is safe.
            let zero = e.fconst(0.0);
            for (i, comp) in [0, 3].into_iter().enumerate() {
                let a = e.src(0, comp);
                let m = e.op(Op::Cmp, &[a, zero], [CmpKind::Ge as u32, 0]);
                e.write_cc(i, m);
            }
            per_comp(&mut e, enabled, dst, |e, i| match i {
                0 | 3 => e.litp_pos(i),
                1 => e.litp_clamp(1),
                _ => e.fconst(0.0),
            })
        }
        Math::Mova => {
            // a0 can address the source, so both values are read before either is written.
            let mut moves = [None; 2];
            for (i, slot) in moves.iter_mut().enumerate() {
                if desc.writes(i) {
                    let a = e.src(0, i);
                    *slot = Some(e.op(Op::FtoiSat, &[a], [0, 0]));
                }
            }
            for (i, v) in moves.into_iter().enumerate() {
                let Some(v) = v else { continue };
                let a0 = e.regs.a0[i];
                match pred {
                    None if e.regs.forward => e.regs.a0[i] = v,
                    None => e.op_to(Op::IMov, a0, &[v], [0, 0]),
                    Some(p) => e.op_to(Op::ISelect, a0, &[p, v, a0], [0, 0]),
                }
            }
            [None; 4]
        }
        Math::Cmp(x, y) => {
            let mut masks = [Var(0); 2];
            for (i, op) in [x, y].into_iter().enumerate() {
                let a = e.src(0, i);
                let b = e.src(1, i);
                masks[i] = e.op(Op::Cmp, &[a, b], [cmp_kind(op) as u32, 0]);
            }
            for (i, m) in masks.into_iter().enumerate() {
                e.write_cc(i, m);
            }
            [None; 4]
        }
    };
    // A result that is itself a register variable this instruction overwrites is copied first,
    // so that every write sees the values from before the instruction. (Forwarded writes
    // overwrite no variable.)
    let mut results = results;
    for v in results.iter_mut().flatten() {
        let clobbered = match ops.dst.kind() {
            DstKind::Temp(r) => enabled
                .iter()
                .any(|&j| dst >> j & 1 != 0 && !e.regs.forward && e.regs.r[r as usize][j] == *v),
            DstKind::Output(_) => false,
        };
        if clobbered {
            *v = e.op(Op::Mov, &[*v], [0, 0]);
        }
    }
    for (i, v) in results.into_iter().enumerate() {
        if let Some(v) = v {
            e.write(i, v);
        }
    }
    e.fold_copies();
    let s = &mut *e.s;
    if !s.values.on {
        s.leaves.record(
            &s.new_leaves[..e.nleaves],
            &e.consts[..e.nconsts],
            e.fresh,
            &s.readers,
        );
    }
    e.b.extend_from_slice(&s.insts);
}

/// `f` of each enabled component, in order; the components not in `dst` are lowered dead.
fn per_comp(
    e: &mut Emit,
    enabled: &[usize],
    dst: u8,
    mut f: impl FnMut(&mut Emit, usize) -> Var,
) -> [Option<Var>; 4] {
    let mut out = [None; 4];
    for &i in enabled {
        e.dead = dst >> i & 1 == 0;
        let v = f(e, i);
        if !e.dead {
            out[i] = Some(v);
        }
    }
    e.dead = false;
    out
}

/// `args` in an instruction's three operand places, the unused ones `Var(0)`.
#[inline]
fn padded(args: &[Var]) -> [Var; 3] {
    // Filled by length: a slice copy of 0–12 bytes would be a call to `memcpy`.
    match *args {
        [] => [Var(0); 3],
        [x] => [x, Var(0), Var(0)],
        [x, y] => [x, y, Var(0)],
        [x, y, z, ..] => [x, y, z],
    }
}

/// Whether `op` is a source read or a constant: what a dead component still emits.
fn is_leaf(op: Op) -> bool {
    matches!(
        op,
        Op::Input | Op::Uniform | Op::UniformIdx | Op::UniformAl | Op::Neg | Op::FConst
    )
}

fn unary0(e: &mut Emit, op: Op) -> Var {
    let a = e.src(0, 0);
    e.op(op, &[a], [0, 0])
}
