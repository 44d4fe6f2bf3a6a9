//! Texture sampling without calls out of generated code: a program is cut at each `tex` (and
//! `tld`) into segments, each its own IR function run over the whole batch; between two
//! segments the host samples the textures ([`Sample::apply`]: the [`Textures`] sampler called
//! with exactly the arguments the interpreter gives it — a 2×2 quad at a time for `tex`, one
//! vertex at a time for `tld`) in the buffer the first wrote and the second reads.
//!
//! # Why segments, not a call from generated code
//! The sampler is a Rust trait object ([`Textures`]): the interpreter's, or the user's. A call
//! out of generated code would need a host ABI trampoline per backend that saves and restores
//! every live SIMD register around the call, and it cannot work where the AArch64 code runs in
//! the qemu-user job server, a separate process that has no sampler. Segments keep every
//! function call-free (the same kernels, runners and audits as PICA shaders, on every
//! backend, qemu included) and sample through the one sampler, so exactness needs no second
//! implementation of the sampling rules. The price is a store and reload of the carried state
//! per item at each boundary: a few ns per fragment against the sampler's tens (`jit-bench`'s
//! `sampler` column gives the sampler's share; the README has the measurement).
//!
//! # The intermediate layout
//! A segment that ends at a `tex` stores, per fragment:
//! - register [`SAMPLE_REG`] (0): the swizzled coordinate (4 components); the host replaces it
//!   with the sampled texel, which the next segment reads there;
//! - registers [`CARRY_FIRST`]… : the carried state, 4 components per register, in the order
//!   of `Carried`: every register component that an instruction after the `tex` may read
//!   (a superset: every lane of every source's swizzle, whole matrix rows) and is bound
//!   (temporaries written so far, inputs, which are loaded now if not yet), every output
//!   component written so far, the `kil` flag, and the execution masks of open conditionals
//!   (as 1.0/0.0). At most [`CARRY_LIMIT`] components; a program that needs more is not
//!   lowered (it runs on the interpreter).
//!
//! The next segment starts from those inputs and the constants (which every segment reads from
//! the context). Each function is exact on its own, so the chain is exact.

use std::collections::BTreeSet;

use picajit_codegen::ir::{Builder, CmpKind, Op, Terminator, Var};

use super::{Lowering, Unsupported};
use crate::agal::header::ShaderKind;
use crate::agal::interp::{Lod, Textures};
use crate::agal::program::{Addr, Program, Sampling, Src};
use crate::agal::reg::RegType;
use crate::agal::sampling::SamplerState;
use crate::program::Regs16;

/// The register of the coordinate (out) and texel (in) between segments.
pub const SAMPLE_REG: u32 = 0;
/// The first register of the carried state.
pub const CARRY_FIRST: u32 = 1;
/// Components of carried state at most (registers 1–15).
pub const CARRY_LIMIT: usize = 60;

/// A texture sample between two segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The texture unit.
    pub unit: u16,
    /// The sampler flags of the `tex` token.
    pub state: SamplerState,
    /// How the level of detail is found.
    pub lod: SampleLod,
    /// Under a conditional: the register and component of the intermediate layout holding
    /// the execution mask (1.0 executing, 0.0 not); a quad (`tex`) or vertex (`tld`) with no
    /// executing lane is not sampled — its texel would not be written — as the interpreter
    /// skips it.
    pub exec: Option<(u32, u32)>,
}

/// The level of detail of a [`Sample`], as the interpreter computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleLod {
    /// `tex` (fragment programs): from the derivatives of each 2×2 quad's coordinates.
    Derivatives,
    /// `tld` (vertex programs): each vertex alone, the level of detail its coordinate's `.w`.
    Explicit,
}

impl Sample {
    /// The host's sample between two segments: the coordinates in register [`SAMPLE_REG`] of
    /// each item of `buffer` become the texels the sampler returns, called as the interpreter
    /// calls it — per 2×2 quad for `tex` (a trailing partial quad is left alone: fragment runs
    /// are whole quads; a quad with no executing lane is skipped), per vertex for `tld` (its coordinate in all four lanes, the explicit
    /// level of detail `.w`, lane 0's texel; four vertices at a time through
    /// [`Textures::sample_vertices`], which is that by definition).
    pub fn apply(&self, textures: &dyn Textures, buffer: &mut [Regs16]) {
        let r = SAMPLE_REG as usize;
        let idle = |item: &Regs16| {
            self.exec
                .is_some_and(|(er, ec)| item[er as usize][ec as usize] == 0.0)
        };
        match self.lod {
            SampleLod::Derivatives => {
                for quad in buffer.chunks_exact_mut(4) {
                    if quad.iter().all(idle) {
                        continue;
                    }
                    let coords: [[f32; 4]; 4] = std::array::from_fn(|l| quad[l][r]);
                    let texels = textures.sample(self.unit, &self.state, &coords, Lod::Derivatives);
                    for (item, t) in quad.iter_mut().zip(texels) {
                        item[r] = t;
                    }
                }
            }
            SampleLod::Explicit => {
                let mut chunks = buffer.chunks_exact_mut(4);
                for four in &mut chunks {
                    if four.iter().all(idle) {
                        continue;
                    }
                    let coords: [[f32; 4]; 4] = std::array::from_fn(|l| four[l][r]);
                    let texels = textures.sample_vertices(self.unit, &self.state, &coords);
                    for (item, t) in four.iter_mut().zip(texels) {
                        item[r] = t;
                    }
                }
                for item in chunks.into_remainder() {
                    if idle(item) {
                        continue;
                    }
                    let c = item[r];
                    let [t, ..] =
                        textures.sample(self.unit, &self.state, &[c; 4], Lod::Explicit([c[3]; 4]));
                    item[r] = t;
                }
            }
        }
    }
}

/// A register component: file code, register, component.
pub(super) type Component = (u8, u16, u8);

/// Register components read, as a set.
pub(super) type Reads = BTreeSet<Component>;

/// The components `s` may read (rows `0..rows`), every lane of its swizzle.
fn source_reads(s: &Src, rows: u16, out: &mut Reads) {
    match s.addr {
        Addr::Direct(r) => {
            for row in 0..rows {
                for c in 0..4 {
                    let comp = if rows > 1 { c } else { s.swizzle.lane(c) };
                    out.insert((r.file.code(), r.index + row, comp as u8));
                }
            }
        }
        Addr::Indirect { index, comp, .. } => {
            out.insert((index.file.code(), index.index, comp));
        }
    }
}

/// Per instruction, the components the instructions after it may read.
pub(super) fn reads_after(program: &Program) -> Vec<Reads> {
    let mut after = vec![Reads::new(); program.instructions.len()];
    let mut acc = Reads::new();
    for (n, i) in program.instructions.iter().enumerate().rev() {
        after[n] = acc.clone();
        let rows = i.op.matrix().map_or(1, |(r, _)| r);
        if let Some(s) = &i.src1 {
            source_reads(s, 1, &mut acc);
        }
        if let Some(s) = &i.src2 {
            source_reads(s, rows, &mut acc);
        }
    }
    after
}

/// One piece of carried state.
#[derive(Clone, Copy, Debug)]
enum Carried {
    /// A register component.
    Reg(Component),
    /// The `kil` flag.
    Killed,
    /// The execution mask.
    Exec,
    /// Open block `k`'s mask before it.
    Parent(usize),
    /// Open block `k`'s condition.
    Cond(usize),
}

impl Lowering {
    /// Ends the current segment at the `tex`/`tld` of instruction `n` (its coordinate
    /// `coords`) and starts the next one, whose inputs are the carried state and the texel.
    pub(super) fn sample_boundary(
        &mut self,
        n: usize,
        coords: [Var; 4],
        sampling: Sampling,
        lod: SampleLod,
    ) -> Result<(), Unsupported> {
        let reads = self.reads_after.get(n).cloned().unwrap_or_default();
        let mut carried: Vec<(Carried, Var)> = Vec::new();
        let mut regs: BTreeSet<Component> = BTreeSet::new();
        for &(file, index, comp) in &reads {
            let Some(f) = RegType::from_code(file) else {
                continue;
            };
            match f {
                RegType::Constant | RegType::Sampler | RegType::InstanceId => {}
                RegType::Attribute | RegType::Varying if self.reads_inputs(f) => {
                    regs.insert((file, index, comp));
                }
                RegType::Attribute
                | RegType::Varying
                | RegType::Temporary
                | RegType::Output
                | RegType::DepthOutput => {
                    if self.bound(file, index, comp).is_some() {
                        regs.insert((file, index, comp));
                    }
                }
            }
        }
        let outputs: &[RegType] = match self.kind {
            ShaderKind::Vertex => &[RegType::Output, RegType::Varying],
            ShaderKind::Fragment => &[RegType::Output, RegType::DepthOutput],
        };
        for &file in outputs {
            let code = file.code();
            for (index, reg) in self.regs[usize::from(code)].iter().enumerate() {
                for (comp, v) in reg.iter().enumerate() {
                    if v.is_some() {
                        regs.insert((code, index as u16, comp as u8));
                    }
                }
            }
        }
        for &(file, index, comp) in &regs {
            let f = RegType::from_code(file).unwrap_or(RegType::Temporary);
            let v = self.component(f, index, usize::from(comp));
            carried.push((Carried::Reg((file, index, comp)), v));
        }
        if let Some(k) = self.killed {
            carried.push((Carried::Killed, k));
        }
        let masks: Vec<(Carried, Var)> = self
            .exec
            .map(|m| (Carried::Exec, m))
            .into_iter()
            .chain(
                self.stack
                    .iter()
                    .enumerate()
                    .flat_map(|(k, &(parent, cond))| {
                        parent
                            .map(|p| (Carried::Parent(k), p))
                            .into_iter()
                            .chain([(Carried::Cond(k), cond)])
                    }),
            )
            .collect();
        for (what, m) in masks {
            let one = self.b.fconst(1.0);
            let zero = self.zero();
            carried.push((what, self.b.select(m, one, zero)));
        }
        if carried.len() > CARRY_LIMIT {
            return Err(Unsupported::TooMuchState(carried.len()));
        }
        let exec = carried
            .iter()
            .position(|(what, _)| matches!(what, Carried::Exec))
            .map(|k| (CARRY_FIRST + k as u32 / 4, k as u32 % 4));
        // The end of this segment.
        for (c, &v) in coords.iter().enumerate() {
            self.b.effect(Op::Output, &[v], [SAMPLE_REG, c as u32]);
        }
        for (k, &(_, v)) in carried.iter().enumerate() {
            self.b
                .effect(Op::Output, &[v], [CARRY_FIRST + k as u32 / 4, k as u32 % 4]);
        }
        self.b.terminate(Terminator::Exit);
        let done = std::mem::take(&mut self.b).finish();
        self.segments.push(done);
        self.samples.push(Sample {
            unit: sampling.unit,
            state: sampling.state,
            lod,
            exec,
        });
        // The start of the next: everything comes back from the inputs.
        self.b = Builder::new();
        self.zero = None;
        for file in &mut self.regs {
            file.fill([None; 4]);
        }
        self.killed = None;
        for (k, &(what, _)) in carried.iter().enumerate() {
            let v = self
                .b
                .inst(Op::Input, &[], [CARRY_FIRST + k as u32 / 4, k as u32 % 4]);
            let mask = |l: &mut Lowering| {
                let zero = l.zero();
                l.b.cmp(CmpKind::Ne, v, zero)
            };
            match what {
                Carried::Reg((file, index, comp)) => {
                    if let Some(slot) = self
                        .regs
                        .get_mut(usize::from(file))
                        .and_then(|f| f.get_mut(usize::from(index)))
                    {
                        slot[usize::from(comp)] = Some(v);
                    }
                }
                Carried::Killed => self.killed = Some(v),
                Carried::Exec => self.exec = Some(mask(self)),
                Carried::Parent(b) => {
                    let m = mask(self);
                    if let Some(e) = self.stack.get_mut(b) {
                        e.0 = Some(m);
                    }
                }
                Carried::Cond(b) => {
                    let m = mask(self);
                    if let Some(e) = self.stack.get_mut(b) {
                        e.1 = m;
                    }
                }
            }
        }
        Ok(())
    }

    /// The variable bound to a component, if any.
    fn bound(&self, file: u8, index: u16, comp: u8) -> Option<Var> {
        self.regs
            .get(usize::from(file))
            .and_then(|f| f.get(usize::from(index)))
            .and_then(|r| r[usize::from(comp)])
    }
}
