//! Exhaustive (or strided) measurement of [`ex2`] and [`lg2`] against an f64 reference.
//!
//! For each input bit pattern `x`, the reference is `(x as f64).exp2()` / `.log2()` (libm in
//! binary64: its own error, ~2^-52 relative, is about 2^-28 f32 ulps and negligible here). The
//! error of our f32 result is measured in f32 ulps of the reference value by [`ulp_error`];
//! special values are checked exactly. A *violation* is an error above 1 ulp or a special-value
//! mismatch (which counts as an infinite error).
//!
//! The full run over all 2^32 inputs is `cargo test --release --test float_exhaustive`.

use std::fmt;
use std::ops::Range;

use rayon::prelude::*;

use super::{ex2, lg2};

/// `2^128`: the first power of two beyond `f32::MAX`. An f32 infinity is measured as this value,
/// and an exact value at or beyond it must give infinity.
const TWO_POW_128: f64 = 340_282_366_920_938_463_463_374_607_431_768_211_456.0;

/// The size of one f32 ulp at the (exact) value `v`: `2^(floor(log2|v|) − 23)` for
/// `2^-126 ≤ |v| < 2^128`, the subnormal spacing `2^-149` below that (including 0), and `2^104`
/// (the ulp of the top binade) at or beyond `2^128` and for infinities. NaN gives NaN.
pub fn ulp_f32_at(v: f64) -> f64 {
    let a = v.abs();
    if a.is_nan() {
        return f64::NAN;
    }
    let exp = if a < f64::from(f32::MIN_POSITIVE) {
        -126
    } else if a >= TWO_POW_128 {
        127
    } else {
        // Unbiased binary exponent of a normal f64.
        ((a.to_bits() >> 52) as i32) - 1023
    };
    f64::from_bits(((exp - 23 + 1023) as u64) << 52)
}

/// The error of `ours` against the exact value `exact`, in f32 ulps of `exact`, or `None` for a
/// special-value mismatch:
/// - `exact` NaN: `ours` must be NaN (error 0); `ours` NaN otherwise is a mismatch;
/// - `|exact| ≥ 2^128` (including ±inf): `ours` must be the infinity of the same sign;
/// - `exact` ±0: `ours` must be the zero of the same sign;
/// - `ours` a zero of the opposite sign to `exact`: mismatch;
/// - otherwise `|ours − exact| / ulp_f32_at(exact)`, with an infinite `ours` measured as ±2^128.
pub fn ulp_error(ours: f32, exact: f64) -> Option<f64> {
    if exact.is_nan() {
        return ours.is_nan().then_some(0.0);
    }
    if ours.is_nan() {
        return None;
    }
    let same_sign = ours.is_sign_negative() == exact.is_sign_negative();
    if exact.abs() >= TWO_POW_128 {
        return (ours.is_infinite() && same_sign).then_some(0.0);
    }
    if exact == 0.0 {
        return (ours == 0.0 && same_sign).then_some(0.0);
    }
    if ours == 0.0 && !same_sign {
        return None;
    }
    let o = if ours.is_infinite() {
        TWO_POW_128.copysign(f64::from(ours))
    } else {
        f64::from(ours)
    };
    Some((o - exact).abs() / ulp_f32_at(exact))
}

/// Measurement of one function over a set of inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FnStats {
    /// Largest error in f32 ulps (infinite if there was a special-value mismatch).
    pub max_ulp: f64,
    /// The input (f32 bits) where `max_ulp` occurs; the smallest such bits on ties. `None` if no
    /// input was checked.
    pub worst_input: Option<u32>,
    /// Inputs with an error above 1 ulp or a special-value mismatch.
    pub violations: u64,
    /// The smallest input bits with a violation.
    pub first_violation: Option<u32>,
}

impl FnStats {
    /// Nothing measured yet.
    pub const EMPTY: FnStats = FnStats {
        max_ulp: 0.0,
        worst_input: None,
        violations: 0,
        first_violation: None,
    };

    fn record(&mut self, input: u32, err: Option<f64>) {
        let err = err.unwrap_or(f64::INFINITY);
        if err > 1.0 {
            self.violations += 1;
            self.first_violation = Some(self.first_violation.map_or(input, |v| v.min(input)));
        }
        self.take_worst(err, input);
    }

    fn take_worst(&mut self, err: f64, input: u32) {
        let better = match self.worst_input {
            None => true,
            Some(w) => err > self.max_ulp || (err == self.max_ulp && input < w),
        };
        if better {
            self.max_ulp = err;
            self.worst_input = Some(input);
        }
    }

    /// Combine the measurements of two disjoint input sets (order-independent).
    pub fn merge(mut self, other: FnStats) -> FnStats {
        if let Some(w) = other.worst_input {
            self.take_worst(other.max_ulp, w);
        }
        self.violations += other.violations;
        self.first_violation = match (self.first_violation, other.first_violation) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self
    }
}

/// Result of [`check_ex2_lg2`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckReport {
    /// Number of inputs checked (each through both functions).
    pub checked: u64,
    /// EX2 measurement.
    pub ex2: FnStats,
    /// LG2 measurement.
    pub lg2: FnStats,
}

impl CheckReport {
    /// Nothing checked yet.
    pub const EMPTY: CheckReport = CheckReport {
        checked: 0,
        ex2: FnStats::EMPTY,
        lg2: FnStats::EMPTY,
    };

    /// No violation in either function.
    pub fn passed(&self) -> bool {
        self.ex2.violations == 0 && self.lg2.violations == 0
    }

    /// Combine the reports of two disjoint input sets.
    pub fn merge(self, other: CheckReport) -> CheckReport {
        CheckReport {
            checked: self.checked + other.checked,
            ex2: self.ex2.merge(other.ex2),
            lg2: self.lg2.merge(other.lg2),
        }
    }
}

fn fmt_stats(f: &mut fmt::Formatter<'_>, name: &str, s: &FnStats) -> fmt::Result {
    write!(f, "{name}: max {:.6} ulp", s.max_ulp)?;
    if let Some(w) = s.worst_input {
        let x = f32::from_bits(w);
        write!(f, " at x = {x:e} ({w:#010x})")?;
    }
    write!(f, ", {} violations", s.violations)?;
    if let Some(v) = s.first_violation {
        write!(f, " (first at {v:#010x})")?;
    }
    Ok(())
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} inputs checked", self.checked)?;
        fmt_stats(f, "EX2", &self.ex2)?;
        writeln!(f)?;
        fmt_stats(f, "LG2", &self.lg2)
    }
}

/// Check one input through both functions.
fn check_one(report: &mut CheckReport, bits: u32) {
    let x = f32::from_bits(bits);
    let xd = f64::from(x);
    report.checked += 1;
    report.ex2.record(bits, ulp_error(ex2(x), xd.exp2()));
    report.lg2.record(bits, ulp_error(lg2(x), xd.log2()));
}

/// Inputs per parallel work item.
const CHUNK: u64 = 1 << 16;

/// Check [`ex2`] and [`lg2`] on every f32 bit pattern in `range` (clipped to `0..2^32`), in
/// parallel on rayon's pool.
pub fn check_ex2_lg2(range: Range<u64>) -> CheckReport {
    check_ex2_lg2_stride(range, 1)
}

/// Check [`ex2`] and [`lg2`] on the bit patterns `range.start`, `range.start + stride`, … below
/// `range.end` (clipped to `0..2^32`; a `stride` of 0 is treated as 1), in parallel.
pub fn check_ex2_lg2_stride(range: Range<u64>, stride: u64) -> CheckReport {
    let stride = stride.max(1);
    let end = range.end.min(1 << 32);
    let start = range.start;
    if start >= end {
        return CheckReport::EMPTY;
    }
    let count = (end - start).div_ceil(stride);
    let chunks = count.div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut report = CheckReport::EMPTY;
            let first = c * CHUNK;
            let last = (first + CHUNK).min(count);
            for k in first..last {
                // start + k * stride < end ≤ 2^32, so the cast is lossless.
                check_one(&mut report, (start + k * stride) as u32);
            }
            report
        })
        .reduce(|| CheckReport::EMPTY, CheckReport::merge)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_sizes() {
        assert_eq!(ulp_f32_at(1.0), 2f64.powi(-23));
        assert_eq!(ulp_f32_at(1.5), 2f64.powi(-23));
        assert_eq!(ulp_f32_at(-2.0), 2f64.powi(-22));
        assert_eq!(ulp_f32_at(0.999), 2f64.powi(-24));
        assert_eq!(ulp_f32_at(0.0), 2f64.powi(-149));
        assert_eq!(ulp_f32_at(1e-40), 2f64.powi(-149));
        assert_eq!(ulp_f32_at(f64::from(f32::MIN_POSITIVE)), 2f64.powi(-149));
        assert_eq!(ulp_f32_at(f64::from(f32::MAX)), 2f64.powi(104));
        assert_eq!(ulp_f32_at(f64::INFINITY), 2f64.powi(104));
        assert!(ulp_f32_at(f64::NAN).is_nan());
    }

    #[test]
    fn ulp_error_cases() {
        let one_ulp = 2f64.powi(-23);
        assert_eq!(ulp_error(1.0, 1.0), Some(0.0));
        assert_eq!(ulp_error(1.0, 1.0 + one_ulp / 2.0), Some(0.5));
        assert_eq!(ulp_error(1.0, 1.0 + 2.0 * one_ulp), Some(2.0));
        // Specials.
        assert_eq!(ulp_error(f32::NAN, f64::NAN), Some(0.0));
        assert_eq!(ulp_error(0.0, f64::NAN), None);
        assert_eq!(ulp_error(f32::NAN, 1.0), None);
        assert_eq!(ulp_error(f32::INFINITY, f64::INFINITY), Some(0.0));
        assert_eq!(ulp_error(f32::INFINITY, TWO_POW_128 * 1.5), Some(0.0));
        assert_eq!(ulp_error(f32::MAX, TWO_POW_128), None);
        assert_eq!(ulp_error(f32::NEG_INFINITY, f64::INFINITY), None);
        assert_eq!(ulp_error(f32::NEG_INFINITY, f64::NEG_INFINITY), Some(0.0));
        assert_eq!(ulp_error(0.0, 0.0), Some(0.0));
        assert_eq!(ulp_error(-0.0, 0.0), None);
        assert_eq!(ulp_error(f32::from_bits(1), 0.0), None);
        assert_eq!(ulp_error(-0.0, 1e-46), None);
        // Rounding a tiny exact value to zero is measured in subnormal ulps.
        assert_eq!(ulp_error(0.0, 2f64.powi(-150)), Some(0.5));
        // An infinity for a finite exact value counts as 2^128.
        let top = TWO_POW_128 - 2f64.powi(103);
        assert_eq!(ulp_error(f32::INFINITY, top), Some(0.5));
        assert_eq!(ulp_error(f32::MAX, top), Some(0.5));
    }

    #[test]
    fn stats_merge_is_order_independent() {
        let mut a = FnStats::EMPTY;
        a.record(10, Some(0.25));
        a.record(20, Some(3.0));
        let mut b = FnStats::EMPTY;
        b.record(5, Some(3.0));
        b.record(7, None);
        b.record(3, Some(0.1));
        let ab = a.merge(b);
        let ba = b.merge(a);
        assert_eq!(ab, ba);
        assert_eq!(ab.max_ulp, f64::INFINITY);
        assert_eq!(ab.worst_input, Some(7));
        assert_eq!(ab.violations, 3);
        assert_eq!(ab.first_violation, Some(5));
        assert_eq!(FnStats::EMPTY.merge(FnStats::EMPTY), FnStats::EMPTY);
    }

    #[test]
    fn check_counts_and_ranges() {
        assert_eq!(check_ex2_lg2(5..5), CheckReport::EMPTY);
        assert_eq!(check_ex2_lg2((1 << 32)..(1 << 33)).checked, 0);
        let r = check_ex2_lg2(0x3F80_0000..0x3F80_1000);
        assert_eq!(r.checked, 0x1000);
        assert!(r.passed(), "{r}");
        // Strided: start, start + s, ... below end.
        assert_eq!(check_ex2_lg2_stride(0..10, 3).checked, 4);
        assert_eq!(check_ex2_lg2_stride(0..10, 0).checked, 10);
        // Specials are all exact: NaNs, infinities, zeros.
        let specials = [
            0x7F80_0000u64,
            0xFF80_0000,
            0x7FC0_0000,
            0xFFC0_0001,
            0,
            0x8000_0000,
        ];
        for b in specials {
            let r = check_ex2_lg2(b..b + 1);
            assert_eq!(r.ex2.max_ulp, 0.0, "{b:#x}: {r}");
            assert_eq!(r.lg2.max_ulp, 0.0, "{b:#x}: {r}");
        }
    }
}
