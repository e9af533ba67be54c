//! `Contract`: a tool contract loaded once, its argument schema compiled, for every call that
//! uses it; and how a function that takes "a `Contract` or a contract document" reads one.
//!
//! A `Contract` instance can also sit inside another argument (`check`'s `context.contract`),
//! where wasm-bindgen's glue cannot hand it to Rust. There the walk records it as it is (it
//! inherits from `Contract.prototype`), and the instance is asked to lend itself: its
//! `__actionsealLend` method, whose glue passes the instance's own pointer to Rust, puts a
//! (shared, cheap) clone of the contract where the caller takes it. Plain data is never asked.

use crate::error;
use crate::host;
use crate::to_js;
use crate::NoOptions;
use actionseal_core::{Contract, Effect, Options, Requirement, Value};
use actionseal_js::wasm::HOST;
use std::cell::Cell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The contract the last `__actionsealLend` call handed over, until [`lent`] takes it.
    static LENT: Cell<Option<Contract>> = const { Cell::new(None) };
    /// `Contract.prototype` (see [`prototype`]).
    static PROTOTYPE: JsValue = make_prototype();
}

/// The smallest contract: the instance whose prototype [`prototype`] takes, and the contract
/// of the approval whose prototype `approval.rs` takes.
pub(crate) const FIXTURE: &[u8] = br#"{"tool":"t","version":"1","effect":"read","args":{"type":"object"},"approval":"never","cost_minor":0}"#;

/// A validated tool contract, loaded once and shared; immutable, thread-safe, picklable.
///
/// A validated tool contract: the tool, its argument schema (compiled once, here), when a
/// call needs approval, and what a call costs.
///
/// `new Contract(document)` loads a contract document such as `{"tool": "refund_create",
/// "version": "3", "effect": "write", "args": <JSON Schema>, "approval": "always" | "never" |
/// {"when": [...]}, "cost_minor": 25}` and throws (`invalid_contract`, `unsupported_schema`,
/// `invalid_schema`, ..., with the path inside the document) when it is not one. Pass the
/// instance to `action`, `requiresApproval` and `check` (as `context.contract`) so that the
/// schema is not compiled on every call.
///
/// The contract lives in WebAssembly memory: `free()` (or `using`, where supported) releases
/// it at once; otherwise it is released when the instance is garbage-collected.
#[wasm_bindgen(js_name = Contract)]
pub struct JsContract {
    inner: Contract,
}

#[wasm_bindgen(js_class = Contract)]
impl JsContract {
    /// Loads a contract document; raises ActionsealError when it is not one.
    ///
    /// Loads and validates a contract document. Takes no options: contracts are read with
    /// the strict profile only (`invalid_option` otherwise).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ContractDocument")] document: JsValue,
        options: Option<NoOptions>,
    ) -> Result<JsContract, JsValue> {
        crate::no_options(options)?;
        load(&document).map(|inner| JsContract { inner })
    }

    /// The contract's fingerprint, carried by every action made under it.
    ///
    /// The contract's fingerprint (`"sha256:<64 hex>"`), which every action made under it
    /// carries in its `contract` field.
    #[wasm_bindgen(getter)]
    pub fn digest(&self) -> String {
        self.inner.digest().to_string()
    }

    /// The tool name.
    #[wasm_bindgen(getter)]
    pub fn tool(&self) -> String {
        self.inner.tool().to_owned()
    }

    /// The contract version.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> String {
        self.inner.version().to_owned()
    }

    /// Whether the tool only reads or also changes something.
    #[wasm_bindgen(getter, unchecked_return_type = "\"read\" | \"write\"")]
    pub fn effect(&self) -> String {
        match self.inner.effect() {
            Effect::Read => "read",
            Effect::Write => "write",
        }
        .to_owned()
    }

    /// The cost of one call, in minor units.
    ///
    /// The cost of one call, in minor units of the budget's currency.
    #[wasm_bindgen(getter, js_name = costMinor)]
    pub fn cost_minor(&self) -> f64 {
        // At most 2^53 - 1 (core reads it as a safe integer): exact as a double.
        self.inner.cost_minor() as f64
    }

    /// The contract document as loaded (a new dict on each access).
    ///
    /// The contract document as loaded: a fresh plain-object copy on each access.
    #[wasm_bindgen(getter, unchecked_return_type = "ContractDocument")]
    pub fn document(&self) -> Result<JsValue, JsValue> {
        to_js::value(self.inner.document())
    }

    /// Whether a call with these arguments needs an approval; validates them first.
    ///
    /// Whether a call with these arguments needs an approval, and which rule of the contract
    /// decided (`/approval`, `/approval/when/<i>` or `/approval/when`). Invalid arguments
    /// throw: they never mean "no approval".
    #[wasm_bindgen(js_name = requiresApproval, unchecked_return_type = "Requirement")]
    pub fn requires_approval(
        &self,
        #[wasm_bindgen(unchecked_param_type = "object")] args: JsValue,
        options: Option<NoOptions>,
    ) -> Result<JsValue, JsValue> {
        crate::no_options(options)?;
        requirement(&self.inner, &args)
    }

    /// Raises ActionsealError with the first way the arguments break the schema.
    ///
    /// Throws the first way the arguments break the contract's schema (code and path inside
    /// the arguments); returns nothing when they fit.
    #[wasm_bindgen(js_name = validateArgs)]
    pub fn validate_args(
        &self,
        #[wasm_bindgen(unchecked_param_type = "object")] args: JsValue,
        options: Option<NoOptions>,
    ) -> Result<(), JsValue> {
        crate::no_options(options)?;
        host::with_value(&args, &Options::default(), |a| self.inner.validate_args(a))?
            .map_err(|e| error::to_js(&e))
    }

    /// Raises ActionsealError unless the action is an envelope for a call of this contract.
    ///
    /// Throws unless `action` is an envelope for a call of this contract with arguments it
    /// accepts: what a confirmation page checks before it offers an Approve button.
    #[wasm_bindgen(js_name = validateAction)]
    pub fn validate_action(
        &self,
        #[wasm_bindgen(unchecked_param_type = "object")] action: JsValue,
        options: Option<NoOptions>,
    ) -> Result<(), JsValue> {
        crate::no_options(options)?;
        host::with_value(&action, &Options::default(), |a| {
            self.inner.validate_action(a)
        })?
        .map_err(|e| error::to_js(&e))
    }

    /// Whether a frozen action fits this contract, its commitments held back, and needs a person.
    ///
    /// What a reviewer's page checks of an action the ledger froze: `validateAction`, except
    /// that a sensitive place may hold its commitment (`{"_sd": "sha256:…"}`), which stands
    /// for a value the ledger validated in the clear when the call was proposed; then
    /// `{required, rule}` as `requiresApproval` gives it (a rule that tests a value still
    /// committed cannot tell, and asks for a person). Throws as `validateAction` does.
    #[wasm_bindgen(js_name = reviewAction, unchecked_return_type = "Requirement")]
    pub fn review_action(
        &self,
        #[wasm_bindgen(unchecked_param_type = "object")] action: JsValue,
        options: Option<NoOptions>,
    ) -> Result<JsValue, JsValue> {
        crate::no_options(options)?;
        let r = host::with_value(&action, &Options::default(), |a| {
            self.inner.review_action(a)
        })?;
        requirement_js(r)
    }

    /// Not part of the API: hands this contract to Rust code that found the instance inside
    /// another value (see the module documentation).
    #[wasm_bindgen(js_name = __actionsealLend, skip_typescript)]
    pub fn lend_self(&self) {
        LENT.set(Some(self.inner.clone()));
    }
}

/// Loads a contract document.
fn load(document: &JsValue) -> Result<Contract, JsValue> {
    host::with_value(document, &Options::default(), Contract::from_value)?
        .map_err(|e| error::to_js(&e))
}

/// The contract of a `Contract` instance; `None` for anything else (plain data is not
/// asked). An exception from a getter or Proxy trap, or from a freed instance, is passed on.
pub(crate) fn lent(value: &JsValue) -> Result<Option<Contract>, JsValue> {
    LENT.set(None);
    let proto = prototype();
    match HOST.with(|h| h.lend(value, &proto))? {
        true => Ok(LENT.take()),
        false => Ok(None),
    }
}

/// A `Contract` instance's contract, or a contract document loaded (and compiled) for this
/// call. Anything else is refused as the conversion of a document would refuse it.
pub(crate) fn contract_of(value: &JsValue) -> Result<Contract, JsValue> {
    match lent(value)? {
        Some(contract) => Ok(contract),
        None => load(value),
    }
}

/// `{required, rule}` for a call of `contract` with `args`.
pub(crate) fn requirement(contract: &Contract, args: &JsValue) -> Result<JsValue, JsValue> {
    requirement_js(host::with_value(args, &Options::default(), |a| {
        contract.requires_approval(a)
    })?)
}

/// `{required, rule}`, or the error.
fn requirement_js(r: actionseal_core::Result<Requirement>) -> Result<JsValue, JsValue> {
    let r = r.map_err(|e| error::to_js(&e))?;
    to_js::object(vec![
        ("required", Value::Bool(r.required)),
        ("rule", Value::from(r.rule)),
    ])
}

/// `Contract.prototype`, whose instances stand where data is expected. Rust cannot name the
/// class the generated glue defines, so it makes one small instance once and takes its
/// prototype; the garbage collector frees the instance.
pub(crate) fn prototype() -> JsValue {
    PROTOTYPE.with(Clone::clone)
}

fn make_prototype() -> JsValue {
    let doc = actionseal_core::parse(FIXTURE, &Options::default());
    match doc.and_then(|doc| Contract::from_value(&doc)) {
        Ok(inner) => js_sys::Object::get_prototype_of(&JsContract { inner }.into()).into(),
        // Cannot happen (the fixture is valid); were it to, nothing would be taken as an
        // instance, and instances would be refused as what is not data.
        Err(_) => JsValue::NULL,
    }
}
