//! How a failure reaches JavaScript: a coded error becomes an `ActionsealError` thrown in the
//! caller's environment, an exception already pending is left in place.

use crate::fail::Fail;
use crate::instance;
use crate::js::Js;
use actionseal_core::Error;
use napi::sys;

impl Fail {
    /// Makes sure a JavaScript exception is pending for this failure and returns the napi-rs
    /// error that tells the generated callback not to throw another one.
    pub(crate) fn throw(self, js: Js) -> napi::Error {
        let error = match self {
            Fail::Core(e) => e,
            Fail::Internal(what) => {
                return napi::Error::from_reason(format!("internal error in actionseal: {what}"))
            }
            Fail::Js => return pending(),
            Fail::Napi(status) => {
                return napi::Error::new(
                    napi::Status::from(status),
                    "a Node-API call failed while reading the value",
                )
            }
        };
        match error_object(js, &error) {
            // SAFETY: `js.0` is the live environment of the current callback.
            Ok(obj) if unsafe { sys::napi_throw(js.0, obj) } == sys::Status::napi_ok => pending(),
            // Could not build or throw the object (the environment is shutting down): let
            // napi-rs throw a plain error with the same text.
            _ => napi::Error::from_reason(error.to_string()),
        }
    }

    /// Throws this failure now, for a callback that returns to Node-API directly.
    pub(crate) fn throw_now(self, js: Js) {
        let e = self.throw(js);
        if e.status != napi::Status::PendingException {
            let message = std::ffi::CString::new(e.reason.replace('\0', " ")).unwrap_or_default();
            // SAFETY: the live environment of the current callback; a failure to throw leaves
            // nothing to clean up.
            unsafe { sys::napi_throw_error(js.0, std::ptr::null(), message.as_ptr()) };
        }
    }
}

/// The napi-rs error that means "an exception is already pending".
fn pending() -> napi::Error {
    napi::Error::new(napi::Status::PendingException, "")
}

/// An `ActionsealError` (the walker's class) whose message is core's Display text, with
/// `code`, `path` and `offset` (`null` when core knows none).
pub(crate) fn error_object(js: Js, error: &Error) -> Result<sys::napi_value, Fail> {
    let fail = instance::get(js, |i| i.fail)?;
    let offset = error.offset().map_or(-1.0, |o| o as f64);
    let args = [
        js.string(error.code().as_str())?,
        js.string(&error.to_string())?,
        js.string(error.path())?,
        js.number(offset)?,
    ];
    js.call(fail, &args)
}
