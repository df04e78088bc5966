//! What a fit reports besides its summary: one [`PairReport`] per pair ([`pair_reports`]), the
//! embedded selector's own answers as scores ([`own_scores`]), and its warnings ([`warnings`]).

use std::collections::HashMap;

use crate::compact::region::{Pair, Pin};
use crate::compact::report::{Action, PairReport, PairSignals};
use crate::score::PairScore;

/// What the fit decided for one pair, for its report.
pub(super) struct Fitted {
    pub(super) action: Action,
    /// Lines of its output kept, of all (when it has line features).
    pub(super) lines: Option<[usize; 2]>,
    /// Lines of its multi-line command's rest kept, of all.
    pub(super) command_lines: Option<[usize; 2]>,
    pub(super) factor: f32,
    /// The factor's reasons.
    pub(super) why: Vec<&'static str>,
}

/// One report per pair: the pair (taken out of the plan's input), the entries of its call and
/// result (`entry_ids`, by message), its pin, and what the fit decided for it.
pub(super) fn pair_reports(
    pairs: Vec<Pair>,
    entry_ids: &[String],
    pins: &[Option<Pin>],
    fitted: Vec<Fitted>,
    prior_map: &HashMap<String, PairScore>,
    probe_map: &HashMap<&str, u64>,
) -> Vec<PairReport> {
    let mut reports = Vec::with_capacity(pairs.len());
    for ((i, p), f) in pairs.into_iter().enumerate().zip(fitted) {
        let id = p.id();
        let prior = prior_map.get(&id);
        reports.push(PairReport {
            tool: p.tool,
            call_entry: entry_ids[p.call_msg].clone(),
            result_entry: p.result_msg.map(|j| entry_ids[j].clone()),
            output_chars: p.output_chars,
            is_error: p.is_error,
            action: f.action,
            pin: pins[i],
            useful: prior.map(|s| s.useful),
            full: prior.map(|s| s.full),
            source: prior.map(|s| s.source),
            model: prior.and_then(|s| s.model.clone()),
            signals: (pins[i].is_none() && p.result_msg.is_some()).then(|| PairSignals::Budget {
                factor: (f64::from(f.factor) * 1000.0).round() / 1000.0,
                why: f.why,
            }),
            lines: f.lines.filter(|_| p.result_msg.is_some()),
            command_lines: f.command_lines,
            question_tokens: probe_map.get(id.as_str()).copied().unwrap_or(0),
            id,
        });
    }
    reports
}

/// The embedded selector's own answers, as scores (`--scores-out`): useful = some line kept,
/// full = kept whole. Replayed with the threshold they give the same keep/stub/drop. Also set
/// on the reports.
pub(super) fn own_scores(
    reports: &mut [PairReport],
    probe_map: &HashMap<&str, u64>,
) -> Vec<PairScore> {
    reports
        .iter_mut()
        .filter(|r| matches!(r.action, Action::Keep | Action::Stub | Action::Drop))
        .filter(|r| probe_map.contains_key(r.id.as_str()))
        .map(|r| {
            let useful = if r.action == Action::Drop { 0.0 } else { 1.0 };
            let full = if r.action == Action::Keep { 1.0 } else { 0.0 };
            r.useful = Some(useful);
            r.full = Some(full);
            r.source = Some(crate::score::ScoreSource::Offline);
            PairScore {
                pair_id: r.id.clone(),
                useful,
                full,
                source: crate::score::ScoreSource::Offline,
                model: None,
            }
        })
        .collect()
}

/// The fit's warnings: a summary over its budget even at its smallest form, and a previous
/// summary larger than this one's whole budget (with how many of its lines stay).
pub(super) fn warnings(
    summary_tokens: u64,
    budget: u64,
    carried_tokens: u64,
    carried_lines: Option<[usize; 2]>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if summary_tokens > budget {
        warnings.push(format!(
            "the summary (~{} tokens) is over its budget (~{} tokens): even its smallest form (its title, with every user message left out) needs more",
            crate::text::thousands(summary_tokens),
            crate::text::thousands(budget)
        ));
    }
    if carried_tokens > budget {
        // A compaction soon after the last one: the budget is a share of a small region, so the
        // history the previous summary carried cannot all stay.
        let kept = carried_lines.map_or(String::new(), |[k, t]| {
            format!(
                ": {} of its {} lines stay",
                crate::text::thousands(k as u64),
                crate::text::thousands(t as u64)
            )
        });
        warnings.push(format!(
            "the previous compaction's summary (~{} tokens) is larger than this summary's whole budget (~{} tokens){kept}; a larger --target-ratio or --max-summary-tokens keeps more of that history",
            crate::text::thousands(carried_tokens),
            crate::text::thousands(budget)
        ));
    }
    warnings
}
