//! The disassembler (in progress).

use crate::shbin::Shbin;

/// Text for the whole SHBIN.
pub fn disassemble(_shbin: &Shbin) -> String {
    String::new()
}

/// Text for one DVLE.
pub fn disassemble_dvle(_shbin: &Shbin, _dvle: usize) -> String {
    String::new()
}
