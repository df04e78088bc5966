//! Unit tests of the offline heuristic (`heuristic-v2`).

use super::*;
use crate::score::{NoProgress, PairProbe};

fn probe(id: &str, tool: &str, args: Value, output: &str, is_error: bool) -> PairProbe {
    PairProbe {
        pair: PairData {
            pair_id: id.into(),
            index: 0,
            count: 0,
            tool: tool.into(),
            args: args.into(),
            output: output.into(),
            is_error,
            call_entry: "c".into(),
            result_entry: "r".into(),
        },
        useful_instructions: String::new(),
        full_instructions: String::new(),
        est_tokens: 0,
        lite_cost: None,
    }
}

fn req(probes: Vec<PairProbe>, recent_user: &str, kept: &str) -> ScoreRequest {
    let state = serde_json::json!({"first": {"user": "build the parser", "assistant": ""}, "recent": [{"user": recent_user, "assistant": ""}], "carried": null});
    ScoreRequest {
        state_json: state.to_string(),
        state_tokens: 0,
        probes,
        kept_context: vec![kept.to_string()],
    }
}

#[test]
fn tokenizer_is_code_aware() {
    let t = tokenize(
        "see src/compact/mod.rs and parseHeaderLine snake_case_id 0123456789 deadbeefdeadbeef",
    );
    for w in [
        "src/compact/mod.rs",
        "compact",
        "mod.rs",
        "parseheaderline",
        "parse",
        "header",
        "line",
        "snake",
        "case",
    ] {
        assert!(t.iter().any(|x| x == w), "{w} in {t:?}");
    }
    assert!(
        !t.iter()
            .any(|x| x == "0123456789" || x == "deadbeefdeadbeef" || x == "and")
    );
}

#[test]
fn stems_plain_words_only() {
    let t = tokenize("listening listens logs exceeded retries src/logs/a.rs class status");
    for w in [
        "listen",
        "log",
        "exceed",
        "retry",
        "src/logs/a.rs",
        "class",
        "status",
    ] {
        assert!(t.iter().any(|x| x == w), "{w} in {t:?}");
    }
}

fn log(n: usize, needle_at: Option<usize>) -> String {
    let mut lines: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "2026-03-14T09:00:{:02}Z INFO broker::worker: processed job {i} in 3ms",
                i % 60
            )
        })
        .collect();
    if let Some(at) = needle_at {
        lines.insert(at, "2026-03-14T09:12:44Z ERROR broker::retry: job 7f3a2 exceeded max_attempts=5 (connection reset by peer)".into());
    }
    lines.join("\n")
}

#[test]
fn a_needle_in_the_middle_is_kept_whole_and_one_at_the_head_is_stubbed() {
    let listing: String = (0..400)
        .map(|i| format!("./src/mod_{i}/file_{i}.rs\n"))
        .collect();
    let probes = vec![
        probe(
            "t1",
            "bash",
            serde_json::json!({"command": "kubectl logs deploy/worker"}),
            &log(3000, Some(1500)),
            false,
        ),
        probe(
            "t2",
            "bash",
            serde_json::json!({"command": "cat other.log"}),
            &log(3000, Some(3)),
            false,
        ),
        probe(
            "t3",
            "bash",
            serde_json::json!({"command": "cat quiet.log"}),
            &log(3000, None),
            false,
        ),
        probe(
            "t4",
            "bash",
            serde_json::json!({"command": "find . -type f"}),
            &listing,
            false,
        ),
    ];
    let r = req(
        probes,
        "Fix the retry failure: the job that exceeded its max attempts.",
        "",
    );
    let sig = Heuristic.explain(&r);
    assert!(sig[0].hit >= 0.5 && sig[0].mid == 1.0, "{:?}", sig[0]);
    assert!(
        sig[0].useful >= 0.5 && sig[0].full >= 0.5,
        "keep whole: {:?}",
        sig[0]
    );
    assert!(sig[1].hit >= 0.5 && sig[1].mid == 0.0, "{:?}", sig[1]);
    assert!(
        sig[1].useful >= 0.5 && sig[1].full < 0.5,
        "stub: {:?}",
        sig[1]
    );
    assert!(sig[2].useful < 0.5, "no needle, drop: {:?}", sig[2]);
    assert_eq!(sig[3].listing, 1.0);
    assert!(sig[3].useful < 0.5, "{:?}", sig[3]);
}

#[test]
fn deterministic_and_explainable() {
    let probes = vec![
        probe(
            "t1",
            "read",
            serde_json::json!({"path": "src/parser.rs"}),
            "fn parse_header() {}\n",
            false,
        ),
        probe(
            "t2",
            "bash",
            serde_json::json!({"command": "seq 1 20000"}),
            &"12345\n".repeat(3000),
            false,
        ),
        probe(
            "t3",
            "bash",
            serde_json::json!({"command": "cargo test"}),
            "error: test failed",
            true,
        ),
        probe(
            "t4",
            "bash",
            serde_json::json!({"command": "seq 1 20000"}),
            &"12345\n".repeat(3000),
            false,
        ),
    ];
    let r = req(
        probes,
        "fix the parse_header bug in src/parser.rs",
        "we edited src/parser.rs",
    );
    let a = Heuristic.score(&r, &NoProgress).unwrap();
    let b = Heuristic.score(&r, &NoProgress).unwrap();
    assert_eq!(a, b);
    let sig = Heuristic.explain(&r);
    assert_eq!(sig[0].reference, 1.0);
    assert!(sig[0].lex > 0.0);
    assert!(a[0].useful >= 0.5, "{:?}", sig[0]);
    assert_eq!(sig[1].sup, 1.0, "re-run later");
    assert!(a[1].useful < 0.5, "{:?}", sig[1]);
    assert_eq!(sig[2].open_err, 1.0);
    for s in &a {
        assert_eq!(s.useful, (s.useful * 100.0).round() / 100.0);
        assert!((0.0..=1.0).contains(&s.full));
    }
}
