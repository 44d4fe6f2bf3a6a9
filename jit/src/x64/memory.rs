//! Inputs, outputs and float uniforms, including PICA relative addressing: a batch-uniform
//! offset (aL) is one scalar address computation and a broadcast; a per-lane offset (a0)
//! computes the row index of every lane in vector registers, loads every lane's whole row
//! (16 bytes) and transposes the rows into component vectors in registers (no hardware
//! gathers: on the CPUs measured they are about 5× slower than row loads and a transpose).

use super::asm::{self, Mem, VOp};
use super::{Emitter, S0, S1, S2, S3};
use crate::abi;
use crate::ir::Var;

/// Scratch lanes: per-lane row byte offsets, and the fetched rows (x, y, z, w arrays).
const IDX_LANES: u32 = 0;
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
            asm::load(
                &mut self.ops,
                self.tier,
                r,
                Mem::Ctx(abi::uniform_row_offset(index, comp & 3)),
            );
        } else {
            self.load_f32(r, 1.0);
        }
        self.finish(d, r);
    }

    pub(super) fn uniform_al(&mut self, d: Var, base: u32, comp: u32) {
        asm::scalar::load_eax(&mut self.ops, abi::AL);
        asm::scalar::uniform_row_offset(&mut self.ops, (base & 0x7F) as i32);
        let r = self.dst(d);
        asm::broadcast(
            &mut self.ops,
            self.tier,
            r,
            Mem::CtxRax(abi::UNIFORMS + (comp & 3) as i32 * 4),
        );
        self.finish(d, r);
    }

    /// Per-lane offset: valid = -129 < off < 128; idx = ((valid ? off : 0) + base) & 0x7F; the
    /// row byte offset idx * 16 goes to scratch, then every lane's whole row is loaded and the
    /// rows transposed into four scratch component vectors. A following fetch with the same
    /// offset variable and base in the same block (a matrix row read component by component)
    /// reuses them.
    pub(super) fn uniform_idx(&mut self, d: Var, off: Var, base: u32, comp: u32) {
        let t = self.tier;
        let base = base & 0x7F;
        if self.row_cache != Some((off, base)) {
            let o = self.src(off, S0);
            self.load_u32(S3, (-129i32) as u32);
            asm::vop(&mut self.ops, t, VOp::PCmpGtD, S3, o, S3); // off > -129
            self.load_u32(S2, 128);
            asm::vop(&mut self.ops, t, VOp::PCmpGtD, S2, S2, o); // 128 > off
            asm::vop(&mut self.ops, t, VOp::AndPs, S3, S3, S2);
            asm::vop(&mut self.ops, t, VOp::AndPs, S2, o, S3);
            self.load_u32(S3, base);
            asm::vop(&mut self.ops, t, VOp::PAddD, S2, S2, S3);
            self.load_u32(S3, 0x7F);
            asm::vop(&mut self.ops, t, VOp::AndPs, S2, S2, S3);
            asm::pslld(&mut self.ops, t, S2, 4);
            asm::store(&mut self.ops, t, abi::scratch_offset(IDX_LANES), S2);
            let rows = [S0, S1, S2, S3];
            for lane in 0..t.lanes() {
                let idx = abi::scratch_offset(IDX_LANES);
                asm::load_lane_row(
                    &mut self.ops,
                    t,
                    rows[lane % 4],
                    idx,
                    lane as i32,
                    abi::UNIFORMS,
                );
            }
            let out = std::array::from_fn(|c| abi::scratch_offset(ROW_LANES + c as u32));
            asm::transpose_rows(&mut self.ops, t, rows, out);
            self.row_cache = Some((off, base));
        }
        let r = self.dst(d);
        asm::load(
            &mut self.ops,
            t,
            r,
            Mem::Ctx(abi::scratch_offset(ROW_LANES + (comp & 3))),
        );
        self.finish(d, r);
    }

    /// A constant-table component, broadcast.
    pub(super) fn constant(&mut self, d: Var, index: u32, comp: u32) {
        let r = self.dst(d);
        let index = index.min(abi::CONST_ENTRIES as u32);
        asm::broadcast(
            &mut self.ops,
            self.tier,
            r,
            Mem::Ctx(abi::const_offset(index, comp & 3)),
        );
        self.finish(d, r);
    }

    /// Constant-table component at a per-lane index: e = off + offset (wrapping); a lane with
    /// e outside 0..CONST_ENTRIES reads the zero row CONST_ENTRIES. Row loads and transpose as
    /// for [`Emitter::uniform_idx`], sharing its row cache (tagged so the two never mix).
    pub(super) fn const_idx(&mut self, d: Var, off: Var, offset: u32, comp: u32) {
        let t = self.tier;
        let key = (off, offset | CONST_TAG);
        if self.row_cache != Some(key) {
            let o = self.src(off, S0);
            self.load_u32(S2, offset);
            asm::vop(&mut self.ops, t, VOp::PAddD, S2, o, S2); // e
            self.load_u32(S3, u32::MAX);
            asm::vop(&mut self.ops, t, VOp::PCmpGtD, S3, S2, S3); // e > -1
            self.load_u32(S1, abi::CONST_ENTRIES as u32);
            asm::vop(&mut self.ops, t, VOp::PCmpGtD, S1, S1, S2); // ENTRIES > e
            asm::vop(&mut self.ops, t, VOp::AndPs, S3, S3, S1); // valid
            asm::vop(&mut self.ops, t, VOp::AndPs, S2, S2, S3); // valid ? e : 0
            self.load_u32(S1, abi::CONST_ENTRIES as u32);
            asm::vop(&mut self.ops, t, VOp::AndnPs, S3, S3, S1); // valid ? 0 : ENTRIES
            asm::vop(&mut self.ops, t, VOp::OrPs, S2, S2, S3);
            asm::pslld(&mut self.ops, t, S2, 4);
            asm::store(&mut self.ops, t, abi::scratch_offset(IDX_LANES), S2);
            let rows = [S0, S1, S2, S3];
            for lane in 0..t.lanes() {
                let idx = abi::scratch_offset(IDX_LANES);
                asm::load_lane_row(
                    &mut self.ops,
                    t,
                    rows[lane % 4],
                    idx,
                    lane as i32,
                    abi::CONSTANTS,
                );
            }
            let out = std::array::from_fn(|c| abi::scratch_offset(ROW_LANES + c as u32));
            asm::transpose_rows(&mut self.ops, t, rows, out);
            self.row_cache = Some(key);
        }
        let r = self.dst(d);
        asm::load(
            &mut self.ops,
            t,
            r,
            Mem::Ctx(abi::scratch_offset(ROW_LANES + (comp & 3))),
        );
        self.finish(d, r);
    }

    pub(super) fn input(&mut self, d: Var, reg: u32, comp: u32) {
        let r = self.dst(d);
        asm::load(
            &mut self.ops,
            self.tier,
            r,
            Mem::Ctx(abi::input_offset(reg & 15, comp & 3)),
        );
        self.finish(d, r);
    }

    /// A store to the current output bank (`r11`).
    pub(super) fn output(&mut self, a: Var, reg: u32, comp: u32) {
        let s = self.src(a, S0);
        let disp = ((reg & 15) * 4 + (comp & 3)) as i32 * 64;
        asm::store_bank(&mut self.ops, self.tier, disp, s);
    }
}
