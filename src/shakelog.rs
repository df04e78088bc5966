//! pi-shake's own on-disk kinds: the `custom` entry type of its log and the records in it.
//!
//! Every run that writes appends one `custom` entry with `customType: "shake"` whose `data` is a
//! [`ShakeLog`]; [`crate::wall`] replays them. These types sit below the session and the wall so
//! both can name them without importing each other. Pure data: no I/O.

use serde::{Deserialize, Serialize};

/// `customType` of pi-shake's log entries.
pub const SHAKE_CUSTOM_TYPE: &str = "shake";

/// What a fold is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Scope {
    Elide,
    Thinking,
    Images,
}

impl Scope {
    /// The scope's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Elide => "elide",
            Scope::Thinking => "thinking",
            Scope::Images => "images",
        }
    }
    /// Every scope, in the order `all` runs them.
    pub const ALL: [Scope; 3] = [Scope::Elide, Scope::Images, Scope::Thinking];
}

/// What one scope's fold replaced in an entry: a whole tool result, fenced/XML blocks, thinking
/// blocks or images. Written as the `kind` of a [`FoldRecord`] (by its name, [`FoldKind::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum FoldKind {
    #[serde(rename = "toolResult")]
    ToolResult,
    #[serde(rename = "block")]
    Block,
    #[serde(rename = "thinking")]
    Thinking,
    #[serde(rename = "image")]
    Image,
}

impl FoldKind {
    /// The kind's name, as logs and reports spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            FoldKind::ToolResult => "toolResult",
            FoldKind::Block => "block",
            FoldKind::Thinking => "thinking",
            FoldKind::Image => "image",
        }
    }
}

/// One folded target in a shake log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FoldRecord {
    /// The folded entry.
    pub target: String,
    /// The `context_edit` this run wrote for it.
    pub edit: String,
    pub scope: Scope,
    /// A [`FoldKind`] name (`toolResult`, `block`, `thinking`, `image`), or combinations joined
    /// by `+`.
    pub kind: String,
    /// Tool name (tool results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// How many regions/blocks were folded in the entry.
    pub count: u32,
    /// pi's estimate of the entry before and after this fold.
    pub tokens_before: u64,
    pub tokens_after: u64,
    /// What the model saw before pi-shake first folded this entry: `null` = the raw entry,
    /// otherwise the id of the overlay then in force (restored by undo).
    pub base: Option<String>,
}

/// One restored target in an undo log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestoreRecord {
    pub target: String,
    /// The restoring `context_edit`.
    pub edit: String,
    /// `null` = restored to the raw entry; otherwise the overlay id whose content was restored.
    pub to: Option<String>,
    pub tokens_before: u64,
    pub tokens_after: u64,
}

/// The `data` of a `custom`/`shake` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShakeLog {
    /// `shake` or `undo`.
    pub op: String,
    pub tool: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_min: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<Scope>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folds: Vec<FoldRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restores: Vec<RestoreRecord>,
    /// Σ tokens of the touched entries before and after.
    pub tokens_before: u64,
    pub tokens_after: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_kinds_serialise_as_their_names() {
        for k in [
            FoldKind::ToolResult,
            FoldKind::Block,
            FoldKind::Thinking,
            FoldKind::Image,
        ] {
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("\"{}\"", k.as_str()));
            assert_eq!(serde_json::from_str::<FoldKind>(&json).unwrap(), k);
        }
    }
}
