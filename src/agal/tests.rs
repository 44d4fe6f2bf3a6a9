//! Unit tests of the AGAL modules, one file per concern.

mod asm;
mod codec;
mod interp;
mod roundtrip;
mod validate;
