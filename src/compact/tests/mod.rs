//! Tests of the whole pipeline: the cut point against pi's own `prepareCompaction` (node oracle;
//! a missing oracle fails, only `PI_SHAKE_SKIP_INTEROP=1` skips), end-to-end compaction of fixture copies
//! loaded back by pi, and golden renderings of every pin kind and action.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::*;
use crate::load::Loaded;
use crate::score::offline::Heuristic;
use crate::score::{NoProgress, Progress, ScoreSource, Scorer, ScorerError};
use crate::session::Role;

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

fn load(path: &Path) -> Loaded {
    Loaded::open(path).unwrap()
}

fn opts(keep: u64) -> CompactOptions {
    CompactOptions {
        keep_recent_tokens: keep,
        read_workspace: false,
        ..Default::default()
    }
}

fn plan_of(l: &Loaded, keep: u64) -> Outcome<CompactPlan> {
    plan(l, &opts(keep), &Heuristic, &NoProgress, &mut l.fetcher()).unwrap()
}

fn messages_in(l: &Loaded, r: std::ops::Range<usize>) -> usize {
    l.projection.entries[r]
        .iter()
        .filter(|pe| {
            !matches!(
                l.session.entries[pe.idx].body,
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
            let ours = cut::prepare(&l.session, &l.tree, &l.projection, keep);
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
            let Outcome::Ready(mut plan2) = plan_of(&l, keep) else {
                panic!("copy plans differently")
            };
            assert_eq!(plan.summary, plan2.summary, "deterministic");
            let mut batch = Batch::new(&l.session, &l.tree).unwrap();
            let id = append(&mut plan2, &mut batch);
            crate::writer::commit(
                &l.session,
                &l.tree,
                &l.projection,
                &batch,
                &crate::writer::WriteOptions { force: true },
            )
            .unwrap();
            // Every user message of the region survives.
            assert_eq!(
                plan.summary.matches("### User\n").count(),
                plan2.counts.user_messages
            );
            // We read the result back ourselves.
            let after = load(&copy);
            assert_eq!(
                after
                    .projection
                    .compaction
                    .map(|i| after.session.entries[i].id_str().to_string()),
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
                // Our estimate of the context before is pi's (a carried summary included).
                let was = &oracle(std::slice::from_ref(&f), None, false)[0];
                let was: f64 = was["projection"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["tokens"].as_f64().unwrap())
                    .sum();
                assert_eq!(
                    was, plan2.sizes.context_estimate_before as f64,
                    "{name} keep {keep}: our before-estimate is pi's"
                );
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
                assert_eq!(msgs[k]["summary"], json!(plan.summary));
                // pi continues at our firstKeptEntryId: the kept rows are ours, in order.
                let expected: Vec<String> = l.projection.entries[plan2.cut.first_kept_pos..]
                    .iter()
                    .flat_map(|pe| {
                        pe.messages
                            .iter()
                            .filter(|m| m.kind != Role::System)
                            .map(|_| l.session.entries[pe.idx].id_str().to_string())
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
    std::fs::write(&path, golden::golden_session()).unwrap();
    // Fold t8's result (entry e0000017) the way `shake` does: a context_edit + a shake log.
    let l = load(&path);
    let mut batch = Batch::new(&l.session, &l.tree).unwrap();
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
        &l.session,
        &l.tree,
        &l.projection,
        &batch,
        &crate::writer::WriteOptions { force: true },
    )
    .unwrap();
    let l = load(&path);
    assert_eq!(l.wall.items.len(), 1, "the fold is on the wall");
    let keep_all = Fixed((1..=13).map(|i| (format!("t{i}"), 1.0, 1.0)).collect());
    let Outcome::Ready(plan) =
        plan(&l, &opts(5), &keep_all, &NoProgress, &mut l.fetcher()).unwrap()
    else {
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
mod budgeted;
mod golden;
