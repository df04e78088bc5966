//! Files as the value model sees them: a path resolved as pi resolves it ([`file_key`], from
//! the session's cwd), the lines of a file a call showed ([`view`]: a `read`, or a shell
//! command that only prints lines of one file), and the spans of a file shown so far
//! ([`Spans`]).

use std::collections::BTreeMap;

use crate::compact::region::Pair;

/// The directory `cd dir` goes to from `cwd` (POSIX paths: `.`, `..`, quotes and a trailing
/// `/` resolved), and whether it is `cwd`; `None` for what it cannot tell (`~`, `$HOME`, `-`, a
/// cwd that is not an absolute POSIX path).
pub(super) fn directory(dir: &str, cwd: &str) -> Option<(String, bool)> {
    let dir = dir.trim_matches(['"', '\'']);
    if !cwd.starts_with('/') || dir.is_empty() || dir.starts_with(['~', '$', '-']) {
        return None;
    }
    let normal = |path: &str| {
        let mut parts: Vec<&str> = Vec::new();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                _ => parts.push(part),
            }
        }
        format!("/{}", parts.join("/"))
    };
    let cwd = normal(cwd);
    let to = if dir.starts_with('/') {
        normal(dir)
    } else {
        normal(&format!("{cwd}/{dir}"))
    };
    let here = to == cwd;
    Some((to, here))
}

/// A file's path as one key: pi's tools drop a leading `@` and resolve the rest against the
/// session's cwd, so `src/a.ts`, `./src/a.ts` and `<cwd>/src/a.ts` are one file. As written
/// when it cannot tell (no cwd, `~`, `$HOME`).
pub(super) fn file_key(path: &str, cwd: Option<&str>) -> String {
    let path = path.strip_prefix('@').unwrap_or(path);
    cwd.and_then(|cwd| directory(path, cwd))
        .map_or_else(|| path.to_string(), |(to, _)| to)
}

/// The file whose lines a call showed, by [`file_key`], and those lines `[first, end)`
/// counted from 1: a successful `read`'s ([`Pair::read_span`]), or a successful `bash` call
/// that only prints lines of one file ([`printed`]: `cat f`, `head -n N f`, `sed -n 'A,Bp' f`,
/// after an optional `cd dir &&`; a shell output pi cut to its last lines shows those), or
/// searches one file for numbered lines ([`searched`]: `grep -n pattern f`; from the first
/// line number its output shows to the last).
pub(super) fn view(p: &Pair, cwd: Option<&str>) -> Option<(String, (u64, u64))> {
    if p.tool == "read" {
        return Some((file_key(p.path()?, cwd), p.read_span()?));
    }
    if p.tool != "bash" || p.is_error || p.result_msg.is_none() || p.shown.lines == 0 {
        return None;
    }
    let (words, base) = after_cd(p.arg("command")?, cwd)?;
    let base = base.as_deref();
    if let Some(file) = searched(&words, base) {
        let (first, end) = p.shown.numbered?;
        return Some((file, (u64::from(first), u64::from(end))));
    }
    let (path, first, most) = printed(&words, base)?;
    let first = first.checked_add(u64::from(p.shown.skipped))?;
    let end = first
        .saturating_add(u64::from(p.shown.lines))
        .min(first.saturating_add(most));
    Some((path, (first, end)))
}

/// What a shell command (its [`after_cd`] `words`, run in `base`) prints when it only prints
/// lines of one file: the file (by [`file_key`]), the first line printed and at most how
/// many. `None` for anything else (pipes, several files, globs, variables, redirections, flags
/// it does not know).
fn printed(words: &[&str], base: Option<&str>) -> Option<(String, u64, u64)> {
    let number = |w: &str| w.parse::<u64>().ok();
    let (file, first, most) = match words {
        ["cat", file] => (*file, 1, u64::MAX),
        ["head", file] => (*file, 1, 10),
        ["head", "-n", n, file] => (*file, 1, number(n)?),
        ["head", n, file] => (
            *file,
            1,
            number(n.strip_prefix("-n").or_else(|| n.strip_prefix('-'))?)?,
        ),
        ["sed", "-n", range, file] => {
            let (a, b) = sed_lines(range)?;
            (
                *file,
                a,
                b.saturating_add(1).checked_sub(a).filter(|n| *n > 0)?,
            )
        }
        _ => return None,
    };
    Some((one_file(file, base)?, first, most))
}

/// The lines `A` to `B` (or `A` alone) a `sed -n` script `'A,Bp'` prints, `A` at least 1.
fn sed_lines(script: &str) -> Option<(u64, u64)> {
    let range = script.trim_matches(['\'', '"']).strip_suffix('p')?;
    let (a, b) = range.split_once(',').unwrap_or((range, range));
    Some((a.parse::<u64>().ok()?.max(1), b.parse().ok()?))
}

/// The file whose lines a command (its [`after_cd`] `words`, run in `base`) prints numbered
/// by the file's lines: a `grep -n` (or `rg -n`) of one named file, `cat -n f`, `nl f`
/// (`nl -ba f`); cut by `| head`/`| tail`, `| sed -n 'A,Bp'`, or filtered by another `grep`,
/// its output still is. `None` for a recursive search, several files, a search of its input.
fn searched(words: &[&str], base: Option<&str>) -> Option<String> {
    let mut stages = words.split(|w| *w == "|");
    let search = stages.next()?;
    let passes = |stage: &[&str]| match stage {
        ["head" | "tail" | "grep", ..] => true,
        ["sed", "-n", script] => sed_lines(script).is_some(),
        _ => false,
    };
    if !stages.all(passes) {
        return None;
    }
    let (prog, flags, file) = match search {
        ["cat", "-n", file] | ["nl", file] | ["nl", "-ba", file] | ["nl", "-b", "a", file] => {
            return one_file(file, base);
        }
        [prog @ ("grep" | "rg"), flags @ .., file] if flags.len() >= 2 => (*prog, flags, *file),
        _ => return None,
    };
    let short = |w: &&str| w.starts_with('-') && !w.starts_with("--");
    let numbered = flags
        .iter()
        .any(|w| *w == "--line-number" || (short(w) && w[1..].contains('n')));
    let recursive = flags.iter().any(|w| {
        matches!(*w, "--recursive" | "--dereference-recursive")
            || (prog == "grep" && short(w) && w[1..].contains(['r', 'R']))
    });
    if !numbered || recursive {
        return None;
    }
    one_file(file, base)
}

/// A shell command's words, after a leading `cd dir &&` and without `2>&1` or `2>/dev/null`,
/// and the directory it runs in.
fn after_cd<'a>(cmd: &'a str, cwd: Option<&str>) -> Option<(Vec<&'a str>, Option<String>)> {
    let mut words: Vec<&str> = cmd
        .split_whitespace()
        .filter(|w| !matches!(*w, "2>&1" | "2>/dev/null"))
        .collect();
    let mut base = cwd.map(str::to_string);
    if let ["cd", dir, "&&", ..] = words.as_slice() {
        base = Some(directory(dir, cwd?)?.0);
        words.drain(..3);
    }
    Some((words, base))
}

/// `word` as one file's [`file_key`] from `base`: `None` for a flag, a glob, a variable, a
/// redirection, or a word a quote splits.
fn one_file(word: &str, base: Option<&str>) -> Option<String> {
    let file = match word.as_bytes() {
        [q @ (b'"' | b'\''), .., e] if q == e && word.len() >= 2 => &word[1..word.len() - 1],
        _ => word,
    };
    if file.is_empty()
        || file.starts_with('-')
        || file.contains(['*', '?', '[', '$', '`', '<', '>', '|', ';', '&', '"', '\''])
    {
        return None;
    }
    Some(file_key(file, base))
}

/// Spans of lines `[first, end)`, only those no other one holds: by first line, their ends
/// rising. Whether one holds a span and adding one both take a lookup (a file read thousands
/// of times stays linear).
#[derive(Default)]
pub(super) struct Spans(BTreeMap<u64, u64>);

impl Spans {
    /// Whether one of the spans holds `[first, end)`: the one starting last at or before
    /// `first` ends furthest of those.
    pub(super) fn hold(&self, first: u64, end: u64) -> bool {
        self.0
            .range(..=first)
            .next_back()
            .is_some_and(|(_, &e)| e >= end)
    }

    pub(super) fn add(&mut self, first: u64, end: u64) {
        if self.hold(first, end) {
            return;
        }
        // The spans it holds start at or after `first` and end at or before `end`.
        let held: Vec<u64> = self
            .0
            .range(first..)
            .take_while(|(_, e)| **e <= end)
            .map(|(f, _)| *f)
            .collect();
        for f in held {
            self.0.remove(&f);
        }
        self.0.insert(first, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::region::Shown;
    use serde_json::json;

    const CWD: Option<&str> = Some("/home/u/proj");

    /// A successful `bash` call of `command` whose output shows `lines` lines, `skipped` cut
    /// before them.
    fn shell(command: &str, lines: u32, skipped: u32) -> Pair {
        let mut p = Pair::of("bash", json!({ "command": command }));
        p.shown = Shown {
            lines,
            skipped,
            ..Shown::default()
        };
        p
    }

    #[test]
    fn a_file_is_one_key_however_the_call_names_it() {
        for path in [
            "src/a.ts",
            "./src/a.ts",
            "@src/a.ts",
            "/home/u/proj/src/a.ts",
            "/home/u/proj/lib/../src/a.ts",
        ] {
            assert_eq!(file_key(path, CWD), "/home/u/proj/src/a.ts", "{path}");
        }
        assert_eq!(file_key("~/a.ts", CWD), "~/a.ts");
        assert_eq!(file_key("src/a.ts", None), "src/a.ts");
        assert_eq!(file_key("src/a.ts", Some("C:\\proj")), "src/a.ts");
    }

    #[test]
    fn a_shell_command_that_prints_lines_of_a_file_shows_them() {
        let file = || "/home/u/proj/src/a.ts".to_string();
        for (command, lines, skipped, span) in [
            ("cat src/a.ts", 40, 0, (1, 41)),
            ("cat /home/u/proj/src/a.ts", 40, 0, (1, 41)),
            // pi cut the output to its last 2,000 lines.
            ("cat src/a.ts", 2000, 3000, (3001, 5001)),
            ("head -n 20 src/a.ts", 20, 0, (1, 21)),
            ("head -20 src/a.ts", 12, 0, (1, 13)),
            ("head -n20 'src/a.ts'", 20, 0, (1, 21)),
            ("head src/a.ts", 10, 0, (1, 11)),
            ("sed -n '260,275p' src/a.ts", 16, 0, (260, 276)),
            ("sed -n \"5p\" src/a.ts", 1, 0, (5, 6)),
            // The file ended before the range did.
            ("sed -n 10,50p src/a.ts", 3, 0, (10, 13)),
            ("sed -n '7,18446744073709551615p' src/a.ts", 3, 0, (7, 10)),
            ("cd src && cat a.ts", 40, 0, (1, 41)),
            ("cd /home/u/proj && head -n 5 src/a.ts", 5, 0, (1, 6)),
        ] {
            assert_eq!(
                view(&shell(command, lines, skipped), CWD),
                Some((file(), span)),
                "{command}"
            );
        }
        for command in [
            "cat src/a.ts | grep x",
            "cat src/a.ts src/b.ts",
            "cat src/*.ts",
            "cat -n src/a.ts",
            "head -c 100 src/a.ts",
            "sed -n '/fn/p' src/a.ts",
            "sed -n '9,3p' src/a.ts",
            "sed -i 's/a/b/' src/a.ts",
            "tail -n 20 src/a.ts",
            "cat $FILE",
            "cd ~ && cat a.ts",
            "grep -n x src/a.ts",
        ] {
            assert_eq!(view(&shell(command, 5, 0), CWD), None, "{command}");
        }
        // Not a failed run, nor an empty output.
        let mut failed = shell("cat src/a.ts", 5, 0);
        failed.is_error = true;
        assert_eq!(view(&failed, CWD), None);
        assert_eq!(view(&shell("cat src/a.ts", 0, 0), CWD), None);
        // Without the cwd a relative path stays as written; a `cd` cannot be followed.
        assert_eq!(
            view(&shell("cat src/a.ts", 4, 0), None),
            Some(("src/a.ts".to_string(), (1, 5)))
        );
        assert_eq!(view(&shell("cd src && cat a.ts", 4, 0), None), None);
    }

    #[test]
    fn a_search_of_one_file_shows_the_lines_its_output_numbers() {
        let grep = |command: &str, numbered: Option<(u32, u32)>| {
            let mut p = shell(command, 3, 0);
            p.shown.numbered = numbered;
            view(&p, CWD)
        };
        let file = || "/home/u/proj/src/a.ts".to_string();
        for command in [
            "grep -n \"No models available\" src/a.ts",
            "grep -n handler src/a.ts | head -20",
            "nl -ba src/a.ts | sed -n '40,95p'",
            "cat -n src/a.ts | head -100",
            "nl -b a src/a.ts",
            "grep -in -A3 handler ./src/a.ts 2>/dev/null",
            "grep --line-number -E 'a|b' '/home/u/proj/src/a.ts' | grep -v test",
            "cd src && rg -n handler a.ts",
        ] {
            assert_eq!(
                grep(command, Some((40, 96))),
                Some((file(), (40, 96))),
                "{command}"
            );
        }
        for command in [
            "grep -rn handler src",
            "grep -n -R handler src",
            "grep handler src/a.ts",
            "grep -n handler",
            "cat src/a.ts | grep -n handler",
            "grep -n handler src/a.ts | wc -l",
            "grep -n \"a | b\" src/a.ts",
            "grep -n handler src/*.ts",
            "nl -ba src/a.ts | sed -n 's/a/b/p'",
            "nl -ba src/a.ts | awk 'NR>3'",
            "cat -n src/a.ts src/b.ts",
        ] {
            assert_eq!(grep(command, Some((40, 96))), None, "{command}");
        }
        // Several files: grep names each line's file, so its output is not numbered.
        assert_eq!(grep("grep -n handler src/a.ts src/b.ts", None), None);
    }

    proptest::proptest! {
        /// Whatever spans were added, one holds a span exactly when one added holds it.
        #[test]
        fn spans_hold_what_one_added_span_holds(
            added in proptest::collection::vec((1u64..40, 0u64..40), 0..30),
            asked in proptest::collection::vec((1u64..40, 0u64..40), 1..20),
        ) {
            let mut spans = Spans::default();
            let added: Vec<(u64, u64)> = added.into_iter().map(|(f, l)| (f, f + l + 1)).collect();
            for &(f, e) in &added {
                spans.add(f, e);
            }
            for (f, l) in asked {
                let e = f + l + 1;
                let any = added.iter().any(|&(af, ae)| af <= f && ae >= e);
                proptest::prop_assert_eq!(spans.hold(f, e), any, "{:?} holds [{}, {})", added, f, e);
            }
        }
    }
}
