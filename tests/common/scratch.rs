//! Scratch directories for the test crates that write files (`tests/cli.rs`,
//! `tests/cli_fuzz.rs`, `tests/asm_examples.rs`, `tests/agal_examples.rs`,
//! `tests/jit_bench.rs`): one empty directory per test under the system's temporary
//! directory. A directory is named by the process id, so one left behind by an earlier run
//! whose id is reused is emptied first: a test that asserts a file is *not* written must not
//! see an old run's file.

use std::path::PathBuf;

/// An empty directory `picajit-<crate>-<pid>-<name>` under the temporary directory.
pub fn fresh_dir(krate: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("picajit-{krate}-{}-{name}", std::process::id()));
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => panic!("cannot empty {}: {e}", dir.display()),
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
