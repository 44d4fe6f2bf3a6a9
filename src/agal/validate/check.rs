//! The per-token checks and the state they carry across tokens (temporaries written, outputs
//! written, samplers seen, open blocks), in the order the module docs of [`super`] list.

use super::error::{Operand, Problem};
use super::MAX_NESTING;
use crate::agal::header::ShaderKind;
use crate::agal::opcode::{Flow, InBlock, Lanes, Opcode, Reads, Shape, Stage};
use crate::agal::program::{Addr, Dst, Instruction, Interface, Reg, Sampling, Src};
use crate::agal::reg::{RegType, Swizzle, WriteMask};
use crate::agal::sampling::{Dim, Filter, FlagError, SamplerState};
use crate::agal::token::{Dest, SamplerField, Source, Src2, Token};

/// One open conditional block.
struct Block {
    /// `els` seen.
    in_else: bool,
    /// Instructions in the current branch so far.
    branch_len: usize,
}

/// State across tokens.
pub(super) struct Checker {
    kind: ShaderKind,
    version: u32,
    /// Components written so far, per temporary.
    temps: Vec<WriteMask>,
    /// Components of `op` written.
    position: WriteMask,
    blocks: Vec<Block>,
    interface: Interface,
}

type Checked<T> = Result<T, Problem>;

impl Checker {
    pub(super) fn new(kind: ShaderKind, version: u32) -> Checker {
        Checker {
            kind,
            version,
            temps: vec![WriteMask(0); RegType::Temporary.count(kind, version) as usize],
            position: WriteMask(0),
            blocks: Vec::new(),
            interface: Interface::default(),
        }
    }

    fn count(&self, file: RegType) -> u32 {
        file.count(self.kind, self.version)
    }

    fn vertex(&self) -> bool {
        self.kind == ShaderKind::Vertex
    }

    /// Checks one token and returns its instruction.
    pub(super) fn token(&mut self, token: &Token) -> Checked<Instruction> {
        let op = self.opcode(token)?;
        let shape = op.shape();
        // 2. Unused fields.
        if !shape.has_dest() && token.dest.encode() != 0 {
            return Err(Problem::DestNotZero(op));
        }
        if !shape.has_src1() && token.src1.encode() != 0 {
            return Err(Problem::UnusedNotZero(op, Operand::Src1));
        }
        let src2_raw = match token.src2 {
            Src2::Source(s) => s.encode(),
            Src2::Sampler(s) => s.encode(),
        };
        if !shape.has_src2() && !shape.has_sampler() && src2_raw != 0 {
            return Err(Problem::UnusedNotZero(op, Operand::Src2));
        }
        let in_block = !self.blocks.is_empty();
        // 3. Destination.
        let dest = if shape.has_dest() {
            Some(self.dest(&token.dest, in_block)?)
        } else {
            None
        };
        // 4.–5. Sources and sampler.
        let sampler = match token.src2 {
            Src2::Sampler(f) if shape.has_sampler() => Some(self.sampler(op, &f)?),
            Src2::Sampler(_) | Src2::Source(_) => None,
        };
        let src1 = if shape.has_src1() {
            let lanes = lanes_read(op, dest, sampler);
            Some(self.source(&token.src1, Operand::Src1, lanes, 1)?)
        } else {
            None
        };
        let src2 = match token.src2 {
            Src2::Source(s) if shape.has_src2() => {
                let lanes = lanes_read(op, dest, sampler);
                let rows = op.matrix().map_or(1, |(rows, _)| rows);
                Some(self.source(&s, Operand::Src2, lanes, rows)?)
            }
            Src2::Source(_) | Src2::Sampler(_) => None,
        };
        // 6. Source pairs.
        if let (Some(a), Some(b)) = (src1, src2) {
            let indirect = |s: Src| matches!(s.addr, Addr::Indirect { .. });
            if indirect(a) && indirect(b) {
                return Err(Problem::BothIndirect(op));
            }
            let constant = |s: Src| match s.addr {
                Addr::Direct(r) => r.file == RegType::Constant,
                Addr::Indirect { .. } => true,
            };
            if constant(a) && constant(b) {
                return Err(Problem::BothConstants);
            }
        }
        // 7. Opcode rules.
        if let (Lanes::Xyz, Some(d)) = (op.lanes(), dest) {
            if d.mask.has(3) {
                return Err(Problem::MustMaskW(op));
            }
        }
        if op.matrix().is_some()
            && token.src2_source().map(|s| s.swizzle) != Some(Swizzle::IDENTITY)
        {
            return Err(Problem::SwizzledMatrix(Operand::Src2));
        }
        self.op_rules(op, token, src1, in_block)?;
        // 8. Blocks (after the token's own checks, so the counts include it).
        self.blocks_step(op)?;
        // Bookkeeping of writes (after the reads: sources are read before the write).
        if let Some(d) = dest {
            self.record_write(d);
        }
        if let Some(s) = sampler {
            if !self.interface.samplers.iter().any(|u| u.unit == s.unit) {
                self.interface.samplers.push(s);
                self.interface.samplers.sort_by_key(|u| u.unit);
            }
        }
        if op == Opcode::Kil {
            self.interface.kills = true;
        }
        Ok(Instruction {
            op,
            dest,
            src1,
            src2,
            sampler,
        })
    }

    /// Step 1: the opcode field.
    fn opcode(&self, token: &Token) -> Checked<Opcode> {
        let op = match token.opcode() {
            Some(Opcode::Ted) => return Err(Problem::OpcodeNotImplemented(Opcode::Ted.value())),
            Some(op) => op,
            None => {
                let v = token.op.value();
                return Err(if (0x22..=0x25).contains(&v) {
                    Problem::OpcodeNotImplemented(v)
                } else {
                    Problem::OpcodeOutOfRange(v)
                });
            }
        };
        match (op.stage(), self.kind) {
            (Stage::Fragment, ShaderKind::Vertex) => return Err(Problem::FragmentOnly(op)),
            (Stage::Vertex, ShaderKind::Fragment) => return Err(Problem::VertexOnly(op)),
            (Stage::Both | Stage::Fragment, ShaderKind::Fragment)
            | (Stage::Both | Stage::Vertex, ShaderKind::Vertex) => {}
        }
        if op.min_version() == 2 && self.version < 2 {
            return Err(Problem::NeedsVersion2(op));
        }
        if op.min_version() == 4 && self.version < 4 {
            return Err(Problem::NeedsVersion4);
        }
        Ok(op)
    }

    /// Step 3: the destination.
    fn dest(&mut self, d: &Dest, in_block: bool) -> Checked<Dst> {
        let o = Operand::Dest;
        if d.reserved != 0 {
            return Err(Problem::ReservedBits(o));
        }
        let file = RegType::from_code(d.reg_type).ok_or(Problem::UnknownRegType(o))?;
        if d.mask.0 == 0 {
            return Err(Problem::ZeroMask(o));
        }
        match file {
            RegType::Attribute => return Err(Problem::WriteAttribute(o)),
            RegType::Constant => return Err(Problem::WriteConstant(o)),
            RegType::Sampler => return Err(Problem::WriteSampler(o)),
            RegType::InstanceId => return Err(Problem::WriteInstanceId(o)),
            RegType::Varying if !self.vertex() => return Err(Problem::WriteVaryingInFragment(o)),
            RegType::DepthOutput if self.vertex() => return Err(Problem::DepthInVertex),
            RegType::Varying | RegType::DepthOutput | RegType::Temporary | RegType::Output => {}
        }
        if u32::from(d.reg) >= self.count(file) {
            return Err(Problem::IndexOutOfBounds(o, file));
        }
        match file {
            RegType::DepthOutput => {
                if d.mask != WriteMask(1) {
                    return Err(Problem::DepthMask);
                }
                if in_block {
                    return Err(Problem::OutputInBlock);
                }
            }
            RegType::Output => {
                if in_block {
                    return Err(Problem::OutputInBlock);
                }
                if !self.vertex() {
                    if d.mask != WriteMask::XYZW {
                        return Err(Problem::ColorMask);
                    }
                    if self.interface.colors_written & (1 << d.reg) != 0 {
                        return Err(Problem::ColorWrittenTwice);
                    }
                }
            }
            RegType::Attribute
            | RegType::Constant
            | RegType::Temporary
            | RegType::Varying
            | RegType::Sampler
            | RegType::InstanceId => {}
        }
        Ok(Dst {
            reg: Reg { file, index: d.reg },
            mask: d.mask,
        })
    }

    /// Step 4: a source; `lanes` are the result lanes it feeds, `rows` the registers it spans
    /// (3 or 4 for a matrix operand).
    fn source(&mut self, s: &Source, o: Operand, lanes: WriteMask, rows: u16) -> Checked<Src> {
        if s.reserved != 0 {
            return Err(Problem::ReservedBits(o));
        }
        let file = RegType::from_code(s.reg_type).ok_or(Problem::UnknownRegType(o))?;
        let addr = if s.indirect {
            if !self.vertex() {
                return Err(Problem::IndirectInFragment(o));
            }
            if file != RegType::Constant {
                return Err(Problem::IndirectNotConstant(o));
            }
            let index_file =
                RegType::from_code(s.index_type).ok_or(Problem::IndirectIndexType(o))?;
            match index_file {
                RegType::Attribute | RegType::Constant | RegType::Temporary => {}
                RegType::Output
                | RegType::Varying
                | RegType::Sampler
                | RegType::DepthOutput
                | RegType::InstanceId => return Err(Problem::IndirectIndexType(o)),
            }
            if u32::from(s.reg) >= self.count(index_file) {
                return Err(Problem::IndexOutOfBounds(o, index_file));
            }
            let index = Reg {
                file: index_file,
                index: s.reg,
            };
            self.record_read(index, WriteMask(1 << s.index_comp), o)?;
            Addr::Indirect {
                index,
                comp: s.index_comp,
                offset: s.offset,
            }
        } else {
            if s.offset != 0 || s.index_type != 0 || s.index_comp != 0 {
                return Err(Problem::DirectIndexFields(o));
            }
            match file {
                RegType::Sampler if self.vertex() => return Err(Problem::SamplerInVertex(o)),
                RegType::Sampler => return Err(Problem::SamplerNotTexOperand(o)),
                RegType::Varying if self.vertex() => return Err(Problem::VaryingReadInVertex(o)),
                RegType::Attribute if !self.vertex() => {
                    return Err(Problem::AttributeReadInFragment(o))
                }
                RegType::InstanceId if !self.vertex() => return Err(Problem::InstanceIdInFragment),
                RegType::InstanceId if self.version < 3 => return Err(Problem::InstanceIdVersion),
                RegType::DepthOutput if self.vertex() => return Err(Problem::DepthInVertex),
                RegType::Attribute
                | RegType::Constant
                | RegType::Temporary
                | RegType::Output
                | RegType::Varying
                | RegType::InstanceId
                | RegType::DepthOutput => {}
            }
            let last = u32::from(s.reg) + u32::from(rows) - 1;
            if last >= self.count(file) {
                return Err(Problem::IndexOutOfBounds(o, file));
            }
            if matches!(file, RegType::Output | RegType::DepthOutput) {
                return Err(Problem::ReadOutput(o));
            }
            let read = components(s.swizzle, lanes);
            for row in 0..rows {
                let reg = Reg {
                    file,
                    index: s.reg + row,
                };
                self.record_read(reg, read, o)?;
            }
            Addr::Direct(Reg { file, index: s.reg })
        };
        Ok(Src {
            addr,
            swizzle: s.swizzle,
        })
    }

    /// Notes a read of `components` of `reg`: temporaries must have been written; inputs are
    /// recorded in the interface.
    fn record_read(&mut self, reg: Reg, components: WriteMask, o: Operand) -> Checked<()> {
        match reg.file {
            RegType::Temporary => {
                let written = self.temps[usize::from(reg.index)];
                if written.0 == 0 {
                    return Err(Problem::TempNotWritten(o));
                }
                if components.0 & !written.0 != 0 {
                    return Err(Problem::TempComponentNotWritten(o));
                }
            }
            RegType::Varying => self.interface.varyings_read |= 1 << reg.index,
            RegType::Attribute => self.interface.attributes_read |= 1 << reg.index,
            RegType::InstanceId => self.interface.reads_instance_id = true,
            RegType::Constant | RegType::Output | RegType::Sampler | RegType::DepthOutput => {}
        }
        Ok(())
    }

    fn record_write(&mut self, d: Dst) {
        let i = usize::from(d.reg.index);
        match d.reg.file {
            RegType::Temporary => self.temps[i].0 |= d.mask.0,
            RegType::Output if self.vertex() => self.position.0 |= d.mask.0,
            RegType::Output => self.interface.colors_written |= 1 << i,
            RegType::Varying => self.interface.varyings_written[i].0 |= d.mask.0,
            RegType::DepthOutput => self.interface.depth_written = true,
            RegType::Attribute | RegType::Constant | RegType::Sampler | RegType::InstanceId => {}
        }
    }

    /// Step 5: the sampler operand.
    fn sampler(&mut self, op: Opcode, f: &SamplerField) -> Checked<Sampling> {
        let o = Operand::Src2;
        if RegType::from_code(f.reg_type) != Some(RegType::Sampler) {
            return Err(Problem::NotASampler(o));
        }
        if f.reserved != 0 {
            return Err(Problem::ReservedBits(o));
        }
        let state = SamplerState::from_field(f).map_err(|e| match e {
            FlagError::Dim(v) => Problem::UnknownDim(o, v),
            FlagError::Filter(v) => Problem::UnknownFilter(o, v),
            FlagError::Mip(v) => Problem::UnknownMip(o, v),
            FlagError::Wrap(v) => Problem::UnknownWrap(o, v),
            FlagError::Special(v) => Problem::UnknownSpecial(o, v),
            FlagError::Format(_) => Problem::ReservedBits(o),
        })?;
        if u32::from(f.reg) >= self.count(RegType::Sampler) {
            return Err(Problem::IndexOutOfBounds(o, RegType::Sampler));
        }
        if state.dim == Dim::Cube && f.wrap != 0 {
            return Err(Problem::CubeMustClamp(o));
        }
        if op == Opcode::Tld && matches!(state.filter, Filter::Anisotropic(_)) {
            return Err(Problem::VertexAnisotropic(o));
        }
        if let Some(first) = self.interface.samplers.iter().find(|u| u.unit == f.reg) {
            if first.state != state {
                return Err(Problem::SamplerMismatch);
            }
        }
        Ok(Sampling { unit: f.reg, state })
    }

    /// Step 7: rules of particular opcodes.
    fn op_rules(
        &self,
        op: Opcode,
        token: &Token,
        src1: Option<Src>,
        in_block: bool,
    ) -> Checked<()> {
        match op.shape() {
            Shape::SrcSrc => {
                let s2 = token.src2_source().unwrap_or_default();
                if !token.src1.swizzle.is_replicate() {
                    return Err(Problem::NotScalar(Operand::Src1));
                }
                if !s2.swizzle.is_replicate() {
                    return Err(Problem::NotScalar(Operand::Src2));
                }
                if token.src1 == s2 {
                    return Err(Problem::ConstantCondition);
                }
            }
            Shape::Src => {
                if !token.src1.swizzle.is_replicate() {
                    return Err(Problem::NotScalar(Operand::Src1));
                }
            }
            Shape::DestSrc | Shape::DestSrcSrc | Shape::DestSrcSampler | Shape::None => {}
        }
        if in_block {
            match op.in_block() {
                InBlock::Refused => return Err(Problem::DerivativeInBlock),
                InBlock::VaryingCoords => {
                    let varying = matches!(
                        src1.map(|s| s.addr),
                        Some(Addr::Direct(Reg {
                            file: RegType::Varying,
                            ..
                        }))
                    );
                    if !varying {
                        return Err(Problem::ComputedTexCoord);
                    }
                }
                InBlock::Free => {}
            }
        }
        Ok(())
    }

    /// Step 8: conditional blocks.
    fn blocks_step(&mut self, op: Opcode) -> Checked<()> {
        match op.flow() {
            Flow::If(_) => {
                self.count_in_branch();
                if self.blocks.len() >= MAX_NESTING {
                    return Err(Problem::NestingOverflow);
                }
                self.blocks.push(Block {
                    in_else: false,
                    branch_len: 0,
                });
            }
            Flow::Else => {
                let block = self.blocks.last_mut().ok_or(Problem::NestingUnderflow)?;
                if block.in_else {
                    return Err(Problem::BrokenElse);
                }
                if block.branch_len == 0 {
                    return Err(Problem::EmptyBranch);
                }
                block.in_else = true;
                block.branch_len = 0;
            }
            Flow::EndIf => {
                let block = self.blocks.pop().ok_or(Problem::NestingUnderflow)?;
                if block.branch_len == 0 {
                    return Err(Problem::EmptyBranch);
                }
                self.count_in_branch();
            }
            Flow::Straight => self.count_in_branch(),
        }
        Ok(())
    }

    fn count_in_branch(&mut self) {
        if let Some(b) = self.blocks.last_mut() {
            b.branch_len += 1;
        }
    }

    /// End of program: open blocks and output completeness.
    pub(super) fn finish(self) -> Checked<Interface> {
        if !self.blocks.is_empty() {
            return Err(Problem::OpenBlock);
        }
        match self.kind {
            ShaderKind::Vertex => {
                if self.position != WriteMask::XYZW {
                    return Err(Problem::VertexOutputPartial);
                }
                for (v, m) in self.interface.varyings_written.iter().enumerate() {
                    if m.0 != 0 && *m != WriteMask::XYZW {
                        return Err(Problem::VaryingPartial(v as u16));
                    }
                }
            }
            ShaderKind::Fragment => {
                let colors = self.interface.colors_written;
                if colors & 1 == 0 {
                    return Err(Problem::FragmentOutputPartial);
                }
                if colors & (colors + 1) != 0 {
                    return Err(Problem::NonConsecutiveOutputs);
                }
            }
        }
        Ok(self.interface)
    }
}

/// The components a swizzle reads for the result lanes in `lanes`.
fn components(swizzle: Swizzle, lanes: WriteMask) -> WriteMask {
    let mut m = 0u8;
    for lane in 0..4 {
        if lanes.has(lane) {
            m |= 1 << swizzle.lane(lane);
        }
    }
    WriteMask(m)
}

/// The result lanes a source operand feeds (before its swizzle).
fn lanes_read(op: Opcode, dest: Option<Dst>, sampler: Option<Sampling>) -> WriteMask {
    const X: WriteMask = WriteMask(0b0001);
    const XYZ: WriteMask = WriteMask(0b0111);
    const XYZW: WriteMask = WriteMask(0b1111);
    let masked = dest.map_or(XYZW, |d| d.mask);
    let coords = || match sampler.map(|s| s.state.dim) {
        Some(Dim::Cube) => XYZ,
        Some(Dim::TwoD) | None => WriteMask(0b0011),
    };
    match op.reads() {
        Reads::Dest => masked,
        Reads::X => X,
        Reads::Xyz => XYZ,
        Reads::Xyzw => XYZW,
        Reads::Coords => coords(),
        Reads::CoordsLod => WriteMask(coords().0 | 0b1000),
        Reads::Nothing => WriteMask(0),
    }
}
