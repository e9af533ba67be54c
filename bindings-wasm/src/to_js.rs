//! Core values to JavaScript values: what every function that returns data returns.
//!
//! A value crosses as its canonical JSON text, which `JSON.parse` turns into plain objects
//! (prototype `Object.prototype`, members in canonical order, a `"__proto__"` key an own
//! property like any other), arrays, strings, numbers, booleans and `null`. That is one call
//! into JavaScript whatever the size of the value, and exact: a canonical number is the
//! shortest text that reads back as the same double, and core strings are Unicode scalar
//! values, which JSON text carries unchanged.
//!
//! The verdict of `check`, small and returned on every dispatch, is built by the walker
//! module's `verdict` from its strings instead (shared with the Node addon).

use actionseal_core::{canonicalize, Object, OwnedValue, Value, Verdict};
use actionseal_js::wasm::HOST;
use std::borrow::Cow;
use wasm_bindgen::JsValue;

/// A fresh JavaScript copy of `v`.
pub(crate) fn value(v: &Value<'_>) -> Result<JsValue, JsValue> {
    // Fails only when JavaScript runs out of memory; that exception is passed on.
    js_sys::JSON::parse(&canonicalize(v))
}

/// A JavaScript object with these members, such as `{required, rule}`.
pub(crate) fn object(members: Vec<(&'static str, OwnedValue)>) -> Result<JsValue, JsValue> {
    let entries = members
        .into_iter()
        .map(|(k, v)| (Cow::Borrowed(k), v))
        .collect();
    // The keys are distinct literals, so this cannot fail.
    let object = Object::from_entries(entries).map_err(|e| crate::error::to_js(&e))?;
    value(&Value::Object(object))
}

/// The verdict as a plain object with the members of `Verdict::to_value`.
pub(crate) fn verdict(v: &Verdict) -> JsValue {
    let (pool, lengths) = actionseal_js::verdict_pool(v);
    HOST.with(|h| h.verdict(&pool, &lengths))
}
