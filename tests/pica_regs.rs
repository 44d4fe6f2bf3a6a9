//! The shader units as GPU registers (`picajit::pica`): register-level uploads build the same
//! `Program` and `Uniforms` as direct construction; float24/float32 uploads, auto-increment,
//! the ≥ 96 drop, byte masks, out-of-range offsets and VS→GS mirroring behave as the module
//! documents; arbitrary writes never panic.

use picajit::pica::{
    pack_vec_f24, program_commands, regs, semantic, FloatMode, GpuRegs, SemanticSource, Unit,
    VS_CODE_WORDS,
};
use picajit::program::{ShaderKind, Uniforms};
use picajit::shbin::Shbin;

const CORPUS: &str = "../shared/corpus/shbin";

fn corpus() -> Vec<(String, Shbin)> {
    let mut files: Vec<_> = std::fs::read_dir(CORPUS)
        .expect("the shared corpus beside the repository")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "shbin"))
        .collect();
    files.sort();
    assert!(files.len() >= 13, "corpus has {} files", files.len());
    files
        .into_iter()
        .map(|p| {
            let shbin = Shbin::parse(&std::fs::read(&p).unwrap()).unwrap();
            (p.display().to_string(), shbin)
        })
        .collect()
}

fn bits(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

#[test]
fn corpus_uploads_build_the_same_program_and_uniforms() {
    let mut checked = 0;
    for (name, shbin) in corpus() {
        for (i, dvle) in shbin.dvles.iter().enumerate() {
            let mut gpu = GpuRegs::new();
            for w in program_commands(&shbin, i).unwrap() {
                gpu.write(w.reg, w.value, w.mask);
            }
            let unit = match dvle.kind {
                ShaderKind::Vertex => Unit::Vertex,
                ShaderKind::Geometry => Unit::Geometry,
            };
            let want = shbin.program(i).unwrap();
            assert!(
                shbin.dvlp.code.len() <= VS_CODE_WORDS,
                "{name}: {} words",
                shbin.dvlp.code.len()
            );
            assert_eq!(gpu.program(unit), want, "{name} DVLE {i}");
            let mut uniforms = Uniforms::default();
            dvle.apply_constants(&mut uniforms);
            let got = gpu.uniforms(unit);
            for c in 0..96 {
                assert_eq!(bits(got.f[c]), bits(uniforms.f[c]), "{name} DVLE {i} c{c}");
            }
            assert_eq!(got.i, uniforms.i, "{name} DVLE {i}");
            assert_eq!(got.b, uniforms.b, "{name} DVLE {i}");
            // The vertex block is mirrored into the geometry unit (no geometry stage in use).
            if unit == Unit::Vertex {
                assert_eq!(gpu.unit(Unit::Geometry).code(), want.code.as_ref());
                assert_eq!(gpu.unit(Unit::Geometry).descs(), &want.descs);
            }
            checked += 1;
        }
    }
    assert!(checked >= 13);
}

#[test]
fn corpus_output_maps_follow_the_output_tables() {
    // lovepotion: o0 position, o1 color, o2 texcoord0 (xyzw declared, 2 components used).
    let bytes = std::fs::read(format!("{CORPUS}/lovebrew__lovepotion__main_v_pica.shbin")).unwrap();
    let shbin = Shbin::parse(&bytes).unwrap();
    let mut gpu = GpuRegs::new();
    for w in program_commands(&shbin, 0).unwrap() {
        gpu.write(w.reg, w.value, w.mask);
    }
    assert_eq!(gpu.output_mask(Unit::Vertex), 0b111);
    let map = gpu.output_map();
    assert_eq!(map.count, 3);
    assert_eq!(map.slots[0], [0, 1, 2, 3]);
    assert_eq!(map.slots[1], [8, 9, 10, 11]);
    assert_eq!(map.slots[2], [12, 13, 31, 31]);
    assert_eq!(gpu.vs_output_total(), 3);
    let sources = map.sources(0b111);
    let out = |reg, comp| SemanticSource::Output { reg, comp };
    assert_eq!(sources[usize::from(semantic::POSITION) + 3], out(0, 3));
    assert_eq!(sources[usize::from(semantic::COLOR)], out(1, 0));
    assert_eq!(sources[usize::from(semantic::TEXCOORD0) + 1], out(2, 1));
    assert_eq!(sources[usize::from(semantic::VIEW)], SemanticSource::One);
}

#[test]
fn output_map_compacts_enabled_registers_and_later_components_win() {
    let mut gpu = GpuRegs::new();
    // o1 and o5 enabled: slot 0 is o1, slot 1 is o5; slot 2 has no register behind it.
    gpu.set_output_map(&[[0, 1, 2, 3], [8, 8, 31, 30], [4, 5, 6, 7]]);
    let sources = gpu.output_map().sources(0b10_0010);
    let out = |reg, comp| SemanticSource::Output { reg, comp };
    assert_eq!(sources[0], out(1, 0));
    assert_eq!(sources[3], out(1, 3));
    // Both x and y of o5 name id 8: y (later) wins; id 30 writes nowhere.
    assert_eq!(sources[8], out(5, 1));
    // Slot 2 has no register behind it: its semantics read 0.0.
    assert_eq!(sources[4], SemanticSource::Zero);
    assert_eq!(sources[12], SemanticSource::One);
    // OUTMAP_TOTAL limits the slots read.
    gpu.write(regs::OUTMAP_TOTAL, 1, 0xF);
    assert_eq!(gpu.output_map().sources(0b10_0010)[8], SemanticSource::One);
}

/// Reference points of Azahar's float24 test, uploaded in f24 mode four at a time.
#[test]
fn f24_reference_points_through_the_upload_port() {
    let points: [(u32, u32); 12] = [
        (0x3F_0000, 0x3F80_0000), // 1.0
        (0xBF_0000, 0xBF80_0000), // -1.0
        (0x3E_0000, 0x3F00_0000), // 0.5
        (0x3D_0000, 0x3E80_0000), // 0.25
        (0x40_8000, 0x4040_0000), // 3.0
        (0x01_0000, 0x2080_0000), // min normal 2^-62
        (0x7E_FFFF, 0x5F7F_FF80), // max
        (0x80_0000, 0x8000_0000), // -0.0
        (0x7F_0000, 0x7F80_0000), // +inf
        (0xFF_0000, 0xFF80_0000), // -inf
        (0x00_0001, 0x1880_0000), // smallest denormal
        (0x00_FFFF, 0x207F_FF00), // largest denormal
    ];
    let mut gpu = GpuRegs::new();
    let raw: Vec<[u32; 4]> = points
        .chunks(4)
        .map(|c| [c[0].0, c[1].0, c[2].0, c[3].0])
        .collect();
    gpu.upload_floats_f24(Unit::Vertex, 7, &raw);
    let f = &gpu.uniforms(Unit::Vertex).f;
    for (k, &(_, want)) in points.iter().enumerate() {
        assert_eq!(f[7 + k / 4][k % 4].to_bits(), want, "point {k}");
    }
    // A NaN keeps its payload (0x7F8000 → 0x7FC00000).
    gpu.upload_floats_f24(Unit::Vertex, 0, &[[0x7F_8000, 0, 0, 0]]);
    assert_eq!(gpu.uniforms(Unit::Vertex).f[0][0].to_bits(), 0x7FC0_0000);
}

#[test]
fn f24_words_pack_w_z_y_x_big_endian() {
    // x = 0x3F8000 (1.5), y = 0xC04012, z = 0x3D5555, w = 0x412345, packed by hand from the
    // The packing: W0 = w:z[23:16], W1 = z[15:0]:y[23:8], W2 = y[7:0]:x.
    let words = [0x4123_453D, 0x5555_C040, 0x123F_8000];
    let mut gpu = GpuRegs::new();
    gpu.write(regs::VS_BASE + regs::block::FLOAT_INDEX, 3, 0xF);
    for (k, &w) in words.iter().enumerate() {
        // Any of the eight data aliases.
        gpu.write(
            regs::VS_BASE + regs::block::FLOAT_DATA + 2 * k as u16,
            w,
            0xF,
        );
    }
    let got = gpu.uniforms(Unit::Vertex).f[3];
    let want = [0x3F_8000, 0xC0_4012, 0x3D_5555, 0x41_2345].map(picajit::float::f24_to_f32);
    assert_eq!(bits(got), bits(want));
    assert_eq!(got[0], 1.5);
    assert_eq!(gpu.read(regs::VS_BASE + regs::block::FLOAT_INDEX) & 0x7F, 4);
}

#[test]
fn f32_mode_takes_w_z_y_x_and_keeps_every_bit() {
    let mut gpu = GpuRegs::new();
    gpu.write(regs::VS_BASE + regs::block::FLOAT_INDEX, 1 << 31 | 20, 0xF);
    // w, z, y, x; x is a subnormal and y a NaN with a payload: no float24 rounding.
    for w in [0x4080_0000, 0xC040_0000, 0x7FA0_0001, 0x0000_0001] {
        gpu.write(regs::VS_BASE + regs::block::FLOAT_DATA, w, 0xF);
    }
    assert_eq!(
        bits(gpu.uniforms(Unit::Vertex).f[20]),
        [0x0000_0001, 0x7FA0_0001, 0xC040_0000, 0x4080_0000]
    );
    // The helper writes the same words.
    let mut other = GpuRegs::new();
    other.upload_floats(
        Unit::Vertex,
        20,
        FloatMode::F32,
        &[[f32::from_bits(1), f32::from_bits(0x7FA0_0001), -3.0, 4.0]],
    );
    assert_eq!(
        bits(other.uniforms(Unit::Vertex).f[20]),
        bits(gpu.uniforms(Unit::Vertex).f[20])
    );
}

#[test]
fn f24_helper_truncates_like_the_tools() {
    let mut gpu = GpuRegs::new();
    gpu.upload_floats(Unit::Vertex, 0, FloatMode::F24, &[[0.1, 1.0, -2.0, 1e30]]);
    let got = gpu.uniforms(Unit::Vertex).f[0];
    // 0.1 truncates to float24 0x3B9999; 1e30 overflows to +inf.
    assert_eq!(got[0], picajit::float::f24_to_f32(0x3B_9999));
    assert_eq!(&got[1..3], &[1.0, -2.0]);
    assert_eq!(got[3], f32::INFINITY);
    assert_eq!(pack_vec_f24([1.0, 0.0, 0.0, 0.0]), [0, 0, 0x3F_0000]);
}

#[test]
fn index_auto_increments_and_vectors_at_96_or_more_are_dropped() {
    let mut gpu = GpuRegs::new();
    let v = |k: f32| [k, k + 0.5, -k, 2.0 * k];
    gpu.upload_floats(Unit::Vertex, 10, FloatMode::F32, &[v(1.0), v(2.0), v(3.0)]);
    let f = gpu.uniforms(Unit::Vertex).f;
    assert_eq!(&f[10..13], &[v(1.0), v(2.0), v(3.0)]);
    let index_reg = regs::VS_BASE + regs::block::FLOAT_INDEX;
    assert_eq!(gpu.read(index_reg), 1 << 31 | 13);
    // From 94: c94, c95 written, the next two dropped, the index stays at 96.
    gpu.upload_floats(
        Unit::Vertex,
        94,
        FloatMode::F24,
        &[v(4.0), v(5.0), v(6.0), v(7.0)],
    );
    let f = gpu.uniforms(Unit::Vertex).f;
    assert_eq!(&f[94..96], &[v(4.0), v(5.0)]);
    assert_eq!(gpu.read(index_reg), 96);
    // Nothing wrapped around to c0.
    assert_eq!(f[0], [0.0; 4]);
    // Index bits are 6–0: 0x85 addresses c5; 0x7F is dropped.
    gpu.write(index_reg, 0x85, 0xF);
    for w in pack_vec_f24(v(8.0)) {
        gpu.write(regs::VS_BASE + regs::block::FLOAT_DATA, w, 0xF);
    }
    assert_eq!(gpu.uniforms(Unit::Vertex).f[5], v(8.0));
    assert_eq!(gpu.read(index_reg), 0x86);
    let before = gpu.uniforms(Unit::Vertex).clone();
    gpu.upload_floats(Unit::Vertex, 0x7F, FloatMode::F24, &[v(9.0)]);
    assert_eq!(gpu.uniforms(Unit::Vertex), &before);
}

#[test]
fn the_queue_survives_an_index_write() {
    let mut gpu = GpuRegs::new();
    let words = pack_vec_f24([1.0, 2.0, 3.0, 4.0]);
    let data = regs::VS_BASE + regs::block::FLOAT_DATA;
    let index = regs::VS_BASE + regs::block::FLOAT_INDEX;
    gpu.write(index, 0, 0xF);
    gpu.write(data, words[0], 0xF);
    gpu.write(data, words[1], 0xF);
    assert_eq!(gpu.unit(Unit::Vertex).pending_float_words(), 2);
    gpu.write(index, 40, 0xF);
    gpu.write(data, words[2], 0xF);
    assert_eq!(gpu.uniforms(Unit::Vertex).f[40], [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(gpu.uniforms(Unit::Vertex).f[0], [0.0; 4]);
}

#[test]
fn byte_masks_merge_into_configuration_registers() {
    let mut gpu = GpuRegs::new();
    let entry = regs::VS_BASE + regs::block::ENTRY;
    gpu.write(entry, 0x0000_0034, 0x1);
    gpu.write(entry, 0xFFFF_0200, 0x2);
    assert_eq!(gpu.read(entry), 0x0234);
    assert_eq!(gpu.entry(Unit::Vertex), 0x234);
    // Bits 15–0 taken modulo 4096.
    gpu.write(entry, 0x1005, 0x3);
    assert_eq!(gpu.entry(Unit::Vertex), 5);
    // Bools: only the low byte enabled.
    gpu.write(regs::VS_BASE, 0xFFFF, 0x1);
    assert_eq!(gpu.uniforms(Unit::Vertex).b, 0x00FF);
    // Int uniform i2: bytes x, y, z, w from the low byte; only y and w enabled.
    gpu.set_int_uniform(Unit::Vertex, 2, [1, 2, 3, 4]);
    gpu.write(regs::VS_BASE + 3, 0xAABB_CCDD, 0b1010);
    assert_eq!(gpu.uniforms(Unit::Vertex).i[2], [1, 0xCC, 3, 0xAA]);
    // Mask 0 changes nothing.
    gpu.write(entry, 0xFFFF_FFFF, 0);
    assert_eq!(gpu.read(entry), 0x1005);
    // Registers past 0x2FF are ignored.
    gpu.write(0x300, 1, 0xF);
    assert_eq!(gpu.read(0x300), 0);
}

#[test]
fn code_and_descriptor_offsets_out_of_range_are_ignored() {
    let mut gpu = GpuRegs::new();
    gpu.write(regs::GEOSTAGE_CONFIG, 2, 0xF); // no mirroring: the units are seen apart
    gpu.upload_code(Unit::Vertex, 510, &[0x1111, 0x2222, 0x3333]);
    let vs = gpu.unit(Unit::Vertex).code();
    assert_eq!(&vs[510..513], &[0x1111, 0x2222, 0]);
    let offset = regs::VS_BASE + regs::block::CODE_OFFSET;
    assert_eq!(gpu.read(offset), 512);
    gpu.upload_code(Unit::Geometry, 4094, &[0x4444, 0x5555, 0x6666]);
    let gs = gpu.unit(Unit::Geometry).code();
    assert_eq!(&gs[4094..], &[0x4444, 0x5555]);
    assert_eq!(gpu.read(regs::GS_BASE + regs::block::CODE_OFFSET), 4096);
    // A huge offset stores nothing and does not wrap.
    gpu.upload_code(Unit::Vertex, u32::MAX, &[0x7777]);
    assert!(!gpu.unit(Unit::Vertex).code().contains(&0x7777));
    // Descriptors 0–127 only; the offset still advances up to 4096.
    gpu.upload_descs(Unit::Vertex, 126, &[0xA, 0xB, 0xC]);
    assert_eq!(&gpu.unit(Unit::Vertex).descs()[126..], &[0xA, 0xB]);
    assert_eq!(gpu.read(regs::VS_BASE + regs::block::DESC_OFFSET), 129);
    gpu.upload_descs(Unit::Vertex, 4095, &[0xD, 0xE]);
    assert_eq!(gpu.read(regs::VS_BASE + regs::block::DESC_OFFSET), 4096);
}

#[test]
fn uploads_record_what_changed() {
    let mut gpu = GpuRegs::new();
    gpu.write(regs::VSH_COM_MODE, 1, 0xF);
    gpu.upload_code(Unit::Vertex, 5, &[1, 2, 3]);
    let c = gpu.take_changes(Unit::Vertex);
    assert_eq!(c.code, Some((5, 7)));
    assert!(!c.descs && !c.uniforms);
    // The same words again change nothing.
    gpu.upload_code(Unit::Vertex, 5, &[1, 2, 3]);
    assert_eq!(gpu.take_changes(Unit::Vertex).code, None);
    gpu.upload_code(Unit::Vertex, 100, &[9]);
    gpu.upload_code(Unit::Vertex, 3, &[9]);
    assert_eq!(gpu.take_changes(Unit::Vertex).code, Some((3, 100)));
    gpu.upload_descs(Unit::Vertex, 0, &[0x1B]);
    gpu.upload_floats(Unit::Vertex, 0, FloatMode::F32, &[[1.0; 4]]);
    let c = gpu.take_changes(Unit::Vertex);
    assert!(c.descs && c.uniforms && c.code.is_none());
    assert_eq!(gpu.take_changes(Unit::Vertex), Default::default());
}

#[test]
fn vertex_writes_are_mirrored_unless_the_geometry_unit_is_configured_apart() {
    let load = |gpu: &mut GpuRegs| {
        gpu.upload_code(Unit::Vertex, 0, &[0x1234_5678, 0x8800_0000]);
        gpu.upload_descs(Unit::Vertex, 0, &[0x0D86_C36F]);
        gpu.upload_floats(Unit::Vertex, 3, FloatMode::F24, &[[0.5, 1.0, 2.0, 4.0]]);
        gpu.set_bool_uniforms(Unit::Vertex, 0x0102);
        gpu.set_int_uniform(Unit::Vertex, 1, [3, 4, 5, 0]);
        gpu.set_output_mask(Unit::Vertex, 0x13);
    };
    let mut shared = GpuRegs::new();
    assert!(shared.mirroring());
    load(&mut shared);
    let gs = shared.unit(Unit::Geometry);
    assert_eq!(&gs.code()[..2], &[0x1234_5678, 0x8800_0000]);
    assert_eq!(gs.descs()[0], 0x0D86_C36F);
    assert_eq!(gs.uniforms(), shared.uniforms(Unit::Vertex));
    assert_eq!(gs.uniforms().f[3], [0.5, 1.0, 2.0, 4.0]);
    assert_eq!(shared.output_mask(Unit::Geometry), 0x13);
    // The geometry unit's own registers are not touched (only its memories).
    assert_eq!(shared.read(regs::GS_BASE + regs::block::CODE_OFFSET), 0);

    // Exclusive configuration (0x244 bit 0), or a geometry stage in use: no mirroring.
    for (reg, value) in [(regs::VSH_COM_MODE, 1), (regs::GEOSTAGE_CONFIG, 2)] {
        let mut apart = GpuRegs::new();
        apart.write(reg, value, 0xF);
        assert!(!apart.mirroring());
        load(&mut apart);
        let gs = apart.unit(Unit::Geometry);
        assert_eq!(gs.code()[0], 0);
        assert_eq!(gs.descs()[0], 0);
        assert_eq!(gs.uniforms(), &Uniforms::default());
        assert_eq!(apart.output_mask(Unit::Geometry), 0);
    }
}

#[test]
fn input_configuration_and_permutation_read_back() {
    let mut gpu = GpuRegs::new();
    gpu.set_input_attributes(Unit::Vertex, 3, false);
    let cfg = gpu.input_config(Unit::Vertex);
    assert_eq!(
        (cfg.max_attribute, cfg.mode, cfg.input_to_uniform),
        (2, 0xA0, 0)
    );
    gpu.set_input_attributes(Unit::Geometry, 16, true);
    let cfg = gpu.input_config(Unit::Geometry);
    assert_eq!(
        (cfg.max_attribute, cfg.mode, cfg.input_to_uniform),
        (15, 0x08, 1)
    );
    let map: [u8; 16] = std::array::from_fn(|k| (15 - k) as u8);
    gpu.set_permutation(Unit::Vertex, map);
    assert_eq!(gpu.permutation(Unit::Vertex), map);
    assert_eq!(
        gpu.read(regs::VS_BASE + regs::block::PERMUTATION_LOW),
        0x89AB_CDEF
    );
    assert_eq!(
        gpu.read(regs::VS_BASE + regs::block::PERMUTATION_HIGH),
        0x0123_4567
    );
    assert_eq!(gpu.program(Unit::Geometry).kind, ShaderKind::Geometry);
}

#[test]
fn arbitrary_writes_never_panic() {
    let mut rng = fastrand::Rng::with_seed(11);
    let mut gpu = GpuRegs::new();
    for round in 0..200_000u32 {
        let reg = if rng.bool() {
            rng.u16(0x280..0x2E0)
        } else {
            rng.u16(..0x400)
        };
        let value = match rng.u8(..4) {
            0 => rng.u32(..),
            1 => rng.u32(..140),
            2 => 1 << 31 | rng.u32(..128),
            _ => rng.u32(..4100),
        };
        gpu.write(reg, value, rng.u8(..16));
        if round % 10_000 == 0 {
            for unit in [Unit::Vertex, Unit::Geometry] {
                let p = gpu.program(unit);
                assert!(usize::from(p.entry) < 4096);
                let _ = gpu.take_changes(unit);
            }
            assert!(gpu.unit(Unit::Vertex).code()[VS_CODE_WORDS..]
                .iter()
                .all(|&w| w == 0));
            let _ = gpu.output_map().sources(gpu.output_mask(Unit::Vertex));
        }
    }
}
