//! The fold planner on small hand-built sessions: what is folded, into what, and what is left
//! alone (the tail, small results, foreign overlays, scopes already folded). The e2e suite
//! round-trips real sessions through pi.

use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};

use super::*;
use crate::session::Session;
use crate::tree::Tree;
use crate::wall::{Scope, Wall};

const TS: &str = "2026-03-01T09:15:00.000Z";

struct Fixture {
    lines: Vec<String>,
    s: Session,
    t: Tree,
    p: Projection,
    w: Wall,
}

impl Fixture {
    fn new(entries: &[Value]) -> Fixture {
        let mut lines = vec![r#"{"type":"session","version":3,"id":"s","cwd":"/p"}"#.to_string()];
        lines.extend(entries.iter().map(Value::to_string));
        let text = lines.join("\n") + "\n";
        let s = Session::from_bytes(text.as_bytes(), Path::new("t.jsonl")).unwrap();
        let t = Tree::build(&s);
        let p = Projection::build(&s, &t);
        let w = Wall::build(&s, &t, &p);
        Fixture { lines, s, t, p, w }
    }

    fn plan(&self, scopes: &[Scope], tail: u64, block_min: u64) -> FoldPlan {
        let params = FoldParams {
            scopes: scopes.to_vec(),
            tail,
            block_min,
        };
        // The planner's `fetch`: the entry's line, parsed (the session was read from bytes).
        let mut fetch = |i: usize| -> Result<Value> {
            let line = &self.lines[self.s.entries[i].line as usize - 1];
            Ok(serde_json::from_str(line)?)
        };
        super::plan(&self.s, &self.t, &self.p, &self.w, &params, &mut fetch).unwrap()
    }
}

fn msg(id: &str, parent: Option<&str>, message: Value) -> Value {
    json!({"type":"message","id":id,"parentId":parent,"timestamp":TS,"message":message})
}

fn user(id: &str, parent: Option<&str>, text: &str) -> Value {
    msg(
        id,
        parent,
        json!({"role":"user","content":text,"timestamp":1}),
    )
}

fn call(id: &str, parent: &str, call_id: &str, content: Value) -> Value {
    let mut blocks = content.as_array().cloned().unwrap_or_default();
    blocks.push(json!({"type":"toolCall","id":call_id,"name":"bash","arguments":{"command":"ls"}}));
    msg(
        id,
        Some(parent),
        json!({"role":"assistant","content":blocks,"api":"x","provider":"p",
        "model":"m","stopReason":"toolUse","timestamp":2}),
    )
}

fn result(id: &str, parent: &str, call_id: &str, text: &str) -> Value {
    msg(
        id,
        Some(parent),
        json!({"role":"toolResult","toolCallId":call_id,"toolName":"bash",
        "content":[{"type":"text","text":text}],"isError":false,"timestamp":3}),
    )
}

/// user → assistant (call) → 8,000-char result → user (400 chars, ~100 tokens).
fn session_with_big_result() -> Fixture {
    Fixture::new(&[
        user("u1", None, "list the files"),
        call("a1", "u1", "c1", json!([])),
        result("r1", "a1", "c1", &"x".repeat(8_000)),
        user("u2", Some("r1"), &"y".repeat(400)),
    ])
}

#[test]
fn a_big_tool_result_outside_the_tail_becomes_a_placeholder() {
    let f = session_with_big_result();
    let plan = f.plan(&[Scope::Elide], 100, 400);
    assert_eq!(plan.folds.len(), 1);
    let fold = &plan.folds[0];
    assert_eq!(fold.target_id, "r1");
    assert_eq!(fold.tool.as_deref(), Some("bash"));
    assert_eq!(
        fold.content,
        json!([{"type":"text","text":"[bash output omitted (~2,000 tokens)]"}])
    );
    assert_eq!(fold.tokens_before, 2_000);
    // The placeholder's own estimate: 38 chars → 10 tokens.
    assert_eq!(fold.tokens_after, 10);
    assert_eq!(fold.folds[0].kind, "toolResult");
    assert_eq!(plan.reclaimed(), 1_990);
    assert_eq!(plan.count(Scope::Elide, "toolResult"), (1, 1_990));
    // The next request re-encodes from the folded entry on: the placeholder and the last prompt.
    assert_eq!(plan.cache_cost, 10 + 100);
    assert_eq!(plan.tail_tokens, 100);
}

#[test]
fn the_tail_protects_the_newest_messages_and_a_straddler_is_inside() {
    let f = session_with_big_result();
    // A 101-token tail reaches into the 2,000-token result: it straddles, so it is protected.
    let plan = f.plan(&[Scope::Elide], 101, 400);
    assert!(plan.folds.is_empty(), "{:?}", plan.folds);
    let (inside, counted) = tail_entries(&f.p, 101);
    assert_eq!(inside, vec![false, false, true, true]);
    assert_eq!(counted, 2_100);
}

#[test]
fn a_result_is_folded_only_if_the_placeholder_is_smaller() {
    let f = Fixture::new(&[
        user("u1", None, "go"),
        call("a1", "u1", "c1", json!([])),
        result("r1", "a1", "c1", "tiny output"),
        user("u2", Some("r1"), "next"),
    ]);
    assert!(f.plan(&[Scope::Elide], 0, 400).folds.is_empty());
}

#[test]
fn thinking_blocks_go_and_the_answer_stays() {
    let f = Fixture::new(&[
        user("u1", None, "why?"),
        call(
            "a1",
            "u1",
            "c1",
            json!([{"type":"thinking","thinking":"t".repeat(4_000)},{"type":"text","text":"because"}]),
        ),
        result("r1", "a1", "c1", "ok"),
    ]);
    let plan = f.plan(&[Scope::Thinking], 4_000, 400);
    assert_eq!(plan.folds.len(), 1, "no tail for thinking");
    let content = &plan.folds[0].content;
    let kinds: Vec<&str> = content
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["text", "toolCall"],
        "the call stays with its result"
    );
    assert_eq!(plan.count(Scope::Thinking, "thinking").0, 1);
}

#[test]
fn a_fenced_block_over_the_minimum_is_folded_in_place() {
    let text = format!("before\n```\n{}\n```\nafter", "z".repeat(2_000));
    let f = Fixture::new(&[user("u1", None, &text), user("u2", Some("u1"), "next")]);
    let plan = f.plan(&[Scope::Elide], 1, 400);
    assert_eq!(plan.folds.len(), 1);
    assert_eq!(
        plan.folds[0].content,
        // The region is the fence lines and the body: 3 + 1 + 2,000 + 1 + 3 = 2,008 chars.
        json!("before\n[code block omitted (~502 tokens)]\nafter")
    );
    // Under the block minimum it stays.
    assert!(f.plan(&[Scope::Elide], 1, 600).folds.is_empty());
}

#[test]
fn an_overlay_written_by_someone_else_is_left_alone() {
    let mut entries = vec![
        user("u1", None, "list the files"),
        call("a1", "u1", "c1", json!([])),
        result("r1", "a1", "c1", &"x".repeat(8_000)),
        user("u2", Some("r1"), &"y".repeat(400)),
    ];
    entries.push(
        json!({"type":"context_edit","id":"e1","parentId":"u2","timestamp":TS,
        "targetId":"r1","replacement":{"content":[{"type":"text","text":"x".repeat(7_000)}]}}),
    );
    let f = Fixture::new(&entries);
    let plan = f.plan(&[Scope::Elide], 100, 400);
    assert!(plan.folds.is_empty());
    assert_eq!(plan.skipped_foreign, 1);
}

#[test]
fn placeholders_are_recognised() {
    assert!(is_placeholder("[bash output omitted (~2,000 tokens)]"));
    assert!(is_placeholder("[image omitted (~1,200 tokens)]"));
    assert!(!is_placeholder("plain text"));
}
