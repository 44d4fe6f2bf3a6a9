//! [`ShbinError`]: everything that can be wrong with a SHBIN file or with loading a program
//! from it. Every parse error names the part or field involved and its byte offset in the file.

use thiserror::Error;

use crate::program::ProgramError;

/// Why a SHBIN could not be parsed, or a program not loaded from it.
///
/// `what` strings name the part of the file, e.g. `"DVLE #1 uniform table"`; offsets are
/// absolute byte offsets in the file.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ShbinError {
    /// A part at a fixed place (DVLB header, DVLE offset table, DVLP header) runs past the end.
    #[error("truncated file: {what} at offset {offset:#x} needs {size:#x} bytes, but the file is {len:#x} bytes long")]
    Truncated {
        what: String,
        offset: u64,
        size: u64,
        len: usize,
    },

    /// A part does not start with its four-byte magic.
    #[error("{what} at offset {offset:#x}: bad magic {found:?}, expected {expected:?}")]
    BadMagic {
        what: String,
        offset: usize,
        expected: &'static str,
        found: String,
    },

    /// A part located by an offset (and count) field lies outside the file.
    #[error("{what} spans {start:#x}..{end:#x} (offset/count fields at {field:#x}), past the end of the {len:#x}-byte file")]
    OutOfRange {
        what: String,
        field: usize,
        start: u64,
        end: u64,
        len: usize,
    },

    /// Two parts of the file share bytes.
    #[error("overlapping tables: {first} ({first_start:#x}..{first_end:#x}) overlaps {second} ({second_start:#x}..{second_end:#x})")]
    Overlap {
        first: String,
        first_start: usize,
        first_end: usize,
        second: String,
        second_start: usize,
        second_end: usize,
    },

    /// A name offset points outside its DVLE's symbol table.
    #[error("DVLE #{dvle} {entry}: symbol name offset {name_offset:#x} (field at {field:#x}) is outside the {size:#x}-byte symbol table")]
    SymbolOutOfRange {
        dvle: usize,
        entry: String,
        field: usize,
        name_offset: u32,
        size: u32,
    },

    /// A name runs to the end of the symbol table without a NUL.
    #[error("DVLE #{dvle} {entry}: symbol name at {offset:#x} (name offset {name_offset:#x}, field at {field:#x}) is not NUL-terminated within the symbol table")]
    SymbolUnterminated {
        dvle: usize,
        entry: String,
        field: usize,
        name_offset: u32,
        offset: usize,
    },

    /// A name is not valid UTF-8.
    #[error("DVLE #{dvle} {entry}: symbol name at {offset:#x} (name offset {name_offset:#x}, field at {field:#x}) is not valid UTF-8")]
    SymbolNotUtf8 {
        dvle: usize,
        entry: String,
        field: usize,
        name_offset: u32,
        offset: usize,
    },

    /// The DVLE shader-type byte is neither 0 nor 1.
    #[error("DVLE #{dvle}: shader type byte {value:#04x} at offset {offset:#x} is neither 0 (vertex) nor 1 (geometry)")]
    ShaderType {
        dvle: usize,
        offset: usize,
        value: u8,
    },

    /// The DVLE merge-output-maps byte is neither 0 nor 1.
    #[error("DVLE #{dvle}: merge-output-maps byte {value:#04x} at offset {offset:#x} is neither 0 nor 1")]
    MergeFlag {
        dvle: usize,
        offset: usize,
        value: u8,
    },

    /// [`crate::shbin::Shbin::program`] was asked for a DVLE that does not exist.
    #[error("no DVLE #{index}: the file has {count}")]
    NoSuchDvle { index: usize, count: usize },

    /// The DVLP and DVLE do not fit the machine (too much code, too many descriptors for a
    /// program, entry outside code memory).
    #[error("DVLE #{dvle}: {source}")]
    Program {
        dvle: usize,
        #[source]
        source: ProgramError,
    },
}
