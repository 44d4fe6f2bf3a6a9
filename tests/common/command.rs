//! Running the project's binaries from the CLI test crates (`tests/cli.rs`,
//! `tests/jit_bench.rs`): one place that runs a command, fails the test with both of its
//! streams when it did not succeed, and hands back what it printed.

use std::process::Command;

/// Runs `cmd`, asserts that it exited successfully (the message shows its standard output
/// and standard error) and returns its standard output.
pub fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}
