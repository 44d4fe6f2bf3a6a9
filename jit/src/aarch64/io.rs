//! The AArch64 kernel's vertex I/O (what moves is decided in `crate::io_plan`): a run of
//! `Input` reads of one register loads it with four LD4 single-structure loads (one per vertex,
//! transposing into S0–S3) and copies the components to their variables' registers (SoA: one
//! plane load per component, straight into the register); an exit gathers each output
//! register's components into S0–S3 and stores them with four ST4 (SoA: plane stores from the
//! variables' registers). The staging stubs fill and drain the context lanes for what goes
//! through them (AoS: LD4/ST4 through `v0`–`v3`); they run while no IR variable is live, so
//! they may use any vector register.

use super::asm;
use super::{Emitter, IoMode, LANES, S0, S1, S2, S3};
use crate::abi;
use crate::io_plan::Plan;
use crate::ir::Inst;
use crate::regalloc::Loc;

impl Emitter<'_> {
    /// Loads the input components `comps` (per register: bit c = component c) into staging.
    pub(super) fn load_inputs(&mut self, mode: IoMode, comps: &[u8; 16]) {
        for (r, &mask) in comps.iter().enumerate() {
            if mask == 0 {
                continue;
            }
            let r = r as u32;
            match mode {
                // `compile` builds no draw kernel on AArch64 yet.
                IoMode::Draw(_) => {}
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

    /// A run of `Input` reads of one register, loaded from the vertices into their variables.
    pub(super) fn input_run(&mut self, mode: IoMode, run: &[Inst]) {
        let r = run[0].imm[0] & 15;
        match mode {
            // `compile` builds no draw kernel on AArch64 yet.
            IoMode::Draw(_) => {}
            IoMode::Soa => {
                for inst in run {
                    let Some(d) = inst.dst else { continue };
                    let c = inst.imm[1] & 3;
                    let reg = self.dst(d);
                    let plane = self.ctx(abi::plane_in(r * 4 + c), 8);
                    asm::scalar::plane_address(&mut self.ops, plane);
                    asm::scalar::load_q_x9(&mut self.ops, reg);
                    self.finish(d, reg);
                }
            }
            IoMode::Aos => {
                asm::scalar::x9_from(&mut self.ops, 2, r * 16);
                for lane in 0..LANES as u32 {
                    asm::ld4_lane_scratch(&mut self.ops, lane);
                }
                for inst in run {
                    let Some(d) = inst.dst else { continue };
                    let comp = [S0, S1, S2, S3][(inst.imm[1] & 3) as usize];
                    match self.loc(d) {
                        Loc::Reg(x) => asm::mov(&mut self.ops, x, comp),
                        Loc::Spill(_) | Loc::Remat | Loc::Unused => self.finish(d, comp),
                    }
                }
            }
        }
    }

    /// The end of an invocation in a block whose trailing stores are `tail`: every output
    /// register the kernel stores goes to the vertices, components from the tail's variables,
    /// else from the bank (written elsewhere), else 0.0.
    pub(super) fn exit_store(&mut self, mode: IoMode, tail: &[Inst], plan: &Plan) {
        let mut from: [[Option<Inst>; 4]; 16] = [[None; 4]; 16];
        for inst in tail {
            from[(inst.imm[0] & 15) as usize][(inst.imm[1] & 3) as usize] = Some(*inst);
        }
        for r in (0..16u32).filter(|r| plan.outs >> r & 1 != 0) {
            let mut regs = [S0, S1, S2, S3];
            for c in 0..4u32 {
                let scratch = regs[c as usize];
                regs[c as usize] = match from[r as usize][c as usize] {
                    // SoA stores from any register; AoS gathers into S0-S3 for ST4.
                    Some(store) => match (mode, self.loc(store.args[0])) {
                        (IoMode::Soa, Loc::Reg(x)) => x,
                        _ => {
                            let x = self.src(store.args[0], scratch);
                            asm::mov(&mut self.ops, scratch, x);
                            scratch
                        }
                    },
                    None if plan.written[r as usize] >> c & 1 != 0 => {
                        asm::load_q_at(&mut self.ops, scratch, 7, (r * 4 + c) * 64);
                        scratch
                    }
                    None => {
                        asm::zero(&mut self.ops, scratch);
                        scratch
                    }
                };
            }
            match mode {
                // `compile` builds no draw kernel on AArch64 yet.
                IoMode::Draw(_) => {}
                IoMode::Soa => {
                    for (c, &reg) in regs.iter().enumerate() {
                        let plane = self.ctx(abi::plane_out(r * 4 + c as u32), 8);
                        asm::scalar::plane_address(&mut self.ops, plane);
                        asm::scalar::store_q_x9(&mut self.ops, reg);
                    }
                }
                IoMode::Aos => {
                    asm::scalar::x9_from(&mut self.ops, 3, r * 16);
                    for lane in 0..LANES as u32 {
                        asm::st4_lane_scratch(&mut self.ops, lane);
                    }
                }
            }
        }
    }

    /// Zeroes the bank lanes of the output components `comps` (bit c of register r); for a
    /// geometry shader the whole bank and the emitter slots, and the triangle count.
    pub(super) fn clear_outputs(&mut self, comps: &[u8; 16], geometry: bool) {
        if comps.iter().all(|&m| m == 0) && !geometry {
            return;
        }
        asm::zero(&mut self.ops, 0);
        for (r, &mask) in comps.iter().enumerate() {
            for c in (0..4).filter(|c| mask >> c & 1 != 0) {
                let a = self.ctx(abi::output_offset(r as u32, c), 16);
                asm::store_q(&mut self.ops, 0, a);
            }
        }
        if geometry {
            // EMIT copies whole registers: every one starts at 0.0.
            for (base, rows) in [(abi::OUTPUT_BANK0, 64u32), (abi::EMIT_SLOTS, 4 * 64)] {
                asm::scalar::ctx_pointer(&mut self.ops, 9, base as u32);
                for row in 0..rows {
                    asm::store_q_at(&mut self.ops, 0, 9, row * 64);
                }
            }
            let a = self.ctx(abi::EMIT_COUNT, 4);
            asm::scalar::store_zero_w(&mut self.ops, a);
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
                // `compile` builds no draw kernel on AArch64 yet.
                IoMode::Draw(_) => {}
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
