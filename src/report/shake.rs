//! `shake` / `dry-run`: the wire types of one session's report, the design's summary sentence,
//! and the human lines (one session, or one line per session and a totals line).

use serde::Serialize;
use serde_json::Value;

use super::thousands;
use crate::plan::fold::{FoldPlan, PlannedFold};
use crate::settings::ShakeSettings;
use crate::wall::Scope;

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
    /// A dry run only: why a real run would refuse to write (the writer's own check).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub would_refuse: Option<String>,
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

/// One scope's line of the report.
pub fn scope_out(plan: &FoldPlan, scopes: &[Scope], st: &ShakeSettings, dry: bool) -> ScopeOut {
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

/// One folded entry of the report.
pub fn fold_out(f: &PlannedFold) -> FoldOut {
    FoldOut {
        entry_id: f.target_id.clone(),
        scopes: f.folds.iter().map(|x| x.scope).collect(),
        kinds: f.folds.iter().map(|x| x.kind).collect(),
        tool: f.tool.clone(),
        tokens_before: f.tokens_before,
        tokens_after: f.tokens_after,
    }
}

/// The human lines of one session: each run's summary (and, for a dry run that would fold
/// something, its cache cost).
pub fn render_one(r: &ShakeReport) -> String {
    let mut o = String::new();
    for run in &r.runs {
        o.push_str(&run.summary);
        o.push('\n');
        if r.dry_run && run.entries > 0 {
            o.push_str(&format!(
                "[dry-run] · Cache: the next request re-encodes ~{} tokens once, then reads cache at the smaller size.\n",
                thousands(run.cache_cost)
            ));
        }
    }
    if let Some(why) = &r.would_refuse {
        o.push_str(&format!(
            "[dry-run] · warning: {}\n",
            super::would_refuse(why)
        ));
    }
    o
}

/// One line per run of one session among many.
pub fn render_row(r: &ShakeReport) -> String {
    r.runs
        .iter()
        .map(|run| format!("{}: {}\n", r.path, run.summary))
        .chain(
            r.would_refuse
                .iter()
                .map(|why| format!("{}: warning: {}\n", r.path, super::would_refuse(why))),
        )
        .collect()
}

/// The row of a session that failed.
pub fn failed_row(path: &std::path::Path, code: u8) -> String {
    format!("{}: FAILED (exit {code})\n", path.display())
}

/// The totals line of many sessions.
pub fn totals(sessions: usize, reclaimed: u64, dry: bool, failed: usize) -> String {
    format!(
        "{} session(s): ~{} tokens {}; {} failed\n",
        sessions,
        thousands(reclaimed),
        if dry {
            "would be reclaimed"
        } else {
            "reclaimed"
        },
        failed
    )
}
