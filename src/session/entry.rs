//! Stage 1b: one session line → one compact [`Entry`].
//!
//! A line is parsed once, with typed serde structs whose visitors measure what pi's estimator
//! needs (UTF-16 lengths, `JSON.stringify` lengths, image counts) without keeping the text. Heavy
//! content never stays in memory: the planner re-reads the few lines whose bytes it must copy
//! (see [`crate::session::Session::read_value`]).
//!
//! Parsing follows `JSON.parse` rather than serde's stricter rules: lone surrogate escapes are
//! repaired, duplicate keys keep the last value, and a line whose fields have shapes pi would
//! choke on is still indexed (ids and parents) with its body marked [`Body::Odd`].
//! This module does no I/O.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::jscompat::{self, StringifyLen, Utf16Len};

/// The key under which pi's `Map` indexes an entry id (JS `Map` semantics).
///
/// pi writes string ids; hostile files may carry numbers or `null`. Non-string ids are kept in a
/// separate namespace (their JSON text behind a NUL) so `5` and `"5"` never collide, as in JS.
/// Shared (`Arc`): the tree indexes every id of a session without copying it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(pub std::sync::Arc<str>);

impl Key {
    /// A string id.
    pub fn of(s: &str) -> Key {
        Key(s.into())
    }
    /// The id as pi shows it (strings as is, other values as their JSON text).
    pub fn display(&self) -> &str {
        self.0.strip_prefix('\0').unwrap_or(&self.0)
    }
    /// Whether this key came from a JSON string.
    pub fn is_string(&self) -> bool {
        !self.0.starts_with('\0')
    }
    /// JavaScript truthiness of the id value (`""` is falsy, as is `0`, `null`, `false`).
    pub fn truthy(&self) -> bool {
        !matches!(
            &*self.0,
            "" | "\0null" | "\0false" | "\u{0}0" | "\0-0" | "\u{0}0.0"
        )
    }
}

/// An id value as found in JSON: any value, turned into a [`Key`].
#[derive(Debug)]
struct IdVal(Key);

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

/// Message roles pi knows, plus whatever else a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    System,
    User,
    Assistant,
    ToolResult,
    BashExecution,
    Custom,
    CompactionSummary,
    BranchSummary,
    /// A role pi does not know: projected, but estimated at 0 tokens.
    Other,
}

impl Role {
    /// pi's role name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::ToolResult => "toolResult",
            Role::BashExecution => "bashExecution",
            Role::Custom => "custom",
            Role::CompactionSummary => "compactionSummary",
            Role::BranchSummary => "branchSummary",
            Role::Other => "other",
        }
    }
    /// Roles whose content a `{content}` replacement swaps (pi's `projectContextEntry`).
    pub fn content_editable(self) -> bool {
        matches!(
            self,
            Role::User | Role::Assistant | Role::ToolResult | Role::Custom
        )
    }
}

/// What pi's estimator measures in one `content` value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContentStats {
    /// The content was a JSON string (its UTF-16 length is in `string_len`).
    pub is_string: bool,
    /// `null` or missing.
    pub is_null: bool,
    /// Neither string, array nor null: pi's estimator throws on it.
    pub is_weird: bool,
    pub string_len: u64,
    /// Σ UTF-16 length of text blocks with non-empty text (user/toolResult/custom rule).
    pub text_truthy_chars: u64,
    /// Σ UTF-16 length of every text block's text (assistant rule).
    pub text_all_chars: u64,
    pub text_blocks: u32,
    /// Number of blocks of any type (arrays only).
    pub blocks: u32,
    /// Length of the longest text block (cheap filter for fenced-block planning).
    pub max_text_len: u64,
    /// pi's estimate of the largest fenced block / top-level XML span in any text (the string
    /// content, or a text block), found while reading: `elide` re-reads an entry for its blocks
    /// only when this reaches the block minimum.
    pub max_region_tokens: u64,
    pub images: u32,
    pub thinking_blocks: u32,
    pub thinking_chars: u64,
    /// Σ `name.length + JSON.stringify(arguments).length` over tool calls.
    pub toolcall_chars: u64,
    pub tool_calls: Vec<ToolCallInfo>,
    /// A block shape on which pi's assistant estimator throws (text or thinking missing, …).
    pub assistant_crash: bool,
    /// A thinking block with a signature (provider-signed).
    pub signed_thinking: bool,
}

/// A tool call's id and name (pairing results with calls).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCallInfo {
    pub id: Option<String>,
    pub name: String,
}

impl ContentStats {
    /// chars for user / toolResult / custom / system content (`estimateTextAndImageContentChars`).
    pub fn user_chars(&self) -> Option<u64> {
        if self.is_weird {
            return None;
        }
        if self.is_string {
            return Some(self.string_len);
        }
        Some(self.text_truthy_chars + 4800 * u64::from(self.images))
    }
    /// chars for assistant content (text + thinking + tool calls; a string iterates to 0).
    pub fn assistant_chars(&self) -> Option<u64> {
        if self.is_weird || self.assistant_crash {
            return None;
        }
        if self.is_string {
            return Some(0);
        }
        Some(self.text_all_chars + self.thinking_chars + self.toolcall_chars)
    }
    /// chars for `role` after a `{content}` replacement with this content.
    pub fn chars_as(&self, role: Role) -> Option<u64> {
        match role {
            Role::Assistant => {
                if self.is_string {
                    // pi wraps a string replacement in one text block for assistants.
                    Some(self.string_len)
                } else {
                    self.assistant_chars()
                }
            }
            _ => self.user_chars(),
        }
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
                    max_region_tokens: crate::plan::regions::max_region_tokens(v),
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
/// foldable region (see [`crate::plan::regions`]).
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
                    max_region_tokens: crate::plan::regions::max_region_tokens(v),
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
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
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
                s.tool_calls.push(ToolCallInfo {
                    id: self.id.map(|c| c.into_owned()),
                    name: self.name.map(|c| c.into_owned()).unwrap_or_default(),
                });
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

fn js_num(v: &Option<serde_json::Value>) -> f64 {
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

/// What a system message contributes to the replayed system prompt (pi-ai `getCurrentSystemMessage`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemInfo {
    /// UTF-16 length of `contentText(content)` (text blocks joined by `\n`).
    pub content_text_len: u64,
    /// `sections` in order: name → length of a non-null value (None = null = delete).
    pub sections: Vec<(String, Option<u64>)>,
    /// `toolsAdded`: (name key, `JSON.stringify(tool).length`).
    pub tools_added: Vec<(String, u64)>,
    /// `JSON.stringify(toolsAdded).length` when present.
    pub tools_added_len: Option<u64>,
    pub tools_removed: Vec<String>,
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

/// The `message` object of a `message` entry (or a compaction's `systemMessage`).
#[derive(Deserialize, Default)]
struct RawMessage<'a> {
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
    #[serde(rename = "toolCallId", default)]
    tool_call_id: Option<String>,
    #[serde(rename = "toolName", default)]
    tool_name: Option<String>,
    #[serde(rename = "isError", default)]
    is_error: Option<serde_json::Value>,
    #[serde(default)]
    command: Option<Utf16Len>,
    #[serde(default)]
    output: Option<Utf16Len>,
    #[serde(rename = "excludeFromContext", default)]
    exclude_from_context: Option<serde_json::Value>,
    #[serde(default)]
    sections: Option<SectionsStats>,
    #[serde(rename = "toolsAdded", default)]
    tools_added: Option<ToolsStats>,
    #[serde(rename = "toolsRemoved", default)]
    tools_removed: Option<Vec<ToolName>>,
}

/// A projected-message source: role, estimate inputs and a few facts the planners use.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Msg {
    pub role_name: Cow<'static, str>,
    pub role: Option<Role>,
    pub content: ContentStats,
    /// `stopReason` (assistants).
    pub stop_reason: Option<String>,
    /// `calculateContextTokens(usage)` when usage is present (NaN if it would be NaN in JS).
    pub usage_tokens: Option<f64>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub tool_call_id: Option<String>,
    pub tool_name: Option<String>,
    pub is_error: bool,
    /// bashExecution `command.length + output.length` (None when a field is missing: pi throws).
    pub bash_chars: Option<u64>,
    pub exclude_from_context: bool,
    /// System-message details (role system only; boxed: most messages have none).
    pub system: Option<Box<SystemInfo>>,
    /// Σ non-empty section lengths + stringify(toolsAdded) for this system message alone.
    pub system_extra_chars: u64,
}

impl Msg {
    fn from_raw(m: RawMessage<'_>, migrate_hook_role: bool) -> Msg {
        let mut role_name = intern(m.role.as_deref().unwrap_or(""), ROLES);
        if migrate_hook_role && role_name == "hookMessage" {
            // pi's v2→v3 migration.
            role_name = Cow::Borrowed("custom");
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
            stop_reason: m.stop_reason.map(|c| c.into_owned()),
            usage_tokens: m.usage.map(|u| u.context_tokens()),
            provider: m.provider,
            model: m.model,
            tool_call_id: m.tool_call_id,
            tool_name: m.tool_name,
            is_error: matches!(m.is_error, Some(serde_json::Value::Bool(true))),
            bash_chars: match (m.command, m.output) {
                (Some(c), Some(o)) => Some((c.0 + o.0) as u64),
                _ => None,
            },
            exclude_from_context: m
                .exclude_from_context
                .as_ref()
                .is_some_and(|v| !jscompat::js_is_falsy(v)),
            system,
            system_extra_chars,
        }
    }

    /// pi's `estimateTokens` for this message with its own content (None: pi would throw).
    pub fn tokens(&self) -> Option<u64> {
        self.tokens_with(&self.content)
    }

    /// pi's `estimateTokens` after the content is swapped for `content`.
    pub fn tokens_with(&self, content: &ContentStats) -> Option<u64> {
        let chars = match self.role {
            Some(Role::System) => {
                let c = if content.is_null {
                    Some(0)
                } else {
                    content.user_chars()
                };
                c.map(|c| c + self.system_extra_chars)
            }
            Some(Role::User) | Some(Role::ToolResult) | Some(Role::Custom) => {
                if content.is_null {
                    Some(0)
                } else {
                    content.user_chars()
                }
            }
            Some(Role::Assistant) => {
                if content.is_null {
                    Some(0)
                } else {
                    content.assistant_chars()
                }
            }
            Some(Role::BashExecution) => self.bash_chars,
            _ => Some(0),
        }?;
        Some(jscompat::tokens_from_chars(chars))
    }

    /// A valid usage anchor in pi's sense (assistant, not aborted/error, tokens > 0).
    pub fn valid_usage(&self) -> Option<f64> {
        if self.role != Some(Role::Assistant) {
            return None;
        }
        if matches!(self.stop_reason.as_deref(), Some("aborted") | Some("error")) {
            return None;
        }
        self.usage_tokens.filter(|t| *t > 0.0)
    }
}

/// A `context_edit`'s `replacement`.
#[derive(Clone, Debug, PartialEq)]
pub enum Replacement {
    /// `replacement: null`: the target projects to nothing.
    Omit,
    /// `{content}`: the content that replaces the target's.
    Content(ContentStats),
    /// Missing, `{}`, a bare array…: pi's projection throws on it.
    Invalid,
}

/// The parsed body of an entry, by `type`.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Message(Box<Msg>),
    CustomMessage {
        custom_type: Option<String>,
        content: ContentStats,
    },
    Compaction {
        /// UTF-16 length of `summary` (None: missing or not a string).
        summary_len: Option<u64>,
        first_kept: Option<Key>,
        /// Version-1 files: `firstKeptEntryIndex`.
        first_kept_index: Option<u64>,
        tokens_before: Option<f64>,
        from_hook: bool,
        system: Option<Box<Msg>>,
    },
    BranchSummary {
        summary_len: Option<u64>,
        summary_truthy: bool,
    },
    ContextEdit {
        target: Option<Key>,
        replacement: Replacement,
    },
    Custom {
        custom_type: Option<String>,
        /// Raw `data` JSON, kept only for `customType: "shake"` logs.
        shake_data: Option<String>,
    },
    ModelChange {
        provider: Option<String>,
        model_id: Option<String>,
    },
    ThinkingLevel(Option<String>),
    /// Any other type (`label`, `session_info`, `usage`, unknown types).
    Other,
    /// A known type whose fields have shapes pi-shake cannot measure (pi may throw on them).
    Odd(String),
    /// A non-object JSON value (array, number, string, `true`).
    NonObject,
}

/// One indexed line of a session file.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// 1-based physical line number.
    pub line: u32,
    /// Byte offset of the line in the file.
    pub offset: u64,
    /// Byte length of the line (without the `\n`).
    pub len: u32,
    /// The `type` field (empty when missing or not a string).
    pub ty: Cow<'static, str>,
    /// `id` (None when missing: JS `undefined`).
    pub id: Option<Key>,
    /// `parentId` when present and truthy.
    pub parent: Option<Key>,
    /// Entry timestamp in epoch ms (from the ISO string).
    pub timestamp_ms: Option<i64>,
    pub body: Body,
}

impl Entry {
    /// The message, for `message` entries.
    pub fn msg(&self) -> Option<&Msg> {
        match &self.body {
            Body::Message(m) => Some(m),
            _ => None,
        }
    }
    /// Whether `appendContextEdit` would accept this entry as a target (editable kind).
    pub fn editable(&self) -> bool {
        match &self.body {
            Body::CustomMessage { .. } => true,
            Body::Message(m) => matches!(&*m.role_name, "user" | "assistant" | "toolResult"),
            _ => false,
        }
    }
    /// The id as displayed (`?` when missing).
    pub fn id_str(&self) -> &str {
        self.id.as_ref().map(|k| k.display()).unwrap_or("?")
    }
}

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

fn raw_some<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
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
            Replacement::Content(c)
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

/// The session header's facts.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Header {
    pub id: String,
    /// `version` as JS would compare it (None: missing/null → 1).
    pub version: Option<f64>,
    /// The raw `version` JSON text, for messages.
    pub version_text: Option<String>,
    pub timestamp: Option<String>,
    pub cwd: Option<String>,
    pub parent_session: Option<String>,
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

/// Deepest nesting pi-shake parses (JSON.parse has no limit; past this we would risk the stack
/// while serialising and dropping values).
pub const MAX_DEPTH: usize = 20_000;

/// Nesting depth of a JSON text, ignoring brackets inside strings.
fn nesting_depth(text: &str) -> usize {
    let (mut d, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &b in text.as_bytes() {
        if in_str {
            match b {
                _ if esc => esc = false,
                b'\\' => esc = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                d += 1;
                max = max.max(d);
            }
            b']' | b'}' => d = d.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Parse without serde_json's 128-level recursion limit, growing the stack as needed.
fn from_str_deep<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = T::deserialize(serde_stacker::Deserializer::new(&mut de))?;
    de.end()?;
    Ok(v)
}

/// `JSON.parse` of one line into a value: lenient about lone surrogates, unlimited depth up to
/// [`MAX_DEPTH`] (callers run on a large stack; see [`crate::run`]).
pub fn parse_value(text: &str) -> Result<(serde_json::Value, bool), serde_json::Error> {
    match jscompat::parse_lenient(text) {
        Err(e) if is_depth_error(&e) && nesting_depth(text) <= MAX_DEPTH => {
            let repaired = jscompat::repair_lone_surrogates(text);
            let t = repaired.as_deref().unwrap_or(text);
            stacker::grow(512 << 20, || {
                from_str_deep::<serde_json::Value>(t).map(|v| (v, repaired.is_some()))
            })
        }
        other => other,
    }
}

/// A field [`raw_field`] copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawField {
    /// The content pi projects for a message or custom message (`null`/missing → `[]`).
    Content,
    /// A `context_edit`'s `replacement` (missing → `null`).
    Replacement,
}

#[derive(Deserialize)]
struct RawFields<'a> {
    #[serde(default, borrow)]
    message: Option<RawFieldsMsg<'a>>,
    #[serde(default, borrow, deserialize_with = "raw_some")]
    content: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "raw_some")]
    replacement: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct RawFieldsMsg<'a> {
    #[serde(default, borrow, deserialize_with = "raw_some")]
    content: Option<&'a RawValue>,
}

/// The JSON text of `field` in one entry line (verbatim when serde can borrow it).
pub fn raw_field(text: &str, field: RawField) -> Result<String, serde_json::Error> {
    let normal = |raw: Option<&str>| -> String {
        match (field, raw) {
            (RawField::Content, None | Some("null")) => "[]".to_string(),
            (RawField::Replacement, None) => "null".to_string(),
            (_, Some(r)) => r.to_string(),
        }
    };
    // Borrowed raw values keep the bytes exactly, lone surrogate escapes included.
    if let Ok(f) = serde_json::from_str::<RawFields<'_>>(text) {
        let raw = match (field, f.message) {
            (RawField::Content, Some(m)) => m.content,
            (RawField::Content, None) => f.content,
            (RawField::Replacement, _) => f.replacement,
        };
        return Ok(normal(raw.map(RawValue::get)));
    }
    let (v, _) = parse_value(text)?;
    let raw = match (field, v.get("message")) {
        (RawField::Content, Some(m)) => m.get("content"),
        (RawField::Content, None) => v.get("content"),
        (RawField::Replacement, _) => v.get("replacement"),
    };
    Ok(normal(raw.map(|x| x.to_string()).as_deref()))
}

fn is_depth_error(e: &serde_json::Error) -> bool {
    e.to_string().contains("recursion limit exceeded")
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
            body: Body::Odd(ty),
        },
        repaired,
        header,
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
fn intern(s: &str, known: &[&'static str]) -> Cow<'static, str> {
    match known.iter().find(|k| **k == s) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(s.to_string()),
    }
}

fn build(raw: RawEntry<'_>, line: u32, offset: u64, len: u32, mode: ParseMode) -> Entry {
    let ty = intern(raw.ty.as_deref().unwrap_or(""), TYPES);
    let body = match &*ty {
        "message" => match raw.message {
            Some(m) => Body::Message(Box::new(Msg::from_raw(m, mode.migrate_hook_role))),
            None => Body::Odd(ty.to_string()),
        },
        "custom_message" => Body::CustomMessage {
            custom_type: raw.custom_type,
            content: raw.content.unwrap_or(ContentStats {
                is_null: true,
                ..Default::default()
            }),
        },
        "compaction" => Body::Compaction {
            summary_len: raw.summary.map(|s| s.0 as u64),
            first_kept: raw.first_kept_entry_id.map(|k| k.0),
            first_kept_index: raw.first_kept_entry_index.and_then(|v| v.as_u64()),
            tokens_before: raw.tokens_before.and_then(|v| v.as_f64()),
            from_hook: raw.from_hook.is_some_and(|v| !jscompat::js_is_falsy(&v)),
            system: raw
                .system_message
                .map(|m| Box::new(Msg::from_raw(m, mode.migrate_hook_role))),
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
                    raw.data.map(|d| d.get().to_string())
                } else {
                    None
                },
                custom_type: raw.custom_type,
            }
        }
        "model_change" => Body::ModelChange {
            provider: raw.provider,
            model_id: raw.model_id,
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
