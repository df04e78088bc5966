//! The binary's side of the extension's protocol: the `version --json` handshake and `compact
//! --emit-json` (the entry pi's hook returns), without pi.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use crate::common::{copy_fixture, need_oracle, oracle1, pi_shake, root, set_age};

#[test]
fn version_json_is_the_handshake() {
    let r = pi_shake(&["--json", "version"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    let o = v.as_object().unwrap();
    let keys: HashSet<&str> = o.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        HashSet::from(["schemaVersion", "name", "version", "protocol", "features"])
    );
    assert_eq!(v["name"], "pi-shake");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["protocol"], 1);
    let features: Vec<&str> = v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    for f in [
        "compact-emit-json",
        "compact --first-kept-entry-id",
        "compact --instructions",
        "compact --keep-recent-tokens",
        "shake --force",
        "undo --force",
    ] {
        assert!(features.contains(&f), "handshake lacks {f}: {features:?}");
    }
    let human = pi_shake(&["version"]);
    assert_eq!(
        human.stdout,
        format!("pi-shake {}\n", env!("CARGO_PKG_VERSION"))
    );
}

fn emit(path: &Path, extra: &[&str]) -> crate::common::Run {
    let mut args = vec!["compact", "--emit-json", "--keep-recent-tokens", "2000"];
    args.extend_from_slice(extra);
    let p = path.to_str().unwrap();
    args.push(p);
    pi_shake(&args)
}

/// The four entry fields pi's hook returns, nothing else.
fn entry_fields(r: &crate::common::Run) -> Value {
    assert_eq!(r.code, 0, "compact --emit-json failed: {}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1, "one JSON line: {}", r.stdout);
    let v = r.json();
    let keys: HashSet<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        HashSet::from(["summary", "firstKeptEntryId", "tokensBefore", "details"])
    );
    assert!(!v["summary"].as_str().unwrap().is_empty());
    assert!(v["tokensBefore"].is_u64(), "{}", v["tokensBefore"]);
    v
}

#[test]
fn emit_json_prints_the_entry_for_pis_cut_and_writes_nothing() {
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    // As at hook time: pi has just written the file (the live-pi check must not fire).
    set_age(&f, 0);
    let before = std::fs::read(&f).unwrap();
    let pi_cut = if need_oracle() {
        let o = oracle1(&f, &["--compaction=2000"]);
        Some((
            o["compaction"]["firstKeptEntryId"]
                .as_str()
                .unwrap()
                .to_string(),
            o["compaction"]["tokensBefore"].as_u64().unwrap(),
        ))
    } else {
        None
    };
    let (id, tokens) = pi_cut.unwrap_or_else(|| ("ec9f6c80".into(), 63577));
    let v = entry_fields(&emit(&f, &["--first-kept-entry-id", &id]));
    assert_eq!(v["firstKeptEntryId"], id.as_str());
    assert_eq!(v["tokensBefore"], tokens, "pi's §10.3 estimate");
    let d = &v["details"];
    assert!(d["pruner"].as_str().unwrap().starts_with("pi-shake "));
    assert_eq!(d["scorer"], "heuristic-v3");
    assert_eq!(d["cut"]["source"], "pi");
    assert_eq!(d["cut"]["agrees"], true);
    assert_eq!(d["cut"]["piShakeCut"], id.as_str());
    assert!(d.get("instructions").is_none());
    assert_eq!(
        std::fs::read(&f).unwrap(),
        before,
        "--emit-json writes nothing"
    );
    // Without pi's id, pi-shake's own cut (the same one).
    let own = entry_fields(&emit(&f, &[]));
    assert_eq!(own["firstKeptEntryId"], id.as_str());
    assert_eq!(own["details"]["cut"]["source"], "pi-shake");
}

#[test]
fn emit_json_follows_pis_cut_when_it_differs_and_refuses_an_unknown_one() {
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    let ours = entry_fields(&emit(&f, &[]))["firstKeptEntryId"]
        .as_str()
        .unwrap()
        .to_string();
    // An earlier user message of the branch: a valid cut pi-shake would not choose here.
    let status = pi_shake(&["--json", "status", f.to_str().unwrap()]).json();
    let users: Vec<&str> = status["projection"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["entryId"].as_str().unwrap())
        .collect();
    let other = users[users.len() - 3];
    assert_ne!(other, ours);
    let v = entry_fields(&emit(&f, &["--first-kept-entry-id", other]));
    assert_eq!(v["firstKeptEntryId"], other);
    assert_eq!(v["details"]["cut"]["agrees"], false);
    assert_eq!(v["details"]["cut"]["piShakeCut"], ours.as_str());
    // A different cut is a different region: a different summary.
    assert_ne!(v["summary"], entry_fields(&emit(&f, &[]))["summary"]);

    let bad = emit(&f, &["--first-kept-entry-id", "zzzzzzzz"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stdout.is_empty(), "nothing on stdout: {}", bad.stdout);
    assert!(bad.stderr.contains("zzzzzzzz"), "{}", bad.stderr);
}

#[test]
fn instructions_are_weighed_by_the_offline_scorer() {
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    // A tight budget, so that lines compete: the instructions must draw the lines they name.
    let plain = entry_fields(&emit(&f, &["--target-ratio", "0.05"]));
    let text = "keep the checksum values";
    let focused = entry_fields(&emit(
        &f,
        &["--target-ratio", "0.05", "--instructions", text],
    ));
    assert_eq!(focused["details"]["instructions"], text);
    let count = |v: &Value| v["summary"].as_str().unwrap().matches("checksum=").count();
    assert!(
        count(&focused) > count(&plain),
        "instructions changed nothing: {} vs {} checksum lines",
        count(&plain),
        count(&focused)
    );
}
