//! Instructions: the dispatch from mnemonic to syntax, and the ALU instructions — operand
//! checks, the choice between normal and inverted forms (DPH/DPHI, DST/DSTI, SGE/SGEI,
//! SLT/SLTI, MAD/MADI) from the operands alone, operand-descriptor allocation (with the MAD
//! renumbering) — and raw `!` words. Flow control lives in `flow`.
//!
//! The form rule (picasso's): a two-source instruction that has an inverted form uses it when
//! src1 is an input or temporary and src2 is not (so src2 needs the wide slot); MAD uses MADI
//! when src2 is an input or temporary and src3 is a float uniform or carries an index register
//! that src2 does not. Operand order in the text never changes: the first source is src1.

use super::number;
use super::opdesc::DescError;
use super::operand::{Fail, Operand, RegClass};
use super::state::{Asm, VERTEX_CODE_LIMIT};
use super::syntax::{self, care_bits, AluSyntax, Fields, Flow, Syntax};
use super::text::{Args, Piece, Statement};
use crate::isa::{
    AddrIdx, CmpOp, Dst, Fmt0, Fmt1, Fmt1c, Fmt1i, Fmt1u, Fmt5, Fmt5i, OpDesc, Opcode, Src, SrcMod,
};

/// An unused source slot of a descriptor (picasso leaves it zero).
const NO_SRC: SrcMod = SrcMod {
    negate: false,
    select: [0, 0, 0, 0],
};

pub(crate) fn missing(st: &Statement<'_>) -> Fail {
    Fail::new(st.head, "missing parameter")
}

pub(crate) fn need<'a>(args: &mut Args<'a>, st: &Statement<'_>) -> Result<Piece<'a>, Fail> {
    args.comma().ok_or_else(|| missing(st))
}

pub(crate) fn no_more(args: &mut Args<'_>) -> Result<(), Fail> {
    match args.comma() {
        Some(extra) => Err(Fail::new(extra, "too many parameters")),
        None => Ok(()),
    }
}

fn src_mod(o: &Operand) -> SrcMod {
    SrcMod {
        negate: o.negate,
        select: o.select,
    }
}

fn src(o: &Operand) -> Src {
    Src(o.reg.code() as u8)
}

fn cmp_op(p: Piece<'_>) -> Result<CmpOp, Fail> {
    let names = ["eq", "ne", "lt", "le", "gt", "ge"];
    names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(p.s))
        .map(|i| CmpOp::ALL[i])
        .ok_or_else(|| Fail::new(p, format!("invalid conditional operator: {}", p.s)))
}

impl Asm {
    pub(crate) fn instruction(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        if self.stack.is_empty() {
            return Err(Fail::new(st.head, "instruction outside block"));
        }
        self.last_was_end = false;
        let geo = self.dvle().geo;
        if !geo && self.code.len() > VERTEX_CODE_LIMIT && !self.file.size_reported {
            self.file.size_reported = true;
            self.error(Fail::new(
                st.head,
                format!(
                    "instruction outside vertex shader code memory (max {VERTEX_CODE_LIMIT} \
                     instructions, currently {})",
                    self.code.len()
                ),
            ));
        }
        if st.head.s.starts_with('!') {
            return self.raw_words(st);
        }
        let Some(op) = syntax::lookup(st.head.s) else {
            return Err(Fail::new(
                st.head,
                format!("invalid instruction: {}", st.head.s),
            ));
        };
        match syntax::syntax(op) {
            Syntax::NoOperands => {
                no_more(&mut Args::new(st.rest))?;
                self.emit(op, Fields::F0(Fmt0));
                Ok(())
            }
            Syntax::Alu(alu) => match alu {
                AluSyntax::TwoSources { inverted } => self.two_sources(st, op, inverted),
                AluSyntax::OneSource => self.one_source(st, op),
                AluSyntax::Mova => self.mova(st, op),
                AluSyntax::Cmp => self.cmp(st, op),
                AluSyntax::Mad { inverted } => self.mad(st, op, inverted),
            },
            Syntax::Flow(flow) => match flow {
                Flow::Call | Flow::CallC | Flow::BreakC | Flow::IfC | Flow::JmpC => {
                    self.flow_cond(st, op, flow)
                }
                Flow::CallU | Flow::IfU | Flow::JmpU => self.flow_bool(st, op, flow),
                Flow::Loop => self.flow_loop(st, op),
            },
            Syntax::SetEmit => self.setemit(st, op),
            // `lookup` folds inverted spellings and never returns undefined opcodes.
            Syntax::InvertedOf(_) | Syntax::RawOnly => Err(Fail::new(
                st.head,
                format!("invalid instruction: {}", st.head.s),
            )),
        }
    }

    pub(crate) fn emit(&mut self, op: Opcode, fields: Fields) {
        match syntax::build(op, fields) {
            Some(instr) => self.push(instr.encode(), false),
            None => unreachable_format(op),
        }
    }

    /// Extension: `!0x12345678` (one or more, blank-separated) — words emitted as written.
    fn raw_words(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        let mut pieces = vec![st.head];
        let mut args = Args::new(st.rest);
        while let Some(w) = args.word() {
            pieces.push(w);
        }
        let mut words = Vec::with_capacity(pieces.len());
        for p in pieces {
            let value =
                p.s.strip_prefix('!')
                    .and_then(number::unsigned)
                    .filter(|&v| v <= u64::from(u32::MAX))
                    .ok_or_else(|| Fail::new(p, format!("invalid raw word: {}", p.s)))?;
            words.push(value as u32);
        }
        for w in words {
            self.push(w, true);
        }
        Ok(())
    }

    // ---- operand checks ----------------------------------------------------------------------

    fn dest(&mut self, p: Piece<'_>) -> Result<(Operand, u8), Fail> {
        let mut o = self.operand(p)?;
        if o.reg.class == RegClass::Input {
            let i = o.reg.index;
            self.picasso_reads(Fail::new(
                p,
                format!(
                    "an input register cannot be written: picasso writes the output register \
                     with the same code, o{i}; write `o{i}` (or a temporary register)"
                ),
            ))?;
            o.reg.class = RegClass::Output;
        }
        if !matches!(o.reg.class, RegClass::Output | RegClass::Temp) {
            return Err(Fail::new(
                p,
                format!("invalid destination register: {}", p.s),
            ));
        }
        if o.idx != AddrIdx::None {
            return Err(Fail::new(
                p,
                "index register not allowed in the destination",
            ));
        }
        if o.negate {
            self.warn(p, "negation has no effect on a destination");
        }
        if o.unordered() {
            self.warn(p, "arbitrary swizzling has no effect for destination mask");
        }
        Ok((o, o.write_mask()))
    }

    /// A source operand. An output register cannot be read: picasso encodes it as the input
    /// register with the same code.
    fn src_operand(&mut self, p: Piece<'_>) -> Result<Operand, Fail> {
        let mut o = self.operand(p)?;
        if o.reg.class == RegClass::Output {
            let i = o.reg.index;
            self.picasso_reads(Fail::new(
                p,
                format!(
                    "output registers cannot be read: picasso writes the input register with \
                     the same code, v{i}; write `v{i}` (or keep the value in a temporary \
                     register)"
                ),
            ))?;
            o.reg.class = RegClass::Input;
        }
        Ok(o)
    }

    fn wide(&mut self, p: Piece<'_>, n: usize) -> Result<Operand, Fail> {
        let o = self.src_operand(p)?;
        check_wide(&o, p, n)?;
        Ok(o)
    }

    // ---- ALU ---------------------------------------------------------------------------------

    /// Strips a trailing `@N` (extension: explicit descriptor index).
    fn desc_suffix<'a>(&self, rest: Piece<'a>) -> Result<(Piece<'a>, Option<usize>), Fail> {
        match rest.s.rfind('@') {
            Some(i) => {
                let n = rest.from(i + 1).trim();
                let index = number::unsigned(n.s)
                    .filter(|&v| v < 1 << 16)
                    .ok_or_else(|| {
                        Fail::new(n, format!("invalid operand descriptor index: {}", n.s))
                    })?;
                Ok((rest.to(i).trim(), Some(index as usize)))
            }
            None => Ok((rest, None)),
        }
    }

    fn descriptor(
        &mut self,
        at: Piece<'_>,
        op: Opcode,
        mask: u8,
        srcs: [SrcMod; 3],
        explicit: Option<usize>,
    ) -> Result<u8, Fail> {
        let want = OpDesc::new(mask, srcs).0;
        let care = care_bits(op, mask);
        let is_mad = matches!(syntax::syntax(op), Syntax::Alu(AluSyntax::Mad { .. }));
        let result = if is_mad {
            self.descs.get_mad(want, care, explicit).map(|(i, swap)| {
                if let Some((a, b)) = swap {
                    self.renumber(a, b);
                }
                i
            })
        } else {
            self.descs.get(want, care, explicit)
        };
        result
            .map(|i| i as u8)
            .map_err(|e| Fail::new(at, desc_message(e, want, care)))
    }

    /// Swaps descriptor indices `a` and `b` in every emitted non-MAD ALU instruction.
    fn renumber(&mut self, a: usize, b: usize) {
        for (word, &raw) in self.code.iter_mut().zip(&self.raw) {
            if raw {
                continue;
            }
            let instr = crate::isa::Instruction::decode(*word);
            let Some(alu) = instr.alu() else { continue };
            if matches!(
                syntax::syntax(syntax::normal_form(instr.opcode())),
                Syntax::Alu(AluSyntax::Mad { .. })
            ) {
                continue;
            }
            let d = usize::from(alu.desc);
            let new = if d == a {
                b
            } else if d == b {
                a
            } else {
                continue;
            };
            *word = syntax::with_desc(instr, new as u8).encode();
        }
    }

    fn two_sources(
        &mut self,
        st: Statement<'_>,
        op: Opcode,
        inverted: Option<Opcode>,
    ) -> Result<(), Fail> {
        let (rest, explicit) = self.desc_suffix(st.rest)?;
        let mut args = Args::new(rest);
        let (d, s1, s2) = (
            need(&mut args, &st)?,
            need(&mut args, &st)?,
            need(&mut args, &st)?,
        );
        no_more(&mut args)?;
        let (dst, mask) = self.dest(d)?;
        let a = self.src_operand(s1)?;
        let b = self.src_operand(s2)?;
        let inv = inverted.filter(|_| narrow_code(&a) && !narrow_code(&b));
        if inv.is_some() {
            check_narrow(&a, s1, 1)?;
            check_wide(&b, s2, 2)?;
        } else {
            check_wide(&a, s1, 1)?;
            check_narrow(&b, s2, 2)?;
        }
        check_inputs(&[&a, &b], st.rest)?;
        let desc = self.descriptor(
            st.head,
            op,
            mask,
            [src_mod(&a), src_mod(&b), NO_SRC],
            explicit,
        )?;
        let dst = Dst(dst.reg.code() as u8);
        match inv {
            Some(iop) => self.emit(
                iop,
                Fields::F1i(Fmt1i {
                    dst,
                    idx: b.idx,
                    src1: src(&a),
                    src2: src(&b),
                    desc,
                }),
            ),
            None => self.emit(
                op,
                Fields::F1(Fmt1 {
                    dst,
                    idx: a.idx,
                    src1: src(&a),
                    src2: src(&b),
                    desc,
                }),
            ),
        }
        Ok(())
    }

    fn one_source(&mut self, st: Statement<'_>, op: Opcode) -> Result<(), Fail> {
        let (rest, explicit) = self.desc_suffix(st.rest)?;
        let mut args = Args::new(rest);
        let (d, s1) = (need(&mut args, &st)?, need(&mut args, &st)?);
        no_more(&mut args)?;
        let (dst, mask) = self.dest(d)?;
        let dst = Dst(dst.reg.code() as u8);
        self.unary(st.head, op, (dst, mask), s1, explicit)
    }

    /// The one-source format's operand and descriptor, for a destination already parsed.
    fn unary(
        &mut self,
        head: Piece<'_>,
        op: Opcode,
        (dst, mask): (Dst, u8),
        s1: Piece<'_>,
        explicit: Option<usize>,
    ) -> Result<(), Fail> {
        let a = self.wide(s1, 1)?;
        let desc = self.descriptor(head, op, mask, [src_mod(&a), NO_SRC, NO_SRC], explicit)?;
        self.emit(
            op,
            Fields::F1u(Fmt1u {
                dst,
                idx: a.idx,
                src1: src(&a),
                desc,
            }),
        );
        Ok(())
    }

    fn mova(&mut self, st: Statement<'_>, op: Opcode) -> Result<(), Fail> {
        let (rest, explicit) = self.desc_suffix(st.rest)?;
        let mut args = Args::new(rest);
        let (t, s1) = (need(&mut args, &st)?, need(&mut args, &st)?);
        no_more(&mut args)?;
        let mask = match t.s.to_ascii_lowercase().as_str() {
            "a0" | "a0.x" => 0b1000,
            "a1" | "a0.y" => 0b0100,
            "a01" | "a0.xy" => 0b1100,
            _ => {
                return Err(Fail::new(
                    t,
                    format!("invalid destination register for mova: {}", t.s),
                ))
            }
        };
        self.unary(st.head, op, (Dst(0), mask), s1, explicit)
    }

    fn cmp(&mut self, st: Statement<'_>, op: Opcode) -> Result<(), Fail> {
        let (rest, explicit) = self.desc_suffix(st.rest)?;
        let mut args = Args::new(rest);
        let s1 = need(&mut args, &st)?;
        let (x, y) = (need(&mut args, &st)?, need(&mut args, &st)?);
        let s2 = need(&mut args, &st)?;
        no_more(&mut args)?;
        let a = self.wide(s1, 1)?;
        let (cmpx, cmpy) = (cmp_op(x)?, cmp_op(y)?);
        let b = self.src_operand(s2)?;
        check_narrow(&b, s2, 2)?;
        let desc = self.descriptor(st.head, op, 0, [src_mod(&a), src_mod(&b), NO_SRC], explicit)?;
        self.emit(
            op,
            Fields::F1c(Fmt1c {
                cmpx,
                cmpy,
                idx: a.idx,
                src1: src(&a),
                src2: src(&b),
                desc,
            }),
        );
        Ok(())
    }

    fn mad(&mut self, st: Statement<'_>, op: Opcode, inverted: Opcode) -> Result<(), Fail> {
        let (rest, explicit) = self.desc_suffix(st.rest)?;
        let mut args = Args::new(rest);
        let d = need(&mut args, &st)?;
        let (s1, s2, s3) = (
            need(&mut args, &st)?,
            need(&mut args, &st)?,
            need(&mut args, &st)?,
        );
        no_more(&mut args)?;
        let (dst, mask) = self.dest(d)?;
        let a = self.src_operand(s1)?;
        check_narrow(&a, s1, 1)?;
        let b = self.src_operand(s2)?;
        let c = self.src_operand(s3)?;
        let inv = narrow_code(&b)
            && (!narrow_code(&c) || (c.idx != AddrIdx::None && b.idx == AddrIdx::None));
        if inv {
            check_narrow(&b, s2, 2)?;
            check_wide(&c, s3, 3)?;
        } else {
            check_wide(&b, s2, 2)?;
            check_narrow(&c, s3, 3)?;
        }
        check_inputs(&[&a, &b, &c], st.rest)?;
        let desc = self.descriptor(
            st.head,
            op,
            mask,
            [src_mod(&a), src_mod(&b), src_mod(&c)],
            explicit,
        )?;
        let dst = Dst(dst.reg.code() as u8);
        if inv {
            self.emit(
                inverted,
                Fields::F5i(Fmt5i {
                    dst,
                    idx: c.idx,
                    src1: src(&a),
                    src2: src(&b),
                    src3: src(&c),
                    desc,
                }),
            );
        } else {
            self.emit(
                op,
                Fields::F5(Fmt5 {
                    dst,
                    idx: b.idx,
                    src1: src(&a),
                    src2: src(&b),
                    src3: src(&c),
                    desc,
                }),
            );
        }
        Ok(())
    }

    // ---- flow control ------------------------------------------------------------------------
}

/// Input and temporary registers fit the 5-bit slots (picasso: code below 0x20).
fn narrow_code(o: &Operand) -> bool {
    o.reg.code() < 0x20
}

fn check_wide(o: &Operand, p: Piece<'_>, n: usize) -> Result<(), Fail> {
    match o.reg.class {
        RegClass::Input | RegClass::Temp | RegClass::Float => Ok(()),
        RegClass::Output | RegClass::Int | RegClass::Bool => {
            Err(Fail::new(p, format!("invalid source{n} register: {}", p.s)))
        }
    }
}

fn check_narrow(o: &Operand, p: Piece<'_>, n: usize) -> Result<(), Fail> {
    if o.idx != AddrIdx::None {
        return Err(Fail::new(
            p,
            format!("index register not allowed in source{n}"),
        ));
    }
    match o.reg.class {
        RegClass::Input | RegClass::Temp => Ok(()),
        RegClass::Output | RegClass::Float | RegClass::Int | RegClass::Bool => {
            Err(Fail::new(p, format!("invalid source{n} register: {}", p.s)))
        }
    }
}

/// The hardware reads only one input register per instruction reliably (picasso's check).
fn check_inputs(ops: &[&Operand], at: Piece<'_>) -> Result<(), Fail> {
    let inputs: Vec<u32> = ops
        .iter()
        .filter(|o| o.reg.class == RegClass::Input)
        .map(|o| o.reg.index)
        .collect();
    if inputs.iter().any(|&v| v != inputs[0]) {
        return Err(Fail::new(
            at,
            "source operands must be different input registers (v0..v15)",
        ));
    }
    Ok(())
}

fn desc_message(e: DescError, want: u32, care: u32) -> String {
    match e {
        DescError::Full => "too many operand descriptors (limit is 128)".to_string(),
        DescError::MadFull => {
            "no operand descriptor below 32 is left for mad (entries 0..31 are all used by mad)"
                .to_string()
        }
        DescError::NoMatch => format!(
            "no pinned operand descriptor fits this instruction (needs {want:#010x} on bits {care:#010x})"
        ),
        DescError::Mismatch { index, entry } => match entry {
            Some(w) => format!(
                "operand descriptor {index} ({w:#010x}) does not fit this instruction (needs \
                 {want:#010x} on bits {care:#010x})"
            ),
            None => format!("operand descriptor {index} does not exist (or is out of reach)"),
        },
        DescError::NotPinned => {
            "an explicit operand descriptor (@N) needs a pinned table (.opdesc)".to_string()
        }
    }
}

fn unreachable_format(op: Opcode) {
    // Every caller passes the fields of `op`'s own format; reaching this is a bug in this module.
    debug_assert!(false, "fields of the wrong format for {op:?}");
}
