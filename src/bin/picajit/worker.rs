//! The fuzzer's worker process, both sides. `picajit fuzz` re-executes itself as
//! `picajit fuzz-worker --backend …` and sends it cases over stdin, one line each; the worker
//! checks a case on the interpreter and the backends (panics caught) and answers one line. A
//! crash of generated code (SIGSEGV, SIGILL, …) kills only the worker: the parent sees the pipe
//! close, reports the signal as that case's failure and starts a new worker. A case that does
//! not answer within the timeout is a hang: the worker is killed and restarted.
//!
//! Requests: `check <budget> <PCAS as hex>` and `report <budget> <PCAS as hex>` (a PCAS of
//! version 2 is a geometry case).
//! Answers: `ok <native> <mechanisms>` (one 0/1 per backend, then the [`mechanisms`] bits in
//! decimal; a geometry case adds the number of triangles its invocations emitted),
//! `fail <class> <backend>\t<summary>`, and `report <text as hex>`.
//!
//! `PICAJIT_FUZZ_FAULT=winding` in the worker's environment corrupts every backend's geometry
//! results on purpose (`picajit::fuzz::check::Fault`): the fuzzer's own tests use it to watch a
//! failure be found, minimized, saved and replayed.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use picajit::case::Case;
use picajit::engine::Backend;
use picajit::fuzz::check::{check_with_fault, Fault};
use picajit::fuzz::{self, FailureKind, FuzzCase, Shape};

use crate::CliResult;

#[derive(Args)]
pub struct WorkerArgs {
    /// Backends to check against the interpreter.
    #[arg(long, value_delimiter = ',', required = true)]
    backend: Vec<crate::Backend>,
}

pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

pub fn unhex(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    text.as_bytes()
        .chunks(2)
        .map(|p| match p {
            [a, b] => Some(digit(*a)? << 4 | digit(*b)?),
            _ => None,
        })
        .collect()
}

/// The worker's main loop.
pub fn serve(args: &WorkerArgs) -> CliResult {
    // Panics are caught and answered; keep stderr for what cannot be (aborts).
    std::panic::set_hook(Box::new(|_| {}));
    let backends: Vec<Backend> = args.backend.iter().map(|b| b.engine()).collect();
    let fault = match std::env::var("PICAJIT_FUZZ_FAULT") {
        Ok(name) => Fault::from_name(&name)
            .ok_or_else(|| format!("worker: PICAJIT_FUZZ_FAULT={name:?} is not none or winding"))?,
        Err(_) => Fault::None,
    };
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| format!("worker: {e}"))?;
        let answer = answer(&line, &backends, fault);
        writeln!(stdout, "{answer}")
            .and_then(|()| stdout.flush())
            .map_err(|e| format!("worker: {e}"))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_request(rest: &str) -> Result<FuzzCase, String> {
    let (budget, data) = rest.split_once(' ').ok_or("malformed request")?;
    let budget: u32 = budget.parse().map_err(|_| "malformed budget")?;
    let bytes = unhex(data).ok_or("malformed hex")?;
    let case = Case::parse(&bytes).map_err(|e| e.to_string())?;
    Ok(FuzzCase {
        case,
        budget,
        shape: Shape::Hostile,
    })
}

/// Bit k set if a program the frontend made `frontend` of counts under the fuzzer's
/// mechanism k (`fuzz::MECHANISMS`): none, if-converted, masked regions, lane-position model,
/// interpreter fallback (not lowered).
pub fn mechanisms(frontend: Result<picajit::frontend::Stats, ()>) -> u8 {
    match frontend {
        Ok(st) => {
            let bits = u8::from(st.if_converted > 0) << 1
                | u8::from(st.masked_forks > 0) << 2
                | u8::from(st.lanes) << 3;
            if bits == 0 {
                1
            } else {
                bits
            }
        }
        Err(()) => 1 << 4,
    }
}

fn answer(line: &str, backends: &[Backend], fault: Fault) -> String {
    let (verb, rest) = line.split_once(' ').unwrap_or((line, ""));
    let case = match parse_request(rest) {
        Ok(c) => c,
        Err(e) => return format!("error {e}"),
    };
    match verb {
        "check" => match check_with_fault(&case, backends, fault) {
            Ok(passed) => {
                let bits: String = passed
                    .native
                    .iter()
                    .map(|&(_, native)| if native { '1' } else { '0' })
                    .collect();
                // The frontend's stats come with a JIT backend's compile; with none checked,
                // the program is lowered here.
                let frontend = passed.frontend.or_else(|| {
                    let program = case.case.program().ok()?;
                    Some(
                        picajit::frontend::lower(&program)
                            .map(|l| l.stats)
                            .map_err(|_| ()),
                    )
                });
                let mechanisms = frontend.map_or(0, mechanisms);
                match passed.triangles {
                    Some(triangles) => format!("ok {bits} {mechanisms} {triangles}"),
                    None => format!("ok {bits} {mechanisms}"),
                }
            }
            Err(f) => format!(
                "fail {} {}\t{}",
                f.class(),
                f.backend.name(),
                f.summary().replace(['\n', '\t'], " ")
            ),
        },
        "report" => {
            let text = match check_with_fault(&case, backends, fault) {
                Ok(_) => "the case passes on every backend\n".to_string(),
                Err(f) => {
                    let mut text = fuzz::report::report(&case, &f);
                    if let FailureKind::Panic(_) = f.kind {
                        text.push_str("(the panic message is above)\n");
                    }
                    text
                }
            };
            format!("report {}", hex(text.as_bytes()))
        }
        _ => format!("error unknown request {verb:?}"),
    }
}

/// What the worker said about a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// An answer line.
    Line(String),
    /// The worker died (how, and the end of what it wrote to stderr).
    Crashed(String),
    /// No answer within the timeout; the worker was killed.
    Hung,
}

/// A worker process, restarted after it crashes or hangs.
pub struct Worker {
    backends: Vec<crate::Backend>,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl Worker {
    pub fn spawn(backends: &[crate::Backend]) -> Result<Worker, String> {
        let exe = std::env::current_exe().map_err(|e| format!("fuzz: own executable: {e}"))?;
        let names: Vec<&str> = backends.iter().map(|b| b.engine().name()).collect();
        let mut child = Command::new(exe)
            .arg("fuzz-worker")
            .arg("--backend")
            .arg(names.join(","))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("fuzz: starting a worker: {e}"))?;
        let (stdin, stdout, err) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => return Err("fuzz: worker pipes missing".to_string()),
            };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let tail = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                t.push_str(&line);
                t.push('\n');
                if t.len() > 4000 {
                    let cut = t.len() - 2000;
                    let cut = (cut..t.len()).find(|&i| t.is_char_boundary(i)).unwrap_or(0);
                    t.drain(..cut);
                }
            }
        });
        Ok(Worker {
            backends: backends.to_vec(),
            child,
            stdin,
            lines,
            stderr,
        })
    }

    fn restart(&mut self) -> Result<(), String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        *self = Worker::spawn(&self.backends)?;
        Ok(())
    }

    /// Sends one request and waits for its answer.
    pub fn request(&mut self, line: &str, timeout: Duration) -> Result<Reply, String> {
        if writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .is_err()
        {
            // The worker is gone already (it died after its last answer); ask a new one.
            self.restart()?;
            writeln!(self.stdin, "{line}")
                .and_then(|()| self.stdin.flush())
                .map_err(|e| format!("fuzz: worker: {e}"))?;
        }
        match self.lines.recv_timeout(timeout) {
            Ok(answer) => Ok(Reply::Line(answer)),
            Err(RecvTimeoutError::Timeout) => {
                self.restart()?;
                Ok(Reply::Hung)
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = self
                    .child
                    .wait()
                    .map_err(|e| format!("fuzz: worker: {e}"))?;
                std::thread::sleep(Duration::from_millis(20));
                let tail = self
                    .stderr
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .trim_end()
                    .to_string();
                let how = describe_exit(&status);
                self.restart()?;
                Ok(Reply::Crashed(if tail.is_empty() {
                    how
                } else {
                    format!("{how}; stderr: {tail}")
                }))
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn describe_exit(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(sig) => {
            let name = match sig {
                4 => "SIGILL",
                6 => "SIGABRT",
                7 => "SIGBUS",
                8 => "SIGFPE",
                9 => "SIGKILL",
                11 => "SIGSEGV",
                _ => "signal",
            };
            format!("worker killed by {name} ({sig})")
        }
        None => format!("worker exited with {status}"),
    }
}
