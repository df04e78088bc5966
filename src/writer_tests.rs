//! The writer's serialisation: the exact bytes a [`Batch`] appends — pi's key order, compact
//! JSON, chaining from pi's leaf, fresh ids, timestamps, verbatim raw replacements, and the
//! newline that completes an unterminated last line. (Committing to disk is covered by the
//! e2e fault-injection tests.)

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Value, json};

use super::*;
use crate::session::Session;
use crate::tree::Tree;

const HEADER: &str = r#"{"type":"session","version":3,"id":"s","cwd":"/p"}"#;
const USER: &str = r#"{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-03-01T09:15:00.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#;

fn batch_on(text: &str) -> (Session, Batch) {
    let s = Session::from_bytes(text.as_bytes(), Path::new("t.jsonl")).unwrap();
    let t = Tree::build(&s);
    let b = Batch::new(&s, &t).unwrap();
    (s, b)
}

/// The keys of a JSON object line, in the order they were written.
fn keys(line: &str) -> Vec<String> {
    let v: serde_json::Map<String, Value> = serde_json::from_str(line).unwrap();
    v.keys().cloned().collect()
}

fn is_iso_millis(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 24
        && s.ends_with('Z')
        && [4, 7].iter().all(|&i| b[i] == b'-')
        && b[10] == b'T'
        && [13, 16].iter().all(|&i| b[i] == b':')
        && b[19] == b'.'
        && crate::jscompat::iso_millis_to_epoch_ms(s).is_some()
}

#[test]
fn entries_chain_from_pis_leaf_with_pis_key_order() {
    let (_, mut b) = batch_on(&format!("{HEADER}\n{USER}\n"));
    let log = b.custom("shake", json!({"op":"shake","n":1}));
    let edit = b.context_edit(
        "aaaa0001",
        json!({"content":[{"type":"text","text":"[x]"}]}),
    );
    assert_eq!(b.len(), 2);
    assert_eq!(b.ids(), [log.clone(), edit.clone()]);
    let lines: Vec<&str> = b.lines().collect();
    assert_eq!(
        keys(lines[0]),
        ["type", "customType", "data", "id", "parentId", "timestamp"]
    );
    assert_eq!(
        keys(lines[1]),
        [
            "type",
            "id",
            "parentId",
            "timestamp",
            "targetId",
            "replacement"
        ]
    );
    let first: Value = serde_json::from_str(lines[0]).unwrap();
    let second: Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(
        first["parentId"], "aaaa0001",
        "the first new entry hangs on pi's leaf"
    );
    assert_eq!(
        second["parentId"],
        Value::String(log),
        "each next one on the previous"
    );
    assert_eq!(second["replacement"]["content"][0]["text"], "[x]");
    for v in [&first, &second] {
        let ts = v["timestamp"].as_str().unwrap();
        assert!(is_iso_millis(ts), "{ts}");
        assert_eq!(
            crate::jscompat::iso_millis_to_epoch_ms(ts),
            Some(b.now_ms())
        );
    }
}

#[test]
fn the_bytes_are_the_lines_each_ending_in_a_newline_in_compact_json() {
    let (_, mut b) = batch_on(&format!("{HEADER}\n{USER}\n"));
    b.custom("shake", json!({"a": [1, 2.5, "é\u{2028}\u{1}"]}));
    b.context_edit("aaaa0001", Value::Null);
    let bytes = std::str::from_utf8(b.bytes()).unwrap();
    let joined: String = b.lines().map(|l| format!("{l}\n")).collect();
    assert_eq!(bytes, joined);
    let first = b.lines().next().unwrap();
    // No whitespace between tokens; non-ASCII raw; control characters escaped (as JSON.stringify).
    assert!(first.contains(r#""data":{"a":[1,2.5,"é"#), "{first}");
    assert!(
        first.contains('\u{2028}') && first.contains(r"\u0001"),
        "{first}"
    );
    assert!(
        b.lines()
            .nth(1)
            .unwrap()
            .ends_with(r#""replacement":null}"#)
    );
}

#[test]
fn ids_are_fresh_8_hex_and_unique_against_the_file() {
    let (s, mut b) = batch_on(&format!("{HEADER}\n{USER}\n"));
    let mut seen: HashSet<String> = s.entries.iter().map(|e| e.id_str().to_string()).collect();
    for _ in 0..200 {
        let id = b.context_edit("aaaa0001", Value::Null);
        assert_eq!(id.len(), 8);
        assert!(
            id.bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert!(seen.insert(id), "an id was reused");
    }
    let reserved = b.reserve_id();
    assert!(!seen.contains(&reserved));
    let used = b.context_edit_as(reserved.clone(), "aaaa0001", Value::Null);
    assert_eq!(used, reserved);
}

#[test]
fn a_raw_replacement_is_copied_byte_for_byte() {
    let (_, mut b) = batch_on(&format!("{HEADER}\n{USER}\n"));
    // A lone surrogate escape and a key order serde would not keep: copied, not re-encoded.
    let raw = r#"{"content":[{"text":"x\ud83d","type":"text"}]}"#;
    let id = b.reserve_id();
    b.context_edit_raw(id, "aaaa0001", raw);
    let line = b.lines().next().unwrap();
    assert!(
        line.ends_with(&format!(r#""targetId":"aaaa0001","replacement":{raw}}}"#)),
        "{line}"
    );
    let (v, _) = crate::jscompat::parse_lenient(line).unwrap();
    assert_eq!(v["type"], "context_edit");
}

#[test]
fn an_unterminated_last_line_is_completed_first() {
    let (_, mut b) = batch_on(&format!("{HEADER}\n{USER}"));
    b.custom("shake", json!({}));
    assert_eq!(b.bytes()[0], b'\n');
    assert_eq!(b.lines().count(), 1);
    assert!(b.lines().next().unwrap().starts_with(r#"{"type":"custom""#));
}

#[test]
fn an_entry_can_name_itself_and_an_empty_batch_writes_nothing() {
    let (_, mut b) = batch_on(&format!("{HEADER}\n{USER}\n"));
    assert!(b.is_empty());
    assert!(b.bytes().is_empty());
    let id = b.entry("compaction", |id| {
        let mut m = serde_json::Map::new();
        m.insert("summary".into(), json!("s"));
        m.insert("firstKeptEntryId".into(), json!(id));
        m
    });
    let v: Value = serde_json::from_str(b.lines().next().unwrap()).unwrap();
    assert_eq!(v["firstKeptEntryId"], Value::String(id));
    assert_eq!(
        keys(b.lines().next().unwrap()),
        [
            "type",
            "id",
            "parentId",
            "timestamp",
            "summary",
            "firstKeptEntryId"
        ]
    );
}

#[test]
fn a_leaf_without_a_string_id_cannot_be_parented_on() {
    let s = Session::from_bytes(
        format!("{HEADER}\n{USER}\n[1]\n").as_bytes(),
        Path::new("t.jsonl"),
    )
    .unwrap();
    let t = Tree::build(&s);
    let err = Batch::new(&s, &t).err().unwrap();
    assert!(format!("{err:#}").contains("t.jsonl:3"), "{err:#}");
}
