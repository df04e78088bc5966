//! `pi-shake shake` and `pi-shake dry-run`: fold heavy old content into placeholders.
//!
//! read → index → project → wall → plan (plan::fold) → report → append (writer). `dry-run`
//! runs the same planner and stops before the writer: bytes and mtime stay unchanged. Without
//! `--scope`, `shake` folds `elide` and `dry-run` reports each scope on its own line.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;
use serde_json::{Value, json};

use crate::cli::{ScopeArg, ShakeArgs};
use crate::error::{Fault, FaultKind};
use crate::load::Loaded;
use crate::output::Printer;
use crate::plan::fold::{self, FoldParams, FoldPlan};
use crate::projection::replay_system_tokens;
use crate::report::thousands;
use crate::settings::ShakeSettings;
use crate::wall::{FoldRecord, SHAKE_CUSTOM_TYPE, Scope, ShakeLog};
use crate::writer::{self, Batch, WriteOptions};

/// One scope's line in the report.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeOut {
    pub scopes: Vec<Scope>,
    pub tool_results: u64,
    pub blocks: u64,
    pub thinking_blocks: u64,
    pub images: u64,
    pub entries: usize,
    pub tokens_reclaimed: u64,
    /// Tokens the first request after this fold re-encodes once.
    pub cache_cost: u64,
    pub skipped_foreign: usize,
    pub summary: String,
}

/// `shake --json` / `dry-run --json` for one session.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShakeReport {
    pub schema_version: u32,
    pub path: String,
    pub dry_run: bool,
    pub profile: &'static str,
    pub profile_source: &'static str,
    pub tail: u64,
    pub block_min: u64,
    pub runs: Vec<ScopeOut>,
    pub context_tokens_before: Value,
    pub context_tokens_after: Value,
    pub folds: Vec<FoldOut>,
    pub written_entries: usize,
    pub written_bytes: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FoldOut {
    pub entry_id: String,
    pub scopes: Vec<Scope>,
    pub kinds: Vec<&'static str>,
    pub tool: Option<String>,
    pub tokens_before: u64,
    pub tokens_after: u64,
}

fn scopes_of(args: &[ScopeArg]) -> Vec<Scope> {
    let mut v = Vec::new();
    for a in args {
        let add: &[Scope] = match a {
            ScopeArg::Elide => &[Scope::Elide],
            ScopeArg::Thinking => &[Scope::Thinking],
            ScopeArg::Images => &[Scope::Images],
            ScopeArg::All => &Scope::ALL,
        };
        for s in add {
            if !v.contains(s) {
                v.push(*s);
            }
        }
    }
    // Apply in a fixed order so output is deterministic.
    v.sort_by_key(|s| Scope::ALL.iter().position(|x| x == s));
    v
}

/// The design's summary sentence for a plan.
pub fn summary_line(plan: &FoldPlan, scopes: &[Scope], st: &ShakeSettings, dry: bool) -> String {
    let mut parts = Vec::new();
    let (r, _) = plan.count(Scope::Elide, "toolResult");
    let (b, _) = plan.count(Scope::Elide, "block");
    let (t, _) = plan.count(Scope::Thinking, "thinking");
    let (i, _) = plan.count(Scope::Images, "image");
    let plural = |n: u64, one: &str, many: &str| {
        format!("{} {}", thousands(n), if n == 1 { one } else { many })
    };
    if r > 0 {
        parts.push(plural(r, "tool result", "tool results"));
    }
    if b > 0 {
        parts.push(plural(b, "block", "blocks"));
    }
    if t > 0 {
        parts.push(plural(t, "thinking block", "thinking blocks"));
    }
    if i > 0 {
        parts.push(plural(i, "image", "images"));
    }
    let mut s = String::new();
    if dry {
        s.push_str("[dry-run] · ");
    }
    if parts.is_empty() {
        let names: Vec<&str> = scopes.iter().map(|s| s.as_str()).collect();
        s.push_str(&format!("Nothing to shake ({}).", names.join(", ")));
    } else {
        s.push_str(&format!(
            "Shook {} (~{} tokens).",
            parts.join(" + "),
            thousands(plan.reclaimed())
        ));
    }
    if scopes.contains(&Scope::Elide) {
        s.push_str(&format!(
            " Protects the last {} tokens.",
            thousands(st.tail)
        ));
    }
    s.push_str(&format!(
        " Profile: {} ({}).",
        st.profile.as_str(),
        st.source.label()
    ));
    s
}

/// Plan every run from one pass over the session (each entry's bytes re-read at most once).
fn plans_for(l: &Loaded, st: &ShakeSettings, runs: &[Vec<Scope>]) -> Result<Vec<FoldPlan>> {
    let params: Vec<FoldParams> = runs
        .iter()
        .map(|scopes| FoldParams {
            scopes: scopes.clone(),
            tail: st.tail,
            block_min: st.block_min,
        })
        .collect();
    let mut fetch = l.fetcher();
    fold::plan_many(
        &l.session,
        &l.tree,
        &l.projection,
        &l.wall,
        &params,
        &mut fetch,
    )
}

fn scope_out(plan: &FoldPlan, scopes: &[Scope], st: &ShakeSettings, dry: bool) -> ScopeOut {
    ScopeOut {
        scopes: scopes.to_vec(),
        tool_results: plan.count(Scope::Elide, "toolResult").0,
        blocks: plan.count(Scope::Elide, "block").0,
        thinking_blocks: plan.count(Scope::Thinking, "thinking").0,
        images: plan.count(Scope::Images, "image").0,
        entries: plan.folds.len(),
        tokens_reclaimed: plan.reclaimed(),
        cache_cost: plan.cache_cost,
        skipped_foreign: plan.skipped_foreign,
        summary: summary_line(plan, scopes, st, dry),
    }
}

/// pi's projected total once the plan's edits are in (a pure estimate: an edit is newer than
/// any usage).
fn context_after(l: &Loaded, plan: &FoldPlan) -> f64 {
    let sys = replay_system_tokens(&l.session, &l.projection);
    let rest: u64 = l
        .projection
        .messages()
        .filter(|(_, m)| m.role != "system")
        .map(|(_, m)| m.tokens0())
        .sum();
    (sys + rest).saturating_sub(plan.reclaimed()) as f64
}

/// Append the plan's overlays and its log entry.
fn append(
    l: &Loaded,
    plan: &FoldPlan,
    st: &ShakeSettings,
    scopes: &[Scope],
    force: bool,
) -> Result<writer::Written> {
    // The log goes first and names the overlays that follow it: a write cut short can only
    // lose overlays the log already lists (ignored as dangling), never leave unlisted ones.
    let mut batch = Batch::new(&l.session, &l.tree)?;
    let edit_ids: Vec<String> = plan.folds.iter().map(|_| batch.reserve_id()).collect();
    let mut records = Vec::new();
    for (f, edit) in plan.folds.iter().zip(&edit_ids) {
        let base = f.base.map(|b| l.session.entries[b].id_str().to_string());
        for sf in &f.folds {
            records.push(FoldRecord {
                target: f.target_id.clone(),
                edit: edit.clone(),
                scope: sf.scope,
                kind: sf.kind.to_string(),
                tool: f.tool.clone(),
                count: sf.count,
                tokens_before: sf.tokens_before,
                tokens_after: sf.tokens_after,
                base: base.clone(),
            });
        }
    }
    let log = ShakeLog {
        op: "shake".into(),
        tool: "pi-shake".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        profile: Some(st.profile.as_str().into()),
        profile_source: Some(st.source.key().into()),
        tail: Some(st.tail),
        block_min: Some(st.block_min),
        scopes: scopes.to_vec(),
        folds: records,
        restores: Vec::new(),
        tokens_before: plan.folds.iter().map(|f| f.tokens_before).sum(),
        tokens_after: plan.folds.iter().map(|f| f.tokens_after).sum(),
    };
    batch.custom(SHAKE_CUSTOM_TYPE, serde_json::to_value(&log)?);
    for (f, edit) in plan.folds.iter().zip(edit_ids) {
        batch.context_edit_as(edit, &f.target_id, json!({ "content": f.content }));
    }
    writer::commit(
        &l.session,
        &l.tree,
        &l.projection,
        &batch,
        &WriteOptions { force },
    )
}

/// Shake (or dry-run) one session.
pub fn shake_one(path: &Path, args: &ShakeArgs, dry: bool) -> Result<ShakeReport> {
    let l = Loaded::open(path)?;
    let st = crate::settings::shake_settings(
        args.profile,
        args.tail,
        args.block_min,
        l.session.header.cwd.as_deref(),
    );
    if !dry {
        writer::check_writable(&l.session, &l.tree, &l.projection)?;
    }
    let explicit = scopes_of(&args.scope);
    let runs: Vec<Vec<Scope>> = if explicit.is_empty() {
        if dry {
            vec![
                vec![Scope::Elide],
                vec![Scope::Thinking],
                vec![Scope::Images],
            ]
        } else {
            vec![vec![Scope::Elide]]
        }
    } else {
        vec![explicit]
    };
    let mut outs = Vec::new();
    let mut folds = Vec::new();
    let mut written = writer::Written {
        bytes: 0,
        entries: 0,
    };
    let mut after = l.projection.context.tokens;
    let plans = plans_for(&l, &st, &runs)?;
    for (scopes, plan) in runs.iter().zip(plans) {
        outs.push(scope_out(&plan, scopes, &st, dry));
        if runs.len() == 1 {
            for f in &plan.folds {
                folds.push(FoldOut {
                    entry_id: f.target_id.clone(),
                    scopes: f.folds.iter().map(|x| x.scope).collect(),
                    kinds: f.folds.iter().map(|x| x.kind).collect(),
                    tool: f.tool.clone(),
                    tokens_before: f.tokens_before,
                    tokens_after: f.tokens_after,
                });
            }
            if !plan.folds.is_empty() {
                after = context_after(&l, &plan);
                if !dry {
                    written = append(&l, &plan, &st, scopes, args.force)?;
                }
            }
        }
    }
    Ok(ShakeReport {
        schema_version: 1,
        path: path.display().to_string(),
        dry_run: dry,
        profile: st.profile.as_str(),
        profile_source: st.source.key(),
        tail: st.tail,
        block_min: st.block_min,
        runs: outs,
        context_tokens_before: crate::report::js_number(l.projection.context.tokens),
        context_tokens_after: crate::report::js_number(after),
        folds,
        written_entries: written.entries,
        written_bytes: written.bytes,
    })
}

/// Run `shake` / `dry-run` over the resolved sessions.
pub fn run(args: &ShakeArgs, printer: &Printer, dry: bool) -> Result<()> {
    let paths: Vec<PathBuf> =
        crate::settings::resolve_sessions(&args.sessions, &args.find, args.all)?;
    let results = crate::batch::map(&paths, |p: &Path| shake_one(p, args, dry));
    let many = paths.len() > 1;
    let mut docs = Vec::new();
    let mut failures = Vec::new();
    let mut total = 0u64;
    let mut human = String::new();
    for (path, res) in paths.iter().zip(results) {
        match res {
            Ok(r) => {
                for run in &r.runs {
                    total += run.tokens_reclaimed;
                    if many {
                        human.push_str(&format!("{}: {}\n", r.path, run.summary));
                    } else {
                        human.push_str(&run.summary);
                        human.push('\n');
                        if dry && run.entries > 0 {
                            human.push_str(&format!(
                                "[dry-run] · Cache: the next request re-encodes ~{} tokens once, then reads cache at the smaller size.\n",
                                thousands(run.cache_cost)
                            ));
                        }
                    }
                }
                docs.push(serde_json::to_value(&r)?);
            }
            Err(e) => {
                if many {
                    printer.error(&format!("{e:#}"));
                    human.push_str(&format!(
                        "{}: FAILED (exit {})\n",
                        path.display(),
                        crate::error::exit_code_of(&e) as u8
                    ));
                }
                docs.push(json!({"path": path.display().to_string(), "error": format!("{e:#}"), "exitCode": crate::error::exit_code_of(&e) as u8}));
                failures.push(e);
            }
        }
    }
    if many {
        human.push_str(&format!(
            "{} session(s): ~{} tokens {}; {} failed\n",
            paths.len(),
            thousands(total),
            if dry {
                "would be reclaimed"
            } else {
                "reclaimed"
            },
            failures.len()
        ));
        printer.json_doc(&json!({"schemaVersion": 1, "sessions": docs}));
    } else if let Some(d) = docs.into_iter().next() {
        printer.json_doc(&d);
    }
    printer.out(&human);
    match failures.len() {
        0 => Ok(()),
        1 if !many => Err(failures.remove(0)),
        n => {
            let code = failures
                .iter()
                .map(crate::error::exit_code_of)
                .max_by_key(|c| *c as u8);
            let kind = match code {
                Some(crate::error::ExitCode::Unsafe) => FaultKind::Unsafe,
                _ => FaultKind::BadSession,
            };
            Err(Fault::new(kind, format!("{n} of {} session(s) failed", paths.len())).into())
        }
    }
}
