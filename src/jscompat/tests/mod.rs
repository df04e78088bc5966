//! Besides hand-written checks, the tables in `tables.rs` were produced by real
//! Node (`JSON.stringify(JSON.parse(x)).length`, `new Date(s).getTime()`, ...)
//! with `scripts/jscompat-gen.mjs`, so the tests need no Node at run time.

mod tables;

use super::number::js_f64_len;
use super::*;
use serde::Deserialize;
use serde_json::{Number, Value};
use tables::*;

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
        repair_lone_surrogates(r#"["\\\ud83d", "\ud83d\ud83d\ude00", "\ude00\ud83d"]"#).as_deref(),
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

#[test]
fn js_number_prints_like_json_stringify() {
    let s = |x: f64| serde_json::to_string(&js_number(x)).unwrap();
    assert_eq!(s(12.0), "12");
    assert_eq!(s(-0.0), "0");
    assert_eq!(s(2.5), "2.5");
    assert_eq!(s(9_007_199_254_740_991.0), "9007199254740991");
    assert_eq!(s(f64::NAN), "null");
    assert_eq!(s(f64::INFINITY), "null");
    #[derive(serde::Serialize)]
    struct Field {
        #[serde(serialize_with = "serialize_js_number")]
        n: f64,
    }
    assert_eq!(
        serde_json::to_string(&Field { n: 40.0 }).unwrap(),
        r#"{"n":40}"#
    );
    assert_eq!(
        serde_json::to_string(&Field { n: 0.25 }).unwrap(),
        r#"{"n":0.25}"#
    );
}

#[test]
fn token_estimate_is_ceil_of_utf16_chars_over_four() {
    assert_eq!(tokens_from_chars(0), 0);
    assert_eq!(tokens_from_chars(1), 1);
    assert_eq!(tokens_from_chars(4), 1);
    assert_eq!(tokens_from_chars(5), 2);
    assert_eq!(text_tokens(""), 0);
    assert_eq!(text_tokens("abcd"), 1);
    // "😀" is two UTF-16 units, "é" one: 2 + 1 + 2 = 5 units → 2 tokens.
    assert_eq!(text_tokens("😀é😀"), 2);
}
