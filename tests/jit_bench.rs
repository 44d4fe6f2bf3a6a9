//! `jit-bench` end to end on a small shader (few vertices, few samples), and the interpreter's
//! instruction-counting run it relies on.

#![cfg(feature = "bench")]

#[path = "common/command.rs"]
mod command;
#[path = "common/scratch.rs"]
mod scratch;

use std::path::Path;
use std::process::Command;

use picajit::asm::{assemble, Source};
use picajit::case::Case;
use picajit::interp::Interpreter;
use serde_json::Value;

/// Runs jit-bench with `args`, checks that it succeeded and returns its standard output.
fn jit_bench(args: &[&str]) -> String {
    command::stdout_of(Command::new(env!("CARGO_BIN_EXE_jit-bench")).args(args))
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/shaders")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn counted_run_counts_executed_instructions() {
    let path = example("steps.v.pica");
    let text = std::fs::read_to_string(&path).unwrap();
    let (shbin, _) = assemble(&[Source::new(path, text)]).unwrap();
    let dvle = &shbin.dvles[0];
    let mut uniforms = picajit::Uniforms::default();
    dvle.apply_constants(&mut uniforms);
    let interp = Interpreter::new(&shbin.program(0).unwrap());
    let vertex = |value: f32| {
        let mut v = [[0.0; 4]; 16];
        v[1][0] = value;
        v
    };
    let (low_inv, low) = interp.run_vertex_counted(&uniforms, &vertex(0.1));
    let (high_inv, high) = interp.run_vertex_counted(&uniforms, &vertex(2.0));
    assert_eq!(low_inv, interp.run_vertex(&uniforms, &vertex(0.1)));
    assert_eq!(high_inv, interp.run_vertex(&uniforms, &vertex(2.0)));
    // 0.1: the first iteration breaks after cmp, breakc; 2.0: four full iterations of
    // cmp, breakc, add.
    assert_eq!(high - low, 10, "{low} {high}");
    // mov, mov, for, (cmp, breakc) at least once, mul, mov, end.
    assert!(low >= 8, "{low}");
}

fn number(row: &Value, key: &str) -> f64 {
    row[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} in {row}"))
}

#[test]
fn quick_json_and_svg() {
    let dir = scratch::fresh_dir("jit-bench", "quick");
    let svg = dir.join("speedup.svg");
    // A PCAS case too: the lighting shader with three vertices of its own.
    let path = example("lighting.v.pica");
    let text = std::fs::read_to_string(&path).unwrap();
    let (shbin, _) = assemble(&[Source::new(path, text)]).unwrap();
    let mut uniforms = picajit::Uniforms::default();
    shbin.dvles[0].apply_constants(&mut uniforms);
    uniforms.f[0] = [1.0, 0.5, 0.25, 2.0];
    let inputs: Vec<_> = (0..3)
        .map(|k| {
            let mut v = [[0.5 + k as f32; 4]; 16];
            v[1] = [0.0, 0.0, 1.0, 0.0];
            v
        })
        .collect();
    let case = Case::from_program(&shbin.program(0).unwrap(), &uniforms, &inputs);
    let pcas = dir.join("lit.pcas");
    std::fs::write(&pcas, case.to_bytes()).unwrap();

    let out = Command::new(env!("CARGO_BIN_EXE_jit-bench"))
        .arg(example("mvp.v.pica"))
        .arg(&pcas)
        .args([
            "--quick",
            "--vertices",
            "64",
            "--repetitions",
            "3",
            "--threads",
            "2",
        ])
        .args(["--json", "-", "--svg"])
        .arg(&svg)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // With `--json -` the table goes to stderr and stdout is JSON only.
    assert!(
        stderr.contains("ns/vertex") && stderr.contains("mvp") && stderr.contains("compile phases"),
        "{stderr}"
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");

    let machine = &json["machine"];
    assert!(machine["cpu_model"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(machine["features"].is_array());
    assert!(machine["logical_cpus"].as_u64().is_some_and(|n| n >= 1));
    let best = machine["best_backend"].as_str().unwrap();

    let rows = json["results"].as_array().unwrap();
    let backends: Vec<&str> = rows
        .iter()
        .map(|r| r["backend"].as_str().unwrap())
        .collect();
    assert!(backends.contains(&"interp"));
    assert!(backends.contains(&best), "{backends:?}");
    for row in rows {
        // mvp: mov, mov, 4 × dp4, mov, end; lighting: 15 instructions and end.
        let instructions = match row["shader"].as_str().unwrap() {
            "mvp" => 8.0,
            "lit" => 16.0,
            other => panic!("shader {other}"),
        };
        assert_eq!(number(row, "pica_instructions_per_vertex"), instructions);
        assert_eq!(row["io"], "aos");
        assert!(number(row, "ns_per_vertex") > 0.0, "{row}");
        assert!(number(row, "vertices_per_s") > 0.0, "{row}");
        assert!(number(row, "speedup") > 0.0, "{row}");
        assert!(number(row, "compile_us") >= 0.0, "{row}");
        assert!(number(row, "compile_hit_us") >= 0.0, "{row}");
        assert!(number(row, "ns_per_instruction") > 0.0, "{row}");
        let words = match row["shader"].as_str().unwrap() {
            "mvp" => 8,
            _ => 16,
        };
        assert_eq!(row["reachable_words"], words, "{row}");
        let phases: Vec<&str> = row["compile_phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                assert!(number(p, "min_us") <= number(p, "median_us"), "{p}");
                p["phase"].as_str().unwrap()
            })
            .collect();
        let path = row["path"].as_str().unwrap();
        let backend = row["backend"].as_str().unwrap();
        let expected = if backend == "interp" {
            "interpreter"
        } else {
            "native"
        };
        assert_eq!(path, expected, "{row}");
        if path == "interpreter" {
            assert_eq!(phases, ["reachability", "shader"], "{row}");
        }
        assert!(row["path_detail"].as_str().is_some_and(|s| !s.is_empty()));
        let threads = row["threads"].as_u64().unwrap();
        match row["api"].as_str().unwrap() {
            "run" => assert_eq!(threads, 1),
            "run_par" => {
                assert!((1..=2).contains(&threads));
                assert!(number(row, "scaling") > 0.0, "{row}");
            }
            other => panic!("api {other}"),
        }
        if path == "native" {
            for phase in ["explore", "ir build", "dce", "regalloc", "emit", "map"] {
                assert!(phases.contains(&phase), "{phase} in {phases:?}");
            }
            assert!(number(row, "native_instructions_per_batch") > 0.0);
            assert!(
                number(row, "speedup") > 1.0,
                "a JIT slower than the interpreter: {row}"
            );
        }
    }
    let par = rows.iter().filter(|r| r["api"] == "run_par").count();
    // Per backend: one `run` row, and `run_par` rows for 1 and 2 threads.
    assert_eq!(par, 2 * (rows.len() - par));

    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with("<svg") || text.starts_with("<?xml"),
        "{}",
        &text[..text.len().min(80)]
    );
    assert!(text.contains("mvp") && text.contains("lit"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn agal_examples_are_built_in_workloads_with_speedups() {
    let text = jit_bench(&[
        "--agal",
        "--quick",
        "--repetitions",
        "1",
        "--vertices",
        "64",
    ]);
    assert!(text.starts_with("AGAL (AoS; speedup over the AGAL reference interpreter)"));
    let native: Vec<&str> = picajit::engine::Backend::available()
        .into_iter()
        .filter(|b| *b != picajit::engine::Backend::Interp)
        .map(|b| b.name())
        .collect();
    for name in [
        "textured_quad.vertex.agal",
        "heightmap.vertex.agal",
        "skinning.vertex.agal",
        "textured_quad.fragment.agal",
        "wave_filter.fragment.agal",
        "two_textures.fragment.agal",
    ] {
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with(name)).collect();
        assert_eq!(rows.len(), 1 + native.len(), "{name}: {text}");
        assert!(
            rows[0].contains(" interp ") && rows[0].contains(" 1.0×"),
            "{}",
            rows[0]
        );
        for b in &native {
            let row = rows.iter().find(|r| r.contains(&format!(" {b} "))).unwrap();
            // Every example compiles (the fragment ones in segments between samples).
            assert!(row.contains("native"), "{row}");
        }
    }
}

#[test]
fn draw_mode_reports_every_column_for_the_built_in_shaders() {
    let dir = scratch::fresh_dir("jit-bench", "draw");
    let json_path = dir.join("draw.json");
    let text = jit_bench(&[
        "--draw",
        "--quick",
        "--repetitions",
        "1",
        "--backend",
        "all",
        "--json",
        json_path.to_str().unwrap(),
    ]);
    assert!(
        text.contains("redraw ns/v")
            && text.contains("compile+run µs")
            && text.contains("prepared 1st µs"),
        "{text}"
    );
    let (draws, small) = text.split_once("small draws:").expect("a small-draw table");
    let backends: Vec<&str> = picajit::engine::Backend::available()
        .into_iter()
        .map(|b| b.name())
        .collect();
    // shader, backend, unique, then fifteen figures (ratios end in ×); small draws: shader,
    // backend, four figures.
    for (table, cells_per_row) in [(draws, 18), (small, 6)] {
        for shader in ["mvp", "lighting", "branches"] {
            for b in &backends {
                let row = table
                    .lines()
                    .find(|l| l.starts_with(shader) && l.split_whitespace().nth(1) == Some(b))
                    .unwrap_or_else(|| panic!("no {shader} {b} row: {text}"));
                let cells: Vec<&str> = row.split_whitespace().collect();
                assert_eq!(cells.len(), cells_per_row, "{row}");
                if cells_per_row == 18 {
                    assert_eq!(cells[2], "2048", "{row}");
                }
                for cell in &cells[2..] {
                    let x: f64 = cell.trim_end_matches('×').parse().expect(row);
                    assert!(x.is_finite() && x > 0.0, "{row}");
                }
            }
        }
    }
    // `--json FILE`: the same rows with every column by name.
    let json: Value =
        serde_json::from_slice(&std::fs::read(&json_path).unwrap()).expect("the file is JSON");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(number(&json, "indices"), 4096.0);
    assert_eq!(number(&json, "vertices"), 2048.0);
    assert!(json["machine"]["cpu_model"].as_str().is_some());
    let rows = json["results"].as_array().unwrap();
    for shader in ["mvp", "lighting", "branches"] {
        for b in &backends {
            let row = rows
                .iter()
                .find(|r| r["shader"] == *shader && r["backend"] == *b)
                .unwrap_or_else(|| panic!("no {shader} {b} row: {json}"));
            assert_eq!(number(row, "vertices"), 2048.0, "{row}");
            for key in [
                "ns_per_index",
                "draw_ns_per_vertex",
                "redraw_ns_per_vertex",
                "range_ns_per_vertex",
                "sparse_ns_per_vertex",
                "run_ns_per_vertex",
                "draw_over_run",
                "redraw_over_run",
                "range_over_run",
                "sparse_over_run",
                "after_uniforms_us",
                "first_draw_us",
                "compile_us",
                "compile_run_us",
                "prepared_first_us",
            ] {
                let x = number(row, key);
                assert!(x.is_finite() && x > 0.0, "{key}: {row}");
            }
            let ratio = number(row, "draw_ns_per_vertex") / number(row, "run_ns_per_vertex");
            // (JSON text round trip: equal up to the last digit.)
            assert!(
                (number(row, "draw_over_run") / ratio - 1.0).abs() < 1e-12,
                "{row}"
            );
            for key in ["small_draw_us", "small_run_us"] {
                let pair = row[key].as_array().unwrap();
                assert_eq!(pair.len(), 2, "{row}");
                assert!(
                    pair.iter().all(|x| x.as_f64().is_some_and(|x| x > 0.0)),
                    "{row}"
                );
            }
        }
    }
}

#[test]
fn draw_count_makes_one_operation_per_shader_and_backend_and_says_which() {
    // `--count` (for callgrind's --toggle-collect) times nothing and prints one line per
    // operation it made: every native backend asked for, the shaders `--shader` keeps.
    for (op, shader) in [
        ("first", "mvp"),
        ("compile-run", "lighting"),
        ("draw", "mvp"),
        ("sparse", "branches"),
    ] {
        let text = jit_bench(&[
            "--draw",
            "--count",
            op,
            "--shader",
            shader,
            "--backend",
            "interp,auto",
        ]);
        // The interpreter is left out: one line, for the host's best JIT.
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{text}");
        let backend = lines[0]
            .strip_prefix(&format!("counted: {op} {shader} "))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            backend.starts_with("x64-") || backend == "aarch64",
            "{text}"
        );
    }
}
