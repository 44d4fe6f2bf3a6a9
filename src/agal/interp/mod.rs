//! The AGAL reference interpreter: the executable statement of AGAL semantics. It runs
//! validated programs ([`crate::agal::Program`]) one vertex, or one 2×2 quad of fragments, at a
//! time; every engine must match it bit for bit (a NaN may be any NaN).
//!
//! # Machine
//! - **Registers.** Temporaries, outputs and written varyings start at (0, 0, 0, 0) (the
//!   validator refuses reads of unwritten temporaries, but a write skipped by a conditional
//!   leaves zero). Constants the caller does not give read as zero. Vertex attributes are full
//!   vec4s (a runtime widens float1/2/3 with (0, 0, 1) before the run). The instance id `iid`
//!   is `(id, id, id, id)` (choice: Adobe never documented its layout; a replicate is right for
//!   any swizzle).
//! - **Order.** Instructions run in order; all sources are read before the destination is
//!   written (so `m44 vt0, vt0, vc0`, `nrm vt2.xyz, vt2.xyz` and `crs` with the destination as a
//!   source read the old values). Each lane of a result is computed from the same lane of the
//!   swizzled sources and written when the destination's mask has it.
//! - **Arithmetic** is [`math`]: IEEE binary32 without FMA; `div` and `rcp` are IEEE divisions;
//!   `dp3`/`dp4` and matrix rows sum left to right from +0; `min`/`max` are `a < b ? a : b` /
//!   `a > b ? a : b`; `sqt`, `rsq`, `log`, `pow` take `|x|` and `nrm(0) = 0` (Direct3D 9, likely
//!   what Flash on Windows ran); `log`/`exp` are the project's LG2/EX2 (< 1 ulp); `pow`, `sin`,
//!   `cos` are explicit f64 algorithms (< 1 ulp; `sin`/`cos` for |x| < 2^20); `frc` is
//!   `x − floor(x)`; `sat(NaN) = 0`; `seq`/`sne`/`sge`/`slt` give 1.0 or 0.0 with IEEE
//!   comparisons (`sne` is 1 for NaN); `sgn` gives −1, 0 or 1 (0 for NaN).
//! - **Matrices.** `m33`/`m34`/`m44 D, S1, S2`: row i is register `S2 + i` of S2's file (any
//!   readable file: constants, temporaries, varyings, attributes), or for an indirect S2 the
//!   constant at offset `+ i`; `D.i = dot(S1, row i)` over 3 (`m33`) or 4 components.
//! - **Indirect reads** `vc[r.c + o]`: index `trunc(r.c)` toward zero, saturating, NaN → 0 (the
//!   PICA MOVA rule, so both frontends share it), plus `o`; an index outside the program's
//!   constant file (128 vertex constants under AGAL 1, 250 above) reads (0, 0, 0, 0). (Choice:
//!   OpenFL and Ruffle truncate too; D3D9's `mova` would round, but real content feeds
//!   integers. Zero rather than clamping: an out-of-range read is a bug in the content, and zero
//!   is what robust-access GPUs give.)
//! - **Conditionals** (AGAL 2): `ife`/`ine`/`ifg`/`ifl` compare the `x` components with `==`,
//!   `!=`, `>`, `<` (`ifg` is strictly greater: choice, see below) and push the lanes where it
//!   holds; `els` switches to the other lanes of the enclosing mask; `eif` pops. Instructions
//!   run for all lanes and write only the executing ones (a vertex is one lane, so this is a
//!   branch there).
//! - **`kil`** marks an executing fragment whose source `x` is `< 0` as discarded (−0 and NaN
//!   are kept); the program runs on and the fragment's outputs are still computed — the flag is
//!   the result.
//! - **Derivatives.** A quad's lanes are 0 (x0,y0), 1 (x1,y0), 2 (x0,y1), 3 (x1,y1); `ddx` is
//!   right − left in the lane's row, `ddy` bottom − top in its column (fine derivatives).
//! - **Textures** go through [`Textures`] (the CPU one is [`CpuTextures`]): `tex` passes the
//!   quad's coordinates and the sampler computes the level of detail from them; `tld` (AGAL 4,
//!   vertex) passes its coordinate with the explicit LOD `S1.w` (choice: Direct3D 9's `texldl`,
//!   which `tld` mirrors). A `tex`/`tld` with no executing lane (inside a conditional) does
//!   not call the sampler: nothing would be written. Before a run every unit the program
//!   samples must have a texture of the declared dimension ([`RunError`]).
//!
//! # `ifg`
//! Adobe's table calls it "greater than" and describes "greater than or equal". Ruffle uses `>`
//! and renders the real programs that use it; AwayJS uses `>=`; Starling's use is insensitive.
//! `>` is chosen: it matches the mnemonic, the sibling `ifl` (`<`) and Direct3D's `if_gt`.

mod exec;
pub mod math;
pub mod texture;

pub use texture::{CpuTextures, Level, Lod, NoTextures, Texture, Textures, UnitState};

use thiserror::Error;

use super::header::ShaderKind;
use super::program::Program;
use super::reg::RegType;
use super::sampling::Dim;
use exec::Machine;

/// Attributes a vertex can have (AGAL 3).
pub const ATTRIBUTES: usize = 16;
/// Varyings (AGAL 2+).
pub const VARYINGS: usize = 10;
/// Colour outputs of a fragment program (AGAL 2+).
pub const COLORS: usize = 4;

/// The inputs of one vertex.
#[derive(Clone, Debug, PartialEq)]
pub struct Vertex {
    /// `va0`…`va15`.
    pub attributes: [[f32; 4]; ATTRIBUTES],
    /// The instance index (`iid`).
    pub instance_id: u32,
}

impl Default for Vertex {
    fn default() -> Vertex {
        Vertex {
            attributes: [[0.0; 4]; ATTRIBUTES],
            instance_id: 0,
        }
    }
}

/// The results of one vertex.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexOut {
    /// `op`.
    pub position: [f32; 4],
    /// `v0`…`v9` (zero where not written).
    pub varyings: [[f32; 4]; VARYINGS],
}

/// The inputs of one fragment: its interpolated varyings.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Fragment {
    /// `v0`…`v9`.
    pub varyings: [[f32; 4]; VARYINGS],
}

/// The results of one fragment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FragmentOut {
    /// `oc0`…`oc3` (zero where not written).
    pub colors: [[f32; 4]; COLORS],
    /// `od.x` (0 when not written).
    pub depth: f32,
    /// Discarded by `kil`.
    pub killed: bool,
}

/// Why a program cannot run with the given inputs.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RunError {
    /// A fragment program run as vertices or the reverse.
    #[error("a {program} program cannot run as {asked}")]
    WrongKind {
        program: ShaderKind,
        asked: ShaderKind,
    },
    /// A unit the program samples has no texture.
    #[error("texture unit {unit} is sampled by the program but has no texture")]
    MissingTexture { unit: u16 },
    /// A unit's texture is not of the dimension the program declares.
    #[error("texture unit {unit} holds a {bound} texture, the program samples it as {declared}")]
    WrongDimension {
        unit: u16,
        declared: &'static str,
        bound: &'static str,
    },
}

fn dim_name(d: Dim) -> &'static str {
    match d {
        Dim::TwoD => "2D",
        Dim::Cube => "cube",
    }
}

/// Checks that every sampled unit has a texture of the declared dimension.
pub fn check_textures(program: &Program, textures: &dyn Textures) -> Result<(), RunError> {
    for s in &program.interface.samplers {
        match textures.bound(s.unit) {
            None => return Err(RunError::MissingTexture { unit: s.unit }),
            Some(d) if d != s.state.dim => {
                return Err(RunError::WrongDimension {
                    unit: s.unit,
                    declared: dim_name(s.state.dim),
                    bound: dim_name(d),
                })
            }
            Some(_) => {}
        }
    }
    Ok(())
}

fn expect_kind(program: &Program, asked: ShaderKind) -> Result<(), RunError> {
    if program.kind == asked {
        Ok(())
    } else {
        Err(RunError::WrongKind {
            program: program.kind,
            asked,
        })
    }
}

/// Runs a vertex program on each vertex.
pub fn run_vertices(
    program: &Program,
    constants: &[[f32; 4]],
    textures: &dyn Textures,
    vertices: &[Vertex],
) -> Result<Vec<VertexOut>, RunError> {
    expect_kind(program, ShaderKind::Vertex)?;
    check_textures(program, textures)?;
    let mut m = Machine::new(program, constants, textures, 1);
    Ok(vertices
        .iter()
        .map(|v| {
            m.reset();
            let attr = usize::from(RegType::Attribute.code());
            for (reg, value) in m.files[attr].iter_mut().zip(&v.attributes) {
                reg[0] = *value;
            }
            let id = v.instance_id as f32;
            m.files[usize::from(RegType::InstanceId.code())][0][0] = [id; 4];
            m.run();
            let out = usize::from(RegType::Output.code());
            let var = usize::from(RegType::Varying.code());
            VertexOut {
                position: m.files[out][0][0],
                varyings: std::array::from_fn(|i| m.files[var][i][0]),
            }
        })
        .collect())
}

/// Runs a fragment program on each 2×2 quad (lanes: top-left, top-right, bottom-left,
/// bottom-right).
pub fn run_quads(
    program: &Program,
    constants: &[[f32; 4]],
    textures: &dyn Textures,
    quads: &[[Fragment; 4]],
) -> Result<Vec<[FragmentOut; 4]>, RunError> {
    expect_kind(program, ShaderKind::Fragment)?;
    check_textures(program, textures)?;
    let mut m = Machine::new(program, constants, textures, 4);
    Ok(quads
        .iter()
        .map(|q| {
            m.reset();
            let var = usize::from(RegType::Varying.code());
            for (i, reg) in m.files[var].iter_mut().enumerate() {
                for lane in 0..4 {
                    reg[lane] = q[lane].varyings[i];
                }
            }
            m.run();
            let out = usize::from(RegType::Output.code());
            let depth = usize::from(RegType::DepthOutput.code());
            std::array::from_fn(|lane| FragmentOut {
                colors: std::array::from_fn(|c| m.files[out][c][lane]),
                depth: m.files[depth][0][lane][0],
                killed: m.killed[lane],
            })
        })
        .collect())
}
