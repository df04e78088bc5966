//! The value model's per-pair factors ([`factor`]): what later pairs tell about a pair
//! ([`PairFacts`]: superseded by a later identical call, a read rewritten whole, an error
//! resolved later, a file edited later), whether the user's words name its file, its pin and
//! tool kind, and an external scorer's prior.

use std::collections::HashSet;

use super::WRITTEN_FACTOR;
use crate::compact::named::{NAMED_NOW, USER_NAMED, named_file};
use crate::compact::region::{Pair, Pin, normalised_args, same_key};
use crate::score::PairScore;

/// What later pairs tell about a pair (for its factor).
#[derive(Clone, Debug, Default)]
pub struct PairFacts {
    /// A later identical call (same tool and normalised arguments) succeeded.
    pub superseded: Vec<bool>,
    /// A `read` whose file is written whole later.
    pub rewritten: Vec<bool>,
    /// A call on a path the session edits or writes later.
    pub edited_later: Vec<bool>,
    /// An error with a later same-key success.
    pub resolved: Vec<bool>,
    /// A call on a file the region's user messages name ([`USER_NAMED`]).
    pub user_named: Vec<bool>,
    /// A call on a file the kept part's user messages name ([`NAMED_NOW`]).
    pub named_now: Vec<bool>,
}

/// Which pairs work on a file that `words` name ([`named_file`]).
fn named_in(pairs: &[Pair], words: &str) -> Vec<bool> {
    pairs
        .iter()
        .map(|p| p.path().is_some_and(|path| named_file(path, words)))
        .collect()
}

/// A call's normalised arguments and its same-target key, made once per call.
struct Keys {
    /// Tool and normalised arguments: a later identical call supersedes it.
    norm: String,
    /// [`same_key`]: a later successful call on the same target resolves its error.
    same: String,
}

impl Keys {
    fn of(p: &Pair) -> Keys {
        Keys {
            norm: format!("{}\u{0}{}", p.tool, normalised_args(&p.args)),
            same: same_key(&p.tool, &p.args),
        }
    }
}

/// What the calls after the one at hand did (the backward pass's state).
#[derive(Default)]
struct Later {
    /// Successful calls by [`Keys::norm`] and by [`Keys::same`].
    ok_norm: HashSet<String>,
    ok_key: HashSet<String>,
    /// Files written, and files edited or written.
    written: HashSet<String>,
    edited: HashSet<String>,
}

impl Later {
    /// Count call `p` (with its `keys`) among the later ones.
    fn note(&mut self, p: &Pair, keys: Keys) {
        if p.result_msg.is_none() {
            return;
        }
        if !p.is_error {
            self.ok_norm.insert(keys.norm);
            self.ok_key.insert(keys.same);
        }
        if let Some(path) = p.path() {
            if p.tool == "write" {
                self.written.insert(path.to_string());
            }
            if matches!(p.tool.as_str(), "edit" | "write") {
                self.edited.insert(path.to_string());
            }
        }
    }
}

/// [`PairFacts`] of the region's pairs, `later` being the kept part's pairs, `region_user` and
/// `kept_user` the user messages' text of the region and of the kept part. One backward pass.
pub fn pair_facts(pairs: &[Pair], later: &[Pair], region_user: &str, kept_user: &str) -> PairFacts {
    let n = pairs.len();
    let mut f = PairFacts {
        superseded: vec![false; n],
        rewritten: vec![false; n],
        edited_later: vec![false; n],
        resolved: vec![false; n],
        user_named: named_in(pairs, region_user),
        named_now: named_in(pairs, kept_user),
    };
    let mut seen = Later::default();
    for q in later {
        seen.note(q, Keys::of(q));
    }
    for i in (0..n).rev() {
        let p = &pairs[i];
        let keys = Keys::of(p);
        f.superseded[i] = seen.ok_norm.contains(&keys.norm);
        if let Some(path) = p.path() {
            f.rewritten[i] = p.tool == "read" && seen.written.contains(path);
            f.edited_later[i] =
                !matches!(p.tool.as_str(), "edit" | "write") && seen.edited.contains(path);
        }
        f.resolved[i] = p.is_error && seen.ok_key.contains(&keys.same);
        seen.note(p, keys);
    }
    f
}

fn is_web(tool: &str) -> bool {
    let t = tool.to_ascii_lowercase();
    ["search", "fetch", "web", "browse", "http", "url"]
        .iter()
        .any(|k| t.contains(k))
}

/// A pair's factor on its strings' value, and the reasons (for `details`).
pub(super) fn factor(
    i: usize,
    p: &Pair,
    pin: Option<Pin>,
    facts: &PairFacts,
    prior: Option<&PairScore>,
) -> (f32, Vec<&'static str>) {
    // No recency weight: on the tuning curve (README "Compaction quality") a later pair's
    // strings were not more likely to be used next than an earlier pair's (0.7 → 1.3 across the
    // region lost 0.07 at ratio 0.10); what the agent does now comes in through relatedness
    // and query words instead.
    let mut f = 1.0;
    let mut why = Vec::new();
    // What later pairs tell, in this order: (holds, factor, reason).
    for (holds, k, reason) in [
        (&facts.superseded, 0.4, "superseded"),
        (&facts.rewritten, 0.5, "rewritten"),
        (&facts.resolved, 0.5, "resolvedError"),
        (&facts.edited_later, 1.25, "editedLater"),
        (&facts.user_named, USER_NAMED, "userNamed"),
        (&facts.named_now, NAMED_NOW, "namedNow"),
    ] {
        if holds[i] {
            f *= k;
            why.push(reason);
        }
    }
    if pin == Some(Pin::EditWrite) {
        f *= WRITTEN_FACTOR;
        why.push("written");
    } else if p.tool == "read" {
        f *= 0.85;
        why.push("rereadable");
    } else if is_web(&p.tool) {
        f *= 1.3;
        why.push("web");
    }
    if let Some(s) = prior {
        f *= 0.25 + s.useful as f32;
        why.push("prior");
    }
    (f, why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pair(tool: &str, path: &str) -> Pair {
        Pair {
            n: 1,
            call_msg: 0,
            block: 0,
            result_msg: Some(1),
            call_id: "c1".into(),
            tool: tool.into(),
            args: json!({ "path": path }).into(),
            output: String::new(),
            output_chars: 0,
            images: 0,
            is_error: false,
            key: "t1".into(),
        }
    }

    #[test]
    fn a_file_the_user_names_is_worth_more_in_the_region_and_now() {
        let pairs = [
            pair("read", "/home/u/proj/src/session-manager.ts"),
            pair("read", "/home/u/proj/src/main.ts"),
            pair("read", r"C:\proj\src\compaction.ts"),
            // Names under 5 chars match too much prose.
            pair("read", "/home/u/proj/a.rs"),
        ];
        let region = "the bug is in @src/session-manager.ts, and compaction.ts too; see a.rs";
        let kept = "now look at main.ts";
        let facts = pair_facts(&pairs, &[], region, kept);
        assert_eq!(facts.user_named, [true, false, true, false]);
        assert_eq!(facts.named_now, [false, true, false, false]);
        let (named, why) = factor(0, &pairs[0], None, &facts, None);
        let (now, why_now) = factor(1, &pairs[1], None, &facts, None);
        let (plain, _) = factor(3, &pairs[3], None, &facts, None);
        assert!(why.contains(&"userNamed") && why_now.contains(&"namedNow"));
        assert!((named / plain - USER_NAMED).abs() < 1e-6, "{named} {plain}");
        assert!((now / plain - NAMED_NOW).abs() < 1e-6, "{now} {plain}");
    }
}
