//! `picajit fuzz` end to end: a short seeded run on every backend passes and summarizes cases
//! per engine; `--ops` restricts the arithmetic (and refuses what is not arithmetic);
//! `--replay` re-checks saved cases; the worker answers its protocol.

#[path = "common/command.rs"]
mod command;
#[path = "common/scratch.rs"]
mod scratch;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use command::stdout_of;
use picajit::engine::Backend;

fn picajit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_picajit"))
}

fn temp_dir(name: &str) -> PathBuf {
    scratch::fresh_dir("fuzz", name)
}

fn regress_file() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/regress");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcas"))
        .collect();
    files.sort();
    files.remove(0)
}

#[test]
fn a_seeded_slice_passes_on_every_backend() {
    let out = temp_dir("slice");
    let stdout = stdout_of(
        picajit()
            .args([
                "fuzz", "--cases", "60", "--seed", "11", "--quiet", "--jobs", "2",
            ])
            .arg("--out-dir")
            .arg(&out),
    );
    let last = stdout.lines().last().unwrap_or("");
    assert!(last.starts_with("fuzz: 60 cases"), "{last}");
    assert!(last.ends_with("0 failures"), "{last}");
    // By default the fuzzer runs every backend the host runs natively (emulated AArch64 only
    // on request).
    for b in Backend::available()
        .into_iter()
        .filter(|b| b.is_native_here())
    {
        assert!(last.contains(&format!("{} 60", b.name())), "{last}");
    }
}

#[test]
fn ops_restrict_the_arithmetic() {
    let out = temp_dir("ops");
    let run = picajit()
        .args(["fuzz", "--cases", "20", "--ops", "mad,dp4,rcp", "--quiet"])
        .arg("--out-dir")
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success());
    let bad = picajit()
        .args(["fuzz", "--cases", "1", "--ops", "ifc"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not an arithmetic opcode"));
}

#[test]
fn replay_checks_saved_cases() {
    let file = regress_file();
    let run = picajit()
        .args(["fuzz", "--replay"])
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    assert!(stdout.contains("agrees on every backend"), "{stdout}");
    assert!(stdout.contains("0 failures"), "{stdout}");
}

#[test]
fn worker_answers_each_request_on_one_line() {
    let file = regress_file();
    let bytes = std::fs::read(&file).unwrap();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut child = picajit()
        .args(["fuzz-worker", "--backend", "interp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "check 64 {hex}").unwrap();
    writeln!(stdin, "report 64 {hex}").unwrap();
    writeln!(stdin, "check 64 zz").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    // `ok <native per backend> <mechanism bits>`: the bits of what the frontend made of the
    // program, computed in the worker (here, with no JIT backend, by lowering it itself).
    let case = picajit::case::Case::parse(&bytes).unwrap();
    let stats = picajit::frontend::lower(&case.program().unwrap())
        .unwrap()
        .stats;
    let bits = u8::from(stats.if_converted > 0) << 1
        | u8::from(stats.masked_forks > 0) << 2
        | u8::from(stats.lanes) << 3;
    let bits = if bits == 0 { 1 } else { bits };
    assert_eq!(lines[0], format!("ok 0 {bits}"));
    assert!(lines[1].starts_with("report "), "{}", lines[1]);
    assert!(lines[2].starts_with("error "), "{}", lines[2]);
    // With JIT backends the bits come from their compile: the same.
    let jits: Vec<&str> = Backend::available()
        .into_iter()
        .filter(|b| b.is_native_here() && *b != Backend::Interp)
        .map(|b| b.name())
        .collect();
    if jits.is_empty() {
        return;
    }
    let mut child = picajit()
        .args(["fuzz-worker", "--backend", &jits.join(",")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "check 64 {hex}").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let (native, got) = text
        .trim()
        .strip_prefix("ok ")
        .unwrap()
        .split_once(' ')
        .unwrap();
    assert_eq!(native.len(), jits.len(), "{text}");
    assert_eq!(got, bits.to_string(), "{text}");
}

#[test]
fn run_takes_the_budget_from_a_saved_case_name() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/regress");
    let file = dir.join("budget-native-seed10-b1024.pcas");
    let out = temp_dir("budget").join("out.pcou");
    let run = picajit()
        .arg("run")
        .arg(&file)
        .args(["--backend", "interp", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains("step budget 1024 (from the file name)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("exhausted its step budget of 1024"),
        "{stderr}"
    );
}

#[test]
fn agal_slice_passes_and_cases_replay_on_a_backend() {
    let mut backends: Vec<&str> = Backend::runnable().iter().map(|b| b.name()).collect();
    backends.retain(|b| *b != "interp");
    let stdout = stdout_of(
        picajit()
            .args([
                "fuzz", "--agal", "--cases", "120", "--seed", "5", "--jobs", "2",
            ])
            .arg("--backend")
            .arg(backends.join(",")),
    );
    let last = stdout.lines().last().unwrap_or("");
    assert!(last.starts_with("agal fuzz: 120 cases"), "{last}");
    assert!(last.ends_with(" 0 failures"), "{last}");
    for b in &backends {
        assert!(last.contains(b), "{last}");
    }
    // An AGCS case gives the same AGOU bytes on the interpreter and on each backend.
    let dir = temp_dir("agal-case");
    let case = dir.join("skin.agcs");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/agal/skinning.vertex.agal");
    stdout_of(
        picajit()
            .args(["agal", "run", "--count", "9", "--seed", "4", "--save-case"])
            .arg(&case)
            .arg(&src),
    );
    let outputs = |backend: &str| {
        let out = dir.join(format!("{backend}.agou"));
        let r = picajit()
            .arg("run")
            .arg(&case)
            .args(["--backend", backend, "-o"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        std::fs::read(out).unwrap()
    };
    let want = outputs("interp");
    assert!(want.len() > 9 * 11 * 16, "{}", want.len());
    for b in &backends {
        assert_eq!(outputs(b), want, "{b}");
    }
}

/// The `.pcas` files of `dir` whose name starts with `prefix`, sorted.
fn saved(dir: &PathBuf, prefix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn keep_slowest_lists_and_saves_the_slowest_cases_as_save_writes_them() {
    let out = temp_dir("slowest");
    let run = picajit()
        .args([
            "fuzz",
            "--cases",
            "12",
            "--seed",
            "40",
            "--quiet",
            "--keep-slowest",
            "3",
        ])
        .arg("--out-dir")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    let listed: Vec<(u64, f64)> = stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("seed "))
        .map(|l| {
            let (seed, rest) = l.split_once(": ").unwrap();
            let secs = rest.split_once(" s,").unwrap().0;
            (seed.parse().unwrap(), secs.parse().unwrap())
        })
        .collect();
    assert_eq!(listed.len(), 3, "{stdout}");
    assert!(listed.iter().all(|&(seed, _)| (40..52).contains(&seed)));
    assert!(listed.windows(2).all(|w| w[0].1 >= w[1].1), "{stdout}");
    // The summary's slowest case is the first listed.
    assert!(
        stdout.contains(&format!("slowest: seed {},", listed[0].0)),
        "{stdout}"
    );
    let slow = saved(&out, "slow-seed-");
    assert_eq!(slow.len(), 3);
    // `--save` writes the same case for a seed, without running it.
    let seeds: Vec<String> = listed.iter().map(|(s, _)| s.to_string()).collect();
    let save = picajit()
        .args(["fuzz", "--save", &seeds.join(",")])
        .arg("--out-dir")
        .arg(&out)
        .output()
        .unwrap();
    assert!(save.status.success());
    let again = saved(&out, "seed-");
    assert_eq!(again.len(), 3);
    for (seed, _) in &listed {
        let name = |prefix: &str, files: &[PathBuf]| {
            files
                .iter()
                .find(|p| {
                    let n = p.file_name().unwrap().to_string_lossy().into_owned();
                    n.starts_with(&format!("{prefix}{seed}-b"))
                })
                .unwrap()
                .clone()
        };
        let (a, b) = (name("slow-seed-", &slow), name("seed-", &again));
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert_eq!(
            a.file_name().unwrap().to_string_lossy()["slow-".len()..],
            b.file_name().unwrap().to_string_lossy()[..]
        );
    }
    // A saved case replays, and `dump --timings` reads it.
    let replay = picajit()
        .args(["fuzz", "--replay"])
        .arg(&again[0])
        .output()
        .unwrap();
    assert!(replay.status.success());
    let dump = picajit()
        .args(["dump", "--timings", "--repeat", "1"])
        .arg(&again[0])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&dump.stdout);
    assert!(dump.status.success(), "{text}");
    assert!(text.contains("compile timings (1 cold compiles"), "{text}");
}

/// A geometry DVLE saved as a case is a PCAS version 2 geometry case; `picajit run CASE -o`
/// writes a PCOU version 2 with each invocation's triangles, the same bytes on every engine
/// (AArch64 under qemu) as the interpreter library computes.
#[test]
fn a_geometry_case_runs_and_writes_its_triangles_on_every_engine() {
    use picajit::case::{Case, CaseOutput};
    use picajit::program::{ShaderKind, VertexStatus};
    let dir = temp_dir("geometry-case");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/shaders/subdivide.g.pica");
    let shbin = dir.join("subdivide.shbin");
    stdout_of(picajit().arg("asm").arg(&src).arg("-o").arg(&shbin));
    let case_file = dir.join("subdivide.pcas");
    stdout_of(
        picajit()
            .arg("run")
            .arg(&shbin)
            .args([
                "--vertices",
                "6",
                "--seed",
                "3",
                "--backend",
                "interp",
                "--save-case",
            ])
            .arg(&case_file),
    );
    let bytes = std::fs::read(&case_file).unwrap();
    assert_eq!(bytes[4..8], 2u32.to_le_bytes(), "PCAS version 2");
    let case = Case::parse(&bytes).unwrap();
    assert_eq!(case.kind, ShaderKind::Geometry);
    assert_eq!(case.inputs.len(), 6);

    // What the library's interpreter makes of it, as PCOU bytes.
    let program = case.program().unwrap();
    let interp = picajit::interp::Interpreter::new(&program);
    let runs: Vec<_> = case
        .inputs
        .iter()
        .map(|i| interp.run_vertex(&case.uniforms, i))
        .collect();
    let want = CaseOutput {
        outputs: runs.iter().map(|r| r.outputs).collect(),
        status: runs.iter().map(|r| r.status).collect(),
        triangles: Some(runs.iter().map(|r| r.primitives.clone()).collect()),
    };
    assert!(want.status.iter().all(|s| *s == VertexStatus::Ended));
    let triangles = want.triangles.as_ref().unwrap();
    assert!(
        triangles.iter().all(|t| t.len() == 4),
        "four per invocation"
    );
    let want = want.to_bytes();

    let mut engines: Vec<&str> = Backend::runnable().iter().map(|b| b.name()).collect();
    if !engines.contains(&"aarch64") {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: the AArch64 backend cannot run (install qemu-user-static: make setup)"
        );
    }
    engines.sort_unstable();
    for engine in engines {
        let out = dir.join(format!("{engine}.pcou"));
        let run = picajit()
            .arg("run")
            .arg(&case_file)
            .args(["--backend", engine, "-o"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{engine}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let got = std::fs::read(&out).unwrap();
        assert_eq!(got[4..8], 2u32.to_le_bytes(), "{engine}: PCOU version 2");
        assert!(got == want, "{engine}: PCOU differs from the interpreter's");
        let parsed = CaseOutput::parse(&got).unwrap();
        assert_eq!(parsed.triangles.map(|t| t.len()), Some(6), "{engine}");
    }
}

/// Every engine this host can run (AArch64 under qemu-user; required under CI).
fn every_engine() -> Vec<&'static str> {
    let engines: Vec<&str> = Backend::runnable().iter().map(|b| b.name()).collect();
    if !engines.contains(&"aarch64") {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: the AArch64 backend cannot run (install qemu-user-static: make setup)"
        );
    }
    engines
}

#[test]
fn a_geometry_slice_passes_on_every_engine() {
    let engines = every_engine();
    let out = temp_dir("geometry-slice");
    let stdout = stdout_of(
        picajit()
            .args([
                "fuzz",
                "--geometry",
                "--cases",
                "40",
                "--seed",
                "7",
                "--quiet",
                "--jobs",
                "2",
            ])
            .arg("--backend")
            .arg(engines.join(","))
            .arg("--out-dir")
            .arg(&out),
    );
    let last = stdout.lines().last().unwrap_or("");
    assert!(last.starts_with("fuzz: 40 geometry cases"), "{last}");
    assert!(last.ends_with("; 0 failures"), "{last}");
    for engine in &engines {
        assert!(last.contains(&format!("{engine} 40")), "{last}");
    }
    assert!(
        stdout.contains("fuzz: geometry programs by what became of their per-vertex branches"),
        "{stdout}"
    );
    // Most programs emit: the count is the interpreter's, checked against every engine.
    let emitted = stdout
        .lines()
        .find_map(|l| {
            l.strip_suffix(" triangles in all, on the interpreter with each case's uniforms)")
        })
        .unwrap_or_else(|| panic!("{stdout}"));
    let (programs, triangles) = emitted
        .strip_prefix("fuzz: ")
        .and_then(|l| l.split_once(" of 40 geometry programs emitted triangles ("))
        .unwrap_or_else(|| panic!("{stdout}"));
    let programs: u64 = programs.parse().unwrap();
    let triangles: u64 = triangles.parse().unwrap();
    assert!(programs >= 15 && triangles >= programs, "{stdout}");
}

/// A fault planted in every engine's geometry results (the worker's self-test hook,
/// `PICAJIT_FUZZ_FAULT=winding` flips each invocation's first triangle) is found, minimized,
/// saved as a PCAS version 2 case with a report, and replays: failing with the fault, passing
/// without it.
#[test]
fn a_planted_geometry_failure_is_minimized_saved_and_replays() {
    let engine = every_engine()
        .into_iter()
        .find(|e| e.starts_with("x64"))
        .unwrap_or("interp");
    let out = temp_dir("geometry-planted");
    let run = picajit()
        .env("PICAJIT_FUZZ_FAULT", "winding")
        .args([
            "fuzz",
            "--geometry",
            "--cases",
            "30",
            "--seed",
            "100",
            "--jobs",
            "1",
            "--quiet",
            "--max-failures",
            "1",
            "--minimize-tries",
            "400",
            "--backend",
            engine,
        ])
        .arg("--out-dir")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stdout}{stderr}");
    assert!(stdout.trim_end().ends_with("; 1 failures"), "{stdout}");
    assert!(stderr.contains("==== fuzz failure, seed "), "{stderr}");
    assert!(
        stderr.contains("geometry shader): mismatch on "),
        "{stderr}"
    );
    assert!(stderr.contains("run_geometry invocation "), "{stderr}");
    assert!(
        stderr.contains("winding normal (interp) vs inverted")
            || stderr.contains("winding inverted (interp) vs normal"),
        "{stderr}"
    );
    assert!(stderr.contains("case: geometry shader"), "{stderr}");
    assert!(
        stderr.contains(".gsh"),
        "the disassembly is a geometry unit: {stderr}"
    );
    assert!(stderr.contains("replay: picajit run "), "{stderr}");
    let saved = saved(&out, "geometry-seed-");
    let (original, minimized): (Vec<&PathBuf>, Vec<&PathBuf>) = saved
        .iter()
        .partition(|p| p.to_string_lossy().contains("-original-"));
    assert_eq!((original.len(), minimized.len()), (1, 1), "{saved:?}");
    let name = minimized[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(name.contains(&format!("-mismatch-{engine}-b")), "{name}");
    let parse = |p: &PathBuf| {
        let bytes = std::fs::read(p).unwrap();
        assert_eq!(bytes[4..8], 2u32.to_le_bytes(), "PCAS version 2");
        picajit::case::Case::parse(&bytes).unwrap()
    };
    let (small, big) = (parse(minimized[0]), parse(original[0]));
    assert_eq!(small.kind, picajit::program::ShaderKind::Geometry);
    let nop = u32::from(picajit::isa::Opcode::Nop.values()[0]) << 26;
    let live = |c: &picajit::case::Case| c.code.iter().filter(|&&w| w >> 26 != nop >> 26).count();
    assert!(
        live(&small) < live(&big),
        "{} vs {}",
        live(&small),
        live(&big)
    );
    assert_eq!(
        small.inputs.len(),
        1,
        "one invocation is enough to emit a triangle"
    );

    let replay = |fault: &str| {
        picajit()
            .env("PICAJIT_FUZZ_FAULT", fault)
            .args(["fuzz", "--replay"])
            .arg(minimized[0])
            .args(["--backend", engine])
            .output()
            .unwrap()
    };
    let failing = replay("winding");
    let text = String::from_utf8_lossy(&failing.stdout);
    assert!(!failing.status.success(), "{text}");
    assert!(text.contains("1 failures"), "{text}");
    let passing = replay("none");
    let text = String::from_utf8_lossy(&passing.stdout);
    assert!(passing.status.success(), "{text}");
    assert!(text.contains("agrees on every backend"), "{text}");
    assert!(text.contains("a geometry case: "), "{text}");
    // `picajit run` replays it too, writing its triangles.
    let pcou = out.join("minimized.pcou");
    stdout_of(
        picajit()
            .arg("run")
            .arg(minimized[0])
            .args(["--backend", engine, "-o"])
            .arg(&pcou),
    );
    let output = picajit::case::CaseOutput::parse(&std::fs::read(&pcou).unwrap()).unwrap();
    let triangles = output.triangles.expect("a geometry output");
    assert!(!triangles[0].is_empty(), "the minimized case still emits");
}

#[test]
fn geometry_save_and_keep_slowest_write_the_generator_cases() {
    let out = temp_dir("geometry-save");
    stdout_of(
        picajit()
            .args(["fuzz", "--geometry", "--save", "5,6"])
            .arg("--out-dir")
            .arg(&out),
    );
    let files = saved(&out, "geometry-seed-");
    assert_eq!(files.len(), 2, "{files:?}");
    let config = picajit::fuzz::Config::default();
    for (seed, file) in [5u64, 6].into_iter().zip(&files) {
        let want = picajit::fuzz::generate_geometry(seed, &config);
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            name,
            picajit::fuzz::file_name(&format!("geometry-seed-{seed}"), want.budget)
        );
        let bytes = std::fs::read(file).unwrap();
        assert!(bytes == want.case.to_bytes(), "seed {seed}");
        let case = picajit::case::Case::parse(&bytes).unwrap();
        assert_eq!(case.kind, picajit::program::ShaderKind::Geometry);
    }
    // --keep-slowest saves the same files for the seeds it lists.
    let slow = picajit()
        .args([
            "fuzz",
            "--geometry",
            "--cases",
            "2",
            "--seed",
            "5",
            "--jobs",
            "1",
            "--quiet",
            "--keep-slowest",
            "2",
        ])
        .arg("--out-dir")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&slow.stdout);
    assert!(slow.status.success(), "{stdout}");
    let slowest = saved(&out, "slow-geometry-seed-");
    assert_eq!(slowest.len(), 2, "{slowest:?}");
    for (a, b) in slowest.iter().zip(&files) {
        assert_eq!(
            a.file_name().unwrap().to_string_lossy()["slow-".len()..],
            b.file_name().unwrap().to_string_lossy()[..]
        );
        assert!(std::fs::read(a).unwrap() == std::fs::read(b).unwrap());
    }
}

/// Without `--backend` the fuzzer also runs the x86-64 tiers this host only emulates (a test
/// build: AVX-512 on a CPU without it); `--no-emulated` leaves them out and keeps the others.
#[test]
fn no_emulated_leaves_out_the_emulated_tiers_only() {
    let summary = |extra: &[&str]| {
        let run = picajit()
            .args([
                "fuzz", "--cases", "8", "--seed", "3", "--quiet", "--jobs", "1",
            ])
            .args(extra)
            .arg("--out-dir")
            .arg(temp_dir("no-emulated"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
        assert!(run.status.success(), "{stdout}");
        stdout.lines().last().unwrap_or("").to_string()
    };
    let (all, native) = (summary(&[]), summary(&["--no-emulated"]));
    let emulated = Backend::emulated();
    for b in [Backend::X64Sse41, Backend::X64Avx2, Backend::X64Avx512] {
        if !Backend::runnable().contains(&b) {
            continue;
        }
        let listed = format!("{} 8", b.name());
        assert!(all.contains(&listed), "{all}");
        assert_eq!(native.contains(&listed), !emulated.contains(&b), "{native}");
    }
    assert!(
        native.contains("interp 8") && native.ends_with("0 failures"),
        "{native}"
    );
}

/// `--no-emulated` with only backends this host emulates leaves nothing to compare: one clear
/// error naming them, not a crash report per case.
#[test]
fn no_emulated_with_only_emulated_backends_is_an_error() {
    for b in Backend::emulated() {
        let dir = temp_dir(&format!("only-emulated-{}", b.name())).join("out");
        let run = picajit()
            .args(["fuzz", "--cases", "2", "--jobs", "1", "--no-emulated"])
            .args(["--backend", b.name(), "--out-dir"])
            .arg(&dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{}: {stderr}", b.name());
        assert!(
            stderr.contains("--no-emulated leaves no backend to run") && stderr.contains(b.name()),
            "{}: {stderr}",
            b.name()
        );
        assert!(!dir.exists(), "{}: no case is written", b.name());
    }
}
