//! A short form of a fingerprint that a person can read aloud and compare.

use crate::digest::Digest;
use crate::error::Result;

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
mod tests {
    use super::*;

    #[test]
    fn groups_the_first_sixteen_hex_digits() {
        let d = Digest::of(b"abc").to_string();
        assert_eq!(short_fingerprint(&d).unwrap(), "ba78 16bf 8f01 cfea");
        assert_eq!(
            short_fingerprint("sha256:xyz").unwrap_err().code(),
            crate::Code::InvalidDigest
        );
    }
}
