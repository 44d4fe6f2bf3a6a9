//! Vector and opmask instructions: SSE/SSE4.1 (two-operand, the destination's bits above 127
//! kept), AVX/AVX2 (VEX: bits above the vector length zeroed) and AVX-512 (EVEX: opmask
//! merging or zeroing per element, `{1toN}` broadcast), floating point by `fp`'s rules.

use iced_x86::{EncodingKind, Instruction, Mnemonic, OpKind, Register};

use super::fp;
use super::{EmuError, Machine};

type V = [u8; 64];

fn u32s(v: &V) -> [u32; 16] {
    std::array::from_fn(|i| {
        u32::from_le_bytes([v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]])
    })
}

fn from_u32s(a: &[u32; 16]) -> V {
    let mut v = [0u8; 64];
    for (c, x) in v.chunks_exact_mut(4).zip(a) {
        c.copy_from_slice(&x.to_le_bytes());
    }
    v
}

fn u64s(v: &V) -> [u64; 8] {
    std::array::from_fn(|i| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&v[8 * i..8 * i + 8]);
        u64::from_le_bytes(b)
    })
}

fn from_u64s(a: &[u64; 8]) -> V {
    let mut v = [0u8; 64];
    for (c, x) in v.chunks_exact_mut(8).zip(a) {
        c.copy_from_slice(&x.to_le_bytes());
    }
    v
}

fn map32(a: &V, b: &V, f: impl Fn(u32, u32) -> u32) -> V {
    let (a, b) = (u32s(a), u32s(b));
    from_u32s(&std::array::from_fn(|i| f(a[i], b[i])))
}

fn map64(a: &V, b: &V, f: impl Fn(u64, u64) -> u64) -> V {
    let (a, b) = (u64s(a), u64s(b));
    from_u64s(&std::array::from_fn(|i| f(a[i], b[i])))
}

fn ones(c: bool) -> u32 {
    if c {
        u32::MAX
    } else {
        0
    }
}

fn ones64(c: bool) -> u64 {
    if c {
        u64::MAX
    } else {
        0
    }
}

/// Per 128-bit lane, 32-bit elements: `f(lane_base, element)` picks a source element index.
fn shuffle32(len: usize, f: impl Fn(usize, usize) -> u32) -> [u32; 16] {
    let mut out = [0u32; 16];
    for (i, o) in out.iter_mut().enumerate().take(len / 4) {
        *o = f(i / 4 * 4, i % 4);
    }
    out
}

impl Machine {
    fn legacy(ins: &Instruction) -> bool {
        ins.encoding() == EncodingKind::Legacy
    }

    /// Operand `i` as a vector: a register whole, memory of the instruction's size, or one
    /// broadcast element repeated over `len` bytes.
    fn vsrc(&self, ins: &Instruction, i: u32, len: usize) -> Result<V, EmuError> {
        match ins.op_kind(i) {
            OpKind::Register => {
                let r = ins.op_register(i);
                if r.is_vector_register() {
                    Ok(self.vec[r.number()])
                } else {
                    Err(self.unsupported(ins))
                }
            }
            OpKind::Memory => {
                let mut v = [0u8; 64];
                let addr = self.address(ins);
                if ins.is_broadcast() {
                    let e = ins.memory_size().element_size();
                    let mut b = [0u8; 8];
                    self.read(ins.ip(), addr, &mut b[..e])?;
                    for c in v[..len].chunks_exact_mut(e) {
                        c.copy_from_slice(&b[..e]);
                    }
                } else {
                    let n = ins.memory_size().size();
                    self.read(ins.ip(), addr, &mut v[..n])?;
                }
                Ok(v)
            }
            _ => Err(self.unsupported(ins)),
        }
    }

    /// Bytes of operand `i` (register size, or memory size).
    fn vlen(&self, ins: &Instruction, i: u32) -> Result<usize, EmuError> {
        match ins.op_kind(i) {
            OpKind::Register => Ok(ins.op_register(i).size()),
            OpKind::Memory => Ok(ins.memory_size().size()),
            _ => Err(self.unsupported(ins)),
        }
    }

    /// The opmask of an EVEX instruction: all ones without one.
    fn opmask(&self, ins: &Instruction) -> u64 {
        match ins.op_mask() {
            Register::None => u64::MAX,
            k => self.k[k.number()],
        }
    }

    /// Writes `value` (`len` bytes, elements of `elem` bytes for masking) to operand 0 with the
    /// encoding's rules.
    fn vout(
        &mut self,
        ins: &Instruction,
        value: &V,
        len: usize,
        elem: usize,
    ) -> Result<(), EmuError> {
        let evex = ins.encoding() == EncodingKind::EVEX;
        let mask = if evex { self.opmask(ins) } else { u64::MAX };
        match ins.op_kind(0) {
            OpKind::Register => {
                let r = ins.op_register(0);
                if !r.is_vector_register() {
                    return Err(self.unsupported(ins));
                }
                let n = r.number();
                let old = self.vec[n];
                let mut new = if Self::legacy(ins) { old } else { [0u8; 64] };
                for e in 0..len / elem {
                    let span = e * elem..(e + 1) * elem;
                    if mask >> e & 1 != 0 {
                        new[span.clone()].copy_from_slice(&value[span]);
                    } else if !ins.zeroing_masking() {
                        new[span.clone()].copy_from_slice(&old[span]);
                    }
                }
                self.vec[n] = new;
                Ok(())
            }
            OpKind::Memory => {
                let addr = self.address(ins);
                if mask == u64::MAX {
                    return self.write(ins.ip(), addr, &value[..len]);
                }
                for e in (0..len / elem).filter(|e| mask >> e & 1 != 0) {
                    let at = addr + (e * elem) as u64;
                    self.write(ins.ip(), at, &value[e * elem..(e + 1) * elem])?;
                }
                Ok(())
            }
            _ => Err(self.unsupported(ins)),
        }
    }

    /// The two sources of a lane-wise operation: (dst, op1) in the two-operand SSE form,
    /// (op1, op2) otherwise.
    fn two(&self, ins: &Instruction, len: usize) -> Result<(V, V), EmuError> {
        if Self::legacy(ins) {
            Ok((self.vsrc(ins, 0, len)?, self.vsrc(ins, 1, len)?))
        } else {
            Ok((self.vsrc(ins, 1, len)?, self.vsrc(ins, 2, len)?))
        }
    }

    /// The last operand as an 8-bit immediate.
    fn imm8(&self, ins: &Instruction) -> Result<u8, EmuError> {
        let last = ins.op_count() - 1;
        if ins.op_kind(last) == OpKind::Immediate8 {
            Ok(ins.immediate8())
        } else {
            Err(self.unsupported(ins))
        }
    }

    /// Writes opmask register operand 0 with `bits` for `n` elements (masked by the
    /// instruction's opmask, bits above `n` cleared).
    fn kout(&mut self, ins: &Instruction, bits: u64, n: usize) -> Result<(), EmuError> {
        let r = ins.op_register(0);
        if ins.op_kind(0) != OpKind::Register || !r.is_k() {
            return Err(self.unsupported(ins));
        }
        let keep = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        self.k[r.number()] = bits & self.opmask(ins) & keep;
        Ok(())
    }

    /// A lane-wise result: into a vector destination, or (EVEX compares) an opmask.
    fn lanes32_out(
        &mut self,
        ins: &Instruction,
        bools: impl Fn(usize) -> bool,
        len: usize,
    ) -> Result<(), EmuError> {
        if ins.op_register(0).is_k() {
            let bits = (0..len / 4).fold(0u64, |acc, i| acc | u64::from(bools(i)) << i);
            self.kout(ins, bits, len / 4)
        } else {
            let v = from_u32s(&std::array::from_fn(|i| ones(i < len / 4 && bools(i))));
            self.vout(ins, &v, len, 4)
        }
    }

    /// The vector length of the instruction: its widest vector register operand (memory
    /// operands take the length of the registers beside them).
    fn width(&self, ins: &Instruction) -> usize {
        (0..ins.op_count())
            .filter(|&i| {
                ins.op_kind(i) == OpKind::Register && ins.op_register(i).is_vector_register()
            })
            .map(|i| ins.op_register(i).size())
            .max()
            .unwrap_or(16)
    }

    fn k_operand(&self, ins: &Instruction, i: u32) -> Result<u64, EmuError> {
        match ins.op_kind(i) {
            OpKind::Register if ins.op_register(i).is_k() => {
                Ok(self.k[ins.op_register(i).number()])
            }
            OpKind::Register if ins.op_register(i).is_gpr32() => {
                Ok(self.gpr[ins.op_register(i).full_register().number()] & 0xFFFF_FFFF)
            }
            OpKind::Memory => {
                let n = ins.memory_size().size();
                let mut b = [0u8; 8];
                self.read(ins.ip(), self.address(ins), &mut b[..n])?;
                Ok(u64::from_le_bytes(b))
            }
            _ => Err(self.unsupported(ins)),
        }
    }

    fn exec_k(&mut self, ins: &Instruction, bits: usize) -> Result<(), EmuError> {
        use Mnemonic as M;
        let keep = (1u64 << bits) - 1;
        let dst_k = |m: &mut Machine, v: u64| -> Result<(), EmuError> {
            let r = ins.op_register(0);
            if ins.op_kind(0) == OpKind::Register && r.is_k() {
                m.k[r.number()] = v & keep;
                Ok(())
            } else {
                Err(m.unsupported(ins))
            }
        };
        match ins.mnemonic() {
            M::Kmovw | M::Kmovb => {
                let v = self.k_operand(ins, 1)? & keep;
                match ins.op_kind(0) {
                    OpKind::Memory => {
                        let addr = self.address(ins);
                        self.write(ins.ip(), addr, &v.to_le_bytes()[..bits / 8])
                    }
                    OpKind::Register if ins.op_register(0).is_gpr32() => {
                        self.gpr[ins.op_register(0).full_register().number()] = v;
                        Ok(())
                    }
                    _ => dst_k(self, v),
                }
            }
            M::Kandw | M::Kandb => dst_k(self, self.k_operand(ins, 1)? & self.k_operand(ins, 2)?),
            M::Kandnw | M::Kandnb => {
                dst_k(self, !self.k_operand(ins, 1)? & self.k_operand(ins, 2)?)
            }
            M::Korw | M::Korb => dst_k(self, self.k_operand(ins, 1)? | self.k_operand(ins, 2)?),
            M::Kxorw | M::Kxorb => dst_k(self, self.k_operand(ins, 1)? ^ self.k_operand(ins, 2)?),
            M::Kxnorw | M::Kxnorb => {
                dst_k(self, !(self.k_operand(ins, 1)? ^ self.k_operand(ins, 2)?))
            }
            M::Knotw | M::Knotb => dst_k(self, !self.k_operand(ins, 1)?),
            M::Kortestw | M::Kortestb => {
                let v = (self.k_operand(ins, 0)? | self.k_operand(ins, 1)?) & keep;
                self.flags.zf = v == 0;
                self.flags.cf = v == keep;
                self.flags.sf = false;
                self.flags.of = false;
                Ok(())
            }
            _ => Err(self.unsupported(ins)),
        }
    }

    pub(crate) fn exec_vector(&mut self, ins: &Instruction) -> Result<(), EmuError> {
        use Mnemonic as M;
        let len = self.width(ins);
        let m = ins.mnemonic();
        match m {
            M::Kmovw
            | M::Kandw
            | M::Kandnw
            | M::Korw
            | M::Kxorw
            | M::Kxnorw
            | M::Knotw
            | M::Kortestw => return self.exec_k(ins, 16),
            M::Kmovb
            | M::Kandb
            | M::Kandnb
            | M::Korb
            | M::Kxorb
            | M::Kxnorb
            | M::Knotb
            | M::Kortestb => return self.exec_k(ins, 8),
            _ => {}
        }
        match m {
            // Lane-wise float arithmetic.
            M::Addps
            | M::Vaddps
            | M::Subps
            | M::Vsubps
            | M::Mulps
            | M::Vmulps
            | M::Divps
            | M::Vdivps
            | M::Minps
            | M::Vminps
            | M::Maxps
            | M::Vmaxps => {
                let (a, b) = self.two(ins, len)?;
                let f: fn(u32, u32) -> u32 = match m {
                    M::Addps | M::Vaddps => |a, b| fp::arith32(a, b, |x, y| x + y),
                    M::Subps | M::Vsubps => |a, b| fp::arith32(a, b, |x, y| x - y),
                    M::Mulps | M::Vmulps => |a, b| fp::arith32(a, b, |x, y| x * y),
                    M::Divps | M::Vdivps => |a, b| fp::arith32(a, b, |x, y| x / y),
                    M::Minps | M::Vminps => fp::min32,
                    M::Maxps | M::Vmaxps => fp::max32,
                    _ => return Err(self.unsupported(ins)),
                };
                self.vout(ins, &map32(&a, &b, f), len, 4)
            }
            M::Addpd
            | M::Vaddpd
            | M::Subpd
            | M::Vsubpd
            | M::Mulpd
            | M::Vmulpd
            | M::Divpd
            | M::Vdivpd => {
                let (a, b) = self.two(ins, len)?;
                let f: fn(u64, u64) -> u64 = match m {
                    M::Addpd | M::Vaddpd => |a, b| fp::arith64(a, b, |x, y| x + y),
                    M::Subpd | M::Vsubpd => |a, b| fp::arith64(a, b, |x, y| x - y),
                    M::Mulpd | M::Vmulpd => |a, b| fp::arith64(a, b, |x, y| x * y),
                    M::Divpd | M::Vdivpd => |a, b| fp::arith64(a, b, |x, y| x / y),
                    _ => return Err(self.unsupported(ins)),
                };
                self.vout(ins, &map64(&a, &b, f), len, 8)
            }
            // Bitwise.
            M::Andps
            | M::Vandps
            | M::Andnps
            | M::Vandnps
            | M::Orps
            | M::Vorps
            | M::Xorps
            | M::Vxorps
            | M::Pand
            | M::Vpand
            | M::Pandn
            | M::Vpandn
            | M::Por
            | M::Vpor
            | M::Pxor
            | M::Vpxor
            | M::Vpandd
            | M::Vpandnd
            | M::Vpord
            | M::Vpxord
            | M::Andpd
            | M::Vandpd
            | M::Orpd
            | M::Vorpd
            | M::Xorpd
            | M::Vxorpd => {
                let (a, b) = self.two(ins, len)?;
                let f: fn(u32, u32) -> u32 = match m {
                    M::Andps
                    | M::Vandps
                    | M::Pand
                    | M::Vpand
                    | M::Vpandd
                    | M::Andpd
                    | M::Vandpd => |a, b| a & b,
                    M::Andnps | M::Vandnps | M::Pandn | M::Vpandn | M::Vpandnd => |a, b| !a & b,
                    M::Orps | M::Vorps | M::Por | M::Vpor | M::Vpord | M::Orpd | M::Vorpd => {
                        |a, b| a | b
                    }
                    M::Xorps
                    | M::Vxorps
                    | M::Pxor
                    | M::Vpxor
                    | M::Vpxord
                    | M::Xorpd
                    | M::Vxorpd => |a, b| a ^ b,
                    _ => return Err(self.unsupported(ins)),
                };
                self.vout(ins, &map32(&a, &b, f), len, 4)
            }
            // Integer lanes.
            M::Paddd
            | M::Vpaddd
            | M::Psubd
            | M::Vpsubd
            | M::Pminsd
            | M::Vpminsd
            | M::Pmaxsd
            | M::Vpmaxsd => {
                let (a, b) = self.two(ins, len)?;
                let f: fn(u32, u32) -> u32 = match m {
                    M::Paddd | M::Vpaddd => u32::wrapping_add,
                    M::Psubd | M::Vpsubd => u32::wrapping_sub,
                    M::Pminsd | M::Vpminsd => |a, b| (a as i32).min(b as i32) as u32,
                    M::Pmaxsd | M::Vpmaxsd => |a, b| (a as i32).max(b as i32) as u32,
                    _ => return Err(self.unsupported(ins)),
                };
                self.vout(ins, &map32(&a, &b, f), len, 4)
            }
            M::Paddq | M::Vpaddq => {
                let (a, b) = self.two(ins, len)?;
                self.vout(ins, &map64(&a, &b, u64::wrapping_add), len, 8)
            }
            M::Pcmpeqd | M::Vpcmpeqd | M::Pcmpgtd | M::Vpcmpgtd => {
                let (a, b) = self.two(ins, len)?;
                let (a, b) = (u32s(&a), u32s(&b));
                let eq = matches!(m, M::Pcmpeqd | M::Vpcmpeqd);
                self.lanes32_out(
                    ins,
                    |i| {
                        if eq {
                            a[i] == b[i]
                        } else {
                            (a[i] as i32) > (b[i] as i32)
                        }
                    },
                    len,
                )
            }
            M::Vpcmpd => {
                let (a, b) = self.two(ins, len)?;
                let (a, b) = (u32s(&a), u32s(&b));
                let p = self.imm8(ins)? & 7;
                self.lanes32_out(
                    ins,
                    |i| {
                        let (x, y) = (a[i] as i32, b[i] as i32);
                        match p {
                            0 => x == y,
                            1 => x < y,
                            2 => x <= y,
                            3 => false,
                            4 => x != y,
                            5 => x >= y,
                            6 => x > y,
                            _ => true,
                        }
                    },
                    len,
                )
            }
            M::Vptestmd | M::Vptestnmd => {
                let (a, b) = self.two(ins, len)?;
                let (a, b) = (u32s(&a), u32s(&b));
                let want = m == M::Vptestmd;
                self.lanes32_out(ins, |i| (a[i] & b[i] != 0) == want, len)
            }
            M::Cmpps | M::Vcmpps => {
                let (a, b) = self.two(ins, len)?;
                let (a, b) = (u32s(&a), u32s(&b));
                let p = self.imm8(ins)?;
                self.lanes32_out(ins, |i| fp::cmp32(a[i], b[i], p), len)
            }
            M::Cmppd | M::Vcmppd => {
                let (a, b) = self.two(ins, len)?;
                let (a, b) = (u64s(&a), u64s(&b));
                let p = self.imm8(ins)?;
                if ins.op_register(0).is_k() {
                    let bits = (0..len / 8).fold(0u64, |acc, i| {
                        acc | u64::from(fp::cmp64(a[i], b[i], p)) << i
                    });
                    self.kout(ins, bits, len / 8)
                } else {
                    let v = from_u64s(&std::array::from_fn(|i| ones64(fp::cmp64(a[i], b[i], p))));
                    self.vout(ins, &v, len, 8)
                }
            }
            // Unary float.
            M::Sqrtps | M::Vsqrtps | M::Cvttps2dq | M::Vcvttps2dq | M::Cvtdq2ps | M::Vcvtdq2ps => {
                let a = u32s(&self.vsrc(ins, 1, len)?);
                let f: fn(u32) -> u32 = match m {
                    M::Sqrtps | M::Vsqrtps => fp::sqrt32,
                    M::Cvttps2dq | M::Vcvttps2dq => fp::cvtt_f32_i32,
                    M::Cvtdq2ps | M::Vcvtdq2ps => fp::cvt_i32_f32,
                    _ => return Err(self.unsupported(ins)),
                };
                self.vout(ins, &from_u32s(&a.map(f)), len, 4)
            }
            M::Roundps | M::Vroundps | M::Vrndscaleps => {
                let imm = self.imm8(ins)?;
                if imm >> 4 != 0 {
                    return Err(self.unsupported(ins));
                }
                let a = u32s(&self.vsrc(ins, 1, len)?);
                self.vout(ins, &from_u32s(&a.map(|x| fp::round32(x, imm))), len, 4)
            }
            M::Roundpd | M::Vroundpd | M::Vrndscalepd => {
                let imm = self.imm8(ins)?;
                if imm >> 4 != 0 {
                    return Err(self.unsupported(ins));
                }
                let a = u64s(&self.vsrc(ins, 1, len)?);
                self.vout(ins, &from_u64s(&a.map(|x| fp::round64(x, imm))), len, 8)
            }
            M::Cvtps2pd | M::Vcvtps2pd => {
                let dst = self.vlen(ins, 0)?;
                let a = u32s(&self.vsrc(ins, 1, dst / 2)?);
                let v = from_u64s(&std::array::from_fn(|i| fp::cvt_f32_f64(a[i])));
                self.vout(ins, &v, dst, 8)
            }
            M::Cvtpd2ps | M::Vcvtpd2ps => {
                let dst = self.vlen(ins, 0)?;
                let src = if ins.op_kind(1) == OpKind::Memory && !ins.is_broadcast() {
                    ins.memory_size().size()
                } else if ins.op_kind(1) == OpKind::Register {
                    ins.op_register(1).size()
                } else {
                    dst * 2
                };
                let a = u64s(&self.vsrc(ins, 1, src)?);
                let v = from_u32s(&std::array::from_fn(|i| {
                    if i < src / 8 {
                        fp::cvt_f64_f32(a[i])
                    } else {
                        0
                    }
                }));
                self.vout(ins, &v, dst, 4)
            }
            // Moves.
            M::Movaps
            | M::Vmovaps
            | M::Movups
            | M::Vmovups
            | M::Movdqa
            | M::Vmovdqa
            | M::Movdqu
            | M::Vmovdqu
            | M::Vmovdqu32
            | M::Vmovdqa32 => {
                let n = self.vlen(ins, 0)?.min(self.vlen(ins, 1)?);
                let v = self.vsrc(ins, 1, n)?;
                self.vout(ins, &v, n, 4)
            }
            M::Movss | M::Vmovss | M::Movsd | M::Vmovsd | M::Movlps | M::Vmovlps => {
                let e = if matches!(m, M::Movss | M::Vmovss) {
                    4
                } else {
                    8
                };
                match (ins.op_kind(0), ins.op_count()) {
                    (OpKind::Memory, _) => {
                        let v = self.vsrc(ins, 1, 16)?;
                        let addr = self.address(ins);
                        self.write(ins.ip(), addr, &v[..e])
                    }
                    (OpKind::Register, 2) => {
                        let s = self.vsrc(ins, 1, 16)?;
                        let mut v = if ins.op_kind(1) == OpKind::Memory && m != M::Movlps {
                            [0u8; 64]
                        } else {
                            self.vsrc(ins, 0, 16)?
                        };
                        v[..e].copy_from_slice(&s[..e]);
                        self.vout(ins, &v, 16, 4)
                    }
                    (OpKind::Register, 3) => {
                        let mut v = self.vsrc(ins, 1, 16)?;
                        let s = self.vsrc(ins, 2, 16)?;
                        v[..e].copy_from_slice(&s[..e]);
                        self.vout(ins, &v, 16, 4)
                    }
                    _ => Err(self.unsupported(ins)),
                }
            }
            // SSE: the high 8 bytes of a register from or to memory, the low ones kept.
            // (MOVHPS has two forms: a memory destination, or a register loaded from memory.)
            M::Movhps => {
                if ins.op_kind(0) == OpKind::Memory {
                    let v = self.vsrc(ins, 1, 16)?;
                    let addr = self.address(ins);
                    self.write(ins.ip(), addr, &v[8..16])
                } else {
                    let s = self.vsrc(ins, 1, 8)?;
                    let mut v = self.vsrc(ins, 0, 16)?;
                    v[8..16].copy_from_slice(&s[..8]);
                    self.vout(ins, &v, 16, 4)
                }
            }
            // SSE4.1: one element in (from memory, or element imm[7:6] of a register) at
            // element imm[5:4], then the elements imm[3:0] names zeroed.
            M::Insertps => {
                let imm = self.imm8(ins)?;
                let s = u32s(&self.vsrc(ins, 1, 16)?);
                let from = if ins.op_kind(1) == OpKind::Memory {
                    0
                } else {
                    usize::from(imm >> 6)
                };
                let mut v = u32s(&self.vsrc(ins, 0, 16)?);
                v[usize::from(imm >> 4 & 3)] = s[from];
                for (e, x) in v[..4].iter_mut().enumerate() {
                    if imm >> e & 1 != 0 {
                        *x = 0;
                    }
                }
                self.vout(ins, &from_u32s(&v), 16, 4)
            }
            // SSE4.1: element e from the source where imm bit e is set, else kept.
            M::Blendps => {
                let imm = self.imm8(ins)?;
                let s = u32s(&self.vsrc(ins, 1, 16)?);
                let mut v = u32s(&self.vsrc(ins, 0, 16)?);
                for (e, x) in v[..4].iter_mut().enumerate() {
                    if imm >> e & 1 != 0 {
                        *x = s[e];
                    }
                }
                self.vout(ins, &from_u32s(&v), 16, 4)
            }
            M::Movlhps | M::Vmovlhps => {
                let (a, b) = self.two(ins, 16)?;
                let mut v = a;
                v[8..16].copy_from_slice(&b[..8]);
                self.vout(ins, &v, 16, 4)
            }
            M::Movd | M::Vmovd => {
                if ins.op_kind(0) == OpKind::Register && ins.op_register(0).is_vector_register() {
                    let x = match ins.op_kind(1) {
                        OpKind::Register => {
                            self.gpr[ins.op_register(1).full_register().number()] & 0xFFFF_FFFF
                        }
                        _ => {
                            let mut b = [0u8; 4];
                            self.read(ins.ip(), self.address(ins), &mut b)?;
                            u64::from(u32::from_le_bytes(b))
                        }
                    };
                    let mut v = [0u8; 64];
                    v[..4].copy_from_slice(&(x as u32).to_le_bytes());
                    // movd zeroes bits 127:32 in every encoding.
                    let n = ins.op_register(0).number();
                    let keep = if Self::legacy(ins) {
                        self.vec[n]
                    } else {
                        [0u8; 64]
                    };
                    self.vec[n] = keep;
                    self.vec[n][..16].copy_from_slice(&v[..16]);
                    Ok(())
                } else {
                    let v = self.vsrc(ins, 1, 16)?;
                    let x = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                    match ins.op_kind(0) {
                        OpKind::Register => {
                            self.gpr[ins.op_register(0).full_register().number()] = u64::from(x);
                            Ok(())
                        }
                        _ => {
                            let addr = self.address(ins);
                            self.write(ins.ip(), addr, &x.to_le_bytes())
                        }
                    }
                }
            }
            M::Vbroadcastss | M::Vpbroadcastd => {
                let s = if ins.op_kind(1) == OpKind::Register && ins.op_register(1).is_gpr32() {
                    (self.gpr[ins.op_register(1).full_register().number()] as u32).to_le_bytes()
                } else {
                    let v = self.vsrc(ins, 1, 4)?;
                    [v[0], v[1], v[2], v[3]]
                };
                let mut v = [0u8; 64];
                for c in v[..len].chunks_exact_mut(4) {
                    c.copy_from_slice(&s);
                }
                self.vout(ins, &v, len, 4)
            }
            M::Vbroadcastf32x4 => {
                let s = self.vsrc(ins, 1, 16)?;
                let mut v = [0u8; 64];
                for c in v[..len].chunks_exact_mut(16) {
                    c.copy_from_slice(&s[..16]);
                }
                self.vout(ins, &v, len, 4)
            }
            M::Movmskps | M::Vmovmskps => {
                let n = self.vlen(ins, 1)?;
                let a = u32s(&self.vsrc(ins, 1, n)?);
                let bits = (0..n / 4).fold(0u64, |acc, i| acc | u64::from(a[i] >> 31) << i);
                self.gpr[ins.op_register(0).full_register().number()] = bits;
                Ok(())
            }
            M::Ptest | M::Vptest => {
                let n = self.vlen(ins, 0)?;
                let (a, b) = (self.vsrc(ins, 0, n)?, self.vsrc(ins, 1, n)?);
                let (a, b) = (&a[..n], &b[..n]);
                self.flags.zf = a.iter().zip(b).all(|(x, y)| x & y == 0);
                self.flags.cf = a.iter().zip(b).all(|(x, y)| !x & y == 0);
                self.flags.sf = false;
                self.flags.of = false;
                Ok(())
            }
            // Shuffles within 128-bit lanes.
            M::Shufps | M::Vshufps => {
                let (a, b) = self.two(ins, len)?;
                let (a, b) = (u32s(&a), u32s(&b));
                let imm = self.imm8(ins)?;
                let sel = |e: usize| ((imm >> (2 * e)) & 3) as usize;
                let v = shuffle32(len, |base, e| {
                    if e < 2 {
                        a[base + sel(e)]
                    } else {
                        b[base + sel(e)]
                    }
                });
                self.vout(ins, &from_u32s(&v), len, 4)
            }
            M::Pshufd | M::Vpshufd | M::Vpermilps
                if ins.op_kind(ins.op_count() - 1) == OpKind::Immediate8 =>
            {
                let a = u32s(&self.vsrc(ins, 1, len)?);
                let imm = self.imm8(ins)?;
                let v = shuffle32(len, |base, e| a[base + ((imm >> (2 * e)) & 3) as usize]);
                self.vout(ins, &from_u32s(&v), len, 4)
            }
            M::Vpermilps => {
                let (a, c) = self.two(ins, len)?;
                let (a, c) = (u32s(&a), u32s(&c));
                let v = shuffle32(len, |base, e| a[base + (c[base + e] & 3) as usize]);
                self.vout(ins, &from_u32s(&v), len, 4)
            }
            M::Unpcklps | M::Vunpcklps | M::Unpckhps | M::Vunpckhps => {
                let (a, b) = self.two(ins, len)?;
                let (a, b) = (u32s(&a), u32s(&b));
                let hi = if matches!(m, M::Unpckhps | M::Vunpckhps) {
                    2
                } else {
                    0
                };
                let v = shuffle32(len, |base, e| {
                    let s = base + hi + e / 2;
                    if e % 2 == 0 {
                        a[s]
                    } else {
                        b[s]
                    }
                });
                self.vout(ins, &from_u32s(&v), len, 4)
            }
            M::Unpcklpd | M::Vunpcklpd | M::Unpckhpd | M::Vunpckhpd => {
                let (a, b) = self.two(ins, len)?;
                let (a, b) = (u64s(&a), u64s(&b));
                let hi = usize::from(matches!(m, M::Unpckhpd | M::Vunpckhpd));
                let v: [u64; 8] = std::array::from_fn(|i| {
                    let s = i / 2 * 2 + hi;
                    if i >= len / 8 {
                        0
                    } else if i % 2 == 0 {
                        a[s]
                    } else {
                        b[s]
                    }
                });
                self.vout(ins, &from_u64s(&v), len, 8)
            }
            // 128-bit lane moves.
            M::Vinsertf128 | M::Vinserti128 | M::Vinsertf32x4 => {
                let mut v = self.vsrc(ins, 1, len)?;
                let s = self.vsrc(ins, 2, 16)?;
                let at = (self.imm8(ins)? as usize % (len / 16)) * 16;
                v[at..at + 16].copy_from_slice(&s[..16]);
                self.vout(ins, &v, len, 4)
            }
            M::Vextractf128 | M::Vextracti128 | M::Vextractf32x4 => {
                let n = ins.op_register(1).size();
                let s = self.vsrc(ins, 1, n)?;
                let at = (self.imm8(ins)? as usize % (n / 16)) * 16;
                let mut v = [0u8; 64];
                v[..16].copy_from_slice(&s[at..at + 16]);
                self.vout(ins, &v, 16, 4)
            }
            M::Vperm2f128 | M::Vperm2i128 => {
                let (a, b) = self.two(ins, 32)?;
                let imm = self.imm8(ins)?;
                let mut v = [0u8; 64];
                for half in 0..2 {
                    let c = imm >> (4 * half);
                    if c & 8 == 0 {
                        let src = if c & 2 == 0 { &a } else { &b };
                        let at = usize::from(c & 1) * 16;
                        v[half * 16..half * 16 + 16].copy_from_slice(&src[at..at + 16]);
                    }
                }
                self.vout(ins, &v, 32, 4)
            }
            M::Vshuff32x4 => {
                let (a, b) = self.two(ins, len)?;
                let imm = self.imm8(ins)?;
                let lanes = len / 16;
                let bits = if lanes == 4 { 2 } else { 1 };
                let mut v = [0u8; 64];
                for l in 0..lanes {
                    let sel = ((imm >> (bits * l)) & ((1 << bits) - 1)) as usize;
                    let src = if l < lanes / 2 { &a } else { &b };
                    v[l * 16..l * 16 + 16].copy_from_slice(&src[sel * 16..sel * 16 + 16]);
                }
                self.vout(ins, &v, len, 4)
            }
            // Full-width permutes.
            M::Vpermps | M::Vpermd => {
                let (idx, t) = self.two(ins, len)?;
                let (idx, t) = (u32s(&idx), u32s(&t));
                let n = len / 4;
                let v: [u32; 16] =
                    std::array::from_fn(|i| if i < n { t[idx[i] as usize % n] } else { 0 });
                self.vout(ins, &from_u32s(&v), len, 4)
            }
            M::Vpermt2ps | M::Vpermt2d | M::Vpermi2ps | M::Vpermi2d => {
                let d = u32s(&self.vsrc(ins, 0, len)?);
                let (s1, s2) = self.two(ins, len)?;
                let (s1, s2) = (u32s(&s1), u32s(&s2));
                let n = len / 4;
                let t2 = matches!(m, M::Vpermt2ps | M::Vpermt2d);
                // t2: indices in src1, tables dst and src2; i2: indices in dst, tables src1, src2.
                let (idx, lo, hi) = if t2 { (s1, d, s2) } else { (d, s1, s2) };
                let v: [u32; 16] = std::array::from_fn(|i| {
                    if i >= n {
                        return 0;
                    }
                    let j = idx[i] as usize % (2 * n);
                    if j < n {
                        lo[j]
                    } else {
                        hi[j - n]
                    }
                });
                self.vout(ins, &from_u32s(&v), len, 4)
            }
            // Blends.
            M::Blendvps | M::Vblendvps => {
                let (a, b) = self.two(ins, len)?;
                let sel = if Self::legacy(ins) {
                    self.vec[0]
                } else {
                    self.vsrc(ins, 3, len)?
                };
                let (a, b, sel) = (u32s(&a), u32s(&b), u32s(&sel));
                let v: [u32; 16] =
                    std::array::from_fn(|i| if sel[i] >> 31 != 0 { b[i] } else { a[i] });
                self.vout(ins, &from_u32s(&v), len, 4)
            }
            M::Vblendmps | M::Vpblendmd => {
                let (a, b) = self.two(ins, len)?;
                let k = self.opmask(ins);
                let (a, b) = (u32s(&a), u32s(&b));
                let v: [u32; 16] =
                    std::array::from_fn(|i| if k >> i & 1 != 0 { b[i] } else { a[i] });
                // The opmask selects, it does not mask the write (except with zeroing).
                let n = ins.op_register(0).number();
                let mut out = [0u8; 64];
                let z = ins.zeroing_masking();
                let bytes = from_u32s(&v);
                for i in 0..len / 4 {
                    if !z || k >> i & 1 != 0 {
                        out[4 * i..4 * i + 4].copy_from_slice(&bytes[4 * i..4 * i + 4]);
                    }
                }
                self.vec[n] = out;
                Ok(())
            }
            M::Vpternlogd => {
                let d = u32s(&self.vsrc(ins, 0, len)?);
                let (b, c) = self.two(ins, len)?;
                let (b, c) = (u32s(&b), u32s(&c));
                let imm = u32::from(self.imm8(ins)?);
                let v: [u32; 16] = std::array::from_fn(|i| {
                    (0..32).fold(0u32, |acc, bit| {
                        let idx =
                            (d[i] >> bit & 1) << 2 | (b[i] >> bit & 1) << 1 | (c[i] >> bit & 1);
                        acc | (imm >> idx & 1) << bit
                    })
                });
                self.vout(ins, &from_u32s(&v), len, 4)
            }
            // Shifts.
            M::Pslld
            | M::Vpslld
            | M::Psrld
            | M::Vpsrld
            | M::Psrad
            | M::Vpsrad
            | M::Psllq
            | M::Vpsllq
            | M::Psrlq
            | M::Vpsrlq => {
                let (src, cnt) = if Self::legacy(ins) { (0, 1) } else { (1, 2) };
                let a = self.vsrc(ins, src, len)?;
                let count = if ins.op_kind(cnt) == OpKind::Immediate8 {
                    u64::from(ins.immediate8())
                } else {
                    u64s(&self.vsrc(ins, cnt, 16)?)[0]
                };
                let v = match m {
                    M::Pslld | M::Vpslld => {
                        map32(&a, &a, |x, _| if count > 31 { 0 } else { x << count })
                    }
                    M::Psrld | M::Vpsrld => {
                        map32(&a, &a, |x, _| if count > 31 { 0 } else { x >> count })
                    }
                    M::Psrad | M::Vpsrad => {
                        map32(&a, &a, |x, _| ((x as i32) >> count.min(31)) as u32)
                    }
                    M::Psllq | M::Vpsllq => {
                        map64(&a, &a, |x, _| if count > 63 { 0 } else { x << count })
                    }
                    M::Psrlq | M::Vpsrlq => {
                        map64(&a, &a, |x, _| if count > 63 { 0 } else { x >> count })
                    }
                    _ => return Err(self.unsupported(ins)),
                };
                let elem = if matches!(m, M::Psllq | M::Vpsllq | M::Psrlq | M::Vpsrlq) {
                    8
                } else {
                    4
                };
                self.vout(ins, &v, len, elem)
            }
            // Opmask ⇄ vector.
            M::Vpmovd2m => {
                let a = u32s(&self.vsrc(ins, 1, len)?);
                let bits = (0..len / 4).fold(0u64, |acc, i| acc | u64::from(a[i] >> 31) << i);
                let r = ins.op_register(0);
                self.k[r.number()] = bits;
                Ok(())
            }
            M::Vpmovm2d => {
                let k = self.k_operand(ins, 1)?;
                let v = from_u32s(&std::array::from_fn(|i| {
                    ones(i < len / 4 && k >> i & 1 != 0)
                }));
                self.vout(ins, &v, len, 4)
            }
            M::Vpmovm2q => {
                let k = self.k_operand(ins, 1)?;
                let v = from_u64s(&std::array::from_fn(|i| {
                    ones64(i < len / 8 && k >> i & 1 != 0)
                }));
                self.vout(ins, &v, len, 8)
            }
            M::Vzeroupper => {
                for r in self.vec.iter_mut().take(16) {
                    r[16..].fill(0);
                }
                Ok(())
            }
            _ => Err(self.unsupported(ins)),
        }
    }
}
