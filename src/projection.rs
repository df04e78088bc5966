//! Stage 3: the projection — what the model sees on the active branch, with pi's token estimates.
//!
//! A port of pi 1.6's `buildContextEntries` + `buildSessionProjection`
//! (`docs/pi-format.md#projection`) and of `estimateProjectedContextTokens`
//! (`docs/pi-format.md#context-total`): the latest compaction on the path with its kept
//! range, older compactions projecting nothing, the last `context_edit` per target among the
//! context entries winning, `null` edits hiding any entry, `{content}` edits swapping content of
//! user/assistant/toolResult/custom messages only. Pure: no I/O.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::session::{
    Body, CompactionInfo, ContentStats, Entry, Key, Msg, Problem, Replacement, Role, Session,
    Severity,
};
use crate::tree::Tree;

/// One projected message.
#[derive(Clone, Debug, PartialEq)]
pub struct PMsg {
    /// pi's role name (`user`, `toolResult`, `compactionSummary`, …; whatever a file says;
    /// pi's own names are not copied: a big session projects hundreds of thousands).
    pub role: Cow<'static, str>,
    /// The role as pi knows it (`Role::Other` for any other name).
    pub kind: Role,
    /// pi's `estimateTokens` (None: pi's estimator would throw on this message).
    pub tokens: Option<u64>,
    /// A valid usage anchor (assistant usage tokens), if this message is one.
    pub usage: Option<f64>,
    /// Its content was swapped by a `context_edit`.
    pub replaced: bool,
}

impl PMsg {
    /// Tokens, 0 when pi would throw (the error is reported separately).
    pub fn tokens0(&self) -> u64 {
        self.tokens.unwrap_or(0)
    }
}

/// One context entry and the messages it projects to.
#[derive(Clone, Debug, PartialEq)]
pub struct PEntry {
    /// Index into `session.entries`.
    pub idx: usize,
    /// The `context_edit` applied to it (index into `session.entries`).
    pub edit: Option<usize>,
    pub messages: Vec<PMsg>,
}

impl PEntry {
    /// Σ tokens of this entry's messages.
    pub fn tokens(&self) -> u64 {
        self.messages.iter().map(PMsg::tokens0).sum()
    }
}

/// pi's context total (`docs/pi-format.md#context-total`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ContextTokens {
    pub tokens: f64,
    pub usage_tokens: f64,
    pub trailing_tokens: f64,
    /// Index (in projected messages) of the usage anchor, when the usage-based total applies.
    pub last_usage_index: Option<usize>,
}

/// The projection of the active branch.
#[derive(Clone, Debug, Default)]
pub struct Projection {
    pub entries: Vec<PEntry>,
    /// Latest compaction on the path (entry index).
    pub compaction: Option<usize>,
    /// `edits[target]` = index of the winning `context_edit` among the context entries.
    pub edits: HashMap<Key, usize>,
    /// pi's projected context total.
    pub context: ContextTokens,
    /// Problems pi would hit while projecting (estimator crashes, invalid edits).
    pub problems: Vec<Problem>,
}

impl Projection {
    /// Project the active path of `s`.
    pub fn build(s: &Session, t: &Tree) -> Projection {
        let path = &t.path;
        let mut p = Projection::default();
        // pi reads `entry.message.role` of every message entry on the path, compacted or not
        // (`getSessionContextSettings`): a null or missing `message` there throws on load.
        // (Off the path pi only trips on it when it forks that branch.)
        let no_message = |e: &&Entry| {
            matches!(&e.body, Body::Odd { ty, why }
                if &**ty == "message" && &**why == crate::session::entry::NO_MESSAGE)
        };
        if let Some(e) = path.iter().map(|&i| &s.entries[i]).find(no_message) {
            p.problems.push(Problem {
                severity: Severity::Error,
                code: "message-missing",
                line: Some(e.line),
                message:
                    "a message entry on the branch without a `message` object (null or missing): \
                          pi reads `message.role` of every message entry on the branch and throws"
                        .into(),
            });
        }
        let context_entries = context_entries(s, path, &mut p.compaction);
        for &i in &context_entries {
            if let Body::ContextEdit {
                target: Some(target),
                ..
            } = &s.entries[i].body
            {
                p.edits.insert(target.clone(), i);
            }
        }
        for (pos, &i) in context_entries.iter().enumerate() {
            let e = &s.entries[i];
            let edit = e.id.as_ref().and_then(|id| p.edits.get(id)).copied();
            let mut messages = if matches!(e.body, Body::Compaction { .. }) && pos > 0 {
                Vec::new()
            } else {
                project_entry(e, edit.map(|j| &s.entries[j]), &mut p.problems)
            };
            // Most entries project to one message; the vector was built for four.
            messages.shrink_to_fit();
            p.entries.push(PEntry {
                idx: i,
                edit,
                messages,
            });
        }
        for pe in &p.entries {
            if pe.messages.iter().any(|m| m.tokens.is_none())
                && !p
                    .problems
                    .iter()
                    .any(|pr| pr.line == Some(s.entries[pe.idx].line))
            {
                let e = &s.entries[pe.idx];
                p.problems.push(Problem {
                    severity: Severity::Error,
                    code: "estimate-throws",
                    line: Some(e.line),
                    message: format!(
                        "entry {} has a field pi's token estimator reads but cannot (a missing text, thinking, summary or arguments, or content that is not a list): pi throws when it estimates it (on /compact, or after any later edit)",
                        e.id_str()
                    ),
                });
            }
        }
        p.context = context_tokens(s, t, &p);
        p
    }

    /// All projected messages in model order with their source entry index.
    pub fn messages(&self) -> impl Iterator<Item = (usize, &PMsg)> {
        self.entries
            .iter()
            .flat_map(|pe| pe.messages.iter().map(move |m| (pe.idx, m)))
    }

    /// Position of entry `idx` among the context entries.
    pub fn position(&self, idx: usize) -> Option<usize> {
        self.entries.iter().position(|pe| pe.idx == idx)
    }

    /// Σ per-message estimates (raw sum, not pi's context total).
    pub fn estimate_sum(&self) -> u64 {
        self.entries.iter().map(PEntry::tokens).sum()
    }
}

/// pi's `buildContextEntries`.
fn context_entries(s: &Session, path: &[usize], compaction: &mut Option<usize>) -> Vec<usize> {
    let Some(cpos) = path
        .iter()
        .rposition(|&i| matches!(s.entries[i].body, Body::Compaction { .. }))
    else {
        return path.to_vec();
    };
    let c = &s.entries[path[cpos]];
    *compaction = Some(path[cpos]);
    let first_kept = match &c.body {
        Body::Compaction { first_kept, .. } => first_kept.clone(),
        _ => None,
    };
    let mut out = vec![path[cpos]];
    let mut found = false;
    for &i in &path[..cpos] {
        let e = &s.entries[i];
        if first_kept.is_some() && e.id == first_kept {
            found = true;
        }
        let is_system = e.msg().is_some_and(|m| m.role == Some(Role::System));
        if found && !is_system {
            out.push(i);
        }
    }
    out.extend_from_slice(&path[cpos + 1..]);
    out
}

fn pmsg(role: &str, tokens: Option<u64>, usage: Option<f64>, replaced: bool) -> PMsg {
    let kind = Role::parse_str(role);
    PMsg {
        role: if kind == Role::Other {
            Cow::Owned(role.to_string())
        } else {
            Cow::Borrowed(kind.as_str())
        },
        kind,
        tokens,
        usage,
        replaced,
    }
}

/// pi's `sessionEntryToContextMessages` + `projectContextEntry`.
fn project_entry(e: &Entry, edit: Option<&Entry>, problems: &mut Vec<Problem>) -> Vec<PMsg> {
    let mut msgs: Vec<(PMsg, Option<&Msg>, Option<&ContentStats>)> = Vec::new();
    match &e.body {
        Body::Message(m) => {
            msgs.push((
                pmsg(&m.role_name, m.tokens(), m.valid_usage(), false),
                Some(m),
                None,
            ));
        }
        Body::CustomMessage { content, .. } => {
            let tokens = if content.is_null {
                Some(0)
            } else {
                content.user_chars().map(crate::jscompat::tokens_from_chars)
            };
            msgs.push((
                pmsg(Role::Custom.as_str(), tokens, None, false),
                None,
                Some(content),
            ));
        }
        Body::BranchSummary {
            summary_len,
            summary_truthy,
        } if *summary_truthy => {
            msgs.push((
                pmsg(
                    Role::BranchSummary.as_str(),
                    summary_len.map(crate::jscompat::tokens_from_chars),
                    None,
                    false,
                ),
                None,
                None,
            ));
        }
        Body::Compaction { info, .. } => {
            let CompactionInfo {
                summary_len,
                system,
                ..
            } = &**info;
            if let Some(sys) = system {
                msgs.push((
                    pmsg(Role::System.as_str(), sys.tokens(), None, false),
                    Some(sys),
                    None,
                ));
            }
            msgs.push((
                pmsg(
                    Role::CompactionSummary.as_str(),
                    summary_len.map(crate::jscompat::tokens_from_chars),
                    None,
                    false,
                ),
                None,
                None,
            ));
        }
        Body::Odd { ty, why }
            if matches!(
                &**ty,
                "message" | "custom_message" | "compaction" | "branch_summary"
            ) =>
        {
            // One problem per line: a missing `message` is already reported, more precisely.
            if !problems.iter().any(|p| p.line == Some(e.line)) {
                problems.push(Problem {
                    severity: Severity::Error,
                    code: "odd-entry",
                    line: Some(e.line),
                    message: format!(
                        "a {ty} entry with fields of unexpected shapes ({why}): \
                         pi may fail to project it"
                    ),
                });
            }
            msgs.push((pmsg(ty, None, None, false), None, None));
        }
        _ => {}
    }
    let Some(edit) = edit else {
        return msgs.into_iter().map(|(m, ..)| m).collect();
    };
    let Body::ContextEdit { replacement, .. } = &edit.body else {
        return msgs.into_iter().map(|(m, ..)| m).collect();
    };
    match replacement {
        Replacement::Omit => Vec::new(),
        Replacement::Content(c) => msgs
            .into_iter()
            .map(|(mut pm, m, _)| {
                let role = pm.kind;
                if role.content_editable() {
                    pm.replaced = true;
                    pm.tokens = match m {
                        Some(m) => m.tokens_with(&normalise_for(role, c)),
                        None => c.chars_as(role).map(crate::jscompat::tokens_from_chars),
                    };
                }
                pm
            })
            .collect(),
        Replacement::Invalid => msgs
            .into_iter()
            .map(|(mut pm, ..)| {
                if pm.kind.content_editable() {
                    problems.push(Problem {
                        severity: Severity::Error,
                        code: "invalid-context-edit",
                        line: Some(edit.line),
                        message: format!(
                            "context_edit {} has no valid `replacement` (null or {{content}}): pi's projection throws on it",
                            edit.id_str()
                        ),
                    });
                    pm.tokens = None;
                    pm.replaced = true;
                }
                pm
            })
            .collect(),
    }
}

/// A string replacement becomes one text block for assistant/toolResult targets.
fn normalise_for(role: Role, c: &ContentStats) -> ContentStats {
    if c.is_string && matches!(role, Role::Assistant | Role::ToolResult) {
        let mut n = ContentStats {
            text_blocks: 1,
            text_all_chars: c.string_len,
            text_truthy_chars: c.string_len,
            max_text_len: c.string_len,
            max_region_tokens: c.max_region_tokens,
            ..Default::default()
        };
        n.is_string = false;
        return n;
    }
    c.clone()
}

/// pi's `estimateProjectedContextTokens`.
fn context_tokens(s: &Session, t: &Tree, p: &Projection) -> ContextTokens {
    let msgs: Vec<(usize, &PMsg)> = p.messages().collect();
    let last_usage = msgs.iter().rposition(|(_, m)| m.usage.is_some());
    if let Some(k) = last_usage {
        let usage = msgs[k].1.usage.unwrap_or(0.0);
        let trailing: u64 = msgs[k + 1..].iter().map(|(_, m)| m.tokens0()).sum();
        let usage_entry = msgs[k].0;
        let usage_pos = if s.entries[usage_entry].id.as_ref().is_some_and(Key::truthy) {
            // branchEntries.findIndex(e => e.id === usageEntryId): the first entry with that id.
            let id = s.entries[usage_entry].id.as_ref();
            t.path
                .iter()
                .position(|&i| s.entries[i].id.as_ref() == id)
                .map(|x| x as i64)
                .unwrap_or(-1)
        } else {
            -1
        };
        let invalidating = t
            .path
            .iter()
            .rposition(|&i| matches!(&*s.entries[i].ty, "context_edit" | "compaction"))
            .map(|x| x as i64)
            .unwrap_or(-1);
        if usage_pos > invalidating {
            return ContextTokens {
                tokens: usage + trailing as f64,
                usage_tokens: usage,
                trailing_tokens: trailing as f64,
                last_usage_index: Some(k),
            };
        }
    }
    let sys = replay_system_tokens(s, p);
    let rest: u64 = msgs
        .iter()
        .filter(|(_, m)| m.kind != Role::System)
        .map(|(_, m)| m.tokens0())
        .sum();
    let total = (sys + rest) as f64;
    ContextTokens {
        tokens: total,
        usage_tokens: 0.0,
        trailing_tokens: total,
        last_usage_index: None,
    }
}

/// `estimateTokens(getCurrentSystemMessage(projection.messages))`.
pub fn replay_system_tokens(s: &Session, p: &Projection) -> u64 {
    let mut any = false;
    let mut content_parts: Vec<u64> = Vec::new();
    let mut sections: Vec<(String, u64)> = Vec::new();
    let mut tools: Vec<(String, u64)> = Vec::new();
    for pe in &p.entries {
        let e = &s.entries[pe.idx];
        let sys_msgs: Vec<&Msg> = match &e.body {
            Body::Message(m) if m.role == Some(Role::System) => vec![m],
            Body::Compaction { info, .. } => info.system.as_deref().into_iter().collect(),
            _ => vec![],
        };
        // Only messages that survived projection count.
        for m in sys_msgs {
            if !pe.messages.iter().any(|pm| pm.kind == Role::System) {
                continue;
            }
            any = true;
            let Some(info) = &m.system else { continue };
            if info.content_text_len > 0 {
                content_parts.push(info.content_text_len);
            }
            for (name, v) in &info.sections {
                match v {
                    None => sections.retain(|(n, _)| n != name),
                    Some(l) => {
                        if let Some(slot) = sections.iter_mut().find(|(n, _)| n == name) {
                            slot.1 = *l;
                        } else {
                            sections.push((name.clone(), *l));
                        }
                    }
                }
            }
            for name in &info.tools_removed {
                tools.retain(|(n, _)| n != name);
            }
            for (name, l) in &info.tools_added {
                if let Some(slot) = tools.iter_mut().find(|(n, _)| n == name) {
                    slot.1 = *l;
                } else {
                    tools.push((name.clone(), *l));
                }
            }
        }
    }
    if !any && tools.is_empty() {
        return 0;
    }
    let mut chars: u64 =
        content_parts.iter().sum::<u64>() + 2 * (content_parts.len().saturating_sub(1) as u64);
    chars += sections.iter().map(|(_, l)| *l).sum::<u64>();
    if !tools.is_empty() {
        chars += 2 + tools.iter().map(|(_, l)| *l).sum::<u64>() + (tools.len() as u64 - 1);
    }
    crate::jscompat::tokens_from_chars(chars)
}

/// How overlays are read when materialising messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlays {
    /// Exactly what the model sees (every winning overlay applied).
    AsProjected,
    /// Read through pi-shake's own folds: an entry whose winning overlay pi-shake wrote shows
    /// the content undo would restore (compaction scores and renders real content, never a
    /// placeholder). Overlays written by anyone else still apply.
    ThroughShake,
}

/// The overlays pi-shake wrote, as [`Overlays::ThroughShake`] reads through them (implemented
/// by the wall, which knows them from pi-shake's logs).
pub trait OwnOverlays {
    /// For entry `idx` whose winning overlay is entry `edit`: what undo would restore instead —
    /// `Some(None)` the raw entry, `Some(Some(i))` the overlay at entry `i` — or `None` when the
    /// overlay is not one pi-shake wrote (it stays in force).
    fn restored(&self, idx: usize, edit: usize) -> Option<Option<usize>>;
}

/// The full JSON messages of context entry `pos`, as pi's `projectContextEntry` builds them.
///
/// `fetch(i)` returns entry `i`'s JSON (see [`crate::session::Session::read_value`]).
pub fn materialize<W: OwnOverlays + ?Sized>(
    s: &Session,
    p: &Projection,
    wall: Option<&W>,
    mode: Overlays,
    pos: usize,
    fetch: &mut dyn FnMut(usize) -> anyhow::Result<serde_json::Value>,
) -> anyhow::Result<Vec<serde_json::Value>> {
    use serde_json::{Value, json};
    let pe = &p.entries[pos];
    if pe.messages.is_empty() && pe.edit.is_none() {
        return Ok(Vec::new());
    }
    let e = &s.entries[pe.idx];
    let v = fetch(pe.idx)?;
    let ms = |v: &Value| -> Value {
        v.get("timestamp")
            .and_then(Value::as_str)
            .and_then(crate::jscompat::iso_millis_to_epoch_ms)
            .map(Value::from)
            .unwrap_or(Value::Null)
    };
    let mut msgs: Vec<Value> = match &e.body {
        Body::Message(m) => {
            // Cloned, not taken: a clone is allocated to size, while the parsed value's maps and
            // vectors keep their growth slack, which the region's messages would then hold
            // (taking it: +11 MB peak RSS for `compact` on a 100 MB real-content session).
            let mut msg = v.get("message").cloned().unwrap_or(Value::Null);
            if let Some(obj) = msg.as_object_mut() {
                let null = obj.get("content").is_none_or(Value::is_null);
                if null && m.role == Some(Role::System) {
                    obj.insert("content".into(), Value::String(String::new()));
                } else if null
                    && matches!(
                        m.role,
                        Some(Role::User | Role::Assistant | Role::ToolResult)
                    )
                {
                    obj.insert("content".into(), json!([]));
                }
            }
            vec![msg]
        }
        Body::CustomMessage { .. } => {
            let content = v
                .get("content")
                .filter(|c| !c.is_null())
                .cloned()
                .unwrap_or(json!([]));
            let mut m = serde_json::Map::new();
            m.insert("role".into(), json!(Role::Custom.as_str()));
            for k in ["customType"] {
                if let Some(x) = v.get(k) {
                    m.insert(k.into(), x.clone());
                }
            }
            m.insert("content".into(), content);
            for k in ["display", "details"] {
                if let Some(x) = v.get(k) {
                    m.insert(k.into(), x.clone());
                }
            }
            m.insert("timestamp".into(), ms(&v));
            vec![Value::Object(m)]
        }
        Body::BranchSummary {
            summary_truthy: true,
            ..
        } => {
            let mut m = serde_json::Map::new();
            m.insert("role".into(), json!(Role::BranchSummary.as_str()));
            m.insert(
                "summary".into(),
                v.get("summary").cloned().unwrap_or(Value::Null),
            );
            if let Some(x) = v.get("fromId") {
                m.insert("fromId".into(), x.clone());
            }
            m.insert("timestamp".into(), ms(&v));
            vec![Value::Object(m)]
        }
        Body::Compaction { .. } if pos == 0 => {
            let mut out = Vec::new();
            if let Some(sys) = v.get("systemMessage").filter(|x| !x.is_null()) {
                out.push(sys.clone());
            }
            let mut m = serde_json::Map::new();
            m.insert("role".into(), json!(Role::CompactionSummary.as_str()));
            m.insert(
                "summary".into(),
                v.get("summary").cloned().unwrap_or(Value::Null),
            );
            if let Some(x) = v.get("tokensBefore") {
                m.insert("tokensBefore".into(), x.clone());
            }
            m.insert("timestamp".into(), ms(&v));
            out.push(Value::Object(m));
            out
        }
        _ => Vec::new(),
    };
    let Some(edit) = pe.edit else {
        return Ok(msgs);
    };
    // Read through pi-shake's own overlays: restore what undo would restore.
    let restored = match (mode, wall) {
        (Overlays::ThroughShake, Some(w)) => w.restored(pe.idx, edit),
        _ => None,
    };
    let edit = restored.unwrap_or(Some(edit));
    let Some(edit) = edit else {
        return Ok(msgs);
    };
    let ev = fetch(edit)?;
    let replacement = ev.get("replacement").cloned().unwrap_or(Value::Null);
    if replacement.is_null() {
        return Ok(Vec::new());
    }
    let Some(content) = replacement.get("content") else {
        return Ok(msgs);
    };
    for m in &mut msgs {
        let role = Role::parse_str(m.get("role").and_then(Value::as_str).unwrap_or(""));
        if !role.content_editable() {
            continue;
        }
        let c = match (role, content) {
            (Role::Assistant | Role::ToolResult, Value::String(t)) => {
                json!([{"type": "text", "text": t}])
            }
            _ => content.clone(),
        };
        if let Some(obj) = m.as_object_mut() {
            obj.insert("content".into(), c);
        }
    }
    Ok(msgs)
}

#[cfg(test)]
#[path = "projection_tests.rs"]
mod tests;
