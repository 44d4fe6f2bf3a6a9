//! What the emulator-backed kernel tests (`x64_emu.rs`, `x64_avx512.rs`) share: the draw
//! layouts their draw kernels are compiled with (copied registers' groups among them), the
//! output buffers those kernels write, and the tally of what the emulator executed.

use std::collections::BTreeSet;

use picajit_codegen::code::ExecCode;
use picajit_codegen::x64::{DrawLayout, DrawOrder, DrawSlot, DRAW_SLOTS};

/// Adds the instructions `exec`'s emulated calls executed to `steps` and their distinct forms
/// (iced-x86 `Code` names) to `codes`.
pub fn record_trace(exec: &ExecCode, steps: &mut u64, codes: &mut BTreeSet<String>) {
    let trace = exec.emulation_trace().expect("emulated code");
    *steps += trace.steps;
    codes.extend(trace.codes.iter().map(|c| format!("{c:?}")));
}

/// A draw layout drawn from `rng`: every input register with 1..=4 components; output slots
/// either round-robin over the registers and components (every 7th slot from the 6th on a
/// constant 0.0, every 7th from the 7th on a constant 1.0), or, half of the time, in groups
/// ([`row_groups`]) that take an output register's row in place — the layouts whose
/// registers a kernel may copy whole from the attribute arrays.
pub fn random_draw_layout(rng: &mut fastrand::Rng) -> DrawLayout {
    let components = std::array::from_fn(|_| rng.u8(1..=4));
    let slots = if rng.bool() {
        row_groups(rng)
    } else {
        std::array::from_fn(|k| {
            if k % 7 == 5 {
                DrawSlot::Zero
            } else if k % 7 == 6 {
                DrawSlot::One
            } else {
                DrawSlot::Output {
                    reg: (k % 16) as u8,
                    comp: (k / 16 % 4) as u8,
                }
            }
        })
    };
    DrawLayout {
        components,
        slots,
        order: DrawOrder::Indexed,
    }
}

/// Semantic slots in groups of four drawn from `rng`, each group one of: all constants; the
/// row of one of the output registers o0–o3 in place (each slot its component or, two times in
/// three, a constant; one component at least), as a copied register's group is — the colour
/// group included, and groups of one or two components among constants; or slots of any
/// registers and components (which keeps a register that also has a row group from being
/// copied).
fn row_groups(rng: &mut fastrand::Rng) -> [DrawSlot; DRAW_SLOTS] {
    let constant = |rng: &mut fastrand::Rng| {
        if rng.bool() {
            DrawSlot::One
        } else {
            DrawSlot::Zero
        }
    };
    let mut slots = [DrawSlot::Zero; DRAW_SLOTS];
    for group in slots.chunks_mut(4) {
        let kind = rng.u8(0..8);
        let reg = rng.u8(0..4);
        let first = rng.u8(0..4);
        for (k, slot) in (0u8..).zip(group.iter_mut()) {
            *slot = if kind == 0 {
                constant(rng)
            } else if kind == 7 {
                DrawSlot::Output {
                    reg: rng.u8(0..16),
                    comp: rng.u8(0..4),
                }
            } else if k == first || rng.u8(0..3) == 0 {
                DrawSlot::Output { reg, comp: k }
            } else {
                constant(rng)
            };
        }
    }
    slots
}

/// `n` output vertices as a draw's caller hands them to a draw kernel of `layout`: its
/// constant slots already hold their constants (a kernel need not store a group of constants,
/// nor the constants beside a register it copies), every other slot 7.0, which the kernel
/// must overwrite.
pub fn output_buffer(layout: &DrawLayout, n: usize) -> Vec<[f32; DRAW_SLOTS]> {
    let vertex = layout.slots.map(|s| match s {
        DrawSlot::Zero => 0.0,
        DrawSlot::One => 1.0,
        DrawSlot::Output { .. } => 7.0,
    });
    vec![vertex; n]
}
