//! `pi-shake recall`: print the full text a reference names — above all a tool call's output
//! that a pi-shake summary cut, by the pair id its call header shows (`t12`) — or, with
//! `--grep`, the lines of the branch's tool outputs that hold a text, each under its call's id.
//!
//! read → index → project (for the active path and pi-shake's own folds) → resolve or search
//! ([`crate::recall`]) → window → report. Writes nothing.

use std::path::PathBuf;

use anyhow::Result;

use crate::cli::RecallArgs;
use crate::error::{Fault, FaultKind};
use crate::load::Loaded;
use crate::output::Printer;
use crate::recall::{self, Found, Reference};
use crate::report::recall::{RecallReport, SearchReport, render, render_search};
use crate::settings::PiSettings;

/// pi's own `read` limits: at most this many lines…
pub const DEFAULT_LINES: usize = 2_000;
/// …and this many bytes, unless `--all`.
pub const MAX_BYTES: usize = 50 * 1024;
/// Matching lines `--grep` shows by default.
pub const DEFAULT_HITS: usize = 200;

/// Whether `r`, given where a REF goes, names an existing session file instead.
fn is_session_file(r: &str) -> bool {
    r.ends_with(".jsonl") && std::path::Path::new(r).is_file()
}

/// A lone argument that names a session file where the REF should be (`recall FILE`).
fn file_missing(
    reference: &Option<String>,
    file: &Option<PathBuf>,
    find: &crate::cli::SessionArgs,
) -> bool {
    file.is_none()
        && find.session.is_none()
        && !find.r#continue
        && reference.as_deref().is_some_and(is_session_file)
}

/// Run `recall`.
pub fn run(args: &RecallArgs, printer: &Printer) -> Result<()> {
    // With --grep the reference may be left out: a lone `.jsonl` that exists is the session.
    let (reference, file) = match (&args.reference, &args.session_file, &args.grep) {
        (Some(r), None, Some(_)) if is_session_file(r) => (None, Some(PathBuf::from(r))),
        (r, f, _) => (r.clone(), f.clone()),
    };
    if file_missing(&reference, &args.session_file, &args.find) {
        return Err(Fault::new(
            FaultKind::Usage,
            "recall needs a REF before the session: pi-shake recall t12 SESSION (or --grep TEXT SESSION)",
        )
        .into());
    }
    let pi = PiSettings::new();
    let given: Vec<_> = file.into_iter().collect();
    let paths = crate::discovery::resolve_sessions(&given, &args.find, false, &pi)?;
    let [path] = paths.as_slice() else {
        return Err(Fault::new(FaultKind::Usage, "recall reads one session").into());
    };
    let l = Loaded::open(path)?;
    let cwd = l.session.header.cwd.as_deref();
    let limit = args.limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    if let Some(text) = &args.grep {
        if text.is_empty() {
            return Err(Fault::new(FaultKind::Usage, "--grep needs a text to look for").into());
        }
        let room = if args.all {
            usize::MAX
        } else {
            limit.unwrap_or(DEFAULT_HITS)
        };
        let found = match &reference {
            Some(r) => {
                let rec = recall::recall(&l, &Reference::parse(r))?;
                let (hits, unshown) = recall::matching(&rec.text, &recall::matcher(text)?, room);
                let total = crate::text::line_count(&rec.text);
                let mut one = recall::Search::default();
                if hits.is_empty() {
                    one.rest_lines = unshown;
                } else {
                    one.found.push(Found {
                        recalled: rec,
                        total,
                        hits,
                        unshown,
                    });
                }
                one
            }
            None => recall::search(&l, text, room)?,
        };
        let report = SearchReport::new(path.display().to_string(), reference, text.clone(), found);
        printer.out(&render_search(&report, cwd));
        printer.json_doc(&serde_json::to_value(&report)?);
        return Ok(());
    }
    let Some(reference) = reference else {
        return Err(Fault::new(FaultKind::Usage, "recall needs a REF (or --grep TEXT)").into());
    };
    let r = recall::recall(&l, &Reference::parse(&reference))?;
    let (limit, max_bytes) = if args.all {
        (None, None)
    } else {
        (Some(limit.unwrap_or(DEFAULT_LINES)), Some(MAX_BYTES))
    };
    let offset = usize::try_from(args.offset).unwrap_or(usize::MAX);
    let w = recall::window(&r.text, offset, limit, max_bytes).ok_or_else(|| {
        Fault::new(
            FaultKind::Usage,
            format!(
                "{}: --offset {} is past the last line of {} ({} lines)",
                path.display(),
                args.offset,
                reference,
                crate::text::line_count(&r.text)
            ),
        )
    })?;
    let report = RecallReport::new(path.display().to_string(), reference, r, w);
    printer.out(&render(&report, cwd));
    printer.json_doc(&serde_json::to_value(&report)?);
    Ok(())
}
