//! Executable memory.
