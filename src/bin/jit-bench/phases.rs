//! The compile-time breakdown: per phase of a cold compile ([`Engine::compile_timed`], wall
//! clock inside the compile), the minimum and the median over timed compiles; and the phase
//! table, which groups the phases into a few columns.

use picajit::engine::{Backend, Engine, Timings};
use serde::Serialize;

use crate::measure::{median, Row};
use crate::report::{num, Table};
use crate::workload::Workload;

/// One phase of the breakdown.
#[derive(Clone, Debug, Serialize)]
pub struct PhaseTime {
    pub phase: &'static str,
    /// Minimum over the timed compiles, µs (on a loaded machine: the best estimate of the work).
    pub min_us: f64,
    /// Median over the timed compiles, µs.
    pub median_us: f64,
}

/// Every phase of `repetitions` timed cold compiles of `workload` on `backend` (after one
/// untimed warm-up compile), in pipeline order.
pub fn measure(workload: &Workload, backend: Backend, repetitions: usize) -> Vec<PhaseTime> {
    let engine = Engine::new(backend).expect("an available backend");
    engine.compile_timed(&workload.program, &mut Timings::new());
    let runs: Vec<Timings> = (0..repetitions.max(1))
        .map(|_| {
            let mut t = Timings::new();
            engine.compile_timed(&workload.program, &mut t);
            t
        })
        .collect();
    runs[0]
        .phases()
        .iter()
        .map(|&(phase, _)| {
            let mut us: Vec<f64> = runs
                .iter()
                .map(|t| t.get(phase).as_secs_f64() * 1e6)
                .collect();
            let median_us = median(&mut us);
            PhaseTime {
                phase,
                min_us: us[0],
                median_us,
            }
        })
        .collect()
}

/// The table's columns: each a group of phases (a phase in no group counts as `other`).
const GROUPS: [(&str, &[&str]); 7] = [
    ("explore", &["explore"]),
    ("build", &["ir build", "uniformity", "branch conversion"]),
    (
        "passes",
        &[
            "simplify_cfg",
            "split_defs",
            "cse",
            "dce",
            "simplify_cfg 2",
            "place_io",
            "verify",
            "budget check",
            "prepare",
        ],
    ),
    ("regalloc", &["backend prepare", "liveness", "regalloc"]),
    ("emit", &["emit", "assemble"]),
    ("map", &["map"]),
    ("other", &[]),
];

/// What the phase table's columns hold.
pub const LEGEND: &str = "\
compile phases: median µs per group of phases over the timed cold compiles (wall clock); explore =
         control-flow exploration; build = IR build, uniformity analysis, branch conversion; passes =
         simplify_cfg, cse, dce, I/O placement, checks, output/uniform preparation; regalloc = backend prepare,
         liveness, allocation; emit = emission and assembly; map = executable memory; other =
         reachability and the shader; every phase in the JSON (compile_phases, min and median)";

/// One row per native (shader, backend): reachable words, the cold compile (thread CPU time,
/// as in the main table), then the phase groups.
pub fn table(rows: &[Row]) -> Option<String> {
    let mut header = vec![
        "shader".to_string(),
        "backend".to_string(),
        "words".to_string(),
        "cold µs".to_string(),
        "µs/word".to_string(),
    ];
    header.extend(GROUPS.iter().map(|(g, _)| g.to_string()));
    let mut body: Vec<Vec<String>> = Vec::new();
    for r in rows {
        if r.path != "native" || body.iter().any(|b| b[0] == r.shader && b[1] == r.backend) {
            continue;
        }
        let mut line = vec![
            r.shader.clone(),
            r.backend.to_string(),
            r.reachable_words.to_string(),
            num(r.compile_us),
            format!("{:.2}", r.compile_us / r.reachable_words.max(1) as f64),
        ];
        for (g, members) in GROUPS {
            let us: f64 = r
                .compile_phases
                .iter()
                .filter(|p| {
                    members.contains(&p.phase)
                        || g == "other" && !GROUPS.iter().any(|(_, m)| m.contains(&p.phase))
                })
                .map(|p| p.median_us)
                .sum();
            line.push(num(us));
        }
        body.push(line);
    }
    if body.is_empty() {
        return None;
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
