//! pi's token estimate: `Math.ceil(chars / 4)` over JavaScript string lengths
//! (`docs/pi-format.md#token-estimates`). Every chars → tokens conversion goes through here.

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
