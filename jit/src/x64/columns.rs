//! SSE4.1 draw-kernel vertex I/O with half the transposes of the AoS kernel's (which stays as
//! it is). A stepped draw kernel loads each input register straight into its component
//! vectors: a pair of components (x y, or z w) of the four lanes by two 8-byte loads into
//! each of two registers and two `shufps`, a lone component by one 4-byte load per lane. Every
//! draw kernel stores a group of four semantic slots from the first interleave of its four
//! component vectors, 8 bytes at a time (`movlps`/`movhps`), so the second interleave is never
//! done.

use super::asm::{self, LaneAt, Part, Tier, ASM_TEMP};
use super::{Emitter, S0, S1, S2, S3};
use crate::io_plan::DrawLayout;
use crate::ir::Inst;
use crate::regalloc::Loc;

/// `shufps` selectors: the even (x or z) and the odd (y or w) elements of two interleaved
/// pairs.
const EVEN: u8 = 0b10_00_10_00;
const ODD: u8 = 0b11_01_11_01;

impl Emitter<'_> {
    /// An SSE4.1 stepped draw kernel's `Input` reads `run` of register `r` (elided reads
    /// dropped), each component vector loaded straight from the attribute array whose stride is
    /// `stride` bytes. Components past the attribute's read 0, 0, 0, 1 as constants.
    pub(super) fn stepped_columns(
        &mut self,
        layout: &DrawLayout,
        stride: u32,
        r: u32,
        run: &[Inst],
    ) {
        let n = usize::from(layout.components[(r & 15) as usize].clamp(1, 4));
        let counted = layout.shared_stride() == Some(stride);
        // Per component: the register its vector is built in — its first reader's, unless
        // another reader of the run has that register too (a dead read may share the register
        // of one defined after it: the copies below then go in the run's order, the last one
        // written last), else a scratch register of its own.
        let scratch = [S0, S1, S2, S3];
        let reg_of = |e: &Self, inst: &Inst| match inst.dst.map(|d| e.loc(d)) {
            Some(Loc::Reg(x)) => Some(x),
            Some(Loc::Spill(_) | Loc::Remat | Loc::Unused) | None => None,
        };
        let mut target: [Option<u8>; 4] = [None; 4];
        for inst in run {
            let c = (inst.imm[1] & 3) as usize;
            if target[c].is_none() {
                let own = reg_of(self, inst)
                    .filter(|&x| run.iter().filter(|i| reg_of(self, i) == Some(x)).count() == 1);
                target[c] = Some(own.unwrap_or(scratch[c]));
            }
        }
        let base = self.draw_array(layout, r);
        // `DrawLayout::check` bounded the stride: no overflow.
        let at = |k: usize, c: usize| LaneAt {
            base,
            counted,
            disp: k as i32 * stride as i32 + 4 * c as i32,
        };
        let mut c = 0;
        while c < 4 {
            let pair = (c % 2 == 0 && c + 1 < n)
                .then(|| target[c].zip(target[c + 1]))
                .flatten()
                .filter(|(a, b)| a != b);
            if let Some((a, b)) = pair {
                for (k, part) in [Part::Low, Part::High, Part::Low, Part::High]
                    .into_iter()
                    .enumerate()
                {
                    let d = if k < 2 { a } else { ASM_TEMP };
                    asm::load_part(&mut self.ops, d, part, at(k, c));
                }
                asm::mov(&mut self.ops, Tier::Sse41, b, a);
                asm::shufps(&mut self.ops, b, ASM_TEMP, ODD);
                asm::shufps(&mut self.ops, a, ASM_TEMP, EVEN);
                c += 2;
                continue;
            }
            if let Some(t) = target[c] {
                if c < n {
                    asm::load_part(&mut self.ops, t, Part::First, at(0, c));
                    for k in 1..4u8 {
                        let part = Part::Element(k);
                        asm::load_part(&mut self.ops, t, part, at(usize::from(k), c));
                    }
                } else if c == 3 {
                    self.load_f32(t, 1.0);
                } else {
                    asm::zero(&mut self.ops, Tier::Sse41, t);
                }
            }
            c += 1;
        }
        // Every reader takes its component's vector.
        for inst in run {
            let (Some(d), Some(t)) = (inst.dst, target[(inst.imm[1] & 3) as usize]) else {
                continue;
            };
            let reg = match self.loc(d) {
                Loc::Reg(x) => {
                    asm::mov(&mut self.ops, Tier::Sse41, x, t);
                    x
                }
                Loc::Spill(_) | Loc::Remat | Loc::Unused => t,
            };
            self.finish(d, reg);
        }
    }

    /// SSE4.1: stores one group of four semantic slots of the batch's four vertices from its
    /// four component vectors `rows` (each may be overwritten; `tmp` is a fifth register): the
    /// x y and z w pairs interleaved once, then each vertex's two halves stored 8 bytes at a
    /// time at `at(k)` and `at(k) + 8`.
    pub(super) fn store_group_halves(&mut self, rows: [u8; 4], tmp: u8, at: impl Fn(i32) -> i32) {
        let plan = asm::unpack_rows(&mut self.ops, Tier::Sse41, rows, tmp, 0b1111);
        for (k, &(op, lo, hi)) in plan.iter().enumerate() {
            // Vertex k's x y is half of `lo`, its z w the same half of `hi`.
            let high = op == asm::VOp::UnpckHpd;
            let k = k as i32;
            asm::store_half(&mut self.ops, lo, high, at(k));
            asm::store_half(&mut self.ops, hi, high, at(k) + 8);
        }
    }
}
