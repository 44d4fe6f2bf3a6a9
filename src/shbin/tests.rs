//! Tests of the SHBIN reader and writer: corpus round trips, concrete parsed values, canonical
//! writing from scratch, malformed inputs and a seeded mutation run.
use super::*;

/// The real SHBIN files of `shared/corpus/shbin`, sorted by name.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/shbin");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "corpus directory {} is missing ({e}): the checkout needs shared/ beside it",
            dir.display()
        )
    });
    let mut files: Vec<(String, Vec<u8>)> = entries
        .map(|e| e.expect("corpus directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "shbin"))
        .map(|p| {
            let name = p
                .file_name()
                .expect("file name")
                .to_string_lossy()
                .into_owned();
            let bytes =
                std::fs::read(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
            (name, bytes)
        })
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        13,
        "expected the 13 corpus files in {}",
        dir.display()
    );
    files
}

#[test]
fn corpus_round_trip_is_byte_identical() {
    for (name, bytes) in corpus() {
        let shbin = Shbin::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(shbin.to_bytes() == bytes, "{name}: read → write differs");
    }
}
