//! Support shared by the semantics tests (`tests/interp_*.rs`).
//!
//! Three parts:
//!
//! * **A tiny program builder** ([`Builder`]) on top of `picajit::isa`: it appends one
//!   instruction per call, interns operand descriptors, and takes register helpers [`v`], [`r`],
//!   [`c`], [`o`] whose swizzle, negation, write mask and relative index are set with
//!   [`Reg::swz`], unary `-`, [`Reg::mask`] and [`Reg::rel`]. There is no assembler yet, so
//!   every test writes the assembly it means beside the builder calls (or raw words, via
//!   [`Builder::word`]) in a comment, with the word address of each instruction.
//!
//! * **Engines.** [`engines`] lists every way the project can run a program. Today that is the
//!   reference interpreter three times over: one vertex at a time through `run_vertex`, the
//!   batch `run`, and the parallel batch `run_par`. [`run_all`] and [`run_all_budget`] run a
//!   program on every engine and assert they agree **bit for bit** (f32 bit patterns, with any
//!   NaN equal to any NaN, the one freedom engines have) on every vertex's status and, for the
//!   vertices that ended, outputs and emitted triangles; the agreed result is returned and the
//!   tests then check it against values written in the test. Adding a backend (the JIT) is one
//!   more [`Engine`] entry in [`engines`]: every test in every file then runs on it too. The
//!   list holds the x86-64 tiers this host has and AArch64 (in-process on an AArch64 host,
//!   through qemu-user elsewhere; without qemu a failure under `CI`, a loud skip otherwise).
//!
//!   Outputs of a vertex that exhausted its budget are not compared across engines: the rule only
//!   requires engines to agree on *whether* the budget ran out.
//!
//! * **Assertions and inputs**: [`assert_bits`] (NaN = NaN, otherwise exact bits, so +0 ≠ −0),
//!   [`assert_ulps`] (for EX2/LG2, which the spec only holds to 1 ulp), [`scalars`] (v0.x = a,
//!   v1.x = b, …) and [`vecs`].

#![allow(dead_code)]

use std::ops::Neg;

use picajit::engine::{Backend, GeometryOutput, SoaBuffer};
use picajit::interp::{Interpreter, Invocation, Primitive, RunError};
use picajit::isa::{
    AddrIdx, CmpOp, CondOp, Dst, Fmt1, Fmt1c, Fmt1i, Fmt1u, Fmt2, Fmt3b, Fmt3i, Fmt4, Fmt5, Fmt5i,
    Instruction, OpDesc, Opcode, Src, SrcMod,
};
use picajit::program::{Program, Regs16, ShaderKind, Uniforms, Vec4, VertexStatus};

// ------------------------------------------------------------------------------------------
// Registers and operands
// ------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum File {
    Input,
    Temp,
    Uniform,
    Output,
}

/// A register operand with its modifiers: as a source, its swizzle and negation (and, on the
/// wide slot, a relative index); as a destination, its write mask.
#[derive(Clone, Copy, Debug)]
pub struct Reg {
    file: File,
    n: u8,
    negate: bool,
    select: [u8; 4],
    mask: u8,
    idx: AddrIdx,
}

const fn reg(file: File, n: u8) -> Reg {
    Reg {
        file,
        n,
        negate: false,
        select: [0, 1, 2, 3],
        mask: 0xF,
        idx: AddrIdx::None,
    }
}

/// Input register `vN`.
pub const fn v(n: u8) -> Reg {
    assert!(n < 16);
    reg(File::Input, n)
}
/// Temporary register `rN`.
pub const fn r(n: u8) -> Reg {
    assert!(n < 16);
    reg(File::Temp, n)
}
/// Float uniform `cN`.
pub const fn c(n: u8) -> Reg {
    assert!(n < 96);
    reg(File::Uniform, n)
}
/// Output register `oN`.
pub const fn o(n: u8) -> Reg {
    assert!(n < 16);
    reg(File::Output, n)
}

fn component(ch: char) -> u8 {
    match ch {
        'x' => 0,
        'y' => 1,
        'z' => 2,
        'w' => 3,
        _ => panic!("bad component {ch:?}"),
    }
}

/// Write mask from component letters ("xz" → x and z), descriptor order: bit 3 = x … bit 0 = w.
pub fn mask_bits(m: &str) -> u8 {
    m.chars().fold(0, |acc, ch| acc | 8 >> component(ch))
}

/// Selectors from a swizzle of 1–4 letters; a short swizzle repeats its last letter
/// ("xy" = "xyyy"), as assemblers read it.
pub fn selectors(s: &str) -> [u8; 4] {
    let letters: Vec<u8> = s.chars().map(component).collect();
    assert!((1..=4).contains(&letters.len()), "bad swizzle {s:?}");
    std::array::from_fn(|i| letters[i.min(letters.len() - 1)])
}

impl Reg {
    /// Source swizzle, e.g. `v(0).swz("wzyx")`.
    pub fn swz(mut self, s: &str) -> Reg {
        self.select = selectors(s);
        self
    }
    /// Destination write mask, e.g. `o(0).mask("xz")`; `""` writes nothing.
    pub fn mask(mut self, m: &str) -> Reg {
        self.mask = mask_bits(m);
        self
    }
    /// Relative index on a source: `c(40).rel(AddrIdx::A0x)` is `c40[a0.x]`.
    pub fn rel(mut self, idx: AddrIdx) -> Reg {
        self.idx = idx;
        self
    }

    fn src(self) -> Src {
        match self.file {
            File::Input => Src::input(self.n),
            File::Temp => Src::temp(self.n),
            File::Uniform => Src::uniform(self.n),
            File::Output => panic!("o{} is not readable", self.n),
        }
    }
    fn narrow(self, what: &str) -> Src {
        assert!(
            self.file != File::Uniform,
            "{what} is a 5-bit slot: c{} does not fit",
            self.n
        );
        assert_eq!(self.idx, AddrIdx::None, "{what} is not the wide slot");
        self.src()
    }
    fn dst(self) -> Dst {
        match self.file {
            File::Output => Dst::output(self.n),
            File::Temp => Dst::temp(self.n),
            _ => panic!("not a destination: {self:?}"),
        }
    }
    fn modifier(self) -> SrcMod {
        SrcMod {
            negate: self.negate,
            select: self.select,
        }
    }
}

impl Neg for Reg {
    type Output = Reg;
    fn neg(mut self) -> Reg {
        self.negate = !self.negate;
        self
    }
}

/// Relative-index shorthands.
pub const A0X: AddrIdx = AddrIdx::A0x;
pub const A0Y: AddrIdx = AddrIdx::A0y;
pub const AL: AddrIdx = AddrIdx::AL;

/// A format-2 condition: `ok_x = cc.x == refx`, `ok_y = cc.y == refy`, combined by `op`.
#[derive(Clone, Copy, Debug)]
pub struct Cond {
    pub refx: bool,
    pub refy: bool,
    pub op: CondOp,
}

/// `cc.x == refx`.
pub fn cond_x(refx: bool) -> Cond {
    Cond {
        refx,
        refy: false,
        op: CondOp::X,
    }
}
/// `cc.y == refy`.
pub fn cond_y(refy: bool) -> Cond {
    Cond {
        refx: false,
        refy,
        op: CondOp::Y,
    }
}
/// `cc.x == refx && cc.y == refy`.
pub fn cond_and(refx: bool, refy: bool) -> Cond {
    Cond {
        refx,
        refy,
        op: CondOp::And,
    }
}
/// `cc.x == refx || cc.y == refy`.
pub fn cond_or(refx: bool, refy: bool) -> Cond {
    Cond {
        refx,
        refy,
        op: CondOp::Or,
    }
}

/// The descriptor word with a full write mask and identity swizzles, no negation:
/// mask 0xF, selector bytes 0x1B at bits 5, 14 and 23.
pub const IDENTITY_DESC: u32 = 0x0D86_C36F;

// ------------------------------------------------------------------------------------------
// Builder
// ------------------------------------------------------------------------------------------

/// Appends instructions at consecutive word addresses from 0 and interns descriptors.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    code: Vec<u32>,
    descs: Vec<u32>,
    entry: u32,
    kind: ShaderKind,
}

fn with_opcode(op: Opcode, fields: u32) -> u32 {
    let word = u32::from(op.values()[0]) << 26 | fields;
    assert_eq!(Instruction::decode(word).opcode(), op, "{word:#010x}");
    word
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }

    /// The address the next instruction goes to.
    pub fn here(&self) -> u16 {
        self.code.len() as u16
    }

    /// Asserts the next instruction goes to `addr` (keeps the hand-written addresses honest).
    pub fn at(&mut self, addr: u16) -> &mut Self {
        assert_eq!(
            self.here(),
            addr,
            "builder is not at the address the listing says"
        );
        self
    }

    /// Fills with NOPs up to `addr`.
    pub fn pad_to(&mut self, addr: u16) -> &mut Self {
        self.fill_to(addr, with_opcode(Opcode::Nop, 0))
    }

    /// Fills with copies of `word` up to `addr`.
    pub fn fill_to(&mut self, addr: u16, word: u32) -> &mut Self {
        assert!(self.here() <= addr, "already past {addr}");
        self.code.resize(addr as usize, word);
        self
    }

    /// Appends a raw instruction word.
    pub fn word(&mut self, raw: u32) -> &mut Self {
        assert!(self.code.len() < 4096, "code memory is full");
        self.code.push(raw);
        self
    }

    /// The index of descriptor `word`, added to the table if new.
    pub fn desc(&mut self, word: u32) -> u8 {
        let index = match self.descs.iter().position(|&d| d == word) {
            Some(i) => i,
            None => {
                self.descs.push(word);
                self.descs.len() - 1
            }
        };
        assert!(index < 128, "descriptor table full");
        index as u8
    }

    /// Puts `word` at descriptor index `index` (unset entries before it stay 0).
    pub fn set_desc(&mut self, index: u8, word: u32) -> &mut Self {
        let i = index as usize;
        if self.descs.len() <= i {
            self.descs.resize(i + 1, 0);
        }
        self.descs[i] = word;
        self
    }

    /// Sets the entry point.
    pub fn entry(&mut self, entry: u32) -> &mut Self {
        self.entry = entry;
        self
    }

    /// Makes the program a geometry shader.
    pub fn geometry(&mut self) -> &mut Self {
        self.kind = ShaderKind::Geometry;
        self
    }

    /// The code words so far.
    pub fn code(&self) -> &[u32] {
        &self.code
    }

    /// The descriptor table so far.
    pub fn descs(&self) -> &[u32] {
        &self.descs
    }

    /// The loaded program.
    pub fn program(&self) -> Program {
        Program::from_words(&self.code, &self.descs, self.entry)
            .expect("program fits")
            .with_kind(self.kind)
    }

    fn desc_for(&mut self, mask: u8, srcs: [Reg; 3]) -> u8 {
        let word = OpDesc::new(mask, srcs.map(Reg::modifier)).0;
        self.desc(word)
    }

    // ---- ALU formats ----------------------------------------------------------------------

    /// Format 1: `op d, a (wide), b (narrow)`.
    pub fn fmt1(&mut self, op: Opcode, d: Reg, a: Reg, b: Reg) -> &mut Self {
        let desc = self.desc_for(d.mask, [a, b, v(0)]);
        let f = Fmt1 {
            dst: d.dst(),
            idx: a.idx,
            src1: a.src(),
            src2: b.narrow("src2 of a format-1 instruction"),
            desc,
        };
        self.word(with_opcode(op, f.encode()))
    }

    /// Format 1u: `op d, a (wide)`.
    pub fn fmt1u(&mut self, op: Opcode, d: Reg, a: Reg) -> &mut Self {
        let desc = self.desc_for(d.mask, [a, v(0), v(0)]);
        let f = Fmt1u {
            dst: d.dst(),
            idx: a.idx,
            src1: a.src(),
            desc,
        };
        self.word(with_opcode(op, f.encode()))
    }

    /// Format 1i: `op d, a (narrow), b (wide)`.
    pub fn fmt1i(&mut self, op: Opcode, d: Reg, a: Reg, b: Reg) -> &mut Self {
        let desc = self.desc_for(d.mask, [a, b, v(0)]);
        let f = Fmt1i {
            dst: d.dst(),
            idx: b.idx,
            src1: a.narrow("src1 of a format-1i instruction"),
            src2: b.src(),
            desc,
        };
        self.word(with_opcode(op, f.encode()))
    }

    pub fn add(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1(Opcode::Add, d, a, b)
    }
    pub fn dp3(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1(Opcode::Dp3, d, a, b)
    }
    pub fn dp4(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1(Opcode::Dp4, d, a, b)
    }
    pub fn dph(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1(Opcode::Dph, d, a, b)
    }
    pub fn dst(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1(Opcode::Dst, d, a, b)
    }
    pub fn mul(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1(Opcode::Mul, d, a, b)
    }
    pub fn sge(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1(Opcode::Sge, d, a, b)
    }
    pub fn slt(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1(Opcode::Slt, d, a, b)
    }
    pub fn max(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1(Opcode::Max, d, a, b)
    }
    pub fn min(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1(Opcode::Min, d, a, b)
    }
    pub fn ex2(&mut self, d: Reg, a: Reg) -> &mut Self {
        self.fmt1u(Opcode::Ex2, d, a)
    }
    pub fn lg2(&mut self, d: Reg, a: Reg) -> &mut Self {
        self.fmt1u(Opcode::Lg2, d, a)
    }
    pub fn litp(&mut self, d: Reg, a: Reg) -> &mut Self {
        self.fmt1u(Opcode::Litp, d, a)
    }
    pub fn flr(&mut self, d: Reg, a: Reg) -> &mut Self {
        self.fmt1u(Opcode::Flr, d, a)
    }
    pub fn rcp(&mut self, d: Reg, a: Reg) -> &mut Self {
        self.fmt1u(Opcode::Rcp, d, a)
    }
    pub fn rsq(&mut self, d: Reg, a: Reg) -> &mut Self {
        self.fmt1u(Opcode::Rsq, d, a)
    }
    pub fn mov(&mut self, d: Reg, a: Reg) -> &mut Self {
        self.fmt1u(Opcode::Mov, d, a)
    }
    /// `mova a0.<mask>, a`: the mask's x and y pick a0.x and a0.y (the DST field is o0).
    pub fn mova(&mut self, mask: &str, a: Reg) -> &mut Self {
        self.fmt1u(Opcode::Mova, o(0).mask(mask), a)
    }
    pub fn dphi(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1i(Opcode::Dphi, d, a, b)
    }
    pub fn dsti(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1i(Opcode::Dsti, d, a, b)
    }
    pub fn sgei(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1i(Opcode::Sgei, d, a, b)
    }
    pub fn slti(&mut self, d: Reg, a: Reg, b: Reg) -> &mut Self {
        self.fmt1i(Opcode::Slti, d, a, b)
    }

    /// `cmp a (wide), cmpx, cmpy, b (narrow)`.
    pub fn cmp(&mut self, a: Reg, cmpx: CmpOp, cmpy: CmpOp, b: Reg) -> &mut Self {
        let desc = self.desc_for(0xF, [a, b, v(0)]);
        let f = Fmt1c {
            cmpx,
            cmpy,
            idx: a.idx,
            src1: a.src(),
            src2: b.narrow("src2 of cmp"),
            desc,
        };
        self.word(with_opcode(Opcode::Cmp, f.encode()))
    }

    fn mad_desc(&mut self, d: Reg, a: Reg, b: Reg, cc: Reg) -> u8 {
        let desc = self.desc_for(d.mask, [a, b, cc]);
        assert!(desc < 32, "MAD/MADI reach only descriptors 0..31");
        desc
    }

    /// `mad d, a (narrow), b (wide), c (narrow)`.
    pub fn mad(&mut self, d: Reg, a: Reg, b: Reg, cc: Reg) -> &mut Self {
        let desc = self.mad_desc(d, a, b, cc);
        let f = Fmt5 {
            dst: d.dst(),
            idx: b.idx,
            src1: a.narrow("src1 of mad"),
            src2: b.src(),
            src3: cc.narrow("src3 of mad"),
            desc,
        };
        self.word(with_opcode(Opcode::Mad, f.encode()))
    }

    /// `madi d, a (narrow), b (narrow), c (wide)`.
    pub fn madi(&mut self, d: Reg, a: Reg, b: Reg, cc: Reg) -> &mut Self {
        let desc = self.mad_desc(d, a, b, cc);
        let f = Fmt5i {
            dst: d.dst(),
            idx: cc.idx,
            src1: a.narrow("src1 of madi"),
            src2: b.narrow("src2 of madi"),
            src3: cc.src(),
            desc,
        };
        self.word(with_opcode(Opcode::Madi, f.encode()))
    }

    // ---- flow control ---------------------------------------------------------------------

    fn fmt2(&mut self, op: Opcode, cond: Cond, dest: u16, num: u8) -> &mut Self {
        let f = Fmt2 {
            refx: cond.refx,
            refy: cond.refy,
            condop: cond.op,
            dest,
            num,
        };
        self.word(with_opcode(op, f.encode()))
    }
    fn fmt3b(&mut self, op: Opcode, id: u8, dest: u16, num: u8) -> &mut Self {
        assert!(id < 16);
        self.word(with_opcode(op, Fmt3b { id, dest, num }.encode()))
    }

    pub fn nop(&mut self) -> &mut Self {
        self.word(with_opcode(Opcode::Nop, 0))
    }
    pub fn end(&mut self) -> &mut Self {
        self.word(with_opcode(Opcode::End, 0))
    }
    pub fn brk(&mut self) -> &mut Self {
        self.word(with_opcode(Opcode::Break, 0))
    }
    pub fn emit(&mut self) -> &mut Self {
        self.word(with_opcode(Opcode::Emit, 0))
    }
    /// `setemit vertex[, prim][, inv]`.
    pub fn setemit(&mut self, vertex: u8, primitive: bool, winding: bool) -> &mut Self {
        let f = Fmt4 {
            vertex,
            primitive,
            winding,
        };
        self.word(with_opcode(Opcode::Setemit, f.encode()))
    }
    /// `breakc cond`.
    pub fn breakc(&mut self, cond: Cond) -> &mut Self {
        self.fmt2(Opcode::Breakc, cond, 0, 0)
    }
    /// `ifc cond`: then-block `[here+1, dest)`, else-block `[dest, dest+num)`.
    pub fn ifc(&mut self, cond: Cond, dest: u16, num: u8) -> &mut Self {
        self.fmt2(Opcode::Ifc, cond, dest, num)
    }
    /// `jmpc cond, dest`.
    pub fn jmpc(&mut self, cond: Cond, dest: u16) -> &mut Self {
        self.fmt2(Opcode::Jmpc, cond, dest, 0)
    }
    /// `callc cond, dest, num`: body `[dest, dest+num)`.
    pub fn callc(&mut self, cond: Cond, dest: u16, num: u8) -> &mut Self {
        self.fmt2(Opcode::Callc, cond, dest, num)
    }
    /// `call dest, num` (condition fields zero).
    pub fn call(&mut self, dest: u16, num: u8) -> &mut Self {
        self.fmt2(Opcode::Call, cond_or(false, false), dest, num)
    }
    /// `call` with the given (ignored) condition fields.
    pub fn call_with_cond(&mut self, cond: Cond, dest: u16, num: u8) -> &mut Self {
        self.fmt2(Opcode::Call, cond, dest, num)
    }
    /// `ifu b<id>`: then-block `[here+1, dest)`, else-block `[dest, dest+num)`.
    pub fn ifu(&mut self, id: u8, dest: u16, num: u8) -> &mut Self {
        self.fmt3b(Opcode::Ifu, id, dest, num)
    }
    /// `callu b<id>, dest, num`.
    pub fn callu(&mut self, id: u8, dest: u16, num: u8) -> &mut Self {
        self.fmt3b(Opcode::Callu, id, dest, num)
    }
    /// `jmpu b<id>, dest` with the raw NUM field (bit 0 set: jump if b<id> is false).
    pub fn jmpu(&mut self, id: u8, dest: u16, num: u8) -> &mut Self {
        self.fmt3b(Opcode::Jmpu, id, dest, num)
    }
    /// `loop i<id>`: body `[here+1, dest]`.
    pub fn loop_(&mut self, id: u8, dest: u16) -> &mut Self {
        assert!(id < 4);
        self.word(with_opcode(
            Opcode::Loop,
            Fmt3i { id, dest, num: 0 }.encode(),
        ))
    }
}

/// Appends a read-out of the condition codes and END: afterwards o15.x = 1.0 iff cc.x and
/// o15.y = 1.0 iff cc.y (o15.zw stay 0). Uses r15 (must still be 0) and o15.
///
/// ```text
/// [k]   ifc cc.x, dest k+2, num 0     ; then-block [k+1]
/// [k+1]   sge o15.x, r15, r15         ; 0 >= 0 -> 1.0
/// [k+2] jmpc !cc.y, dest k+4
/// [k+3]   sge o15.y, r15, r15
/// [k+4] end
/// ```
pub fn read_cc(b: &mut Builder) -> &mut Builder {
    let k = b.here();
    b.ifc(cond_x(true), k + 2, 0);
    b.sge(o(15).mask("x"), r(15), r(15));
    b.jmpc(cond_y(false), k + 4);
    b.sge(o(15).mask("y"), r(15), r(15));
    b.end()
}

/// The (cc.x, cc.y) that [`read_cc`] left in o15.
pub fn cc_of(outputs: &Regs16) -> (bool, bool) {
    let bit = |x: f32| {
        assert!(x == 0.0 || x == 1.0, "o15 holds {x}");
        x == 1.0
    };
    (bit(outputs[15][0]), bit(outputs[15][1]))
}

// ------------------------------------------------------------------------------------------
// Inputs and uniforms
// ------------------------------------------------------------------------------------------

/// Inputs from scalars: v0.x = `xs[0]`, v1.x = `xs[1]`, …; every other component 0.
pub fn scalars(xs: &[f32]) -> Regs16 {
    assert!(xs.len() <= 16);
    let mut regs = [[0.0; 4]; 16];
    for (reg, &x) in regs.iter_mut().zip(xs) {
        reg[0] = x;
    }
    regs
}

/// Inputs from vectors: v0 = `xs[0]`, v1 = `xs[1]`, …; the rest 0.
pub fn vecs(xs: &[Vec4]) -> Regs16 {
    assert!(xs.len() <= 16);
    let mut regs = [[0.0; 4]; 16];
    regs[..xs.len()].copy_from_slice(xs);
    regs
}

/// `x` in all four components.
pub fn splat(x: f32) -> Vec4 {
    [x; 4]
}

/// Default uniforms with bool uniforms `b` (bit n = b_n).
pub fn bools(b: u16) -> Uniforms {
    Uniforms {
        b,
        ..Uniforms::default()
    }
}

// ------------------------------------------------------------------------------------------
// Comparisons
// ------------------------------------------------------------------------------------------

/// Bit-exact equality with every NaN equal to every NaN (the one freedom engines have).
pub fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn show(xs: &[f32]) -> String {
    let parts: Vec<String> = xs
        .iter()
        .map(|x| format!("{x:?} ({:#010x})", x.to_bits()))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// Asserts `actual` equals `expected` bit for bit, any NaN matching any NaN.
#[track_caller]
pub fn assert_bits(actual: &[f32], expected: &[f32]) {
    check_bits(actual, expected, "");
}

/// [`assert_bits`] with a description of the case in the failure message.
#[track_caller]
pub fn check_bits(actual: &[f32], expected: &[f32], what: &str) {
    assert_eq!(actual.len(), expected.len(), "length");
    let ok = actual.iter().zip(expected).all(|(&a, &e)| same(a, e));
    assert!(
        ok,
        "{what}\n  actual:   {}\n  expected: {}",
        show(actual),
        show(expected)
    );
}

/// The position of `x` on the line of floats (−0 and +0 both 0), for ulp distances.
fn ordinal(x: f32) -> i64 {
    let b = x.to_bits();
    if b >> 31 == 0 {
        i64::from(b)
    } else {
        -i64::from(b & 0x7FFF_FFFF)
    }
}

/// Asserts `actual` is within `ulps` steps of `expected` on the float line (no NaN allowed,
/// and an infinite `expected` must be matched exactly).
#[track_caller]
pub fn assert_ulps(actual: f32, expected: f32, ulps: i64) {
    assert!(
        !actual.is_nan() && !expected.is_nan(),
        "{actual:?} vs {expected:?}"
    );
    if expected.is_infinite() || actual.is_infinite() {
        assert_eq!(actual, expected);
        return;
    }
    let d = (ordinal(actual) - ordinal(expected)).abs();
    assert!(
        d <= ulps,
        "{actual:?} ({:#010x}) is {d} ulps from {expected:?} ({:#010x})",
        actual.to_bits(),
        expected.to_bits()
    );
}

// ------------------------------------------------------------------------------------------
// Engines
// ------------------------------------------------------------------------------------------

/// What one engine reports for a batch of vertices.
#[derive(Clone, Debug)]
pub struct EngineRun {
    pub outputs: Vec<Regs16>,
    pub status: Vec<VertexStatus>,
    /// Emitted triangles per vertex, when the engine's interface reports them.
    pub primitives: Option<Vec<Vec<Primitive>>>,
    /// The batch result, when the engine has a batch interface.
    pub batch: Option<Result<(), RunError>>,
}

/// A way to run a program: a name and how it runs (program, uniforms, inputs, step budget).
pub struct Engine {
    pub name: &'static str,
    runner: Runner,
}

/// What runs the program for an [`Engine`].
#[derive(Clone, Copy)]
enum Runner {
    /// `run_vertex`, one vertex at a time.
    InterpSingle,
    /// The interpreter's batch entry, in parallel or not.
    InterpBatch { par: bool },
    /// A JIT backend through the engine API.
    Native(Backend, Mode),
}

impl Engine {
    pub fn run(
        &self,
        program: &Program,
        u: &Uniforms,
        inputs: &[Regs16],
        budget: u32,
    ) -> EngineRun {
        match self.runner {
            Runner::InterpSingle => interp_single(program, u, inputs, budget),
            Runner::InterpBatch { par } => interp_batch(program, u, inputs, budget, par),
            Runner::Native(backend, mode) => native(program, u, inputs, budget, backend, mode),
        }
    }
}

/// Every JIT engine by backend and entry point; [`engines`] keeps those the host can run.
/// AVX-512 runs natively on an AVX-512 CPU, elsewhere in the x86-64 emulator (test builds).
const NATIVE: &[(&str, Backend, Mode)] = &[
    ("x64-sse41 run", Backend::X64Sse41, Mode::Aos),
    ("x64-sse41 run_soa", Backend::X64Sse41, Mode::Soa),
    ("x64-sse41 run_geometry", Backend::X64Sse41, Mode::Geometry),
    ("x64-avx2 run", Backend::X64Avx2, Mode::Aos),
    ("x64-avx2 run_soa", Backend::X64Avx2, Mode::Soa),
    ("x64-avx2 run_par", Backend::X64Avx2, Mode::Par),
    ("x64-avx2 run_geometry", Backend::X64Avx2, Mode::Geometry),
    ("x64-avx512 run", Backend::X64Avx512, Mode::Aos),
    ("x64-avx512 run_soa", Backend::X64Avx512, Mode::Soa),
    ("x64-avx512 run_par", Backend::X64Avx512, Mode::Par),
    (
        "x64-avx512 run_geometry",
        Backend::X64Avx512,
        Mode::Geometry,
    ),
    ("aarch64 run", Backend::Aarch64, Mode::Aos),
    ("aarch64 run_soa", Backend::Aarch64, Mode::Soa),
    ("aarch64 run_geometry", Backend::Aarch64, Mode::Geometry),
];

/// Every engine this host can run. A new backend is more rows in [`NATIVE`].
pub fn engines() -> Vec<Engine> {
    let mut all = vec![
        Engine {
            name: "interp run_vertex",
            runner: Runner::InterpSingle,
        },
        Engine {
            name: "interp run",
            runner: Runner::InterpBatch { par: false },
        },
        Engine {
            name: "interp run_par",
            runner: Runner::InterpBatch { par: true },
        },
    ];
    let available = Backend::runnable();
    all.extend(
        NATIVE
            .iter()
            .filter(|(_, backend, _)| available.contains(backend))
            .map(|&(name, backend, mode)| Engine {
                name,
                runner: Runner::Native(backend, mode),
            }),
    );
    if !available.contains(&Backend::Aarch64) {
        aarch64_missing();
    }
    all
}

/// Without qemu-user the AArch64 backend cannot run on this host: a failure under CI, a loud
/// note (once per test binary) otherwise.
pub fn aarch64_missing() {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI: the AArch64 backend cannot run (install qemu-user-static: make setup)"
    );
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        eprintln!(
            "SKIPPED: AArch64 engine (no qemu-aarch64-static; `make setup` installs it): \
             programs ran on the interpreter and x86-64 only"
        )
    });
}

#[derive(Clone, Copy)]
enum Mode {
    Aos,
    Soa,
    Par,
    /// `run_geometry`: every output register and the emitted triangles.
    Geometry,
}

/// A JIT backend through the engine API (the shader may still run on the interpreter fallback
/// when it cannot be compiled; `tests/engine_paths.rs` checks which programs run natively).
fn native(
    program: &Program,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
    backend: Backend,
    mode: Mode,
) -> EngineRun {
    // Kernels compiled by the running thread, so each run uses the SoA and uniform-specialized
    // kernels, not the generic one that serves while they compile in the background.
    let engine = picajit::engine::Engine::new(backend)
        .expect("backend listed as available")
        .with_background_compile(false)
        .with_budget(budget);
    let shader = engine.compile(program);
    if std::env::var_os("PICAJIT_TEST_PATHS").is_some() {
        eprintln!("PATH {}", shader.path());
    }
    let mut outputs = vec![[[f32::from_bits(0x7F80_DEAD); 4]; 16]; inputs.len()];
    let mut status = vec![VertexStatus::BudgetExhausted; inputs.len()];
    if let Mode::Geometry = mode {
        let (invocations, result) = shader.run_geometry(uniforms, inputs);
        // The flat API into a buffer that already holds another run's results (every test
        // program of this thread so far) must say the same.
        thread_local! {
            static REUSED: std::cell::RefCell<GeometryOutput> = Default::default();
        }
        REUSED.with_borrow_mut(|flat| {
            let flat_result = shader.run_geometry_into(uniforms, inputs, flat);
            assert_eq!(flat_result, result, "run_geometry_into: batch result");
            assert_eq!(
                flat.len(),
                invocations.len(),
                "run_geometry_into: invocations"
            );
            for (i, inv) in invocations.iter().enumerate() {
                assert_eq!(
                    flat.status[i], inv.status,
                    "run_geometry_into: status of {i}"
                );
                let same = |a: &Regs16, b: &Regs16| {
                    a.iter()
                        .flatten()
                        .map(|x| x.to_bits())
                        .eq(b.iter().flatten().map(|x| x.to_bits()))
                };
                assert!(
                    same(&flat.outputs[i], &inv.outputs),
                    "run_geometry_into: outputs of {i}"
                );
                let prims = flat.primitives_of(i);
                assert_eq!(
                    prims.len(),
                    inv.primitives.len(),
                    "run_geometry_into: triangles of {i}"
                );
                for (p, q) in prims.iter().zip(&inv.primitives) {
                    assert_eq!(p.winding, q.winding, "run_geometry_into: winding ({i})");
                    for (a, b) in p.vertices.iter().zip(&q.vertices) {
                        assert!(same(a, b), "run_geometry_into: triangle of {i}");
                    }
                }
            }
        });
        if backend == Backend::Aarch64 {
            assert_eq!(
                picajit_codegen::aarch64::runner::failures(),
                0,
                "the qemu job server failed (the engine fell back to the interpreter)"
            );
        }
        return EngineRun {
            outputs: invocations.iter().map(|i| i.outputs).collect(),
            status: invocations.iter().map(|i| i.status).collect(),
            primitives: Some(invocations.into_iter().map(|i| i.primitives).collect()),
            batch: Some(result),
        };
    }
    let result = match mode {
        Mode::Geometry => unreachable!("handled above"),
        Mode::Aos => shader.run(uniforms, inputs, &mut outputs, &mut status),
        Mode::Par => shader.run_par(uniforms, inputs, &mut outputs, &mut status),
        Mode::Soa => {
            let soa_in = SoaBuffer::from_aos(inputs);
            let mut soa_out = SoaBuffer::new(inputs.len());
            soa_out.data.fill(f32::from_bits(0x7F80_DEAD));
            let r = shader.run_soa(uniforms, &soa_in, &mut soa_out, &mut status);
            outputs = soa_out.to_aos();
            r
        }
    };
    if backend == Backend::Aarch64 {
        assert_eq!(
            picajit_codegen::aarch64::runner::failures(),
            0,
            "the qemu job server failed (the engine fell back to the interpreter)"
        );
    }
    // The output contract: registers outside the program's write set are left untouched.
    assert_eq!(
        shader.outputs_written(),
        program.outputs_written(),
        "the engine's write set"
    );
    untouched_then_zero(&mut outputs, shader.outputs_written());
    EngineRun {
        outputs,
        status,
        primitives: None,
        batch: Some(result),
    }
}

fn interp_single(
    program: &Program,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
) -> EngineRun {
    let interp = Interpreter::new(program).with_budget(budget);
    let runs: Vec<Invocation> = inputs
        .iter()
        .map(|input| interp.run_vertex(uniforms, input))
        .collect();
    EngineRun {
        outputs: runs.iter().map(|i| i.outputs).collect(),
        status: runs.iter().map(|i| i.status).collect(),
        primitives: Some(runs.into_iter().map(|i| i.primitives).collect()),
        batch: None,
    }
}

fn interp_batch(
    program: &Program,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
    parallel: bool,
) -> EngineRun {
    let interp = Interpreter::new(program).with_budget(budget);
    // Poison the buffers so a vertex the engine forgot to write cannot pass.
    let mut outputs = vec![[[f32::from_bits(0x7F80_DEAD); 4]; 16]; inputs.len()];
    let mut status = vec![VertexStatus::BudgetExhausted; inputs.len()];
    let result = if parallel {
        interp.run_par(uniforms, inputs, &mut outputs, &mut status)
    } else {
        interp.run(uniforms, inputs, &mut outputs, &mut status)
    };
    untouched_then_zero(&mut outputs, interp.outputs_written());
    EngineRun {
        outputs,
        status,
        primitives: None,
        batch: Some(result),
    }
}

/// The output contract of batch runs (`Interpreter::run`): a register outside the program's
/// write set still holds the marker the buffer was filled with. Those registers are then set
/// to 0.0, what `run_vertex` reports for them, so every engine compares on one footing.
fn untouched_then_zero(outputs: &mut [Regs16], written: u16) {
    for out in outputs {
        for (r, reg) in out.iter_mut().enumerate() {
            if written >> r & 1 == 0 {
                assert!(
                    reg.iter().all(|x| x.to_bits() == 0x7F80_DEAD),
                    "o{r} was written although the program never writes it"
                );
                *reg = [0.0; 4];
            }
        }
    }
}

fn same_regs(a: &Regs16, b: &Regs16) -> bool {
    a.iter()
        .flatten()
        .zip(b.iter().flatten())
        .all(|(&x, &y)| same(x, y))
}

fn same_prims(a: &[Primitive], b: &[Primitive]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(p, q)| {
            p.winding == q.winding
                && p.vertices
                    .iter()
                    .zip(&q.vertices)
                    .all(|(x, y)| same_regs(x, y))
        })
}

/// The result every engine agreed on.
#[derive(Clone, Debug)]
pub struct Agreed {
    /// Per vertex: outputs, status and triangles.
    pub invocations: Vec<Invocation>,
    /// The batch result (every batch engine reported this one).
    pub batch: Result<(), RunError>,
}

/// The default step budget (`picajit::interp::DEFAULT_BUDGET`).
pub const DEFAULT_BUDGET: u32 = 1 << 20;

/// Runs `inputs` on every engine with step budget `budget`, asserts they agree and returns the
/// agreed result.
#[track_caller]
pub fn run_all_budget(
    program: &Program,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
) -> Agreed {
    let engines = engines();
    let runs: Vec<(&str, EngineRun)> = engines
        .iter()
        .map(|e| (e.name, e.run(program, uniforms, inputs, budget)))
        .collect();
    let (first_name, first) = &runs[0];
    for (name, run) in &runs {
        assert_eq!(run.outputs.len(), inputs.len(), "{name}: output count");
        assert_eq!(run.status, first.status, "{name} vs {first_name}: statuses");
        // Outputs are compared for every vertex, also those that ran out of budget: every
        // engine stops at the same instruction with the registers it left.
        for n in 0..run.status.len() {
            assert!(
                same_regs(&run.outputs[n], &first.outputs[n]),
                "{name} vs {first_name}: outputs of vertex {n}\n{:?}\n{:?}",
                run.outputs[n],
                first.outputs[n]
            );
        }
    }
    let with_prims: Vec<&(&str, EngineRun)> = runs
        .iter()
        .filter(|(_, r)| r.primitives.is_some())
        .collect();
    assert!(!with_prims.is_empty(), "no engine reports primitives");
    let (pname, pfirst) = with_prims[0];
    let prims = pfirst.primitives.clone().unwrap();
    for (name, run) in &with_prims {
        let other = run.primitives.as_ref().unwrap();
        // Every invocation's triangles, also of one that ran out of budget (those it
        // emitted before).
        for n in 0..run.status.len() {
            assert!(
                same_prims(&other[n], &prims[n]),
                "{name} vs {pname}: triangles of vertex {n}"
            );
        }
    }
    let batches: Vec<&(&str, EngineRun)> = runs.iter().filter(|(_, r)| r.batch.is_some()).collect();
    assert!(!batches.is_empty(), "no engine has a batch interface");
    let batch = batches[0].1.batch.clone().unwrap();
    for (name, run) in &batches {
        assert_eq!(run.batch.as_ref().unwrap(), &batch, "{name}: batch result");
    }
    let invocations = first
        .outputs
        .iter()
        .zip(&first.status)
        .zip(prims)
        .map(|((&outputs, &status), primitives)| Invocation {
            outputs,
            status,
            primitives,
        })
        .collect();
    Agreed { invocations, batch }
}

/// Runs `inputs` on every engine with the default budget and returns the agreed invocations.
#[track_caller]
pub fn run_all(program: &Program, uniforms: &Uniforms, inputs: &[Regs16]) -> Vec<Invocation> {
    run_all_budget(program, uniforms, inputs, DEFAULT_BUDGET).invocations
}

/// Runs a batch that must end normally on every vertex; returns each vertex's outputs.
#[track_caller]
pub fn run_ok(program: &Program, uniforms: &Uniforms, inputs: &[Regs16]) -> Vec<Regs16> {
    let agreed = run_all_budget(program, uniforms, inputs, DEFAULT_BUDGET);
    assert_eq!(agreed.batch, Ok(()), "batch result");
    agreed
        .invocations
        .iter()
        .map(|inv| {
            assert_eq!(inv.status, VertexStatus::Ended);
            inv.outputs
        })
        .collect()
}

/// Runs one vertex that must end normally; returns its outputs.
#[track_caller]
pub fn run_one(program: &Program, uniforms: &Uniforms, input: Regs16) -> Regs16 {
    run_ok(program, uniforms, &[input])[0]
}
