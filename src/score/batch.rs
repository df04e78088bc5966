//! Batching of probes into requests under the Jev size limits (`docs/jev.md#batching`), done once
//! above the wire adapters.
//!
//! All sizes are *estimated* tokens, from [`crate::jscompat::estimate_request_tokens`] (the
//! conservative character-class estimator) and the request's own `state_tokens` / `est_tokens`.
//! For each request:
//!
//! - (a) state ≤ 28,000;
//! - (b) state + largest single question ≤ 32,000 × 0.95;
//! - (c) state + Σ questions + 200 envelope ≤ 64,000 × 0.95.
//!
//! [`fit`] first re-renders a pair whose questions do not fit in a request of their own with
//! smaller windows, down the ladder of [`crate::score::questions::LADDER`] (`docs/jev.md#batching`); a
//! pair that does not fit even at the smallest windows is left out (the scorers score it
//! offline and say so). [`pack`] then packs by first-fit decreasing with both questions of a
//! pair in the same batch. Splitting on 413 / size-related 422 happens in the engine (`http`),
//! halving a batch at most [`crate::score::http::MAX_SPLIT_DEPTH`] times; a lone pair the server
//! still finds too large walks further down the ladder.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Mutex;

use crate::jscompat::estimate_request_tokens;
use crate::score::questions::{self, LADDER};

use super::{OfflinePair, PairProbe, PairScore, ScoreRequest, ScoreSource, ScorerError, Shrunk};

/// `criteria` of the `useful_tN` question: (true, false).
pub const USEFUL_CRITERIA: (&str, &str) = (
    "The tool call or its result still informs the current project, the session's goals or the \
     latest prompts.",
    "The tool call and its result are stale, superseded or unrelated to the current work.",
);

/// `criteria` of the `full_tN` question: (true, false).
pub const FULL_CRITERIA: (&str, &str) = (
    "Details found only in the middle of the output are likely to be needed later.",
    "The beginning and end of the output suffice, or the call can simply be re-run.",
);

/// Estimated tokens of a question besides its instructions: the id, `type`, key names and
/// punctuation of `{"useful_tN":{"type":"noul","instructions":…,"criteria":{"true":…,"false":…}}}`.
const QUESTION_ENVELOPE: u64 = 24;

/// Request size limits, in estimated tokens.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// (a) The state alone (default 28,000).
    pub state_max: u64,
    /// (b) State + the largest single question, before the margin (default 32,000).
    pub question_max: u64,
    /// (c) The whole request, before the margin (default 64,000).
    pub request_max: u64,
    /// Safety factor applied to (b) and (c) (default 0.95).
    pub margin: f64,
    /// Allowance for the request envelope (`model`, braces, key names; default 200).
    pub envelope: u64,
    /// Most pairs per batch (default unlimited; the chat adapter uses 20).
    pub max_pairs: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            state_max: 28_000,
            question_max: 32_000,
            request_max: 64_000,
            margin: 0.95,
            envelope: 200,
            max_pairs: usize::MAX,
        }
    }
}

impl Limits {
    /// (b) after the margin: 30,400 by default.
    pub fn question_budget(&self) -> u64 {
        scaled(self.question_max, self.margin)
    }
    /// (c) after the margin: 60,800 by default.
    pub fn request_budget(&self) -> u64 {
        scaled(self.request_max, self.margin)
    }
}

fn scaled(v: u64, margin: f64) -> u64 {
    // Integer percent math keeps this exact for the usual margins (0.95 → 95/100).
    let pct = (margin.clamp(0.0, 1.0) * 10_000.0).round() as u64;
    v.saturating_mul(pct) / 10_000
}

/// Estimated sizes of one pair's questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairCost {
    /// The larger of the two questions (for limit (b)).
    pub largest_question: u64,
    /// Both questions together (for limit (c)): the larger of the probe's `est_tokens` and our
    /// own per-question estimate.
    pub total: u64,
}

/// Estimated tokens of one question with the given instructions and criteria.
pub fn question_tokens(instructions: &str, criteria: (&str, &str)) -> u64 {
    estimate_request_tokens(instructions)
        + estimate_request_tokens(criteria.0)
        + estimate_request_tokens(criteria.1)
        + QUESTION_ENVELOPE
}

/// The estimated cost of a probe.
pub fn pair_cost(probe: &PairProbe) -> PairCost {
    if let Some(c) = probe.lite_cost {
        return c;
    }
    let useful = question_tokens(&probe.useful_instructions, USEFUL_CRITERIA);
    let full = question_tokens(&probe.full_instructions, FULL_CRITERIA);
    PairCost {
        largest_question: useful.max(full),
        total: probe.est_tokens.max(useful + full),
    }
}

/// Whether limit (a) holds for the request's state.
pub fn state_fits(req: &ScoreRequest, limits: &Limits) -> bool {
    req.state_tokens <= limits.state_max
}

/// Whether probe `i` fits in a request of its own (limits (a), (b) and (c)).
pub fn fits_alone(req: &ScoreRequest, limits: &Limits, i: usize) -> bool {
    let Some(probe) = req.probes.get(i) else {
        return false;
    };
    state_fits(req, limits) && probe_fits(req.state_tokens, probe, limits)
}

/// Limits (b) and (c) for `probe` alone with a state of `state_tokens`.
pub fn probe_fits(state_tokens: u64, probe: &PairProbe, limits: &Limits) -> bool {
    let c = pair_cost(probe);
    state_tokens + c.largest_question <= limits.question_budget()
        && state_tokens + c.total + limits.envelope <= limits.request_budget()
}

/// A request fitted to the limits by [`fit`].
#[derive(Clone, Debug)]
pub struct Fitted<'a> {
    /// What to send: the original request when every pair fits, else a copy in which
    /// oversized pairs are re-rendered with smaller windows and unfit pairs are left out.
    pub req: Cow<'a, ScoreRequest>,
    /// The ladder rung of each probe of `req` (0 = the design's windows).
    pub rungs: Vec<usize>,
    /// Pairs whose windows were shrunk.
    pub shrunk: Vec<Shrunk>,
    /// Pairs that do not fit even at the smallest windows.
    pub unfit: Vec<OfflinePair>,
}

/// The first rung after `from` at which `probe`'s questions pass `ok`, re-rendered.
pub fn smaller(
    probe: &PairProbe,
    from: usize,
    ok: impl Fn(&PairProbe) -> bool,
) -> Option<(usize, PairProbe)> {
    (from + 1..LADDER.len())
        .map(|r| (r, questions::probe_at(probe.pair.clone(), r)))
        .find(|(_, p)| p.est_tokens < probe.est_tokens && ok(p))
}

/// Fits every pair into a request of its own: a pair over limit (b) or (c) is re-rendered at the
/// first ladder rung that fits; one that fits at no rung is left out and listed in `unfit`.
/// Borrows `req` unchanged when nothing needs to change (or when the state itself is over (a),
/// which [`precheck`] reports). Pure and deterministic.
pub fn fit<'a>(req: &'a ScoreRequest, limits: &Limits) -> Fitted<'a> {
    let all_fit = (0..req.probes.len()).all(|i| fits_alone(req, limits, i));
    if all_fit || !state_fits(req, limits) {
        return Fitted {
            req: Cow::Borrowed(req),
            rungs: vec![0; req.probes.len()],
            shrunk: Vec::new(),
            unfit: Vec::new(),
        };
    }
    let smallest = LADDER[LADDER.len() - 1];
    let mut out = Fitted {
        req: Cow::Borrowed(req),
        rungs: Vec::with_capacity(req.probes.len()),
        shrunk: Vec::new(),
        unfit: Vec::new(),
    };
    let mut probes = Vec::with_capacity(req.probes.len());
    for (i, probe) in req.probes.iter().enumerate() {
        if fits_alone(req, limits, i) {
            probes.push(probe.clone());
            out.rungs.push(0);
            continue;
        }
        match smaller(probe, 0, |p| probe_fits(req.state_tokens, p, limits)) {
            Some((rung, p)) => {
                out.shrunk.push(Shrunk {
                    pair: probe.pair.pair_id.clone(),
                    windows: LADDER[rung].label(),
                    from_tokens: probe.est_tokens,
                    to_tokens: p.est_tokens,
                    reason: "request limits".to_string(),
                });
                probes.push(p);
                out.rungs.push(rung);
            }
            None => out.unfit.push(OfflinePair {
                pair: probe.pair.pair_id.clone(),
                reason: format!(
                    "too large for one request even with {}-char windows (state {} + questions \
                     {} estimated tokens; limits {} / {})",
                    smallest.head,
                    req.state_tokens,
                    questions::probe_at(probe.pair.clone(), LADDER.len() - 1).est_tokens,
                    limits.question_budget(),
                    limits.request_budget()
                ),
            }),
        }
    }
    out.req = Cow::Owned(ScoreRequest {
        state_json: req.state_json.clone(),
        state_tokens: req.state_tokens,
        probes,
        kept_context: req.kept_context.clone(),
    });
    out
}

/// The probes of a fitted request as the wire sends them: each probe as fitted, or as re-rendered
/// further down the ladder after the server found a request holding it alone too large.
pub(crate) struct Sending<'a> {
    pub req: &'a ScoreRequest,
    limits: &'a Limits,
    rungs: Mutex<Vec<usize>>,
    over: Mutex<HashMap<usize, PairProbe>>,
    shrunk: Mutex<Vec<Shrunk>>,
}

impl<'a> Sending<'a> {
    pub fn new(
        req: &'a ScoreRequest,
        limits: &'a Limits,
        rungs: Vec<usize>,
        shrunk: Vec<Shrunk>,
    ) -> Sending<'a> {
        Sending {
            req,
            limits,
            rungs: Mutex::new(rungs),
            over: Mutex::new(HashMap::new()),
            shrunk: Mutex::new(shrunk),
        }
    }

    /// Probe `i` as it is sent now.
    pub fn probe(&self, i: usize) -> Option<Cow<'a, PairProbe>> {
        let over = self.over.lock().unwrap_or_else(|e| e.into_inner());
        match over.get(&i) {
            Some(p) => Some(Cow::Owned(p.clone())),
            None => self.req.probes.get(i).map(Cow::Borrowed),
        }
    }

    /// The pair id of probe `i`.
    pub fn pair_id(&self, i: usize) -> String {
        self.req
            .probes
            .get(i)
            .map(|p| p.pair.pair_id.clone())
            .unwrap_or_default()
    }

    /// The scores of the probes at `batch` from an answer: `answer(id)` reads the value of the
    /// question `id` (`useful_{pair}`, `full_{pair}`) or says why the answer is invalid.
    pub fn scores(
        &self,
        batch: &[usize],
        source: ScoreSource,
        model: Option<String>,
        answer: impl Fn(&str) -> Result<f64, String>,
    ) -> Result<Vec<PairScore>, String> {
        batch
            .iter()
            .filter_map(|&i| self.req.probes.get(i))
            .map(|p| {
                let id = &p.pair.pair_id;
                Ok(PairScore {
                    pair_id: id.clone(),
                    useful: answer(&format!("useful_{id}"))?,
                    full: answer(&format!("full_{id}"))?,
                    source,
                    model: model.clone(),
                })
            })
            .collect()
    }

    /// [`precheck`] of `batch` as it is sent now.
    pub fn precheck(&self, batch: &[usize]) -> Result<(), ScorerError> {
        if !state_fits(self.req, self.limits) {
            return precheck(self.req, self.limits, batch);
        }
        match batch {
            [i] => match self.probe(*i) {
                Some(p) if !probe_fits(self.req.state_tokens, &p, self.limits) => {
                    precheck(self.req, self.limits, batch)
                }
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// Estimated input tokens of a request for `batch`: state + questions + envelope.
    pub fn estimated_tokens(&self, batch: &[usize]) -> u64 {
        let questions: u64 = batch
            .iter()
            .filter_map(|&i| self.probe(i))
            .map(|p| pair_cost(&p).total)
            .sum();
        self.req.state_tokens + questions + self.limits.envelope
    }

    /// Moves probe `i` to the next smaller ladder rung; `false` at the smallest.
    pub fn shrink(&self, i: usize, why: &str) -> bool {
        let Some(current) = self.probe(i) else {
            return false;
        };
        let mut rungs = self.rungs.lock().unwrap_or_else(|e| e.into_inner());
        let Some(rung) = rungs.get(i).copied() else {
            return false;
        };
        let Some((next, p)) = smaller(&current, rung, |_| true) else {
            return false;
        };
        rungs[i] = next;
        let mut shrunk = self.shrunk.lock().unwrap_or_else(|e| e.into_inner());
        let id = &current.pair.pair_id;
        match shrunk.iter_mut().find(|s| &s.pair == id) {
            Some(s) => {
                s.windows = LADDER[next].label();
                s.to_tokens = p.est_tokens;
                if !s.reason.ends_with(why) {
                    s.reason = format!("{}, then {why}", s.reason);
                }
            }
            None => shrunk.push(Shrunk {
                pair: id.clone(),
                windows: LADDER[next].label(),
                from_tokens: current.est_tokens,
                to_tokens: p.est_tokens,
                reason: why.to_string(),
            }),
        }
        self.over
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(i, p);
        true
    }

    /// Every pair shrunk so far, in pair order.
    pub fn take_shrunk(&self) -> Vec<Shrunk> {
        let mut v = std::mem::take(&mut *self.shrunk.lock().unwrap_or_else(|e| e.into_inner()));
        let order: HashMap<&str, usize> = self
            .req
            .probes
            .iter()
            .enumerate()
            .map(|(i, p)| (p.pair.pair_id.as_str(), i))
            .collect();
        v.sort_by_key(|s| order.get(s.pair.as_str()).copied().unwrap_or(usize::MAX));
        v
    }
}

/// What a wire scorer with `limits` would note before sending `req`: the pairs it would shrink
/// and those it would score offline (for `--dry-run`).
pub fn plan_notes(req: &ScoreRequest, limits: &Limits) -> super::ScoreNotes {
    let fitted = fit(req, limits);
    let mut notes = super::ScoreNotes {
        shrunk: fitted.shrunk,
        offline: fitted.unfit,
        ..super::ScoreNotes::default()
    };
    notes.warn_shrunk("would be asked");
    if !notes.offline.is_empty() {
        let ids: Vec<&str> = notes.offline.iter().map(|o| o.pair.as_str()).collect();
        notes.warnings.push(format!(
            "{} pair(s) would be scored offline: too large for one request even at the smallest windows: {}",
            ids.len(),
            super::notes::id_list(&ids, 10)
        ));
    }
    notes
}

/// How many requests a wire scorer with `limits` sends for `req` when no request fails:
/// [`fit`], then [`pack`].
pub fn request_count(req: &ScoreRequest, limits: &Limits) -> usize {
    let fitted = fit(req, limits);
    pack(&fitted.req, limits).len()
}

/// Local refusal of a batch that cannot be sent: the state over (a), or a lone pair over (b) or
/// (c). Names pair ids and sizes only.
pub fn precheck(req: &ScoreRequest, limits: &Limits, batch: &[usize]) -> Result<(), ScorerError> {
    if !state_fits(req, limits) {
        return Err(super::http::local_error(
            "too-large",
            format!(
                "the state is {} estimated tokens, over the {} limit",
                req.state_tokens, limits.state_max
            ),
        ));
    }
    if let [i] = batch
        && !fits_alone(req, limits, *i)
    {
        let probe = &req.probes[*i];
        let c = pair_cost(probe);
        return Err(super::http::local_error(
            "too-large",
            format!(
                "pair {} does not fit in one request (state {} + largest question {} / both \
                 questions {} estimated tokens; limits {} / {})",
                probe.pair.pair_id,
                req.state_tokens,
                c.largest_question,
                c.total,
                limits.question_budget(),
                limits.request_budget()
            ),
        ));
    }
    Ok(())
}

/// Pack `req.probes` (by index) into batches: first-fit decreasing — pairs by estimated cost,
/// largest first, each into the first batch that still has room under limit (c) and
/// `max_pairs` — which keeps the request count at or next to [`lower_bound`] (results are merged
/// by id, so the split does not change any decision). Both questions of a pair stay together;
/// within a batch pairs are in pair order, and batches are ordered by their first pair. Pairs
/// that cannot fit alone get a batch of their own. Pure; every probe index appears exactly once.
pub fn pack(req: &ScoreRequest, limits: &Limits) -> Vec<Vec<usize>> {
    let room = limits
        .request_budget()
        .saturating_sub(req.state_tokens + limits.envelope);
    let max_pairs = limits.max_pairs.max(1);
    let mut batches: Vec<(Vec<usize>, u64)> = Vec::new();
    let mut order: Vec<(usize, u64)> = Vec::with_capacity(req.probes.len());
    for (i, probe) in req.probes.iter().enumerate() {
        if fits_alone(req, limits, i) {
            order.push((i, pair_cost(probe).total));
        } else {
            // Kept apart; refused locally by `precheck`, never sent.
            batches.push((vec![i], u64::MAX));
        }
    }
    // Largest first; ties in pair order (a stable sort keeps it deterministic).
    order.sort_by_key(|&(_, cost)| std::cmp::Reverse(cost));
    for (i, cost) in order {
        let slot = batches
            .iter_mut()
            .find(|(b, used)| *used != u64::MAX && b.len() < max_pairs && used + cost <= room);
        match slot {
            Some((b, used)) => {
                b.push(i);
                *used += cost;
            }
            None => batches.push((vec![i], cost)),
        }
    }
    let mut out: Vec<Vec<usize>> = batches
        .into_iter()
        .map(|(mut b, _)| {
            b.sort_unstable();
            b
        })
        .collect();
    out.sort_by_key(|b| b.first().copied().unwrap_or(usize::MAX));
    out
}

/// A lower bound on the number of requests any packing needs: the larger of Σ pair costs over
/// the room left by the state, and pairs over `max_pairs`, plus one per pair that cannot fit.
pub fn lower_bound(req: &ScoreRequest, limits: &Limits) -> usize {
    let room = limits
        .request_budget()
        .saturating_sub(req.state_tokens + limits.envelope)
        .max(1);
    let (mut fitting, mut tokens, mut lone) = (0usize, 0u64, 0usize);
    for (i, probe) in req.probes.iter().enumerate() {
        if fits_alone(req, limits, i) {
            fitting += 1;
            tokens += pair_cost(probe).total;
        } else {
            lone += 1;
        }
    }
    let by_tokens = usize::try_from(tokens.div_ceil(room)).unwrap_or(usize::MAX);
    let by_count = fitting.div_ceil(limits.max_pairs.max(1));
    by_tokens.max(by_count) + lone
}

/// The two halves of a batch (the first half is the smaller one for odd lengths).
pub fn split_half(batch: &[usize]) -> (&[usize], &[usize]) {
    batch.split_at(batch.len() / 2)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::score::{PairData, PairProbe, ScoreRequest};

    /// A probe with instructions of `chars` characters of English-like text.
    pub(crate) fn probe(n: usize, chars: usize) -> PairProbe {
        let text: String = "the quick brown fox reads src/main.rs line 42; "
            .chars()
            .cycle()
            .take(chars)
            .collect();
        let useful = format!("Is this still useful? t{n}\n{text}");
        let full = format!("Is the middle needed? t{n}\n{text}");
        let est_tokens = estimate_request_tokens(&useful) + estimate_request_tokens(&full);
        PairProbe {
            pair: PairData {
                pair_id: format!("t{n}"),
                index: n,
                count: 0,
                tool: "read".into(),
                args: serde_json::json!({"path": "src/main.rs"}).into(),
                output: String::new(),
                is_error: false,
                call_entry: format!("a{n}"),
                result_entry: format!("r{n}"),
            },
            useful_instructions: useful,
            full_instructions: full,
            est_tokens,
            lite_cost: None,
        }
    }

    pub(crate) fn request(state_tokens: u64, sizes: &[usize]) -> ScoreRequest {
        ScoreRequest {
            state_json: r#"{"task":"t"}"#.into(),
            state_tokens,
            probes: sizes
                .iter()
                .enumerate()
                .map(|(i, &c)| probe(i, c))
                .collect(),
            kept_context: vec![],
        }
    }

    fn check_batch(req: &ScoreRequest, limits: &Limits, batch: &[usize]) {
        let total: u64 = batch.iter().map(|&i| pair_cost(&req.probes[i]).total).sum();
        let largest = batch
            .iter()
            .map(|&i| pair_cost(&req.probes[i]).largest_question)
            .max()
            .unwrap();
        assert!(req.state_tokens <= limits.state_max);
        assert!(req.state_tokens + largest <= limits.question_budget());
        assert!(req.state_tokens + total + limits.envelope <= limits.request_budget());
        assert!(batch.len() <= limits.max_pairs);
    }

    #[test]
    fn a_lightened_probe_costs_and_packs_as_before() {
        let limits = Limits::default();
        let req = request(2_000, &[40_000, 90_000, 9_000, 300, 150_000]);
        let mut lite = req.clone();
        for p in &mut lite.probes {
            p.lighten();
            assert!(p.useful_instructions.is_empty() && p.full_instructions.is_empty());
        }
        for (a, b) in req.probes.iter().zip(&lite.probes) {
            assert_eq!(pair_cost(a), pair_cost(b));
            assert_ne!(pair_cost(a).total, 0);
        }
        assert_eq!(pack(&req, &limits), pack(&lite, &limits));
        assert_eq!(request_count(&req, &limits), request_count(&lite, &limits));
    }

    #[test]
    fn budgets_apply_the_margin() {
        let l = Limits::default();
        assert_eq!(l.question_budget(), 30_400);
        assert_eq!(l.request_budget(), 60_800);
    }

    #[test]
    fn hundreds_of_pairs_pack_within_limits() {
        // 600 pairs, outputs from tiny to the full 7,500-char window (×2 questions), state 20k.
        let sizes: Vec<usize> = (0..600).map(|i| 200 + (i * 7919) % 7_500).collect();
        let req = request(20_000, &sizes);
        let limits = Limits::default();
        let batches = pack(&req, &limits);
        let mut flat: Vec<usize> = batches.iter().flatten().copied().collect();
        flat.sort_unstable();
        assert_eq!(flat, (0..600).collect::<Vec<_>>(), "every pair once");
        for b in &batches {
            check_batch(&req, &limits, b);
            assert!(
                b.windows(2).all(|w| w[0] < w[1]),
                "pair order within a batch"
            );
        }
        let lb = lower_bound(&req, &limits);
        assert!(batches.len() >= lb, "{} < {lb}", batches.len());
        // First-fit decreasing: within one request of the lower bound.
        assert!(batches.len() <= lb + 1, "{} vs {lb}", batches.len());
        assert!(batches.len() > 5, "several batches: {}", batches.len());
        // Nothing left over could have joined an earlier batch's room.
        let room = limits.request_budget() - req.state_tokens - limits.envelope;
        let used: Vec<u64> = batches
            .iter()
            .map(|b| b.iter().map(|&i| pair_cost(&req.probes[i]).total).sum())
            .collect();
        assert!(used.iter().all(|&u| u <= room));
    }

    #[test]
    fn max_pairs_caps_batches() {
        let req = request(1_000, &[100; 45]);
        let limits = Limits {
            max_pairs: 20,
            ..Limits::default()
        };
        let batches = pack(&req, &limits);
        assert_eq!(
            batches.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![20, 20, 5]
        );
        assert_eq!(lower_bound(&req, &limits), 3);
    }

    #[test]
    fn oversize_pair_stands_alone_and_is_refused() {
        // A pair whose single question is ~16k tokens with a 20k state breaks (b).
        let mut sizes = vec![1_000; 5];
        sizes[2] = 100_000;
        let req = request(20_000, &sizes);
        let limits = Limits::default();
        assert!(!fits_alone(&req, &limits, 2));
        let batches = pack(&req, &limits);
        assert_eq!(batches, vec![vec![0, 1, 3, 4], vec![2]]);
        assert!(precheck(&req, &limits, &[2]).is_err());
        assert!(precheck(&req, &limits, &[0, 1]).is_ok());
        assert_eq!(lower_bound(&req, &limits), 2);
    }

    #[test]
    fn state_over_limit_is_refused() {
        let req = request(28_001, &[100]);
        let e = precheck(&req, &Limits::default(), &[0]).unwrap_err();
        assert_eq!(e.kind, "too-large");
        assert!(!e.message.contains("quick brown"));
    }

    #[test]
    fn empty_request_packs_to_nothing() {
        let req = request(100, &[]);
        assert!(pack(&req, &Limits::default()).is_empty());
        assert_eq!(lower_bound(&req, &Limits::default()), 0);
    }

    #[test]
    fn halves() {
        assert_eq!(split_half(&[1, 2, 3]), (&[1][..], &[2, 3][..]));
        assert_eq!(split_half(&[1, 2]), (&[1][..], &[2][..]));
    }

    #[test]
    fn fit_shrinks_oversized_pairs_and_leaves_out_unfit_ones() {
        let mut req = request(20_000, &[200, 200, 200]);
        // t1: a long output rendered whole (the design's windows are far over (b) here).
        req.probes[1].pair.output = "0x1f2e; ".repeat(15_000);
        req.probes[1].useful_instructions = req.probes[1].pair.output.clone();
        req.probes[1].est_tokens = 2 * estimate_request_tokens(&req.probes[1].pair.output);
        let limits = Limits::default();
        assert!(!fits_alone(&req, &limits, 1));
        let f = fit(&req, &limits);
        assert_eq!(f.req.probes.len(), 3);
        assert!(f.unfit.is_empty());
        assert_eq!(f.shrunk.len(), 1);
        assert_eq!(f.shrunk[0].pair, "t1");
        assert!(f.rungs[1] > 0 && f.rungs[0] == 0 && f.rungs[2] == 0);
        assert!((0..3).all(|i| fits_alone(&f.req, &limits, i)));
        assert_eq!(f.req.probes[0], req.probes[0], "fitting pairs untouched");
        // Nothing to change: borrowed, no copy.
        let small = request(100, &[200]);
        assert!(matches!(fit(&small, &limits).req, Cow::Borrowed(_)));
        // Limits under which even the smallest rendering is over (b): left out.
        let tight = Limits {
            question_max: 20_700,
            margin: 1.0,
            ..Limits::default()
        };
        let f = fit(&req, &tight);
        let ids: Vec<&str> = f
            .req
            .probes
            .iter()
            .map(|p| p.pair.pair_id.as_str())
            .collect();
        assert_eq!(ids, ["t0", "t2"]);
        assert_eq!(f.unfit[0].pair, "t1");
        assert_eq!(request_count(&req, &tight), pack(&f.req, &tight).len());
        // The dry-run preview says the same.
        let n = plan_notes(&req, &limits);
        assert_eq!(n.shrunk.len(), 1);
        assert!(n.warnings[0].contains("would be asked with smaller output windows"));
        let n = plan_notes(&req, &tight);
        assert_eq!(n.offline[0].pair, "t1");
        assert!(
            n.warnings
                .iter()
                .any(|w| w.contains("would be scored offline"))
        );
    }
}
