//! Output contracts: insta snapshots of every command's human output (`tests/snapshots/*.snap`;
//! `cargo insta review` or `INSTA_UPDATE=always` accepts changes), every command's `--json`
//! parsed into mirror structs with `deny_unknown_fields` (a renamed, added or removed field
//! fails), `--quiet`, `NO_COLOR` and
//! `--color` (colour only on a terminal by default; the terminal cases run under `script`).

// The mirrors' fields exist to be checked by serde; most are never read by the tests.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::common::Run;
use crate::common::*;

// ---------------------------------------------------------------- mirrors of the JSON documents

/// A field that must be present and may be `null` (a plain `Option` would accept its absence).
fn nullable<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StatusDoc {
    schema_version: u32,
    path: String,
    header: HeaderDoc,
    bytes: u64,
    lines: u64,
    entries: u64,
    counts_by_type: BTreeMap<String, u64>,
    branch: BranchDoc,
    projection: Vec<ProjDoc>,
    context_tokens: f64,
    context_basis: String,
    estimated_tokens: u64,
    raw_tokens: u64,
    wall: WallDoc,
    pi_overlays: PiOverlaysDoc,
    problems: Vec<ProblemDoc>,
    writable: bool,
    check_failed: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HeaderDoc {
    id: String,
    #[serde(deserialize_with = "nullable")]
    version: Option<Value>,
    #[serde(deserialize_with = "nullable")]
    timestamp: Option<String>,
    #[serde(deserialize_with = "nullable")]
    cwd: Option<String>,
    #[serde(deserialize_with = "nullable")]
    parent_session: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct BranchDoc {
    #[serde(deserialize_with = "nullable")]
    leaf_id: Option<String>,
    length: u64,
    context_entries: u64,
    #[serde(deserialize_with = "nullable")]
    compaction_id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    compaction: Option<CompactionDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CompactionDoc {
    id: String,
    by: String,
    #[serde(deserialize_with = "nullable")]
    summary_tokens: Option<u64>,
    #[serde(deserialize_with = "nullable")]
    tokens_before: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    first_kept_entry_id: Option<String>,
    count: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ProjDoc {
    entry_id: String,
    role: String,
    #[serde(deserialize_with = "nullable")]
    tokens: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WallDoc {
    count: u64,
    active: u64,
    moot: u64,
    superseded: u64,
    tokens_reclaimed: u64,
    by_scope: BTreeMap<String, u64>,
    by_kind: BTreeMap<String, u64>,
    #[serde(deserialize_with = "nullable")]
    last_run: Option<String>,
    #[serde(deserialize_with = "nullable")]
    profile: Option<String>,
    items: Vec<WallItemDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WallItemDoc {
    entry_id: String,
    scopes: Vec<String>,
    kinds: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    tool: Option<String>,
    tokens_before: u64,
    tokens_after: u64,
    state: String,
    #[serde(deserialize_with = "nullable")]
    folded_at: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PiOverlaysDoc {
    omissions: u64,
    replacements: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ProblemDoc {
    severity: String,
    code: String,
    #[serde(deserialize_with = "nullable")]
    line: Option<u64>,
    message: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ShakeDoc {
    schema_version: u32,
    path: String,
    dry_run: bool,
    profile: String,
    profile_source: String,
    tail: u64,
    block_min: u64,
    runs: Vec<ScopeRunDoc>,
    context_tokens_before: f64,
    context_tokens_after: f64,
    folds: Vec<FoldDoc>,
    written_entries: u64,
    written_bytes: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ScopeRunDoc {
    scopes: Vec<String>,
    tool_results: u64,
    blocks: u64,
    thinking_blocks: u64,
    images: u64,
    entries: u64,
    tokens_reclaimed: u64,
    cache_cost: u64,
    skipped_foreign: u64,
    summary: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FoldDoc {
    entry_id: String,
    scopes: Vec<String>,
    kinds: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    tool: Option<String>,
    tokens_before: u64,
    tokens_after: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UndoDoc {
    schema_version: u32,
    path: String,
    restored: u64,
    tokens_restored: u64,
    moot: u64,
    superseded: u64,
    entry_ids: Vec<String>,
    written_entries: u64,
    written_bytes: u64,
    context_tokens_before: f64,
    summary: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CompactDoc {
    schema_version: u32,
    path: String,
    dry_run: bool,
    compacted: bool,
    #[serde(deserialize_with = "nullable")]
    entry_id: Option<String>,
    written_bytes: u64,
    #[serde(deserialize_with = "nullable")]
    receiving_host: Option<String>,
    first_kept_entry_id: String,
    is_split_turn: bool,
    keep_recent_tokens: u64,
    scorer: String,
    template: String,
    threshold: f64,
    counts: CountsDoc,
    sizes: SizesDoc,
    batches: u64,
    planned_requests: u64,
    state_fit_steps: u64,
    state_caps: CapsDoc,
    pairs: Vec<PairDoc>,
    /// Omitted when empty.
    #[serde(default)]
    warnings: Vec<String>,
    /// Budgeted plans only.
    #[serde(default)]
    budget: Option<BudgetDoc>,
    /// Only when nothing was written because the summary would not be smaller.
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct BudgetDoc {
    #[serde(deserialize_with = "nullable")]
    target_ratio: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    max_summary_tokens: Option<u64>,
    source: String,
    tokens: u64,
    achieved: u64,
    achieved_ratio: f64,
    lines_kept: u64,
    lines_total: u64,
    shrunk: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CountsDoc {
    pairs: u64,
    kept: u64,
    stubbed: u64,
    dropped: u64,
    pinned: u64,
    unpaired: u64,
    user_messages: u64,
    user_messages_left_out: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SizesDoc {
    region_before: u64,
    region_after: u64,
    context_before: f64,
    context_estimate_before: u64,
    context_after: u64,
    state_tokens: u64,
    state_chars: u64,
    question_tokens: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CapsDoc {
    readme: u64,
    first: u64,
    recent_each: u64,
    recent_count: u64,
    carried: u64,
    dirs: u64,
}

/// One tool-call pair; the optional keys are omitted when they do not apply.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PairDoc {
    id: String,
    tool: String,
    call_entry: String,
    result_entry: Option<String>,
    output_chars: u64,
    is_error: bool,
    action: String,
    pin: Option<Value>,
    useful: Option<f64>,
    full: Option<f64>,
    source: Option<String>,
    model: Option<String>,
    signals: Option<Value>,
    /// Budgeted plans: `[kept, total]` lines of the output.
    lines: Option<[u64; 2]>,
    question_tokens: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CompactNothingDoc {
    schema_version: u32,
    path: String,
    compacted: bool,
    reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct BatchDoc {
    schema_version: u32,
    sessions: Vec<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ErrorDoc {
    path: String,
    error: String,
    exit_code: u8,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ManDoc {
    schema_version: u32,
    pages: Vec<String>,
}

fn parse<T: serde::de::DeserializeOwned>(r: &Run) -> T {
    serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("JSON does not match its mirror: {e}\n{}", r.stdout))
}

fn parse_value<T: serde::de::DeserializeOwned>(v: &Value) -> T {
    serde_json::from_value(v.clone())
        .unwrap_or_else(|e| panic!("JSON does not match its mirror: {e}\n{v:#}"))
}

// ---------------------------------------------------------------- a working directory

/// A temp directory with aged copies of some fixtures; commands run inside it with relative
/// paths, so outputs hold no temp paths.
struct Work {
    agent: Agent,
}

impl Work {
    fn new(tag: &str, files: &[&str]) -> Work {
        let agent = Agent::new(tag);
        for f in files {
            let dst = agent.project.join(f);
            std::fs::copy(fixture(f), &dst).unwrap();
            set_age(&dst, 3600);
        }
        Work { agent }
    }
    fn run(&self, args: &[&str]) -> Run {
        self.agent.run(args)
    }
    fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        self.agent.run_in(&self.agent.project, args, env)
    }
    fn path(&self, f: &str) -> PathBuf {
        self.agent.project.join(f)
    }
    fn age(&self, f: &str) {
        set_age(&self.path(f), 3600);
    }
    /// Run and append the transcript to `out`.
    fn record(&self, out: &mut String, args: &[&str]) -> Run {
        let r = self.run(args);
        out.push_str(&self.agent.filter(&transcript(args, &r)));
        out.push('\n');
        r
    }
}

// ---------------------------------------------------------------- human output snapshots

#[test]
fn snapshot_status() {
    let w = Work::new(
        "snap-status",
        &[
            "thinking.jsonl",
            "retry-context-edit.jsonl",
            "compaction-rpc.jsonl",
        ],
    );
    std::fs::copy(
        fixture_in("broken", "04-malformed-middle-line.jsonl"),
        w.path("malformed.jsonl"),
    )
    .unwrap();
    w.age("malformed.jsonl");
    // A session pi has only just created (its header, no entry yet), and one saved with a
    // byte-order mark (pi skips its header line as not JSON).
    let text = std::fs::read_to_string(w.path("thinking.jsonl")).unwrap();
    let header = text.lines().next().unwrap();
    std::fs::write(w.path("fresh.jsonl"), format!("{header}\n")).unwrap();
    std::fs::write(w.path("bom.jsonl"), format!("\u{feff}{text}")).unwrap();
    w.age("fresh.jsonl");
    w.age("bom.jsonl");
    let mut s = String::new();
    w.record(&mut s, &["status", "thinking.jsonl"]);
    w.record(&mut s, &["status", "retry-context-edit.jsonl"]);
    // A compaction pi wrote itself.
    w.record(&mut s, &["status", "compaction-rpc.jsonl"]);
    w.record(&mut s, &["status", "malformed.jsonl"]);
    w.record(&mut s, &["status", "fresh.jsonl"]);
    w.record(&mut s, &["status", "bom.jsonl"]);
    w.record(
        &mut s,
        &["status", "--max-tokens", "1000", "thinking.jsonl"],
    );
    w.record(
        &mut s,
        &[
            "status",
            "thinking.jsonl",
            "retry-context-edit.jsonl",
            "malformed.jsonl",
        ],
    );
    w.record(&mut s, &["status", "missing.jsonl"]);
    snapshot("status", &s);
}

#[test]
fn snapshot_status_listing() {
    let a = Agent::new("snap-list");
    let d = a.project_sessions();
    a.place(
        &d,
        "2026-11-30T06-28-08-345Z_t.jsonl",
        &fixture("thinking.jsonl"),
        None,
        None,
        300,
    );
    a.place(
        &d,
        "2026-11-30T06-28-12-586Z_l.jsonl",
        &fixture("long-session.jsonl"),
        None,
        None,
        200,
    );
    a.place(
        &d,
        "2026-11-30T06-28-06-801Z_i.jsonl",
        &fixture("image-read.jsonl"),
        None,
        None,
        100,
    );
    let mut s = String::new();
    for args in [&["status"][..], &["status", "--all"], &["status", "-c"]] {
        let r = a.run(args);
        s.push_str(&a.filter(&transcript(args, &r)));
        s.push('\n');
    }
    snapshot("status_listing", &s);
}

#[test]
fn snapshot_shake_dry_run_undo() {
    let w = Work::new("snap-shake", &["long-session.jsonl", "thinking.jsonl"]);
    let mut s = String::new();
    w.record(&mut s, &["dry-run", "long-session.jsonl"]);
    w.record(
        &mut s,
        &[
            "dry-run",
            "--profile",
            "aggressive",
            "--scope",
            "all",
            "long-session.jsonl",
        ],
    );
    w.record(
        &mut s,
        &["shake", "--profile", "aggressive", "long-session.jsonl"],
    );
    w.age("long-session.jsonl");
    w.record(
        &mut s,
        &["shake", "--profile", "aggressive", "long-session.jsonl"],
    );
    w.age("long-session.jsonl");
    w.record(&mut s, &["status", "long-session.jsonl"]);
    w.record(&mut s, &["undo", "long-session.jsonl"]);
    w.age("long-session.jsonl");
    w.record(&mut s, &["undo", "long-session.jsonl"]);
    w.record(
        &mut s,
        &[
            "shake",
            "--scope",
            "thinking",
            "thinking.jsonl",
            "long-session.jsonl",
        ],
    );
    snapshot("shake_dry_run_undo", &s);
}

#[test]
fn snapshot_compact() {
    let w = Work::new("snap-compact", &["long-session.jsonl", "thinking.jsonl"]);
    let mut s = String::new();
    // The offline default works to its budget (10% of the region) …
    w.record(&mut s, &["compact", "--dry-run", "long-session.jsonl"]);
    // … or to the one given; at a tiny budget the skeleton shrinks, in its stated order.
    w.record(
        &mut s,
        &[
            "compact",
            "--dry-run",
            "--max-summary-tokens",
            "300",
            "long-session.jsonl",
        ],
    );
    // Scores that keep every pair whole (a ratio-1 plan replayed with the threshold) would not
    // shrink the region: nothing is written, and the first line says so.
    w.record(
        &mut s,
        &[
            "compact",
            "--dry-run",
            "--target-ratio",
            "1",
            "--scores-out",
            "all.scores.jsonl",
            "long-session.jsonl",
        ],
    );
    w.record(
        &mut s,
        &[
            "compact",
            "--scorer",
            "replay",
            "--scores-in",
            "all.scores.jsonl",
            "--threshold",
            "0",
            "long-session.jsonl",
        ],
    );
    w.age("long-session.jsonl");
    w.record(&mut s, &["compact", "long-session.jsonl"]);
    // `status` names the compaction the context now starts from, and who wrote it.
    w.record(&mut s, &["status", "long-session.jsonl"]);
    w.record(&mut s, &["compact", "thinking.jsonl"]);
    w.record(
        &mut s,
        &["compact", "--target-ratio", "0", "thinking.jsonl"],
    );
    snapshot("compact", &s);
}

#[test]
fn snapshot_recall() {
    let w = Work::new("snap-recall", &["long-session.jsonl"]);
    let mut s = String::new();
    w.record(&mut s, &["compact", "long-session.jsonl"]);
    // A call the summary names `(t10_2; error; 2 of 3 lines)`, whole; one of 71 lines in parts.
    w.record(&mut s, &["recall", "t10_2", "long-session.jsonl"]);
    w.record(
        &mut s,
        &["recall", "t19", "--limit", "3", "long-session.jsonl"],
    );
    w.record(
        &mut s,
        &["recall", "t19", "--offset", "70", "long-session.jsonl"],
    );
    // Any message by its entry id (a prefix will do).
    w.record(&mut s, &["recall", "fe886b", "long-session.jsonl"]);
    // The lines holding a text (any case), from every tool output or one call's.
    w.record(
        &mut s,
        &[
            "recall",
            "--grep",
            "MOD10",
            "--limit",
            "2",
            "long-session.jsonl",
        ],
    );
    w.record(
        &mut s,
        &["recall", "t19", "--grep", "fn main", "long-session.jsonl"],
    );
    w.record(
        &mut s,
        &["recall", "--grep", "no such text", "long-session.jsonl"],
    );
    // What recall refuses, and why.
    w.record(&mut s, &["recall", "t5", "long-session.jsonl"]);
    w.record(&mut s, &["recall", "t6_9", "long-session.jsonl"]);
    w.record(
        &mut s,
        &["recall", "t19", "--offset", "999", "long-session.jsonl"],
    );
    w.record(&mut s, &["recall", "2a0b415a", "long-session.jsonl"]);
    w.record(&mut s, &["recall", "zz", "long-session.jsonl"]);
    w.record(&mut s, &["recall", "long-session.jsonl"]);
    w.record(
        &mut s,
        &[
            "recall",
            "t19",
            "--all",
            "--limit",
            "3",
            "long-session.jsonl",
        ],
    );
    snapshot("recall", &s);
}

#[test]
fn snapshot_usage_errors_and_help() {
    let w = Work::new("snap-usage", &[]);
    let mut s = String::new();
    w.record(&mut s, &["shake"]);
    w.record(&mut s, &["undo", "--session", "nope"]);
    w.record(&mut s, &["shake", "--profile", "wild", "x.jsonl"]);
    w.record(&mut s, &["--help"]);
    snapshot("usage", &s);
}

// ---------------------------------------------------------------- JSON mirrors

#[test]
fn json_status_single_and_batch() {
    let w = Work::new(
        "json-status",
        &[
            "thinking.jsonl",
            "retry-context-edit.jsonl",
            "compaction-rpc.jsonl",
        ],
    );
    let r = w.run(&["status", "--json", "thinking.jsonl"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d: StatusDoc = parse(&r);
    assert_eq!(d.schema_version, 1);
    assert_eq!(d.path, "thinking.jsonl");
    assert_eq!(d.header.version, Some(Value::from(3)));
    assert_eq!(d.context_tokens, 2638.0);
    assert_eq!(d.context_basis, "usage");
    assert_eq!(d.projection.len(), 9);
    assert!(
        d.projection
            .iter()
            .all(|p| !p.entry_id.is_empty() && !p.role.is_empty())
    );
    assert!(d.writable && !d.check_failed);
    assert_eq!(d.wall.count, 0);
    // pi's own overlays and a compaction show up in their fields.
    let d: StatusDoc = parse(&w.run(&["status", "--json", "retry-context-edit.jsonl"]));
    assert!(d.pi_overlays.omissions > 0, "{d:?}");
    let d: StatusDoc = parse(&w.run(&["status", "--json", "compaction-rpc.jsonl"]));
    assert!(d.branch.compaction_id.is_some());
    // pi wrote its two compactions itself (over RPC): `by` says so, with the latest's size and
    // cut.
    let c = d
        .branch
        .compaction
        .as_ref()
        .expect("a compaction on the branch");
    assert_eq!(Some(&c.id), d.branch.compaction_id.as_ref());
    assert_eq!((c.by.as_str(), c.count), ("pi", 2));
    assert!(c.summary_tokens.is_some_and(|t| t > 0), "{c:?}");
    assert!(c.tokens_before.is_some_and(|t| t > 0.0), "{c:?}");
    assert!(c.first_kept_entry_id.is_some(), "{c:?}");
    // Compacted again by pi-shake: `by` names it and the count grows.
    assert_eq!(
        w.run(&[
            "compact",
            "--keep-recent-tokens",
            "200",
            "compaction-rpc.jsonl"
        ])
        .code,
        0
    );
    w.age("compaction-rpc.jsonl");
    let d: StatusDoc = parse(&w.run(&["status", "--json", "compaction-rpc.jsonl"]));
    let c = d
        .branch
        .compaction
        .as_ref()
        .expect("a compaction on the branch");
    assert_eq!((c.by.as_str(), c.count), ("pi-shake", 3), "{c:?}");
    let d: StatusDoc = parse(&w.run(&["status", "--json", "thinking.jsonl"]));
    assert!(d.branch.compaction.is_none());
    // Fold, then the wall items mirror too.
    assert_eq!(
        w.run(&["shake", "--scope", "thinking", "thinking.jsonl"])
            .code,
        0
    );
    w.age("thinking.jsonl");
    let d: StatusDoc = parse(&w.run(&["status", "--json", "thinking.jsonl"]));
    assert_eq!(d.wall.active, 3);
    assert_eq!(d.wall.by_scope.get("thinking"), Some(&3));
    assert_eq!(d.wall.by_kind.get("thinking"), Some(&3));
    assert!(
        d.wall
            .items
            .iter()
            .all(|i| i.state == "active" && i.folded_at.is_some())
    );
    // A batch: { schemaVersion, sessions: [status | error] }.
    std::fs::write(w.path("empty.jsonl"), "  \n").unwrap();
    let r = w.run(&["status", "--json", "thinking.jsonl", "empty.jsonl"]);
    assert_eq!(r.code, 3);
    let b: BatchDoc = parse(&r);
    assert_eq!(b.schema_version, 1);
    let _: StatusDoc = parse_value(&b.sessions[0]);
    let e: ErrorDoc = parse_value(&b.sessions[1]);
    assert_eq!((e.path.as_str(), e.exit_code), ("empty.jsonl", 3));
    assert!(e.error.contains("not a pi session"));
    // A single failing session is the error document itself.
    let r = w.run(&["status", "--json", "empty.jsonl"]);
    assert_eq!(r.code, 3);
    let _: ErrorDoc = parse(&r);
}

#[test]
fn json_shake_dry_run_undo() {
    let w = Work::new("json-shake", &["long-session.jsonl", "thinking.jsonl"]);
    let r = w.run(&["dry-run", "--json", "long-session.jsonl"]);
    let d: ShakeDoc = parse(&r);
    assert!(d.dry_run);
    assert_eq!(d.runs.len(), 3, "one run per scope without --scope");
    assert!(d.folds.is_empty(), "folds are listed only for a single run");
    assert_eq!(
        (d.profile.as_str(), d.profile_source.as_str()),
        ("default", "built-in")
    );
    let r = w.run(&[
        "dry-run",
        "--json",
        "--profile",
        "aggressive",
        "long-session.jsonl",
    ]);
    let d: ShakeDoc = parse(&r);
    assert_eq!(d.runs.len(), 3);
    let r = w.run(&[
        "shake",
        "--json",
        "--profile",
        "aggressive",
        "long-session.jsonl",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d: ShakeDoc = parse(&r);
    assert!(!d.dry_run);
    assert_eq!(d.profile_source, "flag");
    assert_eq!((d.tail, d.block_min), (2000, 200));
    assert_eq!(d.runs.len(), 1);
    assert_eq!(d.runs[0].scopes, vec!["elide"]);
    assert_eq!(d.folds.len() as u64, d.runs[0].entries);
    assert_eq!(d.written_entries as usize, d.folds.len() + 1);
    assert!(d.written_bytes > 0);
    assert!(d.context_tokens_after < d.context_tokens_before);
    let folded: u64 = d
        .folds
        .iter()
        .map(|f| f.tokens_before - f.tokens_after)
        .sum();
    assert_eq!(folded, d.runs[0].tokens_reclaimed);
    w.age("long-session.jsonl");
    let r = w.run(&["undo", "--json", "long-session.jsonl"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let u: UndoDoc = parse(&r);
    assert_eq!(u.restored as usize, d.folds.len());
    assert_eq!(u.entry_ids.len(), d.folds.len());
    assert_eq!(u.tokens_restored, d.runs[0].tokens_reclaimed);
    w.age("long-session.jsonl");
    let u: UndoDoc = parse(&w.run(&["undo", "--json", "long-session.jsonl"]));
    assert_eq!((u.restored, u.written_entries, u.written_bytes), (0, 0, 0));
    assert_eq!(u.summary, "Nothing to undo.");
    // Batches of shake and undo.
    w.age("long-session.jsonl");
    let r = w.run(&[
        "shake",
        "--json",
        "--scope",
        "thinking",
        "thinking.jsonl",
        "long-session.jsonl",
    ]);
    let b: BatchDoc = parse(&r);
    for s in &b.sessions {
        let _: ShakeDoc = parse_value(s);
    }
    w.age("long-session.jsonl");
    w.age("thinking.jsonl");
    let b: BatchDoc = parse(&w.run(&["undo", "--json", "thinking.jsonl", "long-session.jsonl"]));
    for s in &b.sessions {
        let _: UndoDoc = parse_value(s);
    }
}

#[test]
fn json_compact() {
    let w = Work::new("json-compact", &["long-session.jsonl", "thinking.jsonl"]);
    let r = w.run(&["compact", "--json", "--dry-run", "long-session.jsonl"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d: CompactDoc = parse(&r);
    assert!(d.dry_run && !d.compacted && d.entry_id.is_none() && d.receiving_host.is_none());
    assert_eq!(d.counts.pairs as usize, d.pairs.len());
    assert!(d.sizes.context_after < d.sizes.context_estimate_before);
    let r = w.run(&["compact", "--json", "long-session.jsonl"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d: CompactDoc = parse(&r);
    assert!(!d.dry_run && d.compacted && d.entry_id.is_some() && d.written_bytes > 0);
    w.age("long-session.jsonl");
    let n: CompactNothingDoc = parse(&w.run(&["compact", "--json", "long-session.jsonl"]));
    assert!(!n.compacted && n.reason.contains("already compacted"));
    let n: CompactNothingDoc = parse(&w.run(&["compact", "--json", "thinking.jsonl"]));
    assert!(n.reason.contains("less than the recent tokens to keep"));
}

#[test]
fn json_compact_budget() {
    let w = Work::new("json-compact-budget", &["long-session.jsonl"]);
    let r = w.run(&["compact", "--json", "--dry-run", "long-session.jsonl"]);
    let d: CompactDoc = parse(&r);
    let b = d.budget.expect("the offline default has a budget");
    assert_eq!(b.target_ratio, Some(0.15));
    assert_eq!(b.max_summary_tokens, None);
    assert_eq!(b.source, "built-in default");
    assert_eq!(b.tokens, d.sizes.region_before * 15 / 100);
    assert_eq!(b.achieved, d.sizes.region_after);
    assert!(
        b.achieved <= b.tokens && b.achieved * 100 >= b.tokens * 95,
        "{b:?}"
    );
    assert!(b.lines_kept < b.lines_total);
    assert!(d.reason.is_none());
    // Line-cut pairs say how many lines they keep.
    assert!(
        d.pairs
            .iter()
            .filter(|p| p.action == "stub")
            .all(|p| p.lines.is_some_and(|[k, n]| 0 < k && k < n))
    );
    for (flags, tokens) in [
        (
            &["--target-ratio", "0.3"][..],
            d.sizes.region_before * 3 / 10,
        ),
        (&["--max-summary-tokens", "700"][..], 700),
        (
            &["--target-ratio", "0.3", "--max-summary-tokens", "700"][..],
            700,
        ),
    ] {
        let mut args = vec!["compact", "--json", "--dry-run"];
        args.extend_from_slice(flags);
        args.push("long-session.jsonl");
        let d: CompactDoc = parse(&w.run(&args));
        let b = d.budget.unwrap();
        assert_eq!(b.tokens, tokens, "{flags:?}");
        assert!(
            b.achieved <= b.tokens && b.achieved * 100 >= b.tokens * 95,
            "{flags:?} {b:?}"
        );
        assert!(b.source.starts_with("--"), "{flags:?}");
        // Every user message stays at 30% (~10k tokens); at 700 tokens only the first and last 3.
        let left_out = if tokens > 5_000 {
            0
        } else {
            d.counts.user_messages - 4
        };
        assert_eq!(d.counts.user_messages_left_out, left_out, "{flags:?}");
    }
    // At 1% of the region only the first user message stays; the others are counted.
    let d: CompactDoc = parse(&w.run(&[
        "compact",
        "--json",
        "--dry-run",
        "--target-ratio",
        "0.01",
        "long-session.jsonl",
    ]));
    let b = d.budget.unwrap();
    assert!(b.achieved <= b.tokens, "{b:?}");
    assert_eq!(
        b.shrunk.last().map(String::as_str),
        Some("only the region's first user message")
    );
    assert_eq!(
        d.counts.user_messages_left_out + 1,
        d.counts.user_messages,
        "{:?}",
        d.counts
    );
    // Bad budgets are usage errors.
    for bad in [
        &["--target-ratio", "0"][..],
        &["--target-ratio", "1.5"],
        &["--max-summary-tokens", "0"],
    ] {
        let mut args = vec!["compact", "--dry-run"];
        args.extend_from_slice(bad);
        args.push("long-session.jsonl");
        let r = w.run(&args);
        assert_eq!(r.code, 2, "{bad:?}: {}", r.stderr);
    }
    // Settings keys mirror the flags (pi's settings.json in the agent directory).
    std::fs::write(
        w.agent.agent.join("settings.json"),
        r#"{"shake": {"compact": {"targetRatio": 0.2, "maxSummaryTokens": 5000}}}"#,
    )
    .unwrap();
    let r = w.run(&["compact", "--json", "--dry-run", "long-session.jsonl"]);
    let d: CompactDoc = parse(&r);
    let b = d.budget.unwrap();
    assert_eq!(
        (b.target_ratio, b.max_summary_tokens),
        (Some(0.2), Some(5000))
    );
    assert_eq!(b.source, "pi settings shake.compact");
}

#[test]
fn json_man_pages() {
    let w = Work::new("json-man", &[]);
    let r = w.run(&["man", "--json", "--out-dir", "man1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d: ManDoc = parse(&r);
    assert_eq!(d.pages.len(), 10);
    assert!(d.pages.iter().all(|p| Path::new(&w.path(p)).exists()));
}

// ---------------------------------------------------------------- --quiet, colour

#[test]
fn quiet_prints_nothing_but_errors_and_json() {
    let w = Work::new("quiet", &["long-session.jsonl", "thinking.jsonl"]);
    for args in [
        &["status", "-q", "thinking.jsonl"][..],
        &["status", "--quiet", "thinking.jsonl", "long-session.jsonl"],
        &["dry-run", "-q", "long-session.jsonl"],
        &["shake", "-q", "--scope", "thinking", "thinking.jsonl"],
        &["undo", "-q", "thinking.jsonl"],
        &["compact", "-q", "--dry-run", "long-session.jsonl"],
        &["man", "-q", "--out-dir", "man1"],
    ] {
        let r = w.run(args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{args:?}");
        assert_eq!(r.stderr, "", "{args:?}");
        w.age("thinking.jsonl");
    }
    // Errors still reach stderr; --json still prints its document.
    let r = w.run(&["status", "-q", "missing.jsonl"]);
    assert_eq!(r.code, 3);
    assert!(r.stdout.is_empty() && r.stderr.contains("error: "));
    let r = w.run(&["status", "-q", "--json", "thinking.jsonl"]);
    let _: StatusDoc = parse(&r);
}

const BOLD: &str = "\x1b[1m";

#[test]
fn colour_follows_color_flag_and_no_color_when_piped() {
    let w = Work::new("colour", &["thinking.jsonl"]);
    let st = ["status", "thinking.jsonl"];
    let with = |args: &[&str], env: &[(&str, &str)]| w.run_env(args, env).stdout;
    // Piped (not a terminal): no colour by default, even with NO_COLOR unset.
    assert!(!with(&st, &[("NO_COLOR", "")]).contains('\x1b'));
    assert!(!with(&st, &[]).contains('\x1b'));
    // --color always wins, also over NO_COLOR; never is never.
    assert!(with(&["--color", "always", "status", "thinking.jsonl"], &[]).contains(BOLD));
    assert!(
        with(
            &["status", "--color", "always", "thinking.jsonl"],
            &[("NO_COLOR", "")]
        )
        .contains(BOLD)
    );
    assert!(
        !with(
            &["--color", "never", "status", "thinking.jsonl"],
            &[("NO_COLOR", "")]
        )
        .contains('\x1b')
    );
    // JSON is never coloured.
    let r = w.run(&["--color", "always", "status", "--json", "thinking.jsonl"]);
    assert!(!r.stdout.contains('\x1b'));
    let _: StatusDoc = parse(&r);
    // An invalid value is a usage error.
    assert_eq!(
        w.run(&["--color", "sometimes", "status", "thinking.jsonl"])
            .code,
        2
    );
}

/// Run under a pseudo-terminal with `script(1)` (util-linux; a loud failure when missing).
fn on_terminal(w: &Work, args: &str, no_color: Option<&str>) -> Option<String> {
    let script = Path::new("/usr/bin/script");
    assert!(
        script.exists(),
        "/usr/bin/script (util-linux) is needed to test colour on a terminal: install util-linux (Debian/Ubuntu: bsdutils)"
    );
    let bin = env!("CARGO_BIN_EXE_pi-shake");
    let mut cmd = std::process::Command::new(script);
    cmd.args(["-qec", &format!("{bin} {args}"), "/dev/null"])
        .current_dir(&w.agent.project)
        .env("PI_CODING_AGENT_DIR", &w.agent.agent)
        .env_remove("NO_COLOR")
        .stdin(std::process::Stdio::null());
    if let Some(v) = no_color {
        cmd.env("NO_COLOR", v);
    }
    let out = cmd.output().unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn colour_on_a_terminal_by_default_unless_no_color() {
    let w = Work::new("colour-tty", &["thinking.jsonl"]);
    let Some(tty) = on_terminal(&w, "status thinking.jsonl", None) else {
        return;
    };
    assert!(tty.contains(BOLD), "{tty:?}");
    let nc = on_terminal(&w, "status thinking.jsonl", Some("1")).unwrap();
    assert!(!nc.contains('\x1b'), "{nc:?}");
    // An empty NO_COLOR does not disable colour (no-color.org).
    let empty = on_terminal(&w, "status thinking.jsonl", Some("")).unwrap();
    assert!(empty.contains(BOLD));
    let never = on_terminal(&w, "--color never status thinking.jsonl", None).unwrap();
    assert!(!never.contains('\x1b'));
    let json = on_terminal(&w, "status --json thinking.jsonl", None).unwrap();
    assert!(!json.contains('\x1b'));
}
