//! Faults: failing writes (after N bytes, ENOSPC, EIO), processes killed mid-run, concurrent
//! runs. In every case the previous bytes are an exact prefix of the file and real pi loads it.

use std::io::Write;
use std::path::{Path, PathBuf};

use pi_shake::load::Loaded;
use pi_shake::plan::fold::{self, FoldParams};
use pi_shake::wall::Scope;
use pi_shake::writer::{self, Batch, WriteOptions};
use serde_json::json;

use crate::common::*;

/// Plan an aggressive elide shake of `f` into a batch.
fn planned(l: &Loaded) -> Batch {
    let params = FoldParams {
        scopes: vec![Scope::Elide],
        tail: 0,
        block_min: 50,
    };
    let mut fetch = l.fetcher();
    let plan = fold::plan(
        &l.session,
        &l.tree,
        &l.projection,
        &l.wall,
        &params,
        &mut fetch,
    )
    .unwrap();
    assert!(!plan.folds.is_empty());
    let mut b = Batch::new(&l.session, &l.tree).unwrap();
    for f in &plan.folds {
        b.context_edit(&f.target_id, json!({"content": f.content}));
    }
    b
}

fn fixture() -> PathBuf {
    copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"))
}

fn inject(
    f: &Path,
    fault: &mut dyn FnMut(&mut std::fs::File, &[u8]) -> std::io::Result<()>,
) -> (Vec<u8>, anyhow::Result<writer::Written>) {
    let before = std::fs::read(f).unwrap();
    let l = Loaded::open(f).unwrap();
    let b = planned(&l);
    let r = writer::commit_with(
        &l.session,
        &l.tree,
        &l.projection,
        &b,
        &WriteOptions { force: true },
        fault,
    );
    (before, r)
}

#[test]
fn failing_writes_leave_a_loadable_prefix() {
    let mut files = Vec::new();
    type Fault = Box<dyn FnMut(&mut std::fs::File, &[u8]) -> std::io::Result<()>>;
    let faults: Vec<(&str, Fault)> = vec![
        (
            "enospc-before-any-byte",
            Box::new(|_f, _b| Err(std::io::Error::from_raw_os_error(28))),
        ),
        (
            "eio-before-any-byte",
            Box::new(|_f, _b| Err(std::io::Error::from_raw_os_error(5))),
        ),
        (
            "error-after-100-bytes",
            Box::new(|f, b| {
                f.write_all(&b[..100.min(b.len())])?;
                Err(std::io::Error::from_raw_os_error(28))
            }),
        ),
        (
            "error-after-all-but-newline",
            Box::new(|f, b| {
                f.write_all(&b[..b.len() - 1])?;
                Err(std::io::Error::from_raw_os_error(5))
            }),
        ),
    ];
    for (name, mut fault) in faults {
        let f = fixture();
        let (before, r) = inject(&f, &mut *fault);
        let err = r.expect_err(name);
        assert_eq!(
            pi_shake::error::exit_code_of(&err),
            pi_shake::error::ExitCode::Unsafe,
            "{name}"
        );
        let after = std::fs::read(&f).unwrap();
        assert!(
            after.starts_with(&before),
            "{name}: previous bytes must be a prefix"
        );
        if after.len() > before.len() {
            age(&f);
            let torn = serde_json::from_slice::<serde_json::Value>(&after[before.len()..]).is_err()
                && !after.ends_with(b"\n");
            let last_line_complete = {
                let tail = &after[after.iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1)..];
                serde_json::from_slice::<serde_json::Value>(tail).is_ok()
            };
            let r2 = pi_shake(&["shake", f.to_str().unwrap()]);
            if last_line_complete {
                // A complete last line without its newline: completed, then appended after.
                assert_eq!(r2.code, 0, "{name}: {}", r2.stderr);
                assert!(std::fs::read(&f).unwrap().starts_with(&after));
            } else {
                // A torn line: pi-shake refuses until it is completed.
                let _ = torn;
                assert_eq!(r2.code, 4, "{name}: {}", r2.stderr);
                assert_eq!(std::fs::read(&f).unwrap(), after);
            }
        }
        files.push(f);
    }
    assert_pi_loads(&files);
}

#[test]
fn changed_since_read_is_refused() {
    let f = fixture();
    let l = Loaded::open(&f).unwrap();
    let b = planned(&l);
    // Someone (pi) appends after we read.
    let mut h = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
    h.write_all(b"{\"type\":\"label\",\"id\":\"0badf00d\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"targetId\":\"x\",\"label\":\"\"}\n").unwrap();
    drop(h);
    let before = std::fs::read(&f).unwrap();
    let err = writer::commit(
        &l.session,
        &l.tree,
        &l.projection,
        &b,
        &WriteOptions { force: true },
    )
    .unwrap_err();
    assert!(
        format!("{err:#}").contains("changed since it was read"),
        "{err:#}"
    );
    assert_eq!(std::fs::read(&f).unwrap(), before);
    // Same size, different bytes.
    let f = fixture();
    let l = Loaded::open(&f).unwrap();
    let b = planned(&l);
    a_same_size_change_is_refused(&f, &l, &b);
}

#[test]
fn a_fresh_modification_is_not_refused_when_no_pi_runs() {
    // Modified just now (as by a `pi -p …` that has exited): no pi process, so no refusal.
    let f = fixture();
    set_age(&f, 0);
    let before = std::fs::read(&f).unwrap();
    let r = pi_shake(&["shake", "--scope", "all", f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let after = std::fs::read(&f).unwrap();
    assert!(after.len() > before.len() && after.starts_with(&before));
    assert_pi_loads(&[f]);
}

#[test]
fn concurrent_runs_serialise_on_the_lock() {
    let f = fixture();
    let before = std::fs::read(&f).unwrap();
    let fs = f.to_str().unwrap().to_string();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let fs = fs.clone();
            std::thread::spawn(move || {
                pi_shake(&["shake", "--scope", "all", "--profile", "aggressive", &fs])
            })
        })
        .collect();
    let runs: Vec<Run> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let ok = runs.iter().filter(|r| r.code == 0).count();
    assert!(
        ok >= 1,
        "{:?}",
        runs.iter().map(|r| &r.stderr).collect::<Vec<_>>()
    );
    for r in &runs {
        assert!(r.code == 0 || r.code == 4, "{}", r.stderr);
    }
    let after = std::fs::read(&f).unwrap();
    assert!(after.starts_with(&before));
    // Exactly one run folded; the others refused or found nothing new.
    let l = Loaded::open(&f).unwrap();
    assert_eq!(l.wall.logs.len(), 1, "one shake log expected");
    assert!(
        l.problems()
            .iter()
            .all(|p| p.severity < pi_shake::session::Severity::Unsafe)
    );
    if need_oracle() {
        assert_eq!(oracle1(&f, &[])["ok"], json!(true));
    }
}

#[test]
fn killed_mid_run_leaves_a_loadable_prefix() {
    let mut files = Vec::new();
    for i in 0..12u64 {
        let f = fixture();
        let before = std::fs::read(&f).unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-shake"))
            .args([
                "shake",
                "--scope",
                "all",
                "--profile",
                "aggressive",
                f.to_str().unwrap(),
            ])
            .env("PI_CODING_AGENT_DIR", root().join("target/test-agent-dir"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(i * 3));
        stop(&mut child);
        let after = std::fs::read(&f).unwrap();
        assert!(
            after.starts_with(&before),
            "kill #{i}: previous bytes must be a prefix"
        );
        files.push(f);
    }
    assert_pi_loads(&files);
}

#[test]
fn a_running_pi_in_the_sessions_directory_is_detected() {
    // A process whose argv[0] is `pi`, working in the session's cwd, as the pi CLI would be.
    let work = temp_dir("live-pi");
    let f = live_session(&work, &work, None);
    let mut pi = fake_pi(&work, "");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let before = std::fs::read(&f).unwrap();
    let r = pi_shake(&["shake", f.to_str().unwrap()]);
    let forced = pi_shake(&["shake", "--force", f.to_str().unwrap()]);
    stop(&mut pi);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(r.stderr.contains("a pi process"), "{}", r.stderr);
    // The way that works while pi runs: the extension inside that pi.
    assert!(
        r.stderr
            .contains("run it through the pi-shake extension (/shake, /shake undo, /compact"),
        "{}",
        r.stderr
    );
    assert_eq!(forced.code, 0, "--force overrides: {}", forced.stderr);
    assert!(std::fs::read(&f).unwrap().starts_with(&before));
}

#[test]
fn a_pi_naming_the_session_from_another_directory_is_detected() {
    // `pi --session s.jsonl` started in the session file's directory, while the header's cwd is
    // elsewhere: the relative argument names this file. (A pi that keeps its command line: pi
    // 0.30, a wrapper. pi since 0.50 overwrites it with its title, see the real-pi test.)
    let work = temp_dir("live-pi-arg");
    let elsewhere = temp_dir("live-pi-cwd");
    let f = live_session(&work, &elsewhere, None);
    let mut pi = fake_pi(&work, "--session s.jsonl");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let before = std::fs::read(&f).unwrap();
    let r = pi_shake(&["shake", f.to_str().unwrap()]);
    let other = copy_fixture(&root().join("sessions-fixtures/pi/long-session.jsonl"));
    let unrelated = pi_shake(&["shake", other.to_str().unwrap()]);
    stop(&mut pi);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(r.stderr.contains("names this session"), "{}", r.stderr);
    assert_eq!(std::fs::read(&f).unwrap(), before);
    assert_eq!(
        unrelated.code, 0,
        "another session is not blocked: {}",
        unrelated.stderr
    );
}

#[test]
fn a_pi_naming_the_session_by_an_id_prefix_is_detected() {
    // `pi --session 1a2b3c4d` (pi's own id-prefix lookup) started anywhere, by a pi that keeps
    // its command line: the argument is a prefix of the header's id. A prefix of another
    // session's id blocks nothing here.
    let work = temp_dir("live-pi-id");
    let elsewhere = temp_dir("live-pi-id-cwd");
    // An id of its own: the other tests' sessions share the fixture's.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let id = format!(
        "{:08x}-1d1d-4e57-8000-000000000000",
        nanos as u32 | 0x1000_0000
    );
    let f = live_session(&work, &work, Some(&id));
    let fake = |arg: &str| fake_pi(&elsewhere, &format!("--session {arg}"));
    let before = std::fs::read(&f).unwrap();
    let mut pi = fake(&id[..8]);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let r = pi_shake(&["shake", "--scope", "all", f.to_str().unwrap()]);
    stop(&mut pi);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(r.stderr.contains("names this session"), "{}", r.stderr);
    assert_eq!(std::fs::read(&f).unwrap(), before);
    // A prefix of another session's id: this one is written.
    let mut other = fake("0000abcd");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let free = pi_shake(&["shake", "--scope", "all", f.to_str().unwrap()]);
    stop(&mut other);
    assert_eq!(free.code, 0, "{}", free.stderr);
    let after = std::fs::read(&f).unwrap();
    assert!(after.len() > before.len() && after.starts_with(&before));
}

#[test]
fn the_real_pi_cli_running_on_the_session_is_detected() {
    // pi 1.6 itself, idle in RPC mode on the session, in the session's directory. From 0.50 on
    // pi replaces its command line with its title (`pi`): its working directory is what finds
    // it (a pi on a file of another directory is found only through the extension's record,
    // the next test).
    if !need_pi_cli("the live-pi check against the real pi CLI") {
        return;
    }
    let work = temp_dir("live-real-pi");
    let f = live_session(&work, &work, None);
    let agent = temp_dir("live-real-pi-agent");
    let mut pi = real_pi(&f, &work, &agent, false);
    // Up once its title is set.
    let cmdline = std::path::PathBuf::from(format!("/proc/{}/cmdline", pi.id()));
    let titled = wait_for(|| std::fs::read(&cmdline).is_ok_and(|c| c.starts_with(b"pi\0")));
    age(&f);
    let before = std::fs::read(&f).unwrap();
    let r = pi_shake(&["shake", "--scope", "all", f.to_str().unwrap()]);
    let args: Vec<Vec<u8>> = std::fs::read(&cmdline)
        .unwrap_or_default()
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    stop(&mut pi);
    assert!(titled, "pi 1.6 sets its process title");
    assert_eq!(
        args,
        [b"pi".to_vec()],
        "pi's arguments are gone from its command line"
    );
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(r.stderr.contains("a pi process"), "{}", r.stderr);
    assert!(r.stderr.contains("is running in"), "{}", r.stderr);
    assert_eq!(std::fs::read(&f).unwrap(), before);
}

#[test]
fn a_real_pi_with_the_extension_on_a_session_of_another_directory_is_detected() {
    // pi 1.6 started with `--session` on a file whose directory is not its own: nothing on its
    // command line or in its directory shows it, but the pi-shake extension inside it records
    // the session as open. Once that pi is killed, its stale record blocks nothing.
    if !need_pi_cli("the live-pi check against the real pi CLI with the extension") {
        return;
    }
    let work = temp_dir("live-ext-pi");
    let elsewhere = temp_dir("live-ext-pi-cwd");
    let agent = temp_dir("live-ext-pi-agent");
    let f = live_session(&work, &work, None);
    let mut pi = real_pi(&f, &elsewhere, &agent, true);
    let record = agent.join("pi-shake/open").join(pi.id().to_string());
    let mut recorded = None;
    wait_for(|| {
        recorded = std::fs::read_to_string(&record).ok();
        recorded.is_some()
    });
    age(&f);
    let before = std::fs::read(&f).unwrap();
    let agent_env = [("PI_CODING_AGENT_DIR", agent.to_str().unwrap())];
    let r = pi_shake_env(
        &["shake", "--scope", "all", f.to_str().unwrap()],
        &agent_env,
    );
    stop(&mut pi);
    let recorded = recorded.expect("the extension records the open session");
    assert_eq!(
        std::fs::canonicalize(recorded.trim_end()).unwrap(),
        std::fs::canonicalize(&f).unwrap()
    );
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(r.stderr.contains("has this session open"), "{}", r.stderr);
    assert_eq!(std::fs::read(&f).unwrap(), before);
    // Killed: no `session_shutdown`, so the record stays, and names no running pi.
    assert!(record.exists());
    let after_kill = pi_shake_env(
        &["shake", "--scope", "all", f.to_str().unwrap()],
        &agent_env,
    );
    assert_eq!(after_kill.code, 0, "{}", after_kill.stderr);
    let after = std::fs::read(&f).unwrap();
    assert!(after.len() > before.len() && after.starts_with(&before));
    // The next pi with the extension clears the dead pi's record as it writes its own.
    let mut next = real_pi(&f, &elsewhere, &agent, true);
    let own = agent.join("pi-shake/open").join(next.id().to_string());
    let written = wait_for(|| own.exists());
    stop(&mut next);
    assert!(written, "the second pi records its session");
    assert!(!record.exists(), "the killed pi's record is cleared");
}

/// The real pi 1.6 CLI idle in RPC mode on `session`, working in `cwd` with agent directory
/// `agent` (and the pi-shake extension loaded, when `extension`).
fn real_pi(session: &Path, cwd: &Path, agent: &Path, extension: bool) -> std::process::Child {
    let mut cmd = std::process::Command::new(node22());
    cmd.arg(gen_dir().join("node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"))
        .args(["--mode", "rpc"]);
    if extension {
        cmd.arg("-e")
            .arg(root().join("integrations/pi-shake/index.ts"));
    }
    cmd.arg("--session")
        .arg(session)
        .current_dir(cwd)
        .env("PI_CODING_AGENT_DIR", agent)
        .env("PATH", "/nonexistent-pi-shake-test-path")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn the pi CLI")
}

/// Kill `child` and reap it (it may have exited already).
fn stop(child: &mut std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Whether `done` holds within 15 s (polled every 100 ms).
fn wait_for(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..150 {
        if done() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    false
}

/// `long-session` as `dir/s.jsonl`, its header's `cwd` (and `id`, when given) set, aged past
/// any recent-write rule.
fn live_session(dir: &Path, cwd: &Path, id: Option<&str>) -> PathBuf {
    let src =
        std::fs::read_to_string(root().join("sessions-fixtures/pi/long-session.jsonl")).unwrap();
    let mut lines = src.lines();
    let mut header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    header["cwd"] = json!(cwd.to_str().unwrap());
    if let Some(id) = id {
        header["id"] = json!(id);
    }
    let f = dir.join("s.jsonl");
    let body: Vec<&str> = lines.collect();
    std::fs::write(&f, format!("{header}\n{}\n", body.join("\n"))).unwrap();
    age(&f);
    f
}

/// A process that looks like the pi CLI (`argv[0]` is `pi`) with arguments `args`, working in
/// `cwd`, sleeping until killed.
fn fake_pi(cwd: &Path, args: &str) -> std::process::Child {
    std::process::Command::new("bash")
        .args(["-c", &format!("exec -a pi bash -c 'sleep 30; :' x {args}")])
        .current_dir(cwd)
        .spawn()
        .expect("spawn bash")
}

/// Active wall items of a session.
fn active_folds(f: &Path) -> usize {
    Loaded::open(f)
        .unwrap()
        .wall
        .items
        .iter()
        .filter(|it| it.state == pi_shake::wall::WallState::Active)
        .count()
}

#[test]
fn a_streamed_undo_cut_short_loses_only_overlays_its_log_lists() {
    // A shaken session, and the context a complete undo gives.
    let shaken = fixture();
    let r = pi_shake(&[
        "shake",
        "--scope",
        "all",
        "--profile",
        "aggressive",
        shaken.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let folded = active_folds(&shaken);
    assert!(folded >= 4, "the fixture should fold several entries");
    let clean = copy_fixture(&shaken);
    let r = pi_shake(&["undo", "--force", clean.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let want = Loaded::open(&clean).unwrap().projection.context.tokens;
    assert_eq!(active_folds(&clean), 0);

    let mut files = vec![clean];
    // One line per chunk: the log entry, then one restoring overlay per write. The third write
    // fails before any byte (a cut at a line boundary) or after half its bytes (a torn line).
    for torn in [false, true] {
        let f = copy_fixture(&shaken);
        let before = std::fs::read(&f).unwrap();
        let mut calls = 0;
        let mut write = |file: &mut std::fs::File, bytes: &[u8]| {
            calls += 1;
            if calls == 3 {
                if torn {
                    file.write_all(&bytes[..bytes.len() / 2])?;
                }
                return Err(std::io::Error::from_raw_os_error(28));
            }
            file.write_all(bytes)
        };
        let sink = writer::Sink {
            chunk_bytes: 1,
            write: &mut write,
        };
        let err = pi_shake::commands::undo::undo_one_with(&f, true, sink).unwrap_err();
        assert_eq!(calls, 3, "one write per line");
        assert_eq!(
            pi_shake::error::exit_code_of(&err),
            pi_shake::error::ExitCode::Unsafe
        );
        let after = std::fs::read(&f).unwrap();
        assert!(
            after.starts_with(&before),
            "previous bytes must be a prefix"
        );
        age(&f);
        if torn {
            // Log + one overlay complete, then half a line: later runs refuse until pi (or
            // anyone) completes it, and the file is left as it is.
            assert!(!after.ends_with(b"\n"));
            let r = pi_shake(&["undo", f.to_str().unwrap()]);
            assert_eq!(r.code, 4, "{}", r.stderr);
            assert_eq!(std::fs::read(&f).unwrap(), after);
        } else {
            // The log lists every restore; only the first overlay landed. The rest of the wall
            // stands, and the next undo restores it.
            assert!(after.ends_with(b"\n"));
            assert_eq!(active_folds(&f), folded - 1);
            let r = pi_shake(&["undo", f.to_str().unwrap()]);
            assert_eq!(r.code, 0, "{}", r.stderr);
            assert_eq!(active_folds(&f), 0);
            assert_eq!(Loaded::open(&f).unwrap().projection.context.tokens, want);
        }
        files.push(f);
    }
    assert_pi_loads(&files);
}

#[test]
fn a_same_size_rewrite_before_the_checked_tail_is_refused() {
    // Bigger than the tail the writer re-reads: the change sits outside it, and the file's
    // identity (mtime / ctime) gives it away.
    let work = temp_dir("big-rewrite");
    let f = work.join("big.jsonl");
    let text = "x".repeat(3 << 20);
    let lines = [
        json!({"type": "session", "version": 3, "id": "01a22b23-ae19-74c3-98ee-d6569285609a", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp"}),
        json!({"type": "message", "id": "aaaa0001", "parentId": null, "timestamp": "2026-01-01T00:00:01.000Z", "message": {"role": "user", "content": [{"type": "text", "text": "read it"}], "timestamp": 1}}),
        json!({"type": "message", "id": "aaaa0002", "parentId": "aaaa0001", "timestamp": "2026-01-01T00:00:02.000Z", "message": {"role": "toolResult", "toolCallId": "t1", "toolName": "read", "content": [{"type": "text", "text": text}], "isError": false, "timestamp": 2}}),
        json!({"type": "message", "id": "aaaa0003", "parentId": "aaaa0002", "timestamp": "2026-01-01T00:00:03.000Z", "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop", "timestamp": 3}}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&f, body).unwrap();
    age(&f);
    let l = Loaded::open(&f).unwrap();
    let b = planned(&l);
    // Past any filesystem timestamp tick.
    std::thread::sleep(std::time::Duration::from_millis(30));
    assert!(std::fs::metadata(&f).unwrap().len() > 2 * pi_shake::session::TAIL_CHECK);
    a_same_size_change_is_refused(&f, &l, &b);
}

/// Flip one byte of `f` (its first string's first char: same size, different bytes) after `l`
/// was read: committing `b`, even with `--force`, is refused and leaves the file as it is.
fn a_same_size_change_is_refused(f: &Path, l: &Loaded, b: &Batch) {
    let mut bytes = std::fs::read(f).unwrap();
    let i = bytes.iter().position(|&c| c == b'"').unwrap();
    bytes[i + 1] ^= 0x20;
    std::fs::write(f, &bytes).unwrap();
    let err = writer::commit(
        &l.session,
        &l.tree,
        &l.projection,
        b,
        &WriteOptions { force: true },
    )
    .unwrap_err();
    assert!(format!("{err:#}").contains("changed"), "{err:#}");
    assert_eq!(std::fs::read(f).unwrap(), bytes);
}
