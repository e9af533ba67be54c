//! JavaScript strings to Rust strings and bytes, without losing lone surrogates.
//!
//! JS strings are UTF-16 and may hold unpaired surrogates. Node's UTF-8 conversion replaces
//! those with U+FFFD, which would silently change the data. So strings are read as UTF-8
//! (one call, the fast path) and, only when the bytes contain U+FFFD (which a replaced
//! surrogate would look like) or are not valid UTF-8, read again as UTF-16 and decoded by
//! core, which reports a lone surrogate as `lone_surrogate`.

use crate::fail::Fail;
use crate::js::{Handle, Js, JsResult, Utf8};
use actionseal_core::string_from_utf16;

/// Bytes of scratch space for reading short strings in one call.
const SCRATCH: usize = 1024;

/// Reads strings through a reusable buffer.
pub(crate) struct Reader {
    js: Js,
    buf: Vec<u8>,
}

impl Reader {
    /// A reader for this environment.
    pub(crate) fn new(js: Js) -> Reader {
        Reader {
            js,
            buf: Vec::with_capacity(SCRATCH),
        }
    }

    /// The string's text; `Ok(None)` when `v` is not a string.
    pub(crate) fn string(&mut self, v: Handle) -> JsResult<Option<String>> {
        match self.js.utf8_into(v, &mut self.buf)? {
            Utf8::NotString => return Ok(None),
            Utf8::TooLong(n) => {
                self.buf.reserve(n + 5);
                if !matches!(self.js.utf8_into(v, &mut self.buf)?, Utf8::Done) {
                    return Err(Fail::Napi(napi::sys::Status::napi_generic_failure));
                }
            }
            Utf8::Done => {}
        }
        if !may_hold_replacement(&self.buf) {
            if let Ok(s) = std::str::from_utf8(&self.buf) {
                return Ok(Some(s.to_owned()));
            }
        }
        let units = self.js.utf16(v)?;
        Ok(Some(string_from_utf16(&units)?))
    }
}

/// Whether UTF-8 bytes may contain U+FFFD (`EF BF BD`); `EF` starts no other character that
/// V8 would write for a replaced surrogate.
fn may_hold_replacement(bytes: &[u8]) -> bool {
    bytes.contains(&0xEF)
}

/// Reads a whole string as bytes for the JSON parser: UTF-8, except that each lone surrogate
/// is written as its generalized UTF-8 form (`ED A0 80` for U+D800), which core's parser
/// reports as `lone_surrogate` with its byte offset, just as it does for such bytes in a
/// `Uint8Array`. Returns `None` when `v` is not a string.
pub(crate) fn text_bytes(js: Js, v: Handle) -> JsResult<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    let n = match js.utf8_into(v, &mut buf)? {
        Utf8::NotString => return Ok(None),
        Utf8::TooLong(n) => n,
        Utf8::Done => 0,
    };
    buf.reserve(n + 5);
    if !matches!(js.utf8_into(v, &mut buf)?, Utf8::Done) {
        return Err(Fail::Napi(napi::sys::Status::napi_generic_failure));
    }
    if may_hold_replacement(&buf) || std::str::from_utf8(&buf).is_err() {
        buf = wtf8(&js.utf16(v)?);
    }
    Ok(Some(buf))
}

/// Encodes UTF-16 code units as UTF-8, writing an unpaired surrogate as the three bytes its
/// code point would take (generalized UTF-8), so that it stays visible to the parser.
pub(crate) fn wtf8(units: &[u16]) -> Vec<u8> {
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
mod tests {
    use super::wtf8;

    #[test]
    fn wtf8_matches_utf8_for_well_formed_text() {
        let s = "a\u{e9}\u{20ac}\u{1F600}\u{FFFD}z";
        let units: Vec<u16> = s.encode_utf16().collect();
        assert_eq!(wtf8(&units), s.as_bytes());
    }

    #[test]
    fn wtf8_keeps_lone_surrogates_visible() {
        assert_eq!(wtf8(&[0x61, 0xD800, 0x62]), b"a\xED\xA0\x80b");
        assert_eq!(wtf8(&[0xDC00]), b"\xED\xB0\x80");
        // A high surrogate followed by another high surrogate: both lone.
        assert_eq!(wtf8(&[0xD83D, 0xD83D]), b"\xED\xA0\xBD\xED\xA0\xBD");
        // A low before a high is not a pair.
        assert_eq!(wtf8(&[0xDE00, 0xD83D]), b"\xED\xB8\x80\xED\xA0\xBD");
    }
}
