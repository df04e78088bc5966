//! The pair ids (`t12`, `t12_2`) pi-shake's summaries give their calls, and the calls they name.
//!
//! A pair id is the line of the call's assistant entry in the file the compaction was written
//! to, and the call's place among that message's calls ([`pair_id`]). pi's `/fork` and `/clone`
//! copy a branch into a new file, leaving out other branches' entries and moving labels to the
//! end, so lines move: in the copy, line 65 may hold another call or none. Each pi-shake
//! compaction lists its pairs in `details.pairs` with the result's entry id, which pi keeps, so
//! [`PairIds`] (read from the compactions on the active path) says what an id a summary shows
//! names in any copy; a line is read only for an id no compaction lists. A later compaction in
//! the copy gives a call whose line id a summary already uses another id ([`unused`]).

use anyhow::Result;
use serde_json::Value;

use crate::session::{Body, Session};

/// `t{line}` for a message's first call, `t{line}_{k}` for its k-th (from 1).
pub fn pair_id(line: u32, k: usize) -> String {
    if k == 1 {
        format!("t{line}")
    } else {
        format!("t{line}_{k}")
    }
}

/// `id`, or the first of `{id}b`, `{id}c`, … that `taken` says no summary uses yet (`id`
/// itself when all are: 25 calls on one line in one file's earlier summaries cannot happen
/// short of a forged file, and recall then reports the id as ambiguous).
pub fn unused(id: String, taken: impl Fn(&str) -> bool) -> String {
    if !taken(&id) {
        return id;
    }
    ('b'..='z')
        .map(|c| format!("{id}{c}"))
        .find(|x| !taken(x))
        .unwrap_or(id)
}

/// What the pi-shake compactions on a path say their pair ids name.
#[derive(Debug, Default)]
pub struct PairIds {
    /// Pair id → the result entries of the calls it names, each once (more than one only in a
    /// file an older pi-shake compacted after a fork; `None`: a call without a result).
    by_id: std::collections::HashMap<String, Vec<Option<String>>>,
    /// Result entry id → the pair id a summary gives its call (the newest one's).
    by_result: std::collections::HashMap<String, String>,
}

/// A compaction's `details`, as far as [`PairIds`] reads them.
#[derive(serde::Deserialize)]
struct Details {
    #[serde(default)]
    pruner: Option<String>,
    #[serde(default)]
    pairs: Option<Vec<Listed>>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Listed {
    id: String,
    #[serde(default)]
    result_entry: Option<String>,
}

impl PairIds {
    /// Read the compactions among `path` (entry indices of `s`), each line by `fetch`.
    /// `details` of another shape, or of another pruner, name no pair ids and are passed over.
    pub fn read(
        s: &Session,
        path: &[usize],
        fetch: &mut dyn FnMut(usize) -> Result<Value>,
    ) -> Result<PairIds> {
        let mut out = PairIds::default();
        for &j in path {
            if !matches!(s.entries[j].body, Body::Compaction { .. }) {
                continue;
            }
            let mut v = fetch(j)?;
            let Some(details) = v.get_mut("details").map(Value::take) else {
                continue;
            };
            let Ok(d) = serde_json::from_value::<Details>(details) else {
                continue;
            };
            if !d.pruner.is_some_and(|p| p.starts_with("pi-shake")) {
                continue;
            }
            for p in d.pairs.unwrap_or_default() {
                let results = out.by_id.entry(p.id.clone()).or_default();
                if !results.contains(&p.result_entry) {
                    results.push(p.result_entry.clone());
                }
                if let Some(r) = p.result_entry {
                    out.by_result.insert(r, p.id);
                }
            }
        }
        Ok(out)
    }

    /// The result entries of the calls a summary names `id` (None: no summary uses it).
    pub fn results(&self, id: &str) -> Option<&[Option<String>]> {
        self.by_id.get(id).map(Vec::as_slice)
    }

    /// Whether a summary uses `id`.
    pub fn taken(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// The id to show for the call answered by `result`, k-th of the assistant entry on `line`:
    /// the one a summary gives it, else its line id unless a summary gives that to another call
    /// (None: no id recalls it alone; its result's entry id does).
    pub fn id_for(&self, result: &str, line: u32, k: usize) -> Option<String> {
        if let Some(id) = self.by_result.get(result) {
            return (self.results(id).map_or(0, <[_]>::len) == 1).then(|| id.clone());
        }
        let id = pair_id(line, k);
        (!self.taken(&id)).then_some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_their_unused_forms() {
        assert_eq!(pair_id(7, 1), "t7");
        assert_eq!(pair_id(7, 2), "t7_2");
        assert_eq!(unused("t7".into(), |_| false), "t7");
        assert_eq!(unused("t7".into(), |x| x == "t7"), "t7b");
        assert_eq!(
            unused("t7_2".into(), |x| x == "t7_2" || x == "t7_2b"),
            "t7_2c"
        );
        assert_eq!(unused("t7".into(), |_| true), "t7");
    }

    #[test]
    fn a_listed_result_keeps_its_summary_id_and_a_reused_line_id_is_withheld() {
        let mut ids = PairIds::default();
        ids.by_id.insert("t65".into(), vec![Some("r1".into())]);
        ids.by_result.insert("r1".into(), "t65".into());
        assert_eq!(ids.id_for("r1", 40, 1).as_deref(), Some("t65"));
        assert_eq!(ids.id_for("r2", 65, 1), None);
        assert_eq!(ids.id_for("r2", 66, 1).as_deref(), Some("t66"));
        assert_eq!(ids.results("t65"), Some(&[Some("r1".to_string())][..]));
        assert!(ids.results("t66").is_none());
        // An id two summaries give two calls (a file an older pi-shake compacted after a fork)
        // recalls neither: no id is shown for them.
        ids.by_id
            .insert("t70".into(), vec![Some("r3".into()), Some("r4".into())]);
        ids.by_result.insert("r4".into(), "t70".into());
        assert_eq!(ids.id_for("r4", 90, 1), None);
    }
}
