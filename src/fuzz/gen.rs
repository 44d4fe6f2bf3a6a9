//! The program generator: seeded random vertex-shader cases drawn from the opcode table, and
//! geometry-shader cases made from them ([`generate_geometry`]).
//!
//! Arithmetic comes from [`Opcode::ALL`]: every opcode whose format has ALU operands (or the
//! subset `--ops` names), encoded through its format's struct with random registers, a random
//! descriptor entry and, on the wide slot, random relative addressing. Descriptors are random
//! masks, swizzles and negations. Control flow comes in three shapes ([`Shape`]):
//!
//! - **structured**, as picasso emits it: IFU/IFC with and without ELSE, CALL/CALLU/CALLC of
//!   procedures placed after the main END, LOOP bodies with BREAK/BREAKC, forward JMPC/JMPU
//!   skips, early END inside a conditional; conditions on uniform cc (CMP of uniforms) and
//!   per-vertex cc (CMP of inputs), so some batches' lanes take different paths;
//! - **unstructured**: a structured program overwritten with flow words of every flow format
//!   aimed anywhere in the program (into and out of scopes, backward JMPC/JMPU), call chains
//!   deeper than the CALL stack, IF and LOOP nests deeper than theirs, END inside a procedure,
//!   an entry point in the middle;
//! - **hostile**: undefined opcodes, stray unused bits, targets past the program up to slot
//!   4095, programs without END, runaway loops (backward jumps on a true bool, a procedure that
//!   calls itself, LOOPs of 256 passes nested) that must stop at the step budget.
//!
//! A case is fully determined by its seed and the [`Config`].

use crate::case::Case;
use crate::isa::{
    AddrIdx, CmpOp, CondOp, Dst, Fmt1, Fmt1c, Fmt1i, Fmt1u, Fmt2, Fmt3b, Fmt3i, Fmt4, Fmt5, Fmt5i,
    Format, Instruction, OpDesc, Opcode, Src, SrcMod,
};
use crate::program::{ShaderKind, CODE_WORDS};

use super::values;

/// The shape of a generated program's control flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    Structured,
    Unstructured,
    Hostile,
}

impl Shape {
    /// All shapes, in the order stats list them.
    pub const ALL: [Shape; 3] = [Shape::Structured, Shape::Unstructured, Shape::Hostile];

    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Structured => "structured",
            Shape::Unstructured => "unstructured",
            Shape::Hostile => "hostile",
        }
    }
}

/// A generated case: the program, uniforms and inputs, and the step budget to run it with.
#[derive(Clone, Debug, PartialEq)]
pub struct FuzzCase {
    pub case: Case,
    /// Backward transfers per vertex (the step budget of [`crate::interp`]).
    pub budget: u32,
    pub shape: Shape,
}

impl FuzzCase {
    /// Equality of the bit patterns (NaN payloads included), which `==` on floats is not.
    pub fn same_as(&self, other: &FuzzCase) -> bool {
        self.budget == other.budget && self.case.to_bytes() == other.case.to_bytes()
    }
}

/// What the generator may draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    alu: Vec<Opcode>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            alu: Opcode::ALL
                .iter()
                .copied()
                .filter(|op| is_alu(op.format()))
                .collect(),
        }
    }
}

impl Config {
    /// Arithmetic restricted to the opcodes named in a comma-separated list of mnemonics
    /// (`"mad,dp4"`). Only opcodes with ALU operands can be named. The CMP and MOVA that set up
    /// conditions and address registers are still emitted by the flow and addressing templates.
    pub fn with_ops(list: &str) -> Result<Config, String> {
        let all = Config::default();
        let mut alu = Vec::new();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some(op) = Opcode::ALL
                .iter()
                .copied()
                .find(|op| op.mnemonic().eq_ignore_ascii_case(name))
            else {
                return Err(format!("--ops: no opcode named {name:?}"));
            };
            if !is_alu(op.format()) {
                let names: Vec<&str> = all.alu.iter().map(|o| o.mnemonic()).collect();
                return Err(format!(
                    "--ops: {name} is not an arithmetic opcode (one of: {})",
                    names.join(", ")
                ));
            }
            if !alu.contains(&op) {
                alu.push(op);
            }
        }
        if alu.is_empty() {
            return Err("--ops: no opcode given".to_string());
        }
        Ok(Config { alu })
    }

    /// The arithmetic opcodes drawn.
    pub fn alu_ops(&self) -> &[Opcode] {
        &self.alu
    }
}

/// Whether a format carries ALU operands (registers and a descriptor).
pub const fn is_alu(format: Format) -> bool {
    match format {
        Format::Fmt1
        | Format::Fmt1u
        | Format::Fmt1i
        | Format::Fmt1c
        | Format::Fmt5
        | Format::Fmt5i => true,
        Format::Fmt0
        | Format::Fmt2
        | Format::Fmt3b
        | Format::Fmt3i
        | Format::Fmt4
        | Format::Raw => false,
    }
}

/// Whether a format is a control transfer with a target.
const fn is_flow(format: Format) -> bool {
    match format {
        Format::Fmt2 | Format::Fmt3b | Format::Fmt3i => true,
        Format::Fmt0
        | Format::Fmt1
        | Format::Fmt1u
        | Format::Fmt1i
        | Format::Fmt1c
        | Format::Fmt4
        | Format::Fmt5
        | Format::Fmt5i
        | Format::Raw => false,
    }
}

/// The word of `op` with operand bits `fields` (placed by a format's `encode`).
fn word(op: Opcode, fields: u32) -> u32 {
    u32::from(op.values()[0]) << 26 | fields
}

/// Most vertices × (budget + 1) of an unstructured or hostile case.
const MAX_WALKS: u32 = 8000;
/// Most vertices × (budget + 1) of a structured case.
const MAX_STRUCTURED_WALKS: u32 = 70_000;
/// Longest generated program (main part, before procedures).
const MAIN_WORDS: usize = 120;
/// Longest generated program including procedures.
const MAX_WORDS: usize = 400;
/// The temporary kept uniform: written only from uniforms at the top of the main program, it
/// is the narrow operand of CMPs meant to give uniform cc.
const UNIFORM_TEMP: u8 = 15;

/// Generates the case of `seed`.
pub fn generate(seed: u64, config: &Config) -> FuzzCase {
    let mut rng = fastrand::Rng::with_seed(seed);
    let shape = match rng.u8(0..20) {
        0..=10 => Shape::Structured,
        11..=16 => Shape::Unstructured,
        _ => Shape::Hostile,
    };
    let mut g = Gen::new(rng, config, shape);
    g.program();
    let entry = g.entry;
    let Gen {
        mut rng,
        code,
        descs,
        ..
    } = g;
    let uniforms = values::uniforms(&mut rng);
    let n = values::vertex_count(&mut rng);
    let inputs = values::inputs(&mut rng, n);
    let budget = match shape {
        Shape::Structured if n == 1 && rng.u8(0..8) == 0 => 65_537,
        Shape::Structured => 2048,
        Shape::Unstructured => match rng.u8(0..8) {
            0 => rng.u32(0..8),
            1..=3 => rng.u32(8..300),
            _ => 1024,
        },
        Shape::Hostile => match rng.u8(0..4) {
            0 => rng.u32(0..8),
            _ => rng.u32(8..300),
        },
    };
    // Bounded work (a case runs about 16 times: reference, alternate uniforms, each backend
    // and I/O path): between two backward transfers a run may walk all of code memory (4096
    // steps) when the program jumps into zeroed words, so unstructured and hostile cases keep
    // vertices × (budget + 1) small. Structured programs end with END and only loop within
    // their few hundred words; large batches of them still get a smaller budget.
    let walks = match shape {
        Shape::Structured => MAX_STRUCTURED_WALKS,
        Shape::Unstructured | Shape::Hostile => MAX_WALKS,
    };
    let budget = budget.min((walks / n as u32).saturating_sub(1));
    FuzzCase {
        case: Case {
            code,
            descs,
            entry,
            uniforms,
            inputs,
            kind: ShaderKind::Vertex,
        },
        budget,
        shape,
    }
}

/// Most vertices × (budget + 1) of a geometry case: every EMIT can make a triangle (772 bytes
/// in each run's results), so runaway loops over EMIT stay bounded.
const MAX_GEOMETRY_WALKS: u32 = 4000;

/// Generates the geometry-shader case of `seed`: the program of [`generate`] with half of its
/// arithmetic words turned into EMIT or SETEMIT ([`with_emitters`]), so that lanes emit
/// under per-vertex conditions, from different emitter states and different numbers of
/// triangles; run as a geometry shader (each input vertex is one invocation), with the step
/// budget bounded by the number of vertices (`MAX_GEOMETRY_WALKS`).
pub fn generate_geometry(seed: u64, config: &Config) -> FuzzCase {
    let mut fuzz = generate(seed, config);
    let mut rng = fastrand::Rng::with_seed(seed ^ EMITTER_SEED);
    with_emitters(&mut fuzz.case.code, &mut rng);
    fuzz.case.kind = ShaderKind::Geometry;
    let n = fuzz.case.inputs.len().max(1) as u32;
    fuzz.budget = fuzz.budget.min((MAX_GEOMETRY_WALKS / n).saturating_sub(1));
    fuzz
}

/// What [`generate_geometry`] mixes into a seed for [`with_emitters`].
pub const EMITTER_SEED: u64 = 0x6E0_6E0;

/// Turns about half of the arithmetic words of `code` (any word that decodes to an
/// instruction with ALU operands, but CMP) into EMIT or SETEMIT (random vertex id 0–3,
/// primitive flag seven times in eight, random winding): a program of any generator made a
/// geometry shader whose emits sit where its arithmetic was, under its conditions. The geometry generator of
/// both `picajit fuzz --geometry` ([`generate_geometry`]) and `tests/frontend_random.rs`.
pub fn with_emitters(code: &mut [u32], rng: &mut fastrand::Rng) {
    for w in code.iter_mut() {
        let instr = Instruction::decode(*w);
        // CMPs stay: they make the per-vertex conditions the emits sit under.
        let arithmetic = instr.alu().is_some() && instr.opcode() != Opcode::Cmp;
        if arithmetic && rng.u8(0..2) == 0 {
            *w = if rng.bool() {
                word(Opcode::Emit, 0)
            } else {
                let f = Fmt4 {
                    vertex: rng.u8(0..4),
                    primitive: rng.u8(0..8) != 0,
                    winding: rng.bool(),
                };
                word(Opcode::Setemit, f.encode())
            };
        }
    }
}

/// A procedure to be placed after the main program: its depth budget and the call sites to
/// patch with its address and length.
struct Proc {
    depth: u32,
    sites: Vec<usize>,
}

/// Where a statement is being generated.
#[derive(Clone, Copy)]
struct Ctx {
    depth: u32,
    in_loop: bool,
    /// At the top level of the main program (uniform control, so the uniform temp may be set).
    top: bool,
}

struct Gen<'a> {
    rng: fastrand::Rng,
    cfg: &'a Config,
    shape: Shape,
    code: Vec<u32>,
    descs: Vec<u32>,
    entry: u32,
    procs: Vec<Proc>,
    /// Temporaries r0..r(temps-1) are written and read by arithmetic.
    temps: u8,
    /// Outputs o0..o(outs-1) are written.
    outs: u8,
    /// Inputs v0..v(ins-1) are read.
    ins: u8,
    /// Words of the main program (up to and including its END).
    main_end: usize,
}

impl<'a> Gen<'a> {
    fn new(mut rng: fastrand::Rng, cfg: &'a Config, shape: Shape) -> Gen<'a> {
        let temps = match rng.u8(0..4) {
            0 => 15,
            _ => rng.u8(2..6),
        };
        let outs = match rng.u8(0..6) {
            0 => 16,
            _ => rng.u8(1..5),
        };
        let ins = match rng.u8(0..6) {
            0 => 16,
            _ => rng.u8(1..5),
        };
        let descs = Self::descriptors(&mut rng);
        Gen {
            rng,
            cfg,
            shape,
            code: Vec::new(),
            descs,
            entry: 0,
            procs: Vec::new(),
            temps,
            outs,
            ins,
            main_end: 0,
        }
    }

    /// A descriptor table: mostly full write masks, random swizzles and negations.
    fn descriptors(rng: &mut fastrand::Rng) -> Vec<u32> {
        let n = match rng.u8(0..4) {
            0 => 128,
            1 => rng.usize(1..8),
            _ => rng.usize(8..40),
        };
        (0..n)
            .map(|_| {
                let mask = match rng.u8(0..8) {
                    0..=3 => 0xF,
                    4 => 0,
                    _ => rng.u8(1..16),
                };
                let srcs = std::array::from_fn(|_| {
                    let select = match rng.u8(0..5) {
                        0 | 1 => [0, 1, 2, 3],
                        2 => [rng.u8(0..4); 4],
                        _ => std::array::from_fn(|_| rng.u8(0..4)),
                    };
                    SrcMod {
                        negate: rng.u8(0..4) == 0,
                        select,
                    }
                });
                let unused = if rng.u8(0..32) == 0 { 1 << 31 } else { 0 };
                OpDesc::new(mask, srcs).0 | unused
            })
            .collect()
    }

    fn room(&self) -> bool {
        self.code.len() < MAIN_WORDS
    }

    // ---------------------------------------------------------------------------------------
    // Operands
    // ---------------------------------------------------------------------------------------

    fn input(&mut self) -> Src {
        Src::input(self.rng.u8(0..self.ins))
    }

    fn temp(&mut self) -> Src {
        // Mostly the working set; sometimes the uniform temp (read-only for arithmetic).
        if self.rng.u8(0..16) == 0 {
            Src::temp(UNIFORM_TEMP)
        } else {
            Src::temp(self.rng.u8(0..self.temps))
        }
    }

    fn uniform_reg(&mut self) -> Src {
        let n = match self.rng.u8(0..8) {
            0..=3 => self.rng.u8(0..8),
            4 => self.rng.u8(88..96),
            _ => self.rng.u8(0..96),
        };
        Src::uniform(n)
    }

    /// A 5-bit source: an input or a temporary.
    fn narrow(&mut self) -> Src {
        if self.rng.u8(0..20) < 11 {
            self.input()
        } else {
            self.temp()
        }
    }

    /// A 7-bit source: input, temporary or float uniform.
    fn wide(&mut self) -> Src {
        match self.rng.u8(0..10) {
            0..=3 => self.input(),
            4..=6 => self.temp(),
            _ => self.uniform_reg(),
        }
    }

    /// The address register of the wide slot: often relative when it names a uniform, rarely
    /// (and without effect) when it does not.
    fn idx_for(&mut self, wide: Src) -> AddrIdx {
        let relative = if wide.fits_narrow() {
            self.rng.u8(0..32) == 0
        } else {
            self.rng.u8(0..3) == 0
        };
        if relative {
            [AddrIdx::A0x, AddrIdx::A0y, AddrIdx::AL][self.rng.usize(..3)]
        } else {
            AddrIdx::None
        }
    }

    fn dst(&mut self) -> Dst {
        if self.rng.u8(0..20) < 11 {
            Dst::temp(self.rng.u8(0..self.temps))
        } else {
            Dst::output(self.rng.u8(0..self.outs))
        }
    }

    /// A descriptor index; `bits` is the width of the format's field (7 or 5).
    fn desc(&mut self, bits: u32) -> u8 {
        let reach = (1usize << bits).min(self.descs.len().max(1));
        if self.rng.u8(0..64) == 0 {
            // Past the table: descriptor memory there is 0 (writes nothing).
            self.rng.u8(0..=((1u16 << bits) - 1) as u8)
        } else {
            self.rng.usize(..reach) as u8
        }
    }

    fn cmp_op(&mut self) -> CmpOp {
        CmpOp::ALL[self.rng.usize(..8)]
    }

    fn condop(&mut self) -> CondOp {
        [CondOp::Or, CondOp::And, CondOp::X, CondOp::Y][self.rng.usize(..4)]
    }

    // ---------------------------------------------------------------------------------------
    // Instruction words
    // ---------------------------------------------------------------------------------------

    /// An arithmetic word of `op` (an opcode with ALU operands).
    fn alu_of(&mut self, op: Opcode) -> u32 {
        let fields = match op.format() {
            Format::Fmt1 => {
                let src1 = self.wide();
                Fmt1 {
                    dst: self.dst(),
                    idx: self.idx_for(src1),
                    src1,
                    src2: self.narrow(),
                    desc: self.desc(7),
                }
                .encode()
            }
            Format::Fmt1u => {
                let src1 = self.wide();
                Fmt1u {
                    dst: self.dst(),
                    idx: self.idx_for(src1),
                    src1,
                    desc: self.desc(7),
                }
                .encode()
            }
            Format::Fmt1i => {
                let src2 = self.wide();
                Fmt1i {
                    dst: self.dst(),
                    idx: self.idx_for(src2),
                    src1: self.narrow(),
                    src2,
                    desc: self.desc(7),
                }
                .encode()
            }
            Format::Fmt1c => {
                let src1 = self.wide();
                Fmt1c {
                    cmpx: self.cmp_op(),
                    cmpy: self.cmp_op(),
                    idx: self.idx_for(src1),
                    src1,
                    src2: self.narrow(),
                    desc: self.desc(7),
                }
                .encode()
            }
            Format::Fmt5 => {
                let src2 = self.wide();
                Fmt5 {
                    dst: self.dst(),
                    idx: self.idx_for(src2),
                    src1: self.narrow(),
                    src2,
                    src3: self.narrow(),
                    desc: self.desc(5),
                }
                .encode()
            }
            Format::Fmt5i => {
                let src3 = self.wide();
                Fmt5i {
                    dst: self.dst(),
                    idx: self.idx_for(src3),
                    src1: self.narrow(),
                    src2: self.narrow(),
                    src3,
                    desc: self.desc(5),
                }
                .encode()
            }
            Format::Fmt0
            | Format::Fmt2
            | Format::Fmt3b
            | Format::Fmt3i
            | Format::Fmt4
            | Format::Raw => return self.any_of(op),
        };
        let w = word(op, fields);
        debug_assert_eq!(Instruction::decode(w).opcode(), op);
        w
    }

    /// A random arithmetic word from the configured opcodes.
    fn alu(&mut self) -> u32 {
        let ops = self.cfg.alu_ops();
        let op = ops[self.rng.usize(..ops.len())];
        self.alu_of(op)
    }

    /// A word of any opcode of the table, any value of it, random operand bits (unused bits
    /// cleared most of the time), and a target inside the program most of the time.
    fn any_of(&mut self, op: Opcode) -> u32 {
        let value = op.values()[self.rng.usize(..op.values().len())];
        let mut w = u32::from(value) << 26 | self.rng.u32(..) & 0x03FF_FFFF;
        if self.rng.u8(0..8) != 0 {
            w &= op.used_bits();
        }
        if is_flow(op.format()) {
            let dest = self.target();
            let num = self.rng.u8(0..8);
            w = self.retarget(w, dest, num);
        }
        w
    }

    fn any(&mut self) -> u32 {
        let op = Opcode::ALL[self.rng.usize(..Opcode::ALL.len())];
        self.any_of(op)
    }

    /// A jump target: inside the program (or just past it) most of the time.
    fn target(&mut self) -> u16 {
        let len = self.code.len().max(1) as u16;
        match self.rng.u8(0..16) {
            0 if self.shape == Shape::Hostile => self.rng.u16(..CODE_WORDS as u16),
            1 if self.shape == Shape::Hostile => CODE_WORDS as u16 - self.rng.u16(1..4),
            _ => self.rng.u16(0..len + 1),
        }
    }

    /// `w` with its target (and count, where the format has one) replaced.
    fn retarget(&self, w: u32, dest: u16, num: u8) -> u32 {
        let op_bits = w & 0xFC00_0000;
        let stray = Instruction::unused_bits(w);
        let fields = match Opcode::from_value((w >> 26) as u8).format() {
            Format::Fmt2 => Fmt2 {
                dest,
                num,
                ..Fmt2::decode(w)
            }
            .encode(),
            Format::Fmt3b => Fmt3b {
                dest,
                num,
                ..Fmt3b::decode(w)
            }
            .encode(),
            Format::Fmt3i => Fmt3i {
                dest,
                ..Fmt3i::decode(w)
            }
            .encode(),
            Format::Fmt0
            | Format::Fmt1
            | Format::Fmt1u
            | Format::Fmt1i
            | Format::Fmt1c
            | Format::Fmt4
            | Format::Fmt5
            | Format::Fmt5i
            | Format::Raw => return w,
        };
        op_bits | fields | stray
    }

    fn cond(&mut self, op: Opcode, dest: usize, num: u8) -> u32 {
        let f = Fmt2 {
            refx: self.rng.bool(),
            refy: self.rng.bool(),
            condop: self.condop(),
            dest: dest as u16,
            num,
        };
        word(op, f.encode())
    }

    fn boolean(&mut self, op: Opcode, dest: usize, num: u8) -> u32 {
        let f = Fmt3b {
            id: self.rng.u8(0..16),
            dest: dest as u16,
            num,
        };
        word(op, f.encode())
    }

    /// A word of a flow opcode with a random condition (cc, bool or int uniform, as its
    /// format has), the target and the count; an opcode without a target is plain.
    fn transfer(&mut self, op: Opcode, dest: usize, num: u8) -> u32 {
        match op.format() {
            Format::Fmt2 => self.cond(op, dest, num),
            Format::Fmt3b => self.boolean(op, dest, num),
            Format::Fmt3i => {
                let f = Fmt3i {
                    id: self.rng.u8(0..4),
                    dest: dest as u16,
                    num,
                };
                word(op, f.encode())
            }
            Format::Fmt0
            | Format::Fmt1
            | Format::Fmt1u
            | Format::Fmt1i
            | Format::Fmt1c
            | Format::Fmt4
            | Format::Fmt5
            | Format::Fmt5i
            | Format::Raw => Self::plain(op),
        }
    }

    fn plain(op: Opcode) -> u32 {
        word(op, 0)
    }

    /// CMP setting per-vertex cc (inputs) or uniform cc (a uniform against the uniform temp).
    fn cmp(&mut self, per_vertex: bool) -> u32 {
        let (src1, src2) = if per_vertex {
            (self.input(), self.narrow())
        } else {
            (self.uniform_reg(), Src::temp(UNIFORM_TEMP))
        };
        let f = Fmt1c {
            cmpx: self.cmp_op(),
            cmpy: self.cmp_op(),
            idx: AddrIdx::None,
            src1,
            src2,
            desc: self.desc(7),
        };
        word(Opcode::Cmp, f.encode())
    }

    /// MOVA from an input (per-vertex a0) or a uniform (uniform a0).
    fn mova(&mut self) -> u32 {
        let src1 = if self.rng.bool() {
            self.input()
        } else {
            self.uniform_reg()
        };
        let f = Fmt1u {
            dst: Dst(0),
            idx: AddrIdx::None,
            src1,
            desc: self.desc(7),
        };
        word(Opcode::Mova, f.encode())
    }

    /// Places a word and returns its address.
    fn push(&mut self, w: u32) -> usize {
        self.code.push(w);
        self.code.len() - 1
    }

    /// Ends a scope body as picasso does: a flow instruction as a body's last word is followed
    /// by a NOP (its jump would be overridden by the scope close).
    fn close_body(&mut self) {
        let last = self.code.last().copied().unwrap_or(0);
        let op = Instruction::decode(last).opcode();
        if !is_alu(op.format()) || self.code.is_empty() {
            self.push(Self::plain(Opcode::Nop));
        }
    }

    // ---------------------------------------------------------------------------------------
    // Structured statements
    // ---------------------------------------------------------------------------------------

    fn program(&mut self) {
        // Prologue: the uniform temp, address registers.
        if self.rng.u8(0..3) != 0 {
            let src1 = self.uniform_reg();
            let f = Fmt1u {
                dst: Dst::temp(UNIFORM_TEMP),
                idx: AddrIdx::None,
                src1,
                desc: self.desc(7),
            };
            self.push(word(Opcode::Mov, f.encode()));
        }
        if self.rng.bool() {
            let w = self.mova();
            self.push(w);
        }
        let ctx = Ctx {
            depth: 3,
            in_loop: false,
            top: true,
        };
        self.block(ctx, 2..8);
        if self.rng.u8(0..8) == 0 {
            // A long stretch of arithmetic: register pressure, spills.
            self.straight(40..110);
            self.block(ctx, 0..3);
        }
        if self.shape == Shape::Hostile && self.rng.u8(0..4) == 0 {
            // No END: the run goes on through zeroed code memory to slot 4095 (or the procedures).
        } else {
            self.push(Self::plain(Opcode::End));
        }
        self.main_end = self.code.len();
        self.procedures();
        match self.shape {
            Shape::Structured => {}
            Shape::Unstructured => self.unstructure(),
            Shape::Hostile => {
                self.unstructure();
                self.hostile();
            }
        }
        if self.code.is_empty() {
            self.push(Self::plain(Opcode::End));
        }
        self.code.truncate(MAX_WORDS);
    }

    fn block(&mut self, ctx: Ctx, count: std::ops::Range<usize>) {
        for _ in 0..self.rng.usize(count) {
            if !self.room() {
                break;
            }
            self.statement(ctx);
        }
    }

    fn statement(&mut self, ctx: Ctx) {
        let nested = Ctx {
            depth: ctx.depth.saturating_sub(1),
            top: false,
            ..ctx
        };
        match self.rng.u8(0..64) {
            0..=19 => {
                for _ in 0..self.rng.usize(1..5) {
                    let w = self.alu();
                    self.push(w);
                }
            }
            20..=25 => {
                let per_vertex = self.rng.u8(0..3) != 0;
                let w = self.cmp(per_vertex);
                self.push(w);
            }
            26..=28 => {
                let w = self.mova();
                self.push(w);
            }
            29..=36 if ctx.depth > 0 => self.if_block(nested),
            37..=41 if ctx.depth > 0 => self.loop_block(nested),
            42..=47 if ctx.depth > 0 => self.call(nested),
            48..=53 => self.skip(),
            54..=56 if ctx.in_loop => {
                // BREAKC mostly, sometimes BREAK (inside an IF, as picasso code has it).
                let at = self.code.len();
                let w = if self.rng.u8(0..4) == 0 {
                    Self::plain(Opcode::Break)
                } else {
                    self.cond(Opcode::Breakc, at, 0)
                };
                self.push(w);
            }
            57 => {
                // An early END inside a conditional (inside a procedure: END in a call).
                let at = self.push(0);
                self.push(Self::plain(Opcode::End));
                let end = self.code.len();
                self.code[at] = if self.rng.bool() {
                    self.cond(Opcode::Ifc, end, 0)
                } else {
                    self.boolean(Opcode::Ifu, end, 0)
                };
            }
            58 if ctx.top => {
                // Refresh the uniform temp from a uniform.
                let src1 = self.uniform_reg();
                let f = Fmt1u {
                    dst: Dst::temp(UNIFORM_TEMP),
                    idx: AddrIdx::None,
                    src1,
                    desc: self.desc(7),
                };
                self.push(word(Opcode::Mov, f.encode()));
            }
            59 => {
                // Operand-less and emitter opcodes of the table (no-ops in a vertex shader).
                let misc: Vec<Opcode> = Opcode::ALL
                    .iter()
                    .copied()
                    .filter(|op| {
                        matches!(op.format(), Format::Fmt0 | Format::Fmt4)
                            && !matches!(op, Opcode::End | Opcode::Break)
                    })
                    .collect();
                let op = misc[self.rng.usize(..misc.len())];
                let fields = match op.format() {
                    Format::Fmt4 => Fmt4 {
                        vertex: self.rng.u8(0..4),
                        primitive: self.rng.bool(),
                        winding: self.rng.bool(),
                    }
                    .encode(),
                    Format::Fmt0
                    | Format::Fmt1
                    | Format::Fmt1u
                    | Format::Fmt1i
                    | Format::Fmt1c
                    | Format::Fmt2
                    | Format::Fmt3b
                    | Format::Fmt3i
                    | Format::Fmt5
                    | Format::Fmt5i
                    | Format::Raw => 0,
                };
                self.push(word(op, fields));
            }
            _ => {
                let w = self.alu();
                self.push(w);
            }
        }
    }

    /// Straight-line arithmetic (what if-conversion turns into predicated code).
    fn straight(&mut self, count: std::ops::Range<usize>) {
        for _ in 0..self.rng.usize(count) {
            let w = self.alu();
            self.push(w);
        }
    }

    /// IFU/IFC over a body, with an ELSE body half of the time. Per-vertex IFs have
    /// straight-line arms half of the time.
    fn if_block(&mut self, ctx: Ctx) {
        let uniform = self.rng.bool();
        let straight = !uniform && self.rng.bool();
        let at = self.push(0);
        if straight {
            self.straight(1..5);
        } else {
            self.block(ctx, 1..4);
            self.close_body();
        }
        let else_at = self.code.len();
        if self.rng.bool() {
            if straight {
                self.straight(1..4);
            } else {
                self.block(ctx, 1..3);
                self.close_body();
            }
        }
        let num = (self.code.len() - else_at).min(255) as u8;
        self.code[at] = if uniform {
            self.boolean(Opcode::Ifu, else_at, num)
        } else {
            self.cond(Opcode::Ifc, else_at, num)
        };
    }

    /// LOOP over a body (`DEST` = its last word) that may BREAK.
    fn loop_block(&mut self, ctx: Ctx) {
        let at = self.push(0);
        self.block(
            Ctx {
                in_loop: true,
                ..ctx
            },
            1..4,
        );
        self.close_body();
        let last = self.code.len() - 1;
        let f = Fmt3i {
            id: self.rng.u8(0..4),
            dest: last as u16,
            num: 0,
        };
        self.code[at] = word(Opcode::Loop, f.encode());
    }

    /// CALL/CALLU/CALLC of a new or an already drawn procedure.
    fn call(&mut self, ctx: Ctx) {
        let at = self.code.len();
        let op = [Opcode::Call, Opcode::Callu, Opcode::Callc][self.rng.usize(..3)];
        let w = self.transfer(op, 0, 0);
        self.push(w);
        let existing = self
            .procs
            .iter()
            .position(|p| p.depth <= ctx.depth)
            .filter(|_| self.rng.bool());
        match existing {
            Some(p) => self.procs[p].sites.push(at),
            None => self.procs.push(Proc {
                depth: ctx.depth,
                sites: vec![at],
            }),
        }
    }

    /// A forward JMPC/JMPU over a few arithmetic words.
    fn skip(&mut self) {
        let at = self.push(0);
        for _ in 0..self.rng.usize(0..4) {
            let w = self.alu();
            self.push(w);
        }
        let dest = self.code.len();
        self.code[at] = if self.rng.bool() {
            self.cond(Opcode::Jmpc, dest, 0)
        } else {
            let num = self.rng.u8(0..2);
            self.boolean(Opcode::Jmpu, dest, num)
        };
    }

    /// Places the procedures after the main program and patches their call sites.
    fn procedures(&mut self) {
        let mut k = 0;
        while k < self.procs.len() {
            let start = self.code.len();
            let ctx = Ctx {
                depth: self.procs[k].depth,
                in_loop: false,
                top: false,
            };
            if self.code.len() < MAX_WORDS - 40 {
                self.block(ctx, 1..5);
                self.close_body();
            } else {
                let w = self.alu();
                self.push(w);
            }
            let len = (self.code.len() - start).min(255) as u8;
            for site in std::mem::take(&mut self.procs[k].sites) {
                let w = self.code[site];
                self.code[site] = self.retarget(w, start as u16, len);
            }
            k += 1;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Unstructured and hostile rewrites
    // ---------------------------------------------------------------------------------------

    /// Flow words aimed anywhere, deep nests past the stacks, END inside procedures, an entry
    /// point in the middle.
    fn unstructure(&mut self) {
        let flow_ops: Vec<Opcode> = Opcode::ALL
            .iter()
            .copied()
            .filter(|op| is_flow(op.format()))
            .collect();
        for _ in 0..self.rng.usize(1..5) {
            let op = flow_ops[self.rng.usize(..flow_ops.len())];
            let at = self.rng.usize(..self.code.len().max(1));
            let dest = self.target();
            let num = self.rng.u8(0..6);
            let w = self.transfer(op, usize::from(dest), num);
            if at < self.code.len() {
                self.code[at] = w;
            }
        }
        match self.rng.u8(0..8) {
            0 => self.call_chain(),
            1 => self.nest(Opcode::Ifu, 9),
            2 => self.nest(Opcode::Loop, 5),
            3 => self.nest(Opcode::Ifc, 10),
            4 => {
                // END inside a procedure.
                if let Some(at) = self.code.len().checked_sub(2) {
                    self.code[at] = Self::plain(Opcode::End);
                }
            }
            5 => {
                // A backward JMPC/JMPU.
                let at = self.code.len();
                let dest = self.rng.usize(..at.max(1));
                let w = if self.rng.bool() {
                    self.cond(Opcode::Jmpc, dest, 0)
                } else {
                    let num = self.rng.u8(0..2);
                    self.boolean(Opcode::Jmpu, dest, num)
                };
                self.push(w);
                self.push(Self::plain(Opcode::End));
            }
            _ => {}
        }
        if self.rng.u8(0..4) == 0 {
            self.entry = self.rng.u32(0..self.code.len().max(1) as u32);
        } else if self.shape == Shape::Hostile && self.rng.u8(0..12) == 0 {
            // In zeroed code memory past the program, up to the last slot.
            self.entry = self.rng.u32(self.code.len() as u32..CODE_WORDS as u32);
        }
    }

    /// Overwrites a word of the main program with a transfer to the fragment appended at
    /// `start` (`len` words), so the fragment runs.
    fn link(&mut self, start: usize, len: usize) {
        let at = self.rng.usize(..self.main_end.max(1));
        let w = match self.rng.u8(0..3) {
            0 => self.cond(Opcode::Call, start, len.min(255) as u8),
            1 => self.cond(Opcode::Jmpc, start, 0),
            _ => {
                let num = self.rng.u8(0..2);
                self.boolean(Opcode::Jmpu, start, num)
            }
        };
        if at < self.code.len() {
            self.code[at] = w;
        }
    }

    /// A chain of three-word procedures each calling the next, deeper than the CALL stack.
    fn call_chain(&mut self) {
        let depth = self.rng.usize(4..8);
        let first = self.code.len();
        for k in 0..depth {
            let w = self.alu();
            self.push(w);
            let next = first + 3 * (k + 1);
            let num = if k + 1 < depth { 3 } else { 1 };
            let op = [Opcode::Call, Opcode::Callc, Opcode::Callu][self.rng.usize(..3)];
            let w = self.transfer(op, next, num);
            self.push(w);
            let w = self.alu();
            self.push(w);
        }
        self.push(Self::plain(Opcode::End));
        self.link(first, 3);
    }

    /// `depth` nested IFU/IFC (or LOOP) scopes around arithmetic, deeper than the stack.
    fn nest(&mut self, op: Opcode, depth: usize) {
        let first = self.code.len();
        let mut heads = Vec::new();
        for _ in 0..depth {
            heads.push(self.push(0));
            let w = self.alu();
            self.push(w);
        }
        let w = self.alu();
        self.push(w);
        for &at in heads.iter().rev() {
            let last = self.code.len() - 1;
            // A LOOP's DEST is its last word, an IF's is the word after.
            let dest = match op.format() {
                Format::Fmt3i => last,
                Format::Fmt0
                | Format::Fmt1
                | Format::Fmt1u
                | Format::Fmt1i
                | Format::Fmt1c
                | Format::Fmt2
                | Format::Fmt3b
                | Format::Fmt4
                | Format::Fmt5
                | Format::Fmt5i
                | Format::Raw => last + 1,
            };
            self.code[at] = self.transfer(op, dest, 0);
            let w = self.alu();
            self.push(w);
        }
        self.push(Self::plain(Opcode::End));
        let len = self.code.len() - first;
        self.link(first, len);
    }

    /// Undefined opcodes, stray bits, random words, out-of-range targets, runaway loops.
    fn hostile(&mut self) {
        let len = self.code.len().max(1);
        for _ in 0..self.rng.usize(0..4) {
            let at = self.rng.usize(..len);
            let undefined = Opcode::Undefined.values();
            let value = undefined[self.rng.usize(..undefined.len())];
            let w = u32::from(value) << 26 | self.rng.u32(..) & 0x03FF_FFFF;
            if at < self.code.len() {
                self.code[at] = w;
            }
        }
        for _ in 0..self.rng.usize(0..3) {
            let at = self.rng.usize(..len);
            if at < self.code.len() {
                self.code[at] |=
                    self.rng.u32(..) & !Opcode::from_value((self.code[at] >> 26) as u8).used_bits();
            }
        }
        for _ in 0..self.rng.usize(0..6) {
            let at = self.rng.usize(..len);
            let w = self.any();
            if at < self.code.len() {
                self.code[at] = w;
            }
        }
        match self.rng.u8(0..6) {
            0 => {
                // A backward JMPU that is taken: b[id] == !(num & 1).
                let at = self.rng.usize(..len);
                let dest = self.rng.usize(..=at);
                let num = self.rng.u8(0..2);
                let w = self.boolean(Opcode::Jmpu, dest, num);
                if at < self.code.len() {
                    self.code[at] = w;
                }
            }
            1 => {
                // A procedure that calls itself.
                let start = self.code.len();
                let w = self.alu();
                self.push(w);
                let w = self.cond(Opcode::Call, start, 3);
                self.push(w);
                let w = self.alu();
                self.push(w);
                self.link(start, 3);
            }
            2 => self.nest(Opcode::Loop, 3),
            3 => {
                let at = self.rng.usize(..len);
                let dest = CODE_WORDS as u16 - self.rng.u16(1..3);
                let w = self.any_of(Opcode::Ifc);
                if at < self.code.len() {
                    let num = self.rng.u8(..);
                    self.code[at] = self.retarget(w, dest, num);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_loadable() {
        let cfg = Config::default();
        for seed in 0..2000 {
            let a = generate(seed, &cfg);
            assert!(a.same_as(&generate(seed, &cfg)));
            a.case.program().expect("loadable");
            assert!(!a.case.inputs.is_empty());
        }
    }

    #[test]
    fn every_alu_opcode_and_shape_appears() {
        let cfg = Config::default();
        let mut seen = std::collections::HashSet::new();
        let mut shapes = std::collections::HashSet::new();
        for seed in 0..3000 {
            let c = generate(seed, &cfg);
            shapes.insert(c.shape);
            for &w in &c.case.code {
                seen.insert(Instruction::decode(w).opcode());
            }
        }
        assert_eq!(shapes.len(), 3);
        for &op in Opcode::ALL {
            assert!(seen.contains(&op), "{op:?} never generated");
        }
    }

    #[test]
    fn ops_restrict_arithmetic() {
        let cfg = Config::with_ops("mad,dp4").unwrap();
        assert_eq!(cfg.alu_ops(), &[Opcode::Mad, Opcode::Dp4]);
        for seed in 0..500 {
            let c = generate(seed, &cfg);
            if c.shape != Shape::Structured {
                continue;
            }
            for &w in &c.case.code {
                let op = Instruction::decode(w).opcode();
                assert!(
                    !is_alu(op.format())
                        || matches!(
                            op,
                            Opcode::Mad | Opcode::Dp4 | Opcode::Cmp | Opcode::Mova | Opcode::Mov
                        ),
                    "{op:?}"
                );
            }
        }
        assert!(Config::with_ops("ifc").is_err());
        assert!(Config::with_ops("nope").is_err());
        assert!(Config::with_ops("").is_err());
    }
}
