//! Numeric literals. picasso reads numbers in three different ways (C base-0 integers for
//! register numbers and counts, `atoi` for constants and sizes, `atof` for floats) and turns
//! malformed text into 0, or reads a prefix, without a word. Well-formed literals are read
//! here; [`c_base0_split`], [`atoi`] and [`atof`] say what picasso reads from any other text,
//! so that the assembler can write picasso's bytes with a warning (or refuse, `--strict`).

/// A plain decimal integer with an optional sign (`12`, `-3`, `+7`).
pub(crate) fn decimal(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// An unsigned integer literal of the extensions: decimal, or hex with `0x`.
pub(crate) fn unsigned(s: &str) -> Option<u64> {
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        return u64::from_str_radix(hex, 16).ok();
    }
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// What C's `strtoll(s, _, 0)` reads from the start of `s` (no sign handling needed here):
/// the value of the longest prefix in base 16 (`0x`), 8 (leading `0`) or 10.
pub(crate) fn c_base0_prefix(s: &str) -> Option<u64> {
    c_base0_split(s).map(|(v, _)| v)
}

/// [`c_base0_prefix`] and the number of bytes it reads.
pub(crate) fn c_base0_split(s: &str) -> Option<(u64, usize)> {
    let b = s.as_bytes();
    let (radix, digits) =
        if b.len() > 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' && b[2].is_ascii_hexdigit() {
            (16, &s[2..])
        } else if b.first() == Some(&b'0') {
            (8, s)
        } else {
            (10, s)
        };
    let len = digits.chars().take_while(|c| c.is_digit(radix)).count();
    if len == 0 {
        return None;
    }
    let value = u64::from_str_radix(&digits[..len], radix).ok()?;
    Some((value, len + (s.len() - digits.len())))
}

/// What C's `atoi` reads from `s`: leading blanks, an optional sign, decimal digits; 0 when
/// there are none. (Values beyond 32 bits are cut to 32, as glibc's `(int) strtol` does.)
pub(crate) fn atoi(s: &str) -> i32 {
    let t = s.trim_start();
    let (negative, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let value = body
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |v, d| {
            v.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
    (if negative { -value } else { value }) as i32
}

/// What C's `atof` (then a conversion to `float`) reads from `s`: the longest prefix that is a
/// float literal after leading blanks; 0.0 when there is none.
pub(crate) fn atof(s: &str) -> f32 {
    let t = s.trim_start();
    let b = t.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize, hex: bool| {
        let start = *i;
        while b.get(*i).is_some_and(|c| {
            if hex {
                c.is_ascii_hexdigit()
            } else {
                c.is_ascii_digit()
            }
        }) {
            *i += 1;
        }
        *i - start
    };
    let hex = b.len() > i + 2 && b[i] == b'0' && (b[i + 1] | 0x20) == b'x';
    if hex {
        i += 2;
    }
    let mut n = digits(&mut i, hex);
    if b.get(i) == Some(&b'.') {
        let dot = i;
        i += 1;
        let frac = digits(&mut i, hex);
        if n + frac == 0 {
            i = dot;
        }
        n += frac;
    }
    if n == 0 {
        let lower = t.to_ascii_lowercase();
        let rest = lower.trim_start_matches(['+', '-']);
        let sign = if lower.starts_with('-') { -1.0 } else { 1.0 };
        return if rest.starts_with("inf") {
            sign * f32::INFINITY
        } else if rest.starts_with("nan") {
            f32::NAN
        } else {
            0.0
        };
    }
    let exp = if hex { b'p' } else { b'e' };
    if b.get(i).is_some_and(|c| c | 0x20 == exp) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if digits(&mut j, false) > 0 {
            i = j;
        }
    }
    float(&t[..i]).unwrap_or(0.0)
}

/// A number read the way picasso reads register numbers and counts (C base 0: `0x` hex,
/// leading `0` octal), accepted only when the whole text is the number and a decimal-looking
/// text means its decimal value. `Err(Some(v))`: picasso would read `v` (from a prefix, or
/// as octal); `Err(None)`: not a number.
pub(crate) fn unambiguous_count(s: &str) -> Result<u64, Option<u64>> {
    let picasso = c_base0_prefix(s);
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return picasso.ok_or(None);
        }
        return Err(picasso);
    }
    match unsigned_decimal(s) {
        Some(v) if picasso == Some(v) => Ok(v),
        Some(_) | None => Err(picasso),
    }
}

fn unsigned_decimal(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A float literal as it appears in a constant: C decimal or hexadecimal floating syntax with an
/// optional sign and optional `f` suffix, or `inf`/`infinity`/`nan`. The value is read exactly
/// (decimal: correctly rounded to f64 as `strtod` does; hex: exact, rounded to f64 only if it
/// has more than 53 significant bits) and then narrowed to f32 with round-to-nearest, exactly
/// what picasso's `atof` + assignment to `float` does.
///
/// Hex floats whose exponent makes them f32 infinity or NaN in the SPIR-V convention
/// (`0x1.8p+128`) read as that f32 bit pattern.
pub(crate) fn float(s: &str) -> Option<f32> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let magnitude = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        hex_float(hex)?
    } else {
        let lower = body.to_ascii_lowercase();
        match lower.as_str() {
            "inf" | "infinity" => f32::INFINITY,
            "nan" => f32::NAN,
            _ => decimal_float(body)?,
        }
    };
    Some(if negative { -magnitude } else { magnitude })
}

fn decimal_float(s: &str) -> Option<f32> {
    let s = s.strip_suffix(['f', 'F']).unwrap_or(s);
    let b = s.as_bytes();
    let mut i = 0;
    let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp_digits == 0 {
            return None;
        }
        i += exp_digits;
    }
    if i != b.len() {
        return None;
    }
    let value: f64 = s.parse().ok()?;
    Some(value as f32)
}

/// The digits after `0x`: `h[.h][p±d]` with an optional `f` suffix only after an exponent.
fn hex_float(s: &str) -> Option<f32> {
    let (mantissa, exponent) = match s.find(['p', 'P']) {
        Some(i) => {
            let exp = s[i + 1..].strip_suffix(['f', 'F']).unwrap_or(&s[i + 1..]);
            (&s[..i], Some(exp))
        }
        None => (s, None),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((a, b)) => (a, b),
        None => (mantissa, ""),
    };
    if int_part.len() + frac_part.len() == 0
        || !int_part
            .bytes()
            .chain(frac_part.bytes())
            .all(|c| c.is_ascii_hexdigit())
    {
        return None;
    }
    let exp: i64 = match exponent {
        Some(e) => decimal(e)?,
        None => 0,
    };
    // Accumulate up to 30 significant hex digits exactly; remember whether anything non-zero
    // was dropped after them.
    let mut m: u128 = 0;
    let mut shift: i64 = exp;
    let mut sticky = false;
    let mut significant = 0;
    for (k, c) in int_part.bytes().chain(frac_part.bytes()).enumerate() {
        let d = (c as char).to_digit(16)? as u128;
        let is_frac = k >= int_part.len();
        if significant < 30 {
            m = m * 16 + d;
            if m != 0 {
                significant += 1;
            }
            if is_frac {
                shift -= 4;
            }
        } else {
            sticky |= d != 0;
            if !is_frac {
                shift += 4;
            }
        }
    }
    // SPIR-V convention: 0x1.XXXp+128 is an f32 infinity or NaN bit pattern.
    if exponent.is_some() && m != 0 {
        let top = 127 - m.leading_zeros() as i64;
        if top + shift == 128 && !sticky && top <= 23 {
            let frac = m & ((1u128 << top) - 1);
            let bits = 0x7F80_0000u32 | ((frac << (23 - top)) as u32);
            return Some(f32::from_bits(bits));
        }
    }
    Some(scaled_to_f64(m, sticky, shift) as f32)
}

/// `m · 2^e` (plus a sticky bit below `m`) rounded to the nearest f64, ties to even.
fn scaled_to_f64(m: u128, sticky: bool, e: i64) -> f64 {
    if m == 0 {
        return 0.0;
    }
    let top = 127 - m.leading_zeros() as i64; // bit index of the leading 1
    let value_exp = top + e; // the value is in [2^value_exp, 2^(value_exp+1))
    if value_exp > 1023 {
        return f64::INFINITY;
    }
    // Number of mantissa bits kept: 53 for normals, fewer for subnormals.
    let keep = if value_exp >= -1022 {
        53
    } else {
        53 - (-1022 - value_exp)
    };
    if keep <= 0 {
        // Below half the smallest subnormal, or exactly around it.
        let half = keep == 0 && (m.count_ones() > 1 || sticky);
        return if half { f64::from_bits(1) } else { 0.0 };
    }
    let drop = top + 1 - keep; // low bits of m to drop (may be negative: nothing to drop)
    let (mut kept, round_up) = if drop > 0 {
        let kept = m >> drop;
        let rest = m & ((1u128 << drop) - 1);
        let half = 1u128 << (drop - 1);
        let up = rest > half || (rest == half && (sticky || kept & 1 == 1));
        (kept, up)
    } else {
        (m << (-drop), false)
    };
    if round_up {
        kept += 1;
    }
    // kept has `keep` bits (or keep+1 after a carry); value = kept · 2^(e + drop).
    let scale = e + drop.max(0) - (-drop).max(0);
    let mut exp = scale;
    let mut k = kept;
    if 128 - k.leading_zeros() as i64 > 53 {
        k >>= 1;
        exp += 1;
    }
    // k < 2^53; compute k · 2^exp exactly in f64 steps (both exact while in range).
    let mut v = k as f64;
    let mut rem = exp;
    while rem > 0 {
        let step = rem.min(1000);
        v *= 2f64.powi(step as i32);
        rem -= step;
    }
    while rem < 0 {
        let step = (-rem).min(1000);
        v /= 2f64.powi(step as i32);
        rem += step;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_floats_follow_strtod_then_float() {
        assert_eq!(float("1.0"), Some(1.0));
        assert_eq!(float("-2"), Some(-2.0));
        assert_eq!(float(".5"), Some(0.5));
        assert_eq!(float("5."), Some(5.0));
        assert_eq!(float("1e-3"), Some(1e-3));
        assert_eq!(float("0.1f"), Some(0.1));
        assert_eq!(float("1.2345"), Some(1.2345_f64 as f32));
        assert_eq!(float("-inf"), Some(f32::NEG_INFINITY));
        assert!(float("nan").unwrap().is_nan());
        for bad in ["", "-", "1.0.0", "abc", "1e", "0x", "1,0", "1 0", "ff"] {
            assert_eq!(float(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn hex_floats_are_exact() {
        assert_eq!(float("0x1.8p+1"), Some(3.0));
        assert_eq!(float("0x1p-2"), Some(0.25));
        assert_eq!(float("-0x1.0002p+64").map(f32::to_bits), Some(0xDF80_0100));
        assert_eq!(float("0x10"), Some(16.0));
        assert_eq!(float("0x.8"), Some(0.5));
        assert_eq!(float("0x1.8p+128").map(f32::to_bits), Some(0x7FC0_0000));
        assert_eq!(float("-0x1.0002p+128").map(f32::to_bits), Some(0xFF80_0100));
        assert_eq!(float("0x1p+128").map(f32::to_bits), Some(0x7F80_0000));
        assert_eq!(float("0x1p-149").map(f32::to_bits), Some(1));
        // 0x1.000001p0 has 25 significant bits: f64 keeps them, f32 rounds to even (down).
        assert_eq!(float("0x1.000001p0"), Some(1.0));
        assert_eq!(float("0x1.000003p0").map(f32::to_bits), Some(0x3F80_0002));
        assert_eq!(scaled_to_f64(1, false, -1074), f64::from_bits(1));
        assert_eq!(scaled_to_f64(3, false, -1075), f64::from_bits(2));
        assert_eq!(scaled_to_f64(1, false, 1024), f64::INFINITY);
        assert_eq!(
            float("0x123456789abcdef0123456789p0"),
            Some(0x123456789abcdef0123456789u128 as f64 as f32)
        );
    }

    #[test]
    fn register_counts_refuse_ambiguous_bases() {
        assert_eq!(unambiguous_count("12"), Ok(12));
        assert_eq!(unambiguous_count("07"), Ok(7));
        assert_eq!(unambiguous_count("010"), Err(Some(8)));
        assert_eq!(unambiguous_count("08"), Err(Some(0)));
        assert_eq!(unambiguous_count("0x10"), Ok(16));
        assert_eq!(unambiguous_count("0x1g"), Err(Some(1)));
        assert_eq!(unambiguous_count("1x"), Err(Some(1)));
        assert_eq!(unambiguous_count(""), Err(None));
    }
}
