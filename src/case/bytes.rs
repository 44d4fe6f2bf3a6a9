//! Little-endian reads and writes shared by the PCAS and PCOU readers and writers: header
//! words with their truncation errors, the magic/version check, and vec4 register blocks.

use super::CaseError;
use crate::program::Regs16;

/// Bytes of one vertex's 16 vec4 registers.
pub(super) const REGS16_BYTES: u64 = 16 * 4 * 4;

/// A little-endian word at an offset already known to be in range (0 past the end).
pub(super) fn word(bytes: &[u8], offset: usize) -> u32 {
    let mut le = [0u8; 4];
    if let Some(src) = bytes.get(offset..offset.saturating_add(4)) {
        le.copy_from_slice(src);
    }
    u32::from_le_bytes(le)
}

/// A header word, or the truncation error naming it.
pub(super) fn header_word(
    bytes: &[u8],
    format: &'static str,
    field: &'static str,
    offset: usize,
) -> Result<u32, CaseError> {
    if bytes.len() < offset + 4 {
        return Err(CaseError::Truncated {
            format,
            field,
            offset,
            len: bytes.len(),
        });
    }
    Ok(word(bytes, offset))
}

/// Checks the magic and returns the version, which must be one of `versions`.
pub(super) fn check_start(
    bytes: &[u8],
    format: &'static str,
    versions: &[u32],
) -> Result<u32, CaseError> {
    if bytes.len() < 4 {
        return Err(CaseError::Truncated {
            format,
            field: "magic",
            offset: 0,
            len: bytes.len(),
        });
    }
    let magic = bytes.get(..4).unwrap_or_default();
    if magic != format.as_bytes() {
        return Err(CaseError::BadMagic {
            format,
            found: magic.escape_ascii().to_string(),
        });
    }
    let version = header_word(bytes, format, "version", 4)?;
    if !versions.contains(&version) {
        return Err(CaseError::BadVersion {
            format,
            found: version,
        });
    }
    Ok(version)
}

/// `count` consecutive words starting at `offset` (the range is known to be inside).
pub(super) fn words(bytes: &[u8], offset: usize, count: usize) -> Vec<u32> {
    (0..count).map(|k| word(bytes, offset + 4 * k)).collect()
}

/// One vertex's 16 vec4 registers at `offset`.
pub(super) fn regs16(bytes: &[u8], offset: usize) -> Regs16 {
    let mut regs = [[0.0f32; 4]; 16];
    for (r, reg) in regs.iter_mut().enumerate() {
        for (c, component) in reg.iter_mut().enumerate() {
            *component = f32::from_bits(word(bytes, offset + 16 * r + 4 * c));
        }
    }
    regs
}

pub(super) fn push_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

pub(super) fn push_regs16(out: &mut Vec<u8>, regs: &Regs16) {
    for component in regs.iter().flatten() {
        push_u32(out, component.to_bits());
    }
}

/// Saturating usize → u32 for lengths written to a header.
pub(super) fn len_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
