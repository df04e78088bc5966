//! Endpoint checks for the wire scorers: URL parsing, loopback detection, the plain-`http://`
//! refusal, and API key lookup (explicit, environment, `…_FILE`), with a [`Secret`] type whose
//! `Debug` never shows the key.

use std::net::IpAddr;

use reqwest::Url;

use super::errors::local_error;
use crate::score::ScorerError;

/// Whether the URL's host is loopback (`localhost`, 127.0.0.0/8, `[::1]`).
pub fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// `host[:port]` of the URL: what the CLI prints as the receiver of session content.
pub fn host_label(url: &Url) -> String {
    let host = url.host_str().unwrap_or("?");
    match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    }
}

/// Parses an endpoint URL and refuses plain `http://` to a non-loopback host unless allowed.
pub fn check_url(raw: &str, allow_insecure_http: bool) -> Result<Url, ScorerError> {
    let url = Url::parse(raw.trim())
        .map_err(|e| local_error("config", format!("invalid scorer URL: {e}")))?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(local_error("config", "scorer URL has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(local_error(
            "config",
            "scorer URL must not carry credentials; use the API key variable",
        ));
    }
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&url) || allow_insecure_http => Ok(url),
        "http" => Err(local_error(
            "insecure-url",
            format!(
                "refusing to send session content over plain http to {} (use https, a loopback \
                 address, or --allow-insecure-http)",
                host_label(&url)
            ),
        )),
        other => Err(local_error(
            "config",
            format!("unsupported URL scheme `{other}` (use https)"),
        )),
    }
}

/// A secret (an API key): its `Debug` never shows it, and nothing formats it by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The secret itself, for the one place that sends it (the `Authorization` header).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Secret {
        Secret(s.to_string())
    }
}

impl From<String> for Secret {
    fn from(s: String) -> Secret {
        Secret(s)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

/// The key for `url`: the explicit one, else the first of `vars` (see [`key_from`]). None is
/// fine for a loopback URL; otherwise it is a `missing-key` error naming the variables.
pub fn resolve_key(
    explicit: Option<&Secret>,
    env: &dyn Fn(&str) -> Option<String>,
    vars: &[&str],
    url: &Url,
) -> Result<Option<String>, ScorerError> {
    let key = match explicit.map(|k| k.expose().trim()) {
        Some(k) if !k.is_empty() => Some(k.to_string()),
        _ => key_from(env, vars),
    };
    if key.is_none() && !is_loopback(url) {
        return Err(local_error(
            "missing-key",
            format!(
                "no API key for {}: set {}",
                host_label(url),
                vars.join(" or ")
            ),
        ));
    }
    Ok(key)
}

/// The first non-empty value among `vars`, read through `env`.
///
/// For each variable `V` in order: its value, else the contents of the file named by `V_FILE`
/// (for secrets mounted as files). Keys never come from the command line.
pub fn key_from(env: &dyn Fn(&str) -> Option<String>, vars: &[&str]) -> Option<String> {
    vars.iter().find_map(|v| {
        let direct = env(v)
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty());
        direct.or_else(|| {
            env(&format!("{v}_FILE"))
                .and_then(|p| std::fs::read_to_string(p.trim()).ok())
                .map(|k| k.trim().to_string())
                .filter(|k| !k.is_empty())
        })
    })
}

/// The process environment as a lookup function.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_loopback() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(is_loopback(&u("http://127.0.0.1:8080/x")));
        assert!(is_loopback(&u("http://127.9.9.9/x")));
        assert!(is_loopback(&u("http://localhost/x")));
        assert!(is_loopback(&u("http://[::1]:99/x")));
        assert!(!is_loopback(&u("http://10.0.0.1/x")));
        assert!(!is_loopback(&u("https://api.typesafe.ai/v1/systemone")));
        assert_eq!(
            host_label(&u("https://api.typesafe.ai/v1/systemone")),
            "api.typesafe.ai"
        );
        assert_eq!(host_label(&u("http://127.0.0.1:8080/v1")), "127.0.0.1:8080");

        assert!(check_url("https://example.com/v1/systemone", false).is_ok());
        assert!(check_url("http://127.0.0.1:9/v1/systemone", false).is_ok());
        let e = check_url("http://example.com/v1/systemone", false).unwrap_err();
        assert_eq!(e.kind, "insecure-url");
        assert!(check_url("http://example.com/v1/systemone", true).is_ok());
        assert_eq!(
            check_url("ftp://example.com/x", true).unwrap_err().kind,
            "config"
        );
        assert_eq!(check_url("not a url", true).unwrap_err().kind, "config");
        assert_eq!(
            check_url("https://user:pw@example.com/x", true)
                .unwrap_err()
                .kind,
            "config"
        );
    }

    #[test]
    fn key_lookup_order() {
        let env = |name: &str| match name {
            "B" => Some("from-b".to_string()),
            "A" => Some("  ".to_string()),
            _ => None,
        };
        assert_eq!(key_from(&env, &["A", "B"]).as_deref(), Some("from-b"));
        assert_eq!(key_from(&env, &["C"]), None);
        let dir = std::env::temp_dir().join(format!("pi-shake-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("key");
        std::fs::write(&file, "from-file\n").unwrap();
        let path = file.to_string_lossy().to_string();
        let env2 = move |k: &str| (k == "D_FILE").then(|| path.clone());
        assert_eq!(key_from(&env2, &["D"]).as_deref(), Some("from-file"));
    }
}
