//! Arithmetic instructions: operand fetch with swizzle and negation,
//! the per-opcode math through [`crate::float`], and masked writes.

use crate::float;
use crate::isa::{AluOperands, CmpOp, DstKind, Math, OpDesc};
use crate::program::Vec4;

use super::state::Machine;

fn compare(op: CmpOp, a: f32, b: f32) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
        CmpOp::True6 | CmpOp::True7 => true,
    }
}

/// `((+0.0 + p0) + p1) + …` over the first `n` components, strictly left to right.
fn dot(a: &Vec4, b: &Vec4, n: usize) -> f32 {
    let mut sum = 0.0f32;
    for i in 0..n {
        sum += float::pmul(a[i], b[i]);
    }
    sum
}

fn lanes(f: impl Fn(usize) -> f32) -> Vec4 {
    [f(0), f(1), f(2), f(3)]
}

impl Machine<'_> {
    /// Executes one ALU instruction.
    pub(super) fn alu(&mut self, op: Math, ops: &AluOperands) {
        let desc = self.desc(ops.desc);
        let mut src = [[0.0f32; 4]; 3];
        for (n, s) in src.iter_mut().enumerate().take(ops.num_src) {
            let idx = if n == ops.wide {
                ops.idx
            } else {
                crate::isa::AddrIdx::None
            };
            *s = desc.src(n).apply(self.read(ops.src[n], idx));
        }
        let [a, b, c] = src;
        let result: Vec4 = match op {
            Math::Add => lanes(|i| a[i] + b[i]),
            Math::Dp3 => [dot(&a, &b, 3); 4],
            Math::Dp4 => [dot(&a, &b, 4); 4],
            Math::Dph => [dot(&[a[0], a[1], a[2], 1.0], &b, 4); 4],
            Math::Dst => [1.0, float::pmul(a[1], b[1]), a[2], b[3]],
            Math::Ex2 => [float::ex2(a[0]); 4],
            Math::Lg2 => [float::lg2(a[0]); 4],
            Math::Litp => {
                self.cc = [a[0] >= 0.0, a[3] >= 0.0];
                [
                    float::litp_pos(a[0]),
                    float::litp_clamp(a[1]),
                    0.0,
                    float::litp_pos(a[3]),
                ]
            }
            Math::Mul => lanes(|i| float::pmul(a[i], b[i])),
            Math::Sge => lanes(|i| if a[i] >= b[i] { 1.0 } else { 0.0 }),
            Math::Slt => lanes(|i| if a[i] < b[i] { 1.0 } else { 0.0 }),
            Math::Flr => lanes(|i| float::flr(a[i])),
            Math::Max => lanes(|i| float::max(a[i], b[i])),
            Math::Min => lanes(|i| float::min(a[i], b[i])),
            Math::Rcp => [float::rcp(a[0]); 4],
            Math::Rsq => [float::rsq(a[0]); 4],
            Math::Mov => a,
            Math::Mad => lanes(|i| float::pmul(a[i], b[i]) + c[i]),
            Math::Mova => {
                for (i, (reg, value)) in self.a0.iter_mut().zip(a).enumerate() {
                    if desc.writes(i) {
                        *reg = float::mova_trunc(value);
                    }
                }
                return;
            }
            Math::Cmp(x, y) => {
                self.cc = [compare(x, a[0], b[0]), compare(y, a[1], b[1])];
                return;
            }
        };
        self.write(ops, desc, result);
    }

    fn write(&mut self, ops: &AluOperands, desc: OpDesc, value: Vec4) {
        let bank = self.bank;
        let reg = match ops.dst.kind() {
            DstKind::Output(n) => &mut self.o[bank][n as usize],
            DstKind::Temp(n) => &mut self.r[n as usize],
        };
        for (i, (dst, v)) in reg.iter_mut().zip(value).enumerate() {
            if desc.writes(i) {
                *dst = v;
            }
        }
    }
}
