//! `/shake` in a running pi 1.6 (RPC mode): a fold reaches the next request and its undo
//! restores it, auto-shake, and `/tree` navigation (a refusal, and a compaction of pi's branch).

use super::*;

#[test]
fn shake_in_a_running_pi_reaches_the_next_request_and_undo_restores_it() {
    if !pi_cli() {
        return;
    }
    let (v, _work) = drive("shake");
    let file = session_of(&v);
    let reqs = requests(&v);
    // The scope popup, with the design's scopes.
    let selects = v["selects"].as_array().unwrap();
    assert_eq!(selects.len(), 1);
    assert_eq!(selects[0]["step"], "shake");
    assert_eq!(selects[0]["title"], "Shake which scope?");
    assert_eq!(
        selects[0]["options"],
        serde_json::json!(["elide", "thinking", "images", "all"])
    );
    // The design's wording, profile from pi's settings.json.
    let said = notifications(&v, "shake");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("Shook 4 tool results (~"),
        "{}",
        said[0]
    );
    assert!(
        said[0].ends_with(
            "Protects the last 2,000 tokens. Profile: aggressive (settings.json (agent-directory))."
        ),
        "{}",
        said[0]
    );
    assert_ne!(v["hashes"]["beforeShake"], v["hashes"]["afterShake"]);

    // The last request before /shake carries the raw outputs; the next one placeholders.
    let raw = tool_results(&reqs[mark(&v, "shake") - 1]);
    let after = tool_results(&reqs[mark(&v, "prompt3")]);
    let placeholder = |t: &str| {
        t.starts_with('[') && t.ends_with(" tokens)]") && t.contains(" output omitted (~")
    };
    let folded: Vec<&String> = after
        .iter()
        .filter(|(_, t)| placeholder(t))
        .map(|(id, _)| id)
        .collect();
    assert_eq!(folded.len(), 4, "{after:#?}");
    for id in &folded {
        assert!(raw[*id].len() > 1_000, "{id} was not a big output");
        assert!(!placeholder(&raw[*id]));
    }
    // Outputs inside the protected tail are untouched.
    assert!(
        after
            .iter()
            .any(|(id, t)| !placeholder(t) && raw.get(id) == Some(t))
    );

    // dry-run and status write nothing.
    assert_eq!(v["hashes"]["beforeDryRun"], v["hashes"]["afterDryRun"]);
    assert_eq!(v["hashes"]["afterDryRun"], v["hashes"]["afterStatus"]);
    let dry = notifications(&v, "dryrun");
    assert_eq!(dry.len(), 1);
    assert!(
        dry[0].starts_with("[dry-run] · Shook 2 thinking blocks (~"),
        "{}",
        dry[0]
    );
    let status = notifications(&v, "status");
    assert!(
        status[0].starts_with("pi-shake: 4 entries folded (~"),
        "{}",
        status[0]
    );

    // /shake undo: the next request carries the originals again.
    assert!(notifications(&v, "undo")[0].starts_with("Restored 4 folded entries (~"));
    let restored = tool_results(&reqs[mark(&v, "prompt4")]);
    for (id, t) in &raw {
        assert_eq!(&restored[id], t, "{id} not restored");
    }
    assert_all_on_branch(&file);
    // pi's own entries after each reopen are parented on pi-shake's log.
    let all = lines(&file);
    let logs: Vec<&Value> = all
        .iter()
        .filter(|e| e["type"] == "custom" && e["customType"] == "shake")
        .collect();
    assert_eq!(logs.len(), 2, "one log per writing run");
}

/// The binary is found in `~/.cargo/bin`, off pi's PATH (where `cargo install` puts it).
#[test]
fn auto_shake_folds_after_a_run_past_the_configured_fraction() {
    if !pi_cli() {
        return;
    }
    let (v, _work) = drive("auto");
    let said = notifications(&v, "prompt2");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("pi-shake: auto-shake: Shook "),
        "{}",
        said[0]
    );
    let reqs = requests(&v);
    let next = tool_results(&reqs[mark(&v, "prompt3")]);
    assert!(
        next.values().any(|t| t.contains(" output omitted (~")),
        "the request after the auto-shake carries no placeholder"
    );
    // Nothing folded after the first prompt (below 8% of the window).
    assert!(notifications(&v, "prompt1").is_empty());
    assert_all_on_branch(&session_of(&v));
}

#[test]
fn after_tree_navigation_shake_refuses_and_compaction_uses_pis_branch() {
    if !pi_cli() {
        return;
    }
    let (v, work) = drive("tree");
    let file = session_of(&v);
    // pi's leaf moved back without a write: appending now would strand the fold.
    assert_eq!(v["hashes"]["beforeShake"], v["hashes"]["afterShake"]);
    let said = notifications(&v, "shake");
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("is not the file's last entry"),
        "{}",
        said[0]
    );
    // The compaction was planned on pi's branch (a snapshot), not the file's last-line branch.
    let target = v["responses"]["navigatedTo"].as_str().unwrap();
    let cs = compactions(&file);
    assert_eq!(cs.len(), 1);
    let c = &cs[0];
    assert_eq!(c["parentId"], target, "pi writes at its own leaf");
    assert_eq!(c["fromHook"], true);
    assert_eq!(
        c["details"]["cut"]["agrees"], true,
        "{:#}",
        c["details"]["cut"]
    );
    let summary = c["summary"].as_str().unwrap();
    assert!(summary.contains("big1.txt") && !summary.contains("big4.txt"));
    let leftovers: Vec<_> = std::fs::read_dir(work.join("tmp"))
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("pi-shake-branch-")
        })
        .collect();
    assert!(leftovers.is_empty(), "snapshot not removed");
    let next = request_after_compaction(&v, "manual");
    assert!(carries(next, summary));
    // Its ids are the snapshot's lines; each recalls, in the session file, the call it names.
    assert!(!crate::common::listed_ids_recall(&file).is_empty());
    if need_oracle() {
        let o = oracle1(&file, &[]);
        let branch: Vec<&str> = o["branchIds"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(branch.contains(&c["id"].as_str().unwrap()));
        assert!(branch.contains(&target));
    }
}
