//! The verdict of `check` as a JavaScript object: core's `Verdict::to_value`, made by
//! `verdict.js` from a few strings (see there for why).

use crate::instance;
use crate::js::{Js, JsResult};
use crate::to_js::{self, string as text};
use actionseal_core::{canonicalize, Value, Verdict};
use napi::bindgen_prelude::Unknown;
use std::borrow::Cow;

/// `verdict.to_value()`, as a fresh plain object.
pub(crate) fn to_js(js: Js, verdict: &Verdict) -> JsResult<Unknown<'static>> {
    let f = instance::get(js, |i| i.verdict)?;
    let null = js.null()?;
    let reasons: Vec<&str> = verdict.reasons.iter().map(|r| r.as_str()).collect();
    let drift = if verdict.drift.is_empty() {
        null
    } else {
        // JSON text, so that any pointer (spaces, commas, anything) crosses intact.
        let pointers = verdict
            .drift
            .iter()
            .map(|p| Value::String(Cow::Borrowed(p.as_str())))
            .collect();
        text(js, &canonicalize(&Value::Array(pointers)))?
    };
    let approved = match verdict.approved_digest {
        Some(d) => text(js, &d.to_string())?,
        None => null,
    };
    let (code, path) = match &verdict.action_error {
        Some(e) => (text(js, e.code().as_str())?, text(js, e.path())?),
        None => (null, null),
    };
    let args = [
        text(js, verdict.outcome.as_str())?,
        text(js, &reasons.join(" "))?,
        drift,
        text(js, &verdict.action_digest.to_string())?,
        approved,
        code,
        path,
    ];
    Ok(to_js::unknown(js, js.call(f, &args)?))
}
