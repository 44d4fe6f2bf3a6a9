//! Uniform and constant register allocation, as picasso does it. Each register file is a pool:
//! uniforms (`.fvec`, `.ivec`, `.bool`) grow upward from the bottom and are never freed;
//! constants (`.constf`, `.consti`, `.constfa`) grow downward from the top and are freed at the
//! start of every file. A uniform may never reach the lowest register any constant has ever
//! taken (the bound is never reset), and a constant may not reach the uniforms.
//!
//! Vertex shaders and legacy geometry shaders share one set of pools for the whole link;
//! geometry shaders that name a mode (`.gsh point c8`) get a fresh set whose float pool starts
//! at the given register and whose bool pool stops below b15.

/// Uniform kinds, numbered as the DVLE constant table numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Bool = 0,
    Int = 1,
    Float = 2,
}

/// One register pool, in picasso's internal codes (c0 = 0x20, i0 = 0x80, b0 = 0x88).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pool {
    start: u32,
    end: u32,
    bound: u32,
    top: u32,
}

impl Pool {
    pub fn new(start: u32, end: u32) -> Pool {
        Pool {
            start,
            end,
            bound: end,
            top: end,
        }
    }

    /// Frees every constant (start of a new file).
    pub fn clear_local(&mut self) {
        self.end = self.top;
    }

    /// `size` registers from the bottom.
    pub fn global(&mut self, size: u32) -> Option<u32> {
        if self.start + size > self.bound {
            return None;
        }
        let at = self.start;
        self.start += size;
        Some(at)
    }

    /// `size` registers from the top.
    pub fn local(&mut self, size: u32) -> Option<u32> {
        let at = self.end.checked_sub(size)?;
        if at < self.start {
            return None;
        }
        self.bound = self.bound.min(at);
        self.end = at;
        Some(at)
    }
}

/// The three pools of one uniform space.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pools {
    pub float: Pool,
    pub int: Pool,
    pub bool: Pool,
}

impl Pools {
    /// The shared vertex-shader space: c0–c95, i0–i3, b0–b15.
    pub fn shared() -> Pools {
        Pools {
            float: Pool::new(0x20, 0x80),
            int: Pool::new(0x80, 0x84),
            bool: Pool::new(0x88, 0x98),
        }
    }

    /// A geometry shader's own space: floats from `first_float` (a code), b0–b14.
    pub fn geometry(first_float: u32) -> Pools {
        Pools {
            float: Pool::new(first_float, 0x80),
            int: Pool::new(0x80, 0x84),
            bool: Pool::new(0x88, 0x97),
        }
    }

    pub fn clear_local(&mut self) {
        self.float.clear_local();
        self.int.clear_local();
        self.bool.clear_local();
    }

    pub fn pool(&mut self, kind: Kind) -> &mut Pool {
        match kind {
            Kind::Float => &mut self.float,
            Kind::Int => &mut self.int,
            Kind::Bool => &mut self.bool,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globals_up_locals_down() {
        let mut p = Pool::new(0x20, 0x80);
        assert_eq!(p.global(4), Some(0x20));
        assert_eq!(p.local(1), Some(0x7F));
        assert_eq!(p.local(2), Some(0x7D));
        p.clear_local();
        assert_eq!(p.local(1), Some(0x7F));
        // The bound stays at the lowest constant ever (0x7D): 0x24 + 0x59 = 0x7D fits, one more
        // does not.
        assert_eq!(p.global(0x5A), None);
        assert_eq!(p.global(0x59), Some(0x24));
        assert_eq!(p.local(3), None);
    }
}
