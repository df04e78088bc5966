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

/// Arguments with keys sorted and string values trimmed, serialised compactly.
pub fn normalised_args(args: &Value) -> String {
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
    norm(args).to_string()
}
