//! Whether the user's own words name a call's file, and the gain such a call gets: the region's
//! user messages ([`USER_NAMED`]) and the kept part's ([`NAMED_NOW`]). Shared by the region's
//! pair factors ([`super::fit`]) and a carried summary's call blocks ([`super::carried`]).

/// The factor of a call on a file the user's own words in the region name ("read
/// @src/main.ts", "the bug is in session-manager.ts"): the user pointed the agent at it, and
/// later turns come back to what it holds. Chosen in the eighteenth round on the real sessions
/// at 44 points (`benches/quality/README.md`): 1 / 1.25 / 1.5 / 1.75 / 2 / 3 kept 2,532 / 2,539
/// / 2,545 / 2,550 / 2,555 / 2,560 facts by default, 1,781 / 1,792 / 1,793 / 1,792 / 1,803 /
/// 1,806 at 10% and 1,190 / 1,187 / 1,189 / 1,196 / 1,212 / 1,166 at 5%. The needle
/// generators' user messages name no file: unchanged.
pub const USER_NAMED: f32 = 2.0;

/// The factor of a call on a file the kept part's user messages name (what the user is asking
/// about now). Same round: with [`USER_NAMED`] at 2, 1 / 1.5 / 2 / 3 kept 2,555 / 2,564 / 2,566
/// / 2,568 by default, 1,803 / 1,809 / 1,813 / 1,822 at 10% and 1,212 / 1,235 / 1,253 / 1,255
/// at 5%; at 3 the `compact` session loses 2 at each budget. The tuning generators' needles
/// move by at most 2 of about 120 a run.
pub const NAMED_NOW: f32 = 2.0;

/// Whether `words` name the file at `path` (its name, at least 5 chars: shorter ones match
/// too much prose).
pub(crate) fn named_file(path: &str, words: &str) -> bool {
    path.rsplit(['/', '\\'])
        .next()
        .is_some_and(|name| name.chars().count() >= 5 && words.contains(name))
}

/// The gain of a call on the file at `path`: [`USER_NAMED`] when the region's user messages
/// (`region_user`) name it, times [`NAMED_NOW`] when the kept part's (`kept_user`) do. What
/// the region factor applies to a call (with its reasons) and a carried summary's call gets.
pub fn named_gain(path: &str, region_user: &str, kept_user: &str) -> f32 {
    let mut g = 1.0;
    if named_file(path, region_user) {
        g *= USER_NAMED;
    }
    if named_file(path, kept_user) {
        g *= NAMED_NOW;
    }
    g
}
