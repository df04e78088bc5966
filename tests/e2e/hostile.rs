//! Hostile input: every broken and legacy fixture, plus cases made at run time. For each: no
//! panic, no write when refusing (bytes identical), an error naming the file, and whatever is
//! written still loads in real pi.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::*;

fn cases(dir: &str) -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(
        root()
            .join("sessions-fixtures")
            .join(dir)
            .join("cases.json"),
    )
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn no_panic(r: &Run, what: &str) {
    assert!(
        !r.stderr.contains("panicked"),
        "{what}: panic: {}",
        r.stderr
    );
    assert!(
        matches!(r.code, 0 | 2 | 3 | 4 | 6),
        "{what}: unexpected exit {} ({})",
        r.code,
        r.stderr
    );
}

fn check_dir(dir: &str) -> usize {
    let cases = cases(dir);
    let mut written = Vec::new();
    let mut n = 0;
    for f in fixtures(dir) {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let case = &cases[&name];
        let st = pi_shake(&["status", "--json", f.to_str().unwrap()]);
        no_panic(&st, &name);
        if st.code != 0 {
            assert!(
                st.stderr.contains(&name),
                "{name}: error must name the file: {}",
                st.stderr
            );
        }
        let copy = copy_fixture(&f);
        let before = std::fs::read(&copy).unwrap();
        let r = pi_shake(&[
            "shake",
            "--scope",
            "all",
            "--profile",
            "aggressive",
            "--tail",
            "0",
            copy.to_str().unwrap(),
        ]);
        no_panic(&r, &name);
        let after = std::fs::read(&copy).unwrap();
        match case["shakeWrite"].as_str() {
            Some("refuse") => {
                assert_ne!(
                    r.code, 0,
                    "{name}: must refuse ({}), stdout {}",
                    case["shakeReason"], r.stdout
                );
                assert_eq!(before, after, "{name}: refused but the file changed");
                assert!(
                    r.stderr.contains(&name),
                    "{name}: refusal must name the file: {}",
                    r.stderr
                );
            }
            Some("allow") => {
                assert_eq!(r.code, 0, "{name}: should be allowed: {}", r.stderr);
                assert!(
                    after.starts_with(&before[..before.len()]),
                    "{name}: not append-only"
                );
                if after != before {
                    written.push(copy.clone());
                }
            }
            other => panic!("{name}: no shakeWrite in cases.json ({other:?})"),
        }
        n += 1;
    }
    assert_pi_loads(&written);
    n
}

#[test]
fn broken_fixtures_never_panic_and_refuse_as_documented() {
    assert!(check_dir("broken") >= 30);
}

#[test]
fn legacy_fixtures_are_read_but_never_written() {
    assert!(check_dir("legacy") >= 5);
}

fn expect_bad(path: &Path, code: i32) {
    for cmd in ["status", "shake", "undo"] {
        let r = pi_shake(&[cmd, path.to_str().unwrap()]);
        no_panic(&r, cmd);
        assert_eq!(r.code, code, "{cmd} {}: {}", path.display(), r.stderr);
        assert!(
            r.stderr.contains(&path.display().to_string()),
            "{cmd}: must name the file: {}",
            r.stderr
        );
    }
}

#[test]
fn directories_empty_files_and_fifos_are_refused() {
    let d = temp_dir("hostile");
    let dir = d.join("dir.jsonl");
    std::fs::create_dir(&dir).unwrap();
    expect_bad(&dir, 3);
    let empty = d.join("empty.jsonl");
    std::fs::write(&empty, b"").unwrap();
    expect_bad(&empty, 3);
    assert_eq!(
        std::fs::read(&empty).unwrap(),
        b"",
        "never write a header into an empty file"
    );
    let missing = d.join("missing.jsonl");
    expect_bad(&missing, 3);
    let fifo = d.join("fifo.jsonl");
    if std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        expect_bad(&fifo, 3);
    }
}

#[test]
fn unreadable_file_is_an_error_not_a_panic() {
    use std::os::unix::fs::PermissionsExt;
    let f = copy_fixture(&root().join("sessions-fixtures/pi/thinking.jsonl"));
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::File::open(&f).is_ok() {
        eprintln!(
            "running as root: an unreadable file cannot be made; checking a read-only one instead"
        );
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o444)).unwrap();
        let before = std::fs::read(&f).unwrap();
        let r = pi_shake(&["shake", "--scope", "all", f.to_str().unwrap()]);
        no_panic(&r, "read-only");
        // root may still write a 0444 file; either way it must be a clean outcome.
        let after = std::fs::read(&f).unwrap();
        assert!(after.starts_with(&before));
        return;
    }
    expect_bad(&f, 3);
}

#[test]
fn fifty_megabyte_single_line_is_handled() {
    let d = temp_dir("big-line");
    let f = d.join("big.jsonl");
    let mut s = String::from(
        "{\"type\":\"session\",\"version\":3,\"id\":\"big\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/nowhere\"}\n",
    );
    s.push_str("{\"type\":\"message\",\"id\":\"aaaaaaaa\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"");
    s.push_str(&"x".repeat(50 * 1024 * 1024));
    s.push_str("\",\"timestamp\":1}}\n");
    std::fs::write(&f, &s).unwrap();
    let r = pi_shake(&["status", "--json", f.to_str().unwrap()]);
    no_panic(&r, "50 MB line");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["projection"][0]["tokens"], json!(13_107_200));
}

#[test]
fn torn_tail_written_mid_append_is_refused_and_loadable() {
    // A crash mid-write leaves a torn last line: pi skips it; pi-shake refuses to append after it.
    let f = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    let mut bytes = std::fs::read(&f).unwrap();
    bytes.extend_from_slice(b"{\"type\":\"context_edit\",\"id\":\"deadbeef\",\"parentId\":");
    std::fs::write(&f, &bytes).unwrap();
    age(&f);
    let r = pi_shake(&["shake", f.to_str().unwrap()]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(r.stderr.contains("cut off"), "{}", r.stderr);
    assert_eq!(std::fs::read(&f).unwrap(), bytes);
    if need_oracle() {
        assert_eq!(oracle1(&f, &[])["ok"], json!(true));
    }
}

/// The lines of a fixture session.
fn session_lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// `lines` with line `i` (0-based) parsed, changed by `f` and written back.
fn with_line(mut lines: Vec<String>, i: usize, f: impl FnOnce(&mut Value)) -> Vec<String> {
    let mut e: Value = serde_json::from_str(&lines[i]).unwrap();
    f(&mut e);
    lines[i] = e.to_string();
    lines
}

/// Write `lines` as session `name` in `dir`, aged so the live-pi check stays quiet.
fn write_session(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    age(&p);
    p
}

/// `pi-shake ARGS FILE` refuses (exit 4) with `expect` in its message and leaves `f` as it was.
fn assert_refused(f: &Path, args: &[&str], expect: &str) -> Run {
    let before = std::fs::read(f).unwrap();
    let r = pi_shake(&[args, &[f.to_str().unwrap()]].concat());
    assert_eq!(r.code, 4, "{args:?}: {}", r.stderr);
    assert!(r.stderr.contains(expect), "{args:?}: {}", r.stderr);
    assert_eq!(
        std::fs::read(f).unwrap(),
        before,
        "{args:?}: refused but changed"
    );
    r
}

/// A real pi-mono prefix with one assistant entry's `timestamp` made an object (a shape pi-shake
/// does not model, so writes are refused) and a clean copy of the same prefix.
fn odd_and_clean_prefix() -> (PathBuf, PathBuf) {
    let mut lines = session_lines(&root().join("sessions-fixtures/pi-mono/compact.jsonl"));
    lines.truncate(200);
    let d = temp_dir("odd-shape");
    let clean = write_session(&d, "clean.jsonl", &lines);
    let lines = with_line(lines, 20, |e| {
        assert_eq!(e["message"]["role"], "assistant");
        e["timestamp"] = json!({"a": null});
    });
    (write_session(&d, "odd.jsonl", &lines), clean)
}

#[test]
fn a_dry_run_says_when_the_real_run_would_refuse_to_write() {
    let (odd, clean) = odd_and_clean_prefix();
    let (o, c) = (odd.to_str().unwrap(), clean.to_str().unwrap());
    let before = std::fs::read(&odd).unwrap();
    let compact = [
        "compact",
        "--keep-recent-tokens",
        "2000",
        "--target-ratio",
        "0.3",
    ];
    let shake = ["--tail", "0", "--profile", "aggressive"];
    // The real runs refuse (exit 4), naming the file and the line, and leave it untouched.
    let at = format!("{o}:21: refusing to write");
    let real_compact = assert_refused(&odd, &compact, &at);
    assert_refused(&odd, &[&["shake"][..], &shake].concat(), &at);
    let refusal = real_compact
        .stderr
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("error: ");
    // It names the field and what is wrong with it.
    assert!(
        refusal.contains("(`timestamp`: invalid type: map, expected a string)"),
        "{refusal}"
    );
    // Their dry runs plan as usual, exit 0, and say so in words and in --json.
    let dry_compact = pi_shake(&[&compact[..], &["--dry-run", o]].concat());
    let dry_shake = pi_shake(&[&["dry-run"][..], &shake, &[o]].concat());
    for r in [&dry_compact, &dry_shake] {
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stdout.contains(&format!(
                "warning: a real run would refuse to write (exit 4): {refusal}"
            )),
            "{}",
            r.stdout
        );
    }
    assert!(
        dry_compact.stdout.contains("Would compact"),
        "{}",
        dry_compact.stdout
    );
    let json_compact = pi_shake(&[&compact[..], &["--dry-run", "--json", o]].concat()).json();
    let json_shake = pi_shake(&[&["dry-run", "--json"][..], &shake, &[o]].concat()).json();
    for doc in [&json_compact, &json_shake] {
        assert_eq!(doc["wouldRefuse"], json!(refusal), "{doc}");
    }
    assert!(
        json_compact["pairs"]
            .as_array()
            .is_some_and(|p| !p.is_empty())
    );
    assert_eq!(std::fs::read(&odd).unwrap(), before);
    // A session the real run writes has no such key or line.
    let fine = pi_shake(&[&compact[..], &["--dry-run", "--json", c]].concat()).json();
    assert!(fine.get("wouldRefuse").is_none(), "{fine}");
    let fine = pi_shake(&[&["dry-run", "--json"][..], &shake, &[c]].concat()).json();
    assert!(fine.get("wouldRefuse").is_none(), "{fine}");
    let fine = pi_shake(&[&compact[..], &["--dry-run", c]].concat());
    assert!(!fine.stdout.contains("would refuse"), "{}", fine.stdout);
}

/// Run `python3 ARGS`; its stdout, once it has exited 0 (else the test fails with its output).
fn python_script(args: &[&str]) -> String {
    let out = std::process::Command::new("python3")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("python3 cannot be run ({e}): install Python 3"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// `scripts/shape_fuzz.py` on 40 sessions (a fixed seed): real fixture sessions with entries of
/// odd but valid shapes through `compact --dry-run` (five budgets), `compact --emit-json`,
/// `status` and `dry-run`, and, with the oracle, every compaction planned at 30% written on a
/// copy and loaded by real pi with the summary first (or refused with the copy untouched).
#[test]
fn odd_shapes_never_panic_and_what_is_written_loads_in_real_pi() {
    let write = need_oracle();
    let dir = temp_dir("shape-fuzz");
    let script = root().join("scripts/shape_fuzz.py");
    let mut args = vec![
        script.to_str().unwrap(),
        env!("CARGO_BIN_EXE_pi-shake"),
        "40",
        "5",
        dir.to_str().unwrap(),
    ];
    if write {
        args.push("--write");
    }
    let stdout = python_script(&args);
    // The tally line: "40 sessions, N runs (…; P compactions planned; W written and loaded by
    // real pi), 0 failing sessions".
    let tally = stdout.lines().last().unwrap_or_default();
    let count = |after: &str| -> u64 {
        let head = tally.split(after).next().unwrap_or_default();
        head.rsplit(' ')
            .next()
            .unwrap_or_default()
            .parse()
            .unwrap_or(0)
    };
    assert!(tally.ends_with(", 0 failing sessions"), "{stdout}");
    assert!(count(" compactions planned") >= 40, "{stdout}");
    if write {
        assert!(count(" written and loaded by real pi") >= 5, "{stdout}");
    }
}

/// A copy of the rig's `compaction-rpc` session with one message entry's `message` made null:
/// on the branch before its compaction's kept range (`on`), or in a new entry on a side branch
/// (`off`).
fn null_message_copies() -> (PathBuf, PathBuf) {
    let lines = session_lines(&fixture("compaction-rpc.jsonl"));
    let d = temp_dir("null-message");
    let parent: Value = serde_json::from_str(&lines[5]).unwrap();
    let side = json!({"type": "message", "id": "side0001", "parentId": parent["id"],
        "timestamp": "2026-11-30T06:28:09.876Z", "message": null});
    let mut off = lines.clone();
    off.insert(10, side.to_string());
    let on = with_line(lines, 27, |e| {
        assert_eq!(e["type"], "message");
        e["message"] = Value::Null;
    });
    (
        write_session(&d, "on.jsonl", &on),
        write_session(&d, "off.jsonl", &off),
    )
}

#[test]
fn a_null_message_on_the_branch_is_refused_as_pi_throws_on_it_and_one_off_it_is_not() {
    let (on, off) = null_message_copies();
    let compact = [
        "compact",
        "--keep-recent-tokens",
        "500",
        "--target-ratio",
        "0.1",
    ];
    let at = format!(
        "{}:28: refusing to write: a message entry on the branch without a `message` object",
        on.display()
    );
    for args in [&compact[..], &["shake", "--tail", "0"][..]] {
        assert_refused(&on, args, &at);
    }
    // Off the branch it is written, and real pi loads the result with the summary first.
    let r = pi_shake(&[&compact[..], &["--json", off.to_str().unwrap()]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["compacted"], json!(true), "{}", r.stdout);
    if !need_oracle() {
        return;
    }
    // Real pi: it throws on the first file, and loads the second.
    let on_pi = oracle1(&on, &[]);
    assert_eq!(on_pi["ok"], json!(false), "{on_pi}");
    assert!(
        on_pi["error"]
            .as_str()
            .unwrap_or("")
            .contains("reading 'role'"),
        "{on_pi}"
    );
    let off_pi = oracle1(&off, &["--messages"]);
    assert_eq!(off_pi["ok"], json!(true), "{off_pi}");
    let last: Value = serde_json::from_str(
        std::fs::read_to_string(&off)
            .unwrap()
            .lines()
            .last()
            .unwrap(),
    )
    .unwrap();
    let first = off_pi["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] != "system")
        .unwrap();
    assert_eq!(first["role"], "compactionSummary");
    assert_eq!(first["summary"], last["summary"]);
}

#[test]
fn a_custom_message_without_content_is_refused_as_pis_estimator_throws_on_it() {
    let lines = with_line(
        session_lines(&fixture("tools-large-output.jsonl")),
        5,
        |e| {
            assert_eq!(e["message"]["role"], "bashExecution");
            e["message"]["role"] = json!("custom");
        },
    );
    let f = write_session(&temp_dir("custom-no-content"), "s.jsonl", &lines);
    let at =
        ":6: refusing to write: entry fa44d747 has a field pi's token estimator reads but cannot";
    for args in [
        &["shake", "--tail", "0", "--scope", "all"][..],
        &["compact", "--keep-recent-tokens", "200"][..],
    ] {
        assert_refused(&f, args, at);
    }
    if need_oracle() {
        let pi = oracle1(&f, &[]);
        assert_eq!(pi["ok"], json!(false), "{pi}");
        assert_eq!(pi["error"], json!("content is not iterable"), "{pi}");
    }
}

/// `scripts/op_fuzz.py` with `args` after the binary; asserts that no sequence failed and that
/// every kind of step ran.
fn op_fuzz(args: &[&str]) {
    let dir = temp_dir("op-fuzz");
    let script = root().join("scripts/op_fuzz.py");
    let mut all = vec![script.to_str().unwrap(), env!("CARGO_BIN_EXE_pi-shake")];
    all.extend_from_slice(&args[..2]);
    all.push(dir.to_str().unwrap());
    all.extend_from_slice(&args[2..]);
    let stdout = python_script(&all);
    // The tally line: "8 sequences × 10 steps (compact 3, compact-nothing 9, pi 30, shake 25,
    // undo 13); 0 failed".
    let tally = stdout.lines().last().unwrap_or_default();
    assert!(tally.ends_with("; 0 failed"), "{stdout}");
    let count = |kind: &str| -> u64 {
        tally
            .split(['(', ',', ')'])
            .map(str::trim)
            .find_map(|part| part.strip_prefix(kind)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or(0)
    };
    for kind in ["shake", "undo", "compact", "pi"] {
        assert!(count(kind) > 0, "no `{kind}` step ran: {stdout}");
    }
}

/// `scripts/op_fuzz.py` on 8 sequences of 10 steps (a fixed seed): pi-shake's writing commands
/// (shake, undo, compact, their dry runs) and real pi appending through its own `SessionManager`
/// (turns, `/tree` jumps, retries that hide a reply, extension entries, pi's own compactions)
/// take turns on one file; after every step real pi loads it, `status` projects exactly as pi
/// does, an undo gives back what pi saw before any fold, and a compaction cuts where pi cuts.
#[test]
fn pi_and_pi_shake_taking_turns_on_one_file_stay_in_agreement() {
    if !need_oracle() {
        return;
    }
    op_fuzz(&["8", "11", "--steps", "10"]);
}

/// The same from files older pi releases wrote (`sessions-fixtures/pi-releases/`), each opened
/// (migrated, for 0.30.2's) by pi 1.6 first, as a user's pi does when they resume it.
#[test]
fn taking_turns_on_files_older_pi_releases_wrote() {
    if !need_oracle() {
        return;
    }
    let bases = [
        "0.30.2/tools-large-output.jsonl",
        "0.50.7/compaction-rpc.jsonl",
        "0.70.6/long-session.jsonl",
        "1.0.3/branches.jsonl",
        "1.5.2/tool-error-then-success.jsonl",
    ]
    .map(|f| root().join("sessions-fixtures/pi-releases").join(f));
    let mut args = vec!["5", "12", "--steps", "10", "--bases"];
    args.extend(bases.iter().map(|b| b.to_str().unwrap()));
    op_fuzz(&args);
}
