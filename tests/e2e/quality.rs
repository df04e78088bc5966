//! The compaction-quality benchmarks (`examples/quality.rs`, `benches/quality/README.md`) in
//! small: the fact rule, the six needle generators, and one end-to-end measurement of this
//! build's binary on a real session and a needle session. Structural checks only (the harness
//! finds facts, the baselines are ordered, real pi loads every output); no tuned thresholds.

use std::path::PathBuf;

use crate::common::{assert_pi_loads, need_oracle, root, temp_dir};

#[path = "../../examples/quality/blind.rs"]
mod blind;
#[path = "../../examples/quality/chain.rs"]
mod chain;
#[path = "../../examples/quality/cloaked.rs"]
mod cloaked;
#[path = "../../examples/quality/fresh.rs"]
mod fresh;
#[path = "../../examples/quality/harness.rs"]
mod harness;
#[path = "../../examples/quality/heldout.rs"]
mod heldout;
#[path = "../../examples/quality/sealed.rs"]
mod sealed;
#[path = "../../examples/quality/unseen.rs"]
mod unseen;
#[path = "../../examples/quality/veiled.rs"]
mod veiled;

use harness::{Case, FactRule, Outcome, Part, Prepared, RunSpec, Score};

fn part(role: &str, prose: &[&str], output: &[&str]) -> Part {
    Part {
        role: role.into(),
        prose: prose.iter().map(|s| s.to_string()).collect(),
        output: output.iter().map(|s| s.to_string()).collect(),
        thinking: Vec::new(),
        tool: (role == "toolResult").then(|| "bash".into()),
        tokens: 10,
    }
}

/// A prepared prefix with pi's 20k cut and nothing in it.
fn prepared() -> Prepared {
    Prepared {
        ok: true,
        error: None,
        nothing: false,
        keep: 20_000,
        exact: true,
        first_kept_entry_id: None,
        is_split_turn: false,
        previous_summary: None,
        region: Vec::new(),
        kept: Vec::new(),
        serialized: String::new(),
        later: Vec::new(),
    }
}

/// A predictive case on `p` (facts by token) with no facts yet.
fn case_of(p: Prepared) -> Case {
    Case {
        prose: Vec::new(),
        prose_src: Vec::new(),
        session: "s".into(),
        point: "50%".into(),
        prefix: PathBuf::new(),
        keep: 20_000,
        prepared: p,
        pi_summary: None,
        facts: Vec::new(),
        labels: Vec::new(),
        distractors: Vec::new(),
        by_token: true,
    }
}

#[test]
fn distinctive_strings_follow_the_rule() {
    for yes in [
        "src/main.ts",
        "buildSessionProjection",
        "v3.14.2-rc.7",
        "acct_7f3e21c9",
        "host:8080x",
        "12345678",
    ] {
        assert!(harness::is_distinctive(yes), "{yes}");
    }
    for no in ["abcdefgh", "coding-agent", "src/a.t", "Readme", "BIGWORDS"] {
        assert!(!harness::is_distinctive(no), "{no}");
    }
    let found: Vec<&str> =
        harness::distinctive_iter("see `packages/ai/src/x.ts:12:` and getModel() (plain words)")
            .collect();
    assert_eq!(found, ["packages/ai/src/x.ts:12", "getModel"]);
}

#[test]
fn facts_are_region_output_used_later_and_nowhere_else() {
    let p = Prepared {
        first_kept_entry_id: Some("k".into()),
        previous_summary: Some("carried: summary_only_1".into()),
        region: vec![
            part("user", &["look at prose_said_2"], &[]),
            part(
                "toolResult",
                &[],
                &["alpha_beta_1 prose_said_2 epsilon/zeta3 summary_only_1 unused_later_4"],
            ),
        ],
        kept: vec![part("assistant", &["now epsilon/zeta3"], &[])],
        later: vec![
            "use alpha_beta_1 and prose_said_2".into(),
            "{\"path\":\"epsilon/zeta3\",\"x\":\"summary_only_1 notInRegion9\"}".into(),
        ],
        ..prepared()
    };
    // The carried summary is neither the kept part nor the region's prose (the issue's rule):
    // a string it shares with a region output and the later lines is a fact.
    let all = harness::facts_of(&p, &FactRule::Predictive);
    let facts = all.facts;
    assert_eq!(facts, ["alpha_beta_1", "summary_only_1"]);
    // The region's prose strings the later lines use (not facts by the rule) are counted
    // apart, with where they come from; a tool call's JSON arguments are read unescaped.
    assert_eq!(all.prose, ["prose_said_2"]);
    assert_eq!(all.prose_src, ["user"]);
    let mut q = p.clone();
    q.region.push(part(
        "assistant",
        &[r#"edit({"newText":"	this.callMe_7()
"})"#],
        &[],
    ));
    q.later.push("this.callMe_7 again".into());
    let more = harness::facts_of(&q, &FactRule::Predictive);
    assert_eq!(more.prose, ["prose_said_2", "this.callMe_7"]);
    assert_eq!(more.prose_src, ["user", "call:edit"]);
    let case = Case {
        prose: all.prose,
        prose_src: all.prose_src,
        facts,
        ..case_of(p)
    };
    // Kept only as a distinctive string of its own, not inside a longer one.
    assert_eq!(Score::of(&case, "x alpha_beta_1, y").kept, 1);
    assert_eq!(Score::of(&case, "x alpha_beta_12 y").kept, 0);
    assert_eq!(Score::of(&case, &harness::keep_all(&case.prepared)).kept, 2);
    // The prose alone (the carried summary with it) holds only the carried one.
    assert_eq!(Score::of(&case, &harness::drop_all(&case.prepared)).kept, 1);
    // Prose strings kept, by source.
    let sc = Score::of(&case, "x prose_said_2 y");
    assert_eq!((sc.prose, sc.prose_kept), (1, 1));
    assert_eq!(sc.prose_by_source.get("user"), Some(&[1, 1]));
    assert_eq!(Score::of(&case, "nothing").prose_kept, 0);
}

#[test]
fn recallable_counts_missed_facts_in_outputs_the_summary_names_by_id() {
    // Line 2: an assistant message with two calls (t2, t2_2); line 5: one more (t5).
    let call = |id: &str| serde_json::json!({"type": "toolCall", "id": id, "name": "bash", "arguments": {}});
    let msg =
        |m: serde_json::Value| serde_json::json!({"type": "message", "message": m}).to_string();
    let result = |id: &str, text: &str| {
        msg(
            serde_json::json!({"role": "toolResult", "toolCallId": id, "content": [{"type": "text", "text": text}]}),
        )
    };
    let lines = [
        serde_json::json!({"type": "session"}).to_string(),
        msg(serde_json::json!({"role": "assistant", "content": [call("c1"), call("c2")]})),
        result("c1", "ok alpha_beta_1"),
        result("c2", "ok gamma_delta_2"),
        msg(serde_json::json!({"role": "assistant", "content": [call("c3")]})),
        result("c3", "ok eps_zeta_3"),
        // Outputs outside the pairs, named by entry id: a `!` command and a result without
        // its call.
        serde_json::json!({"type": "message", "id": "bx000001", "message": {"role": "bashExecution", "command": "ls", "output": "ok eta_theta_5"}}).to_string(),
        serde_json::json!({"type": "message", "id": "or000001", "message": {"role": "toolResult", "toolCallId": "gone", "content": [{"type": "text", "text": "ok iota_kappa_6"}]}}).to_string(),
    ];
    let copy = temp_dir("recallable").join("copy.jsonl");
    std::fs::write(&copy, lines.join("\n") + "\n").unwrap();
    let case = case_of(prepared());
    let summary = "**bash** `a` (t2; 1 of 3 lines):\n…\n**bash** `c` (t5; error; 1 of 2 lines):\n";
    let missed: Vec<String> = [
        "alpha_beta_1",
        "gamma_delta_2",
        "eps_zeta_3",
        "nowhere_4",
        "eta_theta_5",
        "iota_kappa_6",
    ]
    .map(String::from)
    .to_vec();
    // t2 and t5 are named (alpha, eps); t2_2 (gamma) is not; nowhere_4 is in no output; the
    // command and the lone result are not named here.
    assert_eq!(harness::recallable(&case, &copy, summary, &missed), 2);
    assert_eq!(harness::recallable(&case, &copy, "no headers", &missed), 0);
    let named = format!(
        "{summary}`ls` (bx000001; output of 1 line not kept)\n**Tool result `bash`** (its call is not in this history; or000001; 1 of 2 lines):\n"
    );
    assert_eq!(harness::recallable(&case, &copy, &named, &missed), 4);
}

#[test]
fn head_tail_never_splits_a_string() {
    let s = "aaaa bbbb_1234 cccc dddd_5678 eeee";
    for cap in 1..s.len() {
        let t = harness::head_tail(s, cap);
        for tok in harness::distinctive_iter(&t) {
            assert!(["bbbb_1234", "dddd_5678"].contains(&tok), "{cap}: {tok}");
        }
    }
}

#[test]
fn heldout_needles_are_deterministic_valid_and_used_later() {
    let a: Vec<_> = (0..8).map(|i| heldout::generate_one(3, i)).collect();
    let b: Vec<_> = (0..8).map(|i| heldout::generate_one(3, i)).collect();
    let c = heldout::generate_one(4, 0);
    assert_ne!(a[0].lines, c.lines, "another seed, other bytes");
    let dir = temp_dir("heldout");
    let mut files = Vec::new();
    let mut positions = std::collections::HashSet::new();
    for (g, h) in a.iter().zip(&b) {
        assert_eq!(g.lines, h.lines, "same seed, same bytes");
        assert_eq!(g.needles.len(), 4);
        let body = g.lines[..g.cut_line].join("\n");
        let later = g.lines[g.cut_line..].join("\n");
        for (kind, line, pos) in &g.needles {
            positions.insert(format!("{pos:?}"));
            // Distinctive strings hold no character JSON escapes: the raw lines can be searched.
            let used = harness::distinctive_iter(line).any(|t| later.contains(t));
            assert!(used, "{kind}: nothing of `{line}` is used after the cut");
            let escaped = serde_json::to_string(line).unwrap();
            let once = body.matches(escaped.trim_matches('"')).count();
            assert_eq!(once, 1, "{kind}: the needle line is in the region once");
        }
        let f = dir.join(format!("{}.jsonl", g.name));
        std::fs::write(&f, g.lines.join("\n") + "\n").unwrap();
        files.push(f);
    }
    assert_eq!(positions.len(), 3, "head, middle and tail needles");
    assert_pi_loads(&files);
}

/// A generated needle session (the fresh, blind and sealed generators share this shape).
struct Gen<'a> {
    name: &'a str,
    lines: &'a [String],
    cut_line: usize,
    needles: Vec<(&'a str, &'a str, &'a str)>,
    distractors: &'a [String],
}

macro_rules! gens {
    ($v:expr) => {
        $v.iter()
            .map(|g| Gen {
                name: &g.name,
                lines: &g.lines,
                cut_line: g.cut_line,
                needles: g
                    .needles
                    .iter()
                    .map(|(k, l, lab)| (k.as_str(), l.as_str(), lab.as_str()))
                    .collect(),
                distractors: &g.distractors,
            })
            .collect::<Vec<Gen>>()
    };
}

/// Every line is JSON; entries chain by parentId from a null root, with unique ids (8 hex
/// digits when `hex_ids`). Returns the tool outputs before the cut.
fn chain_and_outputs(g: &Gen, hex_ids: bool) -> Vec<String> {
    let mut parent = serde_json::Value::Null;
    let mut ids = std::collections::HashSet::new();
    let mut outputs = Vec::new();
    for (i, l) in g.lines.iter().enumerate() {
        let e: serde_json::Value = serde_json::from_str(l).unwrap();
        if i == 0 {
            assert_eq!(e["type"], "session");
            assert_eq!(e["version"], 3);
            continue;
        }
        assert_eq!(e["parentId"], parent, "{} line {i}", g.name);
        let id = e["id"].as_str().unwrap();
        if hex_ids {
            assert!(
                id.len() == 8 && id.bytes().all(|c| c.is_ascii_hexdigit()),
                "{} line {i}: 8-hex id",
                g.name
            );
        }
        assert!(ids.insert(id.to_string()), "{} line {i}: unique id", g.name);
        parent = e["id"].clone();
        if i < g.cut_line && e["message"]["role"] == "toolResult" {
            outputs.push(
                e["message"]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    let first: serde_json::Value = serde_json::from_str(&g.lines[g.cut_line]).unwrap();
    assert_eq!(
        first["message"]["role"], "user",
        "the later part starts with the user"
    );
    outputs
}

/// The needle line is in the prefix once, and some distinctive string of it is used after the
/// cut and found nowhere else before.
fn needle_is_the_only_source(kind: &str, line: &str, body: &str, later: &str) {
    let escaped = serde_json::to_string(line).unwrap();
    let once = body.matches(escaped.trim_matches('"')).count();
    assert_eq!(once, 1, "{kind}: the needle line is in the prefix once");
    let used =
        harness::distinctive_iter(line).any(|t| later.contains(t) && body.matches(t).count() == 1);
    assert!(
        used,
        "{kind}: nothing only in `{line}` is used after the cut"
    );
}

/// The label is the needle's place among its output's lines (head and tail: a fifth each).
fn label_is_its_place(kind: &str, line: &str, label: &str, outputs: &[String]) {
    let out = outputs
        .iter()
        .find(|o| o.lines().any(|x| x == line))
        .expect("the needle is a line of a tool output");
    let n = out.lines().count();
    let at = out.lines().position(|x| x == line).unwrap();
    let want = match (at * 5 < n, at * 5 >= 4 * n) {
        (true, _) => "head",
        (_, true) => "tail",
        _ => "middle",
    };
    assert_eq!(label, want, "{kind}: line {at} of {n}");
}

/// The kept tail's request (three lines before the cut) is words only: no distinctive string.
fn request_is_words_only(g: &Gen) {
    let ask: serde_json::Value = serde_json::from_str(&g.lines[g.cut_line - 3]).unwrap();
    assert_eq!(ask["message"]["role"], "user");
    let ask = ask["message"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(harness::distinctive_iter(ask).count(), 0, "{ask}");
}

/// Real pi loads the sessions, and with keepRecentTokens 1,500 every needle is in the region.
fn pi_loads_and_needles_are_region_facts(specs: Vec<harness::CaseSpec>, gens: &[Gen]) {
    let files: Vec<PathBuf> = specs
        .iter()
        .filter_map(|s| s.later.as_ref().map(|l| l.path.clone()))
        .collect();
    assert_pi_loads(&files);
    if need_oracle() {
        let (cases, skips) = harness::build_cases(specs).unwrap();
        assert!(skips.is_empty(), "{}", skips.len());
        for (case, g) in cases.iter().zip(gens) {
            assert_eq!(
                case.facts.len(),
                g.needles.len(),
                "{}: needles in the region",
                g.name
            );
        }
    }
}

#[test]
fn fresh_needles_are_deterministic_valid_and_used_later() {
    let a: Vec<_> = (0..10).map(|i| fresh::generate_one(5, i)).collect();
    let b: Vec<_> = (0..10).map(|i| fresh::generate_one(5, i)).collect();
    let c = fresh::generate_one(6, 0);
    assert_ne!(a[0].lines, c.lines, "another seed, other bytes");
    let gens = gens!(a);
    let mut labels = std::collections::HashSet::new();
    let mut kinds = std::collections::HashSet::new();
    for (g, h) in gens.iter().zip(&b) {
        assert_eq!(g.lines, h.lines, "same seed, same bytes");
        assert!(
            (3..=5).contains(&g.needles.len()),
            "{}: 3 to 5 needles",
            g.name
        );
        chain_and_outputs(g, false);
        let body = g.lines[..g.cut_line].join("\n");
        let later = g.lines[g.cut_line..].join("\n");
        for &(kind, line, label) in &g.needles {
            labels.insert(label);
            kinds.insert(kind);
            needle_is_the_only_source(kind, line, &body, &later);
        }
    }
    assert_eq!(labels.len(), 3, "head, middle and tail needles: {labels:?}");
    assert!(kinds.len() >= 8, "varied needle kinds: {kinds:?}");
    let specs = fresh::specs(5, 10, &temp_dir("fresh")).unwrap();
    pi_loads_and_needles_are_region_facts(specs, &gens);
}

#[test]
fn blind_needles_are_deterministic_valid_and_used_later() {
    let a: Vec<_> = (0..12).map(|i| blind::generate_one(5, i)).collect();
    let b: Vec<_> = (0..12).map(|i| blind::generate_one(5, i)).collect();
    let c = blind::generate_one(6, 0);
    assert_ne!(a[0].lines, c.lines, "another seed, other bytes");
    let gens = gens!(a);
    let mut labels = std::collections::HashSet::new();
    let mut kinds = std::collections::HashSet::new();
    for (g, h) in gens.iter().zip(&b) {
        assert_eq!(g.lines, h.lines, "same seed, same bytes");
        assert!(
            (3..=5).contains(&g.needles.len()),
            "{}: 3 to 5 needles",
            g.name
        );
        let outputs = chain_and_outputs(g, false);
        request_is_words_only(g);
        let body = g.lines[..g.cut_line].join("\n");
        let later = g.lines[g.cut_line..].join("\n");
        for &(kind, line, label) in &g.needles {
            labels.insert(label);
            kinds.insert(kind);
            needle_is_the_only_source(kind, line, &body, &later);
            label_is_its_place(kind, line, label, &outputs);
        }
        for d in g.distractors {
            assert!(body.contains(serde_json::to_string(d).unwrap().trim_matches('"')));
            assert!(!g.needles.iter().any(|&(_, l, _)| l == d));
        }
    }
    assert_eq!(labels.len(), 3, "head, middle and tail needles: {labels:?}");
    assert!(kinds.len() >= 10, "varied needle kinds: {kinds:?}");
    let specs = blind::specs(5, 12, &temp_dir("blind")).unwrap();
    pi_loads_and_needles_are_region_facts(specs, &gens);
}

/// The checks the record-based generators (`sealed.rs`, `unseen.rs`, `veiled.rs`) share, on 12
/// sessions of one seed (`gens`) and the same drawn again (`again`): the same bytes, 3–5 needles
/// with 2–4 distractors each, a valid chain, 8–16 calls, a words-only request, a last big output
/// of at least `last_tokens`, every needle the only source of a string used later and labelled by
/// its place, every distractor holding a string of its own that nothing later uses, three labels
/// and ten kinds.
fn record_generator_checks(gens: &[Gen], again: &[Gen], last_tokens: u64) {
    let mut labels = std::collections::HashSet::new();
    let mut kinds = std::collections::HashSet::new();
    for (g, h) in gens.iter().zip(again) {
        assert_eq!(g.lines, h.lines, "same seed, same bytes");
        assert!(
            (3..=5).contains(&g.needles.len()),
            "{}: 3 to 5 needles",
            g.name
        );
        assert!(
            (2 * g.needles.len()..=4 * g.needles.len()).contains(&g.distractors.len()),
            "{}: 2 to 4 distractors a needle",
            g.name
        );
        let outputs = chain_and_outputs(g, true);
        let calls = outputs.len();
        assert!((8..=16).contains(&calls), "{}: {calls} tool calls", g.name);
        request_is_words_only(g);
        // The last large output alone is over 1,500 tokens, so the needles are all before the cut.
        let last = outputs.iter().rev().nth(1).unwrap();
        assert!(
            harness::tokens_of(last) >= last_tokens,
            "{}: last big output",
            g.name
        );
        let body = g.lines[..g.cut_line].join("\n");
        let later = g.lines[g.cut_line..].join("\n");
        for &(kind, line, label) in &g.needles {
            labels.insert(label);
            kinds.insert(kind);
            needle_is_the_only_source(kind, line, &body, &later);
            label_is_its_place(kind, line, label, &outputs);
        }
        for d in g.distractors {
            assert!(body.contains(serde_json::to_string(d).unwrap().trim_matches('"')));
            assert!(!g.needles.iter().any(|&(_, l, _)| l == d));
            // A string only the distractor holds, never used later.
            assert!(
                harness::distinctive_iter(d).any(|t| body.matches(t).count() == 1),
                "{}: distractor `{d}` holds nothing of its own",
                g.name
            );
            assert!(
                !harness::distinctive_iter(d)
                    .any(|t| later.contains(t) && body.matches(t).count() == 1),
                "{}: distractor `{d}` used later",
                g.name
            );
        }
    }
    assert_eq!(labels.len(), 3, "head, middle and tail needles: {labels:?}");
    assert!(kinds.len() >= 10, "varied needle kinds: {kinds:?}");
}

/// A generator's test: two runs of seed `$seed` give the same bytes and another seed others;
/// every case passes [`record_generator_checks`]; real pi loads every case and its needles are
/// region facts.
macro_rules! generator_test {
    ($test:ident, $gen:ident, $seed:expr, $last_tokens:expr) => {
        #[test]
        fn $test() {
            let a: Vec<_> = (0..12).map(|i| $gen::generate_one($seed, i)).collect();
            let b: Vec<_> = (0..12).map(|i| $gen::generate_one($seed, i)).collect();
            let c = $gen::generate_one($seed + 1, 0);
            assert_ne!(a[0].lines, c.lines, "another seed, other bytes");
            let gens = gens!(a);
            record_generator_checks(&gens, &gens!(b), $last_tokens);
            let specs = $gen::specs($seed, 12, &temp_dir(stringify!($gen))).unwrap();
            pi_loads_and_needles_are_region_facts(specs, &gens);
        }
    };
}

generator_test!(
    sealed_needles_are_deterministic_valid_and_used_later,
    sealed,
    3,
    2_500
);
generator_test!(
    unseen_needles_are_deterministic_valid_and_used_later,
    unseen,
    7,
    2_600
);
generator_test!(
    veiled_needles_are_deterministic_valid_and_used_later,
    veiled,
    7,
    2_600
);
generator_test!(
    cloaked_needles_are_deterministic_valid_and_used_later,
    cloaked,
    7,
    2_600
);

#[test]
fn quality_harness_measures_this_binary_on_a_real_session_and_needles() {
    if !need_oracle() {
        return;
    }
    let work = temp_dir("quality");
    let s = harness::SessionFile::read(&root().join("sessions-fixtures/pi-mono/session.jsonl"))
        .unwrap();
    let mut specs = harness::real_specs(&s, &work.join("real"), &[0.5], false).unwrap();
    specs.extend(heldout::specs(5, 1, &work.join("needles")).unwrap());
    let (cases, skips) = harness::build_cases(specs).unwrap();
    assert!(skips.is_empty(), "{skips:?}");
    assert_eq!(cases.len(), 2);
    assert!(
        cases[0].facts.len() >= 10,
        "the real session's later lines use facts from its region: {:?}",
        cases[0].facts
    );
    assert!(!cases[1].facts.is_empty() && !cases[1].by_token);
    let runs = vec![
        RunSpec {
            label: "default".into(),
            args: Vec::new(),
            ratio: None,
            max_tokens: None,
            pi_size: false,
        },
        RunSpec {
            label: "unknown flag".into(),
            args: vec!["--no-such-flag-for-the-quality-test".into()],
            ratio: Some(0.1),
            max_tokens: None,
            pi_size: false,
        },
    ];
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_pi-shake"));
    let rep = harness::measure(&bin, &cases, skips, &runs, &work, false).unwrap();
    assert_eq!(rep.rows.len(), 4);
    assert_eq!(rep.pi_load_failures, 0);
    let mut copies = Vec::new();
    for r in &rep.rows {
        match (&r.outcome, r.run.as_str()) {
            (Outcome::Written { copy, .. }, "default") => {
                assert_eq!(
                    r.pi_loads,
                    Some(true),
                    "real pi loads it and sends our summary"
                );
                assert_eq!(r.same_cut, Some(true), "pi-shake cuts where pi does");
                let ours = r.ours.as_ref().unwrap();
                assert!(ours.summary_tokens < ours.region_tokens);
                copies.push(copy.clone());
            }
            (Outcome::Unsupported { .. }, "unknown flag") => {
                // Baselines are still sized to the target.
                let t = r.size_tokens.unwrap();
                assert_eq!(r.size_basis.as_deref(), Some("target"));
                assert!(r.head_tail.as_ref().unwrap().summary_tokens <= t);
                assert!(r.naive_lines.as_ref().unwrap().summary_tokens <= t);
            }
            (o, run) => panic!("{run}: {o:?}"),
        }
        // Equal size: the sized baselines never exceed the size they are matched to.
        if let (Some(t), Some(h)) = (r.size_tokens, &r.head_tail) {
            assert!(h.summary_tokens <= t, "{} > {t}", h.summary_tokens);
        }
    }
    assert_pi_loads(&copies);
    for (case, f) in cases.iter().zip(&rep.fixed) {
        // keep-all keeps every fact, drop-all none; every sized baseline lies in between, and
        // more room never keeps fewer facts.
        assert_eq!(f.keep_all.kept, f.keep_all.facts);
        assert_eq!(f.drop_all.kept, 0);
        let p = &case.prepared;
        let region = p.region_tokens();
        let mut last = usize::MAX;
        for ratio in [0.5, 0.3, 0.1, 0.05, 0.01] {
            let t = (region as f64 * ratio) as u64;
            let ht = Score::of(case, &harness::head_tail_at(p, t));
            let nl = Score::of(case, &harness::naive_lines_at(p, t));
            let fs = Score::of(case, &harness::foresight_lines_at(case, t));
            assert!(ht.summary_tokens <= t && nl.summary_tokens <= t && fs.summary_tokens <= t);
            assert!(ht.kept <= f.keep_all.kept && nl.kept <= f.keep_all.kept);
            assert!(fs.kept <= f.keep_all.kept);
            // The ceiling knows the facts: with room, it keeps at least what string-spotting does.
            if ratio >= 0.3 {
                assert!(
                    fs.kept >= nl.kept,
                    "foresight {} < naive {} at {ratio}",
                    fs.kept,
                    nl.kept
                );
            }
            assert!(
                ht.kept <= last,
                "head+tail at {ratio}: less room, fewer facts"
            );
            last = ht.kept;
        }
    }
    let md = harness::markdown(&rep, true);
    assert!(
        md.contains("| default |") && md.contains("flag unsupported"),
        "{md}"
    );
}

#[test]
fn chained_compactions_carry_the_first_summary_and_load_in_pi() {
    if !need_oracle() {
        return;
    }
    let work = temp_dir("chain");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_pi-shake"));
    let session = root().join("sessions-fixtures/pi-mono/large-session.jsonl");
    let rows = chain::run(&bin, &[session], &work, &[0.10]).unwrap();
    assert!(!rows.is_empty());
    for r in &rows {
        assert!(r.a < r.b && r.kept <= r.facts, "{r:?}");
        assert_eq!(r.facts, r.region_facts + r.carried_facts, "{r:?}");
        assert!(r.region_kept <= r.region_facts && r.carried_kept <= r.carried_facts);
    }
    assert!(rows.iter().map(|r| r.facts).sum::<usize>() > 0, "{rows:?}");
    // Every second compaction is a session real pi loads, starting from our summary.
    let copies: Vec<PathBuf> = rows
        .iter()
        .map(|r| work.join(format!("large-session.{}.{}.{}.jsonl", r.a, r.b, r.ratio)))
        .collect();
    for c in &copies {
        let text = std::fs::read_to_string(c).unwrap();
        let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(last["type"], "compaction");
        assert!(
            last["summary"]
                .as_str()
                .unwrap()
                .contains("## Earlier history (carried from the previous compaction)"),
            "{}",
            c.display()
        );
    }
    assert_pi_loads(&copies);
    let md = chain::markdown(&rows, &[0.10]);
    assert!(md.contains("| **all** | | 0.10 |"), "{md}");
}
