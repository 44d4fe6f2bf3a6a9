//! Host-neutral passes.
