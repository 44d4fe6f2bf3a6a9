//! AGAL arithmetic, each rule stated once. Every engine must reproduce these bit for bit (a NaN
//! result may be any NaN). Ground rules: IEEE binary32, round to nearest even, subnormals kept,
//! no fused multiply-add; the transcendentals are explicit algorithms in f64 with only `+ − × ÷`,
//! `floor`/rounding and bit operations, so SIMD code can perform the same steps — no libm call
//! whose result varies by platform.
//!
//! The "D3D9 flavour": `sqt`, `rsq`, `log` and `pow` work on `|x|`,
//! `nrm` of a zero vector is zero. Flash's Windows backend most likely ran AGAL as Direct3D 9
//! shaders and AwayJS (the Away3D team's port) chose the same; with IEEE rules those inputs
//! give NaN, which no content can have relied on.

use crate::float;

/// `a · b` summed strictly left to right from `+0`, plain IEEE products: `dp3`, `dp4` and the
/// rows of `m33`/`m34`/`m44` (`+0 + p0` turns a `−0` product into `+0`, otherwise exact).
pub fn dot(a: &[f32; 4], b: &[f32; 4], n: usize) -> f32 {
    let mut sum = 0.0f32;
    for i in 0..n {
        sum += a[i] * b[i];
    }
    sum
}

/// `min`: `a < b ? a : b` (a NaN in either gives `b`; equal gives `b`).
pub fn min(a: f32, b: f32) -> f32 {
    float::min(a, b)
}

/// `max`: `a > b ? a : b` (a NaN in either gives `b`; equal gives `b`).
pub fn max(a: f32, b: f32) -> f32 {
    float::max(a, b)
}

/// `rcp`: `1 / x`, one IEEE division (`rcp(±0) = ±inf`).
pub fn rcp(x: f32) -> f32 {
    1.0 / x
}

/// `frc`: `x − floor(x)`, as Adobe's table words it. In `[0, 1]`: a tiny negative `x` gives
/// exactly 1.0 after rounding (`frc(−1e-10) = 1`); `frc(±inf) = NaN`; `frc(−0) = +0`.
pub fn frc(x: f32) -> f32 {
    x - x.floor()
}

/// `sqt`: `sqrt(|x|)`, correctly rounded.
pub fn sqt(x: f32) -> f32 {
    x.abs().sqrt()
}

/// `rsq`: `1 / sqrt(|x|)`, two IEEE operations (`rsq(±0) = +inf`, `rsq(±inf) = +0`).
pub fn rsq(x: f32) -> f32 {
    1.0 / x.abs().sqrt()
}

/// `log`: `log2(|x|)` by the project's LG2 algorithm ([`float::lg2`], < 1 ulp):
/// `log(±0) = −inf`, `log(±inf) = +inf`, NaN stays NaN.
pub fn log(x: f32) -> f32 {
    float::lg2(x.abs())
}

/// `exp`: `2^x` by the project's EX2 algorithm ([`float::ex2`], < 1 ulp).
pub fn exp(x: f32) -> f32 {
    float::ex2(x)
}

/// `pow`: `2^(y · log2|x|)` with the product in f64:
///
/// ```text
/// a = |x|
/// L = a == 0 ? −inf : a == +inf ? +inf : lg2_f64(a)     (NaN a: NaN)
/// Y = f64(y) × L                                        (one f64 multiply)
/// result = ex2_f64(Y)                                   (clamped to [−151, 129] in f64, then
///                                                        EX2's steps 2–8, one rounding to f32)
/// ```
///
/// `L` carries a relative error below `2^-39.2` ([`float::lg2_f64`]); for any result that is
/// not 0 or infinite `|Y| ≤ 150`, so `Y` is off by less than `2^-31.8` absolute and the result
/// by less than `2^-32.3` relative before its rounding: within `0.5 + 2^-8` ulp (< 1 ulp) of
/// `|x|^y` for every finite result. Specials follow from the formula: `pow(x, 0) = 1` for finite
/// `x ≠ 0`; `pow(0, y>0) = 0`; `pow(0, y<0) = +inf`; `pow(0, 0)`, `pow(±inf, 0)` and
/// `pow(1, ±inf)` are NaN (`0 × inf`); `pow(−2, 3) = 8` (the D3D9 `|x|`).
pub fn pow(x: f32, y: f32) -> f32 {
    let a = x.abs();
    let l = if a == 0.0 {
        f64::NEG_INFINITY
    } else if a == f32::INFINITY {
        f64::INFINITY
    } else if a.is_nan() {
        f64::NAN
    } else {
        float::lg2_f64(a)
    };
    float::ex2_f64(f64::from(y) * l)
}

/// `2/π` rounded to f64.
pub const TWO_OVER_PI: f64 = std::f64::consts::FRAC_2_PI;
/// π/2 in three parts, each the next 33 bits of π/2 (the split fdlibm uses): the first two
/// have at most 33 significant bits, so `k · PIO2_1` and `k · PIO2_2` are exact for
/// `|k| < 2^20`; together they carry π/2 to about 2^-100 relative.
pub const PIO2_1: f64 = 1.570_796_326_734_125_6; // bits 0x3FF921FB54400000
/// Second part of π/2.
pub const PIO2_2: f64 = 6.077_100_506_303_966e-11; // bits 0x3DD0B4611A600000
/// Third part of π/2.
pub const PIO2_3: f64 = 2.022_266_248_711_166_5e-21; // bits 0x3BA3198A2E000000
/// Bound of the reduced argument: |R| ≤ π/4 + tiny for |x| < 2^20 · π/2; beyond, where the
/// reduction is no longer exact, R is clamped to ±0.8 so the result stays in [−1, 1].
pub const SINCOS_R_BOUND: f64 = 0.8;
/// `1.5 · 2^52`: adding it to an integer-valued `k` (|k| < 2^51) puts `k mod 2^k` in the low
/// mantissa bits (two's complement).
pub const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// Taylor coefficients of sin: `(−1)^i / (2i+1)!`, i = 1..=7.
pub const SIN_C: [f64; 7] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 1_307_674_368_000.0,
];
/// Taylor coefficients of cos: `(−1)^i / (2i)!`, i = 1..=8.
pub const COS_C: [f64; 8] = [
    -1.0 / 2.0,
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40_320.0,
    -1.0 / 3_628_800.0,
    1.0 / 479_001_600.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 20_922_789_888_000.0,
];

/// Range reduction shared by `sin` and `cos`: `x = k·π/2 + R`, returning `(R, k mod 4)`.
///
/// ```text
/// X = f64(x)
/// k = round_ties_even(X × TWO_OVER_PI)
/// R = ((X − k×PIO2_1) − k×PIO2_2) − k×PIO2_3        (each × and − separately rounded)
/// R = R < −0.8 ? −0.8 : R;  R = R > 0.8 ? 0.8 : R     (NaN-preserving selects)
/// q = bits(k + ROUND_MAGIC) & 3                       (64-bit integer AND)
/// ```
fn reduce(x: f32) -> (f64, u64) {
    let xd = f64::from(x);
    let k = (xd * TWO_OVER_PI).round_ties_even();
    let r = ((xd - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    let r = if r < -SINCOS_R_BOUND {
        -SINCOS_R_BOUND
    } else {
        r
    };
    let r = if r > SINCOS_R_BOUND {
        SINCOS_R_BOUND
    } else {
        r
    };
    let q = (k + ROUND_MAGIC).to_bits() & 3;
    (r, q)
}

/// `sin R` for |R| ≤ 0.8: `R + R·(Z·P(Z))`, `Z = R²`, P by Horner from the highest term
/// (`P = SIN_C[6]; P = P·Z + SIN_C[5]; …; P = P·Z + SIN_C[0]`).
fn sin_poly(r: f64) -> f64 {
    let z = r * r;
    let mut p = SIN_C[6];
    for c in SIN_C[..6].iter().rev() {
        p = p * z + c;
    }
    r + r * (z * p)
}

/// `cos R` for |R| ≤ 0.8: `1 + Z·P(Z)`, P by Horner (`P = COS_C[7]; …; P = P·Z + COS_C[0]`).
fn cos_poly(r: f64) -> f64 {
    let z = r * r;
    let mut p = COS_C[7];
    for c in COS_C[..7].iter().rev() {
        p = p * z + c;
    }
    1.0 + z * p
}

/// `sin x` (radians): reduce, pick the polynomial and sign by the quadrant
/// (q = 0: sin R, 1: cos R, 2: −sin R, 3: −cos R), round once to f32.
///
/// Accuracy: for |x| < 2^20 the reduction is exact to far below an f32 ulp and the Taylor
/// tails are below 2^-55, so the result is within 0.5 + 2^-20 ulp (< 1 ulp) of `sin x`
/// (checked by the tests against f64 references). Beyond 2^20 the result is the sine of an
/// approximately reduced argument, always in [−1, 1]. `sin(±inf) = sin(NaN) = NaN`;
/// `sin(−0) = +0`.
pub fn sin(x: f32) -> f32 {
    let (r, q) = reduce(x);
    let v = if q & 1 == 0 { sin_poly(r) } else { cos_poly(r) };
    let v = if q & 2 == 0 { v } else { -v };
    v as f32
}

/// `cos x` (radians): as [`sin`] with the quadrant advanced by one (q = 0: cos R, 1: −sin R,
/// 2: −cos R, 3: sin R). Same accuracy; `cos(±inf) = cos(NaN) = NaN`.
pub fn cos(x: f32) -> f32 {
    let (r, q) = reduce(x);
    let q = q.wrapping_add(1);
    let v = if q & 1 == 0 { sin_poly(r) } else { cos_poly(r) };
    let v = if q & 2 == 0 { v } else { -v };
    v as f32
}

/// `sat`: `min(max(x, 0), 1)` with the `max`/`min` rules above: `sat(NaN) = +0`,
/// `sat(−0) = +0`.
pub fn sat(x: f32) -> f32 {
    min(max(x, 0.0), 1.0)
}

/// `sgn`: `x > 0 ? 1 : (x < 0 ? −1 : 0)`; `sgn(NaN) = 0`, `sgn(−0) = +0`.
pub fn sgn(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// `abs`: the sign bit cleared (NaN payloads kept).
pub fn abs(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0x7FFF_FFFF)
}

/// `neg`: the sign bit flipped (`neg(0) = −0`).
pub fn neg(x: f32) -> f32 {
    f32::from_bits(x.to_bits() ^ 0x8000_0000)
}

/// `nrm` of `v.xyz`: `d = dot3(v, v)`, `f = d == 0 ? f32::MAX : 1 / sqrt(d)`, `v_i × f` — the
/// D3D9 definition, so a zero vector stays zero (a vector whose squares underflow to 0 is
/// scaled by `f32::MAX`, as there). Three separately rounded steps; NaN propagates.
pub fn nrm(v: &[f32; 4]) -> [f32; 3] {
    let d = dot(v, v, 3);
    let f = if d == 0.0 { f32::MAX } else { 1.0 / d.sqrt() };
    [v[0] * f, v[1] * f, v[2] * f]
}

/// `crs`: `(a.y·b.z − a.z·b.y, a.z·b.x − a.x·b.z, a.x·b.y − a.y·b.x)`, each a product, a
/// product and a subtraction, separately rounded.
pub fn crs(a: &[f32; 4], b: &[f32; 4]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The set-if comparisons: 1.0 when true, 0.0 otherwise (IEEE: every comparison with NaN is
/// false except `!=`, so `sne(NaN, x) = 1`).
pub fn set_if(cond: bool) -> f32 {
    if cond {
        1.0
    } else {
        0.0
    }
}

/// The index of an indirect read: the component truncated toward zero, saturating, NaN → 0
/// ([`float::mova_trunc`], PICA's MOVA rule), plus the offset and the matrix row. Outside
/// `0..count` the read gives (0, 0, 0, 0).
pub fn indirect_index(value: f32, offset: u8, row: u16) -> i64 {
    i64::from(float::mova_trunc(value)) + i64::from(offset) + i64::from(row)
}
