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
use crate::isa::{Control, Fmt2, Instruction, Kind};
use crate::program::Program;

use super::Unsupported;

/// IF stack depth (as the interpreter's, [`crate::interp`]).
const IF_DEPTH: usize = 8;
/// CALL stack depth.
const CALL_DEPTH: usize = 4;
/// LOOP stack depth (and number of loop slots).
const LOOP_DEPTH: usize = 4;

/// Default cap on the number of abstract states.
pub const MAX_STATES: usize = 8192;

/// A LOOP stack entry: the body's first address, the end address (DEST + 1), the slot of the
/// batch context holding its count, step and saved aL, and its int uniform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LoopScope {
    pub entry: u32,
    pub end: u32,
    pub slot: u8,
    /// The int uniform of its LOOP (count, start, step).
    pub int: u8,
}

/// The static part of the interpreter's three stacks, oldest entry first.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Stacks {
    /// (else address, end address).
    pub ifs: Vec<(u32, u32)>,
    /// (end address, return address).
    pub calls: Vec<(u32, u32)>,
    pub loops: Vec<LoopScope>,
}

/// One abstract control state: a pc (< 4095) and the stacks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

/// One explored state: where it is, its instruction and its step.
#[derive(Clone, Debug)]
pub struct Node {
    pub state: AbsState,
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
    let (stop, decoded) = stops(program);
    // About one state per word up to the last one loaded (more only inside calls and loops).
    let words = stop.len();
    let room = words.min(max_states);
    let mut x = Explorer {
        program,
        stop,
        decoded,
        plain: vec![u32::MAX; words],
        index: HashMap::default(),
        states: Vec::with_capacity(room),
        queue: VecDeque::new(),
        max_states,
        loop_slots: 0,
    };
    let entry = x.target(u32::from(program.entry), Stacks::default())?;
    let mut flows = Vec::with_capacity(room);
    while let Some(id) = x.queue.pop_front() {
        // Only the index looks states up again: the node takes this copy.
        let state = std::mem::replace(
            &mut x.states[id],
            AbsState {
                pc: 0,
                stacks: Stacks::default(),
            },
        );
        let instr = x.instr(state.pc);
        let flow = x.step(&state, &instr)?;
        flows.push(Node { state, instr, flow });
    }
    Ok(Graph {
        entry,
        nodes: flows,
        loop_slots: x.loop_slots,
    })
}

struct Explorer<'a> {
    program: &'a Program,
    /// For each pc up to the last non-zero word, the first address at or after it holding a
    /// flow instruction or END (4095 if none; beyond the list, 4095), and whether the
    /// invocation ends there (END or 4095).
    stop: Vec<(u32, bool)>,
    /// The instructions at the addresses `stop` covers, decoded once (`stop.len() - 1` of
    /// them; the words after them are 0).
    decoded: Vec<Instruction>,
    /// Per pc: the state with that pc and empty stacks (`u32::MAX`: none yet; beyond the list,
    /// none either), the state of nearly every word outside calls, IFs and loops, found
    /// without hashing. Sized by the loaded code and grown when a state lies past it, so a
    /// short program does not fill a table of every address.
    plain: Vec<u32>,
    /// The states with some stack entry.
    index: HashMap<AbsState, usize>,
    states: Vec<AbsState>,
    queue: VecDeque<usize>,
    max_states: usize,
    loop_slots: u8,
}

/// `stop[pc]`: the first address ≥ pc holding a flow instruction or END, else 4095, and
/// whether that is an END or 4095; for pc up to the last non-zero word below 4095 (the words
/// after it are 0, `add o0, v0, v0`). Also the instructions of the words before that point,
/// decoded.
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
    let zero = Instruction::decode(0);
    let mut decoded = vec![zero; len];
    for pc in (0..len).rev() {
        // Unloaded words are 0 (`add o0, v0, v0`, no flow): decoded once above.
        let word = program.code[pc];
        if word == 0 {
            stop[pc] = stop[pc + 1];
            continue;
        }
        let instr = Instruction::decode(word);
        stop[pc] = if matches!(instr.kind(), Kind::Control(_)) {
            (pc as u32, matches!(instr, Instruction::End(_)))
        } else {
            stop[pc + 1]
        };
        decoded[pc] = instr;
    }
    (stop, decoded)
}

/// Pushes onto a bounded stack, dropping the oldest entry when it is full.
fn push_bounded<T>(stack: &mut Vec<T>, item: T, depth: usize) {
    if stack.len() == depth {
        stack.remove(0);
    }
    stack.push(item);
}

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

impl Explorer<'_> {
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
    fn stacks_irrelevant(&self, pc: u32, stacks: &Stacks) -> bool {
        let (stop, ends_quietly) = self
            .stop
            .get(pc as usize)
            .copied()
            .unwrap_or((LAST_SLOT, true));
        let waits = |addr: u32| addr > pc && addr <= stop;
        ends_quietly
            && !stacks.calls.last().is_some_and(|&(end, _)| waits(end))
            && !stacks
                .ifs
                .last()
                .is_some_and(|&(else_addr, _)| waits(else_addr))
            && !stacks.loops.last().is_some_and(|l| waits(l.end))
    }

    /// The target for a next pc: the end for pc ≥ 4095, else the (possibly new) state.
    fn target(&mut self, pc: u32, mut stacks: Stacks) -> Result<Target, Unsupported> {
        if pc >= LAST_SLOT {
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
        if self.states.len() >= self.max_states {
            return Err(Unsupported::TooManyStates {
                limit: self.max_states,
            });
        }
        let id = self.states.len();
        let state = AbsState { pc, stacks };
        if empty {
            let at = pc as usize;
            if at >= self.plain.len() {
                self.plain.resize(at + 1, u32::MAX);
            }
            self.plain[at] = id as u32;
        } else {
            self.index.insert(state.clone(), id);
        }
        self.states.push(state);
        self.queue.push_back(id);
        Ok(Target::State(id))
    }

    /// [`Explorer::target`] for `pc` with empty stacks (nothing to canonicalize, no hashing).
    fn plain_target(&mut self, pc: u32) -> Result<Target, Unsupported> {
        if pc >= LAST_SLOT {
            return Ok(Target::Exit);
        }
        match self.plain.get(pc as usize) {
            Some(&id) if id != u32::MAX => Ok(Target::State(id as usize)),
            Some(_) | None => self.add(pc, Stacks::default(), true),
        }
    }

    /// The step of `state`, whose instruction is `instr`.
    fn step(&mut self, state: &AbsState, instr: &Instruction) -> Result<Flow, Unsupported> {
        let pc = state.pc;
        let s = &state.stacks;
        let plain = pc + 1;
        Ok(match instr.kind() {
            Kind::Alu(..) | Kind::Nop | Kind::Undefined(_) | Kind::Emit | Kind::Setemit(_) => {
                if s.ifs.is_empty() && s.calls.is_empty() && s.loops.is_empty() {
                    // No scope to close and a forward transfer: straight on to the next state.
                    goto(self.plain_target(plain)?)
                } else {
                    self.close(pc, s.clone(), plain, false)?
                }
            }
            Kind::Control(Control::End) => goto(Target::Exit),
            Kind::Control(Control::Break) => self.close(pc, s.clone(), plain, true)?,
            Kind::Control(Control::Breakc(f)) => branch(
                Cond::Cc(f),
                self.close(pc, s.clone(), plain, true)?,
                self.close(pc, s.clone(), plain, false)?,
            ),
            Kind::Control(Control::Jmpc(f)) => branch(
                Cond::Cc(f),
                self.close(pc, s.clone(), u32::from(f.dest), false)?,
                self.close(pc, s.clone(), plain, false)?,
            ),
            Kind::Control(Control::Jmpu(f)) => {
                let jump = self.close(pc, s.clone(), u32::from(f.dest), false)?;
                let stay = self.close(pc, s.clone(), plain, false)?;
                // Jumps iff b[id] == !(NUM & 1).
                if f.num & 1 == 0 {
                    branch(Cond::Bool(f.id), jump, stay)
                } else {
                    branch(Cond::Bool(f.id), stay, jump)
                }
            }
            Kind::Control(Control::Call(f)) => self.call(pc, s, f.dest, f.num)?,
            Kind::Control(Control::Callc(f)) => branch(
                Cond::Cc(f),
                self.call(pc, s, f.dest, f.num)?,
                self.close(pc, s.clone(), plain, false)?,
            ),
            Kind::Control(Control::Callu(f)) => branch(
                Cond::Bool(f.id),
                self.call(pc, s, f.dest, f.num)?,
                self.close(pc, s.clone(), plain, false)?,
            ),
            Kind::Control(Control::Ifu(f)) => branch(
                Cond::Bool(f.id),
                self.enter_if(pc, s, f.dest, f.num)?,
                self.close(pc, s.clone(), u32::from(f.dest), false)?,
            ),
            Kind::Control(Control::Ifc(f)) => branch(
                Cond::Cc(f),
                self.enter_if(pc, s, f.dest, f.num)?,
                self.close(pc, s.clone(), u32::from(f.dest), false)?,
            ),
            Kind::Control(Control::Loop(f)) => {
                let mut stacks = s.clone();
                if stacks.loops.len() == LOOP_DEPTH {
                    stacks.loops.remove(0);
                }
                let slot = (0..LOOP_DEPTH as u8)
                    .find(|n| stacks.loops.iter().all(|l| l.slot != *n))
                    .unwrap_or(0);
                self.loop_slots = self.loop_slots.max(slot + 1);
                stacks.loops.push(LoopScope {
                    entry: plain,
                    end: u32::from(f.dest) + 1,
                    slot,
                    int: f.id & 3,
                });
                Flow::Do(
                    Effect::LoopPush {
                        slot,
                        int: f.id & 3,
                    },
                    Box::new(self.close(pc, stacks, plain, false)?),
                )
            }
        })
    }

    fn call(&mut self, pc: u32, s: &Stacks, dest: u16, num: u8) -> Result<Flow, Unsupported> {
        let mut stacks = s.clone();
        push_bounded(
            &mut stacks.calls,
            (u32::from(dest) + u32::from(num), pc + 1),
            CALL_DEPTH,
        );
        self.close(pc, stacks, u32::from(dest), false)
    }

    fn enter_if(&mut self, pc: u32, s: &Stacks, dest: u16, num: u8) -> Result<Flow, Unsupported> {
        let mut stacks = s.clone();
        push_bounded(
            &mut stacks.ifs,
            (u32::from(dest), u32::from(dest) + u32::from(num)),
            IF_DEPTH,
        );
        self.close(pc, stacks, pc + 1, false)
    }

    /// Scope closing after the instruction at `pc` (interp `close_scopes`), then the budget.
    fn close(
        &mut self,
        pc: u32,
        mut stacks: Stacks,
        mut next: u32,
        is_break: bool,
    ) -> Result<Flow, Unsupported> {
        let after = pc + 1;
        let mut check = after;
        for pops in 0..4 {
            match stacks.calls.last() {
                Some(&(end, ret)) if end == check => {
                    if pops < 3 {
                        next = ret;
                        check = ret;
                    }
                    stacks.calls.pop();
                }
                _ => break,
            }
        }
        if let Some(&(else_addr, end)) = stacks.ifs.last() {
            if else_addr == after {
                next = end;
                stacks.ifs.pop();
            }
        }
        let nested = stacks.loops.len() > 1;
        if let Some(&top) = stacks.loops.last() {
            if top.end == after || is_break {
                let mut out = stacks.clone();
                out.loops.pop();
                let restore = nested.then_some(Effect::AlRestore(top.slot));
                let exit = self.finish(pc, out, top.end, restore)?;
                let flow = if is_break {
                    exit
                } else {
                    Flow::LoopNext {
                        slot: top.slot,
                        repeat: Box::new(self.finish(pc, stacks, top.entry, None)?),
                        exit: Box::new(exit),
                    }
                };
                let inc = Effect::AlInc {
                    slot: top.slot,
                    int: top.int,
                };
                return Ok(Flow::Do(inc, Box::new(flow)));
            }
        }
        self.finish(pc, stacks, next, None)
    }

    /// The end of one path of a step: an optional aL effect, the budget if the transfer is
    /// backward, and the next state.
    fn finish(
        &mut self,
        pc: u32,
        stacks: Stacks,
        next: u32,
        effect: Option<Effect>,
    ) -> Result<Flow, Unsupported> {
        let mut flow = goto(self.target(next, stacks)?);
        if next <= pc {
            flow = Flow::Do(Effect::Budget, Box::new(flow));
        }
        if let Some(e) = effect {
            flow = Flow::Do(e, Box::new(flow));
        }
        Ok(flow)
    }
}
