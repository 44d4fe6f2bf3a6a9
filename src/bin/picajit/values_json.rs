//! The JSON form of a `--values` file: one object whose keys are the names of the text form
//! (registers, or names the DVLE declares, optionally `name[N]`) and whose values are a number,
//! an array of numbers, an array of rows of numbers (one row per register), `true`/`false`, or a
//! string in the text form's syntax. Numbers are read as JSON numbers and rounded to f32.
//! Settings apply in the order of the keys; a key given twice is an error.
//!
//! ```json
//! { "mvp": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
//!   "c4": [1, 0, 0, 0], "i0": [3, 0, 1], "b3": true, "pos": [0.5, 0.5, 0, 1] }
//! ```

use std::fmt;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, Error, MapAccess, Visitor};
use serde_json::Value;

use crate::values::Setting;

/// The object's entries in file order.
struct Entries(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(EntriesVisitor)
    }
}

struct EntriesVisitor;

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = Entries;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of name: values entries")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
        let mut entries: Vec<(String, Value)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            if entries.iter().any(|(k, _)| *k == key) {
                return Err(A::Error::custom(format!("`{key}` is given twice")));
            }
            entries.push((key, value));
        }
        Ok(Entries(entries))
    }
}

/// Settings from the JSON text of `path`, in key order.
pub fn settings(text: &str, path: &Path) -> Result<Vec<Setting>, String> {
    let entries: Entries = serde_json::from_str(text)
        .map_err(|e| format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))?;
    entries
        .0
        .into_iter()
        .map(|(name, value)| {
            let origin = format!("{}: \"{name}\"", path.display());
            let values = values_text(&value).map_err(|msg| format!("{origin}: {msg}"))?;
            Ok(Setting {
                text: format!("{name} = {values}"),
                origin,
            })
        })
        .collect()
}

const EXPECTED: &str =
    "expected a number, an array of numbers or of rows of numbers, true/false, or a string";

/// A JSON value as the values of the text form.
fn values_text(value: &Value) -> Result<String, String> {
    let numbers = |items: &[Value]| -> Result<Vec<String>, String> {
        items
            .iter()
            .map(|item| match item {
                Value::Number(n) => Ok(number(n)),
                Value::Null
                | Value::Bool(_)
                | Value::String(_)
                | Value::Array(_)
                | Value::Object(_) => Err(format!("{EXPECTED}, not {item}")),
            })
            .collect()
    };
    match value {
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(number(n)),
        Value::String(s) => Ok(s.clone()),
        Value::Array(items) if items.iter().all(Value::is_array) => {
            let mut all = Vec::new();
            for row in items {
                all.extend(numbers(row.as_array().map_or(&[], Vec::as_slice))?);
            }
            Ok(all.join(","))
        }
        Value::Array(items) => Ok(numbers(items)?.join(",")),
        Value::Null | Value::Object(_) => Err(format!("{EXPECTED}, not {value}")),
    }
}

/// A JSON number as text the text form reads back to the same f32 (integers stay integers).
fn number(n: &serde_json::Number) -> String {
    match (n.as_i64(), n.as_f64()) {
        (Some(i), _) => i.to_string(),
        (None, Some(x)) => (x as f32).to_string(),
        (None, None) => n.to_string(),
    }
}
