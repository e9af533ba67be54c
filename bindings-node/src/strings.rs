//! JavaScript strings to Rust strings and bytes, without losing lone surrogates.
//!
//! JS strings are UTF-16 and may hold unpaired surrogates. Node's UTF-8 conversion replaces
//! those with U+FFFD, which would silently change the data. So strings are read as UTF-8
//! (one call, the fast path) and, only when the bytes contain U+FFFD (which a replaced
//! surrogate would look like) or are not valid UTF-8, read again as UTF-16 and decoded by
//! core, which reports a lone surrogate as `lone_surrogate`.

use crate::fail::Fail;
use crate::js::{Handle, Js, JsResult, Utf8};
use actionseal_core::{string_from_utf16, utf16_to_wtf8};

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
        buf = utf16_to_wtf8(&js.utf16(v)?);
    }
    Ok(Some(buf))
}
