//! The two questions per unpinned pair, rendered from the versioned template `tmpl-v1`
//! (`docs/jev.md#system-one-request-and-response`, `docs/design-compact.md#questions-and-actions`):
//! the design's exact wording, a header line (tool, trimmed args, size, error
//! flag) and the same head / middle / tail windows of the output on both. Pure.

use crate::report::thousands;
use crate::score::{PairData, PairProbe};

use super::estimate_request_tokens;
use super::text::{Windows, cap_middle, clen, windows};

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

/// The header line of a pair.
pub fn header(p: &PairData) -> String {
    let args = cap_middle(&p.args.to_string(), ARGS_MAX);
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
        } => {
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
    }
}

/// Render both questions of a pair.
pub fn probe(pair: PairData) -> PairProbe {
    probe_with(pair, WHOLE_MAX, WINDOW)
}

/// Render both questions with explicit window sizes (the batcher may shrink them).
pub fn probe_with(pair: PairData, whole: usize, w: usize) -> PairProbe {
    let head = header(&pair);
    let win = render_windows(&pair.output, whole, w);
    let useful = format!("{USEFUL_QUESTION}\n\n{head}\n{win}");
    let full = format!("{FULL_QUESTION}\n\n{head}\n{win}");
    let est = estimate_request_tokens(&useful) + estimate_request_tokens(&full);
    PairProbe {
        pair,
        useful_instructions: useful,
        full_instructions: full,
        est_tokens: est,
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
            args: serde_json::json!({"command": "seq 1 5"}),
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
}
