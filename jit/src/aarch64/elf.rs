//! The runner program: a tiny static AArch64 Linux ELF, written byte by byte here (its code is
//! emitted with dynasm), that qemu-user runs as a persistent job server over stdin/stdout. No
//! cross toolchain and no libc are involved.
//!
//! Address space (one RWX `PT_LOAD`; everything past the file is zero-filled bss):
//!
//! | address | what |
//! |---|---|
//! | [`BASE`] | ELF header, program header, the stub |
//! | [`HDR`] | job header and segment headers (its own page: under qemu, writes to a page that holds translated code would throw the translations away) |
//! | [`CODE`] | the kernel of the current job |
//! | [`DATA`] | the job's memory image: context, vertex buffers, status bytes |
//!
//! Protocol, little-endian `u32`s. A job is a 32-byte header `code_len, code_offset, segments,
//! out_offset, out_len, extra_offset, extra_len` (then padding), then `code_len` bytes of code stored at
//! `CODE + code_offset` (none: the kernel is already there), then `segments` times
//! `offset, len` and `len` bytes, stored at `DATA + offset`. The runner makes new code visible
//! to instruction fetch (`dc cvau`, `dsb ish`, `ic ivau`, `dsb ish`, `isb` over the cache lines
//! `CTR_EL0` reports), calls `CODE + code_offset` with `x0 = DATA` (AAPCS64), and answers with
//! the `out_len` bytes at `DATA + out_offset`, then the `extra_len` bytes at
//! `DATA + extra_offset` (a second, small region: the emitted-triangle count). The code region keeps many kernels, so switching
//! between shaders neither resends nor (under qemu) retranslates them. End of input (or any failed read or write) ends the
//! process with `exit_group(0)`.

// dynasm expands register arguments to `.into()` calls, which clippy flags on `u8`s.
#![allow(clippy::useless_conversion)]

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};

/// Load address of the file.
pub const BASE: u64 = 0x40_0000;
/// The job header page.
pub const HDR: u64 = 0x41_0000;
/// The kernel.
pub const CODE: u64 = 0x42_0000;
/// Largest kernel.
pub const CODE_MAX: u64 = 0x40_0000;
/// The job's memory image.
pub const DATA: u64 = 0x100_0000;
/// Largest memory image.
pub const DATA_MAX: u64 = 0x0F00_0000;

const _: () = assert!(HDR + 0x1000 <= CODE && CODE + CODE_MAX <= DATA);

const EHDR: usize = 64;
const PHDR: usize = 56;

/// Emits `X(d) = value` as `movz` + `movk`s (for the stub's fixed addresses).
fn mov64(ops: &mut VecAssembler<Aarch64Relocation>, d: u8, value: u64) {
    let c = |k: u32| ((value >> (16 * k)) & 0xFFFF) as u32;
    let (c0, c1, c2) = (c(0), c(1), c(2));
    dynasm!(ops ; .arch aarch64 ; movz X(d), #c0 ; movk X(d), #c1, lsl #16 ; movk X(d), #c2, lsl #32);
}

/// The stub's machine code (position-independent; entry at its first byte).
pub fn stub() -> Vec<u8> {
    let mut ops = VecAssembler::<Aarch64Relocation>::new(0);
    mov64(&mut ops, 19, HDR);
    mov64(&mut ops, 20, CODE);
    mov64(&mut ops, 21, DATA);
    dynasm!(ops ; .arch aarch64
        ; job:
        ; mov x1, x19
        ; movz x2, #32
        ; bl ->read_full
        ; ldr w22, [x19]
        ; ldr w26, [x19, #4]
        ; add x26, x20, x26
        ; ldr w23, [x19, #8]
        ; ldr w24, [x19, #12]
        ; ldr w25, [x19, #16]
        ; cbz w22, >segments
        ; mov x1, x26
        ; mov x2, x22
        ; bl ->read_full
        // Cache maintenance over [kernel, kernel + code_len).
        ; mrs x9, #0x5801 // CTR_EL0
        ; ubfx x10, x9, #16, #4
        ; movz x11, #4
        ; lsl x11, x11, x10
        ; add x13, x26, x22
        ; mov x12, x26
        ; dline:
        ; dc cvau, x12
        ; add x12, x12, x11
        ; cmp x12, x13
        ; b.lo <dline
        ; dsb ish
        ; and x10, x9, #0xF
        ; movz x11, #4
        ; lsl x11, x11, x10
        ; mov x12, x26
        ; iline:
        ; ic ivau, x12
        ; add x12, x12, x11
        ; cmp x12, x13
        ; b.lo <iline
        ; dsb ish
        ; isb
        ; segments:
        ; cbz w23, >call
        ; add x1, x19, #32
        ; movz x2, #8
        ; bl ->read_full
        ; ldr w9, [x19, #32]
        ; ldr w2, [x19, #36]
        ; add x1, x21, x9
        ; bl ->read_full
        ; sub w23, w23, #1
        ; b <segments
        ; call:
        ; mov x0, x21
        ; blr x26
        ; add x1, x21, x24
        ; mov x2, x25
        ; bl ->write_full
        ; ldr w9, [x19, #20]
        ; ldr w2, [x19, #24]
        ; add x1, x21, x9
        ; bl ->write_full
        ; b <job
        // x1 = buffer, x2 = length; clobbers x0, x8.
        ; ->read_full:
        ; cbz x2, >done
        ; movz x0, #0
        ; movz x8, #63 // read
        ; svc #0
        ; cmp x0, #0
        ; b.le ->exit
        ; add x1, x1, x0
        ; sub x2, x2, x0
        ; b ->read_full
        ; done:
        ; ret
        ; ->write_full:
        ; cbz x2, >done
        ; movz x0, #1
        ; movz x8, #64 // write
        ; svc #0
        ; cmp x0, #0
        ; b.le ->exit
        ; add x1, x1, x0
        ; sub x2, x2, x0
        ; b ->write_full
        ; done:
        ; ret
        ; ->exit:
        ; movz x0, #0
        ; movz x8, #94 // exit_group
        ; svc #0
        ; b ->exit
    );
    ops.finalize().expect("the runner stub assembles")
}

/// The whole ELF file: header, one program header, the stub.
pub fn runner_elf() -> Vec<u8> {
    let code = stub();
    let file_len = (EHDR + PHDR + code.len()) as u64;
    let mut f = Vec::with_capacity(file_len as usize);
    let u16le = |f: &mut Vec<u8>, v: u16| f.extend_from_slice(&v.to_le_bytes());
    let u32le = |f: &mut Vec<u8>, v: u32| f.extend_from_slice(&v.to_le_bytes());
    let u64le = |f: &mut Vec<u8>, v: u64| f.extend_from_slice(&v.to_le_bytes());
    // e_ident: magic, ELFCLASS64, ELFDATA2LSB, EV_CURRENT, System V ABI, padding.
    f.extend_from_slice(&[0x7F, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    u16le(&mut f, 2); // e_type: ET_EXEC
    u16le(&mut f, 183); // e_machine: EM_AARCH64
    u32le(&mut f, 1); // e_version
    u64le(&mut f, BASE + (EHDR + PHDR) as u64); // e_entry
    u64le(&mut f, EHDR as u64); // e_phoff
    u64le(&mut f, 0); // e_shoff
    u32le(&mut f, 0); // e_flags
    u16le(&mut f, EHDR as u16); // e_ehsize
    u16le(&mut f, PHDR as u16); // e_phentsize
    u16le(&mut f, 1); // e_phnum
    u16le(&mut f, 64); // e_shentsize
    u16le(&mut f, 0); // e_shnum
    u16le(&mut f, 0); // e_shstrndx
                      // Program header: PT_LOAD, RWX, the file at BASE, bss up to the end of DATA.
    u32le(&mut f, 1); // p_type
    u32le(&mut f, 7); // p_flags: R | W | X
    u64le(&mut f, 0); // p_offset
    u64le(&mut f, BASE); // p_vaddr
    u64le(&mut f, BASE); // p_paddr
    u64le(&mut f, file_len); // p_filesz
    u64le(&mut f, DATA + DATA_MAX - BASE); // p_memsz
    u64le(&mut f, 0x1_0000); // p_align
    f.extend_from_slice(&code);
    debug_assert_eq!(f.len() as u64, file_len);
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_fits() {
        let elf = runner_elf();
        assert!(elf.len() < 0x1000, "the stub stays on its page");
        assert!(BASE + (elf.len() as u64) < HDR);
        assert_eq!(&elf[..4], b"\x7FELF");
        assert_eq!(elf[EHDR + PHDR..].len() % 4, 0);
    }
}
