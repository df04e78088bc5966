//! Pair helpers shared by the compaction planner (pins) and the offline scorer: the same-key
//! rule (`docs/design-compact.md#pins`) and normalised arguments. Pure.

use serde_json::Value;

/// The same-key rule: tool + `path` for read/edit/write, tool + exact `command` for bash,
/// tool + normalised arguments otherwise.
pub fn same_key(tool: &str, args: &Value) -> String {
    match tool {
        "read" | "edit" | "write" => {
            format!(
                "{tool}\u{0}{}",
                args.get("path").and_then(Value::as_str).unwrap_or("")
            )
        }
        "bash" => format!(
            "{tool}\u{0}{}",
            args.get("command").and_then(Value::as_str).unwrap_or("")
        ),
        _ => format!("{tool}\u{0}{}", normalised_args(args)),
    }
}

/// Arguments with keys sorted and string values trimmed, serialised compactly (written
/// straight out: no normalised copy of the arguments is built).
pub fn normalised_args(args: &Value) -> String {
    fn norm(v: &Value, out: &mut String) {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                joined(out, ['{', '}'], keys, |k, out| {
                    quoted(k, out);
                    out.push(':');
                    norm(&m[k], out);
                });
            }
            Value::Array(a) => joined(out, ['[', ']'], a, norm),
            Value::String(s) => quoted(s.trim(), out),
            other => out.push_str(&other.to_string()),
        }
    }
    /// `items` written by `each` between `ends`, separated by commas.
    fn joined<T>(
        out: &mut String,
        ends: [char; 2],
        items: impl IntoIterator<Item = T>,
        mut each: impl FnMut(T, &mut String),
    ) {
        out.push(ends[0]);
        for (i, x) in items.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            each(x, out);
        }
        out.push(ends[1]);
    }
    /// A JSON string as serde_json writes it.
    fn quoted(s: &str, out: &mut String) {
        // Serialising a `&str` into a `String` cannot fail.
        if let Ok(q) = serde_json::to_string(s) {
            out.push_str(&q);
        }
    }
    let mut out = String::new();
    norm(args, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What `normalised_args` wrote before it was written straight out: a sorted, trimmed
    /// copy of the arguments, serialised by serde_json.
    fn by_copy(v: &Value) -> String {
        fn norm(v: &Value) -> Value {
            match v {
                Value::Object(m) => {
                    let mut keys: Vec<&String> = m.keys().collect();
                    keys.sort();
                    let mut out = serde_json::Map::new();
                    for k in keys {
                        out.insert(k.clone(), norm(&m[k]));
                    }
                    Value::Object(out)
                }
                Value::Array(a) => Value::Array(a.iter().map(norm).collect()),
                Value::String(s) => Value::String(s.trim().to_string()),
                other => other.clone(),
            }
        }
        norm(v).to_string()
    }

    #[test]
    fn normalised_args_sort_keys_trim_strings_and_match_serde_json() {
        let args = json!({
            "z": "  spaced \"quoted\"\n\t and \u{1} control  ",
            "a": [1, -2.5, 1e300, 18446744073709551615u64, true, null, {"y": " é ü ", "b": []}],
            "m": {"k2": {}, "k1": "x/y\\z", "ключ": "🙂"},
            "": "",
        });
        assert_eq!(normalised_args(&args), by_copy(&args));
        assert!(normalised_args(&args).starts_with(r#"{"":"","a":[1,-2.5,"#));
        for v in [json!(null), json!("  s  "), json!([]), json!({}), json!(3)] {
            assert_eq!(normalised_args(&v), by_copy(&v));
        }
        // Key order and surrounding blanks do not change the key.
        assert_eq!(
            same_key("grep", &json!({"pattern": " foo ", "path": "src"})),
            same_key("grep", &json!({"path": "src", "pattern": "foo"}))
        );
    }
}
