//! The skeleton levels: how much prose, pins and headers the summary carries at each step of
//! the shrink order.

use crate::compact::render::Title;

/// One shrink level of the skeleton.
#[derive(Clone, Copy, Debug)]
pub(super) struct Level {
    pub(super) step: &'static str,
    pub(super) user: (usize, usize),
    /// Only the region's first `.0` and last `.1` user messages (`None`: all).
    pub(super) user_keep: Option<(usize, usize)>,
    pub(super) text: (usize, usize),
    /// Only the region's last `n` assistant texts (`None`: all; set only by the fill).
    pub(super) text_keep: Option<usize>,
    pub(super) git_head: usize,
    pub(super) skill_head: usize,
    /// Unresolved errors compete for lines instead of staying verbatim.
    pub(super) err_lines: bool,
    pub(super) pin_bodies: bool,
    /// Without pin bodies, the last `n` pins keep theirs all the same (set only by the fill).
    pub(super) pin_bodies_keep: Option<usize>,
    pub(super) pins_dropped: bool,
    /// With the pins left out, the edited and written files are listed in one line.
    pub(super) changed_files: bool,
    pub(super) drop_notes: bool,
    pub(super) title: Title,
    /// The share of the budget a carried summary not written by pi-shake is cut to, head and
    /// tail (`None`: whole). pi-shake's own carried transcript competes line by line instead.
    pub(super) carried: Option<f64>,
}

pub(super) const L0: Level = Level {
    step: "",
    user: (2_000, 1_000),
    user_keep: None,
    text: (2_000, 1_000),
    text_keep: None,
    git_head: 600,
    skill_head: usize::MAX,
    err_lines: false,
    pin_bodies: true,
    pin_bodies_keep: None,
    pins_dropped: false,
    changed_files: false,
    drop_notes: true,
    title: Title::Full,
    carried: None,
};

/// The shrink levels, richest first (the module docs list the steps). Each level is the
/// previous one with its own step's cuts.
pub(super) const LEVELS: &[Level] = &[
    L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11, L12, L13, L14, L15,
];

const L1: Level = Level {
    step: "assistant text cut to 800/300-char windows; another tool's carried summary ≤ 30% of the budget",
    text: (800, 300),
    title: Title::Short,
    carried: Some(0.30),
    ..L0
};
const L2: Level = Level {
    step: "skill bodies → 2,000 chars",
    skill_head: 2_000,
    ..L1
};
const L3: Level = Level {
    step: "user text cut to 1,000/400-char windows, assistant text to 300/120",
    user: (1_000, 400),
    text: (300, 120),
    ..L2
};
const L4: Level = Level {
    step: "git heads 600 → 200 chars; unresolved errors cut to their key lines",
    git_head: 200,
    err_lines: true,
    ..L3
};
const L5: Level = Level {
    step: "no aggregated drop lines; assistant text cut to 120/50; another tool's carried summary ≤ 15%",
    text: (120, 50),
    drop_notes: false,
    carried: Some(0.15),
    ..L4
};
const L6: Level = Level {
    step: "git and skill pins → their call line only",
    skill_head: 0,
    git_head: 0,
    pin_bodies: false,
    ..L5
};
const L7: Level = Level {
    step: "assistant text left out; user text cut to 300/120",
    user: (300, 120),
    text: (0, 0),
    ..L6
};
const L8: Level = Level {
    step: "user text cut to 120/50; another tool's carried summary ≤ 5%",
    user: (120, 50),
    carried: Some(0.05),
    ..L7
};
const L9: Level = Level {
    step: "pins and calls without a result left out (edited and written files listed in one line)",
    pins_dropped: true,
    changed_files: true,
    ..L8
};
const L10: Level = Level {
    step: "user text cut to 60 chars (30-char head and tail windows)",
    user: (60, 30),
    ..L9
};
const L11: Level = Level {
    step: "only the region's first user message and its last 3",
    user_keep: Some((1, 3)),
    ..L10
};
const L12: Level = Level {
    step: "only the region's first user message",
    user_keep: Some((1, 0)),
    ..L11
};
const L13: Level = Level {
    step: "no list of edited and written files",
    changed_files: false,
    ..L12
};
const L14: Level = Level {
    step: "the title names the pruner only",
    title: Title::Name,
    ..L13
};
const L15: Level = Level {
    step: "no user message (all counted in place)",
    user_keep: Some((0, 0)),
    ..L14
};
