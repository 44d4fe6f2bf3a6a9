//! Every diagnostic of picasso's assembler (and the ones picajit adds where picasso would
//! write something other than the text says), with its message, line and column.

use super::super::{assemble, assemble_with, Diagnostic, Options, Severity, Source};
use super::{errors, warnings};

/// The first error of `text` is `message` at `line`:`col`.
fn expect(text: &str, line: u32, col: u32, message: &str) {
    let errs = errors(text);
    let e = &errs[0];
    assert_eq!(
        (e.message.as_str(), e.line, e.col),
        (message, Some(line), Some(col)),
        "for:\n{text}\nall: {errs:#?}"
    );
}

fn proc_with(lines: &str) -> String {
    format!(".proc main\n{lines}\nend\n.end\n")
}

fn files_errors(files: &[(&str, &str)]) -> Vec<Diagnostic> {
    let sources: Vec<Source> = files.iter().map(|(n, t)| Source::new(*n, *t)).collect();
    assemble(&sources).unwrap_err()
}

#[test]
fn instruction_level() {
    expect(&proc_with("foo r0"), 2, 1, "invalid instruction: foo");
    expect(&proc_with("loop_ r0"), 2, 1, "invalid instruction: loop_");
    expect("mov r0, r1\n", 1, 1, "instruction outside block");
    expect(&proc_with("add r0, r1"), 2, 1, "missing parameter");
    expect(&proc_with("mov r0, r1, r2"), 2, 13, "too many parameters");
    expect(&proc_with("mov r0, q5"), 2, 9, "invalid register: q5");
    expect(
        &proc_with("mov r0, r1.xk"),
        2,
        12,
        "invalid swizzling mask: xk",
    );
    expect(
        &proc_with("add r0, r1, c1"),
        2,
        13,
        "invalid source2 register: c1",
    );
    expect(
        &proc_with("mov r0, o1"),
        2,
        9,
        "output registers cannot be read: picasso writes the input register with the same \
         code, v1; write `v1` (or keep the value in a temporary register)",
    );
    expect(
        &proc_with("mad r0, r1, r2, b1"),
        2,
        17,
        "invalid source3 register: b1",
    );
    expect(
        &proc_with("mad r0, c1, r2, r3"),
        2,
        9,
        "invalid source1 register: c1",
    );
    expect(
        &proc_with("mov v0, r1"),
        2,
        5,
        "an input register cannot be written: picasso writes the output register with the \
         same code, o0; write `o0` (or a temporary register)",
    );
    expect(
        &proc_with("add r0, c1, c2[a0.x]"),
        2,
        13,
        "index register not allowed in source2",
    );
    expect(
        &proc_with("cmp r1, eq, eq, c2[aL]"),
        2,
        17,
        "index register not allowed in source2",
    );
    expect(
        &proc_with("mov r0, r1[a0.x]"),
        2,
        9,
        "index register not allowed with this kind of register",
    );
    // On an alias picasso sets the index bits (a warning; an error under --strict).
    expect(
        &proc_with(".alias t r1\nmov r0, t[a0.x]"),
        3,
        9,
        "index register not allowed with this kind of register: `t` is r1, and only float \
         uniforms (c0..c95) are addressed relatively; picasso sets the index bits anyway and the \
         hardware reads r1 without an offset; write the operand without the index register",
    );
    expect(
        &proc_with("add r0, v0, v1"),
        2,
        5,
        "source operands must be different input registers (v0..v15)",
    );
    expect(
        &proc_with("mad r0, v0, v0, v2"),
        2,
        5,
        "source operands must be different input registers (v0..v15)",
    );
    expect(
        &proc_with("mov r0, c1[-2]"),
        2,
        12,
        "invalid register offset: -2",
    );
    expect(
        &proc_with("mov r0, c1[a3+1]"),
        2,
        12,
        "invalid index register: a3",
    );
    expect(
        &proc_with("mova a2, c0"),
        2,
        6,
        "invalid destination register for mova: a2",
    );
    expect(
        &proc_with("cmp c0, eq, xx, r0"),
        2,
        13,
        "invalid conditional operator: xx",
    );
    expect(
        &proc_with("ifc cmp.z"),
        2,
        5,
        "invalid condition register: cmp.z",
    );
    expect(
        &proc_with("breakc cmp.x && !cmp.x"),
        2,
        8,
        "condition register checked twice",
    );
    expect(
        &proc_with("ifu !b0\n.end"),
        2,
        5,
        "inverting the condition is not supported by ifu",
    );
    expect(&proc_with("call 3x"), 2, 6, "invalid target: 3x");
    expect(
        &proc_with("jmpc cmp.x, 0x5000"),
        2,
        13,
        "invalid target address: 0x5000 (0..4095)",
    );
}

#[test]
fn labels_procedures_entries() {
    expect("a:\na:\n", 2, 1, "duplicate label: a");
    expect(
        &proc_with("jmpc cmp.x, nowhere"),
        2,
        13,
        "label 'nowhere' is undefined",
    );
    expect(
        &proc_with("call nowhere"),
        2,
        6,
        "procedure 'nowhere' is undefined",
    );
    expect(
        ".entry start\n.proc main\nend\n.end\n",
        1,
        8,
        "entrypoint 'start' is undefined",
    );
    // Without .entry the message is about the file.
    let e = &errors(".proc other\nend\n.end\n")[0];
    assert_eq!(
        (e.message.as_str(), e.line),
        ("entrypoint 'main' is undefined", None)
    );
    let e = &errors(".nodvle\n.proc main\nend\n.end\n")[0];
    assert_eq!(
        e.message,
        "no DVLEs can be generated from the given input file(s)"
    );
    expect(
        ".proc main\nend\n.end\n.proc main\n.end\n",
        4,
        7,
        "proc already exists: main",
    );
    let e = &files_errors(&[
        ("a", ".proc f\nnop\n.end\n.proc main\nend\n.end"),
        ("b", ".proc f\nnop\n.end"),
    ])[0];
    assert_eq!(
        (e.file.as_str(), e.message.as_str()),
        ("b", "proc already exists: f")
    );
}

#[test]
fn blocks() {
    expect(".proc main\n.else\n.end\n", 2, 1, ".else with unmatched IF");
    expect(
        &proc_with("ifu b0\nnop\n.else\nnop\n.else\n.end"),
        6,
        1,
        "spurious .else",
    );
    expect(".end\n", 1, 1, ".end with unmatched block");
    expect(".proc main\nend\n", 1, 7, "unclosed block(s)");
    let deep = "ifu b0\n".repeat(32);
    expect(&proc_with(&deep), 33, 1, "too many nested blocks");
}

#[test]
fn outputs_and_geometry() {
    expect(".out x foo\n", 1, 8, "invalid output type: foo");
    expect(
        ".out x texcoord1.xy o1\n",
        1,
        8,
        "invalid output type: texcoord1.xy",
    );
    expect(
        ".out a pos o0\n.out b clr o0.x\n",
        2,
        12,
        "this output collides with another one previously defined",
    );
    expect(
        ".out a pos o8\n",
        1,
        12,
        "this register (o8) can only be a dummy output",
    );
    expect(
        ".fvec a\n.gsh point c0\n",
        2,
        1,
        ".gsh must be used before any constant, uniform or output is declared",
    );
    expect(
        ".gsh point c0\n.out a pos o7\n",
        2,
        12,
        "invalid output register: o7",
    );
    expect(
        ".gsh fixed c4 c8 3\n",
        1,
        15,
        "specified location overlaps uniform allocation pool: c8",
    );
}

#[test]
fn uniforms_and_constants() {
    expect(".fvec a\n.fvec a\n", 2, 7, "identifier already used: a");
    expect(
        ".fvec a\n.constf a(1, 2, 3, 4)\n",
        2,
        9,
        "identifier already used: a",
    );
    expect(
        ".fvec a[90], b[10]\n",
        1,
        14,
        "not enough uniform space: b[10]",
    );
    // Constants taken by an earlier file still bound the uniforms of later files.
    let e = &files_errors(&[
        (
            "a",
            ".constf k(1,1,1,1)\n.constf j(1,1,1,1)\n.proc main\nend\n.end",
        ),
        ("b", ".fvec u[95]\n.proc m2\nend\n.end\n.entry m2"),
    ])[0];
    assert_eq!(e.message, "not enough uniform space: u[95]");
    expect(
        ".fvec a[95]\n.constf k(1,1,1,1)\n.constf j(1,1,1,1)\n",
        3,
        9,
        "not enough space for local constant 'j'",
    );
    let e = &files_errors(&[
        ("a", ".fvec u[2]\n.proc main\nend\n.end"),
        ("b", ".fvec u[3]\n.nodvle"),
    ])[0];
    assert_eq!(
        (e.file.as_str(), e.line, e.message.as_str()),
        (
            "b",
            Some(1),
            "uniform 'u' previously declared as having size 2"
        )
    );
    let e = &files_errors(&[
        ("a", ".fvec u\n.proc main\nend\n.end"),
        ("b", ".ivec u\n.nodvle"),
    ])[0];
    assert_eq!(e.message, "mismatched uniform type: u");
    expect(
        ".constfa arr[1]\n.constfa (1,1,1,1)\n.constfa (2,2,2,2)\n.end\n",
        3,
        1,
        "too many elements in the array, expected 1",
    );
    expect(
        ".constfa arr[]\n.end\n",
        2,
        1,
        "no elements have been specified in array 'arr'",
    );
    expect(".constf k(1, 2, 3)\n", 1, 9, "invalid syntax");
    expect(".constf k(1, 2)\n", 1, 1, "missing parameter");
    expect(".constf k(1, 2, 3, 4\n", 1, 9, "invalid syntax");
    expect(
        ".constf k(1, 2, x, 4)\n",
        1,
        17,
        "invalid float value: picasso reads `x` as 0 (C `atof` stops at the first character \
         that is not part of a number); write `0`",
    );
    expect(
        ".consti k(1, 2, 0x10, 4)\n",
        1,
        17,
        "invalid integer value: picasso reads `0x10` as 0 (C `atoi` reads decimal digits \
         only); write `0`, or `16` if the hex value was meant",
    );
    expect(".setb b3 maybe\n", 1, 10, "invalid bool value: maybe");
    expect(
        ".setf i0(1, 2, 3, 4)\n",
        1,
        7,
        "invalid floating point vector uniform: i0",
    );
}

#[test]
fn descriptor_limit() {
    // 129 distinct descriptors: mov r0 writes every component, so all four selectors count.
    let mut lines = String::new();
    for sw in 0..129usize {
        let sel: String = [sw >> 6 & 3, sw >> 4 & 3, sw >> 2 & 3, sw & 3]
            .iter()
            .map(|&c| b"xyzw"[c] as char)
            .collect();
        lines += &format!("mov r0, c0.{sel}\n");
    }
    let text = proc_with(lines.trim_end());
    expect(&text, 130, 1, "too many operand descriptors (limit is 128)");
}

#[test]
fn vertex_code_limit() {
    // 513 words are accepted (picasso checks before each instruction whether more than 512
    // are already there), the 514th is refused.
    let ok = proc_with(&"nop\n".repeat(512));
    assert!(assemble(&[Source::new("t", ok.as_str())]).is_ok());
    let bad = proc_with("nop\n".repeat(513).trim_end());
    expect(
        &bad,
        515,
        1,
        "instruction outside vertex shader code memory (max 512 instructions, currently 513)",
    );
    // Geometry shaders are not limited.
    let geo = format!(".gsh\n{}", proc_with(&"nop\n".repeat(600)));
    assert!(assemble(&[Source::new("t", geo.as_str())]).is_ok());
}

#[test]
fn warnings_are_reported() {
    let w = warnings(&proc_with("mov r0.yx, r1"), true);
    assert_eq!(
        w[0].message,
        "arbitrary swizzling has no effect for destination mask"
    );
    assert_eq!(
        (w[0].severity, w[0].line, w[0].col),
        (Severity::Warning, Some(2), Some(5))
    );
    let w = warnings(&proc_with("ifu b0\n.end"), false);
    assert_eq!(w[0].message, "a padding NOP is required here");
    assert_eq!((w[0].line, w[0].col), (Some(3), Some(1)));
    let w = warnings(&proc_with("mov -r0, r1"), true);
    assert_eq!(w[0].message, "negation has no effect on a destination");
}

#[test]
fn where_picasso_writes_something_else() {
    // for i5: picasso encodes i1 with bit 24 set.
    expect(
        &proc_with("for i5\n.end"),
        2,
        5,
        "invalid integer vector uniform: i5 (there are i0..i3): picasso writes i1 and sets bit \
         24 of the instruction, which the loop does not read; write `i1`",
    );
    expect(
        &proc_with("for i8\n.end"),
        2,
        5,
        "invalid integer vector uniform register: i8",
    );
    expect(
        ".seti i4(1, 2, 3, 4)\n",
        1,
        7,
        "invalid integer vector uniform: i4",
    );
    // Octal register numbers: picasso reads c010 as c8.
    let e = &errors(&proc_with("mov r0, c010"))[0];
    assert!(e
        .message
        .starts_with("ambiguous register number: picasso reads `c010` as octal, c8"));
    expect(
        &proc_with("mov r0, c08"),
        2,
        9,
        "picasso writes `c08` as c0, ignoring `8` after the register number; write `c0`",
    );
    // Unknown setemit flags: picasso prints an error and still writes the file.
    expect(
        &proc_with("setemit 0, prim wat"),
        2,
        17,
        "unknown setemit flag: wat: picasso reports it as an error but still writes the file, \
         without the flag; remove it (the flags are `prim` and `inv`)",
    );
    expect(&proc_with("setemit 3"), 2, 9, "invalid vertex id: 3 (0..2)");
    expect(
        &proc_with("setemit 01x"),
        2,
        9,
        "picasso reads the vertex id `01x` as 1 (it ignores `x` after the number); write `1`",
    );
    // Trailing text picasso ignores.
    expect(
        &proc_with("mov r0, r1x"),
        2,
        9,
        "picasso writes `r1x` as r1, ignoring `x` after the register number; write `r1`",
    );
    expect(
        &proc_with("mov r0, c1[3]z.x"),
        2,
        14,
        "unexpected text after ']': picasso ignores `z` and reads `c1[3].x`; write `c1[3].x`",
    );
    expect(
        &proc_with("mov r0, c1[3] zw"),
        2,
        15,
        "unexpected text after ']': picasso ignores `zw` and reads `c1[3]`; write `c1[3]`",
    );
    expect(
        &proc_with("mov r0, -c1."),
        2,
        9,
        "empty swizzle: picasso reads `-c1.` as `-c1.x` (one component, repeated); write \
         `-c1.x`, or leave the `.` out for all four components",
    );
    expect(
        &proc_with("ifu -b1.x\n.end"),
        2,
        5,
        "picasso ignores the negation and the swizzle of `-b1.x` here: it reads b1; write `b1`",
    );
    expect(
        &proc_with("ifu b1[a0.x]\n.end"),
        2,
        5,
        "index register not allowed with this kind of register",
    );
    expect(
        &proc_with("for i0.y\n.end"),
        2,
        5,
        "picasso ignores the swizzle of `i0.y` here: it reads i0; write `i0`",
    );
    expect(
        ".gsh point c10[a0.x]\n",
        1,
        12,
        "index register not allowed here: c10[a0.x]",
    );
    expect(
        &proc_with("mov r0, c1[foo]"),
        2,
        12,
        "picasso reads the register offset `foo` as 0 (C `atoi`); write the offset as a \
         decimal number, or leave the brackets out",
    );
    // An offset leaving the register file (picasso: r15[1] is c0).
    let e = &errors(&proc_with("mov r0, r15[1]"))[0];
    assert!(e
        .message
        .starts_with("register offset out of range: r15[1]"));
    // Malformed constants (picasso: 0).
    expect(
        ".constf k(1, 2, 3, 4x)\n",
        1,
        20,
        "invalid float value: picasso reads `4x` as 4 (C `atof` stops at the first character \
         that is not part of a number); write `4`",
    );
    // .in and .out take their own register kinds; picasso reads the code.
    expect(
        ".in a o3\n",
        1,
        7,
        "invalid input register: o3: picasso reads it as the input register with the same \
         code, v3; write `v3`",
    );
    expect(".in a r3\n", 1, 7, "invalid input register: r3");
    expect(
        ".out a pos v0\n",
        1,
        12,
        "invalid output register: v0: picasso reads it as the output register with the same \
         code, o0; write `o0`",
    );
    expect(
        ".gsh\n.out a pos v7\n",
        2,
        12,
        "invalid output register: v7",
    );
    expect(".out a pos c0\n", 1, 12, "invalid output register: c0");
    // Declarations and vectors: what picasso skips.
    expect(
        ".fvec a, , b\n",
        1,
        10,
        "invalid uniform name: (empty): picasso declares a uniform with an empty name here, \
         which takes c1 and an entry in the DVLE's uniform table; remove the extra comma, or \
         name the uniform",
    );
    expect(
        ".fvec a, b[2]c\n",
        1,
        14,
        "unexpected text after ']': picasso ignores `c`; remove it",
    );
    expect(
        ".constf k(1, 2, 3, 4, 5, 6)\n",
        1,
        21,
        "too many parameters: picasso reads four components and ignores `, 5, 6` after the \
         fourth; remove it",
    );
    expect(
        ".constf k(1, 2, 3, 4) ; x\n.constf j(1, 2, 3, 4)) x\n",
        2,
        22,
        "unexpected text after ')': picasso ignores `) x`; remove it",
    );
    expect(
        ".out p position.\n",
        1,
        8,
        "empty output mask: picasso reads `position.` as `position.x` (the x component only); \
         write `position.x`, or leave the `.` out for all four components",
    );
    expect(
        ".alias x o1\n.in a x\n",
        2,
        7,
        "invalid input register: x: picasso reads it as the input register with the same \
         code, v1; write `v1`",
    );
    expect(
        "\n.proc main\0junk\n",
        2,
        11,
        "NUL byte in source text: picasso stops reading the file here and ignores the rest; \
         remove the NUL byte (and what follows it, if it is not meant to be assembled)",
    );
}

#[test]
fn every_error_of_a_file_is_reported() {
    let errs = errors(&proc_with("mov r0, q1\nadd r0, r1\nfoo\nmov r0, r1.xyzwx"));
    let lines: Vec<_> = errs.iter().map(|e| e.line).collect();
    assert_eq!(lines, [Some(2), Some(3), Some(4), Some(5)]);
    // The rendering: headline, the line, a marker under the offending text.
    assert_eq!(
        errs[0].to_string(),
        "t.pica:2:9: error: invalid register: q1\n    mov r0, q1\n            ^~"
    );
}

#[test]
fn diagnostics_keep_going_across_files() {
    let d = assemble_with(
        &[
            Source::new("a", "mov r0, r1\n"),
            Source::new("b", "bogus\n"),
        ],
        &Options::default(),
    )
    .unwrap_err();
    let files: Vec<_> = d.iter().map(|e| e.file.as_str()).collect();
    assert_eq!(files, ["a", "b"]);
}

#[test]
fn extension_diagnostics() {
    expect(
        &proc_with("!0x123456789"),
        2,
        1,
        "invalid raw word: !0x123456789",
    );
    expect(&proc_with("!12 !zz"), 2, 5, "invalid raw word: !zz");
    expect(
        &proc_with("mov r0, r1 @0"),
        2,
        1,
        "an explicit operand descriptor (@N) needs a pinned table (.opdesc)",
    );
    expect(
        ".opdesc 0x36f\n.proc main\nmov r0, r1 @1\nend\n.end\n",
        3,
        1,
        "operand descriptor 1 does not exist (or is out of reach)",
    );
    expect(
        ".opdesc 0x1234\n.proc main\nmov r0, r1 @0\nend\n.end\n",
        3,
        1,
        "operand descriptor 0 (0x00001234) does not fit this instruction (needs 0x0000036f on \
         bits 0x00001fff)",
    );
    expect(
        ".opdesc 0x1234\n.proc main\nmov r0, r1\nend\n.end\n",
        3,
        1,
        "no pinned operand descriptor fits this instruction (needs 0x0000036f on bits 0x00001fff)",
    );
    expect(
        ".proc main\nmov r0, r1\n.opdesc 0x36f\nend\n.end\n",
        3,
        1,
        ".opdesc must come before any instruction that uses an operand descriptor",
    );
    expect(
        &proc_with("mov r0, r1 @x"),
        2,
        13,
        "invalid operand descriptor index: x",
    );
    expect(
        &proc_with("call there, 300"),
        2,
        13,
        "invalid count: 300 (0..255)",
    );
    expect(
        &proc_with("call there, 3"),
        2,
        6,
        "label or procedure 'there' is undefined",
    );
    expect(
        ".entry a b\n.proc main\nend\n.end\n",
        1,
        8,
        "label or procedure 'a' is undefined",
    );
    expect(&proc_with(".file x"), 2, 1, ".file inside an open block");
    expect(
        ".constf k(0x1.8p, 1, 1, 1)\n",
        1,
        11,
        "invalid float value: picasso reads `0x1.8p` as 1.5 (C `atof` stops at the first \
         character that is not part of a number); write `1.5`",
    );
    expect(
        ".constf k(!0x1ffffffff, 1, 1, 1)\n",
        1,
        11,
        "invalid raw word: !0x1ffffffff",
    );
}
