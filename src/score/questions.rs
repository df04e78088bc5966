//! The two questions per unpinned pair, rendered from the versioned template `tmpl-v1`
//! (`docs/jev.md#system-one-request-and-response`, `docs/design-compact.md#questions-and-actions`):
//! the design's exact wording, a header line (tool, trimmed args, size, error flag) and the same
//! head / middle / tail windows of the output on both. A pair too large for one request is
//! re-rendered down the window [`LADDER`] (`docs/jev.md#batching`: the middle first, then 1,500
//! chars each, then smaller) by the batcher. Pure.

use crate::score::{PairData, PairProbe};
use crate::text::thousands;

use crate::jscompat::estimate_request_tokens;
use crate::text::{
    Windows, byte_at, cap_middle, clen, head as text_head, tail as text_tail, windows,
};

/// Template version (goes into reports, `details` and score fingerprints).
pub const TEMPLATE: &str = "tmpl-v1";
/// The `useful_tN` question, verbatim from the design.
pub const USEFUL_QUESTION: &str = "Give confidence the following context useful to the current project and/or session context or the latest prompt(s)?";
/// The `full_tN` question, verbatim from the design.
pub const FULL_QUESTION: &str = "Do I need it in full?";
// `criteria` of both questions live with the wire format: `crate::score::batch::{USEFUL_CRITERIA,
// FULL_CRITERIA}`.
/// Outputs up to this many chars are shown whole.
pub const WHOLE_MAX: usize = 7_500;
/// Window size (head, middle, tail).
pub const WINDOW: usize = 2_500;
/// Arguments are trimmed to this many chars in the header.
pub const ARGS_MAX: usize = 1_000;

/// One rung of the window ladder, in chars: head, middle and tail windows (an output up to
/// their sum is shown whole) and the cap on the arguments in the header line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rung {
    pub head: usize,
    pub middle: usize,
    pub tail: usize,
    pub args: usize,
}

impl Rung {
    /// Outputs up to this many chars are shown whole.
    pub fn whole(&self) -> usize {
        self.head + self.middle + self.tail
    }

    /// `2,500/1,500/2,500`.
    pub fn label(&self) -> String {
        format!(
            "{}/{}/{}",
            thousands(self.head as u64),
            thousands(self.middle as u64),
            thousands(self.tail as u64)
        )
    }
}

const fn rung(head: usize, middle: usize, tail: usize, args: usize) -> Rung {
    Rung {
        head,
        middle,
        tail,
        args,
    }
}

/// The window ladder: rung 0 is the design's (2,500 each, whole up to 7,500, args 1,000); each
/// later rung is smaller. The batcher walks it for a pair whose questions do not fit one
/// request, and again when the server says a request holding that pair alone is too large.
pub const LADDER: [Rung; 6] = [
    rung(WINDOW, WINDOW, WINDOW, ARGS_MAX),
    rung(WINDOW, 1_500, WINDOW, ARGS_MAX),
    rung(1_500, 1_500, 1_500, ARGS_MAX),
    rung(1_000, 1_000, 1_000, 600),
    rung(600, 600, 600, 400),
    rung(300, 300, 300, 300),
];

/// The header line of a pair.
pub fn header(p: &PairData) -> String {
    header_with(p, ARGS_MAX)
}

fn header_with(p: &PairData, args_max: usize) -> String {
    let args = cap_middle(&p.args.to_string(), args_max);
    format!(
        "Tool call: {} | arguments: {} | output: {} chars | error: {}",
        p.tool,
        args,
        thousands(clen(&p.output) as u64),
        if p.is_error { "yes" } else { "no" }
    )
}

/// The output windows as text.
pub fn render_windows(output: &str, whole: usize, w: usize) -> String {
    match windows(output, whole, w) {
        Windows::Whole(s) => format!("<output>\n{s}\n</output>"),
        Windows::Split {
            head,
            middle,
            middle_at,
            tail,
            len,
        } => split_text(head, middle, middle_at, tail, len),
    }
}

/// The output windows of a ladder rung as text (rung 0 is [`render_windows`] exactly).
pub fn render_rung(output: &str, r: &Rung) -> String {
    let len = clen(output);
    if len <= r.whole() {
        return format!("<output>\n{output}\n</output>");
    }
    let mid_start = (len / 2).saturating_sub(r.middle / 2);
    let a = byte_at(output, mid_start);
    let b = byte_at(output, mid_start + r.middle);
    split_text(
        text_head(output, r.head),
        &output[a..b],
        mid_start,
        text_tail(output, r.tail),
        len,
    )
}

fn split_text(head: &str, middle: &str, middle_at: usize, tail: &str, len: usize) -> String {
    let t = |n: usize| thousands(n as u64);
    format!(
        "<output-head chars=\"0-{}\" of=\"{}\">\n{head}\n</output-head>\n<output-middle chars=\"{}-{}\">\n{middle}\n</output-middle>\n<output-tail chars=\"{}-{}\">\n{tail}\n</output-tail>",
        t(clen(head)),
        t(len),
        t(middle_at),
        t(middle_at + clen(middle)),
        t(len - clen(tail)),
        t(len)
    )
}

/// Render both questions of a pair.
pub fn probe(pair: PairData) -> PairProbe {
    probe_with(pair, WHOLE_MAX, WINDOW)
}

/// Render both questions with explicit window sizes.
pub fn probe_with(pair: PairData, whole: usize, w: usize) -> PairProbe {
    let head = header(&pair);
    let win = render_windows(&pair.output, whole, w);
    assemble(pair, &head, &win)
}

/// Render both questions at rung `i` of the [`LADDER`] (the last rung past its end).
pub fn probe_at(pair: PairData, i: usize) -> PairProbe {
    let r = LADDER[i.min(LADDER.len() - 1)];
    let head = header_with(&pair, r.args);
    let win = render_rung(&pair.output, &r);
    assemble(pair, &head, &win)
}

fn assemble(pair: PairData, head: &str, win: &str) -> PairProbe {
    let useful = format!("{USEFUL_QUESTION}\n\n{head}\n{win}");
    let full = format!("{FULL_QUESTION}\n\n{head}\n{win}");
    let est = estimate_request_tokens(&useful) + estimate_request_tokens(&full);
    PairProbe {
        pair,
        useful_instructions: useful,
        full_instructions: full,
        est_tokens: est,
        lite_cost: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pd(output: &str) -> PairData {
        PairData {
            pair_id: "t1".into(),
            index: 0,
            count: 1,
            tool: "bash".into(),
            args: serde_json::json!({"command": "seq 1 5"}).into(),
            output: output.into(),
            is_error: false,
            call_entry: "a".into(),
            result_entry: "b".into(),
        }
    }

    #[test]
    fn exact_wording_and_windows() {
        let p = probe(pd("1\n2\n3\n4\n5"));
        assert!(p.useful_instructions.starts_with(USEFUL_QUESTION));
        assert!(p.full_instructions.starts_with("Do I need it in full?\n\n"));
        assert!(
            p.useful_instructions
                .contains("<output>\n1\n2\n3\n4\n5\n</output>")
        );
        let long = "y".repeat(20_000);
        let p = probe(pd(&long));
        assert!(
            p.full_instructions
                .contains("<output-middle chars=\"8,750-11,250\">")
        );
        assert_eq!(
            p.useful_instructions.split_once("\n\n").map(|x| x.1),
            p.full_instructions.split_once("\n\n").map(|x| x.1)
        );
        assert!(p.est_tokens > 0);
    }

    #[test]
    fn ladder_rung_zero_is_the_design_and_rungs_shrink() {
        for out in ["short".to_string(), "y".repeat(6_000), "z".repeat(20_000)] {
            let p = probe(pd(&out));
            let p0 = probe_at(pd(&out), 0);
            assert_eq!(p, p0, "rung 0 renders exactly like probe()");
        }
        let args: String = "a".repeat(3_000);
        let mut big = pd(&"0123456789 ".repeat(4_000));
        big.args = serde_json::json!({ "command": args }).into();
        let sizes: Vec<u64> = (0..LADDER.len())
            .map(|i| probe_at(big.clone(), i).est_tokens)
            .collect();
        assert!(sizes.windows(2).all(|w| w[1] < w[0]), "{sizes:?}");
        let last = probe_at(big.clone(), LADDER.len() - 1);
        assert!(
            last.full_instructions
                .contains("<output-middle chars=\"21,850-22,150\">"),
            "{}",
            last.full_instructions
        );
        assert_eq!(LADDER[1].label(), "2,500/1,500/2,500");
        // Past the end: the last rung.
        assert_eq!(probe_at(big.clone(), 99), last);
    }
}
