//! Unit tests of the AGAL modules, one file per concern.

mod codec;
