//! Native code as text (`picajit dump --asm`), through yaxpeax-arm's A64 decoder; the constant
//! pool after the code is listed as data words.

use std::fmt::Write;

use yaxpeax_arch::{Arch, Decoder, U8Reader};
use yaxpeax_arm::armv8::a64::ARMv8;

use super::Compiled;

/// The text of one instruction word (`.word 0x…` if it does not decode).
///
/// Two forms the backend uses are printed by hand, where yaxpeax-arm 0.5's text is misleading:
/// `add Xd, Xn, Wm, uxtw #s` (shown as `lsl`) and the FPCR system register (shown by encoding).
pub fn decode_word(word: u32) -> String {
    // ADD (extended register), 64-bit, with a 32-bit index register.
    if word & 0xFFE0_0000 == 0x8B20_0000 && (word >> 13) & 7 == 0b010 {
        let (d, n, m, s) = (
            word & 31,
            (word >> 5) & 31,
            (word >> 16) & 31,
            (word >> 10) & 7,
        );
        return format!("add x{d}, x{n}, w{m}, uxtw #{s}");
    }
    let bytes = word.to_le_bytes();
    let mut reader = U8Reader::new(&bytes[..]);
    match <ARMv8 as Arch>::Decoder::default().decode(&mut reader) {
        Ok(inst) => inst.to_string().replace("s3_3_c4_c4_0", "fpcr"),
        Err(_) => format!(".word {word:#010x}"),
    }
}

fn words(code: &[u8]) -> impl Iterator<Item = u32> + '_ {
    code.chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// One line per instruction: offset, word, text; then the constant pool.
pub fn disassemble(compiled: &Compiled) -> String {
    let split = compiled.code_len.min(compiled.code.len());
    let mut out = String::new();
    for (n, word) in words(&compiled.code[..split]).enumerate() {
        let _ = writeln!(out, "{:04X}  {word:08X}  {}", n * 4, decode_word(word));
    }
    let pool = &compiled.code[split..];
    if !pool.is_empty() {
        let _ = writeln!(
            out,
            "; constant pool ({} bytes, including alignment)",
            pool.len()
        );
        for (n, chunk) in pool.chunks(16).enumerate() {
            let ws: Vec<String> = words(chunk).map(|w| format!("{w:08X}")).collect();
            let _ = writeln!(out, "{:04X}  {}", split + n * 16, ws.join(" "));
        }
    }
    out
}

/// Number of instructions before the constant pool (the static size of the kernel).
pub fn instruction_count(compiled: &Compiled) -> usize {
    compiled.code_len.min(compiled.code.len()) / 4
}
