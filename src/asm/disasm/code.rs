//! One code word as assembly text, when some text assembles back to exactly that word:
//! operand names from the file's declarations, swizzles and masks from the operand descriptor,
//! flow-control targets as labels, procedures or addresses. Anything else (undefined opcodes,
//! stray unused bits, forms the operand rules cannot produce) is left to a raw `!0x…` word.

use std::collections::HashMap;

use super::decls::Names;
use crate::asm::operand::{RegClass, IDENTITY};
use crate::asm::syntax::{self, care_bits, normal_form, spelling, AluSyntax, Syntax};
use crate::isa::{
    AddrIdx, AluOperands, CmpOp, CondOp, Control, DstKind, Fmt2, Fmt3b, Fmt3i, Instruction, Kind,
    Math, OpDesc, Opcode, Src, SrcKind, SrcMod,
};

/// What the renderer knows about the file the word is written in.
pub(crate) struct Ctx<'a> {
    pub descs: &'a [u32],
    pub names: Option<&'a Names>,
    /// Labels this file defines, by address.
    pub labels: &'a HashMap<u32, String>,
    /// Procedures by (start, length).
    pub procs: &'a HashMap<(u32, u32), String>,
    /// Whether the file is a geometry shader: it names only o0..o6, and only there is
    /// `setemit` written as such (elsewhere it would turn the file into one).
    pub geo: bool,
}

/// How an IF or FOR word is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// As a block opener (`ifu b0`, `for i0`): the target comes from the block.
    Opener,
    /// With an explicit target and count.
    Explicit,
}

/// What an ALU instruction asks of the descriptor table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DescUse {
    pub want: u32,
    pub care: u32,
    pub mad: bool,
    /// The index the word holds.
    pub index: usize,
}

/// A rendered word: the text and, for ALU instructions, the descriptor request.
pub(crate) struct Rendered {
    pub text: String,
    pub desc: Option<DescUse>,
}

const LETTERS: [char; 4] = ['x', 'y', 'z', 'w'];

/// `.xy` style suffix of a swizzle; empty for the identity.
fn swizzle_suffix(select: [u8; 4]) -> String {
    if select == IDENTITY {
        return String::new();
    }
    let mut n = 4;
    while n > 1 && select[n - 1] == select[n - 2] {
        n -= 1;
    }
    let s: String = select[..n]
        .iter()
        .map(|&c| LETTERS[usize::from(c & 3)])
        .collect();
    format!(".{s}")
}

fn mask_suffix(desc: OpDesc) -> String {
    if desc.mask() == 0xF {
        return String::new();
    }
    let s: String = (0..4)
        .filter(|&i| desc.writes(i))
        .map(|i| LETTERS[i])
        .collect();
    format!(".{s}")
}

fn class_of_src(src: Src) -> (RegClass, u32) {
    match src.kind() {
        SrcKind::Input(n) => (RegClass::Input, u32::from(n)),
        SrcKind::Temp(n) => (RegClass::Temp, u32::from(n)),
        SrcKind::Uniform(n) => (RegClass::Float, u32::from(n)),
    }
}

impl Ctx<'_> {
    /// A register, with an index register for the wide slot.
    fn register(&self, class: RegClass, index: u32, idx: AddrIdx) -> String {
        let idx_name = match idx {
            AddrIdx::None => None,
            AddrIdx::A0x => Some("a0.x"),
            AddrIdx::A0y => Some("a0.y"),
            AddrIdx::AL => Some("aL"),
        };
        let named = self.names.and_then(|n| n.lookup(class, index));
        match (named, idx_name) {
            (Some(n), None) if n.size == 1 => n.name.clone(),
            (Some(n), None) => format!("{}[{}]", n.name, index - n.first),
            (Some(n), Some(i)) if index == n.first => format!("{}[{i}]", n.name),
            (Some(n), Some(i)) => format!("{}[{i}+{}]", n.name, index - n.first),
            (None, None) => format!("{}{index}", class.letter()),
            (None, Some(i)) => format!("{}{index}[{i}]", class.letter()),
        }
    }

    fn source(&self, src: Src, m: SrcMod, idx: AddrIdx) -> String {
        let (class, index) = class_of_src(src);
        format!(
            "{}{}{}",
            if m.negate { "-" } else { "" },
            self.register(class, index, idx),
            swizzle_suffix(m.select)
        )
    }

    fn target(&self, addr: u32) -> String {
        match self.labels.get(&addr) {
            Some(l) => l.clone(),
            None => format!("{addr:#05x}"),
        }
    }

    /// A procedure call target: `name` or `target, num`.
    fn call_target(&self, dest: u32, num: u32) -> String {
        match self.procs.get(&(dest, num)) {
            Some(p) => p.clone(),
            None => format!("{}, {num}", self.target(dest)),
        }
    }
}

fn condition(f: &Fmt2) -> Option<String> {
    let term = |r: bool, n: &str| format!("{}cmp.{n}", if r { "" } else { "!" });
    Some(match f.condop {
        CondOp::X if f.refy => term(f.refx, "x"),
        CondOp::Y if f.refx => term(f.refy, "y"),
        CondOp::X | CondOp::Y => return None,
        CondOp::And => format!("{} && {}", term(f.refx, "x"), term(f.refy, "y")),
        CondOp::Or => format!("{} || {}", term(f.refx, "x"), term(f.refy, "y")),
    })
}

fn cmp_name(op: CmpOp) -> Option<&'static str> {
    Some(match op {
        CmpOp::Eq => "eq",
        CmpOp::Ne => "ne",
        CmpOp::Lt => "lt",
        CmpOp::Le => "le",
        CmpOp::Gt => "gt",
        CmpOp::Ge => "ge",
        CmpOp::True6 | CmpOp::True7 => return None,
    })
}

/// Renders `word`; `None` when only a raw word reproduces it.
pub(crate) fn render(word: u32, ctx: &Ctx<'_>, role: Role) -> Option<Rendered> {
    if Instruction::unused_bits(word) != 0 {
        return None;
    }
    let instr = Instruction::decode(word);
    let op = instr.opcode();
    let name = spelling(op);
    let text = match instr.kind() {
        Kind::Alu(math, alu) => {
            let cmp = if let Math::Cmp(x, y) = math {
                Some((cmp_name(x)?, cmp_name(y)?))
            } else {
                None
            };
            return render_alu(op, &alu, cmp, ctx);
        }
        Kind::Control(Control::Break) | Kind::Nop | Kind::Control(Control::End) | Kind::Emit => {
            name.to_string()
        }
        Kind::Control(Control::Breakc(f)) => {
            let c = condition(&f)?;
            if f.dest == 0 && f.num == 0 {
                format!("breakc {c}")
            } else {
                format!("breakc {c}, {}, {}", ctx.target(u32::from(f.dest)), f.num)
            }
        }
        Kind::Control(Control::Call(f)) => {
            if f.refx || f.refy || f.condop != CondOp::Or {
                return None;
            }
            format!(
                "call {}",
                ctx.call_target(u32::from(f.dest), u32::from(f.num))
            )
        }
        Kind::Control(Control::Callc(f)) => format!(
            "callc {}, {}",
            condition(&f)?,
            ctx.call_target(u32::from(f.dest), u32::from(f.num))
        ),
        Kind::Control(Control::Ifc(f)) => match role {
            Role::Opener => format!("ifc {}", condition(&f)?),
            Role::Explicit => format!(
                "ifc {}, {}, {}",
                condition(&f)?,
                ctx.target(u32::from(f.dest)),
                f.num
            ),
        },
        Kind::Control(Control::Jmpc(f)) => {
            let mut t = format!("jmpc {}, {}", condition(&f)?, ctx.target(u32::from(f.dest)));
            if f.num != 0 {
                t += &format!(", {}", f.num);
            }
            t
        }
        Kind::Control(Control::Callu(Fmt3b { id, dest, num })) => format!(
            "callu {}, {}",
            ctx.register(RegClass::Bool, u32::from(id), AddrIdx::None),
            ctx.call_target(u32::from(dest), u32::from(num))
        ),
        Kind::Control(Control::Ifu(Fmt3b { id, dest, num })) => {
            let b = ctx.register(RegClass::Bool, u32::from(id), AddrIdx::None);
            match role {
                Role::Opener => format!("ifu {b}"),
                Role::Explicit => format!("ifu {b}, {}, {num}", ctx.target(u32::from(dest))),
            }
        }
        Kind::Control(Control::Jmpu(Fmt3b { id, dest, num })) => {
            let mut t = format!(
                "jmpu {}{}, {}",
                if num & 1 != 0 { "!" } else { "" },
                ctx.register(RegClass::Bool, u32::from(id), AddrIdx::None),
                ctx.target(u32::from(dest))
            );
            if num & !1 != 0 {
                t += &format!(", {}", num & !1);
            }
            t
        }
        Kind::Control(Control::Loop(Fmt3i { id, dest, num })) => {
            let i = ctx.register(RegClass::Int, u32::from(id), AddrIdx::None);
            match role {
                Role::Opener => format!("{name} {i}"),
                Role::Explicit if num == 0 => {
                    format!("{name} {i}, {}", ctx.target(u32::from(dest)))
                }
                Role::Explicit => format!("{name} {i}, {}, {num}", ctx.target(u32::from(dest))),
            }
        }
        Kind::Setemit(f) => {
            if f.vertex > 2 || !ctx.geo {
                return None;
            }
            let mut flags = Vec::new();
            if f.primitive {
                flags.push("prim");
            }
            if f.winding {
                flags.push("inv");
            }
            if flags.is_empty() {
                format!("setemit {}", f.vertex)
            } else {
                format!("setemit {}, {}", f.vertex, flags.join(" "))
            }
        }
        Kind::Undefined(_) => return None,
    };
    Some(Rendered { text, desc: None })
}

/// Is `op` the form the assembler picks for these operand classes?
fn form_matches(op: Opcode, alu: &AluOperands) -> bool {
    let narrow = |s: Src| s.0 < 0x20;
    let is_mad = |op| matches!(syntax::syntax(op), Syntax::Alu(AluSyntax::Mad { .. }));
    match syntax::syntax(op) {
        // Normal two-source forms: src2 is a narrow slot, so the inverted form is never chosen.
        // MAD: src3 is narrow and carries no index register, so MADI is never chosen.
        Syntax::Alu(_) => true,
        // DPHI & co.: chosen only when src2 is a float uniform (src1 is narrow by format).
        Syntax::InvertedOf(normal) if !is_mad(normal) => !narrow(alu.src[1]),
        // MADI: chosen when src3 is a float uniform (an index register needs one anyway).
        Syntax::InvertedOf(_) => !narrow(alu.src[2]),
        Syntax::NoOperands | Syntax::Flow(_) | Syntax::SetEmit | Syntax::RawOnly => false,
    }
}

fn render_alu(
    op: Opcode,
    alu: &AluOperands,
    cmp: Option<(&str, &str)>,
    ctx: &Ctx<'_>,
) -> Option<Rendered> {
    let entry = OpDesc(*ctx.descs.get(usize::from(alu.desc))?);
    if !form_matches(op, alu) {
        return None;
    }
    // The index register only means something on a float uniform in the wide slot.
    if alu.idx != AddrIdx::None && alu.src[alu.wide].0 < 0x20 {
        return None;
    }
    // Two different input registers are refused by the assembler.
    let inputs: Vec<u8> = alu.src[..alu.num_src]
        .iter()
        .filter(|s| s.0 < 0x10)
        .map(|s| s.0)
        .collect();
    if inputs.iter().any(|&v| v != inputs[0]) {
        return None;
    }
    let normal = normal_form(op);
    // `normal_form` never gives an inverted opcode; the others have no ALU operands.
    let Syntax::Alu(syn) = syntax::syntax(normal) else {
        return None;
    };
    let mask = entry.mask();
    let mut parts = Vec::new();
    match syn {
        AluSyntax::Mova => {
            if alu.dst.0 != 0 {
                return None;
            }
            parts.push(
                match mask {
                    0b1000 => "a0.x",
                    0b0100 => "a0.y",
                    0b1100 => "a0.xy",
                    _ => return None,
                }
                .to_string(),
            );
        }
        AluSyntax::Cmp => {}
        AluSyntax::TwoSources { .. } | AluSyntax::OneSource | AluSyntax::Mad { .. } => {
            if mask == 0 {
                return None;
            }
            let (class, index) = match alu.dst.kind() {
                DstKind::Output(n) => (RegClass::Output, u32::from(n)),
                DstKind::Temp(n) => (RegClass::Temp, u32::from(n)),
            };
            if class == RegClass::Output && ctx.geo && index >= 7 {
                return None;
            }
            parts.push(format!(
                "{}{}",
                ctx.register(class, index, AddrIdx::None),
                mask_suffix(entry)
            ));
        }
    }
    let srcs = entry.srcs();
    for (n, (&src, &m)) in alu.src.iter().zip(&srcs).take(alu.num_src).enumerate() {
        let idx = if n == alu.wide {
            alu.idx
        } else {
            AddrIdx::None
        };
        parts.push(ctx.source(src, m, idx));
    }
    if syn == AluSyntax::Cmp {
        let (x, y) = cmp?;
        parts.insert(1, x.to_string());
        parts.insert(2, y.to_string());
    }
    let cmask = if syn == AluSyntax::Cmp { 0 } else { mask };
    let mut want_srcs = [SrcMod {
        negate: false,
        select: [0; 4],
    }; 3];
    want_srcs[..alu.num_src].copy_from_slice(&srcs[..alu.num_src]);
    let want = OpDesc::new(cmask, want_srcs).0;
    let care = care_bits(normal, mask);
    Some(Rendered {
        text: format!("{} {}", spelling(normal), parts.join(", ")),
        desc: Some(DescUse {
            want,
            care,
            mad: matches!(syn, AluSyntax::Mad { .. }),
            index: usize::from(alu.desc),
        }),
    })
}
