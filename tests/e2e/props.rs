//! Property tests over generated sessions: the reader never panics; shake is append-only and
//! idempotent; nothing inside the tail changes; `undo(shake(s))` projects exactly like `s`.

use std::path::{Path, PathBuf};

use pi_shake::cli::{ProfileArg, ScopeArg, SessionArgs, ShakeArgs};
use pi_shake::load::Loaded;
use pi_shake::projection::{Overlays, materialize};
use pi_shake::session::Session;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::*;

/// One generated turn.
#[derive(Clone, Debug)]
enum Turn {
    User {
        text: String,
    },
    Tool {
        name: &'static str,
        output: String,
        thinking: Option<String>,
        image: bool,
        error: bool,
    },
    Answer {
        text: String,
    },
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,40}".prop_map(|s| s),
        (1usize..max).prop_map(|n| "line of output 0123456789\n".repeat(n)),
        (1usize..max, 1usize..60).prop_map(|(n, m)| format!(
            "intro\n```rust\n{}```\nmid é😀\n<file>\n{}</file>\nend",
            "let x = 1;\n".repeat(n),
            "data\n".repeat(m)
        )),
    ]
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        text(40).prop_map(|text| Turn::User { text }),
        (
            prop_oneof![Just("bash"), Just("read"), Just("grep")],
            text(400),
            proptest::option::of("[a-z ]{1,200}"),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(name, output, thinking, image, error)| Turn::Tool {
                name,
                output,
                thinking,
                image,
                error
            }),
        text(80).prop_map(|text| Turn::Answer { text }),
    ]
}

/// Render turns as a pi v3 session (linear, usage on assistants).
fn render(turns: &[Turn]) -> String {
    let mut out = String::new();
    out.push_str("{\"type\":\"session\",\"version\":3,\"id\":\"prop\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/nowhere\"}\n");
    let mut parent: Option<String> = None;
    let mut n = 0u32;
    let mut push = |out: &mut String, msg: Value| {
        n += 1;
        let id = format!("{n:08x}");
        let e = json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z", "message": msg});
        out.push_str(&e.to_string());
        out.push('\n');
        parent = Some(id);
    };
    let usage = json!({"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
    for (i, t) in turns.iter().enumerate() {
        match t {
            Turn::User { text } => push(
                &mut out,
                json!({"role": "user", "content": text, "timestamp": 1}),
            ),
            Turn::Answer { text } => push(
                &mut out,
                json!({"role": "assistant", "content": [{"type": "text", "text": text}], "api": "x", "provider": "p", "model": "m", "usage": usage, "stopReason": "stop", "timestamp": 1}),
            ),
            Turn::Tool {
                name,
                output,
                thinking,
                image,
                error,
            } => {
                let call = format!("call_{i}");
                let mut content = Vec::new();
                if let Some(th) = thinking {
                    content.push(
                        json!({"type": "thinking", "thinking": th, "thinkingSignature": "sig"}),
                    );
                }
                content.push(json!({"type": "toolCall", "id": call, "name": name, "arguments": {"command": format!("cmd {i}"), "n": 1.5}}));
                push(
                    &mut out,
                    json!({"role": "assistant", "content": content, "api": "x", "provider": "p", "model": "m", "usage": usage, "stopReason": "toolUse", "timestamp": 1}),
                );
                let mut rc = vec![json!({"type": "text", "text": output})];
                if *image {
                    rc.push(
                        json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}),
                    );
                }
                push(
                    &mut out,
                    json!({"role": "toolResult", "toolCallId": call, "toolName": name, "content": rc, "isError": error, "timestamp": 1}),
                );
            }
        }
    }
    out
}

fn write_session(text: &str) -> PathBuf {
    let d = temp_dir("prop");
    let f = d.join("s.jsonl");
    std::fs::write(&f, text).unwrap();
    age(&f);
    f
}

fn view(p: &Path) -> Vec<Value> {
    let l = Loaded::open(p).unwrap();
    let mut fetch = l.fetcher();
    let mut out = Vec::new();
    for pos in 0..l.projection.entries.len() {
        out.extend(
            materialize(
                &l.session,
                &l.projection,
                Some(&l.wall),
                Overlays::AsProjected,
                pos,
                &mut fetch,
            )
            .unwrap(),
        );
    }
    out
}

fn args(path: &Path, scope: ScopeArg, profile: ProfileArg, tail: Option<u64>) -> ShakeArgs {
    ShakeArgs {
        sessions: vec![path.to_path_buf()],
        find: SessionArgs::default(),
        all: false,
        profile: Some(profile),
        scope: vec![scope],
        tail,
        block_min: None,
        force: true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn shake_undo_round_trip(
        turns in proptest::collection::vec(turn(), 1..30),
        scope in prop_oneof![Just(ScopeArg::Elide), Just(ScopeArg::Thinking), Just(ScopeArg::Images), Just(ScopeArg::All)],
        profile in prop_oneof![Just(ProfileArg::Default), Just(ProfileArg::Aggressive), Just(ProfileArg::Conservative)],
        tail in proptest::option::of(0u64..3000),
    ) {
        let f = write_session(&render(&turns));
        let before_bytes = std::fs::read(&f).unwrap();
        let before = view(&f);
        let a = args(&f, scope, profile, tail);
        let rep = pi_shake::commands::shake::shake_one(&f, &a, false).unwrap();
        let mid_bytes = std::fs::read(&f).unwrap();
        prop_assert!(mid_bytes.starts_with(&before_bytes));
        // Nothing inside the tail changed (elide honours the tail; thinking/images have none).
        if matches!(scope, ScopeArg::Elide) {
            let l = Loaded::open(&f).unwrap();
            let mid = view(&f);
            prop_assert_eq!(mid.len(), before.len());
            let tail_tokens = rep.tail;
            let mut cum = 0u64;
            for i in (0..before.len()).rev() {
                if cum >= tail_tokens { break; }
                prop_assert_eq!(&mid[i], &before[i], "entry inside the tail changed");
                cum += l.projection.entries[i].tokens();
            }
        }
        // Idempotent: a second identical shake appends nothing.
        pi_shake::commands::shake::shake_one(&f, &a, false).unwrap();
        let again = std::fs::read(&f).unwrap();
        prop_assert!(again == mid_bytes, "repeat shake appended: {}", String::from_utf8_lossy(&again[mid_bytes.len().min(again.len())..]));
        // undo restores the projection exactly; a second undo appends nothing.
        pi_shake::commands::undo::undo_one(&f, true).unwrap();
        prop_assert_eq!(view(&f), before);
        let undone = std::fs::read(&f).unwrap();
        prop_assert!(undone.starts_with(&mid_bytes));
        pi_shake::commands::undo::undo_one(&f, true).unwrap();
        let again = std::fs::read(&f).unwrap();
        prop_assert!(again == undone, "second undo appended: {}", String::from_utf8_lossy(&again[undone.len().min(again.len())..]));
    }

    #[test]
    fn reader_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let mut b = b"{\"type\":\"session\",\"version\":3,\"id\":\"x\"}\n".to_vec();
        b.extend_from_slice(&bytes);
        if let Ok(s) = Session::from_bytes(&b, Path::new("fuzz.jsonl")) {
            let l = Loaded::from_session(s);
            let _ = pi_shake::commands::status::report(&l);
        }
        let _ = Session::from_bytes(&bytes, Path::new("fuzz.jsonl"));
    }

    #[test]
    fn reader_never_panics_on_mutated_sessions(
        turns in proptest::collection::vec(turn(), 1..8),
        cuts in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..12),
    ) {
        let mut b = render(&turns).into_bytes();
        for (i, byte) in cuts {
            let at = i.index(b.len());
            b[at] = byte;
        }
        if let Ok(s) = Session::from_bytes(&b, Path::new("mutated.jsonl")) {
            let l = Loaded::from_session(s);
            let _ = pi_shake::commands::status::report(&l);
        }
    }
}
