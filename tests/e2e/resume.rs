//! The REAL pi CLI resumes sessions pi-shake changed, against the scripted mock model, and the
//! chat-completions request pi sends carries exactly what pi-shake planned.
//!
//! Needs Node 22 + pi 1.6.0 from `tests/interop/gen` (`scripts/test.sh` installs them); without
//! them every test here fails, saying how to install them. Only `PI_SHAKE_SKIP_INTEROP=1` skips
//! (and the skip is counted in the run's summary). `resume-check.mjs` works on a copy of the
//! session, so the files pi-shake wrote are never touched by pi.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is the failure report

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use crate::common::{
    age, assert_projection_matches_pi, copy_fixture, gen_dir, need_pi_cli, node22, oracle1,
    orphaned_session, pi_shake, root, run_json, text_of, tokens_by_entry,
};

const PROMPT: &str = "Continue with the next step.";
const COMPACTION_PREFIX: &str = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";

/// Whether to run (see [`need_pi_cli`]).
fn available() -> bool {
    need_pi_cli("real pi CLI resume")
}

/// Resume `session` with the real pi CLI against the mock; the first request pi sent.
fn resume(session: &Path) -> Value {
    resume_with(session, &[])
}

/// [`resume`] with extra `resume-check.mjs` flags (`--keep`: keep the copy pi wrote to).
fn resume_with(session: &Path, flags: &[&str]) -> Value {
    let (out, v) = run_json(
        Command::new(node22())
            .arg(gen_dir().join("resume-check.mjs"))
            .arg("--session")
            .arg(session)
            .arg("--prompt")
            .arg(PROMPT)
            .args(flags),
        "resume-check.mjs",
    );
    assert!(
        out.status.success() && v["ok"] == true,
        "pi could not resume {}: {v:#}",
        session.display()
    );
    assert_eq!(
        v["kind"], "turn",
        "the first request must be the turn, not a summarization"
    );
    let msgs = v["messages"].as_array().expect("messages");
    assert_eq!(msgs[0]["role"], "system");
    assert_eq!(
        text_of(&msgs[msgs.len() - 1]["content"]),
        PROMPT,
        "the request must end with the new prompt"
    );
    v
}

/// The untouched fixture's request, resumed once per test run.
fn original_request(name: &str) -> &'static Value {
    static CACHE: OnceLock<std::sync::Mutex<HashMap<String, &'static Value>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(name.to_string()).or_insert_with(|| {
        let v = resume(&root().join("sessions-fixtures/pi").join(name));
        Box::leak(Box::new(v))
    })
}

/// The request's messages without the system prompt (whose only session-dependent part is the
/// scratch cwd and date).
fn conversation(req: &Value) -> Vec<Value> {
    req["messages"].as_array().unwrap()[1..].to_vec()
}

/// The entries of a file, skipping lines that do not parse (as pi does).
fn read_lines(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The `context_edit` entries appended after the first `skip` lines: target id -> replacement.
fn appended_edits(p: &Path, skip: usize) -> HashMap<String, Value> {
    read_lines(p)
        .into_iter()
        .skip(skip)
        .filter(|e| e["type"] == "context_edit")
        .map(|e| {
            (
                e["targetId"].as_str().unwrap().to_string(),
                e["replacement"].clone(),
            )
        })
        .collect()
}

/// Shake a fresh copy of tools-large-output.jsonl (elide scope); the copy and the fold ids.
fn shaken_copy() -> (PathBuf, Vec<Value>, HashSet<String>) {
    shaken_copy_of(&root().join("sessions-fixtures/pi/tools-large-output.jsonl"))
}

/// Shake a fresh copy of `fixture` (elide scope); the copy, the original entries, the fold ids.
fn shaken_copy_of(fixture: &Path) -> (PathBuf, Vec<Value>, HashSet<String>) {
    let original = read_lines(fixture);
    let f = copy_fixture(fixture);
    let r = pi_shake(&["shake", "--scope", "elide", "--json", f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "shake failed: {}", r.stderr);
    let folded: HashSet<String> = r.json()["folds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["entryId"].as_str().unwrap().to_string())
        .collect();
    assert!(!folded.is_empty(), "shake folded nothing");
    (f, original, folded)
}

#[test]
fn shaken_session_resumes_with_the_planned_placeholders() {
    if !available() {
        return;
    }
    let (shaken, original, folded) = shaken_copy();
    check_shaken(
        original_request("tools-large-output.jsonl"),
        &shaken,
        &original,
        &folded,
    );
}

/// The shaken file resumes with exactly the request of the original (`before`), each folded
/// message's content replaced by the planned placeholder, and nothing else changed.
fn check_shaken(before: &Value, shaken: &Path, original: &[Value], folded: &HashSet<String>) {
    let edits = appended_edits(shaken, original.len());
    assert_eq!(
        &edits.keys().cloned().collect::<HashSet<_>>(),
        folded,
        "one context_edit per fold"
    );

    // What pi-shake planned: the original request with each folded message's content replaced.
    let by_id: HashMap<&str, &Value> = original
        .iter()
        .filter_map(|e| Some((e["id"].as_str()?, e)))
        .collect();
    let mut tool_edits: HashMap<String, (String, String)> = HashMap::new(); // call id -> (placeholder, original)
    let mut user_edits: Vec<(Value, Value)> = Vec::new(); // (original content, replacement content)
    for (target, replacement) in &edits {
        let msg = &by_id[target.as_str()]["message"];
        let content = &replacement["content"];
        match msg["role"].as_str().unwrap() {
            "toolResult" => {
                let placeholder = text_of(content);
                assert!(
                    placeholder.starts_with('[') && placeholder.contains(" output omitted (~"),
                    "unexpected tool-result placeholder {placeholder:?}"
                );
                tool_edits.insert(
                    msg["toolCallId"].as_str().unwrap().to_string(),
                    (placeholder, text_of(&msg["content"])),
                );
            }
            "user" => user_edits.push((msg["content"].clone(), content.clone())),
            role => panic!("unexpected folded role {role}"),
        }
    }
    assert!(!tool_edits.is_empty(), "no tool result was folded");

    let after = resume(shaken);
    let mut expected = conversation(before);
    let mut hits = 0;
    for m in &mut expected {
        let planned = match m["role"].as_str() {
            Some("tool") => m["tool_call_id"]
                .as_str()
                .and_then(|id| tool_edits.get(id))
                .map(|(placeholder, _)| Value::String(placeholder.clone())),
            Some("user") => user_edits
                .iter()
                .find(|(orig, _)| text_of(orig) == text_of(&m["content"]))
                .map(|(_, replacement)| replacement.clone()),
            _ => None,
        };
        if let Some(content) = planned {
            m["content"] = content;
            hits += 1;
        }
    }
    assert_eq!(
        hits,
        edits.len(),
        "every folded entry is a message of the request"
    );
    let got = conversation(&after);
    assert_eq!(got.len(), expected.len(), "same number of messages");
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(g, e, "request message {i} differs from the plan");
    }

    // The placeholders are there, the large originals are not.
    let body = serde_json::to_string(&after["messages"]).unwrap();
    let body_before = serde_json::to_string(&before["messages"]).unwrap();
    for (call, (placeholder, orig)) in &tool_edits {
        let m = got
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == call.as_str())
            .unwrap();
        assert_eq!(m["content"], placeholder.as_str());
        assert!(orig.len() > 1000, "{call}: folded output is large");
        let needle = serde_json::to_string(prefix(orig, 2000)).unwrap();
        assert!(
            body_before.contains(needle.trim_matches('"')),
            "{call}: the original output reaches the model before shaking"
        );
        assert!(
            !body.contains(needle.trim_matches('"')),
            "{call}: the original output still reaches the model"
        );
    }
    let (b, a) = (
        before["requestBytes"].as_u64().unwrap(),
        after["requestBytes"].as_u64().unwrap(),
    );
    assert!(a < b, "the request must shrink: {b} -> {a} bytes");
    eprintln!(
        "shake: request {b} -> {a} bytes, {} placeholders",
        edits.len()
    );
}

#[test]
fn undone_session_resumes_with_the_original_outputs() {
    if !available() {
        return;
    }
    let (shaken, original, _) = shaken_copy();
    age(&shaken);
    let r = pi_shake(&["undo", "--json", shaken.to_str().unwrap()]);
    assert_eq!(r.code, 0, "undo failed: {}{}", r.stdout, r.stderr);
    assert!(
        read_lines(&shaken).len() > original.len(),
        "shake and undo appended entries"
    );

    let before = original_request("tools-large-output.jsonl");
    let after = resume(&shaken);
    let tools = |req: &Value| -> Vec<Value> {
        conversation(req)
            .into_iter()
            .filter(|m| m["role"] == "tool")
            .collect()
    };
    let (t_before, t_after) = (tools(before), tools(&after));
    assert!(!t_before.is_empty());
    assert_eq!(
        t_after, t_before,
        "tool messages after undo must equal the original ones"
    );
    assert_eq!(
        conversation(&after),
        conversation(before),
        "the whole conversation after undo must equal the original one"
    );
}

#[test]
fn compacted_session_resumes_with_our_summary() {
    if !available() {
        return;
    }
    let fixture = root().join("sessions-fixtures/pi/long-session.jsonl");
    let original = read_lines(&fixture);
    let f = copy_fixture(&fixture);
    let r = pi_shake(&["compact", "--json", f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "compact failed: {}{}", r.stdout, r.stderr);
    check_compacted(&original, &f, original_request("long-session.jsonl"));
}

/// `pi -p "…" && pi-shake shake SESSION` in a script: pi has just written the session and
/// exited, so pi-shake appends without `--force`, and real pi reads the result.
#[test]
fn pi_then_pi_shake_in_a_script_needs_no_force() {
    if !available() {
        return;
    }
    let f = copy_fixture(&root().join("sessions-fixtures/pi/tools-large-output.jsonl"));
    let v = resume_with(&f, &["--keep"]);
    let session = PathBuf::from(v["sessionCopy"].as_str().unwrap());
    let scratch = PathBuf::from(v["scratch"].as_str().unwrap());
    assert!(
        v["appendedLines"].as_u64().unwrap() > 0,
        "pi wrote its turn"
    );
    let before = std::fs::read(&session).unwrap();
    let age = std::fs::metadata(&session)
        .unwrap()
        .modified()
        .unwrap()
        .elapsed()
        .unwrap_or_default();
    let r = pi_shake(&["shake", "--json", session.to_str().unwrap()]);
    assert!(
        age.as_secs() < 5,
        "pi wrote the session {age:?} before pi-shake ran"
    );
    assert_eq!(r.code, 0, "refused right after pi exited: {}", r.stderr);
    assert!(r.json()["writtenEntries"].as_u64().unwrap() > 0);
    let after = std::fs::read(&session).unwrap();
    assert!(after.len() > before.len() && after.starts_with(&before));
    assert_projection_matches_pi(&session);
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The orphaned session (a malformed line far before the latest compaction's kept range): pi's
/// view of it, checked once, and the request pi sends when resuming it untouched.
fn orphaned() -> (PathBuf, &'static Value) {
    static REQUEST: OnceLock<Value> = OnceLock::new();
    let (f, orphan) = orphaned_session();
    let st = pi_shake(&["status", "--json", f.to_str().unwrap()]).json();
    let dangling: Vec<&Value> = st["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["code"] == "dangling-parent")
        .collect();
    assert_eq!(dangling.len(), 1, "{:#}", st["problems"]);
    assert_eq!(dangling[0]["severity"], "warning");
    assert!(
        dangling[0]["message"]
            .as_str()
            .unwrap()
            .contains("pi's context is not affected"),
        "{}",
        dangling[0]["message"]
    );
    assert_eq!(st["writable"], true);
    let pi = assert_projection_matches_pi(&f).unwrap();
    assert_eq!(
        pi["branchIds"][0].as_str(),
        Some(orphan.as_str()),
        "pi's branch starts at the orphan"
    );
    let req = REQUEST.get_or_init(|| resume(&f));
    (f, req)
}

#[test]
fn orphaned_session_is_shaken_and_pi_sends_our_placeholders() {
    if !available() {
        return;
    }
    let (f, before) = orphaned();
    let (shaken, original, folded) = shaken_copy_of(&f);
    let pi_before = oracle1(&f, &[]);
    let pi_after = assert_projection_matches_pi(&shaken).unwrap();
    // Our overlays apply in pi's projection: every folded entry shrinks, nothing else changes.
    let (rb, ra) = (tokens_by_entry(&pi_before), tokens_by_entry(&pi_after));
    assert_eq!(rb.keys().collect::<HashSet<_>>(), ra.keys().collect());
    for (id, t) in &rb {
        if folded.contains(id) {
            assert!(ra[id] < *t, "{id}: folded but pi still counts {t} tokens");
        } else {
            assert_eq!(ra[id], *t, "{id}: not folded but changed");
        }
    }
    check_shaken(before, &shaken, &original, &folded);
}

#[test]
fn orphaned_session_is_undone_and_pi_sends_the_original() {
    if !available() {
        return;
    }
    let (f, before) = orphaned();
    let (shaken, original, _) = shaken_copy_of(&f);
    let r = pi_shake(&["undo", "--json", shaken.to_str().unwrap()]);
    assert_eq!(r.code, 0, "undo failed: {}{}", r.stdout, r.stderr);
    assert!(r.json()["restored"].as_u64().unwrap() > 0);
    assert!(read_lines(&shaken).len() > original.len());
    let pi_after = assert_projection_matches_pi(&shaken).unwrap();
    assert_eq!(
        pi_after["projection"],
        oracle1(&f, &[])["projection"],
        "after undo pi projects the original again"
    );
    assert_eq!(
        conversation(&resume(&shaken)),
        conversation(before),
        "after undo pi sends the original conversation"
    );
}

#[test]
fn orphaned_session_is_compacted_and_pi_sends_our_summary() {
    if !available() {
        return;
    }
    let (f, before) = orphaned();
    let original = read_lines(&f);
    // ~23k tokens in context: keep 8,000 so that there is something to compact.
    let pi_cut = oracle1(&f, &["--compaction=8000"])["compaction"].clone();
    let r = pi_shake(&[
        "compact",
        "--keep-recent-tokens",
        "8000",
        "--json",
        f.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "compact failed: {}{}", r.stdout, r.stderr);
    let doc = r.json();
    assert_eq!(doc["compacted"], true, "{doc:#}");
    let id = doc["entryId"].as_str().unwrap();
    // The cut on the orphaned branch is pi's own.
    assert_eq!(doc["keepRecentTokens"], 8000);
    assert_eq!(
        doc["firstKeptEntryId"], pi_cut["firstKeptEntryId"],
        "{pi_cut:#}"
    );
    assert_eq!(doc["isSplitTurn"], pi_cut["isSplitTurn"]);
    let pi_after = assert_projection_matches_pi(&f).unwrap();
    assert_eq!(
        pi_after["projection"][0]["entryId"].as_str(),
        Some(id),
        "pi's context now starts with our compaction"
    );
    check_compacted(&original, &f, before);
}

/// The compacted file resumes as: system, pi's summary message holding the appended compaction
/// entry's `summary`, then exactly the kept messages of the original request, then the prompt.
fn check_compacted(original: &[Value], compacted: &Path, before: &Value) {
    let appended: Vec<Value> = read_lines(compacted)
        .into_iter()
        .skip(original.len())
        .collect();
    let compaction = appended
        .iter()
        .rev()
        .find(|e| e["type"] == "compaction")
        .expect("an appended compaction entry");
    let summary = compaction["summary"].as_str().unwrap();
    let first_kept = compaction["firstKeptEntryId"].as_str().unwrap();

    let after = resume(compacted);
    let got = conversation(&after);
    assert_eq!(got[0]["role"], "user");
    assert_eq!(
        text_of(&got[0]["content"]),
        format!("{COMPACTION_PREFIX}{summary}\n</summary>"),
        "pi must send our summary"
    );

    // Kept messages: the original context entries from firstKeptEntryId on (linear session, one
    // request message per entry).
    let start = original
        .iter()
        .position(|e| e["id"] == first_kept)
        .expect("firstKeptEntryId is an entry of the original file");
    let kept = original[start..]
        .iter()
        .filter(|e| match e["type"].as_str() {
            Some("message") => e["message"]["excludeFromContext"] != true,
            Some("custom_message") | Some("branch_summary") => true,
            _ => false,
        })
        .count();
    assert!(kept > 0, "compaction keeps something");
    let want = conversation(before);
    let tail = &got[1..];
    assert_eq!(tail.len(), kept + 1, "kept messages + the prompt");
    assert!(tail.len() < want.len(), "the compacted request is shorter");
    assert_eq!(
        tail,
        &want[want.len() - tail.len()..],
        "after the summary pi sends exactly the kept messages of the original"
    );
    let (b, a) = (
        before["requestBytes"].as_u64().unwrap(),
        after["requestBytes"].as_u64().unwrap(),
    );
    assert!(a < b, "the request must shrink: {b} -> {a} bytes");
    eprintln!(
        "compact: request {b} -> {a} bytes, summary {} chars, {kept} kept messages",
        summary.len()
    );
}

/// At most `n` bytes of `s`, cut at a char boundary.
fn prefix(s: &str, n: usize) -> &str {
    let end = (0..=n.min(s.len()))
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0);
    &s[..end]
}
