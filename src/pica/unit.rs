//! One shader unit's memories as the data ports fill them: code, operand descriptors, float,
//! int and bool uniforms, and what changed since a consumer last looked ([`Changes`]).

use super::upload::{FloatMode, FloatQueue};
use crate::program::{Program, ShaderKind, Uniforms, Vec4, CODE_WORDS, DESC_WORDS, FLOAT_UNIFORMS};

/// Code words the vertex unit accepts (uploads at offset 512 and beyond are ignored, as in
/// Azahar); the geometry unit accepts all 4096.
pub const VS_CODE_WORDS: usize = 512;

/// What changed in a unit since [`ShaderUnit::take_changes`] was last called: the range of
/// code words whose value changed, whether any descriptor changed, whether any uniform did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// First and last code address whose word changed (inclusive).
    pub code: Option<(u16, u16)>,
    /// Some operand descriptor changed value.
    pub descs: bool,
    /// Some float, int or bool uniform changed value.
    pub uniforms: bool,
}

impl Changes {
    fn code_word(&mut self, addr: u16) {
        self.code = Some(match self.code {
            None => (addr, addr),
            Some((lo, hi)) => (lo.min(addr), hi.max(addr)),
        });
    }
}

/// A shader unit's memories.
#[derive(Clone, Debug)]
pub struct ShaderUnit {
    /// Code and descriptor memories and the unit's kind, kept as the [`Program`] a draw
    /// compiles (its entry point set when the program is asked for), so that a draw borrows
    /// them instead of copying 16 KiB of code memory.
    program: Program,
    uniforms: Uniforms,
    queue: FloatQueue,
    changes: Changes,
    loaded: bool,
}

impl ShaderUnit {
    /// A unit with zeroed memories.
    pub fn new(kind: ShaderKind) -> ShaderUnit {
        ShaderUnit {
            program: Program {
                code: Box::new([0; CODE_WORDS]),
                descs: [0; DESC_WORDS],
                entry: 0,
                kind,
            },
            uniforms: Uniforms::default(),
            queue: FloatQueue::default(),
            changes: Changes::default(),
            loaded: false,
        }
    }

    /// Vertex or geometry unit.
    pub fn kind(&self) -> ShaderKind {
        self.program.kind
    }

    /// Code words this unit accepts.
    pub fn code_capacity(&self) -> usize {
        match self.program.kind {
            ShaderKind::Vertex => VS_CODE_WORDS,
            ShaderKind::Geometry => CODE_WORDS,
        }
    }

    /// Code memory.
    pub fn code(&self) -> &[u32; CODE_WORDS] {
        &self.program.code
    }

    /// Operand-descriptor memory.
    pub fn descs(&self) -> &[u32; DESC_WORDS] {
        &self.program.descs
    }

    /// The uniforms as uploaded.
    pub fn uniforms(&self) -> &Uniforms {
        &self.uniforms
    }

    /// The program with entry point `entry` (a 12-bit word address).
    pub fn program(&self, entry: u16) -> Program {
        Program {
            entry: entry & (CODE_WORDS as u16 - 1),
            ..self.program.clone()
        }
    }

    /// The same program, borrowed: no copy of the code memory.
    pub(crate) fn program_at(&mut self, entry: u16) -> &Program {
        self.program.entry = entry & (CODE_WORDS as u16 - 1);
        &self.program
    }

    /// Stores code word `addr` if this unit accepts it; false if ignored.
    pub(super) fn store_code(&mut self, addr: u32, word: u32) -> bool {
        let capacity = self.code_capacity();
        let Some(slot) = self.program.code[..capacity].get_mut(addr as usize) else {
            return false;
        };
        self.loaded = true;
        if *slot != word {
            *slot = word;
            self.changes.code_word(addr as u16);
        }
        true
    }

    /// Stores descriptor `index` if it is addressable (0–127); false if ignored.
    pub(super) fn store_desc(&mut self, index: u32, word: u32) -> bool {
        let Some(slot) = self.program.descs.get_mut(index as usize) else {
            return false;
        };
        if *slot != word {
            *slot = word;
            self.changes.descs = true;
        }
        true
    }

    /// Pushes a word into the float-uniform queue; a completed vector goes to `index` unless
    /// that is 96 or more (dropped). Returns the index written, if any.
    pub(super) fn push_float(&mut self, word: u32, index: u32, mode: FloatMode) -> Option<usize> {
        let value = self.queue.push(word, mode)?;
        let index = index as usize;
        if index >= FLOAT_UNIFORMS {
            return None;
        }
        self.set_float(index, value);
        Some(index)
    }

    pub(super) fn set_float(&mut self, index: usize, value: Vec4) {
        let Some(slot) = self.uniforms.f.get_mut(index) else {
            return;
        };
        if slot.map(f32::to_bits) != value.map(f32::to_bits) {
            *slot = value;
            self.changes.uniforms = true;
        }
    }

    pub(super) fn set_bools(&mut self, bits: u16) {
        if self.uniforms.b != bits {
            self.uniforms.b = bits;
            self.changes.uniforms = true;
        }
    }

    pub(super) fn set_int(&mut self, i: usize, value: [u8; 4]) {
        if let Some(slot) = self.uniforms.i.get_mut(i) {
            if *slot != value {
                *slot = value;
                self.changes.uniforms = true;
            }
        }
    }

    /// True once any code word has been stored (a draw before that is an error).
    pub fn loaded(&self) -> bool {
        self.loaded
    }

    /// Words waiting in the float-uniform queue.
    pub fn pending_float_words(&self) -> usize {
        self.queue.pending()
    }

    /// What changed since the last call (and forget it).
    pub fn take_changes(&mut self) -> Changes {
        std::mem::take(&mut self.changes)
    }

    /// What changed since [`ShaderUnit::take_changes`] was last called.
    pub fn changes(&self) -> Changes {
        self.changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrowed_program_equals_the_copy() {
        for kind in [ShaderKind::Vertex, ShaderKind::Geometry] {
            let mut unit = ShaderUnit::new(kind);
            for (addr, word) in [(0, 0x4C00_0000), (7, 0x0800_1234), (511, 0x8800_0000)] {
                assert!(unit.store_code(addr, word));
            }
            assert!(unit.store_desc(3, 0x0000_036F));
            // Entry points past code memory wrap to its 12 bits, as the copy's do.
            for entry in [0, 5, 511, 4095, 4096 + 9] {
                let copy = unit.program(entry);
                assert_eq!(*unit.program_at(entry), copy);
                assert_eq!(copy.entry, entry & 0xFFF);
                assert_eq!(copy.code[7], 0x0800_1234);
                assert_eq!(copy.descs[3], 0x0000_036F);
                assert_eq!(copy.kind, kind);
            }
        }
    }
}
