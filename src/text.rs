//! Text slicing shared by compaction and the scorers: keep-windows, stubs, caps and question
//! windows, and [`thousands`], the number format of every count pi-shake prints or writes into a
//! placeholder. All cuts are on char boundaries; lengths are in chars (Unicode scalar values).
//! Pure.

/// Number of chars.
pub fn clen(s: &str) -> usize {
    s.chars().count()
}

/// Byte offset of char `n` (or the end).
pub fn byte_at(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(b, _)| b)
}

/// The first `n` chars.
pub fn head(s: &str, n: usize) -> &str {
    &s[..byte_at(s, n)]
}

/// The last `n` chars.
pub fn tail(s: &str, n: usize) -> &str {
    let len = clen(s);
    &s[byte_at(s, len.saturating_sub(n))..]
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Lines in `text`, counted as a summary's call header counts them (`29 of 1,544 lines`): the
/// pieces between newlines, so a final newline starts an empty last line; an empty text has none.
pub fn line_count(text: &str) -> usize {
    if text.is_empty() {
        0
    } else {
        text.split('\n').count()
    }
}

/// The omission marker used everywhere: `[… 12,345 chars omitted …]`.
pub fn omitted(n: usize) -> String {
    format!("[… {} chars omitted …]", thousands(n as u64))
}

/// A head and a tail of `s` around an omission marker; `s` itself when it fits in `cap` chars.
pub fn cap_middle(s: &str, cap: usize) -> String {
    let len = clen(s);
    if len <= cap {
        return s.to_string();
    }
    let h = cap / 2;
    let t = cap - h;
    format!("{}\n{}\n{}", head(s, h), omitted(len - h - t), tail(s, t))
}

/// Keep-window for user/assistant text: whole up to `whole` chars; otherwise whole lines from the
/// head and from the tail (about `window` chars each), lines unchanged, the middle replaced by a
/// marker. A single line longer than the window is cut at a char boundary.
pub fn keep_window(s: &str, whole: usize, window: usize) -> String {
    let len = clen(s);
    if len <= whole {
        return s.to_string();
    }
    let lines: Vec<&str> = s.split('\n').collect();
    let mut h_end = 0; // lines in head
    let mut h_chars = 0;
    while h_end < lines.len() && h_chars + clen(lines[h_end]) < window {
        h_chars += clen(lines[h_end]) + 1;
        h_end += 1;
    }
    let mut t_start = lines.len();
    let mut t_chars = 0;
    while t_start > h_end && t_chars + clen(lines[t_start - 1]) < window {
        t_chars += clen(lines[t_start - 1]) + 1;
        t_start -= 1;
    }
    let mut head_text = lines[..h_end].join("\n");
    let mut tail_text = lines[t_start..].join("\n");
    if h_end == 0 {
        head_text = head(lines[0], window).to_string();
    }
    if t_start == lines.len() {
        tail_text = tail(lines[lines.len() - 1], window).to_string();
    }
    let kept = clen(&head_text) + clen(&tail_text);
    if kept >= len {
        return s.to_string();
    }
    format!(
        "{head_text}\n{}\n{tail_text}",
        omitted(len.saturating_sub(kept))
    )
}

/// A stub of a dump: the first and last `fraction` of it, each capped at `cap` chars, each
/// extended to a line end when that stays within the cap (so a short one-line fact is whole).
/// Returns (head, tail, omitted chars); omitted 0 means the dump is kept whole.
pub fn stub(s: &str, fraction: f64, cap: usize) -> (String, String, usize) {
    let len = clen(s);
    let want = ((len as f64 * fraction).ceil() as usize).min(cap);
    // Head: extend to the end of its line when within the cap.
    let mut h = want;
    if let Some(nl) = s[byte_at(s, h)..].find('\n') {
        let extra = clen(&s[byte_at(s, h)..byte_at(s, h) + nl]);
        if h + extra <= cap {
            h += extra;
        }
    } else if len <= cap {
        h = len;
    }
    if h >= len {
        return (s.to_string(), String::new(), 0);
    }
    let mut t = want;
    let t_start = len - t;
    if let Some(nl) = s[..byte_at(s, t_start)].rfind('\n').filter(|_| t_start > h) {
        let extra = clen(&s[nl + 1..byte_at(s, t_start)]);
        if t + extra <= cap {
            t += extra;
        }
    }
    if h + t >= len {
        return (s.to_string(), String::new(), 0);
    }
    (head(s, h).to_string(), tail(s, t).to_string(), len - h - t)
}

/// Question windows of an output: whole when ≤ `whole` chars, else head, middle (centred on the
/// midpoint, with its char offset) and tail of `w` chars each.
pub enum Windows<'a> {
    Whole(&'a str),
    Split {
        head: &'a str,
        middle: &'a str,
        middle_at: usize,
        tail: &'a str,
        len: usize,
    },
}

/// Cut `s` into question windows.
pub fn windows(s: &str, whole: usize, w: usize) -> Windows<'_> {
    let len = clen(s);
    if len <= whole {
        return Windows::Whole(s);
    }
    let mid_start = (len / 2).saturating_sub(w / 2);
    let a = byte_at(s, mid_start);
    let b = byte_at(s, mid_start + w);
    Windows::Split {
        head: head(s, w),
        middle: &s[a..b],
        middle_at: mid_start,
        tail: tail(s, w),
        len,
    }
}

/// A fence of backticks longer than any run inside `s` (at least 3).
pub fn fence_for(s: &str) -> String {
    let mut best = 0;
    let mut run = 0;
    for c in s.chars() {
        if c == '`' {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((best + 1).max(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_window_keeps_lines() {
        let short = "hello\nworld";
        assert_eq!(keep_window(short, 2000, 1000), short);
        let lines: Vec<String> = (0..400)
            .map(|i| format!("line {i:04} of the text"))
            .collect();
        let s = lines.join("\n");
        let k = keep_window(&s, 2000, 1000);
        assert!(k.starts_with("line 0000 of the text\n"));
        assert!(k.ends_with("line 0399 of the text"));
        assert!(k.contains("chars omitted"));
        for l in k.lines().filter(|l| l.starts_with("line ")) {
            assert!(lines.iter().any(|x| x == l), "{l}");
        }
    }

    #[test]
    fn stub_short_line_is_whole() {
        let (h, t, o) = stub("the answer is 42", 0.25, 2500);
        assert_eq!((h.as_str(), t.as_str(), o), ("the answer is 42", "", 0));
        let big = "x".repeat(40_000);
        let (h, t, o) = stub(&big, 0.25, 2500);
        assert_eq!((clen(&h), clen(&t), o), (2500, 2500, 35_000));
        let lines: String = (0..100).map(|i| format!("{i:03}\n")).collect();
        let (h, t, o) = stub(&lines, 0.25, 2500);
        assert!(h.ends_with("025"), "{h}");
        assert!(t.starts_with("07"), "{t}");
        assert!(o > 0);
    }

    #[test]
    fn windows_split() {
        let s: String = (0..10_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        match windows(&s, 7500, 2500) {
            Windows::Split {
                head,
                middle,
                middle_at,
                tail,
                len,
            } => {
                assert_eq!(
                    (clen(head), clen(middle), middle_at, clen(tail), len),
                    (2500, 2500, 3750, 2500, 10_000)
                );
            }
            Windows::Whole(_) => panic!("split expected"),
        }
    }
}
