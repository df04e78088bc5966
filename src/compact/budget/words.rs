//! What counts as a string or a word: a tool output's *distinctive strings* ([`distinctive`]:
//! ≥ 8 chars with a digit, `_`, `.`, `/`, `:` or camelCase) and their class weights
//! ([`class_of`]); word pieces and query words, and the kept part's vocabulary of them
//! ([`Vocab`]: relatedness, what the agent is doing now, the focus of the latest prompt).

use std::collections::HashSet;

use xxhash_rust::xxh3::xxh3_64;

use super::MIN_STR;
pub(super) fn is_tok(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b':' | b'-' | b'@')
}

fn trim_tok(s: &[u8]) -> &[u8] {
    let edge = |b: &u8| matches!(b, b'.' | b':' | b'-' | b'/' | b'@');
    let mut a = 0;
    let mut z = s.len();
    while a < z && edge(&s[a]) {
        a += 1;
    }
    while z > a && edge(&s[z - 1]) {
        z -= 1;
    }
    &s[a..z]
}

/// Whether `s` (a token, already trimmed) is a distinctive string.
pub fn is_distinctive(s: &[u8]) -> bool {
    if s.len() < MIN_STR {
        return false;
    }
    let mut prev_lower = false;
    for &b in s {
        if b.is_ascii_digit() || matches!(b, b'_' | b'.' | b'/' | b':') {
            return true;
        }
        if b.is_ascii_uppercase() && prev_lower {
            return true;
        }
        prev_lower = b.is_ascii_lowercase();
    }
    false
}

/// Distinctive strings of `text`, in order (with repeats).
pub fn distinctive(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            while i < b.len() && !is_tok(b[i]) {
                i += 1;
            }
            let a = i;
            while i < b.len() && is_tok(b[i]) {
                i += 1;
            }
            let t = trim_tok(&b[a..i]);
            if is_distinctive(t) {
                // ASCII only, so always a str boundary.
                return std::str::from_utf8(t).ok();
            }
        }
        None
    })
}

/// The hash of a distinctive string.
pub fn hash_str(s: &str) -> u64 {
    xxh3_64(s.as_bytes())
}

/// Class weight of a string: camelCase identifiers 1.3, file names 1.2, paths, URLs, short hex
/// ids and other identifiers 1.0, number-heavy strings 0.6, bare numbers 0.4, longer hashes
/// 0.35, timestamps 0.15. Measured on the tuning sessions (README "Compaction quality"): of the
/// region's strings the later turns used, camelCase identifiers were 1.7× as likely as the
/// average string, paths 0.3× (listings hold many, the session goes on to use few).
pub fn class_of(s: &str) -> f32 {
    let b = s.as_bytes();
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    let hex = b.iter().all(|c| c.is_ascii_hexdigit() || *c == b'-');
    // Timestamps and dates: 2025-12-17T19:39:17.548Z, 19:39:17, 2025-12-17.
    if digits * 2 >= b.len() && (s.contains(':') || s.matches('-').count() >= 2) {
        return 0.15;
    }
    // Short hex ids (7–16 chars: abbreviated commits, container and image ids) are ids a later
    // turn retypes (`git show a5cc182d602a`). The real sessions hold too few hex strings to
    // measure (18 in all), so this rests on the needle generators (sixteenth round).
    if hex && digits > 0 && letters > 0 && !s.contains('-') && (7..=16).contains(&b.len()) {
        return 1.0;
    }
    if hex && digits > 0 && b.len() >= 12 {
        return 0.35;
    }
    if letters == 0 {
        return 0.4;
    }
    if s.starts_with("http") {
        return 1.0;
    }
    if s.contains('/') {
        return 1.0;
    }
    let has_ext = s.rsplit_once('.').is_some_and(|(a, e)| {
        !a.is_empty() && (1..=5).contains(&e.len()) && e.bytes().all(|c| c.is_ascii_lowercase())
    });
    if has_ext {
        return 1.2;
    }
    if digits * 3 > b.len() {
        return 0.6;
    }
    // A camelCase identifier (no dots: not a member access or a file name).
    if !s.contains('.')
        && b.windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
    {
        return 1.3;
    }
    1.0
}

/// Lowercase alphanumeric word pieces (≥ 3 chars) of `s`, camelCase split.
fn pieces(s: &str, mut f: impl FnMut(u64)) {
    let mut cur = String::new();
    let mut prev_lower = false;
    let mut flush = |cur: &mut String| {
        if cur.len() >= 3 {
            f(xxh3_64(cur.as_bytes()));
        }
        cur.clear();
    };
    for c in s.chars() {
        if !c.is_alphanumeric() {
            flush(&mut cur);
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            flush(&mut cur);
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    flush(&mut cur);
}

const QUERY_STOP: &[&str] = &[
    "this", "that", "with", "from", "have", "will", "would", "there", "their", "what", "about",
    "which", "when", "make", "like", "into", "than", "then", "them", "these", "some", "could",
    "other", "only", "also", "just", "more", "should", "does", "done", "here", "file", "files",
    "true", "false", "null", "none", "your", "need", "let's", "lets", "okay", "look", "check",
    "want", "were", "been", "being", "they", "each", "line", "lines", "text", "type", "using",
];

/// Query pieces of a word: lowercase, camelCase split, ≥ 4 chars, no stop words, a plural
/// `s` dropped.
pub(super) fn query_pieces(w: &str, cur: &mut String, mut f: impl FnMut(&str)) {
    cur.clear();
    let mut prev_lower = false;
    let flush = |cur: &mut String, f: &mut dyn FnMut(&str)| {
        let t = cur
            .strip_suffix('s')
            .filter(|t| t.len() >= 4)
            .unwrap_or(cur);
        if t.len() >= 4 && !t.bytes().all(|b| b.is_ascii_digit()) {
            f(t);
        }
        cur.clear();
    };
    for c in w.chars() {
        if !c.is_alphanumeric() {
            flush(cur, &mut f);
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            flush(cur, &mut f);
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        if c.is_ascii() {
            cur.push(c.to_ascii_lowercase());
        } else {
            cur.extend(c.to_lowercase());
        }
    }
    flush(cur, &mut f);
}

/// The salted hash of a query piece.
pub(super) fn query_hash(t: &str) -> u64 {
    xxh3_64(t.as_bytes()) ^ QUERY_SALT
}

/// Query pieces live in the string table under salted hashes.
const QUERY_SALT: u64 = 0x9e37_79b9_7f4a_7c15;
/// The class byte of a query piece.
pub(super) const QUERY_CLASS: u8 = 255;

/// A set of string hashes: the keys are xxh3 hashes already, so a multiply (Fx) spreads them
/// as well as SipHash at a fraction of the cost.
type IdSet = HashSet<u64, rustc_hash::FxBuildHasher>;

/// Word-piece vocabulary of the kept part (for relatedness), the query words of what the
/// agent is doing now (the kept part's prompts, answers and call arguments), and the focus: the
/// query words of the latest prompt (the kept part's last user message and `/compact`
/// instructions), whose co-occurrence in one line marks the line the prompt talks about.
#[derive(Default, Debug)]
pub struct Vocab(IdSet, IdSet, IdSet);

impl Vocab {
    /// Add a text's pieces.
    pub fn add(&mut self, text: &str) {
        for w in text.split(|c: char| c.is_whitespace()) {
            pieces(w, |h| {
                self.0.insert(h);
            });
        }
    }
    /// Add a text's query words (pieces of ≥ 4 chars, stop words left out).
    pub fn add_query(&mut self, text: &str) {
        self.query_words(text, false);
    }
    /// Add a text's query words as words of the focus too.
    pub fn add_focus(&mut self, text: &str) {
        self.query_words(text, true);
    }
    fn query_words(&mut self, text: &str, focus: bool) {
        let mut buf = String::new();
        for w in text.split(|c: char| !c.is_alphanumeric()) {
            if w.chars().count() < 4 {
                continue;
            }
            query_pieces(w, &mut buf, |t| {
                if !QUERY_STOP.contains(&t) {
                    self.1.insert(query_hash(t));
                    if focus {
                        self.2.insert(query_hash(t));
                    }
                }
            });
        }
    }
    /// Whether `word` (one query piece, lowercase) is a query word, and a word of the focus.
    #[cfg(test)]
    pub fn query_and_focus(&self, word: &str) -> (bool, bool) {
        let h = query_hash(word);
        (self.1.contains(&h), self.2.contains(&h))
    }
    /// Whether `h` (a [`query_hash`]) is a query word.
    pub(super) fn is_query(&self, h: u64) -> bool {
        self.1.contains(&h)
    }
    /// Whether `h` (a [`query_hash`]) is a word of the focus.
    pub(super) fn is_focus(&self, h: u64) -> bool {
        self.2.contains(&h)
    }
    /// Share of `s`'s pieces in the vocabulary.
    pub fn rel(&self, s: &str) -> f32 {
        let (mut n, mut hit) = (0u32, 0u32);
        pieces(s, |h| {
            n += 1;
            if self.0.contains(&h) {
                hit += 1;
            }
        });
        if n == 0 { 0.0 } else { hit as f32 / n as f32 }
    }
}
