//! Validation errors: one variant per rejection, each with Flash Player's error number and the
//! wording of its message table, so a rejected program reads as Flash
//! reported it: `Error #3646: AGAL validation failed: Can not read from output register for
//! source operand 1 at token 1 of fragment program.`

use std::fmt;

use crate::agal::header::ShaderKind;
use crate::agal::opcode::Opcode;
use crate::agal::reg::RegType;

/// Which operand of a token a message is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// The destination.
    Dest,
    /// Source 1.
    Src1,
    /// Source 2 (or the sampler of `tex`/`tld`).
    Src2,
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operand::Dest => "destination operand",
            Operand::Src1 => "source operand 1",
            Operand::Src2 => "source operand 2",
        })
    }
}

/// What is wrong. The Flash error number is [`Problem::number`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Problem {
    /// #3615 for an empty byte string (Flash names no program kind then).
    Empty,
    /// #3612: fewer than 7 bytes, or byte 0 is not `0xA0`.
    NotLittleEndian,
    /// #3615: no token after the header.
    TooShort,
    /// #3617: version not in 1..=4.
    BadVersion(u32),
    /// #3725: a version the profile does not allow (above the caller's maximum).
    VersionNotInProfile(u32),
    /// #3618: byte 5 is not `0xA1`.
    BadTag(u8),
    /// #3619: byte 6 is neither 0 nor 1, or not the kind the caller expects.
    BadKind(u8),
    /// #3629: more tokens than the version allows.
    TooManyTokens(usize),
    /// #3620: opcode value out of range.
    OpcodeOutOfRange(u32),
    /// #3621: an opcode value this implementation does not run (0x22–0x25, `ted`).
    OpcodeNotImplemented(u32),
    /// #3622.
    FragmentOnly(Opcode),
    /// #3803.
    VertexOnly(Opcode),
    /// #3726.
    NeedsVersion2(Opcode),
    /// #3805: `tld` below version 4.
    NeedsVersion4,
    /// #3623: `els` or `eif` with no open block.
    NestingUnderflow,
    /// #3624.
    NestingOverflow,
    /// #3625.
    BothConstants,
    /// #3626.
    BothIndirect(Opcode),
    /// #3627: destination field not zero for an opcode without destination.
    DestNotZero(Opcode),
    /// #3628: `nrm`, `crs`, `m33`, `m34` writing `w`.
    MustMaskW(Opcode),
    /// #3636: an operand field the opcode does not use is not zero.
    UnusedNotZero(Opcode, Operand),
    /// #3637.
    SamplerInVertex(Operand),
    /// #3638.
    SamplerNotTexOperand(Operand),
    /// #3639.
    IndirectInFragment(Operand),
    /// #3640.
    IndirectNotConstant(Operand),
    /// #3642.
    IndirectIndexType(Operand),
    /// #3643.
    DirectIndexFields(Operand),
    /// #3644.
    VaryingReadInVertex(Operand),
    /// #3645.
    AttributeReadInFragment(Operand),
    /// #3646.
    ReadOutput(Operand),
    /// #3647.
    TempNotWritten(Operand),
    /// #3648.
    TempComponentNotWritten(Operand),
    /// #3649.
    WriteSampler(Operand),
    /// #3650.
    WriteVaryingInFragment(Operand),
    /// #3651.
    WriteAttribute(Operand),
    /// #3652.
    WriteConstant(Operand),
    /// #3653.
    ZeroMask(Operand),
    /// #3654.
    ReservedBits(Operand),
    /// #3655.
    UnknownRegType(Operand),
    /// #3656–#3661 and #3749 by register type.
    IndexOutOfBounds(Operand, RegType),
    /// #3662.
    CubeMustClamp(Operand),
    /// #3664.
    UnknownDim(Operand, u8),
    /// #3665.
    UnknownFilter(Operand, u8),
    /// #3666.
    UnknownMip(Operand, u8),
    /// #3667.
    UnknownWrap(Operand, u8),
    /// #3668.
    UnknownSpecial(Operand, u8),
    /// #3689: the matrix operand of `m33`/`m34`/`m44` is swizzled.
    SwizzledMatrix(Operand),
    /// #3693.
    NotASampler(Operand),
    /// #3696.
    SamplerMismatch,
    /// #3701.
    ColorMask,
    /// #3703.
    NotScalar(Operand),
    /// #3739.
    OpenBlock,
    /// #3741.
    ComputedTexCoord,
    /// #3742.
    DerivativeInBlock,
    /// #3744.
    ColorWrittenTwice,
    /// #3748.
    EmptyBranch,
    /// #3750.
    DepthInVertex,
    /// #3751.
    OutputInBlock,
    /// #3752.
    BrokenElse,
    /// #3756.
    DepthMask,
    /// #3758.
    ConstantCondition,
    /// #3786.
    WriteInstanceId(Operand),
    /// #3788.
    InstanceIdInFragment,
    /// #3789.
    InstanceIdVersion,
    /// #3804.
    VertexAnisotropic(Operand),
    /// #3634: `oc` (color output 0) never written.
    FragmentOutputPartial,
    /// #3635: `op` not written in all four components.
    VertexOutputPartial,
    /// #3633: a varying written in only some components.
    VaryingPartial(u16),
    /// #3632: a varying the fragment program reads is not written by the vertex program.
    VaryingNotWritten(u16),
    /// #3775: color outputs written are not `oc0`…`ocN` without gaps.
    NonConsecutiveOutputs,
    /// #3757: vertex and fragment programs of different versions.
    VersionMismatch,
}

impl Problem {
    /// Flash Player's error number.
    pub const fn number(&self) -> u32 {
        match self {
            Problem::Empty | Problem::TooShort => 3615,
            Problem::NotLittleEndian => 3612,
            Problem::BadVersion(_) => 3617,
            Problem::VersionNotInProfile(_) => 3725,
            Problem::BadTag(_) => 3618,
            Problem::BadKind(_) => 3619,
            Problem::TooManyTokens(_) => 3629,
            Problem::OpcodeOutOfRange(_) => 3620,
            Problem::OpcodeNotImplemented(_) => 3621,
            Problem::FragmentOnly(_) => 3622,
            Problem::VertexOnly(_) => 3803,
            Problem::NeedsVersion2(_) => 3726,
            Problem::NeedsVersion4 => 3805,
            Problem::NestingUnderflow => 3623,
            Problem::NestingOverflow => 3624,
            Problem::BothConstants => 3625,
            Problem::BothIndirect(_) => 3626,
            Problem::DestNotZero(_) => 3627,
            Problem::MustMaskW(_) => 3628,
            Problem::UnusedNotZero(..) => 3636,
            Problem::SamplerInVertex(_) => 3637,
            Problem::SamplerNotTexOperand(_) => 3638,
            Problem::IndirectInFragment(_) => 3639,
            Problem::IndirectNotConstant(_) => 3640,
            Problem::IndirectIndexType(_) => 3642,
            Problem::DirectIndexFields(_) => 3643,
            Problem::VaryingReadInVertex(_) => 3644,
            Problem::AttributeReadInFragment(_) => 3645,
            Problem::ReadOutput(_) => 3646,
            Problem::TempNotWritten(_) => 3647,
            Problem::TempComponentNotWritten(_) => 3648,
            Problem::WriteSampler(_) => 3649,
            Problem::WriteVaryingInFragment(_) => 3650,
            Problem::WriteAttribute(_) => 3651,
            Problem::WriteConstant(_) => 3652,
            Problem::ZeroMask(_) => 3653,
            Problem::ReservedBits(_) => 3654,
            Problem::UnknownRegType(_) => 3655,
            Problem::IndexOutOfBounds(_, t) => match t {
                RegType::Sampler => 3656,
                RegType::Varying => 3657,
                RegType::Attribute | RegType::InstanceId => 3658,
                RegType::Constant => 3659,
                RegType::Output => 3660,
                RegType::Temporary => 3661,
                RegType::DepthOutput => 3749,
            },
            Problem::CubeMustClamp(_) => 3662,
            Problem::UnknownDim(..) => 3664,
            Problem::UnknownFilter(..) => 3665,
            Problem::UnknownMip(..) => 3666,
            Problem::UnknownWrap(..) => 3667,
            Problem::UnknownSpecial(..) => 3668,
            Problem::SwizzledMatrix(_) => 3689,
            Problem::NotASampler(_) => 3693,
            Problem::SamplerMismatch => 3696,
            Problem::ColorMask => 3701,
            Problem::NotScalar(_) => 3703,
            Problem::OpenBlock => 3739,
            Problem::ComputedTexCoord => 3741,
            Problem::DerivativeInBlock => 3742,
            Problem::ColorWrittenTwice => 3744,
            Problem::EmptyBranch => 3748,
            Problem::DepthInVertex => 3750,
            Problem::OutputInBlock => 3751,
            Problem::BrokenElse => 3752,
            Problem::DepthMask => 3756,
            Problem::ConstantCondition => 3758,
            Problem::WriteInstanceId(_) => 3786,
            Problem::InstanceIdInFragment => 3788,
            Problem::InstanceIdVersion => 3789,
            Problem::VertexAnisotropic(_) => 3804,
            Problem::FragmentOutputPartial => 3634,
            Problem::VertexOutputPartial => 3635,
            Problem::VaryingPartial(_) => 3633,
            Problem::VaryingNotWritten(_) => 3632,
            Problem::NonConsecutiveOutputs => 3775,
            Problem::VersionMismatch => 3757,
        }
    }
}

/// A rejected program: what is wrong, in which program kind and at which token (1-based, as
/// Flash counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValidationError {
    /// What is wrong.
    pub problem: Problem,
    /// The program kind (`None` when it could not be read, as for an empty program).
    pub kind: Option<ShaderKind>,
    /// The token, counted from 1 (`None` for whole-program problems).
    pub token: Option<usize>,
}

impl ValidationError {
    /// Flash Player's error number.
    pub const fn number(&self) -> u32 {
        self.problem.number()
    }
}

impl std::error::Error for ValidationError {}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = self.kind.map_or("", |k| k.name());
        let n = self.token.unwrap_or(0);
        let at = |f: &mut fmt::Formatter<'_>, what: &dyn fmt::Display| {
            write!(f, " for {what} at token {n} of {kind} program.")
        };
        let prefix = "AGAL validation failed: ";
        write!(f, "Error #{}: ", self.number())?;
        match self.problem {
            Problem::Empty | Problem::TooShort => {
                write!(
                    f,
                    "{prefix}Program size below minimum length for {kind} program."
                )
            }
            Problem::NotLittleEndian => write!(f, "Programs must be in little endian format."),
            Problem::BadVersion(v) => write!(
                f,
                "{prefix}Bad AGAL version for {kind} program. Current version is {v}."
            ),
            Problem::VersionNotInProfile(v) => write!(
                f,
                "The requested AGAL version ({v}) is not valid under the Context3D profile. For \
                 example AGAL version 2 requires standard profile."
            ),
            Problem::BadTag(_) => {
                write!(
                    f,
                    "{prefix}Bad AGAL program type identifier for {kind} program."
                )
            }
            Problem::BadKind(_) => write!(
                f,
                "{prefix}Shader type must be either fragment or vertex for {kind} program."
            ),
            Problem::TooManyTokens(count) => {
                write!(f, "{prefix}Too many tokens ({count}) for {kind} program.")
            }
            Problem::OpcodeOutOfRange(v) => write!(
                f,
                "{prefix}Invalid opcode, value out of range: {v} at token {n} of {kind} program."
            ),
            Problem::OpcodeNotImplemented(v) => write!(
                f,
                "{prefix}Invalid opcode, {v} is not implemented in this version at token {n} of \
                 {kind} program."
            ),
            Problem::FragmentOnly(op) => write!(
                f,
                "{prefix}Opcode {} only allowed in fragment programs at token {n} of {kind} \
                 program.",
                op.mnemonic()
            ),
            Problem::VertexOnly(op) => write!(
                f,
                "{prefix}Opcode {} only allowed in vertex programs at token {n} of {kind} program.",
                op.mnemonic()
            ),
            Problem::NeedsVersion2(op) => write!(
                f,
                "{prefix}Opcode {} requires AGAL version to be at least 2, at token {n} of {kind} \
                 program.",
                op.mnemonic()
            ),
            Problem::NeedsVersion4 => write!(
                f,
                "{prefix}Vertex Texture Fetch is supported in Agal version 4 and above."
            ),
            Problem::NestingUnderflow => write!(
                f,
                "{prefix}Block nesting underflow - EIF without opening IF condition. At token {n} \
                 of {kind} program."
            ),
            Problem::NestingOverflow => write!(
                f,
                "{prefix}Block nesting overflow. Too many nested IF blocks. At token {n} of {kind} \
                 program."
            ),
            Problem::BothConstants => write!(
                f,
                "{prefix}Bad AGAL source operands. Both are constants (this must be precomputed) \
                 at token {n} of {kind} program."
            ),
            Problem::BothIndirect(op) => write!(
                f,
                "{prefix}Opcode {}, both operands are indirect reads at token {n} of {kind} \
                 program.",
                op.mnemonic()
            ),
            Problem::DestNotZero(op) => write!(
                f,
                "{prefix}Opcode {} destination operand must be all zero at token {n} of {kind} \
                 program.",
                op.mnemonic()
            ),
            Problem::MustMaskW(op) => write!(
                f,
                "{prefix}The destination operand for the {} instruction must mask w (use .xyz or \
                 less) at token {n} of {kind} program.",
                op.mnemonic()
            ),
            Problem::UnusedNotZero(op, o) => {
                write!(f, "{prefix}Unused operand is not set to zero")?;
                at(f, &format_args!("{o} of {}", op.mnemonic()))
            }
            Problem::SamplerInVertex(o) => {
                write!(
                    f,
                    "{prefix}Sampler registers only allowed in fragment programs"
                )?;
                at(f, &o)
            }
            Problem::SamplerNotTexOperand(o) => {
                write!(
                    f,
                    "{prefix}Sampler register only allowed as second operand in texture \
                     instructions"
                )?;
                at(f, &o)
            }
            Problem::IndirectInFragment(o) => {
                write!(
                    f,
                    "{prefix}Indirect addressing only allowed in vertex programs"
                )?;
                at(f, &o)
            }
            Problem::IndirectNotConstant(o) => {
                write!(
                    f,
                    "{prefix}Indirect addressing only allowed into constant registers"
                )?;
                at(f, &o)
            }
            Problem::IndirectIndexType(o) => {
                write!(
                    f,
                    "{prefix}Indirect source type must be attribute, constant or temporary"
                )?;
                at(f, &o)
            }
            Problem::DirectIndexFields(o) => {
                write!(
                    f,
                    "{prefix}Indirect addressing fields must be zero for direct addressing"
                )?;
                at(f, &o)
            }
            Problem::VaryingReadInVertex(o) => {
                write!(
                    f,
                    "{prefix}Varying registers can only be read in fragment programs"
                )?;
                at(f, &o)
            }
            Problem::AttributeReadInFragment(o) => {
                write!(
                    f,
                    "{prefix}Attribute registers can only be read in vertex programs"
                )?;
                at(f, &o)
            }
            Problem::ReadOutput(o) => {
                write!(f, "{prefix}Can not read from output register")?;
                at(f, &o)
            }
            Problem::TempNotWritten(o) => {
                write!(
                    f,
                    "{prefix}Temporary register read without being written to"
                )?;
                at(f, &o)
            }
            Problem::TempComponentNotWritten(o) => {
                write!(
                    f,
                    "{prefix}Temporary register component read without being written to"
                )?;
                at(f, &o)
            }
            Problem::WriteSampler(o) => {
                write!(f, "{prefix}Sampler registers can not be written to")?;
                at(f, &o)
            }
            Problem::WriteVaryingInFragment(o) => {
                write!(
                    f,
                    "{prefix}Varying registers can only be written in vertex programs"
                )?;
                at(f, &o)
            }
            Problem::WriteAttribute(o) => {
                write!(f, "{prefix}Attribute registers can not be written to")?;
                at(f, &o)
            }
            Problem::WriteConstant(o) => {
                write!(f, "{prefix}Constant registers can not be written to")?;
                at(f, &o)
            }
            Problem::ZeroMask(o) => {
                write!(f, "{prefix}Destination writemask is zero")?;
                at(f, &o)
            }
            Problem::ReservedBits(o) => {
                write!(f, "{prefix}Reserve bits should be zero")?;
                at(f, &o)
            }
            Problem::UnknownRegType(o) => {
                write!(f, "{prefix}Unknown register type")?;
                at(f, &o)
            }
            Problem::IndexOutOfBounds(o, t) => {
                let what = match t {
                    RegType::Sampler => "Sampler",
                    RegType::Varying => "Varying",
                    RegType::Attribute | RegType::InstanceId => "Attribute",
                    RegType::Constant => "Constant",
                    RegType::Output => "Output",
                    RegType::Temporary => "Temporary",
                    RegType::DepthOutput => "Depth output",
                };
                write!(f, "{prefix}{what} register index out of bounds")?;
                at(f, &o)
            }
            Problem::CubeMustClamp(o) => {
                write!(
                    f,
                    "{prefix}Cube map samplers must set wrapping to clamp mode"
                )?;
                at(f, &o)
            }
            Problem::UnknownDim(o, v) => write!(
                f,
                "{prefix}Unknown sampler dimension {v} for {o} at token {n} of {kind} program."
            ),
            Problem::UnknownFilter(o, v) => write!(
                f,
                "{prefix}Unknown filter mode in sampler: {v} for {o} at token {n} of {kind} \
                 program."
            ),
            Problem::UnknownMip(o, v) => write!(
                f,
                "{prefix}Unknown mipmap mode in sampler: {v} for {o} at token {n} of {kind} \
                 program."
            ),
            Problem::UnknownWrap(o, v) => write!(
                f,
                "{prefix}Unknown wrapping mode in sampler: {v} for {o} at token {n} of {kind} \
                 program."
            ),
            Problem::UnknownSpecial(o, v) => write!(
                f,
                "{prefix}Unknown special flag used in sampler: {v} for {o} at token {n} of {kind} \
                 program."
            ),
            Problem::SwizzledMatrix(o) => {
                write!(f, "You can not swizzle second operand")?;
                at(f, &o)
            }
            Problem::NotASampler(o) => {
                write!(
                    f,
                    "{prefix}Sampler register must be used for second operand in texture \
                     instructions"
                )?;
                at(f, &o)
            }
            Problem::SamplerMismatch => write!(
                f,
                "{prefix}Second use of sampler register needs to specify the exact same \
                 properties. At token {n} of {kind} program."
            ),
            Problem::ColorMask => write!(
                f,
                "The output color register can not use a write mask. All components must be \
                 written. At token {n} of {kind} program."
            ),
            Problem::NotScalar(o) => {
                write!(
                    f,
                    "{prefix}Source swizzle must be scalar (one of: xxxx, yyyy, zzzz, wwww)"
                )?;
                at(f, &o)
            }
            Problem::OpenBlock => {
                write!(
                    f,
                    "{prefix}Open conditional block at end of {kind} program."
                )
            }
            Problem::ComputedTexCoord => write!(
                f,
                "{prefix}TEX instructions in an if block can not use computed texture \
                 coordinates. Either use interpolated texture coordinates or use the TED \
                 instruction instead. At token {n} of {kind} program."
            ),
            Problem::DerivativeInBlock => write!(
                f,
                "{prefix}DDX and DDY opcodes are not allowed inside conditional blocks. At token \
                 {n} of {kind} program."
            ),
            Problem::ColorWrittenTwice => write!(
                f,
                "{prefix}Color output written to multiple times. At token {n} of {kind} program."
            ),
            Problem::EmptyBranch => write!(
                f,
                "{prefix}Empty conditional branch in AGAL of {kind} program (token {n})."
            ),
            Problem::DepthInVertex => write!(
                f,
                "{prefix}Depth output register is only available in fragment programs (token \
                 {n})."
            ),
            Problem::OutputInBlock => write!(
                f,
                "{prefix}Output registers can not be written inside conditionals (token {n} of \
                 {kind} program)."
            ),
            Problem::BrokenElse => write!(
                f,
                "{prefix}Broken else chain (token {n} of {kind} program)."
            ),
            Problem::DepthMask => write!(
                f,
                "{prefix}Depth output must set only x as a write mask. At token {n} of {kind} \
                 program."
            ),
            Problem::ConstantCondition => write!(
                f,
                "{prefix}Conditional source are exactly the same, condition is constant. At token \
                 {n} of {kind} program."
            ),
            Problem::WriteInstanceId(o) => {
                write!(f, "{prefix}Instance id register can not be written to")?;
                at(f, &o)
            }
            Problem::InstanceIdInFragment => write!(
                f,
                "Instance id register can only be read in the vertex shader (token {n} of {kind} \
                 program)."
            ),
            Problem::InstanceIdVersion => write!(
                f,
                "{prefix}Instance id register is supported in Agal version 3 and above (token {n} \
                 of {kind} program)."
            ),
            Problem::VertexAnisotropic(o) => {
                write!(
                    f,
                    "{prefix}Anistropic Filter is not allowed in Vertex Texture Sampler"
                )?;
                at(f, &o)
            }
            Problem::FragmentOutputPartial => write!(
                f,
                "AGAL linkage: Fragment output needs to write to all components."
            ),
            Problem::VertexOutputPartial => {
                write!(
                    f,
                    "AGAL linkage: Vertex output needs to write to all components."
                )
            }
            Problem::VaryingPartial(v) => write!(
                f,
                "AGAL linkage: Varying {v} is only partially written to. Must write all four \
                 components."
            ),
            Problem::VaryingNotWritten(v) => write!(
                f,
                "AGAL linkage: Varying {v} is read in the fragment shader but not written to by \
                 the vertex shader."
            ),
            Problem::NonConsecutiveOutputs => {
                write!(f, "{prefix}Non-consecutive slots are not allowed.")
            }
            Problem::VersionMismatch => write!(
                f,
                "{prefix}Vertex and fragment program need to have the same version."
            ),
        }
    }
}
