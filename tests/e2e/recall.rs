//! `recall`: every pair id a pi-shake summary shows reads back the whole output it cut, as the
//! file stores it; pi-shake's own folds are read through, anyone else's overlays are not; and
//! recall writes nothing.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::common::*;

/// `recall --json`, field for field.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct RecallDoc {
    schema_version: u32,
    path: String,
    reference: String,
    entry_id: String,
    role: String,
    pair_id: Option<String>,
    call_entry_id: Option<String>,
    tool: Option<String>,
    arguments: Option<Value>,
    is_error: bool,
    images: usize,
    edited_by: Option<String>,
    hidden: bool,
    first_line: usize,
    last_line: usize,
    total_lines: usize,
    more: bool,
    line_cut: bool,
    text: String,
}

/// `recall --grep --json`, field for field.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct SearchDoc {
    schema_version: u32,
    path: String,
    reference: Option<String>,
    grep: String,
    calls: Vec<SearchCall>,
    shown: usize,
    unshown: usize,
    more_calls: usize,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct SearchCall {
    entry_id: String,
    role: String,
    pair_id: Option<String>,
    call_entry_id: Option<String>,
    tool: Option<String>,
    arguments: Option<Value>,
    is_error: bool,
    edited_by: Option<String>,
    total_lines: usize,
    hits: Vec<SearchHit>,
    unshown: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchHit {
    line: usize,
    text: String,
}

fn search(args: &[&str]) -> SearchDoc {
    let mut all = vec!["--json", "recall"];
    all.extend_from_slice(args);
    let r = pi_shake(&all);
    assert_eq!(r.code, 0, "{all:?}: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

#[test]
fn grep_finds_every_output_line_holding_a_text_under_its_calls_id() {
    let f = copy_fixture(&fixture("long-session.jsonl"));
    let p = f.to_str().unwrap();
    let all = entries(&f);
    // Every tool result holding the text, any case, in file order (one branch here).
    let holders: Vec<&Value> = all
        .iter()
        .filter(|e| e["message"]["role"] == "toolResult")
        .filter(|e| {
            text_of(&e["message"]["content"])
                .to_lowercase()
                .contains("mod10")
        })
        .collect();
    assert!(holders.len() >= 3);
    let d = search(&["--grep", "MOD10", "--all", p]);
    assert_eq!(d.calls.len(), holders.len());
    assert_eq!((d.unshown, d.more_calls, d.reference), (0, 0, None));
    for (c, e) in d.calls.iter().zip(&holders) {
        assert_eq!(c.entry_id, e["id"].as_str().unwrap());
        let (_, call, result) = pair_of(&all, c.pair_id.as_deref().unwrap());
        assert_eq!(result["id"], e["id"]);
        assert_eq!(c.tool.as_deref(), call["name"].as_str());
        let stored = text_of(&result["message"]["content"]);
        let lines: Vec<&str> = stored.split('\n').collect();
        assert_eq!(c.total_lines, lines.len());
        let want: Vec<usize> = (1..=lines.len())
            .filter(|&i| lines[i - 1].to_lowercase().contains("mod10"))
            .collect();
        let got: Vec<usize> = c.hits.iter().map(|h| h.line).collect();
        assert_eq!(got, want);
        for h in &c.hits {
            assert_eq!(h.text, lines[h.line - 1]);
        }
    }
    // Under a cap: the first lines, and the rest counted, calls past the cap included.
    let capped = search(&["--grep", "mod10", "--limit", "2", p]);
    assert_eq!(capped.shown, 2);
    assert_eq!(capped.shown + capped.unshown, d.shown);
    assert_eq!(capped.more_calls, holders.len() - capped.calls.len());
    // In one call's output only.
    let one = search(&["t19", "--grep", "fn main", p]);
    assert_eq!(one.calls.len(), 1);
    assert_eq!(one.calls[0].pair_id.as_deref(), Some("t19"));
    assert_eq!(one.reference.as_deref(), Some("t19"));
    // Nothing found is not an error.
    let none = search(&["--grep", "no such text anywhere", p]);
    assert!(none.calls.is_empty() && none.unshown == 0);
}

#[test]
fn grep_searches_the_users_shell_commands_but_not_those_kept_out_of_the_context() {
    // Written by the real pi CLI: `!ls -1 && wc -c big.txt`, `!!head -n 400 big.txt` (kept out
    // of the context) and `!cat missing-file.txt`, then tool calls.
    let f = copy_fixture(&fixture("tools-large-output.jsonl"));
    let p = f.to_str().unwrap();
    let all = entries(&f);
    let bash: Vec<&Value> = all
        .iter()
        .filter(|e| e["message"]["role"] == "bashExecution")
        .collect();
    assert_eq!(bash.len(), 3);
    assert_eq!(bash[1]["message"]["excludeFromContext"], Value::Bool(true));
    // A user's command is listed by its entry id; its text is `$ command` and the output, as
    // `recall ENTRY` prints it.
    let d = search(&["--grep", "40740", p]);
    assert_eq!(d.calls.len(), 1, "{d:?}");
    let c = &d.calls[0];
    assert_eq!(c.entry_id, bash[0]["id"].as_str().unwrap());
    assert_eq!(
        (c.role.as_str(), c.pair_id.as_deref(), c.tool.as_deref()),
        ("bashExecution", None, None)
    );
    let whole = recall(&[c.entry_id.as_str(), p]).text;
    let lines: Vec<&str> = whole.split('\n').collect();
    assert_eq!(lines[0], "$ ls -1 && wc -c big.txt");
    assert_eq!(c.total_lines, lines.len());
    assert_eq!(c.hits.len(), 1);
    assert_eq!(c.hits[0].text, lines[c.hits[0].line - 1]);
    assert!(c.hits[0].text.contains("40740 big.txt"));
    // The `!!` command's output (the first lines of big.txt) is not searched; the `read` of
    // big.txt that holds the same line is.
    let excluded = bash[1]["id"].as_str().unwrap();
    assert!(
        bash[1]["message"]["output"]
            .as_str()
            .unwrap()
            .contains("checksum=427799")
    );
    let d = search(&["--grep", "checksum=427799", p]);
    assert!(!d.calls.is_empty());
    assert!(d.calls.iter().all(|c| c.entry_id != excluded), "{d:?}");
    assert!(
        d.calls.iter().all(|c| c.tool.as_deref() == Some("read")),
        "{d:?}"
    );
}

fn recall(args: &[&str]) -> RecallDoc {
    let mut all = vec!["--json", "recall"];
    all.extend_from_slice(args);
    let r = pi_shake(&all);
    assert_eq!(r.code, 0, "{all:?}: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

fn entries(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `(id, kept, total)` of every `(t12; 40 of 900 lines)` call header in `summary`.
fn headers(summary: &str) -> Vec<(String, usize, usize)> {
    let num = |s: &str| s.replace(',', "").parse::<usize>().unwrap();
    let mut out = Vec::new();
    for line in summary.lines().filter(|l| l.starts_with("**")) {
        let Some(open) = line.rfind("(t") else {
            continue;
        };
        let inner = line[open + 1..].trim_end_matches(':').trim_end_matches(')');
        let parts: Vec<&str> = inner.split("; ").collect();
        let Some(counts) = parts.last().and_then(|c| c.strip_suffix(" lines")) else {
            continue;
        };
        let Some((kept, total)) = counts.split_once(" of ") else {
            continue;
        };
        out.push((parts[0].to_string(), num(kept), num(total)));
    }
    out
}

#[test]
fn every_pair_a_summary_names_reads_back_its_whole_stored_output() {
    let f = copy_fixture(&fixture("long-session.jsonl"));
    let r = pi_shake(&["compact", f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let bytes = std::fs::read(&f).unwrap();
    let all = entries(&f);
    let summary = all.last().unwrap()["summary"].as_str().unwrap().to_string();
    let hs = headers(&summary);
    assert!(hs.len() >= 5, "{hs:?}");
    let mut cut = 0;
    for (id, kept, total) in &hs {
        let d = recall(&["--all", id, f.to_str().unwrap()]);
        assert_eq!(d.pair_id.as_deref(), Some(id.as_str()));
        assert_eq!(d.total_lines, *total, "{id}: the summary's line count");
        assert!(!d.more && !d.line_cut && d.first_line == 1);
        // The call on the id's line, its result, and the stored text of that result.
        let (call_entry, call, result) = pair_of(&all, id);
        assert_eq!(d.call_entry_id.as_deref(), call_entry["id"].as_str());
        assert_eq!(d.tool.as_deref(), call["name"].as_str());
        assert_eq!(d.arguments.as_ref(), Some(&call["arguments"]));
        assert_eq!(d.entry_id, result["id"].as_str().unwrap());
        assert_eq!(d.text, text_of(&result["message"]["content"]), "{id}");
        assert_eq!(d.is_error, result["message"]["isError"] == true);
        if kept < total {
            cut += 1;
        }
        // By its result's entry id, the same text and the same pair.
        let by_entry = recall(&["--all", &d.entry_id, f.to_str().unwrap()]);
        assert_eq!((by_entry.text, by_entry.pair_id), (d.text, d.pair_id));
    }
    assert!(cut >= 3, "the summary cut lines of at least three calls");
    assert_eq!(std::fs::read(&f).unwrap(), bytes, "recall writes nothing");
}

#[test]
fn recall_reads_through_pi_shakes_folds_but_not_anyone_elses_overlay() {
    let f = copy_fixture(&fixture("tools-large-output.jsonl"));
    let p = f.to_str().unwrap();
    let stored: Vec<Value> = entries(&f);
    let r = pi_shake(&["shake", "--profile", "aggressive", p]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let status = pi_shake(&["--json", "status", p]).json();
    let folded: Vec<&str> = status["wall"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kinds"][0] == "toolResult")
        .map(|i| i["entryId"].as_str().unwrap())
        .collect();
    assert!(!folded.is_empty());
    for id in &folded {
        let d = recall(&["--all", id, p]);
        let original = stored.iter().find(|e| e["id"] == *id).unwrap();
        assert_eq!(d.text, text_of(&original["message"]["content"]));
        assert!(!d.text.contains("omitted (~"), "not the placeholder");
        assert_eq!(d.edited_by, None);
    }
    // The default window: 2,000 lines at most (pi's read limit), and where to read on.
    let big = folded
        .iter()
        .map(|id| recall(&["--all", id, p]))
        .max_by_key(|d| d.total_lines)
        .unwrap();
    assert!(big.total_lines > 2_000, "{}", big.total_lines);
    let w = recall(&[&big.entry_id, p]);
    assert_eq!((w.first_line, w.last_line, w.more), (1, 2_000, true));
    let rest = recall(&["--offset", "2001", &big.entry_id, p]);
    assert_eq!(rest.first_line, 2_001);
    assert_eq!(format!("{}\n{}", w.text, rest.text), big.text);
    // A search reads the folded outputs too (their stored text, not the placeholder).
    let first = |id: &str| {
        recall(&["--all", id, p])
            .text
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    let line0 = first(folded[0]);
    let found = search(&["--grep", &line0, "--all", p]);
    assert!(
        found.calls.iter().any(|c| c.entry_id == folded[0]),
        "{line0}"
    );
    // An extension redacts one (pi's own SessionManager writes the context_edit): recall shows
    // what the model is allowed to see, not the stored original.
    if need_oracle() {
        pi_op(&f, &["redact", folded[0]]);
        let d = recall(&[folded[0], p]);
        let edit = entries(&f).last().unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(d.edited_by.as_deref(), Some(edit.as_str()));
        assert_eq!(d.text, "[redacted by an extension]");
        assert!(!d.hidden);
        // A search sees the redaction, not the stored text.
        let gone = search(&["--grep", &line0, "--all", p]);
        assert!(!gone.calls.iter().any(|c| c.entry_id == folded[0]));
        let now = search(&["--grep", "REDACTED BY AN EXTENSION", p]);
        assert_eq!(now.calls.len(), 1);
        assert_eq!(now.calls[0].entry_id, folded[0]);
        assert_eq!(now.calls[0].edited_by.as_deref(), Some(edit.as_str()));
    }
}

#[test]
fn a_message_pi_hid_stays_hidden_and_other_messages_read_as_text() {
    // pi's retry hides failed answers with `context_edit` replacement null.
    let f = copy_fixture(&fixture("retry-context-edit.jsonl"));
    let p = f.to_str().unwrap();
    let d = recall(&["c923e66f", p]);
    assert_eq!(
        (
            d.role.as_str(),
            d.hidden,
            d.edited_by.as_deref(),
            d.text.as_str()
        ),
        ("assistant", true, Some("aafb1ead"), "")
    );
    let stored = entries(&f);
    let user = stored.iter().find(|e| e["id"] == "03dd61c5").unwrap();
    let d = recall(&["03dd", p]);
    assert_eq!(d.role, "user");
    assert_eq!(d.text, text_of(&user["message"]["content"]));
    assert_eq!((d.pair_id, d.tool), (None, None));
}

/// What real pi 1.6's SessionManager does to `f` (`scripts/op_fuzz_pi.mjs`): its JSON answer.
fn pi_op(f: &Path, args: &[&str]) -> Value {
    let out = std::process::Command::new("node")
        .arg(root().join("scripts/op_fuzz_pi.mjs"))
        .arg(f)
        .args(args)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["ok"], true, "{args:?}: {v}");
    v
}

#[test]
fn a_summarys_ids_name_the_same_calls_after_pi_copies_the_branch_to_a_new_file() {
    if !need_oracle() {
        return;
    }
    // A session whose user went back with /tree for one turn and then on with the first
    // branch: that turn's lines sit between the branch's.
    let whole = std::fs::read_to_string(fixture("long-session.jsonl")).unwrap();
    let lines: Vec<&str> = whole.lines().collect();
    let third = lines.len() / 3;
    let f = copy_fixture(&fixture("long-session.jsonl"));
    std::fs::write(&f, lines[..third].join("\n") + "\n").unwrap();
    pi_op(&f, &["branch", "3"]);
    let mut text = std::fs::read_to_string(&f).unwrap();
    text.push_str(&(lines[third..].join("\n") + "\n"));
    std::fs::write(&f, text).unwrap();
    age(&f);
    let p = f.to_str().unwrap();
    let r = pi_shake(&["compact", p]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let summary = entries(&f).last().unwrap()["summary"]
        .as_str()
        .unwrap()
        .to_string();
    let hs = headers(&summary);
    assert!(hs.len() >= 5, "{hs:?}");

    // /fork: pi copies the branch to a new file, without the side turn: lines move.
    let dir = f.parent().unwrap().join("forked");
    std::fs::create_dir_all(&dir).unwrap();
    let forked = pi_op(&f, &["fork", dir.to_str().unwrap()])["path"]
        .as_str()
        .unwrap()
        .to_string();
    let fk = Path::new(&forked).to_path_buf();
    let (before, after) = (entries(&f), entries(&fk));
    let moved = hs
        .iter()
        .filter(|(id, _, _)| {
            let line: usize = id[1..].split('_').next().unwrap().parse().unwrap();
            after.get(line - 1).map(|e| &e["id"]) != Some(&before[line - 1]["id"])
        })
        .count();
    assert!(moved >= 3, "the copy moved the lines of {moved} ids");
    for (id, _, total) in &hs {
        let (a, b) = (recall(&["--all", id, p]), recall(&["--all", id, &forked]));
        assert_eq!(b.entry_id, a.entry_id, "{id}");
        assert_eq!((b.text, b.total_lines), (a.text, *total), "{id}");
        assert_eq!((b.tool, b.pair_id), (a.tool, Some(id.clone())), "{id}");
    }
    // A search in the copy names each call by an id that recalls it, or by none when its line
    // id is a summary's for another call (its result's entry id still recalls it).
    let calls = search(&["--grep", "fox", "--all", &forked]).calls;
    let named = calls.iter().filter(|c| c.pair_id.is_some()).count();
    assert!(named * 2 > calls.len(), "{named} of {}", calls.len());
    for c in &calls {
        match &c.pair_id {
            Some(id) => assert_eq!(&recall(&[id, &forked]).entry_id, &c.entry_id, "{id}"),
            None => assert_eq!(recall(&[&c.entry_id, &forked]).pair_id, None),
        }
    }

    // More turns in the copy, and a second compaction there: its own ids are the copy's lines,
    // and one that a carried summary already uses gets a letter.
    for seed in 1..=12 {
        pi_op(&fk, &["turn", &seed.to_string()]);
    }
    age(&fk);
    let r = pi_shake(&["compact", &forked]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let ids = listed_ids_recall(&fk);
    let lettered: Vec<&String> = ids.iter().filter(|i| i.ends_with('b')).collect();
    assert!(!lettered.is_empty(), "this copy reuses a line id: {ids:?}");
    let unique: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "no id names two calls");
    // And in the original file, every id its one summary lists.
    assert!(listed_ids_recall(&f).len() >= hs.len());
}
