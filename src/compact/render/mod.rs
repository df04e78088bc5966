//! Step 6: the surviving messages as one markdown string (the compaction `summary`), with the
//! previous compaction's summary flattened under it. Kept text is verbatim; stubs and windows
//! say how much was left out; dropped calls are listed in place so they can be re-run. Pure.

use super::region::{Block, Kind, Pair, Pin, RMsg, text_ref};
use super::report::Action;
use super::text::{cap_middle, clen, fence_for, head, keep_window, omitted, stub};
use crate::text::thousands;
use ident::inline_code;
pub use ident::{ident, ident_of, relative_to};

mod ident;

/// Rendering knobs (from the options and, under a budget, the chosen shrink level).
#[derive(Clone, Debug)]
pub struct RenderOptions {
    /// Build the text; otherwise only count its size.
    pub keep_text: bool,
    /// User text: whole up to this many chars, else head and tail windows of this size.
    pub user_whole: usize,
    pub user_window: usize,
    /// Only the region's first `.0` and last `.1` user messages are shown; the others are
    /// counted in one line per run (`None`: all are shown).
    pub user_keep: Option<(usize, usize)>,
    /// Assistant (and custom, bash, branch-summary) text; `text_whole == 0` leaves it out.
    pub text_whole: usize,
    pub text_window: usize,
    /// Only the region's last this many assistant texts are shown (`None`: all).
    pub text_keep: Option<usize>,
    pub edit_head: usize,
    pub write_body_max: usize,
    /// One aggregated line per run of consecutive dropped calls.
    pub drop_notes: bool,
    /// Left-out edit/write pins are listed by path in one line (`Files edited or written …`).
    pub changed_files: bool,
    /// The session's cwd: call headers and the files line name paths under it relative to it.
    pub cwd: Option<String>,
    /// One line per dropped call instead (`--breadcrumbs`).
    pub breadcrumbs: bool,
    /// A carried summary shown whole ([`Carry::Whole`]) is cut to at most this many chars.
    pub carried_cap: usize,
    /// How much the title says.
    pub title: Title,
    /// `pi-shake <version>`.
    pub pruner: String,
    pub scorer: String,
}

/// A pair as the renderer sees it: its decision and, unless dropped, the body to show.
pub struct Decided<'a> {
    pub pair: &'a Pair,
    /// The pair's [`ident`] (the budgeted fit makes it once and renders many times). A dropped
    /// pair is never shown under its call, so the fit leaves its ident empty.
    pub ident: std::borrow::Cow<'a, str>,
    pub action: Action,
    pub pin: Option<Pin>,
    /// `(note, text)`: what the body is (`14 of 300 lines`, `verbatim`, …) and the text itself.
    pub body: Option<(String, String)>,
    /// An edit/write pin shows its old/new heads, write body and result (else its call line, and
    /// under a budget the kept lines of its new text when its body says `k of n lines`).
    pub pin_body: bool,
    /// `(note, text)`: the kept lines of a multi-line command's rest (under a budget), shown
    /// under the call line before the output.
    pub script: Option<(String, String)>,
}

fn fenced(body: &str, info: &str) -> String {
    let f = fence_for(body);
    format!("{f}{info}\n{body}\n{f}")
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

/// The header line of a call.
fn call_line(d: &Decided<'_>, note: &str) -> String {
    let p = d.pair;
    let pin = match d.pin {
        Some(Pin::Skill) => "; pinned: skill load",
        Some(Pin::UnresolvedError) => "; pinned: unresolved error",
        Some(Pin::Image) => "; pinned: images",
        Some(Pin::EditWrite) => "; pinned: file change",
        Some(Pin::GitMutation) => "; pinned: git",
        None => "",
    };
    let err = if p.is_error { "; error" } else { "" };
    let note = if note.is_empty() {
        String::new()
    } else {
        format!("; {note}")
    };
    format!("**{}** {} ({}{pin}{err}{note})", p.tool, d.ident, p.id())
}

/// The summary's title: every form starts `# Session history before this point (pruned by
/// pi-shake` ([`super::carried::is_pi_shakes`] reads a carried summary by it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Title {
    /// The title and a paragraph on what the transcript is.
    #[default]
    Full,
    /// One line, with a hint to re-run calls.
    Short,
    /// One line naming the pruner only (the smallest budgets).
    Name,
}

/// Kinds of messages the levels that leave user messages out leave out by the same rule (the
/// region's first few and its last few of each kind stay), each counted in place on its own:
/// user messages, shell commands the user ran, summaries of abandoned branches, tool results
/// whose call is not in the region.
const KINDS: usize = 4;
const KIND_USER: usize = 0;
const KIND_COMMAND: usize = 1;
const KIND_BRANCH: usize = 2;
const KIND_ORPHAN: usize = 3;
const KIND_NAMES: [(&str, &str); KINDS] = [
    ("user message", "user messages"),
    ("shell command", "shell commands"),
    ("branch summary", "branch summaries"),
    (
        "tool result without its call",
        "tool results without their call",
    ),
];

/// Which messages of those kinds are shown when only the first `.0` and last `.1` of each kind
/// are ([`RenderOptions::user_keep`]; `None`: all), by message (`false` for the other messages);
/// `paired[mi]`: a tool result whose call is in the region.
pub fn shown_by_kind(
    msgs: &[RMsg],
    paired: &[bool],
    user_keep: Option<(usize, usize)>,
) -> Vec<bool> {
    let kinds = || {
        msgs.iter()
            .enumerate()
            .map(|(mi, m)| kind_of(m, paired.get(mi).copied().unwrap_or(false)))
    };
    let mut totals = [0usize; KINDS];
    for k in kinds().flatten() {
        totals[k] += 1;
    }
    let mut ordinals = [0usize; KINDS];
    kinds()
        .map(|k| {
            k.is_some_and(|k| {
                ordinals[k] += 1;
                user_keep.is_none_or(|(first, last)| {
                    ordinals[k] <= first || ordinals[k] + last > totals[k]
                })
            })
        })
        .collect()
}

/// By message: whether it is the result of one of `pairs` (its call is in the region).
pub fn paired_results<'p>(n: usize, pairs: impl Iterator<Item = &'p Pair>) -> Vec<bool> {
    let mut paired = vec![false; n];
    for j in pairs.filter_map(|p| p.result_msg) {
        if let Some(x) = paired.get_mut(j) {
            *x = true;
        }
    }
    paired
}

/// Which of those kinds message `m` is (`paired`: a tool result whose call is in the region).
fn kind_of(m: &RMsg, paired: bool) -> Option<usize> {
    match &m.kind {
        Kind::User(_) => Some(KIND_USER),
        Kind::Bash {
            excluded: false, ..
        } => Some(KIND_COMMAND),
        Kind::BranchSummary(_) => Some(KIND_BRANCH),
        Kind::ToolResult { .. } if !paired => Some(KIND_ORPHAN),
        _ => None,
    }
}

/// Assistant messages with text (what [`RenderOptions::text_keep`] counts).
pub(super) fn has_text(m: &RMsg) -> bool {
    matches!(&m.kind, Kind::Assistant(b) if !text_ref(b).trim().is_empty())
}

/// Render one kept tool call and its result.
fn render_pair(
    d: &Decided<'_>,
    body: Option<&(String, String)>,
    result_blocks: Option<&[Block]>,
    o: &RenderOptions,
) -> String {
    let p = d.pair;
    let mut s = String::new();
    if d.pin == Some(Pin::EditWrite) {
        s.push_str(&call_line(d, ""));
        s.push('\n');
        if let Some((note, text)) = body.filter(|b| !b.0.is_empty() && !b.1.is_empty()) {
            // Lines of its new text that won their place under the budget.
            s.push_str(&format!("New text, {note}:\n{}\n", fenced(text, "")));
        } else if d.pin_body {
            s.push_str(&render_edit_write(p, o));
            if let Some((_, text)) = body {
                let line = cap_middle(text.trim(), 300);
                if !line.is_empty() {
                    s.push_str(&format!(
                        "Result: {}\n",
                        if line.contains('\n') {
                            fenced(&line, "")
                        } else {
                            line
                        }
                    ));
                }
            }
        }
    } else if result_blocks.is_none() {
        s.push_str(&call_line(d, "no result recorded"));
        s.push('\n');
    } else {
        let note = match body {
            Some((n, t)) if !t.is_empty() => n.as_str(),
            Some((n, _)) if !n.is_empty() => n.as_str(),
            Some(_) => "empty",
            None => "output not kept",
        };
        let text = body.map(|b| b.1.as_str()).filter(|t| !t.is_empty());
        s.push_str(&call_line(d, note));
        if let Some((rest, script)) = &d.script {
            // The command's rest, then the output under its own label.
            s.push_str(&format!("\nCommand, {rest}:\n{}\n", fenced(script, "")));
            if let Some(text) = text {
                s.push_str(&format!("Output:\n{}\n", fenced(text, "")));
            }
        } else if let Some(text) = text {
            s.push_str(&format!(":\n{}\n", fenced(text, "")));
        } else {
            s.push('\n');
        }
    }
    if let Some(n) = result_blocks.and_then(images_note) {
        s.push_str(&n);
        s.push('\n');
    }
    s
}

/// The body of a kept (verbatim) or stubbed (head + tail) output, for the threshold path.
pub fn threshold_body(output: &str, action: Action, fraction: f64, cap: usize) -> (String, String) {
    let n = clen(output);
    if action == Action::Stub {
        let (h, t, gone) = stub(output, fraction, cap);
        if gone > 0 {
            return (
                format!("head and tail of {}", size(n)),
                format!("{h}\n{}\n{t}", omitted(gone)),
            );
        }
    }
    if output.is_empty() {
        return ("empty".into(), String::new());
    }
    (format!("{}, verbatim", size(n)), output.to_string())
}

/// The body of a pinned output (skill, unresolved error, git, image) with the head caps given.
pub fn pin_body(output: &str, pin: Pin, git_head: usize, skill_head: usize) -> (String, String) {
    let n = clen(output);
    let cap = match pin {
        Pin::GitMutation => git_head,
        Pin::Skill => skill_head,
        _ => usize::MAX,
    };
    if output.is_empty() {
        return ("empty".into(), String::new());
    }
    if n > cap {
        return (
            format!("first {} of {}", thousands(cap as u64), size(n)),
            format!("{}\n{}", head(output, cap), omitted(n - cap)),
        );
    }
    (format!("{}, verbatim", size(n)), output.to_string())
}

fn render_edit_write(p: &Pair, o: &RenderOptions) -> String {
    // The path is in the call line.
    let mut s = String::new();
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
    let edits = p.edits();
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
        s.push_str(&format!(
            "Arguments: {}\n",
            inline_code(&cap_middle(&p.args.to_string(), 600))
        ));
    }
    s
}

/// Completes pair `k`'s `(note, text)` body right before it is rendered.
pub type Fill<'a> = dyn FnMut(usize, &mut Option<(String, String)>) -> anyhow::Result<()> + 'a;

/// Under a budget, what the selection kept of the outputs outside the pairs (a shell command
/// the user ran, a tool result whose call is not in the region), by message index: `None` for a
/// message whose output does not compete (shown in `key_lines` windows, as on the threshold
/// path), `Some(None)` when it keeps no line, else its `(note, kept lines)`.
pub type Loose<'a> = dyn Fn(usize) -> Option<Option<(String, String)>> + 'a;

/// The previous compaction's summary as the new one carries it.
#[derive(Clone, Copy, Debug)]
pub enum Carry<'a> {
    /// As it is, cut to [`RenderOptions::carried_cap`] by position (head and tail).
    Whole(&'a str),
    /// The lines its blocks keep ([`super::carried`]).
    Lines(&'a super::carried::Carried, &'a [Vec<u32>]),
}

/// The summary's first line (and, in full, the paragraph saying what it is).
fn title(o: &RenderOptions) -> String {
    match o.title {
        Title::Name => format!(
            "# Session history before this point (pruned by {})",
            o.pruner
        ),
        Title::Short => format!(
            "# Session history before this point (pruned by {}; tool outputs cut to key lines — re-run a call for more)",
            o.pruner
        ),
        Title::Full => format!(
            "# Session history before this point (pruned by {}, scored by {})\n\n\
             This replaces the older part of the conversation: the user's and the assistant's \
             words (long ones as head and tail) and the tool calls whose output may still matter, \
             each under its call, verbatim except where a marker says what was cut. Calls not \
             shown were dropped; re-run a call if you need its output.",
            o.pruner, o.scorer
        ),
    }
}

/// `[2 user messages and 1 shell command the user ran left out]`: the messages left out since
/// the last line, by kind (`None` when there are none).
fn left_out_line(left_out: &[usize; KINDS]) -> Option<String> {
    let mut said: Vec<String> = Vec::new();
    for (n, (one, many)) in left_out.iter().zip(KIND_NAMES) {
        match n {
            0 => {}
            1 => said.push(format!("1 {one}")),
            n => said.push(format!("{n} {many}")),
        }
    }
    let line = match said.len() {
        0 => return None,
        1 => said.remove(0),
        n => format!("{} and {}", said[..n - 1].join(", "), said[n - 1]),
    };
    Some(format!("[{line} left out]"))
}

/// A run of consecutive dropped calls: one line per call with `--breadcrumbs`, else one
/// aggregated line (`[12 tool calls dropped: bash ×8, read ×4]`) where the level shows drop
/// lines (`None` for an empty run or a level without them).
fn dropped_line(run: &[&Pair], o: &RenderOptions) -> Option<String> {
    if run.is_empty() {
        return None;
    }
    if o.breadcrumbs {
        let lines: Vec<String> = run
            .iter()
            .map(|p| {
                format!(
                    "- dropped: **{}** {} ({}; {})",
                    p.tool,
                    ident(p, o.cwd.as_deref()),
                    p.id(),
                    size(clen(&p.output).max(p.output_chars))
                )
            })
            .collect();
        Some(lines.join("\n"))
    } else if o.drop_notes {
        let mut by: Vec<(&str, usize)> = Vec::new();
        for p in run {
            match by.iter_mut().find(|(t, _)| *t == p.tool) {
                Some(x) => x.1 += 1,
                None => by.push((p.tool.as_str(), 1)),
            }
        }
        by.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let list: Vec<String> = by
            .iter()
            .map(|(t, n)| {
                if *n == 1 {
                    t.to_string()
                } else {
                    format!("{t} ×{n}")
                }
            })
            .collect();
        Some(format!(
            "[{} tool call{} dropped: {}]",
            run.len(),
            if run.len() == 1 { "" } else { "s" },
            list.join(", ")
        ))
    } else {
        None
    }
}

/// A shell command the user ran (`!cmd`): the command, the output it showed the agent (under a
/// budget the lines the selection kept, `selected`; otherwise a window that shrinks with the
/// user's text), and how it ended.
fn shell_command(
    entry_id: &str,
    (command, output): (&str, &str),
    exit_code: Option<i64>,
    cancelled: bool,
    selected: Option<Option<(String, String)>>,
    o: &RenderOptions,
) -> String {
    let mut s = format!("### User ran a shell command\n\n{}", inline_code(command));
    if let Some(kept) = selected {
        // Under a budget its lines competed with the tool outputs'.
        let (note, body) = selected_body(entry_id, output, kept);
        if !note.is_empty() {
            s.push_str(&format!(" ({note})"));
        }
        if let Some(b) = body {
            s.push_str(&format!("\n\n{b}"));
        }
    } else if o.user_whole > 0 {
        // What the user chose to show the agent: it shrinks with the user's text.
        let body = key_lines(output, o.user_whole, o.user_window);
        if body != output {
            s.push_str(&format!(" ({})", cut_note(entry_id, output)));
        }
        if output.is_empty() {
            s.push_str("\n\n(no output)");
        } else {
            s.push_str(&format!("\n\n{}", fenced(&body, "")));
        }
    }
    if cancelled {
        s.push_str("\n\n(command cancelled)");
    } else if let Some(c) = exit_code.filter(|c| *c != 0) {
        s.push_str(&format!("\n\nCommand exited with code {c}"));
    }
    s
}

/// The lines the selection kept of an output outside the pairs: the note for its header
/// (`7c6d2c79; 3 of 12 lines`, `7c6d2c79; output of 12 lines not kept`, empty when it is kept
/// whole; the entry id reads it back whole, as in [`cut_note`]) and its fenced lines, if any.
fn selected_body(
    entry_id: &str,
    output: &str,
    kept: Option<(String, String)>,
) -> (String, Option<String>) {
    match kept {
        None => {
            // Counted as the note of a kept one counts them (`3 of 12 lines`).
            let lines = crate::text::line_count(output);
            let s = if lines == 1 { "" } else { "s" };
            let n = thousands(lines as u64);
            (format!("{entry_id}; output of {n} line{s} not kept"), None)
        }
        Some((note, body)) => (
            if note.is_empty() {
                note
            } else {
                format!("{entry_id}; {note}")
            },
            Some(fenced(&body, "")),
        ),
    }
}

/// `7c6d2c79; cut from 12 lines`: a cut output the selection does not see names its entry, which
/// reads it back whole (`pi-shake recall ID`, the extension's `shake_recall`).
fn cut_note(entry_id: &str, text: &str) -> String {
    let lines = crate::text::line_count(text.trim_end_matches('\n'));
    format!(
        "{entry_id}; cut from {} line{}",
        thousands(lines as u64),
        if lines == 1 { "" } else { "s" }
    )
}

/// An output the selection does not see (a user-run command's, a result whose call is not in
/// the region) at the size of a user keep-window: whole up to `whole` chars; otherwise its
/// lines richest in distinctive strings per char (each string counted once, by its class)
/// within about `2 × window` chars, in order, every run of cut lines marked `…`. Head and tail
/// windows ([`keep_window`]) were blind to where a path, an id or a failing test sits in the
/// output; the issues' own measure (#19) puts a keeper of such lines at three times head+tail's
/// share of the facts later turns use. With no such line that fits, head and tail as before.
pub(super) fn key_lines(s: &str, whole: usize, window: usize) -> String {
    use super::budget::{MIN_CLASS, class_of, distinctive};
    let len = clen(s);
    if len <= whole {
        return s.to_string();
    }
    let cap = 2 * window;
    let lines: Vec<&str> = s.trim_end_matches('\n').split('\n').collect();
    // (worth, chars, index, distinctive strings) of every line holding one worth counting.
    let mut cands: Vec<(f32, usize, usize, Vec<&str>)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let strs: Vec<&str> = distinctive(l).collect();
        let mut worth = 0.0;
        for (k, d) in strs.iter().enumerate() {
            let c = class_of(d);
            if c >= MIN_CLASS && !strs[..k].contains(d) {
                worth += c;
            }
        }
        let n = clen(l);
        if worth > 0.0 && n < cap {
            cands.push((worth, n, i, strs));
        }
    }
    let per_char = |c: &(f32, usize, usize, Vec<&str>)| c.0 / (c.1 + 1) as f32;
    cands.sort_by(|a, b| {
        per_char(b)
            .total_cmp(&per_char(a))
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    let mut keep = vec![false; lines.len()];
    let mut held: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut used = 0usize;
    for (_, n, i, strs) in cands {
        // The line, its newline and a marker before it.
        let cost = n + 3;
        if used + cost > cap || strs.iter().all(|d| held.contains(d)) {
            continue;
        }
        held.extend(strs);
        keep[i] = true;
        used += cost;
    }
    if used == 0 {
        return keep_window(s, whole, window);
    }
    let mut out: Vec<&str> = Vec::new();
    let mut cut = false;
    for (i, l) in lines.iter().enumerate() {
        if keep[i] {
            if cut {
                out.push("…");
            }
            out.push(l);
            cut = false;
        } else {
            cut = true;
        }
    }
    if cut {
        out.push("…");
    }
    out.join("\n")
}

/// `Files edited or written above (the edits are not shown): …`: the paths of the dropped edit
/// and write pins, once each, in order (`None` when there are none).
fn changed_files(decided: &[Decided<'_>], o: &RenderOptions) -> Option<String> {
    let mut paths: Vec<&str> = Vec::new();
    for d in decided.iter() {
        if d.pin == Some(Pin::EditWrite) && d.action == Action::Drop {
            let Some(path) = d.pair.path() else { continue };
            let path = relative_to(path, o.cwd.as_deref());
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    if paths.is_empty() {
        return None;
    }
    let list: Vec<String> = paths.iter().map(|p| inline_code(p)).collect();
    Some(format!(
        "Files edited or written above (the edits are not shown): {}",
        list.join(", ")
    ))
}

/// Render the region. `previous` = the previous compaction's summary, whole or by its kept
/// lines.
/// `fill(k, body)` may complete pair `k`'s body right before it is rendered, and each body is
/// taken out of `decided` as it is rendered: a big summary's kept text is then read, cut and
/// copied one output at a time, held once in the summary and not again in the bodies.
pub fn render(
    msgs: &[RMsg],
    decided: &mut [Decided<'_>],
    previous: Option<Carry<'_>>,
    o: &RenderOptions,
    capacity: usize,
    fill: &mut Fill<'_>,
    loose: Option<&Loose<'_>>,
) -> anyhow::Result<Rendered> {
    let mut parts = Parts {
        out: Rendered {
            text: String::with_capacity(if o.keep_text { capacity } else { 0 }),
            u16: 0,
            bytes: 0,
            users_left_out: 0,
        },
        keep: o.keep_text,
    };
    parts.push(title(o));
    // Pairs by (message, block); paired results by message.
    let mut at: std::collections::HashMap<(usize, usize), usize> =
        std::collections::HashMap::with_capacity(decided.len());
    for (k, d) in decided.iter().enumerate() {
        at.insert((d.pair.call_msg, d.pair.block), k);
    }
    let paired = paired_results(msgs.len(), decided.iter().map(|d| d.pair));
    // Which assistant texts are shown (by their ordinal among the region's non-empty ones).
    let texts_shown_from = o.text_keep.map_or(0, |k| {
        msgs.iter()
            .filter(|m| has_text(m))
            .count()
            .saturating_sub(k)
    });
    let mut text_ordinal = 0;
    // Which user messages (and kinds kept like them) are shown, by their ordinal in their kind.
    let shown = shown_by_kind(msgs, &paired, o.user_keep);
    // Left out since the last line, counted in place.
    let mut left_out = [0usize; KINDS];
    let kept = |mi: usize, k: usize, left_out: &mut [usize; KINDS]| {
        if !shown[mi] {
            left_out[k] += 1;
        }
        shown[mi]
    };
    // Consecutive dropped calls, flushed as one line before anything else is rendered.
    let mut run: Vec<&Pair> = Vec::new();
    let flush = |run: &mut Vec<&Pair>, left_out: &mut [usize; KINDS], parts: &mut Parts| {
        if let Some(line) = left_out_line(left_out) {
            parts.push(line);
            *left_out = [0; KINDS];
        }
        if let Some(line) = dropped_line(run, o) {
            parts.push(line);
        }
        run.clear();
    };
    for (mi, m) in msgs.iter().enumerate() {
        match &m.kind {
            Kind::User(blocks) => {
                if !kept(mi, KIND_USER, &mut left_out) {
                    parts.out.users_left_out += 1;
                    continue;
                }
                flush(&mut run, &mut left_out, &mut parts);
                let mut s = "### User\n\n".to_string();
                s.push_str(&keep_window(&text_ref(blocks), o.user_whole, o.user_window));
                if let Some(n) = images_note(blocks) {
                    s.push_str("\n\n");
                    s.push_str(&n);
                }
                parts.push(s);
            }
            Kind::Assistant(blocks) => {
                let text = text_ref(blocks);
                let shown = !text.trim().is_empty() && {
                    text_ordinal += 1;
                    text_ordinal > texts_shown_from
                };
                if shown && o.text_whole > 0 {
                    flush(&mut run, &mut left_out, &mut parts);
                    parts.push(format!(
                        "### Assistant\n\n{}",
                        keep_window(&text, o.text_whole, o.text_window)
                    ));
                }
                for (bi, b) in blocks.iter().enumerate() {
                    let Block::ToolCall { .. } = b else { continue };
                    let Some(&k) = at.get(&(mi, bi)) else {
                        continue;
                    };
                    let d = &mut decided[k];
                    if d.action == Action::Drop {
                        run.push(d.pair);
                        continue;
                    }
                    fill(k, &mut d.body)?;
                    let body = d.body.take();
                    flush(&mut run, &mut left_out, &mut parts);
                    let result = d.pair.result_msg.and_then(|j| match &msgs.get(j)?.kind {
                        Kind::ToolResult { blocks, .. } => Some(blocks.as_slice()),
                        _ => None,
                    });
                    let mut s = render_pair(d, body.as_ref(), result, o);
                    drop(body);
                    s.truncate(s.trim_end().len());
                    parts.push(s);
                }
            }
            Kind::ToolResult {
                tool,
                blocks,
                is_error,
                ..
            } => {
                if paired[mi] || !kept(mi, KIND_ORPHAN, &mut left_out) {
                    continue;
                }
                flush(&mut run, &mut left_out, &mut parts);
                let text = text_ref(blocks);
                let err = if *is_error { " (error)" } else { "" };
                if let Some(kept) = loose.and_then(|f| f(mi)) {
                    let (note, body) = selected_body(&m.entry_id, &text, kept);
                    let note = if note.is_empty() {
                        note
                    } else {
                        format!("; {note}")
                    };
                    parts.push(format!(
                        "**Tool result `{tool}`**{err} (its call is not in this history{note}){}",
                        body.map_or(String::new(), |b| format!(":\n{b}"))
                    ));
                    continue;
                }
                let body = key_lines(&text, o.user_whole, o.user_window);
                let cut = if body == *text {
                    String::new()
                } else {
                    format!("; {}", cut_note(&m.entry_id, &text))
                };
                parts.push(format!(
                    "**Tool result `{tool}`**{err} (its call is not in this history{cut}):\n{}",
                    fenced(&body, "")
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
                if !kept(mi, KIND_COMMAND, &mut left_out) {
                    continue;
                }
                flush(&mut run, &mut left_out, &mut parts);
                parts.push(shell_command(
                    &m.entry_id,
                    (command, output),
                    *exit_code,
                    *cancelled,
                    loose.and_then(|f| f(mi)),
                    o,
                ));
            }
            Kind::Custom {
                custom_type,
                blocks,
            } => {
                if o.text_whole == 0 {
                    continue;
                }
                flush(&mut run, &mut left_out, &mut parts);
                parts.push(format!(
                    "### Note ({custom_type})\n\n{}",
                    keep_window(&text_ref(blocks), o.text_whole, o.text_window)
                ));
            }
            Kind::BranchSummary(summary) => {
                if !kept(mi, KIND_BRANCH, &mut left_out) {
                    continue;
                }
                flush(&mut run, &mut left_out, &mut parts);
                parts.push(format!(
                    "### Summary of an abandoned branch\n\n{}",
                    keep_window(summary, o.user_whole, o.user_window)
                ));
            }
            Kind::Other(_) => {}
        }
    }
    flush(&mut run, &mut left_out, &mut parts);
    if o.changed_files
        && let Some(line) = changed_files(decided, o)
    {
        parts.push(line);
    }
    let carried = match previous {
        Some(Carry::Whole(t)) => Some(keep_window(t, o.carried_cap, o.carried_cap / 2)),
        Some(Carry::Lines(c, sel)) => Some(c.render(sel)),
        None => None,
    };
    if let Some(prev) = carried.filter(|p| !p.trim().is_empty()) {
        parts.push(format!(
            "---\n\n## Earlier history (carried from the previous compaction)\n\n{prev}"
        ));
    }
    Ok(parts.out)
}

/// A rendered summary: its text (empty unless [`RenderOptions::keep_text`]) and its size.
#[derive(Debug, Default)]
pub struct Rendered {
    pub text: String,
    /// UTF-16 length (what pi's estimator counts) and UTF-8 length.
    pub u16: usize,
    pub bytes: usize,
    /// User messages left out ([`RenderOptions::user_keep`]).
    pub users_left_out: usize,
}

/// The summary's parts, joined by blank lines as they come (one buffer, no second copy), or
/// only counted.
struct Parts {
    out: Rendered,
    keep: bool,
}

impl Parts {
    fn push(&mut self, part: String) {
        if self.out.bytes > 0 {
            self.put("\n\n");
        }
        self.put(&part);
    }
    fn put(&mut self, s: &str) {
        self.out.u16 += crate::jscompat::utf16_len(s);
        self.out.bytes += s.len();
        if self.keep {
            self.out.text.push_str(s);
        }
    }
}
