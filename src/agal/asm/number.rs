//! The ActionScript 3 conversions AGALMiniAssembler applies to text: `Number(string)`
//! (ECMAScript 3 `ToNumber` on a string), `uint(…)` (`ToUint32`) and `int(…)` (`ToInt32`).
//! Register numbers go through `uint(digits)`, so `vc4294967296` is `vc0`; the LOD bias of a
//! sampler is `int(Number(word) * 8)`, stored as its low byte.

/// `Number(text)`: a decimal literal (optional sign, digits with an optional fraction and
/// exponent), `Infinity` with an optional sign, or an unsigned `0x` hex integer; anything else
/// is NaN. (Text reaching this function never has surrounding white space.)
pub fn as3_number(text: &str) -> f64 {
    if text.is_empty() {
        return 0.0;
    }
    let (sign, body) = match text.as_bytes()[0] {
        b'+' => (1.0, &text[1..]),
        b'-' => (-1.0, &text[1..]),
        _ => (0.0, text),
    };
    if body == "Infinity" {
        return if sign < 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    if sign == 0.0 {
        if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return f64::NAN;
            }
            // Exact digit by digit up to 2^53, then rounded as the literal's value would be.
            return hex.bytes().fold(0.0f64, |acc, b| {
                acc * 16.0 + f64::from((b as char).to_digit(16).unwrap_or(0))
            });
        }
    }
    if !is_decimal_literal(body) {
        return f64::NAN;
    }
    let value: f64 = body.parse().unwrap_or(f64::NAN);
    if sign < 0.0 {
        -value
    } else {
        value
    }
}

/// `digits [. digits?] | . digits`, then an optional exponent `e[+-]digits`.
fn is_decimal_literal(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let int = digits(&mut i);
    let mut frac = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        frac = digits(&mut i);
    }
    if int == 0 && frac == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// `ToUint32`: NaN and ±Infinity → 0, otherwise the integer part modulo 2^32.
pub fn to_uint32(x: f64) -> u32 {
    if !x.is_finite() {
        return 0;
    }
    let m = x.trunc() % 4_294_967_296.0;
    let m = if m < 0.0 { m + 4_294_967_296.0 } else { m };
    m as u32
}

/// `ToInt32`: as [`to_uint32`], read as two's complement.
pub fn to_int32(x: f64) -> i32 {
    to_uint32(x) as i32
}

/// `uint(digits)` for a run of ASCII digits (any length).
pub fn uint_of_digits(digits: &str) -> u32 {
    to_uint32(digits.parse::<f64>().unwrap_or(f64::INFINITY))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(as3_number("0.5"), 0.5);
        assert_eq!(as3_number("-0.5"), -0.5);
        assert_eq!(as3_number("+2"), 2.0);
        assert_eq!(as3_number(".25"), 0.25);
        assert_eq!(as3_number("3."), 3.0);
        assert_eq!(as3_number("1e2"), 100.0);
        assert_eq!(as3_number("1E-1"), 0.1);
        assert_eq!(as3_number("0x10"), 16.0);
        assert_eq!(as3_number("Infinity"), f64::INFINITY);
        assert_eq!(as3_number("-Infinity"), f64::NEG_INFINITY);
        for bad in [
            "linear", "1.2.3", ".", "+", "1e", "-0x10", "0x", "inf", "nan", "1_0", "e5",
        ] {
            assert!(as3_number(bad).is_nan(), "{bad}");
        }
    }

    #[test]
    fn integer_conversions() {
        assert_eq!(to_uint32(-1.0), u32::MAX);
        assert_eq!(to_uint32(4_294_967_296.0), 0);
        assert_eq!(to_uint32(4_294_967_297.5), 1);
        assert_eq!(to_uint32(f64::NAN), 0);
        assert_eq!(to_uint32(1e300), to_uint32(1e300 % 4_294_967_296.0));
        assert_eq!(to_int32(-4.9), -4);
        assert_eq!(to_int32(f64::INFINITY), 0);
        assert_eq!(uint_of_digits("007"), 7);
        assert_eq!(uint_of_digits("4294967296"), 0);
        assert_eq!(uint_of_digits(&"9".repeat(400)), 0, "Infinity → 0");
    }
}
