//! Tests of hash-consing while building: the table itself, and that common-subexpression
//! elimination finds nothing in what the builder hash-consed.

use picajit_codegen::ir::{Builder, Function, Op, Ty, Var};
use picajit_codegen::opt;
use rustc_hash::FxHashMap as HashMap;

use super::super::build::{build_with, Layout};
use super::super::masked::Regions;
use super::super::{eval, graph, live};
use super::{Key, Values};
use crate::program::{Program, ShaderKind};
use crate::synthetic::{self, Shape};

/// Keys that differ in any field find different variables, equal keys the first one, across
/// several growths.
#[test]
fn the_table_finds_what_it_recorded() {
    let mut t = Values::with_room(4);
    let key = |n: u32| Key::new(Op::Add, [Var(n % 7), Var(n / 7), Var(0)], [n % 3, 0]);
    for n in 0..500 {
        assert_eq!(t.get_or_insert(key(n), Var(1000 + n)), None, "{n}");
    }
    for n in 0..500 {
        assert_eq!(t.get_or_insert(key(n), Var(5)), Some(Var(1000 + n)), "{n}");
    }
    let other = Key::new(Op::PMul, [Var(0), Var(0), Var(0)], [0, 0]);
    assert_eq!(t.get_or_insert(other, Var(7)), None);
    assert_eq!(t.get_or_insert(other, Var(8)), Some(Var(7)));
}

/// Input and uniform reads go by register component: each (operation, register, component)
/// finds the variable recorded for it and no other's; registers past the table (input 16,
/// uniform 96) and other operations are hashed by their keys.
#[test]
fn reads_find_their_own_component() {
    let mut t = Values::with_room(4);
    let reads = || {
        let inputs = (0..16).map(|r| (Op::Input, r));
        let uniforms = (0..96).map(|u| (Op::Uniform, u));
        inputs
            .chain(uniforms)
            .flat_map(|(op, reg)| (0..4).map(move |c| (op, [reg, c])))
    };
    for (n, (op, imm)) in reads().enumerate() {
        assert_eq!(t.read(n), None, "{n}");
        assert_eq!(Values::read_entry(op, imm), Some(n));
        assert_eq!(t.find_or_record(op, [Var(0); 3], imm, Var(n as u32)), None);
    }
    for (n, (op, imm)) in reads().enumerate() {
        assert_eq!(t.read(n), Some(Var(n as u32)));
        assert_eq!(
            t.find_or_record(op, [Var(0); 3], imm, Var(9999)),
            Some(Var(n as u32))
        );
    }
    for (op, imm) in [
        (Op::Input, [16, 0]),
        (Op::Uniform, [96, 3]),
        (Op::Uniform, [0, 4]),
        (Op::UniformAl, [0, 0]),
        (Op::FConst, [0, 0]),
    ] {
        assert_eq!(Values::read_entry(op, imm), None);
        assert_eq!(t.find_or_record(op, [Var(0); 3], imm, Var(7000)), None);
        assert_eq!(
            t.find_or_record(op, [Var(0); 3], imm, Var(7001)),
            Some(Var(7000))
        );
    }
}

/// On, a repeated instruction emits nothing and names the first result; off, every
/// instruction is emitted.
#[test]
fn repeats_are_emitted_only_when_on() {
    for on in [false, true] {
        let mut b = Builder::new();
        let mut t = if on {
            Values::with_room(8)
        } else {
            Values::off()
        };
        let x = t.inst(&mut b, Op::Input, &[], [1, 2]);
        let y = t.inst(&mut b, Op::Input, &[], [1, 2]);
        let z = t.inst(&mut b, Op::Input, &[], [1, 3]);
        let d = b.var(Ty::F32);
        let c = t.leaf_to(&mut b, Op::FConst, d, [0, 0]);
        let e = b.var(Ty::F32);
        let c2 = t.leaf_to(&mut b, Op::FConst, e, [0, 0]);
        assert_eq!((x == y, x == z, c, c2 == c), (on, false, d, on));
        assert_eq!(b.current_len(), if on { 3 } else { 5 });
    }
}

/// The generated straight programs (size 24 and every bench size up to 4,000, three seeds
/// each) as vertex and as geometry shaders, and the corpus's programs, named.
fn programs() -> Vec<(String, Program)> {
    let mut all = Vec::new();
    for size in std::iter::once(synthetic::MIN_SIZE).chain(synthetic::SIZES) {
        for seed in 1..=3 {
            let p = synthetic::program(Shape::Straight, size, seed).unwrap();
            for kind in [ShaderKind::Vertex, ShaderKind::Geometry] {
                let name = format!("straight:{size}:{seed} {kind:?}");
                all.push((name, p.clone().with_kind(kind)));
            }
        }
    }
    for (file, bytes) in crate::shbin::tests::corpus() {
        let shbin = crate::shbin::Shbin::parse(&bytes).unwrap();
        // (A DVLE whose entry is outside the code has no program.)
        for (d, p) in (0..shbin.dvles.len()).filter_map(|d| Some((d, shbin.program(d).ok()?))) {
            all.push((format!("{file} dvle {d}"), p));
        }
    }
    all
}

/// `program` built as [`super::super::lower`] builds it when no branch is converted, with
/// hash-consing on or off, through the passes before CSE; and whether the builder
/// hash-consed.
fn before_cse(program: &Program, cons: bool) -> (Function, bool) {
    let g = graph::explore(program, graph::MAX_STATES).unwrap();
    let live = live::analyze(program, &g);
    let layout = Layout {
        chained: true,
        sparse: true,
        forward: true,
        cons,
    };
    let none = HashMap::default();
    let built = build_with(
        program,
        &g,
        &live,
        &none,
        &Regions::new(g.nodes.len()),
        layout,
    );
    let mut f = built.func;
    f.verify().unwrap();
    opt::simplify_cfg(&mut f);
    opt::split_defs(&mut f);
    (f, built.consed)
}

/// `f` after the passes from CSE on (CSE only if `cse`).
fn after(mut f: Function, cse: bool) -> Function {
    if cse {
        opt::cse(&mut f);
    }
    opt::square_pmul(&mut f);
    opt::dce_renumber(&mut f);
    opt::simplify_cfg(&mut f);
    f
}

/// Where the builder hash-consed (one-block functions), CSE rewrites nothing, and the
/// function after the passes is the one built without hash-consing and passed through CSE —
/// or a smaller one computing the same (a dot product whose two operands the table made one
/// variable is a sum of squares, which needs no `+0.0` seed, `alu::Emit::dot`).
#[test]
fn cse_finds_nothing_after_hash_consing() {
    let (mut consed, mut smaller) = (0, 0);
    for (seed, (name, p)) in programs().into_iter().enumerate() {
        let (f, on) = before_cse(&p, true);
        let (plain, off) = before_cse(&p, false);
        assert!(!off, "{name}");
        if !on {
            assert_eq!(f, plain, "{name}: not hash-consed, yet built differently");
            continue;
        }
        consed += 1;
        let mut g = f.clone();
        assert_eq!(opt::cse(&mut g), 0, "{name}: CSE rewrote operands");
        assert_eq!(g, f, "{name}");
        let (on, off) = (after(f, false), after(plain, true));
        if on != off {
            assert!(
                on.inst_count() < off.inst_count(),
                "{name}: built differently"
            );
            let geometry = p.kind == ShaderKind::Geometry;
            let outcome = |f: &Function| eval::outcome(f, geometry, seed as u64);
            assert_eq!(outcome(&on), outcome(&off), "{name}");
            smaller += 1;
        }
    }
    assert!(consed >= 2 * 8 * 3 + 10, "{consed} functions hash-consed");
    assert!(smaller < consed / 4, "{smaller} of {consed} built smaller");
}
