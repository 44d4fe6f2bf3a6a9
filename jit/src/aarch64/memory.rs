//! Inputs, outputs and float uniforms, including PICA relative addressing: a batch-uniform
//! offset (aL) is a scalar address computation and an LD1R broadcast; a per-lane offset (a0)
//! computes every lane's row index in a vector register, then loads every lane's whole row
//! with a transposing LD4 into that lane of four registers (no gathers on NEON).

use super::asm::{self, VOp};
use super::{Emitter, S0, S1, S2, S3, S4, S5, S6};
use crate::abi;
use crate::ir::Var;

/// Scratch lanes of the fetched rows (x, y, z, w arrays).
const ROW_LANES: u32 = 8;
/// Marks a row-cache key as the constant table's (uniform bases are below 128).
const CONST_TAG: u32 = 1 << 31;

impl Emitter<'_> {
    /// A batch-uniform component: its broadcast row (c0..c95, filled by the host for every
    /// component a function reads this way), or 1.0 for the padding entries 96..127.
    pub(super) fn uniform(&mut self, d: Var, index: u32, comp: u32) {
        let r = self.dst(d);
        let index = index & 0x7F;
        if index < 96 {
            let a = self.ctx(abi::uniform_row_offset(index, comp & 3), 16);
            asm::load_q(&mut self.ops, r, a);
        } else {
            self.load_f32(r, 1.0);
        }
        self.finish(d, r);
    }

    /// `x11` = the address of component `comp` of uniform 0 (rows are 16 bytes apart).
    pub(super) fn uniform_base(&mut self, comp: u32) {
        let off = abi::UNIFORMS as u32 + (comp & 3) * 4;
        asm::scalar::ctx_pointer(&mut self.ops, 11, off);
    }

    pub(super) fn uniform_al(&mut self, d: Var, base: u32, comp: u32) {
        let al = self.ctx(abi::AL, 4);
        asm::scalar::load_w(&mut self.ops, 9, al);
        asm::scalar::offset_rule(&mut self.ops, 9, 10);
        asm::scalar::add_w_imm(&mut self.ops, 9, 9, base & 0x7F);
        asm::scalar::and_7f(&mut self.ops, 9);
        self.uniform_base(comp);
        asm::scalar::add_row_index(&mut self.ops, 10, 11, 9);
        let r = self.dst(d);
        asm::load_broadcast(&mut self.ops, r, 10);
        self.finish(d, r);
    }

    /// Per-lane offset: valid = -129 < off < 128; idx = ((valid ? off : 0) + base) & 0x7F;
    /// then every lane's row idx[k] goes, transposed by LD4, into lane k of S3–S6, which are
    /// kept in scratch: a following fetch with the same offset variable and base in the same
    /// block (a matrix row read component by component) reuses them.
    pub(super) fn uniform_idx(&mut self, d: Var, off: Var, base: u32, comp: u32) {
        let base = base & 0x7F;
        let rows = [S3, S4, S5, S6];
        if self.row_cache != Some((off, base)) {
            let o = self.src(off, S0);
            self.load_u32(S1, (-129i32) as u32);
            asm::vop(&mut self.ops, VOp::CmGtS, S1, o, S1); // off > -129
            self.load_u32(S2, 128);
            asm::vop(&mut self.ops, VOp::CmGtS, S2, S2, o); // 128 > off
            asm::vop(&mut self.ops, VOp::And, S1, S1, S2);
            asm::vop(&mut self.ops, VOp::And, S2, o, S1);
            self.load_u32(S1, base);
            asm::vop(&mut self.ops, VOp::AddS, S2, S2, S1);
            self.load_u32(S1, 0x7F);
            asm::vop(&mut self.ops, VOp::And, S2, S2, S1);
            self.uniform_base(0);
            for lane in 0..super::LANES as u32 {
                asm::lane_to_w(&mut self.ops, 9, S2, lane);
                asm::scalar::add_row_index(&mut self.ops, 10, 11, 9);
                asm::ld4_row_lane(&mut self.ops, lane, 10);
            }
            for (c, &row) in rows.iter().enumerate() {
                let a = self.ctx(abi::scratch_offset(ROW_LANES + c as u32), 16);
                asm::store_q(&mut self.ops, row, a);
            }
            self.row_cache = Some((off, base));
        }
        let r = self.dst(d);
        let a = self.ctx(abi::scratch_offset(ROW_LANES + (comp & 3)), 16);
        asm::load_q(&mut self.ops, r, a);
        self.finish(d, r);
    }

    /// A constant-table component, broadcast by LD1R.
    pub(super) fn constant(&mut self, d: Var, index: u32, comp: u32) {
        let index = index.min(abi::CONST_ENTRIES as u32);
        asm::scalar::ctx_pointer(&mut self.ops, 10, abi::const_offset(index, comp & 3) as u32);
        let r = self.dst(d);
        asm::load_broadcast(&mut self.ops, r, 10);
        self.finish(d, r);
    }

    /// Constant-table component at a per-lane index: e = off + offset (wrapping); a lane with
    /// e outside 0..CONST_ENTRIES reads the zero row CONST_ENTRIES. Row loads as for
    /// [`Emitter::uniform_idx`], sharing its row cache (tagged so the two never mix).
    pub(super) fn const_idx(&mut self, d: Var, off: Var, offset: u32, comp: u32) {
        let rows = [S3, S4, S5, S6];
        let key = (off, offset | CONST_TAG);
        if self.row_cache != Some(key) {
            let o = self.src(off, S0);
            self.load_u32(S1, offset);
            asm::vop(&mut self.ops, VOp::AddS, S2, o, S1); // e
            self.load_u32(S1, u32::MAX);
            asm::vop(&mut self.ops, VOp::CmGtS, S1, S2, S1); // e > -1
            self.load_u32(S0, abi::CONST_ENTRIES as u32);
            asm::vop(&mut self.ops, VOp::CmGtS, S3, S0, S2); // ENTRIES > e
            asm::vop(&mut self.ops, VOp::And, S1, S1, S3); // valid
            asm::select(&mut self.ops, S2, S1, S2, S0); // valid ? e : ENTRIES
            asm::scalar::ctx_pointer(&mut self.ops, 11, abi::CONSTANTS as u32);
            for lane in 0..super::LANES as u32 {
                asm::lane_to_w(&mut self.ops, 9, S2, lane);
                asm::scalar::add_row_index(&mut self.ops, 10, 11, 9);
                asm::ld4_row_lane(&mut self.ops, lane, 10);
            }
            for (c, &row) in rows.iter().enumerate() {
                let a = self.ctx(abi::scratch_offset(ROW_LANES + c as u32), 16);
                asm::store_q(&mut self.ops, row, a);
            }
            self.row_cache = Some(key);
        }
        let r = self.dst(d);
        let a = self.ctx(abi::scratch_offset(ROW_LANES + (comp & 3)), 16);
        asm::load_q(&mut self.ops, r, a);
        self.finish(d, r);
    }

    pub(super) fn input(&mut self, d: Var, reg: u32, comp: u32) {
        let r = self.dst(d);
        let a = self.ctx(abi::input_offset(reg & 15, comp & 3), 16);
        asm::load_q(&mut self.ops, r, a);
        self.finish(d, r);
    }

    /// A store to the current output bank (`x7`).
    pub(super) fn output(&mut self, a: Var, reg: u32, comp: u32) {
        let s = self.src(a, S0);
        let disp = ((reg & 15) * 4 + (comp & 3)) * 64;
        asm::store_q_at(&mut self.ops, s, 7, disp);
    }
}
