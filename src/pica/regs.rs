//! The PICA200 internal register numbers the shader units and the vertex pipeline use, what
//! each register of a shader block does when written ([`Port`]), and the bit fields of the
//! configuration registers, sliced here once (the fields of Azahar's `regs_shader.h`,
//! `regs_pipeline.h` and `regs_rasterizer.h`).

use super::Unit;

/// Number of internal registers (0x000–0x2FF); writes to higher numbers are ignored.
pub const NUM_REGS: usize = 0x300;

/// First register of the geometry-shader block (GPUREG_GSH_BOOLUNIFORM).
pub const GS_BASE: u16 = 0x280;
/// First register of the vertex-shader block (GPUREG_VSH_BOOLUNIFORM).
pub const VS_BASE: u16 = 0x2B0;
/// Registers per shader block.
pub const BLOCK_LEN: u16 = 0x30;

/// Offsets inside a shader block (add [`VS_BASE`] or [`GS_BASE`]).
pub mod block {
    /// Bool uniforms b0–b15 (bits 0–15).
    pub const BOOL_UNIFORMS: u16 = 0x00;
    /// Int uniforms i0–i3: four consecutive registers, bytes x, y, z, w from the low byte.
    pub const INT_UNIFORMS: u16 = 0x01;
    /// INPUTBUFFER_CONFIG: `[3:0]` input attributes − 1, `[15:8]` GS "input to uniform",
    /// `[31:24]` mode (0xA0 vertex, 0x08 geometry).
    pub const INPUT_CONFIG: u16 = 0x09;
    /// ENTRYPOINT: `[15:0]` the entry word address.
    pub const ENTRY: u16 = 0x0A;
    /// ATTRIBUTES_PERMUTATION_LOW/HIGH: 4 bits per input attribute (attribute k → register).
    pub const PERMUTATION_LOW: u16 = 0x0B;
    pub const PERMUTATION_HIGH: u16 = 0x0C;
    /// OUTMAP_MASK: bit r enables output register o_r.
    pub const OUTPUT_MASK: u16 = 0x0D;
    /// CODETRANSFER_END: written after an upload; no effect here.
    pub const CODE_END: u16 = 0x0F;
    /// FLOATUNIFORM_INDEX: `[6:0]` the next float uniform, bit 31 = f32 mode (else f24).
    pub const FLOAT_INDEX: u16 = 0x10;
    /// FLOATUNIFORM_DATA0–7: eight aliases of the float-uniform data port.
    pub const FLOAT_DATA: u16 = 0x11;
    /// CODETRANSFER_INDEX: the word address of the next code word.
    pub const CODE_OFFSET: u16 = 0x1B;
    /// CODETRANSFER_DATA0–7: eight aliases of the code data port.
    pub const CODE_DATA: u16 = 0x1C;
    /// OPDESCS_INDEX: the index of the next operand descriptor.
    pub const DESC_OFFSET: u16 = 0x25;
    /// OPDESCS_DATA0–7: eight aliases of the descriptor data port.
    pub const DESC_DATA: u16 = 0x26;
    /// Aliases per data port.
    pub const PORT_ALIASES: u16 = 8;
}

/// GPUREG_SH_OUTMAP_TOTAL: `[2:0]` the number of output attributes the rasterizer reads.
pub const OUTMAP_TOTAL: u16 = 0x04F;
/// GPUREG_SH_OUTMAP_O0–O6: the semantic of each component of output attribute 0–6.
pub const OUTMAP_O0: u16 = 0x050;
/// Output attributes with an OUTMAP register.
pub const OUTMAP_SLOTS: usize = 7;
/// GPUREG_GEOSTAGE_CONFIG: `[1:0]` 2 = geometry shader in use, 0 = not; bit 31 variable
/// primitive mode.
pub const GEOSTAGE_CONFIG: u16 = 0x229;
/// GPUREG_VSH_NUM_ATTR: `[3:0]` vertex attributes the loader fetches − 1.
pub const VSH_NUM_ATTR: u16 = 0x242;
/// GPUREG_VSH_COM_MODE: bit 0 = the geometry unit has its own configuration ("exclusive"),
/// so vertex-block writes are not mirrored into it.
pub const VSH_COM_MODE: u16 = 0x244;
/// GPUREG_VSH_OUTMAP_TOTAL1/2: `[3:0]` vertex-shader output attributes − 1 (the geometry
/// pipeline reads TOTAL1).
pub const VSH_OUTMAP_TOTAL1: u16 = 0x24A;
pub const VSH_OUTMAP_TOTAL2: u16 = 0x251;
/// GPUREG_GSH_MISC0: `[7:0]` mode (0 point, 1 variable primitive, 2 fixed primitive),
/// `[11:8]` fixed vertex count − 1, `[15:12]` stride − 1, `[23:16]` first float uniform.
pub const GSH_MISC0: u16 = 0x252;
/// GPUREG_GSH_MISC1: `[3:0]`… main vertices of variable-primitive mode − 1 (the whole word
/// is read, as Azahar does).
pub const GSH_MISC1: u16 = 0x254;

/// The block a register belongs to and its offset in it.
pub fn block_of(reg: u16) -> Option<(Unit, u16)> {
    if (VS_BASE..VS_BASE + BLOCK_LEN).contains(&reg) {
        Some((Unit::Vertex, reg - VS_BASE))
    } else if (GS_BASE..GS_BASE + BLOCK_LEN).contains(&reg) {
        Some((Unit::Geometry, reg - GS_BASE))
    } else {
        None
    }
}

/// A register of a unit's block.
pub fn reg_of(unit: Unit, offset: u16) -> u16 {
    match unit {
        Unit::Vertex => VS_BASE + offset,
        Unit::Geometry => GS_BASE + offset,
    }
}

/// What writing a register of a shader block does besides latching the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Port {
    /// b0–b15 take the register's bits 0–15.
    Bools,
    /// Int uniform i0–i3 takes the register's four bytes.
    Int(u8),
    /// The output mask (mirrored into the geometry unit, see [`super::GpuRegs`]).
    OutputMask,
    /// The written word goes to the float-uniform upload queue.
    FloatData,
    /// The written word is stored at the code offset, which then advances.
    CodeData,
    /// The written word is stored at the descriptor offset, which then advances.
    DescData,
    /// Only the register's value changes (configuration read when needed, or unused).
    Latch,
}

impl Port {
    /// The port of a block offset.
    pub fn of(offset: u16) -> Port {
        use block::*;
        let in_port = |base: u16| (base..base + PORT_ALIASES).contains(&offset);
        if offset == BOOL_UNIFORMS {
            Port::Bools
        } else if (INT_UNIFORMS..INT_UNIFORMS + 4).contains(&offset) {
            Port::Int((offset - INT_UNIFORMS) as u8)
        } else if offset == OUTPUT_MASK {
            Port::OutputMask
        } else if in_port(FLOAT_DATA) {
            Port::FloatData
        } else if in_port(CODE_DATA) {
            Port::CodeData
        } else if in_port(DESC_DATA) {
            Port::DescData
        } else {
            Port::Latch
        }
    }
}

/// The byte-enable mask of a register write (4 bits, bit n = byte n) as a 32-bit mask.
pub fn byte_mask(mask: u8) -> u32 {
    (0..4)
        .filter(|b| mask >> b & 1 != 0)
        .fold(0, |m, b| m | 0xFF << (8 * b))
}

/// INPUTBUFFER_CONFIG of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputConfig {
    /// Input attributes loaded into v registers − 1 (`[3:0]`).
    pub max_attribute: u8,
    /// Geometry block: 1 = the vertex data goes to float uniforms (variable and fixed
    /// primitive modes) (`[15:8]`).
    pub input_to_uniform: u8,
    /// 0xA0 vertex, 0x08 geometry (`[31:24]`).
    pub mode: u8,
}

impl InputConfig {
    pub fn from_word(w: u32) -> InputConfig {
        InputConfig {
            max_attribute: (w & 0xF) as u8,
            input_to_uniform: (w >> 8) as u8,
            mode: (w >> 24) as u8,
        }
    }
}

/// The geometry pipeline's mode (GSH_MISC0 `[7:0]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GsMode {
    /// Vertex outputs are concatenated into the geometry unit's input registers.
    Point,
    /// The first index of each primitive is its vertex count; vertices go to float uniforms.
    VariablePrimitive,
    /// A fixed number of vertices per invocation go to float uniforms.
    FixedPrimitive,
    /// Any other value: the pipeline refuses to draw ([`GsMode::from_byte`]).
    Invalid(u8),
}

impl GsMode {
    pub fn from_byte(b: u8) -> GsMode {
        match b {
            0 => GsMode::Point,
            1 => GsMode::VariablePrimitive,
            2 => GsMode::FixedPrimitive,
            other => GsMode::Invalid(other),
        }
    }
}

/// GSH_MISC0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GsConfig {
    pub mode: GsMode,
    /// Fixed-primitive mode: vertices per invocation − 1 (`[11:8]`).
    pub fixed_vertices_minus_1: u8,
    /// Attributes per vertex − 1 (`[15:12]`).
    pub stride_minus_1: u8,
    /// Fixed-primitive mode: the first float uniform written (`[23:16]`, 8 bits).
    pub start_index: u8,
}

impl GsConfig {
    pub fn from_word(w: u32) -> GsConfig {
        GsConfig {
            mode: GsMode::from_byte(w as u8),
            fixed_vertices_minus_1: ((w >> 8) & 0xF) as u8,
            stride_minus_1: ((w >> 12) & 0xF) as u8,
            start_index: (w >> 16) as u8,
        }
    }
}

/// One OUTMAP_On register: the semantic id of each component (x `[4:0]`, y `[12:8]`, z `[20:16]`,
/// w `[28:24]`).
pub fn outmap_ids(w: u32) -> [u8; 4] {
    std::array::from_fn(|c| ((w >> (8 * c)) & 0x1F) as u8)
}

/// The OUTMAP_On word of four semantic ids (the inverse of [`outmap_ids`]).
pub fn outmap_word(ids: [u8; 4]) -> u32 {
    ids.iter()
        .enumerate()
        .fold(0, |w, (c, &id)| w | (u32::from(id) & 0x1F) << (8 * c))
}
