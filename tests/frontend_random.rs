//! Seeded random differential test: interpreter vs (lower → eval), bit for bit, on random
//! programs drawn from the `isa` opcode table with random descriptors, random uniforms and
//! special float inputs (±0, ±inf, NaN payloads, subnormals).
//!
//! Counts below are per unit of [`scale`] (`PICAJIT_RANDOM_SCALE`, default 1; CI runs 1, a
//! longer local run sets e.g. 10). The broader random coverage of every engine is the fuzz
//! slice of `make test` (`picajit fuzz`); these tests pin the frontend's lowering categories.
//!
//! - 5,000 compared programs with uniform control flow (no cc-conditioned instruction):
//!   every one must lower (or exceed the state cap, which must stay rare) and agree.
//! - 1,500 compared programs that never read an input: all their values, cc included, are
//!   uniform, so no cc branch may need lanes to agree.
//! - 1,500 compared programs with any instruction: each either lowers (if-converting the
//!   per-vertex branches it can, running the others under lane masks: masked regions or the
//!   lane-position model) and agrees (or exceeds the cap).
//! - 2,500 compared structured programs full of per-vertex JMPC skips and IFC/ELSE regions
//!   over random arithmetic (inside uniform IFU and LOOP regions too): if-conversion at work.
//! - 400 compared geometry shaders (the fuzzer's generator, `picajit::fuzz::generate_geometry`:
//!   structured, unstructured or hostile flow, EMIT and SETEMIT among the arithmetic): each
//!   invocation's triangles, in order, too.
//!
//! Every compared program also runs on each x86-64 tier the CPU has. The slow engines run on a
//! fixed subset, every [`SLOW_EVERY`]th seed (about 1,400 of the 10,900 programs at scale 1):
//! AArch64, which on x86 hosts runs under qemu-user, where every new kernel is translated again
//! (a few ms per program), and the x86-64 tiers the CPU lacks (AVX-512 on most hosts), which the
//! test build's x86-64 emulator runs thousands of times slower.

mod frontend_support;

use frontend_support::*;
use picajit::frontend::{self, Unsupported};
use picajit::isa::{CondOp, Fmt2, Fmt3b, Fmt3i, Format, Instruction, Opcode, Src};
use picajit::program::{Program, VertexStatus};
use picajit_codegen::ir::{Op, Terminator};

/// The slow engines (AArch64 under qemu, emulated x86-64 tiers) run the programs whose seed is
/// a multiple of this.
const SLOW_EVERY: u64 = 8;

/// The multiplier of every program count (and coverage threshold): `PICAJIT_RANDOM_SCALE`,
/// 1 when unset or unreadable.
fn scale() -> usize {
    std::env::var("PICAJIT_RANDOM_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(1)
}

/// What kind of program to draw.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// Structured per-vertex branches ([`generate_structured`]).
    Structured,
    /// No BREAKC/CALLC/IFC/JMPC.
    UniformFlow,
    /// Any instruction, but no source reads an input register.
    NoInputs,
    /// Any instruction.
    Any,
    /// A geometry shader of the fuzzer's generator, with EMIT and SETEMIT in place of some of
    /// the arithmetic ([`generate_geometry`]).
    Geometry,
}

fn cc_conditioned(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Breakc | Opcode::Callc | Opcode::Ifc | Opcode::Jmpc
    )
}

/// Source fields of a word's format: (lowest bit, width) of each source register field.
fn source_fields(format: Format) -> &'static [(u32, u32)] {
    match format {
        Format::Fmt1 | Format::Fmt1c => &[(12, 7), (7, 5)],
        Format::Fmt1u => &[(12, 7)],
        Format::Fmt1i => &[(14, 5), (7, 7)],
        Format::Fmt5 => &[(17, 5), (10, 7), (5, 5)],
        Format::Fmt5i => &[(17, 5), (12, 5), (5, 7)],
        Format::Fmt0
        | Format::Fmt2
        | Format::Fmt3b
        | Format::Fmt3i
        | Format::Fmt4
        | Format::Raw => &[],
    }
}

fn random_word(rng: &mut fastrand::Rng, len: usize, kind: Kind) -> u32 {
    let op = loop {
        let op = Opcode::ALL[rng.usize(..Opcode::ALL.len())];
        if kind != Kind::UniformFlow || !cc_conditioned(op) {
            break op;
        }
    };
    let value = op.values()[rng.usize(..op.values().len())];
    let mut word = u32::from(value) << 26 | (rng.u32(..) & 0x03FF_FFFF);
    if rng.u8(0..8) != 0 {
        word &= op.used_bits();
    }
    if kind == Kind::NoInputs {
        // Turn every input source (codes 0x00–0x0F) into a temporary (0x10–0x1F).
        for &(lo, width) in source_fields(op.format()) {
            let code = (word >> lo) & ((1 << width) - 1);
            if Src(code as u8).fits_narrow() && code < 0x10 {
                word |= 0x10 << lo;
            }
        }
    }
    let dest = if rng.u8(0..16) == 0 {
        rng.u16(..4096)
    } else {
        rng.u16(0..len as u16 + 1)
    };
    let num = rng.u8(0..8);
    let opcode_bits = word & 0xFC00_0000;
    match op.format() {
        Format::Fmt2 => {
            opcode_bits
                | Fmt2 {
                    dest,
                    num,
                    ..Fmt2::decode(word)
                }
                .encode()
        }
        Format::Fmt3b => {
            opcode_bits
                | Fmt3b {
                    dest,
                    num,
                    ..Fmt3b::decode(word)
                }
                .encode()
        }
        Format::Fmt3i => {
            opcode_bits
                | Fmt3i {
                    dest,
                    ..Fmt3i::decode(word)
                }
                .encode()
        }
        Format::Fmt0
        | Format::Fmt1
        | Format::Fmt1u
        | Format::Fmt1i
        | Format::Fmt1c
        | Format::Fmt4
        | Format::Fmt5
        | Format::Fmt5i
        | Format::Raw => word,
    }
}

/// A random arithmetic word (any ALU opcode value, any operand bits).
fn alu_word(rng: &mut fastrand::Rng) -> u32 {
    loop {
        let op = Opcode::ALL[rng.usize(..Opcode::ALL.len())];
        let alu = matches!(
            op.format(),
            Format::Fmt1
                | Format::Fmt1u
                | Format::Fmt1i
                | Format::Fmt1c
                | Format::Fmt5
                | Format::Fmt5i
        );
        if alu {
            let value = op.values()[rng.usize(..op.values().len())];
            return (u32::from(value) << 26 | (rng.u32(..) & 0x03FF_FFFF)) & op.used_bits();
        }
    }
}

fn cc_branch(rng: &mut fastrand::Rng, op: fn(Fmt2) -> Instruction, dest: usize, num: u8) -> u32 {
    op(Fmt2 {
        refx: rng.bool(),
        refy: rng.bool(),
        condop: [CondOp::Or, CondOp::And, CondOp::X, CondOp::Y][rng.usize(..4)],
        dest: dest as u16,
        num,
    })
    .encode()
}

/// Structured code: arithmetic, per-vertex JMPC skips and IFC/ELSE regions, uniform IFU and
/// LOOP regions around them, `depth` levels deep.
fn structured(rng: &mut fastrand::Rng, code: &mut Vec<u32>, depth: u32) {
    for _ in 0..rng.usize(1..5) {
        let at = code.len();
        match rng.u8(0..8) {
            0 | 1 => code.extend((0..rng.usize(1..4)).map(|_| alu_word(rng))),
            2 => {
                // A CMP reading inputs most of the time.
                let f = picajit::isa::Fmt1c {
                    cmpx: picajit::isa::CmpOp::ALL[rng.usize(..8)],
                    cmpy: picajit::isa::CmpOp::ALL[rng.usize(..8)],
                    idx: picajit::isa::AddrIdx::None,
                    src1: Src(rng.u8(..0x80)),
                    src2: Src(rng.u8(..0x20)),
                    desc: rng.u8(..0x80),
                };
                code.push(Instruction::Cmp(f).encode());
            }
            3 | 4 => {
                let k = rng.usize(0..6);
                code.push(cc_branch(rng, Instruction::Jmpc, at + 1 + k, 0));
                code.extend((0..k).map(|_| alu_word(rng)));
            }
            5 | 6 => {
                let (k1, k2) = (rng.usize(1..5), rng.usize(0..4));
                code.push(cc_branch(rng, Instruction::Ifc, at + 1 + k1, k2 as u8));
                code.extend((0..k1 + k2).map(|_| alu_word(rng)));
            }
            _ if depth > 0 => {
                // A uniform region: IFU (no else) or LOOP around more structure.
                let uniform_if = rng.bool();
                code.push(0);
                structured(rng, code, depth - 1);
                code.push(alu_word(rng));
                let last = code.len() - 1;
                code[at] = if uniform_if {
                    Instruction::Ifu(Fmt3b {
                        id: rng.u8(..16),
                        dest: (last + 1) as u16,
                        num: 0,
                    })
                    .encode()
                } else {
                    Instruction::Loop(Fmt3i {
                        id: rng.u8(..4),
                        dest: last as u16,
                        num: 0,
                    })
                    .encode()
                };
            }
            _ => code.push(alu_word(rng)),
        }
    }
}

fn generate_structured(seed: u64) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    // Start with per-vertex cc: CMP of two inputs.
    let mut code = vec![Instruction::Cmp(picajit::isa::Fmt1c {
        cmpx: picajit::isa::CmpOp::ALL[rng.usize(..6)],
        cmpy: picajit::isa::CmpOp::ALL[rng.usize(..6)],
        idx: picajit::isa::AddrIdx::None,
        src1: Src(rng.u8(..0x10)),
        src2: Src(rng.u8(..0x10)),
        desc: rng.u8(..0x80),
    })
    .encode()];
    structured(&mut rng, &mut code, 2);
    code.push(end());
    // Mostly full write masks, so arms write many components.
    let descs: Vec<u32> = (0..128)
        .map(|_| rng.u32(..) | if rng.bool() { 0xF } else { 0 })
        .collect();
    let program = Program::from_words(&code, &descs, 0).unwrap();
    let uniforms = random_uniforms(&mut rng);
    let inputs = random_inputs(&mut rng, 16);
    Case {
        program,
        uniforms,
        inputs,
        budget: 2048,
    }
}

struct Case {
    program: Program,
    uniforms: picajit::Uniforms,
    inputs: Vec<picajit::program::Regs16>,
    budget: u32,
}

/// A geometry shader from the fuzzer's generator (`picajit::fuzz::generate_geometry`: its
/// structured, unstructured and hostile programs with half of their arithmetic turned into
/// EMIT or SETEMIT), so that lanes emit under per-vertex conditions, with different emitter
/// states and different numbers of triangles: the one geometry generator of this test and of
/// `picajit fuzz --geometry`.
fn generate_geometry(seed: u64) -> Case {
    let f = picajit::fuzz::generate_geometry(seed, &picajit::fuzz::Config::default());
    Case {
        program: f.case.program().unwrap(),
        uniforms: f.case.uniforms,
        inputs: f.case.inputs,
        budget: f.budget,
    }
}

fn generate(seed: u64, kind: Kind) -> Case {
    let mut rng = fastrand::Rng::with_seed(seed);
    let len = rng.usize(1..64);
    let mut code: Vec<u32> = (0..len).map(|_| random_word(&mut rng, len, kind)).collect();
    // Usually an END right after the program, so most runs do not walk to slot 4095.
    if rng.u8(0..16) != 0 {
        code.push(end());
    }
    let descs: Vec<u32> = (0..rng.usize(1..=128)).map(|_| rng.u32(..)).collect();
    let entry = rng.u32(0..len as u32);
    let program = Program::from_words(&code, &descs, entry).unwrap();
    let uniforms = random_uniforms(&mut rng);
    let vertices = rng.usize(1..=20);
    let inputs = random_inputs(&mut rng, vertices);
    let budget = match rng.u8(0..4) {
        0 => rng.u32(0..8),
        1 => rng.u32(0..100),
        _ => 2048,
    };
    Case {
        program,
        uniforms,
        inputs,
        budget,
    }
}

#[derive(Default, Debug)]
struct Tally {
    drawn: usize,
    agreed: usize,
    vertices: usize,
    divergent: usize,
    too_many_states: usize,
    exhausted: usize,
    with_loops: usize,
    with_cc_branches: usize,
    if_converted: usize,
    /// Programs whose function has an EMIT.
    emitting: usize,
}

/// Draws programs of `kind` from consecutive seeds until `target` of them have been lowered
/// and compared (giving up after `target` × 1.25 draws).
fn run(kind: Kind, first_seed: u64, target: usize) -> Tally {
    let mut t = Tally::default();
    let mut seed = first_seed;
    while t.agreed < target && t.drawn < target + target / 4 {
        let case = match kind {
            Kind::Structured => generate_structured(seed),
            Kind::UniformFlow | Kind::NoInputs | Kind::Any => generate(seed, kind),
            Kind::Geometry => generate_geometry(seed),
        };
        t.drawn += 1;
        match frontend::lower(&case.program) {
            Ok(l) => {
                let slow = seed % SLOW_EVERY == 0;
                if let Err(e) = compare_with(
                    &l,
                    &case.program,
                    &case.uniforms,
                    &case.inputs,
                    case.budget,
                    slow,
                ) {
                    panic!("{kind:?} seed {seed}: {e}\nprogram {:?}", case.program);
                }
                t.agreed += 1;
                t.vertices += case.inputs.len();
                let blocks = &l.func.blocks;
                let loops = blocks
                    .iter()
                    .flat_map(|b| &b.insts)
                    .any(|i| i.op == Op::LoopPush);
                let cc_branches = blocks
                    .iter()
                    .any(|b| matches!(b.term, Terminator::BranchUniform { .. }));
                t.with_loops += usize::from(loops);
                t.with_cc_branches += usize::from(cc_branches);
                t.if_converted += usize::from(l.stats.if_converted > 0);
                t.emitting += usize::from(
                    blocks
                        .iter()
                        .flat_map(|b| &b.insts)
                        .any(|i| i.op == Op::EmitSlot),
                );
                let masked = l.stats.masked_forks > 0 || l.stats.lanes;
                t.divergent += usize::from(masked);
                let status = picajit::frontend::eval::run(
                    &l.func,
                    &case.uniforms,
                    &case.inputs[..1],
                    case.budget,
                )[0]
                .1;
                t.exhausted += usize::from(status == VertexStatus::BudgetExhausted);
            }
            Err(Unsupported::TooManyStates { .. }) => t.too_many_states += 1,
            Err(e) => panic!("{kind:?} seed {seed}: {e}\nprogram {:?}", case.program),
        }
        seed += 1;
    }
    println!("{kind:?}: {t:?}");
    t
}

#[test]
fn random_uniform_control_flow() {
    let n = 5_000 * scale();
    let t = run(Kind::UniformFlow, 0x5EED_0000, n);
    assert_eq!(t.agreed, n, "{t:?}");
    // Exceeding the state cap takes adversarial stacks (backward jumps around unclosed
    // IF/CALL/LOOP scopes); it stays rare.
    assert!(t.too_many_states * 25 < t.drawn, "{t:?}");
    assert!(
        t.with_loops > n / 10 && t.exhausted > n / 20,
        "coverage: {t:?}"
    );
}

#[test]
fn random_uniform_cc_without_inputs() {
    let n = 1_500 * scale();
    let t = run(Kind::NoInputs, 0x5EED_1000_0000, n);
    assert_eq!(t.agreed, n, "{t:?}");
    assert_eq!(t.if_converted, 0, "{t:?}");
    assert!(t.with_cc_branches > n * 2 / 5, "coverage: {t:?}");
}

#[test]
fn random_any_flow_is_exact_or_divergent() {
    let n = 1_500 * scale();
    let t = run(Kind::Any, 0x5EED_2000_0000, n);
    assert_eq!(t.agreed, n, "{t:?}");
    assert!(
        t.divergent > n * 3 / 50 && t.with_cc_branches > n / 5,
        "coverage: {t:?}"
    );
}

/// Geometry shaders: each invocation's triangles, in order, bit for bit on every engine.
#[test]
fn random_geometry_shaders() {
    let n = 400 * scale();
    let t = run(Kind::Geometry, 0x5EED_4000_0000, n);
    assert_eq!(t.agreed, n, "{t:?}");
    assert!(
        t.if_converted + t.divergent > n / 5 && t.emitting > n / 2,
        "coverage: {t:?}"
    );
}

#[test]
fn random_structured_per_vertex_branches() {
    let n = 2_500 * scale();
    let t = run(Kind::Structured, 0x5EED_3000_0000, n);
    assert_eq!(t.agreed, n, "{t:?}");
    assert!(t.if_converted > n / 2, "coverage: {t:?}");
}
