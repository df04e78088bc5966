//! Stage 4b: plan an undo — restore every folded entry to what the model saw before pi-shake.
//!
//! All or nothing: every wall item whose fold is still in force gets one restoring overlay whose
//! content is the entry's own raw content (copied from the file) or, when an overlay written by
//! someone else was in force before the first fold, that overlay's replacement (a pi omission
//! stays an omission). Folds made moot by a later compaction and folds superseded by someone
//! else's newer overlay are left alone and reported. The plan names *where* each restoration's
//! bytes come from; the command copies them into the append one entry at a time, written in
//! chunks, so memory holds one chunk rather than everything restored. Pure: no I/O.

use crate::wall::{Wall, WallState};

/// Where a restoring overlay's `replacement` comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RestoreFrom {
    /// `{"content": <the target's own content>}` (entry index of the target).
    Raw(usize),
    /// The `replacement` of the overlay that was in force before the first fold.
    Overlay(usize),
}

/// One restoring overlay.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedRestore {
    pub target: usize,
    pub target_id: String,
    pub from: RestoreFrom,
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

/// Plan the undo of everything on the wall.
pub fn plan(w: &Wall) -> UndoPlan {
    let mut plan = UndoPlan::default();
    for item in &w.items {
        match item.state {
            WallState::Moot => plan.moot += 1,
            WallState::Superseded => plan.superseded += 1,
            WallState::Active => plan.restores.push(PlannedRestore {
                target: item.target,
                target_id: item.target_id.clone(),
                from: match item.base {
                    None => RestoreFrom::Raw(item.target),
                    Some(b) => RestoreFrom::Overlay(b),
                },
                to: item.base,
                tokens_before: item.tokens_after,
                tokens_after: item.tokens_before,
            }),
        }
    }
    plan
}
