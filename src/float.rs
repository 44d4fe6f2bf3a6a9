//! The one statement of PICA float rules.
//!
//! Every arithmetic rule of the shader semantics ([`crate::interp`]) that is more than a single
//! IEEE-754 binary32 operation lives here, once: the sanitized multiply [`pmul`], [`max`]/[`min`],
//! [`rcp`]/[`rsq`], [`flr`], the project's own [`ex2`]/[`lg2`] algorithm, the LITP clamps, the
//! MOVA conversion and the float24 codec. The reference interpreter calls these functions and
//! **every JIT backend must reproduce them bit for bit** (the one freedom: a NaN result may have
//! any sign and payload, as long as it is NaN on both sides).
//!
//! Ground rules, valid for everything below: binary32 arithmetic, round to nearest even,
//! subnormals kept (no FTZ/DAZ), no fused multiply-add (the Rust code writes `a * b + c`, which
//! Rust never contracts), every operation separately rounded.
//!
//! # Known deliberate differences from hardware
//!
//! The hardware behaviour documented on 3dbrew ("floating point behaviour", hardware tests from
//! 2015) differs from these rules in a few places. We follow the Azahar interpreter there;
//! this list is the one place to revisit those choices:
//!
//! | case | here | hardware (3dbrew) |
//! |---|---|---|
//! | `rcp(-0.0)` | −inf (IEEE division) | +inf |
//! | `rsq(-0.0)` | −inf (`1 / sqrt(-0) = 1 / -0`) | +inf |
//! | `max(0.0, -inf)` | 0.0 (`a > b ? a : b`) | −inf |
//! | negative zero | produced by ordinary IEEE rules (e.g. `pmul(-1, 0) = -0`) | reportedly never observed |
//! | EX2 / LG2 | our own algorithm, ≤ 1 ulp from exact (see [`ex2`], [`lg2`]) | unknown precision |
//! | float24 denormals ([`f24_to_f32`]) | decoded exactly | reportedly flushed to zero |
//! | MOVA of NaN / out of range ([`mova_trunc`]) | saturating, NaN → 0 | unknown |
//!
//! The exhaustive measurement of [`ex2`] and [`lg2`] over all 2^32 inputs is in [`check`].

#[doc(hidden)]
pub mod check;

// ------------------------------------------------------------------------------------------------
// Multiply, min/max, reciprocals, floor
// ------------------------------------------------------------------------------------------------

/// The sanitized multiply used by MUL, MAD/MADI and the dot products.
///
/// `p = a * b` (binary32); if `p` is NaN while neither `a` nor `b` is NaN — that is, `0 × ±inf`
/// or `±inf × 0` — the result is `+0.0`; otherwise `p`. NaN inputs propagate.
#[inline]
pub fn pmul(a: f32, b: f32) -> f32 {
    let p = a * b;
    if p.is_nan() && !a.is_nan() && !b.is_nan() {
        0.0
    } else {
        p
    }
}

/// MAX: exactly `a > b ? a : b`.
///
/// A NaN in either operand gives `b`; equal operands (including `+0`/`-0` in either order)
/// give `b`. So `max(0, NaN) = NaN`, `max(NaN, 0) = 0`, `max(+0, -0) = -0`,
/// `max(0, -inf) = 0` (hardware: −inf, see the module docs). x86 `MAXPS a, b` has these
/// semantics exactly.
#[inline]
pub fn max(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// MIN: exactly `a < b ? a : b` (NaN in either → `b`; equal → `b`).
#[inline]
pub fn min(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

/// RCP: `1.0 / a`, one IEEE division. `rcp(+0) = +inf`, `rcp(-0) = -inf` (hardware: +inf),
/// `rcp(±inf) = ±0`, `rcp(NaN) = NaN`. No reciprocal estimate instructions.
#[inline]
pub fn rcp(a: f32) -> f32 {
    1.0 / a
}

/// RSQ: `1.0 / sqrt(a)`, two separately rounded IEEE operations. `rsq(+0) = +inf`,
/// `rsq(-0) = -inf` (hardware: +inf), `rsq(negative) = NaN`, `rsq(+inf) = +0`,
/// `rsq(-inf) = NaN`. No reciprocal-square-root estimate instructions.
#[inline]
pub fn rsq(a: f32) -> f32 {
    1.0 / a.sqrt()
}

/// FLR: IEEE floor (round toward −inf); `-0` stays `-0`, NaN and ±inf pass through.
#[inline]
pub fn flr(a: f32) -> f32 {
    a.floor()
}

// ------------------------------------------------------------------------------------------------
// EX2
// ------------------------------------------------------------------------------------------------

/// EX2 input clamp, low bound. `2^-151` rounds to `+0` in binary32, so `-inf` and every
/// `x ≤ -151` give exactly `+0`.
#[doc(hidden)]
pub const EX2_CLAMP_LO: f32 = -151.0;
/// EX2 input clamp, high bound. `2^129` overflows binary32, so `+inf` and every `x ≥ 129` give
/// exactly `+inf`.
#[doc(hidden)]
pub const EX2_CLAMP_HI: f32 = 129.0;

/// `ln(2)^0 / 0!` (bits `0x3FF0000000000000`).
#[doc(hidden)]
pub const EX2_C0: f64 = 1.0;
/// `ln(2)^1 / 1!`, correctly rounded to f64 (bits `0x3FE62E42FEFA39EF`).
#[doc(hidden)]
pub const EX2_C1: f64 = std::f64::consts::LN_2;
/// `ln(2)^2 / 2!` (bits `0x3FCEBFBDFF82C58F`).
#[doc(hidden)]
pub const EX2_C2: f64 = 0.240_226_506_959_100_72;
/// `ln(2)^3 / 3!` (bits `0x3FAC6B08D704A0C0`).
#[doc(hidden)]
pub const EX2_C3: f64 = 0.055_504_108_664_821_58;
/// `ln(2)^4 / 4!` (bits `0x3F83B2AB6FBA4E77`).
#[doc(hidden)]
pub const EX2_C4: f64 = 0.009_618_129_107_628_477;
/// `ln(2)^5 / 5!` (bits `0x3F55D87FE78A6731`).
#[doc(hidden)]
pub const EX2_C5: f64 = 0.001_333_355_814_642_844_3;
/// `ln(2)^6 / 6!` (bits `0x3F2430912F86C787`).
#[doc(hidden)]
pub const EX2_C6: f64 = 0.000_154_035_303_933_816_1;
/// `ln(2)^7 / 7!` (bits `0x3EEFFCBFC588B0C7`).
#[doc(hidden)]
pub const EX2_C7: f64 = 1.525_273_380_405_984_1e-5;
/// `ln(2)^8 / 8!` (bits `0x3EB62C0223A5C824`).
#[doc(hidden)]
pub const EX2_C8: f64 = 1.321_548_679_014_431e-6;
/// `ln(2)^9 / 9!` (bits `0x3E7B5253D395E7C4`).
#[doc(hidden)]
pub const EX2_C9: f64 = 1.017_808_600_923_97e-7;
/// `ln(2)^10 / 10!` (bits `0x3E3E4CF5158B8ECA`).
#[doc(hidden)]
pub const EX2_C10: f64 = 7.054_911_620_801_123e-9;

/// `1.5 · 2^52 + 1023` (bits `0x43380000000003FF`). For an integer `n` with `|n| < 2^50`,
/// `n + EX2_SCALE_MAGIC` is exact and its bit pattern is `0x4338000000000000 + (n + 1023)`; shifting
/// that left by 52 keeps only the low 12 bits, `n + 1023`, in the exponent field: the bits of
/// `2^n` as an f64, with no float→integer conversion instruction (SSE/AVX2 have none for
/// packed f64 → i64).
#[doc(hidden)]
pub const EX2_SCALE_MAGIC: f64 = 6_755_399_441_056_767.0;

/// EX2: `2^x`, the project's own algorithm.
///
/// Computed in f64 and rounded once to f32. The steps, which every backend performs exactly
/// in this order with these constants (f64 operations are IEEE binary64, round to nearest
/// even, each separately rounded, **no FMA**):
///
/// ```text
/// 1. t = x < EX2_CLAMP_LO ? EX2_CLAMP_LO : x          (f32 select; NaN: comparison false → NaN)
///    t = t > EX2_CLAMP_HI ? EX2_CLAMP_HI : t          (f32 select; NaN stays NaN)
/// 2. X = f64(t)                                       (exact)
/// 3. N = round_ties_even(X)                           (f64, integer in [-151, 129])
/// 4. R = X - N                                        (exact, |R| ≤ 0.5)
/// 5. P = EX2_C10
///    P = P * R + EX2_C9      (mul, then add: two roundings)
///    P = P * R + EX2_C8
///    …                       (C7, C6, C5, C4, C3, C2, C1)
///    P = P * R + EX2_C0
/// 6. S = f64::from_bits(bits(N + EX2_SCALE_MAGIC) << 52)   (= 2^N exactly; 64-bit shift)
/// 7. Y = P * S                                        (exact: scaling by a power of two, in range)
/// 8. result = f32(Y)                                  (round to nearest even; subnormal and
///                                                      overflow-to-inf handled by the conversion)
/// ```
///
/// In x86 terms the two selects of step 1 are `MAXSS(LO, x)` then `MINSS(HI, t)` (constant as
/// the *first* operand, so a NaN `x` is returned). A NaN input needs no extra select: it reaches
/// `R` and `P` as NaN, and NaN times any `S` is NaN (the bits of `S` are meaningless then).
///
/// Specials: NaN → NaN; −inf → +0; +inf → +inf; `x ≥ 128` → +inf; `x ≤ -150` → +0
/// (`2^-150` is the tie between 0 and the least subnormal and rounds to even, 0); integers
/// `n ∈ [-149, 127]` give exactly `2^n` (R = +0, P = 1).
///
/// # Error bound (why the result is within 1 ulp of `2^x` for every f32 `x`)
///
/// Let `t = R·ln2`, `|t| ≤ ln2/2 < 0.3466`. Step 5 evaluates the degree-10 Taylor polynomial of
/// `e^t = 2^R`; the Lagrange remainder is `≤ e^0.3466 · 0.3466^11 / 11! < 3.1e-13`, i.e. a
/// relative error `< 4.4e-13 < 2^-41` since `2^R ≥ 2^-0.5`. Rounding the coefficients to f64
/// adds `≤ 2^-53 · 2^|R| / 2^R ≤ 2^-52` relative, and the 20 separately rounded Horner operations add at most
/// `γ_20 · Σ|c_k||R|^k / 2^R ≤ 20·2^-53 · 2 < 2^-47` relative. So `P = 2^R · (1 + ε)`,
/// `|ε| < 2^-40.9`; steps 6–7 are exact (`2^N` and `P·2^N` are normal f64 for N ∈ [-151, 129]).
/// A relative error `ε` before the final rounding is at most `ε · 2^24` f32 ulps (for normal
/// results; subnormal results have a larger ulp relative to the value), so the result is within
/// `0.5 + 2^-16.9` ulp of the exact value, `< 1 ulp`. Results above `f32::MAX` round to +inf, and
/// the clamp only touches inputs whose exact result is already 0 or +inf after rounding. The
/// exhaustive check ([`check::check_ex2_lg2`]) measures this over all 2^32 inputs.
pub fn ex2(x: f32) -> f32 {
    ex2_f64(f64::from(x))
}

/// The EX2 algorithm on an f64 input (`x` need not be an f32 value): steps 1–8 of [`ex2`] with
/// the clamp of step 1 done in f64 (for an f32 input this is the same selects, so
/// `ex2(x) == ex2_f64(f64::from(x))`). AGAL's `pow` feeds it `y · log2|x|` computed in f64
/// (`agal::interp`).
pub fn ex2_f64(x: f64) -> f32 {
    // 1. Clamp with NaN-preserving selects.
    let lo = f64::from(EX2_CLAMP_LO);
    let hi = f64::from(EX2_CLAMP_HI);
    let xd = if x < lo { lo } else { x };
    let xd = if xd > hi { hi } else { xd };
    // 2.–4. Range reduction: X = N + R.
    let n = xd.round_ties_even();
    let r = xd - n;
    // 5. 2^R by Horner, each step a separately rounded multiply and add.
    let mut p = EX2_C10;
    p = p * r + EX2_C9;
    p = p * r + EX2_C8;
    p = p * r + EX2_C7;
    p = p * r + EX2_C6;
    p = p * r + EX2_C5;
    p = p * r + EX2_C4;
    p = p * r + EX2_C3;
    p = p * r + EX2_C2;
    p = p * r + EX2_C1;
    p = p * r + EX2_C0;
    // 6. 2^N from integer bits.
    let s = f64::from_bits((n + EX2_SCALE_MAGIC).to_bits() << 52);
    // 7.–8. Scale (exact) and round once to f32.
    (p * s) as f32
}

// ------------------------------------------------------------------------------------------------
// LG2
// ------------------------------------------------------------------------------------------------

/// `2 / (1 · ln 2)`, correctly rounded to f64 (bits `0x40071547652B82FE`).
#[doc(hidden)]
pub const LG2_C1: f64 = 2.885_390_081_777_926_8;
/// `2 / (3 · ln 2)` (bits `0x3FEEC709DC3A03FD`).
#[doc(hidden)]
pub const LG2_C3: f64 = 0.961_796_693_925_975_6;
/// `2 / (5 · ln 2)` (bits `0x3FE2776C50EF9BFE`).
#[doc(hidden)]
pub const LG2_C5: f64 = 0.577_078_016_355_585_3;
/// `2 / (7 · ln 2)` (bits `0x3FDA61762A7ADED9`).
#[doc(hidden)]
pub const LG2_C7: f64 = 0.412_198_583_111_132_4;
/// `2 / (9 · ln 2)` (bits `0x3FD484B13D7C02A9`).
#[doc(hidden)]
pub const LG2_C9: f64 = 0.320_598_897_975_325_2;
/// `2 / (11 · ln 2)` (bits `0x3FD0C9A84994022D`).
#[doc(hidden)]
pub const LG2_C11: f64 = 0.262_308_189_252_538_8;
/// `2 / (13 · ln 2)` (bits `0x3FCC68F568D31760`).
#[doc(hidden)]
pub const LG2_C13: f64 = 0.221_953_083_213_686_67;

/// `√2` correctly rounded to f64 (bits `0x3FF6A09E667F3BCD`): mantissas above it are halved so
/// that `m ∈ (√2/2, √2]`.
#[doc(hidden)]
pub const LG2_SQRT2: f64 = std::f64::consts::SQRT_2;
/// Mask of the f64 mantissa field.
#[doc(hidden)]
pub const LG2_MANT_MASK: u64 = 0x000F_FFFF_FFFF_FFFF;
/// Bits of `1.0_f64` (exponent field 1023).
#[doc(hidden)]
pub const LG2_ONE_BITS: u64 = 0x3FF0_0000_0000_0000;
/// Bits of `2^52`: OR-ing a biased exponent `b < 2^52` into its mantissa gives `2^52 + b`.
#[doc(hidden)]
pub const LG2_EXP_MAGIC_BITS: u64 = 0x4330_0000_0000_0000;
/// `2^52 + 1023` (bits `0x43300000000003FF`): `(2^52 + b) − LG2_EXP_BIAS = b − 1023`, exact.
#[doc(hidden)]
pub const LG2_EXP_BIAS: f64 = 4_503_599_627_371_519.0;

/// LG2: `log2(x)`, the project's own algorithm.
///
/// Computed in f64 and rounded once to f32. The steps every backend performs exactly, in this
/// order with these constants (f64 operations round to nearest even, separately, **no FMA**;
/// `bits`/`from_bits` reinterpret, `>>`, `&`, `|` are 64-bit integer operations):
///
/// ```text
///  1. X = f64(x)                                      (exact; f32 subnormals become normal f64)
///  2. B = bits(X)
///  3. E = from_bits(LG2_EXP_MAGIC_BITS | (B >> 52)) - LG2_EXP_BIAS   (= unbiased exponent, exact)
///  4. M = from_bits((B & LG2_MANT_MASK) | LG2_ONE_BITS)              (M ∈ [1, 2))
///  5. H = M > LG2_SQRT2                               (mask)
///     M = H ? M * 0.5 : M                             (exact)
///     E = H ? E + 1.0 : E                             (exact)
///  6. S = (M - 1.0) / (M + 1.0)                       (M - 1 and M + 1 exact; one rounding)
///  7. Z = S * S
///  8. Q = LG2_C13
///     Q = Q * Z + LG2_C11    (mul, then add: two roundings)
///     Q = Q * Z + LG2_C9
///     Q = Q * Z + LG2_C7
///     Q = Q * Z + LG2_C5
///     Q = Q * Z + LG2_C3
///     Q = Q * Z + LG2_C1
///  9. L = S * Q
/// 10. Y = E + L
/// 11. y = f32(Y)                                      (round to nearest even)
/// 12. y = !(x >= 0) ? NaN  : y                        (f32 compare on the input: NaN and x < 0,
///                                                      including −inf; the NaN is f32::NAN)
///     y = x == 0    ? -inf : y                        (both +0 and −0)
///     y = x == +inf ? +inf : y
/// ```
///
/// The three masks of step 12 are disjoint, so their order does not matter. Steps 1–11 run on
/// every lane regardless (for special inputs they give finite garbage or NaN, never a trap).
///
/// Exact points: `lg2(2^k) = k` for every f32 power of two (M = 1 → S = +0 → L = +0), in
/// particular `lg2(1) = +0` and `lg2(2^-149) = -149`.
///
/// # Error bound (why the result is within 1 ulp of `log2(x)` for every f32 `x > 0`)
///
/// `x = 2^E · M` exactly with `M ∈ (√2/2, √2]`, and `log2(M) = (2/ln2)·atanh(S)
/// = S·(C1 + C3·S² + C5·S⁴ + …)` with `S = (M−1)/(M+1)`, `|S| ≤ 3 − 2√2 < 0.1716`,
/// `S² < 0.02944`. `M` is a multiple of `2^-24` (24 significant bits from the f32, shifted by
/// at most one place), so `M − 1` (Sterbenz) and `M + 1` (a multiple of `2^-24` below 4) are
/// exact and `S` carries one rounding, `2^-53` relative. Truncating the series after `S^13`
/// leaves a relative error `≤ S^14 / (15·(1 − S²)) < 1.4e-12 < 2^-39.4`. The Horner sum has only
/// positive terms, so its 12 roundings, the coefficient roundings, the roundings of `S` and `Z`
/// and the final product add less than `24·2^-53 < 2^-48` relative. Hence
/// `L = log2(M)·(1 + η)`, `|η| < 2^-39.3`. Step 10: if `E = 0`, `Y = L` (exact addition of 0). Otherwise `|L| ≤ 0.5 ≤ |E|/2`, so `|E + L| ≥ |E|/2 ≥ |L|`, and the
/// absolute error `|L|·|η|` is at most `|η|` relative to the result; the addition adds `2^-53`.
/// So `Y = log2(x)·(1 + ε)` with `|ε| < 2^-39.2`, which is `< 2^-15` f32 ulps (results are never
/// subnormal: the smallest nonzero `|log2(x)|` is about `1.7e-7`), and the final rounding makes
/// the total `≤ 0.5 + 2^-15` ulp, `< 1 ulp`. The exhaustive check ([`check::check_ex2_lg2`])
/// measures this over all 2^32 inputs.
pub fn lg2(x: f32) -> f32 {
    // 1.–11.
    let y = lg2_f64(x) as f32;
    // 12. Specials by selects on the input.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    let y = if !(x >= 0.0) { f32::NAN } else { y };
    let y = if x == 0.0 { f32::NEG_INFINITY } else { y };
    if x == f32::INFINITY {
        f32::INFINITY
    } else {
        y
    }
}

/// Steps 1–10 of [`lg2`]: `log2(x)` as the f64 `Y` before its rounding to f32, relative error
/// below `2^-39.2` for every positive finite f32 `x` (the bound proved at [`lg2`]). For zero,
/// negative, infinite and NaN inputs the value is meaningless (finite garbage or NaN); callers
/// select the specials themselves. AGAL's `pow` uses it unrounded (`agal::interp`).
pub fn lg2_f64(x: f32) -> f64 {
    // 1.–4. Split X = 2^E · M.
    let xd = f64::from(x);
    let b = xd.to_bits();
    let e = f64::from_bits(LG2_EXP_MAGIC_BITS | (b >> 52)) - LG2_EXP_BIAS;
    let m = f64::from_bits((b & LG2_MANT_MASK) | LG2_ONE_BITS);
    // 5. Centre M around 1.
    let h = m > LG2_SQRT2;
    let m = if h { m * 0.5 } else { m };
    let e = if h { e + 1.0 } else { e };
    // 6.–9. log2(M) = S · Q(S²).
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut q = LG2_C13;
    q = q * z + LG2_C11;
    q = q * z + LG2_C9;
    q = q * z + LG2_C7;
    q = q * z + LG2_C5;
    q = q * z + LG2_C3;
    q = q * z + LG2_C1;
    let l = s * q;
    // 10. Add the exponent.
    e + l
}

// ------------------------------------------------------------------------------------------------
// LITP, MOVA
// ------------------------------------------------------------------------------------------------

/// The LITP clamp bound, `0x7FFF / 256 = 127.99609375` (exact in f32).
pub const LITP_BOUND: f32 = 32767.0 / 256.0;

/// LITP component y: `x < -B ? -B : (x > B ? B : x)` with `B = 127.99609375`; NaN stays NaN.
///
/// Written as the two selects a backend emits; the same as `a.clamp(-B, B)`.
#[inline]
#[allow(clippy::manual_clamp)]
pub fn litp_clamp(a: f32) -> f32 {
    if a < -LITP_BOUND {
        -LITP_BOUND
    } else if a > LITP_BOUND {
        LITP_BOUND
    } else {
        a
    }
}

/// LITP components x and w: `x > 0 ? x : +0.0` (NaN → +0.0, −0 → +0.0).
#[inline]
pub fn litp_pos(a: f32) -> f32 {
    if a > 0.0 {
        a
    } else {
        0.0
    }
}

/// MOVA: truncate toward zero to i32, **saturating** (`x ≥ 2^31 → i32::MAX`,
/// `x < -2^31 → i32::MIN`, ±inf likewise) and **NaN → 0**.
///
/// This is exactly Rust's `as i32` on an f32 (defined, never undefined behaviour). It matches
/// AArch64 `FCVTZS`; x86 `CVTTPS2DQ` gives `i32::MIN` for NaN and out-of-range inputs, so an x86
/// backend must patch those lanes. For relative addressing every out-of-range value is
/// equivalent anyway (offsets outside `[-128, 127]` become 0), but `a0` itself must match.
#[inline]
pub fn mova_trunc(a: f32) -> i32 {
    a as i32
}

// ------------------------------------------------------------------------------------------------
// float24
// ------------------------------------------------------------------------------------------------

/// Decode a raw float24 (the low 24 bits of `raw`; higher bits are ignored) to f32, exactly.
///
/// Layout s1 e7 m16, exponent bias 63:
/// - exponent 1–126: `(−1)^s · 2^(e−63) · (1 + m/2^16)` — f32 exponent `e + 64`, mantissa `m << 7`;
/// - exponent 0, m = 0: ±0;
/// - exponent 0, m ≠ 0: the exact denormal `(−1)^s · 2^-62 · m/2^16` (a normal f32; Azahar's
///   rule — hardware reportedly flushes these, see the module docs);
/// - exponent 127: m = 0 → ±inf, m ≠ 0 → NaN with payload `m << 7` (0x7F8000 → 0x7FC00000).
pub fn f24_to_f32(raw: u32) -> f32 {
    let sign = (raw >> 23) & 1;
    let exp = (raw >> 16) & 0x7F;
    let mant = raw & 0xFFFF;
    let sign_bit = sign << 31;
    match exp {
        0 => {
            // mant · 2^-78: mant has ≤ 16 bits and the product is ≥ 2^-78, a normal f32 — exact.
            let magnitude = mant as f32 * f32::from_bits((127 - 78) << 23);
            f32::from_bits(sign_bit | magnitude.to_bits())
        }
        127 => f32::from_bits(sign_bit | (0xFF << 23) | (mant << 7)),
        _ => f32::from_bits(sign_bit | ((exp + 64) << 23) | (mant << 7)),
    }
}

/// Encode an f32 as float24 the way picasso and libctru's `f32tof24` do: truncate the mantissa
/// to 16 bits (round toward zero), rebias the exponent (`e − 127 + 63`); a rebiased exponent
/// below 0 (f32 zeros, subnormals and anything below 2^-63) gives a signed zero; above 127
/// (including f32 inf and NaN) gives `sign | 0x7F0000` (the infinity pattern). A rebiased
/// exponent of exactly 127 keeps its mantissa, as in those tools, and so does a rebiased
/// exponent of exactly 0: values in `[2^-63, 2^-62)` get exponent field 0 with their normalised
/// mantissa, which [`f24_to_f32`] reads back as a denormal (a different value). That is what the
/// tools write, so it is reproduced, not fixed.
///
/// Probes: 1.0 → 0x3F0000, 0.5 → 0x3E0000, −2.0 → 0xC00000, 0.1 → 0x3B9999, 1e-30 → 0,
/// 1e30 → 0x7F0000, −0.0 → 0x800000, NaN → 0x7F0000 (or 0xFF0000 with the sign bit).
pub fn f32_to_f24(x: f32) -> u32 {
    let bits = x.to_bits();
    let sign = (bits >> 31) << 23;
    let exp = ((bits >> 23) & 0xFF) as i32 - 127 + 63;
    let mant = (bits & 0x7F_FFFF) >> 7;
    if exp < 0 {
        sign
    } else if exp > 0x7F {
        sign | 0x7F_0000
    } else {
        sign | ((exp as u32) << 16) | mant
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(x: f32) -> u32 {
        x.to_bits()
    }

    /// Bitwise equality, with any NaN equal to any NaN.
    fn same(a: f32, b: f32) -> bool {
        (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
    }

    macro_rules! assert_same {
        ($got:expr, $want:expr) => {{
            let (got, want): (f32, f32) = ($got, $want);
            assert!(
                same(got, want),
                "{} = {:?} ({:#010x}), want {:?} ({:#010x})",
                stringify!($got),
                got,
                got.to_bits(),
                want,
                want.to_bits()
            );
        }};
    }

    const INF: f32 = f32::INFINITY;
    const NAN: f32 = f32::NAN;

    #[test]
    fn pmul_rules() {
        assert_same!(pmul(0.0, INF), 0.0);
        assert_same!(pmul(INF, 0.0), 0.0);
        assert_same!(pmul(-0.0, INF), 0.0);
        assert_same!(pmul(-INF, 0.0), 0.0);
        assert_same!(pmul(NAN, 0.0), NAN);
        assert_same!(pmul(0.0, NAN), NAN);
        assert_same!(pmul(NAN, INF), NAN);
        assert_same!(pmul(INF, INF), INF);
        assert_same!(pmul(INF, -INF), -INF);
        assert_same!(pmul(1.0, -1.0), -1.0);
        assert_same!(pmul(-1.0, 1.0), -1.0);
        assert_same!(pmul(-1.0, 0.0), -0.0);
        assert_same!(pmul(0.0, -1.0), -0.0);
        assert_same!(pmul(-0.0, -1.0), 0.0);
        assert_same!(pmul(3.0, 0.5), 1.5);
        // Products overflowing to inf and underflowing to subnormals are ordinary IEEE.
        assert_same!(pmul(f32::MAX, 2.0), INF);
        assert_same!(pmul(f32::MIN_POSITIVE, 0.5), f32::from_bits(0x0040_0000));
    }

    #[test]
    fn max_min_tables() {
        // Azahar's test table, plus the ±0 and NaN ordering rules.
        assert_same!(max(1.0, 0.0), 1.0);
        assert_same!(max(0.0, 1.0), 1.0);
        assert_same!(max(0.0, INF), INF);
        assert_same!(max(0.0, NAN), NAN);
        assert_same!(max(NAN, 0.0), 0.0);
        assert_same!(max(-INF, INF), INF);
        assert_same!(max(0.0, -INF), 0.0); // deliberate: hardware gives -inf
        assert_same!(max(0.0, -0.0), -0.0);
        assert_same!(max(-0.0, 0.0), 0.0);
        assert_same!(min(1.0, 0.0), 0.0);
        assert_same!(min(0.0, 1.0), 0.0);
        assert_same!(min(0.0, INF), 0.0);
        assert_same!(min(0.0, -INF), -INF);
        assert_same!(min(0.0, NAN), NAN);
        assert_same!(min(NAN, 0.0), 0.0);
        assert_same!(min(-INF, INF), -INF);
        assert_same!(min(0.0, -0.0), -0.0);
        assert_same!(min(-0.0, 0.0), 0.0);
    }

    #[test]
    fn rcp_rsq_specials() {
        assert_same!(rcp(0.0), INF);
        assert_same!(rcp(-0.0), -INF); // deliberate: hardware gives +inf
        assert_same!(rcp(INF), 0.0);
        assert_same!(rcp(-INF), -0.0);
        assert_same!(rcp(NAN), NAN);
        for (x, want) in [
            (16.0, 0.0625),
            (2.0, 0.5),
            (1.0, 1.0),
            (0.25, 4.0),
            (-4.0, -0.25),
        ] {
            assert_same!(rcp(x), want);
        }
        assert_same!(rcp(3.0), 1.0 / 3.0);
        assert_same!(rsq(-2.0), NAN);
        assert_same!(rsq(INF), 0.0);
        assert_same!(rsq(-INF), NAN);
        assert_same!(rsq(NAN), NAN);
        assert_same!(rsq(0.0), INF);
        assert_same!(rsq(-0.0), -INF); // deliberate: hardware gives +inf
        for (x, want) in [
            (16.0, 0.25),
            (4.0, 0.5),
            (1.0, 1.0),
            (0.25, 2.0),
            (0.0625, 4.0),
        ] {
            assert_same!(rsq(x), want);
        }
        // Two roundings, not a correctly rounded rsqrt: 1/sqrt(2) via sqrt first.
        assert_same!(rsq(2.0), 1.0 / std::f32::consts::SQRT_2);
    }

    #[test]
    fn flr_cases() {
        assert_same!(flr(0.5), 0.0);
        assert_same!(flr(-0.5), -1.0);
        assert_same!(flr(1.5), 1.0);
        assert_same!(flr(-1.5), -2.0);
        assert_same!(flr(-0.0), -0.0);
        assert_same!(flr(2.0), 2.0);
        assert_same!(flr(NAN), NAN);
        assert_same!(flr(INF), INF);
        assert_same!(flr(-INF), -INF);
        assert_same!(flr(f32::from_bits(1)), 0.0);
        assert_same!(flr(-f32::from_bits(1)), -1.0);
    }

    #[test]
    fn ex2_specials_and_exact_points() {
        assert_same!(ex2(NAN), NAN);
        assert_same!(ex2(-NAN), NAN);
        assert_same!(ex2(-INF), 0.0);
        assert_same!(ex2(INF), INF);
        assert_same!(ex2(0.0), 1.0);
        assert_same!(ex2(-0.0), 1.0);
        assert_same!(ex2(2.0), 4.0);
        assert_same!(ex2(6.0), 64.0);
        assert_same!(ex2(-1.0), 0.5);
        assert_same!(ex2(0.5), std::f32::consts::SQRT_2);
        assert_same!(ex2(127.0), f32::from_bits(0x7F00_0000));
        assert_same!(ex2(128.0), INF);
        assert_same!(ex2(800.0), INF);
        assert_same!(ex2(1e30), INF);
        assert_same!(ex2(-126.0), f32::MIN_POSITIVE);
        assert_same!(ex2(-149.0), f32::from_bits(1));
        assert_same!(ex2(-148.0), f32::from_bits(2));
        // 2^-150 is the tie between 0 and 2^-149: round to even gives +0.
        assert_same!(ex2(-150.0), 0.0);
        assert_same!(ex2(-149.5), f32::from_bits(1));
        assert_same!(ex2(-800.0), 0.0);
        // Largest f32 below 128: 2^x is finite, 88 ulps below f32::MAX.
        let below128 = f32::from_bits(bits(128.0) - 1);
        let y = ex2(below128);
        assert!(y.is_finite() && y < f32::MAX, "{y}");
        // Azahar's test point: ex2(79.7262742773) ≈ 1e24.
        let y = ex2(79.726_27);
        assert!((y / 1e24 - 1.0).abs() < 1e-5, "{y}");
    }

    #[test]
    fn lg2_specials_and_exact_points() {
        assert_same!(lg2(NAN), NAN);
        assert_same!(lg2(-1.0), NAN);
        assert_same!(lg2(-INF), NAN);
        assert_same!(lg2(-f32::from_bits(1)), NAN);
        assert_same!(lg2(0.0), -INF);
        assert_same!(lg2(-0.0), -INF);
        assert_same!(lg2(INF), INF);
        assert_same!(lg2(1.0), 0.0);
        assert_same!(lg2(4.0), 2.0);
        assert_same!(lg2(64.0), 6.0);
        assert_same!(lg2(0.5), -1.0);
        assert_same!(lg2(f32::from_bits(1)), -149.0);
        assert_same!(lg2(f32::MIN_POSITIVE), -126.0);
        assert_same!(lg2(f32::from_bits(0x7F00_0000)), 127.0);
        // log2(f32::MAX) = 128 - 2^-24/ln2·…, rounds to 128.
        assert_same!(lg2(f32::MAX), 128.0);
        let y = lg2(1e24);
        assert!((y - 79.726_27).abs() < 1e-4, "{y}");
    }

    #[test]
    fn ex2_lg2_match_correct_rounding_at_sample_points() {
        // Away from hard-to-round cases the result is the correctly rounded value.
        for x in [0.1f32, 0.3, -0.25, 2.3, 10.5, -77.7, 100.125] {
            assert_same!(ex2(x), (f64::from(x)).exp2() as f32);
        }
        for x in [
            0.1f32,
            0.3,
            3.0,
            10.0,
            1e-20,
            7.5e37,
            0.999_999_9,
            1.000_000_1,
        ] {
            assert_same!(lg2(x), (f64::from(x)).log2() as f32);
        }
    }

    #[test]
    fn litp_rules() {
        assert_same!(litp_pos(2.5), 2.5);
        assert_same!(litp_pos(-2.5), 0.0);
        assert_same!(litp_pos(-0.0), 0.0);
        assert_same!(litp_pos(NAN), 0.0);
        assert_same!(litp_pos(INF), INF);
        assert_same!(litp_clamp(200.0), LITP_BOUND);
        assert_same!(litp_clamp(-200.0), -LITP_BOUND);
        assert_same!(litp_clamp(127.5), 127.5);
        assert_same!(litp_clamp(-INF), -LITP_BOUND);
        assert_same!(litp_clamp(5.0), 5.0);
        assert_same!(litp_clamp(-0.0), -0.0);
        assert_same!(litp_clamp(NAN), NAN);
        assert_eq!(LITP_BOUND, 0x7FFF as f32 / 256.0);
    }

    #[test]
    fn mova_trunc_rules() {
        assert_eq!(mova_trunc(1.9), 1);
        assert_eq!(mova_trunc(-1.9), -1);
        assert_eq!(mova_trunc(-0.5), 0);
        assert_eq!(mova_trunc(127.99), 127);
        assert_eq!(mova_trunc(NAN), 0);
        assert_eq!(mova_trunc(INF), i32::MAX);
        assert_eq!(mova_trunc(-INF), i32::MIN);
        assert_eq!(mova_trunc(3e9), i32::MAX);
        assert_eq!(mova_trunc(-3e9), i32::MIN);
        assert_eq!(mova_trunc(-2_147_483_648.0), i32::MIN);
    }

    #[test]
    fn f24_decode_reference_points() {
        let cases: [(u32, u32); 12] = [
            (0x3F_0000, 0x3F80_0000), // 1.0
            (0xBF_0000, 0xBF80_0000), // -1.0
            (0x3E_0000, 0x3F00_0000), // 0.5
            (0x3D_0000, 0x3E80_0000), // 0.25
            (0x40_8000, 0x4040_0000), // 3.0
            (0x01_0000, 0x2080_0000), // min normal 2^-62
            (0x7E_FFFF, 0x5F7F_FF80), // max
            (0x80_0000, 0x8000_0000), // -0.0
            (0x7F_0000, 0x7F80_0000), // +inf
            (0xFF_0000, 0xFF80_0000), // -inf
            (0x00_0001, 0x1880_0000), // least denormal 2^-78
            (0x00_FFFF, 0x207F_FF00), // largest denormal
        ];
        for (raw, want) in cases {
            let got = f24_to_f32(raw);
            assert_eq!(got.to_bits(), want, "f24 {raw:#08x} -> {got:?}");
        }
        assert_eq!(f24_to_f32(0).to_bits(), 0);
        assert_eq!(f24_to_f32(0x80_0001).to_bits(), 0x9880_0000);
        // NaN payload m << 7.
        assert_eq!(f24_to_f32(0x7F_8000).to_bits(), 0x7FC0_0000);
        assert_eq!(f24_to_f32(0x7F_0001).to_bits(), 0x7F80_0080);
        assert!(f24_to_f32(0xFF_0001).is_nan());
        // Bits above 23 are ignored.
        assert_eq!(f24_to_f32(0xAB3F_0000).to_bits(), 0x3F80_0000);
    }

    #[test]
    fn f32_to_f24_probes() {
        assert_eq!(f32_to_f24(1.0), 0x3F_0000);
        assert_eq!(f32_to_f24(0.5), 0x3E_0000);
        assert_eq!(f32_to_f24(-2.0), 0xC0_0000);
        assert_eq!(f32_to_f24(0.1), 0x3B_9999);
        assert_eq!(f32_to_f24(1e-30), 0);
        assert_eq!(f32_to_f24(-1e-30), 0x80_0000);
        assert_eq!(f32_to_f24(1e30), 0x7F_0000);
        assert_eq!(f32_to_f24(-1e30), 0xFF_0000);
        assert_eq!(f32_to_f24(-0.0), 0x80_0000);
        assert_eq!(f32_to_f24(0.0), 0);
        assert_eq!(f32_to_f24(INF), 0x7F_0000);
        assert_eq!(f32_to_f24(-INF), 0xFF_0000);
        assert_eq!(f32_to_f24(NAN), 0x7F_0000);
        assert_eq!(f32_to_f24(-NAN), 0xFF_0000);
        assert_eq!(f32_to_f24(f32::from_bits(1)), 0);
        // Rebiased exponent exactly 127 keeps its mantissa (2^64 · 1.5 → NaN pattern).
        assert_eq!(f32_to_f24(1.5 * 2f32.powi(64)), 0x7F_8000);
    }

    #[test]
    fn f24_round_trip() {
        // Every float24 that is not NaN or a denormal decodes and re-encodes to itself.
        // Denormals below 2^-63 (m < 0x8000) encode as signed zero; those in [2^-63, 2^-62)
        // get the rebiased exponent 0 with their normalised mantissa, as the tools do.
        for raw in 0..(1u32 << 24) {
            let x = f24_to_f32(raw);
            let exp = (raw >> 16) & 0x7F;
            let mant = raw & 0xFFFF;
            let back = f32_to_f24(x);
            if exp == 127 && mant != 0 {
                assert!(x.is_nan());
            } else if exp == 0 && mant < 0x8000 {
                assert_eq!(back, raw & 0x80_0000, "{raw:#08x}");
            } else if exp == 0 {
                assert_eq!(
                    back,
                    (raw & 0x80_0000) | ((mant - 0x8000) << 1),
                    "{raw:#08x}"
                );
            } else {
                assert_eq!(back, raw, "{raw:#08x}");
            }
        }
    }

    #[test]
    fn coefficient_bit_patterns() {
        let ex2: [(f64, u64); 11] = [
            (EX2_C0, 0x3FF0_0000_0000_0000),
            (EX2_C1, 0x3FE6_2E42_FEFA_39EF),
            (EX2_C2, 0x3FCE_BFBD_FF82_C58F),
            (EX2_C3, 0x3FAC_6B08_D704_A0C0),
            (EX2_C4, 0x3F83_B2AB_6FBA_4E77),
            (EX2_C5, 0x3F55_D87F_E78A_6731),
            (EX2_C6, 0x3F24_3091_2F86_C787),
            (EX2_C7, 0x3EEF_FCBF_C588_B0C7),
            (EX2_C8, 0x3EB6_2C02_23A5_C824),
            (EX2_C9, 0x3E7B_5253_D395_E7C4),
            (EX2_C10, 0x3E3E_4CF5_158B_8ECA),
        ];
        for (i, (c, b)) in ex2.iter().enumerate() {
            assert_eq!(c.to_bits(), *b, "EX2_C{i}");
        }
        let lg2: [(f64, u64); 7] = [
            (LG2_C1, 0x4007_1547_652B_82FE),
            (LG2_C3, 0x3FEE_C709_DC3A_03FD),
            (LG2_C5, 0x3FE2_776C_50EF_9BFE),
            (LG2_C7, 0x3FDA_6176_2A7A_DED9),
            (LG2_C9, 0x3FD4_84B1_3D7C_02A9),
            (LG2_C11, 0x3FD0_C9A8_4994_022D),
            (LG2_C13, 0x3FCC_68F5_68D3_1760),
        ];
        for (i, (c, b)) in lg2.iter().enumerate() {
            assert_eq!(c.to_bits(), *b, "LG2_C{}", 2 * i + 1);
        }
        assert_eq!(LG2_SQRT2.to_bits(), 0x3FF6_A09E_667F_3BCD);
        assert_eq!(EX2_SCALE_MAGIC.to_bits(), 0x4338_0000_0000_03FF);
        assert_eq!(LG2_EXP_BIAS.to_bits(), 0x4330_0000_0000_03FF);
        // The coefficients are consistent with f64 arithmetic to within a few ulps.
        let ln2 = std::f64::consts::LN_2;
        assert!((LG2_C1 - 2.0 / ln2).abs() <= 4.0 * f64::EPSILON);
        let mut fact = 1.0;
        let mut pow = 1.0;
        for (k, (c, _)) in ex2.iter().enumerate().skip(1) {
            fact *= k as f64;
            pow *= ln2;
            assert!(((pow / fact) / c - 1.0).abs() < 1e-15, "EX2_C{k}");
        }
    }

    #[test]
    fn ex2_scale_bits_cover_the_range() {
        // 2^N from the magic-constant construction, for every N the clamp allows.
        for n in -151..=129 {
            let s = f64::from_bits((f64::from(n) + EX2_SCALE_MAGIC).to_bits() << 52);
            assert_eq!(s, 2f64.powi(n), "N = {n}");
        }
    }

    #[test]
    fn sampled_ulp_check() {
        // Every 65537th input (65536 samples spread over all exponents and signs); the full
        // 2^32 run is `cargo test --release --test float_exhaustive`.
        let report = check::check_ex2_lg2_stride(0..(1u64 << 32), 65_537);
        assert_eq!(report.checked, 65_536);
        assert_eq!(report.ex2.violations, 0, "{report}");
        assert_eq!(report.lg2.violations, 0, "{report}");
        assert!(report.ex2.max_ulp <= 0.501, "{report}");
        assert!(report.lg2.max_ulp <= 0.501, "{report}");
        assert!(report.passed());
    }
}
