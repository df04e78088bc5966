//! What `pi-shake recall` prints: the full text of what a reference names, read from the file.
//!
//! A pi-shake summary names each call it keeps lines of by a pair id (`t12`, `t12_2`: the line
//! of the call's assistant entry in the file and its place among that message's calls, see
//! [`crate::compact::region::stable_ids`]); the file still holds every output the summary cut,
//! so the agent (or the user) can read one back instead of re-running a search, a build or a
//! fetch whose answer may have changed. An entry id (or a unique prefix) names any message.
//!
//! A pair id is a line of the file the compaction was written to. pi's `/fork` and `/clone`
//! copy the branch into a new file where lines move (entries of other branches and labels are
//! left out), so an id is first looked up in the `details.pairs` of the pi-shake compactions
//! on the active path ([`PairIds`]), which name the call's entries by id; the line is read only
//! for an id no compaction lists (one `compact --dry-run` showed).
//!
//! The text is the stored content, read through pi-shake's own folds. An overlay anyone else
//! wrote stays in force (a redaction stays redacted; a `null` edit hides the text). Reads lines,
//! never writes. [`window`] cuts the text to the lines asked for and [`matching`] to the lines
//! holding a text; both are pure. [`search`] finds that text in every tool output of the branch,
//! for an agent that knows what it is looking for but not which call printed it.

use anyhow::Result;
use serde_json::Value;

use crate::compact::region::{self, Block, Kind};
use crate::error::{Fault, FaultKind};
use crate::load::Loaded;
use crate::pair_ids::{PairIds, pair_id};
use crate::session::{Body, Key, Role};
use crate::text::line_count;

/// What a reference names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reference {
    /// `t{line}` / `t{line}_{k}`: the k-th tool call (from 1) of the assistant entry on `line`.
    Pair { line: u32, k: usize },
    /// An entry id, or a unique prefix of one (or a suffixed pair id a summary lists).
    Entry(String),
}

impl Reference {
    /// `t12` and `t12_2` are pair ids; anything else is an entry id or prefix (pi's entry ids
    /// are hex, so they never start with `t`), or an id only a summary lists (`t12b`, given
    /// after a fork: [`crate::pair_ids::unused`]), which [`recall`] looks up first.
    pub fn parse(s: &str) -> Reference {
        let s = s.trim();
        let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
        if let Some(rest) = s.strip_prefix('t') {
            let (l, k) = match rest.split_once('_') {
                Some((l, k)) => (l, Some(k)),
                None => (rest, None),
            };
            if digits(l) && k.is_none_or(digits) {
                let line = l.parse::<u32>().ok().filter(|&n| n > 0);
                let k = k.map_or(Some(1), |k| k.parse::<usize>().ok().filter(|&n| n > 0));
                if let (Some(line), Some(k)) = (line, k) {
                    return Reference::Pair { line, k };
                }
            }
        }
        Reference::Entry(s.to_string())
    }
}

/// A call: its entry, id, tool name and arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub entry_id: String,
    /// The id a summary gives it ([`PairIds`]), else `t{line}` of this file; none when that
    /// line id names another call in a summary (after a fork), so it cannot be recalled by it.
    pub pair_id: Option<String>,
    pub tool: String,
    pub args: Value,
}

/// What was recalled.
#[derive(Clone, Debug, PartialEq)]
pub struct Recalled {
    /// The entry whose text this is (a tool result, or the message named).
    pub entry_id: String,
    /// pi's role name of that message.
    pub role: String,
    /// The call, when the text is a tool call's output.
    pub call: Option<Call>,
    pub is_error: bool,
    /// Image blocks in the content (not printed).
    pub images: usize,
    /// The id of the `context_edit` (not pi-shake's) whose content this is.
    pub edited_by: Option<String>,
    /// That edit removed the message (`replacement: null`): no text.
    pub hidden: bool,
    pub text: String,
}

fn usage(l: &Loaded, msg: String) -> anyhow::Error {
    Fault::new(
        FaultKind::Usage,
        format!("{}: {msg}", l.session.path.display()),
    )
    .hint("pair ids are the `t12` / `t12_2` of a pi-shake summary's call headers; entry ids are in `pi-shake status --json` and in the file")
    .into()
}

/// Resolve `r` in `l` and read its text. An id a summary on the active path shows is resolved
/// by the entries that summary lists ([`PairIds`]); any other pair id by its line.
pub fn recall(l: &Loaded, r: &Reference) -> Result<Recalled> {
    let s = &l.session;
    let ids = PairIds::read(s, &l.tree.path, &mut |i| s.read_value(i))?;
    let id = match r {
        Reference::Pair { line, k } => pair_id(*line, *k),
        Reference::Entry(prefix) => prefix.clone(),
    };
    match (ids.results(&id), r) {
        (Some(results), _) => recall_listed(l, &ids, &id, results),
        (None, Reference::Pair { line, k }) => recall_pair(l, &ids, *line, *k),
        (None, Reference::Entry(prefix)) => recall_entry(l, &ids, prefix),
    }
}

/// The call a summary lists as `id`, by its result's entry id.
fn recall_listed(
    l: &Loaded,
    ids: &PairIds,
    id: &str,
    results: &[Option<String>],
) -> Result<Recalled> {
    match results {
        [Some(result)] if l.tree.by_id.contains_key(&Key::of(result)) => {
            let mut out = recall_entry(l, ids, result)?;
            if let Some(c) = out.call.as_mut() {
                c.pair_id = Some(id.to_string());
            }
            Ok(out)
        }
        [Some(result)] => Err(usage(
            l,
            format!("{id}: the summary names its result {result}, which is not in this file"),
        )),
        [None] => Err(usage(
            l,
            format!("{id}: the summary that names it lists no result for it"),
        )),
        many => Err(usage(
            l,
            format!(
                "{id} names {} calls in this branch's summaries (lines moved when pi copied the branch to this file); recall the one meant by its result's entry id: {}",
                many.len(),
                many.iter()
                    .flatten()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// A pair id no summary lists: the `k`-th call of the assistant entry on `line`.
fn recall_pair(l: &Loaded, ids: &PairIds, line: u32, k: usize) -> Result<Recalled> {
    let s = &l.session;
    let id = pair_id(line, k);
    let idx = s
        .entries
        .binary_search_by_key(&line, |e| e.line)
        .ok()
        .filter(|&i| s.entries[i].msg().and_then(|m| m.role) == Some(Role::Assistant))
        .ok_or_else(|| {
            usage(
                l,
                format!("{id}: line {line} holds no assistant message, so no call is named {id}"),
            )
        })?;
    let v = s.read_value(idx)?;
    let calls: Vec<&Value> = tool_calls(&v).collect();
    let Some(c) = calls.get(k - 1) else {
        return Err(usage(
            l,
            format!(
                "{id}: the assistant message on line {line} makes {} tool call(s)",
                calls.len()
            ),
        ));
    };
    let call_id = c.get("id").and_then(Value::as_str).unwrap_or("");
    let call = Call {
        entry_id: s.entries[idx].id_str().to_string(),
        pair_id: Some(id.clone()),
        tool: str_of(c, "name"),
        args: c.get("arguments").cloned().unwrap_or(Value::Null),
    };
    let after: Vec<usize> = match l.tree.path_pos(idx) {
        Some(p) => l.tree.path[p + 1..].to_vec(),
        None => (idx + 1..s.entries.len()).collect(),
    };
    for j in after {
        if s.entries[j].msg().and_then(|m| m.role) != Some(Role::ToolResult) {
            continue;
        }
        let rv = s.read_value(j)?;
        if !call_id.is_empty()
            && rv.pointer("/message/toolCallId").and_then(Value::as_str) == Some(call_id)
        {
            let mut out = read_message(l, j, rv)?;
            out.call = Some(Call {
                pair_id: ids.id_for(&out.entry_id, line, k),
                ..call
            });
            return Ok(out);
        }
    }
    Err(usage(
        l,
        format!(
            "{id} ({} {}) has no result in this session",
            call.tool,
            crate::compact::render::ident_of(&call.args, s.header.cwd.as_deref())
        ),
    ))
}

/// The `toolCall` blocks of a message line's JSON, in order.
fn tool_calls(v: &Value) -> impl Iterator<Item = &Value> {
    v.pointer("/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
}

fn str_of(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

fn recall_entry(l: &Loaded, ids: &PairIds, prefix: &str) -> Result<Recalled> {
    let s = &l.session;
    let exact = l.tree.by_id.get(&Key::of(prefix)).copied();
    let idx = match exact {
        Some(i) => i,
        None => {
            let hits: Vec<usize> = (0..s.entries.len())
                .filter(|&i| !prefix.is_empty() && s.entries[i].id_str().starts_with(prefix))
                .collect();
            match hits.as_slice() {
                [i] => *i,
                [] => return Err(usage(l, format!("no entry id starts with `{prefix}`"))),
                many => {
                    let ids: Vec<&str> = many
                        .iter()
                        .take(5)
                        .map(|&i| s.entries[i].id_str())
                        .collect();
                    return Err(usage(
                        l,
                        format!(
                            "`{prefix}` names {} entries ({}{}); give more of the id",
                            many.len(),
                            ids.join(", "),
                            if many.len() > 5 { ", …" } else { "" }
                        ),
                    ));
                }
            }
        }
    };
    let e = &s.entries[idx];
    let v = s.read_value(idx)?;
    let v = match &e.body {
        Body::Message(_) => v,
        // A custom message projects as a `custom` message of its own content.
        Body::CustomMessage { .. } => serde_json::json!({"message": {
            "role": Role::Custom.as_str(),
            "customType": v.get("customType").cloned().unwrap_or(Value::Null),
            "content": v.get("content").cloned().unwrap_or(Value::Null),
        }}),
        _ => {
            return Err(usage(
                l,
                format!(
                    "entry {} (line {}) is a `{}` entry; recall reads messages (a tool call's output, a user or assistant message)",
                    e.id_str(),
                    e.line,
                    e.ty
                ),
            ));
        }
    };
    let call_id = str_of(v.get("message").unwrap_or(&Value::Null), "toolCallId");
    let mut out = read_message(l, idx, v)?;
    if out.role == Role::ToolResult.as_str() {
        out.call = find_call(l, ids, idx, &call_id)?;
    }
    Ok(out)
}

/// The call a tool result at `idx` answers: the nearest earlier assistant entry (on the active
/// path when the result is on it) holding a call with the result's `toolCallId`.
fn find_call(l: &Loaded, ids: &PairIds, idx: usize, call_id: &str) -> Result<Option<Call>> {
    let s = &l.session;
    if call_id.is_empty() {
        return Ok(None);
    }
    let before: Vec<usize> = match l.tree.path_pos(idx) {
        Some(p) => l.tree.path[..p].iter().rev().copied().collect(),
        None => (0..idx).rev().collect(),
    };
    for j in before {
        if s.entries[j].msg().and_then(|m| m.role) != Some(Role::Assistant) {
            continue;
        }
        let v = s.read_value(j)?;
        for (k, c) in tool_calls(&v).enumerate() {
            if c.get("id").and_then(Value::as_str) == Some(call_id) {
                return Ok(Some(Call {
                    entry_id: s.entries[j].id_str().to_string(),
                    pair_id: ids.id_for(s.entries[idx].id_str(), s.entries[j].line, k + 1),
                    tool: str_of(c, "name"),
                    args: c.get("arguments").cloned().unwrap_or(Value::Null),
                }));
            }
        }
    }
    Ok(None)
}

/// The latest `context_edit` on the active path that targets `idx` and that pi-shake did not
/// write (pi-shake's own folds and restores are read through).
fn foreign_overlay(l: &Loaded, idx: usize) -> Option<usize> {
    let key = l.session.entries[idx].id.as_ref()?;
    l.tree.path.iter().rev().copied().find(|&j| {
        matches!(&l.session.entries[j].body, Body::ContextEdit { target: Some(t), .. } if t == key)
            && !l.wall.is_own(j)
    })
}

/// [`foreign_overlay`] of every entry that has one, in one pass (target → edit).
fn foreign_overlays(l: &Loaded) -> std::collections::HashMap<usize, usize> {
    let mut out = std::collections::HashMap::new();
    for &j in &l.tree.path {
        if let Body::ContextEdit {
            target: Some(t), ..
        } = &l.session.entries[j].body
            && !l.wall.is_own(j)
            && let Some(&idx) = l.tree.by_id.get(t)
        {
            out.insert(idx, j);
        }
    }
    out
}

/// Entry `idx`'s message (`v`: its line's JSON) as text.
fn read_message(l: &Loaded, idx: usize, v: Value) -> Result<Recalled> {
    read_message_as(l, idx, v, foreign_overlay(l, idx))
}

/// [`read_message`] with the entry's [`foreign_overlay`] already found.
fn read_message_as(
    l: &Loaded,
    idx: usize,
    mut v: Value,
    overlay: Option<usize>,
) -> Result<Recalled> {
    let s = &l.session;
    let entry_id = s.entries[idx].id_str().to_string();
    let mut edited_by = None;
    let mut hidden = false;
    if let Some(j) = overlay {
        edited_by = Some(s.entries[j].id_str().to_string());
        let ev = s.read_value(j)?;
        match ev.pointer("/replacement/content") {
            Some(c) if !ev["replacement"].is_null() => {
                if let Some(m) = v.get_mut("message").and_then(Value::as_object_mut) {
                    m.insert("content".into(), c.clone());
                }
            }
            _ => hidden = true,
        }
    }
    let msg = v.get_mut("message").map(Value::take).unwrap_or(Value::Null);
    let role = str_of(&msg, "role");
    let parsed = region::parse_message(0, &entry_id, msg).map(|m| m.kind);
    let (text, images, is_error) = match parsed {
        Some(Kind::ToolResult {
            blocks, is_error, ..
        }) => (region::text_of(&blocks), count_images(&blocks), is_error),
        Some(Kind::User(b) | Kind::Assistant(b) | Kind::Custom { blocks: b, .. }) => {
            (region::text_of(&b), count_images(&b), false)
        }
        Some(Kind::Bash {
            command, output, ..
        }) => (format!("$ {command}\n{output}"), 0, false),
        Some(Kind::BranchSummary(t)) => (t, 0, false),
        _ => {
            return Err(usage(
                l,
                format!(
                    "entry {entry_id} (line {}) is a `{role}` message, which has no text to recall",
                    s.entries[idx].line
                ),
            ));
        }
    };
    Ok(Recalled {
        entry_id,
        role,
        call: None,
        is_error,
        images,
        edited_by,
        hidden,
        text: if hidden { String::new() } else { text },
    })
}

fn count_images(blocks: &[Block]) -> usize {
    blocks
        .iter()
        .filter(|b| matches!(b, Block::Image { .. }))
        .count()
}

/// A call whose output holds a searched text, and the lines that do.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub recalled: Recalled,
    /// Lines in the whole output ([`line_count`]).
    pub total: usize,
    /// (line number from 1, line) of the lines shown.
    pub hits: Vec<(usize, String)>,
    /// Lines that hold the text but were not shown (over the cap).
    pub unshown: usize,
}

/// Longest line a search shows (chars; the middle is cut).
pub const HIT_CHARS: usize = 300;

/// The lines of `text` holding `pattern` (ASCII case-insensitive), at most `room` of them:
/// (line number from 1, the line cut to [`HIT_CHARS`]), and how many more there were.
pub fn matching(
    text: &str,
    pattern: &aho_corasick::AhoCorasick,
    room: usize,
) -> (Vec<(usize, String)>, usize) {
    let mut hits = Vec::new();
    let mut more = 0;
    for (i, line) in text.split('\n').enumerate() {
        if pattern.is_match(line) {
            if hits.len() < room {
                hits.push((i + 1, crate::text::cap_middle(line, HIT_CHARS)));
            } else {
                more += 1;
            }
        }
    }
    (hits, more)
}

/// A case-insensitive (ASCII) matcher for `text`.
pub fn matcher(text: &str) -> Result<aho_corasick::AhoCorasick> {
    Ok(aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build([text])?)
}

/// What [`search`] found: the calls with lines shown, and the matching lines (and their calls)
/// past the cap.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Search {
    pub found: Vec<Found>,
    pub rest_lines: usize,
    pub rest_calls: usize,
}

/// Every tool output on the active path holding `text`, oldest first, read as [`recall`] reads
/// them (a hidden one is skipped), with at most `room` matching lines shown in all; the calls
/// after the cap are only counted. The output of a shell command the user ran with `!` counts
/// as a tool output (its text is `$ command` and the output, as `recall ENTRY` shows it); one
/// run with `!!`, which pi keeps out of the context, does not.
pub fn search(l: &Loaded, text: &str, room: usize) -> Result<Search> {
    let s = &l.session;
    let m = matcher(text)?;
    // JSON.stringify escapes no printable ASCII char but `"` and `\`: for such a text, a line
    // whose raw bytes lack it cannot hold it once decoded (unless an overlay replaced it).
    let plain = text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\');
    let overlays = foreign_overlays(l);
    let ids = PairIds::read(s, &l.tree.path, &mut |i| s.read_value(i))?;
    let mut out = Search::default();
    let mut left = room;
    for &j in &l.tree.path {
        let role = s.entries[j].msg().and_then(|m| m.role);
        if !matches!(role, Some(Role::ToolResult | Role::BashExecution)) {
            continue;
        }
        let overlay = overlays.get(&j).copied();
        let raw = s.read_line(j)?;
        if plain && overlay.is_none() && !m.is_match(&raw) {
            continue;
        }
        let v = s.parse_line(j, &raw)?;
        let msg = v.get("message").unwrap_or(&Value::Null);
        if role == Some(Role::BashExecution)
            && msg
                .get("excludeFromContext")
                .is_some_and(|x| !crate::jscompat::js_is_falsy(x))
        {
            continue;
        }
        let call_id = str_of(msg, "toolCallId");
        let mut r = read_message_as(l, j, v, overlay)?;
        if r.hidden || !m.is_match(&r.text) {
            continue;
        }
        let (hits, unshown) = matching(&r.text, &m, left);
        if hits.is_empty() {
            out.rest_lines += unshown;
            out.rest_calls += 1;
            continue;
        }
        left -= hits.len();
        if role == Some(Role::ToolResult) {
            r.call = find_call(l, &ids, j, &call_id)?;
        }
        let total = line_count(&r.text);
        r.text = String::new();
        out.found.push(Found {
            recalled: r,
            total,
            hits,
            unshown,
        });
    }
    Ok(out)
}

/// The part of a text [`window`] shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub text: String,
    /// First and last line shown (1-based; `last < first` when nothing is).
    pub first: usize,
    pub last: usize,
    /// Lines in the whole text ([`line_count`]).
    pub total: usize,
    /// The only line shown was cut at `max_bytes`.
    pub line_cut: bool,
}

impl Window {
    /// Lines after the window.
    pub fn more(&self) -> bool {
        self.last < self.total
    }
}

/// Lines `offset` (1-based) on of `text`: at most `limit` of them and, when `max_bytes` is set,
/// no more bytes than that (whole lines; a first line longer than that is cut at a char
/// boundary). `None` when `offset` is past the last line.
pub fn window(
    text: &str,
    offset: usize,
    limit: Option<usize>,
    max_bytes: Option<usize>,
) -> Option<Window> {
    let total = line_count(text);
    let offset = offset.max(1);
    if offset > total.max(1) {
        return None;
    }
    let mut out = String::new();
    let mut last = offset - 1;
    let mut line_cut = false;
    let lines = text.split('\n').skip(offset - 1);
    for line in lines.take(limit.unwrap_or(usize::MAX)) {
        let sep = usize::from(last >= offset);
        if let Some(max) = max_bytes
            && out.len() + sep + line.len() > max
        {
            if last < offset {
                let mut end = max.min(line.len());
                while !line.is_char_boundary(end) {
                    end -= 1;
                }
                out.push_str(&line[..end]);
                last = offset;
                line_cut = true;
            }
            break;
        }
        if last >= offset {
            out.push('\n');
        }
        out.push_str(line);
        last += 1;
    }
    Some(Window {
        text: out,
        first: offset,
        last: last.min(total),
        total,
        line_cut,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_ids_parse_and_anything_else_is_an_entry_id() {
        assert_eq!(Reference::parse("t12"), Reference::Pair { line: 12, k: 1 });
        assert_eq!(
            Reference::parse(" t12_3 "),
            Reference::Pair { line: 12, k: 3 }
        );
        for s in ["t0", "t12_0", "t", "t12_", "ta1", "12", "e7b18632", "t12_x"] {
            assert_eq!(Reference::parse(s), Reference::Entry(s.into()), "{s}");
        }
    }

    #[test]
    fn a_window_counts_lines_like_a_summary_and_stops_at_the_caps() {
        // A final newline starts an empty last line, as in a summary's `29 of 1,544 lines`.
        let w = window("a\nb\nc\n", 1, None, None).unwrap();
        assert_eq!(
            (w.text.as_str(), w.first, w.last, w.total),
            ("a\nb\nc\n", 1, 4, 4)
        );
        assert!(!w.more());
        assert_eq!(line_count("a\nb\nc\n"), 4);
        let w = window("a\nb\nc", 2, Some(1), None).unwrap();
        assert_eq!((w.text.as_str(), w.last, w.more()), ("b", 2, true));
        assert!(window("a\nb", 3, None, None).is_none());
        // Whole lines under the byte cap: "aaaa\nbbbb" is 9 bytes.
        let w = window("aaaa\nbbbb\ncc", 1, None, Some(9)).unwrap();
        assert_eq!(
            (w.text.as_str(), w.last, w.line_cut),
            ("aaaa\nbbbb", 2, false)
        );
        // A first line over the cap is cut at a char boundary ("é" is 2 bytes).
        let w = window("éééé\nb", 1, None, Some(5)).unwrap();
        assert_eq!((w.text.as_str(), w.last, w.line_cut), ("éé", 1, true));
        // Empty lines count; an empty text is one empty window.
        let w = window("a\n\nb", 2, Some(1), None).unwrap();
        assert_eq!((w.text.as_str(), w.first, w.last), ("", 2, 2));
        let w = window("", 1, None, None).unwrap();
        assert_eq!((w.total, w.last, w.more()), (0, 0, false));
    }
}
