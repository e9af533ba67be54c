//! The `options` argument.

use crate::js::{Handle, Js, JsResult};
use crate::strings::Reader;
use actionseal_core::{Error, Options, Profile};
use napi::sys::ValueType;

/// Reads `{ profile?: "strict" | "rfc8785" }`; `undefined` or `null` means the defaults.
///
/// Core decides what a profile name means; an unknown name is its `invalid_option`.
pub(crate) fn read(js: Js, options: Option<Handle>) -> JsResult<Options> {
    let Some(options) = options else {
        return Ok(Options::default());
    };
    if js.type_of(options)? != ValueType::napi_object {
        return Err(Error::options_not_an_object().into());
    }
    let profile = js.named(options, c"profile")?;
    match js.type_of(profile)? {
        ValueType::napi_undefined => Ok(Options::default()),
        ValueType::napi_string => {
            let name = Reader::new(js).string(profile)?.unwrap_or_default();
            Ok(Options::with_profile(name.parse::<Profile>()?))
        }
        _ => Err(Error::profile_not_a_string().into()),
    }
}
