//! The writer's clock and id source: "now" (`PI_SHAKE_NOW` overrides) and a small seeded PRNG
//! for entry ids (`PI_SHAKE_SEED` makes runs reproducible).

use std::fs::File;
use std::io::Read;
use std::time::SystemTime;

use super::{ENV_NOW, ENV_SEED};

/// "Now" in epoch ms (`PI_SHAKE_NOW` overrides).
pub fn now_ms() -> i64 {
    if let Ok(v) = std::env::var(ENV_NOW) {
        if let Ok(ms) = v.parse::<i64>() {
            return ms;
        }
        if let Some(ms) = crate::jscompat::iso_millis_to_epoch_ms(&v) {
            return ms;
        }
    }
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A small PRNG for ids (SplitMix64), seeded from `PI_SHAKE_SEED` or the OS.
pub(super) struct SplitMix(u64);

impl SplitMix {
    pub(super) fn from_env_or_entropy() -> SplitMix {
        if let Some(seed) = std::env::var(ENV_SEED)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
        {
            return SplitMix(seed);
        }
        let mut b = [0u8; 8];
        let ok = File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut b))
            .is_ok();
        if ok {
            return SplitMix(u64::from_le_bytes(b));
        }
        let t = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        SplitMix(t ^ (u64::from(std::process::id()) << 32))
    }
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
