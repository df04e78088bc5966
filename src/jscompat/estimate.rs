//! pi's token estimate: `Math.ceil(chars / 4)` over JavaScript string lengths
//! (`docs/pi-format.md#token-estimates`). Every chars → tokens conversion goes through here.
//!
//! pi-shake's own request-size estimator ([`estimate_request_tokens`]), used for every Jev
//! budget (`docs/jev.md#batching`), lives here too, so `compact` and `score` share one home for
//! token estimates. It is a conservative character-class count, in the spirit of fast-jev's
//! estimator: a run of ASCII letters costs one token per started 6 letters, a digit half a
//! token, any other ASCII symbol one token, whitespace nothing, and every non-ASCII character one
//! token (CJK, emoji and accented text tokenise densely). A 5% safety margin is added on top.
//! Deterministic and pure.

use super::len::utf16_len;

/// pi's `estimateTokens` rounding: `Math.ceil(chars / 4)` for `chars` UTF-16 units.
#[inline]
pub fn tokens_from_chars(chars: u64) -> u64 {
    chars.div_ceil(4)
}

/// Estimated tokens of one text as pi counts it: `Math.ceil(text.length / 4)`.
pub fn text_tokens(text: &str) -> u64 {
    tokens_from_chars(utf16_len(text) as u64)
}

/// Estimated tokens of `text` as a scoring request (state JSON, a question, a whole POST).
pub fn estimate_request_tokens(text: &str) -> u64 {
    // Counted in halves so digits stay integral.
    let mut halves: u64 = 0;
    let mut letters: u64 = 0;
    let flush = |letters: &mut u64, halves: &mut u64| {
        if *letters > 0 {
            *halves += 2 * letters.div_ceil(6);
            *letters = 0;
        }
    };
    for c in text.chars() {
        if c.is_ascii_alphabetic() {
            letters += 1;
            continue;
        }
        flush(&mut letters, &mut halves);
        if c.is_ascii_digit() {
            halves += 1;
        } else if c.is_whitespace() {
            // Free: whitespace merges into the neighbouring token.
        } else {
            halves += 2;
        }
    }
    flush(&mut letters, &mut halves);
    let tokens = halves.div_ceil(2);
    // 5% safety margin, rounded up.
    (tokens * 105).div_ceil(100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_class() {
        assert_eq!(estimate_request_tokens(""), 0);
        // "hello" = 1 token, " " free, "world" = 1 → 2 → margin → 3 (ceil(2.1)).
        assert_eq!(estimate_request_tokens("hello world"), 3);
        // 12 digits = 6 tokens → ceil(6.3) = 7.
        assert_eq!(estimate_request_tokens("123456789012"), 7);
        // a 12-letter word = 2 tokens, "{}" = 2 → 4 → ceil(4.2) = 5.
        assert_eq!(estimate_request_tokens("{internationa}"), 5);
        assert_eq!(estimate_request_tokens("日本"), 3);
    }

    #[test]
    fn monotone_in_text() {
        let a = estimate_request_tokens("fn main() { println!(\"hi\"); }");
        let b = estimate_request_tokens("fn main() { println!(\"hi\"); } // more");
        assert!(b > a);
    }
}
