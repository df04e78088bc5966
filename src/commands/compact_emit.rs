//! `pi-shake compact --emit-json`: the compaction entry's fields, printed instead of written.
//!
//! pi's `session_before_compact` hook may return `{compaction: {summary, firstKeptEntryId,
//! tokensBefore, details}}`; pi then appends the entry itself (with `fromHook: true` and its own
//! `systemMessage`), so the entry lands on pi's in-memory branch and nothing is written behind
//! pi's back. This mode prints exactly those four fields as one JSON object on stdout and
//! writes nothing, so it runs while pi has the session open.
//!
//! The cut: with `--first-kept-entry-id` (pi's `preparation.firstKeptEntryId`) the region is
//! the one pi is about to drop, always. pi-shake's own cut is a port of pi's and normally
//! agrees; when it does not (pi's effective settings differ from what pi-shake read, or pi saw
//! entries pi-shake did not), pi's cut is used — anything else would drop or duplicate content
//! — and `details.cut` says so (`source: "pi"`, `piShakeCut` = the cut pi-shake would have
//! chosen, `agrees: false`). An id that is not on the file's active branch is an error (exit 2):
//! the file is not what pi holds, and pi falls back to its own summary.

use anyhow::Result;
use serde_json::{Value, json};

use crate::cli::CompactArgs;
use crate::compact::{CompactPlan, CutOutcome, cut};
use crate::error::{Fault, FaultKind};
use crate::load::Loaded;
use crate::output::Printer;
use crate::text::thousands;

/// The entry fields `compact` would append for `plan`, as pi's hook returns them.
pub fn fields(l: &Loaded, plan: &CompactPlan, args: &CompactArgs) -> Value {
    let ours = match cut::prepare(
        &l.session,
        &l.tree,
        &l.projection,
        plan.cut.keep_recent_tokens,
    ) {
        CutOutcome::Cut(c) => Some(c.first_kept_id),
        _ => None,
    };
    let given = args.first_kept_entry_id.as_deref();
    let mut details = plan.details();
    if let Some(d) = details.as_object_mut() {
        d.insert(
            "cut".into(),
            json!({
                "firstKeptEntryId": plan.cut.first_kept_id,
                "source": if given.is_some() { "pi" } else { "pi-shake" },
                "piShakeCut": ours,
                "agrees": given.is_none_or(|g| ours.as_deref() == Some(g)),
            }),
        );
        if let Some(text) = args
            .instructions
            .as_deref()
            .filter(|t| !t.trim().is_empty())
        {
            d.insert("instructions".into(), json!(text));
        }
    }
    json!({
        "summary": plan.summary,
        "firstKeptEntryId": plan.cut.first_kept_id,
        "tokensBefore": js_number(plan.cut.tokens_before),
        "details": details,
    })
}

/// Print [`fields`], or fail (nothing printed on stdout) when the summary would not be smaller
/// than the region it replaces — pi then writes its own.
pub fn emit(l: &Loaded, plan: &CompactPlan, args: &CompactArgs, printer: &Printer) -> Result<()> {
    if plan.sizes.region_after >= plan.sizes.region_before {
        return Err(Fault::new(
            FaultKind::Usage,
            format!(
                "the summary (~{} tokens) would not be smaller than the region it replaces (~{} tokens)",
                thousands(plan.sizes.region_after),
                thousands(plan.sizes.region_before)
            ),
        )
        .into());
    }
    printer.emit(&fields(l, plan, args));
    Ok(())
}

/// A number as JS prints it (integers without `.0`).
fn js_number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        json!(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}
