//! x86-64 backend.
