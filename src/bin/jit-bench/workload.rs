//! What a benchmark runs: a program with its uniforms and a batch of input vertices.
//!
//! The built-in set is the example shaders of `examples/shaders/`, embedded in the binary and
//! assembled at start-up, each with inputs that make sense for it (bone offsets that name real
//! bones, values that spread over the loop's thresholds, …). Programs from files get seeded
//! random uniforms and inputs, with the DVLE's constants applied on top.
//!
//! This file is also compiled into the criterion benches (`benches/shaders.rs`), so the two
//! measure the same programs on the same data.

use picajit::asm::{assemble, Source};
use picajit::program::{Regs16, ShaderKind, Uniforms};
use picajit::shbin::Shbin;
use picajit::Program;

/// Seed of every generated uniform and input.
pub const SEED: u64 = 7;

/// Distinct input vertices generated per workload; longer batches repeat them.
const PATTERN: usize = 1024;

/// One benchmark program with its data.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Short name used in tables, JSON and bench ids.
    pub name: String,
    pub program: Program,
    pub uniforms: Uniforms,
    /// Input vertices, repeated to fill a batch ([`Workload::inputs`]).
    pattern: Vec<Regs16>,
}

impl Workload {
    /// A workload with explicit data (a PCAS case: its own uniforms and inputs).
    pub fn new(name: String, program: Program, uniforms: Uniforms, pattern: Vec<Regs16>) -> Self {
        let pattern = if pattern.is_empty() {
            vec![[[0.0; 4]; 16]]
        } else {
            pattern
        };
        Workload {
            name,
            program,
            uniforms,
            pattern,
        }
    }

    /// DVLE `dvle` of `shbin` on seeded random uniforms (then the DVLE's constants) and
    /// inputs from `vertex`.
    pub fn from_shbin(
        name: String,
        shbin: &Shbin,
        dvle: usize,
        vertex: fn(&mut fastrand::Rng) -> Regs16,
    ) -> Result<Workload, String> {
        let program = shbin
            .program(dvle)
            .map_err(|e| format!("{name}: DVLE {dvle}: {e}"))?;
        let mut rng = fastrand::Rng::with_seed(SEED);
        let mut uniforms = random_uniforms(&mut rng);
        shbin.dvles[dvle].apply_constants(&mut uniforms);
        let pattern = (0..PATTERN).map(|_| vertex(&mut rng)).collect();
        Ok(Workload::new(name, program, uniforms, pattern))
    }

    /// `n` input vertices (the pattern repeated).
    pub fn inputs(&self, n: usize) -> Vec<Regs16> {
        self.pattern.iter().copied().cycle().take(n).collect()
    }

    /// Geometry shaders run one invocation per primitive, not per vertex.
    pub fn is_geometry(&self) -> bool {
        self.program.kind == ShaderKind::Geometry
    }
}

/// A built-in shader: an example source and the inputs that suit it.
struct Builtin {
    name: &'static str,
    file: &'static str,
    source: &'static str,
    vertex: fn(&mut fastrand::Rng) -> Regs16,
}

const BUILTINS: [Builtin; 6] = [
    Builtin {
        name: "mvp",
        file: "mvp.v.pica",
        source: include_str!("../../../examples/shaders/mvp.v.pica"),
        vertex: mesh_vertex,
    },
    Builtin {
        name: "lighting",
        file: "lighting.v.pica",
        source: include_str!("../../../examples/shaders/lighting.v.pica"),
        vertex: lit_vertex,
    },
    Builtin {
        name: "skinning",
        file: "skinning.v.pica",
        source: include_str!("../../../examples/shaders/skinning.v.pica"),
        vertex: skinned_vertex,
    },
    Builtin {
        name: "steps",
        file: "steps.v.pica",
        source: include_str!("../../../examples/shaders/steps.v.pica"),
        vertex: stepped_vertex,
    },
    Builtin {
        name: "branches",
        file: "branches.v.pica",
        source: include_str!("../../../examples/shaders/branches.v.pica"),
        vertex: branching_vertex,
    },
    Builtin {
        name: "subdivide",
        file: "subdivide.g.pica",
        source: include_str!("../../../examples/shaders/subdivide.g.pica"),
        vertex: triangle,
    },
];

/// The built-in shader set, assembled.
pub fn builtins() -> Result<Vec<Workload>, String> {
    BUILTINS
        .iter()
        .map(|b| {
            let shbin = assemble_source(b.file, b.source)?;
            Workload::from_shbin(b.name.to_string(), &shbin, 0, b.vertex)
        })
        .collect()
}

/// One built-in shader by name.
pub fn builtin(name: &str) -> Workload {
    builtins()
        .expect("the examples assemble")
        .into_iter()
        .find(|w| w.name == name)
        .unwrap_or_else(|| panic!("no built-in shader {name}"))
}

/// Assembles one source text, naming the file in the error.
pub fn assemble_source(file: &str, text: &str) -> Result<Shbin, String> {
    assemble(&[Source::new(file, text)])
        .map(|(shbin, _warnings)| shbin)
        .map_err(|diags| {
            let text: Vec<String> = diags.iter().map(ToString::to_string).collect();
            text.join("\n")
        })
}

/// Float uniforms in [-1, 1) (so no uniform is exactly 0), small loop counters, random bools.
pub fn random_uniforms(rng: &mut fastrand::Rng) -> Uniforms {
    let mut u = Uniforms::default();
    for c in u.f.iter_mut() {
        *c = std::array::from_fn(|_| rng.f32() * 2.0 - 1.0);
    }
    for i in u.i.iter_mut() {
        *i = [rng.u8(0..4), rng.u8(0..8), rng.u8(0..3), 0];
    }
    u.b = rng.u16(..);
    u
}

/// Every input register in [-2, 2): for programs whose inputs mean nothing known.
pub fn random_vertex(rng: &mut fastrand::Rng) -> Regs16 {
    std::array::from_fn(|_| std::array::from_fn(|_| rng.f32() * 4.0 - 2.0))
}

fn unit(rng: &mut fastrand::Rng) -> f32 {
    rng.f32() * 2.0 - 1.0
}

fn position(rng: &mut fastrand::Rng) -> [f32; 4] {
    [unit(rng), unit(rng), unit(rng), 1.0]
}

fn colour(rng: &mut fastrand::Rng) -> [f32; 4] {
    [rng.f32(), rng.f32(), rng.f32(), 1.0]
}

/// v0 position, v1 colour.
fn mesh_vertex(rng: &mut fastrand::Rng) -> Regs16 {
    let mut r = [[0.0; 4]; 16];
    r[0] = position(rng);
    r[1] = colour(rng);
    r
}

/// v0 position, v1 normal, v2 colour.
fn lit_vertex(rng: &mut fastrand::Rng) -> Regs16 {
    let mut r = [[0.0; 4]; 16];
    r[0] = position(rng);
    r[1] = [unit(rng), unit(rng), unit(rng) + 1.5, 0.0];
    r[2] = colour(rng);
    r
}

/// v0 position, v1 the row offsets of two of the four bones, v2 their weights.
fn skinned_vertex(rng: &mut fastrand::Rng) -> Regs16 {
    let mut r = [[0.0; 4]; 16];
    r[0] = position(rng);
    r[1] = [
        f32::from(rng.u8(0..4) * 3),
        f32::from(rng.u8(0..4) * 3),
        0.0,
        0.0,
    ];
    let w = rng.f32();
    r[2] = [w, 1.0 - w, 0.0, 0.0];
    r
}

/// v0 position, v1.x a value across the loop's thresholds (0.25 … 1.0), so vertices leave
/// the loop after different numbers of iterations.
fn stepped_vertex(rng: &mut fastrand::Rng) -> Regs16 {
    let mut r = [[0.0; 4]; 16];
    r[0] = position(rng);
    r[1] = [rng.f32() * 1.25, 0.0, 0.0, 0.0];
    r
}

/// v0 position, v1 values that send each vertex its own way at random: z < 0 (1 in 4) ends
/// culled, x < 0.5 (1 in 2) runs the loop (y: where it breaks) else the call, w > 0.75 (1 in 4
/// of the rest) ends after the IF/ELSE.
fn branching_vertex(rng: &mut fastrand::Rng) -> Regs16 {
    let mut r = [[0.0; 4]; 16];
    r[0] = position(rng);
    r[1] = [rng.f32(), rng.f32() * 0.6, rng.f32() * 2.0 - 0.5, rng.f32()];
    r
}

/// Three (position, colour) corners in v0..v5.
fn triangle(rng: &mut fastrand::Rng) -> Regs16 {
    let mut r = [[0.0; 4]; 16];
    for corner in 0..3 {
        r[corner * 2] = position(rng);
        r[corner * 2 + 1] = colour(rng);
    }
    r
}
