//! Draws through draw kernels: the vertex shader's kernel in the draw I/O mode, which loads
//! each input register from its attribute array through the draw's unique-vertex indices (or
//! steps through a range of consecutive vertices) and
//! stores output vertices in semantic order (`picajit_codegen::x64::DrawLayout`). One kernel
//! per vertex layout is kept beside each AoS kernel ([`super::kernels::Kernels::draw`]).

pub(crate) use picajit_codegen::code::DrawVertices;
use picajit_codegen::code::{DrawInput, SemanticVertex};
use picajit_codegen::x64::{DrawLayout, IoMode};

use super::kernels::{DrawKernel, Exec, MachineCode};
use super::shader::with_context;
use super::Shader;
use crate::program::Uniforms;
use std::sync::Arc;

impl Shader {
    /// Runs the draw kernel for `layout` over `vertices` (a whole number of batches of
    /// [`Shader::lanes`]; callers pad), writing `output[j]` for vertex j and one status word
    /// per batch into `words` (bit l: lane l exhausted its step budget). `inputs[r]` must
    /// hold the attribute of every vertex and every register the layout loads (checked: a
    /// short array panics).
    ///
    /// `None` when this shader has no draw kernel for `layout` — the interpreter, a target
    /// whose kernel could not run (the qemu job server failed), a geometry shader, a function
    /// that cannot be compiled so, or too
    /// many layouts: the caller takes the record path. The kernels are those a run with these
    /// uniforms takes (the uniform-specialized variant once it is compiled). With background
    /// compiling (the engine's default) a draw kernel not compiled yet is compiled on the
    /// rayon pool while the generic function's draw kernel serves, or, if that is not
    /// compiled either, the record path: a layout's first draw never waits for a compile —
    /// except while only draws have used the shader ([`super::Engine::compile_for_draw`]):
    /// its generic AoS kernel is not compiled either, so the generic draw kernel is compiled
    /// now, on this thread, in its place.
    pub(crate) fn run_draw(
        &self,
        uniforms: &Uniforms,
        layout: &DrawLayout,
        vertices: DrawVertices<'_>,
        inputs: &[Option<DrawInput<'_>>; 16],
        output: &mut [SemanticVertex],
        words: &mut Vec<u32>,
    ) -> Option<()> {
        let Exec::Native(native) = &self.exec else {
            return None;
        };
        if native.geometry {
            return None;
        }
        let kernels = native.kernels(uniforms);
        let (target, counters) = (native.target, &native.counters);
        let code = if !native.background {
            kernels.draw(layout, target, counters)?
        } else if Arc::ptr_eq(&kernels, &native.generic) && !kernels.aos_tried() {
            // Only draws used this shader so far: the record path has no AoS kernel either,
            // so this thread compiles the draw kernel, one compile where the record path
            // would need the AoS kernel's.
            kernels.draw(layout, target, counters)?
        } else {
            match kernels.draw_ready(layout, target, counters) {
                DrawKernel::Ready(code) => code,
                DrawKernel::Unavailable => return None,
                DrawKernel::Compiling => {
                    match native.generic.draw_ready(layout, target, counters) {
                        DrawKernel::Ready(code) => code,
                        DrawKernel::Compiling | DrawKernel::Unavailable => return None,
                    }
                }
            }
        };
        let w = native.target.lanes();
        words.clear();
        words.resize(vertices.len() / w, 0);
        with_context(|ctx| {
            self.load_uniforms(ctx, uniforms, &native.rows);
            code.run_draw(ctx, vertices, inputs, output, words)
        })
        .ok()
        .map(|_| ())
    }

    /// The machine code of the draw kernel a draw with `layout` and these uniforms runs,
    /// compiled now and not kept (for dumps); `None` for the interpreter or a geometry
    /// shader, an error if no draw kernel can be built for this function and layout.
    pub(crate) fn draw_machine_code(
        &self,
        uniforms: &Uniforms,
        layout: &DrawLayout,
    ) -> Option<Result<MachineCode, String>> {
        let Exec::Native(native) = &self.exec else {
            return None;
        };
        if native.geometry {
            return None;
        }
        let kernels = native.kernels_for(uniforms, true);
        Some(MachineCode::compile(
            &kernels.func,
            native.target,
            IoMode::Draw(*layout),
        ))
    }

    /// Compiles, on this thread, the draw kernel a draw with `layout` and these uniforms runs
    /// (that of the uniform-specialized variant, compiled now too if needed); nothing for the
    /// interpreter or a geometry shader.
    pub(crate) fn prepare_draw(&self, uniforms: &Uniforms, layout: &DrawLayout) {
        let Exec::Native(native) = &self.exec else {
            return;
        };
        if native.geometry {
            return;
        }
        let kernels = native.kernels_for(uniforms, true);
        let _ = kernels.draw(layout, native.target, &native.counters);
    }
}
