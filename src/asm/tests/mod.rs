//! Assembler and disassembler tests.
