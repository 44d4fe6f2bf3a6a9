//! DVLB/DVLP/DVLE ("SHBIN") read and write: the data model of a shader binary and the
//! operations on it that need no file offsets (loading a [`Program`], applying constants,
//! looking up uniforms).
//!
//! A SHBIN holds one DVLP (the shared code blob and operand-descriptor table) and any number of
//! DVLEs (one per entry point: shader kind, entry range, constants, outputs, uniforms).
//!
//! - [`Shbin::parse`] (`read.rs`) turns bytes into a [`Shbin`], checking every offset and count;
//!   it never panics, and any file it accepts is written back byte for byte by
//!   [`Shbin::to_bytes`] (`write.rs`).
//! - A [`Shbin`] built from scratch (`layout: None`) is written in picasso's canonical layout:
//!   DVLB header, DVLP header, code, descriptors, then each DVLE (header, constants, labels,
//!   outputs, uniforms, symbols, zero padding to 4 bytes).
//! - A parsed file whose placement differs from that canonical layout keeps where its tables
//!   were in an opaque [`Layout`] (`layout.rs`).
//!
//! Seen in a corpus of 13 SHBIN files from public homebrew projects: 12 are in canonical placement,
//! including the three DDews/Snakes files that an older picasso wrote with DVLE version 0 and
//! output mask 0 (plain header fields, so no layout is needed). `aroulin/simple_tri` puts its
//! DVLE header right after the DVLP header, ahead of the code, and the DVLE data after the
//! descriptors, with no final padding; its placement is recorded. Trailing padding is never
//! required when reading: a file cut inside it still parses (and is reproduced as it is).
//!
//! Symbol tables are not stored as such: names live in the [`UniformEntry`] and [`Label`]
//! entries, and the canonical symbol table is those names, uniforms first, each NUL-terminated.

mod error;
mod layout;
mod read;
mod write;

#[cfg(test)]
pub(crate) mod tests;

pub use error::ShbinError;
pub use layout::Layout;

use crate::program::{Program, ShaderKind, Uniforms};

/// A whole shader binary: the shared DVLP and the DVLEs, in file order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Shbin {
    /// The shared code and operand descriptors.
    pub dvlp: Dvlp,
    /// One entry per DVLE, in the order of the DVLB offset table.
    pub dvles: Vec<Dvle>,
    /// Where a parsed file placed its parts, when that differs from picasso's canonical layout;
    /// `None` means canonical (and is what a Shbin built from scratch should hold). The writer
    /// uses a recorded layout only while it still fits the contents (same code, descriptor and
    /// table counts, same names); otherwise it writes the canonical layout.
    pub layout: Option<Layout>,
}

/// The DVLP: code blob and operand-descriptor table shared by all DVLEs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dvlp {
    /// Header word at +0x04 (picasso writes 0).
    pub version: u32,
    /// The code blob, in 32-bit words, loaded at address 0.
    pub code: Vec<u32>,
    /// The operand-descriptor table, loaded at index 0.
    pub descs: Vec<OpDescEntry>,
    /// Header words at +0x1C, +0x20, +0x24 (picasso writes 0).
    pub reserved: [u32; 3],
}

/// One 8-byte operand-descriptor table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct OpDescEntry {
    /// The descriptor word loaded into descriptor memory.
    pub word: u32,
    /// The second word of the entry (picasso writes 0; not loaded).
    pub extra: u32,
}

/// One DVLE: an entry point into the DVLP code and its tables.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dvle {
    /// Header half-word at +0x04: 0x1002 for picasso ≥ 2.5, 0 for older picasso.
    pub version: u16,
    /// Byte +0x06: 0 vertex, 1 geometry.
    pub kind: ShaderKind,
    /// Byte +0x07: merge output maps (a geometry shader with a `dummy` output).
    pub merge_outmaps: bool,
    /// First word of the entry procedure, an index into the code blob.
    pub entry_start: u32,
    /// One past the last word of the entry procedure.
    pub entry_end: u32,
    /// Bit n set: input register vn is declared by `.in`.
    pub input_mask: u16,
    /// Bit n set: output register on is used by an output (old picasso wrote 0).
    pub output_mask: u16,
    /// Geometry-shader mode (byte +0x14).
    pub gs_mode: GsMode,
    /// Fixed mode: first float register of the vertex array (byte +0x15).
    pub gs_fixed_start: u8,
    /// Variable mode: number of full vertices (byte +0x16).
    pub gs_variable_num: u8,
    /// Fixed mode: number of vertices (byte +0x17).
    pub gs_fixed_num: u8,
    /// Constant table, in file order.
    pub constants: Vec<Constant>,
    /// Label table, in file order (picasso never writes labels).
    pub labels: Vec<Label>,
    /// Output table, in file order.
    pub outputs: Vec<Output>,
    /// Uniform table, in file order.
    pub uniforms: Vec<UniformEntry>,
}

/// Geometry-shader mode (DVLE byte +0x14). Values without a name are kept as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum GsMode {
    /// 0: `.gsh point` (also the value of every vertex shader).
    #[default]
    Point,
    /// 1: `.gsh variable` (subdivision).
    Variable,
    /// 2: `.gsh fixed` (particle).
    Fixed,
    /// Any other byte. Construct it only with values above 2, or use [`GsMode::from_code`].
    Unknown(u8),
}

impl GsMode {
    /// The mode a byte stands for.
    pub fn from_code(code: u8) -> GsMode {
        match code {
            0 => GsMode::Point,
            1 => GsMode::Variable,
            2 => GsMode::Fixed,
            other => GsMode::Unknown(other),
        }
    }

    /// The byte written for this mode.
    pub fn code(self) -> u8 {
        match self {
            GsMode::Point => 0,
            GsMode::Variable => 1,
            GsMode::Fixed => 2,
            GsMode::Unknown(code) => code,
        }
    }
}

/// One 20-byte constant-table entry. Registers are indices within their own file
/// (`c5` → 5, `i1` → 1, `b3` → 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Constant {
    /// Type 2: a float uniform preload, four raw float24 words (x, y, z, w). Bits above 24 are
    /// kept as stored and ignored by [`Dvle::apply_constants`].
    Float {
        reg: u16,
        x: u32,
        y: u32,
        z: u32,
        w: u32,
    },
    /// Type 1: an integer uniform preload, bytes x (count), y (start), z (step), w.
    Int { reg: u16, value: [u8; 4] },
    /// Type 0: a bool uniform preload.
    Bool { reg: u16, value: bool },
    /// Any entry the variants above cannot hold exactly: an unknown type code, an int or bool
    /// entry whose unused bytes are not zero, or a bool word other than 0 or 1. Kept as stored
    /// (`data` = the four words at +4) and not applied by [`Dvle::apply_constants`].
    Raw {
        type_code: u16,
        reg: u16,
        data: [u32; 4],
    },
}

impl Constant {
    /// Type code of the float variant.
    pub const TYPE_FLOAT: u16 = 2;
    /// Type code of the int variant.
    pub const TYPE_INT: u16 = 1;
    /// Type code of the bool variant.
    pub const TYPE_BOOL: u16 = 0;

    /// Decodes a 20-byte entry given as its type code, register and the four data words.
    pub fn from_raw(type_code: u16, reg: u16, data: [u32; 4]) -> Constant {
        let [d0, d1, d2, d3] = data;
        let rest_zero = d1 == 0 && d2 == 0 && d3 == 0;
        match type_code {
            Self::TYPE_FLOAT => Constant::Float {
                reg,
                x: d0,
                y: d1,
                z: d2,
                w: d3,
            },
            Self::TYPE_INT if rest_zero => Constant::Int {
                reg,
                value: d0.to_le_bytes(),
            },
            Self::TYPE_BOOL if rest_zero && d0 <= 1 => Constant::Bool {
                reg,
                value: d0 == 1,
            },
            _ => Constant::Raw {
                type_code,
                reg,
                data,
            },
        }
    }

    /// The entry as its type code, register and four data words (the inverse of
    /// [`Constant::from_raw`]).
    pub fn to_raw(&self) -> (u16, u16, [u32; 4]) {
        match *self {
            Constant::Float { reg, x, y, z, w } => (Self::TYPE_FLOAT, reg, [x, y, z, w]),
            Constant::Int { reg, value } => {
                (Self::TYPE_INT, reg, [u32::from_le_bytes(value), 0, 0, 0])
            }
            Constant::Bool { reg, value } => (Self::TYPE_BOOL, reg, [u32::from(value), 0, 0, 0]),
            Constant::Raw {
                type_code,
                reg,
                data,
            } => (type_code, reg, data),
        }
    }

    /// A float constant's value converted to f32 (x, y, z, w); `None` for other entries.
    pub fn float_value(&self) -> Option<[f32; 4]> {
        match *self {
            Constant::Float { x, y, z, w, .. } => Some([x, y, z, w].map(crate::float::f24_to_f32)),
            Constant::Int { .. } | Constant::Bool { .. } | Constant::Raw { .. } => None,
        }
    }
}

/// One 16-byte label-table entry (picasso never writes labels; layout per the 3dbrew notes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// Byte +0: label id.
    pub id: u8,
    /// Bytes +1..+4, meaning unknown, kept as stored.
    pub unknown_1: [u8; 3],
    /// Word +4: location in the code blob, in words.
    pub location: u32,
    /// Word +8, meaning unknown, kept as stored.
    pub unknown_8: u32,
    /// The name (from the symbol-table offset at +0xC).
    pub name: String,
}

/// One 8-byte output-table entry: which semantic an output register carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Output {
    /// The semantic (16-bit code at +0).
    pub semantic: OutputSemantic,
    /// The `o` register number (16 bits at +2).
    pub reg: u16,
    /// Component mask, bit 0 = x … bit 3 = w (32 bits at +4, kept whole).
    pub mask: u32,
}

/// Output semantic codes (the `type` of picasso's `.out`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputSemantic {
    /// 0: `position`.
    Position,
    /// 1: `normalquat`.
    NormalQuat,
    /// 2: `color`.
    Color,
    /// 3: `texcoord0`.
    TexCoord0,
    /// 4: `texcoord0w`.
    TexCoord0W,
    /// 5: `texcoord1`.
    TexCoord1,
    /// 6: `texcoord2`.
    TexCoord2,
    /// 8: `view`.
    View,
    /// 9: `dummy`.
    Dummy,
    /// Any other code (7, 10, …). Construct it only with such codes, or use
    /// [`OutputSemantic::from_code`].
    Unknown(u16),
}

impl OutputSemantic {
    /// The semantic a code stands for.
    pub fn from_code(code: u16) -> OutputSemantic {
        match code {
            0 => OutputSemantic::Position,
            1 => OutputSemantic::NormalQuat,
            2 => OutputSemantic::Color,
            3 => OutputSemantic::TexCoord0,
            4 => OutputSemantic::TexCoord0W,
            5 => OutputSemantic::TexCoord1,
            6 => OutputSemantic::TexCoord2,
            8 => OutputSemantic::View,
            9 => OutputSemantic::Dummy,
            other => OutputSemantic::Unknown(other),
        }
    }

    /// The code written for this semantic.
    pub fn code(self) -> u16 {
        match self {
            OutputSemantic::Position => 0,
            OutputSemantic::NormalQuat => 1,
            OutputSemantic::Color => 2,
            OutputSemantic::TexCoord0 => 3,
            OutputSemantic::TexCoord0W => 4,
            OutputSemantic::TexCoord1 => 5,
            OutputSemantic::TexCoord2 => 6,
            OutputSemantic::View => 8,
            OutputSemantic::Dummy => 9,
            OutputSemantic::Unknown(code) => code,
        }
    }

    /// The picasso name (`.out` syntax), or `None` for unknown codes.
    pub fn name(self) -> Option<&'static str> {
        match self {
            OutputSemantic::Position => Some("position"),
            OutputSemantic::NormalQuat => Some("normalquat"),
            OutputSemantic::Color => Some("color"),
            OutputSemantic::TexCoord0 => Some("texcoord0"),
            OutputSemantic::TexCoord0W => Some("texcoord0w"),
            OutputSemantic::TexCoord1 => Some("texcoord1"),
            OutputSemantic::TexCoord2 => Some("texcoord2"),
            OutputSemantic::View => Some("view"),
            OutputSemantic::Dummy => Some("dummy"),
            OutputSemantic::Unknown(_) => None,
        }
    }
}

/// One 8-byte uniform-table entry: a named register range in the unified numbering
/// (v0..v15 → 0x00..0x0F, c0..c95 → 0x10..0x6F, i0..i3 → 0x70..0x73, b0..b15 → 0x78..0x87).
///
/// `first` and `last` are *unified* numbers: c0 is 0x10, so `first` is not an index into
/// [`Uniforms::f`]. Look uniforms up with [`Dvle::float_uniform`], [`Dvle::int_uniform`],
/// [`Dvle::bool_uniform`] (indices into the [`Uniforms`] fields) or [`UniformEntry::registers`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UniformEntry {
    /// The name (from the symbol-table offset at +0). Must not contain NUL.
    pub name: String,
    /// First register, unified numbering.
    pub first: u16,
    /// Last register (inclusive), unified numbering.
    pub last: u16,
}

/// The register files of the unified uniform numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegisterFile {
    /// Input registers v0..v15 (unified 0x00..0x0F).
    Input,
    /// Float uniforms c0..c95 (unified 0x10..0x6F).
    Float,
    /// Integer uniforms i0..i3 (unified 0x70..0x73).
    Int,
    /// Bool uniforms b0..b15 (unified 0x78..0x87).
    Bool,
}

impl RegisterFile {
    /// Unified number of register 0 of this file.
    pub fn base(self) -> u16 {
        match self {
            RegisterFile::Input => 0x00,
            RegisterFile::Float => 0x10,
            RegisterFile::Int => 0x70,
            RegisterFile::Bool => 0x78,
        }
    }

    /// Number of registers in this file.
    pub fn size(self) -> u16 {
        match self {
            RegisterFile::Input => 16,
            RegisterFile::Float => 96,
            RegisterFile::Int => 4,
            RegisterFile::Bool => 16,
        }
    }

    /// The picasso register letter (`v`, `c`, `i`, `b`).
    pub fn letter(self) -> char {
        match self {
            RegisterFile::Input => 'v',
            RegisterFile::Float => 'c',
            RegisterFile::Int => 'i',
            RegisterFile::Bool => 'b',
        }
    }

    /// The file and index of a unified register number, or `None` in the gaps (0x74..0x77) and
    /// above 0x87.
    pub fn split(unified: u16) -> Option<(RegisterFile, u8)> {
        [
            RegisterFile::Input,
            RegisterFile::Float,
            RegisterFile::Int,
            RegisterFile::Bool,
        ]
        .into_iter()
        .find_map(|file| {
            let index = unified.checked_sub(file.base())?;
            (index < file.size()).then_some((file, index as u8))
        })
    }
}

/// A typed, inclusive register range, e.g. c4..c7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegisterRange {
    /// Which register file.
    pub file: RegisterFile,
    /// First register index within the file.
    pub first: u8,
    /// Last register index within the file (inclusive, ≥ `first`).
    pub last: u8,
}

impl RegisterRange {
    /// The registers' indices within their file: for [`RegisterFile::Float`] indices into
    /// [`Uniforms::f`], for [`RegisterFile::Int`] into [`Uniforms::i`], for
    /// [`RegisterFile::Bool`] bit numbers of [`Uniforms::b`].
    pub fn indices(&self) -> std::ops::Range<usize> {
        usize::from(self.first)..usize::from(self.last) + 1
    }

    /// Number of registers in the range (0 if `last` < `first`).
    pub fn count(&self) -> usize {
        (usize::from(self.last) + 1).saturating_sub(usize::from(self.first))
    }
}

impl std::fmt::Display for RegisterRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let letter = self.file.letter();
        if self.first == self.last {
            write!(f, "{letter}{}", self.first)
        } else {
            write!(f, "{letter}{}..{letter}{}", self.first, self.last)
        }
    }
}

impl UniformEntry {
    /// The typed register range, or `None` when `first`/`last` are outside the unified
    /// numbering, in different files, or reversed.
    pub fn registers(&self) -> Option<RegisterRange> {
        let (file, first) = RegisterFile::split(self.first)?;
        let (last_file, last) = RegisterFile::split(self.last)?;
        (file == last_file && first <= last).then_some(RegisterRange { file, first, last })
    }
}

impl Default for Dvle {
    fn default() -> Self {
        Dvle::new(ShaderKind::Vertex)
    }
}

impl Dvle {
    /// Version half-word written by picasso ≥ 2.5.
    pub const VERSION_PICASSO: u16 = 0x1002;

    /// An empty DVLE of the given kind, with picasso's current version and everything else zero.
    pub fn new(kind: ShaderKind) -> Dvle {
        Dvle {
            version: Self::VERSION_PICASSO,
            kind,
            merge_outmaps: false,
            entry_start: 0,
            entry_end: 0,
            input_mask: 0,
            output_mask: 0,
            gs_mode: GsMode::Point,
            gs_fixed_start: 0,
            gs_variable_num: 0,
            gs_fixed_num: 0,
            constants: Vec::new(),
            labels: Vec::new(),
            outputs: Vec::new(),
            uniforms: Vec::new(),
        }
    }

    /// Loads this DVLE's constant table into `uniforms`: float constants via float24 → f32,
    /// int constants as their four bytes, bool constants as bit `reg`. Entries whose register
    /// is outside its file (c96+, i4+, b16+) and [`Constant::Raw`] entries are skipped.
    pub fn apply_constants(&self, uniforms: &mut Uniforms) {
        for constant in &self.constants {
            match *constant {
                Constant::Float { reg, x, y, z, w } => {
                    if let Some(slot) = uniforms.f.get_mut(usize::from(reg)) {
                        *slot = [x, y, z, w].map(crate::float::f24_to_f32);
                    }
                }
                Constant::Int { reg, value } => {
                    if let Some(slot) = uniforms.i.get_mut(usize::from(reg)) {
                        *slot = value;
                    }
                }
                Constant::Bool { reg, value } => {
                    if reg < 16 {
                        let bit = 1u16 << reg;
                        if value {
                            uniforms.b |= bit;
                        } else {
                            uniforms.b &= !bit;
                        }
                    }
                }
                Constant::Raw { .. } => {}
            }
        }
    }

    /// The first uniform-table entry with this name (raw: unified register numbers).
    pub fn uniform_by_name(&self, name: &str) -> Option<&UniformEntry> {
        self.uniforms.iter().find(|u| u.name == name)
    }

    /// The typed register range of the uniform (or `.in` input) called `name`: `None` when no
    /// entry has that name or its numbers are malformed.
    pub fn uniform(&self, name: &str) -> Option<RegisterRange> {
        self.uniform_by_name(name)?.registers()
    }

    fn uniform_in(&self, name: &str, file: RegisterFile) -> Option<std::ops::Range<usize>> {
        self.uniform(name)
            .filter(|r| r.file == file)
            .map(|r| r.indices())
    }

    /// Indices into [`Uniforms::f`] of the float uniform `name` (`.fvec`), or `None` when there
    /// is none of that name and kind. A matrix uses one register per **row**, x..w holding
    /// columns 0..3 (so `dp4 o0.x, m[0], v0` is row 0 · v0, as picasso's examples write it):
    ///
    /// ```
    /// # let src = ".fvec mvp[4]\n.out pos position\n.proc main\n dp4 pos.x, mvp[0], v0\n end\n.end\n";
    /// # let (shbin, _) = picajit::asm::assemble(&[picajit::asm::Source::new("m.v.pica", src)]).unwrap();
    /// let dvle = shbin.dvle(0)?;
    /// let mut uniforms = picajit::Uniforms::default();
    /// let rows = [[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];
    /// let mvp = dvle.float_uniform("mvp").expect("declared");
    /// uniforms.f[mvp].copy_from_slice(&rows);
    /// # Ok::<(), picajit::shbin::ShbinError>(())
    /// ```
    pub fn float_uniform(&self, name: &str) -> Option<std::ops::Range<usize>> {
        self.uniform_in(name, RegisterFile::Float)
    }

    /// Indices into [`Uniforms::i`] of the integer uniform `name` (`.ivec`).
    pub fn int_uniform(&self, name: &str) -> Option<std::ops::Range<usize>> {
        self.uniform_in(name, RegisterFile::Int)
    }

    /// Bit numbers in [`Uniforms::b`] of the bool uniform `name` (`.bool`); set one with
    /// [`Uniforms::set_bool`].
    pub fn bool_uniform(&self, name: &str) -> Option<std::ops::Range<usize>> {
        self.uniform_in(name, RegisterFile::Bool)
    }

    /// The canonical symbol table: uniform names then label names, each NUL-terminated, without
    /// padding (what the writer emits unless a recorded layout applies).
    pub fn canonical_symbol_table(&self) -> Vec<u8> {
        let mut table = Vec::new();
        let names = self
            .uniforms
            .iter()
            .map(|u| &u.name)
            .chain(self.labels.iter().map(|l| &l.name));
        for name in names {
            table.extend_from_slice(name.as_bytes());
            table.push(0);
        }
        table
    }
}

impl Shbin {
    /// Parses a whole SHBIN file. Every offset, count and name is checked; errors name the field
    /// and its byte offset.
    pub fn parse(bytes: &[u8]) -> Result<Shbin, ShbinError> {
        read::parse(bytes)
    }

    /// Writes the file: byte-identical to the input for a parsed, unmodified Shbin; picasso's
    /// canonical layout for one built from scratch (or whose recorded layout no longer fits).
    pub fn to_bytes(&self) -> Vec<u8> {
        write::to_bytes(self)
    }

    /// Whether [`Shbin::to_bytes`] will write picasso's canonical layout.
    pub fn is_canonical(&self) -> bool {
        self.layout
            .as_ref()
            .map_or(true, |layout| !layout.fits(self))
    }

    /// DVLE `index`, or [`ShbinError::NoSuchDvle`] when the file has fewer (indexing
    /// `dvles` directly panics on a bad index).
    pub fn dvle(&self, index: usize) -> Result<&Dvle, ShbinError> {
        self.dvles.get(index).ok_or(ShbinError::NoSuchDvle {
            index,
            count: self.dvles.len(),
        })
    }

    /// The program of DVLE `dvle`: the DVLP code at address 0, its descriptor words at index 0,
    /// the DVLE's entry start and shader kind.
    pub fn program(&self, dvle: usize) -> Result<Program, ShbinError> {
        let entry = self.dvle(dvle)?;
        let descs: Vec<u32> = self.dvlp.descs.iter().map(|d| d.word).collect();
        Program::from_words(&self.dvlp.code, &descs, entry.entry_start)
            .map(|program| program.with_kind(entry.kind))
            .map_err(|source| ShbinError::Program { dvle, source })
    }
}
