//! The regression corpus: every `tests/regress/*.pcas` runs on the interpreter and on every
//! backend this host has (AoS, SoA, and the parallel path for large batches) and must agree
//! bit for bit, budget-exhausted vertices included. The budget is the `-b<N>` suffix of the
//! file name. `tests/regress/README.md` says what each file covers.

use std::path::PathBuf;

use picajit::case::Case;
use picajit::engine::Backend;
use picajit::fuzz::{self, FuzzCase, Shape};

fn corpus() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/regress");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pcas"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_regression_case_agrees_on_every_backend() {
    let files = corpus();
    assert!(files.len() >= 10, "corpus has {} files", files.len());
    let backends = Backend::available();
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
