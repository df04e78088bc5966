//! Retry timing (`docs/jev.md#retries-and-timeouts`): `retry-after-ms`, then `Retry-After` (seconds or an
//! HTTP-date), else 0.5 s × 2^attempt capped at 8 s with ±25% jitter (none when
//! `PI_SHAKE_TEST_NO_JITTER` is set); waits over 60 s give up.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// Set (to anything) to turn backoff jitter off, for deterministic tests.
pub const NO_JITTER_ENV: &str = "PI_SHAKE_TEST_NO_JITTER";

/// Retry timing and caps (`docs/jev.md#retries-and-timeouts`).
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts per batch, the first included (default 4).
    pub max_attempts: u32,
    /// Time budget for the whole run, retries and waits included (default 180 s).
    pub run_budget: Duration,
    /// A server asking to wait longer than this makes the batch give up (default 60 s).
    pub max_server_wait: Duration,
    /// First backoff delay (default 0.5 s); doubles per attempt.
    pub base_delay: Duration,
    /// Backoff cap (default 8 s).
    pub max_delay: Duration,
    /// ±25% jitter on computed backoff (default: on unless `PI_SHAKE_TEST_NO_JITTER` is set).
    pub jitter: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            run_budget: Duration::from_secs(180),
            max_server_wait: Duration::from_secs(60),
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            jitter: std::env::var_os(NO_JITTER_ENV).is_none(),
        }
    }
}

impl RetryPolicy {
    /// Backoff before retry number `retry` (0 for the first retry), given a uniform `unit` in
    /// [0, 1) for the jitter: `base × 2^retry`, capped, then scaled by `1 ± 0.25`.
    pub fn backoff(&self, retry: u32, unit: f64) -> Duration {
        let factor = 2f64.powi(i32::try_from(retry.min(30)).unwrap_or(30));
        let raw = (self.base_delay.as_secs_f64() * factor).min(self.max_delay.as_secs_f64());
        let scaled = if self.jitter {
            raw * (1.0 + (unit.clamp(0.0, 1.0) * 2.0 - 1.0) * 0.25)
        } else {
            raw
        };
        Duration::from_secs_f64(scaled.max(0.0))
    }
}

/// A uniform number in [0, 1) from the standard library's per-call random hasher keys.
pub(crate) fn jitter_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0x5eed);
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// How long the server asked us to wait, from `retry-after-ms`, then `Retry-After` (delta seconds
/// or an HTTP-date, relative to `now`).
pub fn server_wait(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let ra = text("retry-after")?;
    if let Ok(secs) = ra.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = parse_http_date(ra)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parses an HTTP-date (RFC 9110 §5.6.7) with the `httpdate` crate: the IMF-fixdate
/// `Sun, 06 Nov 1994 08:49:37 GMT` and the two obsolete forms recipients must also accept
/// (RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994`).
pub fn parse_http_date(s: &str) -> Option<SystemTime> {
    httpdate::parse_http_date(s.trim()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::http::test_headers as headers;
    use std::time::UNIX_EPOCH;

    #[test]
    fn retry_after_ms_wins_over_retry_after() {
        let h = headers(&[("retry-after-ms", "250"), ("retry-after", "7")]);
        assert_eq!(
            server_wait(&h, SystemTime::now()),
            Some(Duration::from_millis(250))
        );
        let h = headers(&[("retry-after", "7")]);
        assert_eq!(
            server_wait(&h, SystemTime::now()),
            Some(Duration::from_secs(7))
        );
        let h = headers(&[("retry-after", "0")]);
        assert_eq!(server_wait(&h, SystemTime::now()), Some(Duration::ZERO));
        assert_eq!(server_wait(&HeaderMap::new(), SystemTime::now()), None);
        let h = headers(&[("retry-after", "soon")]);
        assert_eq!(server_wait(&h, SystemTime::now()), None);
    }

    #[test]
    fn retry_after_http_date() {
        let at = parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(
            at.duration_since(UNIX_EPOCH).unwrap().as_secs(),
            784_111_777
        );
        let now = at - Duration::from_secs(30);
        let h = headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]);
        assert_eq!(server_wait(&h, now), Some(Duration::from_secs(30)));
        // A date in the past means "now".
        assert_eq!(
            server_wait(&h, at + Duration::from_secs(5)),
            Some(Duration::ZERO)
        );
        // The obsolete forms RFC 9110 says recipients must accept.
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), Some(at));
        assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), Some(at));
        assert!(parse_http_date("Sun, 06 Nov 1994 25:49:37 GMT").is_none());
        assert!(parse_http_date("06 Foo 1994 08:49:37 GMT").is_none());
        assert!(parse_http_date("Sun, 31 Feb 1994 08:49:37 GMT").is_none());
    }

    #[test]
    fn backoff_doubles_caps_and_jitters() {
        let mut p = RetryPolicy {
            jitter: false,
            ..RetryPolicy::default()
        };
        let secs = |p: &RetryPolicy, n, u| p.backoff(n, u).as_secs_f64();
        assert_eq!(secs(&p, 0, 0.9), 0.5);
        assert_eq!(secs(&p, 1, 0.9), 1.0);
        assert_eq!(secs(&p, 3, 0.9), 4.0);
        assert_eq!(secs(&p, 4, 0.9), 8.0);
        assert_eq!(secs(&p, 9, 0.9), 8.0);
        p.jitter = true;
        assert!((secs(&p, 1, 0.0) - 0.75).abs() < 1e-9);
        assert!((secs(&p, 1, 1.0) - 1.25).abs() < 1e-9);
        for _ in 0..100 {
            let d = secs(&p, 2, jitter_unit());
            assert!((1.5..=2.5).contains(&d), "{d}");
        }
    }
}
