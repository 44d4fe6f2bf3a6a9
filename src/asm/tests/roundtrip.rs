//! Disassemble → assemble round trips: the corpus of real SHBIN files, and seeded random
//! programs (random words including undefined opcodes and stray unused bits, random
//! descriptor tables, random DVLE entry ranges). Each must come back with the same code words,
//! descriptor words and entry ranges.

use std::path::Path;

use super::super::disasm::disassemble_checked;
use super::super::{assemble, disassemble_dvle, Source};
use crate::isa::Instruction;
use crate::program::ShaderKind;
use crate::shbin::{
    Constant, Dvle, Dvlp, GsMode, OpDescEntry, Output, OutputSemantic, Shbin, UniformEntry,
};

/// How many random programs the round-trip test checks.
pub(super) const RANDOM_PROGRAMS: usize = 100_000;

/// Disassembles `original` and checks what the text assembles to (the disassembler's own
/// verification assembly is reused; the comparisons are made here).
fn check(original: &Shbin, what: &str) -> String {
    let (text, back) = disassemble_checked(original);
    let Some(back) = back else {
        let err = assemble(&[Source::new("disasm.pica", text.as_str())]).err();
        panic!("{what}: the disassembly does not reproduce the program\n{err:?}\n{text}");
    };
    assert_eq!(
        back.dvlp.code, original.dvlp.code,
        "{what}: code words\n{text}"
    );
    let words = |s: &Shbin| s.dvlp.descs.iter().map(|d| d.word).collect::<Vec<_>>();
    assert_eq!(words(&back), words(original), "{what}: descriptors\n{text}");
    assert_eq!(
        back.dvles.len(),
        original.dvles.len(),
        "{what}: DVLE count\n{text}"
    );
    for (a, b) in back.dvles.iter().zip(&original.dvles) {
        assert_eq!(
            (a.entry_start, a.entry_end),
            (b.entry_start, b.entry_end),
            "{what}: entry\n{text}"
        );
    }
    text
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/shbin");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus at {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "shbin"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

#[test]
fn corpus_files_round_trip() {
    let files = corpus();
    assert_eq!(files.len(), 13);
    let mut identical = 0;
    for (name, bytes) in &files {
        let shbin = Shbin::parse(bytes).unwrap();
        let text = check(&shbin, name);
        // Files written by picasso ≥ 2.5 come back byte for byte, tables included.
        let back = assemble(&[Source::new("d", text.as_str())]).unwrap().0;
        if back.to_bytes() == *bytes {
            identical += 1;
        } else {
            assert!(
                text.contains("; note:"),
                "{name}: differs without a note\n{text}"
            );
        }
        // Structured text (no raw words, no pinned table) for every corpus file.
        assert!(
            !text.contains(".opdesc") && !text.contains("!0x"),
            "{name}:\n{text}"
        );
        for n in 0..shbin.dvles.len() {
            let one = disassemble_dvle(&shbin, n);
            let back = assemble(&[Source::new("d", one.as_str())]).unwrap().0;
            assert_eq!(back.dvlp.code, shbin.dvlp.code);
        }
    }
    assert_eq!(identical, 9, "corpus files reproduced byte for byte");
}

/// A random code word: fully random, a canonical instruction of a random opcode, or a flow
/// instruction aimed inside the program.
fn random_word(rng: &mut fastrand::Rng, len: u32) -> u32 {
    let w = rng.u32(..);
    match rng.u8(..10) {
        0 | 1 => w,
        2..=7 => {
            // Canonical: the format's unused bits cleared (sometimes one stray bit kept).
            let canon = Instruction::decode(w).encode();
            if rng.u8(..20) == 0 {
                canon | (1 << rng.u32(..32))
            } else {
                canon
            }
        }
        _ => {
            let dest = rng.u32(..=len);
            let num = if rng.bool() { 0 } else { rng.u32(..4) };
            let op = [0x23u32, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2C, 0x2D][rng.usize(..9)];
            Instruction::decode((op << 26) | (w & 0x03C0_0000) | (dest << 10) | num).encode()
        }
    }
}

fn random_program(rng: &mut fastrand::Rng) -> Shbin {
    let len = rng.u32(0..48);
    let code: Vec<u32> = (0..len).map(|_| random_word(rng, len)).collect();
    let ndesc = rng.usize(0..40);
    let descs = (0..ndesc)
        .map(|_| {
            let word = match rng.u8(..4) {
                0 => rng.u32(..),
                _ => rng.u32(..) & 0x7FFF_FFFF,
            };
            OpDescEntry { word, extra: 0 }
        })
        .collect();
    let ndvle = 1 + usize::from(rng.u8(..8) == 0);
    let dvles = (0..ndvle)
        .map(|_| {
            let kind = if rng.bool() {
                ShaderKind::Vertex
            } else {
                ShaderKind::Geometry
            };
            let mut d = Dvle::new(kind);
            d.entry_start = rng.u32(..=len);
            d.entry_end = if rng.bool() {
                rng.u32(d.entry_start..=len)
            } else {
                rng.u32(..64)
            };
            if rng.u8(..4) == 0 {
                random_tables(rng, &mut d);
            }
            d
        })
        .collect();
    Shbin {
        dvlp: Dvlp {
            version: 0,
            code,
            descs,
            reserved: [0; 3],
        },
        dvles,
        layout: None,
    }
}

/// Random DVLE tables: whatever the declarations cannot express must not stop the code and
/// descriptors from coming back.
fn random_tables(rng: &mut fastrand::Rng, d: &mut Dvle) {
    const NAMES: &[&str] = &[
        "m",
        "light.dir",
        "_p",
        "c5",
        "a b",
        "",
        "out_position",
        "x",
        "x",
        "v",
    ];
    d.merge_outmaps = rng.u8(..4) == 0;
    d.gs_mode = GsMode::from_code(rng.u8(..4));
    d.gs_fixed_start = rng.u8(..100);
    d.gs_variable_num = rng.u8(..3);
    d.input_mask = rng.u16(..);
    d.output_mask = rng.u16(..);
    d.version = if rng.bool() { Dvle::VERSION_PICASSO } else { 0 };
    for _ in 0..rng.usize(..6) {
        let first = rng.u16(..0x90);
        d.uniforms.push(UniformEntry {
            name: NAMES[rng.usize(..NAMES.len())].to_string(),
            first,
            last: first + rng.u16(..4),
        });
    }
    for _ in 0..rng.usize(..6) {
        d.outputs.push(Output {
            semantic: OutputSemantic::from_code(rng.u16(..11)),
            reg: rng.u16(..18),
            mask: rng.u32(..18),
        });
    }
    for _ in 0..rng.usize(..6) {
        let data = [rng.u32(..), rng.u32(..0x100_0000), 0, rng.u32(..2)];
        d.constants
            .push(Constant::from_raw(rng.u16(..4), rng.u16(..100), data));
    }
}

#[test]
fn random_programs_round_trip() {
    use rayon::prelude::*;
    let seeds: Vec<u64> = (0..RANDOM_PROGRAMS as u64).collect();
    seeds.par_iter().for_each(|&seed| {
        let mut rng = fastrand::Rng::with_seed(0x5EED_0000 + seed);
        let program = random_program(&mut rng);
        check(&program, &format!("seed {seed}"));
    });
}

/// Programs written the way picasso users write them come back as structured text (blocks,
/// procedures, names; no pinned table, no raw words) that re-assembles to the same bytes.
#[test]
fn sources_round_trip_structured() {
    let vertex = "\
.fvec proj[4], light$dir, _private[2]
.ivec counts
.bool flags[2], lit
.constf k(1.0, 0.5, -2.0, 0.1)
.constfa table[3]
.constfa (1, 2, 3, 4)
.end
.setb b9 on
.in pos
.in nrm v3
.out opos position
.out oclr color.rgb
.out otex texcoord0.xy
.out - texcoord0w otex.z
.alias negk -k.wzyx
.proc main
    dp4 opos.x, proj[0], pos
    dp4 opos.y, proj[1], pos
    mova a0.x, k.y
    mov r0, table[a0.x+1]
    ifu lit
        dp3 r1.x, light$dir, nrm
        max r1.x, k.y, r1.x
    .else
        mov r1, negk
    .end
    ifc cmp.x && !cmp.y
        call helper
    .end
    for counts
        cmp k, lt, ge, r1
        breakc cmp.x
        mad r2, r1, k.y, r2
        ifu b1
            nop
        .end
    .end
    jmpu !b0, skip
    callc cmp.y, helper
skip:
    mov oclr, r1
    mov otex, r2
    end
.end
.proc helper
    rcp r3.x, k.w
    dph r4, r3, proj[2]
    sge r5, r4, c3
    madi r6, r5, r4, proj[3]
.end
";
    let lib = ".nodvle\n.proc shared\n    mov r7, r8\n.end\n";
    let geometry = "\
.gsh point c8
.fvec gproj[4]
.out gpos position
.out - dummy o2
.entry gmain
.proc gmain
    call shared
    setemit 0
    mov gpos, v0
    emit
    setemit 1, prim inv
    emit
    end
.end
";
    let sources = [
        Source::new("a.v.pica", vertex),
        Source::new("lib.pica", lib),
        Source::new("g.g.pica", geometry),
    ];
    let (original, _) = assemble(&sources).unwrap();
    let text = check(&original, "sources");
    assert!(!text.contains(".opdesc") && !text.contains("!0x"), "{text}");
    // Names come from the DVLE tables (procedures and labels are not stored: they get
    // addresses as names); blocks and the geometry mode are recovered.
    for needle in [
        "ifu lit",
        ".else",
        "for counts",
        "call proc_017",
        "jmpu !flags[0], L_014",
        "mov r0, c93[a0.x]",
        "dp3 r1.x, light$dir, nrm",
        "mad r6, r5, r4, proj[3]",
        ".gsh point c8",
        "setemit 1, prim inv",
    ] {
        assert!(text.contains(needle), "{needle}:\n{text}");
    }
    let (back, _) = assemble(&[Source::new("d.pica", text.as_str())]).unwrap();
    assert_eq!(back.to_bytes(), original.to_bytes(), "{text}");
}

/// A random program written the way picasso users write them: uniforms, constants, outputs,
/// procedures with ALU instructions (random swizzles, masks, negations, relative addressing),
/// IF/ELSE and FOR blocks, BREAKC, jumps to labels, calls.
fn random_source(rng: &mut fastrand::Rng) -> String {
    let mut s = String::from(".fvec m[4], u, arr[6]\n.ivec loops\n.bool flag\n");
    s += ".constf k(1.0, 0.5, -2.0, 0.25)\n.in pos v0\n.in col v1\n";
    s += ".out opos position\n.out oclr color\n.out otex texcoord0.xy\n";
    let procs = 1 + rng.usize(..3);
    let swz = |rng: &mut fastrand::Rng| -> String {
        if rng.bool() {
            return String::new();
        }
        let n = 1 + rng.usize(..4);
        let s: String = (0..n)
            .map(|_| ['x', 'y', 'z', 'w'][rng.usize(..4)])
            .collect();
        format!(".{s}")
    };
    let mask = |rng: &mut fastrand::Rng| -> String {
        let m: String = ['x', 'y', 'z', 'w'].iter().filter(|_| rng.bool()).collect();
        if m.is_empty() || m.len() == 4 {
            String::new()
        } else {
            format!(".{m}")
        }
    };
    let neg = |rng: &mut fastrand::Rng| if rng.u8(..4) == 0 { "-" } else { "" };
    for p in 0..procs {
        s += &format!(".proc p{p}\n");
        // Open blocks: Some(has_else) for an IF, None for a FOR.
        let mut open: Vec<Option<bool>> = Vec::new();
        let mut labels = 0;
        for _ in 0..rng.usize(1..24) {
            let wide = match rng.u8(..5) {
                0 => format!("m[{}]", rng.usize(..4)),
                1 => format!(
                    "arr[{}+{}]",
                    ["a0.x", "a0.y", "aL"][rng.usize(..3)],
                    rng.usize(..3)
                ),
                2 => "k".to_string(),
                3 => "pos".to_string(),
                _ => format!("r{}", rng.usize(..16)),
            };
            let narrow = format!("r{}", rng.usize(..16));
            let dst = match rng.u8(..6) {
                0 => "opos".to_string(),
                1 => "oclr".to_string(),
                _ => format!("r{}", rng.usize(..16)),
            };
            let (w, n) = (
                format!("{}{wide}{}", neg(rng), swz(rng)),
                format!("{}{narrow}{}", neg(rng), swz(rng)),
            );
            let line = match rng.u8(..20) {
                0 => format!("add {dst}{}, {w}, {n}", mask(rng)),
                1 => format!("mul {dst}{}, {w}, {n}", mask(rng)),
                2 => format!("dp4 {dst}{}, {w}, {n}", mask(rng)),
                3 => format!("dp3 {dst}{}, {w}, {n}", mask(rng)),
                4 => format!("dph {dst}{}, {n}, {w}", mask(rng)),
                5 => format!("sge {dst}{}, {w}, {n}", mask(rng)),
                6 => format!("mad {dst}{}, {n}, {w}, {n}", mask(rng)),
                7 => format!("mad {dst}{}, {n}, {n}, {w}", mask(rng)),
                8 => format!("mov {dst}{}, {w}", mask(rng)),
                9 => format!("rcp {dst}{}, {w}", mask(rng)),
                10 => format!("mova a0.{}, {w}", ["x", "y", "xy"][rng.usize(..3)]),
                11 => format!("cmp {w}, lt, ge, {n}"),
                12 if open.len() < 4 => {
                    open.push(Some(false));
                    if rng.bool() {
                        "ifu flag".to_string()
                    } else {
                        "ifc cmp.x && !cmp.y".to_string()
                    }
                }
                13 if open.len() < 4 => {
                    open.push(None);
                    "for loops".to_string()
                }
                14 if !open.is_empty() => {
                    open.pop();
                    ".end".to_string()
                }
                15 if open.last() == Some(&Some(false)) => {
                    open.pop();
                    open.push(Some(true));
                    ".else".to_string()
                }
                16 if open.contains(&None) => "breakc cmp.y".to_string(),
                17 if p + 1 < procs => format!("call p{}", p + 1),
                18 => {
                    labels += 1;
                    format!("jmpc !cmp.x, l{p}_{labels}\nl{p}_{labels}:")
                }
                _ => "nop".to_string(),
            };
            s += &line;
            s += "\n";
        }
        for _ in &open {
            s += ".end\n";
        }
        if p == 0 {
            s += "end\n";
        }
        s += ".end\n";
    }
    s += ".entry p0\n";
    s
}

#[test]
fn random_sources_round_trip_structured() {
    let mut rng = fastrand::Rng::with_seed(0x50_0ACE);
    let mut assembled = 0;
    for n in 0..1500 {
        let src = random_source(&mut rng);
        let Ok((original, _)) = assemble(&[Source::new("r.pica", src.as_str())]) else {
            continue;
        };
        assembled += 1;
        let text = check(&original, &format!("source {n}:\n{src}"));
        assert!(
            !text.contains(".opdesc") && !text.contains("!0x"),
            "{src}\n---\n{text}"
        );
        let (back, _) = assemble(&[Source::new("d.pica", text.as_str())]).unwrap();
        assert_eq!(back.to_bytes(), original.to_bytes(), "{src}\n---\n{text}");
    }
    assert!(
        assembled > 1000,
        "only {assembled} random sources assembled"
    );
}
