//! Repository hygiene that a compiler cannot check: every test file is compiled into this
//! binary, and every `*.md` a comment cites (and every link between the docs) exists in the
//! repository, down to the `#section` anchor.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::root;

/// Names that code comments mention as subject matter, not as citations (pi's skill files).
const NOT_CITATIONS: &[&str] = &["SKILL.md"];

/// Every `.rs` file under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a markdown file's headings (outside fenced code).
fn anchors(md: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// Markdown citations in `text`: a path ending in `.md`, with its `#anchor` if any.
fn md_citations(text: &str) -> Vec<(String, Option<String>)> {
    let is_path = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(".md") {
        let start = rest[..at]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_path(c))
            .last()
            .map_or(at, |(i, _)| i);
        let after = &rest[at + 3..];
        let continues = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        if start < at && !continues {
            let path = rest[start..at + 3].to_string();
            let anchor = after.strip_prefix('#').map(|a| {
                a.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                    .collect::<String>()
            });
            out.push((path, anchor.filter(|a| !a.is_empty())));
        }
        rest = after;
    }
    out
}

/// Why `path` (relative to `base`) with `anchor` does not resolve, if it does not.
fn unresolved(base: &Path, path: &str, anchor: Option<&str>) -> Option<String> {
    let file = base.join(path);
    let Ok(text) = std::fs::read_to_string(&file) else {
        return Some(format!("{path} does not exist"));
    };
    let anchor = anchor?;
    (!anchors(&text).contains(anchor)).then(|| format!("{path} has no section #{anchor}"))
}

#[test]
fn every_test_file_is_a_module_of_the_e2e_binary() {
    let dir = root().join("tests/e2e");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    let declared: BTreeSet<String> = main
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            l.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_string)
        })
        .collect();
    let mut missing = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        let is_module = if p.is_dir() {
            p.join("mod.rs").exists()
        } else {
            p.extension().is_some_and(|x| x == "rs") && name != "main"
        };
        if is_module && !declared.contains(&name) {
            missing.push(p.display().to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "not declared in tests/e2e/main.rs (never compiled, never run): {missing:?}"
    );
    // The check sees the modules it must see.
    assert!(declared.contains("common") && declared.contains("repo"));
}

#[test]
fn every_md_a_comment_cites_exists() {
    let root = root();
    let mut bad = Vec::new();
    let mut checked = 0;
    for dir in ["src", "tests/e2e", "benches", "examples"] {
        for file in rust_files(&root.join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                // Whole-line comments (`//`, `///`, `//!`); code may hold `.md` in strings.
                let comment = line.trim_start();
                if !comment.starts_with("//") {
                    continue;
                }
                for (path, anchor) in md_citations(comment) {
                    if NOT_CITATIONS.contains(&path.as_str()) {
                        continue;
                    }
                    checked += 1;
                    if let Some(why) = unresolved(&root, &path, anchor.as_deref()) {
                        let rel = file.strip_prefix(&root).unwrap_or(&file);
                        bad.push(format!("{}:{}: {why}", rel.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "comments cite markdown that is not in the repository (cite it as a path from the \
         repository root, e.g. `docs/pi-format.md#projection`):\n{}",
        bad.join("\n")
    );
    assert!(
        checked >= 20,
        "only {checked} citations found: the scan is broken"
    );
}

#[test]
fn links_between_the_docs_resolve() {
    let root = root();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "docs/ is missing files: {files:?}");
    files.push(root.join("README.md"));
    let mut bad = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let base = file.parent().unwrap();
        // Markdown links `](target)`; external ones are not checked.
        for part in text.split("](").skip(1) {
            let Some(target) = part.split(')').next() else {
                continue;
            };
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target, None),
            };
            let why = if path.is_empty() {
                let own = anchors(&text);
                anchor
                    .filter(|a| !own.contains(*a))
                    .map(|a| format!("no section #{a}"))
            } else {
                unresolved(base, path, anchor)
            };
            if let Some(why) = why {
                bad.push(format!("{}: ({target}): {why}", file.display()));
            }
        }
    }
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

#[test]
fn citation_scanner_finds_paths_and_anchors() {
    assert_eq!(
        md_citations("see `docs/pi-format.md#context-total`, and jev.md."),
        vec![
            (
                "docs/pi-format.md".to_string(),
                Some("context-total".to_string())
            ),
            ("jev.md".to_string(), None),
        ]
    );
    assert!(md_citations("a .mdx file, x.mdown, plain text").is_empty());
    assert_eq!(
        slug(" The compaction entry pi-shake writes"),
        "the-compaction-entry-pi-shake-writes"
    );
    assert_eq!(slug("`--json` and exit codes"), "--json-and-exit-codes");
    // A bare name is not a repository path: it must fail.
    assert!(unresolved(&root(), "pi-format.md", None).is_some());
    assert!(unresolved(&root(), "docs/pi-format.md", Some("projection")).is_none());
    assert!(unresolved(&root(), "docs/pi-format.md", Some("no-such-section")).is_some());
}
