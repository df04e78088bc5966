//! Plans → entries on a small session file: the log comes first and names exactly the overlays
//! that follow it, for a fold and for the undo that restores it.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::*;
use crate::plan::fold::{self, FoldParams};
use crate::settings::{Profile, ProfileSource};

const TS: &str = "2026-03-01T09:15:00.000Z";

fn session_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pi-shake-ops-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let msg = |id: &str, parent: Option<&str>, m: Value| {
        json!({"type":"message","id":id,"parentId":parent,"timestamp":TS,"message":m}).to_string()
    };
    let lines = [
        json!({"type":"session","version":3,"id":"s","timestamp":TS,"cwd":"/p"}).to_string(),
        msg(
            "u1",
            None,
            json!({"role":"user","content":"list","timestamp":1}),
        ),
        msg(
            "a1",
            Some("u1"),
            json!({"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash",
            "arguments":{"command":"ls"}}],"api":"x","provider":"p","model":"m",
            "stopReason":"toolUse","timestamp":2}),
        ),
        msg(
            "r1",
            Some("a1"),
            json!({"role":"toolResult","toolCallId":"c1","toolName":"bash",
            "content":[{"type":"text","text":"x".repeat(8_000)}],"isError":false,"timestamp":3}),
        ),
        msg(
            "u2",
            Some("r1"),
            json!({"role":"user","content":"y".repeat(400),"timestamp":4}),
        ),
    ];
    let path = dir.join("s.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn settings() -> ShakeSettings {
    ShakeSettings {
        profile: Profile::Default,
        source: ProfileSource::BuiltIn,
        tail: 100,
        block_min: 400,
    }
}

fn parsed(batch: &Batch) -> Vec<Value> {
    batch
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The plan of an elide shake of `l` with the default profile's tail and block minimum.
fn elide_plan(l: &Loaded) -> fold::FoldPlan {
    let params = FoldParams {
        scopes: vec![Scope::Elide],
        tail: 100,
        block_min: 400,
    };
    let mut fetch = l.fetcher();
    fold::plan(
        &l.session,
        &l.tree,
        &l.projection,
        &l.wall,
        &params,
        &mut fetch,
    )
    .unwrap()
}

#[test]
fn a_fold_is_one_log_then_the_overlays_it_names() {
    let path = session_file("fold");
    let l = Loaded::open(&path).unwrap();
    let plan = elide_plan(&l);
    assert_eq!(plan.folds.len(), 1);
    let batch = fold_entries(&l, &plan, &settings(), &[Scope::Elide]).unwrap();
    let v = parsed(&batch);
    assert_eq!(v.len(), 2);
    assert_eq!(v[0]["type"], "custom");
    assert_eq!(v[0]["customType"], SHAKE_CUSTOM_TYPE);
    assert_eq!(v[0]["data"]["op"], "shake");
    assert_eq!(v[0]["data"]["folds"][0]["target"], "r1");
    assert_eq!(v[1]["type"], "context_edit");
    assert_eq!(v[0]["data"]["folds"][0]["edit"], v[1]["id"]);
    assert_eq!(v[1]["parentId"], v[0]["id"]);
    assert_eq!(v[1]["replacement"]["content"], plan.folds[0].content);
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn an_undo_is_one_log_then_overlays_carrying_the_original_bytes() {
    let path = session_file("undo");
    let l = Loaded::open(&path).unwrap();
    let plan = elide_plan(&l);
    let batch = fold_entries(&l, &plan, &settings(), &[Scope::Elide]).unwrap();
    let opts = crate::writer::WriteOptions { force: false };
    crate::writer::commit(&l.session, &l.tree, &l.projection, &batch, &opts).unwrap();

    let l = Loaded::open(&path).unwrap();
    let plan = crate::plan::undo::plan(&l.wall);
    assert_eq!(plan.restores.len(), 1);
    let (mut batch, mut more) = undo_entries(&l, &plan).unwrap();
    while more(&mut batch).unwrap() {}
    let v = parsed(&batch);
    assert_eq!(v.len(), 2);
    assert_eq!(v[0]["data"]["op"], "undo");
    assert_eq!(v[0]["data"]["restores"][0]["target"], "r1");
    assert_eq!(v[0]["data"]["restores"][0]["edit"], v[1]["id"]);
    assert_eq!(
        v[1]["replacement"]["content"],
        json!([{"type":"text","text":"x".repeat(8_000)}])
    );
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}
