//! The register writes a 3DS program's command list makes to load a shader from a SHBIN (what
//! libctru's `shaderProgramUse` sends): for examples, tests and tools that stand in for a game.

use super::outmap::OutputMap;
use super::regs::{self, block};
use super::Unit;
use crate::program::ShaderKind;
use crate::shbin::{Constant, Shbin, ShbinError};

/// One register write: register number, value, byte-enable mask (0xF = whole word).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegWrite {
    pub reg: u16,
    pub value: u32,
    pub mask: u8,
}

/// The writes that load DVLE `dvle` of `shbin` into its unit (vertex or geometry, from the
/// DVLE's kind): code and descriptors from offset 0, bool, int and float constants (float
/// constants as the raw float24 words the file holds), entry point, output mask, and the
/// rasterizer's output map and the vertex shader's output count (VSH_OUTMAP_TOTAL1/2) from
/// the output table ([`OutputMap::from_dvle`]). For a vertex DVLE the geometry stage is
/// first switched off (as libctru does); input attributes, the permutation and the geometry
/// stage's own configuration are the caller's (a game sets them from its vertex layout).
pub fn program_commands(shbin: &Shbin, dvle: usize) -> Result<Vec<RegWrite>, ShbinError> {
    let entry = shbin.dvles.get(dvle).ok_or(ShbinError::NoSuchDvle {
        index: dvle,
        count: shbin.dvles.len(),
    })?;
    let unit = match entry.kind {
        ShaderKind::Vertex => Unit::Vertex,
        ShaderKind::Geometry => Unit::Geometry,
    };
    let mut out = Vec::with_capacity(shbin.dvlp.code.len() + shbin.dvlp.descs.len() + 64);
    let mut put = |reg: u16, value: u32, mask: u8| out.push(RegWrite { reg, value, mask });
    let at = |offset: u16| regs::reg_of(unit, offset);
    if unit == Unit::Vertex {
        put(regs::GEOSTAGE_CONFIG, 0, 0x1);
        put(regs::VSH_COM_MODE, 0, 0x1);
    }
    put(at(block::CODE_OFFSET), 0, 0xF);
    for &w in &shbin.dvlp.code {
        put(at(block::CODE_DATA), w, 0xF);
    }
    put(at(block::CODE_END), 1, 0xF);
    put(at(block::DESC_OFFSET), 0, 0xF);
    for d in &shbin.dvlp.descs {
        put(at(block::DESC_DATA), d.word, 0xF);
    }
    let mut bools = 0u32;
    let mut ints = [0u32; 4];
    for constant in &entry.constants {
        match *constant {
            Constant::Bool { reg, value } if reg < 16 => {
                bools = (bools & !(1 << reg)) | u32::from(value) << reg;
            }
            Constant::Int { reg, value } if reg < 4 => {
                ints[usize::from(reg)] = u32::from_le_bytes(value)
            }
            Constant::Float { reg, x, y, z, w } if reg < 96 => {
                put(at(block::FLOAT_INDEX), u32::from(reg), 0xF);
                for word in super::pack_f24([x, y, z, w]) {
                    put(at(block::FLOAT_DATA), word, 0xF);
                }
            }
            Constant::Bool { .. }
            | Constant::Int { .. }
            | Constant::Float { .. }
            | Constant::Raw { .. } => {}
        }
    }
    put(at(block::BOOL_UNIFORMS), 0x7FFF_0000 | bools, 0xF);
    for (i, &v) in ints.iter().enumerate() {
        put(at(block::INT_UNIFORMS) + i as u16, v, 0xF);
    }
    put(
        at(block::ENTRY),
        0x7FFF_0000 | (entry.entry_start & 0xFFFF),
        0xF,
    );
    let (map, mask) = OutputMap::from_dvle(entry);
    put(at(block::OUTPUT_MASK), u32::from(mask), 0xF);
    if unit == Unit::Vertex {
        let total = u32::from(map.count.max(1) - 1);
        put(regs::VSH_OUTMAP_TOTAL1, total, 0xF);
        put(regs::VSH_OUTMAP_TOTAL2, total, 0xF);
    }
    put(regs::OUTMAP_TOTAL, u32::from(map.count), 0xF);
    for (j, ids) in map.slots.iter().enumerate() {
        put(regs::OUTMAP_O0 + j as u16, regs::outmap_word(*ids), 0xF);
    }
    Ok(out)
}
