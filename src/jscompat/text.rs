//! `String.prototype.trim` and JavaScript truthiness (`!value`) for parsed JSON.

use serde_json::Value;

/// JS `WhiteSpace` or `LineTerminator` (what `String.prototype.trim` strips):
/// U+0009–U+000D (TAB, LF, VT, FF, CR); SPACE; U+00A0; U+1680;
/// U+2000–U+200A; U+2028; U+2029; U+202F; U+205F; U+3000; U+FEFF.
///
/// Unlike `char::is_whitespace` this excludes U+0085 and includes U+FEFF.
#[inline]
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{D}'
            | ' '
            | '\u{A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// JS `s.trim()`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// `s.trim() === ""` in JS.
pub fn js_trim_is_empty(s: &str) -> bool {
    // ASCII fast path: SPACE, TAB, LF, VT, FF, CR.
    if s.bytes().all(|b| b == b' ' || (0x09..=0x0D).contains(&b)) {
        return true;
    }
    s.chars().all(is_js_whitespace)
}

/// `!value` in JS for a parsed JSON value: `null`, `false`, `0`/`-0`, `""`.
/// Arrays and objects (even empty) are truthy.
pub fn js_is_falsy(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f == 0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(_) | Value::Object(_) => false,
    }
}
