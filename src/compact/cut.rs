//! pi's cut point: a port of `prepareCompaction` + `findProjectedCutPoint`
//! (`docs/pi-format.md#the-cut-point`) onto our [`Projection`].
//!
//! Works on the projected context entries: per-message roles and pi's token estimates come from
//! the projection; whether an entry is "intrinsically visible" (its raw entry yields messages)
//! comes from `session.entries[idx].body`. Pure: no I/O.

use crate::projection::{PEntry, Projection};
use crate::session::{Body, Replacement, Role, Session};
use crate::tree::Tree;

/// Where pi would cut, and what it would summarize.
#[derive(Clone, Debug, PartialEq)]
pub struct Cut {
    /// Position (in `projection.entries`) of the first kept entry.
    pub first_kept_pos: usize,
    /// Its id (pi's `firstKeptEntryId`).
    pub first_kept_id: String,
    pub is_split_turn: bool,
    /// Position of the turn start when the cut splits a turn.
    pub turn_start: Option<usize>,
    /// First position of the span (right after the previous compaction, else 0).
    pub start: usize,
    /// End of `messagesToSummarize` (the turn start when split, else the cut).
    pub history_end: usize,
    /// pi's context total (`docs/pi-format.md#context-total`) of the pre-compaction projection.
    pub tokens_before: f64,
    /// Position of the previous compaction (the one whose summary is `previousSummary`).
    pub previous: Option<usize>,
    /// The `keepRecentTokens` used.
    pub keep_recent_tokens: u64,
}

impl Cut {
    /// Positions of the pruned region: history plus the split-turn prefix (`start..cut`).
    pub fn region(&self) -> std::ops::Range<usize> {
        self.start..self.first_kept_pos
    }
}

/// The outcome of pi's `prepareCompaction`.
#[derive(Clone, Debug, PartialEq)]
pub enum CutOutcome {
    Cut(Cut),
    /// The last entry on the path is a compaction.
    AlreadyCompacted,
    /// Nothing before the cut (the span holds less than `keepRecentTokens`), or no usable id.
    NothingToCompact,
}

fn is_compaction(s: &Session, pe: &PEntry) -> bool {
    matches!(s.entries[pe.idx].body, Body::Compaction { .. })
}

fn cut_role(r: Role) -> bool {
    matches!(
        r,
        Role::User
            | Role::Assistant
            | Role::BashExecution
            | Role::Custom
            | Role::BranchSummary
            | Role::CompactionSummary
    )
}

fn turn_start_role(r: Role) -> bool {
    cut_role(r) && r != Role::Assistant
}

fn is_turn_start(s: &Session, pe: &PEntry) -> bool {
    !is_compaction(s, pe) && pe.messages.iter().any(|m| turn_start_role(m.kind))
}

/// Whether the raw entry yields messages (`sessionEntryToContextMessages(entry).length > 0`).
fn intrinsically_visible(s: &Session, pe: &PEntry) -> bool {
    let e = &s.entries[pe.idx];
    match &e.body {
        Body::ContextEdit { .. } => false,
        Body::Message(_) | Body::CustomMessage { .. } | Body::Compaction { .. } => true,
        Body::BranchSummary { summary_truthy, .. } => *summary_truthy,
        Body::Odd { ty, .. } => matches!(
            &**ty,
            "message" | "custom_message" | "compaction" | "branch_summary"
        ),
        _ => false,
    }
}

/// pi's `findProjectedCutPoint`: (first kept position, turn start or -1, split).
fn find_projected_cut_point(
    s: &Session,
    e: &[PEntry],
    start: usize,
    end: usize,
    keep: u64,
) -> (usize, Option<usize>, bool) {
    let cuts: Vec<usize> = (start..end)
        .filter(|&i| !is_compaction(s, &e[i]) && e[i].messages.iter().any(|m| cut_role(m.kind)))
        .collect();
    let Some(&first_cut) = cuts.first() else {
        return (start, None, false);
    };
    let mut acc: u64 = 0;
    let mut exceeded = false;
    let mut cut = first_cut;
    for i in (start..end).rev() {
        let t = e[i].tokens();
        if t == 0 {
            continue;
        }
        acc += t;
        if acc >= keep {
            exceeded = true;
            cut = cuts
                .iter()
                .copied()
                .find(|&c| c >= i)
                .unwrap_or(cuts[cuts.len() - 1]);
            break;
        }
    }
    // Recovery-omission nudge.
    let suffix = if cut + 1 < end {
        &e[cut + 1..end]
    } else {
        &e[end..end]
    };
    let omitted = |pe: &PEntry| intrinsically_visible(s, pe) && pe.messages.is_empty();
    let omitted_ids: Vec<&crate::session::Key> = suffix
        .iter()
        .filter(|pe| omitted(pe))
        .filter_map(|pe| s.entries[pe.idx].id.as_ref())
        .collect();
    let external_replacement = suffix.iter().any(|pe| match &s.entries[pe.idx].body {
        Body::ContextEdit {
            replacement,
            target,
        } => {
            !matches!(replacement, Replacement::Omit)
                && !target.as_ref().is_some_and(|t| omitted_ids.contains(&t))
        }
        _ => false,
    });
    let recovery = exceeded
        && !external_replacement
        && suffix.iter().any(|pe| {
            s.entries[pe.idx]
                .msg()
                .is_some_and(|m| m.role == Some(Role::Assistant))
                && omitted(pe)
        })
        && suffix
            .iter()
            .all(|pe| !is_compaction(s, pe) && (!intrinsically_visible(s, pe) || omitted(pe)));
    if recovery {
        cut += 1;
    }
    while cut > start {
        let prev = &e[cut - 1];
        if is_compaction(s, prev) || !prev.messages.is_empty() {
            break;
        }
        cut -= 1;
    }
    let (turn_start, split) = split_turn(s, e, start, cut);
    (cut, turn_start, split)
}

/// Step 5 of `findProjectedCutPoint`: the turn start and whether a cut at `cut` splits a turn.
fn split_turn(s: &Session, e: &[PEntry], start: usize, cut: usize) -> (Option<usize>, bool) {
    let starts_turn = cut < e.len() && is_turn_start(s, &e[cut]);
    let turn_start = if starts_turn {
        None
    } else {
        (start..=cut.min(e.len().saturating_sub(1)))
            .rev()
            .find(|&i| i < e.len() && is_turn_start(s, &e[i]))
    };
    let split = !starts_turn && turn_start.is_some();
    (turn_start, split)
}

/// pi's `prepareCompaction(branch, {keepRecentTokens})`, decided on the projection.
pub fn prepare(s: &Session, t: &Tree, p: &Projection, keep_recent_tokens: u64) -> CutOutcome {
    if t.path
        .last()
        .is_some_and(|&i| matches!(s.entries[i].body, Body::Compaction { .. }))
    {
        return CutOutcome::AlreadyCompacted;
    }
    let e = &p.entries;
    let previous = e
        .iter()
        .position(|pe| is_compaction(s, pe) && !pe.messages.is_empty());
    let start = previous.map_or(0, |i| i + 1);
    let end = e.len();
    let (cut, turn_start, split) = find_projected_cut_point(s, e, start, end, keep_recent_tokens);
    finish(
        s,
        p,
        previous,
        (start, cut, turn_start, split),
        keep_recent_tokens,
    )
}

/// pi's `prepareCompaction` with the cut already chosen by pi: `firstKeptEntryId` as pi's
/// `session_before_compact` event gives it (`preparation.firstKeptEntryId`). The region, split
/// turn and previous summary follow from that position exactly as pi derives them. `None` when
/// the id is not a projected entry of the span pi compacts (after the previous compaction).
pub fn at(
    s: &Session,
    t: &Tree,
    p: &Projection,
    first_kept_id: &str,
    keep_recent_tokens: u64,
) -> Option<CutOutcome> {
    if t.path
        .last()
        .is_some_and(|&i| matches!(s.entries[i].body, Body::Compaction { .. }))
    {
        return Some(CutOutcome::AlreadyCompacted);
    }
    let e = &p.entries;
    let previous = e
        .iter()
        .position(|pe| is_compaction(s, pe) && !pe.messages.is_empty());
    let start = previous.map_or(0, |i| i + 1);
    let cut = (start..e.len()).find(|&i| {
        !is_compaction(s, &e[i])
            && s.entries[e[i].idx]
                .id
                .as_ref()
                .is_some_and(|k| k.truthy() && k.display() == first_kept_id)
    })?;
    let (turn_start, split) = split_turn(s, e, start, cut);
    Some(finish(
        s,
        p,
        previous,
        (start, cut, turn_start, split),
        keep_recent_tokens,
    ))
}

/// Steps 6–8 of `prepareCompaction` for a chosen cut `(start, cut, turn start, split)`.
fn finish(
    s: &Session,
    p: &Projection,
    previous: Option<usize>,
    (start, cut, turn_start, split): (usize, usize, Option<usize>, bool),
    keep_recent_tokens: u64,
) -> CutOutcome {
    let e = &p.entries;
    let Some(first_kept) = e.get(cut) else {
        return CutOutcome::NothingToCompact;
    };
    let Some(id) = s.entries[first_kept.idx].id.as_ref().filter(|k| k.truthy()) else {
        return CutOutcome::NothingToCompact;
    };
    let history_end = if split {
        turn_start.unwrap_or(cut)
    } else {
        cut
    };
    let has_messages = |r: std::ops::Range<usize>| {
        e[r].iter()
            .any(|pe| !is_compaction(s, pe) && pe.messages.iter().any(|m| m.kind != Role::System))
    };
    let prefix = if split {
        turn_start.unwrap_or(cut)..cut
    } else {
        cut..cut
    };
    if !has_messages(start..history_end.max(start)) && !has_messages(prefix) {
        return CutOutcome::NothingToCompact;
    }
    CutOutcome::Cut(Cut {
        first_kept_pos: cut,
        first_kept_id: id.display().to_string(),
        is_split_turn: split,
        turn_start: if split { turn_start } else { None },
        start,
        history_end,
        tokens_before: p.context.tokens,
        previous,
        keep_recent_tokens,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cut handed back to [`at`] (as pi hands `firstKeptEntryId` to its hook) yields exactly
    /// the cut [`prepare`] computed: same region, split turn, previous summary and estimate.
    #[test]
    fn at_reproduces_prepare_on_every_fixture() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions-fixtures/pi");
        let mut cuts = 0;
        for f in std::fs::read_dir(dir).unwrap().flatten() {
            if f.path().extension().is_none_or(|x| x != "jsonl") {
                continue;
            }
            let s = Session::open(&f.path()).unwrap();
            let t = Tree::build(&s);
            let p = Projection::build(&s, &t);
            for keep in [0, 500, 2_000, 5_000, 20_000] {
                if let CutOutcome::Cut(c) = prepare(&s, &t, &p, keep) {
                    cuts += 1;
                    assert_eq!(
                        at(&s, &t, &p, &c.first_kept_id, keep),
                        Some(CutOutcome::Cut(c.clone())),
                        "{} keep {keep}",
                        f.path().display()
                    );
                }
            }
            let already = t
                .path
                .last()
                .is_some_and(|&i| matches!(s.entries[i].body, Body::Compaction { .. }));
            let unknown = at(&s, &t, &p, "not-an-id", 2_000);
            if already {
                assert_eq!(unknown, Some(CutOutcome::AlreadyCompacted));
            } else {
                assert_eq!(unknown, None, "{}", f.path().display());
            }
        }
        assert!(cuts >= 10, "{cuts}");
    }
}
