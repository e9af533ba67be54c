//! How a conversion can fail, and how a failure reaches JavaScript.

use actionseal_core::Error;
use napi::sys;
use std::ffi::c_char;
use std::ptr;

/// A failed conversion.
pub(crate) enum Fail {
    /// A coded error from core; its path is built while unwinding.
    Core(Error),
    /// A JavaScript exception is pending (a getter or a Proxy trap threw); it is
    /// left in place so that it reaches the caller unchanged.
    Js,
    /// A Node-API call failed for a reason other than a JavaScript exception.
    Napi(sys::napi_status),
    /// The binding broke one of its own invariants (a bug, reported rather than panicking).
    Internal(&'static str),
    /// An object or array has another realm's `Object.prototype` or `Array.prototype`:
    /// the walk is to be redone with that prototype accepted.
    Regather {
        /// The prototype.
        proto: sys::napi_value,
        /// Whether it is an `Array.prototype`.
        array: bool,
    },
    /// The container at this depth is its own ancestor. Turned into core's `cyclic_value`
    /// by the walk at that depth, so that the error's path is where the cycle closes.
    Cycle(usize),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Core(e)
    }
}

impl Fail {
    /// Prefixes a core error's path with an object key.
    pub(crate) fn in_key(self, key: &str) -> Fail {
        match self {
            Fail::Core(e) => Fail::Core(e.in_key(key)),
            other => other,
        }
    }

    /// Prefixes a core error's path with an array index.
    pub(crate) fn in_index(self, index: usize) -> Fail {
        match self {
            Fail::Core(e) => Fail::Core(e.in_index(index)),
            other => other,
        }
    }

    /// Makes sure a JavaScript exception is pending for this failure and returns the napi-rs
    /// error that tells the generated callback not to throw another one.
    pub(crate) fn throw(self, env: sys::napi_env) -> napi::Error {
        let error = match self {
            Fail::Core(e) => e,
            // Only reachable if a walk forgot to convert it; still a coded error.
            Fail::Cycle(_) => Error::cyclic_value(),
            Fail::Regather { .. } => Error::unsupported_type("object from another realm"),
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
        // SAFETY: `env` is the live environment of the current callback.
        match unsafe { error_object(env, &error) } {
            Some(obj) if unsafe { sys::napi_throw(env, obj) } == sys::Status::napi_ok => pending(),
            // Could not build or throw the object (the environment is shutting down): let
            // napi-rs throw a plain error with the same text.
            _ => napi::Error::from_reason(error.to_string()),
        }
    }
}

/// The napi-rs error that means "an exception is already pending".
fn pending() -> napi::Error {
    napi::Error::new(napi::Status::PendingException, "")
}

/// A JavaScript `Error` whose message is core's Display text, with `code`, `path` and, when
/// core knows it, `offset`.
///
/// # Safety
/// `env` must be the live environment of the current callback.
unsafe fn error_object(env: sys::napi_env, error: &Error) -> Option<sys::napi_value> {
    let ok = |status| status == sys::Status::napi_ok;
    let string = |s: &str| {
        let mut out = ptr::null_mut();
        ok(sys::napi_create_string_utf8(
            env,
            s.as_ptr().cast::<c_char>(),
            s.len() as isize,
            &mut out,
        ))
        .then_some(out)
    };
    let message = string(&error.to_string())?;
    let code = string(error.code().as_str())?;
    let mut obj = ptr::null_mut();
    if !ok(sys::napi_create_error(env, code, message, &mut obj)) {
        return None;
    }
    let path = string(error.path())?;
    if !ok(sys::napi_set_named_property(
        env,
        obj,
        c"path".as_ptr(),
        path,
    )) {
        return None;
    }
    if let Some(offset) = error.offset() {
        let mut n = ptr::null_mut();
        if !ok(sys::napi_create_double(env, offset as f64, &mut n))
            || !ok(sys::napi_set_named_property(
                env,
                obj,
                c"offset".as_ptr(),
                n,
            ))
        {
            return None;
        }
    }
    Some(obj)
}
