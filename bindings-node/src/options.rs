//! The `options` argument, read into the facts core's rules take (`actionseal_core::host`).

use crate::js::{Handle, Js, JsResult};
use crate::strings::Reader;
use actionseal_core::host::{self, OptionsArg, ProfileArg};
use actionseal_core::Options;
use napi::sys::ValueType;

/// The options of the JSON functions: `{ profile?: "strict" | "rfc8785" }`, `undefined` or
/// `null` for the defaults.
pub(crate) fn read(js: Js, options: Option<Handle>) -> JsResult<Options> {
    with_facts(js, options, |arg| Ok(host::options(arg)?))
}

/// The approval model's functions take no options: anything given is core's
/// `invalid_option` (they never round a number).
pub(crate) fn none(js: Js, options: Option<Handle>) -> JsResult<()> {
    with_facts(js, options, |arg| Ok(host::no_options(arg)?))
}

fn with_facts<T>(
    js: Js,
    options: Option<Handle>,
    f: impl FnOnce(OptionsArg<'_>) -> JsResult<T>,
) -> JsResult<T> {
    let Some(options) = options else {
        return f(OptionsArg::Absent);
    };
    match js.type_of(options)? {
        ValueType::napi_undefined | ValueType::napi_null => return f(OptionsArg::Absent),
        ValueType::napi_object => {}
        _ => return f(OptionsArg::NotAnObject),
    }
    let profile = js.named(options, c"profile")?;
    let name;
    let fact = match js.type_of(profile)? {
        ValueType::napi_undefined => ProfileArg::Absent,
        ValueType::napi_string => {
            name = Reader::new(js).string(profile)?.unwrap_or_default();
            ProfileArg::Name(&name)
        }
        _ => {
            let description = crate::text::describe(js, profile)?;
            return f(OptionsArg::Given(ProfileArg::Other(
                actionseal_js::described(&description),
            )));
        }
    };
    f(OptionsArg::Given(fact))
}
