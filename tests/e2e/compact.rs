//! compact end to end: real pi loads the result, projects our summary first and continues at
//! our firstKeptEntryId (= pi's own prepareCompaction cut); the context shrinks; user messages
//! survive; a shaken session is compacted from its raw content; folds behind the new boundary
//! are reported as moot.

use serde_json::{Value, json};

use crate::common::*;

fn compact_json(f: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = vec!["compact", "--json"];
    args.extend_from_slice(extra);
    args.push(f.to_str().unwrap());
    let r = pi_shake(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.json()
}

/// Real pi loads `f` and sends exactly `summary` as its compaction summary (when the oracle is
/// installed; [`need_oracle`] fails the run where it must be).
fn assert_pi_sends(f: &std::path::Path, summary: &str) {
    if need_oracle() {
        let after = oracle1(f, &["--messages"]);
        assert_eq!(after["ok"], json!(true), "{}", after["error"]);
        assert_eq!(sent_summary(&after), summary);
    }
}

/// The compaction summary real pi sends (an oracle run with `--messages`).
fn sent_summary(after: &Value) -> String {
    after["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == json!("compactionSummary"))
        .unwrap()["summary"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn compact_every_fixture_matches_pis_cut_and_loads_in_pi() {
    if !need_oracle() {
        return;
    }
    let (mut compacted, mut releases_compacted) = (0, 0);
    // pi 1.6's own files, and older releases' files once pi 1.6 has opened (migrated) them.
    let mut all: Vec<(std::path::PathBuf, std::path::PathBuf)> =
        fixtures("pi").into_iter().map(|f| (f.clone(), f)).collect();
    all.extend(
        release_fixtures()
            .iter()
            .map(|f| (f.clone(), migrated_copy(f))),
    );
    for keep in ["20000", "2000"] {
        for (fx, src) in &all {
            let f = copy_fixture(src);
            let flag = format!("--compaction={keep}");
            let pi_before = &oracle1(&f, &[&flag, "--messages"]);
            let rep = compact_json(&f, &["--keep-recent-tokens", keep]);
            let pi_prep = &pi_before["compaction"];
            if pi_prep.is_null() {
                assert_eq!(
                    rep["compacted"],
                    json!(false),
                    "{}: pi has nothing to compact",
                    fx.display()
                );
                continue;
            }
            assert_eq!(
                rep["firstKeptEntryId"],
                pi_prep["firstKeptEntryId"],
                "{} keep {keep}",
                fx.display()
            );
            assert_eq!(rep["isSplitTurn"], pi_prep["isSplitTurn"]);
            let after = &oracle1(&f, &["--messages"]);
            assert_eq!(
                after["ok"],
                json!(true),
                "{}: {}",
                fx.display(),
                after["error"]
            );
            let rows = after["projection"].as_array().unwrap();
            let entry = rep["entryId"].as_str().unwrap();
            // Our compaction projects first (system replay + summary) …
            let lead: Vec<&Value> = rows
                .iter()
                .take_while(|r| r["entryId"] == json!(entry))
                .collect();
            assert!(
                lead.iter().any(|r| r["role"] == json!("compactionSummary")),
                "{}",
                fx.display()
            );
            // … then continues exactly at the first kept entry.
            assert_eq!(
                rows[lead.len()]["entryId"],
                pi_prep["firstKeptEntryId"],
                "{}",
                fx.display()
            );
            // Smaller than before (pi's pure estimate before vs after).
            let before_est: u64 = pi_before["projection"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["tokens"].as_u64().unwrap())
                .sum();
            let after_ctx = after["contextTokens"].as_u64().unwrap();
            assert!(
                after_ctx < before_est,
                "{}: {after_ctx} !< {before_est}",
                fx.display()
            );
            // Every user message of the region survives (its head, verbatim: at least the 30-char
            // window of the deepest level that keeps every user message).
            let summary = sent_summary(after);
            assert!(
                !summary.contains(" omitted (~") || summary.contains("[image"),
                "placeholder in summary"
            );
            for m in pi_before["messages"].as_array().unwrap() {
                if m["role"] != json!("user") {
                    continue;
                }
                let text = match &m["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(a) => a
                        .iter()
                        .filter_map(|b| b["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                let head: String = text.chars().take(25).collect();
                let kept_ids: Vec<&Value> = rows.iter().map(|r| &r["entryId"]).collect();
                let _ = kept_ids;
                if !head.trim().is_empty()
                    && !after["messages"].as_array().unwrap().iter().any(|k| {
                        k["role"] == json!("user")
                            && k["content"]
                                .to_string()
                                .contains(&head.replace('"', "\\\"")[..head.len().min(20)])
                    })
                {
                    assert!(
                        summary.contains(head.lines().next().unwrap_or("")),
                        "{}: user message lost: {head:?}",
                        fx.display()
                    );
                }
            }
            compacted += 1;
            releases_compacted += usize::from(fx != src);
        }
    }
    assert!(compacted >= 6, "only {compacted} compactions");
    // 3 at 20,000 recent tokens and 11 at 2,000, over all six releases.
    assert!(
        releases_compacted >= 14,
        "only {releases_compacted} compactions of older releases' files"
    );
}

#[test]
fn compacting_a_shaken_session_reads_raw_content_and_reports_moot_folds() {
    let f = copy_fixture(&root().join("sessions-fixtures/pi/tools-large-output.jsonl"));
    let fs = f.to_str().unwrap();
    let r = pi_shake(&["shake", "--profile", "aggressive", fs]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rep = compact_json(&f, &["--keep-recent-tokens", "2000"]);
    assert_eq!(rep["dryRun"], json!(false));
    let st = pi_shake(&["status", "--json", fs]).json();
    assert!(st["wall"]["moot"].as_u64().unwrap() > 0, "{}", st["wall"]);
    let text = std::fs::read_to_string(&f).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], json!("compaction"));
    assert_eq!(last["fromHook"], json!(true));
    let summary = last["summary"].as_str().unwrap();
    assert!(
        !summary.contains("output omitted (~"),
        "compact must read through pi-shake's folds"
    );
    assert!(
        last["details"]["scorer"]
            .as_str()
            .unwrap()
            .contains("heuristic")
    );
    if need_oracle() {
        assert_eq!(oracle1(&f, &[])["ok"], json!(true));
    }
}

#[test]
fn summary_out_previews_what_a_run_writes() {
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    let fs = f.to_str().unwrap();
    let before = std::fs::read(&f).unwrap();
    let preview = f.with_extension("preview.md");
    let a = compact_json(
        &f,
        &["--dry-run", "--summary-out", preview.to_str().unwrap()],
    );
    // The session is untouched; the file holds the summary the report measures.
    assert_eq!(std::fs::read(&f).unwrap(), before);
    let text = std::fs::read_to_string(&preview).unwrap();
    assert!(
        text.starts_with("# Session history before this point (pruned by pi-shake "),
        "{text}"
    );
    assert_eq!(
        a["budget"]["achieved"].as_u64().unwrap(),
        (text.encode_utf16().count() as u64).div_ceil(4),
        "{}",
        a["budget"]
    );
    // A file that cannot be written is an error, and the session is not touched.
    let r = pi_shake(&["compact", "--summary-out", "/nonexistent-dir/x.md", fs]);
    assert_ne!(r.code, 0);
    assert!(
        r.stderr
            .contains("cannot write the summary to /nonexistent-dir/x.md"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read(&f).unwrap(), before);
    // A real run writes exactly the previewed summary.
    let written = f.with_extension("written.md");
    let r = pi_shake(&["compact", "--summary-out", written.to_str().unwrap(), fs]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let last: Value =
        serde_json::from_str(std::fs::read_to_string(&f).unwrap().lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], json!("compaction"));
    assert_eq!(last["summary"].as_str().unwrap(), text);
    assert_eq!(std::fs::read_to_string(&written).unwrap(), text);
    // --emit-json prints the summary itself; the two do not combine.
    let r = pi_shake(&["compact", "--emit-json", "--summary-out", "x.md", fs]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn dry_run_writes_nothing_and_scores_replay() {
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    let fs = f.to_str().unwrap();
    let before = std::fs::read(&f).unwrap();
    let scores = f.with_extension("scores.jsonl");
    let a = compact_json(&f, &["--dry-run", "--scores-out", scores.to_str().unwrap()]);
    assert_eq!(std::fs::read(&f).unwrap(), before);
    assert!(a["batches"].as_u64().unwrap() >= 1);
    let b = compact_json(
        &f,
        &[
            "--dry-run",
            "--scorer",
            "replay",
            "--scores-in",
            scores.to_str().unwrap(),
        ],
    );
    let key = |v: &Value| -> Vec<Value> {
        v["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| json!([p["id"], p["action"], p["useful"], p["full"]]))
            .collect()
    };
    assert_eq!(key(&a), key(&b), "replayed scores give the same plan");
    assert!(
        b["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["source"] == json!("replay"))
    );
    assert_eq!(std::fs::read(&f).unwrap(), before);
    // A network scorer's dry run sends nothing and needs no key.
    let j = pi_shake_env(
        &["compact", "--dry-run", "--json", "--scorer", "jev", fs],
        &[("PI_SHAKE_JEV_API_KEY", ""), ("TYPESAFE_API_KEY", "")],
    );
    assert_eq!(j.code, 0, "{}", j.stderr);
    assert_eq!(std::fs::read(&f).unwrap(), before);
}

#[test]
fn dropped_calls_leave_one_line_per_run_or_breadcrumbs_behind_a_flag() {
    let last_summary = |extra: &[&str]| -> String {
        let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
        let mut args = vec!["compact", "--target-ratio", "0.05"];
        args.extend_from_slice(extra);
        args.push(f.to_str().unwrap());
        let r = pi_shake(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.starts_with("Compacted "), "{}", r.stdout);
        let text = std::fs::read_to_string(&f).unwrap();
        let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(last["type"], json!("compaction"));
        if need_oracle() {
            assert_eq!(oracle1(&f, &[])["ok"], json!(true));
        }
        last["summary"].as_str().unwrap().to_string()
    };
    let plain = last_summary(&[]);
    assert!(
        !plain.contains("- dropped: "),
        "no per-call lines by default"
    );
    let crumbs = last_summary(&["--breadcrumbs"]);
    let listed = crumbs
        .lines()
        .filter(|l| l.starts_with("- dropped: **"))
        .count();
    assert!(listed > 0, "{crumbs}");
    assert!(!crumbs.contains("tool calls dropped:"));
}

/// A real pi-mono fixture's first `lines` lines, written (and aged) under a temp dir.
fn pi_mono_prefix(fixture: &str, lines: usize, tag: &str) -> std::path::PathBuf {
    let src =
        std::fs::read_to_string(root().join("sessions-fixtures/pi-mono").join(fixture)).unwrap();
    let prefix: String = src.lines().take(lines).map(|l| format!("{l}\n")).collect();
    let f = temp_dir(tag).join("prefix.jsonl");
    std::fs::write(&f, prefix).unwrap();
    age(&f);
    f
}

/// The summary of the compaction `f` ends with.
fn last_compaction_summary(f: &std::path::Path) -> String {
    last_compaction(f)["summary"].as_str().unwrap().to_string()
}

/// The file's last line, a compaction.
fn last_compaction(f: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(f).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], json!("compaction"));
    last
}

/// Each line of `summary` starting with `label`, with the line above it (its call line);
/// a fence opens right under each.
fn labelled_blocks<'a>(summary: &'a str, label: &str) -> Vec<(&'a str, &'a str)> {
    let lines: Vec<&str> = summary.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with(label) {
            assert!(lines[i + 1].starts_with("```"), "{}", lines[i + 1]);
            out.push((lines[i - 1], *l));
        }
    }
    out
}

#[test]
fn under_a_budget_an_edits_new_text_competes_and_pi_sends_it() {
    // A real pi-mono session up to a user message before its own compaction.
    let f = pi_mono_prefix("session.jsonl", 321, "new-text");
    let rep = compact_json(&f, &["--target-ratio", "0.30"]);
    assert_eq!(rep["compacted"], json!(true), "{rep}");
    let summary = last_compaction_summary(&f);
    // Edit pins keep lines of their new text right under their call line, never heads.
    let blocks = labelled_blocks(&summary, "New text, ");
    for (call, l) in &blocks {
        assert!(
            call.starts_with("**edit**") || call.starts_with("**write**"),
            "{call}"
        );
        assert!(l.contains(" of ") || l.contains("verbatim"), "{l}");
    }
    assert!(!blocks.is_empty(), "{summary}");
    assert!(!summary.contains("Old ("));
    // `details` counts the kept lines of each edit's new text.
    let pins: Vec<&Value> = rep["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["pin"] == json!("editWrite"))
        .collect();
    assert!(
        pins.iter().any(|p| p["lines"][0].as_u64().unwrap_or(0) > 0),
        "{pins:?}"
    );
    // Real pi loads it and sends exactly this summary first.
    assert_pi_sends(&f, &summary);
}

#[test]
fn under_a_budget_a_scripts_lines_show_under_its_call_and_pi_sends_them() {
    // A real pi-mono session up to a user message after fifteen multi-line `sed` scripts.
    let f = pi_mono_prefix("before-compaction.jsonl", 706, "scripts");
    // The human report counts the scripts' lines beside the outputs'.
    let dry = pi_shake(&[
        "compact",
        "--dry-run",
        "--target-ratio",
        "0.30",
        f.to_str().unwrap(),
    ]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(
        dry.stdout.contains(" lines of multi-line commands, "),
        "{}",
        dry.stdout
    );
    // And the lines of the shell commands the user ran (`!ls`, `!npm run check`), which compete
    // with them.
    assert!(
        dry.stdout
            .contains(" lines of other outputs (`!` commands, results without their call)."),
        "{}",
        dry.stdout
    );
    let rep = compact_json(&f, &["--target-ratio", "0.30"]);
    assert_eq!(rep["compacted"], json!(true), "{rep}");
    let summary = last_compaction_summary(&f);
    // Each `Command` block sits right under a bash call line that names the rest it shows,
    // and holds lines of that script, verbatim.
    let blocks = labelled_blocks(&summary, "Command, ");
    for (call, l) in &blocks {
        assert!(
            call.starts_with("**bash**") && call.contains(" lines)`"),
            "{call}"
        );
        assert!(l.ends_with("more lines:"), "{l}");
    }
    assert!(!blocks.is_empty(), "{summary}");
    assert!(summary.contains("sed -i '' 's|from \""), "{summary}");
    // `details` counts them per pair.
    let counted: Vec<&Value> = rep["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["commandLines"][0].as_u64().unwrap_or(0) > 0)
        .collect();
    assert_eq!(counted.len(), blocks.len(), "{counted:?}");
    let sum = |k: usize| -> u64 {
        rep["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["commandLines"][k].as_u64())
            .sum()
    };
    assert_eq!(
        rep["budget"]["commandLines"],
        json!([sum(0), sum(1)]),
        "{}",
        rep["budget"]
    );
    // Real pi loads it and sends exactly this summary first.
    assert_pi_sends(&f, &summary);
}

#[test]
fn a_summary_larger_than_any_context_the_session_sent_is_warned_about_and_written() {
    // A real pi-mono prefix whose recorded usage says the model was only ever sent ~30,000
    // tokens (as if its outputs had grown without being sent).
    let f = pi_mono_prefix("session.jsonl", 321, "over-sent");
    let text: String = std::fs::read_to_string(&f)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["message"]["usage"].is_object() {
                v["message"]["usage"] = json!({"input": 30_000, "output": 0, "cacheRead": 0,
                    "cacheWrite": 0, "totalTokens": 30_000});
            }
            format!("{v}\n")
        })
        .collect();
    std::fs::write(&f, text).unwrap();
    age(&f);
    let warning = "larger than any this session has sent its model (~30,000 tokens";
    // The dry run's human output says it, with the flags that fit it.
    let dry = pi_shake(&[
        "compact",
        "--dry-run",
        "--target-ratio",
        "0.9",
        f.to_str().unwrap(),
    ]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(dry.stdout.contains(warning), "{}", dry.stdout);
    assert!(
        dry.stdout.contains("--max-summary-tokens fits it"),
        "{}",
        dry.stdout
    );
    // A real run writes the compaction anyway and lists the warning in --json.
    let rep = compact_json(&f, &["--target-ratio", "0.9"]);
    assert_eq!(rep["compacted"], json!(true), "{rep}");
    let warnings = rep["warnings"].to_string();
    assert!(warnings.contains(warning), "{warnings}");
    if need_oracle() {
        let after = oracle1(&f, &["--messages"]);
        assert_eq!(after["ok"], json!(true), "{}", after["error"]);
    }
}

#[test]
fn under_a_budget_the_users_shell_commands_compete_for_lines_and_pi_sends_them() {
    // A session the real pi CLI wrote with `!ls -1 && wc -c big.txt`, `!cat missing-file.txt`
    // and a `!!` command pi keeps out of the context.
    let f = copy_fixture(&fixture("tools-large-output.jsonl"));
    let rep = compact_json(
        &f,
        &["--keep-recent-tokens", "2000", "--target-ratio", "0.05"],
    );
    assert_eq!(rep["compacted"], json!(true), "{rep}");
    let summary = last_compaction_summary(&f);
    // The listing's five plain lines lost to the tool outputs' lines; its header names the entry
    // that reads it back.
    let head = "### User ran a shell command\n\n`ls -1 && wc -c big.txt` (";
    let at = summary.find(head).unwrap_or_else(|| panic!("{summary}"));
    let note = summary[at + head.len()..].split(')').next().unwrap();
    let (entry, rest) = note.split_once("; ").unwrap();
    assert_eq!(rest, "output of 5 lines not kept", "{summary}");
    let r = pi_shake(&["recall", entry, f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("big.txt"), "{}", r.stdout);
    // The failing `cat`'s one line is worth its room: kept whole, so no note.
    assert!(
        summary.contains(
            "`cat missing-file.txt`\n\n```\ncat: missing-file.txt: No such file or directory"
        ),
        "{summary}"
    );
    // `!!` output is not the model's, so not the summary's.
    assert!(!summary.contains("checksum=427799"), "{summary}");
    let lines = &rep["budget"]["otherOutputLines"];
    assert!(
        lines[0].as_u64().unwrap() >= 1 && lines[1].as_u64().unwrap() >= 7,
        "{}",
        rep["budget"]
    );
    // One by one in `budget.otherOutputs`, summing to the count: the listing by the entry its
    // header names, none of its 5 lines kept, and nothing ran it again.
    let others = rep["budget"]["otherOutputs"].as_array().unwrap();
    let sum = |i: usize| {
        others
            .iter()
            .map(|o| o["lines"][i].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(json!([sum(0), sum(1)]), *lines, "{others:?}");
    let listing = others
        .iter()
        .find(|o| o["entryId"] == json!(entry))
        .unwrap();
    assert_eq!(
        *listing,
        json!({"entryId": entry, "kind": "command", "lines": [0, 5], "factor": 1.0, "why": []})
    );
    assert_eq!(
        rep["budget"],
        last_compaction(&f)["details"]["budget"],
        "details carry the same budget"
    );
    assert_pi_sends(&f, &summary);
}
