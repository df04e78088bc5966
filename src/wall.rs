//! The wall: what pi-shake has folded on the active branch, derived from its own log entries.
//!
//! Every run that writes appends one `custom` entry with `customType: "shake"` whose `data` is a
//! [`ShakeLog`]. Replaying those logs along the active path (chronologically, last operation
//! wins: a shake adds targets, an undo removes them) gives the wall — a set of *entries*, never a
//! count of `context_edit` rows — and the skip-set a new shake must respect. The logs are the
//! only source: overlays written by anyone else are "foreign" and are never touched.
//! Pure: no I/O.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::projection::{OwnOverlays, Projection};
use crate::session::{Body, Key, Problem, Session, Severity};
use crate::tree::Tree;

pub use crate::shakelog::{
    FoldKind, FoldRecord, RestoreRecord, SHAKE_CUSTOM_TYPE, Scope, ShakeLog,
};

/// A folded entry on the wall.
#[derive(Clone, Debug, PartialEq)]
pub struct WallItem {
    /// Entry index of the target.
    pub target: usize,
    pub target_id: String,
    /// Scopes folded so far, and the kinds.
    pub scopes: Vec<Scope>,
    pub kinds: Vec<String>,
    pub tool: Option<String>,
    /// Entry index of the latest fold edit pi-shake wrote for it.
    pub edit: usize,
    /// What undo restores to: None = raw entry; Some(entry index of the base overlay).
    pub base: Option<usize>,
    /// Tokens before the first fold and after the latest.
    pub tokens_before: u64,
    pub tokens_after: u64,
    /// When (entry timestamp, ms) and with which profile it was last folded.
    pub when_ms: Option<i64>,
    pub profile: Option<String>,
    pub state: WallState,
}

/// Whether a fold still shapes what the model sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WallState {
    /// The fold is what the model sees.
    Active,
    /// The target lies behind a later compaction: the fold no longer matters.
    Moot,
    /// A later overlay written by someone else replaced ours.
    Superseded,
}

/// The wall and the ids pi-shake owns.
#[derive(Clone, Debug, Default)]
pub struct Wall {
    /// Folded entries, in the order they were first folded.
    pub items: Vec<WallItem>,
    /// Every `context_edit` id pi-shake wrote on the active path (folds and restores).
    pub own_edits: HashSet<usize>,
    /// Restoring edits: edit index → what it restored (None = raw, Some(base overlay index)).
    pub restores: BTreeMap<usize, Option<usize>>,
    /// Shake log entries on the path (entry indices), oldest first.
    pub logs: Vec<usize>,
    pub problems: Vec<Problem>,
    /// Target entry index → position in `items`.
    by_target: HashMap<usize, usize>,
}

impl Wall {
    /// Replay the shake logs on the active path.
    pub fn build(s: &Session, t: &Tree, p: &Projection) -> Wall {
        let mut w = Wall::default();
        // Items by target while replaying (a slot emptied by an undo stays as a hole until the
        // end, so every step is O(1) whatever the wall's size).
        let mut slots: Vec<Option<WallItem>> = Vec::new();
        let mut slot_of: HashMap<usize, usize> = HashMap::new();
        let lookup = |id: &str| -> Option<usize> {
            t.by_id.get(&Key::of(id)).copied().filter(|&i| t.on_path[i])
        };
        for &i in &t.path {
            let e = &s.entries[i];
            let Body::Custom {
                shake_data: Some(data),
                ..
            } = &e.body
            else {
                continue;
            };
            let log: ShakeLog = match serde_json::from_str(data) {
                Ok(l) => l,
                Err(err) => {
                    w.problems.push(Problem {
                        severity: Severity::Warning,
                        code: "bad-shake-log",
                        line: Some(e.line),
                        message: format!("a shake log entry pi-shake cannot read ({err}); ignored"),
                    });
                    continue;
                }
            };
            w.logs.push(i);
            match log.op.as_str() {
                "shake" => {
                    for f in &log.folds {
                        let (Some(target), Some(edit)) = (lookup(&f.target), lookup(&f.edit))
                        else {
                            w.problems.push(Problem {
                                severity: Severity::Warning,
                                code: "shake-log-dangling",
                                line: Some(e.line),
                                message: format!(
                                    "the shake log names {} / {}, which are not on the active branch; ignored",
                                    f.target, f.edit
                                ),
                            });
                            continue;
                        };
                        w.own_edits.insert(edit);
                        if let Some(item) = slot_of.get(&target).and_then(|&k| slots[k].as_mut()) {
                            if !item.scopes.contains(&f.scope) {
                                item.scopes.push(f.scope);
                            }
                            if !item.kinds.contains(&f.kind) {
                                item.kinds.push(f.kind.clone());
                            }
                            item.edit = edit;
                            item.tokens_after = f.tokens_after;
                            item.when_ms = e.timestamp_ms;
                            item.profile = log.profile.clone();
                        } else {
                            let base = f.base.as_deref().and_then(lookup);
                            slot_of.insert(target, slots.len());
                            slots.push(Some(WallItem {
                                target,
                                target_id: f.target.clone(),
                                scopes: vec![f.scope],
                                kinds: vec![f.kind.clone()],
                                tool: f.tool.clone(),
                                edit,
                                base,
                                tokens_before: f.tokens_before,
                                tokens_after: f.tokens_after,
                                when_ms: e.timestamp_ms,
                                profile: log.profile.clone(),
                                state: WallState::Active,
                            }));
                        }
                    }
                }
                "undo" => {
                    for r in &log.restores {
                        // A restore counts only once its overlay is in the file: an undo cut
                        // short (log first, overlays after) leaves the rest of the wall as it
                        // was, so the next undo restores it.
                        let Some(edit) = lookup(&r.edit) else {
                            continue;
                        };
                        w.own_edits.insert(edit);
                        w.restores.insert(edit, r.to.as_deref().and_then(lookup));
                        if let Some(k) = lookup(&r.target).and_then(|t| slot_of.remove(&t)) {
                            slots[k] = None;
                        }
                    }
                }
                other => w.problems.push(Problem {
                    severity: Severity::Warning,
                    code: "bad-shake-log",
                    line: Some(e.line),
                    message: format!("a shake log with unknown op `{other}`; ignored"),
                }),
            }
        }
        w.items = slots.into_iter().flatten().collect();
        w.by_target = w
            .items
            .iter()
            .enumerate()
            .map(|(k, it)| (it.target, k))
            .collect();
        // States against the projection.
        let pos_of: HashMap<usize, usize> = p
            .entries
            .iter()
            .enumerate()
            .map(|(pos, pe)| (pe.idx, pos))
            .collect();
        for item in &mut w.items {
            let Some(&pos) = pos_of.get(&item.target) else {
                item.state = WallState::Moot;
                continue;
            };
            item.state = if p.entries[pos].edit == Some(item.edit) {
                WallState::Active
            } else {
                WallState::Superseded
            };
        }
        w
    }

    /// The wall item for entry `idx`.
    pub fn item(&self, idx: usize) -> Option<&WallItem> {
        self.by_target.get(&idx).map(|&k| &self.items[k])
    }

    /// Whether the overlay at `edit` was written by pi-shake.
    pub fn is_own(&self, edit: usize) -> bool {
        self.own_edits.contains(&edit)
    }
}

impl OwnOverlays for Wall {
    fn restored(&self, idx: usize, edit: usize) -> Option<Option<usize>> {
        if let Some(item) = self.item(idx).filter(|it| it.edit == edit) {
            Some(item.base)
        } else {
            self.restores.get(&edit).copied()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_through_own_folds_and_restores_only() {
        let mut w = Wall::default();
        w.items.push(WallItem {
            target: 3,
            target_id: "t3".into(),
            scopes: vec![Scope::Elide],
            kinds: vec!["toolResult".into()],
            tool: None,
            edit: 5,
            base: Some(2),
            tokens_before: 100,
            tokens_after: 10,
            when_ms: None,
            profile: None,
            state: WallState::Active,
        });
        w.by_target.insert(3, 0);
        w.restores.insert(7, None);
        // pi-shake's own fold in force: read what undo restores (the base overlay).
        assert_eq!(w.restored(3, 5), Some(Some(2)));
        // Someone else's overlay on a target pi-shake folded earlier stays in force.
        assert_eq!(w.restored(3, 6), None);
        // A restoring edit pi-shake wrote: read the raw entry.
        assert_eq!(w.restored(4, 7), Some(None));
        assert_eq!(w.restored(4, 8), None);
    }
}
