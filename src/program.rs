//! What one shader invocation needs besides its inputs: the loaded [`Program`] (code memory,
//! operand descriptors, entry point, shader kind) and the [`Uniforms`]; plus the per-vertex
//! [`VertexStatus`]. Shared by the SHBIN reader, case files, the interpreter and the engines.

use thiserror::Error;

use crate::isa::{DstKind, Instruction, Opcode};

/// Words of code memory.
pub const CODE_WORDS: usize = 4096;
/// Entries of operand-descriptor memory.
pub const DESC_WORDS: usize = 128;
/// Float uniforms c0..c95.
pub const FLOAT_UNIFORMS: usize = 96;

/// One vec4 register's value, components x, y, z, w.
pub type Vec4 = [f32; 4];
/// The 16 input (v0..v15) or output (o0..o15) registers of one vertex.
pub type Regs16 = [Vec4; 16];

/// Vertex or geometry shader: decides whether EMIT/SETEMIT do anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ShaderKind {
    /// A vertex shader (EMIT and SETEMIT do nothing).
    #[default]
    Vertex,
    /// A geometry shader (EMIT and SETEMIT build triangles).
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
    /// More code words than code memory holds (the count).
    #[error("program has {0} code words; code memory holds at most 4096")]
    TooMuchCode(usize),
    /// More operand descriptors than descriptor memory holds (the count).
    #[error("program has {0} operand descriptors; descriptor memory holds at most 128")]
    TooManyDescriptors(usize),
    /// The entry point is not a code-memory address (the address).
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

    /// The program whose code memory holds `words` (address, word) and is 0 elsewhere, with
    /// descriptors `descs`, entry `entry` (taken below [`CODE_WORDS`]) and kind `kind`: how a
    /// shader gets back the program it keeps only the reachable words of.
    pub(crate) fn from_reachable(
        words: &[(u16, u32)],
        descs: &[u32; DESC_WORDS],
        entry: u16,
        kind: ShaderKind,
    ) -> Program {
        let mut code = Box::new([0; CODE_WORDS]);
        for &(a, w) in words {
            if let Some(slot) = code.get_mut(usize::from(a)) {
                *slot = w;
            }
        }
        Program {
            code,
            descs: *descs,
            entry: entry % CODE_WORDS as u16,
            kind,
        }
    }

    /// The same program run as the given kind of shader.
    pub fn with_kind(mut self, kind: ShaderKind) -> Program {
        self.kind = kind;
        self
    }

    /// The code words the interpreter can execute from the entry, with their addresses, in
    /// address order: what the cache key hashes instead of all 4096 words. They are the
    /// addresses of the frontend's abstract control states ([`crate::frontend::graph`]), which
    /// follow calls, returns, IF/ELSE and loop ends with the interpreter's own stacks, so a
    /// subroutine that ends the program returns to its caller instead of reaching the zero words
    /// after it (those are listed only when some path really runs into them). A program with
    /// more states than the frontend explores ([`crate::frontend::graph::MAX_STATES`]) lists
    /// every word.
    pub fn reachable_words(&self) -> Vec<(u16, u32)> {
        let Some(seen) =
            crate::frontend::graph::reachable(self, crate::frontend::graph::MAX_STATES)
        else {
            return (0..CODE_WORDS).map(|a| (a as u16, self.code[a])).collect();
        };
        let count = seen.iter().map(|b| b.count_ones() as usize).sum();
        let mut words = Vec::with_capacity(count);
        for (i, &row) in seen.iter().enumerate() {
            let mut bits = row;
            while bits != 0 {
                let pc = i * 64 + bits.trailing_zeros() as usize;
                words.push((pc as u16, self.code[pc]));
                bits &= bits - 1;
            }
        }
        words
    }

    /// The output registers the program can write (bit r = o_r): every `o` destination of an
    /// ALU instruction in [`Program::reachable_words`]. Batch runs store exactly these
    /// registers (see [`crate::interp::Interpreter::run`]).
    pub fn outputs_written(&self) -> u16 {
        outputs_written_by(&self.reachable_words())
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

/// Uniform state shared by every vertex of a batch, in the shader's
/// view: `f[n]` is register c*n* as (x, y, z, w). A matrix takes one register per row (row k
/// in `f[n + k]`, columns 0..3 in x..w). Find a DVLE's uniforms by name with
/// [`Dvle::float_uniform`](crate::shbin::Dvle::float_uniform) and its siblings.
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

    /// Sets bool uniform `b<id>` (`id` < 16; higher ids are ignored).
    pub fn set_bool(&mut self, id: usize, value: bool) {
        if id < 16 {
            let bit = 1u16 << id;
            if value {
                self.b |= bit;
            } else {
                self.b &= !bit;
            }
        }
    }
}

/// How one vertex's invocation ended (the PCOU status codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u32)]
pub enum VertexStatus {
    /// END, slot 4095, or a pc past the end of code memory.
    #[default]
    Ended = 0,
    /// The step budget of backward transfers ran out (see [`crate::interp`], “Step budget”).
    BudgetExhausted = 1,
}

/// [`Program::outputs_written`] over already collected reachable words.
pub(crate) fn outputs_written_by(reachable: &[(u16, u32)]) -> u16 {
    let mut regs = 0u16;
    for &(_, word) in reachable {
        let instr = Instruction::decode(word);
        let writes_vector = !matches!(instr.opcode(), Opcode::Cmp | Opcode::Mova);
        if let (Some(alu), true) = (instr.alu(), writes_vector) {
            if let DstKind::Output(n) = alu.dst.kind() {
                regs |= 1 << n;
            }
        }
    }
    regs
}
