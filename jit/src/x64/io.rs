//! The x86-64 kernel's vertex I/O (what moves is decided in `crate::io_plan`): a run of
//! `Input` reads of one register loads it straight into the variables' registers — AoS: W
//! 16-byte rows and an in-register transpose, SoA: one plane load per component; an exit
//! stores the vertex outputs from their registers (the reverse transpose, or plane stores),
//! copies whole input registers and stores the run's invariant rows; the staging stubs fill
//! and drain the context lanes for what goes through it. Draw kernels load the same rows from
//! the attribute arrays and store the output vertex in semantic order.

use super::asm::{self, Base, Mem, ASM_TEMP};
use super::row_lanes::RowLanes;
use super::{Emitter, S0, S1, S2, S3, VREGS};
use crate::abi;
use crate::io_plan::{trailing_outputs, Plan};
pub use crate::io_plan::{
    DrawLayout, DrawOrder, DrawSlot, DRAW_COLOR, DRAW_SLOTS, MAX_STEPPED_STRIDE,
};
use crate::ir::{Function, Inst};
use crate::regalloc::Loc;

/// How a kernel finds its vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IoMode {
    /// Vertices of 16 registers × 4 f32 (`[[f32; 4]; 16]`), one after another.
    Aos,
    /// One plane of f32 per (register, component); plane pointers in the context.
    Soa,
    /// A draw: the batch's vertices are indices into attribute arrays, the outputs are
    /// vertices of semantic slots (see [`DrawLayout`]).
    Draw(DrawLayout),
}

impl IoMode {
    /// The output registers an exit may store as whole copies of input registers
    /// (`crate::io_plan::passthrough`): any for AoS; for a draw kernel those every slot of which
    /// lies in a group of four slots that takes the register's row in place, the other slots
    /// constants ([`row_register`]: the group is then copied lane by lane from the attribute
    /// array, constants blended in); none for SoA.
    pub(crate) fn copyable(&self) -> u16 {
        match self {
            IoMode::Aos => u16::MAX,
            IoMode::Soa => 0,
            IoMode::Draw(layout) => {
                let mut whole = 0u16;
                let mut split = 0u16;
                for g in 0..DRAW_SLOTS / 4 {
                    let slots = &layout.slots[g * 4..g * 4 + 4];
                    match row_register(slots) {
                        Some(reg) => whole |= 1 << (reg & 15),
                        None => {
                            for slot in slots {
                                if let DrawSlot::Output { reg, .. } = *slot {
                                    split |= 1 << (reg & 15);
                                }
                            }
                        }
                    }
                }
                whole & !split
            }
        }
    }
}

/// How far rsi moves per batch of W vertices in a kernel of `mode` and `tier`, and whether
/// the kernel sets it to 0 on entry: AoS W records; SoA and indexed draws W × 4 bytes (a
/// plane offset, W indices); stepped draws W × the shared stride (rsi is the batch's first
/// vertex's offset in it, from 0; [`DrawLayout::shared_stride`]).
pub(super) fn batch_step(mode: IoMode, tier: asm::Tier) -> (i32, bool) {
    let w = tier.lanes() as i32;
    match mode {
        IoMode::Aos => (w * abi::AOS_VERTEX_BYTES, false),
        IoMode::Soa => (w * 4, true),
        IoMode::Draw(layout) => match layout.order {
            DrawOrder::Indexed | DrawOrder::IndexedStrides(_) => (w * 4, false),
            // `DrawLayout::check` bounded the stride: no overflow.
            DrawOrder::Stepped(_) => (w * layout.shared_stride().unwrap_or(0) as i32, true),
        },
    }
}

/// The output register whose row (x, y, z, w) a group of four semantic slots takes in
/// place: each slot k is that register's component k or a constant, and one at least is a
/// component.
fn row_register(slots: &[DrawSlot]) -> Option<u8> {
    let mut found = None;
    for (k, slot) in slots.iter().enumerate() {
        match *slot {
            DrawSlot::Output { reg, comp } => {
                if usize::from(comp) != k || found.is_some_and(|r| r != reg) {
                    return None;
                }
                found = Some(reg);
            }
            DrawSlot::Zero | DrawSlot::One => {}
        }
    }
    found
}

/// Where [`Emitter::draw_row`] finds a lane's attribute.
#[derive(Clone, Copy, Debug)]
enum LaneAddress {
    /// `[rdx + rax]`: rax the lane's offset, just computed.
    Offset,
    /// `[base + disp]`.
    Fixed(i32),
    /// `[base + rsi + disp]`: a stepped kernel's register of the shared stride.
    Counted(i32),
}

/// General-purpose register rdx: a draw kernel's attribute base when no register keeps it.
const RDX: u8 = 2;

/// The callee-saved general-purpose registers (rbx, rbp, r12–r15) a stepped draw kernel keeps
/// the attribute addresses of its first loaded input registers in, for its whole call: no
/// load per register and batch.
const BASE_GPRS: [u8; abi::SAVED_REGISTERS] = [3, 5, 12, 13, 14, 15];

/// The register of [`BASE_GPRS`] that keeps input register `r`'s attribute address in a
/// stepped draw kernel of `layout`, if any: the k-th loaded register gets the k-th.
fn base_gpr(layout: &DrawLayout, r: u32) -> Option<u8> {
    let DrawOrder::Stepped(_) = layout.order else {
        return None;
    };
    let r = (r & 15) as usize;
    if layout.components[r] == 0 {
        return None;
    }
    let k = layout.components[..r].iter().filter(|&&c| c != 0).count();
    BASE_GPRS.get(k).copied()
}

/// The kept bases of a kernel of `mode`: (register, its save slot, input register).
fn kept_bases(mode: IoMode) -> impl Iterator<Item = (u8, usize, u32)> {
    let layout = match mode {
        IoMode::Draw(layout) => Some(layout),
        IoMode::Aos | IoMode::Soa => None,
    };
    (0..16u32).filter_map(move |r| {
        let gpr = base_gpr(layout.as_ref()?, r)?;
        let slot = BASE_GPRS.iter().position(|&g| g == gpr)?;
        Some((gpr, slot, r))
    })
}

/// The components a stepped draw kernel copies slot by slot into a group of four semantic
/// slots `slots` that takes input register `v`'s row in place: one component or two adjacent
/// ones (the first, and whether the next too), all within the attribute's, the other slots
/// constants. `None` for other groups and for indexed kernels.
fn copied_slots(layout: &DrawLayout, v: u32, slots: &[DrawSlot; 4]) -> Option<(u32, bool)> {
    let DrawOrder::Stepped(_) = layout.order else {
        return None;
    };
    let copied = slots.iter().enumerate().fold(0u8, |m, (k, s)| match s {
        DrawSlot::Output { .. } => m | 1 << k,
        DrawSlot::Zero | DrawSlot::One => m,
    });
    let n = layout.components[(v & 15) as usize];
    let start = copied.trailing_zeros();
    let len = copied.count_ones();
    let run = copied >> start == (1 << len) - 1;
    (run && (len == 1 || len == 2) && start + len <= u32::from(n)).then_some((start, len == 2))
}

/// Registers of the staging stubs (no variable is live while they run).
const ROWS: [u8; 4] = [0, 1, 2, 3];
const TMP: [u8; 4] = [4, 5, 6, 7];
const COLS: [u8; 4] = [8, 9, 10, 11];

/// An output register an exit stores straight from memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MemOut {
    /// The vertex's input register (a whole copy).
    Copy(u32),
    /// A spill slot holding the register as one vertex's row, computed once per run.
    Row(u32),
}

/// Where an exit takes an output component from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    /// A variable's location.
    Loc(Loc, u32),
    /// The current output bank.
    Bank,
    /// The retired lanes' outputs (laid out as a bank).
    Retired,
    /// A constant, as its bits.
    Const(u32),
    /// Never written: 0.0.
    Zero,
}

impl Emitter<'_> {
    /// A run of `Input` reads of one register, loaded from the vertices into their variables.
    pub(super) fn input_run(&mut self, mode: IoMode, run: &[Inst], elided: &[bool]) {
        let run: Vec<Inst> = run
            .iter()
            .filter(|i| i.dst.is_some_and(|d| !elided[d.0 as usize]))
            .copied()
            .collect();
        let Some(first) = run.first() else { return };
        let t = self.tier;
        let r = first.imm[0] & 15;
        match mode {
            IoMode::Soa => {
                for inst in &run {
                    let c = inst.imm[1] & 3;
                    let Some(d) = inst.dst else { continue };
                    let reg = self.dst(d);
                    asm::scalar::load_rax(&mut self.ops, abi::plane_in(r * 4 + c));
                    asm::load_plane(&mut self.ops, t, reg);
                    self.finish(d, reg);
                }
            }
            IoMode::Draw(
                layout @ DrawLayout {
                    order: DrawOrder::Stepped(strides),
                    ..
                },
            ) if t == asm::Tier::Sse41 => {
                self.stepped_columns(&layout, strides[(r & 15) as usize], r, &run);
            }
            IoMode::Aos | IoMode::Draw(_) => {
                let rows = [S0, S1, S2, S3];
                self.vertex_rows(mode, r, rows);
                let wanted = run.iter().fold(0u8, |m, i| m | 1 << (i.imm[1] & 3));
                let plan = asm::unpack_rows(&mut self.ops, t, rows, ASM_TEMP, wanted);
                for inst in &run {
                    let Some(d) = inst.dst else { continue };
                    // S3 is free once the rows are interleaved.
                    let reg = match self.loc(d) {
                        Loc::Reg(x) => x,
                        Loc::Spill(_) | Loc::Remat | Loc::Unused => S3,
                    };
                    let (op, lo, hi) = plan[(inst.imm[1] & 3) as usize];
                    asm::vop(&mut self.ops, t, op, reg, lo, hi);
                    self.finish(d, reg);
                }
            }
        }
    }

    /// The end of an invocation in a block whose trailing stores are `tail`: every output
    /// register the kernel stores goes to the vertices (see the module docs).
    pub(super) fn exit_store(&mut self, mode: IoMode, block: u32, tail: &[Inst], plan: &Plan) {
        if let IoMode::Draw(layout) = mode {
            let from = self.exit_sources(tail, plan);
            let copies = plan.copies.get(&block).map_or(&[][..], |c| &c[..]);
            self.semantic_store(&layout, &from, copies);
            return;
        }
        let t = self.tier;
        let mut outs = plan.outs;
        // Output registers straight from memory: whole input registers and run-invariant rows.
        let mut mem = [None; 16];
        for &(o, v) in plan.copies.get(&block).map_or(&[][..], |c| &c[..]) {
            mem[o as usize] = Some(MemOut::Copy(v));
        }
        for (o, m) in mem.iter_mut().enumerate() {
            if let (None, Some(&slot)) = (*m, plan.rows.get(&(block, o as u32))) {
                *m = Some(MemOut::Row(slot));
            }
        }
        let mut o = 0;
        while o < 16 {
            let Some(first) = mem[o].filter(|_| outs >> o & 1 != 0) else {
                o += 1;
                continue;
            };
            let second = mem.get(o + 1).copied().flatten();
            let second = second.filter(|_| outs >> (o + 1) & 1 != 0);
            let paired = t == asm::Tier::Avx2
                && second.is_some_and(|second| self.mem_pair(o as i32, first, second));
            if paired {
                outs &= !(3 << o);
                o += 2;
            } else {
                self.mem_out(o as i32, first);
                outs &= !(1 << o);
                o += 1;
            }
        }
        let from = self.exit_sources(tail, plan);
        let regs: Vec<u32> = (0..16).filter(|r| outs >> r & 1 != 0).collect();
        // Registers still to be read by the output registers not stored yet.
        let mut pending = [0u32; VREGS];
        for &r in &regs {
            for src in from[r as usize] {
                if let Src::Loc(Loc::Reg(x), _) = src {
                    pending[x as usize] += 1;
                }
            }
        }
        let mut i = 0;
        while i < regs.len() {
            let r = regs[i];
            i += 1;
            if mode == IoMode::Aos
                && t == asm::Tier::Avx2
                && regs.get(i) == Some(&(r + 1))
                && self.store_pair_transposed(r, &from, &mut pending)
            {
                i += 1;
                continue;
            }
            let srcs = from[r as usize];
            for src in srcs {
                if let Src::Loc(Loc::Reg(x), _) = src {
                    pending[x as usize] -= 1;
                }
            }
            match mode {
                IoMode::Soa => {
                    for (c, &src) in srcs.iter().enumerate() {
                        let reg = match src {
                            Src::Loc(Loc::Reg(x), _) => x,
                            _ => {
                                self.component(src, r, c as u32, S0);
                                S0
                            }
                        };
                        asm::scalar::load_rax(&mut self.ops, abi::plane_out(r * 4 + c as u32));
                        asm::store_plane(&mut self.ops, self.tier, reg);
                    }
                }
                // Stored in semantic order above.
                IoMode::Draw(_) => {}
                IoMode::Aos => {
                    // Four rows the transpose may overwrite: a source register no later
                    // output register reads (once), else a scratch register.
                    let mut scratch = vec![ASM_TEMP, S3, S2, S1, S0];
                    let mut rows = [0u8; 4];
                    for (c, &src) in srcs.iter().enumerate() {
                        rows[c] = match src {
                            Src::Loc(Loc::Reg(x), _)
                                if pending[x as usize] == 0 && !rows[..c].contains(&x) =>
                            {
                                x
                            }
                            _ => {
                                let s = scratch.pop().unwrap_or(S0);
                                self.component(src, r, c as u32, s);
                                s
                            }
                        };
                    }
                    let tmp = scratch.pop().unwrap_or(ASM_TEMP);
                    let t = self.tier;
                    let plan = asm::unpack_rows(&mut self.ops, t, rows, tmp, 0b1111);
                    for (k, &(op, lo, hi)) in plan.iter().enumerate() {
                        asm::vop(&mut self.ops, t, op, rows[3], lo, hi);
                        let disp = k as i32 * abi::AOS_VERTEX_BYTES + r as i32 * 16;
                        asm::store_xmm(&mut self.ops, t, rows[3], Base::R8, disp);
                        self.store_segments(rows[3], disp, abi::AOS_VERTEX_BYTES);
                    }
                }
            }
        }
    }

    /// AVX2 AoS: stores output registers `r` and `r + 1` of the batch's vertices by one
    /// 32-byte store per vertex — both transposed, then each vertex's two rows joined by
    /// `vperm2f128` (8 stores and 8 permutes instead of 16 stores, half of them the two-uop
    /// `vextractf128` to memory). `from`: every output register's sources; `pending`: how often
    /// each register is still read by the output registers not stored yet (this pair's reads
    /// are taken off when it is stored). Returns false, emitting nothing, when the registers
    /// free at this point are too few (then each is stored on its own).
    fn store_pair_transposed(
        &mut self,
        r: u32,
        from: &[[Src; 4]; 16],
        pending: &mut [u32; VREGS],
    ) -> bool {
        let t = self.tier;
        let pair = [from[r as usize], from[r as usize + 1]];
        // Registers this pair reads, and how often.
        let mut reads = [0u32; VREGS];
        for src in pair.iter().flatten() {
            if let Src::Loc(Loc::Reg(x), _) = *src {
                reads[x as usize] += 1;
            }
        }
        let after = |x: usize| pending[x] - reads[x];
        // Free: neither read by this pair nor by a later output register.
        let mut free: Vec<u8> = (0..16u8)
            .rev()
            .filter(|&x| reads[x as usize] == 0 && pending[x as usize] == 0)
            .collect();
        // Rows: a source register read once here and never later is interleaved in place;
        // any other source is first copied or loaded into a free register.
        let mut rows = [[0u8; 4]; 2];
        let mut loads = Vec::new();
        for (h, srcs) in pair.iter().enumerate() {
            for (c, &src) in srcs.iter().enumerate() {
                rows[h][c] = match src {
                    Src::Loc(Loc::Reg(x), _)
                        if reads[x as usize] == 1 && after(x as usize) == 0 =>
                    {
                        x
                    }
                    _ => {
                        let Some(d) = free.pop() else { return false };
                        loads.push((src, r + h as u32, c as u32, d));
                        d
                    }
                };
            }
        }
        // Two interleave temporaries and one for the joined rows.
        if free.len() < 3 {
            return false;
        }
        let (ta, tb, z) = (free[0], free[1], free[2]);
        for x in 0..VREGS {
            pending[x] -= reads[x];
        }
        for (src, reg, c, d) in loads {
            self.component(src, reg, c, d);
        }
        let plan_a = asm::unpack_rows(&mut self.ops, t, rows[0], ta, 0b1111);
        let plan_b = asm::unpack_rows(&mut self.ops, t, rows[1], tb, 0b1111);
        let (xa, xb) = (rows[0][3], rows[1][3]);
        for k in 0..4 {
            let (op, lo, hi) = plan_a[k];
            asm::vop(&mut self.ops, t, op, xa, lo, hi);
            let (op, lo, hi) = plan_b[k];
            asm::vop(&mut self.ops, t, op, xb, lo, hi);
            let disp = k as i32 * abi::AOS_VERTEX_BYTES + r as i32 * 16;
            asm::low_halves(&mut self.ops, z, xa, xb);
            asm::store_pair(&mut self.ops, z, disp);
            asm::high_halves(&mut self.ops, xa, xa, xb);
            asm::store_pair(&mut self.ops, xa, disp + 4 * abi::AOS_VERTEX_BYTES);
        }
        true
    }

    /// Where an exit whose trailing stores are `tail` takes each output component from: the
    /// tail's variables, else the bank where some `Output` writes it, else 0.0.
    fn exit_sources(&self, tail: &[Inst], plan: &Plan) -> [[Src; 4]; 16] {
        let mut from = [[Src::Zero; 4]; 16];
        for (r, comps) in from.iter_mut().enumerate() {
            for (c, src) in comps.iter_mut().enumerate() {
                if plan.written[r] >> c & 1 != 0 {
                    *src = Src::Bank;
                }
            }
        }
        for inst in tail {
            let v = inst.args[0];
            from[(inst.imm[0] & 15) as usize][(inst.imm[1] & 3) as usize] =
                Src::Loc(self.loc(v), v.0);
        }
        from
    }

    /// Loads input register `r` of the batch's vertices into `rows` (lane k's x, y, z, w in
    /// `rows[k]`, with AVX2 lane k + 4's in the high half): AoS from the records at rsi; draw
    /// from the attribute arrays through the vertex indices at rsi, completed with (0, 0, 0, 1)
    /// past the attribute's components. Uses `ASM_TEMP`, rax, rcx and rdx.
    fn vertex_rows(&mut self, mode: IoMode, r: u32, rows: [u8; 4]) {
        let t = self.tier;
        match mode {
            IoMode::Aos => {
                for (k, &row) in rows.iter().enumerate() {
                    let disp = k as i32 * abi::AOS_VERTEX_BYTES + r as i32 * 16;
                    asm::load_xmm(&mut self.ops, t, row, Base::Rsi, disp);
                    for s in 1..t.segments() {
                        let at = disp + 4 * s as i32 * abi::AOS_VERTEX_BYTES;
                        asm::insert_segment(&mut self.ops, t, row, s as u8, at);
                    }
                }
            }
            IoMode::Draw(layout) => {
                let base = self.draw_array(&layout, r);
                let shared = layout.shared_stride();
                for (k, &row) in rows.iter().enumerate() {
                    let lanes = RowLanes::rows(t, k);
                    self.draw_row(&layout, (shared, base), r, lanes, row);
                }
            }
            // Planes are loaded component by component by the callers.
            IoMode::Soa => {}
        }
    }

    /// A draw kernel's access to input register `r`'s array for [`Emitter::draw_row`]:
    /// rcx = its stride and rdx = its base (indexed), rdx = its base (indexed, strides fixed),
    /// or the batch's first vertex's attribute (stepped) in the register [`base_gpr`] keeps it
    /// in for the whole call, else loaded into rdx. Returns the register holding the base.
    pub(super) fn draw_array(&mut self, layout: &DrawLayout, r: u32) -> u8 {
        let (stride, base) = (abi::draw_stride(r), abi::draw_base(r));
        match (layout.order, base_gpr(layout, r)) {
            (DrawOrder::Indexed, _) => {
                asm::scalar::attribute_array(&mut self.ops, stride, base);
                RDX
            }
            (DrawOrder::Stepped(_), Some(gpr)) => gpr,
            (DrawOrder::IndexedStrides(_), _) | (DrawOrder::Stepped(_), None) => {
                asm::scalar::stepped_array(&mut self.ops, base);
                RDX
            }
        }
    }

    /// A stepped draw kernel's entry (before anything else): each register of [`base_gpr`]
    /// saved in the context, then loaded with its attribute address. Nothing for other
    /// kernels.
    pub(super) fn keep_bases(&mut self, mode: IoMode) {
        for (gpr, slot, r) in kept_bases(mode) {
            asm::scalar::keep_base(
                &mut self.ops,
                gpr,
                abi::saved_offset(slot),
                abi::draw_base(r),
            );
        }
    }

    /// A stepped draw kernel's exit: the registers [`Emitter::keep_bases`] saved get their
    /// values back.
    pub(super) fn restore_bases(&mut self, mode: IoMode) {
        for (gpr, slot, _) in kept_bases(mode) {
            asm::scalar::restore_base(&mut self.ops, gpr, abi::saved_offset(slot));
        }
    }

    /// Loads input register `r` of the lanes `lanes` names into `row` (x, y, z, w; with wider
    /// tiers the next lanes in the higher 128-bit segments), completed with (0, 0, 0, 1)
    /// past the attribute's components ([`Emitter::draw_array`] set the array up). `array`:
    /// the layout's [`DrawLayout::shared_stride`] and the register `draw_array` returned.
    /// Uses `ASM_TEMP` and rax.
    fn draw_row(
        &mut self,
        layout: &DrawLayout,
        array: (Option<u32>, u8),
        r: u32,
        lanes: RowLanes,
        row: u8,
    ) {
        let (shared, base) = array;
        let t = lanes.tier;
        // `DrawLayout::check` made every register read 1..=4 components.
        let n = layout.components[(r & 15) as usize].clamp(1, 4);
        let w = (n < 4).then(|| self.const_row(&[0, 0, 0, 1.0f32.to_bits()]));
        // AVX2 and AVX-512 insert a whole attribute of a higher segment straight from memory.
        let insert = matches!(t, asm::Tier::Avx2 | asm::Tier::Avx512) && n == 4;
        for s in 0..t.segments() {
            let lane = lanes.lane(s) as i32;
            let d = if s == 0 || insert { row } else { ASM_TEMP };
            let at = match layout.order {
                DrawOrder::Indexed => {
                    asm::scalar::attribute_address(&mut self.ops, lane);
                    LaneAddress::Offset
                }
                DrawOrder::IndexedStrides(strides) => match strides[(r & 15) as usize] {
                    // Stride 0: every lane reads the array's first attribute.
                    0 => LaneAddress::Fixed(0),
                    stride => {
                        asm::scalar::attribute_offset(&mut self.ops, lane, stride);
                        LaneAddress::Offset
                    }
                },
                DrawOrder::Stepped(strides) => {
                    // `DrawLayout::check` bounded the stride: no overflow.
                    let stride = strides[(r & 15) as usize];
                    let at = lane * stride as i32;
                    // The shared stride's registers: rsi is the batch's first vertex's
                    // offset in it, their bases fixed.
                    if shared == Some(stride) {
                        LaneAddress::Counted(at)
                    } else {
                        LaneAddress::Fixed(at)
                    }
                }
            };
            match (s, insert, at) {
                (0, _, LaneAddress::Offset) | (_, false, LaneAddress::Offset) => {
                    asm::load_attribute(&mut self.ops, t, d, n)
                }
                (0, _, LaneAddress::Fixed(at)) | (_, false, LaneAddress::Fixed(at)) => {
                    asm::load_attribute_at(&mut self.ops, t, d, n, base, at)
                }
                (0, _, LaneAddress::Counted(at)) | (_, false, LaneAddress::Counted(at)) => {
                    asm::load_attribute_counted(&mut self.ops, t, d, n, base, at)
                }
                (_, true, LaneAddress::Offset) => {
                    asm::insert_attribute(&mut self.ops, t, row, s as u8)
                }
                (_, true, LaneAddress::Fixed(at)) => {
                    asm::insert_attribute_at(&mut self.ops, t, row, s as u8, base, at)
                }
                (_, true, LaneAddress::Counted(at)) => {
                    asm::insert_attribute_counted(&mut self.ops, t, row, s as u8, base, at)
                }
            }
            if s > 0 && !insert {
                asm::join_segment(&mut self.ops, t, row, ASM_TEMP, s as u8);
            }
        }
        if let Some(w) = w {
            asm::vop_m(&mut self.ops, t, asm::VOp::OrPs, row, row, Mem::Const(w));
        }
    }

    /// Stores group `g` (slots `4 g`…) of every vertex of the batch as a whole copy of input
    /// register `v` (the output register it maps, x y z w in order, is that copy): each
    /// lane's attribute row straight to its vertex, no transposes; the colour as
    /// `min(|c|, 1)`; the group's constant slots blended in.
    fn copy_store(&mut self, layout: &DrawLayout, v: u32, g: usize) {
        let t = self.tier;
        let at = |k: i32| k * abi::DRAW_VERTEX_BYTES + g as i32 * 16;
        let base = self.draw_array(layout, v);
        let clamp = (g * 4 == DRAW_COLOR).then(|| {
            let abs = self.const_row(&[0x7FFF_FFFF]);
            let one = self.const_row(&[1.0f32.to_bits()]);
            (abs, one)
        });
        // The constant slots: which components they are, and their bits.
        let slots: [DrawSlot; 4] = std::array::from_fn(|k| layout.slots[g * 4 + k]);
        if let (None, Some(copied)) = (clamp, copied_slots(layout, v, &slots)) {
            let shared = layout.shared_stride();
            return self.copy_slots(layout, (shared, base), v, g, copied);
        }
        let blend = slots
            .iter()
            .any(|s| !matches!(s, DrawSlot::Output { .. }))
            .then(|| {
                let mask = slots.iter().enumerate().fold(0u8, |m, (k, s)| match s {
                    DrawSlot::Output { .. } => m,
                    DrawSlot::Zero | DrawSlot::One => m | 1 << k,
                });
                let bits = slots.map(|s| match s {
                    DrawSlot::Output { .. } | DrawSlot::Zero => 0,
                    DrawSlot::One => 1.0f32.to_bits(),
                });
                // SSE4.1 blends them in ([`asm::blend_const`]); the wider tiers mask the
                // row's components, then OR the constants' bits.
                let keep = match t {
                    asm::Tier::Sse41 => None,
                    asm::Tier::Avx2 | asm::Tier::Avx512 => {
                        Some(self.const_row(&slots.map(|s| match s {
                            DrawSlot::Output { .. } => u32::MAX,
                            DrawSlot::Zero | DrawSlot::One => 0,
                        })))
                    }
                };
                (mask, self.const_row(&bits), keep)
            });
        let shared = layout.shared_stride();
        for lanes in RowLanes::copies(t) {
            // The row's operations at the tier its lanes are moved at.
            let y = lanes.tier;
            self.draw_row(layout, (shared, base), v, lanes, S0);
            if let Some((abs, one)) = clamp {
                // |c|, then min(|c|, 1.0): 1.0 unless |c| < 1.0 (NaN included).
                asm::vop_m(&mut self.ops, y, asm::VOp::AndPs, S0, S0, Mem::Const(abs));
                asm::vop_m(&mut self.ops, y, asm::VOp::MinPs, S0, S0, Mem::Const(one));
            }
            if let Some((mask, bits, keep)) = blend {
                // 0.0 and 1.0 are their own `min(|c|, 1)`: blended in after the clamp.
                match keep {
                    Some(keep) => {
                        asm::vop_m(&mut self.ops, y, asm::VOp::AndPs, S0, S0, Mem::Const(keep));
                        asm::vop_m(&mut self.ops, y, asm::VOp::OrPs, S0, S0, Mem::Const(bits));
                    }
                    None => asm::blend_const(&mut self.ops, S0, bits, mask),
                }
            }
            asm::store_xmm(&mut self.ops, y, S0, Base::R8, at(lanes.lane(0) as i32));
            for s in 1..y.segments() {
                let to = at(lanes.lane(s) as i32);
                asm::extract_segment(&mut self.ops, y, S0, s as u8, to);
            }
        }
    }

    /// Stores components `slots` (`start`, and whether with the next one) of input register
    /// `v` of every vertex of the batch, in place in group `g`, straight from a stepped
    /// kernel's attribute array (`array`: as [`Emitter::draw_row`] takes it): one load and one
    /// store per lane, the group's other slots left to the caller ([`DrawLayout::slots`]).
    fn copy_slots(
        &mut self,
        layout: &DrawLayout,
        array: (Option<u32>, u8),
        v: u32,
        g: usize,
        slots: (u32, bool),
    ) {
        let (t, (shared, base), (start, pair)) = (self.tier, array, slots);
        let DrawOrder::Stepped(strides) = layout.order else {
            return;
        };
        let stride = strides[(v & 15) as usize];
        let n = if pair { 2 } else { 1 };
        for lane in 0..t.lanes() as i32 {
            // `DrawLayout::check` bounded the stride: no overflow.
            let from = lane * stride as i32 + 4 * start as i32;
            if shared == Some(stride) {
                asm::load_attribute_counted(&mut self.ops, t, S0, n, base, from);
            } else {
                asm::load_attribute_at(&mut self.ops, t, S0, n, base, from);
            }
            let to = lane * abi::DRAW_VERTEX_BYTES + g as i32 * 16 + 4 * start as i32;
            asm::store_floats(&mut self.ops, t, S0, pair, to);
        }
    }

    /// A stepped draw kernel's batch tail: the attribute pointer of every loaded register
    /// of a stride other than 0 and the shared one moves on by W vertices (the shared
    /// stride's registers follow rsi: [`batch_step`]); nothing for other kernels.
    pub(super) fn advance_arrays(&mut self, mode: IoMode) {
        let IoMode::Draw(layout) = mode else { return };
        let DrawOrder::Stepped(strides) = layout.order else {
            return;
        };
        let shared = layout.shared_stride();
        let w = self.tier.lanes() as i32;
        for r in 0..16u32 {
            let stride = strides[r as usize];
            if layout.components[r as usize] != 0 && stride != 0 && Some(stride) != shared {
                let step = w * stride as i32;
                match base_gpr(&layout, r) {
                    Some(gpr) => asm::scalar::advance_base(&mut self.ops, gpr, step),
                    None => asm::scalar::advance_array(&mut self.ops, abi::draw_base(r), step),
                }
            }
        }
    }

    /// Stores the batch's output vertices in semantic order (`layout.slots`) at r8, each
    /// output component from `from`: four slots at a time, interleaved from four component
    /// vectors (the colour's as `min(|c|, 1)`), or copied whole from an attribute array. A
    /// group of four constants is not stored: the caller keeps it in the output buffer
    /// ([`DrawLayout`]).
    fn semantic_store(
        &mut self,
        layout: &DrawLayout,
        from: &[[Src; 4]; 16],
        copies: &[(u32, u32)],
    ) {
        // Per group: the input register whose row it takes (`Plan::copies` allowed only output
        // registers every slot of which is in a group that takes their row in place).
        let copy_of: [Option<u32>; DRAW_SLOTS / 4] = std::array::from_fn(|g| {
            let o = u32::from(row_register(&layout.slots[g * 4..g * 4 + 4])? & 15);
            copies.iter().find(|&&(x, _)| x == o).map(|&(_, v)| v)
        });
        let source = |slot: DrawSlot| match slot {
            DrawSlot::Output { reg, comp } => {
                let (r, c) = (u32::from(reg & 15), u32::from(comp & 3));
                (from[r as usize][c as usize], r, c)
            }
            DrawSlot::Zero => (Src::Const(0), 0, 0),
            DrawSlot::One => (Src::Const(1.0f32.to_bits()), 0, 0),
        };
        let groups: [Group; DRAW_SLOTS / 4] =
            std::array::from_fn(|g| std::array::from_fn(|k| source(layout.slots[g * 4 + k])));
        // Registers still to be read by the groups not stored yet.
        let mut pending = [0u32; VREGS];
        let computed = groups.iter().zip(&copy_of).filter(|(_, c)| c.is_none());
        for (src, _, _) in computed.flat_map(|(g, _)| g) {
            if let Src::Loc(Loc::Reg(x), _) = src {
                pending[*x as usize] += 1;
            }
        }
        for (g, group) in groups.iter().enumerate() {
            // Groups of constants are the caller's (filled once per output buffer).
            if group.iter().all(|&(src, ..)| matches!(src, Src::Const(_))) {
                continue;
            }
            match copy_of[g] {
                Some(v) => self.copy_store(layout, v, g),
                None => self.group_store(group, g, &mut pending),
            }
        }
    }

    /// Stores the computed group `g` (slots `4 g`…) of every vertex of the batch: its four
    /// component vectors interleaved into one row per vertex.
    fn group_store(&mut self, srcs: &Group, g: usize, pending: &mut [u32; VREGS]) {
        let t = self.tier;
        let at = |k: i32| k * abi::DRAW_VERTEX_BYTES + g as i32 * 16;
        let color = g * 4 == DRAW_COLOR;
        for (src, _, _) in srcs {
            if let Src::Loc(Loc::Reg(x), _) = src {
                pending[*x as usize] -= 1;
            }
        }
        // Four rows the transpose may overwrite: a source register no later group reads
        // (once), else a scratch register.
        let mut scratch = vec![ASM_TEMP, S3, S2, S1, S0];
        let mut rows = [0u8; 4];
        for (c, &(src, reg, comp)) in srcs.iter().enumerate() {
            rows[c] = match src {
                Src::Loc(Loc::Reg(x), _) if pending[x as usize] == 0 && !rows[..c].contains(&x) => {
                    x
                }
                _ => {
                    let s = scratch.pop().unwrap_or(S0);
                    self.component(src, reg, comp, s);
                    s
                }
            };
        }
        if color {
            let abs = self.const_row(&[0x7FFF_FFFF]);
            let one = self.const_row(&[1.0f32.to_bits()]);
            for row in rows {
                // |c|, then min(|c|, 1.0): 1.0 unless |c| < 1.0 (NaN included).
                asm::vop_m(&mut self.ops, t, asm::VOp::AndPs, row, row, Mem::Const(abs));
                asm::vop_m(&mut self.ops, t, asm::VOp::MinPs, row, row, Mem::Const(one));
            }
        }
        let tmp = scratch.pop().unwrap_or(ASM_TEMP);
        if t == asm::Tier::Sse41 {
            return self.store_group_halves(rows, tmp, at);
        }
        let plan = asm::unpack_rows(&mut self.ops, t, rows, tmp, 0b1111);
        for (k, &(op, lo, hi)) in plan.iter().enumerate() {
            let (row, k) = (rows[3], k as i32);
            asm::vop(&mut self.ops, t, op, row, lo, hi);
            asm::store_xmm(&mut self.ops, t, row, Base::R8, at(k));
            self.store_segments(row, at(k), abi::DRAW_VERTEX_BYTES);
        }
    }

    /// The prologue's part: the invariant rows of [`Plan::rows`], each interleaved from its
    /// four components (broadcast, so every 128-bit lane holds the row).
    pub(super) fn invariant_rows(&mut self, func: &Function, plan: &Plan) {
        let t = self.tier;
        let mut rows: Vec<(&(u32, u32), &u32)> = plan.rows.iter().collect();
        rows.sort_unstable();
        for (&(b, r), &slot) in rows {
            let tail = trailing_outputs(&func.blocks[b as usize].insts);
            let regs = [S0, S1, S2, S3];
            for (c, &reg) in regs.iter().enumerate() {
                // `place_rows` picked registers whose four components the tail stores.
                let src = tail
                    .iter()
                    .rev()
                    .find(|i| i.imm[0] & 15 == r && i.imm[1] & 3 == c as u32)
                    .map_or(Src::Zero, |i| Src::Loc(self.loc(i.args[0]), i.args[0].0));
                self.component(src, r, c as u32, reg);
            }
            asm::vop(&mut self.ops, t, asm::VOp::UnpckLps, S0, S0, S1); // x y x y
            asm::vop(&mut self.ops, t, asm::VOp::UnpckLps, S2, S2, S3); // z w z w
            asm::vop(&mut self.ops, t, asm::VOp::UnpckLpd, S0, S0, S2); // x y z w
            asm::store(&mut self.ops, t, abi::spill_offset(slot), S0);
        }
    }

    /// Stores output register `o` of every vertex of the batch from `m`.
    fn mem_out(&mut self, o: i32, m: MemOut) {
        let t = self.tier;
        match m {
            MemOut::Copy(v) => {
                for k in 0..t.lanes() as i32 {
                    let (at, s) = (k * abi::AOS_VERTEX_BYTES, S0 + (k % 2) as u8);
                    asm::load_xmm(&mut self.ops, t, s, Base::Rsi, at + v as i32 * 16);
                    asm::store_xmm(&mut self.ops, t, s, Base::R8, at + o * 16);
                }
            }
            MemOut::Row(slot) => {
                asm::load(&mut self.ops, t, S0, Mem::Ctx(abi::spill_offset(slot)));
                for k in 0..t.lanes() as i32 {
                    let at = k * abi::AOS_VERTEX_BYTES + o * 16;
                    asm::store_xmm(&mut self.ops, t, S0, Base::R8, at);
                }
            }
        }
    }

    /// AVX2: stores output registers `o` and `o + 1` of every vertex of the batch from `a`
    /// and `b` with one 32-byte store per vertex, if the pair allows it (two copies of adjacent
    /// input registers, two rows, a row then a copy, a copy of a register below v15 then a
    /// row: the forms that read no byte outside the vertex). Returns false if it does not.
    fn mem_pair(&mut self, o: i32, a: MemOut, b: MemOut) -> bool {
        let t = self.tier;
        let row = |e: &mut Self, slot: u32, d: u8| {
            asm::load(&mut e.ops, t, d, Mem::Ctx(abi::spill_offset(slot)));
        };
        match (a, b) {
            (MemOut::Copy(v), MemOut::Copy(w)) if w == v + 1 => {}
            (MemOut::Copy(v), MemOut::Row(_)) if v < 15 => {}
            (MemOut::Row(_), MemOut::Copy(_) | MemOut::Row(_)) => {}
            (MemOut::Copy(_), MemOut::Copy(_) | MemOut::Row(_)) => return false,
        }
        // Per batch: the rows (each slot holds its row in both halves).
        match (a, b) {
            (MemOut::Row(x), MemOut::Row(y)) => {
                row(self, x, S0);
                row(self, y, S1);
                asm::low_halves(&mut self.ops, S0, S0, S1);
            }
            (MemOut::Row(x), MemOut::Copy(_)) | (MemOut::Copy(_), MemOut::Row(x)) => {
                row(self, x, S2);
            }
            (MemOut::Copy(_), MemOut::Copy(_)) => {}
        }
        for k in 0..t.lanes() as i32 {
            let (at, s) = (k * abi::AOS_VERTEX_BYTES, S0 + (k % 2) as u8);
            let src = match (a, b) {
                (MemOut::Copy(v), MemOut::Copy(_)) => {
                    asm::load_pair(&mut self.ops, s, at + v as i32 * 16);
                    s
                }
                (MemOut::Row(_), MemOut::Copy(w)) => {
                    asm::low_then_input(&mut self.ops, s, S2, at + w as i32 * 16);
                    s
                }
                (MemOut::Copy(v), MemOut::Row(_)) => {
                    asm::input_then_high(&mut self.ops, s, S2, at + v as i32 * 16);
                    s
                }
                (MemOut::Row(_), MemOut::Row(_)) => S0,
            };
            asm::store_pair(&mut self.ops, src, at + o * 16);
        }
        true
    }

    /// Stores 128-bit segments 1… of `row` (vertices k + 4 s of a transposed row whose
    /// segment 0, vertex k's, went to `[r8 + disp]`) to the vertices `vertex` bytes apart.
    fn store_segments(&mut self, row: u8, disp: i32, vertex: i32) {
        let t = self.tier;
        for s in 1..t.segments() {
            let at = disp + 4 * s as i32 * vertex;
            asm::extract_segment(&mut self.ops, t, row, s as u8, at);
        }
    }

    /// Puts output component `r`.`c` from `src` into register `d`.
    fn component(&mut self, src: Src, r: u32, c: u32, d: u8) {
        let t = self.tier;
        match src {
            Src::Loc(Loc::Reg(x), _) => asm::mov(&mut self.ops, t, d, x),
            Src::Loc(Loc::Spill(s), _) => {
                asm::load(&mut self.ops, t, d, Mem::Ctx(abi::spill_offset(s)))
            }
            Src::Loc(Loc::Remat, v) => {
                let m = match self.remat.get(v as usize).copied().flatten() {
                    Some(leaf) => self.remat_mem(leaf),
                    None => return asm::zero(&mut self.ops, t, d),
                };
                asm::load(&mut self.ops, t, d, m);
            }
            Src::Bank => asm::load_bank(&mut self.ops, t, d, ((r * 4 + c) * 64) as i32),
            Src::Retired => {
                let at = abi::RETIRED + ((r * 4 + c) * 64) as i32;
                asm::load(&mut self.ops, t, d, Mem::Ctx(at));
            }
            Src::Const(bits) => {
                let l = self.const_row(&[bits]);
                asm::load(&mut self.ops, t, d, Mem::Const(l));
            }
            Src::Loc(Loc::Unused, _) | Src::Zero => asm::zero(&mut self.ops, t, d),
        }
    }

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
                IoMode::Aos | IoMode::Draw(_) => {
                    self.vertex_rows(mode, r as u32, ROWS);
                    let plan = asm::unpack_rows(&mut self.ops, t, ROWS, TMP[0], mask);
                    for (c, &(op, lo, hi)) in plan.iter().enumerate() {
                        if mask >> c & 1 != 0 {
                            asm::vop(&mut self.ops, t, op, COLS[c], lo, hi);
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

    /// Zeroes the bank lanes of the output components `comps` (bit c of register r); for a
    /// geometry shader the whole bank and the emitter slots, and the triangle count.
    pub(super) fn clear_outputs(&mut self, comps: &[u8; 16], geometry: bool) {
        let t = self.tier;
        if comps.iter().all(|&m| m == 0) && !geometry {
            return;
        }
        asm::zero(&mut self.ops, t, ROWS[0]);
        for (r, &mask) in comps.iter().enumerate() {
            for c in (0..4).filter(|c| mask >> c & 1 != 0) {
                asm::store(&mut self.ops, t, abi::output_offset(r as u32, c), ROWS[0]);
            }
        }
        if geometry {
            // EMIT copies whole registers: every one starts at 0.0.
            for row in 0..64 {
                asm::store(&mut self.ops, t, abi::OUTPUT_BANK0 + row * 64, ROWS[0]);
            }
            for row in 0..4 * 64 {
                asm::store(&mut self.ops, t, abi::EMIT_SLOTS + row * 64, ROWS[0]);
            }
            asm::scalar::store_imm(&mut self.ops, abi::EMIT_COUNT, 0);
        }
    }

    /// Stores the output registers `regs` (all four components) from the bank, or from the
    /// retired lanes' outputs when the function retires lanes (`retired`).
    pub(super) fn store_outputs(&mut self, mode: IoMode, regs: u16, retired: bool) {
        if let IoMode::Draw(layout) = mode {
            let from_bank = if retired { Src::Retired } else { Src::Bank };
            let from = std::array::from_fn(|r| {
                [if regs >> r & 1 != 0 {
                    from_bank
                } else {
                    Src::Zero
                }; 4]
            });
            self.semantic_store(&layout, &from, &[]);
            return;
        }
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
                // Stored in semantic order above.
                IoMode::Draw(_) => {}
                IoMode::Soa => {
                    for c in 0..4u32 {
                        asm::scalar::load_rax(&mut self.ops, abi::plane_out(r * 4 + c));
                        asm::store_plane(&mut self.ops, t, ROWS[c as usize]);
                    }
                }
                IoMode::Aos => {
                    // Columns x, y, z, w → rows per vertex.
                    let plan = asm::unpack_rows(&mut self.ops, t, ROWS, TMP[0], 0b1111);
                    for (k, &(op, lo, hi)) in plan.iter().enumerate() {
                        asm::vop(&mut self.ops, t, op, COLS[k], lo, hi);
                        let disp = k as i32 * abi::AOS_VERTEX_BYTES + r as i32 * 16;
                        asm::store_xmm(&mut self.ops, t, COLS[k], Base::R8, disp);
                        self.store_segments(COLS[k], disp, abi::AOS_VERTEX_BYTES);
                    }
                }
            }
        }
    }
}

/// The four slots of one semantic group: each one's source, output register and component.
type Group = [(Src, u32, u32); 4];
