//! Every corpus SHBIN (`../shared/corpus/shbin`): every vertex-shader DVLE lowers and agrees
//! with the interpreter bit for bit, with the file's constants over random uniforms and special
//! float inputs and varied bools. Two shaders branch on per-vertex cc (the citro3d
//! normal-quaternion idiom); their branch must be if-converted, and the same programs with the
//! branch made uniform (on a bool) must agree as well.

mod frontend_support;

use std::path::PathBuf;

use frontend_support::*;
use picajit::frontend::{self, Lowered};
use picajit::isa::{Fmt3b, Instruction};
use picajit::program::Program;
use picajit::shbin::Shbin;

/// Corpus shaders with a branch on per-vertex cc: (file name, pc of the branch).
///
/// Both compute a normal quaternion: `cmp c95.x >= r4.x` (r4 from the vertex normal v1) then
/// `jmpc cc.x` over an RCP and a MUL of that normal.
const DIVERGENT: [(&str, u32); 2] = [
    ("XanderMK__spookys-3d-mansion__vshader.shbin", 0x1c),
    ("krrgit__EntryGameEngine__vshader.shbin", 0x17),
];

fn agree_many(name: &str, lowered: &Lowered, program: &Program, constants: &picajit::shbin::Dvle) {
    let mut rng = fastrand::Rng::with_seed(0xC0_4905);
    for round in 0..64u16 {
        let mut u = random_uniforms(&mut rng);
        if round % 2 == 0 {
            // Plain values as an application would set them.
            for c in u.f.iter_mut() {
                *c = std::array::from_fn(|_| (rng.f32() - 0.5) * 4.0);
            }
        }
        u.b = round.wrapping_mul(0x0421);
        constants.apply_constants(&mut u);
        let inputs = random_inputs(&mut rng, 17);
        if let Err(e) = compare(lowered, program, &u, &inputs, 1 << 20) {
            panic!("{name} round {round}: {e}");
        }
    }
}

fn corpus_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/shbin");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "shbin"))
        .collect();
    files.sort();
    files
}

#[test]
fn corpus_lowers_and_agrees() {
    let files = corpus_files();
    assert!(files.len() >= 13, "corpus has {} files", files.len());
    let (mut programs, mut divergent) = (0, 0);
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy();
        let shbin = Shbin::parse(&std::fs::read(path).unwrap()).unwrap();
        for (k, dvle) in shbin.dvles.iter().enumerate() {
            let program = shbin.program(k).unwrap();
            let lowered = match frontend::lower(&program) {
                Ok(l) => l,
                Err(e) => panic!("{name} DVLE {k}: {e}"),
            };
            match DIVERGENT.iter().find(|(file, _)| *file == name) {
                Some(&(_, pc)) => {
                    assert_eq!(lowered.stats.if_converted, 1, "{name}");
                    uniform_paths_agree(&name, &program, dvle, pc);
                    divergent += 1;
                }
                None => assert_eq!(lowered.stats.if_converted, 0, "{name}"),
            }
            agree_many(&format!("{name} DVLE {k}"), &lowered, &program, dvle);
            println!("{name} DVLE {k}: {:?}", lowered.stats);
            programs += 1;
        }
    }
    assert_eq!(divergent, DIVERGENT.len());
    assert!(programs + divergent >= 13);
}

/// Replaces the per-vertex branch at `pc` by a jump on bool b15 (taken when set): the two paths
/// it chooses between, now as a real branch, must agree too.
fn uniform_paths_agree(name: &str, program: &Program, dvle: &picajit::shbin::Dvle, pc: u32) {
    let Instruction::Jmpc(f) = Instruction::decode(program.code[pc as usize]) else {
        panic!("{name}: no JMPC at {pc:#x}");
    };
    let mut p = program.clone();
    p.code[pc as usize] = Instruction::Jmpu(Fmt3b {
        id: 15,
        dest: f.dest,
        num: 0,
    })
    .encode();
    let lowered = frontend::lower(&p).unwrap_or_else(|e| panic!("{name} made uniform: {e}"));
    assert_eq!(lowered.stats.if_converted, 0);
    agree_many(&format!("{name} (branch on b15)"), &lowered, &p, dvle);
}
