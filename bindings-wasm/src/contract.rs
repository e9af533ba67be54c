//! `Contract`: a tool contract loaded once, its argument schema compiled, for every call that
//! uses it; and how a function that takes "a `Contract` or a contract document" reads one.
//!
//! A `Contract` instance can also sit inside another argument (`check`'s `context.contract`),
//! where wasm-bindgen's glue cannot hand it to Rust. There the walk asks the instance itself:
//! it calls the instance's `__actionsealLend` method, whose glue passes the instance's own
//! pointer to Rust, which puts a (shared, cheap) clone of the contract where the caller takes
//! it. Only objects that are not plain data are asked, so a contract document never has any
//! of its members called.

use crate::error;
use crate::fail::Fail;
use crate::host::{is_plain, Walker};
use crate::js::{self, shape};
use crate::to_js;
use actionseal_core::{Contract, Effect, Value, DEFAULT_MAX_DEPTH};
use bumpalo::Bump;
use std::cell::Cell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The contract the last `__actionsealLend` call handed over, until [`lend`] takes it.
    static LENT: Cell<Option<Contract>> = const { Cell::new(None) };
}

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
    /// Loads and validates a contract document.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ContractDocument")] document: JsValue,
    ) -> Result<JsContract, JsValue> {
        let arena = Bump::new();
        let mut walker = Walker::new(DEFAULT_MAX_DEPTH, &arena);
        let document = walker.read(&document)?;
        load(&document).map(|inner| JsContract { inner })
    }

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

    /// `"read"` or `"write"`.
    #[wasm_bindgen(getter, unchecked_return_type = "\"read\" | \"write\"")]
    pub fn effect(&self) -> String {
        match self.inner.effect() {
            Effect::Read => "read",
            Effect::Write => "write",
        }
        .to_owned()
    }

    /// The cost of one call, in minor units of the budget's currency.
    #[wasm_bindgen(getter, js_name = costMinor)]
    pub fn cost_minor(&self) -> f64 {
        // At most 2^53 - 1 (core reads it as a safe integer): exact as a double.
        self.inner.cost_minor() as f64
    }

    /// The contract document as loaded: a fresh plain-object copy on each access.
    #[wasm_bindgen(getter, unchecked_return_type = "ContractDocument")]
    pub fn document(&self) -> Result<JsValue, JsValue> {
        to_js::value(self.inner.document())
    }

    /// Whether a call with these arguments needs an approval, and which rule of the contract
    /// decided (`/approval`, `/approval/when/<i>` or `/approval/when`). Invalid arguments
    /// throw: they never mean "no approval".
    #[wasm_bindgen(js_name = requiresApproval, unchecked_return_type = "Requirement")]
    pub fn requires_approval(
        &self,
        #[wasm_bindgen(unchecked_param_type = "object")] args: JsValue,
    ) -> Result<JsValue, JsValue> {
        requirement(&self.inner, &args)
    }

    /// Throws the first way the arguments break the contract's schema (code and path inside
    /// the arguments); returns nothing when they fit.
    #[wasm_bindgen(js_name = validateArgs)]
    pub fn validate_args(
        &self,
        #[wasm_bindgen(unchecked_param_type = "object")] args: JsValue,
    ) -> Result<(), JsValue> {
        let arena = Bump::new();
        let args = Walker::new(DEFAULT_MAX_DEPTH, &arena).read(&args)?;
        self.inner
            .validate_args(&args)
            .map_err(|e| error::to_js(&e))
    }

    /// Throws unless `action` is an envelope for a call of this contract with arguments it
    /// accepts: what a confirmation page checks before it offers an Approve button.
    #[wasm_bindgen(js_name = validateAction)]
    pub fn validate_action(
        &self,
        #[wasm_bindgen(unchecked_param_type = "object")] action: JsValue,
    ) -> Result<(), JsValue> {
        let arena = Bump::new();
        let action = Walker::new(DEFAULT_MAX_DEPTH, &arena).read(&action)?;
        self.inner
            .validate_action(&action)
            .map_err(|e| error::to_js(&e))
    }

    /// Not part of the API: hands this contract to Rust code that found the instance inside
    /// another value (see the module documentation).
    #[wasm_bindgen(js_name = __actionsealLend, skip_typescript)]
    pub fn lend_self(&self) {
        LENT.set(Some(self.inner.clone()));
    }
}

/// Loads a contract document.
fn load(document: &Value<'_>) -> Result<Contract, JsValue> {
    Contract::from_value(document).map_err(|e| error::to_js(&e))
}

/// The contract of a `Contract` instance; `None` for anything else.
pub(crate) fn lend(value: &JsValue) -> Result<Option<Contract>, Fail> {
    LENT.set(None);
    match js::lend_contract(value) {
        shape::THREW => Err(Fail::Thrown(js::take_thrown())),
        0 => Ok(None),
        _ => Ok(LENT.take()),
    }
}

/// A `Contract` instance's contract, or a contract document loaded (and compiled) for this
/// call. Anything else is refused as the conversion of a document would refuse it.
pub(crate) fn contract_of(value: &JsValue) -> Result<Contract, JsValue> {
    let max_depth = DEFAULT_MAX_DEPTH;
    if value.is_object() {
        let found = is_plain(js::shape(value)).and_then(|plain| match plain {
            true => Ok(None),
            false => lend(value),
        });
        match found {
            Ok(Some(contract)) => return Ok(contract),
            Ok(None) => {}
            Err(fail) => return Err(fail.into_js(max_depth, None)),
        }
    }
    let arena = Bump::new();
    let document = Walker::new(max_depth, &arena).read(value)?;
    load(&document)
}

/// `{required, rule}` for a call of `contract` with `args`.
pub(crate) fn requirement(contract: &Contract, args: &JsValue) -> Result<JsValue, JsValue> {
    let arena = Bump::new();
    let args = Walker::new(DEFAULT_MAX_DEPTH, &arena).read(args)?;
    let r = contract
        .requires_approval(&args)
        .map_err(|e| error::to_js(&e))?;
    to_js::object(vec![
        ("required", Value::Bool(r.required)),
        ("rule", Value::from(r.rule)),
    ])
}
