//! `recall`: the wire type of what was recalled and its human rendering (a header line, the
//! text, and a line saying how to read on when lines are left).

use serde::Serialize;
use serde_json::Value;

use super::thousands;
use crate::recall::{Recalled, Window};

/// `recall --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecallReport {
    pub schema_version: u32,
    pub path: String,
    /// The reference as given.
    pub reference: String,
    /// The entry whose text this is.
    pub entry_id: String,
    /// pi's role name of its message (`toolResult`, `user`, …).
    pub role: String,
    /// The pair id of the call (`t12`), when the text is a tool call's output.
    pub pair_id: Option<String>,
    pub call_entry_id: Option<String>,
    pub tool: Option<String>,
    pub arguments: Option<Value>,
    pub is_error: bool,
    /// Image blocks (never printed).
    pub images: usize,
    /// A `context_edit` pi-shake did not write whose content this is.
    pub edited_by: Option<String>,
    /// That edit removed the message: no text.
    pub hidden: bool,
    /// The lines shown: `firstLine`..=`lastLine` of `totalLines`.
    pub first_line: usize,
    pub last_line: usize,
    pub total_lines: usize,
    /// Lines after the window (read on with `--offset lastLine+1`).
    pub more: bool,
    /// The window's one line was cut at the byte cap.
    pub line_cut: bool,
    pub text: String,
}

impl RecallReport {
    /// The report of `r`, shown through `w`.
    pub fn new(path: String, reference: String, r: Recalled, w: Window) -> RecallReport {
        let more = w.more();
        let (pair_id, call_entry_id, tool, arguments) = match r.call {
            Some(c) => (
                Some(c.pair_id),
                Some(c.entry_id),
                Some(c.tool),
                Some(c.args),
            ),
            None => (None, None, None, None),
        };
        RecallReport {
            schema_version: 1,
            path,
            reference,
            entry_id: r.entry_id,
            role: r.role,
            pair_id,
            call_entry_id,
            tool,
            arguments,
            is_error: r.is_error,
            images: r.images,
            edited_by: r.edited_by,
            hidden: r.hidden,
            first_line: w.first,
            last_line: w.last,
            total_lines: w.total,
            more,
            line_cut: w.line_cut,
            text: w.text,
        }
    }
}

/// `t12 · bash `cargo test` · result 9c1d2e3f · lines 1–40 of 40`, the text, then (when lines
/// are left) how to read on.
pub fn render(r: &RecallReport, cwd: Option<&str>) -> String {
    let mut head: Vec<String> = Vec::new();
    match (&r.pair_id, &r.tool) {
        (Some(id), Some(tool)) => {
            head.push(id.clone());
            let args = r.arguments.as_ref().unwrap_or(&Value::Null);
            head.push(
                format!("{tool} {}", crate::compact::render::ident_of(args, cwd))
                    .trim_end()
                    .to_string(),
            );
            head.push(format!("result {}", r.entry_id));
        }
        _ => head.push(format!("{} · {} message", r.entry_id, r.role)),
    }
    if r.is_error {
        head.push("error".into());
    }
    if r.images > 0 {
        head.push(format!("{} image(s) not shown", r.images));
    }
    if let Some(e) = &r.edited_by {
        head.push(if r.hidden {
            format!("removed from the context by context_edit {e} (not pi-shake's): not shown")
        } else {
            format!("as context_edit {e} (not pi-shake's) left it")
        });
    }
    if !r.hidden {
        head.push(if r.total_lines == 0 {
            "empty".into()
        } else if r.first_line == r.last_line {
            format!(
                "line {} of {}",
                thousands(r.first_line as u64),
                thousands(r.total_lines as u64)
            )
        } else {
            format!(
                "lines {}–{} of {}",
                thousands(r.first_line as u64),
                thousands(r.last_line as u64),
                thousands(r.total_lines as u64)
            )
        });
    }
    let mut out = head.join(" · ");
    if !r.hidden && r.total_lines > 0 {
        out.push('\n');
        out.push_str(&r.text);
    }
    if r.line_cut {
        out.push_str(&format!(
            "\n[line {} cut at the size cap; --all prints it whole]",
            thousands(r.first_line as u64)
        ));
    }
    if r.more {
        out.push_str(&format!(
            "\n[{} more line(s); --offset {} reads on]",
            thousands((r.total_lines - r.last_line) as u64),
            r.last_line + 1
        ));
    }
    out
}
