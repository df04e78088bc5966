//! The skeleton levels: how much prose, pins and headers the summary carries at each step of
//! the shrink order.

/// One shrink level of the skeleton.
#[derive(Clone, Copy, Debug)]
pub(super) struct Level {
    pub(super) step: &'static str,
    pub(super) user: (usize, usize),
    pub(super) text: (usize, usize),
    pub(super) edit_head: usize,
    pub(super) write_body_max: usize,
    pub(super) git_head: usize,
    pub(super) skill_head: usize,
    /// Unresolved errors compete for lines instead of staying verbatim.
    pub(super) err_lines: bool,
    pub(super) pin_bodies: bool,
    pub(super) pins_dropped: bool,
    pub(super) drop_notes: bool,
    pub(super) short_title: bool,
    /// The carried summary's share of the budget (`None`: whole).
    pub(super) carried: Option<f64>,
}

pub(super) const L0: Level = Level {
    step: "",
    user: (2_000, 1_000),
    text: (2_000, 1_000),
    edit_head: 300,
    write_body_max: 2_000,
    git_head: 600,
    skill_head: usize::MAX,
    err_lines: false,
    pin_bodies: true,
    pins_dropped: false,
    drop_notes: true,
    short_title: false,
    carried: None,
};

/// The shrink levels, richest first (the module docs list the steps).
pub(super) const LEVELS: &[Level] = &[
    L0,
    Level {
        step: "assistant text cut to 800/300-char windows; carried summary ≤ 30% of the budget",
        text: (800, 300),
        short_title: true,
        carried: Some(0.30),
        ..L0
    },
    Level {
        step: "write bodies → length notes; edit heads 300 → 120 chars; skill bodies → 2,000 chars",
        text: (800, 300),
        short_title: true,
        carried: Some(0.30),
        edit_head: 120,
        write_body_max: 0,
        skill_head: 2_000,
        ..L0
    },
    Level {
        step: "user text cut to 1,000/400-char windows, assistant text to 300/120",
        user: (1_000, 400),
        text: (300, 120),
        short_title: true,
        carried: Some(0.30),
        edit_head: 120,
        write_body_max: 0,
        skill_head: 2_000,
        ..L0
    },
    Level {
        step: "git heads 600 → 200 chars; unresolved errors cut to their key lines",
        user: (1_000, 400),
        text: (300, 120),
        short_title: true,
        carried: Some(0.30),
        edit_head: 120,
        write_body_max: 0,
        skill_head: 2_000,
        git_head: 200,
        err_lines: true,
        ..L0
    },
    Level {
        step: "no aggregated drop lines; assistant text cut to 120/50; carried summary ≤ 15%",
        user: (1_000, 400),
        text: (120, 50),
        short_title: true,
        carried: Some(0.15),
        edit_head: 120,
        write_body_max: 0,
        skill_head: 2_000,
        git_head: 200,
        err_lines: true,
        drop_notes: false,
        ..L0
    },
    Level {
        step: "edit/write, git and skill pins → their call line only",
        user: (1_000, 400),
        text: (120, 50),
        short_title: true,
        carried: Some(0.15),
        edit_head: 120,
        write_body_max: 0,
        skill_head: 0,
        git_head: 0,
        err_lines: true,
        drop_notes: false,
        pin_bodies: false,
        ..L0
    },
    Level {
        step: "assistant text left out; user text cut to 300/120",
        user: (300, 120),
        text: (0, 0),
        short_title: true,
        carried: Some(0.15),
        edit_head: 120,
        write_body_max: 0,
        skill_head: 0,
        git_head: 0,
        err_lines: true,
        drop_notes: false,
        pin_bodies: false,
        ..L0
    },
    Level {
        step: "user text cut to 120/50; carried summary ≤ 5%",
        user: (120, 50),
        text: (0, 0),
        short_title: true,
        carried: Some(0.05),
        edit_head: 120,
        write_body_max: 0,
        skill_head: 0,
        git_head: 0,
        err_lines: true,
        drop_notes: false,
        pin_bodies: false,
        ..L0
    },
    Level {
        step: "pins and calls without a result left out",
        user: (120, 50),
        text: (0, 0),
        short_title: true,
        carried: Some(0.05),
        edit_head: 120,
        write_body_max: 0,
        skill_head: 0,
        git_head: 0,
        err_lines: true,
        drop_notes: false,
        pin_bodies: false,
        pins_dropped: true,
    },
    Level {
        step: "user text cut to its first 60 chars",
        user: (60, 30),
        text: (0, 0),
        short_title: true,
        carried: Some(0.05),
        edit_head: 120,
        write_body_max: 0,
        skill_head: 0,
        git_head: 0,
        err_lines: true,
        drop_notes: false,
        pin_bodies: false,
        pins_dropped: true,
    },
];
