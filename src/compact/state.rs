//! The shared state every question batch carries (the design's state table), the workspace
//! read (the only I/O of the planner), and `fitState`, which shrinks the caps until the state
//! is within its token budget.

use std::path::Path;

use serde::Serialize;

use super::estimate_request_tokens;
use super::region::Exchange;
use super::text::{cap_middle, clen, omitted};

/// The fixed context paragraph.
pub const CONTEXT_PARAGRAPH: &str = "This is a compaction. The coding agent's context window is \
full, so the older part of this session is being pruned before the agent continues. The user's \
and the assistant's own words are kept; each question shows one tool call from the pruned part \
with windows of its output. Judge it against the workspace, the first exchange, the most recent \
exchanges and the summary carried from an earlier compaction, all given here. A dropped output \
is gone for good unless the agent re-runs the call.";

/// Directories never listed.
const SKIP_DIRS: &[&str] = &[
    "node_modules",
    ".git",
    "target",
    "dist",
    "build",
    ".venv",
    "venv",
    "__pycache__",
    ".next",
    ".cache",
    ".idea",
    ".vscode",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    "coverage",
    "out",
    ".gradle",
    ".svn",
    ".hg",
    "vendor",
];

/// What the workspace read found.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Workspace {
    /// Folder name of the session's cwd.
    pub name: String,
    /// Directories at depth 1 and 2 (`src/`, `src/compact/`), sorted.
    pub dirs: Vec<String>,
    /// README text (first 25,000 chars), if any.
    pub readme: Option<String>,
}

/// Read the workspace at `cwd`: folder name, depth-2 directories, README. Tolerates a missing or
/// unreadable directory (the session may come from another machine).
pub fn read_workspace(cwd: &str) -> Workspace {
    let path = Path::new(cwd);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| cwd.to_string());
    let mut ws = Workspace {
        name,
        ..Default::default()
    };
    let list = |dir: &Path| -> Vec<String> {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = rd
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| {
                !SKIP_DIRS.contains(&n.as_str())
                    && (!n.starts_with('.') || n == ".github" || n == ".pi")
            })
            .collect();
        names.sort();
        names
    };
    for d in list(path) {
        ws.dirs.push(format!("{d}/"));
        for sub in list(&path.join(&d)) {
            ws.dirs.push(format!("{d}/{sub}/"));
        }
        if ws.dirs.len() >= 400 {
            break;
        }
    }
    ws.dirs.truncate(400);
    for f in [
        "README.md",
        "README",
        "readme.md",
        "README.txt",
        "README.rst",
        "Readme.md",
    ] {
        if let Ok(bytes) = std::fs::read(path.join(f)) {
            let text = String::from_utf8_lossy(&bytes);
            ws.readme = Some(cap_middle(&text, 25_000));
            break;
        }
    }
    ws
}

/// The caps of the state, in chars.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Caps {
    pub readme: usize,
    pub first: usize,
    pub recent_each: usize,
    pub recent_count: usize,
    pub carried: usize,
    pub dirs: usize,
}

impl Default for Caps {
    fn default() -> Caps {
        Caps {
            readme: 25_000,
            first: 25_000,
            recent_each: 5_000,
            recent_count: 5,
            carried: 8_000,
            dirs: 400,
        }
    }
}

/// The state's workspace field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkspaceState {
    pub name: String,
    pub dirs: Vec<String>,
    pub readme: Option<String>,
}

/// The state sent with every batch (field order fixed).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct State {
    pub workspace: WorkspaceState,
    pub context: String,
    pub first: Option<Exchange>,
    pub recent: Vec<Exchange>,
    pub carried: Option<String>,
}

/// Cap an exchange so user + assistant ≤ `cap` chars.
fn cap_exchange(x: &Exchange, cap: usize) -> Exchange {
    let (u, a) = (clen(&x.user), clen(&x.assistant));
    if u + a <= cap {
        return x.clone();
    }
    let half = cap / 2;
    let (cu, ca) = if u <= half {
        (u, cap - u)
    } else if a <= half {
        (cap - a, a)
    } else {
        (half, cap - half)
    };
    Exchange {
        user: cap_middle(&x.user, cu),
        assistant: cap_middle(&x.assistant, ca),
    }
}

/// Strip dumps from a carried summary: fenced blocks longer than 300 chars and lines longer than
/// 2,000 chars become one-line notes.
pub fn strip_dumps(s: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    // (marker, opening line, body)
    let mut fence: Option<(String, &str, Vec<&str>)> = None;
    let note = |n: usize| {
        format!(
            "[dump stripped: {} chars]",
            crate::text::thousands(n as u64)
        )
    };
    for line in s.split('\n') {
        let trimmed = line.trim_start();
        if let Some((marker, open, body)) = &mut fence {
            let closes = trimmed.starts_with(marker.as_str())
                && trimmed.trim_end().chars().all(|c| c == '`' || c == '~');
            if closes {
                let text = body.join("\n");
                if clen(&text) > 300 {
                    out.push(format!("{marker}\n{}\n{marker}", note(clen(&text))));
                } else {
                    out.push(open.to_string());
                    out.extend(body.iter().map(|l| l.to_string()));
                    out.push(line.to_string());
                }
                fence = None;
            } else {
                body.push(line);
            }
            continue;
        }
        let first = trimmed.chars().next().unwrap_or(' ');
        let ticks: String = trimmed.chars().take_while(|&c| c == first).collect();
        if (first == '`' || first == '~') && ticks.len() >= 3 {
            fence = Some((ticks, line, Vec::new()));
            continue;
        }
        if clen(line) > 2_000 {
            out.push(format!(
                "[long line stripped: {} chars]",
                crate::text::thousands(clen(line) as u64)
            ));
        } else {
            out.push(line.to_string());
        }
    }
    if let Some((marker, _, body)) = fence {
        out.push(format!("{marker}\n{}", note(clen(&body.join("\n")))));
    }
    out.join("\n")
}

/// Inputs of the state before capping.
#[derive(Clone, Debug, Default)]
pub struct StateInputs {
    pub workspace: Workspace,
    pub first: Option<Exchange>,
    /// Every exchange of the session's projection, oldest first (the last `recent_count` are used).
    pub all: Vec<Exchange>,
    /// The previous compaction's summary, dumps not yet stripped.
    pub carried: Option<String>,
}

/// Build the state with `caps`.
pub fn build(inp: &StateInputs, caps: &Caps) -> State {
    let n = inp.all.len();
    let recent = inp.all[n.saturating_sub(caps.recent_count)..]
        .iter()
        .map(|x| cap_exchange(x, caps.recent_each))
        .collect();
    let mut dirs = inp.workspace.dirs.clone();
    if dirs.len() > caps.dirs {
        let more = dirs.len() - caps.dirs;
        dirs.truncate(caps.dirs);
        dirs.push(format!("… {more} more"));
    }
    State {
        workspace: WorkspaceState {
            name: inp.workspace.name.clone(),
            dirs,
            readme: inp
                .workspace
                .readme
                .as_ref()
                .map(|r| cap_middle(r, caps.readme)),
        },
        context: CONTEXT_PARAGRAPH.to_string(),
        first: inp.first.as_ref().map(|x| cap_exchange(x, caps.first)),
        recent,
        carried: inp
            .carried
            .as_ref()
            .map(|c| cap_middle(&strip_dumps(c), caps.carried))
            .filter(|c| !c.is_empty()),
    }
}

/// The fitted state: JSON, estimate and the caps that made it fit.
#[derive(Clone, Debug)]
pub struct Fitted {
    pub state: State,
    pub json: String,
    pub tokens: u64,
    pub caps: Caps,
    /// Shrink steps applied.
    pub steps: usize,
}

fn serialise(st: &State) -> String {
    serde_json::to_string(st).unwrap_or_else(|_| "{}".to_string())
}

/// `fitState`: shrink the caps (carried, README, older recent exchanges, directories, first)
/// until the state's estimate is ≤ `budget` tokens; the smallest caps are returned if it never
/// fits.
pub fn fit(inp: &StateInputs, budget: u64) -> Fitted {
    let mut caps = Caps::default();
    let mut steps = 0;
    loop {
        let state = build(inp, &caps);
        let json = serialise(&state);
        let tokens = estimate_request_tokens(&json);
        if tokens <= budget || !shrink(&mut caps) {
            return Fitted {
                state,
                json,
                tokens,
                caps,
                steps,
            };
        }
        steps += 1;
    }
}

/// One step of the ladder; false when nothing can shrink further.
fn shrink(c: &mut Caps) -> bool {
    if c.carried > 1_000 {
        c.carried /= 2;
    } else if c.readme > 2_000 {
        c.readme /= 2;
    } else if c.recent_each > 1_000 {
        c.recent_each = c.recent_each * 3 / 4;
    } else if c.dirs > 50 {
        c.dirs /= 2;
    } else if c.first > 1_000 {
        c.first /= 2;
    } else if c.recent_count > 1 {
        c.recent_count -= 1;
    } else if c.recent_each > 300 || c.first > 300 || c.readme > 300 || c.carried > 0 {
        c.recent_each = (c.recent_each / 2).max(300);
        c.first = (c.first / 2).max(300);
        c.readme = (c.readme / 2).max(300);
        c.carried = 0;
    } else {
        return false;
    }
    true
}

/// The omission marker, re-exported for the renderer's notes.
pub fn omission(n: usize) -> String {
    omitted(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_shrinks_until_budget() {
        let big = "x1! ".repeat(50_000);
        let inp = StateInputs {
            workspace: Workspace {
                name: "proj".into(),
                dirs: vec!["src/".into()],
                readme: Some(big.clone()),
            },
            first: Some(Exchange {
                user: big.clone(),
                assistant: big.clone(),
            }),
            all: (0..8)
                .map(|_| Exchange {
                    user: big.clone(),
                    assistant: big.clone(),
                })
                .collect(),
            carried: Some(big.clone()),
        };
        let f = fit(&inp, 28_000);
        assert!(f.tokens <= 28_000, "{}", f.tokens);
        assert!(f.steps > 0);
        assert_eq!(f.state.recent.len(), f.caps.recent_count);
        let small = fit(&StateInputs::default(), 28_000);
        assert_eq!(small.steps, 0);
        assert_eq!(small.caps, Caps::default());
    }

    #[test]
    fn strips_fenced_dumps() {
        let s = format!(
            "keep me\n```text\n{}\n```\nand me\n```\nshort\n```",
            "x\n".repeat(400)
        );
        let out = strip_dumps(&s);
        assert!(out.contains("keep me") && out.contains("and me") && out.contains("short"));
        assert!(out.contains("[dump stripped"));
        assert!(!out.contains("xxxx") && clen(&out) < 200);
    }

    #[test]
    fn workspace_tolerates_missing_dir() {
        let ws = read_workspace("/definitely/not/here/proj");
        assert_eq!(ws.name, "proj");
        assert!(ws.dirs.is_empty() && ws.readme.is_none());
    }
}
