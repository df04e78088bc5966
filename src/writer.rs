//! The writer: the only code that appends to a session file.
//!
//! A [`Batch`] collects new entries in memory, each parented on the previous one starting at
//! pi's leaf (the last entry), with fresh 8-hex ids unique against every id in the file and
//! every id the file refers to (an orphan's missing parent, an overlay's missing target), and
//! ISO-8601 UTC timestamps with milliseconds, serialised like pi's `JSON.stringify` (compact,
//! pi's key order). [`commit`] then:
//!
//! 1. refuses when the session has problems that make appending unsafe (torn last line, legacy
//!    or newer version, a cycle on the active path, a duplicated leaf id, a leaf that is not an
//!    object); a dangling parent (after a malformed line) is only a warning: what is appended
//!    after the leaf is on pi's path, and every overlay targets an entry on it;
//! 2. takes an advisory lock (concurrent pi-shake runs serialise on it);
//! 3. refuses when pi may be running on the session (a pi process working in the session's
//!    directory or naming the session on its command line; where processes cannot be listed, a
//!    modification less than 5 s old) unless forced;
//! 4. re-checks the file immediately before writing, under the lock: same size, same identity
//!    (device, inode, mtime, ctime) and the same hash of its last MiB as when it was read, else
//!    it refuses ("changed since it was read"; what this does and does not see:
//!    `unchanged_since_read`);
//! 5. writes every new line in one `write` on an `O_APPEND` descriptor ([`commit`]), or in
//!    chunks of whole lines with the log entry first ([`commit_streaming`], undo), then fsyncs;
//! 6. re-reads the appended tail and checks it is byte for byte what was written (length and
//!    hash) and parses into exactly the planned entries, each parented on the one before.
//!
//! Any refusal leaves the file byte-identical and exits with [`crate::error::ExitCode::Unsafe`].

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Map, Value};

use crate::error::{Fault, FaultKind};
use crate::session::{Session, Severity};
use crate::tree::Tree;

mod clock;
mod live;
mod tail;

use clock::SplitMix;
pub use clock::now_ms;
pub use live::RECENT_SECS;
use live::live_pi_check;
use tail::{unchanged_since_read, verify_tail};

/// Environment variable fixing "now" (ISO-8601 or epoch ms) for reproducible output.
pub const ENV_NOW: &str = "PI_SHAKE_NOW";
/// Environment variable seeding id generation for reproducible output.
pub const ENV_SEED: &str = "PI_SHAKE_SEED";

/// New entries to append, in order.
pub struct Batch {
    parent: Option<String>,
    taken: HashSet<String>,
    rng: SplitMix,
    now_ms: i64,
    /// Every new line, serialised, each ending in `\n` (one buffer: one write, no copies).
    buf: Vec<u8>,
    /// (start, end) of each line in `buf`, without its `\n`.
    spans: Vec<(usize, usize)>,
    ids: Vec<String>,
}

impl Batch {
    /// Start a batch on `s`'s leaf.
    pub fn new(s: &Session, t: &Tree) -> Result<Batch> {
        let parent = match t.leaf {
            Some(i) => match &s.entries[i].id {
                Some(k) if k.is_string() => Some(k.display().to_string()),
                _ => {
                    return Err(Fault::new(
                        FaultKind::Unsafe,
                        format!(
                            "{}:{}: the last entry has no string id; a new entry could not be parented on it",
                            s.path.display(),
                            s.entries[i].line
                        ),
                    )
                    .into());
                }
            },
            None => None,
        };
        // Ids in the file, and ids the file refers to without holding them (the parent of an
        // entry after a malformed line, an overlay's or a compaction's missing target): a new
        // entry taking one of those would adopt the orphan (a loop through our own entries) or
        // an old overlay.
        let mut taken: HashSet<String> = t.by_id.keys().map(|k| k.display().to_string()).collect();
        for e in &s.entries {
            let refs = [
                e.parent.as_ref(),
                match &e.body {
                    crate::session::Body::ContextEdit { target, .. } => target.as_ref(),
                    crate::session::Body::Compaction { first_kept, .. } => first_kept.as_ref(),
                    _ => None,
                },
            ];
            for k in refs.into_iter().flatten() {
                if !t.by_id.contains_key(k) {
                    taken.insert(k.display().to_string());
                }
            }
        }
        Ok(Batch {
            parent,
            taken,
            rng: SplitMix::from_env_or_entropy(),
            now_ms: now_ms(),
            // pi's own repair: complete an unterminated last line before appending (§14).
            buf: if s.tail == crate::session::Tail::Unterminated {
                vec![b'\n']
            } else {
                Vec::new()
            },
            spans: Vec::new(),
            ids: Vec::new(),
        })
    }

    /// Milliseconds since the epoch this batch stamps its entries with.
    pub fn now_ms(&self) -> i64 {
        self.now_ms
    }

    /// Ids of the entries in this batch, in order.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    fn new_id(&mut self) -> String {
        for _ in 0..100 {
            let id = format!("{:08x}", self.rng.next() as u32);
            if self.taken.insert(id.clone()) {
                return id;
            }
        }
        // pi's own fallback: a full UUID-shaped id.
        let a = self.rng.next();
        let b = self.rng.next();
        let id = format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            ((b >> 48) & 0x3fff) | 0x8000,
            b & 0xffff_ffff_ffff
        );
        self.taken.insert(id.clone());
        id
    }

    fn push(&mut self, obj: Map<String, Value>, id: String) -> String {
        self.push_raw(obj, None, id)
    }

    /// Serialise `obj` into the buffer; with `raw = Some((key, json))`, append one more field
    /// whose value is copied verbatim from `json` (already valid JSON text).
    fn push_raw(
        &mut self,
        obj: Map<String, Value>,
        raw: Option<(&str, &str)>,
        id: String,
    ) -> String {
        let start = self.buf.len();
        // Serialising a map of JSON values into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut self.buf, &Value::Object(obj));
        if let Some((key, json)) = raw {
            self.buf.pop(); // the closing brace
            self.buf.push(b',');
            let _ = serde_json::to_writer(&mut self.buf, key);
            self.buf.push(b':');
            self.buf.extend_from_slice(json.as_bytes());
            self.buf.push(b'}');
        }
        self.spans.push((start, self.buf.len()));
        self.buf.push(b'\n');
        self.parent = Some(id.clone());
        self.ids.push(id.clone());
        id
    }

    /// Reserve room for `bytes` more bytes of lines (one allocation for large batches).
    pub fn reserve(&mut self, bytes: usize) {
        self.buf.reserve(bytes);
    }

    fn base(&mut self, ty: &str) -> (Map<String, Value>, String) {
        let id = self.new_id();
        self.base_with(ty, id)
    }

    fn base_with(&mut self, ty: &str, id: String) -> (Map<String, Value>, String) {
        let mut m = Map::new();
        m.insert("type".into(), Value::from(ty));
        m.insert("id".into(), Value::from(id.clone()));
        m.insert(
            "parentId".into(),
            self.parent.clone().map(Value::from).unwrap_or(Value::Null),
        );
        m.insert(
            "timestamp".into(),
            Value::from(crate::jscompat::epoch_ms_to_iso(self.now_ms)),
        );
        (m, id)
    }

    /// Reserve a fresh id for an entry appended later with [`Batch::context_edit_as`] (a log
    /// entry written first can then name the overlays that follow it).
    pub fn reserve_id(&mut self) -> String {
        self.new_id()
    }

    /// Append a `context_edit` (`replacement` is `null` or `{"content": …}`). Returns its id.
    pub fn context_edit(&mut self, target_id: &str, replacement: Value) -> String {
        let id = self.new_id();
        self.context_edit_as(id, target_id, replacement)
    }

    /// A `context_edit` whose `replacement` is copied verbatim from `replacement_json` (valid
    /// JSON text: `null` or `{"content": …}`), so undo restores bytes without re-encoding them.
    pub fn context_edit_raw(
        &mut self,
        id: String,
        target_id: &str,
        replacement_json: &str,
    ) -> String {
        let (mut m, _) = self.base_with("context_edit", id.clone());
        m.insert("targetId".into(), Value::from(target_id));
        self.push_raw(m, Some(("replacement", replacement_json)), id)
    }

    /// [`Batch::context_edit`] with an id from [`Batch::reserve_id`].
    pub fn context_edit_as(&mut self, id: String, target_id: &str, replacement: Value) -> String {
        let (mut m, _) = self.base_with("context_edit", id.clone());
        m.insert("targetId".into(), Value::from(target_id));
        m.insert("replacement".into(), replacement);
        self.push(m, id)
    }

    /// Append a `custom` entry (pi's key order: type, customType, data, id, parentId, timestamp).
    pub fn custom(&mut self, custom_type: &str, data: Value) -> String {
        let (base, id) = self.base("custom");
        let mut m = Map::new();
        m.insert("type".into(), Value::from("custom"));
        m.insert("customType".into(), Value::from(custom_type));
        m.insert("data".into(), data);
        for (k, v) in base {
            if k != "type" {
                m.insert(k, v);
            }
        }
        self.push(m, id)
    }

    /// Append an entry of `ty` whose other fields follow the base fields in `fields`' order.
    /// `with_id` receives the new id first (a compaction retaining nothing names itself).
    pub fn entry(&mut self, ty: &str, fields: impl FnOnce(&str) -> Map<String, Value>) -> String {
        let (mut m, id) = self.base(ty);
        for (k, v) in fields(&id) {
            m.insert(k, v);
        }
        self.push(m, id)
    }

    /// The serialised lines, in order (without their `\n`).
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.spans
            .iter()
            .map(|&(a, b)| std::str::from_utf8(&self.buf[a..b]).unwrap_or(""))
    }

    /// Number of new entries.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// The bytes one write appends (the lines, each ending in `\n`).
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Drop the serialised lines once written (a streamed append); ids and the parent chain
    /// carry on.
    fn clear_bytes(&mut self) {
        self.buf.clear();
        self.spans.clear();
    }
}

/// Safety options for [`commit`].
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    /// Write even when pi seems to be running on the session.
    pub force: bool,
}

/// What was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    pub bytes: u64,
    pub entries: usize,
}

fn unsafe_fault(path: &Path, msg: impl std::fmt::Display) -> Fault {
    Fault::new(
        FaultKind::Unsafe,
        format!("{}: refusing to write: {msg}", path.display()),
    )
}

/// Check that appending to `s` is safe at all (before planning anything expensive).
///
/// Besides the session's and the tree's own blockers, any error pi would hit while projecting
/// blocks a write: an overlay we append makes pi estimate every message, and it would throw.
pub fn check_writable(s: &Session, t: &Tree, proj: &crate::projection::Projection) -> Result<()> {
    let mut problems = s
        .blocking_problems()
        .chain(t.problems.iter().filter(|p| p.severity >= Severity::Unsafe))
        .chain(
            proj.problems
                .iter()
                .filter(|p| p.severity >= Severity::Unsafe),
        );
    if let Some(p) = problems.next() {
        let line = p.line.map(|l| format!(":{l}")).unwrap_or_default();
        let hint = match p.code {
            "torn-last-line" | "no-final-newline" => {
                "if pi is not running on this session, open it in pi once (pi completes the last line) and retry"
            }
            "legacy-version" => {
                "open the session in pi once so it migrates the file, then run pi-shake again"
            }
            _ => "pi-shake only appends to sessions pi reads back exactly as written",
        };
        return Err(Fault::new(
            FaultKind::Unsafe,
            format!(
                "{}{line}: refusing to write: {}",
                s.path.display(),
                p.message
            ),
        )
        .hint(hint)
        .into());
    }
    Ok(())
}

/// [`check_writable`] for a run that writes, or, for a dry run (`dry`), the refusal the real
/// run would meet, to report beside the plan instead of failing.
pub fn check_writable_unless_dry(
    s: &Session,
    t: &Tree,
    proj: &crate::projection::Projection,
    dry: bool,
) -> Result<Option<String>> {
    match check_writable(s, t, proj) {
        Err(e) if dry => Ok(Some(e.to_string())),
        other => other.map(|()| None),
    }
}

/// Append `batch` to `s`'s file, with every check in the module header.
pub fn commit(
    s: &Session,
    t: &Tree,
    p: &crate::projection::Projection,
    batch: &Batch,
    opts: &WriteOptions,
) -> Result<Written> {
    commit_with(s, t, p, batch, opts, &mut |f, bytes| f.write_all(bytes))
}

/// [`commit`] with an injectable low-level write (fault-injection tests).
pub fn commit_with(
    s: &Session,
    t: &Tree,
    p: &crate::projection::Projection,
    batch: &Batch,
    opts: &WriteOptions,
    write: &mut dyn FnMut(&mut File, &[u8]) -> std::io::Result<()>,
) -> Result<Written> {
    append(
        s,
        t,
        p,
        opts,
        write,
        &mut Source::Once { batch, sent: false },
    )
}

/// Bytes a streamed append hands to one `write` (whole lines; at least one line).
pub const CHUNK_BYTES: usize = 1 << 20;

/// How a streamed append reaches the file: the bytes handed to one `write` and the low-level
/// write itself. [`commit_streaming`] uses [`CHUNK_BYTES`] and `write_all`; fault-injection
/// tests inject both through [`commit_streaming_with`].
pub struct Sink<'a> {
    /// Bytes per `write` (whole lines; at least one line).
    pub chunk_bytes: usize,
    /// The low-level write of one chunk.
    pub write: &'a mut dyn FnMut(&mut File, &[u8]) -> std::io::Result<()>,
}

/// Append `batch`, then the lines `more` adds to it one at a time until it returns `false`
/// (undo's restored content): one logical append, written in chunks of whole lines of about
/// [`CHUNK_BYTES`] on the same locked `O_APPEND` descriptor, fsync'd once at the end and
/// verified like [`commit`]. Memory holds one chunk (at least one line), not everything
/// appended. `batch`'s own lines (the log entry) are written first, so a stream cut short
/// (an error, a kill) can only lose overlays the log already lists; every chunk ends at a line
/// boundary, so a cut between chunks leaves no torn line.
pub fn commit_streaming(
    s: &Session,
    t: &Tree,
    p: &crate::projection::Projection,
    batch: Batch,
    more: &mut dyn FnMut(&mut Batch) -> Result<bool>,
    opts: &WriteOptions,
) -> Result<Written> {
    let sink = Sink {
        chunk_bytes: CHUNK_BYTES,
        write: &mut |f, bytes| f.write_all(bytes),
    };
    commit_streaming_with(s, t, p, batch, more, opts, sink)
}

/// [`commit_streaming`] through an injected [`Sink`] (fault injection).
pub fn commit_streaming_with(
    s: &Session,
    t: &Tree,
    p: &crate::projection::Projection,
    batch: Batch,
    more: &mut dyn FnMut(&mut Batch) -> Result<bool>,
    opts: &WriteOptions,
    sink: Sink<'_>,
) -> Result<Written> {
    append(
        s,
        t,
        p,
        opts,
        sink.write,
        &mut Source::Stream {
            batch,
            more,
            chunk_bytes: sink.chunk_bytes,
            started: false,
            done: false,
        },
    )
}

/// Where the appended bytes come from.
enum Source<'a> {
    /// One batch, written in one `write`.
    Once { batch: &'a Batch, sent: bool },
    /// A batch that is filled, written and emptied chunk by chunk.
    Stream {
        batch: Batch,
        more: &'a mut dyn FnMut(&mut Batch) -> Result<bool>,
        chunk_bytes: usize,
        started: bool,
        done: bool,
    },
}

impl Source<'_> {
    /// Whether the first batch is empty (a stream only starts from a non-empty one).
    fn is_empty(&self) -> bool {
        match self {
            Source::Once { batch, .. } => batch.is_empty(),
            Source::Stream { batch, .. } => batch.is_empty(),
        }
    }

    /// The next chunk of whole lines, or None when everything was handed out.
    fn next(&mut self) -> Result<Option<&[u8]>> {
        match self {
            Source::Once { batch, sent } => {
                let first = !*sent;
                *sent = true;
                Ok(first.then_some(batch.bytes()))
            }
            Source::Stream {
                batch,
                more,
                chunk_bytes,
                started,
                done,
            } => {
                if *started {
                    batch.clear_bytes();
                }
                *started = true;
                while batch.buf.len() < *chunk_bytes && !*done {
                    *done = !more(batch)?;
                }
                Ok((!batch.buf.is_empty()).then_some(batch.buf.as_slice()))
            }
        }
    }

    /// Ids of every line handed out, in order.
    fn ids(&self) -> &[String] {
        match self {
            Source::Once { batch, .. } => batch.ids(),
            Source::Stream { batch, .. } => batch.ids(),
        }
    }
}

/// The checks, then the chunks, fsync, verification.
fn append(
    s: &Session,
    t: &Tree,
    p: &crate::projection::Projection,
    opts: &WriteOptions,
    write: &mut dyn FnMut(&mut File, &[u8]) -> std::io::Result<()>,
    src: &mut Source<'_>,
) -> Result<Written> {
    // Nothing to append: the file is not even opened.
    if src.is_empty() {
        return Ok(Written {
            bytes: 0,
            entries: 0,
        });
    }
    check_writable(s, t, p)?;
    let path = &s.path;
    let meta = std::fs::symlink_metadata(path)
        .with_context(|| format!("{}: cannot stat", path.display()))?;
    let meta = if meta.file_type().is_symlink() {
        std::fs::metadata(path).with_context(|| format!("{}: cannot stat", path.display()))?
    } else {
        meta
    };
    if !meta.is_file() {
        return Err(unsafe_fault(path, "not a regular file").into());
    }
    if meta.permissions().readonly() {
        return Err(unsafe_fault(path, "the file is not writable").into());
    }
    let mut file = OpenOptions::new()
        .append(true)
        .read(true)
        .open(path)
        .map_err(|e| unsafe_fault(path, format_args!("cannot open for appending: {e}")))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(unsafe_fault(
                path,
                "another pi-shake run holds the session's lock; retry when it is done",
            )
            .into());
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(unsafe_fault(path, format_args!("cannot lock: {e}")).into());
        }
    }
    if !opts.force {
        live_pi_check(s, t, &meta)?;
    }
    unchanged_since_read(s, &mut file)?;
    let mut hasher = crate::hash::StreamHasher::new();
    let mut total = 0u64;
    loop {
        let chunk = match src.next() {
            Ok(Some(c)) => c,
            Ok(None) => break,
            Err(e) if total == 0 => return Err(e),
            Err(e) => {
                return Err(Fault::new(
                    FaultKind::Unsafe,
                    format!(
                        "{}: the append stopped after {total} bytes ({e:#}); the file ends in complete lines and real pi reads it: the overlays the log lists but that were not written are ignored; run again",
                        path.display()
                    ),
                )
                .into());
            }
        };
        std::hash::Hasher::write(&mut hasher, chunk);
        total += chunk.len() as u64;
        write(&mut file, chunk).map_err(|e| {
            Fault::new(
                FaultKind::Unsafe,
                format!(
                    "{}: the write failed ({e}); the file may end in a partial line, which pi skips (pi-shake will refuse to write until it is completed)",
                    path.display()
                ),
            )
        })?;
    }
    file.sync_all()
        .with_context(|| format!("{}: fsync failed", path.display()))?;
    let ids = src.ids();
    verify_tail(path, s.size, total, std::hash::Hasher::finish(&hasher), ids)?;
    Ok(Written {
        bytes: total,
        entries: ids.len(),
    })
}

#[cfg(test)]
#[path = "writer_tests.rs"]
mod tests;
