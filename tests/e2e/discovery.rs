//! Session discovery against a temporary agent directory (`docs/pi-format.md#finding-a-session`):
//! `--session` exact id and prefix (local, then every project directory), `-c/--continue`,
//! `--session-dir`, `PI_CODING_AGENT_SESSION_DIR`, `sessionDir` in pi's settings, pi's cwd filter
//! for custom directories, `status` with no session, `--all`.

use std::path::Path;

use crate::common::*;

/// The path `status --json` read.
fn resolved(a: &Agent, args: &[&str], env: &[(&str, &str)]) -> std::path::PathBuf {
    let mut v = vec!["status", "--json"];
    v.extend_from_slice(args);
    let r = a.run_in(&a.project, &v, env);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    path_of(&r.json())
}

fn thinking() -> std::path::PathBuf {
    fixture("thinking.jsonl")
}

#[test]
fn session_exact_id_and_unique_prefix() {
    let a = Agent::new("disc-id");
    let d = a.project_sessions();
    let s1 = a.place(&d, "a.jsonl", &thinking(), Some("aaaa1111"), None, 300);
    let s2 = a.place(&d, "b.jsonl", &thinking(), Some("bbbb2222"), None, 200);
    assert_eq!(resolved(&a, &["--session", "aaaa1111"], &[]), s1);
    assert_eq!(resolved(&a, &["--session", "bbb"], &[]), s2);
}

#[test]
fn session_ambiguous_prefix_is_a_usage_error() {
    let a = Agent::new("disc-amb");
    let d = a.project_sessions();
    a.place(&d, "a.jsonl", &thinking(), Some("abc-1"), None, 300);
    a.place(&d, "b.jsonl", &thinking(), Some("abc-2"), None, 200);
    let r = a.run(&["status", "--session", "abc"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("matches 2 sessions"), "{}", r.stderr);
    assert!(r.stderr.contains("give more of the id"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    // Unknown ids are usage errors too.
    let r = a.run(&["status", "--session", "zzz"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no session with id or id prefix `zzz`"));
}

#[test]
fn session_exact_id_beats_a_longer_id_with_that_prefix() {
    let a = Agent::new("disc-exact");
    let d = a.project_sessions();
    let exact = a.place(&d, "a.jsonl", &thinking(), Some("abc"), None, 300);
    a.place(&d, "b.jsonl", &thinking(), Some("abcdef"), None, 10);
    assert_eq!(resolved(&a, &["--session", "abc"], &[]), exact);
}

#[test]
fn session_searches_every_project_dir_after_the_local_one() {
    let a = Agent::new("disc-global");
    let local = a.project_sessions();
    let other = a.sessions_of(Path::new("/somewhere/else"));
    let far = a.place(
        &other,
        "far.jsonl",
        &thinking(),
        Some("cafe0001"),
        None,
        300,
    );
    // Found from the project even though it lives in another project's directory.
    assert_eq!(resolved(&a, &["--session", "cafe0001"], &[]), far);
    assert_eq!(resolved(&a, &["--session", "cafe"], &[]), far);
    // A local prefix match wins over a global one (no ambiguity across levels).
    let near = a.place(
        &local,
        "near.jsonl",
        &thinking(),
        Some("cafe0002"),
        None,
        300,
    );
    assert_eq!(resolved(&a, &["--session", "cafe"], &[]), near);
    // A global exact id still beats nothing local; the same prefix in two other dirs is ambiguous.
    std::fs::remove_file(&near).unwrap();
    let third = a.sessions_of(Path::new("/third"));
    a.place(&third, "x.jsonl", &thinking(), Some("cafe0003"), None, 300);
    let r = a.run(&["status", "--session", "cafe"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn session_with_a_slash_or_jsonl_is_a_path() {
    let a = Agent::new("disc-path");
    let p = a.place(
        &a.project.clone(),
        "mine.jsonl",
        &thinking(),
        None,
        None,
        300,
    );
    assert_eq!(
        resolved(&a, &["--session", "mine.jsonl"], &[]),
        Path::new("mine.jsonl")
    );
    assert_eq!(resolved(&a, &["--session", p.to_str().unwrap()], &[]), p);
}

#[test]
fn continue_picks_the_newest_valid_session_by_mtime() {
    let a = Agent::new("disc-c");
    let d = a.project_sessions();
    a.place(&d, "old.jsonl", &thinking(), Some("old"), None, 3000);
    let mid = a.place(&d, "mid.jsonl", &thinking(), Some("mid"), None, 2000);
    // Newer, but not sessions pi would open: no header, whitespace only, message before header.
    for (i, f) in [
        "24-header-without-id.jsonl",
        "42-whitespace-only.jsonl",
        "26-message-before-header.jsonl",
    ]
    .iter()
    .enumerate()
    {
        let dst = d.join(format!("broken-{i}.jsonl"));
        std::fs::copy(fixture_in("broken", f), &dst).unwrap();
        set_age(&dst, 100 + i as u64);
    }
    // Not a .jsonl: ignored whatever its mtime.
    std::fs::write(d.join("notes.txt"), "hello\n").unwrap();
    assert_eq!(resolved(&a, &["-c"], &[]), mid);
    assert_eq!(resolved(&a, &["--continue"], &[]), mid);
    // Appending bumps the mtime: the old session becomes the -c target.
    set_age(&d.join("old.jsonl"), 1);
    assert_eq!(resolved(&a, &["-c"], &[]), d.join("old.jsonl"));
}

#[test]
fn continue_without_sessions_is_a_usage_error() {
    let a = Agent::new("disc-c-none");
    let r = a.run(&["status", "-c"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no session for"), "{}", r.stderr);
    let r = a.run(&["shake", "-c"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    // --session and -c together: clap refuses.
    let r = a.run(&["status", "-c", "--session", "x"]);
    assert_eq!(r.code, 2);
}

#[test]
fn custom_session_dir_filters_by_header_cwd() {
    let a = Agent::new("disc-sd");
    let custom = a.root.join("custom");
    let mine = a.place(
        &custom,
        "mine.jsonl",
        &thinking(),
        Some("m1"),
        Some(&a.project),
        500,
    );
    // Newer, but another project's session: skipped under pi's filterCwd rule.
    a.place(
        &custom,
        "other.jsonl",
        &thinking(),
        Some("o1"),
        Some(Path::new("/elsewhere")),
        100,
    );
    let cd = custom.to_str().unwrap();
    assert_eq!(resolved(&a, &["-c", "--session-dir", cd], &[]), mine);
    // The same through the environment; a relative value is taken from the cwd.
    assert_eq!(
        resolved(&a, &["-c"], &[("PI_CODING_AGENT_SESSION_DIR", cd)]),
        mine
    );
    let rel = format!("../{}", custom.file_name().unwrap().to_str().unwrap());
    assert_eq!(
        resolved(&a, &["-c"], &[("PI_CODING_AGENT_SESSION_DIR", &rel)]),
        Path::new(&rel).join("mine.jsonl")
    );
    // The header cwd is compared after resolving (`/x/./y/` equals `/x/y`).
    let dotted = format!("{}/./", a.project.display());
    let newest = a.place(
        &custom,
        "dotted.jsonl",
        &thinking(),
        Some("d1"),
        Some(Path::new(&dotted)),
        50,
    );
    assert_eq!(resolved(&a, &["-c", "--session-dir", cd], &[]), newest);
    // --session looks locally with the filter, then in the custom dir without it.
    assert_eq!(
        resolved(&a, &["--session", "o1", "--session-dir", cd], &[]),
        custom.join("other.jsonl")
    );
    // No session of this cwd at all: -c is a usage error.
    let r = a.run_in(&a.root, &["status", "-c", "--session-dir", cd], &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn session_dir_equal_to_the_default_does_not_filter() {
    // pi filters only when the custom directory differs from the cwd's default one.
    let a = Agent::new("disc-sd-default");
    let d = a.project_sessions();
    let foreign = a.place(
        &d,
        "f.jsonl",
        &thinking(),
        Some("f1"),
        Some(Path::new("/elsewhere")),
        100,
    );
    let dd = d.to_str().unwrap();
    assert_eq!(resolved(&a, &["-c", "--session-dir", dd], &[]), foreign);
    let dd_slash = format!("{dd}/");
    assert_eq!(
        resolved(&a, &["-c"], &[("PI_CODING_AGENT_SESSION_DIR", &dd_slash)]),
        foreign
    );
}

#[test]
fn flag_beats_env_beats_settings_beats_default() {
    let a = Agent::new("disc-prec");
    let (fd, ed, sd, pd) = (
        a.root.join("f"),
        a.root.join("e"),
        a.root.join("s"),
        a.root.join("p"),
    );
    let cwd = Some(a.project.as_path());
    let in_flag = a.place(&fd, "x.jsonl", &thinking(), Some("flag"), cwd, 100);
    let in_env = a.place(&ed, "x.jsonl", &thinking(), Some("env"), cwd, 100);
    let in_settings = a.place(&sd, "x.jsonl", &thinking(), Some("set"), cwd, 100);
    let in_project = a.place(&pd, "x.jsonl", &thinking(), Some("proj"), cwd, 100);
    let in_default = a.place(
        &a.project_sessions(),
        "x.jsonl",
        &thinking(),
        Some("def"),
        None,
        100,
    );
    assert_eq!(resolved(&a, &["-c"], &[]), in_default);
    std::fs::write(
        a.agent.join("settings.json"),
        format!(r#"{{"sessionDir": "{}"}}"#, sd.display()),
    )
    .unwrap();
    assert_eq!(resolved(&a, &["-c"], &[]), in_settings);
    // The project's .pi/settings.json (of the cwd) overrides the agent directory's.
    std::fs::create_dir_all(a.project.join(".pi")).unwrap();
    std::fs::write(
        a.project.join(".pi/settings.json"),
        format!(r#"{{"sessionDir": "{}"}}"#, pd.display()),
    )
    .unwrap();
    assert_eq!(resolved(&a, &["-c"], &[]), in_project);
    let e = ed.to_str().unwrap();
    assert_eq!(
        resolved(&a, &["-c"], &[("PI_CODING_AGENT_SESSION_DIR", e)]),
        in_env
    );
    // An empty variable counts as unset (pi: `if (envDir)`).
    assert_eq!(
        resolved(&a, &["-c"], &[("PI_CODING_AGENT_SESSION_DIR", "")]),
        in_project
    );
    assert_eq!(
        resolved(
            &a,
            &["-c", "--session-dir", fd.to_str().unwrap()],
            &[("PI_CODING_AGENT_SESSION_DIR", e)]
        ),
        in_flag
    );
}

#[test]
fn agent_dir_tilde_is_expanded() {
    let a = Agent::new("disc-tilde");
    let home = a.root.clone();
    let d = home.join("ag").join("sessions").join(encoded(&a.project));
    let s = a.place(&d, "t.jsonl", &thinking(), Some("tt"), None, 100);
    let h = home.to_str().unwrap();
    assert_eq!(
        resolved(&a, &["-c"], &[("HOME", h), ("PI_CODING_AGENT_DIR", "~/ag")]),
        s
    );
    // An empty PI_CODING_AGENT_DIR means ~/.pi/agent.
    let d2 = home.join(".pi/agent/sessions").join(encoded(&a.project));
    let s2 = a.place(&d2, "u.jsonl", &thinking(), Some("uu"), None, 100);
    assert_eq!(
        resolved(&a, &["-c"], &[("HOME", h), ("PI_CODING_AGENT_DIR", "")]),
        s2
    );
}

#[test]
fn status_without_a_session_lists_this_directorys_sessions_newest_first() {
    let a = Agent::new("disc-list");
    let d = a.project_sessions();
    let small = a.place(&d, "small.jsonl", &thinking(), Some("s1"), None, 3000);
    let big = a.place(
        &d,
        "big.jsonl",
        &fixture("long-session.jsonl"),
        Some("b1"),
        None,
        2000,
    );
    let newest = a.place(
        &d,
        "new.jsonl",
        &fixture("image-read.jsonl"),
        Some("n1"),
        None,
        1000,
    );
    std::fs::copy(
        fixture_in("broken", "42-whitespace-only.jsonl"),
        d.join("junk.jsonl"),
    )
    .unwrap();
    // Fold something in one of them so the folded column shows it.
    let r = a.run(&[
        "shake",
        "--scope",
        "thinking",
        small.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    set_age(&small, 3000);

    let r = a.run(&["status"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{}", r.stdout);
    assert!(
        lines[0].contains("size")
            && lines[0].contains("context tokens")
            && lines[0].contains("folded tokens")
    );
    assert!(lines[1].ends_with(newest.to_str().unwrap()), "{}", r.stdout);
    assert!(lines[2].ends_with(big.to_str().unwrap()));
    assert!(lines[3].ends_with(small.to_str().unwrap()));
    assert!(
        lines[2].contains("369.5 KB") && lines[2].contains("~63,577"),
        "{}",
        lines[2]
    );
    assert!(lines[3].contains("~1,153"), "folded column: {}", lines[3]);
    assert!(lines[4].contains("3 session(s), 0 failed"));
    // The non-session file is skipped with a note, not a failure.
    assert!(r.stderr.contains("1 file(s)"), "{}", r.stderr);

    let v = a.run(&["status", "--json"]).json();
    let paths: Vec<_> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(path_of)
        .collect();
    assert_eq!(paths, vec![newest, big, small.clone()]);
    assert_eq!(v["sessions"][2]["wall"]["tokensReclaimed"], 1153);
    // -c is the first line of the listing.
    assert_eq!(resolved(&a, &["-c"], &[]), d.join("new.jsonl"));

    // A directory with no sessions: usage error naming where it looked.
    let r = a.run_in(&a.root, &["status"], &[]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("no sessions of this directory"),
        "{}",
        r.stderr
    );
}

#[test]
fn status_all_lists_every_jsonl_and_reports_the_broken_one() {
    let a = Agent::new("disc-all");
    let d = a.project_sessions();
    a.place(&d, "a.jsonl", &thinking(), Some("a"), None, 300);
    a.place(
        &d,
        "b.jsonl",
        &thinking(),
        Some("b"),
        Some(Path::new("/elsewhere")),
        200,
    );
    std::fs::copy(
        fixture_in("broken", "42-whitespace-only.jsonl"),
        d.join("junk.jsonl"),
    )
    .unwrap();
    let r = a.run(&["status", "--all"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 5, "{}", r.stdout);
    assert!(r.stdout.contains("FAILED (exit 3)"));
    assert!(r.stdout.contains("3 session(s), 1 failed"));
    assert!(r.stderr.contains("junk.jsonl"));
}
