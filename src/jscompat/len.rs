//! Lengths as JavaScript counts them: `s.length` (UTF-16 code units) and
//! `JSON.stringify(v).length`, for a [`Value`] or while deserializing (no `Value` built).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

use super::number::{js_f64_len, js_number_len};

/// Objects with at most this many distinct keys detect duplicates by linear scan.
pub const SMALL_OBJECT_KEYS: usize = 16;

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
