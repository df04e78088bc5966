//! Stage 1b: the compact facts one session line keeps ([`Entry`], its [`Body`], [`Msg`],
//! [`ContentStats`]) and pi's estimator over them.
//!
//! A line is parsed once ([`super::parse`]), with typed serde structs whose visitors measure what
//! pi's estimator needs ([`super::measure`]: UTF-16 lengths, `JSON.stringify` lengths, image
//! counts) without keeping the text. Heavy content never stays in memory: the planner re-reads
//! the few lines whose bytes it must copy (see [`crate::session::Session::read_value`] and
//! [`super::raw`]).
//!
//! Parsing follows `JSON.parse` rather than serde's stricter rules: lone surrogate escapes are
//! repaired, duplicate keys keep the last value, and a line whose fields have shapes pi would
//! choke on is still indexed (ids and parents) with its body marked [`Body::Odd`].
//! This module does no I/O.

use std::borrow::Cow;
use std::sync::Arc;

use crate::jscompat;

pub use super::measure::JS_STRINGIFY_MAX_DEPTH;
pub use super::parse::{ParseMode, Parsed, parse_line};
pub use super::raw::{MAX_DEPTH, RawField, parse_value, raw_field};

/// The key under which pi's `Map` indexes an entry id (JS `Map` semantics).
///
/// pi writes string ids; hostile files may carry numbers or `null`. Non-string ids are kept in a
/// separate namespace (their JSON text behind a NUL) so `5` and `"5"` never collide, as in JS.
/// Shared (`Arc`): the tree indexes every id of a session without copying it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(pub Arc<str>);

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
    /// Role for a role name (unknown names → `Other`).
    pub fn parse_str(s: &str) -> Role {
        match s {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "toolResult" => Role::ToolResult,
            "bashExecution" => Role::BashExecution,
            "custom" => Role::Custom,
            "compactionSummary" => Role::CompactionSummary,
            "branchSummary" => Role::BranchSummary,
            _ => Role::Other,
        }
    }
    /// Whether `s` is exactly a role name pi knows.
    pub fn exact(s: &str) -> bool {
        Role::parse_str(s) != Role::Other
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
    /// A block shape on which pi's assistant estimator throws (text or thinking missing, …).
    pub assistant_crash: bool,
    /// A thinking block with a signature (provider-signed).
    pub signed_thinking: bool,
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

/// A projected-message source: role, estimate inputs and a few facts the planners use. (Its
/// strings are boxed slices: a session of many small messages holds one of these per entry.)
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Msg {
    pub role_name: Cow<'static, str>,
    pub role: Option<Role>,
    pub content: ContentStats,
    /// `stopReason` (assistants).
    pub stop_reason: Option<Arc<str>>,
    /// `calculateContextTokens(usage)` when usage is present (NaN if it would be NaN in JS).
    pub usage_tokens: Option<f64>,
    pub provider: Option<Arc<str>>,
    pub model: Option<Arc<str>>,
    pub tool_name: Option<Arc<str>>,
    pub is_error: bool,
    /// The chars pi's estimator reads from the role's own fields: a bashExecution's
    /// `command.length + output.length`, a branchSummary or compactionSummary message's
    /// `summary.length` (None when a field is missing or null: pi throws).
    pub own_chars: Option<u64>,
    pub exclude_from_context: bool,
    /// System-message details (role system only; boxed: most messages have none).
    pub system: Option<Box<SystemInfo>>,
    /// Σ non-empty section lengths + stringify(toolsAdded) for this system message alone.
    pub system_extra_chars: u64,
}

impl Msg {
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
            Some(Role::User) | Some(Role::ToolResult) => {
                if content.is_null {
                    Some(0)
                } else {
                    content.user_chars()
                }
            }
            // pi swaps a null or missing content for `[]` for user, assistant and toolResult
            // messages only (`sessionEntryToContextMessages`): a custom one throws ("content is
            // not iterable").
            Some(Role::Custom) => {
                if content.is_null {
                    None
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
            Some(Role::BashExecution | Role::BranchSummary | Role::CompactionSummary) => {
                self.own_chars
            }
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
    Content(Box<ContentStats>),
    /// Missing, `{}`, a bare array…: pi's projection throws on it.
    Invalid,
}

/// A compaction entry's facts besides its first kept entry.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionInfo {
    /// UTF-16 length of `summary` (None: missing or not a string).
    pub summary_len: Option<u64>,
    /// Version-1 files: `firstKeptEntryIndex`.
    pub first_kept_index: Option<u64>,
    pub tokens_before: Option<f64>,
    pub from_hook: bool,
    pub system: Option<Box<Msg>>,
}

/// The parsed body of an entry, by `type`.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Message(Box<Msg>),
    CustomMessage {
        custom_type: Option<String>,
        /// Boxed, as a `context_edit`'s content: every entry is as large as the largest body.
        content: Box<ContentStats>,
    },
    Compaction {
        first_kept: Option<Key>,
        /// The rest, boxed: compactions are few, and every entry is as large as the largest body.
        info: Box<CompactionInfo>,
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
        custom_type: Option<Box<str>>,
        /// Raw `data` JSON, kept only for `customType: "shake"` logs.
        shake_data: Option<Box<str>>,
    },
    ModelChange {
        provider: Option<Box<str>>,
        model_id: Option<Box<str>>,
    },
    ThinkingLevel(Option<String>),
    /// Any other type (`label`, `session_info`, `usage`, unknown types).
    Other,
    /// A known type whose fields have shapes pi-shake cannot measure (pi may throw on them).
    Odd {
        /// The entry's `type`.
        ty: Box<str>,
        /// Where and why: `message.content[2].text: invalid type: integer, expected a string`.
        why: Box<str>,
    },
    /// A non-object JSON value (array, number, string, `true`).
    NonObject,
}

/// [`Body::Odd`]'s reason for a `message` entry whose `message` is null or missing.
pub const NO_MESSAGE: &str = "no `message`";

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

// One per line of a session (330,000 per 100 MB of small entries): keep it from growing.
const _: () = assert!(std::mem::size_of::<Entry>() <= 128 && std::mem::size_of::<Msg>() <= 224);

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
            Body::Message(m) => matches!(
                m.role,
                Some(Role::User | Role::Assistant | Role::ToolResult)
            ),
            _ => false,
        }
    }
    /// The id as displayed (`?` when missing).
    pub fn id_str(&self) -> &str {
        self.id.as_ref().map(|k| k.display()).unwrap_or("?")
    }
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
