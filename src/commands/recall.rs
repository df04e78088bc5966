//! `pi-shake recall`: print the full text a reference names — above all a tool call's output
//! that a pi-shake summary cut, by the pair id its call header shows (`t12`).
//!
//! read → index → project (for the active path and pi-shake's own folds) → resolve
//! ([`crate::recall`]) → window → report. Writes nothing.

use anyhow::Result;

use crate::cli::RecallArgs;
use crate::error::{Fault, FaultKind};
use crate::load::Loaded;
use crate::output::Printer;
use crate::recall::{self, Reference};
use crate::report::recall::{RecallReport, render};
use crate::settings::PiSettings;

/// pi's own `read` limits: at most this many lines…
pub const DEFAULT_LINES: usize = 2_000;
/// …and this many bytes, unless `--all`.
pub const MAX_BYTES: usize = 50 * 1024;

/// Run `recall`.
pub fn run(args: &RecallArgs, printer: &Printer) -> Result<()> {
    let pi = PiSettings::new();
    let given: Vec<_> = args.session_file.iter().cloned().collect();
    let paths = crate::discovery::resolve_sessions(&given, &args.find, false, &pi)?;
    let [path] = paths.as_slice() else {
        return Err(Fault::new(FaultKind::Usage, "recall reads one session").into());
    };
    let l = Loaded::open(path)?;
    let r = recall::recall(&l, &Reference::parse(&args.reference))?;
    let (limit, max_bytes) = if args.all {
        (None, None)
    } else {
        (
            Some(
                args.limit
                    .map_or(DEFAULT_LINES, |n| usize::try_from(n).unwrap_or(usize::MAX)),
            ),
            Some(MAX_BYTES),
        )
    };
    let offset = usize::try_from(args.offset).unwrap_or(usize::MAX);
    let w = recall::window(&r.text, offset, limit, max_bytes).ok_or_else(|| {
        Fault::new(
            FaultKind::Usage,
            format!(
                "{}: --offset {} is past the last line of {} ({} lines)",
                path.display(),
                args.offset,
                args.reference,
                recall::line_count(&r.text)
            ),
        )
    })?;
    let report = RecallReport::new(path.display().to_string(), args.reference.clone(), r, w);
    printer.out(&render(&report, l.session.header.cwd.as_deref()));
    printer.json_doc(&serde_json::to_value(&report)?);
    Ok(())
}
