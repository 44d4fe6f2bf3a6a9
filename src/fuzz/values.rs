//! Values drawn to hit the special cases of the float rules ([`crate::float`]): signed
//! zeros, infinities, NaNs with payloads, subnormals, huge values, 1.0, values next to integer
//! boundaries (FLR, MOVA's truncation and the ±128 offset window), and the LITP clamp bounds.
//! Also the int and bool uniforms and batches of input vertices whose lanes diverge.

use crate::program::{Regs16, Uniforms, Vec4};

/// Bit patterns that exercise every rule.
pub const SPECIAL: [u32; 34] = [
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x7FC0_0000, // quiet NaN
    0xFFC0_1234, // negative quiet NaN with a payload
    0x7F80_0001, // signalling NaN
    0xFFBF_FFFF, // negative signalling NaN, full payload
    0x0000_0001, // smallest subnormal
    0x807F_FFFF, // largest negative subnormal
    0x0080_0000, // smallest normal
    0x3F80_0000, // 1
    0xBF80_0000, // -1
    0x3F00_0000, // 0.5
    0xBF00_0000, // -0.5
    0x7F7F_FFFF, // largest finite
    0xFF7F_FFFF, // most negative finite
    0x4300_0000, // 128 (outside the relative-offset window)
    0xC300_0000, // -128 (inside)
    0xC301_0000, // -129 (outside)
    0x42FE_0000, // 127
    0x42FF_FF80, // 127.99609375 (LITP bound)
    0xC2FF_FF80, // -127.99609375
    0x42FF_FFFF, // just under 128
    0x3F7F_FFFF, // just under 1
    0xBF80_0001, // just under -1
    0x4F00_0000, // 2^31 (i32 saturation)
    0xCF00_0000, // -2^31
    0x4EFF_FFFF, // just under 2^31
    0x4B00_0000, // 2^23: every larger float is an integer
    0x4B7F_FFFF, // 2^24 - 1
    0x3F80_0001, // just above 1
    0x42C0_0000, // 96 (first padded uniform row)
    0x42BE_0000, // 95
];

/// A float: a special value, a value next to an integer, a small value, or any bit pattern.
pub fn special_float(rng: &mut fastrand::Rng) -> f32 {
    match rng.u8(0..16) {
        0..=4 => f32::from_bits(SPECIAL[rng.usize(..SPECIAL.len())]),
        5 | 6 => near_integer(rng),
        7 => f32::from_bits(rng.u32(..)),
        8 => nan_with_payload(rng),
        9 => f32::from_bits(rng.u32(1..0x0080_0000) | rng.u32(0..2) << 31),
        10 => (rng.f32() - 0.5) * 1e30,
        _ => (rng.f32() - 0.5) * 8.0,
    }
}

/// A NaN of either sign with a random non-zero payload.
pub fn nan_with_payload(rng: &mut fastrand::Rng) -> f32 {
    f32::from_bits(0x7F80_0000 | rng.u32(1..0x0080_0000) | rng.u32(0..2) << 31)
}

/// An integer in the interesting range of relative offsets and loop indices, exact or one ulp
/// away, or halfway.
pub fn near_integer(rng: &mut fastrand::Rng) -> f32 {
    let n = match rng.u8(0..4) {
        0 => rng.i32(-3..4),
        1 => rng.i32(-140..140),
        2 => [-129, -128, 127, 128, 95, 96, -96, -97][rng.usize(..8)],
        _ => rng.i32(-40..40),
    } as f32;
    match rng.u8(0..5) {
        0 => n,
        1 => f32::from_bits(n.to_bits().wrapping_add(1)),
        2 => f32::from_bits(n.to_bits().wrapping_sub(1).max(1)),
        3 => n + 0.5,
        _ => n - 0.25,
    }
}

/// A vec4 of [`special_float`]s, sometimes one value broadcast.
pub fn special_vec4(rng: &mut fastrand::Rng) -> Vec4 {
    if rng.u8(0..8) == 0 {
        [special_float(rng); 4]
    } else {
        std::array::from_fn(|_| special_float(rng))
    }
}

/// Uniforms: special floats; loop counts mostly small (sometimes the largest); any bools.
pub fn uniforms(rng: &mut fastrand::Rng) -> Uniforms {
    let mut u = Uniforms::default();
    for c in u.f.iter_mut() {
        *c = special_vec4(rng);
    }
    for i in u.i.iter_mut() {
        let count = match rng.u8(0..16) {
            0 => 255,
            1 => rng.u8(..),
            _ => rng.u8(0..6),
        };
        let start = match rng.u8(0..4) {
            0 => rng.u8(..),
            _ => rng.u8(0..8),
        };
        let step = match rng.u8(0..4) {
            0 => rng.u8(..),
            _ => rng.u8(0..4),
        };
        *i = [count, start, step, rng.u8(..)];
    }
    u.b = rng.u16(..);
    u
}

/// `n` input vertices. Lanes diverge in some registers and agree in others: each vertex starts
/// as a copy of a base vertex and redraws each register with a per-case probability (0: all
/// lanes equal, 1: all independent).
pub fn inputs(rng: &mut fastrand::Rng, n: usize) -> Vec<Regs16> {
    let base: Regs16 = std::array::from_fn(|_| special_vec4(rng));
    let redraw = [0u8, 2, 4, 8, 16][rng.usize(..5)];
    (0..n)
        .map(|_| {
            let mut v = base;
            for reg in v.iter_mut() {
                if rng.u8(0..16) < redraw {
                    *reg = special_vec4(rng);
                } else if rng.u8(0..32) == 0 {
                    // One component nudged: lanes that agree almost everywhere.
                    let c = rng.usize(..4);
                    reg[c] = f32::from_bits(reg[c].to_bits() ^ 1);
                }
            }
            v
        })
        .collect()
}

/// How many vertices a batch has: one lane, a few (tails of every width), exact multiples of
/// the SIMD widths, or occasionally a large batch for the parallel paths.
pub fn vertex_count(rng: &mut fastrand::Rng) -> usize {
    match rng.u8(0..32) {
        0..=3 => 1,
        4..=7 => [4, 8, 16][rng.usize(..3)],
        8 => rng.usize(256..600),
        _ => rng.usize(2..=20),
    }
}
