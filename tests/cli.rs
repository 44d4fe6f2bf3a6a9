//! The `picajit` command end to end: `run` reproduces a PCAS case as PCOU, `run` and `info` on
//! real SHBIN files, and clear errors (non-zero exit) on bad input. Runs on every backend the
//! command offers (today: the interpreter).

use std::path::{Path, PathBuf};
use std::process::Command;

use picajit::case::{Case, CaseOutput};
use picajit::isa::{
    AddrIdx, Dst, Fmt0, Fmt1, Fmt1u, Fmt2, Fmt3b, Instruction, OpDesc, Src, SrcMod,
};
use picajit::program::{Uniforms, VertexStatus};

const BACKENDS: &[&str] = &["interp", "x64-sse41", "x64-avx2", "auto"];

fn picajit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_picajit"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("picajit-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn corpus() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/shbin");
    assert!(
        dir.is_dir(),
        "the corpus must be at {} (shared/ beside the repo)",
        dir.display()
    );
    dir
}

/// A case whose outputs are derived by hand:
/// ```text
/// 0: mul  o0, v0, c0        ; o0 = v0 * c0 (pmul)
/// 1: jmpu b0, 4             ; b0 is set: skip to 4
/// 2: mov  o1, c1            ; (skipped)
/// 3: end
/// 4: add  o1, v1, -v0       ; o1 = v1 - v0
/// 5: end
/// ```
fn hand_case() -> Case {
    let full = OpDesc::new(0xF, [SrcMod::IDENTITY; 3]).0;
    let neg2 = OpDesc::new(
        0xF,
        [
            SrcMod::IDENTITY,
            SrcMod {
                negate: true,
                ..SrcMod::IDENTITY
            },
            SrcMod::IDENTITY,
        ],
    )
    .0;
    let code = vec![
        Instruction::Mul(Fmt1 {
            dst: Dst::output(0),
            idx: AddrIdx::None,
            src1: Src::uniform(0),
            src2: Src::input(0),
            desc: 0,
        })
        .encode(),
        Instruction::Jmpu(Fmt3b {
            id: 0,
            dest: 4,
            num: 0,
        })
        .encode(),
        Instruction::Mov(Fmt1u {
            dst: Dst::output(1),
            idx: AddrIdx::None,
            src1: Src::uniform(1),
            desc: 0,
        })
        .encode(),
        Instruction::End(Fmt0).encode(),
        Instruction::Add(Fmt1 {
            dst: Dst::output(1),
            idx: AddrIdx::None,
            src1: Src::input(1),
            src2: Src::input(0),
            desc: 1,
        })
        .encode(),
        Instruction::End(Fmt0).encode(),
    ];
    let mut uniforms = Uniforms {
        b: 1,
        ..Uniforms::default()
    };
    uniforms.f[0] = [2.0, f32::INFINITY, 0.0, -1.0];
    uniforms.f[1] = [9.0; 4];
    let mut a = [[0.0f32; 4]; 16];
    a[0] = [1.5, 0.0, f32::INFINITY, 4.0];
    a[1] = [10.0, 20.0, 30.0, 40.0];
    let mut b = [[0.0f32; 4]; 16];
    b[0] = [-3.0, 2.0, 1.0, f32::NAN];
    b[1] = [1.0; 4];
    Case {
        code,
        descs: vec![full, neg2],
        entry: 0,
        uniforms,
        inputs: vec![a, b],
    }
}

#[test]
fn run_reproduces_a_case_file() {
    let dir = temp_dir("case");
    let case_path = dir.join("hand.pcas");
    std::fs::write(&case_path, hand_case().to_bytes()).unwrap();
    for backend in BACKENDS {
        let out_path = dir.join(format!("hand-{backend}.pcou"));
        let status = picajit()
            .args([
                "run",
                case_path.to_str().unwrap(),
                "-o",
                out_path.to_str().unwrap(),
                "--backend",
                backend,
            ])
            .status()
            .unwrap();
        assert!(status.success());
        let out = CaseOutput::parse(&std::fs::read(&out_path).unwrap()).unwrap();
        assert_eq!(out.status, vec![VertexStatus::Ended; 2]);
        let bits = |v: [f32; 4]| v.map(f32::to_bits);
        // Vertex 0: o0 = c0 * v0 = (2*1.5, pmul(inf, 0) = +0, pmul(0, inf) = +0, -1*4).
        assert_eq!(bits(out.outputs[0][0]), bits([3.0, 0.0, 0.0, -4.0]));
        // o1 = v1 - v0 = (8.5, 20, -inf, 36).
        assert_eq!(
            bits(out.outputs[0][1]),
            bits([8.5, 20.0, f32::NEG_INFINITY, 36.0])
        );
        // Vertex 1: o0 = (-6, 2*inf = inf, 0, NaN); o1 = (4, -1, 0, NaN).
        assert_eq!(
            bits(out.outputs[1][0])[..3],
            bits([-6.0, f32::INFINITY, 0.0, 0.0])[..3]
        );
        assert!(out.outputs[1][0][3].is_nan());
        assert_eq!(
            bits(out.outputs[1][1])[..3],
            bits([4.0, -1.0, 0.0, 0.0])[..3]
        );
        assert!(out.outputs[1][1][3].is_nan());
        // Registers never written stay +0.0.
        assert!(out
            .outputs
            .iter()
            .all(|o| o[2..].iter().flatten().all(|x| x.to_bits() == 0)));
    }
}

#[test]
fn run_reports_budget_exhaustion_in_the_status() {
    // 0: jmpc !cc.x, 0  ; cc.x starts false: jumps to itself forever
    let code = vec![Instruction::Jmpc(Fmt2 {
        refx: false,
        refy: false,
        condop: picajit::isa::CondOp::X,
        dest: 0,
        num: 0,
    })
    .encode()];
    let case = Case {
        code,
        descs: vec![],
        entry: 0,
        uniforms: Uniforms::default(),
        inputs: vec![[[0.0; 4]; 16]; 3],
    };
    let dir = temp_dir("budget");
    let case_path = dir.join("loop.pcas");
    let out_path = dir.join("loop.pcou");
    std::fs::write(&case_path, case.to_bytes()).unwrap();
    let output = picajit()
        .args([
            "run",
            case_path.to_str().unwrap(),
            "-o",
            out_path.to_str().unwrap(),
            "--budget",
            "100",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("vertex 0 exhausted its step budget of 100"),
        "{stderr}"
    );
    let out = CaseOutput::parse(&std::fs::read(&out_path).unwrap()).unwrap();
    assert_eq!(out.status, vec![VertexStatus::BudgetExhausted; 3]);
}

#[test]
fn info_and_run_on_every_corpus_file() {
    let mut files: Vec<_> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "shbin"));
    assert_eq!(files.len(), 13);
    for file in files {
        let info = picajit()
            .args(["info", file.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(info.status.success(), "{}", file.display());
        let text = String::from_utf8_lossy(&info.stdout);
        assert!(text.contains("DVLE 0: vertex shader"), "{text}");
        assert!(text.contains("end"), "{text}");
        for backend in BACKENDS {
            let run = picajit()
                .args([
                    "run",
                    file.to_str().unwrap(),
                    "--vertices",
                    "3",
                    "--seed",
                    "5",
                    "--backend",
                    backend,
                ])
                .output()
                .unwrap();
            assert!(run.status.success(), "{}", file.display());
            let table = String::from_utf8_lossy(&run.stdout);
            assert_eq!(
                table.lines().filter(|l| l.contains(" ended ")).count(),
                3,
                "{table}"
            );
        }
    }
}

#[test]
fn info_names_the_lovepotion_tables() {
    let file = corpus().join("lovebrew__lovepotion__main_v_pica.shbin");
    let out = picajit()
        .args(["info", file.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "input inPosition = v0",
        "input inTexCoord = v2",
        "uniform projMtx = c0..c3",
        "uniform mdlvMtx = c4..c7",
        "output o0.xyzw = position",
        "constant c95 = (1, 0, 0, 0)",
        "0x000c  88000000  end",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}

#[test]
fn bad_files_fail_with_a_message() {
    let dir = temp_dir("bad");
    let junk = dir.join("junk.bin");
    std::fs::write(&junk, b"PCAS\x02\0\0\0").unwrap();
    let out = picajit()
        .args(["run", junk.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("junk.bin") && stderr.contains("error"),
        "{stderr}"
    );
    let out = picajit()
        .args(["info", junk.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let out = picajit()
        .args(["run", dir.join("missing.pcas").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    // Unknown magic bytes are shown as text.
    let zip = dir.join("archive.zip");
    std::fs::write(&zip, b"PK\x03\x04rest").unwrap();
    let out = picajit()
        .args(["run", zip.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(r#"starts with "PK\x03\x04""#), "{stderr}");
}

#[test]
fn asm_on_a_binary_file_says_so() {
    let file = corpus().join("lovebrew__lovepotion__main_v_pica.shbin");
    let dir = temp_dir("asm-binary");
    let out = picajit()
        .args(["asm", file.to_str().unwrap(), "-o"])
        .arg(dir.join("out.shbin"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not assembly source: a SHBIN file") && stderr.contains("picajit disasm"),
        "{stderr}"
    );
    assert!(!dir.join("out.shbin").exists());
}

#[test]
fn run_says_1_vertex() {
    let file = corpus().join("lovebrew__lovepotion__main_v_pica.shbin");
    let out = picajit()
        .args([
            "run",
            file.to_str().unwrap(),
            "--vertices",
            "1",
            "--backend",
            "interp",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains(", 1 vertex, seed"), "{stdout}");
    assert!(stderr.contains("1 vertex run on interp"), "{stderr}");
    assert!(!stdout.contains("1 vertices") && !stderr.contains("1 vertices"));
}

#[test]
fn dump_times_every_compile_phase_of_a_generated_program() {
    let out = picajit()
        .args([
            "dump",
            "--generate",
            "branchy:120:3",
            "--timings",
            "--repeat",
            "2",
            "--backend",
            "x64-sse41",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("path: native"), "{text}");
    assert!(text.contains("reachable word (120)"), "{text}");
    // Every phase of a native compile, in pipeline order.
    let phases = [
        "reachability",
        "explore",
        "ir build",
        "uniformity",
        "branch conversion",
        "simplify_cfg",
        "cse",
        "dce",
        "simplify_cfg 2",
        "verify",
        "budget check",
        "prepare",
        "backend verify",
        "liveness",
        "regalloc",
        "emit",
        "assemble",
        "map",
        "shader",
    ];
    let rows: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("phase "))
        .skip(1)
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words[..words.len().saturating_sub(3)].join(" ")
        })
        .collect();
    assert_eq!(rows, phases, "{text}");

    // The source it printed assembles to the same 120 words.
    let out = picajit()
        .args(["dump", "--generate", "branchy:120:3", "--source"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(".proc main") && text.contains("ifu b"),
        "{text}"
    );

    for bad in ["loopy:100", "straight:10", "straight:x", "branchy:100:1:2"] {
        let out = picajit()
            .args(["dump", "--generate", bad])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--generate"), "{bad}: {stderr}");
    }
}
