//! Helpers for the CLI tests (discovery, batch, output, shell): a temporary pi agent directory,
//! running the binary in a chosen directory with a chosen environment, mtimes, path filters and
//! plain-text snapshots (`UPDATE_SNAPSHOTS=1` rewrites them).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::common::{Run, root, temp_dir};

/// A fixture of `sessions-fixtures/pi/`.
pub fn fixture(name: &str) -> PathBuf {
    root().join("sessions-fixtures/pi").join(name)
}

/// A fixture of another `sessions-fixtures/` folder.
pub fn fixture_in(dir: &str, name: &str) -> PathBuf {
    root().join("sessions-fixtures").join(dir).join(name)
}

/// pi's `<encoded-cwd>` (pi-format.md §1.1), written independently of `src/settings.rs`.
pub fn encoded(cwd: &Path) -> String {
    let s = cwd.to_str().unwrap();
    let s = s.strip_prefix('/').unwrap_or(s);
    format!("--{}--", s.replace(['/', '\\', ':'], "-"))
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

/// Compare `actual` with `tests/snapshots/NAME.txt` (a missing file fails); `UPDATE_SNAPSHOTS=1`
/// (or `UPDATE_GOLDEN=1`) writes it instead.
pub fn snapshot(name: &str, actual: &str) {
    let path = root().join("tests/snapshots").join(format!("{name}.txt"));
    if ["UPDATE_SNAPSHOTS", "UPDATE_GOLDEN"]
        .iter()
        .any(|k| std::env::var_os(k).is_some_and(|v| v == "1"))
    {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing snapshot {}: run with UPDATE_SNAPSHOTS=1 to create it\n--- actual ---\n{actual}",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "snapshot {} differs (UPDATE_SNAPSHOTS=1 to accept)\n--- expected ---\n{expected}\n--- actual ---\n{actual}",
            path.display()
        );
    }
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
