//! The AArch64 kernel's vertex I/O (what moves is decided in `crate::io_plan`): a run of
//! `Input` reads of one register loads it with four LD4 single-structure loads (one per vertex,
//! transposing into S0–S3) and copies the components to their variables' registers (SoA: one
//! plane load per component, straight into the register); an exit gathers each output
//! register's components into S0–S3 and stores them with four ST4 (SoA: plane stores from the
//! variables' registers). The staging stubs fill and drain the context lanes for what goes
//! through them (AoS: LD4/ST4 through `v0`–`v3`); they run while no IR variable is live, so
//! they may use any vector register.
//!
//! Draw kernels (`crate::io_plan::DrawLayout`): per lane, x9 = the attribute's array + vertex
//! index × stride (stepped kernels: the array + (x2, the batch's first vertex, + lane) × stride,
//! x2 counting vertices), and one LD1–LD4 single-structure load of its 1–4 components into S0–S3
//! (preset to 0, 0, 0, 1 for the components it lacks); the output vertex is stored four
//! semantic slots at a time, the group's components gathered into S0–S3 (colour as
//! `min(|c|, 1)`) and stored by four ST4 96 bytes apart (x6 = 96); a group of four constants
//! is not stored (the caller keeps it in the output buffer).

use super::asm;
use super::{Emitter, IoMode, LANES, S0, S1, S2, S3, S4, S5, S6};
use crate::abi;
use crate::io_plan::{DrawLayout, DrawOrder, DrawSlot, Plan, DRAW_COLOR, DRAW_SLOTS};
use crate::ir::{Inst, Var};
use crate::regalloc::Loc;

/// Where one output component of a draw kernel's vertex comes from.
#[derive(Clone, Copy, Debug)]
enum Part {
    /// The variable an exit stores.
    Var(Var),
    /// The output bank (register r, component c).
    Bank(u32, u32),
    /// The retired lanes' outputs (register r, component c; laid out as a bank).
    Retired(u32, u32),
    Zero,
}

impl Emitter<'_> {
    /// Loads the input components `comps` (per register: bit c = component c) into staging.
    pub(super) fn load_inputs(&mut self, mode: IoMode, comps: &[u8; 16]) {
        for (r, &mask) in comps.iter().enumerate() {
            if mask == 0 {
                continue;
            }
            let r = r as u32;
            match mode {
                IoMode::Draw(layout) => {
                    self.attribute_rows(&layout, r);
                    for c in (0..4u32).filter(|c| mask >> c & 1 != 0) {
                        let a = self.ctx(abi::input_offset(r, c), 16);
                        asm::store_q(&mut self.ops, S0 + c as u8, a);
                    }
                }
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
            IoMode::Aos | IoMode::Draw(_) => {
                if let IoMode::Draw(layout) = mode {
                    self.attribute_rows(&layout, r);
                } else {
                    asm::scalar::x9_from(&mut self.ops, 2, r * 16);
                    for lane in 0..LANES as u32 {
                        asm::ld4_lane_scratch(&mut self.ops, lane);
                    }
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
        if let IoMode::Draw(layout) = mode {
            let stored = |r: u32| plan.outs >> r & 1 != 0;
            return self.semantic_store(&layout, |r, c| match from[r as usize][c as usize] {
                Some(store) if stored(r) => Part::Var(store.args[0]),
                _ if stored(r) && plan.written[r as usize] >> c & 1 != 0 => Part::Bank(r, c),
                Some(_) | None => Part::Zero,
            });
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
                // Stored by `semantic_store` above.
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
        if let IoMode::Draw(layout) = mode {
            return self.semantic_store(&layout, |r, c| match (regs >> r & 1 != 0, retired) {
                (true, false) => Part::Bank(r, c),
                (true, true) => Part::Retired(r, c),
                (false, _) => Part::Zero,
            });
        }
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
                // Stored by `semantic_store` above.
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

impl Emitter<'_> {
    /// Draw kernels: input register `r` of the batch's vertices into S0–S3 (component c of
    /// lane k in lane k of S0 + c), from the attribute arrays through the vertex indices at
    /// x2, completed with (0, 0, 0, 1) past the attribute's components. Uses x9–x11.
    fn attribute_rows(&mut self, layout: &DrawLayout, r: u32) {
        // `DrawLayout::check` made every register read 1..=4 components.
        let n = layout.components[(r & 15) as usize].clamp(1, 4);
        for c in n..4 {
            self.load_f32(S0 + c, if c == 3 { 1.0 } else { 0.0 });
        }
        match layout.order {
            DrawOrder::Indexed => {
                let stride = self.ctx(abi::draw_stride(r), 8);
                asm::scalar::load_x(&mut self.ops, 10, stride);
            }
            DrawOrder::IndexedStrides(strides) | DrawOrder::Stepped(strides) => {
                asm::mov_imm32(&mut self.ops, 10, strides[(r & 15) as usize]);
            }
        }
        let base = self.ctx(abi::draw_base(r), 8);
        asm::scalar::load_x(&mut self.ops, 11, base);
        // Stride 0: every vertex reads the same value.
        if let DrawOrder::Stepped(strides) = layout.order {
            if strides[(r & 15) as usize] != 0 {
                asm::scalar::batch_vertex(&mut self.ops);
            }
        }
        for lane in 0..LANES as u32 {
            match layout.order {
                DrawOrder::Indexed | DrawOrder::IndexedStrides(_) => {
                    asm::scalar::attribute_address(&mut self.ops, lane)
                }
                DrawOrder::Stepped(_) => asm::scalar::stepped_address(&mut self.ops, lane),
            }
            asm::ld_lanes_scratch(&mut self.ops, n, lane);
        }
    }

    /// Draw kernels: stores the batch's output vertices in semantic order (`layout.slots`)
    /// at x3 (x6 = 96), output component (r, c) from `part(r, c)`.
    fn semantic_store(&mut self, layout: &DrawLayout, part: impl Fn(u32, u32) -> Part) {
        for g in 0..(DRAW_SLOTS / 4) as u32 {
            let slots: [DrawSlot; 4] = std::array::from_fn(|k| layout.slots[g as usize * 4 + k]);
            let color = g as usize * 4 == DRAW_COLOR;
            let constant = |slot: &DrawSlot| match slot {
                DrawSlot::Zero | DrawSlot::One => true,
                DrawSlot::Output { .. } => false,
            };
            if slots.iter().all(constant) {
                // Groups of constants are the caller's (filled once per output buffer).
                continue;
            }
            for (k, slot) in slots.into_iter().enumerate() {
                let d = S0 + k as u8;
                let source = match slot {
                    DrawSlot::Output { reg, comp } => {
                        part(u32::from(reg & 15), u32::from(comp & 3))
                    }
                    DrawSlot::Zero => Part::Zero,
                    DrawSlot::One => {
                        self.load_f32(d, 1.0);
                        continue;
                    }
                };
                match source {
                    Part::Var(v) => {
                        let x = self.src(v, d);
                        asm::mov(&mut self.ops, d, x);
                    }
                    Part::Bank(r, c) => asm::load_q_at(&mut self.ops, d, 7, (r * 4 + c) * 64),
                    Part::Retired(r, c) => {
                        let a = self.ctx(abi::RETIRED + ((r * 4 + c) * 64) as i32, 16);
                        asm::load_q(&mut self.ops, d, a);
                    }
                    Part::Zero => asm::zero(&mut self.ops, d),
                }
            }
            if color {
                // min(|c|, 1.0) as `1.0 > |c| ? |c| : 1.0` (NaN: 1.0).
                let abs = self.const_row([0x7FFF_FFFF; 4]);
                asm::load_const(&mut self.ops, S4, abs);
                self.load_f32(S5, 1.0);
                for d in [S0, S1, S2, S3] {
                    asm::vop(&mut self.ops, asm::VOp::And, d, d, S4);
                    asm::vop(&mut self.ops, asm::VOp::FCmGt, S6, S5, d);
                    asm::vop(&mut self.ops, asm::VOp::Bsl, S6, d, S5);
                    asm::mov(&mut self.ops, d, S6);
                }
            }
            asm::scalar::x9_from(&mut self.ops, 3, g * 16);
            for lane in 0..LANES as u32 {
                asm::st4_lane_scratch(&mut self.ops, lane);
            }
        }
    }
}
