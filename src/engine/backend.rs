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
    /// AArch64 with NEON, 4 vertices per batch: in-process on an AArch64 host, through a
    /// qemu-user job server elsewhere (exact, but slow: for testing).
    Aarch64,
    /// The best JIT this host has: AVX2, else SSE4.1 on x86-64, NEON on AArch64, the
    /// interpreter elsewhere; never AArch64 through qemu. The environment variable
    /// `PICAJIT_X64_TIER=sse41|avx2` forces an x86-64 tier (for testing); any other value, or a
    /// tier this CPU lacks, prints one warning on stderr and is ignored.
    Auto,
}

impl Backend {
    /// Every concrete backend this host runs natively, interpreter first: the ones to offer a
    /// user. Backends that run only through an emulator are [`Backend::emulated`].
    pub fn available() -> Vec<Backend> {
        let mut all = vec![Backend::Interp];
        if Tier::Sse41.host_supports() {
            all.push(Backend::X64Sse41);
        }
        if Tier::Avx2.host_supports() {
            all.push(Backend::X64Avx2);
        }
        if cfg!(target_arch = "aarch64") && aarch64::Kernel::host_supports() {
            all.push(Backend::Aarch64);
        }
        all
    }

    /// Backends this host runs only through an emulator: AArch64 under qemu-user
    /// (`qemu-aarch64-static`) on other hosts when qemu is installed. Exact, but far slower
    /// than native code: for testing, never picked by [`Backend::Auto`].
    pub fn emulated() -> Vec<Backend> {
        if !cfg!(target_arch = "aarch64") && aarch64::Kernel::host_supports() {
            vec![Backend::Aarch64]
        } else {
            Vec::new()
        }
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
            // Until the engine has an AVX-512 backend: a host with AVX-512 has AVX2.
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
            _ => {
                warn_once(&format!(
                    "PICAJIT_X64_TIER={forced:?} is not one of sse41, avx2 (lowercase); \
                     using {} instead",
                    best.name()
                ));
                return best;
            }
        };
        match chosen.target() {
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
            Backend::Interp | Backend::X64Sse41 | Backend::X64Avx2 | Backend::Auto => true,
        }
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Interp => "interp",
            Backend::X64Sse41 => "x64-sse41",
            Backend::X64Avx2 => "x64-avx2",
            Backend::Aarch64 => "aarch64",
            Backend::Auto => "auto",
        }
    }

    pub(super) fn target(self) -> Option<Target> {
        match self {
            Backend::X64Sse41 => Some(Target::X64(Tier::Sse41)),
            Backend::X64Avx2 => Some(Target::X64(Tier::Avx2)),
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

    pub(super) fn host_supports(self) -> bool {
        match self {
            Target::X64(t) => t.host_supports(),
            Target::Aarch64 => aarch64::Kernel::host_supports(),
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
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
    #[error("backend {0} needs instructions this CPU does not have (aarch64 on another host: qemu-aarch64-static)")]
    Unsupported(&'static str),
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
}
