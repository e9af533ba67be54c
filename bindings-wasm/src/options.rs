//! The `options` argument: `{ profile?: "strict" | "rfc8785" }`.

use actionseal_core::{Error, Options, Profile};
use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// Why options could not be read: a core error, or an exception from a getter.
pub(crate) enum BadOptions {
    Core(Error),
    Thrown(JsValue),
}

/// Reads `options`; `undefined`/`null` and a missing `profile` mean the defaults. Other keys
/// are ignored. Core decides what a profile name means.
pub(crate) fn read(options: &JsValue) -> Result<Options, BadOptions> {
    if options.is_undefined() || options.is_null() {
        return Ok(Options::default());
    }
    if !options.is_object() {
        return Err(BadOptions::Core(Error::options_not_an_object()));
    }
    let profile =
        Reflect::get(options, &JsValue::from_str("profile")).map_err(BadOptions::Thrown)?;
    if profile.is_undefined() {
        return Ok(Options::default());
    }
    let Some(name) = profile.as_string() else {
        return Err(BadOptions::Core(Error::profile_not_a_string()));
    };
    name.parse::<Profile>()
        .map(Options::with_profile)
        .map_err(BadOptions::Core)
}
