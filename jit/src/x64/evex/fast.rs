//! [`plain`]: the bytes of every EVEX instruction [`encode`](super::encode) accepts (register
//! and memory operands, `{1toN}` broadcasts, masking, every [`Shape`](super::Shape)) built
//! straight from the table row without `encode`'s general path (no `Result`s, no operand
//! structs; disp8·N by shifts). The AVX-512 layer encodes with it, inlined so that a constant
//! operation folds its table row and most checks, and calls `encode` only to word a refusal.
//! The test below compares the two over every operation, length, register class, memory form,
//! mask, zeroing, broadcast and immediate.

use super::{prefix, Builder, Chunk, Info, Inst, Mem, Rm, Shape as S, Tuple, Vl, RIP};

/// log2 of the disp8·N scale of a memory operand (as `encode`'s `disp_scale`).
#[inline(always)]
fn disp_shift(info: &Info, vl: Vl, bcst: bool) -> u32 {
    let elem = 2 + u32::from(info.w);
    let full = 4 + u32::from(vl.ll());
    match info.tuple {
        Tuple::Full | Tuple::Half if bcst => elem,
        Tuple::Full | Tuple::FullMem => full,
        Tuple::Half => full - 1,
        Tuple::Scalar => elem,
        Tuple::Tuple4 => 4,
    }
}

/// The ModRM byte and what follows it up to the immediate (SIB, displacement) of memory operand
/// `m` as (bytes, count, X, B), or `None` if `encode` refuses it.
#[inline(always)]
fn mem_tail(reg: u8, m: &Mem, shift: u32) -> Option<(u64, u32, bool, bool)> {
    let reg = (reg & 7) << 3;
    if m.base == RIP {
        // ModRM mod = 00, rm = 101: rip-relative, always disp32, no SIB.
        if m.index.is_some() {
            return None;
        }
        let bytes = u64::from(reg | 5) | (u64::from(m.disp as u32) << 8);
        return Some((bytes, 5, false, false));
    }
    if m.base > 15 {
        return None;
    }
    let (index, ss) = match m.index {
        None => (None, 0u8),
        Some((4, _) | (16.., _)) => return None,
        Some((i, 1)) => (Some(i), 0),
        Some((i, 2)) => (Some(i), 1),
        Some((i, 4)) => (Some(i), 2),
        Some((i, 8)) => (Some(i), 3),
        Some((_, 0 | 3 | 5..=7 | 9..)) => return None,
    };
    let base = m.base & 7;
    let d = m.disp;
    let scaled = d >> shift;
    // rbp and r13 as a base have no disp-less form.
    let (md, disp, disp_len) = if d == 0 && base != 5 {
        (0u8, 0u64, 0u32)
    } else if d & ((1 << shift) - 1) == 0 && scaled as i8 as i32 == scaled {
        (1, u64::from(scaled as u8), 1)
    } else {
        (2, u64::from(d as u32), 4)
    };
    let (head, head_len) = match index {
        Some(i) => {
            let sib = (ss << 6) | ((i & 7) << 3) | base;
            (u64::from((md << 6) | reg | 4) | (u64::from(sib) << 8), 2)
        }
        None if base == 4 => (u64::from((md << 6) | reg | 4) | (0x24 << 8), 2),
        None => (u64::from((md << 6) | reg | base), 1),
    };
    let bytes = head | (disp << (8 * head_len));
    let x = index.is_some_and(|i| i & 8 != 0);
    Some((bytes, head_len + disp_len, x, m.base & 8 != 0))
}

/// The bytes of `inst` exactly as [`encode`](super::encode) gives them, or `None` for every
/// instruction `encode` refuses (ask `encode` for the reason).
#[inline(always)]
pub fn plain(inst: &Inst) -> Option<Chunk> {
    let info = inst.op.info();
    let is_mem = matches!(inst.rm, Rm::Mem(_));
    // (reg field, its bound, vvvv, zeroing allowed, masking allowed, immediate, bound of a
    // register `rm`: 0 if it must be memory).
    let (reg, bound, v, zero_ok, mask_ok, imm, rm_bound) = match info.shape {
        S::Rvm => (inst.dst, 32, inst.src, true, true, false, 32),
        S::Rvmi => (inst.dst, 32, inst.src, true, true, true, 32),
        S::Rm => (inst.dst, 32, 0, true, true, false, 32),
        S::Rmi => (inst.dst, 32, 0, true, true, true, 32),
        S::Mr => (inst.dst, 32, 0, false, true, false, 0),
        S::Mri => (inst.dst, 32, 0, !is_mem, true, true, 32),
        S::Kvm => (inst.dst, 8, inst.src, false, true, false, 32),
        S::Kvmi => (inst.dst, 8, inst.src, false, true, true, 32),
        S::Shift(ext) => (ext, 32, inst.src, true, true, true, 32),
        S::KfromV => (inst.dst, 8, 0, false, false, false, 32),
        S::VfromK => (inst.dst, 32, 0, false, false, false, 8),
    };
    let register_only = matches!(info.shape, S::KfromV | S::VfromK);
    // The checks as `|` of booleans: one branch, not one per check.
    let bad = (reg >= bound)
        | (v >= 32)
        | (inst.mask >= 8)
        | (!mask_ok & (inst.mask != 0))
        | (inst.zeroing & (!zero_ok | (inst.mask == 0)))
        | (inst.bcst & !(info.bcst & is_mem))
        | (info.wide_only & (inst.vl == Vl::V128))
        | (!imm & (inst.imm != 0));
    if bad {
        return None;
    }
    let (tail, tail_len, x, b) = match inst.rm {
        Rm::Reg(r) if r < rm_bound => {
            let modrm = 0xC0 | ((reg & 7) << 3) | (r & 7);
            (u64::from(modrm), 1, r & 16 != 0, r & 8 != 0)
        }
        Rm::Reg(_) => return None,
        Rm::Mem(_) if register_only => return None,
        Rm::Mem(m) => mem_tail(reg, &m, disp_shift(&info, inst.vl, inst.bcst))?,
    };
    let [e, p0, p1, p2] = prefix(&info, inst, reg, v, (x, b));
    let mut c = Builder::new();
    c.push_n(u64::from_le_bytes([e, p0, p1, p2, info.opcode, 0, 0, 0]), 5);
    c.push_n(tail, tail_len);
    if imm {
        c.push(inst.imm);
    }
    Some(c.finish())
}

#[cfg(test)]
mod tests {
    use super::super::{encode, Op};
    use super::*;

    /// `plain` agrees with `encode` on `inst`: the same bytes, or both refuse. True if encoded.
    fn agrees(inst: &Inst) -> bool {
        match (plain(inst), encode(inst)) {
            (Some(got), Ok(want)) => {
                assert_eq!(got.as_bytes(), want.as_bytes(), "{inst:?}");
                true
            }
            (None, Err(_)) => false,
            (None, Ok(want)) => panic!("{inst:?}: encode gives {:02X?}", want.as_bytes()),
            (Some(_), Err(e)) => panic!("{inst:?}: plain encodes, but encode refuses: {e}"),
        }
    }

    #[test]
    fn plain_is_encode_on_every_form() {
        const REGS: [u8; 6] = [0, 7, 8, 16, 31, 32];
        let mut rms: Vec<Rm> = REGS.iter().map(|&r| Rm::Reg(r)).collect();
        // Bases (rax, rsp, rbp, rdi, r11, r12, r13, r15, rip, out of range), indices (none,
        // rax, rsp, rsi, r9, r12, out of range; scales 1, 2, 4, 8 and 3), displacements (0,
        // disp8·N multiples and not, either sign, beyond disp8).
        let disps = [0, 1, 64, -64, 0x1F80, 0x2000, -0x2004, 0x12345];
        for base in [0, 4, 5, 7, 11, 12, 13, 15, RIP, 17] {
            for index in [None, Some((0, 1)), Some((4, 1)), Some((6, 2)), Some((9, 8))]
                .into_iter()
                .chain([Some((12, 4)), Some((16, 1)), Some((6, 3))])
            {
                for disp in disps {
                    rms.push(Rm::Mem(Mem { base, index, disp }));
                }
            }
        }
        let mut count = 0;
        for &op in Op::ALL {
            for vl in Vl::ALL {
                for &rm in &rms {
                    // Every register pair with a register `rm`; with memory, pairs that set
                    // each extension bit.
                    let pairs: Vec<(u8, u8)> = match rm {
                        Rm::Reg(_) => REGS
                            .iter()
                            .flat_map(|&d| REGS.iter().map(move |&s| (d, s)))
                            .collect(),
                        Rm::Mem(_) => vec![(0, 0), (8, 16), (31, 31), (32, 7), (7, 32)],
                    };
                    for &(dst, src) in &pairs {
                        {
                            for mask in [0u8, 1, 7, 8] {
                                for (zeroing, bcst, imm) in [
                                    (false, false, 0u8),
                                    (true, false, 0),
                                    (false, true, 0),
                                    (false, false, 0x5A),
                                    (true, true, 0x5A),
                                ] {
                                    let inst = Inst {
                                        mask,
                                        zeroing,
                                        bcst,
                                        imm,
                                        ..Inst::rvm(op, vl, dst, src, rm)
                                    };
                                    count += usize::from(agrees(&inst));
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(count > 1_000_000, "{count} encoded instructions");
    }
}
