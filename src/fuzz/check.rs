//! The differential check: a case runs on the reference interpreter (one vertex at a time) and
//! on each selected backend through the engine API — AoS batches, SoA batches on the JIT
//! tiers, and the parallel path for large batches — and every vertex's status and all 64
//! output components must agree bit for bit (any NaN equals any NaN), budget-exhausted
//! vertices included. Output buffers start zeroed: a run stores only the registers the shader
//! can write, and the interpreter reports the others as 0.0.
//!
//! After those, every backend runs the same shader again with [`alternate`] uniforms and then
//! with the case's own once more: per-uniform kernel variants and state a run leaves behind.
//!
//! A geometry case also goes through `Shader::run_geometry_into` (with its uniforms, then with
//! the alternate ones into the same buffers): each invocation's outputs, status and triangles
//! — their number, each one's winding and its three vertices' 64 components — must agree.
//!
//! [`check_with_fault`] is the fuzzer's self-test: it corrupts each backend's geometry results
//! on purpose ([`Fault`]), so a test can watch a failure be found, minimized and replayed.
//!
//! A panic inside an engine is caught and reported as a failure of that backend. Crashes and
//! hangs cannot be caught in-process; `picajit fuzz` runs checks in a worker process for that.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::engine::{Backend, Engine, GeometryOutput, SoaBuffer};
use crate::interp::{Interpreter, Primitive, RunError};
use crate::program::{Regs16, ShaderKind, Uniforms, VertexStatus};

use super::FuzzCase;

mod triangles;

use triangles::compare_triangles;
pub use triangles::Fault;

/// How a batch was handed to an engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Io {
    /// [`crate::engine::Shader::run`].
    Aos,
    /// [`crate::engine::Shader::run_soa`].
    Soa,
    /// [`crate::engine::Shader::run_par`].
    Par,
    /// [`crate::engine::Shader::run`] with the [`alternate`] uniforms, after the runs above.
    Alternate,
    /// [`crate::engine::Shader::run`] with the case's uniforms again, after [`Io::Alternate`].
    Again,
    /// [`crate::engine::Shader::run_geometry_into`] (geometry cases): outputs, statuses and
    /// triangles.
    Geometry,
    /// [`crate::engine::Shader::run_geometry_into`] with the [`alternate`] uniforms, into the
    /// buffers of [`Io::Geometry`].
    GeometryAlternate,
}

impl Io {
    pub fn name(self) -> &'static str {
        match self {
            Io::Aos => "run",
            Io::Soa => "run_soa",
            Io::Par => "run_par",
            Io::Alternate => "run (alternate uniforms)",
            Io::Again => "run (case uniforms again)",
            Io::Geometry => "run_geometry",
            Io::GeometryAlternate => "run_geometry (alternate uniforms)",
        }
    }
}

/// Batches at least this long also go through the parallel path.
pub const PAR_MIN: usize = 256;
/// Differences kept per failure.
const MAX_DIFFS: usize = 64;

/// One disagreement with the interpreter.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub io: Io,
    pub vertex: usize,
    pub what: Diff,
}

/// What differs.
#[derive(Clone, Debug, PartialEq)]
pub enum Diff {
    Status {
        want: VertexStatus,
        got: VertexStatus,
    },
    /// Component `comp` of output register `reg` (bit patterns).
    Output {
        reg: usize,
        comp: usize,
        want: u32,
        got: u32,
    },
    /// The run's result disagrees with the statuses it wrote.
    Result { detail: String },
    /// The invocation emitted another number of triangles.
    Triangles { want: usize, got: usize },
    /// Triangle `triangle` of the invocation has the other winding.
    Winding {
        triangle: usize,
        want: bool,
        got: bool,
    },
    /// Component `comp` of output register `reg` of vertex `slot` (0–2) of triangle
    /// `triangle` (bit patterns).
    TriangleVertex {
        triangle: usize,
        slot: usize,
        reg: usize,
        comp: usize,
        want: u32,
        got: u32,
    },
}

/// How a backend failed.
#[derive(Clone, Debug, PartialEq)]
pub enum FailureKind {
    /// Outputs or statuses differ from the interpreter's.
    Mismatch(Vec<Difference>),
    /// The backend panicked (the message).
    Panic(String),
}

/// A failed check: the first backend that disagreed.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub backend: Backend,
    /// How the shader executed on that backend (native tier or interpreter fallback).
    pub path: String,
    pub kind: FailureKind,
}

impl Failure {
    /// "mismatch" or "panic".
    pub fn class(&self) -> &'static str {
        match self.kind {
            FailureKind::Mismatch(_) => "mismatch",
            FailureKind::Panic(_) => "panic",
        }
    }

    /// One line: backend, class and the first difference or the panic message.
    pub fn summary(&self) -> String {
        let detail = match &self.kind {
            FailureKind::Mismatch(d) => d.first().map_or(String::new(), describe),
            FailureKind::Panic(msg) => msg.lines().next().unwrap_or("").to_string(),
        };
        format!(
            "{} on {} ({}): {detail}",
            self.class(),
            self.backend.name(),
            self.path
        )
    }
}

/// One line for a difference.
pub fn describe(d: &Difference) -> String {
    match &d.what {
        Diff::Status { want, got } => format!(
            "{} vertex {}: status {want:?} (interp) vs {got:?}",
            d.io.name(),
            d.vertex
        ),
        Diff::Output {
            reg,
            comp,
            want,
            got,
        } => format!(
            "{} vertex {}: o{reg}.{} = {:#010x} {:e} (interp) vs {:#010x} {:e}",
            d.io.name(),
            d.vertex,
            ["x", "y", "z", "w"][comp & 3],
            want,
            f32::from_bits(*want),
            got,
            f32::from_bits(*got)
        ),
        Diff::Result { detail } => format!("{} {detail}", d.io.name()),
        Diff::Triangles { want, got } => format!(
            "{} invocation {}: {want} triangles (interp) vs {got}",
            d.io.name(),
            d.vertex
        ),
        Diff::Winding {
            triangle,
            want,
            got,
        } => format!(
            "{} invocation {}: triangle {triangle} winding {} (interp) vs {}",
            d.io.name(),
            d.vertex,
            winding_name(*want),
            winding_name(*got)
        ),
        Diff::TriangleVertex {
            triangle,
            slot,
            reg,
            comp,
            want,
            got,
        } => format!(
            "{} invocation {}: triangle {triangle} vertex {slot} o{reg}.{} = {:#010x} {:e} (interp) vs {:#010x} {:e}",
            d.io.name(),
            d.vertex,
            ["x", "y", "z", "w"][comp & 3],
            want,
            f32::from_bits(*want),
            got,
            f32::from_bits(*got)
        ),
    }
}

fn winding_name(inverted: bool) -> &'static str {
    if inverted {
        "inverted"
    } else {
        "normal"
    }
}

/// What the frontend made of a program on a JIT backend: its stats if it lowered it, else
/// `Err(())` (the shader runs on the interpreter).
pub type FrontendSeen = Result<crate::frontend::Stats, ()>;

/// What a passing check saw: per backend, whether the shader ran natively.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Passed {
    pub native: Vec<(Backend, bool)>,
    /// A geometry case: the triangles its invocations emitted (with the case's uniforms);
    /// `None` for a vertex case.
    pub triangles: Option<u64>,
    /// What the frontend made of the program, as the first JIT backend's compile saw it:
    /// `Some(Ok(stats))` if it lowered it, `Some(Err(()))` if it did not (the shader runs on
    /// the interpreter), `None` if no JIT backend was checked or the case does not load.
    pub frontend: Option<FrontendSeen>,
}

/// Bit equality, any NaN equal to any NaN.
pub fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// The case's uniforms with every float component's kind flipped (finite non-zero ↔ zero,
/// infinity or NaN) and every bool inverted: a second run of the same compiled shader with
/// these exercises the per-uniform kernel variants and state left behind by an earlier run.
pub fn alternate(u: &Uniforms) -> Uniforms {
    let mut alt = u.clone();
    for x in alt.f.iter_mut().flatten() {
        *x = if x.is_finite() && *x != 0.0 {
            if x.to_bits() & 1 == 0 {
                0.0
            } else {
                f32::INFINITY
            }
        } else {
            1.5
        };
    }
    alt.b = !u.b;
    alt
}

/// What the interpreter made of a case: per invocation, outputs, status and (geometry cases)
/// triangles.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub outputs: Vec<Regs16>,
    pub status: Vec<VertexStatus>,
    /// Per invocation its triangles (empty lists for a vertex shader).
    pub triangles: Vec<Vec<Primitive>>,
}

/// The interpreter's outputs, statuses and triangles, one invocation at a time.
pub fn reference(case: &FuzzCase, uniforms: &Uniforms) -> Result<Outcome, String> {
    let program = case.case.program().map_err(|e| e.to_string())?;
    let interp = Interpreter::new(&program).with_budget(case.budget);
    let mut out = Outcome::default();
    for input in &case.case.inputs {
        let inv = interp.run_vertex(uniforms, input);
        out.outputs.push(inv.outputs);
        out.status.push(inv.status);
        out.triangles.push(inv.primitives);
    }
    Ok(out)
}

/// Runs `case` on every backend of `backends` and compares with the interpreter.
pub fn check(case: &FuzzCase, backends: &[Backend]) -> Result<Passed, Failure> {
    check_with_fault(case, backends, Fault::None)
}

/// [`check`] with each backend's geometry results corrupted by `fault` before they are
/// compared (the fuzzer's self-test).
pub fn check_with_fault(
    case: &FuzzCase,
    backends: &[Backend],
    fault: Fault,
) -> Result<Passed, Failure> {
    let alt = alternate(&case.case.uniforms);
    let want = match catch_unwind(|| {
        Ok::<_, String>((
            reference(case, &case.case.uniforms)?,
            reference(case, &alt)?,
        ))
    }) {
        Ok(Ok(w)) => w,
        Ok(Err(e)) => {
            return Err(Failure {
                backend: Backend::Interp,
                path: "reference".to_string(),
                kind: FailureKind::Panic(format!("case does not load: {e}")),
            })
        }
        Err(p) => {
            return Err(Failure {
                backend: Backend::Interp,
                path: "reference run_vertex".to_string(),
                kind: FailureKind::Panic(panic_message(&*p)),
            })
        }
    };
    let mut passed = Passed {
        triangles: (case.case.kind == ShaderKind::Geometry)
            .then(|| want.0.triangles.iter().map(|t| t.len() as u64).sum()),
        ..Passed::default()
    };
    for &backend in backends {
        let mut path = String::from("compile");
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            check_backend(case, backend, &want, &alt, fault, &mut path)
        }));
        match outcome {
            Ok(Ok((native, frontend))) => {
                passed.native.push((backend, native));
                passed.frontend = passed.frontend.or(frontend);
            }
            Ok(Err(diffs)) => {
                return Err(Failure {
                    backend,
                    path,
                    kind: FailureKind::Mismatch(diffs),
                })
            }
            Err(p) => {
                return Err(Failure {
                    backend,
                    path,
                    kind: FailureKind::Panic(panic_message(&*p)),
                })
            }
        }
    }
    Ok(passed)
}

/// The text of a caught panic.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

/// Ok((ran natively, what the frontend made of the program on a JIT backend)) or the
/// differences.
fn check_backend(
    case: &FuzzCase,
    backend: Backend,
    (want, want_alt): &(Outcome, Outcome),
    alt: &Uniforms,
    fault: Fault,
    path: &mut String,
) -> Result<(bool, Option<FrontendSeen>), Vec<Difference>> {
    let Ok(program) = case.case.program() else {
        return Ok((false, None));
    };
    let engine = match Engine::new(backend) {
        // Kernels compiled by the running thread: every run uses the SoA and specialized
        // kernels it would use in the steady state, deterministically.
        Ok(e) => e.with_budget(case.budget).with_background_compile(false),
        Err(e) => {
            return Err(vec![Difference {
                io: Io::Aos,
                vertex: 0,
                what: Diff::Result {
                    detail: format!("engine: {e}"),
                },
            }])
        }
    };
    let shader = engine.compile(&program);
    *path = shader.path().to_string();
    let native = shader.machine_code().is_some();
    let frontend = (backend != Backend::Interp).then(|| shader.frontend_stats().ok_or(()));
    let inputs = &case.case.inputs;
    let uniforms = &case.case.uniforms;
    let n = inputs.len();
    let mut diffs = Vec::new();
    let jit = backend != Backend::Interp;
    let mut modes = vec![Io::Aos];
    if jit {
        modes.push(Io::Soa);
    }
    if n >= PAR_MIN {
        modes.push(Io::Par);
    }
    let geometry = case.case.kind == ShaderKind::Geometry;
    if geometry {
        modes.push(Io::Geometry);
    }
    modes.extend([Io::Alternate, Io::Again]);
    if geometry {
        modes.push(Io::GeometryAlternate);
    }
    let mut geo = GeometryOutput::default();
    for io in modes {
        let want = if matches!(io, Io::Alternate | Io::GeometryAlternate) {
            want_alt
        } else {
            want
        };
        let mut status = vec![VertexStatus::Ended; n];
        let (outputs, result) = match io {
            Io::Geometry | Io::GeometryAlternate => {
                let u = if io == Io::Geometry { uniforms } else { alt };
                let result = shader.run_geometry_into(u, inputs, &mut geo);
                fault.apply(&mut geo);
                compare_triangles(io, want, &geo, &mut diffs);
                status.clone_from(&geo.status);
                (geo.outputs.clone(), result)
            }
            Io::Aos | Io::Par | Io::Alternate | Io::Again => {
                let mut outputs = vec![[[0.0f32; 4]; 16]; n];
                let r = match io {
                    Io::Par => shader.run_par(uniforms, inputs, &mut outputs, &mut status),
                    Io::Alternate => shader.run(alt, inputs, &mut outputs, &mut status),
                    Io::Aos | Io::Again | Io::Soa | Io::Geometry | Io::GeometryAlternate => {
                        shader.run(uniforms, inputs, &mut outputs, &mut status)
                    }
                };
                (outputs, r)
            }
            Io::Soa => {
                let mut out = SoaBuffer::new(n);
                let r = shader.run_soa(
                    uniforms,
                    &SoaBuffer::from_aos(inputs),
                    &mut out,
                    &mut status,
                );
                (out.to_aos(), r)
            }
        };
        compare(io, want, &outputs, &status, &result, &mut diffs);
        if diffs.len() >= MAX_DIFFS {
            break;
        }
    }
    if diffs.is_empty() {
        Ok((native, frontend))
    } else {
        diffs.truncate(MAX_DIFFS);
        Err(diffs)
    }
}

fn compare(
    io: Io,
    want: &Outcome,
    outputs: &[Regs16],
    status: &[VertexStatus],
    result: &Result<(), RunError>,
    diffs: &mut Vec<Difference>,
) {
    if outputs.len() != want.outputs.len() || status.len() != want.status.len() {
        diffs.push(Difference {
            io,
            vertex: 0,
            what: Diff::Result {
                detail: format!(
                    "returned {} outputs and {} statuses for {} invocations",
                    outputs.len(),
                    status.len(),
                    want.outputs.len()
                ),
            },
        });
        return;
    }
    for v in 0..want.outputs.len() {
        if want.status[v] != status[v] {
            diffs.push(Difference {
                io,
                vertex: v,
                what: Diff::Status {
                    want: want.status[v],
                    got: status[v],
                },
            });
        }
        for (k, (a, b)) in want.outputs[v]
            .iter()
            .flatten()
            .zip(outputs[v].iter().flatten())
            .enumerate()
        {
            if !same(*a, *b) {
                diffs.push(Difference {
                    io,
                    vertex: v,
                    what: Diff::Output {
                        reg: k / 4,
                        comp: k % 4,
                        want: a.to_bits(),
                        got: b.to_bits(),
                    },
                });
            }
        }
    }
    let first_exhausted = status
        .iter()
        .position(|s| *s == VertexStatus::BudgetExhausted);
    let consistent = match (result, first_exhausted) {
        (Ok(()), None) => true,
        (Err(RunError::BudgetExhausted { vertex, .. }), Some(first)) => *vertex == first,
        (Ok(()), Some(_)) | (Err(_), _) => false,
    };
    if !consistent {
        diffs.push(Difference {
            io,
            vertex: first_exhausted.unwrap_or(0),
            what: Diff::Result {
                detail: format!(
                    "returned {result:?} but the first exhausted vertex is {first_exhausted:?}"
                ),
            },
        });
    }
}

#[cfg(test)]
mod tests;
