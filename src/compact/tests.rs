//! Tests of the whole pipeline: the cut point against pi's own `prepareCompaction` (node oracle;
//! a missing oracle fails, only `PI_SHAKE_SKIP_INTEROP=1` skips), end-to-end compaction of fixture copies
//! loaded back by pi, and golden renderings of every pin kind and action.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::*;
use crate::projection::Projection;
use crate::score::offline::Heuristic;
use crate::score::{NoProgress, Progress, ScoreSource, Scorer, ScorerError};
use crate::session::{Role, Session};
use crate::tree::Tree;
use crate::wall::Wall;

const KEEPS: [u64; 4] = [20_000, 5_000, 2_000, 500];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("sessions-fixtures/pi"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

/// Whether to run the real-pi checks. Only `PI_SHAKE_SKIP_INTEROP=1` skips them (recorded in the
/// skip log `scripts/test.sh` reports); a missing `node` or oracle fails, saying how to fix it.
fn oracle_available() -> bool {
    match std::env::var("PI_SHAKE_SKIP_INTEROP").as_deref() {
        Err(_) | Ok("") | Ok("0") => {}
        Ok("1") => {
            record_skip(&format!(
                "real-pi oracle check ({})",
                std::thread::current().name().unwrap_or("?")
            ));
            return false;
        }
        Ok(v) => {
            panic!("PI_SHAKE_SKIP_INTEROP={v:?}: use 1 to skip the real-pi checks, or unset it")
        }
    }
    let node = Command::new("node").arg("--version").output();
    assert!(
        node.as_ref().is_ok_and(|o| o.status.success()),
        "`node` cannot be run ({node:?}): install Node >= 20 and run scripts/test.sh (or set PI_SHAKE_SKIP_INTEROP=1)"
    );
    assert!(
        root()
            .join("tests/interop/node_modules/@earendil-works/pi-coding-agent")
            .is_dir(),
        "the pi oracle is not installed: run scripts/test.sh, or `(cd tests/interop && npm ci)` (or set PI_SHAKE_SKIP_INTEROP=1)"
    );
    true
}

/// Append one line to the skip log (`PI_SHAKE_SKIP_LOG`, else `target/skipped-checks.log`).
fn record_skip(what: &str) {
    use std::io::Write;
    let log = std::env::var_os("PI_SHAKE_SKIP_LOG")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/skipped-checks.log"));
    if let Some(dir) = log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .unwrap();
    f.write_all(format!("{what}\n").as_bytes()).unwrap();
    eprintln!("skipped (PI_SHAKE_SKIP_INTEROP=1): {what}");
}

/// `project.mjs --batch [--messages] --compaction=KEEP files…` → one JSON value per file.
fn oracle(files: &[PathBuf], keep: Option<u64>, messages: bool) -> Vec<Value> {
    let mut cmd = Command::new("node");
    cmd.arg(root().join("tests/interop/project.mjs"))
        .arg("--batch");
    if messages {
        cmd.arg("--messages");
    }
    if let Some(k) = keep {
        cmd.arg(format!("--compaction={k}"));
    }
    cmd.args(files);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

struct Loaded {
    s: Session,
    t: Tree,
    p: Projection,
    w: Wall,
}

fn load(path: &Path) -> Loaded {
    let s = Session::open(path).unwrap();
    let t = Tree::build(&s);
    let p = Projection::build(&s, &t);
    let w = Wall::build(&s, &t, &p);
    Loaded { s, t, p, w }
}

fn opts(keep: u64) -> CompactOptions {
    CompactOptions {
        keep_recent_tokens: keep,
        read_workspace: false,
        ..Default::default()
    }
}

fn plan_of(l: &Loaded, keep: u64) -> Outcome<CompactPlan> {
    let s = &l.s;
    plan(
        &l.s,
        &l.t,
        &l.p,
        Some(&l.w),
        &opts(keep),
        &Heuristic,
        &NoProgress,
        &mut |i| s.read_value(i),
    )
    .unwrap()
}

fn messages_in(l: &Loaded, r: std::ops::Range<usize>) -> usize {
    l.p.entries[r]
        .iter()
        .filter(|pe| {
            !matches!(
                l.s.entries[pe.idx].body,
                crate::session::Body::Compaction { .. }
            )
        })
        .flat_map(|pe| pe.messages.iter())
        .filter(|m| m.kind != Role::System)
        .count()
}

#[test]
fn cut_point_matches_pi_on_every_fixture() {
    if !oracle_available() {
        return;
    }
    let files = fixtures();
    let mut compared = 0;
    let mut cuts = 0;
    for keep in KEEPS {
        let rows = oracle(&files, Some(keep), false);
        assert_eq!(rows.len(), files.len());
        for (f, row) in files.iter().zip(&rows) {
            assert_eq!(row["ok"], json!(true), "{}: {row}", f.display());
            let l = load(f);
            let ours = cut::prepare(&l.s, &l.t, &l.p, keep);
            let name = f.file_name().unwrap().to_string_lossy();
            compared += 1;
            match (&ours, &row["compaction"]) {
                (CutOutcome::Cut(c), Value::Object(pi)) => {
                    cuts += 1;
                    assert_eq!(
                        json!(c.first_kept_id),
                        pi["firstKeptEntryId"],
                        "{name} keep {keep}"
                    );
                    assert_eq!(
                        json!(c.is_split_turn),
                        pi["isSplitTurn"],
                        "{name} keep {keep}"
                    );
                    assert_eq!(
                        c.tokens_before,
                        pi["tokensBefore"].as_f64().unwrap(),
                        "{name} keep {keep}"
                    );
                    let summarize = messages_in(&l, c.start..c.history_end);
                    let prefix = c
                        .turn_start
                        .map_or(0, |ts| messages_in(&l, ts..c.first_kept_pos));
                    assert_eq!(json!(summarize), pi["summarizeCount"], "{name} keep {keep}");
                    assert_eq!(json!(prefix), pi["turnPrefixCount"], "{name} keep {keep}");
                }
                (CutOutcome::AlreadyCompacted | CutOutcome::NothingToCompact, Value::Null) => {}
                (o, pi) => panic!("{name} keep {keep}: ours {o:?}, pi {pi}"),
            }
        }
    }
    eprintln!("cut point: {compared} (fixture, keep) cases compared with pi, {cuts} with a cut");
    assert!(cuts >= 10);
}

fn temp_copy(src: &Path, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "pi-shake-compact-{}-{tag}-{}",
        std::process::id(),
        src.file_stem().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let dst = dir.join(src.file_name().unwrap());
    std::fs::copy(src, &dst).unwrap();
    dst
}

#[test]
fn end_to_end_pi_honours_our_compaction() {
    let have_oracle = oracle_available();
    let mut done = 0;
    for keep in [20_000u64, 2_000] {
        for f in fixtures() {
            let before = load(&f);
            let Outcome::Ready(plan) = plan_of(&before, keep) else {
                continue;
            };
            let copy = temp_copy(&f, &keep.to_string());
            let l = load(&copy);
            let Outcome::Ready(plan2) = plan_of(&l, keep) else {
                panic!("copy plans differently")
            };
            assert_eq!(plan.summary, plan2.summary, "deterministic");
            let mut batch = Batch::new(&l.s, &l.t).unwrap();
            let id = append(&plan2, &mut batch);
            crate::writer::commit(
                &l.s,
                &l.t,
                &l.p,
                &batch,
                &crate::writer::WriteOptions { force: true },
            )
            .unwrap();
            // Every user message of the region survives.
            assert_eq!(
                plan2.summary.matches("### User\n").count(),
                plan2.counts.user_messages
            );
            // We read the result back ourselves.
            let after = load(&copy);
            assert_eq!(
                after
                    .p
                    .compaction
                    .map(|i| after.s.entries[i].id_str().to_string()),
                Some(id.clone())
            );
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            let prunable = plan2.counts.pairs > plan2.counts.pinned + plan2.counts.unpaired;
            if prunable {
                assert!(
                    plan2.sizes.context_after < plan2.sizes.context_estimate_before,
                    "{name}: {:?}",
                    plan2.sizes
                );
                assert!(
                    plan2.sizes.region_after < plan2.sizes.region_before,
                    "{name}: {:?}",
                    plan2.sizes
                );
            }
            eprintln!(
                "{name} keep {keep}: region {} → {} tokens, context {} (estimate {}) → {}; pairs {} kept {} stubbed {} dropped {} pinned {}",
                plan2.sizes.region_before,
                plan2.sizes.region_after,
                plan2.sizes.context_before,
                plan2.sizes.context_estimate_before,
                plan2.sizes.context_after,
                plan2.counts.pairs,
                plan2.counts.kept,
                plan2.counts.stubbed,
                plan2.counts.dropped,
                plan2.counts.pinned
            );
            if have_oracle {
                let row = &oracle(std::slice::from_ref(&copy), None, true)[0];
                assert_eq!(row["ok"], json!(true), "{row}");
                let proj = row["projection"].as_array().unwrap();
                let msgs = row["messages"].as_array().unwrap();
                let mut k = 0;
                if plan2.system_message.is_some() {
                    assert_eq!(proj[0]["role"], json!("system"));
                    assert_eq!(proj[0]["entryId"], json!(id));
                    k = 1;
                }
                assert_eq!(proj[k]["role"], json!("compactionSummary"), "{name}");
                assert_eq!(proj[k]["entryId"], json!(id));
                assert_eq!(msgs[k]["summary"], json!(plan2.summary));
                // pi continues at our firstKeptEntryId: the kept rows are ours, in order.
                let expected: Vec<String> = l.p.entries[plan2.cut.first_kept_pos..]
                    .iter()
                    .flat_map(|pe| {
                        pe.messages
                            .iter()
                            .filter(|m| m.kind != Role::System)
                            .map(|_| l.s.entries[pe.idx].id_str().to_string())
                            .collect::<Vec<_>>()
                    })
                    .collect();
                let got: Vec<String> = proj[k + 1..]
                    .iter()
                    .map(|r| r["entryId"].as_str().unwrap_or("").to_string())
                    .collect();
                assert_eq!(got, expected, "{name} keep {keep}");
                let ctx = row["contextTokens"].as_f64().unwrap();
                assert_eq!(
                    ctx, plan2.sizes.context_after as f64,
                    "{name}: our after-estimate is pi's"
                );
                if prunable {
                    assert!(
                        ctx < plan2.sizes.context_estimate_before as f64,
                        "{name}: {ctx} < {:?}",
                        plan2.sizes
                    );
                }
                // And pi would not compact again right away.
                let again = &oracle(std::slice::from_ref(&copy), Some(keep), false)[0];
                assert_eq!(again["compaction"], Value::Null);
            }
            std::fs::remove_dir_all(copy.parent().unwrap()).ok();
            done += 1;
        }
    }
    assert!(done >= 5, "{done}");
}

// ---------------------------------------------------------------------------
// Golden renderings: every pin kind and every action.
// ---------------------------------------------------------------------------

/// Scores by pair ordinal in the region (`t1` = the first pair), whatever the pair ids are.
struct Fixed(Vec<(String, f64, f64)>);

impl Scorer for Fixed {
    fn name(&self) -> String {
        "fixed-test".into()
    }
    fn score(&self, req: &ScoreRequest, _: &dyn Progress) -> Result<Vec<PairScore>, ScorerError> {
        Ok(req
            .probes
            .iter()
            .map(|p| {
                let (u, f) = self
                    .0
                    .iter()
                    .find(|(id, ..)| *id == format!("t{}", p.pair.index + 1))
                    .map_or((0.0, 0.0), |(_, u, f)| (*u, *f));
                PairScore {
                    pair_id: p.pair.pair_id.clone(),
                    useful: u,
                    full: f,
                    source: crate::score::ScoreSource::Replay,
                    model: None,
                }
            })
            .collect())
    }
}

/// A synthetic session exercising each pin and action; returns its JSONL.
fn golden_session() -> String {
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
    let s = &l.s;
    let Outcome::Ready(plan) = plan(
        &l.s,
        &l.t,
        &l.p,
        Some(&l.w),
        &opts(5),
        &scorer,
        &NoProgress,
        &mut |i| s.read_value(i),
    )
    .unwrap() else {
        panic!("nothing to compact")
    };
    (*plan, l, path)
}

#[test]
fn golden_pins_and_actions() {
    let (plan, l, path) = golden_plan();
    // Ids are the call's line in the file (`t{line}`, `t{line}_{k}` for its k-th call).
    for p in &plan.pairs {
        let line = l
            .s
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
            user_messages: 2
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
    let mut batch = Batch::new(&l.s, &l.t).unwrap();
    append(&plan, &mut batch);
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
    let s = &l.s;
    let Outcome::Ready(again) = super::plan(
        &l.s,
        &l.t,
        &l.p,
        Some(&l.w),
        &opts(5),
        &replay,
        &NoProgress,
        &mut |i| s.read_value(i),
    )
    .unwrap() else {
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
    let s = &l.s;
    let o = CompactOptions {
        on_scorer_error_offline: true,
        ..opts(5)
    };
    let Outcome::Ready(plan) = plan(
        &l.s,
        &l.t,
        &l.p,
        Some(&l.w),
        &o,
        &HalfThenFail(2),
        &NoProgress,
        &mut |i| s.read_value(i),
    )
    .unwrap() else {
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

/// Print the plan and summary of `PI_SHAKE_FIXTURE` (keep `PI_SHAKE_KEEP`, default 20000):
/// `PI_SHAKE_FIXTURE=… cargo test --lib print_plan -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_plan() {
    let Some(f) = std::env::var_os("PI_SHAKE_FIXTURE") else {
        return;
    };
    let keep = std::env::var("PI_SHAKE_KEEP")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(20_000);
    let l = load(Path::new(&f));
    match plan_of(&l, keep) {
        Outcome::Ready(p) => {
            println!("{}", serde_json::to_string_pretty(&p.report()).unwrap());
            println!("{}", p.summary);
        }
        Outcome::AlreadyCompacted => println!("already compacted"),
        Outcome::NothingToCompact => println!("nothing to compact"),
    }
}

#[test]
fn folds_by_pi_shake_are_read_through() {
    let dir = std::env::temp_dir().join(format!("pi-shake-golden-shaken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("golden.jsonl");
    std::fs::write(&path, golden_session()).unwrap();
    // Fold t8's result (entry e0000017) the way `shake` does: a context_edit + a shake log.
    let l = load(&path);
    let mut batch = Batch::new(&l.s, &l.t).unwrap();
    let edit = batch.context_edit(
        "e0000017",
        json!({"content": [{"type": "text", "text": "[... omitted (~1,600 tokens)]"}]}),
    );
    let log = crate::wall::ShakeLog {
        op: "shake".into(),
        tool: "pi-shake".into(),
        version: "test".into(),
        profile: None,
        profile_source: None,
        tail: None,
        block_min: None,
        scopes: vec![crate::wall::Scope::Elide],
        folds: vec![crate::wall::FoldRecord {
            target: "e0000017".into(),
            edit,
            scope: crate::wall::Scope::Elide,
            kind: "toolResult".into(),
            tool: Some("bash".into()),
            count: 1,
            tokens_before: 1599,
            tokens_after: 8,
            base: None,
        }],
        restores: vec![],
        tokens_before: 1599,
        tokens_after: 8,
    };
    batch.custom(
        crate::wall::SHAKE_CUSTOM_TYPE,
        serde_json::to_value(&log).unwrap(),
    );
    crate::writer::commit(
        &l.s,
        &l.t,
        &l.p,
        &batch,
        &crate::writer::WriteOptions { force: true },
    )
    .unwrap();
    let l = load(&path);
    assert_eq!(l.w.items.len(), 1, "the fold is on the wall");
    let s = &l.s;
    let keep_all = Fixed((1..=13).map(|i| (format!("t{i}"), 1.0, 1.0)).collect());
    let Outcome::Ready(plan) = plan(
        &l.s,
        &l.t,
        &l.p,
        Some(&l.w),
        &opts(5),
        &keep_all,
        &NoProgress,
        &mut |i| s.read_value(i),
    )
    .unwrap() else {
        panic!()
    };
    let seq: String = (1..=1500).map(|i| format!("{i}\n")).collect();
    assert!(
        plan.summary.contains(&seq),
        "raw content, not the placeholder"
    );
    assert!(!plan.summary.contains("[... omitted (~1,600 tokens)]"));
    let t8 = plan
        .request
        .probes
        .iter()
        .find(|p| p.pair.index == 7)
        .unwrap();
    assert_eq!(t8.pair.output, seq, "the scorer sees the raw output too");
    std::fs::remove_dir_all(&dir).ok();
}

/// A session of `turns` turns, each a prompt and several tool calls whose outputs carry
/// distinctive strings (paths, identifiers, versions, errors) among plain filler lines, plus a
/// few file edits; the last turns stay in the kept part.
fn budget_session(turns: usize) -> String {
    let mut lines = vec![
        json!({"type":"session","version":3,"id":"budget-session","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/nonexistent/budget-proj"}),
    ];
    let mut n = 0u32;
    let mut parent: Option<String> = None;
    let mut push = |lines: &mut Vec<Value>, message: Value| {
        n += 1;
        let id = format!("b{n:07}");
        lines.push(json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-01-01T00:00:00.000Z","message":message}));
        parent = Some(id);
    };
    let user = |t: &str| json!({"role":"user","content":[{"type":"text","text":t}],"timestamp":1});
    let call = |id: &str, name: &str, args: Value| json!({"type":"toolCall","id":id,"name":name,"arguments":args});
    let asst = |blocks: Vec<Value>| json!({"role":"assistant","content":blocks,"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2});
    let result = |id: &str, name: &str, text: &str, err: bool| json!({"role":"toolResult","toolCallId":id,"toolName":name,"content":[{"type":"text","text":text}],"isError":err,"timestamp":3});
    let mut c = 0;
    for t in 0..turns {
        push(
            &mut lines,
            user(&format!(
                "Turn {t}: look at module_{t} and fix what is broken."
            )),
        );
        for k in 0..4 {
            c += 1;
            let id = format!("c{c}");
            let (tool, args) = if k % 2 == 0 {
                (
                    "read",
                    json!({"path": format!("src/module_{t}/part_{k}.rs")}),
                )
            } else {
                (
                    "bash",
                    json!({"command": format!("cargo test -p module_{t} part_{k}")}),
                )
            };
            push(
                &mut lines,
                asst(vec![
                    json!({"type":"text","text":format!("Checking part {k}.")}),
                    call(&id, tool, args),
                ]),
            );
            let out: String = (0..120)
                .map(|i| match i % 10 {
                    3 => format!("fn handler_{t}_{k}_{i}(cfg: &ConfigValue{i}) -> Result<()> {{\n"),
                    7 => format!(
                        "error[E0{i:03}]: mismatched types at src/module_{t}/part_{k}.rs:{i}\n"
                    ),
                    _ => format!("    plain filler line number {i} of this output\n"),
                })
                .collect();
            push(&mut lines, result(&id, tool, &out, false));
        }
        c += 1;
        let id = format!("c{c}");
        push(
            &mut lines,
            asst(vec![call(
                &id,
                "edit",
                json!({"path": format!("src/module_{t}/part_0.rs"), "oldText": "a".repeat(400), "newText": "b".repeat(400)}),
            )]),
        );
        push(
            &mut lines,
            result(&id, "edit", "Successfully replaced 1 block(s).", false),
        );
        push(
            &mut lines,
            json!({"role":"assistant","content":[{"type":"text","text":format!("Fixed module_{t}.")}],"api":"x","provider":"mock","model":"m","stopReason":"stop","timestamp":4}),
        );
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn budget_plan(l: &Loaded, spec: budget::BudgetSpec) -> CompactPlan {
    let s = &l.s;
    let o = CompactOptions {
        budget: Some(spec),
        lite: true,
        ..opts(4_000)
    };
    let Outcome::Ready(plan) = plan(
        &l.s,
        &l.t,
        &l.p,
        Some(&l.w),
        &o,
        &Heuristic,
        &NoProgress,
        &mut |i| s.read_value(i),
    )
    .unwrap() else {
        panic!("nothing to compact")
    };
    *plan
}

fn budget_loaded(tag: &str, turns: usize) -> (Loaded, PathBuf) {
    let dir = std::env::temp_dir().join(format!("pi-shake-budget-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("budget.jsonl");
    std::fs::write(&path, budget_session(turns)).unwrap();
    (load(&path), dir)
}

fn ratio(r: f64) -> budget::BudgetSpec {
    budget::BudgetSpec {
        target_ratio: Some(r),
        max_summary_tokens: None,
        source: "test".into(),
    }
}

#[test]
fn budget_is_honoured_within_five_percent_at_every_ratio() {
    let (l, dir) = budget_loaded("ratios", 40);
    for r in [0.30, 0.10, 0.05, 0.02] {
        let plan = budget_plan(&l, ratio(r));
        let b = plan.budget.clone().unwrap();
        let region = plan.sizes.region_before;
        assert_eq!(b.tokens, (region as f64 * r).floor() as u64);
        // The reported size is the summary's real size …
        assert_eq!(
            b.achieved,
            (crate::jscompat::utf16_len(&plan.summary) as u64).div_ceil(4)
        );
        assert_eq!(plan.sizes.region_after, b.achieved);
        // … at most the budget and at least 95% of it.
        assert!(b.achieved <= b.tokens, "{r}: {} > {}", b.achieved, b.tokens);
        assert!(
            b.achieved as f64 >= 0.95 * b.tokens as f64,
            "{r}: {} < 95% of {}",
            b.achieved,
            b.tokens
        );
        assert_eq!(plan.scorer, fit::NAME);
        // Smaller budgets shrink more of the skeleton, never less.
        if r <= 0.05 {
            assert!(!b.shrunk.is_empty(), "{r}: {b:?}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn max_summary_tokens_caps_the_budget() {
    let (l, dir) = budget_loaded("max", 40);
    let plan = budget_plan(
        &l,
        budget::BudgetSpec {
            target_ratio: Some(0.30),
            max_summary_tokens: Some(1_500),
            source: "test".into(),
        },
    );
    let b = plan.budget.unwrap();
    assert_eq!(b.tokens, 1_500);
    assert!(b.achieved <= 1_500 && b.achieved >= 1_425, "{}", b.achieved);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn pins_shrink_in_the_stated_order() {
    let (l, dir) = budget_loaded("pins", 40);
    let mut last: Vec<String> = Vec::new();
    for r in [0.30, 0.10, 0.05, 0.02, 0.005, 0.0005] {
        let plan = budget_plan(&l, ratio(r));
        let shrunk = plan.budget.unwrap().shrunk;
        // Each smaller budget extends the previous list: the order is fixed.
        assert!(shrunk.len() >= last.len(), "{r}: {shrunk:?}");
        assert_eq!(&shrunk[..last.len()], &last[..], "{r}");
        let edits = plan.summary.matches("**edit**").count();
        if shrunk.iter().any(|s| s.starts_with("pins left out")) {
            assert_eq!(edits, 0, "{r}");
        } else if shrunk
            .iter()
            .any(|s| s.starts_with("edit/write, git and skill pins"))
        {
            assert!(!plan.summary.contains("Old ("), "{r}");
        } else {
            assert!(edits > 0, "{r}");
        }
        last = shrunk;
    }
    // At the smallest budget every step was taken, in the documented order.
    assert_eq!(last.len(), 10, "{last:?}");
    assert!(last[1].starts_with("write bodies"));
    assert!(last[5].starts_with("edit/write, git and skill pins"));
    assert!(last[8].starts_with("pins left out"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_budgeted_summary_stays_a_transcript() {
    let (l, dir) = budget_loaded("shape", 30);
    let plan = budget_plan(&l, ratio(0.10));
    let sm = &plan.summary;
    let lines: Vec<&str> = sm.lines().collect();
    // Every kept output line sits in a fence right under its call's header line.
    let mut in_fence = false;
    let mut header = "";
    let mut kept_lines = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("```") {
            if !in_fence {
                header = lines[i - 1];
            }
            in_fence = !in_fence;
            continue;
        }
        if in_fence && !line.starts_with("[… ") {
            let pin_part = ["Old (", "New (", "Content ("]
                .iter()
                .any(|p| header.starts_with(p));
            assert!(
                header.starts_with("**") || pin_part,
                "line {line:?} under {header:?}"
            );
            if pin_part {
                continue;
            }
            kept_lines += 1;
            if line.starts_with("error[") {
                // The call named in the header produced the line.
                let module = line
                    .split("src/")
                    .nth(1)
                    .unwrap()
                    .split('/')
                    .next()
                    .unwrap();
                assert!(header.contains(module), "{line:?} under {header:?}");
            }
        }
    }
    assert!(kept_lines > 20, "{kept_lines}");
    // Markers say where lines were cut; calls appear in session order.
    assert!(sm.contains(" lines cut …]"));
    let ids: Vec<usize> = sm
        .match_indices("(t")
        .filter_map(|(at, _)| {
            sm[at + 2..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|d| d.parse().ok())
        })
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    // No per-call breadcrumbs for dropped pairs: at most one line per run.
    assert!(!sm.contains("output dropped"));
    for l in sm
        .lines()
        .filter(|l| l.contains("tool call") && l.contains("dropped"))
    {
        assert!(l.starts_with('[') && l.ends_with(']'), "{l}");
    }
    // Every kept line is verbatim from its output.
    let raw = budget_session(30);
    for line in lines
        .iter()
        .filter(|l| l.starts_with("fn handler_") || l.starts_with("error["))
    {
        assert!(raw.contains(&line.replace('"', "\\\"")), "{line}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn lite_and_full_modes_make_the_same_summary() {
    let (l, dir) = budget_loaded("lite", 20);
    let a = budget_plan(&l, ratio(0.10));
    let s = &l.s;
    let o = CompactOptions {
        budget: Some(ratio(0.10)),
        lite: false,
        ..opts(4_000)
    };
    let Outcome::Ready(b) = plan(
        &l.s,
        &l.t,
        &l.p,
        Some(&l.w),
        &o,
        &Heuristic,
        &NoProgress,
        &mut |i| s.read_value(i),
    )
    .unwrap() else {
        panic!()
    };
    assert_eq!(a.summary, b.summary);
    std::fs::remove_dir_all(&dir).ok();
}
