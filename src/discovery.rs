//! Session discovery: which session files a command works on, as pi 1.6's CLI finds them
//! (`docs/pi-format.md#where-sessions-live`).
//!
//! The sessions directory is `--session-dir`, then `PI_CODING_AGENT_SESSION_DIR`, then
//! `sessionDir` in pi's settings, then `<agentDir>/sessions/<encoded-cwd>/`, with `agentDir` from
//! `PI_CODING_AGENT_DIR` or `~/.pi/agent`. A custom directory that differs from the cwd's default
//! one holds only the sessions whose header `cwd` is the current directory (pi's `filterCwd`).
//! `--continue` picks the newest file by mtime whose first JSON line is a valid header;
//! `--session ID|PREFIX` looks for an exact id, then a prefix, locally and then across every
//! project directory.

use std::path::{Component, Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

use crate::cli::SessionArgs;
use crate::error::{Fault, FaultKind};
use crate::settings::{PiSettings, agent_dir, expand_tilde};

/// Node's `path.resolve(base, p)`: absolute, `.` and `..` removed, no symlink resolution.
pub fn resolve_lexical(p: &Path, base: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
        }
    }
    out
}

/// pi's `pathsEqual`: both resolved against `cwd`; case-insensitive on Windows.
fn paths_equal(a: &Path, b: &Path, cwd: &Path) -> bool {
    let (a, b) = (resolve_lexical(a, cwd), resolve_lexical(b, cwd));
    if cfg!(windows) {
        a.to_string_lossy().to_lowercase() == b.to_string_lossy().to_lowercase()
    } else {
        a == b
    }
}

/// pi's `<encoded-cwd>` directory name.
pub fn encode_cwd(cwd: &Path) -> String {
    let s = cwd.to_string_lossy();
    let s = s.strip_prefix(['/', '\\']).unwrap_or(&s);
    let enc: String = s
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("--{enc}--")
}

/// pi's default sessions directory for `cwd`: `<agentDir>/sessions/<encoded-cwd>/`.
pub fn default_session_dir(cwd: &Path) -> PathBuf {
    resolve_lexical(&agent_dir(), cwd)
        .join("sessions")
        .join(encode_cwd(&resolve_lexical(cwd, cwd)))
}

/// Where the sessions directory came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirSource {
    /// `--session-dir`.
    Flag,
    /// `PI_CODING_AGENT_SESSION_DIR`.
    Env,
    /// `sessionDir` in pi's settings (project over agent directory).
    Settings,
    /// `<agentDir>/sessions/<encoded-cwd>/`.
    Default,
}

/// The sessions directory, resolved as pi's CLI does (`docs/pi-format.md#where-sessions-live`).
#[derive(Clone, Debug)]
pub struct SessionDir {
    pub dir: PathBuf,
    pub source: DirSource,
    /// pi's `filterCwd`: a custom directory that is not the cwd's default one, so only sessions
    /// whose header `cwd` is the current directory belong to it.
    pub filter_cwd: bool,
}

impl SessionDir {
    /// Whether a header's `cwd` passes the directory's filter.
    pub fn admits(&self, header_cwd: Option<&str>, cwd: &Path) -> bool {
        !self.filter_cwd || cwd_matches(header_cwd, cwd)
    }
}

/// pi's `sessionCwdMatches`: a non-empty header cwd naming the current directory.
fn cwd_matches(header_cwd: Option<&str>, cwd: &Path) -> bool {
    match header_cwd {
        Some(h) if !h.is_empty() => paths_equal(Path::new(h), cwd, cwd),
        _ => false,
    }
}

/// `sessionDir` from pi's settings: the project's `.pi/settings.json` (of the process cwd; pi
/// reads this key before project trust) over the agent directory's `settings.json`.
fn settings_session_dir(pi: &PiSettings, cwd: &Path) -> Option<PathBuf> {
    let project = pi.project(cwd);
    let global = pi.agent();
    // Deep merge: a project key (even `null`) replaces the global one.
    let v = project
        .as_deref()
        .and_then(|p| p.get("sessionDir"))
        .or_else(|| global.and_then(|g| g.get("sessionDir")))?;
    v.as_str().filter(|s| !s.is_empty()).map(expand_tilde)
}

/// The sessions directory for `cwd`: `--session-dir`, then `PI_CODING_AGENT_SESSION_DIR`, then
/// `sessionDir` from pi's settings, then the default directory.
pub fn session_dir(args: &SessionArgs, cwd: &Path, pi: &PiSettings) -> SessionDir {
    let default = default_session_dir(cwd);
    let custom = if let Some(d) = &args.session_dir {
        Some((expand_tilde(&d.to_string_lossy()), DirSource::Flag))
    } else if let Some(v) =
        std::env::var_os("PI_CODING_AGENT_SESSION_DIR").filter(|v| !v.is_empty())
    {
        Some((expand_tilde(&v.to_string_lossy()), DirSource::Env))
    } else {
        settings_session_dir(pi, cwd).map(|d| (d, DirSource::Settings))
    };
    match custom {
        Some((dir, source)) => {
            let filter_cwd = !paths_equal(&dir, &default, cwd);
            SessionDir {
                dir,
                source,
                filter_cwd,
            }
        }
        None => SessionDir {
            dir: default,
            source: DirSource::Default,
            filter_cwd: false,
        },
    }
}

/// A session file's header facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderFacts {
    pub id: String,
    pub cwd: Option<String>,
}

/// A file's header id and cwd if its first JSON line (within 1 MiB) is a pi header.
pub fn read_header(path: &Path) -> Option<(String, Option<String>)> {
    read_header_facts(path).map(|h| (h.id, h.cwd))
}

fn read_header_facts(path: &Path) -> Option<HeaderFacts> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = Vec::new();
    f.by_ref().take(1 << 20).read_to_end(&mut buf).ok()?;
    for line in buf.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        if crate::jscompat::js_trim_is_empty(&text) {
            continue;
        }
        let Ok((v, _)) = crate::jscompat::parse_lenient(&text) else {
            continue;
        };
        if crate::jscompat::js_is_falsy(&v) {
            continue;
        }
        if v.get("type").and_then(Value::as_str) != Some("session") {
            return None;
        }
        let id = v.get("id").and_then(Value::as_str)?.to_string();
        let cwd = v.get("cwd").and_then(Value::as_str).map(str::to_string);
        return Some(HeaderFacts { id, cwd });
    }
    None
}

/// `*.jsonl` files of a directory (non-recursive, symlinks followed), newest mtime first; ties
/// by path.
pub fn list_sessions(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<(std::time::SystemTime, PathBuf)> = rd
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".jsonl"))
        .filter_map(|e| {
            let p = e.path();
            let m = std::fs::metadata(&p).ok()?;
            if m.is_dir() {
                return None;
            }
            Some((m.modified().unwrap_or(std::time::UNIX_EPOCH), p))
        })
        .collect();
    v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    v.into_iter().map(|(_, p)| p).collect()
}

/// Sessions pi would list for `dir` (valid header, the directory's cwd filter), newest first.
fn sessions_with_headers(
    dir: &Path,
    filter: Option<(&SessionDir, &Path)>,
) -> Vec<(PathBuf, HeaderFacts)> {
    list_sessions(dir)
        .into_iter()
        .filter_map(|p| read_header_facts(&p).map(|h| (p, h)))
        .filter(|(_, h)| filter.is_none_or(|(sd, cwd)| sd.admits(h.cwd.as_deref(), cwd)))
        .collect()
}

/// The current directory's sessions, as `status` with no session lists them.
#[derive(Debug)]
pub struct Listing {
    pub dir: SessionDir,
    /// Newest mtime first (the first one is what `-c` opens).
    pub sessions: Vec<PathBuf>,
    /// `*.jsonl` files skipped: no valid header, or another directory's session (`filter_cwd`).
    pub skipped: usize,
}

/// List the current directory's sessions the way pi's session list does.
pub fn list_cwd_sessions(args: &SessionArgs, pi: &PiSettings) -> Listing {
    let cwd = current_dir();
    let dir = session_dir(args, &cwd, pi);
    let all = list_sessions(&dir.dir).len();
    let sessions: Vec<PathBuf> = sessions_with_headers(&dir.dir, Some((&dir, &cwd)))
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    Listing {
        skipped: all - sessions.len(),
        dir,
        sessions,
    }
}

fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// Resolve the sessions a command works on. `paths` win; else `--session`, `--continue`, `--all`.
pub fn resolve_sessions(
    paths: &[PathBuf],
    args: &SessionArgs,
    all: bool,
    pi: &PiSettings,
) -> Result<Vec<PathBuf>> {
    if !paths.is_empty() {
        return Ok(paths.to_vec());
    }
    let cwd = current_dir();
    let sd = session_dir(args, &cwd, pi);
    if let Some(q) = &args.session {
        return find_session(q, &sd, &cwd).map(|p| vec![p]);
    }
    if args.r#continue {
        // pi's findMostRecentSession: newest mtime first, the first valid header wins.
        for p in list_sessions(&sd.dir) {
            if let Some(h) = read_header_facts(&p)
                && sd.admits(h.cwd.as_deref(), &cwd)
            {
                return Ok(vec![p]);
            }
        }
        return Err(Fault::new(
            FaultKind::Usage,
            format!("no session for {} in {}", cwd.display(), sd.dir.display()),
        )
        .hint("pass a .jsonl path, --session ID or --session-dir DIR")
        .into());
    }
    if all {
        let v = list_sessions(&sd.dir);
        if v.is_empty() {
            return Err(Fault::new(
                FaultKind::Usage,
                format!("no sessions in {}", sd.dir.display()),
            )
            .into());
        }
        return Ok(v);
    }
    Err(Fault::new(
        FaultKind::Usage,
        "no session given: pass a .jsonl path, --session ID, -c or --all",
    )
    .into())
}

/// pi's `resolveSessionPath` for `--session ARG`: a path when it contains `/` or `\` or ends in
/// `.jsonl`; else an exact header id in the local directory, then an id prefix among the local
/// sessions, then the same across every project directory (or only the custom directory when one
/// is set). pi takes the first prefix match; pi-shake refuses an ambiguous prefix (exit 2),
/// since it may write to the session.
pub fn find_session(q: &str, sd: &SessionDir, cwd: &Path) -> Result<PathBuf> {
    if q.contains('/') || q.contains('\\') || q.ends_with(".jsonl") {
        return Ok(PathBuf::from(q));
    }
    if q.is_empty() {
        return Err(Fault::new(FaultKind::Usage, "--session needs an id or an id prefix").into());
    }
    let local = sessions_with_headers(&sd.dir, Some((sd, cwd)));
    if let Some(p) = pick(q, &local)? {
        return Ok(p);
    }
    let global_dirs = if sd.source == DirSource::Default {
        list_dirs(&agent_dir().join("sessions"))
    } else {
        vec![sd.dir.clone()]
    };
    let global: Vec<(PathBuf, HeaderFacts)> = global_dirs
        .iter()
        .flat_map(|d| sessions_with_headers(d, None))
        .collect();
    if let Some(p) = pick(q, &global)? {
        return Ok(p);
    }
    let searched = if sd.source == DirSource::Default {
        agent_dir().join("sessions")
    } else {
        sd.dir.clone()
    };
    Err(Fault::new(
        FaultKind::Usage,
        format!(
            "no session with id or id prefix `{q}` in {}",
            searched.display()
        ),
    )
    .into())
}

/// An exact id, else a unique prefix; an ambiguous prefix is a usage error.
fn pick(q: &str, found: &[(PathBuf, HeaderFacts)]) -> Result<Option<PathBuf>> {
    if let Some((p, _)) = found.iter().find(|(_, h)| h.id == q) {
        return Ok(Some(p.clone()));
    }
    let m: Vec<&(PathBuf, HeaderFacts)> =
        found.iter().filter(|(_, h)| h.id.starts_with(q)).collect();
    match m.as_slice() {
        [] => Ok(None),
        [(p, _)] => Ok(Some(p.clone())),
        many => {
            let list: Vec<String> = many
                .iter()
                .take(5)
                .map(|(p, h)| format!("{} ({})", h.id, p.display()))
                .collect();
            Err(Fault::new(
                FaultKind::Usage,
                format!(
                    "`{q}` matches {} sessions: {}{}",
                    many.len(),
                    list.join(", "),
                    if many.len() > 5 { ", …" } else { "" }
                ),
            )
            .hint("give more of the id")
            .into())
        }
    }
}

/// Subdirectories of `dir` (symlinks to directories included), sorted.
fn list_dirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}
