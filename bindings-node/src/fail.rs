//! How a call can fail (how a failure reaches JavaScript is in `throw.rs`).

use actionseal_core::Error;
use napi::sys;

/// A failed call.
pub(crate) enum Fail {
    /// A coded error from core.
    Core(Error),
    /// A JavaScript exception is pending (a getter or a Proxy trap threw); it is
    /// left in place so that it reaches the caller unchanged.
    Js,
    /// A Node-API call failed for a reason other than a JavaScript exception.
    Napi(sys::napi_status),
    /// The binding broke one of its own invariants (a bug, reported rather than panicking).
    Internal(&'static str),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Core(e)
    }
}

impl From<actionseal_js::Fail> for Fail {
    fn from(f: actionseal_js::Fail) -> Fail {
        match f {
            actionseal_js::Fail::Refused(e) => Fail::Core(e),
            actionseal_js::Fail::Bug(what) => Fail::Internal(what),
            actionseal_js::Fail::Regather { .. } => Fail::Internal("an unexpected regather"),
        }
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
}
