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

/// The time a decision's key is judged at: its token's `genTime` when the event carries one
/// (`detail.timestamp`, base64url DER over the canonical `detail.proof`) and the verifier
/// trusts time-stamping roots, else `verified_at`, the ledger's time of arrival. With its
/// source, for the timeline.
pub(super) fn decision_time(
    detail: &crate::json::value::Value<'_>,
    verified_at: i64,
    trust: &Trust,
) -> Result<(i64, &'static str)> {
    let member = |k: &str| detail.as_object().and_then(|o| o.get(k));
    let (Some(token), Some(proof)) = (member("timestamp"), member("proof")) else {
        return Ok((verified_at, "ledger"));
    };
    if trust.tsa_roots.is_empty() {
        return Ok((verified_at, "ledger"));
    }
    let der = token
        .as_str()
        .ok_or_else(|| crate::Error::new(crate::Code::TimestampInvalid, "a token is base64url DER"))
        .and_then(crate::base64::url::decode)?;
    let tsa = TimestampTrust {
        roots: trust.tsa_roots.clone(),
        ..TimestampTrust::default()
    };
    let stamped = verify_token(&der, crate::canonicalize(proof).as_bytes(), &tsa)?;
    Ok((stamped.gen_time_ms, "rfc3161"))
}
