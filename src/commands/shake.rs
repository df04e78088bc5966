//! `pi-shake shake` and `pi-shake dry-run`: fold heavy old content into placeholders.
//!
//! settings → read → index → project → wall → plan (plan::fold) → ops → append (writer) →
//! report. `dry-run` runs the same planner and stops before the writer: bytes and mtime stay
//! unchanged. Without `--scope`, `shake` folds `elide` and `dry-run` reports each scope on its
//! own line.

use std::path::Path;

use anyhow::Result;

use crate::batch::{self, Order};
use crate::cli::ShakeArgs;
use crate::load::Loaded;
use crate::output::Printer;
use crate::plan::fold::{self, FoldParams, FoldPlan};
use crate::projection::replay_system_tokens;
use crate::report::shake::{fold_out, scope_out};
use crate::session::Role;
use crate::settings::{PiSettings, ShakeSettings};
use crate::wall::Scope;
use crate::writer::{self, WriteOptions};

pub use crate::report::shake::{FoldOut, ScopeOut, ShakeReport, summary_line};

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

/// pi's projected total once the plan's edits are in (a pure estimate: an edit is newer than
/// any usage).
fn context_after(l: &Loaded, plan: &FoldPlan) -> f64 {
    let sys = replay_system_tokens(&l.session, &l.projection);
    let rest: u64 = l
        .projection
        .messages()
        .filter(|(_, m)| Role::parse_str(&m.role) != Role::System)
        .map(|(_, m)| m.tokens0())
        .sum();
    (sys + rest).saturating_sub(plan.reclaimed()) as f64
}

/// Shake (or dry-run) one session, reading pi's settings files for it.
pub fn shake_one(path: &Path, args: &ShakeArgs, dry: bool) -> Result<ShakeReport> {
    shake_one_with(path, args, &PiSettings::new(), dry)
}

/// [`shake_one`] with pi's settings files already read (once per run).
pub fn shake_one_with(
    path: &Path,
    args: &ShakeArgs,
    pi: &PiSettings,
    dry: bool,
) -> Result<ShakeReport> {
    let l = Loaded::open(path)?;
    let st = pi.shake_settings(
        args.profile,
        args.tail,
        args.block_min,
        l.session.header.cwd.as_deref(),
    );
    // A dry run says what the real run would do, a refusal included.
    let would_refuse = writer::check_writable_unless_dry(&l.session, &l.tree, &l.projection, dry)?;
    let runs = crate::settings::shake_runs(&args.scope, dry);
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
            folds.extend(plan.folds.iter().map(fold_out));
            if !plan.folds.is_empty() {
                after = context_after(&l, &plan);
                if !dry {
                    let batch = crate::ops::fold_entries(&l, &plan, &st, scopes)?;
                    let opts = WriteOptions { force: args.force };
                    written = writer::commit(&l.session, &l.tree, &l.projection, &batch, &opts)?;
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
        would_refuse,
    })
}

/// Run `shake` / `dry-run` over the resolved sessions.
pub fn run(args: &ShakeArgs, printer: &Printer, dry: bool) -> Result<()> {
    let pi = PiSettings::new();
    let paths = crate::discovery::resolve_sessions(&args.sessions, &args.find, args.all, &pi)?;
    let run = batch::run(paths, Order::Parallel, |p| {
        shake_one_with(p, args, &pi, dry)
    });
    let many = run.many();
    let total = run.paths.len();
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    let mut reclaimed = 0u64;
    let mut human = String::new();
    for (path, res) in run.paths.iter().zip(run.results) {
        match res {
            Ok(r) => {
                reclaimed += r.runs.iter().map(|run| run.tokens_reclaimed).sum::<u64>();
                human.push_str(&if many {
                    crate::report::shake::render_row(&r)
                } else {
                    crate::report::shake::render_one(&r)
                });
                docs.push(serde_json::to_value(&r)?);
            }
            Err(e) => {
                if many {
                    printer.error(&format!("{e:#}"));
                    let code = crate::error::exit_code_of(&e) as u8;
                    human.push_str(&crate::report::shake::failed_row(path, code));
                }
                docs.push(crate::report::failed_doc(path, &e));
                errors.push(e);
            }
        }
    }
    if many {
        human.push_str(&crate::report::shake::totals(
            total,
            reclaimed,
            dry,
            errors.len(),
        ));
        printer.json_doc(&crate::report::envelope(docs));
    } else if let Some(d) = docs.into_iter().next() {
        printer.json_doc(&d);
    }
    printer.out(&human);
    batch::failure(errors, many, |n| {
        format!("{n} of {total} session(s) failed")
    })
}
