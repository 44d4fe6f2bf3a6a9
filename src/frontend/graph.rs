//! Control-flow recovery by exhaustive abstract execution.
//!
//! The interpreter's control state is (pc, IF stack, CALL stack, LOOP stack). Everything in it
//! except the loops' dynamic values (remaining count, step, saved aL) is a function of the path
//! taken, not of data, so it can be explored symbolically: an [`AbsState`] holds the pc and the
//! three stacks with their static entries, and each loop entry names the **slot** of the batch
//! context that holds its dynamic values. From the entry state with empty stacks, every state's
//! successors are computed by the interpreter's own rules (`interp/flow.rs`): the instruction's
//! effect, then scope closing against `old_pc + 1` in the order CALL (up to four pops, the
//! fourth leaving the pc alone), IF, LOOP, with the bounded drop-oldest stacks. A condition the
//! compiler cannot know (a bool uniform, cc, a loop counter) yields both successors.
//!
//! Each state's step is described by a small decision tree, a [`Flow`], whose leaves name the
//! next state (or the end of the invocation) and whose inner nodes are conditions and the
//! scalar effects of the step, in the interpreter's order: `LoopPush` (the LOOP instruction
//! itself), `AlInc` and then `AlRestore` (a loop scope closing), and last `Budget` on every path
//! whose final next pc is not above the instruction's own address.
//!
//! Slots: a LOOP takes the lowest slot not held by an entry still on the stack after the push
//! has dropped the oldest entry of a full stack. So at most four slots are ever used, and two
//! live entries never share one.
//!
//! One canonicalization keeps the state count down without changing behaviour: when the code
//! from the pc up to the next END (or slot 4095) holds no flow instruction and no stack top
//! waits for an address in that stretch, nothing can ever pop or push again before the
//! invocation ends, so the stacks are irrelevant and are emptied. (Without it, code that runs
//! off the end of the program is duplicated once per stack configuration that reaches it.)

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;

use crate::interp::LAST_SLOT;
use crate::isa::{Control, Fmt2, Instruction, Kind, Opcode};
use crate::program::{Program, CODE_WORDS};

use super::stack::Bounded;
use super::Unsupported;

/// IF stack depth (as the interpreter's, [`crate::interp`]).
const IF_DEPTH: usize = 8;
/// CALL stack depth.
const CALL_DEPTH: usize = 4;
/// LOOP stack depth (and number of loop slots).
const LOOP_DEPTH: usize = 4;

/// The states with some stack entry the explorer's index first makes room for.
const INDEX_ROOM: usize = 128;

/// Default cap on the number of abstract states.
pub const MAX_STATES: usize = 8192;

/// A LOOP stack entry: the body's first address, the end address (DEST + 1), the slot of the
/// batch context holding its count, step and saved aL, and its int uniform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct LoopScope {
    pub entry: u16,
    pub end: u16,
    pub slot: u8,
    /// The int uniform of its LOOP (count, start, step).
    pub int: u8,
}

/// The static part of the interpreter's three stacks, oldest entry first (inline, addresses
/// as `u16`: a state is about as small as a pc and three empty `Vec`s, and copying it
/// allocates nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Stacks {
    /// (else address, end address).
    pub ifs: Bounded<(u16, u16), IF_DEPTH>,
    /// (end address, return address).
    pub calls: Bounded<(u16, u16), CALL_DEPTH>,
    pub loops: Bounded<LoopScope, LOOP_DEPTH>,
}

/// One abstract control state: a pc (< 4095) and the stacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AbsState {
    pub pc: u32,
    pub stacks: Stacks,
}

/// A condition the step depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// Bool uniform `b[id]` is set.
    Bool(u8),
    /// The format-2 condition on cc holds.
    Cc(Fmt2),
}

/// A scalar effect on the batch context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Enter a loop: save aL in `slot`, load count and step of int uniform `int`, aL = start.
    LoopPush { slot: u8, int: u8 },
    /// aL += the slot's step (byte 2 of int uniform `int`, the one its LOOP named).
    AlInc { slot: u8, int: u8 },
    /// aL = the slot's saved value.
    AlRestore(u8),
    /// A backward transfer: spend one unit of budget or stop.
    Budget,
}

/// Where a step leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The abstract state with this index.
    State(usize),
    /// The invocation ends (END, or pc ≥ 4095).
    Exit,
}

/// The decision tree of one step.
#[derive(Clone, Debug, PartialEq)]
pub enum Flow {
    /// An effect, then the rest.
    Do(Effect, Box<Flow>),
    /// A two-way condition.
    If {
        cond: Cond,
        then: Box<Flow>,
        other: Box<Flow>,
    },
    /// A loop scope closing without a break: repeat while the slot's count is not zero
    /// (decrementing it), else leave.
    LoopNext {
        slot: u8,
        repeat: Box<Flow>,
        exit: Box<Flow>,
    },
    /// Continue at a target.
    Goto(Target),
}

impl Flow {
    /// Whether the tree tests cc anywhere (a condition that may differ between vertices).
    pub fn tests_cc(&self) -> bool {
        match self {
            Flow::Do(_, rest) => rest.tests_cc(),
            Flow::Goto(_) => false,
            Flow::If { cond, then, other } => {
                matches!(cond, Cond::Cc(_)) || then.tests_cc() || other.tests_cc()
            }
            Flow::LoopNext { repeat, exit, .. } => repeat.tests_cc() || exit.tests_cc(),
        }
    }

    /// Calls `f` with each target of the tree in order (`then` before `other`, `repeat` before
    /// `exit`) until it returns false; false if it did.
    pub fn each_target<F: FnMut(Target) -> bool>(&self, f: &mut F) -> bool {
        match self {
            Flow::Do(_, rest) => rest.each_target(f),
            Flow::Goto(t) => f(*t),
            Flow::If { then, other, .. } => then.each_target(f) && other.each_target(f),
            Flow::LoopNext { repeat, exit, .. } => repeat.each_target(f) && exit.each_target(f),
        }
    }
}

/// One explored state: its pc (the stacks are what set it apart from the other states at that
/// pc, and only the walk needs them), its instruction and its step.
#[derive(Clone, Debug)]
pub struct Node {
    pub pc: u32,
    pub instr: Instruction,
    pub flow: Flow,
}

/// The explored state graph.
#[derive(Clone, Debug)]
pub struct Graph {
    /// Where execution starts.
    pub entry: Target,
    /// Every reachable state, in discovery order (breadth first).
    pub nodes: Vec<Node>,
    /// Loop slots used (the highest slot + 1).
    pub loop_slots: u8,
}

/// Explores every reachable control state of `program`, at most `max_states` of them.
pub fn explore(program: &Program, max_states: usize) -> Result<Graph, Unsupported> {
    let mut x = Explorer::new(program, max_states, true);
    // About one state per word up to the last one loaded (more only inside calls and loops).
    let mut nodes = Vec::with_capacity(x.plain.len().min(max_states));
    let entry = x.walk(|pc, instr, flow| nodes.push(Node { pc, instr, flow }))?;
    Ok(Graph {
        entry,
        nodes,
        loop_slots: x.loop_slots,
    })
}

/// The code addresses of the states [`explore`] finds (bit a of word a / 64), and slot 4095
/// if some path runs into it (the invocation ends there); `None` if the walk finds more than
/// `max_states` states. These are exactly the addresses the interpreter's pc can take from
/// the entry: a subroutine's return, an IF's else and a loop's end are followed as it follows
/// them, so a path that never runs past the program's last word does not reach the zero words
/// after it.
///
/// The walk is [`explore`]'s, except that a state marks every word up to the next flow
/// instruction or scope end at once (no scope can close before it, so the words run one after
/// another) and steps that one: the same addresses, without a state per word. It reads only
/// the words it marks (no table of the loaded code, whose end a short program would have to
/// find among thousands of zero words), and so keeps states that differ only in stacks no
/// later step can use (`explore` merges them): more states at the same addresses.
pub fn reachable(program: &Program, max_states: usize) -> Option<Box<[u64; CODE_WORDS / 64]>> {
    let mut seen = Box::new([0u64; CODE_WORDS / 64]);
    let mut x = Explorer::new(program, max_states, false);
    x.target(u32::from(program.entry), Stacks::default()).ok()?;
    'states: while let Some(mut state) = x.queue.pop_front() {
        // The words up to the next flow instruction and before the first address a stack top
        // waits for run one after another; the last of them steps as in `explore`.
        let wait = first_wait(state.pc, &state.stacks);
        let mut pc = state.pc;
        loop {
            seen[pc as usize / 64] |= 1 << (pc % 64);
            if FLOW_OPCODES >> (program.code[pc as usize] >> 26) & 1 != 0 || pc + 1 == wait {
                break;
            }
            if pc + 1 == LAST_SLOT {
                // Runs on to slot 4095: the end.
                x.last_slot = true;
                continue 'states;
            }
            pc += 1;
        }
        state.pc = pc;
        let instr = x.instr(pc);
        x.step::<()>(&state, &instr).ok()?;
    }
    if x.last_slot {
        seen[LAST_SLOT as usize / 64] |= 1 << (LAST_SLOT % 64);
    }
    Some(seen)
}

struct Explorer<'a> {
    program: &'a Program,
    /// For each pc up to the last non-zero word, the first address at or after it holding a
    /// flow instruction or END (4095 if none; beyond the list, 4095), and whether the
    /// invocation ends there (END or 4095).
    stop: Vec<(u32, bool)>,
    /// The instructions at the addresses `stop` covers, decoded once (`stop.len() - 1` of
    /// them; the words after them are 0). Both empty for [`reachable`].
    decoded: Vec<Instruction>,
    /// Per pc: the state with that pc and empty stacks (`u32::MAX`: none yet; beyond the list,
    /// none either), the state of nearly every word outside calls, IFs and loops, found
    /// without hashing. Sized by the loaded code and grown when a state lies past it, so a
    /// short program does not fill a table of every address.
    plain: Vec<u32>,
    /// The states with some stack entry.
    index: HashMap<AbsState, usize>,
    /// The states found and not yet stepped, in discovery order (a state's index is the
    /// number of states found before it: the walk is breadth first).
    queue: VecDeque<AbsState>,
    /// The number of states found.
    found: usize,
    max_states: usize,
    loop_slots: u8,
    /// Whether some step leads to slot 4095 (which ends the invocation without running its
    /// word).
    last_slot: bool,
}

/// Bit `v`: a word whose opcode field (bits 26–31) is `v` holds a flow instruction or END.
const FLOW_OPCODES: u64 = {
    let mut mask = 0;
    let mut v = 0;
    while v < 64 {
        if Opcode::from_value(v as u8).is_control() {
            mask |= 1 << v;
        }
        v += 1;
    }
    mask
};

/// The opcode field of END.
const END_OPCODE: u32 = 0x22;

/// `stop[pc]`: the first address ≥ pc holding a flow instruction or END, else 4095, and
/// whether that is an END or 4095; for pc up to the last non-zero word below 4095 (the words
/// after it are 0, `add o0, v0, v0`), told from the opcode field. Also the instructions of
/// the words before that point, decoded.
fn stops(program: &Program) -> (Vec<(u32, bool)>, Vec<Instruction>) {
    let code = &program.code[..LAST_SLOT as usize];
    // The end of the loaded code: found 16 words at a time from the end (a short program
    // leaves thousands of zero words to skip).
    let mut len = code.len();
    while len > 0 {
        let chunk = &code[len.saturating_sub(16)..len];
        if chunk.iter().fold(0, |any, &w| any | w) != 0 {
            break;
        }
        len -= chunk.len();
    }
    let len = code[..len]
        .iter()
        .rposition(|&w| w != 0)
        .map_or(0, |last| last + 1);
    let mut stop = vec![(LAST_SLOT, true); len + 1];
    for pc in (0..len).rev() {
        let op = program.code[pc] >> 26;
        stop[pc] = if FLOW_OPCODES >> op & 1 != 0 {
            (pc as u32, op == END_OPCODE)
        } else {
            stop[pc + 1]
        };
    }
    // Unloaded words are 0 (`add o0, v0, v0`): decoded once.
    let zero = Instruction::decode(0);
    let decoded = code[..len]
        .iter()
        .map(|&w| match w {
            0 => zero,
            1.. => Instruction::decode(w),
        })
        .collect();
    (stop, decoded)
}

/// What a step yields: the decision tree itself ([`Flow`], for [`explore`]) or nothing (`()`,
/// for [`reachable`], which needs only the states a step leads to). The walk that finds the
/// states is the same either way.
trait Step: Sized {
    fn goto(t: Target) -> Self;
    fn branch(cond: Cond, then: Self, other: Self) -> Self;
    fn effect(e: Effect, rest: Self) -> Self;
    fn loop_next(slot: u8, repeat: Self, exit: Self) -> Self;
}

impl Step for Flow {
    fn goto(t: Target) -> Flow {
        Flow::Goto(t)
    }

    fn branch(cond: Cond, then: Flow, other: Flow) -> Flow {
        Flow::If {
            cond,
            then: Box::new(then),
            other: Box::new(other),
        }
    }

    fn effect(e: Effect, rest: Flow) -> Flow {
        Flow::Do(e, Box::new(rest))
    }

    fn loop_next(slot: u8, repeat: Flow, exit: Flow) -> Flow {
        Flow::LoopNext {
            slot,
            repeat: Box::new(repeat),
            exit: Box::new(exit),
        }
    }
}

impl Step for () {
    fn goto(_: Target) {}
    fn branch(_: Cond, (): (), (): ()) {}
    fn effect(_: Effect, (): ()) {}
    fn loop_next(_: u8, (): (), (): ()) {}
}

/// The lowest address above `pc` a stack top waits for (a CALL's end, an IF's else, a loop's
/// end; `u32::MAX` if none): the instruction before it is the first after `pc` whose scope
/// closing can change the stacks.
fn first_wait(pc: u32, stacks: &Stacks) -> u32 {
    let tops = [
        stacks.calls.last().map(|&(end, _)| end),
        stacks.ifs.last().map(|&(else_addr, _)| else_addr),
        stacks.loops.last().map(|l| l.end),
    ]
    .map(|a| a.map(u32::from));
    tops.into_iter()
        .flatten()
        .filter(|&a| a > pc)
        .min()
        .unwrap_or(u32::MAX)
}

impl<'a> Explorer<'a> {
    /// An explorer of `program` that has found no state yet. `full`: with the table of stops
    /// and every loaded word decoded up front, as [`explore`] steps nearly all of them, and
    /// stacks emptied where they are irrelevant ([`Explorer::stacks_irrelevant`]); else
    /// neither ([`reachable`], which decodes only the words it steps).
    fn new(program: &'a Program, max_states: usize, full: bool) -> Explorer<'a> {
        let (stop, decoded) = match full {
            true => stops(program),
            false => (Vec::new(), Vec::new()),
        };
        let words = stop.len();
        Explorer {
            program,
            stop,
            decoded,
            plain: vec![u32::MAX; words],
            index: HashMap::default(),
            queue: VecDeque::new(),
            found: 0,
            max_states,
            loop_slots: 0,
            last_slot: false,
        }
    }

    /// The breadth-first walk of [`explore`] from the entry: calls `visit` with each state's
    /// pc, instruction and step, in discovery order; returns the entry.
    fn walk<F: Step>(
        &mut self,
        mut visit: impl FnMut(u32, Instruction, F),
    ) -> Result<Target, Unsupported> {
        let entry = self.target(u32::from(self.program.entry), Stacks::default())?;
        while let Some(state) = self.queue.pop_front() {
            let instr = self.instr(state.pc);
            let flow = self.step(&state, &instr)?;
            visit(state.pc, instr, flow);
        }
        Ok(entry)
    }

    fn instr(&self, pc: u32) -> Instruction {
        // The interpreter treats slot 4095 as END; states only exist below it.
        match self.decoded.get(pc as usize) {
            Some(&instr) => instr,
            None => Instruction::decode(self.program.code[pc as usize]),
        }
    }

    /// True if from `pc` the invocation runs straight to an END or slot 4095 whatever the
    /// stacks below their tops hold: no flow instruction on the way, and no top waiting for
    /// an address the instructions on the way close against (`pc + 1 ..= stop`).
    /// (Never without the table of stops.)
    fn stacks_irrelevant(&self, pc: u32, stacks: &Stacks) -> bool {
        let (stop, ends) = self.stop_at(pc);
        !self.stop.is_empty() && ends && first_wait(pc, stacks) > stop
    }

    /// The first address at or after `pc` holding a flow instruction or END (4095 if none),
    /// and whether that is an END or 4095.
    fn stop_at(&self, pc: u32) -> (u32, bool) {
        self.stop
            .get(pc as usize)
            .copied()
            .unwrap_or((LAST_SLOT, true))
    }

    /// The target for a next pc: the end for pc ≥ 4095, else the (possibly new) state.
    fn target(&mut self, pc: u32, mut stacks: Stacks) -> Result<Target, Unsupported> {
        if pc >= LAST_SLOT {
            self.last_slot |= pc == LAST_SLOT;
            return Ok(Target::Exit);
        }
        if self.stacks_irrelevant(pc, &stacks) {
            stacks = Stacks::default();
        }
        let empty = stacks.ifs.is_empty() && stacks.calls.is_empty() && stacks.loops.is_empty();
        let state = AbsState { pc, stacks };
        let known = if empty {
            self.plain
                .get(pc as usize)
                .map(|&id| id as usize)
                .filter(|&id| id != u32::MAX as usize)
        } else {
            self.index.get(&state).copied()
        };
        if let Some(id) = known {
            return Ok(Target::State(id));
        }
        self.add(pc, state.stacks, empty)
    }

    /// A new state at `pc` with `stacks` (`empty` if they are), queued for its step.
    fn add(&mut self, pc: u32, stacks: Stacks, empty: bool) -> Result<Target, Unsupported> {
        if self.found >= self.max_states {
            return Err(Unsupported::TooManyStates {
                limit: self.max_states,
            });
        }
        let id = self.found;
        self.found += 1;
        let state = AbsState { pc, stacks };
        if empty {
            let at = pc as usize;
            if at >= self.plain.len() {
                self.plain.resize(at + 1, u32::MAX);
            }
            self.plain[at] = id as u32;
        } else {
            if self.index.is_empty() {
                // The first state with stacks: IF arms, calls and loops make dozens to
                // hundreds of them, so the index starts at a size it rarely grows past
                // (grown from nothing, it rehashed about 15 k host instructions' worth at
                // branchy:500).
                self.index.reserve(INDEX_ROOM);
            }
            self.index.insert(state, id);
        }
        self.queue.push_back(state);
        Ok(Target::State(id))
    }

    /// [`Explorer::target`] for `pc` with empty stacks (nothing to canonicalize, no hashing).
    fn plain_target(&mut self, pc: u32) -> Result<Target, Unsupported> {
        if pc >= LAST_SLOT {
            self.last_slot |= pc == LAST_SLOT;
            return Ok(Target::Exit);
        }
        match self.plain.get(pc as usize) {
            Some(&id) if id != u32::MAX => Ok(Target::State(id as usize)),
            Some(_) | None => self.add(pc, Stacks::default(), true),
        }
    }

    /// The step of `state`, whose instruction is `instr`.
    fn step<F: Step>(&mut self, state: &AbsState, instr: &Instruction) -> Result<F, Unsupported> {
        let pc = state.pc;
        let s = &state.stacks;
        let plain = pc + 1;
        Ok(match instr.kind() {
            Kind::Alu(..) | Kind::Nop | Kind::Undefined(_) | Kind::Emit | Kind::Setemit(_) => {
                if s.ifs.is_empty() && s.calls.is_empty() && s.loops.is_empty() {
                    // No scope to close and a forward transfer: straight on to the next state.
                    F::goto(self.plain_target(plain)?)
                } else {
                    self.close(pc, *s, plain, false)?
                }
            }
            Kind::Control(Control::End) => F::goto(Target::Exit),
            Kind::Control(Control::Break) => self.close(pc, *s, plain, true)?,
            Kind::Control(Control::Breakc(f)) => F::branch(
                Cond::Cc(f),
                self.close(pc, *s, plain, true)?,
                self.close(pc, *s, plain, false)?,
            ),
            Kind::Control(Control::Jmpc(f)) => F::branch(
                Cond::Cc(f),
                self.close(pc, *s, u32::from(f.dest), false)?,
                self.close(pc, *s, plain, false)?,
            ),
            Kind::Control(Control::Jmpu(f)) => {
                let jump = self.close(pc, *s, u32::from(f.dest), false)?;
                let stay = self.close(pc, *s, plain, false)?;
                // Jumps iff b[id] == !(NUM & 1).
                if f.num & 1 == 0 {
                    F::branch(Cond::Bool(f.id), jump, stay)
                } else {
                    F::branch(Cond::Bool(f.id), stay, jump)
                }
            }
            Kind::Control(Control::Call(f)) => self.call(pc, s, f.dest, f.num)?,
            Kind::Control(Control::Callc(f)) => F::branch(
                Cond::Cc(f),
                self.call(pc, s, f.dest, f.num)?,
                self.close(pc, *s, plain, false)?,
            ),
            Kind::Control(Control::Callu(f)) => F::branch(
                Cond::Bool(f.id),
                self.call(pc, s, f.dest, f.num)?,
                self.close(pc, *s, plain, false)?,
            ),
            Kind::Control(Control::Ifu(f)) => F::branch(
                Cond::Bool(f.id),
                self.enter_if(pc, s, f.dest, f.num)?,
                self.close(pc, *s, u32::from(f.dest), false)?,
            ),
            Kind::Control(Control::Ifc(f)) => F::branch(
                Cond::Cc(f),
                self.enter_if(pc, s, f.dest, f.num)?,
                self.close(pc, *s, u32::from(f.dest), false)?,
            ),
            Kind::Control(Control::Loop(f)) => {
                let mut stacks = *s;
                stacks.loops.drop_oldest_if_full();
                let slot = (0..LOOP_DEPTH as u8)
                    .find(|n| stacks.loops.as_slice().iter().all(|l| l.slot != *n))
                    .unwrap_or(0);
                self.loop_slots = self.loop_slots.max(slot + 1);
                stacks.loops.push(LoopScope {
                    // Addresses below 4096 (+ 256 for an end): they fit in 16 bits.
                    entry: plain as u16,
                    end: f.dest + 1,
                    slot,
                    int: f.id & 3,
                });
                F::effect(
                    Effect::LoopPush {
                        slot,
                        int: f.id & 3,
                    },
                    self.close(pc, stacks, plain, false)?,
                )
            }
        })
    }

    fn call<F: Step>(&mut self, pc: u32, s: &Stacks, dest: u16, num: u8) -> Result<F, Unsupported> {
        let mut stacks = *s;
        stacks.calls.push((dest + u16::from(num), (pc + 1) as u16));
        self.close(pc, stacks, u32::from(dest), false)
    }

    fn enter_if<F: Step>(
        &mut self,
        pc: u32,
        s: &Stacks,
        dest: u16,
        num: u8,
    ) -> Result<F, Unsupported> {
        let mut stacks = *s;
        stacks.ifs.push((dest, dest + u16::from(num)));
        self.close(pc, stacks, pc + 1, false)
    }

    /// Scope closing after the instruction at `pc` (interp `close_scopes`), then the budget.
    fn close<F: Step>(
        &mut self,
        pc: u32,
        mut stacks: Stacks,
        mut next: u32,
        is_break: bool,
    ) -> Result<F, Unsupported> {
        let after = pc + 1;
        let mut check = after;
        for pops in 0..4 {
            match stacks.calls.last() {
                Some(&(end, ret)) if u32::from(end) == check => {
                    if pops < 3 {
                        next = u32::from(ret);
                        check = u32::from(ret);
                    }
                    stacks.calls.pop();
                }
                _ => break,
            }
        }
        if let Some(&(else_addr, end)) = stacks.ifs.last() {
            if u32::from(else_addr) == after {
                next = u32::from(end);
                stacks.ifs.pop();
            }
        }
        let nested = stacks.loops.len() > 1;
        if let Some(&top) = stacks.loops.last() {
            if u32::from(top.end) == after || is_break {
                let mut out = stacks;
                out.loops.pop();
                let restore = nested.then_some(Effect::AlRestore(top.slot));
                let exit = self.finish(pc, out, top.end.into(), restore)?;
                let flow = if is_break {
                    exit
                } else {
                    F::loop_next(
                        top.slot,
                        self.finish(pc, stacks, top.entry.into(), None)?,
                        exit,
                    )
                };
                let inc = Effect::AlInc {
                    slot: top.slot,
                    int: top.int,
                };
                return Ok(F::effect(inc, flow));
            }
        }
        self.finish(pc, stacks, next, None)
    }

    /// The end of one path of a step: an optional aL effect, the budget if the transfer is
    /// backward, and the next state.
    fn finish<F: Step>(
        &mut self,
        pc: u32,
        stacks: Stacks,
        next: u32,
        effect: Option<Effect>,
    ) -> Result<F, Unsupported> {
        let mut flow = F::goto(self.target(next, stacks)?);
        if next <= pc {
            flow = F::effect(Effect::Budget, flow);
        }
        if let Some(e) = effect {
            flow = F::effect(e, flow);
        }
        Ok(flow)
    }
}

#[cfg(test)]
mod tests {
    use super::{END_OPCODE, FLOW_OPCODES};
    use crate::isa::{Instruction, Kind};

    #[test]
    fn the_flow_opcodes_are_the_control_instructions() {
        for v in 0..64u32 {
            let instr = Instruction::decode(v << 26 | 0x0123_4567 & 0x03FF_FFFF);
            let control = matches!(instr.kind(), Kind::Control(_));
            assert_eq!(FLOW_OPCODES >> v & 1 != 0, control, "opcode {v:#x}");
            assert_eq!(
                v == END_OPCODE,
                matches!(instr, Instruction::End(_)),
                "{v:#x}"
            );
        }
    }
}
