//! Strings that arrive from hosts as UTF-16 (JavaScript), where lone surrogates can occur.

use crate::error::{Error, Result};

/// Decodes UTF-16 code units; an unpaired surrogate is [`crate::Code::LoneSurrogate`]
/// rather than being replaced with U+FFFD.
pub fn string_from_utf16(units: &[u16]) -> Result<String> {
    let mut out = String::with_capacity(units.len());
    for c in char::decode_utf16(units.iter().copied()) {
        out.push(c.map_err(|_| Error::lone_surrogate())?);
    }
    Ok(out)
}
