//! Geometry shaders with per-vertex control flow (`frontend::emitter`): EMIT and SETEMIT under
//! per-vertex conditions (if-converted arms, masked regions, the lane-position model), lanes
//! that emit different numbers of triangles with different emitter states, END under a
//! condition, per-lane budget exhaustion, the output-bank quirk under masks and triangle
//! buffer overflow. Every program runs on the interpreter, the IR evaluator and every native
//! backend (AArch64 under qemu; AoS, SoA and `run_geometry`), outputs, statuses and each
//! invocation's triangles bit for bit, with inputs whose lanes take different paths.

mod frontend_support;

use frontend_support::*;
use picajit::asm::{assemble, Source};
use picajit::engine::{Backend, Engine};
use picajit::frontend::{self, Lowered, Mechanism};
use picajit::program::{Program, Uniforms};

/// The program of a geometry-shader source and uniforms with its constants applied (c_n =
/// (n, n + 0.25, −n, 1/(n + 1)) elsewhere; i0 = 4 passes from 0 step 1, i1 = 3 from 2 step 3).
fn source(text: &str) -> (Program, Uniforms) {
    let text = format!(".gsh\n{text}");
    let (shbin, _) = assemble(&[Source::new("geometry.g.pica", &text)]).expect("assembles");
    let program = shbin.program(0).expect("program");
    assert_eq!(program.kind, picajit::program::ShaderKind::Geometry);
    let mut u = uniforms([[3, 0, 1, 0], [2, 2, 3, 0], [0; 4], [0; 4]], 0);
    shbin.dvles[0].apply_constants(&mut u);
    (program, u)
}

/// Lowers (`check` says whether the branches became what the test is about) and compares
/// every engine on ramp inputs, random inputs and uniforms, and small budgets.
fn geometry(text: &str, check: impl Fn(&Lowered) -> bool) -> Lowered {
    let (p, u) = source(text);
    let l = frontend::lower(&p).expect("lowers");
    assert!(check(&l), "{:?} {:?}\n{}", l.stats, l.branches, l.func);
    compare(&l, &p, &u, &ramp_inputs(19), 4096).unwrap();
    for seed in 0..5 {
        let mut rng = fastrand::Rng::with_seed(seed);
        compare(&l, &p, &u, &random_inputs(&mut rng, 13), 4096).unwrap();
        compare(&l, &p, &random_uniforms(&mut rng), &ramp_inputs(11), 4096).unwrap();
    }
    for budget in [0, 1, 2, 3, 5, 9, 14] {
        compare(&l, &p, &u, &ramp_inputs(19), budget).unwrap();
    }
    l
}

fn uses(l: &Lowered, m: Mechanism) -> bool {
    l.branches.iter().any(|&(_, x)| x == m)
}

/// Every lane emits a strip; the lanes whose condition holds emit one more triangle with
/// another winding and vertex, in an arm of an IFC/ELSE.
#[test]
fn emit_in_if_else_arms() {
    geometry(
        "
        .constf k(0.5, 1.0, 0.0, 2.0)
        .out opos position
        .out oclr color
        .proc main
            mov opos, v0
            mov oclr, k.yzzy
            setemit 0
            emit
            add opos, k.y, v0
            setemit 1
            emit
            mul opos, k.w, v0
            setemit 2, prim
            emit
            cmp k.x, gt, gt, v0.x
            ifc cmp.x
                mov opos.xy, k.zw
                setemit 0, prim inv
                emit
            .else
                mov oclr.x, v0.y
                setemit 1, prim
                emit
                setemit 2
            .end
            add opos, v0, v0
            emit
            end
        .end
        ",
        |l| !l.stats.lanes && (l.stats.if_converted + l.stats.masked_forks) > 0,
    );
}

const TEXT_LOOP: &str = "
        .constf k(0.5, 1.0, 0.0, 0.25)
        .consti n(7, 0, 1, 0)
        .out opos position
        .out oclr color
        .proc main
            mov r0, k.z
            mov oclr, v1
            setemit 0
            mov opos, v0
            emit
            setemit 1
            add opos, k.x, v0
            emit
            for n
                add r0, k.w, r0
                cmp r0.x, gt, gt, v0.x
                breakc cmp.x
                mov opos, r0
                mov oclr.y, r0.x
                setemit 2, prim
                emit
                add opos.x, k.y, r0.x
                setemit 0, prim inv
                emit
            .end
            end
        .end
        ";

/// Lanes loop a per-vertex number of times, each pass emitting a triangle of a strip whose
/// winding alternates per lane: lanes emit different numbers of triangles.
#[test]
fn lanes_emit_different_numbers_of_triangles() {
    geometry(TEXT_LOOP, |l| !l.branches.is_empty());
    // Some lanes of the ramp leave early, some late: different triangle counts per lane.
    let (p, u) = source(TEXT_LOOP);
    let counts: Vec<usize> = ramp_inputs(19)
        .iter()
        .map(|i| {
            picajit::interp::Interpreter::new(&p)
                .run_vertex(&u, i)
                .primitives
                .len()
        })
        .collect();
    assert!(counts.windows(2).any(|w| w[0] != w[1]), "{counts:?}");
}

/// END under a per-vertex condition between EMITs: the lanes that end keep their triangles
/// so far, the others emit more (the lane-position model).
#[test]
fn end_under_a_condition() {
    geometry(
        "
        .constf k(0.5, 1.0, 0.0, 2.0)
        .out opos position
        .out oclr color
        .proc main
            mov opos, v0
            mov oclr, k.yyzz
            setemit 0
            emit
            mov opos, v1
            setemit 1
            emit
            mov opos, v2
            setemit 2, prim
            emit
            cmp k.x, gt, gt, v0.x
            ifc cmp.x
                mov oclr, k.zyzy
                end
            .else
                mul r1, k.w, v0
            .end
            mov opos, r1
            setemit 0, prim inv
            emit
            cmp k.y, lt, lt, v0.y
            ifc cmp.x
                call more
            .end
            mov oclr.w, r1.x
            end
        .end
        .proc more
            add opos, r1, v1
            setemit 1, prim
            emit
            cmp k.w, gt, gt, v0.z
            ifc cmp.x
                end
            .end
            setemit 1
            emit
        .end
        ",
        |l| l.stats.lanes && uses(l, Mechanism::LaneSplit),
    );
}

/// An EMIT loop with a per-vertex exit whose budget runs out in some lanes and not in others:
/// each lane's triangles up to its own exhaustion.
#[test]
fn budget_runs_out_per_lane() {
    let text = "
        .constf k(0.5, 1.0, 0.0, 0.5)
        .out opos position
        .proc main
            mov r0, k.z
            mov opos, v0
            setemit 0
            emit
            setemit 1
            emit
        top:
            add r0, k.w, r0
            mov opos.x, r0.x
            setemit 2, prim
            emit
            cmp r0.x, lt, lt, v0.x
            jmpc cmp.x, top
            end
        .end
        ";
    let l = geometry(text, |l| !l.branches.is_empty());
    // Budgets between the shortest and the longest lane: some lanes exhaust, others end.
    let (p, u) = source(text);
    let inputs = ramp_inputs(19);
    for budget in [4, 6, 8, 12] {
        compare(&l, &p, &u, &inputs, budget).unwrap();
        let statuses: Vec<_> = inputs
            .iter()
            .map(|i| {
                picajit::interp::Interpreter::new(&p)
                    .with_budget(budget)
                    .run_vertex(&u, i)
                    .status
            })
            .collect();
        assert!(statuses.windows(2).any(|w| w[0] != w[1]), "{statuses:?}");
    }
}

/// The bank quirk under masks: lanes that take the arm EMIT once more, so their banks are
/// swapped relative to the other lanes; a component written in only one bank shows it.
#[test]
fn output_banks_per_lane() {
    geometry(
        "
        .constf k(0.5, 1.0, 0.0, 2.0)
        .out opos position
        .out oclr color
        .proc main
            mov opos, v0
            mov oclr, k.yzzy
            setemit 0
            emit
            cmp k.x, gt, gt, v0.x
            ifc cmp.x
                mov opos.x, k.w
                emit
            .end
            mov opos.y, v1.x
            setemit 1
            emit
            mov oclr.z, v0.y
            setemit 2, prim
            emit
            end
        .end
        ",
        |l| !l.branches.is_empty(),
    );
}

/// SETEMIT under a per-vertex condition in a masked region with a loop: lanes hold different
/// vertex ids and flags when they meet again.
#[test]
fn setemit_differs_between_lanes() {
    geometry(
        "
        .constf k(0.5, 1.0, 0.0, 0.25)
        .consti n(3, 0, 1, 0)
        .out opos position
        .proc main
            mov r0, k.z
            setemit 0
            mov opos, v0
            emit
            setemit 1
            emit
            cmp k.x, gt, gt, v0.x
            ifc cmp.x
                for n
                    add r0, k.w, r0
                .end
                setemit 2, prim inv
            .else
                setemit 0, prim
            .end
            add opos, r0, v0
            emit
            setemit 1
            emit
            mov opos.z, r0.x
            setemit 2, prim
            emit
            end
        .end
        ",
        |l| !l.branches.is_empty(),
    );
}

/// More triangle records than a batch's buffer holds (lanes emitting at different times use
/// different records): the batch runs on the interpreter, still exact.
#[test]
fn overflowing_records_stay_exact() {
    geometry(
        "
        .constf k(0.5, 1.0, 0.0, 0.125)
        .consti n(40, 0, 1, 0)
        .out opos position
        .proc main
            mov r0, k.z
            mov opos, v0
            setemit 0
            emit
            setemit 1
            emit
            for n
                add r0, k.w, r0
                mov opos.x, r0.x
                cmp r0.x, lt, lt, v0.x
                ifc cmp.x
                    setemit 2, prim
                    emit
                .end
            .end
            end
        .end
        ",
        |l| !l.branches.is_empty(),
    );
}

/// Geometry shaders with per-vertex branches compile natively on every backend (no
/// interpreter fallback, no per-vertex rerun).
#[test]
fn per_vertex_geometry_runs_natively() {
    let (p, _) = source(
        "
        .constf k(0.5, 1.0, 0.0, 2.0)
        .out opos position
        .proc main
            mov opos, v0
            cmp k.x, gt, gt, v0.x
            ifc cmp.x
                setemit 2, prim
                emit
                end
            .end
            setemit 0, prim
            emit
            end
        .end
        ",
    );
    for backend in Backend::runnable() {
        if backend == Backend::Interp {
            continue;
        }
        let shader = Engine::new(backend).expect("runnable").compile(&p);
        assert!(
            !shader.path().to_string().contains("interp"),
            "{}: {}",
            backend.name(),
            shader.path()
        );
    }
}
