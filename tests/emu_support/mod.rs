//! What the emulator-backed kernel tests (`x64_emu.rs`, `x64_avx512.rs`) share: the draw
//! layout their draw kernels are compiled with, and the tally of what the emulator executed.

use std::collections::BTreeSet;

use picajit_codegen::code::ExecCode;
use picajit_codegen::x64::{DrawLayout, DrawOrder, DrawSlot};

/// Adds the instructions `exec`'s emulated calls executed to `steps` and their distinct forms
/// (iced-x86 `Code` names) to `codes`.
pub fn record_trace(exec: &ExecCode, steps: &mut u64, codes: &mut BTreeSet<String>) {
    let trace = exec.emulation_trace().expect("emulated code");
    *steps += trace.steps;
    codes.extend(trace.codes.iter().map(|c| format!("{c:?}")));
}

/// A draw layout drawn from `rng`: every input register with 1..=4 components; output slots
/// round-robin over the registers and components, every 7th slot from the 6th on a constant
/// 0.0 and every 7th from the 7th on a constant 1.0.
pub fn random_draw_layout(rng: &mut fastrand::Rng) -> DrawLayout {
    DrawLayout {
        components: std::array::from_fn(|_| rng.u8(1..=4)),
        slots: std::array::from_fn(|k| {
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
        }),
        order: DrawOrder::Indexed,
    }
}
