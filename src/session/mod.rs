//! Stage 1: what a session file is, read the way pi 1.6's loader reads it.
//!
//! [`Session::open`] streams the file once in 1 MiB chunks, splits on `\n`, decodes each line
//! as UTF-8 with replacement (pi's `StringDecoder`), skips what pi skips (blank, malformed and
//! falsy lines) and keeps one compact [`Entry`] per kept line: ids, parents, role and the token
//! facts pi's estimator needs. Content is not retained; [`Session::read_value`] re-reads one
//! line when its bytes are needed. Every problem is recorded with its line number.
//!
//! While streaming, the reader also hashes every byte (`hash`) and, separately, the bytes from
//! [`TAIL_CHECK`] before the end (`tail_from`, `tail_hash`), and records the file's identity
//! (device, inode, mtime, ctime): the writer's "unchanged since read" check re-reads only that
//! tail (see [`crate::writer`]). The descriptor stays open so that re-reads come from the very
//! file that was indexed, with one positioned read each.
//!
//! Reading never writes. Writing lives in [`crate::writer`] alone.

pub mod entry;
mod intern;
pub mod measure;
pub mod parse;
pub mod raw;

use std::fs::File;
use std::hash::Hasher;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};

pub use entry::{Body, CompactionInfo, ContentStats, Entry, Header, Key, Msg, Replacement, Role};
use entry::{ParseMode, Parsed};

use crate::error::{Fault, FaultKind};

/// How serious a problem found while reading is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// pi tolerates it; reads and writes go on.
    Warning,
    /// pi reads the file, but appending to it would be unsafe (pi-shake refuses to write).
    Unsafe,
    /// pi would fail on this session (throws, hangs or misreads it).
    Error,
}

/// One problem found in a session, with the line it is on.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Problem {
    pub severity: Severity,
    /// A stable short code (`malformed-line`, `cycle`, …).
    pub code: &'static str,
    /// 1-based line number, when the problem sits on one line.
    pub line: Option<u32>,
    pub message: String,
}

/// How the file ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tail {
    /// The last byte is `\n` (or the file is empty).
    Newline,
    /// The last line is complete JSON but has no `\n` (pi appends one on open).
    Unterminated,
    /// The last line is cut off mid-JSON (pi may be writing it now).
    Torn,
}

/// Bytes at the end of the file whose hash the writer re-checks under its lock.
pub const TAIL_CHECK: u64 = 1 << 20;

/// What identifies the file that was read, besides its bytes (Unix: device, inode, and mtime /
/// ctime in nanoseconds, taken before the first byte was read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileIdentity {
    pub dev: u64,
    pub ino: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
}

impl FileIdentity {
    /// The identity of an open file (None where the platform does not expose one).
    pub fn of(meta: &std::fs::Metadata) -> Option<FileIdentity> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
            Some(FileIdentity {
                dev: meta.dev(),
                ino: meta.ino(),
                mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
                ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }
}

/// A session file, indexed.
#[derive(Debug)]
pub struct Session {
    pub path: PathBuf,
    /// File size in bytes when read.
    pub size: u64,
    /// Hash of every byte read.
    pub hash: u64,
    /// Offset from which `tail_hash` covers the bytes read (the last [`TAIL_CHECK`] bytes).
    pub tail_from: u64,
    /// Hash of the bytes read from `tail_from` to the end (re-checked by the writer).
    pub tail_hash: u64,
    /// The file's identity when it was opened (None: read from bytes, or not Unix).
    pub identity: Option<FileIdentity>,
    /// The descriptor the session was read from (re-reads use it; None: read from bytes).
    pub file: Option<File>,
    pub mtime: Option<SystemTime>,
    pub header: Header,
    /// Line of the header.
    pub header_line: u32,
    /// Kept non-header entries, in file order (pi's `getEntries()`).
    pub entries: Vec<Entry>,
    pub problems: Vec<Problem>,
    pub tail: Tail,
    /// Physical lines in the file.
    pub lines: u32,
    /// Lines that ended in `\r\n`.
    pub crlf_lines: u32,
}

/// The session `version` pi migrates from (None: current).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Legacy {
    /// No `version` or version 1: every id is regenerated on pi's next open.
    V1,
    /// Version 2: `hookMessage` becomes `custom`; the file is rewritten.
    V2,
    /// A `version` that is not a number (pi rewrites the file without changing entries).
    Odd,
}

impl Session {
    /// Read and index a session file.
    ///
    /// Errors (naming the file, and the line where there is one) when the file cannot be read,
    /// is not a regular file, or is not a pi session.
    pub fn open(path: &Path) -> Result<Session> {
        let meta = std::fs::metadata(path).map_err(|e| {
            Fault::new(
                FaultKind::BadSession,
                format!("{}: cannot read: {e}", path.display()),
            )
        })?;
        if !meta.is_file() {
            return Err(Fault::new(
                FaultKind::BadSession,
                format!("{}: not a regular file", path.display()),
            )
            .into());
        }
        let file = File::open(path).map_err(|e| {
            Fault::new(
                FaultKind::BadSession,
                format!("{}: cannot open: {e}", path.display()),
            )
        })?;
        // Identity and size of the opened file itself, before the first byte is read.
        let opened = file.metadata().unwrap_or(meta);
        let mut s = read_from(&file, path, opened.len())?;
        s.mtime = opened.modified().ok();
        s.identity = FileIdentity::of(&opened);
        s.file = Some(file);
        Ok(s)
    }

    /// Read a session from bytes (tests, fuzzing). `path` is only used in messages.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Session> {
        read_from(bytes, path, bytes.len() as u64)
    }

    /// The legacy version pi would migrate from, if any.
    pub fn legacy(&self) -> Option<Legacy> {
        match self.header.version {
            None => Some(Legacy::V1),
            Some(v) if v >= 3.0 => None,
            Some(v) if v < 2.0 => Some(Legacy::V1),
            Some(v) if v < 3.0 => Some(Legacy::V2),
            Some(_) => Some(Legacy::Odd),
        }
    }

    /// Re-read `len` bytes at `offset` from the file that was read (one positioned read on
    /// the descriptor kept open; a fresh open where there is none).
    pub fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        #[cfg(unix)]
        if let Some(f) = &self.file {
            use std::os::unix::fs::FileExt;
            f.read_exact_at(&mut buf, offset)?;
            return Ok(buf);
        }
        let mut f = File::open(&self.path)?;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(&mut buf)?;
        Ok(buf)
    }

    /// Re-read entry `idx`'s line as text (invalid UTF-8 decoded with replacement, as pi does).
    pub fn read_line(&self, idx: usize) -> Result<String> {
        let e = &self.entries[idx];
        let buf = self
            .read_at(e.offset, e.len as usize)
            .with_context(|| format!("{}:{}: cannot re-read line", self.path.display(), e.line))?;
        Ok(match String::from_utf8(buf) {
            Ok(t) => t,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// The JSON text of one field of entry `idx`, copied from the file: the content pi
    /// projects for it (`message.content`, or `content` of a custom message; `null`/missing → `[]`)
    /// or a `context_edit`'s `replacement`. Falls back to a lenient re-encode only for lines serde
    /// refuses (lone surrogates, duplicate keys, deep nesting).
    pub fn read_raw(&self, idx: usize, field: entry::RawField) -> Result<String> {
        let text = self.read_line(idx)?;
        entry::raw_field(&text, field).with_context(|| {
            format!(
                "{}:{}: line changed since it was read",
                self.path.display(),
                self.entries[idx].line
            )
        })
    }

    /// Re-read entry `idx`'s line and parse it as `JSON.parse` would (lenient surrogates).
    pub fn read_value(&self, idx: usize) -> Result<serde_json::Value> {
        self.parse_line(idx, &self.read_line(idx)?)
    }

    /// Parse `text`, entry `idx`'s line as [`Self::read_line`] returned it, as [`Self::read_value`]
    /// does (for a caller that looked at the raw line first).
    pub fn parse_line(&self, idx: usize, text: &str) -> Result<serde_json::Value> {
        let e = &self.entries[idx];
        let (v, _) = entry::parse_value(text).with_context(|| {
            format!(
                "{}:{}: line changed since it was read",
                self.path.display(),
                e.line
            )
        })?;
        Ok(v)
    }

    /// Whether any problem blocks writing.
    pub fn blocking_problems(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity >= Severity::Unsafe)
    }

    /// Count of entries by `type`, sorted by type name.
    pub fn counts_by_type(&self) -> Vec<(String, usize)> {
        let mut m = std::collections::BTreeMap::<&str, usize>::new();
        for e in &self.entries {
            let k = match e.body {
                Body::NonObject => "(non-object)",
                _ if e.ty.is_empty() => "(no type)",
                _ => &e.ty,
            };
            *m.entry(k).or_default() += 1;
        }
        m.into_iter().map(|(k, n)| (k.to_string(), n)).collect()
    }

    fn problem(
        &mut self,
        severity: Severity,
        code: &'static str,
        line: Option<u32>,
        message: String,
    ) {
        self.problems.push(Problem {
            severity,
            code,
            line,
            message,
        });
    }
}

/// Streaming line splitter + hasher over any reader. `expect_len` is the size the file had when
/// opened: the tail hash covers the bytes from [`TAIL_CHECK`] before it to the end.
fn read_from<R: Read>(mut r: R, path: &Path, expect_len: u64) -> Result<Session> {
    let mut hasher = crate::hash::StreamHasher::new();
    let mut tail_hasher = crate::hash::StreamHasher::new();
    let tail_from = expect_len.saturating_sub(TAIL_CHECK);
    let mut s = Session {
        path: path.to_path_buf(),
        size: 0,
        hash: 0,
        tail_from,
        tail_hash: 0,
        identity: None,
        file: None,
        mtime: None,
        header: Header::default(),
        header_line: 0,
        entries: Vec::new(),
        problems: Vec::new(),
        tail: Tail::Newline,
        lines: 0,
        crlf_lines: 0,
    };
    let mut st = LineState::default();
    let mut buf = vec![0u8; 1 << 20];
    let mut pending: Vec<u8> = Vec::new();
    let mut offset: u64 = 0; // offset of pending[0]
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Fault::new(
                    FaultKind::BadSession,
                    format!("{}: read failed: {e}", path.display()),
                )
                .into());
            }
        };
        let chunk = &buf[..n];
        hasher.write(chunk);
        let end = s.size + n as u64;
        if end > tail_from {
            let skip = tail_from.saturating_sub(s.size) as usize;
            tail_hasher.write(&chunk[skip..]);
        }
        s.size = end;
        let mut start = 0usize;
        // Complete the pending line first.
        if !pending.is_empty() {
            match memchr(b'\n', chunk) {
                Some(i) => {
                    pending.extend_from_slice(&chunk[..i]);
                    let line = std::mem::take(&mut pending);
                    st.feed(&mut s, &line, offset)?;
                    offset += line.len() as u64 + 1;
                    start = i + 1;
                }
                None => {
                    pending.extend_from_slice(chunk);
                    continue;
                }
            }
        }
        while let Some(i) = memchr(b'\n', &chunk[start..]) {
            let line = &chunk[start..start + i];
            st.feed(&mut s, line, offset)?;
            offset += i as u64 + 1;
            start += i + 1;
        }
        pending.extend_from_slice(&chunk[start..]);
    }
    s.hash = hasher.finish();
    s.tail_hash = tail_hasher.finish();
    if !pending.is_empty() {
        // The text after the last "\n": pi parses it and then appends "\n" to the file.
        let before = s.entries.len();
        let had_header = st.header_seen;
        let ok = st.feed(&mut s, &pending, offset)?;
        let torn = !ok.parsed;
        s.tail = if torn { Tail::Torn } else { Tail::Unterminated };
        let line = s.lines;
        if torn && !crate::jscompat::js_trim_is_empty(&String::from_utf8_lossy(&pending)) {
            s.problem(
                Severity::Unsafe,
                "torn-last-line",
                Some(line),
                format!(
                    "the last line is cut off ({} bytes, no newline): pi may be writing it right now",
                    pending.len()
                ),
            );
        } else if !torn {
            s.problem(
                Severity::Warning,
                "no-final-newline",
                Some(line),
                "the last line is complete but has no newline (pi appends one when it opens the file; so does pi-shake before its own lines)".into(),
            );
        }
        let _ = (before, had_header);
    }
    st.finish(&mut s)?;
    Ok(s)
}

/// State carried across lines while reading.
#[derive(Default)]
struct LineState {
    header_seen: bool,
    /// First parsed value seen (for header validation).
    first_value_seen: bool,
    mode: ParseMode,
    malformed: u32,
    first_malformed: Option<u32>,
    /// A line before the first value that pi skipped because it starts with a byte-order mark.
    bom_line: Option<u32>,
    repaired: u32,
    first_repaired: Option<u32>,
    invalid_utf8: u32,
    first_invalid_utf8: Option<u32>,
    non_object: u32,
    first_non_object: Option<u32>,
    falsy: u32,
    /// One copy of each repeated id and name.
    interner: intern::Interner,
}

struct Fed {
    /// The line parsed as JSON (kept, falsy, or a skipped later header).
    parsed: bool,
}

impl LineState {
    fn feed(&mut self, s: &mut Session, raw: &[u8], offset: u64) -> Result<Fed> {
        s.lines += 1;
        let line_no = s.lines;
        let raw = match raw.last() {
            Some(b'\r') => {
                s.crlf_lines += 1;
                raw
            }
            _ => raw,
        };
        let text: std::borrow::Cow<'_, str> = match std::str::from_utf8(raw) {
            Ok(t) => t.into(),
            Err(_) => {
                self.invalid_utf8 += 1;
                self.first_invalid_utf8.get_or_insert(line_no);
                String::from_utf8_lossy(raw)
            }
        };
        let len = u32::try_from(raw.len()).map_err(|_| {
            Fault::new(
                FaultKind::BadSession,
                format!("{}:{line_no}: line longer than 4 GiB", s.path.display()),
            )
        })?;
        match entry::parse_line(&text, line_no, offset, len, self.mode) {
            Parsed::Blank => Ok(Fed { parsed: true }),
            Parsed::Malformed(err) => {
                self.malformed += 1;
                if !self.first_value_seen && self.bom_line.is_none() && text.starts_with('\u{feff}')
                {
                    self.bom_line = Some(line_no);
                }
                if self.first_malformed.is_none() {
                    self.first_malformed = Some(line_no);
                    s.problem(
                        Severity::Warning,
                        "malformed-line",
                        Some(line_no),
                        format!("not valid JSON, skipped as pi skips it ({err})"),
                    );
                }
                Ok(Fed { parsed: false })
            }
            Parsed::Falsy => {
                self.falsy += 1;
                if !self.first_value_seen {
                    // pi skips falsy values entirely; they are not "the first parsed value".
                }
                Ok(Fed { parsed: true })
            }
            Parsed::Entry {
                entry,
                repaired,
                header,
            } => {
                if repaired {
                    self.repaired += 1;
                    self.first_repaired.get_or_insert(line_no);
                }
                if !self.first_value_seen {
                    self.first_value_seen = true;
                    match header {
                        Some(h) => {
                            self.header_seen = true;
                            s.header_line = line_no;
                            if h.version.is_none_or(|v| v < 3.0) {
                                self.mode.migrate_hook_role = true;
                            }
                            s.header = h;
                            return Ok(Fed { parsed: true });
                        }
                        None => {
                            return Err(Fault::new(
                                FaultKind::BadSession,
                                format!(
                                    "{}:{line_no}: not a pi session: the first JSON line must be a header \
                                     {{\"type\":\"session\",\"id\":\"…\"}} ({}){}",
                                    s.path.display(),
                                    describe_non_header(&text),
                                    skipped_before(self.bom_line, self.first_malformed)
                                ),
                            )
                            .into());
                        }
                    }
                }
                if &*entry.ty == "session" {
                    // pi keeps later headers out of its entry list and index.
                    s.problem(
                        Severity::Warning,
                        "second-header",
                        Some(line_no),
                        "a second session header; pi ignores it".into(),
                    );
                    return Ok(Fed { parsed: true });
                }
                if matches!(entry.body, Body::NonObject) {
                    self.non_object += 1;
                    self.first_non_object.get_or_insert(line_no);
                }
                let mut entry = entry;
                self.interner.entry(&mut entry);
                s.entries.push(entry);
                Ok(Fed { parsed: true })
            }
        }
    }

    fn finish(self, s: &mut Session) -> Result<()> {
        if !self.header_seen {
            let why = if s.size == 0 {
                "the file is empty (pi would write a fresh header into it)"
            } else if s.lines > 0 && self.malformed == 0 {
                "it holds no JSON lines"
            } else {
                "no line is a session header"
            };
            return Err(Fault::new(
                FaultKind::BadSession,
                format!(
                    "{}: not a pi session: {why}{}",
                    s.path.display(),
                    skipped_before(self.bom_line, self.first_malformed)
                ),
            )
            .into());
        }
        if self.malformed > 1 {
            s.problem(
                Severity::Warning,
                "malformed-lines",
                self.first_malformed,
                format!("{} lines are not valid JSON; pi skips them", self.malformed),
            );
        }
        if self.repaired > 0 {
            s.problem(
                Severity::Warning,
                "lone-surrogate",
                self.first_repaired,
                format!(
                    "{} line(s) hold lone UTF-16 surrogate escapes (read as U+FFFD, as length-preserving)",
                    self.repaired
                ),
            );
        }
        if self.invalid_utf8 > 0 {
            s.problem(
                Severity::Warning,
                "invalid-utf8",
                self.first_invalid_utf8,
                format!(
                    "{} line(s) hold invalid UTF-8 (decoded as U+FFFD, as pi does)",
                    self.invalid_utf8
                ),
            );
        }
        if self.non_object > 0 {
            s.problem(
                Severity::Warning,
                "non-object-line",
                self.first_non_object,
                format!(
                    "{} line(s) are JSON but not objects; pi keeps them as entries that project to nothing",
                    self.non_object
                ),
            );
        }
        if s.crlf_lines > 0 {
            s.problem(
                Severity::Warning,
                "crlf",
                None,
                format!("{} line(s) end in CRLF (harmless to pi)", s.crlf_lines),
            );
        }
        match s.legacy() {
            Some(Legacy::V1) => s.problem(
                Severity::Unsafe,
                "legacy-version",
                Some(s.header_line),
                format!(
                    "session version {}: pi will regenerate every entry id and rewrite the file when it \
                     next opens it; open and close the session in pi once, then run pi-shake again",
                    s.header.version_text.as_deref().unwrap_or("missing (1)")
                ),
            ),
            Some(Legacy::V2) => s.problem(
                Severity::Unsafe,
                "legacy-version",
                Some(s.header_line),
                "session version 2: pi migrates and rewrites the file when it next opens it; open \
                 the session in pi once, then run pi-shake again"
                    .into(),
            ),
            Some(Legacy::Odd) => s.problem(
                Severity::Unsafe,
                "legacy-version",
                Some(s.header_line),
                format!(
                    "session version {} is not a number: pi rewrites the file when it opens it",
                    s.header.version_text.as_deref().unwrap_or("?")
                ),
            ),
            None => {}
        }
        if s.header.version.is_some_and(|v| v > 3.0) {
            s.problem(
                Severity::Unsafe,
                "newer-version",
                Some(s.header_line),
                format!(
                    "session version {} was written by a newer pi; pi-shake 1.6-format entries might be misread there",
                    s.header.version_text.as_deref().unwrap_or("?")
                ),
            );
        }
        if s.legacy() == Some(Legacy::V1) {
            migrate_v1(s);
        }
        Ok(())
    }
}

/// pi's v1→v2 migration, in memory: fresh ids, a linear chain in file order, numeric
/// `firstKeptEntryIndex` resolved. Old `targetId` / `firstKeptEntryId` strings then match nothing,
/// exactly as they will in pi after it rewrites the file.
fn migrate_v1(s: &mut Session) {
    let new_id = |i: usize| Key(format!("\u{1}v1-{i}").into());
    // entries[index] in pi counts the header as 0 (index 0 = header).
    let n = s.entries.len();
    for i in 0..n {
        let first_kept_index = match &s.entries[i].body {
            Body::Compaction { info, .. } => info.first_kept_index,
            _ => None,
        };
        let e = &mut s.entries[i];
        e.id = Some(new_id(i));
        e.parent = if i == 0 { None } else { Some(new_id(i - 1)) };
        if let Body::Compaction { first_kept, .. } = &mut e.body
            && let Some(k) = first_kept_index
        {
            let k = k as usize;
            if k >= 1 && k - 1 < n {
                *first_kept = Some(new_id(k - 1));
            }
        }
    }
}

fn describe_non_header(text: &str) -> String {
    let t = text.trim_start();
    if t.starts_with('\u{feff}') {
        return "it starts with a UTF-8 byte-order mark, which pi cannot parse".into();
    }
    let head: String = t.chars().take(60).collect();
    format!("found `{head}`")
}

/// Why the header may have been missed: a line before the first value that pi skipped.
fn skipped_before(bom_line: Option<u32>, first_malformed: Option<u32>) -> String {
    match (bom_line, first_malformed) {
        (Some(n), _) => format!(
            "; line {n} starts with a UTF-8 byte-order mark, so pi skips it as not JSON \
             (save the file without the mark)"
        ),
        (None, Some(n)) => format!("; line {n} is not valid JSON and pi skips it"),
        (None, None) => String::new(),
    }
}

fn memchr(b: u8, hay: &[u8]) -> Option<usize> {
    memchr::memchr(b, hay)
}

#[cfg(test)]
mod tests;
