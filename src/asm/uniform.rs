//! Uniform and constant directives: `.fvec`, `.ivec`, `.bool` (upward allocation, the shared
//! vertex uniform table, the DVLE uniform table), `.constf`, `.consti`, `.constfa` (downward
//! allocation, constant-table entries), `.setf`, `.seti`, `.setb` (constant-table entries for
//! explicit registers), and their value syntax: `(x, y, z, w)` with float literals (decimal or
//! hex, converted to float24 by picasso's truncating rule, or `!word` for a raw table word) or
//! integers (taken modulo 256).

use super::alloc::Kind;
use super::emit::{need, no_more};
use super::number;
use super::operand::{Alias, Fail, Reg, RegClass};
use super::state::{Asm, Block, Const, ConstValue, DvleUniform, SharedUniform};
use super::text::{is_identifier, Args, Piece, Statement};
use crate::float::f32_to_f24;

/// Most entries of a DVLE's uniform table, constant table and of the shared uniform table.
pub(crate) const MAX_ENTRIES: usize = 96;

/// A `(x, y, z, w)` group: the text before `(` and the four values.
struct Vector<'a> {
    name: Piece<'a>,
    values: [Piece<'a>; 4],
    /// The text of the fourth value when it holds a comma (picasso reads up to the comma).
    extra: Option<Piece<'a>>,
    /// Text after `)`.
    after: Piece<'a>,
}

/// Cuts a vector the way picasso does: the name up to `(`, three values up to a comma each,
/// the fourth up to the first `)`. What follows `)`, and a fifth value (`atof` stops at the
/// comma), picasso ignores; they are the pieces `after` and `extra`, checked by the caller.
fn vector<'a>(st: &Statement<'a>) -> Result<Vector<'a>, Fail> {
    let missing = || Fail::new(st.head, "missing parameter");
    let (name, inner) = match st.rest.split_once('(') {
        (name, Some(inner)) => (name.trim(), inner),
        (_, None) => return Err(missing()),
    };
    let mut args = Args::new(inner);
    let mut values = [Piece::new("", inner.end()); 4];
    for v in values.iter_mut().take(3) {
        *v = args.comma().ok_or_else(missing)?;
    }
    let (last, after) = match args.rest().split_once(')') {
        (last, Some(after)) => (last.trim(), after.trim()),
        (_, None) => return Err(Fail::new(st.rest, "invalid syntax")),
    };
    let (last, extra) = match last.split_once(',') {
        (first, Some(_)) => (first.trim(), Some(last)),
        (_, None) => (last, None),
    };
    values[3] = last;
    Ok(Vector {
        name,
        values,
        extra,
        after,
    })
}

/// The value of `a op b` (one of `+ - * /` between two plain numbers), which picasso's
/// `atoi`/`atof` would cut at the operator: what such text seems to mean.
fn arithmetic(s: &str) -> Option<f64> {
    let at = s
        .char_indices()
        .skip(1)
        .find(|&(i, c)| "+-*/".contains(c) && !s[..i].ends_with(['e', 'E']))?
        .0;
    let (a, b) = (s[..at].trim(), s[at + 1..].trim());
    let (a, b) = (number::float(a)?, number::float(b)?);
    let (a, b) = (f64::from(a), f64::from(b));
    Some(match &s[at..at + 1] {
        "+" => a + b,
        "-" => a - b,
        "*" => a * b,
        _ => a / b,
    })
}

/// "…, or `64` if the product was meant" for text that is simple arithmetic.
fn meant(s: &str, integer: bool) -> String {
    match arithmetic(s) {
        Some(v) if integer && v.fract() == 0.0 && v.abs() < 1e15 => {
            format!(", or `{v}` if the value of `{s}` was meant (no arithmetic is done)")
        }
        Some(v) if !integer && v.is_finite() => format!(
            ", or `{}` if the value of `{s}` was meant (no arithmetic is done)",
            v as f32
        ),
        Some(_) | None => String::new(),
    }
}

impl Asm {
    /// A vector's text that picasso ignores: a fifth value, text after `)`.
    fn vector_tail(&mut self, v: &Vector<'_>) -> Result<(), Fail> {
        if let Some(full) = v.extra {
            let ignored = full.from(full.s.find(',').unwrap_or(full.s.len()));
            self.picasso_reads(Fail::new(
                ignored,
                format!(
                    "too many parameters: picasso reads four components and ignores `{}` after \
                     the fourth; remove it",
                    ignored.s
                ),
            ))?;
        }
        if !v.after.is_empty() {
            self.picasso_reads(Fail::new(
                v.after,
                format!(
                    "unexpected text after ')': picasso ignores `{}`; remove it",
                    v.after.s
                ),
            ))?;
        }
        Ok(())
    }

    /// A float constant component: a float literal (converted to float24 by picasso's
    /// truncating rule), or `!word` (extension: the 32-bit table word exactly). Other text is
    /// what C's `atof` reads from it, as picasso writes it, with a warning.
    fn float_word(&mut self, p: Piece<'_>) -> Result<u32, Fail> {
        if let Some(raw) = p.s.strip_prefix('!') {
            return number::unsigned(raw)
                .filter(|&v| v <= u64::from(u32::MAX))
                .map(|v| v as u32)
                .ok_or_else(|| Fail::new(p, format!("invalid raw word: {}", p.s)));
        }
        if let Some(v) = number::float(p.s) {
            return Ok(f32_to_f24(v));
        }
        let read = number::atof(p.s);
        self.picasso_reads(Fail::new(
            p,
            format!(
                "invalid float value: picasso reads `{}` as {read} (C `atof` stops at the first \
                 character that is not part of a number); write `{read}`{}",
                p.s,
                meant(p.s, false)
            ),
        ))?;
        Ok(f32_to_f24(read))
    }

    /// A decimal size (`name[N]`), read the way picasso's `atoi` reads it when it is not a
    /// plain number; `what` names the directive's thing ("uniform", "array").
    fn size(&mut self, name: &str, size: Piece<'_>, what: &str) -> Result<u32, Fail> {
        let invalid = || Fail::new(size, format!("invalid {what} size: {name}[{}]", size.s));
        if let Some(n) = number::decimal(size.s) {
            return u32::try_from(n)
                .ok()
                .filter(|n| (1..=96).contains(n))
                .ok_or_else(invalid);
        }
        let read = number::atoi(size.s);
        if !(1..=96).contains(&read) {
            return Err(invalid());
        }
        self.picasso_reads(Fail::new(
            size,
            format!(
                "picasso reads the size `{}` as {read} (C `atoi` stops at the first character \
                 that is not a digit); write `[{read}]`{}",
                size.s,
                meant(size.s, true)
                    .replace("or `", "or `[")
                    .replace("` if", "]` if")
            ),
        ))?;
        Ok(read as u32)
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

impl Asm {
    fn ints(&mut self, v: &Vector<'_>) -> Result<[u8; 4], Fail> {
        let mut out = [0u8; 4];
        for (slot, p) in out.iter_mut().zip(v.values) {
            let n = match number::decimal(p.s) {
                Some(n) if i64::from(i32::MIN) <= n && n <= i64::from(i32::MAX) => n,
                Some(_) => return Err(Fail::new(p, format!("invalid integer value: {}", p.s))),
                None => {
                    let read = number::atoi(p.s);
                    let hex = number::unsigned(p.s)
                        .map(|v| format!(", or `{v}` if the hex value was meant"))
                        .unwrap_or_default();
                    self.picasso_reads(Fail::new(
                        p,
                        format!(
                            "invalid integer value: picasso reads `{}` as {read} (C `atoi` \
                             reads decimal digits only); write `{read}`{hex}",
                            p.s
                        ),
                    ))?;
                    i64::from(read)
                }
            };
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

    fn floats(&mut self, v: &Vector<'_>) -> Result<[u32; 4], Fail> {
        let mut out = [0u32; 4];
        for (slot, p) in out.iter_mut().zip(v.values) {
            *slot = self.float_word(p)?;
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

    pub(crate) fn dir_uniform(&mut self, st: Statement<'_>, kind: Kind) -> Result<(), Fail> {
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
                    let n = self.size(name.trim().s, size, "uniform")?;
                    if !after.is_empty() {
                        self.picasso_reads(Fail::new(
                            after,
                            format!(
                                "unexpected text after ']': picasso ignores `{}`; remove it",
                                after.s
                            ),
                        ))?;
                    }
                    (name.trim(), n)
                }
                (name, None) => (name, 1),
            };
            if !is_identifier(name.s) {
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
            if name.is_empty() {
                // picasso's identifier check passes the empty name.
                let reg = reg_of(code);
                self.picasso_reads(Fail::new(
                    arg,
                    format!(
                        "invalid uniform name: (empty): picasso declares a uniform with an empty \
                         name here, which takes {reg} and an entry in the DVLE's uniform table; \
                         remove the extra comma, or name the uniform"
                    ),
                ))?;
            }
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

    pub(crate) fn dir_const(&mut self, st: Statement<'_>, kind: Kind) -> Result<(), Fail> {
        let space = self.space();
        let v = vector(&st)?;
        self.vector_tail(&v)?;
        let value = match kind {
            Kind::Float => ConstValue::Float(self.floats(&v)?),
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

    pub(crate) fn dir_constfa(&mut self, st: Statement<'_>) -> Result<(), Fail> {
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
            self.vector_tail(&v)?;
            let words = self.floats(&v)?;
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
            Some(self.size(name.s, size_text, "array")?)
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

    pub(crate) fn dir_set(&mut self, st: Statement<'_>, kind: Kind) -> Result<(), Fail> {
        self.dvle();
        let v = vector(&st)?;
        self.vector_tail(&v)?;
        let o = self.operand(v.name)?;
        self.plain_register(v.name, &o, false)?;
        let value = match kind {
            Kind::Float => {
                if o.reg.class != RegClass::Float {
                    return Err(Fail::new(
                        v.name,
                        format!("invalid floating point vector uniform: {}", v.name.s),
                    ));
                }
                ConstValue::Float(self.floats(&v)?)
            }
            Kind::Int | Kind::Bool => {
                // picasso reads i4..i7 but takes only i0..i3 here.
                if o.reg.class != RegClass::Int || o.reg.index >= RegClass::Int.count() {
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

    pub(crate) fn dir_setb(&mut self, st: Statement<'_>) -> Result<(), Fail> {
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
        self.plain_register(reg, &o, false)?;
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
}
