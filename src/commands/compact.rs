//! `pi-shake compact`: the Jev compaction design as a CLI.
//!
//! read → index → project → wall → compact::prepare (cut point = pi's own, region read through
//! pi-shake's folds) → score (offline heuristic by default; Jev, chat or replay when asked) →
//! compact::finish → report → append one `compaction` entry (writer). `--dry-run` stops before
//! the writer and, for network scorers, before the network: it shows the plan the heuristic
//! would make and the number of requests the configured scorer would send.

mod options;
mod scorer;

use anyhow::{Context, Result};

use crate::cli::{CompactArgs, ScorerArg};
use crate::compact::budget::BudgetSpec;
use crate::compact::{self, CompactOptions, CompactPlan, Outcome, Prepared};
use crate::error::{Fault, FaultKind};
use crate::load::Loaded;
use crate::output::Printer;
use crate::report::compact as report;
use crate::score::progress::BarProgress;
use crate::score::{Scorer, ScorerError};
use crate::writer::{self, Batch, WriteOptions};

/// Run `compact`.
pub fn run(args: &CompactArgs, printer: &Printer) -> Result<()> {
    // pi's settings files, read once for the whole run.
    let pi = crate::settings::PiSettings::new();
    let paths = crate::discovery::resolve_sessions(&args.sessions, &args.find, false, &pi)?;
    let [path] = paths.as_slice() else {
        return Err(Fault::new(FaultKind::Usage, "compact works on one session at a time").into());
    };
    let l = Loaded::open(path)?;
    // --emit-json writes nothing, so it runs while pi has the session open. A dry run says
    // what the real run would do, a refusal included.
    let would_refuse = if args.emit_json {
        None
    } else {
        writer::check_writable_unless_dry(&l.session, &l.tree, &l.projection, args.dry_run)?
    };
    let opts = options::resolve(args, &l, &pi)?;
    let network = matches!(args.scorer, ScorerArg::Jev | ScorerArg::Chat);
    // A dry run needs no key: when the network scorer cannot be built, requests are counted
    // from the packing alone.
    let built = match scorer::build_scorer(args) {
        Ok(b) => Some(b),
        Err(_) if args.dry_run && network => None,
        Err(e) => return Err(e),
    };
    let host = built.as_ref().and_then(|(_, h)| h.clone());
    let mut fetch = l.fetcher();
    let mut plan = if args.dry_run && network {
        // A dry run never sends session content: heuristic scores, the real request count.
        let prep = match compact::prepare(&l, &opts, &mut fetch)? {
            Outcome::Ready(p) => *p,
            other => return nothing(other, printer, path, args.emit_json),
        };
        let scorer = built.as_ref().map(|(s, _)| s.as_ref());
        dry_network_plan(&l, args, &opts, scorer, prep, &mut fetch)?
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
        let out = compact::plan(&l, &opts, scorer.as_ref(), &progress, &mut fetch);
        let out = match out {
            Ok(o) => o,
            Err(e) => match e.downcast::<ScorerError>() {
                Ok(se) => return Err(scorer::scorer_fault(se)),
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
    if let Some(out) = &args.summary_out {
        // The user's own file, not the session: written whole, before the session is touched.
        std::fs::write(out, &plan.summary)
            .with_context(|| format!("cannot write the summary to {}", out.display()))?;
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
        entry_id = Some(compact::append(&mut plan, &mut batch));
        written = writer::commit(
            &l.session,
            &l.tree,
            &l.projection,
            &batch,
            &WriteOptions { force: args.force },
        )?;
    }
    if let Some(why) = &would_refuse {
        plan.warnings.push(crate::report::would_refuse(why));
    }
    printer.out(&report::render(&plan, args.dry_run, entry_id.is_some()));
    let done = report::Done {
        path,
        dry_run: args.dry_run,
        entry_id,
        written_bytes: written.bytes,
        host,
        would_refuse,
    };
    printer.json_doc(&report::document(&plan, done)?);
    Ok(())
}

/// A network scorer's dry run: the offline line selector's plan, with the request count and
/// the notes the configured scorer (or, unbuilt, the default packing) would have.
fn dry_network_plan(
    l: &Loaded,
    args: &CompactArgs,
    opts: &CompactOptions,
    scorer: Option<&dyn Scorer>,
    prep: Prepared,
    fetch: compact::Fetch<'_>,
) -> Result<CompactPlan> {
    let (name, planned, notes) = match scorer {
        Some(sc) => (
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
        fetch,
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
    Ok(plan)
}

fn nothing<T>(o: Outcome<T>, printer: &Printer, path: &std::path::Path, emit: bool) -> Result<()> {
    let why = report::nothing_reason(&o);
    if emit {
        return Err(Fault::new(FaultKind::Usage, format!("nothing to compact: {why}")).into());
    }
    printer.out(&report::nothing_human(why));
    printer.json_doc(&report::nothing_document(path, why));
    Ok(())
}
