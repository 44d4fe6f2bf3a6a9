//! x86 floating-point rules, on bit patterns, as SSE/AVX/AVX-512 hardware applies them with
//! the MXCSR the kernels run in (the sysv64 default, which they never change: round to nearest
//! even, no flush-to-zero, no denormals-are-zero, every exception masked).
//!
//! Rust's `f32`/`f64` arithmetic is IEEE 754 with the same rounding, so it gives the hardware's
//! result whenever that result is a number; what IEEE leaves open is fixed here: a NaN operand
//! propagates quieted, the first source's before the second's; an invalid operation with no
//! NaN operand gives the default NaN (negative, quiet, zero payload); `min`/`max` return the
//! second source unless the first compares less/greater; conversions of NaN keep the payload.

/// The default NaN of an invalid single-precision operation.
pub const DEFAULT_NAN32: u32 = 0xFFC0_0000;
/// The default NaN of an invalid double-precision operation.
pub const DEFAULT_NAN64: u64 = 0xFFF8_0000_0000_0000;
/// What a float-to-int32 conversion of NaN or an out-of-range value gives.
pub const INT_INDEFINITE: u32 = 0x8000_0000;

fn nan32(a: u32) -> bool {
    a & 0x7FFF_FFFF > 0x7F80_0000
}

fn nan64(a: u64) -> bool {
    a & 0x7FFF_FFFF_FFFF_FFFF > 0x7FF0_0000_0000_0000
}

/// The binary operation `f` with x86 NaN propagation (single precision).
pub fn arith32(a: u32, b: u32, f: impl Fn(f32, f32) -> f32) -> u32 {
    if nan32(a) {
        a | 0x0040_0000
    } else if nan32(b) {
        b | 0x0040_0000
    } else {
        let r = f(f32::from_bits(a), f32::from_bits(b));
        if r.is_nan() {
            DEFAULT_NAN32
        } else {
            r.to_bits()
        }
    }
}

/// The binary operation `f` with x86 NaN propagation (double precision).
pub fn arith64(a: u64, b: u64, f: impl Fn(f64, f64) -> f64) -> u64 {
    if nan64(a) {
        a | 0x0008_0000_0000_0000
    } else if nan64(b) {
        b | 0x0008_0000_0000_0000
    } else {
        let r = f(f64::from_bits(a), f64::from_bits(b));
        if r.is_nan() {
            DEFAULT_NAN64
        } else {
            r.to_bits()
        }
    }
}

/// `minps`: the first source if it compares less, else the second (NaNs and ±0 alike).
pub fn min32(a: u32, b: u32) -> u32 {
    if f32::from_bits(a) < f32::from_bits(b) {
        a
    } else {
        b
    }
}

/// `maxps`: the first source if it compares greater, else the second.
pub fn max32(a: u32, b: u32) -> u32 {
    if f32::from_bits(a) > f32::from_bits(b) {
        a
    } else {
        b
    }
}

/// `sqrtps`.
pub fn sqrt32(a: u32) -> u32 {
    arith32(a, 0, |x, _| x.sqrt())
}

/// The 32 compare predicates of `cmpps`/`vcmpps` (the signalling/quiet distinction only
/// changes exceptions, which are masked).
pub fn compare<T: PartialOrd>(a: T, b: T, unordered: bool, pred: u8) -> bool {
    let (lt, eq, gt) = (a < b, a == b, a > b);
    match pred & 15 {
        0 => eq,                 // EQ_OQ
        1 => lt,                 // LT_OS
        2 => lt || eq,           // LE_OS
        3 => unordered,          // UNORD_Q
        4 => !eq,                // NEQ_UQ
        5 => !lt,                // NLT_US
        6 => !(lt || eq),        // NLE_US
        7 => !unordered,         // ORD_Q
        8 => eq || unordered,    // EQ_UQ
        9 => !(gt || eq),        // NGE_US
        10 => !gt,               // NGT_US
        11 => false,             // FALSE_OQ
        12 => !eq && !unordered, // NEQ_OQ
        13 => gt || eq,          // GE_OS
        14 => gt,                // GT_OS
        _ => true,               // TRUE_UQ
    }
}

/// Single-precision compare with predicate `pred` (0..=31).
pub fn cmp32(a: u32, b: u32, pred: u8) -> bool {
    let unordered = nan32(a) || nan32(b);
    compare(f32::from_bits(a), f32::from_bits(b), unordered, pred)
}

/// Double-precision compare with predicate `pred` (0..=31).
pub fn cmp64(a: u64, b: u64, pred: u8) -> bool {
    let unordered = nan64(a) || nan64(b);
    compare(f64::from_bits(a), f64::from_bits(b), unordered, pred)
}

/// `cvttps2dq`: truncation; NaN and out-of-range values give [`INT_INDEFINITE`].
pub fn cvtt_f32_i32(a: u32) -> u32 {
    let x = f32::from_bits(a);
    if x.is_nan() || !(-2147483648.0..2147483648.0).contains(&x) {
        INT_INDEFINITE
    } else {
        x.trunc() as i32 as u32
    }
}

/// `cvtdq2ps` (round to nearest even).
pub fn cvt_i32_f32(a: u32) -> u32 {
    (a as i32 as f32).to_bits()
}

/// `cvtps2pd`: exact; a NaN keeps sign and payload, quieted.
pub fn cvt_f32_f64(a: u32) -> u64 {
    if nan32(a) {
        (u64::from(a & 0x8000_0000) << 32)
            | 0x7FF8_0000_0000_0000
            | (u64::from(a & 0x003F_FFFF) << 29)
    } else {
        f64::from(f32::from_bits(a)).to_bits()
    }
}

/// `cvtpd2ps`: round to nearest even; a NaN keeps sign and the payload's high bits, quieted.
pub fn cvt_f64_f32(a: u64) -> u32 {
    if nan64(a) {
        ((a >> 32) as u32 & 0x8000_0000) | 0x7FC0_0000 | ((a >> 29) as u32 & 0x003F_FFFF)
    } else {
        (f64::from_bits(a) as f32).to_bits()
    }
}

/// `roundps` (and `vrndscaleps` with no fraction bits): immediate bit 2 = the MXCSR mode
/// (nearest even), else bits 1:0 = nearest even, down, up, toward zero.
pub fn round32(a: u32, imm: u8) -> u32 {
    if nan32(a) {
        return a | 0x0040_0000;
    }
    let x = f32::from_bits(a);
    let mode = if imm & 4 != 0 { 0 } else { imm & 3 };
    match mode {
        0 => x.round_ties_even(),
        1 => x.floor(),
        2 => x.ceil(),
        _ => x.trunc(),
    }
    .to_bits()
}

/// `roundpd`.
pub fn round64(a: u64, imm: u8) -> u64 {
    if nan64(a) {
        return a | 0x0008_0000_0000_0000;
    }
    let x = f64::from_bits(a);
    let mode = if imm & 4 != 0 { 0 } else { imm & 3 };
    match mode {
        0 => x.round_ties_even(),
        1 => x.floor(),
        2 => x.ceil(),
        _ => x.trunc(),
    }
    .to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_and_signed_zero_rules() {
        let (qa, sb) = (0x7FC0_1234, 0xFF80_0001);
        assert_eq!(arith32(qa, sb, |x, y| x + y), qa);
        assert_eq!(arith32(0x3F80_0000, sb, |x, y| x + y), 0xFFC0_0001);
        let inf = f32::INFINITY.to_bits();
        assert_eq!(
            arith32(inf, (-f32::INFINITY).to_bits(), |x, y| x + y),
            DEFAULT_NAN32
        );
        assert_eq!(min32(0x8000_0000, 0), 0);
        assert_eq!(min32(0, 0x8000_0000), 0x8000_0000);
        assert_eq!(max32(qa, 0x3F80_0000), 0x3F80_0000);
        assert_eq!(min32(0x3F80_0000, qa), qa);
        assert_eq!(sqrt32((-1.0f32).to_bits()), DEFAULT_NAN32);
        assert_eq!(sqrt32(0x8000_0000), 0x8000_0000);
        assert_eq!(cvtt_f32_i32(qa), INT_INDEFINITE);
        assert_eq!(cvtt_f32_i32((-2147483648.0f32).to_bits()), 0x8000_0000);
        assert_eq!(cvtt_f32_i32((-1.9f32).to_bits()), (-1i32) as u32);
        assert_eq!(cvt_f64_f32(cvt_f32_f64(0xFF80_0001)), 0xFFC0_0001);
        assert_eq!(round32((-0.5f32).to_bits(), 2), 0x8000_0000);
        assert_eq!(round32(2.5f32.to_bits(), 4), 2.0f32.to_bits());
        assert!(cmp32(qa, qa, 4) && !cmp32(qa, qa, 12) && cmp32(qa, 0, 3));
    }
}
