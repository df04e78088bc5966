//! What both fuzz targets share: reading an entry's value back from the fuzzed bytes, as the
//! binary re-reads it from the file.

use pi_shake::session::Session;

/// Entry `i`'s parsed value, from `data` (the bytes `s` was read from).
pub fn value_at(s: &Session, data: &[u8], i: usize) -> anyhow::Result<serde_json::Value> {
    let e = &s.entries[i];
    let start = e.offset as usize;
    let end = (start + e.len as usize).min(data.len());
    let text = String::from_utf8_lossy(&data[start.min(end)..end]);
    Ok(pi_shake::session::entry::parse_value(&text)?.0)
}
