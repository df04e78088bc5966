//! `pi-shake undo`: restore everything pi-shake folded, as one new operation.
//!
//! read → index → project → wall → plan (plan::undo) → ops → append (writer) → report. All or
//! nothing; idempotent (a second undo appends nothing). Nothing is ever deleted: undo appends
//! newer overlays whose content is the original, and one log entry.

use std::path::Path;

use anyhow::Result;

use crate::batch::{self, Order};
use crate::cli::UndoArgs;
use crate::load::Loaded;
use crate::output::Printer;
use crate::plan::undo;
use crate::settings::PiSettings;
use crate::writer::{self, WriteOptions};

pub use crate::report::undo::UndoReport;

/// Undo one session.
pub fn undo_one(path: &Path, force: bool) -> Result<UndoReport> {
    let sink = writer::Sink {
        chunk_bytes: writer::CHUNK_BYTES,
        write: &mut |f, b| std::io::Write::write_all(f, b),
    };
    undo_one_with(path, force, sink)
}

/// [`undo_one`] with the streamed append's [`writer::Sink`] injected (fault-injection tests).
pub fn undo_one_with(path: &Path, force: bool, sink: writer::Sink<'_>) -> Result<UndoReport> {
    let l = Loaded::open(path)?;
    let plan = undo::plan(&l.wall);
    let mut written = writer::Written {
        bytes: 0,
        entries: 0,
    };
    if !plan.restores.is_empty() {
        writer::check_writable(&l.session, &l.tree, &l.projection)?;
        let (batch, mut more) = crate::ops::undo_entries(&l, &plan)?;
        written = writer::commit_streaming_with(
            &l.session,
            &l.tree,
            &l.projection,
            batch,
            &mut more,
            &WriteOptions { force },
            sink,
        )?;
    }
    Ok(UndoReport {
        schema_version: 1,
        path: path.display().to_string(),
        restored: plan.restores.len(),
        tokens_restored: crate::report::undo::tokens_restored(&plan),
        moot: plan.moot,
        superseded: plan.superseded,
        entry_ids: plan.restores.iter().map(|r| r.target_id.clone()).collect(),
        written_entries: written.entries,
        written_bytes: written.bytes,
        context_tokens_before: crate::report::js_number(l.projection.context.tokens),
        summary: crate::report::undo::summary(&plan),
    })
}

/// Run `undo`.
pub fn run(args: &UndoArgs, printer: &Printer) -> Result<()> {
    let pi = PiSettings::new();
    let paths = crate::discovery::resolve_sessions(&args.sessions, &args.find, false, &pi)?;
    // One after the other: a path given twice finds its first undo already appended.
    let run = batch::run(paths, Order::Sequential, |p| undo_one(p, args.force));
    let many = run.many();
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for (path, res) in run.paths.iter().zip(run.results) {
        match res {
            Ok(r) => {
                printer.out(&if many {
                    crate::report::undo::render_row(&r)
                } else {
                    r.summary.clone()
                });
                docs.push(serde_json::to_value(&r)?);
            }
            Err(e) => {
                if many {
                    printer.error(&format!("{e:#}"));
                }
                docs.push(crate::report::failed_doc(path, &e));
                errors.push(e);
            }
        }
    }
    if many {
        printer.json_doc(&crate::report::envelope(docs));
    } else if let Some(d) = docs.into_iter().next() {
        printer.json_doc(&d);
    }
    // undo keeps its own observable rule: the first failed session's error, even among many.
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
