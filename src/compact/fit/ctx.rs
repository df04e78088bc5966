//! The fit's context ([`Ctx`], made by [`context`]): one selection candidate per pair (its
//! factor, header cost and position rule), then the carried summary's blocks and the
//! multi-line commands' rests; and rendering or measuring the summary at a level with a
//! selection, without materialising the kept text while measuring.

use std::collections::HashMap;

use anyhow::Result;

use super::factors::{SUPERSEDED, factor};
use super::levels::Level;
use super::{BARE_MARKERS_BELOW, FILE_TEXT_TOOLS, WRITTEN_FACTOR};
use crate::compact::budget::{self, Candidate};
use crate::compact::region::{self, Kind, Pin};
use crate::compact::render::{self, Decided, RenderOptions};
use crate::compact::report::Action;
use crate::compact::{Prepared, pruner};
use crate::score::PairScore;

/// Chars an output outside the pairs adds when it keeps a line: its fence and the note beside
/// its command (`7c6d2c79; 3 of 12 lines`, about what `output of 12 lines not kept` costs).
const LOOSE_HEADER: f64 = 12.0;

/// What rendering and measuring a level with a selection needs (made by [`context`]).
pub(super) struct Ctx<'p> {
    pub(super) prep: &'p Prepared,
    /// While measuring: the size of line-cut bodies not materialised (their placeholders are
    /// at most a fence's worth of chars, so measuring holds no copy of the kept text).
    pub(super) deficit: std::cell::Cell<budget::BodySize>,
    pub(super) cands: Vec<Candidate>,
    pub(super) marker: budget::Marker,
    pub(super) scorer: String,
    pub(super) breadcrumbs: bool,
    /// The budget in tokens (a carried summary not pi-shake's is cut to a share of it).
    pub(super) budget: u64,
    /// By pair: the index of its command's rest among the candidates ([`Prepared`]'s
    /// `scripts`, after the pairs and the carried summary's blocks).
    pub(super) script_of: Vec<Option<usize>>,
    /// The candidate index of the first command rest.
    pub(super) script_base: usize,
    /// The candidate index of the first output outside the pairs ([`Prepared`]'s `loose`, after
    /// the command rests), and each one's candidate index by message.
    pub(super) loose_base: usize,
    pub(super) loose_of: HashMap<usize, usize>,
    /// By pair: its [`render::ident`], made the first time a render shows the pair and kept for
    /// the fit's many renders (a dropped pair's is never made).
    pub(super) idents: Vec<std::cell::OnceCell<Box<str>>>,
}

impl Ctx<'_> {
    pub(super) fn options(&self, l: &Level, keep_text: bool) -> RenderOptions {
        RenderOptions {
            keep_text,
            user_whole: l.user.0,
            user_window: l.user.1,
            user_keep: l.user_keep,
            text_whole: l.text.0,
            text_window: l.text.1,
            text_keep: l.text_keep,
            // Edit and write pins show the lines of their new text the selection kept.
            edit_head: 0,
            write_body_max: 0,
            drop_notes: l.drop_notes,
            changed_files: l.changed_files,
            cwd: self.prep.cwd.clone(),
            breadcrumbs: self.breadcrumbs,
            carried_cap: l
                .carried
                .map_or(usize::MAX, |s| (self.budget as f64 * 4.0 * s) as usize),
            title: l.title,
            pruner: pruner(),
            scorer: self.scorer.clone(),
        }
    }

    /// The selection of pair `i`'s command rest (empty when it has none).
    pub(super) fn script_sel<'s>(&self, i: usize, sel: &'s [Vec<u32>]) -> &'s [u32] {
        self.script_of[i]
            .and_then(|k| sel.get(k))
            .map_or(&[], Vec::as_slice)
    }

    /// What the selection `sel` keeps of message `mi`'s output outside the pairs
    /// ([`render::Loose`]); its text is in memory, so measuring renders it too.
    pub(super) fn loose_body(
        &self,
        mi: usize,
        sel: &[Vec<u32>],
    ) -> Option<Option<(String, String)>> {
        let k = *self.loose_of.get(&mi)?;
        let (_, f) = &self.prep.loose[k - self.loose_base];
        let s = sel.get(k).filter(|s| !s.is_empty());
        let Some(s) = s else {
            return Some(None);
        };
        let text = match &self.prep.msgs[mi].kind {
            Kind::Bash { output, .. } => std::borrow::Cow::Borrowed(output.as_str()),
            Kind::ToolResult { blocks, .. } => region::text_ref(blocks),
            _ => return None,
        };
        let note = if s.len() == f.units.len() {
            String::new()
        } else {
            format!(
                "{} of {} lines",
                crate::text::thousands(budget::lines_kept(f, s) as u64),
                crate::text::thousands(u64::from(f.lines))
            )
        };
        Some(Some((note, budget::render_lines(&text, f, s, self.marker))))
    }

    /// Action of pair `i` at level `l` with selection `sel` (all candidates').
    pub(super) fn action(&self, i: usize, l: &Level, sel: &[Vec<u32>]) -> Action {
        let script = self.script_sel(i, sel);
        let sel = &sel[i];
        let p = &self.prep.pairs[i];
        if let Some(pin) = self.prep.pins[i] {
            if l.pins_dropped || (pin == Pin::UnresolvedError && l.err_lines && sel.is_empty()) {
                return Action::Drop;
            }
            return Action::Pinned;
        }
        if p.result_msg.is_none() {
            // A call without a result is shown like a pin, and goes with the pins.
            return if l.pins_dropped {
                Action::Drop
            } else {
                Action::Unpaired
            };
        }
        match &self.prep.feats[i] {
            Some(f) if !sel.is_empty() && sel.len() == f.units.len() => Action::Keep,
            Some(_) if !sel.is_empty() => Action::Stub,
            // Only lines of its command: the call shows, its output does not.
            Some(_) if !script.is_empty() => Action::Stub,
            _ => Action::Drop,
        }
    }

    /// Render at level `l` with selection `sel`; `fetch(i)` gives pair `i`'s line-cut body,
    /// asked for right before it is rendered (`None`: measure with placeholders of the same
    /// length).
    pub(super) fn render(
        &self,
        l: &Level,
        sel: &[Vec<u32>],
        mut fetch: Option<&mut dyn FnMut(usize) -> Result<String>>,
        capacity: usize,
    ) -> Result<render::Rendered> {
        let prep = self.prep;
        let real = fetch.is_some();
        let keep_text = real && prep.options.summary_text;
        let mut decided: Vec<Decided<'_>> = Vec::with_capacity(prep.pairs.len());
        let mut lazy = vec![false; prep.pairs.len()];
        // Pins whose bodies a level can leave out, latest first: the last `pin_bodies_keep`
        // keep theirs.
        let mut with_body: Vec<bool> = (0..prep.pairs.len())
            .map(|i| l.pin_bodies && prep.pins[i] != Some(Pin::EditWrite))
            .collect();
        if let (false, Some(k)) = (l.pin_bodies, l.pin_bodies_keep) {
            let bodied = (0..prep.pairs.len())
                .rev()
                .filter(|&i| prep.pins[i].is_some_and(Pin::body_by_level));
            for i in bodied.take(k) {
                with_body[i] = true;
            }
        }
        for (i, pair) in prep.pairs.iter().enumerate() {
            let action = self.action(i, l, sel);
            let mut body_of = || {
                lazy[i] = real;
                self.lines_body(i, &sel[i], real)
            };
            let body = match (action, prep.pins[i]) {
                (Action::Drop | Action::Unpaired, _) => None,
                (_, Some(Pin::UnresolvedError)) if l.err_lines => body_of(),
                (_, Some(Pin::EditWrite)) if sel[i].is_empty() => Some((
                    String::new(),
                    prep.pin_outputs[i]
                        .clone()
                        .unwrap_or_else(|| pair.output.clone()),
                )),
                (_, Some(Pin::EditWrite)) => body_of(),
                (_, Some(pin)) => {
                    let out = prep.pin_outputs[i].as_deref().unwrap_or(&pair.output);
                    if !with_body[i] && pin != Pin::UnresolvedError {
                        Some(("output not kept".into(), String::new()))
                    } else {
                        Some(render::pin_body(out, pin, l.git_head, l.skill_head))
                    }
                }
                _ if sel[i].is_empty() => None,
                _ => body_of(),
            };
            let script = self.script_body(i, sel);
            decided.push(Decided {
                pair,
                ident: if action == Action::Drop {
                    std::borrow::Cow::Borrowed("")
                } else {
                    std::borrow::Cow::Borrowed(
                        self.idents[i].get_or_init(|| {
                            render::ident(pair, prep.cwd.as_deref()).into_boxed_str()
                        }),
                    )
                },
                action,
                pin: prep.pins[i],
                body,
                pin_body: with_body[i],
                script,
            });
        }
        render::render(
            &prep.msgs,
            &mut decided,
            match &prep.carried {
                Some(c) => Some(render::Carry::Lines(c, &sel[prep.pairs.len()..])),
                None => prep.previous_summary.as_deref().map(render::Carry::Whole),
            },
            &self.options(l, keep_text),
            capacity,
            &mut |k, body| {
                if let (true, Some(b), Some(f)) = (lazy[k], body.as_mut(), fetch.as_mut()) {
                    b.1 = f(k)?;
                }
                Ok(())
            },
            Some(&|mi| self.loose_body(mi, sel)),
        )
    }

    /// Pair `i`'s command rest as `(note, kept lines)`, when the selection keeps any (its text
    /// is in memory with the call's arguments, so measuring renders it too).
    pub(super) fn script_body(&self, i: usize, sel: &[Vec<u32>]) -> Option<(String, String)> {
        let k = self.script_of[i]?;
        let s = sel.get(k).filter(|s| !s.is_empty())?;
        let f = &self.prep.scripts[k - self.script_base].1;
        let text = self.prep.pairs[i].script()?;
        let kept = budget::lines_kept(f, s);
        let note = if s.len() == f.units.len() {
            format!("{} more lines", f.lines)
        } else {
            format!("{kept} of {} more lines", f.lines)
        };
        Some((note, budget::render_lines(text, f, s, self.marker)))
    }

    /// Tokens of the summary at level `l` with selection `sel`, without materialising the kept
    /// text.
    pub(super) fn measure(&self, l: &Level, sel: &[Vec<u32>]) -> u64 {
        self.measure_size(l, sel).0
    }

    /// Tokens and UTF-8 bytes of the summary at level `l` with selection `sel`.
    pub(super) fn measure_size(&self, l: &Level, sel: &[Vec<u32>]) -> (u64, usize) {
        self.deficit.set(budget::BodySize::default());
        // Measuring reads nothing, so it cannot fail.
        let shape = self.render(l, sel, None, 0).unwrap_or_default();
        let d = self.deficit.get();
        (
            crate::jscompat::tokens_from_chars((shape.u16 + d.u16) as u64),
            shape.bytes + d.bytes,
        )
    }

    /// A line-cut body's note and text: when rendering for `real`, an empty text (filled in
    /// right before it is rendered), else (measuring) a short placeholder, the rest of its
    /// length added to `deficit`.
    pub(super) fn lines_body(&self, i: usize, sel: &[u32], real: bool) -> Option<(String, String)> {
        let f = self.prep.feats[i].as_ref()?;
        let kept = budget::lines_kept(f, sel);
        let note = if sel.len() == f.units.len() {
            format!("{} chars, verbatim", crate::text::thousands(f.chars as u64))
        } else {
            format!(
                "{} of {} lines",
                crate::text::thousands(kept as u64),
                crate::text::thousands(u64::from(f.lines))
            )
        };
        if real {
            return Some((note, String::new()));
        }
        let n = budget::body_size(f, sel, self.marker);
        // A short placeholder that fences like the real body (its longest backtick run), the
        // rest of its length counted in `deficit`.
        let ticks = if f.ticks >= 3 {
            "`".repeat(f.ticks as usize)
        } else {
            String::new()
        };
        let short = (ticks.len() + 1).min(n.u16);
        let mut text = "x".repeat(short.saturating_sub(ticks.len()));
        text.push_str(&ticks);
        let d = self.deficit.get();
        self.deficit.set(budget::BodySize {
            u16: d.u16 + n.u16.saturating_sub(text.len()),
            bytes: d.bytes + n.bytes.saturating_sub(text.len()),
        });
        Some((note, text))
    }
}

/// The fit's context: one selection candidate per pair (with its factor and the factor's
/// reasons), then the carried summary's blocks, then the multi-line commands' rests; `ratio` (the
/// budget's share of the region) sets the cut markers.
pub(super) fn context<'p>(
    prep: &'p Prepared,
    budget: u64,
    ratio: f64,
    scorer: String,
    prior_map: &HashMap<String, PairScore>,
) -> (Ctx<'p>, Vec<Vec<&'static str>>) {
    let n = prep.pairs.len();
    let mut whys: Vec<Vec<&'static str>> = Vec::with_capacity(n);
    let mut cands = Vec::with_capacity(n);
    for (i, p) in prep.pairs.iter().enumerate() {
        let (f, why) = factor(i, p, prep.pins[i], &prep.facts, prior_map.get(&p.id()));
        whys.push(why);
        let ident = render::ident(p, prep.cwd.as_deref());
        // Header: `**tool** `ident` (tN; 123 of 4,567 lines):` + fences + separators.
        let header = 2.0
            + crate::jscompat::utf16_len(&ident) as f64
            + crate::jscompat::utf16_len(&p.tool) as f64
            + 40.0;
        let written = prep.pins[i] == Some(Pin::EditWrite);
        cands.push(Candidate {
            eligible: (written || p.result_msg.is_some()) && prep.feats[i].is_some(),
            factor: f,
            header,
            // A pin's call line shows anyway.
            open: written,
            positional: !written && !FILE_TEXT_TOOLS.contains(&p.tool.as_str()),
            err_floor: 0,
        });
    }
    let mut ctx = Ctx {
        prep,
        deficit: std::cell::Cell::new(budget::BodySize::default()),
        cands,
        marker: if ratio < BARE_MARKERS_BELOW {
            budget::Marker::Bare
        } else {
            budget::Marker::Counted
        },
        scorer,
        breadcrumbs: prep.options.breadcrumbs,
        budget,
        script_of: vec![None; n],
        script_base: 0,
        loose_base: 0,
        loose_of: HashMap::new(),
        idents: vec![std::cell::OnceCell::new(); n],
    };
    // The carried summary's blocks are candidates after the pairs, then the command rests.
    if let Some(c) = &prep.carried {
        ctx.cands.extend(c.candidates());
    }
    ctx.script_base = ctx.cands.len();
    for (k, (i, _)) in prep.scripts.iter().enumerate() {
        let pair = &ctx.cands[*i];
        ctx.cands.push(Candidate {
            // A command's rest, though mostly file changes, keeps the position worth: without it
            // the 16 real points kept 4 fewer prose strings at 30% (526 against 530 of 623).
            positional: true,
            err_floor: 0,
            eligible: true,
            // Mostly file changes (`sed -i`s, heredocs, moves): what they wrote is in the
            // files, like an edit's new text.
            factor: pair.factor * WRITTEN_FACTOR,
            // Its label and fence, and the call line while the output keeps nothing (a pin's
            // shows anyway).
            header: 30.0
                + if prep.pins[*i].is_some() {
                    0.0
                } else {
                    pair.header
                },
            open: false,
        });
        ctx.script_of[*i] = Some(ctx.script_base + k);
    }
    // The outputs outside the pairs compete like a call's output: a command's (the user's
    // `!cmd`, a result's of a tool not in `FILE_TEXT_TOOLS`) with the position worth, a `!cmd`
    // run again later as superseded; no other later-pair fact applies. The command line or
    // result header shows anyway; a kept line adds the fence and the note.
    ctx.loose_base = ctx.cands.len();
    for (k, (mi, _)) in prep.loose.iter().enumerate() {
        let positional = match &prep.msgs[*mi].kind {
            Kind::ToolResult { tool, .. } => !FILE_TEXT_TOOLS.contains(&tool.as_str()),
            _ => true,
        };
        ctx.cands.push(Candidate {
            eligible: true,
            factor: if prep.facts.bang_superseded_at(*mi) {
                SUPERSEDED
            } else {
                1.0
            },
            header: LOOSE_HEADER,
            open: false,
            positional,
            err_floor: 0,
        });
        ctx.loose_of.insert(*mi, ctx.loose_base + k);
    }
    (ctx, whys)
}
