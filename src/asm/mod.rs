//! The assembler and disassembler of picasso's PICA200 shader language.
//!
//! [`assemble`] turns source files into a [`Shbin`] byte-identical to what picasso 2.7.1 writes
//! for every program picasso accepts. Where picasso writes something other than what the text
//! seems to say (sizes and constants read by `atoi`/`atof`, text after a register number or
//! after `]` or `)`, octal register numbers, uppercase register letters, output registers as
//! sources, offsets that leave a register file, empty swizzles and uniform names, `i4`…`i7`,
//! negations and swizzles it drops, unknown `setemit` flags, a NUL byte, …) the result is
//! picasso's bytes with a warning saying so; [`Options::strict`] refuses such text instead.
//! The README lists each case. Diagnostics are `file:line:col: error: message` with the
//! offending text; every error of a file is reported, not only the first.
//!
//! [`disassemble`] writes a SHBIN back as text in the same language that re-assembles to the
//! same code words and operand descriptors for any input.
//!
//! Float constants may be hex floats (`0x1.8p+1`), read exactly as picasso's `atof` reads them
//! with glibc; picasso's float24 rule then applies, under which `0x1.XXXXp-63` …
//! `0x1.XXXXp+64` write every float24 bit pattern (`0x1.8p+64` is the float24 NaN with payload
//! 0x8000).
//!
//! Beyond picasso (spellings picasso refuses, except `!` in a constant and `@N`, which picasso
//! reads as 0 and ignores):
//! - `#` starts a comment, except a cpp line marker (`# 12 "file.pica"`) at the start of a line;
//! - `!0x12345678` is a raw code word wherever an instruction can stand, and a raw 32-bit
//!   component in `.constf`/`.constfa`/`.setf`;
//! - `.opdesc W, …` pins the operand-descriptor table and `@N` after an ALU instruction's
//!   operands picks its entry;
//! - flow-control instructions take an explicit target and count (`call L, 3`,
//!   `ifu b0, L, 2`, `for i0, L`, `jmpc cmp.x, 0x12`), targets may be addresses;
//! - `.entry START END` sets a DVLE's entry range directly;
//! - `.file [name]` starts the next input file inside one text.
//!
//! Modules: `text` (lines, comments, cpp markers, labels, argument splitting), `number`
//! (literals), `operand` (registers, aliases, swizzles), `syntax` (the opcode table's assembler
//! view), `opdesc` (descriptor sharing), `alloc` (uniform and constant pools), `state` (the
//! driver and its state), `emit` (ALU instructions, raw words), `flow` (flow control,
//! conditions, target patches), `blocks` (`.proc`/IF/FOR and padding NOPs), `directive`,
//! `uniform` (uniforms and constants), `io` (`.in`/`.out`), `link` (labels, procedures,
//! entries, the SHBIN), `header` (`-h`), `diag`, `disasm`.

mod alloc;
mod blocks;
mod diag;
mod directive;
mod disasm;
mod emit;
mod flow;
mod header;
mod io;
mod link;
mod number;
mod opdesc;
mod operand;
mod state;
mod syntax;
mod text;
mod uniform;

#[cfg(test)]
mod tests;

pub use diag::{Diagnostic, Severity};
pub use disasm::{disassemble, disassemble_dvle};

use crate::shbin::Shbin;

/// One input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The name used in diagnostics (usually the path).
    pub name: String,
    /// The whole text.
    pub text: String,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        Source {
            name: name.into(),
            text: text.into(),
        }
    }
}

/// Assembler options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Insert padding NOPs where the hardware needs them (picasso's default); when false, warn
    /// at each such spot instead (picasso's `-n`).
    pub auto_nop: bool,
    /// Refuse text that picasso encodes as something other than what it says (`--strict`,
    /// `-Werror`). By default such text assembles to picasso's bytes with a warning.
    pub strict: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            auto_nop: true,
            strict: false,
        }
    }
}

/// A successful assembly.
#[derive(Clone, Debug)]
pub struct Assembly {
    /// The shader binary.
    pub shbin: Shbin,
    /// The C header of uniform locations (picasso's `-h`).
    pub header: String,
    /// Warnings, in the order they were found.
    pub warnings: Vec<Diagnostic>,
}

/// Assembles `sources` in order (one DVLE per file unless it says `.nodvle`): the binary and
/// its warnings, or every diagnostic (errors and warnings, in order).
pub fn assemble(sources: &[Source]) -> Result<(Shbin, Vec<Diagnostic>), Vec<Diagnostic>> {
    assemble_with(sources, &Options::default()).map(|a| (a.shbin, a.warnings))
}

/// [`assemble`] with options, also giving the header.
pub fn assemble_with(sources: &[Source], options: &Options) -> Result<Assembly, Vec<Diagnostic>> {
    let mut asm = state::Asm::new(*options);
    for src in sources {
        asm.source(src);
    }
    let last = sources.last().map_or("<no input>", |s| s.name.as_str());
    asm.finish(last)
}
