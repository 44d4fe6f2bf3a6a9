//! The SHBIN reader: checks and decodes the DVLB header, the DVLP and every DVLE, resolves
//! symbol names, rejects overlapping parts, and records the file's [`Layout`] when it is not
//! picasso's canonical one. All arithmetic on file values is checked (in u64) and every read
//! goes through `get`, so no input can make it panic; nothing is allocated for a count before
//! the bytes it describes are known to be in the file.

use super::layout::{
    name_at, DvleLayout, Layout, CONSTANT_ENTRY, DESC_ENTRY, DVLE_HEADER, DVLP_HEADER, LABEL_ENTRY,
    OUTPUT_ENTRY, UNIFORM_ENTRY,
};
use super::{
    Constant, Dvle, Dvlp, GsMode, Label, OpDescEntry, Output, OutputSemantic, Shbin, ShbinError,
    UniformEntry,
};
use crate::program::ShaderKind;

/// Little-endian reads that cannot panic; callers check ranges first, so a `None` here only
/// turns into a zero that is never observed.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn slice(&self, offset: usize, len: usize) -> &[u8] {
        offset
            .checked_add(len)
            .and_then(|end| self.0.get(offset..end))
            .unwrap_or(&[])
    }

    fn array<const N: usize>(&self, offset: usize) -> [u8; N] {
        self.slice(offset, N).try_into().unwrap_or([0; N])
    }

    fn u8(&self, offset: usize) -> u8 {
        self.0.get(offset).copied().unwrap_or(0)
    }

    fn u16(&self, offset: usize) -> u16 {
        u16::from_le_bytes(self.array(offset))
    }

    fn u32(&self, offset: usize) -> u32 {
        u32::from_le_bytes(self.array(offset))
    }
}

/// One part of the file, for the overlap check and for finding the filler bytes.
struct Region {
    start: usize,
    end: usize,
    what: String,
}

/// The parts found so far.
struct Regions(Vec<Region>);

impl Regions {
    fn add(&mut self, start: usize, end: usize, what: impl Into<String>) {
        if start < end {
            self.0.push(Region {
                start,
                end,
                what: what.into(),
            });
        }
    }

    /// Sorts the regions and fails on the first pair that shares bytes.
    fn check_disjoint(&mut self) -> Result<(), ShbinError> {
        self.0.sort_by_key(|r| (r.start, r.end));
        for pair in self.0.windows(2) {
            if let [a, b] = pair {
                if b.start < a.end {
                    return Err(ShbinError::Overlap {
                        first: a.what.clone(),
                        first_start: a.start,
                        first_end: a.end,
                        second: b.what.clone(),
                        second_start: b.start,
                        second_end: b.end,
                    });
                }
            }
        }
        Ok(())
    }

    /// Runs of non-zero bytes that lie outside every region.
    fn filler(&self, bytes: &[u8]) -> Vec<(usize, Vec<u8>)> {
        let mut covered = vec![false; bytes.len()];
        for region in &self.0 {
            if let Some(span) = covered.get_mut(region.start..region.end) {
                span.fill(true);
            }
        }
        let mut runs: Vec<(usize, Vec<u8>)> = Vec::new();
        for (k, (&byte, &covered)) in bytes.iter().zip(&covered).enumerate() {
            if covered || byte == 0 {
                continue;
            }
            match runs.last_mut() {
                Some((start, run)) if *start + run.len() == k => run.push(byte),
                _ => runs.push((k, vec![byte])),
            }
        }
        runs
    }
}

/// The byte range `[base + offset, base + offset + count * size)` if it lies inside the file.
fn table_range(
    len: usize,
    base: usize,
    offset: u32,
    count: u32,
    size: usize,
    what: &str,
    field: usize,
) -> Result<(usize, usize), ShbinError> {
    let start = base as u64 + u64::from(offset);
    let end = start + u64::from(count) * size as u64;
    if end > len as u64 {
        return Err(ShbinError::OutOfRange {
            what: what.to_string(),
            field,
            start,
            end,
            len,
        });
    }
    // Both are ≤ len, so they fit in usize.
    Ok((start as usize, end as usize))
}

fn check_magic(
    b: &Bytes,
    offset: usize,
    expected: &'static str,
    what: &str,
) -> Result<(), ShbinError> {
    let found = b.slice(offset, 4);
    if found == expected.as_bytes() {
        Ok(())
    } else {
        Err(ShbinError::BadMagic {
            what: what.to_string(),
            offset,
            expected,
            found: found.escape_ascii().to_string(),
        })
    }
}

pub(super) fn parse(bytes: &[u8]) -> Result<Shbin, ShbinError> {
    let len = bytes.len();
    let b = Bytes(bytes);
    let truncated = |what: &str, offset: u64, size: u64| ShbinError::Truncated {
        what: what.to_string(),
        offset,
        size,
        len,
    };

    // DVLB header.
    if len < 8 {
        if len >= 4 {
            check_magic(&b, 0, "DVLB", "DVLB header")?;
        }
        return Err(truncated("DVLB header", 0, 8));
    }
    check_magic(&b, 0, "DVLB", "DVLB header")?;
    let dvle_count = b.u32(4);
    let table_bytes = 4 * u64::from(dvle_count);
    if 8 + table_bytes > len as u64 {
        return Err(truncated("DVLE offset table", 8, table_bytes));
    }
    let dvle_count = dvle_count as usize; // ≤ len / 4
    let dvlp = 8 + 4 * dvle_count;
    let mut regions = Regions(Vec::new());
    regions.add(0, dvlp, "DVLB header");

    // DVLP.
    if dvlp as u64 + DVLP_HEADER as u64 > len as u64 {
        return Err(truncated("DVLP header", dvlp as u64, DVLP_HEADER as u64));
    }
    check_magic(&b, dvlp, "DVLP", "DVLP")?;
    regions.add(dvlp, dvlp + DVLP_HEADER, "DVLP header");
    let code_offset = b.u32(dvlp + 0x08);
    let (code_start, code_end) = table_range(
        len,
        dvlp,
        code_offset,
        b.u32(dvlp + 0x0C),
        4,
        "DVLP code blob",
        dvlp + 0x08,
    )?;
    regions.add(code_start, code_end, "DVLP code blob");
    let desc_offset = b.u32(dvlp + 0x10);
    let (desc_start, desc_end) = table_range(
        len,
        dvlp,
        desc_offset,
        b.u32(dvlp + 0x14),
        DESC_ENTRY,
        "DVLP operand-descriptor table",
        dvlp + 0x10,
    )?;
    regions.add(desc_start, desc_end, "DVLP operand-descriptor table");
    let code: Vec<u32> = (code_start..code_end)
        .step_by(4)
        .map(|at| b.u32(at))
        .collect();
    let descs: Vec<OpDescEntry> = (desc_start..desc_end)
        .step_by(DESC_ENTRY)
        .map(|at| OpDescEntry {
            word: b.u32(at),
            extra: b.u32(at + 4),
        })
        .collect();
    let dvlp_part = Dvlp {
        version: b.u32(dvlp + 0x04),
        code,
        descs,
        reserved: [b.u32(dvlp + 0x1C), b.u32(dvlp + 0x20), b.u32(dvlp + 0x24)],
    };

    // DVLEs.
    let mut dvles = Vec::with_capacity(dvle_count);
    let mut dvle_offsets = Vec::with_capacity(dvle_count);
    let mut dvle_layouts = Vec::with_capacity(dvle_count);
    for k in 0..dvle_count {
        let offset = b.u32(8 + 4 * k);
        let (dvle, layout) = parse_dvle(&b, k, offset, &mut regions)?;
        dvles.push(dvle);
        dvle_offsets.push(offset);
        dvle_layouts.push(layout);
    }

    regions.check_disjoint()?;
    let layout = Layout {
        file_len: len,
        dvle_offsets,
        code_offset,
        code_words: dvlp_part.code.len(),
        desc_offset,
        desc_entries: dvlp_part.descs.len(),
        symbol_slot: b.u32(dvlp + 0x18),
        dvles: dvle_layouts,
        filler: regions.filler(bytes),
    };
    let mut shbin = Shbin {
        dvlp: dvlp_part,
        dvles,
        layout: None,
    };
    if layout != Layout::canonical(&shbin) {
        shbin.layout = Some(layout);
    }
    Ok(shbin)
}

/// Parses DVLE #`k`, whose header the DVLB table places at `offset`, and records its regions.
fn parse_dvle(
    b: &Bytes,
    k: usize,
    offset: u32,
    regions: &mut Regions,
) -> Result<(Dvle, DvleLayout), ShbinError> {
    let len = b.0.len();
    let name = format!("DVLE #{k}");
    let (base, header_end) = table_range(
        len,
        0,
        offset,
        1,
        DVLE_HEADER,
        &format!("{name} header"),
        8 + 4 * k,
    )?;
    check_magic(b, base, "DVLE", &name)?;
    regions.add(base, header_end, format!("{name} header"));

    let kind = match b.u8(base + 0x06) {
        0 => ShaderKind::Vertex,
        1 => ShaderKind::Geometry,
        value => {
            return Err(ShbinError::ShaderType {
                dvle: k,
                offset: base + 0x06,
                value,
            })
        }
    };
    let merge_outmaps = match b.u8(base + 0x07) {
        0 => false,
        1 => true,
        value => {
            return Err(ShbinError::MergeFlag {
                dvle: k,
                offset: base + 0x07,
                value,
            })
        }
    };

    // The five tables: (header field, entry size, name).
    let table =
        |field: usize, size: usize, what: &str| -> Result<(u32, usize, usize), ShbinError> {
            let offset = b.u32(base + field);
            let count = b.u32(base + field + 4);
            let what = format!("{name} {what}");
            let (start, end) = table_range(len, base, offset, count, size, &what, base + field)?;
            Ok((offset, start, end))
        };
    let (constants_offset, constants_start, constants_end) =
        table(0x18, CONSTANT_ENTRY, "constant table")?;
    let (labels_offset, labels_start, labels_end) = table(0x20, LABEL_ENTRY, "label table")?;
    let (outputs_offset, outputs_start, outputs_end) = table(0x28, OUTPUT_ENTRY, "output table")?;
    let (uniforms_offset, uniforms_start, uniforms_end) =
        table(0x30, UNIFORM_ENTRY, "uniform table")?;
    let (symbols_offset, symbols_start, symbols_end) = table(0x38, 1, "symbol table")?;
    regions.add(
        constants_start,
        constants_end,
        format!("{name} constant table"),
    );
    regions.add(labels_start, labels_end, format!("{name} label table"));
    regions.add(outputs_start, outputs_end, format!("{name} output table"));
    regions.add(
        uniforms_start,
        uniforms_end,
        format!("{name} uniform table"),
    );
    regions.add(symbols_start, symbols_end, format!("{name} symbol table"));
    let symbol_table = b.slice(symbols_start, symbols_end - symbols_start);

    // Resolves the name whose symbol-table offset is stored at `field`.
    let resolve = |field: usize, entry: String| -> Result<(u32, String), ShbinError> {
        let name_offset = b.u32(field);
        let size = symbol_table.len() as u32; // ≤ file length
        if name_offset >= size {
            return Err(ShbinError::SymbolOutOfRange {
                dvle: k,
                entry,
                field,
                name_offset,
                size,
            });
        }
        let offset = symbols_start + name_offset as usize;
        let Some(text) = name_at(symbol_table, name_offset) else {
            return Err(ShbinError::SymbolUnterminated {
                dvle: k,
                entry,
                field,
                name_offset,
                offset,
            });
        };
        match std::str::from_utf8(text) {
            Ok(text) => Ok((name_offset, text.to_string())),
            Err(_) => Err(ShbinError::SymbolNotUtf8 {
                dvle: k,
                entry,
                field,
                name_offset,
                offset,
            }),
        }
    };

    let constants: Vec<Constant> = (constants_start..constants_end)
        .step_by(CONSTANT_ENTRY)
        .map(|at| {
            let data = [b.u32(at + 4), b.u32(at + 8), b.u32(at + 12), b.u32(at + 16)];
            Constant::from_raw(b.u16(at), b.u16(at + 2), data)
        })
        .collect();

    let mut labels = Vec::new();
    let mut label_names = Vec::new();
    for (j, at) in (labels_start..labels_end).step_by(LABEL_ENTRY).enumerate() {
        let (name_offset, name) = resolve(at + 12, format!("label #{j}"))?;
        label_names.push(name_offset);
        labels.push(Label {
            id: b.u8(at),
            unknown_1: b.array(at + 1),
            location: b.u32(at + 4),
            unknown_8: b.u32(at + 8),
            name,
        });
    }

    let outputs: Vec<Output> = (outputs_start..outputs_end)
        .step_by(OUTPUT_ENTRY)
        .map(|at| Output {
            semantic: OutputSemantic::from_code(b.u16(at)),
            reg: b.u16(at + 2),
            mask: b.u32(at + 4),
        })
        .collect();

    let mut uniforms = Vec::new();
    let mut uniform_names = Vec::new();
    for (j, at) in (uniforms_start..uniforms_end)
        .step_by(UNIFORM_ENTRY)
        .enumerate()
    {
        let (name_offset, name) = resolve(at, format!("uniform #{j}"))?;
        uniform_names.push(name_offset);
        uniforms.push(UniformEntry {
            name,
            first: b.u16(at + 4),
            last: b.u16(at + 6),
        });
    }

    let dvle = Dvle {
        version: b.u16(base + 0x04),
        kind,
        merge_outmaps,
        entry_start: b.u32(base + 0x08),
        entry_end: b.u32(base + 0x0C),
        input_mask: b.u16(base + 0x10),
        output_mask: b.u16(base + 0x12),
        gs_mode: GsMode::from_code(b.u8(base + 0x14)),
        gs_fixed_start: b.u8(base + 0x15),
        gs_variable_num: b.u8(base + 0x16),
        gs_fixed_num: b.u8(base + 0x17),
        constants,
        labels,
        outputs,
        uniforms,
    };
    let layout = DvleLayout {
        constants: constants_offset,
        constant_count: dvle.constants.len(),
        labels: labels_offset,
        outputs: outputs_offset,
        output_count: dvle.outputs.len(),
        uniforms: uniforms_offset,
        symbols: symbols_offset,
        symbol_table: symbol_table.to_vec(),
        uniform_names,
        label_names,
    };
    Ok((dvle, layout))
}
