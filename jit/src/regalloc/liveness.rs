//! Liveness of variables per block (backward dataflow to a fixed point over bit sets).

use crate::ir::{BlockId, Function, Var};

/// Live-in and live-out sets per block.
#[derive(Clone, Debug)]
pub struct Liveness {
    words: usize,
    live_in: Vec<Vec<u64>>,
    live_out: Vec<Vec<u64>>,
}

fn members(set: &[u64]) -> impl Iterator<Item = Var> + '_ {
    set.iter().enumerate().flat_map(|(w, &bits)| {
        (0..64)
            .filter(move |b| bits >> b & 1 != 0)
            .map(move |b| Var((w * 64 + b) as u32))
    })
}

impl Liveness {
    /// Computes liveness for every block of `func`.
    pub fn compute(func: &Function) -> Liveness {
        let n = func.blocks.len();
        let words = func.vars.len().div_ceil(64);
        let set = |s: &mut Vec<u64>, v: Var| s[v.0 as usize / 64] |= 1 << (v.0 % 64);
        let clear = |s: &mut Vec<u64>, v: Var| s[v.0 as usize / 64] &= !(1 << (v.0 % 64));
        // Per block: variables read before written (gen) and written (kill).
        let mut gen = vec![vec![0u64; words]; n];
        let mut kill = vec![vec![0u64; words]; n];
        for (b, block) in func.blocks.iter().enumerate() {
            let (g, k) = (&mut gen[b], &mut kill[b]);
            if let Some(u) = block.term.uses() {
                set(g, u);
            }
            for inst in block.insts.iter().rev() {
                if let Some(d) = inst.dst {
                    clear(g, d);
                    set(k, d);
                }
                for &u in inst.uses() {
                    set(g, u);
                }
            }
        }
        let mut live_in = vec![vec![0u64; words]; n];
        let mut live_out = vec![vec![0u64; words]; n];
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..n).rev() {
                let mut out = vec![0u64; words];
                for s in func.blocks[b].term.successors() {
                    for (o, i) in out.iter_mut().zip(&live_in[s.0 as usize]) {
                        *o |= i;
                    }
                }
                let inn: Vec<u64> = (0..words)
                    .map(|w| gen[b][w] | (out[w] & !kill[b][w]))
                    .collect();
                if inn != live_in[b] || out != live_out[b] {
                    live_in[b] = inn;
                    live_out[b] = out;
                    changed = true;
                }
            }
        }
        Liveness {
            words,
            live_in,
            live_out,
        }
    }

    /// Variables live on entry to `b`.
    pub fn live_in(&self, b: BlockId) -> impl Iterator<Item = Var> + '_ {
        members(&self.live_in[b.0 as usize])
    }

    /// Variables live on exit from `b`.
    pub fn live_out(&self, b: BlockId) -> impl Iterator<Item = Var> + '_ {
        members(&self.live_out[b.0 as usize])
    }

    /// Number of 64-bit words per set.
    pub fn words(&self) -> usize {
        self.words
    }
}
