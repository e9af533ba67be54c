//! A short form of a fingerprint that a person can read aloud and compare.

use crate::error::Result;
use crate::json::digest::Digest;

/// The first 64 bits of a fingerprint as four groups of four hex digits, such as
/// `f31c 54dd 3e07 a4eb`: what a reviewer reads aloud or compares by eye against the
/// executor's log. Machines compare the full digest; a malformed one is
/// [`crate::Code::InvalidDigest`].
pub fn short_fingerprint(digest: &str) -> Result<String> {
    let d: Digest = digest.parse()?;
    let hex = d.to_string();
    let groups: Vec<&str> = (0..4).map(|i| &hex[7 + 4 * i..11 + 4 * i]).collect();
    Ok(groups.join(" "))
}

#[cfg(test)]
mod tests;
