//! Sampler state: the typed meaning of a sampler field's flags (dimension, filter, mipmapping,
//! wrapping, texture format, special flags, LOD bias) and the text names AGALMiniAssembler
//! gives them. [`SamplerState::from_field`] refuses values that are not defined, naming the
//! Flash error for each.

use super::token::SamplerField;

/// Texture dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// 2D texture, coordinates `.xy`.
    TwoD,
    /// Cube texture, direction `.xyz`.
    Cube,
}

/// Texel filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    /// Nearest texel.
    Nearest,
    /// Bilinear.
    Linear,
    /// Anisotropic with 2, 4, 8 or 16 samples (Flash Player 14+); sampled as [`Filter::Linear`]
    /// by the CPU sampler.
    Anisotropic(u8),
}

/// Mipmapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mip {
    /// Level 0 only.
    None,
    /// The nearest level.
    Nearest,
    /// Between the two nearest levels.
    Linear,
}

/// Wrapping per axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wrap {
    /// Clamp both axes to the edge.
    Clamp,
    /// Repeat both axes.
    Repeat,
    /// Clamp u, repeat v (Flash Player 13+).
    ClampURepeatV,
    /// Repeat u, clamp v (Flash Player 13+).
    RepeatUClampV,
}

impl Wrap {
    /// Whether u and v repeat (`true`) or clamp.
    pub const fn repeats(self) -> (bool, bool) {
        match self {
            Wrap::Clamp => (false, false),
            Wrap::Repeat => (true, true),
            Wrap::ClampURepeatV => (false, true),
            Wrap::RepeatUClampV => (true, false),
        }
    }
}

/// Texture format the program declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexFormat {
    /// Uncompressed RGBA.
    Rgba,
    /// DXT1 (`compressed`, `dxt1`).
    Compressed,
    /// DXT5 (`compressedalpha`, `dxt5`).
    CompressedAlpha,
    /// Video texture.
    Video,
}

/// Why a sampler field's flags are not a sampler state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlagError {
    /// Dimension other than 0 (2D) or 1 (cube): Flash error #3664 (the assembler's `3d`, 2, too).
    Dim(u8),
    /// Filter above 5: #3665.
    Filter(u8),
    /// Mipmap mode above 2: #3666.
    Mip(u8),
    /// Wrapping mode above 3: #3667.
    Wrap(u8),
    /// Special flag bit 3: #3668.
    Special(u8),
    /// Format above 3: no error of its own in Flash's table; reported as reserved bits (#3654).
    Format(u8),
}

/// The typed flags of a sampler field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerState {
    /// 2D or cube.
    pub dim: Dim,
    /// Texel filter.
    pub filter: Filter,
    /// Mipmapping.
    pub mip: Mip,
    /// Wrapping.
    pub wrap: Wrap,
    /// Declared texture format.
    pub format: TexFormat,
    /// `centroid` (no effect on the CPU sampler).
    pub centroid: bool,
    /// `single` (no effect on the CPU sampler).
    pub single: bool,
    /// `ignoresampler`: filter, mipmapping and wrapping come from the runtime's sampler state
    /// for the unit (`Context3D.setSamplerStateAt`), not from the token.
    pub ignore_sampler: bool,
    /// LOD bias in eighths.
    pub bias: i8,
}

impl SamplerState {
    /// The state of a field's flags, checked in the order dimension, filter, mipmapping,
    /// wrapping, special, format.
    pub const fn from_field(f: &SamplerField) -> Result<SamplerState, FlagError> {
        let dim = match f.dim {
            0 => Dim::TwoD,
            1 => Dim::Cube,
            d => return Err(FlagError::Dim(d)),
        };
        let filter = match f.filter {
            0 => Filter::Nearest,
            1 => Filter::Linear,
            2..=5 => Filter::Anisotropic(1 << (f.filter - 1)),
            v => return Err(FlagError::Filter(v)),
        };
        let mip = match f.mip {
            0 => Mip::None,
            1 => Mip::Nearest,
            2 => Mip::Linear,
            v => return Err(FlagError::Mip(v)),
        };
        let wrap = match f.wrap {
            0 => Wrap::Clamp,
            1 => Wrap::Repeat,
            2 => Wrap::ClampURepeatV,
            3 => Wrap::RepeatUClampV,
            v => return Err(FlagError::Wrap(v)),
        };
        if f.special > 7 {
            return Err(FlagError::Special(f.special));
        }
        let format = match f.format {
            0 => TexFormat::Rgba,
            1 => TexFormat::Compressed,
            2 => TexFormat::CompressedAlpha,
            3 => TexFormat::Video,
            v => return Err(FlagError::Format(v)),
        };
        Ok(SamplerState {
            dim,
            filter,
            mip,
            wrap,
            format,
            centroid: f.special & 1 != 0,
            single: f.special & 2 != 0,
            ignore_sampler: f.special & 4 != 0,
            bias: f.bias,
        })
    }

    /// The LOD bias as a float (`bias / 8`).
    pub fn bias(&self) -> f32 {
        f32::from(self.bias) / 8.0
    }
}

/// AGALMiniAssembler's sampler option words: the word, the field's shift in the upper 32 bits
/// of the sampler field, and the value. Options at shift 16 (special flags) are OR-ed together;
/// the others replace their 4-bit field.
pub const OPTIONS: [(&str, u32, u32); 27] = [
    ("rgba", 8, 0),
    ("compressed", 8, 1),
    ("compressedalpha", 8, 2),
    ("dxt1", 8, 1),
    ("dxt5", 8, 2),
    ("video", 8, 3),
    ("2d", 12, 0),
    ("3d", 12, 2),
    ("cube", 12, 1),
    ("mipnearest", 24, 1),
    ("miplinear", 24, 2),
    ("mipnone", 24, 0),
    ("nomip", 24, 0),
    ("nearest", 28, 0),
    ("linear", 28, 1),
    ("anisotropic2x", 28, 2),
    ("anisotropic4x", 28, 3),
    ("anisotropic8x", 28, 4),
    ("anisotropic16x", 28, 5),
    ("centroid", 16, 1),
    ("single", 16, 2),
    ("ignoresampler", 16, 4),
    ("repeat", 20, 1),
    ("wrap", 20, 1),
    ("clamp", 20, 0),
    ("clamp_u_repeat_v", 20, 2),
    ("repeat_u_clamp_v", 20, 3),
];

/// The shift of the special flags among [`OPTIONS`].
pub const SPECIAL_SHIFT: u32 = 16;

/// The option word of a value of a 4-bit field at `shift` (the first listed, for the
/// disassembler), or `None`.
pub fn option_name(shift: u32, value: u32) -> Option<&'static str> {
    OPTIONS
        .iter()
        .find(|&&(_, s, v)| s == shift && v == value)
        .map(|&(name, _, _)| name)
}
