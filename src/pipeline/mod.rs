//! Draws: what an emulator's software vertex pipeline does with a draw call, from the state
//! the register writes left ([`GpuRegs`]) to output vertices in semantic order.
//!
//! ```text
//! dense list (range ≤ its length): its range, in vertex order (index − min)
//! sparser list: unique vertices (one pass, in order of first use) ─▶ chunks of 256
//!   native engine, no raw records: draw kernel (attribute arrays ─▶ lanes ─▶ output vertices)
//!   else per chunk: attributes the VS reads ─▶ input records ─▶ AoS kernel ─▶ output records
//!              ─▶ output vertices (OUTMAP → 24 semantic slots) | raw o0–o15 | GS attribute buffers
//! geometry stage (GEOSTAGE_CONFIG = 2): VS attribute buffers ─▶ point / variable / fixed
//!   primitive mode ─▶ GS invocations (b15 set after each) ─▶ triangles + winding flags
//! ```
//!
//! The vertex shader runs once per vertex of a dense list's range (module `dense`: a mesh's
//! index buffer over its vertex buffer, read in order, no deduplication) or once per unique
//! vertex of a sparser list, in batches; no index probes a cache while shaders run. A sparse
//! index list equal to the last one drawn reuses its deduplication (module `unique`: compared
//! element by element, never by address). Shaders are compiled when what they run changed: a draw compares the code
//! words uploaded since the last draw with the addresses the current shader reaches, and
//! looks a new shader up in the engine's cache only then (uniform-only changes never
//! compile; the engine compiles uniform-specialized kernels in the background while the
//! generic kernels serve). A new shader's first draw compiles only the draw kernel it runs:
//! its generic AoS kernel is compiled when a draw first takes the record path, or on
//! [`Pipeline::prepare`].
//!
//! Draw kernels first: where the engine has them (x86-64, AArch64) and no raw records are asked for,
//! the vertex shader's draw kernel loads attributes from their arrays into lanes and stores
//! semantic output vertices from lanes (module `direct`; no records at all) — for a range or
//! a dense list of a batch or more, the stepped kernel, which walks the arrays with no index
//! list. Otherwise records,
//! not SoA planes: the kernel's batch loop moves records to lanes and back with vector
//! transposes, while gathering into planes and mapping planes to semantic slots are one
//! scalar store per component in Rust; a chunk's records stay in cache.
//!
//! Rules where the emulators and the hardware documentation are silent (hardware behaviour
//! unknown; each is also the simplest exact choice):
//! - Input registers no attribute is loaded into read 0.0; attributes are loaded in order,
//!   so when the permutation names one register twice the later attribute wins (Azahar).
//! - Output attribute slots: the enabled output registers compacted in ascending order;
//!   slots past them read 0.0; registers the shader never writes read 0.0 (every invocation
//!   starts with zeroed registers, as [`crate::interp`] states).
//! - Geometry point mode: the geometry unit's input count must be a multiple of the vertex
//!   outputs per vertex (Azahar asserts it); an incomplete primitive at the end of a draw
//!   is dropped in every mode.
//! - Variable-primitive mode: a vertex count of 0 runs the geometry shader at once with
//!   c0 = (0, 0, 0, 0).
//! - Vertex data written to float uniforms past c95 (variable and fixed modes) is dropped.
//! - Geometry-shader registers start zeroed at every invocation (the project's rule; Azahar
//!   keeps them from the previous invocation, which b15 lets a program detect).

mod constants;
mod dense;
mod direct;
mod geometry;
mod layouts;
mod semantic;
mod types;
mod unique;
mod vertex;

pub use types::{Attribute, DrawError, DrawOutput, Indices, OutputVertex};

use std::sync::Arc;

use self::dense::Referenced;
use crate::engine::{Backend, Engine, EngineError, MachineCode, Shader};
use crate::pica::{GpuRegs, Unit};

/// The shader a unit runs now, kept from draw to draw.
#[derive(Debug, Default)]
struct Current {
    shader: Option<Arc<Shader>>,
    entry: u16,
}

impl Current {
    /// The unit's shader: the one kept, unless an upload since the last draw changed a word
    /// it reaches, a descriptor, or the entry point — then the engine's (cached) compile.
    fn get(
        &mut self,
        regs: &mut GpuRegs,
        unit: Unit,
        engine: &Engine,
    ) -> Result<Arc<Shader>, DrawError> {
        if !regs.unit(unit).loaded() {
            return Err(DrawError::NoProgram { unit });
        }
        let changes = regs.take_changes(unit);
        let entry = regs.entry(unit);
        if let Some(shader) = &self.shader {
            let code_changed = changes
                .code
                .is_some_and(|(lo, hi)| (lo..=hi).any(|a| shader.reaches(a)));
            if !code_changed && !changes.descs && entry == self.entry {
                return Ok(Arc::clone(shader));
            }
        }
        let shader = engine.compile_for_draw(regs.program_ref(unit));
        self.shader = Some(Arc::clone(&shader));
        self.entry = entry;
        Ok(shader)
    }
}

/// One draw kernel of [`Pipeline::draw_machine_code`]: its name (`"indexed"` or `"stepped"`)
/// and its machine code, or why it cannot be built.
pub type DrawMachineCode = (&'static str, Result<MachineCode, String>);

/// An emulator's vertex pipeline: register writes in, draws out. One per GPU; draws run on
/// the calling thread (the engine may compile kernels on the rayon pool meanwhile).
#[derive(Debug)]
pub struct Pipeline {
    engine: Arc<Engine>,
    regs: GpuRegs,
    vs: Current,
    gs: Current,
    scratch: Scratch,
}

/// Buffers reused from draw to draw.
#[derive(Debug, Default)]
struct Scratch {
    dedup: unique::Dedup,
    ids: Vec<u32>,
    remap: Vec<u32>,
    vertex: vertex::VertexBuffers,
    /// The draw-kernel path's buffers.
    direct: direct::Buffers,
    /// Slot tables and draw-kernel layouts of recent draws.
    layouts: layouts::Layouts,
    geometry: geometry::GeometryBuffers,
}

impl Pipeline {
    /// A pipeline compiling through `engine` (engines can be shared between pipelines).
    pub fn new(engine: Arc<Engine>) -> Pipeline {
        Pipeline {
            engine,
            regs: GpuRegs::new(),
            vs: Current::default(),
            gs: Current::default(),
            scratch: Scratch::default(),
        }
    }

    /// A pipeline with an engine of its own for `backend`.
    pub fn with_backend(backend: Backend) -> Result<Pipeline, EngineError> {
        Ok(Pipeline::new(Arc::new(Engine::new(backend)?)))
    }

    /// Forwards a register write ([`GpuRegs::write`]).
    pub fn write(&mut self, reg: u16, value: u32, mask: u8) {
        self.regs.write(reg, value, mask);
    }

    /// The registers and shader units.
    pub fn regs(&self) -> &GpuRegs {
        &self.regs
    }

    /// The registers, for the typed upload helpers.
    pub fn regs_mut(&mut self) -> &mut GpuRegs {
        &mut self.regs
    }

    /// The engine.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The vertex (and, if the geometry stage is on, geometry) shader the next draw runs,
    /// compiled now if needed, with every kernel the current uniforms can use compiled on
    /// this thread (so the next draw neither compiles nor waits).
    pub fn prepare(&mut self) -> Result<(), DrawError> {
        let vs = self.vs.get(&mut self.regs, Unit::Vertex, &self.engine)?;
        vs.prepare_aos(self.regs.uniforms(Unit::Vertex));
        if self.regs.geometry_in_use() {
            let gs = self.gs.get(&mut self.regs, Unit::Geometry, &self.engine)?;
            gs.prepare_aos(self.regs.uniforms(Unit::Geometry));
        }
        Ok(())
    }

    /// [`Pipeline::prepare`], and the vertex shader's draw kernels for draws with these
    /// attributes, compiled on this thread: the one stepping through consecutive vertices
    /// (ranges and dense lists) and the indexed one (sparser lists). The attributes' kinds,
    /// component counts and strides, the permutation and the output map fix the kernels'
    /// layout (the arrays' contents and lengths do not matter). The first draw with them then
    /// neither compiles nor takes the record path while a draw kernel compiles. Nothing more with the geometry stage on, a
    /// backend without draw kernels, or raw records asked for at the draw (those draws take
    /// the record path).
    pub fn prepare_draw(&mut self, attributes: &[Attribute]) -> Result<(), DrawError> {
        self.prepare()?;
        if self.regs.geometry_in_use() {
            return Ok(());
        }
        let vs = self.vs.get(&mut self.regs, Unit::Vertex, &self.engine)?;
        let config = self.regs.input_config(Unit::Vertex);
        let read = vs.input_components();
        let feeds = vertex::feeds(
            attributes,
            usize::from(config.max_attribute) + 1,
            self.regs.permutation(Unit::Vertex),
            read,
            None,
        )?;
        let (layout, _) = self.scratch.layouts.get(&self.regs, &vs, &feeds);
        let uniforms = self.regs.uniforms(Unit::Vertex);
        if let Some(stepped) = &layout.stepped {
            vs.prepare_draw(uniforms, stepped);
        }
        vs.prepare_draw(uniforms, &layout.indexed);
        Ok(())
    }

    /// The vertex shader's draw kernels for draws with these attributes, as machine code
    /// compiled now (and not kept: for dumps such as `picajit dump --draw`): the indexed
    /// kernel, then the one stepping through consecutive vertices when the strides allow it,
    /// each with its name. The kernels a draw with the current uniforms runs (the
    /// uniform-specialized function's). Empty with the geometry stage on or a backend without
    /// draw kernels; an entry is an error if its kernel cannot be built.
    pub fn draw_machine_code(
        &mut self,
        attributes: &[Attribute],
    ) -> Result<Vec<DrawMachineCode>, DrawError> {
        if self.regs.geometry_in_use() {
            return Ok(Vec::new());
        }
        let vs = self.vs.get(&mut self.regs, Unit::Vertex, &self.engine)?;
        let config = self.regs.input_config(Unit::Vertex);
        let feeds = vertex::feeds(
            attributes,
            usize::from(config.max_attribute) + 1,
            self.regs.permutation(Unit::Vertex),
            vs.input_components(),
            None,
        )?;
        let (layout, _) = self.scratch.layouts.get(&self.regs, &vs, &feeds);
        let uniforms = self.regs.uniforms(Unit::Vertex);
        let stepped = layout.stepped.as_ref().map(|l| ("stepped", l));
        Ok([("indexed", &layout.indexed)]
            .into_iter()
            .chain(stepped)
            .filter_map(|(name, l)| Some((name, vs.draw_machine_code(uniforms, l)?)))
            .collect())
    }

    /// Runs a draw: the vertex shader once per output vertex of `indices` (every vertex of a
    /// dense list's range, else each unique vertex: [`DrawOutput::vertices`]) with inputs from
    /// `attributes` (attribute k is loaded into the register the vertex unit's permutation
    /// names; the unit's INPUTBUFFER_CONFIG says how many), then, if the geometry stage is
    /// on, the geometry shader in its mode. `out` is cleared and filled (module docs and
    /// [`DrawOutput`]). On [`DrawError::BudgetExhausted`] every output is still written.
    pub fn draw(
        &mut self,
        indices: Indices,
        attributes: &[Attribute],
        out: &mut DrawOutput,
    ) -> Result<(), DrawError> {
        // Output vertices, raw records, indices and vertex ids keep their length (every one
        // the draw keeps is overwritten): no clearing of buffers the draw fills anyway.
        out.windings.clear();
        let result = self.run_draw(indices, attributes, out);
        if let Err(e) = &result {
            if !matches!(e, DrawError::BudgetExhausted { .. }) {
                out.clear();
            }
        }
        result
    }

    fn run_draw(
        &mut self,
        indices: Indices,
        attributes: &[Attribute],
        out: &mut DrawOutput,
    ) -> Result<(), DrawError> {
        if let Indices::Range { first, count } = indices {
            if count > 0 && first.checked_add(count - 1).is_none() {
                return Err(DrawError::RangeOverflow { first, count });
            }
        }
        let vs = self.vs.get(&mut self.regs, Unit::Vertex, &self.engine)?;
        if self.regs.geometry_in_use() {
            out.indices.list_mut().clear();
            out.vertex_ids.list_mut().clear();
            let gs = self.gs.get(&mut self.regs, Unit::Geometry, &self.engine)?;
            out.constants.forget();
            return geometry::draw(
                &mut self.regs,
                &vs,
                &gs,
                indices,
                attributes,
                &mut self.scratch,
                out,
            );
        }
        vertex_only(&self.regs, &vs, indices, attributes, &mut self.scratch, out)
    }
}

/// A draw without the geometry stage.
fn vertex_only(
    regs: &GpuRegs,
    vs: &Shader,
    indices: Indices,
    attributes: &[Attribute],
    scratch: &mut Scratch,
    out: &mut DrawOutput,
) -> Result<(), DrawError> {
    // A range or a dense list: consecutive vertices from `first` (`vertex_ids`).
    let (dense, consecutive, max_id) = match indices {
        Indices::Range { first, count } => {
            // `run_draw` refused ranges past 2^32.
            out.vertex_ids.sequence(first, count as usize);
            out.indices.sequence(0, count as usize);
            (
                false,
                count > 0,
                first.wrapping_add(count.saturating_sub(1)),
            )
        }
        Indices::U8(_) | Indices::U16(_) | Indices::U32(_) => {
            let bounds = dense::bounds(indices).unwrap_or((0, 0));
            let dense = !indices.is_empty()
                && dense::span(indices, bounds, &mut out.vertex_ids, out.indices.list_mut());
            if !dense {
                scratch.dedup.run(
                    indices,
                    bounds.1,
                    out.vertex_ids.list_mut(),
                    out.indices.list_mut(),
                );
            }
            (dense, dense, bounds.1)
        }
    };
    let config = regs.input_config(Unit::Vertex);
    let read = vs.input_components();
    let feeds = vertex::feeds(
        attributes,
        usize::from(config.max_attribute) + 1,
        regs.permutation(Unit::Vertex),
        read,
        Some(max_id),
    )?;
    let n = out.vertex_ids.list().len();
    let (layout, memos) = scratch.layouts.get(regs, vs, &feeds);
    let mut referenced = if dense {
        Referenced::by(out.indices.list())
    } else {
        Referenced::all()
    };
    if !out.keep_raw {
        out.raw.clear();
        let stage = direct::Stage {
            vs,
            uniforms: regs.uniforms(Unit::Vertex),
            feeds: &feeds,
            layout,
        };
        let ran = match out.vertex_ids.list().first() {
            // Consecutive vertices, a batch or more, take the stepped kernel or, while it
            // compiles, the record path (an indexed kernel would be one more compile).
            Some(&first) if consecutive && n >= vs.draw_lanes() && layout.stepped.is_some() => {
                direct::run_range(
                    stage,
                    first,
                    n,
                    (&mut out.vertices, &mut out.constants),
                    &mut scratch.direct,
                    &mut memos.stepped,
                    &mut referenced,
                )
            }
            // An indexed kernel of fixed strides multiplies offsets in 32 bits: arrays past
            // 4 GiB take the record path.
            _ if !layout.indexed.offsets_fit(max_id) => None,
            _ => direct::run(
                stage,
                out.vertex_ids.list_mut(),
                (&mut out.vertices, &mut out.constants),
                &mut scratch.direct,
                &mut memos.indexed,
                &mut referenced,
            ),
        };
        if let Some(result) = ran {
            return result;
        }
    }
    // The constant slots first (those the buffer already holds are kept); the other slots
    // are written from the output records below.
    out.constants
        .resize(&mut out.vertices, n, &layout.constants);
    if out.keep_raw {
        out.raw.resize(n, [[0.0; 4]; 16]);
    } else {
        out.raw.clear();
    }
    let written = vs.outputs_written();
    let keep_raw = out.keep_raw;
    let result = vertex::run(
        vs,
        regs.uniforms(Unit::Vertex),
        &feeds,
        out.vertex_ids.list(),
        &mut scratch.vertex,
        &mut referenced,
        |first, records| {
            let len = records.len();
            semantic::write_vertices(
                &layout.table,
                records,
                &mut out.vertices[first..first + len],
            );
            if keep_raw {
                semantic::write_raw(written, records, &mut out.raw[first..first + len]);
            }
        },
    );
    // Every vertex is written whole after a budget error too; other errors clear the output
    // (and make the buffer forget its constants).
    result
}
