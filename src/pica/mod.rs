//! The shader units as the GPU sees them: the PICA200 internal registers an emulator forwards
//! (`write(reg, value, byte_mask)`), the vertex (0x2B0…) and geometry (0x280…) shader blocks
//! with their data ports, the rasterizer's output map and the geometry-stage configuration —
//! everything needed to know which [`Program`] and
//! [`Uniforms`] a draw runs and how its inputs and outputs are routed.
//! Facts: Azahar's `pica_core.cpp` and `shader_setup.cpp`, and 3dbrew's GPU register pages.
//!
//! ```text
//! write(reg, value, mask) ─▶ register array (byte-enable merge)
//!                            ├─ VS block 0x2B0–0x2DF ─▶ ShaderUnit (vertex)   ─┐ mirrored unless the
//!                            ├─ GS block 0x280–0x2AF ─▶ ShaderUnit (geometry) ◀┘ GS is configured apart
//!                            └─ 0x04F–0x056 output map, 0x229… geometry stage (read at draw time)
//! ```
//!
//! Every write is accepted; nothing panics. What out-of-range values do:
//! - **Register numbers** ≥ 0x300 are ignored (Azahar).
//! - **Byte mask.** Bit n enables byte n of the register. The register keeps the merged value
//!   and configuration is read from it; a write to a *data port* (float-uniform, code or
//!   descriptor data) sends the whole written word to the port, whatever the mask (Azahar;
//!   the hardware's behaviour for masked data writes is not documented).
//! - **Code upload.** The offset register is a 32-bit word address. The vertex unit stores
//!   words at offsets 0–511, the geometry unit 0–4095; a word at a higher offset is ignored
//!   and the offset stays where it is (as in Azahar).
//! - **Descriptor upload.** Descriptors 0–127 are stored; the offset advances up to 4096 but
//!   words at 128 and beyond are never used (instructions address 7 bits; Azahar keeps them
//!   in an array no instruction reads).
//! - **Float uniforms.** The index is bits 6–0 of FLOATUNIFORM_INDEX (bit 31: f32 mode). A
//!   completed vector at index ≥ 96 is dropped and the index does not advance (Azahar:
//!   "ignored on real hardware"). Writing the index or the mode does not reset
//!   words already queued.
//! - **Entry point.** Bits 15–0 of ENTRYPOINT, taken modulo 4096 (code addresses are 12
//!   bits wide everywhere else in the ISA; Azahar asserts the value is below 4096).
//! - **Mirroring.** While the geometry unit is not in its exclusive configuration (0x244 bit 0
//!   clear) and no geometry shader is in use (0x229 bits 1–0 = 0), code, descriptor,
//!   float/int/bool uniform and output-mask writes to the vertex block also go to the
//!   geometry unit (Azahar's rule; libctru sets both registers together).

mod commands;
mod outmap;
pub mod regs;
mod unit;
mod upload;

pub use commands::{program_commands, RegWrite};
pub use outmap::{semantic, OutputMap, SemanticSource, SEMANTIC_SLOTS};
pub use regs::{GsConfig, GsMode, InputConfig};
pub use unit::{Changes, ShaderUnit, VS_CODE_WORDS};
pub use upload::{pack_f24, pack_vec_f24, pack_vec_f32, unpack_f24, FloatMode, FloatQueue};

use crate::program::{Program, ShaderKind, Uniforms, Vec4};
use regs::{block, Port};

/// Which shader unit a register block or a helper addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// The vertex-shader block at 0x2B0.
    Vertex,
    /// The geometry-shader block at 0x280.
    Geometry,
}

/// The internal registers of the PICA200 that concern shaders, and both shader units' memories.
#[derive(Clone, Debug)]
pub struct GpuRegs {
    regs: Box<[u32; regs::NUM_REGS]>,
    vs: ShaderUnit,
    gs: ShaderUnit,
}

impl Default for GpuRegs {
    fn default() -> Self {
        GpuRegs::new()
    }
}

impl GpuRegs {
    /// Every register 0, both units' memories zeroed.
    pub fn new() -> GpuRegs {
        GpuRegs {
            regs: Box::new([0; regs::NUM_REGS]),
            vs: ShaderUnit::new(ShaderKind::Vertex),
            gs: ShaderUnit::new(ShaderKind::Geometry),
        }
    }

    /// Writes register `reg` with byte-enable `mask` (bit n enables byte n; 0xF = the whole
    /// word), with the register's side effects (module docs). Never fails.
    pub fn write(&mut self, reg: u16, value: u32, mask: u8) {
        let Some(slot) = self.regs.get_mut(usize::from(reg)) else {
            return;
        };
        let m = regs::byte_mask(mask);
        *slot = (*slot & !m) | (value & m);
        let merged = *slot;
        let Some((unit, offset)) = regs::block_of(reg) else {
            return;
        };
        let mirror = unit == Unit::Vertex && self.mirroring();
        match Port::of(offset) {
            Port::Bools => {
                self.unit_mut(unit).set_bools(merged as u16);
                if mirror {
                    self.gs.set_bools(merged as u16);
                }
            }
            Port::Int(i) => {
                self.unit_mut(unit)
                    .set_int(usize::from(i), merged.to_le_bytes());
                if mirror {
                    self.gs.set_int(usize::from(i), merged.to_le_bytes());
                }
            }
            Port::OutputMask => {
                if mirror {
                    let r = usize::from(regs::reg_of(Unit::Geometry, block::OUTPUT_MASK));
                    self.regs[r] = (self.regs[r] & !0xFFFF) | (merged & 0xFFFF);
                }
            }
            Port::FloatData => {
                let index_reg = usize::from(regs::reg_of(unit, block::FLOAT_INDEX));
                let config = self.regs[index_reg];
                let mode = if config >> 31 != 0 {
                    FloatMode::F32
                } else {
                    FloatMode::F24
                };
                let written = self.unit_mut(unit).push_float(value, config & 0x7F, mode);
                if let Some(index) = written {
                    self.regs[index_reg] = (config & !0x7F) | ((index as u32 + 1) & 0x7F);
                    if mirror {
                        let v = self.vs.uniforms().f[index];
                        self.gs.set_float(index, v);
                    }
                }
            }
            Port::CodeData => {
                let offset_reg = usize::from(regs::reg_of(unit, block::CODE_OFFSET));
                let at = self.regs[offset_reg];
                if self.unit_mut(unit).store_code(at, value) {
                    if mirror {
                        self.gs.store_code(at, value);
                    }
                    self.regs[offset_reg] = at + 1;
                }
            }
            Port::DescData => {
                let offset_reg = usize::from(regs::reg_of(unit, block::DESC_OFFSET));
                let at = self.regs[offset_reg];
                if at < 4096 {
                    self.unit_mut(unit).store_desc(at, value);
                    if mirror {
                        self.gs.store_desc(at, value);
                    }
                    self.regs[offset_reg] = at + 1;
                }
            }
            Port::Latch => {}
        }
    }

    /// The value of register `reg` (0 for numbers ≥ 0x300).
    pub fn read(&self, reg: u16) -> u32 {
        self.regs.get(usize::from(reg)).copied().unwrap_or(0)
    }

    /// A unit's memories.
    pub fn unit(&self, unit: Unit) -> &ShaderUnit {
        match unit {
            Unit::Vertex => &self.vs,
            Unit::Geometry => &self.gs,
        }
    }

    pub(crate) fn unit_mut(&mut self, unit: Unit) -> &mut ShaderUnit {
        match unit {
            Unit::Vertex => &mut self.vs,
            Unit::Geometry => &mut self.gs,
        }
    }

    fn block_reg(&self, unit: Unit, offset: u16) -> u32 {
        self.regs[usize::from(regs::reg_of(unit, offset))]
    }

    /// True while vertex-block writes are mirrored into the geometry unit (module docs).
    pub fn mirroring(&self) -> bool {
        self.read(regs::VSH_COM_MODE) & 1 == 0 && self.read(regs::GEOSTAGE_CONFIG) & 3 == 0
    }

    /// The entry point of a unit (ENTRYPOINT bits 15–0 modulo 4096).
    pub fn entry(&self, unit: Unit) -> u16 {
        (self.block_reg(unit, block::ENTRY) & 0xFFF) as u16
    }

    /// The program a unit runs: its code and descriptor memories and its entry point.
    pub fn program(&self, unit: Unit) -> Program {
        self.unit(unit).program(self.entry(unit))
    }

    /// The same program, borrowed from the unit (no copy of its code memory).
    pub(crate) fn program_ref(&mut self, unit: Unit) -> &Program {
        let entry = self.entry(unit);
        self.unit_mut(unit).program_at(entry)
    }

    /// A unit's uniforms as uploaded.
    pub fn uniforms(&self, unit: Unit) -> &Uniforms {
        self.unit(unit).uniforms()
    }

    /// INPUTBUFFER_CONFIG of a unit.
    pub fn input_config(&self, unit: Unit) -> InputConfig {
        InputConfig::from_word(self.block_reg(unit, block::INPUT_CONFIG))
    }

    /// The input register of each input attribute (attribute k → `v[result[k]]`).
    pub fn permutation(&self, unit: Unit) -> [u8; 16] {
        let low = u64::from(self.block_reg(unit, block::PERMUTATION_LOW));
        let high = u64::from(self.block_reg(unit, block::PERMUTATION_HIGH));
        let map = high << 32 | low;
        std::array::from_fn(|k| ((map >> (4 * k)) & 0xF) as u8)
    }

    /// OUTMAP_MASK of a unit (bit r = o_r is an output attribute).
    pub fn output_mask(&self, unit: Unit) -> u16 {
        self.block_reg(unit, block::OUTPUT_MASK) as u16
    }

    /// The rasterizer's output map (OUTMAP_TOTAL and OUTMAP_O0–O6).
    pub fn output_map(&self) -> OutputMap {
        OutputMap {
            count: (self.read(regs::OUTMAP_TOTAL) & 7) as u8,
            slots: std::array::from_fn(|j| regs::outmap_ids(self.read(regs::OUTMAP_O0 + j as u16))),
        }
    }

    /// OUTMAP_TOTAL and OUTMAP_O0–O6 as written (what [`GpuRegs::output_map`] decodes), for
    /// comparing maps without decoding them.
    pub(crate) fn output_map_words(&self) -> [u32; 8] {
        std::array::from_fn(|j| self.read(regs::OUTMAP_TOTAL + j as u16))
    }

    /// True if draws go through the geometry shader (GEOSTAGE_CONFIG bits 1–0 = 2).
    pub fn geometry_in_use(&self) -> bool {
        self.read(regs::GEOSTAGE_CONFIG) & 3 == 2
    }

    /// True if GEOSTAGE_CONFIG selects variable-primitive index handling (bit 31).
    pub fn variable_primitive(&self) -> bool {
        self.read(regs::GEOSTAGE_CONFIG) >> 31 != 0
    }

    /// GSH_MISC0.
    pub fn gs_config(&self) -> GsConfig {
        GsConfig::from_word(self.read(regs::GSH_MISC0))
    }

    /// Vertex-shader output attributes the geometry pipeline takes per vertex
    /// (VSH_OUTMAP_TOTAL1 bits 3–0, plus one).
    pub fn vs_output_total(&self) -> usize {
        (self.read(regs::VSH_OUTMAP_TOTAL1) & 0xF) as usize + 1
    }

    /// Variable-primitive mode: vertices of a primitive that pass all their attributes
    /// (GSH_MISC1 plus one, wrapping as Azahar's 32-bit field does).
    pub fn variable_main_vertices(&self) -> u32 {
        self.read(regs::GSH_MISC1).wrapping_add(1)
    }

    /// Forgets the changes recorded for a unit and returns them.
    pub fn take_changes(&mut self, unit: Unit) -> Changes {
        self.unit_mut(unit).take_changes()
    }

    // ------------------------------------------------------------------------------------
    // Typed helpers: each is the register writes a command list would make (whole words).
    // ------------------------------------------------------------------------------------

    fn write_block(&mut self, unit: Unit, offset: u16, value: u32) {
        self.write(regs::reg_of(unit, offset), value, 0xF);
    }

    /// Uploads code words starting at word address `offset`.
    pub fn upload_code(&mut self, unit: Unit, offset: u32, words: &[u32]) {
        self.write_block(unit, block::CODE_OFFSET, offset);
        for &w in words {
            self.write_block(unit, block::CODE_DATA, w);
        }
        self.write_block(unit, block::CODE_END, 1);
    }

    /// Uploads operand descriptors starting at index `offset`.
    pub fn upload_descs(&mut self, unit: Unit, offset: u32, words: &[u32]) {
        self.write_block(unit, block::DESC_OFFSET, offset);
        for &w in words {
            self.write_block(unit, block::DESC_DATA, w);
        }
    }

    /// Uploads float uniforms from `index` on in `mode` (f24 truncates each value to float24
    /// as the tools do; f32 keeps every bit).
    pub fn upload_floats(&mut self, unit: Unit, index: u8, mode: FloatMode, values: &[Vec4]) {
        let mode_bit = match mode {
            FloatMode::F24 => 0,
            FloatMode::F32 => 1 << 31,
        };
        self.write_block(unit, block::FLOAT_INDEX, mode_bit | u32::from(index & 0x7F));
        for &v in values {
            match mode {
                FloatMode::F24 => {
                    for w in pack_vec_f24(v) {
                        self.write_block(unit, block::FLOAT_DATA, w);
                    }
                }
                FloatMode::F32 => {
                    for w in pack_vec_f32(v) {
                        self.write_block(unit, block::FLOAT_DATA, w);
                    }
                }
            }
        }
    }

    /// Uploads raw float24 vectors (x, y, z, w, low 24 bits each) from `index` on.
    pub fn upload_floats_f24(&mut self, unit: Unit, index: u8, raw: &[[u32; 4]]) {
        self.write_block(unit, block::FLOAT_INDEX, u32::from(index & 0x7F));
        for &v in raw {
            for w in pack_f24(v) {
                self.write_block(unit, block::FLOAT_DATA, w);
            }
        }
    }

    /// Sets int uniform `i` (0–3; others ignored) to bytes x (count), y (start), z (step), w.
    pub fn set_int_uniform(&mut self, unit: Unit, i: u8, value: [u8; 4]) {
        if i < 4 {
            self.write_block(
                unit,
                block::INT_UNIFORMS + u16::from(i),
                u32::from_le_bytes(value),
            );
        }
    }

    /// Sets the bool uniforms (bit n = b_n).
    pub fn set_bool_uniforms(&mut self, unit: Unit, bits: u16) {
        self.write_block(unit, block::BOOL_UNIFORMS, 0x7FFF_0000 | u32::from(bits));
    }

    /// Sets the entry point.
    pub fn set_entry(&mut self, unit: Unit, entry: u16) {
        self.write_block(unit, block::ENTRY, 0x7FFF_0000 | u32::from(entry));
    }

    /// Sets INPUTBUFFER_CONFIG: `attributes` input attributes (1–16, clamped), the unit's mode
    /// byte and, for the geometry unit, whether vertex data goes to uniforms.
    pub fn set_input_attributes(&mut self, unit: Unit, attributes: u8, to_uniforms: bool) {
        let mode: u32 = match unit {
            Unit::Vertex => 0xA0,
            Unit::Geometry => 0x08,
        };
        let max = u32::from(attributes.clamp(1, 16) - 1);
        self.write_block(
            unit,
            block::INPUT_CONFIG,
            mode << 24 | u32::from(to_uniforms) << 8 | max,
        );
    }

    /// Sets the attribute permutation: attribute k is loaded into `v[map[k] & 15]`.
    pub fn set_permutation(&mut self, unit: Unit, map: [u8; 16]) {
        let word = map
            .iter()
            .enumerate()
            .fold(0u64, |w, (k, &r)| w | u64::from(r & 0xF) << (4 * k));
        self.write_block(unit, block::PERMUTATION_LOW, word as u32);
        self.write_block(unit, block::PERMUTATION_HIGH, (word >> 32) as u32);
    }

    /// Sets OUTMAP_MASK.
    pub fn set_output_mask(&mut self, unit: Unit, mask: u16) {
        self.write_block(unit, block::OUTPUT_MASK, u32::from(mask));
    }

    /// Sets the rasterizer's output map: OUTMAP_TOTAL = `slots.len()` (at most 7 are written)
    /// and OUTMAP_O0… the semantic ids of each attribute's components (31 = unused).
    pub fn set_output_map(&mut self, slots: &[[u8; 4]]) {
        let n = slots.len().min(regs::OUTMAP_SLOTS);
        self.write(regs::OUTMAP_TOTAL, n as u32, 0xF);
        for (j, &ids) in slots.iter().take(n).enumerate() {
            self.write(regs::OUTMAP_O0 + j as u16, regs::outmap_word(ids), 0xF);
        }
    }

    /// Turns the geometry stage on (GEOSTAGE_CONFIG = 2, the geometry unit exclusive,
    /// variable-primitive index handling as `gs.mode` says) or off, as libctru does.
    pub fn set_geometry_stage(&mut self, gs: Option<GsConfig>) {
        match gs {
            None => {
                self.write(regs::GEOSTAGE_CONFIG, 0, 0x1);
                self.write(regs::GEOSTAGE_CONFIG, 0, 0x8);
                self.write(regs::VSH_COM_MODE, 0, 0x1);
            }
            Some(config) => {
                let variable = u32::from(config.mode == GsMode::VariablePrimitive);
                self.write(regs::GEOSTAGE_CONFIG, 2, 0x1);
                self.write(regs::GEOSTAGE_CONFIG, variable << 31, 0x8);
                self.write(regs::VSH_COM_MODE, 1, 0x1);
                let mode = match config.mode {
                    GsMode::Point => 0,
                    GsMode::VariablePrimitive => 1,
                    GsMode::FixedPrimitive => 2,
                    GsMode::Invalid(b) => u32::from(b),
                };
                let word = mode
                    | u32::from(config.fixed_vertices_minus_1 & 0xF) << 8
                    | u32::from(config.stride_minus_1 & 0xF) << 12
                    | u32::from(config.start_index) << 16;
                self.write(regs::GSH_MISC0, word, 0xF);
            }
        }
    }

    /// Sets the vertex shader's output attribute count seen by the geometry pipeline
    /// (VSH_OUTMAP_TOTAL1 and 2; 1–16).
    pub fn set_vs_output_total(&mut self, attributes: u8) {
        let v = u32::from(attributes.clamp(1, 16) - 1);
        self.write(regs::VSH_OUTMAP_TOTAL1, v, 0xF);
        self.write(regs::VSH_OUTMAP_TOTAL2, v, 0xF);
    }

    /// Variable-primitive mode: the vertices of each primitive that pass all attributes.
    pub fn set_variable_main_vertices(&mut self, n: u32) {
        self.write(regs::GSH_MISC1, n.wrapping_sub(1), 0xF);
    }

    /// Sets b15 of the geometry unit (the geometry pipeline does after every invocation).
    pub(crate) fn set_gs_b15(&mut self) {
        let b = self.gs.uniforms().b | 0x8000;
        self.gs.set_bools(b);
    }

    /// Writes a float uniform of the geometry unit directly (the geometry pipeline's
    /// variable- and fixed-primitive modes); indices ≥ 96 are dropped.
    pub(crate) fn set_gs_float(&mut self, index: usize, value: Vec4) {
        self.gs.set_float(index, value);
    }
}
