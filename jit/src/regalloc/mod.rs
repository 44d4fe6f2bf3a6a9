//! Register allocation.
