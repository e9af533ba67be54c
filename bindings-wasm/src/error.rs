//! Core errors as the `ActionsealError`s of the walker module, which both JavaScript packages
//! throw and export.

use actionseal_core::Error;
use actionseal_js::wasm::HOST;
use wasm_bindgen::JsValue;

/// An `ActionsealError` whose message is core's Display text, with `code`, `path` and
/// `offset` (`null` when core knows none).
pub(crate) fn to_js(e: &Error) -> JsValue {
    let offset = e.offset().map_or(-1.0, |o| o as f64);
    HOST.with(|h| h.fail(e.code().as_str(), &e.to_string(), e.path(), offset))
}

/// A core result with its error as the value to throw.
pub(crate) fn core<T>(r: actionseal_core::Result<T>) -> Result<T, JsValue> {
    r.map_err(|e| to_js(&e))
}
