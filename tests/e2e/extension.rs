//! pi-shake inside pi (issue 15): the binary's side of the protocol (`version --json`,
//! `compact --emit-json`), and the extension in `integrations/pi-shake/` driven end to end with the
//! REAL pi 1.6 CLI in RPC mode against the scripted mock model on 127.0.0.1
//! (`integrations/pi-shake/test/drive.mjs`).
//!
//! The real-pi tests need Node 22 and the pi CLI from `tests/interop/gen` (`npm ci` there); they
//! fail when those are missing unless `PI_SHAKE_SKIP_INTEROP=1`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{
    assert_pi_loads, assert_projection_matches_pi, copy_fixture, need_oracle, need_pi_cli,
    need_pi_releases, node22, oracle1, pi_release, pi_shake, root, run_json, temp_dir,
};

const COMPACTION_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:";

// ---------------------------------------------------------------------------------------------
// The binary's side
// ---------------------------------------------------------------------------------------------

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
    std::fs::OpenOptions::new()
        .append(true)
        .open(&f)
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
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

// ---------------------------------------------------------------------------------------------
// The extension in the real pi CLI
// ---------------------------------------------------------------------------------------------

/// Whether to run (see [`need_pi_cli`]).
fn pi_cli() -> bool {
    need_pi_cli("real pi CLI with the extension")
}

/// One scenario of `integrations/pi-shake/test/drive.mjs`: its report and its work dir.
fn drive(scenario: &str) -> (Value, PathBuf) {
    drive_with(scenario, &[])
}

/// [`drive`] with more arguments for the driver (`--cli` of another pi release).
fn drive_with(scenario: &str, extra: &[&str]) -> (Value, PathBuf) {
    let work = temp_dir(&format!("ext-{scenario}")).join("work");
    let (out, v) = run_json(
        Command::new(node22())
            .arg(root().join("integrations/pi-shake/test/drive.mjs"))
            .args([
                "--scenario",
                scenario,
                "--bin",
                env!("CARGO_BIN_EXE_pi-shake"),
            ])
            .arg("--work")
            .arg(&work)
            .args(extra),
        "drive.mjs",
    );
    assert!(
        out.status.success() && v["ok"] == true,
        "scenario {scenario} failed: {v:#}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["unexpectedRequests"], 0, "the mock ran out of replies");
    assert_eq!(v["exit"]["code"], 0, "pi exited with an error");
    (v, work)
}

fn lines(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn session_of(v: &Value) -> PathBuf {
    PathBuf::from(v["sessionFile"].as_str().unwrap())
}

/// Text of a chat-completions message's `content` (string or parts).
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn requests(v: &Value) -> &Vec<Value> {
    v["requests"].as_array().unwrap()
}

fn mark(v: &Value, name: &str) -> usize {
    v["marks"][name].as_u64().unwrap() as usize
}

/// Whether a request carries `needle` in any message.
fn carries(req: &Value, needle: &str) -> bool {
    req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| text_of(&m["content"]).contains(needle))
}

/// Tool results of a request: tool_call_id -> text.
fn tool_results(req: &Value) -> HashMap<String, String> {
    req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_string(),
                text_of(&m["content"]),
            )
        })
        .collect()
}

/// pi's SessionManager loads the file and every entry is on the active branch (nothing stranded).
fn assert_all_on_branch(file: &Path) {
    assert_pi_loads(&[file.to_path_buf()]);
    if !need_oracle() {
        return;
    }
    let o = oracle1(file, &[]);
    let branch: HashSet<&str> = o["branchIds"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for e in lines(file).iter().skip(1) {
        let id = e["id"].as_str().unwrap();
        assert!(
            branch.contains(id),
            "entry {id} ({}) is not on pi's active branch",
            e["type"]
        );
    }
    assert_eq!(o["entryCount"].as_u64().unwrap() as usize, branch.len());
}

fn notifications<'a>(v: &'a Value, step: &str) -> Vec<&'a str> {
    v["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["step"] == step)
        .map(|n| n["message"].as_str().unwrap())
        .collect()
}

fn compactions(file: &Path) -> Vec<Value> {
    lines(file)
        .into_iter()
        .filter(|e| e["type"] == "compaction")
        .collect()
}

/// The reasons of the compactions pi ended (`compaction_end` events), in order.
fn compaction_reasons(v: &Value) -> Vec<&str> {
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "compaction_end")
        .map(|e| e["reason"].as_str().unwrap())
        .collect()
}

/// The first turn request after the first compaction of `reason`.
fn request_after_compaction<'a>(v: &'a Value, reason: &str) -> &'a Value {
    let end = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "compaction_end" && e["reason"] == reason)
        .unwrap_or_else(|| panic!("no {reason} compaction: {:#}", v["events"]));
    let i = end["requestsSoFar"].as_u64().unwrap() as usize;
    let reqs = requests(v);
    reqs[i..]
        .iter()
        .find(|r| r["kind"] == "turn")
        .expect("a turn after the compaction")
}

/// The session file of a driven scenario and its compactions, each one pi-shake's: pi never
/// asked its own summarizer, and pi wrote every entry from the extension's answer (`fromHook`)
/// with pi-shake's summary.
fn pi_shakes_compactions(v: &Value, who: &str) -> (PathBuf, Vec<Value>) {
    assert!(
        requests(v).iter().all(|r| r["kind"] == "turn"),
        "{who}: pi fell back to its own summarizer"
    );
    let file = session_of(v);
    let cs = compactions(&file);
    for c in &cs {
        assert_pi_shakes(c, who);
    }
    (file, cs)
}

/// A compaction entry pi wrote from the extension's answer: `fromHook` and pi-shake's summary.
fn assert_pi_shakes(c: &Value, who: &str) {
    assert_eq!(c["fromHook"], true, "{who}: pi marks extension compactions");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .starts_with("# Session history before this point (pruned by pi-shake"),
        "{who}: not pi-shake's summary"
    );
}

#[test]
fn pi_writes_pi_shakes_compaction_at_the_threshold_and_on_compact() {
    if !pi_cli() {
        return;
    }
    let (v, _work) = drive("compact");
    // pi never asked the model for a summary: the hook answered every time.
    let (file, cs) = pi_shakes_compactions(&v, "pi 1.6");
    assert_eq!(cs.len(), 2, "threshold + manual");
    let ids: HashSet<String> = lines(&file)
        .iter()
        .filter_map(|e| e["id"].as_str().map(str::to_string))
        .collect();
    for c in &cs {
        assert!(
            c["details"]["pruner"]
                .as_str()
                .unwrap()
                .starts_with("pi-shake ")
        );
        assert_eq!(c["details"]["scorer"], "heuristic-v3");
        assert_eq!(c["details"]["cut"]["source"], "pi");
        assert_eq!(c["details"]["cut"]["agrees"], true);
        assert!(ids.contains(c["firstKeptEntryId"].as_str().unwrap()));
        assert!(
            c["systemMessage"].is_object(),
            "pi adds its own system message"
        );
    }
    // The threshold one came from pi's own check between turns.
    assert_eq!(compaction_reasons(&v), ["threshold", "manual"]);
    // The next request carries our summary; none before did.
    for (c, reason) in cs.iter().zip(["threshold", "manual"]) {
        let summary = c["summary"].as_str().unwrap();
        let next = request_after_compaction(&v, reason);
        assert!(carries(next, COMPACTION_PREFIX), "no compaction summary");
        assert!(
            carries(next, summary),
            "the request after the {reason} compaction does not carry pi-shake's summary"
        );
    }
    let first = cs[0]["summary"].as_str().unwrap();
    // The manual compaction carries the threshold one's summary under its own (its title
    // always, its lines as the budget allows).
    let second = cs[1]["summary"].as_str().unwrap();
    let title = first.lines().next().unwrap();
    assert!(
        second.contains(&format!(
            "## Earlier history (carried from the previous compaction)\n\n{title}"
        )),
        "{second}"
    );
    let before = &requests(&v)[..mark(&v, "prompt2")];
    assert!(before.iter().all(|r| !carries(r, first)));
    // `/compact <instructions>` reached the scorer.
    assert_eq!(cs[1]["details"]["instructions"], "focus on big5.txt");
    assert_eq!(
        v["responses"]["manual"]["details"]["instructions"],
        "focus on big5.txt"
    );
    assert!(notifications(&v, "prompt2")[0].starts_with("pi-shake: compacted "));
    // The manual compaction, right after the threshold one, has a small region: its budget
    // cannot hold the whole carried summary. The entry's details say so, and pi shows it.
    assert_eq!(cs[0]["details"]["warnings"], Value::Null);
    let lost = cs[1]["details"]["warnings"][0].as_str().unwrap_or_default();
    assert!(
        lost.starts_with("the previous compaction's summary (~")
            && lost.contains("lines stay; a larger --target-ratio"),
        "{lost}"
    );
    assert!(
        notifications(&v, "manual").contains(&format!("pi-shake: warning: {lost}").as_str()),
        "{:?}",
        notifications(&v, "manual")
    );
    assert_all_on_branch(&file);
}

/// A provider's context-overflow error: pi omits the failed attempt (its own `context_edit`),
/// compacts through pi-shake (reason "overflow") and retries the prompt on pi-shake's summary.
#[test]
fn an_overflow_error_compacts_through_pi_shake_and_pi_retries() {
    if !pi_cli() {
        return;
    }
    let (v, _work) = drive("overflow");
    let file = assert_overflow_compacted(&v, "pi 1.6");
    // pi 1.6 hides the failed attempt with its own edit before it compacts.
    let entries = lines(&file);
    let failed = entries
        .iter()
        .find(|e| e["message"]["stopReason"] == "error")
        .expect("pi records the failed attempt");
    let edit = entries
        .iter()
        .find(|e| e["type"] == "context_edit")
        .expect("pi omits the failed attempt");
    assert_eq!(edit["targetId"], failed["id"]);
    assert_eq!(edit["replacement"], Value::Null);
    assert!(notifications(&v, "prompt2")[0].starts_with("pi-shake: compacted "));
    // Real pi and pi-shake read the result alike (pi's omission included).
    assert_projection_matches_pi(&file);
}

/// The `overflow` scenario's file: one compaction, pi-shake's, for the overflow at pi's cut; the
/// retry (the turn right after it) carries its summary and the prompt, nothing of the error;
/// every entry on pi's branch.
fn assert_overflow_compacted(v: &Value, who: &str) -> PathBuf {
    let (file, cs) = pi_shakes_compactions(v, who);
    assert_eq!(cs.len(), 1, "{who}: one compaction, for the overflow");
    assert_eq!(compaction_reasons(v), ["overflow"], "{who}");
    assert_eq!(cs[0]["details"]["cut"]["agrees"], true, "{who}");
    let retry = request_after_compaction(v, "overflow");
    assert!(carries(retry, cs[0]["summary"].as_str().unwrap()), "{who}");
    assert!(carries(retry, "Now read big4.txt."), "{who}");
    assert!(!carries(retry, "maximum context length"), "{who}");
    assert_eq!(
        requests(v).len(),
        7,
        "{who}: four turns, the failed one, the retry's two"
    );
    assert_all_on_branch(&file);
    file
}

/// A compaction the user aborts while the binary runs: the binary is stopped at once, pi writes
/// nothing, and the extension does not claim pi writes its own summary (pi says it was
/// cancelled); the session goes on.
#[test]
fn an_aborted_compaction_stops_the_binary_and_writes_nothing() {
    if !pi_cli() {
        return;
    }
    let (v, _work) = drive("abort");
    assert_aborted(&v, "pi 1.6");
    let manual = v["responses"]["manual"]["error"]
        .as_str()
        .unwrap_or_default();
    assert!(manual.contains("Compaction cancelled"), "{manual}");
}

/// The `abort` scenario: no compaction and no summarizer request, the abort not held up by the
/// binary, no notice from the extension, and the next turn goes out on a whole file.
fn assert_aborted(v: &Value, who: &str) {
    let file = session_of(v);
    assert!(
        compactions(&file).is_empty(),
        "{who}: pi wrote a compaction"
    );
    assert!(
        requests(v).iter().all(|r| r["kind"] == "turn"),
        "{who}: pi fell back to its own summarizer"
    );
    let end = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "compaction_end")
        .expect("the compaction ended");
    assert_eq!(end["aborted"], true, "{who}: {end}");
    assert!(v["responses"]["manual"]["error"].is_string(), "{who}");
    // The wrapper waits 30 s before running the binary: pi is not held up by the hook.
    assert!(
        v["responses"]["abortMs"].as_u64().unwrap() < 10_000,
        "{who}: the abort waited for the binary"
    );
    assert_eq!(notifications(v, "manual"), Vec::<&str>::new(), "{who}");
    // The turn after the abort went out (7 before it) and the file is whole.
    assert_eq!(requests(v).len(), 8, "{who}");
    assert_all_on_branch(&file);
}

#[test]
fn a_missing_binary_leaves_compaction_to_pi() {
    if !pi_cli() {
        return;
    }
    let (v, _work) = drive("fallback");
    let file = session_of(&v);
    let cs = compactions(&file);
    assert_eq!(cs.len(), 2);
    assert!(
        cs[0]["summary"]
            .as_str()
            .unwrap()
            .starts_with("MOCK-PI-SUMMARY: pi's own summary"),
        "{}",
        cs[0]["summary"]
    );
    for c in &cs {
        assert_ne!(c["fromHook"], true);
        assert!(c["details"]["readFiles"].is_array(), "pi's own details");
    }
    assert!(requests(&v).iter().any(|r| r["kind"] == "summarization"));
    let next = request_after_compaction(&v, "threshold");
    assert!(carries(next, "MOCK-PI-SUMMARY"));
    let why = notifications(&v, "prompt2");
    assert_eq!(why.len(), 1, "{why:?}");
    assert!(
        why[0].contains("the pi-shake binary was not found"),
        "{}",
        why[0]
    );
    assert!(why[0].contains("pi writes its own summary"), "{}", why[0]);
    assert_all_on_branch(&file);
}

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

/// The TUI as a user sees it (`integrations/pi-shake/test/tui.mjs`: pi in a tmux pane): every
/// notice of the extension is on the screen after the command that printed it. pi shows
/// "Resumed session" after reopening the file, as a status line that replaces the status line
/// before it, and redraws its chat when a compaction ends: a notice given inside
/// `switchSession`'s `withSession` or during the compaction was never seen there. In pi 1.6
/// and, when installed, the releases from 0.87.0 (the first that honours folds); with the
/// binary and, for the compaction's fallback warning, without it.
#[test]
fn the_tui_shows_every_notice_after_pi_reopens_the_session() {
    if !pi_cli() {
        return;
    }
    let mut clis = vec![("1.6.0".to_string(), None)];
    if need_pi_releases("the extension's TUI in older pi releases") {
        for version in ["0.87.0", "1.0.3", "1.5.2"] {
            let cli = pi_release(version).join("dist/bundle/cli.js");
            clis.push((version.to_string(), Some(cli)));
        }
    }
    for (i, (version, cli)) in clis.into_iter().enumerate() {
        // With the binary; without it; and (pi 1.6) without it while pi's summarizer fails too.
        let runs: &[&[&str]] = if i == 0 {
            &[
                &[],
                &["--missing-bin"],
                &["--missing-bin", "--summary-fails"],
            ]
        } else {
            &[&[], &["--missing-bin"]]
        };
        for flags in runs {
            let name = format!("ext-tui-{version}{}", flags.join(""));
            let work = temp_dir(&name).join("work");
            let mut cmd = Command::new(node22());
            cmd.arg(root().join("integrations/pi-shake/test/tui.mjs"))
                .args(["--bin", env!("CARGO_BIN_EXE_pi-shake")])
                .arg("--work")
                .arg(&work);
            if let Some(cli) = &cli {
                cmd.arg("--cli").arg(cli);
            }
            cmd.args(*flags);
            let (out, v) = run_json(&mut cmd, "tui.mjs");
            assert!(
                out.status.success() && v["ok"] == true,
                "pi {version} {flags:?}: the TUI run failed: {}\nstderr: {}",
                v["error"].as_str().unwrap_or(""),
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(v["unexpectedRequests"], 0, "the mock ran out of replies");
            if flags.is_empty() {
                assert_tui_notices(&version, &v);
            } else {
                assert_tui_fallback(&version, &v, flags.contains(&"--summary-fails"));
            }
        }
    }
}

/// The screen's trimmed lines at `step` of a `tui.mjs` report.
fn tui_screen(version: &str, v: &Value, step: &str) -> Vec<String> {
    v["screens"][step]
        .as_str()
        .unwrap_or_else(|| panic!("pi {version}: no screen for {step}"))
        .lines()
        .map(|l| l.trim().to_string())
        .collect()
}

/// The first line of the screen at `step` that starts with `prefix` (a failure shows the screen).
fn tui_line(version: &str, v: &Value, step: &str, prefix: &str) -> String {
    let lines = tui_screen(version, v, step);
    lines
        .iter()
        .find(|l| l.starts_with(prefix))
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "pi {version}, {step}: no line starts with {prefix:?}:\n{}",
                lines.join("\n")
            )
        })
}

/// Without the binary, `/compact` is pi's own, and the warning saying why is on the screen; when
/// pi's summarizer fails too (`summary_fails`), pi writes no compaction and the warning still
/// shows, after pi's error.
fn assert_tui_fallback(version: &str, v: &Value, summary_fails: bool) {
    let prefix = "Warning: pi-shake: compaction not available: the pi-shake binary was not found";
    tui_line(version, v, "compact", prefix);
    // The warning wraps at the pane's width: read it as one text.
    let text = tui_screen(version, v, "compact").join(" ");
    let why = &text[text.find(prefix).unwrap()..];
    assert!(
        why.contains("(PI_SHAKE_BIN)") && why.contains("pi writes its own summary."),
        "pi {version}: {why}"
    );
    let file = PathBuf::from(v["sessionFile"].as_str().unwrap());
    let cs = compactions(&file);
    if summary_fails {
        tui_line(version, v, "compact", "Error: Compaction failed: ");
        assert!(cs.is_empty(), "pi {version}: no compaction expected");
        return;
    }
    assert_eq!(cs.len(), 1, "pi {version}");
    assert!(
        !cs[0]["summary"].as_str().unwrap().contains("pi-shake"),
        "pi {version}: pi's own summary expected"
    );
}

fn assert_tui_notices(version: &str, v: &Value) {
    let screen = |step: &str| tui_screen(version, v, step);
    let line_starting = |step: &str, prefix: &str| tui_line(version, v, step, prefix);
    // pi lists the extension by its directory's name.
    let start = screen("start");
    let listed = start.iter().position(|l| l == "[Extensions]");
    assert_eq!(
        listed.and_then(|i| start.get(i + 1)).map(String::as_str),
        Some("pi-shake"),
        "pi {version}:\n{}",
        start.join("\n")
    );
    let auto = line_starting("auto", "pi-shake: auto-shake: Shook ");
    assert!(auto.contains(" tokens)"), "pi {version}: {auto}");
    let undo = line_starting("undo", "Restored ");
    assert!(
        undo.contains("tokens back in context"),
        "pi {version}: {undo}"
    );
    // The scope popup, answered in the pane; the dry-run says what elide would fold.
    line_starting("popup", "Shake which scope?");
    let dry = line_starting("dryrun", "[dry-run] · Shook ");
    let shake = line_starting("shake", "Shook ");
    assert_eq!(
        dry.trim_start_matches("[dry-run] · ").split(')').next(),
        shake.split(')').next(),
        "pi {version}: the dry-run said what the shake then did"
    );
    assert!(
        shake.contains("Protects the last 4,000 tokens"),
        "pi {version}: {shake}"
    );
    // pi's own status line gave way to the notice, and each notice replaced the one before.
    for step in ["auto", "undo", "shake"] {
        assert!(
            !screen(step).iter().any(|l| l == "Resumed session"),
            "pi {version}, {step}: pi's status line is still the last word"
        );
    }
    assert!(
        !screen("shake").contains(&undo),
        "pi {version}: the undo notice is still shown"
    );
    line_starting("status", "pi-shake: ");
    // After pi redrew the chat for the compaction, below pi's own "Compacted from" line.
    line_starting("compact", "pi-shake: compacted ");
    // The notice wraps at the pane's width: read it as one text. It says where the budget came
    // from (the setting to change).
    let text = tui_screen(version, v, "compact").join(" ");
    let compacted = &text[text.find("pi-shake: compacted ").unwrap()..];
    assert!(
        compacted.contains("; budget 15% of the region, built-in default). Scorer: heuristic"),
        "pi {version}: {compacted}"
    );
    // After `/tree` back to the second answer (pi moves its leaf without writing): `/shake`
    // refuses, below pi's "Navigated to selected point", and `/compact` compacts pi's branch.
    line_starting("navigated", "Navigated to selected point");
    let text = tui_screen(version, v, "treeShake").join(" ");
    let refused = "Warning: pi-shake: pi's position in the session tree (";
    let why = &text[text
        .find(refused)
        .unwrap_or_else(|| panic!("pi {version}: no refusal: {text}"))..];
    assert!(
        why.contains("is not the file's last entry") && why.contains("Send a message first"),
        "pi {version}: {why}"
    );
    line_starting("treeCompact", "pi-shake: compacted ");
    // What the screen said is what the file holds: three writing runs (the refused shake wrote
    // nothing) and pi-shake's two compactions, written by pi, the second on the branch pi
    // navigated to; pi can read it, and its branch ends there.
    let file = PathBuf::from(v["sessionFile"].as_str().unwrap());
    let entries = lines(&file);
    let logs = entries
        .iter()
        .filter(|e| e["type"] == "custom" && e["customType"] == "shake")
        .map(|e| e["data"]["op"].as_str().unwrap_or("").to_string())
        .collect::<Vec<_>>();
    assert_eq!(logs, ["shake", "undo", "shake"], "pi {version}");
    let cs = compactions(&file);
    assert_eq!(cs.len(), 2, "pi {version}");
    for c in &cs {
        assert_pi_shakes(c, &format!("pi {version}"));
    }
    let parent = entries
        .iter()
        .find(|e| e["id"] == cs[1]["parentId"])
        .unwrap();
    assert!(
        text_of(&parent["message"]["content"]).contains("Step 1 done."),
        "pi {version}: the tree compaction is not on the navigated branch: {parent}"
    );
    assert_pi_loads(std::slice::from_ref(&file));
    if need_oracle() {
        let o = oracle1(&file, &[]);
        let branch = o["branchIds"].as_array().unwrap();
        assert_eq!(branch.last(), Some(&cs[1]["id"]), "pi {version}");
        assert!(!branch.contains(&cs[0]["id"]), "pi {version}");
    }
}

#[test]
fn an_old_binary_is_a_clear_message_never_a_crash() {
    if !pi_cli() {
        return;
    }
    let (v, _work) = drive("old");
    for step in ["status", "shake"] {
        let said = notifications(&v, step);
        assert_eq!(said.len(), 1, "{step}: {said:?}");
        assert!(said[0].contains("speaking protocol 0"), "{}", said[0]);
        assert!(said[0].contains("Update pi-shake"), "{}", said[0]);
    }
    let manual = notifications(&v, "manual");
    assert!(
        manual[0].contains("pi writes its own summary"),
        "{}",
        manual[0]
    );
    let file = session_of(&v);
    let cs = compactions(&file);
    assert_eq!(cs.len(), 1);
    assert_ne!(cs[0]["fromHook"], true, "pi's own compaction");
    // pi kept working: the last prompt was answered.
    assert!(mark(&v, "updated") > mark(&v, "prompt2"));
    assert!(
        lines(&file)
            .iter()
            .all(|e| e["type"] != "context_edit" && e["customType"] != "shake")
    );
    // Updated while pi runs: the next command asks the new binary (a refusal is not remembered).
    let updated = notifications(&v, "updated");
    assert_eq!(updated.len(), 1, "{updated:?}");
    assert!(
        updated[0].starts_with("pi-shake: nothing folded · context ~"),
        "{}",
        updated[0]
    );
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

#[test]
fn a_session_an_old_pi_wrote_is_resumed_migrated_and_compacted_by_pi_shake() {
    // pi 0.30.2 wrote it without a `version`; pi 1.6 migrates it on open (new ids, version 3),
    // and the first /compact after resuming goes through the extension.
    if !pi_cli() {
        return;
    }
    let (v, _work) = drive("resume");
    let (file, cs) = pi_shakes_compactions(&v, "resumed");
    let all = lines(&file);
    assert_eq!(all[0]["version"], 3, "pi migrated the header");
    let said = notifications(&v, "manual");
    assert!(
        said.iter().any(|m| m.starts_with("pi-shake: compacted")),
        "{said:?}"
    );
    assert_eq!(cs.len(), 1, "one compaction: pi-shake's, none of pi's own");
    let c = &cs[0];
    assert_eq!(
        c["details"]["cut"]["agrees"], true,
        "{:#}",
        c["details"]["cut"]
    );
    let summary = c["summary"].as_str().unwrap();
    assert!(
        summary.contains("seq 1 20000"),
        "the region's calls are in it"
    );
    let next = request_after_compaction(&v, "manual");
    assert!(
        carries(next, summary),
        "the next turn sends pi-shake's summary"
    );
    assert_all_on_branch(&file);
}

#[test]
fn the_extension_works_in_pi_releases_from_0_87() {
    // The same extension in the CLIs of pi 0.87.0 (the first release that honours
    // `context_edit`), 0.87.1, 1.0.3 and 1.5.2: `/shake` and its undo, and compaction through
    // pi-shake (at the threshold, in overflow recovery; an aborted one writes nothing). In 0.86.1, which ignores `context_edit`, `/shake` says so and writes nothing;
    // compaction works there too.
    if !need_pi_releases("the extension in older pi releases") {
        return;
    }
    for version in ["0.86.1", "0.87.0", "0.87.1", "1.0.3", "1.5.2"] {
        let cli = pi_release(version).join("dist/bundle/cli.js");
        let cli = cli.to_str().unwrap();
        let (v, _) = drive_with("shake", &["--cli", cli]);
        let shook = notifications(&v, "shake");
        let after_shake = &requests(&v)[mark(&v, "prompt3")];
        if version == "0.86.1" {
            assert!(
                shook
                    .iter()
                    .any(|m| m.contains("this pi (0.86.1) ignores context_edit")
                        && m.contains("update pi to 0.87.0 or newer")),
                "{shook:?}"
            );
            assert_eq!(
                v["hashes"]["beforeShake"], v["hashes"]["afterShake"],
                "pi 0.86.1: nothing written"
            );
            let dry = notifications(&v, "dryrun");
            assert!(
                dry.iter().any(|m| m.contains("ignores context_edit")),
                "{dry:?}"
            );
            assert!(!carries(after_shake, "omitted (~"));
        } else {
            assert!(
                shook.iter().any(|m| m.starts_with("Shook 4 tool results")),
                "pi {version}: {shook:?}"
            );
            let undone = notifications(&v, "undo");
            assert!(
                undone
                    .iter()
                    .any(|m| m.starts_with("Restored 4 folded entries")),
                "pi {version}: {undone:?}"
            );
            // What the model got after the shake, then after the undo.
            assert!(
                carries(after_shake, "omitted (~"),
                "pi {version}: no fold sent"
            );
            let after_undo = &requests(&v)[mark(&v, "prompt4")];
            assert!(
                !carries(after_undo, "omitted (~"),
                "pi {version}: a fold stayed"
            );
        }
        assert_all_on_branch(&session_of(&v));

        let (v, _) = drive_with("compact", &["--cli", cli]);
        let (file, cs) = pi_shakes_compactions(&v, &format!("pi {version}"));
        assert!(!cs.is_empty(), "pi {version}: no compaction");
        let next = request_after_compaction(&v, "threshold");
        assert!(carries(next, cs[0]["summary"].as_str().unwrap()));
        assert_all_on_branch(&file);

        // pi's overflow recovery through pi-shake, and an aborted compaction.
        let (v, _) = drive_with("overflow", &["--cli", cli]);
        assert_overflow_compacted(&v, &format!("pi {version}"));
        let (v, _) = drive_with("abort", &["--cli", cli]);
        assert_aborted(&v, &format!("pi {version}"));
    }
}
