//! Which engine runs shaders: the backends, the instruction sets native code targets, and how
//! a compiled shader executes.

use picajit_codegen::aarch64;
use picajit_codegen::x64::Tier;
use thiserror::Error;

/// Which engine runs shaders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The reference interpreter.
    Interp,
    /// x86-64 with SSE4.1, 4 vertices per batch.
    X64Sse41,
    /// x86-64 with AVX2, 8 vertices per batch.
    X64Avx2,
    /// x86-64 with AVX-512 (F, VL, DQ and BW), 16 vertices per batch. Where the CPU lacks it,
    /// test builds (picajit-codegen's `emu` feature, a dev-dependency) run its kernels in the
    /// x86-64 emulator: exact, but thousands of times slower — for testing, listed by
    /// [`Backend::emulated`] and never picked by [`Backend::Auto`].
    X64Avx512,
    /// AArch64 with NEON, 4 vertices per batch: in-process on an AArch64 host, through a
    /// qemu-user job server elsewhere (exact, but slow: for testing).
    Aarch64,
    /// The best JIT this host has: on x86-64 AVX-512 when the CPU has F, VL, DQ and BW (and
    /// the tier compiles programs: until its kernels land it refuses them, and Auto stays on
    /// AVX2), else AVX2, else SSE4.1; NEON on AArch64; the interpreter elsewhere. Never an
    /// emulated backend (AArch64 through qemu, AVX-512 in the x86-64 emulator). The environment
    /// variable `PICAJIT_X64_TIER=sse41|avx2|avx512` forces an x86-64 tier the CPU has (for
    /// testing); any other value, or a tier this CPU lacks, prints one warning on stderr and is
    /// ignored (Auto picks as if it were unset).
    Auto,
}

impl Backend {
    /// Every concrete backend this host runs natively, interpreter first: the ones to offer a
    /// user. Backends that run only through an emulator are [`Backend::emulated`].
    ///
    /// [`Backend::X64Avx512`] is listed (here or as emulated) once its tier compiles programs:
    /// while its kernels are being built, `x64::compile` refuses them all, and a backend that
    /// runs every shader on the interpreter is nothing to offer or test. [`Engine::new`]
    /// accepts it all the same.
    ///
    /// [`Engine::new`]: super::Engine::new
    pub fn available() -> Vec<Backend> {
        let mut all = vec![Backend::Interp];
        if Tier::Sse41.host_supports() {
            all.push(Backend::X64Sse41);
        }
        if Tier::Avx2.host_supports() {
            all.push(Backend::X64Avx2);
        }
        if Tier::Avx512.host_supports() && offered(Tier::Avx512) {
            all.push(Backend::X64Avx512);
        }
        if cfg!(target_arch = "aarch64") && aarch64::Kernel::host_supports() {
            all.push(Backend::Aarch64);
        }
        all
    }

    /// Backends this host runs only through an emulator: x86-64 tiers the CPU lacks (AVX-512
    /// on most machines) in picajit-codegen's x86-64 emulator when its `emu` feature is on
    /// (test builds), and AArch64 under qemu-user (`qemu-aarch64-static`) on other hosts when
    /// qemu is installed. Exact, but far slower than native code: for testing, never picked by
    /// [`Backend::Auto`].
    pub fn emulated() -> Vec<Backend> {
        let mut all: Vec<Backend> = [Backend::X64Sse41, Backend::X64Avx2, Backend::X64Avx512]
            .into_iter()
            .filter(|b| b.tier().is_some_and(|t| t.emulated() && offered(t)))
            .collect();
        if !cfg!(target_arch = "aarch64") && aarch64::Kernel::host_supports() {
            all.push(Backend::Aarch64);
        }
        all
    }

    /// Every concrete backend this host can run, natively or emulated: [`Backend::available`]
    /// then [`Backend::emulated`] (what the differential tests run).
    pub fn runnable() -> Vec<Backend> {
        let mut all = Backend::available();
        all.extend(Backend::emulated());
        all
    }

    /// What [`Backend::Auto`] stands for on this host (see there).
    pub(super) fn auto() -> Backend {
        let best = match Tier::host_best() {
            Some(Tier::Avx512) if offered(Tier::Avx512) => Backend::X64Avx512,
            // An AVX-512 host has AVX2.
            Some(Tier::Avx2 | Tier::Avx512) => Backend::X64Avx2,
            Some(Tier::Sse41) => Backend::X64Sse41,
            None if cfg!(target_arch = "aarch64") => Backend::Aarch64,
            None => Backend::Interp,
        };
        let Ok(forced) = std::env::var("PICAJIT_X64_TIER") else {
            return best;
        };
        let chosen = match forced.as_str() {
            "" => return best,
            "sse41" => Backend::X64Sse41,
            "avx2" => Backend::X64Avx2,
            "avx512" => Backend::X64Avx512,
            _ => {
                warn_once(&format!(
                    "PICAJIT_X64_TIER={forced:?} is not one of sse41, avx2, avx512 (lowercase); \
                     using {} instead",
                    best.name()
                ));
                return best;
            }
        };
        // The CPU's own instructions only: a tier the emulator could run is not forced.
        match chosen.tier() {
            Some(t) if t.host_supports() => chosen,
            _ => {
                warn_once(&format!(
                    "PICAJIT_X64_TIER={forced:?}: this CPU cannot run {}; using {} instead",
                    chosen.name(),
                    best.name()
                ));
                best
            }
        }
    }

    /// True if the backend runs natively on this host (not through an emulator).
    pub fn is_native_here(self) -> bool {
        match self {
            Backend::Aarch64 => cfg!(target_arch = "aarch64"),
            Backend::X64Sse41 | Backend::X64Avx2 | Backend::X64Avx512 => {
                !self.tier().is_some_and(Tier::emulated)
            }
            Backend::Interp | Backend::Auto => true,
        }
    }

    /// The x86-64 tier of an x86-64 backend.
    fn tier(self) -> Option<Tier> {
        match self.target() {
            Some(Target::X64(t)) => Some(t),
            Some(Target::Aarch64) | None => None,
        }
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Interp => "interp",
            Backend::X64Sse41 => "x64-sse41",
            Backend::X64Avx2 => "x64-avx2",
            Backend::X64Avx512 => "x64-avx512",
            Backend::Aarch64 => "aarch64",
            Backend::Auto => "auto",
        }
    }

    pub(super) fn target(self) -> Option<Target> {
        match self {
            Backend::X64Sse41 => Some(Target::X64(Tier::Sse41)),
            Backend::X64Avx2 => Some(Target::X64(Tier::Avx2)),
            Backend::X64Avx512 => Some(Target::X64(Tier::Avx512)),
            Backend::Aarch64 => Some(Target::Aarch64),
            Backend::Interp | Backend::Auto => None,
        }
    }
}

/// The instruction set native code is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// x86-64 at a tier.
    X64(Tier),
    /// AArch64 with NEON.
    Aarch64,
}

impl Target {
    /// Vertices per batch.
    pub fn lanes(self) -> usize {
        match self {
            Target::X64(t) => t.lanes(),
            Target::Aarch64 => aarch64::LANES,
        }
    }

    /// True if code for the target runs here: natively, or through an emulator (an x86-64
    /// tier the CPU lacks in test builds, AArch64 under qemu-user).
    pub(super) fn runs_here(self) -> bool {
        match self {
            Target::X64(t) => t.runnable(),
            Target::Aarch64 => aarch64::Kernel::host_supports(),
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::X64(t) if t.emulated() => write!(f, "{t:?} in the x86-64 emulator"),
            Target::X64(t) => write!(f, "{t:?}"),
            Target::Aarch64 if cfg!(target_arch = "aarch64") => write!(f, "AArch64 NEON"),
            Target::Aarch64 => write!(f, "AArch64 NEON under qemu-user"),
        }
    }
}

/// Engine construction errors.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// The backend (named) needs instructions this CPU lacks, or, for AArch64 on another
    /// host, qemu-user is not installed.
    #[error("backend {0} needs instructions this CPU does not have (aarch64 on another host: qemu-aarch64-static; an x86-64 tier the CPU lacks runs only in test builds, in the x86-64 emulator)")]
    Unsupported(&'static str),
}

/// True if the tier's backend is listed and may be picked by [`Backend::Auto`]: SSE4.1 and
/// AVX2 always, AVX-512 once it compiles a plain program (a copy of v0 to o0) — while its
/// kernels are being built it refuses every program, and Auto must not send every shader to
/// the interpreter. Decided once per process.
fn offered(tier: Tier) -> bool {
    match tier {
        Tier::Sse41 | Tier::Avx2 => true,
        Tier::Avx512 => avx512_compiles(),
    }
}

fn avx512_compiles() -> bool {
    static COMPILES: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *COMPILES.get_or_init(|| {
        let source = crate::asm::Source {
            name: "probe.v.pica".into(),
            text: ".out o0 position\n.proc main\n    mov o0, v0\n    end\n.end\n".into(),
        };
        let lowered = crate::asm::assemble(&[source])
            .ok()
            .and_then(|(shbin, _)| shbin.program(0).ok())
            .and_then(|program| crate::frontend::lower(&program).ok());
        lowered.is_some_and(|l| {
            let io = picajit_codegen::x64::IoMode::Aos;
            picajit_codegen::x64::compile(&l.func, Tier::Avx512, io).is_ok()
        })
    })
}

/// One warning per process on stderr (a bad `PICAJIT_X64_TIER` is worth saying once, not per
/// engine).
fn warn_once(message: &str) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| eprintln!("picajit: warning: {message}"));
}

/// How a compiled shader executes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecPath {
    /// Native code for a target.
    Native(Target),
    /// The interpreter, because the engine is the interpreter.
    Interpreter,
    /// The interpreter, because the program cannot run natively (the reason).
    Fallback(String),
}

impl std::fmt::Display for ExecPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecPath::Native(t) => write!(f, "native {t}"),
            ExecPath::Interpreter => write!(f, "interpreter"),
            ExecPath::Fallback(why) => write!(f, "interpreter fallback: {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Backend;

    #[test]
    fn available_lists_native_backends_and_emulated_the_others() {
        let native = Backend::available();
        let emulated = Backend::emulated();
        assert_eq!(native[0], Backend::Interp);
        assert!(native.iter().all(|b| b.is_native_here()), "{native:?}");
        assert!(emulated.iter().all(|b| !b.is_native_here()), "{emulated:?}");
        let runnable = Backend::runnable();
        assert_eq!(runnable.len(), native.len() + emulated.len());
        assert!(runnable
            .iter()
            .all(|b| native.contains(b) || emulated.contains(b)));
        // Auto never resolves to an emulated backend.
        assert!(!emulated.contains(&Backend::auto()));
    }

    /// Test builds carry the x86-64 emulator: every x86-64 tier runs on an x86-64 host, the
    /// ones the CPU lacks listed as emulated — AVX-512 once its tier compiles programs.
    #[test]
    fn every_x86_64_tier_runs_in_a_test_build_and_avx512_is_listed_once_it_compiles() {
        use picajit_codegen::x64::Tier;
        if !cfg!(target_arch = "x86_64") {
            return;
        }
        let runnable = Backend::runnable();
        for (b, t) in [
            (Backend::X64Sse41, Tier::Sse41),
            (Backend::X64Avx2, Tier::Avx2),
            (Backend::X64Avx512, Tier::Avx512),
        ] {
            let offered = super::offered(t);
            assert_eq!(runnable.contains(&b), offered, "{b:?} in {runnable:?}");
            let emulated = Backend::emulated().contains(&b);
            assert_eq!(emulated, !t.host_supports() && offered, "{b:?}");
            assert_eq!(b.is_native_here(), t.host_supports(), "{b:?}");
            assert!(super::super::Engine::new(b).is_ok(), "{b:?}");
        }
        // Listed exactly when the tier compiles programs.
        let program = crate::synthetic::program(crate::synthetic::Shape::Straight, 40, 1);
        let compiles = super::super::Engine::new(Backend::X64Avx512)
            .expect("runs here")
            .compile(&program.expect("generates"))
            .machine_code()
            .is_some();
        assert_eq!(runnable.contains(&Backend::X64Avx512), compiles);
        let want = if Tier::Avx512.host_supports() {
            "Avx512"
        } else {
            "Avx512 in the x86-64 emulator"
        };
        assert_eq!(super::Target::X64(Tier::Avx512).to_string(), want);
    }
}
