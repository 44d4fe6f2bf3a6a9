//! The `picajit` command end to end: `run` reproduces a PCAS case as PCOU, `run` and `info` on
//! real SHBIN files, and clear errors (non-zero exit) on bad input. Runs on every backend the
//! command offers (today: the interpreter).

#[path = "common/command.rs"]
mod command;
#[path = "common/scratch.rs"]
mod scratch;

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
    scratch::fresh_dir("cli", name)
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
        kind: picajit::program::ShaderKind::Vertex,
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
        kind: picajit::program::ShaderKind::Vertex,
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
fn asm_reads_text_up_to_a_nul_byte() {
    let dir = temp_dir("asm-nul");
    // Text, then NUL padding: picasso reads up to the NUL; so does picajit, with a warning.
    let src = dir.join("t.v.pica");
    std::fs::write(
        &src,
        b".out pos position\n.proc main\n mov pos, v0\n end\n.end\n\0\0\x01junk",
    )
    .unwrap();
    let out = picajit()
        .args(["asm", src.to_str().unwrap(), "-o"])
        .arg(dir.join("t.shbin"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("t.v.pica:6:1: warning: NUL byte in source text: picasso stops reading"),
        "{stderr}"
    );
    assert!(dir.join("t.shbin").exists());
    // Control bytes before the first NUL: a binary file, not source.
    let bin = dir.join("image.bin");
    std::fs::write(&bin, b"\x7fELF\x02\x01\x01\0\0\0").unwrap();
    let out = picajit()
        .args(["asm", bin.to_str().unwrap(), "-o"])
        .arg(dir.join("bin.shbin"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not assembly source: a binary file (it holds NUL bytes)"),
        "{stderr}"
    );
    assert!(!dir.join("bin.shbin").exists());
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
    let text = command::stdout_of(picajit().args([
        "dump",
        "--generate",
        "branchy:120:3",
        "--timings",
        "--repeat",
        "2",
        "--backend",
        "x64-sse41",
    ]));
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
        "split_defs",
        "cse",
        "dce",
        "simplify_cfg 2",
        "place_io",
        "verify",
        "budget check",
        "prepare",
        "backend prepare",
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
    assert!(!text.contains("path:"), "only the source: {text}");
    let (shbin, _) =
        picajit::asm::assemble(&[picajit::asm::Source::new("gen.pica", text.as_ref())]).unwrap();
    assert_eq!(shbin.dvlp.code.len(), 120);

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

/// Assembles `text` (a `.v.pica` or `.g.pica` named `name`) with `picajit asm`.
/// A geometry shader with a per-vertex END between EMITs: `picajit dump` names the mechanism
/// of its branch (the lane-position model; no branch is taken only when lanes agree).
#[test]
fn dump_names_the_mechanism_of_a_geometry_branch() {
    let dir = temp_dir("dump-geometry");
    let src = dir.join("g.g.pica");
    std::fs::write(
        &src,
        ".gsh\n.constf k(0.5, 1.0, 0.0, 2.0)\n.out opos position\n.proc main\n\
         mov opos, v0\nsetemit 0\nemit\nsetemit 1\nemit\ncmp k.x, gt, gt, v0.x\n\
         ifc cmp.x\nsetemit 2, prim\nemit\nend\n.end\nmov opos, v1\nsetemit 2, prim inv\n\
         emit\nend\n.end\n",
    )
    .unwrap();
    let shbin = dir.join("g.shbin");
    let out = picajit()
        .args(["asm", "-o"])
        .arg(&shbin)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = picajit().arg("dump").arg(&shbin).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("branch at 0x006: lane split (lane-position model)"),
        "{text}"
    );
    assert!(!text.contains("agree"), "{text}");
}

#[test]
fn dump_tells_how_an_agal_program_compiles() {
    let dir = temp_dir("dump-agal");
    let dump = |name: &str, text: &str| {
        let src = dir.join(name);
        std::fs::write(&src, text).unwrap();
        command::stdout_of(picajit().arg("dump").arg(&src))
    };
    let native = !picajit::engine::Backend::available()
        .iter()
        .all(|b| *b == picajit::engine::Backend::Interp);
    // `tld` compiles: a sample with the explicit level of detail between two segments.
    let text = dump(
        "tld.agal",
        ".vertex\n.version 4\nmov vt0, va0\ntld vt1, vt0, vs0 <2d,nearest,mipnearest>\n\
         add op, vt1, va1\nmov v0, vt1\n",
    );
    if native {
        assert!(text.contains("path: native"), "{text}");
        assert!(text.contains("2 segment(s), 1 texture sample(s)"), "{text}");
        assert!(text.contains("level of detail Explicit"), "{text}");
        assert!(text.contains("native (last segment)"), "{text}");
    }
    // Sixteen temporaries and v0 live across a `tex`: 68 components, more than the
    // intermediate layout carries; the dump says why the program runs on the interpreter.
    let mut src = String::from(".fragment\n.version 2\n");
    for t in 0..16 {
        src += &format!("mov ft{t}, v0\n");
    }
    src += "tex ft16, v0, fs0 <2d,linear>\n";
    for t in 0..16 {
        src += &format!("add ft16, ft16, ft{t}\n");
    }
    src += "add oc, ft16, v0\n";
    let text = dump("wide.agal", &src);
    if native {
        assert!(
            text.contains(
                "path: interpreter fallback: 68 components live across a texture sample \
                 (at most 60 are carried)"
            ),
            "{text}"
        );
    }
}

fn assembled(dir: &Path, name: &str, text: &str) -> PathBuf {
    let src = dir.join(name);
    std::fs::write(&src, text).unwrap();
    let out = dir.join(format!("{name}.shbin"));
    let asm = picajit()
        .arg("asm")
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        asm.status.success(),
        "{}",
        String::from_utf8_lossy(&asm.stderr)
    );
    out
}

#[test]
fn run_takes_uniforms_and_inputs_by_name_and_saves_a_case() {
    let dir = temp_dir("values");
    let shbin = assembled(
        &dir,
        "scale.v.pica",
        ".fvec scale, m[2]\n.in pos v0\n.out o position\n.out t texcoord0\n.proc main\n \
         mul o, scale, pos\n dp4 t.x, m[0], pos\n dp4 t.y, m[1], pos\n end\n.end\n",
    );
    let values = dir.join("values.txt");
    std::fs::write(&values, "# rows of m\nm = 1,0,0,0, 0,0,0,2\n").unwrap();
    let case = dir.join("saved.pcas");
    for backend in BACKENDS {
        let out = picajit()
            .arg("run")
            .arg(&shbin)
            .args(["--vertices", "2", "--backend", backend])
            .args(["--uniform", "scale=2,3,4,5", "--input", "pos=1,1,1,1"])
            .arg("--values")
            .arg(&values)
            .arg("--save-case")
            .arg(&case)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The inputs used, by their declared name, then the outputs.
        assert!(
            stdout.contains("inputs:") && stdout.contains("v0 pos"),
            "{stdout}"
        );
        let rows: Vec<&str> = stdout.lines().filter(|l| l.contains(" ended ")).collect();
        assert_eq!(rows.len(), 2, "{stdout}");
        for row in rows {
            let numbers: Vec<f32> = row
                .split(|c: char| c.is_whitespace() || c == '|')
                .filter_map(|w| w.parse().ok())
                .collect();
            // vertex, o (2, 3, 4, 5), t (1, 2, 0, 0)
            assert_eq!(
                numbers[1..],
                [2.0, 3.0, 4.0, 5.0, 1.0, 2.0, 0.0, 0.0],
                "{row}"
            );
        }
    }
    // The saved case replays to the same outputs.
    let bytes = std::fs::read(&case).unwrap();
    let saved = Case::parse(&bytes).unwrap();
    assert_eq!(saved.inputs.len(), 2);
    assert_eq!(saved.inputs[1][0], [1.0; 4]);
    assert_eq!(saved.uniforms.f[0], [2.0, 3.0, 4.0, 5.0]);
    assert_eq!(saved.uniforms.f[2], [0.0, 0.0, 0.0, 2.0]);
    // Bad settings fail with a message naming the setting.
    let out = picajit()
        .arg("run")
        .arg(&shbin)
        .args(["--uniform", "nope=1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`nope=1`") && stderr.contains("neither a register"),
        "{stderr}"
    );
}

#[test]
fn run_takes_a_json_values_file() {
    let dir = temp_dir("values-json");
    let shbin = assembled(
        &dir,
        "json.v.pica",
        ".fvec scale, m[2]\n.bool flip\n.in pos v0\n.out o position\n.out t texcoord0\n\
         .proc main\n mul o, scale, pos\n dp4 t.x, m[0], pos\n dp4 t.y, m[1], pos\n \
         ifu flip\n mov t.z, pos\n .end\n end\n.end\n",
    );
    let values = dir.join("values.json");
    std::fs::write(
        &values,
        r#"{ "m": [[1, 0, 0, 0], [0, 0, 0, 2]], "scale": [2, 3, 4.5, 5], "flip": true,
             "pos": "1, 1, 0.25, 1" }"#,
    )
    .unwrap();
    let case = dir.join("json.pcas");
    let out = picajit()
        .arg("run")
        .arg(&shbin)
        .args(["--vertices", "1", "--backend", "interp", "--values"])
        .arg(&values)
        .arg("--save-case")
        .arg(&case)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let saved = Case::parse(&std::fs::read(&case).unwrap()).unwrap();
    assert_eq!(saved.uniforms.f[0], [2.0, 3.0, 4.5, 5.0]);
    assert_eq!(saved.uniforms.f[1], [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(saved.uniforms.f[2], [0.0, 0.0, 0.0, 2.0]);
    assert!(saved.uniforms.bool(0));
    assert_eq!(saved.inputs[0][0], [1.0, 1.0, 0.25, 1.0]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let row = stdout.lines().find(|l| l.contains(" ended ")).unwrap();
    let numbers: Vec<f32> = row
        .split(|c: char| c.is_whitespace() || c == '|')
        .filter_map(|w| w.parse().ok())
        .collect();
    // vertex, o (2, 3, 1.125, 5), t (1, 2, 0.25, 0)
    assert_eq!(
        numbers[1..],
        [2.0, 3.0, 1.125, 5.0, 1.0, 2.0, 0.25, 0.0],
        "{row}"
    );
    // Errors name the file and the place: bad JSON, a bad value, a key given twice.
    for (text, expected) in [
        ("{ \"m\": [1, 2,\n", "values.json:2:0: EOF while parsing"),
        (
            "{ \"flip\": null }",
            "values.json: \"flip\": expected a number",
        ),
        (
            "{ \"flip\": true,\n \"flip\": false }",
            "`flip` is given twice at line 2",
        ),
        (
            "{ \"scale\": [1, 2, 3, 4, 5] }",
            "c0 takes 4 numbers (4 per register), not 5",
        ),
    ] {
        std::fs::write(&values, text).unwrap();
        let out = picajit()
            .arg("run")
            .arg(&shbin)
            .args(["--backend", "interp", "--values"])
            .arg(&values)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{text}: {stderr}");
    }
}

#[test]
fn run_prints_the_triangles_of_a_geometry_shader() {
    let dir = temp_dir("geometry");
    let shbin = assembled(
        &dir,
        "tri.g.pica",
        ".gsh point c0\n.out p position\n.proc main\n setemit 0\n mov p, v0\n emit\n \
         setemit 1\n mov p, v1\n emit\n setemit 2, prim\n mov p, v2\n emit\n end\n.end\n",
    );
    for backend in BACKENDS {
        let out = picajit()
            .arg("run")
            .arg(&shbin)
            .args(["--vertices", "1", "--backend", backend])
            .args([
                "--input",
                "v0=1,0,0,1",
                "--input",
                "v1=0,1,0,1",
                "--input",
                "v2=0,0,1,1",
            ])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(
            stdout.contains("invocation 0: ended, 1 triangle"),
            "{stdout}"
        );
        assert!(stdout.contains("triangle 0 (normal winding)"), "{stdout}");
        for v in ["o0 (1, 0, 0, 1)", "o0 (0, 1, 0, 1)", "o0 (0, 0, 1, 1)"] {
            assert!(stdout.contains(v), "{v} missing in\n{stdout}");
        }
        assert!(stderr.contains("1 geometry invocation run on"), "{stderr}");
        assert!(stderr.contains("1 triangle emitted"), "{stderr}");
    }
}

#[test]
fn a_bad_tier_override_warns_and_falls_back() {
    let file = corpus().join("lovebrew__lovepotion__main_v_pica.shbin");
    for value in ["AVX2", "avx3"] {
        let out = picajit()
            .args(["run", file.to_str().unwrap(), "--vertices", "1"])
            .env("PICAJIT_X64_TIER", value)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "warning: PICAJIT_X64_TIER=\"{value}\" is not one of sse41, avx2, avx512"
            )),
            "{stderr}"
        );
    }
}

/// `PICAJIT_X64_TIER` forces a tier the CPU has (no warning; the run says which) and, for a
/// tier it lacks, warns once and falls back to what Auto picks without it — never the emulator.
#[test]
fn a_tier_override_forces_a_tier_the_cpu_has_and_warns_for_one_it_lacks() {
    use picajit_codegen::x64::Tier;
    let file = corpus().join("lovebrew__lovepotion__main_v_pica.shbin");
    for (value, tier) in [
        ("sse41", Tier::Sse41),
        ("avx2", Tier::Avx2),
        ("avx512", Tier::Avx512),
    ] {
        let out = picajit()
            .args(["run", file.to_str().unwrap(), "--vertices", "1"])
            .env("PICAJIT_X64_TIER", value)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        if tier.host_supports() {
            assert!(!stderr.contains("warning"), "{value}: {stderr}");
            assert!(
                stderr.contains(&format!("run on x64-{value} (native {tier:?})")),
                "{value}: {stderr}"
            );
        } else {
            assert!(
                stderr.contains(&format!(
                    "warning: PICAJIT_X64_TIER=\"{value}\": this CPU cannot run x64-{value}; using "
                )),
                "{value}: {stderr}"
            );
            assert!(!stderr.contains("emulator"), "{value}: {stderr}");
        }
    }
}

/// `--backend x64-avx512` runs in a test build on any x86-64 host (natively, or in the x86-64
/// emulator; programs the tier refuses on the interpreter) and prints what the interpreter
/// prints.
#[test]
fn the_avx512_backend_runs_and_agrees_with_the_interpreter() {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let file = corpus().join("lovebrew__lovepotion__main_v_pica.shbin");
    let run = |backend: &str| {
        let out = picajit()
            .args(["run", file.to_str().unwrap(), "--vertices", "20"])
            .args(["--seed", "7", "--backend", backend])
            .env_remove("PICAJIT_X64_TIER")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{backend}: {stderr}");
        (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
    };
    let (want, _) = run("interp");
    let (got, stderr) = run("x64-avx512");
    assert!(
        stderr.contains("20 vertices run on x64-avx512 ("),
        "{stderr}"
    );
    // The header line names the backend; the inputs and outputs after it are the same.
    let body = |s: &str| s.split_once("\ninputs:\n").expect("inputs").1.to_string();
    assert_eq!(body(&got), body(&want));
    assert!(body(&want).contains("outputs:"), "{want}");
}

#[test]
fn dump_draw_shows_the_draw_kernels_of_an_emulator_draw() {
    use picajit::engine::Backend;
    let file = corpus().join("lovebrew__lovepotion__main_v_pica.shbin");
    let dump = |backend: &str, extra: &[&str]| {
        command::stdout_of(
            picajit()
                .arg("dump")
                .arg(&file)
                .args(["--draw", "--backend", backend])
                .args(extra),
        )
    };
    // Every backend this host runs but the interpreter has draw kernels (AArch64 through
    // qemu on other hosts).
    let mut backends = Backend::available();
    if Backend::runnable().contains(&Backend::Aarch64) && !backends.contains(&Backend::Aarch64) {
        backends.push(Backend::Aarch64);
    }
    backends.retain(|&b| b != Backend::Interp);
    // `--draw-width`: full is the backend's own width; avx2 narrows AVX-512 alone; auto (the
    // default) is one of the two.
    for &backend in &backends {
        let own = match backend {
            Backend::X64Avx2 => 8,
            Backend::X64Avx512 => 16,
            Backend::Interp | Backend::Auto | Backend::X64Sse41 | Backend::Aarch64 => 4,
        };
        let narrow = if backend == Backend::X64Avx512 {
            8
        } else {
            own
        };
        for (width, lanes) in [
            ("full", &[own][..]),
            ("avx2", &[narrow]),
            ("auto", &[own, narrow]),
        ] {
            let text = dump(
                backend.name(),
                &["--draw-stride", "6", "--draw-width", width],
            );
            for kind in ["indexed", "stepped"] {
                let head =
                    format!("draw kernel, {kind} (3 attributes of 4 floats, stride 6 floats)");
                let line = text.lines().find(|l| l.starts_with(&head));
                let line =
                    line.unwrap_or_else(|| panic!("{backend:?}: no {kind} kernel in\n{text}"));
                let ends = |w: &usize| line.ends_with(&format!(" {w} lanes"));
                assert!(lanes.iter().any(ends), "{backend:?} {width}: {line}");
            }
        }
    }
    // The code: the stepped kernel counts its batch's first vertex in rsi (W × 24 bytes per
    // batch), keeps the attribute bases in callee-saved registers (rbx the first loaded
    // register's) and leaves the attribute pointers in the context alone.
    if backends.contains(&Backend::X64Avx2) {
        let text = dump(Backend::X64Avx2.name(), &["--draw-stride", "6", "--asm"]);
        assert!(text.contains("add       rsi,0C0h"), "{text}");
        assert!(text.contains("[rbx+rsi+18h]"), "{text}");
        assert!(!text.contains("add       qword [rdi+"), "{text}");
    }
    let text = dump(Backend::Interp.name(), &[]);
    assert!(text.contains("draw kernels: none"), "{text}");
    // Only a SHBIN has an output map.
    let out = picajit()
        .args(["dump", "--generate", "straight:50", "--draw"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}
