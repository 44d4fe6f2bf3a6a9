//! Round trips: any bytes → disassembly → the same bytes, and random assembler text →
//! bytes → disassembly → the same bytes.

use crate::agal::asm::{assemble, Options};
use crate::agal::disasm::disassemble;
use crate::agal::gen;

/// Re-assembles the disassembly of `bytes` and checks it; returns (tokens written as text,
/// tokens written raw).
fn round_trip(bytes: &[u8]) -> (usize, usize) {
    let text = disassemble(bytes);
    let back = assemble("disassembly", &text, &Options::default()).unwrap_or_else(|e| {
        let msgs: Vec<String> = e.iter().map(|d| d.to_string()).collect();
        panic!(
            "the disassembly does not assemble:\n{}\n{text}",
            msgs.join("\n")
        )
    });
    assert!(
        back.bytes == bytes,
        "bytes differ:\n{text}\n{bytes:02x?}\n{:02x?}",
        back.bytes
    );
    let raw = text.lines().filter(|l| l.starts_with('!')).count();
    let all = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(['.', '/']))
        .count();
    (all - raw, raw)
}

/// 100,000 seeded random programs (odd headers, unknown opcodes, stray bits, tails included)
/// disassemble to text that assembles back to the same bytes; most tokens are text.
#[test]
fn random_bytecode_round_trips() {
    let mut rng = fastrand::Rng::with_seed(0xA6A1_0100);
    let (mut text, mut raw) = (0, 0);
    for _ in 0..100_000 {
        let p = gen::program(&mut rng, 6);
        let (t, r) = round_trip(&p);
        text += t;
        raw += r;
    }
    assert!(text > 2 * raw, "{text} text tokens, {raw} raw");
}

/// Every length of a header-only or truncated input.
#[test]
fn short_inputs_round_trip() {
    for len in 0..40 {
        let bytes: Vec<u8> = (0..len as u8).map(|b| b.wrapping_mul(37)).collect();
        round_trip(&bytes);
    }
}

/// A random line of assembler text, in the style of hand-written sources and their slips.
fn random_line(rng: &mut fastrand::Rng, vertex: bool) -> String {
    const VERTEX: [&str; 12] = [
        "va", "vc", "vt", "vt", "op", "vo", "v", "vi", "i", "iid", "vs", "vc",
    ];
    const FRAGMENT: [&str; 12] = [
        "fc", "ft", "ft", "fs", "oc", "fo", "od", "fd", "v", "fi", "i", "fc",
    ];
    const ODD: [&str; 4] = ["VC", "q", "vod", "ft"];
    const OPTS: [&str; 16] = [
        "2d",
        "cube",
        "linear",
        "nearest",
        "mipnone",
        "miplinear",
        "mipnearest",
        "repeat",
        "clamp",
        "wrap",
        "dxt1",
        "centroid",
        "ignoresampler",
        "-0.5",
        "2",
        "LINEAR",
    ];
    let letters = |rng: &mut fastrand::Rng| -> String {
        let n = rng.usize(1..=5);
        (0..n)
            .map(|_| b"xyzwxyzwX"[rng.usize(..9)] as char)
            .collect()
    };
    let operand = |rng: &mut fastrand::Rng| -> String {
        let mut s = String::new();
        if rng.u8(..6) == 0 {
            let idx = ["va", "vt", "vc"][rng.usize(..3)];
            s.push_str(&format!(
                "vc[{idx}{}.{}",
                rng.u8(..9),
                ['x', 'y', 'z', 'w'][rng.usize(..4)]
            ));
            if rng.bool() {
                s.push_str(&format!("+{}", rng.u16(..300)));
            }
            s.push(']');
        } else {
            let names = if vertex { VERTEX } else { FRAGMENT };
            s.push_str(match rng.u8(..20) {
                0 => ODD[rng.usize(..ODD.len())],
                _ => names[rng.usize(..names.len())],
            });
            if rng.u8(..5) != 0 {
                let top = if rng.u8(..10) == 0 { 2000 } else { 4 };
                s.push_str(&rng.u32(..top).to_string());
            }
        }
        if rng.bool() {
            s.push('.');
            s.push_str(&letters(rng));
        }
        s
    };
    let op = loop {
        let op = crate::agal::Opcode::ALL[rng.usize(..crate::agal::Opcode::ALL.len())];
        let fits = match op.stage() {
            crate::agal::Stage::Both => true,
            crate::agal::Stage::Vertex => vertex,
            crate::agal::Stage::Fragment => !vertex,
        };
        if fits || rng.u8(..10) == 0 {
            break op;
        }
    };
    let mut line = String::new();
    line.push_str(&" ".repeat(rng.usize(..3)));
    line.push_str(op.mnemonic());
    line.push(' ');
    let n = match rng.u8(..30) {
        0 => rng.usize(..4),
        _ => op.shape().text_operands(),
    };
    for k in 0..n {
        if k > 0 {
            line.push_str([", ", " ", ",", ",  "][rng.usize(..4)]);
        }
        line.push_str(&operand(rng));
    }
    if rng.u8(..12) == 0 {
        line.push_str(", xy");
    }
    if op.shape().has_sampler() || rng.u8(..20) == 0 {
        let k = rng.usize(..5);
        let words: Vec<&str> = (0..k).map(|_| OPTS[rng.usize(..OPTS.len())]).collect();
        if rng.u8(..6) != 0 {
            line.push_str(&format!(" <{}>", words.join([",", " "][rng.usize(..2)])));
        }
    }
    if rng.u8(..8) == 0 {
        line.push_str(" // note");
    }
    line
}

/// 100,000 random texts (several lines each, slips included): whatever assembles,
/// disassembles to text that assembles to the same bytes.
#[test]
fn random_text_round_trips() {
    let mut rng = fastrand::Rng::with_seed(0xA6A1_0200);
    let mut accepted = 0;
    for _ in 0..100_000 {
        let vertex = rng.bool();
        let kind = if vertex { "vertex" } else { "fragment" };
        let mut text = format!(".{kind}\n.version {}\n", rng.u32(1..5));
        for _ in 0..rng.usize(1..4) {
            text.push_str(&random_line(&mut rng, vertex));
            text.push_str(["\n", "\r\n"][rng.usize(..2)]);
        }
        if let Ok(a) = assemble("random", &text, &Options::default()) {
            accepted += 1;
            round_trip(&a.bytes);
        }
    }
    assert!(accepted > 20_000, "only {accepted} texts assembled");
}
