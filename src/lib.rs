//! # picajit
//!
//! Runs Nintendo 3DS PICA200 vertex and geometry shaders: a JIT that recompiles shader
//! bytecode into x86-64 (SSE4.1, AVX2) or AArch64 NEON code for batches of vertices, and a
//! reference interpreter — the executable form of the project's semantics — that every
//! backend matches bit for bit. Also a picasso-compatible assembler and disassembler, SHBIN
//! reading and writing, and PCAS/PCOU case files.
//!
//! ```
//! use picajit::asm::{assemble, Source};
//! use picajit::engine::{Backend, Engine};
//! use picajit::program::VertexStatus;
//! use picajit::Uniforms;
//!
//! // A vertex shader in picasso's language (or read a .shbin with `Shbin::parse`).
//! let text = "
//!     .fvec scale
//!     .out pos position
//!     .proc main
//!         mul pos, scale, v0
//!         end
//!     .end";
//! let (shbin, _warnings) = assemble(&[Source::new("scale.v.pica", text)]).expect("assembles");
//! let program = shbin.program(0)?; // DVLE 0: code, operand descriptors, entry, kind
//! let dvle = shbin.dvle(0)?;
//!
//! // Uniforms by name: indices into `Uniforms::f` (c0 is index 0).
//! let mut uniforms = Uniforms::default();
//! dvle.apply_constants(&mut uniforms); // .constf/.consti/.setb values
//! let scale = dvle.float_uniform("scale").expect("declared");
//! uniforms.f[scale][0] = [2.0, 3.0, 4.0, 5.0];
//!
//! // The best JIT this host has; shaders are compiled once and cached.
//! let engine = Engine::new(Backend::Auto)?;
//! let shader = engine.compile(&program);
//!
//! // Per vertex: 16 input registers (v0..v15) in, 16 output registers (o0..o15) out.
//! let inputs = vec![[[1.0f32, 1.0, 1.0, 1.0]; 16]; 100];
//! let mut outputs = vec![[[0.0f32; 4]; 16]; inputs.len()];
//! let mut status = vec![VertexStatus::Ended; inputs.len()];
//! shader.run(&uniforms, &inputs, &mut outputs, &mut status)?;
//! assert_eq!(outputs[99][0], [2.0, 3.0, 4.0, 5.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Output buffers.** Every batch run (`Shader::run`, `run_par`, `run_soa`,
//! `Interpreter::run`, `run_par`) stores exactly the output registers the program can write
//! ([`Program::outputs_written`]) — 0.0 in a vertex that did not write one — and leaves the
//! others as the buffer held them: start from zeroed buffers to read 0.0 there.
//!
//! An emulator's draw loop, from the register writes of a command list to output vertices in
//! the rasterizer's semantic order ([`pica`] keeps the registers, [`pipeline`] draws):
//!
//! ```
//! use std::sync::Arc;
//! use picajit::engine::{Backend, Engine};
//! use picajit::pica::program_commands;
//! use picajit::pipeline::{Attribute, DrawOutput, Indices, Pipeline};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let engine = Arc::new(Engine::new(Backend::Auto)?); // the best JIT of this host
//! let mut gpu = Pipeline::new(engine);
//!
//! // The game's command list: a shader upload (what libctru's shaderProgramUse writes for a
//! // SHBIN: code, descriptors, constants, entry point, output map)…
//! let source = include_str!("../examples/shaders/mvp.v.pica");
//! let (shbin, _) = picajit::asm::assemble(&[picajit::asm::Source::new("mvp.v.pica", source)])
//!     .map_err(|d| format!("{d:?}"))?;
//! for w in program_commands(&shbin, 0)? {
//!     gpu.write(w.reg, w.value, w.mask);
//! }
//! // …the input layout (two attributes, into v0 and v1)…
//! gpu.write(0x2B9, 0xA000_0001, 0xF); // VSH_INPUTBUFFER_CONFIG
//! gpu.write(0x2BB, 0x0000_0010, 0xF); // VSH_ATTRIBUTES_PERMUTATION_LOW
//! // …and the uniforms: the matrix in c0–c3, float32 mode (index, then w, z, y, x).
//! gpu.write(0x2C0, 0x8000_0000, 0xF);
//! for row in [[2.0f32, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]] {
//!     for c in (0..4).rev() {
//!         gpu.write(0x2C1, row[c].to_bits(), 0xF);
//!     }
//! }
//!
//! // A draw call: attributes as the vertex loader converted them, an index list.
//! let positions = [-1.0f32, -1.0, 0.0, 1.0, -1.0, 0.0, -1.0, 1.0, 0.0, 1.0, 1.0, 0.0];
//! let colors = [1.0f32, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, -3.0, 1.0, 1.0, 1.0];
//! let attributes = [Attribute::packed(&positions, 3), Attribute::packed(&colors, 4)];
//! let mut out = DrawOutput::new(); // reused from draw to draw
//! gpu.draw(Indices::U16(&[0, 1, 2, 2, 1, 3]), &attributes, &mut out)?;
//!
//! // The vertex shader ran once per vertex of the list's range (0–3: a dense list); the index
//! // list refers to the results.
//! assert_eq!(out.vertices().len(), 4);
//! assert_eq!(out.indices(), [0, 1, 2, 2, 1, 3]);
//! assert_eq!(out.vertices()[3].position(), [2.0, 2.0, 0.0, 1.0]);
//! assert_eq!(out.vertices()[3].color(), [1.0, 1.0, 1.0, 1.0]); // min(|c|, 1)
//! # Ok(())
//! # }
//! ```
//!
//! ```text
//!  .pica text ──asm──▶ SHBIN bytes ──shbin──▶ Program { code[4096], descs[128], entry, tables }
//!                                                  │
//!                 ┌────────────────────────────────┴───────────────────────┐
//!                 ▼                                                        ▼
//!     interp: executable spec                        frontend ─▶ picajit-codegen IR ─▶ x64 / aarch64
//!     (decoded instructions, no IR)                                         │
//!                 ▼                                                        ▼
//!            same outputs, bit for bit  ◀──────── differential tests ── compiled shader
//! ```
//!
//! Modules:
//! - [`engine`]: [`Engine`](engine::Engine) (backend choice, compile cache) and
//!   [`Shader`](engine::Shader) (AoS, SoA, parallel and geometry runs).
//! - [`program`]: [`Program`] (code memory, descriptors, entry, kind), [`Uniforms`], vertex
//!   registers and statuses.
//! - [`shbin`]: DVLB/DVLP/DVLE read and write; uniforms, outputs and constants of a DVLE.
//! - [`asm`]: the picasso-compatible assembler and the disassembler.
//! - [`agal`]: Adobe's Stage3D AGAL: opcode table, tokens, validator, assembler and
//!   disassembler, reference interpreter, case files.
//! - [`interp`]: the reference interpreter and its batch API; its module docs state the rules
//!   every engine follows.
//! - [`case`]: PCAS/PCOU case files.
//! - [`synthetic`]: seeded straight-line and branchy programs of any size (compile benches).
//! - [`pica`]: the shader units as GPU registers (register writes with byte masks, uploads,
//!   attribute permutation, output map, geometry-stage configuration).
//! - [`pipeline`]: draws — unique vertices of an index list through the vertex (and geometry)
//!   shader to output vertices in semantic order.
//! - [`isa`]: the PICA200 opcode table, typed decode/encode of every format, operand
//!   descriptors.
//! - [`float`]: the PICA float rules (`pmul`, MIN/MAX, RCP/RSQ, EX2/LG2, float24).
//! - [`codegen`]: the `picajit-codegen` crate (IR, register allocation, backends), for the
//!   types that appear in [`engine`] signatures.
//!
//! Cargo features (all on by default): `cli` (the `picajit` command), `bench` (`jit-bench`),
//! `fuzz` (the differential fuzzer), `dump` (native code as text). With
//! `default-features = false` only what running shaders needs is built.

pub mod agal;
pub mod asm;
pub mod case;
pub mod engine;
pub mod float;
#[doc(hidden)]
pub mod frontend;
#[cfg(feature = "fuzz")]
#[doc(hidden)]
pub mod fuzz;
pub mod interp;
pub mod isa;
pub mod pica;
pub mod pipeline;
pub mod program;
pub mod shbin;
pub mod synthetic;

pub use picajit_codegen as codegen;
pub use program::{Program, Uniforms};
pub use shbin::Shbin;
