//! The value model's per-pair factors ([`factor`]): what later pairs tell about a pair
//! ([`PairFacts`]: superseded by a later identical call or shell command, a read whose lines a
//! later call shows again ([`files`](super::files)), a read rewritten whole, an error resolved
//! later, a file edited later), whether the user's words name its file, its pin and tool kind,
//! and an external scorer's prior.

use std::collections::{HashMap, HashSet};

use super::WRITTEN_FACTOR;
use super::files::{Spans, directory, file_key, view};
use crate::compact::named::{NAMED_NOW, USER_NAMED, named_file};
use crate::compact::region::{Kind, Pair, Pin, RMsg, normalised_args, same_key};
use crate::score::PairScore;

/// The factor of an output a later identical run succeeded after (its state is older news).
pub(crate) const SUPERSEDED: f32 = 0.4;

/// The factor of a call whose lines of a file a later call shows again ([`PairFacts::reread`]).
pub(crate) const REREAD: f32 = 0.4;

/// What later pairs tell about a pair (for its factor).
#[derive(Clone, Debug, Default)]
pub struct PairFacts {
    /// A later identical call (same tool and normalised arguments; for `bash`, the same
    /// command, whatever lines of its output it shows) succeeded, or, for a
    /// `bash` call, the user ran its command later with `!` and it exited 0.
    pub superseded: Vec<bool>,
    /// By region message: a user's `!cmd` whose command ran again later and succeeded (the
    /// user's `!` or the agent's `bash`).
    pub bang_superseded: Vec<bool>,
    /// A `read`, or a shell command that only prints lines of one file, whose lines a later
    /// successful one shows again (`files::view`; not an identical call: those are `superseded`).
    pub reread: Vec<bool>,
    /// A `read` (or such a shell command) whose file is written whole later.
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
    /// Whether region message `mi` is a user's `!cmd` run again later ([`pair_facts`]).
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
    /// Tool and normalised arguments: a later identical call supersedes it. A shell call is
    /// the same run as another with the same [`command_key`], whatever else its arguments say
    /// (a timeout) and however much of the output it asked to see.
    norm: String,
    /// [`same_key`]: a later successful call on the same target resolves its error.
    same: String,
    /// A `bash` call's [`command_key`]: the user's later `!` run of it supersedes it too.
    command: Option<String>,
    /// The file it works on ([`file_key`]).
    file: Option<String>,
    /// The file whose lines it showed, and those lines ([`view`]).
    view: Option<(String, (u64, u64))>,
}

impl Keys {
    fn of(p: &Pair, cwd: Option<&str>) -> Keys {
        let command = (p.tool == "bash")
            .then(|| p.arg("command"))
            .flatten()
            .map(|c| command_key(c, cwd));
        let norm = match &command {
            Some(cmd) => format!("{}\u{0}{cmd}", p.tool),
            None => format!("{}\u{0}{}", p.tool, normalised_args(&p.args)),
        };
        Keys {
            norm,
            same: same_key(&p.tool, &p.args),
            command,
            file: p.path().map(|path| file_key(path, cwd)),
            view: view(p, cwd),
        }
    }
}

/// A shell command as a run of it: without `2>&1` and without the trailing `| head`/`| tail`
/// that only choose how many lines of its output to see (`npm run build 2>&1 | tail -20` and
/// `npm run build | tail -5` are one build), its whitespace collapsed. Other pipes (a `grep`)
/// change what is shown, so they stay. pi runs every command in the session's `cwd`, so a
/// leading `cd <cwd> &&` changes nothing and is left out, and a leading `cd` elsewhere names
/// its directory whole (`cd packages/a &&` and `cd <cwd>/packages/a/ &&` are one directory).
pub(crate) fn command_key(cmd: &str, cwd: Option<&str>) -> String {
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
    let mut words: Vec<&str> = cmd.split_whitespace().filter(|w| *w != "2>&1").collect();
    let dir = match (cwd, words.as_slice()) {
        (Some(cwd), ["cd", dir, "&&", _, ..]) => directory(dir, cwd),
        _ => None,
    };
    if let Some((dir, here)) = &dir {
        if *here {
            words.drain(..3);
        } else {
            words[1] = dir;
        }
    }
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
    /// Shell commands the user ran with `!` that succeeded, by [`command_key`].
    ok_user: HashSet<String>,
    /// Files written, and files edited or written ([`file_key`]).
    written: HashSet<String>,
    edited: HashSet<String>,
    /// The lines of each file successful calls showed ([`view`]).
    read: HashMap<String, Spans>,
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
        if let Some((file, (first, end))) = keys.view {
            self.read.entry(file).or_default().add(first, end);
        }
        if let Some(file) = keys.file {
            if p.tool == "write" {
                self.written.insert(file.clone());
            }
            if matches!(p.tool.as_str(), "edit" | "write") {
                self.edited.insert(file);
            }
        }
    }

    /// Whether a later call showed all of the lines `span` of `file` ([`view`]).
    fn reread(&self, (file, (first, end)): &(String, (u64, u64))) -> bool {
        self.read
            .get(file)
            .is_some_and(|spans| spans.hold(*first, *end))
    }

    /// Whether a shell command ran later and succeeded, the user's `!` or the agent's `bash`.
    fn ran(&self, command: &str) -> bool {
        self.ok_user.contains(command) || self.ok_norm.contains(&format!("bash\u{0}{command}"))
    }
}

/// [`PairFacts`] of the region's pairs (`pairs`, of the messages `msgs`), `kept` and `later`
/// being the kept part's messages and pairs, `region_user` and `kept_user` the user messages'
/// text of the region and of the kept part. One backward pass over the calls and the user's
/// `!cmd` runs: a shell command run again supersedes its earlier run whoever ran either, the
/// later successful run carrying the current state.
pub fn pair_facts(
    msgs: &[RMsg],
    pairs: &[Pair],
    kept: &[RMsg],
    later: &[Pair],
    region_user: &str,
    kept_user: &str,
    cwd: Option<&str>,
) -> PairFacts {
    let n = pairs.len();
    let mut f = PairFacts {
        superseded: vec![false; n],
        reread: vec![false; n],
        bang_superseded: vec![false; msgs.len()],
        rewritten: vec![false; n],
        edited_later: vec![false; n],
        resolved: vec![false; n],
        user_named: named_in(pairs, region_user),
        named_now: named_in(pairs, kept_user),
    };
    let mut seen = Later::default();
    for q in later {
        seen.note(q, Keys::of(q, cwd));
    }
    seen.ok_user.extend(
        kept.iter()
            .filter_map(|m| bang(m, cwd))
            .filter(|b| b.1)
            .map(|b| b.0),
    );
    // The user's runs, last first; each is taken before the calls whose result came earlier.
    let mut bangs = msgs
        .iter()
        .enumerate()
        .rev()
        .filter_map(|(j, m)| bang(m, cwd).map(|b| (j, b)))
        .peekable();
    for i in (0..n).rev() {
        let p = &pairs[i];
        let at = p.result_msg.unwrap_or(p.call_msg);
        while let Some((j, (command, ok))) = bangs.next_if(|(j, _)| *j > at) {
            f.bang_superseded[j] = seen.ran(&command);
            if ok {
                seen.ok_user.insert(command);
            }
        }
        let keys = Keys::of(p, cwd);
        f.superseded[i] = seen.ok_norm.contains(&keys.norm)
            || keys
                .command
                .as_ref()
                .is_some_and(|c| seen.ok_user.contains(c));
        f.reread[i] = !f.superseded[i] && keys.view.as_ref().is_some_and(|v| seen.reread(v));
        // The file it works on: its path, or the file a shell command printed.
        if let Some(file) = keys.file.as_ref().or(keys.view.as_ref().map(|v| &v.0)) {
            f.rewritten[i] =
                (p.tool == "read" || keys.view.is_some()) && seen.written.contains(file);
            f.edited_later[i] =
                !matches!(p.tool.as_str(), "edit" | "write") && seen.edited.contains(file);
        }
        f.resolved[i] = p.is_error && seen.ok_key.contains(&keys.same);
        seen.note(p, keys);
    }
    for (j, (command, ok)) in bangs {
        f.bang_superseded[j] = seen.ran(&command);
        if ok {
            seen.ok_user.insert(command);
        }
    }
    f
}

/// A user's shell command (`!cmd`) whose output is in the context ([`command_key`]), and
/// whether it succeeded.
fn bang(m: &RMsg, cwd: Option<&str>) -> Option<(String, bool)> {
    match &m.kind {
        Kind::Bash {
            command,
            exit_code,
            cancelled,
            excluded: false,
            ..
        } => Some((
            command_key(command, cwd),
            *exit_code == Some(0) && !*cancelled,
        )),
        _ => None,
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
        (&facts.reread, REREAD, "reread"),
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
        Pair::of(tool, json!({ "path": path }))
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
        let facts = pair_facts(&[], &pairs, &[], &[], region, kept, None);
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

    /// [`pair_facts`] on a region and a kept part: which pairs and which `!` messages (by message
    /// index) are superseded.
    fn superseded(
        region: &[(&str, &str, i64)],
        kept: &[(&str, &str, i64)],
    ) -> (Vec<bool>, Vec<usize>) {
        let (msgs, pairs) = shell_runs(region);
        let (kept, later) = shell_runs(kept);
        let facts = pair_facts(&msgs, &pairs, &kept, &later, "", "", None);
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

    /// A `read` of `path` from `offset` (`None`: no offset) whose result shows `lines` lines,
    /// its notice saying to go on from `next`; `ok` false for an error.
    fn read(path: &str, offset: Option<u64>, lines: u32, next: Option<u32>, ok: bool) -> Pair {
        let mut p = pair("read", path);
        if let Some(o) = offset {
            p.args = json!({ "path": path, "offset": o, "limit": 50 }).into();
        }
        p.shown = crate::compact::region::Shown {
            lines,
            next,
            ..Default::default()
        };
        p.is_error = !ok;
        p
    }

    /// Which of the region's reads `pairs` a later read shows again, `later` being the kept
    /// part's.
    fn reread(pairs: &[Pair], later: &[Pair]) -> Vec<bool> {
        pair_facts(&[], pairs, &[], later, "", "", None).reread
    }

    #[test]
    fn a_read_whose_lines_a_later_read_shows_again_is_reread() {
        let part = || read("src/a.ts", Some(100), 52, Some(150), true);
        // Lines 100–149, then the first 2,000 lines of the file (pi's notice), in the region or
        // in the kept part.
        let whole = read("src/a.ts", None, 2002, Some(2001), true);
        assert_eq!(reread(&[part(), whole.clone()], &[]), [true, false]);
        assert_eq!(reread(&[part()], std::slice::from_ref(&whole)), [true]);
        // A short file read whole, then again from its first line.
        let short = read("src/a.ts", None, 30, None, true);
        assert_eq!(reread(&[short.clone(), short.clone()], &[]), [false, false]);
        let again = read("src/a.ts", Some(1), 30, None, true);
        assert_eq!(reread(&[short.clone(), again], &[]), [true, false]);
        // Not when the later read shows only some of the lines, another file, or failed; not
        // an earlier read of the lines.
        for later in [
            read("src/a.ts", Some(120), 102, Some(220), true),
            read("src/a.ts", None, 102, Some(101), true),
            read("src/b.ts", None, 2002, Some(2001), true),
            read("src/a.ts", None, 2002, Some(2001), false),
        ] {
            assert_eq!(reread(&[part(), later], &[]), [false, false]);
        }
        assert_eq!(reread(&[whole, part()], &[]), [false, false]);
        // An identical read is superseded, and only that.
        let facts = pair_facts(&[], &[short.clone(), short], &[], &[], "", "", None);
        assert_eq!((facts.superseded[0], facts.reread[0]), (true, false));
    }

    #[test]
    fn a_search_or_a_print_whose_lines_a_later_call_shows_again_is_reread() {
        let cwd = Some("/home/u/proj");
        // A `bash` call of `command` whose output shows `lines` lines, numbered `numbered`.
        let shell = |command: &str, lines: u32, numbered: Option<(u32, u32)>| {
            let mut p = pair("bash", "");
            p.args = json!({ "command": command }).into();
            p.shown = crate::compact::region::Shown {
                lines,
                numbered,
                ..Default::default()
            };
            p
        };
        let facts = |pairs: &[Pair]| pair_facts(&[], pairs, &[], &[], "", "", cwd);
        // `grep -n` finds lines 40–95 of the file; a later read shows lines 1–2000 (the path
        // written absolute): the search is older news, and the file it searched was edited.
        let grep = shell("grep -n \"fn main\" src/a.ts | head -5", 5, Some((40, 96)));
        let whole = read("/home/u/proj/src/a.ts", None, 2002, Some(2001), true);
        let edit = pair("edit", "./src/a.ts");
        let f = facts(&[grep.clone(), whole.clone(), edit.clone()]);
        assert_eq!(f.reread, [true, false, false]);
        assert_eq!(f.edited_later, [true, true, false]);
        // Not when the read shows only some of its lines, nor the other way round.
        let part = read("src/a.ts", Some(60), 52, Some(110), true);
        assert_eq!(facts(&[grep.clone(), part]).reread, [false, false]);
        assert_eq!(facts(&[whole.clone(), grep]).reread, [false, false]);
        // A `cat` of the file, then a read; a read, then `sed -n` printing its lines again.
        let cat = shell("cd src && cat a.ts", 30, None);
        assert_eq!(facts(&[cat, whole]).reread, [true, false]);
        let short = read("src/a.ts", Some(10), 20, Some(30), true);
        let sed = shell("sed -n '5,40p' src/a.ts", 36, None);
        assert_eq!(facts(&[short, sed]).reread, [true, false]);
        // A printed file written whole later is `rewritten`.
        let cat = shell("cat src/a.ts", 30, None);
        let write = pair("write", "/home/u/proj/src/a.ts");
        assert_eq!(facts(&[cat, write]).rewritten, [true, false]);
    }

    #[test]
    fn a_reread_file_is_worth_less() {
        let pairs = [
            read("src/a.ts", Some(100), 52, Some(150), true),
            read("src/a.ts", None, 2002, Some(2001), true),
        ];
        let (before, _) = factor(
            0,
            &pairs[0],
            None,
            &pair_facts(&[], &pairs[..1], &[], &[], "", "", None),
            None,
        );
        let (after, why) = factor(
            0,
            &pairs[0],
            None,
            &pair_facts(&[], &pairs, &[], &[], "", "", None),
            None,
        );
        assert_eq!(why, ["reread", "rereadable"]);
        assert!((after / before - REREAD).abs() < 1e-6, "{after} {before}");
    }

    #[test]
    fn a_superseded_command_is_worth_less() {
        let (msgs, pairs) = shell_runs(&[("bash", "cargo test", 0), ("!", "cargo test", 0)]);
        let facts = pair_facts(&[], &pairs, &[], &[], "", "", None);
        let (before, _) = factor(0, &pairs[0], None, &facts, None);
        let facts = pair_facts(&msgs, &pairs, &[], &[], "", "", None);
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
            assert_eq!(command_key(c, None), "npm run build", "{c:?}");
        }
        // A filter that chooses lines by what they hold, or a `||`, is another command.
        for c in [
            "npm run build | grep error",
            "npm run build || tail -5",
            "npm run build | tail -f",
            "npm run build | tail -5 foo.log",
            "npm run build:prod",
        ] {
            assert_ne!(command_key(c, None), "npm run build", "{c:?}");
        }
        // Calls: a timeout or a line count does not make another run.
        let (_, mut pairs) = shell_runs(&[
            ("bash", "cargo test 2>&1 | tail -50", 0),
            ("bash", "cargo test | tail -80", 0),
        ]);
        pairs[1].args = json!({ "command": "cargo test | tail -80", "timeout": 600 }).into();
        let facts = pair_facts(&[], &pairs, &[], &[], "", "", None);
        assert_eq!(facts.superseded, [true, false]);
    }

    #[test]
    fn a_command_is_the_same_run_however_it_names_the_directory_pi_runs_it_in() {
        let cwd = Some("/home/u/proj");
        let key = |c: &str| command_key(c, cwd);
        // pi runs every command in the session's cwd: `cd` there first changes nothing.
        // Elsewhere, one directory however it is spelt.
        let spellings: [(&[&str], &str); 2] = [
            (
                &[
                    "cd /home/u/proj && npm test",
                    "cd /home/u/proj/ && npm test 2>&1 | tail -20",
                    "cd . && npm test",
                    "cd \"/home/u/proj\" && npm test",
                    "cd packages/.. && npm test",
                ],
                "npm test",
            ),
            (
                &[
                    "cd packages/a && make",
                    "cd ./packages/a/ && make",
                    "cd /home/u/proj/packages/a && make",
                    "cd /home/u/proj/packages/b/../a && make",
                ],
                "cd /home/u/proj/packages/a && make",
            ),
        ];
        for (commands, run) in spellings {
            for c in commands {
                assert_eq!(key(c), run, "{c:?}");
            }
        }
        // Another directory is another run.
        for c in [
            "cd /tmp && npm test",
            "cd ~/proj && npm test",
            "cd $HOME/proj && npm test",
            "cd /home/u/proj; npm test",
            "cd /home/u/proj &&",
        ] {
            assert_ne!(key(c), "npm test", "{c:?}");
        }
        // Without a cwd, or a cwd that is not a POSIX path, a `cd` stays as written.
        assert_eq!(
            command_key("cd /home/u/proj && npm test", None),
            "cd /home/u/proj && npm test"
        );
        assert_eq!(
            command_key(r"cd C:\proj && npm test", Some(r"C:\proj")),
            r"cd C:\proj && npm test"
        );
        // A call with the `cd` and the user's `!` run without it are one run.
        let (msgs, mut pairs) = shell_runs(&[("bash", "npm test", 0), ("!", "npm test", 0)]);
        pairs[0].args = json!({ "command": "cd /home/u/proj && npm test" }).into();
        let facts = pair_facts(&msgs, &pairs, &[], &[], "", "", cwd);
        assert_eq!(facts.superseded, [true]);
        assert!(!pair_facts(&msgs, &pairs, &[], &[], "", "", None).superseded[0]);
    }
}
