//! Seeded random uniforms and inputs for `picajit run FILE.shbin`: values in [-2, 2) with a
//! sprinkling of exact small integers, loop counters small enough to finish quickly, and the
//! DVLE's own constants applied on top (as the homebrew runtime does when it binds a shader).

use picajit::program::{Regs16, Uniforms};

/// Random uniforms for a run (before the DVLE constants are applied).
pub fn random_uniforms(rng: &mut fastrand::Rng) -> Uniforms {
    let mut u = Uniforms::default();
    for c in u.f.iter_mut() {
        *c = random_vec4(rng);
    }
    for i in u.i.iter_mut() {
        *i = [rng.u8(0..4), rng.u8(0..8), rng.u8(0..3), 0];
    }
    u.b = rng.u16(..);
    u
}

/// Random inputs v0..v15 for `n` vertices.
pub fn random_inputs(rng: &mut fastrand::Rng, n: usize) -> Vec<Regs16> {
    (0..n)
        .map(|_| std::array::from_fn(|_| random_vec4(rng)))
        .collect()
}

fn random_vec4(rng: &mut fastrand::Rng) -> [f32; 4] {
    std::array::from_fn(|_| {
        if rng.u8(0..8) == 0 {
            f32::from(rng.i8(-2..3))
        } else {
            rng.f32() * 4.0 - 2.0
        }
    })
}
