//! Unit tests of the budgeted selector's features, selection and line rendering.

use super::*;

#[test]
fn distinctive_strings() {
    let got: Vec<&str> = distinctive(
        "see src/compact/mod.rs:42 and parseHeader, v1.6.0 plain words snake_case_id ok. \
         abcdefghij 12345678",
    )
    .collect();
    assert_eq!(
        got,
        vec![
            "src/compact/mod.rs:42",
            "parseHeader",
            "snake_case_id",
            "12345678"
        ]
    );
    assert!(class_of("parseHeader") > class_of("src/a/b.rs"));
    assert!(class_of("parseHeader") > class_of("this.parseHeader"));
    assert!(class_of("src/a/b.rs") > class_of("2025-12-17T19:39:17.548Z"));
    assert!(class_of("parseHeader") > class_of("deadbeef12345678deadbeef"));
    // An abbreviated commit is an id like any other; a digest or a uuid is not.
    assert_eq!(class_of("a5cc182d602a"), 1.0);
    assert_eq!(class_of("a5cc182"), 1.0);
    assert!(class_of("d5ffbb3619d616ace1d2573b8482976a9ce5333974c3821448fdaa95bf400034") < 0.5);
    assert!(class_of("0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d") < 0.5);
    assert!(class_of("12345678") < 1.0);
}

fn feats(text: &str) -> (Extractor, OutFeat) {
    let mut e = Extractor::default();
    let f = e.features(text);
    (e, f)
}

/// The units of `f`, one candidate, nothing covered, bare markers, selected within `budget`.
fn select_one(e: &Extractor, f: &OutFeat, w: &Weights, budget: f64) -> Vec<u32> {
    let none = vec![false; e.table.len()];
    select(
        &[Some(f)],
        &one_candidate(),
        &e.table,
        &none,
        w,
        Marker::Bare,
        budget,
    )
    .remove(0)
}

#[test]
fn units_and_rendering_round_trip() {
    let long = "x".repeat(700);
    let text = format!("alpha\nbeta src/a.rs\n{long}\ngamma");
    let (_, f) = feats(&text);
    assert_eq!(f.lines, 4);
    // 700 chars of one token → 3 segments (300, 300, 100: no token boundary to cut at).
    assert_eq!(f.units.len(), 3 + 3);
    let all: Vec<u32> = (0..f.units.len() as u32).collect();
    assert_eq!(render_lines(&text, &f, &all, Marker::Counted), text);
    assert_eq!(measure_lines(&f, &all, Marker::Counted), text.len());
    let some = [1u32, 5];
    let body = render_lines(&text, &f, &some, Marker::Counted);
    assert_eq!(
        body,
        "[… 1 line cut …]\nbeta src/a.rs\n[… 1 line cut …]\ngamma"
    );
    assert_eq!(
        measure_lines(&f, &some, Marker::Counted),
        crate::jscompat::utf16_len(&body)
    );
    assert_eq!(lines_kept(&f, &some), 2);
}

#[test]
fn long_lines_are_cut_between_tokens() {
    let line: String = (0..60).map(|i| format!("src/mod_{i}/file.rs ")).collect();
    let (_, f) = feats(&line);
    assert!(f.units.len() > 3, "{}", f.units.len());
    let segs: Vec<&str> = f
        .units
        .iter()
        .map(|u| &line[u.b0 as usize..u.b1() as usize])
        .collect();
    for s in distinctive(&line) {
        assert!(segs.iter().any(|g| g.contains(s)), "{s} split");
    }
    assert!(segs.iter().all(|g| g.chars().count() <= SEG + SEG_SLACK));
    assert_eq!(segs.concat(), line);
}

/// One eligible pair with a 10-char header.
fn one_candidate() -> Vec<Candidate> {
    vec![Candidate {
        positional: true,
        err_floor: 0,
        eligible: true,
        factor: 1.0,
        header: 10.0,
        open: false,
    }]
}

#[test]
fn greedy_prefers_new_strings_per_char() {
    let a =
        "filler line without anything\nERROR at src/x/y.rs:10 in parseThing\nsrc/x/y.rs:10 again";
    let mut e = Extractor::default();
    let f = e.features(a);
    let cands = one_candidate();
    let none = vec![false; e.table.len()];
    let sel = select(
        &[Some(&f)],
        &cands,
        &e.table,
        &none,
        &Weights::default(),
        Marker::Counted,
        80.0,
    );
    assert_eq!(sel[0], vec![1], "the error line, once");
    // Covered strings are worth nothing: the filler wins only its base value.
    let mut cov = vec![false; e.table.len()];
    for s in distinctive(a) {
        if let Some(&id) = e.ids.get(&hash_str(s)) {
            cov[id as usize] = true;
        }
    }
    let sel = select(
        &[Some(&f)],
        &cands,
        &e.table,
        &cov,
        &Weights::default(),
        Marker::Counted,
        80.0,
    );
    assert!(!sel[0].is_empty());
    assert!(sel[0].iter().all(|&u| u != 2), "{:?}", sel[0]);
}

#[test]
fn a_long_line_holding_much_beats_a_short_line_holding_little_below_cost_exp_one() {
    // Line 0: one string in 14 chars. Line 1: four strings in 126 chars, costing about 4.9
    // times as much (header and marker included): per char the short line is worth more, per
    // char^0.8 the long one. The budget fits one of them.
    let long = format!(
        "alpha_11 beta_x22 gamma_33 delta_44 {}",
        "words ".repeat(15)
    );
    let (e, f) = feats(&format!("short_12 xxxxx\n{long}"));
    let pick = |cost_exp: f64| {
        let w = Weights {
            cost_exp,
            ..Weights::default()
        };
        select_one(&e, &f, &w, long.len() as f64 + 20.0)
    };
    assert_eq!(pick(1.0), vec![0], "by value per char");
    assert_eq!(pick(0.8), vec![1], "by value per char^0.8");
    assert_eq!(Weights::default().cost_exp, 1.0);
}

#[test]
fn budget_spec_takes_the_smaller() {
    let b = BudgetSpec {
        target_ratio: Some(0.1),
        max_summary_tokens: Some(500),
        source: "flag".into(),
    };
    assert_eq!(b.tokens(100_000), 500);
    assert_eq!(b.tokens(3_000), 300);
}

#[test]
fn bare_markers_measure_what_they_render() {
    let text = "alpha\nbeta src/a.rs\ngamma\ndelta src/b.rs\nomega";
    let (_, f) = feats(text);
    let some = [1u32, 3];
    let body = render_lines(text, &f, &some, Marker::Bare);
    assert_eq!(body, "…\nbeta src/a.rs\n…\ndelta src/b.rs\n…");
    assert_eq!(
        measure_lines(&f, &some, Marker::Bare),
        crate::jscompat::utf16_len(&body)
    );
    assert!(Marker::Bare.cost() < Marker::Counted.cost());
}

#[test]
fn head_and_tail_lines_gain_worth_only_when_asked() {
    // Plain lines everywhere; only position can tell them apart.
    let text: String = (0..40).map(|i| format!("plain words line {i}\n")).collect();
    let (e, f) = feats(text.trim_end());
    let w = Weights {
        pos_gain: 3.0,
        ..Weights::default()
    };
    let sel = select_one(&e, &f, &w, 400.0);
    assert!(!sel.is_empty());
    let last = f.units.len() as u32 - 1;
    for &u in &sel {
        let unit = &f.units[u as usize];
        assert!(
            unit.line() < w.head_lines || unit.end_line() + w.tail_lines >= f.lines,
            "unit {u} (line {}) of 0..={last} is neither head nor tail",
            unit.line()
        );
    }
}

#[test]
fn a_files_text_gains_no_head_or_tail_worth() {
    // The same output as a command's (positional) and as a file's text (a read): only the
    // command's first and last lines gain the position worth.
    let text: String = (0..40).map(|i| format!("plain words line {i}\n")).collect();
    let (e, f) = feats(text.trim_end());
    let w = Weights {
        pos_gain: 3.0,
        ..Weights::default()
    };
    let worth = worths(&e.table, &vec![false; e.table.len()], &w);
    let mut file = one_candidate();
    file[0].positional = false;
    let command = one_candidate();
    let head = &f.units[0];
    assert_eq!(head.line(), 0);
    let of = |cands: &[Candidate]| {
        Model::new(cands, &w, Marker::Bare, &e.table).value(0, head, &f, &worth)
    };
    assert!(of(&command) >= 3.0, "{}", of(&command));
    assert!(of(&file) < 1.0, "{}", of(&file));
}

#[test]
fn head_and_tail_windows_grow_with_the_output() {
    // 400 plain lines: a 5% window is 20 lines at each end, more than the 3 and 5 lines.
    let text: String = (0..400)
        .map(|i| format!("plain words line {i}\n"))
        .collect();
    let (e, f) = feats(text.trim_end());
    let w = Weights {
        pos_gain: 3.0,
        ht_frac: 0.05,
        ..Weights::default()
    };
    let lines: Vec<(u32, u32)> = select_one(&e, &f, &w, 700.0)
        .iter()
        .map(|&u| (f.units[u as usize].line(), f.units[u as usize].end_line()))
        .collect();
    assert!(
        lines.iter().all(|&(a, z)| a < 20 || z + 20 >= f.lines),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|&(a, _)| (3..20).contains(&a)),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|&(_, z)| z + 5 < f.lines && z + 20 >= f.lines),
        "{lines:?}"
    );
}

#[test]
fn only_the_first_segment_of_a_long_head_line_gains_head_worth() {
    // A 3,000-char minified first line: head+tail truncation would keep its start, not all of
    // it, so only its first segment is worth a head line's gain (and of a long last line, only
    // its last segment a tail line's).
    let minified: String = (0..150).map(|i| format!("a{i}=b.c({i});")).collect();
    let middle: String = (0..12)
        .map(|i| format!("plain middle line {i}\n"))
        .collect();
    let text = format!("{minified}\n{middle}{minified}");
    let (e, f) = feats(&text);
    let w = Weights {
        pos_gain: 3.0,
        ..Weights::default()
    };
    let cands = one_candidate();
    let model = Model::new(&cands, &w, Marker::Bare, &e.table);
    let worth = worths(&e.table, &vec![false; e.table.len()], &w);
    let gains = |line: u32| {
        f.units
            .iter()
            .filter(|u| u.line() == line)
            .map(|u| model.value(0, u, &f, &worth) >= 3.0)
            .collect::<Vec<_>>()
    };
    let (first, last) = (gains(0), gains(f.lines - 1));
    assert!(first.len() > 5, "{first:?}");
    assert_eq!(first.iter().filter(|&&g| g).count(), 1, "{first:?}");
    assert!(first[0], "{first:?}");
    assert_eq!(last.iter().filter(|&&g| g).count(), 1, "{last:?}");
    assert!(last[last.len() - 1], "{last:?}");
}

#[test]
fn dense_lines_are_flagged_and_error_words_mark_their_own_segment() {
    let minified: String = (0..150).map(|i| format!("a{i}=b.c({i});")).collect();
    let prose: String = (0..150).map(|i| format!("word {i} ")).collect();
    let errline = format!("{} Error: it broke {}", "x ".repeat(300), "y ".repeat(300));
    let json: String = format!(
        "[{}]",
        (0..60)
            .map(|i| format!("{{\"id\":\"acct_{i}\",\"url\":\"https://x.io/a/{i}\"}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let text = format!("{minified}\n{prose}\n{errline}\n{json}");
    let (_, f) = feats(&text);
    let on = |line: u32, flag: u8| {
        f.units
            .iter()
            .filter(|u| u.line() == line)
            .map(|u| u.flags() & flag != 0)
            .collect::<Vec<_>>()
    };
    assert!(on(0, F_DENSE).iter().all(|&d| d), "minified code is dense");
    assert!(on(1, F_DENSE).iter().all(|&d| !d), "spaced text is not");
    assert!(on(3, F_DENSE).iter().all(|&d| !d), "nor is a JSON document");
    assert!(on(3, F_DENSE).len() > 5);
    let errs = on(2, F_ERR);
    assert!(errs.len() > 2, "{errs:?}");
    assert_eq!(errs.iter().filter(|&&e| e).count(), 1, "{errs:?}");
    let all: Vec<u32> = (0..f.units.len() as u32).collect();
    assert_eq!(render_lines(&text, &f, &all, Marker::Counted), text);
}

#[test]
fn a_dense_line_is_worth_less_than_the_same_strings_on_a_spaced_line() {
    let strs: Vec<String> = (0..120).map(|i| format!("mod_{i}.item")).collect();
    let dense = strs.join(",");
    let spaced = strs.join(" ");
    let w = Weights::default();
    let worth_of = |line: &str| {
        let (e, f) = feats(line);
        let cands = one_candidate();
        let model = Model::new(&cands, &w, Marker::Bare, &e.table);
        let worth = worths(&e.table, &vec![false; e.table.len()], &w);
        f.units
            .iter()
            .map(|u| model.value(0, u, &f, &worth))
            .sum::<f64>()
    };
    let (d, s) = (worth_of(&dense), worth_of(&spaced));
    assert!(d < 0.5 * s, "dense {d} spaced {s}");
}

#[test]
fn packed_units_round_trip_wide_characters() {
    // 4-byte chars: long lines are cut into segments whose byte length stays within a unit's
    // 11 bits, and every unit renders back its own bytes.
    let wide = "😀".repeat(400);
    let mixed = format!("{} src/a.rs {}", "é".repeat(150), "日本".repeat(60));
    let plain: String = (0..20).map(|i| format!("ünïcödé plain {i}\n")).collect();
    let text = format!("{wide}\n{mixed}\n{plain}end");
    let (_, f) = feats(&text);
    let all: Vec<u32> = (0..f.units.len() as u32).collect();
    assert_eq!(render_lines(&text, &f, &all, Marker::Counted), text);
    assert_eq!(
        measure_lines(&f, &all, Marker::Counted),
        crate::jscompat::utf16_len(&text)
    );
    for u in &f.units {
        let piece = &text[u.b0 as usize..u.b1() as usize];
        assert_eq!(u.u16() as usize, crate::jscompat::utf16_len(piece));
    }
    assert!(f.units.iter().any(|u| u.nl() > 0), "plain lines merged");
    assert!(f.units.iter().any(|u| u.sn() > 0), "src/a.rs counted");
}

/// The greedy the selection stands for, the slow way: at every step every unit of the round
/// is valued again (its pair's decay included) and the best that still fits is taken.
fn reference_select(
    feats: &[Option<&OutFeat>],
    cands: &[Candidate],
    strings: &[StrInfo],
    w: &Weights,
    budget: f64,
) -> Vec<Vec<u32>> {
    let m = Model::new(cands, w, Marker::Bare, strings);
    let mut chosen: Vec<Vec<bool>> = feats
        .iter()
        .map(|f| vec![false; f.map_or(0, |f| f.units.len())])
        .collect();
    let mut open: Vec<bool> = cands.iter().map(|c| c.open).collect();
    let mut worth = worths(strings, &vec![false; strings.len()], w);
    let mut got = vec![0.0; feats.len()];
    let mut kerr = vec![0u32; feats.len()];
    let mut left = budget;
    for round in 0..2 {
        while left >= 1.0 {
            let mut best: Option<(f64, usize, usize)> = None;
            for (p, f) in feats.iter().enumerate() {
                let Some(f) = f else { continue };
                if !cands[p].eligible {
                    continue;
                }
                for (ui, u) in f.units.iter().enumerate() {
                    if chosen[p][ui] || Model::rich(u) != (round == 0) {
                        continue;
                    }
                    let c = m.cost(p, ui, f, &chosen, &open);
                    if c > left {
                        continue;
                    }
                    let pr = (m.value(p, u, f, &worth) / w.dens(c) + m.floor_bonus(p, u, kerr[p]))
                        * m.decay(got[p]);
                    if best.is_none_or(|b| pr > b.0) {
                        best = Some((pr, p, ui));
                    }
                }
            }
            let Some((_, p, ui)) = best else { break };
            let Some(f) = feats[p] else { break };
            left -= m.cost(p, ui, f, &chosen, &open);
            got[p] += m.value(p, &f.units[ui], f, &worth);
            if m.key(p, &f.units[ui]) {
                kerr[p] += 1;
            }
            chosen[p][ui] = true;
            open[p] = true;
            for h in f.strs.ids(f.units[ui].strs()) {
                worth[h as usize] = 0.0;
            }
        }
    }
    chosen
        .into_iter()
        .map(|c| (0..c.len() as u32).filter(|&i| c[i as usize]).collect())
        .collect()
}

/// Outputs whose lines share strings (so taking one lowers the others) and differ in length;
/// with `errors`, every seventh line says `error`.
fn overlapping_outputs(errors: bool) -> Vec<String> {
    (0..4)
        .map(|k| {
            (0..40)
                .map(|i| {
                    let pad = "x".repeat((i * 7 + k * 3) % 23);
                    let word = if errors && i % 7 == 3 {
                        "error"
                    } else {
                        "uses"
                    };
                    format!(
                        "src/mod_{}/file_{}.rs:{} {word} helper_{} and cfg_{} {pad}",
                        k,
                        i % 9,
                        i,
                        (i * k) % 11,
                        i % 5
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

#[test]
fn the_two_queue_selection_is_the_greedy_that_revalues_everything() {
    // Without and with error lines, the second time with floors on two pairs (one of them
    // with the smallest factor, whose error lines would not come first by value).
    for floors in [false, true] {
        let mut e = Extractor::default();
        let texts = overlapping_outputs(floors);
        let fs: Vec<OutFeat> = texts.iter().map(|t| e.features(t)).collect();
        let feats: Vec<Option<&OutFeat>> = fs.iter().map(Some).collect();
        let cands: Vec<Candidate> = (0..fs.len())
            .map(|i| Candidate {
                positional: true,
                err_floor: if floors && i % 2 == 0 { 2 } else { 0 },
                eligible: true,
                factor: 1.0 + i as f32 * 0.1,
                header: 40.0,
                open: false,
            })
            .collect();
        let none = vec![false; e.table.len()];
        for decay in [0.0, PAIR_DECAY, 0.5] {
            for budget in [200.0, 900.0, 2_500.0, 6_000.0] {
                let w = Weights {
                    pair_decay: decay,
                    ..Weights::default()
                };
                let got = select(&feats, &cands, &e.table, &none, &w, Marker::Bare, budget);
                let want = reference_select(&feats, &cands, &e.table, &w, budget);
                assert_eq!(got, want, "floors {floors}, decay {decay}, budget {budget}");
                assert!(got.iter().any(|s| !s.is_empty()));
                if floors && budget >= 900.0 {
                    // Both floored pairs hold two error lines.
                    for p in [0, 2] {
                        let errs = got[p]
                            .iter()
                            .filter(|&&u| fs[p].units[u as usize].flags() & F_ERR != 0)
                            .count();
                        assert!(errs >= 2, "pair {p}: {errs} at {budget}");
                    }
                }
            }
        }
    }
}

/// `n` lines of one distinctive path each (`src/area_0/deep/file_0.rs`…), no trailing newline.
fn path_lines(n: usize) -> String {
    (0..n)
        .map(|i| format!("src/area_{i}/deep/file_{i}.rs"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_pair_gives_less_the_more_it_has_given() {
    // Two pairs that already render (no header). Output 0: ten lines of a path each, 0.039 of
    // value per char (0.034 for the first, which pays a cut marker). Output 1: one identifier
    // line, 0.033 per char: less than any path line until output 0 has given three.
    // The budget holds four path lines.
    let mut e = Extractor::default();
    let f0 = e.features(&path_lines(10));
    let f1 = e.features("helper_func plus padding x");
    let feats = [Some(&f0), Some(&f1)];
    let cands = vec![
        Candidate {
            positional: true,
            err_floor: 0,
            eligible: true,
            factor: 1.0,
            header: 0.0,
            open: true,
        };
        2
    ];
    let none = vec![false; e.table.len()];
    let pick = |pair_decay: f32| {
        let w = Weights {
            pair_decay,
            ..Weights::default()
        };
        select(&feats, &cands, &e.table, &none, &w, Marker::Bare, 130.0)
    };
    assert_eq!(pick(0.0), vec![vec![0, 1, 2, 3], vec![]], "without decay");
    let decayed = pick(PAIR_DECAY);
    assert_eq!(
        decayed[1],
        vec![0],
        "with decay the other output gets its line"
    );
    assert!((2..4).contains(&decayed[0].len()), "{decayed:?}");
}

#[test]
fn a_line_holding_several_words_of_the_focus_is_worth_more() {
    let prompt = "change the mesh layer anomaly function so it takes a parameter";
    let text = "def mesh_total_sum(flux, limit=12):\n\
                def mesh_layer_anomaly(flux, limit=31):\n\
                def other_thing_name(flux, limit=14):";
    // Each line's worth, with the prompt as a plain query or as the focus.
    let values = |focus: bool| -> Vec<f64> {
        let mut v = Vocab::default();
        if focus {
            v.add_focus(prompt);
        } else {
            v.add_query(prompt);
        }
        let mut e = Extractor::new(v);
        let f = e.features(text);
        let w = Weights::default();
        let cands = one_candidate();
        let m = Model::new(&cands, &w, Marker::Bare, &e.table);
        let worth = worths(&e.table, &vec![false; e.table.len()], &w);
        f.units.iter().map(|u| m.value(0, u, &f, &worth)).collect()
    };
    let (query, focus) = (values(false), values(true));
    assert_eq!(query.len(), 3);
    // Three words of the prompt on one line (mesh, layer, anomaly): the focus adds to it.
    assert!(focus[1] > query[1] + 0.5, "{focus:?} vs {query:?}");
    // One word (mesh) or none: nothing added.
    assert_eq!(focus[0], query[0]);
    assert_eq!(focus[2], query[2]);
    // The focus line is now the best by far.
    assert!(focus[1] > 2.0 * focus[0].max(focus[2]), "{focus:?}");
}

#[test]
fn string_ids_widen_past_65536_strings_and_still_name_the_same_strings() {
    let mut e = Extractor::default();
    // One output with 70,000 distinct strings: its ids outgrow two bytes midway.
    let big: String = (0..70_000).map(|i| format!("mod_{i}.item\n")).collect();
    let f1 = e.features(&big);
    assert!(matches!(f1.strs, StrIds::Wide(_)));
    // Each line's unit names its own string, before and after the widening.
    for (ui, u) in f1.units.iter().enumerate().step_by(9_999) {
        let ids: Vec<u32> = f1.strs.ids(u.strs()).collect();
        assert_eq!(ids, [ui as u32], "unit {ui}");
    }
    // A later output sharing one string of each half: the same ids, seen in two outputs.
    let f2 = e.features("mod_5.item\nmod_69999.item\nfresh_name.rs\n");
    assert!(matches!(f2.strs, StrIds::Wide(_)));
    let ids: Vec<u32> = f2.strs.ids_from(0).collect();
    assert_eq!(&ids[..2], &[5, 69_999]);
    assert_eq!(e.table[5].df(), 2);
    assert_eq!(e.table[69_999].df(), 2);
    assert_eq!(e.table[ids[2] as usize].df(), 1);
    // A small session's output stays narrow.
    let (_, small) = feats("see src/a/b.rs and parseHeader\n");
    assert!(matches!(small.strs, StrIds::Narrow(_)));
}

#[test]
fn one_word_of_the_prompt_is_worth_less_than_a_path_the_line_holds() {
    // One prompt word on a line is a weak sign (prompts share words with many lines); a path
    // nobody has seen yet is what later turns use. Under the old weight (2) the word won.
    let prompt = "why does the retry loop time out";
    let text = "warning: retry budget exhausted\nloaded src/net/backoff_policy.rs";
    let mut v = Vocab::default();
    v.add_query(prompt);
    let mut e = Extractor::new(v);
    let f = e.features(text);
    let cands = one_candidate();
    let value = |w: &Weights| -> Vec<f64> {
        let m = Model::new(&cands, w, Marker::Bare, &e.table);
        let worth = worths(&e.table, &vec![false; e.table.len()], w);
        f.units.iter().map(|u| m.value(0, u, &f, &worth)).collect()
    };
    let now = value(&Weights::default());
    assert_eq!(now.len(), 2, "{now:?}");
    assert!(now[1] > now[0], "the path's line first: {now:?}");
    let before = value(&Weights {
        q_gain: 2.0,
        ..Weights::default()
    });
    assert!(
        before[0] > before[1],
        "at 2 the word's line won: {before:?}"
    );
}

#[test]
fn an_unresolved_error_keeps_its_first_key_lines_before_richer_output() {
    // Output 0: twenty path lines (much value per char). Output 1: a failing test run whose
    // error lines hold nothing distinctive (a failure mark, error words), plus passing lines.
    let mut e = Extractor::default();
    let run = "  ✓ renders the list 0.5 s\n  ⨯ keeps the draft 59.15 s\n  ✓ saves 0.1 s\n\
               Error: draft lost\n  ✓ loads 0.2 s\nTests: 1 failed, 3 passed";
    let f0 = e.features(&path_lines(20));
    let f1 = e.features(run);
    let key: Vec<u32> = (0..f1.units.len() as u32)
        .filter(|&u| f1.units[u as usize].flags() & F_ERR != 0)
        .collect();
    assert_eq!(
        key.len(),
        3,
        "the failure mark, the error and the failed count"
    );
    let feats = [Some(&f0), Some(&f1)];
    let none = vec![false; e.table.len()];
    let pick = |err_floor: u32| {
        let cand = |err_floor| Candidate {
            positional: false,
            err_floor,
            eligible: true,
            factor: 1.0,
            header: 20.0,
            open: false,
        };
        let cands = [cand(0), cand(err_floor)];
        select(
            &feats,
            &cands,
            &e.table,
            &none,
            &Weights::default(),
            Marker::Bare,
            // Tight: output 1 gets its floored key lines and nothing more.
            152.0,
        )
    };
    assert!(
        pick(0)[1].is_empty(),
        "without a floor the paths take it all"
    );
    let floored = pick(2);
    assert_eq!(floored[1].len(), 2, "{floored:?}");
    assert!(floored[1].iter().all(|u| key.contains(u)), "{floored:?}");
    assert!(!floored[0].is_empty(), "the rest still goes by value");
}
