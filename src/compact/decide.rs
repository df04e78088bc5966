//! Steps 5–6 of the compaction: the scorer's answers → keep / stub / drop at the threshold
//! ([`finish`]), the whole pipeline with the budgeted path and the offline fallback ([`plan`]).

use anyhow::Result;

use super::region::Pin;
use super::{
    Action, CompactOptions, CompactPlan, Counts, Decision, Fetch, Outcome, PairReport, PairSignals,
    Prepared, fit, prepare, pruner, render, text,
};
use crate::load::Loaded;
use crate::score::offline::{self, Heuristic, Signals};
use crate::score::{PairScore, Progress, ScoreRequest, ScoreSource, Scorer, ScorerError};
use crate::session::Body;

/// Steps 5–6: scores → actions, render, sizes.
pub fn finish(
    prep: Prepared,
    scorer: String,
    planned_requests: usize,
    scores: Vec<PairScore>,
    signals: Option<Vec<Signals>>,
) -> Result<CompactPlan> {
    let o = &prep.options;
    let mut reports = Vec::with_capacity(prep.pairs.len());
    let mut actions = Vec::with_capacity(prep.pairs.len());
    let probe_map = prep.request.question_tokens();
    let probe_tokens = |id: &str| probe_map.get(id).copied().unwrap_or(0);
    let score_map: std::collections::HashMap<&str, &PairScore> =
        scores.iter().map(|s| (s.pair_id.as_str(), s)).collect();
    let signal_map: std::collections::HashMap<&str, &Signals> = signals
        .iter()
        .flatten()
        .map(|s| (s.pair_id.as_str(), s))
        .collect();
    for (i, pair) in prep.pairs.iter().enumerate() {
        let id = pair.id();
        let score = score_map.get(id.as_str()).copied();
        let action = if prep.pins[i].is_some() {
            Action::Pinned
        } else if pair.result_msg.is_none() {
            Action::Unpaired
        } else {
            let Some(sc) = score else {
                anyhow::bail!("the scorer returned no score for pair {id}");
            };
            if sc.useful < o.threshold {
                Action::Drop
            } else if sc.full >= o.threshold {
                Action::Keep
            } else {
                Action::Stub
            }
        };
        actions.push(action);
        let scored = matches!(action, Action::Keep | Action::Stub | Action::Drop);
        reports.push(PairReport {
            id: id.clone(),
            tool: pair.tool.clone(),
            call_entry: prep.msgs[pair.call_msg].entry_id.clone(),
            result_entry: pair.result_msg.map(|j| prep.msgs[j].entry_id.clone()),
            output_chars: text::clen(&pair.output),
            command_lines: None,
            is_error: pair.is_error,
            action,
            pin: prep.pins[i],
            useful: score.filter(|_| scored).map(|s| s.useful),
            full: score.filter(|_| scored).map(|s| s.full),
            source: score.filter(|_| scored).map(|s| s.source),
            model: score.filter(|_| scored).and_then(|s| s.model.clone()),
            signals: signal_map
                .get(id.as_str())
                .filter(|_| {
                    scored && score.is_some_and(|s| s.source == crate::score::ScoreSource::Offline)
                })
                .map(|x| PairSignals::Heuristic((*x).clone())),
            lines: None,
            question_tokens: probe_tokens(&id),
        });
    }
    let mut decided: Vec<render::Decided<'_>> = prep
        .pairs
        .iter()
        .enumerate()
        .map(|(i, pair)| {
            let action = actions[i];
            let out = prep.pin_outputs[i].as_deref().unwrap_or(&pair.output);
            let body = match (action, prep.pins[i]) {
                (Action::Drop, _) => None,
                (_, Some(Pin::EditWrite)) => Some((String::new(), out.to_string())),
                (_, Some(pin)) => Some(render::pin_body(out, pin, o.git_head, usize::MAX)),
                (Action::Keep | Action::Stub, None) => Some(render::threshold_body(
                    &pair.output,
                    action,
                    o.stub_fraction,
                    o.stub_cap,
                )),
                _ => None,
            };
            render::Decided {
                pair,
                ident: render::ident(pair, prep.cwd.as_deref()).into(),
                action,
                pin: prep.pins[i],
                body,
                pin_body: true,
                script: None,
            }
        })
        .collect();
    let ro = render::RenderOptions {
        keep_text: true,
        user_whole: o.text_whole,
        user_window: o.text_window,
        user_keep: None,
        text_whole: o.text_whole,
        text_keep: None,
        text_window: o.text_window,
        edit_head: o.edit_head,
        write_body_max: o.write_body_max,
        drop_notes: true,
        changed_files: false,
        cwd: prep.cwd.clone(),
        breadcrumbs: o.breadcrumbs,
        carried_cap: usize::MAX,
        title: render::Title::Full,
        pruner: pruner(),
        scorer: scorer.clone(),
    };
    let summary = render::render(
        &prep.msgs,
        &mut decided,
        prep.previous_summary.as_deref().map(render::Carry::Whole),
        &ro,
        0,
        &mut |_, _| Ok(()),
        None,
    )?;
    let counts = Counts::of(&reports, prep.user_messages);
    Ok(CompactPlan::assemble(
        prep,
        Decision {
            scorer,
            summary_tokens: crate::jscompat::tokens_from_chars(summary.u16 as u64),
            summary: summary.text,
            pairs: reports,
            counts,
            planned_requests,
            scores,
            warnings: Vec::new(),
            budget: None,
        },
    ))
}

/// The whole pipeline: [`prepare`], score the unpinned pairs with `scorer`, [`finish`].
///
/// A scorer failure is returned as an [`anyhow::Error`] wrapping the [`ScorerError`] (downcast
/// it for the exit code) unless `on_scorer_error_offline`, which scores the missing pairs with
/// the offline heuristic.
pub fn plan(
    l: &Loaded,
    opts: &CompactOptions,
    scorer: &dyn Scorer,
    progress: &dyn Progress,
    fetch: Fetch<'_>,
) -> Result<Outcome<CompactPlan>> {
    let prep = match prepare(l, opts, fetch)? {
        Outcome::Ready(p) => *p,
        Outcome::AlreadyCompacted => return Ok(Outcome::AlreadyCompacted),
        Outcome::NothingToCompact => return Ok(Outcome::NothingToCompact),
    };
    let mut plan = scored(l, prep, opts, scorer, progress, fetch)?;
    let notes = scorer.notes();
    plan.warnings.extend(notes.warnings.iter().cloned());
    plan.warnings.extend(over_sent(l, &plan));
    plan.notes = notes;
    Ok(Outcome::Ready(Box::new(plan)))
}

/// [`plan`]'s decision for a prepared region: under a budget the fit (another scorer's answers
/// as priors), else the scorer's answers at the threshold.
fn scored(
    l: &Loaded,
    prep: Prepared,
    opts: &CompactOptions,
    scorer: &dyn Scorer,
    progress: &dyn Progress,
    fetch: Fetch<'_>,
) -> Result<CompactPlan> {
    let name = scorer.name();
    let planned = scorer.planned_requests(&prep.request);
    if let Some(spec) = opts.budget.clone() {
        // Under a budget the embedded scorer is the line selector itself; another scorer's
        // answers become priors on its pairs.
        let (priors, name) = if name == offline::NAME || prep.request.probes.is_empty() {
            (Vec::new(), fit::NAME.to_string())
        } else {
            match scorer.score(&prep.request, progress) {
                Ok(s) => (s, format!("{name}, fitted by {}", fit::NAME)),
                Err(e) if opts.on_scorer_error_offline => (
                    e.partial,
                    format!("{name} (partial), fitted by {}", fit::NAME),
                ),
                Err(e) => return Err(anyhow::Error::new(e)),
            }
        };
        let src = fit::Source {
            session: &l.session,
            projection: &l.projection,
            wall: Some(&l.wall),
            fetch,
        };
        return fit::finish(prep, &spec, name, planned, priors, src);
    }
    let (scores, mut name) = if prep.request.probes.is_empty() {
        (Vec::new(), name)
    } else {
        match scorer.score(&prep.request, progress) {
            Ok(s) => (s, name),
            Err(e) if opts.on_scorer_error_offline => fallback(&prep.request, e, name),
            Err(e) => return Err(anyhow::Error::new(e)),
        }
    };
    // The heuristic's signals are only reported beside offline scores, so they are computed
    // exactly when a score says it came from the heuristic (the offline scorer, a fallback).
    let offline_used = scores.iter().any(|s| s.source == ScoreSource::Offline);
    let signals = offline_used.then(|| Heuristic.explain(&prep.request));
    if name.is_empty() {
        name = offline::NAME.to_string();
    }
    finish(prep, name, planned, scores, signals)
}

/// The largest context the session shows it sent its model: pi's `calculateContextTokens` of
/// each valid assistant `usage` in the file (any branch), if one is recorded.
pub fn largest_sent(l: &Loaded) -> Option<f64> {
    l.session
        .entries
        .iter()
        .filter_map(|e| match &e.body {
            Body::Message(m) => m.valid_usage(),
            _ => None,
        })
        .reduce(f64::max)
}

/// The context after a compaction may exceed the largest the session has sent by this factor
/// before [`over_sent`] warns: pi's chars/4 estimate and a model's tokenizer disagree by that
/// much on code and logs.
const OVER_SENT_MARGIN: f64 = 1.25;

/// A warning when the summary makes the context after the compaction larger than any the
/// session has sent its model ([`OVER_SENT_MARGIN`] aside): a region that grew without being
/// sent, a synthetic session. Only when the kept part alone fits, so a smaller budget is the
/// fix. pi-shake knows no model's context window; the usage pi recorded is the evidence it has.
fn over_sent(l: &Loaded, plan: &CompactPlan) -> Option<String> {
    let sent = largest_sent(l)?;
    let after = plan.sizes.context_after;
    let kept = after.saturating_sub(plan.sizes.region_after);
    (after as f64 > sent * OVER_SENT_MARGIN && (kept as f64) < sent).then(|| {
        format!(
            "the compacted context (~{} tokens) is larger than any this session has sent its model (~{} tokens, by the usage pi recorded); the model may refuse it: a smaller --target-ratio or --max-summary-tokens fits it",
            crate::text::thousands(after),
            crate::text::thousands(sent.round() as u64)
        )
    })
}

fn fallback(req: &ScoreRequest, e: ScorerError, name: String) -> (Vec<PairScore>, String) {
    let mut scores = e.partial;
    let have: std::collections::BTreeSet<String> =
        scores.iter().map(|s| s.pair_id.clone()).collect();
    for sig in Heuristic.explain(req) {
        if !have.contains(&sig.pair_id) {
            scores.push(PairScore {
                pair_id: sig.pair_id,
                useful: sig.useful,
                full: sig.full,
                source: crate::score::ScoreSource::Offline,
                model: None,
            });
        }
    }
    (scores, format!("{name} + {}", offline::NAME))
}
