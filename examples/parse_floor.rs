//! Benchmark floor: a plain `serde_json::from_str::<serde_json::Value>` of every line of a file.
//!
//! ```text
//! cargo run --release --example parse_floor -- FILE.jsonl
//! ```
//!
//! Streams the file line by line (one reused buffer, like pi-shake's reader keeps memory flat),
//! parses each non-blank line into a `Value` and drops it. Prints the count of parsed and
//! unparsable lines on stderr. No session logic at all: this is what "just parsing the JSON"
//! costs with this crate's serde_json build (`preserve_order`, `float_roundtrip`, ...).

#![allow(clippy::print_stdout, clippy::print_stderr)] // a command-line program

use std::fs::File;
use std::io::{BufRead, BufReader};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: parse_floor FILE.jsonl")?;
    let mut r = BufReader::with_capacity(1 << 20, File::open(&path)?);
    let mut line = String::new();
    let (mut ok, mut bad) = (0u64, 0u64);
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            break;
        }
        let t = line.trim_end_matches(['\n', '\r']);
        if t.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<serde_json::Value>(t) {
            Ok(v) => {
                ok += 1;
                drop(v);
            }
            Err(_) => bad += 1,
        }
    }
    eprintln!("{path}: {ok} lines parsed, {bad} unparsable");
    Ok(())
}
