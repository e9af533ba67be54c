//! The `options` argument: `{ profile?: "strict" | "rfc8785" }`.

use actionseal_core::{Code, Error, Options, Profile};
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
        return Err(BadOptions::Core(invalid("options must be an object")));
    }
    let profile =
        Reflect::get(options, &JsValue::from_str("profile")).map_err(BadOptions::Thrown)?;
    if profile.is_undefined() {
        return Ok(Options::default());
    }
    let Some(name) = profile.as_string() else {
        return Err(BadOptions::Core(invalid(
            "options.profile must be a string",
        )));
    };
    name.parse::<Profile>()
        .map(Options::with_profile)
        .map_err(BadOptions::Core)
}

/// `invalid_option` for an options value of the wrong JavaScript type, worded as the Node
/// package words it. Core has no constructor for this yet.
fn invalid(message: &str) -> Error {
    Error::new(Code::InvalidOption, message)
}
