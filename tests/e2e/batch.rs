//! Batch runs over a directory of fixtures: `status`, `dry-run` and `shake` over several paths
//! and `--all`: one line each plus a total, a failing file reported without stopping the rest,
//! the exit code reflecting the failure, `--json` one document with a `sessions` array.

use std::path::{Path, PathBuf};

use crate::common::temp_dir;
use crate::common::*;

/// A directory holding aged copies of every `sessions-fixtures/pi` session, plus `extra`.
fn fixture_dir(tag: &str, extra: &[(&str, &str)]) -> (PathBuf, Vec<PathBuf>) {
    let d = std::fs::canonicalize(temp_dir(tag)).unwrap();
    let mut v = Vec::new();
    for f in crate::common::fixtures("pi") {
        let dst = d.join(f.file_name().unwrap());
        std::fs::copy(&f, &dst).unwrap();
        set_age(&dst, 3600);
        v.push(dst);
    }
    for (dir, name) in extra {
        let dst = d.join(name);
        std::fs::copy(fixture_in(dir, name), &dst).unwrap();
        set_age(&dst, 3600);
        v.push(dst);
    }
    v.sort();
    (d, v)
}

fn strs(v: &[PathBuf]) -> Vec<&str> {
    v.iter().map(|p| p.to_str().unwrap()).collect()
}

fn run(cwd: &Path, args: &[&str]) -> crate::common::Run {
    run_bin(cwd, args, &[])
}

#[test]
fn status_over_several_paths_one_line_each_plus_a_total() {
    let (d, files) = fixture_dir("batch-status", &[]);
    let mut args = vec!["status"];
    args.extend(strs(&files));
    let r = run(&d, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), files.len() + 2, "{}", r.stdout);
    for (line, f) in lines[1..].iter().zip(&files) {
        assert!(line.ends_with(f.to_str().unwrap()), "order: {line}");
    }
    assert!(
        lines
            .last()
            .unwrap()
            .contains(&format!("{} session(s), 0 failed", files.len()))
    );
    // Columns line up: every row has its path at the same offset.
    let col = lines[0].find("session").unwrap();
    for l in &lines[1..lines.len() - 1] {
        assert_eq!(&l[col..col + 1], "/", "{l}");
    }

    args.insert(1, "--json");
    let v = run(&d, &args).json();
    let s = v["sessions"].as_array().unwrap();
    assert_eq!(s.len(), files.len());
    assert_eq!(v["schemaVersion"], 1);
    for (doc, f) in s.iter().zip(&files) {
        assert_eq!(path_of(doc), *f);
        assert!(doc["contextTokens"].as_u64().unwrap() > 0);
        assert_eq!(doc["checkFailed"], false);
    }
}

#[test]
fn status_batch_reports_a_broken_file_and_goes_on() {
    let (d, files) = fixture_dir(
        "batch-status-bad",
        &[("broken", "42-whitespace-only.jsonl")],
    );
    let mut args = vec!["status", "--json"];
    args.extend(strs(&files));
    let r = run(&d, &args);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v = r.json();
    let s = v["sessions"].as_array().unwrap();
    assert_eq!(s.len(), files.len());
    let bad: Vec<_> = s.iter().filter(|x| x.get("error").is_some()).collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0]["exitCode"], 3);
    assert!(path_of(bad[0]).ends_with("42-whitespace-only.jsonl"));
    assert!(r.stderr.contains("42-whitespace-only.jsonl"));
}

#[test]
fn status_batch_budget_check_fails_with_exit_6() {
    let (d, files) = fixture_dir("batch-budget", &[]);
    let mut args = vec!["status", "--max-tokens", "20000"];
    args.extend(strs(&files));
    let r = run(&d, &args);
    assert_eq!(r.code, 6, "{}", r.stderr);
    // compaction-rpc (~23k), long-session (~64k), tools-large-output (~33k) exceed 20,000.
    assert_eq!(r.stdout.matches("CHECK FAILED").count(), 3, "{}", r.stdout);
    assert!(r.stdout.contains("3 failed the check"));
    args.insert(1, "--json");
    let v = run(&d, &args).json();
    let failed: Vec<bool> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["checkFailed"].as_bool().unwrap())
        .collect();
    assert_eq!(failed.iter().filter(|x| **x).count(), 3);
}

#[test]
fn dry_run_over_several_paths_writes_nothing() {
    let (d, files) = fixture_dir("batch-dry", &[]);
    let before: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let mut args = vec!["dry-run", "--scope", "elide", "--profile", "aggressive"];
    args.extend(strs(&files));
    let r = run(&d, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), files.len() + 1, "{}", r.stdout);
    for (l, f) in lines.iter().zip(&files) {
        assert!(
            l.starts_with(&format!("{}: [dry-run] · ", f.display())),
            "{l}"
        );
    }
    assert!(
        lines
            .last()
            .unwrap()
            .contains("tokens would be reclaimed; 0 failed")
    );
    for (f, b) in files.iter().zip(&before) {
        assert_eq!(
            &std::fs::read(f).unwrap(),
            b,
            "dry-run wrote to {}",
            f.display()
        );
    }
    // Without --scope: one line per scope for each session.
    let mut args = vec!["dry-run"];
    args.extend(strs(&files[..2]));
    let r = run(&d, &args);
    assert_eq!(r.stdout.lines().count(), 2 * 3 + 1, "{}", r.stdout);
}

#[test]
fn shake_several_paths_then_status_shows_the_folds() {
    let (d, files) = fixture_dir("batch-shake", &[]);
    let mut args = vec!["shake", "--json", "--scope", "thinking"];
    args.extend(strs(&files));
    let r = run(&d, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    let s = v["sessions"].as_array().unwrap();
    assert_eq!(s.len(), files.len());
    let total: u64 = s
        .iter()
        .map(|x| x["runs"][0]["tokensReclaimed"].as_u64().unwrap())
        .sum();
    assert!(total > 0);
    let wrote: Vec<bool> = s
        .iter()
        .map(|x| x["writtenEntries"].as_u64().unwrap() > 0)
        .collect();
    assert!(
        wrote.iter().any(|w| *w) && wrote.iter().any(|w| !*w),
        "{wrote:?}"
    );
    for f in &files {
        set_age(f, 3600);
    }
    let mut sargs = vec!["status", "--json"];
    sargs.extend(strs(&files));
    let st = run(&d, &sargs).json();
    let folded: u64 = st["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["wall"]["tokensReclaimed"].as_u64().unwrap())
        .sum();
    assert_eq!(folded, total);
    // A second run has nothing new: every line says so and nothing is written.
    args.remove(1);
    let r = run(&d, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.matches("Nothing to shake").count(),
        files.len(),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .lines()
            .last()
            .unwrap()
            .contains("~0 tokens reclaimed; 0 failed")
    );
}

#[test]
fn shake_batch_failure_does_not_stop_the_rest_and_sets_the_exit_code() {
    let (d, files) = fixture_dir("batch-shake-bad", &[("broken", "42-whitespace-only.jsonl")]);
    let good = d.join("thinking.jsonl");
    let before = std::fs::read(&good).unwrap();
    let mut args = vec!["shake", "--scope", "thinking"];
    args.extend(strs(&files));
    let r = run(&d, &args);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("42-whitespace-only.jsonl: FAILED (exit 3)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(&format!("{} session(s): ~", files.len())));
    assert!(r.stdout.contains("; 1 failed"));
    assert!(r.stderr.contains("not a pi session"), "{}", r.stderr);
    // The good sessions were shaken anyway.
    let after = std::fs::read(&good).unwrap();
    assert!(after.len() > before.len() && after.starts_with(&before));
}

#[test]
fn shake_batch_refusal_is_exit_4() {
    // A legacy (version-less) session is refused (pi would rewrite it); the others are shaken.
    let (d, files) = fixture_dir("batch-unsafe", &[("legacy", "01-no-version.jsonl")]);
    let legacy = d.join("01-no-version.jsonl");
    let before = std::fs::read(&legacy).unwrap();
    let mut args = vec!["shake", "--json", "--scope", "thinking"];
    args.extend(strs(&files));
    let r = run(&d, &args);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert_eq!(std::fs::read(&legacy).unwrap(), before);
    let v = r.json();
    let bad: Vec<_> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x.get("error").is_some())
        .collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0]["exitCode"], 4);
}

#[test]
fn shake_all_in_a_session_dir() {
    let (d, files) = fixture_dir("batch-all", &[("broken", "42-whitespace-only.jsonl")]);
    let dd = d.to_str().unwrap();
    let r = run(
        &d,
        &["dry-run", "--all", "--scope", "all", "--session-dir", dd],
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), files.len() + 1, "{}", r.stdout);
    let r = run(
        &d,
        &[
            "shake",
            "--json",
            "--all",
            "--scope",
            "thinking",
            "--session-dir",
            dd,
        ],
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["sessions"].as_array().unwrap().len(), files.len());
    // --all lists newest first (mtime); the broken copy is the newest here.
    for f in &files {
        set_age(f, 3600);
    }
    set_age(&d.join("42-whitespace-only.jsonl"), 1);
    let v = run(&d, &["status", "--json", "--all", "--session-dir", dd]).json();
    assert!(path_of(&v["sessions"][0]).ends_with("42-whitespace-only.jsonl"));
    // An empty directory: usage error.
    let empty = temp_dir("batch-empty");
    let r = run(
        &d,
        &["shake", "--all", "--session-dir", empty.to_str().unwrap()],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn undo_several_paths() {
    let (d, _) = fixture_dir("batch-undo", &[]);
    let picks = [d.join("thinking.jsonl"), d.join("long-session.jsonl")];
    let mut args = vec!["shake", "--scope", "thinking"];
    args.extend(strs(&picks));
    assert_eq!(run(&d, &args).code, 0);
    for f in &picks {
        set_age(f, 3600);
    }
    let mut args = vec!["undo", "--json"];
    args.extend(strs(&picks));
    let r = run(&d, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    let s = v["sessions"].as_array().unwrap();
    assert_eq!(s.len(), 2);
    assert!(s.iter().all(|x| x["restored"].as_u64().unwrap() > 0));
}
