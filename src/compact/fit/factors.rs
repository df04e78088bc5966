//! The value model's per-pair factors ([`factor`]): what later pairs tell about a pair
//! ([`PairFacts`]: superseded by a later identical call, a read rewritten whole, an error
//! resolved later, a file edited later), its pin and tool kind, and an external scorer's prior.

use std::collections::HashSet;

use super::WRITTEN_FACTOR;
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
}

/// [`PairFacts`] of the region's pairs, `later` being the kept part's pairs. One backward pass.
pub fn pair_facts(pairs: &[Pair], later: &[Pair]) -> PairFacts {
    let n = pairs.len();
    let mut f = PairFacts {
        superseded: vec![false; n],
        rewritten: vec![false; n],
        edited_later: vec![false; n],
        resolved: vec![false; n],
    };
    let mut ok_norm: HashSet<String> = HashSet::new();
    let mut ok_key: HashSet<String> = HashSet::new();
    let mut written: HashSet<String> = HashSet::new();
    let mut edited: HashSet<String> = HashSet::new();
    let note = |p: &Pair,
                ok_norm: &mut HashSet<String>,
                ok_key: &mut HashSet<String>,
                written: &mut HashSet<String>,
                edited: &mut HashSet<String>| {
        if p.result_msg.is_none() {
            return;
        }
        if !p.is_error {
            ok_norm.insert(format!("{}\u{0}{}", p.tool, normalised_args(&p.args)));
            ok_key.insert(same_key(&p.tool, &p.args));
        }
        if let Some(path) = p.path() {
            if p.tool == "write" {
                written.insert(path.to_string());
            }
            if matches!(p.tool.as_str(), "edit" | "write") {
                edited.insert(path.to_string());
            }
        }
    };
    for q in later {
        note(q, &mut ok_norm, &mut ok_key, &mut written, &mut edited);
    }
    for i in (0..n).rev() {
        let p = &pairs[i];
        f.superseded[i] = ok_norm.contains(&format!("{}\u{0}{}", p.tool, normalised_args(&p.args)));
        if let Some(path) = p.path() {
            f.rewritten[i] = p.tool == "read" && written.contains(path);
            f.edited_later[i] =
                !matches!(p.tool.as_str(), "edit" | "write") && edited.contains(path);
        }
        f.resolved[i] = p.is_error && ok_key.contains(&same_key(&p.tool, &p.args));
        note(p, &mut ok_norm, &mut ok_key, &mut written, &mut edited);
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
