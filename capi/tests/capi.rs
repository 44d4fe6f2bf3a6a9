//! The C API: the C and C++ examples build with the system compilers and print what the Rust
//! API computes; misuse (null pointers, short buffers, a draw before any upload, bad
//! arguments) returns an error status with a message; the header is cbindgen's current output.

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr::{null, null_mut};

use picajit::engine::Backend;
use picajit::pica::program_commands;
use picajit::pipeline::{Attribute, DrawOutput, Indices, Pipeline};
use picajit::shbin::Shbin;
use picajit_capi::*;

const SHBIN: &str = "lovebrew__lovepotion__main_v_pica.shbin";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn corpus_file() -> PathBuf {
    repo().join("../shared/corpus/shbin").join(SHBIN)
}

fn last_error() -> String {
    // SAFETY: picajit_last_error never returns null and the string lives until this
    // thread's next failing call.
    unsafe { CStr::from_ptr(picajit_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn the_header_is_cbindgen_output() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/picajit.h"));
    let committed = std::fs::read_to_string(repo().join("capi/include/picajit.h")).unwrap();
    assert!(
        generated == committed,
        "capi/include/picajit.h is stale: run `make header` (cbindgen's output differs)"
    );
}

/// The scene of examples/c/scene.h, drawn through the Rust API, printed as the examples do
/// (the bit lines and index list: `%g` formatting is C's own).
fn rust_reference() -> Vec<String> {
    let text = std::fs::read_to_string(repo().join("examples/c/scene.h")).unwrap();
    let floats = |name: &str| -> Vec<f32> {
        let start = text.find(name).unwrap();
        let body = &text[text[start..].find('{').unwrap() + start + 1..];
        let body = &body[..body.find("};").unwrap()];
        body.split(|c: char| c == ',' || c == '{' || c == '}' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .map(|t| t.trim_end_matches('f').parse::<f32>().unwrap())
            .collect()
    };
    let pos_uv = floats("scene_pos_uv[]");
    let colors = floats("scene_colors[]");
    let uniforms = floats("scene_uniforms[8][4]");
    let indices: Vec<u16> = floats("scene_indices[]")
        .iter()
        .map(|&x| x as u16)
        .collect();
    let shbin = Shbin::parse(&std::fs::read(corpus_file()).unwrap()).unwrap();
    let mut p = Pipeline::with_backend(Backend::Interp).unwrap();
    for w in program_commands(&shbin, 0).unwrap() {
        p.write(w.reg, w.value, w.mask);
    }
    p.write(0x2B9, 0xA000_0002, 0xF);
    p.write(0x2BB, 0x7654_3210, 0xF);
    p.write(0x2BC, 0xFEDC_BA98, 0xF);
    p.write(0x2C0, 0x8000_0000, 0xF);
    for row in uniforms.chunks(4) {
        for c in (0..4).rev() {
            p.write(0x2C1, row[c].to_bits(), 0xF);
        }
    }
    let attributes = [
        Attribute::Array {
            data: &pos_uv,
            offset: 0,
            stride: 5,
            components: 3,
        },
        Attribute::Array {
            data: &colors,
            offset: 0,
            stride: 4,
            components: 4,
        },
        Attribute::Array {
            data: &pos_uv,
            offset: 3,
            stride: 5,
            components: 2,
        },
    ];
    let mut out = DrawOutput::new();
    p.draw(Indices::U16(&indices), &attributes, &mut out)
        .unwrap();
    let mut lines = vec![format!(
        "{} vertices, {} indices",
        out.vertices().len(),
        out.indices().len()
    )];
    for v in out.vertices() {
        let words: Vec<String> = v
            .slots
            .iter()
            .map(|x| format!("{:08x}", x.to_bits()))
            .collect();
        lines.push(format!("  bits {}", words.join(" ")));
    }
    let idx: Vec<String> = out.indices().iter().map(|i| i.to_string()).collect();
    lines.push(format!("indices {}", idx.join(" ")));
    lines
}

fn library_dir() -> PathBuf {
    // target/<profile>/deps/capi-… → target/<profile>
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// Builds an example with the system compiler against the static library.
fn build(compiler: &str, source: &str, extra: &[&str]) -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("example-{compiler}"));
    // `cargo test` links the tests against the rlib only: build the static library too (a
    // no-op when it is current), in this test's target directory and profile.
    let built = Command::new(env!("CARGO"))
        .args(["build", "-q", "-p", "picajit-capi", "--lib"])
        .env("CARGO_TARGET_DIR", library_dir().parent().unwrap())
        .status()
        .expect("cargo");
    assert!(built.success(), "cargo build -p picajit-capi failed");
    let lib = library_dir().join("libpicajit_capi.a");
    assert!(lib.exists(), "{} missing", lib.display());
    let status = Command::new(compiler)
        .args(extra)
        .arg("-I")
        .arg(repo().join("capi/include"))
        .arg("-I")
        .arg(repo().join("examples/c"))
        .arg(repo().join(source))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("{compiler}: {e}"));
    assert!(status.success(), "{compiler} {source} failed");
    exe
}

/// Runs a built example on the corpus file (and a backend name): its stdout lines.
fn run(exe: &Path, backend: Option<&str>) -> Vec<String> {
    let mut cmd = Command::new(exe);
    cmd.arg(corpus_file());
    if let Some(b) = backend {
        cmd.arg(b);
    }
    let run = cmd.output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn comparable(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| !l.starts_with("vertex "))
        .cloned()
        .collect()
}

#[test]
fn the_c_and_cpp_examples_print_what_the_rust_api_computes() {
    let want = rust_reference();
    let mut backends = vec![None, Some("interp")];
    for (b, name) in [
        (Backend::X64Sse41, "sse41"),
        (Backend::X64Avx2, "avx2"),
        (Backend::X64Avx512, "avx512"),
        (Backend::Aarch64, "aarch64"),
    ] {
        // The static library the examples link is built without the x86-64 emulator (a test
        // build's feature): an x86-64 tier only where the CPU has it.
        let runs = match b {
            Backend::Aarch64 => Backend::runnable().contains(&b),
            Backend::X64Sse41 | Backend::X64Avx2 | Backend::X64Avx512 => {
                Backend::available().contains(&b)
            }
            // Not in the list above: the examples' interpreter run is `Some("interp")`, and auto
            // resolves to one of the tiers.
            Backend::Interp | Backend::Auto => false,
        };
        if runs {
            backends.push(Some(name));
        }
    }
    let c = build("cc", "examples/c/draw.c", &["-std=c99", "-Wall", "-Werror"]);
    let mut first = None;
    for backend in backends {
        let out = run(&c, backend);
        assert_eq!(comparable(&out), want, "C example, backend {backend:?}");
        assert!(out[1].starts_with("vertex 0: position"), "{out:?}");
        first.get_or_insert(out);
    }
    let cpp = build(
        "c++",
        "examples/cpp/adapter.cpp",
        &["-std=c++17", "-Wall", "-Werror"],
    );
    let cpp_out = run(&cpp, None);
    assert_eq!(comparable(&cpp_out), want, "C++ example");
    assert_eq!(Some(cpp_out), first, "C and C++ print the same");
}

#[test]
fn misuse_returns_an_error_status_and_a_message() {
    unsafe {
        let mut p = null_mut();
        assert_eq!(
            picajit_pipeline_new(99, &mut p),
            PicajitStatus::InvalidArgument
        );
        assert!(p.is_null());
        assert_eq!(
            picajit_pipeline_new(PicajitBackend::Auto as u32, null_mut()),
            PicajitStatus::NullArgument
        );
        assert!(last_error().contains("out"), "{}", last_error());
        assert_eq!(
            picajit_write(null_mut(), 0x2B0, 0, 0xF),
            PicajitStatus::NullArgument
        );
        assert!(last_error().contains("pipeline"));
        picajit_pipeline_free(null_mut());

        let mut p = null_mut();
        assert_eq!(
            picajit_pipeline_new(PicajitBackend::Interpreter as u32, &mut p),
            PicajitStatus::Ok
        );
        let mut info = PicajitDrawInfo::default();
        let draw = PicajitDraw {
            index_type: PicajitIndexType::Range as u32,
            indices: null(),
            count: 3,
            first: 0,
        };
        // A draw before any upload.
        assert_eq!(
            picajit_draw(p, &draw, null(), 0, &mut info),
            PicajitStatus::NoProgram
        );
        assert!(last_error().contains("no code word"), "{}", last_error());
        assert_eq!(picajit_prepare_draw(p, null(), 0), PicajitStatus::NoProgram);
        assert_eq!(
            picajit_prepare_draw(null_mut(), null(), 0),
            PicajitStatus::NullArgument
        );
        assert_eq!(
            picajit_draw(p, null(), null(), 0, &mut info),
            PicajitStatus::NullArgument
        );

        // Load the shader, then misuse the draw and the copies.
        let bytes = std::fs::read(corpus_file()).unwrap();
        let mut n = 0usize;
        assert_eq!(
            picajit_shbin_commands(bytes.as_ptr(), bytes.len(), 0, null_mut(), 0, &mut n),
            PicajitStatus::BufferTooSmall
        );
        assert!(n > 20);
        let mut short = vec![PicajitRegWrite::default(); n - 1];
        assert_eq!(
            picajit_shbin_commands(
                bytes.as_ptr(),
                bytes.len(),
                0,
                short.as_mut_ptr(),
                n - 1,
                &mut n
            ),
            PicajitStatus::BufferTooSmall
        );
        assert!(last_error().contains("needed"), "{}", last_error());
        let mut writes = vec![PicajitRegWrite::default(); n];
        assert_eq!(
            picajit_shbin_commands(
                bytes.as_ptr(),
                bytes.len(),
                0,
                writes.as_mut_ptr(),
                n,
                &mut n
            ),
            PicajitStatus::Ok
        );
        assert_eq!(
            picajit_shbin_commands(bytes.as_ptr(), 10, 0, writes.as_mut_ptr(), n, &mut n),
            PicajitStatus::ShbinError
        );
        assert_eq!(
            picajit_shbin_commands(
                bytes.as_ptr(),
                bytes.len(),
                7,
                writes.as_mut_ptr(),
                n,
                &mut n
            ),
            PicajitStatus::ShbinError
        );
        assert_eq!(
            picajit_write_many(p, writes.as_ptr(), writes.len()),
            PicajitStatus::Ok
        );
        assert_eq!(
            picajit_write_many(p, null(), 3),
            PicajitStatus::NullArgument
        );
        assert_eq!(picajit_write(p, 0x2B9, 0xA000_0000, 0xF), PicajitStatus::Ok); // one attribute

        // No attributes given: the unit loads one.
        assert_eq!(
            picajit_draw(p, &draw, null(), 0, &mut info),
            PicajitStatus::AttributeError
        );
        assert_eq!(
            picajit_prepare_draw(p, null(), 0),
            PicajitStatus::AttributeError
        );
        assert_eq!(
            picajit_prepare_draw(p, null(), 2),
            PicajitStatus::NullArgument
        );
        // Preparing needs the attributes' kinds only: an array of no float will do.
        let no_floats = [0.0f32; 1];
        let kind = PicajitAttribute {
            data: no_floats.as_ptr(),
            len: 0,
            offset: 0,
            stride: 3,
            components: 3,
            fixed: [0.0; 4],
        };
        assert_eq!(picajit_prepare_draw(p, &kind, 1), PicajitStatus::Ok);
        let data = [0.5f32; 6];
        let short_array = PicajitAttribute {
            data: data.as_ptr(),
            len: data.len(),
            offset: 0,
            stride: 3,
            components: 3,
            fixed: [0.0; 4],
        };
        assert_eq!(
            picajit_draw(p, &draw, &short_array, 1, &mut info),
            PicajitStatus::AttributeError
        );
        assert!(last_error().contains("vertex 2"), "{}", last_error());
        assert_eq!(
            picajit_draw(p, &draw, null(), 1, &mut info),
            PicajitStatus::NullArgument
        );
        let odd = PicajitDraw {
            index_type: 9,
            indices: null(),
            count: 3,
            first: 0,
        };
        assert_eq!(
            picajit_draw(p, &odd, &short_array, 1, &mut info),
            PicajitStatus::InvalidArgument
        );
        let indexed = PicajitDraw {
            index_type: PicajitIndexType::U16 as u32,
            indices: null(),
            count: 3,
            first: 0,
        };
        assert_eq!(
            picajit_draw(p, &indexed, &short_array, 1, &mut info),
            PicajitStatus::NullArgument
        );

        // A good draw; then short buffers.
        let fixed = PicajitAttribute {
            data: null(),
            len: 0,
            offset: 0,
            stride: 0,
            components: 0,
            fixed: [1.0, 2.0, 3.0, 4.0],
        };
        assert_eq!(
            picajit_draw(p, &draw, &fixed, 1, &mut info),
            PicajitStatus::Ok
        );
        assert_eq!((info.vertices, info.indices, info.triangles), (3, 3, 0));
        let mut verts = vec![PicajitOutputVertex { slots: [0.0; 24] }; 2];
        let mut written = 0usize;
        assert_eq!(
            picajit_copy_vertices(p, verts.as_mut_ptr(), 2, &mut written),
            PicajitStatus::BufferTooSmall
        );
        assert_eq!(written, 3);
        assert_eq!(
            picajit_copy_vertices(p, null_mut(), 3, &mut written),
            PicajitStatus::NullArgument
        );
        verts.resize(3, PicajitOutputVertex { slots: [0.0; 24] });
        assert_eq!(
            picajit_copy_vertices(p, verts.as_mut_ptr(), 3, &mut written),
            PicajitStatus::Ok
        );
        // v1 (colour) is loaded by no attribute: 0.0, so colour is (0, 0, 0, 0); the position
        // comes from the fixed (1, 2, 3, 4) through the identity-free matrices (all zero: c0–c7
        // were never written), so it is (0, 0, 0, 0) as well; unmapped slots read 1.0.
        assert_eq!(verts[2].slots[8..12], [0.0; 4]);
        assert_eq!(verts[2].slots[4..8], [1.0; 4]);
        let mut idx = [0u32; 3];
        assert_eq!(
            picajit_copy_indices(p, idx.as_mut_ptr(), 3, null_mut()),
            PicajitStatus::Ok
        );
        assert_eq!(idx, [0, 1, 2]);
        // Raw records were not kept.
        assert_eq!(
            picajit_copy_raw(p, null_mut(), 0, &mut written),
            PicajitStatus::Ok
        );
        assert_eq!(written, 0);
        // The results in place: the same vertices and indices as the copies, no raw records.
        let mut results = PicajitResults {
            vertices: null(),
            vertex_count: 9,
            indices: null(),
            index_count: 9,
            raw: null(),
            raw_count: 9,
        };
        assert_eq!(picajit_results(p, &mut results), PicajitStatus::Ok);
        assert_eq!((results.vertex_count, results.index_count), (3, 3));
        assert!(results.raw.is_null() && results.raw_count == 0);
        // SAFETY: the pointers are valid for their counts until the next draw.
        let (in_place, in_place_idx) = (
            std::slice::from_raw_parts(results.vertices, results.vertex_count),
            std::slice::from_raw_parts(results.indices, results.index_count),
        );
        for (a, b) in in_place.iter().zip(&verts) {
            assert_eq!(a.slots.map(f32::to_bits), b.slots.map(f32::to_bits));
        }
        assert_eq!(in_place_idx, idx);
        assert_eq!(picajit_results(p, null_mut()), PicajitStatus::NullArgument);
        assert_eq!(
            picajit_results(null_mut(), &mut results),
            PicajitStatus::NullArgument
        );
        assert!(last_error().contains("pipeline"), "{}", last_error());
        picajit_pipeline_free(p);
    }
}
