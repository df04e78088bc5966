//! `undo`: the wire type of one session's report and its summary sentence.

use serde::Serialize;
use serde_json::Value;

use super::thousands;
use crate::plan::undo::UndoPlan;

/// `undo --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoReport {
    pub schema_version: u32,
    pub path: String,
    pub restored: usize,
    pub tokens_restored: u64,
    pub moot: usize,
    pub superseded: usize,
    pub entry_ids: Vec<String>,
    pub written_entries: usize,
    pub written_bytes: u64,
    pub context_tokens_before: Value,
    pub summary: String,
}

/// Tokens the plan's restores bring back into context.
pub fn tokens_restored(plan: &UndoPlan) -> u64 {
    plan.restores
        .iter()
        .map(|r| r.tokens_after.saturating_sub(r.tokens_before))
        .sum()
}

/// The summary sentence of an undo plan.
pub fn summary(plan: &UndoPlan) -> String {
    let tokens = tokens_restored(plan);
    let mut summary = if plan.restores.is_empty() {
        "Nothing to undo.".to_string()
    } else {
        format!(
            "Restored {} folded entr{} (~{} tokens back in context).",
            thousands(plan.restores.len() as u64),
            if plan.restores.len() == 1 { "y" } else { "ies" },
            thousands(tokens)
        )
    };
    if plan.moot > 0 {
        summary.push_str(&format!(
            " {} fold(s) behind a later compaction left as they are (moot).",
            plan.moot
        ));
    }
    if plan.superseded > 0 {
        summary.push_str(&format!(
            " {} fold(s) superseded by someone else's overlay left alone.",
            plan.superseded
        ));
    }
    summary
}

/// The human line of one session among many.
pub fn render_row(r: &UndoReport) -> String {
    format!("{}: {}", r.path, r.summary)
}
