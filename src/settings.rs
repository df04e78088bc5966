//! Resolved settings: raw arguments + pi's settings files + environment, resolved once.
//!
//! - Session discovery as pi does it (pi-format.md §1): `--session-dir`, then
//!   `PI_CODING_AGENT_SESSION_DIR`, then `<agentDir>/sessions/<encoded-cwd>/`, with `agentDir`
//!   from `PI_CODING_AGENT_DIR` or `~/.pi/agent`; `--continue` picks the newest file by mtime
//!   whose first JSON line is a header; `--session ID|PREFIX` matches header ids.
//! - Profile resolution (product.md): the flag, then the project's `.pi/settings.json` (the
//!   session's cwd), then the agent directory's `settings.json`, then the built-in default; the
//!   key is `shake.profile` (also `shake.tail`, `shake.blockMin`).
//! - `compaction.keepRecentTokens` (and per-model overrides) for `compact`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

use crate::cli::{ProfileArg, SessionArgs};
use crate::error::{Fault, FaultKind};

/// A shake profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Default,
    Conservative,
    Aggressive,
}

impl Profile {
    /// (tail tokens, block minimum tokens) from the shake design.
    pub fn thresholds(self) -> (u64, u64) {
        match self {
            Profile::Default => (4_000, 400),
            Profile::Conservative => (8_000, 800),
            Profile::Aggressive => (2_000, 200),
        }
    }
    /// The profile's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::Conservative => "conservative",
            Profile::Aggressive => "aggressive",
        }
    }
    fn parse(s: &str) -> Option<Profile> {
        match s {
            "default" => Some(Profile::Default),
            "conservative" => Some(Profile::Conservative),
            "aggressive" => Some(Profile::Aggressive),
            _ => None,
        }
    }
}

impl From<ProfileArg> for Profile {
    fn from(p: ProfileArg) -> Profile {
        match p {
            ProfileArg::Default => Profile::Default,
            ProfileArg::Conservative => Profile::Conservative,
            ProfileArg::Aggressive => Profile::Aggressive,
        }
    }
}

/// Where the profile came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileSource {
    Flag,
    Project(PathBuf),
    Agent(PathBuf),
    BuiltIn,
}

impl ProfileSource {
    /// The wording used in output, e.g. `settings.json (agent-directory)`.
    pub fn label(&self) -> &'static str {
        match self {
            ProfileSource::Flag => "--profile",
            ProfileSource::Project(_) => ".pi/settings.json (project)",
            ProfileSource::Agent(_) => "settings.json (agent-directory)",
            ProfileSource::BuiltIn => "built-in default",
        }
    }
    /// A short key for logs and JSON.
    pub fn key(&self) -> &'static str {
        match self {
            ProfileSource::Flag => "flag",
            ProfileSource::Project(_) => "project",
            ProfileSource::Agent(_) => "agent-directory",
            ProfileSource::BuiltIn => "built-in",
        }
    }
}

/// The resolved shake thresholds.
#[derive(Clone, Debug, PartialEq)]
pub struct ShakeSettings {
    pub profile: Profile,
    pub source: ProfileSource,
    pub tail: u64,
    pub block_min: u64,
}

/// pi's agent directory.
pub fn agent_dir() -> PathBuf {
    if let Some(v) = std::env::var_os("PI_CODING_AGENT_DIR") {
        return expand_tilde(&v.to_string_lossy());
    }
    home().join(".pi").join("agent")
}

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}

fn expand_tilde(s: &str) -> PathBuf {
    if s == "~" {
        return home();
    }
    if let Some(rest) = s.strip_prefix("~/") {
        return home().join(rest);
    }
    PathBuf::from(s)
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

/// The sessions directory for `cwd` and whether it is the default one.
pub fn session_dir(args: &SessionArgs, cwd: &Path) -> (PathBuf, bool) {
    if let Some(d) = &args.session_dir {
        return (d.clone(), false);
    }
    if let Some(v) = std::env::var_os("PI_CODING_AGENT_SESSION_DIR") {
        return (expand_tilde(&v.to_string_lossy()), false);
    }
    (agent_dir().join("sessions").join(encode_cwd(cwd)), true)
}

/// A file's header id and cwd if its first JSON line (within 1 MiB) is a pi header.
pub fn read_header(path: &Path) -> Option<(String, Option<String>)> {
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
        return Some((id, cwd));
    }
    None
}

/// `*.jsonl` files of a directory, newest mtime first.
pub fn list_sessions(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<(std::time::SystemTime, PathBuf)> = rd
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| {
            let m = e
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            (m, e.path())
        })
        .collect();
    v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    v.into_iter().map(|(_, p)| p).collect()
}

/// Resolve the sessions a command works on. `paths` win; else `--session`, `--continue`, `--all`.
pub fn resolve_sessions(paths: &[PathBuf], args: &SessionArgs, all: bool) -> Result<Vec<PathBuf>> {
    if !paths.is_empty() {
        return Ok(paths.to_vec());
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let (dir, is_default) = session_dir(args, &cwd);
    if let Some(q) = &args.session {
        if q.contains('/') || q.contains('\\') || q.ends_with(".jsonl") {
            return Ok(vec![PathBuf::from(q)]);
        }
        let local = list_sessions(&dir);
        let mut exact = Vec::new();
        let mut prefix = Vec::new();
        for p in &local {
            if let Some((id, _)) = read_header(p) {
                if &id == q {
                    exact.push(p.clone());
                } else if id.starts_with(q.as_str()) {
                    prefix.push(p.clone());
                }
            }
        }
        if exact.is_empty() && prefix.is_empty() {
            // Across all project directories.
            for d in list_dirs(&agent_dir().join("sessions")) {
                for p in list_sessions(&d) {
                    if let Some((id, _)) = read_header(&p) {
                        if &id == q {
                            exact.push(p.clone());
                        } else if id.starts_with(q.as_str()) {
                            prefix.push(p.clone());
                        }
                    }
                }
            }
        }
        if let Some(p) = exact.into_iter().next() {
            return Ok(vec![p]);
        }
        return match prefix.len() {
            0 => Err(Fault::new(
                FaultKind::Usage,
                format!("no session with id or prefix `{q}` in {}", dir.display()),
            )
            .into()),
            1 => Ok(prefix),
            n => Err(Fault::new(
                FaultKind::Usage,
                format!("`{q}` matches {n} sessions; give more of the id"),
            )
            .into()),
        };
    }
    if args.r#continue {
        for p in list_sessions(&dir) {
            if let Some((_, hcwd)) = read_header(&p) {
                if !is_default && hcwd.as_deref().map(Path::new) != Some(cwd.as_path()) {
                    continue;
                }
                return Ok(vec![p]);
            }
        }
        return Err(Fault::new(
            FaultKind::Usage,
            format!("no session for this directory in {}", dir.display()),
        )
        .into());
    }
    if all {
        let v = list_sessions(&dir);
        if v.is_empty() {
            return Err(Fault::new(
                FaultKind::Usage,
                format!("no sessions in {}", dir.display()),
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

fn list_dirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

/// Read a settings file (strict JSON, BOM stripped). Missing → None; invalid → None (pi: `{}`).
pub fn read_settings(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    serde_json::from_str(text).ok()
}

/// Resolve the shake profile and thresholds.
pub fn shake_settings(
    flag: Option<ProfileArg>,
    tail: Option<u64>,
    block_min: Option<u64>,
    session_cwd: Option<&str>,
) -> ShakeSettings {
    let project = session_cwd.map(|c| Path::new(c).join(".pi").join("settings.json"));
    let agent = agent_dir().join("settings.json");
    let proj_v = project.as_deref().and_then(read_settings);
    let agent_v = read_settings(&agent);
    let get = |v: &Option<Value>, k: &str| {
        v.as_ref()
            .and_then(|v| v.get("shake"))
            .and_then(|s| s.get(k))
            .cloned()
    };
    let (profile, source) = if let Some(f) = flag {
        (Profile::from(f), ProfileSource::Flag)
    } else if let (Some(p), Some(path)) = (
        get(&proj_v, "profile").and_then(|v| v.as_str().and_then(Profile::parse)),
        &project,
    ) {
        (p, ProfileSource::Project(path.clone()))
    } else if let Some(p) =
        get(&agent_v, "profile").and_then(|v| v.as_str().and_then(Profile::parse))
    {
        (p, ProfileSource::Agent(agent.clone()))
    } else {
        (Profile::Default, ProfileSource::BuiltIn)
    };
    let (mut t, mut b) = profile.thresholds();
    // Explicit numbers in settings (project over agent) override the profile's.
    for v in [&agent_v, &proj_v] {
        if let Some(n) = get(v, "tail").and_then(|x| x.as_u64()) {
            t = n;
        }
        if let Some(n) = get(v, "blockMin").and_then(|x| x.as_u64()) {
            b = n;
        }
    }
    ShakeSettings {
        profile,
        source,
        tail: tail.unwrap_or(t),
        block_min: block_min.unwrap_or(b),
    }
}

/// `compaction.keepRecentTokens` from pi's settings (model override first), else 20,000.
pub fn keep_recent_tokens(session_cwd: Option<&str>, model_key: Option<&str>) -> Result<u64> {
    let agent_v = read_settings(&agent_dir().join("settings.json"));
    let proj_v =
        session_cwd.and_then(|c| read_settings(&Path::new(c).join(".pi").join("settings.json")));
    let mut keep = 20_000u64;
    let mut over: Option<u64> = None;
    for v in [&agent_v, &proj_v] {
        let Some(c) = v.as_ref().and_then(|v| v.get("compaction")) else {
            continue;
        };
        if let Some(k) = c.get("keepRecentTokens") {
            keep = k.as_u64().ok_or_else(|| {
                Fault::new(
                    FaultKind::Usage,
                    "compaction.keepRecentTokens in pi's settings must be a non-negative integer",
                )
            })?;
        }
        if let (Some(m), Some(ov)) = (model_key, c.get("modelOverrides"))
            && let Some(k) = ov
                .get(m)
                .and_then(|o| o.get("keepRecentTokens"))
                .and_then(Value::as_u64)
        {
            over = Some(k);
        }
    }
    Ok(over.unwrap_or(keep))
}
