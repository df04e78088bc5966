//! The value model's per-pair factors ([`factor`]): what later pairs tell about a pair
//! ([`PairFacts`]: superseded by a later identical call or shell command, a read rewritten
//! whole, an error resolved later, a file edited later), whether the user's words name its
//! file, its pin and tool kind, and an external scorer's prior.

use std::collections::HashSet;

use super::WRITTEN_FACTOR;
use crate::compact::named::{NAMED_NOW, USER_NAMED, named_file};
use crate::compact::region::{Kind, Pair, Pin, RMsg, normalised_args, same_key};
use crate::score::PairScore;

/// The factor of an output a later identical run succeeded after (its state is older news).
pub(crate) const SUPERSEDED: f32 = 0.4;

/// What later pairs tell about a pair (for its factor).
#[derive(Clone, Debug, Default)]
pub struct PairFacts {
    /// A later identical call (same tool and normalised arguments; for `bash`, the same
    /// command, whatever lines of its output it shows) succeeded, or, for a
    /// `bash` call, the user ran its command later with `!` and it exited 0 ([`reruns`]).
    pub superseded: Vec<bool>,
    /// By region message: a user's `!cmd` whose command ran again later and succeeded (the
    /// user's `!` or the agent's `bash`) ([`reruns`]).
    pub bang_superseded: Vec<bool>,
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

impl PairFacts {
    /// Whether region message `mi` is a user's `!cmd` run again later ([`reruns`]).
    pub fn bang_superseded_at(&self, mi: usize) -> bool {
        self.bang_superseded.get(mi) == Some(&true)
    }
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
        // A shell call is the same run as another with the same command, whatever else its
        // arguments say (a timeout) and however much of the output it asked to see.
        let norm = match bash_call(p) {
            Some((cmd, _)) => format!("{}\u{0}{cmd}", p.tool),
            None => format!("{}\u{0}{}", p.tool, normalised_args(&p.args)),
        };
        Keys {
            norm,
            same: same_key(&p.tool, &p.args),
        }
    }
}

/// A shell command as a run of it: without `2>&1` and without the trailing `| head`/`| tail`
/// that only choose how many lines of its output to see (`npm run build 2>&1 | tail -20` and
/// `npm run build | tail -5` are one build), its whitespace collapsed. Other pipes (a `grep`)
/// change what is shown, so they stay.
pub(crate) fn command_key(cmd: &str) -> String {
    /// `head` or `tail` with only a line count (`-20`, `-n 20`, `-n20`, `-n +3`, `--lines=20`).
    fn line_filter(stage: &str) -> bool {
        let mut words = stage.split_whitespace();
        if !matches!(words.next(), Some("head" | "tail")) {
            return false;
        }
        let count = |w: &str| {
            let w = w.trim_start_matches(['-', '+']);
            !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit())
        };
        words.all(|w| {
            w == "-n"
                || count(w)
                || w.strip_prefix("-n").is_some_and(count)
                || w.strip_prefix("--lines=").is_some_and(count)
        })
    }
    let words: Vec<&str> = cmd.split_whitespace().filter(|w| *w != "2>&1").collect();
    let mut key = words.join(" ");
    while let Some(at) = key.rfind('|') {
        if key[..at].ends_with('|') || !line_filter(&key[at + 1..]) {
            break;
        }
        key.truncate(key[..at].trim_end().len());
    }
    key
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
        bang_superseded: Vec::new(),
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

/// A user's shell command (`!cmd`) whose output is in the context ([`command_key`]), and
/// whether it succeeded.
fn bang(m: &RMsg) -> Option<(String, bool)> {
    match &m.kind {
        Kind::Bash {
            command,
            exit_code,
            cancelled,
            excluded: false,
            ..
        } => Some((command_key(command), *exit_code == Some(0) && !*cancelled)),
        _ => None,
    }
}

/// A `bash` call's command ([`command_key`]), and whether it succeeded (it has a result that
/// is not an error).
fn bash_call(p: &Pair) -> Option<(String, bool)> {
    (p.tool == "bash")
        .then(|| p.arg("command"))
        .flatten()
        .map(|c| (command_key(c), p.result_msg.is_some() && !p.is_error))
}

/// Shell commands run again: the user's `!cmd` and the agent's `bash` calls supersede each
/// other like two identical calls do, the later successful run carrying the current state.
/// Sets [`PairFacts::superseded`] of a `bash` pair whose command the user ran later with `!`,
/// and [`PairFacts::bang_superseded`] of a `!cmd` that the user or the agent ran again later
/// (in the region, `msgs` and `pairs`, or in the kept part, `kept` and `later`), commands
/// compared as runs (`command_key`: the lines of the output a command asks to see do not make
/// another run). A `bash` call's supersession by a later call stays [`pair_facts`]'s.
pub fn reruns(facts: &mut PairFacts, msgs: &[RMsg], pairs: &[Pair], kept: &[RMsg], later: &[Pair]) {
    // Commands that ran later and succeeded: by the user (`!`), and by the agent (`bash`).
    fn succeeded<T>(runs: &[T], run: fn(&T) -> Option<(String, bool)>) -> HashSet<String> {
        runs.iter()
            .filter_map(run)
            .filter(|r| r.1)
            .map(|r| r.0)
            .collect()
    }
    let mut by_user = succeeded(kept, bang);
    let mut by_agent = succeeded(later, bash_call);
    // The region's runs in session order (a call's where its result is): message, pair (none
    // for the user's), command, success.
    let mut runs: Vec<(usize, Option<usize>, String, bool)> = msgs
        .iter()
        .enumerate()
        .filter_map(|(j, m)| bang(m).map(|(cmd, ok)| (j, None, cmd, ok)))
        .chain(pairs.iter().enumerate().filter_map(|(i, p)| {
            let at = p.result_msg.unwrap_or(p.call_msg);
            bash_call(p).map(|(cmd, ok)| (at, Some(i), cmd, ok))
        }))
        .collect();
    runs.sort_unstable_by_key(|r| (r.0, r.1));
    facts.bang_superseded = vec![false; msgs.len()];
    for (j, pair, cmd, ok) in runs.into_iter().rev() {
        if let Some(i) = pair {
            facts.superseded[i] |= by_user.contains(&cmd);
            if ok {
                by_agent.insert(cmd);
            }
        } else {
            facts.bang_superseded[j] = by_user.contains(&cmd) || by_agent.contains(&cmd);
            if ok {
                by_user.insert(cmd);
            }
        }
    }
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
        (&facts.superseded, SUPERSEDED, "superseded"),
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

    /// A region of `runs` in order: `("!", cmd, exit)` a user's `!cmd` (`"!!"` one pi keeps out
    /// of the context), `("bash", cmd, exit)` the agent's call and its result (exit 0 a success).
    fn shell_runs(runs: &[(&str, &str, i64)]) -> (Vec<RMsg>, Vec<Pair>) {
        let (mut msgs, mut pairs) = (Vec::new(), Vec::new());
        let msg = |kind| RMsg {
            pos: 0,
            entry_id: String::new(),
            kind,
        };
        for (who, cmd, exit) in runs {
            if who.starts_with('!') {
                msgs.push(msg(Kind::Bash {
                    command: format!("{cmd}\n"),
                    output: "out".into(),
                    exit_code: Some(*exit),
                    cancelled: false,
                    excluded: *who == "!!",
                }));
                continue;
            }
            let mut p = pair("bash", "");
            p.args = json!({ "command": cmd }).into();
            (p.call_msg, p.result_msg, p.is_error) = (msgs.len(), Some(msgs.len() + 1), *exit != 0);
            msgs.push(msg(Kind::Other("assistant".into())));
            msgs.push(msg(Kind::Other("toolResult".into())));
            pairs.push(p);
        }
        (msgs, pairs)
    }

    /// [`reruns`] on a region and a kept part: which pairs and which `!` messages (by message
    /// index) are superseded.
    fn superseded(
        region: &[(&str, &str, i64)],
        kept: &[(&str, &str, i64)],
    ) -> (Vec<bool>, Vec<usize>) {
        let (msgs, pairs) = shell_runs(region);
        let (kept, later) = shell_runs(kept);
        let mut facts = pair_facts(&pairs, &later, "", "");
        reruns(&mut facts, &msgs, &pairs, &kept, &later);
        let bangs = (0..msgs.len())
            .filter(|&j| facts.bang_superseded[j])
            .collect();
        (facts.superseded, bangs)
    }

    #[test]
    fn a_shell_command_run_again_by_the_user_or_the_agent_is_superseded() {
        // The user's `!cargo test` after the agent's: the call's output is older news, and the
        // other way round.
        assert_eq!(
            superseded(&[("bash", "cargo test", 0), ("!", "cargo test", 0)], &[]),
            (vec![true], vec![])
        );
        assert_eq!(
            superseded(&[("!", "cargo test", 0), ("bash", "cargo test", 0)], &[]),
            (vec![false], vec![0])
        );
        assert_eq!(
            superseded(&[("!", "cargo test", 1), ("!", " cargo test", 0)], &[]),
            (vec![], vec![0])
        );
        // A run in the kept part supersedes the region's.
        assert_eq!(
            superseded(
                &[("!", "make", 0), ("bash", "make", 0)],
                &[("!", "make", 0)]
            ),
            (vec![true], vec![0])
        );
        assert_eq!(
            superseded(&[("!", "make", 0)], &[("bash", "make", 0)]),
            (vec![], vec![0])
        );
        // Not: a later failing run, another command, an earlier run, a run the model never saw
        // (`!!`), and a `!!` itself is no context to supersede.
        assert_eq!(
            superseded(&[("bash", "cargo test", 0), ("!", "cargo test", 101)], &[]),
            (vec![false], vec![])
        );
        assert_eq!(
            superseded(&[("!", "cargo test", 0), ("bash", "cargo test -q", 0)], &[]),
            (vec![false], vec![])
        );
        assert_eq!(
            superseded(&[("!", "ls", 0)], &[("bash", "ls", 1), ("!!", "ls", 0)]),
            (vec![], vec![])
        );
        assert_eq!(
            superseded(&[("!!", "ls", 0), ("!", "ls", 0)], &[]),
            (vec![], vec![])
        );
        // A call superseded by a later identical call stays so ([`pair_facts`]).
        assert_eq!(
            superseded(&[("bash", "ls", 0), ("bash", "ls", 0)], &[]),
            (vec![true, false], vec![])
        );
    }

    #[test]
    fn a_superseded_command_is_worth_less() {
        let (msgs, pairs) = shell_runs(&[("bash", "cargo test", 0), ("!", "cargo test", 0)]);
        let mut facts = pair_facts(&pairs, &[], "", "");
        let (before, _) = factor(0, &pairs[0], None, &facts, None);
        reruns(&mut facts, &msgs, &pairs, &[], &[]);
        let (after, why) = factor(0, &pairs[0], None, &facts, None);
        assert!(why.contains(&"superseded"), "{why:?}");
        assert!(
            (after / before - SUPERSEDED).abs() < 1e-6,
            "{after} {before}"
        );
    }

    #[test]
    fn a_command_is_the_same_run_whatever_lines_of_it_are_shown() {
        let same = [
            "npm run build 2>&1 | tail -20",
            "npm run build | tail -5",
            "  npm run build 2>&1 |tail -n 3 ",
            "npm   run build | head -n40 | tail --lines=3",
            "npm run build",
        ];
        for c in same {
            assert_eq!(command_key(c), "npm run build", "{c:?}");
        }
        // A filter that chooses lines by what they hold, or a `||`, is another command.
        for c in [
            "npm run build | grep error",
            "npm run build || tail -5",
            "npm run build | tail -f",
            "npm run build | tail -5 foo.log",
            "npm run build:prod",
        ] {
            assert_ne!(command_key(c), "npm run build", "{c:?}");
        }
        // Calls: a timeout or a line count does not make another run.
        let (_, mut pairs) = shell_runs(&[
            ("bash", "cargo test 2>&1 | tail -50", 0),
            ("bash", "cargo test | tail -80", 0),
        ]);
        pairs[1].args = json!({ "command": "cargo test | tail -80", "timeout": 600 }).into();
        let facts = pair_facts(&pairs, &[], "", "");
        assert_eq!(facts.superseded, [true, false]);
    }
}
