//! Generates `picajit.h` from `src/lib.rs` with cbindgen into `OUT_DIR`; the committed
//! `include/picajit.h` must equal it (a test checks; `make header` copies it).

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml"))
        .expect("capi/cbindgen.toml is readable");
    cbindgen::Builder::new()
        .with_src(format!("{dir}/src/lib.rs"))
        .with_config(config)
        .generate()
        .expect("cbindgen parses capi/src/lib.rs")
        .write_to_file(out.join("picajit.h"));
    println!("cargo:rerun-if-changed=src/lib.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
}
