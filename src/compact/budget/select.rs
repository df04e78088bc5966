//! Lazy greedy selection of output units by value per char ([`select`]) under a line budget:
//! one queue per pair and a main queue of pairs, each pair's worth decaying with what it has
//! already given.

use super::*;

/// Per-pair inputs of the selection.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Whether its lines may be selected at all.
    pub eligible: bool,
    /// The pair's factor on its strings' value.
    pub factor: f32,
    /// Chars of its header and fence when it keeps lines.
    pub header: f64,
    /// Whether it already renders (pinned): no header cost.
    pub open: bool,
    /// Whether its head and tail lines gain [`Weights::pos_gain`]: a command's output (where it
    /// says what it did and how it ended), not a file's text (a `read`, an edit's or write's new
    /// text), whose first and last lines are only where the read or the change began and ended
    /// ([`crate::compact::fit::FILE_TEXT_TOOLS`]).
    pub positional: bool,
    /// How many of its error lines ([`F_ERR`]) the pair keeps before the other lines compete
    /// (an unresolved error's key lines; 0 for every other pair).
    pub err_floor: u32,
}

/// A pair's decay ([`Weights::pair_decay`]). Chosen on the tuning curve (README "Compaction
/// quality"): of 0.1, 0.15, 0.2, 0.25 and 0.35, 0.15 kept the most facts of the real sessions
/// at every ratio (0.10: 256, 257, 249, 245, 237 of 308); the tuning generator's needles at 10%
/// go from 62% without decay to 94% (97% at 0.2, where the real sessions lose 8 facts).
pub const PAIR_DECAY: f32 = 0.15;

/// Density added to an error line of a pair below its [`Candidate::err_floor`]: more than any
/// line's value per char, so the floor is met first (then its lines compete like the others).
pub const ERR_FLOOR_BONUS: f64 = 1.0e3;

/// [`Weights::focus_gain`]. Chosen on the tuning curve (README "Compaction quality"): from 0 to
/// 1 the real sessions keep the same facts at every ratio (their latest prompts seldom name a
/// line), the fresh needles at 30% / 10% / 5% go from 100 / 38 / 20 to 106 / 61 / 43 of 118,
/// the `heldout.rs` needles from 64 / 44 to 68 / 48 of 124 at 10% / 5%, the tuning generator's
/// from 88.0% to 90.4% at 5%; 1.5 and 2 gain more fresh needles but lose tuning ones.
pub const FOCUS_GAIN: f32 = 1.0;

/// [`Weights::q_gain`]: a line holding one word of the focus (the latest prompt, the
/// `/compact` instructions) is worth this much before the word's rarity. Chosen in the
/// seventeenth round on the real sessions cut at eight points each (`--cuts 0.2,…,0.9`: 44
/// points, 2,173 output facts at 10% / 5%, 2,678 by default): 2 (before) / 1.5 / 1 / 0.5 / 0
/// kept 2,509 / 2,515 / 2,525 / 2,532 / 2,530 by default, 1,752 / 1,766 / 1,768 / 1,781 / 1,787
/// at 10% and 1,177 / 1,187 / 1,184 / 1,190 / 1,195 at 5%, the region's prose strings rising
/// with them; the tuning generators' needles (default, 30%, 10%, 5%; five generators) at 2 /
/// 1 / 0.5 / 0: 1,018 / 1,007 / 1,006 / 996 of about 2,550. One prompt word in a line is a weak sign (prompts share words with
/// many lines); two or more still count through [`FOCUS_GAIN`].
pub const Q_GAIN: f32 = 0.5;

/// The value model's knobs.
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    pub base: f32,
    pub err_line: f32,
    /// Share of their strings' worth that units of dense lines ([`super::F_DENSE`]) keep.
    pub dense: f32,
    pub rel_gain: f32,
    pub df_gain: f32,
    /// Worth of a query word found in a line (before its rarity).
    pub q_gain: f32,
    /// Worth of a line holding `k ≥ 2` words of the focus (the latest prompt): `focus_gain ×
    /// (k − 1) ×` the sum of their rarities. Kept whatever else is chosen (unlike a string's
    /// worth): the prompt's words together pick out the lines it talks about.
    pub focus_gain: f32,
    /// Worth of a line among an output's first `head_lines` or last `tail_lines` lines, or
    /// its first and last `ht_frac` share of lines if that is more (where commands print what
    /// they did and how it ended; only [`Candidate::positional`] pairs); the fit sets it and
    /// `ht_frac` from the budget.
    pub pos_gain: f32,
    pub head_lines: u32,
    pub tail_lines: u32,
    /// The head and tail windows grow to this share of an output's lines.
    pub ht_frac: f32,
    /// Units are ranked by value ÷ cost^`cost_exp` (the budget still counts the whole cost).
    /// Below 1 a long line holding much is not crowded out by short lines holding a little;
    /// the fit sets it from the budget.
    pub cost_exp: f64,
    /// A pair's units are worth `(1 + V)^-pair_decay` of their value, `V` being the value
    /// already kept from that pair: the tenth good line of one output is worth less than the
    /// first of another (what later turns use is spread over many outputs).
    pub pair_decay: f32,
}

impl Weights {
    /// The cost a unit's value is divided by when ranking.
    pub fn dens(&self, c: f64) -> f64 {
        if self.cost_exp == 1.0 {
            c
        } else {
            c.powf(self.cost_exp)
        }
    }
}

impl Default for Weights {
    fn default() -> Weights {
        Weights {
            base: 0.02,
            err_line: 0.5,
            dense: 0.25,
            rel_gain: 1.5,
            df_gain: 1.0,
            q_gain: Q_GAIN,
            focus_gain: FOCUS_GAIN,
            pos_gain: 0.0,
            head_lines: 3,
            tail_lines: 5,
            ht_frac: 0.0,
            cost_exp: 1.0,
            pair_decay: PAIR_DECAY,
        }
    }
}

/// A string's value (before its pair's factor).
pub fn str_value(i: &StrInfo, w: &Weights) -> f32 {
    if i.class == QUERY_CLASS {
        // A word of the current work: rarer across the outputs is worth more.
        return w.q_gain / (1.0 + (i.df().max(1) as f32).ln());
    }
    i.class() * (1.0 + w.rel_gain * i.rel()) * (1.0 + w.df_gain * (i.df().max(1) as f32).ln())
}

/// A unit in its pair's queue: value per cost when last valued, and the unit (8 bytes: the
/// queues hold up to every unit of the region).
#[derive(PartialEq)]
struct Local(f32, u32);
impl Eq for Local {}
impl PartialOrd for Local {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Local {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Ties: earlier units first.
        self.0.total_cmp(&o.0).then(o.1.cmp(&self.1))
    }
}

/// The selection's queues are 4-ary heaps (a node's four children share a cache line: a big
/// output's queue of hundreds of thousands of units costs half the cache misses of a binary
/// heap). Any max-heap pops the same sequence: [`Local`] and [`Pair`] are total orders.
type Queue = dary_heap::QuaternaryHeap<Local>;

/// A pair in the main queue: the worth of its best unit (an upper bound), and the pair.
#[derive(PartialEq)]
struct Pair(f64, u32);
impl Eq for Pair {}
impl PartialOrd for Pair {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pair {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Ties: later pairs first.
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

/// What a unit is worth and costs, given what is already chosen (the selection's value model).
pub(super) struct Model<'a> {
    pub cands: &'a [Candidate],
    pub w: &'a Weights,
    pub marker: Marker,
    /// Each string's rarity if it is a word of the focus, else 0; empty when the focus has no
    /// word in the outputs.
    focus: Vec<f32>,
}

/// Each string's worth ([`str_value`]), 0 for a string already covered (`covered`): the
/// selection reads one float per string instead of its info and two flags, and zeroes it when a
/// kept unit covers it.
pub(super) fn worths(strings: &[StrInfo], covered: &[bool], w: &Weights) -> Vec<f32> {
    strings
        .iter()
        .enumerate()
        .map(|(h, i)| {
            if covered.get(h).copied().unwrap_or(true) {
                0.0
            } else {
                str_value(i, w)
            }
        })
        .collect()
}

impl<'a> Model<'a> {
    /// The model of one selection: `strings` gives the focus words' rarities.
    pub fn new(
        cands: &'a [Candidate],
        w: &'a Weights,
        marker: Marker,
        strings: &[StrInfo],
    ) -> Model<'a> {
        let focus = if w.focus_gain > 0.0 && strings.iter().any(StrInfo::is_focus) {
            strings
                .iter()
                .map(|i| {
                    if i.is_focus() {
                        1.0 / (1.0 + (i.df().max(1) as f32).ln())
                    } else {
                        0.0
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        Model {
            cands,
            w,
            marker,
            focus,
        }
    }

    /// The share of its value a pair's unit keeps when the pair already gave `got`.
    pub fn decay(&self, got: f64) -> f64 {
        let d = f64::from(self.w.pair_decay);
        if d == 0.0 { 1.0 } else { (1.0 + got).powf(-d) }
    }

    /// A unit's value (its pair's factor included, its decay not), `worth` being what each
    /// string is still worth ([`worths`]).
    pub fn value(&self, p: usize, u: &Unit, f: &OutFeat, worth: &[f32]) -> f64 {
        let w = self.w;
        // A blank line or a lone brace carries nothing: no base worth (it is kept only when
        // nothing else is left, not first among fillers for being short).
        let base = if u.sn() == 0 && u.nl() == 0 && u.u16() <= 2 {
            0.0
        } else {
            w.base
        };
        let mut v = base
            + if u.flags() & F_ERR != 0 {
                w.err_line
            } else {
                0.0
            };
        let frac = (f.lines as f32 * w.ht_frac) as u32;
        // Head and tail as truncation would keep them: of a long line in the head only its
        // first segment, of one in the tail only its last.
        if self.cands[p].positional
            && ((u.line() < w.head_lines.max(frac) && u.flags() & F_LINE_START != 0)
                || (u.end_line() + w.tail_lines.max(frac) >= f.lines
                    && u.flags() & F_LINE_END != 0))
        {
            v += w.pos_gain;
        }
        // A unit lists each string once.
        let mut sv = 0.0;
        let (mut fk, mut fs) = (0u32, 0.0f32);
        for h in f.strs.ids(u.strs()) {
            sv += worth.get(h as usize).copied().unwrap_or(0.0);
            if let Some(&r) = self.focus.get(h as usize)
                && r > 0.0
            {
                fk += 1;
                fs += r;
            }
        }
        if fk >= 2 {
            sv += w.focus_gain * (fk - 1) as f32 * fs;
        }
        v += if u.flags() & F_DENSE != 0 {
            sv * w.dense
        } else {
            sv
        };
        f64::from(v * self.cands[p].factor)
    }

    /// A unit's cost in chars: its text, its pair's header while the pair keeps nothing, a cut
    /// marker while neither neighbour is kept.
    pub fn cost(
        &self,
        p: usize,
        ui: usize,
        f: &OutFeat,
        chosen: &[Vec<bool>],
        open: &[bool],
    ) -> f64 {
        let u = &f.units[ui];
        let mut c = f64::from(u.u16()) + 1.0;
        if !open[p] {
            c += self.cands[p].header;
        }
        let left = ui > 0 && chosen[p][ui - 1];
        let right = ui + 1 < f.units.len() && chosen[p][ui + 1];
        if !left && !right {
            c += self.marker.cost();
        }
        c
    }

    /// A unit's value per cost (its pair's decay not included): its rank in its pair's queue.
    pub fn density(
        &self,
        p: usize,
        ui: usize,
        f: &OutFeat,
        worth: &[f32],
        chosen: &[Vec<bool>],
        open: &[bool],
    ) -> f64 {
        self.value(p, &f.units[ui], f, worth) / self.w.dens(self.cost(p, ui, f, chosen, open))
    }

    /// What raises the density of pair `p`'s unit `u` while the pair has kept `kept` of its
    /// [`Candidate::err_floor`] error lines: [`ERR_FLOOR_BONUS`] for an error line below the
    /// floor, else nothing.
    pub fn floor_bonus(&self, p: usize, u: &Unit, kept: u32) -> f64 {
        if kept < self.cands[p].err_floor && self.key(p, u) {
            ERR_FLOOR_BONUS
        } else {
            0.0
        }
    }

    /// Whether a unit is one of pair `p`'s key lines: an error line of a pair with an
    /// [`Candidate::err_floor`].
    pub fn key(&self, p: usize, u: &Unit) -> bool {
        self.cands[p].err_floor > 0 && u.flags() & F_ERR != 0
    }

    /// Whether a unit takes part in the first round (strings or error words) rather than the
    /// second (plain filler).
    pub fn rich(u: &Unit) -> bool {
        u.sn() > 0 || u.flags() & F_ERR != 0
    }
}

/// Select units (per pair, sorted) within `budget` UTF-16 chars.
pub fn select(
    feats: &[Option<&OutFeat>],
    cands: &[Candidate],
    strings: &[StrInfo],
    covered: &[bool],
    w: &Weights,
    marker: Marker,
    budget: f64,
) -> Vec<Vec<u32>> {
    let n = feats.len();
    let mut chosen: Vec<Vec<bool>> = feats
        .iter()
        .map(|f| vec![false; f.map_or(0, |f| f.units.len())])
        .collect();
    let mut open: Vec<bool> = cands.iter().map(|c| c.open).collect();
    let mut worth = worths(strings, covered, w);
    // Value kept from each pair so far: a pair's units are worth less the more it gives.
    let mut got: Vec<f64> = vec![0.0; n];
    let mut kerr: Vec<u32> = vec![0; n];
    let m = Model::new(cands, w, marker, strings);
    // Two rounds: units with strings or error words first, then plain filler lines (so the
    // queues never hold every line of a huge output at once).
    let mut left = budget;
    for round in 0..2 {
        if left < 1.0 {
            // Nothing more fits: no queues to build.
            break;
        }
        let kind = |u: &Unit| Model::rich(u) == (round == 0);
        // Lazy greedy on two levels: each pair keeps its own queue of units keyed by their
        // value per cost when last valued (an upper bound: values only fall as strings get
        // covered), and the main queue holds one entry per pair, keyed by the top of the
        // pair's queue times the pair's decay (the same for all its units, so the pair's own
        // order never goes stale when it gives a line). A pair's queue is built again when the
        // pair opens (its header is paid then, which reorders its units: short lines gain
        // most). Popping the main queue thus gives the best unit of all, as a greedy that
        // re-valued every unit at every step would, without holding every unit in one queue.
        let local = |p: usize,
                     f: &OutFeat,
                     chosen: &[Vec<bool>],
                     open: &[bool],
                     worth: &[f32],
                     kerr: &[u32]| {
            let v: Vec<Local> = f
                .units
                .iter()
                .enumerate()
                .filter(|&(ui, u)| kind(u) && !chosen[p][ui])
                .map(|(ui, _)| {
                    let d = m.density(p, ui, f, worth, chosen, open)
                        + m.floor_bonus(p, &f.units[ui], kerr[p]);
                    Local(d as f32, ui as u32)
                })
                .collect();
            Queue::from(v)
        };
        let mut queues: Vec<Queue> = (0..n)
            .map(|p| match feats[p] {
                Some(f) if cands[p].eligible => local(p, f, &chosen, &open, &worth, &kerr),
                _ => Queue::new(),
            })
            .collect();
        let mut main = dary_heap::QuaternaryHeap::new();
        for (p, q) in queues.iter().enumerate() {
            if let Some(top) = q.peek() {
                main.push(Pair(f64::from(top.0) * m.decay(got[p]), p as u32));
            }
        }
        while let Some(Pair(_, p)) = main.pop() {
            if left < 1.0 {
                break;
            }
            let p = p as usize;
            let Some(f) = feats[p] else { continue };
            // The pair's best unit now: value its top until the top stays on top.
            let q = &mut queues[p];
            let mut best: Option<(f64, usize)> = None;
            while let Some(Local(_, ui)) = q.pop() {
                let ui = ui as usize;
                if chosen[p][ui] {
                    continue;
                }
                let now = m.density(p, ui, f, &worth, &chosen, &open)
                    + m.floor_bonus(p, &f.units[ui], kerr[p]);
                // Compared as stored (f32), so a unit put back never comes straight back.
                match q.peek() {
                    Some(top) if (now as f32) < top.0 => q.push(Local(now as f32, ui as u32)),
                    _ => {
                        best = Some((now, ui));
                        break;
                    }
                }
            }
            let Some((now, ui)) = best else { continue };
            let decay = m.decay(got[p]);
            if let Some(top) = main.peek()
                && now * decay < top.0
            {
                // Another pair may hold better: back in line at its true worth.
                q.push(Local(now as f32, ui as u32));
                main.push(Pair(now * decay, p as u32));
                continue;
            }
            let c = m.cost(p, ui, f, &chosen, &open);
            if c <= left {
                left -= c;
                got[p] += m.value(p, &f.units[ui], f, &worth);
                chosen[p][ui] = true;
                let floor_met = m.key(p, &f.units[ui]) && {
                    kerr[p] += 1;
                    kerr[p] == cands[p].err_floor
                };
                for h in f.strs.ids(f.units[ui].strs()) {
                    if let Some(c) = worth.get_mut(h as usize) {
                        *c = 0.0;
                    }
                }
                if !open[p] || floor_met {
                    // The header is paid (or the error floor met): value the pair's units again.
                    open[p] = true;
                    queues[p] = local(p, f, &chosen, &open, &worth, &kerr);
                } else {
                    // The neighbours' marker cost fell: queue them at their new worth.
                    for k in [ui.wrapping_sub(1), ui + 1] {
                        if k < f.units.len() && !chosen[p][k] && kind(&f.units[k]) {
                            let pr = m.density(p, k, f, &worth, &chosen, &open)
                                + m.floor_bonus(p, &f.units[k], kerr[p]);
                            queues[p].push(Local(pr as f32, k as u32));
                        }
                    }
                }
            }
            if let Some(top) = queues[p].peek() {
                main.push(Pair(f64::from(top.0) * m.decay(got[p]), p as u32));
            }
        }
    }
    chosen
        .into_iter()
        .map(|c| {
            c.iter()
                .enumerate()
                .filter(|(_, x)| **x)
                .map(|(i, _)| i as u32)
                .collect()
        })
        .collect()
}
