//! Unit tests of the AGAL modules, one file per concern.

mod asm;
mod codec;
mod roundtrip;
mod validate;
