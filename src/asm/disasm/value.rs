//! Constant values as text that reads back to the same table words: a float24 word becomes the
//! shortest decimal that converts back to it, or else an exact hex float under picasso's rule
//! (`0x1.MMMMp(e-63)` writes exponent field `e` and mantissa `MMMM`), or a raw `!0x…` word when
//! bits above the 24 are set.

use crate::asm::number;
use crate::float::{f24_to_f32, f32_to_f24};

/// A float-constant component (a 32-bit table word holding a float24).
pub(crate) fn float24(word: u32) -> String {
    if word > 0xFF_FFFF {
        return format!("!{word:#010x}");
    }
    let value = f24_to_f32(word);
    if f32_to_f24(value) == word {
        if value.is_infinite() {
            return if value < 0.0 { "-inf" } else { "inf" }.to_string();
        }
        let text = format!("{value:?}");
        if number::float(&text).map(f32_to_f24) == Some(word) {
            return text;
        }
    }
    let sign = if word & 0x80_0000 != 0 { "-" } else { "" };
    let exp = (word >> 16) & 0x7F;
    let mantissa = word & 0xFFFF;
    format!("{sign}0x1.{mantissa:04x}p{:+}", exp as i32 - 63)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn back(text: &str) -> u32 {
        if let Some(raw) = text.strip_prefix('!') {
            return number::unsigned(raw).unwrap() as u32;
        }
        f32_to_f24(number::float(text).unwrap())
    }

    #[test]
    fn every_exponent_and_edge_mantissa_reads_back() {
        for sign in [0, 0x80_0000] {
            for exp in 0..128u32 {
                for m in [0u32, 1, 2, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF, 0x1234] {
                    let w = sign | exp << 16 | m;
                    assert_eq!(back(&float24(w)), w, "{w:#x} -> {}", float24(w));
                }
            }
        }
        let mut rng = fastrand::Rng::with_seed(24);
        for _ in 0..20_000 {
            let w = rng.u32(..);
            let text = float24(w);
            assert_eq!(back(&text), w, "{w:#x} -> {text}");
        }
    }

    #[test]
    fn plain_values_read_plainly() {
        assert_eq!(float24(0x3F_0000), "1.0");
        assert_eq!(float24(0x3E_0000), "0.5");
        assert_eq!(float24(0xC0_0000), "-2.0");
        assert_eq!(float24(0x80_0000), "-0.0");
        assert_eq!(float24(0x7F_0000), "inf");
        assert_eq!(float24(0x7F_8000), "0x1.8000p+64");
        assert_eq!(float24(0x00_0001), "0x1.0001p-63");
        assert_eq!(float24(0x0100_0000), "!0x01000000");
    }
}
