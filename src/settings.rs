//! Resolved settings: raw arguments + pi's settings files + environment, each file read once
//! per run ([`PiSettings`]).
//!
//! - Profile resolution (`docs/product.md#profiles`): the flag, then the project's
//!   `.pi/settings.json` (the session's cwd), then the agent directory's `settings.json`, then the
//!   built-in default; the key is `shake.profile` (also `shake.tail`, `shake.blockMin`).
//! - `compaction.keepRecentTokens` (and per-model overrides) for `compact`.
//! - `sessionDir` for session discovery, which lives in [`crate::discovery`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::Result;
use serde_json::Value;

use crate::cli::{ProfileArg, ScopeArg};
use crate::error::{Fault, FaultKind};
use crate::wall::Scope;

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

/// pi's agent directory: `$PI_CODING_AGENT_DIR` when set and non-empty (tilde-expanded), else
/// `~/.pi/agent`.
pub fn agent_dir() -> PathBuf {
    if let Some(v) = std::env::var_os("PI_CODING_AGENT_DIR").filter(|v| !v.is_empty()) {
        return expand_tilde(&v.to_string_lossy());
    }
    home().join(".pi").join("agent")
}

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}

pub(crate) fn expand_tilde(s: &str) -> PathBuf {
    if s == "~" {
        return home();
    }
    if let Some(rest) = s.strip_prefix("~/") {
        return home().join(rest);
    }
    PathBuf::from(s)
}

/// Read a settings file (strict JSON, BOM stripped). Missing → None; invalid → None (pi: `{}`).
pub fn read_settings(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    serde_json::from_str(text).ok()
}

/// pi's settings files for one run: the agent directory's `settings.json` and any project's
/// `.pi/settings.json`, each read at most once (on first use) however many sessions ask.
#[derive(Debug, Default)]
pub struct PiSettings {
    agent: OnceLock<Option<Value>>,
    projects: Mutex<HashMap<PathBuf, Option<Arc<Value>>>>,
}

impl PiSettings {
    /// Nothing read yet.
    pub fn new() -> PiSettings {
        PiSettings::default()
    }

    /// The agent directory's `settings.json` (`None`: missing or invalid).
    pub fn agent(&self) -> Option<&Value> {
        self.agent
            .get_or_init(|| read_settings(&agent_dir().join("settings.json")))
            .as_ref()
    }

    /// `<dir>/.pi/settings.json` (`None`: missing or invalid).
    pub fn project(&self, dir: &Path) -> Option<Arc<Value>> {
        let path = dir.join(".pi").join("settings.json");
        let mut cache = self.projects.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(path)
            .or_insert_with_key(|p| read_settings(p).map(Arc::new))
            .clone()
    }

    /// Resolve the shake profile and thresholds for a session whose header cwd is `session_cwd`.
    pub fn shake_settings(
        &self,
        flag: Option<ProfileArg>,
        tail: Option<u64>,
        block_min: Option<u64>,
        session_cwd: Option<&str>,
    ) -> ShakeSettings {
        let project = session_cwd.map(|c| Path::new(c).join(".pi").join("settings.json"));
        let proj_v = session_cwd.and_then(|c| self.project(Path::new(c)));
        let agent_v = self.agent();
        let get = |v: Option<&Value>, k: &str| {
            v.and_then(|v| v.get("shake"))
                .and_then(|s| s.get(k))
                .cloned()
        };
        let (profile, source) = if let Some(f) = flag {
            (Profile::from(f), ProfileSource::Flag)
        } else if let (Some(p), Some(path)) = (
            get(proj_v.as_deref(), "profile").and_then(|v| v.as_str().and_then(Profile::parse)),
            &project,
        ) {
            (p, ProfileSource::Project(path.clone()))
        } else if let Some(p) =
            get(agent_v, "profile").and_then(|v| v.as_str().and_then(Profile::parse))
        {
            (p, ProfileSource::Agent(agent_dir().join("settings.json")))
        } else {
            (Profile::Default, ProfileSource::BuiltIn)
        };
        let (mut t, mut b) = profile.thresholds();
        // Explicit numbers in settings (project over agent) override the profile's.
        for v in [agent_v, proj_v.as_deref()] {
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
    pub fn keep_recent_tokens(
        &self,
        session_cwd: Option<&str>,
        model_key: Option<&str>,
    ) -> Result<u64> {
        let agent_v = self.agent();
        let proj_v = session_cwd.and_then(|c| self.project(Path::new(c)));
        let mut keep = 20_000u64;
        let mut over: Option<u64> = None;
        for v in [agent_v, proj_v.as_deref()] {
            let Some(c) = v.and_then(|v| v.get("compaction")) else {
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
}

/// Resolve the shake profile and thresholds, reading pi's settings files afresh.
pub fn shake_settings(
    flag: Option<ProfileArg>,
    tail: Option<u64>,
    block_min: Option<u64>,
    session_cwd: Option<&str>,
) -> ShakeSettings {
    PiSettings::new().shake_settings(flag, tail, block_min, session_cwd)
}

/// `compaction.keepRecentTokens` from pi's settings (model override first), else 20,000,
/// reading pi's settings files afresh.
pub fn keep_recent_tokens(session_cwd: Option<&str>, model_key: Option<&str>) -> Result<u64> {
    PiSettings::new().keep_recent_tokens(session_cwd, model_key)
}

/// The scopes `--scope` names, in the fixed order they apply in.
fn scopes_of(args: &[ScopeArg]) -> Vec<Scope> {
    let mut v = Vec::new();
    for a in args {
        let add: &[Scope] = match a {
            ScopeArg::Elide => &[Scope::Elide],
            ScopeArg::Thinking => &[Scope::Thinking],
            ScopeArg::Images => &[Scope::Images],
            ScopeArg::All => &Scope::ALL,
        };
        for s in add {
            if !v.contains(s) {
                v.push(*s);
            }
        }
    }
    // Apply in a fixed order so output is deterministic.
    v.sort_by_key(|s| Scope::ALL.iter().position(|x| x == s));
    v
}

/// The fold runs of `shake` / `dry-run`: `--scope`'s scopes together; without it, `shake` folds
/// `elide` and `dry-run` plans each scope on its own.
pub fn shake_runs(scope: &[ScopeArg], dry: bool) -> Vec<Vec<Scope>> {
    let explicit = scopes_of(scope);
    if !explicit.is_empty() {
        vec![explicit]
    } else if dry {
        vec![
            vec![Scope::Elide],
            vec![Scope::Thinking],
            vec![Scope::Images],
        ]
    } else {
        vec![vec![Scope::Elide]]
    }
}

/// `shake.compact.targetRatio` and `shake.compact.maxSummaryTokens` from pi's settings (the
/// project's over the agent directory's). An invalid value is a usage error naming the key.
pub fn compact_budget(session_cwd: Option<&str>) -> Result<(Option<f64>, Option<u64>)> {
    PiSettings::new().compact_budget(session_cwd)
}

impl PiSettings {
    /// `shake.compact.targetRatio` and `shake.compact.maxSummaryTokens` (the project's over the
    /// agent directory's), from the files this run has read. An invalid value is a usage error
    /// naming the key.
    pub fn compact_budget(&self, session_cwd: Option<&str>) -> Result<(Option<f64>, Option<u64>)> {
        let agent_v = self.agent().cloned();
        let proj_v = session_cwd.and_then(|c| self.project(Path::new(c)).map(|v| (*v).clone()));
        let mut ratio = None;
        let mut max = None;
        for v in [&agent_v, &proj_v] {
            let Some(c) = v
                .as_ref()
                .and_then(|v| v.get("shake"))
                .and_then(|s| s.get("compact"))
            else {
                continue;
            };
            if let Some(r) = c.get("targetRatio") {
                let r = r
                    .as_f64()
                    .filter(|r| *r > 0.0 && *r <= 1.0)
                    .ok_or_else(|| {
                        Fault::new(
                            FaultKind::Usage,
                            "shake.compact.targetRatio in pi's settings must be a number in (0, 1]",
                        )
                    })?;
                ratio = Some(r);
            }
            if let Some(m) = c.get("maxSummaryTokens") {
                let m = m.as_u64().filter(|m| *m > 0).ok_or_else(|| {
                Fault::new(
                    FaultKind::Usage,
                    "shake.compact.maxSummaryTokens in pi's settings must be a positive integer",
                )
            })?;
                max = Some(m);
            }
        }
        Ok((ratio, max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_settings_file_is_read_once_per_run() {
        let dir = std::env::temp_dir().join(format!("pi-shake-settings-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".pi")).unwrap();
        let file = dir.join(".pi").join("settings.json");
        std::fs::write(&file, r#"{"shake":{"profile":"aggressive","tail":123}}"#).unwrap();
        let pi = PiSettings::new();
        let cwd = dir.to_str().unwrap();
        let st = pi.shake_settings(None, None, None, Some(cwd));
        assert_eq!(st.profile, Profile::Aggressive);
        assert_eq!(st.source, ProfileSource::Project(file.clone()));
        assert_eq!(st.tail, 123);
        // Gone from disk, still what this run read; a new run reads afresh.
        std::fs::remove_file(&file).unwrap();
        assert_eq!(pi.shake_settings(None, None, None, Some(cwd)), st);
        let fresh = PiSettings::new().project(&dir);
        assert!(fresh.is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shake_runs_follow_the_scope_flags() {
        assert_eq!(shake_runs(&[], false), vec![vec![Scope::Elide]]);
        assert_eq!(shake_runs(&[], true).len(), 3);
        assert_eq!(
            shake_runs(
                &[ScopeArg::Images, ScopeArg::Elide, ScopeArg::Images],
                false
            ),
            vec![vec![Scope::Elide, Scope::Images]]
        );
        assert_eq!(
            shake_runs(&[ScopeArg::All], true),
            vec![Scope::ALL.to_vec()]
        );
    }
}
