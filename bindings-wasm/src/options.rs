//! The `options` argument, read into the facts core's rules take (`actionseal_core::host`).

use crate::error;
use actionseal_core::host::{self, OptionsArg, ProfileArg};
use actionseal_core::Options;
use actionseal_js::wasm::HOST;
use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// The options of the JSON functions: `{ profile?: "strict" | "rfc8785" }`, `undefined` or
/// `null` for the defaults. An exception from a getter is passed on.
pub(crate) fn read(options: &JsValue) -> Result<Options, JsValue> {
    with_facts(options, |arg| {
        host::options(arg).map_err(|e| error::to_js(&e))
    })
}

/// The approval model's functions take no options: anything given is core's
/// `invalid_option` (they never round a number).
pub(crate) fn none(options: &JsValue) -> Result<(), JsValue> {
    with_facts(options, |arg| {
        host::no_options(arg).map_err(|e| error::to_js(&e))
    })
}

fn with_facts<T>(
    options: &JsValue,
    f: impl FnOnce(OptionsArg<'_>) -> Result<T, JsValue>,
) -> Result<T, JsValue> {
    if options.is_undefined() || options.is_null() {
        return f(OptionsArg::Absent);
    }
    if !options.is_object() {
        return f(OptionsArg::NotAnObject);
    }
    let profile = Reflect::get(options, &JsValue::from_str("profile"))?;
    if profile.is_undefined() {
        return f(OptionsArg::Given(ProfileArg::Absent));
    }
    match profile.as_string() {
        Some(name) => f(OptionsArg::Given(ProfileArg::Name(&name))),
        None => {
            let description = HOST.with(|h| h.describe(&profile));
            f(OptionsArg::Given(ProfileArg::Other(
                actionseal_js::described(&description),
            )))
        }
    }
}
