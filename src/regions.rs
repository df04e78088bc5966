//! Heavy regions inside message text: fenced blocks and top-level XML spans.
//!
//! A line scanner in the spirit of OMP's: a line whose left-trimmed text starts with three or
//! more backticks or tildes opens a fence that the next line starting with the same marker (at
//! least as long) closes; outside fences, a line that is exactly an opening tag with a lowercase
//! name (`<name attr="…">`, no indentation) opens an XML span that the matching `</name>` line
//! closes. Only outermost spans count; unterminated ones produce nothing. Pure.
//!
//! Below the session reader, which records each text's largest region while it reads
//! ([`max_region_tokens`]), and used by the fold planner ([`crate::plan::fold`]) to cut them.

use crate::jscompat::text_tokens;

/// A foldable region of a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Byte range in the text (from the opening line's start to the closing line's end).
    pub start: usize,
    pub end: usize,
    pub kind: RegionKind,
    /// pi's estimate of the region alone: ceil(UTF-16 length / 4).
    pub tokens: u64,
}

/// What a region is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionKind {
    /// A fenced block, with its info string's first word (language), if any.
    Fence(Option<String>),
    /// An XML span, with its tag name.
    Xml(String),
}

impl Region {
    /// The placeholder text for this region.
    pub fn placeholder(&self) -> String {
        let n = crate::text::thousands(self.tokens);
        match &self.kind {
            RegionKind::Fence(Some(lang)) => format!("[{lang} code block omitted (~{n} tokens)]"),
            RegionKind::Fence(None) => format!("[code block omitted (~{n} tokens)]"),
            RegionKind::Xml(tag) => format!("[<{tag}> block omitted (~{n} tokens)]"),
        }
    }
}

fn fence_marker(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start();
    let c = t.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = t.chars().take_while(|&x| x == c).count();
    if n < 3 {
        return None;
    }
    Some((c, n, &t[n..]))
}

fn open_tag(line: &str) -> Option<&str> {
    let l = line.strip_suffix('\r').unwrap_or(line);
    let rest = l.strip_prefix('<')?;
    let rest = rest.strip_suffix('>')?;
    if rest.ends_with('/') {
        return None;
    }
    let name_end = rest.find([' ', '\t']).unwrap_or(rest.len());
    let name = &rest[..name_end];
    tag_name(name)
}

/// `name` when it is a tag name: non-empty, lowercase ASCII letters, `_` and `-`.
fn tag_name(name: &str) -> Option<&str> {
    (!name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '_' || c == '-'))
    .then_some(name)
}

fn close_tag(line: &str) -> Option<&str> {
    let l = line.strip_suffix('\r').unwrap_or(line);
    let name = l.strip_prefix("</")?.strip_suffix('>')?;
    tag_name(name)
}

/// Whether `text` can hold a region at all: a fence line holds three backticks or tildes, and an
/// opening tag starts a line with `<`. A few SIMD searches, so every text can be checked while
/// the session is read.
pub fn may_hold_regions(text: &str) -> bool {
    let b = text.as_bytes();
    b.first() == Some(&b'<')
        || memchr::memmem::find(b, b"```").is_some()
        || memchr::memmem::find(b, b"~~~").is_some()
        || memchr::memmem::find(b, b"\n<").is_some()
}

/// pi's estimate of the largest region [`find_regions`] finds in `text` (0: none).
pub fn max_region_tokens(text: &str) -> u64 {
    if !may_hold_regions(text) {
        return 0;
    }
    find_regions(text)
        .iter()
        .map(|r| r.tokens)
        .max()
        .unwrap_or(0)
}

/// Find the outermost fenced blocks and XML spans in `text`.
pub fn find_regions(text: &str) -> Vec<Region> {
    let mut out = Vec::new();
    // (char, len, start byte, lang) of an open fence.
    let mut fence: Option<(char, usize, usize, Option<String>)> = None;
    // Stack of open tags, with the outermost one's start byte.
    let mut tags: Vec<&str> = Vec::new();
    let mut xml_start = 0usize;
    let mut pos = 0usize;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let body = line.strip_suffix('\n').unwrap_or(line);
        let end = start + body.len();
        if let Some((c, n, _, _)) = &fence {
            if let Some((c2, n2, rest)) = fence_marker(body)
                && c2 == *c
                && n2 >= *n
                && rest.trim().is_empty()
            {
                let (_, _, fstart, lang) = fence.take().unwrap_or(('`', 0, start, None));
                if tags.is_empty() {
                    out.push(region(text, fstart, end, RegionKind::Fence(lang)));
                }
            }
            continue;
        }
        if let Some((c, n, info)) = fence_marker(body) {
            let lang = info
                .split_whitespace()
                .next()
                .filter(|w| !w.is_empty() && w.len() <= 40)
                .map(|w| {
                    w.trim_matches(|ch: char| {
                        !ch.is_alphanumeric() && ch != '+' && ch != '#' && ch != '-'
                    })
                    .to_string()
                })
                .filter(|w| !w.is_empty());
            fence = Some((c, n, start, lang));
            continue;
        }
        if let Some(name) = open_tag(body) {
            if tags.is_empty() {
                xml_start = start;
            }
            tags.push(name);
            continue;
        }
        if let Some(name) = close_tag(body)
            && let Some(at) = tags.iter().rposition(|t| *t == name)
        {
            tags.truncate(at);
            if tags.is_empty() {
                out.push(region(
                    text,
                    xml_start,
                    end,
                    RegionKind::Xml(name.to_string()),
                ));
            }
        }
    }
    out
}

fn region(text: &str, start: usize, end: usize, kind: RegionKind) -> Region {
    let tokens = text_tokens(&text[start..end]);
    Region {
        start,
        end,
        kind,
        tokens,
    }
}

/// Replace `regions` (sorted, non-overlapping) in `text` by their placeholders.
pub fn replace_regions(text: &str, regions: &[Region]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in regions {
        out.push_str(&text[at..r.start]);
        out.push_str(&r.placeholder());
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_fences_and_xml() {
        let t = "intro\n```rust\nfn a() {}\n```\nmid\n<file path=\"x\">\nbody\n```\ninner\n```\n</file>\nend";
        let r = find_regions(t);
        assert_eq!(r.len(), 2);
        assert_eq!(&t[r[0].start..r[0].end], "```rust\nfn a() {}\n```");
        assert_eq!(r[0].kind, RegionKind::Fence(Some("rust".into())));
        assert_eq!(
            &t[r[1].start..r[1].end],
            "<file path=\"x\">\nbody\n```\ninner\n```\n</file>"
        );
        assert_eq!(r[1].kind, RegionKind::Xml("file".into()));
    }

    #[test]
    fn tilde_fences_and_unterminated() {
        let t = "~~~\na\n~~~\n```\nnever closed";
        let r = find_regions(t);
        assert_eq!(r.len(), 1);
        assert_eq!(&t[r[0].start..r[0].end], "~~~\na\n~~~");
        assert!(find_regions("<div>\nopen only").is_empty());
        assert!(find_regions("<Div>\nx\n</Div>").is_empty());
        assert!(find_regions("  <div>\nx\n</div>").is_empty());
    }

    #[test]
    fn max_region_matches_find_regions() {
        let texts = [
            "no regions here, just prose < and ` and ~~ and `` marks",
            "intro\n```rust\nfn a() {}\n```\nmid\n<file path=\"x\">\nbody\n```\ninner\n```\n</file>\nend",
            "<div>\nx\n</div>",
            "a\n  ~~~\nindented fence\n  ~~~\nb",
            "```\nnever closed",
            "  <div>\nindented tag\n</div>",
        ];
        for t in texts {
            let want = find_regions(t).iter().map(|r| r.tokens).max().unwrap_or(0);
            assert_eq!(max_region_tokens(t), want, "{t:?}");
            if want > 0 {
                assert!(may_hold_regions(t));
            }
        }
        assert_eq!(max_region_tokens(texts[0]), 0);
        assert!(max_region_tokens(texts[1]) > max_region_tokens(texts[2]));
    }

    #[test]
    fn replaces_in_place() {
        let t = "a\n```\n0123456789012345\n```\nb";
        let r = find_regions(t);
        assert_eq!(r[0].tokens, 6);
        assert_eq!(
            replace_regions(t, &r),
            "a\n[code block omitted (~6 tokens)]\nb"
        );
    }
}

#[cfg(test)]
#[path = "regions_tests.rs"]
mod more_tests;
