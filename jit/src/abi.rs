//! The batch context: the one block of memory generated code reads and writes (besides its own
//! constant pool). The host fills inputs, uniforms and scalars, calls the code, and reads
//! outputs and status. Offsets are `offset_of!` constants used by every backend.
//!
//! Lane arrays are [`MAX_LANES`] wide whatever the tier (a tier with W lanes uses the first W),
//! so offsets do not depend on the tier.

use std::mem::offset_of;

/// The widest batch any tier runs (AVX-512: 16 lanes).
pub const MAX_LANES: usize = 16;
/// Spill slots available to the register allocator.
pub const SPILL_SLOTS: usize = 512;
/// Float uniform table entries: c0..c95, then 32 entries of (1, 1, 1, 1) so a 7-bit index
/// needs no range check.
pub const UNIFORM_ENTRIES: usize = 128;
/// Entries of the constant table ([`Context::constants`]) that `const`/`const.idx` read.
pub const CONST_ENTRIES: usize = 256;
/// Loop slots (the PICA loop stack holds 4).
pub const LOOP_SLOTS: usize = 4;

/// One value per lane.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
pub struct Lanes(pub [f32; MAX_LANES]);

impl Default for Lanes {
    fn default() -> Self {
        Lanes([0.0; MAX_LANES])
    }
}

/// Batch-uniform scalar state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Scalars {
    /// Bool uniforms, bit n = b_n.
    pub bools: u32,
    /// Int uniforms i0..i3 as (count, start, step, unused) bytes.
    pub ints: [[u8; 4]; 4],
    /// The loop counter aL.
    pub al: i32,
    /// Backward transfers left.
    pub budget: u32,
    /// The batch's status word so far (see [`Io`]): the lanes that exhausted their budget.
    pub status: u32,
    /// Remaining repeats per loop slot.
    pub loop_down: [u32; LOOP_SLOTS],
    /// aL step per loop slot.
    pub loop_inc: [i32; LOOP_SLOTS],
    /// aL saved when the loop in the slot was entered.
    pub loop_saved_al: [i32; LOOP_SLOTS],
    /// Triangles recorded by the current geometry batch (the emitter state of SETEMIT is
    /// per lane, in the function's variables).
    pub emit_count: u32,
}

/// Where a run's vertices are: the generated code loops over `batches` batches itself.
///
/// AoS kernels read vertex `k` of the current batch at `input + k * 256` (16 registers of 16
/// bytes) and write outputs likewise; SoA kernels read lane `k` of plane `r * 4 + c` at
/// `planes_in[r * 4 + c] + offset + k * 4`, where `offset` advances by `W * 4` per batch.
/// One status word (`u32`) per batch is written at `status`: bit `l` (`l` < 16) set if lane `l`
/// exhausted its step budget, [`STATUS_OVERFLOW`] if a geometry batch emitted more triangles
/// than its buffer holds; 0 if every lane ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Io {
    pub input: usize,
    pub output: usize,
    pub status: usize,
    pub batches: u64,
    /// The step budget each batch starts with.
    pub budget: u32,
    pub planes_in: [usize; 64],
    pub planes_out: [usize; 64],
    /// Geometry shaders: where triangles go ([`Triangle`] records and two mask words each,
    /// see [`TriangleMasks`]) and how many fit; a batch that emits more ends with
    /// [`STATUS_OVERFLOW`].
    pub triangles: usize,
    pub masks: usize,
    pub triangle_capacity: u64,
    /// Draw kernels: per input register, the address of vertex 0's attribute and the bytes
    /// from one vertex's attribute to the next (vertex `id` at `draw_base[r] + id *
    /// draw_stride[r]`).
    pub draw_base: [usize; 16],
    pub draw_stride: [usize; 16],
}

/// One emitted triangle of a batch: emitter slots 0, 1, 2, each 16 registers × 4 components ×
/// the batch's lanes. Lanes emit triangles at different times: a record holds the triangle of
/// the lanes its [`TriangleMasks`] name, the other lanes' data in it is meaningless.
pub type Triangle = [[[Lanes; 4]; 16]; 3];

/// The lanes of one [`Triangle`] record: bit `l` of word 0 set if lane `l` emitted it, of word
/// 1 if lane `l` emitted it with the winding flag. A lane's triangles are the records naming
/// it, in record order.
pub type TriangleMasks = [u16; 2];

impl Default for Io {
    fn default() -> Self {
        Io {
            input: 0,
            output: 0,
            status: 0,
            batches: 0,
            budget: 0,
            planes_in: [0; 64],
            planes_out: [0; 64],
            triangles: 0,
            masks: 0,
            triangle_capacity: 0,
            draw_base: [0; 16],
            draw_stride: [0; 16],
        }
    }
}

/// Status word bit: the geometry batch's triangle buffer overflowed (the host reruns it).
pub const STATUS_OVERFLOW: u32 = 1 << 16;

/// The status word of a batch of `lanes` lanes whose lanes all exhausted their budget.
pub const fn all_exhausted(lanes: usize) -> u32 {
    (1u32 << lanes) - 1
}

/// Rows of batch-uniform float uniform components: row `c * 4 + comp` holds `c[c].comp` in
/// every lane (filled by the host for the components a shader reads without an offset).
pub const UNIFORM_ROWS: usize = 96 * 4;

/// The batch context.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Context {
    /// Inputs v0..v15, per component, per lane.
    pub input: [[Lanes; 4]; 16],
    /// Outputs o0..o15, per component, per lane.
    pub output: [[Lanes; 4]; 16],
    /// Float uniforms, AoS (x, y, z, w), padded to 128 entries with ones.
    pub uniforms: [[f32; 4]; UNIFORM_ENTRIES],
    /// Scalar state.
    pub scalars: Scalars,
    /// Scratch lanes for per-lane uniform fetches and wide temporaries.
    pub scratch: [Lanes; 12],
    /// Register-allocator spill slots.
    pub spill: [Lanes; SPILL_SLOTS],
    /// Geometry emitter slots 0..3 (slot 3 is never part of a triangle).
    pub emit_slots: [[[Lanes; 4]; 16]; 4],
    /// Batch-uniform uniform components, broadcast (see [`UNIFORM_ROWS`]).
    pub uniform_rows: [Lanes; UNIFORM_ROWS],
    /// The run's vertex buffers.
    pub io: Io,
    /// The constant table of `const`/`const.idx` (AGAL's constant file), AoS (x, y, z, w);
    /// entry [`CONST_ENTRIES`] is a zero row the code reads for an index out of range (the
    /// host never writes it).
    pub constants: [[f32; 4]; CONST_ENTRIES + 1],
    /// The outputs of lanes that ended before the others (`Op::Retire`): a function that
    /// retires lanes stores its outputs from here. Last, so that it does not push the fields
    /// every kernel reads beyond the reach of AArch64's scaled 12-bit load offsets.
    pub retired: [[Lanes; 4]; 16],
    /// The caller's values of the general-purpose registers a stepped draw kernel keeps
    /// attribute addresses in for its whole call (callee-saved in the System V ABI): stored at
    /// entry, reloaded before it returns. After `retired`, so no field moves.
    pub saved: [u64; SAVED_REGISTERS],
}

impl Default for Context {
    fn default() -> Self {
        let mut uniforms = [[0.0; 4]; UNIFORM_ENTRIES];
        for u in &mut uniforms[96..] {
            *u = [1.0; 4];
        }
        Context {
            input: [[Lanes::default(); 4]; 16],
            output: [[Lanes::default(); 4]; 16],
            uniforms,
            scalars: Scalars::default(),
            scratch: [Lanes::default(); 12],
            spill: [Lanes::default(); SPILL_SLOTS],
            emit_slots: [[[Lanes::default(); 4]; 16]; 4],
            uniform_rows: [Lanes::default(); UNIFORM_ROWS],
            io: Io::default(),
            constants: [[0.0; 4]; CONST_ENTRIES + 1],
            retired: [[Lanes::default(); 4]; 16],
            saved: [0; SAVED_REGISTERS],
        }
    }
}

/// Byte offset of input `reg`.`comp` lane 0.
pub const fn input_offset(reg: u32, comp: u32) -> i32 {
    (offset_of!(Context, input) + (reg as usize * 4 + comp as usize) * 64) as i32
}
/// Byte offset of output `reg`.`comp` lane 0.
pub const fn output_offset(reg: u32, comp: u32) -> i32 {
    (offset_of!(Context, output) + (reg as usize * 4 + comp as usize) * 64) as i32
}
/// Byte offset of uniform `index`.`comp`.
pub const fn uniform_offset(index: u32, comp: u32) -> i32 {
    (offset_of!(Context, uniforms) + (index as usize * 4 + comp as usize) * 4) as i32
}
/// Byte offset of the uniform table.
pub const UNIFORMS: i32 = offset_of!(Context, uniforms) as i32;
/// Byte offset of constant-table entry `index`.`comp`.
pub const fn const_offset(index: u32, comp: u32) -> i32 {
    (offset_of!(Context, constants) + (index as usize * 4 + comp as usize) * 4) as i32
}
/// Byte offset of the constant table.
pub const CONSTANTS: i32 = offset_of!(Context, constants) as i32;
/// Byte offset of spill slot `n`.
pub const fn spill_offset(slot: u32) -> i32 {
    (offset_of!(Context, spill) + slot as usize * 64) as i32
}
/// Byte offset of scratch lanes `n`.
pub const fn scratch_offset(n: u32) -> i32 {
    (offset_of!(Context, scratch) + n as usize * 64) as i32
}
/// Byte offset of the broadcast row of uniform `index`.`comp` (index < 96).
pub const fn uniform_row_offset(index: u32, comp: u32) -> i32 {
    (offset_of!(Context, uniform_rows) + (index as usize * 4 + comp as usize) * 64) as i32
}
/// Registers a draw kernel may save in [`Context::saved`].
pub const SAVED_REGISTERS: usize = 6;
/// Byte offset of saved register `k` (below [`SAVED_REGISTERS`]).
pub const fn saved_offset(k: usize) -> i32 {
    (offset_of!(Context, saved) + k * 8) as i32
}
const IO: usize = offset_of!(Context, io);
pub const IO_INPUT: i32 = (IO + offset_of!(Io, input)) as i32;
pub const IO_OUTPUT: i32 = (IO + offset_of!(Io, output)) as i32;
pub const IO_STATUS: i32 = (IO + offset_of!(Io, status)) as i32;
pub const IO_BATCHES: i32 = (IO + offset_of!(Io, batches)) as i32;
pub const IO_BUDGET: i32 = (IO + offset_of!(Io, budget)) as i32;
pub const fn plane_in(k: u32) -> i32 {
    (IO + offset_of!(Io, planes_in) + k as usize * 8) as i32
}
pub const fn plane_out(k: u32) -> i32 {
    (IO + offset_of!(Io, planes_out) + k as usize * 8) as i32
}
pub const IO_TRIANGLES: i32 = (IO + offset_of!(Io, triangles)) as i32;
pub const IO_MASKS: i32 = (IO + offset_of!(Io, masks)) as i32;
pub const IO_TRIANGLE_CAPACITY: i32 = (IO + offset_of!(Io, triangle_capacity)) as i32;
/// Byte offset of the attribute address of input register `r` in a draw.
pub const fn draw_base(r: u32) -> i32 {
    (IO + offset_of!(Io, draw_base) + (r as usize & 15) * 8) as i32
}
/// Byte offset of the attribute stride (bytes) of input register `r` in a draw.
pub const fn draw_stride(r: u32) -> i32 {
    (IO + offset_of!(Io, draw_stride) + (r as usize & 15) * 8) as i32
}
/// Bytes of one output vertex of a draw kernel: 24 semantic slots of f32.
pub const DRAW_VERTEX_BYTES: i32 = 96;
/// Byte offset of the output bank (a geometry shader's current bank: EMIT swaps the lanes'
/// banks in the function's variables, so the other bank never reaches memory).
pub const OUTPUT_BANK0: i32 = offset_of!(Context, output) as i32;
/// Byte offset of the retired lanes' outputs (laid out as an output bank).
pub const RETIRED: i32 = offset_of!(Context, retired) as i32;
/// Byte offset of emitter slot 0; slots are [`SLOT_BYTES`] apart.
pub const EMIT_SLOTS: i32 = offset_of!(Context, emit_slots) as i32;
/// Bytes of one emitter slot (and of one output bank): 16 registers × 4 components × 64.
pub const SLOT_BYTES: i32 = 16 * 4 * 64;
/// Bytes of one [`Triangle`].
pub const TRIANGLE_BYTES: i32 = 3 * SLOT_BYTES;
/// Bytes of one AoS vertex (16 registers × 16 bytes).
pub const AOS_VERTEX_BYTES: i32 = 256;
const SCALARS: usize = offset_of!(Context, scalars);
pub const BOOLS: i32 = (SCALARS + offset_of!(Scalars, bools)) as i32;
pub const INTS: i32 = (SCALARS + offset_of!(Scalars, ints)) as i32;
pub const AL: i32 = (SCALARS + offset_of!(Scalars, al)) as i32;
pub const BUDGET: i32 = (SCALARS + offset_of!(Scalars, budget)) as i32;
pub const STATUS: i32 = (SCALARS + offset_of!(Scalars, status)) as i32;
pub const EMIT_COUNT: i32 = (SCALARS + offset_of!(Scalars, emit_count)) as i32;
pub const fn loop_down(slot: u32) -> i32 {
    (SCALARS + offset_of!(Scalars, loop_down) + slot as usize * 4) as i32
}
pub const fn loop_inc(slot: u32) -> i32 {
    (SCALARS + offset_of!(Scalars, loop_inc) + slot as usize * 4) as i32
}
pub const fn loop_saved_al(slot: u32) -> i32 {
    (SCALARS + offset_of!(Scalars, loop_saved_al) + slot as usize * 4) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_where_the_fields_are() {
        let ctx = Context::default();
        let base = &ctx as *const Context as usize;
        assert_eq!(
            input_offset(3, 2) as usize,
            &ctx.input[3][2] as *const Lanes as usize - base
        );
        assert_eq!(
            output_offset(15, 3) as usize,
            &ctx.output[15][3] as *const Lanes as usize - base
        );
        assert_eq!(
            uniform_offset(97, 1) as usize,
            &ctx.uniforms[97][1] as *const f32 as usize - base
        );
        assert_eq!(
            loop_saved_al(2) as usize,
            &ctx.scalars.loop_saved_al[2] as *const i32 as usize - base
        );
        assert_eq!(
            spill_offset(511) as usize,
            &ctx.spill[511] as *const Lanes as usize - base
        );
        assert_eq!(
            const_offset(200, 3) as usize,
            &ctx.constants[200][3] as *const f32 as usize - base
        );
        assert_eq!(ctx.constants[CONST_ENTRIES], [0.0; 4]);
        assert_eq!(ctx.uniforms[96], [1.0; 4]);
        assert_eq!(ctx.uniforms[127], [1.0; 4]);
        assert_eq!(std::mem::align_of::<Context>(), 64);
        // Every displacement fits the 32-bit field of an x86 memory operand.
        assert!(std::mem::size_of::<Context>() < i32::MAX as usize);
    }
}
