//! `recall`: the wire type of what was recalled and its human rendering (a header line, the
//! text, and a line saying how to read on when lines are left).

use serde::Serialize;
use serde_json::Value;

use super::thousands;
use crate::recall::{Recalled, Window};

/// What a recalled or found text came from: the message's entry, and the call when it is a tool
/// call's output (flattened into both reports).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
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
    /// A `context_edit` pi-shake did not write whose content this is.
    pub edited_by: Option<String>,
}

impl Source {
    fn of(r: &mut Recalled) -> Source {
        let (pair_id, call_entry_id, tool, arguments) = match r.call.take() {
            Some(c) => (c.pair_id, Some(c.entry_id), Some(c.tool), Some(c.args)),
            None => (None, None, None, None),
        };
        Source {
            entry_id: std::mem::take(&mut r.entry_id),
            role: std::mem::take(&mut r.role),
            pair_id,
            call_entry_id,
            tool,
            arguments,
            is_error: r.is_error,
            edited_by: r.edited_by.take(),
        }
    }
}

/// `recall --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecallReport {
    pub schema_version: u32,
    pub path: String,
    /// The reference as given.
    pub reference: String,
    #[serde(flatten)]
    pub source: Source,
    /// Image blocks (never printed).
    pub images: usize,
    /// The `editedBy` edit removed the message: no text.
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
    pub fn new(path: String, reference: String, mut r: Recalled, w: Window) -> RecallReport {
        let more = w.more();
        RecallReport {
            schema_version: 1,
            path,
            reference,
            source: Source::of(&mut r),
            images: r.images,
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

/// The call (`t12 · bash `cargo test` · result 9c1d2e3f`) or the message (`fe886ba4 · user
/// message`), then error, image and overlay notes.
fn head_of(src: &Source, images: usize, hidden: bool, cwd: Option<&str>) -> Vec<String> {
    let mut head: Vec<String> = Vec::new();
    match (&src.pair_id, &src.tool) {
        (id, Some(tool)) => {
            head.extend(id.clone());
            let args = src.arguments.as_ref().unwrap_or(&Value::Null);
            head.push(
                format!("{tool} {}", crate::compact::render::ident_of(args, cwd))
                    .trim_end()
                    .to_string(),
            );
            head.push(format!("result {}", src.entry_id));
        }
        _ => head.push(format!("{} · {} message", src.entry_id, src.role)),
    }
    if src.is_error {
        head.push("error".into());
    }
    if images > 0 {
        head.push(format!("{images} image(s) not shown"));
    }
    if let Some(e) = &src.edited_by {
        head.push(if hidden {
            format!("removed from the context by context_edit {e} (not pi-shake's): not shown")
        } else {
            format!("as context_edit {e} (not pi-shake's) left it")
        });
    }
    head
}

/// `t12 · bash `cargo test` · result 9c1d2e3f · lines 1–40 of 40`, the text, then (when lines
/// are left) how to read on.
pub fn render(r: &RecallReport, cwd: Option<&str>) -> String {
    let mut head = head_of(&r.source, r.images, r.hidden, cwd);
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

/// `recall --grep --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchReport {
    pub schema_version: u32,
    pub path: String,
    /// The reference searched in, when one was given (else every tool output of the branch).
    pub reference: Option<String>,
    pub grep: String,
    /// Calls whose output holds the text, oldest first.
    pub calls: Vec<SearchCall>,
    /// Matching lines shown, and those over the cap (in the calls listed and after them).
    pub shown: usize,
    pub unshown: usize,
    /// Calls past the cap, with matching lines not shown.
    pub more_calls: usize,
}

/// One call of a [`SearchReport`].
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchCall {
    #[serde(flatten)]
    pub source: Source,
    pub total_lines: usize,
    /// The matching lines shown.
    pub hits: Vec<SearchHit>,
    pub unshown: usize,
}

/// A matching line: its number (from 1) and text (cut to 300 chars).
#[derive(Debug, Serialize)]
pub struct SearchHit {
    pub line: usize,
    pub text: String,
}

impl SearchReport {
    /// The report of what [`crate::recall::search`] (or one recall's matching lines) found.
    pub fn new(
        path: String,
        reference: Option<String>,
        grep: String,
        found: crate::recall::Search,
    ) -> SearchReport {
        let calls: Vec<SearchCall> = found
            .found
            .into_iter()
            .map(|mut f| SearchCall {
                source: Source::of(&mut f.recalled),
                total_lines: f.total,
                hits: f
                    .hits
                    .into_iter()
                    .map(|(line, text)| SearchHit { line, text })
                    .collect(),
                unshown: f.unshown,
            })
            .collect();
        SearchReport {
            schema_version: 1,
            path,
            reference,
            shown: calls.iter().map(|c| c.hits.len()).sum(),
            unshown: calls.iter().map(|c| c.unshown).sum::<usize>() + found.rest_lines,
            more_calls: found.rest_calls,
            grep,
            calls,
        }
    }
}

/// Each call with matching lines: its header, then `  40: the line` per hit; then how many
/// were not shown.
pub fn render_search(r: &SearchReport, cwd: Option<&str>) -> String {
    if r.calls.is_empty() && r.unshown == 0 {
        let scope = match &r.reference {
            Some(x) => format!("line of {x}"),
            None => "tool output on this branch".to_string(),
        };
        return format!("no {scope} holds `{}`", r.grep);
    }
    let mut out = Vec::new();
    for c in &r.calls {
        let matched = c.hits.len() + c.unshown;
        let mut head = head_of(&c.source, 0, false, cwd);
        head.push(format!(
            "{} of {} line(s) match",
            thousands(matched as u64),
            thousands(c.total_lines as u64)
        ));
        out.push(head.join(" · "));
        let width = c.hits.last().map_or(1, |h| h.line.to_string().len());
        for h in &c.hits {
            out.push(format!("  {:>width$}: {}", h.line, h.text));
        }
    }
    if r.unshown > 0 {
        let calls = if r.more_calls > 0 {
            format!(" (in {} more call(s) too)", thousands(r.more_calls as u64))
        } else {
            String::new()
        };
        out.push(format!(
            "[{} more matching line(s) not shown{calls}; --limit N shows more, or recall a call by its id]",
            thousands(r.unshown as u64)
        ));
    }
    out.join("\n")
}
