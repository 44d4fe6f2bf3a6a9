//! `Program::reachable_words`: the words the cache key hashes and a shader keeps, in address
//! order, each with the word at its address. They are the addresses the interpreter can
//! execute: a subroutine at the end of the program returns to its caller (the zero words after
//! it are not listed), a program that really runs past its last word lists the zero words up to
//! slot 4095 (which ends the run), and on generated programs with any flow (the fuzzer's
//! hostile jumps, calls and nests included) the set is exactly the addresses of the frontend's
//! explored states, and the program rebuilt from these words alone runs as the original does.

mod common;

use common::*;
use picajit::frontend::graph;
use picajit::fuzz::{generate, Config};
use picajit::interp::Interpreter;
use picajit::program::{Program, CODE_WORDS};

/// Addresses strictly increasing, each word the code word at its address.
fn check_order(p: &Program, words: &[(u16, u32)]) {
    for pair in words.windows(2) {
        assert!(pair[0].0 < pair[1].0, "not in address order: {pair:?}");
    }
    for &(a, w) in words {
        assert_eq!(w, p.code[usize::from(a)], "word at {a}");
    }
}

fn addresses(p: &Program) -> Vec<u16> {
    let words = p.reachable_words();
    check_order(p, &words);
    words.iter().map(|w| w.0).collect()
}

#[test]
fn a_program_ending_in_end_reaches_its_words_only() {
    // [0] mov o0, v0
    // [1] call 3, 1
    // [2] end
    // [3] mov o1, v1
    // [4] end        (the subroutine's end is its last word + 1: address 4)
    let mut b = Builder::new();
    b.mov(o(0), v(0)).call(3, 1).end().mov(o(1), v(1)).end();
    assert_eq!(addresses(&b.program()), [0, 1, 2, 3]);
}

#[test]
fn a_subroutine_at_the_end_returns_instead_of_reaching_the_zero_words() {
    // [0] call 2, 1  (its end, 3, is the first zero word: the call returns there)
    // [1] end
    // [2] mov o0, v0
    let mut b = Builder::new();
    b.call(2, 1).end().mov(o(0), v(0));
    let p = b.program();
    assert_eq!(addresses(&p), [0, 1, 2]);
    // Every engine runs it as the interpreter does: o0 = v0 and nothing else.
    let out = run_one(&p, &Default::default(), scalars(&[3.0]));
    assert_bits(&out[0], &[3.0, 0.0, 0.0, 0.0]);
}

#[test]
fn a_program_without_end_runs_into_the_zero_words_up_to_the_last_slot() {
    // [0] mov o1, v1
    // [1] ...        zero words, `add o0, v0, v0`, up to slot 4095 (which ends the run)
    let mut b = Builder::new();
    b.mov(o(1), v(1));
    let p = b.program();
    let words = p.reachable_words();
    check_order(&p, &words);
    assert_eq!(
        words.len(),
        CODE_WORDS,
        "every word, slot 4095 (where the run ends) too"
    );
    assert_eq!(words[5].1, 0, "a zero word after the program");
    let out = run_one(&p, &Default::default(), scalars(&[1.5, 2.0]));
    assert_bits(&out[0], &[3.0, 0.0, 0.0, 0.0]);
    assert_bits(&out[1], &[2.0, 0.0, 0.0, 0.0]);
}

#[test]
fn the_branches_example_reaches_its_own_words() {
    let text = std::fs::read_to_string("examples/shaders/branches.v.pica").expect("example");
    let source = picajit::asm::Source::new("branches.v.pica", text);
    let (shbin, _) = picajit::asm::assemble(&[source]).expect("assembles");
    let p = shbin.program(0).expect("program");
    let used = p.code.iter().rposition(|&w| w != 0).expect("code") + 1;
    let addrs = addresses(&p);
    assert!(!addrs.is_empty());
    assert!(
        addrs.iter().all(|&a| usize::from(a) < used),
        "{} words reached, {used} loaded",
        addrs.len()
    );
}

/// The explored states' addresses, or `None` if the program has too many states.
fn explored(p: &Program) -> Option<Vec<u16>> {
    let g = graph::explore(p, graph::MAX_STATES).ok()?;
    let mut pcs: Vec<u16> = g.nodes.iter().map(|n| n.pc as u16).collect();
    pcs.sort_unstable();
    pcs.dedup();
    Some(pcs)
}

#[test]
fn generated_programs_reach_the_explored_addresses_and_run_from_them_alone() {
    let config = Config::default();
    let mut compared = 0;
    for seed in 0..400u64 {
        let fuzz = generate(seed, &config);
        let Ok(p) = fuzz.case.program() else {
            continue;
        };
        let words = p.reachable_words();
        check_order(&p, &words);
        // Slot 4095 ends the run where a path reaches it; it has no state.
        let addrs: Vec<u16> = words
            .iter()
            .map(|w| w.0)
            .filter(|&a| usize::from(a) < CODE_WORDS - 1)
            .collect();
        if let Some(pcs) = explored(&p) {
            assert_eq!(addrs, pcs, "seed {seed}");
            compared += 1;
        }
        let mut alone = p.clone();
        *alone.code = [0; CODE_WORDS];
        for &(a, w) in &words {
            alone.code[usize::from(a)] = w;
        }
        let full = Interpreter::new(&p).with_budget(fuzz.budget);
        let kept = Interpreter::new(&alone).with_budget(fuzz.budget);
        assert_eq!(
            full.outputs_written(),
            kept.outputs_written(),
            "seed {seed}"
        );
        for input in &fuzz.case.inputs {
            let a = full.run_vertex(&fuzz.case.uniforms, input);
            let b = kept.run_vertex(&fuzz.case.uniforms, input);
            assert_eq!(a.status, b.status, "seed {seed}");
            for (x, y) in a.outputs.iter().zip(&b.outputs) {
                check_bits(x, y, &format!("seed {seed}"));
            }
        }
    }
    assert!(compared >= 300, "only {compared} programs explored");
}
