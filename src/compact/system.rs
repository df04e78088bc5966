//! The system message a compaction entry carries: pi-ai's `getCurrentSystemMessage` replayed
//! over the region's materialized system messages (content joined, sections and tools added,
//! replaced and removed in order), as pi writes it into the entry it appends. Pure.

use serde_json::{Map, Value, json};

use crate::session::Role;

/// pi-ai's `getCurrentSystemMessage` over materialized messages (system ones only are read).
pub fn replay_system_message(msgs: &[Value]) -> Option<Value> {
    let mut content: Vec<String> = Vec::new();
    let mut sections: Vec<(String, Value)> = Vec::new();
    let mut tools: Vec<(String, Value)> = Vec::new();
    let mut timestamp: Option<Value> = None;
    for m in msgs.iter().filter(|m| {
        m.get("role").and_then(Value::as_str).map(Role::parse_str) == Some(Role::System)
    }) {
        if timestamp.is_none() {
            timestamp = m.get("timestamp").filter(|t| !t.is_null()).cloned();
        }
        let text = match m.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .map(|b| {
                    b.get("text")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                })
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        if !text.is_empty() {
            content.push(text);
        }
        if let Some(Value::Object(secs)) = m.get("sections") {
            for (k, v) in secs {
                if v.is_null() {
                    sections.retain(|(n, _)| n != k);
                } else if let Some(slot) = sections.iter_mut().find(|(n, _)| n == k) {
                    slot.1 = v.clone();
                } else {
                    sections.push((k.clone(), v.clone()));
                }
            }
        }
        if let Some(Value::Array(removed)) = m.get("toolsRemoved") {
            for t in removed {
                let name = t.get("name").and_then(Value::as_str).unwrap_or("");
                tools.retain(|(n, _)| n != name);
            }
        }
        if let Some(Value::Array(added)) = m.get("toolsAdded") {
            for t in added {
                let name = t
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if let Some(slot) = tools.iter_mut().find(|(n, _)| *n == name) {
                    slot.1 = t.clone();
                } else {
                    tools.push((name, t.clone()));
                }
            }
        }
    }
    if timestamp.is_none() && tools.is_empty() {
        return None;
    }
    let mut out = Map::new();
    out.insert("role".into(), json!(Role::System.as_str()));
    out.insert("content".into(), Value::String(content.join("\n\n")));
    if !sections.is_empty() {
        out.insert(
            "sections".into(),
            Value::Object(sections.into_iter().collect()),
        );
    }
    if !tools.is_empty() {
        out.insert(
            "toolsAdded".into(),
            Value::Array(tools.into_iter().map(|(_, t)| t).collect()),
        );
    }
    out.insert("timestamp".into(), timestamp.unwrap_or(json!(0)));
    Some(Value::Object(out))
}
