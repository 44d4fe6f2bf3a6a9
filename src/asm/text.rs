//! The text layer: a source file cut into lines, comments (`;` as in picasso, and `#`), cpp line
//! markers (`# 12 "file.pica"`), labels before a statement (`name:` — every colon ends one, as in
//! picasso), and the argument splitting picasso applies to the rest of a statement (at commas,
//! at blanks, or at an opening parenthesis). Every piece of text keeps its byte offset in the
//! line so that diagnostics can point at it.

/// A slice of one source line and where it starts in that line (byte offset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece<'a> {
    pub s: &'a str,
    pub at: usize,
}

impl<'a> Piece<'a> {
    pub fn new(s: &'a str, at: usize) -> Piece<'a> {
        Piece { s, at }
    }

    /// Byte offset one past the end.
    pub fn end(&self) -> usize {
        self.at + self.s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.s.is_empty()
    }

    /// Without leading and trailing whitespace.
    pub fn trim(self) -> Piece<'a> {
        let start = self.s.len() - self.s.trim_start().len();
        Piece::new(self.s.trim(), self.at + start)
    }

    /// Bytes `start..end` of this piece.
    pub fn slice(self, start: usize, end: usize) -> Piece<'a> {
        Piece::new(&self.s[start..end], self.at + start)
    }

    /// From byte `start` to the end.
    pub fn from(self, start: usize) -> Piece<'a> {
        self.slice(start, self.s.len())
    }

    /// Up to byte `end`.
    pub fn to(self, end: usize) -> Piece<'a> {
        self.slice(0, end)
    }

    /// Split at the first `c`: the text before it and, if `c` occurs, the text after it.
    pub fn split_once(self, c: char) -> (Piece<'a>, Option<Piece<'a>>) {
        match self.s.find(c) {
            Some(i) => (self.to(i), Some(self.from(i + c.len_utf8()))),
            None => (self, None),
        }
    }
}

/// What one source line holds once comments, markers and labels are taken off.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LineKind<'a> {
    /// A cpp line marker: the next line is line `line` of `file` (if given).
    Marker { line: u32, file: Option<String> },
    /// Labels (possibly none) and an optional statement.
    Code {
        labels: Vec<Piece<'a>>,
        statement: Option<Statement<'a>>,
    },
}

/// A statement: its first word (mnemonic or directive) and the rest of the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Statement<'a> {
    pub head: Piece<'a>,
    pub rest: Piece<'a>,
}

/// Cuts one line (without its `\n`) into a marker or labels and a statement.
pub(crate) fn split_line(line: &str) -> LineKind<'_> {
    let whole = Piece::new(line, 0);
    if let Some(marker) = line_marker(line.trim_start()) {
        return marker;
    }
    let code_end = line
        .bytes()
        .position(|b| b == b';' || b == b'#')
        .unwrap_or(line.len());
    let mut code = whole.to(code_end).trim();
    let mut labels = Vec::new();
    while let (name, Some(after)) = code.split_once(':') {
        labels.push(name.trim());
        code = after.trim();
    }
    let statement = if code.is_empty() {
        None
    } else {
        let head_end = code.s.find(char::is_whitespace).unwrap_or(code.s.len());
        Some(Statement {
            head: code.to(head_end),
            rest: code.from(head_end).trim(),
        })
    };
    LineKind::Code { labels, statement }
}

/// `# N "file" flags…` or `#line N "file"` (cpp output); anything else starting with `#` is a
/// comment.
fn line_marker(line: &str) -> Option<LineKind<'static>> {
    let rest = line.strip_prefix('#')?.trim_start();
    let rest = match rest.strip_prefix("line") {
        Some(r) if r.starts_with([' ', '\t']) => r.trim_start(),
        Some(_) | None => rest,
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let number: u32 = rest[..digits].parse().ok()?;
    let after = &rest[digits..];
    if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
        return None;
    }
    let file = quoted(after.trim_start());
    Some(LineKind::Marker { line: number, file })
}

/// A C string literal at the start of `s` (escapes `\\`, `\"` and octal kept simple).
fn quoted(s: &str) -> Option<String> {
    let mut chars = s.strip_prefix('"')?.chars();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => out.push(chars.next()?),
            other => out.push(other),
        }
    }
    None
}

/// The arguments of a statement, taken one at a time the way picasso's tokenizer does: a piece
/// ends at the next delimiter, the remaining text starts right after it, and nothing is left
/// once the remaining text is empty (so a single trailing comma is accepted, as in picasso).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Args<'a> {
    rest: Piece<'a>,
}

impl<'a> Args<'a> {
    pub fn new(rest: Piece<'a>) -> Args<'a> {
        Args { rest }
    }

    /// Takes the text up to the next delimiter byte (delimiters are ASCII, so a byte match is
    /// always a whole character).
    fn take(&mut self, is_delim: impl Fn(u8) -> bool) -> Option<Piece<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        match self.rest.s.bytes().position(is_delim) {
            Some(i) => {
                let piece = self.rest.to(i);
                self.rest = self.rest.from(i + 1);
                Some(piece.trim())
            }
            None => {
                let piece = self.rest;
                self.rest = self.rest.from(self.rest.s.len());
                Some(piece.trim())
            }
        }
    }

    /// The text not taken yet.
    pub fn rest(&self) -> Piece<'a> {
        self.rest
    }

    /// The next comma-separated piece (trimmed; may be empty).
    pub fn comma(&mut self) -> Option<Piece<'a>> {
        self.take(|c| c == b',')
    }

    /// The next blank-separated word; blanks after it are skipped.
    pub fn word(&mut self) -> Option<Piece<'a>> {
        let piece = self.take(|c| c == b' ' || c == b'\t');
        let skip = self.rest.s.len() - self.rest.s.trim_start().len();
        self.rest = self.rest.from(skip);
        piece
    }
}

/// picasso's identifier rule: letters, `_` and `$`, digits after the first character. (The
/// empty name passes, as in picasso; callers that need a name check for it.)
pub(crate) fn is_identifier(s: &str) -> bool {
    s.char_indices().all(|(i, c)| {
        c.is_ascii_alphabetic() || c == '_' || c == '$' || (i > 0 && c.is_ascii_digit())
    })
}

/// A name that reads as a register (`r2`, `c10x`, `v0`): a register letter then a digit.
pub(crate) fn looks_like_register(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(
        (chars.next().map(|c| c.to_ascii_lowercase()), chars.next()),
        (Some('o' | 'v' | 'r' | 'c' | 'i' | 'b'), Some(d)) if d.is_ascii_digit()
    )
}
