//! A geometry case's triangles in the check: each invocation's against the interpreter's
//! ([`compare_triangles`]), and the deliberate [`Fault`] the fuzzer's self-test plants in them.

use super::{same, Diff, Difference, Io, Outcome, MAX_DIFFS};
use crate::engine::GeometryOutput;

/// A deliberate corruption of every backend's geometry results, for testing the fuzzer itself
/// (`picajit fuzz-worker` takes it from `PICAJIT_FUZZ_FAULT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Fault {
    /// None: the real check.
    #[default]
    None,
    /// The winding of each invocation's first triangle is flipped.
    Winding,
}

impl Fault {
    /// The fault of a name (`none`, `winding`).
    pub fn from_name(name: &str) -> Option<Fault> {
        match name {
            "" | "none" => Some(Fault::None),
            "winding" => Some(Fault::Winding),
            _ => None,
        }
    }

    pub(super) fn apply(self, out: &mut GeometryOutput) {
        match self {
            Fault::None => {}
            Fault::Winding => {
                for i in 0..out.len() {
                    if out.first[i] < out.first[i + 1] {
                        let t = &mut out.primitives[out.first[i]];
                        t.winding = !t.winding;
                    }
                }
            }
        }
    }
}

/// Each invocation's triangles against the interpreter's: their number, then each one's
/// winding and its three vertices' components (NaN equals NaN).
pub(super) fn compare_triangles(
    io: Io,
    want: &Outcome,
    got: &GeometryOutput,
    diffs: &mut Vec<Difference>,
) {
    if got.first.len() != want.triangles.len() + 1 {
        diffs.push(Difference {
            io,
            vertex: 0,
            what: Diff::Result {
                detail: format!(
                    "returned triangles of {} invocations for {}",
                    got.first.len().saturating_sub(1),
                    want.triangles.len()
                ),
            },
        });
        return;
    }
    for (v, want) in want.triangles.iter().enumerate() {
        let mine = got.primitives_of(v);
        if mine.len() != want.len() {
            diffs.push(Difference {
                io,
                vertex: v,
                what: Diff::Triangles {
                    want: want.len(),
                    got: mine.len(),
                },
            });
            continue;
        }
        for (t, (a, b)) in want.iter().zip(mine).enumerate() {
            if a.winding != b.winding {
                diffs.push(Difference {
                    io,
                    vertex: v,
                    what: Diff::Winding {
                        triangle: t,
                        want: a.winding,
                        got: b.winding,
                    },
                });
            }
            for (slot, (x, y)) in a.vertices.iter().zip(&b.vertices).enumerate() {
                for (k, (p, q)) in x.iter().flatten().zip(y.iter().flatten()).enumerate() {
                    if !same(*p, *q) {
                        diffs.push(Difference {
                            io,
                            vertex: v,
                            what: Diff::TriangleVertex {
                                triangle: t,
                                slot,
                                reg: k / 4,
                                comp: k % 4,
                                want: p.to_bits(),
                                got: q.to_bits(),
                            },
                        });
                    }
                }
            }
            if diffs.len() >= MAX_DIFFS {
                return;
            }
        }
    }
}
