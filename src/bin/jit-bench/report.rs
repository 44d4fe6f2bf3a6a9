//! The aligned text table, and the JSON report.

use std::fmt::Write as _;

use serde::Serialize;

use crate::machine::Machine;
use crate::measure::{Row, Settings};

/// Everything `--json` writes.
#[derive(Serialize)]
pub struct Report<'a> {
    pub machine: &'a Machine,
    pub settings: &'a Settings,
    pub results: &'a [Row],
    pub notes: Vec<String>,
}

/// Three significant digits or so, never scientific notation.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// A ratio: two decimals below 10, then three significant digits.
pub fn ratio(x: f64) -> String {
    if x.is_finite() && x.abs() < 10.0 {
        format!("{x:.2}")
    } else {
        num(x)
    }
}

/// A text table: left-aligned first `left` columns, the rest right-aligned.
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub left: usize,
}

impl Table {
    pub fn render(&self) -> String {
        let cols = self.header.len();
        let width: Vec<usize> = (0..cols)
            .map(|c| {
                self.rows
                    .iter()
                    .chain(std::iter::once(&self.header))
                    .map(|r| r[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        let line = |out: &mut String, cells: &[String]| {
            let mut text = String::new();
            for (c, cell) in cells.iter().enumerate() {
                let pad = width[c] - cell.chars().count();
                if c > 0 {
                    text.push_str("  ");
                }
                if c < self.left {
                    text.push_str(cell);
                    text.push_str(&" ".repeat(pad));
                } else {
                    text.push_str(&" ".repeat(pad));
                    text.push_str(cell);
                }
            }
            out.push_str(text.trim_end());
            out.push('\n');
        };
        line(&mut out, &self.header);
        let rule: Vec<String> = width.iter().map(|&w| "-".repeat(w)).collect();
        line(&mut out, &rule);
        let mut last_shader = None;
        for r in &self.rows {
            if last_shader.is_some_and(|s: &String| *s != r[0]) {
                out.push('\n');
            }
            last_shader = Some(&r[0]);
            line(&mut out, r);
        }
        out
    }
}

/// The main table: one row per shader, backend and I/O layout (single thread).
pub fn table(rows: &[Row]) -> String {
    let header = [
        "shader",
        "backend",
        "io",
        "path",
        "PICA/v",
        "ns/vertex",
        "±MAD",
        "Mvert/s",
        "ns/PICA",
        "speedup",
        "compile µs",
        "hit µs",
        "1st run µs",
        "x64/batch",
        "x64/v",
    ];
    let body = rows
        .iter()
        .filter(|r| r.api != "run_par")
        .map(|r| {
            vec![
                r.shader.clone(),
                r.backend.to_string(),
                r.io.to_string(),
                r.path.to_string(),
                format!("{:.1}", r.pica_instructions_per_vertex),
                num(r.ns_per_vertex),
                format!("{:.1}%", r.spread_pct),
                num(r.vertices_per_s / 1e6),
                num(r.ns_per_instruction),
                format!("{}×", ratio(r.speedup)),
                num(r.compile_us),
                num(r.compile_hit_us),
                num(r.first_run_us),
                r.native_instructions_per_batch
                    .map_or("-".into(), |n| n.to_string()),
                r.native_instructions_per_vertex
                    .map_or("-".into(), |n| format!("{n:.1}")),
            ]
        })
        .collect();
    Table {
        header: header.iter().map(|s| s.to_string()).collect(),
        rows: body,
        left: 4,
    }
    .render()
}

/// The thread-scaling table: ns/vertex per thread count and the gain over one thread.
pub fn scaling_table(rows: &[Row]) -> Option<String> {
    let par: Vec<&Row> = rows.iter().filter(|r| r.api == "run_par").collect();
    let max = par.iter().map(|r| r.threads).max()?;
    let mut header = vec!["shader".to_string(), "backend".to_string()];
    header.extend((1..=max).map(|t| format!("{t} thread{}", if t == 1 { "" } else { "s" })));
    let mut body: Vec<Vec<String>> = Vec::new();
    for r in &par {
        if r.threads != 1 {
            continue;
        }
        let mut line = vec![r.shader.clone(), r.backend.to_string()];
        for t in 1..=max {
            let cell = par
                .iter()
                .find(|x| x.shader == r.shader && x.backend == r.backend && x.threads == t)
                .map_or("-".into(), |x| {
                    let cores = x
                        .cores_used
                        .map_or(String::new(), |c| format!(" on {c:.1} cores"));
                    match x.scaling {
                        Some(s) if t > 1 => {
                            format!("{} ns ({}×{cores})", num(x.ns_per_vertex), ratio(s))
                        }
                        _ => format!("{} ns ({cores})", num(x.ns_per_vertex))
                            .replace("( on ", "(on "),
                    }
                });
            line.push(cell);
        }
        body.push(line);
    }
    Some(
        Table {
            header,
            rows: body,
            left: 2,
        }
        .render(),
    )
}

/// Notes under the table: why shaders fell back, what geometry rows mean, budget trouble.
pub fn notes(rows: &[Row]) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    let mut add = |n: String| {
        if !notes.contains(&n) {
            notes.push(n);
        }
    };
    for r in rows {
        if r.path == "fallback" {
            let on: Vec<&str> = rows
                .iter()
                .filter(|x| x.shader == r.shader && x.path_detail == r.path_detail)
                .map(|x| x.backend)
                .fold(Vec::new(), |mut v, b| {
                    if !v.contains(&b) {
                        v.push(b);
                    }
                    v
                });
            add(format!(
                "{} on {}: {}",
                r.shader,
                on.join(", "),
                r.path_detail
            ));
        }
        if r.kind == "geometry" {
            add(format!(
                "{} is a geometry shader: its figures are per invocation (one primitive), not per vertex",
                r.shader
            ));
        }
        if r.cores_used.is_some_and(|c| c < 0.8 * r.threads as f64) {
            add(
                "the run_par runs got fewer cores than threads (other processes hold the CPUs): \
                 their scaling says little about picajit"
                    .to_string(),
            );
        }
        if r.budget_exhausted > 0 {
            add(format!(
                "{} on {}: {} of {} invocations ran out of step budget",
                r.shader, r.backend, r.budget_exhausted, r.vertices
            ));
        }
    }
    notes
}

/// The header and legend printed around the tables.
pub fn preamble(machine: &Machine, settings: &Settings) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "machine: {}", machine.summary());
    let _ = writeln!(
        s,
        "method: {} vertices per batch; per configuration {} ms warm-up, then {} samples of ≥ {} ms \
         taken round-robin across backends; medians; speedup = median of per-round ratios to the interpreter's AoS run",
        settings.vertices, settings.warmup_ms, settings.repetitions, settings.sample_ms
    );
    s
}

/// What the columns mean.
pub const LEGEND: &str = "\
columns: PICA/v = PICA instructions executed per vertex (instrumented interpreter run, mean);
         ±MAD = median absolute deviation of the samples; ns/PICA = ns per PICA instruction per vertex;
         compile = cold compile (fresh engine), hit = cache hit, 1st run = first batch after compiling
         (on the generic kernel: the others compile in the background); x64/batch, x64/v = static instruction count of the
         native AoS kernel the timed runs use (uniform-specialized), per batch and per vertex";
