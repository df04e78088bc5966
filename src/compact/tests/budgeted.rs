//! The budget: honoured at every ratio, pins shrink in order, the summary stays a transcript.

use super::*;

/// A v3 session: its header, then `messages` linked one after the other (ids `b0000001`, …).
fn linked(session_id: &str, cwd: &str, messages: Vec<Value>) -> Vec<Value> {
    let mut lines = vec![
        json!({"type":"session","version":3,"id":session_id,"timestamp":"2026-01-01T00:00:00.000Z","cwd":cwd}),
    ];
    let mut parent: Option<String> = None;
    for (n, message) in messages.into_iter().enumerate() {
        let id = format!("b{:07}", n + 1);
        lines.push(json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-01-01T00:00:00.000Z","message":message}));
        parent = Some(id);
    }
    lines
}

/// `lines` written to a fresh temp dir and loaded.
fn load_lines(tag: &str, lines: &[Value]) -> (Loaded, PathBuf) {
    let dir = std::env::temp_dir().join(format!("pi-shake-budget-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("session.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    (load(&path), dir)
}

fn budget_lines(turns: usize) -> Vec<Value> {
    let mut msgs: Vec<Value> = Vec::new();
    let user = |t: &str| json!({"role":"user","content":[{"type":"text","text":t}],"timestamp":1});
    let call = |id: &str, name: &str, args: Value| json!({"type":"toolCall","id":id,"name":name,"arguments":args});
    let asst = |blocks: Vec<Value>| json!({"role":"assistant","content":blocks,"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2});
    let result = |id: &str, name: &str, text: &str, err: bool| json!({"role":"toolResult","toolCallId":id,"toolName":name,"content":[{"type":"text","text":text}],"isError":err,"timestamp":3});
    let mut c = 0;
    for t in 0..turns {
        msgs.push(user(&format!(
            "Turn {t}: look at module_{t} and fix what is broken."
        )));
        for k in 0..4 {
            c += 1;
            let id = format!("c{c}");
            let (tool, args) = if k % 2 == 0 {
                (
                    "read",
                    json!({"path": format!("src/module_{t}/part_{k}.rs")}),
                )
            } else {
                (
                    "bash",
                    json!({"command": format!("cargo test -p module_{t} part_{k}")}),
                )
            };
            msgs.push(asst(vec![
                json!({"type":"text","text":format!("Checking part {k}.")}),
                call(&id, tool, args),
            ]));
            let out: String = (0..120)
                .map(|i| match i % 10 {
                    3 => format!("fn handler_{t}_{k}_{i}(cfg: &ConfigValue{i}) -> Result<()> {{\n"),
                    7 => format!(
                        "error[E0{i:03}]: mismatched types at src/module_{t}/part_{k}.rs:{i}\n"
                    ),
                    _ => format!("    plain filler line number {i} of this output\n"),
                })
                .collect();
            msgs.push(result(&id, tool, &out, false));
        }
        c += 1;
        let id = format!("c{c}");
        msgs.push(asst(vec![call(
                &id,
                "edit",
                json!({"path": format!("/nonexistent/budget-proj/src/module_{t}/part_0.rs"), "oldText": "a".repeat(400), "newText": "b".repeat(400)}),
            )]),
        );
        msgs.push(result(
            &id,
            "edit",
            "Successfully replaced 1 block(s).",
            false,
        ));
        msgs.push(json!({"role":"assistant","content":[{"type":"text","text":format!("Fixed module_{t}.")}],"api":"x","provider":"mock","model":"m","stopReason":"stop","timestamp":4}),
        );
        if t % 10 == 3 {
            // A call whose result was never recorded (an aborted turn).
            c += 1;
            msgs.push(asst(vec![call(
                &format!("c{c}"),
                "bash",
                json!({"command": format!("cargo bench -p module_{t}")}),
            )]));
        }
    }
    linked("budget-session", "/nonexistent/budget-proj", msgs)
}

fn budget_plan(l: &Loaded, spec: budget::BudgetSpec) -> CompactPlan {
    budget_plan_with(l, spec, true)
}

fn budget_plan_with(l: &Loaded, spec: budget::BudgetSpec, summary_text: bool) -> CompactPlan {
    try_budget_plan(l, spec, summary_text).expect("nothing to compact")
}

/// The plan under `spec`, `None` when there is nothing to compact.
fn try_budget_plan(
    l: &Loaded,
    spec: budget::BudgetSpec,
    summary_text: bool,
) -> Option<CompactPlan> {
    try_budget_plan_keeping(l, spec, summary_text, 4_000)
}

/// [`try_budget_plan`] with `keep` recent tokens.
fn try_budget_plan_keeping(
    l: &Loaded,
    spec: budget::BudgetSpec,
    summary_text: bool,
    keep: u64,
) -> Option<CompactPlan> {
    let o = CompactOptions {
        budget: Some(spec),
        lite: true,
        summary_text,
        ..opts(keep)
    };
    let Outcome::Ready(plan) = plan(l, &o, &Heuristic, &NoProgress, &mut l.fetcher()).unwrap()
    else {
        return None;
    };
    Some(*plan)
}

fn budget_loaded(tag: &str, turns: usize) -> (Loaded, PathBuf) {
    load_lines(tag, &budget_lines(turns))
}

fn ratio(r: f64) -> budget::BudgetSpec {
    budget::BudgetSpec {
        target_ratio: Some(r),
        max_summary_tokens: None,
        source: "test".into(),
    }
}

fn at_most(tokens: u64) -> budget::BudgetSpec {
    budget::BudgetSpec {
        target_ratio: None,
        max_summary_tokens: Some(tokens),
        source: "test".into(),
    }
}

/// A budgeted plan's summary is at most its budget and at least 95% of it.
fn assert_within(b: &budget::BudgetReport, label: &str) {
    assert!(b.achieved <= b.tokens, "{label}: {b:?}");
    assert!(
        b.achieved as f64 >= 0.95 * b.tokens as f64,
        "{label}: {} < 95% of {}",
        b.achieved,
        b.tokens
    );
}

#[test]
fn a_dry_run_counts_the_summary_it_does_not_hold() {
    let (l, dir) = budget_loaded("count", 60);
    for r in [0.05, 0.3] {
        let held = budget_plan_with(&l, ratio(r), true);
        let counted = budget_plan_with(&l, ratio(r), false);
        assert!(!held.summary.is_empty());
        assert!(counted.summary.is_empty());
        assert_eq!(
            counted.sizes.region_after,
            crate::jscompat::text_tokens(&held.summary)
        );
        assert_eq!(counted.sizes, held.sizes);
        assert_eq!(counted.budget, held.budget);
        assert_eq!(counted.counts, held.counts);
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn budget_is_honoured_within_five_percent_at_every_ratio() {
    let (l, dir) = budget_loaded("ratios", 40);
    for r in [0.30, 0.10, 0.05, 0.02] {
        let plan = budget_plan(&l, ratio(r));
        let b = plan.budget.clone().unwrap();
        let region = plan.sizes.region_before;
        assert_eq!(b.tokens, (region as f64 * r).floor() as u64);
        // The reported size is the summary's real size …
        assert_eq!(
            b.achieved,
            (crate::jscompat::utf16_len(&plan.summary) as u64).div_ceil(4)
        );
        assert_eq!(plan.sizes.region_after, b.achieved);
        // … at most the budget and at least 95% of it.
        assert_within(&b, &format!("{r}"));
        assert_eq!(plan.scorer, fit::NAME);
        // Smaller budgets shrink more of the skeleton, never less.
        if r <= 0.05 {
            assert!(!b.shrunk.is_empty(), "{r}: {b:?}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn max_summary_tokens_caps_the_budget() {
    let (l, dir) = budget_loaded("max", 40);
    let plan = budget_plan(
        &l,
        budget::BudgetSpec {
            target_ratio: Some(0.30),
            max_summary_tokens: Some(1_500),
            source: "test".into(),
        },
    );
    let b = plan.budget.unwrap();
    assert_eq!(b.tokens, 1_500);
    assert!(b.achieved <= 1_500 && b.achieved >= 1_425, "{}", b.achieved);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn pins_shrink_in_the_stated_order() {
    let (l, dir) = budget_loaded("pins", 40);
    let mut last: Vec<String> = Vec::new();
    let mut ever_listed = false;
    for r in [0.30, 0.10, 0.05, 0.02, 0.005, 0.0005] {
        let plan = budget_plan(&l, ratio(r));
        let shrunk = plan.budget.unwrap().shrunk;
        // Each smaller budget extends the previous list: the order is fixed.
        assert!(shrunk.len() >= last.len(), "{r}: {shrunk:?}");
        assert_eq!(&shrunk[..last.len()], &last[..], "{r}");
        let edits = plan.summary.matches("**edit**").count();
        // Under a budget an edit shows the kept lines of its new text, never heads.
        assert!(!plan.summary.contains("Old ("), "{r}");
        let unpaired = plan.summary.contains("no result recorded");
        // Thinned user text: the region's first user message stays, the others are counted.
        let thinned = shrunk
            .iter()
            .any(|s| s.starts_with("only the region's first user message"));
        assert_eq!(
            plan.summary.contains(" user messages left out]"),
            thinned,
            "{r}: {}",
            plan.summary
        );
        if thinned {
            assert!(plan.summary.matches("### User").count() <= 4, "{r}");
            assert!(plan.summary.contains("### User"), "{r}");
        }
        let listed = plan.summary.contains("Files edited or written above");
        if shrunk
            .iter()
            .any(|s| s.starts_with("pins and calls without a result left out"))
        {
            assert_eq!(edits, 0, "{r}");
            assert!(!unpaired, "{r}");
            // The edited files stay listed in one line until the last step.
            let unlisted = shrunk.iter().any(|s| s.starts_with("no list of edited"));
            assert_eq!(listed, !unlisted, "{r}: {}", plan.summary);
            if listed {
                // Paths under the session's cwd are listed relative to it.
                let line = plan
                    .summary
                    .lines()
                    .find(|l| l.starts_with("Files edited or written above"))
                    .unwrap();
                assert!(line.contains("`src/module_0/part_0.rs`"), "{line}");
                assert!(!line.contains("/nonexistent/"), "{line}");
            }
            ever_listed |= listed;
        } else {
            assert!(edits > 0, "{r}");
            assert!(unpaired, "{r}");
            assert!(!listed, "{r}");
        }
        last = shrunk;
    }
    assert!(ever_listed, "some budget lists the edited files");
    // At the smallest budget (nearly) every step was taken, in the documented order.
    assert!(last.len() >= 11, "{last:?}");
    assert!(last[10].starts_with("only the region's first user message and its last 3"));
    assert!(last[1].starts_with("skill bodies"));
    assert!(last[5].starts_with("git and skill pins"));
    assert!(last[8].starts_with("pins and calls without a result left out"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_budgeted_summary_stays_a_transcript() {
    let (l, dir) = budget_loaded("shape", 30);
    let plan = budget_plan(&l, ratio(0.10));
    let sm = &plan.summary;
    let lines: Vec<&str> = sm.lines().collect();
    // Every kept output line sits in a fence right under its call's header line.
    let mut in_fence = false;
    let mut header = "";
    let mut kept_lines = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("```") {
            if !in_fence {
                header = lines[i - 1];
            }
            in_fence = !in_fence;
            continue;
        }
        if in_fence && *line != "…" && !line.starts_with("[…") {
            let pin_part = ["Old (", "New (", "Content (", "New text, "]
                .iter()
                .any(|p| header.starts_with(p));
            assert!(
                header.starts_with("**") || pin_part,
                "line {line:?} under {header:?}"
            );
            if pin_part {
                continue;
            }
            kept_lines += 1;
            if line.starts_with("error[") {
                // The call named in the header produced the line.
                let module = line
                    .split("src/")
                    .nth(1)
                    .unwrap()
                    .split('/')
                    .next()
                    .unwrap();
                assert!(header.contains(module), "{line:?} under {header:?}");
            }
        }
    }
    assert!(kept_lines > 20, "{kept_lines}");
    // Markers say where lines were cut (bare under a budget below 20% of the region, counted
    // above it); calls appear in session order.
    assert!(sm.contains("\n…\n"), "{sm}");
    assert!(!sm.contains(" lines cut …]"));
    let roomy = budget_plan(&l, ratio(0.30));
    assert!(roomy.summary.contains(" lines cut …]"));
    assert!(!roomy.summary.contains("\n…\n"));
    let ids: Vec<usize> = sm
        .match_indices("(t")
        .filter_map(|(at, _)| {
            sm[at + 2..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|d| d.parse().ok())
        })
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    // No per-call breadcrumbs for dropped pairs: at most one line per run.
    assert!(!sm.contains("output dropped"));
    for l in sm
        .lines()
        .filter(|l| l.contains("tool call") && l.contains("dropped"))
    {
        assert!(l.starts_with('[') && l.ends_with(']'), "{l}");
    }
    // Every kept line is verbatim from its output.
    let raw: String = budget_lines(30).iter().map(|l| format!("{l}\n")).collect();
    for line in lines
        .iter()
        .filter(|l| l.starts_with("fn handler_") || l.starts_with("error["))
    {
        assert!(raw.contains(&line.replace('"', "\\\"")), "{line}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn lite_and_full_modes_make_the_same_summary() {
    let (l, dir) = budget_loaded("lite", 20);
    let a = budget_plan(&l, ratio(0.10));
    let o = CompactOptions {
        budget: Some(ratio(0.10)),
        lite: false,
        ..opts(4_000)
    };
    let Outcome::Ready(b) = plan(&l, &o, &Heuristic, &NoProgress, &mut l.fetcher()).unwrap() else {
        panic!()
    };
    assert_eq!(a.summary, b.summary);
    // Lite mode holds neither the question texts nor the kept context (its question sizes are
    // estimated from the output windows, within 1% here).
    assert!(a.request.kept_context.is_empty() && !b.request.kept_context.is_empty());
    assert!(!a.request.probes.is_empty());
    assert!(
        a.request
            .probes
            .iter()
            .all(|p| p.useful_instructions.is_empty())
    );
    assert!(
        b.request
            .probes
            .iter()
            .all(|p| !p.useful_instructions.is_empty())
    );
    let (qa, qb) = (a.sizes.question_tokens, b.sizes.question_tokens);
    assert!(qa.abs_diff(qb) * 100 <= qb, "{qa} vs {qb}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn call_headers_name_paths_relative_to_the_cwd() {
    let pair = crate::compact::region::Pair::of;
    let ident = crate::compact::render::ident;
    let cwd = Some("/home/u/proj/");
    let read = pair(
        "read",
        json!({"path": "/home/u/proj/src/a.ts", "offset": 10}),
    );
    assert_eq!(ident(&read, cwd), "`src/a.ts offset=10`");
    assert_eq!(ident(&read, None), "`/home/u/proj/src/a.ts offset=10`");
    // Outside the cwd, or the cwd itself (or a sibling sharing its prefix): unchanged.
    for p in ["/etc/hosts", "/home/u/proj", "/home/u/project2/x.ts"] {
        assert_eq!(
            ident(&pair("read", json!({ "path": p })), cwd),
            format!("`{p}`")
        );
    }
    let bash = pair(
        "bash",
        json!({"command": "cd /home/u/proj && git diff --stat"}),
    );
    assert_eq!(ident(&bash, cwd), "`git diff --stat`");
    // Paths under the cwd inside a command, wherever a word starts with one.
    let inner = pair(
        "bash",
        json!({"command": "cd /home/u/proj/pkg && grep -n x \"/home/u/proj/src/a.ts\" /home/u/proj2/b /home/u/proj x/home/u/proj/c"}),
    );
    assert_eq!(
        ident(&inner, cwd),
        "`cd pkg && grep -n x \"src/a.ts\" /home/u/proj2/b /home/u/proj x/home/u/proj/c`"
    );
    // A cd elsewhere is what the command does: kept.
    let other = pair("bash", json!({"command": "cd /tmp && ls"}));
    assert_eq!(ident(&other, cwd), "`cd /tmp && ls`");
    // Windows paths.
    let win = pair("read", json!({"path": r"C:\Users\u\proj\src\a.ts"}));
    assert_eq!(ident(&win, Some(r"C:\Users\u\proj")), r"`src\a.ts`");
}

/// `budget_lines(40)` with `entry` (its `id` and `parentId` set here) after the first message.
fn after_first_message(id: &str, entry: Value) -> Vec<Value> {
    let mut lines = budget_lines(40);
    insert_after(&mut lines, 1, id, entry);
    lines
}

/// Put `entry` (its `id` and `parentId` set here) into the chain `lines` after line `at`.
fn insert_after(lines: &mut Vec<Value>, at: usize, id: &str, mut entry: Value) {
    entry["id"] = json!(id);
    entry["parentId"] = lines[at]["id"].clone();
    if let Some(next) = lines.get_mut(at + 1) {
        next["parentId"] = json!(id);
    }
    lines.insert(at + 1, entry);
}

/// `budget_lines(40)` with a compaction carrying `prev` after its first message.
fn with_previous_summary(prev: &str, tag: &str) -> (Loaded, PathBuf) {
    // The first message of `linked` is `b0000001`.
    let lines = after_first_message(
        "cmp00001",
        json!({"type":"compaction","timestamp":"2026-01-01T00:00:00.000Z","summary":prev,"firstKeptEntryId":"b0000001","tokensBefore":50000}),
    );
    load_lines(&format!("carried-{tag}"), &lines)
}

/// A pi-shake transcript as a previous summary: `n` blocks, block `i` a `**bash** \`ls {dir}{i}\``
/// call (`k of total lines`, `k` the lines given) over `lines(i)`, fenced.
fn transcript(n: usize, dir: &str, total: usize, lines: impl Fn(usize) -> Vec<String>) -> String {
    let mut prev = String::from(
        "# Session history before this point (pruned by pi-shake 0.1.0; tool outputs cut to key lines)\n\n",
    );
    for i in 0..n {
        let body = lines(i);
        let shown = body.len().min(total);
        prev.push_str(&format!(
            "**bash** `ls {dir}{i}` (t{i}; {shown} of {total} lines):\n```\n"
        ));
        for l in body {
            prev.push_str(&l);
            prev.push('\n');
        }
        prev.push_str("```\n\n");
    }
    prev
}

#[test]
fn another_tools_carried_summary_is_cut_by_position_to_its_share() {
    // pi's own LLM summary: prose the value model was not built for, cut to head and tail
    // within the level's share (5% of the budget at a 5% ratio), not competing line by line.
    let mut prev = String::from("## Goal\nRefactor the handlers.\n\n## Progress\n");
    for i in 0..400 {
        prev.push_str(&format!(
            "- step {i}: touched src/module_x/handler_{i}.rs\n"
        ));
    }
    prev.push_str("## Next Steps\n1. finish the last handler\n");
    let (l, dir) = with_previous_summary(&prev, "pi");
    let plan = budget_plan(&l, ratio(0.05));
    let b = plan.budget.clone().unwrap();
    assert!(b.carried_lines.is_none(), "{b:?}");
    let s = &plan.summary;
    let at = s
        .find("## Earlier history (carried from the previous compaction)")
        .unwrap_or_else(|| panic!("{s}"));
    let carried = &s[at..];
    assert!(
        carried.contains("## Goal") && carried.contains("chars omitted"),
        "{carried}"
    );
    assert!(
        crate::jscompat::utf16_len(carried) as u64 <= b.tokens * 4 / 10,
        "{} chars of {} tokens",
        crate::jscompat::utf16_len(carried),
        b.tokens
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_carried_transcript_competes_line_by_line() {
    // A previous pi-shake compaction whose transcript holds one line worth carrying among 40
    // blocks of filler: under a small budget the new summary carries that line under its call
    // (a head-and-tail cut of the old summary would keep only its first and last blocks).
    let prev = transcript(40, "legacy", 9, |i| {
        let mut lines: Vec<String> = (0..6).map(|j| format!("plain old words {i} {j}")).collect();
        if i == 17 {
            lines.push("src/legacy/unique_path_17.rs:7 keep me".into());
        }
        lines
    });
    let (l, dir) = with_previous_summary(&prev, "ours");
    let plan = budget_plan(&l, ratio(0.05));
    let b = plan.budget.clone().unwrap();
    assert!(b.achieved <= b.tokens, "{b:?}");
    let s = &plan.summary;
    let at = s
        .find("## Earlier history (carried from the previous compaction)")
        .unwrap_or_else(|| panic!("{s}"));
    let carried = &s[at..];
    let line = carried
        .find("src/legacy/unique_path_17.rs:7 keep me")
        .unwrap_or_else(|| panic!("{carried}"));
    let header = carried.find("**bash** `ls legacy17`").unwrap();
    assert!(header < line, "{carried}");
    assert!(!carried.contains("plain old words"), "{carried}");
    assert!(!carried.contains("`ls legacy39`"), "{carried}");
    let [kept, total] = b.carried_lines.unwrap();
    assert!((1..10).contains(&kept) && total > 240, "{kept} of {total}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_budget_smaller_than_the_carried_summary_says_how_much_history_stays() {
    // A compaction soon after the last one: its budget is a share of a small region, smaller
    // than what the previous summary carried, so history is lost — and the run says so.
    let prev = transcript(60, "old", 9, |i| {
        (0..9).map(|j| format!("src/old_{i}/file_{j}.rs")).collect()
    });
    let (l, dir) = with_previous_summary(&prev, "lost");
    let plan = budget_plan(&l, at_most(400));
    let b = plan.budget.clone().unwrap();
    let [kept, total] = b.carried_lines.unwrap();
    assert!(kept < total, "{kept} of {total}");
    let lost = plan
        .warnings
        .iter()
        .find(|w| w.starts_with("the previous compaction's summary (~"))
        .unwrap_or_else(|| panic!("{:?}", plan.warnings));
    assert!(
        lost.contains(&format!(
            "is larger than this summary's whole budget (~{} tokens): {kept} of its {total} lines stay; a larger --target-ratio or --max-summary-tokens keeps more of that history",
            b.tokens
        )),
        "{lost}"
    );
    // A budget that holds the whole previous summary says nothing of it.
    let roomy = budget_plan(&l, at_most(200_000));
    assert!(
        !roomy
            .warnings
            .iter()
            .any(|w| w.starts_with("the previous compaction's summary")),
        "{:?}",
        roomy.warnings
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_users_shell_output_shrinks_with_the_users_text() {
    // `!ls` in pi: what the user chose to show the agent. At 5% the assistant's text is left
    // out; the user's short command output is not.
    let lines = after_first_message(
        "bx000001",
        json!({"type":"message","timestamp":"2026-01-01T00:00:00.000Z",
            "message":{"role":"bashExecution","command":"ls -1","output":"Cargo.toml\nrelease-notes_v2.md\n",
                "exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}}),
    );
    let (l, dir) = load_lines("bashx", &lines);
    let plan = budget_plan(&l, ratio(0.05));
    let shrunk = plan.budget.clone().unwrap().shrunk;
    assert!(
        shrunk.iter().any(|s| s.contains("assistant text left out")),
        "{shrunk:?}"
    );
    assert!(
        plan.summary
            .contains("### User ran a shell command\n\n`ls -1`"),
        "{}",
        plan.summary
    );
    assert!(
        plan.summary.contains("release-notes_v2.md"),
        "{}",
        plan.summary
    );
    assert!(!plan.summary.contains("Checking part"), "{}", plan.summary);
    std::fs::remove_dir_all(dir).ok();
}

/// What follows `head` in `summary` up to the next `)`: a header's note (`3 of 12 lines`).
fn note_after<'s>(summary: &'s str, head: &str) -> &'s str {
    let at = summary
        .find(head)
        .unwrap_or_else(|| panic!("no {head:?} in {summary}"));
    summary[at + head.len()..].split(')').next().unwrap_or("")
}

/// A test run's output: 60 lines of progress, `middle`, then 60 passing tests (no distinctive
/// string outside `middle`).
fn test_run_output(middle: &[&str]) -> String {
    let mut out = String::new();
    for i in 0..60 {
        out.push_str(&format!("   Compiling crate number {i} of the workspace\n"));
    }
    for l in middle {
        out.push_str(l);
        out.push('\n');
    }
    for i in 0..60 {
        out.push_str(&format!("test case number {i} ... ok\n"));
    }
    out
}

#[test]
fn a_users_long_shell_output_keeps_its_key_lines_not_its_ends() {
    // `!cargo test` in pi: 120 lines of progress, the failing test's file and line in the
    // middle. Head and tail windows of the user's text lost it at every budget; its key line
    // is what the later turns go back to.
    let out = test_run_output(&[
        "---- tests::login_after_expiry stdout ----",
        "panicked at src/auth/session_store.rs:214:9",
    ]);
    let lines = after_first_message(
        "bx000002",
        json!({"type":"message","timestamp":"2026-01-01T00:00:00.000Z",
            "message":{"role":"bashExecution","command":"cargo test","output":out,
                "exitCode":101,"cancelled":false,"truncated":false,"timestamp":1}}),
    );
    let (l, dir) = load_lines("bashkey", &lines);
    for r in [0.30, 0.05] {
        let plan = budget_plan(&l, ratio(r));
        let summary = &plan.summary;
        // Cut, so it names its entry: `pi-shake recall bx000002` reads it whole.
        let note = note_after(
            summary,
            "### User ran a shell command\n\n`cargo test` (bx000002; ",
        );
        assert!(note.ends_with(" of 123 lines"), "at {r}: {note}");
        assert!(
            summary.contains("src/auth/session_store.rs:214:9"),
            "at {r}: {summary}"
        );
        assert!(
            !summary.contains("Compiling crate number 30 of"),
            "at {r}: {summary}"
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_users_command_output_competes_with_the_tool_outputs_for_the_room() {
    // `!cargo build` printing 200 progress lines with no distinctive string: under a fixed
    // budget its lines compete with the tool outputs' and lose, so the tool outputs keep (about)
    // the lines they keep without it. A window of the user's text took room whatever it held.
    let mut out = String::new();
    for i in 0..200 {
        out.push_str(&format!("   Compiling crate number {i} of the workspace\n"));
    }
    let command = json!({"type":"message","timestamp":"2026-01-01T00:00:00.000Z",
        "message":{"role":"bashExecution","command":"cargo build","output":out,
            "exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}});
    let (with, dir) = load_lines("bashroom", &after_first_message("bx000003", command));
    let (without, dir2) = load_lines("bashroom0", &budget_lines(40));
    // At 40,000 tokens the window took the room of 15 tool-output lines (2,177 kept against
    // 2,192 without the command); at 3,000, of 3.
    for tokens in [40_000, 3_000] {
        let plan = budget_plan(&with, at_most(tokens));
        let b = plan.budget.clone().unwrap();
        let b0 = budget_plan(&without, at_most(tokens)).budget.unwrap();
        assert_eq!(b.other_output_lines.map(|[_, n]| n), Some(201), "{b:?}");
        assert!(
            plan.summary.contains(
                "### User ran a shell command\n\n`cargo build` (bx000003; output of 201 lines not kept)"
            ),
            "at {tokens}: {}",
            plan.summary
        );
        // The command line costs its own few tokens; the lines are the tool outputs'.
        assert!(
            b.lines_kept + 2 >= b0.lines_kept,
            "at {tokens}: {} tool-output lines kept beside the command, {} without it",
            b.lines_kept,
            b0.lines_kept
        );
    }
    std::fs::remove_dir_all(dir).ok();
    std::fs::remove_dir_all(dir2).ok();
}

#[test]
fn a_result_without_its_call_keeps_its_key_lines_and_names_its_entry() {
    // A tool result whose call is not in the region (its call was compacted away by another
    // tool, or lost): shown on its own, cut like a user's command output.
    let out = test_run_output(&["panicked at src/auth/session_store.rs:214:9"]);
    let lines = after_first_message(
        "or000001",
        json!({"type":"message","timestamp":"2026-01-01T00:00:00.000Z",
            "message":{"role":"toolResult","toolCallId":"call_gone","toolName":"bash",
                "content":[{"type":"text","text":out}],"isError":false,"timestamp":1}}),
    );
    let (l, dir) = load_lines("orphankey", &lines);
    let plan = budget_plan(&l, ratio(0.05));
    let summary = &plan.summary;
    let note = note_after(
        summary,
        "**Tool result `bash`** (its call is not in this history; or000001; ",
    );
    assert!(note.ends_with(" of 122 lines"), "{note}");
    assert!(
        summary.contains("src/auth/session_store.rs:214:9"),
        "{summary}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_second_result_for_one_call_is_shown_with_its_text() {
    // A call answered twice (a retried delivery): pi sends both results; the first is the
    // call's, the second stands alone. Reading the region without holding the paired outputs'
    // text must not let go of the second's.
    let mut lines = budget_lines(40);
    let at = lines
        .iter()
        .position(|l| l["message"]["toolCallId"] == json!("c1"))
        .unwrap();
    let mut dup = lines[at].clone();
    dup["id"] = json!("dup00001");
    dup["parentId"] = lines[at]["id"].clone();
    dup["message"]["content"] = json!([{"type":"text",
        "text":"a second delivery\npanicked at src/net/retry_policy.rs:88:5\n"}]);
    lines[at + 1]["parentId"] = json!("dup00001");
    lines.insert(at + 1, dup);
    let (l, dir) = load_lines("dupresult", &lines);
    let plan = budget_plan(&l, ratio(0.30));
    let summary = &plan.summary;
    assert!(
        summary.contains("**Tool result `read`** (its call is not in this history):\n```\na second delivery\npanicked at src/net/retry_policy.rs:88:5"),
        "{summary}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn key_lines_keep_distinctive_lines_in_order_and_mark_the_cuts() {
    use crate::compact::render::key_lines;
    let plain: String = (0..40)
        .map(|i| format!("line number {i} of plain text\n"))
        .collect();
    // Short enough: whole.
    assert_eq!(key_lines("a\nb\n", 100, 50), "a\nb\n");
    // No line holds a distinctive string: head and tail, as for prose.
    assert_eq!(
        key_lines(&plain, 100, 50),
        crate::compact::text::keep_window(&plain, 100, 50)
    );
    // Two key lines in the middle, one string repeated on a third: kept once, in order,
    // every run of cut lines marked.
    let mut s = plain.clone();
    s.push_str("see config/deploy_prod.yaml\n");
    s.push_str(&plain);
    s.push_str("error in lib/parserCore.ts\n");
    s.push_str("again config/deploy_prod.yaml\n");
    s.push_str(&plain);
    let k = key_lines(&s, 100, 50);
    assert_eq!(
        k,
        "…\nsee config/deploy_prod.yaml\n…\nerror in lib/parserCore.ts\n…"
    );
    // The window bounds it: room for one of the two only.
    let k = key_lines(&s, 20, 15);
    assert_eq!(k.matches('\n').count(), 2, "{k}");
    assert!(crate::compact::text::clen(&k) <= 2 * 15 + 4, "{k}");
}

#[test]
fn room_the_lines_do_not_need_goes_to_the_prose() {
    // Outputs without a distinctive string (`seq`): at 5% their lines are only filler, so the
    // level is not pushed down to 60-char user messages to make room for them.
    let mut msgs: Vec<Value> = Vec::new();
    // Long user messages push the skeleton past its share; the first one (about 250 chars)
    // stays whole at 300-char windows and loses its middle at 120-char ones.
    let first = format!(
        "{}The orange parrot flies at noon. {}",
        "Some background on the task. ".repeat(3),
        "More words about it. ".repeat(6)
    );
    let numbers: String = (1..=3000).map(|i| format!("{i}\n")).collect();
    for t in 0..30 {
        let text = if t == 0 {
            first.clone()
        } else {
            format!(
                "Turn {t}: {}",
                "count again and look at the numbers. ".repeat(27)
            )
        };
        msgs.push(json!({"role":"user","content":[{"type":"text","text":text}],"timestamp":1}));
        let id = format!("s{t}");
        msgs.push(
            json!({"role":"assistant","content":[{"type":"toolCall","id":id,"name":"bash","arguments":{"command":"seq 1 3000"}}],"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2}),
        );
        msgs.push(
            json!({"role":"toolResult","toolCallId":id,"toolName":"bash","content":[{"type":"text","text":numbers}],"isError":false,"timestamp":3}),
        );
    }
    let (l, dir) = load_lines(
        "filler",
        &linked("filler-session", "/nonexistent/filler", msgs),
    );
    let plan = budget_plan(&l, ratio(0.05));
    let b = plan.budget.clone().unwrap();
    assert!(b.achieved <= b.tokens, "{b:?}");
    assert!(
        plan.summary.contains("The orange parrot flies at noon."),
        "{b:?}\n{}",
        plan.summary
    );
    assert!(
        !b.shrunk
            .iter()
            .any(|s| s.contains("user text cut to 60 chars")),
        "{b:?}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn at_a_generous_budget_room_the_lines_leave_goes_to_the_prose() {
    // Long assistant text and small outputs: at 60% every output line fits with room to spare,
    // and that room keeps the assistant's words instead of cutting them to nothing.
    let mut msgs: Vec<Value> = Vec::new();
    for t in 0..40 {
        msgs.push(json!({"role":"user","content":[{"type":"text","text":format!("Step {t}: go on.")}],"timestamp":1}));
        let text = format!(
            "The orange parrot {t} flies at noon. {}{}",
            "I looked at the module and its callers once more. ".repeat(6),
            "Next I will check the tests around it. ".repeat(12)
        );
        let id = format!("c{t}");
        msgs.push(
            json!({"role":"assistant","content":[{"type":"text","text":text},{"type":"toolCall","id":id,"name":"bash","arguments":{"command":format!("ls src/part_{t}")}}],"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2}),
        );
        let out: String = (0..6)
            .map(|i| format!("src/part_{t}/file_{i}.rs\n"))
            .collect();
        msgs.push(
            json!({"role":"toolResult","toolCallId":id,"toolName":"bash","content":[{"type":"text","text":out}],"isError":false,"timestamp":3}),
        );
    }
    let (l, dir) = load_lines(
        "generous",
        &linked("generous-session", "/nonexistent/generous", msgs),
    );
    let plan = budget_plan(&l, ratio(0.6));
    let b = plan.budget.clone().unwrap();
    assert!(b.achieved <= b.tokens, "{b:?}");
    assert_eq!(b.lines_kept, b.lines_total, "{b:?}");
    assert!(
        !b.shrunk
            .iter()
            .any(|s| s.contains("assistant text left out")),
        "{b:?}"
    );
    assert!(
        plan.summary.contains("The orange parrot 3 flies at noon."),
        "{b:?}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_smallest_budgets_cut_the_title_to_its_name() {
    let (l, dir) = budget_loaded("tiny", 40);
    let plan = budget_plan(&l, at_most(40));
    let b = plan.budget.clone().unwrap();
    assert!(b.achieved <= b.tokens, "{b:?}\n{}", plan.summary);
    assert_eq!(
        b.shrunk.last().map(String::as_str),
        Some("the title names the pruner only"),
        "{b:?}"
    );
    assert!(
        plan.summary
            .starts_with("# Session history before this point (pruned by pi-shake "),
        "{}",
        plan.summary
    );
    assert!(!plan.summary.contains("re-run a call"), "{}", plan.summary);
    // The next compaction still reads it as pi-shake's own.
    assert!(crate::compact::carried::is_pi_shakes(&plan.summary));
    assert!(
        plan.summary.contains("Turn 0: look at module_0"),
        "{}",
        plan.summary
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_focus_is_the_last_user_message_and_the_instructions() {
    use super::region::{Block, Kind, RMsg};
    let msg = |kind: Kind| RMsg {
        pos: 0,
        entry_id: String::new(),
        kind,
    };
    let kept = vec![
        msg(Kind::User(vec![Block::Text(
            "Look at the warmup code.".into(),
        )])),
        msg(Kind::Assistant(vec![
            Block::Text("Reading the shard map.".into()),
            Block::ToolCall {
                id: "c1".into(),
                name: "read".into(),
                args: json!({"path": "src/ledger.rs"}).into(),
            },
        ])),
        msg(Kind::User(vec![Block::Text(
            "Now raise the drain budget.".into(),
        )])),
    ];
    let v = super::prepare::kept_vocab(&kept, "", Some("keep the retry counters"));
    // Every prompt, answer and call argument gives query words; only the last user message and
    // the instructions give the focus.
    for w in ["warmup", "shard", "ledger"] {
        assert_eq!(v.query_and_focus(w), (true, false), "{w}");
    }
    for w in ["raise", "drain", "budget", "retry", "counter"] {
        assert_eq!(v.query_and_focus(w), (true, true), "{w}");
    }
    assert_eq!(v.query_and_focus("the"), (false, false));
}

/// A region of conversation only (no tool calls): long user and assistant messages.
fn prose_lines(turns: usize) -> Vec<Value> {
    let mut msgs: Vec<Value> = Vec::new();
    let words = |t: usize, n: usize| -> String {
        (0..n)
            .map(|i| format!("word{} ", (t * 7 + i * 13) % 97))
            .collect()
    };
    for t in 0..turns {
        msgs.push(json!({"role":"user","content":[{"type":"text","text":format!("Question {t}: {}", words(t, 300))}],"timestamp":1}));
        msgs.push(json!({"role":"assistant","content":[{"type":"text","text":format!("Answer {t}: {}", words(t + 1, 600))}],"api":"x","provider":"mock","model":"m","stopReason":"stop","timestamp":2}));
    }
    msgs.push(json!({"role":"user","content":[{"type":"text","text":"next"}],"timestamp":1}));
    linked("prose-session", "/nonexistent/prose-proj", msgs)
}

#[test]
fn a_region_without_tool_output_still_fills_its_budget() {
    // With no lines to compete for the room, the skeleton takes it back: more of the latest user
    // messages, then wider prose windows. Before, the summary stopped at the level whose
    // skeleton fit its share (at 1,000 tokens: the first user message and the last 3, ~140).
    let (l, dir) = load_lines("room-prose", &prose_lines(100));
    let specs = [ratio(0.15), ratio(0.05), ratio(0.02), at_most(1_000)];
    for spec in specs {
        let plan = budget_plan(&l, spec.clone());
        let b = plan.budget.clone().unwrap();
        assert_within(&b, &format!("{spec:?}"));
        let last = b.shrunk.last().expect("a prose region this size shrinks");
        assert!(last.contains("room left:"), "{spec:?}: {last}");
        // Still a transcript: the region's first question and its latest one are shown.
        assert!(plan.summary.contains("Question 0:"), "{spec:?}");
        // (Questions 98 and 99 are in the kept 4,000 tokens.)
        assert!(plan.summary.contains("Question 97:"), "{spec:?}");
    }
    // Under the 1,000-token cap only some user messages fit: the latest ones came back.
    let plan = budget_plan(&l, at_most(1_000));
    let last = plan.budget.unwrap().shrunk.pop().unwrap();
    assert!(
        last.starts_with("only the region's first user message"),
        "{last}"
    );
    assert!(plan.counts.user_messages_left_out > 0);
    assert!(plan.summary.contains("Question 90:"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn room_left_goes_to_the_edits_new_text_then_the_prose() {
    // A region of edits with short outputs: the edits' bodies outweigh the skeleton's share, so
    // the level leaves their heads out (pins → call line); their new text's lines then compete
    // for the room like output lines, and where the pins go too, the prose takes it back.
    let mut msgs: Vec<Value> = Vec::new();
    let body = |t: usize, tag: &str| -> String {
        (0..40)
            .map(|i| format!("let {tag}_{t}_{i} = compute_{i}(input_{t});\n"))
            .collect()
    };
    for t in 0..40 {
        msgs.push(json!({"role":"user","content":[{"type":"text","text":format!("Step {t}: change handler_{t}.")}],"timestamp":1}));
        let id = format!("e{t}");
        msgs.push(json!({"role":"assistant","content":[
            {"type":"text","text":format!("Editing handler_{t}; {}", "the reasoning goes on. ".repeat(20))},
            {"type":"toolCall","id":id,"name":"edit","arguments":{"path":format!("src/handler_{t}.rs"),"oldText":body(t, "old"),"newText":body(t, "new")}}
        ],"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2}));
        msgs.push(json!({"role":"toolResult","toolCallId":id,"toolName":"edit","content":[{"type":"text","text":format!("Successfully replaced text in src/handler_{t}.rs.")}],"isError":false,"timestamp":3}));
    }
    msgs.push(json!({"role":"user","content":[{"type":"text","text":"next"}],"timestamp":1}));
    let (l, dir) = load_lines(
        "room-pins",
        &linked("pins-session", "/nonexistent/pins", msgs),
    );
    for (r, back) in [
        (0.30, None),
        (0.15, None),
        (0.10, None),
        (0.05, None),
        (0.02, Some("assistant texts back")),
    ] {
        let plan = budget_plan(&l, ratio(r));
        let b = plan.budget.clone().unwrap();
        assert_within(&b, &format!("{r}"));
        let last = b.shrunk.last().unwrap();
        if let Some(back) = back {
            assert!(last.contains(back), "{r}: {last}");
        }
        if back.is_none() {
            // Every edit keeps its call line, and most keep lines of their new text (its
            // identifiers are what the outputs lack), never of the old text.
            let latest = (0..40)
                .rev()
                .find(|t| plan.summary.contains(&format!("src/handler_{t}.rs")))
                .unwrap();
            for t in 0..=latest {
                assert!(plan.summary.contains(&format!("src/handler_{t}.rs")), "{r}");
                assert!(!plan.summary.contains(&format!("old_{t}_")), "{r}");
            }
            let with_text = (0..40)
                .filter(|t| plan.summary.contains(&format!("new_{t}_")))
                .count();
            assert!(
                2 * with_text > latest + 1,
                "{r}: {with_text} of {}",
                latest + 1
            );
            assert_eq!(plan.summary.matches("New text, ").count(), with_text, "{r}");
            assert!(!plan.summary.contains("New text, :"), "{r}");
        } else {
            // A latest assistant text is back, the first is not.
            assert!(plan.summary.contains("Editing handler_"), "{r}");
            assert!(!plan.summary.contains("Editing handler_0;"), "{r}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A deterministic mix of conversation, edits and tool output (splitmix64 draws): the shapes
/// where the skeleton, not the lines, has to fill the budget.
fn mixed_lines(seed: u64) -> Vec<Value> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x6a09_e667;
    let mut next = move |n: usize| -> usize {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n.max(1) as u64) as usize
    };
    const WORDS: [&str; 8] = [
        "alpha", "parser", "buffer", "cache", "index", "module", "handler", "request",
    ];
    let prose = |n: usize, next: &mut dyn FnMut(usize) -> usize| -> String {
        (0..n)
            .map(|_| WORDS[next(WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let user_max = [5, 50, 400][next(3)];
    let asst_max = [5, 100, 800][next(3)];
    let outs_max = [0, 1, 3][next(3)];
    let lines_max = [3, 40, 400][next(3)];
    let turns = 10 + next(50);
    let mut msgs: Vec<Value> = Vec::new();
    let mut c = 0;
    for t in 0..turns {
        let n = 1 + next(user_max);
        msgs.push(json!({"role":"user","content":[{"type":"text","text":format!("task {t}: {}", prose(n, &mut next))}],"timestamp":1}));
        for _ in 0..next(outs_max + 1) {
            c += 1;
            let id = format!("c{c}");
            let (tool, args) = match next(4) {
                0 => ("bash", json!({"command": format!("make t{c}")})),
                1 => ("read", json!({"path": format!("src/f{c}.rs")})),
                2 => (
                    "edit",
                    json!({"path": format!("src/f{}.rs", c % 7), "oldText": prose(30, &mut next), "newText": prose(40, &mut next)}),
                ),
                _ => (
                    "write",
                    json!({"path": format!("src/n{c}.rs"), "content": prose([10, 1000][next(2)], &mut next)}),
                ),
            };
            let n = 1 + next(4);
            msgs.push(json!({"role":"assistant","content":[{"type":"text","text":prose(n, &mut next)},{"type":"toolCall","id":id,"name":tool,"arguments":args}],"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2}));
            let lines = 1 + next(lines_max);
            let out: String = (0..lines)
                .map(|j| format!("{j}: {} sym_{c}_{j} src/m{c}.rs:{j}\n", prose(6, &mut next)))
                .collect();
            msgs.push(json!({"role":"toolResult","toolCallId":id,"toolName":tool,"content":[{"type":"text","text":out}],"isError":next(10) == 0,"timestamp":3}));
        }
        let n = 1 + next(asst_max);
        msgs.push(json!({"role":"assistant","content":[{"type":"text","text":prose(n, &mut next)}],"api":"x","provider":"mock","model":"m","stopReason":"stop","timestamp":2}));
    }
    msgs.push(json!({"role":"user","content":[{"type":"text","text":"next"}],"timestamp":1}));
    linked(&format!("mixed-{seed}"), "/nonexistent/mixed", msgs)
}

#[test]
fn budgets_are_met_on_a_mix_of_conversation_edits_and_output() {
    // Every summary stays within its budget, and one of at least 1,000 tokens comes within 10%
    // of it (the last piece that would not fit — a pin's body, a user message — is at most a
    // few hundred tokens); 95% of them within 5%.
    let (mut points, mut within5) = (0, 0);
    for seed in 0..24 {
        let (l, dir) = load_lines(&format!("mixed-{seed}"), &mixed_lines(seed));
        for r in [0.30, 0.15, 0.05] {
            let Some(plan) = try_budget_plan(&l, ratio(r), true) else {
                continue;
            };
            let b = plan.budget.clone().unwrap();
            assert!(b.achieved <= b.tokens, "seed {seed} at {r}: {b:?}");
            if b.tokens < 1_000 {
                continue;
            }
            points += 1;
            let share = b.achieved as f64 / b.tokens as f64;
            assert!(share >= 0.90, "seed {seed} at {r}: {share:.3} {b:?}");
            if share >= 0.95 {
                within5 += 1;
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }
    assert!(points >= 30, "{points} points");
    assert!(
        within5 * 100 >= points * 95,
        "{within5} of {points} within 5%"
    );
}

#[test]
fn shell_commands_the_user_ran_are_left_out_with_the_user_messages() {
    // `!cmd` runs (bashExecution) were shown at every level: under a small budget a region of
    // them overran it even at the smallest skeleton. They follow the user messages' rule now,
    // counted in place on their own.
    let mut msgs: Vec<Value> = Vec::new();
    for t in 0..60 {
        msgs.push(json!({"role":"user","content":[{"type":"text","text":format!("Step {t}.")}],"timestamp":1}));
        let output: String = (0..100).map(|j| format!("f_{t}_{j}.rs\n")).collect();
        msgs.push(json!({"role":"bashExecution","command":format!("ls src/{t}"),"output":output,"exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}));
        msgs.push(json!({"role":"assistant","content":[{"type":"text","text":format!("Listed src/{t}.")}],"api":"x","provider":"mock","model":"m","stopReason":"stop","timestamp":2}));
    }
    msgs.push(json!({"role":"user","content":[{"type":"text","text":"next"}],"timestamp":1}));
    let (l, dir) = load_lines(
        "room-bash",
        &linked("bash-session", "/nonexistent/bash", msgs),
    );
    for cap in [300, 1_000] {
        let plan = budget_plan(&l, at_most(cap));
        let b = plan.budget.clone().unwrap();
        assert!(b.achieved <= b.tokens, "{cap}: {b:?}");
        assert!(plan.warnings.is_empty(), "{cap}: {:?}", plan.warnings);
        assert!(plan.summary.contains("shell commands left out]"), "{cap}");
        // The first command stays, as the first user message does.
        assert!(plan.summary.contains("`ls src/0`"), "{cap}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn branch_summaries_and_orphan_results_are_left_out_with_the_user_messages() {
    // Summaries of abandoned branches and tool results whose call is not in the region were
    // shown at every level: 60 of each overran a 1,000-token budget more than 3×.
    let mut lines = vec![
        json!({"type":"session","version":3,"id":"asides","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/nonexistent/asides"}),
    ];
    let mut parent: Option<String> = None;
    let mut push = |mut entry: Value, lines: &mut Vec<Value>| {
        let id = format!("a{:07}", lines.len());
        entry["id"] = json!(id);
        entry["parentId"] = json!(parent);
        if entry["type"] == "branch_summary" {
            entry["fromId"] = json!(parent);
        }
        entry["timestamp"] = json!("2026-01-01T00:00:00.000Z");
        lines.push(entry);
        parent = Some(id);
    };
    for t in 0..60 {
        push(
            json!({"type":"branch_summary","summary":format!("Explored option {t}: {}", "word ".repeat(400))}),
            &mut lines,
        );
        push(
            json!({"type":"message","message":{"role":"user","content":[{"type":"text","text":format!("Go {t}.")}],"timestamp":1}}),
            &mut lines,
        );
        push(
            json!({"type":"message","message":{"role":"toolResult","toolCallId":format!("gone{t}"),"toolName":"bash","content":[{"type":"text","text":"orphan output ".repeat(200)}],"isError":false,"timestamp":1}}),
            &mut lines,
        );
        push(
            json!({"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"ok ".repeat(300)}],"api":"x","provider":"mock","model":"m","stopReason":"stop","timestamp":2}}),
            &mut lines,
        );
    }
    push(
        json!({"type":"message","message":{"role":"user","content":[{"type":"text","text":"next"}],"timestamp":1}}),
        &mut lines,
    );
    let (l, dir) = load_lines("room-asides", &lines);
    for cap in [300, 1_000] {
        let plan = budget_plan(&l, at_most(cap));
        let b = plan.budget.clone().unwrap();
        assert!(b.achieved <= b.tokens, "{cap}: {b:?}");
        assert!(plan.warnings.is_empty(), "{cap}: {:?}", plan.warnings);
        assert!(
            plan.summary.contains("branch summaries and")
                && plan
                    .summary
                    .contains("tool results without their call left out]"),
            "{cap}"
        );
        // The first of each stays, as the first user message does.
        assert!(plan.summary.contains("Explored option 0:"), "{cap}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_assistants_words_are_not_taken_as_held() {
    // The assistant names `parseLedgerRow_42` in passing, deep in a long explanation the levels
    // cut to windows; one of 400 lines of output holds it. Under a small budget the summary
    // keeps that line: the assistant's text does not hold the string once it is cut.
    let mut msgs: Vec<Value> = Vec::new();
    let filler = "the explanation goes on without naming anything in particular. ".repeat(30);
    for t in 0..12 {
        msgs.push(json!({"role":"user","content":[{"type":"text","text":format!("Look at part {t}.")}],"timestamp":1}));
        let text = if t == 1 {
            format!("{filler} The suspect is parseLedgerRow_42. {filler}")
        } else {
            filler.clone()
        };
        let id = format!("c{t}");
        msgs.push(json!({"role":"assistant","content":[
            {"type":"text","text":text},
            {"type":"toolCall","id":id,"name":"bash","arguments":{"command":format!("cat logs/part_{t}.log")}}
        ],"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2}));
        let out: String = (0..400)
            .map(|i| {
                if t == 2 && i == 217 {
                    "row 217: parseLedgerRow_42 amount".to_string()
                } else {
                    // A hash per line: worth a little, so the lines compete.
                    format!(
                        "row {i}: ok {:012x}",
                        (t * 1000 + i) as u64 * 7_919 + 0xabc_0000_0000
                    )
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        msgs.push(json!({"role":"toolResult","toolCallId":id,"toolName":"bash","content":[{"type":"text","text":out}],"isError":false,"timestamp":3}));
    }
    msgs.push(json!({"role":"user","content":[{"type":"text","text":"next"}],"timestamp":1}));
    let (l, dir) = load_lines(
        "asst-held",
        &linked("asst-session", "/nonexistent/asst", msgs),
    );
    let plan = budget_plan(&l, ratio(0.02));
    // The assistant's text is cut to windows (or left out) that miss the name …
    assert!(!plan.summary.contains("The suspect is"), "{}", plan.summary);
    // … so the one output line holding it is worth it.
    assert!(
        plan.summary.contains("row 217: parseLedgerRow_42 amount"),
        "{}",
        plan.summary
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_multi_line_commands_rest_competes_under_its_call_line() {
    // Scripts of `sed -i` lines, each naming files no output names: under a budget their lines
    // compete like output lines and show in a block of their own under the call line; the
    // threshold path keeps the design's one-line call (`first …(+N lines)`).
    let mut msgs: Vec<Value> = Vec::new();
    for t in 0..30 {
        msgs.push(json!({"role":"user","content":[{"type":"text","text":format!("Step {t}: fix the imports.")}],"timestamp":1}));
        let id = format!("b{t}");
        let script: String = std::iter::once("cd /nonexistent/scripts/src\n".to_string())
            .chain((0..12).map(|i| {
                format!("sed -i 's|from \"./old_{t}_{i}.js\"|from \"./lib/new_{t}_{i}.js\"|g' mod_{t}/file_{i}.ts\n")
            }))
            .collect();
        let output: String = (0..30)
            .map(|i| format!("checked line {i} of step {t}: nothing to report here\n"))
            .collect();
        msgs.push(json!({"role":"assistant","content":[
            {"type":"toolCall","id":id,"name":"bash","arguments":{"command":script}}
        ],"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2}));
        msgs.push(json!({"role":"toolResult","toolCallId":id,"toolName":"bash","content":[{"type":"text","text":output}],"isError":false,"timestamp":3}));
    }
    msgs.push(json!({"role":"user","content":[{"type":"text","text":"next"}],"timestamp":1}));
    let (l, dir) = load_lines(
        "scripts",
        &linked("scripts-session", "/nonexistent/scripts", msgs),
    );
    for r in [0.30, 0.10] {
        let plan = budget_plan(&l, ratio(r));
        assert_within(plan.budget.as_ref().unwrap(), &format!("{r}"));
        let blocks: Vec<&str> = plan.summary.split("\n\n").collect();
        let mut with_lines = 0;
        for t in 0..30 {
            let has = plan.summary.contains(&format!("new_{t}_"));
            with_lines += usize::from(has);
            if has {
                // Under its own call line, in a `Command` block, before any output.
                let b = blocks
                    .iter()
                    .find(|b| b.contains(&format!("new_{t}_")))
                    .unwrap();
                assert!(b.starts_with("**bash** `cd src …(+12 lines)`"), "{r}: {b}");
                let c = b.find("\nCommand, ").unwrap();
                assert!(c < b.find(&format!("new_{t}_")).unwrap(), "{r}: {b}");
                assert!(b.find("\nOutput:").is_none_or(|o| o > c), "{r}: {b}");
            }
        }
        // The scripts' strings are what the outputs lack: they win the room (at 30% most
        // scripts keep lines, at 10% a few keep all of theirs).
        let least = if r > 0.2 { 16 } else { 3 };
        assert!(
            with_lines >= least,
            "{r}: {with_lines} of 30\n{}",
            plan.summary
        );
        assert_eq!(
            plan.summary.matches("\nCommand, ").count(),
            with_lines,
            "{r}"
        );
    }
    // The threshold path (the design's): no command block.
    let Outcome::Ready(plan) = plan_of(&l, 4_000) else {
        panic!("nothing to compact");
    };
    assert!(!plan.summary.contains("Command, "), "{}", plan.summary);
    assert!(!plan.summary.contains("sed -i"), "{}", plan.summary);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_commit_messages_body_goes_with_its_git_pin() {
    // A commit whose message has a body, then outputs without a distinctive string: while the
    // pins stay the body's lines win room under the pin's call line; the call line shows its
    // first line only.
    let message: String = std::iter::once("Move imports to lib/\n\n".to_string())
        .chain((0..6).map(|i| format!("- moved src/old_{i}.ts to lib/commit_body_{i}.ts\n")))
        .collect();
    let mut msgs: Vec<Value> = vec![
        json!({"role":"user","content":[{"type":"text","text":"Commit the move."}],"timestamp":1}),
        json!({"role":"assistant","content":[
            {"type":"toolCall","id":"g1","name":"bash","arguments":{"command":format!("git commit -am \"{message}\"")}}
        ],"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2}),
        json!({"role":"toolResult","toolCallId":"g1","toolName":"bash","content":[{"type":"text","text":"[main 1a2b3c4] Move imports to lib/\n 6 files changed"}],"isError":false,"timestamp":3}),
    ];
    for t in 0..20 {
        msgs.push(json!({"role":"user","content":[{"type":"text","text":format!("Step {t}: look again.")}],"timestamp":1}));
        let id = format!("b{t}");
        let output: String = (0..40)
            .map(|i| format!("checked line {i} of step {t}: nothing to report here\n"))
            .collect();
        msgs.push(json!({"role":"assistant","content":[
            {"type":"toolCall","id":id,"name":"bash","arguments":{"command":"make check"}}
        ],"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2}));
        msgs.push(json!({"role":"toolResult","toolCallId":id,"toolName":"bash","content":[{"type":"text","text":output}],"isError":false,"timestamp":3}));
    }
    msgs.push(json!({"role":"user","content":[{"type":"text","text":"next"}],"timestamp":1}));
    let (l, dir) = load_lines(
        "commit",
        &linked("commit-session", "/nonexistent/commit", msgs),
    );
    let plan = budget_plan(&l, ratio(0.30));
    assert_within(plan.budget.as_ref().unwrap(), "0.30");
    // The pin's block: up to the next heading or call.
    let at = plan
        .summary
        .find("**bash** `git commit")
        .unwrap_or_else(|| panic!("{}", plan.summary));
    let b = &plan.summary[at..];
    let b = &b[..b.find("\n\n###").unwrap_or(b.len())];
    assert!(b.contains("Move imports to lib/ …(+8 lines)`"), "{b}");
    assert!(b.contains("pinned: git"), "{b}");
    assert!(b.contains("\nCommand, "), "{b}");
    assert!(b.contains("lib/commit_body_0.ts"), "{b}");
    let pin = plan.pairs.iter().find(|p| p.pin.is_some()).unwrap();
    assert!(
        pin.command_lines.is_some_and(|[k, n]| k > 0 && n == 8),
        "{pin:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_small_budget_fills_the_shown_windows_to_within_five_percent() {
    // Long user and assistant texts, tiny outputs: at 2–3% the skeleton keeps one or two user
    // messages in windows, and a whole next message does not fit; the room left widens the
    // windows shown (it fell 10–15% short before).
    const W: [&str; 12] = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "parser",
        "tokenizer",
        "buffer",
        "cache",
        "index",
        "module",
        "handler",
        "request",
    ];
    let words = |seed: usize, n: usize| -> String {
        (0..n)
            .map(|i| W[(seed * 7 + i * i * 3 + i) % W.len()])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut msgs: Vec<Value> = Vec::new();
    for t in 0..8 {
        msgs.push(json!({"role":"user","content":[{"type":"text","text":format!("task {t}: {}", words(t, 120))}],"timestamp":1}));
        let id = format!("c{t}");
        msgs.push(json!({"role":"assistant","content":[
            {"type":"text","text":words(t + 50, 90)},
            {"type":"toolCall","id":id,"name":"bash","arguments":{"command":format!("make t{t}")}}
        ],"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2}));
        msgs.push(json!({"role":"toolResult","toolCallId":id,"toolName":"bash","content":[{"type":"text","text":format!("ok sym_{t}_0 src/m{t}.rs:0")}],"isError":false,"timestamp":3}));
    }
    msgs.push(json!({"role":"user","content":[{"type":"text","text":"next"}],"timestamp":1}));
    let (l, dir) = load_lines("fill", &linked("fill-session", "/nonexistent/fill", msgs));
    let mut widened = 0;
    for r in [0.30, 0.15, 0.10, 0.05, 0.03, 0.02] {
        let plan = try_budget_plan_keeping(&l, ratio(r), true, 200)
            .unwrap_or_else(|| panic!("nothing to compact at {r}"));
        let b = plan.budget.clone().unwrap();
        assert_within(&b, &format!("{r}"));
        widened += usize::from(
            b.shrunk
                .last()
                .is_some_and(|x| x.contains("windows widened")),
        );
    }
    assert!(widened >= 4, "{widened}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The usage pi recorded is the only evidence of what the model takes: a summary that makes the
/// context larger than any the session sent is warned about, and only then.
#[test]
fn a_context_larger_than_any_the_session_sent_is_warned_about() {
    let with_usage = |total: u64| {
        let mut lines = budget_lines(40);
        // The first answer records what pi sent: `totalTokens` is what pi counts.
        let first = lines
            .iter_mut()
            .find(|l| l["message"]["role"] == "assistant")
            .unwrap();
        first["message"]["usage"] = json!({"input": total, "output": 0, "cacheRead": 0,
            "cacheWrite": 0, "totalTokens": total});
        lines
    };
    let warned = |p: &CompactPlan| {
        p.warnings
            .iter()
            .any(|w| w.contains("larger than any this session has sent its model"))
    };
    // Sent ~5,000 tokens at most; a summary of 60% of the region leaves far more.
    let (l, dir) = load_lines("sent-small", &with_usage(5_000));
    assert_eq!(largest_sent(&l), Some(5_000.0));
    let big = budget_plan(&l, ratio(0.6));
    assert!(
        big.sizes.context_after > 6_250,
        "{}",
        big.sizes.context_after
    );
    assert!(warned(&big), "{:?}", big.warnings);
    // A summary small enough to fit is not.
    let small = budget_plan(&l, at_most(200));
    assert!(
        small.sizes.context_after < 6_250,
        "{}",
        small.sizes.context_after
    );
    assert!(!warned(&small), "{:?}", small.warnings);
    std::fs::remove_dir_all(dir).ok();
    // Sent more than the compacted context: no warning.
    let (l, dir) = load_lines("sent-large", &with_usage(10_000_000));
    assert!(!warned(&budget_plan(&l, ratio(0.6))));
    std::fs::remove_dir_all(dir).ok();
    // No usage recorded: nothing to go by, no warning.
    let (l, dir) = budget_loaded("sent-none", 40);
    assert_eq!(largest_sent(&l), None);
    assert!(!warned(&budget_plan(&l, ratio(0.6))));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn an_unresolved_error_cut_to_its_key_lines_keeps_them() {
    // A failing test run at the start of a region of rich outputs: its error lines hold nothing
    // distinctive, so by value alone the paths and identifiers around it would take the room.
    let mut lines = budget_lines(12);
    let run: String = (0..200)
        .map(|i| match i {
            57 => "  ⨯ keeps_the_draft_across_reloads 59.15 s\n".to_string(),
            _ => format!("  ✓ passing case number {i} 0.5 s\n"),
        })
        .collect::<String>()
        + "Tests: 1 failed, 199 passed";
    let user =
        json!({"role":"user","content":[{"type":"text","text":"Run the tests."}],"timestamp":1});
    let call = json!({"role":"assistant","content":[{"type":"toolCall","id":"fail1","name":"bash","arguments":{"command":"npm test"}}],"api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2});
    let result = json!({"role":"toolResult","toolCallId":"fail1","toolName":"bash","content":[{"type":"text","text":run}],"isError":true,"timestamp":3});
    // Relink: the header, the failing run, then the rest.
    let mut msgs: Vec<Value> = vec![user, call, result];
    msgs.extend(lines.drain(1..).map(|l| l["message"].clone()));
    let (l, dir) = load_lines(
        "errkey",
        &linked("budget-errkey", "/nonexistent/budget-proj", msgs),
    );
    // Budgets that cut unresolved errors to their key lines but still show pins.
    for r in [0.08, 0.05] {
        let plan = budget_plan(&l, ratio(r));
        let b = plan.budget.as_ref().unwrap();
        assert!(
            b.shrunk
                .iter()
                .any(|s| s.contains("unresolved errors cut to their key lines")),
            "{r}: {:?}",
            b.shrunk
        );
        assert!(
            !b.shrunk.iter().any(|s| s.starts_with("pins and calls")),
            "{r}: {:?}",
            b.shrunk
        );
        // The first pair of the region: the failing run.
        let p = &plan.pairs[0];
        assert_eq!((p.tool.as_str(), p.is_error), ("bash", true), "{r}");
        assert_eq!(p.action, Action::Pinned, "{r}: {:?}", b.shrunk);
        let kept = p.lines.map_or(0, |l| l[0]);
        assert!((2..10).contains(&kept), "{r}: {kept} lines");
        assert!(
            plan.summary.contains("⨯ keeps_the_draft_across_reloads"),
            "{r}"
        );
        assert!(plan.summary.contains("Tests: 1 failed, 199 passed"), "{r}");
        assert!(!plan.summary.contains("passing case number 100"), "{r}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

proptest::proptest! {
    /// Whatever the text and the window: whole when it fits, else head and tail, or lines of the
    /// text in their order (`…` between runs) within the window's size.
    #[test]
    fn key_lines_are_the_texts_lines_in_order_within_the_window(
        lines in proptest::collection::vec("[a-z0-9_./ ]{0,60}", 0..80),
        whole in 0usize..400,
        window in 1usize..200,
    ) {
        use crate::compact::render::key_lines;
        use crate::compact::text::{clen, keep_window};
        let s = lines.join("\n");
        let k = key_lines(&s, whole, window);
        if clen(&s) <= whole {
            proptest::prop_assert_eq!(k, s);
        } else if k != keep_window(&s, whole, window) {
            let mut input = s.split('\n');
            let mut used = 0;
            for l in k.split('\n').filter(|l| *l != "…") {
                proptest::prop_assert!(input.any(|x| x == l), "{l:?} out of order or not a line");
                used += clen(l) + 3;
            }
            proptest::prop_assert!(used <= 2 * window, "{used} chars for a {window}-char window");
        }
    }
}

/// The line of [`budget_lines`]' turn `t`'s last message (line 1 is turn 0's first, 12 or 13
/// lines a turn).
fn end_of_turn(lines: &[Value], t: usize) -> usize {
    lines
        .iter()
        .position(|l| l["message"]["content"][0]["text"] == json!(format!("Fixed module_{t}.")))
        .unwrap()
}

/// A user's `!command` run (pi's `bashExecution`) printing `output` and exiting with `exit`.
fn shell_run(command: &str, output: &str, exit: i64) -> Value {
    json!({"type":"message","timestamp":"2026-01-01T00:00:00.000Z",
        "message":{"role":"bashExecution","command":command,"output":output,
            "exitCode":exit,"cancelled":false,"truncated":false,"timestamp":1}})
}

#[test]
fn a_shell_command_the_user_ran_again_gives_its_room_to_the_rerun() {
    // `!cargo test` failing early in the region, the agent's fixes, then `!cargo test` again
    // passing: the first run's lines are older news, like a call's that a later identical call
    // repeated, so they are worth less than another command's.
    let first = test_run_output(&[
        "---- tests::login_after_expiry stdout ----",
        "panicked at src/auth/session_store.rs:214:9",
    ]);
    let kept_of_first = |rerun: &str| {
        let mut lines = after_first_message("bx000004", shell_run("cargo test", &first, 101));
        let at = end_of_turn(&lines, 20);
        let again = test_run_output(&["test result: ok. 121 passed; finished in 0.42s"]);
        insert_after(&mut lines, at, "bx000005", shell_run(rerun, &again, 0));
        let (l, dir) = load_lines(&format!("rerun-{}", rerun.len()), &lines);
        let kept: Vec<usize> = [0.30, 0.10]
            .into_iter()
            .map(|r| {
                let plan = budget_plan(&l, ratio(r));
                let note = note_after(&plan.summary, "`cargo test` (bx000004; ");
                let kept = note
                    .split(' ')
                    .next()
                    .and_then(|k| k.parse().ok())
                    .unwrap_or(0);
                // `details` says the same, and why.
                let b = plan.budget.unwrap();
                let first = &b.other_outputs[0];
                assert_eq!(
                    (first.entry_id.as_str(), first.kind, first.lines),
                    ("bx000004", "command", [kept, 123])
                );
                // pi runs `!` commands in the session's cwd: a `cd` there first is the same run.
                let superseded =
                    rerun.trim_start_matches("cd /nonexistent/budget-proj && ") == "cargo test";
                assert_eq!(
                    first.why,
                    if superseded {
                        vec!["superseded"]
                    } else {
                        vec![]
                    }
                );
                assert_eq!(first.factor, if superseded { 0.4 } else { 1.0 });
                assert_eq!(b.other_outputs[1].entry_id, "bx000005");
                assert!(b.other_outputs[1].why.is_empty());
                kept
            })
            .collect();
        std::fs::remove_dir_all(dir).ok();
        kept
    };
    let superseded = kept_of_first("cargo test");
    // Its `details` say `superseded` (checked above) and it keeps as little.
    let with_cd = kept_of_first("cd /nonexistent/budget-proj && cargo test");
    let other = kept_of_first("cargo test --doc");
    for kept in [&superseded, &with_cd] {
        for (s, o) in kept.iter().zip(&other) {
            assert!(
                s < o,
                "kept {kept:?} of the first run, {other:?} beside another command"
            );
        }
    }
}

#[test]
fn a_file_read_again_gives_its_room_to_the_later_read() {
    // Turn 3 reads `src/module_3/part_0.rs` whole (120 lines); after turn 20 the agent reads it
    // again from line 1 (other arguments, the same lines shown), or prints it with a shell
    // command naming it another way: the first read's lines are older news, so they are worth
    // less than beside a read of another file.
    let first_read = |tag: usize, tool: &str, args: Value| {
        let mut lines = budget_lines(40);
        let at = end_of_turn(&lines, 20);
        let first = &lines[39]["message"];
        assert_eq!(first["toolName"], "read");
        let mut text = first["content"][0]["text"].as_str().unwrap().to_string();
        if args["command"]
            .as_str()
            .is_some_and(|c| c.starts_with("nl "))
        {
            // `nl -ba`'s numbered lines.
            text = text
                .lines()
                .enumerate()
                .map(|(i, l)| format!("{:6}\t{l}\n", i + 1))
                .collect();
        }
        let call = json!({"type":"message","timestamp":"2026-01-01T00:00:00.000Z",
            "message":{"role":"assistant","content":[{"type":"toolCall","id":"rr1","name":tool,
                "arguments":args}],
                "api":"x","provider":"mock","model":"m","stopReason":"toolUse","timestamp":2}});
        let result = json!({"type":"message","timestamp":"2026-01-01T00:00:00.000Z",
            "message":{"role":"toolResult","toolCallId":"rr1","toolName":tool,
                "content":[{"type":"text","text":text}],"isError":false,"timestamp":3}});
        insert_after(&mut lines, at, "br000001", call);
        insert_after(&mut lines, at + 1, "br000002", result);
        let (l, dir) = load_lines(&format!("reread-{tag}"), &lines);
        let kept: Vec<(usize, f64, Vec<&str>)> = [0.30, 0.10]
            .into_iter()
            .map(|r| {
                let plan = budget_plan(&l, ratio(r));
                let p = plan
                    .pairs
                    .iter()
                    .find(|p| p.call_entry == "b0000038")
                    .unwrap();
                assert_eq!(p.tool, "read");
                let Some(PairSignals::Budget { factor, why }) = &p.signals else {
                    panic!("{:?}", p.signals)
                };
                (p.lines.unwrap()[0], *factor, why.clone())
            })
            .collect();
        std::fs::remove_dir_all(dir).ok();
        kept
    };
    let read = |path: &str| json!({"path": path, "offset": 1, "limit": 200});
    let shell = |command: &str| json!({ "command": command });
    let other = first_read(0, "read", read("src/module_3/part_9.rs"));
    for (tag, tool, args) in [
        (1, "read", read("src/module_3/part_0.rs")),
        (
            2,
            "read",
            read("/nonexistent/budget-proj/src/module_3/part_0.rs"),
        ),
        (3, "bash", shell("cat ./src/module_3/part_0.rs")),
        (
            4,
            "bash",
            shell("cd src/module_3 && sed -n '1,200p' part_0.rs"),
        ),
        (
            5,
            "bash",
            shell("nl -ba src/module_3/part_0.rs | sed -n '1,200p'"),
        ),
    ] {
        let reread = first_read(tag, tool, args);
        for ((kr, fr, why_r), (ko, fo, why_o)) in reread.iter().zip(&other) {
            assert_eq!(why_r.first(), Some(&"reread"), "{tag}: {why_r:?}");
            assert!(!why_o.contains(&"reread"), "{why_o:?}");
            assert!((fr / fo - 0.4).abs() < 0.01, "{tag}: {fr} {fo}");
            assert!(
                kr < ko,
                "{tag}: kept {reread:?} of the first read, {other:?} beside another file"
            );
        }
    }
}
