//! General-purpose instructions: moves, integer arithmetic and logic with the flags the
//! backends read (CF, ZF, SF, OF), `lea`, conditional moves, branches, `ret`.

use iced_x86::{ConditionCode, Instruction, Mnemonic, OpKind, Register};

use super::{EmuError, Flags, Machine};

/// Bits of a value of `size` bytes.
fn mask(size: usize) -> u64 {
    if size >= 8 {
        u64::MAX
    } else {
        (1u64 << (size * 8)) - 1
    }
}

fn sign(v: u64, size: usize) -> bool {
    v >> (size * 8 - 1) & 1 != 0
}

impl Machine {
    /// The size in bytes of operand `i` (a register, or memory of the instruction's size).
    fn gsize(&self, ins: &Instruction, i: u32) -> Result<usize, EmuError> {
        match ins.op_kind(i) {
            OpKind::Register => Ok(ins.op_register(i).size()),
            OpKind::Memory => Ok(ins.memory_size().size()),
            _ => Err(self.unsupported(ins)),
        }
    }

    /// Operand `i` as an unsigned value (immediates sign-extended to 64 bits, then cut by the
    /// caller).
    fn gget(&self, ins: &Instruction, i: u32) -> Result<u64, EmuError> {
        match ins.op_kind(i) {
            OpKind::Register => {
                let r = ins.op_register(i);
                if !r.is_gpr()
                    || matches!(r, Register::AH | Register::BH | Register::CH | Register::DH)
                {
                    return Err(self.unsupported(ins));
                }
                Ok(self.gpr[r.full_register().number()] & mask(r.size()))
            }
            OpKind::Memory => {
                let size = ins.memory_size().size();
                let mut b = [0u8; 8];
                self.read(ins.ip(), self.address(ins), &mut b[..size])?;
                Ok(u64::from_le_bytes(b))
            }
            OpKind::Immediate8
            | OpKind::Immediate16
            | OpKind::Immediate32
            | OpKind::Immediate64
            | OpKind::Immediate8to16
            | OpKind::Immediate8to32
            | OpKind::Immediate8to64
            | OpKind::Immediate32to64 => Ok(ins.immediate(i)),
            _ => Err(self.unsupported(ins)),
        }
    }

    /// Writes operand `i`: a 32-bit register write zero-extends, 8- and 16-bit ones merge.
    fn gset(&mut self, ins: &Instruction, i: u32, v: u64) -> Result<(), EmuError> {
        match ins.op_kind(i) {
            OpKind::Register => {
                let r = ins.op_register(i);
                if !r.is_gpr()
                    || matches!(r, Register::AH | Register::BH | Register::CH | Register::DH)
                {
                    return Err(self.unsupported(ins));
                }
                let n = r.full_register().number();
                let size = r.size();
                self.gpr[n] = match size {
                    8 => v,
                    4 => v & 0xFFFF_FFFF,
                    _ => (self.gpr[n] & !mask(size)) | (v & mask(size)),
                };
                Ok(())
            }
            OpKind::Memory => {
                let size = ins.memory_size().size();
                let addr = self.address(ins);
                self.write(ins.ip(), addr, &v.to_le_bytes()[..size])
            }
            _ => Err(self.unsupported(ins)),
        }
    }

    fn logic_flags(&mut self, r: u64, size: usize) {
        self.flags = Flags {
            cf: false,
            of: false,
            zf: r & mask(size) == 0,
            sf: sign(r, size),
        };
    }

    fn add_flags(&mut self, a: u64, b: u64, size: usize) -> u64 {
        let m = mask(size);
        let r = a.wrapping_add(b) & m;
        self.flags = Flags {
            cf: r < (a & m),
            zf: r == 0,
            sf: sign(r, size),
            of: sign(a, size) == sign(b, size) && sign(r, size) != sign(a, size),
        };
        r
    }

    fn sub_flags(&mut self, a: u64, b: u64, size: usize) -> u64 {
        let m = mask(size);
        let (a, b) = (a & m, b & m);
        let r = a.wrapping_sub(b) & m;
        self.flags = Flags {
            cf: a < b,
            zf: r == 0,
            sf: sign(r, size),
            of: sign(a, size) != sign(b, size) && sign(r, size) != sign(a, size),
        };
        r
    }

    pub(crate) fn condition(&self, ins: &Instruction) -> Result<bool, EmuError> {
        let f = self.flags;
        Ok(match ins.condition_code() {
            ConditionCode::o => f.of,
            ConditionCode::no => !f.of,
            ConditionCode::b => f.cf,
            ConditionCode::ae => !f.cf,
            ConditionCode::e => f.zf,
            ConditionCode::ne => !f.zf,
            ConditionCode::be => f.cf || f.zf,
            ConditionCode::a => !f.cf && !f.zf,
            ConditionCode::s => f.sf,
            ConditionCode::ns => !f.sf,
            ConditionCode::l => f.sf != f.of,
            ConditionCode::ge => f.sf == f.of,
            ConditionCode::le => f.zf || f.sf != f.of,
            ConditionCode::g => !f.zf && f.sf == f.of,
            ConditionCode::p | ConditionCode::np | ConditionCode::None => {
                return Err(self.unsupported(ins))
            }
        })
    }

    pub(crate) fn exec_gpr(&mut self, ins: &Instruction) -> Result<(), EmuError> {
        use Mnemonic as M;
        match ins.mnemonic() {
            M::Nop => Ok(()),
            M::Mov => {
                let size = self.gsize(ins, 0)?;
                let v = self.gget(ins, 1)? & mask(size);
                self.gset(ins, 0, v)
            }
            M::Movzx => {
                let from = self.gsize(ins, 1)?;
                let v = self.gget(ins, 1)? & mask(from);
                self.gset(ins, 0, v)
            }
            M::Movsxd | M::Movsx => {
                let from = self.gsize(ins, 1)?;
                let v = self.gget(ins, 1)? & mask(from);
                let v = if sign(v, from) { v | !mask(from) } else { v };
                self.gset(ins, 0, v)
            }
            M::Lea => {
                let a = self.address(ins);
                self.gset(ins, 0, a)
            }
            M::Add | M::Sub | M::Cmp => {
                let size = self.gsize(ins, 0)?;
                let (a, b) = (self.gget(ins, 0)?, self.gget(ins, 1)?);
                let r = if ins.mnemonic() == M::Add {
                    self.add_flags(a, b, size)
                } else {
                    self.sub_flags(a, b, size)
                };
                if ins.mnemonic() == M::Cmp {
                    Ok(())
                } else {
                    self.gset(ins, 0, r)
                }
            }
            M::And | M::Or | M::Xor | M::Test => {
                let size = self.gsize(ins, 0)?;
                let (a, b) = (self.gget(ins, 0)?, self.gget(ins, 1)?);
                let r = match ins.mnemonic() {
                    M::Or => a | b,
                    M::Xor => a ^ b,
                    M::And | M::Test => a & b,
                    _ => return Err(self.unsupported(ins)),
                } & mask(size);
                self.logic_flags(r, size);
                if ins.mnemonic() == M::Test {
                    Ok(())
                } else {
                    self.gset(ins, 0, r)
                }
            }
            M::Inc | M::Dec => {
                let size = self.gsize(ins, 0)?;
                let a = self.gget(ins, 0)?;
                let cf = self.flags.cf;
                let r = if ins.mnemonic() == M::Inc {
                    self.add_flags(a, 1, size)
                } else {
                    self.sub_flags(a, 1, size)
                };
                self.flags.cf = cf;
                self.gset(ins, 0, r)
            }
            M::Neg => {
                let size = self.gsize(ins, 0)?;
                let a = self.gget(ins, 0)?;
                let r = self.sub_flags(0, a, size);
                self.gset(ins, 0, r)
            }
            M::Shl | M::Shr | M::Sar => {
                let size = self.gsize(ins, 0)?;
                let a = self.gget(ins, 0)? & mask(size);
                let count = (self.gget(ins, 1)? & if size == 8 { 63 } else { 31 }) as u32;
                if count == 0 {
                    return Ok(());
                }
                let bits = (size * 8) as u32;
                let (r, cf) = match ins.mnemonic() {
                    M::Shl => (
                        a.checked_shl(count).unwrap_or(0) & mask(size),
                        count <= bits && a >> (bits - count) & 1 != 0,
                    ),
                    M::Shr => (a.checked_shr(count).unwrap_or(0), a >> (count - 1) & 1 != 0),
                    M::Sar => {
                        let s = if sign(a, size) { a | !mask(size) } else { a } as i64;
                        (
                            (s >> count.min(63)) as u64 & mask(size),
                            s >> (count - 1).min(63) & 1 != 0,
                        )
                    }
                    _ => return Err(self.unsupported(ins)),
                };
                self.logic_flags(r, size);
                self.flags.cf = cf;
                // OF is defined for 1-bit shifts only; the backends never read it after one.
                self.gset(ins, 0, r)
            }
            M::Imul => {
                if ins.op_count() < 2 {
                    return Err(self.unsupported(ins));
                }
                let size = self.gsize(ins, 0)?;
                let (a, b) = if ins.op_count() == 3 {
                    (self.gget(ins, 1)?, self.gget(ins, 2)?)
                } else {
                    (self.gget(ins, 0)?, self.gget(ins, 1)?)
                };
                let ext = |v: u64| -> i128 {
                    let v = v & mask(size);
                    if sign(v, size) {
                        (v | !mask(size)) as i64 as i128
                    } else {
                        v as i128
                    }
                };
                let full = ext(a) * ext(b);
                let r = full as u64 & mask(size);
                let overflow = ext(r) != full;
                self.flags = Flags {
                    cf: overflow,
                    of: overflow,
                    zf: r == 0,
                    sf: sign(r, size),
                };
                self.gset(ins, 0, r)
            }
            M::Bsf => {
                let size = self.gsize(ins, 0)?;
                let a = self.gget(ins, 1)? & mask(size);
                self.flags.zf = a == 0;
                if a == 0 {
                    // The destination keeps its value (as the backends' CPUs do).
                    Ok(())
                } else {
                    self.gset(ins, 0, u64::from(a.trailing_zeros()))
                }
            }
            M::Cmova
            | M::Cmovae
            | M::Cmovb
            | M::Cmovbe
            | M::Cmove
            | M::Cmovne
            | M::Cmovg
            | M::Cmovge
            | M::Cmovl
            | M::Cmovle
            | M::Cmovs
            | M::Cmovns => {
                let size = self.gsize(ins, 0)?;
                let v = if self.condition(ins)? {
                    self.gget(ins, 1)?
                } else {
                    self.gget(ins, 0)?
                };
                // A 32-bit cmov zero-extends even when the condition is false.
                self.gset(ins, 0, v & mask(size))
            }
            M::Jmp => {
                if ins.op_kind(0) != OpKind::NearBranch64 {
                    return Err(self.unsupported(ins));
                }
                self.rip = ins.near_branch64();
                Ok(())
            }
            M::Ja
            | M::Jae
            | M::Jb
            | M::Jbe
            | M::Je
            | M::Jne
            | M::Jg
            | M::Jge
            | M::Jl
            | M::Jle
            | M::Js
            | M::Jns
            | M::Jo
            | M::Jno => {
                if self.condition(ins)? {
                    self.rip = ins.near_branch64();
                }
                Ok(())
            }
            M::Ret => {
                if ins.op_count() != 0 {
                    return Err(self.unsupported(ins));
                }
                let mut b = [0u8; 8];
                self.read(ins.ip(), self.gpr[4], &mut b)?;
                self.gpr[4] = self.gpr[4].wrapping_add(8);
                self.rip = u64::from_le_bytes(b);
                Ok(())
            }
            _ => Err(self.unsupported(ins)),
        }
    }
}
