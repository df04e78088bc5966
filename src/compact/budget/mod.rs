//! Budgeted compaction (issues 12 and 19): the summary is built to a size, and every part of it
//! is counted — the title, user/assistant keep-windows, pins, the carried previous summary, call
//! headers, cut markers and the tool-output lines themselves.
//!
//! **Features** ([`Extractor`]): while the region is read, each tool output is cut into units
//! (lines; lines over [`SEG_MAX`] chars into segments of about [`SEG`] chars, cut between tokens) and every unit records its
//! UTF-16 length and the hashes of its *distinctive strings* (≥ 8 chars with a digit, `_`, `.`,
//! `/`, `:` or camelCase: paths, identifiers, versions, error lines). The text itself can then
//! be dropped: rendering re-reads only the outputs that keep lines, so memory stays a fraction
//! of the file.
//!
//! **Value** (`heuristic-v3`): a string is worth `class × relatedness × repetition`, where
//! `class` favours paths and file names over identifiers over bare numbers, hashes and
//! timestamps; `relatedness` grows with the share of its word pieces seen in the kept part and
//! the latest prompts (what the agent is doing now); `repetition` grows slowly with the number
//! of outputs holding it. A string already present in the kept part, the region's user text,
//! the pins or the carried summary is worth nothing: the summary already has it — except a
//! string of an edit's or write's new text, which the summary shows only where its lines win a
//! place ([`WRITTEN_WORTH`] of its class, in that text and in any output). The assistant's text,
//! which the levels cut to narrow windows or leave out, covers nothing. A line holding two
//! or more words of the focus (the kept part's last user message and the `/compact`
//! instructions) is worth more the more of them it holds: "change the mesh layer anomaly
//! function" picks out `def mesh_layer_anomaly(…)`. A unit is worth the sum over its strings
//! not yet covered, times its pair's factor (superseded by a later identical call or a later
//! write; an error resolved later; tool kind — a `read` of a file on disk is cheap to redo, a
//! web search is not; a file the session goes on to edit; a file the user's words name; an
//! external scorer's `useful`, when one answered), plus a small base (error-looking lines
//! more).
//!
//! **Selection** ([`select`]): greedy on value per UTF-16 char, where a unit's cost is its
//! length plus its call's header when the call has no kept line yet plus a cut marker when no
//! neighbouring unit is kept. A selected string covers every other copy, and a pair's units
//! are worth `(1 + V)^-0.15` of their value once it gave value `V` ([`PAIR_DECAY`]: later turns
//! use a few things from many outputs more often than many things from one; faster under
//! budgets above 10% of the region, `crate::compact::fit::weights`). Both keep the
//! objective submodular, so greedy is within (1 − 1/e) of the optimum for a fixed cost. It
//! runs lazily on one queue per pair and a main queue of pairs, and picks exactly what a greedy
//! re-valuing every unit at every step would (tested). The caller checks the rendered size and
//! corrects the line budget until the summary is within 5% under its budget.

use std::collections::HashMap;

use serde::Serialize;

/// The share of its class a string of an edit's or write's new text is worth, in that text
/// and in any output. Its pin shows the text (or heads of it) only at the richer levels, so
/// the string is not taken as held by the summary (as it was until the eleventh round); at
/// full worth it crowds out output lines the summary also needs. Chosen on the real sessions'
/// curve counting both the facts of the outputs and the strings of the region's prose the
/// later turns use (`benches/quality/README.md`, eleventh round): 0 / 0.25 / 0.5 / 1 kept
/// 1,186 / 1,268 / 1,275 / 1,278 of 1,440 at 30%, 333 / 368 / 368 / 368 of 520 at 10%, 244 /
/// 263 / 273 / 275 at 5%, 119 / 119 / 107 / 104 of 920 at pi's summary size, the outputs'
/// own facts falling with it (at 5%: 192 / 191 / 189 / 187 of 312).
pub const WRITTEN_WORTH: f32 = 0.25;

/// Lines longer than this many chars are cut into segments.
pub const SEG_MAX: usize = 320;
/// Segment length (chars) for long lines.
pub const SEG: usize = 200;
/// Extra chars a segment may take to end between tokens.
pub const SEG_SLACK: usize = 100;
/// Chars a cut marker costs, about (`[… 1,234 lines cut …]` and its newline).
pub const MARKER_COST: f64 = 24.0;
/// Plain lines merged into one unit: at most this many extra lines and this many chars.
const MERGE_LINES: u8 = 7;
const MERGE_CHARS: usize = 240;
/// Query words counted per unit, at most.
const MAX_QUERY: usize = 6;
/// Minimum length of a distinctive string.
pub const MIN_STR: usize = 8;

/// Unit flags.
pub const F_ERR: u8 = 1;
pub const F_LINE_START: u8 = 2;
pub const F_LINE_END: u8 = 4;
/// A segment of a long line with few spaces: minified code, base64 (not a one-line JSON
/// document).
pub const F_DENSE: u8 = 8;
/// Lines of at least this many chars with spaces under [`DENSE_SPACES`] of them are dense.
pub const DENSE_MIN: usize = 1000;
pub const DENSE_SPACES: f64 = 0.05;

/// One unit of an output: a line or a segment of a long line. 16 bytes (the units are the
/// largest part of a big compaction's memory): the line number and string count share a word,
/// the byte and UTF-16 lengths, flags and merged-line count another.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Unit {
    /// Line number (low 24 bits, [`MAX_UNIT_LINE`] at most) and string count (high 8 bits).
    line_sn: u32,
    /// Byte offset in the output.
    pub b0: u32,
    /// Start of its string ids in [`OutFeat::strs`].
    pub s0: u32,
    /// Byte length (11 bits), UTF-16 length (11 bits), flags (4 bits), further lines (3 bits).
    packed: u32,
}

/// Units exist for lines below this one (an output's later lines are never kept; the
/// markers still count them from [`OutFeat::lines`]).
pub const MAX_UNIT_LINE: u32 = (1 << 24) - 1;
/// A unit's byte and UTF-16 lengths stay below this (a unit is at most [`SEG_MAX`] chars of up
/// to 4 bytes, or merged plain lines of under [`MERGE_CHARS`] UTF-16 units).
const LEN_LIMIT: usize = 1 << 11;
const _: () = assert!(SEG_MAX * 4 < LEN_LIMIT && MERGE_CHARS * 3 < LEN_LIMIT);
const _: () = assert!(std::mem::size_of::<Unit>() == 16);

impl Unit {
    /// A unit of `blen` bytes and `u16` UTF-16 units (both under 2,048) at `line`.
    pub fn new(line: u32, b0: u32, blen: usize, u16: usize, s0: u32, sn: u8, flags: u8) -> Unit {
        debug_assert!(line <= MAX_UNIT_LINE && blen < LEN_LIMIT && u16 < LEN_LIMIT);
        Unit {
            line_sn: (line & MAX_UNIT_LINE) | (u32::from(sn) << 24),
            b0,
            s0,
            packed: (blen as u32 & 0x7ff)
                | ((u16 as u32 & 0x7ff) << 11)
                | (u32::from(flags & 15) << 22),
        }
    }
    /// 0-based line number.
    pub fn line(&self) -> u32 {
        self.line_sn & MAX_UNIT_LINE
    }
    /// Its string ids (at most 255).
    pub fn sn(&self) -> u8 {
        (self.line_sn >> 24) as u8
    }
    /// Byte length.
    pub fn blen(&self) -> u32 {
        self.packed & 0x7ff
    }
    /// UTF-16 length.
    pub fn u16(&self) -> u32 {
        (self.packed >> 11) & 0x7ff
    }
    /// `F_*` flags.
    pub fn flags(&self) -> u8 {
        ((self.packed >> 22) & 15) as u8
    }
    /// Further whole lines it spans (plain lines are merged into small runs).
    pub fn nl(&self) -> u8 {
        ((self.packed >> 26) & 7) as u8
    }
    /// Take in the next line: `bytes` more bytes and `u16` more UTF-16 units (newline
    /// included).
    fn grow(&mut self, bytes: usize, u16: usize) {
        let blen = self.blen() as usize + bytes;
        let u = self.u16() as usize + u16;
        let nl = u32::from(self.nl()) + 1;
        debug_assert!(blen < LEN_LIMIT && u < LEN_LIMIT && nl < 8);
        self.packed = (blen as u32 & 0x7ff)
            | ((u as u32 & 0x7ff) << 11)
            | (u32::from(self.flags()) << 22)
            | ((nl & 7) << 26);
    }
    /// Its last line.
    pub fn end_line(&self) -> u32 {
        self.line() + u32::from(self.nl())
    }
    /// End byte offset.
    pub fn b1(&self) -> u32 {
        self.b0 + self.blen()
    }
    /// The range of its string ids in [`OutFeat::strs`].
    pub fn strs(&self) -> std::ops::Range<usize> {
        self.s0 as usize..self.s0 as usize + usize::from(self.sn())
    }
}

/// The features of one tool output.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutFeat {
    /// Chars (Unicode scalar values) and UTF-16 units of the whole output.
    pub chars: usize,
    pub u16: usize,
    pub lines: u32,
    pub units: Vec<Unit>,
    /// String ids (indexes into [`Extractor::table`]).
    pub strs: StrIds,
    /// Longest run of backticks (for the fence).
    pub ticks: u32,
    /// Estimated request tokens of its question windows (set by the reader in lite mode).
    pub win_tokens: u64,
}

/// What the value model knows about a distinctive string (8 bytes: the table is the largest
/// structure of a big compaction).
#[derive(Clone, Copy, Debug, Default)]
pub struct StrInfo {
    /// Class weight × 100 ([`class_of`]).
    class: u8,
    /// Relatedness to the kept part and the latest prompts, × 255; for a query word, 255 when
    /// it is a word of the focus (the latest prompt) and 0 otherwise.
    rel: u8,
    /// Outputs holding it (saturating).
    df: u16,
    /// The last output (feature index + 1) that counted it in `df`.
    last: u32,
}

impl StrInfo {
    /// A string of class weight `class` and relatedness `rel`.
    pub fn new(class: f32, rel: f32) -> StrInfo {
        StrInfo {
            class: (class * 100.0).round().clamp(0.0, 255.0) as u8,
            rel: (rel * 255.0).round().clamp(0.0, 255.0) as u8,
            df: 0,
            last: 0,
        }
    }
    /// Scale its class weight by `k` (a string the summary may hold elsewhere).
    pub fn scale_class(&mut self, k: f32) {
        if self.class == QUERY_CLASS {
            return;
        }
        self.class = (f32::from(self.class) * k).round().clamp(0.0, 255.0) as u8;
    }
    /// Class weight.
    pub fn class(&self) -> f32 {
        f32::from(self.class) / 100.0
    }
    /// Relatedness in [0, 1].
    pub fn rel(&self) -> f32 {
        f32::from(self.rel) / 255.0
    }
    /// Outputs holding it.
    pub fn df(&self) -> u32 {
        u32::from(self.df)
    }
    /// Whether it is a query word of the focus (the latest prompt).
    pub fn is_focus(&self) -> bool {
        self.class == QUERY_CLASS && self.rel > 0
    }
}

/// Strings below this class weight (timestamps, dates) are not tracked: never worth a line.
pub const MIN_CLASS: f32 = 0.2;

/// Words that make a line look like an error (case-insensitive).
const ERR_WORDS: &[&str] = &[
    "error",
    "fail",
    "panic",
    "exception",
    "traceback",
    "fatal",
    "denied",
    "not found",
    "undefined",
    // Test runners' and linters' failure marks (`⨯ it_renders 59.15 s`, `✕ parses dates`).
    "✗",
    "✕",
    "✖",
    "✘",
    "⨯",
    "❌",
];

/// One automaton for [`ERR_WORDS`] (a line is searched once, not once per word).
fn err_words() -> Option<&'static aho_corasick::AhoCorasick> {
    static AC: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>> = std::sync::OnceLock::new();
    AC.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(ERR_WORDS)
            .ok()
    })
    .as_ref()
}

/// Builds output features and the string table.
#[derive(Default, Debug)]
pub struct Extractor {
    /// Hash → id while extracting.
    pub ids: HashMap<u64, u32, rustc_hash::FxBuildHasher>,
    /// Id → what the value model knows.
    pub table: Vec<StrInfo>,
    pub vocab: Vocab,
    outputs: u32,
    /// While reading text that is not an output ([`Self::features_of_prose`]): `df` untouched.
    prose: bool,
}

impl Extractor {
    /// An extractor relating strings to `vocab`.
    pub fn new(vocab: Vocab) -> Extractor {
        Extractor {
            vocab,
            ..Default::default()
        }
    }

    /// Features of text that competes like an output but is not one (a command's lines): its
    /// strings are not counted in `df` (outputs holding them).
    pub fn features_of_prose(&mut self, text: &str) -> OutFeat {
        self.prose = true;
        let f = self.features(text);
        self.prose = false;
        f
    }

    /// Features of one output (counted in the strings' `df`).
    pub fn features(&mut self, text: &str) -> OutFeat {
        self.outputs += 1;
        let tag = self.outputs;
        let mut f = OutFeat {
            chars: 0,
            u16: crate::jscompat::utf16_len(text),
            ..Default::default()
        };
        let mut run = 0u32;
        for c in text.bytes() {
            if c == b'`' {
                run += 1;
                f.ticks = f.ticks.max(run);
            } else {
                run = 0;
            }
        }
        let mut off = 0usize;
        let mut buf = String::new();
        let mut hs: Vec<u64> = Vec::new();
        // A line's unit bounds (byte offsets), reused from line to line.
        let mut cuts: Vec<usize> = Vec::new();
        for (ln, line) in text.split('\n').enumerate() {
            let n = line.chars().count();
            f.chars += n + 1;
            let line_err = n <= SEG_MAX && err_words().is_some_and(|a| a.is_match(line));
            cuts.clear();
            cuts.push(0);
            // (A JSON document on one line is not: its ids and URLs are what a session reuses.)
            let dense = n >= DENSE_MIN
                && !line.trim_start().starts_with(['{', '['])
                && (line.bytes().filter(|&b| b == b' ').count() as f64) < n as f64 * DENSE_SPACES;
            if n > SEG_MAX {
                // Segments of about SEG chars, cut between tokens where one ends within
                // SEG_SLACK more chars (a distinctive string stays whole), else at SEG + SEG_SLACK.
                let mut since = 0usize;
                for (b, c) in line.char_indices() {
                    if since >= SEG
                        && (!c.is_ascii() || !is_tok(c as u8) || since >= SEG + SEG_SLACK)
                    {
                        cuts.push(b);
                        since = 0;
                    }
                    since += 1;
                }
            }
            cuts.push(line.len());
            for w in cuts.windows(2) {
                let (a, z) = (w[0], w[1]);
                let seg = &line[a..z];
                let s0 = f.strs.len() as u32;
                for s in distinctive(seg) {
                    let h = hash_str(s);
                    let id = match self.ids.get(&h) {
                        Some(&id) => id,
                        None => {
                            let class = class_of(s);
                            if class < MIN_CLASS {
                                continue;
                            }
                            let id = self.table.len() as u32;
                            self.table.push(StrInfo::new(class, self.vocab.rel(s)));
                            self.ids.insert(h, id);
                            id
                        }
                    };
                    let info = &mut self.table[id as usize];
                    if info.last != tag && !self.prose {
                        info.last = tag;
                        info.df = info.df.saturating_add(1);
                    }
                    // A unit lists each string once (its worth counts it once anyway).
                    if !f.strs.ids_from(s0 as usize).any(|x| x == id) {
                        f.strs.push(id);
                    }
                }
                // Words of what the agent is doing now, found in this line.
                let q0 = f.strs.len();
                for w in seg.split(|c: char| !c.is_alphanumeric()) {
                    if f.strs.len() - q0 >= MAX_QUERY || w.len() < 4 {
                        continue;
                    }
                    hs.clear();
                    query_pieces(w, &mut buf, |t| {
                        let h = query_hash(t);
                        if self.vocab.is_query(h) {
                            hs.push(h);
                        }
                    });
                    for &h in &hs {
                        let id = *self.ids.entry(h).or_insert_with(|| {
                            self.table.push(StrInfo {
                                class: QUERY_CLASS,
                                rel: if self.vocab.is_focus(h) { 255 } else { 0 },
                                ..Default::default()
                            });
                            self.table.len() as u32 - 1
                        });
                        if f.strs.ids_from(q0).any(|x| x == id) {
                            continue;
                        }
                        let info = &mut self.table[id as usize];
                        if info.last != tag && !self.prose {
                            info.last = tag;
                            info.df = info.df.saturating_add(1);
                        }
                        f.strs.push(id);
                    }
                }
                // Error words mark the segment that holds them, not every segment of the line.
                let err = line_err || (n > SEG_MAX && err_words().is_some_and(|a| a.is_match(seg)));
                let mut flags = if err { F_ERR } else { 0 };
                if dense {
                    flags |= F_DENSE;
                }
                if a == 0 {
                    flags |= F_LINE_START;
                }
                if z == line.len() {
                    flags |= F_LINE_END;
                }
                let sn = (f.strs.len() as u32 - s0).min(u32::from(u8::MAX)) as u8;
                if ln as u32 > MAX_UNIT_LINE {
                    // Never kept; its strings still count in `df`.
                    f.strs.truncate(s0 as usize);
                    continue;
                }
                let u16 = crate::jscompat::utf16_len(seg);
                let whole = F_LINE_START | F_LINE_END;
                // A plain whole line joins a preceding run of plain whole lines (fewer units).
                if let Some(prev) = f.units.last_mut()
                    && sn == 0
                    && flags == whole
                    && prev.sn() == 0
                    && prev.flags() == whole
                    && prev.end_line() + 1 == ln as u32
                    && prev.nl() < MERGE_LINES
                    && prev.u16() as usize + u16 < MERGE_CHARS
                {
                    prev.grow(1 + (z - a), 1 + u16);
                    continue;
                }
                f.units.push(Unit::new(
                    ln as u32,
                    (off + a) as u32,
                    z - a,
                    u16,
                    s0,
                    sn,
                    flags,
                ));
            }
            off += line.len() + 1;
            f.lines = ln as u32 + 1;
        }
        f.chars = f.chars.saturating_sub(1);
        f.units.shrink_to_fit();
        f.strs.shrink_to_fit();
        f
    }
}

/// A budget as resolved from flags, settings and the default.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetSpec {
    /// Target share of the region (0 < r ≤ 1), if any.
    pub target_ratio: Option<f64>,
    /// Cap in tokens, if any.
    pub max_summary_tokens: Option<u64>,
    /// Where it came from: `flag`, `settings`, `default`.
    pub source: String,
}

impl BudgetSpec {
    /// The budget in tokens for a region of `region` tokens.
    pub fn tokens(&self, region: u64) -> u64 {
        let mut b = region;
        if let Some(r) = self.target_ratio {
            b = b.min((region as f64 * r).floor() as u64);
        }
        if let Some(m) = self.max_summary_tokens {
            b = b.min(m);
        }
        b
    }
}

/// How a budgeted plan came out (`budget` in reports and `details`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetReport {
    pub target_ratio: Option<f64>,
    pub max_summary_tokens: Option<u64>,
    pub source: String,
    /// The budget in tokens.
    pub tokens: u64,
    /// The summary's tokens, and its share of the region.
    pub achieved: u64,
    pub achieved_ratio: f64,
    /// Tool-output lines kept, of those in the scored outputs.
    pub lines_kept: usize,
    pub lines_total: usize,
    /// Lines of the carried previous summary kept, of its lines (when there is one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carried_lines: Option<[usize; 2]>,
    /// Lines of multi-line commands' rests kept, of their lines (when the region has any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command_lines: Option<[usize; 2]>,
    /// Lines kept of the outputs outside the pairs (shell commands the user ran, tool results
    /// whose call is not in the region), of their lines (when the region has any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_output_lines: Option<[usize; 2]>,
    /// Those outputs one by one, in session order (when the region has any).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_outputs: Vec<OtherOutput>,
    /// The shrink steps applied to fit (in order), empty when nothing had to shrink.
    pub shrunk: Vec<String>,
}

/// An output outside the pairs under a budget (`budget.otherOutputs`): what the selection kept
/// of it and why its lines were worth what they were.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OtherOutput {
    /// Its entry's id, as its header names it (`pi-shake recall` reads it whole).
    pub entry_id: String,
    /// `command` (a shell command the user ran with `!`) or `result` (a tool result whose call
    /// is not in the region).
    pub kind: &'static str,
    /// `[kept, total]` lines.
    pub lines: [usize; 2],
    /// The factor on its strings' worth (3 decimals) and the reasons for it (`superseded`: the
    /// command ran again later and succeeded).
    pub factor: f64,
    pub why: Vec<&'static str>,
}

mod ids;
mod lines;
mod select;
mod words;
pub use ids::*;
pub use lines::*;
pub use select::*;
pub use words::*;

#[cfg(test)]
mod tests;
