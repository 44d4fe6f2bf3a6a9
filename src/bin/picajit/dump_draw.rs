//! `picajit dump --draw`: the draw kernels an emulator's draw of a SHBIN's vertex shader runs
//! (`picajit::pipeline`): the DVLE loaded by register writes (its output map included),
//! attribute k in v_k, each a 4-component float array of its own with the stride asked for;
//! the indexed kernel and the stepped one (ranges and dense lists), as native code.

use picajit::engine::{DrawWidth, Engine};
use picajit::pica::{program_commands, FloatMode, Unit};
use picajit::pipeline::{Attribute, Pipeline};
use picajit::program::Uniforms;
use picajit::shbin::Shbin;

use crate::CliResult;

/// `--draw-width`: [`DrawWidth`] on the command line.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Width {
    /// What a draw runs ([`DrawWidth::Auto`]).
    Auto,
    /// The backend's own width.
    Full,
    /// AVX2 kernels for AVX-512.
    Avx2,
}

impl From<Width> for DrawWidth {
    fn from(w: Width) -> DrawWidth {
        match w {
            Width::Auto => DrawWidth::Auto,
            Width::Full => DrawWidth::Full,
            Width::Avx2 => DrawWidth::Avx2,
        }
    }
}

/// Prints the draw kernels of `shbin`'s DVLE `dvle` on `engine`: size, then (with `asm`)
/// the code. `uniforms`: the run's uniforms (they pick the uniform-specialized function), or
/// the DVLE's constants alone.
pub fn draw_kernels(
    engine: Engine,
    shbin: &Shbin,
    dvle: usize,
    uniforms: Option<&Uniforms>,
    stride: usize,
    asm: bool,
) -> CliResult {
    let mut p = Pipeline::new(std::sync::Arc::new(engine));
    for c in program_commands(shbin, dvle).map_err(|e| e.to_string())? {
        p.write(c.reg, c.value, c.mask);
    }
    if let Some(u) = uniforms {
        p.regs_mut()
            .upload_floats(Unit::Vertex, 0, FloatMode::F32, &u.f);
    }
    let read = p
        .engine()
        .compile(&p.regs().program(Unit::Vertex))
        .inputs_read();
    // Attributes up to the highest input register read (at least one).
    let count = (16 - read.leading_zeros() as usize).max(1);
    let regs = p.regs_mut();
    regs.set_input_attributes(Unit::Vertex, count as u8, false);
    regs.set_permutation(Unit::Vertex, std::array::from_fn(|k| k as u8));
    let data = vec![0.0f32; stride.max(4)];
    let attributes: Vec<Attribute> = (0..count)
        .map(|_| Attribute::Array {
            data: &data,
            offset: 0,
            stride,
            components: 4,
        })
        .collect();
    let kernels = p
        .draw_machine_code(&attributes)
        .map_err(|e| e.to_string())?;
    if kernels.is_empty() {
        outln!("draw kernels: none (the interpreter, or a geometry shader)");
    }
    for (name, code) in kernels {
        match code {
            Ok(code) => {
                outln!(
                    "draw kernel, {name} ({count} attributes of 4 floats, stride {stride} floats): \
                     {}",
                    crate::dump::native_summary(&code)
                );
                if asm {
                    out!("{}", code.disassemble());
                }
            }
            Err(e) => outln!("draw kernel, {name}: cannot be built: {e}"),
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}
