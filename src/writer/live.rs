//! The live-pi check: refuse to append while pi may be running on the session. pi keeps the
//! session in memory and never re-reads it, so entries appended under a running pi end on a
//! dead branch. Running pi processes are found through Linux `/proc` (command line and working
//! directory); where processes cannot be listed, a very recent modification is refused instead.

use std::path::Path;
use std::time::{Duration, SystemTime};

use anyhow::Result;
use serde_json::Value;

use crate::error::{Fault, FaultKind};
use crate::session::Session;
use crate::tree::Tree;

/// Seconds within which a modification counts as "pi may be writing now" — used only where
/// processes cannot be listed (no `/proc`).
pub const RECENT_SECS: u64 = 5;

/// Refuse when pi may be running on this session: a pi process works in the session's
/// directory or names the session on its command line. There is no time rule where processes
/// can be listed: once pi has exited, `pi -p … && pi-shake shake -c` appends at once. Where they
/// cannot (no `/proc`), a modification less than [`RECENT_SECS`] old is refused instead, unless
/// the file ends in pi-shake's own entries.
pub(super) fn live_pi_check(s: &Session, t: &Tree, meta: &std::fs::Metadata) -> Result<()> {
    match pi_processes() {
        Some(procs) => {
            if let Some(p) = procs.iter().find(|p| p.runs_on(s)) {
                let why = match (&p.cwd, s.header.cwd.as_deref()) {
                    (Some(c), Some(h)) if c == Path::new(h) => format!("is running in {h}"),
                    _ => "names this session on its command line".to_string(),
                };
                return Err(Fault::new(
                    FaultKind::Unsafe,
                    format!(
                        "{}: refusing to write: a pi process (pid {}) {why}; pi never re-reads the file, so entries appended now would end on a dead branch",
                        s.path.display(),
                        p.pid
                    ),
                )
                .hint(
                    "inside that pi, run it through the pi-shake extension (/shake, /shake undo, /compact; integrations/pi-shake), which lets pi write or reopen the file; or quit pi first; or pass --force if that pi is working on another session",
                )
                .into());
            }
            Ok(())
        }
        None => recent_write_check(s, t, meta),
    }
}

/// Where processes cannot be listed: refuse a modification less than [`RECENT_SECS`] old.
fn recent_write_check(s: &Session, t: &Tree, meta: &std::fs::Metadata) -> Result<()> {
    // A recent write by pi-shake itself (its log entry, then the overlays it names, end the
    // file) is not pi at work.
    let is_log = |j: usize| {
        matches!(
            &s.entries[j].body,
            crate::session::Body::Custom {
                shake_data: Some(_),
                ..
            }
        )
    };
    // So is a compaction entry `pi-shake compact` wrote (its `details.pruner` names pi-shake):
    // the pre-compaction routine (undo, compact, shake) runs its steps back to back.
    let is_our_compaction = |j: usize| {
        matches!(
            &s.entries[j].body,
            crate::session::Body::Compaction { info, .. } if info.from_hook
        ) && s.read_value(j).is_ok_and(|v| {
            v.pointer("/details/pruner")
                .and_then(Value::as_str)
                .is_some_and(|p| p.starts_with("pi-shake "))
        })
    };
    let last_is_ours = t.leaf.is_some_and(|i| {
        let mut j = i;
        while j > 0 && matches!(s.entries[j].body, crate::session::Body::ContextEdit { .. }) {
            j -= 1;
        }
        is_log(j) || (j == i && is_our_compaction(j))
    });
    if let (false, Ok(m)) = (last_is_ours, meta.modified())
        && let Ok(age) = SystemTime::now().duration_since(m)
        && age < Duration::from_secs(RECENT_SECS)
        && std::env::var_os("PI_SHAKE_IGNORE_RECENT").is_none()
    {
        return Err(Fault::new(
                    FaultKind::Unsafe,
                    format!(
                        "{}: refusing to write: the session was modified {:.1}s ago and running processes cannot be listed here; pi may be running on it",
                        s.path.display(),
                        age.as_secs_f64()
                    ),
                )
                .hint("close pi (or wait until it is idle and closed) and retry, or pass --force if you are sure")
                .into());
    }
    Ok(())
}

/// A running pi process.
#[derive(Debug)]
struct PiProcess {
    pid: u32,
    cwd: Option<std::path::PathBuf>,
    /// Command-line arguments after the program (and after the script, for `node pi`).
    args: Vec<String>,
}

impl PiProcess {
    /// Whether this pi may be working on `s`: it runs in the session's directory, an argument
    /// names the session file (resolved against the process's directory), or an argument is a
    /// prefix of the header id (`--session ID|PREFIX`).
    fn runs_on(&self, s: &Session) -> bool {
        if let (Some(c), Some(h)) = (&self.cwd, s.header.cwd.as_deref())
            && c == Path::new(h)
        {
            return true;
        }
        let id = s.header.id.as_str();
        let me = std::fs::canonicalize(&s.path).ok();
        let name = s.path.file_name();
        self.args.iter().any(|a| {
            if a.len() >= 4 && !id.is_empty() && id.starts_with(a.as_str()) {
                return true;
            }
            let p = Path::new(a);
            if name.is_none() || p.file_name() != name {
                return false;
            }
            let p = match &self.cwd {
                Some(c) if p.is_relative() => c.join(p),
                _ => p.to_path_buf(),
            };
            me.is_some() && std::fs::canonicalize(p).ok() == me
        })
    }
}

/// Every running pi process (Linux `/proc`); None when processes cannot be listed.
fn pi_processes() -> Option<Vec<PiProcess>> {
    let me = std::process::id();
    let dir = std::fs::read_dir("/proc").ok()?;
    let mut out = Vec::new();
    for ent in dir.flatten() {
        let Some(pid) = ent.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(cmd) = std::fs::read(ent.path().join("cmdline")) else {
            continue;
        };
        let Some(skip) = pi_args_start(&cmd) else {
            continue;
        };
        let args = cmd
            .split(|&b| b == 0)
            .filter(|a| !a.is_empty())
            .skip(skip)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        out.push(PiProcess {
            pid,
            cwd: std::fs::read_link(ent.path().join("cwd")).ok(),
            args,
        });
    }
    Some(out)
}

/// Whether `cmdline` (NUL-separated) runs pi; the index of its first argument if so.
fn pi_args_start(cmdline: &[u8]) -> Option<usize> {
    looks_like_pi(cmdline).then(|| {
        let a0 = cmdline
            .split(|&b| b == 0)
            .find(|a| !a.is_empty())
            .unwrap_or(b"");
        let base = a0.rsplit(|&b| b == b'/').next().unwrap_or(a0);
        if base == b"pi" { 1 } else { 2 }
    })
}

fn looks_like_pi(cmdline: &[u8]) -> bool {
    let args: Vec<&[u8]> = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .collect();
    let base = |a: &[u8]| -> Vec<u8> { a.rsplit(|&b| b == b'/').next().unwrap_or(a).to_vec() };
    match args.first() {
        Some(a0) if base(a0) == b"pi" => true,
        Some(a0) if base(a0).starts_with(b"node") || base(a0).starts_with(b"bun") => {
            args.get(1).is_some_and(|a1| {
                let b = base(a1);
                b == b"pi" || a1.windows(16).any(|w| w == b"pi-coding-agent/")
            })
        }
        _ => false,
    }
}
