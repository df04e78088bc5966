//! pi-shake's own carried summary, read into blocks whose lines compete for the budget with the
//! region's tool-output lines ([`is_pi_shakes`]; another tool's summary is cut by position).
//!
//! A session compacted again carries the previous compaction's summary into the new one. When
//! that summary is pi-shake's own transcript it is mostly tool-output lines under their calls;
//! cutting it to a head and a tail would keep the oldest user messages and the nested earlier
//! history and lose every line in between. Instead the summary is read into **blocks** — a
//! block starts at a heading (`### User`) or at a call header (`**bash** \`…\` …`), a fenced
//! run stays one; the first line (the title) leads — and each block's body is cut into units by the
//! same [`Extractor`] as the region's outputs, sharing its string table. In the selection
//! ([`super::budget::select`]) a block is one more candidate: its lines are valued like any
//! output's (class, relatedness, repetition; a string kept anywhere covers its other copies,
//! in the region or here), its header is paid once when it keeps a line. Kept lines stay under
//! their block's header in their order, a fenced body keeps its fence, a line holding `…` marks
//! cut lines ([`Marker::Bare`]) and `[…]` left-out blocks.

use super::budget::{self, Candidate, Extractor, Marker, OutFeat};
use crate::jscompat::utf16_len;

/// One block of a carried summary.
#[derive(Clone, Debug)]
struct Block {
    /// Its first line (heading or call header; empty for the lines before the first one),
    /// kept whenever a line of the body is.
    header: String,
    /// The opening fence line of its body (```` ```rust ````…), when the body is one fenced run.
    fence: Option<String>,
    /// Its body lines (inside the fence, when fenced).
    body: String,
    feat: OutFeat,
    /// Its factor: [`CARRIED_FACTOR`], times the user-named gains ([`Carried::name_files`]).
    factor: f32,
}

/// A previous summary, read into blocks.
#[derive(Clone, Debug)]
pub struct Carried {
    /// Its first line (a title), kept whenever the summary is carried at all (capped at
    /// [`LEAD_MAX`] chars).
    lead: String,
    blocks: Vec<Block>,
}

/// The factor on the value of a carried transcript's lines: they already won a selection
/// once, from a larger pool. Chained benchmark (facts of 129 at 10% / 5%): 0.5 32 / 13, 0.7
/// 42 / 21, 1.0 57 / 28, **1.5 64 / 32**, 2.5 66 / 37 (where one chain at 10% already loses
/// a fact, 15 → 14 of 17); the second regions' own facts stay 2 of 11 throughout. Single
/// compactions carry no pi-shake transcript, so they do not change.
pub const CARRIED_FACTOR: f32 = 1.5;

/// Whether a summary is pi-shake's own transcript (its title, in either form). Only those
/// compete line by line: their lines are verbatim tool output and user text, which the value
/// model was built for; another tool's summary (pi's own LLM prose) is cut by position to a
/// share of the budget, as before.
pub fn is_pi_shakes(summary: &str) -> bool {
    summary.starts_with("# Session history before this point (pruned by pi-shake")
}

/// The first line's cap, in chars.
const LEAD_MAX: usize = 240;

/// Whether a line starts a block: a markdown heading or a pi-shake call header.
fn is_header(line: &str) -> bool {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    ((1..=6).contains(&hashes) && line[hashes..].starts_with(' '))
        || (line.starts_with("**") && line.contains("** `"))
}

/// A fence line's backticks: three or more, then at most an info string without backticks
/// (```` ```rust ````); a closing fence is its backticks alone.
fn fence_of(line: &str) -> Option<&str> {
    let t = line.trim_end();
    let n = t.bytes().take_while(|&b| b == b'`').count();
    (n >= 3 && !t[n..].contains('`')).then_some(&t[..n])
}

impl Carried {
    /// Read `text` into blocks, their units' strings entered in `ex`'s table.
    pub fn read<'t>(text: &'t str, ex: &mut Extractor) -> Carried {
        let mut lines = text.split('\n');
        let lead = crate::text::cap_middle(lines.next().unwrap_or("").trim_end(), LEAD_MAX);
        // A block per header; lines before the first header form a block without one, and
        // so does every fenced run (its fence kept with any line of it) and what follows it.
        struct Raw<'t> {
            header: String,
            fence: Option<&'t str>,
            body: Vec<&'t str>,
        }
        let open = |header: String, fence: Option<&'t str>| Raw {
            header,
            fence,
            body: Vec::new(),
        };
        let mut raw: Vec<Raw<'_>> = vec![open(String::new(), None)];
        let mut in_fence: Option<&str> = None;
        for line in lines {
            let Some(cur) = raw.last_mut() else { break };
            if let Some(f) = in_fence {
                if line.trim_end() == f {
                    in_fence = None;
                    raw.push(open(String::new(), None));
                } else {
                    cur.body.push(line);
                }
            } else if is_header(line) {
                raw.push(open(line.to_string(), None));
            } else if let Some(f) = fence_of(line) {
                in_fence = Some(f);
                // (The opening line, info string and all, is what the fence renders as.)
                let f = line.trim_end();
                // A fence right under a header (blank lines aside) fences that block's body.
                if cur.fence.is_none() && cur.body.iter().all(|l| l.trim().is_empty()) {
                    cur.body.clear();
                    cur.fence = Some(f);
                } else {
                    raw.push(open(String::new(), Some(f)));
                }
            } else {
                cur.body.push(line);
            }
        }
        let blocks = raw
            .into_iter()
            .filter_map(|mut r| {
                while r.body.last().is_some_and(|l| l.trim().is_empty()) {
                    r.body.pop();
                }
                if r.header.is_empty() && r.body.is_empty() {
                    return None;
                }
                let body = r.body.join("\n");
                let feat = ex.features(&body);
                Some(Block {
                    header: r.header,
                    fence: r.fence.map(str::to_string),
                    body,
                    feat,
                    factor: CARRIED_FACTOR,
                })
            })
            .collect();
        Carried { lead, blocks }
    }

    /// Its blocks' features, in order (one selection candidate each).
    pub fn feats(&self) -> impl Iterator<Item = &OutFeat> {
        self.blocks.iter().map(|b| &b.feat)
    }

    /// Give a call's block the gains a region call on the same file gets when the user's words
    /// name it ([`crate::compact::named::USER_NAMED`] for `region_user`,
    /// [`crate::compact::named::NAMED_NOW`] for `kept_user`): the file a call header names is its
    /// ident's first word (`**read** \`src/main.ts offset=10\``; a command's first word is a
    /// program, whose name the user's words seldom hold). Without this, the calls of a new region
    /// on named files crowded the carried lines out (the chained benchmark lost 7 and 6 of 128
    /// facts at 10% and 5%); with it the chains keep 97 and 83 of 127, against 62 and 32 of 128
    /// before either gain.
    pub fn name_files(&mut self, region_user: &str, kept_user: &str) {
        for b in &mut self.blocks {
            let Some(path) = b
                .header
                .split('`')
                .nth(1)
                .filter(|_| !b.header.starts_with("**bash**"))
                .and_then(|ident| ident.split_whitespace().next())
            else {
                continue;
            };
            b.factor *= crate::compact::named::named_gain(path, region_user, kept_user);
        }
    }

    /// One selection candidate per block ([`CARRIED_FACTOR`]): the header (with its fences) is
    /// what keeping a first line costs beyond the line.
    pub fn candidates(&self) -> impl Iterator<Item = Candidate> + '_ {
        self.blocks.iter().map(|b| Candidate {
            positional: true,
            err_floor: 0,
            eligible: true,
            factor: b.factor,
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
                    out.push_str(fence_of(f).unwrap_or(f));
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
            assert!(h < at && out[h..at].contains("```\n…\n"), "{out}");
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

    #[test]
    fn a_kept_line_inside_a_fence_keeps_its_fence() {
        let mut t = String::from("## Goal\nFix it.\n\n## Notes\nsome words\n```rust\n");
        for i in 0..40 {
            t.push_str(&format!("let x = {i};\n"));
        }
        t.push_str("call(src/engine/fixer.rs:41)\n```\nmore words after\n");
        let out = cut(&t, 80.0, "");
        let at = out
            .find("src/engine/fixer.rs:41")
            .unwrap_or_else(|| panic!("{out}"));
        // An opening fence before it and a closing one after it.
        assert!(out[..at].contains("```rust\n…\n"), "{out}");
        assert!(out[at..].contains("\n```"), "{out}");
        assert!(!out.contains("more words after"), "{out}");
    }

    #[test]
    fn headings_and_call_headers_start_blocks_and_nothing_else_does() {
        for yes in [
            "# T",
            "### User",
            "###### deep",
            "**bash** `ls` (t1; 2 of 3 lines):",
        ] {
            assert!(is_header(yes), "{yes}");
        }
        for no in [
            "#include <a.h>",
            "####### seven",
            "#",
            "**bold** text",
            "plain",
        ] {
            assert!(!is_header(no), "{no}");
        }
    }

    #[test]
    fn a_carried_call_on_a_file_the_user_names_gains_what_a_region_call_would() {
        use crate::compact::named::{NAMED_NOW, USER_NAMED};
        let text = "# Session history before this point (pruned by pi-shake)\n\n\
            **read** `src/session-manager.ts offset=10` (t1; 2 of 90 lines):\n```\na\nb\n```\n\n\
            **read** `src/main.ts` (t2; 1 of 9 lines):\n```\nc\n```\n\n\
            **bash** `grep -n x src/main.ts` (t3; 1 of 4 lines):\n```\nd\n```\n\n\
            ### User\n\nlook at session-manager.ts and main.ts\n";
        let mut ex = Extractor::default();
        let mut c = Carried::read(text, &mut ex);
        c.name_files("the bug is in session-manager.ts", "now main.ts");
        let factors: Vec<f32> = c.candidates().map(|k| k.factor).collect();
        // Three calls, then the user's block (the title is the lead, no block); a command's
        // first word is no file.
        assert_eq!(
            factors,
            [
                CARRIED_FACTOR * USER_NAMED,
                CARRIED_FACTOR * NAMED_NOW,
                CARRIED_FACTOR,
                CARRIED_FACTOR
            ]
        );
    }
}
