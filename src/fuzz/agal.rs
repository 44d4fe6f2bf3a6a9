//! Differential fuzzing of AGAL: a seed gives an [`AgalCase`] — three in four times a program
//! the validator accepts by construction ([`crate::agal::gen_valid`], every opcode but
//! `tld`, so the frontend compiles it), otherwise random bytecode from
//! [`crate::agal::gen`] (mostly invalid) — with constants, vertices (or quads) and textures
//! drawn from special values. [`check_agal`] runs it on the AGAL interpreter ([`AgalCase::run`])
//! and through [`Engine::run_agal_case`] on each backend: valid programs must give the same
//! outputs bit for bit (a NaN equals any NaN), invalid ones the same rejection. With the
//! interpreter among the backends, the lowered IR also runs on the IR evaluator
//! ([`eval_agal_case`]), the engine-independent statement of what the backends must compute.

use picajit_codegen::abi::{Context, CONST_ENTRIES, MAX_LANES};

use crate::agal::case::{AgalCase, CaseTexture, Inputs, Outputs};
use crate::agal::header::ShaderKind;
use crate::agal::interp::{
    Fragment, FragmentOut, Level, Texture, Textures, Vertex, VertexOut, ATTRIBUTES, VARYINGS,
};
use crate::agal::lower::{self, Lowered, DEPTH_OUTPUT, KILL_OUTPUT, VARYING_OUTPUT};
use crate::agal::opcode::Opcode;
use crate::agal::program::Program;
use crate::agal::sampling::Dim;
use crate::agal::validate::{validate, Options};
use crate::agal::{gen, gen_valid};
use crate::engine::{Backend, Engine};
use crate::program::Regs16;

use super::values::special_float;

/// What a passing case was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AgalPassed {
    /// The program validated (else every engine rejected it alike).
    pub valid: bool,
    /// It is a vertex program.
    pub vertex: bool,
    /// Every native backend compiled it (else they fell back to the interpreter).
    pub native: bool,
    /// The IR evaluator ran its lowered IR (and agreed).
    pub evaluated: bool,
}

/// A case on which an engine disagreed with the interpreter.
#[derive(Clone, Debug)]
pub struct AgalFailure {
    /// The engine.
    pub backend: Backend,
    /// What differed.
    pub summary: String,
}

/// A value: half the time an ordinary one in [−4, 4) or a small integer (indices), else a
/// special float (zeros, infinities, NaNs, subnormals, extremes).
fn value(rng: &mut fastrand::Rng) -> f32 {
    match rng.u8(..8) {
        0..=2 => (rng.f32() - 0.5) * 8.0,
        3 => rng.i32(-4..260) as f32,
        _ => special_float(rng),
    }
}

fn vec4(rng: &mut fastrand::Rng) -> [f32; 4] {
    std::array::from_fn(|_| value(rng))
}

/// The case of a seed.
pub fn agal_case(seed: u64) -> AgalCase {
    let mut rng = fastrand::Rng::with_seed(seed);
    let program = if rng.u8(..4) != 0 {
        let kind = if rng.bool() {
            ShaderKind::Vertex
        } else {
            ShaderKind::Fragment
        };
        let version = rng.u32(1..5);
        let len = rng.usize(1..48);
        gen_valid::program(&mut rng, kind, version, len, &|op| op != Opcode::Ted)
    } else {
        gen::program(&mut rng, 24)
    };
    // The kind the case runs as: the header's (an odd header still makes a case: its run
    // is rejected).
    let kind = match program.get(6) {
        Some(1) => ShaderKind::Fragment,
        _ => ShaderKind::Vertex,
    };
    let constants = (0..rng.usize(..=256)).map(|_| vec4(&mut rng)).collect();
    let id = rng.u32(..4);
    let inputs = match kind {
        ShaderKind::Vertex => Inputs::Vertices(
            (0..rng.usize(1..20))
                .map(|k| Vertex {
                    attributes: std::array::from_fn(|_| vec4(&mut rng)),
                    instance_id: id + u32::from(k >= 10),
                })
                .collect(),
        ),
        ShaderKind::Fragment => Inputs::Quads(
            (0..rng.usize(1..5))
                .map(|_| {
                    std::array::from_fn(|_| Fragment {
                        varyings: std::array::from_fn(|_| vec4(&mut rng)),
                    })
                })
                .collect(),
        ),
    };
    // Textures for the units a valid program samples (random bytecode may).
    let textures = validate(&program, &Options::default())
        .map(|p| {
            p.interface
                .samplers
                .iter()
                .map(|s| {
                    let faces = if s.state.dim == Dim::Cube { 6 } else { 1 };
                    let level = |rng: &mut fastrand::Rng, n: u32| Level {
                        width: n,
                        height: n,
                        texels: (0..n * n)
                            .map(|_| std::array::from_fn(|_| rng.f32()))
                            .collect(),
                    };
                    CaseTexture {
                        unit: s.unit,
                        texture: Texture {
                            dim: s.state.dim,
                            faces: (0..faces)
                                .map(|_| (0..3).map(|l| level(&mut rng, 4 >> l)).collect())
                                .collect(),
                        },
                        state: None,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    AgalCase {
        program,
        constants,
        registers: match kind {
            ShaderKind::Vertex => ATTRIBUTES as u32,
            ShaderKind::Fragment => VARYINGS as u32,
        },
        inputs,
        textures,
    }
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// The first difference between two results, if any.
fn difference(want: &Outputs, got: &Outputs) -> Option<String> {
    let vec = |what: String, a: &[f32; 4], b: &[f32; 4]| {
        (0..4).find(|&c| !same(a[c], b[c])).map(|c| {
            format!(
                "{what}.{c}: {} ({:#010x}), interpreter {} ({:#010x})",
                b[c],
                b[c].to_bits(),
                a[c],
                a[c].to_bits()
            )
        })
    };
    match (want, got) {
        (Outputs::Vertices(w), Outputs::Vertices(g)) if w.len() == g.len() => {
            w.iter().zip(g).enumerate().find_map(|(k, (a, b))| {
                vec(format!("vertex {k} op"), &a.position, &b.position).or_else(|| {
                    (0..VARYINGS).find_map(|i| {
                        vec(format!("vertex {k} v{i}"), &a.varyings[i], &b.varyings[i])
                    })
                })
            })
        }
        (Outputs::Fragments(w), Outputs::Fragments(g)) if w.len() == g.len() => {
            w.iter().zip(g).enumerate().find_map(|(k, (a, b))| {
                (0..4)
                    .find_map(|c| vec(format!("fragment {k} oc{c}"), &a.colors[c], &b.colors[c]))
                    .or_else(|| {
                        (!same(a.depth, b.depth)).then(|| {
                            format!("fragment {k} od: {}, interpreter {}", b.depth, a.depth)
                        })
                    })
                    .or_else(|| {
                        (a.killed != b.killed).then(|| {
                            format!(
                                "fragment {k} killed: {}, interpreter {}",
                                b.killed, a.killed
                            )
                        })
                    })
            })
        }
        _ => Some("the results have different shapes".to_string()),
    }
}

/// Runs `case` on the interpreter and on each of `backends` (through a fresh engine each, so
/// nothing accumulates across cases).
pub fn check_agal(case: &AgalCase, backends: &[Backend]) -> Result<AgalPassed, AgalFailure> {
    let engines: Vec<Engine> = backends
        .iter()
        .map(|&b| {
            Engine::new(b).map_err(|e| AgalFailure {
                backend: b,
                summary: e.to_string(),
            })
        })
        .collect::<Result<_, _>>()?;
    let want = case.run();
    let mut passed = AgalPassed {
        valid: want.is_ok(),
        vertex: case.kind() == ShaderKind::Vertex,
        native: true,
        evaluated: false,
    };
    for engine in &engines {
        let fail = |summary: String| AgalFailure {
            backend: engine.backend(),
            summary,
        };
        let got = engine.run_agal_case(case);
        if engine.stats().agal_run_fallbacks != 0 {
            return Err(fail(
                "the native run failed and the interpreter ran instead".to_string(),
            ));
        }
        match (&want, &got) {
            (Ok(w), Ok(g)) => {
                if let Some(d) = difference(w, g) {
                    return Err(fail(d));
                }
                if engine.backend() != Backend::Interp {
                    let (program, _) = case.prepare().map_err(|e| fail(e.to_string()))?;
                    passed.native &= engine.compile_agal(&program).ir().is_some();
                }
            }
            (Err(w), Err(g)) if w.to_string() == g.to_string() => {}
            (w, g) => {
                return Err(fail(format!(
                    "interpreter: {}; engine: {}",
                    w.as_ref().map_or_else(|e| e.to_string(), |_| "ran".into()),
                    g.as_ref().map_or_else(|e| e.to_string(), |_| "ran".into())
                )))
            }
        }
    }
    passed.native &= passed.valid;
    if let (Ok(w), true) = (&want, backends.contains(&Backend::Interp)) {
        if let Some(got) = eval_agal_case(case) {
            let fail = |summary: String| AgalFailure {
                backend: Backend::Interp,
                summary: format!("IR evaluator: {summary}"),
            };
            let got = got.map_err(|e| fail(e.to_string()))?;
            if let Some(d) = difference(w, &got) {
                return Err(fail(d));
            }
            passed.evaluated = true;
        }
    }
    Ok(passed)
}

/// Runs `case`'s lowered IR on the IR evaluator ([`crate::frontend::eval`]), segment after
/// segment with the host's samples between them ([`lower::Sample::apply`]), in batches of
/// [`MAX_LANES`] items with one instance id: `None` when the program does not lower (or the
/// case is refused), else the outputs in the interpreter's shape.
pub fn eval_agal_case(case: &AgalCase) -> Option<Result<Outputs, crate::agal::case::CaseRunError>> {
    let (program, textures) = match case.prepare() {
        Ok(p) => p,
        Err(e) => return Some(Err(e)),
    };
    let lowered = lower::lower(&program).ok()?;
    Some(Ok(match &case.inputs {
        Inputs::Vertices(vs) => {
            let mut out = Vec::with_capacity(vs.len());
            let mut start = 0;
            while start < vs.len() {
                let id = vs[start].instance_id;
                let end = vs[start..]
                    .iter()
                    .position(|v| v.instance_id != id)
                    .map_or(vs.len(), |k| start + k);
                let ins: Vec<Regs16> = vs[start..end].iter().map(|v| v.attributes).collect();
                let regs = eval_lowered(&lowered, &program, &case.constants, id, &textures, &ins);
                out.extend(regs.iter().map(|r| VertexOut {
                    position: r[0],
                    varyings: std::array::from_fn(|i| r[VARYING_OUTPUT as usize + i]),
                }));
                start = end;
            }
            Outputs::Vertices(out)
        }
        Inputs::Quads(qs) => {
            let ins: Vec<Regs16> = qs
                .iter()
                .flatten()
                .map(|f| std::array::from_fn(|r| f.varyings.get(r).copied().unwrap_or([0.0; 4])))
                .collect();
            let regs = eval_lowered(&lowered, &program, &case.constants, 0, &textures, &ins);
            Outputs::Fragments(
                regs.iter()
                    .map(|r| FragmentOut {
                        colors: std::array::from_fn(|c| r[c]),
                        depth: r[DEPTH_OUTPUT as usize][0],
                        killed: r[KILL_OUTPUT as usize][0] != 0.0,
                    })
                    .collect(),
            )
        }
    }))
}

/// The segments of `lowered` on the IR evaluator over `inputs` (whole quads for a fragment
/// program), the host sampling between them; the outputs as the last segment stores them
/// (zero elsewhere).
fn eval_lowered(
    lowered: &Lowered,
    program: &Program,
    constants: &[[f32; 4]],
    instance_id: u32,
    textures: &dyn Textures,
    inputs: &[Regs16],
) -> Vec<Regs16> {
    let mut items = inputs.to_vec();
    for (k, func) in lowered.segments.iter().enumerate() {
        let mut next = Vec::with_capacity(items.len());
        for chunk in items.chunks(MAX_LANES) {
            let mut ctx = Box::<Context>::default();
            let n = constants
                .len()
                .min(program.constant_count() as usize)
                .min(CONST_ENTRIES);
            ctx.constants[..n].copy_from_slice(&constants[..n]);
            ctx.uniforms[0] = [instance_id as f32; 4];
            for (l, regs) in chunk.iter().enumerate() {
                for (r, reg) in regs.iter().enumerate() {
                    for (c, &x) in reg.iter().enumerate() {
                        ctx.input[r][c].0[l] = x;
                    }
                }
            }
            crate::frontend::eval::eval(func, &mut ctx, chunk.len());
            next.extend((0..chunk.len()).map(|l| -> Regs16 {
                std::array::from_fn(|r| std::array::from_fn(|c| ctx.output[r][c].0[l]))
            }));
        }
        items = next;
        if let Some(s) = lowered.samples.get(k) {
            s.apply(textures, &mut items);
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_of_seeds_passes_on_the_native_backends() {
        let engines = Backend::available();
        let (mut valid, mut native) = (0, 0);
        for seed in 0..400 {
            let case = agal_case(seed);
            let p = check_agal(&case, &engines)
                .unwrap_or_else(|f| panic!("seed {seed} on {}: {}", f.backend.name(), f.summary));
            valid += usize::from(p.valid);
            native += usize::from(p.native);
        }
        // Three in four are valid by construction; random bytecode rarely is.
        assert!((250..350).contains(&valid), "{valid}");
        assert!(native >= 250, "{native}");
    }
}
