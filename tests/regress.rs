//! The regression corpus: every `tests/regress/*.pcas` runs on the interpreter and on every
//! backend this host has (AoS, SoA, and the parallel path for large batches; a geometry case
//! also `run_geometry_into`, its triangles compared) and must agree bit for bit,
//! budget-exhausted vertices included. The budget is the `-b<N>` suffix of the
//! file name. The inputs the byte-level fuzz targets found are in `tests/regress/<target>/`
//! and replay through the same target bodies (`picajit::fuzz::targets`).
//! `tests/regress/README.md` says what each file covers.

use std::path::PathBuf;

use picajit::case::Case;
use picajit::engine::Backend;
use picajit::fuzz::{self, FuzzCase, Shape};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/regress")
}

fn files_in(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

fn corpus() -> Vec<PathBuf> {
    files_in(&dir())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "pcas"))
        .collect()
}

/// Byte-level target inputs: (target name, file).
fn target_inputs() -> Vec<(&'static str, PathBuf)> {
    [
        "shbin",
        "asm",
        "pcas",
        "compile_run",
        "agal_read",
        "agal_asm",
    ]
    .into_iter()
    .flat_map(|t| files_in(&dir().join(t)).into_iter().map(move |f| (t, f)))
    .collect()
}

#[test]
fn fuzz_target_inputs_replay() {
    for (target, path) in target_inputs() {
        let run = fuzz::targets::by_name(target).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        if std::panic::catch_unwind(|| run(&bytes)).is_err() {
            panic!("{} fails its target {target}", path.display());
        }
    }
}

#[test]
fn every_regression_case_agrees_on_every_backend() {
    let files = corpus();
    assert!(files.len() >= 10, "corpus has {} files", files.len());
    let backends = Backend::runnable();
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let budget =
            fuzz::budget_from_name(&name).unwrap_or_else(|| panic!("{name}: no -b<budget> suffix"));
        let bytes = std::fs::read(path).unwrap();
        let case = Case::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let case = FuzzCase {
            case,
            budget,
            shape: Shape::Hostile,
        };
        if let Err(f) = fuzz::check(&case, &backends) {
            failures.push(format!("{name}:\n{}", fuzz::report::report(&case, &f)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_file_is_described() {
    let readme = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/regress/README.md"),
    )
    .unwrap();
    for path in corpus() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            readme.contains(&name),
            "{name} is not in tests/regress/README.md"
        );
    }
}
