//! The machine: register files per lane, the execution mask stack of `ife`…`eif`, and one
//! exhaustive match over the opcodes.

use super::math;
use super::texture::{Lod, Textures};
use crate::agal::opcode::Opcode;
use crate::agal::program::{Addr, Dst, Instruction, Program, Src};
use crate::agal::reg::RegType;
use crate::agal::sampling::Dim;

/// A vec4 per lane.
pub(super) type Lanes = [[f32; 4]; 4];

/// Registers per file (index by type code), sized for AGAL 3/4.
const FILE_SIZES: [usize; 8] = [16, 0, 26, 4, 10, 0, 1, 1];

/// One program run over one vertex (1 lane) or one 2×2 quad of fragments (4 lanes).
pub(super) struct Machine<'a> {
    program: &'a Program,
    constants: &'a [[f32; 4]],
    textures: &'a dyn Textures,
    lanes: usize,
    /// `files[type][register][lane]`; constants are read from `constants`.
    pub(super) files: [Vec<Lanes>; 8],
    /// Fragments discarded by `kil`.
    pub(super) killed: [bool; 4],
    /// Lanes that execute: the top of the mask stack.
    exec: u8,
    /// Per open block: the mask before it and its condition.
    stack: Vec<(u8, u8)>,
}

impl<'a> Machine<'a> {
    pub(super) fn new(
        program: &'a Program,
        constants: &'a [[f32; 4]],
        textures: &'a dyn Textures,
        lanes: usize,
    ) -> Machine<'a> {
        Machine {
            program,
            constants,
            textures,
            lanes,
            files: FILE_SIZES.map(|n| vec![[[0.0; 4]; 4]; n]),
            killed: [false; 4],
            exec: (1u8 << lanes) - 1,
            stack: Vec::new(),
        }
    }

    /// Back to the start state (registers zero, no lane killed, every lane executing), keeping
    /// the allocations.
    pub(super) fn reset(&mut self) {
        for file in &mut self.files {
            file.fill([[0.0; 4]; 4]);
        }
        self.killed = [false; 4];
        self.exec = (1u8 << self.lanes) - 1;
        self.stack.clear();
    }

    /// Runs every instruction in order.
    pub(super) fn run(&mut self) {
        for i in &self.program.instructions {
            self.step(i);
        }
    }

    /// The constant register `index` (0 beyond what the caller gave).
    fn constant(&self, index: i64) -> [f32; 4] {
        if index < 0 || index >= i64::from(self.program.constant_count()) {
            return [0.0; 4];
        }
        self.constants
            .get(index as usize)
            .copied()
            .unwrap_or([0.0; 4])
    }

    /// Register `index + row` of a source, unswizzled, for every lane.
    fn fetch(&self, s: &Src, row: u16) -> Lanes {
        match s.addr {
            Addr::Direct(r) => {
                let n = usize::from(r.index + row);
                match r.file {
                    RegType::Constant => [self.constant(n as i64); 4],
                    RegType::Attribute
                    | RegType::Temporary
                    | RegType::Output
                    | RegType::Varying
                    | RegType::Sampler
                    | RegType::DepthOutput
                    | RegType::InstanceId => self.files[usize::from(r.file.code())][n],
                }
            }
            Addr::Indirect {
                index,
                comp,
                offset,
            } => {
                let idx = self.fetch(
                    &Src {
                        addr: Addr::Direct(index),
                        swizzle: crate::agal::reg::Swizzle::IDENTITY,
                    },
                    0,
                );
                let mut out = [[0.0; 4]; 4];
                for (lane, o) in out.iter_mut().enumerate() {
                    let e = math::indirect_index(idx[lane][usize::from(comp)], offset, row);
                    *o = self.constant(e);
                }
                out
            }
        }
    }

    /// A source read through its swizzle, for every lane.
    fn read(&self, s: &Src) -> Lanes {
        let raw = self.fetch(s, 0);
        raw.map(|v| [0, 1, 2, 3].map(|c| v[s.swizzle.lane(c)]))
    }

    /// Writes the masked components of the executing lanes.
    fn write(&mut self, d: &Dst, value: &Lanes) {
        let file = usize::from(d.reg.file.code());
        let reg = &mut self.files[file][usize::from(d.reg.index)];
        for lane in 0..self.lanes {
            if self.exec & (1 << lane) == 0 {
                continue;
            }
            for c in 0..4 {
                if d.mask.has(c) {
                    reg[lane][c] = value[lane][c];
                }
            }
        }
    }

    /// `ife`/`ine`/`ifg`/`ifl`: the block runs in the lanes whose condition holds on the `x`
    /// components (the sources are replicate swizzles).
    fn open_block(&mut self, a: Lanes, b: Lanes, holds: fn(f32, f32) -> bool) -> Option<Lanes> {
        let mut cond = 0u8;
        for l in 0..self.lanes {
            cond |= u8::from(holds(a[l][0], b[l][0])) << l;
        }
        self.stack.push((self.exec, cond));
        self.exec &= cond;
        None
    }

    fn step(&mut self, i: &Instruction) {
        let src1 = || i.src1.as_ref().map(|s| self.read(s)).unwrap_or_default();
        let src2 = || i.src2.as_ref().map(|s| self.read(s)).unwrap_or_default();
        let unary = |f: fn(f32) -> f32| src1().map(|v| v.map(f));
        let binary = |f: fn(f32, f32) -> f32| {
            let (a, b) = (src1(), src2());
            let mut out = [[0.0; 4]; 4];
            for l in 0..4 {
                for c in 0..4 {
                    out[l][c] = f(a[l][c], b[l][c]);
                }
            }
            out
        };
        let result: Option<Lanes> = match i.op {
            Opcode::Mov => Some(src1()),
            Opcode::Add => Some(binary(|a, b| a + b)),
            Opcode::Sub => Some(binary(|a, b| a - b)),
            Opcode::Mul => Some(binary(|a, b| a * b)),
            Opcode::Div => Some(binary(|a, b| a / b)),
            Opcode::Rcp => Some(unary(math::rcp)),
            Opcode::Min => Some(binary(math::min)),
            Opcode::Max => Some(binary(math::max)),
            Opcode::Frc => Some(unary(math::frc)),
            Opcode::Sqt => Some(unary(math::sqt)),
            Opcode::Rsq => Some(unary(math::rsq)),
            Opcode::Pow => Some(binary(math::pow)),
            Opcode::Log => Some(unary(math::log)),
            Opcode::Exp => Some(unary(math::exp)),
            Opcode::Sin => Some(unary(math::sin)),
            Opcode::Cos => Some(unary(math::cos)),
            Opcode::Abs => Some(unary(math::abs)),
            Opcode::Neg => Some(unary(math::neg)),
            Opcode::Sat => Some(unary(math::sat)),
            Opcode::Sgn => Some(unary(math::sgn)),
            Opcode::Sge => Some(binary(|a, b| math::set_if(a >= b))),
            Opcode::Slt => Some(binary(|a, b| math::set_if(a < b))),
            Opcode::Seq => Some(binary(|a, b| math::set_if(a == b))),
            Opcode::Sne => Some(binary(|a, b| math::set_if(a != b))),
            Opcode::Nrm => Some(src1().map(|v| {
                let [x, y, z] = math::nrm(&v);
                [x, y, z, 0.0]
            })),
            Opcode::Crs => {
                let (a, b) = (src1(), src2());
                Some([0, 1, 2, 3].map(|l| {
                    let [x, y, z] = math::crs(&a[l], &b[l]);
                    [x, y, z, 0.0]
                }))
            }
            Opcode::Dp3 | Opcode::Dp4 => {
                let n = if i.op == Opcode::Dp3 { 3 } else { 4 };
                let (a, b) = (src1(), src2());
                Some([0, 1, 2, 3].map(|l| [math::dot(&a[l], &b[l], n); 4]))
            }
            Opcode::M33 | Opcode::M34 | Opcode::M44 => {
                let (rows, width) = i.op.matrix().unwrap_or((0, 0));
                let a = src1();
                let mut out = [[0.0; 4]; 4];
                if let Some(m) = &i.src2 {
                    for row in 0..rows {
                        let r = self.fetch(m, row);
                        for l in 0..4 {
                            out[l][usize::from(row)] = math::dot(&a[l], &r[l], width);
                        }
                    }
                }
                Some(out)
            }
            Opcode::Ddx | Opcode::Ddy => {
                let a = src1();
                // Lanes: 0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1). ddx: right − left of the lane's
                // row; ddy: bottom − top of its column.
                let x = i.op == Opcode::Ddx;
                Some([0usize, 1, 2, 3].map(|l| {
                    let (from, to) = if x {
                        (l & 2, (l & 2) | 1)
                    } else {
                        (l & 1, 2 | (l & 1))
                    };
                    [0, 1, 2, 3].map(|c| a[to][c] - a[from][c])
                }))
            }
            Opcode::Ife => self.open_block(src1(), src2(), |x, y| x == y),
            Opcode::Ine => self.open_block(src1(), src2(), |x, y| x != y),
            Opcode::Ifg => self.open_block(src1(), src2(), |x, y| x > y),
            Opcode::Ifl => self.open_block(src1(), src2(), |x, y| x < y),
            Opcode::Els => {
                if let Some(&(parent, cond)) = self.stack.last() {
                    self.exec = parent & !cond;
                }
                None
            }
            Opcode::Eif => {
                if let Some((parent, _)) = self.stack.pop() {
                    self.exec = parent;
                }
                None
            }
            Opcode::Kil => {
                let a = src1();
                for (l, v) in a.iter().enumerate().take(self.lanes) {
                    if self.exec & (1 << l) != 0 && v[0] < 0.0 {
                        self.killed[l] = true;
                    }
                }
                None
            }
            // No executing lane: nothing would be written, so the sampler is not called.
            Opcode::Tex | Opcode::Tld if self.exec == 0 => None,
            Opcode::Tex | Opcode::Tld => match &i.sampler {
                Some(s) => {
                    let mut coords = src1();
                    let lod = if i.op == Opcode::Tld {
                        coords = [coords[0]; 4];
                        Lod::Explicit([coords[0][3]; 4])
                    } else {
                        Lod::Derivatives
                    };
                    debug_assert!(matches!(s.state.dim, Dim::TwoD | Dim::Cube));
                    Some(self.textures.sample(s.unit, &s.state, &coords, lod))
                }
                None => None,
            },
            // Refused by the validator (#3621): never in a `Program`.
            Opcode::Ted => None,
        };
        if let (Some(value), Some(d)) = (result, &i.dest) {
            self.write(d, &value);
        }
    }
}
