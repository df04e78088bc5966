//! Stage 2: the entry tree — id index, leaf, and the active path from the leaf to its root.
//!
//! pi's rules: later duplicates win id lookups; the leaf is the last entry in file order; the
//! path follows `parentId` until it is falsy or unknown (an unknown parent silently ends the
//! path: a warning, since pi still reads back whatever is appended after the leaf). pi loops
//! forever on a parent cycle; here a cycle ends the walk and is reported.
//! Pure: no I/O.

use std::collections::HashMap;

use crate::session::{Body, Key, Problem, Session, Severity};

/// The index and the active path.
#[derive(Debug, Default)]
pub struct Tree {
    /// id → index into `session.entries` (the later duplicate wins, as in pi's `Map`). Fx
    /// hashing: ids are short, and this index is built for every entry of every session read.
    pub by_id: HashMap<Key, usize, rustc_hash::FxBuildHasher>,
    /// Index of the leaf (the last entry), if any.
    pub leaf: Option<usize>,
    /// Active path, root first (indices into `session.entries`).
    pub path: Vec<usize>,
    /// `on_path[i]`: entry `i` is on the active path.
    pub on_path: Vec<bool>,
    /// The walk met an entry twice (pi would hang).
    pub cycle: Option<usize>,
    /// The path ended at an unknown parent: (entry index, the missing parent id).
    pub dangling: Option<(usize, Key)>,
    /// Problems found while indexing (duplicates, cycles, dangling parents).
    pub problems: Vec<Problem>,
}

impl Tree {
    /// Index `s` and walk the active path from its last entry.
    pub fn build(s: &Session) -> Tree {
        let mut t = Tree {
            by_id: HashMap::with_capacity_and_hasher(s.entries.len(), Default::default()),
            on_path: vec![false; s.entries.len()],
            ..Default::default()
        };
        let mut dups = 0usize;
        let mut first_dup_line = None;
        for (i, e) in s.entries.iter().enumerate() {
            if let Some(id) = &e.id
                && t.by_id.insert(id.clone(), i).is_some()
            {
                dups += 1;
                first_dup_line.get_or_insert(e.line);
            }
        }
        if dups > 0 {
            t.problems.push(Problem {
                severity: Severity::Warning,
                code: "duplicate-id",
                line: first_dup_line,
                message: format!(
                    "{dups} entr{} reuse an earlier id; the later one wins lookups, as in pi",
                    if dups == 1 { "y" } else { "ies" }
                ),
            });
        }
        let Some(last) = s.entries.len().checked_sub(1) else {
            return t;
        };
        t.leaf = Some(last);
        let leaf = &s.entries[last];
        if leaf.id.as_ref().is_some_and(|k| &*k.0 == "\0null") {
            // pi: a null leaf id means an empty path.
            return t;
        }
        // The leaf always wins its own id (it is the last entry); an earlier entry with the same
        // id is shadowed, and pi's next append may form a loop through it.
        if let Some(id) = &leaf.id
            && s.entries[..last].iter().any(|e| e.id.as_ref() == Some(id))
        {
            t.problems.push(Problem {
                severity: Severity::Unsafe,
                code: "duplicate-leaf-id",
                line: Some(leaf.line),
                message: format!(
                    "the leaf's id {} is also used by an earlier entry (pi's next append may loop)",
                    id.display()
                ),
            });
        }
        let mut cur = Some(last);
        let mut rev = Vec::new();
        while let Some(i) = cur {
            if t.on_path[i] {
                t.cycle = Some(i);
                let e = &s.entries[i];
                t.problems.push(Problem {
                    severity: Severity::Error,
                    code: "cycle",
                    line: Some(e.line),
                    message: format!(
                        "the parent chain from the leaf loops back to entry {} (pi would hang on this session)",
                        e.id_str()
                    ),
                });
                break;
            }
            t.on_path[i] = true;
            rev.push(i);
            let e = &s.entries[i];
            // Most parents are the entry just before; with every id unique, that entry is the
            // one the index would return (no hash lookup needed).
            let prev = i
                .checked_sub(1)
                .filter(|&j| dups == 0 && s.entries[j].id == e.parent);
            cur = match &e.parent {
                None => None,
                Some(_) if prev.is_some() => prev,
                Some(p) => match t.by_id.get(p) {
                    Some(&j) => Some(j),
                    None => {
                        t.dangling = Some((i, p.clone()));
                        None
                    }
                },
            };
        }
        rev.reverse();
        t.path = rev;
        if let Some((i, p)) = &t.dangling {
            let problem = t.dangling_problem(s, *i, p);
            t.problems.push(problem);
        }
        if matches!(leaf.body, Body::NonObject) {
            t.problems.push(Problem {
                severity: Severity::Unsafe,
                code: "non-object-leaf",
                line: Some(leaf.line),
                message: "the last line is not an object: pi's context is empty".into(),
            });
        }
        t
    }

    /// The warning for a path that starts at an entry whose parent is not in the file (usually the
    /// line before it is malformed, so pi skipped it). Appending is as safe as anywhere: new
    /// entries parent on the leaf, pi's path from the leaf runs through them up to this entry,
    /// and every overlay targets an entry on that path, so pi sees and keeps what is written.
    /// Whether pi's context is affected depends on the latest compaction on the path.
    fn dangling_problem(&self, s: &Session, i: usize, parent: &Key) -> Problem {
        let e = &s.entries[i];
        let covered = self
            .path
            .iter()
            .rev()
            .find_map(|&j| match &s.entries[j].body {
                Body::Compaction { first_kept, .. } => Some(first_kept.as_ref().is_some_and(|k| {
                    s.entries[j].id.as_ref() == Some(k)
                        || self.by_id.get(k).is_some_and(|&f| self.on_path[f])
                })),
                _ => None,
            });
        let effect = if covered == Some(true) {
            "it lies before the latest compaction's kept range, so pi's context is not affected"
        } else {
            "pi's context starts here (earlier entries are not sent to the model)"
        };
        Problem {
            severity: Severity::Warning,
            code: "dangling-parent",
            line: Some(e.line),
            message: format!(
                "entry {} names parent {} which is not in the file (a malformed or missing line); pi's branch starts at this entry and {effect}; pi-shake appends after the leaf, which pi reads back",
                e.id_str(),
                parent.display()
            ),
        }
    }

    /// Position of entry `idx` on the path.
    pub fn path_pos(&self, idx: usize) -> Option<usize> {
        if !self.on_path.get(idx).copied().unwrap_or(false) {
            return None;
        }
        self.path.iter().position(|&i| i == idx)
    }
}

#[cfg(test)]
#[path = "tree_tests.rs"]
mod tests;
