//! Diagnostics: errors and warnings located by file, line and column, printed as
//! `file:line:col: error: message` followed by the offending source line and a marker under the
//! offending text.

use std::fmt;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The input is refused; no output is written.
    Error,
    /// The input is accepted, but something is probably not what was meant.
    Warning,
}

/// One message about the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file name as reported (a cpp line marker can change it).
    pub file: String,
    /// 1-based line number as reported, or `None` for a message about a whole file.
    pub line: Option<u32>,
    /// 1-based column (in characters) of the offending text, when there is a line.
    pub col: Option<u32>,
    /// What is wrong, e.g. `invalid register: q5`.
    pub message: String,
    /// The source line the message is about (without its line break).
    pub source: Option<String>,
    /// Width in characters of the offending text (at least 1 when there is a source line).
    pub width: usize,
}

impl Diagnostic {
    /// A message about a whole file (no line).
    pub fn file_level(severity: Severity, file: &str, message: String) -> Diagnostic {
        Diagnostic {
            severity,
            file: file.to_string(),
            line: None,
            col: None,
            message,
            source: None,
            width: 0,
        }
    }

    /// A message about bytes `start..end` of `source`, which is line `line` of `file`.
    pub fn at(
        severity: Severity,
        file: &str,
        line: u32,
        source: &str,
        start: usize,
        end: usize,
        message: String,
    ) -> Diagnostic {
        let start = floor_char_boundary(source, start.min(source.len()));
        let end = floor_char_boundary(source, end.clamp(start, source.len()));
        let col = source[..start].chars().count() as u32 + 1;
        let width = source[start..end].chars().count().max(1);
        Diagnostic {
            severity,
            file: file.to_string(),
            line: Some(line),
            col: Some(col),
            message,
            source: Some(source.to_string()),
            width,
        }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The first line only: `file:line:col: error: message`.
    pub fn headline(&self) -> String {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match (self.line, self.col) {
            (Some(line), Some(col)) => {
                format!("{}:{line}:{col}: {kind}: {}", self.file, self.message)
            }
            (Some(line), None) => format!("{}:{line}: {kind}: {}", self.file, self.message),
            (None, _) => format!("{}: {kind}: {}", self.file, self.message),
        }
    }
}

fn floor_char_boundary(s: &str, mut at: usize) -> usize {
    while at > 0 && !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

impl fmt::Display for Diagnostic {
    /// The headline, then (when known) the source line (tabs as blanks, other control
    /// characters as `?`) with `^~~~` under the offending text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.headline())?;
        if let (Some(source), Some(col)) = (&self.source, self.col) {
            let shown: String = source
                .chars()
                .map(|c| match c {
                    '\t' => ' ',
                    c if c.is_control() => '?',
                    c => c,
                })
                .collect();
            let pad = " ".repeat(col as usize - 1);
            let marker = format!("^{}", "~".repeat(self.width.saturating_sub(1)));
            write!(f, "\n    {}\n    {pad}{marker}", shown.trim_end())?;
        }
        Ok(())
    }
}
