//! The machine a run measured: CPU model, vector features, the JIT tier, and how busy it was.

use picajit::engine::{Backend, Engine};
use picajit_codegen::x64::Tier;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// `model name` of /proc/cpuinfo (or "unknown").
    pub cpu_model: String,
    pub arch: &'static str,
    pub os: &'static str,
    /// Logical CPUs this process may use.
    pub logical_cpus: usize,
    /// SIMD features the host reports (x86-64: the ones the backends care about).
    pub features: Vec<&'static str>,
    /// Best x86-64 JIT tier of the host, if any.
    pub tier: Option<String>,
    /// What `Backend::Auto` resolves to (honours `PICAJIT_X64_TIER`).
    pub best_backend: &'static str,
    /// `PICAJIT_X64_TIER` when set.
    pub tier_override: Option<String>,
    /// 1, 5 and 15 minute load averages when the run started (/proc/loadavg): other work on
    /// the machine makes absolute times noisy.
    pub load_average: Option<[f64; 3]>,
    pub picajit_version: &'static str,
}

impl Machine {
    pub fn detect() -> Machine {
        Machine {
            cpu_model: cpu_model().unwrap_or_else(|| "unknown".into()),
            arch: std::env::consts::ARCH,
            os: std::env::consts::OS,
            logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            features: features(),
            tier: Tier::host_best().map(|t| format!("{t:?}").to_lowercase()),
            best_backend: Engine::new(Backend::Auto).map_or("interp", |e| e.backend().name()),
            tier_override: std::env::var("PICAJIT_X64_TIER").ok(),
            load_average: load_average(),
            picajit_version: env!("CARGO_PKG_VERSION"),
        }
    }

    /// One line for table headers.
    pub fn summary(&self) -> String {
        let load = self
            .load_average
            .map(|l| format!(", load {:.2}", l[0]))
            .unwrap_or_default();
        format!(
            "{} ({} logical CPUs, {}; best backend {}{load})",
            self.cpu_model,
            self.logical_cpus,
            self.features.join(" "),
            self.best_backend
        )
    }
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = text.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

#[cfg(target_arch = "x86_64")]
fn features() -> Vec<&'static str> {
    let mut f = Vec::new();
    macro_rules! check {
        ($($name:tt),*) => {
            $(if std::arch::is_x86_feature_detected!($name) {
                f.push($name);
            })*
        };
    }
    check!("sse4.1", "avx", "avx2", "fma", "bmi2", "avx512f", "avx512vl", "avx512dq", "avx512bw");
    f
}

#[cfg(not(target_arch = "x86_64"))]
fn features() -> Vec<&'static str> {
    Vec::new()
}
