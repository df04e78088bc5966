//! Numbers as `JSON.stringify(JSON.parse(text))` prints them (IEEE doubles,
//! shortest round trip, JS exponent rules).

use serde_json::{Number, Value};

/// 2^53 - 1: integers up to this magnitude are exact in an IEEE double.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

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

pub(super) fn js_f64_len(f: f64) -> usize {
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

/// An `f64` as a JSON value, close to what `JSON.stringify` prints: integral values in the
/// safe-integer range without a fraction (`12` rather than `12.0`), non-finite values as `null`.
pub fn js_number(x: f64) -> Value {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
        Value::from(x as i64)
    } else {
        Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

/// [`js_number`] as a serde `serialize_with` helper for `f64` fields.
pub fn serialize_js_number<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&js_number(*x), s)
}
