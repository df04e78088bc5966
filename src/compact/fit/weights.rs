//! The selection's weights by budget: below [`HEAD_TAIL_FROM`] of the region the defaults
//! ([`Weights::default`]: value per char, a slow per-call decay, position worth nothing) but for
//! the pair decay, which starts to rise at [`FAST_DECAY_FROM`]; from [`GENEROUS_FULL_AT`] on the
//! generous ones (head/tail worth and windows, a faster decay, a cost exponent under 1), where
//! there is room to hedge on where a needed line sits; linear blends between. The head/tail worth
//! goes to commands' outputs only, not to a file's text ([`super::FILE_TEXT_TOOLS`]).

use super::budget::Weights;

/// From a budget of this share of the region on, an output's head and tail lines gain worth,
/// growing to [`POS_GAIN_PER_RATIO`] × the ratio at [`GENEROUS_FULL_AT`] (a budget of 30% makes a
/// head/tail line worth about 2.4 distinctive strings; [`weights_at`]). Chosen on the tuning
/// curve (README "Compaction quality"): at 30% it lifts the needles of every generator and leaves
/// the real sessions about where they were; at 10% it cost the real sessions 0.05, so smaller
/// budgets do without it. The gain was 15 until the pair decay rose to [`GENEROUS_PAIR_DECAY`];
/// with it, 4 / 6 / 8 / 15 / 25 kept 808 / 804 / 799 / 793 / 793 of the real sessions' 817 facts
/// and 110 / 112 / 113 / 113 / 113 held-out, 108 / 108 / 109 / 108 / 106 fresh and 51 / 54 / 54 /
/// 55 / 55 blind needles.
pub const HEAD_TAIL_FROM: f64 = 0.2;
pub const POS_GAIN_PER_RATIO: f32 = 8.0;
/// At [`GENEROUS_FULL_AT`] and above, a pair's lines decay faster with what it already gave (see
/// [`crate::compact::budget::PAIR_DECAY`]): with room for much, spreading it over the outputs keeps
/// more of what any one of them may hold. At 30%, decays 0.15 / 0.3 / 0.5 / 0.8 / 1.2 kept 797 /
/// 795 / 793 / 785 / 774 real facts of 817, 109 / 110 / 113 / 111 / 105 `heldout.rs` needles of
/// 124, 106 / 107 / 108 / 105 / 104 fresh of 118, 44 / 50 / 55 / 60 / 65 blind of 127.
pub const GENEROUS_PAIR_DECAY: f32 = 0.5;
/// The faster decay rises from this budget on (the rest of the generous weights from
/// [`HEAD_TAIL_FROM`]). Tuning curve, fourteenth round (`benches/quality/README.md`; 13 cut
/// points, output facts / prose strings; needles `heldout.rs` / `fresh.rs` / `blind.rs`): from
/// 20% (before), 10%, 5% and 0%, the default 0.15 kept 288 / 117, 288 / 118, 287 / 118 and
/// 285 / 119 real facts and 70 / 76 / 5, 74 / 80 / 14, 79 / 79 / 16 and 79 / 78 / 21 needles; 20%
/// 803 / 474, 802 / 478, 801 / 479 (16 points) and needles 79 / 77 / 13, 88 / 87 / 25, 89 / 86 /
/// 28; 25% 303, 300, 300. Started at 5% or 0%, budgets of 10% and below change too (from 5%
/// the chained benchmark loses 5 of its 256 facts; from 0% the 5% point loses 8 real facts);
/// started at 10%, nothing at or below 10% changes.
pub const FAST_DECAY_FROM: f64 = 0.1;
/// With head and tail worth something, the windows are an output's first and last
/// `HEAD_TAIL_PER_RATIO` × the ratio of its lines (10% at a budget of 30%) when that is more than 3
/// and 5 lines. Tuning curve at 30% (README "Compaction quality"; a fixed 5% before): of 1/6, 1/4
/// and 1/3, 1/3 kept the most needles of both generators (held-out 102 / 104 / 109 of 124, fresh 93
/// / 100 / 105 of 118) for 13 of the real sessions' 817 facts (810 / 803 / 797); the head+tail
/// baseline keeps about 15% at each end there.
pub const HEAD_TAIL_PER_RATIO: f32 = 1.0 / 3.0;
/// From [`HEAD_TAIL_FROM`] on, lines are ranked by value ÷ cost^0.8 instead of value per char
/// ([`Weights::cost_exp`]). Tuning curve: at 0.30 the real sessions stay (771 → 769 of 810 facts)
/// and the tuning needles go 94.3% → 96.6%; at 0.10 it cost the real sessions 22 facts (630 → 608
/// at all 16 points; 0.9: 622) though the needles gained 11 points, so smaller budgets rank per
/// char.
pub const GENEROUS_COST_EXP: f64 = 0.8;
/// The generous weights (head/tail worth and windows, the faster pair decay, the cost exponent)
/// grow from nothing at [`HEAD_TAIL_FROM`] to full strength at this budget. Switched on at once,
/// they made the real sessions keep fewer facts at 25% than at 20% or 30% (278 of 312 at the 13 cut
/// points, against 297 and 296): position took room the lines that matter there still needed.
/// Ramped over 20–30%: 302 / 300 / 296 / 296 at 22 / 25 / 27 / 30%, the same as before from 30% on
/// (needles at 25%: `heldout.rs` 106 → 98, `fresh.rs` 105 → 95, `blind.rs` 45 → 35). Over 20–40%
/// the real sessions kept 307 at 30% but the needles there fell back to 102 / 95 / 39 (from 113 /
/// 109 / 54).
pub const GENEROUS_FULL_AT: f64 = 0.3;
/// The selection's weights at a budget of `ratio` of the region: the defaults below
/// [`FAST_DECAY_FROM`], the generous ones from [`GENEROUS_FULL_AT`] on, and linear blends between
/// (the decay's from [`FAST_DECAY_FROM`], the others' from [`HEAD_TAIL_FROM`]; no step in the
/// retention curve where they start).
pub fn weights_at(ratio: f64) -> Weights {
    let d = Weights::default();
    let ramp = |from: f64| ((ratio - from) / (GENEROUS_FULL_AT - from)).clamp(0.0, 1.0);
    let (t, td) = (ramp(HEAD_TAIL_FROM), ramp(FAST_DECAY_FROM) as f32);
    let r = ratio.min(0.5) as f32;
    let tf = t as f32;
    Weights {
        pos_gain: tf * POS_GAIN_PER_RATIO * r,
        ht_frac: tf * HEAD_TAIL_PER_RATIO * r,
        cost_exp: 1.0 - t * (1.0 - GENEROUS_COST_EXP),
        pair_decay: d.pair_decay + td * (GENEROUS_PAIR_DECAY - d.pair_decay),
        ..d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weights_grow_from_ten_and_twenty_to_thirty_percent() {
        let d = Weights::default();
        let at = weights_at;
        // Up to 10%: the defaults.
        for r in [0.01, 0.05, 0.09, FAST_DECAY_FROM] {
            let w = at(r);
            assert_eq!(w.pos_gain, 0.0, "{r}");
            assert_eq!(w.ht_frac, 0.0, "{r}");
            assert_eq!(w.pair_decay, d.pair_decay, "{r}");
            assert_eq!(w.cost_exp, 1.0, "{r}");
        }
        // From 10% to 20%: only the decay rises; position is still worth nothing.
        let mut prev = at(FAST_DECAY_FROM);
        for k in 1..=10 {
            let r = FAST_DECAY_FROM + (HEAD_TAIL_FROM - FAST_DECAY_FROM) * f64::from(k) / 10.0;
            let w = at(r);
            assert_eq!(w.pos_gain, 0.0, "{r}");
            assert_eq!(w.ht_frac, 0.0, "{r}");
            assert_eq!(w.cost_exp, 1.0, "{r}");
            assert!(w.pair_decay > prev.pair_decay, "{r}");
            prev = w;
        }
        // From 30%: full strength.
        let full = at(0.3);
        assert!((full.pos_gain - POS_GAIN_PER_RATIO * 0.3).abs() < 1e-6);
        assert!((full.ht_frac - HEAD_TAIL_PER_RATIO * 0.3).abs() < 1e-6);
        assert_eq!(full.pair_decay, GENEROUS_PAIR_DECAY);
        assert!((full.cost_exp - GENEROUS_COST_EXP).abs() < 1e-9);
        // From 20% to 30%: every knob moves one way, no step.
        let mut prev = at(HEAD_TAIL_FROM);
        for k in 1..=20 {
            let r = HEAD_TAIL_FROM + (GENEROUS_FULL_AT - HEAD_TAIL_FROM) * f64::from(k) / 20.0;
            let w = at(r);
            assert!(
                w.pos_gain > prev.pos_gain && w.pos_gain - prev.pos_gain < 0.3,
                "{r}"
            );
            assert!(w.ht_frac > prev.ht_frac, "{r}");
            assert!(w.pair_decay > prev.pair_decay, "{r}");
            assert!(w.cost_exp < prev.cost_exp, "{r}");
            prev = w;
        }
        // Halfway from 10% to 30%, half the decay's rise.
        let mid = at((FAST_DECAY_FROM + GENEROUS_FULL_AT) / 2.0);
        let want = (d.pair_decay + GENEROUS_PAIR_DECAY) / 2.0;
        assert!((mid.pair_decay - want).abs() < 1e-6, "{}", mid.pair_decay);
    }
}
