//! What one shader invocation needs besides its inputs: the loaded [`Program`] (code memory,
//! operand descriptors, entry point, shader kind) and the [`Uniforms`]; plus the per-vertex
//! [`VertexStatus`]. Shared by the SHBIN reader, case files, the interpreter and the engines.

use thiserror::Error;

use crate::isa::{DstKind, Fmt2, Fmt3b, Fmt3i, Format, Instruction, Opcode};

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

    /// The code words reachable from the entry (following every branch, call body and
    /// fall-through), with their addresses: what the cache key hashes instead of all 4096 words.
    pub fn reachable_words(&self) -> Vec<(u16, u32)> {
        let mut seen = [0u64; CODE_WORDS / 64];
        let mut todo = Vec::with_capacity(16);
        todo.push(usize::from(self.entry));
        let push = |todo: &mut Vec<usize>, a: usize| {
            if a < CODE_WORDS {
                todo.push(a);
            }
        };
        while let Some(pc) = todo.pop() {
            if seen[pc / 64] >> (pc % 64) & 1 != 0 {
                continue;
            }
            seen[pc / 64] |= 1 << (pc % 64);
            let word = self.code[pc];
            let instr = Instruction::decode(word);
            if pc == CODE_WORDS - 1 || instr.opcode() == Opcode::End {
                continue;
            }
            push(&mut todo, pc + 1);
            let (dest, num) = match instr.opcode().format() {
                Format::Fmt2 => {
                    let f = Fmt2::decode(word);
                    (f.dest, f.num)
                }
                Format::Fmt3b => {
                    let f = Fmt3b::decode(word);
                    (f.dest, f.num)
                }
                Format::Fmt3i => (Fmt3i::decode(word).dest, 0),
                Format::Fmt0
                | Format::Fmt1
                | Format::Fmt1u
                | Format::Fmt1i
                | Format::Fmt1c
                | Format::Fmt4
                | Format::Fmt5
                | Format::Fmt5i
                | Format::Raw => continue,
            };
            // Targets and scope ends: DEST, DEST + NUM (else/return paths), DEST + 1 (loop end).
            for a in [
                usize::from(dest),
                usize::from(dest) + usize::from(num),
                usize::from(dest) + 1,
            ] {
                push(&mut todo, a);
            }
        }
        // In address order: the set bits of `seen`, lowest first (no sort: a path that runs
        // past the program into the zero words after it reaches every word up to the last).
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
