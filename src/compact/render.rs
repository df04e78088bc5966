//! Step 6: the surviving messages as one markdown string (the compaction `summary`), with the
//! previous compaction's summary flattened under it. Kept text is verbatim; stubs and windows
//! say how much was left out; dropped calls are listed in place so they can be re-run. Pure.

use serde_json::Value;

use super::region::{Block, Kind, Pair, Pin, RMsg, text_of};
use super::report::Action;
use super::text::{cap_middle, clen, fence_for, head, keep_window, omitted, stub};
use crate::report::thousands;

/// Rendering knobs (from the options).
#[derive(Clone, Debug)]
pub struct RenderOptions {
    pub text_whole: usize,
    pub text_window: usize,
    pub stub_fraction: f64,
    pub stub_cap: usize,
    pub git_head: usize,
    pub edit_head: usize,
    pub write_body_max: usize,
    /// `pi-shake <version>`.
    pub pruner: String,
    pub scorer: String,
}

/// A pair as the renderer sees it.
pub struct Decided<'a> {
    pub pair: &'a Pair,
    pub action: Action,
    pub pin: Option<Pin>,
}

fn fenced(body: &str, info: &str) -> String {
    let f = fence_for(body);
    format!("{f}{info}\n{body}\n{f}")
}

fn inline_args(args: &Value, max: usize) -> String {
    let s = args.to_string();
    let s = cap_middle(&s, max);
    if s.contains('`') || s.contains('\n') {
        fenced(&s, "json")
    } else {
        format!("`{s}`")
    }
}

fn images_note(blocks: &[Block]) -> Option<String> {
    let imgs: Vec<String> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Image { mime, data_len } => Some(format!(
                "[image: {mime}, {} base64 chars, not carried in this summary]",
                thousands(*data_len as u64)
            )),
            _ => None,
        })
        .collect();
    (!imgs.is_empty()).then(|| imgs.join("\n"))
}

fn size(n: usize) -> String {
    format!("{} chars", thousands(n as u64))
}

/// Render one tool call and its result.
fn render_pair(d: &Decided<'_>, result_blocks: Option<&[Block]>, o: &RenderOptions) -> String {
    let p = d.pair;
    let id = p.id();
    let out_len = clen(&p.output);
    let err = if p.is_error { "error, " } else { "" };
    let mut s = String::new();
    if d.action == Action::Drop {
        return format!(
            "- Tool call `{}` ({id}) {} — output dropped ({err}{}); re-run it if needed.",
            p.tool,
            inline_args(&p.args, 300),
            size(out_len)
        );
    }
    let pin_note = match d.pin {
        Some(Pin::Skill) => " — pinned: skill load",
        Some(Pin::UnresolvedError) => " — pinned: unresolved error",
        Some(Pin::Image) => " — pinned: images",
        Some(Pin::EditWrite) => " — pinned: file change",
        Some(Pin::GitMutation) => " — pinned: git",
        None => "",
    };
    s.push_str(&format!("**Tool call `{}`** ({id}){pin_note}\n", p.tool));
    // Arguments.
    if d.pin == Some(Pin::EditWrite) {
        s.push_str(&render_edit_write(p, o));
    } else {
        s.push_str(&format!("Arguments: {}\n", inline_args(&p.args, 2_000)));
    }
    // Result.
    let Some(blocks) = result_blocks else {
        s.push_str("(no result recorded)\n");
        return s;
    };
    let output = &p.output;
    match (d.action, d.pin) {
        (Action::Stub, _) => {
            let (h, t, gone) = stub(output, o.stub_fraction, o.stub_cap);
            if gone == 0 {
                s.push_str(&format!(
                    "Result ({err}{}, verbatim):\n{}\n",
                    size(out_len),
                    fenced(output, "")
                ));
            } else {
                let body = format!("{h}\n{}\n{t}", omitted(gone));
                s.push_str(&format!(
                    "Result ({err}head and tail of {}; the middle was pruned):\n{}\n",
                    size(out_len),
                    fenced(&body, "")
                ));
            }
        }
        (_, Some(Pin::GitMutation)) => {
            if out_len > o.git_head {
                let body = format!(
                    "{}\n{}",
                    head(output, o.git_head),
                    omitted(out_len - o.git_head)
                );
                s.push_str(&format!(
                    "Result ({err}first {} of {}):\n{}\n",
                    thousands(o.git_head as u64),
                    size(out_len),
                    fenced(&body, "")
                ));
            } else {
                s.push_str(&format!(
                    "Result ({err}verbatim):\n{}\n",
                    fenced(output, "")
                ));
            }
        }
        (_, Some(Pin::EditWrite)) if !p.is_error => {
            let line = cap_middle(output.trim(), 600);
            s.push_str(&format!(
                "Result: {}\n",
                if line.contains('\n') {
                    fenced(&line, "")
                } else {
                    line
                }
            ));
        }
        _ => {
            if output.is_empty() {
                s.push_str(&format!("Result ({err}empty)\n"));
            } else {
                s.push_str(&format!(
                    "Result ({err}{}, verbatim):\n{}\n",
                    size(out_len),
                    fenced(output, "")
                ));
            }
        }
    }
    if let Some(n) = images_note(blocks) {
        s.push_str(&n);
        s.push('\n');
    }
    s
}

fn render_edit_write(p: &Pair, o: &RenderOptions) -> String {
    let path = p.arg("path").unwrap_or("?");
    let mut s = format!("Path: `{path}`\n");
    if p.tool == "write" {
        let body = p.arg("content").unwrap_or("");
        let n = clen(body);
        if n <= o.write_body_max {
            s.push_str(&format!("Content ({}):\n{}\n", size(n), fenced(body, "")));
        } else {
            s.push_str(&format!(
                "Content: {} written (body not kept; read the file to see it)\n",
                size(n)
            ));
        }
        return s;
    }
    let mut edits: Vec<(String, String)> = Vec::new();
    if let Some(list) = p.args.get("edits").and_then(Value::as_array) {
        for e in list {
            let g = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            edits.push((g("oldText"), g("newText")));
        }
    }
    for (ko, kn) in [
        ("oldText", "newText"),
        ("old_string", "new_string"),
        ("oldString", "newString"),
    ] {
        if let (Some(a), Some(b)) = (p.arg(ko), p.arg(kn)) {
            edits.push((a.to_string(), b.to_string()));
        }
    }
    let part = |label: &str, t: &str| {
        let n = clen(t);
        if n <= o.edit_head {
            format!("{label} ({}):\n{}\n", size(n), fenced(t, ""))
        } else {
            format!(
                "{label} (first {} of {}):\n{}\n",
                thousands(o.edit_head as u64),
                size(n),
                fenced(
                    &format!("{}\n{}", head(t, o.edit_head), omitted(n - o.edit_head)),
                    ""
                )
            )
        }
    };
    for (i, (old, new)) in edits.iter().enumerate() {
        if edits.len() > 1 {
            s.push_str(&format!("Edit {}:\n", i + 1));
        }
        s.push_str(&part("Old", old));
        s.push_str(&part("New", new));
    }
    if edits.is_empty() {
        s.push_str(&format!("Arguments: {}\n", inline_args(&p.args, 600)));
    }
    s
}

/// Render the region. `previous` = the previous compaction's summary (flattened, not scored).
pub fn render(
    msgs: &[RMsg],
    decided: &[Decided<'_>],
    previous: Option<&str>,
    o: &RenderOptions,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.push(format!(
        "# Session history before this point (pruned by {})\n\n\
         This replaces the older part of the conversation. The user's and the assistant's words \
         are kept (long ones as head and tail), every tool call is listed, and each tool output was \
         kept verbatim, cut to its head and tail, or dropped (scored by {}). Re-run a call if you \
         need an output that is not shown.",
        o.pruner, o.scorer
    ));
    // Index pairs by (message, block) and results by message.
    let pair_at = |mi: usize, bi: usize| {
        decided
            .iter()
            .find(|d| d.pair.call_msg == mi && d.pair.block == bi)
    };
    let is_paired_result = |mi: usize| decided.iter().any(|d| d.pair.result_msg == Some(mi));
    for (mi, m) in msgs.iter().enumerate() {
        match &m.kind {
            Kind::User(blocks) => {
                let mut s = "### User\n\n".to_string();
                s.push_str(&keep_window(&text_of(blocks), o.text_whole, o.text_window));
                if let Some(n) = images_note(blocks) {
                    s.push_str("\n\n");
                    s.push_str(&n);
                }
                parts.push(s);
            }
            Kind::Assistant(blocks) => {
                let mut s = "### Assistant".to_string();
                let text = text_of(blocks);
                if !text.is_empty() {
                    s.push_str("\n\n");
                    s.push_str(&keep_window(&text, o.text_whole, o.text_window));
                }
                let mut dropped: Vec<String> = Vec::new();
                for (bi, b) in blocks.iter().enumerate() {
                    let Block::ToolCall { .. } = b else { continue };
                    let Some(d) = pair_at(mi, bi) else { continue };
                    let result = d.pair.result_msg.and_then(|j| match &msgs[j].kind {
                        Kind::ToolResult { blocks, .. } => Some(blocks.as_slice()),
                        _ => None,
                    });
                    let r = render_pair(d, result, o);
                    if d.action == Action::Drop {
                        dropped.push(r);
                    } else {
                        if !dropped.is_empty() {
                            s.push_str("\n\n");
                            s.push_str(&dropped.join("\n"));
                            dropped.clear();
                        }
                        s.push_str("\n\n");
                        s.push_str(r.trim_end());
                    }
                }
                if !dropped.is_empty() {
                    s.push_str("\n\n");
                    s.push_str(&dropped.join("\n"));
                }
                if s == "### Assistant" {
                    continue;
                }
                parts.push(s);
            }
            Kind::ToolResult {
                tool,
                blocks,
                is_error,
                ..
            } => {
                if is_paired_result(mi) {
                    continue;
                }
                let text = text_of(blocks);
                let err = if *is_error { " (error)" } else { "" };
                parts.push(format!(
                    "**Tool result `{tool}`**{err} (its call is not in this history, verbatim):\n{}",
                    fenced(&text, "")
                ));
            }
            Kind::Bash {
                command,
                output,
                exit_code,
                cancelled,
                excluded,
            } => {
                if *excluded {
                    continue;
                }
                let mut s = format!("### User ran a shell command\n\n`{command}`");
                let body = keep_window(output, o.text_whole, o.text_window);
                if output.is_empty() {
                    s.push_str("\n\n(no output)");
                } else {
                    s.push_str(&format!("\n\n{}", fenced(&body, "")));
                }
                if *cancelled {
                    s.push_str("\n\n(command cancelled)");
                } else if let Some(c) = exit_code.filter(|c| *c != 0) {
                    s.push_str(&format!("\n\nCommand exited with code {c}"));
                }
                parts.push(s);
            }
            Kind::Custom {
                custom_type,
                blocks,
            } => {
                parts.push(format!(
                    "### Note ({custom_type})\n\n{}",
                    keep_window(&text_of(blocks), o.text_whole, o.text_window)
                ));
            }
            Kind::BranchSummary(summary) => {
                parts.push(format!("### Summary of an abandoned branch\n\n{summary}"));
            }
            Kind::Other(_) => {}
        }
    }
    if let Some(prev) = previous.filter(|p| !p.trim().is_empty()) {
        parts.push(format!(
            "---\n\n## Earlier history (carried from the previous compaction)\n\n{prev}"
        ));
    }
    parts.join("\n\n")
}
