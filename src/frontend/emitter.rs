//! Geometry shaders' EMIT and SETEMIT, per lane: every lane has its own emitter state, its
//! own output banks and its own triangles, so an EMIT or SETEMIT under a per-vertex
//! condition (an if-converted arm, a masked region, the lane-position model) acts only for
//! the lanes that run it — exactly what the interpreter does for each invocation alone.
//!
//! # The model
//!
//! - **Emitter state** (SETEMIT's vertex id, primitive and winding flags) lives in three
//!   variables of the function: the vertex id (I32) and the two flags (masks). SETEMIT sets
//!   them in the lanes that run it (a blend under the lane mask), so lanes may hold different
//!   ids and flags.
//! - **Output banks.** The interpreter writes outputs to the current bank and EMIT switches to
//!   the other one (a component not written since the last EMIT keeps the value of the one
//!   before). Here every output component a geometry shader writes has a variable for its
//!   current value (stored to the output bank in memory at each write, as for any tracked
//!   output) and one for the other bank's value. EMIT swaps the two for the lanes that run it
//!   and stores the new current values: the bank in memory is always each lane's current bank,
//!   the other bank never reaches memory.
//! - **EMIT** becomes `EmitSlot` ×4 and `EmitTri`: for each emitter slot k, the lanes running
//!   the EMIT whose vertex id is k copy the bank into slot k (a slot no lane selects is
//!   skipped at run time); then the lanes running it whose primitive flag is set record the
//!   triangle of slots 0, 1, 2. Then the bank swap.
//! - **Triangle records.** A batch's triangles go to one buffer of lanes-wide records
//!   (`abi::Triangle`) counted batch-wide: an `EmitTri` with some lane set takes the next
//!   record and notes which lanes it belongs to and which of them wind the other way
//!   (`abi::TriangleMasks`). Lanes that emit at different times use different records; a
//!   lane's triangles are the records naming it, in record order — its emission order. The
//!   host gathers each lane's triangles that way (`engine::geometry`). A batch whose records
//!   overflow the buffer is rerun on the interpreter (exact, as before).
//! - **Known emitter states.** Where every path of the state graph to an EMIT comes through
//!   the same SETEMIT (or none), every lane running it has that vertex id and those flags,
//!   however the lanes were masked on the way ([`known_states`]): the EMIT then copies into
//!   that one slot and records a triangle only if the primitive flag is set, with no per-lane
//!   selection.
//! - **Which lanes.** An EMIT or SETEMIT runs for the lanes of its predicate (if-conversion,
//!   a masked region's mask, the lane-position model's `exec`), and never for a lane that
//!   has been retired (out of budget or ended): with the lane budget of masked regions it is
//!   limited to the live lanes, in the lane-position model to `exec`.

use picajit_codegen::ir::{Builder, Op, Ty, Var};

use crate::isa::{Fmt4, Instruction};

use super::build::Ctx;
use super::cons::Values;
use super::graph::{Graph, Target};

/// A geometry shader's per-lane emitter state and second output bank (see the module docs).
#[derive(Clone, Debug)]
pub(super) struct Emitter {
    /// Per tracked output component: its value in the other bank (F32).
    pub other: [[Option<Var>; 4]; 16],
    /// SETEMIT's vertex id (I32, 0..3).
    pub vertex: Var,
    /// SETEMIT's primitive flag (Mask).
    pub primitive: Var,
    /// SETEMIT's winding flag (Mask).
    pub winding: Var,
    /// Per state of the graph: the emitter state every invocation running it has, if it is
    /// the same on every path there ([`known_states`]).
    pub known: Vec<Option<Fmt4>>,
}

impl Emitter {
    /// Declares the variables for the tracked output components `tracked` (every component a
    /// geometry shader writes) and sets the start state: both banks 0.0, vertex id 0, flags
    /// clear (the interpreter's).
    ///
    /// Where the builder hash-conses (`values`), the variables point at the constants instead.
    pub fn new(b: &mut Builder, values: &mut Values, tracked: &[u8; 16], graph: &Graph) -> Emitter {
        let mut e = Emitter {
            other: std::array::from_fn(|n| {
                std::array::from_fn(|c| (tracked[n] >> c & 1 != 0).then(|| b.var(Ty::F32)))
            }),
            vertex: b.var(Ty::I32),
            primitive: b.var(Ty::Mask),
            winding: b.var(Ty::Mask),
            known: known_states(graph),
        };
        for v in e.other.iter_mut().flatten().flatten() {
            *v = values.leaf_to(b, Op::FConst, *v, [0.0f32.to_bits(), 0]);
        }
        e.vertex = values.leaf_to(b, Op::IConst, e.vertex, [0, 0]);
        e.primitive = values.leaf_to(b, Op::MaskConst, e.primitive, [0, 0]);
        e.winding = values.leaf_to(b, Op::MaskConst, e.winding, [0, 0]);
        e
    }
}

impl Ctx<'_> {
    /// The lanes an EMIT or SETEMIT under `pred` acts for (`None`: every lane): the predicate,
    /// limited to the lanes not retired.
    fn emitting(&mut self, pred: Option<Var>) -> Option<Var> {
        let running = match (&self.lanes, self.lane_budget) {
            (Some(l), _) => Some(l.exec),
            (None, Some(lb)) => Some(lb.live),
            (None, None) => None,
        };
        match (pred, running) {
            (Some(p), Some(r)) if p != r => Some(self.b.binary(Op::MaskAnd, p, r)),
            (Some(p), Some(_) | None) => Some(p),
            (None, r) => r,
        }
    }

    /// SETEMIT in the lanes of `pred`.
    pub(super) fn set_emit(&mut self, f: &Fmt4, pred: Option<Var>) {
        let Some(e) = &self.regs.emitter else {
            return;
        };
        let (vertex, primitive, winding) = (e.vertex, e.primitive, e.winding);
        let lanes = self.emitting(pred);
        let values = &mut self.scratch.values;
        let id = values.inst(&mut self.b, Op::IConst, &[], [u32::from(f.vertex & 3), 0]);
        if lanes.is_none() && self.regs.forward {
            // The state's variables point at the values, as the registers' do.
            let primitive =
                values.inst(&mut self.b, Op::MaskConst, &[], [u32::from(f.primitive), 0]);
            let winding = values.inst(&mut self.b, Op::MaskConst, &[], [u32::from(f.winding), 0]);
            if let Some(e) = &mut self.regs.emitter {
                (e.vertex, e.primitive, e.winding) = (id, primitive, winding);
            }
            return;
        }
        match lanes {
            None => self.b.inst_to(Op::IMov, vertex, &[id], [0, 0]),
            Some(m) => self
                .b
                .inst_to(Op::ISelect, vertex, &[m, id, vertex], [0, 0]),
        }
        for (var, set) in [(primitive, f.primitive), (winding, f.winding)] {
            match (lanes, set) {
                (None, set) => self.b.inst_to(Op::MaskConst, var, &[], [u32::from(set), 0]),
                (Some(m), true) => self.b.inst_to(Op::MaskOr, var, &[var, m], [0, 0]),
                (Some(m), false) => self.b.inst_to(Op::MaskAndNot, var, &[var, m], [0, 0]),
            }
        }
    }

    /// EMIT of state `s` in the lanes of `pred`: the bank into each lane's emitter slot, the
    /// triangle of the lanes whose primitive flag is set, then each lane's banks swapped.
    pub(super) fn emit(&mut self, s: usize, pred: Option<Var>) {
        let Some(mut e) = self.regs.emitter.take() else {
            return;
        };
        let lanes = self.emitting(pred);
        match e.known[s] {
            Some(f) => self.known_emit(&f, lanes),
            None => self.any_emit(&e, lanes),
        }
        self.swap_banks(&mut e, lanes);
        self.regs.emitter = Some(e);
    }

    /// EMIT where every lane has SETEMIT state `f`.
    fn known_emit(&mut self, f: &Fmt4, lanes: Option<Var>) {
        let all = match lanes {
            Some(m) => m,
            None => self
                .scratch
                .values
                .inst(&mut self.b, Op::MaskConst, &[], [1, 0]),
        };
        self.b
            .effect(Op::EmitSlot, &[all], [u32::from(f.vertex & 3), 0]);
        if f.primitive {
            let winding = if f.winding {
                all
            } else {
                self.scratch
                    .values
                    .inst(&mut self.b, Op::MaskConst, &[], [0, 0])
            };
            self.b.effect(Op::EmitTri, &[all, winding], [0, 0]);
        }
    }

    /// EMIT where lanes may hold different SETEMIT states: each slot for the lanes whose
    /// vertex id selects it, the triangle for those whose primitive flag is set.
    fn any_emit(&mut self, e: &Emitter, lanes: Option<Var>) {
        for k in 0..4 {
            let id = self.b.inst(Op::IConst, &[], [k, 0]);
            let at = self.b.binary(Op::IEq, e.vertex, id);
            let m = match lanes {
                Some(m) => self.b.binary(Op::MaskAnd, at, m),
                None => at,
            };
            self.b.effect(Op::EmitSlot, &[m], [k, 0]);
        }
        let primitive = match lanes {
            Some(m) => self.b.binary(Op::MaskAnd, e.primitive, m),
            None => self.b.unary(Op::MaskMov, e.primitive),
        };
        let winding = self.b.binary(Op::MaskAnd, primitive, e.winding);
        self.b.effect(Op::EmitTri, &[primitive, winding], [0, 0]);
    }

    /// The lanes' output banks swapped (the new current values stored). Where registers are
    /// forwarded (`Regs::forward`) and every lane swaps, the two entries trade values.
    fn swap_banks(&mut self, e: &mut Emitter, lanes: Option<Var>) {
        let forward = self.regs.forward && lanes.is_none();
        for (o, (cur, other)) in self.regs.o.iter_mut().zip(&mut e.other).enumerate() {
            for (c, (cur, other)) in cur.iter_mut().zip(other).enumerate() {
                let (Some(now), Some(then)) = (*cur, *other) else {
                    continue;
                };
                if forward {
                    (*cur, *other) = (Some(then), Some(now));
                    self.b.effect(Op::Output, &[then], [o as u32, c as u32]);
                    continue;
                }
                let old = self.b.unary(Op::Mov, now);
                match lanes {
                    None => {
                        self.b.inst_to(Op::Mov, now, &[then], [0, 0]);
                        self.b.inst_to(Op::Mov, then, &[old], [0, 0]);
                    }
                    Some(m) => {
                        self.b.inst_to(Op::Select, now, &[m, then, now], [0, 0]);
                        self.b.inst_to(Op::Select, then, &[m, old, then], [0, 0]);
                    }
                }
                self.b.effect(Op::Output, &[now], [o as u32, c as u32]);
            }
        }
    }
}

/// Per state of `graph`: SETEMIT's vertex id and flags when the state runs, where every path
/// from the entry brings the same (the start state, vertex 0 without flags, or the last
/// SETEMIT on the way); `None` where paths bring different ones or none reaches the state.
pub fn known_states(graph: &Graph) -> Vec<Option<Fmt4>> {
    /// What reaches a state: nothing yet, one emitter state, several.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Seen {
        Nothing,
        One(Fmt4),
        Several,
    }
    let mut at = vec![Seen::Nothing; graph.nodes.len()];
    let mut work = Vec::new();
    let reach = |x: usize, v: Seen, at: &mut Vec<Seen>, work: &mut Vec<usize>| {
        let joined = match (at[x], v) {
            (Seen::Nothing, v) | (v, Seen::Nothing) => v,
            (Seen::One(a), Seen::One(b)) if a == b => Seen::One(a),
            (Seen::One(_) | Seen::Several, Seen::One(_) | Seen::Several) => Seen::Several,
        };
        if joined != at[x] {
            at[x] = joined;
            work.push(x);
        }
    };
    if let Target::State(s) = graph.entry {
        reach(s, Seen::One(Fmt4::default()), &mut at, &mut work);
    }
    while let Some(s) = work.pop() {
        let node = &graph.nodes[s];
        let after = if let Instruction::Setemit(f) = node.instr {
            Seen::One(Fmt4 {
                vertex: f.vertex & 3,
                ..f
            })
        } else {
            at[s]
        };
        node.flow.each_target(&mut |t| {
            if let Target::State(x) = t {
                reach(x, after, &mut at, &mut work);
            }
            true
        });
    }
    at.into_iter()
        .map(|v| match v {
            Seen::One(f) => Some(f),
            Seen::Nothing | Seen::Several => None,
        })
        .collect()
}
