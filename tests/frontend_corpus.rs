//! Every corpus SHBIN (`../shared/corpus/shbin`): every vertex-shader DVLE lowers and agrees
//! with the interpreter bit for bit, with the file's constants over random uniforms and special
//! float inputs and varied bools — except the one shader with a genuinely per-vertex branch,
//! which must be reported divergent (and whose two paths, made uniform, must agree).

mod frontend_support;

use std::path::PathBuf;

use frontend_support::*;
use picajit::frontend::{self, Lowered, Unsupported};
use picajit::isa::{Fmt3b, Instruction};
use picajit::program::{Program, ShaderKind};
use picajit::shbin::Shbin;

/// Corpus shaders with a branch on per-vertex cc: (file name, pc of the branch).
///
/// spooky's mansion computes a normal quaternion: `cmp c95.x >= r4.x` (r4 from the vertex
/// normal v1) then `jmpc cc.x, 0x1f` over an RCP/MUL of that normal.
const DIVERGENT: [(&str, u32); 1] = [("XanderMK__spookys-3d-mansion__vshader.shbin", 0x1c)];

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
            let expected = DIVERGENT
                .iter()
                .find(|(file, _)| *file == name)
                .map(|&(_, pc)| Unsupported::Divergent { pc });
            let lowered = match (frontend::lower(&program), expected) {
                (Ok(l), None) => l,
                (Err(Unsupported::Geometry), _) if program.kind == ShaderKind::Geometry => continue,
                (Err(e), Some(want)) if e == want => {
                    divergent_paths_agree(&name, &program, dvle, want);
                    divergent += 1;
                    continue;
                }
                (Ok(_), Some(want)) => panic!("{name} DVLE {k}: lowered, expected {want}"),
                (Err(e), _) => panic!("{name} DVLE {k}: {e}"),
            };
            agree_many(&format!("{name} DVLE {k}"), &lowered, &program, dvle);
            println!("{name} DVLE {k}: {:?}", lowered.stats);
            programs += 1;
        }
    }
    assert_eq!(divergent, DIVERGENT.len());
    assert!(programs + divergent >= 13);
}

/// Replaces the per-vertex branch at `pc` by a jump on bool b15 (taken when set), so the two
/// paths it chooses between lower, and checks both.
fn divergent_paths_agree(
    name: &str,
    program: &Program,
    dvle: &picajit::shbin::Dvle,
    want: Unsupported,
) {
    let Unsupported::Divergent { pc } = want else {
        unreachable!()
    };
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
    agree_many(&format!("{name} (branch on b15)"), &lowered, &p, dvle);
    println!(
        "{name}: divergent at {pc:#x}; made uniform: {:?}",
        lowered.stats
    );
}
