//! [`Layout`]: where every part of a SHBIN lies — the DVLE offsets, the DVLP and DVLE table
//! offsets, the symbol tables and the name offsets into them, the file length and any non-zero
//! bytes outside every table. The writer works from a layout; this module computes picasso's
//! canonical one and decides whether a recorded one still fits a [`Shbin`].

use super::{Dvle, Shbin};

/// Sizes of the fixed parts and table entries, in bytes.
pub(super) const DVLP_HEADER: usize = 0x28;
pub(super) const DVLE_HEADER: usize = 0x40;
pub(super) const DESC_ENTRY: usize = 8;
pub(super) const CONSTANT_ENTRY: usize = 20;
pub(super) const LABEL_ENTRY: usize = 16;
pub(super) const OUTPUT_ENTRY: usize = 8;
pub(super) const UNIFORM_ENTRY: usize = 8;

/// The placement of a parsed file that differs from picasso's canonical layout, kept so that
/// [`Shbin::to_bytes`] reproduces the file byte for byte. Opaque: only [`Shbin::parse`] makes
/// one. It applies only while it fits the contents (same number of DVLEs, code words,
/// descriptors and table entries, and names that still match its symbol tables).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Total file length.
    pub(super) file_len: usize,
    /// Absolute offset of each DVLE (the DVLB offset table).
    pub(super) dvle_offsets: Vec<u32>,
    /// DVLP-relative offset of the code blob.
    pub(super) code_offset: u32,
    /// Code words the layout was made for.
    pub(super) code_words: usize,
    /// DVLP-relative offset of the descriptor table.
    pub(super) desc_offset: u32,
    /// Descriptor entries the layout was made for.
    pub(super) desc_entries: usize,
    /// The DVLP +0x18 word (picasso: the DVLP size).
    pub(super) symbol_slot: u32,
    /// Per DVLE, in DVLB order.
    pub(super) dvles: Vec<DvleLayout>,
    /// Non-zero bytes outside every header and table: (absolute offset, bytes).
    pub(super) filler: Vec<(usize, Vec<u8>)>,
}

/// Where one DVLE's tables lie, relative to the DVLE start, and its symbol table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct DvleLayout {
    pub constants: u32,
    pub constant_count: usize,
    pub labels: u32,
    pub outputs: u32,
    pub output_count: usize,
    pub uniforms: u32,
    pub symbols: u32,
    /// The symbol table as stored (its size is the +0x3C field).
    pub symbol_table: Vec<u8>,
    /// Symbol-table offset of each uniform's name.
    pub uniform_names: Vec<u32>,
    /// Symbol-table offset of each label's name.
    pub label_names: Vec<u32>,
}

/// Saturating usize → u32 for offsets and counts (files over 4 GiB cannot be represented).
pub(super) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The bytes of the NUL-terminated name at `offset` of `table`, if it is inside and terminated.
pub(super) fn name_at(table: &[u8], offset: u32) -> Option<&[u8]> {
    let rest = table.get(usize::try_from(offset).ok()?..)?;
    let len = rest.iter().position(|&b| b == 0)?;
    rest.get(..len)
}

impl Layout {
    /// picasso's canonical layout for `shbin` (the one picasso 2.5 and later write): DVLB header,
    /// DVLP header, code, descriptors, then each DVLE on a 4-byte boundary: header, constants,
    /// labels, outputs, uniforms, symbols (names in entry order), zero padding.
    pub(super) fn canonical(shbin: &Shbin) -> Layout {
        let code_words = shbin.dvlp.code.len();
        let desc_entries = shbin.dvlp.descs.len();
        let code_offset = DVLP_HEADER;
        let desc_offset = code_offset + 4 * code_words;
        let dvlp_size = desc_offset + DESC_ENTRY * desc_entries;
        let mut next = 8 + 4 * shbin.dvles.len() + dvlp_size;
        let mut dvle_offsets = Vec::with_capacity(shbin.dvles.len());
        let mut dvles = Vec::with_capacity(shbin.dvles.len());
        for dvle in &shbin.dvles {
            dvle_offsets.push(to_u32(next));
            let (layout, size) = DvleLayout::canonical(dvle);
            dvles.push(layout);
            next += size.next_multiple_of(4);
        }
        Layout {
            file_len: next,
            dvle_offsets,
            code_offset: to_u32(code_offset),
            code_words,
            desc_offset: to_u32(desc_offset),
            desc_entries,
            symbol_slot: to_u32(dvlp_size),
            dvles,
            filler: Vec::new(),
        }
    }

    /// Whether this layout describes `shbin`'s contents: same counts everywhere, and every name
    /// found at its recorded symbol-table offset.
    pub(super) fn fits(&self, shbin: &Shbin) -> bool {
        self.code_words == shbin.dvlp.code.len()
            && self.desc_entries == shbin.dvlp.descs.len()
            && self.dvle_offsets.len() == shbin.dvles.len()
            && self.dvles.len() == shbin.dvles.len()
            && self
                .dvles
                .iter()
                .zip(&shbin.dvles)
                .all(|(layout, dvle)| layout.fits(dvle))
    }
}

impl DvleLayout {
    /// The canonical placement of `dvle`'s tables and its size before padding.
    fn canonical(dvle: &Dvle) -> (DvleLayout, usize) {
        let constants = DVLE_HEADER;
        let labels = constants + CONSTANT_ENTRY * dvle.constants.len();
        let outputs = labels + LABEL_ENTRY * dvle.labels.len();
        let uniforms = outputs + OUTPUT_ENTRY * dvle.outputs.len();
        let symbols = uniforms + UNIFORM_ENTRY * dvle.uniforms.len();
        let symbol_table = dvle.canonical_symbol_table();
        let mut name_offsets = Vec::with_capacity(dvle.uniforms.len() + dvle.labels.len());
        let mut at = 0usize;
        let names = dvle
            .uniforms
            .iter()
            .map(|u| &u.name)
            .chain(dvle.labels.iter().map(|l| &l.name));
        for name in names {
            name_offsets.push(to_u32(at));
            at += name.len() + 1;
        }
        let label_names = name_offsets.split_off(dvle.uniforms.len());
        let size = symbols + symbol_table.len();
        let layout = DvleLayout {
            constants: to_u32(constants),
            constant_count: dvle.constants.len(),
            labels: to_u32(labels),
            outputs: to_u32(outputs),
            output_count: dvle.outputs.len(),
            uniforms: to_u32(uniforms),
            symbols: to_u32(symbols),
            symbol_table,
            uniform_names: name_offsets,
            label_names,
        };
        (layout, size)
    }

    fn fits(&self, dvle: &Dvle) -> bool {
        let names_match = |offsets: &[u32], names: &mut dyn Iterator<Item = &String>| {
            offsets
                .iter()
                .zip(names)
                .all(|(&offset, name)| name_at(&self.symbol_table, offset) == Some(name.as_bytes()))
        };
        self.constant_count == dvle.constants.len()
            && self.output_count == dvle.outputs.len()
            && self.uniform_names.len() == dvle.uniforms.len()
            && self.label_names.len() == dvle.labels.len()
            && names_match(
                &self.uniform_names,
                &mut dvle.uniforms.iter().map(|u| &u.name),
            )
            && names_match(&self.label_names, &mut dvle.labels.iter().map(|l| &l.name))
    }
}
