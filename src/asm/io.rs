//! Inputs and outputs: `.in name [vN]` (an input register, its alias, its bit in the input
//! mask and its uniform-table entry) and `.out name|- semantic[.mask] [oN[.mask]]` (an output
//! register wired to a semantic, collision checks per component, the merge flag of geometry
//! shaders with their own uniform space).

use super::emit::no_more;
use super::operand::{self, Alias, Fail, Reg, RegClass};
use super::state::{Asm, DvleUniform};
use super::text::{is_identifier, Args, Statement};
use super::uniform::MAX_ENTRIES;

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

impl Asm {
    pub(crate) fn dir_in(&mut self, st: Statement<'_>) -> Result<(), Fail> {
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
                self.plain_register(r, &o, false)?;
                match o.reg.class {
                    RegClass::Input => {}
                    // picasso checks the register code, which outputs share with inputs.
                    RegClass::Output => self.picasso_reads(Fail::new(
                        r,
                        format!(
                            "invalid input register: {}: picasso reads it as the input register \
                             with the same code, v{i}; write `v{i}`",
                            r.s,
                            i = o.reg.index
                        ),
                    ))?,
                    RegClass::Temp | RegClass::Float | RegClass::Int | RegClass::Bool => {
                        return Err(Fail::new(r, format!("invalid input register: {}", r.s)))
                    }
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

    pub(crate) fn dir_out(&mut self, st: Statement<'_>) -> Result<(), Fail> {
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
                match o.reg.class {
                    RegClass::Output => {}
                    // picasso checks the register code, which inputs share with outputs.
                    RegClass::Input if o.reg.index < self.dvle().output_limit() => self
                        .picasso_reads(Fail::new(
                            r,
                            format!(
                                "invalid output register: {}: picasso reads it as the output \
                                 register with the same code, o{i}; write `o{i}`",
                                r.s,
                                i = o.reg.index
                            ),
                        ))?,
                    RegClass::Input
                    | RegClass::Temp
                    | RegClass::Float
                    | RegClass::Int
                    | RegClass::Bool => {
                        return Err(Fail::new(r, format!("invalid output register: {}", r.s)))
                    }
                }
                (Some(o.reg.index), o.select, ty)
            }
            None => match ty.split_once('.') {
                (t, Some(mask)) if mask.is_empty() => {
                    let whole = ty.to(t.s.len() + 1);
                    self.picasso_reads(Fail::new(
                        whole,
                        format!(
                            "empty output mask: picasso reads `{}` as `{}x` (the x component \
                             only); write `{}x`, or leave the `.` out for all four components",
                            whole.s, whole.s, whole.s
                        ),
                    ))?;
                    (None, [0; 4], t)
                }
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
}
