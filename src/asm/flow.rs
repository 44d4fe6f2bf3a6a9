//! Flow-control instructions: calls, jumps, IF and FOR blocks, BREAKC, SETEMIT; their
//! conditions (`cmp.x`, `!cmp.y`, `&&`, `||`); the relocations that give them their targets;
//! and picasso's word-level patches of those targets (reproduced exactly, including a call
//! length above 255 spilling past the 8-bit count field).
//!
//! Extension: every target may be written explicitly with its count (`call L, 3`,
//! `ifu b0, L, 2`, `for i0, L`), and targets may be addresses.

use super::emit::{missing, need, no_more};
use super::number;
use super::operand::{Fail, RegClass, IDENTITY};
use super::state::{Asm, Block, Reloc, RelocKind, TargetRef, MAX_NESTING};
use super::syntax::{self, Fields, Syntax};
use super::text::{is_identifier, Args, Piece, Statement};
use crate::isa::{AddrIdx, CondOp, Fmt2, Fmt3b, Fmt3i, Fmt4, Opcode};

/// The destination field of the flow-control formats, as the isa lays it out.
pub(crate) fn dest_field() -> (u32, u32) {
    let mask = Fmt2 {
        refx: false,
        refy: false,
        condop: CondOp::Or,
        dest: 0xFFF,
        num: 0,
    }
    .encode();
    (mask, mask.trailing_zeros())
}

/// picasso's patch of a destination: the 12-bit field cleared, the value OR-ed in unmasked.
pub(crate) fn patch_dest(word: u32, dest: u32) -> u32 {
    let (mask, shift) = dest_field();
    (word & !mask) | dest.wrapping_shl(shift)
}

/// picasso's patch of a call: bits 0–21 cleared, then `num | dest << 10` OR-ed in unmasked (a
/// procedure longer than 255 words spills its length into bits 8–9 and beyond).
pub(crate) fn patch_call(word: u32, dest: u32, num: u32) -> u32 {
    let (mask, shift) = dest_field();
    let low = mask | ((1 << shift) - 1);
    (word & !low) | num | dest.wrapping_shl(shift)
}

/// picasso's patch of an IF's ELSE length: bits 0–9 cleared, the length OR-ed in.
pub(crate) fn patch_num(word: u32, num: u32) -> u32 {
    let (_, shift) = dest_field();
    (word & !((1 << shift) - 1)) | num
}

/// A condition: `cmp.x`, `cmp.y`, each with any number of `!`, alone or joined by
/// `&&`/`&`/`||`/`|`.
pub(crate) fn condition(p: Piece<'_>) -> Result<(bool, bool, CondOp), Fail> {
    let mut refs = [true, true];
    let term = |t: Piece<'_>, refs: &mut [bool; 2]| -> Result<usize, Fail> {
        let bangs = t.s.len() - t.s.trim_start_matches('!').len();
        let name = t.from(bangs).trim();
        let which = if name.s.eq_ignore_ascii_case("cmp.x") {
            0
        } else if name.s.eq_ignore_ascii_case("cmp.y") {
            1
        } else {
            return Err(Fail::new(t, format!("invalid condition register: {}", t.s)));
        };
        refs[which] ^= bangs % 2 == 1;
        Ok(which)
    };
    let op = match p.s.find(['&', '|']) {
        Some(i) => {
            let c = p.s.as_bytes()[i];
            let mut right = p.from(i + 1);
            if right.s.as_bytes().first() == Some(&c) {
                right = right.from(1);
            }
            let second = term(right.trim(), &mut refs)?;
            let first = term(p.to(i).trim(), &mut refs)?;
            if first == second {
                return Err(Fail::new(p, "condition register checked twice"));
            }
            if c == b'&' {
                CondOp::And
            } else {
                CondOp::Or
            }
        }
        None => {
            if term(p, &mut refs)? == 0 {
                CondOp::X
            } else {
                CondOp::Y
            }
        }
    };
    Ok((refs[0], refs[1], op))
}

impl Asm {
    /// Opens a block, or reports too many nested blocks.
    pub(crate) fn open(&mut self, block: Block, at: Piece<'_>) -> Result<(), Fail> {
        if self.stack.len() == MAX_NESTING {
            return Err(Fail::new(at, "too many nested blocks"));
        }
        self.stack.push(block);
        Ok(())
    }

    fn target(&self, p: Piece<'_>) -> Result<TargetRef, Fail> {
        if p.s.starts_with(|c: char| c.is_ascii_digit()) {
            return number::unsigned(p.s)
                .filter(|&v| v <= 0xFFF)
                .map(|v| TargetRef::Addr(v as u32))
                .ok_or_else(|| Fail::new(p, format!("invalid target address: {} (0..4095)", p.s)));
        }
        if p.s.is_empty() || !is_identifier(p.s) {
            return Err(Fail::new(p, format!("invalid target: {}", p.s)));
        }
        Ok(TargetRef::Name(p.s.to_string(), self.site(p)))
    }

    fn count(p: Piece<'_>) -> Result<u8, Fail> {
        number::unsigned(p.s)
            .filter(|&v| v <= 0xFF)
            .map(|v| v as u8)
            .ok_or_else(|| Fail::new(p, format!("invalid count: {} (0..255)", p.s)))
    }

    /// Emits a flow-control word whose destination comes from `target` (relocated later when
    /// it is a name).
    fn emit_targeted(
        &mut self,
        op: Opcode,
        fields: Fields,
        target: Option<TargetRef>,
        kind: RelocKind,
    ) {
        let pos = self.code.len();
        self.emit(op, fields);
        match target {
            None => {}
            Some(TargetRef::Addr(a)) => self.code[pos] = patch_dest(self.code[pos], a),
            Some(TargetRef::Name(name, site)) => {
                let reloc = Reloc {
                    pos,
                    name,
                    kind,
                    site,
                };
                match kind {
                    RelocKind::Proc | RelocKind::TargetProc => self.proc_relocs.push(reloc),
                    RelocKind::Label | RelocKind::Target => self.file.label_relocs.push(reloc),
                }
            }
        }
    }

    /// breakc, call, callc, ifc, jmpc.
    pub(crate) fn flow_cond(&mut self, st: Statement<'_>, op: Opcode) -> Result<(), Fail> {
        let mut args = Args::new(st.rest);
        let syntax = syntax::syntax(op);
        let (refx, refy, condop) = match syntax {
            Syntax::Call => (false, false, CondOp::Or),
            _ => condition(need(&mut args, &st)?)?,
        };
        let target = args.comma();
        let count = args.comma();
        no_more(&mut args)?;
        let mut word = Fmt2 {
            refx,
            refy,
            condop,
            dest: 0,
            num: 0,
        };
        match (syntax, target, count) {
            // picasso forms.
            (Syntax::BreakC, None, None) => self.emit(op, Fields::F2(word)),
            (Syntax::IfC, None, None) => {
                let pos = self.code.len();
                let site = self.site(st.head);
                self.open(
                    Block::If {
                        pos,
                        else_pos: None,
                        site,
                    },
                    st.head,
                )?;
                self.emit(op, Fields::F2(word));
            }
            (Syntax::Call | Syntax::CallC, Some(t), None) => {
                let target = self.proc_name(t)?;
                self.emit_targeted(op, Fields::F2(word), Some(target), RelocKind::Proc);
            }
            (Syntax::JmpC, Some(t), count) => {
                if let Some(c) = count {
                    word.num = Self::count(c)?;
                }
                let target = self.target(t)?;
                self.emit_targeted(op, Fields::F2(word), Some(target), RelocKind::Label);
            }
            // Extension: explicit destination and count.
            (Syntax::BreakC | Syntax::IfC | Syntax::Call | Syntax::CallC, Some(t), Some(c)) => {
                word.num = Self::count(c)?;
                let target = self.target(t)?;
                self.emit_targeted(op, Fields::F2(word), Some(target), RelocKind::Target);
            }
            _ => return Err(missing(&st)),
        }
        Ok(())
    }

    fn proc_name(&self, p: Piece<'_>) -> Result<TargetRef, Fail> {
        if !is_identifier(p.s) || p.s.is_empty() {
            return Err(Fail::new(p, format!("invalid target: {}", p.s)));
        }
        Ok(TargetRef::Name(p.s.to_string(), self.site(p)))
    }

    /// callu, ifu, jmpu.
    pub(crate) fn flow_bool(&mut self, st: Statement<'_>, op: Opcode) -> Result<(), Fail> {
        let mut args = Args::new(st.rest);
        let syntax = syntax::syntax(op);
        let b = need(&mut args, &st)?;
        let (negate, b) = match b.s.strip_prefix('!') {
            Some(_) if syntax == Syntax::JmpU => (true, b.from(1).trim()),
            Some(_) => {
                return Err(Fail::new(
                    b,
                    format!(
                        "inverting the condition is not supported by {}",
                        op.mnemonic()
                    ),
                ))
            }
            None => (false, b),
        };
        let o = self.operand(b)?;
        if o.reg.class != RegClass::Bool
            || o.negate
            || o.idx != AddrIdx::None
            || o.select != IDENTITY
        {
            return Err(Fail::new(b, format!("invalid boolean uniform: {}", b.s)));
        }
        let target = args.comma();
        let count = args.comma();
        no_more(&mut args)?;
        let mut word = Fmt3b {
            id: o.reg.index as u8,
            dest: 0,
            num: u8::from(negate),
        };
        match (syntax, target, count) {
            (Syntax::IfU, None, None) => {
                let pos = self.code.len();
                let site = self.site(st.head);
                self.open(
                    Block::If {
                        pos,
                        else_pos: None,
                        site,
                    },
                    st.head,
                )?;
                self.emit(op, Fields::F3b(word));
            }
            (Syntax::CallU, Some(t), None) => {
                let target = self.proc_name(t)?;
                self.emit_targeted(op, Fields::F3b(word), Some(target), RelocKind::Proc);
            }
            (Syntax::JmpU, Some(t), count) => {
                if let Some(c) = count {
                    word.num |= Self::count(c)?;
                }
                let target = self.target(t)?;
                self.emit_targeted(op, Fields::F3b(word), Some(target), RelocKind::Label);
            }
            (Syntax::IfU | Syntax::CallU, Some(t), Some(c)) => {
                word.num = Self::count(c)?;
                let target = self.target(t)?;
                self.emit_targeted(op, Fields::F3b(word), Some(target), RelocKind::Target);
            }
            _ => return Err(missing(&st)),
        }
        Ok(())
    }

    pub(crate) fn flow_loop(&mut self, st: Statement<'_>, op: Opcode) -> Result<(), Fail> {
        let mut args = Args::new(st.rest);
        let i = need(&mut args, &st)?;
        let target = args.comma();
        let count = args.comma();
        no_more(&mut args)?;
        let o = self.operand(i)?;
        if o.reg.class != RegClass::Int
            || o.negate
            || o.idx != AddrIdx::None
            || o.select != IDENTITY
        {
            return Err(Fail::new(
                i,
                format!("invalid integer vector uniform: {}", i.s),
            ));
        }
        let mut word = Fmt3i {
            id: o.reg.index as u8,
            dest: 0,
            num: 0,
        };
        match (target, count) {
            (None, None) => {
                let pos = self.code.len();
                let site = self.site(st.head);
                self.open(Block::For { pos, site }, st.head)?;
                self.emit(op, Fields::F3i(word));
            }
            (Some(t), count) => {
                if let Some(c) = count {
                    word.num = Self::count(c)?;
                }
                let target = self.target(t)?;
                self.emit_targeted(op, Fields::F3i(word), Some(target), RelocKind::Target);
            }
            (None, Some(_)) => return Err(missing(&st)),
        }
        Ok(())
    }

    pub(crate) fn setemit(&mut self, st: Statement<'_>, op: Opcode) -> Result<(), Fail> {
        let mut args = Args::new(st.rest);
        let v = need(&mut args, &st)?;
        let flags = args.comma();
        no_more(&mut args)?;
        let vertex = number::unambiguous_count(v.s)
            .ok()
            .filter(|&n| n <= 2)
            .ok_or_else(|| Fail::new(v, format!("invalid vertex id: {} (0..2)", v.s)))?;
        // (Read like picasso's C base 0: `0x1` is 1; an octal-looking `01` is 1 either way.)
        let (mut primitive, mut winding) = (false, false);
        if let Some(flags) = flags {
            let mut words = Args::new(flags);
            while let Some(w) = words.word() {
                match w.s.to_ascii_lowercase().as_str() {
                    "prim" | "primitive" => primitive = true,
                    "inv" | "invert" => winding = true,
                    _ => return Err(Fail::new(w, format!("unknown setemit flag: {}", w.s))),
                }
            }
        }
        let dvle = self.dvle();
        if !dvle.geo {
            dvle.geo = true;
            dvle.compat = true;
        }
        self.emit(
            op,
            Fields::F4(Fmt4 {
                vertex: vertex as u8,
                primitive,
                winding,
            }),
        );
        Ok(())
    }
}
