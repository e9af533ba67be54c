//! Core values to JavaScript values: what every function that returns data returns.
//!
//! A value crosses as its canonical JSON text, which `JSON.parse` turns into plain objects
//! (prototype `Object.prototype`, members in canonical order, a `"__proto__"` key an own
//! property like any other), arrays, strings, numbers, booleans and `null`. That is one call
//! into JavaScript whatever the size of the value, and exact: a canonical number is the
//! shortest text that reads back as the same double, and core strings are Unicode scalar
//! values, which JSON text carries unchanged.
//!
//! The verdict of `check`, small and returned on every dispatch, is built by `js/host.js`
//! from its strings instead: parsing its text would cost a third of a check.

use crate::js;
use actionseal_core::{canonicalize, Object, OwnedValue, Value, Verdict};
use std::borrow::Cow;
use std::fmt::Write;
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

/// Marks an absent string among the verdict's lengths.
const NONE: u32 = u32::MAX;

/// The verdict as a plain object with the members of `Verdict::to_value`.
pub(crate) fn verdict(v: &Verdict) -> JsValue {
    let mut pool = Strings::default();
    pool.push(v.outcome.as_str());
    pool.count(v.reasons.len());
    for r in &v.reasons {
        pool.push(r.as_str());
    }
    pool.count(v.drift.len());
    for d in &v.drift {
        pool.push(d);
    }
    pool.push_display(&v.action_digest);
    match &v.approved_digest {
        Some(d) => pool.push_display(d),
        None => pool.lengths.push(NONE),
    }
    match &v.action_error {
        Some(e) => {
            pool.push(e.code().as_str());
            pool.push(e.path());
        }
        None => pool.lengths.push(NONE),
    }
    js::verdict(&pool.text, &pool.lengths)
}

/// Strings laid end to end, with their lengths in UTF-16 code units (JavaScript's).
#[derive(Default)]
struct Strings {
    text: String,
    lengths: Vec<u32>,
}

impl Strings {
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.lengths.push(utf16_len(s));
    }

    fn push_display(&mut self, d: &impl std::fmt::Display) {
        let start = self.text.len();
        // Writing to a String does not fail.
        let _ = write!(self.text, "{d}");
        let len = utf16_len(&self.text[start..]);
        self.lengths.push(len);
    }

    fn count(&mut self, n: usize) {
        self.lengths.push(n as u32);
    }
}

fn utf16_len(s: &str) -> u32 {
    let n = if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    };
    n as u32
}
