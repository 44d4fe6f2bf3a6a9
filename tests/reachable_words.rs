//! `Program::reachable_words`: the words the cache key hashes, in address order, each with the
//! word at its address — for a program that ends where it should and for one whose
//! subroutine's end points past the program (the zero words after it are reachable, up to the
//! last address).

mod common;

use common::*;
use picajit::program::CODE_WORDS;

/// Addresses strictly increasing, each word the code word at its address.
fn check_order(p: &picajit::Program, words: &[(u16, u32)]) {
    for pair in words.windows(2) {
        assert!(pair[0].0 < pair[1].0, "not in address order: {pair:?}");
    }
    for &(a, w) in words {
        assert_eq!(w, p.code[usize::from(a)], "word at {a}");
    }
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
    let p = b.program();
    let words = p.reachable_words();
    check_order(&p, &words);
    let addrs: Vec<u16> = words.iter().map(|w| w.0).collect();
    assert_eq!(addrs, [0, 1, 2, 3, 4]);
}

#[test]
fn a_subroutine_at_the_end_reaches_the_zero_words_after_it() {
    // [0] call 2, 1  (its end, 3, is past the last word written: zero words follow)
    // [1] end
    // [2] mov o0, v0
    let mut b = Builder::new();
    b.call(2, 1).end().mov(o(0), v(0));
    let p = b.program();
    let words = p.reachable_words();
    check_order(&p, &words);
    assert_eq!(words.len(), CODE_WORDS);
    assert_eq!(words[0].0, 0);
    assert_eq!(usize::from(words[CODE_WORDS - 1].0), CODE_WORDS - 1);
    assert_eq!(words[5].1, 0, "a zero word after the program");
}
