//! Blocks: `.proc`/`.end`, IF blocks (`ifu`/`ifc` … [`.else` …] `.end`) and loops (`for` …
//! `.end`), with picasso's automatic padding NOPs (or, with `-n`, a warning at each spot).
//!
//! Padding rules (picasso's): at `.else`, a NOP goes in if the previous statement closed an
//! inner IF/FOR block, if the THEN part ends with a jump or call, or if it is empty. At `.end`
//! of a procedure, IF or FOR: if the previous statement closed an inner IF/FOR block; otherwise
//! if the last word is a jump or call (or, for a loop, BREAK/BREAKC), or the block is empty
//! (IF/FOR without a body word, a procedure without a word — unless the code blob is still
//! empty). Raw `!` words never count as a jump or call.

use super::emit::{need, no_more};
use super::flow::{patch_dest, patch_num};
use super::operand::Fail;
use super::state::{Asm, Block};
use super::syntax::needs_padding_after;
use super::text::{Args, Piece, Statement};
use crate::isa::{Fmt0, Instruction};

impl Asm {
    /// A padding NOP, or the warning when they are disabled.
    fn pad(&mut self, at: Piece<'_>) {
        if self.opts.auto_nop {
            self.push(Instruction::Nop(Fmt0).encode(), false);
        } else {
            self.warn(at, "a padding NOP is required here");
        }
    }

    fn last_word_needs_padding(&self, closing_loop: bool) -> bool {
        match (self.code.last(), self.raw.last()) {
            (Some(&word), Some(&false)) => {
                needs_padding_after(Instruction::decode(word).opcode(), closing_loop)
            }
            _ => false,
        }
    }

    pub(crate) fn dir_proc(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        let mut args = Args::new(st.rest);
        let name = need(&mut args, &st)?;
        no_more(&mut args)?;
        let block = Block::Proc {
            name: name.s.to_string(),
            pos: self.code.len(),
            site: self.site(name),
        };
        self.open(block, st.head)?;
        if self.procs.contains_key(name.s) {
            return Err(Fail::new(name, format!("proc already exists: {}", name.s)));
        }
        Ok(())
    }

    pub(crate) fn dir_else(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        no_more(&mut Args::new(st.rest))?;
        let pos = match self.stack.last() {
            Some(Block::If {
                else_pos: Some(_), ..
            }) => return Err(Fail::new(st.head, "spurious .else")),
            Some(Block::If { pos, .. }) => *pos,
            Some(Block::Proc { .. } | Block::For { .. } | Block::Array { .. }) | None => {
                return Err(Fail::new(st.head, ".else with unmatched IF"))
            }
        };
        if self.last_was_end {
            self.pad(st.head);
            self.last_was_end = false;
        } else if self.last_word_needs_padding(false) || self.code.len() - pos < 2 {
            self.pad(st.head);
        }
        let here = self.code.len();
        if let Some(Block::If { else_pos, .. }) = self.stack.last_mut() {
            *else_pos = Some(here);
        }
        self.code[pos] = patch_dest(self.code[pos], here as u32);
        Ok(())
    }

    pub(crate) fn dir_end(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        no_more(&mut Args::new(st.rest))?;
        let Some(block) = self.stack.pop() else {
            return Err(Fail::new(st.head, ".end with unmatched block"));
        };
        let shape = match &block {
            Block::Proc { pos, .. } => Some((*pos, false, 1)),
            Block::For { pos, .. } => Some((*pos, true, 2)),
            Block::If { pos, .. } => Some((*pos, false, 2)),
            Block::Array { .. } => None,
        };
        if let Some((pos, is_loop, min_len)) = shape {
            if self.last_was_end {
                self.pad(st.head);
                self.last_was_end = false;
            } else if !self.code.is_empty()
                && (self.last_word_needs_padding(is_loop) || self.code.len() - pos < min_len)
            {
                self.pad(st.head);
            }
        }
        let here = self.code.len();
        match block {
            Block::Proc { name, pos, .. } => {
                self.procs
                    .entry(name)
                    .or_insert((pos as u32, (here - pos) as u32));
            }
            Block::For { pos, .. } => {
                self.code[pos] = patch_dest(self.code[pos], here as u32 - 1);
                self.last_was_end = true;
            }
            Block::If { pos, else_pos, .. } => {
                self.code[pos] = match else_pos {
                    None => patch_dest(self.code[pos], here as u32),
                    Some(e) => patch_num(self.code[pos], (here - e) as u32),
                };
                self.last_was_end = true;
            }
            Block::Array {
                name, size, elems, ..
            } => self.end_array(name, size, elems, st.head)?,
        }
        Ok(())
    }
}
