//! The IR evaluator: executes a [`Function`] on a batch [`Context`] exactly as the native
//! backends must (the third engine of the differential tests, and the reference the backends
//! are checked against).
//!
//! Model: one batch of `lanes` lanes runs from block 0. Variables are per-lane 32-bit values
//! (F32 bits, masks as all-ones/all-zeros, I32), zero before their first write. `Input` loads
//! `ctx.input[r][c]`, `Output` stores `ctx.output[r][c]` (for the batch's lanes), `Uniform`
//! reads `ctx.uniforms[idx][comp]`; `UniformAl` / `UniformIdx` add aL / the lane's I32 offset
//! by the PICA rule (an offset outside `[-128, 127]` counts as 0; the index wraps with
//! `& 0x7F`). Control state (aL, the loop slots, bools, ints, budget, status) is batch-scalar:
//! `LoopPush`, `AlInc`, `AlRestore`, `LoopNext` and `Budget` act on `ctx.scalars` as their
//! docs in the op table say, `BranchUniform` tests lane 0, `Exit` stops with the status left
//! as it is (the host sets it to 0), `Budget` with no unit left sets status 1 in every lane and stops,
//! `BranchAny` tests every lane.
//!
//! The math is [`crate::float`]'s: `PMul` = `pmul`, `Max`/`Min`, `Floor` = `flr`, `Rcp`,
//! `Rsq`, `Ex2`, `Lg2`, `FtoiSat` = `mova_trunc`; `Div` and `Sqrt` are IEEE `/` and `sqrt`;
//! `Cmp` is [`CmpKind::eval`]; `Sin`, `Cos`, `Pow` are AGAL's (`agal::interp::math`);
//! `QuadDiff` subtracts within each group of four lanes (a quad whose lanes run past the
//! batch reads 0 there). `Const` reads `ctx.constants[idx][comp]`; `ConstIdx` adds the
//! lane's I32 to its immediate (wrapping) and reads +0.0 outside `0..CONST_ENTRIES`.
//!
//! Immediates are masked to their fields' ranges, so a verified function never makes the
//! evaluator panic. It terminates whenever every CFG cycle spends budget
//! ([`picajit_codegen::opt::budget_bounds_cycles`], true of every function the frontend emits).

use picajit_codegen::abi::{
    self, Context, Triangle, TriangleMasks, CONST_ENTRIES, LOOP_SLOTS, MAX_LANES,
};
use picajit_codegen::ir::{CmpKind, Function, Inst, Op, Terminator};

use crate::agal::interp::math as agal_math;
use crate::float;
use crate::interp::{Invocation, Primitive};
use crate::program::{Regs16, Uniforms, VertexStatus, FLOAT_UNIFORMS};

type Lanes = [u32; MAX_LANES];

const TRUE: u32 = u32::MAX;

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

fn mask(b: bool) -> u32 {
    if b {
        TRUE
    } else {
        0
    }
}

/// The PICA relative-address rule.
fn rel_index(base: u32, offset: i32) -> usize {
    let offset = if (-128..=127).contains(&offset) {
        offset
    } else {
        0
    };
    ((base as i32).wrapping_add(offset) & 0x7F) as usize
}

struct Machine<'a> {
    ctx: &'a mut Context,
    vars: Vec<Lanes>,
    lanes: usize,
    /// Triangles recorded: emitter slots 0, 1, 2 and the record's lane masks.
    triangles: Vec<(Box<Triangle>, TriangleMasks)>,
}

impl Machine<'_> {
    fn lane_map(&mut self, inst: &Inst, g: impl Fn(&[u32; 3], usize) -> u32) {
        let Some(d) = inst.dst else { return };
        let args = inst.uses();
        let mut out = [0u32; MAX_LANES];
        for (l, o) in out.iter_mut().enumerate().take(self.lanes) {
            let mut a = [0u32; 3];
            for (n, v) in args.iter().enumerate() {
                a[n] = self.vars[v.0 as usize][l];
            }
            *o = g(&a, l);
        }
        self.vars[d.0 as usize] = out;
    }

    /// Executes one instruction; false if the batch stops (budget exhausted).
    fn exec(&mut self, inst: &Inst) -> bool {
        let [i0, i1] = inst.imm;
        let comp = i1 as usize & 3;
        match inst.op {
            Op::FConst => self.lane_map(inst, |_, _| i0),
            Op::Uniform => {
                let v = self.ctx.uniforms[i0 as usize & 0x7F][comp].to_bits();
                self.lane_map(inst, |_, _| v);
            }
            Op::UniformAl => {
                let idx = rel_index(i0, self.ctx.scalars.al);
                let v = self.ctx.uniforms[idx][comp].to_bits();
                self.lane_map(inst, |_, _| v);
            }
            Op::UniformIdx => {
                let table = self.ctx.uniforms;
                self.lane_map(inst, |a, _| {
                    table[rel_index(i0, a[0] as i32)][comp].to_bits()
                });
            }
            Op::Const => {
                let v = self.ctx.constants[(i0 as usize).min(CONST_ENTRIES)][comp].to_bits();
                self.lane_map(inst, |_, _| v);
            }
            Op::ConstIdx => {
                let table = &self.ctx.constants;
                let v: Vec<u32> = (0..self.lanes)
                    .map(|l| {
                        let e =
                            (self.vars[inst.args[0].0 as usize][l] as i32).wrapping_add(i0 as i32);
                        if (0..CONST_ENTRIES as i32).contains(&e) {
                            table[e as usize][comp].to_bits()
                        } else {
                            0
                        }
                    })
                    .collect();
                self.lane_map(inst, |_, l| v[l]);
            }
            Op::Input => {
                let src = self.ctx.input[i0 as usize & 15][comp];
                self.lane_map(inst, |_, l| src.0[l].to_bits());
            }
            Op::Output => {
                let v = self.vars[inst.args[0].0 as usize];
                let dst = &mut self.ctx.output[i0 as usize & 15][comp];
                for (d, &x) in dst.0.iter_mut().zip(&v).take(self.lanes) {
                    *d = f(x);
                }
            }
            Op::Mov | Op::MaskMov | Op::IMov => self.lane_map(inst, |a, _| a[0]),
            Op::Neg => self.lane_map(inst, |a, _| a[0] ^ 0x8000_0000),
            Op::Abs => self.lane_map(inst, |a, _| a[0] & 0x7FFF_FFFF),
            Op::Add => self.lane_map(inst, |a, _| (f(a[0]) + f(a[1])).to_bits()),
            Op::Mul => self.lane_map(inst, |a, _| (f(a[0]) * f(a[1])).to_bits()),
            Op::PMul => self.lane_map(inst, |a, _| float::pmul(f(a[0]), f(a[1])).to_bits()),
            Op::Max => self.lane_map(inst, |a, _| float::max(f(a[0]), f(a[1])).to_bits()),
            Op::Min => self.lane_map(inst, |a, _| float::min(f(a[0]), f(a[1])).to_bits()),
            Op::Div => self.lane_map(inst, |a, _| (f(a[0]) / f(a[1])).to_bits()),
            Op::Sqrt => self.lane_map(inst, |a, _| f(a[0]).sqrt().to_bits()),
            Op::Floor => self.lane_map(inst, |a, _| float::flr(f(a[0])).to_bits()),
            Op::Rcp => self.lane_map(inst, |a, _| float::rcp(f(a[0])).to_bits()),
            Op::Rsq => self.lane_map(inst, |a, _| float::rsq(f(a[0])).to_bits()),
            Op::Ex2 => self.lane_map(inst, |a, _| float::ex2(f(a[0])).to_bits()),
            Op::Lg2 => self.lane_map(inst, |a, _| float::lg2(f(a[0])).to_bits()),
            Op::Sin => self.lane_map(inst, |a, _| agal_math::sin(f(a[0])).to_bits()),
            Op::Cos => self.lane_map(inst, |a, _| agal_math::cos(f(a[0])).to_bits()),
            Op::Pow => self.lane_map(inst, |a, _| agal_math::pow(f(a[0]), f(a[1])).to_bits()),
            Op::QuadDiff => {
                let a = self.vars[inst.args[0].0 as usize];
                let x = i0 == 0;
                let lanes = self.lanes;
                self.lane_map(inst, |_, l| {
                    let q = l & !3;
                    let (from, to) = if x {
                        (l & 2, (l & 2) | 1)
                    } else {
                        (l & 1, 2 | (l & 1))
                    };
                    let (from, to) = (q + from, q + to);
                    if to < lanes {
                        (f(a[to]) - f(a[from])).to_bits()
                    } else {
                        0
                    }
                });
            }
            Op::Cmp => {
                let kind = CmpKind::from_imm(i0);
                self.lane_map(inst, |a, _| mask(kind.eval(f(a[0]), f(a[1]))));
            }
            Op::Select => self.lane_map(inst, |a, _| if a[0] != 0 { a[1] } else { a[2] }),
            Op::MaskConst => self.lane_map(inst, |_, _| mask(i0 != 0)),
            Op::MaskAnd => self.lane_map(inst, |a, _| a[0] & a[1]),
            Op::MaskOr => self.lane_map(inst, |a, _| a[0] | a[1]),
            Op::MaskNot => self.lane_map(inst, |a, _| !a[0]),
            Op::FtoiSat => self.lane_map(inst, |a, _| float::mova_trunc(f(a[0])) as u32),
            Op::IConst => self.lane_map(inst, |_, _| i0),
            Op::LoopPush => {
                let s = &mut self.ctx.scalars;
                let slot = i0 as usize % LOOP_SLOTS;
                let [count, start, step, _] = s.ints[i1 as usize & 3];
                s.loop_saved_al[slot] = s.al;
                s.loop_down[slot] = u32::from(count);
                s.loop_inc[slot] = i32::from(step);
                s.al = i32::from(start);
            }
            Op::AlInc => {
                let s = &mut self.ctx.scalars;
                s.al = s.al.wrapping_add(s.loop_inc[i0 as usize % LOOP_SLOTS]);
            }
            Op::AlRestore => {
                let s = &mut self.ctx.scalars;
                s.al = s.loop_saved_al[i0 as usize % LOOP_SLOTS];
            }
            Op::Budget => {
                let s = &mut self.ctx.scalars;
                if s.budget == 0 {
                    s.status = abi::all_exhausted(self.lanes);
                    return false;
                }
                s.budget -= 1;
            }
            Op::IAdd => self.lane_map(inst, |a, _| a[0].wrapping_add(a[1])),
            Op::IEq => self.lane_map(inst, |a, _| mask(a[0] == a[1])),
            Op::ISelect => self.lane_map(inst, |a, _| if a[0] != 0 { a[1] } else { a[2] }),
            Op::ILt => self.lane_map(inst, |a, _| mask((a[0] as i32) < (a[1] as i32))),
            Op::LaneMin => {
                let v = self.vars[inst.args[0].0 as usize][..self.lanes]
                    .iter()
                    .map(|&x| x as i32)
                    .min()
                    .unwrap_or(0) as u32;
                self.lane_map(inst, |_, _| v);
            }
            Op::MaskAndNot => self.lane_map(inst, |a, _| a[0] & !a[1]),
            Op::IntUniform => {
                let v = u32::from(self.ctx.scalars.ints[i0 as usize & 3][i1 as usize % 3]);
                self.lane_map(inst, |_, _| v);
            }
            Op::BoolMask => {
                let set = self.ctx.scalars.bools.checked_shr(i0).unwrap_or(0) & 1 != 0;
                self.lane_map(inst, |_, _| mask(set));
            }
            Op::BudgetLanes => {
                let v = self.ctx.io.budget;
                self.lane_map(inst, |_, _| v);
            }
            Op::UniformLead => {
                let (off, m) = (inst.args[0].0 as usize, inst.args[1].0 as usize);
                let lead = (0..self.lanes).find(|&l| self.vars[m][l] != 0).unwrap_or(0);
                let idx = rel_index(i0, self.vars[off][lead] as i32);
                let v = self.ctx.uniforms[idx][comp].to_bits();
                self.lane_map(inst, |_, _| v);
            }
            Op::Retire => {
                let m = self.vars[inst.args[0].0 as usize];
                for l in (0..self.lanes).filter(|&l| m[l] != 0) {
                    for (reg, out) in self.ctx.retired.iter_mut().zip(&self.ctx.output) {
                        for (c, o) in reg.iter_mut().zip(out) {
                            c.0[l] = o.0[l];
                        }
                    }
                    if i0 == 1 {
                        self.ctx.scalars.status |= 1 << l;
                    }
                }
            }
            Op::EmitSlot => {
                let m = self.vars[inst.args[0].0 as usize];
                let slot = &mut self.ctx.emit_slots[i0 as usize & 3];
                for l in (0..self.lanes).filter(|&l| m[l] != 0) {
                    for (reg, out) in slot.iter_mut().zip(&self.ctx.output) {
                        for (c, o) in reg.iter_mut().zip(out) {
                            c.0[l] = o.0[l];
                        }
                    }
                }
            }
            Op::EmitTri => {
                let bits = |v: &Lanes| {
                    (0..self.lanes)
                        .filter(|&l| v[l] != 0)
                        .fold(0u16, |b, l| b | 1 << l)
                };
                let lanes = bits(&self.vars[inst.args[0].0 as usize]);
                let winding = bits(&self.vars[inst.args[1].0 as usize]);
                if lanes != 0 {
                    let s = &self.ctx.emit_slots;
                    self.triangles
                        .push((Box::new([s[0], s[1], s[2]]), [lanes, winding]));
                }
            }
        }
        true
    }
}

/// Runs `func` on the first `lanes` lanes of `ctx` (at most [`MAX_LANES`]); afterwards
/// `ctx.output` holds the outputs (a geometry shader's current bank).
pub fn eval(func: &Function, ctx: &mut Context, lanes: usize) {
    eval_geometry(func, ctx, lanes);
}

/// [`eval`], returning the triangle records a geometry shader made (emitter slots 0, 1, 2 for
/// every lane, and the lanes each record belongs to, [`TriangleMasks`]), in order.
pub fn eval_geometry(
    func: &Function,
    ctx: &mut Context,
    lanes: usize,
) -> Vec<(Box<Triangle>, TriangleMasks)> {
    let mut m = Machine {
        ctx,
        vars: vec![[0; MAX_LANES]; func.vars.len()],
        lanes: lanes.min(MAX_LANES),
        triangles: Vec::new(),
    };
    run_blocks(func, &mut m);
    if func.retires_lanes() {
        m.ctx.output = m.ctx.retired;
    }
    m.triangles
}

fn run_blocks(func: &Function, m: &mut Machine) {
    if func.blocks.is_empty() {
        return;
    }
    let mut b = 0usize;
    loop {
        let block = &func.blocks[b];
        for inst in &block.insts {
            if !m.exec(inst) {
                return;
            }
        }
        b = match block.term {
            Terminator::Jump(t) => t.0 as usize,
            Terminator::BranchBool { id, then, other } => {
                let set = m.ctx.scalars.bools.checked_shr(u32::from(id)).unwrap_or(0) & 1 != 0;
                if set { then } else { other }.0 as usize
            }
            Terminator::BranchUniform { mask, then, other } => {
                if m.vars[mask.0 as usize][0] != 0 {
                    then.0 as usize
                } else {
                    other.0 as usize
                }
            }
            Terminator::BranchAny { mask, then, other } => {
                let lanes = &m.vars[mask.0 as usize][..m.lanes];
                if lanes.iter().any(|&x| x != 0) {
                    then.0 as usize
                } else {
                    other.0 as usize
                }
            }
            Terminator::LoopNext { slot, repeat, exit } => {
                let down = &mut m.ctx.scalars.loop_down[slot as usize % LOOP_SLOTS];
                if *down != 0 {
                    *down -= 1;
                    repeat.0 as usize
                } else {
                    exit.0 as usize
                }
            }
            Terminator::Exit => return,
        };
    }
}

/// A batch context for `uniforms` and `budget`: c0..c95 then ones, bools, ints, budget,
/// status 0; inputs and outputs zero.
pub fn context(uniforms: &Uniforms, budget: u32) -> Context {
    let mut ctx = Context::default();
    ctx.uniforms[..FLOAT_UNIFORMS].copy_from_slice(&uniforms.f);
    ctx.scalars.bools = u32::from(uniforms.b);
    ctx.scalars.ints = uniforms.i;
    ctx.scalars.budget = budget;
    ctx.io.budget = budget;
    ctx.scalars.status = 0;
    ctx
}

/// Runs `func` on any number of vertices, [`MAX_LANES`] at a time, each batch from a fresh
/// context (outputs zeroed, the full `budget`): the outputs and status of every vertex, in the
/// shape the interpreter's batch API produces. A batch's status applies to all its lanes.
pub fn run(
    func: &Function,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
) -> Vec<(Regs16, VertexStatus)> {
    let mut out = Vec::with_capacity(inputs.len());
    for chunk in inputs.chunks(MAX_LANES) {
        let mut ctx = context(uniforms, budget);
        for (l, vertex) in chunk.iter().enumerate() {
            for (r, reg) in vertex.iter().enumerate() {
                for (c, &x) in reg.iter().enumerate() {
                    ctx.input[r][c].0[l] = x;
                }
            }
        }
        eval(func, &mut ctx, chunk.len());
        let word = ctx.scalars.status;
        for l in 0..chunk.len() {
            let regs: Regs16 =
                std::array::from_fn(|r| std::array::from_fn(|c| ctx.output[r][c].0[l]));
            let exhausted = word >> l & 1 != 0;
            let status = if exhausted {
                VertexStatus::BudgetExhausted
            } else {
                VertexStatus::Ended
            };
            out.push((regs, status));
        }
    }
    out
}

/// [`run`] for a geometry shader: per vertex its outputs, status and triangles, in the shape
/// of [`Interpreter::run_vertex`](crate::interp::Interpreter::run_vertex). Each batch's
/// triangle records are gathered per lane: the records naming the lane, in record order.
pub fn run_geometry(
    func: &Function,
    uniforms: &Uniforms,
    inputs: &[Regs16],
    budget: u32,
) -> Vec<Invocation> {
    let mut out = Vec::with_capacity(inputs.len());
    for chunk in inputs.chunks(MAX_LANES) {
        let mut ctx = context(uniforms, budget);
        for (l, vertex) in chunk.iter().enumerate() {
            for (r, reg) in vertex.iter().enumerate() {
                for (c, &x) in reg.iter().enumerate() {
                    ctx.input[r][c].0[l] = x;
                }
            }
        }
        let records = eval_geometry(func, &mut ctx, chunk.len());
        let word = ctx.scalars.status;
        for l in 0..chunk.len() {
            let lane = |bank: &[[abi::Lanes; 4]; 16]| -> Regs16 {
                std::array::from_fn(|r| std::array::from_fn(|c| bank[r][c].0[l]))
            };
            let primitives = records
                .iter()
                .filter(|(_, m)| m[0] >> l & 1 != 0)
                .map(|(tri, m)| Primitive {
                    vertices: std::array::from_fn(|k| lane(&tri[k])),
                    winding: m[1] >> l & 1 != 0,
                })
                .collect();
            out.push(Invocation {
                outputs: lane(&ctx.output),
                status: if word >> l & 1 != 0 {
                    VertexStatus::BudgetExhausted
                } else {
                    VertexStatus::Ended
                },
                primitives,
            });
        }
    }
    out
}

/// What `func` computes from random uniforms and eight random vertices drawn from `seed`
/// (with its triangles, for a geometry shader), as debug text: exact, but any NaN equal to any
/// NaN.
#[cfg(test)]
pub(super) fn outcome(func: &Function, geometry: bool, seed: u64) -> String {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut u = Uniforms::default();
    for x in u.f.iter_mut().flatten() {
        *x = rng.f32() * 4.0 - 2.0;
    }
    let inputs: Vec<Regs16> = (0..8)
        .map(|_| std::array::from_fn(|_| std::array::from_fn(|_| rng.f32() * 8.0 - 4.0)))
        .collect();
    let budget = crate::interp::DEFAULT_BUDGET;
    if geometry {
        format!("{:?}", run_geometry(func, &u, &inputs, budget))
    } else {
        format!("{:?}", run(func, &u, &inputs, budget))
    }
}
