//! The `text` argument of `canonicalizeJson` and `fingerprintJson`.

use crate::js::{Handle, Js, JsResult};
use crate::strings::text_bytes;
use actionseal_core::{Error, Options, Result};
use napi::sys::{TypedarrayType, ValueType};
use std::sync::atomic::{AtomicU8, Ordering};

/// Runs `f` on the UTF-8 bytes of `text`, a string or a `Uint8Array` (a `Buffer` is one).
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
    Err(Error::not_json_text(type_name(js, text)?).into())
}

/// A short name for the type of a value given where text was expected.
fn type_name(js: Js, v: Handle) -> JsResult<&'static str> {
    Ok(match js.type_of(v)? {
        ValueType::napi_undefined => "undefined",
        ValueType::napi_null => "null",
        ValueType::napi_boolean => "boolean",
        ValueType::napi_number => "number",
        ValueType::napi_string => "string",
        ValueType::napi_symbol => "Symbol",
        ValueType::napi_function => "function",
        ValueType::napi_bigint => "BigInt",
        _ => match js.typed_array(v)? {
            Some(array) => typed_array_name(array.kind),
            None => "object",
        },
    })
}

/// The constructor name of a typed array kind.
fn typed_array_name(kind: napi::sys::napi_typedarray_type) -> &'static str {
    match kind {
        TypedarrayType::int8_array => "Int8Array",
        TypedarrayType::uint8_array => "Uint8Array",
        TypedarrayType::uint8_clamped_array => "Uint8ClampedArray",
        TypedarrayType::int16_array => "Int16Array",
        TypedarrayType::uint16_array => "Uint16Array",
        TypedarrayType::int32_array => "Int32Array",
        TypedarrayType::uint32_array => "Uint32Array",
        TypedarrayType::float32_array => "Float32Array",
        TypedarrayType::float64_array => "Float64Array",
        TypedarrayType::bigint64_array => "BigInt64Array",
        TypedarrayType::biguint64_array => "BigUint64Array",
        _ => "typed array",
    }
}
