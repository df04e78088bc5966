//! Fitting a compaction to its budget: the shrink levels, the value model's per-pair factors,
//! and the loop that selects tool-output lines ([`super::budget::select`]) until the rendered
//! summary is within 1% under the budget, every line it wants is kept, or eight tries are spent.
//!
//! The skeleton — title, keep-windows of user and assistant text, pins, aggregated drop lines
//! — is rendered at the richest `LEVELS` entry whose size is at most [`SKELETON_SHARE`] of the
//! budget (past level 5 [`PROSE_SHARE`], see there; else the one with the smallest skeleton;
//! and a richer one when the selected lines leave room unused, or, below head/tail budgets, to
//! filler — lines without a distinctive string or an error word);
//! the rest of the budget goes to the lines with the most value per char: the region's tool
//! outputs and, when the previous summary is pi-shake's own, its blocks ([`super::carried`])
//! alike (another tool's carried summary is part of the skeleton, cut to a share by level). The
//! value model's weights depend on the budget's share of the region ([`weights_at`]).
//! Levels shrink in this stated order, each keeping the previous ones' cuts:
//!
//! 1. assistant text to 800/300-char windows, the short title, another tool's carried summary
//!    to 30% of the budget;
//! 2. skill bodies to 2,000 chars;
//! 3. user text to 1,000/400, assistant text to 300/120;
//! 4. git heads 600 → 200, unresolved errors from verbatim to their most valuable lines;
//! 5. no aggregated drop lines, assistant text to 120/50, another tool's carried summary to 15%;
//! 6. git and skill pins to their call line;
//! 7. no assistant text, user text to 300/120;
//! 8. user text to 120/50, another tool's carried summary to 5%;
//! 9. pins and calls without a recorded result left out;
//! 10. user text to 60 chars (30-char head and tail windows);
//! 11. only the region's first user message and its last 3 (the others counted in place; shell
//!     commands the user ran, branch summaries and tool results without their call by the same
//!     rule, each counted on its own);
//! 12. only the region's first user message;
//! 13. no list of edited and written files;
//! 14. the title names the pruner only (`# Session history before this point (pruned by
//!     pi-shake 0.1.0)`);
//! 15. no user message (all counted in place).
//!
//! When the summary still falls short of 95% of its budget with every line it wanted (a region
//! of conversation, edits and little tool output), the skeleton takes the room back
//! (`fill`): the bodies of the latest pins the level left out, then at levels 11–14 the
//! latest user messages that fit, else wider user windows, then wider assistant windows (or,
//! where assistant text is left out and even the narrowest windows for all of it are too
//! many, the latest assistant texts), so that a budget is met within 5% when the region has
//! that much.
//!
//! An edit or write pin shows its call line until level 9 leaves the pins out, and under its
//! call the lines of its new text that the selection kept: the edit's `newText` (or the
//! write's content) is cut into units like an output and competes with the outputs' lines
//! ([`WRITTEN_FACTOR`], [`budget::WRITTEN_WORTH`]), instead of the design's fixed 300-char
//! heads, which the threshold paths keep.
//!
//! A multi-line shell command's rest (its lines after the first, which the call line shows as
//! `first …(+N lines)`: a script of `sed -i`s, a heredoc, an issue body) is the agent's own
//! action: under a budget its lines compete like an edit's new text (mostly such scripts change
//! files; [`WRITTEN_FACTOR`]), and the kept ones show in a `Command, k of n more lines:` block
//! under the call line, the output after it under `Output:`. Its strings do not count as outputs holding them (`df`). A git
//! pin's rest (a commit message's body) competes too, while the pins stay.
//!
//! The steps taken are reported (`budget.shrunk`, the last one with what room gave back) in the
//! output and in `details`.

use std::collections::HashMap;

use anyhow::Result;

use super::Decision;
use super::budget::{self, BudgetReport, BudgetSpec, Weights};
use super::region::{Kind, Pin};
use super::render;
use super::report::Counts;
use super::{CompactPlan, Fetch, Prepared, fetch_output};
use crate::projection::Projection;
use crate::score::PairScore;
use crate::session::Session;
use crate::wall::Wall;

/// The embedded value-per-token scorer.
pub const NAME: &str = "heuristic-v3";
/// The skeleton may take this share of the budget before it shrinks.
pub const SKELETON_SHARE: f64 = 0.10;
/// Levels up to this one shrink the skeleton to [`SKELETON_SHARE`]; deeper ones only when it
/// still takes more than [`PROSE_SHARE`] of the budget. Tuning curve (facts of 308 at 0.30 /
/// 0.10 / 0.05, and of 502 at pi's summary size), with levels 11–13 in place: 0.25 gave
/// 295/263/194/102; 0.20 295/271/192/110; 0.15 297/271/199/111; 0.10 303/271/190/109.
pub const PROSE_LEVEL: usize = 5;
pub const PROSE_SHARE: f64 = 0.15;
/// Levels that leave user messages out (11–12) only when the last one that keeps them all
/// still takes more than this share of the budget.
pub const THIN_SHARE: f64 = 0.25;
/// How many of its error lines an unresolved error keeps, first, at the levels that cut it to its
/// key lines: before, such a level could leave it no line at all (the pair dropped, though the
/// step said "cut to their key lines"). Measured in the twenty-second round (README "Compaction
/// quality"): the real sessions keep the same facts at 1, 2 or 3 (44 and 13 points, every
/// ratio and pi's size; 1 fewer of 2,678 by default, from the failure marks); `blind.rs` gains 8
/// needles at 10% (3 → 11 of 127, with the failure marks among the error words) at 1, 2 or 5,
/// the other tuning generators ±1.
pub const ERR_KEY_LINES: u32 = 2;

/// Budgets below this share of the region mark cut lines with a bare `…` ([`budget::Marker::Bare`]).
pub const BARE_MARKERS_BELOW: f64 = 0.2;
/// The shrink steps (levels past the richest).
pub const SHRINK_STEPS: usize = LEVELS.len() - 1;
/// The default target ratio (README "Compaction quality" explains the choice).
pub const DEFAULT_RATIO: f64 = 0.15;

/// The factor on the lines of an edit's or write's new text (its pin's call line always shows;
/// the text competes with the outputs' lines, its strings already at
/// [`budget::WRITTEN_WORTH`]): the file holds it, and a later read shows it. Chosen on the real
/// sessions' curve of output facts and prose strings (`benches/quality/README.md`, eleventh
/// round); it matters only where the pins stay (at 30%: 1 / 0.5 / 0.25 / 0.1 kept 753 / 758 /
/// 768 / 778 of 817 output facts and 1,236 / 1,241 / 1,252 / 1,256 of 1,440 strings in all).
/// Also the factor on the lines of a multi-line command's rest, mostly file changes too (at
/// 30%, factors 1 / 0.5 / 0.1 / 0 kept 762 / 764 / 773 / 775 output facts and 519 / 516 / 503
/// / 499 prose strings: at 1 the 13 cut points fell from 0.93 to 0.89).
pub const WRITTEN_FACTOR: f32 = 0.1;

/// Tools whose output is a file's text, not what a command printed: their head and tail lines
/// gain no position worth under generous budgets ([`budget::Candidate::positional`]; also an
/// edit's or write's pinned new text). Chosen on the real sessions' curve (thirteenth round,
/// `benches/quality/README.md`): at 30% the 16 points keep 806 of 817 output facts (773 with
/// position worth for every output; the naive line keeper 799) and 530 of 623 prose strings
/// (503); `grep`, `find` and `ls` too kept no more real facts but lost fresh and blind needles.
pub const FILE_TEXT_TOOLS: &[&str] = &["read", "edit", "write"];

/// Everything [`finish`] needs to re-read outputs.
pub struct Source<'a, 'f> {
    pub session: &'a Session,
    pub projection: &'a Projection,
    pub wall: Option<&'a Wall>,
    pub fetch: Fetch<'f>,
}

/// The level under `budget`, from the skeleton size of each [`LEVELS`] entry (`size(i)`, asked
/// for in order and only as far as the choice needs: each is a whole render of the prose): the
/// richest whose skeleton fits its share, else the smallest skeleton (the most room for lines)
/// but the last, which leaves out the first user message too and is taken only when no other
/// fits.
fn level_for(size: &mut dyn FnMut(usize) -> u64, budget: u64) -> usize {
    // Past level 5 (assistant text to 120/50 chars) the skeleton may take up to
    // PROSE_SHARE of the budget before it loses more prose.
    let share = (budget as f64 * SKELETON_SHARE) as u64;
    let prose = (budget as f64 * PROSE_SHARE) as u64;
    // User messages are left out only while the skeleton takes more than THIN_SHARE.
    let thin = (budget as f64 * THIN_SHARE) as u64;
    let thin_from = LEVELS
        .iter()
        .position(|l| l.user_keep.is_some())
        .unwrap_or(LEVELS.len());
    let limit = |i: usize| if i + 1 >= thin_from { thin } else { prose };
    // The last level leaves out every user message, the first too: only when nothing else fits.
    let last = LEVELS.len().saturating_sub(1);
    if let Some(i) = (0..=PROSE_LEVEL.min(last)).find(|&i| size(i) <= share) {
        return i;
    }
    if let Some(i) = (PROSE_LEVEL..last).find(|&i| size(i) <= limit(i)) {
        return i;
    }
    let Some((min, at)) = (0..last).map(|i| (size(i), i)).min() else {
        return last;
    };
    if min > budget && size(last) < min {
        return last;
    }
    at
}

/// Skeleton sizes by level, each measured the first time it is asked for.
struct LevelSizes(Vec<Option<u64>>);

impl LevelSizes {
    fn new() -> LevelSizes {
        LevelSizes(vec![None; LEVELS.len()])
    }

    /// Level `i`'s skeleton size: the summary with no line selected.
    fn get(&mut self, ctx: &Ctx<'_>, empty: &[Vec<u32>], i: usize) -> u64 {
        *self.0[i].get_or_insert_with(|| ctx.measure(&LEVELS[i], empty))
    }
}

/// Level `li`'s pins (from `base`, the candidates before any level), then lines selected until
/// the summary is within 1% under the budget; the selection and the line budget it took.
fn select_at(
    ctx: &mut Ctx<'_>,
    base: &[budget::Candidate],
    n: usize,
    li: usize,
    skeleton: u64,
    feats: &[Option<&budget::OutFeat>],
    w: &Weights,
) -> (Vec<Vec<u32>>, f64) {
    let prep = ctx.prep;
    let budget = ctx.budget;
    let level = LEVELS[li];
    ctx.cands = base.to_vec();
    // Pins that stay out of the selection; errors compete at levels that cut them, their first
    // key lines ahead of everything else.
    for (i, c) in ctx.cands.iter_mut().enumerate().take(n) {
        match prep.pins[i] {
            Some(Pin::UnresolvedError) if level.err_lines && !level.pins_dropped => {
                c.factor *= 2.0;
                c.err_floor = ERR_KEY_LINES;
            }
            // An edit's or write's new text competes where the level shows no heads of it.
            Some(Pin::EditWrite) if !level.pins_dropped => {}
            Some(_) => c.eligible = false,
            None => {}
        }
    }
    // A git pin's command rest (a commit message's body) goes with the pins.
    for (i, k) in ctx.script_of.iter().enumerate() {
        if let (Some(k), Some(_)) = (k, prep.pins[i]) {
            ctx.cands[*k].eligible = !level.pins_dropped;
        }
    }
    // An output outside the pairs competes where its message shows at this level.
    if !prep.loose.is_empty() {
        let paired = render::paired_results(prep.msgs.len(), prep.pairs.iter());
        let shown = render::shown_by_kind(&prep.msgs, &paired, level.user_keep);
        for (k, (mi, _)) in prep.loose.iter().enumerate() {
            ctx.cands[ctx.loose_base + k].eligible = shown.get(*mi).copied().unwrap_or(false);
        }
    }
    // Aim within 1% of the budget: the room is the user's, and at small budgets every line
    // counts (at 95% the summaries landed at 97.7% of their budgets, median).
    let floor = (budget as f64 * 0.99).ceil() as u64;
    let mut line_budget = (budget.saturating_sub(skeleton) as f64 * 4.0 * 0.97).max(0.0);
    let mut best: Option<(Vec<Vec<u32>>, u64)> = None;
    let mut last_units = usize::MAX;
    for _ in 0..8 {
        let sel = budget::select(
            feats,
            &ctx.cands,
            &prep.strings,
            &prep.covered,
            w,
            ctx.marker,
            line_budget,
        );
        let units: usize = sel.iter().map(Vec::len).sum();
        let size = ctx.measure(&level, &sel);
        let saturated = units == last_units;
        last_units = units;
        if size <= budget {
            if best.as_ref().is_none_or(|b| size > b.1) {
                best = Some((sel, size));
            }
            if size >= floor || saturated {
                break;
            }
            line_budget += (budget - size) as f64 * 4.0 * 0.9;
        } else {
            line_budget -= ((size - budget) as f64 * 4.0 + 16.0).max(line_budget * 0.02);
            if line_budget <= 0.0 {
                line_budget = 0.0;
            }
        }
    }
    let sel = best.map_or_else(|| vec![Vec::new(); ctx.cands.len()], |b| b.0);
    (sel, line_budget)
}

/// Chars of selected units worth only the base: no distinctive string, no error word.
fn filler_chars(feats: &[Option<&budget::OutFeat>], sel: &[Vec<u32>]) -> usize {
    let mut c = 0usize;
    for (f, s) in feats.iter().zip(sel) {
        let Some(f) = f else { continue };
        for &u in s {
            let u = &f.units[u as usize];
            if u.sn() == 0 && u.flags() & budget::F_ERR == 0 {
                c += u.u16() as usize + 1;
            }
        }
    }
    c
}

/// Steps 5–6 under a budget: choose the level, select lines, render, verify the size.
pub fn finish(
    prep: Prepared,
    spec: &BudgetSpec,
    scorer: String,
    planned_requests: usize,
    priors: Vec<PairScore>,
    src: Source<'_, '_>,
) -> Result<CompactPlan> {
    let n = prep.pairs.len();
    let budget = spec.tokens(prep.region_tokens);
    let prior_map: HashMap<String, PairScore> = priors
        .iter()
        .map(|s| (s.pair_id.clone(), s.clone()))
        .collect();
    // The budget's share of the region: it sets the markers and the value model's weights.
    let ratio = budget as f64 / prep.region_tokens.max(1) as f64;
    let (mut ctx, mut whys) = context(&prep, budget, ratio, scorer.clone(), &prior_map);
    let feats: Vec<Option<&budget::OutFeat>> = prep
        .feats
        .iter()
        .map(Option::as_ref)
        .chain(prep.carried.iter().flat_map(|c| c.feats().map(Some)))
        .chain(prep.scripts.iter().map(|(_, f)| Some(f)))
        .chain(prep.loose.iter().map(|(_, f)| Some(f)))
        .collect();
    let w = weights_at(ratio);
    let (li, sel, line_budget) = choose(&mut ctx, &feats, &w);
    let (level, filled) = fill(&ctx, LEVELS[li], &sel, prep.user_messages);
    let (summary, sel) = render_within(&ctx, &level, sel, line_budget, &feats, &w, src)?;
    let summary_tokens = crate::jscompat::tokens_from_chars(summary.u16 as u64);
    // What the reports need of the selection, before the region it was made from is let go.
    let mut lines_kept = 0usize;
    let mut lines_total = 0usize;
    let command_lines: Vec<Option<[usize; 2]>> = (0..n)
        .map(|i| {
            let k = ctx.script_of[i]?;
            let f = &prep.scripts[k - ctx.script_base].1;
            Some([budget::lines_kept(f, &sel[k]), f.lines as usize])
        })
        .collect();
    let fitted: Vec<Fitted> = (0..n)
        .map(|i| {
            let lines = prep.feats[i].as_ref().map(|f| {
                let k = budget::lines_kept(f, &sel[i]);
                if prep.pins[i].is_none() {
                    lines_kept += k;
                    lines_total += f.lines as usize;
                }
                [k, f.lines as usize]
            });
            Fitted {
                action: ctx.action(i, &level, &sel),
                lines,
                command_lines: command_lines[i],
                factor: ctx.cands[i].factor,
                why: std::mem::take(&mut whys[i]),
            }
        })
        .collect();
    let other_outputs: Vec<budget::OtherOutput> = prep
        .loose
        .iter()
        .enumerate()
        .map(|(k, (mi, f))| {
            let factor = ctx.cands[ctx.loose_base + k].factor;
            let m = &prep.msgs[*mi];
            budget::OtherOutput {
                entry_id: m.entry_id.clone(),
                kind: match m.kind {
                    Kind::Bash { .. } => "command",
                    _ => "result",
                },
                lines: [
                    budget::lines_kept(f, &sel[ctx.loose_base + k]),
                    f.lines as usize,
                ],
                factor: (f64::from(factor) * 1000.0).round() / 1000.0,
                why: if prep.facts.bang_superseded_at(*mi) {
                    vec!["superseded"]
                } else {
                    Vec::new()
                },
            }
        })
        .collect();
    let other_output_lines = other_outputs
        .iter()
        .map(|o| o.lines)
        .reduce(|[k, t], [a, b]| [k + a, t + b]);
    let carried_lines = prep.carried.as_ref().map(|c| {
        c.feats().zip(&sel[n..]).fold([0, 0], |[k, t], (f, s)| {
            [k + budget::lines_kept(f, s), t + f.lines as usize]
        })
    });
    drop(ctx);
    drop(feats);
    drop(sel);
    // The region's messages, line features and string table are done with: the reports (one
    // per pair, tens of thousands in a big region) are built without them beside.
    let mut prep = prep;
    prep.feats = Vec::new();
    prep.scripts = Vec::new();
    prep.loose = Vec::new();
    prep.strings = Vec::new();
    prep.covered = Vec::new();
    prep.pin_outputs = Vec::new();
    prep.carried = None;
    let entry_ids: Vec<String> = std::mem::take(&mut prep.msgs)
        .into_iter()
        .map(|m| m.entry_id)
        .collect();
    let pairs = std::mem::take(&mut prep.pairs);
    let probe_map = prep.request.question_tokens();
    let mut reports = pair_reports(
        pairs, &entry_ids, &prep.pins, fitted, &prior_map, &probe_map,
    );
    let scores = if priors.is_empty() {
        own_scores(&mut reports, &probe_map)
    } else {
        priors
    };
    let mut counts = Counts::of(&reports, prep.user_messages);
    counts.user_messages_left_out = summary.users_left_out;
    let warnings = warnings(summary_tokens, budget, prep.carried_tokens, carried_lines);
    let mut shrunk: Vec<String> = LEVELS[1..=li].iter().map(|l| l.step.to_string()).collect();
    if let (Some(last), Some(f)) = (shrunk.last_mut(), &filled) {
        last.push_str(&format!(" ({f})"));
    }
    let report = BudgetReport {
        target_ratio: spec.target_ratio,
        max_summary_tokens: spec.max_summary_tokens,
        source: spec.source.clone(),
        tokens: budget,
        achieved: summary_tokens,
        achieved_ratio: if prep.region_tokens == 0 {
            0.0
        } else {
            ((summary_tokens as f64 / prep.region_tokens as f64) * 10_000.0).round() / 10_000.0
        },
        lines_kept,
        lines_total,
        carried_lines,
        command_lines: command_lines
            .iter()
            .flatten()
            .copied()
            .reduce(|[k, t], [a, b]| [k + a, t + b]),
        other_output_lines,
        other_outputs,
        shrunk,
    };
    Ok(CompactPlan::assemble(
        prep,
        Decision {
            scorer,
            summary: summary.text,
            summary_tokens,
            pairs: reports,
            counts,
            planned_requests,
            scores,
            warnings,
            budget: Some(report),
        },
    ))
}

/// The level and the selection at it: the richest level whose skeleton fits its share, then a
/// richer one while the selected lines leave room. Returns the level's index, the selection
/// and the chars it was given.
fn choose(
    ctx: &mut Ctx<'_>,
    feats: &[Option<&budget::OutFeat>],
    w: &Weights,
) -> (usize, Vec<Vec<u32>>, f64) {
    let n = ctx.prep.pairs.len();
    let budget = ctx.budget;
    let empty: Vec<Vec<u32>> = vec![Vec::new(); ctx.cands.len()];
    let mut sizes = LevelSizes::new();
    let mut li = level_for(&mut |i| sizes.get(ctx, &empty, i), budget);
    let base = ctx.cands.clone();
    let skeleton = sizes.get(ctx, &empty, li);
    let (mut sel, mut line_budget) = select_at(ctx, &base, n, li, skeleton, feats, w);
    // Room the lines did not need — left over (every line fits), or taken by plain lines chosen
    // only because room was left at budgets without head/tail worth (with it, a plain line may
    // be kept for its place) — goes to a richer level's prose and pins, as long as it lasts.
    for _ in 0..3 {
        if li == 0 {
            break;
        }
        let unused = budget.saturating_sub(ctx.measure(&LEVELS[li], &sel));
        let filler = if w.pos_gain == 0.0 {
            crate::jscompat::tokens_from_chars(filler_chars(feats, &sel) as u64)
        } else {
            0
        };
        let room = filler + unused;
        if room >= budget / 20
            && let Some(j) = {
                let at = sizes.get(ctx, &empty, li) + room * 9 / 10;
                (0..li).find(|&j| sizes.get(ctx, &empty, j) <= at)
            }
        {
            li = j;
            let skeleton = sizes.get(ctx, &empty, li);
            (sel, line_budget) = select_at(ctx, &base, n, li, skeleton, feats, w);
        } else {
            break;
        }
    }
    (li, sel, line_budget)
}

/// The real render: re-read the outputs that keep lines, one at a time. When a fence or a
/// marker comes out longer than measured and the summary is over its budget, the least
/// valuable lines are dropped and it is rendered again (at most four renders). Returns the
/// summary and the selection it shows.
fn render_within(
    ctx: &Ctx<'_>,
    level: &Level,
    mut sel: Vec<Vec<u32>>,
    mut line_budget: f64,
    feats: &[Option<&budget::OutFeat>],
    w: &Weights,
    src: Source<'_, '_>,
) -> Result<(render::Rendered, Vec<Vec<u32>>)> {
    let prep = ctx.prep;
    let budget = ctx.budget;
    let mut guard = 0;
    loop {
        // Reserved at its measured size (plus a little slack: a fence or marker may come out
        // longer than measured): no doubling copies while it grows.
        let bytes = ctx.measure_size(level, &sel).1;
        let capacity = bytes + bytes / 64 + 4096;
        let mut fetch = |i: usize| -> Result<String> {
            let p = &prep.pairs[i];
            let Some(f) = prep.feats[i].as_ref() else {
                return Ok(String::new());
            };
            let full = if prep.pins[i] == Some(Pin::EditWrite) {
                std::borrow::Cow::Owned(p.written_text())
            } else if !p.output.is_empty() {
                std::borrow::Cow::Borrowed(p.output.as_str())
            } else if let Some(o) = &prep.pin_outputs[i] {
                std::borrow::Cow::Borrowed(o.as_str())
            } else if let Some(j) = p.result_msg {
                std::borrow::Cow::Owned(fetch_output(
                    src.session,
                    src.projection,
                    src.wall,
                    prep.msgs[j].pos,
                    &p.call_id,
                    src.fetch,
                )?)
            } else {
                return Ok(String::new());
            };
            // Only the kept text, and only until it is copied into the summary.
            Ok(budget::render_lines(&full, f, &sel[i], ctx.marker))
        };
        let summary = ctx.render(level, &sel, Some(&mut fetch), capacity)?;
        let size = crate::jscompat::tokens_from_chars(summary.u16 as u64);
        guard += 1;
        if size <= budget || guard >= 4 {
            return Ok((summary, sel));
        }
        // The fence or a marker came out longer than measured: drop the least valuable lines.
        let over = ((size - budget) * 4) as f64 + 64.0;
        line_budget = (line_budget - over).max(0.0);
        sel = budget::select(
            feats,
            &ctx.cands,
            &prep.strings,
            &prep.covered,
            w,
            ctx.marker,
            line_budget,
        );
    }
}

mod ctx;
mod factors;
mod files;
mod fill;
mod levels;
mod outcome;
mod weights;
use ctx::{Ctx, context};
pub use factors::{PairFacts, pair_facts};
use fill::fill;
use levels::*;
use outcome::{Fitted, own_scores, pair_reports, warnings};
pub use weights::*;

#[cfg(test)]
mod level_tests {
    use super::*;

    /// Skeleton sizes of 900 at every level but those given.
    fn sizes(at: &[(usize, u64)]) -> Vec<u64> {
        let mut s = vec![900u64; LEVELS.len()];
        for &(i, v) in at {
            s[i] = v;
        }
        s
    }

    /// [`level_for`] on `sizes`, and the levels it measured.
    fn level_for(sizes: &[u64], budget: u64) -> usize {
        super::level_for(&mut |i| sizes[i], budget)
    }

    /// The levels [`level_for`] measured, in order.
    fn measured(sizes: &[u64], budget: u64) -> Vec<usize> {
        let mut asked = Vec::new();
        super::level_for(
            &mut |i| {
                asked.push(i);
                sizes[i]
            },
            budget,
        );
        asked.dedup();
        asked
    }

    #[test]
    fn the_level_is_the_richest_within_its_share() {
        let last = LEVELS.len() - 1;
        // Budget 1,000: share 100 up to level 5, 150 from there, 250 where user messages go.
        assert_eq!(level_for(&sizes(&[(2, 100)]), 1_000), 2);
        // Past level 5 the skeleton may take the prose share.
        assert_eq!(level_for(&sizes(&[(6, 150), (7, 120)]), 1_000), 6);
        // A level before 5 within the prose share but not the skeleton share is passed over.
        assert_eq!(level_for(&sizes(&[(3, 140), (8, 140)]), 1_000), 8);
        // Nothing meets its share: the smallest skeleton, the first of equals.
        assert_eq!(level_for(&sizes(&[(9, 400), (11, 400)]), 1_000), 9);
        // The last level (no user message at all) only when nothing else fits the budget.
        let s = sizes(&[(12, 600), (last, 100)]);
        assert_eq!(level_for(&s, 1_000), 12);
        assert_eq!(level_for(&s, 500), last);
    }

    #[test]
    fn only_the_levels_the_choice_needs_are_measured() {
        let last = LEVELS.len() - 1;
        // The richest fits: nothing after it is measured.
        assert_eq!(measured(&sizes(&[(2, 100)]), 1_000), vec![0, 1, 2]);
        // Past the prose level, the first within its share ends the search.
        let asked = measured(&sizes(&[(6, 150), (7, 120)]), 1_000);
        assert_eq!(asked.last(), Some(&6));
        assert!(asked.len() < LEVELS.len(), "{asked:?}");
        // Nothing fits its share: every level but the last is measured, and the last only
        // when even the smallest of the others is over the budget.
        let asked = measured(&sizes(&[(9, 400), (11, 400)]), 1_000);
        assert!((0..last).all(|i| asked.contains(&i)), "{asked:?}");
        assert!(!asked.contains(&last), "{asked:?}");
        let asked = measured(&sizes(&[(9, 400), (11, 400)]), 300);
        assert!((0..=last).all(|i| asked.contains(&i)), "{asked:?}");
    }
}
