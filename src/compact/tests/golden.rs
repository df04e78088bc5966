//! Golden files: pins and actions, and offline scores replayed.

use super::*;

/// A synthetic session exercising each pin and action; returns its JSONL.
pub(super) fn golden_session() -> String {
    let mut lines = vec![
        json!({"type":"session","version":3,"id":"golden-session","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/nonexistent/golden-proj"}),
    ];
    let mut n = 0u32;
    let mut parent: Option<String> = None;
    let mut push = |lines: &mut Vec<Value>, message: Value| {
        n += 1;
        let id = format!("e{n:07}");
        lines.push(json!({"type":"message","id":id,"parentId":parent,"timestamp":format!("2026-01-01T00:00:{:02}.000Z", n % 60),"message":message}));
        parent = Some(id);
    };
    let user = |t: &str| json!({"role":"user","content":[{"type":"text","text":t}],"timestamp":1});
    let call = |id: &str, name: &str, args: Value| json!({"type":"toolCall","id":id,"name":name,"arguments":args});
    let asst = |blocks: Vec<Value>| json!({"role":"assistant","content":blocks,"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2});
    let result = |id: &str, name: &str, text: &str, err: bool| json!({"role":"toolResult","toolCallId":id,"toolName":name,"content":[{"type":"text","text":text}],"isError":err,"timestamp":3});
    push(
        &mut lines,
        json!({"role":"system","content":"You are a test agent.","sections":{"rules":"be brief"},"toolsAdded":[{"name":"bash","description":"run","parameters":{}}],"timestamp":0}),
    );
    push(&mut lines, user("Set up the project and run the checks."));
    push(
        &mut lines,
        asst(vec![
            json!({"type":"thinking","thinking":"plan"}),
            json!({"type":"text","text":"Loading the skill first."}),
            call("c1", "read", json!({"path":"skills/rust/SKILL.md"})),
        ]),
    );
    push(
        &mut lines,
        result(
            "c1",
            "read",
            "# Rust skill\nAlways run `cargo fmt`.\nUse clippy.",
            false,
        ),
    );
    push(
        &mut lines,
        asst(vec![call("c2", "bash", json!({"command":"cargo test"}))]),
    );
    push(
        &mut lines,
        result(
            "c2",
            "bash",
            "running 3 tests\ntest parse ... FAILED\nerror: test failed, to rerun pass `--lib`",
            true,
        ),
    );
    let git_out: String = (0..40)
        .map(|i| format!(" create mode 100644 src/file_{i:02}.rs\n"))
        .collect();
    push(
        &mut lines,
        asst(vec![call(
            "c3",
            "bash",
            json!({"command":"git add -A && git commit -m 'init'"}),
        )]),
    );
    push(
        &mut lines,
        result(
            "c3",
            "bash",
            &format!("[main (root-commit) abc1234] init\n{git_out}"),
            false,
        ),
    );
    let old_text = "fn parse() {\n".to_string() + &"    // old line\n".repeat(30) + "}";
    push(
        &mut lines,
        asst(vec![call(
            "c4",
            "edit",
            json!({"path":"src/lib.rs","edits":[{"oldText":old_text,"newText":"fn parse() {}"}]}),
        )]),
    );
    push(
        &mut lines,
        result(
            "c4",
            "edit",
            "Successfully replaced 1 block(s) in src/lib.rs.",
            false,
        ),
    );
    push(
        &mut lines,
        asst(vec![
            call(
                "c5",
                "write",
                json!({"path":"NOTES.md","content":"# Notes\nsecret=HMAC-1234\n"}),
            ),
            call(
                "c6",
                "write",
                json!({"path":"data/big.txt","content":"z".repeat(3000)}),
            ),
        ]),
    );
    push(
        &mut lines,
        result("c5", "write", "Successfully wrote to NOTES.md", false),
    );
    push(
        &mut lines,
        result("c6", "write", "Successfully wrote to data/big.txt", false),
    );
    push(
        &mut lines,
        asst(vec![call("c7", "read", json!({"path":"logo.png"}))]),
    );
    push(
        &mut lines,
        json!({"role":"toolResult","toolCallId":"c7","toolName":"read","content":[{"type":"text","text":"Read image file [image/png]"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":false,"timestamp":3}),
    );
    let seq: String = (1..=1500).map(|i| format!("{i}\n")).collect();
    let log: String = (1..=400)
        .map(|i| format!("log line {i:04}: all good\n"))
        .collect();
    push(
        &mut lines,
        asst(vec![
            call("c8", "bash", json!({"command":"seq 1 1500"})),
            call("c9", "bash", json!({"command":"cat build.log"})),
            call("c10", "bash", json!({"command":"ls"})),
            call("c11", "bash", json!({"command":"pwd"})),
        ]),
    );
    push(&mut lines, result("c8", "bash", &seq, false));
    push(&mut lines, result("c9", "bash", &log, false));
    push(
        &mut lines,
        result("c10", "bash", "Cargo.toml\nsrc\n", false),
    );
    push(
        &mut lines,
        result("c11", "bash", "/nonexistent/golden-proj", false),
    );
    push(
        &mut lines,
        asst(vec![call("c12", "bash", json!({"command":"make"}))]),
    );
    push(
        &mut lines,
        result("c12", "bash", "make: *** [all] Error 2", true),
    );
    push(
        &mut lines,
        asst(vec![call("c13", "bash", json!({"command":"make"}))]),
    );
    push(&mut lines, result("c13", "bash", "ok", false));
    push(
        &mut lines,
        asst(vec![
            json!({"type":"text","text":"Starting the server."}),
            call("c14", "bash", json!({"command":"serve --forever"})),
        ]),
    );
    let long_prompt: String = (1..=120)
        .map(|i| format!("Requirement {i:03}: keep this line exactly.\n"))
        .collect();
    push(&mut lines, user(&long_prompt));
    push(
        &mut lines,
        asst(vec![
            json!({"type":"text","text":"Understood, all requirements noted."}),
        ]),
    );
    push(&mut lines, user("third task please"));
    push(
        &mut lines,
        json!({"role":"assistant","content":[{"type":"text","text":"fine, done"}],"api":"x","provider":"mock","model":"m","stopReason":"stop","timestamp":4}),
    );
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Compare with `tests/golden/compact/NAME`; a missing or different file fails. `UPDATE_GOLDEN=1`
/// writes it instead.
fn check_golden(name: &str, actual: &str) {
    let path = root().join("tests/golden/compact").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        eprintln!("wrote golden {}", path.display());
        return;
    }
    let Ok(expected) = std::fs::read_to_string(&path) else {
        panic!(
            "missing golden {}: run with UPDATE_GOLDEN=1 to create it\n--- actual ---\n{actual}",
            path.display()
        );
    };
    assert!(
        expected == actual,
        "golden {name} differs; rerun with UPDATE_GOLDEN=1 to accept:\n{actual}"
    );
}

fn golden_plan() -> (CompactPlan, Loaded, PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "pi-shake-golden-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("golden.jsonl");
    std::fs::write(&path, golden_session()).unwrap();
    let l = load(&path);
    let scorer = Fixed(vec![
        ("t8".into(), 0.9, 0.9),
        ("t9".into(), 0.7, 0.2),
        ("t10".into(), 0.49, 0.9),
        ("t11".into(), 0.5, 0.5),
        ("t12".into(), 0.2, 0.2),
        ("t13".into(), 0.2, 0.2),
    ]);
    let Outcome::Ready(plan) = plan(&l, &opts(5), &scorer, &NoProgress, &mut l.fetcher()).unwrap()
    else {
        panic!("nothing to compact")
    };
    (*plan, l, path)
}

#[test]
fn golden_pins_and_actions() {
    let (mut plan, l, path) = golden_plan();
    // Ids are the call's line in the file (`t{line}`, `t{line}_{k}` for its k-th call).
    for p in &plan.pairs {
        let line = l
            .session
            .entries
            .iter()
            .find(|e| e.id.as_ref().map(|k| k.display().to_string()) == Some(p.call_entry.clone()))
            .unwrap()
            .line;
        assert!(
            p.id == format!("t{line}") || p.id.starts_with(&format!("t{line}_")),
            "{} is not from line {line}",
            p.id
        );
    }
    let ord = |n: usize| plan.pairs[n - 1].id.clone();
    let got: Vec<(String, &str, Option<&str>)> = plan
        .pairs
        .iter()
        .enumerate()
        .map(|(k, p)| {
            (
                format!("t{}", k + 1),
                p.action.as_str(),
                p.pin.map(Pin::as_str),
            )
        })
        .collect();
    let want: Vec<(String, &str, Option<&str>)> = vec![
        ("t1".into(), "pinned", Some("skill")),
        ("t2".into(), "pinned", Some("unresolvedError")),
        ("t3".into(), "pinned", Some("gitMutation")),
        ("t4".into(), "pinned", Some("editWrite")),
        ("t5".into(), "pinned", Some("editWrite")),
        ("t6".into(), "pinned", Some("editWrite")),
        ("t7".into(), "pinned", Some("image")),
        ("t8".into(), "keep", None),
        ("t9".into(), "stub", None),
        ("t10".into(), "drop", None),
        ("t11".into(), "keep", None),
        ("t12".into(), "drop", None),
        ("t13".into(), "drop", None),
        ("t14".into(), "unpaired", None),
    ];
    assert_eq!(got, want);
    assert_eq!(
        plan.counts,
        Counts {
            pairs: 14,
            kept: 2,
            stubbed: 1,
            dropped: 3,
            pinned: 7,
            unpaired: 1,
            user_messages: 2,
            user_messages_left_out: 0
        }
    );
    // Only unpinned, paired pairs were asked.
    let asked: Vec<String> = plan
        .request
        .probes
        .iter()
        .map(|p| p.pair.pair_id.clone())
        .collect();
    assert_eq!(asked, (8..=13).map(ord).collect::<Vec<_>>());
    let sm = &plan.summary;
    // Verbatim means verbatim.
    assert!(sm.contains(
        "running 3 tests\ntest parse ... FAILED\nerror: test failed, to rerun pass `--lib`"
    ));
    assert!(sm.contains("# Rust skill\nAlways run `cargo fmt`.\nUse clippy."));
    let seq: String = (1..=1500).map(|i| format!("{i}\n")).collect();
    assert!(sm.contains(&seq));
    assert!(sm.contains("secret=HMAC-1234"));
    assert!(sm.contains("3,000 chars written (body not kept"));
    assert!(sm.contains("[image: image/png"));
    // A dropped pair leaves one aggregated line for its run, not its arguments.
    assert!(sm.contains("[1 tool call dropped: bash]"), "{sm}");
    assert!(!sm.contains("`ls`"));
    assert!(sm.contains("Requirement 001: keep this line exactly.\n"));
    assert!(sm.contains("Requirement 120: keep this line exactly."));
    assert!(sm.contains("`serve --forever` (t") && sm.contains("; no result recorded)"));
    assert_eq!(sm.matches("### User\n").count(), 2);
    assert_eq!(plan.cut.first_kept_id, "e0000028");
    check_golden("pins-and-actions.md", sm);
    // The entry: field order, fromHook, systemMessage replay.
    let mut batch = Batch::new(&l.session, &l.tree).unwrap();
    append(&mut plan, &mut batch);
    let line: Value = serde_json::from_str(batch.lines().next().unwrap()).unwrap();
    let keys: Vec<&str> = line
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "type",
            "id",
            "parentId",
            "timestamp",
            "summary",
            "firstKeptEntryId",
            "tokensBefore",
            "details",
            "fromHook",
            "systemMessage"
        ]
    );
    assert_eq!(line["fromHook"], json!(true));
    assert_eq!(
        line["systemMessage"]["content"],
        json!("You are a test agent.")
    );
    assert_eq!(
        line["systemMessage"]["sections"],
        json!({"rules": "be brief"})
    );
    assert_eq!(line["systemMessage"]["timestamp"], json!(batch.now_ms()));
    assert_eq!(line["details"]["counts"]["pinned"], json!(7));
    assert_eq!(line["details"]["pairs"][8]["useful"], json!(0.7));
    assert_eq!(line["details"]["pairs"][8]["source"], json!("replay"));
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

#[test]
fn golden_offline_scores_and_replay_round_trip() {
    let dir = std::env::temp_dir().join(format!("pi-shake-golden-offline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("golden.jsonl");
    std::fs::write(&path, golden_session()).unwrap();
    let l = load(&path);
    let Outcome::Ready(plan) = plan_of(&l, 5) else {
        panic!()
    };
    assert_eq!(plan.scorer, "heuristic-v2");
    assert!(
        plan.pairs
            .iter()
            .filter(|p| p.useful.is_some())
            .all(|p| p.signals.is_some())
    );
    let report = serde_json::to_string_pretty(&plan.report()).unwrap();
    check_golden("offline-plan.json", &(report + "\n"));
    // --scores-out then --scores-in reproduces the plan.
    let scores = dir.join("scores.jsonl");
    crate::score::replay::write_scores(&scores, TEMPLATE, &plan.request, &plan.scores).unwrap();
    let replay = crate::score::replay::Replay::from_file(&scores, TEMPLATE, false).unwrap();
    let Outcome::Ready(again) =
        super::plan(&l, &opts(5), &replay, &NoProgress, &mut l.fetcher()).unwrap()
    else {
        panic!()
    };
    assert!(again.scorer.starts_with("replay ("));
    let actions = |p: &CompactPlan| p.pairs.iter().map(|x| x.action).collect::<Vec<_>>();
    assert_eq!(actions(&again), actions(&plan));
    std::fs::remove_dir_all(&dir).ok();
}

/// Scores the first `n` probes, then fails (a scorer that died half-way).
struct HalfThenFail(usize);

impl Scorer for HalfThenFail {
    fn name(&self) -> String {
        "half-test".into()
    }
    fn score(&self, req: &ScoreRequest, _: &dyn Progress) -> Result<Vec<PairScore>, ScorerError> {
        let partial = req
            .probes
            .iter()
            .take(self.0)
            .map(|p| PairScore {
                pair_id: p.pair.pair_id.clone(),
                useful: 0.9,
                full: 0.9,
                source: crate::score::ScoreSource::Jev,
                model: None,
            })
            .collect();
        Err(ScorerError {
            status: None,
            kind: "timeout".into(),
            request_id: None,
            message: "test".into(),
            partial,
        })
    }
}

#[test]
fn offline_fallback_reports_signals_beside_offline_scores_only() {
    let dir = std::env::temp_dir().join(format!("pi-shake-fallback-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("golden.jsonl");
    std::fs::write(&path, golden_session()).unwrap();
    let l = load(&path);
    let o = CompactOptions {
        on_scorer_error_offline: true,
        ..opts(5)
    };
    let Outcome::Ready(plan) =
        plan(&l, &o, &HalfThenFail(2), &NoProgress, &mut l.fetcher()).unwrap()
    else {
        panic!()
    };
    assert_eq!(plan.scorer, "half-test + heuristic-v2");
    let scored: Vec<&PairReport> = plan.pairs.iter().filter(|p| p.useful.is_some()).collect();
    let jev = scored
        .iter()
        .filter(|p| p.source == Some(ScoreSource::Jev))
        .count();
    let offline = scored
        .iter()
        .filter(|p| p.source == Some(ScoreSource::Offline))
        .count();
    assert_eq!(jev, 2);
    assert!(offline > 0);
    for p in &scored {
        assert_eq!(
            p.signals.is_some(),
            p.source == Some(ScoreSource::Offline),
            "{}",
            p.id
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
