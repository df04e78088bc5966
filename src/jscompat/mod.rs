//! JavaScript parity helpers: UTF-16 lengths, `JSON.stringify` lengths with JS
//! number formatting, lenient parsing of lone surrogates.
//!
//! pi is a Node.js program. Its token estimate is `Math.ceil(chars / 4)` where `chars` is a
//! JavaScript `String.length` (UTF-16 code units), and for tool-call arguments it is
//! `JSON.stringify(arguments).length` (`docs/pi-format.md#token-estimates`,
//! `docs/pi-format.md#javascript-parity`). Session lines are read with `JSON.parse`, which accepts
//! escapes a strict Rust parser rejects. This module reproduces exactly those behaviours:
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

mod date;
mod estimate;
mod len;
mod lenient;
mod number;
mod text;

pub use date::{epoch_ms_to_iso, iso_millis_to_epoch_ms};
pub use estimate::{estimate_request_tokens, text_tokens, tokens_from_chars};
pub use len::{SMALL_OBJECT_KEYS, StringifyLen, Utf16Len, json_str_len, stringify_len, utf16_len};
pub use lenient::{
    count_lone_surrogate_escapes_in_strings, from_str_lenient, parse_lenient,
    repair_lone_surrogates,
};
pub use number::{js_number, js_number_len, js_number_string, serialize_js_number};
pub use text::{is_js_whitespace, js_is_falsy, js_trim, js_trim_is_empty};

#[cfg(test)]
mod tests;
