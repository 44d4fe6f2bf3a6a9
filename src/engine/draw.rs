//! Draws through draw kernels: the vertex shader's kernel in the draw I/O mode, which loads
//! each input register from its attribute array through the draw's unique-vertex indices (or
//! steps through a range of consecutive vertices) and
//! stores output vertices in semantic order (`picajit_codegen::x64::DrawLayout`). One kernel
//! per vertex layout is kept beside each AoS kernel ([`super::kernels::Kernels::draw`]), and
//! each draw site (a pipeline's kept layout) remembers the kernel it ran last ([`DrawMemo`]).

pub(crate) use picajit_codegen::code::DrawVertices;
use picajit_codegen::code::{DrawInput, SemanticVertex};
use picajit_codegen::x64::{DrawLayout, IoMode};

use super::kernels::{Code, DrawKernel, Exec, Kernels, MachineCode, Native};
use super::shader::with_context;
use super::Shader;
use crate::program::Uniforms;
use std::sync::{Arc, Weak};

/// The draw kernel a draw site (one of a pipeline's kept layouts, indexed or stepped) ran
/// last, and the kernels it is one of: a later draw from the site whose uniforms pick the
/// same kernels runs it at once, without looking its layout up among theirs. It holds the
/// kernel's code but not the kernels: those are told apart by address, which the weak
/// reference keeps from being reused.
#[derive(Debug, Default)]
pub(crate) struct DrawMemo(Option<(Weak<Kernels>, Arc<Code>)>);

impl DrawMemo {
    /// The kept code if it is `kernels`' own.
    fn code_of(&self, kernels: &Arc<Kernels>) -> Option<Arc<Code>> {
        let (of, code) = self.0.as_ref()?;
        std::ptr::eq(of.as_ptr(), Arc::as_ptr(kernels)).then(|| Arc::clone(code))
    }
}

/// Which draw kernel a draw runs: its layout, and the memo of the site it is drawn from.
pub(crate) struct DrawSite<'a> {
    pub(crate) layout: &'a DrawLayout,
    pub(crate) memo: &'a mut DrawMemo,
}

impl Shader {
    /// Runs the draw kernel for `site.layout` over `vertices` (a whole number of batches of
    /// [`Shader::draw_lanes`]; callers pad), writing `output[j]` for vertex j and one status word
    /// per batch into `words` (bit l: lane l exhausted its step budget). `inputs[r]` must
    /// hold the attribute of every vertex and every register the layout loads (checked: a
    /// short array panics).
    ///
    /// `None` when this shader has no draw kernel for the layout — the interpreter, a target
    /// whose kernel could not run (the qemu job server failed), a geometry shader, a function
    /// that cannot be compiled so, or too
    /// many layouts: the caller takes the record path. The kernels are those a run with these
    /// uniforms takes (the uniform-specialized variant once it is compiled). With background
    /// compiling (the engine's default) a draw kernel not compiled yet is compiled on the
    /// rayon pool while the generic function's draw kernel serves, or, if that is not
    /// compiled either, the record path: a layout's first draw never waits for a compile —
    /// except while only draws have used the shader ([`super::Engine::compile_for_draw`]):
    /// its generic AoS kernel is not compiled either, so the generic draw kernel is compiled
    /// now, on this thread, in its place. `site.memo` keeps the kernel run when it is the
    /// chosen kernels' own, for the site's next draw.
    pub(crate) fn run_draw(
        &self,
        uniforms: &Uniforms,
        site: DrawSite<'_>,
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
        let code = match site.memo.code_of(&kernels) {
            Some(code) => code,
            None => {
                let (code, own) = draw_code(native, &kernels, site.layout)?;
                if own {
                    *site.memo = DrawMemo(Some((Arc::downgrade(&kernels), Arc::clone(&code))));
                }
                code
            }
        };
        let w = native.draw_target.lanes();
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
            native.draw_target,
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
        let _ = kernels.draw(layout, native.draw_target, &native.counters);
    }
}

/// The draw kernel for `layout` a draw with `kernels` (the kernels its uniforms pick) runs
/// ([`Shader::run_draw`]), and whether it is `kernels`' own rather than the generic
/// function's standing in while theirs compiles; `None` for the record path.
fn draw_code(
    native: &Native,
    kernels: &Arc<Kernels>,
    layout: &DrawLayout,
) -> Option<(Arc<Code>, bool)> {
    let (target, counters) = (native.draw_target, &native.counters);
    if !native.background {
        return Some((kernels.draw(layout, target, counters)?, true));
    }
    if Arc::ptr_eq(kernels, &native.generic) && !kernels.aos_tried() {
        // Only draws used this shader so far: the record path has no AoS kernel either,
        // so this thread compiles the draw kernel, one compile where the record path
        // would need the AoS kernel's.
        return Some((kernels.draw(layout, target, counters)?, true));
    }
    match kernels.draw_ready(layout, target, counters) {
        DrawKernel::Ready(code) => Some((code, true)),
        DrawKernel::Unavailable => None,
        DrawKernel::Compiling => match native.generic.draw_ready(layout, target, counters) {
            DrawKernel::Ready(code) => Some((code, false)),
            DrawKernel::Compiling | DrawKernel::Unavailable => None,
        },
    }
}
