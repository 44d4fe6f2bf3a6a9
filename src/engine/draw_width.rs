//! How wide an engine's draw kernels are ([`DrawWidth`]): the target a shader's draw kernels
//! are compiled for, which for an AVX-512 engine may be the AVX2 tier while its runs stay at
//! 16 lanes, and the host fact that picks it (a CPU that splits 512-bit operations).
//!
//! Why: a draw kernel assembles each input row from 16-byte attribute loads and stores each
//! output vertex as 16-byte parts, so its I/O is moves between 128-bit segments. Where the CPU
//! executes a 512-bit operation as two 256-bit halves (AMD family 19h, Zen 4), `vinsertf32x4`
//! from memory, the zmm transposes and the arithmetic each cost two 256-bit operations: the
//! arithmetic per vertex is the same at either width, but the row assembly takes three zmm
//! inserts per 4 × 4 vertices where AVX2 takes two ymm ones at twice their rate, and the
//! AVX2 draw kernel is the faster one. CPUs with full-width 512-bit units keep 16-lane draws.

use super::backend::Target;
use picajit_codegen::x64::Tier;

/// The width of an engine's draw kernels ([`super::Engine::with_draw_width`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DrawWidth {
    /// [`DrawWidth::Avx2`] for an AVX-512 engine on a CPU that executes 512-bit operations as
    /// two 256-bit halves (AMD family 19h, Zen 4), else [`DrawWidth::Full`].
    #[default]
    Auto,
    /// The engine's own target: an AVX-512 engine draws 16 vertices per batch.
    Full,
    /// An AVX-512 engine draws with AVX2 kernels, 8 vertices per batch (every other engine at
    /// its own width: a narrower engine never widens).
    Avx2,
}

impl DrawWidth {
    /// The target of the draw kernels of an engine of `target` on this host.
    pub(super) fn target(self, target: Target) -> Target {
        self.target_on(target, split_512())
    }

    /// The target of the draw kernels of an engine of `target` on a host whose 512-bit
    /// operations are `split` in two 256-bit halves.
    fn target_on(self, target: Target, split: bool) -> Target {
        match (target, self) {
            (Target::X64(Tier::Avx512), DrawWidth::Avx2) => Target::X64(Tier::Avx2),
            (Target::X64(Tier::Avx512), DrawWidth::Auto) if split => Target::X64(Tier::Avx2),
            (Target::X64(Tier::Avx512), DrawWidth::Auto | DrawWidth::Full)
            | (Target::X64(Tier::Sse41 | Tier::Avx2) | Target::Aarch64, _) => target,
        }
    }
}

/// True if this CPU executes 512-bit vector operations as two 256-bit halves: AMD family 19h
/// (Zen 4, the first AMD cores with AVX-512). Decided once per process.
fn split_512() -> bool {
    static SPLIT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SPLIT.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            amd_family() == Some(0x19)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// The CPU family (base plus extended) if the vendor is AMD.
#[cfg(target_arch = "x86_64")]
fn amd_family() -> Option<u32> {
    use std::arch::x86_64::__cpuid;
    // CPUID is safe to execute on every x86-64 CPU; the intrinsic is a safe function since
    // Rust 1.89 and an unsafe one before (the crate's minimum is older).
    #[allow(unused_unsafe)]
    // SAFETY: every x86-64 CPU has CPUID, and leaves 0 and 1 always exist.
    let (vendor, signature) = unsafe { (__cpuid(0), __cpuid(1).eax) };
    let amd = [vendor.ebx, vendor.edx, vendor.ecx] == [0x6874_7541, 0x6974_6E65, 0x444D_4163];
    let family = (signature >> 8 & 0xF) + (signature >> 20 & 0xFF);
    amd.then_some(family)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Target; 4] = [
        Target::X64(Tier::Sse41),
        Target::X64(Tier::Avx2),
        Target::X64(Tier::Avx512),
        Target::Aarch64,
    ];

    #[test]
    fn only_avx512_engines_narrow_their_draws() {
        let avx512 = Target::X64(Tier::Avx512);
        let avx2 = Target::X64(Tier::Avx2);
        for split in [false, true] {
            for t in ALL {
                assert_eq!(DrawWidth::Full.target_on(t, split), t);
                let narrow = if t == avx512 { avx2 } else { t };
                assert_eq!(DrawWidth::Avx2.target_on(t, split), narrow);
                let auto = if split { narrow } else { t };
                assert_eq!(DrawWidth::Auto.target_on(t, split), auto);
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_host_fact_is_amd_family_19h() {
        let family = amd_family();
        assert_eq!(split_512(), family == Some(0x19));
        // The vendor test reads the string CPUID returns: "AuthenticAMD" iff AMD.
        #[allow(unused_unsafe)]
        // SAFETY: every x86-64 CPU has CPUID, and leaf 0 always exists.
        let v = unsafe { std::arch::x86_64::__cpuid(0) };
        let bytes: Vec<u8> = [v.ebx, v.edx, v.ecx]
            .iter()
            .flat_map(|r| r.to_le_bytes())
            .collect();
        assert_eq!(family.is_some(), bytes == b"AuthenticAMD");
    }
}
