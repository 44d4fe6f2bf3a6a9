//! AGAL programs — the built-in examples (`examples/agal/`, with `--agal`) and those named on
//! the command line: `.agal` sources (assembled), AGAL bytecode and AGCS cases — measured on
//! the AGAL reference interpreter and through the engine ([`Engine::compile_agal`]) on each
//! backend, AoS, with the speedup over the interpreter. Sources and bytecode run on a seeded
//! random case (`agal::case::random_case`) of the batch size; a case runs on its own inputs.
//! Method as for PICA shaders: warm-up, then samples of thread CPU time, the median and its
//! median absolute deviation.

use std::path::Path;
use std::time::{Duration, Instant};

use cpu_time::ThreadTime;
use picajit::agal::asm;
use picajit::agal::case::{random_case, AgalCase, Inputs};
use picajit::agal::interp::{self, CpuTextures};
use picajit::agal::validate::{validate, Options};
use picajit::agal::ShaderKind;
use picajit::engine::{Backend, Engine};
use picajit::program::Regs16;

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

/// The built-in AGAL workloads: the examples, by file name.
pub const BUILTINS: [(&str, &str); 6] = [
    (
        "textured_quad.vertex.agal",
        include_str!("../../../examples/agal/textured_quad.vertex.agal"),
    ),
    (
        "heightmap.vertex.agal",
        include_str!("../../../examples/agal/heightmap.vertex.agal"),
    ),
    (
        "skinning.vertex.agal",
        include_str!("../../../examples/agal/skinning.vertex.agal"),
    ),
    (
        "textured_quad.fragment.agal",
        include_str!("../../../examples/agal/textured_quad.fragment.agal"),
    ),
    (
        "wave_filter.fragment.agal",
        include_str!("../../../examples/agal/wave_filter.fragment.agal"),
    ),
    (
        "two_textures.fragment.agal",
        include_str!("../../../examples/agal/two_textures.fragment.agal"),
    ),
];

/// One measured program on one engine.
pub struct Row {
    name: String,
    kind: ShaderKind,
    tokens: usize,
    items: usize,
    backend: &'static str,
    path: String,
    ns: f64,
    mad: f64,
    speedup: f64,
    /// Native runs with texture samples: ns per item the host sampler alone takes for them
    /// ([`picajit::agal::lower::Sample::apply`] over a buffer of the same size).
    sampler_ns: Option<f64>,
}

/// A source or file to measure.
pub enum Source<'a> {
    /// A built-in example: name and text.
    Builtin(&'static str, &'static str),
    /// A file.
    File(&'a Path),
}

/// The case of a source: its own (AGCS), or a random one of `items` vertices (fragments).
fn load(source: &Source<'_>, items: usize) -> Result<(String, AgalCase), String> {
    let (shown, bytes, is_text) = match source {
        Source::Builtin(name, text) => (name.to_string(), text.as_bytes().to_vec(), true),
        Source::File(path) => {
            let shown = path.display().to_string();
            let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
            let name = path
                .file_name()
                .map_or_else(|| shown.clone(), |f| f.to_string_lossy().into_owned());
            let text = path.extension().is_some_and(|e| e == "agal");
            if bytes.starts_with(b"AGCS") {
                let case = AgalCase::parse(&bytes).map_err(|e| format!("{shown}: {e}"))?;
                return Ok((name, case));
            }
            (name, bytes, text)
        }
    };
    let case = program_case(&shown, bytes, is_text, items)?;
    Ok((shown, case))
}

fn program_case(
    shown: &str,
    bytes: Vec<u8>,
    is_text: bool,
    items: usize,
) -> Result<AgalCase, String> {
    let program = if is_text {
        let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8 text"))?;
        asm::assemble(shown, &text, &asm::Options::default())
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

/// Median ns per item and its MAD over `repetitions` samples of `once` (which runs `n` items).
fn time(
    once: &dyn Fn() -> Result<(), String>,
    n: usize,
    warmup_ms: u64,
    sample_ms: u64,
    repetitions: usize,
) -> Result<(f64, f64), String> {
    once()?;
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
    Ok((ns, median(&mut dev)))
}

/// Measures every source on the interpreter and on each of `backends` (the engine's AoS runs;
/// `Backend::Interp` there means the AGAL reference interpreter itself).
pub fn measure(
    sources: &[Source<'_>],
    backends: &[Backend],
    items: usize,
    warmup_ms: u64,
    sample_ms: u64,
    repetitions: usize,
) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for source in sources {
        let (name, case) = load(source, items)?;
        let program =
            validate(&case.program, &Options::default()).map_err(|e| format!("{name}: {e}"))?;
        let mut textures = CpuTextures::new();
        for t in &case.textures {
            textures
                .bind(t.unit, t.texture.clone())
                .map_err(|e| format!("{name}: {e}"))?;
            if let Some(s) = t.state {
                textures.set_state(t.unit, s);
            }
        }
        // The engine's buffers, built once.
        let (inputs, instance): (Vec<Regs16>, u32) = match &case.inputs {
            Inputs::Vertices(v) => (
                v.iter().map(|x| x.attributes).collect(),
                v.first().map_or(0, |x| x.instance_id),
            ),
            Inputs::Quads(q) => (
                q.iter()
                    .flatten()
                    .map(|f| {
                        std::array::from_fn(|r| f.varyings.get(r).copied().unwrap_or([0.0; 4]))
                    })
                    .collect(),
                0,
            ),
        };
        let n = inputs.len();
        let mut interp_ns = f64::NAN;
        for &backend in backends {
            let mut sampler_ns = None;
            let (path, (ns, mad)) = if backend == Backend::Interp {
                let once: Box<dyn Fn() -> Result<(), String>> = match &case.inputs {
                    Inputs::Vertices(v) => Box::new(|| {
                        interp::run_vertices(&program, &case.constants, &textures, v)
                            .map(drop)
                            .map_err(|e| e.to_string())
                    }),
                    Inputs::Quads(q) => Box::new(|| {
                        interp::run_quads(&program, &case.constants, &textures, q)
                            .map(drop)
                            .map_err(|e| e.to_string())
                    }),
                };
                let t = time(&*once, n, warmup_ms, sample_ms, repetitions)
                    .map_err(|e| format!("{name}: {e}"))?;
                interp_ns = t.0;
                ("reference interpreter".to_string(), t)
            } else {
                let engine = Engine::new(backend).map_err(|e| e.to_string())?;
                let shader = engine.compile_agal(&program);
                let out = std::cell::RefCell::new(vec![[[0.0f32; 4]; 16]; n]);
                let once = || {
                    let mut out = out.borrow_mut();
                    match program.kind {
                        ShaderKind::Vertex => shader.run_vertices(
                            &case.constants,
                            instance,
                            &textures,
                            &inputs,
                            &mut out,
                        ),
                        ShaderKind::Fragment => {
                            shader.run_fragments(&case.constants, &textures, &inputs, &mut out)
                        }
                    }
                    .map_err(|e| e.to_string())
                };
                let t = time(&once, n, warmup_ms, sample_ms, repetitions)
                    .map_err(|e| format!("{name}: {e}"))?;
                if !shader.samples().is_empty() {
                    // The sampler's share: the same samples on a buffer of the inputs (the
                    // first input register as the coordinates).
                    let buffer = std::cell::RefCell::new(inputs.clone());
                    let sample_once = || {
                        let mut b = buffer.borrow_mut();
                        for s in shader.samples() {
                            s.apply(&textures, &mut b);
                        }
                        Ok(())
                    };
                    let (sns, _) = time(&sample_once, n, warmup_ms, sample_ms, repetitions)
                        .map_err(|e| format!("{name}: {e}"))?;
                    sampler_ns = Some(sns);
                }
                (shader.path().to_string(), t)
            };
            rows.push(Row {
                name: name.clone(),
                kind: program.kind,
                tokens: program.instructions.len(),
                items: n,
                backend: backend.name(),
                path,
                ns,
                mad,
                speedup: interp_ns / ns,
                sampler_ns,
            });
        }
    }
    Ok(rows)
}

/// The table of AGAL rows.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "AGAL (AoS; speedup over the AGAL reference interpreter)\n\
         program                        kind      tokens  items  backend     ns/item   ±MAD  Mitems/s  speedup  sampler  path\n",
    );
    for r in rows {
        let sampler = r
            .sampler_ns
            .map_or_else(|| "-".to_string(), |s| format!("{s:.1}"));
        out.push_str(&format!(
            "{:<30} {:<8} {:>7} {:>6}  {:<10} {:>8.1} {:>5.1}% {:>9.3} {:>7.1}×  {:>7}  {}\n",
            r.name,
            r.kind.name(),
            r.tokens,
            r.items,
            r.backend,
            r.ns,
            100.0 * r.mad / r.ns.max(f64::MIN_POSITIVE),
            1e3 / r.ns.max(f64::MIN_POSITIVE),
            r.speedup,
            sampler,
            r.path
        ));
    }
    out.push_str(
        "item: a vertex, or a fragment (fragments run in 2×2 quads); sampler: ns per item of \
         ns/item that the host's texture sampler alone takes (native runs with samples; the \
         rest is generated code and the segment boundaries)\n",
    );
    out
}
