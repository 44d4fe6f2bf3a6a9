//! Uniform and input values given on the command line of `picajit run` (`--uniform c4=1,0,0,0`,
//! `--input v0=…`) or in a values file (`--values FILE`: one `name = values` per line, `#` or
//! `;` comments, or the JSON object of `values_json`). A name is a register (`c4`, `i0`, `b3`, `v2`) or, for a SHBIN, a name the
//! DVLE declares (`.fvec`, `.ivec`, `.bool`, `.in`), optionally with an element (`mvp[2]`).
//! Float registers take 1 to 4 numbers per register (missing components are 0, `w` included)
//! and a name of several registers takes 4 per register, one row per register; integer
//! registers take up to 4 integers (count, start, step); bools take `true`/`false`/`1`/`0`.
//! Inputs apply to every vertex.

use picajit::program::{Regs16, Uniforms};
use picajit::shbin::{Dvle, RegisterFile, RegisterRange};

/// One `name=values` setting and where it came from (for messages).
pub struct Setting {
    pub text: String,
    pub origin: String,
}

/// Settings from `--values FILE`, in file order: the JSON form (`values_json`) when the text
/// starts with `{`, else the text form.
pub fn from_file(path: &std::path::Path) -> Result<Vec<Setting>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if text.trim_start().starts_with('{') {
        return crate::values_json::settings(&text, path);
    }
    Ok(text
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let line = line.split(['#', ';']).next().unwrap_or("").trim();
            (!line.is_empty()).then(|| Setting {
                text: line.to_string(),
                origin: format!("{}:{}", path.display(), i + 1),
            })
        })
        .collect())
}

/// The registers a name stands for: a register name, or a name in the DVLE's table.
fn resolve(name: &str, dvle: Option<&Dvle>) -> Result<RegisterRange, String> {
    let (base, element) = match name.split_once('[') {
        Some((base, rest)) => {
            let index = rest
                .strip_suffix(']')
                .and_then(|n| n.trim().parse::<u8>().ok())
                .ok_or_else(|| format!("bad element in `{name}` (write `name[N]`)"))?;
            (base.trim(), Some(index))
        }
        None => (name, None),
    };
    let range = match dvle.and_then(|d| d.uniform(base)) {
        Some(range) => range,
        None => register(base).ok_or_else(|| {
            format!(
                "`{base}` is neither a register (c0..c95, i0..i3, b0..b15, v0..v15) nor a name \
                 the DVLE declares"
            )
        })?,
    };
    match element {
        None => Ok(range),
        Some(k) if usize::from(k) < range.count() => Ok(RegisterRange {
            first: range.first + k,
            last: range.first + k,
            ..range
        }),
        Some(k) => Err(format!(
            "`{name}`: {base} has {} registers, not {}",
            range.count(),
            k + 1
        )),
    }
}

fn register(name: &str) -> Option<RegisterRange> {
    let mut chars = name.chars();
    let file = match chars.next()? {
        'c' => RegisterFile::Float,
        'i' => RegisterFile::Int,
        'b' => RegisterFile::Bool,
        'v' => RegisterFile::Input,
        _ => return None,
    };
    let digits = chars.as_str();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u16 = digits.parse().ok()?;
    (n < file.size()).then_some(RegisterRange {
        file,
        first: n as u8,
        last: n as u8,
    })
}

fn floats(values: &str) -> Result<Vec<f32>, String> {
    values
        .split(',')
        .map(|v| {
            let v = v.trim();
            v.parse::<f32>()
                .map_err(|_| format!("`{v}` is not a number"))
        })
        .collect()
}

/// Applies one setting to the uniforms and every vertex's inputs.
pub fn apply(
    setting: &Setting,
    dvle: Option<&Dvle>,
    uniforms: &mut Uniforms,
    inputs: &mut [Regs16],
) -> Result<(), String> {
    let fail = |msg: String| format!("{}: `{}`: {msg}", setting.origin, setting.text);
    let (name, values) = setting
        .text
        .split_once('=')
        .ok_or_else(|| fail("expected name=values".into()))?;
    let range = resolve(name.trim(), dvle).map_err(fail)?;
    let values = values.trim();
    let regs = range.indices();
    match range.file {
        RegisterFile::Float | RegisterFile::Input => {
            let v = floats(values).map_err(fail)?;
            let rows = if regs.len() == 1 && v.len() <= 4 {
                vec![v]
            } else if v.len() == 4 * regs.len() {
                v.chunks(4).map(<[f32]>::to_vec).collect()
            } else {
                return Err(fail(format!(
                    "{range} takes {} numbers (4 per register), not {}",
                    4 * regs.len(),
                    v.len()
                )));
            };
            for (r, row) in regs.zip(rows) {
                let mut vec4 = [0.0; 4];
                vec4[..row.len()].copy_from_slice(&row);
                if range.file == RegisterFile::Float {
                    uniforms.f[r] = vec4;
                } else {
                    for vertex in inputs.iter_mut() {
                        vertex[r] = vec4;
                    }
                }
            }
        }
        RegisterFile::Int => {
            let v: Vec<u8> = values
                .split(',')
                .map(|x| x.trim().parse::<u8>())
                .collect::<Result<_, _>>()
                .map_err(|_| fail("integer uniforms take up to 4 numbers 0..255".into()))?;
            if regs.len() != 1 || v.len() > 4 {
                return Err(fail(format!("{range} takes up to 4 integers")));
            }
            let mut ivec = [0u8; 4];
            ivec[..v.len()].copy_from_slice(&v);
            uniforms.i[regs.start] = ivec;
        }
        RegisterFile::Bool => {
            let value = match values.to_ascii_lowercase().as_str() {
                "true" | "1" | "on" => true,
                "false" | "0" | "off" => false,
                _ => return Err(fail("bools take true or false".into())),
            };
            for b in regs {
                uniforms.set_bool(b, value);
            }
        }
    }
    Ok(())
}
