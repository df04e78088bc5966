//! More region cases: closing fences, languages, nesting, several regions in one text, and
//! UTF-16 token counts.

use super::*;

fn spans(t: &str) -> Vec<&str> {
    find_regions(t).iter().map(|r| &t[r.start..r.end]).collect()
}

#[test]
fn a_fence_closes_only_on_the_same_marker_at_least_as_long() {
    let t = "````md\n```\ninner\n```\n````\nafter";
    assert_eq!(spans(t), ["````md\n```\ninner\n```\n````"]);
    let r = &find_regions(t)[0];
    assert_eq!(r.kind, RegionKind::Fence(Some("md".into())));
    // A tilde line does not close a backtick fence.
    assert!(find_regions("```\na\n~~~\n").is_empty());
}

#[test]
fn indented_fences_open_but_indented_tags_do_not() {
    assert_eq!(spans("  ```\n  x\n  ```"), ["  ```\n  x\n  ```"]);
    assert!(find_regions("  <file>\nx\n</file>").is_empty());
}

#[test]
fn only_outermost_spans_count_and_regions_come_in_order() {
    let t = "<outer a=\"1\">\n<inner>\nx\n</inner>\n</outer>\ntext\n```py\nprint(1)\n```";
    let r = find_regions(t);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].kind, RegionKind::Xml("outer".into()));
    assert_eq!(r[1].kind, RegionKind::Fence(Some("py".into())));
    assert!(r[0].end <= r[1].start);
    // The XML span is 41 chars (11 tokens), the fence 18 (5 tokens).
    assert_eq!(
        replace_regions(t, &r),
        "[<outer> block omitted (~11 tokens)]\ntext\n[py code block omitted (~5 tokens)]"
    );
}

#[test]
fn self_closing_and_uppercase_tags_are_not_spans() {
    assert!(find_regions("<br/>\nx\n</br>").is_empty());
    assert!(find_regions("<File>\nx\n</File>").is_empty());
}

#[test]
fn region_tokens_count_utf16_units() {
    // 3 + 1 + 8 (four emoji, two units each) + 1 + 3 = 16 units → 4 tokens.
    let r = find_regions("```\n😀😀😀😀\n```");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].tokens, 4);
    assert_eq!(r[0].placeholder(), "[code block omitted (~4 tokens)]");
}

#[test]
fn text_without_regions_is_unchanged() {
    let t = "no fences here\n`inline` is not a fence\n``two`` neither";
    assert!(find_regions(t).is_empty());
    assert_eq!(replace_regions(t, &[]), t);
}
