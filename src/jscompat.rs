//! JavaScript parity helpers: UTF-16 lengths, `JSON.stringify` lengths with JS
//! number formatting, lenient parsing of lone surrogates.
//!
//! pi is a Node.js program. Its token estimate is `Math.ceil(chars / 4)` where
//! `chars` is a JavaScript `String.length` (UTF-16 code units), and for tool-call
//! arguments it is `JSON.stringify(arguments).length` (pi-format.md §10.1, §15
//! items 1–4). Session lines are read with `JSON.parse`, which accepts escapes a
//! strict Rust parser rejects. This module reproduces exactly those behaviours:
//!
//! * [`utf16_len`]: `s.length` for a Rust `&str`.
//! * [`js_number_string`] / [`js_number_len`]: what `JSON.stringify` prints for a
//!   number after `JSON.parse` (IEEE doubles, shortest round trip, `1e+21`,
//!   `-0` → `0`).
//! * [`stringify_len`]: `JSON.stringify(v).length` for a [`serde_json::Value`].
//! * [`StringifyLen`] / [`Utf16Len`]: the same lengths computed *while
//!   deserializing*, without building a `Value` (duplicate object keys collapse
//!   to the last value, as `JSON.parse` does).
//! * [`repair_lone_surrogates`] / [`parse_lenient`] / [`from_str_lenient`]:
//!   accept lone surrogate escapes (`"\ud83d"`) like `JSON.parse` by rewriting
//!   them to `\ufffd`.
//! * [`js_trim_is_empty`], [`js_trim`], [`is_js_whitespace`]: `String.prototype.trim`.
//! * [`js_is_falsy`]: `!value` for parsed JSON.
//! * [`iso_millis_to_epoch_ms`] / [`epoch_ms_to_iso`]: `new Date(s).getTime()` and
//!   `Date.prototype.toISOString()` for the ISO forms pi writes.
//!
//! # Known, unavoidable differences
//!
//! * **Lone surrogates.** A JS string can hold an unpaired surrogate; a Rust
//!   `String` cannot. After [`repair_lone_surrogates`] each one becomes U+FFFD,
//!   which keeps the *decoded* UTF-16 length identical (1 unit each), so
//!   `text.length`-based estimates still match pi. `JSON.stringify`, however,
//!   prints a lone surrogate as the 6-char escape `\udxxx` while U+FFFD is printed
//!   raw (1 char): the stringify length of a repaired value is **5 less per lone
//!   surrogate** than pi's. [`count_lone_surrogate_escapes_in_strings`] counts them
//!   so callers can warn (or add `5 * count` when they know all of them are inside
//!   the stringified value). Two object keys that differ only in *which* lone
//!   surrogate they hold would also collapse into one key after repair.
//! * **Float parsing.** Numbers are formatted from the `f64` that `serde_json`
//!   produced. Without `serde_json`'s `float_roundtrip` feature its parser is not
//!   correctly rounded: ≈1 in 7 arbitrary doubles written in shortest form come
//!   back one ULP off (`2.0546891707976442`, `1.4e+24` → `1.3999999999999998e+24`,
//!   `123456789012345678901` → `…670000` instead of JS's `…680000`), which changes
//!   the printed digits and so the length. Plain decimals with at most 15
//!   significant digits and `|exponent| <= 22` (`0.1`, `2.5`, `1e21`, `1.5e-7`)
//!   take serde_json's exact path either way. With `float_roundtrip` enabled the
//!   Node-generated tests show exact parity.
//! * `1e400` is `Infinity` in JS (stringified as `null`); `serde_json` rejects the
//!   whole line. pi never writes such a number (`JSON.stringify(Infinity)` is
//!   `null`).
//! * `serde_json` refuses nesting deeper than 128 levels; `JSON.parse` does not.
//!
//! # Performance notes
//!
//! Length counting runs over multi-megabyte tool outputs, so it never decodes
//! `char`s: [`utf16_len`] takes an ASCII fast path (`<[u8]>::is_ascii`, word at a
//! time) and otherwise counts per *byte*: every non-continuation byte starts one
//! UTF-16 unit and every 4-byte lead (`>= 0xF0`) adds the second unit of a
//! surrogate pair. String escaping costs are computed the same way (a branch-free
//! per-byte weight). The per-byte sums run over 8 KiB chunks with `u16`
//! accumulators so LLVM vectorizes them (8–16 lanes instead of 2–4 for
//! `usize`); measured roughly 3× faster than `encode_utf16().count()` on mixed
//! text and memory-bandwidth bound on ASCII.
//! [`StringifyLen`] never allocates for string values; object keys are borrowed
//! from the input when they contain no escapes, and duplicate-key detection uses
//! a linear scan of a small `Vec` that switches to a `HashMap` only for objects
//! with more than [`SMALL_OBJECT_KEYS`] keys.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
};
use serde_json::{Number, Value};

/// 2^53 - 1: integers up to this magnitude are exact in an IEEE double.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Objects with at most this many distinct keys detect duplicates by linear scan.
pub const SMALL_OBJECT_KEYS: usize = 16;

// ---------------------------------------------------------------------------
// UTF-16 lengths
// ---------------------------------------------------------------------------

/// Sums `weight(b)` over all bytes. The inner loop adds `u8` weights into a
/// `u16` accumulator over 8 KiB chunks (max weight 7 × 8192 = 57344 fits), which
/// LLVM vectorizes with 8–16 lanes per register.
#[inline]
fn sum_byte_weights(bytes: &[u8], weight: impl Fn(u8) -> u8 + Copy) -> usize {
    bytes
        .chunks(8192)
        .map(|chunk| {
            let sum = chunk
                .iter()
                .fold(0u16, |acc, &b| acc.wrapping_add(u16::from(weight(b))));
            usize::from(sum)
        })
        .sum()
}

/// UTF-16 units contributed by one UTF-8 byte: 1 for each sequence start, +1 for
/// a 4-byte lead (astral character → surrogate pair), 0 for continuation bytes.
#[inline(always)]
fn utf16_weight(b: u8) -> u8 {
    // Continuation bytes are 0x80..=0xBF, i.e. -128..=-65 as i8.
    u8::from((b as i8) >= -0x40) + u8::from(b >= 0xF0)
}

/// Extra chars `JSON.stringify` adds when escaping this byte: +1 for `"`, `\`
/// and the controls with a short form (`\b` `\t` `\n` `\f` `\r`), +5 for the
/// other C0 controls (`\u00xx`), 0 otherwise.
#[inline(always)]
fn escape_extra_weight(b: u8) -> u8 {
    let quote_or_backslash = u8::from(b == b'"' || b == b'\\');
    let control = u8::from(b < 0x20);
    let short = u8::from(b == 0x08 || b == 0x09 || b == 0x0A || b == 0x0C || b == 0x0D);
    // `short` implies `control`, so this never underflows.
    quote_or_backslash + control * 5 - short * 4
}

/// JavaScript `s.length`: the number of UTF-16 code units of `s`.
///
/// Equivalent to `s.encode_utf16().count()`, but much faster on large inputs.
#[inline]
pub fn utf16_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    if bytes.is_ascii() {
        return bytes.len();
    }
    sum_byte_weights(bytes, utf16_weight)
}

/// `JSON.stringify(s).length` for a string `s`: quotes, JS escapes, UTF-16 units.
///
/// `"` and `\` → 2 chars; `\b \f \n \r \t` → 2; other U+0000–U+001F → 6
/// (`\u00xx`); everything else (including `/`, U+2028, U+2029, U+007F) is raw.
#[inline]
pub fn json_str_len(s: &str) -> usize {
    2 + sum_byte_weights(s.as_bytes(), |b| utf16_weight(b) + escape_extra_weight(b))
}

// ---------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------

/// Formats a finite double like JS `Number.prototype.toString` (which is what
/// `JSON.stringify` uses); non-finite values become `null` like `JSON.stringify`.
fn with_js_f64<R>(f: f64, k: impl FnOnce(&str) -> R) -> R {
    if f.is_finite() {
        let mut buf = ryu_js::Buffer::new();
        k(buf.format_finite(f))
    } else {
        k("null")
    }
}

/// The number as JS holds it after `JSON.parse`: an IEEE double, or an exact
/// small integer (the `Ok` case) that prints as its decimal digits.
fn js_number_value(n: &Number) -> Result<i128, f64> {
    if let Some(u) = n.as_u64() {
        if u <= MAX_SAFE_INTEGER {
            return Ok(i128::from(u));
        }
        return Err(u as f64);
    }
    if let Some(i) = n.as_i64() {
        if i.unsigned_abs() <= MAX_SAFE_INTEGER {
            return Ok(i128::from(i));
        }
        return Err(i as f64);
    }
    // `as_f64` is always `Some` for a serde_json Number (finite); be defensive.
    Err(n.as_f64().unwrap_or(f64::NAN))
}

/// What `JSON.stringify(JSON.parse(text))` prints for the number `n` parsed
/// from `text`.
///
/// Integers beyond 2^53 lose precision like in JS (`18446744073709551615` →
/// `18446744073709552000`), floats use the shortest round-trip form with JS
/// exponent rules (`1e+21`, `1.5e-7`, `5e-324`), and `-0` prints as `0`.
pub fn js_number_string(n: &Number) -> String {
    match js_number_value(n) {
        Ok(i) => i.to_string(),
        Err(f) => with_js_f64(f, str::to_owned),
    }
}

/// `js_number_string(n).len()` without allocating (the output is ASCII).
pub fn js_number_len(n: &Number) -> usize {
    match js_number_value(n) {
        Ok(i) => decimal_len(i),
        Err(f) => with_js_f64(f, str::len),
    }
}

fn js_f64_len(f: f64) -> usize {
    if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 {
        // Exact integer (also maps -0.0 to 0): print its digits.
        return decimal_len(f as i128);
    }
    with_js_f64(f, str::len)
}

fn decimal_len(i: i128) -> usize {
    let mut len = usize::from(i < 0) + 1;
    let mut m = i.unsigned_abs();
    while m >= 10 {
        m /= 10;
        len += 1;
    }
    len
}

// ---------------------------------------------------------------------------
// JSON.stringify length of a Value
// ---------------------------------------------------------------------------

/// `JSON.stringify(v).length` in UTF-16 units (compact separators, JS string
/// escaping, JS number formatting).
///
/// A `Value` cannot hold duplicate keys; when it was parsed by `serde_json`, the
/// last duplicate already won, as in `JSON.parse`. Key order does not matter.
pub fn stringify_len(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => js_number_len(n),
        Value::String(s) => json_str_len(s),
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) + items.iter().map(stringify_len).sum::<usize>()
        }
        Value::Object(map) => {
            2 + map.len().saturating_sub(1)
                + map
                    .iter()
                    .map(|(k, v)| json_str_len(k) + 1 + stringify_len(v))
                    .sum::<usize>()
        }
    }
}

// ---------------------------------------------------------------------------
// Streaming lengths (no Value is built)
// ---------------------------------------------------------------------------

/// `JSON.stringify(JSON.parse(text)).length`, computed while deserializing any
/// JSON value, without building a [`Value`].
///
/// Use it directly (`serde_json::from_str::<StringifyLen>(text)`) or as the type
/// of a field (`arguments: StringifyLen`). Duplicate object keys are handled
/// like `JSON.parse`: the key counts once, with the *last* value's length.
/// Strings are never copied; keys are borrowed when the input allows it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StringifyLen(pub usize);

impl<'de> Deserialize<'de> for StringifyLen {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StringifyLenVisitor)
    }
}

struct StringifyLenVisitor;

impl<'de> Visitor<'de> for StringifyLenVisitor {
    type Value = StringifyLen;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<StringifyLen, E> {
        Ok(StringifyLen(if v { 4 } else { 5 }))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<StringifyLen, E> {
        Ok(StringifyLen(js_number_len(&Number::from(v))))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<StringifyLen, E> {
        Ok(StringifyLen(js_number_len(&Number::from(v))))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<StringifyLen, E> {
        Ok(StringifyLen(js_f64_len(v as f64)))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<StringifyLen, E> {
        Ok(StringifyLen(js_f64_len(v as f64)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<StringifyLen, E> {
        Ok(StringifyLen(js_f64_len(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<StringifyLen, E> {
        Ok(StringifyLen(json_str_len(v)))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<StringifyLen, E> {
        Ok(StringifyLen(json_str_len(v)))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<StringifyLen, E> {
        Ok(StringifyLen(json_str_len(&v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<StringifyLen, E> {
        Ok(StringifyLen(4))
    }

    fn visit_none<E: de::Error>(self) -> Result<StringifyLen, E> {
        Ok(StringifyLen(4))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<StringifyLen, D::Error> {
        StringifyLen::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StringifyLen, A::Error> {
        let mut total = 0usize;
        let mut count = 0usize;
        while let Some(StringifyLen(n)) = seq.next_element()? {
            total += n;
            count += 1;
        }
        Ok(StringifyLen(2 + count.saturating_sub(1) + total))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StringifyLen, A::Error> {
        // Per distinct key: `"key":value` length. A later duplicate replaces the
        // earlier member's length (JSON.parse keeps the last value).
        let mut small: Vec<(Cow<'de, str>, usize)> = Vec::new();
        let mut large: Option<HashMap<Cow<'de, str>, usize>> = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let StringifyLen(value_len) = map.next_value()?;
            let member = json_str_len(&key) + 1 + value_len;
            if let Some(large) = large.as_mut() {
                large.insert(key, member);
                continue;
            }
            if let Some(slot) = small.iter_mut().find(|(k, _)| *k == key) {
                slot.1 = member;
                continue;
            }
            small.push((key, member));
            if small.len() > SMALL_OBJECT_KEYS {
                large = Some(small.drain(..).collect());
            }
        }
        let (count, total) = match &large {
            Some(large) => (large.len(), large.values().sum::<usize>()),
            None => (small.len(), small.iter().map(|(_, n)| n).sum::<usize>()),
        };
        Ok(StringifyLen(2 + count.saturating_sub(1) + total))
    }
}

/// Deserializes an object key as a `Cow<str>`, borrowing when possible.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(CowStrVisitor)
    }
}

struct CowStrVisitor;

impl<'de> Visitor<'de> for CowStrVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// The JavaScript `.length` (UTF-16 units) of a JSON string, computed while
/// deserializing it without keeping it. Any non-string value is an error.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Utf16Len(pub usize);

impl<'de> Deserialize<'de> for Utf16Len {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(Utf16LenVisitor)
    }
}

struct Utf16LenVisitor;

impl<'de> Visitor<'de> for Utf16LenVisitor {
    type Value = Utf16Len;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Utf16Len, E> {
        Ok(Utf16Len(utf16_len(v)))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Utf16Len, E> {
        Ok(Utf16Len(utf16_len(v)))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Utf16Len, E> {
        Ok(Utf16Len(utf16_len(&v)))
    }
}

// ---------------------------------------------------------------------------
// Lone surrogates
// ---------------------------------------------------------------------------

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
/// [`StringifyLen`].
pub fn from_str_lenient<T: DeserializeOwned>(line: &str) -> Result<(T, bool), serde_json::Error> {
    match serde_json::from_str(line) {
        Ok(v) => Ok((v, false)),
        Err(err) => match repair_lone_surrogates(line) {
            Some(fixed) => serde_json::from_str(&fixed).map(|v| (v, true)),
            None => Err(err),
        },
    }
}

// ---------------------------------------------------------------------------
// trim / falsy
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Dates
// ---------------------------------------------------------------------------

const MS_PER_DAY: i64 = 86_400_000;
/// ECMAScript time values are limited to ±8.64e15 ms (TimeClip).
const MAX_TIME_MS: i64 = 8_640_000_000_000_000;

/// Days since 1970-01-01 of the proleptic Gregorian date (Hinnant's algorithm).
/// `day` may exceed the month length; the excess rolls into the next month.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400; // [0, 399]
    let mp = i64::from((month + 9) % 12); // March = 0
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Inverse of [`days_from_civil`]: (year, month 1–12, day 1–31).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097; // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Exactly `n` ASCII digits as a number.
    fn digits(&mut self, n: usize) -> Option<u32> {
        let mut v = 0u32;
        for _ in 0..n {
            let d = char::from(self.peek()?).to_digit(10)?;
            v = v * 10 + d;
            self.pos += 1;
        }
        Some(v)
    }
}

/// `new Date(s).getTime()` for ISO-8601 strings with an explicit UTC designator
/// or offset, as pi writes them (`2026-03-01T09:15:02.004Z`). `None` where JS
/// gives `NaN`, or for forms outside the supported subset.
///
/// Supported: `YYYY-MM-DD`, optionally followed by `T` (or `t`) and `HH:MM`,
/// `HH:MM:SS` or `HH:MM:SS.f…` (any number of fraction digits, truncated to
/// milliseconds like V8), then `Z`/`z`, `±HH:MM` or `±HHMM`; also date-only
/// `YYYY`, `YYYY-MM`, `YYYY-MM-DD` (UTC in JS) and expanded years `±YYYYYY`
/// (`-000000` is invalid). Like V8, days 1–31 are accepted for every month and
/// roll over (`2026-02-30` is March 2), `24:00:00` means the next midnight, and
/// results beyond ±8.64e15 ms are invalid. A date-time *without* an offset is
/// local time in JS and gives `None` here.
pub fn iso_millis_to_epoch_ms(s: &str) -> Option<i64> {
    let mut c = Cursor {
        bytes: s.as_bytes(),
        pos: 0,
    };
    let year = match c.peek()? {
        sign @ (b'+' | b'-') => {
            c.pos += 1;
            let y = i64::from(c.digits(6)?);
            if sign == b'-' {
                if y == 0 {
                    return None;
                }
                -y
            } else {
                y
            }
        }
        _ => i64::from(c.digits(4)?),
    };
    let mut month = 1;
    let mut day = 1;
    let mut full_date = false;
    if c.eat(b'-') {
        month = c.digits(2)?;
        if c.eat(b'-') {
            day = c.digits(2)?;
            full_date = true;
        }
    }
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut time_ms: i64 = 0;
    let mut offset_ms: i64 = 0;
    if c.peek().is_some() {
        if !full_date || !(c.eat(b'T') || c.eat(b't')) {
            return None;
        }
        let hour = c.digits(2)?;
        if !c.eat(b':') {
            return None;
        }
        let minute = c.digits(2)?;
        let mut second = 0;
        let mut millis = 0u32;
        let mut fraction_nonzero = false;
        if c.eat(b':') {
            second = c.digits(2)?;
            if c.eat(b'.') {
                let start = c.pos;
                while let Some(d) = c.peek().and_then(|b| char::from(b).to_digit(10)) {
                    let k = c.pos - start;
                    if k < 3 {
                        millis = millis * 10 + d;
                    }
                    fraction_nonzero |= d != 0;
                    c.pos += 1;
                }
                let n = c.pos - start;
                if n == 0 {
                    return None;
                }
                for _ in n..3 {
                    millis *= 10;
                }
            }
        }
        let end_of_day = hour == 24 && minute == 0 && second == 0 && !fraction_nonzero;
        if (hour > 23 && !end_of_day) || minute > 59 || second > 59 {
            return None;
        }
        time_ms = i64::from(hour) * 3_600_000
            + i64::from(minute) * 60_000
            + i64::from(second) * 1000
            + i64::from(millis);
        match c.peek()? {
            b'Z' | b'z' => c.pos += 1,
            sign @ (b'+' | b'-') => {
                c.pos += 1;
                let oh = c.digits(2)?;
                c.eat(b':');
                let om = c.digits(2)?;
                if oh > 23 || om > 59 {
                    return None;
                }
                let off = i64::from(oh * 60 + om) * 60_000;
                offset_ms = if sign == b'+' { off } else { -off };
            }
            _ => return None,
        }
        if c.peek().is_some() {
            return None;
        }
    }
    let days = days_from_civil(year, month, 1) + i64::from(day) - 1;
    let t = days * MS_PER_DAY + time_ms - offset_ms;
    (t.abs() <= MAX_TIME_MS).then_some(t)
}

/// `new Date(ms).toISOString()`: `YYYY-MM-DDTHH:MM:SS.mmmZ`, with a signed
/// 6-digit year outside 0000–9999 (`+010000-…`, `-000001-…`).
///
/// JS throws a `RangeError` beyond ±8.64e15 ms; this function still formats
/// such values with the same rules.
pub fn epoch_ms_to_iso(ms: i64) -> String {
    let days = ms.div_euclid(MS_PER_DAY);
    let in_day = ms.rem_euclid(MS_PER_DAY);
    let (year, month, day) = civil_from_days(days);
    let (h, rest) = (in_day / 3_600_000, in_day % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, milli) = (rest / 1000, rest % 1000);
    let year_str = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else if year < 0 {
        format!("-{:06}", year.unsigned_abs())
    } else {
        format!("+{year:06}")
    };
    format!("{year_str}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    //! Besides hand-written checks, the tables at the end of this module were
    //! produced by real Node (`JSON.stringify(JSON.parse(x)).length`,
    //! `new Date(s).getTime()`, ...) with the generator script reproduced in the
    //! comment at the very end of this file, so the tests need no Node at run time.

    use super::*;

    /// Inputs `JSON.parse` accepts but `serde_json` cannot (documented deviation).
    const SERDE_REJECTS: &[&str] = &["1e400", "-1e400", "[1e400]"];

    /// Whether this build's serde_json parses decimal floats correctly rounded
    /// (the `float_roundtrip` feature).
    fn serde_json_float_roundtrip() -> bool {
        serde_json::from_str::<f64>("2.0546891707976442").ok() == Some(2.0546891707976442)
    }

    /// Whether `text` holds a number token (outside strings) that serde_json
    /// without `float_roundtrip` may parse one ULP off: an exponent, or 16+
    /// digits. Short plain decimals take serde_json's exact fast path.
    fn has_risky_number(text: &str) -> bool {
        let (mut in_string, mut escaped, mut digits) = (false, false, 0);
        for b in text.bytes() {
            if in_string {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'e' | b'E' => return true,
                b'0'..=b'9' => {
                    digits += 1;
                    if digits >= 16 {
                        return true;
                    }
                }
                b'.' | b'-' | b'+' => {}
                _ => digits = 0,
            }
        }
        false
    }

    /// Can this build reproduce JS's value of every number in `text`?
    fn numbers_exact(text: &str) -> bool {
        serde_json_float_roundtrip() || !has_risky_number(text)
    }

    fn stringify_len_streaming(text: &str) -> usize {
        from_str_lenient::<StringifyLen>(text).unwrap().0.0
    }

    #[test]
    fn node_stringify_cases() {
        for &(text, expected) in STRINGIFY_CASES {
            let Some((js_len, wf_len, falsy, str_len)) = expected else {
                assert!(parse_lenient(text).is_err(), "JSON.parse rejects {text:?}");
                assert!(from_str_lenient::<StringifyLen>(text).is_err(), "{text:?}");
                continue;
            };
            if SERDE_REJECTS.contains(&text) {
                assert!(parse_lenient(text).is_err(), "{text:?}");
                continue;
            }
            let (value, repaired) = parse_lenient(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            let lone = count_lone_surrogate_escapes_in_strings(text);
            assert_eq!(repaired, lone > 0, "{text:?}");
            assert_eq!(repair_lone_surrogates(text).is_some(), lone > 0, "{text:?}");
            if lone == 0 {
                assert_eq!(js_len, wf_len, "{text:?}");
            }
            assert_eq!(js_is_falsy(&value), falsy, "falsy {text:?}");
            if !numbers_exact(text) {
                continue;
            }
            assert_eq!(stringify_len(&value), wf_len, "stringify_len {text:?}");
            assert_eq!(
                stringify_len_streaming(text),
                wf_len,
                "StringifyLen {text:?}"
            );
            assert_eq!(
                StringifyLen::deserialize(&value).unwrap().0,
                wf_len,
                "{text:?}"
            );
            let units = from_str_lenient::<Utf16Len>(text);
            match str_len {
                Some(n) => assert_eq!(units.unwrap().0.0, n, "Utf16Len {text:?}"),
                None => assert!(units.is_err(), "Utf16Len of non-string {text:?}"),
            }
        }
    }

    #[test]
    fn risky_number_detection() {
        assert!(!has_risky_number(
            r#"{"a":[1,2.5,-0.125],"e":"1e400 12345678901234567"}"#
        ));
        assert!(has_risky_number("[1.4e+24]"));
        assert!(has_risky_number("[1234567890123456]"));
        assert!(has_risky_number(r#"{"a\"":1E2}"#));
    }

    #[test]
    fn lone_surrogates_stringify_five_chars_longer_in_js() {
        // For these inputs no lone surrogate is lost to a duplicate key, so the
        // documented relation js = repaired + 5 * count holds exactly.
        let mut checked = 0;
        for &(text, expected) in STRINGIFY_CASES {
            let Some((js_len, wf_len, _, _)) = expected else {
                continue;
            };
            let lone = count_lone_surrogate_escapes_in_strings(text);
            if lone == 0 || text.len() > 60 {
                continue;
            }
            assert_eq!(js_len, wf_len + 5 * lone, "{text:?}");
            checked += 1;
        }
        assert!(checked >= 10, "{checked}");
    }

    #[test]
    fn node_number_cases() {
        for &(text, expected) in NUMBER_CASES {
            if !numbers_exact(text) {
                continue;
            }
            let Value::Number(n) = serde_json::from_str::<Value>(text).unwrap() else {
                panic!("{text:?} is not a number");
            };
            assert_eq!(js_number_string(&n), expected, "{text:?}");
            assert_eq!(js_number_len(&n), expected.len(), "{text:?}");
            assert_eq!(stringify_len_streaming(text), expected.len(), "{text:?}");
        }
    }

    #[test]
    fn node_arbitrary_doubles() {
        if !serde_json_float_roundtrip() {
            eprintln!(
                "serde_json is built without `float_roundtrip`: arbitrary doubles may \
                 parse one ULP off; checking formatting of exactly-parsed values only"
            );
        }
        for &(text, expected) in DOUBLE_CASES {
            // Rust's own parser is correctly rounded, like JS.
            let exact: f64 = text.parse().unwrap();
            let n = Number::from_f64(exact).unwrap();
            assert_eq!(js_number_string(&n), expected, "{text:?}");
            assert_eq!(js_number_len(&n), expected.len(), "{text:?}");
            if serde_json_float_roundtrip() {
                let n: Number = serde_json::from_str(text).unwrap();
                assert_eq!(js_number_string(&n), expected, "{text:?}");
                assert_eq!(stringify_len_streaming(text), expected.len(), "{text:?}");
            }
        }
    }

    #[test]
    fn numbers_by_hand() {
        let s = |text: &str| js_number_string(&serde_json::from_str(text).unwrap());
        assert_eq!(s("1.0"), "1");
        assert_eq!(s("2.50"), "2.5");
        assert_eq!(s("-0"), "0");
        assert_eq!(s("-0.0"), "0");
        assert_eq!(s("1e21"), "1e+21");
        assert_eq!(s("1e20"), "100000000000000000000");
        assert_eq!(s("1.5e-7"), "1.5e-7");
        assert_eq!(s("0.000001"), "0.000001");
        assert_eq!(s("5e-324"), "5e-324");
        assert_eq!(s("18446744073709551615"), "18446744073709552000");
        assert_eq!(s("-9223372036854775808"), "-9223372036854776000");
        assert_eq!(s("9007199254740993"), "9007199254740992");
        assert_eq!(js_number_len(&Number::from(0u64)), 1);
        assert_eq!(js_number_len(&Number::from(-7i64)), 2);
        assert_eq!(js_number_len(&Number::from(u64::MAX)), 20);
        assert_eq!(js_number_len(&Number::from(i64::MIN)), 20);
        let neg_zero = Number::from_f64(-0.0).unwrap();
        assert_eq!(js_number_string(&neg_zero), "0");
        assert_eq!(js_number_len(&neg_zero), 1);
        // Streaming visitor paths for all integer widths.
        for (text, want) in [
            ("-0", 1),
            ("123", 3),
            ("-123", 4),
            ("9007199254740993", 16),
            ("1e21", 5),
        ] {
            assert_eq!(stringify_len_streaming(text), want, "{text:?}");
        }
        assert_eq!(js_f64_len(-0.0), 1);
        assert_eq!(js_f64_len(1e21), 5);
        assert_eq!(js_f64_len(f64::NAN), 4);
    }

    #[test]
    fn utf16_len_matches_encode_utf16() {
        for &(s, n) in UTF16_CASES {
            assert_eq!(utf16_len(s), n, "{s:?}");
            assert_eq!(s.encode_utf16().count(), n, "{s:?}");
        }
        for c in (0u32..0x3000)
            .chain(0xFFF0..0x10100)
            .chain(0x10FFF0..=0x10FFFF)
        {
            let Some(ch) = char::from_u32(c) else {
                continue;
            };
            let s = format!("a{ch}{ch}b");
            assert_eq!(utf16_len(&s), s.encode_utf16().count(), "U+{c:04X}");
        }
        // Large inputs cross the 8 KiB chunk boundary.
        let big = "x😀é日".repeat(50_000);
        assert_eq!(utf16_len(&big), big.encode_utf16().count());
        let ascii = "abc".repeat(100_000);
        assert_eq!(utf16_len(&ascii), 300_000);
        assert_eq!(utf16_len(""), 0);
    }

    /// Straightforward reference for `JSON.stringify(s).length`.
    fn json_str_len_reference(s: &str) -> usize {
        2 + s
            .chars()
            .map(|c| match c {
                '"' | '\\' | '\u{8}' | '\u{9}' | '\u{A}' | '\u{C}' | '\u{D}' => 2,
                '\u{0}'..='\u{1F}' => 6,
                c => c.len_utf16(),
            })
            .sum::<usize>()
    }

    #[test]
    fn json_str_len_escapes() {
        assert_eq!(json_str_len(""), 2);
        assert_eq!(json_str_len("a\"b"), 6);
        assert_eq!(json_str_len("\\"), 4);
        assert_eq!(json_str_len("\u{8}\u{C}\n\r\t"), 12);
        assert_eq!(json_str_len("\u{0}\u{1F}"), 14);
        assert_eq!(json_str_len("/\u{7F}\u{2028}\u{2029}"), 6);
        assert_eq!(json_str_len("😀"), 4);
        for c in (0u32..0x800).chain(0xFFF0..0x10010) {
            let Some(ch) = char::from_u32(c) else {
                continue;
            };
            let s = format!("{ch}x{ch}");
            assert_eq!(json_str_len(&s), json_str_len_reference(&s), "U+{c:04X}");
        }
        let big = "line\t\"q\"\\ 😀\u{1}\n".repeat(10_000);
        assert_eq!(json_str_len(&big), json_str_len_reference(&big));
    }

    #[test]
    fn stringify_len_of_built_values() {
        let v = serde_json::json!({"command": "ls", "n": 1});
        assert_eq!(stringify_len(&v), 22); // pi-format.md §10.1 example
        let v = serde_json::json!([1.0, 2.5, -0.0, 1e21, null, true, false, "", [], {}]);
        assert_eq!(
            stringify_len(&v),
            "[1,2.5,0,1e+21,null,true,false,\"\",[],{}]".len()
        );
    }

    #[derive(Deserialize)]
    struct ToolCall {
        name: Utf16Len,
        arguments: StringifyLen,
    }

    #[test]
    fn streaming_lengths_as_fields_and_from_readers() {
        let line = r#"{"name":"b\u0061sh😀","arguments":{"command":"ls","n":1,"n":1.50}}"#;
        let call: ToolCall = serde_json::from_str(line).unwrap();
        assert_eq!(call.name, Utf16Len(6));
        assert_eq!(call.arguments, StringifyLen(24));
        // from_reader hands out transient (non-borrowed) strings and keys.
        let call: ToolCall = serde_json::from_reader(line.as_bytes()).unwrap();
        assert_eq!((call.name.0, call.arguments.0), (6, 24));
        // Keys with escapes are owned; duplicates still collapse.
        let text = r#"{"\u0061":"\n","a":"\t\t","b\"":[1,{"c":2,"c":[]}]}"#;
        assert_eq!(
            stringify_len_streaming(text),
            r#"{"a":"\t\t","b\"":[1,{"c":[]}]}"#.len()
        );
        let owned: StringifyLen = serde_json::from_reader(text.as_bytes()).unwrap();
        assert_eq!(owned.0, r#"{"a":"\t\t","b\"":[1,{"c":[]}]}"#.len());
        // Utf16Len refuses non-strings.
        for text in ["1", "null", "[]", "{}", "true"] {
            assert!(serde_json::from_str::<Utf16Len>(text).is_err(), "{text}");
        }
        assert_eq!(
            serde_json::from_str::<Utf16Len>(r#""\ud83d\ude00\n""#).unwrap(),
            Utf16Len(3)
        );
    }

    #[test]
    fn large_objects_with_duplicates() {
        // Crosses SMALL_OBJECT_KEYS so the HashMap path is taken, duplicates
        // arriving both before and after the switch.
        let mut members: Vec<String> = (0..50).map(|i| format!("\"k{i}\":{i}")).collect();
        members.push("\"k3\":\"replaced\"".to_owned());
        members.push("\"k40\":[true,false]".to_owned());
        members.insert(5, "\"k1\":null".to_owned());
        let text = format!("{{{}}}", members.join(","));
        let value: Value = serde_json::from_str(&text).unwrap();
        let want = serde_json::to_string(&value).unwrap().len();
        assert_eq!(stringify_len(&value), want);
        assert_eq!(stringify_len_streaming(&text), want);
    }

    #[test]
    fn repair_rules() {
        assert_eq!(repair_lone_surrogates(r#"{"a":"x"}"#), None);
        assert_eq!(repair_lone_surrogates(r#""\ud83d\ude00""#), None);
        assert_eq!(repair_lone_surrogates(r#""\\ud83d""#), None); // escaped backslash
        assert_eq!(
            repair_lone_surrogates(r#""\ud83d""#).as_deref(),
            Some(r#""\ufffd""#)
        );
        assert_eq!(
            repair_lone_surrogates(r#""\uDE00x""#).as_deref(),
            Some(r#""\ufffdx""#)
        );
        assert_eq!(
            repair_lone_surrogates(r#"["\\\ud83d", "\ud83d\ud83d\ude00", "\ude00\ud83d"]"#)
                .as_deref(),
            Some(r#"["\\\ufffd", "\ufffd\ud83d\ude00", "\ufffd\ufffd"]"#)
        );
        // Keys are string literals too; text outside strings is not touched.
        assert_eq!(
            repair_lone_surrogates(r#"{"k\udc00":1} \ud83d"#).as_deref(),
            Some(r#"{"k\ufffd":1} \ud83d"#)
        );
        // A `\"` inside a string does not end it.
        assert_eq!(
            repair_lone_surrogates(r#"["\"\ud800", "é\uD800"]"#).as_deref(),
            Some(r#"["\"\ufffd", "é\ufffd"]"#)
        );
        // Truncated escapes are left for the parser to reject.
        assert_eq!(repair_lone_surrogates(r#""\ud8"#), None);
        assert_eq!(
            count_lone_surrogate_escapes_in_strings(r#"["\ud800\ud800\udc00\udc00"]"#),
            2
        );
        assert_eq!(count_lone_surrogate_escapes_in_strings("plain"), 0);

        let (v, repaired) = parse_lenient(r#"{"text":"cut \ud83d","n":1}"#).unwrap();
        assert!(repaired);
        assert_eq!(v["text"], "cut \u{FFFD}");
        assert_eq!(utf16_len(v["text"].as_str().unwrap()), 5); // JS: "cut \ud83d".length
        let (_, repaired) = parse_lenient(r#"{"a":1}"#).unwrap();
        assert!(!repaired);
        // Still-invalid text reports the error at the same offset.
        let strict = serde_json::from_str::<Value>(r#"{"a":"\ud83d",}"#).unwrap_err();
        let lenient = parse_lenient(r#"{"a":"\ud83d",}"#).unwrap_err();
        assert_eq!(lenient.column(), 15);
        assert!(strict.column() <= lenient.column());
    }

    #[test]
    fn repaired_text_keeps_byte_length() {
        for &(text, _) in STRINGIFY_CASES {
            if let Some(fixed) = repair_lone_surrogates(text) {
                assert_eq!(fixed.len(), text.len(), "{text:?}");
            }
        }
    }

    #[test]
    fn whitespace_matches_node() {
        for c in 0..=0x10FFFFu32 {
            let Some(ch) = char::from_u32(c) else {
                continue;
            };
            assert_eq!(
                is_js_whitespace(ch),
                JS_WHITESPACE.contains(&c),
                "U+{c:04X}"
            );
        }
        for &(s, empty, trimmed_len) in TRIM_CASES {
            assert_eq!(js_trim_is_empty(s), empty, "{s:?}");
            assert_eq!(utf16_len(js_trim(s)), trimmed_len, "{s:?}");
        }
        assert!(js_trim_is_empty("\u{FEFF}"));
        assert!(!js_trim_is_empty("\u{85}"));
        assert!(!js_trim_is_empty("\u{200B}"));
    }

    #[test]
    fn falsy_by_hand() {
        for text in ["null", "false", "0", "-0", "0.0", "-0.0", "0e10", "\"\""] {
            assert!(js_is_falsy(&serde_json::from_str(text).unwrap()), "{text}");
        }
        for text in [
            "true", "1", "-1e-300", "\" \"", "\"0\"", "[]", "{}", "5e-324",
        ] {
            assert!(!js_is_falsy(&serde_json::from_str(text).unwrap()), "{text}");
        }
    }

    #[test]
    fn node_dates() {
        for &(s, want) in DATE_PARSE_CASES {
            assert_eq!(iso_millis_to_epoch_ms(s), want, "{s:?}");
        }
        for &(ms, want) in DATE_FORMAT_CASES {
            assert_eq!(epoch_ms_to_iso(ms), want, "{ms}");
            assert_eq!(iso_millis_to_epoch_ms(want), Some(ms), "{want}");
        }
    }

    #[test]
    fn dates_by_hand() {
        assert_eq!(
            iso_millis_to_epoch_ms("2026-03-01T09:15:02.004Z"),
            Some(1_772_356_502_004)
        );
        assert_eq!(
            epoch_ms_to_iso(1_772_356_502_004),
            "2026-03-01T09:15:02.004Z"
        );
        // Local-time forms depend on the machine's time zone in JS: unsupported.
        assert_eq!(iso_millis_to_epoch_ms("2026-03-01T09:15:02.004"), None);
        assert_eq!(iso_millis_to_epoch_ms("2026-03-01T09:15:02.004Z\n"), None);
        // Every day of a 800-year span round-trips through both directions.
        let mut ms = -6_000_000_000_000i64;
        while ms < 20_000_000_000_000 {
            assert_eq!(
                iso_millis_to_epoch_ms(&epoch_ms_to_iso(ms)),
                Some(ms),
                "{ms}"
            );
            ms += 86_400_000 - 1;
        }
    }

    // @generated by the Node script described in the test module docs (node v20.20.2).
    /// (JSON text, None if JSON.parse throws, else (JSON.stringify(v).length, same after
    /// String.prototype.toWellFormed on every string and key, !v, v.length if v is a string))
    type StringifyCase = (&'static str, Option<(usize, usize, bool, Option<usize>)>);
    #[rustfmt::skip]
    const STRINGIFY_CASES: &[StringifyCase] = &[
        ("null", Some((4, 4, true, None))),
        ("true", Some((4, 4, false, None))),
        ("false", Some((5, 5, true, None))),
        ("0", Some((1, 1, true, None))),
        ("-0", Some((1, 1, true, None))),
        ("0.0", Some((1, 1, true, None))),
        ("-0.0", Some((1, 1, true, None))),
        ("1", Some((1, 1, false, None))),
        ("-1", Some((2, 2, false, None))),
        ("1.0", Some((1, 1, false, None))),
        ("2.50", Some((3, 3, false, None))),
        ("100", Some((3, 3, false, None))),
        ("1e2", Some((3, 3, false, None))),
        ("1E2", Some((3, 3, false, None))),
        ("1e+2", Some((3, 3, false, None))),
        ("0.1", Some((3, 3, false, None))),
        ("0.1e1", Some((1, 1, false, None))),
        ("-0.5", Some((4, 4, false, None))),
        ("1e21", Some((5, 5, false, None))),
        ("1E21", Some((5, 5, false, None))),
        ("1e20", Some((21, 21, false, None))),
        ("123456789012345678901", Some((21, 21, false, None))),
        ("999999999999999999999", Some((5, 5, false, None))),
        ("1e-7", Some((4, 4, false, None))),
        ("1e-6", Some((8, 8, false, None))),
        ("0.000001", Some((8, 8, false, None))),
        ("0.0000001", Some((4, 4, false, None))),
        ("1.5e-7", Some((6, 6, false, None))),
        ("-1.5e-7", Some((7, 7, false, None))),
        ("5e-324", Some((6, 6, false, None))),
        ("4.9e-324", Some((6, 6, false, None))),
        ("2e-323", Some((6, 6, false, None))),
        ("1.7976931348623157e308", Some((23, 23, false, None))),
        ("2.2250738585072014e-308", Some((23, 23, false, None))),
        ("1e300", Some((6, 6, false, None))),
        ("123e-20", Some((8, 8, false, None))),
        ("0.30000000000000004", Some((19, 19, false, None))),
        ("123456789012345678901234", Some((22, 22, false, None))),
        ("18446744073709551615", Some((20, 20, false, None))),
        ("18446744073709551616", Some((20, 20, false, None))),
        ("9007199254740991", Some((16, 16, false, None))),
        ("9007199254740992", Some((16, 16, false, None))),
        ("9007199254740993", Some((16, 16, false, None))),
        ("-9007199254740993", Some((17, 17, false, None))),
        ("-9223372036854775808", Some((20, 20, false, None))),
        ("-9223372036854775809", Some((20, 20, false, None))),
        ("9223372036854775807", Some((19, 19, false, None))),
        ("12345678901234567890", Some((20, 20, false, None))),
        ("1e16", Some((17, 17, false, None))),
        ("1.25e+30", Some((8, 8, false, None))),
        ("0.000123", Some((8, 8, false, None))),
        ("100000000000000000000", Some((21, 21, false, None))),
        ("1000000000000000000000", Some((5, 5, false, None))),
        ("-1e-300", Some((7, 7, false, None))),
        ("3.14159", Some((7, 7, false, None))),
        ("\"\"", Some((2, 2, true, Some(0)))),
        ("\"abc\"", Some((5, 5, false, Some(3)))),
        ("\"a\\\"b\"", Some((6, 6, false, Some(3)))),
        ("\"\\\\\"", Some((4, 4, false, Some(1)))),
        ("\"/\"", Some((3, 3, false, Some(1)))),
        ("\"\\/\"", Some((3, 3, false, Some(1)))),
        ("\"\\b\\f\\n\\r\\t\"", Some((12, 12, false, Some(5)))),
        ("\"\\u0000\\u0001\\u001f\"", Some((20, 20, false, Some(3)))),
        ("\"\\u007f\"", Some((3, 3, false, Some(1)))),
        ("\"\\u0080\"", Some((3, 3, false, Some(1)))),
        ("\"\u{e9}\"", Some((3, 3, false, Some(1)))),
        ("\"\u{1f600}\"", Some((4, 4, false, Some(2)))),
        ("\"\\ud83d\\ude00\"", Some((4, 4, false, Some(2)))),
        ("\"\\uD83D\\uDE00\"", Some((4, 4, false, Some(2)))),
        ("\"\\u2028\\u2029\"", Some((4, 4, false, Some(2)))),
        ("\"\u{2028}\u{2029}\"", Some((4, 4, false, Some(2)))),
        ("\"\u{65e5}\u{672c}\u{8a9e}\"", Some((5, 5, false, Some(3)))),
        ("\"\\u65e5\"", Some((3, 3, false, Some(1)))),
        ("\"\\uFFFD\"", Some((3, 3, false, Some(1)))),
        ("\"\\ufeff\"", Some((3, 3, false, Some(1)))),
        ("\"\u{10ffff}\"", Some((4, 4, false, Some(2)))),
        ("\"\\uDBFF\\uDFFF\"", Some((4, 4, false, Some(2)))),
        ("\"\\ud83d\"", Some((8, 3, false, Some(1)))),
        ("\"\\ude00\"", Some((8, 3, false, Some(1)))),
        ("\"a\\ud83dz\"", Some((10, 5, false, Some(3)))),
        ("\"\\ud83d\\ud83d\\ude00\"", Some((10, 5, false, Some(3)))),
        ("\"\\ude00\\ud83d\"", Some((14, 4, false, Some(2)))),
        ("\"\\\\ud83d\"", Some((9, 9, false, Some(6)))),
        ("\"\\\\\\ud83d\"", Some((10, 5, false, Some(2)))),
        ("\"\\\\\\\\ud83d\"", Some((11, 11, false, Some(7)))),
        ("\"\\ud83d\\u0041\"", Some((9, 4, false, Some(2)))),
        ("\"\\ud83d\\n\"", Some((10, 5, false, Some(2)))),
        ("\"\\uD800\"", Some((8, 3, false, Some(1)))),
        ("\"\\uDFFF\"", Some((8, 3, false, Some(1)))),
        ("[\"\\ud83d\", \"x\", {\"k\\udc00\": \"\\udbff\"}]", Some((35, 20, false, None))),
        ("{\"a\":\"\\ud800\\ud800\\udc00\\udc00\"}", Some((22, 12, false, None))),
        ("\"\\ud83d\\\\ude00\"", Some((15, 10, false, Some(7)))),
        ("\"tab\u{9}here\"", None),
        ("\"\\u0009\"", Some((4, 4, false, Some(1)))),
        ("\"\\u000b\"", Some((8, 8, false, Some(1)))),
        ("\"\\u000c\"", Some((4, 4, false, Some(1)))),
        ("\"\\\"\\\\\\/\"", Some((7, 7, false, Some(3)))),
        ("[]", Some((2, 2, false, None))),
        ("{}", Some((2, 2, false, None))),
        ("[1,2,3]", Some((7, 7, false, None))),
        ("[ 1 , 2 ]", Some((5, 5, false, None))),
        (" \u{d}\u{a}\u{9}[ ] ", Some((2, 2, false, None))),
        ("[[],[[]],{}]", Some((12, 12, false, None))),
        ("[null,true,false,0,\"\",[],{}]", Some((28, 28, false, None))),
        ("{\"a\":1}", Some((7, 7, false, None))),
        ("{ \"a\" : 1 , \"b\" : [ 1 , { } ] }", Some((18, 18, false, None))),
        ("{\"a\":1,\"a\":2}", Some((7, 7, false, None))),
        ("{\"a\":1,\"b\":2,\"a\":\"long string\"}", Some((25, 25, false, None))),
        ("{\"a\":{\"x\":1,\"x\":[1,2,3]},\"a\":{\"y\":null}}", Some((16, 16, false, None))),
        ("{\"\\u0061\":1,\"a\":22}", Some((8, 8, false, None))),
        ("{\"a\":22,\"\\u0061\":1}", Some((7, 7, false, None))),
        ("{\"__proto__\":1}", Some((15, 15, false, None))),
        ("{\"__proto__\":{\"a\":1},\"b\":2}", Some((27, 27, false, None))),
        ("{\"1\":1,\"01\":2,\"1\":3}", Some((14, 14, false, None))),
        ("{\"\u{1f600}\":\"\u{1f600}\",\"\\ud83d\\ude00\":1}", Some((8, 8, false, None))),
        ("{\"\":0,\"\":\"\"}", Some((7, 7, false, None))),
        ("{\"a\":[{\"b\":{\"c\":{\"d\":[1.5,-0,1e21]}}}]}", Some((39, 39, false, None))),
        ("{\"k\\n\":\"v\\t\",\"k\\n\":\"v\"}", Some((11, 11, false, None))),
        ("{\"command\":\"ls\",\"n\":1}", Some((22, 22, false, None))),
        ("{\"path\":\"/tmp/x.txt\",\"content\":\"line1\\nline2\\n\"}", Some((48, 48, false, None))),
        ("{\"a\":1,\"b\":2,\"a\":3,\"c\":4,\"b\":5}", Some((19, 19, false, None))),
        ("[{\"x\":1,\"x\":2},{\"x\":3,\"x\":4}]", Some((17, 17, false, None))),
        ("{\"x\":[1,2,{\"x\":1,\"y\":2,\"x\":{\"z\":\"zz\",\"z\":\"z\"}}],\"x\":[[]]}", Some((10, 10, false, None))),
        ("{\"a\":1,}", None),
        ("[1,]", None),
        ("01", None),
        ("1.", None),
        (".5", None),
        ("NaN", None),
        ("\"\\x\"", None),
        ("{\"a\"}", None),
        ("'a'", None),
        ("", None),
        (" ", None),
        ("\"abc", None),
        ("\"\\ud83d", None),
        ("[1 2]", None),
        ("{\"a\":1}{", None),
        ("tru", None),
        ("\"\\u12\"", None),
        ("\"\\u12G4\"", None),
        ("\\ud83d", None),
        ("{\"a\":1}\u{a}{\"b\":2}", None),
        ("-", None),
        ("+1", None),
        ("0x10", None),
        ("\"a\u{1}b\"", None),
        ("\"a\u{a}b\"", None),
        ("1e400", Some((4, 4, false, None))),
        ("-1e400", Some((4, 4, false, None))),
        ("[1e400]", Some((6, 6, false, None))),
        ("{\"k0\":0,\"k1\":\"v1\",\"k2\":\"v2\",\"k3\":4.5,\"k4\":\"v4\",\"k1\":\"v5\",\"k6\":9,\"k7\":\"v7\",\"k8\":\"v8\",\"k9\":13.5,\"k10\":\"v10\",\"k11\":\"v11\",\"k12\":18,\"k13\":\"v13\",\"k14\":\"v14\",\"k0\":[0],\"k7\":[1],\"k14\":[2],\"k6\":[3],\"k13\":[4]}", Some((140, 140, false, None))),
        ("{\"k0\":0,\"k1\":\"v1\",\"k2\":\"v2\",\"k3\":4.5,\"k4\":\"v4\",\"k1\":\"v5\",\"k6\":9,\"k7\":\"v7\",\"k8\":\"v8\",\"k9\":13.5,\"k10\":\"v10\",\"k11\":\"v11\",\"k12\":18,\"k13\":\"v13\",\"k14\":\"v14\",\"k15\":22.5,\"k0\":[0],\"k7\":[1],\"k14\":[2],\"k5\":[3],\"k12\":[4]}", Some((161, 161, false, None))),
        ("{\"k0\":0,\"k1\":\"v1\",\"k2\":\"v2\",\"k3\":4.5,\"k4\":\"v4\",\"k1\":\"v5\",\"k6\":9,\"k7\":\"v7\",\"k8\":\"v8\",\"k9\":13.5,\"k10\":\"v10\",\"k11\":\"v11\",\"k12\":18,\"k13\":\"v13\",\"k14\":\"v14\",\"k15\":22.5,\"k16\":\"v16\",\"k0\":[0],\"k7\":[1],\"k14\":[2],\"k4\":[3],\"k11\":[4]}", Some((160, 160, false, None))),
        ("{\"k0\":0,\"k1\":\"v1\",\"k2\":\"v2\",\"k3\":4.5,\"k4\":\"v4\",\"k1\":\"v5\",\"k6\":9,\"k7\":\"v7\",\"k8\":\"v8\",\"k9\":13.5,\"k10\":\"v10\",\"k11\":\"v11\",\"k12\":18,\"k13\":\"v13\",\"k14\":\"v14\",\"k15\":22.5,\"k16\":\"v16\",\"k17\":\"v17\",\"k0\":[0],\"k7\":[1],\"k14\":[2],\"k3\":[3],\"k10\":[4]}", Some((173, 173, false, None))),
        ("{\"k0\":0,\"k1\":\"v1\",\"k2\":\"v2\",\"k3\":4.5,\"k4\":\"v4\",\"k1\":\"v5\",\"k6\":9,\"k7\":\"v7\",\"k8\":\"v8\",\"k9\":13.5,\"k10\":\"v10\",\"k11\":\"v11\",\"k12\":18,\"k13\":\"v13\",\"k14\":\"v14\",\"k15\":22.5,\"k16\":\"v16\",\"k17\":\"v17\",\"k1\":27,\"k19\":\"v19\",\"k20\":\"v20\",\"k21\":31.5,\"k22\":\"v22\",\"k23\":\"v23\",\"k24\":36,\"k25\":\"v25\",\"k26\":\"v26\",\"k27\":40.5,\"k28\":\"v28\",\"k29\":\"v29\",\"k30\":45,\"k1\":\"v31\",\"k32\":\"v32\",\"k33\":49.5,\"k34\":\"v34\",\"k35\":\"v35\",\"k36\":54,\"k37\":\"v37\",\"k38\":\"v38\",\"k39\":58.5,\"k0\":[0],\"k7\":[1],\"k14\":[2],\"k21\":[3],\"k28\":[4]}", Some((400, 400, false, None))),
        (" {  \"a\"\u{d}\u{a}:[ { \"b\" :\u{a}545.39\u{a}}  ,{  \"\"  :{\"\u{1f600}\"\u{9}:\u{9}false, \"\u{e9}\" :\u{9}\"\u{e9}\\u0007\\tZ\u{feff}\\r\u{e9}\" },\"id\"  :[\u{9}\"\"  ,\u{9}587, null,\u{d}\u{a}9007199254740994]\u{d}\u{a}}\u{a},true\u{a},\u{d}\u{a}-4.509e-4\u{9}]}  ", Some((111, 111, false, None))),
        ("  {\u{9}\"\u{e9}\":  true\u{d}\u{a},\"a\\n\":  \"\u{1f600}\\u00e9\\ufffd\" }\u{a}", Some((23, 23, false, None))),
        ("\u{d}\u{a}[483.73,  25E+3]", Some((14, 14, false, None))),
        ("\u{d}\u{a}-0", Some((1, 1, true, None))),
        ("5e0", Some((1, 1, false, None))),
        ("  \"\\u007f\u{e9}\u{1d11e}\\u0000\" ", Some((12, 12, false, Some(5)))),
        ("72\u{9}", Some((2, 2, false, None))),
        ("\u{9}[\"\\uD834\\uDD1E\"\u{9},\u{d}\u{a}[ null\u{a}]]\u{a}", Some((13, 13, false, None))),
        ("{\"b\":\u{9}-8.822e-5, \"\u{e9}\" :\u{a}\"\\u2028\"}", Some((25, 25, false, None))),
        ("\"\\u001f\\/\\u0007\u{1f600}\"", Some((17, 17, false, Some(5)))),
        ("\u{9}\"\u{1f600}\\\"\"", Some((6, 6, false, Some(3)))),
        ("\"\\n\" ", Some((4, 4, false, Some(1)))),
        ("true  ", Some((4, 4, false, None))),
        ("\u{a}\"\u{e9}\\u0041\\u00e9Z\\ufffd\" ", Some((7, 7, false, Some(5)))),
        ("\"\"  ", Some((2, 2, true, Some(0)))),
        ("  \"\"\u{9}", Some((2, 2, true, Some(0)))),
        ("\u{9}[]", Some((2, 2, false, None))),
        ("\"\"  ", Some((2, 2, true, Some(0)))),
        ("\u{d}\u{a}-2.571e-0  ", Some((6, 6, false, None))),
        ("\u{d}\u{a}\"\\u0000\\u00e9\"", Some((9, 9, false, Some(2)))),
        ("  \"\\ufffd\\u0000\u{2028}\u{2028}\"", Some((11, 11, false, Some(4)))),
        ("\u{a}false  ", Some((5, 5, true, None))),
        (" \"\"  ", Some((2, 2, true, Some(0)))),
        ("\u{a}[\u{9}2.2e+2 ,\u{a}null\u{9}, { \"b\":\u{d}\u{a}1.925,\u{d}\u{a}\"id\":{}  }\u{d}\u{a},\"\"]", Some((33, 33, false, None))),
        ("\u{d}\u{a}{}", Some((2, 2, false, None))),
        ("  \"\\\\u0041\\ufffd\\u001f \\u001f\"\u{d}\u{a}", Some((23, 23, false, Some(10)))),
        ("\u{d}\u{a}\"\\u007f\\r\u{a0}\\ud83d\\ude00\\\"\\ud83d\\ude00\"", Some((12, 12, false, Some(8)))),
        ("\"\\uD834\\uDD1E\\\"\\\"\"\u{9}", Some((8, 8, false, Some(4)))),
        ("\"\\r\u{65e5}\"  ", Some((5, 5, false, Some(2)))),
        ("\u{9}100000000000000000", Some((18, 18, false, None))),
        ("\u{d}\u{a}[3.85\u{a}]\u{d}\u{a}", Some((6, 6, false, None))),
        ("\u{d}\u{a}null", Some((4, 4, true, None))),
        ("\u{d}\u{a}[\u{9}\"\"\u{d}\u{a},  [{},\u{a}{}]\u{d}\u{a}]\u{9}", Some((12, 12, false, None))),
        ("[\"\u{feff}\u{1f600}\"\u{9}, null,1000\u{a},\u{d}\u{a}[\u{a}\"\\u007f\\t\u{a0}\",  {}  ,[\"\\u0007\"]]\u{a}]", Some((40, 40, false, None))),
        ("  \"\\u001fZ\\u0007\"\u{d}\u{a}", Some((15, 15, false, Some(3)))),
        (" 605.57\u{a}", Some((6, 6, false, None))),
        ("\u{d}\u{a}[] ", Some((2, 2, false, None))),
        ("null", Some((4, 4, true, None))),
        ("\u{a}934.83", Some((6, 6, false, None))),
        (" \"\\u007f\\r\\/\u{e9}\\\"\\b\u{1d11e}\"\u{d}\u{a}", Some((13, 13, false, Some(8)))),
        (" {\u{a}\"\u{e9}\" :\"\u{2028}\\/\"  ,\u{d}\u{a}\"\"\u{a}: 474.01,\"\\u0061\"  : true}\u{d}\u{a}", Some((29, 29, false, None))),
        ("\u{d}\u{a}\"\\t\\/\\u00e9\\ud83d\\ude00xyz\u{2028}\" ", Some((12, 12, false, Some(9)))),
        ("\"xyz\u{1f600}\u{2028}\\n\\u007f\u{e9}\"\u{9}", Some((12, 12, false, Some(9)))),
        ("\u{a}-7.615e-9", Some((9, 9, false, None))),
        ("\"\\u007f\\\\\"\u{d}\u{a}", Some((5, 5, false, Some(2)))),
        ("{}\u{a}", Some((2, 2, false, None))),
        ("\"\\ud83d\\ude00\\uD834\\uDD1E\\u2028\u{1d11e}\\ud83d\\ude00\"", Some((11, 11, false, Some(9)))),
        ("false  ", Some((5, 5, true, None))),
        ("\u{a}{\u{d}\u{a}\"\\\"q\\\"\":\u{d}\u{a}-47850  ,\u{9}\"\":  [159\u{9},\u{9}81E+18\u{9}]\u{9},\u{d}\u{a}\"b\":\u{d}\u{a}[ 98E+8 ]}", Some((63, 63, false, None))),
        ("\"\\\\u0041\"", Some((9, 9, false, Some(6)))),
        ("\u{a}589  ", Some((3, 3, false, None))),
        (" {}", Some((2, 2, false, None))),
        ("\u{d}\u{a}\"\\fa\\n\\u0000\\u2028\"\u{a}", Some((14, 14, false, Some(5)))),
        (" [\u{9}{\"\":\u{a}9007199254740992\u{9}},[\u{9}[]\u{a},false\u{d}\u{a},\u{a}[{\"\\u0061\":\u{a}315.96  ,  \"id\"  :3},0\u{9}],\u{d}\u{a}-0 ]  ]", Some((60, 60, false, None))),
        ("[\u{d}\u{a}true\u{d}\u{a}]", Some((6, 6, false, None))),
        ("\u{a}[{\"a\\n\":\u{a}\"\\t\\u007f\" }\u{d}\u{a},  -30434\u{a},true\u{a},  \"\u{a0}\\n\\\\u0041 \u{65e5}\\r\"\u{d}\u{a}]\u{a}", Some((44, 44, false, None))),
        ("\u{9}9007199254740994 ", Some((16, 16, false, None))),
        ("  35E+19\u{a}", Some((21, 21, false, None))),
        ("\u{d}\u{a}{\u{9}\"b\":\u{9}{  \"c\" :null\u{d}\u{a}}\u{9},\u{a}\"a\":  \"\\f\u{1f600}\\uD834\\uDD1E\\u0007xyz\u{a0}\",\"x y\"  :[],  \"id\":73E+19  }\u{9}", Some((75, 75, false, None))),
        ("  \"\u{1f600}\"\u{d}\u{a}", Some((4, 4, false, Some(2)))),
        ("  \"\\u0041\\u0007\"\u{a}", Some((9, 9, false, Some(2)))),
        ("false\u{d}\u{a}", Some((5, 5, true, None))),
        (" -38802  ", Some((6, 6, false, None))),
        ("{}\u{d}\u{a}", Some((2, 2, false, None))),
        ("\u{d}\u{a}\"\\ufffd\\u0007\"", Some((9, 9, false, Some(2)))),
        ("\"\\u00e9\\\\/\\n\\r\\u2028\"", Some((11, 11, false, Some(6)))),
        (" 2.20\u{d}\u{a}", Some((3, 3, false, None))),
        ("true", Some((4, 4, false, None))),
        ("\u{a}[]\u{9}", Some((2, 2, false, None))),
        ("\"\\ud83d\\ude00\"\u{9}", Some((4, 4, false, Some(2)))),
        ("[]", Some((2, 2, false, None))),
        ("-0", Some((1, 1, true, None))),
        ("[]", Some((2, 2, false, None))),
        ("{\"x y\":\u{9}null\u{9},\"\u{1f600}\"\u{a}:\u{a}9007199254740994\u{9},\u{a}\"\u{1f600}\"\u{a}: \"\\u2028\\ud800\\ud800\\udc00\u{1f600}xyz\"\u{a},\u{d}\u{a}\"\\u0061\"\u{d}\u{a}:\"\u{a0}\"}", Some((42, 37, false, None))),
        ("\"\"", Some((2, 2, true, Some(0)))),
        ("true", Some((4, 4, false, None))),
        ("{}", Some((2, 2, false, None))),
        ("\"\"", Some((2, 2, true, Some(0)))),
        ("{\u{9}\"a\\n\"\u{a}:\"\\ud800\\ud800\\r\\b\u{a0}xyz\\u2028\\u2028\"\u{9}}", Some((32, 22, false, None))),
        ("5e-18", Some((5, 5, false, None))),
        ("{\"\u{e9}\"\u{d}\u{a}:[\"\" ,  {\u{a}\"c\"\u{a}:false, \"\u{1f600}\"\u{d}\u{a}:\u{d}\u{a}50E+2\u{9},\u{d}\u{a}\"\u{1f600}\"  :\u{a}true  }  ]  ,\u{a}\"b\":false, \"\u{1f600}\":\u{9}[-0,\"\u{1d11e}\\n\\u007f\\uDBFF\\u0000\\u2028\"  ,  false  ,\"\\\\ud83d\u{1f600}\\u007f\u{1f600}\\ud800\\ud800\\b\"\u{d}\u{a}]}", Some((107, 92, false, None))),
        ("\"/\\u00e9 \u{1d11e}\\u0041\u{feff}\\u007f\"", Some((10, 10, false, Some(8)))),
        ("\"\"", Some((2, 2, true, Some(0)))),
        ("\"xyz\\\"\\udc00\\udc00\u{65e5}\"", Some((20, 10, false, Some(7)))),
        ("\"\\ud83d\\ude00\"", Some((4, 4, false, Some(2)))),
        ("[  \"\\uD834\\uDD1E\\uDBFF\\t\\u007f\"\u{9}]", Some((15, 10, false, None))),
        ("\"\\u0041\\ud83d\\ude00\\udc00\"", Some((11, 6, false, Some(4)))),
        ("{ \"c\":\u{d}\u{a}59E+24,\"b\":  \"\\\"\",\u{9}\"a\"  :\u{a}\"\\u0000\\ud83d\u{65e5}\\u001f\"\u{a},\"id\": {}\u{9}}", Some((56, 51, false, None))),
        ("[\u{9}{\u{a}\"\u{e9}\" :\u{a}null ,\u{9}\"\u{1f600}\"\u{9}:\"\\f\\\\ud83d\\uD834\\uDD1EZ\\u00e9\", \"a\"\u{a}:\u{a}\" \\\\u0041a\\ud83d\u{1d11e}\\\\ud83d \"\u{d}\u{a},\u{d}\u{a}\"a\"\u{d}\u{a}:\u{9}\"\\ud83d\\udc00\\b\\u0041\\u0041a\"\u{9}, \"\u{1f600}\" :{} } ,{  \"c\"\u{d}\u{a}:\"xyz\\ud83d\u{1f600}\\r\\\\ud83d\\\\\\r\"\u{d}\u{a}}\u{a}]", Some((67, 62, false, None))),
        ("[ 237.81,9007199254740992\u{d}\u{a}]", Some((25, 25, false, None))),
        ("\"\\udc00\"", Some((8, 3, false, Some(1)))),
        ("true", Some((4, 4, false, None))),
        ("-88631", Some((6, 6, false, None))),
        ("[  -48723\u{d}\u{a},\u{d}\u{a}{\u{a}\"\" :\u{d}\u{a}261.1 , \"\u{e9}\"\u{9}:\u{d}\u{a}\"\\\"\u{1f600}\u{1d11e}\\u0007\\u0000\"\u{a},\"a\\n\"\u{d}\u{a}:  [  \"\",\u{d}\u{a}\"\\ud800\\ud800\",  \"\\u0041\\n\\r\"]\u{d}\u{a}}\u{d}\u{a}]", Some((78, 68, false, None))),
        ("[  [6.5052 ] ,{} ]", Some((13, 13, false, None))),
    ];
    /// (number literal, JSON.stringify(JSON.parse(literal)))
    #[rustfmt::skip]
    const NUMBER_CASES: &[(&str, &str)] = &[
        ("0", "0"),
        ("-0", "0"),
        ("0.0", "0"),
        ("-0.0", "0"),
        ("1", "1"),
        ("-1", "-1"),
        ("1.0", "1"),
        ("2.50", "2.5"),
        ("100", "100"),
        ("1e2", "100"),
        ("1E2", "100"),
        ("1e+2", "100"),
        ("0.1", "0.1"),
        ("0.1e1", "1"),
        ("-0.5", "-0.5"),
        ("1e21", "1e+21"),
        ("1E21", "1e+21"),
        ("1e20", "100000000000000000000"),
        ("123456789012345678901", "123456789012345680000"),
        ("999999999999999999999", "1e+21"),
        ("1e-7", "1e-7"),
        ("1e-6", "0.000001"),
        ("0.000001", "0.000001"),
        ("0.0000001", "1e-7"),
        ("1.5e-7", "1.5e-7"),
        ("-1.5e-7", "-1.5e-7"),
        ("5e-324", "5e-324"),
        ("4.9e-324", "5e-324"),
        ("2e-323", "2e-323"),
        ("1.7976931348623157e308", "1.7976931348623157e+308"),
        ("2.2250738585072014e-308", "2.2250738585072014e-308"),
        ("1e300", "1e+300"),
        ("123e-20", "1.23e-18"),
        ("0.30000000000000004", "0.30000000000000004"),
        ("123456789012345678901234", "1.2345678901234569e+23"),
        ("18446744073709551615", "18446744073709552000"),
        ("18446744073709551616", "18446744073709552000"),
        ("9007199254740991", "9007199254740991"),
        ("9007199254740992", "9007199254740992"),
        ("9007199254740993", "9007199254740992"),
        ("-9007199254740993", "-9007199254740992"),
        ("-9223372036854775808", "-9223372036854776000"),
        ("-9223372036854775809", "-9223372036854776000"),
        ("9223372036854775807", "9223372036854776000"),
        ("12345678901234567890", "12345678901234567000"),
        ("1e16", "10000000000000000"),
        ("1.25e+30", "1.25e+30"),
        ("0.000123", "0.000123"),
        ("100000000000000000000", "100000000000000000000"),
        ("1000000000000000000000", "1e+21"),
        ("-1e-300", "-1e-300"),
        ("3.14159", "3.14159"),
        ("5e11", "500000000000"),
        ("9007199254740996", "9007199254740996"),
        ("-88357", "-88357"),
        ("0", "0"),
        ("-3.909e-5", "-0.00003909"),
        ("987.850", "987.85"),
        ("559", "559"),
        ("4e-2", "0.04"),
        ("1000000000000", "1000000000000"),
        ("0", "0"),
        ("0", "0"),
        ("3E+23", "3e+23"),
        ("285", "285"),
        ("173", "173"),
        ("0.0", "0"),
        ("0.0", "0"),
        ("979", "979"),
        ("100000000000000000000000", "1e+23"),
        ("0.0", "0"),
        ("5e17", "500000000000000000"),
        ("-7.300e-6", "-0.0000073"),
        ("656", "656"),
        ("100000000000000000", "100000000000000000"),
        ("8.3", "8.3"),
        ("8e+2", "800"),
        ("0", "0"),
        ("-6.244e-2", "-0.06244"),
        ("10000000000000000000000", "1e+22"),
        ("-0", "0"),
        ("3e-12", "3e-12"),
        ("264.21", "264.21"),
        ("-0", "0"),
        ("8e+2", "800"),
        ("54E+15", "54000000000000000"),
        ("99E+23", "9.9e+24"),
        ("1000000000000000000000000", "1e+24"),
        ("7e-8", "7e-8"),
        ("713", "713"),
        ("1e+3", "1000"),
        ("511", "511"),
        ("624", "624"),
        ("902.17", "902.17"),
        ("0", "0"),
        ("-14089", "-14089"),
        ("-0", "0"),
        ("0", "0"),
        ("-8.815e-7", "-8.815e-7"),
        ("5e12", "5000000000000"),
        ("908.97", "908.97"),
        ("753.67", "753.67"),
        ("326", "326"),
        ("-0", "0"),
        ("100000", "100000"),
        ("723.79", "723.79"),
        ("-2.443e-3", "-0.002443"),
        ("820.76", "820.76"),
        ("910.34", "910.34"),
        ("5", "5"),
        ("608", "608"),
        ("95E+24", "9.5e+25"),
    ];
    /// (literal of an arbitrary double, JSON.stringify(JSON.parse(literal)))
    #[rustfmt::skip]
    const DOUBLE_CASES: &[(&str, &str)] = &[
        ("-5.5810334551358300565e-237", "-5.58103345513583e-237"),
        ("2.0426427448059600000e+17", "204264274480596000"),
        ("-4.795929944843653e+282", "-4.795929944843653e+282"),
        ("-5.088234505208722e+113", "-5.088234505208722e+113"),
        ("2.5378797092235859217e+181", "2.537879709223586e+181"),
        ("1.1035803851278886e+32", "1.1035803851278886e+32"),
        ("7.6057085318610951e+219", "7.605708531861095e+219"),
        ("-7.7664812436968872181e-134", "-7.766481243696887e-134"),
        ("2.0457039222209615109e+278", "2.0457039222209615e+278"),
        ("-2.1285795889624323e-131", "-2.1285795889624323e-131"),
        ("-4.9633573975413897954e+163", "-4.96335739754139e+163"),
        ("2.8192217691120761e+246", "2.819221769112076e+246"),
        ("3.0043161579635782670e-125", "3.0043161579635783e-125"),
        ("6.462666668242185e+289", "6.462666668242185e+289"),
        ("3.4183286438353730640e+207", "3.418328643835373e+207"),
        ("2.1465875195159703670e-64", "2.1465875195159704e-64"),
        ("3.1131588905717832171e+67", "3.113158890571783e+67"),
        ("1.8710100552295747e+58", "1.8710100552295747e+58"),
        ("-9.9282314752401249e+64", "-9.928231475240125e+64"),
        ("-1.5436291605010879721e+4", "-15436.29160501088"),
        ("8.747571855009573e-265", "8.747571855009573e-265"),
        ("2.8469008623906621e-241", "2.846900862390662e-241"),
        ("-3.468881232136247e-208", "-3.468881232136247e-208"),
        ("3.5634412844640120245e-109", "3.563441284464012e-109"),
        ("-3.7490173660045268214e-102", "-3.749017366004527e-102"),
        ("1.4942199332407959919e-223", "1.494219933240796e-223"),
        ("1.2836725111797766e-297", "1.2836725111797766e-297"),
        ("1.2888498300738114497e-278", "1.2888498300738114e-278"),
        ("7.162556912116451e+126", "7.162556912116451e+126"),
        ("6.353621349757847e-192", "6.353621349757847e-192"),
        ("3.9015585513763356e-165", "3.9015585513763356e-165"),
        ("-3.2321216933281731408e+277", "-3.232121693328173e+277"),
        ("-1.1343523317344634099e+257", "-1.1343523317344634e+257"),
        ("2.6405823649306148481e-76", "2.640582364930615e-76"),
        ("-2.1893230772260773e-258", "-2.1893230772260773e-258"),
        ("5.9931633180667379706e+132", "5.993163318066738e+132"),
        ("-1.590210944268355e-116", "-1.590210944268355e-116"),
        ("-6.3505095893486435869e+71", "-6.350509589348644e+71"),
        ("4.1157697638293631e+280", "4.115769763829363e+280"),
        ("-8.313852438709869e+212", "-8.313852438709869e+212"),
        ("1.0411411517560111e+281", "1.0411411517560111e+281"),
        ("9.5369195522173543972e-68", "9.536919552217354e-68"),
        ("3.1718966610426535e+239", "3.1718966610426535e+239"),
        ("2.9343133909676533980e-242", "2.9343133909676534e-242"),
        ("8.7886519100364515556e+122", "8.788651910036452e+122"),
        ("2.0932562298517041732e-110", "2.0932562298517042e-110"),
        ("-9.7232876353487600721e+229", "-9.72328763534876e+229"),
        ("-4.6368463366769866691e-73", "-4.6368463366769867e-73"),
        ("-6.12016025625931e+163", "-6.12016025625931e+163"),
        ("-9.0945095901525837996e+296", "-9.094509590152584e+296"),
        ("4.086917178472294e+78", "4.086917178472294e+78"),
        ("-3.163288955567168e-280", "-3.163288955567168e-280"),
        ("-2.6677317928095703e-211", "-2.6677317928095703e-211"),
        ("2.6699955044813390738e+181", "2.669995504481339e+181"),
        ("4.7367189621170909e+47", "4.736718962117091e+47"),
        ("3.1696538873513436e-285", "3.1696538873513436e-285"),
        ("-5.998256050907487e-104", "-5.998256050907487e-104"),
        ("2.1306435214990138223e-176", "2.1306435214990138e-176"),
        ("5.8690680225634457e+136", "5.869068022563446e+136"),
        ("1.9911630905492861259e+35", "1.991163090549286e+35"),
        ("2.795465640538024e+185", "2.795465640538024e+185"),
        ("-1.6834051918962323281e-261", "-1.6834051918962323e-261"),
        ("-1.5208697143384574947e+168", "-1.5208697143384575e+168"),
        ("-1.6598580810536635e+133", "-1.6598580810536635e+133"),
        ("8.2666201345761120817e+135", "8.266620134576112e+135"),
        ("-5.864255586636891e+226", "-5.864255586636891e+226"),
        ("3.551959475302286e+26", "3.551959475302286e+26"),
        ("1.6799532336507828e-149", "1.6799532336507828e-149"),
        ("-6.5334814923685235e-242", "-6.5334814923685235e-242"),
        ("-3.8674433159306604e-79", "-3.8674433159306604e-79"),
        ("1.9042627373710275", "1.9042627373710275"),
        ("853.090476244688", "853.090476244688"),
        ("2.9647381464019415e-12", "2.9647381464019415e-12"),
        ("7037617764435.709", "7037617764435.709"),
        ("90313762566074.73", "90313762566074.73"),
        ("1.2240739306434988e-9", "1.2240739306434988e-9"),
        ("664280.4904840887", "664280.4904840887"),
        ("9.35020916396752e-9", "9.35020916396752e-9"),
        ("0.00002016311455518007", "0.00002016311455518007"),
        ("5.141103656496852e-8", "5.141103656496852e-8"),
        ("372869348.15347195", "372869348.15347195"),
        ("1751851083.2451284", "1751851083.2451284"),
        ("6.039168413262814e-15", "6.039168413262814e-15"),
        ("0.000007666279177647084", "0.000007666279177647084"),
        ("2713607805.7810664", "2713607805.7810664"),
        ("0.0022804882540367545", "0.0022804882540367545"),
        ("0.0007805118269752711", "0.0007805118269752711"),
        ("3.616896963212639e-11", "3.616896963212639e-11"),
        ("8.845944218337535e-15", "8.845944218337535e-15"),
        ("286673.24129492044", "286673.24129492044"),
    ];
    /// Every code point c with String.fromCodePoint(c).trim() === ""
    #[rustfmt::skip]
    const JS_WHITESPACE: &[u32] = &[0x9, 0xa, 0xb, 0xc, 0xd, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff];
    /// (s, s.trim() === "", s.trim().length)
    #[rustfmt::skip]
    const TRIM_CASES: &[(&str, bool, usize)] = &[
        ("", true, 0),
        (" ", true, 0),
        ("\u{9}\u{a}\u{d}", true, 0),
        ("\u{b}\u{c}", true, 0),
        ("\u{85}", false, 1),
        ("\u{feff}", true, 0),
        ("\u{a0}\u{3000}", true, 0),
        ("\u{180e}", false, 1),
        ("\u{200b}", false, 1),
        (" a ", false, 1),
        ("\u{2028}\u{2029}", true, 0),
        ("\u{205f}\u{202f}\u{1680}", true, 0),
        ("x", false, 1),
        ("\u{0}", false, 1),
    ];
    /// (string, s.length)
    #[rustfmt::skip]
    const UTF16_CASES: &[(&str, usize)] = &[
        ("\u{df}\u{ffff}\u{ffff}\u{800}\u{e9}\u{e9}a\u{1f600}\u{ffff}\u{7ff}\u{a}\u{10ffff}\u{1f600}\u{df}\u{1d11e} \u{1f600}\u{a}", 23),
        ("\u{ffff}\u{7f}\u{7f}\u{800}\u{800}\u{65e5}\u{a}\u{10ffff}\u{10ffff}\u{a}\u{1d11e}\u{7f}\u{0}\u{0}\u{e9}\u{10ffff}\u{7ff}\u{a}", 22),
        ("\u{0}\u{e9}\u{0}\u{1d11e}\u{80}\u{e9}\u{ffff}\u{7ff}a\u{ffff}\u{e9}\u{10ffff}\u{800}\u{e9}\u{a}a\u{672c}\u{10ffff}\u{65e5}\u{0}\u{7f}a\u{1f600} \u{10000}\u{a}\u{10000}\u{1d11e}\u{65e5}", 36),
        ("", 0),
        ("\u{10ffff}\u{ffff} a\u{80}\u{80}\u{e9}\u{df}\u{1d11e}\u{df}\u{ffff}\u{7ff}\u{10000}a\u{80}\u{65e5}\u{7f}\u{1d11e}\u{800} \u{7f}\u{10000}", 27),
        ("\u{10000}\u{ffff}\u{1d11e}\u{10000}a\u{65e5}", 9),
        ("\u{0}\u{672c}\u{65e5} \u{e9}\u{10000}\u{1d11e}\u{e9}", 10),
        ("\u{7f}\u{e9}\u{1d11e}\u{80}\u{1d11e}\u{a}\u{e9}\u{df}\u{10000}\u{a}\u{10000}a\u{800}\u{df}\u{672c}\u{672c}\u{df}\u{7f}\u{ffff}", 23),
        ("\u{65e5}\u{7ff}\u{0}\u{10ffff}\u{0} \u{65e5}\u{7f}a\u{a}a\u{10000}\u{800} ", 16),
        ("a\u{800}a\u{800}\u{7ff}\u{672c}\u{a}\u{7ff}\u{a}\u{65e5}\u{a}\u{1f600}\u{e9}\u{7f}a\u{1f600}\u{1f600}\u{7f}\u{df}\u{7f}\u{a}\u{1d11e}\u{7ff}\u{a}\u{800} \u{1f600}\u{7f}", 33),
        ("", 0),
        ("\u{1f600}", 2),
        ("\u{df}\u{80}\u{10ffff}\u{800}\u{10000}\u{0}\u{10000}\u{1f600}\u{e9}\u{ffff}\u{80}", 15),
        ("\u{a}\u{800} \u{ffff}\u{65e5}a\u{10ffff}", 8),
        ("\u{10ffff}\u{7f}\u{672c}\u{ffff}\u{10000}\u{df}\u{80}a  \u{10000}\u{ffff}\u{65e5} \u{7f}\u{7f} \u{65e5}a\u{1f600}\u{1d11e}a\u{800}", 28),
        ("\u{672c}\u{ffff}\u{800}\u{10000}\u{10ffff}\u{7f}\u{7f}\u{7f}a\u{65e5}\u{65e5} \u{ffff}\u{10ffff}\u{800}\u{10ffff}\u{800}", 21),
        ("\u{7f}\u{e9}\u{e9}\u{65e5}\u{10ffff}\u{80}\u{df}\u{a}a\u{10000}\u{7ff}\u{1d11e}\u{10000}\u{1d11e}\u{800}\u{df}", 21),
        ("\u{1f600}\u{10ffff}a\u{e9}\u{7ff}\u{1f600}", 9),
        ("\u{1d11e}\u{800}\u{df}\u{a}\u{10ffff}\u{1d11e}\u{800}\u{65e5}\u{800}\u{10000}\u{672c}\u{65e5}\u{e9}\u{a} \u{1f600}\u{0}\u{ffff}\u{10000}\u{e9}\u{1d11e}\u{0}\u{10000}\u{e9}\u{a}\u{65e5}", 34),
        ("\u{65e5}\u{1f600}\u{e9}\u{1f600}\u{800}\u{65e5}\u{ffff}\u{800}\u{80}\u{1d11e}\u{10000}\u{10000}\u{65e5}a\u{672c}a\u{7f}\u{10000}", 24),
        ("", 0),
        ("\u{7f}aa\u{1d11e}\u{1f600}\u{1f600}\u{a}\u{10ffff}", 12),
        ("\u{a}\u{7f}\u{e9}\u{ffff}\u{672c}\u{65e5}\u{65e5}a\u{65e5}\u{a}\u{7f}\u{672c}\u{e9}\u{65e5}\u{e9}\u{10000}\u{df}\u{0}\u{e9}\u{ffff}\u{7ff}\u{df}\u{ffff}\u{df}\u{e9}\u{1f600}\u{1f600}a", 31),
        ("\u{10ffff}\u{1f600}\u{10ffff}\u{1d11e}\u{800}a\u{672c}a\u{800}\u{800}\u{1d11e}\u{ffff}\u{1f600}\u{65e5}\u{65e5}\u{80}\u{1f600}\u{df}\u{7ff}", 26),
        ("\u{672c}\u{0}\u{1d11e}\u{ffff}\u{7f}\u{df}\u{7ff}\u{672c}\u{672c}\u{df}\u{672c}\u{10000}\u{7f}\u{800}\u{e9} \u{672c}\u{1d11e}\u{10000}\u{80}\u{80}\u{10ffff}\u{1f600} \u{e9}\u{65e5}", 32),
    ];
    /// (s, new Date(s).getTime() or None for NaN)
    #[rustfmt::skip]
    const DATE_PARSE_CASES: &[(&str, Option<i64>)] = &[
        ("2026-03-01T09:15:02.004Z", Some(1772356502004)),
        ("2026-03-01T09:15:02Z", Some(1772356502000)),
        ("2026-03-01T09:15Z", Some(1772356500000)),
        ("2026-03-01T09:15:02.0049Z", Some(1772356502004)),
        ("2026-03-01T09:15:02.5Z", Some(1772356502500)),
        ("2026-03-01T09:15:02.12Z", Some(1772356502120)),
        ("2026-03-01T09:15:02.123456789Z", Some(1772356502123)),
        ("2026-03-01T09:15:02.1234567891234Z", Some(1772356502123)),
        ("2026-03-01T09:15:02.004+01:00", Some(1772352902004)),
        ("2026-03-01T09:15:02.004-05:30", Some(1772376302004)),
        ("2026-03-01T09:15:02.004+0100", Some(1772352902004)),
        ("2026-03-01T09:15:02.004+00:00", Some(1772356502004)),
        ("2026-03-01T09:15:02.004-00:00", Some(1772356502004)),
        ("2026-03-01T09:15:02.004+23:59", Some(1772270162004)),
        ("2026-03-01T09:15:02.004+24:00", None),
        ("2026-03-01T09:15:02.004+01:60", None),
        ("2026-02-30T00:00:00Z", Some(1772409600000)),
        ("2026-02-29T00:00:00Z", Some(1772323200000)),
        ("2024-02-29T00:00:00Z", Some(1709164800000)),
        ("2026-04-31T00:00:00Z", Some(1777593600000)),
        ("2026-12-31T23:59:59.999Z", Some(1798761599999)),
        ("2026-03-01T24:00:00Z", Some(1772409600000)),
        ("2026-03-01T24:00:00.000Z", Some(1772409600000)),
        ("2026-03-01T24:00:00.0001Z", None),
        ("2026-03-01T24:00:01Z", None),
        ("2026-03-01T23:60:00Z", None),
        ("2026-03-01T23:59:60Z", None),
        ("2026-13-01T00:00:00Z", None),
        ("2026-00-01T00:00:00Z", None),
        ("2026-03-00T00:00:00Z", None),
        ("2026-03-32T00:00:00Z", None),
        ("2026-03-01", Some(1772323200000)),
        ("2026-03", Some(1772323200000)),
        ("2026", Some(1767225600000)),
        ("2026-03-01T09:15:02.004z", Some(1772356502004)),
        ("2026-03-01t09:15:02.004Z", Some(1772356502004)),
        ("+002026-03-01T09:15:02.004Z", Some(1772356502004)),
        ("-000001-03-01T09:15:02.004Z", Some(-62193624297996)),
        ("-000000-03-01T00:00:00Z", None),
        ("1970-01-01T00:00:00.000Z", Some(0)),
        ("1969-12-31T23:59:59.999Z", Some(-1)),
        ("0000-01-01T00:00:00Z", Some(-62167219200000)),
        ("0000-02-29T12:00:00Z", Some(-62162078400000)),
        ("1900-02-29T00:00:00Z", Some(-2203891200000)),
        ("2000-02-29T00:00:00Z", Some(951782400000)),
        ("1600-03-01T00:00:00Z", Some(-11670912000000)),
        ("9999-12-31T23:59:59.999Z", Some(253402300799999)),
        ("+275760-09-13T00:00:00.000Z", Some(8640000000000000)),
        ("+275760-09-13T00:00:00.001Z", None),
        ("-271821-04-20T00:00:00.000Z", Some(-8640000000000000)),
        ("-271821-04-19T23:59:59.999Z", None),
        ("-271821-04-20T00:00:00.000+01:00", None),
        ("2026-03-01T09:15:02.Z", None),
        (" 2026-03-01T09:15:02.004Z", None),
        ("2026-03-01T09:15:02.004Z ", None),
        ("2026-3-1T09:15:02.004Z", None),
        ("2026-03-01T9:15:02.004Z", None),
        ("2026-03-01T09:15:02,004Z", None),
        ("2026-03-01T09Z", None),
        ("20260301T091502Z", None),
        ("2026-03-01T09:15:02.004+01", None),
        ("2026-03-01T09:15:02.004Z+01:00", None),
        ("", None),
        ("Z", None),
        ("garbage", None),
    ];
    /// (ms, new Date(ms).toISOString())
    #[rustfmt::skip]
    const DATE_FORMAT_CASES: &[(i64, &str)] = &[
        (0, "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (1, "1970-01-01T00:00:00.001Z"),
        (999, "1970-01-01T00:00:00.999Z"),
        (1000, "1970-01-01T00:00:01.000Z"),
        (1772356502004, "2026-03-01T09:15:02.004Z"),
        (-62167219200000, "0000-01-01T00:00:00.000Z"),
        (-62167219200001, "-000001-12-31T23:59:59.999Z"),
        (253402300799999, "9999-12-31T23:59:59.999Z"),
        (253402300800000, "+010000-01-01T00:00:00.000Z"),
        (8640000000000000, "+275760-09-13T00:00:00.000Z"),
        (-8640000000000000, "-271821-04-20T00:00:00.000Z"),
        (951782400000, "2000-02-29T00:00:00.000Z"),
        (4107542400000, "2100-03-01T00:00:00.000Z"),
        (-2208988800000, "1900-01-01T00:00:00.000Z"),
        (-12219292800000, "1582-10-15T00:00:00.000Z"),
        (-7792192102074623, "-244955-04-06T09:52:05.377Z"),
        (-4958791103661060, "-155168-03-01T10:45:38.940Z"),
        (8142377183139324, "+259991-08-30T15:45:39.324Z"),
        (2893294477611780, "+093654-11-07T14:26:51.780Z"),
        (-6606721955984831, "-207389-04-26T16:40:15.169Z"),
        (-1403689831495285, "-042512-11-02T21:55:04.715Z"),
        (-6337401731014252, "-198855-09-25T22:16:25.748Z"),
        (7322461960315704, "+234009-08-01T03:11:55.704Z"),
        (1074996687769889, "+036035-04-16T07:02:49.889Z"),
        (500923317968845, "+017843-08-18T14:06:08.845Z"),
        (-1366188614666462, "-041323-03-16T18:35:33.538Z"),
        (-1765587393790484, "-053980-10-05T17:16:49.516Z"),
        (7245866604298353, "+231582-05-16T19:24:58.353Z"),
        (3932234479039907, "+126577-07-20T03:17:19.907Z"),
        (2374676369279623, "+077220-07-01T04:47:59.623Z"),
        (5370103477388620, "+172141-10-21T10:23:08.620Z"),
        (6597666426748037, "+211041-09-22T22:32:28.037Z"),
        (1338653089106083, "+044390-03-25T00:18:26.083Z"),
        (265187187641859, "+010373-06-13T03:40:41.859Z"),
        (7558409656584263, "+241486-06-20T05:56:24.263Z"),
        (140155968442, "1974-06-11T04:12:48.442Z"),
        (1520475685782, "2018-03-08T02:21:25.782Z"),
        (-27331668698, "1969-02-18T15:52:11.302Z"),
        (1334320834092, "2012-04-13T12:40:34.092Z"),
        (2024910171702, "2034-03-02T11:02:51.702Z"),
        (2171477043256, "2038-10-23T20:04:03.256Z"),
        (2328646548278, "2043-10-16T22:15:48.278Z"),
        (354316290654, "1981-03-24T21:11:30.654Z"),
        (-809776857310, "1944-05-04T13:59:02.690Z"),
        (2372599668987, "2045-03-08T15:27:48.987Z"),
    ];
}

// Generator for the tables above (run with Node 20+: `node gen.js`).
/*
// Generates Rust test tables for src/jscompat.rs from real Node behaviour.
// Usage: node gen.js > tables.rs
'use strict';
let seed = 0x5eed1234;
function rnd() { // mulberry32
  seed |= 0; seed = (seed + 0x6D2B79F5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const ri = (n) => Math.floor(rnd() * n);
const pick = (a) => a[ri(a.length)];

function rustStr(s) {
  let o = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (c >= 0xD800 && c <= 0xDFFF) throw new Error('lone surrogate in Rust literal');
    if (ch === '"') o += '\\"';
    else if (ch === '\\') o += '\\\\';
    else if (c >= 0x20 && c < 0x7f) o += ch;
    else o += '\\u{' + c.toString(16) + '}';
  }
  return o + '"';
}
function wellFormedDeep(v) {
  if (typeof v === 'string') return v.toWellFormed();
  if (Array.isArray(v)) return v.map(wellFormedDeep);
  if (v && typeof v === 'object') {
    const o = Object.create(null);
    for (const k of Object.keys(v)) o[k.toWellFormed()] = wellFormedDeep(v[k]);
    return o;
  }
  return v;
}

// ---------- hand-written JSON texts ----------
const hand = [
  'null', 'true', 'false', '0', '-0', '0.0', '-0.0', '1', '-1', '1.0', '2.50', '100', '1e2', '1E2', '1e+2',
  '0.1', '0.1e1', '-0.5', '1e21', '1E21', '1e20', '123456789012345678901', '999999999999999999999',
  '1e-7', '1e-6', '0.000001', '0.0000001', '1.5e-7', '-1.5e-7', '5e-324', '4.9e-324', '2e-323',
  '1.7976931348623157e308', '2.2250738585072014e-308', '1e300', '123e-20', '0.30000000000000004',
  '123456789012345678901234', '18446744073709551615', '18446744073709551616', '9007199254740991',
  '9007199254740992', '9007199254740993', '-9007199254740993', '-9223372036854775808',
  '-9223372036854775809', '9223372036854775807', '12345678901234567890', '1e16', '1.25e+30',
  '0.000123', '100000000000000000000', '1000000000000000000000', '-1e-300', '3.14159',
  '""', '"abc"', '"a\\"b"', '"\\\\"', '"/"', '"\\/"', '"\\b\\f\\n\\r\\t"', '"\\u0000\\u0001\\u001f"',
  '"\\u007f"', '"\\u0080"', '"é"', '"😀"', '"\\ud83d\\ude00"', '"\\uD83D\\uDE00"', '"\\u2028\\u2029"',
  '"\u2028\u2029"', '"日本語"', '"\\u65e5"', '"\\uFFFD"', '"\\ufeff"', '"\u{10FFFF}"', '"\\uDBFF\\uDFFF"',
  '"\\ud83d"', '"\\ude00"', '"a\\ud83dz"', '"\\ud83d\\ud83d\\ude00"', '"\\ude00\\ud83d"', '"\\\\ud83d"',
  '"\\\\\\ud83d"', '"\\\\\\\\ud83d"', '"\\ud83d\\u0041"', '"\\ud83d\\n"', '"\\uD800"', '"\\uDFFF"',
  '["\\ud83d", "x", {"k\\udc00": "\\udbff"}]', '{"a":"\\ud800\\ud800\\udc00\\udc00"}',
  '"\\ud83d\\\\ude00"', '"tab\there"', '"\\u0009"', '"\\u000b"', '"\\u000c"', '"\\"\\\\\\/"',
  '[]', '{}', '[1,2,3]', '[ 1 , 2 ]', ' \r\n\t[ ] ', '[[],[[]],{}]', '[null,true,false,0,"",[],{}]',
  '{"a":1}', '{ "a" : 1 , "b" : [ 1 , { } ] }', '{"a":1,"a":2}', '{"a":1,"b":2,"a":"long string"}',
  '{"a":{"x":1,"x":[1,2,3]},"a":{"y":null}}', '{"\\u0061":1,"a":22}', '{"a":22,"\\u0061":1}',
  '{"__proto__":1}', '{"__proto__":{"a":1},"b":2}', '{"1":1,"01":2,"1":3}', '{"😀":"😀","\\ud83d\\ude00":1}',
  '{"":0,"":""}', '{"a":[{"b":{"c":{"d":[1.5,-0,1e21]}}}]}', '{"k\\n":"v\\t","k\\n":"v"}',
  '{"command":"ls","n":1}', '{"path":"/tmp/x.txt","content":"line1\\nline2\\n"}',
  '{"a":1,"b":2,"a":3,"c":4,"b":5}', '[{"x":1,"x":2},{"x":3,"x":4}]',
  '{"x":[1,2,{"x":1,"y":2,"x":{"z":"zz","z":"z"}}],"x":[[]]}',
  // invalid for JSON.parse
  '{"a":1,}', '[1,]', '01', '1.', '.5', 'NaN', '"\\x"', '{"a"}', "'a'", '', ' ', '"abc', '"\\ud83d',
  '[1 2]', '{"a":1}{', 'tru', '"\\u12"', '"\\u12G4"', '\\ud83d', '{"a":1}\n{"b":2}', '-', '+1', '0x10',
  '"a\u0001b"', '"a\nb"', '1e400', '-1e400', '[1e400]',
];
// objects with many keys (HashMap path) with duplicates
for (let n of [15, 16, 17, 18, 40]) {
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(`"k${i % 13 === 5 ? 1 : i}":${i % 3 ? '"v' + i + '"' : i * 1.5}`);
  for (let i = 0; i < 5; i++) parts.push(`"k${(i * 7) % n}":[${i}]`);
  hand.push('{' + parts.join(',') + '}');
}

// ---------- random JSON texts ----------
const keyPool = ['a', 'b', 'c', 'id', '\\u0061', 'é', '😀', '', 'a\\n', 'x y', '\\"q\\"'];
const numForms = [
  () => String(ri(1000)), () => String(-ri(100000)), () => (ri(100000) / 100).toString(),
  () => (rnd() * 10).toFixed(ri(5)), () => ri(10) + 'e' + (ri(40) - 20), () => (ri(99) + 1) + 'E+' + ri(25),
  () => '-' + ri(10) + '.' + ri(1000) + 'e-' + ri(12), () => '0', () => '-0', () => '0.0',
  () => String(2 ** 53 + ri(5)), () => '1' + '0'.repeat(ri(25)), () => (rnd() * 1000).toPrecision(1 + ri(6)),
];
const strPieces = (lone) => {
  const p = ['a', 'Z', ' ', '/', '\\/', '\\"', '\\\\', '\\n', '\\t', '\\b', '\\f', '\\r', '\\u0000', '\\u001f',
    '\\u0007', '\\u007f', 'é', '日', '😀', '\u2028', '\u00a0', '\\u00e9', '\\u2028', '\\ud83d\\ude00',
    '\\uD834\\uDD1E', '𝄞', '\\u0041', '\ufeff', '\\ufffd', 'xyz', '\\\\ud83d', '\\\\u0041'];
  if (lone) p.push('\\ud83d', '\\udc00', '\\uDBFF', '\\ud800\\ud800');
  return p;
};
function genStr(lone) { let s = '"'; const n = ri(8); const p = strPieces(lone); for (let i = 0; i < n; i++) s += pick(p); return s + '"'; }
const ws = () => pick(['', '', '', ' ', '\n', '\t', '\r\n', '  ']);
function genVal(d, lone) {
  const r = ri(d > 3 ? 6 : 10);
  switch (r) {
    case 0: return pick(['null', 'true', 'false']);
    case 1: case 2: return pick(numForms)();
    case 3: case 4: case 5: return genStr(lone);
    case 6: case 7: { const n = ri(5); const a = []; for (let i = 0; i < n; i++) a.push(ws() + genVal(d + 1, lone) + ws()); return '[' + a.join(',') + ']'; }
    default: { const n = ri(6); const a = []; for (let i = 0; i < n; i++) a.push(ws() + '"' + pick(keyPool) + '"' + ws() + ':' + ws() + genVal(d + 1, lone) + ws()); return '{' + a.join(',') + '}'; }
  }
}
const random = [];
const short = (f) => { for (;;) { const t = f(); if (t.length <= 200) return t; } };
for (let i = 0; i < 70; i++) random.push(short(() => ws() + genVal(0, false) + ws()));
for (let i = 0; i < 25; i++) random.push(short(() => genVal(1, true)));

function stringifyRow(x) {
  let v;
  try { v = JSON.parse(x); } catch (e) { return `    (${rustStr(x)}, None),`; }
  const js = JSON.stringify(v);
  const wf = JSON.stringify(wellFormedDeep(v));
  const strLen = typeof v === 'string' ? `Some(${v.length})` : 'None';
  return `    (${rustStr(x)}, Some((${js === undefined ? 'usize::MAX' : js.length}, ${wf.length}, ${!v}, ${strLen}))),`;
}
const out = [];
out.push('// @generated by the Node script described in the test module docs (node ' + process.version + ').');
out.push('/// (JSON text, None if JSON.parse throws, else (JSON.stringify(v).length, same after');
out.push('/// String.prototype.toWellFormed on every string and key, !v, v.length if v is a string))');
out.push('type StringifyCase = (&\'static str, Option<(usize, usize, bool, Option<usize>)>);');
out.push('#[rustfmt::skip]');
out.push('const STRINGIFY_CASES: &[StringifyCase] = &[');
for (const x of hand.concat(random)) out.push(stringifyRow(x));
out.push('];');

// ---------- numbers ----------
const nums = hand.filter((x) => /^-?[0-9]/.test(x)).filter((x) => { try { return typeof JSON.parse(x) === 'number' && isFinite(JSON.parse(x)); } catch (e) { return false; } });
for (let i = 0; i < 60; i++) nums.push(pick(numForms)());
out.push('/// (number literal, JSON.stringify(JSON.parse(literal)))');
out.push('#[rustfmt::skip]');
out.push('const NUMBER_CASES: &[(&str, &str)] = &[');
for (const x of nums) out.push(`    (${rustStr(x)}, ${rustStr(JSON.stringify(JSON.parse(x)))}),`);
out.push('];');

// ---------- arbitrary doubles (need serde_json float_roundtrip for exact parsing) ----------
const dv = new DataView(new ArrayBuffer(8));
const dbl = [];
while (dbl.length < 70) {
  for (let j = 0; j < 4; j++) dv.setUint16(j * 2, ri(65536));
  const x = dv.getFloat64(0);
  if (!isFinite(x)) continue;
  const form = pick([(y) => JSON.stringify(y), (y) => y.toPrecision(17), (y) => y.toExponential(19)]);
  dbl.push([form(x), JSON.stringify(x)]);
}
for (let i = 0; i < 20; i++) { const x = rnd() * 10 ** (ri(30) - 15); dbl.push([JSON.stringify(x), JSON.stringify(x)]); }
out.push('/// (literal of an arbitrary double, JSON.stringify(JSON.parse(literal)))');
out.push('#[rustfmt::skip]');
out.push('const DOUBLE_CASES: &[(&str, &str)] = &[');
for (const [a, b] of dbl) out.push(`    (${rustStr(a)}, ${rustStr(b)}),`);
out.push('];');

// ---------- whitespace ----------
const wsList = [];
for (let c = 0; c <= 0x10FFFF; c++) { if (c >= 0xD800 && c <= 0xDFFF) continue; if (String.fromCodePoint(c).trim() === '') wsList.push(c); }
out.push('/// Every code point c with String.fromCodePoint(c).trim() === ""');
out.push('#[rustfmt::skip]');
out.push('const JS_WHITESPACE: &[u32] = &[' + wsList.map((c) => '0x' + c.toString(16)).join(', ') + '];');
const trimCases = ['', ' ', '\t\n\r', '\u000b\u000c', '\u0085', '\ufeff', '\u00a0\u3000', '\u180e', '\u200b', ' a ', '\u2028\u2029', '\u205f\u202f\u1680', 'x', '\u0000'];
out.push('/// (s, s.trim() === "", s.trim().length)');
out.push('#[rustfmt::skip]');
out.push('const TRIM_CASES: &[(&str, bool, usize)] = &[');
for (const s of trimCases) out.push(`    (${rustStr(s)}, ${s.trim() === ''}, ${s.trim().length}),`);
out.push('];');

// ---------- utf16 lengths of raw strings ----------
const chars = ['a', ' ', '\n', 'é', 'ß', '日', '本', '😀', '𝄞', '\u{10FFFF}', '\u{10000}', '\u07ff', '\u0800', '\uffff', '\u0080', '\u007f', '\u0000'];
out.push('/// (string, s.length)');
out.push('#[rustfmt::skip]');
out.push('const UTF16_CASES: &[(&str, usize)] = &[');
for (let i = 0; i < 25; i++) { let s = ''; const n = ri(30); for (let j = 0; j < n; j++) s += pick(chars); out.push(`    (${rustStr(s)}, ${s.length}),`); }
out.push('];');

// ---------- dates ----------
const dates = ['2026-03-01T09:15:02.004Z', '2026-03-01T09:15:02Z', '2026-03-01T09:15Z', '2026-03-01T09:15:02.0049Z',
  '2026-03-01T09:15:02.5Z', '2026-03-01T09:15:02.12Z', '2026-03-01T09:15:02.123456789Z', '2026-03-01T09:15:02.1234567891234Z',
  '2026-03-01T09:15:02.004+01:00', '2026-03-01T09:15:02.004-05:30', '2026-03-01T09:15:02.004+0100', '2026-03-01T09:15:02.004+00:00',
  '2026-03-01T09:15:02.004-00:00', '2026-03-01T09:15:02.004+23:59', '2026-03-01T09:15:02.004+24:00', '2026-03-01T09:15:02.004+01:60',
  '2026-02-30T00:00:00Z', '2026-02-29T00:00:00Z', '2024-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-12-31T23:59:59.999Z',
  '2026-03-01T24:00:00Z', '2026-03-01T24:00:00.000Z', '2026-03-01T24:00:00.0001Z', '2026-03-01T24:00:01Z',
  '2026-03-01T23:60:00Z', '2026-03-01T23:59:60Z', '2026-13-01T00:00:00Z', '2026-00-01T00:00:00Z', '2026-03-00T00:00:00Z',
  '2026-03-32T00:00:00Z', '2026-03-01', '2026-03', '2026', '2026-03-01T09:15:02.004z', '2026-03-01t09:15:02.004Z',
  '+002026-03-01T09:15:02.004Z', '-000001-03-01T09:15:02.004Z', '-000000-03-01T00:00:00Z', '1970-01-01T00:00:00.000Z',
  '1969-12-31T23:59:59.999Z', '0000-01-01T00:00:00Z', '0000-02-29T12:00:00Z', '1900-02-29T00:00:00Z', '2000-02-29T00:00:00Z',
  '1600-03-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '+275760-09-13T00:00:00.000Z', '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00.000Z', '-271821-04-19T23:59:59.999Z', '-271821-04-20T00:00:00.000+01:00',
  '2026-03-01T09:15:02.Z', ' 2026-03-01T09:15:02.004Z', '2026-03-01T09:15:02.004Z ', '2026-3-1T09:15:02.004Z',
  '2026-03-01T9:15:02.004Z', '2026-03-01T09:15:02,004Z', '2026-03-01T09Z', '20260301T091502Z', '2026-03-01T09:15:02.004+01',
  '2026-03-01T09:15:02.004Z+01:00', '', 'Z', 'garbage'];
out.push('/// (s, new Date(s).getTime() or None for NaN)');
out.push('#[rustfmt::skip]');
out.push('const DATE_PARSE_CASES: &[(&str, Option<i64>)] = &[');
for (const d of dates) { const t = new Date(d).getTime(); out.push(`    (${rustStr(d)}, ${isNaN(t) ? 'None' : 'Some(' + t + ')'}),`); }
out.push('];');
const msList = [0, -1, 1, 999, 1000, 1772356502004, -62167219200000, -62167219200001, 253402300799999, 253402300800000,
  8.64e15, -8.64e15, 951782400000, 4107542400000, -2208988800000, -12219292800000];
for (let i = 0; i < 20; i++) msList.push(Math.floor((rnd() - 0.5) * 2 * 8.64e15));
for (let i = 0; i < 10; i++) msList.push(Math.floor((rnd() - 0.3) * 4e12));
out.push('/// (ms, new Date(ms).toISOString())');
out.push('#[rustfmt::skip]');
out.push('const DATE_FORMAT_CASES: &[(i64, &str)] = &[');
for (const ms of msList) out.push(`    (${ms}, ${rustStr(new Date(ms).toISOString())}),`);
out.push('];');
console.log(out.join('\n'));
*/
