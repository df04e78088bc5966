//! The line parser: one physical line → one [`Parsed`] (a compact [`Entry`], or why pi skips
//! the line). A fast typed parse for ordinary lines; `JSON.parse` semantics (lone surrogates
//! repaired, duplicate keys last-wins, unlimited depth up to [`MAX_DEPTH`]) for the rest.
//! This module does no I/O.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::entry::{Body, CompactionInfo, ContentStats, Entry, Header, Key, Msg, Replacement};
use super::measure::{IdVal, RawMessage, intern, js_num};
use super::raw::{MAX_DEPTH, from_str_deep, is_depth_error, nesting_depth, raw_some};
use crate::jscompat::{self, Utf16Len};

/// Top-level fields of any entry line.
#[derive(Deserialize)]
struct RawEntry<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Option<Cow<'a, str>>,
    #[serde(default)]
    id: Option<IdVal>,
    #[serde(rename = "parentId", default)]
    parent_id: Option<IdVal>,
    #[serde(default, borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    message: Option<RawMessage<'a>>,
    #[serde(rename = "customType", default)]
    custom_type: Option<String>,
    #[serde(default)]
    content: Option<ContentStats>,
    #[serde(default)]
    summary: Option<Utf16Len>,
    #[serde(rename = "firstKeptEntryId", default)]
    first_kept_entry_id: Option<IdVal>,
    #[serde(rename = "firstKeptEntryIndex", default)]
    first_kept_entry_index: Option<serde_json::Value>,
    #[serde(rename = "tokensBefore", default)]
    tokens_before: Option<serde_json::Value>,
    #[serde(rename = "fromHook", default)]
    from_hook: Option<serde_json::Value>,
    #[serde(rename = "systemMessage", default, borrow)]
    system_message: Option<RawMessage<'a>>,
    #[serde(rename = "targetId", default)]
    target_id: Option<IdVal>,
    /// Present-but-null must stay distinguishable from missing.
    #[serde(default, borrow, deserialize_with = "raw_some")]
    replacement: Option<&'a RawValue>,
    #[serde(default, borrow)]
    data: Option<&'a RawValue>,
    #[serde(default)]
    provider: Option<String>,
    #[serde(rename = "modelId", default)]
    model_id: Option<String>,
    #[serde(rename = "thinkingLevel", default)]
    thinking_level: Option<String>,
}

#[derive(Deserialize)]
struct RawReplacement {
    content: Option<ContentStats>,
}

fn parse_replacement(raw: Option<&RawValue>) -> Replacement {
    let Some(raw) = raw else {
        return Replacement::Invalid;
    };
    let text = raw.get();
    if text == "null" {
        return Replacement::Omit;
    }
    match serde_json::from_str::<RawReplacement>(text) {
        Ok(RawReplacement { content: Some(c) }) if !c.is_weird && !c.is_null => {
            Replacement::Content(Box::new(c))
        }
        _ => Replacement::Invalid,
    }
}

/// How a line turned out.
// One value per line, consumed at once: boxing the large variant would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Parsed {
    /// Blank after JS `trim()`: skipped silently.
    Blank,
    /// Not JSON (pi skips it): the parse error.
    Malformed(String),
    /// A falsy JSON value (`null`, `0`, `false`, `""`): pi skips it.
    Falsy,
    /// A kept value.
    Entry {
        entry: Entry,
        /// Lone surrogates were repaired to U+FFFD.
        repaired: bool,
        /// Whether this line is a `type:"session"` object with a string `id` (a header).
        header: Option<Header>,
    },
}

#[derive(Deserialize)]
struct RawHeader {
    #[serde(rename = "type", default)]
    ty: Option<serde_json::Value>,
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    version: Option<serde_json::Value>,
    #[serde(default)]
    timestamp: Option<serde_json::Value>,
    #[serde(default)]
    cwd: Option<serde_json::Value>,
    #[serde(rename = "parentSession", default)]
    parent_session: Option<serde_json::Value>,
}

fn header_of(text: &str) -> Option<Header> {
    let h: RawHeader = serde_json::from_str(text).ok()?;
    if h.ty.as_ref().and_then(|t| t.as_str()) != Some("session") {
        return None;
    }
    let id = h.id.as_ref().and_then(|v| v.as_str())?.to_string();
    let (version, version_text) = match &h.version {
        None | Some(serde_json::Value::Null) => (None, None),
        Some(v) => (Some(js_num(&Some(v.clone()))), Some(v.to_string())),
    };
    let s = |v: &Option<serde_json::Value>| v.as_ref().and_then(|v| v.as_str()).map(str::to_string);
    Some(Header {
        id,
        version,
        version_text,
        timestamp: s(&h.timestamp),
        cwd: s(&h.cwd),
        parent_session: s(&h.parent_session),
    })
}

/// Options that change how lines are read (legacy files).
#[derive(Clone, Copy, Debug, Default)]
pub struct ParseMode {
    /// Version < 3: pi's v2→v3 migration renames `hookMessage` to `custom`.
    pub migrate_hook_role: bool,
}

/// Parse one physical line (`text` is the decoded line without its `\n`).
pub fn parse_line(text: &str, line: u32, offset: u64, len: u32, mode: ParseMode) -> Parsed {
    if jscompat::js_trim_is_empty(text) {
        return Parsed::Blank;
    }
    // Fast path: typed parse straight from the text (objects only: serde would also map an
    // array positionally onto the struct).
    let is_object = text.trim_start_matches([' ', '\t', '\r']).starts_with('{');
    if let Some(raw) = is_object
        .then(|| serde_json::from_str::<RawEntry<'_>>(text).ok())
        .flatten()
    {
        let header = if raw.ty.as_deref() == Some("session") {
            header_of(text)
        } else {
            None
        };
        return Parsed::Entry {
            entry: build(raw, line, offset, len, mode),
            repaired: false,
            header,
        };
    }
    slow_path(text, line, offset, len, mode)
}

#[derive(Deserialize)]
struct ArgsOnly<'a> {
    #[serde(default, borrow)]
    message: Option<ArgsMsg<'a>>,
}
#[derive(Deserialize)]
struct ArgsMsg<'a> {
    #[serde(default, borrow)]
    content: Option<Vec<ArgsBlock<'a>>>,
}
#[derive(Deserialize)]
struct ArgsBlock<'a> {
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
}

/// Lone surrogates inside tool-call arguments of `original`, located through `fixed` (same
/// byte offsets).
fn lone_surrogates_in_tool_args(original: &str, fixed: &str) -> u64 {
    let Ok(a) = serde_json::from_str::<ArgsOnly<'_>>(fixed) else {
        return 0;
    };
    let base = fixed.as_ptr() as usize;
    let mut n = 0u64;
    for b in a.message.and_then(|m| m.content).unwrap_or_default() {
        let Some(raw) = b.arguments else { continue };
        let start = raw.get().as_ptr() as usize - base;
        let end = start + raw.get().len();
        if let Some(slice) = original.get(start..end) {
            n += jscompat::count_lone_surrogate_escapes_in_strings(slice) as u64;
        }
    }
    n
}

/// `JSON.parse` semantics for the lines the typed parse refused. Deeply nested lines run on a
/// large dedicated stack (serialising and dropping a deep value recurses).
fn slow_path(text: &str, line: u32, offset: u64, len: u32, mode: ParseMode) -> Parsed {
    if nesting_depth(text) > 64 {
        return stacker::grow(512 << 20, || slow_path_inner(text, line, offset, len, mode));
    }
    slow_path_inner(text, line, offset, len, mode)
}

fn slow_path_inner(text: &str, line: u32, offset: u64, len: u32, mode: ParseMode) -> Parsed {
    let parsed = match jscompat::parse_lenient(text) {
        Err(e) if is_depth_error(&e) => {
            if nesting_depth(text) > MAX_DEPTH {
                return Parsed::Malformed(format!("nested deeper than {MAX_DEPTH} levels"));
            }
            let repaired = jscompat::repair_lone_surrogates(text);
            let t = repaired.as_deref().unwrap_or(text);
            from_str_deep::<serde_json::Value>(t).map(|v| (v, repaired.is_some()))
        }
        other => other,
    };
    let (value, repaired) = match parsed {
        Ok(v) => v,
        Err(e) => return Parsed::Malformed(e.to_string()),
    };
    if jscompat::js_is_falsy(&value) {
        return Parsed::Falsy;
    }
    if !value.is_object() {
        return Parsed::Entry {
            entry: Entry {
                line,
                offset,
                len,
                ty: "".into(),
                id: None,
                parent: None,
                timestamp_ms: None,
                body: Body::NonObject,
            },
            repaired,
            header: None,
        };
    }
    if repaired {
        // Repair keeps byte offsets (`\ud83d` and `\ufffd` are both six bytes), so the typed
        // parse of the repaired text can be mapped back onto the original for the one place
        // where a lone surrogate's length differs: `JSON.stringify` prints it as `\udxxx`.
        if let Some(fixed) = jscompat::repair_lone_surrogates(text)
            && let Ok(raw) = serde_json::from_str::<RawEntry<'_>>(&fixed)
        {
            let header = header_of(&fixed);
            let mut entry = build(raw, line, offset, len, mode);
            let extra = lone_surrogates_in_tool_args(text, &fixed);
            if let Body::Message(m) = &mut entry.body {
                m.content.toolcall_chars += 5 * extra;
            }
            return Parsed::Entry {
                entry,
                repaired,
                header,
            };
        }
    }
    // Re-serialising collapses duplicate keys (last wins) and repaired surrogates.
    let canonical = value.to_string();
    let header = header_of(&canonical);
    let typed = match serde_json::from_str::<RawEntry<'_>>(&canonical) {
        Err(e) if is_depth_error(&e) => from_str_deep::<RawEntry<'_>>(&canonical),
        other => other,
    };
    if let Ok(raw) = typed {
        return Parsed::Entry {
            entry: build(raw, line, offset, len, mode),
            repaired,
            header,
        };
    }
    // Fields of unexpected shapes: keep the tree facts, mark the body odd.
    let obj = value.as_object();
    let get = |k: &str| obj.and_then(|o| o.get(k));
    let ty = get("type")
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string();
    let key_of = |v: &serde_json::Value| -> Key {
        serde_json::from_value::<IdVal>(v.clone())
            .map(|i| i.0)
            .unwrap_or_else(|_| Key("\0?".into()))
    };
    let id = get("id").map(key_of);
    let parent = get("parentId").map(key_of).filter(Key::truthy);
    let timestamp_ms = get("timestamp")
        .and_then(|v| v.as_str())
        .and_then(jscompat::iso_millis_to_epoch_ms);
    Parsed::Entry {
        entry: Entry {
            line,
            offset,
            len,
            ty: ty.clone().into(),
            id,
            parent,
            timestamp_ms,
            body: Body::Odd {
                why: odd_field(&canonical, &ty).into(),
                ty: ty.into(),
            },
        },
        repaired,
        header,
    }
}

/// Where and why the typed parse of an entry line fails, for the problem that reports it:
/// `timestamp: invalid type: map, expected a string`. Only called on the failing path.
fn odd_field(text: &str, ty: &str) -> String {
    let mut de = serde_json::Deserializer::from_str(text);
    let why = match serde_path_to_error::deserialize::<_, RawEntry<'_>>(&mut de) {
        Ok(_) => return format!("a {ty} entry this reader could not measure"),
        Err(e) => {
            let msg = e.inner().to_string();
            let msg = msg
                .rsplit_once(" at line ")
                .map_or(msg.as_str(), |(m, _)| m);
            format!("`{}`: {msg}", e.path())
        }
    };
    // Keep a problem line short, whatever the value was.
    match why.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &why[..i]),
        None => why,
    }
}

/// The entry types pi writes.
const TYPES: &[&str] = &[
    "message",
    "context_edit",
    "custom",
    "custom_message",
    "compaction",
    "branch_summary",
    "model_change",
    "thinking_level_change",
    "session_info",
    "label",
    "usage",
    "session",
];

fn build(raw: RawEntry<'_>, line: u32, offset: u64, len: u32, mode: ParseMode) -> Entry {
    let ty = intern(raw.ty.as_deref().unwrap_or(""), TYPES);
    let body = match &*ty {
        "message" => match raw.message {
            Some(m) => Body::Message(Box::new(Msg::from_raw(m, mode.migrate_hook_role))),
            None => Body::Odd {
                ty: ty.as_ref().into(),
                why: super::entry::NO_MESSAGE.into(),
            },
        },
        "custom_message" => Body::CustomMessage {
            custom_type: raw.custom_type,
            content: Box::new(raw.content.unwrap_or(ContentStats {
                is_null: true,
                ..Default::default()
            })),
        },
        "compaction" => Body::Compaction {
            first_kept: raw.first_kept_entry_id.map(|k| k.0),
            info: Box::new(CompactionInfo {
                summary_len: raw.summary.map(|s| s.0 as u64),
                first_kept_index: raw.first_kept_entry_index.and_then(|v| v.as_u64()),
                tokens_before: raw.tokens_before.and_then(|v| v.as_f64()),
                from_hook: raw.from_hook.is_some_and(|v| !jscompat::js_is_falsy(&v)),
                system: raw
                    .system_message
                    .map(|m| Box::new(Msg::from_raw(m, mode.migrate_hook_role))),
            }),
        },
        "branch_summary" => Body::BranchSummary {
            summary_len: raw.summary.as_ref().map(|s| s.0 as u64),
            summary_truthy: raw.summary.is_some_and(|s| s.0 > 0),
        },
        "context_edit" => Body::ContextEdit {
            target: raw.target_id.map(|k| k.0),
            replacement: parse_replacement(raw.replacement),
        },
        "custom" => {
            let shake = raw.custom_type.as_deref() == Some(crate::shakelog::SHAKE_CUSTOM_TYPE);
            Body::Custom {
                shake_data: if shake {
                    raw.data.map(|d| d.get().into())
                } else {
                    None
                },
                custom_type: raw.custom_type.map(Into::into),
            }
        }
        "model_change" => Body::ModelChange {
            provider: raw.provider.map(Into::into),
            model_id: raw.model_id.map(Into::into),
        },
        "thinking_level_change" => Body::ThinkingLevel(raw.thinking_level),
        _ => Body::Other,
    };
    Entry {
        line,
        offset,
        len,
        ty,
        id: raw.id.map(|i| i.0),
        parent: raw.parent_id.map(|i| i.0).filter(Key::truthy),
        timestamp_ms: raw
            .timestamp
            .as_deref()
            .and_then(jscompat::iso_millis_to_epoch_ms),
        body,
    }
}
