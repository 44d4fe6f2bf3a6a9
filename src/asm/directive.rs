//! Directives: the dispatch from directive name to handler, and `.alias`, `.entry`, `.nodvle`,
//! `.gsh`, plus the extensions `.opdesc` (pinned descriptor table) and `.file` (start a new
//! input file inside one text). Blocks are in `blocks`, uniforms and constants in `uniform`,
//! inputs and outputs in `io`.

use super::alloc::{Kind, Pools};
use super::emit::no_more;
use super::number;
use super::operand::{Alias, Fail, Reg, RegClass};
use super::state::{Asm, Entry, TargetRef};
use super::text::{is_identifier, Args, Piece, Statement};

/// Geometry-shader modes: names and codes.
const GSH_MODES: &[(&str, u8)] = &[
    ("point", 0),
    ("variable", 1),
    ("subdivision", 1),
    ("fixed", 2),
    ("particle", 2),
];

impl Asm {
    pub(crate) fn directive(&mut self, name: &str, st: Statement<'_>) -> Result<(), Fail> {
        match name.to_ascii_lowercase().as_str() {
            "proc" => self.dir_proc(st),
            "else" => self.dir_else(st),
            "end" => self.dir_end(st),
            "alias" => self.dir_alias(st),
            "fvec" => self.dir_uniform(st, Kind::Float),
            "ivec" => self.dir_uniform(st, Kind::Int),
            "bool" => self.dir_uniform(st, Kind::Bool),
            "constf" => self.dir_const(st, Kind::Float),
            "consti" => self.dir_const(st, Kind::Int),
            "constfa" => self.dir_constfa(st),
            "setf" => self.dir_set(st, Kind::Float),
            "seti" => self.dir_set(st, Kind::Int),
            "setb" => self.dir_setb(st),
            "in" => self.dir_in(st),
            "out" => self.dir_out(st),
            "entry" => self.dir_entry(st),
            "nodvle" => self.dir_nodvle(st),
            "gsh" => self.dir_gsh(st),
            "opdesc" => self.dir_opdesc(st),
            "file" => self.dir_file(st),
            _ => Err(Fail::new(
                st.head,
                format!("invalid directive: {}", st.head.s),
            )),
        }
    }

    fn dir_alias(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        let mut args = Args::new(st.rest);
        let name = args
            .word()
            .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
        let reg = args
            .word()
            .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
        no_more(&mut args)?;
        if name.s.is_empty() || !is_identifier(name.s) {
            return Err(Fail::new(name, format!("invalid alias name: {}", name.s)));
        }
        if super::text::looks_like_register(name.s) {
            return Err(Fail::new(name, "cannot redefine register"));
        }
        let o = self.operand(reg)?;
        if o.idx != crate::isa::AddrIdx::None {
            return Err(Fail::new(
                reg,
                format!("index register not allowed here: {}", reg.s),
            ));
        }
        self.define_alias(
            name,
            Alias {
                reg: o.reg,
                negate: o.negate,
                select: o.select,
            },
        )
    }

    fn dir_entry(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        self.dvle();
        let mut args = Args::new(st.rest);
        let first = args
            .word()
            .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
        let second = args.word();
        no_more(&mut args)?;
        let entry = match second {
            None => {
                if first.s.is_empty() || !is_identifier(first.s) {
                    return Err(Fail::new(first, format!("invalid identifier: {}", first.s)));
                }
                Entry::Proc(first.s.to_string(), Some(self.site(first)))
            }
            Some(end) => Entry::Range(self.entry_target(first)?, self.entry_target(end)?),
        };
        self.dvle().entry = entry;
        Ok(())
    }

    fn entry_target(&self, p: Piece<'_>) -> Result<TargetRef, Fail> {
        if let Some(v) = number::unsigned(p.s) {
            return u32::try_from(v)
                .map(TargetRef::Addr)
                .map_err(|_| Fail::new(p, format!("invalid address: {}", p.s)));
        }
        if p.s.is_empty() || !is_identifier(p.s) {
            return Err(Fail::new(p, format!("invalid identifier: {}", p.s)));
        }
        Ok(TargetRef::Name(p.s.to_string(), self.site(p)))
    }

    fn dir_nodvle(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        self.dvle();
        no_more(&mut Args::new(st.rest))?;
        self.dvle().nodvle = true;
        Ok(())
    }

    fn dir_gsh(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        self.dvle();
        let mut args = Args::new(st.rest);
        let Some(mode) = args.word() else {
            let dvle = self.dvle();
            dvle.geo = true;
            dvle.compat = true;
            return Ok(());
        };
        let dvle = self.dvle();
        if dvle.geo {
            return Err(Fail::new(st.head, ".gsh had already been used"));
        }
        if !dvle.constants.is_empty() || !dvle.uniforms.is_empty() || dvle.output_mask != 0 {
            return Err(Fail::new(
                st.head,
                ".gsh must be used before any constant, uniform or output is declared",
            ));
        }
        let code = GSH_MODES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(mode.s))
            .map(|&(_, c)| c)
            .ok_or_else(|| Fail::new(mode, format!("invalid geometry shader mode: {}", mode.s)))?;
        let dvle = self.dvle();
        dvle.geo = true;
        dvle.gs_mode = code;
        let first_p = args
            .word()
            .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
        let first = self.float_register(first_p)?;
        self.pools[1] = Pools::geometry(first.code());
        match code {
            1 => {
                let n = args
                    .word()
                    .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
                no_more(&mut args)?;
                self.dvle().gs_variable_num = self.small_number(n, "vertex count", 255)?;
            }
            2 => {
                let start_p = args
                    .word()
                    .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
                let n = args
                    .word()
                    .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
                no_more(&mut args)?;
                let start = self.float_register(start_p)?;
                let n = self.small_number(n, "vertex count", 255)?;
                if start.code() >= first.code() {
                    return Err(Fail::new(
                        start_p,
                        format!(
                            "specified location overlaps uniform allocation pool: {}",
                            start_p.s
                        ),
                    ));
                }
                let dvle = self.dvle();
                dvle.gs_fixed_start = start.index as u8;
                dvle.gs_fixed_num = n;
            }
            _ => no_more(&mut args)?,
        }
        Ok(())
    }

    fn float_register(&mut self, p: Piece<'_>) -> Result<Reg, Fail> {
        let o = self.operand(p)?;
        if o.reg.class != RegClass::Float {
            return Err(Fail::new(
                p,
                format!("invalid float uniform register: {}", p.s),
            ));
        }
        self.plain_register(p, &o, false)?;
        Ok(o.reg)
    }

    fn dir_opdesc(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        let mut args = Args::new(st.rest);
        let mut any = false;
        while let Some(p) = args.comma() {
            any = true;
            let word = number::unsigned(p.s)
                .filter(|&v| v <= u64::from(u32::MAX))
                .ok_or_else(|| Fail::new(p, format!("invalid operand descriptor: {}", p.s)))?;
            self.descs.pin(word as u32).map_err(|()| {
                Fail::new(
                    st.head,
                    ".opdesc must come before any instruction that uses an operand descriptor",
                )
            })?;
        }
        if !any {
            return Err(Fail::new(st.head, "missing parameter"));
        }
        Ok(())
    }

    fn dir_file(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        if !self.stack.is_empty() {
            return Err(Fail::new(st.head, ".file inside an open block"));
        }
        let name = st.rest.s.trim_matches('"').to_string();
        self.new_unit = Some(name);
        Ok(())
    }
}
