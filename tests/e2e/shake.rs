//! shake / dry-run / undo end to end on sessions real pi wrote, checked with real pi's loader.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::*;

/// entryId → [message contents] of pi's projection.
fn contents(pi: &Value) -> BTreeMap<String, Vec<Value>> {
    let mut m: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let rows = pi["projection"].as_array().unwrap();
    let msgs = pi["messages"].as_array().unwrap();
    assert_eq!(rows.len(), msgs.len());
    for (r, msg) in rows.iter().zip(msgs) {
        m.entry(r["entryId"].as_str().unwrap().to_string())
            .or_default()
            .push(msg["content"].clone());
    }
    m
}

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

/// shake with `args`, check pi's view, then undo and check pi's view equals the original.
fn round_trip(fixture: &Path, args: &[&str]) -> usize {
    let f = copy_fixture(fixture);
    let fs = f.to_str().unwrap();
    let before_bytes = bytes(&f);
    let pre = &oracle1(&f, &["--messages"]);
    assert_eq!(pre["ok"], json!(true));

    // dry-run writes nothing.
    let mtime = std::fs::metadata(&f).unwrap().modified().unwrap();
    let mut dargs = vec!["dry-run", "--json"];
    dargs.extend_from_slice(args);
    dargs.push(fs);
    let d = pi_shake(&dargs);
    assert_eq!(d.code, 0, "{}", d.stderr);
    assert_eq!(bytes(&f), before_bytes, "dry-run changed bytes");
    assert_eq!(
        std::fs::metadata(&f).unwrap().modified().unwrap(),
        mtime,
        "dry-run changed mtime"
    );

    let mut sargs = vec!["shake", "--json"];
    sargs.extend_from_slice(args);
    sargs.push(fs);
    let r = pi_shake(&sargs);
    assert_eq!(r.code, 0, "shake failed: {}", r.stderr);
    let rep = r.json();
    let folded: Vec<String> = rep["folds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["entryId"].as_str().unwrap().to_string())
        .collect();
    let after_bytes = bytes(&f);
    assert!(
        after_bytes.starts_with(&before_bytes),
        "old bytes must be a prefix"
    );
    if folded.is_empty() {
        assert_eq!(
            after_bytes, before_bytes,
            "nothing to fold must append nothing"
        );
        return 0;
    }
    // dry-run agreed with shake.
    assert_eq!(
        d.json()["folds"],
        rep["folds"],
        "dry-run and shake planned differently"
    );

    let post = &oracle1(&f, &["--messages"]);
    assert_eq!(
        post["ok"],
        json!(true),
        "pi failed on the shaken file: {}",
        post["error"]
    );
    let (a, b) = (contents(pre), contents(post));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "projected entries changed"
    );
    for (id, ca) in &a {
        let cb = &b[id];
        if folded.contains(id) {
            assert_ne!(ca, cb, "{id}: planned fold not applied");
            let t: String = cb.iter().map(text_of).collect();
            assert!(t.contains("omitted (~") || cb != ca, "{id}: no placeholder");
        } else {
            assert_eq!(ca, cb, "{id}: changed but not in the plan");
        }
    }
    // Our status agrees with pi about the total after the shake.
    let st = pi_shake(&["status", "--json", fs]).json();
    assert_eq!(st["contextTokens"], post["contextTokens"]);
    assert_eq!(st["projection"], post["projection"]);
    assert_eq!(st["wall"]["active"], json!(folded.len()));
    assert_eq!(
        rep["contextTokensAfter"], post["contextTokens"],
        "predicted total after shake"
    );

    // A repeat shake appends nothing.
    let again = pi_shake(&sargs);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(bytes(&f), after_bytes, "repeat shake appended bytes");

    // undo restores pi's view exactly.
    let u = pi_shake(&["undo", "--json", fs]);
    assert_eq!(u.code, 0, "undo failed: {}", u.stderr);
    assert_eq!(u.json()["restored"], json!(folded.len()));
    let undone_bytes = bytes(&f);
    assert!(undone_bytes.starts_with(&after_bytes));
    let back = &oracle1(&f, &["--messages"]);
    assert_eq!(back["ok"], json!(true));
    assert_eq!(
        back["messages"], pre["messages"],
        "undo did not restore pi's projection"
    );
    let u2 = pi_shake(&["undo", fs]);
    assert_eq!(u2.code, 0);
    assert_eq!(bytes(&f), undone_bytes, "second undo appended bytes");
    let st = pi_shake(&["status", "--json", fs]).json();
    assert_eq!(st["wall"]["count"], json!(0));
    folded.len()
}

#[test]
fn shake_undo_round_trip_every_fixture_and_profile() {
    if !need_oracle() {
        return;
    }
    let (mut total, mut of_releases) = (0, 0);
    // pi 1.6's own files, then older releases' files once pi 1.6 has opened (migrated) them.
    let releases = release_fixtures()
        .iter()
        .map(|f| migrated_copy(f))
        .collect::<Vec<_>>();
    let own = fixtures("pi").len();
    for (i, f) in fixtures("pi").into_iter().chain(releases).enumerate() {
        for args in [
            vec!["--scope", "elide"],
            vec!["--profile", "aggressive", "--scope", "all"],
            vec!["--profile", "conservative", "--scope", "thinking"],
            vec!["--scope", "images"],
        ] {
            let n = round_trip(&f, &args);
            total += n;
            if i >= own {
                of_releases += n;
            }
        }
    }
    assert!(total > 50, "only {total} folds across fixtures");
    assert!(
        of_releases > 200,
        "only {of_releases} folds across older releases' files"
    );
}

#[test]
fn scopes_combine_then_undo_restores_everything() {
    if !need_oracle() {
        return;
    }
    for name in ["long-session.jsonl", "image-read.jsonl", "thinking.jsonl"] {
        let f = copy_fixture(&root().join("sessions-fixtures/pi").join(name));
        let fs = f.to_str().unwrap();
        let pre = &oracle1(&f, &["--messages"]);
        for scope in ["elide", "images", "thinking"] {
            let r = pi_shake(&["shake", "--profile", "aggressive", "--scope", scope, fs]);
            assert_eq!(r.code, 0, "{}", r.stderr);
        }
        let mid = &oracle1(&f, &["--messages"]);
        assert_eq!(mid["ok"], json!(true));
        let u = pi_shake(&["undo", fs]);
        assert_eq!(u.code, 0, "{}", u.stderr);
        let back = &oracle1(&f, &["--messages"]);
        assert_eq!(back["messages"], pre["messages"], "{name}");
        // After undo, shake folds again.
        let r = pi_shake(&[
            "shake",
            "--json",
            "--profile",
            "aggressive",
            "--scope",
            "all",
            fs,
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        if name == "long-session.jsonl" {
            assert!(!r.json()["folds"].as_array().unwrap().is_empty());
        }
    }
}

#[test]
fn only_the_active_branch_is_folded_and_a_rewind_shows_raw_content() {
    use std::os::unix::fs::PermissionsExt;
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
    let fs = f.to_str().unwrap();
    // Fork: a new user turn parented half-way down the path (what pi writes after /tree).
    let l0 = pi_shake::load::Loaded::open(&f).unwrap();
    let old_leaf = l0.session.entries[l0.tree.leaf.unwrap()]
        .id_str()
        .to_string();
    let mid = l0.session.entries[l0.tree.path[l0.tree.path.len() / 2]]
        .id_str()
        .to_string();
    let fork = json!({"type": "message", "id": "f0f0f0f0", "parentId": mid, "timestamp": "2026-11-30T11:00:00.000Z",
        "message": {"role": "user", "content": "Let's try another way.", "timestamp": 1}});
    let mut bytes = std::fs::read(&f).unwrap();
    bytes.extend_from_slice(format!("{fork}\n").as_bytes());
    std::fs::write(&f, &bytes).unwrap();
    age(&f);
    let l = pi_shake::load::Loaded::open(&f).unwrap();
    let r = pi_shake(&[
        "shake",
        "--json",
        "--scope",
        "all",
        "--profile",
        "aggressive",
        "--tail",
        "0",
        fs,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
        0o640,
        "permissions must be kept"
    );
    let folds = r.json()["folds"].as_array().unwrap().clone();
    assert!(!folds.is_empty());
    for fold in &folds {
        let id = fold["entryId"].as_str().unwrap();
        let idx = l.tree.by_id[&pi_shake::session::Key::of(id)];
        assert!(l.tree.on_path[idx], "{id} is not on the active branch");
    }
    // Rewind to the old branch: pi persists a label parented at its leaf. That branch never made
    // the fold decision, so it shows raw content, even for entries both branches share.
    let label = json!({"type": "label", "id": "5eedf00d", "parentId": old_leaf, "timestamp": "2026-11-30T12:00:01.000Z", "targetId": old_leaf, "label": "rewind"});
    let mut bytes = std::fs::read(&f).unwrap();
    bytes.extend_from_slice(format!("{label}\n").as_bytes());
    std::fs::write(&f, &bytes).unwrap();
    let st = pi_shake(&["status", "--json", fs]).json();
    assert_eq!(
        st["wall"]["count"],
        json!(0),
        "the rewound branch has no folds"
    );
    if need_oracle() {
        let pi = oracle1(&f, &["--messages"]);
        assert_eq!(pi["ok"], json!(true));
        assert!(
            !pi["messages"].to_string().contains(" omitted (~"),
            "placeholders on a rewound branch"
        );
        let orig = oracle1(
            &root().join("sessions-fixtures/pi/long-session.jsonl"),
            &["--messages"],
        );
        assert_eq!(
            pi["messages"], orig["messages"],
            "the old branch is exactly the original"
        );
    }
}
