//! The batch loop's I/O stubs: before each batch, the input components the program reads are
//! brought into the context's staging lanes (AoS: 16-byte register loads and a 4×4 transpose
//! per register; SoA: one vector load per component plane); after it, the output registers the
//! program writes go back (the reverse transpose, or plane stores). Stubs run while no IR
//! variable is live, so they may use any vector register.

use super::asm::{self, Base, Mem, VOp};
use super::Emitter;
use crate::abi;

/// How a kernel finds its vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IoMode {
    /// Vertices of 16 registers × 4 f32 (`[[f32; 4]; 16]`), one after another.
    Aos,
    /// One plane of f32 per (register, component); plane pointers in the context.
    Soa,
}

/// Registers of the transpose.
const ROWS: [u8; 4] = [0, 1, 2, 3];
const TMP: [u8; 4] = [4, 5, 6, 7];
const COLS: [u8; 4] = [8, 9, 10, 11];

impl Emitter<'_> {
    /// Loads the input components `comps` (per register: bit c = component c) into staging.
    pub(super) fn load_inputs(&mut self, mode: IoMode, comps: &[u8; 16]) {
        let t = self.tier;
        for (r, &mask) in comps.iter().enumerate() {
            if mask == 0 {
                continue;
            }
            match mode {
                IoMode::Soa => {
                    for c in 0..4 {
                        if mask >> c & 1 != 0 {
                            asm::scalar::load_rax(&mut self.ops, abi::plane_in((r * 4 + c) as u32));
                            asm::load_plane(&mut self.ops, t, ROWS[0]);
                            asm::store(
                                &mut self.ops,
                                t,
                                abi::input_offset(r as u32, c as u32),
                                ROWS[0],
                            );
                        }
                    }
                }
                IoMode::Aos => {
                    for (k, &row) in ROWS.iter().enumerate() {
                        let disp = k as i32 * abi::AOS_VERTEX_BYTES + r as i32 * 16;
                        asm::load_xmm(&mut self.ops, t, row, Base::Rsi, disp);
                        if t == asm::Tier::Avx2 {
                            asm::insert_high(&mut self.ops, row, disp + 4 * abi::AOS_VERTEX_BYTES);
                        }
                    }
                    // Rows hold (x, y, z, w) of vertices k (and k + 4); transpose to columns.
                    let low = mask & 0b0011 != 0;
                    let high = mask & 0b1100 != 0;
                    if low {
                        asm::vop(&mut self.ops, t, VOp::UnpckLps, TMP[0], ROWS[0], ROWS[1]);
                        asm::vop(&mut self.ops, t, VOp::UnpckLps, TMP[2], ROWS[2], ROWS[3]);
                    }
                    if high {
                        asm::vop(&mut self.ops, t, VOp::UnpckHps, TMP[1], ROWS[0], ROWS[1]);
                        asm::vop(&mut self.ops, t, VOp::UnpckHps, TMP[3], ROWS[2], ROWS[3]);
                    }
                    let plan = [
                        (VOp::UnpckLpd, TMP[0], TMP[2]),
                        (VOp::UnpckHpd, TMP[0], TMP[2]),
                        (VOp::UnpckLpd, TMP[1], TMP[3]),
                        (VOp::UnpckHpd, TMP[1], TMP[3]),
                    ];
                    for (c, &(op, a, b)) in plan.iter().enumerate() {
                        if mask >> c & 1 != 0 {
                            asm::vop(&mut self.ops, t, op, COLS[c], a, b);
                            asm::store(
                                &mut self.ops,
                                t,
                                abi::input_offset(r as u32, c as u32),
                                COLS[c],
                            );
                        }
                    }
                }
            }
        }
    }

    /// Zeroes the staging lanes of the output registers `regs` (bit r = register r); for a
    /// geometry shader also the second bank and the emitter slots, and resets the emitter.
    pub(super) fn clear_outputs(&mut self, regs: u16, geometry: bool) {
        let t = self.tier;
        asm::zero(&mut self.ops, t, ROWS[0]);
        for r in 0..16 {
            if regs >> r & 1 != 0 {
                for c in 0..4 {
                    asm::store(&mut self.ops, t, abi::output_offset(r, c), ROWS[0]);
                }
            }
        }
        if geometry {
            // EMIT copies whole banks: every register starts at 0.0 in both.
            for row in 0..64 {
                asm::store(&mut self.ops, t, abi::OUTPUT_BANK0 + row * 64, ROWS[0]);
                asm::store(&mut self.ops, t, abi::OUTPUT_BANK1 + row * 64, ROWS[0]);
            }
            for row in 0..4 * 64 {
                asm::store(&mut self.ops, t, abi::EMIT_SLOTS + row * 64, ROWS[0]);
            }
            asm::scalar::store_imm(&mut self.ops, abi::EMIT_VERTEX, 0);
            asm::scalar::store_imm(&mut self.ops, abi::EMIT_FLAGS, 0);
            asm::scalar::store_imm(&mut self.ops, abi::EMIT_COUNT, 0);
        }
    }

    /// Stores the output registers `regs` (all four components) from staging, or from the
    /// retired lanes' outputs when the function retires lanes (`retired`).
    pub(super) fn store_outputs(&mut self, mode: IoMode, regs: u16, retired: bool) {
        let t = self.tier;
        for r in 0..16u32 {
            if regs >> r & 1 == 0 {
                continue;
            }
            for c in 0..4u32 {
                let disp = ((r * 4 + c) * 64) as i32;
                if retired {
                    asm::load(
                        &mut self.ops,
                        t,
                        ROWS[c as usize],
                        Mem::Ctx(abi::RETIRED + disp),
                    );
                } else {
                    // From the current bank (bank 0 unless a geometry shader switched).
                    asm::load_bank(&mut self.ops, t, ROWS[c as usize], disp);
                }
            }
            match mode {
                IoMode::Soa => {
                    for c in 0..4u32 {
                        asm::scalar::load_rax(&mut self.ops, abi::plane_out(r * 4 + c));
                        asm::store_plane(&mut self.ops, t, ROWS[c as usize]);
                    }
                }
                IoMode::Aos => {
                    // Columns x, y, z, w → rows per vertex.
                    asm::vop(&mut self.ops, t, VOp::UnpckLps, TMP[0], ROWS[0], ROWS[1]);
                    asm::vop(&mut self.ops, t, VOp::UnpckHps, TMP[1], ROWS[0], ROWS[1]);
                    asm::vop(&mut self.ops, t, VOp::UnpckLps, TMP[2], ROWS[2], ROWS[3]);
                    asm::vop(&mut self.ops, t, VOp::UnpckHps, TMP[3], ROWS[2], ROWS[3]);
                    let plan = [
                        (VOp::UnpckLpd, TMP[0], TMP[2]),
                        (VOp::UnpckHpd, TMP[0], TMP[2]),
                        (VOp::UnpckLpd, TMP[1], TMP[3]),
                        (VOp::UnpckHpd, TMP[1], TMP[3]),
                    ];
                    for (k, &(op, a, b)) in plan.iter().enumerate() {
                        asm::vop(&mut self.ops, t, op, COLS[k], a, b);
                        let disp = k as i32 * abi::AOS_VERTEX_BYTES + r as i32 * 16;
                        asm::store_xmm(&mut self.ops, t, COLS[k], Base::R8, disp);
                        if t == asm::Tier::Avx2 {
                            asm::extract_high(
                                &mut self.ops,
                                COLS[k],
                                disp + 4 * abi::AOS_VERTEX_BYTES,
                            );
                        }
                    }
                }
            }
        }
    }
}
