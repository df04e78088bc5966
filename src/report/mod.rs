//! Stage 5: reports — every `--json` wire type and every human rendering of `status`,
//! `shake` / `dry-run`, `undo`, `compact`, `recall` and the multi-session envelope. Plain data in, text or
//! JSON out; the printer ([`crate::output`]) is the only thing that writes it.

pub mod compact;
pub mod recall;
pub mod shake;
pub mod status;
pub mod undo;

use std::path::Path;

use serde_json::{Value, json};

pub use crate::jscompat::js_number;
pub use crate::text::thousands;

/// `812 B`, `8.5 KB`, `1.2 MB` (binary units).
pub fn human_size(bytes: u64) -> String {
    const K: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < K * K {
        format!("{:.1} KB", b / K)
    } else if b < K * K * K {
        format!("{:.1} MB", b / (K * K))
    } else {
        format!("{:.1} GB", b / (K * K * K))
    }
}

/// The JSON document of one session that failed: its path, the error and its exit code.
pub fn failed_doc(path: &Path, e: &anyhow::Error) -> Value {
    json!({"path": path.display().to_string(), "error": format!("{e:#}"), "exitCode": crate::error::exit_code_of(e) as u8})
}

/// The multi-session envelope: `{"schemaVersion": 1, "sessions": [...]}`, in input order.
pub fn envelope(docs: Vec<Value>) -> Value {
    json!({"schemaVersion": 1, "sessions": docs})
}

/// A dry run's warning that the real run would refuse to write, and why.
pub fn would_refuse(why: &str) -> String {
    format!("a real run would refuse to write (exit 4): {why}")
}
