//! The batch loop's I/O stubs: before each batch, the input components the program reads are
//! brought into the context's staging lanes (AoS: LD4 single-structure loads, one per vertex,
//! transpose the four components into `v0`–`v3`; SoA: one vector load per component plane);
//! after it, the output registers the program writes go back (ST4 per vertex, or plane
//! stores). Stubs run while no IR variable is live, so they may use any vector register.

use super::asm;
use super::{Emitter, IoMode, LANES};
use crate::abi;

impl Emitter<'_> {
    /// Loads the input components `comps` (per register: bit c = component c) into staging.
    pub(super) fn load_inputs(&mut self, mode: IoMode, comps: &[u8; 16]) {
        for (r, &mask) in comps.iter().enumerate() {
            if mask == 0 {
                continue;
            }
            let r = r as u32;
            match mode {
                IoMode::Soa => {
                    for c in (0..4u32).filter(|c| mask >> c & 1 != 0) {
                        let plane = self.ctx(abi::plane_in(r * 4 + c), 8);
                        asm::scalar::plane_address(&mut self.ops, plane);
                        asm::scalar::load_q_x9(&mut self.ops, 0);
                        let a = self.ctx(abi::input_offset(r, c), 16);
                        asm::store_q(&mut self.ops, 0, a);
                    }
                }
                IoMode::Aos => {
                    asm::scalar::x9_from(&mut self.ops, 2, r * 16);
                    for lane in 0..LANES as u32 {
                        asm::ld4_lane(&mut self.ops, lane);
                    }
                    for c in (0..4u32).filter(|c| mask >> c & 1 != 0) {
                        let a = self.ctx(abi::input_offset(r, c), 16);
                        asm::store_q(&mut self.ops, c as u8, a);
                    }
                }
            }
        }
    }

    /// Zeroes the staging lanes of the output registers `regs` (bit r = register r); for a
    /// geometry shader also the second bank and the emitter slots, and resets the emitter.
    pub(super) fn clear_outputs(&mut self, regs: u16, geometry: bool) {
        asm::zero(&mut self.ops, 0);
        for r in (0..16u32).filter(|r| regs >> r & 1 != 0) {
            for c in 0..4 {
                let a = self.ctx(abi::output_offset(r, c), 16);
                asm::store_q(&mut self.ops, 0, a);
            }
        }
        if geometry {
            // EMIT copies whole banks: every register starts at 0.0 in both.
            for (base, rows) in [
                (abi::OUTPUT_BANK0, 64u32),
                (abi::OUTPUT_BANK1, 64),
                (abi::EMIT_SLOTS, 4 * 64),
            ] {
                asm::scalar::ctx_pointer(&mut self.ops, 9, base as u32);
                for row in 0..rows {
                    asm::store_q_at(&mut self.ops, 0, 9, row * 64);
                }
            }
            for field in [abi::EMIT_VERTEX, abi::EMIT_FLAGS, abi::EMIT_COUNT] {
                let a = self.ctx(field, 4);
                asm::scalar::store_zero_w(&mut self.ops, a);
            }
        }
    }

    /// Stores the output registers `regs` (all four components) from staging.
    pub(super) fn store_outputs(&mut self, mode: IoMode, regs: u16, retired: bool) {
        for r in (0..16u32).filter(|r| regs >> r & 1 != 0) {
            for c in 0..4u32 {
                if retired {
                    let a = self.ctx(abi::RETIRED + ((r * 4 + c) * 64) as i32, 16);
                    asm::load_q(&mut self.ops, c as u8, a);
                } else {
                    // From the current bank (bank 0 unless a geometry shader switched).
                    asm::load_q_at(&mut self.ops, c as u8, 7, (r * 4 + c) * 64);
                }
            }
            match mode {
                IoMode::Soa => {
                    for c in 0..4u32 {
                        let plane = self.ctx(abi::plane_out(r * 4 + c), 8);
                        asm::scalar::plane_address(&mut self.ops, plane);
                        asm::scalar::store_q_x9(&mut self.ops, c as u8);
                    }
                }
                IoMode::Aos => {
                    asm::scalar::x9_from(&mut self.ops, 3, r * 16);
                    for lane in 0..LANES as u32 {
                        asm::st4_lane(&mut self.ops, lane);
                    }
                }
            }
        }
    }
}
