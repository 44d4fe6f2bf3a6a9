//! Delta reduction of a failing case: while the failure persists (the caller's predicate,
//! usually "fails the same way on the same backend"), drop vertices, turn instructions into
//! NOPs, simplify descriptors (no negation, identity swizzles, no stray bit), reset uniforms
//! and inputs to 0.0 or 1.0 and clear int and bool uniforms — in chunks of halving size, pass
//! after pass, until a pass changes nothing or the try budget is spent.

use crate::isa::{Instruction, OpDesc, Opcode, SrcMod};

use super::FuzzCase;

/// The reduced case and what it took.
#[derive(Clone, Debug)]
pub struct Minimized {
    pub case: FuzzCase,
    /// Candidates tried.
    pub tries: usize,
    /// Candidates that still failed (each one a step of reduction).
    pub accepted: usize,
}

struct Search<'p> {
    best: FuzzCase,
    tries: usize,
    accepted: usize,
    max_tries: usize,
    fails: &'p mut dyn FnMut(&FuzzCase) -> bool,
}

impl Search<'_> {
    fn exhausted(&self) -> bool {
        self.tries >= self.max_tries
    }

    /// Tries a candidate; keeps it if it still fails.
    fn offer(&mut self, candidate: FuzzCase) -> bool {
        if candidate.same_as(&self.best) || self.exhausted() {
            return false;
        }
        self.tries += 1;
        if (self.fails)(&candidate) {
            self.best = candidate;
            self.accepted += 1;
            true
        } else {
            false
        }
    }

    /// Applies `simplify` to chunks of the items `0..count` (halving chunk sizes); returns
    /// whether any candidate was kept. `simplify` returns false when it changes nothing.
    fn chunks(&mut self, count: usize, simplify: &dyn Fn(&mut FuzzCase, usize) -> bool) -> bool {
        let mut progress = false;
        let mut size = count.max(1);
        loop {
            let mut start = 0;
            while start < count && !self.exhausted() {
                let mut candidate = self.best.clone();
                let mut changed = false;
                for i in start..(start + size).min(count) {
                    changed |= simplify(&mut candidate, i);
                }
                if changed && self.offer(candidate) {
                    progress = true;
                }
                start += size;
            }
            if size == 1 || self.exhausted() {
                return progress;
            }
            size = size.div_ceil(2);
        }
    }

    fn vertices(&mut self) -> bool {
        let mut progress = false;
        let mut size = self.best.case.inputs.len() / 2;
        while size >= 1 && !self.exhausted() {
            let mut start = 0;
            while start < self.best.case.inputs.len() && self.best.case.inputs.len() > 1 {
                let mut candidate = self.best.clone();
                let end = (start + size).min(candidate.case.inputs.len());
                candidate.case.inputs.drain(start..end);
                if candidate.case.inputs.is_empty() || !self.offer(candidate) {
                    start += size;
                } else {
                    progress = true;
                }
                if self.exhausted() {
                    break;
                }
            }
            size /= 2;
        }
        progress
    }
}

/// The NOP word of the opcode table.
fn nop_word() -> u32 {
    u32::from(Opcode::Nop.values()[0]) << 26
}

/// Sets `x` to `value` when that simplifies it: anything → 0.0, anything but 0.0 → 1.0.
fn simplify_float(x: &mut f32, value: f32) -> bool {
    let changed = x.to_bits() != value.to_bits() && (value == 0.0 || x.to_bits() != 0);
    if changed {
        *x = value;
    }
    changed
}

/// Reduces `case` while `fails` holds, trying at most `max_tries` candidates.
pub fn minimize(
    case: &FuzzCase,
    max_tries: usize,
    fails: &mut dyn FnMut(&FuzzCase) -> bool,
) -> Minimized {
    let mut s = Search {
        best: case.clone(),
        tries: 0,
        accepted: 0,
        max_tries,
        fails,
    };
    let nop = nop_word();
    loop {
        let mut progress = s.vertices();
        // Instructions → NOP.
        let len = s.best.case.code.len();
        progress |= s.chunks(len, &|c, i| {
            let changed = c.case.code[i] != nop;
            c.case.code[i] = nop;
            changed
        });
        // Trailing NOPs past the entry → shorter code (the words become 0 again).
        let keep = s
            .best
            .case
            .code
            .iter()
            .rposition(|&w| w != nop)
            .map_or(1, |i| i + 1)
            .max(s.best.case.entry as usize + 1);
        if keep < s.best.case.code.len() {
            let mut candidate = s.best.clone();
            candidate.case.code.truncate(keep);
            progress |= s.offer(candidate);
        }
        // Entry point 0.
        if s.best.case.entry != 0 {
            let mut candidate = s.best.clone();
            candidate.case.entry = 0;
            progress |= s.offer(candidate);
        }
        // Unreferenced descriptor entries, then simpler descriptors.
        progress |= descriptors(&mut s);
        // Float uniforms → 0.0, then components → 0.0 / 1.0.
        progress |= s.chunks(96, &|c, i| {
            let changed = c.case.uniforms.f[i].iter().any(|x| x.to_bits() != 0);
            c.case.uniforms.f[i] = [0.0; 4];
            changed
        });
        for value in [0.0f32, 1.0] {
            progress |= s.chunks(96 * 4, &|c, i| {
                simplify_float(&mut c.case.uniforms.f[i / 4][i % 4], value)
            });
        }
        // Int and bool uniforms.
        progress |= s.chunks(4, &|c, i| {
            let changed = c.case.uniforms.i[i] != [0; 4];
            c.case.uniforms.i[i] = [0; 4];
            changed
        });
        progress |= s.chunks(16, &|c, i| {
            let changed = c.case.uniforms.b >> i & 1 != 0;
            c.case.uniforms.b &= !(1 << i);
            changed
        });
        // Inputs: a register in every vertex, then single components.
        progress |= s.chunks(16, &|c, r| {
            let mut changed = false;
            for v in c.case.inputs.iter_mut() {
                changed |= v[r].iter().any(|x| x.to_bits() != 0);
                v[r] = [0.0; 4];
            }
            changed
        });
        let n = s.best.case.inputs.len();
        for value in [0.0f32, 1.0] {
            progress |= s.chunks(n * 64, &|c, i| {
                simplify_float(&mut c.case.inputs[i / 64][i % 64 / 4][i % 4], value)
            });
        }
        if !progress || s.exhausted() {
            break;
        }
    }
    Minimized {
        case: s.best,
        tries: s.tries,
        accepted: s.accepted,
    }
}

/// Descriptor indices the code refers to.
fn used_descs(code: &[u32]) -> Vec<usize> {
    let mut used: Vec<usize> = code
        .iter()
        .filter_map(|&w| Instruction::decode(w).alu())
        .map(|a| usize::from(a.desc))
        .collect();
    used.sort_unstable();
    used.dedup();
    used
}

fn descriptors(s: &mut Search) -> bool {
    let mut progress = false;
    let used = used_descs(&s.best.case.code);
    // Entries no instruction refers to → 0, and the table cut after the last used one.
    let n = s.best.case.descs.len();
    progress |= s.chunks(n, &|c, i| {
        let changed = !used.contains(&i) && c.case.descs[i] != 0;
        if changed {
            c.case.descs[i] = 0;
        }
        changed
    });
    let keep = used.last().map_or(0, |&i| i + 1);
    if keep < s.best.case.descs.len() {
        let mut candidate = s.best.clone();
        candidate.case.descs.truncate(keep);
        progress |= s.offer(candidate);
    }
    let n = s.best.case.descs.len();
    // Per entry and source: no negation, identity swizzle; then no stray bit 31.
    progress |= s.chunks(n * 3, &|c, i| {
        let (entry, src) = (i / 3, i % 3);
        if !used.contains(&entry) {
            return false;
        }
        let d = OpDesc(c.case.descs[entry]);
        let mut srcs = d.srcs();
        if srcs[src] == SrcMod::IDENTITY {
            return false;
        }
        srcs[src] = SrcMod::IDENTITY;
        c.case.descs[entry] = OpDesc::new(d.mask(), srcs).0 | d.0 & 1 << 31;
        true
    });
    progress |= s.chunks(n, &|c, i| {
        let changed = c.case.descs[i] >> 31 != 0;
        c.case.descs[i] &= !(1 << 31);
        changed
    });
    progress
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::{generate, Config};

    #[test]
    fn reduces_to_what_the_predicate_needs() {
        let cfg = Config::default();
        let case = (0..)
            .map(|s| generate(s, &cfg))
            .find(|c| {
                c.case.inputs.len() > 4
                    && c.case.code.len() > 10
                    && c.case.inputs[2][1][0].to_bits() != 0
            })
            .unwrap();
        let target = case.case.code[3];
        let v = case.case.inputs[2][1][0].to_bits();
        // "Fails" while word 3 is kept and some vertex has v1.x as vertex 2 had it.
        let mut fails = |c: &FuzzCase| {
            c.case.code.get(3) == Some(&target)
                && c.case.inputs.iter().any(|i| i[1][0].to_bits() == v)
        };
        let m = minimize(&case, 100_000, &mut fails);
        assert!(fails(&m.case));
        assert_eq!(m.case.case.inputs.len(), 1);
        let live: Vec<usize> = (0..m.case.case.code.len())
            .filter(|&i| m.case.case.code[i] != nop_word())
            .collect();
        assert_eq!(live, vec![3], "{:x?}", m.case.case.code);
        assert!(m
            .case
            .case
            .uniforms
            .f
            .iter()
            .flatten()
            .all(|x| x.to_bits() == 0));
        assert_eq!(m.case.case.uniforms.b, 0);
        let nonzero = m.case.case.inputs[0]
            .iter()
            .flatten()
            .filter(|x| x.to_bits() != 0)
            .count();
        assert_eq!(nonzero, 1);
    }

    #[test]
    fn stops_at_the_try_budget() {
        let cfg = Config::default();
        let case = generate(7, &cfg);
        let mut calls = 0;
        let mut fails = |_: &FuzzCase| {
            calls += 1;
            false
        };
        let m = minimize(&case, 25, &mut fails);
        assert_eq!(m.tries, 25);
        assert!(m.case.same_as(&case));
    }
}
