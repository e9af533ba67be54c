//! `Approval`: an approval record loaded once, for an executor that checks it repeatedly.

use crate::error;
use crate::{host, to_js};
use actionseal_core::{
    Action, ActionIds, Approval, Contract, Decision, DecisionInput, Options, Value,
};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The approval the last `__actionsealLend` call handed over, until [`lent`] takes it.
    static LENT: Cell<Option<Rc<Approval>>> = const { Cell::new(None) };
    /// `Approval.prototype` (see [`make_prototype`]).
    static PROTOTYPE: JsValue = make_prototype();
}

/// An approval record loaded once, for repeated checks; immutable, thread-safe, picklable.
///
/// `new Approval(record)` reads a record made by `approve` (kept in the executor's storage)
/// and throws `invalid_approval` (or the frozen action's own error under `/action`) when it is
/// not one: a record that cannot be loaded is invalid, and the call it was for is rejected.
/// Pass the instance to `check` in place of the record: it is not read again, and its frozen
/// action not fingerprinted again, on each check. Whether its `action_digest` is its frozen
/// action's fingerprint is `sealed`; `check` rejects one that is not (`invalid_approval`).
///
/// It lives in WebAssembly memory: `free()` (or `using`) releases it at once, garbage
/// collection otherwise.
#[wasm_bindgen(js_name = Approval)]
pub struct JsApproval {
    inner: Rc<Approval>,
}

#[wasm_bindgen(js_class = Approval)]
impl JsApproval {
    /// Loads a record; raises ActionsealError (`invalid_approval`) when it is not one.
    ///
    /// Loads an approval record. Takes no options: records are read with the strict profile
    /// only (`invalid_option` otherwise).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ApprovalRecord")] record: JsValue,
        options: Option<crate::NoOptions>,
    ) -> Result<JsApproval, JsValue> {
        crate::no_options(options)?;
        let inner = host::with_value(&record, &Options::default(), Approval::from_value)?
            .map_err(|e| error::to_js(&e))?;
        Ok(JsApproval {
            inner: Rc::new(inner),
        })
    }

    /// The record as loaded (a new dict on each access).
    ///
    /// The record as loaded: a fresh plain-object copy on each access.
    #[wasm_bindgen(getter, unchecked_return_type = "ApprovalRecord")]
    pub fn record(&self) -> Result<JsValue, JsValue> {
        to_js::value(self.inner.value())
    }

    /// The frozen action (a new dict on each access).
    ///
    /// The frozen action: a fresh plain-object copy on each access.
    #[wasm_bindgen(getter, unchecked_return_type = "ActionEnvelope")]
    pub fn action(&self) -> Result<JsValue, JsValue> {
        to_js::value(self.inner.action().value())
    }

    /// The fingerprint the record claims for its frozen action.
    ///
    /// The fingerprint the record claims for its frozen action (`"sha256:<64 hex>"`).
    #[wasm_bindgen(getter, js_name = actionDigest)]
    pub fn action_digest(&self) -> String {
        self.inner.action_digest().to_string()
    }

    /// Whether `action_digest` is the frozen action's fingerprint.
    ///
    /// Whether `actionDigest` is the frozen action's fingerprint (a record whose action was
    /// edited after the decision is not sealed).
    #[wasm_bindgen(getter)]
    pub fn sealed(&self) -> bool {
        self.inner.is_sealed()
    }

    /// Not part of the API: hands this approval to Rust code that was given the instance as
    /// a plain value (see `contract.rs`).
    #[wasm_bindgen(js_name = __actionsealLend, skip_typescript)]
    pub fn lend_self(&self) {
        LENT.set(Some(Rc::clone(&self.inner)));
    }
}

impl JsApproval {
    /// Wraps a loaded approval.
    pub(crate) fn wrap(inner: Approval) -> JsApproval {
        JsApproval {
            inner: Rc::new(inner),
        }
    }
}

/// The approval of an `Approval` instance; `None` for anything else (plain data is not
/// asked). An exception from a getter or Proxy trap, or from a freed instance, is passed on.
pub(crate) fn lent(value: &JsValue) -> Result<Option<Rc<Approval>>, JsValue> {
    LENT.set(None);
    let proto = PROTOTYPE.with(Clone::clone);
    match actionseal_js::wasm::HOST.with(|h| h.lend(value, &proto))? {
        true => Ok(LENT.take()),
        false => Ok(None),
    }
}

/// `Approval.prototype`, whose instances stand where data is expected. Rust cannot name the
/// class the generated glue defines, so it makes one small instance once (of an approval of
/// a call of the fixture contract) and takes its prototype; the garbage collector frees it.
fn make_prototype() -> JsValue {
    let fixture = || -> actionseal_core::Result<Approval> {
        let doc = actionseal_core::parse(crate::contract::FIXTURE, &Options::default())?;
        let contract = Contract::from_value(&doc)?;
        let ids = ActionIds {
            tenant: "t",
            subject: "s",
            job_id: "j",
            request_id: "r",
            policy_version: "p",
        };
        let args = Value::Object(actionseal_core::Object::new());
        let action = Action::build(&contract, &args, &ids)?;
        let decision = DecisionInput {
            approval_id: "a",
            decision_id: "d",
            decision: Decision::Approved,
            approver: "b",
            decided_at: 0,
            expires_at: 1,
            proposed_digest: None,
            role: None,
            on_behalf_of: None,
            delegation: None,
        };
        Approval::decide(&action, &decision)
    };
    match fixture() {
        Ok(approval) => js_sys::Object::get_prototype_of(&JsApproval::wrap(approval).into()).into(),
        // Cannot happen (the fixture is valid); were it to, nothing would be taken as an
        // instance, and instances would be refused as what is not data.
        Err(_) => JsValue::NULL,
    }
}
