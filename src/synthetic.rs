//! Synthetic programs of a chosen size, for compile-time benches and dumps: deterministic
//! (a seed), realistic, and exactly `size` code words, all of them reachable.
//!
//! - [`Shape::Straight`]: inputs copied into temporaries, then random ALU instructions (MUL, ADD,
//!   DP3/DP4/DPH, MAD, MOV, MIN/MAX, RCP/RSQ, EX2/LG2, FLR, SGE/SLT, MOVA and relative uniform
//!   reads) over float uniforms, inputs and temporaries, then the outputs. As in a real
//!   shader, almost every result is read: sources prefer temporaries whose value nothing has
//!   read yet, and results go to temporaries whose value has been read (random code without
//!   that rule is mostly dead, and dead code is not what compile time should be measured on).
//! - [`Shape::Branchy`]: the same arithmetic in the structure real shaders have: IFU feature
//!   blocks with ELSE parts, CMP + IFC per-vertex selections (short arms), LOOPs over uniform
//!   arrays through `aL` (some with a CMP + BREAKC exit), and subroutines (placed before the
//!   main procedure), each reached by CALL or CALLU from the main procedure's top level.
//!
//! Programs up to 512 words are vertex shaders; larger ones are geometry shaders (the vertex
//! shader's code memory holds 512 words), which end by emitting one triangle. The generator
//! writes picasso source ([`source`]), which [`program`] assembles; descriptors come from a small
//! per-program palette of masks and swizzles so the 128-entry table never overflows, and every
//! block ends in an ALU instruction so the assembler inserts no padding NOPs.

use std::fmt::Write as _;

use crate::asm::{self, Source};
use crate::program::Program;

/// The sizes the compile benches use: vertex shaders up to 500 words, geometry shaders above.
pub const SIZES: [usize; 7] = [50, 100, 200, 500, 1000, 2000, 4000];

/// Programs above this many words are geometry shaders.
pub const VERTEX_MAX: usize = 512;

/// The smallest size [`source`] makes.
pub const MIN_SIZE: usize = 24;

/// What kind of control flow a synthetic program has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// One basic block.
    Straight,
    /// IFU/ELSE, CMP + IFC, LOOP (with BREAKC), CALL/CALLU.
    Branchy,
}

impl Shape {
    /// `straight` or `branchy`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Straight => "straight",
            Shape::Branchy => "branchy",
        }
    }

    /// The shape named `name`.
    pub fn parse(name: &str) -> Option<Shape> {
        match name {
            "straight" => Some(Shape::Straight),
            "branchy" => Some(Shape::Branchy),
            _ => None,
        }
    }
}

/// The picasso source of a `shape` program of exactly `size` code words (at least
/// [`MIN_SIZE`], at most 4096), drawn from `seed`.
pub fn source(shape: Shape, size: usize, seed: u64) -> Result<String, String> {
    if !(MIN_SIZE..=crate::program::CODE_WORDS).contains(&size) {
        return Err(format!(
            "a synthetic program has {MIN_SIZE}..=4096 words, not {size}"
        ));
    }
    let mut g = Gen::new(size > VERTEX_MAX, seed);
    let text = match shape {
        Shape::Straight => g.straight(size),
        Shape::Branchy => g.branchy(size),
    };
    Ok(text)
}

/// The assembled [`source`].
pub fn program(shape: Shape, size: usize, seed: u64) -> Result<Program, String> {
    let text = source(shape, size, seed)?;
    let name = format!("{}-{size}.pica", shape.name());
    let (shbin, _) = asm::assemble(&[Source::new(name, text)]).map_err(|diags| {
        let lines: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
        format!("synthetic program does not assemble:\n{}", lines.join("\n"))
    })?;
    shbin.program(0).map_err(|e| e.to_string())
}

/// SplitMix64: a tiny seeded generator (the library needs no random-number crate for this).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// An index drawn with the given weights.
    fn weighted(&mut self, weights: &[usize]) -> usize {
        let mut x = self.below(weights.iter().sum());
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }
}

/// One operand-descriptor shape: destination mask, and swizzle and negation of each source.
#[derive(Clone, Copy)]
struct Desc {
    mask: &'static str,
    swizzle: [&'static str; 3],
    negate: [bool; 3],
}

const MASKS: [(&str, usize); 8] = [
    ("xyzw", 10),
    ("xyz", 5),
    ("xy", 2),
    ("zw", 1),
    ("x", 3),
    ("y", 2),
    ("z", 2),
    ("w", 2),
];
const SWIZZLES: [(&str, usize); 10] = [
    ("xyzw", 14),
    ("xxxx", 3),
    ("yyyy", 3),
    ("zzzz", 3),
    ("wwww", 3),
    ("yzxw", 2),
    ("zxyw", 2),
    ("wzyx", 1),
    ("xyww", 1),
    ("xzyw", 1),
];
/// Descriptor shapes of the ALU palette and of MAD (which can address only 32 entries).
const PALETTE: usize = 40;
const MAD_PALETTE: usize = 12;
/// Temporaries the arithmetic uses (r12..r15 stay free, as in hand-written shaders).
const TEMPS: usize = 12;
const INPUTS: usize = 8;
/// Float uniforms `u[0..UNIFORMS]`, and a `lights` array for loops.
const UNIFORMS: usize = 64;
const LIGHTS: usize = 16;
const VERTEX_OUTPUTS: [&str; 7] = [
    "position",
    "normalquat",
    "color",
    "texcoord0",
    "texcoord1",
    "texcoord2",
    "view",
];

struct Gen {
    rng: Rng,
    geometry: bool,
    palette: Vec<Desc>,
    mad_palette: Vec<Desc>,
    /// Temporaries, most recently written last.
    recent: Vec<usize>,
    /// Temporaries whose value nothing has read yet.
    unread: [bool; TEMPS],
    /// Whether a0.x has been written (relative reads through it are then realistic).
    a0_set: bool,
    /// LOOP nesting at the current point.
    loop_depth: usize,
    out: String,
    words: usize,
}

impl Gen {
    fn new(geometry: bool, seed: u64) -> Gen {
        let mut rng = Rng(seed ^ 0x5eed_c0de_0000_0000);
        let draw = |rng: &mut Rng| {
            let pick = |rng: &mut Rng, t: &[(&'static str, usize)]| {
                let w: Vec<usize> = t.iter().map(|&(_, w)| w).collect();
                t[rng.weighted(&w)].0
            };
            Desc {
                mask: pick(rng, &MASKS),
                swizzle: [
                    pick(rng, &SWIZZLES),
                    pick(rng, &SWIZZLES),
                    pick(rng, &SWIZZLES),
                ],
                negate: [rng.chance(10), rng.chance(10), rng.chance(5)],
            }
        };
        let identity = Desc {
            mask: "xyzw",
            swizzle: ["xyzw"; 3],
            negate: [false; 3],
        };
        let mut palette = vec![identity];
        palette.extend((1..PALETTE).map(|_| draw(&mut rng)));
        let mut mad_palette = vec![identity];
        mad_palette.extend((1..MAD_PALETTE).map(|_| draw(&mut rng)));
        Gen {
            rng,
            geometry,
            palette,
            mad_palette,
            recent: (0..TEMPS).collect(),
            unread: [false; TEMPS],
            a0_set: false,
            loop_depth: 0,
            out: String::new(),
            words: 0,
        }
    }

    fn outputs(&self) -> usize {
        VERTEX_OUTPUTS.len()
    }

    /// Declarations: uniforms, inputs, outputs.
    fn header(&mut self) {
        if self.geometry {
            self.out.push_str(".gsh point c0\n");
        }
        let _ = writeln!(self.out, ".fvec u[{UNIFORMS}], lights[{LIGHTS}]");
        for i in 0..INPUTS {
            let _ = writeln!(self.out, ".in in{i} v{i}");
        }
        for (o, name) in VERTEX_OUTPUTS.iter().enumerate() {
            let _ = writeln!(self.out, ".out - {name} o{o}");
        }
    }

    /// One code word of text.
    fn word(&mut self, line: &str) {
        self.out.push_str("    ");
        self.out.push_str(line);
        self.out.push('\n');
        self.words += 1;
    }

    fn directive(&mut self, line: &str) {
        self.out.push_str(line);
        self.out.push('\n');
    }

    /// Words the end of the main procedure takes: outputs and END, or the emitted triangle.
    fn tail_words(&self) -> usize {
        if self.geometry {
            3 * (self.outputs() + 2) + 1
        } else {
            self.outputs() + 1
        }
    }

    /// Copies inputs into temporaries: the first `n` words of a program.
    fn prologue(&mut self, n: usize) {
        for i in 0..n {
            let line = format!("mov r{}, in{}", i % TEMPS, i % INPUTS);
            self.word(&line);
            self.wrote(i % TEMPS);
        }
    }

    /// The outputs from recent temporaries, then END (or one emitted triangle, then END).
    fn tail(&mut self) {
        let outs = self.outputs();
        if self.geometry {
            for v in 0..3 {
                let flags = if v == 2 { ", prim" } else { "" };
                self.word(&format!("setemit {v}{flags}"));
                for o in 0..outs {
                    let r = self.read_temp();
                    self.word(&format!("mov o{o}, r{r}"));
                }
                self.word("emit");
            }
        } else {
            for o in 0..outs {
                let r = self.read_temp();
                self.word(&format!("mov o{o}, r{r}"));
            }
        }
        self.word("end");
    }

    fn straight(&mut self, size: usize) -> String {
        self.header();
        self.directive(".proc main");
        let body = size - self.tail_words();
        let pro = INPUTS.min(body);
        self.prologue(pro);
        for _ in pro..body {
            self.alu();
        }
        self.tail();
        self.directive(".end");
        std::mem::take(&mut self.out)
    }

    fn branchy(&mut self, size: usize) -> String {
        self.header();
        // Subroutines: about a sixth of the code, a few words each at least.
        let subs = (size / 250).clamp(1, 6);
        let sub_words = (size / 6 / subs).max(4);
        let mut calls: Vec<usize> = (0..subs).collect();
        // Some subroutines are called twice (a shared lighting or skinning routine).
        calls.extend((0..subs).filter(|s| s % 2 == 0));
        let main_words = size - subs * sub_words;
        let body = main_words - self.tail_words() - calls.len();
        let pro = INPUTS.min(body / 4);
        // Subroutines first: a call's DEST + NUM (where its scope closes) is then the next
        // procedure's first word, not the zeros after the program.
        for s in 0..subs {
            self.directive(&format!(".proc sub{s}"));
            self.block(sub_words, 1, false);
            self.directive(".end");
        }
        self.directive(".proc main");
        self.prologue(pro);
        // The calls split the top level into chunks of structured code.
        let chunks = calls.len() + 1;
        let rest = body - pro;
        for (i, &s) in calls.iter().enumerate() {
            let chunk = rest / chunks + usize::from(i < rest % chunks);
            self.block(chunk, 0, false);
            if self.rng.chance(50) {
                self.word(&format!("call sub{s}"));
            } else {
                let b = self.rng.below(8);
                self.word(&format!("callu b{b}, sub{s}"));
            }
        }
        self.block(rest / chunks, 0, false);
        self.tail();
        self.directive(".end");
        std::mem::take(&mut self.out)
    }

    /// Exactly `words` words of structured code ending in an ALU instruction (so no `.else` or
    /// `.end` after it needs a padding NOP); none if `words` is 0. `in_loop`: the block is a
    /// loop body, where a BREAKC may stand (never inside an IF of the body: BREAKC does not pop
    /// the IF stack, and the stale entry would make every later word another control state).
    fn block(&mut self, words: usize, depth: usize, in_loop: bool) {
        if words == 0 {
            return;
        }
        let mut left = words - 1;
        while left > 0 {
            let nested = depth < 3;
            // ALU run, IFU, CMP+IFC, LOOP, CMP+BREAKC.
            let weights = [
                6,
                if nested && left >= 6 { 2 } else { 0 },
                if left >= 4 { 2 } else { 0 },
                if nested && self.loop_depth < 2 && left >= 6 {
                    1
                } else {
                    0
                },
                if in_loop && left >= 3 { 1 } else { 0 },
            ];
            match self.rng.weighted(&weights) {
                0 => {
                    let n = self.rng.range(1, 12).min(left);
                    for _ in 0..n {
                        self.alu();
                    }
                    left -= n;
                }
                1 => {
                    // ifu b, then-part, optional else-part.
                    let inner = self.rng.range(2, (left - 1).min(40));
                    let b = self.rng.below(8);
                    self.word(&format!("ifu b{b}"));
                    let (then, other) = if inner >= 4 && self.rng.chance(50) {
                        let t = self.rng.range(1, inner - 1);
                        (t, inner - t)
                    } else {
                        (inner, 0)
                    };
                    self.block(then, depth + 1, false);
                    if other > 0 {
                        self.directive(".else");
                        self.block(other, depth + 1, false);
                    }
                    self.directive(".end");
                    left -= inner + 1;
                }
                2 => {
                    // cmp; ifc with short arms (a per-vertex selection).
                    let inner = self.rng.range(1, (left - 2).min(8));
                    self.cmp();
                    let cond = self.condition();
                    self.word(&format!("ifc {cond}"));
                    let (then, other) = if inner >= 2 && self.rng.chance(50) {
                        let t = self.rng.range(1, inner - 1);
                        (t, inner - t)
                    } else {
                        (inner, 0)
                    };
                    self.block(then, 3, false);
                    if other > 0 {
                        self.directive(".else");
                        self.block(other, 3, false);
                    }
                    self.directive(".end");
                    left -= inner + 2;
                }
                3 => {
                    // for i: a loop body reading lights[aL].
                    let inner = self.rng.range(2, (left - 1).min(30));
                    let i = self.rng.below(4);
                    self.word(&format!("for i{i}"));
                    self.loop_depth += 1;
                    self.block(inner, depth + 1, true);
                    self.loop_depth -= 1;
                    self.directive(".end");
                    left -= inner + 1;
                }
                _ => {
                    self.cmp();
                    let cond = self.condition();
                    self.word(&format!("breakc {cond}"));
                    left -= 2;
                }
            }
        }
        self.alu();
    }

    fn condition(&mut self) -> &'static str {
        const CONDS: [&str; 6] = [
            "cmp.x",
            "cmp.y",
            "!cmp.x",
            "cmp.x && cmp.y",
            "cmp.x || !cmp.y",
            "!cmp.x && !cmp.y",
        ];
        CONDS[self.rng.below(CONDS.len())]
    }

    fn cmp(&mut self) {
        const OPS: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
        let d = self.palette[self.rng.below(PALETTE)];
        let (a, _) = self.wide(d, 0);
        let b = self.narrow(d, 1, false);
        let (x, y) = (OPS[self.rng.below(6)], OPS[self.rng.below(6)]);
        self.word(&format!("cmp {a}, {x}, {y}, {b}"));
    }

    /// A temporary to read: mostly one of the last few written.
    fn read_temp(&mut self) -> usize {
        // An unread value first (the most recent one, usually), so that results are used.
        let unread: Vec<usize> = self
            .recent
            .iter()
            .rev()
            .copied()
            .filter(|&r| self.unread[r])
            .collect();
        if !unread.is_empty() && self.rng.chance(85) {
            let r = unread[if self.rng.chance(60) {
                0
            } else {
                self.rng.below(unread.len())
            }];
            self.unread[r] = false;
            return r;
        }
        let back = if self.rng.chance(75) {
            self.rng.below(4)
        } else {
            self.rng.below(TEMPS)
        };
        self.recent[TEMPS - 1 - back]
    }

    /// A temporary to write: mostly one whose value has been read.
    fn write_temp(&mut self) -> usize {
        let read: Vec<usize> = (0..TEMPS).filter(|&r| !self.unread[r]).collect();
        if !read.is_empty() && self.rng.chance(90) {
            read[self.rng.below(read.len())]
        } else {
            self.rng.below(TEMPS)
        }
    }

    fn wrote(&mut self, r: usize) {
        self.recent.retain(|&x| x != r);
        self.recent.push(r);
        self.unread[r] = true;
    }

    fn operand(name: String, d: Desc, i: usize) -> String {
        let neg = if d.negate[i] { "-" } else { "" };
        format!("{neg}{name}.{}", d.swizzle[i])
    }

    /// A wide source: a float uniform (sometimes through a0.x or, in loops, aL), a temporary or
    /// an input.
    fn wide(&mut self, d: Desc, i: usize) -> (String, bool) {
        let kind = self.rng.weighted(&[50, 40, 10]);
        let name = match kind {
            0 if self.loop_depth > 0 && self.rng.chance(40) => {
                let k = self.rng.below(4);
                format!("lights[aL+{k}]")
            }
            0 if self.a0_set && self.rng.chance(15) => {
                let k = self.rng.below(8);
                format!("u[a0.x+{k}]")
            }
            0 => format!("u[{}]", self.rng.below(UNIFORMS)),
            1 => format!("r{}", self.read_temp()),
            _ => format!("in{}", self.rng.below(INPUTS)),
        };
        (Gen::operand(name, d, i), kind == 2)
    }

    /// A narrow source: a temporary, or an input (unless another input is read already: two
    /// different inputs cannot meet in one instruction).
    fn narrow(&mut self, d: Desc, i: usize, input_used: bool) -> String {
        let name = if !input_used && self.rng.chance(15) {
            format!("in{}", self.rng.below(INPUTS))
        } else {
            format!("r{}", self.read_temp())
        };
        Gen::operand(name, d, i)
    }

    /// One random ALU instruction writing a temporary.
    fn alu(&mut self) {
        const OPS: [(&str, usize); 15] = [
            ("mul", 15),
            ("add", 15),
            ("dp4", 10),
            ("dp3", 10),
            ("mad", 10),
            ("mov", 6),
            ("max", 3),
            ("min", 2),
            ("rsq", 3),
            ("rcp", 3),
            ("dph", 3),
            ("sge", 1),
            ("slt", 1),
            ("flr", 2),
            ("ex2", 1),
        ];
        let weights: Vec<usize> = OPS.iter().map(|&(_, w)| w).collect();
        let op = OPS[self.rng.weighted(&weights)].0;
        if self.rng.chance(2) {
            let d = self.palette[self.rng.below(PALETTE)];
            let r = self.read_temp();
            self.word(&format!("mova a0.x, r{r}.{}", d.swizzle[0]));
            self.a0_set = true;
            return;
        }
        let dst = self.write_temp();
        let line = match op {
            "mad" => {
                let d = self.mad_palette[self.rng.below(MAD_PALETTE)];
                let a = self.narrow(d, 0, true);
                let (b, _) = self.wide(d, 1);
                let c = Gen::operand(format!("r{}", self.read_temp()), d, 2);
                format!("mad r{dst}.{}, {a}, {b}, {c}", d.mask)
            }
            "mov" | "rsq" | "rcp" | "flr" | "ex2" => {
                let d = self.palette[self.rng.below(PALETTE)];
                let (a, _) = self.wide(d, 0);
                format!("{op} r{dst}.{}, {a}", d.mask)
            }
            _ => {
                let d = self.palette[self.rng.below(PALETTE)];
                let (a, input) = self.wide(d, 0);
                let b = self.narrow(d, 1, input);
                format!("{op} r{dst}.{}, {a}, {b}", d.mask)
            }
        };
        self.word(&line);
        self.wrote(dst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Backend, Engine, ExecPath};
    use crate::program::ShaderKind;

    fn reachable_len(p: &Program) -> usize {
        p.reachable_words().len()
    }

    #[test]
    fn every_size_and_shape_assembles_to_exactly_its_size_all_reachable() {
        for shape in [Shape::Straight, Shape::Branchy] {
            for &size in SIZES.iter().chain(&[MIN_SIZE, 77, 512, 513, 4096]) {
                for seed in 0..3 {
                    let text = source(shape, size, seed).expect("in range");
                    let p = program(shape, size, seed)
                        .unwrap_or_else(|e| panic!("{shape:?} {size} seed {seed}: {e}\n{text}"));
                    let kind = if size > VERTEX_MAX {
                        ShaderKind::Geometry
                    } else {
                        ShaderKind::Vertex
                    };
                    assert_eq!(p.kind, kind);
                    assert_eq!(
                        reachable_len(&p),
                        size,
                        "{shape:?} {size} seed {seed}:\n{text}"
                    );
                    assert!(p.code[size..].iter().all(|&w| w == 0));
                }
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_program_and_another_seed_another() {
        let a = source(Shape::Branchy, 200, 7).expect("ok");
        assert_eq!(a, source(Shape::Branchy, 200, 7).expect("ok"));
        assert_ne!(a, source(Shape::Branchy, 200, 8).expect("ok"));
        assert!(source(Shape::Straight, MIN_SIZE - 1, 0).is_err());
        assert!(source(Shape::Straight, 4097, 0).is_err());
        assert_eq!(Shape::parse("branchy"), Some(Shape::Branchy));
        assert_eq!(Shape::parse(Shape::Straight.name()), Some(Shape::Straight));
        assert_eq!(Shape::parse("loopy"), None);
    }

    #[test]
    fn branchy_programs_hold_every_structure_and_compile_natively() {
        let text: String = (1..=3)
            .map(|seed| source(Shape::Branchy, 500, seed).expect("ok"))
            .collect();
        for what in [
            "ifu ", ".else", "ifc ", "for i", "breakc ", "call sub", "callu b", "aL",
        ] {
            assert!(text.contains(what), "no {what:?} in\n{text}");
        }
        for (shape, size) in [(Shape::Straight, 500), (Shape::Branchy, 500)] {
            let p = program(shape, size, 1).expect("ok");
            for backend in Backend::available() {
                if !backend.is_native_here() || backend == Backend::Interp {
                    continue;
                }
                let engine = Engine::new(backend).expect("available");
                let shader = engine.compile(&p);
                assert!(
                    matches!(shader.path(), ExecPath::Native(_)),
                    "{shape:?} on {}: {}",
                    backend.name(),
                    shader.path()
                );
            }
        }
    }

    #[test]
    fn the_bench_programs_are_live_code_with_about_one_control_state_per_word() {
        // Subroutines called twice and scopes are explored once per context: about one state
        // per word, never the blow-up stale IF entries would give (BREAKC inside an IF). And
        // nearly every word is live after dead-code elimination (at least 2 IR instructions
        // per word): random code without the unread-first rule was mostly dead at 4,000 words.
        for shape in [Shape::Straight, Shape::Branchy] {
            for &size in &SIZES {
                let p = program(shape, size, 1).expect("ok");
                let lowered = crate::frontend::lower(&p).expect("lowers");
                let states = lowered.stats.states;
                assert!(
                    (size..=size * 5 / 4).contains(&states),
                    "{shape:?} {size}: {states} states"
                );
                let insts = lowered.stats.insts_after_dce;
                assert!(
                    insts >= 2 * size,
                    "{shape:?} {size}: {insts} IR instructions"
                );
            }
        }
    }
}
