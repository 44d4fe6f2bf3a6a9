//! AGALMiniAssembler's operand reading, reproduced without a regular-expression engine.
//!
//! Adobe's helper does not split operands on commas: it collects every match of
//!
//! ```text
//! vc\[([vofi][acostdip]?[d]?)(\d*)?((\.[xyzw])?(\+\d{1,3})?)?\](\.[xyzw]{1,4})?
//!   | ([vofi][acostdip]?[d]?)(\d*)?(\.[xyzw]{1,4})?          (global, case-insensitive)
//! ```
//!
//! in the text after the mnemonic, so missing commas are fine and anything that does not look
//! like a register is skipped (`ft1,xy` reads as `ft1`). Every quantifier in the pattern is
//! greedy and nothing after a greedy part can take back what it consumed, so the greedy scan
//! below finds exactly the matches a backtracking engine finds. Case folding is ASCII only (the
//! player's PCRE predates multi-case folding such as `ſ`/`s`).
//!
//! Each match is then read with the helper's smaller patterns ([`read_operand`]): the register
//! name is the first 1–3 letters (looked up case-sensitively, so `VC0` is refused while the
//! match itself was case-insensitive), the number is the first run of digits after the name —
//! for `vc[…]` the first digits inside the brackets, i.e. the index register's number — and the
//! swizzle or mask is the first `.` followed by 1–4 *lower-case* `xyzw` (so `.XY` is silently
//! ignored).

/// One operand match: byte range in the searched text and whether it is the `vc[…]` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    /// Start byte.
    pub start: usize,
    /// End byte (exclusive).
    pub end: usize,
    /// Byte range of `[…]` within the text, for the relative form.
    pub brackets: Option<(usize, usize)>,
}

fn lower(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

fn one_of(b: Option<&u8>, set: &[u8]) -> bool {
    b.is_some_and(|&c| set.contains(&lower(c)))
}

/// `([vofi][acostdip]?[d]?)(\d*)?` at `i`: the end, or `None` without the first letter.
fn name_and_digits(t: &[u8], mut i: usize) -> Option<usize> {
    if !one_of(t.get(i), b"vofi") {
        return None;
    }
    i += 1;
    if one_of(t.get(i), b"acostdip") {
        i += 1;
    }
    if one_of(t.get(i), b"d") {
        i += 1;
    }
    while t.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    Some(i)
}

/// `(\.[xyzw]{1,n})?` at `i` (case-insensitive): the end.
fn dot_letters(t: &[u8], i: usize, n: usize) -> usize {
    if t.get(i) != Some(&b'.') || !one_of(t.get(i + 1), b"xyzw") {
        return i;
    }
    let mut j = i + 1;
    while j < i + 1 + n && one_of(t.get(j), b"xyzw") {
        j += 1;
    }
    j
}

/// The relative alternative at `i`.
fn relative_at(t: &[u8], i: usize) -> Option<Match> {
    if !(t.get(i).map(|&b| lower(b)) == Some(b'v')
        && t.get(i + 1).map(|&b| lower(b)) == Some(b'c')
        && t.get(i + 2) == Some(&b'['))
    {
        return None;
    }
    let open = i + 2;
    let mut j = name_and_digits(t, i + 3)?;
    j = dot_letters(t, j, 1);
    if t.get(j) == Some(&b'+') && t.get(j + 1).is_some_and(u8::is_ascii_digit) {
        j += 1;
        let mut k = 0;
        while k < 3 && t.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
            k += 1;
        }
    }
    if t.get(j) != Some(&b']') {
        return None;
    }
    let close = j + 1;
    let end = dot_letters(t, close, 4);
    Some(Match {
        start: i,
        end,
        brackets: Some((open, close)),
    })
}

/// Every operand match in `text`, left to right.
pub fn find_operands(text: &str) -> Vec<Match> {
    let t = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if let Some(m) = relative_at(t, i) {
            i = m.end;
            out.push(m);
            continue;
        }
        if let Some(j) = name_and_digits(t, i) {
            let end = dot_letters(t, j, 4);
            out.push(Match {
                start: i,
                end,
                brackets: None,
            });
            i = end;
            continue;
        }
        // Not a match here: step one character (text is UTF-8; stay on a boundary).
        i += 1;
        while i < t.len() && !text.is_char_boundary(i) {
            i += 1;
        }
    }
    out
}

/// An operand match read the way the helper reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operand {
    /// The register name as looked up (1–3 leading letters of the operand with `[…]` replaced
    /// by `0`).
    pub name: String,
    /// The register number text: first digit run after the name, or for the relative form the
    /// first digit run inside the brackets (empty when there is none).
    pub digits: String,
    /// The swizzle or mask letters (1–4 of `xyzw`), when present.
    pub letters: Option<String>,
    /// The relative form's parts.
    pub relative: Option<Relative>,
}

/// The parts of `vc[…]` the helper reads from the bracket text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relative {
    /// The first 1–3 letters inside the brackets (the index register's name).
    pub index_name: String,
    /// The first `.` + one lower-case `xyzw` inside the brackets, as the letter.
    pub select: Option<u8>,
    /// The digits after the first `+` inside the brackets (1–3 of them).
    pub offset: Option<String>,
}

/// First run of ASCII digits in `s`.
fn first_digits(s: &str) -> String {
    let b = s.as_bytes();
    let Some(start) = b.iter().position(u8::is_ascii_digit) else {
        return String::new();
    };
    let end = b[start..]
        .iter()
        .position(|c| !c.is_ascii_digit())
        .map_or(b.len(), |n| start + n);
    s[start..end].to_string()
}

/// First `.` followed by 1–`n` lower-case `xyzw` in `s`: the letters.
fn first_lower_letters(s: &str, n: usize) -> Option<String> {
    let b = s.as_bytes();
    (0..b.len()).find_map(|i| {
        if b[i] != b'.' {
            return None;
        }
        let run = b[i + 1..]
            .iter()
            .take(n)
            .take_while(|c| b"xyzw".contains(c))
            .count();
        (run > 0).then(|| s[i + 1..i + 1 + run].to_string())
    })
}

/// Reads a match (`text` is the searched text). `canonical` gives, for a looked-up name, the
/// canonical name of its register (`op` → `vo`): the helper slices the operand after
/// `search(canonical)`, which is −1 for an alias, so an alias keeps all but its first letter
/// before the number is searched.
pub fn read_operand(
    text: &str,
    m: &Match,
    canonical: impl Fn(&str) -> Option<&'static str>,
) -> Operand {
    let whole = &text[m.start..m.end];
    let (replaced, relative) = match m.brackets {
        Some((open, close)) => {
            let inner = &text[open..close];
            let replaced = format!("{}0{}", &text[m.start..open], &text[close..m.end]);
            let index_name: String = {
                let b = inner.as_bytes();
                match b.iter().position(u8::is_ascii_alphabetic) {
                    Some(s) => inner[s..]
                        .bytes()
                        .take(3)
                        .take_while(u8::is_ascii_alphabetic)
                        .map(char::from)
                        .collect(),
                    None => String::new(),
                }
            };
            let select = first_lower_letters(inner, 1).map(|l| l.as_bytes()[0]);
            let offset = inner.match_indices('+').find_map(|(p, _)| {
                let d: String = inner[p + 1..]
                    .bytes()
                    .take(3)
                    .take_while(u8::is_ascii_digit)
                    .map(char::from)
                    .collect();
                (!d.is_empty()).then_some(d)
            });
            (
                replaced,
                Some((
                    Relative {
                        index_name,
                        select,
                        offset,
                    },
                    first_digits(inner),
                )),
            )
        }
        None => (whole.to_string(), None),
    };
    let name: String = replaced
        .bytes()
        .take(3)
        .take_while(u8::is_ascii_alphabetic)
        .map(char::from)
        .collect();
    let after = match canonical(&name) {
        Some(c) if replaced.starts_with(c) => &replaced[c.len()..],
        Some(c) => &replaced[(c.len() - 1).min(replaced.len())..],
        None => &replaced[name.len()..],
    };
    let digits = match &relative {
        Some((_, d)) => d.clone(),
        None => first_digits(after),
    };
    Operand {
        name,
        digits,
        letters: first_lower_letters(after, 4),
        relative: relative.map(|(r, _)| r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<&str> {
        find_operands(s)
            .into_iter()
            .map(|m| &s[m.start..m.end])
            .collect()
    }

    #[test]
    fn operand_matches() {
        assert_eq!(texts(" ft0, fc0.xyz"), ["ft0", "fc0.xyz"]);
        assert_eq!(texts(" vt2 vc5.xy, vt0"), ["vt2", "vc5.xy", "vt0"]);
        assert_eq!(texts(" ft1,xy"), ["ft1"]);
        assert_eq!(
            texts(" op, vc[va0.x+5].xyzw, v1"),
            ["op", "vc[va0.x+5].xyzw", "v1"]
        );
        assert_eq!(texts(" vc[va0.x+1234]"), ["vc", "va0.x"]);
        assert_eq!(texts(" iid0, oD1, VT0.XYZWX"), ["iid0", "oD1", "VT0.XYZW"]);
        assert_eq!(texts(" omg"), ["o"]);
        assert_eq!(texts("ftd0 vodd2"), ["ftd0", "vod"]);
    }

    fn canon(name: &str) -> Option<&'static str> {
        match name {
            "op" => Some("vo"),
            "v" | "i" | "fi" => Some("vi"),
            "oc" => Some("fo"),
            "vc" => Some("vc"),
            "ft" => Some("ft"),
            _ => None,
        }
    }

    #[test]
    fn reading() {
        let t = " vc[va2.y+17].xy";
        let m = find_operands(t)[0];
        let o = read_operand(t, &m, canon);
        assert_eq!(o.name, "vc");
        assert_eq!(o.digits, "2");
        assert_eq!(o.letters.as_deref(), Some("xy"));
        let r = o.relative.unwrap();
        assert_eq!(
            (r.index_name.as_str(), r.select, r.offset.as_deref()),
            ("va", Some(b'y'), Some("17"))
        );
        let t = " oc1";
        let o = read_operand(t, &find_operands(t)[0], canon);
        assert_eq!((o.name.as_str(), o.digits.as_str()), ("oc", "1"));
        let t = " ft3.XY";
        let o = read_operand(t, &find_operands(t)[0], canon);
        assert_eq!(o.letters, None, "upper-case letters are not a swizzle");
        let t = " ft3.xYz";
        let o = read_operand(t, &find_operands(t)[0], canon);
        assert_eq!(o.letters.as_deref(), Some("x"));
        let t = " vc[va.x+5]";
        let o = read_operand(t, &find_operands(t)[0], canon);
        assert_eq!(o.digits, "5", "the first digits inside the brackets");
    }
}
