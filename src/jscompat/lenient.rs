//! `JSON.parse` leniency: lone surrogate escapes (`"\ud83d"`) that a strict Rust
//! parser rejects are repaired to `\ufffd` and the text parsed again.

use serde::de::DeserializeOwned;
use serde_json::Value;

fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
    let digits = bytes.get(at..at.checked_add(4)?)?;
    let mut v: u16 = 0;
    for &d in digits {
        let n = char::from(d).to_digit(16)?;
        v = (v << 4) | n as u16;
    }
    Some(v)
}

fn is_high_surrogate(u: u16) -> bool {
    (0xD800..=0xDBFF).contains(&u)
}

fn is_low_surrogate(u: u16) -> bool {
    (0xDC00..=0xDFFF).contains(&u)
}

/// Calls `f(offset)` with the byte offset of every `\uXXXX` escape inside a JSON
/// string literal of `line` that encodes a lone surrogate. Each such escape is
/// exactly 6 ASCII bytes long.
fn for_each_lone_surrogate_escape(line: &str, mut f: impl FnMut(usize)) {
    // A lone surrogate escape needs `\u` followed by `d`/`D`: cheap memchr-style
    // pre-check so ordinary lines cost almost nothing.
    if !(line.contains("\\ud") || line.contains("\\uD")) {
        return;
    }
    let bytes = line.as_bytes();
    let mut i = 0usize;
    let mut in_string = false;
    // Only ASCII bytes are compared, and UTF-8 continuation bytes are never
    // ASCII, so stepping over escapes byte-wise can never mis-sync.
    while let Some(&c) = bytes.get(i) {
        if !in_string {
            in_string = c == b'"';
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' => {
                let unit = if bytes.get(i + 1) == Some(&b'u') {
                    hex4(bytes, i + 2)
                } else {
                    None
                };
                match unit {
                    Some(u) if is_high_surrogate(u) => {
                        let paired = bytes.get(i + 6) == Some(&b'\\')
                            && bytes.get(i + 7) == Some(&b'u')
                            && hex4(bytes, i + 8).is_some_and(is_low_surrogate);
                        if paired {
                            i += 12;
                        } else {
                            f(i);
                            i += 6;
                        }
                    }
                    Some(u) if is_low_surrogate(u) => {
                        f(i);
                        i += 6;
                    }
                    Some(_) => i += 6,
                    // `\"`, `\\`, `\n`, ... (or an invalid escape): skip both bytes.
                    None => i += 2,
                }
            }
            _ => i += 1,
        }
    }
}

/// Rewrites every lone surrogate escape inside the JSON string literals of
/// `line` (a high surrogate `\uD800`–`\uDBFF` not immediately followed by a low
/// surrogate escape, or a low surrogate `\uDC00`–`\uDFFF` not preceded by a high
/// one) to `\ufffd`. Escaped backslashes are respected (`"\\ud83d"` is a
/// backslash followed by text and is left alone). Returns `None` when nothing
/// needed repair.
///
/// The replacement keeps byte offsets (both escapes are 6 bytes) and the decoded
/// UTF-16 length (1 unit each). It does *not* keep `JSON.stringify` lengths: JS
/// prints a lone surrogate as a 6-char `\udxxx` escape but U+FFFD as 1 char (see
/// the module docs and [`count_lone_surrogate_escapes_in_strings`]).
pub fn repair_lone_surrogates(line: &str) -> Option<String> {
    let mut out: Option<String> = None;
    let mut copied = 0usize;
    for_each_lone_surrogate_escape(line, |at| {
        let buf = out.get_or_insert_with(|| String::with_capacity(line.len()));
        // `copied` and `at` sit on ASCII bytes, hence on char boundaries.
        buf.push_str(&line[copied..at]);
        buf.push_str("\\ufffd");
        copied = at + 6;
    });
    let mut buf = out?;
    buf.push_str(&line[copied..]);
    Some(buf)
}

/// Number of lone surrogate escapes inside JSON string literals of `line` (what
/// [`repair_lone_surrogates`] would replace). Nearly free for lines without any
/// `\ud`/`\uD` text.
pub fn count_lone_surrogate_escapes_in_strings(line: &str) -> usize {
    let mut n = 0usize;
    for_each_lone_surrogate_escape(line, |_| n += 1);
    n
}

/// Parses one JSON text like `JSON.parse`: strict `serde_json` first, and on
/// failure a retry with lone surrogates repaired (see
/// [`repair_lone_surrogates`]). The flag tells whether the repair was used.
///
/// On failure, the error of the last attempt is returned (the repaired text has
/// the same byte offsets as the original).
pub fn parse_lenient(line: &str) -> Result<(Value, bool), serde_json::Error> {
    from_str_lenient(line)
}

/// [`parse_lenient`] for any owned deserializable type, e.g. a typed entry or
/// [`StringifyLen`](super::StringifyLen).
pub fn from_str_lenient<T: DeserializeOwned>(line: &str) -> Result<(T, bool), serde_json::Error> {
    match serde_json::from_str(line) {
        Ok(v) => Ok((v, false)),
        Err(err) => match repair_lone_surrogates(line) {
            Some(fixed) => serde_json::from_str(&fixed).map(|v| (v, true)),
            None => Err(err),
        },
    }
}
