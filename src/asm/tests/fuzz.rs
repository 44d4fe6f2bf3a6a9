//! Robustness: the assembler and the disassembler never panic, whatever the input — random
//! bytes, random lines built from the language's own words, and mutations of a real program.
//! Whatever assembles must also survive the disassembler round trip.

use super::super::{assemble, disassemble, Source};

const WORDS: &[&str] = &[
    ".proc",
    ".end",
    ".else",
    ".alias",
    ".fvec",
    ".ivec",
    ".bool",
    ".constf",
    ".consti",
    ".constfa",
    ".setf",
    ".seti",
    ".setb",
    ".in",
    ".out",
    ".entry",
    ".nodvle",
    ".gsh",
    ".opdesc",
    ".file",
    "main",
    "mov",
    "add",
    "mad",
    "madi",
    "dph",
    "cmp",
    "mova",
    "ifu",
    "ifc",
    "for",
    "call",
    "callc",
    "callu",
    "jmpc",
    "jmpu",
    "breakc",
    "setemit",
    "end",
    "nop",
    "r0",
    "r15",
    "v0",
    "v15",
    "o7",
    "c95",
    "c0[a0.x+1]",
    "i0",
    "b15",
    "a0.xy",
    "-",
    "!",
    "!0x12345678",
    "cmp.x",
    "&&",
    "||",
    "!cmp.y",
    "eq",
    "ge",
    ",",
    ",",
    ",",
    ":",
    ";",
    "#",
    "# 3 \"x\"",
    "(",
    ")",
    "[",
    "]",
    ".xyzw",
    ".w",
    "1.5",
    "0x1.8p+64",
    "-0",
    "position",
    "dummy",
    "o15.xy",
    "point",
    "fixed",
    "c8",
    "3",
    "@2",
    "prim",
    "inv",
    "lab",
    "lab:",
    "é",
    "\t",
    " ",
];

fn try_all(text: &str) {
    if let Ok((shbin, _)) = assemble(&[Source::new("fuzz.pica", text)]) {
        let back = disassemble(&shbin);
        let (again, _) = assemble(&[Source::new("again.pica", back.as_str())])
            .unwrap_or_else(|d| panic!("round trip of\n{text}\nfailed:\n{}", super::render(&d)));
        assert_eq!(again.dvlp.code, shbin.dvlp.code, "{text}");
    }
}

const CHARSET: &[u8] = b" \n\t.,;:#![]()-+abcdefghijklmnopqrstuvwxyz0123456789";

#[test]
fn random_bytes_never_panic() {
    let mut rng = fastrand::Rng::with_seed(0xF022);
    for _ in 0..3000 {
        let len = rng.usize(0..200);
        let bytes: Vec<u8> = (0..len)
            .map(|_| match rng.u8(..4) {
                0 => rng.u8(..),
                _ => CHARSET[rng.usize(..CHARSET.len())],
            })
            .collect();
        try_all(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn random_lines_never_panic() {
    let mut rng = fastrand::Rng::with_seed(0x11E5);
    for _ in 0..3000 {
        let mut text = String::from(if rng.bool() { ".proc main\n" } else { "" });
        for _ in 0..rng.usize(0..12) {
            for _ in 0..rng.usize(1..7) {
                text += WORDS[rng.usize(..WORDS.len())];
                text += if rng.bool() { " " } else { "" };
            }
            text += "\n";
        }
        if rng.bool() {
            text += "end\n.end\n";
        }
        try_all(&text);
    }
}

const PROGRAM: &str = "\
.fvec mvp[4], light
.constf k(1.0, 0.5, 0.0, 2.0)
.in pos v0
.out opos position
.out oclr color.rgba
.proc main
    dp4 opos.x, mvp[0], pos
    dp4 opos.y, mvp[1], pos
    mova a0.x, k.x
    mov r0, mvp[a0.x+1]
    ifu b0
        cmp k, lt, ge, r0
        breakc cmp.x
    .else
        mad r1, r0, k.y, r0
    .end
    for i0
        call helper
    .end
    mov oclr, k
    end
.end
.proc helper
    rcp r2.x, k.w
.end
";

#[test]
fn mutated_programs_never_panic() {
    let mut rng = fastrand::Rng::with_seed(0x3417);
    let chars: Vec<char> = PROGRAM.chars().collect();
    for _ in 0..3000 {
        let mut c = chars.clone();
        for _ in 0..rng.usize(1..6) {
            let at = rng.usize(..c.len());
            match rng.u8(..3) {
                0 => {
                    c.remove(at);
                }
                1 => c.insert(
                    at,
                    " \n,.[]-!#;:0123456789xyzwabc"[rng.usize(..28)..]
                        .chars()
                        .next()
                        .unwrap_or(' '),
                ),
                _ => c[at] = "xyzw01r c.,[]".chars().nth(rng.usize(..13)).unwrap_or('x'),
            }
        }
        try_all(&c.iter().collect::<String>());
    }
}
