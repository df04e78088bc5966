//! Orphans: an entry whose parent is not in the file (the line before it is malformed, so pi
//! skipped it). pi's branch starts there; pi-shake writes after the leaf, which pi reads back, so
//! this is a warning, never a refusal. The real-pi CLI checks of the damaged real session (shake,
//! undo, compact, resumed) are in `resume.rs`; cycles and a duplicated leaf id stay refused
//! (`hostile.rs`, fixtures 11, 12, 14).

use serde_json::Value;

use crate::common::*;
use crate::common::{fixture, fixture_in};

/// Our overlays on a branch that starts at an orphan (no compaction: pi's context starts there)
/// apply in real pi's projection.
#[test]
fn an_orphan_in_context_is_a_warning_and_our_overlays_apply() {
    let f = copy_fixture(&fixture_in("broken", "13-dangling-parent-mid-path.jsonl"));
    let st = pi_shake(&["status", "--json", f.to_str().unwrap()]).json();
    let p = st["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "dangling-parent")
        .unwrap();
    assert_eq!(p["severity"], "warning");
    assert!(
        p["message"]
            .as_str()
            .unwrap()
            .contains("pi's context starts here"),
        "{p}"
    );
    assert_eq!(st["writable"], true);
    let before = assert_projection_matches_pi(&f);
    let r = pi_shake(&[
        "shake",
        "--scope",
        "all",
        "--tail",
        "0",
        "--profile",
        "aggressive",
        "--json",
        f.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let folds: Vec<String> = r.json()["folds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["entryId"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !folds.is_empty(),
        "something on the orphan's branch is folded"
    );
    let after = assert_projection_matches_pi(&f);
    if let (Some(b), Some(a)) = (before, after) {
        let (tb, ta) = (tokens_by_entry(&b), tokens_by_entry(&a));
        for id in &folds {
            assert!(ta[id] < tb[id], "{id}: pi does not apply our fold");
        }
    }
}

/// The entries a run appended.
fn appended(before: &[u8], after: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(&after[before.len()..])
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect()
}

fn ids(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

/// A new entry never takes the id an orphan names as its parent: that would make the orphan a
/// child of our entry, whose own parent chain leads back to the orphan (a cycle pi hangs on).
#[test]
fn new_ids_never_adopt_an_orphan() {
    // The first id the seeded generator draws: shake reserves the overlays' ids before the
    // log entry's, so it is the first overlay's.
    let plain = copy_fixture(&fixture("thinking.jsonl"));
    let bytes = std::fs::read(&plain).unwrap();
    let r = pi_shake(&["shake", "--scope", "thinking", plain.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let drawn = appended(&bytes, &std::fs::read(&plain).unwrap());
    let first = drawn.iter().find(|e| e["type"] == "context_edit").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();

    // The same session with a mid-path entry whose parent is that id (not in the file).
    let text = std::fs::read_to_string(fixture("thinking.jsonl")).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let k = lines.len() / 2;
    lines[k]["parentId"] = Value::from(first.as_str());
    let f = temp_dir("adopt").join("orphan.jsonl");
    let body: String = lines.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(&f, &body).unwrap();
    age(&f);
    let r = pi_shake(&["shake", "--scope", "thinking", f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let ids = ids(&appended(body.as_bytes(), &std::fs::read(&f).unwrap()));
    assert!(!ids.is_empty(), "something was written");
    assert!(!ids.contains(&first), "{first} adopted the orphan: {ids:?}");
    let st = pi_shake(&["status", "--json", f.to_str().unwrap()]).json();
    assert!(
        st["problems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["code"] != "cycle"),
        "{:#}",
        st["problems"]
    );
    assert_projection_matches_pi(&f);
}
