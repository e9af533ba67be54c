//! `Approval`: an approval record loaded once, for an executor that checks it repeatedly.

use crate::host;
use crate::js::{Handle, Js, JsResult};
use crate::options;
use crate::run;
use crate::to_js;
use actionseal_core::{Approval as CoreApproval, Options};
use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;
use std::sync::Arc;

/// An approval record loaded once, for repeated checks; immutable, thread-safe, picklable.
///
/// `new Approval(record)` reads a record made by `approve` (kept in the executor's storage)
/// and throws `invalid_approval` (or the frozen action's own error under `/action`) when it is
/// not one: a record that cannot be loaded is invalid, and the call it was for is rejected.
/// Pass the instance to `check` in place of the record: it is not read again, and its frozen
/// action not fingerprinted again, on each check. Whether its `action_digest` is its frozen
/// action's fingerprint is `sealed`; `check` rejects one that is not (`invalid_approval`).
/// Instances are immutable and may be shared freely.
#[napi]
pub struct Approval {
    pub(crate) inner: Arc<CoreApproval>,
}

#[napi]
impl Approval {
    /// Loads a record; raises ActionsealError (`invalid_approval`) when it is not one.
    ///
    /// Loads an approval record. Takes no options: records are read with the strict profile
    /// only (`invalid_option` otherwise).
    #[napi(constructor, ts_args_type = "record: ApprovalRecord")]
    pub fn new(env: Env, record: Unknown<'_>, options: Option<Unknown<'_>>) -> Result<Approval> {
        run(&env, |js| {
            options::none(js, options.map(|o| o.raw()))?;
            let inner = host::with_value(js, record.raw(), &Options::default(), |r, _| {
                CoreApproval::from_value(r)
            })??;
            Ok(Approval {
                inner: Arc::new(inner),
            })
        })
    }

    /// The record as loaded (a new dict on each access).
    ///
    /// The record as loaded: a fresh plain-object copy on each access.
    #[napi(getter, ts_return_type = "ApprovalRecord")]
    pub fn record(&self, env: Env) -> Result<Unknown<'static>> {
        run(&env, |js| to_js::value(js, self.inner.value()))
    }

    /// The frozen action (a new dict on each access).
    ///
    /// The frozen action: a fresh plain-object copy on each access.
    #[napi(getter, ts_return_type = "ActionEnvelope")]
    pub fn action(&self, env: Env) -> Result<Unknown<'static>> {
        run(&env, |js| to_js::value(js, self.inner.action().value()))
    }

    /// The fingerprint the record claims for its frozen action.
    ///
    /// The fingerprint the record claims for its frozen action (`"sha256:<64 hex>"`).
    #[napi(getter, ts_return_type = "string")]
    pub fn action_digest(&self, env: Env) -> Result<Unknown<'static>> {
        run(&env, |js| {
            to_js::text(js, &self.inner.action_digest().to_string())
        })
    }

    /// Whether `action_digest` is the frozen action's fingerprint.
    ///
    /// Whether `actionDigest` is the frozen action's fingerprint (a record whose action was
    /// edited after the decision is not sealed).
    #[napi(getter)]
    pub fn sealed(&self) -> bool {
        self.inner.is_sealed()
    }
}

/// The approval of an `Approval` instance (made by this addon in this environment); `None`
/// for anything else.
pub(crate) fn instance(js: Js, value: Handle) -> JsResult<Option<Arc<CoreApproval>>> {
    crate::js::unwrapped(js, value, |a: &Approval| Arc::clone(&a.inner))
}

/// `Approval.prototype`, from the constructor napi-rs registered for this environment.
pub(crate) fn class_prototype(js: Js) -> JsResult<Handle> {
    let ctor = napi::bindgen_prelude::get_class_constructor("Approval\0").ok_or(
        crate::fail::Fail::Internal("the Approval class is not registered"),
    )?;
    js.named(js.deref(ctor)?, c"prototype")
}
