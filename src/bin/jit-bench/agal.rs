//! AGAL programs named on the command line — `.agal` sources (assembled), AGAL bytecode and
//! AGCS cases — measured on the reference interpreter, the only AGAL engine until AGAL is
//! compiled. Sources and bytecode run on a seeded random case (`agal::case::random_case`) of
//! the batch size; a case runs on its own inputs. Method as for PICA shaders: warm-up, then
//! samples of thread CPU time, the median and its median absolute deviation.

use std::path::Path;
use std::time::{Duration, Instant};

use cpu_time::ThreadTime;
use picajit::agal::asm;
use picajit::agal::case::{random_case, AgalCase, Inputs};
use picajit::agal::interp::{self, CpuTextures};
use picajit::agal::validate::{validate, Options};
use picajit::agal::ShaderKind;

use crate::measure::median;

/// True for AGCS cases, `.agal` sources and AGAL bytecode (magic `0xA0`, tag `0xA1`).
pub fn is_agal(path: &Path) -> bool {
    if path.extension().is_some_and(|e| e == "agal") {
        return true;
    }
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    bytes.starts_with(b"AGCS") || (bytes.first() == Some(&0xA0) && bytes.get(5) == Some(&0xA1))
}

/// One measured program.
pub struct Row {
    name: String,
    kind: ShaderKind,
    tokens: usize,
    items: usize,
    ns: f64,
    mad: f64,
}

/// The case of a file: its own (AGCS), or a random one of `items` vertices (fragments).
fn load(path: &Path, items: usize) -> Result<AgalCase, String> {
    let shown = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    if bytes.starts_with(b"AGCS") {
        return AgalCase::parse(&bytes).map_err(|e| format!("{shown}: {e}"));
    }
    let program = if path.extension().is_some_and(|e| e == "agal") {
        let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8 text"))?;
        asm::assemble(&shown.to_string(), &text, &asm::Options::default())
            .map_err(|d| {
                d.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            })?
            .bytes
    } else {
        bytes
    };
    let kind = validate(&program, &Options::default())
        .map_err(|e| format!("{shown}: {e}"))?
        .kind;
    let count = match kind {
        ShaderKind::Vertex => items,
        ShaderKind::Fragment => items.div_ceil(4),
    };
    random_case(&program, count, 1).map_err(|e| format!("{shown}: {e}"))
}

/// Thread CPU time (wall time where the platform has none).
fn now() -> Result<ThreadTime, Instant> {
    ThreadTime::try_now().map_err(|_| Instant::now())
}

fn elapsed(t: &Result<ThreadTime, Instant>) -> Duration {
    match t {
        Ok(c) => c.elapsed(),
        Err(w) => w.elapsed(),
    }
}

/// Measures every file on the interpreter.
pub fn measure(
    files: &[&Path],
    items: usize,
    warmup_ms: u64,
    sample_ms: u64,
    repetitions: usize,
) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for path in files {
        let case = load(path, items)?;
        let shown = path.display();
        let program =
            validate(&case.program, &Options::default()).map_err(|e| format!("{shown}: {e}"))?;
        let mut textures = CpuTextures::new();
        for t in &case.textures {
            textures
                .bind(t.unit, t.texture.clone())
                .map_err(|e| format!("{shown}: {e}"))?;
            if let Some(s) = t.state {
                textures.set_state(t.unit, s);
            }
        }
        let (n, once): (usize, Box<dyn Fn() -> Result<(), String>>) = match &case.inputs {
            Inputs::Vertices(v) => (
                v.len(),
                Box::new(|| {
                    interp::run_vertices(&program, &case.constants, &textures, v)
                        .map(drop)
                        .map_err(|e| e.to_string())
                }),
            ),
            Inputs::Quads(q) => (
                q.len() * 4,
                Box::new(|| {
                    interp::run_quads(&program, &case.constants, &textures, q)
                        .map(drop)
                        .map_err(|e| e.to_string())
                }),
            ),
        };
        once().map_err(|e| format!("{shown}: {e}"))?;
        // Warm up, and learn how many runs make a sample.
        let start = now();
        let mut runs = 0u64;
        while elapsed(&start) < Duration::from_millis(warmup_ms) {
            once()?;
            runs += 1;
        }
        let per_run = elapsed(&start).as_secs_f64() / runs.max(1) as f64;
        let batch = ((sample_ms as f64 / 1000.0) / per_run).ceil().max(1.0) as u64;
        let mut samples = Vec::with_capacity(repetitions);
        for _ in 0..repetitions {
            let t = now();
            for _ in 0..batch {
                once()?;
            }
            samples.push(elapsed(&t).as_secs_f64() * 1e9 / (batch as f64 * n.max(1) as f64));
        }
        let ns = median(&mut samples.clone());
        let mut dev: Vec<f64> = samples.iter().map(|s| (s - ns).abs()).collect();
        let mad = median(&mut dev);
        rows.push(Row {
            name: path
                .file_name()
                .map_or_else(|| shown.to_string(), |f| f.to_string_lossy().into_owned()),
            kind: program.kind,
            tokens: program.instructions.len(),
            items: n,
            ns,
            mad,
        });
    }
    Ok(rows)
}

/// The table of AGAL rows.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "AGAL (reference interpreter only; AGAL is not compiled yet)\n\
         program                           kind      tokens  items  ns/item   ±MAD  Mitems/s\n",
    );
    for r in rows {
        out.push_str(&format!(
            "{:<33} {:<8} {:>7} {:>6} {:>8.1} {:>5.1}% {:>9.3}\n",
            r.name,
            r.kind.name(),
            r.tokens,
            r.items,
            r.ns,
            100.0 * r.mad / r.ns.max(f64::MIN_POSITIVE),
            1e3 / r.ns.max(f64::MIN_POSITIVE)
        ));
    }
    out.push_str("item: a vertex, or a fragment (fragments run in 2×2 quads)\n");
    out
}
