//! Rendering and measuring the kept units of one output, with cut markers between runs.

use super::*;

/// One piece of a line-cut body.
enum Piece {
    Unit(u32),
    Text(String),
}

/// How a run of cut lines is marked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Marker {
    /// `[… 1,234 lines cut …]`.
    #[default]
    Counted,
    /// `…` on a line of its own: under a small budget the header's `k of n lines` says how much
    /// was cut, and the chars go to kept lines instead. (It was `[…]`: the two chars it saves
    /// per cut are ~3% of a 5% summary; README "Compaction quality", twenty-fourth round.)
    Bare,
}

impl Marker {
    /// Chars a marker and its newline cost in the selection, about.
    pub fn cost(self) -> f64 {
        match self {
            Marker::Counted => MARKER_COST,
            Marker::Bare => 2.0,
        }
    }

    fn text(self, k: u32) -> String {
        match self {
            Marker::Counted => format!(
                "[… {} line{} cut …]",
                crate::text::thousands(u64::from(k)),
                if k == 1 { "" } else { "s" }
            ),
            Marker::Bare => "…".to_string(),
        }
    }
}

/// The pieces of a body keeping units `sel` (sorted) of `f`.
fn pieces_of(f: &OutFeat, sel: &[u32], m: Marker) -> Vec<Piece> {
    let lines_cut = |k: u32| m.text(k);
    let mut out = Vec::new();
    let mut prev: Option<&Unit> = None;
    for &i in sel {
        let u = &f.units[i as usize];
        match prev {
            None => {
                if u.line() > 0 {
                    out.push(Piece::Text(format!("{}\n", lines_cut(u.line()))));
                }
                if u.flags() & F_LINE_START == 0 {
                    out.push(Piece::Text("…".into()));
                }
            }
            Some(p) if p.end_line() == u.line() => {
                if p.b1() != u.b0 {
                    out.push(Piece::Text("…".into()));
                }
            }
            Some(p) => {
                if p.flags() & F_LINE_END == 0 {
                    out.push(Piece::Text("…".into()));
                }
                let gap = u.line() - p.end_line() - 1;
                if gap > 0 {
                    out.push(Piece::Text(format!("\n{}\n", lines_cut(gap))));
                } else {
                    out.push(Piece::Text("\n".into()));
                }
                if u.flags() & F_LINE_START == 0 {
                    out.push(Piece::Text("…".into()));
                }
            }
        }
        out.push(Piece::Unit(i));
        prev = Some(u);
    }
    if let Some(p) = prev {
        if p.flags() & F_LINE_END == 0 {
            out.push(Piece::Text("…".into()));
        }
        let rest = f.lines.saturating_sub(p.end_line() + 1);
        if rest > 0 {
            out.push(Piece::Text(format!("\n{}", lines_cut(rest))));
        }
    }
    out
}

/// The body of a line-cut output: kept units verbatim, markers where lines were cut.
pub fn render_lines(output: &str, f: &OutFeat, sel: &[u32], m: Marker) -> String {
    let pieces = pieces_of(f, sel, m);
    // Reserved at its exact size: the kept text is most of a big summary's memory.
    let mut s = String::with_capacity(size_of(f, &pieces).bytes);
    for p in pieces {
        match p {
            Piece::Text(t) => s.push_str(&t),
            Piece::Unit(i) => {
                let u = &f.units[i as usize];
                s.push_str(output.get(u.b0 as usize..u.b1() as usize).unwrap_or(""));
            }
        }
    }
    s
}

/// The size of a rendered body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BodySize {
    /// UTF-16 length (what the budget counts).
    pub u16: usize,
    /// UTF-8 length (what memory holds).
    pub bytes: usize,
}

fn size_of(f: &OutFeat, pieces: &[Piece]) -> BodySize {
    let mut z = BodySize::default();
    for p in pieces {
        match p {
            Piece::Text(t) => {
                z.u16 += crate::jscompat::utf16_len(t);
                z.bytes += t.len();
            }
            Piece::Unit(i) => {
                let u = &f.units[*i as usize];
                z.u16 += u.u16() as usize;
                z.bytes += u.blen() as usize;
            }
        }
    }
    z
}

/// The size of [`render_lines`]'s result, without the text.
pub fn body_size(f: &OutFeat, sel: &[u32], m: Marker) -> BodySize {
    size_of(f, &pieces_of(f, sel, m))
}

/// UTF-16 length of [`render_lines`]'s result, without the text.
pub fn measure_lines(f: &OutFeat, sel: &[u32], m: Marker) -> usize {
    body_size(f, sel, m).u16
}

/// Lines with at least one kept unit.
pub fn lines_kept(f: &OutFeat, sel: &[u32]) -> usize {
    let mut n = 0usize;
    let mut next = 0u32; // first line not yet counted
    for &i in sel {
        let u = &f.units[i as usize];
        let from = u.line().max(next);
        if u.end_line() >= from {
            n += (u.end_line() - from + 1) as usize;
            next = u.end_line() + 1;
        }
    }
    n
}
