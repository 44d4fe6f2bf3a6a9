//! Tests of the comparison (outputs, statuses, results, triangles) and of whole checks on
//! generated vertex and geometry cases.

use super::*;

#[test]
fn alternate_uniforms_flip_every_kind() {
    let mut u = Uniforms::default();
    u.f[0] = [1.0, 0.0, f32::NAN, -3.0];
    u.f[1] = [f32::INFINITY, -0.0, 1e-45, 5.0];
    u.b = 0x00F0;
    let alt = alternate(&u);
    for (a, x) in alt.f.iter().flatten().zip(u.f.iter().flatten()) {
        let safe = |v: f32| v.is_finite() && v != 0.0;
        assert_ne!(safe(*a), safe(*x), "{x} → {a}");
    }
    assert_eq!(alt.b, 0xFF0F);
    assert_eq!(alt.i, u.i);
}

#[test]
fn compare_reports_outputs_statuses_and_results() {
    let want = Outcome {
        outputs: vec![[[0.0f32; 4]; 16]; 3],
        status: vec![
            VertexStatus::Ended,
            VertexStatus::BudgetExhausted,
            VertexStatus::Ended,
        ],
        triangles: vec![Vec::new(); 3],
    };
    let mut outputs = want.outputs.clone();
    outputs[2][5][1] = 1.0;
    outputs[0][0][0] = f32::NAN;
    let mut diffs = Vec::new();
    let ok = Err(RunError::BudgetExhausted {
        vertex: 1,
        count: 1,
        budget: 9,
    });
    compare(Io::Aos, &want, &outputs, &want.status, &ok, &mut diffs);
    assert_eq!(diffs.len(), 2, "{diffs:?}");
    assert_eq!(
        diffs[1].what,
        Diff::Output {
            reg: 5,
            comp: 1,
            want: 0,
            got: 1.0f32.to_bits()
        }
    );
    // A NaN of another payload is the same; a different status or result is not.
    let mut want_nan = want.clone();
    want_nan.outputs[0][0][0] = f32::from_bits(0xFFC0_0001);
    let mut status = want.status.clone();
    status[2] = VertexStatus::BudgetExhausted;
    let mut diffs = Vec::new();
    compare(Io::Soa, &want_nan, &outputs, &status, &Ok(()), &mut diffs);
    let kinds: Vec<String> = diffs.iter().map(describe).collect();
    assert_eq!(diffs.len(), 3, "{kinds:?}");
    assert!(matches!(diffs[0].what, Diff::Status { .. }));
    assert!(matches!(diffs[2].what, Diff::Result { .. }));
    // Fewer results than invocations is one difference, not a panic.
    let mut diffs = Vec::new();
    compare(Io::Aos, &want, &outputs[..2], &want.status, &ok, &mut diffs);
    assert!(matches!(
        diffs[..],
        [Difference {
            what: Diff::Result { .. },
            ..
        }]
    ));
}

/// A triangle with every component distinct (a NaN among them).
fn triangle(seed: u32, winding: bool) -> Primitive {
    Primitive {
        vertices: std::array::from_fn(|k| {
            std::array::from_fn(|r| {
                std::array::from_fn(|c| {
                    let i = seed + (k * 64 + r * 4 + c) as u32;
                    if i == 7 {
                        f32::from_bits(0x7FC0_0007)
                    } else {
                        i as f32
                    }
                })
            })
        }),
        winding,
    }
}

fn geometry_output(triangles: &[Vec<Primitive>]) -> GeometryOutput {
    let mut out = GeometryOutput::default();
    out.first.push(0);
    for mine in triangles {
        out.outputs.push([[0.0; 4]; 16]);
        out.status.push(VertexStatus::Ended);
        out.primitives.extend(mine.iter().cloned());
        out.first.push(out.primitives.len());
    }
    out
}

#[test]
fn compare_triangles_reports_counts_windings_and_components() {
    let want = Outcome {
        outputs: vec![[[0.0; 4]; 16]; 3],
        status: vec![VertexStatus::Ended; 3],
        triangles: vec![
            vec![triangle(0, false), triangle(1000, true)],
            vec![],
            vec![triangle(2000, false)],
        ],
    };
    // The same triangles (another NaN payload) agree.
    let mut same_nan = want.triangles.clone();
    same_nan[0][0].vertices[0][1][3] = f32::from_bits(0xFFC0_1234);
    let mut diffs = Vec::new();
    compare_triangles(Io::Geometry, &want, &geometry_output(&same_nan), &mut diffs);
    assert_eq!(diffs, vec![]);
    // Each kind of difference is found where it is.
    let mut got = want.triangles.clone();
    got[0][1].winding = false;
    got[2][0].vertices[2][15][1] = -0.0;
    got[1].push(triangle(5, true));
    let mut diffs = Vec::new();
    compare_triangles(Io::Geometry, &want, &geometry_output(&got), &mut diffs);
    let what: Vec<(usize, Diff)> = diffs.iter().map(|d| (d.vertex, d.what.clone())).collect();
    assert_eq!(
        what,
        vec![
            (
                0,
                Diff::Winding {
                    triangle: 1,
                    want: true,
                    got: false
                }
            ),
            (1, Diff::Triangles { want: 0, got: 1 }),
            (
                2,
                Diff::TriangleVertex {
                    triangle: 0,
                    slot: 2,
                    reg: 15,
                    comp: 1,
                    want: (2000.0f32 + 189.0).to_bits(),
                    got: (-0.0f32).to_bits()
                }
            ),
        ]
    );
    assert!(describe(&diffs[0]).contains("triangle 1 winding inverted (interp) vs normal"));
    assert!(describe(&diffs[2]).contains("triangle 0 vertex 2 o15.y"));
    // Triangles of fewer invocations than there are.
    let mut diffs = Vec::new();
    compare_triangles(Io::Geometry, &want, &geometry_output(&got[..2]), &mut diffs);
    assert!(matches!(
        diffs[..],
        [Difference {
            what: Diff::Result { .. },
            ..
        }]
    ));
}

#[test]
fn generated_geometry_cases_pass_and_a_winding_fault_fails_them() {
    let cfg = crate::fuzz::Config::default();
    let backends = Backend::runnable();
    let mut emitted = 0;
    let mut caught = 0;
    for seed in 0..24 {
        let case = crate::fuzz::generate_geometry(seed, &cfg);
        let passed = check(&case, &backends)
            .unwrap_or_else(|f| panic!("geometry seed {seed}: {}", f.summary()));
        let count = |u: &Uniforms| -> u64 {
            let r = reference(&case, u).unwrap();
            r.triangles.iter().map(|t| t.len() as u64).sum()
        };
        let triangles = count(&case.case.uniforms);
        assert_eq!(passed.triangles, Some(triangles), "seed {seed}");
        emitted += usize::from(triangles > 0);
        let faulty = check_with_fault(&case, &backends, Fault::Winding);
        if triangles + count(&alternate(&case.case.uniforms)) > 0 {
            // Flipping a winding on every backend is caught on the first one.
            let f = faulty.expect_err("a flipped winding must fail");
            assert_eq!(f.backend, backends[0]);
            let FailureKind::Mismatch(diffs) = &f.kind else {
                panic!("{}", f.summary())
            };
            assert!(diffs
                .iter()
                .all(|d| matches!(d.what, Diff::Winding { triangle: 0, .. })));
            caught += 1;
        } else {
            faulty.expect("no triangle, nothing to flip");
        }
    }
    assert!(emitted >= 6, "only {emitted} of 24 geometry cases emitted");
    assert!(caught >= emitted);
}

#[test]
fn a_generated_case_passes_on_every_backend() {
    let cfg = crate::fuzz::Config::default();
    for seed in 0..40 {
        let case = crate::fuzz::generate(seed, &cfg);
        if let Err(f) = check(&case, &Backend::runnable()) {
            panic!("seed {seed}: {}", f.summary());
        }
    }
}
