//! AGAL case files, next to PCAS/PCOU: an **AGCS** case is one program with its constants,
//! inputs (vertices, or 2×2 quads of fragments) and textures; an **AGOU** file is what running
//! it gives. Both little-endian, version 1. Readers check every count before allocating and
//! name the field and offset of what is wrong; floats are copied as bits (NaN payloads survive).
//!
//! ```text
//! AGCS                                    AGOU
//! 0  "AGCS"                               0  "AGOU"
//! 4  version = 1                          4  version = 1
//! 8  program bytes P (1..=98311)          8  kind: 0 vertex, 1 fragment
//! 12 constants C (0..=256)                12 items: vertices, or fragments (4 per quad)
//! 16 items N: vertices, or quads          16 per vertex: op, v0…v9 (11 × 4 f32)
//! 20 registers R per vertex (attributes,     per fragment: oc0…oc3 (16 f32), od (f32),
//!    0..=16) or per fragment (varyings,      killed (u32 0/1)
//!    0..=10)
//! 24 textures T (0..=16)
//! 28 kind: 0 vertex, 1 fragment
//! 32 program bytes, zero-padded to a multiple of 4
//!    constants: C × 4 f32
//!    vertex: N × (R × 4 f32 attributes, u32 instance id)
//!    fragment: N × 4 fragments × R × 4 f32 varyings (lanes: top-left, top-right,
//!    bottom-left, bottom-right)
//!    T textures: unit, dimension (0 2D, 1 cube), width, height, levels, runtime state
//!    (0 = none; else bit 31 | filter | mip << 4 | wrap << 8), each u32; then per face
//!    (1 or 6) per level ℓ: max(1, width >> ℓ) × max(1, height >> ℓ) texels of 4 f32
//! ```
//! Limits: items ≤ 2^20, texture sides ≤ 4096, levels ≤ 13 and no more than the sides allow.

use thiserror::Error;

use super::header::ShaderKind;
use super::interp::{
    self, CpuTextures, Fragment, FragmentOut, Level, RunError, Texture, UnitState, Vertex,
    VertexOut, ATTRIBUTES, VARYINGS,
};
use super::program::Program;
use super::sampling::{Dim, Filter, Mip, Wrap};
use super::validate::{validate, Options, ValidationError};

/// Largest program of a case: a header and 4096 tokens.
pub const MAX_PROGRAM: u32 = 7 + 24 * 4096;
/// Largest number of constants.
pub const MAX_CONSTANTS: u32 = 256;
/// Largest number of vertices or quads.
pub const MAX_ITEMS: u32 = 1 << 20;
/// Largest texture side.
pub const MAX_SIDE: u32 = 4096;
/// Largest number of textures.
pub const MAX_TEXTURES: u32 = 16;

/// A texture of a case with its unit and runtime sampler state.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseTexture {
    /// The texture unit.
    pub unit: u16,
    /// The texture.
    pub texture: Texture,
    /// The unit's runtime state (used by `ignoresampler` samplers).
    pub state: Option<UnitState>,
}

/// The inputs of a case.
#[derive(Clone, Debug, PartialEq)]
pub enum Inputs {
    /// Vertices (for a vertex program).
    Vertices(Vec<Vertex>),
    /// Quads of fragments (for a fragment program).
    Quads(Vec<[Fragment; 4]>),
}

/// One reproducible run of an AGAL program (AGCS).
#[derive(Clone, Debug, PartialEq)]
pub struct AgalCase {
    /// The program bytes (validated when the case runs, not when it is read).
    pub program: Vec<u8>,
    /// Constants `vc`/`fc` 0…
    pub constants: Vec<[f32; 4]>,
    /// Registers stored per vertex or fragment (attributes or varyings); the rest are zero.
    pub registers: u32,
    /// Vertices or quads.
    pub inputs: Inputs,
    /// Textures by unit.
    pub textures: Vec<CaseTexture>,
}

/// The results of a case (AGOU).
#[derive(Clone, Debug, PartialEq)]
pub enum Outputs {
    /// Per vertex.
    Vertices(Vec<VertexOut>),
    /// Per fragment, four per quad.
    Fragments(Vec<FragmentOut>),
}

/// Why bytes are not an AGCS/AGOU file.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CaseError {
    /// The file ends inside a field.
    #[error(
        "{format}: the file ends at byte {len}, inside the {field} field at offset {offset:#x}"
    )]
    Truncated {
        format: &'static str,
        field: &'static str,
        offset: usize,
        len: usize,
    },
    /// Wrong magic.
    #[error("{format}: bad magic {found:?} at offset 0x0")]
    BadMagic { format: &'static str, found: String },
    /// A field out of its range.
    #[error("{format}: {field} = {value} at offset {offset:#x} is out of range ({range})")]
    Range {
        format: &'static str,
        field: &'static str,
        offset: usize,
        value: u64,
        range: &'static str,
    },
    /// Bytes after the end.
    #[error("{format}: {extra} bytes after the end of the data at offset {offset:#x}")]
    Trailing {
        format: &'static str,
        offset: usize,
        extra: usize,
    },
}

/// Why a case cannot run.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CaseRunError {
    /// The program does not validate.
    #[error("{0}")]
    Invalid(#[from] ValidationError),
    /// The program is not of the case's kind, or its textures do not fit.
    #[error("{0}")]
    Run(#[from] RunError),
    /// A texture is malformed.
    #[error("{0}")]
    Texture(String),
    /// An engine refused the run (the buffers it was given).
    #[error("{0}")]
    Engine(String),
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    format: &'static str,
}

impl Reader<'_> {
    fn u32(&mut self, field: &'static str) -> Result<u32, CaseError> {
        let b = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or(CaseError::Truncated {
                format: self.format,
                field,
                offset: self.pos,
                len: self.bytes.len(),
            })?;
        self.pos += 4;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A header count checked against `max`.
    fn count(
        &mut self,
        field: &'static str,
        max: u32,
        range: &'static str,
    ) -> Result<u32, CaseError> {
        let offset = self.pos;
        let v = self.u32(field)?;
        if v > max {
            return Err(CaseError::Range {
                format: self.format,
                field,
                offset,
                value: u64::from(v),
                range,
            });
        }
        Ok(v)
    }

    /// Fails unless `bytes` more bytes are there.
    fn need(&self, field: &'static str, bytes: u64) -> Result<(), CaseError> {
        if (self.bytes.len() - self.pos) as u64 >= bytes {
            Ok(())
        } else {
            Err(CaseError::Truncated {
                format: self.format,
                field,
                offset: self.pos,
                len: self.bytes.len(),
            })
        }
    }

    fn vec4(&mut self, field: &'static str) -> Result<[f32; 4], CaseError> {
        let mut v = [0.0f32; 4];
        for c in &mut v {
            *c = f32::from_bits(self.u32(field)?);
        }
        Ok(v)
    }

    fn end(&self) -> Result<(), CaseError> {
        if self.pos == self.bytes.len() {
            Ok(())
        } else {
            Err(CaseError::Trailing {
                format: self.format,
                offset: self.pos,
                extra: self.bytes.len() - self.pos,
            })
        }
    }
}

fn start<'a>(bytes: &'a [u8], format: &'static str) -> Result<Reader<'a>, CaseError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        format,
    };
    let magic = bytes.get(..4).ok_or(CaseError::Truncated {
        format,
        field: "magic",
        offset: 0,
        len: bytes.len(),
    })?;
    if magic != format.as_bytes() {
        return Err(CaseError::BadMagic {
            format,
            found: magic.escape_ascii().to_string(),
        });
    }
    r.pos = 4;
    let version = r.u32("version")?;
    if version != 1 {
        return Err(CaseError::Range {
            format,
            field: "version",
            offset: 4,
            value: u64::from(version),
            range: "1",
        });
    }
    Ok(r)
}

fn kind_of(r: &mut Reader<'_>) -> Result<ShaderKind, CaseError> {
    let offset = r.pos;
    let v = r.count("kind", 1, "0 vertex, 1 fragment")?;
    ShaderKind::from_byte(v as u8).ok_or(CaseError::Range {
        format: r.format,
        field: "kind",
        offset,
        value: u64::from(v),
        range: "0 vertex, 1 fragment",
    })
}

fn push(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn push4(out: &mut Vec<u8>, v: &[f32; 4]) {
    for c in v {
        push(out, c.to_bits());
    }
}

/// Side of level `l`.
fn side(n: u32, l: u32) -> u32 {
    (n >> l).max(1)
}

fn state_word(s: Option<UnitState>) -> u32 {
    let Some(s) = s else { return 0 };
    let filter = match s.filter {
        Filter::Nearest => 0,
        Filter::Linear => 1,
        Filter::Anisotropic(n) => 1 + n.trailing_zeros(),
    };
    let mip = match s.mip {
        Mip::None => 0,
        Mip::Nearest => 1,
        Mip::Linear => 2,
    };
    let wrap = match s.wrap {
        Wrap::Clamp => 0,
        Wrap::Repeat => 1,
        Wrap::ClampURepeatV => 2,
        Wrap::RepeatUClampV => 3,
    };
    1 << 31 | filter | mip << 4 | wrap << 8
}

fn state_of(w: u32) -> Option<Option<UnitState>> {
    if w == 0 {
        return Some(None);
    }
    if w & !(1 << 31 | 0xFFF) != 0 || w & (1 << 31) == 0 {
        return None;
    }
    let filter = match w & 0xF {
        0 => Filter::Nearest,
        1 => Filter::Linear,
        f @ 2..=5 => Filter::Anisotropic(1 << (f - 1)),
        _ => return None,
    };
    let mip = match (w >> 4) & 0xF {
        0 => Mip::None,
        1 => Mip::Nearest,
        2 => Mip::Linear,
        _ => return None,
    };
    let wrap = match (w >> 8) & 0xF {
        0 => Wrap::Clamp,
        1 => Wrap::Repeat,
        2 => Wrap::ClampURepeatV,
        3 => Wrap::RepeatUClampV,
        _ => return None,
    };
    Some(Some(UnitState { filter, mip, wrap }))
}

impl AgalCase {
    /// The program kind (vertex cases hold vertices).
    pub fn kind(&self) -> ShaderKind {
        match self.inputs {
            Inputs::Vertices(_) => ShaderKind::Vertex,
            Inputs::Quads(_) => ShaderKind::Fragment,
        }
    }

    /// Reads an AGCS file.
    pub fn parse(bytes: &[u8]) -> Result<AgalCase, CaseError> {
        let f = "AGCS";
        let mut r = start(bytes, f)?;
        let p = r.u32("program_len")?;
        if p == 0 || p > MAX_PROGRAM {
            return Err(CaseError::Range {
                format: f,
                field: "program_len",
                offset: 8,
                value: u64::from(p),
                range: "1..=98311",
            });
        }
        let c = r.count("constants", MAX_CONSTANTS, "0..=256")?;
        let n = r.count("items", MAX_ITEMS, "0..=1048576")?;
        let reg_at = r.pos;
        let regs = r.u32("registers")?;
        let t = r.count("textures", MAX_TEXTURES, "0..=16")?;
        let kind = kind_of(&mut r)?;
        let max_regs = match kind {
            ShaderKind::Vertex => ATTRIBUTES,
            ShaderKind::Fragment => VARYINGS,
        } as u32;
        if regs > max_regs {
            return Err(CaseError::Range {
                format: f,
                field: "registers",
                offset: reg_at,
                value: u64::from(regs),
                range: if max_regs == 16 {
                    "0..=16 attributes"
                } else {
                    "0..=10 varyings"
                },
            });
        }
        let padded = (u64::from(p) + 3) & !3;
        r.need("program", padded)?;
        let program = r.bytes[r.pos..r.pos + p as usize].to_vec();
        r.pos += padded as usize;
        r.need("constants", u64::from(c) * 16)?;
        let constants = (0..c)
            .map(|_| r.vec4("constants"))
            .collect::<Result<Vec<_>, _>>()?;
        let inputs = match kind {
            ShaderKind::Vertex => {
                r.need("vertices", u64::from(n) * (u64::from(regs) * 16 + 4))?;
                let mut vs = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let mut v = Vertex::default();
                    for a in v.attributes.iter_mut().take(regs as usize) {
                        *a = r.vec4("attributes")?;
                    }
                    v.instance_id = r.u32("instance id")?;
                    vs.push(v);
                }
                Inputs::Vertices(vs)
            }
            ShaderKind::Fragment => {
                r.need("quads", u64::from(n) * 4 * u64::from(regs) * 16)?;
                let mut qs = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let mut q: [Fragment; 4] = Default::default();
                    for frag in &mut q {
                        for v in frag.varyings.iter_mut().take(regs as usize) {
                            *v = r.vec4("varyings")?;
                        }
                    }
                    qs.push(q);
                }
                Inputs::Quads(qs)
            }
        };
        let mut textures = Vec::new();
        for _ in 0..t {
            let unit_at = r.pos;
            let unit = r.count("texture unit", 15, "0..=15")? as u16;
            let dim = match r.count("texture dimension", 1, "0 2D, 1 cube")? {
                0 => Dim::TwoD,
                _ => Dim::Cube,
            };
            let w = r.count("texture width", MAX_SIDE, "1..=4096")?;
            let h = r.count("texture height", MAX_SIDE, "1..=4096")?;
            let levels_at = r.pos;
            let levels = r.u32("texture levels")?;
            let state_at = r.pos;
            let state_raw = r.u32("texture state")?;
            let bad = |field, offset, value: u32, range| CaseError::Range {
                format: f,
                field,
                offset,
                value: u64::from(value),
                range,
            };
            if w == 0 || h == 0 || (dim == Dim::Cube && w != h) {
                return Err(bad(
                    "texture width",
                    unit_at + 8,
                    w,
                    "1..=4096, square for a cube",
                ));
            }
            let max_levels = 32 - w.max(h).leading_zeros();
            if levels == 0 || levels > max_levels {
                return Err(bad("texture levels", levels_at, levels, "1..=log2(side)+1"));
            }
            let state = state_of(state_raw).ok_or_else(|| {
                bad(
                    "texture state",
                    state_at,
                    state_raw,
                    "0 or bit 31 | filter | mip << 4 | wrap << 8",
                )
            })?;
            let faces = if dim == Dim::Cube { 6 } else { 1 };
            let texels: u64 = (0..levels)
                .map(|l| u64::from(side(w, l)) * u64::from(side(h, l)))
                .sum::<u64>()
                * faces;
            r.need("texels", texels * 16)?;
            let mut face_list = Vec::new();
            for _ in 0..faces {
                let mut ls = Vec::new();
                for l in 0..levels {
                    let (lw, lh) = (side(w, l), side(h, l));
                    let texels = (0..lw * lh)
                        .map(|_| r.vec4("texels"))
                        .collect::<Result<Vec<_>, _>>()?;
                    ls.push(Level {
                        width: lw,
                        height: lh,
                        texels,
                    });
                }
                face_list.push(ls);
            }
            textures.push(CaseTexture {
                unit,
                texture: Texture {
                    dim,
                    faces: face_list,
                },
                state,
            });
        }
        r.end()?;
        Ok(AgalCase {
            program,
            constants,
            registers: regs,
            inputs,
            textures,
        })
    }

    /// Writes the AGCS bytes; `parse(to_bytes(c)) == c` for a case within the limits (only
    /// `registers` attributes or varyings of each item are written).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = b"AGCS".to_vec();
        push(&mut out, 1);
        push(&mut out, self.program.len() as u32);
        push(&mut out, self.constants.len() as u32);
        let n = match &self.inputs {
            Inputs::Vertices(v) => v.len(),
            Inputs::Quads(q) => q.len(),
        };
        push(&mut out, n as u32);
        push(&mut out, self.registers);
        push(&mut out, self.textures.len() as u32);
        push(&mut out, u32::from(self.kind().byte()));
        out.extend_from_slice(&self.program);
        while out.len() % 4 != 0 {
            out.push(0);
        }
        for c in &self.constants {
            push4(&mut out, c);
        }
        let regs = self.registers as usize;
        match &self.inputs {
            Inputs::Vertices(vs) => {
                for v in vs {
                    for a in v.attributes.iter().take(regs) {
                        push4(&mut out, a);
                    }
                    push(&mut out, v.instance_id);
                }
            }
            Inputs::Quads(qs) => {
                for q in qs {
                    for frag in q {
                        for v in frag.varyings.iter().take(regs) {
                            push4(&mut out, v);
                        }
                    }
                }
            }
        }
        for t in &self.textures {
            push(&mut out, u32::from(t.unit));
            push(&mut out, u32::from(t.texture.dim == Dim::Cube));
            let base = t.texture.faces.first().and_then(|f| f.first());
            push(&mut out, base.map_or(0, |l| l.width));
            push(&mut out, base.map_or(0, |l| l.height));
            push(
                &mut out,
                t.texture.faces.first().map_or(0, |f| f.len() as u32),
            );
            push(&mut out, state_word(t.state));
            for face in &t.texture.faces {
                for level in face {
                    for texel in &level.texels {
                        push4(&mut out, texel);
                    }
                }
            }
        }
        out
    }

    /// Validates the program (as the case's kind), binds the textures and runs it.
    pub fn run(&self) -> Result<Outputs, CaseRunError> {
        let (program, textures) = self.prepare()?;
        Ok(match &self.inputs {
            Inputs::Vertices(vs) => Outputs::Vertices(interp::run_vertices(
                &program,
                &self.constants,
                &textures,
                vs,
            )?),
            Inputs::Quads(qs) => Outputs::Fragments(
                interp::run_quads(&program, &self.constants, &textures, qs)?
                    .into_iter()
                    .flatten()
                    .collect(),
            ),
        })
    }

    /// The validated program (as the case's kind) and the bound textures: what every runner
    /// of the case starts from.
    pub fn prepare(&self) -> Result<(Program, CpuTextures), CaseRunError> {
        let program = validate(
            &self.program,
            &Options {
                kind: Some(self.kind()),
                max_version: 4,
            },
        )?;
        let mut textures = CpuTextures::new();
        for t in &self.textures {
            textures
                .bind(t.unit, t.texture.clone())
                .map_err(CaseRunError::Texture)?;
            if let Some(s) = t.state {
                textures.set_state(t.unit, s);
            }
        }
        Ok((program, textures))
    }
}

impl Outputs {
    /// Writes the AGOU bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = b"AGOU".to_vec();
        push(&mut out, 1);
        match self {
            Outputs::Vertices(vs) => {
                push(&mut out, 0);
                push(&mut out, vs.len() as u32);
                for v in vs {
                    push4(&mut out, &v.position);
                    for x in &v.varyings {
                        push4(&mut out, x);
                    }
                }
            }
            Outputs::Fragments(fs) => {
                push(&mut out, 1);
                push(&mut out, fs.len() as u32);
                for f in fs {
                    for c in &f.colors {
                        push4(&mut out, c);
                    }
                    push(&mut out, f.depth.to_bits());
                    push(&mut out, u32::from(f.killed));
                }
            }
        }
        out
    }

    /// Reads an AGOU file.
    pub fn parse(bytes: &[u8]) -> Result<Outputs, CaseError> {
        let mut r = start(bytes, "AGOU")?;
        let kind = kind_of(&mut r)?;
        let n = r.count("items", MAX_ITEMS * 4, "0..=4194304")?;
        Ok(match kind {
            ShaderKind::Vertex => {
                r.need("vertices", u64::from(n) * 176)?;
                let mut vs = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let position = r.vec4("position")?;
                    let mut varyings = [[0.0; 4]; VARYINGS];
                    for v in &mut varyings {
                        *v = r.vec4("varyings")?;
                    }
                    vs.push(VertexOut { position, varyings });
                }
                r.end()?;
                Outputs::Vertices(vs)
            }
            ShaderKind::Fragment => {
                r.need("fragments", u64::from(n) * 72)?;
                let mut fs = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let mut colors = [[0.0; 4]; 4];
                    for c in &mut colors {
                        *c = r.vec4("colors")?;
                    }
                    let depth = f32::from_bits(r.u32("depth")?);
                    let at = r.pos;
                    let killed = match r.u32("killed")? {
                        0 => false,
                        1 => true,
                        v => {
                            return Err(CaseError::Range {
                                format: "AGOU",
                                field: "killed",
                                offset: at,
                                value: u64::from(v),
                                range: "0 or 1",
                            })
                        }
                    };
                    fs.push(FragmentOut {
                        colors,
                        depth,
                        killed,
                    });
                }
                r.end()?;
                Outputs::Fragments(fs)
            }
        })
    }
}

/// A case for `program` (bytes of a valid program) with seeded random inputs (features `fuzz`
/// or `bench`): constants in
/// [−1, 1), `count` vertices or quads with attributes/varyings in [−2, 2), instance ids
/// 0, 1, 2…, and for every sampled unit an 8×8 texture (a cube of 8×8 faces) with its full mip
/// chain of random texels in [0, 1).
#[cfg(any(feature = "fuzz", feature = "bench"))]
pub fn random_case(bytes: &[u8], count: usize, seed: u64) -> Result<AgalCase, ValidationError> {
    let program = validate(bytes, &Options::default())?;
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut val = |lo: f32, hi: f32| lo + (hi - lo) * rng.f32();
    let constants = (0..program.constant_count())
        .map(|_| [0; 4].map(|_| val(-1.0, 1.0)))
        .collect();
    let inputs = match program.kind {
        ShaderKind::Vertex => Inputs::Vertices(
            (0..count)
                .map(|i| Vertex {
                    attributes: [[0.0; 4]; ATTRIBUTES].map(|_| [0; 4].map(|_| val(-2.0, 2.0))),
                    instance_id: i as u32,
                })
                .collect(),
        ),
        ShaderKind::Fragment => Inputs::Quads(
            (0..count)
                .map(|_| {
                    std::array::from_fn(|_| Fragment {
                        varyings: [[0.0; 4]; VARYINGS].map(|_| [0; 4].map(|_| val(-2.0, 2.0))),
                    })
                })
                .collect(),
        ),
    };
    let textures = program
        .interface
        .samplers
        .iter()
        .map(|s| {
            let faces = if s.state.dim == Dim::Cube { 6 } else { 1 };
            let face = |val: &mut dyn FnMut(f32, f32) -> f32| -> Vec<Level> {
                (0..4)
                    .map(|l| {
                        let n = 8 >> l;
                        Level {
                            width: n,
                            height: n,
                            texels: (0..n * n).map(|_| [0; 4].map(|_| val(0.0, 1.0))).collect(),
                        }
                    })
                    .collect()
            };
            CaseTexture {
                unit: s.unit,
                texture: Texture {
                    dim: s.state.dim,
                    faces: (0..faces).map(|_| face(&mut val)).collect(),
                },
                state: None,
            }
        })
        .collect();
    Ok(AgalCase {
        program: bytes.to_vec(),
        constants,
        registers: match program.kind {
            ShaderKind::Vertex => ATTRIBUTES as u32,
            ShaderKind::Fragment => VARYINGS as u32,
        },
        inputs,
        textures,
    })
}
