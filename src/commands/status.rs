//! `pi-shake status`: the projection, the wall and the problems of one or more sessions.
//!
//! read → index → project → wall → report. Writes nothing. With no session it lists the
//! current directory's sessions (pi's session directory), newest first.

use std::path::PathBuf;

use anyhow::Result;

use crate::batch::{self, Order};
use crate::cli::StatusArgs;
use crate::error::{ExitCode, Fault, FaultKind};
use crate::load::Loaded;
use crate::output::Printer;
use crate::report::status::{CheckResult, Table};
use crate::settings::PiSettings;

pub use crate::report::human_size;
pub use crate::report::status::{
    BranchOut, HeaderOut, PiOverlaysOut, ProblemOut, ProjRow, StatusReport, WallItemOut, WallOut,
    render, report,
};

/// Run `status`.
pub fn run(args: &StatusArgs, printer: &Printer) -> Result<()> {
    let listing = args.sessions.is_empty()
        && args.find.session.is_none()
        && !args.find.r#continue
        && !args.all;
    let pi = PiSettings::new();
    let paths: Vec<PathBuf> = if listing {
        let l = crate::discovery::list_cwd_sessions(&args.find, &pi);
        if l.sessions.is_empty() {
            return Err(Fault::new(
                FaultKind::Usage,
                format!(
                    "no sessions of this directory in {} (pass a .jsonl path, --session ID or --all)",
                    l.dir.dir.display()
                ),
            )
            .into());
        }
        if l.skipped > 0 {
            printer.note(&format!(
                "note: {} file(s) in {} skipped (not a pi session of this directory; --all lists them)",
                l.skipped,
                l.dir.dir.display()
            ));
        }
        l.sessions
    } else {
        crate::discovery::resolve_sessions(&args.sessions, &args.find, args.all, &pi)?
    };
    let run = batch::run(paths, Order::Parallel, |p| {
        Loaded::open(p).map(|l| report(&l))
    });
    let table = listing || run.many();
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    let mut checks_failed = 0usize;
    let mut rows = Table::new();
    let mut human = String::new();
    for (path, res) in run.paths.iter().zip(run.results) {
        match res {
            Ok(r) => {
                let c = CheckResult::of(&r, args.check, args.max_tokens);
                if c.failed() {
                    checks_failed += 1;
                }
                if table {
                    rows.row(&r, c);
                } else {
                    human.push_str(&crate::report::status::render_one(
                        &r,
                        c,
                        args.max_tokens,
                        printer,
                    ));
                }
                docs.push(crate::report::status::doc(&r, c)?);
            }
            Err(e) => {
                if table {
                    printer.error(&format!("{e:#}"));
                    rows.failed_row(path, crate::error::exit_code_of(&e) as u8);
                }
                docs.push(crate::report::failed_doc(path, &e));
                errors.push(e);
            }
        }
    }
    let total = run.paths.len();
    if table {
        human = rows.finish(total, errors.len(), checks_failed);
    }
    printer.out(&human);
    if table {
        printer.json_doc(&crate::report::envelope(docs));
    } else if let Some(d) = docs.into_iter().next() {
        printer.json_doc(&d);
    }
    // A session status cannot read is a bad session (exit 3) unless its error has a class.
    let errors = errors
        .into_iter()
        .map(|e| {
            if crate::error::exit_code_of(&e) == ExitCode::Failure {
                Fault::new(FaultKind::BadSession, format!("{e:#}")).into()
            } else {
                e
            }
        })
        .collect();
    batch::failure(errors, table, |n| {
        format!("{n} session(s) could not be read")
    })?;
    if checks_failed > 0 {
        return Err(Fault::new(
            FaultKind::Check,
            format!("{checks_failed} session(s) failed the check"),
        )
        .into());
    }
    Ok(())
}
