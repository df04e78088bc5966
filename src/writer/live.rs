//! The live-pi check: refuse to append while pi may be running on the session. pi keeps the
//! session in memory and never re-reads it, so entries appended under a running pi end on a
//! dead branch. Running pi processes are found by their command line and working directory (on
//! Linux, macOS and Windows alike, through `sysinfo`); where processes cannot be listed, a very
//! recent modification is refused instead.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::Result;
use serde_json::Value;

use crate::error::{Fault, FaultKind};
use crate::session::Session;
use crate::tree::Tree;

/// Seconds within which a modification counts as "pi may be writing now" — used only where
/// processes cannot be listed.
pub const RECENT_SECS: u64 = 5;

/// Refuse when pi may be running on this session: a pi process works in the session's
/// directory, the pi-shake extension inside it records the session as open, or it names the
/// session on its command line. pi since 0.50 sets its process title over its arguments (its
/// command line reads `pi`), so for a real pi it is the directory or the extension's record
/// that counts. There is no time rule where processes can be listed: once pi has exited,
/// `pi -p … && pi-shake shake -c` appends at once. Where they cannot, a modification less than
/// [`RECENT_SECS`] old is refused instead, unless the file ends in pi-shake's own entries.
pub(super) fn live_pi_check(s: &Session, t: &Tree, meta: &std::fs::Metadata) -> Result<()> {
    match pi_processes() {
        Some(procs) => {
            // The session file as the records and arguments name it, resolved once.
            let me = std::fs::canonicalize(&s.path).ok();
            if let Some((p, on)) = procs
                .iter()
                .find_map(|p| p.runs_on(s, me.as_deref()).map(|on| (p, on)))
            {
                let why = match on {
                    On::Cwd(h) => format!("is running in {h}"),
                    On::Record => {
                        "has this session open (the pi-shake extension's record)".to_string()
                    }
                    On::Arg => "names this session on its command line".to_string(),
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
    cwd: Option<PathBuf>,
    /// Command-line arguments after the program (and after the script, for `node pi`).
    args: Vec<String>,
    /// The session file the pi-shake extension inside it records as open ([`open_records`]).
    open: Option<PathBuf>,
}

/// Why a pi process is taken to be working on a session.
enum On<'a> {
    /// It runs in the session's directory (the header's `cwd`).
    Cwd(&'a str),
    /// The pi-shake extension inside it records the session as open.
    Record,
    /// An argument names the session file or a prefix of its id.
    Arg,
}

impl PiProcess {
    /// Whether this pi may be working on `s`, and why: it runs in the session's directory, the
    /// extension inside it records the session as open, an argument names the session file
    /// (resolved against the process's directory), or an argument is a prefix of the header id
    /// (`--session ID|PREFIX`). `me` is the session file's canonical path.
    fn runs_on<'s>(&self, s: &'s Session, me: Option<&Path>) -> Option<On<'s>> {
        if let (Some(c), Some(h)) = (&self.cwd, s.header.cwd.as_deref())
            && c == Path::new(h)
        {
            return Some(On::Cwd(h));
        }
        // A path that resolves to the session file.
        let is_me = |p: &Path| me.is_some() && std::fs::canonicalize(p).ok().as_deref() == me;
        if self.open.as_deref().is_some_and(is_me) {
            return Some(On::Record);
        }
        let id = s.header.id.as_str();
        let name = s.path.file_name();
        let named = self.args.iter().any(|a| {
            if a.len() >= 4 && !id.is_empty() && id.starts_with(a.as_str()) {
                return true;
            }
            let p = Path::new(a);
            if name.is_none() || p.file_name() != name {
                return false;
            }
            match &self.cwd {
                Some(c) if p.is_relative() => is_me(&c.join(p)),
                _ => is_me(p),
            }
        });
        named.then_some(On::Arg)
    }
}

/// The sessions the pi-shake extension records as open, by pi process id:
/// `<agent dir>/pi-shake/open/<pid>` holds the session file's path. A record whose pid is no
/// running pi (a pi that was killed) is never looked up.
fn open_records() -> std::collections::HashMap<u32, PathBuf> {
    let dir = crate::settings::agent_dir().join("pi-shake").join("open");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Default::default();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let pid = e.file_name().to_str()?.parse::<u32>().ok()?;
            let text = std::fs::read_to_string(e.path()).ok()?;
            let path = text.trim_end_matches(['\n', '\r']);
            (!path.is_empty()).then(|| (pid, PathBuf::from(path)))
        })
        .collect()
}

/// Every running pi process of any user the system lets us see (Linux, macOS, Windows, the
/// BSDs, through `sysinfo`: command line and working directory); None when processes cannot be
/// listed (an unsupported system, a sandbox without `/proc`).
fn pi_processes() -> Option<Vec<PiProcess>> {
    use sysinfo::{ProcessRefreshKind, ProcessesToUpdate, System, UpdateKind};
    let mut sys = System::new().ok()?;
    sys.refresh_processes_specifics(
        ProcessesToUpdate::All,
        true,
        ProcessRefreshKind::nothing()
            .with_cmd(UpdateKind::Always)
            .with_cwd(UpdateKind::Always)
            .without_tasks(),
    );
    // Not even this process: the listing failed.
    if sys.processes().is_empty() {
        return None;
    }
    let me = std::process::id();
    let mut records = open_records();
    let mut out = Vec::new();
    for (pid, p) in sys.processes() {
        if pid.as_u32() == me {
            continue;
        }
        let cmd: Vec<String> = p
            .cmd()
            .iter()
            .filter(|a| !a.is_empty())
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let Some(skip) = pi_args_start(&cmd) else {
            continue;
        };
        out.push(PiProcess {
            pid: pid.as_u32(),
            cwd: p.cwd().map(Path::to_path_buf),
            args: cmd.into_iter().skip(skip).collect(),
            open: records.remove(&pid.as_u32()),
        });
    }
    Some(out)
}

/// Where pi's own arguments start in a process's command line, when it runs pi: after `pi`
/// (`pi.exe`, `pi.cmd`), or after the script for `node …/pi` and `node`/`bun` running a file of
/// the `pi-coding-agent` package.
fn pi_args_start(cmd: &[String]) -> Option<usize> {
    /// A path's last component (`/` or `\` separated) without a Windows program suffix.
    fn base(a: &str) -> &str {
        let name = a.rsplit(['/', '\\']).next().unwrap_or(a);
        [".exe", ".cmd"]
            .iter()
            .find_map(|x| name.strip_suffix(x))
            .unwrap_or(name)
    }
    let a0 = base(cmd.first()?);
    if a0 == "pi" {
        return Some(1);
    }
    let runtime = a0.starts_with("node") || a0.starts_with("bun");
    let a1 = cmd.get(1)?;
    (runtime && (base(a1) == "pi" || a1.replace('\\', "/").contains("pi-coding-agent/")))
        .then_some(2)
}

#[cfg(test)]
mod tests {
    use super::pi_args_start;

    fn start(cmd: &[&str]) -> Option<usize> {
        pi_args_start(&cmd.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn pi_is_found_however_it_was_started() {
        assert_eq!(start(&["pi", "--session", "s.jsonl"]), Some(1));
        assert_eq!(start(&["/usr/local/bin/pi"]), Some(1));
        assert_eq!(
            start(&["node", "/usr/lib/node_modules/.bin/pi", "-c"]),
            Some(2)
        );
        assert_eq!(
            start(&[
                "/opt/node22/bin/node",
                "/home/u/.npm/lib/node_modules/@earendil-works/pi-coding-agent/dist/cli.js",
            ]),
            Some(2)
        );
        assert_eq!(start(&["bun", "/x/pi-coding-agent/dist/cli.js"]), Some(2));
        // Windows: the program's suffix and backslashes.
        assert_eq!(
            start(&["C:\\Users\\u\\AppData\\Roaming\\npm\\pi.cmd"]),
            Some(1)
        );
        assert_eq!(
            start(&[
                "C:\\Program Files\\nodejs\\node.exe",
                "C:\\Users\\u\\AppData\\Roaming\\npm\\node_modules\\@earendil-works\\pi-coding-agent\\dist\\cli.js",
            ]),
            Some(2)
        );
    }

    #[test]
    fn other_programs_are_not_pi() {
        assert_eq!(start(&[]), None);
        assert_eq!(start(&["pi-shake", "shake"]), None);
        assert_eq!(start(&["pip", "install"]), None);
        assert_eq!(start(&["node", "server.js", "pi"]), None);
        assert_eq!(start(&["node"]), None);
        assert_eq!(start(&["python3", "pi"]), None);
        assert_eq!(start(&["vim", "pi-coding-agent/README.md"]), None);
    }
}
