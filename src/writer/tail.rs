//! The byte checks around an append: before writing, the file is still exactly what was read
//! (`unchanged_since_read`); after, the appended tail reads back as what was written
//! (`verify_tail`). Both run under the writer's lock; neither writes.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::Path;

use anyhow::{Context, Result};

use super::unsafe_fault;
use crate::session::Session;

/// Refuse unless the file is still what was read. Under the lock, and costing a read of at most
/// [`crate::session::TAIL_CHECK`] bytes whatever the file's size:
///
/// * the same size (pi only ever appends to a session, and any append or truncation changes
///   it);
/// * where the platform tells (Unix), the same device and inode (the file was not replaced,
///   e.g. by a rename over it) and the same mtime and ctime to the nanosecond as when it was
///   opened for reading (any write to the file since then moves ctime, which no user-space call
///   can set back);
/// * the same hash of the last `TAIL_CHECK` bytes, re-read now, as of the same bytes read then.
///
/// What it does not see: a rewrite at the very same size that leaves the last MiB alone and
/// lands within the same filesystem timestamp tick as the read (coarse timestamps, older
/// kernels). Without an identity (a session read from bytes, or not Unix) every byte is hashed
/// again instead.
pub(super) fn unchanged_since_read(s: &Session, file: &mut File) -> Result<()> {
    let path = &s.path;
    let now = file
        .metadata()
        .with_context(|| format!("{}: cannot stat", path.display()))?;
    if now.len() != s.size {
        return Err(unsafe_fault(
            path,
            format_args!(
                "the file changed since it was read ({} → {} bytes); nothing was written, run again",
                s.size,
                now.len()
            ),
        )
        .into());
    }
    let changed = || {
        unsafe_fault(
            path,
            "the file's bytes changed since it was read; nothing was written, run again",
        )
    };
    let (from, want) = match s.identity {
        Some(id) => {
            if crate::session::FileIdentity::of(&now) != Some(id) {
                return Err(changed().into());
            }
            (s.tail_from, s.tail_hash)
        }
        None => (0, s.hash),
    };
    file.seek(SeekFrom::Start(from))?;
    let h = crate::hash::hash_prefix(&mut *file, s.size.saturating_sub(from))
        .with_context(|| format!("{}: re-read failed", path.display()))?;
    if h != want {
        return Err(changed().into());
    }
    Ok(())
}

/// Re-read what was appended: exactly `len` bytes from `from` with the hash of what was written,
/// each line reading back (through the session reader's own line parser) as an entry with the
/// planned id, each parented on the one before. Streams: memory holds one line at a time.
pub(super) fn verify_tail(
    path: &Path,
    from: u64,
    len: u64,
    hash: u64,
    ids: &[String],
) -> Result<()> {
    let fail = |what: &str| anyhow::anyhow!("{}: verification failed: {what}", path.display());
    let mut f = File::open(path)
        .with_context(|| format!("{}: cannot re-open to verify", path.display()))?;
    f.seek(SeekFrom::Start(from))?;
    let mut r = std::io::BufReader::with_capacity(1 << 20, f);
    let mut hasher = crate::hash::StreamHasher::new();
    let mut at = 0u64;
    let mut line = Vec::new();
    let mut k = 0usize;
    let mut parent: Option<String> = None;
    loop {
        line.clear();
        let n = std::io::BufRead::read_until(&mut r, b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        std::hash::Hasher::write(&mut hasher, &line);
        at += n as u64;
        if at > len {
            return Err(fail(
                "the appended tail differs from what was written (another writer?)",
            ));
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        if body.is_empty() {
            // The newline completing an unterminated last line.
            continue;
        }
        let text = std::str::from_utf8(body).map_err(|_| fail("an appended line is not UTF-8"))?;
        let parsed = crate::session::entry::parse_line(text, 0, 0, 0, Default::default());
        let crate::session::entry::Parsed::Entry { entry, .. } = parsed else {
            return Err(fail("an appended line does not parse"));
        };
        let Some(id) = ids.get(k) else {
            return Err(fail("more lines than were written"));
        };
        if entry.id.as_ref().map(|k| k.display()) != Some(id.as_str()) {
            return Err(fail("id mismatch"));
        }
        if k > 0 && entry.parent.as_ref().map(|k| k.display().to_string()) != parent {
            return Err(fail("parent chain mismatch"));
        }
        parent = Some(id.clone());
        k += 1;
    }
    if at != len || k != ids.len() {
        return Err(fail("the appended tail is shorter than what was written"));
    }
    if std::hash::Hasher::finish(&hasher) != hash {
        return Err(fail(
            "the appended tail differs from what was written (another writer?)",
        ));
    }
    Ok(())
}
