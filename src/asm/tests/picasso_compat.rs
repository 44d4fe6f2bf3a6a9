//! picasso compatibility: text that picasso 2.7.1 accepts but encodes as something other than
//! what it seems to say assembles to picasso's bytes, with a warning that says what picasso
//! wrote and how to write it unambiguously; `--strict` (`Options::strict`) refuses it with the
//! same message. Each test holds the SHBIN that picasso 2.7.1 (devkitPro, built from its
//! source) wrote for the test's source, as hex.

use super::{render, Options};
use crate::asm::{assemble, assemble_with, Source};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// `text` assembles to `picasso` (hex) with exactly one warning, whose first line is
/// `headline`; under `--strict` the same message is the one error.
fn check(text: &str, picasso: &str, headline: &str) {
    let sources = [Source::new("t.v.pica", text)];
    let (shbin, warnings) = match assemble(&sources) {
        Ok(ok) => ok,
        Err(d) => panic!("refused:\n{}", render(&d)),
    };
    assert_eq!(
        shbin.to_bytes(),
        hex(picasso),
        "bytes differ from picasso 2.7.1's"
    );
    let lines: Vec<String> = warnings.iter().map(|w| w.headline()).collect();
    assert_eq!(lines, [headline], "{}", render(&warnings));
    let strict = Options {
        strict: true,
        ..Options::default()
    };
    let errors = assemble_with(&sources, &strict).expect_err("--strict refuses it");
    // The first error (a refused constant can cause more where it is used).
    let first = errors.iter().find(|d| d.is_error()).map(|d| d.headline());
    assert_eq!(
        first,
        Some(headline.replacen(": warning: ", ": error: ", 1))
    );
}

/// `.fvec name[32*2]`: picasso's `atoi` reads the size as 32 (the uniform after it starts at c32).
#[test]
fn fvec_size() {
    check(
        concat!(
            ".fvec arr[32*2]\n",
            ".fvec after\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, after\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000000044c000000886f0300000000000044564c4502100000000000000200000000000100\
         000000004000000000000000400000000000000040000000010000004800000002000000580000000a000000\
         000000000f0000000000000010002f000400000030003000617272006166746572000000",
        "t.v.pica:1:11: warning: picasso reads the size `32*2` as 32 (C `atoi` stops at the first character that is not a digit); write `[32]`, or `[64]` if the value of `32*2` was meant (no arithmetic is done)",
    );
}

/// `.constf c(1.0, 1.0/128.0, …)`: picasso's `atof` reads `1.0/128.0` as 1.0.
#[test]
fn constf_div() {
    check(
        concat!(
            ".constf k(1.0, 1.0/128.0, 1.0, 1.0)\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, k\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         000000000000000000f0074c000000886f0300000000000044564c4502100000000000000200000000000100\
         000000004000000001000000540000000000000054000000010000005c000000000000005c00000000000000\
         02005f0000003f0000003f0000003f0000003f00000000000f000000",
        "t.v.pica:1:16: warning: invalid float value: picasso reads `1.0/128.0` as 1 (C `atof` stops at the first character that is not part of a number); write `1`, or `0.0078125` if the value of `1.0/128.0` was meant (no arithmetic is done)",
    );
}

/// `.setb b1, true`: `.setb` takes blank-separated arguments; picasso reads `b1,` as b1.
#[test]
fn setb_comma() {
    check(
        concat!(
            ".setb b1, true\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, v0\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000000004c000000886f0300000000000044564c4502100000000000000200000000000100\
         000000004000000001000000540000000000000054000000010000005c000000000000005c00000000000000\
         0000010001000000000000000000000000000000000000000f000000",
        "t.v.pica:1:7: warning: picasso writes `b1,` as b1, ignoring `,` after the register number; write `b1`",
    );
}

/// `mov outtc1, outtc0`: an output register as a source is the input register of the same number to picasso.
#[test]
fn out_src() {
    check(
        concat!(
            ".out outtc0 texcoord0\n",
            ".out outtc1 texcoord1\n",
            ".proc main\n",
            " mov outtc0, v2\n",
            " mov outtc1, outtc0\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004800000044564c5000000000280000000300000034000000010000003c00000000000000\
         00000000000000000020004c0000204c000000886f0300000000000044564c45021000000000000003000000\
         0000030000000000400000000000000040000000000000004000000002000000500000000000000050000000\
         00000000030000000f000000050001000f000000",
        "t.v.pica:5:14: warning: output registers cannot be read: picasso writes the input register with the same code, v0; write `v0` (or keep the value in a temporary register)",
    );
}

/// `r1x`: text after a register number is ignored.
#[test]
fn reg_tail() {
    check(
        concat!(
            ".out pos position\n",
            ".proc main\n",
            " mov pos, r1x\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000010014c000000886f0300000000000044564c4502100000000000000200000000000100\
         0000000040000000000000004000000000000000400000000100000048000000000000004800000000000000\
         000000000f000000",
        "t.v.pica:3:11: warning: picasso writes `r1x` as r1, ignoring `x` after the register number; write `r1`",
    );
}

/// `c010`: a leading zero makes the number octal (C `strtoll` base 0).
#[test]
fn reg_octal() {
    check(
        concat!(
            ".out pos position\n",
            ".proc main\n",
            " mov pos, c010\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000080024c000000886f0300000000000044564c4502100000000000000200000000000100\
         0000000040000000000000004000000000000000400000000100000048000000000000004800000000000000\
         000000000f000000",
        "t.v.pica:3:11: warning: ambiguous register number: picasso reads `c010` as octal, c8; write `c8` (or the number without leading zeros if decimal was meant)",
    );
}

/// `c2 3`: text after the register number is ignored, blanks included.
#[test]
fn reg_space() {
    check(
        concat!(
            ".out pos position\n",
            ".proc main\n",
            " mov pos, c2 3\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000020024c000000886f0300000000000044564c4502100000000000000200000000000100\
         0000000040000000000000004000000000000000400000000100000048000000000000004800000000000000\
         000000000f000000",
        "t.v.pica:3:11: warning: picasso writes `c2 3` as c2, ignoring ` 3` after the register number; write `c2`",
    );
}

/// `R1`: picasso's register letters are case-sensitive; an uppercase one adds no file base.
#[test]
fn upper() {
    check(
        concat!(
            ".out pos position\n",
            ".proc main\n",
            " mov r0, R1\n",
            " mov pos, r0\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004800000044564c5000000000280000000300000034000000010000003c00000000000000\
         00000000000000000010004e0000014c000000886f0300000000000044564c45021000000000000003000000\
         0000010000000000400000000000000040000000000000004000000001000000480000000000000048000000\
         00000000000000000f000000",
        "t.v.pica:3:10: warning: picasso reads an uppercase register letter as a raw register code: `R1` is v1 (o1 as a destination), not r1; write `v1` for picasso's meaning or `r1` for the other",
    );
}

/// `mov v0, r1`: an input register as a destination is the output register of the same number.
#[test]
fn in_dest() {
    check(
        concat!(
            ".out pos position\n",
            ".proc main\n",
            " mov v0, r1\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000010014c000000886f0300000000000044564c4502100000000000000200000000000100\
         0000000040000000000000004000000000000000400000000100000048000000000000004800000000000000\
         000000000f000000",
        "t.v.pica:3:6: warning: an input register cannot be written: picasso writes the output register with the same code, o0; write `o0` (or a temporary register)",
    );
}

/// `.consti k(0x10, …)`: `atoi` reads no hex.
#[test]
fn const_int() {
    check(
        concat!(
            ".consti k(0x10, 1, 2, 3)\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, v0\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000000004c000000886f0300000000000044564c4502100000000000000200000000000100\
         000000004000000001000000540000000000000054000000010000005c000000000000005c00000000000000\
         0100030000010203000000000000000000000000000000000f000000",
        "t.v.pica:1:11: warning: invalid integer value: picasso reads `0x10` as 0 (C `atoi` reads decimal digits only); write `0`, or `16` if the hex value was meant",
    );
}

/// `arr[foo]`: a register offset is read with `atoi`.
#[test]
fn offset_text() {
    check(
        concat!(
            ".fvec arr[4]\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, arr[foo]\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000000024c000000886f0300000000000044564c4502100000000000000200000000000100\
         0000000040000000000000004000000000000000400000000100000048000000010000005000000004000000\
         000000000f000000000000001000130061727200",
        "t.v.pica:4:15: warning: picasso reads the register offset `foo` as 0 (C `atoi`); write the offset as a decimal number, or leave the brackets out",
    );
}

/// `r15[1]`: the offset runs into the next register file.
#[test]
fn offset_range() {
    check(
        concat!(
            ".out pos position\n",
            ".proc main\n",
            " mov r0, r15[1]\n",
            " mov pos, r0\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004800000044564c5000000000280000000300000034000000010000003c00000000000000\
         00000000000000000000024e0000014c000000886f0300000000000044564c45021000000000000003000000\
         0000010000000000400000000000000040000000000000004000000001000000480000000000000048000000\
         00000000000000000f000000",
        "t.v.pica:3:10: warning: register offset out of range: r15[1] (past r15): picasso adds the offset to the register code and writes c0; write `c0`",
    );
}

/// `for i5`: picasso accepts i4..i7 and writes the number's low two bits, with bit 24 set.
#[test]
fn for_i5() {
    check(
        concat!(
            ".out pos position\n",
            ".proc main\n",
            " for i5\n",
            "  add r0, r0, v0\n",
            " .end\n",
            " mov pos, r0\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004c00000044564c5000000000280000000400000038000000010000004000000000000000\
         0000000000000000000440a5000001020000014c000000886fc306000000000044564c450210000000000000\
         0400000000000100000000004000000000000000400000000000000040000000010000004800000000000000\
         4800000000000000000000000f000000",
        "t.v.pica:3:6: warning: invalid integer vector uniform: i5 (there are i0..i3): picasso writes i1 and sets bit 24 of the instruction, which the loop does not read; write `i1`",
    );
}

/// `arr[1]foo.y`: picasso skips the text between `]` and the swizzle's `.`.
#[test]
fn bracket_tail() {
    check(
        concat!(
            ".fvec arr[4]\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, arr[1]foo.y\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000010024c00000088af0a00000000000044564c4502100000000000000200000000000100\
         0000000040000000000000004000000000000000400000000100000048000000010000005000000004000000\
         000000000f000000000000001000130061727200",
        "t.v.pica:4:17: warning: unexpected text after ']': picasso ignores `foo` and reads `arr[1].y`; write `arr[1].y`",
    );
}

/// `c3.`: an empty swizzle is `.x` to picasso (x, repeated).
#[test]
fn empty_swizzle() {
    check(
        concat!(
            ".out pos position\n",
            ".proc main\n",
            " mov pos, c3.\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000030024c000000880f0000000000000044564c4502100000000000000200000000000100\
         0000000040000000000000004000000000000000400000000100000048000000000000004800000000000000\
         000000000f000000",
        "t.v.pica:3:11: warning: empty swizzle: picasso reads `c3.` as `c3.x` (one component, repeated); write `c3.x`, or leave the `.` out for all four components",
    );
}

/// `.fvec a,,b`: picasso declares a uniform with an empty name between the commas.
#[test]
fn empty_name() {
    check(
        concat!(
            ".fvec a,,b\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, b\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000020024c000000886f0300000000000044564c4502100000000000000200000000000100\
         0000000040000000000000004000000000000000400000000100000048000000030000006000000005000000\
         000000000f0000000000000010001000020000001100110003000000120012006100006200000000",
        "t.v.pica:1:9: warning: invalid uniform name: (empty): picasso declares a uniform with an empty name here, which takes c1 and an entry in the DVLE's uniform table; remove the extra comma, or name the uniform",
    );
}

/// `setemit 0, prim foo`: picasso reports the unknown flag as an error, yet writes the file.
#[test]
fn setemit_flag() {
    check(
        concat!(
            ".gsh\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, v0\n",
            " setemit 0, prim foo\n",
            " emit\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004c00000044564c5000000000280000000400000038000000010000004000000000000000\
         00000000000000000000004c000080ac000000a8000000886f0300000000000044564c450210010000000000\
         0400000000000100000000004000000000000000400000000000000040000000010000004800000000000000\
         4800000000000000000000000f000000",
        "t.v.pica:5:18: warning: unknown setemit flag: foo: picasso reports it as an error but still writes the file, without the flag; remove it (the flags are `prim` and `inv`)",
    );
}

/// `.in foo o3`: picasso checks the register code, which o3 shares with v3.
#[test]
fn in_output() {
    check(
        concat!(
            ".in foo o3\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, foo\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000030004c000000886f0300000000000044564c4502100000000000000200000008000100\
         0000000040000000000000004000000000000000400000000100000048000000010000005000000004000000\
         000000000f0000000000000003000300666f6f00",
        "t.v.pica:1:9: warning: invalid input register: o3: picasso reads it as the input register with the same code, v3; write `v3`",
    );
}

/// `.out pos position v2`: picasso checks the register code, which v2 shares with o2.
#[test]
fn out_input() {
    check(
        concat!(
            ".out pos position v2\n",
            ".proc main\n",
            " mov pos, v0\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000000404c000000886f0300000000000044564c4502100000000000000200000000000400\
         0000000040000000000000004000000000000000400000000100000048000000000000004800000000000000\
         000002000f000000",
        "t.v.pica:1:19: warning: invalid output register: v2: picasso reads it as the output register with the same code, o2; write `o2`",
    );
}

/// `foo[a0.x]` with `foo` an alias of r2: picasso checks the register kind of names only.
#[test]
fn alias_index() {
    check(
        concat!(
            ".alias foo r2\n",
            ".out pos position\n",
            ".proc main\n",
            " mov r2, v0\n",
            " mova a0.x, v1\n",
            " mov pos, foo[a0.x]\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000005400000044564c5000000000280000000400000038000000020000004800000000000000\
         00000000000000000000404e011000480020094c000000886f03000000000000680300000000000044564c45\
         0210000000000000040000000000010000000000400000000000000040000000000000004000000001000000\
         48000000000000004800000000000000000000000f000000",
        "t.v.pica:6:11: warning: index register not allowed with this kind of register: `foo` is r2, and only float uniforms (c0..c95) are addressed relatively; picasso sets the index bits anyway and the hardware reads r2 without an offset; write the operand without the index register",
    );
}

/// `.constf k(…) foo`: picasso ignores the text after `)`.
#[test]
fn const_after() {
    check(
        concat!(
            ".constf k(1.0, 2.0, 3.0, 4.0) foo\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, k\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         000000000000000000f0074c000000886f0300000000000044564c4502100000000000000200000000000100\
         000000004000000001000000540000000000000054000000010000005c000000000000005c00000000000000\
         02005f0000003f00000040000080400000004100000000000f000000",
        "t.v.pica:1:31: warning: unexpected text after ')': picasso ignores `foo`; remove it",
    );
}

/// `.constf k(1.0, 2.0, 3.0, 4.0, 5.0)`: `atof` reads the fourth value up to the comma.
#[test]
fn const_fifth() {
    check(
        concat!(
            ".constf k(1.0, 2.0, 3.0, 4.0, 5.0)\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, k\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         000000000000000000f0074c000000886f0300000000000044564c4502100000000000000200000000000100\
         000000004000000001000000540000000000000054000000010000005c000000000000005c00000000000000\
         02005f0000003f00000040000080400000004100000000000f000000",
        "t.v.pica:1:29: warning: too many parameters: picasso reads four components and ignores `, 5.0` after the fourth; remove it",
    );
}

/// `jmpu -flag, skip`: picasso drops the `-` of a bool uniform (it tests flag, not its negation).
#[test]
fn jmpu_neg() {
    check(
        concat!(
            ".bool flag\n",
            ".out pos position\n",
            ".proc main\n",
            " mov r0, v0\n",
            " jmpu -flag, skip\n",
            " add r0, r0, r0\n",
            "skip:\n",
            " mov pos, r0\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000005000000044564c500000000028000000050000003c000000010000004400000000000000\
         00000000000000000000004e000c00b4000801020000014c000000886fc306000000000044564c4502100000\
         0000000005000000000001000000000040000000000000004000000000000000400000000100000048000000\
         010000005000000005000000000000000f0000000000000078007800666c616700000000",
        "t.v.pica:5:7: warning: picasso ignores the negation of `-flag` here: it reads b0; write `flag` (`jmpu !flag, …` jumps when it is false)",
    );
}

/// `.setf -c5.x(…)`: picasso drops the negation and swizzle of the register.
#[test]
fn setf_mod() {
    check(
        concat!(
            ".setf -c5.x(1.0, 2.0, 3.0, 4.0)\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, c5\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000050024c000000886f0300000000000044564c4502100000000000000200000000000100\
         000000004000000001000000540000000000000054000000010000005c000000000000005c00000000000000\
         0200050000003f00000040000080400000004100000000000f000000",
        "t.v.pica:1:7: warning: picasso ignores the negation and the swizzle of `-c5.x` here: it reads c5; write `c5`",
    );
}

/// `.gsh variable c10 010`: picasso reads the count with `strtoll` base 0: octal 8.
#[test]
fn gsh_octal() {
    check(
        concat!(
            ".gsh variable c10 010\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, v0\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000000004c000000886f0300000000000044564c4502100100000000000200000000000100\
         0100080040000000000000004000000000000000400000000100000048000000000000004800000000000000\
         000000000f000000",
        "t.v.pica:1:19: warning: picasso reads the vertex count `010` as 8 (it reads the leading zero as octal); write `8`",
    );
}

/// `setemit 1x`: `strtoll` reads the vertex id 1 and stops at `x`.
#[test]
fn setemit_id() {
    check(
        concat!(
            ".gsh\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, v0\n",
            " setemit 1x\n",
            " emit\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004c00000044564c5000000000280000000400000038000000010000004000000000000000\
         00000000000000000000004c000000ad000000a8000000886f0300000000000044564c450210010000000000\
         0400000000000100000000004000000000000000400000000000000040000000010000004800000000000000\
         4800000000000000000000000f000000",
        "t.v.pica:5:10: warning: picasso reads the vertex id `1x` as 1 (it ignores `x` after the number); write `1`",
    );
}

/// A NUL byte: picasso reads the file as a C string and stops there.
#[test]
fn nul_byte() {
    check(
        concat!(
            ".out pos position\n",
            ".proc main\n",
            " mov pos, v0\n",
            " end\n",
            ".end\n",
            "\x00\x01garbage\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000000004c000000886f0300000000000044564c4502100000000000000200000000000100\
         0000000040000000000000004000000000000000400000000100000048000000000000004800000000000000\
         000000000f000000",
        "t.v.pica:6:1: warning: NUL byte in source text: picasso stops reading the file here and ignores the rest; remove the NUL byte (and what follows it, if it is not meant to be assembled)",
    );
}

/// `.out pos position.`: an empty output mask is `.x` to picasso.
#[test]
fn out_empty_mask() {
    check(
        concat!(
            ".out pos position.\n",
            ".proc main\n",
            " mov pos, v0\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000000004c000000886f0300000000000044564c4502100000000000000200000000000100\
         0000000040000000000000004000000000000000400000000100000048000000000000004800000000000000\
         0000000001000000",
        "t.v.pica:1:10: warning: empty output mask: picasso reads `position.` as `position.x` (the x component only); write `position.x`, or leave the `.` out for all four components",
    );
}

/// `.fvec arr[4]b`: picasso ignores the text after `]` of a uniform's size.
#[test]
fn decl_tail() {
    check(
        concat!(
            ".fvec arr[4]b\n",
            ".out pos position\n",
            ".proc main\n",
            " mov pos, arr[1]\n",
            " end\n",
            ".end\n",
        ),
        // picasso 2.7.1
        "44564c42010000004400000044564c5000000000280000000200000030000000010000003800000000000000\
         00000000000000000010024c000000886f0300000000000044564c4502100000000000000200000000000100\
         0000000040000000000000004000000000000000400000000100000048000000010000005000000004000000\
         000000000f000000000000001000130061727200",
        "t.v.pica:1:13: warning: unexpected text after ']': picasso ignores `b`; remove it",
    );
}
