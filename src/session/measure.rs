//! The serde visitors that measure one line while it is parsed: what pi's estimator needs
//! from `content` ([`ContentStats`]), tool-call arguments, `usage`, system-message sections and
//! tools, and id values of any JSON type (`IdVal`). Nothing measured keeps the text.
//! This module does no I/O.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::entry::{ContentStats, Key, Msg, Role, SystemInfo};
use super::raw::{from_str_deep, nesting_depth};
use crate::jscompat::{self, StringifyLen, Utf16Len};

/// An id value as found in JSON: any value, turned into a [`Key`].
#[derive(Debug)]
pub(super) struct IdVal(pub(super) Key);

impl<'de> Deserialize<'de> for IdVal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IdVal;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an id")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<IdVal, E> {
                Ok(IdVal(Key(v.into())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<IdVal, E> {
                Ok(IdVal(Key(format!("\0{v}").into())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<IdVal, E> {
                Ok(IdVal(Key(format!("\0{v}").into())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<IdVal, E> {
                let n = serde_json::Number::from_f64(v)
                    .map(|n| jscompat::js_number_string(&n))
                    .unwrap_or_else(|| "NaN".to_string());
                Ok(IdVal(Key(format!("\0{n}").into())))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<IdVal, E> {
                Ok(IdVal(Key(format!("\0{v}").into())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<IdVal, E> {
                Ok(IdVal(Key("\0null".into())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<IdVal, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IdVal(Key("\0[object]".into())))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<IdVal, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(IdVal(Key("\0[object]".into())))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for ContentStats {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContentStats;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("message content")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ContentStats, E> {
                Ok(ContentStats {
                    is_string: true,
                    string_len: jscompat::utf16_len(v) as u64,
                    max_region_tokens: crate::regions::max_region_tokens(v),
                    ..Default::default()
                })
            }
            fn visit_unit<E: de::Error>(self) -> Result<ContentStats, E> {
                Ok(ContentStats {
                    is_null: true,
                    ..Default::default()
                })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<ContentStats, A::Error> {
                let mut s = ContentStats::default();
                while let Some(b) = a.next_element::<BlockStats>()? {
                    b.add_to(&mut s);
                }
                Ok(s)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<ContentStats, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(weird())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<ContentStats, E> {
                Ok(weird())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<ContentStats, E> {
                Ok(weird())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<ContentStats, E> {
                Ok(weird())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<ContentStats, E> {
                Ok(weird())
            }
        }
        d.deserialize_any(V)
    }
}

fn weird() -> ContentStats {
    ContentStats {
        is_weird: true,
        ..Default::default()
    }
}

/// A text block's `text`, measured while it is parsed: its UTF-16 length and its largest
/// foldable region (see [`crate::regions`]).
#[derive(Clone, Copy, Debug, Default)]
struct TextStats {
    len: u64,
    max_region_tokens: u64,
}

impl<'de> Deserialize<'de> for TextStats {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TextStats;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<TextStats, E> {
                Ok(TextStats {
                    len: jscompat::utf16_len(v) as u64,
                    max_region_tokens: crate::regions::max_region_tokens(v),
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// One content block, measured.
#[derive(Deserialize, Default)]
struct BlockStats<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(default)]
    text: Option<TextStats>,
    #[serde(default)]
    thinking: Option<Utf16Len>,
    #[serde(rename = "thinkingSignature", default)]
    thinking_signature: Option<IgnoredAny>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
}

/// Nesting beyond which V8's recursive `JSON.stringify` overflows its stack (measured on
/// Node 20: about 4,175 levels of arrays); pi's estimator then throws `RangeError`.
pub const JS_STRINGIFY_MAX_DEPTH: usize = 4_000;

/// `JSON.stringify(args).length`, or None where pi's `JSON.stringify` would throw.
fn args_len(raw: &RawValue) -> Option<u64> {
    let text = raw.get();
    let depth = nesting_depth(text);
    if depth > JS_STRINGIFY_MAX_DEPTH {
        return None;
    }
    let len = if depth > 100 {
        let repaired = jscompat::repair_lone_surrogates(text);
        let t = repaired.as_deref().unwrap_or(text);
        stacker::grow(64 << 20, || from_str_deep::<StringifyLen>(t))
    } else {
        jscompat::from_str_lenient::<StringifyLen>(text).map(|(l, _)| l)
    };
    // `JSON.stringify` prints a lone surrogate as the six characters `\udxxx`.
    let lone = jscompat::count_lone_surrogate_escapes_in_strings(text) as u64;
    len.ok().map(|l| l.0 as u64 + 5 * lone)
}

impl BlockStats<'_> {
    fn add_to(self, s: &mut ContentStats) {
        s.blocks += 1;
        match self.ty.as_deref() {
            Some("text") => {
                s.text_blocks += 1;
                match self.text {
                    Some(t) => {
                        let n = t.len;
                        s.text_all_chars += n;
                        s.text_truthy_chars += n;
                        s.max_text_len = s.max_text_len.max(n);
                        s.max_region_tokens = s.max_region_tokens.max(t.max_region_tokens);
                    }
                    None => s.assistant_crash = true,
                }
            }
            Some("thinking") => {
                s.thinking_blocks += 1;
                if self.thinking_signature.is_some() {
                    s.signed_thinking = true;
                }
                match self.thinking {
                    Some(t) => s.thinking_chars += t.0 as u64,
                    None => s.assistant_crash = true,
                }
            }
            Some("image") => s.images += 1,
            Some("toolCall") => {
                match (&self.name, self.arguments.and_then(args_len)) {
                    (Some(n), Some(args)) => {
                        s.toolcall_chars += jscompat::utf16_len(n) as u64 + args;
                    }
                    // `JSON.stringify(undefined)` is undefined: `.length` throws.
                    _ => s.assistant_crash = true,
                }
            }
            _ => {}
        }
    }
}

/// `usage` of an assistant message, reduced to pi's `calculateContextTokens`.
#[derive(Deserialize, Default)]
struct UsageRaw {
    #[serde(rename = "totalTokens", default)]
    total_tokens: Option<serde_json::Value>,
    #[serde(default)]
    input: Option<serde_json::Value>,
    #[serde(default)]
    output: Option<serde_json::Value>,
    #[serde(rename = "cacheRead", default)]
    cache_read: Option<serde_json::Value>,
    #[serde(rename = "cacheWrite", default)]
    cache_write: Option<serde_json::Value>,
}

pub(super) fn js_num(v: &Option<serde_json::Value>) -> f64 {
    match v {
        Some(serde_json::Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(serde_json::Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(serde_json::Value::Null) => 0.0,
        Some(serde_json::Value::String(s)) if s.trim().is_empty() => 0.0,
        Some(serde_json::Value::String(s)) => s.trim().parse::<f64>().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

impl UsageRaw {
    /// `usage.totalTokens || input + output + cacheRead + cacheWrite` (NaN when not a number).
    fn context_tokens(&self) -> f64 {
        let total = js_num(&self.total_tokens);
        if total != 0.0 && !total.is_nan() && self.total_tokens.is_some() {
            // A string total would be returned as a string by `||`; treat numbers only.
            if matches!(self.total_tokens, Some(serde_json::Value::Number(_))) {
                return total;
            }
            return f64::NAN;
        }
        js_num(&self.input)
            + js_num(&self.output)
            + js_num(&self.cache_read)
            + js_num(&self.cache_write)
    }
}

#[derive(Default)]
struct SectionsStats(Vec<(String, Option<u64>)>, u64);

impl<'de> Deserialize<'de> for SectionsStats {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SectionsStats;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("sections object")
            }
            fn visit_unit<E: de::Error>(self) -> Result<SectionsStats, E> {
                Ok(SectionsStats::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<SectionsStats, A::Error> {
                let mut out = SectionsStats::default();
                while let Some(k) = a.next_key::<String>()? {
                    let v = a.next_value::<Option<Utf16Len>>()?;
                    let len = v.map(|l| l.0 as u64);
                    // JSON.parse keeps the last duplicate, in the first one's position.
                    if let Some(slot) = out.0.iter_mut().find(|(name, _)| *name == k) {
                        slot.1 = len;
                    } else {
                        out.0.push((k, len));
                    }
                }
                // Σ non-empty values (estimateTokens' own rule for one system message).
                out.1 = out.0.iter().filter_map(|(_, l)| *l).sum();
                Ok(out)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Default)]
struct ToolsStats(Vec<(String, u64)>, u64);

impl<'de> Deserialize<'de> for ToolsStats {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ToolsStats;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a tool array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<ToolsStats, A::Error> {
                let mut out = ToolsStats::default();
                let mut total: u64 = 2;
                let mut n = 0u64;
                while let Some(raw) = a.next_element::<&RawValue>()? {
                    let len = serde_json::from_str::<StringifyLen>(raw.get())
                        .map_err(de::Error::custom)?
                        .0 as u64;
                    let name = serde_json::from_str::<ToolName>(raw.get())
                        .map(|t| t.name)
                        .unwrap_or_default();
                    total += len;
                    n += 1;
                    out.0.push((name, len));
                }
                if n > 1 {
                    total += n - 1;
                }
                out.1 = total;
                Ok(out)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Default)]
struct ToolName {
    #[serde(default)]
    name: String,
}

/// The UTF-16 length of a value that is a string; `None` for any other value, which is read
/// and dropped (a field only some roles use must not make another role's message odd).
pub(super) struct LenIfString(Option<usize>);

impl<'de> Deserialize<'de> for LenIfString {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = LenIfString;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<LenIfString, E> {
                Ok(LenIfString(Some(jscompat::utf16_len(v))))
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<LenIfString, E> {
                Ok(LenIfString(None))
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<LenIfString, E> {
                Ok(LenIfString(None))
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<LenIfString, E> {
                Ok(LenIfString(None))
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<LenIfString, E> {
                Ok(LenIfString(None))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<LenIfString, E> {
                Ok(LenIfString(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<LenIfString, A::Error> {
                while a.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(LenIfString(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<LenIfString, A::Error> {
                while a
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(LenIfString(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// The `message` object of a `message` entry (or a compaction's `systemMessage`).
#[derive(Deserialize, Default)]
pub(super) struct RawMessage<'a> {
    #[serde(default, borrow)]
    role: Option<Cow<'a, str>>,
    #[serde(default)]
    content: Option<ContentStats>,
    #[serde(rename = "stopReason", default, borrow)]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(default)]
    usage: Option<UsageRaw>,
    #[serde(default)]
    provider: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(rename = "toolName", default)]
    tool_name: Option<String>,
    #[serde(rename = "isError", default)]
    is_error: Option<serde_json::Value>,
    #[serde(default)]
    command: Option<Utf16Len>,
    #[serde(default)]
    output: Option<Utf16Len>,
    /// A branchSummary or compactionSummary message's text (any shape: other roles ignore it).
    #[serde(default)]
    summary: Option<LenIfString>,
    #[serde(rename = "excludeFromContext", default)]
    exclude_from_context: Option<serde_json::Value>,
    #[serde(default)]
    sections: Option<SectionsStats>,
    #[serde(rename = "toolsAdded", default)]
    tools_added: Option<ToolsStats>,
    #[serde(rename = "toolsRemoved", default)]
    tools_removed: Option<Vec<ToolName>>,
}

impl Msg {
    pub(super) fn from_raw(m: RawMessage<'_>, migrate_hook_role: bool) -> Msg {
        let mut role_name = intern(m.role.as_deref().unwrap_or(""), ROLES);
        if migrate_hook_role && role_name == LEGACY_HOOK_ROLE {
            // pi's v2→v3 migration.
            role_name = Cow::Borrowed(Role::Custom.as_str());
        }
        let role = match &*role_name {
            "" => None,
            r => Some(Role::parse_str(r)),
        };
        // Missing and null content both normalise to an empty projection (§6.3).
        let content = m.content.unwrap_or(ContentStats {
            is_null: true,
            ..Default::default()
        });
        let system = if role == Some(Role::System) {
            let sections = m.sections.unwrap_or_default();
            let tools = m.tools_added.as_ref();
            Some((
                SystemInfo {
                    content_text_len: if content.is_string {
                        content.string_len
                    } else if content.text_blocks > 0 {
                        content.text_all_chars + u64::from(content.text_blocks) - 1
                    } else {
                        0
                    },
                    sections: sections.0,
                    tools_added: tools.map(|t| t.0.clone()).unwrap_or_default(),
                    tools_added_len: tools.map(|t| t.1),
                    tools_removed: m
                        .tools_removed
                        .unwrap_or_default()
                        .into_iter()
                        .map(|t| t.name)
                        .collect(),
                },
                sections.1 + tools.map(|t| t.1).unwrap_or(0),
            ))
        } else {
            None
        };
        let (system, system_extra_chars) = match system {
            Some((s, x)) => (Some(Box::new(s)), x),
            None => (None, 0),
        };
        Msg {
            role_name,
            role,
            content,
            stop_reason: m.stop_reason.map(|c| c.into()),
            usage_tokens: m.usage.map(|u| u.context_tokens()),
            provider: m.provider.map(Into::into),
            model: m.model.map(Into::into),
            tool_name: m.tool_name.map(Into::into),
            is_error: matches!(m.is_error, Some(serde_json::Value::Bool(true))),
            own_chars: match role {
                Some(Role::BranchSummary | Role::CompactionSummary) => {
                    m.summary.and_then(|s| s.0).map(|n| n as u64)
                }
                _ => match (m.command, m.output) {
                    (Some(c), Some(o)) => Some((c.0 + o.0) as u64),
                    _ => None,
                },
            },
            exclude_from_context: m
                .exclude_from_context
                .as_ref()
                .is_some_and(|v| !jscompat::js_is_falsy(v)),
            system,
            system_extra_chars,
        }
    }
}

/// Version < 3 name of the custom role (pi's v2→v3 migration renames it to `custom`).
const LEGACY_HOOK_ROLE: &str = "hookMessage";

/// The message roles pi writes.
const ROLES: &[&str] = &[
    "assistant",
    "toolResult",
    "user",
    "system",
    "bashExecution",
    "custom",
    "hookMessage",
    "compactionSummary",
    "branchSummary",
];

/// `s` without an allocation when it is one of `known` (read for every entry of every session).
pub(super) fn intern(s: &str, known: &[&'static str]) -> Cow<'static, str> {
    match known.iter().find(|k| **k == s) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(s.to_string()),
    }
}
