//! Vertex attribute formats: how a Stage3D vertex buffer's bytes become the full vec4 attribute
//! registers (`va0`…`va15`) that the interpreter and [`crate::engine::AgalShader`] take.
//!
//! A format is Stage3D's `Context3DVertexBufferFormat` (`setVertexBufferAt`): `float1`,
//! `float2`, `float3` widen with (0, 0, 1) for the components they lack (`float2` →
//! (x, y, 0, 1)), `float4` is taken as is, `bytes4` is four unsigned bytes, in memory order
//! x, y, z, w, each normalised to `b / 255` (an f32 division, so 255 is exactly 1.0). Floats are
//! little-endian, as `VertexBuffer3D.uploadFromByteArray` takes them. (Choice for `bytes4`'s
//! order: memory order, the reading of the format's description; Flash on Direct3D may have
//! swizzled it as a `D3DCOLOR`, which content packing colours as bytes would undo.)
//!
//! [`gather`] builds the attribute registers of a run of vertices from streams (a register, a
//! format, the bytes, an offset and a stride per stream), checking every read against the
//! buffer: a stream that reads past its buffer is a typed error naming the register and the
//! vertex, never a panic.

use thiserror::Error;

use crate::program::Regs16;

/// A vertex attribute format (Stage3D's `Context3DVertexBufferFormat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VertexFormat {
    /// One float: (x, 0, 0, 1).
    Float1,
    /// Two floats: (x, y, 0, 1).
    Float2,
    /// Three floats: (x, y, z, 1).
    Float3,
    /// Four floats.
    Float4,
    /// Four unsigned bytes normalised to [0, 1].
    Bytes4,
}

impl VertexFormat {
    /// Every format, in Stage3D's order.
    pub const ALL: [VertexFormat; 5] = [
        VertexFormat::Bytes4,
        VertexFormat::Float1,
        VertexFormat::Float2,
        VertexFormat::Float3,
        VertexFormat::Float4,
    ];

    /// Stage3D's name (`"float2"`, `"bytes4"`, …).
    pub fn name(self) -> &'static str {
        match self {
            VertexFormat::Float1 => "float1",
            VertexFormat::Float2 => "float2",
            VertexFormat::Float3 => "float3",
            VertexFormat::Float4 => "float4",
            VertexFormat::Bytes4 => "bytes4",
        }
    }

    /// The format of a Stage3D name.
    pub fn from_name(name: &str) -> Option<VertexFormat> {
        VertexFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Bytes one attribute takes.
    pub fn size(self) -> usize {
        match self {
            VertexFormat::Float1 | VertexFormat::Bytes4 => 4,
            VertexFormat::Float2 => 8,
            VertexFormat::Float3 => 12,
            VertexFormat::Float4 => 16,
        }
    }

    /// The vec4 of one attribute from its bytes (`None` when fewer than [`VertexFormat::size`]).
    pub fn widen(self, bytes: &[u8]) -> Option<[f32; 4]> {
        let bytes = bytes.get(..self.size())?;
        let float = |k: usize| {
            let mut b = [0u8; 4];
            b.copy_from_slice(&bytes[4 * k..4 * k + 4]);
            f32::from_le_bytes(b)
        };
        Some(match self {
            VertexFormat::Float1 => [float(0), 0.0, 0.0, 1.0],
            VertexFormat::Float2 => [float(0), float(1), 0.0, 1.0],
            VertexFormat::Float3 => [float(0), float(1), float(2), 1.0],
            VertexFormat::Float4 => [float(0), float(1), float(2), float(3)],
            VertexFormat::Bytes4 => std::array::from_fn(|c| f32::from(bytes[c]) / 255.0),
        })
    }
}

/// One vertex buffer bound to an attribute register.
#[derive(Clone, Copy, Debug)]
pub struct AttributeStream<'a> {
    /// The register (`va`n).
    pub register: u16,
    /// The format.
    pub format: VertexFormat,
    /// The buffer.
    pub data: &'a [u8],
    /// Byte offset of vertex 0's attribute.
    pub offset: usize,
    /// Bytes from one vertex to the next.
    pub stride: usize,
}

/// Why [`gather`] cannot build the registers.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum AttributeError {
    /// A register past `va15`.
    #[error("attribute register va{0} does not exist (va0 to va15)")]
    Register(u16),
    /// Vertex `vertex`'s attribute for `va{register}` ends past the buffer.
    #[error("va{register} of vertex {vertex}: bytes {start}..{end} are past the buffer's {len}")]
    OutOfBounds {
        /// The register.
        register: u16,
        /// The vertex (index into the run, counting from `first`).
        vertex: usize,
        /// The attribute's first byte.
        start: usize,
        /// One past its last byte.
        end: usize,
        /// The buffer's length.
        len: usize,
    },
}

/// Fills `out` with the attribute registers of vertices `first..first + out.len()`: each
/// stream's register widened from its format, (0, 0, 0, 0) in registers no stream names (a
/// later stream for the same register wins).
pub fn gather(
    streams: &[AttributeStream<'_>],
    first: usize,
    out: &mut [Regs16],
) -> Result<(), AttributeError> {
    for s in streams {
        if s.register >= 16 {
            return Err(AttributeError::Register(s.register));
        }
    }
    for (k, regs) in out.iter_mut().enumerate() {
        *regs = [[0.0; 4]; 16];
        let vertex = first.saturating_add(k);
        for s in streams {
            let bounds = || AttributeError::OutOfBounds {
                register: s.register,
                vertex,
                start: s.offset.saturating_add(vertex.saturating_mul(s.stride)),
                end: s
                    .offset
                    .saturating_add(vertex.saturating_mul(s.stride))
                    .saturating_add(s.format.size()),
                len: s.data.len(),
            };
            let start = vertex
                .checked_mul(s.stride)
                .and_then(|b| b.checked_add(s.offset))
                .ok_or_else(bounds)?;
            let value = s
                .data
                .get(start..)
                .and_then(|b| s.format.widen(b))
                .ok_or_else(bounds)?;
            regs[usize::from(s.register)] = value;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn formats_widen_with_0_0_1() {
        let b = floats(&[1.5, -2.0, 3.25, 7.0]);
        assert_eq!(VertexFormat::Float1.widen(&b), Some([1.5, 0.0, 0.0, 1.0]));
        assert_eq!(VertexFormat::Float2.widen(&b), Some([1.5, -2.0, 0.0, 1.0]));
        assert_eq!(VertexFormat::Float3.widen(&b), Some([1.5, -2.0, 3.25, 1.0]));
        assert_eq!(VertexFormat::Float4.widen(&b), Some([1.5, -2.0, 3.25, 7.0]));
        assert_eq!(
            VertexFormat::Bytes4.widen(&[0, 255, 51, 128]),
            Some([0.0, 1.0, 0.2, 128.0 / 255.0])
        );
        assert_eq!(VertexFormat::Float4.widen(&b[..15]), None);
        for f in VertexFormat::ALL {
            assert_eq!(VertexFormat::from_name(f.name()), Some(f));
        }
        assert_eq!(VertexFormat::from_name("float5"), None);
    }

    #[test]
    fn gather_interleaved_streams_and_report_overruns() {
        // Interleaved: position float3 at 0, colour bytes4 at 12; stride 16; two vertices.
        let mut data = floats(&[1.0, 2.0, 3.0]);
        data.extend([255, 0, 0, 255]);
        data.extend(floats(&[4.0, 5.0, 6.0]));
        data.extend([0, 255, 0, 51]);
        let streams = [
            AttributeStream {
                register: 0,
                format: VertexFormat::Float3,
                data: &data,
                offset: 0,
                stride: 16,
            },
            AttributeStream {
                register: 3,
                format: VertexFormat::Bytes4,
                data: &data,
                offset: 12,
                stride: 16,
            },
        ];
        let mut out = vec![[[9.0; 4]; 16]; 2];
        gather(&streams, 0, &mut out).unwrap();
        assert_eq!(out[0][0], [1.0, 2.0, 3.0, 1.0]);
        assert_eq!(out[0][3], [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(out[1][0], [4.0, 5.0, 6.0, 1.0]);
        assert_eq!(out[1][3], [0.0, 1.0, 0.0, 0.2]);
        assert_eq!(out[1][1], [0.0; 4], "unnamed registers are zero");
        // From vertex 1, two vertices: the second runs past the 32 bytes.
        let err = gather(&streams, 1, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "va0 of vertex 2: bytes 32..44 are past the buffer's 32"
        );
        let huge = [AttributeStream {
            stride: usize::MAX,
            ..streams[0]
        }];
        assert!(matches!(
            gather(&huge, 1, &mut out[..1]),
            Err(AttributeError::OutOfBounds { vertex: 1, .. })
        ));
        let bad = [AttributeStream {
            register: 16,
            ..streams[0]
        }];
        assert_eq!(gather(&bad, 0, &mut out), Err(AttributeError::Register(16)));
    }
}
