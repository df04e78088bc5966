//! The carried previous summary, read into blocks whose lines compete for the budget with the
//! region's tool-output lines.
//!
//! A session compacted again carries the previous compaction's summary into the new one. When
//! that summary is pi-shake's own transcript it is mostly tool-output lines under their calls;
//! cutting it to a head and a tail would keep the oldest user messages and the nested earlier
//! history and lose every line in between. Instead the summary is read into **blocks** — a
//! block starts at a heading (`### User`, pi's `## Progress`) or at a call header (`**bash**
//! \`…\` …`); the first line (a title) leads — and each block's body is cut into units by the
//! same [`Extractor`] as the region's outputs, sharing its string table. In the selection
//! ([`super::budget::select`]) a block is one more candidate: its lines are valued like any
//! output's (class, relatedness, repetition; a string kept anywhere covers its other copies,
//! in the region or here), its header is paid once when it keeps a line. Kept lines stay under
//! their block's header in their order, a fenced body keeps its fence, and `[…]` marks cut
//! lines and left-out blocks.

use super::budget::{self, Candidate, Extractor, Marker, OutFeat};
use crate::jscompat::utf16_len;

/// One block of a carried summary.
#[derive(Clone, Debug)]
struct Block {
    /// Its first line (heading or call header; empty for the lines before the first one),
    /// kept whenever a line of the body is.
    header: String,
    /// The fence around its body (```` ``` ````…), when the body is one fenced run.
    fence: Option<String>,
    /// Its body lines (inside the fence, when fenced).
    body: String,
    feat: OutFeat,
}

/// A previous summary, read into blocks.
#[derive(Clone, Debug)]
pub struct Carried {
    text: String,
    /// Its first line (a title), kept whenever the summary is carried at all (capped at
    /// [`LEAD_MAX`] chars).
    lead: String,
    blocks: Vec<Block>,
}

/// The first line's cap, in chars.
const LEAD_MAX: usize = 240;

/// Whether a line starts a block: a markdown heading or a pi-shake call header.
fn is_header(line: &str) -> bool {
    line.starts_with('#') || (line.starts_with("**") && line.contains("** `"))
}

/// A fence line: three or more backticks, nothing else.
fn fence_of(line: &str) -> Option<&str> {
    let t = line.trim_end();
    (t.len() >= 3 && t.bytes().all(|b| b == b'`')).then_some(t)
}

impl Carried {
    /// Read `text` into blocks, their units' strings entered in `ex`'s table.
    pub fn read(text: &str, ex: &mut Extractor) -> Carried {
        let mut lines = text.split('\n');
        let lead = crate::text::cap_middle(lines.next().unwrap_or("").trim_end(), LEAD_MAX);
        // Lines before the first header form a block without one.
        let mut raw: Vec<(String, Vec<&str>)> = vec![(String::new(), Vec::new())];
        for line in lines {
            if is_header(line) {
                raw.push((line.to_string(), Vec::new()));
            } else if let Some((_, body)) = raw.last_mut() {
                body.push(line);
            }
        }
        if raw[0].1.iter().all(|l| l.trim().is_empty()) {
            raw.remove(0);
        }
        let blocks = raw
            .into_iter()
            .map(|(header, mut body)| {
                while body.last().is_some_and(|l| l.trim().is_empty()) {
                    body.pop();
                }
                // A fenced body: ``` … ``` around all of it.
                let fence = match (body.first().copied(), body.last().copied()) {
                    (Some(a), Some(z)) if body.len() >= 2 => fence_of(a)
                        .filter(|f| fence_of(z) == Some(*f))
                        .map(str::to_string),
                    _ => None,
                };
                let lines = if fence.is_some() {
                    &body[1..body.len() - 1]
                } else {
                    &body[..]
                };
                let body = lines.join("\n");
                let feat = ex.features(&body);
                Block {
                    header,
                    fence,
                    body,
                    feat,
                }
            })
            .collect();
        Carried {
            text: text.to_string(),
            lead,
            blocks,
        }
    }

    /// The summary as it is.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its blocks' features, in order (one selection candidate each).
    pub fn feats(&self) -> impl Iterator<Item = &OutFeat> {
        self.blocks.iter().map(|b| &b.feat)
    }

    /// One selection candidate per block: the header (with its fences) is what keeping a first
    /// line costs beyond the line.
    pub fn candidates(&self) -> impl Iterator<Item = Candidate> + '_ {
        self.blocks.iter().map(|b| Candidate {
            eligible: true,
            factor: 1.0,
            header: (utf16_len(&b.header)
                + if b.header.is_empty() { 2 } else { 3 }
                + b.fence.as_ref().map_or(0, |f| 2 * f.len() + 2)) as f64,
            open: false,
        })
    }

    /// The lead, then each block keeping units `sel[k]` under its header; `[…]` where blocks
    /// were left out.
    pub fn render(&self, sel: &[Vec<u32>]) -> String {
        let mut out = self.lead.clone();
        let mut skipped = false;
        let sep = |out: &mut String| {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
        };
        for (b, s) in self.blocks.iter().zip(sel) {
            if s.is_empty() {
                skipped = true;
                continue;
            }
            if std::mem::take(&mut skipped) && !out.ends_with("[…]") {
                sep(&mut out);
                out.push_str("[…]");
            }
            sep(&mut out);
            if !b.header.is_empty() {
                out.push_str(&b.header);
                out.push('\n');
            }
            let body = budget::render_lines(&b.body, &b.feat, s, Marker::Bare);
            match &b.fence {
                Some(f) => {
                    out.push_str(f);
                    out.push('\n');
                    out.push_str(&body);
                    out.push('\n');
                    out.push_str(f);
                }
                None => out.push_str(body.trim_end()),
            }
        }
        if skipped && !out.ends_with("[…]") {
            sep(&mut out);
            out.push_str("[…]");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::budget::{StrInfo, Weights, select};

    fn transcript() -> String {
        let mut s = String::from("# Session history before this point (pruned)\n\n");
        s.push_str("### User\n\nplease fix the parser\n\n");
        for i in 0..30 {
            s.push_str(&format!(
                "**bash** `ls dir{i}` (t{i}; 5 of 9 lines):\n```\n"
            ));
            for j in 0..5 {
                s.push_str(&format!("plain words {i} {j}\n"));
            }
            if i == 17 {
                s.push_str("src/parser/tokenize.rs:88 unexpected token\n");
            }
            if i == 5 {
                s.push_str("src/lexer/scan_chars.rs:12 bad char\n");
            }
            s.push_str("```\n\n");
        }
        s.push_str("### User\n\nthanks, now the lexer\n");
        s
    }

    /// `text` read and cut to `budget` chars of lines, strings of `covered_by` covered.
    fn cut(text: &str, budget: f64, covered_by: &str) -> String {
        let mut ex = Extractor::default();
        let c = Carried::read(text, &mut ex);
        let feats: Vec<Option<&OutFeat>> = c.feats().map(Some).collect();
        let cands: Vec<Candidate> = c.candidates().collect();
        let strings: &[StrInfo] = &ex.table;
        let mut covered = vec![false; strings.len()];
        for s in budget::distinctive(covered_by) {
            if let Some(&id) = ex.ids.get(&budget::hash_str(s)) {
                covered[id as usize] = true;
            }
        }
        let sel = select(
            &feats,
            &cands,
            strings,
            &covered,
            &Weights::default(),
            Marker::Bare,
            budget,
        );
        c.render(&sel)
    }

    #[test]
    fn every_line_selected_renders_the_summary_back() {
        let t = transcript();
        let out = cut(&t, 1e9, "");
        assert_eq!(out, t.trim_end());
    }

    #[test]
    fn the_valuable_line_stays_under_its_call_and_fence() {
        let t = transcript();
        let out = cut(&t, 225.0, "");
        assert!(out.starts_with("# Session history"), "{out}");
        for (line, header) in [
            ("src/parser/tokenize.rs:88", "**bash** `ls dir17`"),
            ("src/lexer/scan_chars.rs:12", "**bash** `ls dir5`"),
        ] {
            let at = out
                .find(line)
                .unwrap_or_else(|| panic!("{line} kept: {out}"));
            let h = out
                .find(header)
                .unwrap_or_else(|| panic!("{header} kept: {out}"));
            assert!(h < at && out[h..at].contains("```\n[…]\n"), "{out}");
        }
        assert!(!out.contains("plain words"), "{out}");
        assert!(out.contains("\n\n[…]\n\n"), "{out}");
        // Head and tail by position would have kept neither.
        let ht = crate::text::keep_window(&t, out.len(), out.len() / 2);
        assert!(
            !ht.contains("tokenize.rs") && !ht.contains("scan_chars.rs"),
            "{ht}"
        );
    }

    #[test]
    fn a_string_held_elsewhere_is_worth_nothing_here() {
        // Room for one of the two valuable lines: the one not held elsewhere wins.
        let t = transcript();
        let a = cut(&t, 120.0, "src/parser/tokenize.rs:88");
        assert!(
            a.contains("scan_chars.rs") && !a.contains("tokenize.rs"),
            "{a}"
        );
        let b = cut(&t, 120.0, "src/lexer/scan_chars.rs:12");
        assert!(
            b.contains("tokenize.rs") && !b.contains("scan_chars.rs"),
            "{b}"
        );
    }

    #[test]
    fn a_prose_summary_is_cut_by_section_lines() {
        let pi = "## Goal\nFix the parser.\n\n## Progress\n- read src/parser/mod.rs\n- ran tests\n\n## Next Steps\n- patch tokenize_all in src/parser/tokenize.rs";
        let out = cut(pi, 75.0, "");
        assert!(
            out.contains("## Next Steps\n") && out.contains("tokenize_all"),
            "{out}"
        );
        assert!(
            !out.contains("ran tests") && !out.contains("mod.rs"),
            "{out}"
        );
    }

    #[test]
    fn a_summary_without_headings_is_cut_too_and_its_first_line_capped() {
        let mut t = format!("{}\n", "t".repeat(1_000));
        for i in 0..200 {
            t.push_str(&format!("prose line {i} about things\n"));
        }
        t.push_str("the fix is in src/core/fix_point.rs\n");
        let out = cut(&t, 100.0, "");
        assert!(out.chars().count() < 400, "{}", out.chars().count());
        assert!(
            out.starts_with(&"t".repeat(100)) && out.contains('…'),
            "{out}"
        );
        assert!(out.contains("src/core/fix_point.rs"), "{out}");
    }
}
