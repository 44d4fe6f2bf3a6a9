//! Native code as text (`picajit dump --asm`), through iced-x86's NASM formatter; the constant
//! pool after the code is listed as data words.

use std::fmt::Write;

use iced_x86::{Decoder, DecoderOptions, Formatter, NasmFormatter};

use super::Compiled;

/// One line per instruction: offset, bytes, text; then the constant pool.
pub fn disassemble(compiled: &Compiled) -> String {
    let code = &compiled.code[..compiled.code_len.min(compiled.code.len())];
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut fmt = NasmFormatter::new();
    fmt.options_mut().set_first_operand_char_index(10);
    fmt.options_mut().set_rip_relative_addresses(false);
    let mut out = String::new();
    let mut text = String::new();
    for ins in &mut decoder {
        text.clear();
        fmt.format(&ins, &mut text);
        let start = ins.ip() as usize;
        let bytes: String = code[start..start + ins.len()]
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect();
        let _ = writeln!(out, "{start:04X}  {bytes:<24} {text}");
    }
    let pool = &compiled.code[compiled.code_len.min(compiled.code.len())..];
    if !pool.is_empty() {
        let _ = writeln!(
            out,
            "; constant pool ({} bytes, including alignment)",
            pool.len()
        );
        for (n, chunk) in pool.chunks(16).enumerate() {
            let words: Vec<String> = chunk
                .chunks(4)
                .map(|w| {
                    let mut b = [0u8; 4];
                    b[..w.len()].copy_from_slice(w);
                    format!("{:08X}", u32::from_le_bytes(b))
                })
                .collect();
            let _ = writeln!(
                out,
                "{:04X}  {}",
                compiled.code_len + n * 16,
                words.join(" ")
            );
        }
    }
    out
}

/// Number of instructions before the constant pool (the static size of the kernel).
pub fn instruction_count(compiled: &Compiled) -> usize {
    let code = &compiled.code[..compiled.code_len.min(compiled.code.len())];
    Decoder::with_ip(64, code, 0, DecoderOptions::NONE)
        .into_iter()
        .count()
}
