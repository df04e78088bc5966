//! The entry tree on small hand-built sessions: leaf, active path, duplicates, cycles and
//! dangling parents, as pi walks them.

use std::path::Path;

use serde_json::json;

use super::*;
use crate::session::Session;

/// A session whose entries are `(id, parent)` pairs (custom entries: no content needed).
fn session(entries: &[(&str, Option<&str>)]) -> Session {
    let mut text = String::from(r#"{"type":"session","version":3,"id":"s","cwd":"/p"}"#);
    text.push('\n');
    for (id, parent) in entries {
        let e = json!({"type":"custom","customType":"k","id":id,"parentId":parent,
            "timestamp":"2026-03-01T09:15:00.000Z"});
        text.push_str(&e.to_string());
        text.push('\n');
    }
    Session::from_bytes(text.as_bytes(), Path::new("t.jsonl")).unwrap()
}

fn ids(s: &Session, path: &[usize]) -> Vec<String> {
    path.iter()
        .map(|&i| s.entries[i].id_str().to_string())
        .collect()
}

fn codes(t: &Tree) -> Vec<&'static str> {
    t.problems.iter().map(|p| p.code).collect()
}

#[test]
fn the_leaf_is_the_last_line_and_the_path_runs_root_first() {
    // a ─ b ─ c, and a ─ d (a branch written last).
    let s = session(&[
        ("a", None),
        ("b", Some("a")),
        ("c", Some("b")),
        ("d", Some("a")),
    ]);
    let t = Tree::build(&s);
    assert_eq!(t.leaf, Some(3));
    assert_eq!(ids(&s, &t.path), ["a", "d"]);
    assert_eq!(t.on_path, vec![true, false, false, true]);
    assert_eq!(t.path_pos(3), Some(1));
    assert_eq!(t.path_pos(1), None);
    assert!(t.problems.is_empty());
    assert_eq!(t.by_id.len(), 4);
}

#[test]
fn an_unknown_parent_silently_ends_the_path() {
    let s = session(&[("a", None), ("b", Some("a")), ("c", Some("zz"))]);
    let t = Tree::build(&s);
    assert_eq!(ids(&s, &t.path), ["c"]);
    let (at, missing) = t.dangling.clone().unwrap();
    assert_eq!((at, missing.display()), (2, "zz"));
    assert_eq!(codes(&t), ["dangling-parent"]);
}

#[test]
fn a_cycle_ends_the_walk_and_is_an_error() {
    // b's parent is c, c's parent is b: pi would loop forever.
    let s = session(&[("a", None), ("b", Some("c")), ("c", Some("b"))]);
    let t = Tree::build(&s);
    assert_eq!(t.cycle, Some(2));
    assert_eq!(ids(&s, &t.path), ["b", "c"]);
    assert!(codes(&t).contains(&"cycle"));
    assert!(
        t.problems
            .iter()
            .any(|p| p.code == "cycle" && p.severity == Severity::Error)
    );
}

#[test]
fn later_duplicates_win_lookups() {
    // The second "b" re-parents what follows onto "x".
    let s = session(&[
        ("a", None),
        ("x", None),
        ("b", Some("a")),
        ("b", Some("x")),
        ("c", Some("b")),
    ]);
    let t = Tree::build(&s);
    assert_eq!(t.by_id.get(&Key::of("b")), Some(&3));
    assert_eq!(ids(&s, &t.path), ["x", "b", "c"]);
    assert_eq!(codes(&t), ["duplicate-id"]);
}

#[test]
fn a_leaf_sharing_an_earlier_id_blocks_writing() {
    let s = session(&[("a", None), ("b", Some("a")), ("a", Some("b"))]);
    let t = Tree::build(&s);
    assert!(
        t.problems
            .iter()
            .any(|p| p.code == "duplicate-leaf-id" && p.severity == Severity::Unsafe)
    );
}

#[test]
fn an_empty_session_has_no_leaf() {
    let s = session(&[]);
    let t = Tree::build(&s);
    assert_eq!(t.leaf, None);
    assert!(t.path.is_empty());
}
