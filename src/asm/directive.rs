//! Directives other than the block ones: aliases, uniforms, constants, inputs and outputs, the
//! entry point, `.nodvle`, `.gsh`, and the extensions `.opdesc` (pinned descriptor table) and
//! `.file` (start a new input file inside one text).

use super::alloc::{Kind, Pools};
use super::emit::{need, no_more};
use super::number;
use super::operand::{self, Alias, Fail, Reg, RegClass};
use super::state::{Asm, Block, Const, ConstValue, DvleUniform, Entry, SharedUniform, TargetRef};
use super::text::{is_identifier, Args, Piece, Statement};
use crate::float::f32_to_f24;

/// Most entries of a DVLE's uniform table, constant table and of the shared uniform table.
const MAX_ENTRIES: usize = 96;
/// Most outputs of a DVLE.
const MAX_OUTPUTS: usize = 16;

/// Output semantics: names and codes.
pub(crate) const SEMANTICS: &[(&str, u16)] = &[
    ("position", 0),
    ("pos", 0),
    ("normalquat", 1),
    ("nquat", 1),
    ("color", 2),
    ("clr", 2),
    ("texcoord0", 3),
    ("tcoord0", 3),
    ("texcoord0w", 4),
    ("tcoord0w", 4),
    ("texcoord1", 5),
    ("tcoord1", 5),
    ("texcoord2", 6),
    ("tcoord2", 6),
    ("view", 8),
    ("dummy", 9),
];
const DUMMY: u16 = 9;

/// Geometry-shader modes: names and codes.
const GSH_MODES: &[(&str, u8)] = &[
    ("point", 0),
    ("variable", 1),
    ("subdivision", 1),
    ("fixed", 2),
    ("particle", 2),
];

/// A `(x, y, z, w)` group: the text before `(` and the four values.
struct Vector<'a> {
    name: Piece<'a>,
    values: [Piece<'a>; 4],
}

fn vector<'a>(st: &Statement<'a>) -> Result<Vector<'a>, Fail> {
    let missing = || Fail::new(st.head, "missing parameter");
    let (name, inner) = match st.rest.split_once('(') {
        (name, Some(inner)) => (name.trim(), inner),
        (_, None) => return Err(missing()),
    };
    let (inner, after) = match inner.split_once(')') {
        (inner, Some(after)) => (inner, after.trim()),
        (_, None) => return Err(Fail::new(st.rest, "invalid syntax")),
    };
    if !after.is_empty() {
        return Err(Fail::new(
            after,
            format!("unexpected text after ')': {}", after.s),
        ));
    }
    let mut args = Args::new(inner);
    let mut values = [Piece::new("", inner.end()); 4];
    for v in &mut values {
        *v = args.comma().ok_or_else(missing)?;
    }
    no_more(&mut args)?;
    Ok(Vector { name, values })
}

/// A float constant component: a float literal (converted to float24 by picasso's truncating
/// rule), or `!word` (extension: the 32-bit table word exactly).
fn float_word(p: Piece<'_>) -> Result<u32, Fail> {
    if let Some(raw) = p.s.strip_prefix('!') {
        return number::unsigned(raw)
            .filter(|&v| v <= u64::from(u32::MAX))
            .map(|v| v as u32)
            .ok_or_else(|| Fail::new(p, format!("invalid raw word: {}", p.s)));
    }
    number::float(p.s)
        .map(f32_to_f24)
        .ok_or_else(|| Fail::new(p, format!("invalid float value: {}", p.s)))
}

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

    fn ints(&mut self, v: &Vector<'_>) -> Result<[u8; 4], Fail> {
        let mut out = [0u8; 4];
        for (slot, p) in out.iter_mut().zip(v.values) {
            let n = number::decimal(p.s)
                .filter(|n| i64::from(i32::MIN) <= *n && *n <= i64::from(i32::MAX))
                .ok_or_else(|| Fail::new(p, format!("invalid integer value: {}", p.s)))?;
            if !(-128..=255).contains(&n) {
                self.warn(
                    p,
                    format!(
                        "{n} does not fit in 8 bits; {} (its value modulo 256) is used",
                        n & 0xFF
                    ),
                );
            }
            *slot = (n & 0xFF) as u8;
        }
        Ok(out)
    }

    fn floats(v: &Vector<'_>) -> Result<[u32; 4], Fail> {
        let mut out = [0u32; 4];
        for (slot, p) in out.iter_mut().zip(v.values) {
            *slot = float_word(p)?;
        }
        Ok(out)
    }

    fn push_constant(&mut self, c: Const, at: Piece<'_>) -> Result<(), Fail> {
        let dvle = self.dvle();
        if dvle.constants.len() >= MAX_ENTRIES {
            return Err(Fail::new(at, "too many local constants"));
        }
        dvle.constants.push(c);
        Ok(())
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

    fn dir_uniform(&mut self, st: Statement<'_>, kind: Kind) -> Result<(), Fail> {
        let space = self.space();
        let shared_space = space == 0;
        let mut args = Args::new(st.rest);
        while let Some(arg) = args.comma() {
            let (name, size) = match arg.split_once('[') {
                (name, Some(inner)) => {
                    let (size, after) = match inner.split_once(']') {
                        (size, Some(after)) => (size.trim(), after.trim()),
                        (_, None) => {
                            return Err(Fail::new(
                                arg,
                                format!("missing closing bracket: {}", arg.s),
                            ))
                        }
                    };
                    if !after.is_empty() {
                        return Err(Fail::new(
                            after,
                            format!("unexpected text after ']': {}", after.s),
                        ));
                    }
                    let n = number::decimal(size.s)
                        .filter(|&n| (1..=96).contains(&n))
                        .ok_or_else(|| {
                            Fail::new(
                                size,
                                format!("invalid uniform size: {}[{}]", name.trim().s, size.s),
                            )
                        })?;
                    (name.trim(), n as u32)
                }
                (name, None) => (name, 1),
            };
            if name.s.is_empty() || !is_identifier(name.s) {
                return Err(Fail::new(name, format!("invalid uniform name: {}", name.s)));
            }
            self.alias_free(name)?;
            self.warn_if_register_like(name);
            let mut code = None;
            if shared_space {
                if let Some(u) = self.shared.iter().find(|u| u.name == name.s) {
                    if u.kind != kind {
                        return Err(Fail::new(
                            name,
                            format!("mismatched uniform type: {}", name.s),
                        ));
                    }
                    if u.size != size {
                        return Err(Fail::new(
                            arg,
                            format!(
                                "uniform '{}' previously declared as having size {}",
                                name.s, u.size
                            ),
                        ));
                    }
                    code = Some(u.code);
                }
                if self.shared.len() >= MAX_ENTRIES {
                    return Err(Fail::new(
                        name,
                        format!("too many global uniforms: {}", name.s),
                    ));
                }
            }
            let code = match code {
                Some(c) => c,
                None => self.pools[space].pool(kind).global(size).ok_or_else(|| {
                    Fail::new(arg, format!("not enough uniform space: {}[{size}]", name.s))
                })?,
            };
            if shared_space {
                self.shared.push(SharedUniform {
                    name: name.s.to_string(),
                    code,
                    size,
                    kind,
                });
            }
            if !name.s.starts_with('_') {
                let dvle = self.dvle();
                if dvle.uniforms.len() >= MAX_ENTRIES {
                    return Err(Fail::new(
                        name,
                        format!("too many referenced uniforms: {}", name.s),
                    ));
                }
                dvle.uniforms.push(DvleUniform {
                    name: name.s.to_string(),
                    code,
                    size,
                });
            }
            self.define_alias(name, Alias::plain(reg_of(code)))?;
        }
        Ok(())
    }

    fn dir_const(&mut self, st: Statement<'_>, kind: Kind) -> Result<(), Fail> {
        let space = self.space();
        let v = vector(&st)?;
        let value = match kind {
            Kind::Float => ConstValue::Float(Self::floats(&v)?),
            Kind::Int | Kind::Bool => ConstValue::Int(self.ints(&v)?),
        };
        self.alias_free(v.name)?;
        if !is_identifier(v.name.s) || v.name.s.is_empty() {
            self.warn(v.name, format!("`{}` is not a valid identifier", v.name.s));
        } else {
            self.warn_if_register_like(v.name);
        }
        let code = self.pools[space].pool(kind).local(1).ok_or_else(|| {
            Fail::new(
                v.name,
                format!("not enough space for local constant '{}'", v.name.s),
            )
        })?;
        self.push_constant(Const { code, value }, st.head)?;
        self.define_alias(v.name, Alias::plain(reg_of(code)))
    }

    fn dir_constfa(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        if let Some(Block::Array { size, elems, .. }) = self.stack.last() {
            if let Some(size) = *size {
                if elems.len() == size as usize {
                    return Err(Fail::new(
                        st.head,
                        format!("too many elements in the array, expected {size}"),
                    ));
                }
            }
            let v = vector(&st)?;
            if !v.name.is_empty() {
                return Err(Fail::new(v.name, "invalid syntax"));
            }
            let words = Self::floats(&v)?;
            if let Some(Block::Array { elems, .. }) = self.stack.last_mut() {
                elems.push(words);
            }
            return Ok(());
        }
        let mut args = Args::new(st.rest);
        let arg = need(&mut args, &st)?;
        no_more(&mut args)?;
        let (name, inner) = match arg.split_once('[') {
            (name, Some(inner)) => (name.trim(), inner),
            (_, None) => {
                return Err(Fail::new(
                    arg,
                    format!("missing opening bracket: {}", arg.s),
                ))
            }
        };
        let (size_text, after) = match inner.split_once(']') {
            (s, Some(after)) => (s.trim(), after.trim()),
            (_, None) => {
                return Err(Fail::new(
                    arg,
                    format!("missing closing bracket: {}", arg.s),
                ))
            }
        };
        if !after.is_empty() {
            return Err(Fail::new(after, format!("garbage found: {}", after.s)));
        }
        let size = if size_text.is_empty() {
            None
        } else {
            let n = number::decimal(size_text.s)
                .filter(|&n| (1..=96).contains(&n))
                .ok_or_else(|| {
                    Fail::new(
                        size_text,
                        format!("invalid array size: {}[{}]", name.s, size_text.s),
                    )
                })?;
            Some(n as u32)
        };
        if !is_identifier(name.s) {
            return Err(Fail::new(name, format!("invalid array name: {}", name.s)));
        }
        let block = Block::Array {
            name: name.s.to_string(),
            size,
            elems: Vec::new(),
            site: self.site(arg),
        };
        self.open(block, st.head)
    }

    /// `.end` of a `.constfa` array: allocation from the top, constants, alias.
    pub(crate) fn end_array(
        &mut self,
        name: String,
        size: Option<u32>,
        mut elems: Vec<[u32; 4]>,
        at: Piece<'_>,
    ) -> Result<(), Fail> {
        let space = self.space();
        if self.file.aliases.contains_key(&name) {
            return Err(Fail::new(at, format!("identifier already used: {name}")));
        }
        if let Some(size) = size {
            elems.resize(size as usize, [0; 4]);
        }
        if elems.is_empty() {
            return Err(Fail::new(
                at,
                format!("no elements have been specified in array '{name}'"),
            ));
        }
        let code = self.pools[space]
            .float
            .local(elems.len() as u32)
            .ok_or_else(|| {
                Fail::new(
                    at,
                    format!("not enough space for local constant array '{name}'"),
                )
            })?;
        let dvle = self.dvle();
        if dvle.constants.len() + elems.len() > MAX_ENTRIES {
            return Err(Fail::new(at, "too many local constants"));
        }
        for (i, e) in elems.into_iter().enumerate() {
            dvle.constants.push(Const {
                code: code + i as u32,
                value: ConstValue::Float(e),
            });
        }
        self.file.aliases.insert(name, Alias::plain(reg_of(code)));
        Ok(())
    }

    fn dir_set(&mut self, st: Statement<'_>, kind: Kind) -> Result<(), Fail> {
        self.dvle();
        let v = vector(&st)?;
        let o = self.operand(v.name)?;
        let value = match kind {
            Kind::Float => {
                if o.reg.class != RegClass::Float {
                    return Err(Fail::new(
                        v.name,
                        format!("invalid floating point vector uniform: {}", v.name.s),
                    ));
                }
                ConstValue::Float(Self::floats(&v)?)
            }
            Kind::Int | Kind::Bool => {
                if o.reg.class != RegClass::Int {
                    return Err(Fail::new(
                        v.name,
                        format!("invalid integer vector uniform: {}", v.name.s),
                    ));
                }
                ConstValue::Int(self.ints(&v)?)
            }
        };
        self.push_constant(
            Const {
                code: o.reg.code(),
                value,
            },
            st.head,
        )
    }

    fn dir_setb(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        self.dvle();
        let mut args = Args::new(st.rest);
        let reg = args
            .word()
            .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
        let value = args
            .word()
            .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
        no_more(&mut args)?;
        let o = self.operand(reg)?;
        if o.reg.class != RegClass::Bool {
            return Err(Fail::new(
                reg,
                format!("invalid boolean uniform: {}", reg.s),
            ));
        }
        let b = match value.s.to_ascii_lowercase().as_str() {
            "true" | "on" | "1" => true,
            "false" | "off" | "0" => false,
            _ => return Err(Fail::new(value, format!("invalid bool value: {}", value.s))),
        };
        self.push_constant(
            Const {
                code: o.reg.code(),
                value: ConstValue::Bool(b),
            },
            st.head,
        )
    }

    fn dir_in(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        self.dvle();
        let mut args = Args::new(st.rest);
        let name = args
            .word()
            .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
        let reg = args.word();
        no_more(&mut args)?;
        if !is_identifier(name.s) {
            return Err(Fail::new(name, format!("invalid identifier: {}", name.s)));
        }
        self.alias_free(name)?;
        self.warn_if_register_like(name);
        let index = match reg {
            Some(r) => {
                let o = self.operand(r)?;
                if o.reg.class != RegClass::Input {
                    return Err(Fail::new(r, format!("invalid input register: {}", r.s)));
                }
                o.reg.index
            }
            None => {
                let mask = self.dvle().input_mask;
                (0..16)
                    .find(|i| mask & (1 << i) == 0)
                    .ok_or_else(|| Fail::new(name, "too many inputs"))?
            }
        };
        let dvle = self.dvle();
        if dvle.uniforms.len() >= MAX_ENTRIES {
            return Err(Fail::new(name, "too many uniforms in DVLE"));
        }
        dvle.input_mask |= 1 << index;
        dvle.uniforms.push(DvleUniform {
            name: name.s.to_string(),
            code: index,
            size: 1,
        });
        self.define_alias(
            name,
            Alias::plain(Reg {
                class: RegClass::Input,
                index,
            }),
        )
    }

    fn dir_out(&mut self, st: Statement<'_>) -> Result<(), Fail> {
        self.dvle();
        let mut args = Args::new(st.rest);
        let name = args
            .word()
            .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
        let ty = args
            .word()
            .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
        let reg = args.word();
        no_more(&mut args)?;
        let name = if name.s == "-" {
            None
        } else if is_identifier(name.s) {
            Some(name)
        } else {
            return Err(Fail::new(name, format!("invalid identifier: {}", name.s)));
        };
        let (explicit, select, ty) = match reg {
            Some(r) => {
                let o = self.operand(r)?;
                if o.reg.class != RegClass::Output {
                    return Err(Fail::new(r, format!("invalid output register: {}", r.s)));
                }
                (Some(o.reg.index), o.select, ty)
            }
            None => match ty.split_once('.') {
                (t, Some(mask)) => {
                    let sel = operand::swizzle(mask.s).ok_or_else(|| {
                        Fail::new(mask, format!("invalid output mask: {}", mask.s))
                    })?;
                    (None, sel, t)
                }
                (t, None) => (None, operand::IDENTITY, t),
            },
        };
        if select.windows(2).any(|w| w[1] < w[0]) {
            self.warn(
                reg.unwrap_or(ty),
                "arbitrary swizzling has no effect for destination mask",
            );
        }
        let mask: u8 = select.iter().fold(0, |m, &s| m | (1 << s));
        let semantic = SEMANTICS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(ty.s))
            .map(|&(_, code)| code)
            .ok_or_else(|| Fail::new(ty, format!("invalid output type: {}", ty.s)))?;
        let dvle = self.dvle();
        let index = match explicit {
            Some(i) => {
                if dvle.output_used & (u64::from(mask) << (4 * i)) != 0 {
                    return Err(Fail::new(
                        reg.unwrap_or(ty),
                        "this output collides with another one previously defined",
                    ));
                }
                Some(i)
            }
            None => (0..dvle.output_limit()).find(|i| dvle.output_mask & (1 << i) == 0),
        };
        let Some(index) = index.filter(|_| dvle.outputs.len() < MAX_OUTPUTS) else {
            return Err(Fail::new(ty, "too many outputs"));
        };
        if let Some(n) = name {
            self.alias_free(n)?;
        }
        if index >= 7 && semantic != DUMMY {
            return Err(Fail::new(
                reg.unwrap_or(ty),
                format!("this register (o{index}) can only be a dummy output"),
            ));
        }
        let dvle = self.dvle();
        dvle.outputs.push((semantic, index as u16, mask));
        dvle.output_mask |= 1 << index;
        dvle.output_used |= u64::from(mask) << (4 * index);
        if semantic == DUMMY && dvle.own_space() {
            dvle.merge = true;
        }
        if let Some(n) = name {
            self.warn_if_register_like(n);
            self.define_alias(
                n,
                Alias::plain(Reg {
                    class: RegClass::Output,
                    index,
                }),
            )?;
        }
        Ok(())
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
        let count = |p: Piece<'_>| {
            number::unambiguous_count(p.s)
                .ok()
                .filter(|&n| n <= 255)
                .map(|n| n as u8)
                .ok_or_else(|| Fail::new(p, format!("invalid vertex count: {} (0..255)", p.s)))
        };
        match code {
            1 => {
                let n = args
                    .word()
                    .ok_or_else(|| Fail::new(st.head, "missing parameter"))?;
                no_more(&mut args)?;
                self.dvle().gs_variable_num = count(n)?;
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
                let n = count(n)?;
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

/// The register of an internal code (c, i or b).
fn reg_of(code: u32) -> Reg {
    let class = match code {
        0x20..=0x7F => RegClass::Float,
        0x80..=0x87 => RegClass::Int,
        _ => RegClass::Bool,
    };
    Reg {
        class,
        index: code - class.code_base(),
    }
}
