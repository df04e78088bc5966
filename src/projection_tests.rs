//! The projection on small hand-built sessions: messages in model order, pi's per-message
//! estimates, overlays, compactions and the context total. (The e2e suite compares every
//! fixture with pi's own projection.)

use std::path::Path;

use serde_json::{Value, json};

use super::*;
use crate::session::Session;
use crate::tree::Tree;

const TS: &str = "2026-03-01T09:15:00.000Z";

fn entry(ty: &str, id: &str, parent: Option<&str>, fields: Value) -> Value {
    let mut e = json!({"type": ty, "id": id, "parentId": parent, "timestamp": TS});
    for (k, v) in fields.as_object().unwrap() {
        e[k] = v.clone();
    }
    e
}

fn msg(id: &str, parent: Option<&str>, message: Value) -> Value {
    entry("message", id, parent, json!({ "message": message }))
}

fn user(id: &str, parent: Option<&str>, text: &str) -> Value {
    msg(
        id,
        parent,
        json!({"role":"user","content":text,"timestamp":1}),
    )
}

fn usage(total: u64) -> Value {
    json!({"input":total,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":total,
        "cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}})
}

fn assistant(id: &str, parent: Option<&str>, content: Value, total: Option<u64>) -> Value {
    let mut m = json!({"role":"assistant","content":content,"api":"x","provider":"p","model":"m",
        "stopReason":"stop","timestamp":2});
    if let Some(t) = total {
        m["usage"] = usage(t);
    }
    msg(id, parent, m)
}

fn build(entries: &[Value]) -> (Session, Projection) {
    let mut text = String::from(r#"{"type":"session","version":3,"id":"s","cwd":"/p"}"#);
    text.push('\n');
    for e in entries {
        text.push_str(&e.to_string());
        text.push('\n');
    }
    let s = Session::from_bytes(text.as_bytes(), Path::new("t.jsonl")).unwrap();
    let t = Tree::build(&s);
    let p = Projection::build(&s, &t);
    (s, p)
}

/// (source id, role, tokens) of every projected message.
fn view(s: &Session, p: &Projection) -> Vec<(String, String, Option<u64>)> {
    p.messages()
        .map(|(i, m)| {
            (
                s.entries[i].id_str().to_string(),
                m.role.to_string(),
                m.tokens,
            )
        })
        .collect()
}

fn row(id: &str, role: &str, tokens: u64) -> (String, String, Option<u64>) {
    (id.to_string(), role.to_string(), Some(tokens))
}

#[test]
fn messages_in_model_order_with_pis_estimates() {
    let (s, p) = build(&[
        msg(
            "sys",
            None,
            json!({"role":"system","content":"be brief","timestamp":0}),
        ),
        user("u", Some("sys"), "abcd"),
        assistant(
            "a",
            Some("u"),
            json!([{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls","n":1}}]),
            None,
        ),
        msg(
            "r",
            Some("a"),
            json!({"role":"toolResult","toolCallId":"c1","toolName":"bash",
            "content":[{"type":"text","text":"😀😀😀"}],"isError":false,"timestamp":3}),
        ),
        entry(
            "model_change",
            "mc",
            Some("r"),
            json!({"provider":"p","modelId":"m"}),
        ),
    ]);
    assert_eq!(
        view(&s, &p),
        [
            row("sys", "system", 2),   // "be brief": 8 chars
            row("u", "user", 1),       // "abcd"
            row("a", "assistant", 7),  // "bash" + `{"command":"ls","n":1}` = 4 + 22
            row("r", "toolResult", 2), // three emoji = 6 UTF-16 units
        ]
    );
    // Metadata entries are context entries with no messages.
    assert_eq!(p.entries.len(), 5);
    assert!(p.entries[4].messages.is_empty());
    assert_eq!(p.estimate_sum(), 12);
    assert!(p.compaction.is_none());
    // No usage anywhere: the total is the pure estimate.
    assert_eq!(p.context.tokens, 12.0);
    assert_eq!(p.context.last_usage_index, None);
}

#[test]
fn the_last_edit_per_target_on_the_path_wins() {
    let (s, p) = build(&[
        user("u1", None, "a long question about the code base"),
        user("u2", Some("u1"), "abcdefgh"),
        // On a branch that the leaf does not follow: never applies.
        entry(
            "context_edit",
            "e0",
            Some("u2"),
            json!({"targetId":"u2","replacement":null}),
        ),
        entry(
            "context_edit",
            "e1",
            Some("u2"),
            json!({"targetId":"u1","replacement":{"content":"abcd"}}),
        ),
        entry(
            "context_edit",
            "e2",
            Some("e1"),
            json!({"targetId":"u1","replacement":{"content":"abcdefghijkl"}}),
        ),
    ]);
    assert_eq!(view(&s, &p), [row("u1", "user", 3), row("u2", "user", 2)]);
    let first = &p.entries[p.position(0).unwrap()];
    assert_eq!(first.edit, Some(4), "e2, the later edit, wins");
    assert!(first.messages[0].replaced);
    assert_eq!(p.edits.len(), 1);
}

#[test]
fn a_null_replacement_hides_any_entry() {
    let (s, p) = build(&[
        user("u", None, "keep"),
        assistant("a", Some("u"), json!([{"type":"text","text":"gone"}]), None),
        entry(
            "context_edit",
            "e",
            Some("a"),
            json!({"targetId":"a","replacement":null}),
        ),
    ]);
    assert_eq!(view(&s, &p), [row("u", "user", 1)]);
}

#[test]
fn a_compaction_keeps_its_range_and_drops_older_system_messages() {
    let (s, p) = build(&[
        msg(
            "sys",
            None,
            json!({"role":"system","content":"prompt","timestamp":0}),
        ),
        user("old", Some("sys"), "dropped by the compaction"),
        user("kept", Some("old"), "abcd"),
        msg(
            "sys2",
            Some("kept"),
            json!({"role":"system","content":"more","timestamp":0}),
        ),
        entry(
            "compaction",
            "c",
            Some("sys2"),
            json!({"summary":"twelve chars","firstKeptEntryId":"kept",
            "tokensBefore":100}),
        ),
        user("new", Some("c"), "abcdefgh"),
    ]);
    assert_eq!(p.compaction, Some(4));
    assert_eq!(
        view(&s, &p),
        [
            row("c", "compactionSummary", 3),
            row("kept", "user", 1),
            row("new", "user", 2),
        ]
    );
}

#[test]
fn a_compaction_naming_itself_keeps_nothing_before_it() {
    let (s, p) = build(&[
        user("old", None, "abcd"),
        entry(
            "compaction",
            "c",
            Some("old"),
            json!({"summary":"abcd","firstKeptEntryId":"c",
            "tokensBefore":1}),
        ),
        user("new", Some("c"), "abcd"),
    ]);
    assert_eq!(
        view(&s, &p),
        [row("c", "compactionSummary", 1), row("new", "user", 1)]
    );
}

#[test]
fn the_context_total_uses_the_last_usage_until_an_edit_is_newer() {
    let base = vec![
        user("u", None, "abcd"),
        assistant(
            "a",
            Some("u"),
            json!([{"type":"text","text":"abcd"}]),
            Some(1000),
        ),
        user("u2", Some("a"), "abcdefgh"),
    ];
    let (_, p) = build(&base);
    // Usage 1000 plus the 2 estimated tokens after it.
    assert_eq!(p.context.tokens, 1002.0);
    assert_eq!(p.context.usage_tokens, 1000.0);
    assert_eq!(p.context.last_usage_index, Some(1));

    let mut edited = base.clone();
    edited.push(entry(
        "context_edit",
        "e",
        Some("u2"),
        json!({"targetId":"u","replacement":{"content":"abcdefghijklmnop"}}),
    ));
    let (_, p) = build(&edited);
    // An edit newer than the usage: pi falls back to the pure estimate (4 + 1 + 2).
    assert_eq!(p.context.tokens, 7.0);
    assert_eq!(p.context.last_usage_index, None);
}

#[test]
fn a_null_message_anywhere_on_the_branch_is_an_error_but_not_off_it() {
    // pi reads `message.role` of every message entry on the branch, even one a compaction hid.
    let (_, p) = build(&[
        user("a", None, "first"),
        entry("message", "gone", Some("a"), json!({"message": null})),
        user("kept", Some("gone"), "abcd"),
        entry(
            "compaction",
            "c",
            Some("kept"),
            json!({"summary":"twelve chars","firstKeptEntryId":"kept","tokensBefore":100}),
        ),
        user("new", Some("c"), "abcdefgh"),
    ]);
    let codes: Vec<(&str, Option<u32>, Severity)> = p
        .problems
        .iter()
        .map(|p| (p.code, p.line, p.severity))
        .collect();
    assert_eq!(codes, [("message-missing", Some(3), Severity::Error)]);
    // On another branch (pi only trips on it when it forks that branch): no problem.
    let (_, p) = build(&[
        user("a", None, "first"),
        entry("message", "side", Some("a"), json!({})),
        user("b", Some("a"), "abcd"),
    ]);
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    // In the projected part, one problem for the line, the precise one.
    let (_, p) = build(&[
        user("a", None, "first"),
        entry("message", "b", Some("a"), json!({})),
        user("c", Some("b"), "abcd"),
    ]);
    let codes: Vec<&str> = p.problems.iter().map(|p| p.code).collect();
    assert_eq!(codes, ["message-missing"]);
}

#[test]
fn a_custom_message_without_content_throws_in_pis_estimator_unlike_a_users() {
    // pi gives user, assistant and toolResult messages `[]` for a null or missing content, but
    // not custom ones: its estimator then iterates `undefined` and throws.
    for content in [None, Some(Value::Null)] {
        let mut m = json!({"role": "custom", "customType": "note", "timestamp": 1});
        let mut u = json!({"role": "user", "timestamp": 1});
        if let Some(c) = &content {
            m["content"] = c.clone();
            u["content"] = c.clone();
        }
        let (_, p) = build(&[user("a", None, "first"), msg("b", Some("a"), m)]);
        let codes: Vec<&str> = p.problems.iter().map(|p| p.code).collect();
        assert_eq!(codes, ["estimate-throws"], "{content:?}");
        let (s, p) = build(&[user("a", None, "first"), msg("b", Some("a"), u)]);
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(view(&s, &p)[1], row("b", "user", 0));
    }
    let (_, p) = build(&[
        user("a", None, "first"),
        msg(
            "b",
            Some("a"),
            json!({"role": "custom", "customType": "note", "content": "hi", "timestamp": 1}),
        ),
    ]);
    assert!(p.problems.is_empty(), "{:?}", p.problems);
}

#[test]
fn a_summary_role_message_is_estimated_by_its_summary_and_throws_without_one() {
    let m = |summary: Option<Value>| {
        let mut m = json!({"role": "branchSummary", "timestamp": 1});
        if let Some(s) = summary {
            m["summary"] = s;
        }
        m
    };
    let (s, p) = build(&[
        user("a", None, "first"),
        msg("b", Some("a"), m(Some(json!("x".repeat(400))))),
    ]);
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    assert_eq!(view(&s, &p)[1], row("b", "branchSummary", 100));
    for summary in [None, Some(Value::Null)] {
        let (_, p) = build(&[user("a", None, "first"), msg("b", Some("a"), m(summary))]);
        let codes: Vec<&str> = p.problems.iter().map(|p| p.code).collect();
        assert_eq!(codes, ["estimate-throws"]);
    }
    // Another role's `summary`, of any shape, is not read.
    let (s, p) = build(&[
        user("a", None, "first"),
        msg(
            "b",
            Some("a"),
            json!({"role": "user", "content": "abcd", "summary": {"a": [1, 2]}, "timestamp": 1}),
        ),
    ]);
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    assert_eq!(view(&s, &p)[1], row("b", "user", 1));
}
