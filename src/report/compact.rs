//! `compact`'s report: the human rendering of a plan and its `--json` document (the plan's
//! own wire types are in [`crate::compact::report`]).

use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};

use super::thousands;
use crate::compact::{CompactPlan, Outcome};

/// What the command did with a plan.
pub struct Done<'a> {
    pub path: &'a Path,
    pub dry_run: bool,
    /// The appended compaction entry, if one was written.
    pub entry_id: Option<String>,
    pub written_bytes: u64,
    /// Where a network scorer sent the session content.
    pub host: Option<String>,
    /// A dry run only: why a real run would refuse to write (the writer's own check).
    pub would_refuse: Option<String>,
}

/// The human report. `written`: whether the compaction was appended (always false for a dry run).
pub fn render(plan: &CompactPlan, dry: bool, written: bool) -> String {
    let c = &plan.counts;
    let z = &plan.sizes;
    let pre = if dry { "[dry-run] · " } else { "" };
    let grows = z.region_after >= z.region_before;
    let mut o = String::new();
    if grows {
        o.push_str(&format!(
            "{pre}{}: the summary (~{} tokens) would not be smaller than the region it replaces (~{} tokens).\n",
            if dry { "Would write nothing" } else { "Nothing written" },
            thousands(z.region_after),
            thousands(z.region_before)
        ));
    }
    let verb = if written {
        "Compacted"
    } else if grows {
        "Planned"
    } else {
        "Would compact"
    };
    let users = if c.user_messages_left_out > 0 {
        format!(
            "{} of {}",
            c.user_messages - c.user_messages_left_out,
            c.user_messages
        )
    } else {
        c.user_messages.to_string()
    };
    o.push_str(&format!(
        "{pre}{verb} {} pairs: {} kept, {} stubbed, {} dropped, {} pinned ({users} user messages kept). Scorer: {}.\n",
        c.pairs, c.kept, c.stubbed, c.dropped, c.pinned, plan.scorer
    ));
    o.push_str(&format!(
        "{pre}Pruned region ~{} → ~{} tokens; context ~{} → ~{} tokens; keeps from {}{}.\n",
        thousands(z.region_before),
        thousands(z.region_after),
        thousands(z.context_estimate_before),
        thousands(z.context_after),
        plan.cut.first_kept_id,
        if plan.cut.is_split_turn {
            " (split turn)"
        } else {
            ""
        }
    ));
    if let Some(b) = &plan.budget {
        let what = match (b.target_ratio, b.max_summary_tokens) {
            (Some(r), Some(m)) => format!(
                "{}% of the region or {} tokens, the smaller",
                pct(r),
                thousands(m)
            ),
            (Some(r), None) => format!("{}% of the region", pct(r)),
            (None, Some(m)) => format!("at most {} tokens", thousands(m)),
            (None, None) => "the region".to_string(),
        };
        o.push_str(&format!(
            "{pre}Budget ~{} tokens ({what}; {}): achieved ~{} tokens ({}% of the region), {} of {} tool-output lines kept{}{}{}.\n",
            thousands(b.tokens),
            b.source,
            thousands(b.achieved),
            pct(b.achieved_ratio),
            thousands(b.lines_kept as u64),
            thousands(b.lines_total as u64),
            b.carried_lines.map_or(String::new(), |[k, n]| format!(
                ", {} of {} lines of the carried summary",
                thousands(k as u64),
                thousands(n as u64)
            )),
            b.command_lines.map_or(String::new(), |[k, n]| format!(
                ", {} of {} lines of multi-line commands",
                thousands(k as u64),
                thousands(n as u64)
            )),
            b.other_output_lines.map_or(String::new(), |[k, n]| format!(
                ", {} of {} lines of other outputs (`!` commands, results without their call)",
                thousands(k as u64),
                thousands(n as u64)
            )),
        ));
        if let Some(last) = b.shrunk.last() {
            o.push_str(&format!(
                "{pre}Shrunk to fit: {} of {} steps, the last: {last} (--json lists them).\n",
                b.shrunk.len(),
                crate::compact::fit::SHRINK_STEPS
            ));
        }
    }
    o.push_str(&format!(
        "{pre}State ~{} tokens; a Jev run would send {} request(s); this scorer sends {}.\n",
        thousands(z.state_tokens),
        plan.batches,
        plan.planned_requests
    ));
    for w in &plan.warnings {
        o.push_str(&format!("{pre}warning: {w}\n"));
    }
    o
}

/// A ratio as a percentage with at most one decimal (`10`, `2.5`).
fn pct(r: f64) -> String {
    let x = (r * 1000.0).round() / 10.0;
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// The `compact --json` document.
pub fn document(plan: &CompactPlan, done: Done<'_>) -> Result<Value> {
    let grows = plan.sizes.region_after >= plan.sizes.region_before;
    let mut doc = serde_json::to_value(plan.report())?;
    if let Some(o) = doc.as_object_mut() {
        o.insert("schemaVersion".into(), json!(1));
        o.insert("path".into(), json!(done.path.display().to_string()));
        o.insert("dryRun".into(), json!(done.dry_run));
        o.insert("compacted".into(), json!(done.entry_id.is_some()));
        o.insert(
            "entryId".into(),
            done.entry_id.map(Value::from).unwrap_or(Value::Null),
        );
        o.insert("writtenBytes".into(), json!(done.written_bytes));
        if grows {
            o.insert(
                "reason".into(),
                json!("the summary would not be smaller than the region it replaces"),
            );
        }
        if let Some(why) = done.would_refuse {
            o.insert("wouldRefuse".into(), json!(why));
        }
        o.insert(
            "receivingHost".into(),
            done.host.map(Value::from).unwrap_or(Value::Null),
        );
        // usage, shrunkPairs, offlinePairs: what the scorer noted (also in `details`).
        plan.notes.extend_json(o);
    }
    Ok(doc)
}

/// Why there is nothing to compact (`AlreadyCompacted` or `NothingToCompact`).
pub fn nothing_reason<T>(o: &Outcome<T>) -> &'static str {
    match o {
        Outcome::AlreadyCompacted => "already compacted (the last entry is a compaction)",
        _ => "the branch holds less than the recent tokens to keep",
    }
}

/// The human line for nothing to compact.
pub fn nothing_human(why: &str) -> String {
    format!("Nothing to compact: {why}.")
}

/// The `--json` document for nothing to compact.
pub fn nothing_document(path: &Path, why: &str) -> Value {
    json!({"schemaVersion": 1, "path": path.display().to_string(), "compacted": false, "reason": why})
}
