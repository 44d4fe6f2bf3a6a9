//! The validator: Flash Player's upload rules for AGAL bytecode (`Program3D.upload`). A program it accepts becomes a [`Program`]; a rejected one gets
//! Flash's error number, message and 1-based token index ([`ValidationError`]).
//!
//! What Flash is known to do is followed exactly (the order of the header checks and the
//! per-operand checks the real player reported in Ruffle's `stage3d_agal_upload_errors` test);
//! where the order or scope of a rule is not known, the choice below keeps real content working
//! — what real Flash accepted must be accepted.
//!
//! # Program checks, in order
//! 1. Empty → #3615 (no kind named, as Flash prints it); fewer than 7 bytes or byte 0 not `0xA0`
//!    → #3612; no token after the header → #3615; version outside 1..=4 → #3617, above the
//!    profile's maximum (`Options::max_version`) → #3725; byte 5 not `0xA1` → #3618; byte 6 not
//!    0/1, or not the kind the caller uploads it as → #3619; more tokens than the version allows
//!    (200 / 1024 / 2048) → #3629. Bytes after the last whole token are ignored (choice: Flash's
//!    behaviour is not known; ignoring them is what a token loop over `(len − 7) / 24` does).
//!    #3641 (indirect addressing not allowed for an operand) is never given: no operand of a
//!    vertex program is known to refuse it.
//! 2. Each token in order (`check.rs`), then: an open `ife`…`eif` block → #3739; vertex `op` not
//!    written in all four components → #3635; a varying written in only some components →
//!    #3633; fragment `oc` (color 0) never written → #3634; colour outputs other than `oc0`…`ocN`
//!    without gaps → #3775.
//! 3. [`validate_pair`] adds the linkage of a vertex and a fragment program: same version
//!    (#3757), every varying the fragment program reads written by the vertex program (#3632).
//!
//! # Token checks, in order
//! 1. Opcode: values 0x22–0x25 and `ted` (0x26) → #3621 (choice: `ted` is commented out of
//!    every AGALMiniAssembler and never appears in the surveyed corpus; its semantics are
//!    unknown); other non-opcodes → #3620; fragment-only in a vertex program → #3622; `tld` in
//!    a fragment program → #3803; AGAL 2 opcodes under version 1 → #3726; `tld` under version 4
//!    → #3805. `sgn` is accepted in every version (choice: it is in every AGALMiniAssembler
//!    since 2011; rejecting it could only break content).
//! 2. Fields the opcode does not use: a destination field that is not zero → #3627 (`kil`,
//!    `ife`…, `els`, `eif`); an unused source field → #3636.
//! 3. Destination: reserved bits → #3654; type above 7 → #3655; zero mask → #3653; then by
//!    type: attribute #3651, constant #3652, sampler #3649, varying in a fragment program #3650,
//!    instance id #3786, depth output in a vertex program #3750; register number out of range
//!    (#3656–#3661, #3749 for depth); depth mask other than `.x` → #3756; fragment `oc` with a
//!    mask → #3701, written twice → #3744; an output or depth write inside a conditional →
//!    #3751.
//! 4. Each source: reserved bits → #3654; type above 7 → #3655; for an indirect source: in a
//!    fragment program #3639, base not constant #3640, index type not attribute, constant or
//!    temporary #3642, index register out of range; for a direct source, index fields (offset,
//!    index type, component) not zero → #3643. Then by type: sampler in a vertex program #3637
//!    (unless it is `tld`'s sampler), sampler anywhere but a texture instruction's operand 2
//!    #3638, varying read in a vertex program #3644, attribute read in a fragment program
//!    #3645, instance id in a fragment program #3788 or below version 3 #3789, depth output in a
//!    vertex program #3750; register number out of range (every row of a matrix operand is
//!    checked); output or depth output read → #3646; a temporary read before any write #3647,
//!    or a component read before it was written #3648.
//! 5. The sampler of `tex`/`tld`: type not 5 → #3693; reserved bits or a format above 3 →
//!    #3654; unknown dimension (including the assembler's `3d`) #3664, filter #3665, mipmap
//!    #3666, wrapping #3667, special flag #3668; unit out of range #3656; cube not clamped
//!    #3662; anisotropic filter in a vertex sampler #3804; a unit used before with other flags
//!    (any field but the register number, bias included) → #3696. Not enforced: #3704 (cube
//!    needs mipmapping), because the surveyed OGSL ray tracer samples a cube with `mipnone` and
//!    ran in Flash.
//! 6. Both sources indirect → #3626; both sources constants → #3625.
//! 7. `nrm`, `crs`, `m33`, `m34` writing `w` → #3628; a swizzled matrix operand → #3689
//!    (scope chosen: operand 2 of `m33`/`m34`/`m44` only); `kil`'s source and both sources of
//!    `ife`/`ine`/`ifg`/`ifl` not a replicate swizzle → #3703; identical condition sources →
//!    #3758; `tex` inside a conditional with a coordinate that is not a varying → #3741;
//!    `ddx`/`ddy` inside a conditional → #3742.
//! 8. Blocks: more than [`MAX_NESTING`] open → #3624; `els`/`eif` with nothing open → #3623;
//!    a second `els` in one block → #3752; `els`/`eif` closing a branch with no instruction →
//!    #3748.
//!
//! # Which components a source reads (for #3647/#3648)
//! The source's swizzle applied to the lanes the opcode uses: the destination's mask for
//! component-wise opcodes; `.xyz` for `dp3`, `nrm`, `crs`, `m33` (vector and rows); `.xyzw`
//! for `dp4`, `m34`, `m44`; `.x` for `kil` and the conditions; `.xy` (2D) or `.xyz` (cube)
//! for a texture coordinate, plus `.w` for `tld` (its explicit LOD). Writes inside conditional
//! blocks count as writes (choice: the lenient reading; the interpreter starts temporaries at
//! zero, so a skipped write is still defined).

mod check;
mod error;

pub use error::{Operand, Problem, ValidationError};

use super::header::{Bytecode, ShaderKind, HEADER_BYTES, MAGIC, TYPE_TAG};
use super::program::Program;
use super::reg::{max_tokens, RegType, WriteMask};

/// Deepest nesting of conditional blocks accepted (#3624). AGALMiniAssembler declares 4 (and
/// never enforces it); Flash's own limit is not known.
pub const MAX_NESTING: usize = 4;

/// What the caller expects of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The kind the program is uploaded as (`None`: take it from the header).
    pub kind: Option<ShaderKind>,
    /// Highest version the profile accepts (baseline profiles 1, standard 2, standard
    /// extended 3, enhanced 4); a higher one is #3725.
    pub max_version: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            kind: None,
            max_version: 4,
        }
    }
}

/// Validates a program.
pub fn validate(bytes: &[u8], options: &Options) -> Result<Program, ValidationError> {
    let whole = |problem, kind| ValidationError {
        problem,
        kind,
        token: None,
    };
    if bytes.is_empty() {
        return Err(whole(Problem::Empty, None));
    }
    let code = Bytecode::split(bytes);
    let kind_hint = options
        .kind
        .or_else(|| code.header.and_then(|h| h.shader_kind()));
    let header = match code.header {
        Some(h) if h.magic == MAGIC => h,
        _ => return Err(whole(Problem::NotLittleEndian, kind_hint)),
    };
    if bytes.len() < HEADER_BYTES + super::token::TOKEN_BYTES {
        return Err(whole(Problem::TooShort, kind_hint));
    }
    if header.version == 0 || header.version > 4 {
        return Err(whole(Problem::BadVersion(header.version), kind_hint));
    }
    if header.version > options.max_version {
        return Err(whole(
            Problem::VersionNotInProfile(header.version),
            kind_hint,
        ));
    }
    if header.tag != TYPE_TAG {
        return Err(whole(Problem::BadTag(header.tag), kind_hint));
    }
    let kind = match (header.shader_kind(), options.kind) {
        (Some(k), None) => k,
        (Some(k), Some(want)) if k == want => k,
        _ => return Err(whole(Problem::BadKind(header.kind), kind_hint)),
    };
    if code.tokens.len() > max_tokens(header.version) {
        return Err(whole(Problem::TooManyTokens(code.tokens.len()), Some(kind)));
    }
    let mut checker = check::Checker::new(kind, header.version);
    let mut instructions = Vec::with_capacity(code.tokens.len());
    for (i, token) in code.tokens.iter().enumerate() {
        let instr = checker.token(token).map_err(|problem| ValidationError {
            problem,
            kind: Some(kind),
            token: Some(i + 1),
        })?;
        instructions.push(instr);
    }
    let interface = checker
        .finish()
        .map_err(|problem| whole(problem, Some(kind)))?;
    Ok(Program {
        kind,
        version: header.version,
        instructions,
        interface,
    })
}

/// Validates a vertex and a fragment program as one `Program3D` (each alone, then their
/// linkage).
pub fn validate_pair(
    vertex: &[u8],
    fragment: &[u8],
    max_version: u32,
) -> Result<(Program, Program), ValidationError> {
    let v = validate(
        vertex,
        &Options {
            kind: Some(ShaderKind::Vertex),
            max_version,
        },
    )?;
    let f = validate(
        fragment,
        &Options {
            kind: Some(ShaderKind::Fragment),
            max_version,
        },
    )?;
    link(&v, &f)?;
    Ok((v, f))
}

/// The linkage rules of a validated vertex and fragment program (#3757, #3632).
pub fn link(vertex: &Program, fragment: &Program) -> Result<(), ValidationError> {
    let err = |problem| ValidationError {
        problem,
        kind: None,
        token: None,
    };
    if vertex.version != fragment.version {
        return Err(err(Problem::VersionMismatch));
    }
    for v in 0..16u16 {
        let read = fragment.interface.varyings_read & (1 << v) != 0;
        if read && vertex.interface.varyings_written[usize::from(v)] == WriteMask(0) {
            return Err(err(Problem::VaryingNotWritten(v)));
        }
    }
    Ok(())
}

/// Number of registers of `file` in a program of `kind` and `version` (re-exported for the
/// checker's messages and for callers sizing their inputs).
pub fn register_count(file: RegType, kind: ShaderKind, version: u32) -> u32 {
    file.count(kind, version)
}
