//! AGAL programs on the engine: [`Engine::compile_agal`] lowers a validated
//! [`agal::Program`](crate::agal::Program) through [`crate::agal::lower`] and compiles it for
//! the engine's backend (cached like PICA shaders); an [`AgalShader`] runs vertex batches and
//! fragment quads, AoS, SoA and in parallel, bit for bit as the AGAL interpreter
//! ([`crate::agal::interp`]) computes them.
//!
//! Buffers are 16 registers per vertex or fragment ([`Regs16`], the PICA batch layout), with
//! the register map of [`crate::agal::lower`]:
//!
//! - vertex input: `va0`…`va15` in registers 0–15; output: `op` in 0, `v0`…`v9` in 1–10;
//! - fragment input: `v0`…`v9` in 0–9, four consecutive fragments per 2×2 quad (top-left,
//!   top-right, bottom-left, bottom-right); output: `oc0`…`oc3` in 0–3, `od` in 4 (`.x`),
//!   the discard flag in 5 (`.x`: 1.0 discarded, 0.0 kept).
//!
//! A run stores exactly the output registers the program writes ([`AgalShader::outputs_written`]),
//! all four components, 0.0 where the program left a component unwritten; the buffer's other
//! registers keep their contents. Constants beyond those given (and beyond the program's
//! constant file) read zero; the instance id (`iid`) is one per run.
//!
//! Programs the frontend does not lower (too much state across a texture sample), and any run
//! whose native execution fails (only the qemu job server can), go to the interpreter: never
//! a different answer. A program that compiles to the interpreter on a JIT backend says so:
//! [`AgalShader::path`] gives the reason, [`EngineStats::agal_fallbacks`](super::EngineStats)
//! counts such programs.

use std::sync::Arc;

use picajit_codegen::abi::{Context, CONST_ENTRIES};
use picajit_codegen::x64;
use rayon::prelude::*;
use thiserror::Error;

use super::backend::{Backend, ExecPath, Target};
use super::cache::Counters;
use super::kernels::{Kernels, MachineCode};
use super::shader::{uniform_rows, with_context};
use super::soa::SoaBuffer;
use super::Engine;
use crate::agal::attributes::{gather, AttributeError, AttributeStream};
use crate::agal::case::{AgalCase, CaseRunError, Inputs, Outputs};
use crate::agal::header::ShaderKind;
use crate::agal::interp::{self, Fragment, FragmentOut, Textures, Vertex, VertexOut};
use crate::agal::lower::{self, Sample, DEPTH_OUTPUT, KILL_OUTPUT, VARYING_OUTPUT};
use crate::agal::program::{Instruction, Program};
use crate::program::Regs16;

/// The cache key of an AGAL program: everything its lowering reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct AgalKey {
    kind: ShaderKind,
    version: u32,
    instructions: Vec<Instruction>,
}

/// Why an AGAL run cannot start.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum AgalRunError {
    /// The inputs do not fit the program (kind, textures).
    #[error(transparent)]
    Program(#[from] interp::RunError),
    /// Input and output buffers of different lengths.
    #[error("{inputs} inputs but {outputs} outputs")]
    LengthMismatch { inputs: usize, outputs: usize },
    /// A fragment run whose length is not a whole number of 2×2 quads.
    #[error("{0} fragments are not whole 2x2 quads")]
    NotQuads(usize),
    /// Vertex buffers that do not hold the attributes of the run.
    #[error(transparent)]
    Attributes(#[from] AttributeError),
}

/// A compiled AGAL program: `Send + Sync`, shared through `Arc`.
#[derive(Debug)]
pub struct AgalShader {
    program: Program,
    native: Option<AgalNative>,
    path: ExecPath,
    machine_code: Option<Arc<MachineCode>>,
    outputs: u16,
}

/// A natively compiled AGAL program.
#[derive(Debug)]
struct AgalNative {
    /// One kernel per segment ([`crate::agal::lower::segment`]); the last writes the outputs.
    segments: Vec<Kernels>,
    /// The texture sample after each segment but the last.
    samples: Vec<Sample>,
    target: Target,
    /// Uniform components read through broadcast rows (the instance id).
    rows: Vec<(usize, usize)>,
    /// The engine's counters (compiles are counted in [`Engine::stats`]).
    counters: Arc<Counters>,
}

/// The output registers a program writes (bit r), in the register map above.
fn outputs_of(program: &Program) -> u16 {
    let i = &program.interface;
    match program.kind {
        ShaderKind::Vertex => {
            let mut bits = 1u16;
            for (v, m) in i.varyings_written.iter().enumerate().take(interp::VARYINGS) {
                if m.0 != 0 {
                    bits |= 1 << (VARYING_OUTPUT as usize + v);
                }
            }
            bits
        }
        ShaderKind::Fragment => {
            u16::from(i.colors_written & 0xF)
                | u16::from(i.depth_written) << DEPTH_OUTPUT
                | u16::from(i.kills) << KILL_OUTPUT
        }
    }
}

impl Engine {
    /// Runs an AGAL case ([`AgalCase`]) through [`Engine::compile_agal`]: the same results
    /// as [`AgalCase::run`] (the interpreter), bit for bit.
    pub fn run_agal_case(&self, case: &AgalCase) -> Result<Outputs, CaseRunError> {
        let (program, textures) = case.prepare()?;
        let shader = self.compile_agal(&program);
        let refused = |e: AgalRunError| match e {
            AgalRunError::Program(e) => CaseRunError::Run(e),
            AgalRunError::LengthMismatch { .. }
            | AgalRunError::NotQuads(_)
            | AgalRunError::Attributes(_) => CaseRunError::Engine(e.to_string()),
        };
        Ok(match &case.inputs {
            Inputs::Vertices(vs) => Outputs::Vertices(
                shader
                    .vertices(&case.constants, &textures, vs)
                    .map_err(refused)?,
            ),
            Inputs::Quads(qs) => Outputs::Fragments(
                shader
                    .quads(&case.constants, &textures, qs)
                    .map_err(refused)?
                    .into_iter()
                    .flatten()
                    .collect(),
            ),
        })
    }

    /// Compiles a validated AGAL program, or returns the cached shader for the same program.
    pub fn compile_agal(&self, program: &Program) -> Arc<AgalShader> {
        let key = AgalKey {
            kind: program.kind,
            version: program.version,
            instructions: program.instructions.clone(),
        };
        if let Some(s) = self
            .agal_cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Arc::clone(s);
        }
        let shader = Arc::new(AgalShader::build(program, self.backend, &self.counters));
        if matches!(shader.path, ExecPath::Fallback(_)) {
            Counters::count(&self.counters.agal_fallbacks);
        }
        let mut cache = self.agal_cache.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(cache.entry(key).or_insert(shader))
    }
}

impl AgalShader {
    fn build(program: &Program, backend: Backend, counters: &Arc<Counters>) -> AgalShader {
        let outputs = outputs_of(program);
        let interp_only = |path| AgalShader {
            program: program.clone(),
            native: None,
            path,
            machine_code: None,
            outputs,
        };
        let Some(target) = backend.target() else {
            return interp_only(ExecPath::Interpreter);
        };
        let lowered = match lower::lower(program) {
            Ok(l) => l,
            Err(why) => return interp_only(ExecPath::Fallback(why.to_string())),
        };
        let mut funcs = lowered.segments;
        let Some(last) = funcs.last_mut() else {
            return interp_only(ExecPath::Fallback("internal error: no segment".into()));
        };
        let (_, stored) = x64::io_sets(last);
        if stored & !outputs != 0 {
            return interp_only(ExecPath::Fallback(format!(
                "internal error: the IR stores outputs {stored:#x}, the program writes {outputs:#x}"
            )));
        }
        last.mark_outputs(outputs & !stored);
        let mut rows: Vec<(usize, usize)> = funcs.iter().flat_map(|f| uniform_rows(f)).collect();
        rows.sort_unstable();
        rows.dedup();
        let mut segments = Vec::with_capacity(funcs.len());
        let mut machine_code = None;
        for func in funcs {
            match Kernels::new(func, target, counters) {
                Ok((k, code)) => {
                    segments.push(k);
                    machine_code = Some(code);
                }
                Err(why) => return interp_only(ExecPath::Fallback(why)),
            }
        }
        AgalShader {
            program: program.clone(),
            native: Some(AgalNative {
                segments,
                samples: lowered.samples,
                target,
                rows,
                counters: Arc::clone(counters),
            }),
            path: ExecPath::Native(target),
            machine_code,
            outputs,
        }
    }

    /// How this shader executes.
    pub fn path(&self) -> &ExecPath {
        &self.path
    }

    /// The program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The IR it was compiled from (native shaders only): one function per segment, the
    /// texture samples between them ([`crate::agal::lower::segment`]).
    pub fn ir(&self) -> Option<Vec<&picajit_codegen::ir::Verified>> {
        self.native
            .as_ref()
            .map(|n| n.segments.iter().map(|k| &k.func).collect())
    }

    /// The texture samples between the segments (native shaders only).
    pub fn samples(&self) -> &[Sample] {
        self.native.as_ref().map_or(&[], |n| &n.samples)
    }

    /// The machine code of the last segment's AoS kernel (native shaders only).
    pub fn machine_code(&self) -> Option<&MachineCode> {
        self.machine_code.as_deref()
    }

    /// Lanes per native batch (1 for the interpreter).
    pub fn lanes(&self) -> usize {
        self.native.as_ref().map_or(1, |n| n.target.lanes())
    }

    /// The output registers a run stores (bit r), in the register map of the module docs.
    pub fn outputs_written(&self) -> u16 {
        self.outputs
    }

    /// The batch context for a run: constants (zero beyond those given and beyond the
    /// program's constant file), the instance id in uniform c0.
    fn prepare(&self, ctx: &mut Context, constants: &[[f32; 4]], instance_id: u32) {
        let n = constants
            .len()
            .min(self.program.constant_count() as usize)
            .min(CONST_ENTRIES);
        ctx.constants[..n].copy_from_slice(&constants[..n]);
        ctx.constants[n..CONST_ENTRIES].fill([0.0; 4]);
        ctx.constants[CONST_ENTRIES] = [0.0; 4];
        let id = instance_id as f32;
        ctx.uniforms[0] = [id; 4];
        if let Some(native) = &self.native {
            for &(c, comp) in &native.rows {
                ctx.uniform_rows[c * 4 + comp].0 = [ctx.uniforms[c][comp]; 16];
            }
        }
    }

    fn check(
        &self,
        kind: ShaderKind,
        textures: &dyn Textures,
        inputs: usize,
        outputs: usize,
    ) -> Result<(), AgalRunError> {
        if self.program.kind != kind {
            return Err(interp::RunError::WrongKind {
                program: self.program.kind,
                asked: kind,
            }
            .into());
        }
        interp::check_textures(&self.program, textures)?;
        if inputs != outputs {
            return Err(AgalRunError::LengthMismatch { inputs, outputs });
        }
        if kind == ShaderKind::Fragment && inputs % 4 != 0 {
            return Err(AgalRunError::NotQuads(inputs));
        }
        Ok(())
    }

    /// Runs a vertex program on `attributes` (register r = `va`r) into `outputs` (`op` in
    /// register 0, `v`i in register 1 + i), AoS.
    pub fn run_vertices(
        &self,
        constants: &[[f32; 4]],
        instance_id: u32,
        textures: &dyn Textures,
        attributes: &[Regs16],
        outputs: &mut [Regs16],
    ) -> Result<(), AgalRunError> {
        self.check(
            ShaderKind::Vertex,
            textures,
            attributes.len(),
            outputs.len(),
        )?;
        self.run_aos(constants, instance_id, textures, attributes, outputs);
        Ok(())
    }

    /// Runs a vertex program on vertices `first..first + outputs.len()` of vertex buffers:
    /// each stream's attributes widened by its format ([`crate::agal::attributes`]), then as
    /// [`AgalShader::run_vertices`].
    pub fn run_vertex_buffers(
        &self,
        constants: &[[f32; 4]],
        instance_id: u32,
        textures: &dyn Textures,
        streams: &[AttributeStream<'_>],
        first: usize,
        outputs: &mut [Regs16],
    ) -> Result<(), AgalRunError> {
        let mut attributes = vec![[[0.0; 4]; 16]; outputs.len()];
        gather(streams, first, &mut attributes)?;
        self.run_vertices(constants, instance_id, textures, &attributes, outputs)
    }

    /// Runs a fragment program on `varyings` (register i = `v`i; four fragments per quad) into
    /// `outputs` (`oc0`…`oc3`, `od` in 4, the discard flag in 5), AoS.
    pub fn run_fragments(
        &self,
        constants: &[[f32; 4]],
        textures: &dyn Textures,
        varyings: &[Regs16],
        outputs: &mut [Regs16],
    ) -> Result<(), AgalRunError> {
        self.check(
            ShaderKind::Fragment,
            textures,
            varyings.len(),
            outputs.len(),
        )?;
        self.run_aos(constants, 0, textures, varyings, outputs);
        Ok(())
    }

    /// [`AgalShader::run_vertices`] or [`AgalShader::run_fragments`] (by the program's kind)
    /// split across the rayon pool in chunks of whole batches.
    pub fn run_par(
        &self,
        constants: &[[f32; 4]],
        instance_id: u32,
        textures: &(dyn Textures + Sync),
        inputs: &[Regs16],
        outputs: &mut [Regs16],
    ) -> Result<(), AgalRunError> {
        self.check(self.program.kind, textures, inputs.len(), outputs.len())?;
        let chunk = (self.lanes() * 128).max(256);
        inputs
            .par_chunks(chunk)
            .zip(outputs.par_chunks_mut(chunk))
            .for_each(|(i, o)| self.run_aos(constants, instance_id, textures, i, o));
        Ok(())
    }

    /// A checked AoS run: natively in whole batches (the tail padded), else on the
    /// interpreter.
    fn run_aos(
        &self,
        constants: &[[f32; 4]],
        instance_id: u32,
        textures: &dyn Textures,
        inputs: &[Regs16],
        outputs: &mut [Regs16],
    ) {
        let Some(native) = &self.native else {
            return self.run_interp(constants, instance_id, textures, inputs, outputs);
        };
        let ran = with_context(|ctx| {
            self.prepare(ctx, constants, instance_id);
            let n = native.segments.len();
            if n == 1 {
                let aos = native.segments[0]
                    .aos(&native.counters)
                    .map_err(|e| e.to_string())?;
                return run_kernel(ctx, &aos.code, native.target, inputs, outputs);
            }
            // Segments through two intermediate buffers (kept per thread), the host sampling
            // between them, a block of items at a time so that the buffers stay in the L1/L2
            // cache.
            let (mut a, mut b) = BUFFERS.with(|c| c.take());
            let block = inputs.len().min(SEGMENT_BLOCK);
            a.resize(block, [[0.0; 4]; 16]);
            b.resize(block, [[0.0; 4]; 16]);
            for (input, output) in inputs
                .chunks(SEGMENT_BLOCK)
                .zip(outputs.chunks_mut(SEGMENT_BLOCK))
            {
                let m = input.len();
                for (k, seg) in native.segments.iter().enumerate() {
                    let (from, to): (&[Regs16], &mut [Regs16]) = match (k, k + 1 == n) {
                        (0, _) => (input, &mut a[..m]),
                        (_, true) => (if k % 2 == 1 { &a[..m] } else { &b[..m] }, &mut *output),
                        _ if k % 2 == 1 => (&a[..m], &mut b[..m]),
                        _ => (&b[..m], &mut a[..m]),
                    };
                    let aos = seg.aos(&native.counters).map_err(|e| e.to_string())?;
                    run_kernel(ctx, &aos.code, native.target, from, to)?;
                    if let Some(s) = native.samples.get(k) {
                        s.apply(textures, to);
                    }
                }
            }
            BUFFERS.with(|c| c.set((a, b)));
            Ok(())
        });
        if ran.is_err() {
            Counters::count(&native.counters.agal_run_fallbacks);
            self.run_interp(constants, instance_id, textures, inputs, outputs);
        }
    }

    /// Runs planar SoA buffers (component c of register r of item v at
    /// `data[(r * 4 + c) * len + v]`, registers as for the AoS runs): no transposes.
    pub fn run_soa(
        &self,
        constants: &[[f32; 4]],
        instance_id: u32,
        textures: &dyn Textures,
        inputs: &SoaBuffer,
        outputs: &mut SoaBuffer,
    ) -> Result<(), AgalRunError> {
        self.check(self.program.kind, textures, inputs.len, outputs.len)?;
        if inputs.data.len() != 64 * inputs.len || outputs.data.len() != 64 * outputs.len {
            return Err(AgalRunError::LengthMismatch {
                inputs: inputs.data.len() / 64,
                outputs: outputs.data.len() / 64,
            });
        }
        let soa = self
            .native
            .as_ref()
            .filter(|n| n.segments.len() == 1)
            .and_then(|n| {
                n.segments[0]
                    .soa(n.target, &n.counters)
                    .ok()
                    .map(|c| (c, n.target.lanes()))
            });
        let Some((code, w)) = soa else {
            // Segmented programs (and the interpreter) run through the AoS path.
            return self.run_soa_via_aos(constants, instance_id, textures, inputs, outputs);
        };
        let n = inputs.len;
        let ran = with_context(|ctx| {
            self.prepare(ctx, constants, instance_id);
            let mut status = vec![0u32; n / w];
            let full = code.run_soa(ctx, &inputs.data, &mut outputs.data, n, &mut status)? * w;
            if full < n {
                let rest = n - full;
                let mut tin = vec![0.0; 64 * w];
                let mut tout = vec![0.0; 64 * w];
                for k in 0..64 {
                    tin[k * w..k * w + rest].copy_from_slice(&inputs.data[k * n + full..k * n + n]);
                    tout[k * w..k * w + rest]
                        .copy_from_slice(&outputs.data[k * n + full..k * n + n]);
                }
                code.run_soa(ctx, &tin, &mut tout, w, &mut [0u32])?;
                for k in 0..64 {
                    outputs.data[k * n + full..k * n + n]
                        .copy_from_slice(&tout[k * w..k * w + rest]);
                }
            }
            Ok::<(), String>(())
        });
        if ran.is_err() {
            if let Some(n) = &self.native {
                Counters::count(&n.counters.agal_run_fallbacks);
            }
            return self.run_soa_via_aos(constants, instance_id, textures, inputs, outputs);
        }
        Ok(())
    }

    fn run_soa_via_aos(
        &self,
        constants: &[[f32; 4]],
        instance_id: u32,
        textures: &dyn Textures,
        inputs: &SoaBuffer,
        outputs: &mut SoaBuffer,
    ) -> Result<(), AgalRunError> {
        let aos = inputs.to_aos();
        let mut out = outputs.to_aos();
        self.run_aos(constants, instance_id, textures, &aos, &mut out);
        *outputs = SoaBuffer::from_aos(&out);
        Ok(())
    }

    /// The interpreter, in the register map of the module docs.
    fn run_interp(
        &self,
        constants: &[[f32; 4]],
        instance_id: u32,
        textures: &dyn Textures,
        inputs: &[Regs16],
        outputs: &mut [Regs16],
    ) {
        let written = |r: usize| self.outputs >> r & 1 != 0;
        match self.program.kind {
            ShaderKind::Vertex => {
                let vertices: Vec<Vertex> = inputs
                    .iter()
                    .map(|a| Vertex {
                        attributes: *a,
                        instance_id,
                    })
                    .collect();
                let Ok(res) = interp::run_vertices(&self.program, constants, textures, &vertices)
                else {
                    return;
                };
                for (o, r) in outputs.iter_mut().zip(res) {
                    let regs = vertex_regs(&r);
                    for k in (0..16).filter(|&k| written(k)) {
                        o[k] = regs[k];
                    }
                }
            }
            ShaderKind::Fragment => {
                let quads: Vec<[Fragment; 4]> = inputs
                    .chunks_exact(4)
                    .map(|q| {
                        std::array::from_fn(|l| Fragment {
                            varyings: std::array::from_fn(|i| q[l][i]),
                        })
                    })
                    .collect();
                let Ok(res) = interp::run_quads(&self.program, constants, textures, &quads) else {
                    return;
                };
                for (o, r) in outputs.chunks_exact_mut(4).zip(res) {
                    for (lane, f) in o.iter_mut().zip(r) {
                        let regs = fragment_regs(&f);
                        for k in (0..16).filter(|&k| written(k)) {
                            lane[k] = regs[k];
                        }
                    }
                }
            }
        }
    }

    /// The interpreter's [`interp::run_vertices`] through this shader: the same inputs and
    /// results, whatever the path.
    pub fn vertices(
        &self,
        constants: &[[f32; 4]],
        textures: &dyn Textures,
        vertices: &[Vertex],
    ) -> Result<Vec<VertexOut>, AgalRunError> {
        let zero = VertexOut {
            position: [0.0; 4],
            varyings: [[0.0; 4]; interp::VARYINGS],
        };
        let mut out = vec![zero; vertices.len()];
        // One run per stretch of vertices with the same instance id.
        let mut start = 0;
        while start < vertices.len() {
            let id = vertices[start].instance_id;
            let end = vertices[start..]
                .iter()
                .position(|v| v.instance_id != id)
                .map_or(vertices.len(), |k| start + k);
            let attrs: Vec<Regs16> = vertices[start..end].iter().map(|v| v.attributes).collect();
            let mut regs = vec![[[0.0; 4]; 16]; attrs.len()];
            self.run_vertices(constants, id, textures, &attrs, &mut regs)?;
            for (o, r) in out[start..end].iter_mut().zip(&regs) {
                *o = VertexOut {
                    position: r[0],
                    varyings: std::array::from_fn(|i| r[VARYING_OUTPUT as usize + i]),
                };
            }
            start = end;
        }
        Ok(out)
    }

    /// The interpreter's [`interp::run_quads`] through this shader.
    pub fn quads(
        &self,
        constants: &[[f32; 4]],
        textures: &dyn Textures,
        quads: &[[Fragment; 4]],
    ) -> Result<Vec<[FragmentOut; 4]>, AgalRunError> {
        let inputs: Vec<Regs16> = quads
            .iter()
            .flatten()
            .map(|f| std::array::from_fn(|r| f.varyings.get(r).copied().unwrap_or([0.0; 4])))
            .collect();
        let mut regs = vec![[[0.0; 4]; 16]; inputs.len()];
        self.run_fragments(constants, textures, &inputs, &mut regs)?;
        Ok(regs
            .chunks_exact(4)
            .map(|q| {
                std::array::from_fn(|l| FragmentOut {
                    colors: std::array::from_fn(|c| q[l][c]),
                    depth: q[l][DEPTH_OUTPUT as usize][0],
                    killed: q[l][KILL_OUTPUT as usize][0] != 0.0,
                })
            })
            .collect())
    }
}

fn vertex_regs(r: &VertexOut) -> Regs16 {
    let mut regs = [[0.0; 4]; 16];
    regs[0] = r.position;
    for (i, v) in r.varyings.iter().enumerate() {
        regs[VARYING_OUTPUT as usize + i] = *v;
    }
    regs
}

fn fragment_regs(f: &FragmentOut) -> Regs16 {
    let mut regs = [[0.0; 4]; 16];
    regs[..4].copy_from_slice(&f.colors);
    regs[DEPTH_OUTPUT as usize][0] = f.depth;
    regs[KILL_OUTPUT as usize][0] = if f.killed { 1.0 } else { 0.0 };
    regs
}

/// Items a segmented run takes through all its segments at a time (whole quads and whole
/// batches of every target): two intermediate buffers of 32 KiB.
const SEGMENT_BLOCK: usize = 128;

thread_local! {
    /// The intermediate buffers of segmented runs, reused across runs.
    static BUFFERS: std::cell::Cell<(Vec<Regs16>, Vec<Regs16>)> =
        const { std::cell::Cell::new((Vec::new(), Vec::new())) };
}

/// Runs one AoS kernel over `inputs` into `outputs` in whole batches (the tail padded).
fn run_kernel(
    ctx: &mut Context,
    code: &super::kernels::Code,
    target: Target,
    inputs: &[Regs16],
    outputs: &mut [Regs16],
) -> Result<(), String> {
    let w = target.lanes();
    let full = inputs.len() / w * w;
    let mut status = vec![0u32; full / w];
    code.run_aos(
        ctx,
        &inputs[..full],
        &mut outputs[..full],
        &mut status,
        None,
    )?;
    if full < inputs.len() {
        let rest = inputs.len() - full;
        let mut tin = vec![[[0.0; 4]; 16]; w];
        tin[..rest].copy_from_slice(&inputs[full..]);
        let mut tout = vec![[[0.0; 4]; 16]; w];
        tout[..rest].copy_from_slice(&outputs[full..]);
        code.run_aos(ctx, &tin, &mut tout, &mut [0u32], None)?;
        outputs[full..].copy_from_slice(&tout[..rest]);
    }
    Ok(())
}
