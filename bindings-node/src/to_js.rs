//! Core values to JavaScript values: what every function that returns data returns.
//!
//! A value crosses as its canonical JSON text, which `JSON.parse` turns into fresh plain
//! objects (prototype `Object.prototype`; a `"__proto__"` key is an own property, as
//! `JSON.parse` makes it), arrays, strings, numbers, booleans and `null`. That is one call
//! into JavaScript whatever the size of the value, and exact: a canonical number is the
//! shortest text that reads back as the same double, and core strings are Unicode scalar
//! values, which JSON text carries unchanged.

use crate::instance;
use crate::js::{Handle, Js, JsResult};
use actionseal_core::{write_canonical, Value};
use napi::bindgen_prelude::Unknown;

/// A fresh JavaScript copy of `v`.
pub(crate) fn value(js: Js, v: &Value<'_>) -> JsResult<Unknown<'static>> {
    let mut text = String::new();
    write_canonical(v, &mut text);
    json(js, &text)
}

/// The value of a JSON text that core wrote (canonical, so well-formed).
pub(crate) fn json(js: Js, text: &str) -> JsResult<Unknown<'static>> {
    let parse = instance::get(js, |i| i.json_parse)?;
    let text = string(js, text)?;
    Ok(unknown(js, js.call(parse, &[text])?))
}

/// A JavaScript string from core's text (a fingerprint, a tool name).
pub(crate) fn text(js: Js, s: &str) -> JsResult<Unknown<'static>> {
    Ok(unknown(js, string(js, s)?))
}

/// A string made without UTF-8 decoding when the text is ASCII (fingerprints, canonical
/// JSON of ASCII data), the common case.
pub(crate) fn string(js: Js, s: &str) -> JsResult<Handle> {
    if s.is_ascii() {
        js.latin1(s.as_bytes())
    } else {
        js.string(s)
    }
}

/// Wraps a handle for napi-rs to return.
pub(crate) fn unknown(js: Js, v: Handle) -> Unknown<'static> {
    // SAFETY: `v` is a live handle of this callback's environment; napi-rs only passes it back
    // to Node as the return value.
    unsafe { Unknown::from_raw_unchecked(js.0, v) }
}
