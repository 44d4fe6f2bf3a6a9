//! Shaders named on the command line: SHBIN files (every DVLE), PCAS cases (their own uniforms
//! and inputs), and picasso sources or `.shlist` lists of them (assembled here).

use std::path::Path;

use picajit::asm::Source;
use picajit::case::Case;
use picajit::shbin::Shbin;

use crate::workload::{self, Workload};

/// The workloads of one file.
pub fn load(path: &Path) -> Result<Vec<Workload>, String> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    let stem = stem(path);
    if bytes.starts_with(b"PCAS") {
        let case = Case::parse(&bytes).map_err(|e| format!("{shown}: {e}"))?;
        let program = case.program().map_err(|e| format!("{shown}: {e}"))?;
        return Ok(vec![Workload::new(
            stem,
            program,
            case.uniforms.clone(),
            case.inputs,
        )]);
    }
    let shbin = if bytes.starts_with(b"DVLB") {
        Shbin::parse(&bytes).map_err(|e| format!("{shown}: {e}"))?
    } else if is_source(path) {
        let sources = sources(path, &bytes)?;
        picajit::asm::assemble(&sources)
            .map(|(shbin, _warnings)| shbin)
            .map_err(|diags| {
                let text: Vec<String> = diags.iter().map(ToString::to_string).collect();
                text.join("\n")
            })?
    } else {
        return Err(format!(
            "{shown}: not a SHBIN (DVLB), a PCAS case, or a .pica/.shlist source"
        ));
    };
    let count = shbin.dvles.len();
    (0..count)
        .map(|d| {
            let name = if count == 1 {
                stem.clone()
            } else {
                format!("{stem}#{d}")
            };
            Workload::from_shbin(name, &shbin, d, workload::random_vertex)
        })
        .collect()
}

fn is_source(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "pica" || e == "shlist" || e == "vsh" || e == "gsh")
}

/// The sources of a `.pica` file, or of the files a `.shlist` names (relative to it).
fn sources(path: &Path, bytes: &[u8]) -> Result<Vec<Source>, String> {
    let text = String::from_utf8_lossy(bytes).into_owned();
    if path.extension().is_some_and(|e| e != "shlist") {
        return Ok(vec![Source::new(path.display().to_string(), text)]);
    }
    let dir = path.parent().unwrap_or(Path::new(""));
    text.split_whitespace()
        .map(|name| {
            let file = dir.join(name);
            std::fs::read(&file)
                .map(|b| {
                    Source::new(
                        file.display().to_string(),
                        String::from_utf8_lossy(&b).into_owned(),
                    )
                })
                .map_err(|e| format!("{}: {e}", file.display()))
        })
        .collect()
}

/// The file name without directories and without `.shbin`, `.pcas`, `.pica`, `.v`, `.g` endings.
fn stem(path: &Path) -> String {
    let mut name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    for ext in [
        ".shbin", ".pcas", ".pica", ".shlist", ".vsh", ".gsh", ".v", ".g",
    ] {
        if let Some(s) = name.strip_suffix(ext) {
            if !s.is_empty() {
                name = s.to_string();
            }
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::stem;
    use std::path::Path;

    #[test]
    fn stems() {
        assert_eq!(stem(Path::new("examples/shaders/mvp.v.pica")), "mvp");
        assert_eq!(stem(Path::new("/tmp/x.shbin")), "x");
        assert_eq!(stem(Path::new("case.pcas")), "case");
        assert_eq!(stem(Path::new("lit_subdivide.shlist")), "lit_subdivide");
    }
}
