//! The assembler's state and the driver: sources are read line by line; each line's labels and
//! statement are handled in order, exactly once, as picasso does (there is no second pass:
//! labels and procedures are patched in afterwards). Per-file state (labels, aliases, the
//! file's DVLE) is reset at the start of each file; the code blob, the descriptor table, the
//! procedures, the shared uniforms and the allocation pools live across files.
//!
//! Unlike picasso, a statement with an error does not stop the assembly: it is reported, the
//! statement is skipped (blocks it opens are still opened, so `.end` lines stay balanced) and
//! the file goes on, so every error of a file is reported at once.

use std::collections::HashMap;
use std::rc::Rc;

use super::alloc::{Kind, Pools};
use super::diag::{Diagnostic, Severity};
use super::opdesc::DescTable;
use super::operand::{self, Alias, Fail, Operand, Scope};
use super::text::{self, is_identifier, LineKind, Piece, Statement};
use super::{Options, Source};

/// The most blocks (procedures, IF, FOR, constant arrays) open at once.
pub(crate) const MAX_NESTING: usize = 32;
/// picasso's vertex-shader size check: no instruction may start once the blob holds more.
pub(crate) const VERTEX_CODE_LIMIT: usize = 512;

/// Where a deferred diagnostic points: bytes `at..end` of the line `lines[line_range]` of a
/// source text.
#[derive(Clone, Debug)]
pub(crate) struct Site {
    pub file: Rc<str>,
    pub line: u32,
    pub source: Rc<str>,
    pub line_range: (usize, usize),
    pub at: usize,
    pub end: usize,
}

/// A word whose target is filled in once names are known.
#[derive(Clone, Debug)]
pub(crate) struct Reloc {
    pub pos: usize,
    pub name: String,
    pub kind: RelocKind,
    pub site: Site,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RelocKind {
    /// jmpc/jmpu: the destination field takes a label of the file.
    Label,
    /// call/callc/callu: destination and count take a procedure's start and length.
    Proc,
    /// Extension forms with an explicit count: the destination takes a label of the file or
    /// else a procedure's start.
    Target,
    /// A [`RelocKind::Target`] that was not a label of its file: a procedure's start.
    TargetProc,
}

/// A target written as a name or as an address.
#[derive(Clone, Debug)]
pub(crate) enum TargetRef {
    Addr(u32),
    Name(String, Site),
}

/// The entry point of a DVLE.
#[derive(Clone, Debug)]
pub(crate) enum Entry {
    /// A procedure (picasso: `main` unless `.entry` names another).
    Proc(String, Option<Site>),
    /// Extension: explicit start and end (one past the last word).
    Range(TargetRef, TargetRef),
}

/// A constant-table entry being built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConstValue {
    /// Four raw 32-bit words (float24 values, or raw words written with `!`).
    Float([u32; 4]),
    Int([u8; 4]),
    Bool(bool),
}

/// A constant of a DVLE: register code (picasso's internal numbering) and value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Const {
    pub code: u32,
    pub value: ConstValue,
}

/// A uniform of a DVLE's table: name, first register (picasso's internal code; inputs are
/// 0x00..0x0F), number of registers.
#[derive(Clone, Debug)]
pub(crate) struct DvleUniform {
    pub name: String,
    pub code: u32,
    pub size: u32,
}

/// One file's DVLE (created the first time the file does something that needs it, as in
/// picasso).
#[derive(Clone, Debug)]
pub(crate) struct DvleData {
    pub file: Rc<str>,
    pub entry: Entry,
    pub nodvle: bool,
    pub geo: bool,
    pub compat: bool,
    pub merge: bool,
    pub input_mask: u16,
    pub output_mask: u16,
    pub gs_mode: u8,
    pub gs_fixed_start: u8,
    pub gs_variable_num: u8,
    pub gs_fixed_num: u8,
    pub uniforms: Vec<DvleUniform>,
    pub constants: Vec<Const>,
    /// (semantic code, register, component mask bit 0 = x).
    pub outputs: Vec<(u16, u16, u8)>,
    /// Components taken per output register (4 bits per register).
    pub output_used: u64,
}

impl DvleData {
    fn new(file: Rc<str>) -> DvleData {
        DvleData {
            file,
            entry: Entry::Proc("main".to_string(), None),
            nodvle: false,
            geo: false,
            compat: false,
            merge: false,
            input_mask: 0,
            output_mask: 0,
            gs_mode: 0,
            gs_fixed_start: 0,
            gs_variable_num: 0,
            gs_fixed_num: 0,
            uniforms: Vec::new(),
            constants: Vec::new(),
            outputs: Vec::new(),
            output_used: 0,
        }
    }

    /// Geometry shader with its own uniform space (`.gsh` with a mode).
    pub fn own_space(&self) -> bool {
        self.geo && !self.compat
    }

    /// Number of output registers: 16, or 7 in a geometry shader.
    pub fn output_limit(&self) -> u32 {
        if self.geo {
            7
        } else {
            16
        }
    }
}

/// A uniform of the shared (vertex) space.
#[derive(Clone, Debug)]
pub(crate) struct SharedUniform {
    pub name: String,
    pub code: u32,
    pub size: u32,
    pub kind: Kind,
}

/// An open block.
#[derive(Clone, Debug)]
pub(crate) enum Block {
    Proc {
        name: String,
        pos: usize,
        site: Site,
    },
    For {
        pos: usize,
        site: Site,
    },
    If {
        pos: usize,
        else_pos: Option<usize>,
        site: Site,
    },
    Array {
        name: String,
        size: Option<u32>,
        elems: Vec<[u32; 4]>,
        site: Site,
    },
}

impl Block {
    pub fn site(&self) -> &Site {
        match self {
            Block::Proc { site, .. }
            | Block::For { site, .. }
            | Block::If { site, .. }
            | Block::Array { site, .. } => site,
        }
    }
}

/// Per-file state.
#[derive(Default)]
pub(crate) struct FileState {
    pub name: Rc<str>,
    pub labels: HashMap<String, u32>,
    pub label_relocs: Vec<Reloc>,
    pub aliases: HashMap<String, Alias>,
    pub dvle: Option<usize>,
    pub size_reported: bool,
}

/// The current line, for diagnostics: `source[start..end]`.
#[derive(Clone)]
pub(crate) struct LineCtx {
    pub file: Rc<str>,
    pub number: u32,
    pub source: Rc<str>,
    pub start: usize,
    pub end: usize,
}

impl LineCtx {
    pub fn text(&self) -> &str {
        &self.source[self.start..self.end]
    }
}

/// The whole assembler.
pub(crate) struct Asm {
    pub opts: Options,
    pub diags: Vec<Diagnostic>,
    pub code: Vec<u32>,
    /// Per code word: written as a raw `!` word (never renumbered, never a padding trigger).
    pub raw: Vec<bool>,
    pub descs: DescTable,
    pub procs: HashMap<String, (u32, u32)>,
    pub proc_relocs: Vec<Reloc>,
    pub dvles: Vec<DvleData>,
    pub shared: Vec<SharedUniform>,
    /// [shared space, geometry-shader space].
    pub pools: [Pools; 2],
    pub last_was_end: bool,
    pub stack: Vec<Block>,
    pub file: FileState,
    pub line: LineCtx,
    /// Set by `.file`: start a new unit after this line.
    pub new_unit: Option<String>,
    /// Entry range of each DVLE, once linked.
    pub entries: Vec<Option<(u32, u32)>>,
}

impl Asm {
    pub fn new(opts: Options) -> Asm {
        Asm {
            opts,
            diags: Vec::new(),
            code: Vec::new(),
            raw: Vec::new(),
            descs: DescTable::default(),
            procs: HashMap::new(),
            proc_relocs: Vec::new(),
            dvles: Vec::new(),
            shared: Vec::new(),
            pools: [Pools::shared(), Pools::shared()],
            last_was_end: false,
            stack: Vec::new(),
            file: FileState::default(),
            line: LineCtx {
                file: "".into(),
                number: 0,
                source: "".into(),
                start: 0,
                end: 0,
            },
            new_unit: None,
            entries: Vec::new(),
        }
    }

    /// Assembles one source file (which may hold several units separated by `.file`).
    pub fn source(&mut self, src: &Source) {
        self.begin_file(src.name.as_str().into());
        let mut reported: Rc<str> = src.name.as_str().into();
        let mut next = 1u32;
        let source: Rc<str> = src.text.as_str().into();
        let mut offset = 0;
        for raw_line in src.text.split('\n') {
            let number = next;
            next = next.saturating_add(1);
            let text = raw_line.strip_suffix('\r').unwrap_or(raw_line);
            self.line = LineCtx {
                file: reported.clone(),
                number,
                source: source.clone(),
                start: offset,
                end: offset + text.len(),
            };
            offset += raw_line.len() + 1;
            // picasso reads the file as a C string: it ends at the first NUL byte.
            let nul = text.find('\0');
            if let Some(at) = nul {
                let fail = Fail::new(
                    Piece::new(&text[at..at + 1], at),
                    "NUL byte in source text: picasso stops reading the file here and ignores \
                     the rest; remove the NUL byte (and what follows it, if it is not meant to be \
                     assembled)",
                );
                if let Err(fail) = self.picasso_reads(fail) {
                    self.error(fail);
                    continue;
                }
            }
            let text = &text[..nul.unwrap_or(text.len())];
            match text::split_line(text) {
                LineKind::Marker { line, file } => {
                    next = line;
                    if let Some(file) = file {
                        reported = file.as_str().into();
                    }
                }
                LineKind::Code { labels, statement } => {
                    for label in labels {
                        self.label(label);
                    }
                    if let Some(st) = statement {
                        self.statement(st);
                    }
                }
            }
            if nul.is_some() {
                break;
            }
            if let Some(name) = self.new_unit.take() {
                self.end_file();
                let name = if name.is_empty() {
                    format!("{}#{}", src.name, number)
                } else {
                    name
                };
                self.begin_file(name.as_str().into());
            }
        }
        self.end_file();
    }

    fn begin_file(&mut self, name: Rc<str>) {
        self.pools[0].clear_local();
        self.file = FileState {
            name,
            ..FileState::default()
        };
    }

    fn label(&mut self, label: Piece<'_>) {
        if !is_identifier(label.s) {
            self.error(Fail::new(label, format!("invalid label name: {}", label.s)));
        } else if self.file.labels.contains_key(label.s) {
            self.error(Fail::new(label, format!("duplicate label: {}", label.s)));
        } else {
            self.file
                .labels
                .insert(label.s.to_string(), self.code.len() as u32);
        }
    }

    fn statement(&mut self, st: Statement<'_>) {
        let result = match st.head.s.strip_prefix('.') {
            Some(name) => self.directive(name, st),
            None => self.instruction(st),
        };
        if let Err(fail) = result {
            self.error(fail);
        }
    }

    // ---- diagnostics -------------------------------------------------------------------------

    pub fn error(&mut self, fail: Fail) {
        let d = self.diag(Severity::Error, fail);
        self.diags.push(d);
    }

    pub fn warn(&mut self, piece: Piece<'_>, msg: impl Into<String>) {
        let d = self.diag(Severity::Warning, Fail::new(piece, msg));
        self.diags.push(d);
    }

    /// Text picasso accepts but encodes as something other than what it says: the caller
    /// goes on with picasso's reading after a warning, or stops with the same message as an
    /// error under `--strict`.
    pub fn picasso_reads(&mut self, fail: Fail) -> Result<(), Fail> {
        if self.opts.strict {
            return Err(fail);
        }
        let d = self.diag(Severity::Warning, fail);
        self.diags.push(d);
        Ok(())
    }

    fn diag(&self, severity: Severity, fail: Fail) -> Diagnostic {
        Diagnostic::at(
            severity,
            &self.line.file,
            self.line.number,
            self.line.text(),
            fail.at,
            fail.end,
            fail.msg,
        )
    }

    /// A diagnostic at a saved site.
    pub fn error_at(&mut self, site: &Site, msg: String) {
        self.diags.push(Diagnostic::at(
            Severity::Error,
            &site.file,
            site.line,
            &site.source[site.line_range.0..site.line_range.1],
            site.at,
            site.end,
            msg,
        ));
    }

    /// The current position, saved for a later diagnostic.
    pub fn site(&self, piece: Piece<'_>) -> Site {
        Site {
            file: self.line.file.clone(),
            line: self.line.number,
            source: self.line.source.clone(),
            line_range: (self.line.start, self.line.end),
            at: piece.at,
            end: piece.end(),
        }
    }

    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
    }

    // ---- shared helpers ----------------------------------------------------------------------

    /// This file's DVLE, created on first use.
    pub fn dvle(&mut self) -> &mut DvleData {
        let index = match self.file.dvle {
            Some(i) => i,
            None => {
                self.dvles.push(DvleData::new(self.file.name.clone()));
                let i = self.dvles.len() - 1;
                self.file.dvle = Some(i);
                i
            }
        };
        &mut self.dvles[index]
    }

    /// Appends a code word.
    pub fn push(&mut self, word: u32, raw: bool) {
        self.code.push(word);
        self.raw.push(raw);
    }

    /// Parses an operand in the current file's scope.
    pub fn operand(&mut self, p: Piece<'_>) -> Result<Operand, Fail> {
        operand::parse(p, self)
    }

    /// Defines an alias; `identifier already used` if the name is taken.
    pub fn define_alias(&mut self, name: Piece<'_>, alias: Alias) -> Result<(), Fail> {
        if self.file.aliases.contains_key(name.s) {
            return Err(Fail::new(
                name,
                format!("identifier already used: {}", name.s),
            ));
        }
        self.file.aliases.insert(name.s.to_string(), alias);
        Ok(())
    }

    /// Checks the name is free, without defining it.
    pub fn alias_free(&self, name: Piece<'_>) -> Result<(), Fail> {
        if self.file.aliases.contains_key(name.s) {
            return Err(Fail::new(
                name,
                format!("identifier already used: {}", name.s),
            ));
        }
        Ok(())
    }

    /// Warns when a declared name reads as a register (it then hides that register).
    pub fn warn_if_register_like(&mut self, name: Piece<'_>) {
        if text::looks_like_register(name.s) {
            self.warn(
                name,
                format!(
                    "`{}` reads as a register; the name hides that register in this file",
                    name.s
                ),
            );
        }
    }

    /// Index of the pool set this file allocates from (0 shared, 1 geometry).
    pub fn space(&mut self) -> usize {
        usize::from(self.dvle().own_space())
    }
}

impl Scope for Asm {
    fn alias(&self, name: &str) -> Option<Alias> {
        self.file.aliases.get(name).copied()
    }

    fn output_limit(&mut self) -> u32 {
        self.dvle().output_limit()
    }

    fn picasso_reads(&mut self, fail: Fail) -> Result<(), Fail> {
        Asm::picasso_reads(self, fail)
    }
}
