//! What one shader invocation needs besides its inputs: the loaded [`Program`] (code memory,
//! operand descriptors, entry point, shader kind) and the [`Uniforms`]; plus the per-vertex
//! [`VertexStatus`]. Shared by the SHBIN reader, case files, the interpreter and the engines.

use thiserror::Error;

/// Words of code memory (`spec/semantics.md` §1).
pub const CODE_WORDS: usize = 4096;
/// Entries of operand-descriptor memory.
pub const DESC_WORDS: usize = 128;
/// Float uniforms c0..c95.
pub const FLOAT_UNIFORMS: usize = 96;

/// One vec4 register's value, components x, y, z, w.
pub type Vec4 = [f32; 4];
/// The 16 input (v0..v15) or output (o0..o15) registers of one vertex.
pub type Regs16 = [Vec4; 16];

/// Vertex or geometry shader: decides whether EMIT/SETEMIT do anything (`spec/semantics.md` §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ShaderKind {
    #[default]
    Vertex,
    Geometry,
}

/// A loaded program: full code and descriptor memories (unloaded words are 0) and the entry.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Program {
    /// Code memory; words past the loaded program are 0.
    pub code: Box<[u32; CODE_WORDS]>,
    /// Operand-descriptor memory; entries past the loaded ones are 0.
    pub descs: [u32; DESC_WORDS],
    /// Entry point, a word address below [`CODE_WORDS`].
    pub entry: u16,
    /// Vertex or geometry shader.
    pub kind: ShaderKind,
}

/// Why raw words could not be loaded as a [`Program`].
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ProgramError {
    #[error("program has {0} code words; code memory holds at most 4096")]
    TooMuchCode(usize),
    #[error("program has {0} operand descriptors; descriptor memory holds at most 128")]
    TooManyDescriptors(usize),
    #[error("entry point {0} is outside code memory (0..4096)")]
    EntryOutOfRange(u32),
}

impl Program {
    /// Loads `code` at address 0 and `descs` at index 0; everything else is zero.
    pub fn from_words(code: &[u32], descs: &[u32], entry: u32) -> Result<Program, ProgramError> {
        if code.len() > CODE_WORDS {
            return Err(ProgramError::TooMuchCode(code.len()));
        }
        if descs.len() > DESC_WORDS {
            return Err(ProgramError::TooManyDescriptors(descs.len()));
        }
        if entry as usize >= CODE_WORDS {
            return Err(ProgramError::EntryOutOfRange(entry));
        }
        let mut program = Program {
            code: Box::new([0; CODE_WORDS]),
            descs: [0; DESC_WORDS],
            entry: entry as u16,
            kind: ShaderKind::Vertex,
        };
        program.code[..code.len()].copy_from_slice(code);
        program.descs[..descs.len()].copy_from_slice(descs);
        Ok(program)
    }

    /// The same program run as the given kind of shader.
    pub fn with_kind(mut self, kind: ShaderKind) -> Program {
        self.kind = kind;
        self
    }
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let used = self.code.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1);
        f.debug_struct("Program")
            .field("entry", &self.entry)
            .field("kind", &self.kind)
            .field("code", &&self.code[..used])
            .finish_non_exhaustive()
    }
}

/// Uniform state shared by every vertex of a batch (`spec/semantics.md` §1).
#[derive(Clone, Debug, PartialEq)]
pub struct Uniforms {
    /// Float uniforms c0..c95 (x, y, z, w).
    pub f: [Vec4; FLOAT_UNIFORMS],
    /// Integer uniforms i0..i3: x = count, y = start, z = step, w unused.
    pub i: [[u8; 4]; 4],
    /// Bool uniforms: bit n = b_n.
    pub b: u16,
}

impl Default for Uniforms {
    fn default() -> Self {
        Uniforms {
            f: [[0.0; 4]; FLOAT_UNIFORMS],
            i: [[0; 4]; 4],
            b: 0,
        }
    }
}

impl Uniforms {
    /// The value of bool uniform `b<id>` (`id` < 16).
    pub fn bool(&self, id: u8) -> bool {
        self.b >> (id & 15) & 1 != 0
    }
}

/// How one vertex's invocation ended (the PCOU status codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u32)]
pub enum VertexStatus {
    /// END, slot 4095, or a pc past the end of code memory.
    #[default]
    Ended = 0,
    /// The step budget of backward transfers ran out (`spec/semantics.md` §6).
    BudgetExhausted = 1,
}
