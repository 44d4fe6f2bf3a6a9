//! The AGAL frontend: a validated [`Program`] → functions of `picajit-codegen`'s block IR
//! ([`Lowered`]: one per segment between texture samples, see [`segment`](mod@segment)) that
//! compute, for every lane of a batch, exactly what the reference interpreter
//! ([`crate::agal::interp`]) computes for one vertex or one fragment — bit for bit, a NaN being
//! any NaN.
//!
//! # The batch
//! A lane is a vertex, or a fragment; fragment batches hold whole 2×2 quads (lanes `4q..4q+4`
//! are quad `q`'s top-left, top-right, bottom-left, bottom-right), which `ddx`/`ddy` need.
//! The function reads and writes the PICA-shaped batch context ([`picajit_codegen::abi`]):
//!
//! | AGAL                         | IR                                                        |
//! |------------------------------|-----------------------------------------------------------|
//! | `va0`…`va15` (vertex)        | `input 0..15`                                             |
//! | `v0`…`v9` (fragment)         | `input 0..9`                                              |
//! | `vc`/`fc` n                  | `const n` (the context's constant table)                  |
//! | `vc[r.c + o]`                | `ftoi.sat` of `r.c`, then `const.idx` with immediate `o + row` |
//! | `iid` (AGAL 3)               | `uniform 0` (the host puts the run's instance id in `c0`)  |
//! | `op`, `v0`…`v9` (vertex)     | `output 0`, `output 1..10`                                |
//! | `oc0`…`oc3`, `od` (fragment) | `output 0..3`, `output 4` (`.x`)                          |
//! | `kil` flags (fragment)       | `output 5` `.x`: 1.0 for a discarded fragment, else 0.0    |
//!
//! # Lowering
//! Every register component is tracked as the IR variable holding its current value (zero until
//! written). An instruction reads its sources' variables through their swizzles, computes fresh
//! variables for the components its destination mask writes, and only then rebinds the
//! destination's components — so a destination that aliases a source (`m44 vt0, vt0, vc0`,
//! `nrm vt1.xyz, vt1`, `crs`) reads the old values, as the interpreter does. Matrices are
//! expanded row by row with register stepping over the matrix operand's file (or its indirect
//! offset); `dp3`/`dp4` and every row sum left to right from `+0`. The arithmetic of each opcode
//! is in `math`, stated against [`crate::agal::interp::math`].
//!
//! **Conditionals** (AGAL 2) become lane masks: `ife`/`ine`/`ifg`/`ifl` push `parent ∧ cond`,
//! `els` switches to `parent ∧ ¬cond`, `eif` pops; under a mask every write is
//! `select(mask, new, old)`. The validator guarantees the blocks nest. **`kil`** accumulates
//! a per-lane flag (`x < 0` under the current mask) stored to output 5.
//!
//! Outputs are stored once, at the end, for the components written; the kernel's output
//! staging is zero for the rest, as the interpreter's registers are.
//!
//! **`tex`** and **`tld`** (AGAL 4 vertex texture fetch) end a segment: the host samples
//! between segments ([`segment`](mod@segment)).
//!
//! # What is not lowered
//! A `tex`/`tld` across which more state lives than the intermediate layout carries makes
//! [`lower`] return [`Unsupported::TooMuchState`]; the engine then runs the program on the
//! interpreter (the same answer, slower), and says so: [`crate::engine::AgalShader::path`] is
//! an interpreter fallback with this reason, `picajit dump` prints it and
//! [`crate::engine::EngineStats::agal_fallbacks`] counts it. (`ted` never reaches the frontend:
//! the validator refuses it.)

mod math;
pub mod segment;

pub use segment::{Sample, SampleLod, CARRY_FIRST, CARRY_LIMIT, SAMPLE_REG};

use picajit_codegen::ir::{Builder, CmpKind, Function, Op, Terminator, Var, Verified};
use picajit_codegen::opt;
use thiserror::Error;

use super::header::ShaderKind;
use super::opcode::Opcode;
use super::program::{Addr, Dst, Instruction, Program, Src};
use super::reg::RegType;

/// Output register of a fragment program's discard flags.
pub const KILL_OUTPUT: u32 = 5;
/// Output register of a fragment program's depth (`od.x`).
pub const DEPTH_OUTPUT: u32 = 4;
/// Output register of vertex varying 0 (`op` is output 0).
pub const VARYING_OUTPUT: u32 = 1;

/// Why a program is not lowered (the engine then runs it on the interpreter).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Unsupported {
    /// An opcode the frontend does not lower yet.
    #[error("`{}` is not compiled yet", .0.mnemonic())]
    Opcode(Opcode),
    /// More state lives across a `tex` than the intermediate layout carries.
    #[error("{0} components live across a texture sample (at most 60 are carried)")]
    TooMuchState(usize),
    /// A frontend bug: the function it built failed a check.
    #[error("internal error: {0}")]
    Internal(String),
}

/// A lowered program: one function per segment between texture samples.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The functions, run one after the other over the batch (`samples.len() + 1` of them):
    /// segment 0 reads the program's inputs, the last writes its outputs, each other reads
    /// and writes the intermediate layout of [`segment`](mod@segment).
    pub segments: Vec<Verified>,
    /// The texture sample after each segment but the last.
    pub samples: Vec<Sample>,
}

impl Lowered {
    /// The only function of a program without `tex`.
    pub fn single(&self) -> Option<&Function> {
        match self.segments.as_slice() {
            [f] => Some(&**f),
            _ => None,
        }
    }
}

/// Lowers a validated program to IR (optimized: CSE and dead-code elimination).
pub fn lower(program: &Program) -> Result<Lowered, Unsupported> {
    let mut l = Lowering::new(program);
    for (n, i) in program.instructions.iter().enumerate() {
        l.instruction(i, n)?;
    }
    if let Some(e) = l.error.take() {
        return Err(e);
    }
    let mut funcs = std::mem::take(&mut l.segments);
    let samples = std::mem::take(&mut l.samples);
    funcs.push(l.finish());
    let mut segments = Vec::with_capacity(funcs.len());
    for mut func in funcs {
        opt::cse(&mut func);
        opt::dce(&mut func);
        let func = Verified::new(func).map_err(|e| Unsupported::Internal(e.to_string()))?;
        segments.push(func);
    }
    Ok(Lowered { segments, samples })
}

/// Register files that hold variables (index by [`RegType::code`]): attributes, temporaries,
/// outputs, varyings, depth output; constants, samplers and `iid` are read from the context.
const FILE_SIZES: [usize; 8] = [16, 0, 26, 4, 10, 0, 1, 1];

pub(super) struct Lowering {
    b: Builder,
    kind: ShaderKind,
    /// Per instruction: the register components read after it ([`segment`](mod@segment)).
    reads_after: Vec<segment::Reads>,
    /// Finished segments (before the current one) and the samples after them.
    segments: Vec<Function>,
    samples: Vec<Sample>,
    /// A problem found where no `Result` could carry it.
    error: Option<Unsupported>,
    /// Current value of each component: `regs[file][index][comp]`.
    regs: [Vec<[Option<Var>; 4]>; 8],
    /// The lanes that execute (`None`: all).
    exec: Option<Var>,
    /// Open conditional blocks: the mask before each and its condition.
    stack: Vec<(Option<Var>, Var)>,
    /// Per-lane discard flag (1.0 / 0.0), once `kil` appears.
    killed: Option<Var>,
    zero: Option<Var>,
}

impl Lowering {
    fn new(program: &Program) -> Lowering {
        Lowering {
            b: Builder::new(),
            kind: program.kind,
            reads_after: segment::reads_after(program),
            segments: Vec::new(),
            samples: Vec::new(),
            error: None,
            regs: FILE_SIZES.map(|n| vec![[None; 4]; n]),
            exec: None,
            stack: Vec::new(),
            killed: None,
            zero: None,
        }
    }

    /// The constant +0.0 (one variable for the function).
    pub(super) fn zero(&mut self) -> Var {
        match self.zero {
            Some(z) => z,
            None => {
                let z = self.b.fconst(0.0);
                self.zero = Some(z);
                z
            }
        }
    }

    /// Component `comp` of register `index` of `file` (unswizzled), as a variable.
    fn component(&mut self, file: RegType, index: u16, comp: usize) -> Var {
        let (i, c) = (u32::from(index), comp as u32);
        match file {
            RegType::Constant => self.b.inst(Op::Const, &[], [i, c]),
            RegType::InstanceId => self.b.inst(Op::Uniform, &[], [0, c]),
            RegType::Attribute | RegType::Varying if self.reads_inputs(file) => {
                let slot = &mut self.regs[usize::from(file.code())][usize::from(index)][comp];
                match *slot {
                    Some(v) => v,
                    None => {
                        if !self.samples.is_empty() {
                            // After a sample the inputs are the intermediate layout: every
                            // input read later was carried (segment::reads_after).
                            self.error = Some(Unsupported::Internal(format!(
                                "{file:?} {index}.{comp} read after a sample but not carried"
                            )));
                        }
                        let v = self.b.inst(Op::Input, &[], [i, c]);
                        *slot = Some(v);
                        v
                    }
                }
            }
            RegType::Attribute
            | RegType::Varying
            | RegType::Temporary
            | RegType::Output
            | RegType::DepthOutput
            | RegType::Sampler => {
                match self
                    .regs
                    .get(usize::from(file.code()))
                    .and_then(|f| f.get(usize::from(index)))
                    .and_then(|r| r[comp])
                {
                    Some(v) => v,
                    None => self.zero(),
                }
            }
        }
    }

    /// True when `file` is the program's input file (attributes of a vertex program, varyings
    /// of a fragment program).
    fn reads_inputs(&self, file: RegType) -> bool {
        matches!(
            (self.kind, file),
            (ShaderKind::Vertex, RegType::Attribute) | (ShaderKind::Fragment, RegType::Varying)
        )
    }

    /// Component `comp` of row `row` of a source, unswizzled (register `index + row`, or the
    /// constant at the indirect index `+ row`).
    fn fetch(&mut self, s: &Src, row: u16, comp: usize) -> Var {
        match s.addr {
            Addr::Direct(r) => self.component(r.file, r.index + row, comp),
            Addr::Indirect {
                index,
                comp: ic,
                offset,
            } => {
                let x = self.component(index.file, index.index, usize::from(ic));
                let i = self.b.unary(Op::FtoiSat, x);
                let imm = u32::from(offset) + u32::from(row);
                self.b.inst(Op::ConstIdx, &[i], [imm, comp as u32])
            }
        }
    }

    /// Component `c` of a source read through its swizzle.
    pub(super) fn read(&mut self, s: &Src, c: usize) -> Var {
        self.fetch(s, 0, s.swizzle.lane(c))
    }

    /// Writes `values` (by component) to the masked components of `d`, under the current
    /// execution mask.
    fn write(&mut self, d: &Dst, values: [Option<Var>; 4]) -> Result<(), Unsupported> {
        let file = usize::from(d.reg.file.code());
        for (c, value) in values.into_iter().enumerate() {
            if !d.mask.has(c) {
                continue;
            }
            let Some(v) = value else {
                return Err(Unsupported::Internal(format!(
                    "no value for component {c} of a write"
                )));
            };
            let v = match self.exec {
                Some(m) => {
                    let old = self.component(d.reg.file, d.reg.index, c);
                    self.b.select(m, v, old)
                }
                None => v,
            };
            let slot = self
                .regs
                .get_mut(file)
                .and_then(|f| f.get_mut(usize::from(d.reg.index)))
                .ok_or_else(|| Unsupported::Internal(format!("no register {:?}", d.reg)))?;
            slot[c] = Some(v);
        }
        Ok(())
    }

    /// `ife`/`ine`/`ifg`/`ifl`: pushes the enclosing execution mask and narrows it to the
    /// lanes where `kind` holds between the first components of the two sources.
    fn open_if(&mut self, i: &Instruction, kind: CmpKind) -> Result<(), Unsupported> {
        let missing = || Unsupported::Internal(format!("`{}` lacks an operand", i.op.mnemonic()));
        let (s1, s2) = (i.src1.ok_or_else(missing)?, i.src2.ok_or_else(missing)?);
        let (a, b) = (self.read(&s1, 0), self.read(&s2, 0));
        let cond = self.b.cmp(kind, a, b);
        self.stack.push((self.exec, cond));
        self.exec = Some(self.and_exec(self.exec, cond));
        Ok(())
    }

    fn instruction(&mut self, i: &Instruction, n: usize) -> Result<(), Unsupported> {
        let missing = || Unsupported::Internal(format!("`{}` lacks an operand", i.op.mnemonic()));
        let mask = i.dest.map(|d| d.mask.0).unwrap_or(0);
        match i.op {
            Opcode::Ife => self.open_if(i, CmpKind::Eq),
            Opcode::Ine => self.open_if(i, CmpKind::Ne),
            Opcode::Ifg => self.open_if(i, CmpKind::Gt),
            Opcode::Ifl => self.open_if(i, CmpKind::Lt),
            Opcode::Els => {
                if let Some(&(parent, cond)) = self.stack.last() {
                    let not = self.b.unary(Op::MaskNot, cond);
                    self.exec = Some(self.and_exec(parent, not));
                }
                Ok(())
            }
            Opcode::Eif => {
                if let Some((parent, _)) = self.stack.pop() {
                    self.exec = parent;
                }
                Ok(())
            }
            Opcode::Kil => {
                let s = i.src1.ok_or_else(missing)?;
                let x = self.read(&s, 0);
                let zero = self.zero();
                let neg = self.b.cmp(CmpKind::Lt, x, zero);
                let hit = self.and_exec(self.exec, neg);
                let one = self.b.fconst(1.0);
                let old = match self.killed {
                    Some(k) => k,
                    None => zero,
                };
                self.killed = Some(self.b.select(hit, one, old));
                Ok(())
            }
            Opcode::Tex | Opcode::Tld => {
                let (d, s) = (i.dest.ok_or_else(missing)?, i.src1.ok_or_else(missing)?);
                let sampling = i.sampler.ok_or_else(missing)?;
                let lod = if i.op == Opcode::Tld {
                    SampleLod::Explicit
                } else {
                    SampleLod::Derivatives
                };
                let coords = [0, 1, 2, 3].map(|c| self.read(&s, c));
                self.sample_boundary(n, coords, sampling, lod)?;
                let texel =
                    [0, 1, 2, 3].map(|c| Some(self.b.inst(Op::Input, &[], [SAMPLE_REG, c])));
                self.write(&d, texel)
            }
            Opcode::Ted => Err(Unsupported::Opcode(i.op)),
            Opcode::Mov
            | Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Div
            | Opcode::Rcp
            | Opcode::Min
            | Opcode::Max
            | Opcode::Frc
            | Opcode::Sqt
            | Opcode::Rsq
            | Opcode::Log
            | Opcode::Exp
            | Opcode::Sin
            | Opcode::Cos
            | Opcode::Pow
            | Opcode::Ddx
            | Opcode::Ddy
            | Opcode::Nrm
            | Opcode::Crs
            | Opcode::Dp3
            | Opcode::Dp4
            | Opcode::Abs
            | Opcode::Neg
            | Opcode::Sat
            | Opcode::M33
            | Opcode::M44
            | Opcode::M34
            | Opcode::Sge
            | Opcode::Slt
            | Opcode::Sgn
            | Opcode::Seq
            | Opcode::Sne => {
                let d = i.dest.ok_or_else(missing)?;
                let values = self.arith(i, mask)?;
                self.write(&d, values)
            }
        }
    }

    /// `mask ∧ cond` (`cond` alone when every lane executes).
    fn and_exec(&mut self, mask: Option<Var>, cond: Var) -> Var {
        match mask {
            Some(m) => self.b.binary(Op::MaskAnd, m, cond),
            None => cond,
        }
    }

    /// The output stores, then the finished function.
    fn finish(mut self) -> Function {
        let mut stores: Vec<(u32, u32, Var)> = Vec::new();
        let outputs: &[(RegType, u32)] = match self.kind {
            ShaderKind::Vertex => &[(RegType::Output, 0), (RegType::Varying, VARYING_OUTPUT)],
            ShaderKind::Fragment => &[(RegType::Output, 0), (RegType::DepthOutput, DEPTH_OUTPUT)],
        };
        for &(file, first) in outputs {
            for (n, reg) in self.regs[usize::from(file.code())].iter().enumerate() {
                for (c, v) in reg.iter().enumerate() {
                    if let Some(v) = v {
                        stores.push((first + n as u32, c as u32, *v));
                    }
                }
            }
        }
        if let Some(k) = self.killed {
            stores.push((KILL_OUTPUT, 0, k));
        }
        for (r, c, v) in stores {
            self.b.effect(Op::Output, &[v], [r, c]);
        }
        self.b.terminate(Terminator::Exit);
        self.b.finish()
    }
}
