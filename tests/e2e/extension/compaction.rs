//! pi's compactions through the extension in the real pi 1.6 CLI (RPC mode): at the threshold
//! and on `/compact`, in overflow recovery, aborted while the binary runs, and without a usable
//! binary (missing, too old), and on a session an old pi wrote.

use std::collections::HashSet;
use std::path::PathBuf;

use serde_json::Value;

use super::*;
use crate::common::assert_projection_matches_pi;

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
pub(super) fn assert_overflow_compacted(v: &Value, who: &str) -> PathBuf {
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
pub(super) fn assert_aborted(v: &Value, who: &str) {
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
    // … which names the compaction the context starts from: pi's own.
    assert!(
        updated[0].contains(" · last compaction by pi (summary ~"),
        "{}",
        updated[0]
    );
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
