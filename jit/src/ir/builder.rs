//! Building a [`Function`]: fresh variables and blocks, one helper per operation shape.

use super::{Block, BlockId, CmpKind, Function, Inst, Op, Terminator, Ty, Var};

/// Appends instructions to the current block of a function under construction.
#[derive(Debug)]
pub struct Builder {
    func: Function,
    current: BlockId,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// A function with one empty entry block (block 0), which is current.
    pub fn new() -> Builder {
        Builder {
            func: Function {
                blocks: vec![Block {
                    insts: Vec::new(),
                    term: Terminator::Exit,
                }],
                vars: Vec::new(),
                loop_slots: 0,
            },
            current: BlockId(0),
        }
    }

    /// [`Builder::new`] with room for `insts` instructions in the entry block and `vars`
    /// variables, so that a function built mostly into one block (straight code) does not
    /// grow it step by step.
    pub fn with_capacity(insts: usize, vars: usize) -> Builder {
        let mut b = Builder::new();
        b.func.blocks[0].insts.reserve(insts);
        b.func.vars.reserve(vars);
        b
    }

    /// Room for `n` more blocks, so that a function of many blocks does not grow its block
    /// list step by step.
    pub fn reserve_blocks(&mut self, n: usize) {
        self.func.blocks.reserve(n);
    }

    /// A new variable of type `ty`.
    #[inline]
    pub fn var(&mut self, ty: Ty) -> Var {
        self.func.vars.push(ty);
        Var(self.func.vars.len() as u32 - 1)
    }

    /// Variables made so far.
    #[inline]
    pub fn vars_len(&self) -> usize {
        self.func.vars.len()
    }

    /// A new empty block (ending in `Exit` until terminated).
    pub fn block(&mut self) -> BlockId {
        self.func.blocks.push(Block {
            insts: Vec::new(),
            term: Terminator::Exit,
        });
        BlockId(self.func.blocks.len() as u32 - 1)
    }

    /// Makes `b` the block instructions are appended to.
    pub fn switch_to(&mut self, b: BlockId) {
        self.current = b;
    }

    /// The current block.
    #[inline]
    pub fn current(&self) -> BlockId {
        self.current
    }

    /// Instructions in the current block so far.
    pub fn current_len(&self) -> usize {
        self.func.blocks[self.current.0 as usize].insts.len()
    }

    /// Whether the current block has no instructions yet.
    pub fn current_is_empty(&self) -> bool {
        self.func.blocks[self.current.0 as usize].insts.is_empty()
    }

    /// Ends the current block.
    pub fn terminate(&mut self, term: Terminator) {
        self.func.blocks[self.current.0 as usize].term = term;
    }

    /// Records that loop slots `0..n` are used.
    pub fn use_loop_slots(&mut self, n: u8) {
        self.func.loop_slots = self.func.loop_slots.max(n);
    }

    /// Appends a raw instruction.
    pub fn push(&mut self, inst: Inst) {
        self.func.blocks[self.current.0 as usize].insts.push(inst);
    }

    /// Appends raw instructions, in order.
    pub fn extend(&mut self, insts: impl IntoIterator<Item = Inst>) {
        self.func.blocks[self.current.0 as usize]
            .insts
            .extend(insts);
    }

    /// Appends copies of `insts`, in order.
    #[inline]
    pub fn extend_from_slice(&mut self, insts: &[Inst]) {
        self.func.blocks[self.current.0 as usize]
            .insts
            .extend_from_slice(insts);
    }

    /// Appends `op` writing `dst`.
    pub fn inst_to(&mut self, op: Op, dst: Var, args: &[Var], imm: [u32; 2]) {
        let mut a = [Var(0); 3];
        a[..args.len()].copy_from_slice(args);
        self.push(Inst {
            op,
            dst: Some(dst),
            args: a,
            imm,
        });
    }

    /// Appends `op` into a fresh variable of its result type.
    pub fn inst(&mut self, op: Op, args: &[Var], imm: [u32; 2]) -> Var {
        let ty = op.result().unwrap_or(Ty::F32);
        let dst = self.var(ty);
        self.inst_to(op, dst, args, imm);
        dst
    }

    /// Appends an operation without a result.
    pub fn effect(&mut self, op: Op, args: &[Var], imm: [u32; 2]) {
        let mut a = [Var(0); 3];
        a[..args.len()].copy_from_slice(args);
        self.push(Inst {
            op,
            dst: None,
            args: a,
            imm,
        });
    }

    pub fn fconst(&mut self, value: f32) -> Var {
        self.inst(Op::FConst, &[], [value.to_bits(), 0])
    }
    pub fn binary(&mut self, op: Op, a: Var, b: Var) -> Var {
        self.inst(op, &[a, b], [0, 0])
    }
    pub fn unary(&mut self, op: Op, a: Var) -> Var {
        self.inst(op, &[a], [0, 0])
    }
    pub fn cmp(&mut self, kind: CmpKind, a: Var, b: Var) -> Var {
        self.inst(Op::Cmp, &[a, b], [kind as u32, 0])
    }
    pub fn select(&mut self, m: Var, a: Var, b: Var) -> Var {
        self.inst(Op::Select, &[m, a, b], [0, 0])
    }

    /// The finished function.
    pub fn finish(self) -> Function {
        self.func
    }
}
