//! `pi-shake compact`: the Jev compaction design as a CLI.
//!
//! read → index → project → wall → compact::prepare (cut point = pi's own, region read through
//! pi-shake's folds) → score (offline heuristic by default; Jev, chat or replay when asked) →
//! compact::finish → report → append one `compaction` entry (writer). `--dry-run` stops before
//! the writer and, for network scorers, before the network: it shows the plan the heuristic
//! would make and the number of requests the configured scorer would send.

use anyhow::Result;
use serde_json::{Value, json};

use crate::cli::{CompactArgs, OnScorerError, ScorerArg};
use crate::compact::budget::BudgetSpec;
use crate::compact::{self, CompactOptions, CompactPlan, Outcome};
use crate::error::{Fault, FaultKind};
use crate::load::Loaded;
use crate::output::Printer;
use crate::report::thousands;
use crate::score::chat::{ChatOptions, ChatScorer};
use crate::score::jev::{JevOptions, SystemOne};
use crate::score::offline::Heuristic;
use crate::score::progress::BarProgress;
use crate::score::replay::Replay;
use crate::score::{Scorer, ScorerError};
use crate::writer::{self, Batch, WriteOptions};

fn scorer_fault(e: ScorerError) -> anyhow::Error {
    Fault::new(FaultKind::Scorer, e.to_string())
        .hint("nothing was written; retry, use another --scorer, or pass --on-scorer-error offline")
        .into()
}

/// Build the scorer the flags ask for; `None` host for local scorers.
fn build_scorer(args: &CompactArgs) -> Result<(Box<dyn Scorer>, Option<String>)> {
    let timeout = std::time::Duration::from_secs(args.timeout.max(1));
    Ok(match args.scorer {
        ScorerArg::Offline => (Box::new(Heuristic), None),
        ScorerArg::Replay => {
            let Some(path) = &args.scores_in else {
                return Err(
                    Fault::new(FaultKind::Usage, "--scorer replay needs --scores-in FILE").into(),
                );
            };
            (
                Box::new(Replay::from_file(
                    path,
                    compact::TEMPLATE,
                    args.scores_in_lax,
                )?),
                None,
            )
        }
        ScorerArg::Jev => {
            let opts = JevOptions {
                url: args.jev_url.clone(),
                model: args.jev_model.clone(),
                concurrency: args.concurrency.max(1),
                request_timeout: timeout,
                allow_insecure_http: args.allow_insecure_http,
                ..JevOptions::default()
            };
            let s = SystemOne::new(opts).map_err(scorer_fault)?;
            let host = s.receiving_host();
            (Box::new(s), Some(host))
        }
        ScorerArg::Chat => {
            let Some(model) = args.chat_model.clone() else {
                return Err(
                    Fault::new(FaultKind::Usage, "--scorer chat needs --chat-model NAME").into(),
                );
            };
            let opts = ChatOptions {
                url: args.chat_url.clone(),
                model,
                concurrency: args.concurrency.max(1),
                request_timeout: timeout,
                allow_insecure_http: args.allow_insecure_http,
                ..ChatOptions::default()
            };
            let s = ChatScorer::new(opts).map_err(scorer_fault)?;
            let host = s.receiving_host();
            (Box::new(s), Some(host))
        }
    })
}

/// The human report. `written`: whether the compaction was appended (always false for a dry run).
fn render(plan: &CompactPlan, dry: bool, written: bool) -> String {
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
    o.push_str(&format!(
        "{pre}{verb} {} pairs: {} kept, {} stubbed, {} dropped, {} pinned ({} user messages kept). Scorer: {}.\n",
        c.pairs, c.kept, c.stubbed, c.dropped, c.pinned, c.user_messages, plan.scorer
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
            "{pre}Budget ~{} tokens ({what}; {}): achieved ~{} tokens ({}% of the region), {} of {} tool-output lines kept.\n",
            thousands(b.tokens),
            b.source,
            thousands(b.achieved),
            pct(b.achieved_ratio),
            thousands(b.lines_kept as u64),
            thousands(b.lines_total as u64),
        ));
        if let Some(last) = b.shrunk.last() {
            o.push_str(&format!(
                "{pre}Shrunk to fit: {} of 10 steps, the last: {last} (--json lists them).\n",
                b.shrunk.len()
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

/// The budget: flags, else pi's settings (`shake.compact`), else — for the offline scorer —
/// the default ratio. Jev, chat and replay keep the threshold unless one is given.
fn budget_spec(args: &CompactArgs, cwd: Option<&str>) -> Result<Option<BudgetSpec>> {
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
    let (r, m) = crate::settings::compact_budget(cwd)?;
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

/// Run `compact`.
pub fn run(args: &CompactArgs, printer: &Printer) -> Result<()> {
    let paths = crate::settings::resolve_sessions(&args.sessions, &args.find, false)?;
    let [path] = paths.as_slice() else {
        return Err(Fault::new(FaultKind::Usage, "compact works on one session at a time").into());
    };
    let l = Loaded::open(path)?;
    // --emit-json writes nothing, so it runs while pi has the session open.
    if !args.dry_run && !args.emit_json {
        writer::check_writable(&l.session, &l.tree, &l.projection)?;
    }
    let model_key = last_model(&l);
    let keep = match args.keep_recent_tokens {
        Some(k) => k,
        None => crate::settings::keep_recent_tokens(
            l.session.header.cwd.as_deref(),
            model_key.as_deref(),
        )?,
    };
    let network = matches!(args.scorer, ScorerArg::Jev | ScorerArg::Chat);
    let budget = budget_spec(args, l.session.header.cwd.as_deref())?;
    let opts = CompactOptions {
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
        ..CompactOptions::default()
    };
    // A dry run needs no key: when the network scorer cannot be built, requests are counted
    // from the packing alone.
    let built = match build_scorer(args) {
        Ok(b) => Some(b),
        Err(_) if args.dry_run && network => None,
        Err(e) => return Err(e),
    };
    let host = built.as_ref().and_then(|(_, h)| h.clone());
    let mut fetch = l.fetcher();
    let plan = if args.dry_run && network {
        // A dry run never sends session content: heuristic scores, the real request count.
        let prep = match compact::prepare(
            &l.session,
            &l.tree,
            &l.projection,
            Some(&l.wall),
            &opts,
            &mut fetch,
        )? {
            Outcome::Ready(p) => *p,
            other => return nothing(other, printer, path, args.emit_json),
        };
        let (name, planned, notes) = match &built {
            Some((sc, _)) => (
                sc.name(),
                sc.planned_requests(&prep.request),
                sc.plan_notes(&prep.request),
            ),
            None => (
                format!("{:?}", args.scorer).to_lowercase(),
                compact::count_batches(&prep.request, opts.request_budget),
                compact::plan_notes(&prep.request, opts.request_budget),
            ),
        };
        let spec = opts.budget.clone().unwrap_or(BudgetSpec {
            target_ratio: Some(compact::fit::DEFAULT_RATIO),
            max_summary_tokens: None,
            source: "built-in default".into(),
        });
        let src = compact::fit::Source {
            session: &l.session,
            projection: &l.projection,
            wall: Some(&l.wall),
            fetch: &mut fetch,
        };
        let mut plan = compact::fit::finish(
            prep,
            &spec,
            format!("{name} (dry-run: planned by {})", compact::fit::NAME),
            planned,
            Vec::new(),
            src,
        )?;
        // What the network run would do to oversized pairs.
        plan.warnings.extend(notes.warnings.iter().cloned());
        plan.notes = notes;
        plan
    } else {
        let Some((scorer, _)) = &built else {
            return Err(Fault::new(FaultKind::Usage, "no scorer").into());
        };
        if let Some(h) = &host {
            printer.notice(&format!(
                "compact: sending session content to {h} for scoring"
            ));
        }
        let progress = BarProgress::new(printer.progress_bar(network));
        let out = compact::plan(
            &l.session,
            &l.tree,
            &l.projection,
            Some(&l.wall),
            &opts,
            scorer.as_ref(),
            &progress,
            &mut fetch,
        );
        let out = match out {
            Ok(o) => o,
            Err(e) => match e.downcast::<ScorerError>() {
                Ok(se) => return Err(scorer_fault(se)),
                Err(e) => return Err(e),
            },
        };
        match out {
            Outcome::Ready(p) => *p,
            other => return nothing(other, printer, path, args.emit_json),
        }
    };
    if let Some(out) = &args.scores_out {
        crate::score::replay::write_scores(out, compact::TEMPLATE, &plan.request, &plan.scores)?;
    }
    if args.emit_json {
        return super::compact_emit::emit(&l, &plan, args, printer);
    }
    let mut written = writer::Written {
        bytes: 0,
        entries: 0,
    };
    let mut entry_id = None;
    // Never replace the region with something larger (it would only cost a cold request).
    let grows = plan.sizes.region_after >= plan.sizes.region_before;
    if !args.dry_run && !grows {
        let mut batch = Batch::new(&l.session, &l.tree)?;
        entry_id = Some(compact::append(&plan, &mut batch));
        written = writer::commit(
            &l.session,
            &l.tree,
            &l.projection,
            &batch,
            &WriteOptions { force: args.force },
        )?;
    }
    printer.out(&render(&plan, args.dry_run, entry_id.is_some()));
    let mut doc = serde_json::to_value(plan.report())?;
    if let Some(o) = doc.as_object_mut() {
        o.insert("schemaVersion".into(), json!(1));
        o.insert("path".into(), json!(path.display().to_string()));
        o.insert("dryRun".into(), json!(args.dry_run));
        o.insert("compacted".into(), json!(entry_id.is_some()));
        o.insert(
            "entryId".into(),
            entry_id.map(Value::from).unwrap_or(Value::Null),
        );
        o.insert("writtenBytes".into(), json!(written.bytes));
        if grows {
            o.insert(
                "reason".into(),
                json!("the summary would not be smaller than the region it replaces"),
            );
        }
        o.insert(
            "receivingHost".into(),
            host.map(Value::from).unwrap_or(Value::Null),
        );
        // usage, shrunkPairs, offlinePairs: what the scorer noted (also in `details`).
        plan.notes.extend_json(o);
    }
    printer.json_doc(&doc);
    Ok(())
}

fn nothing<T>(o: Outcome<T>, printer: &Printer, path: &std::path::Path, emit: bool) -> Result<()> {
    let why = match o {
        Outcome::AlreadyCompacted => "already compacted (the last entry is a compaction)",
        _ => "the branch holds less than the recent tokens to keep",
    };
    if emit {
        return Err(Fault::new(FaultKind::Usage, format!("nothing to compact: {why}")).into());
    }
    printer.out(&format!("Nothing to compact: {why}."));
    printer.json_doc(&json!({"schemaVersion": 1, "path": path.display().to_string(), "compacted": false, "reason": why}));
    Ok(())
}

/// `provider/modelId` of the branch's current model (for per-model compaction settings).
pub(crate) fn last_model(l: &Loaded) -> Option<String> {
    let mut m = None;
    for &i in &l.tree.path {
        match &l.session.entries[i].body {
            crate::session::Body::ModelChange {
                provider: Some(p),
                model_id: Some(id),
            } => m = Some(format!("{p}/{id}")),
            crate::session::Body::Message(msg) if msg.role_name == "assistant" => {
                if let (Some(p), Some(id)) = (&msg.provider, &msg.model) {
                    m = Some(format!("{p}/{id}"));
                }
            }
            _ => {}
        }
    }
    m
}
