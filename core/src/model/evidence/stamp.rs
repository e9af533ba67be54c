//! RFC 3161 time-stamps in a bundle, checked against the verifier's TSA roots.

use super::trust::Trust;
use crate::error::Result;
use crate::timestamp::{verify_token, TimestampTrust};

/// The time by which the checkpoint `text` (the note's text, without signatures) existed,
/// as a token from a TSA chaining to a trusted root says (ms since the epoch).
pub(super) fn checkpoint_time(token: &[u8], text: &str, trust: &Trust) -> Result<i64> {
    let tsa = TimestampTrust {
        roots: trust.tsa_roots.clone(),
        ..TimestampTrust::default()
    };
    Ok(verify_token(token, text.as_bytes(), &tsa)?.gen_time_ms)
}
