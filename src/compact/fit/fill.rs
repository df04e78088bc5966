//! Room the lines left goes back to the skeleton: when a budgeted summary still falls short of
//! 95% of its budget with every line the selection wanted, the bodies of the latest pins the
//! level left out come back, then the prose — the latest user messages that fit, else wider
//! user windows, then wider assistant windows or the latest assistant texts — and what a whole
//! next message does not fit widens the windows of those shown.

use super::{Ctx, LEVELS, Level, Pin, render};

/// The skeleton takes back room the lines left (the summary under 95% of its budget with every
/// line it could want): the latest pins' bodies, then the prose ([`fill_prose`]). The level to
/// render, and what was given back (for `shrunk`).
pub(super) fn fill(
    ctx: &Ctx<'_>,
    level: Level,
    sel: &[Vec<u32>],
    users: usize,
) -> (Level, Option<String>) {
    let budget = ctx.budget;
    let floor = budget.saturating_mul(19).div_ceil(20);
    let short = |l: &Level| ctx.measure(l, sel) < floor;
    if !short(&level) {
        return (level, None);
    }
    let fits = |l: &Level| ctx.measure(l, sel) <= budget;
    // First the bodies of the latest pins the level left out (what the session changed), as
    // many as fit; then the prose.
    let (level, pinned) = fill_pins(ctx, level, &fits);
    if !short(&level) {
        return (level, pinned.map(|p| format!("room left: {p}")));
    }
    let size = |l: &Level| ctx.measure(l, sel);
    let (level, prose) = fill_prose(ctx, level, users, &fits, &size);
    let mut notes: Vec<String> = pinned.into_iter().collect();
    notes.extend(prose.map(|q| q.trim_start_matches("room left: ").to_string()));
    let note = (!notes.is_empty()).then(|| format!("room left: {}", notes.join("; ")));
    (level, note)
}

/// [`fill`]'s pin step: the bodies of the latest pins a level left out, as many as fit.
fn fill_pins(
    ctx: &Ctx<'_>,
    level: Level,
    fits: &dyn Fn(&Level) -> bool,
) -> (Level, Option<String>) {
    if level.pin_bodies || level.pins_dropped {
        return (level, None);
    }
    let pins = ctx
        .prep
        .pins
        .iter()
        .filter(|p| p.is_some_and(Pin::body_by_level))
        .count();
    let at = |k: usize| Level {
        pin_bodies_keep: Some(k),
        ..level
    };
    if pins == 0 || !fits(&at(1)) {
        return (level, None);
    }
    let k = largest(1, pins, &at, fits);
    let note = if k >= pins {
        "every pin's body back".to_string()
    } else {
        format!("the last {k} pins' bodies back")
    };
    (at(k), Some(note))
}

/// The largest `x` in `lo..=hi` with `at(x)` fitting (`at(lo)` fits; the size grows with `x`).
fn largest(
    lo: usize,
    hi: usize,
    at: &dyn Fn(usize) -> Level,
    fits: &dyn Fn(&Level) -> bool,
) -> usize {
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(&at(mid)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// [`fill`]'s prose steps: the latest user messages, wider user windows, then assistant text.
fn fill_prose(
    ctx: &Ctx<'_>,
    level: Level,
    users: usize,
    fits: &dyn Fn(&Level) -> bool,
    size: &dyn Fn(&Level) -> u64,
) -> (Level, Option<String>) {
    let largest = |lo: usize, hi: usize, at: &dyn Fn(usize) -> Level| largest(lo, hi, at, fits);
    // Windows widen from a level's towards the richest level's (x = 0..=1024), then beyond
    // (× x/1024), then whole: user windows first, then assistant windows.
    let rich = LEVELS[0];
    let widen = |l: Level, text: bool, x: usize| {
        let f = |v: usize, r: usize| {
            if x == usize::MAX {
                usize::MAX
            } else if x <= 1024 {
                v + r.saturating_sub(v) * x / 1024
            } else {
                r.saturating_mul(x) / 1024
            }
        };
        let w = |(a, b): (usize, usize), (ra, rb): (usize, usize)| (f(a, ra), f(b, rb));
        if text {
            Level {
                text: w(l.text, rich.text),
                ..l
            }
        } else {
            Level {
                user: w(l.user, rich.user),
                ..l
            }
        }
    };
    // The widest `at(x)` that fits: doubling from 1, then a search between the last
    // two (`None` when not even `at(1)` fits).
    let widest = |at: &dyn Fn(usize) -> Level| -> Option<Level> {
        if !fits(&at(1)) {
            return None;
        }
        let mut x = 1;
        while x < 1 << 24 && fits(&at(x * 2)) {
            x *= 2;
        }
        Some(at(largest(x, x * 2 - 1, at)))
    };
    match level.user_keep {
        Some((first, last)) if first > 0 && first + last < users => {
            let at = |k: usize| Level {
                user_keep: Some((first, k)),
                ..level
            };
            let k = largest(last, users - first, &at);
            let mut notes = Vec::new();
            if k > last {
                notes.push(if first + k >= users {
                    "every user message back".to_string()
                } else {
                    format!("its last {k} back")
                });
            }
            // What is left after them widens the windows of those shown.
            let mut out = at(k);
            if let Some(wide) = widest(&|x| widen(out, false, x)).filter(|w| size(w) > size(&out)) {
                out = wide;
                notes.push("user windows widened".to_string());
            }
            if notes.is_empty() {
                return (level, None);
            }
            (out, Some(format!("room left: {}", notes.join(", "))))
        }
        None => {
            let mut out = level;
            let mut note = None;
            for (text, what) in [(false, "user"), (true, "assistant")] {
                let base = out;
                let at = |x: usize| widen(base, text, x);
                if fits(&at(usize::MAX)) {
                    out = at(usize::MAX);
                    note = Some(format!("room left: {what} text whole"));
                    continue;
                }
                if let Some(wide) = widest(&at) {
                    out = wide;
                    note = Some(format!("room left: {what} text windows widened"));
                } else if text && base.text.0 == 0 {
                    // Assistant text left out: even the narrowest windows for all of it are
                    // too many; the latest ones, at the last windows a level kept for all, as
                    // many as fit.
                    let narrow = LEVELS
                        .iter()
                        .rev()
                        .find(|l| l.text.0 > 0)
                        .map_or(rich.text, |l| l.text);
                    let at = |k: usize| Level {
                        text: narrow,
                        text_keep: Some(k),
                        ..base
                    };
                    let total = ctx.prep.msgs.iter().filter(|m| render::has_text(m)).count();
                    if total > 0 && fits(&at(1)) {
                        let k = largest(1, total, &at);
                        out = at(k);
                        let mut n = if k >= total {
                            "room left: every assistant text back".to_string()
                        } else {
                            format!("room left: the last {k} assistant texts back")
                        };
                        // What is left after them widens their windows (a small budget would
                        // else fall short by up to one text).
                        if let Some(wide) =
                            widest(&|x| widen(at(k), true, x)).filter(|w| size(w) > size(&at(k)))
                        {
                            out = wide;
                            n.push_str(", their windows widened");
                        }
                        note = Some(n);
                    }
                }
                break;
            }
            (out, note)
        }
        _ => (level, None),
    }
}
