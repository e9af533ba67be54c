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

/// Encodes UTF-16 code units as UTF-8 for the JSON parser, writing an unpaired surrogate as
/// the three bytes its code point would take (generalized UTF-8, as WTF-8 does), so that
/// [`crate::parse`] reports it as [`crate::Code::LoneSurrogate`] at its byte offset instead
/// of a host silently replacing it with U+FFFD.
pub fn utf16_to_wtf8(units: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(units.len() * 3);
    let mut i = 0;
    while i < units.len() {
        let u = u32::from(units[i]);
        let pair = units.get(i + 1).map(|&n| u32::from(n));
        let c = match pair {
            Some(lo) if (0xD800..0xDC00).contains(&u) && (0xDC00..0xE000).contains(&lo) => {
                i += 1;
                0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
            }
            _ => u,
        };
        i += 1;
        match c {
            0..=0x7F => out.push(c as u8),
            0x80..=0x7FF => out.extend([0xC0 | (c >> 6) as u8, 0x80 | (c & 0x3F) as u8]),
            0x800..=0xFFFF => out.extend([
                0xE0 | (c >> 12) as u8,
                0x80 | ((c >> 6) & 0x3F) as u8,
                0x80 | (c & 0x3F) as u8,
            ]),
            _ => out.extend([
                0xF0 | (c >> 18) as u8,
                0x80 | ((c >> 12) & 0x3F) as u8,
                0x80 | ((c >> 6) & 0x3F) as u8,
                0x80 | (c & 0x3F) as u8,
            ]),
        }
    }
    out
}

#[cfg(test)]
mod tests;
