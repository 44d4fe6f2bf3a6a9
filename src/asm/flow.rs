//! Flow-control instructions: calls, jumps, IF and FOR blocks, BREAKC, SETEMIT; their
//! conditions (`cmp.x`, `!cmp.y`, `&&`, `||`); the relocations that give them their targets;
//! and picasso's word-level patches of those targets (reproduced exactly, including a call
//! length above 255 spilling past the 8-bit count field).
//!
//! Extension: every target may be written explicitly with its count (`call L, 3`,
//! `ifu b0, L, 2`, `for i0, L`), and targets may be addresses.

use super::emit::{missing, need, no_more};
use super::number;
use super::operand::{Fail, Operand, RegClass, IDENTITY};
use super::state::{Asm, Block, Reloc, RelocKind, TargetRef, MAX_NESTING};
use super::syntax::{Fields, Flow};
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
    pub(crate) fn flow_cond(
        &mut self,
        st: Statement<'_>,
        op: Opcode,
        flow: Flow,
    ) -> Result<(), Fail> {
        let mut args = Args::new(st.rest);
        let (refx, refy, condop) = if flow == Flow::Call {
            (false, false, CondOp::Or)
        } else {
            condition(need(&mut args, &st)?)?
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
        match (flow, target, count) {
            // picasso forms.
            (Flow::BreakC, None, None) => self.emit(op, Fields::F2(word)),
            (Flow::IfC, None, None) => {
                self.open_if(st.head, op, Fields::F2(word))?;
            }
            (Flow::Call | Flow::CallC, Some(t), None) => {
                let target = self.proc_name(t)?;
                self.emit_targeted(op, Fields::F2(word), Some(target), RelocKind::Proc);
            }
            (Flow::JmpC, Some(t), count) => {
                if let Some(c) = count {
                    word.num = Self::count(c)?;
                }
                let target = self.target(t)?;
                self.emit_targeted(op, Fields::F2(word), Some(target), RelocKind::Label);
            }
            // Extension: explicit destination and count.
            (Flow::BreakC | Flow::IfC | Flow::Call | Flow::CallC, Some(t), Some(c)) => {
                word.num = Self::count(c)?;
                let target = self.target(t)?;
                self.emit_targeted(op, Fields::F2(word), Some(target), RelocKind::Target);
            }
            _ => return Err(missing(&st)),
        }
        Ok(())
    }

    /// IFC/IFU: opens an IF block at the instruction about to be emitted, then emits it.
    fn open_if(&mut self, head: Piece<'_>, op: Opcode, fields: Fields) -> Result<(), Fail> {
        let pos = self.code.len();
        let site = self.site(head);
        self.open(
            Block::If {
                pos,
                else_pos: None,
                site,
            },
            head,
        )?;
        self.emit(op, fields);
        Ok(())
    }

    fn proc_name(&self, p: Piece<'_>) -> Result<TargetRef, Fail> {
        if !is_identifier(p.s) || p.s.is_empty() {
            return Err(Fail::new(p, format!("invalid target: {}", p.s)));
        }
        Ok(TargetRef::Name(p.s.to_string(), self.site(p)))
    }

    /// callu, ifu, jmpu.
    pub(crate) fn flow_bool(
        &mut self,
        st: Statement<'_>,
        op: Opcode,
        flow: Flow,
    ) -> Result<(), Fail> {
        let mut args = Args::new(st.rest);
        let b = need(&mut args, &st)?;
        let (negate, b) = match b.s.strip_prefix('!') {
            Some(_) if flow == Flow::JmpU => (true, b.from(1).trim()),
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
        if o.reg.class != RegClass::Bool || o.idx != AddrIdx::None {
            return Err(Fail::new(b, format!("invalid boolean uniform: {}", b.s)));
        }
        self.plain_register(b, &o, flow == Flow::JmpU)?;
        let target = args.comma();
        let count = args.comma();
        no_more(&mut args)?;
        let mut word = Fmt3b {
            id: o.reg.index as u8,
            dest: 0,
            num: u8::from(negate),
        };
        match (flow, target, count) {
            (Flow::IfU, None, None) => {
                self.open_if(st.head, op, Fields::F3b(word))?;
            }
            (Flow::CallU, Some(t), None) => {
                let target = self.proc_name(t)?;
                self.emit_targeted(op, Fields::F3b(word), Some(target), RelocKind::Proc);
            }
            (Flow::JmpU, Some(t), count) => {
                if let Some(c) = count {
                    word.num |= Self::count(c)?;
                }
                let target = self.target(t)?;
                self.emit_targeted(op, Fields::F3b(word), Some(target), RelocKind::Label);
            }
            (Flow::IfU | Flow::CallU, Some(t), Some(c)) => {
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
        if o.reg.class != RegClass::Int || o.idx != AddrIdx::None {
            return Err(Fail::new(
                i,
                format!("invalid integer vector uniform: {}", i.s),
            ));
        }
        self.plain_register(i, &o, false)?;
        // picasso accepts i4..i7 and shifts the whole number in: bits 22–23 take its low two
        // bits, bit 24 (no field of the loop instruction) the rest.
        let spill = o.reg.index >> 2;
        if spill != 0 {
            let low = o.reg.index & 3;
            self.picasso_reads(Fail::new(
                i,
                format!(
                    "invalid integer vector uniform: {} (there are i0..i3): picasso writes i{low} \
                     and sets bit 24 of the instruction, which the loop does not read; write \
                     `i{low}`",
                    o.reg
                ),
            ))?;
        }
        let mut word = Fmt3i {
            id: (o.reg.index & 3) as u8,
            dest: 0,
            num: 0,
        };
        let pos = self.code.len();
        match (target, count) {
            (None, None) => {
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
        self.code[pos] |= spill << 24;
        Ok(())
    }

    /// A register named where only the register counts (the bool or integer uniform of flow
    /// control, the register of a directive): picasso drops a negation and a swizzle without a
    /// word, which is a warning here (an error under `--strict`); it refuses an index register.
    /// `jmpu`: the message says how to invert the condition.
    pub(crate) fn plain_register(
        &mut self,
        p: Piece<'_>,
        o: &Operand,
        jmpu: bool,
    ) -> Result<(), Fail> {
        if o.idx != AddrIdx::None {
            return Err(Fail::new(
                p,
                format!("index register not allowed here: {}", p.s),
            ));
        }
        let dropped = match (o.negate, o.select != IDENTITY) {
            (false, false) => return Ok(()),
            (true, false) => "the negation",
            (false, true) => "the swizzle",
            (true, true) => "the negation and the swizzle",
        };
        // The text without the `-` and the swizzle.
        let plain = p.s.trim_start_matches('-').trim_start();
        let plain = match plain.rfind('.') {
            Some(dot) if !plain[dot..].contains(']') => &plain[..dot],
            Some(_) | None => plain,
        };
        let hint = if jmpu && o.negate {
            format!(" (`jmpu !{plain}, …` jumps when it is false)")
        } else {
            String::new()
        };
        self.picasso_reads(Fail::new(
            p,
            format!(
                "picasso ignores {dropped} of `{}` here: it reads {}; write `{plain}`{hint}",
                p.s, o.reg
            ),
        ))
    }

    /// A number of an instruction or directive that picasso reads with C's `strtoll` (base 0)
    /// and checks against `0..=max`: a plain decimal or `0x` hex number, or else the number
    /// picasso reads from the text (a prefix, or octal after a leading zero) with a warning.
    pub(crate) fn small_number(&mut self, p: Piece<'_>, what: &str, max: u8) -> Result<u8, Fail> {
        let invalid = || Fail::new(p, format!("invalid {what}: {} (0..{max})", p.s));
        match number::unambiguous_count(p.s) {
            Ok(n) => u8::try_from(n)
                .ok()
                .filter(|&n| n <= max)
                .ok_or_else(invalid),
            Err(Some(n)) if n <= u64::from(max) => {
                let reading = match number::c_base0_split(p.s) {
                    Some((_, len)) if len < p.s.len() => {
                        format!("ignores `{}` after the number", &p.s[len..])
                    }
                    Some(_) | None => "reads the leading zero as octal".to_string(),
                };
                self.picasso_reads(Fail::new(
                    p,
                    format!(
                        "picasso reads the {what} `{}` as {n} (it {reading}); write `{n}`",
                        p.s
                    ),
                ))?;
                Ok(n as u8)
            }
            Err(_) => Err(invalid()),
        }
    }

    pub(crate) fn setemit(&mut self, st: Statement<'_>, op: Opcode) -> Result<(), Fail> {
        let mut args = Args::new(st.rest);
        let v = need(&mut args, &st)?;
        let flags = args.comma();
        no_more(&mut args)?;
        let vertex = self.small_number(v, "vertex id", 2)?;
        let (mut primitive, mut winding) = (false, false);
        if let Some(flags) = flags {
            let mut words = Args::new(flags);
            while let Some(w) = words.word() {
                match w.s.to_ascii_lowercase().as_str() {
                    "prim" | "primitive" => primitive = true,
                    "inv" | "invert" => winding = true,
                    _ => self.picasso_reads(Fail::new(
                        w,
                        format!(
                            "unknown setemit flag: {}: picasso reports it as an error but still \
                             writes the file, without the flag; remove it (the flags are `prim` \
                             and `inv`)",
                            w.s
                        ),
                    ))?,
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
                vertex,
                primitive,
                winding,
            }),
        );
        Ok(())
    }
}
