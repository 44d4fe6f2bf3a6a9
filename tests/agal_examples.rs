//! The AGAL examples (`examples/agal/`): each assembles and validates, runs on the interpreter
//! with outputs worked out by hand (beside each check), and survives the command line:
//! `picajit agal asm` → `disasm` → `asm` byte for byte, `agal run` → AGCS → `picajit run` with
//! the same AGOU. (AGAL has only the interpreter until it is compiled: every engine there is.)

#[path = "common/scratch.rs"]
mod scratch;

use std::path::{Path, PathBuf};
use std::process::Command;

use picajit::agal::asm::{assemble, Options};
use picajit::agal::case::{AgalCase, Outputs};
use picajit::agal::interp::{self, CpuTextures, Fragment, Level, Texture, Vertex};
use picajit::agal::validate::{validate, validate_pair, Options as VOptions};
use picajit::agal::Program;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/agal")
        .join(name)
}

fn bytes(name: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(example(name)).unwrap();
    let a = assemble(name, &text, &Options::default()).unwrap_or_else(|e| {
        panic!(
            "{name}: {}",
            e.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    assert!(a.warnings.is_empty(), "{name}: {:?}", a.warnings);
    a.bytes
}

fn program(name: &str) -> Program {
    validate(&bytes(name), &VOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn texture(w: u32, h: u32, texels: Vec<[f32; 4]>) -> Texture {
    Texture::two_d(vec![Level {
        width: w,
        height: h,
        texels,
    }])
}

fn vertex(attrs: &[[f32; 4]]) -> Vertex {
    let mut v = Vertex::default();
    v.attributes[..attrs.len()].copy_from_slice(attrs);
    v
}

fn quad(v0: [[f32; 4]; 4], v1: [[f32; 4]; 4], v2: [f32; 4]) -> [Fragment; 4] {
    std::array::from_fn(|l| {
        let mut f = Fragment::default();
        f.varyings[0] = v0[l];
        f.varyings[1] = v1[l];
        f.varyings[2] = v2;
        f
    })
}

#[test]
fn textured_quad() {
    let vp = program("textured_quad.vertex.agal");
    let fp = program("textured_quad.fragment.agal");
    validate_pair(
        &bytes("textured_quad.vertex.agal"),
        &bytes("textured_quad.fragment.agal"),
        1,
    )
    .unwrap();
    // MVP rows: x scaled by 2, y moved by 1; vc4 = alpha 0.5.
    let c = [
        [2.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
        [0.5; 4],
    ];
    let v = vertex(&[
        [1.0, 2.0, 3.0, 1.0],
        [0.25, 0.75, 0.0, 0.0],
        [1.0, 0.5, 0.25, 1.0],
    ]);
    let out = interp::run_vertices(&vp, &c, &interp::NoTextures, &[v]).unwrap()[0];
    // op = (2·1, 2 + 1, 3, 1); v0 = the coordinate; v1 = tint × 0.5.
    assert_eq!(out.position, [2.0, 3.0, 3.0, 1.0]);
    assert_eq!(out.varyings[0], [0.25, 0.75, 0.0, 0.0]);
    assert_eq!(out.varyings[1], [0.5, 0.25, 0.125, 0.5]);
    // 2×2 texture: red, green / blue, white.
    let mut t = CpuTextures::new();
    let tex = texture(
        2,
        2,
        vec![
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0],
            [0.0, 0.0, 1.0, 1.0],
            [1.0; 4],
        ],
    );
    t.bind(0, tex).unwrap();
    let coords = [
        [0.25, 0.25, 0.0, 0.0],
        [0.5, 0.25, 0.0, 0.0],
        [0.25, 0.75, 0.0, 0.0],
        [0.5, 0.5, 0.0, 0.0],
    ];
    let tint = [[0.5, 0.25, 0.125, 0.5]; 4];
    let f = interp::run_quads(&fp, &[], &t, &[quad(coords, tint, [0.0; 4])]).unwrap()[0];
    // Texel centre (0,0): red × tint. Halfway red–green: (0.5, 0.5, 0, 1) × tint. Centre of
    // blue. The middle of all four: (0.5, 0.5, 0.5, 1) × tint.
    assert_eq!(f[0].colors[0], [0.5, 0.0, 0.0, 0.5]);
    assert_eq!(f[1].colors[0], [0.25, 0.125, 0.0, 0.5]);
    assert_eq!(f[2].colors[0], [0.0, 0.0, 0.125, 0.5]);
    assert_eq!(f[3].colors[0], [0.25, 0.125, 0.0625, 0.5]);
}

#[test]
fn skinning_with_indirect_matrices() {
    let p = program("skinning.vertex.agal");
    let translate = |x: f32, y: f32| {
        [
            [1.0, 0.0, 0.0, x],
            [0.0, 1.0, 0.0, y],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    };
    let mut c = Vec::new();
    c.extend(translate(0.0, 0.0)); // vc0..3: view-projection = identity
    c.extend([[0.0; 4]; 4]); // vc4..7 unused
    c.extend(translate(10.0, 0.0)); // joint 0 at vc8
    c.extend(translate(0.0, 20.0)); // joint 1 at vc12
    c.extend(translate(0.0, 0.0)); // joint 2 at vc16
    c.extend(translate(0.0, 0.0)); // joint 3 at vc20
    let v = vertex(&[
        [1.0, 2.0, 3.0, 1.0],
        [0.0, 4.0, 8.0, 12.0],
        [0.5, 0.25, 0.25, 0.0],
        [0.5, 0.5, 0.0, 0.0],
    ]);
    let out = interp::run_vertices(&p, &c, &interp::NoTextures, &[v]).unwrap()[0];
    // 0.5·(11,2,3,1) + 0.25·(1,22,3,1) + 0.25·(1,2,3,1) + 0 = (6, 7, 3, 1).
    assert_eq!(out.position, [6.0, 7.0, 3.0, 1.0]);
    assert_eq!(out.varyings[0], [0.5, 0.5, 0.0, 0.0]);
}

#[test]
fn heightmap_lifts_vertices_by_the_fetched_height() {
    let p = program("heightmap.vertex.agal");
    // Level 0: 2×2 heights 1, 2 / 3, 4 (in x); level 1: 1×1 height 0.5.
    let h = |x: f32| [x, 0.0, 0.0, 1.0];
    let mut t = CpuTextures::new();
    t.bind(
        0,
        Texture::two_d(vec![
            Level {
                width: 2,
                height: 2,
                texels: vec![h(1.0), h(2.0), h(3.0), h(4.0)],
            },
            Level {
                width: 1,
                height: 1,
                texels: vec![h(0.5)],
            },
        ]),
    )
    .unwrap();
    let identity = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    // Texel centres: (0.75, 0.25) is texel (1, 0) exactly under the linear filter.
    let vs = [
        vertex(&[[1.0, 2.0, 3.0, 1.0], [0.75, 0.25, 0.0, 0.0]]),
        vertex(&[[0.0, 0.0, 0.0, 1.0], [0.25, 0.75, 0.0, 0.0]]),
    ];
    for (lod, heights) in [(0.0, [2.0, 3.0]), (1.0, [0.5, 0.5])] {
        let mut c = identity.to_vec();
        c.push([10.0, 0.0, 0.0, 0.0]); // vc4.x: scale
        c.push([lod, 0.0, 0.0, 0.0]); // vc5.x: level of detail (mipnearest: λ 1 → level 1)
        let out = interp::run_vertices(&p, &c, &t, &vs).unwrap();
        // y + 10 · height.
        assert_eq!(out[0].position, [1.0, 2.0 + 10.0 * heights[0], 3.0, 1.0]);
        assert_eq!(out[1].position, [0.0, 10.0 * heights[1], 0.0, 1.0]);
        assert_eq!(out[0].varyings[0], h(heights[0]));
        assert_eq!(out[1].varyings[0], h(heights[1]));
    }
}

#[test]
fn wave_filter_kills_transparent_fragments() {
    let p = program("wave_filter.fragment.agal");
    // Frequency 0, phase 0, amplitude 0.25: the offset is (sin 0, cos 0)·0.25 = (0, 0.25).
    let c = [[0.0, 0.0, 0.25, 0.0], [0.5; 4]];
    // 2×2 texture: top row opaque red, bottom row transparent blue.
    let mut t = CpuTextures::new();
    let red = [1.0, 0.0, 0.0, 1.0];
    let blue = [0.0, 0.0, 1.0, 0.0];
    t.bind(0, texture(2, 2, vec![red, red, blue, blue]))
        .unwrap();
    let v0 = [
        [0.25, 0.125, 0.0, 0.0],
        [0.75, 0.125, 0.0, 0.0],
        [0.25, 0.375, 0.0, 0.0],
        [0.75, 0.375, 0.0, 0.0],
    ];
    let f = interp::run_quads(&p, &c, &t, &[quad(v0, [[0.0; 4]; 4], [0.0; 4])]).unwrap()[0];
    // Row 0: v = 0.375 → 0.75 red + 0.25 blue, alpha 0.75 ≥ 0.5: kept.
    // Row 1: v = 0.625 → 0.25 red + 0.75 blue, alpha 0.25 < 0.5: discarded.
    assert_eq!(f.map(|x| x.killed), [false, false, true, true]);
    assert_eq!(f[0].colors[0], [0.75, 0.0, 0.25, 0.75]);
    assert_eq!(f[1].colors[0], [0.75, 0.0, 0.25, 0.75]);
    assert_eq!(f[2].colors[0], [0.25, 0.0, 0.75, 0.25]);
}

#[test]
fn if_else_picks_a_texture_per_fragment() {
    let p = program("two_textures.fragment.agal");
    let mut t = CpuTextures::new();
    t.bind(0, texture(1, 1, vec![[1.0, 0.0, 0.0, 1.0]]))
        .unwrap();
    t.bind(1, texture(1, 1, vec![[0.0, 1.0, 0.0, 1.0]]))
        .unwrap();
    let index = [[0.0; 4], [1.0; 4], [0.0; 4], [1.0; 4]];
    let f =
        interp::run_quads(&p, &[[0.5; 4]], &t, &[quad([[0.5; 4]; 4], index, [1.0; 4])]).unwrap()[0];
    // v1.x < 0.5 → fs0 (red), else fs1 (green); tint 1.
    assert_eq!(f.map(|x| x.colors[0][0]), [1.0, 0.0, 1.0, 0.0]);
    assert_eq!(f.map(|x| x.colors[0][1]), [0.0, 1.0, 0.0, 1.0]);
}

const EXAMPLES: [&str; 6] = [
    "textured_quad.vertex.agal",
    "heightmap.vertex.agal",
    "textured_quad.fragment.agal",
    "skinning.vertex.agal",
    "wave_filter.fragment.agal",
    "two_textures.fragment.agal",
];

fn picajit(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_picajit"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "picajit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn temp(name: &str) -> PathBuf {
    scratch::fresh_dir("agal", name).join(name)
}

/// `picajit agal asm` writes the library's bytes; `disasm` text assembles back to them; `info`
/// accepts them.
#[test]
fn command_line_round_trip() {
    for name in EXAMPLES {
        let src = example(name);
        let bin = temp(&format!("{name}.agalbin"));
        picajit(&[
            "agal",
            "asm",
            src.to_str().unwrap(),
            "-o",
            bin.to_str().unwrap(),
        ]);
        let written = std::fs::read(&bin).unwrap();
        assert_eq!(written, bytes(name), "{name}");
        let text = temp(&format!("{name}.dis.agal"));
        picajit(&[
            "agal",
            "disasm",
            bin.to_str().unwrap(),
            "-o",
            text.to_str().unwrap(),
        ]);
        let again = temp(&format!("{name}.again"));
        picajit(&[
            "agal",
            "asm",
            text.to_str().unwrap(),
            "-o",
            again.to_str().unwrap(),
        ]);
        assert_eq!(std::fs::read(&again).unwrap(), written, "{name}");
        let info = picajit(&["agal", "info", bin.to_str().unwrap()]);
        assert!(
            String::from_utf8_lossy(&info.stdout).contains("validation: accepted"),
            "{name}"
        );
    }
}

/// `picajit agal run` on a source saves its random case; `picajit run` on that case writes the
/// same AGOU; the AGOU matches the library run of the case.
#[test]
fn command_line_runs_cases() {
    for name in EXAMPLES {
        let src = example(name);
        let case = temp(&format!("{name}.agcs"));
        let out1 = temp(&format!("{name}.1.agou"));
        let out2 = temp(&format!("{name}.2.agou"));
        let s = |p: &PathBuf| p.to_str().unwrap().to_string();
        picajit(&[
            "agal",
            "run",
            &s(&src),
            "--count",
            "3",
            "--seed",
            "9",
            "--save-case",
            &s(&case),
            "-o",
            &s(&out1),
        ]);
        picajit(&["run", &s(&case), "-o", &s(&out2)]);
        let (a, b) = (std::fs::read(&out1).unwrap(), std::fs::read(&out2).unwrap());
        assert_eq!(a, b, "{name}");
        let parsed = AgalCase::parse(&std::fs::read(&case).unwrap()).unwrap();
        let outputs = parsed.run().unwrap();
        assert_eq!(outputs.to_bytes(), a);
        let count = match Outputs::parse(&a).unwrap() {
            Outputs::Vertices(v) => v.len(),
            Outputs::Fragments(f) => f.len() / 4,
        };
        assert_eq!(count, 3);
    }
}

#[test]
fn command_line_errors() {
    let bad = temp("bad.agal");
    std::fs::write(&bad, ".fragment\nmov oc, fc99\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_picajit"))
        .args([
            "agal",
            "asm",
            bad.to_str().unwrap(),
            "-o",
            temp("bad.bin").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.agal:2:9: error: register operand 1 (fc99)"),
        "{err}"
    );
    // A program Flash would refuse: `info` prints the Flash error.
    let refused = temp("refused.agal");
    std::fs::write(&refused, ".fragment\nmov ft0, fc0\n").unwrap();
    let info = picajit(&["agal", "info", refused.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("Error #3634"), "{text}");
}
