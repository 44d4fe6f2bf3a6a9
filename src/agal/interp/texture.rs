//! Texture sampling for `tex` and `tld`: the [`Textures`] interface the interpreter calls, and
//! [`CpuTextures`], a CPU sampler for 2D and cube RGBA float textures.
//!
//! The interpreter hands the sampler a whole 2×2 quad of coordinates (lanes: 0 top-left,
//! 1 top-right, 2 bottom-left, 3 bottom-right) and lets it compute derivatives, level of detail
//! and filtering, so a compiled program can call the same function with the same arguments and
//! get the same bits. A vertex program's `tld` passes its one coordinate in every lane with an
//! explicit level of detail.
//!
//! # CPU sampler rules
//! - **Coordinates.** 2D: `(u, v) = (S1.x, S1.y)`. Cube: the direction `S1.xyz` selects the face
//!   of its largest magnitude component (ties: x, then y, then z), faces in Stage3D's upload
//!   order +X −X +Y −Y +Z −Z, and face coordinates as in OpenGL (`+X: s = −z, t = −y; −X: s = z,
//!   t = −y; +Y: s = x, t = z; −Y: s = x, t = −z; +Z: s = x, t = −y; −Z: s = −x, t = −y`, then
//!   `(c / |major| + 1) / 2`). A NaN coordinate counts as 0; coordinates are clamped to
//!   ±2^24 (so infinities address the edge texels).
//! - **Wrapping** per axis: repeat takes texel indices modulo the size, clamp clamps them to the
//!   edge. Cube textures always clamp.
//! - **Filter.** Nearest: texel `floor(u · w)`. Linear (and the anisotropic modes, sampled as
//!   linear): `x = u · w − 0.5`, texels `floor(x)` and `floor(x) + 1` with weight
//!   `a = x − floor(x)`, blended `p + (q − p) · a` per axis (x first, then y). All in f32.
//! - **Level of detail.** With mipmapping off, level 0. Otherwise
//!   `λ = log2(ρ) + bias`, with `ρ = max(|(du/dx, dv/dx)|, |(du/dy, dv/dy)|)` in texels of level
//!   0 from the quad's differences (x: right − left in the lane's row; y: bottom − top in its
//!   column; for cubes, of each lane's face coordinates), or `λ = S1.w + bias` for `tld`.
//!   `log2` is the project's LG2 (`float::lg2`). Mip nearest: level `ceil(λ + 0.5) − 1`; mip
//!   linear: levels `floor(λ)` and `floor(λ) + 1` blended by `λ − floor(λ)`; `λ ≤ 0` or NaN gives
//!   level 0; levels past the last given clamp to it.
//! - **Flags.** `ignoresampler` takes filter, mipmapping and wrapping from the unit's runtime
//!   state ([`CpuTextures::set_state`]; default: the token's). Format flags (compressed, video)
//!   and `centroid`/`single` do not change what the CPU sampler reads: texels are RGBA floats.

use crate::agal::sampling::{Dim, Filter, Mip, SamplerState, Wrap};
use crate::float;

/// How the level of detail is found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lod {
    /// From the quad's coordinate differences (fragment `tex`).
    Derivatives,
    /// Given per lane (`tld`: `S1.w`).
    Explicit([f32; 4]),
}

/// The texture units a program samples.
pub trait Textures {
    /// The dimension of the texture bound to `unit`, or `None` when nothing is bound.
    fn bound(&self, unit: u16) -> Option<Dim>;
    /// Samples unit `unit` (bound, of the sampler's dimension — checked before a run) at the
    /// coordinates of one quad.
    fn sample(
        &self,
        unit: u16,
        state: &SamplerState,
        coords: &[[f32; 4]; 4],
        lod: Lod,
    ) -> [[f32; 4]; 4];

    /// Samples unit `unit` for four vertices' `tld` (coordinate `coords[k]`, level of detail
    /// `coords[k][3]`): by definition what [`Textures::sample`] gives each vertex alone (its
    /// coordinate in all four lanes, `Lod::Explicit` of its `.w`, lane 0), which the default
    /// does — four calls. A sampler whose lanes are independent under an explicit level of
    /// detail may answer in one call (as [`CpuTextures`] does).
    fn sample_vertices(
        &self,
        unit: u16,
        state: &SamplerState,
        coords: &[[f32; 4]; 4],
    ) -> [[f32; 4]; 4] {
        coords.map(|c| self.sample(unit, state, &[c; 4], Lod::Explicit([c[3]; 4]))[0])
    }
}

/// No textures bound.
pub struct NoTextures;

impl Textures for NoTextures {
    fn bound(&self, _unit: u16) -> Option<Dim> {
        None
    }

    fn sample(&self, _: u16, _: &SamplerState, _: &[[f32; 4]; 4], _: Lod) -> [[f32; 4]; 4] {
        [[0.0; 4]; 4]
    }
}

/// One mip level of one face: `width × height` RGBA texels, row by row.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width × height` texels.
    pub texels: Vec<[f32; 4]>,
}

impl Level {
    fn texel(&self, x: i64, y: i64) -> [f32; 4] {
        self.texels[(y as usize) * self.width as usize + x as usize]
    }
}

/// A texture: a 2D texture has one face, a cube six; each face a list of levels.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// 2D or cube.
    pub dim: Dim,
    /// `faces[face][level]`.
    pub faces: Vec<Vec<Level>>,
}

impl Texture {
    /// A 2D texture from its levels (level 0 first).
    pub fn two_d(levels: Vec<Level>) -> Texture {
        Texture {
            dim: Dim::TwoD,
            faces: vec![levels],
        }
    }
}

/// The runtime sampler state of a unit, used by tokens with `ignoresampler`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitState {
    /// Filter.
    pub filter: Filter,
    /// Mipmapping.
    pub mip: Mip,
    /// Wrapping.
    pub wrap: Wrap,
}

/// The CPU sampler: textures by unit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CpuTextures {
    units: Vec<Option<(Texture, Option<UnitState>)>>,
}

impl CpuTextures {
    /// No textures.
    pub fn new() -> CpuTextures {
        CpuTextures::default()
    }

    /// Binds `texture` to `unit` after checking its shape: one face (2D) or six (cube), at
    /// least one level per face, `width × height` texels per level, sizes at least 1, cube
    /// faces square and alike.
    pub fn bind(&mut self, unit: u16, texture: Texture) -> Result<(), String> {
        let faces = match texture.dim {
            Dim::TwoD => 1,
            Dim::Cube => 6,
        };
        if texture.faces.len() != faces {
            return Err(format!(
                "texture for unit {unit}: {} faces, a {} texture has {faces}",
                texture.faces.len(),
                if faces == 1 { "2D" } else { "cube" }
            ));
        }
        for (f, levels) in texture.faces.iter().enumerate() {
            if levels.is_empty() {
                return Err(format!("texture for unit {unit}: face {f} has no level"));
            }
            for (l, level) in levels.iter().enumerate() {
                if level.width == 0 || level.height == 0 {
                    return Err(format!(
                        "texture for unit {unit}: face {f} level {l} is empty"
                    ));
                }
                if level.texels.len() as u64 != u64::from(level.width) * u64::from(level.height) {
                    return Err(format!(
                        "texture for unit {unit}: face {f} level {l} has {} texels for {}×{}",
                        level.texels.len(),
                        level.width,
                        level.height
                    ));
                }
                if texture.dim == Dim::Cube
                    && (level.width != level.height
                        || level.width != texture.faces[0][l.min(texture.faces[0].len() - 1)].width)
                {
                    return Err(format!("texture for unit {unit}: cube face {f} level {l} is not square or differs from face 0"));
                }
            }
        }
        let u = usize::from(unit);
        if self.units.len() <= u {
            self.units.resize(u + 1, None);
        }
        let state = self.units[u].as_ref().and_then(|(_, s)| *s);
        self.units[u] = Some((texture, state));
        Ok(())
    }

    /// Sets the runtime sampler state of `unit` (what `ignoresampler` tokens use).
    pub fn set_state(&mut self, unit: u16, state: UnitState) {
        if let Some(Some((_, s))) = self.units.get_mut(usize::from(unit)) {
            *s = Some(state);
        }
    }

    /// The texture bound to `unit` and its runtime state.
    pub fn unit(&self, unit: u16) -> Option<(&Texture, Option<UnitState>)> {
        self.units
            .get(usize::from(unit))
            .and_then(|u| u.as_ref())
            .map(|(t, s)| (t, *s))
    }
}

impl Textures for CpuTextures {
    fn bound(&self, unit: u16) -> Option<Dim> {
        self.unit(unit).map(|(t, _)| t.dim)
    }

    /// One call: under an explicit level of detail each lane's texel depends on its own
    /// coordinate and level only (face, face coordinates, level and filter per lane).
    fn sample_vertices(
        &self,
        unit: u16,
        state: &SamplerState,
        coords: &[[f32; 4]; 4],
    ) -> [[f32; 4]; 4] {
        self.sample(unit, state, coords, Lod::Explicit(coords.map(|c| c[3])))
    }

    fn sample(
        &self,
        unit: u16,
        state: &SamplerState,
        coords: &[[f32; 4]; 4],
        lod: Lod,
    ) -> [[f32; 4]; 4] {
        let Some((texture, runtime)) = self.unit(unit) else {
            return [[0.0; 4]; 4];
        };
        let (filter, mip, wrap) = match (state.ignore_sampler, runtime) {
            (true, Some(r)) => (r.filter, r.mip, r.wrap),
            (true, None) | (false, _) => (state.filter, state.mip, state.wrap),
        };
        let (repeat_u, repeat_v) = match texture.dim {
            Dim::TwoD => wrap.repeats(),
            Dim::Cube => (false, false),
        };
        // Face and face coordinates per lane.
        let mut faces = [0usize; 4];
        let mut uv = [[0.0f32; 2]; 4];
        for lane in 0..4 {
            let c = coords[lane].map(|x| {
                if x.is_nan() {
                    0.0
                } else {
                    x.clamp(-COORD_LIMIT, COORD_LIMIT)
                }
            });
            (faces[lane], uv[lane]) = match texture.dim {
                Dim::TwoD => (0, [c[0], c[1]]),
                Dim::Cube => cube_face(c[0], c[1], c[2]),
            };
        }
        let base = &texture.faces[faces[0].min(texture.faces.len() - 1)][0];
        // The level of detail (not needed without mipmapping: level 0 whatever it is).
        let lambda: [f32; 4] = match (mip, lod) {
            (Mip::None, _) => [0.0; 4],
            (Mip::Nearest | Mip::Linear, Lod::Explicit(l)) => l.map(|l| l + state.bias()),
            (Mip::Nearest | Mip::Linear, Lod::Derivatives) => {
                let mut out = [0.0f32; 4];
                for (lane, o) in out.iter_mut().enumerate() {
                    let row = lane & 2;
                    let col = lane & 1;
                    let (w, h) = (base.width as f32, base.height as f32);
                    let dx = [
                        (uv[row | 1][0] - uv[row][0]) * w,
                        (uv[row | 1][1] - uv[row][1]) * h,
                    ];
                    let dy = [
                        (uv[2 | col][0] - uv[col][0]) * w,
                        (uv[2 | col][1] - uv[col][1]) * h,
                    ];
                    let rx = (dx[0] * dx[0] + dx[1] * dx[1]).sqrt();
                    let ry = (dy[0] * dy[0] + dy[1] * dy[1]).sqrt();
                    let rho = if rx > ry { rx } else { ry };
                    *o = float::lg2(rho) + state.bias();
                }
                out
            }
        };
        let mut out = [[0.0f32; 4]; 4];
        for lane in 0..4 {
            let levels = &texture.faces[faces[lane].min(texture.faces.len() - 1)];
            let last = levels.len() - 1;
            let l = lambda[lane];
            let at = |level: usize| {
                fetch(
                    &levels[level.min(last)],
                    uv[lane],
                    filter,
                    repeat_u,
                    repeat_v,
                )
            };
            out[lane] = match mip {
                Mip::None => at(0),
                Mip::Nearest => {
                    if l > 0.0 {
                        let d = (l + 0.5).ceil() - 1.0;
                        at(level_index(d))
                    } else {
                        at(0)
                    }
                }
                Mip::Linear => {
                    if l > 0.0 {
                        let f = l.floor();
                        let l0 = level_index(f);
                        let a = at(l0);
                        if l0 >= last {
                            a
                        } else {
                            let b = at(l0 + 1);
                            let t = l - f;
                            [0, 1, 2, 3].map(|i| a[i] + (b[i] - a[i]) * t)
                        }
                    } else {
                        at(0)
                    }
                }
            };
        }
        out
    }
}

/// Coordinates are clamped to ±2^24.
const COORD_LIMIT: f32 = 16_777_216.0;

/// A level number from a non-negative float (saturating).
fn level_index(d: f32) -> usize {
    if d >= 64.0 {
        64
    } else {
        d as usize
    }
}

/// The cube face and face coordinates in [0, 1] of a direction.
fn cube_face(x: f32, y: f32, z: f32) -> (usize, [f32; 2]) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    let s = (sc / ma + 1.0) * 0.5;
    let t = (tc / ma + 1.0) * 0.5;
    let fix = |v: f32| if v.is_nan() { 0.0 } else { v };
    (face, [fix(s), fix(t)])
}

/// A texel index on an axis of `n` texels.
fn wrap_index(i: f32, n: u32, repeat: bool) -> i64 {
    let i = if i.is_nan() {
        0
    } else if i >= 9.0e15 {
        9_000_000_000_000_000
    } else if i <= -9.0e15 {
        -9_000_000_000_000_000
    } else {
        i as i64
    };
    let n = i64::from(n);
    if repeat {
        i.rem_euclid(n)
    } else {
        i.clamp(0, n - 1)
    }
}

/// One filtered fetch from a level.
fn fetch(level: &Level, uv: [f32; 2], filter: Filter, ru: bool, rv: bool) -> [f32; 4] {
    let (w, h) = (level.width, level.height);
    match filter {
        Filter::Nearest => {
            let x = wrap_index((uv[0] * w as f32).floor(), w, ru);
            let y = wrap_index((uv[1] * h as f32).floor(), h, rv);
            level.texel(x, y)
        }
        Filter::Linear | Filter::Anisotropic(_) => {
            let fx = uv[0] * w as f32 - 0.5;
            let fy = uv[1] * h as f32 - 0.5;
            let (x0f, y0f) = (fx.floor(), fy.floor());
            let (a, b) = (fx - x0f, fy - y0f);
            let x0 = wrap_index(x0f, w, ru);
            let x1 = wrap_index(x0f + 1.0, w, ru);
            let y0 = wrap_index(y0f, h, rv);
            let y1 = wrap_index(y0f + 1.0, h, rv);
            let lerp =
                |p: [f32; 4], q: [f32; 4], t: f32| [0, 1, 2, 3].map(|i| p[i] + (q[i] - p[i]) * t);
            let top = lerp(level.texel(x0, y0), level.texel(x1, y0), a);
            let bottom = lerp(level.texel(x0, y1), level.texel(x1, y1), a);
            lerp(top, bottom, b)
        }
    }
}
