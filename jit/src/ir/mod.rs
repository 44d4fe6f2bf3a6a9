//! The block IR of picajit-codegen.
//!
//! A [`Function`] is a control-flow graph of [`Block`]s. Values are **lane vectors**: every
//! [`Var`] holds one 32-bit value per vertex of the batch (W lanes), of type [`Ty::F32`], a lane
//! mask ([`Ty::Mask`], all-ones or all-zeros per lane) or a signed integer ([`Ty::I32`]).
//! Variables are *not* SSA: a PICA register component is one variable that is written many
//! times, which is what the per-component register allocator wants. Scalar state shared by the
//! batch (loop counters, aL, the step budget) is not a variable: it lives in the batch context and
//! is touched only by the control instructions and terminators.
//!
//! The instruction set is one table (`op_table!`): name, operand types, result type and the
//! meaning of the two immediates. The printer, verifier, liveness and every backend match on
//! [`Op`] exhaustively.

mod builder;
mod print;
mod verified;
mod verify;

pub use builder::Builder;
pub use verified::Verified;
pub use verify::VerifyError;

/// A lane-vector variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

/// A block of a [`Function`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// The lane type of a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// IEEE binary32 per lane.
    F32,
    /// A lane mask: all ones (true) or all zeros (false) per lane.
    Mask,
    /// A signed 32-bit integer per lane.
    I32,
}

/// Comparison of two F32 lanes into a mask; `True` is always true (CMP ops 6 and 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum CmpKind {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    True,
}

impl CmpKind {
    pub const ALL: [CmpKind; 7] = [
        CmpKind::Eq,
        CmpKind::Ne,
        CmpKind::Lt,
        CmpKind::Le,
        CmpKind::Gt,
        CmpKind::Ge,
        CmpKind::True,
    ];
    /// The kind stored in an immediate.
    pub fn from_imm(imm: u32) -> CmpKind {
        CmpKind::ALL[(imm as usize).min(6)]
    }
    /// Evaluates the comparison on scalars (the reference for every backend).
    pub fn eval(self, a: f32, b: f32) -> bool {
        match self {
            CmpKind::Eq => a == b,
            CmpKind::Ne => a != b,
            CmpKind::Lt => a < b,
            CmpKind::Le => a <= b,
            CmpKind::Gt => a > b,
            CmpKind::Ge => a >= b,
            CmpKind::True => true,
        }
    }
}

macro_rules! op_table {
    ($( $(#[$doc:meta])* $name:ident $text:literal ($($arg:ident),*) -> $res:tt, imm: $imm:literal; )*) => {
        /// An IR operation. Immediates are described per variant.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op { $($(#[$doc])* $name),* }

        impl Op {
            /// Every operation, in table order.
            pub const ALL: &'static [Op] = &[$(Op::$name),*];
            /// The text form's mnemonic.
            pub const fn name(self) -> &'static str {
                match self { $(Op::$name => $text),* }
            }
            /// Operand types (a table lookup: every pass asks this per instruction).
            #[inline]
            pub const fn args(self) -> &'static [Ty] {
                const ARGS: &[&[Ty]] = &[$(&[$(Ty::$arg),*]),*];
                ARGS[self as usize]
            }
            /// Result type (`None`: the operation has no result).
            #[inline]
            pub const fn result(self) -> Option<Ty> {
                const RESULTS: &[Option<Ty>] = &[$(op_table!(@res $res)),*];
                RESULTS[self as usize]
            }
            /// What the immediates mean, for the printer.
            pub const fn imm_meaning(self) -> &'static str {
                match self { $(Op::$name => $imm),* }
            }
        }
    };
    (@res none) => { None };
    (@res $t:ident) => { Some(Ty::$t) };
}

op_table! {
    /// Broadcast constant; imm0 = f32 bits.
    FConst "fconst" () -> F32, imm: "bits";
    /// Broadcast float uniform component; imm0 = index 0..127 (96..127 read 1.0), imm1 = component.
    Uniform "uniform" () -> F32, imm: "c,comp";
    /// Float uniform at `imm0 + aL` (PICA offset rule, aL is batch-uniform); imm1 = component.
    UniformAl "uniform.al" () -> F32, imm: "c,comp";
    /// Float uniform at `imm0 + offset` with a per-lane offset (PICA offset rule); imm1 = component.
    UniformIdx "uniform.idx" (I32) -> F32, imm: "c,comp";
    /// Broadcast constant-table component (the AGAL constant file, [`crate::abi::CONST_ENTRIES`]
    /// entries); imm0 = index, imm1 = component.
    Const "const" () -> F32, imm: "c,comp";
    /// Constant-table component at a per-lane index: `e = offset + imm0` (wrapping i32); the
    /// lane reads entry `e`'s component imm1 when `0 <= e < CONST_ENTRIES`, else `+0.0`.
    ConstIdx "const.idx" (I32) -> F32, imm: "offset,comp";
    /// Input register component; imm0 = register, imm1 = component.
    Input "input" () -> F32, imm: "v,comp";
    /// Store to an output register component (for the lanes of the batch); imm0/imm1 = o, comp.
    Output "output" (F32) -> none, imm: "o,comp";
    /// Copy.
    Mov "mov" (F32) -> F32, imm: "";
    /// Sign flip (also of zeros and NaNs).
    Neg "neg" (F32) -> F32, imm: "";
    /// Sign bit cleared (also of zeros and NaNs).
    Abs "abs" (F32) -> F32, imm: "";
    /// IEEE addition.
    Add "fadd" (F32, F32) -> F32, imm: "";
    /// IEEE multiplication (only where 0·inf cannot occur).
    Mul "fmul" (F32, F32) -> F32, imm: "";
    /// PICA multiply: IEEE product, but +0.0 where the product is NaN and no input is.
    PMul "pmul" (F32, F32) -> F32, imm: "";
    /// `a > b ? a : b`.
    Max "max" (F32, F32) -> F32, imm: "";
    /// `a < b ? a : b`.
    Min "min" (F32, F32) -> F32, imm: "";
    /// IEEE division `a / b`.
    Div "fdiv" (F32, F32) -> F32, imm: "";
    /// IEEE square root, correctly rounded (`sqrt(−x) = NaN`, `sqrt(−0) = −0`).
    Sqrt "sqrt" (F32) -> F32, imm: "";
    /// Round toward −inf.
    Floor "floor" (F32) -> F32, imm: "";
    /// `1.0 / a`.
    Rcp "rcp" (F32) -> F32, imm: "";
    /// `1.0 / sqrt(a)` (two roundings).
    Rsq "rsq" (F32) -> F32, imm: "";
    /// The project's EX2 (`picajit::float::ex2`).
    Ex2 "ex2" (F32) -> F32, imm: "";
    /// The project's LG2 (`picajit::float::lg2`).
    Lg2 "lg2" (F32) -> F32, imm: "";
    /// AGAL `sin` (`picajit::agal::interp::math::sin`: f64 range reduction and Taylor
    /// polynomials, one rounding).
    Sin "sin" (F32) -> F32, imm: "";
    /// AGAL `cos` (`picajit::agal::interp::math::cos`).
    Cos "cos" (F32) -> F32, imm: "";
    /// AGAL `pow` (`picajit::agal::interp::math::pow`: `ex2_f64(f64(b) · lg2_f64(|a|))`).
    Pow "pow" (F32, F32) -> F32, imm: "";
    /// Quad derivative: lanes in groups of four from lane 0 are 2×2 quads (0 top-left, 1
    /// top-right, 2 bottom-left, 3 bottom-right); imm0 = 0: right − left of the lane's row
    /// (`ddx`), 1: bottom − top of its column (`ddy`).
    QuadDiff "quad.diff" (F32) -> F32, imm: "axis";
    /// Lane comparison; imm0 = [`CmpKind`].
    Cmp "cmp" (F32, F32) -> Mask, imm: "kind";
    /// `m ? a : b` per lane.
    Select "select" (Mask, F32, F32) -> F32, imm: "";
    /// Mask from a constant; imm0 = 0 or 1.
    MaskConst "mask.const" () -> Mask, imm: "value";
    MaskAnd "mask.and" (Mask, Mask) -> Mask, imm: "";
    MaskOr "mask.or" (Mask, Mask) -> Mask, imm: "";
    MaskNot "mask.not" (Mask) -> Mask, imm: "";
    /// Mask copy.
    MaskMov "mask.mov" (Mask) -> Mask, imm: "";
    /// Truncate toward zero to i32, saturating, NaN → 0.
    FtoiSat "ftoi.sat" (F32) -> I32, imm: "";
    /// Integer copy.
    IMov "imov" (I32) -> I32, imm: "";
    /// Integer constant; imm0 = value.
    IConst "iconst" () -> I32, imm: "value";
    /// Wrapping integer addition.
    IAdd "iadd" (I32, I32) -> I32, imm: "";
    /// Integer equality: all ones where `a == b`.
    IEq "ieq" (I32, I32) -> Mask, imm: "";
    /// `m ? a : b` per lane, on integers.
    ISelect "iselect" (Mask, I32, I32) -> I32, imm: "";
    /// Signed integer `a < b`.
    ILt "ilt" (I32, I32) -> Mask, imm: "";
    /// The signed minimum over the batch's lanes, in every lane.
    LaneMin "lane.min" (I32) -> I32, imm: "";
    /// `a & !b`.
    MaskAndNot "mask.andnot" (Mask, Mask) -> Mask, imm: "";
    /// Byte imm1 (0 count, 1 start, 2 step) of int uniform imm0, zero-extended, in every lane.
    IntUniform "int.uniform" () -> I32, imm: "i,field";
    /// Bool uniform `b[imm0]` as a mask, the same in every lane.
    BoolMask "bool.mask" () -> Mask, imm: "b";
    /// The step budget a batch starts with, in every lane.
    BudgetLanes "budget.lanes" () -> I32, imm: "";
    /// Float uniform at `imm0 + offset` (PICA offset rule) where the offset is that of the
    /// first lane whose mask is set (lane 0 if none), broadcast to every lane; imm1 = component.
    /// For an offset known to be the same in every lane that matters.
    UniformLead "uniform.lead" (I32, Mask) -> F32, imm: "c,comp";
    /// The lanes of the mask end their invocation: their current output registers are kept
    /// as their results (the kernel stores these for every lane of a function that retires
    /// lanes), and with imm0 = 1 their status is "budget exhausted".
    Retire "retire" (Mask) -> none, imm: "status";
    /// Enter a LOOP: save aL in slot imm0, load count/step of int uniform imm1, aL = its start.
    LoopPush "loop.push" () -> none, imm: "slot,i";
    /// aL += the step saved in slot imm0.
    AlInc "al.inc" () -> none, imm: "slot";
    /// aL = the value saved in slot imm0.
    AlRestore "al.restore" () -> none, imm: "slot";
    /// One backward transfer: spend a unit of the step budget, or stop with status 1 ("budget
    /// exhausted") in every lane when none is left; imm0 = 1.
    Budget "budget" () -> none, imm: "status";
    /// Geometry EMIT, first half: for the lanes of the mask, copy the current output bank
    /// (the output registers the function writes) into emitter slot imm0 (0..3). A mask with
    /// no lane set does nothing.
    EmitSlot "emit.slot" (Mask) -> none, imm: "slot";
    /// Geometry EMIT, second half: if some lane of mask a is set, record emitter slots 0, 1, 2
    /// as the batch's next triangle, with a's lanes (the lanes that emit it) and b's (those of
    /// them whose winding flag is set) as its two mask bytes; a batch whose buffer is full
    /// stops with status [`crate::abi::STATUS_OVERFLOW`]. No lane set: nothing.
    EmitTri "emit.tri" (Mask, Mask) -> none, imm: "";
}

/// One instruction: an operation, its result variable, operands and immediates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    pub op: Op,
    pub dst: Option<Var>,
    pub args: [Var; 3],
    pub imm: [u32; 2],
}

impl Inst {
    /// The operands actually used (as many as the table says).
    #[inline]
    pub fn uses(&self) -> &[Var] {
        &self.args[..self.op.args().len()]
    }
    /// True if removing the instruction when its result is unused changes nothing.
    #[inline]
    pub fn is_pure(&self) -> bool {
        self.op.result().is_some()
    }
}

/// How a block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Terminator {
    /// Continue at a block.
    Jump(BlockId),
    /// Branch on bool uniform `b[id]`.
    BranchBool {
        id: u8,
        then: BlockId,
        other: BlockId,
    },
    /// Branch on a mask known to be the same in every lane (lane 0 is tested).
    BranchUniform {
        mask: Var,
        then: BlockId,
        other: BlockId,
    },
    /// Branch on a mask that may differ between lanes: some lane true → `then`, none →
    /// `other` (the loop test of a masked region: are lanes still running?).
    BranchAny {
        mask: Var,
        then: BlockId,
        other: BlockId,
    },
    /// LOOP back edge: if the count in `slot` is not zero, decrement it and go to `repeat`.
    LoopNext {
        slot: u8,
        repeat: BlockId,
        exit: BlockId,
    },
    /// The invocation ended.
    Exit,
}

impl Terminator {
    /// Successor blocks (no allocation: at most two).
    pub fn successors(&self) -> Successors {
        let (blocks, len) = match *self {
            Terminator::Jump(b) => ([b, b], 1),
            Terminator::BranchBool { then, other, .. }
            | Terminator::BranchUniform { then, other, .. }
            | Terminator::BranchAny { then, other, .. } => ([then, other], 2),
            Terminator::LoopNext { repeat, exit, .. } => ([repeat, exit], 2),
            Terminator::Exit => ([BlockId(0); 2], 0),
        };
        Successors { blocks, len }
    }
    /// The same terminator with every target block mapped through `f`.
    pub fn map_targets(self, mut f: impl FnMut(BlockId) -> BlockId) -> Terminator {
        match self {
            Terminator::Jump(t) => Terminator::Jump(f(t)),
            Terminator::BranchBool { id, then, other } => Terminator::BranchBool {
                id,
                then: f(then),
                other: f(other),
            },
            Terminator::BranchUniform { mask, then, other } => Terminator::BranchUniform {
                mask,
                then: f(then),
                other: f(other),
            },
            Terminator::BranchAny { mask, then, other } => Terminator::BranchAny {
                mask,
                then: f(then),
                other: f(other),
            },
            Terminator::LoopNext { slot, repeat, exit } => Terminator::LoopNext {
                slot,
                repeat: f(repeat),
                exit: f(exit),
            },
            Terminator::Exit => Terminator::Exit,
        }
    }
    /// The same terminator with its operand (if it has one) mapped through `f`.
    pub fn map_use(self, f: impl FnOnce(Var) -> Var) -> Terminator {
        match self {
            Terminator::BranchUniform { mask, then, other } => Terminator::BranchUniform {
                mask: f(mask),
                then,
                other,
            },
            Terminator::BranchAny { mask, then, other } => Terminator::BranchAny {
                mask: f(mask),
                then,
                other,
            },
            Terminator::Jump(_)
            | Terminator::BranchBool { .. }
            | Terminator::LoopNext { .. }
            | Terminator::Exit => self,
        }
    }
    /// Variables the terminator reads.
    pub fn uses(&self) -> Option<Var> {
        match *self {
            Terminator::BranchUniform { mask, .. } | Terminator::BranchAny { mask, .. } => {
                Some(mask)
            }
            Terminator::Jump(_)
            | Terminator::BranchBool { .. }
            | Terminator::LoopNext { .. }
            | Terminator::Exit => None,
        }
    }
}

/// The successors of a terminator, as a slice (`Deref`) or by value (`IntoIterator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Successors {
    blocks: [BlockId; 2],
    len: usize,
}

impl std::ops::Deref for Successors {
    type Target = [BlockId];
    fn deref(&self) -> &[BlockId] {
        &self.blocks[..self.len]
    }
}

impl<'a> IntoIterator for &'a Successors {
    type Item = &'a BlockId;
    type IntoIter = std::slice::Iter<'a, BlockId>;
    fn into_iter(self) -> Self::IntoIter {
        self.blocks[..self.len].iter()
    }
}

impl IntoIterator for Successors {
    type Item = BlockId;
    type IntoIter = std::iter::Take<std::array::IntoIter<BlockId, 2>>;
    fn into_iter(self) -> Self::IntoIter {
        self.blocks.into_iter().take(self.len)
    }
}

/// A basic block.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub insts: Vec<Inst>,
    pub term: Terminator,
}

/// A compiled unit: blocks (entry = block 0) and the type of every variable.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Function {
    pub blocks: Vec<Block>,
    pub vars: Vec<Ty>,
    /// Number of loop slots used by `LoopPush`/`LoopNext` (at most 4).
    pub loop_slots: u8,
}

impl Function {
    /// The type of a variable.
    pub fn ty(&self, v: Var) -> Ty {
        self.vars[v.0 as usize]
    }
    /// True if the function retires lanes ([`Op::Retire`]): every lane's outputs are then
    /// its retired outputs (the kernel stores them from the context's retired area).
    pub fn retires_lanes(&self) -> bool {
        self.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .any(|i| i.op == Op::Retire)
    }
    /// Total instruction count (terminators excluded).
    pub fn inst_count(&self) -> usize {
        self.blocks.iter().map(|b| b.insts.len()).sum()
    }
    /// Renames every variable the instructions and terminators name, read or written, to
    /// `f` of it (the variable table is the caller's to match).
    pub fn rename_vars(&mut self, f: impl Fn(Var) -> Var) {
        for block in &mut self.blocks {
            for inst in &mut block.insts {
                let k = inst.op.args().len();
                for a in &mut inst.args[..k] {
                    *a = f(*a);
                }
                inst.dst = inst.dst.map(&f);
            }
            block.term = block.term.map_use(&f);
        }
    }
}
