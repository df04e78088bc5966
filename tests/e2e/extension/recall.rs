//! The `shake_recall` tool in the real pi 1.6 CLI: off until the branch holds a pi-shake
//! compaction, then the model reads back a call's whole output by the id the summary shows.

use super::*;

/// Whether a request offers the model `shake_recall`.
fn offers_recall(r: &Value) -> bool {
    r["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t == "shake_recall")
}

/// The whole stored output of the call `id` (`t{line}` / `t{line}_{k}`) names in `file`.
fn stored_output(file: &Path, id: &str) -> String {
    let all = lines(file);
    let (_, _, result) = crate::common::pair_of(&all, id);
    text_of(&result["message"]["content"])
}

#[test]
fn the_model_reads_back_what_a_pi_shake_summary_cut() {
    if !pi_cli() {
        return;
    }
    let (v, _work) = drive("recall");
    let reqs = requests(&v);
    // Off before the compaction (no tool in the requests), on after it.
    let manual = mark(&v, "manual");
    assert!(manual > 0 && reqs[..manual].iter().all(|r| !offers_recall(r)));
    assert!(reqs[manual..].iter().all(offers_recall), "{:?}", reqs.len());
    let file = session_of(&v);
    let compaction = lines(&file)
        .into_iter()
        .rfind(|e| e["type"] == "compaction")
        .unwrap();
    assert_pi_shakes(&compaction, "pi 1.6");
    let summary = compaction["summary"].as_str().unwrap();
    let id = v["responses"]["recallId"]
        .as_str()
        .expect("a call the summary cut");
    assert!(
        summary.contains(&format!("({id};")),
        "{id} not in the summary"
    );
    // The model's call came back with the call's whole output, under a header naming it.
    let last = reqs.last().unwrap();
    let got = tool_results(last)
        .remove("r1")
        .expect("the shake_recall result");
    let full = stored_output(&file, id);
    let (head, body) = got.split_once('\n').unwrap();
    assert!(
        head.starts_with(&format!("{id} · ")) && head.contains(" · result "),
        "{head}"
    );
    // (The binary prints a final newline the tool's text leaves out.)
    assert_eq!(
        body.trim_end_matches('\n'),
        full.trim_end_matches('\n'),
        "the recalled text is the stored output"
    );
    let cut: Vec<&str> = full.lines().filter(|l| !summary.contains(l)).collect();
    assert!(!cut.is_empty(), "the summary cut lines of {id}");
    // A pattern (any case) finds the one line holding it, under the id of the call that read it.
    let found = tool_results(last).remove("r2").expect("the search result");
    let mut lines_of = found.lines();
    let head = lines_of.next().unwrap();
    let hit_id = head.split(" · ").next().unwrap();
    let all = lines(&file);
    let (_, call, result) = crate::common::pair_of(&all, hit_id);
    assert_eq!(call["arguments"]["path"], "big4.txt", "{found}");
    let stored = text_of(&result["message"]["content"]);
    let (n, line) = stored
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with("big4 line 00100:"))
        .unwrap();
    assert!(head.ends_with(&format!(
        "1 of {} line(s) match",
        stored.split('\n').count()
    )));
    assert_eq!(
        lines_of.next().unwrap().trim(),
        format!("{}: {line}", n + 1)
    );
    // Real pi loads the file (recall wrote nothing of its own; pi wrote the tool call).
    assert_all_on_branch(&file);
}

#[test]
fn shake_recall_false_keeps_the_tool_off() {
    if !pi_cli() {
        return;
    }
    let (v, _work) = drive_with("recall", &["--no-recall"]);
    for r in requests(&v) {
        assert!(
            !offers_recall(r),
            "shake.recall false, yet the tool was offered"
        );
    }
    // The model's call of an unknown tool is an error pi reports to it; nothing ran.
    let got = tool_results(requests(&v).last().unwrap())
        .remove("r1")
        .unwrap();
    assert!(!got.contains(" · result "), "{got}");
}

#[test]
fn in_a_clone_pi_made_after_the_compaction_the_model_reads_back_the_same_output() {
    if !pi_cli() {
        return;
    }
    let (v, _work) = drive_with("recall", &["--clone"]);
    assert_eq!(
        v["responses"]["clone"]["cancelled"], false,
        "{}",
        v["responses"]
    );
    let original = PathBuf::from(v["responses"]["clonedFrom"].as_str().unwrap());
    let file = session_of(&v);
    assert_ne!(file, original, "the model's calls ran in the copy");
    assert_eq!(
        lines(&file)[0]["parentSession"].as_str(),
        original.to_str(),
        "pi's copy of the session"
    );
    // The copy starts with the tool on (pi starts the copy's session with the compaction on
    // its branch), and the model's call reads the same output as in the original.
    let reqs = requests(&v);
    let clone = mark(&v, "clone");
    assert!(clone < reqs.len() && reqs[clone..].iter().all(offers_recall));
    let id = v["responses"]["recallId"]
        .as_str()
        .expect("a call the summary cut");
    let got = tool_results(reqs.last().unwrap())
        .remove("r1")
        .expect("the shake_recall result");
    let (head, body) = got.split_once('\n').unwrap();
    assert!(head.starts_with(&format!("{id} · ")), "{head}");
    assert_eq!(
        body.trim_end_matches('\n'),
        stored_output(&original, id).trim_end_matches('\n')
    );
    assert_all_on_branch(&file);
}
