//! Which pi is installed: the `pi` found on `PATH`, and whether it is older than the first pi
//! that honours `context_edit` (an older pi resuming a session ignores every fold).
//!
//! Found from the published packages (`npm pack` of each release, grepping `dist/` for
//! `context_edit`): `@earendil-works/pi-coding-agent` **0.87.0** (2026-09-21, "append-only
//! model-context edits") is the first; 0.86.1 and every `@mariozechner/pi-coding-agent`
//! release (up to 0.73.1, the package's last) have none. Measured too (`scripts/cross_release.py`,
//! in `cargo test`): from pi-shake's shaken files 0.87.0 builds exactly pi 1.6's model context and
//! 0.86.1 does not.
//!
//! Cheap by design, nothing is spawned: one `PATH` walk, one `canonicalize`, and the
//! `package.json` of the package the resolved `pi` script belongs to (npm links `bin/pi` to the
//! package's CLI script; a shell shim naming the package's path, as pnpm writes, is read too).
//! A `pi` whose package cannot be identified gives no warning.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The first release that honours `context_edit`.
pub const FIRST_CONTEXT_EDIT: (u64, u64, u64) = (0, 87, 0);
/// Its package (earlier releases of the older package never had it).
pub const PACKAGE: &str = "@earendil-works/pi-coding-agent";
/// pi's package before it moved to `@earendil-works` (no release honours `context_edit`).
pub const OLD_PACKAGE: &str = "@mariozechner/pi-coding-agent";

/// The pi found on `PATH`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstalledPi {
    /// The `pi` on `PATH`.
    pub bin: PathBuf,
    /// Package name and version from its `package.json`.
    pub package: String,
    pub version: String,
}

impl InstalledPi {
    /// Whether this pi ignores `context_edit` entries.
    pub fn ignores_context_edit(&self) -> bool {
        if self.package == OLD_PACKAGE {
            return true;
        }
        self.package == PACKAGE
            && parse_version(&self.version).is_some_and(|v| v < FIRST_CONTEXT_EDIT)
    }

    /// The warning for an old pi.
    pub fn warning(&self) -> String {
        format!(
            "warning: the pi on PATH ({}: {} {}) is older than {PACKAGE} 0.87.0, the first pi that honours context_edit; if it resumes a session, pi-shake's folds have no effect there (they stay harmless). Update it: npm install -g {PACKAGE}",
            self.bin.display(),
            self.package,
            self.version
        )
    }
}

/// `x.y.z` (a pre-release or build suffix is ignored).
pub fn parse_version(v: &str) -> Option<(u64, u64, u64)> {
    let core = v.trim().trim_start_matches('v');
    let core = core.split(['-', '+']).next()?;
    let mut it = core.split('.').map(|p| p.parse::<u64>().ok());
    Some((it.next()??, it.next()??, it.next().flatten().unwrap_or(0)))
}

/// The warning for the pi on this process's `PATH`, computed once.
pub fn old_pi_warning() -> Option<&'static str> {
    static W: OnceLock<Option<String>> = OnceLock::new();
    W.get_or_init(|| {
        let path = std::env::var_os("PATH")?;
        installed_pi(&path)
            .filter(InstalledPi::ignores_context_edit)
            .map(|p| p.warning())
    })
    .as_deref()
}

/// The pi found on `path` (a `PATH` value), if its package can be identified.
pub fn installed_pi(path: &std::ffi::OsStr) -> Option<InstalledPi> {
    let bin = std::env::split_paths(path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join("pi"))
        .find(|p| is_executable(p))?;
    let script = std::fs::canonicalize(&bin).ok()?;
    let (package, version) = package_of(&script).or_else(|| shim_target(&script))?;
    Some(InstalledPi {
        bin,
        package,
        version,
    })
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// The pi package `script` lies in: the nearest ancestor `package.json` naming one (at most
/// six levels up, never past a `node_modules` directory).
fn package_of(script: &Path) -> Option<(String, String)> {
    for dir in script.ancestors().skip(1).take(6) {
        if dir.file_name().is_some_and(|n| n == "node_modules") {
            return None;
        }
        let Ok(text) = std::fs::read_to_string(dir.join("package.json")) else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let name = v["name"].as_str().unwrap_or("");
        if name == PACKAGE || name == OLD_PACKAGE {
            return Some((name.to_string(), v["version"].as_str()?.to_string()));
        }
    }
    None
}

/// A small shell shim (pnpm, yarn) naming the package's path: that package.
fn shim_target(script: &Path) -> Option<(String, String)> {
    let meta = std::fs::metadata(script).ok()?;
    if meta.len() > 64 * 1024 {
        return None;
    }
    let text = std::fs::read_to_string(script).ok()?;
    let base = script.parent()?;
    for pkg in [PACKAGE, OLD_PACKAGE] {
        let needle = format!("node_modules/{pkg}/");
        let Some(at) = text.find(&needle) else {
            continue;
        };
        let start = text[..at]
            .rfind(|c: char| c == '"' || c == '\'' || c.is_whitespace())
            .map_or(0, |i| i + 1);
        let raw = &text[start..at + needle.len()];
        let dir = raw
            .replace("$basedir", &base.to_string_lossy())
            .replace("${basedir}", &base.to_string_lossy());
        let dir = Path::new(&dir);
        let dir = if dir.is_relative() {
            base.join(dir)
        } else {
            dir.to_path_buf()
        };
        if let Some(found) = package_of(&dir.join("package.json")) {
            return Some(found);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(parse_version("0.87.0"), Some((0, 87, 0)));
        assert_eq!(parse_version("v1.6.0-rc.1"), Some((1, 6, 0)));
        assert_eq!(parse_version("0.73"), Some((0, 73, 0)));
        assert_eq!(parse_version("x"), None);
        let p = |package: &str, version: &str| InstalledPi {
            bin: PathBuf::from("/bin/pi"),
            package: package.into(),
            version: version.into(),
        };
        assert!(p(OLD_PACKAGE, "0.73.1").ignores_context_edit());
        assert!(p(OLD_PACKAGE, "9.0.0").ignores_context_edit());
        assert!(p(PACKAGE, "0.86.1").ignores_context_edit());
        assert!(!p(PACKAGE, "0.87.0").ignores_context_edit());
        assert!(!p(PACKAGE, "1.6.0").ignores_context_edit());
        assert!(!p(PACKAGE, "garbage").ignores_context_edit());
        assert!(!p("something-else", "0.1.0").ignores_context_edit());
    }
}
