//! The SHBIN writer: lays a [`Shbin`] out — with its recorded [`Layout`] when that still fits,
//! otherwise picasso's canonical layout — and emits the bytes. Never fails and never panics.

use super::layout::{
    to_u32, Layout, CONSTANT_ENTRY, DESC_ENTRY, DVLP_HEADER, LABEL_ENTRY, OUTPUT_ENTRY,
    UNIFORM_ENTRY,
};
use super::{Dvle, Shbin};
use crate::program::ShaderKind;

pub(super) fn to_bytes(shbin: &Shbin) -> Vec<u8> {
    match &shbin.layout {
        Some(layout) if layout.fits(shbin) => emit(shbin, layout),
        Some(_) | None => emit(shbin, &Layout::canonical(shbin)),
    }
}

/// An output buffer that grows when written past its end, so a write can never panic.
struct Out(Vec<u8>);

impl Out {
    fn put(&mut self, offset: usize, bytes: &[u8]) {
        let Some(end) = offset.checked_add(bytes.len()) else {
            return;
        };
        if end > self.0.len() {
            self.0.resize(end, 0);
        }
        if let Some(slot) = self.0.get_mut(offset..end) {
            slot.copy_from_slice(bytes);
        }
    }

    fn u8(&mut self, offset: usize, value: u8) {
        self.put(offset, &[value]);
    }

    fn u16(&mut self, offset: usize, value: u16) {
        self.put(offset, &value.to_le_bytes());
    }

    fn u32(&mut self, offset: usize, value: u32) {
        self.put(offset, &value.to_le_bytes());
    }
}

fn at(base: usize, offset: u32) -> usize {
    base.saturating_add(offset as usize)
}

/// Writes `shbin` as `layout` places it. `layout` must fit `shbin` (checked by the caller).
fn emit(shbin: &Shbin, layout: &Layout) -> Vec<u8> {
    let mut out = Out(vec![0; layout.file_len]);
    for (offset, bytes) in &layout.filler {
        out.put(*offset, bytes);
    }

    // DVLB header.
    out.put(0, b"DVLB");
    out.u32(4, to_u32(shbin.dvles.len()));
    for (k, &offset) in layout.dvle_offsets.iter().enumerate() {
        out.u32(8 + 4 * k, offset);
    }

    // DVLP header, code, descriptors.
    let dvlp = 8 + 4 * shbin.dvles.len();
    let p = &shbin.dvlp;
    out.put(dvlp, b"DVLP");
    out.u32(dvlp + 0x04, p.version);
    out.u32(dvlp + 0x08, layout.code_offset);
    out.u32(dvlp + 0x0C, to_u32(p.code.len()));
    out.u32(dvlp + 0x10, layout.desc_offset);
    out.u32(dvlp + 0x14, to_u32(p.descs.len()));
    out.u32(dvlp + 0x18, layout.symbol_slot);
    for (k, &word) in p.reserved.iter().enumerate() {
        out.u32(dvlp + 0x1C + 4 * k, word);
    }
    debug_assert_eq!(0x1C + 4 * p.reserved.len(), DVLP_HEADER);
    let code = at(dvlp, layout.code_offset);
    for (k, &word) in p.code.iter().enumerate() {
        out.u32(code + 4 * k, word);
    }
    let descs = at(dvlp, layout.desc_offset);
    for (k, desc) in p.descs.iter().enumerate() {
        out.u32(descs + DESC_ENTRY * k, desc.word);
        out.u32(descs + DESC_ENTRY * k + 4, desc.extra);
    }

    for ((dvle, dl), &offset) in shbin
        .dvles
        .iter()
        .zip(&layout.dvles)
        .zip(&layout.dvle_offsets)
    {
        emit_dvle(&mut out, offset as usize, dvle, dl);
    }
    out.0
}

fn emit_dvle(out: &mut Out, base: usize, dvle: &Dvle, dl: &super::layout::DvleLayout) {
    out.put(base, b"DVLE");
    out.u16(base + 0x04, dvle.version);
    out.u8(
        base + 0x06,
        match dvle.kind {
            ShaderKind::Vertex => 0,
            ShaderKind::Geometry => 1,
        },
    );
    out.u8(base + 0x07, u8::from(dvle.merge_outmaps));
    out.u32(base + 0x08, dvle.entry_start);
    out.u32(base + 0x0C, dvle.entry_end);
    out.u16(base + 0x10, dvle.input_mask);
    out.u16(base + 0x12, dvle.output_mask);
    out.u8(base + 0x14, dvle.gs_mode.code());
    out.u8(base + 0x15, dvle.gs_fixed_start);
    out.u8(base + 0x16, dvle.gs_variable_num);
    out.u8(base + 0x17, dvle.gs_fixed_num);
    let tables = [
        (dl.constants, dvle.constants.len()),
        (dl.labels, dvle.labels.len()),
        (dl.outputs, dvle.outputs.len()),
        (dl.uniforms, dvle.uniforms.len()),
        (dl.symbols, dl.symbol_table.len()),
    ];
    for (k, (offset, count)) in tables.into_iter().enumerate() {
        out.u32(base + 0x18 + 8 * k, offset);
        out.u32(base + 0x1C + 8 * k, to_u32(count));
    }

    let constants = at(base, dl.constants);
    for (k, constant) in dvle.constants.iter().enumerate() {
        let entry = constants + CONSTANT_ENTRY * k;
        let (type_code, reg, data) = constant.to_raw();
        out.u16(entry, type_code);
        out.u16(entry + 2, reg);
        for (j, word) in data.into_iter().enumerate() {
            out.u32(entry + 4 + 4 * j, word);
        }
    }

    let labels = at(base, dl.labels);
    for ((k, label), &name) in dvle.labels.iter().enumerate().zip(&dl.label_names) {
        let entry = labels + LABEL_ENTRY * k;
        out.u8(entry, label.id);
        out.put(entry + 1, &label.unknown_1);
        out.u32(entry + 4, label.location);
        out.u32(entry + 8, label.unknown_8);
        out.u32(entry + 12, name);
    }

    let outputs = at(base, dl.outputs);
    for (k, output) in dvle.outputs.iter().enumerate() {
        let entry = outputs + OUTPUT_ENTRY * k;
        out.u16(entry, output.semantic.code());
        out.u16(entry + 2, output.reg);
        out.u32(entry + 4, output.mask);
    }

    let uniforms = at(base, dl.uniforms);
    for ((k, uniform), &name) in dvle.uniforms.iter().enumerate().zip(&dl.uniform_names) {
        let entry = uniforms + UNIFORM_ENTRY * k;
        out.u32(entry, name);
        out.u16(entry + 4, uniform.first);
        out.u16(entry + 6, uniform.last);
    }

    out.put(at(base, dl.symbols), &dl.symbol_table);
}
