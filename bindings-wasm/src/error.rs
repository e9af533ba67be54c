//! Core errors as JavaScript `Error` objects.

use actionseal_core::Error;
use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// A JavaScript `Error` whose message is core's Display text, with `code`, `path` and, when
/// core knows it, `offset` as own properties, as the Node package throws.
pub(crate) fn to_js(e: &Error) -> JsValue {
    let err: JsValue = js_sys::Error::new(&e.to_string()).into();
    // Setting a property of a fresh Error does not fail; if a patched prototype made it,
    // the Error would still be thrown, only without that property.
    let _ = Reflect::set(&err, &"code".into(), &e.code().as_str().into());
    let _ = Reflect::set(&err, &"path".into(), &e.path().into());
    if let Some(offset) = e.offset() {
        let _ = Reflect::set(&err, &"offset".into(), &JsValue::from(offset as f64));
    }
    err
}
