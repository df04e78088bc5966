//! Lazy greedy selection of output units by value per char ([`select`]) under a line budget.

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
}

/// The value model's knobs.
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    pub base: f32,
    pub err_line: f32,
    pub rel_gain: f32,
    pub df_gain: f32,
    /// Worth of a query word found in a line (before its rarity).
    pub q_gain: f32,
    /// Worth of a line among an output's first `head_lines` or last `tail_lines` lines, or
    /// its first and last `ht_frac` share of lines if that is more (where commands print what
    /// they did and how it ended); the fit sets it and `ht_frac` from the budget.
    pub pos_gain: f32,
    pub head_lines: u32,
    pub tail_lines: u32,
    /// The head and tail windows grow to this share of an output's lines.
    pub ht_frac: f32,
    /// Units are ranked by value ÷ cost^`cost_exp` (the budget still counts the whole cost).
    /// Below 1 a long line holding much is not crowded out by short lines holding a little;
    /// the fit sets it from the budget.
    pub cost_exp: f64,
}

impl Weights {
    /// The cost a unit's value is divided by when ranking.
    fn dens(&self, c: f64) -> f64 {
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
            rel_gain: 1.5,
            df_gain: 1.0,
            q_gain: 2.0,
            pos_gain: 0.0,
            head_lines: 3,
            tail_lines: 5,
            ht_frac: 0.0,
            cost_exp: 1.0,
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

/// The selection's queue: a 4-ary heap (a node's four children share a cache line, so a big
/// session's queue of hundreds of thousands of entries costs half the cache misses of a binary
/// heap). Any max-heap pops the same sequence: [`Prio`] is a total order.
type Heap = dary_heap::QuaternaryHeap<Prio>;

#[derive(PartialEq)]
struct Prio(f64, u32, u32);
impl Eq for Prio {}
impl PartialOrd for Prio {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Prio {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0
            .total_cmp(&o.0)
            // Ties: later pairs first, then earlier units.
            .then(self.1.cmp(&o.1))
            .then(o.2.cmp(&self.2))
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
    let mut cov: Vec<bool> = vec![false; strings.len()];
    let value = |p: usize, u: &Unit, f: &OutFeat, cov: &[bool]| -> f64 {
        let mut v = w.base
            + if u.flags() & F_ERR != 0 {
                w.err_line
            } else {
                0.0
            };
        let frac = (f.lines as f32 * w.ht_frac) as u32;
        if u.line() < w.head_lines.max(frac) || u.end_line() + w.tail_lines.max(frac) >= f.lines {
            v += w.pos_gain;
        }
        let strs = &f.strs[u.strs()];
        for (k, &h) in strs.iter().enumerate() {
            let h = h as usize;
            if covered.get(h).copied().unwrap_or(true)
                || cov.get(h).copied().unwrap_or(true)
                || strs[..k].contains(&(h as u32))
            {
                continue;
            }
            v += str_value(&strings[h], w);
        }
        f64::from(v * cands[p].factor)
    };
    let cost = |p: usize, ui: usize, f: &OutFeat, chosen: &[Vec<bool>], open: &[bool]| -> f64 {
        let u = &f.units[ui];
        let mut c = f64::from(u.u16()) + 1.0;
        if !open[p] {
            c += cands[p].header;
        }
        let left = ui > 0 && chosen[p][ui - 1];
        let right = ui + 1 < f.units.len() && chosen[p][ui + 1];
        if !left && !right {
            c += marker.cost();
        }
        c
    };
    // Two rounds: units with strings or error words first, then plain filler lines (so the
    // heap never holds every line of a huge output at once).
    let rich = |u: &Unit| u.sn() > 0 || u.flags() & F_ERR != 0;
    let mut left = budget;
    for round in 0..2 {
        // Each pair's units in order of their first priority; the heap holds a few per pair
        // and takes the next one whenever one of the pair's entries is settled.
        let mut order: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut next: Vec<usize> = vec![0; n];
        for p in 0..n {
            let Some(f) = feats[p] else { continue };
            if !cands[p].eligible {
                continue;
            }
            let mut v: Vec<(f32, u32)> = Vec::new();
            for (ui, u) in f.units.iter().enumerate() {
                if rich(u) != (round == 0) || chosen[p][ui] {
                    continue;
                }
                let pr = value(p, u, f, &cov) / w.dens(cost(p, ui, f, &chosen, &open));
                v.push((pr as f32, ui as u32));
            }
            v.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            order[p] = v.into_iter().map(|x| x.1).collect();
        }
        let mut heap = Heap::new();
        let feed = |p: usize,
                    k: usize,
                    heap: &mut Heap,
                    next: &mut [usize],
                    chosen: &[Vec<bool>],
                    open: &[bool],
                    cov: &[bool]| {
            let Some(f) = feats[p] else { return };
            let mut pushed = 0;
            while pushed < k && next[p] < order[p].len() {
                let ui = order[p][next[p]] as usize;
                next[p] += 1;
                if chosen[p][ui] {
                    continue;
                }
                let pr = value(p, &f.units[ui], f, cov) / w.dens(cost(p, ui, f, chosen, open));
                heap.push(Prio(pr, p as u32, ui as u32));
                pushed += 1;
            }
        };
        for p in 0..n {
            feed(p, 4, &mut heap, &mut next, &chosen, &open, &cov);
        }
        while let Some(Prio(pr, p, ui)) = heap.pop() {
            if left < 1.0 {
                break;
            }
            let (p, ui) = (p as usize, ui as usize);
            if chosen[p][ui] {
                continue;
            }
            let Some(f) = feats[p] else { continue };
            let v = value(p, &f.units[ui], f, &cov);
            let c = cost(p, ui, f, &chosen, &open);
            let now = v / w.dens(c);
            if now + 1e-12 < pr
                && let Some(top) = heap.peek()
                && now < top.0
            {
                heap.push(Prio(now, p as u32, ui as u32));
                continue;
            }
            // Settled (taken or too big): the pair's next candidate joins the heap.
            feed(p, 1, &mut heap, &mut next, &chosen, &open, &cov);
            if c > left {
                continue;
            }
            left -= c;
            chosen[p][ui] = true;
            let u = &f.units[ui];
            for &h in &f.strs[u.strs()] {
                if let Some(c) = cov.get_mut(h as usize) {
                    *c = true;
                }
            }
            let was_open = open[p];
            open[p] = true;
            // Costs fell: the marker for the neighbours and, when the pair just opened, the
            // header for its other units (only its best few are queued again, so the heap stays
            // small; the rest are re-valued when they come up).
            let mut again: Vec<(f64, usize)> = Vec::new();
            let push = |k: usize, again: &mut Vec<(f64, usize)>, chosen: &[Vec<bool>]| {
                if k < f.units.len() && !chosen[p][k] && rich(&f.units[k]) == (round == 0) {
                    let v = value(p, &f.units[k], f, &cov);
                    let c = cost(p, k, f, chosen, &open);
                    again.push((v / w.dens(c), k));
                }
            };
            push(ui.wrapping_sub(1), &mut again, &chosen);
            push(ui + 1, &mut again, &chosen);
            if !was_open {
                let mut rest: Vec<(f64, usize)> = Vec::new();
                for k in 0..f.units.len() {
                    if k + 1 != ui && k != ui + 1 {
                        push(k, &mut rest, &chosen);
                    }
                }
                if rest.len() > REQUEUE {
                    rest.select_nth_unstable_by(REQUEUE, |a, b| b.0.total_cmp(&a.0));
                    rest.truncate(REQUEUE);
                }
                again.extend(rest);
            }
            for (pr, k) in again {
                heap.push(Prio(pr, p as u32, k as u32));
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
