//! `compact`'s settings: flags over pi's settings files (`keepRecentTokens` per model,
//! `shake.compact` budgets) into one [`CompactOptions`].

use anyhow::Result;

use crate::cli::{CompactArgs, OnScorerError, ScorerArg};
use crate::compact::budget::BudgetSpec;
use crate::compact::{self, CompactOptions};
use crate::error::{Fault, FaultKind};
use crate::load::Loaded;
use crate::session::Role;
use crate::settings::PiSettings;

/// The options for `args` on the loaded session.
pub(super) fn resolve(args: &CompactArgs, l: &Loaded, pi: &PiSettings) -> Result<CompactOptions> {
    let model_key = last_model(l);
    let keep = match args.keep_recent_tokens {
        Some(k) => k,
        None => pi.keep_recent_tokens(l.session.header.cwd.as_deref(), model_key.as_deref())?,
    };
    let network = matches!(args.scorer, ScorerArg::Jev | ScorerArg::Chat);
    let budget = budget_spec(args, l.session.header.cwd.as_deref(), pi)?;
    Ok(CompactOptions {
        keep_recent_tokens: keep,
        threshold: args.threshold,
        on_scorer_error_offline: args.on_scorer_error == OnScorerError::Offline,
        first_kept_entry_id: args.first_kept_entry_id.clone(),
        instructions: args.instructions.clone(),
        // The offline selector needs no outputs in memory (unless they are to be written out).
        lite: args.scorer == ScorerArg::Offline && args.scores_out.is_none()
            || args.dry_run && network,
        budget,
        breadcrumbs: args.breadcrumbs,
        // A dry run reports the summary's size, not its text (unless it is to be written out).
        summary_text: !args.dry_run || args.emit_json || args.summary_out.is_some(),
        ..CompactOptions::default()
    })
}

/// The budget: flags, else pi's settings (`shake.compact`), else — for the offline scorer —
/// the default ratio. Jev, chat and replay keep the threshold unless one is given.
fn budget_spec(
    args: &CompactArgs,
    cwd: Option<&str>,
    pi: &PiSettings,
) -> Result<Option<BudgetSpec>> {
    if let Some(r) = args.target_ratio
        && !(r > 0.0 && r <= 1.0)
    {
        return Err(Fault::new(FaultKind::Usage, "--target-ratio must be in (0, 1]").into());
    }
    if args.max_summary_tokens == Some(0) {
        return Err(Fault::new(FaultKind::Usage, "--max-summary-tokens must be at least 1").into());
    }
    if args.target_ratio.is_some() || args.max_summary_tokens.is_some() {
        return Ok(Some(BudgetSpec {
            target_ratio: args.target_ratio,
            max_summary_tokens: args.max_summary_tokens,
            source: match (args.target_ratio, args.max_summary_tokens) {
                (Some(_), Some(_)) => "--target-ratio, --max-summary-tokens",
                (Some(_), None) => "--target-ratio",
                _ => "--max-summary-tokens",
            }
            .into(),
        }));
    }
    let (r, m) = pi.compact_budget(cwd)?;
    if r.is_some() || m.is_some() {
        return Ok(Some(BudgetSpec {
            target_ratio: r,
            max_summary_tokens: m,
            source: "pi settings shake.compact".into(),
        }));
    }
    Ok(
        (args.scorer == ScorerArg::Offline || args.dry_run).then(|| BudgetSpec {
            target_ratio: Some(compact::fit::DEFAULT_RATIO),
            max_summary_tokens: None,
            source: "built-in default".into(),
        }),
    )
}

/// `provider/modelId` of the branch's current model (for per-model compaction settings).
fn last_model(l: &Loaded) -> Option<String> {
    let mut m = None;
    for &i in &l.tree.path {
        match &l.session.entries[i].body {
            crate::session::Body::ModelChange {
                provider: Some(p),
                model_id: Some(id),
            } => m = Some(format!("{p}/{id}")),
            crate::session::Body::Message(msg) if msg.role == Some(Role::Assistant) => {
                if let (Some(p), Some(id)) = (&msg.provider, &msg.model) {
                    m = Some(format!("{p}/{id}"));
                }
            }
            _ => {}
        }
    }
    m
}
