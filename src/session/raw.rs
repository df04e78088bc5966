//! Raw reads of one line: `JSON.parse` into a value without serde_json's recursion limit
//! ([`parse_value`]), and the verbatim JSON text of the one field a planner copies
//! ([`raw_field`]). This module does no I/O.

use serde::Deserialize;
use serde::de::Deserializer;
use serde_json::value::RawValue;

use crate::jscompat;

/// Deepest nesting pi-shake parses (JSON.parse has no limit; past this we would risk the stack
/// while serialising and dropping values).
pub const MAX_DEPTH: usize = 20_000;

/// Nesting depth of a JSON text, ignoring brackets inside strings.
pub(super) fn nesting_depth(text: &str) -> usize {
    let (mut d, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &b in text.as_bytes() {
        if in_str {
            match b {
                _ if esc => esc = false,
                b'\\' => esc = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                d += 1;
                max = max.max(d);
            }
            b']' | b'}' => d = d.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Parse without serde_json's 128-level recursion limit, growing the stack as needed.
pub(super) fn from_str_deep<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = T::deserialize(serde_stacker::Deserializer::new(&mut de))?;
    de.end()?;
    Ok(v)
}

/// `JSON.parse` of one line into a value: lenient about lone surrogates, unlimited depth up to
/// [`MAX_DEPTH`] (callers run on a large stack; see [`crate::run`]).
pub fn parse_value(text: &str) -> Result<(serde_json::Value, bool), serde_json::Error> {
    match jscompat::parse_lenient(text) {
        Err(e) if is_depth_error(&e) && nesting_depth(text) <= MAX_DEPTH => {
            let repaired = jscompat::repair_lone_surrogates(text);
            let t = repaired.as_deref().unwrap_or(text);
            stacker::grow(512 << 20, || {
                from_str_deep::<serde_json::Value>(t).map(|v| (v, repaired.is_some()))
            })
        }
        other => other,
    }
}

pub(super) fn raw_some<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// A field [`raw_field`] copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawField {
    /// The content pi projects for a message or custom message (`null`/missing → `[]`).
    Content,
    /// A `context_edit`'s `replacement` (missing → `null`).
    Replacement,
}

#[derive(Deserialize)]
struct RawFields<'a> {
    #[serde(default, borrow)]
    message: Option<RawFieldsMsg<'a>>,
    #[serde(default, borrow, deserialize_with = "raw_some")]
    content: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "raw_some")]
    replacement: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct RawFieldsMsg<'a> {
    #[serde(default, borrow, deserialize_with = "raw_some")]
    content: Option<&'a RawValue>,
}

/// The JSON text of `field` in one entry line (verbatim when serde can borrow it).
pub fn raw_field(text: &str, field: RawField) -> Result<String, serde_json::Error> {
    let normal = |raw: Option<&str>| -> String {
        match (field, raw) {
            (RawField::Content, None | Some("null")) => "[]".to_string(),
            (RawField::Replacement, None) => "null".to_string(),
            (_, Some(r)) => r.to_string(),
        }
    };
    // Borrowed raw values keep the bytes exactly, lone surrogate escapes included.
    if let Ok(f) = serde_json::from_str::<RawFields<'_>>(text) {
        let raw = match (field, f.message) {
            (RawField::Content, Some(m)) => m.content,
            (RawField::Content, None) => f.content,
            (RawField::Replacement, _) => f.replacement,
        };
        return Ok(normal(raw.map(RawValue::get)));
    }
    let (v, _) = parse_value(text)?;
    let raw = match (field, v.get("message")) {
        (RawField::Content, Some(m)) => m.get("content"),
        (RawField::Content, None) => v.get("content"),
        (RawField::Replacement, _) => v.get("replacement"),
    };
    Ok(normal(raw.map(|x| x.to_string()).as_deref()))
}

pub(super) fn is_depth_error(e: &serde_json::Error) -> bool {
    e.to_string().contains("recursion limit exceeded")
}
