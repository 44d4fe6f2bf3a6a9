//! The example shaders (`examples/shaders/`): each assembles (library and `picajit asm`), runs
//! on the interpreter with outputs asserted against values worked out by hand, and survives
//! `picajit disasm` → `picajit asm` byte for byte.

#[path = "common/scratch.rs"]
mod scratch;

use std::path::{Path, PathBuf};
use std::process::Command;

use picajit::asm::{assemble, Source};
use picajit::interp::Interpreter;
use picajit::program::{Regs16, ShaderKind, Vec4};
use picajit::shbin::Shbin;
use picajit::Uniforms;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/shaders")
        .join(name)
}

fn build(name: &str) -> Shbin {
    let path = example(name);
    let text = std::fs::read_to_string(&path).unwrap();
    match assemble(&[Source::new(path.display().to_string(), text)]) {
        Ok((shbin, warnings)) => {
            assert!(warnings.is_empty(), "{name}: {warnings:?}");
            shbin
        }
        Err(d) => panic!("{name}: {d:?}"),
    }
}

/// Uniforms with the DVLE's constants applied and named float uniforms set row by row.
fn uniforms(shbin: &Shbin, rows: &[(&str, &[Vec4])]) -> Uniforms {
    let dvle = &shbin.dvles[0];
    let mut u = Uniforms::default();
    dvle.apply_constants(&mut u);
    for (name, values) in rows {
        let entry = dvle
            .uniform_by_name(name)
            .unwrap_or_else(|| panic!("no uniform {name}"));
        let first = usize::from(entry.first - 0x10);
        assert_eq!(
            usize::from(entry.last - entry.first) + 1,
            values.len(),
            "{name}"
        );
        u.f[first..first + values.len()].copy_from_slice(values);
    }
    u
}

fn inputs(values: &[(usize, Vec4)]) -> Regs16 {
    let mut v = [[0.0; 4]; 16];
    for &(i, x) in values {
        v[i] = x;
    }
    v
}

fn close(got: Vec4, want: Vec4) {
    for k in 0..4 {
        assert!(
            (got[k] - want[k]).abs() <= 1e-5,
            "got {got:?}, want {want:?}"
        );
    }
}

#[test]
fn mvp_transforms_the_position() {
    let s = build("mvp.v.pica");
    // x' = 2x + 1, y' = 3y + 2, z' = z, w' = 1.
    let u = uniforms(
        &s,
        &[(
            "mvp",
            &[
                [2., 0., 0., 1.],
                [0., 3., 0., 2.],
                [0., 0., 1., 0.],
                [0., 0., 0., 1.],
            ],
        )],
    );
    let interp = Interpreter::new(&s.program(0).unwrap());
    let out = interp.run_vertex(
        &u,
        &inputs(&[(0, [1., 2., 3., 9.]), (1, [0.1, 0.2, 0.3, 0.4])]),
    );
    // (1, 2, 3, 1) → (3, 8, 3, 1); the w of the input position is replaced by 1.
    assert_eq!(out.outputs[0], [3., 8., 3., 1.]);
    assert_eq!(out.outputs[1], [0.1, 0.2, 0.3, 0.4]);
}

#[test]
fn lighting_shades_by_the_normal() {
    let s = build("lighting.v.pica");
    let identity = [
        [1., 0., 0., 0.],
        [0., 1., 0., 0.],
        [0., 0., 1., 0.],
        [0., 0., 0., 1.],
    ];
    let u = uniforms(
        &s,
        &[
            ("mvp", &identity),
            ("lightdir", &[[0.0, 0.6, 0.8, 0.0]]),
            ("lightclr", &[[1.0, 1.0, 0.5, 1.0]]),
            ("ambient", &[[0.1, 0.2, 0.3, 0.0]]),
        ],
    );
    let interp = Interpreter::new(&s.program(0).unwrap());
    // Normal (0, 0, 2) → unit (0, 0, 1); n . l = 0.8; light = (0.8, 0.8, 0.4);
    // + ambient = (0.9, 1.0, 0.7); × colour (0.5, 1, 1) = (0.45, 1.0, 0.7); w = colour w.
    let lit = interp.run_vertex(
        &u,
        &inputs(&[
            (0, [5., 6., 7., 1.]),
            (1, [0., 0., 2., 0.]),
            (2, [0.5, 1.0, 1.0, 0.75]),
        ]),
    );
    close(lit.outputs[0], [5., 6., 7., 1.]);
    close(lit.outputs[1], [0.45, 1.0, 0.7, 0.75]);
    // Facing away: only the ambient term remains.
    let dark = interp.run_vertex(
        &u,
        &inputs(&[
            (0, [0., 0., 0., 1.]),
            (1, [0., -3., 0., 0.]),
            (2, [1.0, 1.0, 1.0, 1.0]),
        ]),
    );
    close(dark.outputs[1], [0.1, 0.2, 0.3, 1.0]);
}

#[test]
fn skinning_blends_two_bones_through_a0() {
    let s = build("skinning.v.pica");
    let identity = [
        [1., 0., 0., 0.],
        [0., 1., 0., 0.],
        [0., 0., 1., 0.],
        [0., 0., 0., 1.],
    ];
    // Bone 0: identity; bone 1: translate (10, 20, 30); bone 2: scale 2; bone 3: unused.
    let bones: [Vec4; 12] = [
        [1., 0., 0., 0.],
        [0., 1., 0., 0.],
        [0., 0., 1., 0.],
        [1., 0., 0., 10.],
        [0., 1., 0., 20.],
        [0., 0., 1., 30.],
        [2., 0., 0., 0.],
        [0., 2., 0., 0.],
        [0., 0., 2., 0.],
        [0.; 4],
        [0.; 4],
        [0.; 4],
    ];
    let u = uniforms(&s, &[("proj", &identity), ("bones", &bones)]);
    let interp = Interpreter::new(&s.program(0).unwrap());
    // Bones 0 and 1 (offsets 0, 3), weights 0.25 and 0.75, position (1, 2, 3):
    // 0.25·(1, 2, 3) + 0.75·(11, 22, 33) = (8.5, 17, 25.5).
    let a = interp.run_vertex(
        &u,
        &inputs(&[
            (0, [1., 2., 3., 1.]),
            (1, [0., 3., 0., 0.]),
            (2, [0.25, 0.75, 0., 0.]),
        ]),
    );
    close(a.outputs[0], [8.5, 17., 25.5, 1.]);
    // Bones 1 and 2 (offsets 3, 6), half each: 0.5·(11, 22, 33) + 0.5·(2, 4, 6).
    let b = interp.run_vertex(
        &u,
        &inputs(&[
            (0, [1., 2., 3., 1.]),
            (1, [3., 6., 0., 0.]),
            (2, [0.5, 0.5, 0., 0.]),
        ]),
    );
    close(b.outputs[0], [6.5, 13., 19.5, 1.]);
}

#[test]
fn subdivision_emits_four_triangles() {
    let s = build("subdivide.g.pica");
    assert_eq!(s.dvles[0].kind, ShaderKind::Geometry);
    let u = uniforms(&s, &[]);
    let interp = Interpreter::new(&s.program(0).unwrap());
    let (a, b, c) = ([0., 0., 0., 1.], [2., 0., 0., 1.], [0., 2., 0., 1.]);
    let (ca, cb, cc) = ([1., 0., 0., 1.], [0., 1., 0., 1.], [0., 0., 1., 1.]);
    let out = interp.run_vertex(
        &u,
        &inputs(&[(0, a), (1, ca), (2, b), (3, cb), (4, c), (5, cc)]),
    );
    assert_eq!(out.primitives.len(), 4);
    let mid = |p: Vec4, q: Vec4| [0, 1, 2, 3].map(|k| (p[k] + q[k]) * 0.5);
    let (ab, bc, cap) = (mid(a, b), mid(b, c), mid(c, a));
    let (cab, cbc, cca) = (mid(ca, cb), mid(cb, cc), mid(cc, ca));
    let want = [
        [(a, ca), (ab, cab), (cap, cca)],
        [(ab, cab), (b, cb), (bc, cbc)],
        [(cap, cca), (bc, cbc), (c, cc)],
        [(ab, cab), (bc, cbc), (cap, cca)],
    ];
    for (prim, tri) in out.primitives.iter().zip(want) {
        assert!(!prim.winding);
        for (vertex, (pos, clr)) in prim.vertices.iter().zip(tri) {
            assert_eq!(vertex[0], pos);
            assert_eq!(vertex[1], clr);
        }
    }
    // (1, 0, 0, 1) etc.: the midpoints are exact.
    assert_eq!(ab, [1., 0., 0., 1.]);
}

#[test]
fn steps_loop_breaks_at_the_first_threshold_above() {
    let s = build("steps.v.pica");
    let u = uniforms(&s, &[]);
    let interp = Interpreter::new(&s.program(0).unwrap());
    // Thresholds 0.25, 0.5, 0.75, 1.0; the count of thresholds at or below the value, times 0.25.
    for (value, count) in [
        (0.0, 0.0),
        (0.3, 1.0),
        (0.6, 2.0),
        (0.75, 3.0),
        (0.9, 3.0),
        (2.0, 4.0),
    ] {
        let out = interp.run_vertex(
            &u,
            &inputs(&[(0, [1., 2., 3., 1.]), (1, [value, 0., 0., 0.])]),
        );
        assert_eq!(out.outputs[0], [1., 2., 3., 1.]);
        assert_eq!(
            out.outputs[1],
            [count * 0.25, count * 0.25, count * 0.25, 1.0],
            "value {value}"
        );
    }
}

#[test]
fn branches_ends_loops_and_calls_per_vertex() {
    let s = build("branches.v.pica");
    let u = uniforms(&s, &[]);
    let interp = Interpreter::new(&s.program(0).unwrap());
    let run = |pos: Vec4, val: Vec4| {
        let out = interp.run_vertex(&u, &inputs(&[(0, pos), (1, val)]));
        assert_eq!(out.outputs[0], pos);
        out.outputs[1]
    };
    let pos = [0.0, 3.0, 4.0, 1.0];
    // Culled: the flag colour.
    assert_eq!(run(pos, [0.1, 0.3, -0.25, 0.9]), [1.0, 0.0, 1.0, 1.0]);
    // The loop: three steps of 0.125 reach 0.375 > 0.3 and break (w counts 0.25 a step); far
    // out: the count is the colour.
    assert_eq!(run(pos, [0.1, 0.3, 0.5, 0.9]), [0.375, 0.375, 0.375, 1.0]);
    // Near: 0.5 + count × position.
    assert_eq!(run(pos, [0.1, 0.3, 0.5, 0.5]), [0.5, 1.625, 2.0, 1.0]);
    // A value above every step: four passes, no break.
    assert_eq!(run(pos, [0.1, 0.9, 0.5, 0.9]), [0.5, 0.5, 0.5, 1.0]);
    // The call: the normalized position (|pos| = 5), times the position, plus 0.5.
    close(run(pos, [0.7, 0.3, 0.5, 0.5]), [0.5, 2.3, 3.7, 1.0]);
    close(run(pos, [0.7, 0.3, 0.5, 0.9]), [0.0, 0.6, 0.8, 1.0]);
}

fn picajit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_picajit"))
}

fn temp_dir(name: &str) -> PathBuf {
    scratch::fresh_dir("asm", name)
}

#[test]
fn command_line_asm_run_disasm() {
    let dir = temp_dir("cli");
    for name in [
        "mvp.v.pica",
        "lighting.v.pica",
        "skinning.v.pica",
        "subdivide.g.pica",
        "steps.v.pica",
        "branches.v.pica",
        "lit_subdivide.shlist",
    ] {
        let shbin = dir.join(format!("{name}.shbin"));
        let header = dir.join(format!("{name}.h"));
        let st = picajit()
            .args(["asm", "-o"])
            .arg(&shbin)
            .arg("-h")
            .arg(&header)
            .arg(example(name))
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&st.stderr)
        );
        let st = picajit()
            .arg("run")
            .arg(&shbin)
            .args(["--vertices", "2"])
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&st.stderr)
        );
        let text = dir.join(format!("{name}.dis.pica"));
        let st = picajit()
            .arg("disasm")
            .arg(&shbin)
            .arg("-o")
            .arg(&text)
            .output()
            .unwrap();
        assert!(st.status.success());
        let again = dir.join(format!("{name}.again.shbin"));
        let st = picajit()
            .args(["asm", "-o"])
            .arg(&again)
            .arg(&text)
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        assert_eq!(
            std::fs::read(&shbin).unwrap(),
            std::fs::read(&again).unwrap(),
            "{name}"
        );
    }
    // The shlist holds two DVLEs: vertex first.
    let both =
        Shbin::parse(&std::fs::read(dir.join("lit_subdivide.shlist.shbin")).unwrap()).unwrap();
    assert_eq!(both.dvles.len(), 2);
    assert_eq!(both.dvles[1].kind, ShaderKind::Geometry);
    let header = std::fs::read_to_string(dir.join("mvp.v.pica.h")).unwrap();
    assert!(
        header.contains("#define VSH_FVEC_mvp 0x00\n#define VSH_ULEN_mvp 4\n"),
        "{header}"
    );
}

#[test]
fn command_line_errors() {
    let dir = temp_dir("errors");
    let src = dir.join("bad.v.pica");
    std::fs::write(&src, ".proc main\n    mov r0, q1\n    foo\n.end\n").unwrap();
    let out = dir.join("bad.shbin");
    let st = picajit()
        .args(["asm", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .unwrap();
    assert!(!st.status.success());
    let err = String::from_utf8_lossy(&st.stderr);
    let name = src.display().to_string();
    assert!(
        err.contains(&format!("{name}:2:13: error: invalid register: q1")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{name}:3:5: error: invalid instruction: foo")),
        "{err}"
    );
    assert!(!out.exists());
    // -n turns padding NOPs into warnings.
    std::fs::write(&src, ".proc main\n    ifu b0\n    .end\n    end\n.end\n").unwrap();
    let st = picajit()
        .args(["asm", "-n", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .unwrap();
    assert!(st.status.success());
    assert!(String::from_utf8_lossy(&st.stderr).contains("warning: a padding NOP is required here"));
    let st = picajit()
        .arg("disasm")
        .arg(&out)
        .args(["--dvle", "3"])
        .output()
        .unwrap();
    assert!(!st.status.success());
}
