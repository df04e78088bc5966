//! Stage 4b: plan an undo — restore every folded entry to what the model saw before pi-shake.
//!
//! All or nothing: every wall item whose fold is still in force gets one restoring overlay whose
//! content is the entry's own raw content (copied from the file) or, when an overlay written by
//! someone else was in force before the first fold, that overlay's replacement (a pi omission
//! stays an omission). Folds made moot by a later compaction and folds superseded by someone
//! else's newer overlay are left alone and reported. Pure apart from `fetch`.

use anyhow::Result;
use serde_json::Value;

use super::fold::content_of;
use crate::session::Session;
use crate::wall::{Wall, WallState};

/// One restoring overlay.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedRestore {
    pub target: usize,
    pub target_id: String,
    /// `replacement` to write: `Value::Null` (omit) or `{"content": …}`.
    pub replacement: Value,
    /// None = restored to the raw entry; Some(index of the base overlay).
    pub to: Option<usize>,
    pub tokens_before: u64,
    pub tokens_after: u64,
}

/// An undo plan.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UndoPlan {
    pub restores: Vec<PlannedRestore>,
    /// Wall items left alone: behind a compaction.
    pub moot: usize,
    /// Wall items left alone: someone else's newer overlay is in force.
    pub superseded: usize,
}

/// Plan the undo of everything on the wall. `fetch(i)` returns entry `i`'s JSON.
pub fn plan(
    s: &Session,
    w: &Wall,
    fetch: &mut dyn FnMut(usize) -> Result<Value>,
) -> Result<UndoPlan> {
    let mut plan = UndoPlan::default();
    for item in &w.items {
        match item.state {
            WallState::Moot => {
                plan.moot += 1;
                continue;
            }
            WallState::Superseded => {
                plan.superseded += 1;
                continue;
            }
            WallState::Active => {}
        }
        let replacement = match item.base {
            None => {
                let v = fetch(item.target)?;
                let content = content_of(&v).cloned().unwrap_or(Value::Null);
                // pi projects null/missing content as [] (custom messages: `content ?? []`).
                let content = if content.is_null() {
                    Value::Array(Vec::new())
                } else {
                    content
                };
                serde_json::json!({ "content": content })
            }
            Some(b) => {
                let v = fetch(b)?;
                v.get("replacement").cloned().unwrap_or(Value::Null)
            }
        };
        let _ = s;
        plan.restores.push(PlannedRestore {
            target: item.target,
            target_id: item.target_id.clone(),
            replacement,
            to: item.base,
            tokens_before: item.tokens_after,
            tokens_after: item.tokens_before,
        });
    }
    Ok(plan)
}
