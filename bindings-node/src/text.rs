//! The `text` argument of the JSON-text functions, and naming a value given where it does not
//! belong.

use crate::instance;
use crate::js::{Handle, Js, JsResult};
use crate::strings::{text_bytes, Reader};
use actionseal_core::host;
use actionseal_core::{Options, Result};
use napi::sys::TypedarrayType;
use std::sync::atomic::{AtomicU8, Ordering};

/// Runs `f` on the UTF-8 bytes of `text`, a string or a `Uint8Array` (a `Buffer` is one);
/// anything else is core's `unsupported_type`.
///
/// A `Uint8Array` is read in place unless its memory is a `SharedArrayBuffer`, which another
/// thread could change during parsing; that is copied first.
pub(crate) fn with_bytes<T>(
    js: Js,
    text: Handle,
    options: &Options,
    f: impl FnOnce(&[u8], &Options) -> Result<T>,
) -> JsResult<T> {
    if let Some(bytes) = text_bytes(js, text)? {
        return Ok(f(&bytes, options)?);
    }
    if let Some(array) = js.typed_array(text)? {
        if array.kind == TypedarrayType::uint8_array {
            let data = array.data.cast::<u8>();
            if array.data.is_null() || array.len == 0 {
                return Ok(f(&[], options)?);
            }
            if array.plain {
                // SAFETY: a Uint8Array of `len` elements starts at `data`, and no JavaScript
                // runs while the slice is in use.
                let bytes = unsafe { std::slice::from_raw_parts(data, array.len) };
                return Ok(f(bytes, options)?);
            }
            // A SharedArrayBuffer can be written by another thread at any time: take a
            // snapshot with atomic reads and parse that.
            let snapshot: Vec<u8> = (0..array.len)
                // SAFETY: each address is inside the array; atomic reads are how shared
                // memory may be read while others write it.
                .map(|i| {
                    unsafe { AtomicU8::from_ptr(data.add(i).cast_mut()) }.load(Ordering::Relaxed)
                })
                .collect();
            return Ok(f(&snapshot, options)?);
        }
    }
    let description = describe(js, text)?;
    Err(host::json_text(actionseal_js::described(&description)).into())
}

/// The walker's description of a value (`typeof`, or `object:<constructor name>`), which
/// core turns into the name messages use.
pub(crate) fn describe(js: Js, v: Handle) -> JsResult<String> {
    let f = instance::get(js, |i| i.describe)?;
    let d = js.call(f, &[v])?;
    Ok(Reader::new(js).string(d)?.unwrap_or_default())
}
